#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/run.sh - namecache against its peers, side by side, in one run.
#
#   bench/run.sh (as root) [--build DIR] [--docs DIR] [--no-install] [--keep]
#                          [--only SECTIONS] [--results FILE] [--compare BEFORE.json]
#
# Builds a release build of namecache (meson setup DIR -Dbuildtype=release;
# default DIR is build-bench/ at the top of the tree, or the one given),
# installs what the peers need from Debian when it is missing, measures
# everything (bench/run.py measure) inside a private network namespace that
# holds only `lo`, and writes docs/benchmarks.md and docs/benchmarks.png
# (bench/run.py report).  About 10 minutes on a 2-core machine.
#
# Sections: "peers" (the NSS path, the socket and their peers; with issue
# 32's alternated rounds: a shared-cache hit against the NSS floor, and an
# uncached lookup against glibc's dns module),
# "listener" (the DNS listener against dnsmasq, unbound and systemd-resolved's
# stub, loaded by dnsperf: issue 20; and against bench/dns-floor, a
# responder that only does recvmmsg and sendmmsg: issue 32) and "nscd-db"
# (passwd and group through glibc's nscd client: namecache, glibc's nscd
# and unscd, and glibc without nscd, on a 10,000-line /etc/passwd and
# tests/nss's libnss_ncdir.so.2: issue 21; about a minute) and "memory"
# (1,000,000 names filled into one daemon through the socket, its RSS and
# their parts, then a restart that takes the store over: issue 22; about
# two minutes) and "observe" (the
# hit latency and pipelined throughput with `namecachectl monitor` attached
# and metrics scraped once a second, against neither, in alternating
# rounds: bench/observe.py, issue 23; about two minutes; its page is
# benchmarks-observe.md).  --only SECTIONS (comma-separated)
# measures those alone, in a few minutes; its page then goes to the work
# folder (kept) unless --docs is given, and its tables are printed.
#
# Results: every figure of the run goes to results.json in the work folder
# (deleted at the end unless --keep or --only); --results FILE copies it to
# FILE.  --compare BEFORE.json (a results file of an earlier run) adds a
# "Before and after" section to the page: every targets row of both runs,
# each judged in its own direction (issue 32: "every other row at or better
# than before"), and namecache's own figures beside the peers' drift.
# Two kept files compare without measuring again:
#   bench/run.py compare BEFORE.json AFTER.json
# Before and after a change, this bench on both trees, one run each, back
# to back on a quiet machine (run them twice, alternated, when it drifts):
#   git worktree add /tmp/nc-before BASE        # the tree before the change
#   git -C /tmp/nc-before checkout AFTER -- bench   # this bench on it
#   sudo /tmp/nc-before/bench/run.sh --docs /tmp/nc-before-docs --results /tmp/before.json
#   sudo bench/run.sh --results /tmp/after.json --compare /tmp/before.json
#   git worktree remove --force /tmp/nc-before
# (BASE must have daemon/front/dnslisten.h, which bench/dns-floor includes.)
#
# Peers and packages:
#   - nscd, dnsmasq-base (the dnsmasq binary without its system service),
#     gnuplot-nox, strace, nsd: apt-get install when missing.
#     Services are never started by the install: when /usr/sbin/policy-rc.d
#     is absent, one that refuses every start is put there for the install
#     and removed after.  Nothing runs from them outside this script.
#   - dnsperf, unbound: apt-get install when missing, as above.
#   - systemd-resolved: `apt-get download` and `dpkg -x` unpack its binary
#     into this run's temporary folder (installing the package would take
#     over the host's /etc/resolv.conf); it runs in a mount namespace of its
#     own.  Without it (or without the libsystemd-shared it links), the
#     listener section says so and leaves it out.
#   - unscd conflicts with nscd as a Debian package (both are
#     /usr/sbin/nscd), so it is not installed: `apt-get download unscd` and
#     `dpkg -x` unpack its binary into this run's temporary folder.
#
# The network rule: every peer runs in that namespace; the only DNS server
# is nsd on 127.0.0.1:53 (dnsmasq on 127.0.0.2:53 forwards to it; in the
# listener section namecache, dnsmasq and unbound listen on 127.0.0.1
# ports 5301-5305 and resolved on 127.0.0.53:53, all forwarding to it,
# and bench/dns-floor on 127.0.0.1:5304, which answers alone); the
# real /etc is never written (each peer's /etc/hosts, nsswitch.conf,
# resolv.conf are bind mounts in its own mount namespace).  Every process
# started is stopped by its id before the script ends.
#
# BENCH_QUICK=1 shortens every loop (for trying the script, not for docs).
# BENCH_PERF=1 adds, to the listener section, one more saturating hit run on
# namecache under `perf record -g`, and the top of its profile to the page.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
args=("$@")
build=$top/build-bench
docs=$top/docs
install=1
keep=0
only=""
docs_given=0
results=""
before=""
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--docs) docs=$2; docs_given=1; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--results) results=$(realpath -m "$2"); shift 2 ;;
	--compare) before=$(realpath -e "$2") || { echo "run.sh: no $2" >&2; exit 2; }; shift 2 ;;
	--no-install) install=0; shift ;;
	--keep) keep=1; shift ;;
	-h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
if [ "$(id -u)" != 0 ]; then
	echo "run.sh: needs root (namespaces, bind mounts, apt-get)" >&2
	exit 1
fi
t0=$(date +%s)
log() { echo "[run.sh $(date +%H:%M:%S)] $*" >&2; }

work=$(mktemp -d /tmp/namecache-bench.XXXXXX)
chmod 755 "$work"
if [ -n "$only" ]; then
	case ,$only, in
	*,peers,*|*,listener,*|*,nscd-db,*|*,memory,*|*,observe,*) ;;
	*) echo "run.sh: --only wants peers, listener, nscd-db, memory and/or observe, not '$only'" >&2; exit 2 ;;
	esac
	if [ "$docs_given" = 0 ]; then
		docs=$work/docs
		keep=1
	fi
fi
policy_made=0
cleanup() {
	[ "$policy_made" = 1 ] && rm -f /usr/sbin/policy-rc.d
	if [ "$keep" = 1 ]; then
		log "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
setup_cmds=()
record() { setup_cmds+=("$*"); "$@"; }

# --- packages ---------------------------------------------------------------
need=()
command -v nscd >/dev/null || need+=(nscd)
command -v dnsmasq >/dev/null || need+=(dnsmasq-base)
command -v gnuplot >/dev/null || need+=(gnuplot-nox)
command -v strace >/dev/null || need+=(strace)
command -v dnsperf >/dev/null || need+=(dnsperf)
[ -x /usr/sbin/unbound ] || need+=(unbound)
command -v nsd >/dev/null || need+=(nsd)
command -v ip >/dev/null || need+=(iproute2)
command -v nsenter >/dev/null || need+=(util-linux)
/usr/bin/python3 -c 'import dnslib' 2>/dev/null || need+=(python3-dnslib)	# tests/dns/in-netns.sh
command -v meson >/dev/null || need+=(meson ninja-build pkg-config build-essential)
pkg-config --exists libevent_core libcares libsystemd 2>/dev/null ||
	need+=(libevent-dev libc-ares-dev libsystemd-dev pkg-config)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$install" = 0 ]; then
		echo "run.sh: missing ${need[*]} (and --no-install)" >&2
		exit 1
	fi
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		# Keep the packages' services (nscd) from starting on this host.
		printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		policy_made=1
	fi
	log "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	record apt-get update -q >/dev/null
	record apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
	if [ "$policy_made" = 1 ]; then
		rm -f /usr/sbin/policy-rc.d
		policy_made=0
	fi
fi
unscd=""
if [ "$install" = 1 ]; then
	mkdir -p "$work/unscd"
	if (cd "$work/unscd" && apt-get download -q unscd >/dev/null 2>&1 &&
	    dpkg -x unscd_*.deb root) && [ -x "$work/unscd/root/usr/sbin/nscd" ]; then
		unscd=$work/unscd/root/usr/sbin/nscd
		setup_cmds+=("apt-get download unscd && dpkg -x unscd_*.deb root   # unscd's /usr/sbin/nscd, not installed")
	else
		log "could not fetch unscd: it is left out of this run"
	fi
fi

resolved=""
resolved_version=""
if [ "$install" = 1 ] && case ,${only:-listener}, in *,listener,*) true ;; *) false ;; esac; then
	mkdir -p "$work/resolved"
	if (cd "$work/resolved" && apt-get download -q systemd-resolved >/dev/null 2>&1 &&
	    dpkg -x systemd-resolved_*.deb root) && [ -x "$work/resolved/root/lib/systemd/systemd-resolved" ]; then
		resolved=$work/resolved/root/lib/systemd/systemd-resolved
		resolved_version=$(dpkg-deb -f "$work"/resolved/systemd-resolved_*.deb Version)
		setup_cmds+=("apt-get download systemd-resolved && dpkg -x systemd-resolved_*.deb root   # its binary, not installed")
	else
		log "could not fetch systemd-resolved: the listener section leaves it out"
	fi
fi

# --- build --------------------------------------------------------------------
if [ ! -f "$build/build.ninja" ]; then
	record meson setup "$build" "$top" -Dbuildtype=release -Dtests=disabled >/dev/null
fi
setup_cmds+=("meson compile -C $build")
for try in 1 2 3 4 5; do
	# Others may be editing the tree: a half-written file breaks a build briefly.
	if meson compile -C "$build" >"$work/build.log" 2>&1; then
		break
	fi
	if [ "$try" = 5 ]; then
		cat "$work/build.log" >&2
		echo "run.sh: the build failed" >&2
		exit 1
	fi
	log "build failed (try $try), retrying in 20 s"
	sleep 20
done
buildtype=$(meson introspect --buildoptions "$build" | /usr/bin/python3 -c \
	'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))')

# --- measure ------------------------------------------------------------------
case ,$only, in
*,observe,*)
	log "observe: measuring in a private network namespace (work folder $work)"
	"$top/tests/dns/in-netns.sh" --no-nsd --search "" -- \
		/usr/bin/python3 "$top/bench/observe.py" "$build" "$work" "$docs"
	only=$(echo ",$only," | sed 's/,observe,/,/; s/^,//; s/,$//')
	if [ -z "$only" ]; then
		log "wrote $docs/benchmarks-observe.md in $(($(date +%s) - t0)) s"
		exit 0
	fi
	;;
esac
log "measuring in a private network namespace (work folder $work)"
"$top/tests/dns/in-netns.sh" --no-nsd --search "" --options "ndots:1 timeout:1 attempts:2" -- \
	env BENCH_UNSCD="$unscd" BENCH_RESOLVED="$resolved" BENCH_RESOLVED_VERSION="$resolved_version" \
	BENCH_SECTIONS="${only:-peers,listener,nscd-db}" /usr/bin/python3 "$top/bench/run.py" measure \
	"$build" "$work" "$work/results.json"

# --- report -------------------------------------------------------------------
printf '%s\n' "${setup_cmds[@]}" > "$work/setup-commands.txt"
BENCH_ELAPSED=$(($(date +%s) - t0)) BENCH_BUILD="$build" BENCH_BUILDTYPE="$buildtype" \
BENCH_TOP="$top" BENCH_SETUP_CMDS="$work/setup-commands.txt" \
BENCH_COMMAND="bench/run.sh${args[*]:+ ${args[*]}}" \
	/usr/bin/python3 "$top/bench/run.py" report "$work/results.json" "$docs" ${before:+"$before"}
log "wrote $docs/benchmarks.md and $docs/benchmarks.png in $(($(date +%s) - t0)) s"
if [ -n "$results" ]; then
	cp "$work/results.json" "$results"
	log "results kept in $results"
fi
if [ -z "$only" ]; then
	sed -n '/^## Targets/,/^## Latency/p' "$docs/benchmarks.md" | sed '$d'
else
	sed -n '/^## Targets/,/^## Commands/p' "$docs/benchmarks.md" | sed '$d'
fi
