#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/test.sh - install what is needed, build with warnings as errors, run every test.
#
# Runs the whole suite twice: a normal build, then one under AddressSanitizer
# and UndefinedBehaviorSanitizer.  Ends with "N passed, N failed".
# Between them, the daemon's integration tests under valgrind, and a short
# run of each libFuzzer target built by clang.  NAMECACHE_SKIP_APT=1 skips
# the package install; NAMECACHE_NO_ASAN=1, NAMECACHE_NO_VALGRIND=1 and
# NAMECACHE_NO_FUZZ=1 skip those passes.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

if [ "${NAMECACHE_SKIP_APT:-0}" != 1 ]; then
	scripts/deps.sh || exit 1
fi

passed=0
failed=0

# count BUILD [LOGBASE]: adds that build's meson test results to the totals.
count() {
	local log=$1/meson-logs/${2:-testlog}.json p f
	if [ ! -f "$log" ]; then
		failed=$((failed + 1))
		return
	fi
	p=$(grep -c '"result": "OK"' "$log" || true)
	f=$(grep -c '"result": "\(FAIL\|TIMEOUT\|ERROR\|UNEXPECTEDPASS\)"' "$log" || true)
	passed=$((passed + p))
	failed=$((failed + f))
}

# suite NAME BUILD [meson setup options...]
suite() {
	local name=$1 dir=$2
	shift 2
	echo "=== $name: configure and build in $dir"
	if [ -d "$dir" ]; then
		meson setup --reconfigure "$dir" -Dwerror=true "$@" >/dev/null || { failed=$((failed + 1)); return; }
	else
		meson setup "$dir" -Dwerror=true "$@" >/dev/null || { failed=$((failed + 1)); return; }
	fi
	rm -f "$dir/meson-logs/testlog.json"
	if ! meson compile -C "$dir"; then
		echo "=== $name: build FAILED"
		failed=$((failed + 1))
		return
	fi
	echo "=== $name: tests"
	meson test -C "$dir" --print-errorlogs --num-processes 2
	count "$dir"
}

suite "normal build" "$top/build-test"

# The daemon's integration tests once more, every daemon under valgrind's
# memcheck (tests/nclib.py), the DNS listener's and nscd's other databases':
# an error, or a definite or indirect leak at
# exit, fails the test.  The timing-heavy DNS and shared-segment scripts
# are left to the sanitizer pass: under valgrind they would take minutes.
if [ "${NAMECACHE_NO_VALGRIND:-0}" != 1 ] && [ -f "$top/build-test/build.ninja" ]; then
	echo "=== valgrind: the daemon's integration tests"
	rm -f "$top/build-test/meson-logs/valgrind.json"
	NAMECACHE_VALGRIND=1 meson test -C "$top/build-test" --print-errorlogs \
		--logbase valgrind --timeout-multiplier 3 \
		integration-daemon integration-hostile integration-faults integration-nss integration-owner \
		dnslisten nscddb-differential monitor metrics-http
	count "$top/build-test" valgrind
fi

# The libFuzzer targets under clang, each fuzzed briefly from its corpus:
# they build, and nothing easy was left to find.  (Long runs: tests/fuzz.)
if [ "${NAMECACHE_NO_FUZZ:-0}" != 1 ]; then
	targets="dnsmsg dnswire proto hosts config dnsanswer shm client nsswitch nscdent store nss"
	echo "=== fuzz: clang build of the libFuzzer targets, 5 s of fuzzing each"
	fz=$top/build-fuzz
	rm -f "$fz/meson-logs/fuzzrun.json"
	if { [ -d "$fz" ] || CC=clang meson setup "$fz" -Dfuzz=true -Dfuzz_seconds=5 \
	    -Dwerror=true >/dev/null; } &&
	    meson compile -C "$fz" $(printf 'fuzz-%s ' $targets); then
		meson test -C "$fz" --no-rebuild --suite fuzz-run --logbase fuzzrun \
			--print-errorlogs
		count "$fz" fuzzrun
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
	NAMECACHE_DIFF_COUNT=${NAMECACHE_DIFF_COUNT:-100} \
	NAMECACHE_FLOOD_COUNT=${NAMECACHE_FLOOD_COUNT:-200000} \
	suite "ASan+UBSan build" "$top/build-asan" -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debug
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
