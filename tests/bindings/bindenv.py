# SPDX-License-Identifier: MIT
"""tests/bindings/bindenv.py - what the bindings' tests share: the namespace, the files, a daemon.

enter(script, argv) re-executes the calling test inside tests/dns/in-netns.sh
(nsd with the test zones, dnsenv.search_zones() and a root, no response
rate limiting; search dnsenv.SEARCH_LIST, "test.example diff.example"), then
binds corpus.HOSTS over /etc/hosts and "hosts: files dns" over
/etc/nsswitch.conf, so glibc's own modules are the reference.  Env.daemon()
starts a namecached on those same files and points NAMECACHE_SOCKET at it.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "dns"))
import nclib  # noqa: E402
import dnsenv  # noqa: E402
import privns  # noqa: E402
import corpus  # noqa: E402

BUILD = None


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []

    def daemon(self, line="files dns", **kw):
        d = nclib.Daemon(BUILD, self.tmp, hosts_text=None, resolv="/etc/resolv.conf",
                         upstream=False, nsswitch_text="hosts: %s\n" % line, **kw)
        d.hosts = "/etc/hosts"
        d.start()
        self.daemons.append(d)
        os.environ["NAMECACHE_SOCKET"] = d.sock
        return d


def make_env(tmp):
    return Env(tmp)


# --- tests/nss's module on the hosts line, and an interface to scope to ----------

SCOPE_IF = "nc0"


def nctest_env(base=None):
    """The environment in which glibc (and a daemon) find tests/nss's module,
    and its scoped-N names take SCOPE_IF's index."""
    e = dict(base if base is not None else os.environ)
    e["LD_LIBRARY_PATH"] = os.path.join(BUILD, "tests", "nss")
    e["NCTEST_SCOPE_IF"] = SCOPE_IF
    e.pop("NCTEST_LOG", None)
    return e


def add_link():
    """A veth pair, both ends in this namespace: SCOPE_IF with fe80::1,
    2001:db8:1::1 and 198.51.100.1 and the default routes, so that a
    link-local destination with SCOPE_IF's scope is usable to the sort (a
    UDP connect, which sends nothing) and one without it is not."""
    del_link()
    for c in ("ip link add %s type veth peer name %s-peer" % (SCOPE_IF, SCOPE_IF),
              "ip link set %s addrgenmode none" % SCOPE_IF,
              "ip link set %s-peer addrgenmode none" % SCOPE_IF,
              "ip link set %s up" % SCOPE_IF, "ip link set %s-peer up" % SCOPE_IF,
              "ip addr add fe80::1/64 dev %s nodad" % SCOPE_IF,
              "ip addr add 2001:db8:1::1/64 dev %s nodad" % SCOPE_IF,
              "ip addr add 198.51.100.1/24 dev %s" % SCOPE_IF,
              "ip -6 route add default dev %s" % SCOPE_IF,
              "ip route add default dev %s" % SCOPE_IF):
        subprocess.run(c, shell=True, check=True)


def del_link():
    subprocess.run("ip link del %s" % SCOPE_IF, shell=True, stderr=subprocess.DEVNULL)


def with_line(tmp, line, argv, env, v4_only=False, timeout=300):
    """argv, run with "hosts: LINE" bound over /etc/nsswitch.conf in a mount
    namespace of its own; with v4_only, also in a network namespace of its
    own whose only address besides 127.0.0.1 is 203.0.113.1 (AI_ADDRCONFIG
    then narrows AF_UNSPEC to AF_INET).  Unix sockets reach across."""
    conf = os.path.join(tmp, "nsswitch-%d.conf" % abs(hash(line)))
    with open("/etc/nsswitch.conf") as f:
        others = "".join(l for l in f if not l.strip().startswith("hosts:"))
    with open(conf, "w") as f:
        f.write("hosts: %s\n%s" % (line, others))
    os.chmod(conf, 0o644)
    script = 'mount --bind "$0" /etc/nsswitch.conf && exec "$@"'
    if v4_only:
        script = ("ip link set lo up && ip addr add 203.0.113.1/32 dev lo && " + script)
    ns = ["unshare", "-m", "--propagation", "private"] + (["-n"] if v4_only else [])
    return subprocess.run(ns + ["--", "sh", "-c", script, conf] + argv, env=env,
                          capture_output=True, text=True, timeout=timeout)


def sanitizer_env(build):
    """For a sanitizer build: the environment that lets its instrumented
    extension and addon load into the uninstrumented python and node (the
    runtimes preloaded), with any ASan or UBSan report fatal.  Leak
    checking stays off: the interpreters' own exit is not ours to judge
    (test no_leaks measures RSS instead).  {} for a normal build."""
    for mod in ("client-lib/node/namecache.node", "client-lib/libnamecache.so.0"):
        path = os.path.join(build, mod)
        if os.path.exists(path):
            break
    out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
    libs = re.findall(r"lib(?:asan|ubsan)\.so\.\d+ => (\S+)", out)
    if not libs:
        return {}
    return {"LD_PRELOAD": " ".join(libs),
            "ASAN_OPTIONS": "detect_leaks=0:verify_asan_link_order=0:abort_on_error=1:"
                            "quarantine_size_mb=1",
            "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}


def enter(script):
    """Outside the namespace: runs script there and returns its status (77
    when not root).  Inside: binds the files (from a folder removed at
    exit) and returns None.  A sanitizer build's runtimes are preloaded
    into the test itself (re-executed) and so into everything it starts."""
    build = os.path.abspath(sys.argv[sys.argv.index("--build") + 1])
    if os.environ.get("DNSENV_NETNS") == "1" and "LD_PRELOAD" not in os.environ:
        extra = sanitizer_env(build)
        if extra:
            os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, **extra))
    if os.environ.get("DNSENV_NETNS") != "1":
        if os.geteuid() != 0:
            print("skip: needs root (in-netns.sh)")
            return 77
        argv = list(sys.argv[1:])
        i = argv.index("--build")
        argv[i + 1] = os.path.abspath(argv[i + 1])
        with tempfile.TemporaryDirectory(prefix="nc-bind-zones-") as z:
            os.chmod(z, 0o755)
            zones = [corpus.root_zone(z)] + dnsenv.search_zones(z)
            return dnsenv.run_in_netns(["/usr/bin/python3", os.path.abspath(script)] + argv,
                                       search=dnsenv.SEARCH_LIST, zones=zones,
                                       rrl=False).returncode
    etc = privns.mkdtemp("nc-bind-etc-")
    os.chmod(etc, 0o755)
    with open("/etc/nsswitch.conf") as f:
        others = "".join(l for l in f if not l.strip().startswith("hosts:"))
    for name, text in (("nsswitch.conf", "hosts: files dns\n" + others),
                       ("hosts", corpus.HOSTS)):
        path = os.path.join(etc, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        subprocess.run(["mount", "--bind", path, "/etc/" + name], check=True)
    return None


def set_build(b):
    global BUILD
    BUILD = b
