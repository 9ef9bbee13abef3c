#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/packaging/test_debian.py - the Debian packages: build, contents, lintian, install.

Builds the packages with scripts/build-deb.sh (dpkg-buildpackage -us
-uc -b on a copy of the tree), checks with `dpkg -c` that each file is in
its place, runs lintian, runs the nsswitch.conf scripts on many hosts lines
(DPKG_ROOT, on temporary files), then installs, reinstalls, removes and
purges the packages in a throwaway root (deb-root.sh, in a private mount and
network namespace), and runs them under a real systemd in a container
(test_nspawn.py: the tree scripts/deps.sh debootstrapped).  Needs root (exit 77 without); never touches the real
/etc.
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", ".."))
failed = 0


def ok(what):
    print("ok   " + what)


def fail(what):
    global failed
    failed += 1
    print("FAIL " + what)


def multiarch():
    return subprocess.run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], capture_output=True,
                          text=True).stdout.strip()


def ext_suffix():
    """Debian's python3's extension suffix (.cpython-311-x86_64-linux-gnu.so)."""
    return subprocess.run(["/usr/bin/python3", "-c", "import sysconfig; print("
                           "sysconfig.get_config_var('EXT_SUFFIX'))"], capture_output=True,
                          text=True, check=True).stdout.strip()


def contents(out):
    ma = multiarch()
    want = {
        "namecache": ["./usr/sbin/namecached", "./usr/bin/namecachectl",
                      "./lib/systemd/system/namecached.service",
                      "./lib/systemd/system/namecached.socket",
                      "./usr/lib/sysusers.d/namecache.conf",
                      "./lib/systemd/system/namecache-dns.socket",
                      "./etc/namecache/namecached.conf",
                      "./usr/share/man/man8/namecached.8.gz",
                      "./usr/share/man/man5/namecached.conf.5.gz",
                      "./usr/share/man/man1/namecachectl.1.gz",
                      "./usr/share/doc/namecache/copyright"],
        "namecache-nscd": ["./lib/systemd/system/namecached.service.d/nscd.conf",
                           "./lib/systemd/system/namecached.socket.d/nscd.conf",
                           "./usr/share/doc/namecache-nscd/copyright"],
        "libnss-namecache": ["./usr/lib/%s/libnss_namecache.so.2" % ma,
                             "./usr/share/man/man8/nss-namecache.8.gz"],
        "libnamecache0": ["./usr/lib/%s/libnamecache.so.0.1.0" % ma,
                          "./usr/lib/%s/libnamecache.so.0" % ma],
        "python3-namecache": ["./usr/lib/python3/dist-packages/namecache/__init__.py",
                              "./usr/lib/python3/dist-packages/namecache/aio.py",
                              "./usr/lib/python3/dist-packages/namecache/_namecache" +
                              ext_suffix(),
                              "./usr/share/doc/python3-namecache/README.md"],
        "node-namecache": ["./usr/lib/%s/nodejs/namecache/index.js" % ma,
                           "./usr/lib/%s/nodejs/namecache/package.json" % ma,
                           "./usr/lib/%s/nodejs/namecache/namecache.node" % ma,
                           "./usr/share/doc/node-namecache/README.md"],
        "libnamecache-dev": ["./usr/include/namecache.h",
                             "./usr/lib/%s/libnamecache.so" % ma,
                             "./usr/lib/%s/pkgconfig/namecache.pc" % ma,
                             "./usr/share/man/man3/namecache.3.gz"],
    }
    for pkg, paths in want.items():
        debs = glob.glob(os.path.join(out, "%s_*.deb" % pkg))
        if len(debs) != 1:
            fail("%s: one .deb, found %r" % (pkg, debs))
            continue
        listing = subprocess.run(["dpkg", "-c", debs[0]], capture_output=True, text=True,
                                 check=True).stdout
        files = {}
        for line in listing.splitlines():
            f = line.split()
            files[f[5]] = (f[0], f[1])
        for p in paths:
            if p in files:
                ok("%s: %s %s %s" % (pkg, files[p][0], files[p][1], p))
            else:
                fail("%s: no %s" % (pkg, p))
        # Nothing of another package's, nothing outside Debian's folders.
        for p in files:
            if p.endswith("/"):
                continue
            if not p.startswith(("./usr/", "./lib/systemd/system/", "./etc/namecache/")):
                fail("%s: unexpected %s" % (pkg, p))
            if p.startswith("./usr/local"):
                fail("%s: %s under /usr/local" % (pkg, p))
        fields = subprocess.run(["dpkg-deb", "-f", debs[0]], capture_output=True, text=True,
                                check=True).stdout
        if pkg in ("libnss-namecache", "libnamecache0", "libnamecache-dev") and \
                "Multi-Arch: same" not in fields:
            fail("%s: not Multi-Arch: same" % pkg)
        if pkg == "namecache":
            ctl = subprocess.run(["dpkg-deb", "--ctrl-tarfile", debs[0]], capture_output=True,
                                 check=True).stdout
            conff = subprocess.run(["tar", "-xOf", "-", "./conffiles"], input=ctl,
                                   capture_output=True).stdout.decode()
            if conff.split() == ["/etc/namecache/namecached.conf"]:
                ok("namecache: conffiles: /etc/namecache/namecached.conf")
            else:
                fail("namecache: conffiles %r" % conff)


def lintian(out):
    changes = glob.glob(os.path.join(out, "*.changes"))
    t0 = time.monotonic()
    r = subprocess.run(["lintian", "--pedantic", "-I", "--fail-on", "error,warning,info,pedantic"]
                       + changes, capture_output=True, text=True, timeout=300)
    tags = [ln for ln in (r.stdout + r.stderr).splitlines()
            if ln and not ln.startswith("running with root privileges")]
    if r.returncode == 0 and not tags:
        ok("lintian --pedantic -I: no tags but the justified overrides (%.0f s)"
           % (time.monotonic() - t0))
    else:
        fail("lintian (exit %d):\n%s" % (r.returncode, "\n".join(tags)))


# (hosts line before, after postinst); postrm gives the first back unless noted.
NSS_CASES = [
    ("hosts:          files dns",
     "hosts:          namecache [!UNAVAIL=return] files dns"),
    ("hosts:          files mdns4_minimal [NOTFOUND=return] dns myhostname",
     "hosts:          namecache [!UNAVAIL=return] files mdns4_minimal [NOTFOUND=return] dns "
     "myhostname"),
    ("hosts:\tfiles\tdns", "hosts:\tnamecache [!UNAVAIL=return] files\tdns"),
    ("hosts:files dns", "hosts:namecache [!UNAVAIL=return] files dns"),
    ("hosts: dns files", "hosts: namecache [!UNAVAIL=return] dns files"),
    ("hosts: mymachines resolve [!UNAVAIL=return] files myhostname dns",
     "hosts: namecache [!UNAVAIL=return] mymachines resolve [!UNAVAIL=return] files "
     "myhostname dns"),
    ("hosts: resolve [!UNAVAIL=return] dns", "hosts: namecache [!UNAVAIL=return] resolve "
     "[!UNAVAIL=return] dns"),
    ("hosts: files", "hosts: namecache [!UNAVAIL=return] files"),
    ("hosts: myfiles dns", "hosts: namecache [!UNAVAIL=return] myfiles dns"),
]
# Already there: first, postinst leaves it; elsewhere (an older package put
# it before files), postinst moves it to the front.  Then postrm takes it out.
NSS_PRESENT = [
    ("hosts: namecache files dns", "hosts: namecache files dns", "hosts: files dns"),
    ("hosts: files dns namecache", "hosts: namecache [!UNAVAIL=return] files dns",
     "hosts: files dns"),
    ("hosts: files dns namecache [NOTFOUND=return]",
     "hosts: namecache [!UNAVAIL=return] files dns", "hosts: files dns"),
    ("hosts:          namecache [!UNAVAIL=return] files dns",
     "hosts:          namecache [!UNAVAIL=return] files dns", "hosts:          files dns"),
    ("hosts: files namecache [!UNAVAIL=return] mdns4_minimal [NOTFOUND=return] dns",
     "hosts: namecache [!UNAVAIL=return] files mdns4_minimal [NOTFOUND=return] dns",
     "hosts: files mdns4_minimal [NOTFOUND=return] dns"),
    ("hosts: namecache", "hosts: namecache", "hosts: "),
]


def nss_scripts():
    postinst = os.path.join(SRC, "packaging", "debian", "libnss-namecache.postinst")
    postrm = os.path.join(SRC, "packaging", "debian", "libnss-namecache.postrm")
    head = "# nsswitch.conf\npasswd: files\n#hosts: files dns\n"
    tail = "hostsfoo: files dns\nnetworks: files\n"

    def run(script, arg, root, **env):
        e = {"PATH": "/usr/bin:/bin", "DPKG_ROOT": root}
        e.update(env)
        r = subprocess.run(["sh", script, arg], env=e, capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError("%s %s: %s" % (script, arg, r.stderr))

    with tempfile.TemporaryDirectory(prefix="nc-nss-") as root:
        os.mkdir(os.path.join(root, "etc"))
        path = os.path.join(root, "etc", "nsswitch.conf")

        def write(line):
            with open(path, "w") as f:
                f.write(head + line + "\n" + tail)

        def line():
            text = open(path).read()
            if not (text.startswith(head) and text.endswith(tail)):
                raise AssertionError("other lines changed: %r" % text)
            return text[len(head):-len(tail)].rstrip("\n")

        bad = 0
        for before, after in NSS_CASES:
            write(before)
            run(postinst, "configure", root)
            got1 = line()
            run(postinst, "configure", root, DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT="1")
            got2 = line()
            run(postrm, "remove", root, DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT="2")
            got3 = line()
            run(postrm, "remove", root)
            got4 = line()
            run(postrm, "purge", root)
            got5 = line()
            if (got1, got2, got3, got4, got5) != (after, after, after, before, before):
                bad += 1
                fail("nsswitch %r: install %r, again %r, remove (2 archs) %r, remove %r, "
                     "purge %r" % (before, got1, got2, got3, got4, got5))
        for before, installed, after in NSS_PRESENT:
            write(before)
            run(postinst, "configure", root)
            got1 = line()
            run(postrm, "remove", root)
            got2 = line()
            if (got1, got2) != (installed, after):
                bad += 1
                fail("nsswitch %r: install %r, remove %r" % (before, got1, got2))
        # No hosts line, or no file: left as they are.
        with open(path, "w") as f:
            f.write(head)
        run(postinst, "configure", root)
        if open(path).read() != head:
            bad += 1
            fail("nsswitch without a hosts line changed")
        os.unlink(path)
        run(postinst, "configure", root)
        run(postrm, "purge", root)
        if os.path.exists(path):
            bad += 1
            fail("postinst made an nsswitch.conf")
        if not bad:
            ok("nsswitch.conf scripts: %d hosts lines in, out, twice, multiarch, none"
               % (len(NSS_CASES) + len(NSS_PRESENT)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", help="build into this folder and keep it")
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("skip: needs root (a private mount namespace for the throwaway root)")
        return 77
    nss_scripts()
    with tempfile.TemporaryDirectory(prefix="nc-deb-") as tmp:
        out = os.path.abspath(args.keep) if args.keep else tmp
        t0 = time.monotonic()
        r = subprocess.run([os.path.join(SRC, "scripts", "build-deb.sh"), out],
                           capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            fail("build-deb.sh:\n%s%s" % (r.stdout, r.stderr))
            return 1
        ok("dpkg-buildpackage -us -uc -b: %s (%.0f s)" % (
            " ".join(sorted(os.path.basename(p) for p in glob.glob(out + "/*.deb"))),
            time.monotonic() - t0))
        contents(out)
        lintian(out)
        r = subprocess.run(["unshare", "-m", "-n", os.path.join(HERE, "deb-root.sh"), out],
                           capture_output=True, text=True, timeout=300)
        print(r.stdout, end="")
        if r.returncode != 0:
            fail("deb-root.sh (exit %d): %s" % (r.returncode, r.stderr))
        # Issue 12: the same packages under a real systemd, in a container.
        r = subprocess.run([sys.executable, os.path.join(HERE, "test_nspawn.py"), out],
                           capture_output=True, text=True, timeout=600)
        print(r.stdout, end="")
        if r.returncode != 0:
            fail("test_nspawn.py (exit %d): %s" % (r.returncode, r.stderr[-2000:]))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
