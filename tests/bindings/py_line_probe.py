#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/bindings/py_line_probe.py - namecache.getaddrinfo against socket.getaddrinfo, on a line of test_python.py's.

Run by test_python.py with a hosts line of its own bound over
/etc/nsswitch.conf (bindenv.with_line), so that socket.getaddrinfo walks
it, and NAMECACHE_SOCKET at a daemon (or a stand-in) answering for it:

    py_line_probe.py BUILD NAME...

prints JSON: the comparisons made, the differences (namecache.getaddrinfo
twice, a miss and maybe a hit, and namecache.aio.getaddrinfo, each against
socket.getaddrinfo for every family, type, flags and port), socket's
outcomes, and namecache's counters (fallbacks must stay 0: an answer handed
to socket.getaddrinfo would be equal for nothing).
"""
import asyncio
import json
import os
import socket
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "client-lib", "python"))
import namecache  # noqa: E402
import namecache.aio  # noqa: E402,F401

FLAGS = (0, socket.AI_CANONNAME, socket.AI_ADDRCONFIG,
         socket.AI_CANONNAME | socket.AI_ADDRCONFIG)


def outcome(fn, *args):
    try:
        return [list(t) for t in fn(*args)]
    except socket.gaierror as e:
        return ["gaierror", e.errno, e.strerror]
    except Exception as e:
        return ["error", type(e).__name__, str(e)]


async def aoutcome(*args):
    try:
        return [list(t) for t in await namecache.aio.getaddrinfo(*args)]
    except socket.gaierror as e:
        return ["gaierror", e.errno, e.strerror]
    except Exception as e:
        return ["error", type(e).__name__, str(e)]


def main():
    variants = [(name, port, family, st, 0, flags)
                for name in sys.argv[2:]
                for family in (0, socket.AF_INET, socket.AF_INET6)
                for st in (0, socket.SOCK_STREAM)
                for flags in FLAGS
                for port in (None, 443)]
    ref = {v: outcome(socket.getaddrinfo, *v) for v in variants}
    diffs, n = [], 0
    for rnd in ("first", "again"):
        for v in variants:
            got = outcome(namecache.getaddrinfo, *v)
            n += 1
            if got != ref[v]:
                diffs.append("%s %r:\n  socket    %r\n  namecache %r" % (rnd, v, ref[v], got))

    async def run():
        outs = await asyncio.gather(*(aoutcome(*v) for v in variants))
        return dict(zip(variants, outs))
    for v, got in asyncio.run(run()).items():
        n += 1
        if got != ref[v]:
            diffs.append("aio %r:\n  socket    %r\n  namecache %r" % (v, ref[v], got))
    json.dump({"n": n, "diffs": diffs, "counters": namecache.counters(),
               "socket": {"%s %d %d %d" % (v[0], v[2], v[3], v[5]): ref[v]
                          for v in variants if v[1] is None}}, sys.stdout)


if __name__ == "__main__":
    main()
