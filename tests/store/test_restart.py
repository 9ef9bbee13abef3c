#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/store/test_restart.py - a restart costs no upstream query (issue 22).

The cache lives in a file beside the socket (daemon/engine/store.c), and a daemon
that starts takes over what the one before left (cache_open_file):

  * 2,000 names through every front end: the NSS module (getaddrinfo,
    AF_UNSPEC: gai-list), glibc's nscd client (nscd-probe: getaddrinfo
    and gethostbyname2_r of each family), the DNS listener (A and AAAA over
    UDP), libnamecache (namecachectl query, and query -t MX).  Then
    SIGTERM and start, everything again; then SIGKILL and start, again.
    The upstream (a scripted server that counts) sees no query after the
    first round, and every answer is the first round's;
  * a store of garbage, or one cut short, is refused with one log line,
    and the daemon starts empty and answers;
  * another search list at the next start: the DNS answers are not taken;
  * persistent_cache = PATH: the store is kept there, and taken over from
    there;
  * under socket activation (the test holds the listening socket, as
    systemd does), readers go on through a restart: with the daemon
    stopped, 2,000 names are answered from the shared segment it left
    live, no client so much as connects to the socket, and one that must
    wait for the next daemon does (the stopped one is not taken for hung);
    and a process
    that has glibc's nscd map mapped reads it through the restart too;
  * after a SIGKILL, the next daemon takes glibc's nscd map over before
    it answers: a process that has it mapped gets every name it had from
    the map, and the new daemon's nscd socket gets no request for them;
    the same for the passwd and group maps (users, groups, group lists),
    and when /etc/group changed while the daemon was down, the group map
    is dropped and the passwd map still taken over.

No assert here is on a duration: a wait is on a mechanism (a counter, a
connection pending, the segment's beat), and its bound, HUNG (30 s, four
times that under NAMECACHE_VALGRIND), only detects a hang.

Times (expired, stale) are the unit tests' (tests/unit/test-store.c, on a
fake clock).  Needs root (exit 77, a skip, otherwise): a private /run for
glibc's nscd socket.  Nothing leaves loopback.

Run: /usr/bin/python3 tests/store/test_restart.py --build BUILD [-k NAME]
"""
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import nclib  # noqa: E402
import dnsenv  # noqa: E402

BUILD = None
TESTS = []
PYTHON = "/usr/bin/python3"
NSCD_SOCKET = "/var/run/nscd/socket"
N = 2000                # names in all
N_NSCD = 300            # of them, asked through glibc's nscd client too
N_LIB = 300             # and through namecachectl query (libnamecache)
N_MX = 50               # and query -t MX
RECORDS = [("A", 3600, "192.0.2.1"), ("AAAA", 3600, "2001:db8::1"),
           ("MX", 3600, "10 mx.restart.example.")]
# A hang bound: waiting longer means hung, never slow (scaled under valgrind).
HUNG = nclib.HUNG_SEC * (4 if nclib.valgrind_prefix() else 1)
NCC_HUNG_MS = 3000      # client-lib/shared.h: a beat this old is a hung daemon's


def test(fn):
    TESTS.append(fn)
    return fn


def names(n=N):
    return ["r%d.restart.example" % i for i in range(n)]


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []
        for p in os.listdir("/run/nscd"):
            os.unlink(os.path.join("/run/nscd", p))
        self.names_file = os.path.join(tmp, "names")
        with open(self.names_file, "w") as f:
            f.write("\n".join(names()) + "\n")

    def upstream(self):
        srv = dnsenv.FaultServer()
        srv.set_default("answer", records=RECORDS)
        self.servers.append(srv)
        return srv

    def daemon(self, srv, resolv=None):
        self.dns_port = dnsenv.free_port()
        os.makedirs(os.path.join(self.tmp, "d"), exist_ok=True)
        d = nclib.Daemon(BUILD, os.path.join(self.tmp, "d"), conf_text="shared = yes\n",
                         upstream="127.0.0.1:%d" % srv.port, resolv=resolv,
                         args=["--nscd-socket", NSCD_SOCKET,
                               "--dns-listen", "127.0.0.1:%d" % self.dns_port])
        self.daemons.append(d)
        return d


def run(argv, env=None, timeout=300):
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)
    assert r.returncode == 0, (argv[:3], r.returncode, r.stderr[-2000:])
    return r.stdout


def every_front_end(env, d):
    """What each front end answers for the names: {front end: sorted lines}."""
    out = {}
    # The NSS module: getaddrinfo, AF_UNSPEC.
    out["nss"] = sorted(run([os.path.join(BUILD, "tests", "store", "gai-list"),
                             "namecache [!UNAVAIL=return]", env.names_file],
                            env=nclib.nss_env(BUILD, d.sock)).splitlines())
    # glibc's nscd client (the namespace's /run/nscd/socket is the daemon's).
    out["nscd"] = sorted(run([os.path.join(BUILD, "tests", "nscd", "nscd-probe")] +
                             names(N_NSCD)).splitlines())
    # The DNS listener: A and AAAA of each name.
    dns = []
    for name in names():
        for qtype in ("A", "AAAA"):
            r = dnsenv.query(env.dns_port, name, qtype)
            dns.append("%s %s %d %s" % (name, qtype, r.header.rcode,
                                       " ".join(sorted(str(rr.rdata) for rr in r.rr))))
    out["dns"] = sorted(dns)
    # libnamecache: namecachectl query, and query -t MX.
    ctl = os.path.join(BUILD, "cli", "namecachectl")
    lines = run([ctl, "--socket", d.sock, "query"] + names(N_LIB)).splitlines()
    # Its TTLs count down: the addresses and names are what must not change.
    # (Its "-- Answered from ..., TTL ..." lines count down: left out.)
    out["lib"] = sorted(l for l in lines if l.strip() and not l.startswith("--"))
    lines = run([ctl, "--socket", d.sock, "query", "-t", "MX"] +
                names(N_MX)).splitlines()
    out["lib-mx"] = sorted(l for l in lines if l.strip() and not l.startswith("--"))
    assert len(out["lib"]) >= N_LIB and len(out["lib-mx"]) >= N_MX, (out["lib"][:3],
                                                                    out["lib-mx"][:3])
    return out


def took_over(d):
    return [l for l in d.read_log().splitlines() if "cache: took over" in l]


@test
def restart_costs_no_upstream_query(env):
    srv = env.upstream()
    d = env.daemon(srv).start()
    first = every_front_end(env, d)
    q1 = srv.total()
    # Every name was asked upstream, A and AAAA at least.
    assert q1 >= 2 * N, q1
    assert all(" 192.0.2.1" in l and "2001:db8::1" in l for l in first["nss"]), \
        [l for l in first["nss"] if "192.0.2.1" not in l][:3]
    assert len(first["dns"]) == 2 * N
    assert all(" 0 " in l for l in first["dns"]), first["dns"][:3]
    entries = d.ctl_json("statistics")["cache_entries"]
    print("  first round: %d upstream queries, %d cache entries" % (q1, entries))

    for how in ("SIGTERM", "SIGKILL"):
        if how == "SIGTERM":
            assert d.stop() == 0
        else:
            d.proc.send_signal(signal.SIGKILL)
            d.proc.wait()
            d.logf.close()
            d.logf = None
        t0 = time.monotonic()
        d.start()
        up = time.monotonic() - t0
        lines = took_over(d)
        assert lines, d.read_log()[-2000:]
        print("  after %s: started in %.2f s; %s" % (how, up, lines[-1].split("]: ", 1)[-1]))
        st = d.ctl_json("statistics")
        assert st["cache_entries"] == entries, (st["cache_entries"], entries)
        again = every_front_end(env, d)
        for k in first:
            assert again[k] == first[k], (how, k, [
                (a, b) for a, b in zip(first[k], again[k]) if a != b][:3])
        assert srv.total() == q1, ("upstream asked after %s" % how, srv.total() - q1,
                                   list(srv.counts().items())[:5])
    print("  %d names through 4 front ends, twice restarted: 0 upstream queries after "
          "the first round" % N)


def store_path(d):
    return os.path.join(os.path.dirname(d.sock), "store")


def store_refusals(d):
    """The store's refusals (not the nscd map's "not taken over whole")."""
    return [l for l in d.read_log().splitlines()
            if "cache: " in l and "was not taken over" in l]


@test
def a_bad_store_is_refused_with_one_line(env):
    srv = env.upstream()
    d = env.daemon(srv)
    os.makedirs(os.path.dirname(d.sock), exist_ok=True)
    # Garbage where the store was.
    with open(store_path(d), "wb") as f:
        f.write(os.urandom(1 << 20))
    d.start()
    refused = store_refusals(d)
    assert len(refused) == 1 and "magic" in refused[0], refused
    assert d.ctl_json("statistics")["cache_entries"] == 0
    out = run([os.path.join(BUILD, "tests", "store", "gai-list"),
               "namecache [!UNAVAIL=return]", env.names_file],
              env=nclib.nss_env(BUILD, d.sock)).splitlines()
    assert len(out) == N and all("192.0.2.1" in l for l in out)
    entries = d.ctl_json("statistics")["cache_entries"]
    assert d.stop() == 0
    # Cut short, as a full disk would leave it.
    size = os.path.getsize(store_path(d))
    with open(store_path(d), "r+b") as f:
        f.truncate(size // 2)
    d.start()
    refused = store_refusals(d)
    assert len(refused) == 2 and "size" in refused[1], refused
    assert d.ctl_json("statistics")["cache_entries"] == 0
    # And whole again: taken over.
    run([os.path.join(BUILD, "tests", "store", "gai-list"),
         "namecache [!UNAVAIL=return]", env.names_file], env=nclib.nss_env(BUILD, d.sock))
    assert d.stop() == 0
    d.start()
    assert d.ctl_json("statistics")["cache_entries"] == entries
    print("  garbage and a store cut short: refused, one line each; %d entries "
          "taken over from a whole one" % entries)


@test
def another_search_list_takes_no_dns_answer(env):
    srv = env.upstream()
    resolv = os.path.join(env.tmp, "resolv.conf")
    with open(resolv, "w") as f:
        f.write("nameserver 127.0.0.1\nsearch one.example\n")
    d = env.daemon(srv, resolv=resolv).start()
    run([os.path.join(BUILD, "tests", "store", "gai-list"),
         "namecache [!UNAVAIL=return]", env.names_file], env=nclib.nss_env(BUILD, d.sock))
    q1 = srv.total()
    assert d.stop() == 0
    with open(resolv, "w") as f:
        f.write("nameserver 127.0.0.1\nsearch two.example\n")
    d.start()
    lines = took_over(d)
    assert lines and "took over 0 answers" in lines[-1], lines
    assert " 0 of another search list" not in lines[-1], lines
    assert d.ctl_json("statistics")["cache_entries"] == 0, d.read_log()[-1500:]
    run([os.path.join(BUILD, "tests", "store", "gai-list"),
         "namecache [!UNAVAIL=return]", env.names_file], env=nclib.nss_env(BUILD, d.sock))
    assert srv.total() > q1


@test
def persistent_cache_keeps_the_store_where_it_says(env):
    srv = env.upstream()
    disk = os.path.join(env.tmp, "var-cache")
    os.makedirs(disk)
    path = os.path.join(disk, "store")
    d = env.daemon(srv)
    with open(d.conf, "a") as f:
        f.write("persistent_cache = %s\n" % path)
    d.start()
    run([os.path.join(BUILD, "tests", "store", "gai-list"),
         "namecache [!UNAVAIL=return]", env.names_file], env=nclib.nss_env(BUILD, d.sock))
    q1 = srv.total()
    entries = d.ctl_json("statistics")["cache_entries"]
    assert d.stop() == 0
    assert os.path.exists(path) and not os.path.exists(store_path(d))
    d.start()
    lines = took_over(d)
    assert lines and path in lines[-1] and "took over %d answers" % entries in lines[-1], lines
    run([os.path.join(BUILD, "tests", "store", "gai-list"),
         "namecache [!UNAVAIL=return]", env.names_file], env=nclib.nss_env(BUILD, d.sock))
    assert srv.total() == q1, srv.total() - q1
    print("  persistent_cache: %d entries taken over from %s, 0 upstream queries" % (
        entries, path))


def socket_activated(env, srv, d, listener, nscd=None):
    """Starts d as systemd would, with the listening socket as fd 3 (and
    glibc's nscd socket, named "nscd", as fd 4)."""
    fds = [listener.fileno()] + ([nscd.fileno()] if nscd else [])
    d.logf = open(d.log, "ab")
    argv = [os.path.join(BUILD, "daemon", "namecached"), "--config", d.conf,
            "--socket", d.sock, "--hosts-file", d.hosts, "--resolv-conf", d.resolv,
            "--nsswitch-conf", d.nsswitch, "--upstream", "127.0.0.1:%d" % srv.port]
    if nscd:
        argv += ["--nscd-socket", NSCD_SOCKET]
    dup = " ".join("%d<&%d %d<&-" % (3 + i, fd, fd) for i, fd in enumerate(fds))
    d.proc = subprocess.Popen(
        ["sh", "-c", 'exec %s; LISTEN_PID=$$ LISTEN_FDS=%d LISTEN_FDNAMES=%s exec "$@"' % (
            dup, len(fds), "namecache:nscd" if nscd else "namecache"),
         "sh"] + nclib.valgrind_prefix() + argv,
        stdout=d.logf, stderr=d.logf, pass_fds=fds)
    return d


def pending(listener):
    """Whether a client waits on the held socket (connected, not accepted)."""
    return bool(select.select([listener], [], [], 0)[0])


def held_socket(path):
    """A listening socket at path, held by the test as systemd holds one."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(64)
    return s


def activated_setup(env):
    """An upstream, and a daemon (not started) whose socket the test holds."""
    srv = env.upstream()
    tmp = os.path.join(env.tmp, "sa")
    os.makedirs(tmp)
    d = nclib.Daemon(BUILD, tmp, conf_text="shared = yes\n")
    env.daemons.append(d)
    return srv, tmp, d, held_socket(d.sock)


@test
def readers_go_on_through_a_restart(env):
    srv, tmp, d, listener = activated_setup(env)
    gai = os.path.join(BUILD, "tests", "store", "gai-list")
    env_nss = nclib.nss_env(BUILD, d.sock)
    socket_activated(env, srv, d, listener)
    # Asked twice: the first asks upstream and publishes, the second reads.
    first = run([gai, "namecache [!UNAVAIL=return]", env.names_file], env=env_nss,
                timeout=60)
    assert run([gai, "namecache [!UNAVAIL=return]", env.names_file], env=env_nss,
               timeout=60) == first
    assert first.count("192.0.2.1") == N, first[:300]
    d.proc.send_signal(signal.SIGTERM)
    assert d.proc.wait(timeout=30) == 0, d.read_log()[-2000:]
    d.logf.close()
    d.logf = None
    assert not pending(listener)
    # No daemon: the segment it left answers every name (namecache alone
    # on the line: a lookup that went to the socket would wait there).
    t0 = time.monotonic()
    during = subprocess.run([gai, "namecache", env.names_file], env=env_nss,
                            capture_output=True, text=True, timeout=HUNG)
    secs = time.monotonic() - t0
    assert during.returncode == 0 and during.stdout == first, (
        during.returncode, during.stderr[-500:], [
            (a, b) for a, b in zip(first.splitlines(), during.stdout.splitlines())
            if a != b][:3])
    assert not pending(listener), "a reader went to the socket while no daemon ran"
    print("  daemon stopped: %d names answered from the segment it left, in %.2f s, "
          "0 connections" % (N, secs))
    # A name the segment lacks waits on the socket for the next daemon: past
    # NCC_HUNG_MS, the stopped daemon's beat is not taken for a hang.
    late = os.path.join(tmp, "late")
    with open(late, "w") as f:
        f.write("late.restart.example\n")
    waiting = subprocess.Popen([gai, "namecache", late], env=env_nss, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    nclib.wait_until(lambda: pending(listener), "the late lookup at the socket")
    # Until the stopped daemon's beat is older than a hung one's: a client
    # that judged it by its beat would have given up by then.
    seg = os.path.join(os.path.dirname(d.sock), "cache")
    nclib.wait_until(lambda: beat_age(seg) > NCC_HUNG_MS / 1000 + 0.5,
                     "the stopped daemon's beat to age past NCC_HUNG_MS",
                     timeout=nclib.HUNG_SEC + NCC_HUNG_MS / 1000, step=0.1)
    assert waiting.poll() is None, ("gave up on a daemon that is coming back",
                                    waiting.communicate())
    # The next daemon takes the store over and replaces the segment.
    q1 = srv.total()
    socket_activated(env, srv, d, listener)
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 0 and "192.0.2.1" in out, (out, err)
    nclib.wait_until(lambda: took_over(d), "the next daemon took the store over")
    q2 = srv.total()
    assert q2 - q1 <= 2, q2 - q1       # the late name's A and AAAA, no more
    after = run([gai, "namecache", env.names_file], env=env_nss, timeout=60)
    assert after == first
    assert srv.total() == q2, srv.total() - q2
    listener.close()    # the framework stops the daemon, and checks its exit


def beat_age(seg):
    """Seconds since the segment's daemon last beat (proto/shmfmt.h:
    heartbeat_ns, CLOCK_MONOTONIC, at offset 64 of the header)."""
    with open(seg, "rb") as f:
        f.seek(64)
        beat = int.from_bytes(f.read(8), sys.byteorder, signed=True)
    return time.clock_gettime(time.CLOCK_MONOTONIC) - beat / 1e9


def reads_through_a_restart(env, srv, d, own, nscd, reader):
    """The reader's rounds: two with the daemon, one with none, one after."""
    def round_(timeout):
        reader.stdin.write("go\n")
        reader.stdin.flush()
        ready = select.select([reader.stdout], [], [], timeout)[0]
        assert ready, "the reader hung (waiting on a socket nobody accepts on?)"
        return int(reader.stdout.readline())

    assert round_(HUNG) == N_NSCD
    assert round_(HUNG) == N_NSCD
    d.proc.send_signal(signal.SIGTERM)
    assert d.proc.wait(timeout=30) == 0, d.read_log()[-2000:]
    d.logf.close()
    d.logf = None
    assert not pending(nscd) and not pending(own)
    t0 = time.monotonic()
    got = round_(HUNG)
    secs = time.monotonic() - t0
    assert got == N_NSCD, (got, N_NSCD)
    assert not pending(nscd), "a reader went to the nscd socket while no daemon ran"
    print("  daemon stopped: %d names answered from glibc's nscd map it left, in "
          "%.2f s, 0 connections" % (N_NSCD, secs))
    q1 = srv.total()
    socket_activated(env, srv, d, own, nscd)
    nclib.wait_until(lambda: took_over(d), "the next daemon took the store over")
    assert round_(HUNG) == N_NSCD
    assert srv.total() == q1, srv.total() - q1
    reader.stdin.close()
    assert reader.wait(timeout=30) == 0


# One round of getaddrinfo over the names for each line on stdin: how many
# were answered.  A long-lived process, as glibc's nscd client keeps its
# mapping for the life of a process.
READER = """
import socket, sys
names = open(sys.argv[1]).read().split()
for line in sys.stdin:
    ok = 0
    for n in names:
        try:
            socket.getaddrinfo(n, 80)
            ok += 1
        except socket.gaierror:
            pass
    print(ok, flush=True)
"""


@test
def nscd_readers_go_on_through_a_restart(env):
    srv, tmp, d, own = activated_setup(env)
    nscd = held_socket(NSCD_SOCKET)
    socket_activated(env, srv, d, own, nscd)
    some = os.path.join(env.tmp, "some")
    with open(some, "w") as f:
        f.write("\n".join(names(N_NSCD)) + "\n")
    run([os.path.join(BUILD, "tests", "nscd", "nscd-probe")] + names(N_NSCD), timeout=60)
    reader = subprocess.Popen([PYTHON, "-c", READER, some], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        reads_through_a_restart(env, srv, d, own, nscd, reader)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()
    own.close()
    nscd.close()


# Rounds as READER's, each printing what every lookup answered (its
# addresses, sorted), so that rounds compare name by name.
ANSWERS = """
import json, socket, sys
names = open(sys.argv[1]).read().split()
for line in sys.stdin:
    out = []
    for n in names:
        try:
            out.append(sorted({a[4][0] for a in socket.getaddrinfo(n, 80, 0,
                                                                    socket.SOCK_STREAM)}))
        except socket.gaierror as e:
            out.append(str(e))
        try:
            out.append(socket.gethostbyname(n))
        except socket.gaierror as e:
            out.append(str(e))
    print(json.dumps(out), flush=True)
"""


def name_requests(d):
    """The requests for names glibc's nscd client made on d's socket."""
    st = d.ctl_json("statistics")
    return st["nscd_requests_getai"] + st["nscd_requests_gethostbyname"]


@test
def nscd_map_taken_over_after_sigkill(env):
    """A process maps glibc's nscd map (the daemon's hosts database) and
    reads its names from it; the daemon is SIGKILLed and started again
    (not socket-activated: nothing holds the sockets).  The new daemon
    takes the map over before it answers: the process gets every name it
    had, the same answers, from the map, and the new daemon counts no
    request for a name on its nscd socket, nor a descriptor handed out."""
    srv = env.upstream()
    tmp = os.path.join(env.tmp, "kill")
    os.makedirs(tmp)
    d = nclib.Daemon(BUILD, tmp, conf_text="shared = yes\n",
                     upstream="127.0.0.1:%d" % srv.port, args=["--nscd-socket", NSCD_SOCKET])
    env.daemons.append(d)
    d.start()
    some = os.path.join(tmp, "some")
    with open(some, "w") as f:
        f.write("\n".join(names(N_NSCD)) + "\n")
    reader = subprocess.Popen([PYTHON, "-c", ANSWERS, some], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)

    def round_():
        reader.stdin.write("go\n")
        reader.stdin.flush()
        assert select.select([reader.stdout], [], [], HUNG)[0], "the reader hung"
        return reader.stdout.readline()

    try:
        first = round_()            # through the socket: published in the map
        n0 = name_requests(d)
        assert round_() == first    # from the map
        assert name_requests(d) == n0, "the second round asked the socket"
        assert first.count("192.0.2.1") == 2 * N_NSCD, first[:300]
        # What the map's answers rest on is older than its last stamp (a
        # file edited since would make the next daemon drop them).
        old = time.time() - 600
        for f in (d.hosts, d.nsswitch, d.resolv):
            if f and os.path.exists(f):
                os.utime(f, (old, old))
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait()
        d.logf.close()
        d.logf = None
        q1 = srv.total()
        d.start()
        assert took_over(d), d.read_log()[-2000:]
        again = round_()
        st = d.ctl_json("statistics")
        print("  after SIGKILL: %d names, %d lookups answered from the map it left; nscd "
              "requests for names %d, descriptors sent %d" % (
                  N_NSCD, 2 * N_NSCD, name_requests(d), st["nscd_fds_sent"]))
        assert again == first, [(a, b) for a, b in zip(
            json_list(first), json_list(again)) if a != b][:3]
        assert name_requests(d) == 0, d.read_log()[-2000:]
        assert st["nscd_fds_sent"] == 0, st["nscd_fds_sent"]
        assert srv.total() == q1, srv.total() - q1
        # Each name's two keys (getaddrinfo's, gethostbyname's), as the map held them.
        assert "nscd: took over %d hosts answers" % (2 * N_NSCD) in d.read_log(), \
            d.read_log()[-2000:]
        reader.stdin.close()
        assert reader.wait(timeout=HUNG) == 0
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()


# Rounds over passwd and group, through glibc's nscd client: each user by
# name and by uid, its group by name and by gid, and its group list
# (initgroups, kept in the group map).  One JSON line of answers a round.
PWGR = """
import grp, json, os, pwd, sys
n, base = int(sys.argv[1]), int(sys.argv[2])
for line in sys.stdin:
    out = []
    for i in range(n):
        u, g = "ncrs%04d" % i, "ncrsg%04d" % i
        out.append(list(pwd.getpwnam(u)))
        out.append(list(pwd.getpwuid(base + i)))
        out.append([e if not isinstance(e, list) else sorted(e) for e in grp.getgrnam(g)])
        out.append([e if not isinstance(e, list) else sorted(e) for e in grp.getgrgid(base + i)])
        out.append(sorted(os.getgrouplist(u, base + i)))
    print(json.dumps(out), flush=True)
"""
N_PWGR = 150            # users and groups, each one of its own
PWGR_BASE = 62000       # their ids


def pwgr_requests(d):
    """What glibc's nscd client asked d's socket for passwd and group:
    (passwd, group: initgroups too) as its nscd server counts them, and
    the requests by type, the descriptors of the maps among them."""
    st = d.ctl_json("statistics")
    by_type = sum(st["nscd_requests_" + t] for t in (
        "getpwbyname", "getpwbyuid", "getgrbyname", "getgrbygid", "initgroups",
        "getfdpw", "getfdgr"))
    return st["nscd_passwd_requests"], st["nscd_group_requests"], by_type


@test
def nscd_passwd_group_maps_taken_over_after_sigkill(env):
    """A process maps glibc's passwd and group maps and reads N users and
    groups from them (by name, by id, and group lists); the daemon is
    SIGKILLed and started again.  The new daemon takes both maps over
    before it answers: the process gets every answer again from the maps,
    and the daemon's nscd socket counts no passwd or group request.  Then
    /etc/group (the test's copy, bound over /etc's) is touched while the
    daemon is down: the next daemon drops the group map (its answers rest
    on the file) and still takes the passwd map over."""
    tmp = os.path.join(env.tmp, "pwgr")
    os.makedirs(tmp)
    with open("/etc/passwd") as f:
        passwd = f.read()
    with open("/etc/group") as f:
        group = f.read()
    copies = {"/etc/passwd": os.path.join(tmp, "passwd"),
              "/etc/group": os.path.join(tmp, "group")}
    with open(copies["/etc/passwd"], "w") as f:
        f.write(passwd + "".join("ncrs%04d:x:%d:%d::/nonexistent:/usr/sbin/nologin\n" % (
            i, PWGR_BASE + i, PWGR_BASE + i) for i in range(N_PWGR)))
    with open(copies["/etc/group"], "w") as f:
        # Each user is a member of its own group and of the next one's.
        f.write(group + "".join("ncrsg%04d:x:%d:ncrs%04d\n" % (
            i, PWGR_BASE + i, (i + 1) % N_PWGR) for i in range(N_PWGR)))
    mounted = []
    reader = None
    try:
        for target, copy in copies.items():
            subprocess.run(["mount", "--bind", copy, target], check=True)
            mounted.append(target)
        d = nclib.Daemon(BUILD, tmp, conf_text="shared = yes\n",
                         nsswitch_text="hosts: files dns\npasswd: files\ngroup: files\n",
                         args=["--nscd-socket", NSCD_SOCKET])
        env.daemons.append(d)
        d.start()
        reader = subprocess.Popen([PYTHON, "-c", PWGR, str(N_PWGR), str(PWGR_BASE)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        def round_():
            reader.stdin.write("go\n")
            reader.stdin.flush()
            assert select.select([reader.stdout], [], [], HUNG)[0], "the reader hung"
            return reader.stdout.readline()

        def kill_and_start(touched=()):
            # What the maps' answers rest on is older than their last stamp,
            # but for touched (edited while the daemon is down).
            old = time.time() - 600
            for f in (d.nsswitch, "/etc/passwd", "/etc/group"):
                os.utime(f, (old, old))
            d.proc.send_signal(signal.SIGKILL)
            d.proc.wait()
            d.logf.close()
            d.logf = None
            for f in touched:
                os.utime(f, None)
            log_len = len(d.read_log())
            d.start()
            return d.read_log()[log_len:]

        first = round_()            # through the socket: published in the maps
        assert len(json_list(first)) == 5 * N_PWGR
        assert json_list(first)[0][:3] == ["ncrs0000", "x", PWGR_BASE], first[:200]
        assert json_list(first)[4] == [PWGR_BASE, PWGR_BASE + N_PWGR - 1], first[:300]
        n0 = pwgr_requests(d)
        assert n0[0] >= 2 * N_PWGR and n0[1] >= 3 * N_PWGR, n0
        assert round_() == first    # from the maps
        assert pwgr_requests(d) == n0, ("the second round asked the socket",
                                         pwgr_requests(d), n0)

        # A SIGKILL: both maps taken over.
        log = kill_and_start()
        lines = [l.split("]: ", 1)[-1] for l in log.splitlines()
                 if "a daemon before left" in l]
        print("  after SIGKILL: " + "; ".join(lines))
        # Each user's two keys; each group's two and its member's group list.
        assert "nscd: took over %d passwd answers" % (2 * N_PWGR) in log, log[-3000:]
        assert "nscd: took over %d group answers" % (3 * N_PWGR) in log, log[-3000:]
        st = d.ctl_json("statistics")
        assert (st["nscd_passwd_taken_over"], st["nscd_group_taken_over"]) == (
            2 * N_PWGR, 3 * N_PWGR), (st["nscd_passwd_taken_over"],
                                      st["nscd_group_taken_over"])
        again = round_()
        n1 = pwgr_requests(d)
        print("  %d users and %d groups, %d lookups answered from the maps it left; "
              "passwd and group requests on the socket: %d, %d (%d by type)" % (
                  N_PWGR, N_PWGR, 5 * N_PWGR, n1[0], n1[1], n1[2]))
        assert again == first, [(a, b) for a, b in zip(
            json_list(first), json_list(again)) if a != b][:3]
        assert n1 == (0, 0, 0), (n1, log[-3000:])

        # /etc/group edited while the daemon is down: that map goes, passwd's stays.
        log = kill_and_start(touched=["/etc/group"])
        lines = [l.split("]: ", 1)[-1] for l in log.splitlines()
                 if "a daemon before left" in l]
        print("  /etc/group touched while down: " + "; ".join(lines))
        assert "nscd: took over %d passwd answers" % (2 * N_PWGR) in log, log[-3000:]
        assert ("nscd: the group answers a daemon before left are dropped: "
                "/etc/group changed") in log, log[-3000:]
        again = round_()
        n2 = pwgr_requests(d)
        print("  then: passwd and group requests on the socket: %d, %d" % n2[:2])
        assert again == first, [(a, b) for a, b in zip(
            json_list(first), json_list(again)) if a != b][:3]
        # passwd from its map; every group key asked on the socket once.
        assert n2[:2] == (0, 3 * N_PWGR), n2
        reader.stdin.close()
        assert reader.wait(timeout=HUNG) == 0
    finally:
        if reader and reader.poll() is None:
            reader.kill()
            reader.wait()
        for target in reversed(mounted):
            subprocess.run(["umount", target], check=True)


def json_list(line):
    return json.loads(line)


def set_build(b):
    global BUILD
    BUILD = b


if __name__ == "__main__":
    nclib.enter_nscd_namespace()
    sys.exit(nclib.run_tests(TESTS, Env, "nc-store-", set_build))
