#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/integration/nss_line_probe.py - what glibc answers, as JSON, for test_nss.py.

Run inside `unshare -m` with the test's nsswitch.conf and hosts file bind-
mounted over /etc's (test_nss.py does it), so that this process's glibc
walks the test's hosts line: getaddrinfo for each family (addresses, their
IPv6 scope ids and the canonical name, or the EAI code), AF_INET without
AI_CANONNAME too (glibc's gethostbyname2_r path), gethostbyname_ex and
gethostbyname2 of
each family through ctypes (h_errno), gethostbyaddr (h_errno), and getent's
stdout and exit status for ahosts, ahostsv4, ahostsv6 and hosts.

    nss_line_probe.py [--only WHAT] KEY...

--only WHAT makes the one call WHAT (gai_unspec, ghbn2_inet, getent_hosts,
...) and nothing else: the first lookup of the process, as glibc's nscd
client needs when a refusal would send the process's later lookups
around nscd (test_nscd.py).
"""
import ctypes
import ctypes.util
import json
import socket
import subprocess
import sys

libc = ctypes.CDLL(None, use_errno=True)


class HostEnt(ctypes.Structure):
    _fields_ = [("h_name", ctypes.c_char_p), ("h_aliases", ctypes.POINTER(ctypes.c_char_p)),
                ("h_addrtype", ctypes.c_int), ("h_length", ctypes.c_int),
                ("h_addr_list", ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte)))]


libc.gethostbyname2.restype = ctypes.POINTER(HostEnt)
libc.gethostbyname2.argtypes = [ctypes.c_char_p, ctypes.c_int]
libc.__h_errno_location.restype = ctypes.POINTER(ctypes.c_int)


def hostent(h):
    if not h:
        return {"h_errno": libc.__h_errno_location()[0]}
    e = h.contents
    aliases, addrs = [], []
    i = 0
    while e.h_aliases[i]:
        aliases.append(e.h_aliases[i].decode())
        i += 1
    i = 0
    while e.h_addr_list[i]:
        addrs.append(socket.inet_ntop(e.h_addrtype, bytes(e.h_addr_list[i][:e.h_length])))
        i += 1
    return {"name": e.h_name.decode(), "aliases": aliases, "addrs": addrs}


def gai(key, family, flags):
    try:
        res = socket.getaddrinfo(key, None, family, socket.SOCK_STREAM, 0, flags)
        # (the scope id is an IPv6 sockaddr's last item)
        return [[r[4][0], r[3], r[4][3] if len(r[4]) == 4 else 0] for r in res]
    except socket.gaierror as e:
        return {"eai": e.errno}
    except OSError as e:
        # EAI_SYSTEM: Python raises the errno glibc left.
        return {"eai_system": e.errno}


def ghbn2(key, fam):
    libc.__h_errno_location()[0] = 0
    return hostent(libc.gethostbyname2(key.encode(), fam))


def ghba(key):
    try:
        return list(socket.gethostbyaddr(key))
    except socket.herror as e:
        return {"herror": e.errno}
    except (socket.gaierror, OSError) as e:
        return {"error": str(type(e).__name__)}


def getent(db, key):
    p = subprocess.run(["getent", db, key], capture_output=True, text=True)
    return [p.returncode, p.stdout]


def calls(key):
    """(WHAT, thunk) for every call made for key, in order."""
    out = [("gai_" + fname, lambda fam=fam: gai(key, fam, socket.AI_CANONNAME))
           for fam, fname in ((socket.AF_UNSPEC, "unspec"), (socket.AF_INET, "inet"),
                              (socket.AF_INET6, "inet6"))]
    out += [("gai_inet_plain", lambda: gai(key, socket.AF_INET, 0)),
            ("ghbn2_inet", lambda: ghbn2(key, socket.AF_INET)),
            ("ghbn2_inet6", lambda: ghbn2(key, socket.AF_INET6))]
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in key else socket.AF_INET, key)
    except OSError:
        pass
    else:
        out.append(("ghba", lambda: ghba(key)))
    out += [("getent_" + db, lambda db=db: getent(db, key))
            for db in ("ahosts", "ahostsv4", "ahostsv6", "hosts")]
    return out


args = sys.argv[1:]
only = None
if args[:1] == ["--only"]:
    only, args = args[1], args[2:]
out = {}
for key in args:
    out[key] = {what: fn() for what, fn in calls(key) if only in (None, what)}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
