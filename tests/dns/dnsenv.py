#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/dns/dnsenv.py - DNS servers for namecache's tests, on loopback only.

Stdlib plus Debian's python3-dnslib; the authoritative server is Debian's
nsd.  Nothing here sends a packet anywhere but 127.0.0.1 or ::1: every
server is started by the test, on a free non-53 port, except inside a
private network namespace (in-netns.sh), which has nothing but `lo`.
Never point anything at this machine's own /etc/resolv.conf servers: run
glibc's DNS (getent -s dns, getaddrinfo of a name not in /etc/hosts) and a
daemon without --upstream only inside in-netns.sh.

Pieces
------
Test data (module constants; assert against them, never hard-code):
    TEST_ZONE, NEG_ZONE, REV4_ZONE, REV6_ZONE, ZONES      Zone objects
    Zone.origin, .soa (Soa), .ns_ttl, .records (list of Rec), .text()
    Zone.negative_ttl        min(SOA TTL, SOA MINIMUM) (RFC 2308)
    rrset(name, qtype)       the records of one type at one name
    resolve(name, qtype)     the answer section an authoritative server
                             gives: the CNAME chain, then the final RRset
    answer_ttl(name, qtype)  smallest TTL in resolve() (what the cache keeps)
    addresses(name, family)  the address strings resolve() ends in
    zone_of(name)            the Zone a name falls in
    negative_ttl(name)       zone_of(name).negative_ttl
    name_exists(name)        whether the name owns any record
    MANY_COUNT               150, the A records of many.test.example
    NSD_NEGATIVE_SOA_TTL     {origin: TTL} that nsd really puts in the
                             authority SOA of a negative answer: it lowers
                             it to min(TTL, MINIMUM) itself (see below)
    rec_key(rec), rr_key(rr) comparable (name, ttl, type, rdata) tuples for
                             a Rec and for a received dnslib RR
    Names in test.example.: ttl10 (A, TTL 10), ttl300 (A 300), ttl3600
    (A 3600, AAAA 1800), alias1 -> alias2 -> target (CNAME 500, CNAME 400,
    A 600 / AAAA 700: the chain's minimum is 400), v6only, v4only, nodata
    (TXT only), many (150 A: truncated over UDP), mx, mail, srv._tcp, txt,
    caa, www (A and AAAA), multi (3 A, 2 AAAA), dangling (CNAME to a name
    that does not exist).  neg.example.: host (A only).  PTRs for
    192.0.2.10, 192.0.2.20 and 2001:db8::20.  No wildcard.  Print a zone
    file with: dnsenv.py zone test.example.
    DIFF_ZONE (diff.example., not in ZONES) is a second search domain
    (SEARCH_LIST): www.sub, alias.sub, v4.sub, www, onlyhere, and the
    halves of two pairs split across the domains (v6only A, v4only AAAA).
    search_zones(folder) -> [(origin, path)] serves it and BROKEN_ORIGIN
    (broken.example., a zone file nsd cannot load: SERVFAIL for every
    name in it) through run_in_netns(zones=...).
    With minimal_responses=False (the default, like a stock nsd) positive
    answers also carry the zone's NS (TTL 86400) in authority and glue in
    additional: only the answer section decides a cache TTL.

Servers (all are context managers with .stop(); .port is the port):
    Nsd(tmpdir, port=None, zones=None, addresses=None, minimal_responses=False)
        Real authoritative nsd in the foreground on 127.0.0.1 and ::1.
        Started and answering when the constructor returns (about 0.3 s);
        a taken port is retried with another unless port= was given.
        .log(since=0) is its log (verbosity 2), .stop(), .start() again.
        nsd 4.6 has no query log, so count queries by putting a
        CountingProxy in front.
    CountingProxy(upstream_port, port=None, upstream_host="127.0.0.1",
                  host="127.0.0.1")
        UDP+TCP forwarder: UDP queries go upstream over UDP, TCP over TCP,
        replies are relayed byte for byte.  Counts every query received
        (also those it then drops).  .set_delay(name, seconds, qtype=None),
        .set_blackhole(on=True, name=None).
    FaultServer(port=None, host="127.0.0.1")
        Scriptable server: .set(name, behaviour, qtype=None, **params),
        .set_default(behaviour, **params), .clear().  Behaviours and their
        params are in FaultServer.__doc__.
    Both CountingProxy and FaultServer count: .counts(transport=None) ->
    {(qname, "A"): n}, .count(name, qtype=None, transport=None),
    .total(transport=None), .transports() -> {"udp": n, "tcp": n},
    .queries() -> [(monotonic, qname, qtype, transport)], .reset(),
    .wait_total(n, timeout).  qname is lowercased with a trailing dot.
    Every query is counted before it is answered, so once a client has its
    reply the count is there.  Each query is handled in its own thread, so
    a delayed or slow one never holds up another.

Helpers:
    query(port, name, qtype="A", tcp=False, timeout=2, host="127.0.0.1",
          payload=None, rd=True, raw=False) -> dnslib.DNSRecord (or bytes)
    free_port(hosts=("127.0.0.1", "::1")) -> a port free for UDP and TCP
    make_query(name, qtype="A", payload=None, rd=True) -> dnslib.DNSRecord
    rdata_text(rr) -> normalised presentation text of a dnslib RR's rdata
    run_in_netns(cmd, **kw) -> subprocess.CompletedProcess (see in-netns.sh)

Typical use in an integration test:

    with tempfile.TemporaryDirectory() as tmp, \\
         dnsenv.Nsd(tmp) as nsd, \\
         dnsenv.CountingProxy(nsd.port) as proxy:
        start namecached with --upstream 127.0.0.1:%d % proxy.port
        look up alias1.test.example through it twice
        assert proxy.count("alias1.test.example", "A") == 1
        assert reported ttl <= dnsenv.answer_ttl("alias1.test.example", "A")

    with dnsenv.FaultServer() as fs:
        fs.set("dead.fault.example", "timeout")
        fs.set("www.fault.example", "answer", qtype="AAAA", ttl=0)

glibc against the same data (differential tests) needs a server on port 53
named in /etc/resolv.conf: run the whole test program through
tests/dns/in-netns.sh (root), e.g.
    tests/dns/in-netns.sh -- /usr/bin/python3 tests/differential/x.py
Inside it, nsd serves ZONES on 127.0.0.1:53 and [::1]:53, /etc/resolv.conf
(a private bind mount) says "nameserver 127.0.0.1 / search test.example /
options ndots:1 timeout:1 attempts:2", and the environment has
DNSENV_NETNS=1, DNSENV_NSD_PORT=53, DNSENV_DIR=<its temporary folder>.
lo also carries 203.0.113.1/32 and 2001:db8:ffff::1/128
(NETNS_HOST_ADDRESSES), because glibc's AI_ADDRCONFIG
ignores 127.0.0.1 and ::1 and would otherwise refuse every AF_INET/AF_INET6
getaddrinfo (getent ahostsv4 says nothing).  There is no other interface
and no route: nothing can leave the namespace.
The real /etc/resolv.conf is never written.  Options: --search, --options,
--zone ORIGIN=FILE (extra zone files), --no-nsd, --no-addresses; see
in-netns.sh.

About negative TTLs: the zones' SOAs are TEST_ZONE (TTL 120, MINIMUM 300:
min() is the TTL) and NEG_ZONE (TTL 900, MINIMUM 60: min() is MINIMUM).
nsd itself writes the authority SOA of an NXDOMAIN/NODATA reply with its
TTL already lowered to min(TTL, MINIMUM) (RFC 2308 section 3), so through
nsd neg.example's authority SOA reads TTL 60 MINIMUM 60.  To test that the
daemon takes the min() itself, use FaultServer's nxdomain/nodata with
soa_ttl=900, minimum=60, which sends the fields exactly as given.

Run the self-tests: /usr/bin/python3 tests/dns/test_dnsenv.py (root for
the netns part), or meson test -C build --suite dns.
"""

import argparse
import ipaddress
import os
import random
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import namedtuple

import dnslib
from dnslib import DNSRecord, DNSHeader, DNSQuestion, RR, QTYPE, EDNS0

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import privns  # noqa: E402

IN_NETNS = os.path.join(HERE, "in-netns.sh")
NSD = "/usr/sbin/nsd"
PYTHON = "/usr/bin/python3"

LOOPBACK = ("127.0.0.1", "::1")

# --------------------------------------------------------------------------
# Test data
# --------------------------------------------------------------------------

Rec = namedtuple("Rec", "name ttl rtype rdata")
Rec.__doc__ = "One resource record: absolute lowercase name, TTL, type mnemonic, rdata in zone-file text."
Soa = namedtuple("Soa", "ttl mname rname serial refresh retry expire minimum")


def norm(name):
    """Lowercase, absolute (trailing dot) form of a name."""
    name = str(name).lower()
    return name if name.endswith(".") else name + "."


class Zone:
    def __init__(self, origin, soa, ns, records, ns_ttl=86400):
        self.origin = norm(origin)
        self.soa = soa
        self.ns = [norm(n) for n in ns]
        self.ns_ttl = ns_ttl
        self.records = list(records)

    @property
    def negative_ttl(self):
        """How long an NXDOMAIN/NODATA from this zone may be cached (RFC 2308)."""
        return min(self.soa.ttl, self.soa.minimum)

    def soa_rdata(self):
        s = self.soa
        return "%s %s %d %d %d %d %d" % (s.mname, s.rname, s.serial, s.refresh,
                                        s.retry, s.expire, s.minimum)

    def all_records(self):
        """SOA and NS as records too, then the rest."""
        out = [Rec(self.origin, self.soa.ttl, "SOA", self.soa_rdata())]
        out += [Rec(self.origin, self.ns_ttl, "NS", n) for n in self.ns]
        return out + self.records

    def text(self):
        lines = ["; generated by tests/dns/dnsenv.py", "$ORIGIN %s" % self.origin]
        for r in self.all_records():
            lines.append("%s\t%d\tIN\t%s\t%s" % (r.name, r.ttl, r.rtype, r.rdata))
        return "\n".join(lines) + "\n"

    def __contains__(self, name):
        name = norm(name)
        return name == self.origin or name.endswith("." + self.origin)

    def __repr__(self):
        return "Zone(%r)" % self.origin


def _zone(origin, soa_ttl, minimum, records, ns=None):
    o = norm(origin)
    mname = ns[0] if ns else "ns1." + o
    return Zone(o, Soa(soa_ttl, mname, "hostmaster." + o, 2024010101, 3600, 600,
                       86400, minimum), [mname], records)


T = "test.example."
TEST_ZONE = _zone(T, 120, 300, [
    Rec("ns1." + T, 86400, "A", "192.0.2.53"),
    Rec("ttl10." + T, 10, "A", "192.0.2.10"),
    Rec("ttl300." + T, 300, "A", "192.0.2.30"),
    Rec("ttl3600." + T, 3600, "A", "192.0.2.36"),
    Rec("ttl3600." + T, 1800, "AAAA", "2001:db8::36"),
    # The chain's smallest TTL is the middle link (400).
    Rec("alias1." + T, 500, "CNAME", "alias2." + T),
    Rec("alias2." + T, 400, "CNAME", "target." + T),
    Rec("target." + T, 600, "A", "192.0.2.20"),
    Rec("target." + T, 700, "AAAA", "2001:db8::20"),
    Rec("v6only." + T, 300, "AAAA", "2001:db8::6"),
    Rec("v4only." + T, 300, "A", "192.0.2.4"),
    Rec("nodata." + T, 300, "TXT", '"x"'),
    Rec("mx." + T, 300, "MX", "10 mail." + T),
    Rec("mail." + T, 300, "A", "192.0.2.25"),
    Rec("srv._tcp." + T, 300, "SRV", "1 2 3 target." + T),
    Rec("txt." + T, 300, "TXT", '"hello world" "second"'),
    Rec("caa." + T, 300, "CAA", '0 issue "ca.example"'),
    Rec("www." + T, 300, "A", "192.0.2.80"),
    Rec("www." + T, 300, "AAAA", "2001:db8::80"),
    # Extras: several addresses of each family (order tests), and a CNAME
    # into a name that does not exist (NXDOMAIN after a CNAME).
    Rec("multi." + T, 300, "A", "192.0.2.101"),
    Rec("multi." + T, 300, "A", "192.0.2.102"),
    Rec("multi." + T, 300, "A", "192.0.2.103"),
    Rec("multi." + T, 300, "AAAA", "2001:db8::101"),
    Rec("multi." + T, 300, "AAAA", "2001:db8::102"),
    Rec("dangling." + T, 300, "CNAME", "nowhere." + T),
] + [Rec("many." + T, 300, "A", "198.51.100.%d" % i) for i in range(150)])
MANY_COUNT = 150

N = "neg.example."
NEG_ZONE = _zone(N, 900, 60, [
    Rec("ns1." + N, 86400, "A", "192.0.2.53"),
    Rec("host." + N, 300, "A", "192.0.2.90"),
])

R4 = "2.0.192.in-addr.arpa."
REV4_ZONE = _zone(R4, 3600, 300, [
    Rec("10." + R4, 3600, "PTR", "ttl10." + T),
    Rec("20." + R4, 3600, "PTR", "target." + T),
], ns=["ns1." + T])

R6 = "8.b.d.0.1.0.0.2.ip6.arpa."
REV6_ZONE = _zone(R6, 3600, 300, [
    Rec(ipaddress.ip_address("2001:db8::20").reverse_pointer + ".", 3600, "PTR",
        "target." + T),
], ns=["ns1." + T])

ZONES = [TEST_ZONE, NEG_ZONE, REV4_ZONE, REV6_ZONE]

# What nsd puts in the TTL field of the authority SOA of a negative answer.
NSD_NEGATIVE_SOA_TTL = {z.origin: z.negative_ttl for z in ZONES}

# A second search domain (not in ZONES: served only where a test asks,
# through search_zones()), for search lists "test.example diff.example".
D = "diff.example."
DIFF_ZONE = Zone(D, Soa(120, "ns1." + D, "hostmaster." + D, 1, 3600, 600, 86400, 300),
                 ["ns1." + D], [
    Rec("ns1." + D, 86400, "A", "192.0.2.53"),
    # Reached from "www.sub" through the search list only.
    Rec("www.sub." + D, 300, "A", "192.0.2.150"),
    Rec("www.sub." + D, 300, "AAAA", "2001:db8::150"),
    Rec("alias.sub." + D, 300, "CNAME", "www.sub." + D),
    Rec("v4.sub." + D, 300, "A", "192.0.2.153"),
    # Also a name of test.example: the search list's order decides.
    Rec("www." + D, 300, "A", "192.0.2.152"),
    # Only here: reached from "onlyhere" after test.example's NXDOMAIN.
    Rec("onlyhere." + D, 300, "AAAA", "2001:db8::151"),
    # Pairs split across the two domains: v6only.test.example has AAAA
    # only, v4only.test.example A only.  glibc's dns module searches A and
    # AAAA as a pair for AF_UNSPEC and stops at test.example (one family);
    # AF_INET (for v6only) and AF_INET6 (for v4only) go on to these.
    Rec("v6only." + D, 300, "A", "192.0.2.154"),
    Rec("v4only." + D, 300, "AAAA", "2001:db8::154"),
])
SEARCH_LIST = "test.example diff.example"

# A zone nsd is told to serve from a file that does not parse: it answers
# SERVFAIL for every name in it (x.broken.example, asked first with ndots:1,
# then NXDOMAIN from the search domains).
BROKEN_ORIGIN = "broken.example."


def search_zones(folder):
    """(origin, path) pairs for run_in_netns's zones=: DIFF_ZONE and the
    broken zone (SERVFAIL), their files written in folder (which must be
    readable by nsd)."""
    out = []
    for origin, text in ((D, DIFF_ZONE.text()),
                         (BROKEN_ORIGIN, "; dnsenv.py: not a zone file, so nsd says SERVFAIL\n"
                                         "this does not parse\n")):
        path = os.path.join(folder, origin.rstrip(".") + ".zone")
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        out.append((origin, path))
    return out


def zone_of(name, zones=None):
    best = None
    for z in zones or ZONES:
        if name in z and (best is None or len(z.origin) > len(best.origin)):
            best = z
    return best


def negative_ttl(name):
    return zone_of(name).negative_ttl


def rrset(name, qtype, zones=None):
    name, qtype = norm(name), qtype.upper()
    z = zone_of(name, zones)
    if z is None:
        return []
    return [r for r in z.all_records() if r.name == name and r.rtype == qtype]


def name_exists(name, zones=None):
    name = norm(name)
    z = zone_of(name, zones)
    return z is not None and any(r.name == name for r in z.all_records())


def resolve(name, qtype, zones=None):
    """The answer section an authoritative server for ZONES gives."""
    out, name, qtype = [], norm(name), qtype.upper()
    for _ in range(16):
        rs = rrset(name, qtype, zones)
        if rs or qtype == "CNAME":
            return out + rs
        cn = rrset(name, "CNAME", zones)
        if not cn:
            return out
        out += cn
        name = norm(cn[0].rdata)
    raise ValueError("CNAME loop")


def answer_ttl(name, qtype, zones=None):
    """Smallest TTL in the answer, CNAMEs included; None for no answer."""
    rs = resolve(name, qtype, zones)
    return min(r.ttl for r in rs) if rs else None


def addresses(name, family=None, zones=None):
    """Address strings of name: family socket.AF_INET, AF_INET6 or None (both, v4 first)."""
    out = []
    if family in (None, socket.AF_INET):
        out += [r.rdata for r in resolve(name, "A", zones) if r.rtype == "A"]
    if family in (None, socket.AF_INET6):
        out += [r.rdata for r in resolve(name, "AAAA", zones) if r.rtype == "AAAA"]
    return out


def rdata_text(rr):
    """Normalised presentation text of a dnslib RR's rdata (for comparisons)."""
    if QTYPE.get(rr.rtype) in ("A", "AAAA"):
        return str(ipaddress.ip_address(str(rr.rdata)))
    return str(rr.rdata).lower() if QTYPE.get(rr.rtype) in (
        "CNAME", "PTR", "NS", "SOA", "MX", "SRV") else str(rr.rdata)


def rec_rr(rec):
    """dnslib RR for a Rec."""
    return RR.fromZone("%s %d IN %s %s" % (rec.name, rec.ttl, rec.rtype, rec.rdata))[0]


def rec_key(rec):
    """(name, ttl, type, rdata text) of a Rec, comparable with rr_key()."""
    return rr_key(rec_rr(rec))


def rr_key(rr):
    return (norm(rr.rname), rr.ttl, qtype_name(rr.rtype), rdata_text(rr))


def qtype_name(n):
    try:
        return QTYPE[n]
    except Exception:
        return "TYPE%d" % n


def qtype_num(t):
    return t if isinstance(t, int) else getattr(QTYPE, t.upper())


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def _family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def have_ipv6():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def free_port(hosts=LOOPBACK):
    """A port free for UDP and TCP on every host in hosts (::1 skipped without IPv6)."""
    hosts = [h for h in hosts if ":" not in h or have_ipv6()]
    for _ in range(100):
        socks = []
        try:
            s = socket.socket(_family(hosts[0]), socket.SOCK_STREAM)
            socks.append(s)
            s.bind((hosts[0], 0))
            port = s.getsockname()[1]
            if port == 53:
                continue
            for h in hosts:
                for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                    if h == hosts[0] and kind == socket.SOCK_STREAM:
                        continue
                    s = socket.socket(_family(h), kind)
                    socks.append(s)
                    s.bind((h, port))
            return port
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no free port")


def _recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def make_query(name, qtype="A", payload=None, rd=True):
    q = DNSRecord.question(str(name), qtype_name(qtype_num(qtype)))
    q.header.rd = 1 if rd else 0
    if payload:
        q.add_ar(EDNS0(udp_len=payload))
    return q


def query(port, name, qtype="A", tcp=False, timeout=30, host="127.0.0.1",
          payload=None, rd=True, raw=False):
    """Ask the server at host:port directly.  payload: EDNS0 UDP size (None: no OPT).

    Returns the parsed reply (dnslib.DNSRecord), or its bytes with raw=True.
    UDP returns the first datagram that arrives, whatever its id.  Raises
    socket.timeout (TimeoutError) when nothing comes within timeout: by
    default a bound that means "hung"; a caller that expects no answer
    passes a short one, and checks what the server did (events())."""
    data = make_query(name, qtype, payload, rd).pack()
    with socket.socket(_family(host), socket.SOCK_STREAM if tcp else socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.connect((host, port))
        if tcp:
            s.sendall(struct.pack("!H", len(data)) + data)
            n = struct.unpack("!H", _recv_exact(s, 2))[0]
            reply = _recv_exact(s, n)
        else:
            s.send(data)
            reply = s.recv(65535)
    return reply if raw else DNSRecord.parse(reply)


# --------------------------------------------------------------------------
# nsd
# --------------------------------------------------------------------------

class Nsd:
    """A real nsd serving zones (default ZONES) on 127.0.0.1 and ::1.

    zones: Zone objects and/or (origin, zonefile_path) pairs.
    addresses: where to listen (default 127.0.0.1 and, when available, ::1).
    rrl=False turns response rate limiting off: Debian builds nsd with RRL at
    200 queries a second, which truncates or drops a flood or a load test.
    The log (nsd's stderr, verbosity 2) is self.log_path; self.log() reads it."""

    def __init__(self, tmpdir, port=None, zones=None, addresses=None,
                 minimal_responses=False, start=True, timeout=10, rrl=True):
        self.dir = os.path.abspath(tmpdir)
        os.makedirs(self.dir, exist_ok=True)
        self.fixed_port = port
        self.port = None
        self.zones = list(ZONES if zones is None else zones)
        self.addresses = list(addresses or [a for a in LOOPBACK if ":" not in a or have_ipv6()])
        self.minimal_responses = minimal_responses
        self.rrl = rrl
        self.timeout = timeout
        self.proc = None
        self.conf = os.path.join(self.dir, "nsd.conf")
        self.log_path = os.path.join(self.dir, "nsd.log")
        if start:
            self.start()

    def _write(self, port):
        d = self.dir
        zone_stanzas = []
        for z in self.zones:
            if isinstance(z, Zone):
                origin = z.origin
                path = os.path.join(d, "%szone" % origin)
                with open(path, "w") as f:
                    f.write(z.text())
            else:
                origin, path = norm(z[0]), os.path.abspath(z[1])
            zone_stanzas.append('zone:\n\tname: "%s"\n\tzonefile: "%s"\n' % (origin, path))
        lines = ["server:"]
        lines += ["\tip-address: %s@%d" % (a, port) for a in self.addresses]
        lines += [
            "\tport: %d" % port,
            "\tdo-ip4: %s" % ("yes" if any(":" not in a for a in self.addresses) else "no"),
            "\tdo-ip6: %s" % ("yes" if any(":" in a for a in self.addresses) else "no"),
            '\tusername: ""',
            '\tchroot: ""',
            '\tzonesdir: "%s"' % d,
            '\tdatabase: "%s"' % os.path.join(d, "nsd.db"),
            '\tzonelistfile: "%s"' % os.path.join(d, "zone.list"),
            '\txfrdfile: "%s"' % os.path.join(d, "xfrd.state"),
            '\txfrdir: "%s"' % d,
            '\tpidfile: "%s"' % os.path.join(d, "nsd.pid"),
            "\tverbosity: 2",
            "\tlog-time-ascii: yes",
            "\tserver-count: 1",
            "\treuseport: no",
            "\thide-version: yes",
            "\trefuse-any: no",
            "\tminimal-responses: %s" % ("yes" if self.minimal_responses else "no"),
        ] + ([] if self.rrl else ["\trrl-ratelimit: 0", "\trrl-whitelist-ratelimit: 0"]) + [
            "\tipv4-edns-size: 1232",
            "\tipv6-edns-size: 1232",
            "\ttcp-count: 200",
            "\tzonefiles-write: 0",
            "remote-control:",
            "\tcontrol-enable: no",
            "",
        ]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n".join(zone_stanzas))
        # A stale list from an earlier start would add zones nsd then cannot find.
        for stale in ("zone.list", "xfrd.state", "nsd.db"):
            try:
                os.unlink(os.path.join(d, stale))
            except FileNotFoundError:
                pass

    def start(self):
        last = ""
        for _ in range(1 if self.fixed_port else 8):
            port = self.fixed_port or free_port(self.addresses)
            self._write(port)
            with open(self.log_path, "ab") as log:
                self._log_start = log.tell()
                self.proc = subprocess.Popen([NSD, "-d", "-c", self.conf],
                                             stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=log, start_new_session=True)
            self.port = port
            if self._wait_ready():
                return self
            last = self.log(self._log_start)
            self.stop()
            if "in use" not in last:
                break
        raise RuntimeError("nsd did not start; log:\n" + last)

    def _wait_ready(self):
        deadline = time.monotonic() + self.timeout
        pending = list(self.addresses)
        probe = self.zones[0].origin if isinstance(self.zones[0], Zone) else norm(self.zones[0][0])
        started = False
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            # Another server on the same port could answer the probes: wait
            # for this nsd to say it is up first.
            if not started:
                started = "nsd started" in self.log(self._log_start)
                if not started:
                    time.sleep(0.02)
                    continue
            for a in list(pending):
                try:
                    r = query(self.port, probe, "SOA", host=a, timeout=0.2)
                    if r.header.rcode == 0 and r.rr:
                        pending.remove(a)
                except (OSError, dnslib.DNSError):
                    pass
            if not pending:
                return True
            time.sleep(0.02)
        return False

    def log(self, since=0):
        """nsd's log (from byte offset since)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(since)
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def stop(self):
        p, self.proc = self.proc, None
        if p is None:
            return
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass
        # nsd's server and xfrd children are in the group we started.
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        p.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


# --------------------------------------------------------------------------
# UDP + TCP server plumbing shared by the proxy and the fault server
# --------------------------------------------------------------------------

class _Counting:
    def __init__(self):
        self._count_lock = threading.Lock()
        self._log = []

    def _record(self, data, transport):
        try:
            q = DNSRecord.parse(data).q
            key = (norm(q.qname), qtype_name(q.qtype))
        except Exception:
            key = ("<unparseable>", "?")
        with self._count_lock:
            self._log.append((time.monotonic(), key[0], key[1], transport))
        return key

    def queries(self):
        """[(monotonic time, qname, qtype, transport)] in arrival order."""
        with self._count_lock:
            return list(self._log)

    def counts(self, transport=None):
        out = {}
        for _, n, t, tr in self.queries():
            if transport is None or tr == transport:
                out[(n, t)] = out.get((n, t), 0) + 1
        return out

    def count(self, name, qtype=None, transport=None):
        name = norm(name)
        qtype = qtype and qtype_name(qtype_num(qtype))
        return sum(1 for _, n, t, tr in self.queries()
                   if n == name and (qtype is None or t == qtype)
                   and (transport is None or tr == transport))

    def total(self, transport=None):
        return sum(1 for q in self.queries() if transport is None or q[3] == transport)

    def transports(self):
        return {"udp": self.total("udp"), "tcp": self.total("tcp")}

    def reset(self):
        with self._count_lock:
            self._log = []

    def wait_total(self, n, timeout=30.0):
        """Wait until at least n queries have arrived; returns the total.
        The timeout means "hung"."""
        deadline = time.monotonic() + timeout
        while self.total() < n and time.monotonic() < deadline:
            time.sleep(0.005)
        return self.total()


class _Server(_Counting):
    """Listens on host:port for UDP and TCP; each query goes to self._handle
    (data, transport) in its own thread, which returns reply bytes or None.

    hold(name): queries for name (counted on arrival) wait before anything
    else is done with them until release(name), release() or stop(), or
    HOLD_MAX seconds.  A test can then look at the daemon while they are
    surely pending, instead of guessing with a delay.

    A delay (the proxy's set_delay, the fault server's slow) ends early at
    cut() or stop(): a test that made one long enough never to end by
    itself ends it when it has seen what it wanted meanwhile.  events()
    says in which order the replies went out, and where the cuts came:
    [("reply", qname, qtype, transport) | ("cut",)]."""

    HOLD_MAX = 120.0

    def __init__(self, port=None, host="127.0.0.1"):
        _Counting.__init__(self)
        self.host = host
        self._gates = {}
        self._gates_lock = threading.Lock()
        self._stopping = threading.Event()
        self._conns = set()
        self._conns_lock = threading.Lock()
        self._peers = []
        self._tls = threading.local()
        self._cuts = 0
        self._cut_cond = threading.Condition()
        self._events = []
        self.flooded = 0            # forged replies the flood behaviour sent
        fam = _family(host)
        for _ in range(1 if port else 50):
            p = port or free_port((host,))
            u = socket.socket(fam, socket.SOCK_DGRAM)
            t = socket.socket(fam, socket.SOCK_STREAM)
            try:
                t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                u.bind((host, p))
                t.bind((host, p))
                t.listen(64)
                break
            except OSError:
                u.close()
                t.close()
                if port:
                    raise
        else:
            raise RuntimeError("no free port")
        self.port = p
        # A thread per datagram is slow to drain a burst (300 queries at
        # once from one test): with the default 208 KiB the kernel drops
        # some (RcvbufErrors), and the test sees upstream timeouts the
        # daemon never caused.  SO_RCVBUFFORCE passes rmem_max as root.
        for opt in (getattr(socket, "SO_RCVBUFFORCE", 33), socket.SO_RCVBUF):
            try:
                u.setsockopt(socket.SOL_SOCKET, opt, 8 << 20)
                break
            except OSError:
                continue
        self._udp, self._tcp = u, t
        self._threads = [threading.Thread(target=self._udp_loop, daemon=True),
                         threading.Thread(target=self._tcp_loop, daemon=True)]
        for th in self._threads:
            th.start()

    def hold(self, name):
        with self._gates_lock:
            self._gates.setdefault(norm(name), threading.Event())

    def release(self, name=None):
        """Lets the held queries for name (None: every name) go, and the later ones."""
        with self._gates_lock:
            names = list(self._gates) if name is None else [norm(name)]
            for n in names:
                gate = self._gates.pop(n, None)
                if gate:
                    gate.set()

    def _wait_gate(self, name):
        with self._gates_lock:
            gate = self._gates.get(name)
        if gate:
            gate.wait(self.HOLD_MAX)

    def _cuts_now(self):
        with self._cut_cond:
            return self._cuts

    def _sleep(self, seconds, since=None):
        """Waits seconds, or until a cut() or stop() after since (what
        _cuts_now() said when the query arrived; default: now)."""
        end = time.monotonic() + seconds
        with self._cut_cond:
            cuts = self._cuts if since is None else since
            while self._cuts == cuts and not self._stopping.is_set():
                left = end - time.monotonic()
                if left <= 0:
                    return
                self._cut_cond.wait(left)

    def cut(self):
        """Ends every delay now running: their replies go out at once."""
        with self._cut_cond:
            with self._count_lock:
                self._events.append(("cut",))
            self._cuts += 1
            self._cut_cond.notify_all()

    def events(self):
        """[("reply", qname, qtype, transport) | ("cut",)] in the order they
        happened (a reply is logged as it goes out, before its peer has it)."""
        with self._count_lock:
            return list(self._events)

    def _sent(self, data, transport):
        try:
            q = DNSRecord.parse(data).q
            key = (norm(q.qname), qtype_name(q.qtype))
        except Exception:
            key = ("<unparseable>", "?")
        with self._count_lock:
            self._events.append(("reply", key[0], key[1], transport))

    def udp_peers(self):
        """[(source port, DNS id)] of every UDP query, in arrival order."""
        with self._count_lock:
            return list(self._peers)

    def _spawn(self, fn, *args):
        threading.Thread(target=fn, args=args, daemon=True).start()

    def _udp_loop(self):
        while not self._stopping.is_set():
            try:
                r, _, _ = select.select([self._udp], [], [], 0.1)
                if not r:
                    continue
                data, addr = self._udp.recvfrom(65535)
            except OSError:
                if self._stopping.is_set():
                    return
                continue
            self._spawn(self._udp_one, data, addr)

    def _udp_one(self, data, addr):
        if len(data) >= 2:
            with self._count_lock:
                self._peers.append((addr[1], struct.unpack(">H", data[:2])[0]))
        self._tls.addr = addr
        reply = self._handle(data, "udp")
        if reply is not None and not self._stopping.is_set():
            self._sent(data, "udp")     # before the peer can have it
            try:
                self._udp.sendto(reply, addr)
            except OSError:
                pass

    def _tcp_loop(self):
        while not self._stopping.is_set():
            try:
                r, _, _ = select.select([self._tcp], [], [], 0.1)
                if not r:
                    continue
                conn, _ = self._tcp.accept()
            except OSError:
                if self._stopping.is_set():
                    return
                continue
            with self._conns_lock:
                self._conns.add(conn)
            self._spawn(self._tcp_conn, conn)

    def _tcp_conn(self, conn):
        wlock = threading.Lock()
        pending = []
        try:
            while not self._stopping.is_set():
                hdr = conn.recv(2)
                if len(hdr) == 1:
                    hdr += conn.recv(1)
                if len(hdr) < 2:
                    break
                data = _recv_exact(conn, struct.unpack("!H", hdr)[0])
                th = threading.Thread(target=self._tcp_one, args=(conn, wlock, data), daemon=True)
                th.start()
                pending = [t for t in pending if t.is_alive()] + [th]
        except OSError:
            pass
        # The peer closed (or stop() shut the socket down): let the replies
        # in flight finish (they are bounded by their delays), then close.
        for th in pending:
            th.join()
        with self._conns_lock:
            if conn in self._conns:
                self._conns.discard(conn)
                conn.close()

    def _tcp_one(self, conn, wlock, data):
        reply = self._handle(data, "tcp")
        if reply is None or self._stopping.is_set():
            return
        self._sent(data, "tcp")         # before the peer can have it
        try:
            with wlock:
                conn.sendall(struct.pack("!H", len(reply)) + reply)
        except OSError:
            pass

    def stop(self):
        if self._stopping.is_set():
            return
        self._stopping.set()
        self.release()
        with self._cut_cond:
            self._cut_cond.notify_all()
        for th in self._threads:
            th.join(2)
        self._udp.close()
        self._tcp.close()
        with self._conns_lock:
            for c in self._conns:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                c.close()
            self._conns.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


# --------------------------------------------------------------------------
# Counting proxy
# --------------------------------------------------------------------------

class CountingProxy(_Server):
    """Forwards to upstream_host:upstream_port over the transport the query came on.

    set_delay(name, seconds, qtype=None): hold the reply to name (and qtype)
        until seconds after the query arrived, or the next cut(); 0 or None
        removes it.
    set_blackhole(on=True, name=None): drop every query (or those for name).
    hold(name), release(name=None): keep queries for name from being
        forwarded until released (_Server).
    Queries are counted on arrival, dropped and held ones included."""

    UPSTREAM_TIMEOUT = 5.0

    def __init__(self, upstream_port, port=None, upstream_host="127.0.0.1", host="127.0.0.1"):
        self.upstream = (upstream_host, upstream_port)
        self._lock = threading.Lock()
        self._delays = {}
        self._blackhole = False
        self._holes = set()
        _Server.__init__(self, port, host)

    def set_delay(self, name, seconds, qtype=None):
        key = (norm(name), qtype and qtype_name(qtype_num(qtype)))
        with self._lock:
            if seconds:
                self._delays[key] = float(seconds)
            else:
                self._delays.pop(key, None)

    def set_blackhole(self, on=True, name=None):
        with self._lock:
            if name is None:
                self._blackhole = bool(on)
            elif on:
                self._holes.add(norm(name))
            else:
                self._holes.discard(norm(name))

    def clear(self):
        with self._lock:
            self._delays.clear()
            self._holes.clear()
            self._blackhole = False

    def _handle(self, data, transport):
        t0 = time.monotonic()
        cuts = self._cuts_now()
        name, qtype = self._record(data, transport)
        with self._lock:
            if self._blackhole or name in self._holes:
                return None
            delay = self._delays.get((name, qtype), self._delays.get((name, None), 0))
        self._wait_gate(name)
        try:
            reply = self._forward(data, transport)
        except OSError:
            return None
        if delay:
            left = t0 + delay - time.monotonic()
            if left > 0:
                self._sleep(left, cuts)
        return reply

    def _forward(self, data, transport):
        host, port = self.upstream
        tcp = transport == "tcp"
        with socket.socket(_family(host), socket.SOCK_STREAM if tcp else socket.SOCK_DGRAM) as s:
            s.settimeout(self.UPSTREAM_TIMEOUT)
            s.connect((host, port))
            if tcp:
                s.sendall(struct.pack("!H", len(data)) + data)
                return _recv_exact(s, struct.unpack("!H", _recv_exact(s, 2))[0])
            s.send(data)
            return s.recv(65535)


# --------------------------------------------------------------------------
# Fault server
# --------------------------------------------------------------------------

class FaultServer(_Server):
    """A scriptable DNS server: behaviour per (qname, qtype), per qname, or default.

    set(name, behaviour, qtype=None, **params); set_default(behaviour, **params);
    clear() forgets every set(); hold(name) and release(name=None) (_Server)
    keep queries for name waiting, whatever their behaviour.  Behaviours:

    answer      NOERROR with records.  records: list of (type, ttl, rdata) for
                the question name, (name, type, ttl, rdata), or zone lines
                "name ttl IN type rdata".  Default records:
                A 192.0.2.1 / AAAA 2001:db8::1 with TTL ttl (default 60).
                Only records of the asked type and CNAMEs are sent unless
                filter=False.  ttl=N overrides every record's TTL.
                aa=True (authoritative bit), ra=True.
    servfail    rcode 2.          refused    rcode 5.
    rcode       any rcode=N (FORMERR 1, NOTIMP 4, ...).
    nxdomain    rcode 3, no answer; soa=True puts an SOA in authority with
                soa_ttl (default 300) and minimum (default 60), for zone
                (default: the question's last two labels).  soa=False: none.
    nodata      NOERROR, no answer; SOA as for nxdomain.
    timeout     never replies (UDP and TCP; the TCP connection stays open).
    garbage     the query's id, then random bytes (size, default 64; seed)
                with a question count of 65535, so no parser can accept it.
                keep_id=False makes the id random too.
    wrongid     a proper answer with another id (id=N, default id+1).
    wrongname   a proper answer whose question and records are for another
                name (other, default "other.fault.example.").
    truncated   over UDP: TC set, no records; over TCP: the proper answer.
    slow        the proper answer after delay seconds (default 2), or at
                the next cut().
    ttl0        the proper answer with every TTL 0.
    ttlhuge     the proper answer with every TTL ttl (default 2**31; try
                2**32-1 too).
    spoof       over UDP, forged replies first, each carrying A poison
                (default 198.18.0.66) for the question: for forge in
                ("id", "question", "port", "address") (default all): another
                id; another question (other, as wrongname); the right id and
                question from another port; and from 127.0.0.2.  Then, after
                delay (default 0.2 s), the proper answer.  TCP: the answer.
    oversized   the proper answer with count (default 300) A records
                198.51.100.x, over UDP too, without TC, whatever its size.
    comploop    an answer whose first record's owner (where="owner") or
                CNAME target (where="rdata") is a compression pointer to
                itself.
    flood       over UDP, replies for the question with ids other than
                the query's, carrying A poison, sent to the asker as fast as
                possible for seconds (default 0.5); then the proper answer.
    Every answer also takes authority= and additional=: records (as in
    records, never filtered) put in those sections.
    "The proper answer" is what answer would send with the same params.
    The default for names never set is answer with default records."""

    BEHAVIOURS = ("answer", "servfail", "refused", "rcode", "nxdomain", "nodata",
                  "timeout", "garbage", "wrongid", "wrongname", "truncated", "slow",
                  "ttl0", "ttlhuge", "spoof", "oversized", "comploop", "flood")

    def __init__(self, port=None, host="127.0.0.1"):
        self._lock = threading.Lock()
        self._table = {}
        self._default = ("answer", {})
        self._forge_lock = threading.Lock()
        _Server.__init__(self, port, host)

    def set(self, name, behaviour, qtype=None, **params):
        if behaviour not in self.BEHAVIOURS:
            raise ValueError("unknown behaviour %r" % behaviour)
        key = (norm(name), qtype and qtype_name(qtype_num(qtype)))
        with self._lock:
            self._table[key] = (behaviour, dict(params))

    def set_default(self, behaviour, **params):
        if behaviour not in self.BEHAVIOURS:
            raise ValueError("unknown behaviour %r" % behaviour)
        with self._lock:
            self._default = (behaviour, dict(params))

    def clear(self):
        with self._lock:
            self._table.clear()
            self._default = ("answer", {})

    def behaviour(self, name, qtype):
        name, qtype = norm(name), qtype_name(qtype_num(qtype))
        with self._lock:
            return self._table.get((name, qtype)) or self._table.get((name, None)) or self._default

    def _handle(self, data, transport):
        cuts = self._cuts_now()
        self._record(data, transport)
        try:
            req = DNSRecord.parse(data)
            q = req.q
        except Exception:
            return None
        self._wait_gate(norm(q.qname))
        beh, p = self.behaviour(q.qname, q.qtype)
        if beh == "timeout":
            return None
        if beh == "garbage":
            rnd = random.Random(p.get("seed"))
            size = max(int(p.get("size", 64)), 6)
            body = bytearray(rnd.getrandbits(8) for _ in range(size))
            if p.get("keep_id", True):
                body[0:2] = data[0:2]
            body[4:6] = b"\xff\xff"
            return bytes(body)
        if beh == "slow":
            self._sleep(float(p.get("delay", 2)), cuts)
        if beh in ("servfail", "refused", "rcode"):
            return self._reply(req, {"servfail": 2, "refused": 5}.get(beh) or int(p["rcode"])).pack()
        if beh in ("nxdomain", "nodata"):
            r = self._reply(req, 3 if beh == "nxdomain" else 0)
            if p.get("soa", True):
                labels = norm(q.qname).rstrip(".").split(".")
                zone = norm(p.get("zone") or ".".join(labels[-2:]))
                r.add_auth(RR.fromZone(
                    "%s %d IN SOA ns1.%s hostmaster.%s 1 3600 600 86400 %d" % (
                        zone, int(p.get("soa_ttl", 300)), zone, zone,
                        int(p.get("minimum", 60))))[0])
            return r.pack()
        if beh == "truncated" and transport == "udp":
            r = self._reply(req, 0)
            r.header.tc = 1
            return r.pack()
        if beh == "ttl0":
            p = dict(p, ttl=0)
        elif beh == "ttlhuge":
            p = dict(p, ttl=p.get("ttl", 2 ** 31))
        qname = norm(q.qname)
        if beh == "wrongname":
            qname = norm(p.get("other", "other.fault.example."))
        if beh == "oversized":
            p = dict(p, filter=True, records=[("A", int(p.get("ttl", 60)), "198.51.100.%d" % (i % 256))
                                              for i in range(int(p.get("count", 300)))])
        if beh in ("spoof", "flood") and transport == "udp":
            self._forge(req, beh, p, self._tls.addr)
        if beh == "comploop":
            return self._comploop(req, p)
        r = self._reply(req, 0, qname=qname)
        for rr in self._records(qname, q.qtype, p):
            r.add_answer(rr)
        for rr in self._records(qname, q.qtype, dict(p, filter=False, ttl=None,
                                                     records=p.get("authority", []))):
            r.add_auth(rr)
        for rr in self._records(qname, q.qtype, dict(p, filter=False, ttl=None,
                                                     records=p.get("additional", []))):
            r.add_ar(rr)
        if beh == "wrongid":
            r.header.id = int(p.get("id", (req.header.id + 1) & 0xffff))
        return r.pack()

    def _poisoned(self, req, p, qname=None, qid=None):
        r = self._reply(req, 0, qname=qname)
        r.add_answer(RR.fromZone("%s 86400 IN A %s" % (norm(qname or req.q.qname),
                                                        p.get("poison", "198.18.0.66")))[0])
        if qid is not None:
            r.header.id = qid
        return r.pack()

    def _forge(self, req, beh, p, addr):
        """Sends forged replies to addr before the proper answer (spoof, flood)."""
        qid = req.header.id
        if beh == "flood":
            body = self._poisoned(req, p)[2:]
            pkts = [struct.pack(">H", (qid + i) % 65536) + body for i in range(1, 4097)]
            end, i = time.monotonic() + float(p.get("seconds", 0.5)), 0
            while time.monotonic() < end and not self._stopping.is_set():
                for pkt in pkts[(i % 16) * 256:(i % 16 + 1) * 256]:
                    try:
                        self._udp.sendto(pkt, addr)
                    except OSError:
                        pass
                i += 1
            with self._count_lock:
                self.flooded += 256 * i
            return
        forge = p.get("forge", ("id", "question", "port", "address"))
        for kind in forge:
            if kind == "id":
                self._udp.sendto(self._poisoned(req, p, qid=(qid + 1) % 65536), addr)
            elif kind == "question":
                self._udp.sendto(self._poisoned(req, p, qname=p.get(
                    "other", "other.fault.example.")), addr)
            else:
                # Queries are answered on threads of their own: two forging
                # from 127.0.0.2:port at once would collide in bind().
                src = ("127.0.0.1", 0) if kind == "port" else ("127.0.0.2", self.port)
                with self._forge_lock, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                    s.bind(src)
                    s.sendto(self._poisoned(req, p), addr)
        self._sleep(float(p.get("delay", 0.2)))

    def _comploop(self, req, p):
        """A reply whose first answer record loops through a compression pointer."""
        r = self._reply(req, 0)
        r.header.ar = 0
        r.ar = []
        head = bytearray(r.pack())
        head[6:8] = b"\x00\x01"                   # ancount 1
        off = len(head)
        if p.get("where", "owner") == "owner":
            rr = struct.pack(">H", 0xc000 | off) + struct.pack(">HHIH", 1, 1, 60, 4) + \
                bytes((192, 0, 2, 1))
        else:
            target = off + 2 + 10                 # where the rdata starts
            rr = b"\xc0\x0c" + struct.pack(">HHIH", 5, 1, 60, 2) + \
                struct.pack(">H", 0xc000 | target)
        return bytes(head) + rr

    @staticmethod
    def _reply(req, rcode, qname=None):
        h = DNSHeader(id=req.header.id, qr=1, aa=1, rd=req.header.rd, ra=1, rcode=rcode)
        r = DNSRecord(h, q=DNSQuestion(qname or req.q.qname, req.q.qtype, req.q.qclass))
        if any(ar.rtype == QTYPE.OPT for ar in req.ar):
            r.add_ar(EDNS0(udp_len=1232))
        return r

    @staticmethod
    def _records(qname, qtype, p):
        ttl = p.get("ttl")
        recs = p.get("records")
        if recs is None:
            recs = [("A", 60, "192.0.2.1"), ("AAAA", 60, "2001:db8::1")]
        out = []
        for item in recs:
            if isinstance(item, str):
                rr = RR.fromZone(item)[0]
            else:
                if len(item) == 3:
                    item = (qname,) + tuple(item)
                n, t, tt, rd = item
                rr = RR.fromZone("%s %d IN %s %s" % (norm(n), int(tt), t.upper(), rd))[0]
            if p.get("filter", True) and qtype != QTYPE.ANY and rr.rtype not in (qtype, QTYPE.CNAME):
                continue
            if ttl is not None:
                rr.ttl = int(ttl)
            out.append(rr)
        return out


# --------------------------------------------------------------------------
# Private network namespace with nsd on port 53 (used through in-netns.sh)
# --------------------------------------------------------------------------

DEFAULT_SEARCH = "test.example"
# Put on lo inside the namespace so that AI_ADDRCONFIG sees both families.
NETNS_HOST_ADDRESSES = ("203.0.113.1/32", "2001:db8:ffff::1/128")
DEFAULT_OPTIONS = "ndots:1 timeout:1 attempts:2"


def run_in_netns(cmd, search=DEFAULT_SEARCH, options=DEFAULT_OPTIONS, zones=(),
                 nsd=True, addresses=True, rrl=True, **kw):
    """Run cmd (a list) through in-netns.sh; kw go to subprocess.run
    (e.g. capture_output=True, text=True, timeout=60).  zones: extra
    (origin, zonefile) pairs served besides ZONES."""
    argv = [IN_NETNS, "--search", search, "--options", options]
    for origin, path in zones:
        argv += ["--zone", "%s=%s" % (origin, path)]
    if not nsd:
        argv.append("--no-nsd")
    if not addresses:
        argv.append("--no-addresses")
    if not rrl:
        argv.append("--no-rrl")
    return subprocess.run(argv + ["--"] + list(cmd), **kw)


def _netns_inner(argv):
    """in-netns.sh: re-executes itself inside `unshare --mount --net`, where
    the network rule holds (nothing but lo: privns.enter checks it and
    brings lo up), then runs the command there."""
    privns.enter("in-netns.sh: network and mount namespaces", net=True, probe=True)
    ap = argparse.ArgumentParser(prog="in-netns.sh")
    ap.add_argument("--search", default=DEFAULT_SEARCH, help='"" for no search line')
    ap.add_argument("--options", default=DEFAULT_OPTIONS, help='"" for no options line')
    ap.add_argument("--zone", action="append", default=[], metavar="ORIGIN=FILE")
    ap.add_argument("--no-nsd", action="store_true", help="no nsd; resolv.conf still points at 127.0.0.1")
    ap.add_argument("--no-addresses", action="store_true",
                    help="leave lo with 127.0.0.1 and ::1 only (AI_ADDRCONFIG then fails)")
    ap.add_argument("--no-rrl", action="store_true",
                    help="nsd without response rate limiting (load tests)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command")
    if not a.no_addresses:
        # glibc's AI_ADDRCONFIG ignores 127.0.0.1 and ::1: without another
        # address of each family, getaddrinfo(AF_INET or AF_INET6) with it
        # (getent ahostsv4/ahostsv6, most programs) fails with EAI_NONAME.
        for addr in NETNS_HOST_ADDRESSES:
            subprocess.run(["ip", "addr", "add", addr, "dev", "lo"], check=True)
    tmp = tempfile.mkdtemp(prefix="dnsenv-netns-")
    server = None
    mounted = False
    try:
        if not a.no_nsd:
            zones = list(ZONES) + [tuple(z.split("=", 1)) for z in a.zone]
            server = Nsd(os.path.join(tmp, "nsd"), port=53, zones=zones, rrl=not a.no_rrl)
        resolv = os.path.join(tmp, "resolv.conf")
        with open(resolv, "w") as f:
            f.write("nameserver 127.0.0.1\n")
            if a.search:
                f.write("search %s\n" % a.search)
            if a.options:
                f.write("options %s\n" % a.options)
        os.chmod(tmp, 0o755)
        os.chmod(resolv, 0o644)
        subprocess.run(["mount", "--bind", resolv, "/etc/resolv.conf"], check=True)
        mounted = True
        env = dict(os.environ, DNSENV_NETNS="1", DNSENV_NSD_PORT="53" if server else "",
                   DNSENV_DIR=tmp)
        try:
            return subprocess.run(cmd, env=env).returncode
        except FileNotFoundError as e:
            print("in-netns.sh: %s" % e, file=sys.stderr)
            return 127
    finally:
        if server:
            server.stop()
        if mounted:
            subprocess.run(["umount", "/etc/resolv.conf"])
        shutil.rmtree(tmp, ignore_errors=True)


def _main(argv):
    if argv[:1] == ["netns-inner"]:
        return _netns_inner(argv[1:])
    if argv[:1] == ["zone"] and len(argv) == 2:
        sys.stdout.write(zone_of(argv[1]).text())
        return 0
    print("usage: dnsenv.py zone ORIGIN   (print a test zone)\n"
          "       in-netns.sh [--search D] [--options O] [--zone ORIGIN=FILE] [--no-nsd]\n"
          "                   [--no-addresses] -- CMD...",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
