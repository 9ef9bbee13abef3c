#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/nscd/test_nscd.py - namecached on glibc's nscd socket, read by glibc's own client (issue 13).

The whole run is in a private mount namespace (it re-executes itself in
`unshare -m`), with a tmpfs over /run, so glibc's fixed path
/var/run/nscd/socket is the test's, and with the test's /etc/nsswitch.conf
(hosts: files; the other databases as the machine has them) and /etc/hosts
(localhost only) bind-mounted over /etc's.  A name that only the test's
DNS server (nsd, on 127.0.0.1) or the daemon's own hosts file knows can
only come through glibc's nscd client: that is the proof of the path.
The readers are real programs: getent, Python's socket module, and
nscd-probe (a C program's getaddrinfo, gethostbyname2_r, gethostbyaddr_r).

  * through glibc's client: getent hosts/ahosts/ahostsv4/ahostsv6, Python
    and C, for DNS names (a CNAME chain, v4-only, v6-only, several
    addresses), a negative name and reverse lookups; the second process
    reads the mapping without asking the socket;
  * differential: glibc's own NSS walk of issue 11's lines against the
    nscd path for the same line (the namespace's nsswitch.conf is the
    daemon's, as on a host), as misses and as hits;
  * differential (dns): glibc's dns module through a search list, in
    tests/dns/in-netns.sh: a pair split across search domains, and
    SERVFAIL or REFUSED then NXDOMAIN (which the daemon refuses, so glibc
    walks NSS itself), call by call, as misses and as hits;
  * passwd, group, services, netgroup and initgroups answered through the
    daemon's walk, and refused at once when nscd_databases leaves them out
    (or their line names sss);
  * the descriptor is read-only; INVALIDATE is root's (or admin_group's);
  * flush-caches, invalidate, a hosts edit and a hosts line change reach
    readers at once; the sweeper expires records; refreshes are bounded;
  * restarts (SIGTERM, SIGKILL) keep the file: a mapped reader goes on
    without mapping again;
  * faults: the daemon down at a process's first lookup, garbage requests,
    clients that never send or never read.

Needs root (exit 77, a skip, otherwise).  Nothing leaves loopback.

Run: /usr/bin/python3 tests/nscd/test_nscd.py --build BUILD [-k NAME]
"""
import json
import mmap
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
import nclib  # noqa: E402
import dnsenv  # noqa: E402

BUILD = None
TESTS = []
PYTHON = "/usr/bin/python3"
PROBE = os.path.join(HERE, "..", "integration", "nss_line_probe.py")
NSCD_SOCKET = "/var/run/nscd/socket"
T = "test.example"
NS_HOSTS = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n"
DAEMON_HOSTS = (NS_HOSTS + "192.0.2.210 daemonhosts.example dh-alias\n"
                "2001:db8::210 daemonhosts.example\n")
GETAI, GETHOSTBYNAME, GETFDHST, INVALIDATE, GETPWBYNAME = 14, 4, 13, 10, 0


def test(fn):
    TESTS.append(fn)
    return fn


# --- the namespace ------------------------------------------------------------------

def enter_namespace():
    global NS_NSSWITCH, NS_HOSTS_FILE, NS_OTHERS
    NS_NSSWITCH, NS_HOSTS_FILE, NS_OTHERS = nclib.enter_nscd_namespace()
    with open(NS_HOSTS_FILE, "w") as f:
        f.write(NS_HOSTS)


def set_ns_hosts_line(line):
    """The namespace's own hosts line (the file bound over /etc's, in place)."""
    with open(NS_NSSWITCH, "w") as f:
        f.write("hosts: %s\n%s" % (line, NS_OTHERS))


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []
        set_ns_hosts_line("files")
        for p in os.listdir("/run/nscd"):
            os.unlink(os.path.join("/run/nscd", p))

    def nsd(self):
        if not any(isinstance(s, dnsenv.Nsd) for s in self.servers):
            self.servers.append(dnsenv.Nsd(os.path.join(self.tmp, "nsd")))
        return [s for s in self.servers if isinstance(s, dnsenv.Nsd)][0]

    def daemon(self, upstream=None, hosts=DAEMON_HOSTS, conf="", line="files dns", env=None,
               sub="d"):
        tmp = os.path.join(self.tmp, sub)
        os.makedirs(tmp, exist_ok=True)
        if upstream is None:
            upstream = "127.0.0.1:%d" % self.nsd().port
        d = nclib.Daemon(BUILD, tmp, hosts_text=hosts, conf_text=conf, upstream=upstream,
                         nsswitch_text="hosts: %s\n" % line, env=env,
                         args=["--nscd-socket", NSCD_SOCKET])
        self.daemons.append(d)
        return d.start()


def run(argv, env=None, timeout=60):
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)


def stats(d):
    return d.ctl_json("statistics")


def probe(*args, n=1):
    r = run([os.path.join(BUILD, "tests", "nscd", "nscd-probe"), "-n", str(n)] + list(args))
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def nscd_request(rtype, key, read=4096, recv_fd=False):
    """One raw request on glibc's socket, as glibc frames it."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(NSCD_SOCKET)
    s.sendall(struct.pack("=iii", 2, rtype, len(key)) + key)
    if recv_fd:
        msg, fds, _, _ = socket.recv_fds(s, read, 1)
        s.close()
        return msg, fds
    out = b""
    while True:
        b = s.recv(read)
        if not b:
            break
        out += b
    s.close()
    return out


# --- tests ------------------------------------------------------------------------

@test
def through_glibc_client(env):
    """Names only the daemon can know, through every reader glibc has."""
    d = env.daemon()
    www, alias, v4, v6 = "www." + T, "alias1." + T, "v4only." + T, "v6only." + T
    # getent: one process, one lookup each.
    r = run(["getent", "ahosts", www])
    assert r.returncode == 0, r
    got = {l.split()[0] for l in r.stdout.splitlines()}
    assert got == set(dnsenv.addresses(www)), (got, r.stdout)
    r = run(["getent", "ahostsv4", alias])
    assert r.returncode == 0 and r.stdout.split()[0] == "192.0.2.20", r
    assert ("target." + T) in r.stdout, r.stdout        # the canonical name
    r = run(["getent", "ahostsv6", v6])
    assert r.returncode == 0 and r.stdout.split()[0] == "2001:db8::6", r
    r = run(["getent", "hosts", v4])
    assert r.returncode == 0 and r.stdout.split()[:2] == ["192.0.2.4", v4], r
    r = run(["getent", "hosts", "daemonhosts.example"])      # AF_INET6 first
    assert r.returncode == 0 and r.stdout.split() == ["2001:db8::210",
                                                      "daemonhosts.example"], r
    r = run(["getent", "hosts", "nosuch." + T])
    assert r.returncode == 2, r
    r = run(["getent", "hosts", "192.0.2.20"])       # PTR, through GETHOSTBYADDR
    assert r.returncode == 0 and ("target." + T) in r.stdout, r
    # Python's socket module.
    code = ("import socket, json\n"
            "print(json.dumps([sorted(set(a[4][0] for a in socket.getaddrinfo(%r, 80))),"
            " socket.gethostbyname(%r), socket.gethostbyaddr('192.0.2.20')[0],"
            " socket.gethostbyname_ex('daemonhosts.example')]))" % (www, v4))
    r = run([PYTHON, "-c", code])
    assert r.returncode == 0, r.stderr
    addrs, ghbn, ghba, ex = json.loads(r.stdout)
    assert addrs == sorted(dnsenv.addresses(www)), addrs
    assert ghbn == "192.0.2.4" and ghba == "target." + T, (ghbn, ghba)
    assert ex == ["daemonhosts.example", ["dh-alias"], ["192.0.2.210"]], ex
    # A C program.
    out = "\n".join(probe(www, alias, v6, "nosuch." + T, "192.0.2.20", "2001:db8::20"))
    print(out)
    # (in the order RFC 6724 gives them on this host: the differential checks it)
    assert re.search(r"gai %s unspec: (2001:db8::80 192.0.2.80|192.0.2.80 2001:db8::80) "
                     r"canon=%s\n" % (re.escape(www), re.escape(www)), out + "\n"), out
    assert "gai %s inet: 192.0.2.20 canon=target.%s" % (alias, T) in out, out
    assert "ghbn2 %s inet6: %s 2001:db8::6" % (v6, v6) in out, out
    assert "ghbn2 %s inet: herrno=4" % v6 in out, out                # NO_DATA
    assert "gai nosuch.%s unspec: eai=-2" % T in out, out            # EAI_NONAME
    assert "ghba 192.0.2.20: target.%s" % T in out, out
    assert "ghba 2001:db8::20: target.%s" % T in out, out
    st = stats(d)
    print("nscd requests: getai %d, gethostbyname %d, gethostbyaddr %d, v6 %d, fds %d" % (
        st["nscd_requests_getai"], st["nscd_requests_gethostbyname"],
        st["nscd_requests_gethostbyaddr"], st["nscd_requests_gethostbyaddrv6"],
        st["nscd_fds_sent"]))
    assert st["nscd_requests_getai"] > 0 and st["nscd_requests_gethostbyname"] > 0
    assert st["nscd_requests_gethostbyaddr"] > 0 and st["nscd_requests_gethostbyaddrv6"] > 0
    assert st["nscd_fds_sent"] > 0


@test
def hits_come_from_the_mapping(env):
    """Once published, a process answers from the mapping: one GETFDHST per
    process, and no lookup request."""
    d = env.daemon()
    names = ["www." + T, "multi." + T, "daemonhosts.example", "nosuch." + T]
    first = probe(*names)
    before = stats(d)
    again = probe(*names, n=5)
    after = stats(d)
    assert first == again, (first, again)
    asked = {k: after[k] - before[k] for k in after if k.startswith("nscd_requests_")}
    print("second process, 5 rounds: %s" % {k: v for k, v in asked.items() if v})
    assert asked["nscd_requests_getfdhst"] == 1, asked
    assert asked["nscd_requests_getai"] == 0, asked
    assert asked["nscd_requests_gethostbyname"] == 0, asked
    st = d.ctl_json("status")
    assert st["nscd_socket"] == NSCD_SOCKET and st["nscd_database_entries"] > 0, st
    path = st["nscd_database"]
    mode = os.stat(path).st_mode
    assert mode & 0o022 == 0, oct(mode)


def probe_json(keys, env_):
    r = run([PYTHON, PROBE] + keys, env=env_, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def without_nscd(argv, env_):
    """argv where /run/nscd is empty: glibc's own NSS walk."""
    return run(["unshare", "-m", "--propagation", "private", "--", "sh", "-c",
                'mount -t tmpfs tmpfs /run/nscd && exec "$@"', "sh"] + argv,
               env=env_, timeout=300)


def dedup(glibc):
    """A getaddrinfo result (or getent's lines) without repeated entries."""
    if isinstance(glibc, list) and len(glibc) == 2 and isinstance(glibc[1], str):
        seen, out = set(), []
        lines = glibc[1].splitlines(True)
        for i in range(0, len(lines), 3):
            key = tuple(l.split()[0] + l.split()[1] for l in lines[i:i + 3])
            if key not in seen:
                seen.add(key)
                out += lines[i:i + 3]
        return [glibc[0], "".join(out)]
    if isinstance(glibc, list):
        seen, out = set(), []
        for a in glibc:
            if a[0] not in seen:
                seen.add(a[0])
                out.append(a)
        return out
    return glibc


def known_nscd(what, glibc, got, unspec=None):
    """Where glibc's own nscd client answers otherwise than its NSS walk,
    whatever the daemon says (nss/getaddrinfo.c, get_nscd_addresses: every
    getaddrinfo but plain AF_INET asks GETAI, the AF_UNSPEC answer, and
    keeps the entries of the family asked):

    - a family with no address is EAI_NONAME, where the NSS walk of that
      family says EAI_NODATA;
    - AF_INET loses the duplicate 127.0.0.1 that glibc's files module makes
      of a "::1" line when it is asked for AF_INET;
    - AF_INET6 with AI_V4MAPPED (getent ahostsv6) maps every IPv4 address,
      where the NSS walk maps them only when there is no IPv6 one;
    - so a pair split across search domains (glibc's own AF_UNSPEC answer,
      unspec, stops at the first domain with either family) has nothing
      for AF_INET or AF_INET6 with AI_CANONNAME (getent ahostsv4 too):
      EAI_NONAME, where the NSS walk of that one family goes on to the
      domain that has it.  A real nscd's GETAI is that AF_UNSPEC walk too.
    docs/design.md lists them."""
    if what in ("gai_inet", "gai_inet6") and glibc == {"eai": -5} and got == {"eai": -2}:
        return True
    if isinstance(unspec, list) and got in ({"eai": -2}, [2, ""]):
        v6 = what == "gai_inet6"
        if what in ("gai_inet", "gai_inet6", "getent_ahostsv4") and \
                not any((":" in a[0]) == v6 for a in unspec) and \
                (isinstance(glibc, list) and glibc[:1] != [2]):
            return True
    if what in ("gai_inet", "getent_ahostsv4") and glibc != got and dedup(glibc) == got:
        return True
    return what == "getent_ahostsv6" and "::ffff:" in got[1] and "::ffff:" not in glibc[1]


@test
def differential_lines(env):
    """For each of issue 11's hosts lines, as a host has it (the clients'
    nsswitch.conf is the daemon's): glibc's walk with no nscd against the
    nscd path, twice (misses, then the mapping)."""
    import test_nss
    libdirs = [os.path.join(BUILD, "tests", "nss")]
    compared = differ = xfail = 0
    failures = []
    requests = 0
    for i, line in enumerate(test_nss.LINES):
        set_ns_hosts_line(line)
        with open(NS_HOSTS_FILE, "w") as f:
            f.write(test_nss.HOSTS)
        e = dict(os.environ, LD_LIBRARY_PATH=":".join(libdirs))
        ref = without_nscd([PYTHON, PROBE] + test_nss.KEYS, e)
        assert ref.returncode == 0, ref.stderr
        want = json.loads(ref.stdout)
        d = env.daemon(upstream="127.0.0.1:1", hosts=test_nss.HOSTS, line=line,
                       env=dict(os.environ, LD_LIBRARY_PATH=":".join(libdirs)),
                       sub="line%d" % i)
        # The daemon reads the same line the clients do.
        got = [probe_json(test_nss.KEYS, e) for _ in range(2)]
        st = stats(d)
        requests += sum(v for k, v in st.items() if k.startswith("nscd_requests_"))
        for run_no, g in enumerate(got):
            for key in test_nss.KEYS:
                for what in want[key]:
                    compared += 1
                    if g[key][what] == want[key][what]:
                        continue
                    if test_nss.known(line, what, want[key][what]) or \
                            known_nscd(what, want[key][what], g[key][what]):
                        xfail += 1
                        continue
                    differ += 1
                    failures.append("line %r run %d %s %s:\n  glibc     %r\n  nscd path %r"
                                    % (line, run_no + 1, key, what, want[key][what],
                                       g[key][what]))
        d.stop()
        env.daemons.remove(d)
    with open(NS_HOSTS_FILE, "w") as f:
        f.write(NS_HOSTS)
    print("differential: %d lines, %d keys, %d comparisons, %d differences, %d known "
          "(XFAIL); %d nscd requests" % (len(test_nss.LINES), len(test_nss.KEYS), compared,
                                         differ, xfail, requests))
    assert requests > 0
    assert not failures, "\n".join(failures[:int(os.environ.get("NC_SHOW", "20"))])


# Names for glibc's dns module (search test.example diff.example, ndots:1,
# nsd without a root: REFUSED outside the zones, SERVFAIL in broken.example).
DNS_KEYS = [
    # pairs split across test.example and diff.example (dnsenv.DIFF_ZONE)
    "v6only", "v4only", "V6Only", "v6only.test.example", "v6only.diff.example",
    # SERVFAIL or REFUSED as asked, then NXDOMAIN: NOTFOUND with TRY_AGAIN,
    # which the daemon refuses (glibc then walks NSS itself)
    "x.broken.example", "broken.example", "x.y", "outside.invalid",
    # the search list otherwise; REFUSED last (TRY_AGAIN: refused too)
    "www", "www.sub", "alias.sub", "nonexistent",
]


def dns_call(key, what):
    """One call (nss_line_probe.py --only) in a process of its own: after a
    refusal glibc keeps the process's next 100 lookups away from nscd."""
    r = run([PYTHON, PROBE, "--only", what, key], timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)[key][what]


def dns_inner(out_path):
    """Inside in-netns.sh (differential_dns): a daemon on glibc's nscd socket
    reading the namespace's resolv.conf; glibc's own walk (no nscd) against
    the nscd path, each call a miss (after a flush) and then a hit."""
    tmp = tempfile.mkdtemp(prefix="nc-nscd-dns-")
    d = nclib.Daemon(BUILD, tmp, hosts_text=NS_HOSTS, resolv="/etc/resolv.conf",
                     upstream=False, nsswitch_text="hosts: files dns\n",
                     args=["--nscd-socket", NSCD_SOCKET]).start()
    res = dict(compared=0, differ=0, xfail=0, failures=[], refused={}, known={}, rc=None)
    try:
        ref = without_nscd([PYTHON, PROBE] + DNS_KEYS, None)
        assert ref.returncode == 0, ref.stderr
        want = json.loads(ref.stdout)
        for key in DNS_KEYS:
            for what in sorted(want[key]):
                for rnd in ("miss", "hit"):
                    if rnd == "miss":
                        d.ctl("flush-caches")
                    r0 = stats(d)["nscd_refused"]
                    got = dns_call(key, what)
                    if stats(d)["nscd_refused"] > r0:
                        res["refused"].setdefault(key, []).append("%s %s" % (rnd, what))
                    res["compared"] += 1
                    if got == want[key][what]:
                        continue
                    if known_nscd(what, want[key][what], got, want[key]["gai_unspec"]):
                        res["xfail"] += 1
                        res["known"].setdefault("%s %s" % (key, what), []).append(
                            "%s: glibc %s, nscd path %s" % (rnd, json.dumps(want[key][what]),
                                                           json.dumps(got)))
                        continue
                    res["differ"] += 1
                    res["failures"].append("%s %s %s:\n  glibc     %r\n  nscd path %r"
                                           % (rnd, key, what, want[key][what], got))
        st = stats(d)
        res["requests"] = {k[len("nscd_requests_"):]: v for k, v in st.items()
                           if k.startswith("nscd_requests_") and v}
        res["want"] = {k: {w: want[k][w] for w in ("gai_unspec", "gai_inet", "gai_inet_plain")}
                       for k in DNS_KEYS}
    finally:
        res["rc"] = d.stop()
        res["log"] = d.read_log()[-3000:]
        with open(out_path, "w") as f:
            json.dump(res, f)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


@test
def differential_dns(env):
    """glibc's dns module through the search list (test.example
    diff.example): a pair split across the domains, and SERVFAIL or
    REFUSED as asked then NXDOMAIN (NOTFOUND with TRY_AGAIN, which the
    daemon refuses, so glibc walks NSS itself).  glibc's own walk against
    the nscd path, call by call, as misses and as hits.  The daemon, the
    readers and nsd (port 53) are all in tests/dns/in-netns.sh."""
    set_ns_hosts_line("files dns")
    zdir = os.path.join(env.tmp, "zones")
    os.makedirs(zdir)
    out = os.path.join(env.tmp, "dns.json")
    r = dnsenv.run_in_netns([PYTHON, os.path.abspath(__file__), "--dns-inner", out,
                             "--build", BUILD], search=dnsenv.SEARCH_LIST,
                            options="ndots:1 timeout:2 attempts:2",
                            zones=dnsenv.search_zones(zdir), capture_output=True,
                            text=True, timeout=500, rrl=False)   # no answer lost to RRL
    assert r.returncode == 0, (r.returncode, r.stdout[-3000:], r.stderr[-3000:])
    with open(out) as f:
        res = json.load(f)
    for k in ("v6only", "v4only", "x.broken.example", "x.y"):
        print("glibc %-18s %s" % (k, json.dumps(res["want"][k], sort_keys=True)))
    for k, v in sorted(res["known"].items()):
        print("known (XFAIL) %s: %s" % (k, "; ".join(v)))
    print("refused (glibc walked NSS itself): %s" % "; ".join(
        "%s: %d calls" % (k, len(v)) for k, v in res["refused"].items()))
    print("differential (dns): %d keys, %d comparisons, %d differences, %d known (XFAIL); "
          "nscd requests %s" % (len(DNS_KEYS), res["compared"], res["differ"], res["xfail"],
                                res["requests"]))
    assert res["rc"] == 0, res["log"]
    # The cases are there: the daemon refused the SERVFAIL-then-NXDOMAIN names.
    for k in ("x.broken.example", "x.y"):
        assert res["refused"].get(k), res["refused"]
    assert not res["failures"], "\n".join(res["failures"][:int(os.environ.get("NC_SHOW", "20"))])


@test
def other_databases_answered(env):
    """passwd, group, initgroups and services through the daemon's walk of
    its own lines (here glibc's default, files); tests/nscddb holds them to
    glibc's own walk."""
    d = env.daemon()
    for argv in (["getent", "passwd", "root"], ["getent", "group", "root"],
                 ["getent", "services", "ssh"], ["getent", "initgroups", "root"],
                 ["getent", "netgroup", "nosuchgroup"]):
        r = run(argv)
        print("%-32s rc %d %r" % (" ".join(argv), r.returncode, r.stdout.strip()))
        if argv[1] != "netgroup":
            assert r.returncode == 0 and r.stdout, r
    st = stats(d)
    for k in ("passwd", "group", "services", "netgroup"):
        assert st["nscd_%s_requests" % k] >= 1, (k, st)
    assert st["nscd_passwd_found"] >= 1 and st["nscd_refused"] == 0, st
    out = nscd_request(GETPWBYNAME, b"root\0")
    hdr = struct.unpack("=iiiiIIiii", out[:36])
    assert hdr[:2] == (2, 1) and hdr[4] == 0 and out[36:41] == b"root\0", out
    assert nscd_request(GETPWBYNAME, b"nosuchuser-nc\0") == struct.pack(
        "=iiiiIIiii", 2, 0, 0, 0, 0, 0, 0, 0, 0)
    # Each database's map, named as glibc names it.
    for rtype, name in ((11, b"passwd\0"), (12, b"group\0"), (18, b"services\0"),
                        (21, b"netgroup\0")):
        msg, fds = nscd_request(rtype, name, recv_fd=True)
        assert len(fds) == 1 and msg[:len(name)] == name, (rtype, msg, fds)
        os.close(fds[0])
    assert d.proc.poll() is None


@test
def databases_not_listed_refused_at_once(env):
    d = env.daemon(conf="nscd_databases = hosts\n")
    for argv in (["getent", "passwd", "root"], ["getent", "group", "root"],
                 ["getent", "services", "ssh"], ["getent", "initgroups", "root"]):
        r = run(argv)
        assert r.returncode == 0 and r.stdout, r     # glibc walked NSS itself
    st = stats(d)
    assert st["nscd_refused"] >= 4, st
    # Refusals are glibc's size for each type (it reads the header in one read).
    for rtype, size in ((0, 36), (2, 24), (15, 12), (16, 24), (19, 16), (20, 12)):
        out = nscd_request(rtype, b"root\0")
        assert len(out) == size and struct.unpack("=ii", out[:8]) == (2, -1), (rtype, out)
    for rtype in (8, 9, 11, 12, 18, 21, 99):     # SHUTDOWN, GETSTAT, refused GETFDs: closed
        assert nscd_request(rtype, b"passwd\0") == b"", rtype
    status = d.ctl_json("status")
    assert status["nscd_passwd"] == "refused" and status["nscd_hosts"] == "answered", status
    assert d.proc.poll() is None


@test
def sss_lines_refused_unless_listed(env):
    """sssd's own memory cache answers lines that name sss: refused by
    default, answered when nscd_databases names the database."""
    line = "passwd: files sss\ngroup: files\n"
    for conf, want in (("", "refused"), ("nscd_databases = hosts passwd group\n",
                                          "answered")):
        tmp = os.path.join(env.tmp, "sss-" + want)
        os.makedirs(tmp, exist_ok=True)
        d = nclib.Daemon(BUILD, tmp, hosts_text=DAEMON_HOSTS, conf_text=conf,
                         upstream="127.0.0.1:9",
                         nsswitch_text="hosts: files\n" + line,
                         args=["--nscd-socket", NSCD_SOCKET]).start()
        try:
            status = d.ctl_json("status")
            assert status["nscd_passwd"] == want, status
            assert status["nscd_group"] == "answered", status
            out = nscd_request(GETPWBYNAME, b"root\0")
            assert struct.unpack("=ii", out[:8])[1] == (-1 if want == "refused" else 1), out
        finally:
            d.stop()


@test
def read_only_descriptor(env):
    before = int(time.time())
    env.daemon()
    msg, fds = nscd_request(GETFDHST, b"hosts\0", recv_fd=True)
    assert len(fds) == 1 and msg[:6] == b"hosts\0" and len(msg) == 14, (msg, fds)
    mapsize = struct.unpack("=Q", msg[6:])[0]
    fd = fds[0]
    try:
        st = os.fstat(fd)
        assert st.st_size >= mapsize, (st.st_size, mapsize)
        try:
            mmap.mmap(fd, mapsize, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            raise AssertionError("the descriptor maps writable")
        except PermissionError:
            pass
        m = mmap.mmap(fd, mapsize, mmap.MAP_SHARED, mmap.PROT_READ)
        version, header_size, gc, running, ts = struct.unpack("=iiiiQ", m[:24])
        module = struct.unpack("=i", m[40:44])[0]
        print("mapping: %d bytes, version %d, header %d, gc_cycle %d, %d buckets, "
              "timestamp %+d s" % (mapsize, version, header_size, gc, module,
                                   ts - time.time()))
        assert version == 2 and header_size == 120 and gc % 2 == 0 and module > 0
        # The database's time (glibc's timestamp: seconds of the wall
        # clock) is the daemon's start: after the test began, not after now.
        assert before <= ts <= time.time(), (before, ts, time.time())
        m.close()
    finally:
        os.close(fd)
    # Nobody else may open the file for writing.
    st = env.daemons[0].ctl_json("status")
    r = run([PYTHON, "-c", "import os; os.setgid(65534); os.setuid(65534); "
             "os.open(%r, os.O_RDWR)" % st["nscd_database"]])
    assert r.returncode != 0 and "PermissionError" in r.stderr, r


@test
def invalidate_is_admin_only(env):
    d = env.daemon()
    probe("www." + T)
    assert d.ctl_json("status")["nscd_database_entries"] > 0
    code = ("import socket, struct, os; os.setgid(65534); os.setuid(65534)\n"
            "s = socket.socket(socket.AF_UNIX); s.connect(%r)\n"
            "s.sendall(struct.pack('=iii', 2, 10, 6) + b'hosts\\0')\n"
            "print(struct.unpack('=i', s.recv(4))[0])" % NSCD_SOCKET)
    r = run([PYTHON, "-c", code])
    assert r.returncode == 0 and int(r.stdout) == 1, r          # EPERM
    assert d.ctl_json("status")["nscd_database_entries"] > 0
    assert stats(d)["nscd_invalidate_denied"] == 1
    out = nscd_request(INVALIDATE, b"hosts\0")
    assert struct.unpack("=i", out) == (0,), out
    assert d.ctl_json("status")["nscd_database_entries"] == 0
    assert struct.unpack("=i", nscd_request(INVALIDATE, b"nosuchdb\0")) == (22,)
    assert struct.unpack("=i", nscd_request(INVALIDATE, b"passwd\0")) == (0,)


def getai_requests(d):
    return stats(d)["nscd_requests_getai"]


@test
def changes_reach_readers_at_once(env):
    """flush-caches, invalidate, a hosts edit and a hosts line change."""
    d = env.daemon()
    name = "daemonhosts.example"
    probe(name)
    n0 = getai_requests(d)
    probe(name)
    assert getai_requests(d) == n0          # a hit from the mapping
    d.ctl("flush-caches")
    probe(name)
    assert getai_requests(d) == n0 + 1      # the mapping emptied at once
    d.ctl("invalidate", "DaemonHosts.Example.")
    probe(name)
    assert getai_requests(d) == n0 + 2
    # A hosts edit: the next lookup sees the new address, no wait.
    d.write_hosts(DAEMON_HOSTS.replace("192.0.2.210", "192.0.2.211"))
    t0 = time.monotonic()
    want = "gai %s inet: 192.0.2.211 canon=%s" % (name, name)
    nclib.wait_until(lambda: want in probe(name), "the hosts edit to reach readers",
                     step=0.02)
    print("hosts edit visible through the mapping after %.0f ms" %
          ((time.monotonic() - t0) * 1000))
    assert not any("192.0.2.210" in l for l in probe(name))
    # The daemon's hosts line: "dns" alone, so the hosts name goes away.
    probe("www." + T)
    with open(d.nsswitch, "w") as f:
        f.write("hosts: dns\n")
    t0 = time.monotonic()
    nclib.wait_until(lambda: any("eai=-2" in l for l in probe(name)
                                 if l.startswith("gai %s unspec" % name)),
                     "the line change to reach readers", step=0.02)
    print("hosts line change visible after %.0f ms" % ((time.monotonic() - t0) * 1000))
    assert d.ctl_json("status")["hosts_line"] == "dns"


def fault_server(env):
    fs = dnsenv.FaultServer()
    env.servers.append(fs)
    fs.set_default("nxdomain", soa=True, soa_ttl=60, minimum=60)
    fs.set("short.example", "answer", records=[("A", 2, "192.0.2.51")])
    fs.set("kept.example", "answer", records=[("A", 4, "192.0.2.52")])
    return fs


@test
def sweeper_expires_records(env):
    """A record is unusable by its expiry: readers never check it."""
    fs = fault_server(env)
    d = env.daemon(upstream="127.0.0.1:%d" % fs.port, conf="nscd_reloads = 0\n", line="dns")
    probe("short.example")
    n0 = getai_requests(d)
    probe("short.example")
    assert getai_requests(d) == n0          # read from the mapping
    # TTL 2: the sweeper takes the record out (its counter says when).
    st = nclib.wait_until(lambda: (lambda s: s if s["nscd_swept"] >= 1 else None)(stats(d)),
                          "the sweeper to expire the record", step=0.1)
    probe("short.example")
    print("TTL 2: swept %d, longest sweep %d us" % (st["nscd_swept"], st["nscd_sweep_max_usec"]))
    assert getai_requests(d) == n0 + 1, "an expired record was read"


@test
def bounded_refresh(env):
    """A record asked for over the socket is refreshed before it expires, at
    most nscd_reloads times while nobody asks the socket again."""
    fs = fault_server(env)
    d = env.daemon(upstream="127.0.0.1:%d" % fs.port, conf="nscd_reloads = 2\n", line="dns")
    # Asked over the socket until published (under the sanitizers a first
    # answer may be a temporary failure, which is refused, not published).
    for _ in range(20):
        n = getai_requests(d)
        probe("kept.example")
        if n and getai_requests(d) == n:
            break
    asked = getai_requests(d)
    q0 = fs.count("kept.example", "A")
    # Read through glibc's client until a reader has to ask the socket
    # again; note how many refreshes the daemon had made by then.  The
    # rule itself (the last tenth, reloads times) is on the fake clock in
    # tests/unit/scenarios/ttl.scn; this shows readers see it.
    answered, lapse = 0, None
    deadline = time.monotonic() + nclib.HUNG_SEC
    while lapse is None and time.monotonic() < deadline:
        refreshed = stats(d)["nscd_refreshes"]
        before = getai_requests(d)
        answered += any("192.0.2.52" in l for l in probe("kept.example") if "unspec" in l)
        if getai_requests(d) != before:
            lapse = refreshed
        time.sleep(0.1)
    st = stats(d)
    print("kept.example (TTL 4, nscd_reloads 2): %d answers from the mapping, then a socket "
          "miss after %s refreshes; %d refreshes, %d upstream queries in all" % (
              answered, lapse, st["nscd_refreshes"], fs.count("kept.example", "A") - q0))
    # Two refreshes, then it lapses and a reader asks the socket again:
    # the first miss comes after the second refresh, never before.
    assert lapse is not None, "the record never lapsed: refreshed without bound? %s" % st
    assert lapse >= 2, (lapse, st)
    assert answered > 0 and getai_requests(d) > asked


class Reader:
    """A Python process that looks name up through glibc (getaddrinfo, so
    through glibc's nscd client and its mapping) when told: batch(k)
    makes k lookups and returns how many were answered.  It lives across
    the test's restarts, keeping whatever glibc mapped."""

    CODE = ("import socket, sys\n"
            "for line in sys.stdin:\n"
            "    ok = 0\n"
            "    for _ in range(int(line)):\n"
            "        try:\n"
            "            socket.getaddrinfo(%r, 80); ok += 1\n"
            "        except socket.gaierror: pass\n"
            "    print(ok, flush=True)\n")

    def __init__(self, name):
        self.p = subprocess.Popen([PYTHON, "-c", self.CODE % name], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)

    def batch(self, k):
        self.p.stdin.write("%d\n" % k)
        self.p.stdin.flush()
        return int(self.p.stdout.readline())

    def close(self):
        self.p.stdin.close()
        self.p.wait(nclib.HUNG_SEC)
        self.p.stdout.close()


class Progress:
    """A Python process running code (which sets ok and bad) in a loop until
    stop() and printing "n bad" at the end, writing a byte to a pipe after
    each round: wait() returns once it has made another round since the
    last wait(), so that it is known to have read each state the test
    makes."""

    def __init__(self, tmp, code):
        self.stop_path = os.path.join(tmp, "reader-stop")
        self.seen = 0
        r, w = os.pipe()
        os.set_blocking(r, False)
        body = "".join("    " + l + "\n" for l in code.splitlines())
        prog = ("import os, socket, sys\n"
                "n = bad = 0\n"
                "while not os.path.exists(%r):\n"
                "    n += 1\n%s"
                "    os.write(%d, b'.')\n"
                "print(n, bad)\n" % (self.stop_path, body, w))
        self.p = subprocess.Popen([PYTHON, "-c", prog], stdout=subprocess.PIPE, text=True,
                                  pass_fds=(w,))
        os.close(w)
        self.fd = r

    def wait(self):
        mark = self.seen

        def moved():
            try:
                self.seen += len(os.read(self.fd, 65536))
            except BlockingIOError:
                pass
            return self.seen > mark
        nclib.wait_until(moved, "the reader's next round")

    def stop(self):
        open(self.stop_path, "w").close()
        out = self.p.communicate(timeout=nclib.HUNG_SEC)[0].split()
        os.close(self.fd)
        return int(out[0]), int(out[1])


@test
def restart_keeps_the_mapping(env):
    """A reader that mapped the database keeps it across a SIGTERM and a
    SIGKILL restart: the file is the same, nobody is sent a new
    descriptor, and its lookups (made while a daemon runs) are answered."""
    d = env.daemon()
    name = "daemonhosts.example"
    probe(name)
    path = d.ctl_json("status")["nscd_database"]
    ino = os.stat(path).st_ino
    r = Reader(name)
    try:
        answered = [r.batch(20)]
        d.stop()
        d.start()
        assert os.stat(path).st_ino == ino, "a new file: mapped readers would lose it"
        answered.append(r.batch(20))
        st1 = stats(d)
        d.proc.kill()
        d.proc.wait()
        d.logf.close()
        d.logf = None
        d.start()
        answered.append(r.batch(20))
        st2 = stats(d)
    finally:
        r.close()
    print("reader: %s of 20 answered before, after a SIGTERM and after a SIGKILL restart; "
          "mappings handed out after them: %d, %d" % (answered, st1["nscd_fds_sent"],
                                                      st2["nscd_fds_sent"]))
    assert os.stat(path).st_ino == ino
    # The reader kept its mapping: no new descriptor for it after either restart.
    assert st1["nscd_fds_sent"] == 0 and st2["nscd_fds_sent"] == 0, (st1, st2)
    assert answered == [20, 20, 20], answered


def pipelined(d, names, family=0):
    frames = [nclib.name_req(n, family=family, fid=i + 1) for i, n in enumerate(names)]
    with nclib.connect(d, timeout=30) as s:
        s.sendall(b"".join(frames))
        for _ in frames:
            assert nclib.read_frame(s) is not None


@test
def compaction_under_readers(env):
    """A database at its largest (shared_size_mb = 1) fills with records
    that expire; the next ones make it compact, then start anew, while
    glibc's client reads it in another process: every answer it gets is
    right."""
    fs = dnsenv.FaultServer()
    env.servers.append(fs)
    fs.set_default("nxdomain", soa=True, soa_ttl=1, minimum=1)
    d = env.daemon(upstream="127.0.0.1:%d" % fs.port, line="files dns",
                   conf="shared_size_mb = 1\nnscd_reloads = 0\n")
    code = ("try:\n"
            "    a = sorted(set(x[4][0] for x in socket.getaddrinfo('DaemonHosts.example', 80)))\n"
            "    bad += a != ['192.0.2.210', '2001:db8::210']\n"
            "except socket.gaierror:\n"
            "    bad += 1\n")
    p = Progress(env.tmp, code)
    pad = "x" * 60 + "." + "y" * 60
    for rnd in range(4):
        # 2000 negative records of about 300 bytes (TTL 1; long names make
        # the 1 MiB fill with fewer upstream queries), and the reader's name.
        pipelined(d, ["n%d-%d.%s.gone.example" % (rnd, i, pad) for i in range(2000)])
        pipelined(d, ["DaemonHosts.example"])
        p.wait()        # the reader read this round's database
        time.sleep(1.1)     # the records' TTL: they expire
    n, bad = p.stop()
    st = stats(d)
    print("reader: %d lookups, %d wrong; database: %d compactions, %d full, %d swept, "
          "%d published, longest sweep %d us" % (n, bad, st["nscd_compactions"], st["nscd_full"],
                                                 st["nscd_swept"], st["nscd_published"],
                                                 st["nscd_sweep_max_usec"]))
    assert bad == 0 and n >= 4, (n, bad)
    assert st["nscd_compactions"] >= 1, st


@test
def faults(env):
    name = "daemonhosts.example"
    # The daemon down at a process's first lookup: files answers, quickly.
    t0 = time.monotonic()
    r = run(["getent", "ahosts", "localhost"])
    assert r.returncode == 0 and "127.0.0.1" in r.stdout, r
    r = run(["getent", "hosts", name])
    assert r.returncode == 2, r
    print("daemon down: files answered, %s not found, in %.0f ms" %
          (name, (time.monotonic() - t0) * 1000))
    d = env.daemon()
    first = probe(name)[0]
    assert "2001:db8::210" in first and "192.0.2.210" in first, first
    # Garbage: each gets a refusal or a close, never a hang.
    rnd = random.Random(13)
    bad = [b"", b"\x02\x00", struct.pack("=iii", 1, GETAI, 5) + b"x.ex\0",
           struct.pack("=iii", 2, GETAI, 100000), struct.pack("=iii", 2, GETAI, -1),
           struct.pack("=iii", 2, -5, 0), struct.pack("=iii", 2, GETAI, 3) + b"abc",
           struct.pack("=iii", 2, GETAI, 4) + b"a\0b\0",
           struct.pack("=iii", 2, GETHOSTBYNAME, 2) + b"\x01\0",
           struct.pack("=iii", 2, 6, 3) + b"\1\2\3"]
    bad += [bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 64))) for _ in range(200)]
    for b in bad:
        # Refused or closed: the read ends (a read that waits HUNG raises).
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(nclib.HUNG_SEC)
        s.connect(NSCD_SOCKET)
        s.sendall(b)
        s.shutdown(socket.SHUT_WR)
        while s.recv(4096):
            pass
        s.close()
    # Clients that send half a request and wait, and clients that never read.
    idle = []
    for i in range(50):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(NSCD_SOCKET)
        s.sendall(struct.pack("=iii", 2, GETAI, 20)[: 1 + i % 11])
        idle.append(s)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(NSCD_SOCKET)
        s.sendall(struct.pack("=iii", 2, GETAI, 12) + b"www." + T.encode()[:7] + b"\0")
        idle.append(s)
    t0 = time.monotonic()
    out = probe(name, "www." + T)
    print("garbage: %d requests; lookups meanwhile in %.0f ms" %
          (len(bad), (time.monotonic() - t0) * 1000))
    assert "192.0.2.210" in out[0], out
    for s in idle:
        s.close()
    assert d.proc.poll() is None
    st = stats(d)
    print("bad requests %d, refused %d" % (st["bad_requests"], st["nscd_refused"]))
    assert st["bad_requests"] > 0


@test
def netlink_counter(env):
    """extra_data[0] changes when an address is added or removed, so glibc
    redoes its address dump for the RFC 6724 sort then, and only then.
    The daemon runs in a network namespace of its own (loopback only), where
    the test may add addresses."""
    tmp = os.path.join(env.tmp, "nl")
    os.makedirs(tmp)
    # The holder says when its namespace is there: unshare has made it
    # before it runs the shell that prints (then sleeps until killed).
    holder = subprocess.Popen(["unshare", "-n", "--", "sh", "-c", "echo ready; exec sleep 600"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "ready\n", "unshare -n did not start"
        nsenter = ["nsenter", "-t", str(holder.pid), "-n", "--"]
        subprocess.run(nsenter + ["ip", "link", "set", "lo", "up"], check=True)
        d = nclib.Daemon(BUILD, tmp, hosts_text=DAEMON_HOSTS, upstream="127.0.0.1:1",
                         args=["--nscd-socket", os.path.join(tmp, "nscd.sock")],
                         prefix=nsenter)
        d.start()
        env.daemons.append(d)
        c0 = stats(d)["nscd_netlink_counter"]
        time.sleep(0.3)
        assert stats(d)["nscd_netlink_counter"] == c0, "changed with nothing changing"
        subprocess.run(nsenter + ["ip", "addr", "add", "192.0.2.99/32", "dev", "lo"], check=True)
        nclib.wait_until(lambda: stats(d)["nscd_netlink_counter"] != c0,
                         "the counter to change after an address was added")
        c1 = stats(d)["nscd_netlink_counter"]
        subprocess.run(nsenter + ["ip", "addr", "del", "192.0.2.99/32", "dev", "lo"], check=True)
        nclib.wait_until(lambda: stats(d)["nscd_netlink_counter"] != c1,
                         "the counter to change after the address went")
        print("netlink counter: %d, %d after an address added, %d after it went" % (
            c0, c1, stats(d)["nscd_netlink_counter"]))
        assert c0 != 0 and c1 != 0
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def main():
    if sys.argv[1:2] == ["--dns-inner"]:
        global BUILD
        BUILD = os.path.abspath(sys.argv[sys.argv.index("--build") + 1])
        return dns_inner(sys.argv[2])
    enter_namespace()

    def set_build(b):
        global BUILD
        BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-nscd-", set_build)


if __name__ == "__main__":
    sys.exit(main())
