#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/test.sh - install what is needed, build with warnings as errors, run every test.
#
# Runs the whole suite twice: a normal build, then one under AddressSanitizer
# and UndefinedBehaviorSanitizer.  Ends with "N passed, N failed".
# NAMECACHE_SKIP_APT=1 skips the package install; NAMECACHE_NO_ASAN=1 the
# second pass.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

if [ "${NAMECACHE_SKIP_APT:-0}" != 1 ]; then
	scripts/deps.sh || exit 1
fi

passed=0
failed=0

# count BUILD: adds that build's meson test results to the totals.
count() {
	local log=$1/meson-logs/testlog.json p f
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
if [ "${NAMECACHE_NO_ASAN:-0}" != 1 ]; then
	# The sanitizers make the differential test's 300 random files a
	# seven-minute run on two cores; 100 under them (the normal build keeps
	# 300), unless NAMECACHE_DIFF_COUNT says otherwise.
	NAMECACHE_DIFF_COUNT=${NAMECACHE_DIFF_COUNT:-100} \
	suite "ASan+UBSan build" "$top/build-asan" -Db_sanitize=address,undefined \
		-Db_lundef=false -Dbuildtype=debug
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
