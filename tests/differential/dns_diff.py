#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Differential test: the namecache NSS module against glibc's dns module.

The claim: against the same DNS server and the same resolv.conf,

    getent -s namecache DB KEY   ==   getent -s dns DB KEY

(stdout byte for byte, and the exit status) for DB in ahosts, ahostsv4,
ahostsv6 and hosts (names, and addresses: reverse lookups); and, with a
hosts file that glibc reads as /etc/hosts and namecached as --hosts-file,

    getent -s namecache DB KEY   ==   getent -s 'files dns' DB KEY.

Network rule: glibc's dns module only ever runs inside tests/dns/in-netns.sh
(a private network namespace holding only `lo`, nsd serving the test zones
on 127.0.0.1:53 and [::1]:53, a private /etc/resolv.conf bind mount).  This
script is an outer driver that runs each phase through
dnsenv.run_in_netns(); the inner phase refuses to run anywhere else.

Phases (each: a fresh namecached with --resolv-conf /etc/resolv.conf, the
very file glibc reads, and no --upstream):

    dns          search test.example diff.example, ndots:1, empty hosts file
    dns-ndots2   search test.example neg.example diff.example, ndots:2
    dns-refused  as dns, but nsd is not authoritative for the root: names
                 outside the test zones get REFUSED instead of NXDOMAIN
    files-dns    as dns, with HOSTS_FILE bind-mounted over /etc/hosts and
                 given to namecached; the reference is 'files dns'

Besides dnsenv.ZONES nsd serves EXTRA_ZONE (dnsenv.DIFF_ZONE,
diff.example.: dotted names that only the search list reaches, such as
www.sub), broken.example. (a zone file nsd cannot load: SERVFAIL) and,
except in dns-refused, ROOT_ZONE ("."), so that every name gets an
authoritative answer (NXDOMAIN outside the test zones) as from a recursive
resolver.

Two search-list cases every phase asks (docs/design.md, "DNS: the cache
and the fetches"):
    a pair split across domains  v6only.test.example has AAAA only and
              v6only.diff.example A only (v4only the other way round):
              AF_UNSPEC stops at test.example with one family, AF_INET
              (AF_INET6) goes on to diff.example;
    SERVFAIL (or REFUSED), then NXDOMAIN  x.broken.example (SERVFAIL as
              asked, every phase) and, in dns-refused, x.y and
              outside.invalid (REFUSED): glibc's NOTFOUND with TRY_AGAIN,
              EAI_NONAME for getaddrinfo(AF_INET) without AI_CANONNAME
              (the probe asks it) and EAI_AGAIN for the rest.

Ways namecache is asked, each compared with glibc's answer for the key:
    miss+hit  per key, after a cache flush: `getent -s namecache DB K K`
              (the first lookup goes to DNS, the second comes from the
              cache): stdout must be glibc's twice, the status glibc's.
              A key that differs is asked again in two processes to tell
              which of miss and hit differs.
    hit (new process)  then `getent -s namecache DB K` once more: equal
              too, and it must send nothing upstream (counted with the
              daemon's statistics; a "cache note" otherwise, a failure with
              --strict-cache).
    warm-1/2  after one flush, every key of a database in one getent run,
              database after database (one kind of lookup finds what
              another cached), twice; a differing batch is split per key.
    probe-1/2 this script with --probe, through ctypes and socket: what
              getent does not show (gethostbyname, gethostbyname2 of each
              family, h_errno, getaddrinfo error codes and flags,
              gethostbyaddr, getnameinfo NI_NAMEREQD), after a flush, twice.
A difference is confirmed by asking glibc again (twice): a glibc answer
that was a fluke (a timeout on a loaded machine) is dropped with a
"reference note".  Phases run two at a time (--parallel).
Cache flushes and counters go over the daemon's socket (proto v1 frames
FLUSH_CACHES and STATISTICS), with namecachectl as the fallback.

Knobs: --phase NAME (repeatable), --ignore-case (differences only in the
letter case of names become expected failures), --strict-cache, --keep.

Exit status: 0 all equal, 1 differences, 77 cannot run here (not root, no
namespaces, nsd missing), 99 the harness itself failed.
"""

import argparse
import ipaddress
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP, HARNESS = 77, 99
NAME_DBS = ["ahosts", "ahostsv4", "ahostsv6", "hosts"]
OPTS = "timeout:2 attempts:2"
SLOW = 3.0      # seconds: a single lookup slower than this is noted

# Known, understood differences that are by design: {(phase, db, key): why}.
XFAIL = {}

# One structural difference, by rule rather than by key.  For
# getaddrinfo(AF_INET6) with AI_V4MAPPED (getent ahostsv6) or AI_ALL, glibc
# asks each service for AF_INET6 and then AF_INET before moving on, so with
# "files dns" a name the hosts file lists for one family only is answered
# from the file alone.  One module that is files and dns at once sees the
# same gethostbyname3_r(AF_INET6) call as plain gethostbyname2(AF_INET6)
# makes, where glibc does go on to DNS; it cannot tell the two apart (NSS
# passes no flags), and it answers the plain call the way glibc does.
V4MAPPED_WHY = ("AI_V4MAPPED/AI_ALL with a hosts-file name of one family: glibc "
                "asks both families of `files' before `dns'; an NSS module gets "
                "no flags to tell this call from gethostbyname2(AF_INET6)")


def hosts_families(name):
    """The families HOSTS_FILE lists name for (case-insensitively)."""
    want = name.lower().rstrip(".")
    fams = set()
    for line in HOSTS_FILE.splitlines():
        f = line.split("#", 1)[0].split()
        if len(f) >= 2 and want in [n.lower() for n in f[1:]]:
            fams.add(6 if ":" in f[0] else 4)
    return fams


def structural_xfail(phase, db, key):
    mapped = db == "ahostsv6" or "AI_V4MAPPED" in db or "AI_ALL" in db
    if phase == "files-dns" and mapped and len(hosts_families(key)) == 1:
        return V4MAPPED_WHY
    return None


def log(*a):
    print(*a, flush=True)


class HarnessError(Exception):
    pass


# ====================================================================== probe
# Runs in a child (python3 -S): keys on stdin, one "KEY\tCALL\tRESULT" line
# out per call.  Kept above the dnsenv import: it needs no dnslib.

def probe(service, kind):
    import ctypes

    class Hostent(ctypes.Structure):
        _fields_ = [("h_name", ctypes.c_char_p),
                    ("h_aliases", ctypes.POINTER(ctypes.c_char_p)),
                    ("h_addrtype", ctypes.c_int), ("h_length", ctypes.c_int),
                    ("h_addr_list", ctypes.POINTER(ctypes.POINTER(ctypes.c_char)))]

    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    if libc.__nss_configure_lookup(b"hosts", service.encode()) != 0:
        print("__nss_configure_lookup failed", file=sys.stderr)
        return HARNESS
    hptr = ctypes.POINTER(Hostent)
    libc.gethostbyname.restype = hptr
    libc.gethostbyname2.restype = hptr
    libc.gethostbyaddr.restype = hptr
    libc.gethostbyaddr.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_int]
    libc.__h_errno_location.restype = ctypes.POINTER(ctypes.c_int)
    herr = {1: "HOST_NOT_FOUND", 2: "TRY_AGAIN", 3: "NO_RECOVERY", 4: "NO_DATA"}
    fname = {socket.AF_UNSPEC: "AF_UNSPEC", socket.AF_INET: "AF_INET",
             socket.AF_INET6: "AF_INET6"}

    def hostent(hp):
        if not hp:
            e = libc.__h_errno_location()[0]
            return "NULL, h_errno %d %s" % (e, herr.get(e, "?"))
        h = hp.contents
        aliases, addrs, i = [], [], 0
        while h.h_aliases[i]:
            aliases.append(h.h_aliases[i].decode("latin-1"))
            i += 1
        i = 0
        while h.h_addr_list[i]:
            addrs.append(socket.inet_ntop(h.h_addrtype, h.h_addr_list[i][:h.h_length]))
            i += 1
        return "name %r aliases %r %s %s" % (h.h_name.decode("latin-1"), aliases,
                                             fname.get(h.h_addrtype, h.h_addrtype),
                                             " ".join(addrs))

    def gai(k, fam, flags):
        try:
            r = socket.getaddrinfo(k, None, fam, socket.SOCK_STREAM, 0, flags)
        except socket.gaierror as e:
            return "error %d (%s)" % (e.errno, e.strerror)
        except OSError as e:    # EAI_SYSTEM
            return "EAI_SYSTEM, errno %d (%s)" % (e.errno, e.strerror)
        except UnicodeError as e:
            return "python: %s" % e
        canon = r[0][3] if r else ""
        return "canon %r: %s" % (canon, " ".join(x[4][0] for x in r))

    gais = ((socket.AF_UNSPEC, socket.AI_CANONNAME, "AI_CANONNAME"),
            (socket.AF_INET, socket.AI_CANONNAME, "AI_CANONNAME"),
            (socket.AF_INET6, socket.AI_CANONNAME, "AI_CANONNAME"),
            (socket.AF_UNSPEC, 0, "0"),
            # glibc's gethostbyname2_r path: EAI_NONAME after SERVFAIL then NXDOMAIN
            (socket.AF_INET, 0, "0"),
            (socket.AF_INET6, socket.AI_V4MAPPED, "AI_V4MAPPED"),
            (socket.AF_INET6, socket.AI_V4MAPPED | socket.AI_ALL | socket.AI_CANONNAME,
             "AI_V4MAPPED|AI_ALL|AI_CANONNAME"))
    out = []
    for k in sys.stdin.read().split("\n"):
        if not k:
            continue
        b = k.encode()
        if kind == "names":
            out.append("%s\tgethostbyname\t%s" % (k, hostent(libc.gethostbyname(b))))
            for fam in (socket.AF_INET, socket.AF_INET6):
                out.append("%s\tgethostbyname2(%s)\t%s"
                           % (k, fname[fam], hostent(libc.gethostbyname2(b, fam))))
            for fam, flags, fl in gais:
                out.append("%s\tgetaddrinfo(%s, %s)\t%s" % (k, fname[fam], fl, gai(k, fam, flags)))
        else:
            fam = socket.AF_INET6 if ":" in k else socket.AF_INET
            p = socket.inet_pton(fam, k)
            out.append("%s\tgethostbyaddr(%s)\t%s"
                       % (k, fname[fam], hostent(libc.gethostbyaddr(p, len(p), fam))))
            try:
                r = socket.getnameinfo((k, 0), socket.NI_NAMEREQD)[0]
            except socket.gaierror as e:
                r = "error %d (%s)" % (e.errno, e.strerror)
            out.append("%s\tgetnameinfo(NI_NAMEREQD)\t%s" % (k, r))
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__" and sys.argv[1:2] == ["--probe"]:
    sys.exit(probe(sys.argv[2], sys.argv[3]))

sys.path.insert(0, os.path.join(HERE, "..", "dns"))
sys.path.insert(0, os.path.join(HERE, ".."))
import dnsenv  # noqa: E402
import nclib   # noqa: E402

# ====================================================================== data
# diff.example. (dotted names that only the search list reaches, and the
# halves of two A/AAAA pairs split across test.example and diff.example)
# and broken.example. (SERVFAIL): dnsenv.DIFF_ZONE, dnsenv.search_zones().
EXTRA_ORIGIN = dnsenv.D
EXTRA_ZONE = dnsenv.DIFF_ZONE
ALL_ZONES = list(dnsenv.ZONES) + [EXTRA_ZONE]

# The root, so that names outside the test zones get NXDOMAIN (negative TTL 60).
ROOT_ZONE_TEXT = """\
; dns_diff.py: the root, so that every name has an authoritative answer
$ORIGIN .
.	3600	IN	SOA	ns1.test.example. hostmaster.test.example. 1 3600 600 86400 60
.	3600	IN	NS	ns1.test.example.
"""

HOSTS_FILE = """\
# dns_diff.py: glibc's files module (as /etc/hosts) and namecached read this file
127.0.0.1	localhost
::1	localhost ip6-localhost ip6-loopback
# In the zone too, with other addresses (zone: 192.0.2.80, 2001:db8::80)
192.0.2.200	www.test.example www
# IPv4 only here; the zone has AAAA 2001:db8::36 too
192.0.2.201	ttl3600.test.example ttl3600
# IPv6 only here; the zone has only A 192.0.2.4
2001:db8::202	v4only.test.example
# Only here
192.0.2.203	filesonly.test.example filesonly fo-alias
# A CNAME in the zone (alias1 -> alias2 -> target)
192.0.2.204	alias1.test.example
# An address with a PTR in the zone (ttl10.test.example)
192.0.2.10	reverse-from-file.test.example rff
# IPv6 only here; the zone has 150 A records (TCP)
2001:db8::205	many.test.example
# NXDOMAIN and NODATA in the zone
192.0.2.206	nowhere.test.example
2001:db8::207	nodata.test.example
# A relative name that DNS reaches through the search list (www.sub.diff.example)
192.0.2.208	www.sub
"""

T = "test.example"


def zone_names(zone):
    """Owner names of a zone, relative to its origin, apex excluded."""
    out = []
    for r in zone.all_records():
        if r.name != zone.origin:
            rel = r.name[:-len(zone.origin) - 1]
            if rel not in out:
                out.append(rel)
    return out


def dedup(seq):
    seen, out = set(), []
    for x in seq:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def keys_dns():
    names = []
    for rel in zone_names(dnsenv.TEST_ZONE):
        names += [rel, "%s.%s" % (rel, T)]
    # absolute names, for a few of each kind
    names += ["%s.%s." % (rel, T) for rel in ("www", "alias1", "v6only", "v4only", "nodata",
                                              "dangling", "many", "multi", "mx")]
    names += [
        # letter case
        "WWW", "Alias1", "WWW.TEST.EXAMPLE", "ALIAS1.Test.Example.", "MaNy",
        "V6ONLY.test.example", "HOST.NEG.EXAMPLE",
        # zone apexes: SOA and NS only (NODATA)
        "test.example", "test.example.", "neg.example", "neg.example.", "diff.example",
        # neg.example (another SOA)
        "host.neg.example", "host.neg.example.", "ns1.neg.example", "host", "host.neg",
        # NXDOMAIN
        "nonexistent", "nonexistent.test.example", "nonexistent.test.example.",
        "nowhere.test.example.", "a.b.nonexistent.test.example", "nothere.neg.example",
        "nothere.neg.example.", "sub.www.test.example",
        # the extra zone: dotted names that the search list reaches
        "www.sub", "WWW.Sub", "alias.sub", "v4.sub", "onlyhere", "www.sub.diff.example.",
        "sub", "sub.diff.example",       # an empty non-terminal: NODATA
        # pairs split across test.example and diff.example
        "V6Only", "v6only.diff.example", "v4only.diff.example", "v6only.diff.example.",
        # SERVFAIL as asked (broken.example), then NXDOMAIN from the search list
        "x.broken.example", "X.Broken.Example", "broken.example", "a.b.broken.example",
        "x.broken.example.",            # SERVFAIL alone
        # outside every test zone (root: NXDOMAIN)
        "outside.invalid", "outside.invalid.", "x.y", "localhost", "www.test", "example",
    ]
    return dedup(names)


def keys_ndots2():
    return dedup([
        "www", "alias1", "many", "v6only", "v4only", "nodata", "dangling", "WWW",
        "host", "Host", "host.neg", "neg.example", "srv._tcp", "www.test",
        "www.test.example", "www.test.example.", "alias1.test.example", "host.neg.example",
        "www.sub", "alias.sub", "v4.sub", "onlyhere", "x.y", "x.y.z", "nonexistent",
        "nonexistent.test.example", "a.b.nonexistent", "sub", "sub.diff",
        # SERVFAIL first (2 dots), and last (1 dot: the search list first)
        "x.broken.example", "a.x.broken.example", "broken.example",
    ])


def keys_refused():
    return ["www", "alias1", "v6only", "v4only", "nodata", "ns1", "srv._tcp", "nonexistent",
            "www.sub", "alias.sub", "onlyhere", "www.test.example", "host.neg.example",
            "outside.invalid", "outside.invalid.", "x.y", "localhost",
            # REFUSED or SERVFAIL as asked, then NXDOMAIN (and the split pairs above)
            "a.b.c", "x.broken.example", "broken.example", "v6only.diff.example"]


def keys_files():
    names = []
    for line in HOSTS_FILE.splitlines():
        for n in line.split("#", 1)[0].split()[1:]:
            names += [n, n.upper(), n + "."]
    names += ["www", "ttl3600", "v4only", "alias1", "alias2", "target", "many", "multi",
              "nodata", "nowhere", "dangling", "v6only", "ttl10", "mx", "filesonly",
              "filesonly.test.example", "www.sub", "www.sub.diff.example", "alias.sub",
              "onlyhere", "nonexistent", "host.neg.example", "ip6-localhost",
              "v6only.diff.example", "v4only.diff.example", "x.broken.example", "x.y"]
    return dedup(names)


ADDRS_DNS = [
    "192.0.2.10", "192.0.2.20", "2001:db8::20",
    "2001:DB8::20", "2001:0db8:0000:0000:0000:0000:0000:0020",
    "::ffff:192.0.2.10", "::ffff:192.0.2.20", "::192.0.2.20",
    # no PTR: NXDOMAIN in the reverse zones
    "192.0.2.99", "192.0.2.80", "2001:db8::99", "2001:db8::80", "::ffff:192.0.2.99",
    # outside the reverse zones (root: NXDOMAIN)
    "198.51.100.7", "10.0.0.1", "127.0.0.1", "::1", "2001:db9::1", "fe80::1",
]
ADDRS_REFUSED = ["192.0.2.10", "192.0.2.99", "198.51.100.7", "127.0.0.1", "::1", "2001:db9::1"]
ADDRS_FILES = [
    "192.0.2.200", "192.0.2.201", "2001:db8::202", "192.0.2.203", "192.0.2.204",
    "192.0.2.10", "192.0.2.20", "2001:db8::20", "2001:db8::205", "192.0.2.206",
    "::ffff:192.0.2.10", "::ffff:192.0.2.200", "::ffff:192.0.2.20", "127.0.0.1", "::1",
    "192.0.2.99", "192.0.2.80",
]

PHASES = {
    "dns": dict(search="test.example diff.example", options="ndots:1 " + OPTS, root=True,
                ref="dns", hosts=None, names=keys_dns, addrs=ADDRS_DNS),
    "dns-ndots2": dict(search="test.example neg.example diff.example",
                       options="ndots:2 " + OPTS, root=True, ref="dns", hosts=None,
                       names=keys_ndots2, addrs=["192.0.2.20", "2001:db8::20"]),
    "dns-refused": dict(search="test.example diff.example", options="ndots:1 " + OPTS,
                        root=False, ref="dns", hosts=None, names=keys_refused,
                        addrs=ADDRS_REFUSED),
    "files-dns": dict(search="test.example diff.example", options="ndots:1 " + OPTS,
                      root=True, ref="files dns", hosts=HOSTS_FILE, names=keys_files,
                      addrs=ADDRS_FILES),
}


# ====================================================================== zone data (for reports)
def candidates(key, search, ndots):
    """The names glibc's res_nsearch tries for key, in order."""
    if key.endswith("."):
        return [key]
    dots = key.count(".")
    out = [key + "."] if dots >= ndots else []
    out += ["%s.%s." % (key, d) for d in search]
    if dots < ndots:
        out.append(key + ".")
    return out


def describe_name(name, root):
    n = dnsenv.norm(name)
    if n == dnsenv.BROKEN_ORIGIN or n.endswith("." + dnsenv.BROKEN_ORIGIN):
        return "%s: SERVFAIL (%s does not load)" % (n, dnsenv.BROKEN_ORIGIN)
    z = dnsenv.zone_of(n, ALL_ZONES)
    if z is None:
        return "%s: %s" % (n, "NXDOMAIN (root zone)" if root else "outside every zone: nsd REFUSED")
    parts = []
    for qt in ("A", "AAAA"):
        rs = dnsenv.resolve(n, qt, ALL_ZONES)
        if any(r.rtype == qt for r in rs):
            parts.append("; ".join("%s %d %s %s" % (r.name, r.ttl, r.rtype, r.rdata) for r in rs))
        elif rs:
            parts.append("; ".join("%s %s %s" % (r.name, r.rtype, r.rdata) for r in rs)
                         + " -> NXDOMAIN")
        else:
            exists = any(r.name == n or r.name.endswith("." + n) for r in z.all_records())
            parts.append("%s: %s" % (qt, "NODATA" if exists else "NXDOMAIN"))
    others = sorted({r.rtype for r in z.all_records() if r.name == n} - {"A", "AAAA", "CNAME"})
    extra = " (also %s)" % ",".join(others) if others else ""
    if len(parts[0]) > 300:
        parts[0] = parts[0][:300] + "..."
    return "%s: %s%s" % (n, " | ".join(parts), extra)


def describe_addr(addr, root):
    a = ipaddress.ip_address(addr)
    forms = [a]
    if a.version == 6 and a.ipv4_mapped:
        forms.append(a.ipv4_mapped)
    out = []
    for a in forms:
        rp = a.reverse_pointer + "."
        z = dnsenv.zone_of(rp, ALL_ZONES)
        if z is None:
            out.append("%s: %s" % (rp, "NXDOMAIN (root zone)" if root else
                                   "outside every zone: nsd REFUSED"))
            continue
        rs = dnsenv.rrset(rp, "PTR", ALL_ZONES)
        out.append("%s: %s" % (rp, "; ".join("PTR %s" % r.rdata for r in rs) if rs else "NXDOMAIN"))
    return out


def describe(key, phase):
    cfg = PHASES[phase]
    lines, hosts_lines = [], []
    if is_addr(key):
        lines += describe_addr(key, cfg["root"])
        ka = ipaddress.ip_address(key)
        match = lambda tok: _same_addr(tok, ka)  # noqa: E731
    else:
        ndots = int(cfg["options"].split("ndots:")[1].split()[0])
        for c in candidates(key, cfg["search"].split(), ndots):
            lines.append(describe_name(c, cfg["root"]))
        match = lambda tok: tok.lower() == key.lower().rstrip(".")  # noqa: E731
    if cfg["hosts"]:
        for line in cfg["hosts"].splitlines():
            if any(match(t) for t in line.split("#", 1)[0].split()):
                hosts_lines.append("hosts file: " + line)
    return hosts_lines + ["zone: " + l for l in lines]


def _same_addr(tok, a):
    try:
        b = ipaddress.ip_address(tok)
    except ValueError:
        return False
    m = lambda x: x.ipv4_mapped if x.version == 6 and x.ipv4_mapped else x  # noqa: E731
    return m(a) == m(b)


def is_addr(k):
    try:
        ipaddress.ip_address(k)
        return True
    except ValueError:
        return False


# ====================================================================== daemon
class Daemon:
    def __init__(self, build, tmp, hosts, log_level):
        self.exe = os.path.join(build, "daemon", "namecached")
        self.ctl = os.path.join(build, "cli", "namecachectl")
        self.sock = os.path.join(tmp, "sock")
        self.hosts = hosts
        self.logpath = os.path.join(tmp, "namecached.log")
        self.log_level = log_level
        self.proc = None
        self.conn = None
        self.use_ctl = False
        self.next_id = 1

    def start(self):
        logf = open(self.logpath, "ab")
        self.proc = subprocess.Popen(
            [self.exe, "--config", "/dev/null", "--socket", self.sock,
             "--hosts-file", self.hosts, "--resolv-conf", "/etc/resolv.conf",
             "--nsswitch-conf", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "files-dns.nsswitch.conf"),
             "--log-level", self.log_level],
            stdin=subprocess.DEVNULL, stdout=logf, stderr=logf)
        logf.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise HarnessError("namecached exited at start with %s:\n%s"
                                   % (self.proc.returncode, self.log_tail()))
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.sock)
                return
            except OSError:
                time.sleep(0.01)
            finally:
                s.close()
        raise HarnessError("namecached did not open %s within 10 s" % self.sock)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.conn:
            self.conn.close()
            self.conn = None
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(nclib.hung_sec())
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        rc, self.proc = self.proc.returncode, None
        # A sanitizer's report fails the test at its exit (nclib.check_log).
        nclib.check_log(self.logpath, "namecached")
        return rc

    def log_tail(self, n=30):
        try:
            with open(self.logpath, "rb") as f:
                return "\n".join(f.read().decode("utf-8", "replace").splitlines()[-n:])
        except OSError:
            return ""

    # -- admin over the socket (proto v1), namecachectl as the fallback
    def _call(self, rtype):
        """One request with an empty body; returns the reply body (status OK)."""
        if self.conn is None:
            self.conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.conn.settimeout(10)
            self.conn.connect(self.sock)
        rid, self.next_id = self.next_id, self.next_id + 1
        self.conn.sendall(struct.pack(">IBBHI", 12, 1, rtype, 0, rid))
        hdr = self._recv(12)
        length, version, typ, status, got_id = struct.unpack(">IBBHI", hdr)
        body = self._recv(length - 12)
        if version != 1 or typ != (rtype | 0x80) or got_id != rid or status != 0:
            raise OSError("reply version %d type %#x id %d status %d" % (version, typ, got_id, status))
        return body

    def _recv(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.conn.recv(n - len(buf))
            if not chunk:
                raise OSError("connection closed")
            buf += chunk
        return buf

    def _admin(self, rtype, ctl_args):
        if not self.use_ctl:
            try:
                return "socket", self._call(rtype)
            except (OSError, struct.error) as e:
                if self.conn:
                    self.conn.close()
                    self.conn = None
                log("  (admin request %d over the socket failed: %s; using namecachectl)" % (rtype, e))
                self.use_ctl = True
        p = subprocess.run([self.ctl, "--socket", self.sock] + ctl_args,
                           capture_output=True, timeout=20)
        if p.returncode != 0:
            raise HarnessError("namecachectl %s exited %d: %s%s"
                               % (" ".join(ctl_args), p.returncode,
                                  p.stderr.decode(errors="replace"),
                                  "" if self.alive() else " (namecached died:\n%s)" % self.log_tail()))
        return "ctl", p.stdout

    def flush(self):
        self._admin(6, ["flush-caches"])        # PROTO_FLUSH_CACHES

    def upstream_queries(self):
        how, data = self._admin(3, ["--json", "statistics"])   # PROTO_STATISTICS
        if how == "ctl":
            return json.loads(data).get("upstream_queries")
        (count,), pos, out = struct.unpack_from(">H", data), 2, {}
        for _ in range(count):
            (klen,) = struct.unpack_from(">H", data, pos)
            key = data[pos + 2:pos + 2 + klen].decode()
            kind = data[pos + 2 + klen]
            pos += 3 + klen
            if kind == 0:
                (out[key],) = struct.unpack_from(">Q", data, pos)
                pos += 8
            else:
                (vlen,) = struct.unpack_from(">H", data, pos)
                pos += 2 + vlen
        return out.get("upstream_queries")


# ====================================================================== inner phase
def batch_result(parts):
    """What one getent run over several keys prints: the outputs in order,
    exit 2 if any key failed (getent's rule), else 0."""
    rc = 0 if all(p[0] == 0 for p in parts) else 2
    return (rc, "".join(p[1] for p in parts), "")


class Phase:
    def __init__(self, args):
        self.args = args
        self.name = args.inner
        self.cfg = PHASES[self.name]
        self.tmp = tempfile.mkdtemp(prefix="dns-diff-")
        os.chmod(self.tmp, 0o755)
        hosts = os.path.join(self.tmp, "hosts")
        with open(hosts, "w") as f:
            f.write(self.cfg["hosts"] or "# dns_diff.py: empty, so that namecache is DNS alone\n")
        self.hosts = hosts
        self.daemon = Daemon(args.build, self.tmp, hosts, args.daemon_log_level)
        base = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}
        self.ref_env = dict(base)
        self.nc_env = nclib.nss_env(args.build, self.daemon.sock, base=base)
        self.ref = self.cfg["ref"]
        self.runs = 0
        self.diffs = []
        self.xfails = []
        self.cache_notes = []
        self.ref_notes = []
        self.slow_notes = []
        self.comparisons = 0
        self.nkeys = 0
        self.laps = []
        self.t_lap = time.monotonic()

    # -- running lookups
    def getent(self, service, db, keys):
        env = self.nc_env if service == "namecache" else self.ref_env
        self.runs += 1
        t0 = time.monotonic()
        try:
            p = subprocess.run(["getent", "-s", service, "--", db] + list(keys), env=env,
                               capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return ("timeout", "", "")
        finally:
            took = time.monotonic() - t0
            if took > SLOW and len(keys) <= 2:
                self.slow_notes.append("getent -s %r %s %s took %.1f s"
                                       % (service, db, " ".join(keys), took))
        return (p.returncode, p.stdout.decode("utf-8", "backslashreplace"),
                p.stderr.decode("utf-8", "backslashreplace"))

    def run_probe(self, service, kind, keys):
        env = self.nc_env if service == "namecache" else self.ref_env
        self.runs += 1
        try:
            p = subprocess.run([sys.executable, "-S", os.path.abspath(__file__), "--probe",
                                service, kind], input="\n".join(keys).encode(), env=env,
                               capture_output=True, timeout=180)
        except subprocess.TimeoutExpired:
            raise HarnessError("probe %s %s timed out" % (service, kind))
        if p.returncode != 0:
            raise HarnessError("probe %s %s exited %d: %s" % (
                service, kind, p.returncode, p.stderr.decode(errors="replace")[-2000:]))
        out = []
        for line in p.stdout.decode("utf-8", "backslashreplace").splitlines():
            k, call, res = line.split("\t", 2)
            out.append(((k, call), res))
        return out

    # -- comparing
    def record(self, how, db, key, ref, got):
        d = dict(phase=self.name, how=how, db=db, key=key, ref=ref, got=got)
        why = XFAIL.get((self.name, db, key)) or structural_xfail(self.name, db, key)
        if not why and self.args.ignore_case and ref[0] == got[0] \
                and ref[1].lower() == got[1].lower():
            why = "differs only in the letter case of names (--ignore-case)"
        if why:
            d["xfail"] = why
            self.xfails.append(d)
        else:
            self.diffs.append(d)

    def compare(self, how, db, key, ref, got):
        self.comparisons += 1
        if ref[:2] != got[:2]:
            self.record(how, db, key, ref, got)
            return False
        return True

    def check_alive(self, what):
        if not self.daemon.alive():
            raise HarnessError("namecached died (%s):\n%s" % (what, self.daemon.log_tail()))

    def main(self):
        # The network rule, checked again here: nothing but loopback.
        if os.environ.get("DNSENV_NETNS") != "1" or [n for _, n in socket.if_nameindex()] != ["lo"]:
            raise HarnessError("the inner phase runs only inside tests/dns/in-netns.sh")
        if self.cfg["hosts"]:
            subprocess.run(["mount", "--bind", self.hosts, "/etc/hosts"], check=True)
        try:
            self.daemon.start()
            self.compare_all()
        finally:
            rc = self.daemon.stop()
            if rc not in (None, 0, -signal.SIGTERM):
                self.diffs.append(dict(phase=self.name, how="exit", db="-", key="namecached",
                                       ref=(0, "", ""),
                                       got=("exit %s on SIGTERM" % rc, self.daemon.log_tail(), "")))
            if self.cfg["hosts"]:
                subprocess.run(["umount", "/etc/hosts"], stderr=subprocess.DEVNULL)

    def compare_all(self):
        names = self.cfg["names"]()
        addrs = self.cfg["addrs"]
        keys = [(db, n) for n in names for db in NAME_DBS] + [("hosts", a) for a in addrs]
        self.nkeys = len(keys)
        batches = [(db, names) for db in NAME_DBS] + [("hosts", addrs)]

        # glibc: stateless, so in parallel.
        with ThreadPoolExecutor(self.args.jobs) as pool:
            fref = {k: pool.submit(self.getent, self.ref, k[0], [k[1]]) for k in keys}
            fbatch = [pool.submit(self.getent, self.ref, db, ks) for db, ks in batches]
            fprobe = {kind: pool.submit(self.run_probe, self.ref, kind, ks)
                      for kind, ks in (("names", names), ("addrs", addrs))}
            refs = {k: f.result() for k, f in fref.items()}
            ref_batches = [f.result() for f in fbatch]
            ref_probe = {k: f.result() for k, f in fprobe.items()}
        for (db, ks), rb in zip(batches, ref_batches):
            if rb[:2] != batch_result([refs[(db, k)] for k in ks])[:2]:
                raise HarnessError("glibc's getent -s %r %s over %d keys is not the sum of its "
                                   "single runs: the DNS data is not stable?" % (self.ref, db, len(ks)))

        self.lap("glibc")

        # namecache, per key from an empty cache: miss then hit in one
        # process, then a hit in another, which must not go upstream.
        for db, key in keys:
            self.daemon.flush()
            ref = refs[(db, key)]
            got = self.getent("namecache", db, [key, key])
            q1 = self.daemon.upstream_queries()
            hit2 = self.getent("namecache", db, [key])
            q2 = self.daemon.upstream_queries()
            self.comparisons += 3
            if q2 != q1:
                self.cache_notes.append("getent %s %s: a lookup just made (cached) sent %d "
                                        "queries upstream again" % (db, key, q2 - q1))
            if ref[:2] != hit2[:2]:
                self.record("hit (new process)", db, key, ref, hit2)
            if got[:2] != (ref[0], ref[1] + ref[1]):
                # Tell the two apart: again, in two processes.
                self.daemon.flush()
                miss = self.getent("namecache", db, [key])
                hit = self.getent("namecache", db, [key])
                if ref[:2] != miss[:2]:
                    self.record("miss", db, key, ref, miss)
                if ref[:2] != hit[:2]:
                    self.record("hit", db, key, ref, hit)
                if ref[:2] == miss[:2] == hit[:2]:
                    self.record("miss+hit in one process", db, key,
                                (ref[0], ref[1] + ref[1], ""), got)
            self.check_alive("getent %s %s" % (db, key))
        self.lap("miss+hit")

        # namecache, the whole phase through one cache, twice.
        self.daemon.flush()
        for how in ("warm-1", "warm-2"):
            split = []
            for (db, ks), rb in zip(batches, ref_batches):
                got = self.getent("namecache", db, ks)
                if got[:2] == rb[:2]:
                    self.comparisons += len(ks)
                else:
                    split += [(db, k) for k in ks]
            if split:               # per key; the cache is warm, so in parallel
                with ThreadPoolExecutor(self.args.jobs) as pool:
                    got = list(pool.map(lambda k: self.getent("namecache", k[0], [k[1]]), split))
                for (db, k), g in zip(split, got):
                    self.compare(how, db, k, refs[(db, k)], g)
            self.check_alive(how)
        self.lap("warm")

        # The probe: after a flush, twice.
        self.daemon.flush()
        for how in ("probe-1", "probe-2"):
            for kind, ks in (("names", names), ("addrs", addrs)):
                got = self.run_probe("namecache", kind, ks)
                ref = ref_probe[kind]
                if [g[0] for g in got] != [r[0] for r in ref]:
                    raise HarnessError("probe outputs out of step (%s)" % kind)
                for ((k, call), rres), (_, gres) in zip(ref, got):
                    self.compare(how, call, k, (0, rres, ""), (0, gres, ""))
        self.check_alive("probe")
        self.lap("probe")
        if self.diffs:
            self.confirm()
            self.lap("confirm")

    def lap(self, what):
        now = time.monotonic()
        self.laps.append("%s %.1f s" % (what, now - self.t_lap))
        self.t_lap = now

    def confirm(self):
        """Asks glibc again (twice) for every key that differs: a reference that
        was a fluke (a timeout under load) must not fail the test."""
        fresh = {}
        keep, flukes = [], []
        by_key = {}
        for d in self.diffs:
            by_key.setdefault((d["db"], d["key"]), []).append(d)
        probe_keys = {"names": set(), "addrs": set()}
        for db, key in by_key:
            if db[0:3] == "get":
                probe_keys["addrs" if is_addr(key) else "names"].add(key)
        for kind, ks in probe_keys.items():
            if ks:
                ks = sorted(ks)
                a = dict(self.run_probe(self.ref, kind, ks))
                b = dict(self.run_probe(self.ref, kind, ks))
                for kc in a:
                    fresh[(kc[1], kc[0])] = (0, a[kc], "") if a[kc] == b.get(kc) else None
        for db, key in by_key:
            if db[0:3] != "get" and db != "-":
                a = self.getent(self.ref, db, [key])
                b = self.getent(self.ref, db, [key])
                fresh[(db, key)] = a if a[:2] == b[:2] else None
        for (db, key), ds in by_key.items():
            if (db, key) not in fresh:
                keep += ds
                continue
            r = fresh[(db, key)]
            if r is None:
                self.ref_notes.append("glibc's answer for %s %s is not stable: kept as a difference"
                                        % (db, key))
                keep += ds
                continue
            for d in ds:
                ref = d["ref"]
                if d["how"] == "miss+hit in one process":
                    r2 = (r[0], r[1] + r[1], "")
                else:
                    r2 = r
                if r2[:2] == ref[:2]:
                    keep.append(d)
                elif r2[:2] == d["got"][:2]:
                    flukes.append(d)
                else:
                    d["ref"] = r2
                    keep.append(d)
        for d in flukes:
            self.ref_notes.append("glibc's first answer for %s %s (%s) was a fluke: asked again, "
                                    "it equals namecache's" % (d["db"], d["key"], d["how"]))
        self.diffs = keep

    # -- report
    def report(self):
        """The differences, grouped by (db, key) over the ways of asking."""
        groups = {}
        for d in self.diffs + self.xfails:
            groups.setdefault((d["db"], d["key"], d.get("xfail")), []).append(d)
        out = []
        ref_name = "'files dns'" if self.ref == "files dns" else self.ref
        for (db, key, xfail), ds in groups.items():
            first = ds[0]
            if db == "-":
                cmd = key
            elif db[0:3] == "get":
                cmd = "probe %s %r, under -s %s" % (db, key, ref_name)
            else:
                cmd = "getent -s %s %s %s" % (ref_name, db, key)
            out.append("")
            out.append("--- [%s] %s%s" % (self.name, cmd, "  (XFAIL: %s)" % xfail if xfail else ""))
            out.append("    differs in: %s" % ", ".join(d["how"] for d in ds))
            out.append("    glibc %s: %s" % (self.ref, fmt(first["ref"])))
            seen = set()
            for d in ds:
                g = fmt(d["got"], d["ref"])
                if g in seen:
                    continue
                seen.add(g)
                same = [e["how"] for e in ds if fmt(e["got"], e["ref"]) == g]
                out.append("    namecache (%s): %s" % (", ".join(same), g))
            if db != "-":
                out += ["    " + l for l in describe(key, self.name)]
        return out


def fmt(res, ref=None):
    rc, out, err = res
    lines = out.splitlines(True)
    s = "exit %s" % (rc,)
    if len(lines) <= 8:
        s += ", %r" % out
    else:
        s += ", %d lines: %r ... %r" % (len(lines), "".join(lines[:3]), "".join(lines[-1:]))
        if ref is not None:
            rl = ref[1].splitlines(True)
            for i, (a, b) in enumerate(zip(lines, rl)):
                if a != b:
                    s += "; first difference at line %d: %r, glibc %r" % (i + 1, a, b)
                    break
    if err.strip():
        s += ", stderr %r" % err.strip()[:300]
    return s


def inner(args):
    ph = Phase(args)
    rc = 0
    t0 = time.monotonic()
    try:
        ph.main()
    except HarnessError as e:
        log("ERROR: harness [%s]: %s" % (ph.name, e))
        log("namecached log tail:\n%s" % ph.daemon.log_tail())
        rc = HARNESS
    finally:
        if not args.keep:
            shutil.rmtree(ph.tmp, ignore_errors=True)
        else:
            log("kept %s" % ph.tmp)
    lines = ph.report()
    for line in lines:
        log(line)
    for n in ph.cache_notes:
        log("  cache note [%s]: %s" % (ph.name, n))
    for n in ph.ref_notes:
        log("  reference note [%s]: %s" % (ph.name, n))
    for n in ph.slow_notes:
        log("  slow note [%s]: %s" % (ph.name, n))
    res = dict(phase=ph.name, comparisons=ph.comparisons, diffs=len(ph.diffs),
               xfails=len(ph.xfails), cache_notes=len(ph.cache_notes), runs=ph.runs,
               keys=ph.nkeys, rc=rc, laps=ph.laps, seconds=time.monotonic() - t0,
               diff_keys=sorted({"%s %s" % (d["db"], d["key"]) for d in ph.diffs}),
               report=lines, notes=["cache note: " + n for n in ph.cache_notes]
               + ["reference note: " + n for n in ph.ref_notes]
               + ["slow note: " + n for n in ph.slow_notes])
    with open(args.result, "w") as f:
        json.dump(res, f)
    if rc:
        return rc
    if ph.diffs or (args.strict_cache and ph.cache_notes):
        return 1
    return 0


# ====================================================================== outer driver
def outer(args):
    if os.geteuid() != 0:
        log("SKIP: needs root (a private network and mount namespace, nsd on port 53)")
        return SKIP
    if not os.access(dnsenv.NSD, os.X_OK) or shutil.which("getent") is None:
        log("SKIP: nsd or getent missing")
        return SKIP
    for exe in (os.path.join(args.build, "daemon", "namecached"),
                os.path.join(args.build, "nss-shim", "libnss_namecache.so.2"),
                os.path.join(args.build, "cli", "namecachectl")):
        if not os.path.exists(exe):
            log("ERROR: %s is missing: build first (ninja -C %s)" % (exe, args.build))
            return HARNESS
    out_dir = args.out or os.path.join(args.build, "meson-logs", "differential-dns")
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="dns-diff-outer-")
    os.chmod(tmp, 0o755)
    zones = dnsenv.search_zones(tmp)
    path = os.path.join(tmp, "root.zone")
    with open(path, "w") as f:
        f.write(ROOT_ZONE_TEXT)
    os.chmod(path, 0o644)
    zones.append((".", path))
    names = args.phase or list(PHASES)

    def run_phase(name):
        cfg = PHASES[name]
        result = os.path.join(tmp, "%s.json" % name)
        cmd = [sys.executable, os.path.abspath(__file__), "--build", args.build,
               "--inner", name, "--result", result, "--jobs", str(args.jobs),
               "--daemon-log-level", args.daemon_log_level]
        for flag in ("keep", "strict_cache", "ignore_case"):
            if getattr(args, flag):
                cmd.append("--" + flag.replace("_", "-"))
        tp = time.monotonic()
        # Response rate limiting off: Debian's nsd limits to 200 a second,
        # and the probe's burst of REFUSED answers (dns-refused) could lose
        # one to it: a timeout where glibc saw REFUSED.
        p = dnsenv.run_in_netns(cmd, search=cfg["search"], options=cfg["options"],
                                zones=zones if cfg["root"] else zones[:-1], timeout=500,
                                rrl=False, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            with open(result) as f:
                r = json.load(f)
        except (OSError, ValueError):
            r = None
        return p, r, time.monotonic() - tp

    results, worst = [], 0
    try:
        # Each phase has its own namespace, nsd and daemon: they run side by side.
        with ThreadPoolExecutor(max(1, args.parallel)) as pool:
            futures = [(n, pool.submit(run_phase, n)) for n in names]
            for name, fut in futures:
                cfg = PHASES[name]
                log("differential-dns: phase %s: search %r, options %r, %s, reference %r%s"
                    % (name, cfg["search"], cfg["options"],
                       "root zone served" if cfg["root"] else "no root zone (REFUSED outside)",
                       cfg["ref"], ", hosts file over /etc/hosts" if cfg["hosts"] else ""))
                p, r, secs = fut.result()
                sys.stdout.write(p.stdout.decode("utf-8", "backslashreplace"))
                if p.returncode == SKIP:
                    log("SKIP: in-netns.sh cannot run here")
                    return SKIP
                if r is None:
                    log("ERROR: phase %s left no result (exit %d)" % (name, p.returncode))
                    worst = HARNESS
                    continue
                results.append(r)
                log("  phase %s: %d keys, %d comparisons, %d differences (%d distinct keys), "
                    "%d xfail, %d notes, %.1f s (%s)"
                    % (name, r["keys"], r["comparisons"], r["diffs"], len(r["diff_keys"]),
                       r["xfails"], len(r["notes"]), secs, ", ".join(r["laps"])))
                if p.returncode == HARNESS or r["rc"] == HARNESS:
                    worst = HARNESS
                elif p.returncode != 0 and worst == 0:
                    worst = 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report = os.path.join(out_dir, "report.txt")
    with open(report, "w") as f:
        for r in results:
            f.write("phase %s: %d comparisons, %d differences, %d xfail\n"
                    % (r["phase"], r["comparisons"], r["diffs"], r["xfails"]))
            f.write("\n".join(r["report"]) + "\n")
            for n in r["notes"]:
                f.write(n + "\n")
            f.write("\n")
    total = sum(r["comparisons"] for r in results)
    ndiff = sum(r["diffs"] for r in results)
    nkeys = sum(len(r["diff_keys"]) for r in results)
    log("")
    log("differential-dns: %d phases, %d comparisons (%d getent/probe runs), %.1f s; report in %s"
        % (len(results), total, sum(r["runs"] for r in results), time.monotonic() - t0, report))
    if worst == HARNESS:
        log("differential-dns: ERROR: the harness failed")
        return HARNESS
    if ndiff or worst:
        log("differential-dns: FAIL: %d differences in %d (database, key) pairs" % (ndiff, nkeys))
        return 1
    log("differential-dns: OK, namecache equals glibc's dns (and files dns)")
    return 0


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--phase", action="append", choices=list(PHASES),
                    help="run only this phase (repeatable)")
    ap.add_argument("--jobs", type=int, default=4, help="parallel glibc lookups")
    ap.add_argument("--parallel", type=int, default=2, help="phases run at once (default 2)")
    ap.add_argument("--out", help="report folder (default BUILD/meson-logs/differential-dns)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folders")
    ap.add_argument("--strict-cache", action="store_true",
                    help="a lookup the cache should answer that still queries upstream fails")
    ap.add_argument("--ignore-case", action="store_true",
                    help="differences only in the letter case of names are expected failures")
    ap.add_argument("--daemon-log-level", default="warning")
    ap.add_argument("--inner", choices=list(PHASES), help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    return args


def main():
    args = parse_args()
    if args.inner:
        return inner(args)
    return outer(args)


if __name__ == "__main__":
    sys.exit(main())
