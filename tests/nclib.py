# SPDX-License-Identifier: MIT
"""tests/nclib.py - what the Python tests share: how to load the NSS module from a build."""
import os
import re
import subprocess

_preload = {}


def sanitizer_preload(build):
    """The sanitizer runtimes the build's NSS module needs preloaded, or "".

    An ASan-built module refuses to load into an uninstrumented program
    (getent) unless the runtime comes first, so tests preload it."""
    if build not in _preload:
        module = os.path.join(build, "nss-shim", "libnss_namecache.so.2")
        out = subprocess.run(["ldd", module], capture_output=True, text=True).stdout
        libs = re.findall(r"(\S*lib(?:asan|ubsan)\.so\.\d+) => (\S+)", out)
        _preload[build] = " ".join(path for _, path in libs)
    return _preload[build]


def nss_env(build, sock, base=None):
    """Environment for a process that should reach the daemon at sock through NSS."""
    env = dict(base if base is not None else os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(build, "nss-shim")
    env["NAMECACHE_SOCKET"] = sock
    pre = sanitizer_preload(build)
    if pre:
        env["LD_PRELOAD"] = pre
        # getent itself is not ours to leak-check.
        env["ASAN_OPTIONS"] = "detect_leaks=0:verify_asan_link_order=0"
    return env


# --- what a test did not run, and what a sanitizer found --------------------------

import atexit  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import struct  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402


def skip_part(what, why):
    """Says that the part what of a test did not run, and why: one line
    "SKIP WHAT: WHY", which scripts/test.sh counts and holds to
    tests/skip-allow.txt.  (A test none of which can run exits 77.)"""
    print("SKIP %s: %s" % (what.replace(" ", "_"), why), flush=True)


# What AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer
# write when they find something: any of these in a daemon's output fails
# the test, even when the daemon went on (UBSan without halt_on_error) or
# its exit status was not looked at.
SANITIZER_MARKS = ("runtime error:", "ERROR: AddressSanitizer", "LeakSanitizer",
                   "ERROR: ThreadSanitizer", "WARNING: ThreadSanitizer")
_reports = []


def sanitizer_reports(text):
    """The lines of text that are a sanitizer's report."""
    return [l for l in text.splitlines() if any(m in l for m in SANITIZER_MARKS)]


def check_log(path, who=None):
    """Reads the log at path (a daemon's stderr) for sanitizer reports.
    They are kept, and fail the test at exit whatever else it said
    (_exit_status); returns them, so that a caller may fail at once."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return []
    found = sanitizer_reports(text)
    if found:
        start = text.find(found[0])
        _reports.append("%s: %s\n%s" % (who or path, found[0], text[max(start - 200, 0):
                                                                  start + 3000]))
    return found


def _exit_status():
    """At exit: a test whose daemons reported nothing keeps its status; one
    whose did fails (1), with the reports printed, even if it passed or
    skipped.  Registered first, so it runs last of the exit handlers."""
    if _reports:
        sys.stdout.flush()
        print("FAIL: sanitizer reports in the logs of daemons this test ran:", flush=True)
        for r in _reports:
            print(r, flush=True)
        sys.stderr.flush()
        os._exit(1)


atexit.register(_exit_status)


# --- a daemon of the test's own ------------------------------------------------

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "dns"))
import dnsenv  # noqa: E402
import privns  # noqa: E402


def valgrind_prefix():
    """With NAMECACHE_VALGRIND=1, every test daemon runs under memcheck: any
    error, or a definite or indirect leak at exit, makes it exit 99, which
    fails the test (run_tests wants 0), with the report in the daemon's log."""
    if os.environ.get("NAMECACHE_VALGRIND", "0") in ("", "0"):
        return []
    return ["valgrind", "--quiet", "--error-exitcode=99", "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--show-leak-kinds=definite,indirect", "--track-origins=yes",
            "--log-fd=2"]


class Daemon:
    """One namecached in a folder of its own, with its own hosts file and config.

    DNS stays on loopback: pass resolv (a resolv.conf the test wrote) and
    upstream ("127.0.0.1:PORT"), or upstream=False to use resolv's own
    nameservers (loopback ones: the caller checks); with neither, a server of
    the daemon's own on loopback answers NXDOMAIN to everything.  Never the
    machine's resolv.conf."""

    def __init__(self, build, tmp, hosts_text="127.0.0.1 localhost\n", conf_text="",
                 args=(), resolv=None, upstream=None,
                 nsswitch_text="hosts: files dns\n", env=None, prefix=()):
        self.build = build
        self.tmp = tmp
        self.sock = os.path.join(tmp, "sock")
        self.hosts = os.path.join(tmp, "hosts")
        self.conf = os.path.join(tmp, "namecached.conf")
        self.log = os.path.join(tmp, "daemon.log")
        # The hosts line is the test's own, never the machine's: "files
        # dns" unless it says otherwise (nsswitch_text=None: none given).
        self.nsswitch = os.path.join(tmp, "nsswitch.conf")
        if nsswitch_text is not None:
            with open(self.nsswitch, "w") as f:
                f.write(nsswitch_text)
        self.env = env
        if hosts_text is not None:
            with open(self.hosts, "w") as f:
                f.write(hosts_text)
        with open(self.conf, "w") as f:
            f.write(conf_text or "")
        self.args = list(args)
        self.prefix = list(prefix)      # e.g. nsenter into a network namespace
        self.proc = None
        self.logf = None
        self.dns = None
        self.upstream = upstream
        self.resolv = resolv
        if resolv is None:
            self.resolv = os.path.join(tmp, "resolv.conf")
            with open(self.resolv, "w") as f:
                f.write("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")

    def start(self, wait=True):
        if self.upstream is None and self.dns is None:
            self.dns = dnsenv.FaultServer()
            self.dns.set_default("nxdomain", soa=True)
        if self.upstream is False:
            upstream = []
        else:
            upstream = ["--upstream", self.upstream or "127.0.0.1:%d" % self.dns.port]
        self.logf = open(self.log, "ab")
        self.proc = subprocess.Popen(
            self.prefix + valgrind_prefix() +
            [os.path.join(self.build, "daemon", "namecached"), "--config", self.conf,
             "--socket", self.sock, "--hosts-file", self.hosts,
             "--resolv-conf", self.resolv, "--nsswitch-conf", self.nsswitch] +
            upstream + self.args,
            stdout=self.logf, stderr=self.logf, env=self.env)
        if wait:
            # Ready when its socket answers, and its nscd socket if it has one
            # (made after the first).
            socks = [self.sock]
            if "--nscd-socket" in self.args:
                socks.append(self.args[self.args.index("--nscd-socket") + 1])
            deadline = time.monotonic() + (30 if valgrind_prefix() else 5)
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise AssertionError("daemon exited: %s" % self.read_log())
                try:
                    for path in socks:
                        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                            s.connect(path)
                    return self
                except OSError:
                    time.sleep(0.01)
            raise AssertionError("daemon did not start: %s" % self.read_log())
        return self

    def read_log(self):
        with open(self.log, "rb") as f:
            return f.read().decode(errors="replace")

    def sanitizer_reports(self):
        """Sanitizer reports in the log (new ones are kept for the exit
        status: check_log)."""
        text = self.read_log()
        found = sanitizer_reports(text)
        new = found[getattr(self, "_reported", 0):]
        self._reported = len(found)
        if new:
            # The first new report whole (its stack: the daemon's folder
            # is gone when the test ends), then the others' first lines.
            at = text.find(new[0])
            _reports.append("daemon in %s: %s\n%s" % (
                self.tmp, "\n".join(new[:20]),
                "\n".join(text[at:].splitlines()[:60])))
        return found

    def stop(self):
        """SIGTERM; the exit status (0 for a clean stop, leak-free under ASan).
        Its log is read for sanitizer reports, which fail the test."""
        if self.dns:
            self.dns.stop()
            self.dns = None
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(hung_sec())
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.logf:
            self.logf.close()
            self.logf = None
        if self.proc:
            self.sanitizer_reports()
        return self.proc.returncode if self.proc else None

    def ctl(self, *args):
        return subprocess.run([os.path.join(self.build, "cli", "namecachectl"), "--socket",
                               self.sock] + list(args), capture_output=True, text=True,
                              timeout=60)

    def ctl_json(self, *args):
        r = self.ctl("--json", *args)
        assert r.returncode == 0, (args, r.returncode, r.stdout, r.stderr)
        return json.loads(r.stdout)

    def getent(self, *args, service="namecache", sock=None):
        return subprocess.run(["getent", "-s", service] + list(args), capture_output=True,
                              text=True, env=nss_env(self.build, sock or self.sock))

    def write_hosts(self, text):
        """Rewrites the file in place, as `cat > /etc/hosts` would."""
        with open(self.hosts, "w") as f:
            f.write(text)


# --- glibc's nscd path ------------------------------------------------------------

def enter_nscd_namespace():
    """Re-executes the calling script in a private mount namespace (root
    only: exit 77, a skip, otherwise; privns.enter), then sets it up: a
    tmpfs over /run, so that glibc's fixed /var/run/nscd/socket is the
    test's, and the test's /etc/nsswitch.conf (hosts: files, the other
    databases as the machine has them) and /etc/hosts (localhost) bound
    over /etc's.  The real /etc and /run are never written.  Returns
    (nsswitch path, hosts path, the other databases' lines) of the files
    bound over /etc's (in a folder removed at exit)."""
    privns.enter("a mount namespace over /run/nscd")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/run"], check=True)
    os.mkdir("/run/nscd", 0o755)
    etc = privns.mkdtemp("nc-nscd-etc-")
    with open("/etc/nsswitch.conf") as f:
        others = "\n".join(l for l in f.read().splitlines()
                           if not l.strip().startswith("hosts:")) + "\n"
    nsswitch = os.path.join(etc, "nsswitch.conf")
    hosts = os.path.join(etc, "hosts")
    with open(nsswitch, "w") as f:
        f.write("hosts: files\n" + others)
    with open(hosts, "w") as f:
        f.write("127.0.0.1 localhost\n::1 localhost ip6-localhost\n")
    subprocess.run(["mount", "--bind", nsswitch, "/etc/nsswitch.conf"], check=True)
    subprocess.run(["mount", "--bind", hosts, "/etc/hosts"], check=True)
    return nsswitch, hosts, others


# --- raw protocol frames ----------------------------------------------------------

LOOKUP_NAME, LOOKUP_ADDR, STATISTICS, STATUS = 1, 2, 3, 4
REPLY = 0x80
OK, NOTFOUND, NODATA, TRYAGAIN, BADREQUEST, BADNAME, UNSUPPORTED = range(7)
SOURCES = {1: "hosts", 2: "dns", 3: "cache", 4: "stale"}


def frame(ftype, body=b"", fid=1, version=1, status=0, length=None):
    n = 12 + len(body) if length is None else length
    return struct.pack(">IBBHI", n, version, ftype, status, fid) + body


def name_req(name, family=0, fid=1):
    if isinstance(name, str):
        name = name.encode()
    return frame(LOOKUP_NAME, struct.pack(">BBH", family, 0, len(name)) + name, fid)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        try:
            chunk = s.recv(n - len(buf))
        except ConnectionResetError:
            return None     # closed with our request unread: a reset
        if not chunk:
            return None
        buf += chunk
    return buf


def read_frame(s):
    head = recv_exact(s, 12)
    if head is None:
        return None
    n, version, ftype, status, fid = struct.unpack(">IBBHI", head)
    body = recv_exact(s, n - 12)
    return {"type": ftype, "status": status, "id": fid, "body": body, "version": version}


def parse_answer(body):
    """An answer body: ttl, source (a name), canonical name, addresses, aliases."""
    ttl, source, flags, naddr, nalias = struct.unpack(">IBBHH", body[:10])
    off = 10
    (n,) = struct.unpack(">H", body[off:off + 2])
    canon = body[off + 2:off + 2 + n].decode()
    off += 2 + n
    addrs = []
    for _ in range(naddr):
        fam = body[off]
        alen = 4 if fam == 4 else 16
        text = socket.inet_ntop(socket.AF_INET if fam == 4 else socket.AF_INET6,
                                body[off + 1:off + 1 + alen])
        if fam == 7:    # PROTO_AF_INET6_SCOPED: a scope id follows
            text += "%%%d" % struct.unpack(">I", body[off + 17:off + 21])[0]
            alen = 20
        addrs.append(text)
        off += 1 + alen
    aliases = []
    for _ in range(nalias):
        (n,) = struct.unpack(">H", body[off:off + 2])
        aliases.append(body[off + 2:off + 2 + n].decode())
        off += 2 + n
    return {"ttl": ttl, "source": SOURCES.get(source), "canon": canon, "addrs": addrs,
            "aliases": aliases}


class FakeDaemon:
    """A stand-in for namecached at path: every request gets reply(frame) ->
    (status, body), on as many connections at once as clients open.  It
    publishes no shared segment, so clients always ask the socket."""

    def __init__(self, path, reply):
        import threading
        self.sock = path
        self.reply = reply
        self.requests = 0
        self.lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.lsock.bind(path)
        self.lsock.listen(64)
        self.stopping = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        import threading
        while not self.stopping:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        with c:
            while True:
                f = read_frame(c)
                if f is None:
                    return
                self.requests += 1
                status, body = self.reply(f)
                try:
                    c.sendall(frame(f["type"] | 0x80, body, f["id"], status=status))
                except OSError:
                    return

    def stop(self):
        self.stopping = True
        try:
            self.lsock.shutdown(socket.SHUT_RDWR)   # wakes the accept
        except OSError:
            pass
        self.lsock.close()
        try:
            os.unlink(self.sock)
        except FileNotFoundError:
            pass


def reason_body(text):
    """An error reply's body: one str, the reason."""
    b = text.encode()
    return struct.pack(">H", len(b)) + b


# A liveness bound: waiting longer than this means "hung", never "slow".
HUNG_SEC = 30


def hung_sec():
    """HUNG_SEC, four times longer under valgrind."""
    return HUNG_SEC * (4 if valgrind_prefix() else 1)


def connect(d, timeout=None):
    """A connection to d's socket; a read waits at most timeout (by
    default hung_sec(): "hung")."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout if timeout is not None else hung_sec())
    s.connect(d.sock)
    return s


def wait_until(pred, what, timeout=HUNG_SEC, step=0.01):
    """Polls pred until it returns something true, and returns that.

    pred reads a mechanism: a statistics counter, a status field, a file
    that appears, a log line, a count at a test server.  The deadline is a
    liveness bound: missing it means "hung", never "slow" (under valgrind it
    is four times longer).  what says what was awaited, for the failure; a
    callable is called then, to show the state reached."""
    if valgrind_prefix():
        timeout *= 4
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() >= deadline:
            raise AssertionError("hung: not %s after %g s" % (
                what() if callable(what) else what, timeout))
        time.sleep(step)


def wait_for(pred, timeout=1.0, step=0.005):
    """Polls pred until true; returns the seconds it took, or None.

    The integration tests use wait_until, which fails loudly and whose
    deadline means "hung"."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return time.monotonic() - t0
        time.sleep(step)
    return None


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


# --- a runner for the integration scripts ---------------------------------------

def run_tests(tests, make_env, prefix, set_build, argv=None):
    """Runs each test fn(env) in its own temporary folder: make_env(tmp) gives an
    object with lists .daemons and .servers (and maybe .probers).  A test
    passes when it returns and every daemon it started (not marked .killed)
    is still running and then exits 0 on SIGTERM: no crash and, under ASan,
    no leak.  set_build(path) receives --build.  Returns the exit status."""
    import argparse
    import tempfile
    import traceback

    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("-k", help="run only tests whose name contains this")
    args = ap.parse_args(argv)
    set_build(os.path.abspath(args.build))
    live = lambda env: [d for d in env.daemons if not getattr(d, "killed", False)]
    failed = ran = 0
    t_all = time.monotonic()
    for fn in tests:
        if args.k and args.k not in fn.__name__:
            continue
        ran += 1
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
            env = make_env(tmp)
            t0 = time.monotonic()
            try:
                fn(env)
                for d in live(env):
                    if d.proc.poll() is not None:
                        raise AssertionError("daemon died (%s): %s" % (d.proc.returncode,
                                                                      d.read_log()[-3000:]))
                for d in live(env):
                    rc = d.stop()
                    if rc != 0:
                        raise AssertionError("daemon exit status %s: %s" %
                                             (rc, d.read_log()[-3000:]))
                # A sanitizer's report is a failure here, whatever the exit
                # status said (killed daemons' logs included).
                for d in env.daemons:
                    found = sanitizer_reports(d.read_log())
                    if found:
                        raise AssertionError("sanitizer: %s" % "\n".join(found[:20]))
                print("ok   %s (%.2f s)" % (fn.__name__, time.monotonic() - t0))
            except Exception:
                failed += 1
                print("FAIL %s (%.2f s)" % (fn.__name__, time.monotonic() - t0))
                traceback.print_exc()
                for d in env.daemons:
                    if not getattr(d, "killed", False):
                        d.stop()    # a daemon's stderr is buffered until it exits
                    print("---- daemon log %s ----\n%s" % (d.tmp, d.read_log()[-4000:]))
            finally:
                for p in getattr(env, "probers", []):
                    p.close()
                for d in live(env):
                    d.stop()
                for d in env.daemons:
                    if os.path.exists(d.log):
                        d.sanitizer_reports()
                for s in env.servers:
                    s.stop()
            sys.stdout.flush()
    print("%d tests, %d failed (%.1f s)" % (ran, failed, time.monotonic() - t_all))
    return 1 if failed else 0
