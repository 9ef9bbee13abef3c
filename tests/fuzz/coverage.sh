#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/fuzz/coverage.sh - how much of the code under test each corpus reaches.
#
# Usage: tests/fuzz/coverage.sh [EXTRA_CORPUS_ROOT]
#
# Builds each target's replay with clang's source-based coverage, runs it
# over corpus/NAME (and EXTRA_CORPUS_ROOT/NAME when given, for a fuzzing
# run's findings not yet merged), and prints a Markdown table: inputs, and
# the lines, branches and functions covered in the files under test (the
# same files tests/fuzz/meson.build compiles into the libFuzzer binary).
# Needs clang and llvm-14 (llvm-profdata-14, llvm-cov-14); writes only
# under a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$(pwd)
extra=${1:-}
tmp=$(mktemp -d /tmp/nc-fuzzcov.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# name: files under test (first) and the files they need to link.
declare -A src=(
	[dnsmsg]="daemon/sources/dnsmsg.c daemon/sources/dnsname.c proto/name.c"
	[dnswire]="daemon/front/dnswire.c daemon/sources/dnsmsg.c daemon/sources/dnsname.c proto/name.c"
	[proto]="proto/proto.c proto/nscd.c"
	[hosts]="daemon/sources/hosts.c proto/proto.c proto/shmfmt.c proto/name.c proto/hash.c"
	[config]="daemon/config.c daemon/log.c"
	[dnsanswer]="daemon/sources/dnsanswer.c daemon/sources/dnsmsg.c daemon/sources/dnsname.c proto/proto.c proto/name.c"
	[shm]="proto/shmfmt.c proto/name.c proto/hash.c"
	[client]="client-lib/decode.c proto/proto.c"
)
under_test() {
	case $1 in
	dnsanswer) echo daemon/sources/dnsanswer.c daemon/sources/dnsmsg.c daemon/sources/dnsname.c ;;
	*) echo "${src[$1]}" | cut -d' ' -f1 ;;
	esac
}

echo "/* buildinfo.h for the coverage build */" > "$tmp/buildinfo.h"
grep -h '#define' build*/buildinfo.h 2>/dev/null | sort -u >> "$tmp/buildinfo.h" || true

printf '| target | inputs | files | lines | branches | functions |\n'
printf '|---|---|---|---|---|---|\n'
for t in dnsmsg dnswire proto hosts config dnsanswer shm client; do
	files=()
	for f in ${src[$t]}; do files+=("$top/$f"); done
	clang -std=gnu17 -D_GNU_SOURCE -O1 -g -fprofile-instr-generate -fcoverage-mapping \
		-I"$tmp" -I"$top" -I"$top/proto" -I"$top/daemon" -I"$top/client-lib" \
		-I"$top/client-lib/include" \
		"$top/tests/fuzz/fuzz-$t.c" "$top/tests/fuzz/replay.c" "${files[@]}" \
		-o "$tmp/replay-$t" 2>"$tmp/cc-$t.log" || { cat "$tmp/cc-$t.log" >&2; exit 1; }
	dirs=("$top/tests/fuzz/corpus/$t")
	[ -n "$extra" ] && [ -d "$extra/$t" ] && dirs+=("$extra/$t")
	n=0
	for d in "${dirs[@]}"; do n=$((n + $(find "$d/" -maxdepth 1 -type f ! -name '.*' | wc -l))); done
	LLVM_PROFILE_FILE="$tmp/$t.profraw" "$tmp/replay-$t" "${dirs[@]}" >/dev/null 2>&1 || true
	llvm-profdata-14 merge -sparse "$tmp/$t.profraw" -o "$tmp/$t.profdata"
	ut=()
	for f in $(under_test $t); do ut+=("$top/$f"); done
	llvm-cov-14 report "$tmp/replay-$t" -instr-profile="$tmp/$t.profdata" "${ut[@]}" \
		> "$tmp/$t.report"
	# The TOTAL line: regions, missed, %, functions, missed, %, lines,
	# missed, %, branches, missed, %.
	read -r _ _ _ _ fn fnm _ ln lnm _ br brm _ < <(grep '^TOTAL' "$tmp/$t.report")
	pct() { awk -v a="$1" -v m="$2" 'BEGIN { printf "%d / %d (%.1f%%)", a - m, a, a ? 100 * (a - m) / a : 0 }'; }
	printf '| %s | %d | %s | %s | %s | %s |\n' "$t" "$n" "$(under_test $t | sed 's/ /, /g')" \
		"$(pct "$ln" "$lnm")" "$(pct "$br" "$brm")" "$(pct "$fn" "$fnm")"
done
