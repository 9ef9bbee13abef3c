#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/integration/test_shared.py - the shared answer segment end to end, through glibc.

Each test starts its own daemon in a temporary folder (the segment is the
"cache" file beside its socket), with its own hosts file, its own
resolv.conf and a FaultServer on 127.0.0.1 as its only upstream: no packet
leaves loopback.  Lookups go through the real NSS module, in one
long-lived process per test (a "prober": this script run with --prober,
which calls getaddrinfo, gethostbyname2_r and gethostbyaddr_r through
ctypes and keeps its mapping of the segment between calls), in getent
processes, and in a small C loop under strace.  Whether a lookup reached
the daemon is read from its statistics (lookups_name + lookups_addr).

Run: /usr/bin/python3 tests/integration/test_shared.py --build BUILD [-k NAME]
"""
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))

BUILD = None
TESTS = []

HOSTS = """# test hosts
127.0.0.1\tlocalhost
10.1.2.3   web.example.com   web WWW
2001:db8::7 v6only.example
10.9.9.9 Multi
10.9.9.10 multi other
"""

HOST_NOT_FOUND, NO_DATA = 1, 4


def test(fn):
    TESTS.append(fn)
    return fn


# --- the prober: NSS lookups in one long-lived process ---------------------------

class HostEnt(ctypes.Structure):
    _fields_ = [("h_name", ctypes.c_char_p),
                ("h_aliases", ctypes.POINTER(ctypes.c_char_p)),
                ("h_addrtype", ctypes.c_int),
                ("h_length", ctypes.c_int),
                ("h_addr_list", ctypes.POINTER(ctypes.POINTER(ctypes.c_char)))]


def _hostent(he):
    aliases, addrs, i = [], [], 0
    while he.h_aliases[i]:
        aliases.append(he.h_aliases[i].decode())
        i += 1
    i = 0
    while he.h_addr_list[i]:
        addrs.append(socket.inet_ntop(he.h_addrtype, ctypes.string_at(he.h_addr_list[i],
                                                                        he.h_length)))
        i += 1
    return {"ok": True, "name": he.h_name.decode(), "aliases": aliases, "addrs": addrs}


def prober_main(service):
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    getattr(libc, "__nss_configure_lookup")(b"hosts", service.encode())
    fams = {0: socket.AF_UNSPEC, 4: socket.AF_INET, 6: socket.AF_INET6}

    def ghbn2(name, af):
        he, res, herr = HostEnt(), ctypes.POINTER(HostEnt)(), ctypes.c_int(0)
        buf = ctypes.create_string_buffer(65536)
        rc = libc.gethostbyname2_r(name.encode(), fams[af], ctypes.byref(he), buf,
                                   ctypes.c_size_t(len(buf)), ctypes.byref(res),
                                   ctypes.byref(herr))
        if rc != 0 or not res:
            return {"ok": False, "rc": rc, "herr": herr.value}
        return _hostent(he)

    def ghba(addr):
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        raw = socket.inet_pton(fam, addr)
        he, res, herr = HostEnt(), ctypes.POINTER(HostEnt)(), ctypes.c_int(0)
        buf = ctypes.create_string_buffer(65536)
        rc = libc.gethostbyaddr_r(raw, len(raw), fam, ctypes.byref(he), buf,
                                  ctypes.c_size_t(len(buf)), ctypes.byref(res),
                                  ctypes.byref(herr))
        if rc != 0 or not res:
            return {"ok": False, "rc": rc, "herr": herr.value}
        return _hostent(he)

    def gai(name, af):
        try:
            out = []
            for ai in socket.getaddrinfo(name, None, fams[af], socket.SOCK_STREAM):
                if ai[4][0] not in out:
                    out.append(ai[4][0])
            return {"ok": True, "addrs": out}
        except socket.gaierror as e:
            return {"ok": False, "gai": e.errno}

    def one(req):
        if req["op"] == "ghbn2":
            return ghbn2(req["name"], req.get("af", 4))
        if req["op"] == "gai":
            return gai(req["name"], req.get("af", 0))
        if req["op"] == "ghba":
            return ghba(req["addr"])
        raise ValueError(req)

    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "loop":
            # n calls; the distinct answers, in the order first seen.
            seen = []
            for _ in range(req["n"]):
                r = one(req["req"])
                if r not in seen:
                    seen.append(r)
            res = {"answers": seen}
        else:
            res = one(req)
        sys.stdout.write(json.dumps(res) + "\n")
        sys.stdout.flush()


class Prober:
    """This script in --prober mode, reaching the daemon at sock through NSS."""

    def __init__(self, sock, service="namecache"):
        import nclib
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--prober",
                                   service], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, env=nclib.nss_env(BUILD, sock))

    def call(self, **req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise AssertionError("prober died: exit %s" % self.p.wait())
        return json.loads(line)

    def ghbn2(self, name, af=4):
        return self.call(op="ghbn2", name=name, af=af)

    def gai(self, name, af=0):
        return self.call(op="gai", name=name, af=af)

    def ghba(self, addr):
        return self.call(op="ghba", addr=addr)

    def loop(self, n, **req):
        return self.call(op="loop", n=n, req=req)["answers"]

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


# --- environment ------------------------------------------------------------------

class Env:
    """What one test started; the runner stops it all."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.servers = []
        self.daemons = []
        self.probers = []

    def fault(self):
        import dnsenv
        s = dnsenv.FaultServer()
        s.set_default("nxdomain", soa=True)
        self.servers.append(s)
        return s

    def daemon(self, fs, hosts=HOSTS, conf="", search=None):
        import nclib
        d_dir = os.path.join(self.tmp, "d%d" % len(self.daemons))
        os.mkdir(d_dir)
        resolv = os.path.join(d_dir, "resolv.conf")
        with open(resolv, "w") as f:
            f.write("nameserver 127.0.0.1\n" + ("search %s\n" % search if search else "") +
                    "options timeout:1 attempts:1\n")
        d = nclib.Daemon(BUILD, d_dir, hosts, conf, ["--log-level", "debug"], resolv=resolv,
                         upstream="127.0.0.1:%d" % fs.port)
        d.killed = False
        d.cache_file = os.path.join(d_dir, "cache")
        self.daemons.append(d)
        d.start()
        st = d.ctl_json("status")
        assert st["dns_servers"] == "127.0.0.1:%d" % fs.port, st
        assert st["dns_search"] == (search or ""), st
        return d

    def prober(self, d, service="namecache"):
        p = Prober(d.sock, service)
        self.probers.append(p)
        return p


def lookups(d):
    st = d.ctl_json("statistics")
    return st["lookups_name"] + st["lookups_addr"]


def reached(d, fn):
    """How many lookups fn made reach the daemon; and fn's result."""
    n0 = lookups(d)
    r = fn()
    return lookups(d) - n0, r


def socket_answer(d, name, af):
    """The daemon's answer over the socket (namecachectl), as the prober reports one."""
    flags = {4: ["-4"], 6: ["-6"]}.get(af, [])
    r = d.ctl("--json", "query", *(flags + [name]))
    return json.loads(r.stdout)


def kill9(d):
    d.proc.kill()
    d.proc.wait()
    d.killed = True
    if d.logf:
        d.logf.close()
        d.logf = None


def restart_term(d):
    rc = d.stop()
    assert rc == 0, ("daemon exit status on SIGTERM", rc, d.read_log()[-3000:])
    d.start()


def etc_hosts_name():
    """A name /etc/hosts gives an IPv4 address, and that address (glibc's files module)."""
    try:
        with open("/etc/hosts") as f:
            for line in f:
                w = line.split("#")[0].split()
                if len(w) >= 2 and re.fullmatch(r"\d+\.\d+\.\d+\.\d+", w[0]):
                    return w[1], w[0]
    except OSError:
        pass
    return None, None


# --- 1. hits stay in the process ---------------------------------------------------

@test
def hits_do_not_reach_the_daemon(env):
    fs = env.fault()
    fs.set("dns1.fault.example", "answer",
           records=[("A", 300, "192.0.2.11"), ("AAAA", 300, "2001:db8::11")])
    d = env.daemon(fs)
    pr = env.prober(d)
    reqs = [dict(op="ghbn2", name="web", af=4), dict(op="ghbn2", name="WWW", af=4),
            dict(op="ghbn2", name="v6only.example", af=6), dict(op="ghbn2", name="Multi", af=4),
            dict(op="gai", name="web.example.com", af=0), dict(op="gai", name="localhost", af=0),
            dict(op="gai", name="dns1.fault.example", af=0),
            dict(op="gai", name="dns1.fault.example", af=4),
            dict(op="ghbn2", name="dns1.fault.example", af=4),
            dict(op="ghbn2", name="dns1.fault.example", af=6),
            dict(op="ghba", addr="10.1.2.3"), dict(op="ghba", addr="2001:db8::7")]
    n, first = reached(d, lambda: [pr.call(**r) for r in reqs])
    assert all(r["ok"] for r in first), first
    assert 0 < n <= len(reqs), ("each first lookup asks the daemon at most once", n)
    # The answers equal the socket's.
    want = {"web": (["10.1.2.3"], "web.example.com", ["web", "WWW"]),
            "WWW": (["10.1.2.3"], "web.example.com", ["web", "WWW"])}
    for req, res in zip(reqs, first):
        if req["op"] == "ghba":
            continue
        j = socket_answer(d, req["name"], req["af"])
        assert j["status"] == "ok" and res["addrs"] == j["addresses"], (req, res, j)
        if req["op"] == "ghbn2":
            assert res["name"] == j["canonical"] and res["aliases"] == j["aliases"], (res, j)
        if req.get("name") in want:
            assert (res["addrs"], res["name"], res["aliases"]) == want[req["name"]], res
    assert first[10]["name"] == "web.example.com" and first[10]["addrs"] == ["10.1.2.3"]
    assert first[11]["name"] == "v6only.example"
    assert first[6]["addrs"] == ["192.0.2.11", "2001:db8::11"], first[6]
    # The same lookups again, 200 times each: none reaches the daemon.  (The
    # IPv4-only and IPv6-only lookups of dns1 come after the lookup of both
    # families, so the daemon answers them from its cache, not upstream.)
    t0 = time.monotonic()
    bad = []
    for req, res in zip(reqs, first):
        n, ans = reached(d, lambda: pr.loop(200, **req))
        assert ans == [res], (req, res, ans)
        if n:
            bad.append("%s %s family %s: %d of 200" % (req["op"], req.get("name", req.get("addr")),
                                                      req.get("af"), n))
    took = time.monotonic() - t0
    assert not bad, "hits reached the daemon: " + "; ".join(bad)
    assert fs.count("dns1.fault.example", "A") == 1, fs.counts()
    print("  %d hits from one process, none asked the daemon (%.1f us a call, Python "
          "included)" % (200 * len(reqs), took / (200 * len(reqs)) * 1e6))
    # Other processes: getent maps the segment and finds the same answers.
    # (getent hosts asks for IPv6 first: web has none, a negative answer.)
    assert not pr.ghbn2("web", 6)["ok"]
    n, outs = reached(d, lambda: [d.getent("hosts", "web"), d.getent("ahosts", "dns1.fault.example"),
                                  d.getent("hosts", "web")])
    assert n == 0, ("getent's hits reached the daemon", n)
    assert outs[0].returncode == 0 and outs[0].stdout.split() == ["10.1.2.3", "web.example.com",
                                                                  "web", "WWW"], outs[0]
    assert outs[1].returncode == 0 and "192.0.2.11" in outs[1].stdout, outs[1]
    assert outs[2].stdout == outs[0].stdout


# --- 2. changes reach a process that holds the mapping -------------------------------

def wait_answer(pr, name, af, want, allowed):
    """Polls until name's addresses are want; every answer on the way must be
    in allowed.  Returns the seconds it took, to print."""
    import nclib
    t0 = time.monotonic()
    seen = []

    def got_want():
        r = pr.ghbn2(name, af)
        got = r["addrs"] if r["ok"] else None
        if got not in seen:
            seen.append(got)
        assert got == want or got in allowed, ("unexpected answer on the way", name, got, seen)
        return got == want
    nclib.wait_until(got_want, lambda: "%s answered %s (seen: %s)" % (name, want, seen))
    return time.monotonic() - t0


@test
def hosts_change_seen_by_a_process_holding_the_mapping(env):
    fs = env.fault()
    d = env.daemon(fs)
    pr = env.prober(d)
    assert pr.ghbn2("web")["addrs"] == ["10.1.2.3"]
    assert pr.ghbn2("web")["addrs"] == ["10.1.2.3"]
    assert not pr.ghbn2("fresh.example")["ok"]
    d.write_hosts(HOSTS.replace("10.1.2.3", "10.1.2.4") + "10.7.7.7 fresh.example\n")
    t = wait_answer(pr, "web", 4, ["10.1.2.4"], [["10.1.2.3"]])
    assert pr.ghbn2("fresh.example")["addrs"] == ["10.7.7.7"]
    print("  in-place rewrite seen by a process holding the mapping after %.0f ms" % (t * 1000))
    tmp = d.hosts + ".new"
    with open(tmp, "w") as f:
        f.write("10.1.2.5 web\n")
    os.rename(tmp, d.hosts)
    t = wait_answer(pr, "web", 4, ["10.1.2.5"], [["10.1.2.4"]])
    print("  rename-over seen after %.0f ms" % (t * 1000))
    r = pr.ghbn2("v6only.example", 6)
    assert not r["ok"] and r["herr"] == HOST_NOT_FOUND, ("removed name still answered", r)
    assert not pr.ghbn2("fresh.example")["ok"]
    # And then served from the segment again.
    pr.ghbn2("web")
    n, ans = reached(d, lambda: pr.loop(50, op="ghbn2", name="web", af=4))
    assert n == 0 and [a["addrs"] for a in ans] == [["10.1.2.5"]], (n, ans)


@test
def unchanged_hosts_file_keeps_the_segment(env):
    """A hosts file written again with the same bytes (an editor saving, a
    touch) is read again but changes nothing: the segment stays, and hits
    stay hits.  A real change after it is still seen."""
    import nclib
    fs = env.fault()
    d = env.daemon(fs)
    pr = env.prober(d)
    assert pr.ghbn2("web")["addrs"] == ["10.1.2.3"]
    st0 = d.ctl_json("statistics")
    g0 = d.ctl_json("status")["hosts_generation"]
    for _ in range(3):
        # The same bytes over themselves, never a truncated file in between
        # (a reload between "w"'s truncate and its write would be a change).
        with open(d.hosts, "r+") as f:
            f.write(HOSTS)
        os.utime(d.hosts)
    nclib.wait_until(lambda: d.ctl_json("status")["hosts_generation"] > g0,
                     "the hosts file read again")
    st1 = d.ctl_json("statistics")
    assert st1["hosts_reloads"] > st0["hosts_reloads"], ("not read again", st0, st1)
    assert st1["hosts_reloads_unchanged"] == (st1["hosts_reloads"] - st0["hosts_reloads"] +
                                              st0["hosts_reloads_unchanged"]), st1
    assert st1["shared_resets"] == st0["shared_resets"], ("segment replaced", st0, st1)
    n, ans = reached(d, lambda: pr.loop(20, op="ghbn2", name="web", af=4))
    assert n == 0 and [a["addrs"] for a in ans] == [["10.1.2.3"]], (n, ans)
    # A real change, renamed over: one reload that changes something.  Any
    # later reload of the same writes comes before it, or is merged into it.
    rename_hosts(d, HOSTS.replace("10.1.2.3", "10.1.2.9"))
    wait_answer(pr, "web", 4, ["10.1.2.9"], [["10.1.2.3"]])
    wait_loaded(d)
    st2 = d.ctl_json("statistics")
    reloads = st2["hosts_reloads"] - st0["hosts_reloads"]
    unchanged = st2["hosts_reloads_unchanged"] - st0["hosts_reloads_unchanged"]
    assert reloads >= 2 and unchanged == reloads - 1, (st0, st2)
    assert st2["shared_resets"] == st0["shared_resets"] + 1, ("one reset: the change's", st0, st2)


@test
def flush_and_invalidate_take_effect_at_once(env):
    fs = env.fault()
    name = "chg.fault.example"
    fs.set(name, "answer", records=[("A", 300, "192.0.2.50")])
    d = env.daemon(fs)
    pr = env.prober(d)
    assert pr.ghbn2(name)["addrs"] == ["192.0.2.50"]
    fs.set(name, "answer", records=[("A", 300, "192.0.2.51")])
    # A valid cached answer until told otherwise.
    n, ans = reached(d, lambda: pr.loop(20, op="ghbn2", name=name, af=4))
    assert n == 0 and [a["addrs"] for a in ans] == [["192.0.2.50"]], (n, ans)
    assert d.ctl("flush-caches").returncode == 0
    assert pr.ghbn2(name)["addrs"] == ["192.0.2.51"], "flush not seen by the next lookup"
    assert pr.ghbn2("web")["addrs"] == ["10.1.2.3"]
    fs.set(name, "answer", records=[("A", 300, "192.0.2.52")])
    assert pr.ghbn2(name)["addrs"] == ["192.0.2.51"]
    assert d.ctl("invalidate", name).returncode == 0
    assert pr.ghbn2(name)["addrs"] == ["192.0.2.52"], "invalidate not seen by the next lookup"
    n, ans = reached(d, lambda: pr.loop(20, op="ghbn2", name=name, af=4))
    assert n == 0 and [a["addrs"] for a in ans] == [["192.0.2.52"]], (n, ans)


@test
def dns_answers_published_again_after_a_reset(env):
    """A hosts reload (or SIGHUP) replaces the segment but keeps the daemon's
    DNS cache: the next lookup is answered from that cache, and must be
    published again, so that the ones after it are hits."""
    import nclib
    fs = env.fault()
    name = "kept.fault.example"
    fs.set(name, "answer", records=[("A", 300, "192.0.2.60")])
    d = env.daemon(fs)
    pr = env.prober(d)
    assert pr.ghbn2(name)["addrs"] == ["192.0.2.60"]
    n, _ = reached(d, lambda: pr.loop(10, op="ghbn2", name=name, af=4))
    assert n == 0, n
    def sighup_new_bound():
        # A reload resets the segment when it brings something published
        # answers depend on: here a new TTL bound (issue 12: nothing new,
        # no reset; a change, one).
        with open(d.conf, "w") as f:
            f.write("max_ttl = 86399\n")
        d.proc.send_signal(signal.SIGHUP)

    def hosts_reload():
        rename_hosts(d, HOSTS + "10.3.3.3 other.example\n")
        wait_loaded(d)

    def sighup_reload():
        sighup_new_bound()
        nclib.wait_until(lambda: d.ctl_json("status")["max_ttl"] == 86399,
                         "the new max_ttl read on SIGHUP")

    for why, act in (("hosts reload", hosts_reload), ("SIGHUP", sighup_reload)):
        g0 = d.ctl_json("statistics").get("shared_resets", 0)
        act()
        nclib.wait_until(lambda: d.ctl_json("statistics").get("shared_resets", 0) > g0,
                         "the segment reset after a %s" % why)
        assert d.ctl_json("statistics")["shared_resets"] == g0 + 1, (why, "one reset")
        n, ans = reached(d, lambda: pr.loop(20, op="ghbn2", name=name, af=4))
        assert [a["addrs"] for a in ans] == [["192.0.2.60"]], ans
        assert fs.count(name, "A") == 1, ("answered from the daemon's cache", fs.counts())
        assert n <= 1, ("after a %s, an answer from the daemon's cache is never published "
                        "again: %d of 20 lookups reached the daemon" % (why, n))


def rename_hosts(d, text):
    """The hosts file replaced whole (an editor's rename-over): one change."""
    tmp = d.hosts + ".new"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, d.hosts)


def wait_loaded(d):
    """Until the daemon's status names the hosts file as it now is."""
    import nclib
    st = os.stat(d.hosts)
    want = "%d:%d:%d.%09d" % (st.st_ino, st.st_size, st.st_mtime_ns // 10**9,
                              st.st_mtime_ns % 10**9)
    nclib.wait_until(lambda: d.ctl_json("status")["hosts_stamp"] == want,
                     "the hosts file %s loaded" % want)


# --- 3. restarts and a dead daemon ----------------------------------------------------

@test
def daemon_restart_sigterm_and_sigkill(env):
    import nclib
    fs = env.fault()
    fs.set("dns1.fault.example", "answer", records=[("A", 300, "192.0.2.11")])
    d = env.daemon(fs)
    pr = env.prober(d)
    for addr, how in (("10.1.2.8", "SIGTERM"), ("10.1.2.9", "SIGKILL")):
        old = pr.ghbn2("web")["addrs"]
        assert pr.ghbn2("web")["addrs"] == old
        assert pr.ghbn2("dns1.fault.example")["addrs"] == ["192.0.2.11"]
        if how == "SIGTERM":
            assert d.stop() == 0, d.read_log()[-3000:]
            assert not os.path.exists(d.cache_file), "segment left behind by a clean stop"
        else:
            kill9(d)
            assert os.path.exists(d.cache_file)
        # The hosts file changes while no daemon runs.
        d.write_hosts(HOSTS.replace("10.1.2.3", addr))
        if how == "SIGTERM":
            r = pr.ghbn2("web")
            assert not r["ok"], ("answered with the daemon stopped", r)
        d.start()
        d.killed = False
        # The very first answer is the new file's: never the old segment's.
        r = pr.ghbn2("web")
        assert r["ok"] and r["addrs"] == [addr], (how, "stale hosts answer after restart", r, old)
        assert pr.ghbn2("dns1.fault.example")["addrs"] == ["192.0.2.11"]
        # And the prober uses the new segment (after its retry second).
        t0 = time.monotonic()
        nclib.wait_until(lambda: reached(d, lambda: pr.ghbn2("web"))[0] == 0,
                         "the new segment used", step=0.05)
        print("  %s: new segment used %.0f ms after the restart" %
              (how, (time.monotonic() - t0) * 1000))


@test
def sigkill_falls_back_to_files_after_the_heartbeat(env):
    import nclib
    name, files_addr = etc_hosts_name()
    if name is None:
        nclib.skip_part("sigkill_falls_back_to_files_after_the_heartbeat",
                        "/etc/hosts names no IPv4 address")
        return
    fs = env.fault()
    fs.set("dns1.fault.example", "answer", records=[("A", 300, "192.0.2.11")])
    d = env.daemon(fs, hosts="10.77.0.1 %s\n" % name)
    pr = env.prober(d, "namecache [!UNAVAIL=return] files")
    assert pr.ghbn2(name)["addrs"] == ["10.77.0.1"]
    assert pr.ghbn2("dns1.fault.example")["addrs"] == ["192.0.2.11"]
    kill9(d)
    t0 = time.monotonic()
    served = [0]

    def on_files():
        r = pr.ghbn2(name)
        if r["ok"] and r["addrs"] == [files_addr]:
            return True
        assert r["ok"] and r["addrs"] == ["10.77.0.1"], ("wrong answer after SIGKILL", r)
        dr = pr.ghbn2("dns1.fault.example")
        assert dr["ok"] and dr["addrs"] == ["192.0.2.11"], ("cached DNS answer lost", dr)
        served[0] += 1
        return False
    # The age at which a heartbeat is stale is tests/unit/test-shm.c's
    # (test_stale_heartbeat); here: the segment first, files after.
    nclib.wait_until(on_files, "files once the dead daemon's heartbeat went stale", step=0.05)
    print("  dead daemon's segment served %d lookups, then files after %.2f s" % (
        served[0], time.monotonic() - t0))
    assert served[0] >= 1, "fell back to files at once, with the heartbeat fresh"
    assert not pr.ghbn2("dns1.fault.example")["ok"]


@test
def shared_no(env):
    fs = env.fault()
    fs.set("dns1.fault.example", "answer", records=[("A", 300, "192.0.2.11")])
    d = env.daemon(fs, conf="shared = no\n")
    assert d.ctl_json("status")["shared"] == "no"
    assert not os.path.exists(d.cache_file)
    pr = env.prober(d)
    n, ans = reached(d, lambda: pr.loop(10, op="ghbn2", name="web", af=4))
    assert n == 10 and [a["addrs"] for a in ans] == [["10.1.2.3"]], (n, ans)
    n, ans = reached(d, lambda: pr.loop(5, op="gai", name="dns1.fault.example", af=4))
    assert n == 5 and ans == [{"ok": True, "addrs": ["192.0.2.11"]}], (n, ans)
    # getent hosts asks for IPv6, then IPv4: two lookups.
    n, r = reached(d, lambda: d.getent("hosts", "web"))
    assert n == 2 and r.returncode == 0 and "10.1.2.3" in r.stdout, (n, r)
    assert not os.path.exists(d.cache_file)
    assert [f for f in os.listdir(os.path.dirname(d.cache_file)) if f.startswith("cache")] == []


# --- 4. time -------------------------------------------------------------------------
# Expiry and the last 10% of a TTL are the engine's, on a fake clock
# (tests/unit/test-engine.c; TTL-CASES.md, cases 12-14).

# --- 5. negative answers ----------------------------------------------------------------

@test
def negative_answers_from_the_segment(env):
    fs = env.fault()
    fs.set("nx.fault.example", "nxdomain", soa=True, soa_ttl=300, minimum=300)
    fs.set("nd.fault.example", "nodata", soa=True, soa_ttl=300, minimum=300)
    d = env.daemon(fs)
    pr = env.prober(d)
    for name, herr in (("nx.fault.example", HOST_NOT_FOUND), ("nd.fault.example", NO_DATA)):
        n, r = reached(d, lambda: pr.ghbn2(name))
        assert n == 1 and not r["ok"] and r["herr"] == herr, (name, n, r)
        n, ans = reached(d, lambda: pr.loop(20, op="ghbn2", name=name, af=4))
        assert n == 0 and ans == [r], (name, n, ans)
        # Negative answers match any spelling.
        n, ans = reached(d, lambda: pr.loop(5, op="ghbn2", name=name.upper(), af=4))
        assert n == 0 and ans == [r], (name.upper(), n, ans)
        # Both families: A from the daemon's cache, AAAA from upstream.
        g = pr.gai(name)
        n, ans = reached(d, lambda: pr.loop(10, op="gai", name=name, af=0))
        assert ans == [g] and not g["ok"], (name, ans)
        assert n == 0, ("getaddrinfo of %s: the negative answer for both families, half of it "
                        "from the daemon's cache, is not published: %d of 10 lookups reached "
                        "the daemon" % (name, n))
        assert fs.count(name, "A") == 1, fs.counts()


@test
def negative_answers_without_soa_never_published(env):
    """With no SOA a negative answer is not cached (SPEC), by the daemon nor
    in the segment: every lookup reaches the daemon and goes upstream.  Also
    when one search candidate had an SOA and another had none."""
    fs = env.fault()
    fs.set("bare.fault.example", "nxdomain", soa=False)
    d = env.daemon(fs)
    pr = env.prober(d)
    n, ans = reached(d, lambda: pr.loop(3, op="ghbn2", name="bare.fault.example", af=4))
    assert len(ans) == 1 and not ans[0]["ok"], ans
    assert n == 3 and fs.count("bare.fault.example", "A") == 3, (n, fs.counts())
    # The name as asked has an SOA (300 s), the search candidate none.
    fs.set("mixed.nosoa", "nxdomain", soa=True, soa_ttl=300, minimum=300)
    fs.set("mixed.nosoa.s.fault.example", "nxdomain", soa=False)
    d2 = env.daemon(fs, search="s.fault.example")
    pr2 = env.prober(d2)
    n, ans = reached(d2, lambda: pr2.loop(3, op="ghbn2", name="mixed.nosoa", af=4))
    assert len(ans) == 1 and not ans[0]["ok"], ans
    cached = [e for e in d2.ctl_json("show-cache") if e["name"].startswith("mixed")]
    assert cached == [], ("the daemon caches it", cached)
    assert n == 3, ("not cached by the daemon, but published in the segment for the "
                    "SOA's 300 s: only %d of 3 lookups reached the daemon" % n)


# --- 6. the file -------------------------------------------------------------------------

@test
def file_mode_owner_and_refusal(env):
    fs = env.fault()
    d = env.daemon(fs)
    st = os.stat(d.cache_file)
    with open("/proc/%d/status" % d.proc.pid) as f:
        uid = int(re.search(r"^Uid:\s+\d+\s+(\d+)", f.read(), re.M).group(1))
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o644, oct(st.st_mode)
    assert st.st_uid == uid, (st.st_uid, uid)
    assert d.getent("hosts", "web").returncode == 0
    n, outs = reached(d, lambda: [d.getent("hosts", "web") for _ in range(3)])
    assert n == 0 and all(o.returncode == 0 for o in outs), (n, outs)
    # Readable by anyone: a process of another user (nobody) hits it too.
    os.chmod(os.path.dirname(d.cache_file), 0o755)
    os.chmod(env.tmp, 0o755)
    import nclib
    env_nobody = nclib.nss_env(BUILD, d.sock)
    n, r = reached(d, lambda: subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "getent", "-s",
         "namecache", "hosts", "web"], capture_output=True, text=True, env=env_nobody))
    assert r.returncode == 0 and "10.1.2.3" in r.stdout and n == 0, (n, r)
    # Writable by others: not trusted; every lookup goes to the socket
    # (getent hosts asks for IPv6, then IPv4: two lookups each).
    for mode in (0o666, 0o664, 0o646):
        os.chmod(d.cache_file, mode)
        n, outs = reached(d, lambda: [d.getent("hosts", "web") for _ in range(3)])
        assert n == 6 and all(o.returncode == 0 and "10.1.2.3" in o.stdout for o in outs), \
            (oct(mode), n, outs)
    os.chmod(d.cache_file, 0o644)
    n, outs = reached(d, lambda: [d.getent("hosts", "web") for _ in range(3)])
    assert n == 0, n
    # Not a regular file: a symbolic link to the segment is not followed.
    real = d.cache_file + ".real"
    os.rename(d.cache_file, real)
    os.symlink(real, d.cache_file)
    n, outs = reached(d, lambda: [d.getent("hosts", "web") for _ in range(2)])
    assert n == 4, ("a symbolic link was followed", n)
    os.unlink(d.cache_file)
    os.rename(real, d.cache_file)


# --- 7. system calls -----------------------------------------------------------------------

def strace_calls(argv, env):
    out = tempfile.mktemp(prefix="nc-strace-")
    try:
        r = subprocess.run(["strace", "-f", "-c", "-o", out] + argv, env=env,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (argv, r.stderr)
        with open(out) as f:
            text = f.read()
    finally:
        if os.path.exists(out):
            os.unlink(out)
    calls = {}
    total = None
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 5 and re.fullmatch(r"[\d.]+", w[0]) and w[-1] != "total":
            calls[w[-1]] = int(w[3])
        elif len(w) >= 5 and w[-1] == "total":
            total = int(w[3])
    return total, calls


@test
def syscalls_per_hit(env):
    if shutil.which("strace") is None:
        import nclib
        nclib.skip_part("syscalls_per_hit", "no strace: the system calls of a hit are "
                        "not counted")
        return
    name, _ = etc_hosts_name()
    fs = env.fault()
    d = env.daemon(fs)
    import nclib
    loop = os.path.join(BUILD, "tests", "shared", "nss-loop")
    e = nclib.nss_env(BUILD, d.sock)
    N = 2000
    per = {}
    for service, host in (("namecache", "web"), ("files", name)):
        if host is None:
            nclib.skip_part("syscalls_per_hit_files", "/etc/hosts names no IPv4 address: "
                            "glibc's files module is not counted beside it")
            continue
        t1, c1 = strace_calls([loop, service, host, "1"], e)
        n, (tn, cn) = reached(d, lambda: strace_calls([loop, service, host, str(N)], e))
        per[service] = (tn - t1) / (N - 1)
        extra = {k: v - c1.get(k, 0) for k, v in cn.items() if v - c1.get(k, 0) > 0}
        print("  %-9s %d lookups: %d system calls, %d for one: %.2f a lookup %s" %
              (service, N, tn, t1, per[service], extra))
        if service == "namecache":
            assert n == 0, ("lookups reached the daemon", n)
    # glibc's own per-call work (a stat of resolv.conf) is all a hit costs.
    assert per["namecache"] <= 1.05, per
    if "files" in per:
        assert per["namecache"] < per["files"], per


# --- runner ------------------------------------------------------------------------------

def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--prober":
        prober_main(sys.argv[2] if len(sys.argv) > 2 else "namecache")
        return 0

    def set_build(b):
        global BUILD
        BUILD = b
    import nclib
    return nclib.run_tests(TESTS, Env, "nc-shm-", set_build)

if __name__ == "__main__":
    sys.exit(main())
