#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/bindings/run.py - the bindings' benchmark: measure (in the namespace) and report.

    run.py measure BUILD WORK          inside tests/dns/in-netns.sh: writes WORK/bindings.json
    run.py report WORK/bindings.json DOCS/benchmarks-bindings.md

measure binds tests/bindings/corpus.py's hosts file over /etc/hosts and
"hosts: files dns" over /etc/nsswitch.conf (the namespace's nsd serves the
test zones and a root on 127.0.0.1:53), starts the build's namecached on
the same files, and runs node_bench.js and py_bench.py against it.  See
bench/bindings.sh.
"""
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "bindings"))
import corpus  # noqa: E402

NAMES = [("v4.hosts.example", "hosts name, one address"),
         ("localhost", "localhost, two addresses (::1, 127.0.0.1)"),
         ("www.test.example", "DNS name, two addresses, cached")]


def measure(build, work):
    if os.environ.get("DNSENV_NETNS") != "1":
        sys.exit("run.py measure: only inside tests/dns/in-netns.sh")
    etc = tempfile.mkdtemp(prefix="nc-bench-etc-", dir=work)
    os.chmod(etc, 0o755)
    with open("/etc/nsswitch.conf") as f:
        others = "".join(l for l in f if not l.strip().startswith("hosts:"))
    files = {"nsswitch.conf": "hosts: files dns\n" + others, "hosts": corpus.HOSTS}
    for name, text in files.items():
        path = os.path.join(etc, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        subprocess.run(["mount", "--bind", path, "/etc/" + name], check=True)
    sock = os.path.join(work, "nc", "sock")
    os.makedirs(os.path.dirname(sock), exist_ok=True)
    conf = os.path.join(work, "nc", "namecached.conf")
    open(conf, "w").close()
    log = open(os.path.join(work, "nc", "daemon.log"), "wb")
    d = subprocess.Popen([os.path.join(build, "daemon", "namecached"), "--config", conf,
                          "--socket", sock, "--hosts-file", "/etc/hosts",
                          "--resolv-conf", "/etc/resolv.conf",
                          "--nsswitch-conf", "/etc/nsswitch.conf"], stdout=log, stderr=log)
    try:
        for _ in range(500):
            try:
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(sock)
                break
            except OSError:
                time.sleep(0.01)
        env = dict(os.environ, NAMECACHE_SOCKET=sock,
                   PYTHONPATH=os.path.join(build, "client-lib", "python"))
        out = {"meta": meta(build)}
        names = [n for n, _ in NAMES]
        r = subprocess.run(["node", os.path.join(HERE, "node_bench.js"),
                            os.path.join(build, "client-lib", "node"),
                            os.environ.get("BENCH_CACHEABLE", "-")] + names,
                           env=env, capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            sys.exit("node_bench.js: %s" % r.stderr[-3000:])
        out["node"] = json.loads(r.stdout)
        out["node_stderr"] = r.stderr
        r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "py_bench.py")] + names,
                           env=env, capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            sys.exit("py_bench.py: %s" % r.stderr[-3000:])
        out["python"] = json.loads(r.stdout)
    finally:
        d.send_signal(signal.SIGTERM)
        d.wait(10)
    with open(os.path.join(work, "bindings.json"), "w") as f:
        json.dump(out, f)


def meta(build):
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "node": node, "python": platform.python_version(), "cpu": cpu,
            "cpus": os.cpu_count(), "kernel": platform.release(),
            "commit": subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                                     capture_output=True, text=True).stdout.strip()}


def us(ns):
    v = ns / 1000.0
    return "%.2f µs" % v if v < 10 else "%.1f µs" % v if v < 1000 else "%.1f ms" % (v / 1000)


def med(rounds, phase, key):
    return statistics.median(r[phase][key] for r in rounds if phase in r)


def report(path, doc):
    with open(path) as f:
        R = json.load(f)
    m = R["meta"]
    L = ["# Benchmarks: the Node.js and Python bindings",
         "",
         "Written by `bench/bindings.sh` (run %s, commit %s): %s, %d CPUs, Linux %s, "
         "Node.js %s, Python %s.  Medians of %d alternating rounds; every lookup is timed "
         "from its call to its answer, one after another.  Inside a private network "
         "namespace: nsd on 127.0.0.1 serves the DNS names, tests/bindings/corpus.py's "
         "hosts file is /etc/hosts, `hosts: files dns`.  namecache's answers come from the "
         "shared cache (hits); dns.lookup and socket.getaddrinfo run glibc's getaddrinfo, "
         "which reads the hosts file (or asks nsd) on every call." % (
             m["date"], m["commit"], m["cpu"], m["cpus"], m["kernel"], m["node"], m["python"],
             R["node"]["rounds"]),
         ""]
    targets = []

    def table(rt, peers, ours, theirs_name):
        res = R[rt]["results"]
        L.append("| name | " + " | ".join("%s median" % p for p in peers) +
                 " | %s lookups/s | ratio |" % ours)
        L.append("|---|" + "---|" * len(peers) + "---|---|")
        for n, what in NAMES:
            cells, mine = [], None
            for p in peers:
                rounds = res.get(n + "|" + p)
                if not rounds:
                    cells.append("-")
                    continue
                v = med(rounds, "idle", "median")
                cells.append(us(v))
                if p == ours:
                    mine = v
                    per_s = med(rounds, "idle", "per_s")
            theirs = med(res[n + "|" + theirs_name], "idle", "median")
            ratio = theirs / mine
            L.append("| %s | %s | %.0f | %.1fx |" % (what, " | ".join(cells), per_s, ratio))
            need = 5 if n == "localhost" else 10
            targets.append(("%s: %s hit vs %s, %s" % (rt, ours, theirs_name, what),
                            "%.1fx" % ratio, "≥ %dx" % need, ratio >= need))
        L.append("")

    def busy_table(rt, peers, ours, theirs_name, why):
        res = R[rt]["results"]
        L.append("With %s:" % why)
        L.append("")
        L.append("| name | " + " | ".join("%s p50 / p99" % p for p in peers) + " |")
        L.append("|---|" + "---|" * len(peers))
        for n, what in NAMES:
            cells = []
            for p in peers:
                rounds = res.get(n + "|" + p)
                if not rounds or "busy" not in rounds[0]:
                    cells.append("-")
                    continue
                cells.append("%s / %s" % (us(med(rounds, "busy", "median")),
                                          us(med(rounds, "busy", "p99"))))
            L.append("| %s | %s |" % (what, " | ".join(cells)))
            p99 = med(res[n + "|" + ours], "busy", "p99")
            theirs = med(res[n + "|" + theirs_name], "busy", "median")
            targets.append(("%s: %s p99 with %s, %s (theirs: median %s)" % (
                rt, ours, why, what, us(theirs)), us(p99), "< 1 ms", p99 < 1e6))
        L.append("")

    node_peers = ["namecache", "dns.lookup"] + (
        ["cacheable-lookup"] if any("cacheable-lookup" in k for k in R["node"]["results"])
        else [])
    L += ["## Node.js: namecache.lookup", "",
          "cacheable-lookup (npm, 6.x) is the anchor: an in-process cache over c-ares, "
          "pointed at the same nsd.  It does not read /etc/hosts: for the hosts names it "
          "hands over to dns.lookup (its `fallbackDuration`), so its hosts rows are "
          "dns.lookup's pool and its answers need not be getaddrinfo's.", ""]
    table("node", node_peers, "namecache", "dns.lookup")
    busy_table("node", node_peers, "namecache", "dns.lookup",
               "libuv's pool held by four pbkdf2 jobs (%d iterations, started again as "
               "each ends)" % R["node"]["iterations"])
    L += ["## Python: namecache.getaddrinfo and namecache.aio", "",
          "`getaddrinfo(name, 443, type=SOCK_STREAM)`; the aio rows await one lookup after "
          "another on an asyncio loop.", ""]
    table("python", ["namecache.getaddrinfo", "socket.getaddrinfo"], "namecache.getaddrinfo",
          "socket.getaddrinfo")
    table("python", ["namecache.aio", "loop.getaddrinfo"], "namecache.aio", "loop.getaddrinfo")
    busy_table("python", ["namecache.aio", "loop.getaddrinfo"], "namecache.aio",
               "loop.getaddrinfo", "the loop's default executor held (%d threads, each on "
               "50 ms jobs started again as they end)" % R["python"]["executor_workers"])
    L += ["## Targets (issue 14)", "", "| what | measured | target | |", "|---|---|---|---|"]
    for what, got, want, ok in targets:
        L.append("| %s | %s | %s | %s |" % (what, got, want, "met" if ok else "**not met**"))
    L += ["", "Counters of the run: Node.js %s; Python %s." % (
        json.dumps(R["node"]["counters"]), json.dumps(R["python"]["counters"])), ""]
    with open(doc, "w") as f:
        f.write("\n".join(L))
    print("\n".join(L))


if __name__ == "__main__":
    if sys.argv[1:2] == ["measure"]:
        measure(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
    elif sys.argv[1:2] == ["report"]:
        report(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
