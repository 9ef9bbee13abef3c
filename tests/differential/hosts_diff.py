#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Differential test: the namecache NSS module against glibc's files module.

For every hosts file (a few written by hand, then many random ones from a
seeded PRNG) both sides read the same inode:

  * glibc's files module reads /etc/hosts, over which the file is
    bind-mounted inside a private mount namespace (the driver re-executes
    itself under `unshare -m`; the real /etc/hosts is never written);
  * namecached reads it through --hosts-file, and is told of each new
    content by inotify: the file is rewritten in place (same inode, so the
    bind mount keeps showing it), and the driver waits until
    `namecachectl --json status` reports the stamp (inode:size:mtime) of
    what it wrote.

Then `getent -s namecache DB KEY...` and `getent -s files DB KEY...` must
print the same bytes and exit with the same status, for DB in hosts, ahosts,
ahostsv4 and ahostsv6 with every name of the file (and case and trailing-dot
variants, and absent names), and for `hosts` with every address of the file
in several spellings (reverse lookups).  Two more comparisons per file:

  * names namecache declines on purpose (over 253 characters, an empty label
    or one over 63, a control character) are asked through
    "namecache [!UNAVAIL=return] files": the module must say UNAVAIL, so
    glibc's own files answers, and the output equals files alone;
  * nss_probe.py asks a sample of the keys in-process, through
    gethostbyname (the module's gethostbyname_r, which getent never calls),
    gethostbyname2 and gethostbyaddr with h_errno, and getaddrinfo with
    other flags and its error codes.

A difference is printed with the hosts file that caused it (shrunk to the
lines that matter for the first few), and every failing file is saved under
BUILD/meson-logs/differential-hosts/ (case-NNNN.hosts and .txt).

Environment knobs (each also a flag): NAMECACHE_DIFF_SEED, NAMECACHE_DIFF_COUNT,
NAMECACHE_DIFF_MODE (reload | restart), NAMECACHE_DIFF_OUT.

Exit status: 0 all equal, 1 differences, 77 cannot run here (not root, no
mount namespaces), 99 the harness itself failed (daemon would not start...).
"""

import argparse
import difflib
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import hostsgen  # noqa: E402
import nclib  # noqa: E402
import privns  # noqa: E402

HARNESS = 99
NAME_DBS = ["hosts", "ahosts", "ahostsv4", "ahostsv6"]
CHUNK = 150                 # keys per getent call
NC = "namecache"
NC_FALLTHROUGH = "namecache [!UNAVAIL=return] files"
ABSENT = [b"absent.invalid", b"nonexistent", b"no-such-host.example",
          b"localhost6", b"x.y"]
ABSENT_ADDRS = ["127.0.0.1", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
                "127.0.0.2", "192.0.2.254", "2001:db8::dead", "::", "0.0.0.0",
                "255.255.255.255", "::ffff:0.0.0.0", "fe80::2"]


def log(*a):
    print(*a, flush=True)


class HarnessError(Exception):
    pass


# ---------------------------------------------------------------- file, stamp
def stamp_of(st):
    return "%d:%d:%d.%09d" % (st.st_ino, st.st_size, st.st_mtime_ns // 10**9,
                               st.st_mtime_ns % 10**9)


def write_in_place(path, data):
    """Truncates and rewrites path: same inode, one write, one close."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    finally:
        os.close(fd)
    return os.stat(path)


# ---------------------------------------------------------------- DNS
class NxDomain:
    """A DNS server on 127.0.0.1 that answers every question NXDOMAIN, with
    an SOA so the daemon caches the denial.  The daemon asks DNS for what the
    hosts file lacks, as glibc's "files dns" would; with every name absent
    from DNS that is glibc's "files" alone (HOST_NOT_FOUND, EAI_NONAME, not
    the TRY_AGAIN of an unreachable server), no lookup waits on the
    machine's resolvers, and a denial cached for one file must not hide a
    name the next file adds."""

    SOA = (b"\x00" + struct.pack("!HHIH", 6, 1, 300, 22) + b"\x00\x00"
           + struct.pack("!IIIII", 1, 3600, 600, 86400, 300))

    def __init__(self):
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.port = self.udp.getsockname()[1]
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.tcp.bind(("127.0.0.1", self.port))
        self.tcp.listen(16)
        self.queries = 0
        for target in (self.serve_udp, self.serve_tcp):
            threading.Thread(target=target, daemon=True).start()

    def reply(self, q):
        if len(q) < 12 or q[2] & 0x80 or struct.unpack("!H", q[4:6])[0] != 1:
            return None
        off = 12
        while off < len(q) and q[off] != 0:
            if q[off] & 0xC0:
                return None
            off += q[off] + 1
        off += 5
        if off > len(q):
            return None
        self.queries += 1
        # QR, the opcode and RD as asked, AA, RA, rcode 3 (NXDOMAIN).
        flags = 0x8000 | (q[2] & 0x79) << 8 | 0x0400 | 0x0080 | 3
        return q[:2] + struct.pack("!HHHHH", flags, 1, 0, 1, 0) + q[12:off] + self.SOA

    def serve_udp(self):
        while True:
            q, peer = self.udp.recvfrom(4096)
            r = self.reply(q)
            if r:
                self.udp.sendto(r, peer)

    def serve_tcp(self):
        while True:
            c, _ = self.tcp.accept()
            try:
                c.settimeout(5)
                while True:
                    n = c.recv(2)
                    if len(n) < 2:
                        break
                    want, q = struct.unpack("!H", n)[0], b""
                    while len(q) < want:
                        more = c.recv(want - len(q))
                        if not more:
                            break
                        q += more
                    r = self.reply(q)
                    if not r:
                        break
                    c.sendall(struct.pack("!H", len(r)) + r)
            except OSError:
                pass
            finally:
                c.close()


# ---------------------------------------------------------------- daemon
class Daemon:
    def __init__(self, args, tmp, hosts):
        self.exe = os.path.join(args.build, "daemon", "namecached")
        self.ctl = args.ctl
        self.sock = os.path.join(tmp, "sock")
        self.hosts = hosts
        self.logpath = os.path.join(tmp, "namecached.log")
        self.proc = None
        self.starts = 0
        self.log_level = args.daemon_log_level
        self.dns = NxDomain()

    def start(self):
        if os.path.exists(self.sock):
            os.unlink(self.sock)
        logf = open(self.logpath, "ab")
        # Names the hosts file lacks go on to DNS: keep that on loopback, to
        # a server that knows no name, never the machine's resolv.conf.
        resolv = os.path.join(os.path.dirname(self.sock), "resolv.conf")
        with open(resolv, "w") as f:
            f.write("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
        self.proc = subprocess.Popen(
            [self.exe, "--config", "/dev/null", "--socket", self.sock,
             "--hosts-file", self.hosts, "--log-level", self.log_level,
             "--resolv-conf", resolv, "--upstream", "127.0.0.1:%d" % self.dns.port,
             "--nsswitch-conf", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "files-dns.nsswitch.conf")],
            stdin=subprocess.DEVNULL, stdout=logf, stderr=logf)
        logf.close()
        self.starts += 1
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise HarnessError("namecached exited at start with %s:\n%s"
                                   % (self.proc.returncode, self.log_tail()))
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.sock)
                return
            except OSError:
                time.sleep(0.005)
            finally:
                s.close()
        raise HarnessError("namecached did not open %s within 10 s" % self.sock)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(nclib.hung_sec())
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        rc, self.proc = self.proc.returncode, None
        # A sanitizer's report fails the test at its exit (nclib.check_log).
        nclib.check_log(self.logpath, "namecached")
        return rc

    def log_tail(self, n=20):
        try:
            with open(self.logpath, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def status(self):
        p = subprocess.run([self.ctl, "--socket", self.sock, "--json", "status"],
                           capture_output=True, timeout=10)
        if p.returncode != 0:
            raise HarnessError("namecachectl status exited %d: %s"
                               % (p.returncode, p.stderr.decode(errors="replace")))
        return json.loads(p.stdout)

    def wait_stamp(self, stamp, timeout=30.0):
        """Waits until the daemon reports having loaded the file with stamp
        (the timeout means "hung")."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            st = self.status()
            last = (st.get("hosts_stamp"), st.get("hosts_generation"))
            if last[0] == stamp:
                return last
            if time.monotonic() > deadline:
                raise HarnessError("namecached did not load the file (want stamp %s, "
                                   "status says %r)" % (stamp, last))
            if not self.alive():
                raise HarnessError("namecached died")
            time.sleep(0.002)


# ---------------------------------------------------------------- keys
TOKEN_SPLIT = re.compile(rb"[ \t\n\r\f\v#\x00]+")
NUMERIC4 = re.compile(rb"[0-9][0-9a-fA-FxX.]*")
NUMERIC6 = re.compile(rb"[0-9a-fA-F:.]*")


def is_address_like(k):
    if NUMERIC4.fullmatch(k):
        return True
    if b":" in k:
        if NUMERIC6.fullmatch(k):
            return True
        try:
            socket.inet_pton(socket.AF_INET6, k.split(b"%")[0].decode("latin-1"))
            return True
        except (OSError, ValueError):
            pass
    return False


def refused(k):
    """True for the names namecache declines on purpose (proto_name_check):
    over 253 characters without one trailing dot, an empty label or one over
    63, a control character.  The NSS module answers UNAVAIL for them."""
    if len(k) > 1 and k.endswith(b"."):
        k = k[:-1]
    if not k or len(k) > 253:
        return True
    if any(c < 0x20 or c == 0x7F for c in k):
        return True
    return any(not 1 <= len(label) <= 63 for label in k.split(b"."))


def name_keys(data, rng, cap):
    """(keys, refused keys): names to look up, from every word of the file."""
    base = []
    for line in data.split(b"\n"):
        toks = [t for t in TOKEN_SPLIT.split(line) if t]
        if len(toks) > 60:      # the very long line: a sample of it
            toks = toks[:6] + rng.sample(toks[6:-6], 12) + toks[-6:]
        base.extend(toks)
    base.extend(ABSENT)
    base.extend(rng.sample(hostsgen.POOL, 4))
    keys, bad, seen = [], [], set()

    def add(k):
        if k and k not in seen and not is_address_like(k):
            seen.add(k)
            (bad if refused(k) else keys).append(k)

    for k in base:
        add(k)
    nbase = len(keys)
    for k in keys + bad:
        add(k.upper())
        add(k.lower())
        add(hostsgen.rand_case(rng, k))
        add(k[:-1] if k.endswith(b".") else k + b".")
    if len(keys) > cap:
        # Every name as written stays; the variants fill what is left.
        more = keys[nbase:]
        keys = keys[:nbase] + rng.sample(more, max(0, min(len(more), cap - nbase)))
    if len(bad) > cap // 4:
        bad = rng.sample(bad, cap // 4)
    return keys, bad


def addr_forms(tok):
    """Spellings of tok, if it is an address: as written, canonical, mapped."""
    try:
        s = tok.decode("ascii")
    except UnicodeDecodeError:
        return []
    out = []
    try:
        socket.inet_pton(socket.AF_INET, s)
        out = [s, "::ffff:" + s, "0:0:0:0:0:ffff:" + s, "::FFFF:" + s,
               "::" + s]
    except OSError:
        try:
            p = socket.inet_pton(socket.AF_INET6, s)
        except OSError:
            return []
        c = socket.inet_ntop(socket.AF_INET6, p)
        g = [p[i] << 8 | p[i + 1] for i in range(0, 16, 2)]
        out = [s, c, c.upper(), ":".join("%04x" % x for x in g)]
        if p[:12] == b"\0" * 10 + b"\xff\xff" or p[:12] == b"\0" * 12:
            out.append(socket.inet_ntop(socket.AF_INET, p[12:]))
    return out


def addr_keys(data, rng, cap):
    keys, seen = [], set()
    for tok in TOKEN_SPLIT.split(data):
        for k in addr_forms(tok) if tok else ():
            if k not in seen:
                seen.add(k)
                keys.append(k)
    for k in ABSENT_ADDRS:
        if k not in seen:
            seen.add(k)
            keys.append(k)
    if len(keys) > cap:
        keys = rng.sample(keys, cap)
    return [k.encode() for k in keys]


# ---------------------------------------------------------------- comparing
class Getent:
    def __init__(self, env):
        self.env = env
        self.runs = 0

    def run(self, service, db, keys):
        self.runs += 1
        if db in PROBES:
            argv = [sys.executable, "-S", PROBE, service]
            stdin = b"\n".join(keys)
        else:
            argv = ["getent", "-s", service, "--", db] + list(keys)
            stdin = b""
        try:
            p = subprocess.run(argv, env=self.env, input=stdin,
                               capture_output=True, timeout=60)
            return p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            return "timeout", b"", b""

    def pair(self, service, db, keys):
        return self.run("files", db, keys), self.run(service, db, keys)


# ---------------------------------------------------------------- probe
# What getent does not show: gethostbyname() (the module's gethostbyname_r),
# h_errno, getaddrinfo's error codes and flags other than getent's.
PROBES = ("probe",)
PROBE = os.path.join(HERE, "nss_probe.py")


def same(a, b):
    return a[0] == b[0] and a[1] == b[1]


def show_bytes(b, limit=1600):
    if len(b) > limit:
        return repr(b[:limit])[:-1] + "...' (%d bytes in all)" % len(b)
    return repr(b)


def show_output(res):
    rc, out, err = res
    text = out.decode("utf-8", "backslashreplace")
    if len(text) > 1600:
        text = text[:1600] + "... (%d bytes in all)\n" % len(out)
    s = "    exit %s\n" % rc
    s += "".join("    | " + l + "\n" for l in text.splitlines()) or "    (no output)\n"
    if err:
        s += "    stderr: %s\n" % show_bytes(err, 300)
    return s


def command(service, db, key):
    if key.startswith(b"<"):
        text = key.decode("utf-8", "backslashreplace")
        return text if service == "-" else "%s: %s" % (service, text)
    if db in PROBES:
        return "printf %s | %s %s '{files|%s}'" % (
            printf_format(key), sys.executable, PROBE, service)
    return "getent -s '{files|%s}' -- %s %s" % (service, db, shell_word(key))


def printf_format(b):
    """A printf(1) format, in single quotes, that prints exactly b."""
    out = []
    for c in b:
        if c in b"\\%'" or not 0x20 <= c < 0x7F:
            out.append("\\%03o" % c)
        else:
            out.append(chr(c))
    return "'%s'" % "".join(out)


def shell_word(b):
    """b as one shell word."""
    if all(0x20 < c < 0x7F for c in b):
        return shlex.quote(b.decode())
    return '"$(printf %s)"' % printf_format(b)


def show_diff(f, n, limit=12):
    """The lines that differ, as a unified diff, when both printed something."""
    if not (f[1] and n[1]) or f[1] == n[1]:
        return ""
    a = f[1].decode("utf-8", "backslashreplace").splitlines()
    b = n[1].decode("utf-8", "backslashreplace").splitlines()
    d = list(difflib.unified_diff(a, b, "files", "namecache", n=0, lineterm=""))
    if len(d) > limit:
        d = d[:limit] + ["... (%d more diff lines)" % (len(d) - limit)]
    return "".join("    " + (l if len(l) < 400 else l[:400] + "...") + "\n" for l in d)


def outcome(res):
    """How a run ended, without the details: for telling kinds apart."""
    rc, out, _ = res
    return "exit %s, %s" % (rc, "output" if out else "no output")


def kind(service, db, key, f, n):
    """A short label for a difference, the same for differences alike."""
    if key.startswith(b"<daemon"):
        return "namecached died"
    if key.startswith(b"<batch"):
        return "%s: a batch differs (not looked into)" % db
    if db in PROBES:
        calls = []
        for a, b in zip(f[1].decode("latin-1").splitlines(),
                        n[1].decode("latin-1").splitlines()):
            if a != b:
                call, ra = a.split(": ", 1)[0].split(" ", 1)[1], a.split(": ", 1)[-1]
                rb = b.split(": ", 1)[-1]
                short = lambda r: r if r.startswith(("h_errno", "error")) else "answer"
                calls.append("%s %s->%s" % (call, short(ra), short(rb)))
        return "probe: " + ", ".join(calls[:4]) + (" ..." if len(calls) > 4 else "")
    if f[0] == n[0] and f[1] and n[1]:
        return "%s %s: both answer, differently" % (service, db)
    return "%s %s: files %s; namecache %s" % (service, db, outcome(f), outcome(n))


def split_lines(data):
    return re.findall(rb"[^\n]*\n|[^\n]+$", data)


# ---------------------------------------------------------------- main loop
class Run:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.tmp = tempfile.mkdtemp(prefix="namecache-diff-")
        self.hosts = os.path.join(self.tmp, "hosts")
        with open(self.hosts, "wb"):
            pass
        self.daemon = Daemon(args, self.tmp, self.hosts)
        env = {k: v for k, v in os.environ.items()
               if k not in ("LOCALDOMAIN", "RES_OPTIONS", "HOSTALIASES", "LANGUAGE")}
        env["LC_ALL"] = "C"
        env["LD_LIBRARY_PATH"] = args.nss_dir
        env["NAMECACHE_SOCKET"] = self.daemon.sock
        # A sanitizer build's module must have its runtime loaded first; the
        # same preload goes to the files side, so both run alike.
        pre = nclib.sanitizer_preload(args.build)
        if pre:
            env["LD_PRELOAD"] = pre
            env["ASAN_OPTIONS"] = "detect_leaks=0:verify_asan_link_order=0"
        self.getent = Getent(env)
        self.pool = ThreadPoolExecutor(max_workers=args.jobs)
        self.last_stamp = None
        self.failed_cases = []   # (case no, title, saved path, diffs)
        self.lookups = 0
        self.comparisons = 0     # pairs of runs (files, namecache) compared
        self.bad = 0             # of them, those that differed
        self.files = 0

    # -- the hosts file and the daemon's view of it
    def bind(self):
        subprocess.run(["mount", "--bind", self.hosts, "/etc/hosts"], check=True)
        if os.stat("/etc/hosts").st_ino != os.stat(self.hosts).st_ino:
            raise HarnessError("/etc/hosts is not our file after the bind mount")

    def load(self, data):
        if self.args.mode == "restart":
            self.daemon.stop()
            st = write_in_place(self.hosts, data)
            self.daemon.start()
            if self.args.ctl_ok:
                self.daemon.wait_stamp(stamp_of(st))
            return
        for _ in range(200):
            st = write_in_place(self.hosts, data)
            stamp = stamp_of(st)
            if stamp != self.last_stamp:
                break
            time.sleep(0.004)   # same size within one mtime tick: write again
        else:
            raise HarnessError("the file's mtime does not move")
        self.daemon.wait_stamp(stamp)
        self.last_stamp = stamp

    # -- one file
    def queries(self, data, rng):
        names, bad = name_keys(data, rng, self.args.max_keys)
        addrs = addr_keys(data, rng, self.args.max_keys)
        q = []
        for db in NAME_DBS:
            for i in range(0, len(names), CHUNK):
                q.append((NC, db, names[i:i + CHUNK]))
            # Names namecache declines must reach the next source.
            for i in range(0, len(bad), CHUNK):
                q.append((NC_FALLTHROUGH, db, bad[i:i + CHUNK]))
        for i in range(0, len(addrs), CHUNK):
            q.append((NC, "hosts", addrs[i:i + CHUNK]))
        # The probe makes 8 calls a name: a sample keeps the run short.
        n = self.args.probe_keys
        pk = rng.sample(names, min(n, len(names)))
        pk += [b"@" + a for a in rng.sample(addrs, min(n // 2, len(addrs)))]
        if pk and n:
            q.append((NC, "probe", pk))
        return q

    def locate(self, service, db, keys, limit=3):
        """The keys of a differing batch that differ on their own, by bisection."""
        found = []

        def bisect(ks):
            if len(found) >= limit:
                return
            f, n = self.getent.pair(service, db, ks)
            if same(f, n):
                return
            if len(ks) == 1:
                found.append((service, db, ks[0], f, n))
                return
            bisect(ks[:len(ks) // 2])
            bisect(ks[len(ks) // 2:])

        if len(keys) == 1:
            return []
        bisect(keys[:len(keys) // 2])
        bisect(keys[len(keys) // 2:])
        return found

    def check(self, no, title, data, rng):
        self.load(data)
        q = self.queries(data, rng)
        results = list(self.pool.map(lambda sdk: (sdk, self.getent.pair(*sdk)), q))
        diffs, located = [], 0
        for (service, db, keys), (f, n) in results:
            self.lookups += len(keys)
            self.comparisons += 1
            if same(f, n):
                continue
            self.bad += 1
            got = []
            # Singling keys out costs runs: only for the first few files.
            if len(self.failed_cases) < self.args.locate and located < 3:
                got = self.locate(service, db, keys, 3 - located)
                located += len(got)
            if not got:     # not looked into, or differs only together
                got = [(service, db, b"<batch of %d keys: %s>"
                        % (len(keys), b" ".join(keys)[:300]), f, n)]
            diffs.extend(got)
        if not self.daemon.alive():
            rc = self.daemon.stop()
            diffs.append(("-", "-", b"<daemon>", (0, b"", b""),
                          ("daemon exited %s" % rc, self.daemon.log_tail().encode(), b"")))
            self.daemon.start()
            self.last_stamp = None
        self.files += 1
        if diffs:
            path = self.save(no, title, data, diffs)
            self.failed_cases.append((no, title, path, data, diffs))
        return diffs

    def save(self, no, title, data, diffs):
        os.makedirs(self.args.out, exist_ok=True)
        base = os.path.join(self.args.out, "case-%04d" % no)
        with open(base + ".hosts", "wb") as f:
            f.write(data)
        with open(base + ".txt", "w") as f:
            f.write("seed %s case %d (%s)\n" % (self.seed, no, title))
            for service, db, key, fr, nr in diffs:
                f.write("\n%s\n" % command(service, db, key))
                f.write("  files:\n" + show_output(fr))
                f.write("  %s:\n" % service + show_output(nr))
                f.write(show_diff(fr, nr))
        return base + ".hosts"

    # -- shrinking a failing file to the lines that matter
    def minimize(self, data, service, db, key, budget=250):
        """Drops lines while the difference stays (ddmin, roughly)."""
        lines = split_lines(data)
        tries = [0]

        def fails(ls):
            tries[0] += 1
            self.load(b"".join(ls))
            f, n = self.getent.pair(service, db, [key])
            return not same(f, n)

        if not fails(lines):
            return None
        if fails([]):
            lines = []      # the file plays no part
        n = 2
        while len(lines) > 1 and tries[0] < budget:
            size = -(-len(lines) // n)
            chunks = [lines[i:i + size] for i in range(0, len(lines), size)]
            for i in range(len(chunks)):
                rest = [l for c in chunks[:i] + chunks[i + 1:] for l in c]
                if tries[0] < budget and fails(rest):
                    lines, n = rest, max(n - 1, 2)
                    break
            else:
                if n >= len(lines):
                    break
                n = min(2 * n, len(lines))
        out = b"".join(lines)
        self.load(out)
        return out, self.getent.pair(service, db, [key])

    def report(self):
        """Shows failing files, one for each kind of difference first."""
        kinds, order = {}, []
        for case in self.failed_cases:
            for d in case[4]:
                k = kind(*d)
                if k not in kinds:
                    kinds[k] = 0
                    order.append((case, d))
                kinds[k] += 1
        picked = []
        for case, d in order:
            if case not in picked and len(picked) < self.args.report:
                picked.append(case)
        for case in self.failed_cases:
            if case not in picked and len(picked) < self.args.report:
                picked.append(case)
        picked.sort(key=lambda c: c[0])
        if kinds:
            log("")
            log("Kinds of difference (keys singled out in the first %d failing files):"
                % self.args.locate)
            batches = 0
            for k in sorted(kinds, key=lambda k: -kinds[k]):
                if "not looked into" in k:
                    batches += kinds[k]
                else:
                    log("  %4d  %s" % (kinds[k], k))
            if batches:
                log("  and %d differing runs over batches of keys, not looked into"
                    % batches)
        shown = 0
        for no, title, path, data, diffs in picked:
            shown += 1
            # The diffs of a kind not shown yet come first.
            diffs = sorted(diffs, key=lambda d: [x[1] for x in order].index(d)
                           if d in [x[1] for x in order] else len(order))
            log("")
            log("=== DIFFERENCE in case %d (%s), file saved as %s" % (no, title, path))
            log("    details: %s" % path.replace(".hosts", ".txt"))
            log("--- hosts file (%d bytes): %s" % (len(data), show_bytes(data)))
            for service, db, key, f, n in diffs[:3]:
                log("--- " + command(service, db, key))
                log("  glibc files (expected):\n" + show_output(f).rstrip())
                log("  %s (got):\n" % service + show_output(n).rstrip())
                if show_diff(f, n):
                    log("  diff:\n" + show_diff(f, n).rstrip())
            if len(diffs) > 3:
                log("    ... and %d more differences in this file" % (len(diffs) - 3))
            first = [d for d in diffs if not d[2].startswith(b"<")]
            if self.args.minimize and first and shown <= 3:
                service, db, key = first[0][:3]
                try:
                    m = self.minimize(data, service, db, key)
                except HarnessError as e:
                    m = None
                    log("    (could not shrink: %s)" % e)
                if m is not None:
                    small, (f, n) = m
                    mpath = path.replace(".hosts", ".min.hosts")
                    with open(mpath, "wb") as fh:
                        fh.write(small)
                    log("--- shrunk to %d bytes (%s): %s" % (len(small), mpath, show_bytes(small)))
                    log("  glibc files (expected):\n" + show_output(f).rstrip())
                    log("  %s (got):\n" % service + show_output(n).rstrip())
        if len(self.failed_cases) > shown:
            log("\n... %d more failing files under %s"
                % (len(self.failed_cases) - shown, self.args.out))
        return len(kinds)

    def cases(self):
        if self.args.file:
            for path in self.args.file:
                with open(path, "rb") as f:
                    yield path, f.read()
            return
        for title, data in hostsgen.fixed_cases():
            yield title, data
        gen = random.Random(self.seed)
        for i in range(self.args.count):
            yield "random #%d" % i, hostsgen.random_case(gen)

    def main(self):
        t0 = time.monotonic()
        self.bind()
        self.daemon.start()
        if self.args.mode == "reload":
            self.load(b"# namecache differential test\n")
        nfixed = 0
        for no, (title, data) in enumerate(self.cases()):
            if self.args.only is not None and no not in self.args.only:
                continue
            nfixed += not title.startswith("random #")
            self.check(no, title, data, random.Random("keys-%s-%d" % (self.seed, no)))
            if (no + 1) % 50 == 0:
                log("  %d files, %d lookups, %d differing comparisons, %.1f s"
                    % (no + 1, self.lookups, self.bad, time.monotonic() - t0))
        elapsed = time.monotonic() - t0
        self.report()
        rc = self.daemon.stop()
        if rc not in (0, -signal.SIGTERM):
            log("namecached exited with %s on SIGTERM:\n%s" % (rc, self.daemon.log_tail()))
        log("")
        log("differential-hosts: seed %s, mode %s, %d files (%d given + %d random), "
            "%d lookups in %d comparisons (%d runs of getent and nss_probe), "
            "%d daemon start(s), %.1f s"
            % (self.seed, self.args.mode, self.files, nfixed, self.files - nfixed,
               self.lookups, self.comparisons, self.getent.runs, self.daemon.starts,
               elapsed))
        if self.failed_cases:
            log("differential-hosts: FAIL: %d of %d comparisons differ, in %d of %d files "
                "(saved under %s); rerun with NAMECACHE_DIFF_SEED=%s"
                % (self.bad, self.comparisons, len(self.failed_cases), self.files,
                   self.args.out, self.seed))
            return 1
        log("differential-hosts: OK, namecache and glibc files agree")
        return 0

    def cleanup(self):
        try:
            self.daemon.stop()
        finally:
            self.pool.shutdown()
            subprocess.run(["umount", "/etc/hosts"], stderr=subprocess.DEVNULL)
            if not self.args.keep:
                shutil.rmtree(self.tmp, ignore_errors=True)
            else:
                log("kept %s" % self.tmp)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--seed", default=os.environ.get("NAMECACHE_DIFF_SEED"))
    ap.add_argument("--count", type=int,
                    default=int(os.environ.get("NAMECACHE_DIFF_COUNT", "300")),
                    help="random files (default 300)")
    ap.add_argument("--mode", choices=["reload", "restart"],
                    default=os.environ.get("NAMECACHE_DIFF_MODE", "reload"),
                    help="reload: rewrite the file in place and wait for the "
                    "daemon to load it (default); restart: a new daemon per file")
    ap.add_argument("--ctl", help="namecachectl (default BUILD/cli/namecachectl)")
    ap.add_argument("--nss-dir", help="folder of libnss_namecache.so.2 (default BUILD/nss-shim)")
    ap.add_argument("--out", default=os.environ.get("NAMECACHE_DIFF_OUT"),
                    help="where failing files go (default BUILD/meson-logs/differential-hosts)")
    ap.add_argument("--max-keys", type=int, default=400,
                    help="most name keys, and most address keys, per file")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--probe-keys", type=int, default=20,
                    help="names, and addresses, per file also asked through "
                    "gethostbyname/gethostbyaddr/getaddrinfo in-process (default 30)")
    ap.add_argument("--report", type=int, default=5, help="failing files shown in full")
    ap.add_argument("--no-minimize", dest="minimize", action="store_false",
                    help="do not shrink the failing files shown")
    ap.add_argument("--locate", type=int, default=12,
                    help="failing files whose differing keys are singled out (default 12)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--daemon-log-level", default="warning")
    ap.add_argument("--only", type=lambda s: {int(x) for x in s.split(",")},
                    help="run only these case numbers (comma-separated)")
    ap.add_argument("--file", action="append",
                    help="compare this hosts file instead of generated ones (repeatable)")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    if args.seed is None:
        args.seed = str(int.from_bytes(os.urandom(4), "big"))
    args.ctl = os.path.abspath(args.ctl or os.path.join(args.build, "cli", "namecachectl"))
    args.ctl_ok = os.access(args.ctl, os.X_OK)
    args.nss_dir = os.path.abspath(args.nss_dir or os.path.join(args.build, "nss-shim"))
    if args.out is None:
        args.out = os.path.join(args.build, "meson-logs", "differential-hosts")
    args.out = os.path.abspath(args.out)
    return args


def main():
    args = parse_args()
    privns.enter("bind mount over /etc/hosts in a private mount namespace", probe=True)
    log("differential-hosts: seed %s (set NAMECACHE_DIFF_SEED to repeat), mode %s"
        % (args.seed, args.mode))
    for exe in (os.path.join(args.build, "daemon", "namecached"),
                os.path.join(args.nss_dir, "libnss_namecache.so.2")):
        if not os.path.exists(exe):
            log("ERROR: %s is missing: build first (ninja -C %s)" % (exe, args.build))
            return HARNESS
    if args.mode == "reload" and not args.ctl_ok:
        log("ERROR: %s is missing; it is needed to know when a rewritten file is "
            "loaded (NAMECACHE_DIFF_MODE=restart runs without it)" % args.ctl)
        return HARNESS
    if os.path.isdir(args.out):     # failing files of an earlier run
        for f in os.listdir(args.out):
            if re.fullmatch(r"case-\d+\.(hosts|txt|min\.hosts)", f):
                os.unlink(os.path.join(args.out, f))
    r = Run(args)
    try:
        return r.main()
    except HarnessError as e:
        log("ERROR: harness: %s" % e)
        log("namecached log tail:\n%s" % r.daemon.log_tail())
        return HARNESS
    finally:
        r.cleanup()


if __name__ == "__main__":
    sys.exit(main())
