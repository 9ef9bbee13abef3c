#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/bindings/test_python.py - the CPython binding (client-lib/python) against socket.getaddrinfo (issue 14).

Runs inside tests/dns/in-netns.sh (it re-executes itself there): nsd
serves the test zones, diff.example, broken.example (SERVFAIL) and a root
(corpus.ROOT_ZONE_TEXT) on 127.0.0.1:53, /etc/resolv.conf points at it
(search test.example diff.example),
corpus.HOSTS is bound over /etc/hosts and "hosts: files dns" over
/etc/nsswitch.conf, so glibc's own files and dns modules are the
reference; namecached reads the same three files.

  * differential: every corpus name x family x (type, proto) x flags x
    port, namecache.getaddrinfo against socket.getaddrinfo (the same list
    in the same order, or the same gaierror), as a miss and as a hit, and
    namecache.aio.getaddrinfo against loop.getaddrinfo;
  * the executor test: every thread of the loop's default executor is
    held on an Event; a hit, a DNS miss and a negative name through
    namecache.aio still answer, and install()ed asyncio.open_connection
    connects, while loop.getaddrinfo waits for a thread;
  * faults: no daemon at start (all falls back, same answers), the
    daemon killed with lookups in flight and restarted: every lookup is
    answered exactly once;
  * no leaks: a million lookups keep RSS flat.

Needs root (exit 77, a skip, otherwise).  Nothing leaves the namespace.

Run: /usr/bin/python3 tests/bindings/test_python.py --build BUILD
"""
import asyncio
import concurrent.futures
import json
import os
import signal
import socket
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import nclib  # noqa: E402
import bindenv  # noqa: E402
import corpus  # noqa: E402

TESTS = []
namecache = None


def test(fn):
    TESTS.append(fn)
    return fn


def outcome(fn, *args):
    try:
        return fn(*args)
    except socket.gaierror as e:
        return ("gaierror", e.errno, e.strerror)
    except Exception as e:
        return ("error", type(e).__name__, str(e))


def variants():
    for name in corpus.NAMES:
        for family in (0, socket.AF_INET, socket.AF_INET6):
            for st, proto in ((0, 0), (socket.SOCK_STREAM, 0), (socket.SOCK_DGRAM,
                                                                socket.IPPROTO_UDP)):
                for flags in (0, socket.AI_CANONNAME, socket.AI_ADDRCONFIG):
                    for port in (None, 443, "80"):
                        yield (name, port, family, st, proto, flags)


def reference():
    return {v: outcome(socket.getaddrinfo, *v) for v in variants()}


@test
def differential(env):
    env.daemon()
    ref = reference()
    diffs, n = [], 0
    for rnd in ("miss", "hit"):
        if rnd == "miss":
            env.daemons[0].ctl("flush-caches")
        for v, want in ref.items():
            got = outcome(namecache.getaddrinfo, *v)
            n += 1
            if got != want:
                diffs.append("%s %r:\n  socket    %r\n  namecache %r" % (rnd, v, want, got))
    c = namecache.counters()
    assert not diffs, "%d of %d differ:\n%s" % (len(diffs), n, "\n".join(diffs[:10]))
    # The search list's two cases are there (corpus.py): the pair split
    # across domains, and SERVFAIL then NXDOMAIN.
    addrs = lambda name, fam, fl=0: sorted({t[4][0] for t in ref[(  # noqa: E731
        name, None, fam, socket.SOCK_STREAM, 0, fl)]})
    assert addrs("v6only", 0) == ["2001:db8::6"], ref
    assert addrs("v6only", socket.AF_INET) == ["192.0.2.154"]
    assert addrs("v4only", socket.AF_INET6) == ["2001:db8::154"]
    for fam, fl, code in ((socket.AF_INET, 0, socket.EAI_NONAME), (0, 0, socket.EAI_AGAIN),
                          (socket.AF_INET, socket.AI_CANONNAME, socket.EAI_AGAIN)):
        assert ref[("x.broken.example", None, fam, 0, 0, fl)][:2] == ("gaierror", code)
    # Only the numeric hosts were handed to socket.getaddrinfo.
    numeric = sum(1 for v in ref if v[0][0].isdigit() or ":" in v[0])
    assert c["fallbacks"] == 2 * numeric, (c, numeric)
    assert c["from_shared"] > 0.4 * n, c
    print("     %d comparisons, 0 differences; %r" % (n, c))


# Arguments of every shape: keywords, wrong types, too many, odd values.
ODD = [
    (("localhost", 80), {"type": socket.SOCK_STREAM}),
    (("localhost",), {"port": 80, "family": socket.AF_INET6, "flags": socket.AI_CANONNAME}),
    ((), {"host": "www.test.example", "port": "443", "proto": socket.IPPROTO_TCP}),
    ((1, 80), {}), (("localhost", [1]), {}), (("localhost", 80, "x"), {}),
    (("localhost", 80, 0, 0, 0, 0, 0), {}), (("localhost", 80), {"bogus": 1}),
    (("localhost", 80), {"port": 81}), (("localhost", 2 ** 70), {}), (("localhost", -1), {}),
    ((b"localhost", b"80"), {}), (("localhost", True), {}), ((bytearray(b"localhost"), 80), {}),
    (("\u00fcn\u00efcode.test.example", 80), {}), (("a..b.test.example", 80), {}),
    (("x" * 64 + ".test.example", 80), {}), (("", 80), {}), (("*", 80), {}),
    ((None, 80), {"flags": socket.AI_PASSIVE}), (("localhost", None, 0, 0, 0, 0x10000), {}),
    (("localhost", "http"), {}), (("localhost", "nosuchservice"), {}),
    (("localhost", 80, socket.AF_UNIX), {}), (("localhost", 80, 0, 99), {}),
    (("localhost", 80, 0, socket.SOCK_STREAM, socket.IPPROTO_UDP), {}),
    (("localhost", 80, 0, socket.SOCK_RAW), {}), (("localhost", "80", 0, 0, 0,
                                                    socket.AI_NUMERICSERV), {}),
    (("localhost", "x", 0, 0, 0, socket.AI_NUMERICSERV), {}),
    (("localhost", 80, socket.AF_INET6, 0, 0, socket.AI_V4MAPPED), {}),
    (("127.1", 80), {}), (("0x7f.1", 80), {}), (("::1%lo", 80), {}), (("fe80::1%1", 80), {}),
    (("localhost", 80, 0, 0, 0, socket.AI_NUMERICHOST), {}),
]


@test
def odd_arguments(env):
    env.daemon()

    def call(fn, a, k):
        try:
            return fn(*a, **k)
        except Exception as e:
            return (type(e).__name__, getattr(e, "errno", None), str(e))
    diffs = []
    for _ in range(2):
        for a, k in ODD:
            want, got = call(socket.getaddrinfo, a, k), call(namecache.getaddrinfo, a, k)
            if want != got:
                diffs.append("%r %r:\n  socket    %r\n  namecache %r" % (a, k, want, got))
    assert not diffs, "\n".join(diffs)


@test
def differential_aio(env):
    env.daemon()
    ref = reference()

    async def run():
        loop = asyncio.get_running_loop()
        diffs = []

        async def one(v):
            name, port, family, st, proto, flags = v
            try:
                got = await namecache.aio.getaddrinfo(*v)
            except socket.gaierror as e:
                got = ("gaierror", e.errno, e.strerror)
            if got != ref[v]:
                diffs.append("%r:\n  socket    %r\n  namecache %r" % (v, ref[v], got))
        # all at once: misses in flight together on one connection
        await asyncio.gather(*(one(v) for v in ref))
        await asyncio.gather(*(one(v) for v in ref))
        # and the loop's own getaddrinfo, install()ed
        namecache.aio.install(loop)
        try:
            v = ("www.test.example", 443, 0, socket.SOCK_STREAM, 0, 0)
            got = await loop.getaddrinfo(v[0], v[1], type=v[3])
            assert got == ref[v], (got, ref[v])
        finally:
            namecache.aio.uninstall(loop)
        return diffs
    diffs = asyncio.run(run())
    assert not diffs, "%d differ:\n%s" % (len(diffs), "\n".join(diffs[:10]))
    print("     %d comparisons, 0 differences" % (2 * len(ref)))


@test
def busy_executor(env):
    d = env.daemon()
    namecache.getaddrinfo("dual", 80)     # a hit from now on
    d.ctl("flush-caches")
    namecache.getaddrinfo("localhost", 80)

    async def run():
        loop = asyncio.get_running_loop()
        ex = concurrent.futures.ThreadPoolExecutor(max_workers=4)
        loop.set_default_executor(ex)
        hold = threading.Event()
        held = [loop.run_in_executor(None, hold.wait) for _ in range(4)]
        await asyncio.sleep(0.05)
        theirs = asyncio.ensure_future(loop.getaddrinfo("localhost", 80))
        try:
            async with asyncio.timeout(20):
                hit = await namecache.aio.getaddrinfo("localhost", 80)
                miss = await namecache.aio.getaddrinfo("www.test.example", 80)
                try:
                    await namecache.aio.getaddrinfo("nosuch.test.example", 80)
                    neg = None
                except socket.gaierror as e:
                    neg = e.errno
                # a connection through the loop's own getaddrinfo, install()ed
                srv = await asyncio.start_server(lambda r, w: w.close(), "127.0.0.1", 0)
                port = srv.sockets[0].getsockname()[1]
                namecache.aio.install(loop)
                r, w = await asyncio.open_connection("localhost", port)
                w.close()
                namecache.aio.uninstall(loop)
                srv.close()
            # all of that while every executor thread was held
            assert not theirs.done() and not any(h.done() for h in held)
        finally:
            hold.set()
        await asyncio.gather(*held)
        await theirs
        ex.shutdown()
        return hit, miss, neg
    hit, miss, neg = asyncio.run(run())
    assert hit == socket.getaddrinfo("localhost", 80)
    assert miss == socket.getaddrinfo("www.test.example", 80)
    assert neg == socket.EAI_NONAME


@test
def faults(env):
    # No daemon at all: every answer is socket.getaddrinfo's own.
    os.environ["NAMECACHE_SOCKET"] = os.path.join(env.tmp, "nobody", "sock")
    for name in ("localhost", "www.test.example", "nosuch.test.example"):
        assert outcome(namecache.getaddrinfo, name, 80) == outcome(socket.getaddrinfo,
                                                                   name, 80)
    d = env.daemon()
    # A slow name, lookups in flight, a SIGKILL: each still answered once.
    async def run():
        answers = {}

        async def one(i):
            name = "nosuch%d.test.example" % i
            try:
                r = await namecache.aio.getaddrinfo(name, 80)
            except socket.gaierror as e:
                r = e.errno
            answers.setdefault(i, []).append(r)
        c0 = namecache.counters()
        tasks = [asyncio.ensure_future(one(i)) for i in range(100)]
        await asyncio.sleep(0)
        d.proc.kill()
        d.proc.wait()
        d.killed = True
        await asyncio.gather(*tasks)
        c1 = namecache.counters()
        # the lookups in flight went to the loop's own getaddrinfo
        assert c1["fallbacks"] - c0["fallbacks"] > 0, (c0, c1)
        # restarted: the same context reconnects, and answers again
        d2 = env.daemon()
        await asyncio.gather(*(one(1000 + i) for i in range(50)))
        c2 = namecache.counters()
        assert c2["answered"] - c1["answered"] == 50, (c1, c2)
        return answers, d2
    answers, d2 = asyncio.run(run())
    assert sorted(answers) == list(range(100)) + list(range(1000, 1050))
    assert all(v == [socket.EAI_NONAME] for v in answers.values()), answers


def line_probe(env, line, names, sock, v4_only=False):
    """py_line_probe.py's report, under "hosts: LINE" with tests/nss's module."""
    e = bindenv.nctest_env(dict(os.environ, NAMECACHE_SOCKET=sock))
    r = bindenv.with_line(env.tmp, line, ["/usr/bin/python3", os.path.join(HERE, "py_line_probe.py"),
                                          bindenv.BUILD] + names, e, v4_only=v4_only)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout)
    assert not out["diffs"], "%d of %d differ:\n%s" % (len(out["diffs"]), out["n"],
                                                        "\n".join(out["diffs"][:10]))
    assert out["counters"]["fallbacks"] == 0, out["counters"]
    return out


@test
def scoped_addresses(env):
    """A module's link-local address with its interface (tests/nss's
    scoped-N, as nss-myhostname's fe80::1%eth0): socket.getaddrinfo gives
    ('fe80::N', port, 0, index) first (the scope makes it usable to the
    sort); namecache the same tuples in the same order, hits and misses."""
    bindenv.add_link()
    try:
        env.daemon(line="files nctest", env=bindenv.nctest_env())
        out = line_probe(env, "files nctest", ["scoped-5.nct", "ok-6.nct", "v6-7.nct"],
                         os.environ["NAMECACHE_SOCKET"])
        # the setup does what it is for: the scope is there, and it matters
        index = socket.if_nametoindex(bindenv.SCOPE_IF)
        first = out["socket"]["scoped-5.nct 0 0 0"]
        assert first[0][4] == ["fe80::5", 0, 0, index], first
        last = out["socket"]["scoped-5.nct %d 0 0" % socket.AF_INET6]
        assert last[-1][4] == ["fe80::5", 0, 0, 0], last   # a hostent has no scope
        print("     %d comparisons, 0 differences" % out["n"])
    finally:
        bindenv.del_link()


@test
def notfound_after_a_temporary_failure(env):
    """Status 12 (NOTFOUND_TRYAGAIN) from a stand-in daemon, against glibc
    walking tests/nss's nftryagain-N (nss_dns's NOTFOUND with TRY_AGAIN):
    EAI_NONAME for AF_INET without AI_CANONNAME, and for AF_UNSPEC that
    AI_ADDRCONFIG narrows to AF_INET on a host with IPv4 alone; EAI_AGAIN
    for the rest.  namecache gives the same gaierror, blocking and aio."""
    fake = nclib.FakeDaemon(os.path.join(env.tmp, "fake.sock"), lambda f: (
        12, nclib.reason_body("SERVFAIL, then NXDOMAIN")))
    try:
        for v4_only in (False, True):
            out = line_probe(env, "nctest", ["nftryagain-3.nct"], fake.sock, v4_only=v4_only)
            codes = {k: v[1] for k, v in out["socket"].items()}
            assert set(codes.values()) == {socket.EAI_NONAME, socket.EAI_AGAIN}, codes
            assert codes["nftryagain-3.nct %d 0 0" % socket.AF_INET] == socket.EAI_NONAME
            assert codes["nftryagain-3.nct 0 0 %d" % socket.AI_ADDRCONFIG] == (
                socket.EAI_NONAME if v4_only else socket.EAI_AGAIN)
            print("     %s: %d comparisons, 0 differences" % (
                "IPv4 alone" if v4_only else "both families", out["n"]))
        assert fake.requests > 0
    finally:
        fake.stop()


@test
def no_leaks(env):
    env.daemon()
    for _ in range(100000):
        namecache.getaddrinfo("localhost", 443)
    before = nclib.rss_kib(os.getpid())
    t0 = time.monotonic()
    for i in range(1000000):
        namecache.getaddrinfo("localhost", 443)
    after = nclib.rss_kib(os.getpid())
    assert after - before < 1024, (before, after)
    print("     1,000,000 lookups in %.1f s: RSS %d KiB -> %d KiB" % (
        time.monotonic() - t0, before, after))


def main():
    status = bindenv.enter(__file__)
    if status is not None:
        return status

    def set_build(b):
        global namecache
        bindenv.set_build(b)
        sys.path.insert(0, os.path.join(b, "client-lib", "python"))
        import namecache as m
        namecache = m
    return nclib.run_tests(TESTS, bindenv.make_env, "nc-py-", set_build)


if __name__ == "__main__":
    sys.exit(main())
