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

    nss_line_probe.py KEY...
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


out = {}
for key in sys.argv[1:]:
    r = {}
    for fam, fname in ((socket.AF_UNSPEC, "unspec"), (socket.AF_INET, "inet"),
                       (socket.AF_INET6, "inet6")):
        r["gai_" + fname] = gai(key, fam, socket.AI_CANONNAME)
    r["gai_inet_plain"] = gai(key, socket.AF_INET, 0)
    libc.__h_errno_location()[0] = 0
    r["ghbn2_inet"] = hostent(libc.gethostbyname2(key.encode(), socket.AF_INET))
    libc.__h_errno_location()[0] = 0
    r["ghbn2_inet6"] = hostent(libc.gethostbyname2(key.encode(), socket.AF_INET6))
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in key else socket.AF_INET, key)
    except OSError:
        pass
    else:
        try:
            r["ghba"] = list(socket.gethostbyaddr(key))
        except socket.herror as e:
            r["ghba"] = {"herror": e.errno}
        except (socket.gaierror, OSError) as e:
            r["ghba"] = {"error": str(type(e).__name__)}
    for db in ("ahosts", "ahostsv4", "ahostsv6", "hosts"):
        p = subprocess.run(["getent", db, key], capture_output=True, text=True)
        r["getent_" + db] = [p.returncode, p.stdout]
    out[key] = r
json.dump(out, sys.stdout, indent=1, sort_keys=True)
