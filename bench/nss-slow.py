#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/nss-slow.py - does a stuck NSS module slow anything else down?

One namecached with the hosts line "files nctest dns" (tests/nss's module;
DNS from a FaultServer on 127.0.0.1), nss_workers 4 and nss_timeout 30.
bench/nss-lookup times getaddrinfo through the NSS module for three kinds
of name, each already cached: a hosts name, a module's answer, a DNS
answer; first idle, then with 100 lookups of distinct names pending on a
module that never answers in time (all 4 workers stuck, 96 calls queued).
Twice: with the shared segment (hits cost no system call) and with
`shared = no` (every hit goes over the socket to the loop, which is what a
blocked loop would show).  Medians and p99 in microseconds, one run.

Usage: bench/nss-slow.py [BUILD] [COUNT]   (COUNT lookups per figure, default 3000)
Nothing leaves loopback: the module answers from its own table, DNS is the
FaultServer's.
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(SRC, "tests"))
import nclib  # noqa: E402

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build"))
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
NAMES = [("hosts", "hostsonly"), ("module", "ok-1.nct"), ("dns", "www.bench.example")]


def measure(d, label):
    env = nclib.nss_env(BUILD, d.sock)
    out = {}
    for kind, name in NAMES:
        r = subprocess.run([os.path.join(BUILD, "bench", "nss-lookup"), "-f", "gai", "-w", "50",
                            "namecache", name, str(COUNT)], capture_output=True, text=True,
                           env=env, timeout=120)
        m = re.search(r"median\s+([0-9.]+) us\s+p99\s+([0-9.]+) us", r.stdout)
        assert m and "failed" not in r.stdout, (r.stdout, r.stderr)
        out[kind] = (float(m.group(1)), float(m.group(2)))
    print("  %-28s %s" % (label, "   ".join("%s %6.2f / %7.2f" % (k, *out[k])
                                            for k, _ in NAMES)))
    return out


def pending(d, n):
    """n (at most 250) lookups of distinct stuck names, held open; their sockets."""
    socks = []
    for i in range(n):
        s = nclib.connect(d, 60)
        s.sendall(nclib.name_req("stuck-%d.nct" % (i + 1)))
        socks.append(s)
    return socks


def main():
    print("bench/nss-slow.py: getaddrinfo through the NSS module, median / p99 us, n=%d" % COUNT)
    for shared in ("yes", "no"):
        with tempfile.TemporaryDirectory(prefix="nc-nss-slow-") as tmp:
            fs = nclib.dnsenv.FaultServer()
            # Every name has one IPv4 and one IPv6 address, so getaddrinfo's
            # own sort costs the same for all three.
            fs.set("www.bench.example", "answer", ttl=300)
            fs.set_default("nxdomain", soa=True)
            env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(BUILD, "tests", "nss"))
            d = nclib.Daemon(BUILD, tmp, hosts_text="127.0.0.1 localhost\n192.0.2.10 hostsonly\n"
                             "2001:db8::10 hostsonly\n",
                             conf_text="shared = %s\nnss_workers = 4\nnss_timeout = 30\n"
                             "nss_positive_ttl = 600\n" % shared,
                             nsswitch_text="hosts: namecache [!UNAVAIL=return] files nctest dns\n",
                             upstream="127.0.0.1:%d" % fs.port, env=env)
            d.start()
            try:
                print("shared = %s" % shared)
                idle = measure(d, "idle")
                socks = pending(d, 100)
                time.sleep(0.5)
                st = d.ctl_json("statistics")
                busy = measure(d, "100 pending, %d stuck, %d queued" %
                               (st["nss_workers_stuck"] + st["nss_workers_busy"],
                                st["nss_calls_queued"]))
                for k, _ in NAMES:
                    print("    %-7s median %.2fx idle" % (k, busy[k][0] / idle[k][0]))
                for s in socks:
                    s.close()
            finally:
                d.stop()
                fs.stop()


if __name__ == "__main__":
    main()
