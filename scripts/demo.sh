#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/demo.sh - install, build, and run namecached in the foreground with
# this machine's /etc/hosts, on a socket under the build folder, while a
# second process asks it a few questions you can watch.  Ctrl-C stops it.
#
# DNS comes from a demo zone served by nsd on 127.0.0.1: the demo never sends
# a packet beyond this machine.
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
rm -rf "$run"
mkdir -p "$run"
sock=$run/socket
ctl="$top/build/cli/namecachectl --socket $sock"
export LD_LIBRARY_PATH=$top/build/nss-shim NAMECACHE_SOCKET=$sock

# A small zone on a loopback port, served by nsd.
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$run/demo.example.zone" <<ZONE
\$TTL 300
demo.example.	3600 IN SOA ns.demo.example. admin.demo.example. 1 3600 600 86400 60
demo.example.	3600 IN NS ns.demo.example.
ns		3600 IN A 127.0.0.1
www		120  IN A 192.0.2.80
www		120  IN AAAA 2001:db8::80
api		30   IN CNAME www
mail		300  IN A 192.0.2.25
demo.example.	300  IN MX 10 mail.demo.example.
ZONE
cat > "$run/nsd.conf" <<NSD
server:
	ip-address: 127.0.0.1@$port
	username: ""
	zonesdir: "$run"
	pidfile: "$run/nsd.pid"
	zonelistfile: "$run/zone.list"
	xfrdfile: "$run/xfrd.state"
	database: ""
	verbosity: 0
zone:
	name: demo.example
	zonefile: demo.example.zone
NSD
printf 'nameserver 127.0.0.1\nsearch demo.example\noptions timeout:1 attempts:2\n' > "$run/resolv.conf"

# The demo's own hosts line: with nss-myhostname (unpacked from the .deb
# scripts/deps.sh fetched, never installed) between files and dns, as on a
# desktop, so the daemon shows a real NSS module at work.
line="files dns"
modules=
deb=$(ls /var/cache/namecache-test/debs/libnss-myhostname_*.deb 2>/dev/null | head -n 1 || true)
if [ -n "$deb" ]; then
	dpkg-deb -x "$deb" "$run/modules"
	modules=$(dirname "$(find "$run/modules" -name 'libnss_myhostname.so.2' | head -n 1)")
	line="files myhostname dns"
fi
printf 'hosts: namecache [!UNAVAIL=return] %s\n' "$line" > "$run/nsswitch.conf"
nsd -d -c "$run/nsd.conf" &
nsd_pid=$!

demo() {
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
	sleep 0.3
	first=$(awk '!/^[[:space:]]*(#|$)/ { print $2; exit }' /etc/hosts)
	addr=$(awk '!/^[[:space:]]*(#|$)/ { print $1; exit }' /etc/hosts)
	say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }
	say "namecachectl query localhost $first           # from /etc/hosts"
	$ctl query localhost "$first" || true
	say namecachectl query "$addr"
	$ctl query "$addr" || true
	if [ -n "$modules" ]; then
		say "namecachectl query $(hostname) foo.localhost     # from nss-myhostname, on a worker thread"
		$ctl query "$(hostname)" foo.localhost || true
	fi
	say "namecachectl query www.demo.example api       # DNS (a CNAME, and the search list)"
	$ctl query www.demo.example api || true
	say "namecachectl query www.demo.example           # again: from the cache, TTL counting down"
	$ctl query www.demo.example || true
	say namecachectl query -t MX demo.example
	$ctl query -t MX demo.example || true
	say "getent -s namecache ahosts www.demo.example   # a plain glibc program, through the NSS module"
	getent -s namecache ahosts www.demo.example || true
	# The bindings, when the build has them (node_api.h, python3-dev): the
	# name is from /etc/hosts, so even a fallback would ask nothing outside.
	if [ -d "$top/build/client-lib/python/namecache" ]; then
		say "python3 -c 'namecache.getaddrinfo(\"localhost\", 443, type=SOCK_STREAM)'   # client-lib/python"
		PYTHONPATH=$top/build/client-lib/python /usr/bin/python3 -c '
import socket, namecache
print(namecache.getaddrinfo("localhost", 443, type=socket.SOCK_STREAM))
print("the same as socket.getaddrinfo:", namecache.getaddrinfo("localhost", 443) ==
      socket.getaddrinfo("localhost", 443), namecache.counters())' || true
	fi
	if [ -f "$top/build/client-lib/node/namecache.node" ] && command -v node >/dev/null; then
		say "node -e \"require('namecache').lookup('localhost', {all: true}, ...)\"   # client-lib/node"
		node -e "const nc = require('$top/build/client-lib/node');
nc.lookup('localhost', { all: true }, (err, all) => {
  console.log(err || all, nc.counters);
});" || true
	fi
	if command -v dig >/dev/null; then
		say "dig @127.0.0.1 -p $dnsport +noall +answer www.demo.example   # the DNS listener, for Go, musl, containers"
		dig @127.0.0.1 -p "$dnsport" +noall +answer www.demo.example || true
		say "dig @127.0.0.1 -p $dnsport +noall +answer localhost demo.example MX   # hosts file, then any type"
		dig @127.0.0.1 -p "$dnsport" +noall +answer localhost demo.example MX || true
		say "dig @127.0.0.1 -p $dnsport +noall +authority no-such-name.demo.example   # NXDOMAIN with its SOA"
		dig @127.0.0.1 -p "$dnsport" +noall +authority no-such-name.demo.example || true
	fi
	say "namecachectl query no-such-name.demo.example  # exit status 1"
	$ctl query no-such-name.demo.example || echo "(exit $?)"
	say namecachectl show-cache
	$ctl show-cache
	say namecachectl statistics
	$ctl statistics
	if [ "$(id -u)" = 0 ]; then
		say "namecachectl monitor   # every lookup, live (here for three of them; Ctrl-C ends it)"
		$ctl monitor &
		mon=$!
		sleep 0.3
		$ctl query -4 www.demo.example >/dev/null || true
		getent -s namecache ahosts localhost >/dev/null || true
		$ctl query no-such-name.demo.example >/dev/null 2>&1 || true
		sleep 0.1
		kill -TERM "$mon" 2>/dev/null || true	# a background job ignores SIGINT
		wait "$mon" 2>/dev/null || true
	fi
	say "namecachectl metrics | grep -E '^namecache_lookups_total.*socket'   # Prometheus' text, as metrics_listen serves it"
	$ctl metrics | grep -E '^namecache_lookups_total.*socket' || true
	[ "$(id -u)" = 0 ] && nscd_demo
	printf '\nnamecached keeps running: edit /etc/hosts and query again, or press Ctrl-C.\n'
	printf 'In another shell:  %s query NAME\n' "$ctl"
	if [ "$once" = 1 ]; then
		kill -TERM "$daemon_pid"
	fi
}

# glibc's nscd path: a second daemon on glibc's nscd socket, in a private
# mount namespace (a tmpfs over /run, so the socket is the demo's; an
# nsswitch.conf saying only "hosts: files"). A plain getent, with no -s,
# then finds www.demo.example, which only namecached knows.
nscd_demo() {
	local ns=$run/nscd
	mkdir -p "$ns"
	printf 'hosts: files\n' > "$ns/nsswitch.conf"
	printf '\n\033[1m%s\033[0m\n' "# glibc's nscd path (the namecache-nscd package), in a private mount namespace:"
	unshare -m --propagation private -- sh -c '
		run=$1 ns=$2 port=$3 top=$4 modules=$5
		mount -t tmpfs tmpfs /run && mkdir /run/nscd || exit 1
		mount --bind "$ns/nsswitch.conf" /etc/nsswitch.conf
		LD_LIBRARY_PATH=$modules "$top/build/daemon/namecached" --config /dev/null --socket "$ns/socket" \
			--hosts-file /etc/hosts --nsswitch-conf "$run/nsswitch.conf" \
			--resolv-conf "$run/resolv.conf" --upstream "127.0.0.1:$port" \
			--nscd-socket /run/nscd/socket --log-level warning &
		pid=$!
		for _ in $(seq 100); do [ -S /run/nscd/socket ] && break; sleep 0.05; done
		say() { printf "\n\033[1m\$ %s\033[0m\n" "$*"; }
		say "getent ahosts www.demo.example     # glibc asks the nscd socket first: no NSS, no -s"
		getent ahosts www.demo.example
		say "getent ahosts www.demo.example     # again: read from the mapped database, no system call"
		getent ahosts www.demo.example
		say "id root; getent group adm          # users and groups too: the passwd and group lines, walked"
		id root; getent group adm
		say "namecachectl show-cache passwd"
		"$top/build/cli/namecachectl" --socket "$ns/socket" show-cache passwd
		say "namecachectl statistics | grep -i nscd"
		"$top/build/cli/namecachectl" --socket "$ns/socket" statistics | grep -i "nscd" | grep -v " 0$"
		kill -TERM $pid; wait $pid
	' sh "$run" "$ns" "$port" "$top" "$modules" || true
}

# The DNS listener on a free loopback port (port 53 may be taken).
dnsport=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "Starting namecached on $sock with /etc/hosts, the hosts line \"$line\","
echo "DNS from nsd on 127.0.0.1:$port, answering DNS on 127.0.0.1:$dnsport (Ctrl-C stops it)"
LD_LIBRARY_PATH=$modules build/daemon/namecached --config /dev/null --socket "$sock" \
	--hosts-file /etc/hosts --nsswitch-conf "$run/nsswitch.conf" \
	--resolv-conf "$run/resolv.conf" --upstream "127.0.0.1:$port" \
	--dns-listen "127.0.0.1:$dnsport" &
daemon_pid=$!
stop() {
	kill -TERM "$daemon_pid" 2>/dev/null || true
	wait "$daemon_pid" 2>/dev/null || true
	kill -TERM "$nsd_pid" 2>/dev/null || true
	wait "$nsd_pid" 2>/dev/null || true
}
trap 'stop; exit 0' INT TERM
demo &
wait "$daemon_pid" || true
stop
