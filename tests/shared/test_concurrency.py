#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/shared/test_concurrency.py - many readers of the shared segment while the daemon churns.

Reader processes (shared-hammer, several threads each; one of them built
with ThreadSanitizer when the build has it) look names up as the NSS
module does and check every answer, while this driver makes the daemon
publish new answers, flush, invalidate, reload the hosts file (rename-over
and in-place appends), reload on SIGHUP, and restart (SIGTERM, and
SIGKILL), and sends bursts of DNS lookups in many spellings.  The daemon
runs with a small cache_size, so its segment has 1024 slots and resets
every time a probe window fills, and its DNS cache evicts.  A miss or a failed socket call is allowed; a wrong or torn answer
is not (shared-hammer exits 1), nor a ThreadSanitizer report, nor a
daemon that does not exit 0 on SIGTERM.  DNS is a FaultServer on
127.0.0.1: nothing leaves loopback.

With --nscd, the readers are nscd-hammer instead: glibc's own nscd
client (getaddrinfo, gethostbyname2_r, gethostbyaddr_r) in a private
mount namespace where /etc/nsswitch.conf says "hosts: files" and
namecached answers on /var/run/nscd/socket (tests/nclib.py,
enter_nscd_namespace).  shared_size_mb = 2 there, so the bursts of
spellings grow its hosts database from 1 to 2 MiB and then make it
compact and start anew, all while glibc reads it.

Run: /usr/bin/python3 tests/shared/test_concurrency.py --build BUILD [--seconds 20] [--nscd]
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import nclib  # noqa: E402
import dnsenv  # noqa: E402

NHOSTS, NVARY, NDNS, NNEG = 120, 40, 60, 20
DNS_TTL = 3


def addr(base, i):
    return "10.%d.%d.%d" % (base, i >> 8, i & 255)


def hosts_text(vary):
    lines = ["127.0.0.1 localhost"]
    lines += ["%s h%d.hosts.test" % (addr(1, i), i) for i in range(NHOSTS)]
    lines += ["%s v%d.hosts.test" % (addr(2, i), i) for i in sorted(vary)]
    return "\n".join(lines) + "\n"


class Churn:
    """What the driver does to the daemon, one action at a time."""

    def __init__(self, d, rnd):
        self.d = d
        self.rnd = rnd
        self.vary = set(range(0, NVARY, 2))
        self.done = {}
        self.problems = []
        self.totals = {}

    KEYS = ("shared_published", "shared_resets", "shared_full", "requests", "prefetches",
            "cache_evictions", "nscd_published", "nscd_requests_getai",
            "nscd_requests_gethostbyname", "nscd_fds_sent", "nscd_grown", "nscd_compactions",
            "nscd_resets", "nscd_full", "nscd_swept", "nscd_refreshes")

    def add_stats(self):
        """Adds the daemon's counters to the totals (before it restarts, and at the end)."""
        r = self.d.ctl("--json", "statistics")
        if r.returncode == 0:
            st = json.loads(r.stdout)
            for k in self.KEYS:
                self.totals[k] = self.totals.get(k, 0) + st.get(k, 0)

    def count(self, what):
        self.done[what] = self.done.get(what, 0) + 1

    def rename_hosts(self):
        self.vary = set(i for i in range(NVARY) if self.rnd.random() < 0.5)
        tmp = self.d.hosts + ".new"
        with open(tmp, "w") as f:
            f.write(hosts_text(self.vary))
        os.rename(tmp, self.d.hosts)
        self.count("hosts rename-over")

    def append_hosts(self):
        new = [i for i in range(NVARY) if i not in self.vary][:5]
        with open(self.d.hosts, "a") as f:
            f.write("".join("%s v%d.hosts.test\n" % (addr(2, i), i) for i in new))
        self.vary.update(new)
        self.count("hosts append in place")

    def ctl(self, *args):
        r = self.d.ctl(*args)
        if r.returncode not in (0, 1, 3):
            self.problems.append("namecachectl %s: %d %s" % (args, r.returncode, r.stderr))
        return r

    def query(self):
        names = ["d%d.dns.test" % self.rnd.randrange(NDNS) for _ in range(5)]
        names += ["h%d.hosts.test" % self.rnd.randrange(NHOSTS)]
        self.ctl("query", *names)
        self.count("queries")

    def spellings(self, pattern, n, count, upper, family):
        """n random-case spellings of pattern % a random index below count,
        asked pipelined on one connection (a restarting daemon may cut it)."""
        frames = []
        for fid in range(1, n + 1):
            name = "".join(c.upper() if self.rnd.random() < upper else c
                           for c in pattern % self.rnd.randrange(count))
            frames.append(nclib.name_req(name, family=family, fid=fid))
        try:
            with nclib.connect(self.d) as s:
                s.sendall(b"".join(frames))
                for _ in frames:
                    if nclib.read_frame(s) is None:
                        break
        except OSError:
            pass        # the daemon is restarting

    def burst(self):
        """Many spellings of cached DNS names at once, pipelined: each is a new
        record (DNS answers match as spelled), so probe windows fill and the
        segment starts anew while readers read it."""
        self.spellings("d%d.dns.test", 1500, NDNS, 0.3, 4)
        self.count("bursts of 1500 spellings")

    def burst_hosts(self):
        """For the nscd database: 3000 spellings of hosts names, AF_UNSPEC.
        Hosts answers last until the file changes, and glibc's keys are
        exact, so each is a record that stays: the database grows."""
        self.spellings("h%d.hosts.test", 3000, NHOSTS, 0.5, 0)
        self.count("bursts of 3000 hosts spellings")

    def flush(self):
        self.ctl("flush-caches")
        self.count("flush-caches")

    def invalidate(self):
        self.ctl("invalidate", "d%d.dns.test" % self.rnd.randrange(NDNS))
        self.count("invalidate")

    def sighup(self):
        self.d.proc.send_signal(signal.SIGHUP)
        self.count("SIGHUP")

    def restart(self):
        self.add_stats()
        rc = self.d.stop()
        if rc != 0:
            self.problems.append("daemon exit status %s on SIGTERM" % rc)
        self.d.start()
        self.count("restart (SIGTERM)")

    def kill(self):
        self.add_stats()
        self.d.proc.kill()
        self.d.proc.wait()
        self.d.logf.close()
        self.d.logf = None
        self.d.start()
        self.count("restart (SIGKILL)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=3)
    ap.add_argument("--nscd", action="store_true",
                    help="readers through glibc's nscd client (root)")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    hammer = os.path.join(build, "tests", "shared", "shared-hammer")
    tsan = os.path.join(build, "tests", "shared", "shared-hammer-tsan")
    daemon_args, conf = [], "cache_size = 200\n"
    if args.nscd:
        nclib.enter_nscd_namespace()
        hammer = os.path.join(build, "tests", "nscd", "nscd-hammer")
        tsan = None     # glibc's client is the reader: nothing of ours to instrument
        daemon_args = ["--nscd-socket", "/var/run/nscd/socket"]
        conf += "shared_size_mb = 2\n"
    t_all = time.monotonic()
    failed = []
    rnd = random.Random(int(os.environ.get("SHARED_TEST_SEED", "0")) or None)

    with tempfile.TemporaryDirectory(prefix="nc-shared-") as tmp, \
            dnsenv.FaultServer() as fs:
        fs.set_default("nxdomain", soa=True, soa_ttl=2, minimum=2)
        for i in range(NDNS):
            fs.set("d%d.dns.test" % i, "answer", records=[
                ("A", DNS_TTL, addr(3, i)), ("AAAA", DNS_TTL, "2001:db8::3:%x" % i)])
        churn = None
        d = nclib.Daemon(build, tmp, hosts_text(set(range(0, NVARY, 2))),
                         conf_text=conf, upstream="127.0.0.1:%d" % fs.port, args=daemon_args)
        d.start()
        try:
            churn = Churn(d, rnd)
            st = d.ctl_json("status")
            assert st["shared"] == "yes", st
            print("daemon: %d shared slots, %d bytes of records" %
                  (st["shared_slots"], st["shared_data_bytes"]))
            cmds = [([hammer], {})] * args.procs
            if tsan is None:
                pass
            elif os.path.exists(tsan):
                cmds.append(([tsan], {"TSAN_OPTIONS": "halt_on_error=0 exitcode=66 "
                                                      "second_deadlock_stack=1"}))
            else:
                print("no ThreadSanitizer build of shared-hammer (a sanitizer build?)")
            procs = []
            for argv, extra in cmds:
                env = dict(os.environ, **extra)
                env.pop("LD_PRELOAD", None)
                p = subprocess.Popen(argv + [d.sock, str(args.seconds), str(args.threads),
                                             str(NHOSTS), str(NVARY), str(NDNS), str(NNEG)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)
                procs.append((os.path.basename(argv[0]), p))
            actions = [churn.query, churn.flush, churn.rename_hosts, churn.query,
                       churn.invalidate, churn.append_hosts, churn.sighup, churn.query,
                       churn.burst]
            if args.nscd:
                actions += [churn.burst_hosts] * 2
                churn.burst_hosts()
                churn.burst_hosts()
            deadline = time.monotonic() + args.seconds - 1
            n = 0
            while time.monotonic() < deadline:
                time.sleep(0.3)
                n += 1
                if n % 20 == 10:
                    churn.restart()
                elif n % 20 == 0:
                    churn.kill()
                else:
                    rnd.choice(actions)()
            churn.add_stats()
            for name, p in procs:
                try:
                    out, err = p.communicate(timeout=args.seconds + 60)
                except subprocess.TimeoutExpired:
                    p.kill()
                    out, err = p.communicate()
                    failed.append("%s did not finish" % name)
                print("%s: exit %s: %s" % (name, p.returncode, out.strip()))
                if err.strip():
                    print("---- %s stderr ----\n%s" % (name, err.strip()[-6000:]))
                if p.returncode != 0:
                    failed.append("%s exited %s" % (name, p.returncode))
                if "ThreadSanitizer" in err:
                    failed.append("%s: ThreadSanitizer report" % name)
                if args.nscd:
                    m = re.search(r"lookups=(\d+) found=(\d+)", out)
                    lookups_total = getattr(churn, "lookups_total", 0)
                    churn.lookups_total = lookups_total + (int(m.group(1)) if m else 0)
                    if not m or int(m.group(2)) == 0:
                        failed.append("%s: nothing found through glibc's client" % name)
                    continue
                m = re.search(r"lookups=(\d+) hits=(\d+)", out)
                if not m or int(m.group(2)) == 0:
                    failed.append("%s: no hit from the shared segment at all" % name)
            print("driver: " + ", ".join("%s %d" % kv for kv in sorted(churn.done.items())))
            print("daemon (all runs): " + ", ".join(
                "%s %d" % (k, churn.totals.get(k, 0)) for k in Churn.KEYS))
            if args.nscd:
                # Every hammer lookup makes 2 hostent or GETAI requests at
                # most; far fewer reached the socket: the rest were read from
                # the mapping while it changed under them.
                asked = churn.totals.get("nscd_requests_getai", 0)
                print("glibc's client: %d getaddrinfo calls, %d reached the socket (%.1f%% "
                      "read from the mapping)" % (churn.lookups_total, asked,
                                                  100 - 100.0 * asked / max(1, churn.lookups_total)))
                if asked >= churn.lookups_total:
                    failed.append("no getaddrinfo was answered from the mapping")
                if churn.totals.get("nscd_grown", 0) + churn.totals.get("nscd_compactions", 0) \
                        + churn.totals.get("nscd_full", 0) == 0:
                    failed.append("the hosts database never grew, compacted or filled")
            failed += churn.problems
            if d.proc.poll() is not None:
                failed.append("daemon died: exit %s" % d.proc.returncode)
        finally:
            rc = d.stop()
            if rc != 0:
                failed.append("daemon exit status %s on SIGTERM" % rc)
            if failed:
                print("---- daemon log (tail) ----\n" + d.read_log()[-4000:])
    for f in failed:
        print("FAIL: " + f)
    print("%s (%.1f s)" % ("FAILED" if failed else "ok   shared-concurrency",
                           time.monotonic() - t_all))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
