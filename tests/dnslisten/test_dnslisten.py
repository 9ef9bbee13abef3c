#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/dnslisten/test_dnslisten.py - the DNS listener end to end: answers, wire rules, hostile traffic.

Every test starts its own nsd (tests/dns/dnsenv.py), a counting proxy or
a fault server in front of it, and a daemon with --dns-listen on a free
loopback port and --upstream at the proxy, so no packet leaves loopback.
Queries are built and read with python3-dnslib, or written byte by byte
where they must be malformed.  Upstream queries are counted at the proxy.
Waits are bounded by nclib.HUNG_SEC and mean "hung"; no test waits out a
TTL (the wire path's aging is tested in tests/unit: test-dnswire and the
engine's scenarios).

Run: /usr/bin/python3 tests/dnslisten/test_dnslisten.py --build BUILD [-k NAME]
"""
import os
import random
import resource
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import nclib  # noqa: E402
import dnsenv  # noqa: E402
from dnslib import DNSRecord, DNSQuestion, EDNS0, QTYPE, RR  # noqa: E402

BUILD = None
TESTS = []
T = "test.example"
HOSTS = ("127.0.0.1 localhost\n"
         "192.0.2.5 hostsname.lan hostalias.lan\n"
         "2001:db8::5 v6host.lan\n")


def test(fn):
    TESTS.append(fn)
    return fn


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.servers = []
        self.daemons = []

    def nsd(self):
        s = dnsenv.Nsd(os.path.join(self.tmp, "nsd%d" % len(self.servers)))
        self.servers.append(s)
        return s

    def proxy(self):
        s = dnsenv.CountingProxy(self.nsd().port)
        self.servers.append(s)
        return s

    def fault(self):
        s = dnsenv.FaultServer()
        self.servers.append(s)
        return s

    def daemon(self, upstream_port, conf="", hosts=HOSTS, nsswitch="hosts: files dns\n"):
        d_dir = os.path.join(self.tmp, "d%d" % len(self.daemons))
        os.mkdir(d_dir)
        port = dnsenv.free_port(("127.0.0.1",))
        d = nclib.Daemon(BUILD, d_dir, hosts, conf_text=conf,
                         args=["--dns-listen", "127.0.0.1:%d" % port],
                         upstream="127.0.0.1:%d" % upstream_port, nsswitch_text=nsswitch)
        d.port = port
        self.daemons.append(d)
        d.start()
        return d


# --- a client -------------------------------------------------------------------

def udp(d, data, timeout=nclib.HUNG_SEC, src="127.0.0.1"):
    """One datagram to the listener; its reply bytes, or None when none came."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((src, 0))
        s.settimeout(timeout)
        s.sendto(data, ("127.0.0.1", d.port))
        try:
            return s.recv(65535)
        except socket.timeout:
            return None


def tcp_conn(d):
    s = socket.create_connection(("127.0.0.1", d.port), timeout=nclib.HUNG_SEC)
    return s


def tcp_send(s, data):
    s.sendall(struct.pack("!H", len(data)) + data)


def tcp_recv(s):
    n = struct.unpack("!H", nclib.recv_exact(s, 2))[0]
    return nclib.recv_exact(s, n)


def query(name, qtype="A", qid=None, rd=True, edns=None, do=False):
    q = DNSRecord.question(name, qtype)
    q.header.id = qid if qid is not None else random.randrange(65536)
    q.header.rd = 1 if rd else 0
    if edns is not None:
        q.add_ar(EDNS0(udp_len=edns, flags="do" if do else ""))
    return q


def ask(d, name, qtype="A", tcp=False, **kw):
    """The parsed reply to one query, over UDP or a TCP connection of its own."""
    q = query(name, qtype, **kw)
    data = q.pack()
    if tcp:
        with tcp_conn(d) as s:
            tcp_send(s, data)
            raw = tcp_recv(s)
    else:
        raw = udp(d, data)
    assert raw is not None, ("no reply", name, qtype)
    r = DNSRecord.parse(raw)
    assert r.header.id == q.header.id and r.header.qr == 1, r
    r.raw = raw
    return r


def rrs(r, section="rr"):
    return sorted((str(x.rname).lower(), QTYPE[x.rtype], str(x.rdata)) for x in getattr(r, section))


def stats(d):
    return d.ctl_json("statistics")


# --- answers --------------------------------------------------------------------

@test
def line_answers_as_the_hosts_line(env):
    d = env.daemon(env.proxy().port)
    r = ask(d, "hostsname.lan")
    assert r.header.rcode == 0 and rrs(r) == [("hostsname.lan.", "A", "192.0.2.5")], r
    # The other family: NOERROR with no records (musl reads NXDOMAIN for
    # either as the name's end), and the AAAA-only name the same way round.
    r = ask(d, "hostsname.lan", "AAAA")
    assert r.header.rcode == 0 and r.rr == [], r
    r = ask(d, "v6host.lan", "AAAA")
    assert rrs(r) == [("v6host.lan.", "AAAA", "2001:db8::5")], r
    r = ask(d, "v6host.lan", "A")
    assert r.header.rcode == 0 and r.rr == [], r
    # An alias is a CNAME to the canonical name, which owns the address.
    r = ask(d, "hostalias.lan")
    assert rrs(r) == [("hostalias.lan.", "CNAME", "hostsname.lan."),
                      ("hostsname.lan.", "A", "192.0.2.5")], r
    # PTR from the hosts file, and from DNS through the line.
    r = ask(d, "5.2.0.192.in-addr.arpa", "PTR")
    assert rrs(r) == [("5.2.0.192.in-addr.arpa.", "PTR", "hostsname.lan.")], r
    r = ask(d, "5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa", "PTR")
    assert [x[2] for x in rrs(r)] == ["v6host.lan."], r
    # DNS names through the line's dns step: the zone's records.
    r = ask(d, "multi." + T, "A")
    assert sorted(x[2] for x in rrs(r)) == sorted(dnsenv.addresses("multi." + T, socket.AF_INET)), r
    r = ask(d, "alias1." + T, "AAAA")
    assert rrs(r) == [("alias1.test.example.", "CNAME", "target.test.example."),
                      ("target.test.example.", "AAAA", "2001:db8::20")], r


@test
def other_types_through_the_cache(env):
    proxy = env.proxy()
    d = env.daemon(proxy.port)
    r = ask(d, "mx." + T, "MX")
    assert rrs(r) == [("mx.test.example.", "MX", "10 mail.test.example.")], r
    assert r.auth == [], ("a positive answer has no authority section", r)
    r = ask(d, "txt." + T, "TXT")
    assert [x[:2] for x in rrs(r)] == [("txt.test.example.", "TXT")], r
    assert [bytes(s) for s in r.rr[0].rdata.data] == [b"hello world", b"second"], r
    r = ask(d, "srv._tcp." + T, "SRV")
    assert rrs(r) == [("srv._tcp.test.example.", "SRV", "1 2 3 target.test.example.")], r
    r = ask(d, "caa." + T, "CAA")
    assert len(r.rr) == 1 and QTYPE[r.rr[0].rtype] == "CAA", r
    # HTTPS and SVCB: the zone has none, so NODATA with the zone's SOA.
    for t in ("HTTPS", "SVCB"):
        r = ask(d, "www." + T, t)
        assert r.header.rcode == 0 and r.rr == [] and QTYPE[r.auth[0].rtype] == "SOA", r
    # Asked again: from the cache, nothing upstream, TTLs counting down.
    before = proxy.total()
    r2 = ask(d, "mx." + T, "MX")
    assert proxy.total() == before, proxy.queries()[-3:]
    assert rrs(r2) == [("mx.test.example.", "MX", "10 mail.test.example.")]
    assert r2.rr[0].ttl <= 300
    # show-cache lists the listener's records as wire entries.
    mx = [e for e in d.ctl_json("show-cache") if e["name"] == "mx.test.example"]
    assert [(e["kind"], e["query"]) for e in mx] == [("MX/wire", "wire")], mx


@test
def negative_answers_carry_the_soa(env):
    proxy = env.proxy()
    d = env.daemon(proxy.port)
    for name, qtype, rcode in (("nope." + T, "A", 3), ("nope." + T, "MX", 3),
                               ("nodata." + T, "A", 0), ("v4only." + T, "AAAA", 0),
                               ("nope." + T, "AAAA", 3)):
        for attempt in ("miss", "hit"):
            r = ask(d, name, qtype)
            assert r.header.rcode == rcode and r.rr == [], (name, qtype, attempt, r)
            soa = [x for x in r.auth if QTYPE[x.rtype] == "SOA"]
            assert len(soa) == 1 and str(soa[0].rname) == "test.example.", (name, attempt, r)
            # RFC 2308: min(SOA TTL, MINIMUM) at most: the zone's is 120.
            assert 0 < soa[0].ttl <= dnsenv.NSD_NEGATIVE_SOA_TTL["test.example."], r
    # The hits asked nothing more upstream than the misses did.
    n = proxy.count("nope." + T, "A")
    ask(d, "nope." + T, "A")
    assert proxy.count("nope." + T, "A") == n


@test
def dns_sources_dns_never_answers_the_hosts_file(env):
    proxy = env.proxy()
    d = env.daemon(proxy.port, conf="dns_sources = dns\n")
    r = ask(d, "hostsname.lan")
    # nsd is authoritative for "." in no zone: REFUSED upstream, SERVFAIL here.
    assert r.header.rcode in (2, 3) and r.rr == [], r
    assert proxy.count("hostsname.lan", "A") >= 1
    r = ask(d, "www." + T)
    assert rrs(r) == [("www.test.example.", "A", "192.0.2.80")], r
    assert d.ctl_json("status")["dns_sources"] == "dns"


@test
def wire_rules(env):
    d = env.daemon(env.proxy().port)
    # The question echoed byte for byte (0x20 case), id echoed, RD echoed,
    # RA set, AA never.
    for rd in (True, False):
        q = query("WwW.TeSt.ExAmPlE", "A", rd=rd)
        raw = udp(d, q.pack())
        qlen = 12 + len(q.q.qname.label) + sum(len(l) for l in q.q.qname.label) + 1 + 4
        assert raw[12:qlen] == q.pack()[12:qlen], (raw[12:qlen], q.pack()[12:qlen])
        r = DNSRecord.parse(raw)
        assert r.header.rd == rd and r.header.ra == 1 and r.header.aa == 0, r
        assert r.header.id == q.header.id
        assert [x[2] for x in rrs(r)] == ["192.0.2.80"]
    # EDNS: the reply advertises 1232 and echoes DO; AD never set.
    r = ask(d, "www." + T, edns=4096, do=True)
    opt = [x for x in r.ar if x.rtype == 41]
    assert len(opt) == 1 and opt[0].rclass == 1232 and r.header.ad == 0, r
    # 150 A records: TC without EDNS (512 bytes at most), TC at 1232 with
    # EDNS 4096, whole over TCP.
    r = ask(d, "many." + T)
    assert r.header.tc == 1 and len(r.raw) <= 512, (len(r.raw), r.header)
    r = ask(d, "many." + T, edns=4096)
    assert r.header.tc == 1 and len(r.raw) <= 1232, (len(r.raw), r.header)
    r = ask(d, "many." + T, tcp=True)
    assert r.header.tc == 0 and len(r.rr) == dnsenv.MANY_COUNT, (len(r.rr), r.header)
    # ANY: one HINFO (RFC 8482).
    r = ask(d, "www." + T, "ANY")
    assert len(r.rr) == 1 and QTYPE[r.rr[0].rtype] == "HINFO", r
    st = stats(d)
    assert st["dns_truncated"] >= 2 and st["dns_type_any"] == 1, st


@test
def malformed_queries(env):
    d = env.daemon(env.proxy().port)
    good = query("www." + T, "A", qid=0x1234).pack()
    # Shorter than a header: no reply at all.
    assert udp(d, good[:11], timeout=0.5) is None
    # A readable header, a question cut short: FORMERR, no longer than the query.
    raw = udp(d, good[:20])
    assert raw is not None and raw[3] & 0x0f == 1 and len(raw) <= 20, raw
    # QDCOUNT 2: FORMERR.
    raw = udp(d, good[:4] + b"\x00\x02" + good[6:])
    assert raw is not None and raw[3] & 0x0f == 1, raw
    # QR set (a reply sent to us): dropped.
    assert udp(d, good[:2] + bytes([good[2] | 0x80]) + good[3:], timeout=0.5) is None
    # Opcode STATUS (2) and NOTIFY (4): NOTIMP.
    for op in (2, 4):
        raw = udp(d, good[:2] + bytes([(good[2] & 0x87) | (op << 3)]) + good[3:])
        assert raw is not None and raw[3] & 0x0f == 4, (op, raw)
    # EDNS version 1: BADVERS (extended rcode 16: the OPT's upper bits 1).
    q = query("www." + T, "A", edns=1232)
    q.ar[0].ttl = 1 << 16
    r = DNSRecord.parse(udp(d, q.pack()))
    assert r.header.rcode == 0 and (r.ar[0].ttl >> 24) == 1, r
    # Class CH (version.bind), AXFR: NOTIMP.
    q = DNSRecord(q=DNSQuestion("version.bind", QTYPE.TXT, 3))
    assert DNSRecord.parse(udp(d, q.pack())).header.rcode == 4
    assert ask(d, T, "AXFR").header.rcode == 4
    # A label dnslib cannot spell without an escape: SERVFAIL, never asked.
    raw = udp(d, good[:12] + b"\x03a.b\x04test\x07example\x00\x00\x10\x00\x01")
    assert raw is not None and raw[3] & 0x0f == 2, raw
    st = stats(d)
    assert st["dns_malformed"] >= 3 and st["dns_rcode_formerr"] >= 2, st
    assert st["dns_rcode_notimp"] >= 4, st
    # And the daemon answers as before.
    assert rrs(ask(d, "www." + T)) == [("www.test.example.", "A", "192.0.2.80")]


@test
def upstream_failures_are_servfail(env):
    f = env.fault()
    f.set("sf.fault.example", "servfail")
    f.set("to.fault.example", "timeout")
    d = env.daemon(f.port, conf="failure_ttl = 0\n")
    assert ask(d, "sf.fault.example", "MX").header.rcode == 2
    assert ask(d, "sf.fault.example", "A").header.rcode == 2
    assert ask(d, "to.fault.example", "TXT").header.rcode == 2
    st = stats(d)
    assert st["dns_rcode_servfail"] >= 3, st


@test
def tcp_pipelined_answered_as_they_complete(env):
    proxy = env.proxy()
    d = env.daemon(proxy.port)
    proxy.hold("slow." + T)
    with tcp_conn(d) as s:
        # Three queries in one write: the held one first.
        qs = [query("slow." + T, "TXT", qid=1), query("www." + T, "A", qid=2),
              query("hostsname.lan", "A", qid=3)]
        s.sendall(b"".join(struct.pack("!H", len(q.pack())) + q.pack() for q in qs))
        first = [DNSRecord.parse(tcp_recv(s)).header.id for _ in range(2)]
        assert sorted(first) == [2, 3], first
        assert stats(d)["dns_pending"] == 1
        proxy.release()
        r = DNSRecord.parse(tcp_recv(s))
        assert r.header.id == 1 and r.header.rcode == 3, r
    st = stats(d)
    assert st["dns_queries_tcp"] == 3 and st["dns_pending"] == 0, st


@test
def tcp_limits(env):
    d = env.daemon(env.proxy().port, conf="dns_tcp_clients = 2\ndns_tcp_idle = 1\n")
    a, b = tcp_conn(d), tcp_conn(d)
    tcp_send(a, query("www." + T).pack())
    assert DNSRecord.parse(tcp_recv(a)).rr
    # The third connection is closed at once, and counted.
    c = tcp_conn(d)
    c.settimeout(nclib.HUNG_SEC)
    try:
        assert c.recv(1) == b""
    except ConnectionResetError:
        pass
    nclib.wait_until(lambda: stats(d)["dns_tcp_rejected"] >= 1, "the third refused")
    # Idle ones close (dns_tcp_idle = 1), the slots come back.
    for s in (a, b):
        s.settimeout(nclib.HUNG_SEC)
        assert s.recv(1) == b"", "an idle connection closes"
    nclib.wait_until(lambda: stats(d)["dns_tcp_connections"] == 0, "idle connections closed")
    assert stats(d)["dns_tcp_timeouts"] >= 2
    r = ask(d, "www." + T, tcp=True)
    assert r.rr
    for s in (a, b, c):
        s.close()


# --- hostile traffic --------------------------------------------------------------

@test
def garbage_and_oversize_cost_nothing_else(env):
    d = env.daemon(env.proxy().port)
    rnd = random.Random(20)
    base = stats(d)
    # In bursts of 50, each read before the next: a socket buffer's worth.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for burst in range(40):
            for i in range(50):
                n = rnd.choice((0, 1, 11, 12, 13, 40, 300, 1500))
                s.sendto(bytes(rnd.getrandbits(8) for _ in range(n)), ("127.0.0.1", d.port))
            nclib.wait_until(lambda: stats(d)["dns_queries_udp"] - base["dns_queries_udp"] >=
                             50 * (burst + 1), "burst %d read" % burst)
        s.sendto(b"\0" * 9000, ("127.0.0.1", d.port))         # oversize: dropped
    nclib.wait_until(lambda: stats(d)["dns_queries_udp"] - base["dns_queries_udp"] >= 2001,
                     "the oversize datagram read")
    st = stats(d)
    assert st["dns_malformed"] - base["dns_malformed"] >= 1000, st
    assert rrs(ask(d, "www." + T)) == [("www.test.example.", "A", "192.0.2.80")]
    # A TCP client that stalls mid-length, and one mid-message: others answered.
    stall1, stall2 = tcp_conn(d), tcp_conn(d)
    stall1.sendall(b"\x00")
    stall2.sendall(b"\x00\x40" + b"\x12\x34")
    assert rrs(ask(d, "www." + T, tcp=True)) == [("www.test.example.", "A", "192.0.2.80")]
    stall1.close()
    stall2.close()


@test
def many_idle_connections_and_a_flood_from_one_source(env):
    proxy = env.proxy()
    d = env.daemon(proxy.port, conf="dns_tcp_clients = 64\ndns_max_pending_source = 50\n")
    idle = [tcp_conn(d) for _ in range(64)]
    nclib.wait_until(lambda: stats(d)["dns_tcp_connections"] == 64, "64 connections")
    ask(d, "www." + T)                              # cached for the hits below
    rss0 = nclib.rss_kib(d.proc.pid)
    # 127.0.0.3 floods misses that upstream holds: its share fills, the
    # rest get SERVFAIL at once; 127.0.0.1's hits are answered meanwhile.
    names = ["f%d.flood.%s" % (i, T) for i in range(200)]
    for n in names:
        proxy.hold(n)
    flood = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flood.bind(("127.0.0.3", 0))
    for i, n in enumerate(names):
        flood.sendto(query(n, "TXT").pack(), ("127.0.0.1", d.port))
        if i % 50 == 49:
            nclib.wait_until(lambda: stats(d)["dns_queries_udp"] >= i + 2, "the flood read")
    nclib.wait_until(lambda: stats(d)["dns_busy"] >= 150, "the flood's share full")
    assert stats(d)["dns_pending"] == 50, stats(d)
    servfail = 0
    flood.settimeout(nclib.HUNG_SEC)
    for _ in range(150):
        servfail += DNSRecord.parse(flood.recv(4096)).header.rcode == 2
    assert servfail == 150
    for _ in range(20):
        assert rrs(ask(d, "www." + T)) == [("www.test.example.", "A", "192.0.2.80")]
    proxy.release()
    nclib.wait_until(lambda: stats(d)["dns_pending"] == 0, "the held queries answered")
    # Memory stays bounded: far below what 400 queries could keep.
    assert nclib.rss_kib(d.proc.pid) - rss0 < 32 * 1024, (rss0, nclib.rss_kib(d.proc.pid))
    flood.close()
    for s in idle:
        s.close()


@test
def statistics_count_transports_types_rcodes(env):
    d = env.daemon(env.proxy().port)
    ask(d, "www." + T)
    ask(d, "www." + T, "AAAA", tcp=True)
    ask(d, "nope." + T, "MX")
    ask(d, "5.2.0.192.in-addr.arpa", "PTR")
    st = stats(d)
    assert st["dns_queries_udp"] == 3 and st["dns_queries_tcp"] == 1, st
    assert (st["dns_type_a"], st["dns_type_aaaa"], st["dns_type_mx"], st["dns_type_ptr"]) == \
        (1, 1, 1, 1), st
    assert st["dns_rcode_noerror"] == 3 and st["dns_rcode_nxdomain"] == 1, st
    status = d.ctl_json("status")
    assert status["dns_listen"] == "udp 127.0.0.1:%d, tcp 127.0.0.1:%d" % (d.port, d.port), status
    assert status["dns_allow"] == "loopback", status
    d.ctl("reset-statistics")
    assert stats(d)["dns_queries_udp"] == 0


@test
def upstream_that_is_the_listener_is_named_in_the_log(env):
    d_dir = os.path.join(env.tmp, "self")
    os.mkdir(d_dir)
    port = dnsenv.free_port(("127.0.0.1",))
    d = nclib.Daemon(BUILD, d_dir, HOSTS, args=["--dns-listen", "127.0.0.1:%d" % port],
                     upstream="127.0.0.1:%d" % port)
    d.port = port
    env.daemons.append(d)
    d.start()
    assert "upstream 127.0.0.1:%d is this daemon's own listener" % port in d.read_log()
    # Its hosts names are still answered; the rest fails at once, not in a loop.
    assert rrs(ask(d, "hostsname.lan")) == [("hostsname.lan.", "A", "192.0.2.5")]
    assert ask(d, "loop." + T, "MX").header.rcode == 2
    assert stats(d)["dns_pending"] == 0


def main():
    # Loopback ports only: no root needed.  Many connections: descriptors.
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))

    def set_build(b):
        global BUILD
        BUILD = b

    return nclib.run_tests(TESTS, Env, "nc-dnslisten-", set_build)


if __name__ == "__main__":
    sys.exit(main())
