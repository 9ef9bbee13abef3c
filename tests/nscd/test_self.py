#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/nscd/test_self.py - a daemon that never waits on itself (issue 33).

A module that looks a name up from inside the daemon (an LDAP or SSS
module resolving its server's host name, a passwd module calling
getgrnam) must be answered without the daemon, at once: the daemon's
loop may be the very thing that would have to answer it.  The module is
tests/nss/libnss_ncself.so.2: before each answer it calls getaddrinfo,
getpwnam_r and getgrnam_r itself and logs what they found, with its pid
and whether it ran on the process's first thread (the daemon's loop) or
another (a worker).  It sits on the daemon's hosts, passwd and group
lines, namecache first on the hosts line, with the daemon serving glibc's
nscd socket and the namecache module loadable inside it, pointed at the
daemon's own socket (NAMECACHE_SOCKET): every way back to the daemon is
open, were the daemon not to close them.

Checked: the clients' answers through glibc's nscd client and through the
namecache module; every inner lookup made inside the daemon found its
answer (files' inner.ncself.test, root, root), on workers (hosts, passwd,
group walks) and on the loop (admin_group, resolved by the module, at the
start and again at a SIGHUP reload); and neither of the daemon's sockets
ever saw a request from the daemon's own pid (self_refused stays 0: the
daemon's lines keep glibc off its nscd client and off the namecache
module, and the own-pid refusals behind them were never needed).  Only
hang bounds (nclib.HUNG_SEC) limit the waits.

The run is in a private mount namespace (a tmpfs over /run, so glibc's
/var/run/nscd/socket is the test's; the test's nsswitch.conf and hosts
bound over /etc's).  Needs root (exit 77, a skip, otherwise).  Nothing
leaves loopback.

Run: /usr/bin/python3 tests/nscd/test_self.py --build BUILD [-k NAME]
"""
import os
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import nclib  # noqa: E402

BUILD = None
TESTS = []
NSCD_SOCKET = "/var/run/nscd/socket"
NS_HOSTS = "127.0.0.1 localhost\n192.0.2.99 inner.ncself.test\n"
LINES = ("hosts: namecache [!UNAVAIL=return] files ncself\n"
         "passwd: files ncself\ngroup: files ncself\nservices: files\nnetgroup: files\n")
# What the module's inner lookups find, from files: inner.ncself.test, root, root.
INNER = "gai=192.0.2.99 pw=0 gr=0"


def test(fn):
    TESTS.append(fn)
    return fn


def enter_namespace():
    global NS_NSSWITCH
    NS_NSSWITCH, hosts, _ = nclib.enter_nscd_namespace()
    with open(hosts, "w") as f:
        f.write(NS_HOSTS)
    with open(NS_NSSWITCH, "w") as f:
        f.write(LINES)


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []
        for p in os.listdir("/run/nscd"):
            os.unlink(os.path.join("/run/nscd", p))


def libpath():
    return os.path.join(BUILD, "tests", "nss") + ":" + os.path.join(BUILD, "nss-shim")


def run(argv, env):
    # The timeout is the hang bound: past it, a lookup waited on something.
    return subprocess.run(argv, capture_output=True, text=True, env=env,
                          timeout=nclib.HUNG_SEC)


def calls(log, pid):
    """The module's calls made in process pid: [(thread, func, key, inner)]."""
    out = []
    if os.path.exists(log):
        with open(log) as f:
            for line in f.read().splitlines():
                p, thread, func, key, rest = line.split(" ", 4)
                if int(p) == pid:
                    out.append((thread, func, key, rest))
    return out


@test
def module_lookups_inside_the_daemon(env):
    tmp = os.path.join(env.tmp, "d")
    os.makedirs(tmp)
    log = os.path.join(env.tmp, "ncself.log")
    denv = dict(os.environ)
    denv.update({"LD_LIBRARY_PATH": libpath(), "NCSELF_LOG": log,
                 # The namecache module, were glibc to walk it inside the
                 # daemon, would ask the daemon's own socket.
                 "NAMECACHE_SOCKET": os.path.join(tmp, "sock")})
    conf = "nscd_databases = hosts passwd group services netgroup\n"
    # No admin_group yet: a lookup at start would find no nscd socket and
    # make glibc leave its nscd client alone for the next 100 lookups,
    # which would hide a way back to the daemon.
    d = nclib.Daemon(BUILD, tmp, conf_text=conf, nsswitch_text=LINES, env=denv,
                     args=["--nscd-socket", NSCD_SOCKET])
    env.daemons.append(d)
    d.start()
    pid = d.proc.pid
    cenv = nclib.nss_env(BUILD, d.sock)
    cenv["LD_LIBRARY_PATH"] = libpath()
    cenv.pop("NCSELF_LOG", None)

    # Walks on workers, asked through glibc's nscd client and the module.
    st0 = d.ctl_json("statistics")
    r = run(["getent", "ahosts", "self-1.ncself"], cenv)
    assert r.returncode == 0 and "198.51.100.1 " in r.stdout, (r.returncode, r.stdout,
                                                               r.stderr)
    r = run(["getent", "passwd", "ncself-2"], cenv)
    assert r.returncode == 0 and r.stdout.startswith("ncself-2:x:300002:300002:"), r
    r = run(["getent", "group", "ncselfg-3"], cenv)
    assert r.returncode == 0 and r.stdout.startswith("ncselfg-3:x:300003:"), r
    r = run(["getent", "-s", "namecache", "hosts", "self-4.ncself"], cenv)
    assert r.returncode == 0 and r.stdout.startswith("198.51.100.4 "), r
    st1 = d.ctl_json("statistics")
    # The clients' own requests reached the daemon (the path is the one meant).
    assert st1["nscd_requests_getai"] > st0["nscd_requests_getai"], (st0, st1)
    assert st1["nscd_requests_getpwbyname"] > st0["nscd_requests_getpwbyname"], (st0, st1)
    assert st1["nscd_requests_getgrbyname"] > st0["nscd_requests_getgrbyname"], (st0, st1)
    assert st1["lookups_name"] > st0["lookups_name"], (st0, st1)

    # On the loop: a reload reads admin_group, which the module answers.
    with open(d.conf, "a") as f:
        f.write("admin_group = ncselfg-9\n")
    d.proc.send_signal(signal.SIGHUP)
    nclib.wait_until(lambda: [c for c in calls(log, pid) if c[0] == "main"],
                     "admin_group's lookup at the reload")
    st2 = d.ctl_json("statistics")
    assert d.ctl_json("status").get("pid") == pid

    # And at start, on the main thread before the loop runs.
    assert d.stop() == 0, d.read_log()[-2000:]
    env.daemons.remove(d)
    d2 = nclib.Daemon(BUILD, tmp, conf_text=conf + "admin_group = ncselfg-9\n",
                      nsswitch_text=LINES, env=denv, args=["--nscd-socket", NSCD_SOCKET])
    env.daemons.append(d2)
    d2.start()
    st3 = d2.ctl_json("statistics")

    mine = calls(log, pid) + calls(log, d2.proc.pid)
    keys = [(c[0], c[1], c[2]) for c in mine]
    for want in (("worker", "gethostbyname2_r", "self-1.ncself"),
                 ("worker", "getpwnam_r", "ncself-2"),
                 ("worker", "getgrnam_r", "ncselfg-3"),
                 ("worker", "gethostbyname2_r", "self-4.ncself")):
        assert want in keys, (want, mine)
    assert keys.count(("main", "getgrnam_r", "ncselfg-9")) == 2, mine
    # Every inner lookup inside the daemon found its answer ...
    bad = [c for c in mine if c[3] != INNER]
    assert not bad, bad
    # ... and none of them came back to the daemon: no request from its
    # own pid on either socket (the second locks were never needed).
    assert st2["self_refused"] == 0 and st3["self_refused"] == 0, (
        st2["self_refused"], st3["self_refused"])
    print("  %d module calls inside the daemon (%d on the loop or before it), each "
          "with 3 inner lookups answered; self_refused %d" % (
              len(mine), keys.count(("main", "getgrnam_r", "ncselfg-9")),
              st2["self_refused"] + st3["self_refused"]))


def set_build(path):
    global BUILD
    BUILD = path


if __name__ == "__main__":
    enter_namespace()
    sys.exit(nclib.run_tests(TESTS, Env, "nc-self-", set_build))
