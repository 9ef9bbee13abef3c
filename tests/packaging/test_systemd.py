#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/packaging/test_systemd.py - namecached as systemd runs it.

The units' security rating; the daemon started by systemd-socket-activate on
a test socket; the sd_notify messages it sends to a test NOTIFY_SOCKET
(READY, STATUS, RELOADING, STOPPING, WATCHDOG); the default configuration
file.  Every daemon has its own hosts file, resolv.conf and a loopback
upstream (tests/nclib.py).  No root needed.
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import nclib  # noqa: E402
import dnsenv  # noqa: E402  (nclib puts tests/dns on the path)

BUILD = SRC = None
TESTS = []
# docs/design.md and namecached(8) state this score; a unit change that
# raises it fails here.
MAX_EXPOSURE = 1.3
# SPEC.md's configuration table, shared_size_mb, idle_timeout, and the keys
# of issues 11 (the hosts line, NSS modules) and 12 (bounds).
SPEC_KEYS = ["socket", "hosts_file", "resolv_conf", "upstream", "cache_size", "min_ttl",
             "max_ttl", "negative_max_ttl", "failure_ttl", "serve_stale", "prefetch",
             "shared", "max_clients", "admin_group", "log_level", "shared_size_mb",
             "idle_timeout", "nsswitch_conf", "nss_workers", "nss_timeout",
             "nss_positive_ttl", "nss_negative_ttl", "cache_size_mb", "max_fetches",
             "nscd_socket", "nscd_reloads",
             # Issue 20: the DNS listener.
             "dns_listen", "dns_allow", "dns_sources", "dns_max_pending",
             "dns_max_pending_source", "dns_tcp_clients", "dns_tcp_idle",
             # Issue 21: nscd's other databases.
             "nscd_databases", "nscd_uncached_modules", "nscd_passwd_ttl",
             "nscd_passwd_negative_ttl", "nscd_group_ttl", "nscd_group_negative_ttl",
             "nscd_services_ttl", "nscd_services_negative_ttl", "nscd_netgroup_ttl",
             "nscd_netgroup_negative_ttl"]


def test(fn):
    TESTS.append(fn)
    return fn


def daemon_argv(tmp, dns_port, sock, conf=None):
    hosts = os.path.join(tmp, "hosts")
    with open(hosts, "w") as f:
        f.write("127.0.0.1 localhost\n10.6.6.6 activated.test\n")
    resolv = os.path.join(tmp, "resolv.conf")
    with open(resolv, "w") as f:
        f.write("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
    if conf is None:
        conf = os.path.join(tmp, "namecached.conf")
        open(conf, "w").close()
    return [os.path.join(BUILD, "daemon", "namecached"), "--config", conf,
            "--socket", sock, "--hosts-file", hosts, "--resolv-conf", resolv,
            "--upstream", "127.0.0.1:%d" % dns_port, "--nsswitch-conf", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "files-dns.nsswitch.conf")]


def ctl(sock, *args):
    return subprocess.run([os.path.join(BUILD, "cli", "namecachectl"), "--socket", sock]
                          + list(args), capture_output=True, text=True, timeout=30)


class Notify:
    """A NOTIFY_SOCKET of the test's own: collects what the daemon sends."""

    def __init__(self, tmp):
        self.path = os.path.join(tmp, "notify")
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.s.bind(self.path)
        self.msgs = []      # (monotonic time, {key: value})

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            self.s.settimeout(left)
            try:
                data = self.s.recv(4096)
            except socket.timeout:
                return
            kv = dict(line.split("=", 1) for line in data.decode().split("\n") if "=" in line)
            self.msgs.append((time.monotonic(), kv))

    def wait(self, key, value=None, timeout=nclib.HUNG_SEC, since=0):
        """The first message from index since on that has key (= value).
        The timeout means "hung"."""
        end = time.monotonic() + timeout
        while True:
            for i in range(since, len(self.msgs)):
                kv = self.msgs[i][1]
                if key in kv and (value is None or kv[key] == value):
                    return i, kv
            if time.monotonic() >= end:
                raise AssertionError("no %s=%s in %r" % (key, value, self.msgs[since:]))
            self.pump(0.05)

    def close(self):
        self.s.close()


def start(tmp, env_extra, conf=None):
    dns = dnsenv.FaultServer()
    dns.set_default("nxdomain", soa=True)
    sock = os.path.join(tmp, "sock")
    env = dict(os.environ)
    env.update(env_extra)
    log = open(os.path.join(tmp, "daemon.log"), "ab")
    proc = subprocess.Popen(daemon_argv(tmp, dns.port, sock, conf), env=env,
                            stdout=log, stderr=log)
    log.close()
    return proc, dns, sock


def read_log(tmp):
    with open(os.path.join(tmp, "daemon.log"), "rb") as f:
        return f.read().decode(errors="replace")


def stop(proc, dns):
    dns.stop()
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(nclib.HUNG_SEC)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


# --- the units -----------------------------------------------------------------

@test
def units_security_score(tmp):
    unit = os.path.join(BUILD, "packaging", "namecached.service")
    r = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", unit],
                       capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for namecached\.service: ([0-9.]+)", r.stdout)
    assert m, (r.returncode, r.stdout, r.stderr)
    score = float(m.group(1))
    print("     exposure %.1f (at most %.1f)" % (score, MAX_EXPOSURE))
    assert score <= MAX_EXPOSURE, r.stdout
    # What the issue names, each checked off by systemd-analyze itself.
    for setting in ["ProtectSystem=", "ProtectHome=", "PrivateTmp=", "PrivateDevices=",
                    "NoNewPrivileges=", "MemoryDenyWriteExecute=",
                    "SystemCallFilter=~@privileged", "CapabilityBoundingSet=~CAP_SYS_ADMIN",
                    "RestrictAddressFamilies=~AF_PACKET", "User=/DynamicUser="]:
        line = [ln for ln in r.stdout.splitlines() if setting in ln]
        assert line and line[0].lstrip().startswith("✓"), (setting, line)
    text = open(unit).read()
    for want in ["Type=notify", "WatchdogSec=", "Restart=on-failure",
                 "RuntimeDirectory=namecache", "SystemCallFilter=@system-service",
                 "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
                 "\nCapabilityBoundingSet=\n", "ExecStart=/"]:
        assert want in text, want
    sock_unit = open(os.path.join(SRC, "packaging", "systemd", "namecached.socket")).read()
    assert "ListenStream=/run/namecache/socket\n" in sock_unit
    assert "SocketMode=0666\n" in sock_unit


# --- socket activation ------------------------------------------------------------

@test
def socket_activation_answers(tmp):
    """systemd-socket-activate holds the socket; the first client starts the daemon."""
    dns = dnsenv.FaultServer()
    dns.set_default("nxdomain", soa=True)
    sock = os.path.join(tmp, "sock")
    log = open(os.path.join(tmp, "daemon.log"), "ab")
    proc = subprocess.Popen(["systemd-socket-activate", "-l", sock]
                            + daemon_argv(tmp, dns.port, sock), stdout=log, stderr=log)
    log.close()
    try:
        nclib.wait_until(lambda: os.path.exists(sock), "systemd-socket-activate's socket")
        ino = os.stat(sock).st_ino
        # Nothing has connected: the daemon has not run yet (the process
        # is still systemd-socket-activate, which execs it on a connection).
        with open("/proc/%d/comm" % proc.pid) as f:
            assert f.read().strip() == "systemd-socket-", "exec'd before a connection"
        assert "namecached" not in read_log(tmp), read_log(tmp)
        r = ctl(sock, "--json", "query", "activated.test")
        assert r.returncode == 0 and '"10.6.6.6"' in r.stdout, (r, read_log(tmp))
        text = read_log(tmp)
        assert "listening on the socket systemd passed" in text, text
        # The same pid, now the daemon, holding systemd's socket as fd 3.
        with open("/proc/%d/comm" % proc.pid) as f:
            assert f.read().strip() == "namecached"
        assert os.readlink("/proc/%d/fd/3" % proc.pid).startswith("socket:")
        assert os.stat(sock).st_ino == ino
        # Through the real NSS module, too.
        g = subprocess.run(["getent", "-s", "namecache", "ahostsv4", "activated.test"],
                           capture_output=True, text=True,
                           env=nclib.nss_env(BUILD, sock))
        assert g.returncode == 0 and "10.6.6.6" in g.stdout, g
        rc = stop(proc, dns)
        assert rc == 0, (rc, read_log(tmp))
        # The socket is systemd's: the daemon leaves it for the next start.
        assert os.path.exists(sock) and os.stat(sock).st_ino == ino
    finally:
        stop(proc, dns)


@test
def socket_activation_segment_beside_passed_socket(tmp):
    """Issue 12: with no --socket, under systemd-socket-activate -l DIR/sock, the
    shared segment goes beside the passed socket (DIR/cache), where clients
    of DIR/sock look for it.  The old daemon put it at /run/namecache/cache,
    and exited at start where it could not make that file."""
    dns = dnsenv.FaultServer()
    dns.set_default("nxdomain", soa=True)
    sock = os.path.join(tmp, "sock")
    argv = daemon_argv(tmp, dns.port, sock)
    i = argv.index("--socket")
    del argv[i:i + 2]                # the unit's way: the socket comes from systemd
    log = open(os.path.join(tmp, "daemon.log"), "ab")
    proc = subprocess.Popen(["systemd-socket-activate", "-l", sock] + argv,
                            stdout=log, stderr=log)
    log.close()
    try:
        nclib.wait_until(lambda: os.path.exists(sock), "systemd-socket-activate's socket")
        r = ctl(sock, "--json", "query", "activated.test")
        assert r.returncode == 0 and '"10.6.6.6"' in r.stdout, (r, read_log(tmp))
        assert os.path.exists(os.path.join(tmp, "cache")), (os.listdir(tmp), read_log(tmp))
        env = nclib.nss_env(BUILD, sock)
        for _ in range(3):
            g = subprocess.run(["getent", "-s", "namecache", "ahostsv4", "activated.test"],
                               capture_output=True, text=True, env=env)
            assert g.returncode == 0 and "10.6.6.6" in g.stdout, g
        st = ctl(sock, "--json", "statistics")
        assert st.returncode == 0, st
        import json
        s = json.loads(st.stdout)
        # One request for the query, the NSS lookups from the segment.
        assert s["requests"] <= 3 and s["shared_published"] >= 1, s
        print("     segment at %s; 3 NSS lookups, %d requests" % (
            os.path.join(tmp, "cache"), s["requests"]))
        assert stop(proc, dns) == 0, read_log(tmp)
    finally:
        stop(proc, dns)


# --- sd_notify -----------------------------------------------------------------------

@test
def notify_ready_status_reload_watchdog_stopping(tmp):
    n = Notify(tmp)
    proc, dns, sock = start(tmp, {"NOTIFY_SOCKET": n.path, "WATCHDOG_USEC": "200000"})
    try:
        i, kv = n.wait("READY", "1")
        j, st = n.wait("STATUS", since=i)
        assert re.match(r"2 hosts entries, 0 cached answers, \d+ clients; 0 requests",
                        st["STATUS"]), st
        # Pings, one after another (from the loop's timer, at half of
        # WATCHDOG_USEC: their pace is bench/watchdog.py's to measure,
        # not a test's to assert).
        k = i
        for _ in range(3):
            k, _ = n.wait("WATCHDOG", "1", since=k + 1, timeout=nclib.HUNG_SEC)
        # Live figures: a lookup shows up in the next STATUS.
        mark = len(n.msgs)
        assert ctl(sock, "query", "activated.test").returncode == 0
        assert ctl(sock, "query", "nothere.test").returncode == 1
        _, st = n.wait("STATUS", since=mark)
        assert re.match(r"2 hosts entries, \d+ cached answers, \d+ clients; "
                        r"[1-9]\d* requests, \d+% from hosts and cache$", st["STATUS"]), st
        # SIGHUP: RELOADING=1 with the monotonic time, then READY=1 again.
        mark = len(n.msgs)
        before = time.clock_gettime(time.CLOCK_MONOTONIC)
        proc.send_signal(signal.SIGHUP)
        i, kv = n.wait("RELOADING", "1", since=mark)
        after = time.clock_gettime(time.CLOCK_MONOTONIC)
        usec = int(kv["MONOTONIC_USEC"])
        assert before * 1e6 - 1000 <= usec <= after * 1e6 + 1000, (before, usec, after)
        n.wait("READY", "1", since=i + 1)
        # SIGTERM: STOPPING=1 and a clean exit.
        mark = len(n.msgs)
        proc.send_signal(signal.SIGTERM)
        n.wait("STOPPING", "1", since=mark)
        assert proc.wait(10) == 0, read_log(tmp)
    finally:
        stop(proc, dns)
        n.close()


@test
def notify_without_watchdog(tmp):
    """No WATCHDOG_USEC, or one meant for another process: no pings."""
    for extra in ({}, {"WATCHDOG_USEC": "100000", "WATCHDOG_PID": "1"}):
        n = Notify(tmp)
        env = {"NOTIFY_SOCKET": n.path}
        env.update(extra)
        proc, dns, sock = start(tmp, env)
        try:
            n.wait("READY", "1")
            n.pump(0.6)
            assert not [kv for _, kv in n.msgs if "WATCHDOG" in kv], (extra, n.msgs)
            assert stop(proc, dns) == 0, read_log(tmp)
        finally:
            stop(proc, dns)
            n.close()
            os.unlink(n.path)


# --- the default configuration ---------------------------------------------------

@test
def default_config_lists_every_key(tmp):
    path = os.path.join(SRC, "packaging", "namecached.conf")
    text = open(path).read()
    shown = re.findall(r"^#([a-z_]+) =(?: (.*))?$", text, re.M)
    keys = [k for k, _ in shown]
    assert sorted(keys) == sorted(SPEC_KEYS), keys
    # As shipped (all commented): the daemon starts with its defaults.
    n = Notify(tmp)
    proc, dns, sock = start(tmp, {"NOTIFY_SOCKET": n.path}, conf=path)
    try:
        n.wait("READY", "1")
        assert stop(proc, dns) == 0, read_log(tmp)
    finally:
        stop(proc, dns)
        n.close()
    # Every line uncommented: each default is a value the daemon accepts
    # (the flags still point it at the test's files and socket).
    live = os.path.join(tmp, "uncommented.conf")
    with open(live, "w") as f:
        f.write(re.sub(r"^#([a-z_]+ =)", r"\1", text, flags=re.M))
    os.unlink(n.path)
    n = Notify(tmp)
    proc, dns, sock = start(tmp, {"NOTIFY_SOCKET": n.path}, conf=live)
    try:
        n.wait("READY", "1")
        r = ctl(sock, "--json", "query", "activated.test")
        assert r.returncode == 0 and "10.6.6.6" in r.stdout, r
        assert stop(proc, dns) == 0, read_log(tmp)
    finally:
        stop(proc, dns)
        n.close()


def main():
    global BUILD, SRC
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("-k", help="run only tests whose name contains this")
    args = ap.parse_args()
    BUILD = os.path.abspath(args.build)
    SRC = os.path.abspath(args.source)
    failed = ran = 0
    for fn in TESTS:
        if args.k and args.k not in fn.__name__:
            continue
        ran += 1
        with tempfile.TemporaryDirectory(prefix="nc-sd-") as tmp:
            t0 = time.monotonic()
            try:
                fn(tmp)
                found = nclib.check_log(os.path.join(tmp, "daemon.log"))
                assert not found, "sanitizer: %s" % "\n".join(found[:20])
                print("ok   %s (%.2f s)" % (fn.__name__, time.monotonic() - t0))
            except Exception:
                failed += 1
                print("FAIL %s" % fn.__name__)
                traceback.print_exc()
                if os.path.exists(os.path.join(tmp, "daemon.log")):
                    print("---- daemon log ----\n" + read_log(tmp))
    print("%d tests, %d failed" % (ran, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
