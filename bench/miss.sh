#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/miss.sh - only the "miss" row of bench/run.sh, in about a minute:
# a new name each call, through namecache (shared = yes, the daemon asks
# nsd) and through glibc's own dns module (asks nsd itself), in alternating
# rounds so that the VM's drift is not read as a difference.
#
#   bench/miss.sh (as root) [BUILD_DIR] [CALLS_PER_ROUND] [ROUNDS]
#
# As bench/run.py: nsd on 127.0.0.1:53 in a private network namespace
# (tests/dns/in-netns.sh, response rate limiting off), a wildcard with one A
# record and no AAAA, resolv.conf "options ndots:1 timeout:1 attempts:2" and
# no search list.  Prints each round's medians (getaddrinfo AF_UNSPEC and
# gethostbyname2_r AF_INET) and, per function, the median of the rounds'
# medians and their ratio.  With MISS_STRACE=1 it also counts the daemon's
# system calls over one more round of namecache misses (strace -c -p) and
# the client's over one of glibc's (strace -f -c), each per lookup.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
count=${2:-400}
rounds=${3:-5}
tmp=$(mktemp -d /tmp/nc-miss.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/bench.example.zone" <<'ZONE'
$TTL 3600
bench.example.	3600 IN SOA ns.bench.example. admin.bench.example. 1 3600 600 86400 3600
bench.example.	3600 IN NS ns.bench.example.
ns.bench.example.	3600 IN A 127.0.0.1
*.bench.example.	3600 IN A 192.0.2.99
ZONE

cat > "$tmp/inner.sh" <<'INNER'
set -eu
build=$1 count=$2 rounds=$3 top=$4 dir=$DNSENV_DIR
echo "shared = yes" > "$dir/nc.conf"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' > "$dir/hosts"
"$build/daemon/namecached" --config "$dir/nc.conf" --socket "$dir/sock" \
	--hosts-file "$dir/hosts" --resolv-conf /etc/resolv.conf --log-level warning \
	--nsswitch-conf "$top/tests/files-dns.nsswitch.conf" </dev/null >"$dir/daemon.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 500); do [ -S "$dir/sock" ] && break; sleep 0.02; done
export LD_LIBRARY_PATH="$build/nss-shim" NAMECACHE_SOCKET="$dir/sock"
lookup="$build/bench/nss-lookup"
"$lookup" namecache www.bench.example 20 >/dev/null
"$lookup" dns www.bench.example 20 >/dev/null
for r in $(seq "$rounds"); do
	"$lookup" namecache "r${r}nc%d.bench.example" "$count" 0 | sed "s/^/round $r namecache /"
	"$lookup" dns "r${r}gd%d.bench.example" "$count" 0 | sed "s/^/round $r glibc-dns /"
done
if [ "${MISS_STRACE:-0}" = 1 ]; then
	strace -f -c -o "$dir/daemon.strace" -p "$pid" 2>"$dir/strace.err" &
	spid=$!
	for _ in $(seq 100); do grep -q attached "$dir/strace.err" 2>/dev/null && break; sleep 0.05; done
	sleep 0.2
	"$lookup" -f gai namecache "stnc%d.bench.example" "$count" 0 >/dev/null
	kill -INT "$spid"
	wait "$spid" || true
	echo "### daemon's system calls over $count namecache misses (getaddrinfo)"
	cat "$dir/daemon.strace"
	strace -f -c -o "$dir/glibc.strace" "$lookup" -f gai dns "stgd%d.bench.example" "$count" 0 >/dev/null
	echo "### glibc dns client's system calls over $count misses (getaddrinfo; includes process start)"
	cat "$dir/glibc.strace"
fi
kill -TERM "$pid"
wait "$pid" || true
INNER
"$top/tests/dns/in-netns.sh" --search "" --options "ndots:1 timeout:1 attempts:2" --no-rrl \
	--zone "bench.example.=$tmp/bench.example.zone" -- \
	bash "$tmp/inner.sh" "$build" "$count" "$rounds" "$top" | tee "$tmp/out"
/usr/bin/python3 - "$tmp/out" <<'PY'
import re, sys
med = {}
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ (\S+)\s+(\S+).*median\s+([\d.]+) us", line)
    if m:
        med.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
for f in ("getaddrinfo", "gethostbyname2_r"):
    nc, gd = med.get(("namecache", f)), med.get(("glibc-dns", f))
    if not nc or not gd:
        continue
    a, b = sorted(nc)[len(nc) // 2], sorted(gd)[len(gd) // 2]
    print("%-17s namecache %7.1f us   glibc dns %7.1f us   ratio %.2fx" % (f, a, b, a / b))
PY
