#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/chaos.sh - the chaos soak (issue 33), as long as you like.
#
#   bench/chaos.sh (as root) [--build DIR] [--seconds N] [--seed S] [--check] [--keep DIR]
#
# Builds what the soak needs in DIR (default build/ at the top of the
# tree; configured with meson's defaults when it is not there), then runs
# tests/chaos/chaos.py for N seconds (default 300): every front end of
# namecached at once (the NSS module, glibc's nscd client, the DNS
# listener over UDP and TCP, libnamecache and its Python binding, the
# monitor) while the daemon is SIGKILLed and restarted, reloaded, its
# hosts file rewritten and its upstream failing and recovering.  It prints
# the lookups per front end, wrong: N, hangs: N, the daemon's RSS over
# time, the restarts, reloads, rewrites and upstream failures; what "wrong"
# and "hang" mean is written at the top of tests/chaos/chaos.py.  --check
# makes it exit 1 on any of them, as the meson test (chaos-soak, 40 s) does.
#
# Everything runs in private mount and network namespaces (only lo):
# nothing leaves the machine, and /etc and /run are never written.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
seconds=300
rest=()
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	*) rest+=("$1"); shift ;;
	esac
done
log() { echo "[chaos.sh $(date +%H:%M:%S)] $*" >&2; }
if [ "$(id -u)" != 0 ]; then
	log "needs root (private mount and network namespaces)"
	exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
	log "meson setup $build"
	meson setup "$build" >/dev/null
fi
log "building in $build"
ninja -C "$build" >/dev/null
log "soaking for $seconds s"
exec /usr/bin/python3 "$top/tests/chaos/chaos.py" --build "$build" --seconds "$seconds" \
	${rest[@]+"${rest[@]}"}
