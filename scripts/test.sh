#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/test.sh - install what is needed, build with warnings as errors, run every test.
#
# Runs the whole suite twice: a normal build, then one under AddressSanitizer
# and UndefinedBehaviorSanitizer.  Between them, the daemon's integration
# tests under valgrind, and a short run of each libFuzzer target built by
# clang.  The sanitizer and fuzz builds are compiled (at nice 19) while the
# valgrind pass runs, which keeps one core of two busy.
#
# Ends with "N passed, N failed, N skipped", then "N passed, N failed" alone
# on the last line (what CI reads).  A skip is a test meson counted as
# skipped (exit 77), or a line starting with "skip" that a passing test
# printed (a part that did not run: nclib.skip_part).  Every skip is listed;
# run as root (where scripts/deps.sh installed everything the tests need),
# a skip that tests/skip-allow.txt does not list counts as a failure.
#
# NAMECACHE_SKIP_APT=1 skips the package install; NAMECACHE_NO_ASAN=1,
# NAMECACHE_NO_VALGRIND=1 and NAMECACHE_NO_FUZZ=1 skip those passes;
# NAMECACHE_STRICT_SKIPS=1 (0) makes unlisted skips failures (or not)
# whoever runs it; NAMECACHE_TESTS="NAME..." runs only those tests in the
# normal and sanitizer passes (a spot check, not a CI run).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

if [ "${NAMECACHE_SKIP_APT:-0}" != 1 ]; then
	scripts/deps.sh || exit 1
fi

# UndefinedBehaviorSanitizer goes on after a report by default: stop at the
# first, so the daemon or test that hit it fails (the test runners also read
# every daemon's log for reports: tests/nclib.py).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

passed=0
failed=0
logs=()

# count BUILD PASS [LOGBASE]: adds that build's meson test results to the totals.
count() {
	local log=$1/meson-logs/${3:-testlog}.json p f
	if [ ! -f "$log" ]; then
		failed=$((failed + 1))
		return
	fi
	p=$(grep -c '"result": "OK"' "$log" || true)
	f=$(grep -c '"result": "\(FAIL\|TIMEOUT\|ERROR\|UNEXPECTEDPASS\)"' "$log" || true)
	passed=$((passed + p))
	failed=$((failed + f))
	logs+=("$2=$log")
}

# configure DIR [meson setup options...]: a build directory, made or reconfigured.
configure() {
	local dir=$1
	shift
	if [ -d "$dir" ]; then
		meson setup --reconfigure "$dir" -Dwerror=true "$@" >/dev/null
	else
		meson setup "$dir" -Dwerror=true "$@" >/dev/null
	fi
}

# suite NAME PASS BUILD [meson test options...]; NAMECACHE_BUILT=1: built already.
suite() {
	local name=$1 pass=$2 dir=$3
	shift 3
	rm -f "$dir/meson-logs/testlog.json"
	if [ "${NAMECACHE_BUILT:-0}" != 1 ]; then
		echo "=== $name: configure and build in $dir"
		configure "$dir" || { failed=$((failed + 1)); return; }
		if ! meson compile -C "$dir"; then
			echo "=== $name: build FAILED"
			failed=$((failed + 1))
			return
		fi
	fi
	echo "=== $name: tests"
	# shellcheck disable=SC2086 # a list of test names
	meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 \
		${NAMECACHE_TESTS:-"$@"}
	count "$dir" "$pass"
}

# packaging-debian (suite debian: dpkg-buildpackage, lintian, an install
# into a throwaway root; two minutes on two cores) runs beside the passes
# that leave a core idle (valgrind, fuzz, the sanitizer tests), at nice 19.
debian=0
[ -z "${NAMECACHE_TESTS:-}" ] && debian=1
if [ "$debian" = 1 ]; then
	suite "normal build" normal "$top/build-test" --no-suite debian
else
	suite "normal build" normal "$top/build-test"
fi
if [ "$debian" = 1 ] && [ -f "$top/build-test/build.ninja" ]; then
	rm -f "$top/build-test/meson-logs/debian.json"
	debianlog=$(mktemp)
	nice -n 19 meson test -C "$top/build-test" --no-rebuild --suite debian \
		--logbase debian --print-errorlogs >"$debianlog" 2>&1 &
	debianpid=$!
else
	debian=0
fi

asan=$top/build-asan
fz=$top/build-fuzz
fuzz_targets="dnsmsg dnswire proto hosts config dnsanswer shm client nsswitch nscdent store nss"

# The sanitizer build and the libFuzzer targets, compiled in the background
# (at nice 19) while the valgrind pass runs: valgrind runs a daemon on one
# core, the compiler takes what the tests leave.  Their output goes to a
# log, shown when a build fails.
builds() {
	local rc=0
	if [ "${NAMECACHE_NO_ASAN:-0}" != 1 ]; then
		echo "=== ASan+UBSan build: configure and build in $asan"
		if configure "$asan" -Db_sanitize=address,undefined -Db_lundef=false \
		    -Dbuildtype=debug && nice -n 19 meson compile -C "$asan"; then
			touch "$asan/.built"
		else
			rc=1
		fi
	fi
	if [ "${NAMECACHE_NO_FUZZ:-0}" != 1 ]; then
		echo "=== fuzz: clang build of the libFuzzer targets"
		if { [ -d "$fz" ] || CC=clang meson setup "$fz" -Dfuzz=true -Dfuzz_seconds=5 \
		    -Dwerror=true >/dev/null; } &&
		    nice -n 19 meson compile -C "$fz" $(printf 'fuzz-%s ' $fuzz_targets); then
			touch "$fz/.built"
		else
			rc=1
		fi
	fi
	return $rc
}
rm -f "$asan/.built" "$fz/.built"
buildlog=$(mktemp)
builds >"$buildlog" 2>&1 &
builder=$!

# The daemon's integration tests once more, every daemon under valgrind's
# memcheck (tests/nclib.py), the DNS listener's and nscd's other databases':
# an error, or a definite or indirect leak at
# exit, fails the test.  The DNS and shared-segment scripts that run many
# daemons and clients are left to the sanitizer pass: under valgrind they
# would take minutes.
if [ "${NAMECACHE_NO_VALGRIND:-0}" != 1 ] && [ -f "$top/build-test/build.ninja" ]; then
	echo "=== valgrind: the daemon's integration tests"
	rm -f "$top/build-test/meson-logs/valgrind.json"
	NAMECACHE_VALGRIND=1 meson test -C "$top/build-test" --no-rebuild --print-errorlogs \
		--logbase valgrind --timeout-multiplier 3 \
		integration-daemon integration-hostile integration-faults integration-nss integration-owner \
		dnslisten nscddb-differential monitor metrics-http
	count "$top/build-test" valgrind valgrind
fi

wait "$builder"
echo "=== background builds (log: $buildlog)"
grep '^===' "$buildlog"
if { [ "${NAMECACHE_NO_ASAN:-0}" != 1 ] && [ ! -f "$asan/.built" ]; } ||
    { [ "${NAMECACHE_NO_FUZZ:-0}" != 1 ] && [ ! -f "$fz/.built" ]; }; then
	tail -n 60 "$buildlog"
fi
rm -f "$buildlog"

# The libFuzzer targets under clang, each fuzzed briefly from its corpus,
# two at a time: they build, and nothing easy was left to find.  (Long
# runs: tests/fuzz.)
if [ "${NAMECACHE_NO_FUZZ:-0}" != 1 ]; then
	echo "=== fuzz: 5 s of fuzzing each"
	rm -f "$fz/meson-logs/fuzzrun.json"
	if [ -f "$fz/.built" ]; then
		meson test -C "$fz" --no-rebuild --suite fuzz-run --logbase fuzzrun \
			--print-errorlogs --num-processes 2
		count "$fz" fuzz fuzzrun
	else
		echo "=== fuzz: build FAILED"
		failed=$((failed + 1))
	fi
fi
if [ "${NAMECACHE_NO_ASAN:-0}" != 1 ]; then
	# The sanitizers make the differential test's 300 random files a
	# seven-minute run on two cores; 100 under them (the normal build keeps
	# 300), unless NAMECACHE_DIFF_COUNT says otherwise.
	# The flood test's 1,000,000 names likewise become 200,000.
	if [ -f "$asan/.built" ]; then
		NAMECACHE_BUILT=1 \
		NAMECACHE_DIFF_COUNT=${NAMECACHE_DIFF_COUNT:-100} \
		NAMECACHE_FLOOD_COUNT=${NAMECACHE_FLOOD_COUNT:-200000} \
		suite "ASan+UBSan build" asan "$asan"
	else
		echo "=== ASan+UBSan build: build FAILED"
		failed=$((failed + 1))
	fi
fi

if [ "$debian" = 1 ]; then
	wait "$debianpid"
	echo "=== packaging-debian (beside the other passes)"
	cat "$debianlog"
	rm -f "$debianlog"
	count "$top/build-test" normal debian
fi

# Every skip, held to the allow list: as root (CI), where deps.sh installed
# what the tests need, one it does not list is a failure.  A sanitizer's
# report in the output of a test that passed is one too.
strict=${NAMECACHE_STRICT_SKIPS:-}
if [ -z "$strict" ]; then
	strict=0
	[ "$(id -u)" = 0 ] && strict=1
fi
echo "=== skips"
skipout=$(/usr/bin/python3 scripts/skips.py --allow tests/skip-allow.txt ${logs[@]+"${logs[@]}"})
rc=$?
echo "$skipout"
reports=$(sed -n 's/^sanitizer reports \([0-9]*\)$/\1/p' <<<"$skipout")
if [ "${reports:-0}" != 0 ]; then
	echo "=== $reports sanitizer reports in the output of tests that passed: failures"
	failed=$((failed + reports))
fi
skipped=$(sed -n 's/^skipped \([0-9]*\), not allowed \([0-9]*\)$/\1/p' <<<"$skipout")
unlisted=$(sed -n 's/^skipped \([0-9]*\), not allowed \([0-9]*\)$/\2/p' <<<"$skipout")
if [ "$rc" != 0 ] || [ -z "$skipped" ]; then
	echo "=== skips: scripts/skips.py FAILED"
	failed=$((failed + 1))
	skipped=${skipped:-0}
elif [ "$strict" = 1 ] && [ "$unlisted" != 0 ]; then
	echo "=== skips: $unlisted not in tests/skip-allow.txt, counted as failures"
	failed=$((failed + unlisted))
fi

echo "$passed passed, $failed failed, $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
