#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/integration/test_nss.py - the whole hosts line (issue 11).

namecached reads the hosts line of its nsswitch_conf, drops its own entry,
and answers as glibc's walk of the rest would.  tests/nss/nss_nctest.c is
the NSS module these tests put on the line (libnss_nctest.so.2 with every
function, libnss_nctest2.so.2 with gethostbyname2_r and gethostbyaddr_r
only); the daemon finds it through LD_LIBRARY_PATH, the clients never do.

  * differential: for hosts lines with every status and action, glibc's own
    walk (nss_line_probe.py in `unshare -m`, the test's nsswitch.conf and
    hosts file bind-mounted over /etc's) against the daemon's, through the
    NSS module as `namecache [!UNAVAIL=return] LINE`: getaddrinfo of each
    family with AI_CANONNAME (the EAI code when it fails), gethostbyname2
    (h_errno), gethostbyaddr, and getent's four databases, equal;
  * one module call for 50 clients asking at once (coalescing);
  * calls in flight coalesced by exact spelling: a module that knows one
    spelling only answers it, and not the others asked at the same time;
  * a stuck module: TRYAGAIN after nss_timeout, the pool bounded at
    nss_workers, stuck workers in status, hosts and cached names answered
    meanwhile;
  * nsswitch.conf edited in place and renamed over: the new line at once,
    the old line's published answers gone;
  * a module's TTL, the negative TTL, flush-caches and invalidate;
  * namecache itself never on the walked line, nor loaded;
  * statistics per module.

DNS is never on these lines: nothing is sent anywhere.  Needs root for the
mount namespaces of the differential part (as CI); that part skips
otherwise, the rest runs.

Run: /usr/bin/python3 tests/integration/test_nss.py --build BUILD [-k NAME]
"""
import json
import os
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import nclib  # noqa: E402

BUILD = None
TESTS = []
PYTHON = "/usr/bin/python3"
PROBE = os.path.join(HERE, "nss_line_probe.py")
HOSTS = ("127.0.0.1 localhost\n::1 localhost ip6-localhost\n"
         "192.0.2.10 hostsonly.example hostsonly\n192.0.2.11 ok-9.nct\n"
         "2001:db8::99 v6hosts.example\n")
LINES = [
    "files nctest nctest2",
    "nctest files",
    "nctest [NOTFOUND=return] files",
    "nctest2 [!UNAVAIL=return] files",
    "nctest [TRYAGAIN=return] nctest2 files",
    "nctest [UNAVAIL=return] files",
    "files nosuchmodule",
    "nosuchmodule files",
    "nctest2",
    "files [SUCCESS=continue] nctest",
    "files [notfound=RETURN] nctest",
]
KEYS = ["ok-1.nct", "OK-2.NcT", "v4-3.nct", "v6-4.nct", "big-5.nct", "tryagain-6.nct",
        "unavail-7.nct", "notfound.nct", "scoped-8.nct", "localhost", "hostsonly", "ok-9.nct",
        "v6hosts.example", "198.51.100.1", "198.51.100.251", "192.0.2.10",
        "2001:db8::5", "127.0.0.1"]


def test(fn):
    TESTS.append(fn)
    return fn


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []
        self.log = os.path.join(tmp, "calls")

    def daemon(self, line, conf="", hosts=HOSTS, extra_env=None):
        env = dict(os.environ, **(extra_env or {}))
        env["LD_LIBRARY_PATH"] = os.path.join(BUILD, "tests", "nss")
        env["NCTEST_LOG"] = self.log
        env["NCTEST_SLOW_MS"] = "1500"
        d = nclib.Daemon(BUILD, self.tmp, hosts_text=hosts, conf_text=conf,
                         nsswitch_text="hosts: namecache [!UNAVAIL=return] %s\n" % line,
                         env=env)
        self.daemons.append(d)
        return d.start()

    def calls(self, needle=None):
        try:
            with open(self.log) as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            return []
        return [x for x in lines if needle is None or needle in x]


def ask(d, name, family=0, timeout=30):
    """One raw lookup over the socket: (status, answer or None, seconds)."""
    t0 = time.monotonic()
    with nclib.connect(d, timeout) as s:
        s.sendall(nclib.name_req(name, family))
        f = nclib.read_frame(s)
    dt = time.monotonic() - t0
    return f["status"], (nclib.parse_answer(f["body"]) if f["status"] == 0 else None), dt


def in_ns(nsswitch, hosts, env, argv):
    """argv in a private mount namespace where /etc/nsswitch.conf and /etc/hosts
    are the test's.  The real /etc is never written."""
    script = ('mount --bind "$0" /etc/nsswitch.conf && mount --bind "$1" /etc/hosts'
              ' && shift && exec "$@"')
    return subprocess.run(["unshare", "-m", "--propagation", "private", "--", "sh", "-c",
                           script, nsswitch, hosts] + argv, capture_output=True, text=True,
                          env=env, timeout=300)


def known(line, what, glibc):
    """The two differences docs/design.md lists, and only those:

    - getaddrinfo(AF_INET6, AI_V4MAPPED) (getent ahostsv6): glibc asks each
      source for AF_INET6 and then, in the same source, AF_INET, and takes
      a v4-mapped answer from an earlier source; the NSS module asks the
      daemon for AF_INET6 alone, which a later source may answer.
    - gethostbyname2 when the line ends with a module that does not load:
      glibc leaves the previous source's h_errno, the daemon reports the
      NETDB_INTERNAL that getaddrinfo sees there (its EAI_SYSTEM is kept).
      getaddrinfo(AF_INET) without AI_CANONNAME asks gethostbyname2_r, so
      it is the same case (glibc's EAI_NONAME there, EAI_SYSTEM on its
      other paths)."""
    if what == "getent_ahostsv6" and "::ffff:" in glibc[1]:
        return True
    if what.startswith("ghbn2") and line.split()[-1] == "nosuchmodule" and \
            isinstance(glibc, dict) and "h_errno" in glibc:
        return True
    if what == "gai_inet_plain" and line.split()[-1] == "nosuchmodule" and \
            glibc == {"eai": socket.EAI_NONAME}:
        return True
    return False


def compare_lines(env, lines, keys, libdirs, tag):
    """glibc's walk of each line against the daemon's, for every key: equal,
    but for known() differences.  libdirs: where the lines' modules are,
    for glibc and for the daemon (never for the clients)."""
    compared = differ = xfail = 0
    failures = []
    libpath = ":".join(libdirs)
    for i, line in enumerate(lines):
        sub = os.path.join(env.tmp, "%s%d" % (tag, i))
        os.mkdir(sub)
        hosts = os.path.join(sub, "hosts")
        with open(hosts, "w") as f:
            f.write(HOSTS)
        ref_conf = os.path.join(sub, "ref.conf")
        with open(ref_conf, "w") as f:
            f.write("hosts: %s\n" % line)
        e = dict(os.environ, LD_LIBRARY_PATH=libpath)
        e.pop("NCTEST_LOG", None)
        ref = in_ns(ref_conf, hosts, e, [PYTHON, PROBE] + keys)
        assert ref.returncode == 0, ref.stderr
        d = nclib.Daemon(BUILD, sub, hosts_text=HOSTS,
                         nsswitch_text="hosts: namecache [!UNAVAIL=return] %s\n" % line,
                         env=dict(os.environ, LD_LIBRARY_PATH=libpath))
        env.daemons.append(d)
        d.start()
        e2 = nclib.nss_env(BUILD, d.sock)
        got = []
        # Twice: the first walk asks the modules, the second finds the cache
        # (and, through the NSS module, the shared segment).
        for _ in range(2):
            r = in_ns(d.nsswitch, hosts, e2, [PYTHON, PROBE] + keys)
            assert r.returncode == 0, r.stderr
            got.append(json.loads(r.stdout))
        want = json.loads(ref.stdout)
        for run, g in enumerate(got):
            for key in keys:
                for what in want[key]:
                    compared += 1
                    if g[key][what] == want[key][what]:
                        continue
                    if known(line, what, want[key][what]):
                        xfail += 1
                        continue
                    differ += 1
                    failures.append("line %r run %d %s %s:\n  glibc     %r\n  namecache %r"
                                    % (line, run + 1, key, what, want[key][what],
                                       g[key][what]))
        d.stop()
        env.daemons.remove(d)
    print("%s: %d lines, %d keys, %d comparisons, %d differences, %d known (XFAIL)" %
          (tag, len(lines), len(keys), compared, differ, xfail))
    kinds = {}
    for f in failures:
        k = f.split(":")[0].split(" run ")[0] + " " + f.split(":")[0].split()[-1]
        kinds[k] = kinds.get(k, 0) + 1
    for k in sorted(kinds):
        print("  %4d  %s" % (kinds[k], k))
    assert not failures, "\n".join(failures[:int(os.environ.get("NC_SHOW", "20"))])


@test
def differential_lines(env):
    if os.geteuid() != 0:
        nclib.skip_part("differential_lines", "the differential part needs root (unshare -m)")
        return
    compare_lines(env, LINES, KEYS, [os.path.join(BUILD, "tests", "nss")], "nctest")


DEBS = "/var/cache/namecache-test/debs"


@test
def differential_real_modules(env):
    """libnss-myhostname and libnss-mdns as Debian ships them (scripts/deps.sh
    downloads the .deb files; they are unpacked here, never installed): the
    machine's own name, *.localhost, _gateway, .local names with no avahi
    running (mdns4_minimal then says UNAVAIL), reverse lookups."""
    if os.geteuid() != 0:
        nclib.skip_part("differential_real_modules",
                        "the differential part needs root (unshare -m)")
        return
    debs = sorted(f for f in os.listdir(DEBS) if f.endswith(".deb")) \
        if os.path.isdir(DEBS) else []
    assert len(debs) >= 2, "run scripts/deps.sh: no libnss-myhostname/libnss-mdns in " + DEBS
    root = os.path.join(env.tmp, "debs")
    for f in debs:
        subprocess.run(["dpkg-deb", "-x", os.path.join(DEBS, f), root], check=True)
    libdirs = sorted({os.path.dirname(os.path.join(dp, f))
                      for dp, _, files in os.walk(root) for f in files
                      if f.startswith("libnss_") and f.endswith(".so.2")})
    assert libdirs, "no modules in " + ", ".join(debs)
    me = socket.gethostname()
    keys = [me, me.upper(), "localhost", "foo.localhost", "Bar.Foo.LOCALHOST", "_gateway",
            "printer.local", "nosuch.example", "127.0.0.1", "::1", "127.0.0.2"]
    lines = ["files myhostname",
             "myhostname",
             "files mdns4_minimal [NOTFOUND=return] myhostname",
             "mdns4_minimal [NOTFOUND=return] files myhostname",
             "files mdns_minimal [NOTFOUND=return] myhostname mdns4"]
    compare_lines(env, lines, keys, libdirs, "real")


# Each entry point of an NSS module, called as glibc calls it (errnop is
# &errno): its status, errno and h_errno, as JSON.  argv: library, module, name.
MODULE_CALLS = r"""
import ctypes, json, sys
lib = ctypes.CDLL(sys.argv[1])
libc = ctypes.CDLL(None)
libc.__errno_location.restype = ctypes.POINTER(ctypes.c_int)
errnop = libc.__errno_location()
name = sys.argv[3].encode()
buf = ctypes.create_string_buffer(65536)
out = {}
def call(what, fn, *args):
    herr = ctypes.c_int(-77)
    errnop[0] = 1234
    st = fn(name, *args[:-1], buf, len(buf), errnop, ctypes.byref(herr), *args[-1])
    out[what] = [st, errnop[0], herr.value]
fn = lambda f: getattr(lib, "_nss_%s_%s" % (sys.argv[2], f))
call("gethostbyname4_r", fn("gethostbyname4_r"), ctypes.byref(ctypes.c_void_p()), [None])
for af in (2, 10):
    he = ctypes.create_string_buffer(64)
    call("gethostbyname3_r %d" % af, fn("gethostbyname3_r"), af, he, [None, None])
    call("gethostbyname2_r %d" % af, fn("gethostbyname2_r"), af, he, [])
json.dump(out, sys.stdout, sort_keys=True)
"""


@test
def notfound_after_a_temporary_failure(env):
    """Status 12, NOTFOUND_TRYAGAIN, from a stand-in daemon through the NSS
    module, against glibc walking tests/nss's module, whose nftryagain-N
    returns what glibc's dns module returns when the search list's first
    query failed for now and a later one got NXDOMAIN (NOTFOUND, h_errno
    TRY_AGAIN, errno EAGAIN): each entry point's status, errno and h_errno,
    and everything nss_line_probe.py asks of glibc (getaddrinfo of each
    family, EAI_NONAME for AF_INET without AI_CANONNAME and EAI_AGAIN for
    the rest; gethostbyname2; getent), the same."""
    if os.geteuid() != 0:
        nclib.skip_part("notfound_after_a_temporary_failure", "needs root (unshare -m)")
        return
    key = "nftryagain-3.nct"
    fake = nclib.FakeDaemon(os.path.join(env.tmp, "fake.sock"), lambda f: (
        12, nclib.reason_body("SERVFAIL, then NXDOMAIN")))
    try:
        hosts = os.path.join(env.tmp, "hosts")
        with open(hosts, "w") as f:
            f.write(HOSTS)
        ref_conf, our_conf = os.path.join(env.tmp, "ref.conf"), os.path.join(env.tmp, "our.conf")
        with open(ref_conf, "w") as f:
            f.write("hosts: nctest\n")
        with open(our_conf, "w") as f:
            f.write("hosts: namecache [!UNAVAIL=return] files\n")
        nss_dir = os.path.join(BUILD, "tests", "nss")
        ref_env = dict(os.environ, LD_LIBRARY_PATH=nss_dir)
        ref_env.pop("NCTEST_LOG", None)
        our_env = nclib.nss_env(BUILD, fake.sock)
        ref = in_ns(ref_conf, hosts, ref_env, [PYTHON, PROBE, key])
        ours = in_ns(our_conf, hosts, our_env, [PYTHON, PROBE, key])
        assert ref.returncode == 0 and ours.returncode == 0, (ref.stderr, ours.stderr)
        want, got = json.loads(ref.stdout)[key], json.loads(ours.stdout)[key]
        assert want["gai_inet_plain"] == {"eai": socket.EAI_NONAME}, want
        assert want["gai_inet"] == want["gai_unspec"] == {"eai": socket.EAI_AGAIN}, want
        assert got == want, "glibc %r\nnamecache %r" % (want, got)
        mods = []
        for lib, mod, e in (("libnss_nctest.so.2", "nctest", ref_env),
                            ("libnss_namecache.so.2", "namecache", our_env)):
            r = subprocess.run([PYTHON, "-c", MODULE_CALLS, lib, mod, key], env=e,
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            mods.append(json.loads(r.stdout))
        # NSS_STATUS_NOTFOUND (0), errno EAGAIN (11), h_errno TRY_AGAIN (2)
        assert set(map(tuple, mods[0].values())) == {(0, 11, 2)}, mods[0]
        assert mods[1] == mods[0], "nctest %r\nnamecache %r" % tuple(mods)
        assert fake.requests >= len(mods[1]), fake.requests
    finally:
        fake.stop()


@test
def one_call_for_many_clients(env):
    d = env.daemon("files nctest")
    results = []

    def one():
        results.append(ask(d, "slow-1.nct"))

    threads = [threading.Thread(target=one) for _ in range(50)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    assert len(results) == 50 and all(r[0] == nclib.OK for r in results), results[:3]
    calls = env.calls("slow-1.nct")
    print("50 clients, %d module call(s), %.2f s" % (len(calls), took))
    assert len(calls) == 1, calls
    st = d.ctl_json("statistics")
    assert st["nss_nctest_calls"] == 1 and st["nss_answers"] >= 1, st


@test
def spellings_in_flight_are_not_coalesced(env):
    """A module may tell spellings apart (nss-myhostname answers "vm" and not
    "VM"); nss_nctest knows "Case-1.nct" and no other spelling of it.  Three
    spellings asked while the first one's call is in the module: glibc would
    find exactly the first, so must the daemon, on the miss and from the
    cache.  The module holds each case-N call until three are in it (or
    NCTEST_SLOW_MS), so the calls overlap whatever the machine's speed."""
    d = env.daemon("nctest", conf="nss_workers = 4\n", extra_env={"NCTEST_GATHER": "3"})
    names = ["Case-1.nct", "case-1.nct", "CASE-1.NCT"]
    mine = lambda: [c.split()[1] for c in env.calls() if "case-1.nct" in c.lower()]
    for rnd in ("miss", "cached"):
        got = {}
        before = len(mine())

        def one(name):
            got[name] = ask(d, name)[0]

        first = threading.Thread(target=one, args=(names[0],))
        first.start()
        if rnd == "miss":
            # The others go once the first one's call is in the module.
            nclib.wait_until(mine, "the first one's call in the module")
        rest = [threading.Thread(target=one, args=(n,)) for n in names[1:]]
        for t in rest:
            t.start()
        for t in [first] + rest:
            t.join()
        print("%s round: %s; module calls %s" % (rnd, ", ".join(
            "%s %s" % (n, "found" if got[n] == nclib.OK else "status %d" % got[n])
            for n in names), mine()[before:]))
        assert got == {names[0]: nclib.OK, names[1]: nclib.NOTFOUND,
                       names[2]: nclib.NOTFOUND}, (rnd, got)
        if rnd == "miss":
            # One call per spelling, each with its own spelling.
            assert sorted(mine()) == sorted(names), mine()
        else:
            assert len(mine()) == before, mine()    # all three from the cache
    # Through the NSS module (the shared segment, then the socket): the same.
    assert [d.getent("ahosts", n).returncode for n in names] == [0, 2, 2]
    assert len(mine()) == 3, mine()


@test
def stuck_module_times_out_and_others_flow(env):
    d = env.daemon("files nctest", conf="nss_timeout = 1\nnss_workers = 2\n")
    assert ask(d, "ok-1.nct")[0] == nclib.OK        # cached from now on
    out = []

    def stuck(n):
        out.append(ask(d, "stuck-%d.nct" % n))

    n0 = d.ctl_json("statistics")["lookups_name"]
    threads = [threading.Thread(target=stuck, args=(n,)) for n in range(1, 5)]
    for t in threads:
        t.start()
    nclib.wait_until(lambda: d.ctl_json("statistics")["lookups_name"] >= n0 + 4,
                     "the 4 stuck lookups at the daemon")
    # Meanwhile: a hosts name, a cached module answer, neither of which
    # waits for a worker (through the pool they would get TRYAGAIN).
    fast = [ask(d, "hostsonly"), ask(d, "ok-1.nct")]
    for t in threads:
        t.join(nclib.HUNG_SEC)
    assert all(r[0] == nclib.OK for r in fast), fast
    print("while stuck: hosts %.1f ms, cached %.1f ms" % (fast[0][2] * 1e3, fast[1][2] * 1e3))
    assert len(out) == 4 and all(r[0] == nclib.TRYAGAIN for r in out), out
    waits = sorted(r[2] for r in out)
    print("stuck lookups answered TRYAGAIN after %s s" % ", ".join("%.2f" % w for w in waits))
    # Two ran into the module and timed out; the two that queued behind
    # them timed out too (not failed for want of a worker): 4 timeouts.
    st = d.ctl_json("statistics")
    assert st["nss_workers"] <= 2, st
    assert st["nss_workers_stuck"] == 2, st
    assert st["nss_nctest_timeouts"] == 4, st
    status = d.ctl_json("status")
    assert status["nss_workers_stuck"] == 2, status
    # A second stuck name cannot grow the pool either.
    assert ask(d, "stuck-9.nct")[0] == nclib.TRYAGAIN
    assert d.ctl_json("statistics")["nss_workers"] <= 2


@test
def nsswitch_edits_take_effect(env):
    d = env.daemon("files")
    assert d.getent("ahosts", "ok-1.nct").returncode == 2
    assert d.getent("ahosts", "ok-1.nct").returncode == 2      # published negative
    with open(d.nsswitch, "w") as f:                               # in place
        f.write("hosts: namecache [!UNAVAIL=return] files nctest\n")
    nclib.wait_until(lambda: d.getent("ahosts", "ok-1.nct").returncode == 0,
                     lambda: "the edit in place in effect: %s" % d.read_log()[-2000:])
    assert d.ctl_json("status")["hosts_line"] == "files nctest"
    tmp = d.nsswitch + ".new"
    with open(tmp, "w") as f:
        f.write("# an editor's rename-over\nhosts: namecache [!UNAVAIL=return] files\n")
    os.rename(tmp, d.nsswitch)
    nclib.wait_until(lambda: d.getent("ahosts", "ok-1.nct").returncode == 2,
                     lambda: "the rename-over in effect: %s" % d.read_log()[-2000:])
    assert d.ctl_json("statistics")["nsswitch_reloads"] >= 2
    # A line glibc rejects keeps the one in place, and says why.
    with open(d.nsswitch, "w") as f:
        f.write("hosts: files [NOTFOUND=maybe] nctest\n")
    nclib.wait_until(lambda: d.ctl_json("status")["nsswitch_error"] != "",
                     "the rejected line reported")
    assert d.ctl_json("status")["hosts_line"] == "files"


@test
def ttls_flush_and_invalidate(env):
    d = env.daemon("nctest", conf="nss_negative_ttl = 60\nnss_positive_ttl = 60\n")
    st, a, _ = ask(d, "ttl-1.nct")
    assert st == nclib.OK and a["ttl"] == 2 and a["source"] is None, a   # source 5: nss
    st, a, _ = ask(d, "ttl-1.nct")
    assert st == nclib.OK and a["source"] == "cache" and a["ttl"] <= 2, a
    st, a, _ = ask(d, "ok-1.nct")
    assert a["ttl"] == 60, a
    q = d.ctl_json("query", "ok-1.nct")
    assert q["module"] == "nctest" and q["source"] == "cache", q
    assert ask(d, "notfound.nct")[0] == nclib.NOTFOUND
    assert ask(d, "notfound.nct")[0] == nclib.NOTFOUND
    assert len(env.calls("notfound.nct")) == 1
    cache = d.ctl_json("show-cache")
    mine = [e for e in cache if e["name"] == "ok-1.nct"]
    assert mine and mine[0]["source"] == "nctest", cache
    # invalidate drops that name's module answers, flush drops all.
    assert d.ctl("invalidate", "ok-1.nct").returncode == 0
    ask(d, "ok-1.nct")
    assert len(env.calls("ok-1.nct")) == 2
    assert d.ctl("flush-caches").returncode == 0
    assert d.ctl_json("show-cache") == []
    ask(d, "ok-1.nct")
    assert len(env.calls("ok-1.nct")) == 3


@test
def namecache_is_never_walked_nor_loaded(env):
    d = env.daemon("files namecache nctest namecache [NOTFOUND=return]")
    assert d.ctl_json("status")["hosts_line"] == "files nctest"
    assert ask(d, "ok-1.nct")[0] == nclib.OK
    with open("/proc/%d/maps" % d.proc.pid) as f:
        maps = f.read()
    assert "libnss_nctest.so.2" in maps
    assert "libnss_namecache" not in maps


@test
def missing_module_and_empty_line(env):
    d = env.daemon("nosuchmodule")
    st = ask(d, "ok-1.nct")[0]
    assert st == 11, st     # PROTO_UNAVAIL: final, every source unavailable
    r = d.getent("ahosts", "ok-1.nct")
    assert r.returncode == 2, r
    s = d.ctl_json("statistics")
    assert s["nss_nosuchmodule_unavail"] >= 1, s
    # Once it is known not to load, it is not called again, and the rest of
    # the line's answers are published as any others.
    assert d.stop() == 0
    env.daemons.remove(d)
    d = env.daemon("nosuchmodule files")
    for _ in range(3):
        r = ask(d, "hostsonly"); assert r[0] == 0, r
    s = d.ctl_json("statistics")
    assert s["nss_nosuchmodule_calls"] == 1, s
    assert s["shared_published"] >= 1, s


def main():
    def set_build(b):
        global BUILD
        BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-nss-", set_build)


if __name__ == "__main__":
    sys.exit(main())
