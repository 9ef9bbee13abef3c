#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/dnslisten/clients.py - real DNS clients against the listener (issue 20).

Each client is started by the test, against namecached's DNS listener on
loopback, inside a private network and mount namespace of the test's own
(unshare --net --mount: nothing but `lo`, so no packet can leave):

  * dig and kdig, over UDP and TCP, to 127.0.0.1 and ::1: A, AAAA, PTR, MX,
    TXT, names of the hosts file and of the zones, NXDOMAIN and NODATA with
    their SOA, mixed-case (0x20-like) names echoed byte for byte, EDNS
    buffer sizes, and many.test.example (150 A records) truncated over UDP
    and retried over TCP;
  * a program built now with Go's pure resolver (CGO_ENABLED=0, -tags
    netgo: static, so Go's own DNS client or nothing), net.Resolver with
    PreferGo through /etc/resolv.conf: LookupIPAddr, LookupIP, LookupAddr,
    LookupMX;
  * a static musl program (musl-gcc -static) calling getaddrinfo: a hosts
    name with only an IPv4 address (musl asks A and AAAA and takes an
    NXDOMAIN for either as the name's end), a DNS name, a missing name;
  * Node's dns.resolve4 / resolve6 / resolveMx (c-ares) after
    dns.setServers(['127.0.0.1:PORT']).

/etc/resolv.conf ("nameserver 127.0.0.1", search test.example), /etc/hosts
(localhost only) and /etc/nsswitch.conf (hosts: files dns) are bind mounts
private to the namespace, so the listener is on 127.0.0.1:53 there; the
machine's files are never written.  Upstream is an nsd the test starts
(tests/dns/dnsenv.py's zones).  The daemon runs with dns_sources = line
(the default) and its own hosts file (HOSTS_TEXT).  Every answer must be
what the zones and that hosts file say; mechanisms are read from the
daemon's statistics (truncated, TCP, AAAA asked).

Needs root and dig, kdig, go, node, musl-gcc, nsd: exit 77 (skip) without.

Run: /usr/bin/python3 tests/dnslisten/clients.py --build BUILD [-k NAME]
"""
import argparse
import ipaddress
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import dnsenv  # noqa: E402
import nclib  # noqa: E402
import privns  # noqa: E402

PYTHON = "/usr/bin/python3"
TOOLS = ("dig", "kdig", "go", "node", "musl-gcc", "unshare", "mount", "ip")
HUNG = 60       # seconds: a client still running then is hung, not slow

# The daemon's own hosts file.  Names under test.example that nsd does not
# have: only the hosts line can answer them.
HOSTS_TEXT = """\
127.0.0.1	localhost
::1	localhost
192.0.2.200	v4hosts.test.example v4alias.test.example
2001:db8::202	v6hosts.test.example
192.0.2.201	dualhosts.test.example
2001:db8::201	dualhosts.test.example
"""

# The namespace's own files, bound over /etc's.
RESOLV_TEXT = "nameserver 127.0.0.1\nsearch test.example\noptions ndots:1 timeout:2 attempts:2\n"
ETC_HOSTS_TEXT = "127.0.0.1\tlocalhost\n::1\tlocalhost\n"
NSSWITCH_TEXT = "hosts: files dns\n"

BUILD = None
TESTS = []
RESULTS = []     # (client, asked, got): printed at the end, for the report


def test(fn):
    TESTS.append(fn)
    return fn


def note(client, asked, got):
    if isinstance(got, list) and len(got) > 8:
        got = "%d records: %s ... %s" % (len(got), got[0], got[-1])
    RESULTS.append((client, asked, got))


# --- what the zones and the hosts file say ---------------------------------------

def _hosts():
    by_name, by_addr = {}, {}
    for line in HOSTS_TEXT.splitlines():
        addr, *names = line.split()
        for n in names:
            by_name.setdefault(dnsenv.norm(n), []).append(addr)
        by_addr.setdefault(str(ipaddress.ip_address(addr)), dnsenv.norm(names[0]))
    return by_name, by_addr


HOSTS_BY_NAME, HOSTS_BY_ADDR = _hosts()


def _fam(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def want_addrs(name, family=None):
    """The addresses the listener must give for name (line mode): the hosts
    file's when it has the name (files answers, dns is not asked), else the
    zones'.  family None: both.  Sorted."""
    n = dnsenv.norm(name)
    if n in HOSTS_BY_NAME:
        addrs = [a for a in HOSTS_BY_NAME[n] if family is None or _fam(a) == family]
    else:
        addrs = dnsenv.addresses(n, family)
    return sorted(str(ipaddress.ip_address(a)) for a in addrs)


def want_ptr(addr):
    a = str(ipaddress.ip_address(addr))
    if a in HOSTS_BY_ADDR:
        return [HOSTS_BY_ADDR[a]]
    rev = ipaddress.ip_address(a).reverse_pointer
    return [dnsenv.norm(r.rdata) for r in dnsenv.resolve(rev, "PTR")]


def want_rdata(name, qtype):
    """(rcode, sorted rdata texts of qtype, negative SOA zone or None)."""
    qtype = qtype.upper()
    n = dnsenv.norm(name)
    if qtype in ("A", "AAAA"):
        fam = socket.AF_INET if qtype == "A" else socket.AF_INET6
        addrs = want_addrs(n, fam)
        if addrs or n in HOSTS_BY_NAME:
            # A hosts name of the other family only: NOERROR, no records
            # (an NXDOMAIN would end the name for musl).
            return "NOERROR", addrs, None
    elif qtype == "PTR":
        return "NOERROR", want_ptr(ptr_addr(n)), None
    else:
        rs = [r for r in dnsenv.resolve(n, qtype) if r.rtype == qtype]
        if rs:
            return "NOERROR", sorted(norm_rdata(qtype, r.rdata) for r in rs), None
    exists = dnsenv.name_exists(n) or bool(dnsenv.resolve(n, "CNAME"))
    return ("NOERROR" if exists else "NXDOMAIN"), [], dnsenv.zone_of(n).origin


def norm_rdata(qtype, text):
    text = text.strip()
    if qtype in ("A", "AAAA"):
        return str(ipaddress.ip_address(text))
    if qtype in ("MX", "PTR", "CNAME", "NS"):
        return text.lower() if text.endswith(".") else text.lower() + "."
    return text


# --- the namespace ---------------------------------------------------------------

def setup_namespace(tmp):
    """resolv.conf, hosts and nsswitch.conf of our own over /etc's (lo is up:
    privns.enter)."""
    etc = os.path.join(tmp, "etc")
    os.makedirs(etc)
    for name, text in (("resolv.conf", RESOLV_TEXT), ("hosts", ETC_HOSTS_TEXT),
                       ("nsswitch.conf", NSSWITCH_TEXT)):
        path = os.path.join(etc, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        subprocess.run(["mount", "--bind", path, "/etc/" + name], check=True)
    with open("/etc/resolv.conf") as f:
        assert f.read() == RESOLV_TEXT, "the bind mount over /etc/resolv.conf did not take"


def elf_interp(path):
    """The ELF's PT_INTERP (its dynamic loader), or None: a static binary."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, path
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        ptype, = struct.unpack_from("<I", data, phoff + i * phentsize)
        if ptype == 3:
            off, = struct.unpack_from("<Q", data, phoff + i * phentsize + 8)
            size, = struct.unpack_from("<Q", data, phoff + i * phentsize + 32)
            return data[off:off + size].rstrip(b"\0").decode()
    return None


# --- running clients --------------------------------------------------------------

class Checks:
    """Mismatches of one test, all reported at its end (not only the first)."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, msg):
        if not cond:
            self.failures.append(msg)
        return bool(cond)

    def done(self):
        if self.failures:
            raise AssertionError("%d mismatches:\n  %s" % (
                len(self.failures), "\n  ".join(self.failures)))


class Env:
    def __init__(self, tmp, daemon, node_port):
        self.tmp = tmp
        self.d = daemon
        self.node_port = node_port
        self.check = Checks()

    def stats(self):
        return self.d.ctl_json("statistics")


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=HUNG, **kw)
    if r.returncode != 0:
        raise AssertionError("%s exited %d:\n%s%s" % (cmd, r.returncode, r.stdout, r.stderr))
    return r.stdout


def delta(before, after, *keys):
    return {k: after[k] - before[k] for k in keys}


# dig +yaml: one document, a list of messages, one for each query asked.
def dig(args):
    import yaml
    out = run(["dig", "+yaml", "+tries=2", "+timeout=5"] + args)
    docs = yaml.safe_load(out)
    return [m["message"] for m in docs if m.get("type") == "MESSAGE"]


def dig_rrs(data, section):
    """[(owner, ttl, type, rdata)] of a dig +yaml section."""
    out = []
    for line in data.get(section) or []:
        owner, ttl, _cls, rtype, rdata = line.split(None, 4)
        out.append((owner, int(ttl), rtype, rdata))
    return out


def kdig(args):
    """kdig +json: one RFC 8427 object a query, concatenated."""
    out = run(["kdig", "+json", "+retry=1", "+timeout=5"] + args)
    dec, msgs, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(out) and out[i].isspace():
            i += 1
        if i >= len(out):
            return msgs
        m, i = dec.raw_decode(out, i)
        msgs.append(m)


def kdig_rrs(m, section):
    out = []
    for rr in m.get(section, []):
        rdata = next((v for k, v in rr.items() if k.startswith("rdata")), rr.get("RDATAHEX"))
        out.append((rr["NAME"], rr["TTL"], rr["TYPEname"], rdata))
    return out


RCODES = {0: "NOERROR", 2: "SERVFAIL", 3: "NXDOMAIN", 5: "REFUSED"}

# The questions dig and kdig ask, each over UDP and TCP.
QUESTIONS = [
    ("www.test.example", "A"), ("www.test.example", "AAAA"),
    ("alias1.test.example", "A"), ("alias1.test.example", "AAAA"),
    ("multi.test.example", "A"), ("multi.test.example", "AAAA"),
    ("v4only.test.example", "A"), ("v6only.test.example", "AAAA"),
    ("v4hosts.test.example", "A"), ("v4hosts.test.example", "AAAA"),
    ("v4alias.test.example", "A"), ("v6hosts.test.example", "AAAA"),
    ("v6hosts.test.example", "A"),
    ("dualhosts.test.example", "A"), ("dualhosts.test.example", "AAAA"),
    ("nonexistent.test.example", "A"), ("nonexistent.test.example", "AAAA"),
    ("nodata.test.example", "A"), ("host.neg.example", "AAAA"),
    ("mx.test.example", "MX"), ("txt.test.example", "TXT"),
    ("srv._tcp.test.example", "SRV"),
    (ipaddress.ip_address("192.0.2.200").reverse_pointer, "PTR"),
    (ipaddress.ip_address("192.0.2.20").reverse_pointer, "PTR"),
    (ipaddress.ip_address("2001:db8::20").reverse_pointer, "PTR"),
    (ipaddress.ip_address("2001:db8::202").reverse_pointer, "PTR"),
]


def check_message(check, who, name, qtype, rcode, answer, authority, record=True):
    """One reply against the zones and the hosts file; answer and authority
    are [(owner, ttl, type, rdata)].  Mismatches go to check."""
    w_rcode, w_rdata, w_soa = want_rdata(name, qtype)
    got = sorted(norm_rdata(qtype, r[3]) for r in answer if r[2] == qtype)
    what = "%s: %s %s" % (who, name, qtype)
    if record:
        note(who, "%s %s" % (name, qtype), "%s %s" % (
            rcode, got if len(got) <= 8 else "%d records" % len(got)))
    check(rcode == w_rcode and got == w_rdata, "%s: got %s %s, want %s %s" % (
        what, rcode, got, w_rcode, w_rdata))
    # Only the question's type and the CNAMEs that lead to it.
    check(all(r[2] in (qtype, "CNAME") for r in answer), "%s: answer %s" % (what, answer))
    n = dnsenv.norm(name)
    if qtype == "PTR":
        from_zones = str(ipaddress.ip_address(ptr_addr(n))) not in HOSTS_BY_ADDR
    else:
        from_zones = n not in HOSTS_BY_NAME
    if got and from_zones:
        # From the cache: the remaining TTL, never more than the zone's.
        limit = dnsenv.answer_ttl(n, qtype)
        check(all(r[1] <= limit for r in answer), "%s: TTLs %s above %d" % (
            what, answer, limit))
    if w_soa is not None and from_zones:
        # A negative answer from upstream's zone carries its SOA (RFC 2308),
        # with at most the negative TTL.
        soa = [r for r in authority if r[2] == "SOA"]
        check(len(soa) == 1 and dnsenv.norm(soa[0][0]) == w_soa and
              soa[0][1] <= dnsenv.NSD_NEGATIVE_SOA_TTL[w_soa],
              "%s: authority %s, want the SOA of %s, TTL at most %d" % (
                  what, authority, w_soa, dnsenv.NSD_NEGATIVE_SOA_TTL[w_soa]))


def ptr_addr(rev):
    labels = rev.rstrip(".").split(".")
    if rev.endswith(".in-addr.arpa."):
        return ".".join(reversed(labels[:4]))
    nib = "".join(reversed(labels[:32]))
    return ":".join(nib[i:i + 4] for i in range(0, 32, 4))


# --- dig and kdig -------------------------------------------------------------

@test
def dig_udp_tcp(env):
    """dig to 127.0.0.1 and ::1, UDP and TCP: every question's answer."""
    check = env.check
    for server in ("127.0.0.1", "::1"):
        for proto in ("+notcp", "+tcp"):
            args = ["@" + server, "-p", "53", proto]
            for name, qtype in QUESTIONS:
                args += ["-q", name, "-t", qtype]
            msgs = dig(args)
            assert len(msgs) == len(QUESTIONS), (len(msgs), len(QUESTIONS))
            want_proto = "TCP" if proto == "+tcp" else "UDP"
            for (name, qtype), m in zip(QUESTIONS, msgs):
                data = m["response_message_data"]
                flags = data["flags"].split()
                who = "dig @%s %s" % (server, want_proto)
                check(m["socket_protocol"] == want_proto, "%s %s: came over %s" % (
                    who, name, m["socket_protocol"]))
                check("ra" in flags and "rd" in flags and "aa" not in flags and
                      "ad" not in flags, "%s %s %s: flags %s" % (who, name, qtype, flags))
                check(data["QUESTION_SECTION"] == ["%s. IN %s" % (name, qtype)],
                      "%s %s %s: question %s" % (who, name, qtype, data["QUESTION_SECTION"]))
                check_message(check, who, name, qtype, data["status"],
                              dig_rrs(data, "ANSWER_SECTION"),
                              dig_rrs(data, "AUTHORITY_SECTION"),
                              record=(server, proto) == ("127.0.0.1", "+notcp"))
    for addr in ("192.0.2.200", "192.0.2.20", "2001:db8::20", "2001:db8::202", "::1"):
        m = dig(["@127.0.0.1", "-x", addr])[0]
        data = m["response_message_data"]
        got = [r[3] for r in dig_rrs(data, "ANSWER_SECTION")]
        note("dig", "-x %s" % addr, "%s %s" % (data["status"], got))
        check(got == want_ptr(addr), "dig -x %s: %s %s, want %s" % (
            addr, data["status"], got, want_ptr(addr)))


@test
def dig_mixed_case(env):
    """0x20-like names: the question comes back byte for byte, and the owner too."""
    check = env.check
    cases = [("wWw.TeSt.ExAmPlE", "A"), ("WWW.test.EXAMPLE", "AAAA"),
             ("V4HoStS.tEsT.eXaMpLe", "A"), ("dUaLhOsTs.TEST.example", "AAAA"),
             ("Mx.TeSt.ExAmPlE", "MX"), ("NoNeXiStEnT.tEsT.eXaMpLe", "A"),
             ("MaNy.TeSt.ExAmPlE", "A")]
    for proto in ("+notcp", "+tcp"):
        args = ["@127.0.0.1", proto]
        for name, qtype in cases:
            args += ["-q", name, "-t", qtype]
        msgs = dig(args)
        assert len(msgs) == len(cases), (len(msgs), len(cases))
        for (name, qtype), m in zip(cases, msgs):
            data = m["response_message_data"]
            check(data["QUESTION_SECTION"] == ["%s. IN %s" % (name, qtype)],
                  "question not echoed: asked %s, got %s" % (name, data["QUESTION_SECTION"]))
            ans = dig_rrs(data, "ANSWER_SECTION")
            owners = {r[0] for r in ans if r[2] == qtype}
            check(owners <= {name + "."}, "owner not the question's spelling: %s %s" % (
                name, owners))
            check_message(check, "dig mixed %s" % proto.lstrip("+"), name, qtype,
                          data["status"], ans, dig_rrs(data, "AUTHORITY_SECTION"),
                          record=proto == "+notcp")


@test
def dig_edns_and_truncation(env):
    """EDNS sizes, and a truncated answer that dig retries over TCP."""
    check = env.check
    n = "many.test.example"
    want = want_addrs(n, socket.AF_INET)
    assert len(want) == dnsenv.MANY_COUNT
    # Without EDNS and with a small buffer: TC, within the client's size.
    for opt, limit in (("+noedns", 512), ("+bufsize=512", 512), ("+bufsize=1232", 1232),
                       ("+bufsize=4096", 4096)):
        m = dig(["@127.0.0.1", opt, "+ignore", n])[0]
        data = m["response_message_data"]
        size = int(str(m["message_size"]).rstrip("b"))
        note("dig", "%s %s +ignore (UDP)" % (n, opt), "flags %s, %d bytes, EDNS %s" % (
            data["flags"], size, (data.get("OPT_PSEUDOSECTION") or {}).get("EDNS")))
        check(m["socket_protocol"] == "UDP" and "tc" in data["flags"].split() and
              size <= limit, "%s %s: %s, %d bytes" % (n, opt, data["flags"], size))
        edns = (data.get("OPT_PSEUDOSECTION") or {}).get("EDNS")
        if opt == "+noedns":
            check(edns is None, "%s %s: an OPT in reply to a query without: %s" % (n, opt, edns))
        else:
            check(edns and int(edns["udp"]) == 1232, "%s %s: EDNS %s, want udp 1232" % (
                n, opt, edns))
    # A small answer with a big buffer: whole, over UDP.
    m = dig(["@127.0.0.1", "+bufsize=4096", "multi.test.example"])[0]
    check(m["socket_protocol"] == "UDP" and "tc" not in m["response_message_data"]["flags"],
          "multi.test.example +bufsize=4096: %s" % m)
    # Truncated, then retried over TCP by dig itself: all 150.
    before = env.stats()
    m = dig(["@127.0.0.1", "+bufsize=1232", n])[0]
    after = env.stats()
    data = m["response_message_data"]
    got = sorted(norm_rdata("A", r[3]) for r in dig_rrs(data, "ANSWER_SECTION"))
    d = delta(before, after, "dns_truncated", "dns_queries_udp", "dns_queries_tcp")
    note("dig", "%s A (bufsize 1232)" % n, "%d A over %s; listener: %s" % (
        len(got), m["socket_protocol"], d))
    check(m["socket_protocol"] == "TCP" and got == want, "%s: %d A over %s" % (
        n, len(got), m["socket_protocol"]))
    check(d == {"dns_truncated": 1, "dns_queries_udp": 1, "dns_queries_tcp": 1},
          "%s: statistics moved %s, want one UDP query truncated and one TCP" % (n, d))


@test
def kdig_udp_tcp(env):
    """kdig over UDP and TCP, to both loopbacks; EDNS; truncation retried over TCP.
    (kdig lowercases a name before it asks: mixed case is dig's test.)"""
    check = env.check
    for server in ("127.0.0.1", "::1"):
        for proto in ("+notcp", "+tcp"):
            args = []
            for name, qtype in QUESTIONS:
                args += [name, qtype, "@" + server, proto]
            msgs = kdig(args)
            assert len(msgs) == len(QUESTIONS), (len(msgs), len(QUESTIONS))
            who = "kdig @%s %s" % (server, proto.lstrip("+"))
            for (name, qtype), m in zip(QUESTIONS, msgs):
                check(m["QR"] == 1 and m["RA"] == 1 and m["RD"] == 1 and m["AD"] == 0 and
                      m["AA"] == 0, "%s %s %s: flags %s" % (who, name, qtype, m))
                check(dnsenv.norm(m["QNAME"]) == dnsenv.norm(name) and m["QTYPEname"] == qtype,
                      "%s %s %s: question %s %s" % (who, name, qtype, m["QNAME"],
                                                    m["QTYPEname"]))
                check_message(check, who, name, qtype,
                              RCODES.get(m["RCODE"], str(m["RCODE"])),
                              kdig_rrs(m, "answerRRs"), kdig_rrs(m, "authorityRRs"),
                              record=(server, proto) == ("127.0.0.1", "+notcp"))
    # EDNS: the listener's OPT says 1232; none without the client's.
    m = kdig(["@127.0.0.1", "+edns", "+bufsize=4000", "www.test.example"])[0]
    opt = [rr for rr in m.get("additionalRRs", []) if rr["TYPE"] == 41]
    check(len(opt) == 1 and opt[0]["CLASS"] == 1232, "kdig +bufsize=4000: OPT %s" % opt)
    m = kdig(["@127.0.0.1", "+noedns", "www.test.example"])[0]
    check(not [rr for rr in m.get("additionalRRs", []) if rr["TYPE"] == 41],
          "kdig +noedns: an OPT in the reply: %s" % m)
    n = "many.test.example"
    m = kdig(["@127.0.0.1", "+noedns", "+ignore", n])[0]
    note("kdig", "%s +noedns +ignore (UDP)" % n, "TC %d, %d bytes" % (m["TC"], m["msgLength"]))
    check(m["TC"] == 1 and m["msgLength"] <= 512, "kdig %s +noedns: %s" % (n, m))
    before = env.stats()
    m = kdig(["@::1", "+bufsize=1232", n])[0]
    after = env.stats()
    got = sorted(norm_rdata("A", r[3]) for r in kdig_rrs(m, "answerRRs"))
    d = delta(before, after, "dns_truncated", "dns_queries_udp", "dns_queries_tcp")
    note("kdig", "%s A @::1 (bufsize 1232)" % n, "%d A; listener: %s" % (len(got), d))
    check(got == want_addrs(n, socket.AF_INET), "kdig %s: %d A" % (n, len(got)))
    check(d == {"dns_truncated": 1, "dns_queries_udp": 1, "dns_queries_tcp": 1},
          "kdig %s: statistics moved %s, want one UDP query truncated and one TCP" % (n, d))


# --- Go's pure resolver -------------------------------------------------------

def build_go(tmp):
    """goresolve.go, built now: CGO_ENABLED=0 and netgo, standard library
    only, caches in tmp, no network (GOPROXY=off)."""
    out = os.path.join(tmp, "goresolve")
    if os.path.exists(out):
        return out
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp,
           "GOCACHE": os.path.join(tmp, "gocache"), "GOPATH": os.path.join(tmp, "gopath"),
           "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOENV": "off", "GOFLAGS": "",
           "GOTELEMETRY": "off", "CGO_ENABLED": "0"}
    run(["go", "build", "-tags", "netgo", "-o", out, os.path.join(HERE, "goresolve.go")],
        env=env, cwd=tmp)
    assert elf_interp(out) is None, "goresolve is not static: Go's resolver is not alone"
    return out


def want_go(op, name):
    """What goresolve must print for (op, name): a sorted list, or "not found"."""
    full = name.rstrip(".") if "." in name else name + ".test.example"
    if op == "addr":
        return want_ptr(name)
    if op == "mx":
        w = want_rdata(full, "MX")
        return w[1] or "not found"
    fam = {"ip": None, "ip4": socket.AF_INET, "ip6": socket.AF_INET6}[op]
    return want_addrs(full, fam) or "not found"


def got_go(op, r):
    if r.get("err"):
        return "not found" if r["notfound"] else "error: " + r["err"]
    if op == "addr":
        return r["result"]
    if op == "mx":
        return sorted(norm_rdata("MX", x) for x in r["result"])
    return sorted(str(ipaddress.ip_address(a)) for a in r["result"])


@test
def go_pure_resolver(env):
    """net.Resolver{PreferGo: true} of a static netgo binary through /etc/resolv.conf."""
    check = env.check
    prog = build_go(env.tmp)
    asks = [
        ("ip", "www.test.example"), ("ip", "www"),            # the search list
        ("ip", "alias1.test.example"), ("ip", "multi.test.example"),
        ("ip", "v6only.test.example"), ("ip4", "v4only.test.example"),
        ("ip", "v4hosts.test.example"), ("ip", "v4alias.test.example"),
        ("ip", "v6hosts.test.example"), ("ip", "dualhosts.test.example"),
        ("ip6", "dualhosts.test.example"),
        ("ip", "WwW.TeSt.ExAmPlE"),
        ("ip", "nonexistent.test.example."),
        ("addr", "192.0.2.200"), ("addr", "192.0.2.20"), ("addr", "2001:db8::20"),
        ("addr", "2001:db8::202"),
        ("mx", "mx.test.example"), ("mx", "nonexistent.test.example."),
    ]
    argv = [prog]
    for op, name in asks:
        argv += [op, name]
    before = env.stats()
    lines = run(argv).splitlines()
    after = env.stats()
    assert len(lines) == len(asks), lines
    for (op, name), line in zip(asks, lines):
        got, want = got_go(op, json.loads(line)), want_go(op, name)
        note("go", "%s %s" % (op, name), got)
        check(got == want, "go %s %s: %s, want %s" % (op, name, got, want))
    d = delta(before, after, "dns_type_a", "dns_type_aaaa", "dns_type_ptr", "dns_type_mx")
    # Go asked the listener for everything: A and AAAA for each "ip".
    n_ip = sum(1 for op, _ in asks if op == "ip")
    check(d["dns_type_a"] >= n_ip and d["dns_type_aaaa"] >= n_ip and
          d["dns_type_ptr"] >= 4 and d["dns_type_mx"] >= 2,
          "go: the listener's statistics moved only %s" % d)


@test
def go_truncated_over_tcp(env):
    """Go reads UDP replies into 512 bytes: many.test.example comes back TC,
    and Go asks again over TCP."""
    prog = build_go(env.tmp)
    before = env.stats()
    got = got_go("ip4", json.loads(run([prog, "ip4", "many.test.example"])))
    after = env.stats()
    d = delta(before, after, "dns_truncated", "dns_queries_udp", "dns_queries_tcp")
    note("go", "ip4 many.test.example", "%d A; listener: %s" % (len(got), d))
    env.check(got == want_go("ip4", "many.test.example"), "go ip4 many: %s" % got)
    env.check(d["dns_truncated"] >= 1 and d["dns_queries_tcp"] >= 1,
              "go ip4 many: statistics moved %s, want a truncation and TCP" % d)


# --- musl ---------------------------------------------------------------------

@test
def musl_static_getaddrinfo(env):
    """A static musl getaddrinfo: hosts name with IPv4 only, DNS names, a missing name."""
    check = env.check
    prog = os.path.join(env.tmp, "gai-musl")
    run(["musl-gcc", "-static", "-O1", "-o", prog, os.path.join(HERE, "gai.c")])
    assert elf_interp(prog) is None, "gai-musl is not static"
    names = ["v4hosts.test.example", "v6hosts.test.example", "dualhosts.test.example",
             "www.test.example", "alias1.test.example", "www", "nonexistent.test.example"]
    before = env.stats()
    lines = run([prog] + names).splitlines()
    after = env.stats()
    assert len(lines) == len(names), lines
    for name, line in zip(names, lines):
        got_name, verdict, *rest = line.split()
        assert got_name == name, line
        full = name if "." in name else name + ".test.example"
        want = want_addrs(full) or "EAI_NONAME"
        if verdict == "ok":
            got = sorted(str(ipaddress.ip_address(a)) for a in rest)
        elif verdict == "noname":
            got = "EAI_NONAME"
        else:
            got = line
        note("musl", "getaddrinfo %s" % name, got)
        check(got == want, "musl getaddrinfo %s: %s, want %s" % (name, got, want))
    # musl asked both types for every name (none is in its /etc/hosts).
    d = delta(before, after, "dns_type_a", "dns_type_aaaa")
    check(d["dns_type_a"] >= len(names) and d["dns_type_aaaa"] >= len(names),
          "musl: the listener's statistics moved only %s" % d)


# --- Node (c-ares) ------------------------------------------------------------

@test
def node_resolve(env):
    """dns.setServers(['127.0.0.1:PORT']) then resolve4 / resolve6 / resolveMx."""
    check = env.check
    server = "127.0.0.1:%d" % env.node_port
    asks = [("4", "www.test.example"), ("6", "www.test.example"),
            ("4", "WwW.TeSt.ExAmPlE"), ("4", "alias1.test.example"),
            ("6", "multi.test.example"), ("4", "v4hosts.test.example"),
            ("6", "v4hosts.test.example"), ("6", "v6hosts.test.example"),
            ("4", "nonexistent.test.example"), ("4", "many.test.example"),
            ("mx", "mx.test.example"), ("mx", "nodata.test.example")]
    argv = ["node", os.path.join(HERE, "noderesolve.js"), server]
    for op, name in asks:
        argv += [op, name]
    before = env.stats()
    lines = run(argv).splitlines()
    after = env.stats()
    assert len(lines) == len(asks), lines
    for (op, name), line in zip(asks, lines):
        r = json.loads(line)
        qtype = {"4": "A", "6": "AAAA", "mx": "MX"}[op]
        w_rcode, w_rdata, _ = want_rdata(name, qtype)
        if w_rdata:
            want = w_rdata
        else:
            want = "ENOTFOUND" if w_rcode == "NXDOMAIN" else "ENODATA"
        got = r["code"] or sorted(norm_rdata(qtype, x) for x in r["result"])
        note("node", "resolve%s %s" % ({"4": "4", "6": "6", "mx": "Mx"}[op], name), got)
        check(got == want, "node resolve%s %s: %s, want %s" % (op, name, got, want))
    d = delta(before, after, "dns_truncated", "dns_queries_tcp")
    check(d["dns_truncated"] >= 1 and d["dns_queries_tcp"] >= 1,
          "node resolve4 many: statistics moved %s, want a truncation and TCP" % d)


# --- main ---------------------------------------------------------------------

def wait_listening(d, want):
    """Until status lists every listener in want (the loop runs, sockets are bound)."""
    def listening():
        r = d.ctl("--json", "status")
        if r.returncode != 0:
            return False
        have = json.loads(r.stdout).get("dns_listen", "")
        return all(w in have for w in want) and have
    return nclib.wait_until(listening, "listening on %s" % want)


def main(argv):
    global BUILD
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("-k", help="run only tests whose name contains this")
    args = ap.parse_args(argv)
    BUILD = os.path.abspath(args.build)
    # dig +yaml is read with python3-yaml.
    privns.enter("network and mount namespaces", net=True, tools=TOOLS + (dnsenv.NSD,),
                 modules=("yaml",), probe=True)
    # meson's timeout sends SIGTERM: unwind, so that nsd (a session of its
    # own) and the daemon are stopped by the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("clients.py: SIGTERM"))
    failed = ran = 0
    t_all = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dlclients-") as tmp:
        os.chmod(tmp, 0o755)
        setup_namespace(tmp)
        nsd = dnsenv.Nsd(os.path.join(tmp, "nsd"))
        node_port = dnsenv.free_port(("127.0.0.1",))
        ddir = os.path.join(tmp, "daemon")
        os.makedirs(ddir)
        d = nclib.Daemon(BUILD, ddir, hosts_text=HOSTS_TEXT,
                         upstream="127.0.0.1:%d" % nsd.port,
                         args=["--dns-listen", "127.0.0.1:53 [::1]:53 127.0.0.1:%d" % node_port])
        try:
            d.start()
            status = wait_listening(d, ["udp 127.0.0.1:53", "tcp [::1]:53",
                                        "tcp 127.0.0.1:%d" % node_port])
            print("listening: %s" % status)
            env = Env(tmp, d, node_port)
            for fn in TESTS:
                if args.k and args.k not in fn.__name__:
                    continue
                ran += 1
                t0 = time.monotonic()
                env.check = Checks()
                try:
                    fn(env)
                    env.check.done()
                    print("ok   %s (%.2f s)" % (fn.__name__, time.monotonic() - t0))
                except Exception:
                    failed += 1
                    print("FAIL %s (%.2f s)" % (fn.__name__, time.monotonic() - t0))
                    traceback.print_exc()
                sys.stdout.flush()
            if d.proc.poll() is not None:
                failed += 1
                print("FAIL the daemon died (%s)" % d.proc.returncode)
            rc = d.stop()
            if rc != 0:
                failed += 1
                print("FAIL daemon exit status %s" % rc)
            if "runtime error:" in d.read_log():
                failed += 1
                print("FAIL UndefinedBehaviorSanitizer in the daemon's log")
        finally:
            d.stop()
            nsd.stop()
            if failed:
                print("---- daemon log ----\n%s" % d.read_log()[-4000:])
    print("---- what each client asked, and got ----")
    for client, asked, got in RESULTS:
        print("%-6s %-52s %s" % (client, asked, got))
    print("%d tests, %d failed (%.1f s)" % (ran, failed, time.monotonic() - t_all))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
