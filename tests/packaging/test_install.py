#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/packaging/test_install.py - where meson install puts each file; the units verify.

Installs the build into a temporary DESTDIR and checks each file's place:
the NSS module in the multiarch libdir, the units in pkg-config systemd's
systemdsystemunitdir, the sysusers.d entry, the configuration under
sysconfdir, the man pages.  Then `systemd-analyze verify` checks the
installed units, with their ExecStart= binary and Documentation= man pages
taken from DESTDIR: a private mount namespace binds DESTDIR's sbin over the
real one, so this part needs root (exit 77 without).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def pkgvar(var, default):
    r = subprocess.run(["pkg-config", "--variable=" + var, "systemd"], capture_output=True,
                       text=True)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else default


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    if os.geteuid() != 0:
        print("skip: needs root (a private mount namespace for systemd-analyze verify)")
        return 77
    opts = {o["name"]: o["value"] for o in json.loads(subprocess.run(
        ["meson", "introspect", "--buildoptions", build], capture_output=True, text=True,
        check=True).stdout)}
    prefix = opts["prefix"]

    def under(d):
        return d if d.startswith("/") else os.path.join(prefix, d)

    multiarch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True,
                               text=True).stdout.strip()
    unitdir = opts["systemdsystemunitdir"] or pkgvar("systemdsystemunitdir",
                                                     prefix + "/lib/systemd/system")
    sysusersdir = opts["sysusersdir"] or pkgvar("sysusersdir", prefix + "/lib/sysusers.d")
    libdir, sbindir, bindir = under(opts["libdir"]), under(opts["sbindir"]), under(opts["bindir"])
    mandir, etc = under(opts["mandir"]), under(opts["sysconfdir"])
    failed = 0
    with tempfile.TemporaryDirectory(prefix="nc-inst-") as dest:
        subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet",
                        "--destdir", dest], check=True, stdout=subprocess.DEVNULL)
        want = {
            sbindir + "/namecached": 0o755,
            bindir + "/namecachectl": 0o755,
            libdir + "/libnss_namecache.so.2": 0o755,
            libdir + "/libnamecache.so.0": None,
            libdir + "/pkgconfig/namecache.pc": 0o644,
            unitdir + "/namecached.service": 0o644,
            unitdir + "/namecached.socket": 0o644,
            sysusersdir + "/namecache.conf": 0o644,
            etc + "/namecache/namecached.conf": 0o644,
            mandir + "/man8/namecached.8": 0o644,
            mandir + "/man5/namecached.conf.5": 0o644,
            mandir + "/man1/namecachectl.1": 0o644,
            mandir + "/man8/nss-namecache.8": 0o644,
            mandir + "/man3/namecache.3": 0o644,
        }
        # Debian's multiarch libdir, and pkg-config's unit folder.
        if multiarch and prefix == "/usr":
            want_lib = "/usr/lib/" + multiarch
            if libdir != want_lib:
                print("FAIL libdir %s, not %s" % (libdir, want_lib))
                failed += 1
        for path, mode in sorted(want.items()):
            full = dest + path
            if not os.path.exists(full):
                print("FAIL missing %s" % path)
                failed += 1
            elif mode is not None and os.stat(full).st_mode & 0o777 != mode:
                print("FAIL %s mode %o" % (path, os.stat(full).st_mode & 0o777))
                failed += 1
            else:
                print("ok   %s" % path)
        svc = open(dest + unitdir + "/namecached.service").read()
        if "ExecStart=%s/namecached\n" % sbindir not in svc:
            print("FAIL ExecStart= is not %s/namecached" % sbindir)
            failed += 1

        # systemd-analyze verify, against the installed units, binary and man pages.
        if not os.path.isdir(sbindir):
            # Never made on the real system: bind over an existing folder only.
            print("FAIL %s does not exist here to bind DESTDIR's over" % sbindir)
            return 1
        script = ('mount --bind "$1" "$2" && MANPATH="$3" exec systemd-analyze verify '
                  '"$4" "$5"')
        r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script,
                            "sh", dest + sbindir, sbindir, dest + mandir,
                            dest + unitdir + "/namecached.socket",
                            dest + unitdir + "/namecached.service"],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
            print("FAIL systemd-analyze verify: %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
            failed += 1
        else:
            print("ok   systemd-analyze verify: clean")
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
