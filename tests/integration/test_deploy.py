#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/integration/test_deploy.py - the recipes of docs/deployment.md, where they can be run here.

  * a container that mounts the host's /run/namecache (here: a private mount
    namespace with the daemon's folder bind-mounted there, and a hosts file
    of its own over /etc/hosts): its lookups get the host daemon's answers,
    from the shared segment, not its own /etc/hosts;
  * a process in its own user namespace: lookups work (the socket and the
    segment are world-readable and world-writable as they must be); admin
    requests from an unprivileged uid are refused;
  * a process in its own time namespace (CLOCK_MONOTONIC a day ahead, or an
    hour behind): the segment's expiries look wrong from there, so it asks
    the socket (the heartbeat tells it), and gets every answer; a beating
    daemon is never taken for hung.

Needs root (unshare, mount), as CI; exit 77 otherwise.  Loopback only.

Run: /usr/bin/python3 tests/integration/test_deploy.py --build BUILD [-k NAME]
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import dnsenv  # noqa: E402
import nclib  # noqa: E402

BUILD = None
TESTS = []
PYTHON = "/usr/bin/python3"


def test(fn):
    TESTS.append(fn)
    return fn


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.servers = []
        self.daemons = []

    def daemon(self, hosts):
        fs = dnsenv.FaultServer()
        fs.set_default("nxdomain", soa=True)
        self.servers.append(fs)
        d = nclib.Daemon(BUILD, self.tmp, hosts_text=hosts, upstream="127.0.0.1:%d" % fs.port)
        self.daemons.append(d)
        return d.start()


# getaddrinfo n times in one process, then one line: the first answer.
GAI_LOOP = """
import socket, sys
out = None
for _ in range(int(sys.argv[2])):
    try:
        out = socket.getaddrinfo(sys.argv[1], None, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]
    except socket.gaierror as e:
        out = "error %d" % e.errno
print(out)
"""


@test
def container_mounts_the_hosts_run(env):
    d = env.daemon("127.0.0.1 localhost\n192.0.2.31 shared.deploy.test\n")
    own = os.path.join(env.tmp, "container-hosts")
    with open(own, "w") as f:
        f.write("127.0.0.1 localhost\n198.51.100.31 shared.deploy.test\n")
    nss = os.path.join(env.tmp, "container-nsswitch.conf")
    with open(nss, "w") as f:
        f.write("hosts: namecache [!UNAVAIL=return] files dns\n")
    base = d.ctl_json("statistics")["requests"]
    # The container: its own /etc/hosts and nsswitch.conf, the host's
    # /run/namecache at /run/namecache (the default socket path).
    script = ('mkdir -p /run/namecache && mount --bind "$0" /run/namecache && '
              'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/nsswitch.conf && '
              'shift 2 && exec "$@"')
    env_ = nclib.nss_env(BUILD, "/run/namecache/" + os.path.basename(d.sock))
    r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script,
                        os.path.dirname(d.sock), own, nss, PYTHON, "-c", GAI_LOOP,
                        "shared.deploy.test", "200"], capture_output=True, text=True,
                       env=env_, timeout=60)
    used = d.ctl_json("statistics")["requests"] - base - 1
    print("container with the host's /run/namecache: %s, 200 calls cost %d requests" %
          (r.stdout.strip(), used))
    assert r.returncode == 0 and r.stdout.strip() == "192.0.2.31", (r.stdout, r.stderr)
    assert used <= 2, used      # the first asks the socket, the rest hit the segment


@test
def user_namespace(env):
    d = env.daemon("127.0.0.1 localhost\n192.0.2.32 userns.deploy.test\n")
    os.chmod(env.tmp, 0o755)     # as /run/namecache: anyone may reach the socket
    env_ = nclib.nss_env(BUILD, d.sock)
    r = subprocess.run(["unshare", "-U", "--map-user=65534", "--map-group=65534",
                        "getent", "-s", "namecache", "ahostsv4", "userns.deploy.test"],
                       capture_output=True, text=True, env=env_, timeout=30)
    assert r.returncode == 0 and "192.0.2.32" in r.stdout, (r.stdout, r.stderr)
    # An unprivileged uid (the daemon sees its real one through SO_PEERCRED).
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        os.path.join(BUILD, "cli", "namecachectl"), "--socket", d.sock,
                        "flush-caches"], capture_output=True, text=True, timeout=30)
    print("user namespace: lookups answered; flush-caches as uid 65534: exit %d, %s" %
          (r.returncode, r.stderr.strip()))
    assert r.returncode != 0 and "denied" in (r.stderr + r.stdout).lower(), r


@test
def time_namespaces(env):
    d = env.daemon("127.0.0.1 localhost\n192.0.2.33 time.deploy.test\n")
    assert d.getent("ahostsv4", "time.deploy.test").returncode == 0     # published
    env_ = nclib.nss_env(BUILD, d.sock)
    with open("/proc/uptime") as f:
        up = float(f.read().split()[0])
    # Behind: as far as the clock allows (it may not go below zero).
    for offset in ("86400", str(-int(min(3600, up - 10)))):
        base = d.ctl_json("statistics")["requests"]
        r = subprocess.run(["unshare", "-T", "--monotonic", offset, "sh", "-c",
                            'for i in $(seq 50); do getent -s namecache ahostsv4 "$0" || '
                            'echo failed; done | grep -c "^192.0.2.33 *STREAM"',
                            "time.deploy.test"], capture_output=True, text=True,
                           env=env_, timeout=60)
        used = d.ctl_json("statistics")["requests"] - base - 1
        print("time namespace, CLOCK_MONOTONIC %+d s: %s of 50 getent calls answered, %d "
              "over the socket" % (int(offset), r.stdout.strip(), used))
        assert r.stdout.strip() == "50", (r.stdout, r.stderr)
        # Expiries are the daemon's clock: a process on another one must not
        # judge them (ahead: records look expired; behind: alive too long).
        assert used == 50, used


def main():
    if os.geteuid() != 0:
        print("skip: needs root (unshare, mount)")
        return 77

    def set_build(b):
        global BUILD
        BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-deploy-", set_build)


if __name__ == "__main__":
    sys.exit(main())
