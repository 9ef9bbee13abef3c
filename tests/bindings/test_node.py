#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/bindings/test_node.py - the Node.js binding (client-lib/node) against dns.lookup (issue 14).

In the same namespace as test_python.py (bindenv.enter: nsd on loopback
with the test zones, diff.example, broken.example and a root, search
test.example diff.example, corpus.HOSTS over /etc/hosts, "hosts:
files dns"), so dns.lookup (glibc's getaddrinfo on libuv's pool) is the
reference.  node_probe.js does the Node side.

  * differential: every corpus name x family x all x hints x order
    (verbatim, ipv4first, ipv6first, and the verbatim flag), callback and
    promise, namecache.lookup against dns.lookup, as misses and as hits:
    the same result, in the same order, or the same error (message, code,
    errno, syscall, hostname); net.connect and http.Agent with
    namecache.lookup as their lookup connect;
  * the pool test: four pbkdf2 jobs hold libuv's four threads; a hit, a DNS
    miss (nsd), a negative name and a promise through namecache call back
    before any pbkdf2 job ends, while dns.lookup waits for a thread;
  * faults: no daemon (all falls back, same answers); the daemon stopped
    with lookups in flight, killed, restarted: every lookup calls back
    exactly once, and namecache answers again after the restart;
  * no leaks: a million lookups keep RSS flat (after a GC).

Needs root and node (exit 77, a skip, otherwise).  Nothing leaves the namespace.

Run: /usr/bin/python3 tests/bindings/test_node.py --build BUILD
"""
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import nclib  # noqa: E402
import bindenv  # noqa: E402
import corpus  # noqa: E402

TESTS = []
PROBE = os.path.join(HERE, "node_probe.js")
NODE = shutil.which("node") or shutil.which("nodejs")


def test(fn):
    TESTS.append(fn)
    return fn


def package():
    return os.path.join(bindenv.BUILD, "client-lib", "node")


def probe(*args, timeout=120, **kw):
    r = subprocess.run([NODE, "--expose-gc", PROBE, package()] + list(args),
                       capture_output=True, text=True, timeout=timeout, **kw)
    assert r.returncode == 0, (r.returncode, r.stdout[-2000:], r.stderr[-3000:])
    return json.loads(r.stdout.splitlines()[-1])


def cases():
    out = []
    for name in corpus.NAMES:
        out.append([name, None])
        out.append([name, 6])
        for family, all_, hints, order in itertools.product(
                (0, 4, 6), (False, True), (0, 32), ("verbatim", "ipv4first", "ipv6first")):
            o = {"family": family, "all": all_, "order": order}
            if hints:
                o["hints"] = hints
            out.append([name, o])
        out.append([name, {"family": "IPv6", "all": True, "verbatim": False}])
    return out


def compare(env, result):
    diffs = []
    for c in result["out"]:
        if c["dns"] != c["ours"]:
            diffs.append("%s %r%s:\n  dns.lookup %r\n  namecache  %r" % (
                c["name"], c["options"], " (promise)" if c.get("promise") else "",
                c["dns"], c["ours"]))
    return diffs


@test
def differential(env):
    d = env.daemon()
    path = os.path.join(env.tmp, "cases.json")
    with open(path, "w") as f:
        json.dump(cases(), f)
    total = 0
    for rnd in ("miss", "hit"):
        if rnd == "miss":
            d.ctl("flush-caches")
        r = probe("diff", path)
        diffs = compare(env, r)
        assert not diffs, "%s: %d of %d differ:\n%s" % (rnd, len(diffs), len(r["out"]),
                                                       "\n".join(diffs[:10]))
        total += len(r["out"])
        # The search list's two cases are there (corpus.py): the pair split
        # across domains, and SERVFAIL then NXDOMAIN.
        seen = {(c["name"], json.dumps(c["options"])): c["dns"] for c in r["out"]
                if not c.get("promise")}
        one = {"all": True, "order": "verbatim"}
        got = lambda name, fam: seen[(name, json.dumps(dict(family=fam, **one)))]  # noqa: E731
        assert [a["address"] for a in got("v6only", 0)["result"]] == ["2001:db8::6"]
        assert [a["address"] for a in got("v6only", 4)["result"]] == ["192.0.2.154"]
        assert [a["address"] for a in got("v4only", 6)["result"]] == ["2001:db8::154"]
        assert got("x.broken.example", 4)["error"]["code"] == "ENOTFOUND"
        assert got("x.broken.example", 0)["error"]["code"] == "EAI_AGAIN"
        # Handed to dns.lookup: numeric names, and what it rejects (the
        # promise API takes no "IPv6" family).  Everything else is ours.
        handed = [c for c in r["out"] if not c["answered"]]
        odd = [c for c in handed if not (c["name"][0].isdigit() or ":" in c["name"] or (
            c.get("promise") and c["options"].get("family") == "IPv6"))]
        assert not odd, odd[:5]
        c = r["counters"]
        assert c["fallbacks"] == 0 and c["answered"] == len(r["out"]) - len(handed), c
        if rnd == "hit":
            socket_hits = sum(1 for x in r["out"] if x["answered"] and
                              x["name"] in corpus.TEMPORARY)
            assert c["fromShared"] == c["answered"] - socket_hits, (c, socket_hits)
    print("     %d comparisons, 0 differences" % total)


@test
def connect(env):
    env.daemon()
    js = r"""
const net = require('net'), http = require('http');
const nc = require(process.argv[1]);
const srv = http.createServer((q, s) => s.end('ok')).listen(0, '::', () => {
  const port = srv.address().port;
  const agent = new http.Agent({ lookup: nc.lookup });
  http.get({ host: 'localhost', port, agent }, (res) => {
    let body = '';
    res.on('data', (d) => body += d).on('end', () => {
      const s = net.connect({ host: 'thishost', port, lookup: nc.lookup }, () => {
        s.end();
        srv.close();
        console.log(JSON.stringify({ body, remote: s.remoteAddress, counters: nc.counters }));
      });
    });
  });
});
"""
    r = subprocess.run([NODE, "-e", js, package()], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["body"] == "ok", out
    assert out["remote"] in ("::ffff:127.0.1.1", "127.0.1.1"), out
    assert out["counters"]["answered"] >= 2 and out["counters"]["fallbacks"] == 0, out


@test
def busy_pool(env):
    d = env.daemon()
    subprocess.run(["getent", "hosts", "localhost"], capture_output=True)
    # the hit is in the shared cache; the miss is not in the daemon's cache
    probe("diff", _write(env, [["dual", None]]))
    d.ctl("flush-caches")
    probe("diff", _write(env, [["dual", None]]))
    r = probe("pool", "dual", "www.test.example", "nosuch.test.example", timeout=180)
    ev = r["events"]
    order = [e["what"] for e in ev]
    first_pbkdf2 = order.index("pbkdf2")
    for what in ("hit", "miss", "negative", "promise"):
        assert order.index(what) < first_pbkdf2, ev
    assert order.index("dns.lookup") > first_pbkdf2, ev
    got = {e["what"]: e for e in ev}
    assert got["hit"]["address"] == "192.0.2.5" or got["hit"]["address"] == "2001:db8::5", ev
    assert got["negative"]["error"] == "ENOTFOUND", ev
    print("     %s; pbkdf2 %d iterations" % (", ".join(
        "%s %d ms" % (e["what"], e["ms"]) for e in ev), r["iterations"]))


def _write(env, cs):
    path = os.path.join(env.tmp, "c%d.json" % len(os.listdir(env.tmp)))
    with open(path, "w") as f:
        json.dump(cs, f)
    return path


@test
def faults(env):
    # No daemon at all: dns.lookup's answers.
    os.environ["NAMECACHE_SOCKET"] = os.path.join(env.tmp, "nobody", "sock")
    r = probe("diff", _write(env, [[n, {"all": True}] for n in
                                   ("localhost", "www.test.example", "nosuch.test.example")]))
    assert not compare(env, r) and r["counters"]["answered"] == 0, r
    d = env.daemon()
    p = subprocess.Popen([NODE, PROBE, package(), "faults"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    try:
        def say(line):
            p.stdin.write(line + "\n")
            p.stdin.flush()
        # stopped: the lookups wait in flight; then killed
        d.proc.send_signal(signal.SIGSTOP)
        say("submit 100")
        assert p.stdout.readline().split() == ["submitted", "100"]
        d.proc.kill()
        d.proc.wait()
        d.killed = True
        say("wait")
        line = p.stdout.readline()
        first = json.loads(line.split(" ", 1)[1])
        d2 = env.daemon()
        say("submit 50")
        p.stdout.readline()
        say("wait")
        second = json.loads(p.stdout.readline().split(" ", 1)[1])
        say("quit")
        p.wait(30)
    finally:
        if p.poll() is None:
            p.kill()
    answers = second["answers"]
    assert sorted(map(int, answers)) == list(range(150)), answers
    assert all(v == ["ENOTFOUND"] for v in answers.values()), answers
    # the 100 in flight were handed to dns.lookup; the 50 after the restart answered
    assert first["counters"]["fallbacks"] == 100, first
    assert second["counters"]["answered"] - first["counters"]["answered"] == 50, second
    assert d2.proc.poll() is None


def line_cases(names):
    out = []
    for name in names:
        out += [[name, None], [name, 4], [name, 6]]
        for family, all_, hints, order in itertools.product(
                (0, 4, 6), (False, True), (0, 32), ("verbatim", "ipv4first", "ipv6first")):
            o = {"family": family, "all": all_, "order": order}
            if hints:
                o["hints"] = hints
            out.append([name, o])
    return out


def line_diff(env, line, names, sock, v4_only=False):
    """node_probe.js diff under "hosts: LINE" with tests/nss's module, and
    NAMECACHE_SOCKET at sock: every case answered by namecache, and equal."""
    e = bindenv.nctest_env(dict(os.environ, NAMECACHE_SOCKET=sock))
    r = bindenv.with_line(env.tmp, line, [NODE, PROBE, package(), "diff",
                                          _write(env, line_cases(names))], e, v4_only=v4_only)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.splitlines()[-1])
    diffs = compare(env, out)
    assert not diffs, "%d of %d differ:\n%s" % (len(diffs), len(out["out"]),
                                                "\n".join(diffs[:10]))
    assert all(c["answered"] for c in out["out"]), [c for c in out["out"]
                                                    if not c["answered"]][:3]
    return out


@test
def scoped_addresses(env):
    """A module's link-local address with its interface (tests/nss's
    scoped-N, as nss-myhostname's fe80::1%eth0): dns.lookup gives 'fe80::N'
    without the scope, first (the scope makes it usable to the sort);
    namecache the same, in the same order."""
    bindenv.add_link()
    try:
        env.daemon(line="files nctest", env=bindenv.nctest_env())
        out = line_diff(env, "files nctest", ["scoped-5.nct", "ok-6.nct", "v6-7.nct"],
                        os.environ["NAMECACHE_SOCKET"])
        first = [c["dns"] for c in out["out"] if c["name"] == "scoped-5.nct" and
                 c["options"] == {"family": 0, "all": True, "order": "verbatim"}]
        assert first and first[0]["result"][0] == {"address": "fe80::5", "family": 6}, first
        print("     %d comparisons, 0 differences" % len(out["out"]))
    finally:
        bindenv.del_link()


@test
def notfound_after_a_temporary_failure(env):
    """Status 12 (NOTFOUND_TRYAGAIN) from a stand-in daemon, against glibc
    walking tests/nss's nftryagain-N (nss_dns's NOTFOUND with TRY_AGAIN):
    ENOTFOUND (EAI_NONAME) for family 4, and for family 0 with
    dns.ADDRCONFIG on a host with IPv4 alone; EAI_AGAIN for the rest."""
    fake = nclib.FakeDaemon(os.path.join(env.tmp, "fake.sock"), lambda f: (
        12, nclib.reason_body("SERVFAIL, then NXDOMAIN")))
    try:
        for v4_only in (False, True):
            out = line_diff(env, "nctest", ["nftryagain-3.nct"], fake.sock, v4_only=v4_only)
            codes = {json.dumps(c["options"]): c["dns"]["error"]["code"] for c in out["out"]}
            assert codes["4"] == "ENOTFOUND" and codes["6"] == "EAI_AGAIN", codes
            assert codes["null"] == "EAI_AGAIN", codes
            key = json.dumps({"family": 0, "all": False, "order": "verbatim", "hints": 32})
            assert codes[key] == ("ENOTFOUND" if v4_only else "EAI_AGAIN"), codes
            print("     %s: %d comparisons, 0 differences" % (
                "IPv4 alone" if v4_only else "both families", len(out["out"])))
        assert fake.requests > 0
    finally:
        fake.stop()


@test
def no_leaks(env):
    env.daemon()
    r = probe("leak", "1000000", "localhost", timeout=300)
    growth = r["after"] - r["before"]
    assert growth < 8 << 20, r
    print("     1,000,000 lookups in %.1f s: RSS %d KiB -> %d KiB" % (
        r["seconds"], r["before"] >> 10, r["after"] >> 10))


@test
def npm_pack(env):
    """`npm pack` in the source folder makes the package (offline: --dry-run)."""
    npm = shutil.which("npm")
    if npm is None:
        nclib.skip_part("npm_pack", "no npm")
        return
    src = os.path.join(HERE, "..", "..", "client-lib", "node")
    r = subprocess.run([npm, "pack", "--dry-run", "--json"], cwd=src, capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, NPM_CONFIG_UPDATE_NOTIFIER=
                                                        "false", NPM_CONFIG_OFFLINE="true",
                                                        HOME=env.tmp))
    assert r.returncode == 0, r.stderr
    files = sorted(f["path"] for f in json.loads(r.stdout)[0]["files"])
    assert files == ["README.md", "binding.gyp", "index.js", "namecache_node.c",
                     "package.json"], files


def main():
    if NODE is None:
        print("skip: no node")
        return 77
    status = bindenv.enter(__file__)
    if status is not None:
        return status
    return nclib.run_tests(TESTS, bindenv.make_env, "nc-node-", bindenv.set_build)


if __name__ == "__main__":
    sys.exit(main())
