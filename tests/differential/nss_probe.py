#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What getent does not show, for hosts_diff.py.

    nss_probe.py SERVICE < KEYS

Looks up each key (one a line) with the hosts database configured to SERVICE
alone (__nss_configure_lookup), and prints one line per call:
gethostbyname (the module's gethostbyname_r, which getent never calls),
gethostbyname2 for both families, with h_errno on failure, and getaddrinfo
with flags getent does not use, with its error code on failure.  A key that
starts with "@" is an address, asked with gethostbyaddr.

Only the few modules it needs are imported: it runs twice for every file.
"""

import ctypes
import socket
import sys


class Hostent(ctypes.Structure):
    _fields_ = [("h_name", ctypes.c_char_p),
                ("h_aliases", ctypes.POINTER(ctypes.c_char_p)),
                ("h_addrtype", ctypes.c_int), ("h_length", ctypes.c_int),
                ("h_addr_list", ctypes.POINTER(ctypes.POINTER(ctypes.c_char)))]


GAI = ((socket.AF_UNSPEC, socket.AI_CANONNAME),
       (socket.AF_INET, socket.AI_CANONNAME),
       (socket.AF_INET6, socket.AI_CANONNAME),
       (socket.AF_UNSPEC, socket.AI_ADDRCONFIG),
       (socket.AF_INET6, socket.AI_V4MAPPED | socket.AI_ALL))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    libc = ctypes.CDLL("libc.so.6")
    if libc.__nss_configure_lookup(b"hosts", sys.argv[1].encode()) != 0:
        print("__nss_configure_lookup failed", file=sys.stderr)
        return 99
    hptr = ctypes.POINTER(Hostent)
    libc.gethostbyname.restype = hptr
    libc.gethostbyname.argtypes = [ctypes.c_char_p]
    libc.gethostbyname2.restype = hptr
    libc.gethostbyname2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    libc.gethostbyaddr.restype = hptr
    libc.gethostbyaddr.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_int]
    libc.__h_errno_location.restype = ctypes.POINTER(ctypes.c_int)

    def hostent(hp):
        if not hp:
            return "h_errno %d" % libc.__h_errno_location()[0]
        h = hp.contents
        aliases, addrs, i = [], [], 0
        while h.h_aliases[i]:
            aliases.append(h.h_aliases[i].decode("latin-1"))
            i += 1
        i = 0
        while h.h_addr_list[i]:
            addrs.append(socket.inet_ntop(h.h_addrtype, h.h_addr_list[i][:h.h_length]))
            i += 1
        return "%r %r %d %r" % (h.h_name.decode("latin-1"), aliases, h.h_addrtype, addrs)

    def gai(k, fam, flags):
        try:
            r = socket.getaddrinfo(k, None, fam, socket.SOCK_STREAM, 0, flags)
        except socket.gaierror as e:
            return "error %d" % e.errno
        return repr([(int(x[0]), x[3], x[4][0]) for x in r])

    out = []
    for k in sys.stdin.buffer.read().split(b"\n"):
        if not k:
            continue
        if k.startswith(b"@"):
            a = k[1:].decode()
            fam = socket.AF_INET6 if ":" in a else socket.AF_INET
            p = socket.inet_pton(fam, a)
            out.append("%r gethostbyaddr: %s" % (k, hostent(libc.gethostbyaddr(p, len(p), fam))))
            continue
        out.append("%r gethostbyname: %s" % (k, hostent(libc.gethostbyname(k))))
        for fam in (socket.AF_INET, socket.AF_INET6):
            out.append("%r gethostbyname2 %d: %s"
                       % (k, fam, hostent(libc.gethostbyname2(k, fam))))
        for fam, flags in GAI:
            out.append("%r getaddrinfo %d %d: %s" % (k, fam, flags, gai(k, fam, flags)))
    sys.stdout.write("".join(line + "\n" for line in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
