# SPDX-License-Identifier: MIT
"""tests/nclib.py - what the Python tests share: how to load the NSS module from a build."""
import os
import re
import subprocess

_preload = {}


def sanitizer_preload(build):
    """The sanitizer runtimes the build's NSS module needs preloaded, or "".

    An ASan-built module refuses to load into an uninstrumented program
    (getent) unless the runtime comes first, so tests preload it."""
    if build not in _preload:
        module = os.path.join(build, "nss-shim", "libnss_namecache.so.2")
        out = subprocess.run(["ldd", module], capture_output=True, text=True).stdout
        libs = re.findall(r"(\S*lib(?:asan|ubsan)\.so\.\d+) => (\S+)", out)
        _preload[build] = " ".join(path for _, path in libs)
    return _preload[build]


def nss_env(build, sock, base=None):
    """Environment for a process that should reach the daemon at sock through NSS."""
    env = dict(base if base is not None else os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(build, "nss-shim")
    env["NAMECACHE_SOCKET"] = sock
    pre = sanitizer_preload(build)
    if pre:
        env["LD_PRELOAD"] = pre
        # getent itself is not ours to leak-check.
        env["ASAN_OPTIONS"] = "detect_leaks=0:verify_asan_link_order=0"
    return env
