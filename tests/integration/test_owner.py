#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/integration/test_owner.py - one daemon per folder and per store (issue 33).

The shared segment ("cache"), the store ("store") and glibc's maps are
named after the socket's folder; the daemon that owns them holds a lock
there ("lock", daemon/lockfile.c), and persistent_cache's store has one of
its own (STORE.lock), taken before anything they guard is touched:

  * a second daemon on another socket of the same folder refuses to start
    (exit 1), with one line naming the folder and the running daemon's
    pid; the first one's readers keep every hit from its segment, counted
    by the first daemon's lookups (lookups_name + lookups_addr, as
    test_shared.py counts them), before, while the second is attempted,
    and after it exited; the segment is the same file, generation and
    state, the store the same file;
  * two daemons of two folders on one persistent_cache: the second
    refuses with the store's path and the first one's pid, and leaves
    nothing in its own folder;
  * after a SIGKILL of the owner the kernel has dropped its lock: a new
    daemon on another socket of the folder takes the files over (the
    store's answers, with no upstream query) and its readers get hits;
    its clean stop removes the lock file.

Nothing leaves loopback (each daemon's upstream is a FaultServer on
127.0.0.1).  Needs no root.

Run: /usr/bin/python3 tests/integration/test_owner.py --build BUILD [-k NAME]
"""
import os
import re
import struct
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import dnsenv  # noqa: E402
import nclib  # noqa: E402
import test_shared  # noqa: E402  (its prober: NSS lookups in one long-lived process)

BUILD = None
TESTS = []

HOSTS = "10.1.2.3 web.example.com web\n10.1.2.4 mail.example.com mail\n"
DNS_NAME = "dns1.owner.example"
SHM_MAGIC, SHM_LIVE = 0x3130484d53434e00, 1        # proto/shmfmt.h


def test(fn):
    TESTS.append(fn)
    return fn


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []
        self.probers = []

    def daemon(self, name, run, conf="", start=True):
        """A daemon whose own files (config, hosts, log) are in tmp/NAME, and
        whose socket is run/NAME.sock: daemons of one run share a folder."""
        fs = dnsenv.FaultServer()
        fs.set_default("nxdomain", soa=True)
        fs.set(DNS_NAME, "answer", records=[("A", 300, "192.0.2.11"),
                                            ("AAAA", 300, "2001:db8::11")])
        self.servers.append(fs)
        own = os.path.join(self.tmp, name)
        os.makedirs(own)
        os.makedirs(run, exist_ok=True)
        d = nclib.Daemon(BUILD, own, HOSTS, conf, upstream="127.0.0.1:%d" % fs.port)
        d.sock = os.path.join(run, name + ".sock")
        d.fs = fs
        d.killed = False
        self.daemons.append(d)
        if start:
            d.start()
        return d

    def prober(self, d):
        p = test_shared.Prober(d.sock)
        self.probers.append(p)
        return p


def refused(d):
    """Starts d, which must refuse: its exit status, and its log's lines."""
    d.start(wait=False)
    # A liveness bound: a daemon that refuses exits at once.
    rc = d.proc.wait(timeout=nclib.HUNG_SEC * (4 if nclib.valgrind_prefix() else 1))
    d.logf.close()
    d.logf = None
    d.killed = True     # not running, as it should be: nothing to stop
    return rc, d.read_log().splitlines()


def segment(run):
    """The segment's file and header: (inode, generation, state)."""
    path = os.path.join(run, "cache")
    with open(path, "rb") as f:
        h = f.read(40)
    assert struct.unpack_from("<Q", h, 0)[0] == SHM_MAGIC, path
    return (os.stat(path).st_ino, struct.unpack_from("<Q", h, 24)[0],
            struct.unpack_from("<I", h, 36)[0])


def read(path):
    with open(path) as f:
        return f.read()


def one_refusal(lines, where, pid):
    """The refusal: one line, naming where and the owner's pid."""
    said = [l for l in lines if "another daemon" in l]
    assert len(said) == 1, lines
    assert where in said[0] and ("pid %d" % pid) in said[0], (where, pid, said[0])
    return said[0]


class Readers:
    """A process of the first daemon's readers (the NSS module, its mapping
    kept between calls), and the lookups it repeats."""

    def __init__(self, env, d):
        self.d = d
        self.pr = env.prober(d)
        self.reqs = [dict(op="ghbn2", name="web", af=4),
                     dict(op="gai", name="mail.example.com", af=0),
                     dict(op="gai", name=DNS_NAME, af=0),
                     dict(op="ghbn2", name=DNS_NAME, af=6)]
        self.first = [self.pr.call(**r) for r in self.reqs]
        assert all(r["ok"] for r in self.first), self.first
        # getent hosts asks IPv6 first: web's "no such address" published too.
        assert not self.pr.ghbn2("web", 6)["ok"]
        assert d.getent("hosts", "web").returncode == 0

    def round(self, n=5):
        """n lookups of each name in the process, and a getent: the answers
        checked; how many of them reached the daemon's socket."""
        def all_lookups():
            for req, res in zip(self.reqs, self.first):
                ans = self.pr.loop(n, **req)
                assert ans == [res], (req, ans, res)
            out = self.d.getent("hosts", "web")
            assert out.returncode == 0 and "10.1.2.3" in out.stdout, out
        return test_shared.reached(self.d, all_lookups)[0]


@test
def a_second_daemon_in_the_folder_is_refused(env):
    run = os.path.join(env.tmp, "run")
    a = env.daemon("a", run)
    readers = Readers(env, a)
    assert readers.round() == 0, "hits before the second daemon"
    seg = segment(run)
    assert seg[2] == SHM_LIVE, seg
    store = os.stat(os.path.join(run, "store")).st_ino
    assert read(os.path.join(run, "lock")) == "%d\n" % a.proc.pid

    # The readers go on while the second daemon is started and refuses.
    n0 = test_shared.lookups(a)
    stop, one_round, rounds, errors = threading.Event(), threading.Event(), [0], []

    def reading():
        try:
            while not stop.is_set():
                readers.round()
                rounds[0] += 1
                one_round.set()
        except Exception as e:      # noqa: BLE001 (shown by the main thread)
            errors.append(repr(e))
            one_round.set()
    t = threading.Thread(target=reading)
    t.start()
    assert one_round.wait(nclib.HUNG_SEC * 4), "hung: no round of lookups"
    b = env.daemon("b", run, start=False)
    rc, lines = refused(b)
    stop.set()
    t.join(nclib.HUNG_SEC)
    during = test_shared.lookups(a) - n0
    assert not errors, errors
    assert rc == 1, (rc, lines[-20:])
    line = one_refusal(lines, run, a.proc.pid)
    print("  the second daemon: exit %d, %r" % (rc, line.split("]: ", 1)[-1]))
    assert during == 0, ("the first daemon's readers asked its socket while the second "
                         "was attempted", during, rounds[0])

    # Nothing of the first daemon's was touched: the same segment, live, the
    # same store, its lock and pid; no socket of the second's.
    assert segment(run) == seg, (segment(run), seg)
    assert os.stat(os.path.join(run, "store")).st_ino == store
    assert read(os.path.join(run, "lock")) == "%d\n" % a.proc.pid
    # (cache.XXXXXX: the first daemon's spare segment, made ahead.)
    assert sorted(f for f in os.listdir(run) if not re.fullmatch(r"cache\.\w{6}", f)) == \
        ["a.sock", "cache", "lock", "store"], os.listdir(run)
    after = readers.round()
    assert after == 0, ("the first daemon's readers asked its socket after the second "
                        "exited", after)
    assert a.ctl("query", "web").returncode == 0
    print("  the first daemon's readers: 0 requests to its socket before, while (%d rounds "
          "of %d lookups) and after" % (rounds[0], 5 * len(readers.reqs) + 2))


@test
def a_second_daemon_on_the_store_is_refused(env):
    var = os.path.join(env.tmp, "var")
    os.mkdir(var)
    store = os.path.join(var, "store")
    conf = "persistent_cache = %s\n" % store
    a = env.daemon("a", os.path.join(env.tmp, "run1"), conf)
    assert "192.0.2.11" in a.ctl("query", DNS_NAME).stdout
    entries = a.ctl_json("statistics")["cache_entries"]
    assert entries >= 1
    ino = os.stat(store).st_ino
    assert read(store + ".lock") == "%d\n" % a.proc.pid

    run2 = os.path.join(env.tmp, "run2")
    b = env.daemon("b", run2, conf, start=False)
    rc, lines = refused(b)
    assert rc == 1, (rc, lines[-20:])
    line = one_refusal(lines, store, a.proc.pid)
    print("  the second daemon: exit %d, %r" % (rc, line.split("]: ", 1)[-1]))
    # Its own folder's lock released and removed; nothing else made there.
    assert os.listdir(run2) == [], os.listdir(run2)
    assert os.stat(store).st_ino == ino
    assert sorted(os.listdir(var)) == ["store", "store.lock"], os.listdir(var)
    assert read(store + ".lock") == "%d\n" % a.proc.pid
    assert a.ctl_json("statistics")["cache_entries"] == entries
    assert "192.0.2.11" in a.ctl("query", DNS_NAME).stdout
    assert a.fs.count(DNS_NAME, "A") == 1, a.fs.counts()


@test
def after_a_sigkill_a_new_daemon_takes_over(env):
    run = os.path.join(env.tmp, "run")
    a = env.daemon("a", run)
    assert "192.0.2.11" in a.ctl("query", DNS_NAME).stdout
    entries = a.ctl_json("statistics")["cache_entries"]
    test_shared.kill9(a)
    # No release of its own: the file stays, with its pid; the lock went with it.
    assert read(os.path.join(run, "lock")) == "%d\n" % a.proc.pid

    c = env.daemon("c", run)
    assert read(os.path.join(run, "lock")) == "%d\n" % c.proc.pid
    took = [l for l in c.read_log().splitlines() if "cache: took over" in l]
    assert took, c.read_log()[-3000:]
    assert c.ctl_json("statistics")["cache_entries"] == entries
    assert "192.0.2.11" in c.ctl("query", DNS_NAME).stdout
    assert c.fs.total() == 0, ("the store was not taken over", c.fs.counts())
    readers = Readers(env, c)
    assert readers.round() == 0, "the new daemon's readers asked its socket"
    print("  after SIGKILL: %s" % took[-1].split("]: ", 1)[-1])

    # A clean stop (not socket-activated): its segment and its lock file go.
    assert c.stop() == 0, c.read_log()[-3000:]
    c.killed = True     # stopped here: not the runner's to stop
    assert sorted(os.listdir(run)) == ["a.sock", "store"], os.listdir(run)


def main():
    def set_build(b):
        global BUILD
        BUILD = b
        test_shared.BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-owner-", set_build)


if __name__ == "__main__":
    sys.exit(main())
