#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/hosts-scale.sh - lookup latency through the NSS module at 10 and at
# 1,000,000 hosts lines, beside glibc's files module on the same files, in
# one run.  Usage: bench/hosts-scale.sh [BUILD_DIR]  (root: uses unshare -m)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/nc-bench.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

gen() {	# gen FILE LINES
	/usr/bin/python3 - "$1" "$2" <<'PY'
import sys
n = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    for i in range(n):
        f.write("10.%d.%d.%d host%d.example.com host%d\n" % (i >> 16, (i >> 8) & 255, i & 255, i, i))
PY
}

gen "$tmp/hosts10" 10
gen "$tmp/hosts1m" 1000000
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' > "$tmp/resolv.conf"
for n in 10 1m; do
	# Only hosts names are asked; DNS stays on loopback all the same.
	"$build/daemon/namecached" --config /dev/null --socket "$tmp/sock$n" \
		--hosts-file "$tmp/hosts$n" --log-level warning \
		--resolv-conf "$tmp/resolv.conf" --upstream 127.0.0.1:1 \
		--nsswitch-conf "$src/tests/files-dns.nsswitch.conf" &
	pids+=($!)
done
for n in 10 1m; do
	for _ in $(seq 600); do [ -S "$tmp/sock$n" ] && break; sleep 0.05; done
done
ctl="$build/cli/namecachectl"
echo "## hosts index load (namecachectl status)"
for n in 10 1m; do
	"$ctl" --socket "$tmp/sock$n" --json status | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
print("- %s: %d lines, loaded in %.1f ms, index %d bytes (%.1f bytes/line)" % (
    sys.argv[1], s["hosts_lines"], s["hosts_load_usec"] / 1000, s["hosts_memory_bytes"],
    s["hosts_memory_bytes"] / max(1, s["hosts_lines"])))' "$n"
done
echo
echo "## lookup of the last name, through getaddrinfo and gethostbyname2_r"
export LD_LIBRARY_PATH="$build/nss-shim"
NAMECACHE_SOCKET="$tmp/sock10" "$build/bench/nss-lookup" namecache host9 2000 | sed 's/^/namecache, 10 lines:    /'
NAMECACHE_SOCKET="$tmp/sock1m" "$build/bench/nss-lookup" namecache host999999 2000 | sed 's/^/namecache, 1M lines:    /'
unshare -m sh -c "mount --bind $tmp/hosts10 /etc/hosts && $build/bench/nss-lookup files host9 2000" | sed 's/^/glibc files, 10 lines:  /'
unshare -m sh -c "mount --bind $tmp/hosts1m /etc/hosts && $build/bench/nss-lookup files host999999 20" | sed 's/^/glibc files, 1M lines:  /'
