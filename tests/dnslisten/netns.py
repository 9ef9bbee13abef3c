#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/dnslisten/netns.py - the listener asked from another network namespace (issue 20).

The NodeLocal-DNSCache recipe of docs/deployment.md, in namespaces the test
makes and nothing else:

    node namespace (this script, unshare --net --mount)
        lo: nsd on 127.0.0.1 (the daemon's upstream)
        vnode: 10.200.0.1/24 and 169.254.20.10/32 (the link-local address
               NodeLocal DNSCache puts on a dummy interface; this kernel has
               no dummy driver, so it goes on the node's end of the veth)
        namecached --dns-listen "169.254.20.10:53 10.200.0.1:53",
               dns_sources = dns, its own hosts file
    pod namespace (unshare --net --mount, held open by a child of ours)
        vpod: 10.200.0.2/24, a route to 169.254.20.10/32 over it and no
              other; /etc/resolv.conf a bind mount private to it naming
              169.254.20.10

Neither namespace has any other interface: no packet can reach anything
but these two.  Both go away with their last process, veths included,
even when the test fails.

  (a) access control from a non-loopback source: with dns_allow unset,
      every query from the pod gets REFUSED, no larger than the query
      (sizes checked over UDP and TCP, including a query padded with a
      large EDNS option, a header-only query and a truncated question),
      upstream is never asked, statistics count dns_refused; with
      dns_allow = 10.200.0.0/24 (SIGHUP: dnslisten_configure applies it)
      the pod gets answers, and `dns` mode does not answer the node's own
      hosts-file names (upstream's NXDOMAIN and SOA instead); dns_allow
      taken away again refuses again.
  (b) the recipe: dig in the pod, with no @server, resolves through its
      resolv.conf's 169.254.20.10.

Needs root, ip, nsenter, unshare, dig and nsd: exit 77 (skip) without.

Run: /usr/bin/python3 tests/dnslisten/netns.py --build BUILD [-k NAME]
"""
import argparse
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
from dnslib import DNSRecord, EDNS0, EDNSOption, QTYPE  # noqa: E402

PYTHON = "/usr/bin/python3"
TOOLS = ("ip", "nsenter", "unshare", "mount", "dig")
HUNG = 30       # seconds: no reply by then means hung, not slow

NODE_IP, POD_IP, PREFIX = "10.200.0.1", "10.200.0.2", "10.200.0.0/24"
LINK_LOCAL = "169.254.20.10"
SERVERS = (LINK_LOCAL, NODE_IP)

# The node's own names: a `dns` listener must not give them to pods.
NODE_HOSTS = """\
127.0.0.1	localhost
10.9.9.9	nodeonly.test.example
192.0.2.99	www.test.example
"""
POD_RESOLV = "nameserver %s\nsearch test.example\noptions ndots:1 timeout:2 attempts:2\n" % LINK_LOCAL

BUILD = None
TESTS = []
FIGURES = []     # printed at the end, for the report


def test(fn):
    TESTS.append(fn)
    return fn


def figure(text):
    FIGURES.append(text)


# --- inside the pod: raw queries ----------------------------------------------

def pod_probe_main():
    """Runs in the pod (nsenter): JSON list of probes on stdin, replies out.

    A probe: {"proto": "udp"|"tcp", "server", "query": hex, "marker": hex or
    null}.  Without a marker, the reply is the first message with the
    query's id.  With one, the marker is sent right after the query on the
    same socket, and every message received before the marker's reply is
    the query's: none when the listener dropped it.  (The listener answers
    a socket's datagrams, and a connection's refused queries, in order.)"""
    probes = json.load(sys.stdin)
    out = []
    for p in probes:
        query = bytes.fromhex(p["query"])
        marker = bytes.fromhex(p["marker"]) if p.get("marker") else None
        want_id = (marker or query)[:2]
        got = []
        tcp = p["proto"] == "tcp"
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM if tcp else socket.SOCK_DGRAM) as s:
            s.settimeout(HUNG)
            s.connect((p["server"], 53))
            msgs = [query] + ([marker] if marker else [])
            for m in msgs:
                s.sendall(struct.pack("!H", len(m)) + m if tcp else m)
            while True:
                if tcp:
                    n = struct.unpack("!H", dnsenv._recv_exact(s, 2))[0]
                    reply = dnsenv._recv_exact(s, n)
                else:
                    reply = s.recv(65535)
                if reply[:2] == want_id:
                    if marker is None:
                        got.append(reply.hex())
                    break
                got.append(reply.hex())
        out.append({"replies": got})
    json.dump(out, sys.stdout)
    return 0


# --- the namespaces -----------------------------------------------------------

def sh(*cmd):
    subprocess.run(list(cmd), check=True, timeout=HUNG)


def ifnames(prefix=()):
    out = subprocess.run(list(prefix) + ["ip", "-o", "link", "show"], capture_output=True,
                         text=True, check=True, timeout=HUNG).stdout
    return sorted(line.split(":")[1].strip().split("@")[0] for line in out.splitlines())


class Pod:
    """A network and mount namespace held open by a child that exits when
    we do (it reads its stdin, our pipe, to the end)."""

    def __init__(self, tmp):
        self.proc = subprocess.Popen(
            ["unshare", "--net", "--mount", "--propagation", "private", "--",
             PYTHON, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
        own = os.readlink("/proc/self/ns/net")
        path = "/proc/%d/ns/net" % self.proc.pid
        # Until the child has unshared (a mechanism: its namespace link changes).
        nclib.wait_until(lambda: self.proc.poll() is None and os.readlink(path) != own,
                         "the pod's namespace made")
        self.pid = self.proc.pid
        self.enter = ["nsenter", "--target", str(self.pid), "--net", "--mount", "--"]
        self.tmp = tmp

    def run(self, cmd, stdin=None, check=True):
        r = subprocess.run(self.enter + list(cmd), input=stdin, capture_output=True,
                           text=True, timeout=HUNG * 2)
        if check and r.returncode != 0:
            raise AssertionError("in the pod: %s exited %d:\n%s%s" % (
                cmd, r.returncode, r.stdout, r.stderr))
        return r

    def probe(self, probes):
        r = self.run([PYTHON, os.path.abspath(__file__), "--pod-probe"],
                     stdin=json.dumps(probes))
        return [[bytes.fromhex(h) for h in p["replies"]] for p in json.loads(r.stdout)]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(HUNG)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def wire(pod, tmp):
    """The veth between node and pod, their addresses, the pod's resolv.conf
    (the node's lo is up: privns.enter)."""
    sh("ip", "link", "add", "vnode", "type", "veth", "peer", "name", "vpod",
       "netns", str(pod.pid))
    sh("ip", "addr", "add", NODE_IP + "/24", "dev", "vnode")
    sh("ip", "addr", "add", LINK_LOCAL + "/32", "dev", "vnode")
    sh("ip", "link", "set", "vnode", "up")
    for cmd in (["ip", "link", "set", "lo", "up"],
                ["ip", "addr", "add", POD_IP + "/24", "dev", "vpod"],
                ["ip", "link", "set", "vpod", "up"],
                ["ip", "route", "add", LINK_LOCAL + "/32", "dev", "vpod"]):
        pod.run(cmd)
    # The network rule: these two interfaces, and loopback, and nothing else.
    assert ifnames() == ["lo", "vnode"], ifnames()
    assert ifnames(pod.enter) == ["lo", "vpod"], ifnames(pod.enter)
    routes = pod.run(["ip", "-4", "route", "show"]).stdout
    assert "default" not in routes, routes
    resolv = os.path.join(tmp, "pod-resolv.conf")
    with open(resolv, "w") as f:
        f.write(POD_RESOLV)
    os.chmod(resolv, 0o644)
    pod.run(["mount", "--bind", resolv, "/etc/resolv.conf"])
    assert pod.run(["cat", "/etc/resolv.conf"]).stdout == POD_RESOLV
    with open("/etc/resolv.conf") as f:
        assert f.read() != POD_RESOLV, "the pod's resolv.conf leaked into the node"

    # Both ends up (carrier): a mechanism, as ip reads it (/sys is the
    # machine's namespace's, not ours).
    def up():
        out = subprocess.run(["ip", "-o", "link", "show", "vnode"], capture_output=True,
                             text=True, timeout=HUNG).stdout
        return "LOWER_UP" in out and "state UP" in out
    nclib.wait_until(up, "vnode up")


# --- queries ------------------------------------------------------------------

QID = [0x1000]


def query(name, qtype="A", edns=None, pad=0):
    """A query's bytes, each with a new id; edns: the UDP size (None: no OPT);
    pad: an EDNS padding option (12) of that many bytes."""
    q = DNSRecord.question(name, qtype)
    QID[0] += 1
    q.header.id = QID[0]
    if edns or pad:
        q.add_ar(EDNS0(udp_len=edns or 1232, opts=[EDNSOption(12, b"\0" * pad)] if pad else []))
    return q.pack()


def parse(reply):
    return DNSRecord.parse(reply)


def rcode_name(r):
    return {0: "NOERROR", 2: "SERVFAIL", 3: "NXDOMAIN", 5: "REFUSED"}.get(
        r.header.rcode, str(r.header.rcode))


class Env:
    def __init__(self, tmp, d, pod):
        self.tmp = tmp
        self.d = d
        self.pod = pod

    def stats(self):
        return self.d.ctl_json("statistics")

    def status(self):
        return self.d.ctl_json("status")

    def reload_allow(self, allow):
        """Rewrites the config (dns_sources = dns, dns_allow = allow) and
        sends SIGHUP; returns when status shows the new dns_allow."""
        with open(self.d.conf, "w") as f:
            f.write("dns_sources = dns\n")
            if allow:
                f.write("dns_allow = %s\n" % allow)
        want = "loopback" + (" " + allow if allow else "")
        self.d.proc.send_signal(signal.SIGHUP)
        nclib.wait_until(lambda: self.status().get("dns_allow") == want,
                         lambda: "dns_allow %r after SIGHUP (status says %r)" % (
                             want, self.status().get("dns_allow")))


def dig_pod(env, args):
    """dig in the pod, +yaml: the messages."""
    import yaml
    r = env.pod.run(["dig", "+yaml", "+tries=1", "+timeout=5"] + args)
    return [m["message"] for m in yaml.safe_load(r.stdout) if m.get("type") == "MESSAGE"]


def answers(r, qtype):
    return sorted(str(rr.rdata) for rr in r.rr if QTYPE[rr.rtype] == qtype)


# --- (a) access control -----------------------------------------------------------

def refused_round(env, label):
    """Every kind of query from the pod, each followed by a marker: REFUSED
    and no larger than the query, or nothing.  Returns the REFUSED count
    (markers included)."""
    truncated_q = query("www.test.example")[:20]          # the question cut
    header_only = bytearray(query("www.test.example")[:12])
    header_only[4:6] = b"\0\0"                            # QDCOUNT 0
    # (what, transport, query, whether a reply must come): the header-only
    # and the cut query may be dropped, never answered larger.
    kinds = [
        ("UDP, no EDNS", "udp", query("www.test.example"), True),
        ("UDP, EDNS 1232", "udp", query("www.test.example", "AAAA", edns=1232), True),
        ("UDP, EDNS + 400-byte padding", "udp", query("www.test.example", edns=1232, pad=400),
         True),
        ("UDP, EDNS + 3000-byte padding", "udp", query("www.test.example", edns=4096, pad=3000),
         True),
        ("UDP, header only (QDCOUNT 0)", "udp", bytes(header_only), False),
        ("UDP, question cut short", "udp", truncated_q, False),
        ("UDP, MX", "udp", query("mx.test.example", "MX"), True),
        ("TCP, no EDNS", "tcp", query("www.test.example"), True),
        ("TCP, EDNS + 3000-byte padding", "tcp", query("www.test.example", edns=1232, pad=3000),
         True),
    ]
    probes, meta = [], []
    for server in SERVERS:
        for what, proto, q, must in kinds:
            probes.append({"proto": proto, "server": server, "query": q.hex(),
                           "marker": query("marker.test.example").hex()})
            meta.append((server, what, q, must))
    results = env.pod.probe(probes)
    refused = 0
    for (server, what, q, must), replies in zip(meta, results):
        refused += 1                                  # the marker
        assert len(replies) <= 1, (server, what, replies)
        assert replies or not must, "%s -> %s: no reply" % (what, server)
        if not replies:
            figure("%s %s -> %s: query %d bytes, no reply" % (label, what, server, len(q)))
            continue
        reply = replies[0]
        assert len(reply) <= len(q), "%s -> %s: reply %d bytes > query %d" % (
            what, server, len(reply), len(q))
        assert reply[:2] == q[:2] and reply[2] & 0x80, (what, reply.hex())   # id, QR
        assert reply[3] & 0x0f == 5, "%s -> %s: rcode %d, want REFUSED" % (
            what, server, reply[3] & 0x0f)
        r = parse(reply)
        assert not r.rr and not r.auth, (what, r)
        refused += 1
        figure("%s %s -> %s: query %d bytes, REFUSED %d bytes" % (
            label, what, server, len(q), len(reply)))
    return refused


@test
def refused_then_allowed(env):
    """dns_allow unset: REFUSED, no larger than the query; allowed after SIGHUP."""
    st0 = env.stats()
    assert env.status().get("dns_allow") == "loopback", env.status()
    refused = refused_round(env, "refused:")
    # dig itself, from the pod, to both addresses, UDP and TCP.
    for server in SERVERS:
        for proto in ("+notcp", "+tcp"):
            m = dig_pod(env, ["@" + server, proto, "www.test.example"])[0]
            data = m["response_message_data"]
            assert data["status"] == "REFUSED" and not data.get("ANSWER_SECTION"), data
            refused += 1
            figure("refused: dig %s @%s -> %s, %s" % (proto, server, data["status"],
                                                       m["message_size"]))
    st1 = env.stats()
    d = {k: st1[k] - st0[k] for k in ("dns_refused", "dns_rcode_refused", "upstream_queries",
                                      "dns_rcode_noerror", "dns_rcode_nxdomain")}
    figure("refused: statistics moved %s" % d)
    assert d["dns_refused"] == refused and d["dns_rcode_refused"] == refused, (d, refused)
    # Refused queries never reach the engine: upstream was not asked.
    assert d["upstream_queries"] == 0 and d["dns_rcode_noerror"] == 0 and \
        d["dns_rcode_nxdomain"] == 0, d

    # dns_allow = the pod range, applied by SIGHUP.
    env.reload_allow(PREFIX)
    for server in SERVERS:
        for proto in ("udp", "tcp"):
            qs = [("www.test.example", "A"), ("www.test.example", "AAAA"),
                  ("nodeonly.test.example", "A"), ("nodeonly.test.example", "AAAA"),
                  ("mx.test.example", "MX"), ("nonexistent.test.example", "A")]
            wires = [query(n, t, edns=1232) for n, t in qs]
            results = env.pod.probe([{"proto": proto, "server": server, "query": w.hex(),
                                      "marker": None} for w in wires])
            for (name, qtype), replies in zip(qs, results):
                r = parse(replies[0])
                got = answers(r, qtype)
                if name == "nodeonly.test.example":
                    # The node's hosts file has it; `dns` mode gives upstream's NXDOMAIN.
                    soa = [rr for rr in r.auth if QTYPE[rr.rtype] == "SOA"]
                    assert rcode_name(r) == "NXDOMAIN" and not got, (server, proto, name, r)
                    assert len(soa) == 1 and dnsenv.norm(soa[0].rname) == "test.example.", r
                elif name == "www.test.example":
                    # The zone's address, not the node's hosts-file one (192.0.2.99).
                    fam = socket.AF_INET if qtype == "A" else socket.AF_INET6
                    assert rcode_name(r) == "NOERROR" and got == dnsenv.addresses(name, fam), (
                        server, proto, name, qtype, got)
                elif qtype == "MX":
                    want = sorted(r.rdata for r in dnsenv.rrset(name, "MX"))
                    assert rcode_name(r) == "NOERROR" and got == want, (server, proto, got)
                else:
                    assert rcode_name(r) == "NXDOMAIN" and not got, (server, proto, name, r)
                assert r.header.ra == 1 and r.header.aa == 0, r.header
                if server == LINK_LOCAL and proto == "udp":
                    figure("allowed: %s %s -> %s: %s %s" % (name, qtype, server,
                                                            rcode_name(r), got))
    # The hosts line would have answered it: the node's own lookups do.
    line = env.d.ctl("query", "nodeonly.test.example")
    assert line.returncode == 0 and "10.9.9.9" in line.stdout, (line.stdout, line.stderr)
    st2 = env.stats()
    assert st2["dns_refused"] == st1["dns_refused"], (st1["dns_refused"], st2["dns_refused"])

    # Taken away again: refused again.
    env.reload_allow("")
    st3 = env.stats()
    r = parse(env.pod.probe([{"proto": "udp", "server": LINK_LOCAL,
                              "query": query("www.test.example").hex(), "marker": None}])[0][0])
    assert rcode_name(r) == "REFUSED", r
    assert env.stats()["dns_refused"] == st3["dns_refused"] + 1


# --- (b) the NodeLocal DNSCache recipe --------------------------------------------

@test
def nodelocal_recipe(env):
    """The pod's resolv.conf names 169.254.20.10; dig there, no @server, resolves."""
    env.reload_allow(PREFIX)
    st0 = env.stats()
    cases = [(["www.test.example"], "www.test.example", "A"),
             (["+search", "www"], "www.test.example", "A"),
             (["-t", "AAAA", "alias1.test.example"], "alias1.test.example", "AAAA"),
             (["+tcp", "-t", "MX", "mx.test.example"], "mx.test.example", "MX"),
             (["many.test.example"], "many.test.example", "A")]
    for args, name, qtype in cases:
        m = dig_pod(env, args)[-1]
        data = m["response_message_data"]
        assert m["response_address"] == LINK_LOCAL and m["response_port"] == 53, m
        got = sorted(line.split(None, 4)[4] for line in data.get("ANSWER_SECTION") or []
                     if line.split()[3] == qtype)
        want = sorted(r.rdata for r in dnsenv.resolve(name, qtype) if r.rtype == qtype)
        if qtype in ("A", "AAAA"):
            want = dnsenv.addresses(name, socket.AF_INET if qtype == "A" else socket.AF_INET6)
            got = sorted(got)
            want = sorted(want)
        assert data["status"] == "NOERROR" and got == want, (args, data["status"], got, want)
        figure("recipe: dig %s (resolv.conf: %s) -> %s %s via %s/%s" % (
            " ".join(args), LINK_LOCAL, data["status"],
            got if len(got) <= 4 else "%d records" % len(got), m["response_address"],
            m["socket_protocol"]))
    st1 = env.stats()
    d = {k: st1[k] - st0[k] for k in ("dns_queries_udp", "dns_queries_tcp", "dns_refused",
                                      "dns_truncated")}
    figure("recipe: statistics moved %s" % d)
    assert d["dns_refused"] == 0 and d["dns_queries_udp"] >= 4 and d["dns_queries_tcp"] >= 2, d
    assert d["dns_truncated"] >= 1, d      # many.test.example, then over TCP


# --- main ---------------------------------------------------------------------

def main(argv):
    global BUILD
    if argv[:1] == ["--pod-probe"]:
        return pod_probe_main()
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("-k", help="run only tests whose name contains this")
    args = ap.parse_args(argv)
    BUILD = os.path.abspath(args.build)
    # This process is the node; dig +yaml is read with python3-yaml.
    privns.enter("network namespaces, veth", net=True, tools=TOOLS + (dnsenv.NSD,),
                 modules=("yaml",), probe=True)
    # meson's timeout sends SIGTERM: unwind, so that the finally below stops
    # nsd (a session of its own), the daemon and the pod.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("netns.py: SIGTERM"))
    failed = ran = 0
    t_all = time.monotonic()
    pod = nsd = d = None
    with tempfile.TemporaryDirectory(prefix="dlnetns-") as tmp:
        os.chmod(tmp, 0o755)
        try:
            pod = Pod(tmp)
            wire(pod, tmp)
            nsd = dnsenv.Nsd(os.path.join(tmp, "nsd"))
            ddir = os.path.join(tmp, "daemon")
            os.makedirs(ddir)
            d = nclib.Daemon(BUILD, ddir, hosts_text=NODE_HOSTS, conf_text="dns_sources = dns\n",
                             upstream="127.0.0.1:%d" % nsd.port,
                             args=["--dns-listen", " ".join(s + ":53" for s in SERVERS)])
            d.start()
            nclib.wait_until(lambda: all(
                "udp %s:53" % s in d.ctl_json("status").get("dns_listen", "") for s in SERVERS),
                "the listeners up")
            st = d.ctl_json("status")
            print("status: dns_listen %r, dns_allow %r, dns_sources %r" % (
                st.get("dns_listen"), st.get("dns_allow"), st.get("dns_sources")))
            assert st.get("dns_sources") == "dns", st
            env = Env(tmp, d, pod)
            for fn in TESTS:
                if args.k and args.k not in fn.__name__:
                    continue
                ran += 1
                t0 = time.monotonic()
                try:
                    fn(env)
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
        except Exception:
            failed += 1
            traceback.print_exc()
        finally:
            if d:
                d.stop()
                if failed:
                    print("---- daemon log ----\n%s" % d.read_log()[-4000:])
            if nsd:
                nsd.stop()
            if pod:
                pod.close()
    print("---- figures ----")
    for f in FIGURES:
        print(f)
    print("%d tests, %d failed (%.1f s)" % (ran, failed, time.monotonic() - t_all))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
