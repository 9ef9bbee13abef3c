#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/load.sh - the bounded load test (issue 7) in one command.
#
#   bench/load.sh (as root) [--build DIR] [--docs FILE] [bench/load.py options...]
#
# Builds a release build of namecache when needed (meson setup DIR
# --buildtype=release; default DIR is build-load-rel/ at the top of the
# tree), then runs bench/load.py: an nsd and a namecached of its own on
# loopback, 100 client processes of mixed hits, misses and admin reads for
# 60 s, and writes the report to docs/load.md (or FILE).  About 90 s.
# Everything it starts (nsd, namecached, the client processes) is stopped
# by its id before it returns.  Options after these go to bench/load.py,
# e.g. --seconds 5 --check (the CI variant) or --note TEXT.
#
# The network rule: nsd listens on 127.0.0.1 only and the daemon gets its
# own resolv.conf and --upstream 127.0.0.1:PORT.  As root, the run also
# happens in a private network namespace holding only `lo`, so nothing can
# leave the machine even by mistake.  Root is otherwise not needed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build-load-rel
docs=$top/docs/load.md
cmd="bench/load.sh $*"
rest=()
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--docs) docs=$2; shift 2 ;;
	-h|--help) sed -n '3,19p' "$0"; exit 0 ;;
	*) rest+=("$1"); shift ;;
	esac
done
log() { echo "[load.sh $(date +%H:%M:%S)] $*" >&2; }

if [ ! -f "$build/build.ninja" ]; then
	log "meson setup $build --buildtype=release"
	meson setup "$build" --buildtype=release >/dev/null
fi
log "building in $build"
ninja -C "$build" daemon/namecached cli/namecachectl bench/load >/dev/null

run=(/usr/bin/python3 "$top/bench/load.py" --build "$build" --docs "$docs" ${rest[@]+"${rest[@]}"})
export NAMECACHE_LOAD_COMMAND="${cmd% }"
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null; then
	log "running in a private network namespace (lo only)"
	# shellcheck disable=SC2016
	exec unshare --net -- /bin/sh -c 'ip link set lo up && exec "$@"' sh "${run[@]}"
fi
exec "${run[@]}"
