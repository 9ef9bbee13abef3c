#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/integration/test_dns.py - namecached's DNS side end to end: answers, cache, failures.

Every test starts its own servers (nsd, a counting proxy, a fault server;
tests/dns/dnsenv.py) on 127.0.0.1 and its own daemon, which is always
given a resolv.conf written here and --upstream 127.0.0.1:PORT, so no
packet ever leaves loopback.  Lookups go through the real CLI
(namecachectl --json) and, where many must be in flight at once, through
raw protocol frames.  Queries are counted at the proxy or fault server.

No test here waits out a TTL: expiry, failure_ttl, serve-stale
and prefetch are the engine's, on a fake clock (tests/unit/test-engine.c;
TTL-CASES.md).  Where a test needs a query pending, the upstream holds it
(dnsenv's hold/release); it waits on counters and status, with a deadline
that means "hung".

Run: /usr/bin/python3 tests/integration/test_dns.py --build BUILD [-k NAME]
"""
import ipaddress
import json
import math
import os
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import nclib  # noqa: E402
from nclib import (LOOKUP_NAME, OK, NOTFOUND, NODATA, TRYAGAIN,  # noqa: E402
                   name_req, parse_answer, read_frame, recv_exact)
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import dnsenv  # noqa: E402

BUILD = None
TESTS = []

T = dnsenv.TEST_ZONE.origin.rstrip(".")        # "test.example"
# glibc's options: the daemon reads timeout: and attempts: itself (c-ares
# 1.18 does not), see resolv_conf_timeout_and_attempts.
OPTIONS = "timeout:1 attempts:1"


def test(fn):
    TESTS.append(fn)
    return fn


def fqdn(name):
    return name if name.endswith(T) or "." in name else "%s.%s" % (name, T)


def rel(name):
    return name.rstrip(".")


# --- environment --------------------------------------------------------------

class Env:
    """What one test started: servers and daemons, all stopped by the runner."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.servers = []
        self.daemons = []

    def nsd(self, **kw):
        s = dnsenv.Nsd(os.path.join(self.tmp, "nsd%d" % len(self.servers)), **kw)
        self.servers.append(s)
        return s

    def proxy(self, port):
        s = dnsenv.CountingProxy(port)
        self.servers.append(s)
        return s

    def fault(self):
        s = dnsenv.FaultServer()
        self.servers.append(s)
        return s

    def nsd_proxy(self):
        return self.proxy(self.nsd().port)

    def daemon(self, upstream_port, conf="", search=None, options=OPTIONS, hosts=None,
               nameserver="127.0.0.1", upstream=True):
        """A started daemon in its own folder, with its own resolv.conf."""
        d_dir = os.path.join(self.tmp, "d%d" % len(self.daemons))
        os.mkdir(d_dir)
        resolv = os.path.join(d_dir, "resolv.conf")
        write_resolv(resolv, search=search, options=options, nameserver=nameserver)
        args = ["--log-level", "debug"]
        if not upstream:
            # Nothing but loopback may be named in a test's resolv.conf.
            assert all(ns.startswith("127.") or ns == "::1" for ns in nameserver.split())
        d = DnsDaemon(d_dir, hosts if hosts is not None else "127.0.0.1 localhost\n",
                      conf_text=conf, args=args, resolv=resolv,
                      upstream="127.0.0.1:%d" % upstream_port if upstream else False)
        self.daemons.append(d)
        d.start()
        st = d.ctl_json("status")
        if upstream:
            assert st["dns_servers"] == "127.0.0.1:%d" % upstream_port, st
        if search is None:
            # Names are tried as given: no search domain from the host's name.
            assert st["dns_search"] == "", ("unexpected search list", st["dns_search"])
        return d


def write_resolv(path, search=None, options=OPTIONS, nameserver="127.0.0.1", rename=False):
    text = "".join("nameserver %s\n" % ns for ns in nameserver.split())
    if search:
        text += "search %s\n" % search
    if options:
        text += "options %s\n" % options
    if rename:
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.rename(path + ".tmp", path)
    else:
        with open(path, "w") as f:
            f.write(text)


class DnsDaemon(nclib.Daemon):
    """One namecached with the test's own resolv.conf and upstream, plus helpers."""

    def __init__(self, tmp, hosts_text, conf_text="", args=(), resolv=None, upstream=None):
        super().__init__(BUILD, tmp, hosts_text, conf_text, args, resolv=resolv,
                         upstream=upstream)

    def query(self, *args):
        """namecachectl --json query ARGS: (exit status, the JSON object or None)."""
        r = self.ctl("--json", "query", *args)
        try:
            j = json.loads(r.stdout)
        except ValueError:
            j = None
        assert r.returncode in (0, 1) and j is not None, (args, r.returncode, r.stdout, r.stderr)
        return r.returncode, j

    def ok(self, *args):
        rc, j = self.query(*args)
        assert rc == 0 and j.get("status") == "ok", (args, rc, j)
        return j

    def fails(self, *args, status=None):
        rc, j = self.query(*args)
        assert rc == 1, (args, "should fail", rc, j)
        if status:
            assert j["status"] == status, (args, "status", status, j)
        return j

    def stats(self):
        return self.ctl_json("statistics")

    def status(self):
        return self.ctl_json("status")

    def cache(self):
        return self.ctl_json("show-cache")

    def entries(self, name, kind=None):
        return [e for e in self.cache() if e["name"] == name and (kind is None or e["kind"] == kind)]


def connect(d):
    return nclib.connect(d)


def zone_addrs(name, family=None):
    return dnsenv.addresses(fqdn(name), family)


AF4, AF6 = socket.AF_INET, socket.AF_INET6


# --- 1. answers equal the zone ------------------------------------------------

@test
def answers_equal_the_zone(env):
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port)
    # One family, then both: A first, then AAAA, in the zone's order.
    j = d.ok("-4", "multi." + T)
    assert j["addresses"] == zone_addrs("multi", AF4) and len(j["addresses"]) == 3, j
    j = d.ok("-6", "multi." + T)
    assert j["addresses"] == zone_addrs("multi", AF6) and len(j["addresses"]) == 2, j
    j = d.ok("multi." + T)
    assert j["addresses"] == zone_addrs("multi"), j
    assert j["canonical"] == "multi." + T and j["aliases"] == [], j
    j = d.ok("ttl3600." + T)
    assert j["addresses"] == ["192.0.2.36", "2001:db8::36"] == zone_addrs("ttl3600"), j
    # The CNAME chain: canonical is its end, aliases the links in order.
    for args in ((), ("-4",), ("-6",)):
        j = d.ok(*(args + ("alias1." + T,)))
        fam = {(): None, ("-4",): AF4, ("-6",): AF6}[args]
        assert j["addresses"] == zone_addrs("alias1", fam), (args, j)
        assert j["canonical"] == "target." + T, j
        assert j["aliases"] == ["alias1." + T, "alias2." + T], j
    # Families a name lacks.
    j = d.ok("v4only." + T)
    assert j["addresses"] == zone_addrs("v4only") == ["192.0.2.4"], j
    d.fails("-6", "v4only." + T, status="nodata")
    j = d.ok("v6only." + T)
    assert j["addresses"] == zone_addrs("v6only") == ["2001:db8::6"], j
    d.fails("-4", "v6only." + T, status="nodata")
    d.fails("nodata." + T, status="nodata")
    d.fails("nothere." + T, status="notfound")
    # 150 addresses: truncated over UDP, so asked again over TCP.
    j = d.ok("-4", "many." + T)
    assert j["addresses"] == zone_addrs("many", AF4), j
    assert len(j["addresses"]) == dnsenv.MANY_COUNT, len(j["addresses"])
    assert proxy.count("many." + T, "A", transport="tcp") >= 1, proxy.counts()
    # Reverse lookups, v4 and v6.
    for addr, want in (("192.0.2.20", "target." + T), ("192.0.2.10", "ttl10." + T),
                       ("2001:db8::20", "target." + T)):
        rev = dnsenv.rrset(ipaddress.ip_address(addr).reverse_pointer, "PTR")
        assert rel(rev[0].rdata) == want
        j = d.ok(addr)
        assert j["canonical"] == want and j["addresses"] == [addr], (addr, j)
    d.fails("192.0.2.99", status="notfound")


@test
def record_queries_equal_the_zone(env):
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port)
    for qtype, name in (("MX", "mx." + T), ("SRV", "srv._tcp." + T), ("TXT", "txt." + T),
                        ("CAA", "caa." + T), ("SOA", T), ("NS", T), ("CNAME", "alias1." + T),
                        ("A", "multi." + T), ("AAAA", "www." + T), ("PTR",
                        "20.2.0.192.in-addr.arpa")):
        j = d.ok("-t", qtype, name)
        want = dnsenv.rrset(name, qtype)
        assert want, (qtype, name)
        got = [(dnsenv.norm(r["name"]), r["type"], r["ttl"], r["data"]) for r in j["records"]]
        exp = [(r.name, r.rtype, r.ttl, r.rdata) for r in want]
        assert got == exp, (qtype, name, got, exp)
        assert j["ttl"] == min(r.ttl for r in want), (qtype, j)
        assert j["source"] == "dns", j
        j2 = d.ok("-t", qtype, name)
        assert j2["source"] == "cache", j2
        assert [r["data"] for r in j2["records"]] == [r["data"] for r in j["records"]], (j, j2)
    # A type through a CNAME: the chain, then the records.
    j = d.ok("-t", "A", "alias1." + T)
    got = [(dnsenv.norm(r["name"]), r["type"], r["data"]) for r in j["records"]]
    exp = [(r.name, r.rtype, r.rdata) for r in dnsenv.resolve("alias1." + T, "A")]
    assert got == exp, (got, exp)
    assert j["ttl"] == dnsenv.answer_ttl("alias1." + T, "A"), j
    d.fails("-t", "MX", "www." + T, status="nodata")
    d.fails("-t", "MX", "nothere." + T, status="notfound")


# --- 2. TTLs ------------------------------------------------------------------

@test
def ttl_is_the_zone_ttl(env):
    """The TTL of an answer is the zone's (a chain's minimum), in the cache too."""
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port)
    cases = [((), "alias1"), (("-4",), "alias1"), (("-6",), "alias1"), (("-4",), "target"),
             (("-6",), "target"), ((), "ttl3600"), (("-4",), "ttl300"), (("-6",), "ttl3600")]
    start = time.monotonic()
    for args, name in cases:
        n = fqdn(name)
        types = {("-4",): ["A"], ("-6",): ["AAAA"], (): ["A", "AAAA"]}[args]
        want = min(dnsenv.answer_ttl(n, t) for t in types)
        j = d.ok(*(args + (n,)))
        if j["source"] == "dns":
            assert j["ttl"] == want, (args, n, j, want)
        else:   # an earlier lookup of both families stored it since start
            left = want - math.ceil(time.monotonic() - start)
            assert j["source"] == "cache" and left <= j["ttl"] <= want, (args, n, j, want)
        if args == () and name == "alias1":
            assert want == 400, want                     # the chain's minimum
    # The cache keeps the same TTLs.
    for e in d.cache():
        if e["kind"] in ("A", "AAAA") and e["status"] == "answer":
            want = dnsenv.answer_ttl(e["name"], e["kind"])
            assert want - math.ceil(time.monotonic() - start) <= e["ttl"] <= want, e


@test
def ttl_clamps(env):
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port, conf="min_ttl = 500\nmax_ttl = 1000\n")
    start = time.monotonic()
    assert d.ok("-4", "ttl300." + T)["ttl"] == 500
    assert d.ok("-4", "ttl10." + T)["ttl"] == 500
    assert d.ok("-4", "alias1." + T)["ttl"] == 500            # 400 raised
    assert d.ok("-4", "target." + T)["ttl"] == 600            # inside: kept
    assert d.ok("-4", "ttl3600." + T)["ttl"] == 1000
    assert d.ok("-6", "ttl3600." + T)["ttl"] == 1000          # 1800 lowered
    want = {"ttl300." + T: 500, "ttl10." + T: 500, "alias1." + T: 500, "target." + T: 600,
            "ttl3600." + T: 1000}
    for e in d.cache():
        if e["name"] in want and e["status"] == "answer":
            left = want[e["name"]] - math.ceil(time.monotonic() - start)
            assert left <= e["ttl"] <= want[e["name"]], e
    # The clamp decides how long the entry lives: ttl10 is not asked again
    # (whatever passed since it was stored, it was under its 500 s).
    before = proxy.count("ttl10." + T, "A")
    assert d.ok("-4", "ttl10." + T)["source"] == "cache"
    assert proxy.count("ttl10." + T, "A") == before


# --- 3. query counting ----------------------------------------------------------

@test
def second_lookup_within_ttl_sends_nothing(env):
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port)
    j = d.ok("www." + T)
    assert j["source"] == "dns", j
    assert proxy.count("www." + T, "A") == 1 and proxy.count("www." + T, "AAAA") == 1
    total = proxy.total()
    for args in ((), ("-4",), ("-6",), ()):
        j = d.ok(*(args + ("WWW." + T.upper(),)))
        assert j["source"] == "cache", j
    assert proxy.total() == total, proxy.counts()
    # The cache answers the same addresses.
    assert d.ok("www." + T)["addresses"] == zone_addrs("www")
    s = d.stats()
    assert s["cache_answers"] >= 5 and s["dns_answers"] == 1, s


@test
def concurrent_lookups_share_one_query(env):
    proxy = env.nsd_proxy()
    # The proxy holds the queries until every lookup has joined them:
    # c-ares's longest timeout, so that it waits that long.
    d = env.daemon(proxy.port, options="timeout:30 attempts:1")
    name = "www." + T
    proxy.hold(name)
    c0 = d.stats()["coalesced"]
    n = 200
    socks = [connect(d) for _ in range(n)]
    for i, s in enumerate(socks):
        s.sendall(name_req(name, family=0, fid=i + 1))
    # Each lookup after the first joins its A and AAAA queries.
    nclib.wait_until(lambda: d.stats()["coalesced"] - c0 >= 2 * (n - 1),
                     "the %d lookups joined to one query of each type" % n)
    proxy.release(name)
    for i, s in enumerate(socks):
        f = read_frame(s)
        assert f and f["status"] == OK and f["id"] == i + 1, (i, f)
        a = parse_answer(f["body"])
        assert a["addrs"] == zone_addrs("www"), a
        s.close()
    assert proxy.count(name, "A") == 1 and proxy.count(name, "AAAA") == 1, proxy.counts()
    c1 = d.stats()["coalesced"]
    assert c1 - c0 == 2 * (n - 1), (c0, c1)
    # Pipelined on one connection, one family: one query, n-1 coalesced.
    name = "multi." + T
    proxy.hold(name)
    s = connect(d)
    s.sendall(b"".join(name_req(name, family=4, fid=i + 1) for i in range(100)))
    nclib.wait_until(lambda: d.stats()["coalesced"] - c1 >= 99,
                     "the 100 pipelined lookups joined to one query")
    proxy.release(name)
    ids = set()
    for _ in range(100):
        f = read_frame(s)
        assert f and f["status"] == OK, f
        assert parse_answer(f["body"])["addrs"] == zone_addrs("multi", AF4)
        ids.add(f["id"])
    s.close()
    assert ids == set(range(1, 101))
    assert proxy.count(name, "A") == 1 and proxy.count(name, "AAAA") == 0, proxy.counts()
    assert d.stats()["coalesced"] - c1 == 99


# --- 4. negative caching --------------------------------------------------------

def neg_case(d, fs, name, behaviour, want_ttl, status, **params):
    fs.set(name, behaviour, **params)
    t0 = time.monotonic()
    d.fails("-4", name, status=status)
    assert fs.count(name, "A") == 1, fs.counts()
    es = d.entries(name, "A")
    want_status = {"notfound": "NXDOMAIN", "nodata": "NODATA"}[status]
    assert len(es) == 1 and es[0]["status"] == want_status, es
    left = want_ttl - math.ceil(time.monotonic() - t0)      # what is left of it now
    assert left <= es[0]["ttl"] <= want_ttl, (name, es, want_ttl)
    d.fails("-4", name, status=status)
    d.fails("-4", name.upper(), status=status)
    assert fs.count(name, "A") == 1, ("negative answer not cached", fs.counts())


@test
def negative_answers_cached_for_the_soa_ttl(env):
    fs = env.fault()
    d = env.daemon(fs.port)
    neg_case(d, fs, "nx1.fault.example", "nxdomain", 60, "notfound", soa_ttl=900, minimum=60)
    neg_case(d, fs, "nx2.fault.example", "nxdomain", 30, "notfound", soa_ttl=30, minimum=300)
    neg_case(d, fs, "nd1.fault.example", "nodata", 60, "nodata", soa_ttl=900, minimum=60)
    neg_case(d, fs, "nd2.fault.example", "nodata", 30, "nodata", soa_ttl=30, minimum=300)


@test
def negative_ttl_clamped_by_negative_max_ttl(env):
    fs = env.fault()
    d = env.daemon(fs.port, conf="negative_max_ttl = 10\n")
    neg_case(d, fs, "nx1.fault.example", "nxdomain", 10, "notfound", soa_ttl=900, minimum=60)
    neg_case(d, fs, "nd1.fault.example", "nodata", 10, "nodata", soa_ttl=30, minimum=300)
    neg_case(d, fs, "nx3.fault.example", "nxdomain", 5, "notfound", soa_ttl=5, minimum=300)


@test
def negative_answers_through_nsd(env):
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port)
    name = "nothere.neg.example"
    t0 = time.monotonic()
    d.fails("-4", name, status="notfound")
    es = d.entries(name, "A")
    ttl = dnsenv.negative_ttl(name)
    left = ttl - math.ceil(time.monotonic() - t0)
    assert ttl == 60 and len(es) == 1 and left <= es[0]["ttl"] <= ttl, es
    d.fails("-4", name, status="notfound")
    assert proxy.count(name, "A") == 1


@test
def negative_answers_without_soa_not_cached(env):
    fs = env.fault()
    d = env.daemon(fs.port)
    for name, beh, status in (("nx.fault.example", "nxdomain", "notfound"),
                              ("nd.fault.example", "nodata", "nodata")):
        fs.set(name, beh, soa=False)
        d.fails("-4", name, status=status)
        assert d.entries(name) == [], d.entries(name)
        d.fails("-4", name, status=status)
        assert fs.count(name, "A") == 2, ("cached without an SOA", fs.counts())


# --- 5. failures ----------------------------------------------------------------

def failure_remembered(d, fs, name, behaviour):
    """A failure, then the same name asked again within failure_ttl (an hour):
    the remembered failure answers, nothing is sent upstream."""
    fs.set(name, behaviour)
    s0 = d.stats()
    d.fails("-4", name, status="error")
    assert fs.count(name, "A") == 1, fs.counts()
    assert [e["status"] for e in d.entries(name, "A")] == ["failed"], d.entries(name)
    n = 3
    for _ in range(n):
        d.fails("-4", name, status="error")
    # Not waited for: no query went out for them, the memory answered.
    assert fs.count(name, "A") == 1, ("asked again within failure_ttl", fs.counts())
    s1 = d.stats()
    assert s1["failures_remembered"] - s0["failures_remembered"] == n, (n, s0, s1)
    assert s1["errors"] - s0["errors"] == n + 1, (s0, s1)
    assert s1["upstream_queries"] - s0["upstream_queries"] == 1, (s0, s1)
    return s0, s1


@test
def servfail_remembered(env):
    fs = env.fault()
    d = env.daemon(fs.port, conf="failure_ttl = 3600\n")
    s0, s1 = failure_remembered(d, fs, "sf.fault.example", "servfail")
    assert s1["upstream_failures"] - s0["upstream_failures"] == 1, (s0, s1)
    # REFUSED is a failure too, and so is a CNAME-less AF_UNSPEC half.
    fs.set("rf.fault.example", "refused")
    d.fails("-4", "rf.fault.example", status="error")
    fs.set("half.fault.example", "servfail", qtype="AAAA")
    j = d.ok("half.fault.example")
    assert j["addresses"] == ["192.0.2.1"], j


@test
def timeout_remembered(env):
    fs = env.fault()
    d = env.daemon(fs.port, conf="failure_ttl = 3600\n")
    s0, s1 = failure_remembered(d, fs, "to.fault.example", "timeout")
    assert s1["upstream_timeouts"] - s0["upstream_timeouts"] == 1, (s0, s1)


@test
def resolv_conf_timeout_and_attempts(env):
    """glibc's `options timeout:1 attempts:1` must be what the daemon uses."""
    fs = env.fault()
    slow = env.daemon(fs.port, options="timeout:30 attempts:1")
    d = env.daemon(fs.port, options="timeout:1 attempts:1")
    st = d.status()
    assert (st["dns_timeout_ms"], st["dns_attempts"]) == (1000, 1), \
        ("resolv.conf options ignored", st["dns_timeout_ms"], st["dns_attempts"])
    fs.set("to.fault.example", "timeout")
    fs.set("to30.fault.example", "timeout")
    # The same black hole asked first through a daemon told timeout:30: the
    # one told timeout:1 gives up first, however busy the machine (with
    # c-ares's own defaults both would wait alike, and the first first).
    s30 = connect(slow)
    s30.sendall(name_req("to30.fault.example", family=4))
    nclib.wait_until(lambda: fs.count("to30.fault.example") >= 1, "the first query upstream")
    s0 = d.stats()
    s = connect(d)
    s.settimeout(nclib.HUNG_SEC)
    s.sendall(name_req("to.fault.example", family=4))
    f = read_frame(s)
    s.close()
    assert f is not None and f["status"] == TRYAGAIN, f
    s30.setblocking(False)
    try:
        early = s30.recv(1)
    except BlockingIOError:
        early = None
    s30.close()
    assert early is None, ("timeout:1 gave up no sooner than timeout:30", early)
    # attempts:1: one query, which timed out.
    s1 = d.stats()
    assert fs.count("to.fault.example") == 1, fs.counts()
    assert s1["upstream_timeouts"] - s0["upstream_timeouts"] == 1, (s0, s1)


# --- 6. serve-stale -------------------------------------------------------------
# On a fake clock: tests/unit/test-engine.c (TTL-CASES.md, cases 7-10).

# --- 7. prefetch ----------------------------------------------------------------
# On a fake clock: tests/unit/test-engine.c (TTL-CASES.md, case 11).

# --- 8. hostile and garbled replies ---------------------------------------------

@test
def garbled_replies_rejected(env):
    fs = env.fault()
    d = env.daemon(fs.port, conf="failure_ttl = 1\n")
    cases = [("garbage.fault.example", "garbage", {}),
             ("garbage2.fault.example", "garbage", {"keep_id": False, "size": 512}),
             ("wrongid.fault.example", "wrongid", {}),
             ("wrongname.fault.example", "wrongname", {"other": "victim.fault.example."}),
             ("formerr.fault.example", "rcode", {"rcode": 1}),
             ("notimp.fault.example", "rcode", {"rcode": 4})]
    s0 = d.stats()
    results = {}

    def one(name):
        results[name] = d.query("-4", name)

    threads = []
    for name, beh, params in cases:
        fs.set(name, beh, **params)
        th = threading.Thread(target=one, args=(name,))
        th.start()
        threads.append(th)
    for th in threads:
        th.join(30)
    for name, _, _ in cases:
        rc, j = results[name]
        assert rc == 1 and j["status"] == "error", (name, j)
        assert all(e["status"] == "failed" for e in d.entries(name)), d.entries(name)
    assert d.proc.poll() is None
    s1 = d.stats()
    keys = ("upstream_queries", "upstream_replies", "upstream_bad_replies", "upstream_failures",
            "upstream_timeouts")
    print("  " + ", ".join("%s +%d" % (k, s1[k] - s0[k]) for k in keys))
    bad = sum(s1[k] - s0[k] for k in keys[2:])
    assert bad >= len(cases), (s0, s1)
    assert s1["upstream_replies"] - s0["upstream_replies"] == s1["upstream_bad_replies"] - \
        s0["upstream_bad_replies"], ("a garbled reply was taken for an answer", s0, s1)
    # Records for names outside the answer's CNAME chain are not believed.
    fs.set("plant.fault.example", "answer", filter=False,
           records=[("victim.fault.example", "A", 300, "198.18.0.66")])
    fs.set("plant2.fault.example", "answer", filter=False,
           records=[("plant2.fault.example", "CNAME", 300, "x.fault.example."),
                    ("victim.fault.example", "A", 300, "198.18.0.66")])
    d.fails("-4", "plant.fault.example", status="nodata")
    d.fails("-4", "plant2.fault.example", status="nodata")
    # Nothing was planted for the names the wrong replies were about.
    assert d.entries("victim.fault.example") == []
    assert [e for e in d.cache() if e["status"] == "answer"] == [], d.cache()
    j = d.ok("-4", "victim.fault.example")
    assert j["addresses"] == ["192.0.2.1"] and j["source"] == "dns", j
    # And the daemon still answers.
    assert d.ok("-4", "fine.fault.example")["addresses"] == ["192.0.2.1"]


@test
def ttl_zero_and_huge(env):
    fs = env.fault()
    d = env.daemon(fs.port)
    d5 = env.daemon(fs.port, conf="min_ttl = 5\n")
    fs.set("zero.fault.example", "ttl0")
    fs.set("huge.fault.example", "ttlhuge")                      # 2^31: top bit set
    fs.set("huger.fault.example", "ttlhuge", ttl=2 ** 32 - 1)
    fs.set("big.fault.example", "ttlhuge", ttl=2 ** 31 - 1)      # legal: max_ttl clamps
    for name in ("zero.fault.example", "huge.fault.example", "huger.fault.example"):
        j = d.ok("-4", name)
        assert j["addresses"] == ["192.0.2.1"] and j["ttl"] == 0, (name, j)
        # RFC 2181: treated as 0, so not kept: the next lookup asks again.
        j = d.ok("-4", name)
        assert j["source"] == "dns", (name, j)
        assert fs.count(name, "A") == 2, (name, fs.counts())
        j = d5.ok("-4", name)
        assert j["ttl"] == 5 and j["source"] == "dns", (name, j)
        assert d5.ok("-4", name)["source"] == "cache"
        assert fs.count(name, "A") == 3, (name, fs.counts())
    j = d.ok("-4", "big.fault.example")
    assert j["ttl"] == 86400, j
    assert d.ok("-4", "big.fault.example")["source"] == "cache"
    # A huge negative TTL is clamped too.
    fs.set("hugeneg.fault.example", "nxdomain", soa_ttl=2 ** 31, minimum=2 ** 31)
    d.fails("-4", "hugeneg.fault.example", status="notfound")
    for e in d.entries("hugeneg.fault.example"):
        assert e["ttl"] <= 3600, e


# --- 9. hosts and DNS -----------------------------------------------------------

@test
def hosts_first_then_dns_per_family(env):
    proxy = env.nsd_proxy()
    name = "www." + T
    d = env.daemon(proxy.port, hosts="127.0.0.1 localhost\n10.0.0.5 %s webby\n" % name)
    j = d.ok("-4", name)
    assert j["addresses"] == ["10.0.0.5"] and j["source"] == "hosts", j
    assert proxy.total() == 0
    # AF_UNSPEC: the hosts file lists the name, so it answers (glibc's files module).
    j = d.ok(name)
    assert j["addresses"] == ["10.0.0.5"] and j["source"] == "hosts", j
    assert proxy.total() == 0, proxy.counts()
    # The family the file does not list comes from DNS.
    j = d.ok("-6", name)
    assert j["addresses"] == zone_addrs("www", AF6) and j["source"] == "dns", j
    assert proxy.count(name, "AAAA") == 1 and proxy.count(name, "A") == 0, proxy.counts()
    j = d.ok("-6", name)
    assert j["source"] == "cache", j
    # An alias from the file is the file's too.
    assert d.ok("-4", "webby")["addresses"] == ["10.0.0.5"]
    # A name only in DNS.
    j = d.ok("-4", "target." + T)
    assert j["source"] == "dns" and j["addresses"] == zone_addrs("target", AF4), j


# --- 10. admin ------------------------------------------------------------------

def as_user(d, *args, groups=None):
    cmd = ["setpriv", "--reuid=65534", "--regid=65534"]
    cmd += ["--groups=%s" % groups] if groups else ["--clear-groups"]
    cmd += [os.path.join(BUILD, "cli", "namecachectl"), "--socket", d.sock] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True)


def open_up(d):
    os.chmod(d.tmp, 0o755)
    os.chmod(os.path.dirname(d.tmp), 0o755)


@test
def admin_as_root(env):
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port)
    for n in ("www", "target", "multi"):
        d.ok(fqdn(n))
    d.ok("-t", "MX", "mx." + T)
    names = {e["name"] for e in d.cache()}
    assert names == {"www." + T, "target." + T, "multi." + T, "mx." + T}, names
    r = d.ctl("invalidate", "WWW." + T)
    assert r.returncode == 0, r
    names = {e["name"] for e in d.cache()}
    assert names == {"target." + T, "multi." + T, "mx." + T}, names
    j = d.ctl_json("invalidate", "target." + T)
    assert j.get("invalidated") == 2, j
    assert d.ok("www." + T)["source"] == "dns"
    assert d.ok("multi." + T)["source"] == "cache"
    r = d.ctl("flush-caches")
    assert r.returncode == 0, r
    assert d.cache() == [] and d.stats()["cache_entries"] == 0
    assert d.ok("multi." + T)["source"] == "dns"
    s = d.stats()
    assert s["upstream_queries"] > 0 and s["dns_answers"] > 0
    r = d.ctl("reset-statistics")
    assert r.returncode == 0, r
    s = d.stats()
    for k in ("upstream_queries", "upstream_replies", "dns_answers", "cache_answers",
              "lookups_name", "cache_hits", "cache_misses", "coalesced", "not_found"):
        assert s[k] == 0, (k, s)
    # reload: re-reads the config.
    with open(d.conf, "w") as f:
        f.write("max_ttl = 100\n")
    r = d.ctl("reload")
    assert r.returncode == 0, r
    nclib.wait_until(lambda: d.status()["max_ttl"] == 100, "the new max_ttl read on reload")
    d.ctl("flush-caches")
    assert d.ok("-4", "ttl300." + T)["ttl"] == 100


@test
def admin_denied_to_others(env):
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port)
    open_up(d)
    d.ok("www." + T)
    for args in (("flush-caches",), ("invalidate", "www." + T), ("reset-statistics",),
                 ("reload",)):
        r = as_user(d, *args)
        assert r.returncode == 1 and "permission denied" in r.stderr, (args, r)
    assert [e["name"] for e in d.cache()] == ["www." + T] * 2, "flushed anyway"
    assert d.stats()["dns_answers"] == 1, "statistics reset anyway"
    r = as_user(d, "--json", "query", "www." + T)
    assert r.returncode == 0 and json.loads(r.stdout)["source"] == "cache", r
    r = as_user(d, "--json", "statistics")
    assert r.returncode == 0 and "upstream_queries" in json.loads(r.stdout), r
    r = as_user(d, "--json", "show-cache")
    assert r.returncode == 0 and len(json.loads(r.stdout)) == 2, r
    r = as_user(d, "status")
    assert r.returncode == 0, r


@test
def admin_group_allowed(env):
    proxy = env.nsd_proxy()
    # nogroup (65534) is the primary group of the process setpriv starts.
    d = env.daemon(proxy.port, conf="admin_group = nogroup\n")
    open_up(d)
    d.ok("www." + T)
    r = as_user(d, "flush-caches")
    assert r.returncode == 0, r
    assert d.cache() == []
    for args in (("reset-statistics",), ("reload",), ("invalidate", "x." + T)):
        r = as_user(d, *args)
        assert r.returncode == 0, (args, r)
    # A supplementary group counts as well.
    d2 = env.daemon(proxy.port, conf="admin_group = users\n")
    open_up(d2)
    r = as_user(d2, "flush-caches")
    assert r.returncode == 1 and "permission denied" in r.stderr, r
    r = as_user(d2, "flush-caches", groups="100")
    assert r.returncode == 0, r


# --- 11. resolv.conf changes ----------------------------------------------------

@test
def resolv_conf_change_picked_up(env):
    fs = env.fault()
    fs.set_default("nxdomain", soa_ttl=300, minimum=300)
    fs.set("www.test.example", "answer", records=[("A", 300, "192.0.2.80")])
    d = env.daemon(fs.port, search="neg.example")
    assert d.status()["dns_search"] == "neg.example"
    g0 = d.status()["dns_generation"]
    write_resolv(d.resolv, search="test.example")
    nclib.wait_until(lambda: d.status()["dns_search"] == "test.example",
                     lambda: "the search list change seen: %s" % d.status())
    assert d.status()["dns_generation"] > g0
    j = d.ok("-4", "www")
    assert j["canonical"] == "www.test.example" and j["addresses"] == ["192.0.2.80"], j
    # An editor's rename-over, and options too.
    write_resolv(d.resolv, search="neg.example test.example", options=OPTIONS + " ndots:3",
                 rename=True)
    nclib.wait_until(lambda: d.status()["dns_search"] == "neg.example test.example",
                     lambda: "the renamed-over resolv.conf seen: %s" % d.status())
    assert d.status()["dns_ndots"] == 3
    # The nameservers of resolv.conf (no --upstream): loopback addresses, nothing sent.
    d2 = env.daemon(0, upstream=False, nameserver="127.0.0.1")
    assert d2.status()["dns_servers"] == "127.0.0.1:53", d2.status()
    write_resolv(d2.resolv, nameserver="127.0.0.2 ::1")
    nclib.wait_until(lambda: d2.status()["dns_servers"] == "127.0.0.2:53 [::1]:53",
                     lambda: "the new nameservers seen: %s" % d2.status())


@test
def search_change_not_answered_from_old_cache(env):
    """An answer for a short name learnt under the old search list is not served after it changes."""
    fs = env.fault()
    fs.set_default("nxdomain", soa_ttl=300, minimum=300)
    fs.set("www.test.example", "answer", records=[("A", 300, "192.0.2.80")])
    d = env.daemon(fs.port, search="neg.example")
    d.fails("-4", "www", status="notfound")      # www.neg.example, www: NXDOMAIN, kept 300 s
    write_resolv(d.resolv, search="test.example")
    nclib.wait_until(lambda: d.status()["dns_search"] == "test.example",
                     "the search list change seen")
    rc, j = d.query("-4", "www")
    assert rc == 0 and j["canonical"] == "www.test.example", \
        ("the old search list's NXDOMAIN still served", j)


# --- 12. search list ------------------------------------------------------------

@test
def search_list(env):
    proxy = env.nsd_proxy()
    d = env.daemon(proxy.port, search="test.example")
    j = d.ok("www")
    assert j["canonical"] == "www." + T and j["addresses"] == zone_addrs("www"), j
    assert j["name"] == "www", j
    assert proxy.count("www." + T, "A") == 1 and proxy.count("www." + T, "AAAA") == 1
    assert [q[1] for q in proxy.queries()] == ["www." + T + "."] * 2, proxy.queries()
    j = d.ok("alias1")
    assert j["canonical"] == "target." + T, j
    assert j["aliases"] == ["alias1." + T, "alias2." + T], j
    # The search list in order: neg.example first (NXDOMAIN), then test.example.
    proxy.reset()
    d2 = env.daemon(proxy.port, search="neg.example test.example")
    j = d2.ok("-4", "target")
    assert j["canonical"] == "target." + T and j["addresses"] == ["192.0.2.20"], j
    qs = [q[1] for q in proxy.queries()]
    assert qs == ["target.neg.example.", "target.test.example."], qs
    # A name with ndots dots is tried as is first.
    proxy.reset()
    j = d2.ok("-4", "www.test.example")
    assert [q[1] for q in proxy.queries()] == ["www.test.example."], proxy.queries()
    # A trailing dot: the name alone (nsd refuses it: not its zone).
    proxy.reset()
    d2.fails("-4", "www.")
    assert [q[1] for q in proxy.queries()] == ["www."], proxy.queries()
    proxy.reset()
    j = d2.ok("-4", "target.test.example.")
    assert j["addresses"] == ["192.0.2.20"], j
    assert [q[1] for q in proxy.queries()] == ["target.test.example."], proxy.queries()


# --- runner ---------------------------------------------------------------------

def main():
    def set_build(b):
        global BUILD
        BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-dns-", set_build)

if __name__ == "__main__":
    sys.exit(main())
