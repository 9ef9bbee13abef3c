#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/dns/test_dnsenv.py - self-tests of dnsenv.py: nsd, the zones, the
counting proxy, the fault server and in-netns.sh.  Loopback only.

    /usr/bin/python3 tests/dns/test_dnsenv.py [-k SUBSTRING]

Needs nsd and python3-dnslib (apt-get install -y nsd python3-dnslib), and
root for the network-namespace tests.  Ends with "N passed, N failed".
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dnsenv  # noqa: E402
from dnsenv import query, rr_key, rec_key, qtype_name  # noqa: E402
import dnslib  # noqa: E402

TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


class Env:
    """One nsd, one proxy in front of it and one fault server for all tests."""

    def __init__(self, tmp):
        self.nsd = dnsenv.Nsd(os.path.join(tmp, "nsd"))
        self.proxy = dnsenv.CountingProxy(self.nsd.port)
        self.fault = dnsenv.FaultServer()

    def stop(self):
        self.fault.stop()
        self.proxy.stop()
        self.nsd.stop()


def eq(a, b, what=""):
    if a != b:
        raise AssertionError("%s: %r != %r" % (what, a, b))


def keys(rrs):
    return sorted(rr_key(r) for r in rrs)


def section_types(r):
    return [qtype_name(x.rtype) for x in r.rr]


def timed(fn, *a, **kw):
    t0 = time.monotonic()
    try:
        out = fn(*a, **kw)
    except Exception as e:  # noqa: BLE001 - returned for the caller to judge
        out = e
    return out, time.monotonic() - t0


def in_thread(fn, *a, **kw):
    box = {}

    def run():
        box["result"], box["elapsed"] = timed(fn, *a, **kw)
    th = threading.Thread(target=run)
    th.start()
    return th, box


def assert_soa(auth, zone, ttl, minimum, what):
    soas = [a for a in auth if a.rtype == dnslib.QTYPE.SOA]
    eq(len(soas), 1, what + " SOA count")
    s = soas[0]
    eq(dnsenv.norm(s.rname), zone, what + " SOA owner")
    eq(s.ttl, ttl, what + " SOA TTL")
    eq(s.rdata.times[-1], minimum, what + " SOA MINIMUM")


# ---------------------------------------------------------------- the zones

@test
def zones_answer_as_declared(env):
    """Every (name, type) in every zone, with its TTLs, over UDP and ::1 and TCP."""
    n = 0
    for z in dnsenv.ZONES:
        pairs = sorted({(r.name, r.rtype) for r in z.all_records()})
        for name, rtype in pairs:
            tcp = name.startswith("many.")
            r = query(env.nsd.port, name, rtype, tcp=tcp, payload=1232)
            what = "%s %s" % (name, rtype)
            eq(r.header.rcode, 0, what + " rcode")
            eq(r.header.aa, 1, what + " aa")
            eq(r.header.tc, 0, what + " tc")
            eq(keys(r.rr), sorted(rec_key(x) for x in dnsenv.resolve(name, rtype)), what)
            eq(keys(r.rr), sorted(rec_key(x) for x in dnsenv.rrset(name, rtype)), what + " rrset")
            n += 1
    # The same over ::1 and over TCP, for a few.
    for host in dnsenv.LOOPBACK:
        for tcp in (False, True):
            r = query(env.nsd.port, "www.test.example", "AAAA", tcp=tcp, host=host)
            eq([rdata for _, _, _, rdata in keys(r.rr)], ["2001:db8::80"], "www AAAA %s %s" % (host, tcp))
    print("  %d RRsets checked" % n)


@test
def declared_values(env):
    """The constants say what the brief asks for."""
    a = dnsenv.answer_ttl
    eq(a("ttl10.test.example", "A"), 10, "ttl10")
    eq(a("ttl300.test.example", "A"), 300, "ttl300")
    eq(a("ttl3600.test.example", "A"), 3600, "ttl3600 A")
    eq(a("ttl3600.test.example", "AAAA"), 1800, "ttl3600 AAAA")
    eq(a("alias1.test.example", "A"), 400, "chain minimum is the middle link")
    eq(a("alias1.test.example", "AAAA"), 400, "chain AAAA")
    eq(a("alias2.test.example", "A"), 400, "alias2")
    eq(a("target.test.example", "A"), 600, "target A")
    eq(a("target.test.example", "AAAA"), 700, "target AAAA")
    eq(dnsenv.addresses("www.test.example"), ["192.0.2.80", "2001:db8::80"], "www")
    eq(dnsenv.addresses("alias1.test.example"), ["192.0.2.20", "2001:db8::20"], "alias1")
    eq(dnsenv.addresses("v6only.test.example"), ["2001:db8::6"], "v6only")
    eq(dnsenv.addresses("v4only.test.example"), ["192.0.2.4"], "v4only")
    eq(dnsenv.addresses("nodata.test.example"), [], "nodata")
    eq(len(dnsenv.addresses("many.test.example", socket.AF_INET)), 150, "many")
    eq(dnsenv.TEST_ZONE.negative_ttl, 120, "test.example negative TTL (SOA TTL)")
    eq(dnsenv.NEG_ZONE.negative_ttl, 60, "neg.example negative TTL (MINIMUM)")
    eq((dnsenv.TEST_ZONE.soa.ttl, dnsenv.TEST_ZONE.soa.minimum), (120, 300), "test SOA")
    eq((dnsenv.NEG_ZONE.soa.ttl, dnsenv.NEG_ZONE.soa.minimum), (900, 60), "neg SOA")
    for r in dnsenv.TEST_ZONE.all_records() + dnsenv.NEG_ZONE.all_records() + \
            dnsenv.REV4_ZONE.records + dnsenv.REV6_ZONE.records:
        if r.rtype in ("A", "AAAA"):
            ip = dnsenv.ipaddress.ip_address(r.rdata)
            ok = any(ip in dnsenv.ipaddress.ip_network(n) for n in
                     ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32"))
            assert ok, "not a documentation address: %s" % (r,)


@test
def reverse_zones(env):
    for addr, name in (("192.0.2.10", "ttl10.test.example."), ("192.0.2.20", "target.test.example."),
                       ("2001:db8::20", "target.test.example.")):
        ptr = dnsenv.ipaddress.ip_address(addr).reverse_pointer
        r = query(env.nsd.port, ptr, "PTR")
        eq([str(x.rdata) for x in r.rr], [name], ptr)
        eq(r.rr[0].ttl, 3600, ptr + " TTL")
    r = query(env.nsd.port, "99.2.0.192.in-addr.arpa", "PTR")
    eq(r.header.rcode, 3, "unknown PTR is NXDOMAIN")


@test
def nxdomain_carries_soa(env):
    for z in (dnsenv.TEST_ZONE, dnsenv.NEG_ZONE, dnsenv.REV4_ZONE):
        name = "no-such-name." + z.origin
        r = query(env.nsd.port, name, "A")
        eq(r.header.rcode, 3, name + " rcode")
        eq(r.rr, [], name + " answer")
        # nsd itself lowers the SOA TTL to min(TTL, MINIMUM).
        assert_soa(r.auth, z.origin, dnsenv.NSD_NEGATIVE_SOA_TTL[z.origin], z.soa.minimum, name)
        eq(min(r.auth[0].ttl, r.auth[0].rdata.times[-1]), dnsenv.negative_ttl(name), name + " min()")
    # A CNAME into nothing: the CNAME, then NXDOMAIN with the SOA.
    r = query(env.nsd.port, "dangling.test.example", "A")
    eq(r.header.rcode, 3, "dangling rcode")
    eq(section_types(r), ["CNAME"], "dangling answer")
    assert_soa(r.auth, "test.example.", 120, 300, "dangling")


@test
def nodata_carries_soa(env):
    for name, qt, z in (("nodata.test.example.", "A", dnsenv.TEST_ZONE),
                        ("nodata.test.example.", "AAAA", dnsenv.TEST_ZONE),
                        ("v6only.test.example.", "A", dnsenv.TEST_ZONE),
                        ("v4only.test.example.", "AAAA", dnsenv.TEST_ZONE),
                        ("host.neg.example.", "AAAA", dnsenv.NEG_ZONE)):
        r = query(env.nsd.port, name, qt)
        eq(r.header.rcode, 0, name + " rcode")
        eq(r.rr, [], name + " answer")
        eq(dnsenv.resolve(name, qt), [], name + " declared empty")
        assert_soa(r.auth, z.origin, dnsenv.NSD_NEGATIVE_SOA_TTL[z.origin], z.soa.minimum, name)


@test
def many_truncates_over_udp(env):
    for payload in (None, 1232):
        r = query(env.nsd.port, "many.test.example", "A", payload=payload)
        eq(r.header.tc, 1, "TC with payload %s" % payload)
    for host in dnsenv.LOOPBACK:
        r = query(env.nsd.port, "many.test.example", "A", tcp=True, payload=1232, host=host)
        eq(r.header.tc, 0, "TCP not truncated")
        got = sorted(str(x.rdata) for x in r.rr)
        eq(got, sorted("198.51.100.%d" % i for i in range(150)), "150 addresses over TCP " + host)


# ---------------------------------------------------------------- the proxy

@test
def proxy_counts_exactly(env):
    p = env.proxy
    p.reset()
    sent = [("www.test.example", "A", False), ("www.test.example", "AAAA", False),
            ("WWW.Test.Example", "A", True), ("alias1.test.example", "A", False),
            ("nope.test.example", "A", False), ("mx.test.example", "MX", True),
            ("ttl10.test.example", "A", False), ("ttl10.test.example", "A", False)]
    for name, qt, tcp in sent:
        direct = query(env.nsd.port, name, qt, tcp=tcp)
        via = query(p.port, name, qt, tcp=tcp)
        eq((via.header.rcode, keys(via.rr), keys(via.auth)),
           (direct.header.rcode, keys(direct.rr), keys(direct.auth)), "relay of %s %s" % (name, qt))
    c = p.counts()
    eq(c, {("www.test.example.", "A"): 2, ("www.test.example.", "AAAA"): 1,
           ("alias1.test.example.", "A"): 1, ("nope.test.example.", "A"): 1,
           ("mx.test.example.", "MX"): 1, ("ttl10.test.example.", "A"): 2}, "counts")
    eq(p.total(), len(sent), "total")
    eq(p.transports(), {"udp": 6, "tcp": 2}, "per transport")
    eq(p.count("www.test.example", "A", transport="tcp"), 1, "www A over TCP")
    eq(p.count("WWW.TEST.EXAMPLE."), 3, "any type, case-blind")
    eq(p.counts("tcp"), {("www.test.example.", "A"): 1, ("mx.test.example.", "MX"): 1}, "tcp counts")
    c[("x.", "A")] = 9
    assert ("x.", "A") not in p.counts(), "counts() must be a copy"
    # The truncation dance through the proxy: one UDP, then one TCP.
    p.reset()
    eq(query(p.port, "many.test.example", "A", payload=1232).header.tc, 1, "tc via proxy")
    eq(len(query(p.port, "many.test.example", "A", tcp=True).rr), 150, "150 via proxy TCP")
    eq(p.counts("udp"), {("many.test.example.", "A"): 1}, "many udp")
    eq(p.counts("tcp"), {("many.test.example.", "A"): 1}, "many tcp")
    p.reset()
    eq((p.total(), p.counts()), (0, {}), "reset")


# A delay no query here waits out: a query's own timeout (HUNG) ends first,
# so a query delayed by mistake fails; the test ends each delay with cut()
# once it has seen what it wanted meanwhile.  Orderings, not durations.
HUNG = 30
LONG = 2 * HUNG


def delayed_meanwhile(srv, slow, fast, tcp, qtype="A", fast_qtype="A"):
    """Asks slow (delayed by LONG) in a thread, then fast once slow has
    arrived: fast is answered while slow waits; after cut(), slow is
    answered.  Returns slow's reply."""
    tr = "tcp" if tcp else "udp"
    n = srv.count(slow, qtype, tr) + 1
    mark = len(srv.events())
    th, box = in_thread(query, srv.port, slow, qtype, tcp=tcp, timeout=HUNG)
    try:
        wait = time.monotonic() + HUNG
        while srv.count(slow, qtype, tr) < n:
            assert time.monotonic() < wait, "hung: the delayed query never arrived"
            time.sleep(0.005)
        r = query(srv.port, fast, fast_qtype, tcp=tcp, timeout=HUNG)
        assert not isinstance(r, Exception), r
        assert th.is_alive(), "the delayed reply came before the cut"
    finally:
        srv.cut()
    th.join()
    assert not isinstance(box["result"], Exception), box["result"]
    ev = [e for e in srv.events()[mark:] if e[0] == "cut" or e[3] == tr]
    want = [("reply", dnsenv.norm(fast), fast_qtype, tr), ("cut",),
            ("reply", dnsenv.norm(slow), qtype, tr)]
    eq(ev, want, "replies in order: the undelayed one, the cut, the delayed one")
    return box["result"]


@test
def proxy_delay_does_not_block_others(env):
    p = env.proxy
    p.reset()
    p.set_delay("ttl10.test.example", LONG)
    try:
        for tcp in (False, True):
            r = delayed_meanwhile(p, "ttl10.test.example", "www.test.example", tcp)
            eq([str(x.rdata) for x in r.rr], ["192.0.2.10"], "delayed answer")
        # Only the chosen type, when a type is given: A answered while the
        # AAAA waits (a delayed A would wait past its own timeout).
        p.set_delay("ttl10.test.example", None)
        p.set_delay("www.test.example", LONG, qtype="AAAA")
        delayed_meanwhile(p, "www.test.example", "www.test.example", False,
                          qtype="AAAA", fast_qtype="A")
    finally:
        p.clear()
    eq(p.total(), 6, "six queries counted")


@test
def proxy_blackhole(env):
    p = env.proxy
    p.reset()
    mark = len(p.events())
    p.set_blackhole(True)
    try:
        for tcp in (False, True):
            r, el = timed(query, p.port, "www.test.example", "A", tcp=tcp, timeout=0.4)
            assert isinstance(r, socket.timeout), "blackholed query answered: %r" % (r,)
        eq(p.total(), 2, "blackholed queries still counted")
        eq([e for e in p.events()[mark:] if e[0] == "reply" and e[1] == "www.test.example."], [],
           "no reply sent for a blackholed query")
        p.set_blackhole(False)
        p.set_blackhole(True, name="ttl10.test.example")
        r, _ = timed(query, p.port, "ttl10.test.example", "A", timeout=0.4)
        assert isinstance(r, socket.timeout), "name blackhole"
        eq(len(query(p.port, "www.test.example", "A").rr), 1, "other names pass")
    finally:
        p.clear()
    eq(len(query(p.port, "ttl10.test.example", "A").rr), 1, "cleared")


@test
def hold_until_released(env):
    """hold(name): counted on arrival, answered only once released; others pass."""
    for srv, name, want in ((env.proxy, "www.test.example", "192.0.2.80"),
                            (env.fault, "held.fault.example", "192.0.2.1")):
        srv.reset()
        srv.hold(name)
        try:
            for tcp in (False, True):
                n = srv.total() + 1
                th, box = in_thread(query, srv.port, name, "A", tcp=tcp, timeout=30)
                srv.wait_total(n, 30)
                eq(srv.count(name, "A"), 1 + tcp, "held query counted on arrival")
                r = query(srv.port, "other.fault.example" if srv is env.fault
                          else "target.test.example", "A", tcp=tcp, timeout=30)
                eq(len(r.rr) >= 1, True, "another name answered meanwhile")
                assert th.is_alive(), "held query answered before its release"
                if tcp:
                    srv.release(name)
                else:
                    srv.release()
                    srv.hold(name)
                th.join(30)
                assert not th.is_alive() and not isinstance(box["result"], Exception), box
                eq([str(x.rdata) for x in box["result"].rr], [want], "released answer")
        finally:
            srv.release()


# ---------------------------------------------------------------- the fault server

@test
def fault_answer(env):
    f = env.fault
    f.clear()
    f.reset()
    r = query(f.port, "anything.fault.example", "A")
    eq((r.header.rcode, keys(r.rr)), (0, [("anything.fault.example.", 60, "A", "192.0.2.1")]), "default")
    f.set("multi.fault.example", "answer", records=[
        ("A", 30, "192.0.2.7"), ("A", 20, "192.0.2.8"), ("AAAA", 40, "2001:db8::7"),
        "multi.fault.example. 50 IN MX 5 mx.fault.example."])
    r = query(f.port, "multi.fault.example", "A")
    eq(keys(r.rr), [("multi.fault.example.", 20, "A", "192.0.2.8"),
                    ("multi.fault.example.", 30, "A", "192.0.2.7")], "records A")
    r = query(f.port, "Multi.Fault.Example", "AAAA", tcp=True)
    eq(keys(r.rr), [("multi.fault.example.", 40, "AAAA", "2001:db8::7")], "records AAAA over TCP")
    eq(query(f.port, "multi.fault.example", "MX").rr[0].ttl, 50, "MX")
    f.set("chain.fault.example", "answer", records=[
        ("CNAME", 100, "end.fault.example."), ("end.fault.example.", "A", 50, "192.0.2.9")])
    eq(section_types(query(f.port, "chain.fault.example", "A")), ["CNAME", "A"], "chain")
    f.set("over.fault.example", "answer", ttl=7)
    eq(query(f.port, "over.fault.example", "AAAA").rr[0].ttl, 7, "ttl override")
    # Per type beats per name.
    f.set("split.fault.example", "answer")
    f.set("split.fault.example", "servfail", qtype="AAAA")
    eq(query(f.port, "split.fault.example", "A").header.rcode, 0, "split A")
    eq(query(f.port, "split.fault.example", "AAAA").header.rcode, 2, "split AAAA")
    f.set_default("refused")
    eq(query(f.port, "unset.fault.example", "A").header.rcode, 5, "set_default")
    f.clear()
    eq(query(f.port, "split.fault.example", "AAAA").header.rcode, 0, "clear")
    eq(f.total(), 10, "fault server counts")
    eq(f.transports(), {"udp": 9, "tcp": 1}, "fault transports")
    eq(f.count("split.fault.example"), 3, "per name")


@test
def fault_rcodes(env):
    f = env.fault
    f.set("sf.fault.example", "servfail")
    f.set("rf.fault.example", "refused")
    f.set("fe.fault.example", "rcode", rcode=1)
    for tcp in (False, True):
        eq(query(f.port, "sf.fault.example", "A", tcp=tcp).header.rcode, 2, "servfail")
        eq(query(f.port, "rf.fault.example", "A", tcp=tcp).header.rcode, 5, "refused")
        eq(query(f.port, "fe.fault.example", "A", tcp=tcp).header.rcode, 1, "formerr")
    r = query(f.port, "sf.fault.example", "A")
    eq((r.rr, r.auth), ([], []), "servfail is empty")


@test
def fault_negative(env):
    f = env.fault
    f.set("nx.fault.example", "nxdomain", soa_ttl=900, minimum=60)
    f.set("nx.other.example", "nxdomain", soa_ttl=120, minimum=300, zone="deep.other.example")
    f.set("nxbare.fault.example", "nxdomain", soa=False)
    f.set("nd.fault.example", "nodata", soa_ttl=30, minimum=3000)
    f.set("ndbare.fault.example", "nodata", soa=False)
    for tcp in (False, True):
        r = query(f.port, "nx.fault.example", "A", tcp=tcp)
        eq((r.header.rcode, r.rr), (3, []), "nxdomain")
        assert_soa(r.auth, "fault.example.", 900, 60, "nxdomain")
        r = query(f.port, "nx.other.example", "AAAA", tcp=tcp)
        assert_soa(r.auth, "deep.other.example.", 120, 300, "nxdomain zone=")
        r = query(f.port, "nxbare.fault.example", "A", tcp=tcp)
        eq((r.header.rcode, r.rr, r.auth), (3, [], []), "nxdomain without SOA")
        r = query(f.port, "nd.fault.example", "A", tcp=tcp)
        eq((r.header.rcode, r.rr), (0, []), "nodata")
        assert_soa(r.auth, "fault.example.", 30, 3000, "nodata")
        r = query(f.port, "ndbare.fault.example", "A", tcp=tcp)
        eq((r.header.rcode, r.rr, r.auth), (0, [], []), "nodata without SOA")


@test
def fault_timeout(env):
    f = env.fault
    f.reset()
    f.set("dead.fault.example", "timeout")
    for tcp in (False, True):
        r, el = timed(query, f.port, "dead.fault.example", "A", tcp=tcp, timeout=0.3)
        assert isinstance(r, socket.timeout), "timeout answered over %s: %r" % (tcp, r)
    eq(f.count("dead.fault.example", "A"), 2, "timeouts counted")
    eq([e for e in f.events() if e[0] == "reply" and e[1] == "dead.fault.example."], [],
       "no reply sent for a timeout")


@test
def fault_garbage(env):
    f = env.fault
    f.set("junk.fault.example", "garbage")
    f.set("junk2.fault.example", "garbage", size=300, keep_id=False, seed=1)
    for tcp in (False, True):
        q = dnsenv.make_query("junk.fault.example", "A")
        raw = query(f.port, "junk.fault.example", "A", tcp=tcp, raw=True)
        eq(len(raw), 64, "garbage size")
        try:
            dnslib.DNSRecord.parse(raw)
            raise AssertionError("garbage parsed")
        except dnslib.DNSError:
            pass
        raw2 = query(f.port, "junk2.fault.example", "A", tcp=tcp, raw=True)
        eq(len(raw2), 300, "garbage size param")
        eq(raw2, query(f.port, "junk2.fault.example", "A", tcp=tcp, raw=True), "seeded garbage is repeatable")
        del q


@test
def fault_wrong_id_and_name(env):
    f = env.fault
    f.set("wid.fault.example", "wrongid")
    f.set("wid2.fault.example", "wrongid", id=4242)
    f.set("wname.fault.example", "wrongname", other="elsewhere.fault.example")
    for tcp in (False, True):
        q = dnsenv.make_query("wid.fault.example", "A")
        with socket.create_connection(("127.0.0.1", f.port)) if tcp else \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(2)
            data = q.pack()
            if tcp:
                s.sendall(len(data).to_bytes(2, "big") + data)
                n = int.from_bytes(dnsenv._recv_exact(s, 2), "big")
                r = dnslib.DNSRecord.parse(dnsenv._recv_exact(s, n))
            else:
                s.sendto(data, ("127.0.0.1", f.port))
                r = dnslib.DNSRecord.parse(s.recv(65535))
        eq(r.header.id, (q.header.id + 1) & 0xffff, "wrongid id")
        eq(keys(r.rr), [("wid.fault.example.", 60, "A", "192.0.2.1")], "wrongid still answers")
        eq(query(f.port, "wid2.fault.example", "A", tcp=tcp).header.id, 4242, "wrongid id=")
        r = query(f.port, "wname.fault.example", "AAAA", tcp=tcp)
        eq(str(r.q.qname), "elsewhere.fault.example.", "wrongname question")
        eq(keys(r.rr), [("elsewhere.fault.example.", 60, "AAAA", "2001:db8::1")], "wrongname answer")


@test
def fault_truncated(env):
    f = env.fault
    f.reset()
    f.set("tc.fault.example", "truncated",
          records=[("A", 90, "203.0.113.%d" % i) for i in range(1, 4)])
    r = query(f.port, "tc.fault.example", "A", payload=1232)
    eq((r.header.tc, r.rr), (1, []), "UDP truncated and empty")
    r = query(f.port, "tc.fault.example", "A", tcp=True)
    eq(r.header.tc, 0, "TCP not truncated")
    eq(sorted(str(x.rdata) for x in r.rr), ["203.0.113.1", "203.0.113.2", "203.0.113.3"], "TCP answer")
    eq(f.counts("udp"), {("tc.fault.example.", "A"): 1}, "udp count")
    eq(f.counts("tcp"), {("tc.fault.example.", "A"): 1}, "tcp count")


@test
def fault_slow_does_not_block_others(env):
    f = env.fault
    f.set("slow.fault.example", "slow", delay=LONG)
    for tcp in (False, True):
        r = delayed_meanwhile(f, "slow.fault.example", "fast.fault.example", tcp)
        eq(len(r.rr), 1, "slow answers")


@test
def fault_ttls(env):
    f = env.fault
    f.set("zero.fault.example", "ttl0", records=[("A", 300, "192.0.2.5"), ("CNAME", 300, "x.fault.example.")])
    f.set("huge.fault.example", "ttlhuge")
    f.set("max.fault.example", "ttlhuge", ttl=2 ** 32 - 1)
    for tcp in (False, True):
        eq([x.ttl for x in query(f.port, "zero.fault.example", "A", tcp=tcp).rr], [0, 0], "ttl0")
        for name, ttl in (("huge.fault.example", 2 ** 31), ("max.fault.example", 2 ** 32 - 1)):
            raw = query(f.port, name, "AAAA", tcp=tcp, raw=True)
            r = dnslib.DNSRecord.parse(raw)
            eq([x.ttl for x in r.rr], [ttl], name)
            # On the wire: the 4 bytes after type and class of the only record.
            eq(raw[-(4 + 2 + 16):-(2 + 16)], ttl.to_bytes(4, "big"), name + " wire TTL")


@test
def fault_server_is_thread_safe(env):
    """Many clients at once while behaviours change: every query counted once."""
    f = env.fault
    f.reset()
    errors = []

    def client(i):
        for j in range(20):
            try:
                r = query(f.port, "c%d.fault.example" % (j % 5), "A", tcp=(i + j) % 3 == 0)
                assert r.header.rcode in (0, 2, 3)
            except Exception as e:  # noqa: BLE001
                errors.append(e)

    def flipper():
        for k in range(50):
            f.set("c%d.fault.example" % (k % 5), ("servfail", "answer", "nxdomain")[k % 3])
            time.sleep(0.002)
    ths = [threading.Thread(target=client, args=(i,)) for i in range(8)] + [threading.Thread(target=flipper)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    eq(errors, [], "errors")
    eq(f.total(), 160, "160 queries counted")
    f.clear()


# ---------------------------------------------------------------- network namespace

def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def netns(*cmd, **kw):
    return dnsenv.run_in_netns(list(cmd), capture_output=True, text=True, timeout=60, **kw)


@test
def netns_getent_reaches_test_zones(env):
    before = read_bytes("/etc/resolv.conf")
    script = ("cat /etc/resolv.conf; echo ==; getent -s dns ahosts www.test.example; echo ==; "
              "getent -s dns hosts www; echo ==; getent -s dns ahostsv4 alias1; getent -s dns hosts alias1; echo ==; "
              "getent -s dns hosts 192.0.2.20; echo ==; getent -s dns hosts no-such.test.example; "
              "echo rc=$?; echo ==; echo $DNSENV_NETNS $DNSENV_NSD_PORT; ip -o link | wc -l; echo ==; "
              "getent -s dns ahostsv6 v6only; echo ==; ip route; ip -6 route | grep -v '^local\\|^multicast'")
    p = netns("sh", "-c", script)
    eq(p.returncode, 0, "rc (stderr %s)" % p.stderr)
    parts = [x.strip() for x in p.stdout.split("==")]
    eq(parts[0].splitlines(), ["nameserver 127.0.0.1", "search test.example",
                               "options ndots:1 timeout:1 attempts:2"], "resolv.conf inside")
    ahosts = parts[1].splitlines()
    eq(sorted({line.split()[0] for line in ahosts}), ["192.0.2.80", "2001:db8::80"], "ahosts addresses")
    assert "www.test.example" in ahosts[0], "canonical name: %r" % ahosts
    assert parts[2].split()[1:] == ["www.test.example"] and parts[2].split()[0] in (
        "192.0.2.80", "2001:db8::80"), "hosts www via search list: %r" % parts[2]
    lines = parts[3].splitlines()
    eq(sorted({line.split()[0] for line in lines[:-1]}), ["192.0.2.20"], "alias1 ahostsv4")
    eq(lines[0].split()[2:], ["target.test.example"], "alias1 canonical name")
    eq(lines[-1].split()[1:], ["target.test.example", "alias1.test.example", "alias2.test.example"],
       "hosts alias1: canonical name and aliases")
    eq(parts[4].split(), ["192.0.2.20", "target.test.example"], "PTR")
    eq(parts[5], "rc=2", "unknown name")
    eq(parts[6].split(), ["1", "53", "1"], "env and a lone lo")
    eq(sorted({line.split()[0] for line in parts[7].splitlines()}), ["2001:db8::6"], "ahostsv6")
    for line in parts[8].splitlines():
        assert "default" not in line and " via " not in line, "a route out: %r" % line
    eq(read_bytes("/etc/resolv.conf"), before, "real resolv.conf untouched")


@test
def netns_options_and_exit_status(env):
    with tempfile.TemporaryDirectory() as tmp:
        zf = os.path.join(tmp, "extra.zone")
        with open(zf, "w") as fh:
            fh.write("$ORIGIN extra.example.\n@ 300 IN SOA ns1 hm 1 3600 600 86400 60\n"
                     "@ 300 IN NS ns1\nns1 300 IN A 192.0.2.53\nhost 300 IN A 203.0.113.7\n")
        p = netns("sh", "-c", "cat /etc/resolv.conf; getent -s dns hosts host; exit 3",
                  search="extra.example", options="ndots:2", zones=[("extra.example", zf)])
    eq(p.returncode, 3, "exit status passes through (stderr %s)" % p.stderr)
    lines = p.stdout.splitlines()
    eq(lines[:3], ["nameserver 127.0.0.1", "search extra.example", "options ndots:2"], "options")
    eq(lines[3].split(), ["203.0.113.7", "host.extra.example"], "extra zone via search")
    p = netns("true", nsd=False)
    eq(p.returncode, 0, "--no-nsd")
    # Without the extra addresses on lo, AI_ADDRCONFIG refuses AF_INET.
    p = netns("sh", "-c", "getent -s dns ahostsv4 www; echo $?; getent -s dns ahosts www | wc -l;"
              " echo $DNSENV_DIR", addresses=False)
    out = p.stdout.split()
    eq(out[:2], ["2", "6"], "--no-addresses")
    mounts = read_bytes("/proc/self/mountinfo").decode()
    assert "dnsenv-netns" not in mounts, "bind mount leaked into this namespace"
    # Its own folder, not others': other tests may be in a namespace right now.
    assert len(out) == 3 and out[2].startswith(tempfile.gettempdir()), out
    assert not os.path.exists(out[2]), "temporary folder left behind: %s" % out[2]


@test
def nsd_reports_a_taken_port(env):
    with tempfile.TemporaryDirectory() as tmp:
        try:
            dnsenv.Nsd(tmp, port=env.nsd.port, timeout=3)
            raise AssertionError("a second nsd on a taken port started")
        except RuntimeError as e:
            assert "in use" in str(e), e
        # Without a fixed port it finds its own, and a restart works.
        n = dnsenv.Nsd(tmp)
        try:
            assert n.port != env.nsd.port
            n.stop()
            n.start()
            eq(query(n.port, "www.test.example", "A").rr[0].ttl, 300, "restarted nsd")
        finally:
            n.stop()


@test
def free_port_is_free(env):
    ports = {dnsenv.free_port() for _ in range(5)}
    for port in ports:
        assert port != 53
        for host in dnsenv.LOOPBACK:
            for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
                with socket.socket(dnsenv._family(host), kind) as s:
                    s.bind((host, port))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", help="run only tests whose name contains this")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root (network namespaces); run as root")
        return 1
    t_all = time.monotonic()
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="dnsenv-test-") as tmp:
        t0 = time.monotonic()
        env = Env(tmp)
        print("setup: nsd on port %d, proxy on %d, fault server on %d (%.2f s)" % (
            env.nsd.port, env.proxy.port, env.fault.port, time.monotonic() - t0))
        try:
            for fn in TESTS:
                if args.k and args.k not in fn.__name__:
                    continue
                t0 = time.monotonic()
                try:
                    fn(env)
                    passed += 1
                    print("ok   %s (%.2f s)" % (fn.__name__, time.monotonic() - t0))
                except Exception:
                    failed += 1
                    print("FAIL %s (%.2f s)" % (fn.__name__, time.monotonic() - t0))
                    traceback.print_exc()
                    print("---- nsd log (tail) ----\n" + "\n".join(env.nsd.log().splitlines()[-20:]))
                finally:
                    env.proxy.clear()
                    env.fault.clear()
        finally:
            env.stop()
    print("total %.2f s" % (time.monotonic() - t_all))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
