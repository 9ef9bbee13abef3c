#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/watchdog.py - the pace of namecached's WATCHDOG=1 pings, measured.

    bench/watchdog.py --build DIR [--usec 200000] [--seconds 5]

Starts namecached with a NOTIFY_SOCKET of its own and WATCHDOG_USEC, as
systemd would, collects the pings for --seconds, and prints their count
and the gaps between them against half the interval (the daemon pings at
half of WATCHDOG_USEC, from its loop: sd_watchdog_enabled(3)).  A
measurement, not a test: tests/packaging/test_systemd.py checks that the
pings come, this says how regularly (it used to assert each gap < 0.2 s).
Loopback only: the daemon's upstream is a test server that answers
NXDOMAIN.
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import nclib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--usec", type=int, default=200000)
    ap.add_argument("--seconds", type=float, default=5.0)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="nc-watchdog-") as tmp:
        path = os.path.join(tmp, "notify")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(path)
        env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC=str(a.usec))
        d = nclib.Daemon(os.path.abspath(a.build), tmp, env=env)
        d.start()
        pings = []
        end = time.monotonic() + a.seconds
        try:
            while time.monotonic() < end:
                s.settimeout(max(end - time.monotonic(), 0.001))
                try:
                    data = s.recv(4096)
                except socket.timeout:
                    break
                if b"WATCHDOG=1" in data.split(b"\n"):
                    pings.append(time.monotonic())
        finally:
            rc = d.stop()
            s.close()
    gaps = sorted(b - a_ for a_, b in zip(pings, pings[1:]))
    half = a.usec / 2e6
    if not gaps:
        print("%d pings in %.1f s: too few to measure" % (len(pings), a.seconds))
        return 1
    print("WATCHDOG_USEC %d: %d pings in %.1f s; gap median %.1f ms, max %.1f ms "
          "(half the interval: %.1f ms); daemon exit %s" % (
              a.usec, len(pings), a.seconds, gaps[len(gaps) // 2] * 1e3, gaps[-1] * 1e3,
              half * 1e3, rc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
