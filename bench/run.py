#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/run.py - the measurements behind bench/run.sh, and their report.

    run.py measure BUILD WORKDIR OUT.json   inside tests/dns/in-netns.sh --no-nsd
    run.py report OUT.json DOCDIR [BEFORE.json]
                                            docs/benchmarks.md and .png; with
                                            BEFORE.json, a "Before and after" section
    run.py compare BEFORE.json AFTER.json   that section alone, on stdout, from two
                                            results files (run.sh --results keeps one)

run.sh calls both; see it for the whole picture.  `measure` runs as root in
a private network namespace that holds only `lo` (in-netns.sh checks it),
so no packet it causes can leave the machine.  Every peer gets its own
private mount namespace (a sleeping "holder" process keeps it open, and
commands enter it with nsenter) with its own /etc/hosts, /etc/nsswitch.conf,
/etc/resolv.conf and, for nscd and unscd, its own /run: the real /etc is
never written.  Everything started here is stopped here, by process id.
"""

import json
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

PY = "/usr/bin/python3"

# ---------------------------------------------------------------------------
# What is asked.  Every name has ONE address (one A record, no AAAA): with
# two, getaddrinfo's RFC 6724 sort opens a socket and connects it once per
# address (about 30 us here), which would swamp every difference measured.
# ---------------------------------------------------------------------------
HOSTS_NAME = "benchhost.lan"           # last line of both hosts files
DNS_NAME = "www.bench.example"         # *.bench.example: one A, TTL 3600
NEG_NAME = "missing.nx.example"        # NXDOMAIN, SOA TTL/MINIMUM 3600
FLOOR_NAME = "floor.bench.example"     # the one name libnss_floor answers
FILL_PATTERN = "f%d.fill.bench.example"  # two A records each
CASES = ("hosts", "cached", "negative", "miss")
CASE_TITLES = {"hosts": "hosts name", "cached": "cached DNS name",
               "negative": "negative (NXDOMAIN, cached)", "miss": "miss (new name each call)"}

QUICK = os.environ.get("BENCH_QUICK") == "1"
N_FAST = 2000 if QUICK else 20000      # calls per function on an in-process path
N_SOCK = 500 if QUICK else 5000        # calls through a socket
N_MISS = 200 if QUICK else 2000        # new names (each one upstream query or two)
N_1M = 20                              # glibc files on 1,000,000 lines: ~0.1 s a call
WARM = 50
TPUT_SECS = 0.5 if QUICK else 2.0
PIPE_SECS = 1.0 if QUICK else 3.0
PIPE_RUNS = 3
FILL_COUNT = int(os.environ.get("BENCH_FILL", "100000" if QUICK else "1000000"))
HF_RUNS = 60 if QUICK else 400
STRACE_N = (100, 600) if QUICK else (100, 1100)
# What `measure` runs (BENCH_SECTIONS, run.sh --only): the peer study of
# the NSS path ("peers"), the DNS listener against its peers ("listener")
# and passwd and group through the nscd socket ("nscd-db", issue 21).
ALL_SECTIONS = ("peers", "listener", "nscd-db", "memory")
SECTIONS = tuple(x for x in os.environ.get("BENCH_SECTIONS", ",".join(ALL_SECTIONS)).split(",")
                 if x)

ZONE_BENCH = """$TTL 3600
bench.example.	3600 IN SOA ns.bench.example. admin.bench.example. 1 3600 600 86400 3600
bench.example.	3600 IN NS ns.bench.example.
ns.bench.example.	3600 IN A 127.0.0.1
*.bench.example.	3600 IN A 192.0.2.99
*.fill.bench.example.	3600 IN A 192.0.2.1
*.fill.bench.example.	3600 IN A 192.0.2.2
"""
ZONE_NX = """$TTL 3600
nx.example.	3600 IN SOA ns.nx.example. admin.nx.example. 1 3600 600 86400 3600
nx.example.	3600 IN NS ns.nx.example.
ns.nx.example.	3600 IN A 127.0.0.1
"""

HOSTS4 = ("127.0.0.1\tlocalhost\n"
          "::1\tlocalhost ip6-localhost ip6-loopback\n"
          "192.0.2.11\tother.lan other\n"
          "192.0.2.10\t%s benchhost\n" % HOSTS_NAME)

log_cmds = []          # every measuring command, for the report


def say(*a):
    print("[bench %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def note_cmd(argv, where=None, env=None):
    s = " ".join(shlex.quote(x) for x in argv)
    if env:
        s = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items()) + " " + s
    if where:
        s = "[%s] %s" % (where, s)
    log_cmds.append(s)


def write(path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)


# ---------------------------------------------------------------------------
# Processes and namespaces
# ---------------------------------------------------------------------------
started = []           # (Popen, how to stop) of everything still running


def spawn(argv, log=None, env=None, **kw):
    out = open(log, "ab") if log else subprocess.DEVNULL
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                         env=env, start_new_session=True, **kw)
    started.append(p)
    return p


def stop(p, sig=signal.SIGTERM, timeout=10):
    """Stops a process we started, and its process group (its own session)."""
    if p is None or p.poll() is not None:
        if p in started:
            started.remove(p)
        return
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        pass
    try:
        p.wait(timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    if p in started:
        started.remove(p)


def stop_all():
    for p in list(reversed(started)):
        stop(p)


class Ns:
    """A private mount namespace, kept open by a sleeping holder process.

    binds: (source, target) pairs; tmpfs: mount points; mkdirs: made after.
    A child Ns starts as a copy of its parent's mounts."""

    def __init__(self, name, parent=None, binds=(), tmpfs=(), mkdirs=()):
        self.name = name
        pre = parent.enter() if parent else []
        self.proc = spawn(pre + ["unshare", "--mount", "--propagation", "private",
                                 "--", "sleep", "infinity"])
        for _ in range(500):      # until the holder is in its own namespace
            try:
                if os.readlink("/proc/%d/ns/mnt" % self.proc.pid) != \
                        os.readlink("/proc/self/ns/mnt") and \
                        os.readlink("/proc/%d/exe" % self.proc.pid).endswith("sleep"):
                    break
            except OSError:
                pass
            time.sleep(0.01)
        for t in tmpfs:
            self.run(["mount", "-t", "tmpfs", "-o", "mode=0755,size=64m", "tmpfs", t])
        for d in mkdirs:
            self.run(["mkdir", "-p", d])
        for src, dst in binds:
            # /etc/resolv.conf may be a link into /run (systemd-resolved):
            # give the bind mount a file to land on in the new tmpfs.
            real = os.path.realpath(dst)
            if any(real.startswith(t.rstrip("/") + "/") for t in tmpfs):
                self.run(["mkdir", "-p", os.path.dirname(real)])
                self.run(["touch", real])
            self.run(["mount", "--bind", src, dst])

    def enter(self):
        return ["nsenter", "-t", str(self.proc.pid), "-m", "--"]

    def run(self, argv, **kw):
        return subprocess.run(self.enter() + argv, check=True, **kw)

    def path(self, p):
        """A path as this namespace sees it, from outside."""
        return "/proc/%d/root%s" % (self.proc.pid, p)

    def stop(self):
        stop(self.proc)


def wait_for(pred, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.02)
    raise RuntimeError("timed out waiting for " + what)


def dns_probe(port, name, host="127.0.0.1"):
    """One A query over UDP; True when any reply comes back."""
    q = struct.pack(">HHHHHH", 0x4242, 0x0100, 1, 0, 0, 0)
    for label in name.rstrip(".").split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.2)
        try:
            s.sendto(q, (host, port))
            return s.recv(4096)[:2] == q[:2]
        except OSError:
            return False


# ---------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------
LAT_RE = re.compile(r"^(getaddrinfo|gethostbyname2_r)\s+\S+\s+median\s+([\d.]+) us\s+"
                    r"p99\s+([\d.]+) us\s+\(n=(\d+)(?:, (\d+) failed)?\)")
TPUT_RE = re.compile(r"^(getaddrinfo|gethostbyname2_r)\s+\S+\s+threads (\d+)\s+([\d.]+) lookups/s"
                     r".*?(?:, (\d+) failed)?\)")


class Bench:
    def __init__(self, build, work):
        self.build = build
        self.work = work
        self.nss_lookup = os.path.join(build, "bench", "nss-lookup")
        self.libpath = "%s:%s" % (os.path.join(build, "nss-shim"),
                                  os.path.join(build, "bench", "floor"))
        self.res = {"latency": {}, "first_call": {}, "throughput": {}, "pipeline": {},
                    "memory": {}, "syscalls": {}, "roundtrip": {}, "scale": {},
                    "upstream": {}, "problems": [], "notes": []}

    # -- helpers ------------------------------------------------------------
    def env(self, extra=None):
        e = dict(os.environ, LD_LIBRARY_PATH=self.libpath)
        e.pop("NAMECACHE_SOCKET", None)
        if extra:
            e.update(extra)
        return e

    def run(self, argv, ns=None, extra_env=None, timeout=600, where=None):
        note_cmd(argv, where or (ns.name if ns else None), extra_env)
        full = (ns.enter() if ns else []) + argv
        r = subprocess.run(full, env=self.env(extra_env), capture_output=True, text=True,
                           timeout=timeout)
        if r.returncode != 0:
            raise RuntimeError("%s: exit %d\n%s%s" % (" ".join(argv), r.returncode,
                                                      r.stdout, r.stderr))
        return r.stdout

    def latency(self, peer, case, service, name, n, ns=None, extra_env=None,
                funcs=None, expect_fail=False, warm=WARM, inet=False):
        argv = [self.nss_lookup] + (["-4"] if inet else [])
        if funcs:
            argv += ["-f", funcs]
        if "%d" not in name and warm:
            argv += ["-w", str(warm)]
        argv += [service, name, str(n)]
        if "%d" in name:
            argv.append("0")
        out = self.run(argv, ns, extra_env, where=peer)
        got = {}
        for line in out.splitlines():
            m = LAT_RE.match(line)
            if m:
                f = "gai" if m.group(1) == "getaddrinfo" else "gh2"
                failed = int(m.group(5) or 0)
                got[f] = {"median": float(m.group(2)), "p99": float(m.group(3)),
                          "n": int(m.group(4)), "failed": failed}
                if not expect_fail and failed:
                    self.res["problems"].append("%s, %s, %s: %d of %d calls failed" % (
                        peer, case, m.group(1), failed, int(m.group(4))))
                if expect_fail and failed != int(m.group(4)):
                    self.res["problems"].append("%s, %s, %s: %d of %d calls answered a name "
                                                "that should not exist" % (
                                                    peer, case, m.group(1),
                                                    int(m.group(4)) - failed, int(m.group(4))))
        self.res["latency"].setdefault(peer, {})[case] = got
        say("%-22s %-9s gai %8.2f us  gh2 %8.2f us" % (
            peer, case, got.get("gai", {}).get("median", float("nan")),
            got.get("gh2", {}).get("median", float("nan"))))
        return got

    def paired_latency(self, daemons, cases, n, rounds=5):
        """Each case on each daemon, rounds times in turn, n // rounds calls a
        time; a cell is the median of its rounds' medians (and p99s)."""
        got = {}
        for r in range(rounds):
            for case, name in cases:
                for peer, d in daemons:
                    one = self.latency(peer, case, "namecache", name, n // rounds,
                                       extra_env=d.env)
                    got.setdefault((peer, case), []).append(one)
        for (peer, case), runs in got.items():
            cell = {}
            for f in ("gai", "gh2"):
                rs = [x[f] for x in runs if f in x]
                if not rs:
                    continue
                med = lambda k: sorted(x[k] for x in rs)[len(rs) // 2]
                cell[f] = {"median": med("median"), "p99": med("p99"),
                           "n": sum(x["n"] for x in rs),
                           "failed": sum(x["failed"] for x in rs), "rounds": len(rs)}
            self.res["latency"].setdefault(peer, {})[case] = cell
            say("%-22s %-9s gai %8.2f us  gh2 %8.2f us  (median of %d rounds)" % (
                peer, case, cell.get("gai", {}).get("median", float("nan")),
                cell.get("gh2", {}).get("median", float("nan")), rounds))

    def paired_ns_latency(self, peers, cases, n, rounds=5):
        """paired_latency for peers whose clients run in a namespace each
        (glibc's nscd client: service "-"): peers (name, Ns); cases (case,
        name, inet, expect_fail); getaddrinfo only."""
        got = {}
        # Their gethostbyname2_r figures of the earlier run stay.
        earlier = {(p, c): dict(self.res["latency"].get(p, {}).get(c, {}))
                   for p, _ in peers for c, _, _, _ in cases}
        for r in range(rounds):
            for case, name, inet, neg in cases:
                for peer, ns in peers:
                    one = self.latency(peer, case, "-", name, n // rounds, ns, funcs="gai",
                                       inet=inet, expect_fail=neg)
                    got.setdefault((peer, case), []).append(one)
        for (peer, case), runs in got.items():
            rs = [x["gai"] for x in runs if "gai" in x]
            if not rs:
                continue
            med = lambda k: sorted(x[k] for x in rs)[len(rs) // 2]
            cell = earlier[(peer, case)]
            cell["gai"] = {"median": med("median"), "p99": med("p99"),
                           "n": sum(x["n"] for x in rs),
                           "failed": sum(x["failed"] for x in rs), "rounds": len(rs)}
            self.res["latency"][peer][case] = cell
            say("%-22s %-9s gai %8.2f us  (median of %d rounds)" % (
                peer, case, med("median"), len(rs)))

    def pingpong(self, n, extra):
        argv = [os.path.join(self.build, "bench", "sock-pingpong"), "-n", str(n)] + extra
        out = self.run(argv, where="bare socket")
        m = re.search(r"median\s+([\d.]+) us\s+p99\s+([\d.]+) us\s+mean\s+([\d.]+)", out)
        return {"median": float(m.group(1)), "p99": float(m.group(2)),
                "mean": float(m.group(3))}

    def throughput(self, peer, service, name, ns=None, extra_env=None):
        out = {}
        for threads in (1, 2):
            argv = [self.nss_lookup, "-f", "gai", "-w", str(WARM), "-T", str(threads),
                    "-D", str(TPUT_SECS), service, name]
            text = self.run(argv, ns, extra_env, where=peer)
            m = TPUT_RE.search(text)
            out[str(threads)] = float(m.group(3)) if m else None
            if m and m.group(4):
                self.res["problems"].append("%s, lookups/s with %d threads: %s calls failed" % (
                    peer, threads, m.group(4)))
        self.res["throughput"][peer] = {"name": name, **out}
        say("%-22s lookups/s: 1 thread %s, 2 threads %s" % (peer, out["1"], out["2"]))

    def strace_counts(self, argv, ns, extra_env, where):
        with tempfile.NamedTemporaryFile(dir=self.work, suffix=".strace", delete=False) as f:
            path = f.name
        self.run(["strace", "-f", "-c", "-o", path, "--"] + argv, ns, extra_env, where=where)
        counts = {}
        with open(path) as f:
            for line in f:
                t = line.split()
                if len(t) >= 5 and re.match(r"^[\d.]+$", t[0]) and t[-1] != "total":
                    counts[t[-1]] = int(t[3])
        os.unlink(path)
        return counts

    def syscalls(self, peer, service, name, ns=None, extra_env=None, n=STRACE_N, warm=20,
                 key=None):
        """Syscalls per getaddrinfo hit: the difference of two runs of different length."""
        runs = []
        for k in n:
            argv = [self.nss_lookup, "-f", "gai"]
            if warm:
                argv += ["-w", str(warm)]
            runs.append(self.strace_counts(argv + [service, name, str(k)], ns, extra_env, peer))
        per = {}
        for sc in set(runs[0]) | set(runs[1]):
            d = (runs[1].get(sc, 0) - runs[0].get(sc, 0)) / (n[1] - n[0])
            if d >= 0.005:
                per[sc] = round(d, 2)
        total = round(sum(per.values()), 2)
        self.res["syscalls"][key or peer] = {"name": name, "per_call": total, "by_syscall": per}
        say("%-22s syscalls per hit: %s %s" % (peer, total, per))

    def first_calls(self, specs):
        """The whole life of a new process doing one getaddrinfo, for every
        peer, interleaved run by run (bench/spawn-loop): this VM's speed
        drifts by more than the differences measured, so one peer after the
        other would compare moments, not peers.

        specs: (peer, Ns, extra env dict or None, name)."""
        path = os.path.join(self.work, "first-call.spec")
        with open(path, "w") as f:
            for peer, ns, env, name in specs:
                f.write("%s\t%s\t%s\t%s -1 - %s\n" % (
                    peer, "/proc/%d/ns/mnt" % ns.proc.pid if ns else "-",
                    " ".join("%s=%s" % kv for kv in (env or {}).items()) or "-",
                    self.nss_lookup, name))
                note_cmd([self.nss_lookup, "-1", "-", name], "first call: " + peer, env)
        tool = os.path.join(self.build, "bench", "spawn-loop")
        out = self.run([tool, "-n", str(HF_RUNS), "-w", "10", path], where="all first-call peers",
                       timeout=1200)
        names = {p: n for p, _, _, n in specs}
        for line in out.splitlines():
            m = re.match(r"^(.*)\tmedian ([\d.]+) us\tp99 ([\d.]+) us\tmean ([\d.]+) us\tn=(\d+)", line)
            if m:
                self.res["first_call"][m.group(1)] = {
                    "name": names.get(m.group(1)), "median": float(m.group(2)),
                    "p99": float(m.group(3)), "mean": float(m.group(4)), "n": int(m.group(5)),
                    "tool": "bench/spawn-loop"}
                say("%-22s first call: median %s us" % (m.group(1), m.group(2)))


def proc_mem(pid):
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "VmHWM"):
                out[k] = int(v.split()[0]) * 1024
    return out


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------
class Namecache:
    def __init__(self, b, name, hosts, conf_lines, cpu=None, resolv=None):
        self.b = b
        self.dir = os.path.join(b.work, "run", name)
        os.makedirs(self.dir, exist_ok=True)
        self.sock = os.path.join(self.dir, "socket")
        self.conf = os.path.join(b.work, "namecached-%s.conf" % name)
        write(self.conf, "".join(l + "\n" for l in conf_lines))
        argv = [os.path.join(b.build, "daemon", "namecached"), "--config", self.conf,
                "--socket", self.sock, "--hosts-file", hosts,
                "--resolv-conf", resolv or os.path.join(b.work, "resolv-nsd.conf"),
                "--nsswitch-conf", os.path.join(os.path.dirname(os.path.dirname(
                    os.path.abspath(__file__))), "tests", "files-dns.nsswitch.conf"),
                "--log-level", "warning"]
        note_cmd(argv, "namecache " + name)
        self.proc = spawn(argv, log=os.path.join(b.work, "namecached-%s.log" % name))
        self.ctl = os.path.join(b.build, "cli", "namecachectl")
        wait_for(lambda: self.proc.poll() is None and os.path.exists(self.sock) and
                 subprocess.run([self.ctl, "--socket", self.sock, "status"],
                                capture_output=True).returncode == 0, 120, "namecached " + name)
        self.env = {"NAMECACHE_SOCKET": self.sock}

    def json(self, what):
        r = subprocess.run([self.ctl, "--socket", self.sock, "--json", what],
                           capture_output=True, text=True, check=True)
        return json.loads(r.stdout)

    def stop(self):
        stop(self.proc)


def nscd_conf(path, shared, logfile):
    write(path, """# bench/run.py: nscd for the hosts database only
logfile			%s
debug-level		0
paranoia		no
enable-cache		passwd		no
enable-cache		group		no
enable-cache		services	no
enable-cache		netgroup	no
enable-cache		hosts		yes
positive-time-to-live	hosts		3600
negative-time-to-live	hosts		3600
suggested-size		hosts		1009
check-files		hosts		yes
persistent		hosts		no
shared			hosts		%s
max-db-size		hosts		67108864
""" % (logfile, "yes" if shared else "no"))


def measure(build, work, out_path):
    b = Bench(build, work)
    t_start = time.time()
    R = b.res
    R["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    bad = [x for x in SECTIONS if x not in ALL_SECTIONS]
    if bad or not SECTIONS:
        raise SystemExit("run.py measure: unknown sections %s (want some of %s)" % (
            bad, ", ".join(ALL_SECTIONS)))
    R["sections"] = list(SECTIONS)
    os.makedirs(os.path.join(work, "run"), exist_ok=True)
    # Sockets and shared segments on a tmpfs, as /run is on a real host.
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs",
                    os.path.join(work, "run")], check=True)
    try:
        _measure(b, work)
    finally:
        stop_all()
        subprocess.run(["umount", "-l", os.path.join(work, "run")])
    R["elapsed_measure_s"] = round(time.time() - t_start, 1)
    R["commands"] = log_cmds
    with open(out_path, "w") as f:
        json.dump(R, f, indent=1)


def _measure(b, work):
    W = lambda *p: os.path.join(work, *p)
    names = [n for _, n in socket.if_nameindex()]
    if names != ["lo"]:
        raise SystemExit("run.py measure: not in a private network namespace (%s)" % names)

    # --- data and configuration ------------------------------------------
    write(W("hosts4"), HOSTS4)
    if "peers" in SECTIONS:
        say("writing a 1,000,000-line hosts file")
        with open(W("hosts1m"), "w") as f:
            f.write(HOSTS4.split("192.0.2.11")[0])          # the two localhost lines
            for i in range(1000000 - 4):
                f.write("10.%d.%d.%d\thost%d.bulk.lan host%d\n" % (
                    i >> 16 & 255, i >> 8 & 255, i & 255, i, i))
            f.write("192.0.2.11\tother.lan other\n192.0.2.10\t%s benchhost\n" % HOSTS_NAME)
    write(W("bench.example.zone"), ZONE_BENCH)
    write(W("nx.example.zone"), ZONE_NX)
    opts = "options ndots:1 timeout:1 attempts:2\n"
    write(W("resolv-nsd.conf"), "nameserver 127.0.0.1\n" + opts)
    write(W("resolv-dnsmasq.conf"), "nameserver 127.0.0.2\n" + opts)
    write(W("nsswitch-files-dns.conf"), "hosts: files dns\n")
    # Clients of nscd and unscd: glibc asks the daemon before NSS; if it ever
    # fell back to NSS, this service does not exist and the lookup fails,
    # which the run reports, instead of timing files or dns by mistake.
    write(W("nsswitch-nscd-only.conf"), "hosts: nscd_fallback_would_fail\n")
    for svc in ("namecache", "files", "floor", "dns"):
        write(W("nsswitch-%s.conf" % svc), "hosts: %s\n" % svc)

    if "peers" not in SECTIONS and "listener" not in SECTIONS and "memory" not in SECTIONS:
        nscd_db(b, work)        # no DNS in this one
        return
    # --- nsd on 127.0.0.1:53, response rate limiting off ------------------
    nsd_dir = W("nsd")
    os.makedirs(nsd_dir, exist_ok=True)
    write(W("nsd", "nsd.conf"), """server:
	ip-address: 127.0.0.1@53
	port: 53
	do-ip4: yes
	do-ip6: no
	username: ""
	chroot: ""
	zonesdir: "{d}"
	database: ""
	zonelistfile: "{d}/zone.list"
	xfrdfile: "{d}/xfrd.state"
	xfrdir: "{d}"
	pidfile: "{d}/nsd.pid"
	verbosity: 1
	server-count: 1
	reuseport: no
	hide-version: yes
	refuse-any: no
	minimal-responses: yes
	zonefiles-write: 0
	# Debian builds nsd with RRL at 200 qps: it would drop or truncate misses.
	rrl-ratelimit: 0
	rrl-whitelist-ratelimit: 0
remote-control:
	control-enable: no
zone:
	name: "bench.example."
	zonefile: "{w}/bench.example.zone"
zone:
	name: "nx.example."
	zonefile: "{w}/nx.example.zone"
""".format(d=nsd_dir, w=work))
    nsd_argv = ["nsd", "-d", "-c", W("nsd", "nsd.conf")]
    note_cmd(nsd_argv, "nsd")
    nsd = spawn(nsd_argv, log=W("nsd.log"))
    wait_for(lambda: dns_probe(53, DNS_NAME), 20, "nsd on 127.0.0.1:53")
    # This namespace's own /etc/resolv.conf (a bind mount made here).
    subprocess.run(["mount", "--bind", W("resolv-nsd.conf"), "/etc/resolv.conf"], check=True)

    if "peers" in SECTIONS:
        peer_study(b, work)
    if "listener" in SECTIONS:
        listener(b, work, nsd)
    if "nscd-db" in SECTIONS:
        nscd_db(b, work)
    if "memory" in SECTIONS:
        fill(b)


def peer_study(b, work):
    """The NSS path and the socket: namecache against glibc, nscd, unscd, dnsmasq."""
    R = b.res
    W = lambda *p: os.path.join(work, *p)

    # --- the bare round trip ----------------------------------------------
    for mode, extra in (("free", []), ("pinned", ["-p", "0"])):
        R["roundtrip"][mode] = b.pingpong(5000 if QUICK else 20000, extra)
        say("bare round trip %s: %s" % (mode, R["roundtrip"][mode]))

    # --- the floor ----------------------------------------------------------
    b.latency("floor", "hosts", "floor", FLOOR_NAME, N_FAST)
    R["latency"]["floor"]["cached"] = R["latency"]["floor"]["hosts"]
    b.latency("floor", "negative", "floor", NEG_NAME, N_FAST, expect_fail=True)
    b.throughput("floor", "floor", FLOOR_NAME)
    b.syscalls("floor", "floor", FLOOR_NAME)

    # --- namecache ------------------------------------------------------------
    nc4 = Namecache(b, "nc4", W("hosts4"), ["shared = yes"])
    ncns = Namecache(b, "ncns", W("hosts4"), ["shared = no"])
    say("namecached with 1,000,000 hosts lines: loading")
    nc1m = Namecache(b, "nc1m", W("hosts1m"), ["shared = yes"])
    st = nc1m.json("status")
    R["scale"] = {"lines": st.get("hosts_lines"), "load_usec": st.get("hosts_load_usec"),
                  "index_bytes": st.get("hosts_memory_bytes"),
                  "text_bytes": st.get("hosts_text_bytes")}
    st4 = nc4.json("status")
    R["scale"]["lines_4"] = st4.get("hosts_lines")
    for peer, d in (("namecache", nc4), ("namecache shared=no", ncns)):
        b.latency(peer, "hosts", "namecache", HOSTS_NAME, N_FAST if d is nc4 else N_SOCK,
                  extra_env=d.env)
        b.latency(peer, "cached", "namecache", DNS_NAME, N_FAST if d is nc4 else N_SOCK,
                  extra_env=d.env)
        b.latency(peer, "negative", "namecache", NEG_NAME, N_FAST if d is nc4 else N_SOCK,
                  extra_env=d.env, expect_fail=True)
        b.latency(peer, "miss", "namecache", ("nc%d." if d is nc4 else "ns%d.") + "bench.example",
                  N_MISS, extra_env=d.env)
    # The socket path against the bare round trip, in alternating rounds:
    # this VM's round trip drifts by a third between two moments.
    runs = []
    for r in range(5):
        runs.append(b.pingpong((5000 if QUICK else 20000) // 5, []))
        b.latency("namecache shared=no", "cached r%d" % r, "namecache", DNS_NAME,
                  N_SOCK // 5, extra_env=ncns.env)
    lat_ns = R["latency"]["namecache shared=no"]
    rounds = [lat_ns.pop("cached r%d" % r) for r in range(5)]
    R["roundtrip"]["free, in rounds with the socket path"] = {
        k: sorted(x[k] for x in runs)[2] for k in ("median", "p99", "mean")}
    R["socket_rounds"] = {
        f: {"median": sorted(x[f]["median"] for x in rounds)[2],
            "p99": sorted(x[f]["p99"] for x in rounds)[2]}
        for f in ("gai", "gh2") if all(f in x for x in rounds)}
    say("paired: bare %s, socket path %s" % (
        R["roundtrip"]["free, in rounds with the socket path"], R["socket_rounds"]))
    # glibc's own dns module against the same nsd, right after namecache's
    # misses: the VM's speed drifts, and these two are compared.
    b.latency("glibc dns → nsd", "cached", "dns", DNS_NAME, N_SOCK)
    b.latency("glibc dns → nsd", "negative", "dns", NEG_NAME, N_SOCK, expect_fail=True)
    b.latency("glibc dns → nsd", "miss", "dns", "gd%d.bench.example", N_MISS)
    b.throughput("glibc dns → nsd", "dns", DNS_NAME)
    b.syscalls("glibc dns → nsd", "dns", DNS_NAME)
    # Issue 32's rows: the same comparisons again, in alternated rounds.
    floor_rounds(b, nc4)
    miss_rounds(b, nc4)
    # 4 lines against 1,000,000: the same calls in alternating rounds, so
    # that the VM's drift between two moments is not read as a difference.
    b.paired_latency([("namecache", nc4), ("namecache 1M hosts", nc1m)],
                     [("hosts", HOSTS_NAME), ("cached", DNS_NAME)], N_FAST)
    # Issue 13's rows, the NSS path's side: AF_INET, and a two-address name.
    b.latency("namecache", "inet", "namecache", DNS_NAME, N_FAST, extra_env=nc4.env,
              funcs="gai", inet=True)
    b.latency("namecache", "two", "namecache", "localhost", N_FAST, extra_env=nc4.env,
              funcs="gai")
    b.syscalls("namecache", "namecache", "localhost", extra_env=nc4.env, key="namecache two")
    b.throughput("namecache", "namecache", DNS_NAME, extra_env=nc4.env)
    b.throughput("namecache shared=no", "namecache", DNS_NAME, extra_env=ncns.env)
    b.syscalls("namecache", "namecache", DNS_NAME, extra_env=nc4.env)
    b.syscalls("namecache shared=no", "namecache", DNS_NAME, extra_env=ncns.env)
    nc1m.stop()

    # No recvfrom returning EAGAIN per upstream reply: strace on the daemon.
    upstream_check(b, nc4)

    # Throughput over the socket: pipelining clients, the daemon on one CPU.
    pipeline(b, nc4)

    # libnamecache: cached lookups beside 100 stalled ones on one context.
    lib_pending(b)

    # --- glibc files --------------------------------------------------------
    ns = Ns("files 4 lines", binds=[(W("hosts4"), "/etc/hosts")])
    b.latency("glibc files, 4 lines", "hosts", "files", HOSTS_NAME, N_FAST, ns)
    b.throughput("glibc files, 4 lines", "files", HOSTS_NAME, ns)
    b.syscalls("glibc files, 4 lines", "files", HOSTS_NAME, ns)
    ns.stop()
    ns = Ns("files 1M lines", binds=[(W("hosts1m"), "/etc/hosts")])
    b.latency("glibc files, 1M lines", "hosts", "files", HOSTS_NAME, N_1M, ns, warm=1)
    b.syscalls("glibc files, 1M lines", "files", HOSTS_NAME, ns, n=(10, 12), warm=0)
    ns.stop()

    # --- glibc dns to dnsmasq, a local caching forwarder to nsd -----------
    dm_argv = ["dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv",
               "--no-hosts", "--server=127.0.0.1#53", "--listen-address=127.0.0.2",
               "--bind-interfaces", "--port=53", "--cache-size=10000", "--user=nobody",
               "--group=nogroup", "--pid-file=" + W("dnsmasq.pid"),
               "--log-facility=" + W("dnsmasq.log")]
    note_cmd(dm_argv, "dnsmasq")
    dm = spawn(dm_argv)
    wait_for(lambda: dns_probe(53, DNS_NAME, "127.0.0.2"), 20, "dnsmasq on 127.0.0.2:53")
    ns = Ns("dnsmasq client", binds=[(W("resolv-dnsmasq.conf"), "/etc/resolv.conf")])
    b.latency("glibc dns → dnsmasq", "cached", "dns", DNS_NAME, N_SOCK, ns)
    b.latency("glibc dns → dnsmasq", "negative", "dns", NEG_NAME, N_SOCK, ns, expect_fail=True)
    b.latency("glibc dns → dnsmasq", "miss", "dns", "dm%d.bench.example", N_MISS, ns)
    b.throughput("glibc dns → dnsmasq", "dns", DNS_NAME, ns)
    b.syscalls("glibc dns → dnsmasq", "dns", DNS_NAME, ns)
    ns.stop()

    # --- nscd (shared yes, shared no) and unscd ---------------------------
    unscd = os.environ.get("BENCH_UNSCD", "")
    daemons = [("nscd shared=yes", "nscd", True), ("nscd shared=no", "nscd", False)]
    if unscd and os.access(unscd, os.X_OK):
        daemons.append(("unscd", unscd, None))
        R["unscd_version"] = subprocess.run([unscd, "-V"], capture_output=True,
                                            text=True).stdout.strip().splitlines()[0]
    else:
        R["problems"].append("unscd: no binary (BENCH_UNSCD unset or not executable)")
    clients = {}
    for peer, binary, shared in daemons:
        # Each keeps running (in its own /run) until the first calls below.
        clients[peer] = nscd_peer(b, peer, binary, shared, work)
    # namecached on glibc's nscd socket, measured as nscd is, right after it.
    clients["namecache nscd path"] = nscd_peer(b, "namecache nscd path", None, "namecache", work)
    # Then the two mapped databases in alternating rounds, for the ratios
    # (this VM's speed drifts by more than the difference between them).
    b.paired_ns_latency([(p, clients[p]) for p in ("nscd shared=yes", "namecache nscd path")],
                        [("hosts", HOSTS_NAME, False, False), ("cached", DNS_NAME, False, False),
                         ("negative", NEG_NAME, False, True), ("inet", DNS_NAME, True, False),
                         ("two", "localhost", False, False)], N_FAST)

    # --- first calls: a new process doing one lookup, every peer interleaved
    # nsswitch.conf is read as any program reads it (no __nss_configure_lookup).
    fc = []
    for svc in ("files", "floor", "namecache", "dns"):
        # Its own /run: a host's nscd socket, if any, must not answer these.
        binds = [(W("nsswitch-%s.conf" % svc), "/etc/nsswitch.conf"), (W("hosts4"), "/etc/hosts"),
                 (W("resolv-dnsmasq.conf" if svc == "dns" else "resolv-nsd.conf"), "/etc/resolv.conf")]
        fc.append(Ns("first call, hosts: " + svc, tmpfs=["/run"], binds=binds))
    specs = [("(process alone)", fc[0], None, "192.0.2.1"),
             ("floor", fc[1], None, FLOOR_NAME),
             ("namecache", fc[2], nc4.env, DNS_NAME),
             ("namecache shared=no", fc[2], ncns.env, DNS_NAME),
             ("glibc files, 4 lines", fc[0], None, HOSTS_NAME),
             ("glibc dns → dnsmasq", fc[3], None, DNS_NAME)]
    specs += [(peer, cl, None, DNS_NAME) for peer, cl in clients.items()]
    b.first_calls(specs)
    for ns in fc:
        ns.stop()
    for peer in clients:
        nscd_peer_stop(b, peer)
    stop(dm)

    nc4.stop()
    ncns.stop()


ROUNDS_32 = 5       # issue 32: alternated rounds of the NSS floor and of the misses


def round_medians(b, peer, service, name, n, env=None, funcs=None):
    """One run of nss-lookup, its medians by function, not kept as a cell."""
    tmp = "round (issue 32)"
    got = b.latency(peer, tmp, service, name, n, extra_env=env, funcs=funcs)
    del b.res["latency"][peer][tmp]
    if not b.res["latency"][peer]:
        del b.res["latency"][peer]
    return {f: x["median"] for f, x in got.items()}


def floor_rounds(b, nc):
    """Issue 32: a shared-cache hit through the NSS module against the NSS
    floor, both in each of ROUNDS_32 rounds, in turn.  This machine's
    speed jumps between two levels: the target takes each one's least
    round median, both at the faster level, not a middle value that may
    pair one level with the other."""
    n = N_FAST // ROUNDS_32
    cells = {}
    for r in range(ROUNDS_32):
        for peer, service, name, env in (
                ("floor", "floor", FLOOR_NAME, None),
                ("namecache hosts", "namecache", HOSTS_NAME, nc.env),
                ("namecache cached", "namecache", DNS_NAME, nc.env)):
            got = round_medians(b, peer, service, name, n, env)
            for f, v in got.items():
                cells.setdefault(peer, {}).setdefault(f, []).append(v)
    b.res["floor_rounds"] = {"rounds": ROUNDS_32, "calls": n, "cells": cells}
    say("floor rounds: %s" % cells)


def miss_rounds(b, nc):
    """Issue 32: an uncached getaddrinfo through the NSS module against
    glibc's dns module, both asking the same nsd, in ROUNDS_32 rounds in
    turn; a new name at every call (each peer and round its own)."""
    n = N_MISS // ROUNDS_32
    cells = {}
    for r in range(ROUNDS_32):
        for peer, service, name, env in (
                ("namecache", "namecache", "r%dnc%%d.bench.example" % r, nc.env),
                ("glibc dns → nsd", "dns", "r%dgd%%d.bench.example" % r, None)):
            got = round_medians(b, peer, service, name, n, env, funcs="gai")
            cells.setdefault(peer, []).append(got.get("gai"))
    b.res["miss_rounds"] = {"rounds": ROUNDS_32, "calls": n, "cells": cells}
    say("miss rounds: %s" % cells)


def lib_pending(b):
    """Issue 5: a context with 100 lookups waiting on an upstream that never
    answers still answers cached names at once (bench/lib-pending)."""
    R = b.res
    W = lambda *p: os.path.join(b.work, *p)
    hole = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    hole.bind(("127.0.0.1", 0))         # never read: a black hole on loopback
    port = hole.getsockname()[1]
    # Timeouts of 30 s, so that the slow lookups outlive the measurement.
    write(W("resolv-slow.conf"), "nameserver 127.0.0.1\noptions timeout:30 attempts:1\n")
    nc = Namecache(b, "ncbh", W("hosts4"), ["shared = yes"], resolv=W("resolv-slow.conf"))
    try:
        subprocess.run([nc.ctl, "--socket", nc.sock, "query", DNS_NAME], check=True,
                       capture_output=True)
        write(nc.conf, "shared = yes\nupstream = 127.0.0.1:%d\n" % port)
        nc.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: nc.json("status").get("dns_servers") == "127.0.0.1:%d" % port, 10,
                 "namecached ncbh on the black hole")
        tool = os.path.join(b.build, "bench", "lib-pending")
        R["lib_pending"] = {}
        for case, name in (("hosts", HOSTS_NAME), ("cached", DNS_NAME)):
            out = b.run([tool, nc.sock, name, "lp-%s-%%d.bench.example" % case, "100",
                         "500" if QUICK else "2000"], where="lib-pending " + case)
            got = {}
            for line in out.splitlines():
                m = re.match(r"(idle|pending|shared)\s+median\s+([\d.]+) us\s+p99\s+([\d.]+) us"
                             r"\s+\(n=(\d+), (\d+) failed", line)
                if m:
                    got[m.group(1)] = {"median": float(m.group(2)), "p99": float(m.group(3)),
                                       "n": int(m.group(4)), "failed": int(m.group(5))}
                m = re.match(r"slow lookups still pending at the end: (\d+) of (\d+)", line)
                if m:
                    got["still_pending"] = int(m.group(1))
            R["lib_pending"][case] = got
            say("lib-pending %s: %s" % (case, got))
        st = nc.json("statistics")
        R["lib_pending_upstream"] = {k: st.get(k) for k in ("upstream_queries",
                                                            "upstream_replies",
                                                            "upstream_in_flight")}
    finally:
        nc.stop()
        hole.close()


def upstream_check(b, nc):
    """Counts the daemon's recvfrom calls that fail with EAGAIN, per upstream reply."""
    R = b.res
    pid = nc.proc.pid
    path = os.path.join(b.work, "daemon.strace")
    before = nc.json("statistics")
    argv = ["strace", "-f", "-c", "-o", path, "-e",
            "trace=recvfrom,recvmsg,recvmmsg,read,socket,connect,close,sendto,sendmsg,"
            "sendmmsg,epoll_ctl",
            "-p", str(pid)]
    note_cmd(argv, "namecache")
    st = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, start_new_session=True)
    started.append(st)
    # strace says "Process N attached" once it is in.
    st.stderr.readline()
    time.sleep(0.2)
    b.latency("namecache (under strace)", "miss", "namecache", "ea%d.bench.example",
              200 if QUICK else 500, extra_env=nc.env, funcs="gai")
    del R["latency"]["namecache (under strace)"]
    after = nc.json("statistics")
    os.kill(st.pid, signal.SIGINT)
    st.wait(20)
    started.remove(st)
    calls = {}
    with open(path) as f:
        for line in f:
            t = line.split()
            if len(t) >= 5 and re.match(r"^[\d.]+$", t[0]) and t[-1] != "total":
                calls[t[-1]] = {"calls": int(t[3]), "errors": int(t[4]) if len(t) == 6 else 0}
    replies = after.get("upstream_replies", 0) - before.get("upstream_replies", 0)
    queries = after.get("upstream_queries", 0) - before.get("upstream_queries", 0)
    # The daemon reads replies with recvmmsg since issue 19 (recvfrom before).
    rf = {k: sum(calls.get(c, {}).get(k, 0) for c in ("recvfrom", "recvmmsg"))
          for k in ("calls", "errors")}
    R["upstream"] = {"replies": replies, "queries": queries, "syscalls": calls,
                     "recvfrom_eagain_per_reply": rf["errors"] / replies if replies else None}
    say("upstream: %d queries, %d replies, recvfrom and recvmmsg %s" % (queries, replies, rf))


def pipeline(b, nc):
    R = b.res
    ncpu = os.cpu_count() or 1
    pin = ncpu >= 2
    allcpus = "0-%d" % (ncpu - 1)
    tool = os.path.join(b.build, "bench", "nc-pipeline")
    if pin:
        b.run(["taskset", "-a", "-p", "-c", "0", str(nc.proc.pid)], where="namecache")
    try:
        for case, name in (("hosts", HOSTS_NAME), ("cached", DNS_NAME)):
            argv = (["taskset", "-c", "1"] if pin else []) + [
                tool, "-c", "4", "-d", "32", "-t", str(PIPE_SECS), nc.sock, name]
            runs = []
            for _ in range(PIPE_RUNS):
                out = b.run(argv, where="namecache pinned to CPU 0" if pin else "namecache")
                m = re.search(r"([\d.]+) lookups/s.*?ok (\d+), notfound (\d+)", out)
                runs.append((float(m.group(1)), int(m.group(2)), out.strip()))
                total = int(re.search(r": (\d+) replies", out).group(1))
                if int(m.group(2)) != total:
                    R["problems"].append("pipelined %s: %d of %d replies not OK: %s" % (
                        case, total - int(m.group(2)), total, out.strip()))
            runs.sort()
            med = runs[len(runs) // 2]
            R["pipeline"][case] = {"name": name, "rate": med[0], "ok": med[1], "line": med[2],
                                   "runs": [r[0] for r in runs], "pinned": pin}
            say("pipelined %s: %s/s (runs %s)" % (case, med[0], [r[0] for r in runs]))
    finally:
        if pin:
            b.run(["taskset", "-a", "-p", "-c", allcpus, str(nc.proc.pid)], where="namecache")


nscd_running = {}


def nscd_peer(b, peer, binary, shared, work):
    """Starts nscd or unscd in a namespace of its own and measures it; it
    keeps running (for the first calls) until nscd_peer_stop().  Returns
    the namespace its clients run in."""
    W = lambda *p: os.path.join(work, *p)
    tag = re.sub(r"\W+", "-", peer)
    conf = W("%s.conf" % tag)
    if shared == "namecache":
        write(conf, "shared = yes\nlog_level = warning\n")
    else:
        nscd_conf(conf, shared if shared is not None else False, W("%s.log" % tag))
    # The daemon's namespace: its own /run (the socket is /run/nscd/socket,
    # fixed in glibc), the 4-line hosts file, "hosts: files dns".
    dns = Ns(peer, tmpfs=["/run"], mkdirs=["/run/nscd"],
             binds=[(W("hosts4"), "/etc/hosts"), (W("nsswitch-files-dns.conf"), "/etc/nsswitch.conf"),
                    (W("resolv-nsd.conf"), "/etc/resolv.conf")])
    # Its clients: the same /run, and an nsswitch.conf that cannot answer.
    cl = Ns(peer + " client", parent=dns,
            binds=[(W("nsswitch-nscd-only.conf"), "/etc/nsswitch.conf")])
    if shared == "namecache":
        argv = [os.path.join(b.build, "daemon", "namecached"), "--config", conf,
                "--socket", "/run/namecache/socket", "--hosts-file", "/etc/hosts",
                "--resolv-conf", "/etc/resolv.conf", "--nsswitch-conf", "/etc/nsswitch.conf",
                "--nscd-socket", "/run/nscd/socket"]
    else:
        argv = [binary, "-f", conf] + (["-F"] if shared is not None else ["-d"])
    note_cmd(argv, peer)
    d = spawn(dns.enter() + argv, log=W("%s.out" % tag))
    nscd_running[peer] = (d, cl, dns)
    wait_for(lambda: d.poll() is None and os.path.exists(dns.path("/run/nscd/socket")), 20,
             peer + " socket")
    time.sleep(0.3)
    fast = shared is True or shared == "namecache"
    n = N_FAST if fast else N_SOCK
    b.latency(peer, "hosts", "-", HOSTS_NAME, n, cl)
    b.latency(peer, "cached", "-", DNS_NAME, n, cl)
    b.latency(peer, "negative", "-", NEG_NAME, n, cl, expect_fail=True)
    b.latency(peer, "miss", "-", {"nscd shared=yes": "ny", "nscd shared=no": "nn",
                                  "namecache nscd path": "nn2"}.get(peer, "un") +
              "%d.bench.example", N_MISS, cl)
    if fast:
        # Issue 13's rows: AF_INET (GETHOSTBYNAME), and localhost's two
        # addresses (the RFC 6724 sort, with the netlink counter).
        b.latency(peer, "inet", "-", DNS_NAME, n, cl, funcs="gai", inet=True)
        b.latency(peer, "two", "-", "localhost", n, cl, funcs="gai")
        b.syscalls(peer, "-", "localhost", cl, key=peer + " two")
    b.throughput(peer, "-", DNS_NAME, cl)
    b.syscalls(peer, "-", DNS_NAME, cl)
    return cl


def nscd_peer_stop(b, peer):
    d, cl, dns = nscd_running.pop(peer)
    if d.poll() is not None:
        b.res["problems"].append("%s exited during its run (status %s)" % (peer, d.returncode))
    stop(d)
    cl.stop()
    dns.stop()


def smaps_rss(pid, path):
    """Resident bytes of pid's mappings of the file path (smaps)."""
    total, cur = 0, False
    with open("/proc/%d/smaps" % pid) as f:
        for line in f:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                cur = line.rstrip().endswith(" " + path) or line.rstrip().endswith(
                    " " + path + " (deleted)")
            elif cur and line.startswith("Rss:"):
                total += int(line.split()[1]) * 1024
    return total


# The default configuration (cache_size 1,000,000, cache_size_mb 120): it
# must hold them all (issue 22).
FILL_CONF = ["shared = yes"]


def fill(b):
    """1,000,000 distinct names through the socket into a daemon of the default
    configuration, asked for IPv4 (-f 4) and, in a second daemon, as
    getaddrinfo asks (-f 0: A and AAAA); then a restart of the second that
    takes them over (issue 22)."""
    R = b.res
    R["memory"] = fill_one(b, "4", "ncfill")
    R["memory_unspec"] = fill_one(b, "0", "ncfill6", restart=True)


def fill_one(b, family, name, restart=False):
    nc = Namecache(b, name, "/dev/null", FILL_CONF)
    time.sleep(0.5)
    m0 = proc_mem(nc.proc.pid)
    tool = os.path.join(b.build, "bench", "nc-pipeline")
    say("filling the cache with %d names (family %s)" % (FILL_COUNT, family))
    t0 = time.time()
    out = b.run([tool, "-c", "4", "-d", "64", "-f", family, "-n", str(FILL_COUNT), nc.sock,
                 FILL_PATTERN], where="namecache, default configuration", timeout=1200)
    secs = time.time() - t0
    time.sleep(1.5)       # a heartbeat, so the segment's pages are all in
    m1 = proc_mem(nc.proc.pid)
    stats = nc.json("statistics")
    seg = os.path.join(nc.dir, "cache")
    try:
        s = os.stat(seg)
        seg_size, seg_alloc = s.st_size, s.st_blocks * 512
    except OSError:
        seg_size = seg_alloc = None
    m = re.search(r"ok (\d+), notfound (\d+), nodata (\d+), tryagain (\d+)", out)
    g = re.search(r"longest gap between replies ([0-9.]+) ms", out)
    entries = stats.get("cache_entries") or 0
    mem = {
        "family": family,
        "names": FILL_COUNT, "fill_seconds": round(secs, 1), "fill_line": out.strip(),
        "ok": int(m.group(1)) if m else None,
        "cache_entries": entries, "cache_memory_bytes": stats.get("cache_memory_bytes"),
        "rss_before": m0, "rss_after": m1,
        "segment_file_size": seg_size, "segment_allocated": seg_alloc,
        "shared_used_bytes": stats.get("shared_used_bytes"),
        "shared_published": stats.get("shared_published"),
        "shared_full": stats.get("shared_full"), "shared_resets": stats.get("shared_resets"),
        "upstream_queries": stats.get("upstream_queries"),
        "store_rss": smaps_rss(nc.proc.pid, os.path.join(nc.dir, "store")),
        "segment_rss": smaps_rss(nc.proc.pid, seg),
        "store_file_size": stats.get("cache_store_bytes"),
        "store_written": stats.get("cache_store_written_bytes"),
        "store_live": stats.get("cache_store_live_bytes"),
        "store_slots": stats.get("cache_store_slots"),
        "store_cleanings": stats.get("cache_store_cleanings"),
        "evictions": stats.get("cache_evictions"),
        # The longest loop stall (issue 33): the longest write into the
        # cache, as the daemon timed it, and the longest gap between
        # replies nc-pipeline saw while lookups were in flight.
        "put_max_usec": stats.get("cache_put_max_usec"),
        "reply_gap_max_ms": float(g.group(1)) if g else None,
        "store_grows": stats.get("cache_store_grows"),
        "grow_step_max": stats.get("cache_store_grow_step_max"),
        "loadavg": open("/proc/loadavg").read().split()[:3],
    }
    say("fill: %s" % mem)
    if restart:
        # A restart: the next daemon takes the store over (SIGTERM, then start).
        nc.stop()
        t0 = time.time()
        nc = Namecache(b, name, "/dev/null", FILL_CONF)
        ready = time.time() - t0
        st2 = nc.json("statistics")
        mem["restart"] = {
            "ready_seconds": round(ready, 3), "adopted": st2.get("cache_adopted"),
            "adopt_usec": st2.get("cache_adopt_usec"), "dropped": st2.get("cache_adopt_dropped"),
            "rss": proc_mem(nc.proc.pid),
            "store_rss": smaps_rss(nc.proc.pid, os.path.join(nc.dir, "store")),
        }
        say("restart: %s" % mem["restart"])
    nc.stop()
    return mem


# ---------------------------------------------------------------------------
# The DNS listener (issue 20): namecache, dnsmasq, unbound with one thread
# and systemd-resolved's stub, each on loopback, each forwarding to the
# same nsd, each loaded in turn by dnsperf pinned to the other CPU; and
# the floor (issue 32), bench/dns-floor, which only reads and answers
# ---------------------------------------------------------------------------
DP_HITS = 1000                          # the warm name list: h0 ... h999.bench.example, A
DP_SECS = 2 if QUICK else 5             # a saturating run (dnsperf -l)
# Saturating hits: each server in turn, DP_ROUNDS times, each run DP_SECS
# long; issue 32's CPU per hit is the median of the rounds' (one 5 s run
# moves by 30% on these VMs, so one is not enough).
DP_ROUNDS = 3
DP_LAT_ROUNDS = 1 if QUICK else 5       # and the latency runs
DP_CLIENTS = 4                          # dnsperf -c: source ports
DP_HIT_OUT = 200                        # dnsperf -q on hits: enough to keep any server busy
DP_MISS_OUT = 100                       # on misses: below dnsmasq's dns-forward-max (150)
DP_LAT_QPS = 10000                      # the latency runs' rate (dnsperf -Q), hits
DP_MISS_QPS = 2000                      # and misses
DP_LAT_SECS = 2 if QUICK else 3
DP_MISS_NAMES = 150000 if QUICK else 400000   # unique names for one saturating miss run
DP_STRACE_SECS = 2
DP_PP_N = 500 if QUICK else 2000        # round trips one at a time, per round (bench/dns-pingpong)
NC_DNS_PORT, NC_DNS_PORT_DNS, DNSMASQ_PORT, UNBOUND_PORT = 5301, 5305, 5302, 5303
FLOOR_DNS_PORT = 5304                   # bench/dns-floor
DNS_FLOOR = "floor (recvmmsg/sendmmsg only)"    # its name in the listener's tables
RESOLVED_ADDR = "127.0.0.53"            # resolved's stub: port 53, not configurable
HZ = os.sysconf("SC_CLK_TCK")


class DnsPeer:
    """A DNS server under test: the process whose CPU is counted, where it listens."""

    def __init__(self, name, tag, proc, host, port, about, stop_fn=None, nc=None,
                 forwards=True):
        self.name, self.tag, self.proc = name, tag, proc
        self.host, self.port, self.about = host, port, about
        self.stop_fn = stop_fn or (lambda: stop(proc))
        self.nc = nc            # a Namecache: its statistics
        self.forwards = forwards    # False: the floor, which has no misses

    @property
    def pid(self):
        return self.proc.pid


def cpu_ticks(pid):
    """A process's CPU time, all its threads and not its children: utime and
    stime from /proc/PID/stat (clock ticks, sampled at the timer tick), each
    thread's utime + stime, and the scheduler's exact run time of its threads
    (/proc/PID/task/*/schedstat, ns), a cross-check of the sampled figure."""
    with open("/proc/%d/stat" % pid) as f:
        t = f.read().rsplit(")", 1)[1].split()
    threads, run_ns = {}, 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                s = f.read()
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                run_ns += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        u = s.rsplit(")", 1)[1].split()
        threads["%s/%s" % (s[s.index("(") + 1:s.rindex(")")], tid)] = int(u[11]) + int(u[12])
    return {"utime": int(t[11]), "stime": int(t[12]), "threads": threads, "run_ns": run_ns}


DP_STAT = (("sent", r"Queries sent:\s+(\d+)", int), ("completed", r"Queries completed:\s+(\d+)", int),
           ("lost", r"Queries lost:\s+(\d+)", int), ("secs", r"Run time \(s\):\s+([\d.]+)", float),
           ("qps", r"Queries per second:\s+([\d.]+)", float),
           ("avg_latency_s", r"Average Latency \(s\):\s+([\d.]+)", float))


def dnsperf(b, p, datafile, args, verbose=False, what=""):
    """One dnsperf run against p, its CPU from /proc before and after.
    verbose: -v, every answer's latency, for the median and p99."""
    pin = (os.cpu_count() or 1) >= 2
    argv = (["taskset", "-c", "1"] if pin else []) + [
        "dnsperf", "-s", p.host, "-p", str(p.port), "-d", datafile] + args + (
        ["-v"] if verbose else [])
    c0 = cpu_ticks(p.pid)
    out = b.run(argv, where="%s%s" % (p.name, ", " + what if what else ""))
    c1 = cpu_ticks(p.pid)
    r = {}
    for k, rx, conv in DP_STAT:
        m = re.search(rx, out)
        r[k] = conv(m.group(1)) if m else None
    m = re.search(r"Response codes:\s+(.*)", out)
    r["rcodes"] = {c: int(n) for c, n in re.findall(r"([A-Z]+) (\d+) \(", m.group(1))} if m else {}
    r["utime_s"] = (c1["utime"] - c0["utime"]) / HZ
    r["stime_s"] = (c1["stime"] - c0["stime"]) / HZ
    r["cpu_s"] = r["utime_s"] + r["stime_s"]
    r["run_s"] = (c1["run_ns"] - c0["run_ns"]) / 1e9
    q = r.get("completed")
    r["cpu_us_per_query"] = r["cpu_s"] * 1e6 / q if q else None
    r["run_us_per_query"] = r["run_s"] * 1e6 / q if q else None
    r["threads_cpu_s"] = {k: (v - c0["threads"].get(k, 0)) / HZ
                          for k, v in c1["threads"].items() if v - c0["threads"].get(k, 0) > 0}
    if verbose:
        r["_lat"] = [float(l.split()[-1]) * 1e6 for l in out.splitlines() if l.startswith("> ")]
        percentiles(r)
    bad = {c: n for c, n in r["rcodes"].items() if c != "NOERROR"}
    if bad or not r.get("completed"):
        b.res["problems"].append("listener, %s, %s: answers other than NOERROR: %s (of %s)" % (
            p.name, what, bad or "no answers", r.get("completed")))
    if r.get("sent") and (r.get("lost") or 0) > 0.001 * r["sent"] + DP_HIT_OUT:
        b.res["problems"].append("listener, %s, %s: %d of %d queries lost" % (
            p.name, what, r["lost"], r["sent"]))
    say("%-26s %-22s %9.0f q/s  cpu %6.2f us/q (user %.2f s, sys %.2f s; run %6.2f us/q)%s"
        "  (%s of %s, lost %s)" % (
        p.name, what, r.get("qps") or 0, r["cpu_us_per_query"] or float("nan"),
        r["utime_s"], r["stime_s"], r["run_us_per_query"] or float("nan"),
        "  p50 %.0f us p99 %.0f us" % (r["p50_us"], r["p99_us"]) if "p50_us" in r else "",
        r.get("completed"), r.get("sent"), r.get("lost")))
    return r


def percentiles(r):
    lat = sorted(r.get("_lat") or [])
    if lat:
        r["p50_us"] = lat[len(lat) // 2]
        r["p99_us"] = lat[min(len(lat) - 1, len(lat) * 99 // 100)]
        r["n_latencies"] = len(lat)


def pooled(runs):
    """Runs of one server (dnsperf()'s results) as one: counts and times
    added up, CPU per query from the sums; queries/s, p50 and p99 the median
    of the runs' (a round that met a stall of this shared VM moves the sums,
    not the median)."""
    r = {"runs": len(runs), "rcodes": {}, "threads_cpu_s": {}, "_lat": []}
    for k in ("sent", "completed", "lost", "secs", "utime_s", "stime_s", "cpu_s", "run_s"):
        r[k] = sum(x.get(k) or 0 for x in runs)
    for x in runs:
        for c, n in x["rcodes"].items():
            r["rcodes"][c] = r["rcodes"].get(c, 0) + n
        for t, v in x["threads_cpu_s"].items():
            r["threads_cpu_s"][t] = r["threads_cpu_s"].get(t, 0) + v
        r["_lat"] += x.get("_lat") or []
    q = r["completed"]
    med = lambda k: sorted(x[k] for x in runs)[len(runs) // 2]
    r["qps_pooled"] = q / r["secs"] if r["secs"] else None
    r["qps"] = med("qps")
    r["cpu_us_per_query"] = r["cpu_s"] * 1e6 / q if q else None
    r["run_us_per_query"] = r["run_s"] * 1e6 / q if q else None
    r["qps_runs"] = [x.get("qps") for x in runs]
    r["cpu_us_per_query_runs"] = [x.get("cpu_us_per_query") for x in runs]
    # Issue 32's figure: the median of the rounds' own CPU per query.
    cpu = sorted(x for x in r["cpu_us_per_query_runs"] if x is not None)
    r["cpu_us_per_query_median"] = cpu[len(cpu) // 2] if cpu else None
    if all("p50_us" in x for x in runs):
        r["p50_us_runs"] = [x["p50_us"] for x in runs]
        r["p50_us"], r["p99_us"] = med("p50_us"), med("p99_us")
        lat = sorted(r["_lat"])
        r["p50_us_pooled"] = lat[len(lat) // 2]
        r["n_latencies"] = len(lat)
    return r


def in_turn(b, peers, rounds, run):
    """run(p) for every server, in turn, rounds times: this VM's speed
    drifts, and its other tenants come and go; the figures compared should
    share their moments.  Returns {server name: pooled result}."""
    got = {}
    for _ in range(rounds):
        for p in peers:
            got.setdefault(p.name, []).append(run(p))
    out = {}
    for name, runs in got.items():
        out[name] = pooled(runs)
        out[name].pop("_lat", None)
    return out


def perf_profile(b, p, datafile, args):
    """namecache's saturating hits once more under `perf record -g`: the top
    of `perf report --no-children`, by shared object and by symbol."""
    data = os.path.join(b.work, "listener", "perf-%s.data" % p.tag)
    argv = ["perf", "record", "-g", "-o", data, "-p", str(p.pid), "--",
            "sleep", str(DP_SECS + 1)]
    note_cmd(argv, p.name)
    pr = spawn(argv, log=os.path.join(b.work, "listener", "perf-record.log"))
    time.sleep(0.5)
    r = dnsperf(b, p, datafile, args, what="hits, under perf")
    pr.wait(DP_SECS + 30)
    started.remove(pr)
    out = {"queries": r.get("completed"), "qps": r.get("qps"), "data": data}
    for key, sort in (("by_dso", "dso"), ("by_symbol", "dso,sym")):
        argv = ["perf", "report", "-i", data, "--no-children", "--sort", sort, "-g", "none",
                "--stdio", "--percent-limit", "0.7"]
        note_cmd(argv, p.name)
        txt = subprocess.run(argv, capture_output=True, text=True).stdout
        out[key] = [l.strip() for l in txt.splitlines() if re.match(r"^\s+[\d.]+%", l)][:25]
    m = re.search(r"Event count \(approx\.\): (\d+)", subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "-g", "none", "--sort", "dso"],
        capture_output=True, text=True).stdout)
    out["cpu_clock_ns"] = int(m.group(1)) if m else None
    return out


PP_RE = re.compile(r"median\s+([\d.]+) us\s+p99\s+([\d.]+) us\s+mean\s+([\d.]+) us\s+"
                   r"\(n=(\d+), lost (\d+), not NOERROR (\d+)\)")


def dns_pingpong(b, p, datafile):
    """bench/dns-pingpong: DP_PP_N round trips one at a time, and the
    server's CPU over them."""
    pin = (os.cpu_count() or 1) >= 2
    argv = [os.path.join(b.build, "bench", "dns-pingpong")] + (["-p", "1"] if pin else []) + [
        "-n", str(DP_PP_N), "-w", "100", p.host, str(p.port), datafile]
    c0 = cpu_ticks(p.pid)
    out = b.run(argv, where=p.name + ", one at a time")
    c1 = cpu_ticks(p.pid)
    m = PP_RE.search(out)
    r = {"p50_us": float(m.group(1)), "p99_us": float(m.group(2)), "mean_us": float(m.group(3)),
         "n": int(m.group(4)), "lost": int(m.group(5)), "not_noerror": int(m.group(6)),
         "cpu_s": (c1["utime"] + c1["stime"] - c0["utime"] - c0["stime"]) / HZ,
         "run_s": (c1["run_ns"] - c0["run_ns"]) / 1e9}
    if r["lost"] or r["not_noerror"]:
        b.res["problems"].append("listener, %s, one at a time: %s" % (p.name, out.strip()))
    say("%-26s %-22s p50 %.1f us p99 %.1f us  run %.2f us/q  (n=%d)" % (
        p.name, "hits, one at a time", r["p50_us"], r["p99_us"],
        r["run_s"] * 1e6 / (r["n"] + 100), r["n"]))
    return r


def pingpong_rounds(runs):
    """The rounds of dns_pingpong() as one cell: the median of their medians
    (and p99s); CPU per round trip (warm-up included) from their sums."""
    med = lambda k: sorted(x[k] for x in runs)[len(runs) // 2]
    n = sum(x["n"] + 100 for x in runs)
    return {"p50_us": med("p50_us"), "p99_us": med("p99_us"), "rounds": len(runs),
            "p50_us_rounds": [x["p50_us"] for x in runs],
            "n": sum(x["n"] for x in runs), "lost": sum(x["lost"] for x in runs),
            "cpu_us_per_query": sum(x["cpu_s"] for x in runs) * 1e6 / n,
            "run_us_per_query": sum(x["run_s"] for x in runs) * 1e6 / n}


def dnsperf_strace(b, p, datafile, args, what):
    """dnsperf with `strace -f -c -p` on the server: its reads, and how many failed (EAGAIN)."""
    path = os.path.join(b.work, "listener", "%s-%s.strace" % (p.tag, re.sub(r"\W+", "-", what)))
    argv = ["strace", "-f", "-c", "-o", path, "-e",
            "trace=recvfrom,recvmsg,recvmmsg,read,sendto,sendmsg,sendmmsg,epoll_wait",
            "-p", str(p.pid)]
    note_cmd(argv, p.name)
    st = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, start_new_session=True)
    started.append(st)
    st.stderr.readline()                 # "Process N attached": it is in
    time.sleep(0.2)
    try:
        r = dnsperf(b, p, datafile, args, what=what + ", under strace")
    finally:
        os.kill(st.pid, signal.SIGINT)
        st.wait(20)
        started.remove(st)
    calls = {}
    with open(path) as f:
        for line in f:
            t = line.split()
            if len(t) >= 5 and re.match(r"^[\d.]+$", t[0]) and t[-1] != "total":
                calls[t[-1]] = {"calls": int(t[3]), "errors": int(t[4]) if len(t) == 6 else 0}
    reads = ("recvfrom", "recvmsg", "recvmmsg")
    n = {k: sum(calls.get(c, {}).get(k, 0) for c in reads) for k in ("calls", "errors")}
    q = r.get("completed") or 0
    out = {"queries": q, "qps": r.get("qps"), "syscalls": calls, "reads": n["calls"],
           "eagain": n["errors"], "eagain_per_query": n["errors"] / q if q else None,
           "reads_per_query": n["calls"] / q if q else None}
    say("%-26s %-22s reads %d (%s), failed %d: %.4f per query" % (
        p.name, what, n["calls"], ", ".join("%s %d" % (c, calls[c]["calls"]) for c in reads
                                            if c in calls), n["errors"],
        out["eagain_per_query"] or 0))
    return out


def pin_group(b, leader, cpus, where):
    """taskset every thread of every process in leader's process group."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                pgrp = int(f.read().rsplit(")", 1)[1].split()[2])
        except (OSError, ValueError, IndexError):
            continue
        if pgrp == leader:
            b.run(["taskset", "-a", "-p", "-c", cpus, d], where=where)


def start_resolved(b, work):
    """systemd-resolved in a mount namespace of its own (its /run, and a
    passwd with its user), its stub on 127.0.0.53:53 forwarding to nsd.
    Returns a DnsPeer, or None with the reason in the notes."""
    R = b.res
    W = lambda *p: os.path.join(work, *p)
    binary = os.environ.get("BENCH_RESOLVED", "")
    if not binary or not os.access(binary, os.X_OK):
        R["notes"].append("systemd-resolved's stub: not measured, no binary (BENCH_RESOLVED "
                          "unset: run.sh fetches Debian's systemd-resolved package with "
                          "`apt-get download` and unpacks it, and could not)")
        return None
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    if "not found" in ldd:
        R["notes"].append("systemd-resolved's stub: not measured, its binary lacks libraries "
                          "here: %s" % "; ".join(l.strip() for l in ldd.splitlines()
                                                  if "not found" in l))
        return None
    # resolved answers nothing from its global DNS servers while no link but
    # loopback is up with a routable address ("network-down"): a veth pair,
    # both ends in this namespace, carries an address and no traffic.
    veth = "ncb-rsv0"
    b.run(["ip", "link", "add", veth, "type", "veth", "peer", "name", "ncb-rsv1"],
          where="resolved's network")
    b.run(["ip", "addr", "add", "198.51.100.1/24", "dev", veth], where="resolved's network")
    b.run(["ip", "link", "set", veth, "up"], where="resolved's network")
    b.run(["ip", "link", "set", "ncb-rsv1", "up"], where="resolved's network")
    with open("/etc/passwd") as f:
        pw = f.read()
    with open("/etc/group") as f:
        gr = f.read()
    # resolved, started as root, drops to this user; it exists only in
    # resolved's namespace, under an id no one here has.
    taken = {int(l.split(":")[2]) for l in pw.splitlines() + gr.splitlines()
             if l.count(":") >= 3 and l.split(":")[2].isdigit()}
    uid = next(i for i in range(999, 100, -1) if i not in taken)
    if not re.search(r"^systemd-resolve:", pw, re.M):
        pw += "systemd-resolve:x:%d:%d:bench:/:/usr/sbin/nologin\n" % (uid, uid)
    if not re.search(r"^systemd-resolve:", gr, re.M):
        gr += "systemd-resolve:x:%d:\n" % uid
    write(W("resolved-passwd"), pw)
    write(W("resolved-group"), gr)
    # A drop-in: /etc/systemd/resolved.conf may not exist, and is not ours.
    write(W("resolved.conf"), """[Resolve]
DNS=127.0.0.1:53
Domains=~.
DNSSEC=no
DNSOverTLS=no
LLMNR=no
MulticastDNS=no
Cache=yes
# The default (no) caches nothing from a server on 127.0.0.0/8.
CacheFromLocalhost=yes
DNSStubListener=yes
ReadEtcHosts=no
""")
    ns = Ns("systemd-resolved", tmpfs=["/run"], mkdirs=["/run/systemd/resolved.conf.d"],
            binds=[(W("resolved-passwd"), "/etc/passwd"), (W("resolved-group"), "/etc/group"),
                   (W("resolved.conf"), "/run/systemd/resolved.conf.d/bench.conf")])
    argv = ["env", "SYSTEMD_LOG_LEVEL=notice", binary]
    note_cmd(argv, "systemd-resolved")
    proc = spawn(ns.enter() + argv, log=W("resolved.log"))
    try:
        wait_for(lambda: proc.poll() is None and dns_probe(53, DNS_NAME, RESOLVED_ADDR), 20,
                 "systemd-resolved's stub on %s:53" % RESOLVED_ADDR)
    except RuntimeError:
        with open(W("resolved.log"), errors="replace") as f:
            tail = f.read()[-400:].strip().replace("\n", " / ")
        R["notes"].append("systemd-resolved's stub: not measured, it did not answer on %s:53 "
                          "(its log: %s)" % (RESOLVED_ADDR, tail))
        stop(proc)
        ns.stop()
        b.run(["ip", "link", "del", veth], where="resolved's network")
        return None
    # nsenter execs (no pid namespace to enter): the process is resolved.
    with open("/proc/%d/comm" % proc.pid) as f:
        assert f.read().strip().startswith("systemd-resolve")

    def stop_fn():
        stop(proc)
        ns.stop()
        b.run(["ip", "link", "del", veth], where="resolved's network")
    return DnsPeer("systemd-resolved stub", "rsv", proc, RESOLVED_ADDR, 53,
                   "systemd-resolved %s (Debian's package, unpacked, not installed), its stub "
                   "listener on %s:53; `DNS=127.0.0.1:53`, `Domains=~.`, `DNSSEC=no`, "
                   "`CacheFromLocalhost=yes`, LLMNR and mDNS off, in a mount namespace with its "
                   "own /run and a passwd holding its user; a veth pair inside the bench's "
                   "network namespace gives it the routable link it insists on" % (
                       os.environ.get("BENCH_RESOLVED_VERSION", "?"), RESOLVED_ADDR), stop_fn)


def dnslisten_batch():
    """DNSLISTEN_UDP_BATCH, as daemon/front/dnslisten.h has it (dns-floor's batch)."""
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        with open(os.path.join(top, "daemon", "front", "dnslisten.h")) as f:
            m = re.search(r"#define\s+DNSLISTEN_UDP_BATCH\s+(\d+)", f.read())
        return int(m.group(1)) if m else "DNSLISTEN_UDP_BATCH"
    except OSError:
        return "DNSLISTEN_UDP_BATCH"


def listener(b, work, nsd):
    """Issue 20's benchmark: cached hits and misses through each DNS server."""
    R = b.res
    W = lambda *p: os.path.join(work, *p)
    # The files written while servers run go in a folder of their own:
    # namecached watches the folder of its hosts file (the work folder), and
    # every write there would wake it.
    D = lambda *p: os.path.join(work, "listener", *p)
    os.makedirs(D(), exist_ok=True)
    L = R["listener"] = {"servers": {}, "order": [], "about": {}, "cpus": {}}
    pin = (os.cpu_count() or 1) >= 2
    with open(D("dp-hits.txt"), "w") as f:
        for i in range(DP_HITS):
            f.write("h%d.bench.example A\n" % i)
    peers = []
    try:
        if pin:
            # nsd beside dnsperf: CPU 0 is the server's alone, misses included.
            pin_group(b, nsd.pid, "1", "nsd")
        # The floor first: the tables list it first, as the NSS floor.
        fl_argv = [os.path.join(b.build, "bench", "dns-floor"), "-a", "127.0.0.1",
                   "-p", str(FLOOR_DNS_PORT)]
        note_cmd(fl_argv, "dns-floor")
        peers.append(DnsPeer(DNS_FLOOR, "fl", spawn(fl_argv, log=D("dns-floor.log")),
                             "127.0.0.1", FLOOR_DNS_PORT,
                             "bench/dns-floor on 127.0.0.1:%d: every query answered with a "
                             "fixed reply built from it (the question, QR, one A record), "
                             "nothing looked up; woken by epoll and reading with "
                             "recvmmsg(MSG_DONTWAIT), %s datagrams a batch, answered with "
                             "sendmmsg, as namecached's listener (issue 32). Hits only: it "
                             "forwards nothing, so no miss runs" % (
                                 FLOOR_DNS_PORT, dnslisten_batch()),
                             forwards=False))
        for tag, name, port, src in (("nc", "namecache", NC_DNS_PORT, None),
                                     ("ncd", "namecache dns_sources=dns", NC_DNS_PORT_DNS, "dns")):
            nc = Namecache(b, "dl" + tag, W("hosts4"), [
                "dns_listen = 127.0.0.1:%d" % port] + (["dns_sources = %s" % src] if src else []))
            peers.append(DnsPeer(name, tag, nc.proc, "127.0.0.1", port,
                                 "namecached `dns_listen = 127.0.0.1:%d`%s, the 4-line hosts "
                                 "file, resolv.conf naming nsd; defaults otherwise (`shared`, "
                                 "`cache_size`)" % (
                                     port, ", `dns_sources = dns`: the cache and upstream only"
                                     if src else " (`dns_sources = line`, the default: A, AAAA "
                                     "and PTR walk `hosts: files dns`)"), nc.stop, nc))
        dm_argv = ["dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv",
                   "--no-hosts", "--server=127.0.0.1#53", "--listen-address=127.0.0.1",
                   "--bind-interfaces", "--port=%d" % DNSMASQ_PORT, "--cache-size=10000",
                   "--user=nobody", "--group=nogroup", "--pid-file=" + W("dnsmasq-dl.pid"),
                   "--log-facility=" + W("dnsmasq-dl.log")]
        note_cmd(dm_argv, "dnsmasq")
        peers.append(DnsPeer("dnsmasq", "dm", spawn(dm_argv), "127.0.0.1", DNSMASQ_PORT,
                             "dnsmasq %s: `%s`" % (
                                 sh("dnsmasq --version | head -1 | awk '{print $3}'"),
                                 " ".join(dm_argv[1:-2]))))
        write(W("unbound.conf"), """server:
	interface: 127.0.0.1
	port: {port}
	num-threads: 1
	do-ip6: no
	do-not-query-localhost: no
	module-config: "iterator"
	chroot: ""
	username: ""
	directory: "{w}"
	pidfile: "{w}/unbound.pid"
	use-syslog: no
	logfile: ""
	verbosity: 0
	msg-cache-size: 64m
	rrset-cache-size: 128m
	so-reuseport: no
	prefetch: no
remote-control:
	control-enable: no
forward-zone:
	name: "."
	forward-addr: 127.0.0.1@53
""".format(port=UNBOUND_PORT, w=work))
        ub_argv = ["unbound", "-d", "-c", W("unbound.conf")]
        note_cmd(ub_argv, "unbound")
        peers.append(DnsPeer("unbound (1 thread)", "ub", spawn(ub_argv, log=W("unbound.log")),
                             "127.0.0.1", UNBOUND_PORT,
                             "unbound %s, `num-threads: 1`, `module-config: \"iterator\"` "
                             "(no validator), forward-zone `.` to nsd, caches of 64 and 128 MB, "
                             "no prefetch" % sh("unbound -V | head -1 | awk '{print $2}'")))
        rsv = start_resolved(b, work)
        if rsv:
            peers.append(rsv)
        for p in peers:
            wait_for(lambda: p.proc.poll() is None and dns_probe(p.port, DNS_NAME, p.host), 20,
                     "%s on %s:%d" % (p.name, p.host, p.port))
            if pin:
                b.run(["taskset", "-a", "-p", "-c", "0", str(p.pid)], where=p.name)
            L["order"].append(p.name)
            L["about"][p.name] = p.about
            L["servers"][p.name] = {}
            # The same warm list for every server, asked twice: all hits after.
            for _ in range(2):
                dnsperf(b, p, D("dp-hits.txt"), ["-n", "1", "-c", "1", "-q", "10"], what="warm")
        L["cpus"] = {"server": "0" if pin else "any", "dnsperf": "1" if pin else "any",
                     "nsd": "1" if pin else "any"}
        # Each kind of run on every server in turn, so that the figures
        # compared are minutes apart at most (this VM's speed drifts).
        L["rounds"] = DP_ROUNDS
        L["round_secs"] = DP_SECS
        # Every hit run must be hits: namecache says whether it asked upstream.
        up0 = {p.name: p.nc.json("statistics").get("upstream_queries", 0) for p in peers if p.nc}
        hit_args = ["-c", str(DP_CLIENTS), "-q", str(DP_HIT_OUT)]
        got = in_turn(b, peers, DP_ROUNDS, lambda p: dnsperf(
            b, p, D("dp-hits.txt"), ["-l", str(DP_SECS)] + hit_args,
            what="hits, saturating"))
        for name, r in got.items():
            L["servers"][name]["hits"] = r
        L["lat_rounds"] = DP_LAT_ROUNDS
        got = in_turn(b, peers, DP_LAT_ROUNDS, lambda p: dnsperf(
            b, p, D("dp-hits.txt"), ["-l", "%g" % (DP_LAT_SECS / DP_LAT_ROUNDS), "-c",
                                     str(DP_CLIENTS), "-Q", str(DP_LAT_QPS)],
            verbose=True, what="hits at %d/s" % DP_LAT_QPS))
        for name, r in got.items():
            L["servers"][name]["hits_latency"] = r
        # One query at a time: the round trip with no queue at all.
        got = {}
        for _ in range(DP_LAT_ROUNDS):
            for p in peers:
                got.setdefault(p.name, []).append(dns_pingpong(b, p, D("dp-hits.txt")))
        for name, runs in got.items():
            L["servers"][name]["hits_pingpong"] = pingpong_rounds(runs)
        if os.environ.get("BENCH_PERF") == "1":
            if shutil.which("perf"):
                L["perf"] = perf_profile(b, next(p for p in peers if p.name == "namecache"),
                                         D("dp-hits.txt"),
                                         ["-l", str(DP_SECS)] + hit_args)
            else:
                R["notes"].append("BENCH_PERF=1: no perf here (Debian's linux-perf), no profile")
        for p in peers:
            L["servers"][p.name]["strace"] = {
                "at %d/s" % DP_LAT_QPS: dnsperf_strace(
                    b, p, D("dp-hits.txt"), ["-l", str(DP_STRACE_SECS), "-c", str(DP_CLIENTS),
                                             "-Q", str(DP_LAT_QPS)], "hits at %d/s" % DP_LAT_QPS),
                "unlimited": dnsperf_strace(
                    b, p, D("dp-hits.txt"), ["-l", str(DP_STRACE_SECS), "-c", str(DP_CLIENTS),
                                             "-q", str(DP_HIT_OUT)], "hits, unlimited")}
        for p in peers:
            if p.nc:
                n = p.nc.json("statistics").get("upstream_queries", 0) - up0[p.name]
                L["servers"][p.name]["upstream_queries_during_hits"] = n
                if n:
                    R["problems"].append("listener, %s: %d upstream queries during the hit runs"
                                         % (p.name, n))
        # Misses last: their new names push the warm list out of the smaller
        # caches (dnsmasq's 10,000, resolved's 4,096, namecache's 100,000).
        for p in peers:
            if not p.forwards:
                continue
            for kind, n in (("misses", DP_MISS_NAMES),
                            ("misses_latency", DP_MISS_QPS * DP_LAT_SECS + 1000)):
                path = D("dp-%s-%s.txt" % (kind, p.tag))
                with open(path, "w") as f:
                    for i in range(n):
                        f.write("m%d.%s%s.bench.example A\n" % (i, p.tag, kind[-1]))
            st0 = p.nc.json("statistics") if p.nc else None
            L["servers"][p.name]["misses"] = dnsperf(
                b, p, D("dp-misses-%s.txt" % p.tag),
                ["-n", "1", "-l", str(DP_SECS), "-c", str(DP_CLIENTS), "-q", str(DP_MISS_OUT)],
                what="misses, saturating")
            if st0 is not None:
                st1 = p.nc.json("statistics")
                L["servers"][p.name]["misses"]["upstream_queries"] = (
                    st1.get("upstream_queries", 0) - st0.get("upstream_queries", 0))
            L["servers"][p.name]["misses_latency"] = dnsperf(
                b, p, D("dp-misses_latency-%s.txt" % p.tag),
                ["-n", "1", "-l", str(DP_LAT_SECS), "-c", str(DP_CLIENTS),
                 "-Q", str(DP_MISS_QPS)], verbose=True, what="misses at %d/s" % DP_MISS_QPS)
            L["servers"][p.name]["misses_latency"].pop("_lat", None)
            for kind in ("misses", "misses_latency"):
                os.unlink(D("dp-%s-%s.txt" % (kind, p.tag)))     # tens of MB, made again at will
        for p in peers:
            if p.nc:
                st = p.nc.json("statistics")
                L["servers"][p.name]["statistics"] = {k: v for k, v in st.items()
                                                      if k.startswith("dns_")}
            if p.proc.poll() is not None:
                R["problems"].append("listener: %s exited during its run (status %s)" % (
                    p.name, p.proc.returncode))
    finally:
        for p in reversed(peers):
            p.stop_fn()
        if pin:
            pin_group(b, nsd.pid, "0-%d" % ((os.cpu_count() or 1) - 1), "nsd")
    # The floor's own counts, printed when it stops: it drops nothing dnsperf sends.
    try:
        with open(D("dns-floor.log")) as f:
            m = re.search(r"answered (\d+), dropped (\d+), not sent (\d+); (\d+) wake-ups, "
                          r"(\d+) reads", f.read())
    except OSError:
        m = None
    if m:
        fl = L["floor_counts"] = dict(zip(("answered", "dropped", "not_sent", "wakeups",
                                           "reads"), map(int, m.groups())))
        if fl["dropped"] or fl["not_sent"]:
            R["problems"].append("listener, %s: %d queries dropped, %d replies not sent" % (
                DNS_FLOOR, fl["dropped"], fl["not_sent"]))
    elif DNS_FLOOR in L["order"]:
        R["problems"].append("listener, %s: no counts in its log (did it stop cleanly?)" %
                             DNS_FLOOR)


# ---------------------------------------------------------------------------
# The nscd databases (issue 21): passwd and group through glibc's nscd client
# ---------------------------------------------------------------------------
ND_PW_LINES = 10000                     # /etc/passwd's lines; PW_LAST is the last
ND_PW_LAST = ("pwlast", 150000, 150000)  # name, uid, gid
ND_ROUNDS = 3 if QUICK else 7           # runs of each cell, every peer in turn
ND_INNER = 5                            # a hit run's own rounds (pw-lookup -r): their median
ND_HIT_MAP = 20000 if QUICK else 200000  # calls a hit run's round, through a mapped database
ND_HIT_SOCK = 100 if QUICK else 500     # through a socket (unscd: no mapping)
ND_DIRECT = 10 if QUICK else 40         # glibc without nscd (10,000 lines a call)
ND_MISS = 40 if QUICK else 200          # fresh keys a miss run (one round), per peer
ND_STRACE = (100, 1100)                 # hits under strace -c: the difference / 1,000
ND_STRACE_SLOW = (10, 60)               # the same for glibc direct
ND_WARM = 100

# (id, what, function, key, pw-lookup options, expected, divisor of n):
# hits ask one key again and again.
ND_HITS = [
    ("pwnam-last", "getpwnam, the last line of /etc/passwd (`%s`)" % ND_PW_LAST[0],
     "getpwnam", ND_PW_LAST[0], [], "found", 1),
    ("pwuid-last", "getpwuid, the last line's uid (%d)" % ND_PW_LAST[1],
     "getpwuid", str(ND_PW_LAST[1]), [], "found", 1),
    ("pwnam-mod", "getpwnam, a module user (`ncu4999`)", "getpwnam", "ncu4999", [], "found", 1),
    ("pwuid-mod", "getpwuid, a module user's uid (204999)", "getpwuid", "204999", [], "found", 1),
    ("pwnam-neg", "getpwnam, an unknown name (`nosuchuser`, negative)", "getpwnam",
     "nosuchuser", [], "missing", 1),
    ("grgid-small", "getgrgid, `ncg00` (210000: 2 members)", "getgrgid", "210000", [],
     "found", 1),
    ("grgid-staff", "getgrgid, `ncstaff` (200000: 5,000 members, ~80 KB)", "getgrgid",
     "200000", [], "found", 50),
    ("grouplist", "getgrouplist, `ncu0001` (42 groups)", "getgrouplist", "ncu0001",
     ["-g", "200000"], "found", 1),
]
# Misses: a key never asked before at every call (each peer its own daemon,
# the users' ranges disjoint, ND_MISS_SPAN each, as glibc's nscd files a
# user under its name and its uid; the module has ncu0000..ncu4999).
# (id, what, function, pattern, base, options, expected, warm-up key)
ND_MISS_SPAN = 1500
assert ND_MISS * ND_ROUNDS <= ND_MISS_SPAN
ND_MISSES = [
    ("pwnam-miss", "getpwnam, module users `ncu0000`, `ncu0001`, ...", "getpwnam",
     "ncu%04d", 0, [], "found", ND_PW_LAST[0]),
    ("pwuid-miss", "getpwuid, module uids %d, %d, ..." % (200000 + ND_MISS_SPAN,
                                                       200001 + ND_MISS_SPAN),
     "getpwuid", "%d", 200000 + ND_MISS_SPAN, [], "found", str(ND_PW_LAST[1])),
    ("pwnam-negmiss", "getpwnam, unknown names `nosuch00000`, ... (negative)", "getpwnam",
     "nosuch%05d", 0, [], "missing", ND_PW_LAST[0]),
    ("grgid-negmiss", "getgrgid, unknown gids 400000, 400001, ... (negative)", "getgrgid",
     "%d", 400000, [], "missing", "210000"),
    ("grouplist-miss", "getgrouplist, module users `ncu%04d`, `ncu%04d`, ... (group 100 "
     "given)" % (2 * ND_MISS_SPAN, 2 * ND_MISS_SPAN + 1),
     "getgrouplist", "ncu%04d", 2 * ND_MISS_SPAN, ["-g", "100"], "found", "ncu0001"),
]
ND_PEERS = ("namecache", "glibc nscd", "unscd", "glibc direct")
ND_ABOUT = {
    "namecache": "namecached `--nscd-socket /var/run/nscd/socket` (config: `upstream = "
                 "127.0.0.1:9`, its own socket `/run/namecache/socket`, defaults otherwise): "
                 "glibc's client maps `/run/namecache/nscd-passwd` and `nscd-group` (GETFDPW, "
                 "GETFDGR) and reads hits there; a miss goes over the socket and the daemon "
                 "walks `passwd: files ncdir` / `group: files ncdir` on its worker pool",
    "glibc nscd": "`/usr/sbin/nscd -F` with `shared yes`, `enable-cache yes` for passwd and "
                  "group only (TTLs as nscd.conf's defaults): glibc's client maps its "
                  "databases and reads hits there; misses over the socket",
    "unscd": "Debian's unscd (`nscd -d`): no mapping (it refuses GETFD*), every call one "
             "request over /var/run/nscd/socket; a miss is resolved by a worker process it "
             "spawns",
    "glibc direct": "no nscd socket: glibc's own NSS walk of `passwd: files ncdir` in the "
                    "calling process, the 10,000-line /etc/passwd parsed at every call",
}

PW_RE = re.compile(r"^(\w+) (\S+) ns/op median ([\d.]+) min ([\d.]+) max ([\d.]+) \(rounds (\d+), "
                   r"n (\d+), found (\d+), errors (\d+), unexpected (\d+)\)")


def nd_files(work):
    """The bench's /etc files: a 10,000-line passwd, nsswitch.conf, daemons' configuration."""
    D = lambda *p: os.path.join(work, "nscd-db", *p)
    os.makedirs(D(), exist_ok=True)
    head = ["root:x:0:0:root:/root:/bin/bash",
            "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin",
            "bin:x:2:2:bin:/bin:/usr/sbin/nologin",
            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin"]
    with open(D("passwd"), "w") as f:
        for l in head:
            f.write(l + "\n")
        for i in range(ND_PW_LINES - len(head) - 1):
            f.write("bulk%05d:x:%d:100000:Bulk User %d:/home/bulk%05d:/usr/sbin/nologin\n" % (
                i, 100000 + i, i, i))
        f.write("%s:x:%d:%d:Last Line:/home/%s:/bin/bash\n" % (
            ND_PW_LAST[0], ND_PW_LAST[1], ND_PW_LAST[2], ND_PW_LAST[0]))
    write(D("nsswitch.conf"), "passwd: files ncdir\ngroup: files ncdir\nshadow: files\n"
          "hosts: files\nservices: files\nnetgroup: files\n")
    # The clients of a daemon: glibc asks the daemon first; a fallback to
    # NSS finds no such module and fails, which the run counts.
    write(D("nsswitch-client.conf"), "passwd: nscd_fallback_would_fail\n"
          "group: nscd_fallback_would_fail\n")
    write(D("namecached.conf"), "upstream = 127.0.0.1:9\nlog_level = warning\n")
    glibc = ["logfile\t\t\t%s" % D("nscd.log"), "debug-level\t\t0", "paranoia\t\tno"]
    for db, pos, neg in (("passwd", 600, 20), ("group", 3600, 60)):
        glibc += ["enable-cache\t\t%s\t\tyes" % db,
                  "positive-time-to-live\t%s\t\t%d" % (db, pos),
                  "negative-time-to-live\t%s\t\t%d" % (db, neg),
                  "suggested-size\t\t%s\t\t211" % db,
                  "check-files\t\t%s\t\tyes" % db,
                  "persistent\t\t%s\t\tno" % db,
                  "shared\t\t\t%s\t\tyes" % db]
    # unscd knows neither max-db-size nor services and netgroup.
    write(D("unscd.conf"), "# bench/run.py: unscd for passwd and group\n" +
          "".join(l.replace(D("nscd.log"), D("unscd.log")) + "\n" for l in glibc) +
          "enable-cache\t\thosts\t\tno\n")
    glibc += ["max-db-size\t\t%s\t\t33554432" % db for db in ("passwd", "group")]
    glibc += ["enable-cache\t\t%s\t\tno" % db for db in ("hosts", "services", "netgroup")]
    write(D("nscd.conf"), "# bench/run.py: glibc's nscd for passwd and group\n" +
          "".join(l + "\n" for l in glibc))
    return D


def nd_ldcache(b, D, libdir):
    """An ld.so.cache that also names libdir, for unscd's namespace: unscd
    starts its workers with an empty environment (execve(..., argv + 2)),
    so LD_LIBRARY_PATH never reaches the process that loads the module.
    ldconfig runs in a mount namespace of its own with a tmpfs over
    /var/cache/ldconfig, so the host's auxiliary cache is not written."""
    write(D("ld.so.conf"), "include /etc/ld.so.conf.d/*.conf\n%s\n" % libdir)
    argv = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
            "mount -t tmpfs tmpfs /var/cache/ldconfig && "
            "exec ldconfig -X -C %s -f %s" % (shlex.quote(D("ld.so.cache")),
                                            shlex.quote(D("ld.so.conf")))]
    note_cmd(argv, "unscd's ld.so.cache")
    subprocess.run(argv, check=True)
    out = subprocess.run(["ldconfig", "-p", "-C", D("ld.so.cache")], capture_output=True,
                         text=True).stdout
    return "libnss_ncdir.so.2" in out


def nd_lookup(b, peer, ns, env, func, key, n, opts, expect, warm=None, base=None, inner=1):
    """One run of bench/pw-lookup (-r inner): ns per call (the median of its
    rounds), and its counts."""
    argv = [os.path.join(b.build, "bench", "pw-lookup"), "-r", str(inner), "-x", expect] + opts
    if warm:
        argv += ["-w", str(ND_WARM), "-W", warm]
    elif base is None:
        argv += ["-w", str(ND_WARM)]
    if base is not None:
        argv += ["-b", str(base)]
    argv += [func, key, str(n)]
    note_cmd(argv, peer, env)
    r = subprocess.run(ns.enter() + argv, env=b.env(env), capture_output=True, text=True,
                       timeout=600)
    m = PW_RE.match(r.stdout.strip())
    if not m:
        raise RuntimeError("pw-lookup in %s: exit %d\n%s%s" % (peer, r.returncode, r.stdout,
                                                              r.stderr))
    return {"ns": float(m.group(3)), "best": float(m.group(4)), "n": int(m.group(7)),
            "found": int(m.group(8)),
            "errors": int(m.group(9)), "unexpected": int(m.group(10))}


def nd_syscalls(b, peer, ns, env, func, key, opts, expect, pair):
    """System calls per hit: strace -f -c of two runs of different length, the difference."""
    runs = []
    for k in pair:
        # One call first, outside strace: a negative entry lives 20 s, and a
        # run that found it expired would count one socket request more.
        nd_lookup(b, peer, ns, env, func, key, 1, opts, expect)
        argv = [os.path.join(b.build, "bench", "pw-lookup"), "-r", "1", "-w", "20",
                "-x", expect] + opts + [func, key, str(k)]
        runs.append(b.strace_counts(argv, ns, env, peer))
    per = {}
    for sc in set(runs[0]) | set(runs[1]):
        d = (runs[1].get(sc, 0) - runs[0].get(sc, 0)) / (pair[1] - pair[0])
        if d != 0:
            per[sc] = round(d, 3)
    return {"per_call": round(sum(per.values()), 3), "by_syscall": per,
            "runs": list(pair), "totals": [sum(r.values()) for r in runs]}


def nd_map_heads(pid):
    """The headers of the nscd-format databases a daemon has mapped shared
    (glibc's struct database_pers_head: version, header_size, gc_cycle,
    nscd_certainly_running, timestamp), read through /proc/PID/map_files."""
    out = []
    try:
        with open("/proc/%d/maps" % pid) as f:
            maps = f.read().splitlines()
    except OSError:
        return out
    seen = set()
    for line in maps:
        t = line.split(None, 5)
        if len(t) < 6 or t[1][3] != "s" or t[2] != "00000000":
            continue
        path = t[5].replace(" (deleted)", "")
        if not re.search(r"/run/(nscd/db|namecache/nscd-)", path) or path in seen:
            continue
        seen.add(path)
        try:
            with open("/proc/%d/map_files/%s" % (pid, t[0]), "rb") as f:
                h = f.read(24)
        except OSError:
            continue
        if len(h) == 24:
            v = struct.unpack("<iiiiq", h)
            out.append({"path": path, "version": v[0], "header_size": v[1], "gc_cycle": v[2],
                        "certainly_running": v[3], "timestamp": v[4]})
    return out


def nscd_db(b, work):
    """Issue 21's benchmark: passwd and group hits and misses through
    namecache's, glibc's and unscd's nscd sockets, and glibc without one."""
    R = b.res
    N = R["nscd_db"] = {"cells": {}, "syscalls": {}, "peers": [], "about": {}, "problems": [],
                        "socket_requests": {}, "rounds": ND_ROUNDS, "inner": ND_INNER,
                        "hits": [c[:2] for c in ND_HITS], "misses": [c[:2] for c in ND_MISSES]}
    D = nd_files(work)
    libdir = os.path.join(b.build, "tests", "nss")
    if not os.path.exists(os.path.join(libdir, "libnss_ncdir.so.2")):
        libdir = os.path.join(b.build, "bench")      # a build without tests
    if not os.path.exists(os.path.join(libdir, "libnss_ncdir.so.2")):
        raise RuntimeError("no libnss_ncdir.so.2 in %s/tests/nss or bench" % b.build)
    N["module"] = os.path.join(libdir, "libnss_ncdir.so.2")
    env = {"LD_LIBRARY_PATH": libdir}
    binds = [(D("passwd"), "/etc/passwd"), (D("nsswitch.conf"), "/etc/nsswitch.conf")]
    unscd = os.environ.get("BENCH_UNSCD") or ""
    running = {}        # peer: (daemon Popen or None, client Ns, daemon Ns)
    try:
        # --- the peers ------------------------------------------------------
        for peer in ND_PEERS:
            if peer == "unscd" and not unscd:
                R["notes"].append("unscd in the nscd databases section: it could not be "
                                  "fetched (`apt-get download unscd`), so it is left out.")
                continue
            extra = []
            if peer == "unscd":
                if nd_ldcache(b, D, libdir):
                    extra = [(D("ld.so.cache"), "/etc/ld.so.cache")]
                else:
                    N["problems"].append("unscd: ldconfig did not put libnss_ncdir.so.2 in "
                                         "its cache; its workers cannot load the module")
            tag = re.sub(r"\W+", "-", peer)
            dns = Ns("nscd-db " + peer, tmpfs=["/run"], mkdirs=["/run/nscd", "/run/namecache"],
                     binds=binds + extra)
            d = None
            if peer == "namecache":
                argv = [os.path.join(b.build, "daemon", "namecached"), "--config",
                        D("namecached.conf"), "--socket", "/run/namecache/socket",
                        "--nscd-socket", "/var/run/nscd/socket", "--log-level", "warning"]
            elif peer == "glibc nscd":
                argv = ["/usr/sbin/nscd", "-F", "-f", D("nscd.conf")]
            elif peer == "unscd":
                argv = [unscd, "-d", "-f", D("unscd.conf")]
            else:
                argv = None
            if argv:
                note_cmd(argv, "nscd-db " + peer, env)
                d = spawn(dns.enter() + argv, log=D("%s.out" % tag), env=b.env(env))
                wait_for(lambda: d.poll() is None and
                         os.path.exists(dns.path("/run/nscd/socket")), 30, peer + " socket")
                cl = Ns("nscd-db %s client" % peer, parent=dns,
                        binds=[(D("nsswitch-client.conf"), "/etc/nsswitch.conf")])
            else:
                cl = dns
            running[peer] = (d, cl, dns)
            N["peers"].append(peer)
            N["about"][peer] = ND_ABOUT[peer]
        if "namecache" in running:
            time.sleep(0.3)

        # --- hits, every peer in turn, round after round -------------------
        hits = {}
        for r in range(ND_ROUNDS):
            for cid, _, func, key, opts, expect, div in ND_HITS:
                for peer in N["peers"]:
                    _, cl, _ = running[peer]
                    n = {"unscd": ND_HIT_SOCK, "glibc direct": ND_DIRECT}.get(peer, ND_HIT_MAP)
                    n = max(min(n, 100), n // div)
                    one = nd_lookup(b, peer, cl, env, func, key, n, opts, expect,
                                    inner=ND_INNER)
                    hits.setdefault((peer, cid), []).append(one)
            say("nscd-db: hit round %d of %d done" % (r + 1, ND_ROUNDS))

        # namecache: did a hit run reach the socket?  Its counters, around one.
        if "namecache" in running:
            _, cl, dns = running["namecache"]
            ctl = [os.path.join(b.build, "cli", "namecachectl"), "--socket",
                   "/run/namecache/socket", "--json", "statistics"]
            for cid, _, func, key, opts, expect, div in ND_HITS:
                nd_lookup(b, "namecache", cl, env, func, key, 100, opts, expect)
                s0 = json.loads(subprocess.run(dns.enter() + ctl, capture_output=True,
                                               text=True, check=True).stdout)
                n = max(100, ND_HIT_MAP // div)
                nd_lookup(b, "namecache", cl, env, func, key, n, opts, expect)
                s1 = json.loads(subprocess.run(dns.enter() + ctl, capture_output=True,
                                               text=True, check=True).stdout)
                delta = {k: s1[k] - s0.get(k, 0) for k in s1
                         if isinstance(s1[k], int) and s1[k] != s0.get(k, 0)}
                # Less the statistics request itself and the run's mapping.
                N["socket_requests"][cid] = {"calls": n, "warm": ND_WARM, "delta": delta}
            note_cmd(ctl, "nscd-db namecache: around one hit run of each case")

        # --- misses: a fresh key at every call -------------------------------
        miss = {}
        for r in range(ND_ROUNDS):
            for cid, _, func, pat, base, opts, expect, warm in ND_MISSES:
                for peer in N["peers"]:
                    if peer == "glibc direct":
                        continue
                    _, cl, _ = running[peer]
                    one = nd_lookup(b, peer, cl, env, func, pat, ND_MISS, opts, expect,
                                    warm=warm, base=base + r * ND_MISS)
                    miss.setdefault((peer, cid), []).append(one)
            say("nscd-db: miss round %d of %d done" % (r + 1, ND_ROUNDS))

        for (peer, cid), runs in list(hits.items()) + list(miss.items()):
            v = sorted(x["ns"] for x in runs)
            N["cells"].setdefault(peer, {})[cid] = {
                "ns": v[len(v) // 2], "min": v[0], "max": v[-1], "runs": len(v),
                "best": min(x["best"] for x in runs),
                "by_round": [x["ns"] for x in runs],
                "n": sum(x["n"] for x in runs),
                "unexpected": sum(x["unexpected"] for x in runs),
                "errors": sum(x["errors"] for x in runs)}
            if (peer, cid) in miss and min(x["ns"] for x in runs) < 2000:
                N["problems"].append("%s, %s: a miss run took %.0f ns a call: answered from a "
                                     "cache, not a miss" % (peer, cid,
                                                            min(x["ns"] for x in runs)))
            bad = sum(x["unexpected"] for x in runs)
            if bad:
                N["problems"].append("%s, %s: %d of %d calls did not find what they should "
                                     "(or errors: %d)" % (peer, cid, bad,
                                                          sum(x["n"] for x in runs),
                                                          sum(x["errors"] for x in runs)))
        for peer in N["peers"]:
            say("nscd-db %-13s %s" % (peer, " ".join(
                "%s %.0f" % (c, N["cells"][peer][c]["ns"]) for c in N["cells"][peer])))

        # --- system calls per hit ---------------------------------------------
        for peer in N["peers"]:
            _, cl, _ = running[peer]
            for cid, _, func, key, opts, expect, div in ND_HITS:
                pair = ND_STRACE_SLOW if peer == "glibc direct" else ND_STRACE
                if peer == "glibc direct" and cid not in ("pwnam-last", "grgid-small"):
                    continue
                if peer == "unscd" and cid not in ("pwnam-last", "grgid-small", "grouplist"):
                    continue
                N["syscalls"].setdefault(peer, {})[cid] = s = nd_syscalls(
                    b, peer, cl, env, func, key, opts, expect, pair)
                say("nscd-db %-13s %-12s syscalls per hit %s %s" % (
                    peer, cid, s["per_call"], s["by_syscall"]))

        N["map_heads"] = {p: nd_map_heads(d.pid) for p, (d, _, _) in running.items()
                          if d is not None and p != "unscd"}
        N["map_heads_at"] = int(time.time())
        say("nscd-db map headers: %s" % N["map_heads"])
        for peer, (d, _, _) in running.items():
            if d is not None and d.poll() is not None:
                N["problems"].append("%s exited during its run (status %s)" % (peer,
                                                                               d.returncode))
    finally:
        for peer, (d, cl, dns) in running.items():
            if d is not None:
                stop(d)
            if cl is not dns:
                cl.stop()
            dns.stop()
    R["problems"] += N["problems"]
    if unscd and not R.get("unscd_version"):
        R["unscd_version"] = subprocess.run([unscd, "-V"], capture_output=True,
                                            text=True).stdout.strip().splitlines()[0]


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------
PEER_ORDER = [
    ("floor", "getaddrinfo → glibc NSS → `libnss_floor.so.2` (bench/floor): one name, one IPv4 "
     "address, copied from static memory; nothing else"),
    ("namecache", "glibc NSS → `libnss_namecache.so.2` → the daemon's shared segment "
     "(`<socket folder>/cache`, mapped once per process) on a hit; else namecached's Unix "
     "socket, and the daemon publishes the answer. Daemon: `shared = yes`, the 4-line hosts "
     "file, nsd as upstream"),
    ("namecache 1M hosts", "the same, with a daemon holding the 1,000,000-line hosts file"),
    ("namecache shared=no", "glibc NSS → `libnss_namecache.so.2` → namecached's Unix socket "
     "(a pooled connection: send, poll, receive) → the daemon's hosts index or cache, or nsd. "
     "Daemon: `shared = no`"),
    ("glibc files, 4 lines", "glibc NSS → `files` (in libc): opens and parses a 4-line "
     "/etc/hosts on every call"),
    ("glibc files, 1M lines", "the same on a 1,000,000-line /etc/hosts, the name on its last "
     "line"),
    ("glibc dns → dnsmasq", "glibc NSS → `dns` (libc's resolver) → UDP to dnsmasq on "
     "127.0.0.2:53 (cache of 10,000, forwards misses to nsd)"),
    ("glibc dns → nsd", "glibc NSS → `dns` → UDP to nsd on 127.0.0.1:53, authoritative: every "
     "query answered by nsd itself (nothing to cache)"),
    ("nscd shared=yes", "glibc's built-in nscd client, no NSS module: maps nscd's hosts "
     "database once (GETFDHST) and reads hits from it; misses over /run/nscd/socket. nscd "
     "resolves with `hosts: files dns` (the 4-line file, nsd)"),
    ("nscd shared=no", "glibc's nscd client → /run/nscd/socket (socket, connect, request, "
     "reply, close on every call) → nscd"),
    ("namecache nscd path", "glibc's built-in nscd client, no NSS module, no nsswitch.conf "
     "change: maps namecached's hosts database (`nscd_socket = /run/nscd/socket`, GETFDHST) "
     "and reads hits from it; misses over /run/nscd/socket to namecached, which walks "
     "`hosts: files dns` (the 4-line file, nsd)"),
    ("unscd", "glibc's nscd client → /run/nscd/socket → unscd (no shared database; it "
     "resolves a miss in a worker process)"),
]


def fmt_us(v):
    if v is None:
        return "–"
    if v < 0:
        return "−" + fmt_us(-v)
    if v >= 10000:
        return "%.1f ms" % (v / 1000)
    if v >= 100:
        return "%.0f µs" % v
    if v >= 10:
        return "%.1f µs" % v
    return "%.2f µs" % v


def lat(R, peer, case, f="gai", k="median"):
    try:
        return R["latency"][peer][case][f][k]
    except KeyError:
        return None


def ratio_row(what, num, den, op, limit, detail, shown=None):
    if num is None or den is None or den == 0:
        return (what, "not measured", "–", "not measured", detail)
    r = num / den
    met = r <= limit if op == "<=" else r >= limit
    return (what, "%.2fx" % r, ("≤ %sx" if op == "<=" else "≥ %sx") % (shown or "%g" % limit),
            "**met**" if met else "**not met**", detail)


def targets(R):
    rows = []
    floor_g = lat(R, "floor", "hosts")
    nc_c, nc_h = lat(R, "namecache", "cached"), lat(R, "namecache", "hosts")
    rows.append(ratio_row("shared-cache hit (cached DNS name), getaddrinfo ÷ NSS floor",
                          nc_c, floor_g, "<=", 1.3,
                          "%s ÷ %s" % (fmt_us(nc_c), fmt_us(floor_g))))
    rows.append(ratio_row("shared-cache hit (hosts name), getaddrinfo ÷ NSS floor",
                          nc_h, floor_g, "<=", 1.3, "%s ÷ %s" % (fmt_us(nc_h), fmt_us(floor_g))))
    f4 = lat(R, "glibc files, 4 lines", "hosts")
    rows.append(ratio_row("glibc files, 4 lines ÷ shared-cache hit (hosts name), getaddrinfo",
                          f4, nc_h, ">=", 4, "%s ÷ %s" % (fmt_us(f4), fmt_us(nc_h))))
    for p in ("nscd shared=no", "unscd"):
        v = lat(R, p, "cached")
        rows.append(ratio_row("%s socket path ÷ shared-cache hit (cached DNS name), getaddrinfo" % p,
                              v, nc_c, ">=", 30, "%s ÷ %s; the NSS floor itself: %s" % (
                                  fmt_us(v), fmt_us(nc_c),
                                  "%.1fx" % (v / floor_g) if v and floor_g else "–")))
    for case, title in (("cached", "cached DNS name"), ("hosts", "hosts name")):
        g2, n2 = lat(R, "namecache", case, "gh2"), lat(R, "nscd shared=yes", case, "gh2")
        rows.append(ratio_row("shared-cache hit ÷ nscd shared path, gethostbyname2_r (%s)" % title,
                              g2, n2, "<=", 1.5, "%s ÷ %s" % (fmt_us(g2), fmt_us(n2))))
    h1m = lat(R, "namecache 1M hosts", "hosts")
    rows.append(ratio_row("hosts name at 1,000,000 lines ÷ at 4 lines (namecache, getaddrinfo; "
                          "\"the same\" taken as within 10%)", h1m, nc_h, "<=", 1.1,
                          "%s ÷ %s" % (fmt_us(h1m), fmt_us(nc_h))))
    sk = R.get("socket_rounds", {}).get("gai", {}).get("median")
    rt = R["roundtrip"].get("free, in rounds with the socket path", {}).get("median")
    rows.append(ratio_row("a miss of the shared cache, answered over the socket (`shared = no`, "
                          "cached DNS name, getaddrinfo) ÷ bare Unix-socket round trip "
                          "(5 rounds in turn, medians)",
                          sk, rt, "<=", 1.3, "%s ÷ %s" % (fmt_us(sk), fmt_us(rt))))
    pl = [v["rate"] for v in R["pipeline"].values()]
    if pl:
        mn = min(pl)
        rows.append(("lookups/s served by the daemon on one core, pipelining clients "
                     "(the lower of hosts name and cached DNS name)", "%.0f/s" % mn,
                     "≥ 200,000/s", "**met**" if mn >= 200000 else "**not met**",
                     ", ".join("%s %.0f/s" % (k, v["rate"]) for k, v in R["pipeline"].items())))
    mem = R.get("memory") or {}
    if mem.get("rss_after"):
        rss = mem["rss_after"]["VmRSS"]
        ok = mem.get("cache_entries", 0) >= 0.99 * mem["names"]
        rows.append(("daemon RSS with %s cached answers" % format(mem.get("cache_entries"), ","),
                     "%.1f MB" % (rss / 1e6), "≤ 100 MB (SPEC.md; issue 22)",
                     ("**met**" if rss <= 100e6 else "**not met**") if ok else "**not met** (cache not full)",
                     "VmRSS; of which anonymous %.1f MB, shared segment pages %.1f MB" % (
                         mem["rss_after"].get("RssAnon", 0) / 1e6,
                         (mem["rss_after"].get("RssShmem", 0) + mem["rss_after"].get("RssFile", 0)) / 1e6)))
    # Issue 13: the nscd path against glibc nscd `shared yes` and the NSS path.
    np, ny = "namecache nscd path", "nscd shared=yes"
    for case, title in (("hosts", "hosts name"), ("cached", "cached DNS name"),
                        ("negative", "negative name"), ("inet", "AF_INET, cached DNS name"),
                        ("two", "localhost, two addresses")):
        a, c = lat(R, np, case), lat(R, ny, case)
        rows.append(ratio_row("nscd path ÷ glibc nscd shared=yes, getaddrinfo (%s)" % title,
                              a, c, "<=", 1.0 if case == "two" else 1.3,
                              "%s ÷ %s" % (fmt_us(a), fmt_us(c))))
    for case, title in (("hosts", "hosts name"), ("cached", "cached DNS name")):
        a, c = lat(R, "namecache", case), lat(R, np, case)
        fl, ng = lat(R, "floor", "hosts"), lat(R, ny, case)
        rows.append(ratio_row("NSS path ÷ nscd path, getaddrinfo AF_UNSPEC (%s)" % title,
                              a, c, ">=", 5, "%s ÷ %s; the NSS floor ÷ glibc nscd shared=yes "
                              "itself: %s" % (fmt_us(a), fmt_us(c),
                                              "%.2fx" % (fl / ng) if fl and ng else "–")))
    sy = (R.get("syscalls") or {}).get(np)
    if sy:
        rows.append(("system calls per AF_UNSPEC hit, nscd path (cached DNS name)",
                     "%g" % sy["per_call"], "0", "**met**" if sy["per_call"] < 0.05 else
                     "**not met**", "strace -c, the difference of two runs: %s" % (
                         sy["by_syscall"] or "none")))
    # From SPEC.md, measured by the same run.
    extra = []
    um, gm = lat(R, "namecache", "miss"), lat(R, "glibc dns → nsd", "miss")
    extra.append(ratio_row("uncached lookup through the daemon ÷ glibc dns against the same nsd "
                           "(new name each call, getaddrinfo)", um, gm, "<=", 1.5,
                           "%s ÷ %s" % (fmt_us(um), fmt_us(gm))))
    sc = R.get("scale") or {}
    if sc.get("lines") and sc.get("index_bytes") is not None and sc.get("text_bytes") is not None:
        # "The index adds under 100 bytes per line": what it holds besides
        # the names' own bytes, which any index of the file must keep.
        bpl = (sc["index_bytes"] - sc["text_bytes"]) / sc["lines"]
        extra.append(("hosts index: bytes added per line besides the names, 1,000,000 lines",
                      "%.1f B" % bpl, "< 100 B", "**met**" if bpl < 100 else "**not met**",
                      "namecachectl status: (hosts_memory_bytes − hosts_text_bytes) ÷ hosts_lines; "
                      "with the names: %.1f B" % (sc["index_bytes"] / sc["lines"])))
    if sc.get("load_usec") is not None:
        s = sc["load_usec"] / 1e6
        extra.append(("loading 1,000,000 hosts lines", "%.2f s" % s, "< 1 s",
                      "**met**" if s < 1 else "**not met**",
                      "namecachectl status: hosts_load_usec, the start-up load (a reload runs the same parse)"))
    up = R.get("upstream") or {}
    if up.get("recvfrom_eagain_per_reply") is not None:
        v = up["recvfrom_eagain_per_reply"]
        sc = up["syscalls"]
        n = {k: sum(sc.get(c, {}).get(k, 0) for c in ("recvfrom", "recvmmsg"))
             for k in ("calls", "errors")}
        extra.append(("recvfrom returning EAGAIN, per upstream reply", "%.3f" % v, "none per reply",
                      "**met**" if v < 0.1 else "**not met**",
                      "`strace -f -c -p` of the daemon over %d upstream replies: %d reads "
                      "(recvfrom %d, recvmmsg %d), %d of them EAGAIN" % (
                          up["replies"], n["calls"], sc.get("recvfrom", {}).get("calls", 0),
                          sc.get("recvmmsg", {}).get("calls", 0), n["errors"])))
    return rows, extra


def observations(R):
    """Notes that follow from this run's figures (each only when it applies)."""
    out = []
    h2, c2, n2 = (lat(R, "namecache", c, "gh2") for c in ("hosts", "cached", "negative"))
    cg = lat(R, "namecache", "cached")
    sk2 = lat(R, "namecache shared=no", "cached", "gh2")
    if h2 and c2 and c2 > 3 * h2:
        out.append(
            "namecache: `gethostbyname2_r(AF_INET)` of the cached DNS name takes %s, the socket "
            "path's time (`shared = no`: %s), although `getaddrinfo` of the same name hits the "
            "shared segment (%s) and `gethostbyname2_r` of the hosts name does too (%s); the "
            "negative name likewise (%s). The AF_INET question comes after an AF_UNSPEC one "
            "filled the daemon's cache, and its answer is then not found in the segment "
            "(`shared_published` does not grow for it): every such call crosses the socket. A "
            "name asked first with AF_INET is published and hits." % (
                fmt_us(c2), fmt_us(sk2), fmt_us(cg), fmt_us(h2), fmt_us(n2)))
    fl = lat(R, "floor", "hosts")
    low = [(p, lat(R, p, "cached")) for p in ("nscd shared=no", "unscd")]
    low = [(p, v) for p, v in low if fl and v and v / fl < 30]
    if low:
        out.append(
            "The \"at least 30x faster than nscd's and unscd's socket paths\" target is out of "
            "reach of any NSS module in this run for %s: even the floor (%s through getaddrinfo, "
            "a module that does nothing) is only %s. The issue's figures had the floor at "
            "1.30 µs." % (" and ".join(p for p, _ in low), fmt_us(fl),
                          " and ".join("%.1fx faster than %s (%s)" % (v / fl, p, fmt_us(v))
                                       for p, v in low)))
    mem = R.get("memory") or {}
    r1 = mem.get("rss_after") or {}
    if r1.get("VmRSS", 0) >= 200e6 and r1.get("RssAnon", 0) < 200e6:
        out.append(
            "Memory: the daemon's RSS (%.1f MB) includes the pages of its shared segment that it "
            "wrote (%.1f MB of a tmpfs file that every reader maps too); its own heap is %.1f MB "
            "for %s entries (%.0f bytes each)." % (
                r1["VmRSS"] / 1e6, (r1.get("RssShmem", 0) + r1.get("RssFile", 0)) / 1e6,
                r1.get("RssAnon", 0) / 1e6, format(mem.get("cache_entries") or 0, ","),
                r1.get("RssAnon", 0) / max(1, mem.get("cache_entries") or 1)))
    um, gm = lat(R, "namecache", "miss"), lat(R, "glibc dns → nsd", "miss")
    up = R.get("upstream") or {}
    sc = up.get("syscalls") or {}
    q = up.get("queries") or 0
    if um and gm and um > 1.5 * gm:
        extra = ""
        if q and sc.get("socket"):
            extra = (" Under strace the daemon made, per upstream query: %s." % ", ".join(
                "%s %.2f" % (k, v["calls"] / q) for k, v in sorted(sc.items())))
        out.append(
            "An uncached lookup through namecache (%s) costs %.1fx glibc's own dns module against "
            "the same nsd (%s); `shared = no` gives %s.%s" % (
                fmt_us(um), um / gm, fmt_us(gm), fmt_us(lat(R, "namecache shared=no", "miss")),
                extra))
    tp = R.get("throughput") or {}
    ns = tp.get("namecache shared=no") or {}
    if ns.get("1") and ns.get("2") and ns["2"] < ns["1"]:
        out.append(
            "namecache's socket path does not gain from a second thread (%.0f lookups/s with one, "
            "%.0f with two), where unscd's does (%s)." % (
                ns["1"], ns["2"], "%.0f → %.0f" % (tp["unscd"]["1"], tp["unscd"]["2"])
                if tp.get("unscd", {}).get("2") else "–"))
    return out


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(x) for x in r) + " |")
    return "\n".join(out)


def plot(R, png, work):
    peers = [p for p, _ in PEER_ORDER if p in R["latency"]]
    dats = []
    for f in ("gai", "gh2"):
        dat = os.path.join(work, "plot-%s.dat" % f)
        with open(dat, "w") as out:
            for p in peers:
                vals = []
                for c in CASES:
                    v = lat(R, p, c, f)
                    vals.append("%.3f" % v if v is not None else "?")
                out.write('"%s" %s\n' % (p.replace("→", "->"), " ".join(vals)))
        dats.append(dat)
    gp = os.path.join(work, "plot.gp")
    panels = []
    for f, title, dat in (("gai", "getaddrinfo(AF_UNSPEC)", dats[0]),
                          ("gh2", "gethostbyname2_r(AF_INET)", dats[1])):
        floor = lat(R, "floor", "hosts", f)
        fl = ""
        if floor:
            fl = ('set arrow 1 from graph 0, first %f to graph 1, first %f nohead dt 2 lw 1.5 lc "black"\n'
                  'set label 1 "NSS floor %.2f us" at graph 0.005, first %f offset 0,0.7 left front\n'
                  % (floor, floor, floor, floor))
        panels.append("""set title "%s: median per call, microseconds (log scale)"
unset arrow
unset label
%s
plot "%s" using 2:xtic(1) title "hosts name", '' using 3 title "cached DNS name", \\
     '' using 4 title "negative (cached)", '' using 5 title "miss (new name each call)"
""" % (title, fl, dat))
    write(gp, """set terminal pngcairo size 1400,1300 font "DejaVu Sans,11" noenhanced
set output "%s"
set multiplot layout 2,1 title "namecache and its peers, one run of bench/run.sh, %s"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [0.05:1000000]
set format y "%%g"
set ylabel "us per call"
set grid ytics
set datafile missing "?"
set key top left
set xtics rotate by -20 nomirror font ",10"
%s
unset multiplot
""" % (png, R.get("date", ""), "\n".join(panels)))
    subprocess.run(["gnuplot", gp], check=True)


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except Exception:
        return ""


def gather_meta():
    e = os.environ
    top = e.get("BENCH_TOP", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-").strip() or "?"
    mem = sh("awk '/MemTotal/ {printf \"%.1f GiB\", $2/1048576}' /proc/meminfo")
    versions = [
        sh("ldd --version | head -1 | sed 's/^ldd //'") and
        "glibc " + sh("ldd --version | head -1 | awk '{print $NF}'"),
        sh("nscd -V 2>/dev/null | head -1"),
        sh("dnsmasq --version | head -1 | awk '{print $1, $2, $3}'"),
        "nsd " + sh("nsd -v 2>&1 | head -1 | awk '{print $3}'"),
        sh("strace -V | head -1 | sed 's/ -- version//'"),
        sh("dnsperf -h 2>&1 | grep -m1 Version | sed 's/Version/dnsperf/'"),
        sh("unbound -V 2>/dev/null | head -1 | sed 's/Version/unbound/'"),
        sh("gnuplot --version"),
        sh("cc --version | head -1"),
    ]
    commit = sh("git -C %s rev-parse --short HEAD" % shlex.quote(top))
    dirty = sh("git -C %s status --porcelain --untracked-files=no -- . ':!docs/benchmarks.md' "
               "':!docs/benchmarks.png'" % shlex.quote(top))
    setup = []
    if e.get("BENCH_SETUP_CMDS") and os.path.exists(e["BENCH_SETUP_CMDS"]):
        with open(e["BENCH_SETUP_CMDS"]) as f:
            setup = [l.rstrip("\n") for l in f if l.strip()]
    return {
        "nproc": sh("nproc"), "kernel": sh("uname -srm"), "cpu": cpu, "mem": mem,
        "versions": [v for v in versions if v],
        "commit": "commit %s%s" % (commit, " with uncommitted changes in the tree" if dirty else ""),
        "setup": "meson setup BUILD -Dbuildtype=%s" % e.get("BENCH_BUILDTYPE", "release"),
        "build": e.get("BENCH_BUILD", "?"),
        "elapsed_total_s": e.get("BENCH_ELAPSED", "?"),
        "command": e.get("BENCH_COMMAND", "sudo bench/run.sh"),
        "setup_commands": setup,
    }


def report(res_path, docdir, before_path=None):
    with open(res_path) as f:
        R = json.load(f)
    work = os.path.dirname(os.path.abspath(res_path))
    md = []
    A = md.append
    meta = gather_meta()
    if R.get("unscd_version"):
        meta["versions"].insert(2, R["unscd_version"] + " (Debian's unscd package, unpacked, "
                                "not installed)")
    R["meta"] = meta
    with open(res_path, "w") as f:
        json.dump(R, f, indent=1)
    sections = R.get("sections", list(ALL_SECTIONS))
    compared = None
    if before_path:
        with open(before_path) as f:
            compared = compare(json.load(f), R)
    A("# namecache benchmarks\n")
    A("One run of `bench/run.sh`, every peer measured side by side on the same machine "
      "within minutes. Regenerate with `sudo bench/run.sh` (it rewrites this page and "
      "`benchmarks.png`).\n")
    if set(sections) != set(ALL_SECTIONS):
        A("**This run measured only: %s** (`--only`); the other sections are not on this "
          "page.\n" % ", ".join(sections))
    A("- **Run**: %s; measuring took %s s, the whole command %s s." % (
        R.get("date"), R.get("elapsed_measure_s"), meta.get("elapsed_total_s", "?")))
    A("- **Machine**: %s CPUs (`nproc`), %s, kernel %s, %s of memory." % (
        meta.get("nproc"), meta.get("cpu"), meta.get("kernel"), meta.get("mem")))
    A("- **Software**: %s." % "; ".join(meta.get("versions", [])))
    A("- **namecache**: %s, built with `%s` (%s)." % (meta.get("commit"), meta.get("setup"),
                                                      meta.get("build")))
    A("- **Command**: `%s`" % meta.get("command", "bench/run.sh"))
    A("- **The Node.js and Python bindings**: `bench/bindings.sh`, "
      "[benchmarks-bindings.md](benchmarks-bindings.md).")
    A("")
    A("## Targets (ratios from this run)\n")
    if "peers" in sections:
        rows, extra = targets(R)
        A("From issue 4 (\"Targets (ratios from one run)\"):\n")
        A(table(["target", "measured", "limit", "verdict", "figures"], rows))
        A("\nOther targets of SPEC.md that this run measures:\n")
        A(table(["target", "measured", "limit", "verdict", "figures"], extra))
    if "listener" in sections:
        A("\nThe DNS listener (issue 20, SPEC.md's \"DNS listener\" target), from the "
          "[DNS listener](#dns-listener-dnsperf) section of this run:\n")
        A(table(["target", "measured", "limit", "verdict", "figures"], listener_targets(R)))
    if "nscd-db" in sections:
        A("\nThe nscd databases (issue 21: \"Targets, as ratios from one run\"), from the "
          "[nscd databases](#nscd-databases-passwd-and-group) section of this run:\n")
        A(table(["target", "measured", "limit", "verdict", "figures"], nscd_db_targets(R)))
    ran32 = [x for x in ("peers", "listener", "nscd-db") if x in sections]
    if ran32 or compared:
        A("\nIssue 32 (\"## Benchmark\": targets as ratios from one run), from the %s "
          "section%s of this run%s:\n" % (" and ".join(
              {"peers": "[peers](#latency)", "listener": "[DNS listener](#dns-listener-dnsperf)",
               "nscd-db": "[nscd databases](#nscd-databases-passwd-and-group)"}[x]
              for x in ran32) or "other", "s" if len(ran32) != 1 else "",
              "" if {"peers", "listener", "nscd-db"} <= set(sections) else
              " (the rows of the %s section%s, not run here, are left out)" % (
                  " and ".join(x for x in ("peers", "listener", "nscd-db") if x not in sections),
                  "s" if len(ran32) < 2 else "")))
        A(table(["target", "measured", "limit", "verdict", "figures"],
                issue32_targets(R, sections, compared)))
    A("")
    if compared:
        compare_report(compared, A)
    obs = observations(R) if "peers" in sections else []
    obs += listener_observations(R) if "listener" in sections else []
    obs += nscd_db_observations(R) if "nscd-db" in sections else []
    if obs:
        A("## Observations\n")
        A("Drawn from this run's figures by bench/run.py:\n")
        for o in obs:
            A("- " + o)
        A("")
    if R.get("problems"):
        A("**Problems seen in this run** (a row they touch is not trustworthy):\n")
        for p in R["problems"]:
            A("- " + p)
        A("")
    if "memory" in sections:
        memory_report(R, A)
    if "peers" in sections:
        peer_report(R, A)
    if "listener" in sections:
        listener_report(R, A)
    if "nscd-db" in sections:
        nscd_db_report(R, A)
    nm = list(R.get("notes", []))
    if "peers" in sections:
        nm += [
            "systemd-resolved through nss-resolve: not among the issue's peers, and it needs a "
            "running systemd and D-Bus, which these machines do not have (its DNS stub needs "
            "neither: it is in the DNS listener section when that runs).",
            "unbound on the NSS path: the issue names dnsmasq as the local caching forwarder; "
            "one is enough for the comparison (unbound is in the DNS listener section).",
        ]
    if nm:
        A("## Not measured\n")
        for n in nm:
            A("- " + n)
        A("")
    A("## Commands\n")
    A("Each measuring command of the run, in order (`[where]` names the namespace or peer it "
      "ran in; the bench's work folder is a temporary directory).\n")
    A("<details><summary>%d commands</summary>\n" % len(R.get("commands", [])))
    A("```")
    for c in meta.get("setup_commands", []):
        A(c)
    for c in R.get("commands", []):
        A(c)
    A("```\n</details>\n")
    os.makedirs(docdir, exist_ok=True)
    if "peers" in sections:
        plot(R, os.path.join(docdir, "benchmarks.png"), work)
    with open(os.path.join(docdir, "benchmarks.md"), "w") as f:
        f.write("\n".join(md))


def memory_report(R, A):
    """The memory section (issue 22): the fills, their parts, and the restart."""
    if R.get("memory") or R.get("memory_unspec"):
        A("## Memory per cached entry\n")
        A("Two daemons of the default configuration (`cache_size = 1000000`, `cache_size_mb "
          "= 120`, `shared = yes`) and no hosts file, each filled through the socket by "
          "`nc-pipeline -c 4 -d 64 -f F -n %d SOCKET %s`: %s distinct names, each with two "
          "A records (a wildcard) and no AAAA; asked for IPv4 (`-f 4`), and as getaddrinfo "
          "asks (`-f 0`: A and AAAA, the reference answer of issue 22).\n" % (
              FILL_COUNT, FILL_PATTERN, format(FILL_COUNT, ",")))
        rows = []
        for key, title in (("memory", "asked for IPv4"),
                           ("memory_unspec", "asked as getaddrinfo asks (A and AAAA)")):
            mem = R.get(key) or {}
            if not mem.get("rss_after"):
                continue
            rss = mem["rss_after"]["VmRSS"]
            full = (mem.get("cache_entries") or 0) >= 0.99 * mem["names"]
            rows.append(("daemon RSS, %s answers %s" % (format(mem["names"], ","), title),
                         "%.1f MB" % (rss / 1e6), "≤ 100 MB (SPEC.md)",
                         ("**met**" if rss <= 100e6 else "**not met**") if full
                         else "**not met** (not all held)",
                         "%.1f B per answer; the store %.1f MB, the readers' segment %.1f MB" % (
                             rss / mem["names"], (mem.get("store_rss") or 0) / 1e6,
                             (mem.get("segment_rss") or 0) / 1e6)))
        if rows:
            A(table(["target", "measured", "limit", "verdict", "figures"], rows))
            A("")
    for key, title in (("memory", "IPv4 (`-f 4`)"), ("memory_unspec", "A and AAAA (`-f 0`)")):
        mem = R.get(key) or {}
        if mem:
            memory_table(mem, title, A)


def memory_table(mem, title, A):
    r0, r1 = mem["rss_before"], mem["rss_after"]
    ent = mem.get("cache_entries") or 0
    names = mem["names"]
    A("### %s\n" % title)
    A("Filled in %s s (%.0f misses/s through the daemon to nsd).\n" % (
        mem["fill_seconds"], names / max(mem["fill_seconds"], 1e-9)))
    per = lambda v: "%.1f B per answer" % (v / names) if names else ""
    rows = [("answers held (cache_entries; evicted %s)" % mem.get("evictions"),
             format(ent, ","), ""),
            ("daemon VmRSS", "%.1f MB" % (r1["VmRSS"] / 1e6), per(r1["VmRSS"])),
            ("daemon VmRSS growth from start", "%.1f MB" % ((r1["VmRSS"] - r0["VmRSS"]) / 1e6),
             per(r1["VmRSS"] - r0["VmRSS"])),
            ("of which the store's pages (the cache: /run/namecache/store)",
             "%.1f MB" % ((mem.get("store_rss") or 0) / 1e6), per(mem.get("store_rss") or 0)),
            ("of which the shared segment's pages (readers' copy, at most shared_size_mb)",
             "%.1f MB" % ((mem.get("segment_rss") or 0) / 1e6), per(mem.get("segment_rss") or 0)),
            ("of which anonymous (heap)", "%.1f MB" % (r1.get("RssAnon", 0) / 1e6),
             per(r1.get("RssAnon", 0))),
            ("the store's own count (cache_memory_bytes: header, slots, records)",
             "%.1f MB" % ((mem.get("cache_memory_bytes") or 0) / 1e6),
             per(mem.get("cache_memory_bytes") or 0)),
            ("store: file / written / live",
             "%.1f / %.1f / %.1f MB" % ((mem.get("store_file_size") or 0) / 1e6,
                                        (mem.get("store_written") or 0) / 1e6,
                                        (mem.get("store_live") or 0) / 1e6),
             "%s slots, %s pages cleaned" % (mem.get("store_slots"), mem.get("store_cleanings"))),
            ("the longest loop stall: the longest write into the cache (cache_put_max_usec) / "
             "the longest gap between replies during the fill",
             "%s ms / %s ms" % ("%.1f" % (mem["put_max_usec"] / 1000)
                                if mem.get("put_max_usec") is not None else "–",
                                mem.get("reply_gap_max_ms", "–")),
             "%s doublings of the slots, at most %s entries moved by one put; load average %s" % (
                 mem.get("store_grows", "–"), mem.get("grow_step_max", "–"),
                 " ".join(mem.get("loadavg") or []))),
            ("shared segment file: size / allocated",
             "%s / %s" % ("%.1f MB" % (mem["segment_file_size"] / 1e6) if mem.get("segment_file_size") else "–",
                          "%.1f MB" % (mem["segment_allocated"] / 1e6) if mem.get("segment_allocated") else "–"),
             "used %s, %s records published, %s times full, %s resets" % (
                 "%.1f MB" % (mem["shared_used_bytes"] / 1e6) if mem.get("shared_used_bytes") else "–",
                 mem.get("shared_published"), mem.get("shared_full"), mem.get("shared_resets")))]
    A(table(["", "value", "per answer"], rows))
    A("\n`%s`\n" % mem.get("fill_line"))
    rs = mem.get("restart")
    if rs:
        A("A restart (SIGTERM, then start): the new daemon took over %s answers "
          "(%s dropped) in %.0f ms, and answered its socket %.2f s after it was "
          "started; VmRSS %.1f MB, of which the store's pages %.1f MB (only the pages "
          "written are resident, and nothing of the segment yet).\n" % (
              format(rs.get("adopted") or 0, ","), rs.get("dropped"),
              (rs.get("adopt_usec") or 0) / 1000, rs["ready_seconds"],
              rs["rss"]["VmRSS"] / 1e6, rs["store_rss"] / 1e6))


def peer_report(R, A):
    """The peer study's sections of the page."""
    A("## Latency\n")
    A("Per call, inside one process, after %d warm-up calls of the same name (none for misses): "
      "`bench/nss-lookup` times `getaddrinfo(name, AF_UNSPEC, SOCK_STREAM)` (without "
      "`freeaddrinfo`) and `gethostbyname2_r(name, AF_INET)`. Every name has one IPv4 address "
      "and no IPv6 one: with two addresses getaddrinfo sorts them (RFC 6724) with a socket and "
      "a connect per address, tens of µs here, for every peer alike.\n" % WARM)
    A("![getaddrinfo latency per peer](benchmarks.png)\n")
    for f, title in (("gai", "getaddrinfo"), ("gh2", "gethostbyname2_r")):
        A("### %s: median / p99\n" % title)
        hdr = ["peer"] + [CASE_TITLES[c] for c in CASES]
        trs = []
        for p, _ in PEER_ORDER:
            if p not in R["latency"]:
                continue
            cells = [p]
            for c in CASES:
                d = R["latency"][p].get(c, {}).get(f)
                if d:
                    cells.append("%s / %s%s" % (fmt_us(d["median"]), fmt_us(d["p99"]),
                                                "" if c != "miss" else ""))
                else:
                    cells.append("–")
            trs.append(cells)
        A(table(hdr, trs))
        A("")
    A("The floor answers only its own name; its hosts and cached-DNS cells are that one "
      "measurement, its negative cell is a name it does not know. A dash: the path does not "
      "apply (files has no DNS; nsd caches nothing, so its \"cached\" cell is an authoritative "
      "answer).\n")
    A("Calls per cell: %d on in-process paths (floor, namecache's segment, nscd shared, files "
      "4 lines), %d on socket paths, %d misses, %d on the 1,000,000-line file.\n" % (
          N_FAST, N_SOCK, N_MISS, N_1M))
    A("namecache and namecache 1M hosts, hosts and cached names: 5 rounds of %d calls, "
      "the two daemons in turn, each cell the median of its rounds' medians (and p99s), "
      "so that the VM's drift is not read as a difference between 4 and 1,000,000 "
      "lines.\n" % (N_FAST // 5))
    A("### The peers\n")
    A(table(["peer", "path"], [(p, d) for p, d in PEER_ORDER if p in R["latency"]]))
    A("")
    A("Every peer gets its own private mount namespace inside one private network namespace "
      "that holds only `lo`: its own /etc/hosts, /etc/nsswitch.conf, /etc/resolv.conf (bind "
      "mounts) and for nscd and unscd its own /run (their socket is /run/nscd/socket). All DNS "
      "is nsd on 127.0.0.1:53 serving a wildcard zone (`*.bench.example`, one A record, TTL "
      "3600) and `nx.example` (no names: NXDOMAIN with an SOA of TTL and MINIMUM 3600), with "
      "response rate limiting off. Clients of nscd and unscd have an nsswitch.conf naming "
      "a service that does not exist, so a lookup that did not go through the daemon would "
      "fail and be reported, never timed as something else. namecached gets a config file "
      "with `shared = yes` or `shared = no`, `--hosts-file`, and `--resolv-conf` pointing at "
      "nsd; nscd.conf enables only the hosts cache, TTLs 3600 positive and negative, "
      "`persistent no`, `shared yes|no`; unscd reads the same file.\n")

    A("## Bare Unix-socket round trip\n")
    rt = R.get("roundtrip", {})
    A("`bench/sock-pingpong`: two processes, a connected stream socket, 40-byte request and "
      "100-byte reply, write and read only.\n")
    A(table(["", "median", "p99", "mean"],
            [(k, fmt_us(v["median"]), fmt_us(v["p99"]), fmt_us(v["mean"])) for k, v in rt.items()]))
    A("\n`free`: the scheduler places both processes; `pinned`: both on CPU 0. The third "
      "row: 5 rounds of %d round trips, each followed by %d cached-name lookups through "
      "`namecache shared=no` (getaddrinfo median of those rounds: %s), the median of the "
      "rounds; the target's ratio is taken from these.\n" % (
          (5000 if QUICK else 20000) // 5, N_SOCK // 5,
          fmt_us(R.get("socket_rounds", {}).get("gai", {}).get("median"))))

    A("## First call: a new process doing one lookup\n")
    fc = R.get("first_call", {})
    if fc:
        base = fc.get("(process alone)", {}).get("median")
        A("`nss-lookup -1 - NAME`: one getaddrinfo in a new process, nsswitch.conf read as any "
          "program reads it (`hosts: namecache`, `hosts: files`, `hosts: floor`, `hosts: dns`; "
          "nscd's socket before any of it). `bench/spawn-loop` times each run whole, from fork "
          "(and setns into the peer's mount namespace) to waitpid, %d rounds after 10 warm-up "
          "rounds; each round runs every peer once, in turn, because this VM's speed drifts "
          "by more than the differences measured (hyperfine would run one peer after the "
          "other). `(process alone)` asks a numeric address, which never reaches NSS: the "
          "last column is what the lookup added to it.\n" % HF_RUNS)
        A(table(["peer", "name", "median", "p99", "mean", "median − process alone"],
                [(p, v["name"], fmt_us(v["median"]), fmt_us(v["p99"]), fmt_us(v["mean"]),
                  fmt_us(v["median"] - base) if base is not None and p != "(process alone)"
                  else "–")
                 for p, v in fc.items()]))
        A("")
    A("## Lookups per second, 1 and 2 threads\n")
    A("`nss-lookup -f gai -T THREADS -D %s`: threads of one process calling getaddrinfo on one "
      "name for %s s.\n" % (TPUT_SECS, TPUT_SECS))
    A(table(["peer", "name", "1 thread", "2 threads"],
            [(p, v["name"], "%.0f" % v["1"] if v.get("1") else "–",
              "%.0f" % v["2"] if v.get("2") else "–")
             for p, v in R.get("throughput", {}).items()]))
    A("")
    lp = R.get("lib_pending") or {}
    if lp:
        A("## libnamecache: cached lookups beside stalled ones\n")
        A("`bench/lib-pending`: one libnamecache context, driven by poll() as an event loop "
          "would. A daemon whose upstream is a UDP socket on 127.0.0.1 that never answers "
          "(switched to it with SIGHUP after the DNS name was cached) holds 100 lookups of new "
          "names submitted on that same context; each row times one lookup of a name it "
          "already has, from submit to callback. `idle`: the same before the 100 were "
          "submitted. `shared`: answered from the shared cache inside submit.\n")
        rows = []
        for case in ("hosts", "cached"):
            g = lp.get(case, {})
            rows.append((case, *["%s / %s" % (fmt_us(g.get(k, {}).get("median")),
                                              fmt_us(g.get(k, {}).get("p99")))
                                 for k in ("idle", "pending", "shared")],
                         "%s of 100" % g.get("still_pending", "–")))
        A(table(["name", "socket, idle: median / p99", "socket, 100 pending",
                 "shared cache, 100 pending", "slow ones still pending after"], rows))
        A("")
    A("## Daemon throughput over the socket\n")
    pl = R.get("pipeline", {})
    if pl:
        pinned = next(iter(pl.values())).get("pinned")
        A("`bench/nc-pipeline -c 4 -d 32 -t %s`: 4 connections, 32 LOOKUP_NAME frames in flight on "
          "each, %s; %d runs each, the median shown. `shared` does not matter here: the client "
          "speaks the protocol.\n" % (
              PIPE_SECS, "namecached pinned to CPU 0 with `taskset -a -p -c 0`, the client on CPU 1"
              if pinned else "not pinned (one CPU)", PIPE_RUNS))
        A(table(["name", "lookups/s (median)", "all runs", "output of the median run"],
                [("%s (%s)" % (v["name"], k), "%.0f" % v["rate"],
                  ", ".join("%.0f" % x for x in v.get("runs", [])), "`%s`" % v["line"])
                 for k, v in pl.items()]))
        A("")
    A("## System calls per hit\n")
    A("`strace -f -c` over `nss-lookup -f gai` runs of %d and %d calls of the same name; the "
      "difference divided by %d, so process start and warm-up cancel out. The client process "
      "only (a daemon's own calls are not in it).\n" % (STRACE_N[0], STRACE_N[1],
                                                         STRACE_N[1] - STRACE_N[0]))
    A(table(["peer", "name", "per call", "which"],
            [(p, v["name"], "%.2f" % v["per_call"],
              ", ".join("%s %g" % (k, x) for k, x in sorted(v["by_syscall"].items(),
                                                            key=lambda kv: -kv[1])) or "none")
             for p, v in R.get("syscalls", {}).items()]))
    A("\nglibc files at 1,000,000 lines: runs of 10 and 12 calls.\n")
    sc = R.get("scale") or {}
    if sc:
        A("## Hosts index\n")
        A("namecached with the 1,000,000-line file: %s lines loaded in %.2f s, index %.1f MB "
          "(%.1f bytes per line), of which the names' own bytes %.1f MB.\n" % (
              format(sc.get("lines") or 0, ","), (sc.get("load_usec") or 0) / 1e6,
              (sc.get("index_bytes") or 0) / 1e6,
              (sc.get("index_bytes") or 0) / max(1, sc.get("lines") or 1),
              (sc.get("text_bytes") or 0) / 1e6))


def lsv(R, peer, kind, k):
    try:
        return R["listener"]["servers"][peer][kind][k]
    except (KeyError, TypeError):
        return None


def eagain_worst(R, peer):
    """The higher of the two strace runs' failed reads per query, and their figures."""
    st = ((R.get("listener") or {}).get("servers", {}).get(peer) or {}).get("strace") or {}
    vals = [v["eagain_per_query"] for v in st.values() if v.get("eagain_per_query") is not None]
    return (max(vals) if vals else None), st


def listener_targets(R):
    rows = []
    nc = "namecache"
    a = lsv(R, nc, "hits", "cpu_us_per_query")
    for peer, lim, shown in (("unbound (1 thread)", 0.5, "1/2"), ("dnsmasq", 1 / 3, "1/3")):
        c = lsv(R, peer, "hits", "cpu_us_per_query")
        rows.append(ratio_row("cached hits, server CPU per answered query (utime + stime), "
                              "namecache ÷ %s" % peer, a, c, "<=", lim,
                              "%s ÷ %s" % (fmt_us(a), fmt_us(c)), shown))
    a = lsv(R, nc, "hits", "qps")
    for peer in ("unbound (1 thread)", "dnsmasq"):
        c = lsv(R, peer, "hits", "qps")
        rows.append(ratio_row("cached hits, queries per second, namecache ÷ %s" % peer, a, c,
                              ">=", 1, "%s ÷ %s" % ("%.0f/s" % a if a else "–",
                                                    "%.0f/s" % c if c else "–")))
    a = lsv(R, nc, "hits_latency", "p50_us")
    a1 = lsv(R, nc, "hits_pingpong", "p50_us")
    for peer in ("unbound (1 thread)", "dnsmasq"):
        c = lsv(R, peer, "hits_latency", "p50_us")
        c1 = lsv(R, peer, "hits_pingpong", "p50_us")
        rows.append(ratio_row("cached hits, p50 latency at %d queries/s, namecache ÷ %s" % (
            DP_LAT_QPS, peer), a, c, "<=", 1, "%s ÷ %s; one query at a time: %s ÷ %s%s" % (
                fmt_us(a), fmt_us(c), fmt_us(a1), fmt_us(c1),
                " (%.2fx)" % (a1 / c1) if a1 and c1 else "")))
    v, st = eagain_worst(R, nc)
    if v is not None:
        rows.append(("recvfrom/recvmmsg returning EAGAIN per query, namecache (strace -c)",
                     "%.4f" % v, "< 0.01", "**met**" if v < 0.01 else "**not met**",
                     "; ".join("%s: %d of %d reads failed over %d queries" % (
                         k, x["eagain"], x["reads"], x["queries"]) for k, x in st.items())))
    return rows


def listener_observations(R):
    L = R.get("listener") or {}
    out = []
    secs = L.get("round_secs", DP_SECS / L.get("rounds", 1)) * L.get("rounds", 1)
    busy = []
    for peer in L.get("order", []):
        h = L["servers"][peer].get("hits") or {}
        if h.get("cpu_s") is not None and h.get("secs"):
            busy.append("%s %.0f%%" % (peer, 100 * h["cpu_s"] / h["secs"]))
    if busy:
        out.append("DNS listener, saturating hits (%d s): the share of its CPU each server "
                   "used: %s. A server well under 100%% was not the limit: dnsperf was, on its "
                   "own CPU (the issue puts that ceiling at about 120,000 queries/s), or the "
                   "server's wake-ups were; its queries per second say little, its CPU per "
                   "query is the figure that counts." % (secs, ", ".join(busy)))
    def per_q(peer, k):
        x = lsv(R, peer, "hits", k)
        q = lsv(R, peer, "hits", "completed")
        return x * 1e6 / q if x is not None and q else None
    nu, ns_ = per_q("namecache", "utime_s"), per_q("namecache", "stime_s")
    if nu is not None and ns_ is not None:
        peers = [p for p in ("unbound (1 thread)", "dnsmasq") if per_q(p, "utime_s") is not None]
        out.append("DNS listener, saturating hits, CPU per answer split into user and system "
                   "time: namecache %s + %s%s; %s. System time is the kernel's UDP receive "
                   "and send; on loopback the sender of a datagram also pays its delivery into "
                   "the receiver's socket and the receiver's wake-up, so every server pays "
                   "for its replies reaching dnsperf." % (
                       fmt_us(nu), fmt_us(ns_),
                       (", with `dns_sources = dns` %s + %s" % (
                           fmt_us(per_q("namecache dns_sources=dns", "utime_s")),
                           fmt_us(per_q("namecache dns_sources=dns", "stime_s"))))
                       if per_q("namecache dns_sources=dns", "utime_s") is not None else "",
                       ", ".join("%s %s + %s" % (p, fmt_us(per_q(p, "utime_s")),
                                                 fmt_us(per_q(p, "stime_s"))) for p in peers)))
        for p, lim, shown in (("unbound (1 thread)", 0.5, "half"), ("dnsmasq", 1 / 3, "a third")):
            tot = lsv(R, p, "hits", "cpu_us_per_query")
            if tot and ns_ > lim * tot:
                out.append("namecache's system time per answer alone (%s) is more than %s of "
                           "%s's whole CPU per answer (%s): no saving in namecache's own code "
                           "reaches that target while each answer costs the kernel this much." % (
                               fmt_us(ns_), shown, p, fmt_us(tot)))
        fu, fs = per_q(DNS_FLOOR, "utime_s"), per_q(DNS_FLOOR, "stime_s")
        if fu is not None and fs is not None:
            out.append("DNS listener, saturating hits, namecache against the floor "
                       "(bench/dns-floor), user + system time per answer, the rounds added up: "
                       "%s + %s against %s + %s, a difference of %s in user time and %s in "
                       "system time. The floor's user time is what reading and answering costs "
                       "outside the kernel; its system time is the kernel's share, which a "
                       "server that batches as namecached does cannot go below." % (
                           fmt_us(nu), fmt_us(ns_), fmt_us(fu), fmt_us(fs), fmt_us(nu - fu),
                           fmt_us(ns_ - fs)))
    return out


def listener_report(R, A):
    """The DNS listener's section of the page."""
    L = R.get("listener") or {}
    order = L.get("order") or []
    A('<a id="dns-listener-dnsperf"></a>\n')
    A("## DNS listener: dnsperf against namecache, dnsmasq, unbound and resolved's stub\n")
    if not order:
        A("Not measured in this run.\n")
        return
    cpus = L.get("cpus") or {}
    A("Every server listens on loopback and (but the floor, below) forwards to the same nsd "
      "(127.0.0.1:53, the wildcard zone). Each server runs pinned to CPU %s "
      "(`taskset -a -p -c 0`), dnsperf on CPU %s (`taskset -c 1`), nsd beside dnsperf. "
      "Every server first answers the same warm list twice: %d names `h0.bench.example` ... "
      "`h%d.bench.example`, A (`dnsperf -n 1 -c 1 -q 10`). Then each kind of run goes "
      "through every server in turn; the hit runs come in %d rounds, every server in each "
      "(this VM's speed drifts, and it is shared with other work), and each server's rounds "
      "are added up:\n" % (
          cpus.get("server", "?"), cpus.get("dnsperf", "?"), DP_HITS, DP_HITS - 1,
          L.get("rounds", 1)))
    A("- **hits, saturating**: `dnsperf -l %g -c %d -q %d` per round over the warm list (no "
      "rate limit): queries per second (the median of the rounds'), and the server's CPU per "
      "answered query, Δ(utime + stime) of `/proc/PID/stat` over the run (all its threads, "
      "not its children; for namecache the daemon's own threads, its main loop doing the "
      "work) ÷ queries completed: all the rounds' CPU ÷ all their answers, and (issue 32's "
      "figure) the median of the rounds' own;" % (
          L.get("round_secs", DP_SECS / L.get("rounds", 1)), DP_CLIENTS, DP_HIT_OUT))
    A("- **hits, latency**: `dnsperf -l %g -c %d -Q %d -v` per round: every answer's round "
      "trip as dnsperf times it (`-v` prints one line per query), at a moderate load (at "
      "saturation a latency is only the queue: outstanding ÷ rate); the median of the %d "
      "rounds' p50s and p99s;" % (
          DP_LAT_SECS / L.get("lat_rounds", 1), DP_CLIENTS, DP_LAT_QPS, L.get("lat_rounds", 1)))
    A("- **hits, one at a time**: `bench/dns-pingpong -p 1 -n %d`, a connected UDP socket "
      "sending the warm list's next query when the last is answered: the round trip with no "
      "queue (dnsperf with `-q 1` manages about 20 queries a second here, waiting on its own "
      "timer); the median of the %d rounds' p50s and p99s, and the server's run time per round "
      "trip (schedstat: ticks are too coarse at this rate);" % (
          DP_PP_N, L.get("lat_rounds", 1)))
    A("- **misses**: names never asked before, `m<i>.<server>.bench.example` (nsd's "
      "wildcard), each server its own: `dnsperf -n 1 -l %d -c %d -q %d` (%d outstanding: "
      "under dnsmasq's `dns-forward-max` of 150), then `-Q %d -v` for p50 and p99;" % (
          DP_SECS, DP_CLIENTS, DP_MISS_OUT, DP_MISS_OUT, DP_MISS_QPS))
    A("- **reads that fail**: `strace -f -c -p PID` on the server over `dnsperf -l %d` of "
      "hits, at %d/s and unlimited: its recvfrom, recvmsg and recvmmsg calls, and how many "
      "returned an error (EAGAIN: nothing to read) per answered query. strace slows every "
      "server, so these runs' rates are not comparable.\n" % (DP_STRACE_SECS, DP_LAT_QPS))

    if DNS_FLOOR in order:
        A("The first row, **%s**, is the DNS listener's floor (issue 32): `bench/dns-floor`, a "
          "responder that looks nothing up and answers every query with a fixed reply built "
          "from it (the question copied, QR set, one A record), woken by epoll and reading "
          "with recvmmsg, batches of %s answered with sendmmsg, as namecached's listener "
          "does. What it costs per answer is the kernel's UDP receive and send and the "
          "loop's wake-ups, which no server built like namecached goes below: it is to the "
          "DNS listener what the NSS floor is to the NSS module. It forwards nothing, so it "
          "has no miss rows.%s\n" % (
              DNS_FLOOR, dnslisten_batch(),
              " Its own counts over the whole section: %s queries answered, %s dropped, %s "
              "replies not sent; %s wake-ups and %s reads (%.1f answers a read)." % (
                  format(L["floor_counts"]["answered"], ","), L["floor_counts"]["dropped"],
                  L["floor_counts"]["not_sent"], format(L["floor_counts"]["wakeups"], ","),
                  format(L["floor_counts"]["reads"], ","),
                  L["floor_counts"]["answered"] / max(1, L["floor_counts"]["reads"]))
              if L.get("floor_counts") else ""))

    def cell(peer, kind, k, f):
        v = lsv(R, peer, kind, k)
        return f(v) if v is not None else "–"

    def pct(peer, kind):
        x = (L["servers"].get(peer) or {}).get(kind) or {}
        if x.get("cpu_s") is None or not x.get("secs"):
            return "–"
        return "%.0f%%" % (100 * x["cpu_s"] / x["secs"])

    def split(peer, kind):
        x = (L["servers"].get(peer) or {}).get(kind) or {}
        q = x.get("completed")
        if not q or x.get("utime_s") is None:
            return "–"
        return "%s + %s" % (fmt_us(x["utime_s"] * 1e6 / q), fmt_us(x["stime_s"] * 1e6 / q))

    def lost(peer, kind):
        x = (L["servers"].get(peer) or {}).get(kind) or {}
        return "%s of %s" % (x.get("lost"), x.get("sent")) if x.get("sent") else "–"

    q = lambda v: "%.0f" % v
    A("### Cached hits\n")
    A(table(["server", "queries/s (rounds)", "CPU per query", "CPU per query, median of "
             "the rounds (rounds)", "of which user + system",
             "CPU used (of one CPU)", "run time per query (schedstat)",
             "CPU per query at %d/s" % DP_LAT_QPS, "p50 / p99 at %d/s" % DP_LAT_QPS,
             "p50 / p99 one at a time", "run time per query one at a time", "lost"],
            [(p, "%s (%s)" % (cell(p, "hits", "qps", q), ", ".join(
                "%.0f" % x for x in lsv(R, p, "hits", "qps_runs") or [])),
              cell(p, "hits", "cpu_us_per_query", fmt_us),
              "%s (%s)" % (cell(p, "hits", "cpu_us_per_query_median", fmt_us), ", ".join(
                  fmt_us(x) for x in lsv(R, p, "hits", "cpu_us_per_query_runs") or [])),
              split(p, "hits"), pct(p, "hits"), cell(p, "hits", "run_us_per_query", fmt_us),
              cell(p, "hits_latency", "cpu_us_per_query", fmt_us),
              "%s / %s" % (cell(p, "hits_latency", "p50_us", fmt_us),
                           cell(p, "hits_latency", "p99_us", fmt_us)),
              "%s / %s" % (cell(p, "hits_pingpong", "p50_us", fmt_us),
                           cell(p, "hits_pingpong", "p99_us", fmt_us)),
              cell(p, "hits_pingpong", "run_us_per_query", fmt_us),
              lost(p, "hits")) for p in order]))
    A("")
    ratios = []
    for peer in (DNS_FLOOR, "unbound (1 thread)", "dnsmasq", "systemd-resolved stub"):
        if peer not in order:
            continue
        fs = []
        for kind, k, what in (("hits", "cpu_us_per_query", "CPU per query"),
                              ("hits", "qps", "queries/s"),
                              ("hits_latency", "p50_us", "p50"),
                              ("hits_latency", "p99_us", "p99"),
                              ("hits_pingpong", "p50_us", "p50 one at a time"),
                              ("misses", "cpu_us_per_query", "CPU per miss"),
                              ("misses", "qps", "misses/s"),
                              ("misses_latency", "p50_us", "miss p50")):
            a, c = lsv(R, "namecache", kind, k), lsv(R, peer, kind, k)
            fs.append("%.2fx" % (a / c) if a is not None and c else "–")
        ratios.append([peer] + fs)
    A("namecache ÷ each peer, from the runs above:\n")
    A(table(["peer", "CPU per query", "queries/s", "p50 at %d/s" % DP_LAT_QPS,
             "p99 at %d/s" % DP_LAT_QPS, "p50 one at a time", "CPU per miss", "misses/s",
             "miss p50"], ratios))
    A("")
    A("### Misses (each name new, forwarded to nsd)\n")
    fwd = [p for p in order if (L["servers"].get(p) or {}).get("misses")]
    A(table(["server", "misses/s", "CPU per miss", "of which user + system",
             "CPU used (of one CPU)", "p50 / p99 at %d/s" % DP_MISS_QPS,
             "upstream queries per miss", "lost"],
            [(p, cell(p, "misses", "qps", q), cell(p, "misses", "cpu_us_per_query", fmt_us),
              split(p, "misses"), pct(p, "misses"),
              "%s / %s" % (cell(p, "misses_latency", "p50_us", fmt_us),
                           cell(p, "misses_latency", "p99_us", fmt_us)),
              "%.2f" % (lsv(R, p, "misses", "upstream_queries") / lsv(R, p, "misses", "completed"))
              if lsv(R, p, "misses", "upstream_queries") is not None and
              lsv(R, p, "misses", "completed") else "–",
              lost(p, "misses")) for p in fwd]))
    A("\nUpstream queries per miss: namecache's own count (`namecachectl statistics`, "
      "upstream_queries); the peers do not say.\n")
    A("### Reads per query under strace\n")
    rows = []
    for p in order:
        st = L["servers"][p].get("strace") or {}
        cells = [p]
        for k in ("at %d/s" % DP_LAT_QPS, "unlimited"):
            x = st.get(k)
            if not x or not x.get("queries"):
                cells += ["–", "–"]
                continue
            cells.append("%.3f (%s)" % (x["reads_per_query"], ", ".join(
                "%s %d" % (c, x["syscalls"][c]["calls"]) for c in ("recvfrom", "recvmsg", "recvmmsg")
                if c in x["syscalls"])))
            cells.append("%.4f (%d of %d queries)" % (x["eagain_per_query"], x["eagain"],
                                                      x["queries"]))
        rows.append(cells)
    A(table(["server", "reads per query at %d/s" % DP_LAT_QPS, "failed (EAGAIN) per query",
             "reads per query, unlimited", "failed (EAGAIN) per query"], rows))
    A("")
    pf = L.get("perf")
    if pf:
        A("### Where namecache's CPU goes\n")
        A("`BENCH_PERF=1`: one more saturating hit run on namecache (%s answers, %.0f/s) under "
          "`perf record -g -p PID`; %s of CPU sampled (%s per answer, perf's own cost "
          "included). The top of `perf report --no-children -g none`:\n" % (
              pf.get("queries"), pf.get("qps") or 0,
              "%.2f s" % (pf["cpu_clock_ns"] / 1e9) if pf.get("cpu_clock_ns") else "?",
              fmt_us(pf["cpu_clock_ns"] / 1e3 / pf["queries"])
              if pf.get("cpu_clock_ns") and pf.get("queries") else "?"))
        A("```")
        for line in pf.get("by_dso", []):
            A(line)
        A("")
        for line in pf.get("by_symbol", []):
            A(line)
        A("```\n")
    A("### The servers\n")
    A(table(["server", "how it runs"], [(p, L["about"].get(p, "")) for p in order]))
    A("")


def fmt_ns(v):
    if v is None:
        return "–"
    if v >= 1e6:
        return "%.2f ms" % (v / 1e6)
    if v >= 1e4:
        return "%.0f µs" % (v / 1e3)
    if v >= 1e3:
        return "%.1f µs" % (v / 1e3)
    return "%.0f ns" % v


def nd_ratio(r):
    return "%.2f" % r if r >= 0.1 else "1/%.0f" % (1 / r)


def nd_cell(R, peer, cid, k="ns"):
    try:
        return R["nscd_db"]["cells"][peer][cid][k]
    except (KeyError, TypeError):
        return None


ND_LOOKUP_REQS = ("nscd_requests_getpwbyname", "nscd_requests_getpwbyuid",
                  "nscd_requests_getgrbyname", "nscd_requests_getgrbygid",
                  "nscd_requests_initgroups")


def nd_paired(R, a, b, cid):
    """The median over rounds of a's run ÷ b's run of the same round (back
    to back), which the machine's drift from round to round does not move."""
    x, y = nd_cell(R, a, cid, "by_round"), nd_cell(R, b, cid, "by_round")
    if not x or not y or len(x) != len(y):
        return None
    r = sorted(p / q for p, q in zip(x, y) if q)
    return r[len(r) // 2] if r else None


def nscd_db_targets(R):
    N = R.get("nscd_db") or {}
    rows = []
    for cid, what in N.get("hits", []):
        a, c = nd_cell(R, "namecache", cid), nd_cell(R, "glibc nscd", cid)
        ba, bc = nd_cell(R, "namecache", cid, "best"), nd_cell(R, "glibc nscd", cid, "best")
        pr = nd_paired(R, "namecache", "glibc nscd", cid)
        row = ratio_row("hit, %s: namecache ÷ glibc nscd (mapped), the median of the rounds' "
                        "ratios" % what, pr, 1 if pr else None, "<=", 1.3,
                        "medians %s ÷ %s (%s); the fastest round of each: %s ÷ %s%s" % (
                            fmt_ns(a), fmt_ns(c), "%.2fx" % (a / c) if a and c else "–",
                            fmt_ns(ba), fmt_ns(bc),
                            " (%.2fx)" % (ba / bc) if ba and bc else ""))
        rows.append(row)
    sc = (N.get("syscalls") or {}).get("namecache") or {}
    if sc:
        worst = max(v["per_call"] for v in sc.values())
        rows.append(("hits, system calls per call, namecache (`strace -f -c`, %d − %d calls)"
                     % (ND_STRACE[1], ND_STRACE[0]), "%g" % worst, "0",
                     "**met**" if worst == 0 else "**not met**",
                     "; ".join("%s %g" % (k, v["per_call"]) for k, v in sc.items())))
    for cid in ("pwnam-last", "pwuid-last"):
        a, c = nd_cell(R, "glibc direct", cid), nd_cell(R, "namecache", cid)
        what = dict(N.get("hits", [])).get(cid, cid)
        row = ratio_row("%s: glibc `files` direct (10,000 lines) ÷ namecache hit" % what,
                        a, c, ">=", 10, "%s ÷ %s" % (fmt_ns(a), fmt_ns(c)))
        if a and c and a / c >= 100:
            row = (row[0], "%.0fx" % (a / c)) + row[2:]
        rows.append(row)
    return rows


def _median(v):
    v = sorted(x for x in v or [] if x is not None)
    return v[len(v) // 2] if v else None


def _list(v, f):
    return ", ".join(f(x) for x in v or [])


def issue32_targets(R, sections, compared=None):
    """Issue 32's "## Benchmark" targets, as ratios from this run's sections.
    compared: compare()'s result against an earlier run, for "every
    other row at or better than before"."""
    rows = []
    if "listener" in sections:
        L = R.get("listener") or {}
        k = L.get("rounds", 1)
        nc = "namecache"
        a = lsv(R, nc, "hits", "cpu_us_per_query_median")
        for peer, lim in ((DNS_FLOOR, 1.2), ("unbound (1 thread)", 0.9)):
            c = lsv(R, peer, "hits", "cpu_us_per_query_median")
            pa, pc = lsv(R, nc, "hits", "cpu_us_per_query"), lsv(R, peer, "hits",
                                                                  "cpu_us_per_query")
            rows.append(ratio_row(
                "DNS listener, cached hits, server CPU per answered query (utime + stime), "
                "namecache ÷ %s, medians of %d alternated rounds" % (peer, k), a, c, "<=", lim,
                "%s ÷ %s; rounds %s ÷ %s; the rounds added up: %s ÷ %s" % (
                    fmt_us(a), fmt_us(c),
                    _list(lsv(R, nc, "hits", "cpu_us_per_query_runs"), fmt_us),
                    _list(lsv(R, peer, "hits", "cpu_us_per_query_runs"), fmt_us),
                    fmt_us(pa), fmt_us(pc))))
        a, c = lsv(R, nc, "hits", "qps"), lsv(R, DNS_FLOOR, "hits", "qps")
        rows.append(ratio_row(
            "DNS listener, cached hits, queries per second, namecache ÷ %s, medians of %d "
            "alternated rounds" % (DNS_FLOOR, k), a, c, ">=", 0.9,
            "%s ÷ %s; rounds %s ÷ %s" % (
                "%.0f/s" % a if a else "–", "%.0f/s" % c if c else "–",
                _list(lsv(R, nc, "hits", "qps_runs"), lambda x: "%.0f" % x),
                _list(lsv(R, DNS_FLOOR, "hits", "qps_runs"), lambda x: "%.0f" % x))))
    if "peers" in sections:
        fr = R.get("floor_rounds") or {}
        cells = fr.get("cells") or {}
        for f, fname in (("gai", "getaddrinfo"), ("gh2", "gethostbyname2_r")):
            fl = cells.get("floor", {}).get(f)
            for case, title in (("cached", "cached DNS name"), ("hosts", "hosts name")):
                v = cells.get("namecache " + case, {}).get(f)
                rows.append(ratio_row(
                    "shared-cache hit through the NSS module (%s), %s ÷ NSS floor, the least "
                    "of %s alternated rounds' medians" % (title, fname, fr.get("rounds", "–")),
                    min(v) if v else None, min(fl) if fl else None, "<=", 1.15,
                    "%s ÷ %s; rounds %s ÷ %s" % (
                        fmt_us(min(v)) if v else "–", fmt_us(min(fl)) if fl else "–",
                        _list(v, fmt_us), _list(fl, fmt_us))))
        mr = R.get("miss_rounds") or {}
        cells = mr.get("cells") or {}
        v, g = cells.get("namecache"), cells.get("glibc dns → nsd")
        per = [x / y for x, y in zip(v or [], g or []) if x and y]
        rows.append(ratio_row(
            "uncached getaddrinfo through the NSS module (a new name each call) ÷ glibc dns "
            "against the same nsd, the median of %s alternated rounds' medians" % mr.get(
                "rounds", "–"), _median(v), _median(g), "<=", 1.3,
            "%s ÷ %s; rounds %s ÷ %s; the rounds' own ratios %s" % (
                fmt_us(_median(v)), fmt_us(_median(g)), _list(v, fmt_us), _list(g, fmt_us),
                _list(per, lambda x: "%.2fx" % x))))
    if "nscd-db" in sections:
        N = R.get("nscd_db") or {}
        for cid, what in N.get("misses", []):
            a, c = nd_cell(R, "namecache", cid), nd_cell(R, "glibc nscd", cid)
            pr = nd_paired(R, "namecache", "glibc nscd", cid)
            rows.append(ratio_row(
                "nscd miss that passes `files` (the daemon walks `files ncdir`), %s: namecache "
                "÷ glibc nscd, the median of the %s rounds' ratios" % (
                    what, N.get("rounds", "–")),
                pr, 1 if pr else None, "<=", 1.1, "medians %s ÷ %s (%s)" % (
                    fmt_ns(a), fmt_ns(c), "%.2fx" % (a / c) if a and c else "–")))
    if compared is None:
        rows.append(("every other row of bench/run.sh at or better than before", "–", "–",
                     "not compared", "needs an earlier run's results: `bench/run.sh "
                     "--compare BEFORE.json`, or `bench/run.py compare BEFORE.json "
                     "AFTER.json` (bench/run.sh's header says how)"))
    else:
        # Issue 32's own rows have their limits above; "every other row" is the rest.
        other = [c for c in compared["rows"] if c["table"] != "issue 32"]
        worse = [c for c in other if c["verdict"] == "worse"]
        n = [c for c in other if c["verdict"] in ("better", "same", "worse")]
        rows.append(("every other row of bench/run.sh at or better than before (the target "
                     "rows of both runs, each in its own direction)",
                     "%d of %d worse" % (len(worse), len(n)),
                     "none worse by more than %.0f%%" % (100 * COMPARE_TOL),
                     "**met**" if n and not worse else ("**not met**" if n else "not compared"),
                     "against %s; see [Before and after](#before-and-after)%s" % (
                         compared["label"], "; worse: " + "; ".join(
                             "%s (%s → %s)" % (c["what"], c["before"], c["after"])
                             for c in worse) if worse else "")))
    return rows


# ---------------------------------------------------------------------------
# Before and after (issue 32: "every other row of bench/run.sh at or better
# than before"): this run's figures against an earlier run's results file
# ---------------------------------------------------------------------------
COMPARE_TOL = 0.05      # a change smaller than this is "same": two runs here move more
OTHER_ROWS = "every other row of bench/run.sh"


def target_rows(R):
    """Every row of the page's targets tables, as (table, row), for the sections R ran."""
    sections = R.get("sections", list(ALL_SECTIONS))
    out = []
    if "peers" in sections:
        rows, extra = targets(R)
        out += [("issue 4", r) for r in rows] + [("SPEC.md", r) for r in extra]
    if "listener" in sections:
        out += [("issue 20", r) for r in listener_targets(R)]
    if "nscd-db" in sections:
        out += [("issue 21", r) for r in nscd_db_targets(R)]
    out += [("issue 32", r) for r in issue32_targets(R, sections)
            if not r[0].startswith(OTHER_ROWS)]
    return out


def _measured(text):
    """The number in a targets table's "measured" cell ("1.16x", "1382065/s", "97.3 MB")."""
    m = re.match(r"^\s*(\d[\d,]*(?:\.\d+)?)", str(text))
    return float(m.group(1).replace(",", "")) if m else None


def _judge(before, after, higher_better, limit=None):
    """better, same (within COMPARE_TOL) or worse, in the figure's own
    direction.  limit: a "< L" row's L; two values both under a tenth of it
    (failed reads per query, 0.0001 against 0.0002) are the same."""
    if before is None or after is None:
        return "–", None
    if limit and not higher_better and before < limit / 10 and after < limit / 10:
        return "same", (after / before - 1) if before else 0.0
    if before == 0:
        ch = 0.0 if after == 0 else (float("inf") if after > 0 else float("-inf"))
    else:
        ch = after / before - 1
    good = -ch if not higher_better else ch
    if before == 0 and after == 0:
        return "same", 0.0
    if good > COMPARE_TOL:
        return "better", ch
    if good < -COMPARE_TOL:
        return "worse", ch
    return "same", ch


def _change(ch):
    if ch is None:
        return "–"
    if ch in (float("inf"), float("-inf")):
        return "from 0"
    return "%+.1f%%" % (100 * ch)


def own_figures(R):
    """The run's figures, namecache's and its peers', as (key, what, value,
    higher_better, format, namecache's own?)."""
    out = []
    fnames = {"gai": "getaddrinfo", "gh2": "gethostbyname2_r"}
    is_nc = lambda p: p.startswith("namecache")
    for peer, cases in (R.get("latency") or {}).items():
        for case, fs in cases.items():
            for f, x in fs.items():
                if isinstance(x, dict) and x.get("median") is not None:
                    out.append(("lat/%s/%s/%s" % (peer, case, f), "%s, %s, %s, median" % (
                        peer, CASE_TITLES.get(case, case), fnames.get(f, f)), x["median"], False,
                                fmt_us, is_nc(peer)))
    for peer, x in (R.get("throughput") or {}).items():
        for t in ("1", "2"):
            if x.get(t):
                out.append(("tput/%s/%s" % (peer, t), "%s, lookups/s, %s thread%s" % (
                    peer, t, "s" if t != "1" else ""), x[t], True, lambda v: "%.0f/s" % v,
                            is_nc(peer)))
    for case, x in (R.get("pipeline") or {}).items():
        out.append(("pipe/%s" % case, "namecache, pipelined lookups/s, %s" % CASE_TITLES.get(
            case, case), x.get("rate"), True, lambda v: "%.0f/s" % v, True))
    for f, x in (R.get("socket_rounds") or {}).items():
        out.append(("sockr/%s" % f, "namecache shared=no, socket path in rounds, %s, median" %
                    fnames.get(f, f), x.get("median"), False, fmt_us, True))
    rt = (R.get("roundtrip") or {}).get("free, in rounds with the socket path") or {}
    if rt.get("median"):
        out.append(("rt", "bare Unix-socket round trip (in rounds), median", rt["median"], False,
                    fmt_us, False))
    for what, k in (("floor_rounds", "least"), ("miss_rounds", "median")):
        for peer, v in ((R.get(what) or {}).get("cells") or {}).items():
            for f, vs in (v.items() if isinstance(v, dict) else (("gai", v),)):
                val = (min(vs) if k == "least" else _median(vs)) if vs else None
                out.append(("%s/%s/%s" % (what, peer, f), "%s, %s, %s of the rounds' medians%s" % (
                    peer, fnames.get(f, f), k, "" if what == "floor_rounds" else
                    " (a new name each call)"), val, False, fmt_us, is_nc(peer)))
    L = R.get("listener") or {}
    for peer, x in (L.get("servers") or {}).items():
        for kind, k, what, hb, fm in (
                ("hits", "cpu_us_per_query", "CPU per hit (rounds added up)", False, fmt_us),
                ("hits", "cpu_us_per_query_median", "CPU per hit (median of rounds)", False,
                 fmt_us),
                ("hits", "qps", "hits/s", True, lambda v: "%.0f/s" % v),
                ("hits_latency", "p50_us", "hit p50 at %d/s" % DP_LAT_QPS, False, fmt_us),
                ("hits_latency", "p99_us", "hit p99 at %d/s" % DP_LAT_QPS, False, fmt_us),
                ("hits_pingpong", "p50_us", "hit p50 one at a time", False, fmt_us),
                ("misses", "cpu_us_per_query", "CPU per miss", False, fmt_us),
                ("misses", "qps", "misses/s", True, lambda v: "%.0f/s" % v),
                ("misses_latency", "p50_us", "miss p50 at %d/s" % DP_MISS_QPS, False, fmt_us)):
            v = (x.get(kind) or {}).get(k)
            if v is not None:
                out.append(("dl/%s/%s/%s" % (peer, kind, k), "DNS listener, %s, %s" % (peer, what),
                            v, hb, fm, is_nc(peer)))
    N = R.get("nscd_db") or {}
    for peer, cells in (N.get("cells") or {}).items():
        names = dict(N.get("hits", []) + N.get("misses", []))
        for cid, x in cells.items():
            out.append(("nd/%s/%s" % (peer, cid), "nscd databases, %s, %s%s" % (
                peer, "miss: " if cid not in dict(N.get("hits", [])) else "hit: ",
                names.get(cid, cid)), x.get("ns"), False, fmt_ns, is_nc(peer)))
    for key in ("memory", "memory_unspec"):
        m = R.get(key) or {}
        if (m.get("rss_after") or {}).get("VmRSS"):
            out.append(("mem/%s" % key, "namecache, daemon RSS after %s names (-f %s)" % (
                format(m.get("names") or 0, ","), m.get("family")), m["rss_after"]["VmRSS"],
                        False, lambda v: "%.1f MB" % (v / 1e6), True))
    return out


def _run_label(R):
    m = R.get("meta") or {}
    return "the run of %s (%s, `%s`)" % (R.get("date", "?"), m.get("commit", "commit ?"),
                                         m.get("command", "?"))


def compare(old, new):
    """new's targets rows and figures against old's: {"label", "rows", "figures"}."""
    def key(block, what):
        return block, re.sub(r"\d[\d,.]*", "#", what)
    old_rows = target_rows(old)
    exact = {(block, r[0]): i for i, (block, r) in enumerate(old_rows)}
    loose = {}
    for i, (block, r) in enumerate(old_rows):
        loose.setdefault(key(block, r[0]), []).append(i)
    rows, used = [], set()
    for block, r in target_rows(new):
        i = exact.get((block, r[0]))
        if i is None or i in used:
            # A title with this run's own numbers in it (a count, a rate): the
            # same row when only the numbers differ and no other row does.
            cand = [j for j in loose.get(key(block, r[0]), []) if j not in used]
            i = cand[0] if len(cand) == 1 else None
        o = old_rows[i][1] if i is not None else None
        if i is not None:
            used.add(i)
        hb = str(r[2]).startswith("≥")
        lim = _measured(str(r[2])[1:]) if str(r[2]).startswith("<") else None
        verdict, ch = _judge(_measured(o[1]) if o else None, _measured(r[1]), hb, lim)
        rows.append({"table": block, "what": r[0], "before": o[1] if o else "–", "after": r[1],
                     "limit": r[2], "change": ch,
                     "verdict": verdict if o is not None else "new row",
                     "verdict_before": o[3] if o else "–", "verdict_after": r[3]})
    for i, (block, r) in enumerate(old_rows):
        if i not in used:
            rows.append({"table": block, "what": r[0], "before": r[1], "after": "–",
                         "limit": r[2], "change": None, "verdict": "not in this run",
                         "verdict_before": r[3], "verdict_after": "–"})
    ob = {k: (v, hb, fm) for k, _, v, hb, fm, _ in own_figures(old)}
    figs = []
    for k, what, v, hb, fm, nc in own_figures(new):
        o = ob.get(k)
        verdict, ch = _judge(o[0] if o else None, v, hb)
        # How much slower the after run was on this figure (a rate: before ÷ after).
        slower = None
        if o and o[0] and v:
            slower = (o[0] / v if hb else v / o[0]) - 1
        figs.append({"what": what, "before": fm(o[0]) if o and o[0] is not None else "–",
                     "after": fm(v) if v is not None else "–", "change": ch,
                     "verdict": verdict, "namecache": nc, "slower": slower})
    return {"label": _run_label(old), "label_after": _run_label(new), "rows": rows,
            "figures": figs}


def compare_report(c, A):
    """The page's "Before and after" section."""
    A('<a id="before-and-after"></a>\n')
    A("## Before and after\n")
    A("After: %s. Before: %s, from its results file. The targets rows are ratios to peers "
      "measured in the same run, so the machine's drift between the two runs moves them "
      "little; each is judged in its own direction (a `≤` limit: lower is better; `≥`: "
      "higher), a change under %.0f%% counted as the same. To compare two runs of one "
      "tree, or of two trees, see bench/run.sh's header (`--results`, `--compare`, "
      "`bench/run.py compare`).\n" % (c["label_after"], c["label"], 100 * COMPARE_TOL))
    A(table(["table", "target", "before", "after", "change", "", "verdict before → after"],
            [(x["table"], x["what"], x["before"], x["after"], _change(x["change"]),
              "**%s**" % x["verdict"] if x["verdict"] == "worse" else x["verdict"],
              "%s → %s" % (x["verdict_before"], x["verdict_after"])) for x in c["rows"]]))
    A("")
    own = [x for x in c["figures"] if x["namecache"]]
    drift = _median([x["slower"] for x in c["figures"]
                     if not x["namecache"] and x.get("slower") is not None])
    count = lambda v: sum(1 for x in own if x["verdict"] == v)
    A("namecache's own figures (absolute: the machine's drift between the runs moves them "
      "too): %d better, %d the same, %d worse, of %d in both runs. The peers' figures were "
      "%s in the median, the machine's drift between the runs (a time that grew or a rate "
      "that fell counts as slower).\n" % (
          count("better"), count("same"), count("worse"),
          sum(1 for x in own if x["verdict"] != "–"),
          "%.1f%% %s" % (abs(100 * drift), "slower" if drift >= 0 else "faster")
          if drift is not None else "– (none in both runs)"))
    A("<details><summary>%d figures, namecache's and the peers'</summary>\n" % len(c["figures"]))
    A(table(["figure", "before", "after", "change", ""],
            [(x["what"], x["before"], x["after"], _change(x["change"]),
              ("**%s**" % x["verdict"] if x["verdict"] == "worse" else x["verdict"])
              if x["namecache"] else "(peer)") for x in c["figures"]]))
    A("\n</details>\n")


def nscd_db_observations(R):
    N = R.get("nscd_db") or {}
    out = []
    pr = [(nd_paired(R, "namecache", "glibc nscd", c), w) for c, w in N.get("hits", [])]
    pr = [x for x in pr if x[0] is not None]
    if pr:
        hi, lo = max(pr), min(pr)
        out.append("nscd databases, hits: namecache's mapped databases against glibc nscd's, "
                   "read by the same glibc client code, the median of the rounds' ratios: "
                   "from %.2fx (%s) to %.2fx (%s). Both make no system call on a hit." % (
                       lo[0], lo[1], hi[0], hi[1]))
    slow = []
    for cid, what in N.get("misses", []):
        a, c = nd_cell(R, "namecache", cid), nd_cell(R, "glibc nscd", cid)
        if a and c:
            slow.append((a / c, what, a, c))
    if slow:
        out.append("nscd databases, misses (each a round trip to the daemon and its walk of "
                   "the line), namecache ÷ glibc nscd: %s." % "; ".join(
                       "%s %.2f (%s ÷ %s)" % (w, r, fmt_ns(a), fmt_ns(c))
                       for r, w, a, c in slow))
    cr = {p: sorted(set(h["certainly_running"] for h in hs))
          for p, hs in (N.get("map_heads") or {}).items()}
    if cr.get("namecache") == [0] and 0 not in cr.get("glibc nscd", [0]):
        out.append("nscd databases: namecache's files carry `nscd_certainly_running = 0`, "
                   "glibc nscd's %s, so on every hit glibc's client reads the clock for "
                   "namecache's database (the vDSO's clock_gettime: no system call, but time "
                   "on each call) and not for glibc nscd's." % ", ".join(
                       str(x) for x in cr["glibc nscd"]))
    a, c = nd_cell(R, "glibc direct", "pwnam-last"), nd_cell(R, "namecache", "pwnam-last")
    u = nd_cell(R, "unscd", "pwnam-last")
    if a and c:
        out.append("nscd databases: getpwnam of the 10,000-line file's last name costs %s "
                   "without nscd (glibc parses the file at every call), %s through unscd's "
                   "socket and %s from namecache's mapped database." % (
                       fmt_ns(a), fmt_ns(u), fmt_ns(c)))
    return out


def nscd_db_report(R, A):
    """The nscd databases' section of the page (issue 21)."""
    N = R.get("nscd_db") or {}
    peers = N.get("peers") or []
    A('<a id="nscd-databases-passwd-and-group"></a>\n')
    A("## nscd databases: passwd and group through glibc's nscd client\n")
    if not peers:
        A("Not measured in this run.\n")
        return
    A("glibc's own nscd client (no NSS module, no nsswitch.conf change) asks each daemon on "
      "`/var/run/nscd/socket`; each daemon runs in a mount namespace of its own with a tmpfs "
      "over `/run`, a %s-line `/etc/passwd` (bind mount; the name `%s`, uid %d, on its last "
      "line) and `passwd: files ncdir` / `group: files ncdir` (bind mount over "
      "`/etc/nsswitch.conf`), where `ncdir` is the test module `%s` (tests/nss/nss_ncdir.c: "
      "users `ncu0000`..`ncu4999`, uid 200000 + i; `ncstaff`, 5,000 members; `ncg00`..`ncg39`; "
      "it generates its answers in code). The daemons get `LD_LIBRARY_PATH` naming the "
      "module's folder. Their clients run in a child namespace whose nsswitch.conf names only "
      "a module that does not exist, so a lookup that fell back to NSS would fail and be "
      "counted. `glibc direct` is the same namespace without any daemon: glibc's own walk, "
      "in the calling process.\n" % (
          "{:,}".format(ND_PW_LINES), ND_PW_LAST[0], ND_PW_LAST[1],
          os.path.basename(N.get("module", "libnss_ncdir.so.2"))))
    A("`bench/pw-lookup` calls getpwnam_r, getpwuid_r, getgrgid_r or getgrouplist in a "
      "loop, timed as a block (two clock reads around the loop: a hit is tens of ns), after "
      "%d untimed calls (the client maps the daemon's database at its first). Each cell "
      "comes from %d runs, each a new process, every peer in turn within a round (this VM's "
      "speed drifts, and it is shared with other work): a hit cell is the median of the runs' "
      "medians, each run %d timed rounds of one key asked again and again, %s calls a round "
      "through a mapped database, %s through unscd's socket, %s for glibc direct (`ncstaff`: "
      "÷ 50, at least 100 or the peer's figure if lower). A miss cell is the median of the "
      "runs, each %d calls of keys no call asked before, each peer its own in disjoint ranges "
      "(glibc's nscd files a user under both its name and its uid); a passwd miss walks the "
      "%s-line file before the module, in the daemon.\n" % (
          ND_WARM, N.get("rounds", ND_ROUNDS), N.get("inner", ND_INNER),
          "{:,}".format(ND_HIT_MAP), "{:,}".format(ND_HIT_SOCK), "{:,}".format(ND_DIRECT),
          ND_MISS, "{:,}".format(ND_PW_LINES)))
    head = ["per call"] + peers
    rows = []
    for cid, what in N.get("hits", []):
        rows.append(["hit: " + what] + [fmt_ns(nd_cell(R, p, cid)) for p in peers])
    for cid, what in N.get("misses", []):
        rows.append(["miss: " + what] + [fmt_ns(nd_cell(R, p, cid)) if p != "glibc direct"
                                         else "–" for p in peers])
    A(table(head, rows))
    A("")
    A("Ratios of this run, namecache's time per call ÷ the peer's, of the cells above "
      "(under 1: namecache is faster; 1/N: N times faster). The targets take, against glibc "
      "nscd, the median of the rounds' own ratios instead (each round runs the two back to "
      "back), which the machine's drift between rounds does not move:\n")
    rows = []
    for cid, what in N.get("hits", []) + N.get("misses", []):
        nc = nd_cell(R, "namecache", cid)
        r = [("hit: " if cid in dict(N.get("hits", [])) else "miss: ") + what]
        for p in [p for p in peers if p != "namecache"]:
            x = nd_cell(R, p, cid)
            r.append(nd_ratio(nc / x) if nc and x else "–")
        rows.append(r)
    A(table(["namecache ÷"] + [p for p in peers if p != "namecache"], rows))
    A("")
    A("Spread of the runs (least – greatest of the %d runs' figures of each cell):\n" %
      N.get("rounds", ND_ROUNDS))
    rows = []
    for cid, what in N.get("hits", []) + N.get("misses", []):
        rows.append([what] + ["%s – %s" % (fmt_ns(nd_cell(R, p, cid, "min")),
                                           fmt_ns(nd_cell(R, p, cid, "max")))
                              if nd_cell(R, p, cid) else "–" for p in peers])
    A(table(["case"] + peers, rows))
    A("")
    sc = N.get("syscalls") or {}
    if sc:
        A("System calls per hit: `strace -f -c` of `bench/pw-lookup` over %d and over %d hits "
          "(%d and %d for glibc direct), after 20 warm-up calls; the difference of the two "
          "runs' counts ÷ the difference of their lengths, so the process's start and its "
          "mapping of the database cancel out:\n" % (ND_STRACE[0], ND_STRACE[1],
                                                     ND_STRACE_SLOW[0], ND_STRACE_SLOW[1]))
        rows = []
        for p in peers:
            for cid, what in N.get("hits", []):
                s = (sc.get(p) or {}).get(cid)
                if s:
                    rows.append([p, what, "%g" % s["per_call"],
                                 ", ".join("%s %g" % kv for kv in sorted(
                                     s["by_syscall"].items(), key=lambda kv: -kv[1])) or "none",
                                 "%d / %d" % tuple(s["totals"])])
        A(table(["peer", "hit", "per call", "which", "whole runs' totals"], rows))
        A("")
    mh = N.get("map_heads") or {}
    if mh:
        A("The headers of the databases each daemon had mapped shared at the end of the run "
          "(`/proc/PID/map_files`), and what glibc's client does with `nscd_certainly_running`: "
          "when it is 0, `__nscd_get_map_ref` reads the clock (`time`, the vDSO: no system "
          "call) at every lookup to hold the header's `timestamp` against its 300 s timeout; "
          "when it is not, it skips that. glibc's nscd sets it with `set_tid_address` on its "
          "database threads, so the kernel clears it when nscd dies:\n")
        A(table(["daemon", "file", "version", "nscd_certainly_running", "timestamp − now"],
                [(p, "`%s`" % h["path"], h["version"], h["certainly_running"],
                  "%+d s" % (h["timestamp"] - N.get("map_heads_at", h["timestamp"])))
                 for p, hs in mh.items() for h in hs]))
        A("")
    sr = N.get("socket_requests") or {}
    if sr:
        A("namecache's own counters (`namecachectl --json statistics`) around one more hit "
          "run of each case, in a new process: lookups that reached its socket (GETPW*, GETGR*, "
          "INITGROUPS), and requests for a database's descriptor (GETFD*):\n")
        rows = []
        for cid, what in N.get("hits", []):
            x = sr.get(cid)
            if not x:
                continue
            d = x["delta"]
            rows.append([what, "{:,}".format(x["calls"] + x["warm"] + 1),
                         str(sum(d.get(k, 0) for k in ND_LOOKUP_REQS)),
                         str(d.get("nscd_requests_getfdpw", 0) + d.get("nscd_requests_getfdgr", 0))])
        A(table(["hit", "calls in the run", "lookups on the socket", "GETFD*"], rows))
        A("")
    A("How each peer runs:\n")
    A(table(["peer", "how"], [(p, N["about"].get(p, "")) for p in peers]))
    A("")
    A("unscd starts its workers with an empty environment, so `LD_LIBRARY_PATH` never reaches "
      "the process that loads the module: its namespace gets an `/etc/ld.so.cache` (bind "
      "mount) built by `ldconfig -X -C` from the host's ld.so.conf plus the module's folder.\n")


def main(argv):
    if len(argv) == 4 and argv[0] == "measure":
        measure(os.path.abspath(argv[1]), os.path.abspath(argv[2]), argv[3])
        return 0
    if len(argv) in (3, 4) and argv[0] == "report":
        report(argv[1], argv[2], argv[3] if len(argv) == 4 else None)
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        # Two kept results files, no measuring: the section report writes.
        with open(argv[1]) as f:
            old = json.load(f)
        with open(argv[2]) as f:
            new = json.load(f)
        md = []
        compare_report(compare(old, new), md.append)
        print("\n".join(md))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    def _term(sig, frame):
        stop_all()
        sys.exit(128 + sig)
    signal.signal(signal.SIGTERM, _term)
    signal.signal(signal.SIGINT, _term)
    sys.exit(main(sys.argv[1:]))
