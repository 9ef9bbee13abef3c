#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/demo.sh - install, build, and run namecached in the foreground with
# this machine's /etc/hosts, on a socket under the build folder, while a
# second process asks it a few questions you can watch.  Ctrl-C stops it.
#
# NAMECACHE_SKIP_APT=1 skips the package install; --once stops after the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
once=0
[ "${1:-}" = "--once" ] && once=1

if [ "${NAMECACHE_SKIP_APT:-0}" != 1 ]; then
	scripts/deps.sh
fi
[ -d build ] || meson setup build
meson compile -C build

run=$top/build/demo
mkdir -p "$run"
sock=$run/socket
ctl="$top/build/cli/namecachectl --socket $sock"
export LD_LIBRARY_PATH=$top/build/nss-shim NAMECACHE_SOCKET=$sock

demo() {
	# Wait for the socket, then ask through the CLI and through the NSS module.
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
	sleep 0.2
	first=$(awk '!/^[[:space:]]*(#|$)/ { print $2; exit }' /etc/hosts)
	addr=$(awk '!/^[[:space:]]*(#|$)/ { print $1; exit }' /etc/hosts)
	say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
	say namecachectl query localhost "$first"
	$ctl query localhost "$first" || true
	say namecachectl query "$addr"
	$ctl query "$addr" || true
	say namecachectl --json query -4 localhost
	$ctl --json query -4 localhost || true
	say "getent -s namecache ahosts localhost      # a plain glibc program, through the NSS module"
	getent -s namecache ahosts localhost || true
	say "namecachectl query no-such-name.invalid   # exit status 1"
	$ctl query no-such-name.invalid || echo "(exit $?)"
	say namecachectl statistics
	$ctl statistics
	printf '\nnamecached keeps running: edit /etc/hosts and query again, or press Ctrl-C.\n'
	printf 'In another shell:  %s query NAME\n' "$ctl"
	if [ "$once" = 1 ]; then
		kill -TERM "$daemon_pid"
	fi
}

echo "Starting namecached on $sock with /etc/hosts (Ctrl-C stops it)"
build/daemon/namecached --config /dev/null --socket "$sock" --hosts-file /etc/hosts &
daemon_pid=$!
trap 'kill -TERM $daemon_pid 2>/dev/null; wait $daemon_pid 2>/dev/null; exit 0' INT TERM
demo &
wait "$daemon_pid"
