# SPDX-License-Identifier: MIT
"""tests/bindings/bindenv.py - what the bindings' tests share: the namespace, the files, a daemon.

enter(script, argv) re-executes the calling test inside tests/dns/in-netns.sh
(nsd with the test zones and a root, no response rate limiting), then
binds corpus.HOSTS over /etc/hosts and "hosts: files dns" over
/etc/nsswitch.conf, so glibc's own modules are the reference.  Env.daemon()
starts a namecached on those same files and points NAMECACHE_SOCKET at it.
"""
import os
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


def enter(script):
    """Outside the namespace: runs script there and returns its status (77
    when not root).  Inside: binds the files and returns None."""
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
