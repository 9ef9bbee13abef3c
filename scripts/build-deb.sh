#!/bin/bash
# SPDX-License-Identifier: MIT
# scripts/build-deb.sh - build the Debian packages from this tree.
#
#   scripts/build-deb.sh [OUTDIR]      (default: build-deb/)
#
# dpkg-buildpackage wants debian/ at the top of the source tree, and builds
# in place.  The packaging lives in packaging/debian/ beside the rest of
# packaging/, so this copies the tree as it is now (tracked and untracked
# files that git does not ignore, without build folders) into a temporary
# folder, puts packaging/debian there as debian/, and runs
# `dpkg-buildpackage -us -uc -b` in it.  The working tree is never written.
# The .debs, .buildinfo and .changes land in OUTDIR.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/namecache-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/namecache
mkdir "$src"

cd "$top"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# Every file git knows or would add, as it is in the working tree.
	git ls-files -z --cached --others --exclude-standard |
		grep -zv -E '^(build[^/]*|debian)/' |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] && printf '%s\0' "$f"
		done |
		tar --null -T - -cf - | tar -xf - -C "$src"
else
	tar --exclude='./build*' --exclude=./debian -cf - . | tar -xf - -C "$src"
fi
cp -a packaging/debian "$src/debian"

cd "$src"
# nocheck: the suite runs in CI (scripts/test.sh), where it can be root.
DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1 || {
	cat "$work/build.log" >&2
	echo "build-deb.sh: dpkg-buildpackage failed" >&2
	exit 1
}
cd "$work"
for f in *.deb *.buildinfo *.changes; do
	mv -f "$f" "$out/"
done
ls "$out"/*.deb
