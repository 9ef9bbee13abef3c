# SPDX-License-Identifier: MIT
"""tests/bindings/bindenv.py - what the bindings' tests share: the namespace, the files, a daemon.

enter(script, argv) re-executes the calling test inside tests/dns/in-netns.sh
(nsd with the test zones and a root, no response rate limiting), then
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
import corpus  # noqa: E402

BUILD = None


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []

    def daemon(self, **kw):
        d = nclib.Daemon(BUILD, self.tmp, hosts_text=None, resolv="/etc/resolv.conf",
                         upstream=False, nsswitch_text="hosts: files dns\n", **kw)
        d.hosts = "/etc/hosts"
        d.start()
        self.daemons.append(d)
        os.environ["NAMECACHE_SOCKET"] = d.sock
        return d


def make_env(tmp):
    return Env(tmp)


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
    when not root).  Inside: binds the files and returns None.  A sanitizer
    build's runtimes are preloaded into the test itself (re-executed) and
    so into everything it starts."""
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
            return dnsenv.run_in_netns(["/usr/bin/python3", os.path.abspath(script)] + argv,
                                       zones=[corpus.root_zone(z)], rrl=False).returncode
    etc = tempfile.mkdtemp(prefix="nc-bind-etc-")
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
