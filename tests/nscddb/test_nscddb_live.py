#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/nscddb/test_nscddb_live.py - nscd's other databases as they change: edits, invalidation, DynamicUser, restarts.

In test_nscddb.py's namespace (a tmpfs over /run, a copy of /etc bound over
/etc: the real /etc is only read), with namecached on glibc's socket:

  * file edits: /etc/passwd, /etc/group, /etc/services and /etc/netgroup
    changed in place and by rename (as useradd and vipw do): the next
    reader sees the new answer, and the database's map was emptied;
  * INVALIDATE: as root (glibc's own `nscd -i passwd` when installed, and
    the raw request) accepted; as a user refused, the answers kept;
  * DynamicUser: users of a module named in nscd_uncached_modules
    (libnss_ncdyn.so.2 with NCDYN_DYNAMIC, standing in for nss-systemd)
    are answered but never kept, and never served once gone; the fixed
    directory's users are kept (its call log shows one call);
  * coalescing: ten clients asking one new user while the module takes
    300 ms make one module call;
  * one trip to a worker per walk, however many modules its line has;
    nss_timeout for each of its calls, a stuck call counted as such;
  * a group of 65,000 members (NCDIR_STAFF_EXTRA): buffers grow, every
    reader gets every member;
  * concurrency: reader processes (Python's pwd and grp, through glibc's
    client and the maps) while /etc/passwd is renamed over between two
    states and the daemon is stopped and killed: every answer is one of
    the two states, none torn, none missing;
  * hostile requests: every request type with garbage keys, giant and
    lying lengths: answered or refused, the daemon up, lookups still right.

Needs root (exit 77, a skip, otherwise).  Nothing leaves loopback.

Run: /usr/bin/python3 tests/nscddb/test_nscddb_live.py --build BUILD [-k NAME]
"""
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import nclib  # noqa: E402
import test_nscddb as db  # noqa: E402

TESTS = []
NSCD_SOCKET = db.NSCD_SOCKET
PYTHON = db.PYTHON
LINES = ("passwd: files ncdir\ngroup: files ncdir\nservices: files\nnetgroup: files\n" +
         db.NSS_COMMON)
CONF = "upstream = 127.0.0.1:9\nlog_level = debug\n"
(GETPWBYNAME, GETPWBYUID, GETGRBYNAME, GETGRBYGID, INVALIDATE, GETFDPW, INITGROUPS,
 GETSERVBYNAME, GETSERVBYPORT, GETNETGRENT, INNETGR) = 0, 1, 2, 3, 10, 11, 15, 16, 17, 19, 20


def test(fn):
    TESTS.append(fn)
    return fn


class Env(db.Env):
    def daemon(self, lines=LINES, conf=CONF, env_extra=None, sub="d"):
        tmp = os.path.join(self.tmp, sub)
        os.makedirs(tmp, exist_ok=True)
        db.clear_run_nscd()
        # Rewritten only when it changes: glibc rereads it when it changes,
        # and a reader falling back to NSS while a daemon restarts must not
        # catch it half-written (truncated, it has no group line).
        with open(os.path.join(db.ETC, "nsswitch.conf")) as f:
            if f.read() != lines:
                db.write_etc("nsswitch.conf", lines)
        env = dict(os.environ, LD_LIBRARY_PATH=db.nssdir())
        for k in ("NCDIR_LOG", "NCDYN_LOG", "NCDYN_DYNAMIC", "NCDIR_DELAY_MS"):
            env.pop(k, None)
        env.update(env_extra or {})
        d = nclib.Daemon(db.BUILD, tmp, conf_text=conf, nsswitch_text=lines,
                         args=["--nscd-socket", NSCD_SOCKET], env=env)
        self.daemons.append(d)
        return d.start()


def client(argv, module=False):
    """A client that cannot load the test modules: what it gets of theirs
    came through the socket."""
    return db.run(argv, env=db.client_env(module=module))


def stats(d):
    return d.ctl_json("statistics")


def request(rtype, key, raw_len=None, read=1 << 20, closed=None):
    """Sends a request; reads up to read bytes of the reply, until the
    daemon closes the connection.  closed (a list) gets True when it did,
    False when the read gave up (HUNG)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(nclib.HUNG_SEC)
    s.connect(NSCD_SOCKET)
    s.sendall(struct.pack("=iii", 2, rtype, len(key) if raw_len is None else raw_len) + key)
    out = b""
    eof = False
    try:
        while read and len(out) < read:
            chunk = s.recv(65536)
            if not chunk:
                eof = True
                break
            out += chunk
    except socket.timeout:
        pass
    except ConnectionResetError:
        eof = True
    s.close()
    if closed is not None:
        closed.append(eof)
    return out


def wait_for(fn, what, timeout=nclib.HUNG_SEC):
    """Polls fn (a quick lookup) until true; returns the ms it took (to
    print).  The bound means "hung": the daemon acts 10 ms after a close
    or rename."""
    t0 = time.monotonic()
    nclib.wait_until(fn, what, timeout=timeout)
    return (time.monotonic() - t0) * 1000


def etc(name):
    return os.path.join(db.ETC, name)


def replace_by_rename(name, text):
    tmp = etc(name + ".nc-new")
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, etc(name))


# --- the tests -----------------------------------------------------------------------

@test
def file_edits_drop_answers(env):
    d = env.daemon()
    last = "ncf09999"
    passwd = open(etc("passwd")).read()
    group = open(etc("group")).read()
    services = open(etc("services")).read()
    netgroup = open(etc("netgroup")).read()

    def getent(*args):
        return client(["getent"] + list(args)).stdout
    assert ":x:4000000000:" in getent("passwd", last)
    assert ":x:4000000000:" in getent("passwd", last)     # a hit, from the map
    inv0 = stats(d)["nscd_passwd_invalidations"]
    try:
        # In place, as an editor that writes the file it opened.
        db.write_etc("passwd", passwd.replace(last + ":x:", last + ":y:"))
        ms = wait_for(lambda: ":y:" in getent("passwd", last), "the in-place edit")
        st = stats(d)
        assert st["nscd_passwd_invalidations"] > inv0, st
        print("passwd in place: new answer after %.0f ms" % ms)
        # By rename, as useradd and vipw do.
        replace_by_rename("passwd", passwd.replace(last + ":x:", last + ":z:"))
        ms = wait_for(lambda: ":z:" in getent("passwd", last), "the rename")
        print("passwd by rename: new answer after %.0f ms" % ms)
        # group, services, netgroup: the same rule, each its own map.
        g0 = getent("group", "root")
        replace_by_rename("group", group.replace("root:x:0:", "root:x:0:ncedit"))
        wait_for(lambda: "ncedit" in getent("group", "root"), "the group rename")
        assert g0 != getent("group", "root")
        assert "ncsvc-edit" not in getent("services", "ssh")
        db.write_etc("services", services.replace("\nssh\t", "\nssh\t").replace(
            "22/tcp", "22/tcp ncsvc-edit", 1))
        wait_for(lambda: "ncsvc-edit" in getent("services", "ssh"), "the services edit")
        n0 = getent("netgroup", "ncng-edit")
        db.write_etc("netgroup", netgroup + "ncng-edit (edithost,edituser,editdom)\n")
        wait_for(lambda: "edithost" in getent("netgroup", "ncng-edit"), "the netgroup edit")
        assert n0.strip() in ("", "ncng-edit"), n0
        st = stats(d)
        for name in ("group", "services", "netgroup"):
            assert st["nscd_%s_invalidations" % name] >= 1, (name, st)
    finally:
        # Put them back for the tests after, whatever happened.
        for name, text in (("passwd", passwd), ("group", group), ("services", services),
                           ("netgroup", netgroup)):
            db.write_etc(name, text)


@test
def invalidate_root_and_user(env):
    d = env.daemon()
    assert "ncu0001" in client(["getent", "passwd", "ncu0001"]).stdout
    entries = lambda: stats(d)["nscd_passwd_entries"]   # noqa: E731
    assert entries() >= 1
    # As a user: refused by SO_PEERCRED, the answers kept.
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        PYTHON, "-c",
                        "import socket,struct;s=socket.socket(socket.AF_UNIX);"
                        "s.connect(%r);s.sendall(struct.pack('=iii',2,10,7)+b'passwd\\0');"
                        "print(struct.unpack('=i',s.recv(4))[0])" % NSCD_SOCKET],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and int(r.stdout) == 1, r      # EPERM
    st = stats(d)
    assert st["nscd_invalidate_denied"] >= 1 and st["nscd_passwd_entries"] >= 1, st
    # As root: glibc's own nscd -i when it is here, and the raw request.
    if os.path.exists(db.NSCD):
        r = db.run([db.NSCD, "-i", "passwd"])
        assert r.returncode == 0, r
        st = stats(d)
        assert st["nscd_passwd_entries"] == 0 and st["nscd_passwd_invalidations"] >= 1, st
        print("nscd -i passwd: accepted, the map emptied")
        assert "ncu0001" in client(["getent", "passwd", "ncu0001"]).stdout
    out = request(INVALIDATE, b"passwd\0")
    assert struct.unpack("=i", out[:4])[0] == 0, out
    assert entries() == 0
    assert struct.unpack("=i", request(INVALIDATE, b"bogus\0")[:4])[0] != 0


@test
def dynamic_user_never_kept(env):
    dyn = os.path.join(env.tmp, "dynamic")
    log = os.path.join(env.tmp, "ncdyn.log")
    with open(dyn, "w") as f:
        f.write("ncdyn-svc:61234\n")
    lines = ("passwd: files ncdir ncdyn\ngroup: files ncdir ncdyn\nservices: files\n"
             "netgroup: files\n" + db.NSS_COMMON)
    d = env.daemon(lines=lines, conf=CONF + "nscd_uncached_modules = ncdyn\n",
                   env_extra={"NCDYN_DYNAMIC": dyn, "NCDYN_LOG": log})
    for _ in range(3):
        r = client(["getent", "passwd", "ncdyn-svc"])
        assert "ncdyn-svc:x:61234" in r.stdout, r
        r = client(["getent", "passwd", "61234"])
        assert "ncdyn-svc:x:61234" in r.stdout, r
    calls = [l for l in open(log).read().splitlines() if l.startswith("getpw")]
    assert len(calls) == 6, calls          # every lookup asked the module
    st = stats(d)
    assert st["nscd_passwd_uncached"] >= 6, st
    show = d.ctl("show-cache", "passwd").stdout
    assert "ncdyn-svc" not in show and "61234" not in show, show
    # The unit stops: the user is gone for the next reader, by name and id.
    with open(dyn, "w") as f:
        f.write("")
    assert client(["getent", "passwd", "ncdyn-svc"]).stdout == ""
    assert client(["getent", "passwd", "61234"]).stdout == ""
    # The directory's users are kept: one module call for three lookups.
    dlog = os.path.join(env.tmp, "ncdir.log")
    env.stop_server(d)
    d = env.daemon(lines=lines, conf=CONF + "nscd_uncached_modules = ncdyn\n",
                   env_extra={"NCDYN_DYNAMIC": dyn, "NCDIR_LOG": dlog}, sub="d2")
    for _ in range(3):
        assert "ncu0042" in client(["getent", "passwd", "ncu0042"]).stdout
    calls = [l for l in open(dlog).read().splitlines() if l == "getpwnam_r ncu0042"]
    assert len(calls) == 1, calls


@test
def coalesced_in_flight(env):
    log = os.path.join(env.tmp, "ncdir.log")
    d = env.daemon(env_extra={"NCDIR_LOG": log, "NCDIR_DELAY_MS": "300"})
    procs = [subprocess.Popen(["getent", "passwd", "ncu0777"], stdout=subprocess.PIPE,
                              text=True, env=db.client_env(module=False))
             for _ in range(10)]
    outs = [p.communicate(timeout=30)[0] for p in procs]
    assert all("ncu0777:x:200777" in o for o in outs), outs
    calls = [l for l in open(log).read().splitlines() if l == "getpwnam_r ncu0777"]
    st = stats(d)
    print("10 clients: %d module call(s), %d coalesced, %d hits" % (
        len(calls), st["nscd_passwd_coalesced"], st["nscd_passwd_hits"]))
    assert len(calls) == 1, calls
    assert st["nscd_passwd_coalesced"] + st["nscd_passwd_hits"] + 1 >= 10 or \
        st["nscd_passwd_requests"] < 10, st


THREE = ("passwd: files ncdyn ncdir\ngroup: files ncdyn ncdir\nservices: files\n"
         "netgroup: files\n" + db.NSS_COMMON)


def found_of(out):
    return struct.unpack("=ii", out[:8])[1]


def deltas(before, after, *keys):
    return [after.get(k, 0) - before.get(k, 0) for k in keys]


@test
def one_trip_per_walk(env):
    """A walk is one job on the pool: a user files and ncdyn (NCDYN_STATIC=0:
    nobody) do not know, found in ncdir, is three module calls, each counted
    by the pool for its module, in one trip to a worker; so is a group list,
    which asks every module of the group line."""
    d = env.daemon(lines=THREE, env_extra={"NCDYN_STATIC": "0"})
    s0 = stats(d)
    assert found_of(request(GETPWBYNAME, b"ncu0123\0")) == 1
    s1 = stats(d)
    assert deltas(s0, s1, "nscd_passwd_module_calls", "nscd_passwd_pool_jobs",
                  "nss_files_calls", "nss_ncdyn_calls", "nss_ncdir_calls") == \
        [3, 1, 1, 1, 1], s1
    assert found_of(request(INITGROUPS, b"ncu0001\0")) == 1
    s2 = stats(d)
    assert deltas(s1, s2, "nscd_group_module_calls", "nscd_group_pool_jobs") == [3, 1], s2
    # A hit: no trip at all.
    assert found_of(request(GETPWBYNAME, b"ncu0123\0")) == 1
    assert deltas(s2, stats(d), "nscd_passwd_pool_jobs", "nss_ncdir_calls") == [0, 0]


@test
def each_call_its_own_timeout(env):
    """nss_timeout bounds each module call of a walk, not the walk: two
    calls of 0.6 s under nss_timeout = 1 are answered.  A call of 2.5 s is
    refused (glibc then walks NSS itself) while its thread stays in the
    module, counted stuck until it comes back, and the walk ends there."""
    conf = CONF + "nss_timeout = 1\n"
    d = env.daemon(lines=THREE, conf=conf, env_extra={
        "NCDYN_STATIC": "0", "NCDYN_DELAY_MS": "600", "NCDIR_DELAY_MS": "600"})
    assert found_of(request(GETPWBYNAME, b"ncu0124\0")) == 1
    st = stats(d)
    assert st["nscd_passwd_failed"] == 0 and st["nss_ncdir_timeouts"] == 0, st
    env.stop_server(d)
    dyn_log = os.path.join(env.tmp, "ncdyn-stuck.log")
    dir_log = os.path.join(env.tmp, "ncdir-stuck.log")
    d = env.daemon(lines=THREE, conf=conf, sub="d2", env_extra={
        "NCDYN_STATIC": "0", "NCDYN_DELAY_MS": "2500", "NCDYN_LOG": dyn_log,
        "NCDIR_LOG": dir_log})
    assert found_of(request(GETPWBYNAME, b"ncu0125\0")) == -1
    st = stats(d)
    assert st["nss_workers_stuck"] == 1 and st["nss_ncdyn_timeouts"] == 1, st
    assert st["nscd_passwd_failed"] == 1 and st["nscd_passwd_entries"] == 0, st
    wait_for(lambda: stats(d)["nss_workers_stuck"] == 0, "the stuck call's return")
    st = stats(d)
    assert st["nss_ncdyn_calls"] == 1 and st["nscd_passwd_module_calls"] == 2, st
    assert open(dyn_log).read().splitlines() == ["getpwnam_r ncu0125"]
    assert not os.path.exists(dir_log)      # the walk ended with ncdyn's timeout


@test
def cli_per_database(env):
    """namecachectl status, statistics, show-cache DB and flush-caches DB."""
    d = env.daemon()
    for argv in (["getent", "passwd", "ncu0001"], ["getent", "passwd", "200002"],
                 ["getent", "passwd", "nosuchuser-cli"], ["getent", "group", "ncsmall"],
                 ["getent", "services", "ssh"], ["getent", "initgroups", "ncu0001"]):
        client(argv)
    st = d.ctl_json("status")
    for name in ("passwd", "group", "services", "netgroup"):
        assert st["nscd_%s" % name] == "answered", st
    assert st["nscd_passwd_line"] == "files ncdir" and st["nscd_uncached_modules"] == "systemd"
    rows = json.loads(d.ctl("--json", "show-cache", "passwd").stdout)
    got = {(r["by"], r["key"], r["status"]) for r in rows}
    assert {("name", "ncu0001", "found"), ("uid", "200002", "found"),
            ("name", "nosuchuser-cli", "notfound")} <= got, rows
    assert all(0 < r["ttl"] <= 600 for r in rows), rows
    rows = json.loads(d.ctl("--json", "show-cache", "group").stdout)
    assert {r["by"] for r in rows} >= {"name", "initgroups"}, rows
    text = d.ctl("show-cache", "services").stdout
    assert "ssh 22" in text, text
    stats0 = stats(d)
    assert stats0["nscd_passwd_requests"] >= 3 and stats0["nscd_passwd_module_calls"] >= 3
    out = json.loads(d.ctl("--json", "flush-caches", "passwd").stdout)
    assert out["flushed"] >= 3, out
    assert json.loads(d.ctl("--json", "show-cache", "passwd").stdout) == []
    assert json.loads(d.ctl("--json", "show-cache", "group").stdout) != []
    r = d.ctl("show-cache", "bogus")
    assert r.returncode != 0 and "no such database" in r.stderr, r


@test
def group_of_tens_of_thousands(env):
    """ncstaff with 60,000 more members (about 1.3 MB in a module's buffer,
    860 KB as glibc's reply): the worker's buffer grows on ERANGE, the
    reply goes whole, and glibc's readers (getent, Python's grp from the
    map, C's getgrnam_r) get every member."""
    extra = {"NCDIR_STAFF_EXTRA": "60000"}
    d = env.daemon(env_extra=extra)
    cenv = dict(db.client_env(module=False), **extra)
    r = db.run(["getent", "group", "ncstaff"], env=cenv)
    members = r.stdout.strip().split(":")[3].split(",")
    assert len(members) == 65000 and members[-1] == "ncx059999", (len(members), r.stderr)
    r = db.run([PYTHON, "-c", "import grp\nfor i in range(3):\n    g = grp.getgrnam('ncstaff')\n"
                "print(len(g.gr_mem), g.gr_mem[-1])"], env=cenv)
    assert r.stdout.split() == ["65000", "ncx059999"], r
    r = db.run([db.dbprobe_path(), "-n", "3", "grgid", "200000"], env=cenv)
    assert "n=65000:" in r.stdout, r.stdout[:300]
    st = stats(d)
    assert st["nscd_group_found"] >= 1 and st["nscd_group_failed"] == 0, st
    print("ncstaff with 65,000 members: through the socket, then the map; %d walk(s)" %
          st["nscd_group_misses"])


READER = r"""
import grp, json, os, pwd, sys, time
stop = sys.argv[1]
progress = int(os.environ["NC_PROGRESS_FD"])
ok = {tuple(json.loads(a)) for a in sys.argv[2:]}
n = bad = missing = 0
seen = set()
when = []
while not os.path.exists(stop):
    what = "passwd"
    try:
        p = pwd.getpwnam("ncf09999")
        t = (p.pw_uid, p.pw_shell)
        if t not in ok:
            bad += 1
            seen.add(repr(t))
        what = "group"
        g = grp.getgrnam("ncstaff")
        if g.gr_gid != 200000 or len(g.gr_mem) != 5000 or g.gr_mem[4999] != "ncu4999":
            bad += 1
            seen.add("ncstaff %d %d" % (g.gr_gid, len(g.gr_mem)))
    except KeyError as e:
        missing += 1
        when.append((what, time.monotonic()))
    n += 1
    os.write(progress, b".")
print(json.dumps({"n": n, "bad": bad, "missing": missing, "seen": sorted(seen)[:5],
                  "when": when[:5]}))
"""


class Readers:
    """Reader processes (READER) that look up until told to stop, each
    writing a byte to a pipe after every pair of lookups: wait() returns
    once every one of them has made another since the last wait(), so
    that each state the test makes is read by every reader."""

    def __init__(self, n, states, stop):
        self.stop = stop
        self.procs, self.fds, self.seen = [], [], []
        for _ in range(n):
            r, w = os.pipe()
            os.set_blocking(r, False)
            self.procs.append(subprocess.Popen(
                [PYTHON, "-c", READER, stop] + [json.dumps(s) for s in states],
                stdout=subprocess.PIPE, text=True, pass_fds=(w,),
                env=dict(db.client_env(module=True), NC_PROGRESS_FD=str(w))))
            os.close(w)
            self.fds.append(r)
            self.seen.append(0)

    def _read(self):
        for i, fd in enumerate(self.fds):
            try:
                self.seen[i] += len(os.read(fd, 65536))
            except BlockingIOError:
                pass

    def wait(self):
        mark = list(self.seen)

        def moved():
            self._read()
            return all(a > b for a, b in zip(self.seen, mark))
        nclib.wait_until(moved, lambda: "every reader made another lookup (%s, then %s)" % (
            mark, self.seen))

    def finish(self):
        open(self.stop, "w").close()
        res = [json.loads(p.communicate(timeout=nclib.HUNG_SEC)[0]) for p in self.procs]
        for fd in self.fds:
            os.close(fd)
        return res


@test
def readers_across_edits_and_restarts(env):
    """Every answer is one of the two states; none torn, none missing.
    Every reader reads each state, and across each restart (it makes a
    lookup after each change before the next is made)."""
    d = env.daemon()
    passwd = open(etc("passwd")).read()
    line = [l for l in passwd.splitlines() if l.startswith("ncf09999:")][0]
    f = line.split(":")
    states = [(int(f[2]), f[6]), (int(f[2]), "/bin/nc-state-b")]
    other = passwd.replace(line, ":".join(f[:6] + ["/bin/nc-state-b"]))
    readers = Readers(4, states, os.path.join(env.tmp, "readers-stop"))
    flips = restarts = 0
    events = []
    try:
        readers.wait()
        for flips in range(1, 61):
            replace_by_rename("passwd", other if flips % 2 else passwd)
            readers.wait()
            if flips % 15 == 0:
                sig = signal.SIGTERM if restarts % 2 == 0 else signal.SIGKILL
                events.append((sig.name, flips))
                d.proc.send_signal(sig)
                d.proc.wait(nclib.HUNG_SEC)
                d.stop()            # its log read for sanitizer reports
                env.daemons.remove(d)
                d = env.daemon(sub="r%d" % restarts)
                restarts += 1
                readers.wait()
    finally:
        replace_by_rename("passwd", passwd)
        res = readers.finish()
    total = sum(r["n"] for r in res)
    print("%d readers, %d lookups (pairs), %d renames, %d restarts: bad %d, missing %d" % (
        len(res), total, flips, restarts, sum(r["bad"] for r in res),
        sum(r["missing"] for r in res)))
    assert all(r["bad"] == 0 and r["missing"] == 0 for r in res), (res, events)
    assert flips == 60 and restarts == 4, (flips, restarts)


@test
def hostile_requests(env):
    d = env.daemon()
    rnd = random.Random(21)
    keys = [b"", b"\0", b"root", b"root\0extra\0", b"\xff" * 1023 + b"\0", b"-1\0",
            b"99999999999\0", b"4294967296\0", b"0x10\0", b"/\0", b"/tcp\0", b"http/\0",
            b"65536/tcp\0", b"trusted\0\1", b"trusted\0\2x\0\0\0", b"\0\0\0\0",
            b"a" * 1024]
    keys += [bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 200)))
             for _ in range(60)]
    n = 0
    for rtype in list(range(0, 23)) + [99, -1]:
        if rtype in (8, 9):          # SHUTDOWN, GETSTAT: closed, never acted on
            pass
        for k in keys:
            if rtype < 0:
                continue
            out = request(rtype, k, read=4096)
            n += 1
            assert d.proc.poll() is None, (rtype, k)
        # A length that lies: more than sent, then the close at once.
        request(rtype if rtype >= 0 else 0, b"root\0", raw_len=900, read=0)
        # A length past glibc's bound: closed before any read (the daemon
        # closed it: the read saw the end, it did not give up waiting).
        closed = []
        out = request(rtype if rtype >= 0 else 0, b"", raw_len=1 << 20, read=4096,
                      closed=closed)
        assert out == b"" and closed == [True], (rtype, out, closed)
    assert d.proc.poll() is None
    assert "ncu0001:x:200001" in client(["getent", "passwd", "ncu0001"]).stdout
    assert "ncstaff" in client(["getent", "group", "ncstaff"]).stdout
    st = stats(d)
    print("%d hostile requests; bad requests counted %d" % (n, st["bad_requests"]))
    assert st["bad_requests"] > 0


def main():
    db.enter_namespace()

    def set_build(b):
        db.BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-nscddb-live-", set_build, sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
