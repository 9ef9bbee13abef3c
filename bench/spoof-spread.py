#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/spoof-spread.py - how much an off-path spoofer must guess: the spread of
UDP source ports and DNS ids in namecached's upstream queries.

A recording DNS server on 127.0.0.1 notes (source port, id) of every query and
answers each after --delay-ms, so many queries are outstanding at once, as
they are against a real server across a network.  namecached (its own
folder, resolv.conf and --upstream 127.0.0.1:PORT: loopback only) is asked
--count distinct names:

  pipelined   --conns connections, --depth requests in flight on each
  sequential  one request at a time: each query alone in flight

and the script reports, per mode: queries, distinct ports, distinct ids,
Shannon entropy of ports and of ids (bits), the most queries one port carried,
the most queries on one port at the same time, and (port, id) pairs that
repeat against what chance predicts.  --json prints the figures as JSON.

Run: /usr/bin/python3 bench/spoof-spread.py --build BUILD [--count 10000]
The tests import measure() from here (tests/integration/test_hostile.py).
"""
import argparse
import heapq
import json
import math
import os
import select
import socket
import struct
import sys
import tempfile
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import nclib  # noqa: E402


class Recorder:
    """A UDP DNS server on 127.0.0.1 that records (port, id, name) of each query
    and answers A 192.0.2.x (TTL 300) after delay seconds.  Runs in step()."""

    def __init__(self, delay):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.delay = delay
        self.log = []           # (arrival, reply time, port, id, name)
        self.pending = []       # heap of (due, seq, reply, addr, index)
        self.seq = 0

    @staticmethod
    def _question_end(data):
        off = 12
        while off < len(data):
            n = data[off]
            if n == 0:
                return off + 5
            if n & 0xc0:
                return None
            off += 1 + n
        return None

    @staticmethod
    def _name(data):
        labels, off = [], 12
        while data[off]:
            labels.append(data[off + 1:off + 1 + data[off]].decode("ascii", "replace"))
            off += 1 + data[off]
        return ".".join(labels).lower()

    def _reply(self, data):
        end = self._question_end(data)
        if end is None or end > len(data):
            return None
        qid, flags = struct.unpack(">HH", data[:4])
        head = struct.pack(">HHHHHH", qid, 0x8180 | (flags & 0x0100), 1, 1, 0, 0)
        ans = struct.pack(">HHHIH", 0xc00c, 1, 1, 300, 4) + bytes(
            (192, 0, 2, 1 + (qid % 250)))
        return head + data[12:end] + ans

    def step(self, timeout):
        now = time.monotonic()
        if self.pending:
            timeout = max(0.0, min(timeout, self.pending[0][0] - now))
        r, _, _ = select.select([self.sock], [], [], timeout)
        now = time.monotonic()
        if r:
            for _ in range(256):
                try:
                    data, addr = self.sock.recvfrom(4096)
                except BlockingIOError:
                    break
                reply = self._reply(data)
                if reply is None:
                    continue
                qid = struct.unpack(">H", data[:2])[0]
                self.log.append([now, None, addr[1], qid, self._name(data)])
                heapq.heappush(self.pending, (now + self.delay, self.seq, reply, addr,
                                              len(self.log) - 1))
                self.seq += 1
        while self.pending and self.pending[0][0] <= now:
            _, _, reply, addr, i = heapq.heappop(self.pending)
            self.log[i][1] = time.monotonic()
            try:
                self.sock.sendto(reply, addr)
            except OSError:
                pass

    def close(self):
        self.sock.close()


def entropy(counter):
    n = sum(counter.values())
    return -sum(c / n * math.log2(c / n) for c in counter.values()) if n else 0.0


def figures(log):
    """The spread of (port, id) in a recorder's log."""
    ports = Counter(e[2] for e in log)
    ids = Counter(e[3] for e in log)
    pairs = Counter((e[2], e[3]) for e in log)
    # The most queries outstanding on one port at once (arrival to reply).
    events = []
    for arr, rep, port, _, _ in log:
        events.append((arr, 1, port))
        events.append((rep if rep is not None else float("inf"), -1, port))
    events.sort(key=lambda e: (e[0], e[1]))
    live, live_ports, max_live, max_on_port, max_ports_at_once = Counter(), 0, 0, 0, 0
    total = 0
    for _, d, port in events:
        live[port] += d
        total += d
        if d > 0 and live[port] == 1:
            live_ports += 1
        elif d < 0 and live[port] == 0:
            live_ports -= 1
        max_live = max(max_live, total)
        max_on_port = max(max_on_port, live[port])
        max_ports_at_once = max(max_ports_at_once, live_ports)
    # Repeated (port, id) pairs, and how many chance alone would give.
    repeats = sum(c - 1 for c in pairs.values())
    expected = sum(c * (c - 1) / 2 / 65536 for c in ports.values())
    return {
        "queries": len(log),
        "distinct_ports": len(ports),
        "distinct_ids": len(ids),
        "port_entropy_bits": round(entropy(ports), 2),
        "id_entropy_bits": round(entropy(ids), 2),
        "max_queries_one_port": max(ports.values()) if ports else 0,
        "max_in_flight": max_live,
        "max_in_flight_one_port": max_on_port,
        "max_ports_at_once": max_ports_at_once,
        "port_id_repeats": repeats,
        "port_id_repeats_expected": round(expected, 2),
    }


def run_lookups(d, rec, names, conns, depth, timeout=120):
    """Asks every name (IPv4) over conns connections with depth in flight on each,
    while rec serves; returns the statuses' counts."""
    socks = [nclib.connect(d, timeout=10) for _ in range(conns)]
    for s in socks:
        s.setblocking(False)
    todo = list(enumerate(names))
    todo.reverse()
    inflight = {s: 0 for s in socks}
    rbuf = {s: b"" for s in socks}
    statuses = Counter()
    done = 0
    deadline = time.monotonic() + timeout
    while done < len(names):
        if time.monotonic() > deadline:
            raise TimeoutError("%d of %d answered" % (done, len(names)))
        for s in socks:
            out = b""
            while todo and inflight[s] < depth:
                i, name = todo.pop()
                out += nclib.name_req(name, family=4, fid=i + 1)
                inflight[s] += 1
            if out:
                s.setblocking(True)
                s.sendall(out)
                s.setblocking(False)
        rec.step(0)
        r, _, _ = select.select(socks + [rec.sock], [], [], 0.002)
        for s in r:
            if s is rec.sock:
                continue
            try:
                chunk = s.recv(1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                raise ConnectionError("the daemon closed a connection")
            buf = rbuf[s] + chunk
            while len(buf) >= 12:
                n = struct.unpack(">I", buf[:4])[0]
                if len(buf) < n:
                    break
                statuses[struct.unpack(">H", buf[6:8])[0]] += 1
                inflight[s] -= 1
                done += 1
                buf = buf[n:]
            rbuf[s] = buf
    for s in socks:
        s.close()
    return statuses


def measure(build, count=10000, conns=8, depth=128, delay=0.02, modes=("pipelined", "sequential"),
            conf=""):
    """Starts a recorder and a daemon, asks count distinct names per mode; returns
    {mode: figures(...) plus "answered", "seconds"}."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="nc-spoof-") as tmp:
        for mode in modes:
            rec = Recorder(delay if mode == "pipelined" else 0.0)
            mdir = os.path.join(tmp, mode)
            os.mkdir(mdir)
            d = nclib.Daemon(build, mdir, conf_text="cache_size = %d\n%s" % (4 * count, conf),
                             upstream="127.0.0.1:%d" % rec.port)
            try:
                d.start()
                names = ["n%d.%s.spoof.test" % (i, mode[:3]) for i in range(count)]
                t0 = time.monotonic()
                if mode == "pipelined":
                    st = run_lookups(d, rec, names, conns, depth)
                else:
                    st = run_lookups(d, rec, names, 1, 1)
                secs = time.monotonic() - t0
                for _ in range(20):
                    rec.step(0.001)
                f = figures([e for e in rec.log if e[4].endswith(".spoof.test")])
                f["answered_ok"] = st.get(nclib.OK, 0)
                f["seconds"] = round(secs, 2)
                out[mode] = f
                if d.proc.poll() is not None:
                    raise RuntimeError("the daemon died: %s" % d.read_log()[-2000:])
            finally:
                rc = d.stop()
                rec.close()
            if rc != 0:
                raise RuntimeError("daemon exit status %s: %s" % (rc, d.read_log()[-2000:]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--conns", type=int, default=8)
    ap.add_argument("--depth", type=int, default=128)
    ap.add_argument("--delay-ms", type=float, default=20.0)
    ap.add_argument("--mode", choices=("pipelined", "sequential", "both"), default="both")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    modes = ("pipelined", "sequential") if a.mode == "both" else (a.mode,)
    res = measure(os.path.abspath(a.build), a.count, a.conns, a.depth, a.delay_ms / 1000, modes)
    if a.json:
        print(json.dumps(res, indent=2))
        return 0
    keys = list(next(iter(res.values())).keys())
    print("%-28s" % "" + "".join("%14s" % m for m in res))
    for k in keys:
        print("%-28s" % k + "".join("%14s" % res[m][k] for m in res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
