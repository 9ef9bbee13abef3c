#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/bindings/py_bench.py - namecache.getaddrinfo and namecache.aio against the standard library.

    PYTHONPATH=BUILD/client-lib/python py_bench.py NAME... > results.json

For each name: namecache.getaddrinfo against socket.getaddrinfo, called
one after another (each call timed); namecache.aio.getaddrinfo against
loop.getaddrinfo, awaited one after another, idle and with the loop's
default executor held (every one of its threads busy with 50 ms jobs,
started again as each ends).  Rounds alternate the peers.  Bounded: a
fixed count per round, a time limit per busy measurement.
"""
import asyncio
import concurrent.futures
import json
import os
import socket
import sys
import time

import namecache
import namecache.aio

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
FAST_N = int(os.environ.get("BENCH_IDLE_N", "20000"))
SLOW_N = int(os.environ.get("BENCH_SLOW_N", "2000"))
BUSY_N = int(os.environ.get("BENCH_BUSY_N", "400"))
BUSY_LIMIT = float(os.environ.get("BENCH_BUSY_LIMIT_MS", "4000")) / 1000
PORT, TYPE = 443, socket.SOCK_STREAM


def stats(lat, elapsed):
    lat.sort()
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))]
    return {"n": len(lat), "median": q(0.5), "p99": q(0.99), "max": lat[-1],
            "per_s": len(lat) / elapsed}


def sync_run(fn, host, n):
    lat = []
    clock = time.perf_counter_ns
    t0 = clock()
    for _ in range(n):
        t = clock()
        fn(host, PORT, type=TYPE)
        lat.append(clock() - t)
    return stats(lat, (clock() - t0) / 1e9)


async def aio_run(fn, host, n, limit=None):
    lat = []
    clock = time.perf_counter_ns
    t0 = clock()
    while len(lat) < n and (limit is None or clock() - t0 < limit * 1e9):
        t = clock()
        await fn(host, PORT, type=TYPE)
        lat.append(clock() - t)
    return stats(lat, (clock() - t0) / 1e9)


async def aio_rounds(names, out):
    loop = asyncio.get_running_loop()
    workers = min(32, (os.cpu_count() or 1) + 4)    # the default executor's size
    ex = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
    loop.set_default_executor(ex)
    peers = {"namecache.aio": namecache.aio.getaddrinfo,
             "loop.getaddrinfo": lambda h, p, type: loop.getaddrinfo(h, p, type=type)}
    busy = [False]

    async def hog():
        while busy[0]:
            await loop.run_in_executor(None, time.sleep, 0.05)
    for h in names:
        for fn in peers.values():
            await aio_run(fn, h, 10)
    for _ in range(ROUNDS):
        for h in names:
            for name, fn in peers.items():
                fast = name == "namecache.aio"
                idle = await aio_run(fn, h, FAST_N if fast else SLOW_N)
                busy[0] = True
                hogs = [asyncio.ensure_future(hog()) for _ in range(workers)]
                await asyncio.sleep(0.02)
                loaded = await aio_run(fn, h, BUSY_N if fast else 20, BUSY_LIMIT)
                busy[0] = False
                await asyncio.gather(*hogs)
                out.setdefault(h + "|" + name, []).append({"idle": idle, "busy": loaded})
    ex.shutdown()
    return workers


def main():
    names = sys.argv[1:]
    res = {}
    peers = {"namecache.getaddrinfo": namecache.getaddrinfo,
             "socket.getaddrinfo": socket.getaddrinfo}
    for h in names:
        for fn in peers.values():
            sync_run(fn, h, 10)
    for _ in range(ROUNDS):
        for h in names:
            for name, fn in peers.items():
                n = FAST_N if name.startswith("namecache") else SLOW_N
                res.setdefault(h + "|" + name, []).append({"idle": sync_run(fn, h, n)})
    workers = asyncio.run(aio_rounds(names, res))
    json.dump({"rounds": ROUNDS, "executor_workers": workers, "results": res,
               "counters": namecache.counters()}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
