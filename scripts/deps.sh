#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/deps.sh - install the Debian 12 packages namecache builds and tests with.
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: run as root (apt-get install)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# systemd: systemd-analyze and systemd-socket-activate for the unit tests (it
# is not started: installing it in a container changes no running system);
# man-db: systemd-analyze verify checks Documentation= with man;
# debhelper, dpkg-dev, lintian: the Debian packages' build and check;
# valgrind: the daemon's integration tests under memcheck;
# clang, libclang-rt-14-dev: the libFuzzer targets (-Dfuzz=true).
# Wait for another apt or dpkg (an unattended upgrade, a second job) rather than fail.
apt-get -o DPkg::Lock::Timeout=600 update -q
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends \
	build-essential meson ninja-build pkg-config \
	libevent-dev libc-ares-dev libsystemd-dev libcmocka-dev \
	python3 python3-dnslib python3-pytest \
	nsd iproute2 util-linux libc-bin procps \
	systemd man-db debhelper dpkg-dev lintian \
	valgrind clang libclang-rt-14-dev
# Real NSS modules for tests/integration/test_nss.py, as .deb files only:
# installing them would edit /etc/nsswitch.conf (their postinst), so the
# test unpacks them with dpkg-deb -x into a folder of its own.
debs=/var/cache/namecache-test/debs
mkdir -p "$debs"
chown _apt "$debs" 2>/dev/null || true
(cd "$debs" && rm -f libnss-*.deb && apt-get -o DPkg::Lock::Timeout=600 download -q \
	libnss-myhostname libnss-mdns)
