#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/metrics/test_metrics_http.py - GET /metrics on metrics_listen (issue 23).

libevent's evhttp serves it (daemon/observe/httpmetrics.c); these are its answers
and its limits, with lookups answered all along:

  * GET /metrics: 200, Prometheus' content type, a body that
    `promtool check metrics` passes; `namecachectl metrics` passes it too
    and names the same families;
  * another path: 404; another method: 405;
  * hostile clients: a path of 64 KiB, 1,000 headers, a client sending a
    header byte a second, 200 idle connections.  Each is answered with an
    error or closed, within the limits (HTTPMETRICS_* in httpmetrics.h),
    and counted in `namecachectl statistics' (metrics_http_*);
  * out of descriptors: the listener pauses instead of spinning;
  * a stop and a reload with connections open; [::1]; a port already
    taken: the daemon says so and stops.

Each daemon has a FaultServer on 127.0.0.1 as its only upstream, and
metrics_listen on a free port of 127.0.0.1 (or ::1): nothing leaves
loopback.  promtool comes from Debian's prometheus (scripts/deps.sh).

Run: /usr/bin/python3 tests/metrics/test_metrics_http.py --build BUILD [-k NAME]
"""
import http.client
import os
import resource
import select
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import dnsenv  # noqa: E402
import nclib  # noqa: E402

BUILD = None
TESTS = []
PROMTOOL = "/usr/bin/promtool"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
HOSTS = "127.0.0.1 localhost\n192.0.2.7 web.metrics.test\n"
# daemon/observe/httpmetrics.h
CONNS = 16
DEADLINE = 5
# A liveness bound on one exchange: past it, the server hung.
HUNG = 15


def test(fn):
    TESTS.append(fn)
    return fn


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.servers = []
        self.daemons = []
        self.probers = []       # closed after the daemons stopped

    def daemon(self, listen="127.0.0.1", start=True):
        fs = dnsenv.FaultServer()
        fs.set_default("nxdomain", soa=True)
        self.servers.append(fs)
        port = dnsenv.free_port((listen,))
        addr = "[%s]:%d" % (listen, port) if ":" in listen else "%s:%d" % (listen, port)
        # No shared segment: every lookup goes through the daemon's loop.
        d = nclib.Daemon(BUILD, self.tmp, hosts_text=HOSTS,
                         conf_text="metrics_listen = %s\nshared = no\n" % addr,
                         upstream="127.0.0.1:%d" % fs.port)
        d.http_host, d.http_port = listen, port
        self.daemons.append(d)
        if start:
            # Ready when its socket answers; the HTTP one comes a moment later
            # (a connection to see would take one of its places).
            d.start()
            nclib.wait_until(lambda: "metrics on http://" in d.read_log(),
                             "metrics_listen listening")
        return d


def get(d, path="/metrics", method="GET", headers=None):
    """(status, headers, body) of one request on a connection of its own."""
    c = http.client.HTTPConnection(d.http_host, d.http_port, timeout=HUNG)
    try:
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        return r.status, r, r.read()
    finally:
        c.close()


def http_conn(d):
    s = socket.socket(socket.AF_INET6 if ":" in d.http_host else socket.AF_INET)
    s.settimeout(HUNG)
    s.connect((d.http_host, d.http_port))
    return s


def read_to_close(s):
    """What the server sends until it closes: (bytes, "eof" or "reset")."""
    data = b""
    while True:
        try:
            chunk = s.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return data, "reset"
        except socket.timeout:
            raise AssertionError("hung: the server neither answered nor closed in %d s" % HUNG)
        if not chunk:
            return data, "eof"
        data += chunk


def lookup(d, name="web.metrics.test"):
    """One lookup over the daemon's socket: True when answered with its address."""
    with nclib.connect(d, HUNG) as s:
        s.sendall(nclib.name_req(name, family=4))
        f = nclib.read_frame(s)
    return f is not None and f["status"] == nclib.OK and \
        nclib.parse_answer(f["body"])["addrs"] == ["192.0.2.7"]


class Lookups(threading.Thread):
    """Lookups, one after the other, until finish(): every one must be answered."""

    def __init__(self, d):
        super().__init__(daemon=True)
        self.d = d
        self.ok = 0
        self.failed = []
        self.stopping = threading.Event()
        self.start()

    def run(self):
        while not self.stopping.is_set():
            try:
                if lookup(self.d):
                    self.ok += 1
                else:
                    self.failed.append("wrong answer")
            except OSError as e:
                self.failed.append(repr(e))
            time.sleep(0.02)

    def finish(self):
        self.stopping.set()
        self.join(HUNG)
        print("lookups meanwhile: %d answered, %d failed" % (self.ok, len(self.failed)))
        assert not self.failed and self.ok > 0, self.failed[:5]
        # And through the NSS module, as a program would.
        r = self.d.getent("ahostsv4", "web.metrics.test")
        assert r.returncode == 0 and "192.0.2.7" in r.stdout, r


def promtool(text, what):
    if not os.access(PROMTOOL, os.X_OK):
        raise AssertionError("%s is missing: install Debian's prometheus "
                             "(scripts/deps.sh does)" % PROMTOOL)
    r = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, "promtool check metrics on %s: %d\n%s%s" % (
        what, r.returncode, r.stdout, r.stderr)


def http_stats(d):
    st = d.ctl_json("statistics")
    return {k[len("metrics_http_"):]: v for k, v in st.items() if k.startswith("metrics_http_")}


def assert_stats(d, **want):
    got = http_stats(d)
    print("statistics: %s" % got)
    for k, v in want.items():
        assert got.get(k) == v, (k, v, got)


def families(text):
    return sorted(l.split()[2] for l in text.splitlines() if l.startswith("# TYPE "))


def still_serving(d):
    assert lookup(d)
    status, r, body = get(d)
    assert status == 200 and b"# TYPE namecache_" in body, (status, body[:200])


@test
def get_metrics(env):
    d = env.daemon()
    status, r, body = get(d)
    assert status == 200, status
    assert r.getheader("Content-Type") == CONTENT_TYPE, r.getheaders()
    text = body.decode()
    promtool(text, "GET /metrics")
    names = families(text)
    assert names and all(n.startswith("namecache_") for n in names), names
    assert all("# HELP %s " % n in text for n in names), "a family without # HELP"
    print("GET /metrics: %d bytes, %d families, promtool passes" % (len(body), len(names)))
    # The path decides, not the query string; %-escapes are decoded first.
    assert get(d, "/metrics?name[]=x")[0] == 200
    assert get(d, "/metric%73")[0] == 200
    status, r, body = get(d, method="HEAD")
    assert status == 200 and body == b"" and int(r.getheader("Content-Length")) > 0, \
        (status, r.getheaders(), body[:100])
    assert_stats(d, requests=4, not_found=0, refused=0, bad=0)


@test
def other_paths_and_methods(env):
    d = env.daemon()
    for path in ("/other", "/", "/metrics/", "/METRICS"):
        status, r, body = get(d, path)
        assert status == 404, (path, status)
    for method in ("POST", "PUT", "DELETE", "OPTIONS"):
        status, r, body = get(d, method=method)
        assert status == 405 and r.getheader("Allow") == "GET, HEAD", (method, status)
    print("4 other paths: 404; 4 other methods: 405")
    assert_stats(d, requests=0, not_found=4, refused=0, bad=4)


def hostile(d, request, what):
    """Sends request; the server must answer 4xx or close, within HUNG."""
    s = http_conn(d)
    t0 = time.monotonic()
    try:
        s.sendall(request)
        sent = "sent whole"
    except (ConnectionResetError, BrokenPipeError) as e:
        sent = "closed while sending (%s)" % e.__class__.__name__
    data, how = read_to_close(s)
    s.close()
    line = data.split(b"\r\n", 1)[0].decode(errors="replace")
    print("%s: %s, then %r and %s after %.2f s" % (what, sent, line, how,
                                                   time.monotonic() - t0))
    assert data == b"" or line.startswith("HTTP/1.1 4"), line
    return line


@test
def path_of_64k(env):
    d = env.daemon()
    lk = Lookups(d)
    hostile(d, b"GET /" + b"a" * 65536 + b" HTTP/1.1\r\nHost: x\r\n\r\n", "a path of 64 KiB")
    still_serving(d)
    lk.finish()
    assert_stats(d, requests=1, bad=1)


@test
def huge_headers(env):
    d = env.daemon()
    lk = Lookups(d)
    headers = b"".join(b"X-Header-%04d: %s\r\n" % (i, b"v" * 84) for i in range(1000))
    hostile(d, b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n",
            "1000 headers of 100 bytes")
    still_serving(d)
    lk.finish()
    assert_stats(d, requests=1, bad=1)


@test
def slow_headers(env):
    """A header byte a second: evhttp's timeout restarts with each byte; the
    deadline does not."""
    d = env.daemon()
    lk = Lookups(d)
    s = http_conn(d)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    t0 = time.monotonic()
    closed = None
    served = 0
    while closed is None and time.monotonic() - t0 < HUNG:
        try:
            s.send(b"a")
            r, _, _ = select.select([s], [], [], 1.0)
            if r:
                data = s.recv(4096)
                closed = "eof" if data == b"" else None
                assert data == b"", "an answer to half a request: %r" % data[:100]
        except (ConnectionResetError, BrokenPipeError) as e:
            closed = e.__class__.__name__
        status, _, _ = get(d)   # another client meanwhile
        assert status == 200, status
        served += 1
    s.close()
    print("a byte a second: closed (%s) after %.1f s; %d GET /metrics meanwhile" % (
        closed, time.monotonic() - t0, served))
    assert closed, "not closed after %d s" % HUNG
    lk.finish()
    assert_stats(d, requests=served, bad=1)


@test
def many_idle_connections(env):
    d = env.daemon()
    lk = Lookups(d)
    idle = [http_conn(d) for _ in range(200)]
    # Past the cap, closed at once: seen as refused, and as EOF by the client.
    nclib.wait_until(lambda: http_stats(d)["refused"] == 200 - CONNS,
                     lambda: "%d refused, want %d" % (http_stats(d)["refused"], 200 - CONNS))
    shut = 0
    for s in idle:
        if select.select([s], [], [], 0)[0]:
            try:
                shut += s.recv(1) == b""
            except ConnectionResetError:
                shut += 1
    print("200 idle connections: %d closed at once, %d kept" % (shut, 200 - shut))
    assert shut == 200 - CONNS, shut
    # A new client is turned away while the idle ones hold every place ...
    try:
        status = get(d)[0]
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        status = None
    assert status is None, status
    assert http_stats(d)["refused"] == 200 - CONNS + 1
    # ... and served once the deadline has closed them (each try before
    # that is one more refused).
    t0 = time.monotonic()
    tries = []
    nclib.wait_until(lambda: tries.append(get_or_none(d)) or tries[-1] == 200,
                     "GET /metrics served again", step=0.2)
    print("served again after %.1f s (deadline %d s), %d tries turned away" % (
        time.monotonic() - t0, DEADLINE, len(tries) - 1))
    for s in idle:
        s.close()
    lk.finish()
    assert set(tries[:-1]) <= {None}, tries
    assert_stats(d, requests=1, refused=200 - CONNS + len(tries), bad=CONNS)


def get_or_none(d):
    """The status, or None when the connection is closed unanswered."""
    try:
        return get(d)[0]
    except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
        return None


@test
def stop_with_connections_open(env):
    """SIGTERM with connections in every state: the exit is clean (under
    ASan: leak-free), as nclib.run_tests checks."""
    d = env.daemon()
    half = http_conn(d)
    half.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    env.probers.append(half)
    env.probers += [http_conn(d) for _ in range(CONNS + 3)]
    nclib.wait_until(lambda: http_stats(d)["refused"] == 4, "4 refused")
    print("stopping with %d connections open, one of them half a request" % CONNS)


@test
def reload_moves_the_endpoint(env):
    """A reload that changes metrics_listen closes the old socket and its
    connections, and serves on the new one."""
    d = env.daemon()
    old = d.http_port
    idle = [http_conn(d) for _ in range(CONNS + 4)]
    env.probers += idle
    nclib.wait_until(lambda: http_stats(d)["refused"] == 4, "4 refused")
    new = dnsenv.free_port(("127.0.0.1",))
    with open(d.conf, "w") as f:
        f.write("metrics_listen = 127.0.0.1:%d\nshared = no\n" % new)
    r = d.ctl("reload")
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    d.http_port = new
    nclib.wait_until(lambda: get_or_none(d) == 200, "GET /metrics on the new port")
    for s in idle:
        assert read_to_close(s)[0] == b""
    try:
        socket.create_connection(("127.0.0.1", old), timeout=HUNG).close()
        raise AssertionError("the old port still accepts")
    except ConnectionRefusedError:
        pass
    print("reload: port %d -> %d; the %d old connections closed" % (old, new, len(idle)))


@test
def out_of_descriptors(env):
    """accept() failing with EMFILE: libevent alone would retry at once,
    forever, logging each time; the listener pauses a second instead, and
    takes the waiting connections once descriptors are free."""
    if nclib.valgrind_prefix():
        nclib.skip_part("out_of_descriptors", "valgrind keeps descriptors of its own")
        return
    d = env.daemon()
    pid = d.proc.pid
    soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (len(os.listdir("/proc/%d/fd" % pid)), hard))
    waiting = [http_conn(d) for _ in range(3)]
    env.probers += waiting
    t0 = time.monotonic()
    pauses = lambda: d.read_log().count("metrics_listen: accept: Too many open files")  # noqa
    spins = lambda: d.read_log().count("Error from accept() call")  # noqa: libevent's
    nclib.wait_until(lambda: pauses() >= 3 or spins(), "3 pauses")
    n, elapsed = pauses(), time.monotonic() - t0
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))
    print("out of descriptors: %d pauses in %.1f s, %d retries at once" % (n, elapsed, spins()))
    # The mechanism: no accept() retried at once by libevent; the pause
    # itself is the listener's timer (its pace is printed, not asserted).
    assert spins() == 0, "libevent retried accept() %d times" % spins()
    nclib.wait_until(lambda: get_or_none(d) == 200, "GET /metrics once descriptors are free")
    for s in waiting:
        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
        assert read_to_close(s)[0].startswith(b"HTTP/1.0 200 "), "a waiting one not served"
    assert_stats(d, requests=4, refused=0)


@test
def ctl_metrics(env):
    d = env.daemon()
    r = d.ctl("metrics")
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    promtool(r.stdout, "namecachectl metrics")
    status, _, body = get(d)
    assert status == 200
    # One renderer for both: the same families.
    assert families(r.stdout) == families(body.decode()), (
        set(families(r.stdout)) ^ set(families(body.decode())))
    print("namecachectl metrics: %d families, promtool passes, as GET /metrics" %
          len(families(r.stdout)))


@test
def ipv6_loopback(env):
    if not dnsenv.have_ipv6():
        nclib.skip_part("ipv6_loopback", "no ::1")
        return
    d = env.daemon(listen="::1")
    status, _, body = get(d)
    assert status == 200 and b"# TYPE namecache_" in body, status
    print("metrics_listen = [::1]:%d: 200" % d.http_port)


@test
def port_taken(env):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        d = env.daemon(start=False)
        d.http_port = taken.getsockname()[1]
        with open(d.conf, "w") as f:
            f.write("metrics_listen = 127.0.0.1:%d\n" % d.http_port)
        d.start(wait=False)
        d.killed = True
        try:
            rc = d.proc.wait(HUNG)
        except subprocess.TimeoutExpired:
            raise AssertionError("still running with metrics_listen on a port taken")
        log = d.read_log()
        print("port taken: exit status %d, %s" % (rc, log.strip().splitlines()[-1]))
        assert rc != 0 and "Address already in use" in log, (rc, log)


def main():
    def set_build(b):
        global BUILD
        BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-metrics-", set_build)


if __name__ == "__main__":
    sys.exit(main())
