// SPDX-License-Identifier: MIT
// tests/dnslisten/noderesolve.js - Node's dns.resolve* (c-ares) against the listener.
//
//   node noderesolve.js SERVER OP NAME [OP NAME]...
//
// SERVER goes to dns.setServers() ("127.0.0.1:PORT"); OP is 4
// (dns.resolve4), 6 (resolve6) or mx (resolveMx).  One JSON line each:
// {"op", "name", "result": [...], "code": null or the error code}.
'use strict';
const dns = require('dns');

const [server, ...rest] = process.argv.slice(2);
if (!server || rest.length === 0 || rest.length % 2 !== 0) {
	console.error('usage: node noderesolve.js SERVER OP NAME [OP NAME]...');
	process.exit(2);
}
dns.setServers([server]);

// The callback API, dns.resolve4 and its siblings, on the servers just set.
const call = (fn, n) => new Promise((resolve, reject) =>
	fn(n, (err, v) => (err ? reject(err) : resolve(v))));
const ops = {
	'4': (n) => call(dns.resolve4, n),
	'6': (n) => call(dns.resolve6, n),
	mx: (n) => call(dns.resolveMx, n).then(
		(l) => l.map((m) => m.priority + ' ' + m.exchange)),
};

(async () => {
	if (dns.getServers().join(' ') !== server)
		throw new Error('setServers: servers are ' + dns.getServers().join(' '));
	for (let i = 0; i < rest.length; i += 2) {
		const op = rest[i], name = rest[i + 1];
		if (!ops[op]) {
			console.error('noderesolve.js: unknown op ' + op);
			process.exit(2);
		}
		let result = [], code = null;
		try {
			result = await ops[op](name);
		} catch (e) {
			code = e.code || String(e);
		}
		console.log(JSON.stringify({ op, name, result, code }));
	}
})().catch((e) => { console.error(e); process.exit(1); });
