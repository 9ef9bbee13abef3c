#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Differential test of the DNS listener (issue 20): its answers against glibc and unbound.

The claim: for each name and type asked of namecached's DNS listener,

  dns_sources = line, A and AAAA    the addresses of that family that glibc's
        getaddrinfo(name, AF_UNSPEC) gives for the same hosts line ("files
        dns", the same hosts file, the same nsd), as records: a CNAME from
        the name to the canonical name when the two differ, then the
        addresses.  A name whose addresses are all of the other family is
        NOERROR with no answer (NODATA); EAI_NONAME is NXDOMAIN, EAI_NODATA
        NOERROR, EAI_AGAIN SERVFAIL.
  dns_sources = line, PTR of an address name
        gethostbyaddr's h_name as the one PTR record; HOST_NOT_FOUND is
        NXDOMAIN, NO_DATA NOERROR, TRY_AGAIN SERVFAIL.
  those negatives (the line's NXDOMAIN or NODATA)
        upstream's own answer for the question (asked of unbound here)
        when it is the same kind of negative: its answer section (a CNAME
        chain) and its SOA in authority (RFC 2308); otherwise no records
        and no SOA (dnslisten.c, "A negative answer then asks ... upstream's
        own for its SOA").
  every other type, and everything with dns_sources = dns
        what a real forwarding resolver gives: unbound from Debian, one
        thread, module-config "iterator" (no validation), forwarding "." to
        the same nsd.

Compared, for every reply: the rcode; the answer section as a set of RRsets
(owner names case-insensitive, TTLs aside); the authority SOA (owner and
rdata) of a negative answer, and no SOA in a positive one; the flags that
matter: QR and RA set, RD echoed, AA and AD never set, the id and the
question echoed byte for byte (the hit is asked in 0x20 mixed case), an
OPT record in the reply when and only when the query had one.  TC: a UDP
reply must have TC set exactly when the reference's does (unbound over UDP
with the same EDNS0 size, or none; for glibc's answers, when the expected
reply packs to more than the client's 1232 or 512 bytes), and its records
are then not compared (its TCP twin's are).  TTLs,
sanity only: no higher than the zone's TTL for a record of the test zones,
an authority SOA no higher than its MINIMUM, none above max_ttl (86400),
and a hit's no higher than its miss's.

Every question is asked four times, each a comparison: after a cache flush
over UDP with EDNS0 (1232 bytes: a miss) and again without (512 bytes: a
hit), then after another flush over TCP without EDNS0 (a miss) and again
with it and RD clear (a hit; RD is seen echoed both ways).  Hits are asked
in 0x20 mixed case.  A hit that still sent
queries upstream (the daemon's upstream_queries counter) is reported as a
cache note, not a difference.

Where it runs: every phase is inside tests/dns/in-netns.sh (a private
network namespace with nothing but lo, a private mount namespace): nsd
serves the test zones (dnsenv.ZONES, DIFF_ZONE, broken.example. and a root
zone, so names outside them are NXDOMAIN) on 127.0.0.1:53; /etc/resolv.conf
is a private bind mount of "nameserver 127.0.0.1 / search . / options
ndots:1" ("search ." makes glibc's dns module ask every name as absolute,
as the listener does), and HOSTS_FILE is bind-mounted over /etc/hosts for
glibc's files module.  Two namecached (dns_sources = line and = dns) read
the same hosts file, with "hosts: files dns" and --upstream 127.0.0.1:53;
unbound listens on a free loopback port.  No packet leaves loopback; the
real /etc is never written.

Output: counts of questions, comparisons and differences, per category and
per outcome; each difference with the query, the reference and the reply.
A difference is confirmed by asking the reference again: an answer of
glibc or unbound that changed (a timeout under load) is dropped with a
note.

Exit status: 0 all equal, 1 differences, 77 cannot run here (not root, no
namespaces, nsd or unbound missing), 99 the harness itself failed.

    diff.py --build BUILD [--keep] [--only line|dns] [-v]
"""

import argparse
import json
import os
import socket
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP, HARNESS = 77, 99
UNBOUND = "/usr/sbin/unbound"


# ====================================================================== probe
# glibc's answers, in a child process (python3 -S, no dnslib): a JSON list of
# [kind, key] on stdin ("name": getaddrinfo(key, AF_UNSPEC, AI_CANONNAME);
# "addr": gethostbyaddr), a JSON list of results out, with the hosts
# database configured to "files dns" whatever nsswitch.conf says.

def probe():
    import ctypes

    class Hostent(ctypes.Structure):
        _fields_ = [("h_name", ctypes.c_char_p),
                    ("h_aliases", ctypes.POINTER(ctypes.c_char_p)),
                    ("h_addrtype", ctypes.c_int), ("h_length", ctypes.c_int),
                    ("h_addr_list", ctypes.POINTER(ctypes.POINTER(ctypes.c_char)))]

    libc = ctypes.CDLL("libc.so.6")
    if libc.__nss_configure_lookup(b"hosts", b"files dns") != 0:
        print("__nss_configure_lookup failed", file=sys.stderr)
        return HARNESS
    libc.gethostbyaddr.restype = ctypes.POINTER(Hostent)
    libc.gethostbyaddr.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_int]
    libc.__h_errno_location.restype = ctypes.POINTER(ctypes.c_int)
    out = []
    for kind, key in json.load(sys.stdin):
        if kind == "name":
            try:
                r = socket.getaddrinfo(key, None, socket.AF_UNSPEC, socket.SOCK_STREAM, 0,
                                       socket.AI_CANONNAME)
                out.append({"ok": True, "canon": r[0][3],
                            "addrs": [x[4][0] for x in r]})
            except socket.gaierror as e:
                out.append({"ok": False, "error": e.errno})
        else:
            fam = socket.AF_INET6 if ":" in key else socket.AF_INET
            p = socket.inet_pton(fam, key)
            hp = libc.gethostbyaddr(p, len(p), fam)
            if not hp:
                out.append({"ok": False, "h_errno": libc.__h_errno_location()[0]})
            else:
                out.append({"ok": True, "name": hp.contents.h_name.decode("latin-1")})
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__" and sys.argv[1:2] == ["--probe"]:
    sys.exit(probe())

import ipaddress  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import struct  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "dns"))
sys.path.insert(0, os.path.join(HERE, ".."))
import dnsenv  # noqa: E402
import nclib  # noqa: E402
from dnslib import DNSRecord, QTYPE, RCODE, RR  # noqa: E402


def log(*a):
    print(*a, flush=True)


class HarnessError(Exception):
    pass


# ====================================================================== data
HOSTS_FILE = """\
# tests/dnslisten/diff.py: glibc's files module (as /etc/hosts) and namecached read this file
127.0.0.1	localhost
::1	localhost ip6-localhost ip6-loopback
# In the zone too, with other addresses (zone: 192.0.2.80, 2001:db8::80)
192.0.2.200	www.test.example www
# IPv4 only here; the zone has AAAA 2001:db8::36 too
192.0.2.201	ttl3600.test.example ttl3600
# IPv6 only here; the zone has only A 192.0.2.4
2001:db8::202	v4only.test.example
# Only here, with aliases
192.0.2.203	filesonly.test.example filesonly fo-alias
# A CNAME in the zone (alias1 -> alias2 -> target)
192.0.2.204	alias1.test.example
# An address with a PTR in the zone (ttl10.test.example)
192.0.2.10	reverse-from-file.test.example rff
# IPv6 only here; the zone has 150 A records
2001:db8::205	many.test.example
# NXDOMAIN and NODATA in the zone
192.0.2.206	nowhere.test.example
2001:db8::207	nodata.test.example
# A relative name (DNS: NXDOMAIN at the root)
192.0.2.208	www.sub
# One name on three lines, both families
192.0.2.210	dup.test.example
2001:db8::210	dup.test.example
192.0.2.211	dup.test.example dup-alias
"""

ROOT_ZONE_TEXT = """\
; tests/dnslisten/diff.py: the root, so that every name has an authoritative answer
$ORIGIN .
.	3600	IN	SOA	ns1.test.example. hostmaster.test.example. 1 3600 600 86400 60
.	3600	IN	NS	ns1.test.example.
"""

T = "test.example"
ALL_ZONES = list(dnsenv.ZONES) + [dnsenv.DIFF_ZONE]


def hosts_names():
    out = []
    for line in HOSTS_FILE.splitlines():
        for n in line.split("#", 1)[0].split()[1:]:
            if n not in out:
                out.append(n)
    return out


def zone_names():
    out = []
    for z in ALL_ZONES:
        if z in (dnsenv.REV4_ZONE, dnsenv.REV6_ZONE):
            continue
        for r in z.all_records():
            n = r.name.rstrip(".")
            if n not in out:
                out.append(n)
    return out


# Names asked as A and AAAA (both modes), spelled without the final dot.
ADDR_NAMES = hosts_names() + [n for n in zone_names() if n not in hosts_names()] + [
    "_tcp.test.example",            # an empty non-terminal: NODATA
    "nonexistent.test.example", "nothere.neg.example", "onlyhere",
    "outside.invalid", "x.y", "x.broken.example",   # SERVFAIL
]

# Addresses asked as PTR (both modes).
PTR_ADDRS = [
    "192.0.2.200", "192.0.2.201", "2001:db8::202", "192.0.2.203", "192.0.2.204",
    "192.0.2.10", "192.0.2.20", "2001:db8::20", "2001:db8::205", "192.0.2.206",
    "192.0.2.210", "2001:db8::210", "127.0.0.1", "::1",
    "::ffff:192.0.2.10", "::ffff:192.0.2.20", "::192.0.2.20",
    # no PTR anywhere: NXDOMAIN in the reverse zones, or at the root
    "192.0.2.99", "2001:db8::99", "198.51.100.7", "10.0.0.1", "2001:db9::1",
]

# Every other type, asked of both modes: (name, type).
OTHER = [
    ("mx.test.example", "MX"), ("txt.test.example", "TXT"),
    ("srv._tcp.test.example", "SRV"), ("caa.test.example", "CAA"),
    ("test.example", "NS"), ("test.example", "SOA"), ("neg.example", "SOA"),
    ("neg.example", "NS"), ("diff.example", "SOA"), ("nodata.test.example", "TXT"),
    # CNAME-chained
    ("alias1.test.example", "CNAME"), ("alias2.test.example", "CNAME"),
    ("alias1.test.example", "MX"), ("alias1.test.example", "TXT"),
    ("alias.sub.diff.example", "TXT"), ("alias.sub.diff.example", "MX"),
    ("dangling.test.example", "CNAME"), ("dangling.test.example", "MX"),
    ("dangling.test.example", "TXT"),
    # NODATA
    ("nodata.test.example", "MX"), ("www.test.example", "HTTPS"),
    ("www.test.example", "SVCB"), ("www.test.example", "CNAME"),
    ("host.neg.example", "TXT"), ("_tcp.test.example", "SRV"),
    ("srv._tcp.test.example", "TXT"), ("test.example", "MX"),
    ("many.test.example", "TXT"), ("www.sub.diff.example", "MX"),
    ("10.2.0.192.in-addr.arpa", "TXT"),
    # NXDOMAIN
    ("nonexistent.test.example", "MX"), ("nonexistent.test.example", "TXT"),
    ("nothere.neg.example", "CAA"), ("filesonly.test.example", "MX"),
    ("outside.invalid", "TXT"), ("x.y", "SRV"),
    # PTR of names that are no address: the cache and upstream in either mode
    ("2.0.192.in-addr.arpa", "PTR"), ("2.0.192.in-addr.arpa", "SOA"),
    ("20.2.0.192.in-addr.arpa.x", "PTR"),
    # SERVFAIL (broken.example. does not load in nsd)
    ("x.broken.example", "MX"),
]

# unbound's built-in local zones that would shadow names the test asks
# (RFC 6761, 6303 and AS112 zones): off, so that unbound forwards them too.
UNBOUND_NODEFAULT = [
    "localhost.", "127.in-addr.arpa.", "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
    "0.0.0.0.0.0.0.0.ip6.arpa.", "invalid.", "test.", "onion.", "home.arpa.",
    "10.in-addr.arpa.", "2.0.192.in-addr.arpa.", "100.51.198.in-addr.arpa.",
    "113.0.203.in-addr.arpa.", "8.b.d.0.1.0.0.2.ip6.arpa.",
]

UDP_SIZE = 1232
# How each of a question's four queries is asked: (EDNS0 size or None, RD).
ASKED = {("udp", "miss"): (UDP_SIZE, True), ("udp", "hit"): (None, True),
         ("tcp", "miss"): (None, True), ("tcp", "hit"): (UDP_SIZE, False)}
MAX_TTL = 86400
REPLY_TIMEOUT = 15      # seconds: a liveness bound, never a timing


def ptr_name(addr):
    return ipaddress.ip_address(addr).reverse_pointer


def mixed(name):
    """The 0x20 spelling of the hit: every other letter upper case."""
    out, i = [], 0
    for c in name:
        if c.isalpha():
            c = c.upper() if i % 2 else c.lower()
            i += 1
        out.append(c)
    return "".join(out)


def zone_ttls():
    """{(owner, type, rdata text): TTL} of every record of the test zones."""
    out = {}
    for z in ALL_ZONES:
        for r in z.all_records():
            k = dnsenv.rec_key(r)
            out[(k[0], k[2], k[3])] = k[1]
    return out


ZONE_TTLS = zone_ttls()


# ====================================================================== answers
class Answer:
    """What is compared of one reply (or expected of it)."""

    def __init__(self, rcode, records=(), soa=(), tc=False):
        self.rcode = rcode
        self.records = frozenset(records)     # (owner, type, rdata text)
        self.soa = frozenset(soa)             # (owner, rdata text) in authority
        self.tc = tc

    @classmethod
    def of(cls, rec):
        return cls(rec.header.rcode,
                   [(dnsenv.norm(rr.rname), dnsenv.qtype_name(rr.rtype), dnsenv.rdata_text(rr))
                    for rr in rec.rr],
                   [(dnsenv.norm(rr.rname), dnsenv.rdata_text(rr))
                    for rr in rec.auth if rr.rtype == QTYPE.SOA],
                   bool(rec.header.tc))

    def key(self):
        return (self.rcode, self.records, self.soa)

    def has_type(self, qtype):
        return any(t == qtype for _, t, _ in self.records)

    def __str__(self):
        s = RCODE.get(self.rcode, str(self.rcode))
        if self.tc:
            s += " TC"
        recs = sorted(self.records)
        if len(recs) > 6:
            s += " [%d records: %s ...]" % (len(recs), "; ".join(" ".join(r) for r in recs[:4]))
        elif recs:
            s += " [%s]" % "; ".join(" ".join(r) for r in recs)
        else:
            s += " []"
        if self.soa:
            s += " authority SOA %s" % "; ".join(" ".join(x) for x in sorted(self.soa))
        return s


# ====================================================================== clients
def ask(port, qname, qtype, tcp, rid, edns=None, rd=True):
    """One query to 127.0.0.1:port, with an OPT of edns bytes (None: no
    OPT): (query bytes, reply bytes)."""
    q = dnsenv.make_query(qname + ".", qtype, payload=edns, rd=rd)
    q.header.id = rid
    data = q.pack()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM if tcp else socket.SOCK_DGRAM) as s:
        s.settimeout(REPLY_TIMEOUT)
        s.connect(("127.0.0.1", port))
        if tcp:
            s.sendall(struct.pack("!H", len(data)) + data)
            n = struct.unpack("!H", dnsenv._recv_exact(s, 2))[0]
            return data, dnsenv._recv_exact(s, n)
        s.send(data)
        while True:
            reply = s.recv(65535)
            if len(reply) >= 2 and reply[:2] == data[:2]:
                return data, reply


class Unbound:
    """Debian's unbound in the foreground, forwarding "." to nsd on 127.0.0.1:53."""

    def __init__(self, folder, port):
        self.dir = folder
        self.port = port
        os.makedirs(folder, exist_ok=True)
        self.conf = os.path.join(folder, "unbound.conf")
        self.log_path = os.path.join(folder, "unbound.log")
        lines = [
            "server:",
            "    interface: 127.0.0.1@%d" % port,
            "    do-ip6: no",
            "    do-daemonize: no",
            "    num-threads: 1",
            "    username: \"\"",
            "    chroot: \"\"",
            "    directory: \"%s\"" % folder,
            "    pidfile: \"\"",
            "    logfile: \"\"",
            "    use-syslog: no",
            "    verbosity: 1",
            "    access-control: 127.0.0.0/8 allow",
            "    do-not-query-localhost: no",
            "    module-config: \"iterator\"",
            "    qname-minimisation: no",
            "    minimal-responses: yes",
            "    prefetch: no",
            "    serve-expired: no",
            "    edns-buffer-size: %d" % UDP_SIZE,
        ] + ["    local-zone: \"%s\" nodefault" % z for z in UNBOUND_NODEFAULT] + [
            "remote-control:",
            "    control-enable: no",
            "forward-zone:",
            "    name: \".\"",
            "    forward-addr: 127.0.0.1@53",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.logf = open(self.log_path, "ab")
        self.proc = subprocess.Popen([UNBOUND, "-d", "-c", self.conf], stdin=subprocess.DEVNULL,
                                     stdout=self.logf, stderr=self.logf)
        deadline = time.monotonic() + nclib.HUNG_SEC
        while True:
            if self.proc.poll() is not None:
                raise HarnessError("unbound exited %s:\n%s" % (self.proc.returncode, self.log()))
            try:
                dnsenv.query(port, "test.example.", "SOA", timeout=0.5)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise HarnessError("unbound does not answer on port %d:\n%s"
                                       % (port, self.log()))

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")[-3000:]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.logf.close()


class Admin:
    """FLUSH_CACHES and STATISTICS over the daemon's socket (proto v1)."""

    def __init__(self, daemon):
        self.d = daemon
        self.s = None
        self.rid = 0

    def call(self, rtype):
        if self.s is None:
            self.s = nclib.connect(self.d)
        self.rid += 1
        self.s.sendall(nclib.frame(rtype, fid=self.rid))
        f = nclib.read_frame(self.s)
        if f is None or f["type"] != rtype | nclib.REPLY or f["id"] != self.rid or f["status"]:
            raise HarnessError("admin request %d: reply %r\n%s" % (rtype, f, self.d.read_log()[-2000:]))
        return f["body"]

    def flush(self):
        self.call(6)        # PROTO_FLUSH_CACHES

    def stats(self):
        data = self.call(nclib.STATISTICS)
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
        return out

    def close(self):
        if self.s:
            self.s.close()


# ====================================================================== the test
class Question:
    def __init__(self, mode, qname, qtype, key=None, kind=None):
        self.mode = mode            # "line" or "dns"
        self.qname = qname          # without the final dot
        self.qtype = qtype
        self.key = key              # the glibc key (name or address), line A/AAAA/PTR
        self.kind = kind            # "name" or "addr" for glibc; None: unbound

    @property
    def ref(self):
        return "glibc" if self.kind else "unbound"

    def category(self):
        t = "A/AAAA" if self.qtype in ("A", "AAAA") else "PTR" if self.qtype == "PTR" else "other"
        return "%s %s (%s)" % (self.mode, t, self.ref)

    def __str__(self):
        return "%s %s. %s" % (self.mode, self.qname, self.qtype)


def questions(only):
    out = []
    for mode in ("line", "dns"):
        if only and mode != only:
            continue
        glibc = mode == "line"
        for n in ADDR_NAMES:
            for t in ("A", "AAAA"):
                out.append(Question(mode, n, t, n if glibc else None, "name" if glibc else None))
        for a in PTR_ADDRS:
            out.append(Question(mode, ptr_name(a), "PTR", a if glibc else None,
                                "addr" if glibc else None))
        for n, t in OTHER:
            out.append(Question(mode, n, t))
    return out


class Run:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="dnslisten-diff-")
        os.chmod(self.tmp, 0o755)
        self.qs = questions(args.only)
        self.glibc = {}             # (kind, key) -> probe result
        self.unbound = {}           # (qname, qtype) -> {UDP size or "tcp": DNSRecord}
        self.daemons = {}
        self.admins = {}
        self.ports = {}
        self.diffs = []             # dicts
        self.notes = []
        self.cache_notes = []
        self.comparisons = 0
        self.truncated = 0
        self.per_cat = {}           # category -> [questions, comparisons, differences]
        self.per_outcome = {}
        self.rid = random.Random(20).randrange(1, 60000)
        self.unbound_srv = None

    # -- references
    def ask_glibc(self, keys):
        p = subprocess.run([sys.executable, "-S", os.path.abspath(__file__), "--probe"],
                           input=json.dumps(keys).encode(), capture_output=True, timeout=300,
                           env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"})
        if p.returncode != 0:
            raise HarnessError("glibc probe exited %d: %s" % (p.returncode,
                                                              p.stderr.decode(errors="replace")))
        return dict(zip([tuple(k) for k in keys], json.loads(p.stdout)))

    def ask_unbound(self, qname, qtype):
        out = {}
        for size in (UDP_SIZE, 512, "tcp"):
            _, raw = ask(self.unbound_srv.port, qname, qtype, size == "tcp", self.next_id(),
                         edns=UDP_SIZE if size == UDP_SIZE else None)
            out[size] = DNSRecord.parse(raw)
        return out

    def next_id(self):
        self.rid = self.rid % 65535 + 1
        return self.rid

    # -- the expected answer
    def expected(self, q):
        """(Answer, why): what q's reply must hold, from its reference (for
        unbound, its answer over TCP; UDP's TC is checked apart)."""
        if q.kind is None:
            return Answer.of(self.unbound[(q.qname, q.qtype)]["tcp"]), "unbound"
        g = self.glibc[(q.kind, q.key)]
        if q.kind == "name":
            if g["ok"]:
                fam = 4 if q.qtype == "A" else 6
                addrs = [a for a in g["addrs"] if ipaddress.ip_address(a).version == fam]
                if not addrs:
                    return self.negative(q, 0, "getaddrinfo: only the other family")
                canon = g["canon"] or q.qname
                recs = []
                owner = dnsenv.norm(q.qname)
                if canon.lower().rstrip(".") != q.qname.lower():
                    recs.append((owner, "CNAME", dnsenv.norm(canon)))
                    owner = dnsenv.norm(canon)
                recs += [(owner, q.qtype, str(ipaddress.ip_address(a))) for a in addrs]
                return Answer(0, recs), "getaddrinfo: canon %r, %s" % (canon, " ".join(g["addrs"]))
            err = g["error"]
            if err == socket.EAI_NONAME:
                return self.negative(q, 3, "getaddrinfo: EAI_NONAME")
            if err == socket.EAI_NODATA:
                return self.negative(q, 0, "getaddrinfo: EAI_NODATA")
            if err == socket.EAI_AGAIN:
                return Answer(2), "getaddrinfo: EAI_AGAIN"
            raise HarnessError("getaddrinfo(%r): error %d" % (q.key, err))
        if g["ok"]:
            return (Answer(0, [(dnsenv.norm(q.qname), "PTR", dnsenv.norm(g["name"]).lower())]),
                    "gethostbyaddr: %r" % g["name"])
        he = g["h_errno"]
        if he == 1:
            return self.negative(q, 3, "gethostbyaddr: HOST_NOT_FOUND")
        if he == 4:
            return self.negative(q, 0, "gethostbyaddr: NO_DATA")
        if he == 2:
            return Answer(2), "gethostbyaddr: TRY_AGAIN"
        raise HarnessError("gethostbyaddr(%r): h_errno %d" % (q.key, he))

    def negative(self, q, rcode, why):
        """The line's negative: upstream's own answer when it is the same negative."""
        u = Answer.of(self.unbound[(q.qname, q.qtype)]["tcp"])
        if u.rcode == rcode and (rcode == 3 or not u.has_type(q.qtype)):
            return Answer(rcode, u.records, u.soa), why + "; upstream's negative: %s" % u
        return Answer(rcode), why + "; upstream's differs (%s): no SOA" % u

    def udp_truncates(self, q, exp, size):
        """Whether the reference's reply to q over UDP (size bytes: 1232 with
        EDNS0, 512 without) has TC."""
        if q.kind is None:
            return bool(self.unbound[(q.qname, q.qtype)][size].header.tc)
        r = dnsenv.make_query(q.qname + ".", q.qtype, payload=UDP_SIZE if size == UDP_SIZE
                              else None).reply()
        for owner, t, rdata in exp.records:
            r.add_answer(*RR.fromZone("%s 60 IN %s %s" % (owner, t, rdata)))
        return len(r.pack()) > size

    # -- checking one reply
    def check(self, q, tr, how, edns, query, raw, miss_rec):
        """Compares one reply; returns its parsed record (or None)."""
        exp, why = self.expected(q)
        problems = []
        try:
            rec = DNSRecord.parse(raw)
        except Exception as e:
            self.differ(q, tr, how, exp, why, ["unparsable reply: %s" % e], None)
            return None
        h, qh = rec.header, DNSRecord.parse(query).header
        got = Answer.of(rec)
        if h.id != qh.id:
            problems.append("id %d, asked %d" % (h.id, qh.id))
        if not h.qr:
            problems.append("QR not set")
        if not h.ra:
            problems.append("RA not set")
        if h.rd != qh.rd:
            problems.append("RD %d, asked %d" % (h.rd, qh.rd))
        if h.aa:
            problems.append("AA set")
        if h.ad:
            problems.append("AD set")
        if h.opcode != 0:
            problems.append("opcode %d" % h.opcode)
        qlen = len(query) - 12 - (11 if edns else 0)   # the question, before the OPT
        if raw[4:6] != b"\x00\x01" or raw[12:12 + qlen] != query[12:12 + qlen]:
            problems.append("question not echoed byte for byte: %r, asked %r"
                            % (raw[12:12 + qlen], query[12:12 + qlen]))
        has_opt = any(ar.rtype == QTYPE.OPT for ar in rec.ar)
        if has_opt != bool(edns):
            problems.append("OPT in the reply: %s, in the query: %s" % (has_opt, bool(edns)))
        if tr == "udp":
            want_tc = self.udp_truncates(q, exp, edns or 512)
            if got.tc != want_tc:
                problems.append("TC %d, the reference's %d" % (got.tc, want_tc))
        if got.tc and tr == "udp" and not problems:
            # Truncated as the reference's is: its records are compared over TCP.
            self.truncated += 1
            if got.rcode != exp.rcode:
                problems.append("rcode %s, expected %s" % (RCODE.get(got.rcode), RCODE.get(exp.rcode)))
        elif got.key() != exp.key():
            if got.rcode != exp.rcode:
                problems.append("rcode %s, expected %s" % (RCODE.get(got.rcode), RCODE.get(exp.rcode)))
            if got.records != exp.records:
                problems.append("answer differs: missing %s, extra %s"
                                % (sorted(exp.records - got.records), sorted(got.records - exp.records)))
            if got.soa != exp.soa:
                problems.append("authority SOA %s, expected %s" % (sorted(got.soa), sorted(exp.soa)))
        if not got.tc:
            problems += self.ttl_sanity(rec, miss_rec)
        if problems:
            self.differ(q, tr, how, exp, why, problems, got)
        return rec

    def ttl_sanity(self, rec, miss_rec):
        out = []
        before = {}
        if miss_rec is not None:
            for rr in miss_rec.rr + miss_rec.auth:
                k = dnsenv.rr_key(rr)
                before[(k[0], k[2], k[3])] = rr.ttl
        for rr, auth in [(rr, False) for rr in rec.rr] + [(rr, True) for rr in rec.auth]:
            k = dnsenv.rr_key(rr)
            ident = (k[0], k[2], k[3])
            limit = ZONE_TTLS.get(ident, MAX_TTL)
            if auth and rr.rtype == QTYPE.SOA:
                limit = min(limit, rr.rdata.times[-1])
            if rr.ttl > limit:
                out.append("TTL %d of %s %s %s above %d" % (rr.ttl, ident[0], ident[1], ident[2], limit))
            if ident in before and rr.ttl > before[ident]:
                out.append("TTL %d of %s %s %s on the hit, above the miss's %d"
                           % (rr.ttl, ident[0], ident[1], ident[2], before[ident]))
        return out

    def differ(self, q, tr, how, exp, why, problems, got):
        self.diffs.append(dict(q=q, tr=tr, how=how, exp=exp, why=why, problems=problems, got=got))

    # -- running
    def main(self):
        if os.environ.get("DNSENV_NETNS") != "1" or [n for _, n in socket.if_nameindex()] != ["lo"]:
            raise HarnessError("the inner run happens only inside tests/dns/in-netns.sh")
        hosts = os.path.join(self.tmp, "hosts")
        with open(hosts, "w") as f:
            f.write(HOSTS_FILE)
        os.chmod(hosts, 0o644)
        subprocess.run(["mount", "--bind", hosts, "/etc/hosts"], check=True)
        try:
            self.start()
            self.compare_all()
        finally:
            self.stop()
            subprocess.run(["umount", "/etc/hosts"], stderr=subprocess.DEVNULL)

    def start(self):
        t0 = time.monotonic()
        self.unbound_srv = Unbound(os.path.join(self.tmp, "unbound"), dnsenv.free_port(("127.0.0.1",)))
        for mode in ("line", "dns"):
            if self.args.only and mode != self.args.only:
                continue
            port = dnsenv.free_port(("127.0.0.1",))
            folder = os.path.join(self.tmp, "nc-" + mode)
            os.makedirs(folder)
            resolv = os.path.join(folder, "resolv.conf")
            with open(resolv, "w") as f:
                f.write("nameserver 127.0.0.1\noptions timeout:2 attempts:2\n")
            d = nclib.Daemon(self.args.build, folder, hosts_text=HOSTS_FILE,
                             conf_text="dns_sources = %s\n" % mode, resolv=resolv,
                             args=["--dns-listen", "127.0.0.1:%d" % port,
                                   "--log-level", self.args.daemon_log_level],
                             upstream="127.0.0.1:53")
            self.daemons[mode] = d
            d.start()
            self.ports[mode] = port
            self.admins[mode] = Admin(d)
            nclib.wait_until(lambda: self.listening(port), "the DNS listener on port %d" % port)
        self.lap = "start %.1f s" % (time.monotonic() - t0)

    def listening(self, port):
        try:
            dnsenv.query(port, "localhost.", "A", timeout=0.5)
            return True
        except OSError:
            return False

    def stop(self):
        for mode, d in self.daemons.items():
            self.admins[mode].close()
            rc = d.stop()
            if rc != 0:
                self.diffs.append(dict(q="namecached (%s)" % mode, tr="-", how="exit", exp=None,
                                       why="exit 0 on SIGTERM", problems=[
                                           "exit status %s: %s" % (rc, d.read_log()[-2000:])],
                                       got=None))
            elif nclib.sanitizer_reports(d.read_log()):
                self.diffs.append(dict(q="namecached (%s)" % mode, tr="-", how="exit", exp=None,
                                       why="no sanitizer report", problems=[d.read_log()[-2000:]],
                                       got=None))
        if self.unbound_srv:
            self.unbound_srv.stop()

    def compare_all(self):
        t0 = time.monotonic()
        keys = sorted({(q.kind, q.key) for q in self.qs if q.kind})
        self.glibc = self.ask_glibc([list(k) for k in keys])
        t1 = time.monotonic()
        # unbound, for every question (the line's negatives need upstream's
        # own answer); SERVFAIL last, so that its retries disturb nothing.
        asked = sorted({(q.qname, q.qtype) for q in self.qs},
                       key=lambda k: ("broken" in k[0], k))
        for qname, qtype in asked:
            self.unbound[(qname, qtype)] = self.ask_unbound(qname, qtype)
        t2 = time.monotonic()
        order = sorted(self.qs, key=lambda q: "broken" in q.qname)
        for q in order:
            ndiff = len(self.diffs)
            self.one(q)
            cat = self.per_cat.setdefault(q.category(), [0, 0, 0])
            cat[0] += 1
            cat[1] += 4
            cat[2] += len(self.diffs) - ndiff
            exp, _ = self.expected(q)
            out = self.per_outcome.setdefault(outcome(q, exp), [0, 0, 0])
            out[0] += 1
            out[1] += 4
            out[2] += len(self.diffs) - ndiff
            d = self.daemons[q.mode]
            if d.proc.poll() is not None:
                raise HarnessError("namecached (%s) died at %s:\n%s" % (q.mode, q, d.read_log()[-3000:]))
        t3 = time.monotonic()
        if self.diffs:
            self.confirm()
        self.lap += ", glibc %.1f s, unbound %.1f s, namecache %.1f s, confirm %.1f s" % (
            t1 - t0, t2 - t1, t3 - t2, time.monotonic() - t3)

    def one(self, q):
        adm, port = self.admins[q.mode], self.ports[q.mode]
        for tr in ("udp", "tcp"):
            adm.flush()
            miss_rec = None
            for how, spelling in (("miss", q.qname), ("hit", mixed(q.qname))):
                edns, rd = ASKED[(tr, how)]
                before = adm.stats().get("upstream_queries") if how == "hit" else None
                self.comparisons += 1
                try:
                    query, raw = ask(port, spelling, q.qtype, tr == "tcp", self.next_id(),
                                     edns=edns, rd=rd)
                except OSError as e:
                    exp, why = self.expected(q)
                    self.differ(q, tr, how, exp, why, ["no reply: %s" % e], None)
                    continue
                rec = self.check(q, tr, how, edns, query, raw, miss_rec)
                if how == "miss":
                    miss_rec = rec
                else:
                    after = adm.stats().get("upstream_queries")
                    if after != before:
                        self.cache_notes.append("%s over %s: the hit sent %s queries upstream"
                                                % (q, tr, after - before))

    def confirm(self):
        """Asks the references again for every question that differs: a
        difference whose reference changed (glibc or unbound timing out under
        load) is dropped with a note."""
        keep = []
        qs = {id(d["q"]): d["q"] for d in self.diffs if isinstance(d["q"], Question)}
        gkeys = sorted({(q.kind, q.key) for q in qs.values() if q.kind})
        if gkeys:
            self.glibc.update(self.ask_glibc([list(k) for k in gkeys]))
        for q in qs.values():
            self.unbound[(q.qname, q.qtype)] = self.ask_unbound(q.qname, q.qtype)
        for d in self.diffs:
            q = d["q"]
            if not isinstance(q, Question) or d["got"] is None:
                keep.append(d)
                continue
            exp, _ = self.expected(q)
            if exp.key() != d["exp"].key():
                self.notes.append("%s over %s (%s): the reference changed when asked again "
                                  "(was %s, now %s): not counted" % (q, d["tr"], d["how"], d["exp"], exp))
                continue
            keep.append(d)
        self.diffs = keep

    # -- report
    def report(self):
        out = []
        for d in self.diffs:
            out.append("")
            if d["how"] == "exit":
                out.append("--- %s: %s" % (d["q"], d["problems"][0]))
                continue
            q = d["q"]
            edns, rd = ASKED[(d["tr"], d["how"])]
            out.append("--- %s over %s (%s; asked %s, %s, RD %d)"
                       % (q, d["tr"].upper(), d["how"],
                          q.qname if d["how"] == "miss" else mixed(q.qname),
                          "EDNS0 %d" % edns if edns else "no EDNS0", rd))
            out.append("    reference (%s): %s" % (d["why"], d["exp"]))
            out.append("    namecache: %s" % (d["got"] if d["got"] else "-"))
            for p in d["problems"]:
                out.append("    * " + p)
        return out


def outcome(q, exp):
    if exp.rcode == 2:
        return "SERVFAIL"
    if exp.rcode == 3:
        return "NXDOMAIN" + (" after a CNAME" if exp.has_type("CNAME") else "")
    if exp.rcode != 0:
        return RCODE.get(exp.rcode, str(exp.rcode))
    if not exp.has_type(q.qtype):
        return "NODATA" + (" after a CNAME" if exp.has_type("CNAME") else "")
    if exp.has_type("CNAME") and q.qtype != "CNAME":
        return "positive, CNAME-chained"
    return "positive"


def inner(args):
    run = Run(args)
    rc = 0
    try:
        run.main()
    except HarnessError as e:
        log("ERROR: harness: %s" % e)
        rc = HARNESS
    finally:
        if args.keep:
            log("kept %s" % run.tmp)
        else:
            shutil.rmtree(run.tmp, ignore_errors=True)
    for line in run.report():
        log(line)
    for n in run.notes:
        log("  reference note: " + n)
    for n in run.cache_notes if args.verbose else run.cache_notes[:20]:
        log("  cache note: " + n)
    if len(run.cache_notes) > 20 and not args.verbose:
        log("  ... %d cache notes in all (-v for every one)" % len(run.cache_notes))
    log("")
    log("%-34s %9s %11s %11s" % ("category", "questions", "comparisons", "differences"))
    for cat in sorted(run.per_cat):
        log("%-34s %9d %11d %11d" % ((cat,) + tuple(run.per_cat[cat])))
    log("%-34s %9s %11s %11s" % ("outcome (the reference's)", "", "", ""))
    for o in sorted(run.per_outcome):
        log("  %-32s %9d %11d %11d" % ((o,) + tuple(run.per_outcome[o])))
    nq = sum(c[0] for c in run.per_cat.values())
    log("dnslisten-differential: %d questions, %d comparisons (%d truncated over UDP, records "
        "checked over TCP), %d differences, %d cache notes, %d reference notes; %s"
        % (nq, run.comparisons, run.truncated, len(run.diffs), len(run.cache_notes),
           len(run.notes), getattr(run, "lap", "")))
    if rc:
        return rc
    if run.diffs:
        log("dnslisten-differential: FAIL")
        return 1
    log("dnslisten-differential: OK, the listener answers as glibc and unbound do")
    return 0


# ====================================================================== outer driver
def outer(args):
    if os.geteuid() != 0:
        log("SKIP: needs root (a private network and mount namespace, nsd on port 53)")
        return SKIP
    for exe in (dnsenv.NSD, UNBOUND):
        if not os.access(exe, os.X_OK):
            log("SKIP: %s missing" % exe)
            return SKIP
    exe = os.path.join(args.build, "daemon", "namecached")
    if not os.path.exists(exe):
        log("ERROR: %s is missing: build first (ninja -C %s)" % (exe, args.build))
        return HARNESS
    tmp = tempfile.mkdtemp(prefix="dnslisten-diff-outer-")
    try:
        os.chmod(tmp, 0o755)
        zones = dnsenv.search_zones(tmp)
        root = os.path.join(tmp, "root.zone")
        with open(root, "w") as f:
            f.write(ROOT_ZONE_TEXT)
        os.chmod(root, 0o644)
        zones.append((".", root))
        cmd = [sys.executable, os.path.abspath(__file__), "--inner", "--build", args.build,
               "--daemon-log-level", args.daemon_log_level]
        if args.only:
            cmd += ["--only", args.only]
        if args.keep:
            cmd.append("--keep")
        if args.verbose:
            cmd.append("-v")
        p = dnsenv.run_in_netns(cmd, search=".", options="ndots:1 timeout:2 attempts:2",
                                zones=zones, rrl=False, timeout=280)
        return p.returncode
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--only", choices=("line", "dns"), help="one dns_sources mode only")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("-v", "--verbose", action="store_true", help="every cache note")
    ap.add_argument("--daemon-log-level", default="warning")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    return inner(args) if args.inner else outer(args)


if __name__ == "__main__":
    sys.exit(main())
