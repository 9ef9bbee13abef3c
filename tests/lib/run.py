#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/lib/run.py - libnamecache's tests: the cmocka API test, the examples, an installed copy.

Every DNS server here is a dnsenv.FaultServer on 127.0.0.1, and every
daemon gets an explicit resolv.conf and --upstream pointing at it: no
packet leaves loopback.

  run.py api --build B EXE
      Starts the fault server, scripted as the API test expects (see
      ZONE below), and runs EXE (test-api) with its port and the daemon's
      path in the environment; the test starts and restarts its daemons.
  run.py examples --build B
      Runs client-lib/examples' programs against a daemon of their own
      and checks what they print against what the server was told to say.
  run.py install --build B --source S [--sanitize S]
      meson install --destdir into a temporary folder, builds
      tests/lib/outside.c there with pkg-config only, and runs it.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import nclib  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import dnsenv  # noqa: E402

# What the API test may ask; anything else is black-holed (never answered).
OK_NAMES = 200          # okN.api.test: A 10.0.N/256.N%256, TTL 300


def ok_addr(i):
    return "10.0.%d.%d" % (i // 256, i % 256)


def api_server():
    fs = dnsenv.FaultServer()
    fs.set_default("timeout")
    for i in range(OK_NAMES):
        fs.set("ok%d.api.test" % i, "answer", records=[("A", 300, ok_addr(i))])
    fs.set("nx.api.test", "nxdomain", soa=True)
    fs.set("nodata.api.test", "nodata", soa=True)
    fs.set("fail.api.test", "servfail")
    return fs


def run_api(args):
    fs = api_server()
    try:
        env = dict(os.environ)
        env["NC_TEST_UPSTREAM"] = "127.0.0.1:%d" % fs.port
        env["NC_TEST_DAEMON"] = os.path.join(args.build, "daemon", "namecached")
        env["NC_TEST_NSSWITCH"] = os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "files-dns.nsswitch.conf")
        env["NC_TEST_OK_NAMES"] = str(OK_NAMES)
        env.pop("NAMECACHE_SOCKET", None)
        return subprocess.run([args.exe], env=env).returncode
    finally:
        fs.stop()


def check(cond, what):
    if not cond:
        print("FAIL: %s" % what)
        sys.exit(1)


def run_examples(args):
    n = 1000
    names = ["e%d.example.test" % i for i in range(n)]
    fs = dnsenv.FaultServer()
    fs.set_default("nxdomain", soa=True)
    want = {}
    for i, name in enumerate(names):
        a = "10.%d.%d.%d" % (i >> 16 & 255, i >> 8 & 255, i & 255)
        fs.set(name, "answer", records=[("A", 300, a)])
        want[name] = a
    with tempfile.TemporaryDirectory() as tmp:
        # The fault server is Python, a thread a query: 2,000 at once take
        # it seconds, so give it glibc's default patience.
        resolv = os.path.join(tmp, "resolv.conf")
        with open(resolv, "w") as f:
            f.write("nameserver 127.0.0.1\noptions timeout:5 attempts:2\n")
        d = nclib.Daemon(args.build, tmp, upstream="127.0.0.1:%d" % fs.port, resolv=resolv,
                         hosts_text="127.0.0.1 localhost\n10.9.9.9 hostsname.test\n")
        d.dns = fs          # stopped with the daemon
        d.start()
        env = dict(os.environ, NAMECACHE_SOCKET=d.sock)
        try:
            # libevent: 1,000 names at once on one thread.
            p = subprocess.run([os.path.join(args.build, "client-lib", "examples",
                                             "event-resolve")],
                               input="\n".join(names) + "\n", capture_output=True,
                               text=True, env=env, timeout=120)
            check(p.returncode == 0, "event-resolve exit %d: %s %s" % (p.returncode, p.stderr, p.stdout[-1500:]))
            lines = p.stdout.splitlines()
            check(len(lines) == n + 1, "event-resolve printed %d lines" % len(lines))
            seen = {}
            for line in lines[:-1]:
                name, addr, src = line.split(" ")
                check(want.get(name) == addr, "event-resolve: %r" % line)
                check(src in ("(dns)", "(cache)"), "event-resolve source: %r" % line)
                seen[name] = addr
            check(len(seen) == n, "event-resolve answered %d distinct names" % len(seen))
            m = re.match(r"resolved (\d+) of (\d+), failed (\d+), at most (\d+) in flight$",
                         lines[-1])
            check(m and m.group(1, 2, 3) == (str(n), str(n), "0"), lines[-1])
            peak = int(m.group(4))
            # All were submitted before the loop ran: concurrency, not a series.
            check(peak == n, "at most %d in flight" % peak)
            # A second run: the daemon's cache, or the shared one, answers.
            p = subprocess.run([os.path.join(args.build, "client-lib", "examples",
                                             "event-resolve")],
                               input="\n".join(names) + "\n", capture_output=True,
                               text=True, env=env, timeout=120)
            check(p.returncode == 0 and all(l.endswith("(cache)")
                                            for l in p.stdout.splitlines()[:-1]),
                  "second event-resolve run not from the cache: %s" % p.stdout[:300])
            print("event-resolve: %d names, %d in flight at once, all answered" % (n, peak))

            # poll(): a mix of answers and failures, each as it comes.
            ask = ["hostsname.test", names[7], "nx.example.test", "bad..name"]
            p = subprocess.run([os.path.join(args.build, "client-lib", "examples",
                                             "poll-resolve")] + ask,
                               capture_output=True, text=True, env=env, timeout=60)
            check(p.returncode == 1, "poll-resolve exit %d" % p.returncode)
            got = {l.split(" ", 1)[0]: l.split(" ", 1)[1] for l in p.stdout.splitlines()}
            check(set(got) == set(ask), "poll-resolve answered %s" % sorted(got))
            check(got["hostsname.test"] == "10.9.9.9 (hosts, TTL 0 s)", got)
            check(got[names[7]].startswith(want[names[7]] + " (cache, TTL "), got)
            check(got["nx.example.test"] == "error: name not found", got)
            check(got["bad..name"] == "error: invalid name or address", got)
            p = subprocess.run([os.path.join(args.build, "client-lib", "examples",
                                             "poll-resolve"), "hostsname.test", names[9]],
                               capture_output=True, text=True, env=env, timeout=60)
            check(p.returncode == 0, "poll-resolve exit %d: %s" % (p.returncode, p.stdout))
            print("poll-resolve: answers and errors as expected")
        finally:
            rc = d.stop()
        check(rc == 0, "daemon exit %s: %s" % (rc, d.read_log()[-2000:]))
    return 0


def run_install(args):
    with tempfile.TemporaryDirectory() as tmp:
        dest = os.path.join(tmp, "dest")
        p = subprocess.run(["meson", "install", "-C", args.build, "--destdir", dest,
                            "--no-rebuild", "--quiet"], capture_output=True, text=True)
        check(p.returncode == 0, "meson install: %s %s" % (p.stdout, p.stderr))
        pcs = []
        for root, _, files in os.walk(dest):
            pcs += [os.path.join(root, f) for f in files if f == "namecache.pc"]
        check(len(pcs) == 1, "namecache.pc installed: %s" % pcs)
        man = [os.path.join(r, f) for r, _, fs in os.walk(dest) for f in fs
               if f == "namecache.3"]
        check(len(man) == 1, "namecache(3) installed")
        headers = [f for r, _, fs in os.walk(dest) for f in fs if f.endswith(".h")]
        check(headers == ["namecache.h"], "installed headers: %s" % headers)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]),
                   PKG_CONFIG_SYSROOT_DIR=dest, PKG_CONFIG_LIBDIR="")
        p = subprocess.run(["pkg-config", "--cflags", "--libs", "namecache"],
                           capture_output=True, text=True, env=env)
        check(p.returncode == 0, "pkg-config: %s" % p.stderr)
        flags = p.stdout.split()
        check(any(f.startswith("-I" + dest) for f in flags) and "-lnamecache" in flags,
              "pkg-config flags: %s" % flags)
        libdir = [f[2:] for f in flags if f.startswith("-L")]
        check(libdir, "pkg-config gave no -L: %s" % flags)
        # The sanitizers of this build, when it has them: the library needs them.
        san = [] if args.sanitize in ("", "none") else ["-fsanitize=" + args.sanitize]
        exe = os.path.join(tmp, "outside")
        src = os.path.join(tmp, "outside.c")
        shutil.copy(os.path.join(HERE, "outside.c"), src)
        p = subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-o", exe, src] + san + flags,
                           capture_output=True, text=True, cwd=tmp)
        check(p.returncode == 0, "outside build: %s" % p.stderr)
        d = nclib.Daemon(args.build, tmp, hosts_text="127.0.0.1 localhost\n"
                         "10.7.7.7 installed.test inst\n")
        d.start()
        try:
            env = dict(os.environ, NAMECACHE_SOCKET=d.sock, LD_LIBRARY_PATH=libdir[0])
            p = subprocess.run([exe, "installed.test"], capture_output=True, text=True,
                               env=env, timeout=30)
            check(p.returncode == 0, "outside exit %d: %s %s" % (p.returncode, p.stdout,
                                                                 p.stderr))
            check(p.stdout == "installed.test 10.7.7.7 hosts alias inst\n", p.stdout)
            # It really is the installed copy that ran.
            p = subprocess.run(["ldd", exe], capture_output=True, text=True, env=env)
            check(os.path.join(libdir[0], "libnamecache.so.0") in p.stdout, p.stdout)
        finally:
            d.stop()
        print("installed copy: built with pkg-config and ran")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("api", "examples", "install"))
    ap.add_argument("--build", required=True)
    ap.add_argument("--source")
    ap.add_argument("--sanitize", default="none")
    ap.add_argument("--exe")
    args = ap.parse_args()
    return {"api": run_api, "examples": run_examples, "install": run_install}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
