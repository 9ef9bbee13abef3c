// SPDX-License-Identifier: MIT
// namecache: dns.lookup's answers from namecached, never on libuv's thread pool.
//
//   const namecache = require('namecache');
//   namecache.lookup('example.org', { all: true }, (err, addresses) => ...);
//   await namecache.promises.lookup('example.org');
//   http.get({ host: 'example.org', lookup: namecache.lookup }, ...);
//
// lookup(hostname[, options], callback) has dns.lookup's contract: options
// family, all, hints, order, verbatim; the same results, in the same order
// (getaddrinfo's, sorted by the library as glibc sorts); the same errors
// (code ENOTFOUND, EAI_AGAIN..., errno, hostname, syscall).  A name in the
// daemon's shared cache is answered on the main thread from memory; a miss
// goes over one non-blocking connection watched by libuv.  The callback is
// always called asynchronously.  What namecache cannot answer exactly
// (numeric and non-ASCII names, the V4MAPPED and ALL hints, arguments
// dns.lookup would reject, no daemon) is handed to dns.lookup itself.
'use strict';

const dns = require('dns');

let addon = null;
let loadError = null;
for (const path of ['./namecache.node', './build/Release/namecache.node']) {
  try {
    addon = require(path);
    break;
  } catch (e) {
    loadError = loadError || e;
  }
}

const ADDRCONFIG = dns.ADDRCONFIG;
// What getaddrinfo takes for a number (inet_aton's forms) or an IPv6 address.
const NUMERIC = /^(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}$|:/i;
// Names whose IDNA form is themselves (lower-cased): everything else to dns.lookup.
const PLAIN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const ORDERS = ['verbatim', 'ipv4first', 'ipv6first'];
const UV_EAI_NONAME = -3008;
const UV_EAI_NODATA = -3007;
const UV_EAI_AGAIN = -3001;

const counters = { answered: 0, fromShared: 0, fallbacks: 0 };

// The options we answer ourselves, or null for "dns.lookup decides".
function parse(hostname, options, promise) {
  if (addon === null || typeof hostname !== 'string' || !PLAIN.test(hostname) ||
      NUMERIC.test(hostname) || hostname.length > 1024) {
    return null;
  }
  const p = { family: 0, hints: 0, all: false, order: dns.getDefaultResultOrder() };
  if (options === undefined || options === null) return p;
  if (typeof options === 'number') {
    if (options !== 0 && options !== 4 && options !== 6) return null;
    p.family = options;
    return p;
  }
  if (typeof options !== 'object') return null;
  const { family, hints, all, verbatim, order } = options;
  if (family != null) {
    if (family === 0 || family === 4 || family === 6) p.family = family;
    else if (!promise && family === 'IPv4') p.family = 4;
    else if (!promise && family === 'IPv6') p.family = 6;
    else return null;
  }
  if (hints != null) {
    if (hints !== 0 && hints !== ADDRCONFIG) return null;
    p.hints = hints;
  }
  if (all != null) {
    if (typeof all !== 'boolean') return null;
    p.all = all;
  }
  if (verbatim != null) {
    if (typeof verbatim !== 'boolean') return null;
    p.order = verbatim ? 'verbatim' : 'ipv4first';
  }
  if (order != null) {
    if (!ORDERS.includes(order)) return null;
    p.order = order;
  }
  return p;
}

function dnsError(code, hostname) {
  const errno = code === -1 ? UV_EAI_NONAME : code === -2 ? UV_EAI_NODATA : UV_EAI_AGAIN;
  const name = code === -3 ? 'EAI_AGAIN' : 'ENOTFOUND';
  const err = new Error(`getaddrinfo ${name} ${hostname}`);
  err.errno = errno;
  err.code = name;
  err.syscall = 'getaddrinfo';
  err.hostname = hostname;
  return err;
}

function ordered(list, order) {
  if (order === 'verbatim') return list;
  const first = order === 'ipv4first' ? 4 : 6;
  return list.filter((a) => a.family === first).concat(list.filter((a) => a.family !== first));
}

// out: a list, a negative code, or null (dns.lookup decides).
function deliver(hostname, p, out, callback, fallback) {
  if (out === null) {
    counters.fallbacks++;
    fallback();
    return;
  }
  counters.answered++;
  if (typeof out === 'number') {
    callback(dnsError(out, hostname));
    return;
  }
  const list = ordered(out, p.order);
  if (p.all) callback(null, list);
  else callback(null, list[0].address, list[0].family);
}

function lookup(hostname, options, callback) {
  let opts = options;
  let cb = callback;
  if (typeof options === 'function') {
    cb = options;
    opts = undefined;
  }
  const p = typeof cb === 'function' ? parse(hostname, opts, false) : null;
  if (p === null) return dns.lookup(hostname, options, callback);
  const flags = p.hints & ADDRCONFIG ? 1 : 0;
  const fallback = () => dns.lookup(hostname, options, callback);
  const hit = addon.cached(hostname, p.family, flags);
  if (hit !== undefined) {
    counters.fromShared++;
    process.nextTick(deliver, hostname, p, hit, cb, fallback);
    return {};
  }
  if (!addon.submit(hostname, p.family, flags, (out) => deliver(hostname, p, out, cb,
                                                                fallback))) {
    counters.fallbacks++;
    return dns.lookup(hostname, options, callback);
  }
  return {};
}

function promisesLookup(hostname, options) {
  const p = parse(hostname, options, true);
  if (p === null) return dns.promises.lookup(hostname, options);
  return new Promise((resolve, reject) => {
    const fallback = () => dns.promises.lookup(hostname, options).then(resolve, reject);
    const done = (out) => deliver(hostname, p, out, (err, address, family) => {
      if (err) reject(err);
      else resolve(p.all ? address : { address, family });
    }, fallback);
    const hit = addon.cached(hostname, p.family, p.hints & ADDRCONFIG ? 1 : 0);
    if (hit !== undefined) {
      counters.fromShared++;
      done(hit);
    } else if (!addon.submit(hostname, p.family, p.hints & ADDRCONFIG ? 1 : 0, done)) {
      counters.fallbacks++;
      fallback();
    }
  });
}

module.exports = {
  lookup,
  promises: { lookup: promisesLookup },
  // Whether the addon loaded (else every lookup is dns.lookup's), and why not.
  available: addon !== null,
  loadError: addon === null ? loadError : null,
  // What was answered how so far: for tests and benchmarks.
  counters,
  pending: () => (addon ? addon.pending() : 0),
};
