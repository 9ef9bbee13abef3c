// SPDX-License-Identifier: MIT
// bench/bindings/node_bench.js - namecache.lookup against dns.lookup and cacheable-lookup.
//
//   node node_bench.js PACKAGE CACHEABLE_DIR|- NAME... > results.json
//
// For each name and each lookup (namecache, dns.lookup, cacheable-lookup
// when CACHEABLE_DIR holds it), idle and with libuv's pool held by four
// pbkdf2 jobs that start again as each ends: one lookup after another,
// each timed from the call to its callback.  Rounds alternate the
// lookups.  cacheable-lookup asks nsd on 127.0.0.1 (its own c-ares
// resolver, never the machine's servers).  Bounded: a fixed count per
// round, and a time limit per busy measurement.
'use strict';

const crypto = require('crypto');
const dns = require('dns');

const namecache = require(process.argv[2]);
const cacheDir = process.argv[3];
const names = process.argv.slice(4);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const IDLE_N = Number(process.env.BENCH_IDLE_N || 20000);
const SLOW_N = Number(process.env.BENCH_SLOW_N || 2000);
const BUSY_N = Number(process.env.BENCH_BUSY_N || 400);
const BUSY_LIMIT_MS = Number(process.env.BENCH_BUSY_LIMIT_MS || 4000);

const peers = {
  namecache: (h, cb) => namecache.lookup(h, cb),
  'dns.lookup': (h, cb) => dns.lookup(h, cb),
};
if (cacheDir !== '-') {
  try {
    const CacheableLookup = require(require.resolve('cacheable-lookup', { paths: [cacheDir] }));
    const resolver = new dns.promises.Resolver();
    resolver.setServers(['127.0.0.1']);
    const cl = new CacheableLookup({ resolver, fallbackDuration: 3600 });
    peers['cacheable-lookup'] = (h, cb) => cl.lookup(h, cb);
  } catch (e) {
    process.stderr.write('node_bench.js: no cacheable-lookup: ' + e.message + '\n');
  }
}

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

// n lookups, one after another: per-call latencies (ns), and lookups/s.
function run(fn, host, n, limitMs) {
  return new Promise((resolve) => {
    const lat = [];
    const t0 = process.hrtime.bigint();
    let errors = 0;
    const one = () => {
      const t = process.hrtime.bigint();
      fn(host, (err) => {
        lat.push(Number(process.hrtime.bigint() - t));
        if (err) errors++;
        const elapsed = Number(process.hrtime.bigint() - t0);
        if (lat.length < n && (!limitMs || elapsed < limitMs * 1e6)) {
          // a macrotask now and then, as a server's loop would give
          if (lat.length % 256 === 0) setImmediate(one);
          else one();
        } else {
          lat.sort((a, b) => a - b);
          resolve({ n: lat.length, errors, median: quantile(lat, 0.5), p99: quantile(lat, 0.99),
            max: lat[lat.length - 1], per_s: lat.length / (elapsed / 1e9) });
        }
      });
    };
    one();
  });
}

// Four pbkdf2 jobs on libuv's four threads, each started again as it ends.
let busy = false;
let iterations = 0;
let inFlight = 0;
function job() {
  inFlight++;
  crypto.pbkdf2('secret', 'salt', iterations, 32, 'sha256', () => {
    inFlight--;
    if (busy) job();
  });
}

function drained() {
  return new Promise((resolve) => {
    const wait = () => (inFlight === 0 ? resolve() : setTimeout(wait, 5));
    wait();
  });
}

async function main() {
  const t = process.hrtime.bigint();
  crypto.pbkdf2Sync('x', 'y', 20000, 32, 'sha256');
  // each job about 100 ms alone: a lookup that waits for a thread waits that long
  iterations = Math.max(20000, Math.round(20000 * 1e8 / Number(process.hrtime.bigint() - t)));
  const out = { iterations, rounds: ROUNDS, results: {} };
  for (const h of names) for (const p of Object.keys(peers)) await run(peers[p], h, 10);
  for (let r = 0; r < ROUNDS; r++) {
    for (const h of names) {
      for (const p of Object.keys(peers)) {
        const fast = p !== 'dns.lookup';
        const idle = await run(peers[p], h, fast ? IDLE_N : SLOW_N);
        busy = true;
        for (let i = 0; i < 4; i++) job();
        await new Promise((res) => setTimeout(res, 20));
        const loaded = await run(peers[p], h, fast ? BUSY_N : 20, BUSY_LIMIT_MS);
        busy = false;
        await drained();
        const key = h + '|' + p;
        (out.results[key] = out.results[key] || []).push({ idle, busy: loaded });
      }
    }
  }
  out.counters = namecache.counters;
  process.stdout.write(JSON.stringify(out) + '\n');
}

main();
