#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/packaging/deb-root.sh DEBDIR - install the packages into a throwaway
# root and check what their maintainer scripts do.
#
# Run by test_debian.py under `unshare -m -n`: a private mount namespace
# and a network namespace with only loopback.  The throwaway root is an
# overlay of this machine's own root filesystem (Debian 12, with dpkg and
# the packages' dependencies) with every write going to a tmpfs, so the
# real /etc, /var/lib/dpkg and /run are never touched, and all of it is gone
# when the namespace ends.  Prints "ok ..." / "FAIL ..." lines; exits 1 on
# any failure.
set -uo pipefail
debs=$1
failed=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failed=1; }
check() {	# check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

mount --make-rprivate / || exit 1
T=$(mktemp -d /tmp/nc-debroot.XXXXXX) || exit 1
# The tmpfs is mounted on it in this private namespace: unmounted first,
# or rmdir finds it busy and the folder stays in /tmp.
trap 'umount -l "$T" 2>/dev/null; rmdir "$T"' EXIT
mount -t tmpfs -o size=2g tmpfs "$T" || exit 1
mkdir "$T/upper" "$T/work" "$T/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$T/upper,workdir=$T/work" "$T/root" || exit 1
R=$T/root
[ -x "$R/usr/bin/dpkg" ] || { echo "FAIL the overlay shows no /usr/bin/dpkg"; exit 1; }
mount --rbind /dev "$R/dev" && mount -t proc proc "$R/proc" &&
	mount -t tmpfs tmpfs "$R/run" && mount -t tmpfs tmpfs "$R/tmp" || exit 1
ip link set lo up

in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	DEBIAN_FRONTEND=noninteractive "$@"; }

cp "$debs"/namecache_*.deb "$debs"/libnss-namecache_*.deb "$debs"/libnamecache0_*.deb \
	"$debs"/libnamecache-dev_*.deb "$debs"/python3-namecache_*.deb \
	"$debs"/node-namecache_*.deb "$R/tmp/" || exit 1
# Debian 12's default nsswitch.conf, with mDNS as a desktop has it.
cat >"$R/etc/nsswitch.conf" <<'NSS'
# /etc/nsswitch.conf
passwd:         files
group:          files
shadow:         files
gshadow:        files

hosts:          files mdns4_minimal [NOTFOUND=return] dns myhostname
networks:       files

protocols:      db files
services:       db files
ethers:         db files
rpc:            db files

netgroup:       nis
NSS
cp "$R/etc/nsswitch.conf" "$R/tmp/nsswitch.orig"
rm -f "$R/etc/resolv.conf"
echo "nameserver 127.0.0.1" >"$R/etc/resolv.conf"
# No mandb run on every install: it is slow and not what is tested.
rm -f "$R/var/lib/man-db/auto-update"
want_line='hosts:          namecache [!UNAVAIL=return] files mdns4_minimal [NOTFOUND=return] dns myhostname'
hosts_line() { grep '^hosts:' "$R/etc/nsswitch.conf"; }

# --- install ---------------------------------------------------------------------
deb() { basename "$(ls "$R"/tmp/"$1"_*.deb)"; }
lib=/tmp/$(deb libnamecache0) nc=/tmp/$(deb namecache) nss=/tmp/$(deb libnss-namecache)
dev=/tmp/$(deb libnamecache-dev)
if in_root dpkg -i "$lib" "$nc" "$nss" "$dev" >"$T/dpkg.log" 2>&1; then
	ok "dpkg -i of the four packages"
else
	cat "$T/dpkg.log"
	fail "dpkg -i of the four packages"
fi
check "install: hosts line is '$want_line'" [ "$(hosts_line)" = "$want_line" ]
check "install: the rest of nsswitch.conf unchanged" \
	diff <(grep -v '^hosts:' "$R/tmp/nsswitch.orig") <(grep -v '^hosts:' "$R/etc/nsswitch.conf")
check "install: user _namecache made by systemd-sysusers" \
	in_root sh -c "getent passwd _namecache >/dev/null"
check "install: namecached.socket enabled in sockets.target" \
	[ "$(readlink "$R/etc/systemd/system/sockets.target.wants/namecached.socket")" = \
	  /lib/systemd/system/namecached.socket ]
check "install: namecached.service not enabled (the socket starts it)" \
	[ -z "$(find "$R/etc/systemd/system" -name namecached.service)" ]
check "install: /etc/namecache/namecached.conf is a conffile" \
	in_root sh -c "dpkg-query -W -f='\${Conffiles}' namecache | grep -q ' /etc/namecache/namecached.conf '"
check "install: the NSS module in the multiarch libdir" \
	test -f "$R/usr/lib/$(in_root dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)/libnss_namecache.so.2"

# Configured again (dpkg -i of the same version): still one entry.
in_root dpkg -i "$nss" >"$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log"; fail "reinstall"; }
check "reinstall: hosts line unchanged" [ "$(hosts_line)" = "$want_line" ]

# --- getent through namecached, started as systemd would ---------------------------
# The socket from systemd-socket-activate (namecached.socket), the folder
# handed to _namecache (RuntimeDirectory=), the daemon as that user with
# the package's configuration; plain `getent hosts`, through nsswitch.conf.
mkdir -p "$R/run/namecache"
in_root chown _namecache:_namecache /run/namecache
chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin systemd-socket-activate \
	-l /run/namecache/socket setpriv --reuid=_namecache --regid=_namecache \
	--clear-groups /usr/sbin/namecached >"$T/daemon.log" 2>&1 &
activate=$!
for _ in $(seq 100); do [ -S "$R/run/namecache/socket" ] && break; sleep 0.05; done
lookups() { in_root namecachectl --json statistics | sed -n 's/.*"lookups_name":\([0-9]*\).*/\1/p'; }
out=$(in_root getent hosts localhost)
check "getent hosts localhost answers: $out" [ -n "$out" ]
n=$(lookups)
check "... and namecached (pid $(cat /proc/$activate/comm 2>/dev/null)) answered it: lookups_name=$n" \
	[ "${n:-0}" -ge 1 ]
uid=$(in_root id -u _namecache)
check "... as _namecache (uid $uid)" [ "$(stat -c %u /proc/$activate 2>/dev/null)" = "$uid" ]
check "... publishing /run/namecache/cache, its own, 0644" \
	[ "$(stat -c %u:%a "$R/run/namecache/cache")" = "$uid:644" ]
# The bindings, installed and imported, their answers from this daemon.
py=/tmp/$(deb python3-namecache) node=/tmp/$(deb node-namecache)
if in_root dpkg -i "$py" "$node" >"$T/dpkg.log" 2>&1; then
	ok "dpkg -i of python3-namecache and node-namecache"
else
	cat "$T/dpkg.log"
	fail "dpkg -i of python3-namecache and node-namecache"
fi
out=$(in_root python3 -c 'import namecache, socket
r = namecache.getaddrinfo("localhost", 80)
assert r == socket.getaddrinfo("localhost", 80), r
assert namecache.counters()["answered"] == 1, namecache.counters()
print(r[0][4])' 2>&1)
check "python3 -c 'import namecache': getaddrinfo(localhost) from namecached, as socket's: $out" \
	[ $? = 0 ]
ma=$(in_root dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
if [ -x "$R/usr/bin/node" ]; then
	out=$(in_root node -e "const n = require('/usr/lib/$ma/nodejs/namecache');
n.lookup('localhost', { all: true }, (e, a) => require('dns').lookup('localhost', { all: true },
  (e2, b) => { if (e || JSON.stringify(a) !== JSON.stringify(b) || n.counters.answered !== 1)
    process.exit(1); console.log(JSON.stringify(a)); }));" 2>&1)
	check "node: require('namecache').lookup(localhost) from namecached, as dns.lookup's: $out" \
		[ $? = 0 ]
else
	fail "no node in the root to import node-namecache with"
fi
kill -TERM $activate
wait $activate
check "namecached stops cleanly on SIGTERM" [ $? = 0 ]
rm -f "$R/run/namecache/socket"
out=$(in_root getent hosts localhost)
check "daemon gone: getent still answers, from files: $out" [ -n "$out" ]
[ "$failed" = 0 ] || cat "$T/daemon.log"

# --- remove and purge ----------------------------------------------------------------
in_root dpkg -r libnss-namecache >"$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log"; fail "dpkg -r"; }
check "remove: nsswitch.conf as it was" cmp "$R/tmp/nsswitch.orig" "$R/etc/nsswitch.conf"
in_root dpkg -i "$nss" >"$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log"; fail "dpkg -i again"; }
check "install after remove: entry back" [ "$(hosts_line)" = "$want_line" ]
in_root dpkg --purge python3-namecache node-namecache libnss-namecache libnamecache-dev \
	namecache libnamecache0 \
	>"$T/dpkg.log" 2>&1 || { cat "$T/dpkg.log"; fail "dpkg --purge"; }
check "purge: nsswitch.conf as it was" cmp "$R/tmp/nsswitch.orig" "$R/etc/nsswitch.conf"
check "purge: /etc/namecache gone" [ ! -e "$R/etc/namecache" ]
check "purge: /run/namecache gone" [ ! -e "$R/run/namecache" ]
check "purge: socket no longer enabled" [ ! -e "$R/etc/systemd/system/sockets.target.wants/namecached.socket" ]
check "purge: no package left" in_root sh -c "! dpkg -l namecache libnss-namecache libnamecache0 libnamecache-dev python3-namecache node-namecache 2>/dev/null | grep -q '^[ir][ic]'"

exit $failed
