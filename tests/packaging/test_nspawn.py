#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/packaging/test_nspawn.py - the packages under a real systemd (issue 12, item 6).

    test_nspawn.py DEBS_DIR

Boots the bookworm tree scripts/deps.sh debootstrapped
(/var/cache/namecache-test/bookworm, read-only under an overlay whose
upper layer is a temporary folder) with `systemd-nspawn -b
--private-network --keep-unit --register=no`: systemd as PID 1, no network
but loopback, no machined.  Commands run inside with nsenter into PID 1's
namespaces.  It installs the .debs of DEBS_DIR and checks, as an
administrator would see them: namecache first on the hosts line; the
socket enabled and the service started by the first lookup, as _namecache;
getent through NSS; the exposure score; a hosts edit seen; `systemctl
reload`; kill -9 and the restart; the watchdog (set to 3 s by a drop-in)
restarting a daemon stopped by SIGSTOP while lookups fall through;
namecache-dns.socket (issue 20): the DNS listener's sockets passed by
systemd, glibc's dns module answered through them across a restart;
namecache-nscd (issues 13, 21, 33): glibc's nscd socket bound by the
daemon itself, never by systemd (with the daemon stopped a connect is
refused at once; while it runs the listening socket is the daemon's, not
PID 1's), id and getent passwd of a user added then deleted, lookups
answered through it, none lost across `systemctl restart`; a purge that
gives nsswitch.conf back byte for byte.  Then stops the container.

The start and restart of namecached.service with namecache-nscd
installed are read from the journal (systemd's "Starting" or "Stopping"
to its "Started", and the daemon's first line: how long PID 1's child
took to exec it) and printed, never asserted: the test asserts the
mechanism.  Waits are bounded by HANG_SEC, a hang bound.

Nothing touches the host's /etc: the container's files are the overlay's.
Exit 0, 1 (a check failed), 77 (no container tree: run scripts/deps.sh).
"""
import errno
import glob
import os
import re
import socket
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOTFS = "/var/cache/namecache-test/bookworm"
# A hang bound: waiting longer than this means "hung", never "slow".
HANG_SEC = 30
failed = 0
checks = 0


def ok(what):
    global checks
    checks += 1
    print("ok   container: " + what)


def fail(what):
    global failed, checks
    checks += 1
    failed += 1
    print("FAIL container: " + what)


def check(cond, what, detail=""):
    if cond:
        ok(what)
    else:
        fail("%s: %s" % (what, detail))
    return cond


class Container:
    def __init__(self, tmp):
        self.tmp = tmp
        self.upper = os.path.join(tmp, "upper")
        self.work = os.path.join(tmp, "work")
        self.merged = os.path.join(tmp, "root")
        for d in (self.upper, self.work, self.merged):
            os.mkdir(d)
        self.proc = None
        self.pid1 = None
        self.log = open(os.path.join(tmp, "nspawn.log"), "wb")

    def boot(self):
        # The overlay and nspawn share a private mount namespace: nothing is
        # mounted on the host's.
        script = ('mount -t overlay overlay -o lowerdir=%s,upperdir=%s,workdir=%s %s && '
                  'exec systemd-nspawn -q -D %s -b --private-network --keep-unit '
                  '--register=no --resolv-conf=off --timezone=off --link-journal=no'
                  % (ROOTFS, self.upper, self.work, self.merged, self.merged))
        self.proc = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c",
                                      script], stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=self.log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.pid1 is None:
            if self.proc.poll() is not None:
                raise RuntimeError("systemd-nspawn exited %d: %s" % (
                    self.proc.returncode, open(self.log.name, "rb").read()[-2000:]))
            self.pid1 = self.find_init()
            time.sleep(0.1)
        if self.pid1 is None:
            raise RuntimeError("no init in the container")
        # Until systemd has its bus up, systemctl cannot ask it ("offline"
        # on a loaded machine, or nothing): try again.
        state = ""
        while time.monotonic() < deadline + 60 and state in ("", "offline"):
            r = self.run("systemctl", "is-system-running", "--wait", timeout=90)
            state = r.stdout.strip()
            if state in ("", "offline"):
                time.sleep(0.2)
        return state

    def find_init(self):
        """The container's PID 1: a process named systemd under our nspawn."""
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/status" % pid) as f:
                    st = dict(line.split(":", 1) for line in f if ":" in line)
                if st["Name"].strip() != "systemd":
                    continue
                nspid = st.get("NSpid", "").split()
                if len(nspid) >= 2 and nspid[-1] == "1" and self.descends(int(pid)):
                    return int(pid)
            except (OSError, KeyError, ValueError):
                continue
        return None

    def descends(self, pid):
        while pid > 1:
            if pid == self.proc.pid:
                return True
            try:
                with open("/proc/%d/stat" % pid) as f:
                    pid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                return False
        return False

    def run(self, *argv, timeout=60, input=None):
        return subprocess.run(["nsenter", "-t", str(self.pid1), "-m", "-u", "-i", "-n", "-p",
                               "-r", "-w", "--", "env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
                               "LANG=C.UTF-8"] + list(argv), capture_output=True, text=True,
                              timeout=timeout, input=input)

    def sh(self, cmd, timeout=60):
        return self.run("sh", "-c", cmd, timeout=timeout)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            # nspawn -b hands SIGTERM to the container's systemd as a halt.
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def main_pid(c):
    r = c.run("systemctl", "show", "-p", "MainPID", "--value", "namecached.service")
    try:
        return int(r.stdout.strip())
    except ValueError:
        return 0


def wait_for(pred, timeout):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return time.monotonic() - t0
        time.sleep(0.05)
    return None


def checks_in(c, debs):
    r = c.sh("cat /etc/nsswitch.conf")
    before = r.stdout
    # The container's own resolver: loopback only (there is no other interface).
    c.sh("echo 'nameserver 127.0.0.1' > /etc/resolv.conf; "
         "echo '127.0.0.1 localhost' > /etc/hosts; echo '192.0.2.44 ctr.test' >> /etc/hosts")
    # namecache-nscd comes last (nscd_checks): glibc's nscd client waits
    # 5 s for a stopped daemon, so the watchdog checks below run without it.
    first = [d for d in debs if not os.path.basename(d).startswith("namecache-nscd_")]
    r = c.sh("dpkg -i %s" % " ".join("/root/debs/" + os.path.basename(d) for d in first),
             timeout=300)
    if not check(r.returncode == 0, "dpkg -i of the %d packages" % len(first),
                 r.stdout[-1500:] + r.stderr[-1500:]):
        return
    line = [ln for ln in c.sh("cat /etc/nsswitch.conf").stdout.splitlines()
            if ln.startswith("hosts:")]
    check(line and line[0].split()[1] == "namecache", "namecache first on the hosts line", line)
    r = c.run("systemctl", "is-enabled", "namecached.socket")
    check(r.stdout.strip() == "enabled", "namecached.socket enabled", r.stdout + r.stderr)
    r = c.run("systemctl", "is-active", "namecached.socket")
    check(r.stdout.strip() == "active", "namecached.socket listening", r.stdout + r.stderr)
    r = c.run("systemctl", "is-active", "namecached.service")
    check(r.stdout.strip() != "active", "the service not started before a lookup",
          r.stdout)
    r = c.run("getent", "hosts", "ctr.test")
    check(r.returncode == 0 and "192.0.2.44" in r.stdout, "getent hosts through NSS starts "
          "the daemon (socket activation)", r.stdout + r.stderr)
    pid = main_pid(c)
    user = c.run("ps", "-o", "user=", "-p", str(pid)).stdout.strip() if pid else ""
    check(pid > 0 and user == "_namecache", "the daemon runs as _namecache", (pid, user))
    # systemd 252 hands RuntimeDirectory= to the service's user, the
    # socket in it included; its mode stays 0666 (docs/design.md).
    r = c.run("stat", "-c", "%U %a", "/run/namecache/socket")
    check(r.stdout.split()[1:] == ["666"], "the socket: owner %s, mode %s" %
          tuple((r.stdout.split() + ["?", "?"])[:2]), r.stdout + r.stderr)
    r = c.run("namecachectl", "--json", "statistics")
    check(r.returncode == 0 and '"requests"' in r.stdout, "namecachectl statistics", r.stderr)
    r = c.run("systemd-analyze", "security", "--no-pager", "namecached.service")
    score = [ln for ln in r.stdout.splitlines() if "Overall exposure level" in ln]
    check(score and float(score[0].split(":")[1].split()[0]) <= 1.3,
          "exposure %s" % (score[0].split(":")[1].strip() if score else "?"), r.stdout[-500:])
    # A hosts edit, seen by lookups within a second.
    c.sh("echo '192.0.2.45 edited.test' >> /etc/hosts")
    took = wait_for(lambda: c.run("getent", "hosts", "edited.test").returncode == 0, 5)
    check(took is not None, "a hosts edit seen after %s" %
          ("%.0f ms" % (took * 1e3) if took is not None else "-"))
    r = c.run("systemctl", "reload", "namecached.service")
    check(r.returncode == 0 and main_pid(c) == pid, "systemctl reload, same daemon",
          r.stderr)
    # kill -9: systemd restarts it (Restart=on-failure); lookups carry on.
    c.run("kill", "-9", str(pid))
    t0 = time.monotonic()
    back = wait_for(lambda: main_pid(c) not in (0, pid), 15)
    r = c.run("getent", "hosts", "ctr.test")
    check(back is not None and r.returncode == 0, "kill -9: restarted in %s, answering" %
          ("%.1f s" % back if back is not None else "-"), r.stderr)
    # The watchdog: a drop-in sets it to 20 s; SIGSTOP stops the daemon's
    # loop; a lookup meanwhile falls through to files (the NSS module
    # sees the heartbeat stop), and systemd restarts the daemon.  The
    # proof is an ordering: the lookup ends while the daemon it would
    # have waited for is still the stopped one (the watchdog fires 10 to
    # 20 s after the stop, the module gives up after 3 s of no beat).
    c.sh("mkdir -p /etc/systemd/system/namecached.service.d && printf "
         "'[Service]\\nWatchdogSec=20s\\n' > /etc/systemd/system/namecached.service.d/wd.conf && "
         "systemctl daemon-reload && systemctl restart namecached.service")
    c.run("getent", "hosts", "ctr.test")
    pid = main_pid(c)
    c.run("kill", "-STOP", str(pid))
    # A name nothing has: the walk of files and dns after the module's
    # UNAVAIL says "not found" (exit 2); never asked before, so no answer
    # of the segment's stands in for it.
    r = c.run("getent", "hosts", "nosuch.test", timeout=HANG_SEC)
    state = c.sh("sed -n 's/^State:[[:space:]]*\\([A-Z]\\).*/\\1/p' /proc/%d/status" % pid
                 ).stdout.strip()
    check(r.returncode == 2 and main_pid(c) == pid and state == "T",
          "a lookup during the stop fell through (exit %d) while the daemon was still "
          "the stopped one (state %s)" % (r.returncode, state), r.stdout + r.stderr)
    back = wait_for(lambda: main_pid(c) not in (0, pid), 2 * HANG_SEC)
    check(back is not None, "watchdog: the stopped daemon restarted")
    r = c.run("getent", "hosts", "ctr.test")
    check(r.returncode == 0, "answering again after the watchdog restart", r.stderr)
    c.sh("rm -rf /etc/systemd/system/namecached.service.d; systemctl daemon-reload")
    dns_checks(c)
    nscd_checks(c, [d for d in debs if os.path.basename(d).startswith("namecache-nscd_")])
    # Purge: nsswitch.conf as it was, byte for byte; the user and units gone.
    r = c.sh("dpkg --purge namecache-nscd libnamecache-dev libnss-namecache namecache "
             "libnamecache0", timeout=120)
    check(r.returncode == 0, "dpkg --purge", r.stdout[-800:] + r.stderr[-800:])
    after = c.sh("cat /etc/nsswitch.conf").stdout
    check(after == before, "nsswitch.conf restored byte for byte", (before, after))
    r = c.run("systemctl", "is-active", "namecached.socket")
    check(r.stdout.strip() != "active", "the socket gone with the package", r.stdout)


def dns_checks(c):
    """namecache-dns.socket (issue 20): shipped disabled; enabled, its UDP
    and TCP sockets on 127.0.0.153:53 are passed to the daemon, which runs
    as _namecache; glibc's own dns module, a DNS client, asks through it
    with resolv.conf naming the listener (upstream set apart, so the daemon
    does not ask itself); a restart in between loses nothing."""
    r = c.run("systemctl", "is-enabled", "namecache-dns.socket")
    check(r.stdout.strip() == "disabled", "namecache-dns.socket shipped disabled",
          r.stdout + r.stderr)
    # systemd starts a socket unit only while its service is stopped.  The
    # client below is `getent hosts` (gethostbyname2): getaddrinfo's
    # AI_ADDRCONFIG would ask nothing, with no address here but loopback.
    r = c.sh("echo 'upstream = 127.0.0.1:5399' >> /etc/namecache/namecached.conf && "
             "systemctl stop namecached.service && "
             "systemctl enable --now namecache-dns.socket && "
             "systemctl start namecached.service")
    check(r.returncode == 0, "systemctl enable --now namecache-dns.socket",
          r.stderr + c.sh("systemctl status --no-pager namecache-dns.socket; "
                          "journalctl --no-pager -n 20").stdout)
    st = nscd_json(c, "status")
    check(st.get("dns_listen") == "udp 127.0.0.153:53 (systemd), tcp 127.0.0.153:53 (systemd)",
          "the daemon answers DNS on the sockets systemd passed", st.get("dns_listen"))
    pid = main_pid(c)
    user = c.run("ps", "-o", "user=", "-p", str(pid)).stdout.strip() if pid else ""
    check(user == "_namecache", "the listener's daemon runs as _namecache", user)
    c.sh("cp /etc/resolv.conf /root/resolv.conf.saved && "
         "echo 'nameserver 127.0.0.153' > /etc/resolv.conf")
    n0 = nscd_json(c, "statistics").get("dns_queries_udp", 0)
    r = c.run("getent", "-s", "dns", "hosts", "ctr.test")
    n1 = nscd_json(c, "statistics").get("dns_queries_udp", 0)
    check(r.returncode == 0 and "192.0.2.44" in r.stdout and n1 > n0,
          "glibc's dns module asked the listener (%d UDP queries)" % (n1 - n0),
          "exit %d: %s%s" % (r.returncode, r.stdout, r.stderr) + c.sh(
              "cat /etc/resolv.conf; ip -br addr; journalctl --no-pager -n 15 "
              "-u namecached.service").stdout)
    c.run("systemctl", "restart", "namecached.service")
    r = c.run("getent", "-s", "dns", "hosts", "ctr.test")
    check(r.returncode == 0 and "192.0.2.44" in r.stdout,
          "answered through the socket after systemctl restart", r.stdout + r.stderr)
    c.sh("cp /root/resolv.conf.saved /etc/resolv.conf && "
         "sed -i '/^upstream = 127.0.0.1:5399$/d' /etc/namecache/namecached.conf && "
         "systemctl stop namecached.service && "
         "systemctl disable --now namecache-dns.socket && "
         "systemctl start namecached.service")


def nscd_json(c, what):
    import json
    r = c.run("namecachectl", "--json", what)
    return json.loads(r.stdout) if r.returncode == 0 else {}


def unit_events(c):
    """namecached.service in the journal: [(monotonic s, kind)], kind one of
    Starting, Started, Stopping, Stopped (systemd's own lines) and exec
    (the daemon's first line after a Starting: PID 1's child had then
    resolved User= and Group= and run it)."""
    r = c.run("journalctl", "--no-pager", "-q", "-o", "short-monotonic", "-u",
              "namecached.service")
    out = []
    started = False
    for line in r.stdout.splitlines():
        m = re.match(r"\[\s*([0-9.]+)\]\s+\S+\s+([^\[:\s]+)(?:\[(\d+)\])?:\s+(\S+)", line)
        if not m:
            continue
        t, who, word = float(m.group(1)), m.group(2), m.group(4)
        if who == "systemd" and word in ("Starting", "Started", "Stopping", "Stopped"):
            out.append((t, word))
            started = word == "Starting"
        elif who == "namecached" and started:
            out.append((t, "exec"))
            started = False
    return out


def timed(c, what, argv, since=None):
    """Runs systemctl argv (none: nothing) and reads from the journal, among
    the events after the first since of them (default: those before argv),
    how long the last start took: from its Starting (for a restart, the
    Stopping before it) to Started, and from Starting to the daemon's
    exec.  Prints (total, exec lag) in seconds and returns them, or
    (None, None)."""
    n = len(unit_events(c)) if since is None else since
    if argv:
        c.run("systemctl", *argv, timeout=2 * HANG_SEC)
    ev = []
    for _ in range(int(HANG_SEC / 0.2)):     # journald writes a moment later
        ev = unit_events(c)[n:]
        if any(k == "Started" for _, k in ev):
            break
        time.sleep(0.2)
    at = [i for i, (_, k) in enumerate(ev) if k == "Starting"]
    if not at:
        print("     journal: %s: no figures (%r)" % (what, ev))
        return None, None
    i = at[-1]
    began = ev[i][0]
    if "restart" in argv:
        began = max([t for t, k in ev[:i] if k == "Stopping"] or [began])
    done = [t for t, k in ev[i:] if k == "Started"]
    execd = [t for t, k in ev[i:] if k == "exec"]
    if not done or not execd:
        print("     journal: %s: no figures (%r)" % (what, ev))
        return None, None
    total, lag = done[0] - began, execd[0] - ev[i][0]
    print("     journal: %s: %.2f s to Started; the daemon ran %.2f s after Starting" %
          (what, total, lag))
    return total, lag


def connect_error(c, path):
    """0 if a connect to path in the container succeeds, else its errno.
    Through /proc/PID1/root: the container's /run, from this process."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(HANG_SEC)     # a hang bound: a refusal is immediate
    try:
        s.connect("/proc/%d/root%s" % (c.pid1, path))
        return 0
    except OSError as e:
        return e.errno
    finally:
        s.close()


def nscd_listener(c):
    """The pids in the container holding the listening socket at
    /run/nscd/socket (by its inode in /proc/net/unix)."""
    r = c.sh("ino=$(awk '$8 == \"/run/nscd/socket\" && $4 == \"00010000\" {print $7}' "
             "/proc/net/unix | head -n 1); [ -n \"$ino\" ] || exit 0; "
             "for p in /proc/[0-9]*; do ls -l $p/fd 2>/dev/null | "
             "grep -q \"socket:\\[$ino\\]\" && echo ${p#/proc/}; done")
    return sorted(int(x) for x in r.stdout.split())


def nscd_checks(c, debs):
    """namecache-nscd: installed on a running daemon, nsswitch.conf left as
    it was; glibc's nscd socket bound by the daemon itself (never held by
    systemd, so no lookup waits on a daemon that is not there: PID 1's own,
    resolving User=_namecache as it starts the daemon, above all); glibc's
    client answered through it; a restart that loses no lookup (misses
    find no nscd socket and walk NSS at once, the namecache module among
    them, which waits on namecached.socket)."""
    if not check(len(debs) == 1, "a namecache-nscd package", debs):
        return
    before = c.sh("cat /etc/nsswitch.conf").stdout
    r = c.sh("dpkg -i /root/debs/" + os.path.basename(debs[0]), timeout=120)
    if not check(r.returncode == 0, "dpkg -i namecache-nscd", r.stdout[-1500:] + r.stderr[-1500:]):
        return
    check(c.sh("cat /etc/nsswitch.conf").stdout == before,
          "nsswitch.conf unchanged by namecache-nscd")
    r = c.run("systemctl", "show", "-p", "Wants", "--value", "namecached.socket")
    check("namecached.service" in r.stdout.split(), "namecached.socket (sockets.target, "
          "at boot) starts the daemon: the nscd socket from boot", r.stdout + r.stderr)
    st = nscd_json(c, "status")
    check(st.get("nscd_socket") == "/run/nscd/socket" and
          st.get("nscd_socket_activated") == "no",
          "the daemon answers glibc's nscd socket, bound by itself",
          {k: v for k, v in st.items() if k.startswith("nscd")})
    # The mechanism (issue 33): no socket of systemd's at /run/nscd/socket.
    r = c.run("systemctl", "list-sockets", "--all", "--no-legend", "--no-pager")
    check("/run/nscd/socket" not in r.stdout, "systemd holds no socket at /run/nscd/socket",
          r.stdout)
    pid = main_pid(c)
    holders = nscd_listener(c)
    check(holders == [pid], "the listening nscd socket is the daemon's (pid %d), not PID 1's: "
          "held by %s" % (pid, holders))
    # Figures, from the journal: a start and a restart.  (A connect that
    # a held socket accepts starts the daemon itself: the start measured
    # is then that one.)
    n = len(unit_events(c))
    c.run("systemctl", "stop", "namecached.service", timeout=2 * HANG_SEC)
    err = connect_error(c, "/run/nscd/socket")
    check(err in (errno.ENOENT, errno.ECONNREFUSED),
          "daemon stopped: a connect to /run/nscd/socket is refused at once (%s)" %
          (errno.errorcode.get(err, err) if err else "accepted"))
    c.run("systemctl", "start", "namecached.service", timeout=2 * HANG_SEC)
    timed(c, "start with namecache-nscd", (), since=n)
    timed(c, "restart with namecache-nscd", ("restart", "namecached.service"))
    # A counter: whatever PID 1's child asked while it started the daemon
    # would wait in a socket's backlog and reach the new daemon after it.
    # Nothing did: no lookup on namecache's socket, no nscd request (this
    # statistics request is the one request).
    st = nscd_json(c, "statistics")
    asked = {k: v for k, v in st.items() if v and (k.startswith("nscd_requests_") or
                                                  k in ("lookups_name", "lookups_addr"))}
    check(st.get("requests") == 1 and not asked, "nothing in the restart asked the new "
          "daemon's sockets (requests %s, lookups %s)" % (st.get("requests"), asked))
    check(nscd_listener(c) == [main_pid(c)], "after the restart, the nscd socket is the new "
          "daemon's", nscd_listener(c))
    # A name only the daemon knows: its own hosts file, not /etc/hosts.
    c.sh("echo '192.0.2.77 donly.test' > /etc/namecache/hosts && "
         "echo 'hosts_file = /etc/namecache/hosts' >> /etc/namecache/namecached.conf && "
         "systemctl restart namecached.service")
    n0 = nscd_json(c, "statistics").get("nscd_requests_getai", 0)
    r = c.run("getent", "ahosts", "donly.test")
    st = nscd_json(c, "statistics")
    check(r.returncode == 0 and "192.0.2.77" in r.stdout and
          st.get("nscd_requests_getai", 0) > n0,
          "getent ahosts through glibc's nscd client (GETAI %d -> %d)" %
          (n0, st.get("nscd_requests_getai", 0)), r.stdout + r.stderr)
    # Users and groups (issue 21): a user added after the daemon started,
    # read through glibc's client by id and getent, then deleted: useradd
    # and userdel rename /etc/passwd over, which drops the answers at once.
    c.sh("useradd -M -u 4321 -U ncctr")
    n0 = nscd_json(c, "statistics").get("nscd_passwd_requests", 0)
    r = c.sh("id ncctr && getent passwd ncctr && getent group ncctr")
    st = nscd_json(c, "statistics")
    check(r.returncode == 0 and "uid=4321(ncctr)" in r.stdout and
          "ncctr:x:4321:4321" in r.stdout and
          st.get("nscd_passwd_requests", 0) > n0 and st.get("nscd_passwd_found", 0) > 0,
          "id and getent passwd through glibc's nscd client (passwd requests %d -> %d)" %
          (n0, st.get("nscd_passwd_requests", 0)), r.stdout + r.stderr)
    r = c.run("namecachectl", "show-cache", "passwd")
    check("ncctr" in r.stdout, "show-cache passwd lists it", r.stdout + r.stderr)
    c.sh("userdel ncctr")
    t0 = time.monotonic()
    while True:     # the daemon's watch acts 10 ms after the rename
        r = c.sh("getent passwd ncctr; id ncctr")
        gone = "ncctr:x" not in r.stdout and "uid=4321" not in r.stdout
        if gone or time.monotonic() - t0 > 5:
            break
    check(gone, "userdel: gone for readers after %.0f ms" %
          ((time.monotonic() - t0) * 1000), r.stdout + r.stderr)
    # Lookups every 20 ms across a restart: a miss while no daemon runs
    # finds no nscd socket and walks NSS at once, where the namecache
    # module waits on namecached.socket for the next daemon; none fails.
    loop = ("n=0; f=0; end=$(($(date +%s) + 4)); while [ $(date +%s) -lt $end ]; do "
            "n=$((n+1)); getent ahosts donly.test >/dev/null || f=$((f+1)); sleep 0.02; "
            "done; echo $n $f")
    p = subprocess.Popen(["nsenter", "-t", str(c.pid1), "-m", "-u", "-i", "-n", "-p", "-r",
                          "-w", "--", "sh", "-c", loop], stdout=subprocess.PIPE, text=True)
    time.sleep(1)
    c.run("systemctl", "restart", "namecached.service")
    time.sleep(0.5)
    c.run("systemctl", "kill", "-s", "KILL", "namecached.service")
    out = p.communicate(timeout=60)[0].split()
    n, f = (int(out[0]), int(out[1])) if len(out) == 2 else (0, -1)
    check(n > 20 and f == 0, "%d lookups across a restart and a kill -9: %d failed" % (n, f))
    c.sh("sed -i '/^hosts_file = \\/etc\\/namecache\\/hosts$/d' "
         "/etc/namecache/namecached.conf && systemctl restart namecached.service")


def main():
    if len(sys.argv) != 2:
        print("usage: test_nspawn.py DEBS_DIR", file=sys.stderr)
        return 2
    if os.geteuid() != 0 or not shutil.which("systemd-nspawn"):
        print("skip: needs root and systemd-nspawn")
        return 77
    if not os.path.exists(os.path.join(ROOTFS, "usr/lib/systemd/systemd")):
        print("FAIL container: no tree at %s: run scripts/deps.sh" % ROOTFS)
        return 1
    # The bindings need python3 and nodejs, which the minimal tree lacks:
    # deb-root.sh installs and imports them on this machine's own root.
    debs = sorted(d for d in glob.glob(os.path.join(sys.argv[1], "*.deb"))
                  if "-dbgsym_" not in d and not os.path.basename(d).startswith(
                      ("python3-namecache_", "node-namecache_")))
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nc-nspawn-") as tmp:
        c = Container(tmp)
        os.makedirs(os.path.join(c.upper, "root", "debs"))
        for d in debs:
            shutil.copy(d, os.path.join(c.upper, "root", "debs"))
        try:
            state = c.boot()
            check(state in ("running", "degraded"), "booted, systemd says %s" % state)
            checks_in(c, debs)
        except Exception as e:      # noqa: BLE001 - reported as a failure
            fail("%s: %s" % (type(e).__name__, e))
        finally:
            c.stop()
            # The overlay lived in the namespace that just ended.
    print("container: %d checks, %d failed, %.0f s" % (checks, failed, time.monotonic() - t0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
