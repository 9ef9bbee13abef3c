#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/unit/engine_rejects.py - test-engine refuses a scenario file it cannot check.

    engine_rejects.py TEST-ENGINE FILE...

Each FILE (tests/unit/scenarios-bad/) says on its first line what
test-engine must say of it ("# want: FILE:LINE: MESSAGE"): an unknown key,
a key the answer has no field for, a key given twice, a word where a key
was due, a yes that is not one, aliases that differ, a command before the
first scenario.  test-engine must fail with that message for each: a
misspelt check is a failure, never a check that passes unread.
"""
import subprocess
import sys


def main():
    exe, files = sys.argv[1], sys.argv[2:]
    failed = 0
    for path in files:
        with open(path) as f:
            first = f.readline()
        assert first.startswith("# want: "), path
        want = first[len("# want: "):].strip()
        r = subprocess.run([exe, path], capture_output=True, text=True, timeout=60)
        out = r.stdout + r.stderr
        if r.returncode != 0 and want in out:
            print("ok   %s: %s" % (path.rsplit("/", 1)[-1], want))
        else:
            failed += 1
            print("FAIL %s: exit %d, want %r in:\n%s" % (path, r.returncode, want, out))
    print("%d files, %d failed" % (len(files), failed))
    return 1 if failed or not files else 0


if __name__ == "__main__":
    sys.exit(main())
