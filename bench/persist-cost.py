#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/persist-cost.py - what persistent_cache costs per write (issue 22).

  /usr/bin/python3 bench/persist-cost.py --build BUILD [--names N] [--dir DIR]

Two daemons in turn, one with its store beside the socket (a tmpfs, as
/run is) and
one with persistent_cache on DIR (default /var/tmp: a disk), each asked N
new names (default 20,000) through the NSS module, then each name again
(hits over the socket, shared = no: each stamps its record).  For each: the bytes the
kernel accounts to the daemon as written (/proc/PID/io write_bytes: pages
it dirtied in the page cache of a file on a disk), per
answer put and per hit, and the seconds each round took.  Upstream is a
scripted server of tests/dns on loopback.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "dns"))
import nclib  # noqa: E402
import dnsenv  # noqa: E402


def io_written(pid):
    with open("/proc/%d/io" % pid) as f:
        for line in f:
            if line.startswith("write_bytes:"):
                return int(line.split()[1])
    return 0


def one(build, tmp, names_file, n, persistent):
    srv = dnsenv.FaultServer()
    srv.set_default("answer", records=[("A", 3600, "192.0.2.1")])
    # shared = no: every lookup asks the socket, so hits stamp their records.
    d = nclib.Daemon(build, tmp, upstream="127.0.0.1:%d" % srv.port,
                     conf_text="shared = no\n" +
                     (("persistent_cache = %s\n" % persistent) if persistent else ""))
    d.start()
    gai = [os.path.join(build, "tests", "store", "gai-list"), "namecache [!UNAVAIL=return]",
           names_file]
    env = nclib.nss_env(build, d.sock)
    w0 = io_written(d.proc.pid)
    t0 = time.time()
    subprocess.run(gai, env=env, capture_output=True, check=True)
    t1 = time.time()
    w1 = io_written(d.proc.pid)
    subprocess.run(gai, env=env, capture_output=True, check=True)
    t2 = time.time()
    w2 = io_written(d.proc.pid)
    d.stop()
    srv.stop()
    return {"put_bytes": (w1 - w0) / n, "hit_bytes": (w2 - w1) / n,
            "miss_s": t1 - t0, "hit_s": t2 - t1}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--names", type=int, default=20000)
    ap.add_argument("--dir", default="/var/tmp")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    # The sockets' folders on a tmpfs, as /run is.
    with tempfile.TemporaryDirectory(prefix="nc-persist-", dir="/dev/shm") as tmp, \
            tempfile.TemporaryDirectory(prefix="nc-persist-", dir=a.dir) as disk:
        names = os.path.join(tmp, "names")
        with open(names, "w") as f:
            f.write("".join("p%d.persist.example\n" % i for i in range(a.names)))
        for label, sub, pc in (("store beside the socket (tmpfs)", "a", None),
                               ("persistent_cache on %s" % a.dir, "b",
                                os.path.join(disk, "store"))):
            os.makedirs(os.path.join(tmp, sub))
            r = one(build, os.path.join(tmp, sub), names, a.names, pc)
            print("%-40s %d names: %.0f bytes written per answer put, %.0f per hit; "
                  "misses %.2f s, hits %.2f s" % (label, a.names, r["put_bytes"],
                                                  r["hit_bytes"], r["miss_s"], r["hit_s"]))


if __name__ == "__main__":
    main()
