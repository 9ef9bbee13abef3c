#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/load.py - the bounded load test: 100 client processes against namecached (issue 7).

Starts, on loopback only, an nsd serving a wildcard zone (response rate
limiting off) and a namecached of its own (a socket, hosts file and
resolv.conf in a temporary folder, --upstream 127.0.0.1:PORT), caches the
DNS hit names, then runs bench/load (the C driver): PROCS processes, each
on its own connection, one request at a time, 80% hits (hosts names and
cached DNS names), 15% misses (a new name each time, answered by nsd),
5% admin reads (statistics, status), for SECONDS or COUNT requests per
process, whichever ends first.  Then it checks that the daemon is still
running, stops it (SIGTERM, exit 0) and nsd, and reports throughput and
latency per kind, and requests sent / answered / errors / lost.

    bench/load.py --build DIR [--procs 100] [--seconds 60] [--count N]
                  [--docs docs/load.md] [--check] [--note TEXT]

--docs writes the Markdown report there; --check exits 1 when a request
was lost, a hit or miss got an error, or the daemon died (the CI variant:
--seconds 5).  Run it through bench/load.sh for the documented figures.
"""
import argparse
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import nclib  # noqa: E402
from nclib import dnsenv  # noqa: E402

ZONE = """$TTL 3600
load.example.	3600 IN SOA ns.load.example. admin.load.example. 1 3600 600 86400 3600
load.example.	3600 IN NS ns.load.example.
ns.load.example.	3600 IN A 127.0.0.1
*.load.example.	3600 IN A 192.0.2.1
*.load.example.	3600 IN A 192.0.2.2
"""
HOSTS = """127.0.0.1\tlocalhost
::1\tlocalhost ip6-localhost ip6-loopback
192.0.2.10\tweb.lan web
192.0.2.11\tdb.lan db
192.0.2.12\tmail.lan mail
192.0.2.13\tbuild.lan build
"""
HOSTS_HITS = ["web.lan", "db", "mail.lan", "build"]
DNS_HITS = ["www.load.example", "api.load.example", "cdn.load.example",
            "static.load.example"]
MISS_ZONE = "miss.load.example"


def parse(out):
    """bench/load's key=value lines: {"run": {...}, "hit": {...}, ...}."""
    res = {}
    for line in out.splitlines():
        if not line.startswith("load: "):
            continue
        kv = dict(w.split("=", 1) for w in line[6:].split())
        key = kv.pop("kind", "run")
        res[key] = {k: (float(v) if re.fullmatch(r"[0-9.]+", v) else v) for k, v in kv.items()}
    return res


def other_load():
    """Busy processes on the machine that are not this run's (a fuzzer, say)."""
    me = os.getpid()
    busy = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            with open("/proc/%s/comm" % pid) as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm.startswith("fuzz") or "valgrind" in comm or comm.startswith("memcheck"):
            busy.append(comm)
    return sorted(set(busy))


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def fmt_us(us):
    return "%.0f µs" % us if us < 1000 else "%.2f ms" % (us / 1000)


def report(res, a, info):
    run, tot = res["run"], res["total"]
    secs = run["seconds"]
    lines = [
        "# Load test: %d client processes, mixed hits, misses and admin reads" % int(run["procs"]),
        "",
        "Issue 7's bounded load test. Produced by `%s` on %s; do not edit by hand." % (
            info["command"], info["date"]),
        "",
        "- **Machine**: %s CPUs (`nproc`), %s, kernel %s." % (
            os.cpu_count(), info["cpu"], platform.release()),
        "- **Build**: `%s` (%s)." % (info["build"], info["buildtype"]),
        "- **Other load during the run**: %s; load average %s before, %s after." % (
            info["others"], info["load_before"], info["load_after"]),
        "- **Set-up, loopback only**: nsd on 127.0.0.1:%d serving `*.load.example` (two A "
        "records, TTL 3600; response rate limiting off); namecached with its own socket, "
        "hosts file and resolv.conf in a temporary folder, `--upstream 127.0.0.1:%d`, "
        "default config (cache_size 100000). The DNS hit names were asked once before the "
        "run, so they are cached." % (info["nsd_port"], info["nsd_port"]),
        "- **Clients** (`bench/load`): %d processes, each with its own connection, one "
        "request at a time (as an NSS client), for %.0f s or %d requests each, whichever "
        "ends first. Each request is, at random: a **hit** (%d%%: one of %s from the "
        "hosts file, or %s, cached), a **miss** (%d%%: a name never asked before, "
        "`m<seq>-<worker>.%s`, answered by nsd) or an **admin read** (%d%%: `STATISTICS` "
        "or `STATUS` over the protocol, open to all). Family AF_INET for lookups. A "
        "request not answered within %.0f ms, or whose connection closes, is **lost**." % (
            int(run["procs"]), a.seconds, a.count, a.mix[0], ", ".join(HOSTS_HITS),
            ", ".join(DNS_HITS), a.mix[1], MISS_ZONE, a.mix[2], run["timeout_ms"]),
        "",
        "## Results",
        "",
        "| kind | sent | answered | errors | lost | throughput | median | p90 | p99 | p99.9 | max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k in ("hit", "miss", "admin", "total"):
        r = res[k]
        lines.append("| %s | %d | %d | %d | %d | %.0f /s | %s | %s | %s | %s | %s |" % (
            "**total**" if k == "total" else k, r["sent"], r["answered"], r["errors"],
            r["lost"], r["per_sec"], fmt_us(r["p50_us"]), fmt_us(r["p90_us"]),
            fmt_us(r["p99_us"]), fmt_us(r["p999_us"]), fmt_us(r["max_us"])))
    src = dict(x.split(":") for x in run["hit_sources"].split(","))
    lines += [
        "",
        "**Lost: %d** of %d requests in %.1f s (%d reconnects, %d workers unfinished). "
        "Errors by status: %s." % (
            tot["lost"], tot["sent"], secs, run["reconnects"], run["unfinished"],
            ", ".join("%s %d" % (k, v) for k, v in sorted(info["statuses"].items())) or
            "none"),
        "",
        "Hits were answered from: hosts %s, cache %s, dns %s, stale %s (a cached name "
        "the LRU had evicted would come from dns). Latency is measured by each client "
        "from its send to the whole reply, into histograms of about 3%% resolution; "
        "throughput is answers and error replies per second of the whole run." % (
            src["hosts"], src["cache"], src["dns"], src["stale"]),
        "",
        "Every client waits for its reply before it sends again, so the daemon (one event "
        "loop) is saturated and latency is mostly queueing: mean latency = processes ÷ "
        "throughput (Little's law), here %d ÷ %.0f/s = %.2f ms, measured %.2f ms." % (
            int(run["procs"]), tot["per_sec"], 1000 * run["procs"] / max(tot["per_sec"], 1),
            tot["mean_us"] / 1000),
        "",
        "Daemon: %s; RSS %d KiB before, %d KiB after; statistics after the run: %s." % (
            info["daemon_end"], info["rss0"], info["rss1"], info["stats"]),
        "",
        "Reproduce: `sudo bench/load.sh` (a release build in build-load-rel/, about 90 s). "
        "The CI variant is the same with `--seconds 5 --check` on the test build.",
        "",
    ]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--procs", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--count", type=int, default=1000000, help="requests per process at most")
    ap.add_argument("--mix", default="80,15,5", help="hit,miss,admin percentages")
    ap.add_argument("--timeout-ms", type=int, default=5000)
    ap.add_argument("--docs", help="write the Markdown report to this file")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless nothing was lost and hits and misses all answered")
    ap.add_argument("--note", default="", help="added to the report's 'other load' line")
    a = ap.parse_args()
    a.mix = [int(x) for x in a.mix.split(",")]
    build = os.path.abspath(a.build)
    binary = os.path.join(build, "bench", "load")
    ok = True
    with tempfile.TemporaryDirectory(prefix="nc-load-") as tmp:
        zonefile = os.path.join(tmp, "load.example.zone")
        with open(zonefile, "w") as f:
            f.write(ZONE)
        nsd = dnsenv.Nsd(os.path.join(tmp, "nsd"), zones=[("load.example.", zonefile)],
                      addresses=["127.0.0.1"], minimal_responses=True, rrl=False)
        d = None
        try:
            d = nclib.Daemon(build, tmp, HOSTS, "", upstream="127.0.0.1:%d" % nsd.port).start()
            st = d.ctl_json("status")
            assert st["dns_servers"] == "127.0.0.1:%d" % nsd.port, st
            for name in DNS_HITS:
                j = d.ctl_json("query", "-4", name)
                assert sorted(j["addresses"]) == ["192.0.2.1", "192.0.2.2"], j
            others = other_load()
            info = {
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "command": os.environ.get("NAMECACHE_LOAD_COMMAND") or
                "bench/load.py " + " ".join(shlex.quote(x) for x in sys.argv[1:]),
                "build": os.path.relpath(build, os.path.join(HERE, "..")),
                "others": "%s%s" % (
                    ("running at the start, competing for the CPUs: %s" %
                     ", ".join(others)) if others else "none seen (no fuzzer, no valgrind)",
                    ("; " + a.note) if a.note else ""),
                "load_before": loadavg(),
                "nsd_port": nsd.port,
                "rss0": nclib.rss_kib(d.proc.pid),
            }
            info["cpu"] = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                                if ln.startswith("model name")), "unknown CPU")
            bt = ""
            try:
                with open(os.path.join(build, "meson-info", "intro-buildoptions.json")) as f:
                    opts = {o["name"]: o["value"] for o in json.load(f)}
                bt = "buildtype %s, b_sanitize %s" % (opts.get("buildtype"),
                                                      opts.get("b_sanitize"))
            except (OSError, ValueError, KeyError):
                bt = "buildtype unknown"
            info["buildtype"] = bt
            argv = [binary, "-p", str(a.procs), "-t", str(a.seconds), "-n", str(a.count),
                    "-m", ",".join(map(str, a.mix)), "-T", str(a.timeout_ms), d.sock,
                    ",".join(HOSTS_HITS + DNS_HITS), MISS_ZONE]
            print("bench/load.py: %s" % " ".join(argv), flush=True)
            r = subprocess.run(argv, capture_output=True, text=True,
                               timeout=a.seconds + a.timeout_ms / 1000 + 60)
            sys.stdout.write(r.stdout)
            sys.stderr.write(r.stderr[-5000:])
            info["load_after"] = loadavg()
            alive = d.proc.poll() is None
            info["rss1"] = nclib.rss_kib(d.proc.pid) if alive else 0
            s = d.ctl_json("statistics") if alive else {}
            info["stats"] = ", ".join("%s %s" % (k, s.get(k)) for k in (
                "requests", "cache_entries", "cache_hits", "cache_misses",
                "cache_evictions", "upstream_queries", "bad_requests")) if s else "none"
            rc = d.stop()
            info["daemon_end"] = ("still running at the end, then exit %s on SIGTERM" % rc
                                  if alive else "DIED (exit %s)" % rc)
            d = None
            res = parse(r.stdout)
            if not all(k in res for k in ("run", "hit", "miss", "admin", "total")):
                print("bench/load.py: bench/load failed (exit %d)" % r.returncode,
                      file=sys.stderr)
                return 1
            info["statuses"] = {}
            names = {1: "notfound", 2: "nodata", 3: "tryagain", 4: "badrequest",
                     5: "badname", 6: "unsupported", 7: "denied", 8: "toobig",
                     9: "internal", 10: "busy"}
            for k in ("hit", "miss", "admin"):
                for key, v in res[k].items():
                    if key.startswith("status_"):
                        n = int(key[7:])
                        lbl = "%s %s" % (k, names.get(n, "status %d" % n))
                        info["statuses"][lbl] = info["statuses"].get(lbl, 0) + int(v)
            tot = res["total"]
            print("bench/load.py: sent %d, answered %d, errors %d, lost %d; %.0f requests/s; "
                  "p99 hit %s, miss %s, admin %s; daemon %s" % (
                      tot["sent"], tot["answered"], tot["errors"], tot["lost"],
                      tot["per_sec"], fmt_us(res["hit"]["p99_us"]),
                      fmt_us(res["miss"]["p99_us"]), fmt_us(res["admin"]["p99_us"]),
                      info["daemon_end"]))
            if tot["sent"] != tot["answered"] + tot["errors"] + tot["lost"]:
                print("bench/load.py: counts do not add up", file=sys.stderr)
                ok = False
            if tot["lost"] or r.returncode != 0 or not alive or rc != 0:
                ok = False
            if a.check and (res["hit"]["errors"] or res["miss"]["errors"] or
                            res["admin"]["errors"] or tot["answered"] == 0 or
                            min(res[k]["answered"] for k in ("hit", "miss", "admin")) == 0):
                print("bench/load.py: errors, or a kind never answered", file=sys.stderr)
                ok = False
            if a.docs:
                with open(a.docs, "w") as f:
                    f.write(report(res, a, info))
                print("bench/load.py: wrote %s" % a.docs)
        finally:
            if d is not None:
                d.stop()
            nsd.stop()
    print("bench/load.py: %s" % ("PASS: no request lost" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
