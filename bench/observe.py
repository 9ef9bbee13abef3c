#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/observe.py - what watching costs: a monitor attached and metrics scraped (issue 23).

    bench/observe.py BUILD WORK DOCS [--rounds N]

bench/run.sh --only observe runs it in a network namespace of its own.
One namecached (BUILD, shared = no, so every hit reaches the daemon and
the monitor sees it), a dnslib server on 127.0.0.1 as its upstream, and
two measures, each in rounds of three conditions, their order turning:

  plain     nothing watches;
  watched   `namecachectl monitor` attached and reading (to /dev/null), at
            nice 19, and GET /metrics on metrics_listen once a second;
  watched, nice 0   the same, the monitor at the load's own priority.

On this 2-core machine the load (nc-pipeline) and the daemon take both
cores; a monitor that formats every line takes a third share of them at
nice 0, whatever the daemon does.  At nice 19 it reads what it can and the
rest is counted lost: that row measures what serving it costs the daemon.

  * hit latency: getaddrinfo through the NSS module (namecache alone on the
    line), of a name the daemon holds: bench/nss-lookup, median of 20,000;
  * pipelined throughput: bench/nc-pipeline -c 4 -d 32 for 2 s, replies/s.

The order turns each round so that a machine that slows over the run slows
every condition.  It reports each condition's
median over the rounds and its spread (min to max), and the monitor's
events and losses.  Writes DOCS/benchmarks-observe.md.
"""
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests"))
sys.path.insert(0, os.path.join(TOP, "tests", "dns"))
import dnsenv  # noqa: E402
import nclib  # noqa: E402

NAME = "bench.observe.test"


class Watchers:
    """The monitor and the once-a-second scrape, for one round."""

    def __init__(self, build, d, port, nice, reading=True):
        self.mon = subprocess.Popen(["nice", "-n", str(nice),
                                     os.path.join(build, "cli", "namecachectl"), "--socket",
                                     d.sock, "monitor"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        if not reading:
            # Attached, then stopped: its queue fills and stays full.
            nclib.wait_until(lambda: d.ctl_json("statistics")["monitors"] == 1,
                             "monitor attached", 10)
            self.mon.send_signal(signal.SIGSTOP)
        self.port = port
        self.scrapes = 0
        self.stopping = threading.Event()
        self.t = threading.Thread(target=self._scrape, daemon=True)
        self.t.start()

    def _scrape(self):
        while not self.stopping.is_set():
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.port,
                                        timeout=5) as r:
                assert r.status == 200 and b"namecache_lookups_total" in r.read()
            self.scrapes += 1
            self.stopping.wait(1.0)

    def stop(self):
        self.stopping.set()
        self.t.join(10)
        self.mon.send_signal(signal.SIGCONT)
        self.mon.terminate()
        self.mon.wait(10)


def hit_latency(build, d):
    r = subprocess.run([os.path.join(build, "bench", "nss-lookup"), "-f", "gai", "-w", "200",
                        "namecache", NAME, "20000"], capture_output=True, text=True,
                       env=nclib.nss_env(build, d.sock), timeout=300, check=True)
    return float(re.search(r"median\s+([\d.]+) us", r.stdout).group(1))


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])        # utime + stime


def throughput(build, d):
    """Lookups a second, and the daemon's CPU time per lookup (µs): its own
    cost, whatever else the machine's cores were doing."""
    t0 = cpu_ticks(d.proc.pid)
    r = subprocess.run([os.path.join(build, "bench", "nc-pipeline"), "-c", "4", "-d", "32",
                        "-t", "2", "-f", "0", d.sock, NAME], capture_output=True, text=True,
                       timeout=120, check=True)
    ticks = cpu_ticks(d.proc.pid) - t0
    m = re.search(r"(\d+) replies in ([\d.]+) s: ([\d.]+) lookups/s", r.stdout)
    cpu = ticks / os.sysconf("SC_CLK_TCK") * 1e6 / int(m.group(1))
    return float(m.group(3)), cpu


def summary(xs):
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def main():
    args = sys.argv[1:]
    rounds = 7
    if "--rounds" in args:
        i = args.index("--rounds")
        rounds = int(args[i + 1])
        del args[i:i + 2]
    build, work, docs = (os.path.abspath(a) for a in args)
    tmp = os.path.join(work, "observe")
    os.makedirs(tmp, exist_ok=True)
    fs = dnsenv.FaultServer()
    # One address, as in docs/benchmarks.md: with two, getaddrinfo would
    # sort them (RFC 6724) with a connect per address, tens of µs of its own.
    fs.set(NAME, "answer", records=[("A", 86400, "192.0.2.80")], qtype="A")
    fs.set(NAME, "nodata", qtype="AAAA", soa=True, soa_ttl=86400, minimum=86400)
    port = dnsenv.free_port()
    d = nclib.Daemon(build, tmp, conf_text="shared = no\nmetrics_listen = 127.0.0.1:%d\n" % port,
                     upstream="127.0.0.1:%d" % fs.port)
    d.start()
    conds = ("plain", "watched", "watched, nice 0", "attached, not reading")
    res = {c: {"lat": [], "tput": [], "cpu": []} for c in conds}
    events = {c: 0 for c in conds}
    lost = {c: 0 for c in conds}
    scrapes = 0
    try:
        hit_latency(build, d)                   # warm: the name is cached
        for r in range(rounds):
            order = conds[r % len(conds):] + conds[:r % len(conds)]
            for cond in order:
                w = None
                if cond != "plain":
                    st0 = d.ctl_json("statistics")
                    w = Watchers(build, d, port, 0 if cond == "watched, nice 0" else 19,
                                 reading=cond != "attached, not reading")
                    nclib.wait_until(lambda: d.ctl_json("statistics")["monitors"] == 1,
                                     "monitor attached", 10)
                res[cond]["lat"].append(hit_latency(build, d))
                tput, cpu = throughput(build, d)
                res[cond]["tput"].append(tput)
                res[cond]["cpu"].append(cpu)
                if w:
                    w.stop()
                    st1 = d.ctl_json("statistics")
                    events[cond] += st1["monitor_events"] - st0["monitor_events"]
                    lost[cond] += st1["monitor_lost"] - st0["monitor_lost"]
                    scrapes += w.scrapes
                print("round %d %-21s hit %.2f us  pipelined %.0f/s, daemon CPU %.3f us each" % (
                    r + 1, cond, res[cond]["lat"][-1], tput, cpu), flush=True)
    finally:
        d.stop()
        fs.stop()
    out = {c: {k: summary(v) for k, v in m.items()} for c, m in res.items()}

    def within(c, k):
        p, w = out["plain"][k], out[c][k]
        return "yes" if w["min"] <= p["max"] and p["min"] <= w["max"] else "no"

    def row(c, k, unit, fmt):
        o = out[c][k]
        ratio = o["median"] / out["plain"][k]["median"]
        return "| %s | %s%s (%s-%s) | %.3f | %s |" % (
            c, fmt % o["median"], unit, fmt % o["min"], fmt % o["max"], ratio,
            "-" if c == "plain" else within(c, k))

    # µs each lookup costs more, watched: 1/throughput, less plain's.
    extra = [1e6 / out[c]["tput"]["median"] - 1e6 / out["plain"]["tput"]["median"]
             for c in ("watched", "watched, nice 0")]
    cpu_extra = [out[c]["cpu"]["median"] - out["plain"]["cpu"]["median"]
                 for c in ("watched", "watched, nice 0", "attached, not reading")]
    lines = [
        "# What watching costs: the monitor and the metrics (issue 23)",
        "",
        "`bench/run.sh --only observe` (bench/observe.py), %s, %d rounds of each "
        "condition, their order turning each round." % (time.strftime("%Y-%m-%d"), rounds),
        "",
        "One namecached (release build, `shared = no`: every hit reaches the daemon). "
        "*Watched*: `namecachectl monitor` attached and reading (its output to /dev/null), "
        "and GET /metrics once a second; the monitor at nice 19, or at nice 0, or "
        "attached and then stopped (SIGSTOP), so that its queue stays full. Hit "
        "latency: getaddrinfo through the NSS module of a cached name (bench/nss-lookup, "
        "median of 20,000 calls per round; the name has one IPv4 address, so getaddrinfo "
        "sorts nothing). Throughput: bench/nc-pipeline -c 4 -d 32, "
        "2 s per round; the daemon's CPU time per lookup over the same 2 s (utime and "
        "stime from /proc, in clock ticks). Medians over the rounds, and their range.",
        "",
        "| hit latency | median (min-max) | / plain | ranges overlap plain's |",
        "|---|---|---|---|",
    ] + [row(c, "lat", " µs", "%.2f") for c in conds] + [
        "",
        "| pipelined throughput | median (min-max) | / plain | ranges overlap plain's |",
        "|---|---|---|---|",
    ] + [row(c, "tput", "/s", "%.0f") for c in conds] + [
        "",
        "| daemon CPU per lookup, pipelined | median (min-max) | / plain | ranges overlap plain's |",
        "|---|---|---|---|",
    ] + [row(c, "cpu", " µs", "%.3f") for c in conds] + [
        "",
        "The monitor's events and losses while watched (lost: it did not read them in "
        "time; counted, never waited for): at nice 19, %d shown and %d lost; at nice 0, "
        "%d shown and %d lost. %d scrapes." % (
            events["watched"], lost["watched"], events["watched, nice 0"],
            lost["watched, nice 0"], scrapes),
        "",
        "Per lookup, at saturation, watching costs the daemon %.3f µs of CPU more at "
        "nice 19 (%.3f at nice 0, %.3f with the monitor stopped): at 10,000 lookups a "
        "second, %.2f%% of a core." % (cpu_extra[0], cpu_extra[1], cpu_extra[2],
                                         cpu_extra[0]),   # x µs * 1e4/s = x%
        "",
        "This machine has 2 cores, which the load generator and the daemon fill at "
        "saturation: a monitor that reads and formats a line for every lookup takes a "
        "share of them, whatever the daemon does, and the throughput falls by that share "
        "(%.2f and %.2f µs more per lookup, 1/throughput, at nice 19 and 0). The daemon's "
        "own cost is the CPU row: a copy of the request's name and the reply into the "
        "monitor's queue; when the queue is full (the stopped monitor), a count." % (
            extra[0], extra[1]),
        "",
    ]
    os.makedirs(docs, exist_ok=True)
    with open(os.path.join(docs, "benchmarks-observe.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
