#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/chaos/chaos.py - a chaos soak: every front end at once while the daemon is killed, reloaded and starved (issue 33).

For --seconds N, in a private mount and network namespace of its own
(only lo; a tmpfs over /run, so glibc's /var/run/nscd/socket is the
test's; the test's /etc/nsswitch.conf, /etc/hosts and /etc/resolv.conf
bound over /etc's), one namecached with the nscd socket and the DNS
listener, its upstream a scriptable python3-dnslib server on 127.0.0.1,
serves at once:

  nss        the NSS module in one long-lived process (LD_LIBRARY_PATH,
             NAMECACHE_SOCKET, hosts configured to `namecache` alone):
             gethostbyname2_r(AF_INET) and getaddrinfo(AF_UNSPEC), turn by
             turn, so the shared segment is read across restarts;
  nscd       glibc's own nscd client in one long-lived process (nothing
             preloaded: /run/nscd/socket is the daemon's), getaddrinfo
             (GETAI) and gethostbyname_ex (GETHOSTBYNAME), the mapped
             database kept across restarts;
  getent     fresh processes: `getent -s namecache ahostsv4` (the NSS
             module) and `getent ahostsv4` (the nscd path), turn by turn;
  dns-udp,   the DNS listener, A questions over UDP (a new socket each,
  dns-tcp    retransmitted every 2 s) and over one kept TCP connection;
  lib        libnamecache: the Python binding's namecache.getaddrinfo and
             the blocking namecache_lookup_name (ctypes), turn by turn;
  monitor    `namecachectl --json monitor`, attached again after every
             start: each line must parse, name one of the soak's names,
             and the monitor must end when its daemon is killed.

Meanwhile the conductor (this process), from a seeded schedule, SIGKILLs
and restarts the daemon (kill phases only), sends SIGHUP, rewrites the
daemon's hosts file (renamed over, or written in place) and makes the
upstream fail (SERVFAIL, REFUSED or silence) and recover.  The run
alternates storm phases (60% of each cycle of max(25 s, N/5): one daemon
life, everything but kills) and kill phases.  It samples the daemon's
VmRSS and RssAnon from /proc every 0.25 s.

The names (all under chaos.test):
  hN   in the daemon's hosts file, at an address that changes with every
       rewrite (the generation g is in it: 10.<g/256>.<g%256>.<N+1>);
  fN   in the hosts file in even generations only; otherwise upstream
       says NXDOMAIN;
  uN   upstream only: A 198.51.100.<N+1>, TTL 2 s, never anything else;
  nN   upstream only: NXDOMAIN (SOA, 2 s).
The namespace's own /etc/hosts (glibc's `files`, "hosts: files") gives
every one of them a fallback address 100.64.x.y that the daemon never
has: an answer with it says "glibc answered by itself", a clean failure
of the daemon's path, and is told apart from the daemon's answers.

WHAT COUNTS AS WRONG.  Each lookup is logged with its start t0 and end t1
(CLOCK_MONOTONIC, shared by every process), each chaos action with the
time before it began and after it ended.  A lookup's result is one of: a
set of addresses, NF (not found or no data), FAIL (a clean failure: a
temporary failure, the daemon unreachable, SERVFAIL, a refused or reset
connection), FB (glibc's fallback addresses: FAIL by another road), or
NF|FAIL (getent -s namecache's exit 2, which says either).  It is right
when it is in the set accepted for its name over [t0, t1]:
  * hosts generations held: at any instant t the daemon, when up, may
    hold the file's current content or the previous one (a reload lags
    the write); while it is down (from the SIGKILL until the restarted
    daemon's sockets answer), readers that mapped its segment or glibc's
    database may still read what it held when it was killed.  The
    generations accepted are the union over [t0, t1];
  * hN: the address of an accepted generation; fN: its address in an
    even one, NF in an odd one (FAIL too while upstream fails);
  * uN: 198.51.100.<N+1>, never anything else; nN: NF;
  * FAIL (and FB) only when the daemon was down at some instant of
    [t0, t1], or, for the names upstream answers (fN, uN, nN), when the
    upstream failed at some instant of [t0 - failure_ttl - 3 s, t1] (a
    failure is remembered for failure_ttl, learnt up to the upstream
    timeout after the recovery);
  * glibc's nscd client skips nscd for the next 100 lookups of a process
    after a failed or refused request (NSS_NSCD_RETRY): in the nscd
    process, FB is also right within 101 lookups after one whose FAIL
    was.
Anything else is wrong: another address, a negative answer for a name
that has one, a failure while the daemon is up and the upstream well, a
REFUSED or malformed DNS reply, an unknown libnamecache error.

A HANG is a lookup with no answer within the hang bound (nclib.HUNG_SEC,
30 s, four times that under valgrind): a DNS question retransmitted that
long, libnamecache's own timeout set to it, a getent killed after it, a
worker or a monitor that does not end within it.

RSS: the daemon's memory may not grow without bound within one phase:
  * in each life that lasts 8 s or more after its first 5 s (the
    warm-up; such a life spans a storm phase), the floor of RssAnon (the
    least sample) in each third of the rest: it may not rise by more than
    max(512 KiB, 10%) from the first third to the last with a quarter of
    that rise or more in each of the two steps.  Growth without bound
    raises the floor all along; a transient bump (MALLOC_PERTURB_, which
    meson sets, writes freed memory: about 1 MiB for a second or two) is
    above the floor, and a single step (a table that doubles once) is in
    one step only;
  * across the run, the largest RssAnon of the last storm life is at most
    the first storm life's plus max(2 MiB, 20%), and the same for the
    lives of the kill phases (the store is adopted at every restart).
On this machine RssAnon varies by about 0.2 MiB within a life (0.4 MiB
under ASan) once warm.
Those are bounds on memory, read at the same point of the cycle, never
on time.  An ASan daemon runs with a quarantine of 1 MiB
(quarantine_size_mb=1, thread_local_quarantine_size_kb=64): with the
default 256 MiB its RSS grows by the freed memory it keeps, for minutes,
by design (8 MiB took 8 s to fill here and failed the first rule).

With --check (the meson test) the exit status is 1 on any wrong answer,
hang, RSS growth, daemon crash, failed restart, monitor error, sanitizer
report or non-zero exit of the daemon's final SIGTERM.  Without it, the
figures are printed (bench/chaos.sh).  Needs root (exit 77 otherwise).

Run: /usr/bin/python3 tests/chaos/chaos.py --build BUILD --seconds N [--seed S] [--check]
         [--keep DIR]   (DIR: every lookup logged, and the timeline, to judge again)
"""
import argparse
import bisect
import ctypes
import json
import os
import random
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import privns  # noqa: E402

PYTHON = "/usr/bin/python3"
NSCD_SOCKET = "/var/run/nscd/socket"
ZONE = "chaos.test"
NH, NFL, NU, NN = 12, 4, 16, 4
FAILURE_TTL = 2
UPSTREAM_TTL = 2
FAIL_SLACK = FAILURE_TTL + 3
NSCD_RETRY = 101        # glibc's NSS_NSCD_RETRY (100), and the failing lookup
KIB = 1024
SAMPLE_SEC = 0.25
WARMUP_SEC = 5.0
LONG_SAMPLES = 32       # 8 s of samples after the warm-up


def hang_bound():
    sec = 30
    if os.environ.get("NAMECACHE_VALGRIND", "0") not in ("", "0"):
        sec *= 4
    return sec


# --- the names and what each generation of the hosts file says -----------------------

def names():
    out = ["h%d.%s" % (i, ZONE) for i in range(NH)]
    out += ["f%d.%s" % (i, ZONE) for i in range(NFL)]
    out += ["u%d.%s" % (i, ZONE) for i in range(NU)]
    out += ["n%d.%s" % (i, ZONE) for i in range(NN)]
    return out


def h_addr(g, i):
    return "10.%d.%d.%d" % (g // 256 % 256, g % 256, i + 1)


def f_addr(g, i):
    return "172.%d.%d.%d" % (16 + g // 256 % 16, g % 256, i + 1)


def u_addr(i):
    return "198.51.100.%d" % (i + 1)


def fallback_addr(name):
    cls = "hfun".index(name[0])
    return "100.64.%d.%d" % (cls, int(name[1:].split(".")[0]) + 1)


def hosts_text(g):
    lines = ["# chaos soak, generation %d" % g, "127.0.0.1 localhost"]
    for i in range(NH):
        lines.append("%s h%d.%s h%d-alias" % (h_addr(g, i), i, ZONE, i))
    if g % 2 == 0:
        for i in range(NFL):
            lines.append("%s f%d.%s" % (f_addr(g, i), i, ZONE))
    return "\n".join(lines) + "\n"


def namespace_hosts_text():
    return "127.0.0.1 localhost\n" + "".join(
        "%s %s\n" % (fallback_addr(n), n) for n in names())


# --- workers: one process per front end, each logging every lookup ---------------------

class HostEnt(ctypes.Structure):
    _fields_ = [("h_name", ctypes.c_char_p),
                ("h_aliases", ctypes.POINTER(ctypes.c_char_p)),
                ("h_addrtype", ctypes.c_int), ("h_length", ctypes.c_int),
                ("h_addr_list", ctypes.POINTER(ctypes.POINTER(ctypes.c_char)))]


def addrs_result(addrs):
    addrs = sorted(set(addrs))
    return "A:" + ",".join(addrs) if addrs else "NF"


EAI_NF = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", -5)}


def gai_result(fn, name, family):
    try:
        res = fn(name, None, family, socket.SOCK_STREAM)
    except socket.gaierror as e:
        return "NF" if e.errno in EAI_NF else "FAIL:eai%d" % e.errno
    return addrs_result(a[4][0] for a in res)


def make_ghbn2(libc):
    buf = ctypes.create_string_buffer(65536)

    def ghbn2(name):
        he, res, herr = HostEnt(), ctypes.POINTER(HostEnt)(), ctypes.c_int(0)
        rc = libc.gethostbyname2_r(name.encode(), socket.AF_INET, ctypes.byref(he), buf,
                                   ctypes.c_size_t(len(buf)), ctypes.byref(res),
                                   ctypes.byref(herr))
        if rc == 0 and res:
            out, i = [], 0
            while he.h_addr_list[i]:
                out.append(socket.inet_ntop(socket.AF_INET,
                                            ctypes.string_at(he.h_addr_list[i], 4)))
                i += 1
            return addrs_result(out)
        if herr.value in (1, 4):            # HOST_NOT_FOUND, NO_DATA
            return "NF"
        return "FAIL:h_errno%d/rc%d" % (herr.value, rc)
    return ghbn2


def lookups_nss(spec):
    """The NSS module alone, in this process: hits from its mapped segment."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    getattr(libc, "__nss_configure_lookup")(b"hosts", b"namecache")
    ghbn2 = make_ghbn2(libc)

    def one(name, n):
        if n % 2:
            return "nss", ghbn2(name)
        # glibc's getaddrinfo says EAI_NONAME both for NOTFOUND and for
        # UNAVAIL with NO_RECOVERY (the daemon unreachable): either.
        res = gai_result(socket.getaddrinfo, name, socket.AF_UNSPEC)
        return "nss", "NF|FAIL" if res == "NF" else res
    return one


def lookups_nscd(spec):
    """glibc's nscd client, in this process: hits from its mapped database."""
    def one(name, n):
        if n % 2:
            return "nscd", gai_result(socket.getaddrinfo, name, socket.AF_UNSPEC)
        try:
            return "nscd", addrs_result(socket.gethostbyname_ex(name)[2])
        except socket.herror as e:
            return "nscd", "NF" if e.errno in (1, 4) else "FAIL:herror%d" % e.errno
        except socket.gaierror as e:
            return "nscd", "NF" if e.errno in EAI_NF else "FAIL:eai%d" % e.errno
    return one


def lookups_getent(spec):
    """Fresh getent processes: the NSS module and the nscd path, turn by turn."""
    nss_env = spec["nss_env"]
    plain_env = spec["plain_env"]

    def one(name, n):
        if n % 2:
            kind, argv, env = "getent-nss", ["getent", "-s", "namecache", "ahostsv4", name], nss_env
        else:
            kind, argv, env = "getent-nscd", ["getent", "ahostsv4", name], plain_env
        try:
            r = subprocess.run(argv, capture_output=True, text=True, env=env,
                               timeout=spec["hang"])
        except subprocess.TimeoutExpired:
            return kind, "HANG"
        if r.returncode == 0:
            return kind, addrs_result(l.split()[0] for l in r.stdout.splitlines() if l.strip())
        if r.returncode == 2:
            # -s namecache: not found and every failure alike.  The nscd
            # path: a failure falls back to glibc's files (FB), so 2 is
            # the daemon's negative answer.
            return kind, "NF|FAIL" if kind == "getent-nss" else "NF"
        return kind, "ERR:getent-exit-%d:%s" % (r.returncode, r.stderr.strip()[:100])
    return one


class NcAddr(ctypes.Structure):
    _fields_ = [("family", ctypes.c_int), ("addr", ctypes.c_uint8 * 16)]


class NcResult(ctypes.Structure):
    _fields_ = [("canonical", ctypes.c_char_p),
                ("aliases", ctypes.POINTER(ctypes.c_char_p)),
                ("naliases", ctypes.c_size_t), ("addresses", ctypes.POINTER(NcAddr)),
                ("naddresses", ctypes.c_size_t), ("ttl", ctypes.c_uint32),
                ("source", ctypes.c_int)]


# namecache.h's codes: a clean failure, a negative answer.
NC_FAIL = {-3: "tryagain", -10: "busy", -11: "unavailable", -16: "nosource",
           -18: "notfound-tryagain"}
NC_NF = {-1, -2}
NC_TIMEOUT = -12


def lookups_lib(spec):
    """libnamecache: the Python binding, and the blocking call through ctypes."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    # The binding hands a lookup to socket.getaddrinfo when the daemon
    # cannot be reached: glibc's files here, never the nscd socket.
    getattr(libc, "__nss_configure_lookup")(b"hosts", b"files")
    sys.path.insert(0, os.path.join(spec["build"], "client-lib", "python"))
    import namecache
    lib = ctypes.CDLL(os.path.join(spec["build"], "client-lib", "libnamecache.so.0"))
    lib.namecache_lookup_name.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint,
                                          ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    lib.namecache_result_free.argtypes = [ctypes.c_void_p]
    hang_ms = int(spec["hang"] * 1000)

    def one(name, n):
        if n % 2:
            return "lib-py", gai_result(namecache.getaddrinfo, name, socket.AF_INET)
        p = ctypes.c_void_p()
        rc = lib.namecache_lookup_name(name.encode(), socket.AF_INET, 0, hang_ms,
                                       ctypes.byref(p))
        if rc == NC_TIMEOUT:
            return "lib-c", "HANG"
        if rc in NC_NF:
            return "lib-c", "NF"
        if rc in NC_FAIL:
            return "lib-c", "FAIL:" + NC_FAIL[rc]
        if rc != 0:
            return "lib-c", "ERR:code%d" % rc
        r = ctypes.cast(p, ctypes.POINTER(NcResult)).contents
        out = [socket.inet_ntop(socket.AF_INET, bytes(r.addresses[i].addr[:4]))
               for i in range(r.naddresses) if r.addresses[i].family == socket.AF_INET]
        lib.namecache_result_free(p)
        return "lib-c", addrs_result(out)
    return one


def dns_result(raw, q):
    from dnslib import DNSRecord, QTYPE
    try:
        r = DNSRecord.parse(raw)
    except Exception as e:
        return "ERR:unparsable:%s" % type(e).__name__
    if r.header.id != q.header.id or not r.header.qr:
        return None         # not the reply to this question
    if str(r.q.qname).lower() != str(q.q.qname).lower() or r.q.qtype != q.q.qtype:
        return "ERR:question"
    if r.header.rcode == 3:
        return "NF"
    if r.header.rcode == 2:
        return "FAIL:servfail"
    if r.header.rcode != 0:
        return "ERR:rcode%d" % r.header.rcode
    out = []
    for rr in r.rr:
        if rr.rtype == QTYPE.A:
            if str(rr.rname).lower().rstrip(".") != str(q.q.qname).lower().rstrip("."):
                return "ERR:owner %s" % rr.rname
            out.append(str(rr.rdata))
    return addrs_result(out)


def lookups_dns(spec, transport):
    from dnslib import DNSRecord
    port = spec["dns_port"]
    hang = spec["hang"]
    state = {"tcp": None}

    def udp(name):
        q = DNSRecord.question(name, "A")
        q.header.id = random.randrange(65536)
        data = q.pack()
        end = time.monotonic() + hang
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("127.0.0.1", port))
            while time.monotonic() < end:
                try:
                    s.send(data)
                    wait = min(2.0, max(end - time.monotonic(), 0.01))
                    while True:
                        ready, _, _ = select.select([s], [], [], wait)
                        if not ready:
                            break               # retransmit
                        res = dns_result(s.recv(65535), q)
                        if res is not None:
                            return res
                except ConnectionRefusedError:
                    return "FAIL:refused"
            return "HANG"

    def tcp_once(s, data, q, end):
        s.settimeout(max(end - time.monotonic(), 0.01))
        s.sendall(struct.pack("!H", len(data)) + data)
        while True:
            head = b""
            while len(head) < 2:
                b = s.recv(2 - len(head))
                if not b:
                    raise ConnectionResetError("closed")
                head += b
            n = struct.unpack("!H", head)[0]
            body = b""
            while len(body) < n:
                b = s.recv(n - len(body))
                if not b:
                    raise ConnectionResetError("closed")
                body += b
            res = dns_result(body, q)
            if res is not None:
                return res

    def tcp(name):
        q = DNSRecord.question(name, "A")
        q.header.id = random.randrange(65536)
        data = q.pack()
        end = time.monotonic() + hang
        for attempt in (0, 1):
            fresh = state["tcp"] is None
            try:
                if fresh:
                    state["tcp"] = socket.create_connection(("127.0.0.1", port),
                                                            timeout=hang)
                return tcp_once(state["tcp"], data, q, end)
            except socket.timeout:
                if state["tcp"] is not None:
                    state["tcp"].close()
                    state["tcp"] = None
                return "HANG"
            except OSError as e:
                if state["tcp"] is not None:
                    state["tcp"].close()
                    state["tcp"] = None
                # A kept connection the daemon closed (idle, or restarted):
                # once more on a new one, as a resolver would.
                if fresh or attempt:
                    return "FAIL:%s" % type(e).__name__
        return "FAIL:closed"

    fn = udp if transport == "udp" else tcp
    return lambda name, n: ("dns-" + transport, fn(name))


def worker_main(spec_path, which):
    with open(spec_path) as f:
        spec = json.load(f)
    if which.startswith("dns-"):
        one = lookups_dns(spec, which[4:])
    else:
        one = {"nss": lookups_nss, "nscd": lookups_nscd, "getent": lookups_getent,
               "lib": lookups_lib}[which](spec)
    out_path = os.path.join(spec["dir"], which + ".log")
    rng = random.Random("%s-%s" % (spec["seed"], which))
    allnames = names()
    pause = spec["pause"].get(which, 0.005)
    inflight = os.open(out_path + ".inflight", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    n = 0
    with open(out_path, "w") as out:
        while (n < spec["max_lookups"] and time.monotonic() < spec["until"]
               and not os.path.exists(spec["stop"])):
            name = rng.choice(allnames)
            t0 = time.monotonic()
            os.pwrite(inflight, ("%.6f %s" % (t0, name)).ljust(120).encode(), 0)
            kind, res = one(name, n)
            t1 = time.monotonic()
            out.write("%.6f %.6f %s %s %s\n" % (t0, t1, kind, name, res))
            n += 1
            if n == 1:
                out.flush()
                with open(out_path + ".ready", "w"):
                    pass
            time.sleep(pause)
    os.pwrite(inflight, b"done".ljust(120), 0)
    os.close(inflight)
    return 0


# --- the timeline and the judge ------------------------------------------------------------

class Timeline:
    """The conductor's actions, each (kind, t_before, t_after, arg)."""

    def __init__(self):
        self.events = []
        self.lock = threading.Lock()

    def add(self, kind, tb, ta, arg=None):
        with self.lock:
            self.events.append((kind, tb, ta, arg))


class Judge:
    """What each lookup may answer over [t0, t1]: see the module's doc."""

    def __init__(self, events, end):
        inf = float("inf")
        self.write_start = [-inf]       # tb of write g (g = index)
        self.write_end = [-inf]         # ta of write g
        downs, fails = [], []
        kill = None
        fail = None
        for kind, tb, ta, arg in sorted(events, key=lambda e: e[1]):
            if kind == "write":
                assert arg == len(self.write_start), (arg, len(self.write_start))
                self.write_start.append(tb)
                self.write_end.append(ta)
            elif kind == "kill":
                kill = (tb, ta)
            elif kind == "ready" and kill is not None:
                downs.append((kill[0], ta, kill))
                kill = None
            elif kind == "fail":
                fail = tb
            elif kind == "recover" and fail is not None:
                fails.append((fail, ta + FAIL_SLACK))
                fail = None
        if kill is not None:
            downs.append((kill[0], inf, kill))
        if fail is not None:
            fails.append((fail, inf))
        self.downs = downs
        self.down_ends = [d[1] for d in downs]
        merged = []
        for s, e in fails:
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        self.fails = merged
        self.fail_ends = [f[1] for f in merged]
        self.down_gens = [self.gens(d[2][0], d[2][1]) for d in downs]

    def gens(self, t0, t1):
        """Generations that were the file's content at some instant of
        [t0, t1], and the one before each (the daemon's reload lag)."""
        ws, we = self.write_start, self.write_end
        last = len(ws) - 1
        hi = bisect.bisect_right(ws, t1) - 1         # written (began) by t1
        out = set()
        g = hi
        while g >= 0:
            end = we[g + 1] if g + 1 <= last else float("inf")
            if end < t0:
                break
            out.add(g)
            g -= 1
        return out | {g - 1 for g in out if g > 0}

    def overlaps(self, ends, intervals, t0, t1):
        i = bisect.bisect_left(ends, t0)
        out = []
        while i < len(intervals) and intervals[i][0] <= t1:
            out.append(i)
            i += 1
        return out

    def accepted(self, name, t0, t1):
        """(addresses accepted, NF accepted, FAIL accepted)."""
        downs = self.overlaps(self.down_ends, self.downs, t0, t1)
        failing = bool(self.overlaps(self.fail_ends, self.fails, t0, t1))
        fail_ok = bool(downs)
        cls, i = name[0], int(name[1:].split(".")[0])
        addrs, nf = set(), False
        if cls in "hf":
            gens = self.gens(t0, t1)
            for k in downs:
                gens |= self.down_gens[k]
            for g in gens:
                if cls == "h":
                    addrs.add(h_addr(g, i))
                elif g % 2 == 0:
                    addrs.add(f_addr(g, i))
                else:
                    nf = True
                    fail_ok = fail_ok or failing
        elif cls == "u":
            addrs.add(u_addr(i))
            fail_ok = fail_ok or failing
        else:
            nf = True
            fail_ok = fail_ok or failing
        return addrs, nf, fail_ok


def judge_logs(judge, logs):
    """Walks every worker's log: counts per front end, the wrong, the hangs."""
    per = {}
    wrong, hangs, examples = 0, 0, []
    for path in logs:
        last_fail_ok = -10 ** 9
        idx = 0
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 5:
                    continue        # a worker killed mid-line
                t0, t1, kind, name, res = float(parts[0]), float(parts[1]), parts[2], parts[3], parts[4]
                c = per.setdefault(kind, {"lookups": 0, "answers": 0, "failures": 0,
                                          "fallback": 0, "negative": 0, "wrong": 0,
                                          "hangs": 0})
                c["lookups"] += 1
                idx += 1
                addrs, nf, fail_ok = judge.accepted(name, t0, t1)
                if fail_ok:
                    last_fail_ok = idx
                ok = False
                if res == "HANG" or t1 - t0 > hang_bound():
                    c["hangs"] += 1
                    hangs += 1
                    if len(examples) < 30:
                        examples.append(("hang", line.strip()))
                    continue
                if res.startswith("A:"):
                    got = set(res[2:].split(","))
                    if got == {fallback_addr(name)}:
                        c["fallback"] += 1
                        ok = fail_ok or (kind == "nscd" and idx - last_fail_ok <= NSCD_RETRY)
                    else:
                        c["answers"] += 1
                        ok = len(got) == 1 and got <= addrs
                elif res == "NF":
                    c["negative"] += 1
                    ok = nf
                elif res == "NF|FAIL":
                    c["negative"] += 1
                    ok = nf or fail_ok
                elif res.startswith("FAIL"):
                    c["failures"] += 1
                    ok = fail_ok
                if not ok:
                    c["wrong"] += 1
                    wrong += 1
                    if len(examples) < 30:
                        examples.append(("wrong", "%s  (accepted: %s%s%s)" % (
                            line.strip(), ",".join(sorted(addrs)) or "-",
                            " NF" if nf else "", " FAIL" if fail_ok else "")))
    return per, wrong, hangs, examples


# --- the monitor ---------------------------------------------------------------------------

class Monitor:
    def __init__(self, build, sock, life, allnames):
        self.life = life
        self.allnames = allnames
        self.events = 0
        self.lost = 0
        self.bad = []
        self.foreign = 0
        self.frontends = {}
        self.proc = subprocess.Popen([os.path.join(build, "cli", "namecachectl"), "--socket",
                                      sock, "--json", "monitor"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                if len(self.bad) < 5:
                    self.bad.append(line[:200])
                continue
            self.lost += int(ev.get("lost", 0) or 0)
            if "frontend" not in ev:
                continue
            self.events += 1
            fe = ev["frontend"]
            self.frontends[fe] = self.frontends.get(fe, 0) + 1
            if ev.get("name", "").lower().rstrip(".") not in self.allnames:
                self.foreign += 1
                if len(self.bad) < 5:
                    self.bad.append("foreign name: %s" % line[:200])

    def ended(self, timeout):
        """Whether it ended (it must, once its daemon is gone) within timeout."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return False
        self.thread.join(timeout)
        return True


# --- the soak --------------------------------------------------------------------------------

def enter_namespaces():
    """A private mount and network namespace (only lo), /run a tmpfs, the
    test's nsswitch.conf, hosts and resolv.conf over /etc's."""
    privns.enter("a chaos soak in namespaces of its own", net=True,
                 tools=("getent", "ip", "mount"), modules=("dnslib",))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/run"], check=True)
    os.mkdir("/run/nscd", 0o755)
    # glibc's AI_ADDRCONFIG ignores loopback addresses: getent ahostsv4
    # answers nothing on a host with none other (tests/dns/dnsenv.py).
    subprocess.run(["ip", "addr", "add", "203.0.113.1/32", "dev", "lo"], check=True)
    etc = privns.mkdtemp("nc-chaos-etc-")
    with open("/etc/nsswitch.conf") as f:
        others = "\n".join(l for l in f.read().splitlines()
                           if not l.strip().startswith("hosts:")) + "\n"
    files = {"nsswitch.conf": "hosts: files\n" + others,
             "hosts": namespace_hosts_text(),
             # Nothing listens on port 53 in this namespace: a refusal at once.
             "resolv.conf": "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"}
    for name, text in files.items():
        path = os.path.join(etc, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        subprocess.run(["mount", "--bind", path, "/etc/" + name], check=True)


def upstream_server(dnsenv):
    """A FaultServer whose every answer turns to one failure while .failing
    names it: one store of an attribute, so that no query ever meets a
    table half rewritten (a u-name answered NXDOMAIN, or 192.0.2.1)."""
    class Upstream(dnsenv.FaultServer):
        failing = None

        def behaviour(self, name, qtype):
            mode = self.failing
            if mode:
                return (mode, {})
            return dnsenv.FaultServer.behaviour(self, name, qtype)
    return Upstream()


def rss(pid):
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "RssAnon"):
                    out[k] = int(v.split()[0])
    except (OSError, ValueError):
        return None
    return out if len(out) == 2 else None


class Soak:
    def __init__(self, args, tmp):
        import dnsenv
        import nclib
        self.nclib = nclib
        self.args = args
        self.build = args.build
        self.tmp = tmp
        self.hang = hang_bound()
        self.rng = random.Random(args.seed)
        self.timeline = Timeline()
        self.allnames = set(names())
        self.problems = []
        self.counts = {"kills": 0, "restarts": 0, "hups": 0, "writes": 0,
                       "upstream_failures": 0, "monitors": 0, "monitor_hangs": 0,
                       "start_hangs": 0}
        self.fail_modes = {}
        self.gen = 0
        self.failing = None
        self.rss = []           # (t, pid, phase, VmRSS, RssAnon)
        self.life = 0
        self.phase = "storm"
        self.monitors = []
        self.upstream = upstream_server(dnsenv)
        self.upstream.set_default("nxdomain", soa=True, soa_ttl=UPSTREAM_TTL,
                                  minimum=UPSTREAM_TTL)
        soa = "%s. %d IN SOA ns1.%s. hostmaster.%s. 1 3600 600 86400 %d" % (
            ZONE, UPSTREAM_TTL, ZONE, ZONE, UPSTREAM_TTL)
        for i in range(NU):
            self.upstream.set("u%d.%s" % (i, ZONE), "answer",
                              records=[("A", UPSTREAM_TTL, u_addr(i))], authority=[soa])
        self.dns_port = dnsenv.free_port(("127.0.0.1",))
        d_dir = os.path.join(tmp, "d")
        os.mkdir(d_dir)
        env = dict(os.environ)
        # An ASan daemon keeps 256 MiB of freed memory by default: its RSS
        # would grow for minutes by design.  (Ignored by other builds.)
        env["ASAN_OPTIONS"] = ":".join(filter(None, [
            env.get("ASAN_OPTIONS", ""), "quarantine_size_mb=1",
            "thread_local_quarantine_size_kb=64"]))
        self.d = nclib.Daemon(self.build, d_dir, hosts_text=hosts_text(0),
                              conf_text="failure_ttl = %d\n" % FAILURE_TTL,
                              upstream="127.0.0.1:%d" % self.upstream.port,
                              args=["--nscd-socket", NSCD_SOCKET,
                                    "--dns-listen", "127.0.0.1:%d" % self.dns_port],
                              env=env)
        self.stop_sampling = threading.Event()

    # -- actions --

    def start_daemon(self):
        tb = time.monotonic()
        if self.d.logf:
            self.d.logf.close()
            self.d.logf = None
        self.d.start(wait=False)
        # Up when both sockets answer; not within the hang bound is a hang.
        end = time.monotonic() + self.hang
        while True:
            if self.d.proc.poll() is not None:
                self.problems.append("the daemon exited at start (status %s)" %
                                     self.d.proc.returncode)
                raise RuntimeError("start failed")
            try:
                for path in (self.d.sock, NSCD_SOCKET):
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                        s.connect(path)
                break
            except OSError:
                if time.monotonic() > end:
                    self.counts["start_hangs"] += 1
                    self.problems.append("the daemon's sockets did not answer within %d s"
                                         " of its start" % self.hang)
                    raise RuntimeError("start hung")
                time.sleep(0.01)
        self.life += 1
        self.timeline.add("ready", tb, time.monotonic())
        self.monitors.append(Monitor(self.build, self.d.sock, self.life, self.allnames))
        self.counts["monitors"] += 1

    def check_alive(self):
        if self.d.proc.poll() is not None:
            self.problems.append("the daemon died by itself (status %s)" % self.d.proc.returncode)
            raise RuntimeError("daemon died")

    def kill(self):
        self.check_alive()
        tb = time.monotonic()
        self.d.proc.send_signal(signal.SIGKILL)
        self.d.proc.wait()
        self.timeline.add("kill", tb, time.monotonic())
        self.counts["kills"] += 1
        # Its monitor must end by itself now.
        m = self.monitors[-1]
        if not m.ended(self.hang):
            self.counts["monitor_hangs"] += 1
            self.problems.append("a monitor went on after its daemon was killed")
        # Down for a moment, during which the world may change.
        down_until = time.monotonic() + self.rng.uniform(0, 0.8)
        if self.rng.random() < 0.3:
            if time.monotonic() - self.last_write > 1.2 and self.rng.random() < 0.5:
                self.write()
            else:
                self.toggle_upstream()
        time.sleep(max(down_until - time.monotonic(), 0))
        self.start_daemon()
        self.counts["restarts"] += 1

    def hup(self):
        self.check_alive()
        tb = time.monotonic()
        self.d.proc.send_signal(signal.SIGHUP)
        self.timeline.add("hup", tb, time.monotonic())
        self.counts["hups"] += 1

    def write(self):
        g = self.gen + 1
        text = hosts_text(g)
        tb = time.monotonic()
        if self.rng.random() < 0.5:
            tmp = self.d.hosts + ".new"
            with open(tmp, "w") as f:
                f.write(text)
            os.rename(tmp, self.d.hosts)
        else:
            with open(self.d.hosts, "w") as f:      # in place, as `cat > hosts`
                f.write(text)
        self.gen = g
        self.timeline.add("write", tb, time.monotonic(), g)
        self.counts["writes"] += 1
        self.last_write = time.monotonic()

    def toggle_upstream(self):
        tb = time.monotonic()
        if self.failing:
            self.failing = self.upstream.failing = None
            self.timeline.add("recover", tb, time.monotonic())
        else:
            mode = self.rng.choice(["servfail", "refused", "timeout"])
            self.failing = self.upstream.failing = mode
            self.fail_modes[mode] = self.fail_modes.get(mode, 0) + 1
            self.counts["upstream_failures"] += 1
            self.timeline.add("fail", tb, time.monotonic(), mode)

    # -- the sampler --

    def sample(self):
        while not self.stop_sampling.wait(SAMPLE_SEC):
            proc = self.d.proc
            if proc is None or proc.poll() is not None:
                continue
            r = rss(proc.pid)
            if r:
                self.rss.append((time.monotonic() - self.t_start, proc.pid, self.phase,
                                 r["VmRSS"], r["RssAnon"]))

    # -- the run --

    def workers(self):
        nclib = self.nclib
        spec = {"dir": self.tmp, "seed": self.args.seed, "stop": os.path.join(self.tmp, "stop"),
                "until": self.t_end, "hang": self.hang, "build": self.build,
                "dns_port": self.dns_port,
                "max_lookups": int(self.args.seconds * 1000) + 1000,
                "pause": {"getent": 0.02},
                "nss_env": nclib.nss_env(self.build, self.d.sock),
                "plain_env": {k: v for k, v in os.environ.items()
                              if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD",
                                           "NAMECACHE_SOCKET")}}
        with open(os.path.join(self.tmp, "spec.json"), "w") as f:
            json.dump(spec, f)
        procs = {}
        for which in ("nss", "nscd", "getent", "dns-udp", "dns-tcp", "lib"):
            env = spec["plain_env"] if which in ("nscd", "dns-udp", "dns-tcp") else \
                spec["nss_env"]
            err = open(os.path.join(self.tmp, which + ".stderr"), "w")
            procs[which] = (subprocess.Popen(
                [PYTHON, os.path.abspath(__file__), "--worker", which,
                 os.path.join(self.tmp, "spec.json")],
                env=env, stdout=err, stderr=err), err)
        return procs

    def run(self):
        args = self.args
        self.t_start = time.monotonic()
        self.t_end = self.t_start + args.seconds + 60     # workers' own bound
        self.start_daemon()
        sampler = threading.Thread(target=self.sample, daemon=True)
        sampler.start()
        procs = self.workers()
        # The workers are at work (each has made a lookup) before the chaos.
        deadline = time.monotonic() + self.hang
        for which, (p, _) in procs.items():
            while not os.path.exists(os.path.join(self.tmp, which + ".log.ready")):
                if p.poll() is not None or time.monotonic() > deadline:
                    self.problems.append("worker %s did not start" % which)
                    break
                time.sleep(0.05)
        self.t_chaos = time.monotonic()
        t_stop = self.t_chaos + args.seconds
        # Cycles of a storm phase (60%) and a kill phase: 40 s are a storm
        # of 15 s, kills for 10 s, a storm of 15 s.
        cycle = max(25.0, args.seconds / 5.0)
        self.last_write = 0.0
        try:
            while time.monotonic() < t_stop and not self.problems:
                into = (time.monotonic() - self.t_chaos) % cycle
                self.phase = "storm" if into < cycle * 0.6 else "kill"
                self.check_alive()
                r = self.rng.random()
                if self.phase == "kill" and r < 0.4:
                    self.kill()
                elif r < 0.6:
                    if time.monotonic() - self.last_write > 1.2:
                        self.write()
                    else:
                        self.hup()
                elif r < 0.8:
                    self.toggle_upstream()
                else:
                    self.hup()
                time.sleep(self.rng.uniform(0.3, 1.0))
            if self.failing:
                self.toggle_upstream()
        except (RuntimeError, AssertionError):
            pass
        t_chaos_end = time.monotonic()
        # Stop the workers: each ends its lookup and exits.
        with open(os.path.join(self.tmp, "stop"), "w"):
            pass
        hung_workers = []
        for which, (p, err) in procs.items():
            try:
                p.wait(self.hang + 5)
            except subprocess.TimeoutExpired:
                hung_workers.append(which)
                p.kill()
                p.wait()
            err.close()
            if p.returncode not in (0, -9):
                with open(os.path.join(self.tmp, which + ".stderr")) as f:
                    self.problems.append("worker %s exited %s: %s" % (
                        which, p.returncode, f.read()[-2000:]))
        self.stop_sampling.set()
        sampler.join()
        # The last life: a clean stop, which ends its monitor.
        rc = self.d.stop() if self.d.proc.poll() is None else self.d.proc.returncode
        if rc != 0:
            self.problems.append("the daemon's SIGTERM exit status: %s" % rc)
        if self.monitors and not self.monitors[-1].ended(self.hang):
            self.counts["monitor_hangs"] += 1
            self.problems.append("a monitor went on after its daemon stopped")
        self.upstream.stop()
        log = self.d.read_log()
        for marker in ("runtime error:", "AddressSanitizer", "LeakSanitizer"):
            if marker in log:
                self.problems.append("sanitizer report in the daemon's log (%s)" % marker)
        return self.report(t_chaos_end - self.t_chaos, hung_workers)

    # -- figures and verdict --

    def rss_verdict(self):
        """The memory criteria of the module's doc: [(what, ok)]."""
        out = []
        lives = {}      # by pid: one life each, in order
        for t, pid, phase, vm, anon in self.rss:
            lives.setdefault(pid, []).append((t, phase, vm, anon))
        storm, kill = [], []
        for life in lives:
            s = lives[life]
            # The warm-up: its first WARMUP_SEC.  A life with 8 s or more
            # after it spans a storm phase; the kill phases' are shorter.
            warm = [a for t, _, _, a in s if t - s[0][0] >= WARMUP_SEC]
            if len(warm) < LONG_SAMPLES:
                kill.append(life)
                continue
            storm.append(life)
            k = len(warm) // 3
            m1, m2, m3 = min(warm[:k]), min(warm[k:2 * k]), min(warm[2 * k:])
            rise = m3 - m1
            bound = max(KIB // 2, m1 * 0.10)
            grows = rise > bound and m2 - m1 > rise / 4 and m3 - m2 > rise / 4
            out.append(("pid %d (%d samples): RssAnon floor by third after the warm-up"
                        " %d, %d, %d KiB (medians %d, %d, %d; rise bound %d)" % (
                            life, len(s), m1, m2, m3, statistics.median(warm[:k]),
                            statistics.median(warm[k:2 * k]), statistics.median(warm[2 * k:]),
                            bound), not grows))
        for label, group in (("storm", storm), ("kill", kill)):
            if len(group) >= 2:
                first = max(a for _, _, _, a in lives[group[0]])
                last = max(a for _, _, _, a in lives[group[-1]])
                bound = first + max(2 * KIB, first * 0.2)
                out.append(("%s lives: the first's largest RssAnon %d KiB, the last's %d"
                            " (bound %d)" % (label, first, last, bound), last <= bound))
        return out

    def report(self, chaos_sec, hung_workers):
        logs = [os.path.join(self.tmp, w + ".log") for w in
                ("nss", "nscd", "getent", "dns-udp", "dns-tcp", "lib")]
        logs = [p for p in logs if os.path.exists(p)]
        if self.args.keep:
            import shutil
            os.makedirs(self.args.keep, exist_ok=True)
            for path in logs:
                shutil.copy(path, self.args.keep)
            with open(os.path.join(self.args.keep, "timeline.json"), "w") as f:
                json.dump(self.timeline.events, f)
            with open(os.path.join(self.args.keep, "rss.json"), "w") as f:
                json.dump(self.rss, f)
        judge = Judge(self.timeline.events, float("inf"))
        per, wrong, hangs, examples = judge_logs(judge, logs)
        for which in hung_workers:
            hangs += 1
            path = os.path.join(self.tmp, which + ".log.inflight")
            with open(path) as f:
                examples.append(("hang", "worker %s stuck in: %s" % (which, f.read().strip())))
        hangs += self.counts["monitor_hangs"] + self.counts["start_hangs"]
        total = sum(c["lookups"] for c in per.values())
        p = print
        p("chaos: %.0f s of chaos (seed %s), %d lookups, %d daemon lives" % (
            chaos_sec, self.args.seed, total, self.life))
        p("lookups per front end:")
        for kind in sorted(per):
            c = per[kind]
            p("  %-12s %7d  (answers %d, negative %d, failures %d, glibc fallback %d,"
              " wrong %d, hangs %d)" % (kind, c["lookups"], c["answers"], c["negative"],
                                         c["failures"], c["fallback"], c["wrong"],
                                         c["hangs"]))
        mon_events = sum(m.events for m in self.monitors)
        mon_fe = {}
        for m in self.monitors:
            for k, v in m.frontends.items():
                mon_fe[k] = mon_fe.get(k, 0) + v
        mon_bad = [b for m in self.monitors for b in m.bad]
        mon_foreign = sum(m.foreign for m in self.monitors)
        p("  %-12s %7d events over %d attachments (%s), lost %d, foreign names %d" % (
            "monitor", mon_events, self.counts["monitors"],
            ", ".join("%s %d" % kv for kv in sorted(mon_fe.items())),
            sum(m.lost for m in self.monitors), mon_foreign))
        if mon_bad:
            self.problems.append("monitor lines: %s" % mon_bad)
        p("restarts: %d (SIGKILL), reloads: %d (SIGHUP), hosts rewrites: %d, "
          "upstream failures: %d (%s)" % (
              self.counts["restarts"], self.counts["hups"], self.counts["writes"],
              self.counts["upstream_failures"],
              ", ".join("%s %d" % kv for kv in sorted(self.fail_modes.items()))))
        p("wrong: %d" % wrong)
        p("hangs: %d (bound %d s)" % (hangs, self.hang))
        for what, line in examples:
            p("  %s: %s" % (what, line))
        p("RSS of the daemon over time (t s, pid, phase, VmRSS KiB, RssAnon KiB):")
        step = max(1, len(self.rss) // 20)
        for t, life, phase, vm, anon in self.rss[::step] + self.rss[-1:]:
            p("  %6.1f  %7d  %-5s  %7d  %7d" % (t, life, phase, vm, anon))
        rss_ok = True
        for what, ok in self.rss_verdict():
            p("  %s %s" % ("ok  " if ok else "GROWS", what))
            rss_ok = rss_ok and ok
        for prob in self.problems:
            p("problem: %s" % prob)
        failed = wrong or hangs or not rss_ok or self.problems or total == 0
        if self.args.check and failed:
            tail = self.d.read_log()[-3000:]
            p("---- daemon log (tail) ----\n%s" % tail)
        return 1 if (self.args.check and failed) else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        return worker_main(sys.argv[3], sys.argv[2])
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--seconds", type=float, default=40)
    ap.add_argument("--seed", default=None)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on any wrong answer, hang, RSS growth or crash")
    ap.add_argument("--keep", help="copy the lookups' logs and the timeline there")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    if args.seed is None:
        args.seed = str(random.randrange(1 << 30))
    enter_namespaces()
    import tempfile
    with tempfile.TemporaryDirectory(prefix="nc-chaos-") as tmp:
        os.chmod(tmp, 0o755)
        soak = Soak(args, tmp)
        try:
            return soak.run()
        finally:
            if soak.d.proc and soak.d.proc.poll() is None:
                soak.d.proc.kill()
                soak.d.proc.wait()
            for m in soak.monitors:
                if m.proc.poll() is None:
                    m.proc.kill()
                    m.proc.wait()


if __name__ == "__main__":
    sys.exit(main())
