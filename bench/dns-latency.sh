#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/dns-latency.sh - DNS lookup latency, one run, side by side, on a
# private loopback (tests/dns/in-netns.sh: nsd on 127.0.0.1:53):
#   - a cached hit through namecache;
#   - a miss through namecache (a new name each call: the daemon asks nsd);
#   - the same kind of miss through glibc's own dns module.
# Usage: bench/dns-latency.sh [BUILD_DIR] [COUNT]   (root)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
count=${2:-2000}
tmp=$(mktemp -d /tmp/nc-dnsbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Every name under bench.example exists: a wildcard, so each call can be a miss.
cat > "$tmp/bench.example.zone" <<'ZONE'
$TTL 300
bench.example.	3600 IN SOA ns.bench.example. admin.bench.example. 1 3600 600 86400 60
bench.example.	3600 IN NS ns.bench.example.
ns.bench.example.	3600 IN A 127.0.0.1
*.bench.example.	300 IN A 192.0.2.99
*.bench.example.	300 IN AAAA 2001:db8::99
ZONE

cat > "$tmp/inner.sh" <<'INNER'
set -eu
build=$1 count=$2 top=$3 dir=$DNSENV_DIR
"$build/daemon/namecached" --config /dev/null --socket "$dir/sock" \
	--hosts-file /dev/null --resolv-conf /etc/resolv.conf --log-level warning \
	--nsswitch-conf "$top/tests/files-dns.nsswitch.conf" </dev/null >"$dir/daemon.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -S "$dir/sock" ] && break; sleep 0.02; done
export LD_LIBRARY_PATH="$build/nss-shim" NAMECACHE_SOCKET="$dir/sock"
"$build/bench/nss-lookup" namecache www.bench.example 20 >/dev/null
echo "### cached hit, through namecache"
"$build/bench/nss-lookup" namecache www.bench.example "$count"
echo "### miss, through namecache (the daemon asks nsd)"
"$build/bench/nss-lookup" namecache 'nc%d.bench.example' "$count" 0
echo "### miss, through glibc's dns module (asks nsd itself)"
"$build/bench/nss-lookup" dns 'gl%d.bench.example' "$count" 0
kill -TERM "$pid"
wait "$pid"
INNER
"$top/tests/dns/in-netns.sh" --search "" --options "timeout:1 attempts:2" \
	--zone "bench.example.=$tmp/bench.example.zone" -- bash "$tmp/inner.sh" "$build" "$count" "$top"
