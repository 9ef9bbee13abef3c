#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""scripts/skips.py - every skip of a run of scripts/test.sh, held to tests/skip-allow.txt.

    skips.py --allow FILE [--strict] PASS=TESTLOG.json ...

Reads meson's test logs (one JSON object a line) and finds two kinds of
skip: a test meson counted as SKIP (it exited 77), and a line a test that
passed printed starting with "skip" (any case): a part of it that did not
run.  Tests print such a part as "SKIP WHAT: WHY" (nclib.skip_part); any
other spelling is a skip too, named "?", which no entry allows.

Prints one line a skip, "skip PASS TEST WHAT: WHY", marked "(allowed)" when
an entry of the allow list matches, and last "skipped N, not allowed M".
The exit status is 1 with --strict when M > 0, else 0.

It also looks through the output of every test that passed for a
sanitizer's report (UndefinedBehaviorSanitizer's "runtime error:",
AddressSanitizer's or LeakSanitizer's "ERROR:"), which a process that went
on, or one whose exit status nobody read, can leave in a passing test:
one line "sanitizer PASS TEST: LINE" each, and "sanitizer reports N" before
the last line.

The allow list: one entry a line, "PASS TEST WHAT REASON...", '#' to the
end of a line a comment.  PASS is normal, valgrind, fuzz or asan, or *;
TEST is meson's test name (without the suite); WHAT is the part's name,
or * for any part and for a whole test that meson skipped.  The reason is
required: an entry says why this skip is the truth of the machine and not
a test that cannot fail."""
import argparse
import json
import re
import sys

SKIP_LINE = re.compile(r"^\s*skip\b", re.I)
SANITIZER = re.compile(r"runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer")
PART = re.compile(r"^\s*SKIP\s+(\S+):\s*(.*)$")


def read_allow(path):
    allow = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            w = line.split(None, 3)
            if len(w) < 4:
                raise SystemExit("%s:%d: PASS TEST WHAT REASON, and the reason is "
                                 "required" % (path, no))
            allow.append(tuple(w[:3]))
    return allow


def allowed(allow, pas, test, what):
    return any(p in ("*", pas) and t == test and w in ("*", what) for p, t, w in allow)


def skips_of(pas, log, reports):
    """[(pass, test, what, why)] of one meson test log; sanitizer reports
    in passing tests' output go to reports, as (pass, test, line)."""
    out = []
    try:
        f = open(log)
    except FileNotFoundError:
        return out
    with f:
        for line in f:
            try:
                t = json.loads(line)
            except ValueError:
                continue
            name = t.get("name", "?").split(" / ")[-1]
            text = (t.get("stdout") or "") + "\n" + (t.get("stderr") or "")
            if t.get("result") == "SKIP":
                why = next((l.strip() for l in text.splitlines() if SKIP_LINE.match(l)),
                           "exit 77")
                out.append((pas, name, "*", why))
                continue
            if t.get("result") != "OK":
                continue
            for l in text.splitlines():
                if SANITIZER.search(l):
                    reports.append((pas, name, l.strip()))
                if not SKIP_LINE.match(l):
                    continue
                m = PART.match(l)
                out.append((pas, name, m.group(1), m.group(2)) if m else
                           (pas, name, "?", l.strip()))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--allow", required=True)
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("logs", nargs="*", metavar="PASS=LOG")
    a = ap.parse_args()
    allow = read_allow(a.allow)
    found, reports = [], []
    for arg in a.logs:
        pas, _, log = arg.partition("=")
        found += skips_of(pas, log, reports)
    bad = 0
    for pas, test, what, why in found:
        ok = allowed(allow, pas, test, what)
        bad += not ok
        print("skip %s %s %s: %s%s" % (pas, test, what, why, " (allowed)" if ok else
                                       " (NOT ALLOWED: tests/skip-allow.txt)"))
    for pas, test, line in reports:
        print("sanitizer %s %s: %s" % (pas, test, line[:300]))
    print("sanitizer reports %d" % len(reports))
    print("skipped %d, not allowed %d" % (len(found), bad))
    return 1 if a.strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())
