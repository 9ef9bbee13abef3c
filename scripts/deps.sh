#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/deps.sh - install the Debian 12 packages namecache builds and tests with.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: run as root (apt-get install)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Some packages' postinst edit /etc/nsswitch.conf (libnss-mymachines, which
# systemd-container recommends, libnss-myhostname, libnss-mdns): the tests
# must not change what this machine's own lookups do.  Installs here go
# without recommends, and whatever an install changed there is put back.
nsswitch_saved=$(mktemp)
cp -p /etc/nsswitch.conf "$nsswitch_saved" 2>/dev/null || true
restore_nsswitch() {
	if [ -s "$nsswitch_saved" ] && ! cmp -s "$nsswitch_saved" /etc/nsswitch.conf; then
		echo "deps.sh: an install changed /etc/nsswitch.conf; putting it back" >&2
		cat "$nsswitch_saved" > /etc/nsswitch.conf
	fi
	rm -f "$nsswitch_saved"
}
trap restore_nsswitch EXIT
# systemd: systemd-analyze and systemd-socket-activate for the unit tests (it
# is not started: installing it in a container changes no running system);
# man-db: systemd-analyze verify checks Documentation= with man;
# debhelper, dpkg-dev, lintian: the Debian packages' build and check;
# python3-dev: the CPython extension (client-lib/python);
# valgrind: the daemon's integration tests under memcheck;
# strace: the system calls of a shared-cache hit (tests/integration/test_shared.py)
# and of the NSS module without a daemon (test_daemon.py);
# clang, libclang-rt-14-dev: the libFuzzer targets (-Dfuzz=true).
# A test that finds something of these missing skips that part, which
# scripts/test.sh counts as a failure (tests/skip-allow.txt lists the only
# skips allowed).
# Wait for another apt or dpkg (an unattended upgrade, a second job) rather than fail.
apt-get -o DPkg::Lock::Timeout=600 update -q
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
	build-essential meson ninja-build pkg-config \
	libevent-dev libc-ares-dev libsystemd-dev libcmocka-dev \
	python3 python3-dev python3-dnslib python3-pytest \
	nsd iproute2 util-linux libc-bin procps \
	systemd man-db debhelper dh-python dpkg-dev lintian \
	valgrind strace clang libclang-rt-14-dev
# Node.js with its headers, for the addon (client-lib/node): a nodejs that
# ships node_api.h and npm (as nodesource's does) is used as it is;
# otherwise Debian's nodejs, libnode-dev (node_api.h; uv.h from libuv1-dev)
# and npm (tests/bindings/test_node.py's `npm pack --dry-run`).
# The DNS listener's peers and clients (tests/dnslisten, bench/), and
# prometheus for promtool (tests/metrics: `promtool check metrics`): their
# services are never started, here or by the packages' own scripts.
policy=/usr/sbin/policy-rc.d
policy_saved=
if [ -e "$policy" ]; then policy_saved=$(mktemp); cp -p "$policy" "$policy_saved"; fi
printf '#!/bin/sh\nexit 101\n' > "$policy"
chmod 755 "$policy"
had_prometheus=0
dpkg-query -W -f '${Status}' prometheus 2>/dev/null | grep -q "ok installed" && had_prometheus=1
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
	bind9-dnsutils knot-dnsutils dnsperf unbound dnsmasq-base musl-tools golang-go \
	prometheus
if [ -n "$policy_saved" ]; then mv "$policy_saved" "$policy"; else rm -f "$policy"; fi
# Its postinst enables prometheus.service for the next boot: the tests want
# promtool, not a server (unless this machine had one before).
if [ "$had_prometheus" = 0 ]; then
	rm -f /etc/systemd/system/multi-user.target.wants/prometheus.service
fi
if [ ! -x /usr/bin/promtool ]; then
	echo "deps.sh: prometheus installed no /usr/bin/promtool" >&2
	exit 1
fi
if ! { command -v node >/dev/null && [ -f /usr/include/node/node_api.h ] &&
    command -v npm >/dev/null; }; then
	apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
		nodejs libnode-dev npm
fi
# Real NSS modules for tests/integration/test_nss.py, as .deb files only:
# installing them would edit /etc/nsswitch.conf (their postinst), so the
# test unpacks them with dpkg-deb -x into a folder of its own.
debs=/var/cache/namecache-test/debs
mkdir -p "$debs"
chown _apt "$debs" 2>/dev/null || true
(cd "$debs" && rm -f libnss-*.deb && apt-get -o DPkg::Lock::Timeout=600 download -q \
	libnss-myhostname libnss-mdns)

# A Debian 12 tree for the container test (tests/packaging/test_nspawn.py):
# systemd as PID 1 under systemd-nspawn, and what the packages need.  Made
# once, kept in /var/cache; remade when the list of packages changes.
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
	systemd-container debootstrap
tree=/var/cache/namecache-test/bookworm
want="systemd,systemd-sysv,dbus,procps,libevent-core-2.1-7,libevent-extra-2.1-7,libevent-2.1-7,libc-ares2,libsystemd0"
if [ ! -e "$tree/.namecache-test-$want" ]; then
	rm -rf "$tree" "$tree.new"
	mirror=$(sed -n 's/^URIs: *\(http[^ ]*debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	debootstrap --variant=minbase --include="$want" bookworm "$tree.new" \
		"${mirror:-http://deb.debian.org/debian}" >/var/cache/namecache-test/debootstrap.log 2>&1 ||
		{ tail -20 /var/cache/namecache-test/debootstrap.log; exit 1; }
	touch "$tree.new/.namecache-test-$want"
	mv "$tree.new" "$tree"
fi
