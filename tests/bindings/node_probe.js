// SPDX-License-Identifier: MIT
// tests/bindings/node_probe.js - the Node.js side of tests/bindings/test_node.py.
//
//   node node_probe.js PACKAGE diff CASES.json  -> JSON: per case, dns.lookup's
//        and namecache.lookup's outcome (and promises.lookup's), run one after
//        the other; then the counters
//   node node_probe.js PACKAGE pool HIT MISS NEGATIVE -> JSON: the order in
//        which four pbkdf2 jobs, dns.lookup and namecache's lookups called back
//   node node_probe.js PACKAGE faults N        -> a line protocol on stdin/stdout
//   node node_probe.js PACKAGE leak N NAME     -> JSON: RSS before and after
'use strict';

const crypto = require('crypto');
const dns = require('dns');
const fs = require('fs');
const readline = require('readline');

const namecache = require(process.argv[2]);
const mode = process.argv[3];

function outcome(err, address, family) {
  if (err) {
    return { error: { message: err.message, code: err.code, errno: err.errno,
      syscall: err.syscall, hostname: err.hostname } };
  }
  return family === undefined ? { result: address } : { result: [address, family] };
}

function both(name, options) {
  return new Promise((resolve) => {
    dns.lookup(name, options, (e1, a1, f1) => {
      const theirs = outcome(e1, a1, f1);
      const n = namecache.counters.answered;
      namecache.lookup(name, options, (e2, a2, f2) => {
        resolve({ name, options, dns: theirs, ours: outcome(e2, a2, f2),
          answered: namecache.counters.answered > n });
      });
    });
  });
}

function promised(name, options) {
  // (both throw at once for arguments they reject)
  const settle = (fn) => {
    try {
      return fn().then((r) => ({ result: r }), (e) => outcome(e));
    } catch (e) {
      return Promise.resolve(outcome(e));
    }
  };
  let n;
  return settle(() => dns.promises.lookup(name, options)).then((theirs) => {
    n = namecache.counters.answered;
    return settle(() => namecache.promises.lookup(name, options)).then((ours) =>
      ({ name, options, promise: true, dns: theirs, ours,
        answered: namecache.counters.answered > n }));
  });
}

async function diff(file) {
  const cases = JSON.parse(fs.readFileSync(file, 'utf8'));
  const out = [];
  for (const [name, options] of cases) {
    out.push(await both(name, options));
    if (options && typeof options === 'object' && !('hints' in options)) {
      out.push(await promised(name, options));
    }
  }
  // a lookup as net.connect makes it, through an http.Agent's lookup option
  process.stdout.write(JSON.stringify({ out, counters: namecache.counters }) + '\n');
}

function calibrate() {
  // iterations for about 0.75 s of one pbkdf2 job alone on this machine
  const t = process.hrtime.bigint();
  crypto.pbkdf2Sync('x', 'y', 20000, 32, 'sha256');
  const ns = Number(process.hrtime.bigint() - t);
  return Math.max(20000, Math.round(20000 * 0.75e9 / ns));
}

function pool(hit, miss, negative) {
  const events = [];
  const iterations = calibrate();
  const t0 = Date.now();
  const note = (what, extra) => events.push(Object.assign({ what, ms: Date.now() - t0 },
    extra || {}));
  for (let i = 0; i < 4; i++) {
    crypto.pbkdf2('secret', 'salt' + i, iterations, 32, 'sha256', () => note('pbkdf2'));
  }
  dns.lookup(hit, () => note('dns.lookup'));
  namecache.lookup(hit, (e, a) => note('hit', { error: e && e.code, address: a }));
  namecache.lookup(miss, (e, a) => note('miss', { error: e && e.code, address: a }));
  namecache.lookup(negative, (e) => note('negative', { error: e && e.code }));
  namecache.promises.lookup(miss, { all: true }).then((r) => note('promise', { n: r.length }));
  const timer = setInterval(() => {
    if (events.filter((e) => e.what === 'pbkdf2').length === 4 &&
        events.some((e) => e.what === 'dns.lookup')) {
      clearInterval(timer);
      process.stdout.write(JSON.stringify({ events, iterations,
        counters: namecache.counters }) + '\n');
    }
  }, 10);
}

function faults(n) {
  // "submit K": K lookups of distinct negative names, then "submitted";
  // "wait": when every one has called back, "answers JSON".
  const answers = {};
  let next = 0;
  const rl = readline.createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    const [cmd, arg] = line.split(' ');
    if (cmd === 'submit') {
      for (let i = 0; i < Number(arg); i++) {
        const id = next++;
        namecache.lookup('nosuch' + id + '.test.example', (e) => {
          (answers[id] = answers[id] || []).push(e ? e.code : 'ok');
        });
      }
      process.stdout.write('submitted ' + namecache.pending() + '\n');
    } else if (cmd === 'wait') {
      const timer = setInterval(() => {
        if (Object.keys(answers).length === next) {
          clearInterval(timer);
          process.stdout.write('answers ' + JSON.stringify({ answers,
            counters: namecache.counters }) + '\n');
        }
      }, 5);
    } else if (cmd === 'quit') {
      rl.close();
      process.stdin.destroy();
      // nothing of namecache's may keep the process alive now
      setTimeout(() => {
        const left = process._getActiveHandles().filter((h) => h !== process.stdout &&
          h !== process.stderr);
        if (left.length) {
          process.stderr.write('still active: ' + left.map((h) => h.constructor.name) + '\n');
          process.exit(3);
        }
      }, 2000).unref();
    }
  });
}

function leak(n, name) {
  let k = 0;
  let before = 0;
  const t = Date.now();
  const loop = () => {
    namecache.lookup(name, (e) => {
      if (e) throw e;
      k++;
      if (k === 100000) {
        global.gc();
        before = process.memoryUsage().rss;
      }
      if (k < n + 100000) {
        if (k % 1000 === 0) setImmediate(loop);
        else loop();
      } else {
        global.gc();
        process.stdout.write(JSON.stringify({ before, after: process.memoryUsage().rss,
          seconds: (Date.now() - t) / 1000, counters: namecache.counters }) + '\n');
      }
    });
  };
  loop();
}

if (mode === 'diff') diff(process.argv[4]);
else if (mode === 'pool') pool(process.argv[4], process.argv[5], process.argv[6]);
else if (mode === 'faults') faults();
else if (mode === 'leak') leak(Number(process.argv[4]), process.argv[5]);
else {
  process.stderr.write('node_probe.js: unknown mode\n');
  process.exit(2);
}
