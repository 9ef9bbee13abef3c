# SPDX-License-Identifier: MIT
"""tests/privns.py - a test in namespaces of its own: the one way in.

A test that mounts over /etc or /run, or adds interfaces and addresses,
runs itself again under `unshare --mount [--net] --propagation private`:
its mounts are then private to it and go with its last process, and a new
network namespace holds only lo, so no packet can leave it.  enter() does
that for the calling script; tests/dns/in-netns.sh is dnsenv.py's use of
it.  Standard library only: nclib and dnsenv both import it.
"""
import atexit
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile

PYTHON = "/usr/bin/python3"
SKIP = 77
# In the environment of the re-executed script alone: "PID MOUNT-NAMESPACE"
# of the process that re-executed itself (unshare execs in the same
# process, so the PID is the same).  A child that inherits it has another
# PID, and enters namespaces of its own if it asks.
MARK = "NC_PRIVNS"


def _ns(kind):
    return os.readlink("/proc/self/ns/" + kind)


def _skip(why):
    print("skip: " + why, flush=True)
    sys.exit(SKIP)


def enter(why, net=False, tools=(), modules=(), probe=False):
    """Re-executes the calling script (PYTHON, the same arguments) in a
    private mount namespace and, with net, a private network namespace.

    Before that it exits 77 (a skip) when not root (why: what root is
    needed for), when a program in tools or a Python module in modules is
    missing, or, with probe, when unshare cannot make the namespaces here.
    In the re-executed script it checks that the namespaces are new (with
    net: no interface but lo), brings lo up and returns."""
    mark = os.environ.pop(MARK, "").split(" ")
    if mark[0] == str(os.getpid()):
        if _ns("mnt") == mark[1]:
            raise SystemExit("%s: not in a private mount namespace (%s)" % (
                sys.argv[0], mark[1]))
        if net:
            names = [n for _, n in socket.if_nameindex()]
            if names != ["lo"]:
                raise SystemExit("%s: not in a private network namespace "
                                 "(interfaces: %s)" % (sys.argv[0], names))
            subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        return
    if os.geteuid() != 0:
        _skip("needs root (%s)" % why)
    missing = [t for t in tools if shutil.which(t) is None]
    missing += ["python3-" + m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        _skip("missing %s" % " ".join(missing))
    unshare = ["unshare", "--mount"] + (["--net"] if net else []) + [
        "--propagation", "private"]
    if probe and (shutil.which("unshare") is None or subprocess.run(
            unshare + ["true"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL).returncode != 0):
        _skip("cannot unshare %s" % ("network and mount namespaces" if net
                                     else "a mount namespace"))
    env = dict(os.environ)
    env[MARK] = "%d %s" % (os.getpid(), _ns("mnt"))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvpe("unshare", unshare + ["--", PYTHON, os.path.abspath(sys.argv[0])] +
               sys.argv[1:], env)


def mkdtemp(prefix):
    """A temporary folder for the files a test binds over /etc's, removed
    when this process exits (and whatever is mounted on it unmounted): it
    must outlive the bind mounts, which go with the namespace."""
    path = tempfile.mkdtemp(prefix=prefix)
    pid = os.getpid()

    def remove():
        if os.getpid() != pid:      # a forked child's exit: not ours
            return
        if os.path.ismount(path):
            subprocess.run(["umount", "-l", path])
        shutil.rmtree(path, ignore_errors=True)
    atexit.register(remove)
    return path
