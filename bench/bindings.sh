#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/bindings.sh - the Node.js and Python bindings against their runtimes' own lookups.
#
#   bench/bindings.sh (as root) [--build DIR] [--docs DIR]
#
# Builds the release build (DIR, default build-bench/, as bench/run.sh),
# fetches the anchor cacheable-lookup 6 from npm into this run's folder
# (left out if npm cannot), then measures inside tests/dns/in-netns.sh (a
# private network namespace holding only lo, nsd on 127.0.0.1:53) and
# writes docs/benchmarks-bindings.md.  About 3 minutes on 2 cores.
# BENCH_ROUNDS, BENCH_IDLE_N... shorten it (bench/bindings/*_bench.*).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build-bench
docs=$top/docs
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--docs) docs=$2; shift 2 ;;
	*) echo "bindings.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "bindings.sh: needs root (namespaces)" >&2; exit 1; }
work=$(mktemp -d /tmp/namecache-bench-bindings.XXXXXX)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
[ -f "$build/build.ninja" ] || meson setup "$build" "$top" -Dbuildtype=release -Dtests=disabled >/dev/null
meson compile -C "$build" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
[ -f "$build/client-lib/node/namecache.node" ] && [ -d "$build/client-lib/python/namecache" ] ||
	{ echo "bindings.sh: $build has no bindings (node_api.h, python3-dev)" >&2; exit 1; }
cacheable=-
# The anchor, installed before the namespace (the registry is the only
# address this script reaches, and only for this install).
if command -v npm >/dev/null && (cd "$work" && timeout 120 npm install --no-save --silent \
	--prefix "$work/npm" cacheable-lookup@6 >/dev/null 2>&1); then
	cacheable=$work/npm
else
	echo "bindings.sh: could not install cacheable-lookup: its column is left out" >&2
fi
printf '.\t3600\tIN\tSOA\tns1.test.example. hostmaster.test.example. 1 3600 600 86400 60\n.\t3600\tIN\tNS\tns1.test.example.\n' \
	>"$work/root.zone"
chmod 644 "$work/root.zone"
"$top/tests/dns/in-netns.sh" --zone ".=$work/root.zone" --no-rrl -- \
	env BENCH_CACHEABLE="$cacheable" /usr/bin/python3 "$top/bench/bindings/run.py" measure \
	"$build" "$work"
/usr/bin/python3 "$top/bench/bindings/run.py" report "$work/bindings.json" \
	"$docs/benchmarks-bindings.md"
