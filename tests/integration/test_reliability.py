#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/integration/test_reliability.py - reliability, round 2 (issue 12).

Each test here failed on the code before its fix; the commit that made it
pass says so, with the figures.

  * BUSY: with max_fetches upstream resolutions in flight, one more gets
    PROTO_BUSY at once, not TRYAGAIN ("upstream DNS failed") after a
    timeout; the NSS module then says UNAVAIL and glibc carries on itself;
  * (a prefetch nobody waits for republishes its answer in the shared
    segment: the engine's, on a fake clock, TTL-CASES.md case 15);
  * one rule for "the shared segment, then the socket" (ncc_shared_answer),
    checked from the NSS module and from libnamecache.

Each daemon has a FaultServer on 127.0.0.1 as its only upstream.

Run: /usr/bin/python3 tests/integration/test_reliability.py --build BUILD [-k NAME]
"""
import os
import re
import socket
import struct
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
BUSY = 10


def test(fn):
    TESTS.append(fn)
    return fn


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.servers = []
        self.daemons = []

    def fault(self):
        s = dnsenv.FaultServer()
        s.set_default("nxdomain", soa=True)
        self.servers.append(s)
        return s

    def daemon(self, fs, conf=""):
        d = nclib.Daemon(BUILD, self.tmp, conf_text=conf, upstream="127.0.0.1:%d" % fs.port)
        self.daemons.append(d)
        return d.start()


@test
def busy_when_the_fetch_table_is_full(env):
    fs = env.fault()
    fs.set_default("timeout")       # never answers: fetches stay in flight
    # c-ares's longest timeout: the 4 stay in flight for the whole test.
    resolv = os.path.join(env.tmp, "resolv-long.conf")
    with open(resolv, "w") as f:
        f.write("nameserver 127.0.0.1\noptions timeout:30 attempts:1\n")
    d = nclib.Daemon(BUILD, env.tmp, conf_text="max_fetches = 4\n", resolv=resolv,
                     upstream="127.0.0.1:%d" % fs.port)
    env.daemons.append(d)
    d.start()
    held = []
    for i in range(4):               # A and AAAA: 2 fetches per AF_UNSPEC name
        s = nclib.connect(d, 30)
        s.sendall(nclib.name_req("held%d.busy.test" % i, family=4))
        held.append(s)
    nclib.wait_until(lambda: d.ctl_json("statistics")["upstream_in_flight"] == 4,
                     "the 4 fetches in flight")
    statuses = []
    for i in range(6):
        with nclib.connect(d, 30) as s:
            s.sendall(nclib.name_req("more%d.busy.test" % i, family=4))
            statuses.append(nclib.read_frame(s)["status"])
    print("6 lookups past max_fetches = 4: statuses %s" % statuses)
    assert statuses == [BUSY] * 6, statuses
    # At once, not after a DNS timeout: none of them was asked upstream,
    # while the 4 are still in flight.
    st = d.ctl_json("statistics")
    assert st["busy"] == 6 and st["upstream_in_flight"] == 4, st
    assert [k for k in fs.counts() if k[0].startswith("more")] == [], fs.counts()
    # The NSS module hears BUSY as "ask the rest of the line yourself".
    r = d.getent("ahostsv4", "more9.busy.test", service="namecache [!UNAVAIL=return] files")
    assert r.returncode == 2, r
    for s in held:
        s.close()


def timed_getent(d, *args, service="namecache [!UNAVAIL=return] files"):
    """getent through the module: (exit status, seconds); a hang fails the test."""
    t0 = time.monotonic()
    r = subprocess.run(["getent", "-s", service] + list(args), capture_output=True, text=True,
                       env=nclib.nss_env(d.build, d.sock), timeout=nclib.HUNG_SEC)
    return r.returncode, time.monotonic() - t0


@test
def hung_daemon_falls_through(env):
    """SIGSTOP the daemon with its socket listening: lookups waiting on it
    and lookups made then give up within NCC_HUNG_MS (3 s) of its last beat
    and fall through to the rest of the line; a live daemon that waits on a
    slow upstream is waited for, however long."""
    fs = env.fault()
    fs.set_default("timeout")
    fs.set("slow.test", "slow", delay=4.2)
    resolv = os.path.join(env.tmp, "resolv-slow.conf")
    with open(resolv, "w") as f:
        f.write("nameserver 127.0.0.1\noptions timeout:6 attempts:1\n")
    d = nclib.Daemon(BUILD, env.tmp, resolv=resolv, upstream="127.0.0.1:%d" % fs.port)
    env.daemons.append(d)
    d.start()
    # Alive and beating: 4.2 s of upstream (the server's own delay) is
    # waited out, past NCC_HUNG_MS.  The files module knows no slow.test:
    # exit 0 says the daemon's answer was waited for, not the rest of the line.
    rc, took = timed_getent(d, "ahostsv4", "slow.test")
    print("slow upstream, live daemon: exit %d after %.2f s" % (rc, took))
    assert rc == 0, (rc, took)
    assert fs.count("slow.test") == 1, fs.counts()
    # A lookup in flight when the daemon stops, and getent hosts (both
    # families) after.
    out = {}

    def waiting():
        out["inflight"] = timed_getent(d, "ahostsv4", "inflight.test")

    t = threading.Thread(target=waiting)
    t.start()
    nclib.wait_until(lambda: fs.count("inflight.test") >= 1, "the lookup in flight upstream")
    os.kill(d.proc.pid, 19)          # SIGSTOP
    stopped = time.monotonic()
    try:
        t.join(nclib.HUNG_SEC)
        fell_through = not t.is_alive()
        after = time.monotonic() - stopped
        out["hosts"] = timed_getent(d, "hosts", "later.test")
        out["ahosts"] = timed_getent(d, "ahosts", "later2.test")
    finally:
        os.kill(d.proc.pid, 18)      # SIGCONT
    print("daemon stopped: the lookup in flight fell through %.2f s after the stop "
          "(the last beat was up to 1 s before it); getent hosts after: %.2f s, "
          "ahosts: %.2f s" % (after, out["hosts"][1], out["ahosts"][1]))
    # All three answered by the rest of the line (not found: exit 2) while
    # the daemon was still stopped: nobody waited for it to come back.
    assert fell_through and out["inflight"][0] == 2, out
    assert out["hosts"][0] == 2 and out["ahosts"][0] == 2, out
    # Back: answers again, as soon as it beats.
    nclib.wait_until(lambda: d.ctl("query", "slow.test").returncode == 0,
                     "the daemon answering again after SIGCONT")


@test
def one_rule_for_shared_then_socket(env):
    """A record that decodes answers from the segment; anything else goes to
    the socket, the same from the NSS module and from libnamecache."""
    fs = env.fault()
    fs.set("rule.test", "answer", ttl=60)
    d = env.daemon(fs)
    requests = lambda: d.ctl_json("statistics")["requests"]    # noqa: E731
    assert d.getent("ahosts", "rule.test").returncode == 0
    assert d.getent("ahosts", "nx.rule.test").returncode == 2
    base = requests()
    for _ in range(3):
        assert d.getent("ahosts", "rule.test").returncode == 0
        assert d.getent("ahosts", "nx.rule.test").returncode == 2
    assert requests() == base + 1, "positive and negative records answer from the segment"
    # libnamecache, through namecachectl query (which asks with NAMECACHE_NO_SHARED
    # off): a hit too.
    q = d.ctl_json("query", "rule.test")
    assert q["source"] == "cache", q


@test
def resets_off_the_loop(env):
    """A reset is a rename of a segment a helper thread made ahead: the
    loop's longest reset, as the daemon measures it (shared_reset_max_usec)
    and as a client pinging it sees it, at the default 16 MiB and at
    128 MiB, on tmpfs (/dev/shm, as /run), where posix_fallocate costs what
    it does in /run.  The old daemon made each new segment on the loop:
    about 3 ms at 16 MiB, tens of ms at 128 MiB."""
    import shutil
    import tempfile
    fs = env.fault()
    for mb in (16, 128):
        run = tempfile.mkdtemp(prefix="nc-rel-", dir="/dev/shm")
        try:
            d = nclib.Daemon(BUILD, env.tmp, conf_text="shared_size_mb = %d\n" % mb,
                             upstream="127.0.0.1:%d" % fs.port)
            d.sock = os.path.join(run, "sock")
            env.daemons.append(d)
            d.start()
            worst = [0.0]
            pings = [0]
            stop = threading.Event()

            def pinger():
                with nclib.connect(d, 10) as s:
                    i = 0
                    while not stop.is_set():
                        i += 1
                        t0 = time.monotonic()
                        s.sendall(nclib.name_req("localhost", 4, i))
                        assert nclib.read_frame(s)["status"] == nclib.OK
                        worst[0] = max(worst[0], time.monotonic() - t0)
                        pings[0] = i

            t = threading.Thread(target=pinger)
            t.start()
            nclib.wait_until(lambda: pings[0] > 0, "the pinger answered")
            for _ in range(8):
                # The helper has made the next spare.
                nclib.wait_until(lambda: spare_ready(run), "a spare segment made ahead")
                assert d.ctl("flush-caches").returncode == 0
            stop.set()
            t.join()
            st = d.ctl_json("statistics")
            print("shared_size_mb = %d: %d resets, %d of them a segment made ahead; the "
                  "longest %.3f ms on the loop; a client's slowest ping %.2f ms" % (
                      mb, st["shared_resets"], st["shared_resets_ahead"],
                      st["shared_reset_max_usec"] / 1e3, worst[0] * 1e3))
            assert st["shared_resets"] >= 8, st
            # The times are logged, not asserted (a loaded machine preempts
            # the loop mid-reset); what is asserted is that the loop did not
            # make the segments itself: each reset but perhaps one (a spare
            # not yet ready) installed one the helper made ahead.  Target
            # for the time: under 1 ms; the old daemon's fallocate on the
            # loop took 3 ms per 16 MiB.
            assert st["shared_resets_ahead"] >= st["shared_resets"] - 1, st
            d.stop()
            env.daemons.remove(d)
        finally:
            shutil.rmtree(run, ignore_errors=True)


SHM_MAGIC = 0x3130484d53434e00      # proto/shmfmt.h


def spare_ready(run):
    """Whether the daemon's helper has a spare segment ready: a cache.XXXXXX
    beside the segment (daemon/engine/shm.c prepare()) whose header is written to
    its last store, the generation (proto/shmfmt.h's struct shm_header)."""
    for f in os.listdir(run):
        if not re.fullmatch(r"cache\.\w{6}", f):
            continue
        try:
            with open(os.path.join(run, f), "rb") as fh:
                h = fh.read(96)
        except FileNotFoundError:
            continue
        if len(h) == 96 and struct.unpack_from("<Q", h, 0)[0] == SHM_MAGIC and \
                struct.unpack_from("<I", h, 36)[0] == 1 and struct.unpack_from("<Q", h, 24)[0]:
            return True
    return False


@test
def invalidate_keeps_other_hits(env):
    """invalidate NAME retires that name's records only: every other name
    stays a hit in the shared segment.  The old daemon reset the segment."""
    fs = env.fault()
    for n in ("a", "b", "c"):
        fs.set("%s.inv.test" % n, "answer", ttl=300)
    d = env.daemon(fs)
    requests = lambda: d.ctl_json("statistics")["requests"]    # noqa: E731
    for n in ("a", "b", "c"):
        assert d.getent("ahosts", "%s.inv.test" % n).returncode == 0
    assert d.ctl("invalidate", "B.inv.test").returncode == 0
    base = requests()
    for n in ("a", "c", "a", "c"):
        assert d.getent("ahosts", "%s.inv.test" % n).returncode == 0
    mid = requests()
    assert d.getent("ahosts", "b.inv.test").returncode == 0     # asked again
    assert d.getent("ahosts", "b.inv.test").returncode == 0     # published again
    after = requests()
    print("after invalidate b: 4 lookups of a and c cost %d requests; b %d for two" %
          (mid - base - 1, after - mid - 1))
    assert mid - base == 1, (base, mid)
    assert after - mid == 2, (mid, after)
    assert fs.count("b.inv.test", "A") == 2


def main():
    def set_build(b):
        global BUILD
        BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-rel-", set_build)


if __name__ == "__main__":
    sys.exit(main())
