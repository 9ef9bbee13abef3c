#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/sort/test_sort.py - libnamecache's RFC 6724 sort against glibc's getaddrinfo (issue 14).

The run is in private mount and network namespaces (it re-executes itself
in `unshare -m -n`): a veth pair (both ends inside) carries the addresses a host may
have (global, ULA, link-local, a deprecated one, IPv4 in two subnets),
default routes go to it, and /etc/hosts and /etc/nsswitch.conf (hosts:
files) are the test's, bound over /etc's.  Each case is a name with its
addresses in hosts-file order: glibc's getaddrinfo sorts them, and so does
namecache_sort_addresses(); the orders must be the same.

  * random cases over a pool of destinations (every label and precedence
    class, every scope, reachable and not), in four host setups: dual
    stack, no IPv6 route, IPv4 only (glibc then has no address list),
    IPv6 only;
  * /etc/gai.conf's label, precedence and scopev4 lines, bound over
    /etc/gai.conf;
  * the cache: with a daemon's segment, repeated sorts make no new
    probes; an address change (the daemon's netlink counter) makes them
    again, and the order follows the new addresses.

Needs root (exit 77, a skip, otherwise).  No packet leaves the namespace:
a UDP connect() sends nothing, and the veth pair's other end is in the namespace too.

Run: /usr/bin/python3 tests/sort/test_sort.py --build BUILD
"""
import os
import random
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import nclib  # noqa: E402
import privns  # noqa: E402

BUILD = None
TESTS = []

# Destinations: every class of glibc's label and precedence tables, and scopes.
POOL = [
    "127.0.0.1", "127.0.1.1", "::1",
    "192.0.2.9", "192.0.2.200", "198.51.100.7", "203.0.113.5", "169.254.7.7",
    "2001:db8:1::5", "2001:db8:1:0:ffff::1", "2001:db8:2::5", "2001:db8:ffff::9",
    "fd00:1::9", "fd00:2::9", "fe80::5", "fec0::1",
    "2002:c000:209::1", "2001:0:5ef5::1", "::ffff:192.0.2.77",
    "64:ff9b::c000:201", "ff02::1", "ff05::2", "::192.0.2.3",
]

SETUPS = {
    "dual": [
        "ip addr add 192.0.2.1/24 dev nc0",
        "ip addr add 198.51.100.1/16 dev nc0",
        "ip addr add 2001:db8:1::1/64 dev nc0 nodad",
        "ip addr add 2001:db8:2::1/64 dev nc0 nodad preferred_lft 0",
        "ip addr add fd00:1::1/64 dev nc0 nodad",
        "ip route add default dev nc0",
        "ip -6 route add default dev nc0",
    ],
    "no-v6-route": [
        "ip addr add 192.0.2.1/24 dev nc0",
        "ip addr add 2001:db8:1::1/64 dev nc0 nodad",
        "ip route add default dev nc0",
    ],
    "v4-only": [
        "ip addr add 192.0.2.1/24 dev nc0",
        "ip addr add 198.51.100.1/24 dev nc0",
        "ip route add default dev nc0",
    ],
    "v6-only": [
        "ip addr add 2001:db8:1::1/64 dev nc0 nodad",
        "ip addr add fd00:1::1/64 dev nc0 nodad",
        "ip -6 route add default dev nc0",
    ],
}

GAICONF = """# a custom table, as an administrator writes one
label ::1/128 0
label ::/0 1
label 2002::/16 2
label ::/96 3
label ::ffff:0:0/96 4
label fd00::/8 9
precedence ::1/128 50
precedence ::/0 40
precedence 2002::/16 30
precedence ::/96 20
precedence ::ffff:0:0/96 100
precedence fd00::/8 45
scopev4 ::ffff:169.254.0.0/112 2
scopev4 ::ffff:127.0.0.0/104 2
scopev4 192.0.2.0/24 5
scopev4 ::ffff:0.0.0.0/96 14
"""


def test(fn):
    TESTS.append(fn)
    return fn


def sh(cmd):
    subprocess.run(cmd, shell=True, check=True)


def setup(name):
    """The namespace's interfaces as SETUPS[name] says, from scratch."""
    subprocess.run("ip link del nc0", shell=True, stderr=subprocess.DEVNULL)
    sh("ip link set lo up")
    sh("ip link add nc0 type veth peer name nc1")
    for dev in ("nc0", "nc1"):
        sh("ip link set %s addrgenmode none" % dev)
        sh("ip link set %s up" % dev)
    sh("ip addr add fe80::1/64 dev nc0 nodad")
    for c in SETUPS[name]:
        sh(c)


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []

    def cases(self, seed, count):
        """count random cases (names with hosts-file orders), written to the
        bound /etc/hosts and to a cases file; returns its path."""
        rnd = random.Random(seed)
        lines, hosts = [], ["127.0.0.1 localhost", "::1 localhost"]
        for i in range(count):
            n = rnd.randint(2, 7)
            addrs = rnd.sample(POOL, n)
            name = "c%d.sort.test" % i
            lines.append(name + " " + " ".join(addrs))
            hosts += ["%s %s" % (a, name) for a in addrs]
        with open("/etc/hosts", "w") as f:
            f.write("\n".join(hosts) + "\n")
        path = os.path.join(self.tmp, "cases-%d" % seed)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def run(self, cases, rounds=1, env=None):
        """(differences, comparisons, probes, dumps) of one sort-diff run."""
        r = subprocess.run([os.path.join(BUILD, "tests", "sort", "sort-diff"), cases,
                            str(rounds)], capture_output=True, text=True, timeout=120,
                           env=ubsan_fatal(env))
        assert r.returncode == 0, r.stderr
        diffs, n = compare(r.stdout.splitlines())
        probes, dumps = map(int, r.stdout.splitlines()[-1].split()[1:])
        return diffs, n, probes, dumps


def compare(out):
    """The differences in sort-diff's output, and the comparisons made."""
    glibc, diffs, n = None, [], 0
    for line in out:
        name, who, rest = (line.split(None, 2) + ["", ""])[:3]
        if name == "counts":
            continue
        if who == "glibc":
            glibc = rest
        else:
            n += 1
            if rest != glibc:
                diffs.append("%s: glibc %s, ours %s" % (name, glibc, rest))
    return diffs, n


def ubsan_fatal(env):
    """An UndefinedBehaviorSanitizer report fails the run (sanitizer builds)."""
    return dict(env if env is not None else os.environ,
                UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")


def make_env(tmp):
    return Env(tmp)


@test
def random_cases_in_four_setups(env):
    total = 0
    for i, name in enumerate(SETUPS):
        setup(name)
        diffs, n, _, _ = env.run(env.cases(100 + i, 400))
        assert not diffs, "%s: %d of %d differ:\n%s" % (name, len(diffs), n,
                                                       "\n".join(diffs[:20]))
        total += n
    print("     %d comparisons in %d setups, 0 differences" % (total, len(SETUPS)))


@test
def gai_conf_tables(env):
    setup("dual")
    conf = os.path.join(env.tmp, "gai.conf")
    with open(conf, "w") as f:
        f.write(GAICONF)
    sh("mount --bind %s /etc/gai.conf" % conf)
    try:
        diffs, n, _, _ = env.run(env.cases(200, 400))
    finally:
        sh("umount /etc/gai.conf")
    assert not diffs, "%d of %d differ:\n%s" % (len(diffs), n, "\n".join(diffs[:20]))
    print("     %d comparisons with a custom gai.conf, 0 differences" % n)


@test
def cache_follows_the_netlink_counter(env):
    setup("dual")
    d = nclib.Daemon(BUILD, env.tmp).start()
    env.daemons.append(d)
    e = dict(os.environ, NAMECACHE_SOCKET=d.sock)
    cases = env.cases(300, 50)
    distinct = len({a for line in open(cases) for a in line.split()[1:]})
    # Without a daemon: every sort probes each destination, as glibc.
    # (a folder of its own: the segment is looked for beside the socket)
    os.mkdir(os.path.join(env.tmp, "none"))
    diffs, n, probes, dumps = env.run(cases, 3, env=dict(
        os.environ, NAMECACHE_SOCKET=os.path.join(env.tmp, "none", "sock")))
    assert not diffs, diffs[:5]
    total = sum(len(line.split()) - 1 for line in open(cases))
    assert probes == 3 * total and dumps == n, (probes, dumps, total, n)
    # With one: each destination once, one dump, over three rounds.
    diffs, n, probes, dumps = env.run(cases, 3, env=e)
    assert not diffs, diffs[:5]
    assert probes == distinct and dumps == 1, (probes, distinct, dumps)
    # One process, two rounds, an address change between them: the
    # counter moves, the sort probes again, and follows (2001:db8:2::1 is
    # no longer deprecated, which changes rule 3's answers).
    p = subprocess.Popen([os.path.join(BUILD, "tests", "sort", "sort-diff"), cases, "2",
                          "pause"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=ubsan_fatal(e))
    first = []
    while not first or not first[-1].startswith("counts"):
        first.append(p.stdout.readline())
    assert list(map(int, first[-1].split()[1:])) == [distinct, 1], first[-1]
    changes = d.ctl_json("statistics")["shared_netlink_changes"]
    sh("ip addr change 2001:db8:2::1/64 dev nc0 preferred_lft forever")
    nclib.wait_until(lambda: d.ctl_json("statistics")["shared_netlink_changes"] > changes,
                     "the daemon to count the address change")
    out, _ = p.communicate("go\n", timeout=60)
    assert p.returncode == 0
    out = out.splitlines()
    diffs, n = compare(out)
    assert not diffs and n == 50, diffs[:5]
    assert list(map(int, out[-1].split()[1:])) == [2 * distinct, 2], out[-1]
    print("     %d destinations: probed once over 3 rounds, again after a change"
          % distinct)


@test
def scoped_link_local(env):
    """A name whose link-local address comes with its interface (tests/nss's
    scoped-N from gethostbyname4_r, as nss-myhostname gives one): glibc
    connects with the scope, so fe80::N%nc0 is usable, and fe80::N
    without it is not; namecache_sort_addresses_scoped() the same, in
    every setup."""
    nss = os.path.join(env.tmp, "nsswitch.conf")
    with open("/etc/nsswitch.conf") as f:
        others = "".join(l for l in f if not l.strip().startswith("hosts:"))
    with open(nss, "w") as f:
        f.write("hosts: files nctest\n" + others)
    e = dict(os.environ, LD_LIBRARY_PATH=os.path.join(BUILD, "tests", "nss"),
             NCTEST_SCOPE_IF="nc0")
    sh("mount --bind %s /etc/nsswitch.conf" % nss)
    total = 0
    try:
        for name in SETUPS:
            setup(name)
            idx = socket.if_nametoindex("nc0")
            cases = os.path.join(env.tmp, "scoped-" + name)
            with open(cases, "w") as f:
                for n in range(1, 6):
                    f.write("scoped-%d.nct 2001:db8::%d fe80::%d%%%d 198.51.100.%d\n"
                            % (n, n, n, idx, n))
            diffs, k, _, _ = env.run(cases, env=e)
            assert not diffs, "%s: %s" % (name, "\n".join(diffs))
            total += k
        # and the scope is what moves it: without it, last
        setup("dual")
        with open(cases, "w") as f:
            f.write("scoped-1.nct 2001:db8::1 fe80::1%%%d 198.51.100.1\n" %
                    socket.if_nametoindex("nc0"))
            f.write("unscoped-1 2001:db8::1 fe80::1 198.51.100.1\n")
        r = subprocess.run([os.path.join(BUILD, "tests", "sort", "sort-diff"), cases],
                           capture_output=True, text=True, timeout=60, env=ubsan_fatal(e))
        ours = [l.split()[2:] for l in r.stdout.splitlines() if l.split()[1:2] == ["ours"]]
        assert ours[0][0].startswith("fe80::1%") and ours[1][-1] == "fe80::1", ours
    finally:
        sh("umount /etc/nsswitch.conf")
    print("     %d comparisons in %d setups, 0 differences" % (total, len(SETUPS)))


def main():
    privns.enter("mount and network namespaces", net=True)
    etc = privns.mkdtemp("nc-sort-etc-")
    with open("/etc/nsswitch.conf") as f:
        others = "".join(l for l in f if not l.strip().startswith("hosts:"))
    for name, text in (("nsswitch.conf", "hosts: files\n" + others), ("hosts", "")):
        with open(os.path.join(etc, name), "w") as f:
            f.write(text)
        sh("mount --bind %s /etc/%s" % (os.path.join(etc, name), name))

    def set_build(b):
        global BUILD
        BUILD = b
    return nclib.run_tests(TESTS, make_env, "nc-sort-", set_build)


if __name__ == "__main__":
    sys.exit(main())
