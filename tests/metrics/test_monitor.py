#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/metrics/test_monitor.py - namecachectl monitor, the query log, the metrics' counts (issue 23).

Through the real CLI (`namecachectl --json monitor`), each event checked
field by field: hits, misses, coalesced, stale and negative lookups, from
each front end (namecache's socket, glibc's nscd protocol, the DNS
listener).  Then: non-admins are refused; several monitors see the same
lookups; a monitor that never reads, while 30,000 lookups run, costs the
daemon a bounded amount, loses events, and is told how many; the query log
says the same; the metrics' histograms count every lookup made.

The engine's own classification (hit, miss, coalesced, stale, prefetch,
on a fake clock) is tests/unit/scenarios/observe.scn's.

Each daemon has a FaultServer on 127.0.0.1 as its only upstream.

Run: /usr/bin/python3 tests/metrics/test_monitor.py --build BUILD [-k NAME]
"""
import json
import os
import queue
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import dnsenv  # noqa: E402
import nclib  # noqa: E402

BUILD = None
# When this test began (wall clock): every event it sees is stamped after.
STARTED = time.time()
TESTS = []
HOSTS = "127.0.0.1 localhost\n192.0.2.10 web.test web\n2001:db8::10 web.test\n"
NSCD_GETAI = 14


def test(fn):
    TESTS.append(fn)
    return fn


def ctl_path():
    return os.path.join(BUILD, "cli", "namecachectl")


class Monitor:
    """`namecachectl --json monitor` in the background; its events on a queue."""

    def __init__(self, d, prefix=()):
        self.proc = subprocess.Popen(list(prefix) + [ctl_path(), "--socket", d.sock,
                                                     "--json", "monitor"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.events = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        # Attached once the daemon counts it (the header is on stderr).
        nclib.wait_until(lambda: self.proc.poll() is not None or
                         d.ctl_json("statistics")["monitors"] >= 1, "the monitor attached", 10)

    def _read(self):
        for line in self.proc.stdout:
            self.events.put(json.loads(line))
        self.events.put(None)

    def next(self, timeout=nclib.HUNG_SEC):
        ev = self.events.get(timeout=timeout)
        assert ev is not None, "the monitor ended: %s" % self.proc.stderr.read()
        return ev

    def until(self, pred, timeout=nclib.HUNG_SEC):
        """The first event pred accepts; the others before it are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            ev = self.next(max(deadline - time.monotonic(), 0.01))
            if "frontend" in ev and pred(ev):     # not a report of losses alone
                return ev

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def check(ev, **want):
    """Field by field: every key wanted, and the ones every event has."""
    for k, v in want.items():
        assert ev.get(k) == v, "%s: %r, not %r, in %s" % (k, ev.get(k), v, ev)
    assert isinstance(ev["latency_us"], int) and 0 <= ev["latency_us"] < 60_000_000, ev
    # Wall-clock microseconds: after this test started, not after now.
    assert STARTED <= ev["time_us"] / 1e6 <= time.time(), (STARTED, ev)
    assert ev["lost"] == 0, ev


def getent(d, *args):
    """getent through the NSS module, namecache alone; its pid and output."""
    p = subprocess.Popen(["getent", "-s", "namecache"] + list(args),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=nclib.nss_env(BUILD, d.sock))
    out, _ = p.communicate(timeout=30)
    return p.pid, p.returncode, out


def nscd_getai(path, name):
    """glibc's nscd request for getaddrinfo: version 2, GETAI, the name; the reply's found."""
    key = name.encode() + b"\0"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(struct.pack("=iii", 2, NSCD_GETAI, len(key)) + key)
        head = s.recv(24)
    return struct.unpack("=iiiiii", head[:24])[1] if len(head) >= 24 else None


def ctl_query(d, *args):
    p = subprocess.Popen([ctl_path(), "--socket", d.sock, "query"] + list(args),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=30)
    return p.pid, p.returncode, out + err


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.monitors = []
        self.servers = []

    def daemon(self, conf="", args=(), line="files dns", env=None):
        fs = dnsenv.FaultServer()
        fs.set_default("nxdomain", soa=True)
        self.servers.append(fs)
        d = nclib.Daemon(BUILD, self.tmp, hosts_text=HOSTS,
                         conf_text="shared = no\n" + conf,
                         upstream="127.0.0.1:%d" % fs.port, args=args,
                         nsswitch_text="hosts: %s\n" % line, env=env)
        self.daemons.append(d)
        d.start()
        return d, fs

    def monitor(self, d):
        m = Monitor(d)
        self.monitors.append(m)
        return m

    def close(self):
        for m in self.monitors:
            m.close()
        for d in self.daemons:
            rc = d.stop()
            assert rc == 0, "daemon exit %s: %s" % (rc, d.read_log()[-2000:])
        for s in self.servers:
            s.stop()


@test
def socket_lookups_field_by_field(env):
    d, fs = env.daemon()
    fs.set("a.dns.test", "answer", records=[("A", 300, "192.0.2.1")])
    m = env.monitor(d)

    # files: answered at once from the hosts index.
    pid, rc, out = getent(d, "ahosts", "web.test")
    assert rc == 0 and "192.0.2.10" in out, out
    ev = m.until(lambda e: e["name"] == "web.test")
    check(ev, frontend="socket", pid=pid, uid=os.getuid(), command="getent", client="",
          kind="AF_UNSPEC", source="files", cache="hit", result="found",
          status="success", addresses=["192.0.2.10", "2001:db8::10"])

    # An address, back to its names.
    pid, rc, out = getent(d, "hosts", "192.0.2.10")
    ev = m.until(lambda e: e["name"] == "192.0.2.10")
    check(ev, frontend="socket", pid=pid, command="getent", kind="PTR", source="files",
          cache="hit", result="found", addresses=["web.test", "web"])

    # dns: a miss, then a hit of the cache.
    pid, rc, out = ctl_query(d, "-4", "a.dns.test")
    assert rc == 0, out
    ev = m.until(lambda e: e["name"] == "a.dns.test")
    check(ev, frontend="socket", pid=pid, command="namecachectl", kind="AF_INET",
          source="dns", cache="miss", result="found", addresses=["192.0.2.1"])
    pid, rc, out = ctl_query(d, "-4", "a.dns.test")
    ev = m.until(lambda e: e["name"] == "a.dns.test")
    check(ev, pid=pid, source="dns", cache="hit", result="found", addresses=["192.0.2.1"])

    # Negative: NXDOMAIN with its SOA, kept; then a hit of the negative answer.
    for cache in ("miss", "hit"):
        pid, rc, out = ctl_query(d, "-4", "nx.dns.test")
        assert rc == 1, out
        ev = m.until(lambda e: e["name"] == "nx.dns.test")
        check(ev, pid=pid, kind="AF_INET", source="dns", cache=cache, result="not found",
              addresses=[])

    # Records of any type (query -t): the type is the kind.
    fs.set("mx.dns.test", "answer", records=[("MX", 300, "10 mail.dns.test.")])
    pid, rc, out = ctl_query(d, "-t", "MX", "mx.dns.test")
    ev = m.until(lambda e: e["name"] == "mx.dns.test")
    check(ev, kind="MX", source="dns", cache="miss", result="found")
    assert len(ev["addresses"]) == 1 and ev["addresses"][0].startswith("MX 10 mail.dns.test"), ev

    # A failure upstream.
    fs.set("bad.dns.test", "servfail")
    pid, rc, out = ctl_query(d, "-4", "bad.dns.test")
    ev = m.until(lambda e: e["name"] == "bad.dns.test")
    check(ev, source="dns", cache="miss", result="failure")


@test
def coalesced_lookups_wait_for_one_fetch(env):
    d, fs = env.daemon()
    fs.set("slow.dns.test", "answer", records=[("A", 300, "192.0.2.7")])
    m = env.monitor(d)
    fs.hold("slow.dns.test")
    first = subprocess.Popen([ctl_path(), "--socket", d.sock, "query", "-4", "slow.dns.test"],
                             stdout=subprocess.PIPE, text=True)
    nclib.wait_until(lambda: fs.count("slow.dns.test", "A") >= 1,
                     "the first query upstream", 10)
    second = subprocess.Popen([ctl_path(), "--socket", d.sock, "query", "-4",
                               "slow.dns.test"], stdout=subprocess.PIPE, text=True)
    # The second is in the daemon, waiting, before the answer is let go.
    nclib.wait_until(lambda: d.ctl_json("statistics")["coalesced"] >= 1,
                     "the second lookup joined", 10)
    fs.release("slow.dns.test")
    assert first.wait(30) == 0 and second.wait(30) == 0
    got = {}
    for _ in range(2):
        ev = m.until(lambda e: e["name"] == "slow.dns.test")
        got[ev["pid"]] = ev
    check(got[first.pid], cache="miss", source="dns", result="found",
          addresses=["192.0.2.7"])
    check(got[second.pid], cache="coalesced", source="dns", result="found",
          addresses=["192.0.2.7"])
    assert fs.count("slow.dns.test", "A") == 1


@test
def stale_answers_are_marked_stale(env):
    # The rule itself is the engine's, on a fake clock (observe.scn); here
    # the monitor shows it: a 1 s TTL runs out, then upstream fails.
    d, fs = env.daemon("serve_stale = 3600\nfailure_ttl = 0\n")
    fs.set("st.dns.test", "answer", records=[("A", 1, "192.0.2.9")])
    m = env.monitor(d)
    ctl_query(d, "-4", "st.dns.test")
    m.until(lambda e: e["name"] == "st.dns.test")
    time.sleep(1.2)
    fs.set("st.dns.test", "servfail")
    pid, rc, out = ctl_query(d, "-4", "st.dns.test")
    assert rc == 0, out
    ev = m.until(lambda e: e["name"] == "st.dns.test")
    check(ev, pid=pid, source="dns", cache="stale", result="found",
          addresses=["192.0.2.9"])


@test
def nscd_and_dns_front_ends(env):
    nscd = os.path.join(env.tmp, "nscd.sock")
    port = dnsenv.free_port()
    d, fs = env.daemon("dns_listen = 127.0.0.1:%d\n" % port, args=["--nscd-socket", nscd])
    fs.set("d.dns.test", "answer", records=[("A", 300, "192.0.2.4"),
                                            ("AAAA", 300, "2001:db8::4")])
    m = env.monitor(d)

    assert nscd_getai(nscd, "web.test") == 1
    ev = m.until(lambda e: e["name"] == "web.test")
    check(ev, frontend="nscd", pid=os.getpid(), command=open("/proc/self/comm").read().strip(),
          kind="AF_UNSPEC", source="files", cache="hit", result="found",
          addresses=["192.0.2.10", "2001:db8::10"])

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        me = s.getsockname()[1]
        for cache in ("miss", "hit"):
            s.sendto(dnsenv.make_query("d.dns.test", "A").pack(), ("127.0.0.1", port))
            s.settimeout(10)
            s.recvfrom(4096)
            ev = m.until(lambda e: e["name"] == "d.dns.test" and e["frontend"] == "dns")
            check(ev, frontend="dns", pid=-1, command="", client="127.0.0.1:%d" % me,
                  kind="A", source="dns", result="found")
            assert ev["cache"] == cache or (cache == "miss" and ev["cache"] == "coalesced"), ev
            assert "192.0.2.4" in ev["addresses"], ev


def nscd_db_ask(path, req_type, key):
    """One request of nscd's other databases (getpwnam 0, getpwuid 1, ...); found."""
    key = key.encode() + b"\0"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(struct.pack("=iii", 2, req_type, len(key)) + key)
        head = s.recv(8)
    return struct.unpack("=ii", head[:8])[1] if len(head) >= 8 else None


@test
def nscd_databases_are_shown_too(env):
    # passwd through glibc's own files module (/etc/passwd: root is uid 0).
    nscd = os.path.join(env.tmp, "nscd.sock")
    d, fs = env.daemon(line="files dns\npasswd: files\ngroup: files",
                       args=["--nscd-socket", nscd])
    m = env.monitor(d)
    me = open("/proc/self/comm").read().strip()
    for cache in ("miss", "hit"):
        assert nscd_db_ask(nscd, 0, "root") == 1          # GETPWBYNAME
        ev = m.until(lambda e: e["frontend"] == "nscd" and e["name"] == "root")
        check(ev, pid=os.getpid(), command=me, kind="getpwnam", cache=cache,
              source="files" if cache == "miss" else "nscd-map", result="found",
              addresses=[])
    assert nscd_db_ask(nscd, 1, "0") == 1                 # GETPWBYUID
    check(m.until(lambda e: e["kind"] == "getpwuid"), name="0", source="files",
          cache="miss", result="found")
    assert nscd_db_ask(nscd, 0, "no-such-user-nc") == 0
    check(m.until(lambda e: e["name"] == "no-such-user-nc"), kind="getpwnam",
          source="files", cache="miss", result="not found")
    text = d.ctl("metrics").stdout
    assert metric_sum(text, "namecache_lookups_total", frontend="nscd") == 4, text


@test
def non_admins_are_refused(env):
    os.chmod(env.tmp, 0o755)        # nobody may reach the socket, not monitor
    d, fs = env.daemon()
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        ctl_path(), "--socket", d.sock, "monitor"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "permission denied" in r.stderr, r.stderr
    assert d.ctl_json("statistics")["monitors"] == 0
    assert "admin request refused" in d.read_log()


@test
def several_monitors_see_every_lookup(env):
    d, fs = env.daemon()
    ms = [env.monitor(d) for _ in range(3)]
    assert d.ctl_json("statistics")["monitors"] == 3
    pid, rc, out = getent(d, "ahosts", "web.test")
    for m in ms:
        check(m.until(lambda e: e["name"] == "web.test"), pid=pid, cache="hit")
    ms[0].close()
    env.monitors.remove(ms[0])
    getent(d, "ahosts", "localhost")
    for m in ms[1:]:
        m.until(lambda e: e["name"] == "localhost")
    # The closed one is let go at the next lookup or tick.
    nclib.wait_until(lambda: d.ctl_json("statistics")["monitors"] == 2,
                     "the closed monitor let go", 10)


@test
def modules_are_shown_by_name_and_in_their_own_words(env):
    # tests/nss/nss_nctest.c: ok-N.nct found, anything else NOTFOUND.
    d, fs = env.daemon(line="files nctest dns", env=dict(
        os.environ, LD_LIBRARY_PATH=os.path.join(BUILD, "tests", "nss")))
    m = env.monitor(d)
    for cache in ("miss", "hit"):
        pid, rc, out = getent(d, "ahosts", "ok-1.nct")
        assert rc == 0 and "198.51.100.1" in out, out
        ev = m.until(lambda e: e["name"] == "ok-1.nct")
        check(ev, pid=pid, kind="AF_UNSPEC", source="nctest", cache=cache, result="found")
        assert "198.51.100.1" in ev["addresses"], ev
    # NOTFOUND from the module, then NXDOMAIN from dns: the last source answers.
    pid, rc, out = getent(d, "ahosts", "nothing.nct")
    ev = m.until(lambda e: e["name"] == "nothing.nct")
    check(ev, pid=pid, source="dns", result="not found")
    # show-cache: the module's negative answer in its own words, DNS's in DNS's.
    rows = [r for r in d.ctl_json("show-cache") if r["name"] == "nothing.nct"]
    mod = [r for r in rows if r["source"] == "nctest"]
    dns = [r for r in rows if r["source"] == "dns"]
    assert mod and all(r["status"] == "notfound" for r in mod), rows
    assert dns and all(r["status"] == "NXDOMAIN" for r in dns), rows
    text = d.ctl("show-cache").stdout
    line = [l for l in text.splitlines() if l.startswith("nothing.nct") and "nctest" in l]
    assert line and "notfound" in line[0] and "NXDOMAIN" not in line[0], text
    # The module's calls, timed.
    metrics = d.ctl("metrics").stdout
    calls = d.ctl_json("statistics")["nss_nctest_calls"]
    assert calls >= 2
    assert metric_sum(metrics, "namecache_nss_module_call_duration_seconds_count",
                      module="nctest") == calls, metrics
    assert metric_sum(metrics, "namecache_nss_module_calls_total", module="nctest") == calls


def vmrss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


@test
def a_monitor_that_never_reads_loses_events_not_memory(env):
    d, fs = env.daemon()
    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    idle.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    idle.connect(d.sock)
    idle.sendall(nclib.frame(11, fid=77))           # PROTO_MONITOR, then never read
    nclib.wait_until(lambda: d.ctl_json("statistics")["monitors"] == 1,
                     "the idle monitor attached", 10)
    reader = env.monitor(d)                         # one that reads, meanwhile
    before = vmrss_kb(d.proc.pid)
    n, depth, answered = 30000, 64, 0
    deadline = time.monotonic() + 120
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(d.sock)
        sent = 0
        while answered < n:
            assert time.monotonic() < deadline, "lookups too slow: %d of %d" % (answered, n)
            while sent < n and sent - answered < depth:
                s.sendall(nclib.name_req("web.test", family=4, fid=sent + 1))
                sent += 1
            f = nclib.read_frame(s)
            assert f is not None and f["status"] == 0, f
            answered += 1
    after = vmrss_kb(d.proc.pid)
    st = d.ctl_json("statistics")
    # Every lookup answered; the idle monitor's queue stays at its bound
    # (256 KiB) and the rest is counted lost.
    assert st["monitor_lost"] > 0, st
    assert st["monitors"] == 2, st
    assert after - before < 16 * 1024, "VmRSS grew %d kB" % (after - before)
    # The one that reads lost nothing it was not told of.
    seen = 0
    lost = 0
    while seen + lost < n:
        ev = reader.next(30)
        lost += ev["lost"]
        # A report of losses alone has no frontend (when this reader, too,
        # falls behind: under ASan it can).
        seen += ev.get("frontend") == "socket"
    # The idle one, read at last: its queue, then the count of what it lost.
    idle.settimeout(5)
    told = 0
    got = 0
    header = True                   # the reply to the request: a kv list
    buf = b""
    try:
        while True:
            chunk = idle.recv(65536)
            if not chunk:
                break
            buf += chunk
            while len(buf) >= 12:
                (ln,) = struct.unpack(">I", buf[:4])
                if len(buf) < ln:
                    break
                if struct.unpack(">I", buf[8:12])[0] == 77 and not header:
                    # An event: u64 time, u32 latency, u64 lost, ...
                    told += struct.unpack(">Q", buf[12 + 12:12 + 20])[0]
                    got += 1
                header = False
                buf = buf[ln:]
            if told:
                break
    except socket.timeout:
        pass
    idle.close()
    assert told > 0, "the idle monitor was never told of its losses (%d frames)" % got
    print("  30,000 lookups: VmRSS %d -> %d kB, the idle monitor lost %d (told %d), "
          "the reader saw %d and was told of %d lost" % (before, after, st["monitor_lost"],
                                                         told, seen, lost))


@test
def the_query_log_says_the_same(env):
    d, fs = env.daemon("log_queries = yes\n")
    assert d.ctl_json("status")["log_queries"] == "yes"
    pid, rc, out = getent(d, "ahosts", "web.test")
    nclib.wait_until(lambda: "web.test" in d.read_log(), "the log line", 10)
    line = [l for l in d.read_log().splitlines() if "query socket" in l and "web.test" in l][0]
    assert "pid %d (getent)" % pid in line, line
    assert "web.test AF_UNSPEC from files, hit: found 192.0.2.10 2001:db8::10" in line, line
    assert d.ctl_json("statistics")["queries_logged"] >= 1


def metric_sum(text, name, **labels):
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all('%s="%s"' % kv in line for kv in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


@test
def histogram_counts_equal_the_lookups_made(env):
    d, fs = env.daemon()
    fs.set("h.dns.test", "answer", records=[("A", 300, "192.0.2.5")])
    r = d.ctl("reset-statistics")
    assert r.returncode == 0, r.stderr
    made = 0
    for name in ("web.test", "localhost", "h.dns.test", "h.dns.test", "nx.dns.test"):
        ctl_query(d, "-4", name)
        made += 1
    r = d.ctl("metrics")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert metric_sum(text, "namecache_lookup_duration_seconds_count") == made, text
    assert metric_sum(text, "namecache_lookups_total", frontend="socket") == made
    assert metric_sum(text, "namecache_lookup_duration_seconds_count", source="files") == 2
    assert metric_sum(text, "namecache_lookup_duration_seconds_count", source="dns",
                      cache="miss") == 2
    assert metric_sum(text, "namecache_lookup_duration_seconds_count", source="dns",
                      cache="hit") == 1
    assert metric_sum(text, "namecache_lookups_total", result="not found") == 1
    # Upstream: every reply matched to its server's query.
    assert metric_sum(text, "namecache_upstream_rtt_seconds_count") == \
        metric_sum(text, "namecache_upstream_server_replies_total") > 0
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: scripts/deps.sh installs Debian's prometheus"
    p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr


def main():
    global BUILD
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("-k", default=None)
    args = ap.parse_args()
    BUILD = os.path.abspath(args.build)
    failed = 0
    for fn in TESTS:
        if args.k and args.k not in fn.__name__:
            continue
        tmp = tempfile.mkdtemp(prefix="nc-monitor-")
        env = Env(tmp)
        t0 = time.monotonic()
        try:
            fn(env)
            env.close()
            print("ok   %s (%.1fs)" % (fn.__name__, time.monotonic() - t0))
        except Exception as e:
            failed += 1
            import traceback
            traceback.print_exc()
            print("FAIL %s: %s" % (fn.__name__, e))
            try:
                env.close()
            except Exception as e2:
                print("  (and at close: %s)" % e2)
            for d in env.daemons:
                print(d.read_log()[-3000:])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
