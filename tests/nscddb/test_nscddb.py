#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/nscddb/test_nscddb.py - passwd, group, initgroups, services, netgroup on the nscd socket against glibc's own walk.

The whole run is in a private mount namespace (it re-executes itself in
`unshare -m`): a tmpfs over /run, so glibc's fixed /var/run/nscd/socket is
the test's, and a copy of /etc bound over /etc with the test's
nsswitch.conf, passwd (10,000 generated users, the last one distinctive),
group, services (the machine's and test entries) and netgroup (nesting, a
loop, wildcards).  The real /etc is only read.  passwd and group are
"files ncdir": tests/nss/libnss_ncdir.so.2 is a fake user directory (5000
users, a 5000-member group, uid and gid above 2^31), loaded through
LD_LIBRARY_PATH.

Differential (differential): for every key (hits, misses, the big group,
the uid above 2^31, dotted names, case variants, names in both sources),
with getent (passwd, group, initgroups, services, netgroup, innetgr and
whole enumerations), id, Python (pwd, grp, os.getgrouplist, socket's
services) and dbprobe (the C _r functions, getgrouplist, netgroups):

  run A   glibc alone: no /run/nscd/socket;
  run B1  through the server (first lookups: misses);
  run B2  the same again in new processes (hits, from the mapped files).

Each nsswitch.conf variant restarts the server: no initgroups line;
"initgroups: files ncdir"; "group: files [SUCCESS=merge] ncdir"; and two
modules, "files ncdyn ncdir", where ncdyn (libnss_ncdyn.so.2 with
NCDYN_STATIC=0) has only a few dynamic users, one of them another
ncu0001.  Every difference is reported with its key; the test fails on
any not in ALLOW (each entry says why).  Also checked in run B: the
clients never walk NSS themselves for a keyed lookup (each process logs
its module calls: one means the server refused, and glibc then leaves
nscd alone for that database for the process's next 100 lookups), and a
hit (B2) makes the server call no module.

The server is pluggable: --server namecache (the default, what meson
runs) starts namecached on glibc's socket; --server nscd starts Debian's
glibc nscd (/usr/sbin/nscd -F) with a test nscd.conf, which validates the
harness and shows what a real nscd gets wrong.  Glibc 2.36's nscd
(Debian 2.36-9+deb12u14) against glibc's own walk, each in ALLOW for
server "nscd" only:

  1. It ignores the initgroups line: nscd/initgrcache.c walks the group
     line and goes on past a SUCCESS, so under "initgroups: files ncdir"
     ncu0001 has 45 groups through nscd and 5 (files' only) directly.
  2. An answer found by id is filed under its name too: after
     getgrgid(200001) (the directory's ncsmall), getgrnam("ncsmall")
     gives it, where glibc gives files' ncsmall (gid 150001); the same
     for getpwuid(200003) and files' ncu0003, and on "files ncdyn ncdir"
     for getpwuid(200001) (the directory's ncu0001; ncdyn's comes first
     by name).  What a lookup by name answers depends on what was asked
     before.
  3. innetgr compares the host and the domain with strcmp (glibc's own
     innetgr: strcasecmp): innetgr(ncng-all, NCGH1, -, -) is 0 through
     nscd, 1 directly; the same for NCDOM.
  4. Nested netgroups come in another order (the same triples).
  5. Ids above 2^31 (uid 3000000000, gids 3000000001, 4000000000) are
     never cache hits: the server calls the module at every lookup (the
     answers are right).
And for any server (the protocol's): a group list (getgrouplist, id)
comes in another order, since INITGROUPS carries no gid: glibc's walk
puts the given gid first, its nscd client leaves it where the server's
list has it.  The set must be equal.
Nothing else differed: the 80 KB group, the uid above 2^31, dotted and
60-byte names, services (aliases, protocols, ports), netgroup loops,
self-reference, wildcards and empty fields, group merging, two modules,
misses, the empty name.

Other tests, each needing the server (they pass with --server nscd):
  nixos_client_without_module: the server's environment has the module,
      the client's does not, its nsswitch.conf still names ncdir: the
      client gets ncu0001 through the socket alone;
  musl_static: a static musl program (tests/nscddb/musl-pw.c, built here
      with musl-gcc -static, skipped without it) gets directory users,
      the big group and ncu0001's group list, which musl can only learn
      from the nscd socket.

Needs root (exit 77, a skip, otherwise).  Nothing leaves loopback.

Run: /usr/bin/python3 tests/nscddb/test_nscddb.py --build BUILD
         [--server namecache|nscd] [-k NAME]
"""
import fnmatch
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import nclib  # noqa: E402
import privns  # noqa: E402

BUILD = None
SERVER = "namecache"
TESTS = []
PYTHON = "/usr/bin/python3"
NSCD = "/usr/sbin/nscd"
NSCD_SOCKET = "/var/run/nscd/socket"
ETC = None                  # the copy of /etc bound over /etc


def test(fn):
    TESTS.append(fn)
    return fn


def nssdir():
    return os.path.join(BUILD, "tests", "nss")


def dbprobe_path():
    return os.path.join(BUILD, "tests", "nscddb", "dbprobe")


# --- the files -----------------------------------------------------------------------

LONG_USER = "nclong-user-0123456789-0123456789-0123456789-0123456789-abcd"

NSS_COMMON = ("hosts: files\nnetworks: files\nprotocols: files\nshadow: files\n"
              "gshadow: files\nrpc: files\nethers: files\n")
VARIANTS = [
    # name, nsswitch.conf, the query families it runs
    ("plain", "passwd: files ncdir\ngroup: files ncdir\nservices: files\n"
     "netgroup: files\n" + NSS_COMMON, None),
    # With an initgroups line glibc respects the first SUCCESS (files
    # says SUCCESS when it found the user in any group); without one it
    # walks every group module.
    ("initgroups", "passwd: files ncdir\ngroup: files ncdir\ninitgroups: files ncdir\n"
     "services: files\nnetgroup: files\n" + NSS_COMMON, {"initgroups", "id"}),
    # A group both sources have (same name, same gid) is merged.
    ("merge", "passwd: files ncdir\ngroup: files [SUCCESS=merge] ncdir\n"
     "services: files\nnetgroup: files\n" + NSS_COMMON, {"group", "initgroups", "id"}),
    # Two modules: ncdyn (NCDYN_STATIC=0: DYNAMIC_TEXT's users only, as
    # nss-systemd's) before the directory; its ncu0001 hides the
    # directory's by name, not by uid.
    ("two-modules", "passwd: files ncdyn ncdir\ngroup: files ncdyn ncdir\nservices: files\n"
     "netgroup: files\n" + NSS_COMMON, {"passwd", "group", "initgroups", "id"}),
    # A module without initgroups_dyn (libnss_ncenum.so.2): a user's groups
    # by enumerating getgrent_r, in glibc (compat_call) and in the daemon.
    ("enumerated", "passwd: files ncenum\ngroup: files ncenum\nservices: files\n"
     "netgroup: files\n" + NSS_COMMON, {"initgroups", "id"}),
]
DYNAMIC_TEXT = "ncdynuser1:61001\nncdynuser2:61002\nncu0001:61003\n"
VARIANT_ENV = {}            # variant -> the environment its processes add


def passwd_text():
    lines = []
    # Both sources: files' ncu0003 (another uid) hides the directory's by
    # name, not by uid; files' ncfdup has the directory's ncu0004's uid.
    lines.append("ncu0003:x:150003:100:Files ncu0003:/home/files-ncu0003:/bin/sh")
    lines.append("ncfdup:x:200004:200000:Files uid 200004:/home/ncfdup:/bin/sh")
    lines.append("ncfempty:x:150010:150010::/:")
    for i in range(9999):
        lines.append("ncf%05d:x:%d:100:NCF File User %d:/home/ncf%05d:/bin/sh" %
                     (i, 100000 + i, i, i))
    # The last line: every field unlike the others, ids above 2^31.
    lines.append("ncf09999:x:4000000000:4000000000:Last Line,Room 9,,:/var/empty/last:"
                 "/usr/sbin/nologin")
    with open("/etc/passwd") as f:
        real = f.read()
    return real + ("" if real.endswith("\n") else "\n") + "\n".join(lines) + "\n"


def group_text():
    lines = [
        "ncfiles:x:150000:ncu0001,ncu0002,ncf00001",
        # ncdir's ncsmall is gid 200001: by name files wins, by gid ncdir.
        "ncsmall:x:150001:ncf00002,ncu0001",
        "ncfmany:x:150002:" + ",".join("ncf%05d" % i for i in range(2000)),
        "ncfempty:x:150010:",
        # gid 210000 is ncdir's ncg00 too.
        "ncfdupgid:x:210000:ncu0002,ncf00003",
        # Same name and gid as ncdir's ncg05: merged under the merge line.
        "ncg05:x:210005:ncf00005,ncu0001",
        "ncflast:x:4000000000:ncf09999,ncu0001",
    ]
    with open("/etc/group") as f:
        real = f.read()
    return real + ("" if real.endswith("\n") else "\n") + "\n".join(lines) + "\n"


def services_text():
    lines = [
        "nctest-svc\t40001/tcp\tncalias1 ncalias2",
        "nctest-svc\t40001/udp\tncalias1",
        "nctest-udp\t40002/udp",
        "nctest-dup\t40003/tcp",
        "nctest-dup2\t40003/tcp\t# a second name for the port: the first wins",
        "NcTest-Case\t40004/tcp",
        "nctest-top\t65535/tcp\tnctop",
        "nctest-sctp\t40005/sctp",
    ]
    with open("/etc/services") as f:
        real = f.read()
    return real + ("" if real.endswith("\n") else "\n") + "\n".join(lines) + "\n"


NETGROUP_TEXT = """\
# tests/nscddb: nesting, a loop, wildcards, empty fields
ncng-hosts (ncgh1,-,) (ncgh2,-,ncdom)
ncng-users (-,ncu0001,) (-,ncu0002,ncdom) (-,ncf00001,)
ncng-all ncng-hosts ncng-users (ncgh3,ncu0003,ncdom)
ncng-deep ncng-all
ncng-loop-a (loopa,ua,) ncng-loop-b
ncng-loop-b (loopb,ub,) ncng-loop-a
ncng-self ncng-self (selfh,,)
ncng-wild (,,)
ncng-fields (ncgh4,,) (,ncu0004,) (,,ncdom)
ncng-missing ncng-nosuch (ncgh5,-,-)
ncng-empty
ncng-dup (ncgh1,-,) ncng-hosts
ncng-cont (conth1,cu1,cd1) \\
    (conth2,cu2,cd2)
ncng-spaces ( sph , spu , spd )
"""

NSCD_CONF = """\
logfile {log}
debug-level 0
paranoia no
threads 4
enable-cache hosts no
""" + "".join("""\
enable-cache {db} yes
positive-time-to-live {db} 3600
negative-time-to-live {db} 3600
suggested-size {db} 2111
check-files {db} yes
persistent {db} no
shared {db} yes
max-db-size {db} 33554432
""".replace("{db}", db) for db in ("passwd", "group", "services", "netgroup"))

# The daemon's own settings for these databases: hits for the whole run.
NAMECACHE_CONF = """\
nscd_databases = passwd group services netgroup
nscd_passwd_negative_ttl = 3600
nscd_group_negative_ttl = 3600
nscd_services_negative_ttl = 3600
nscd_netgroup_negative_ttl = 3600
"""


# --- the keys ------------------------------------------------------------------------

USERS = ["ncu0000", "ncu0001", "ncu0002", "ncu0003", "ncu0004", "ncu4999", "ncu5000", "ncdynuser1",
         "NCU0001", "Ncu0001", "ncu001", "nc.dot-user", "nc-dash.2", LONG_USER,
         LONG_USER + "x", "ncnogroup", "ncbig", "ncf00000", "ncf00001", "ncf05000",
         "ncf09999", "ncfdup", "ncfempty", "root", "nobody", "nosuchuser", ""]
UIDS = ["0", "65534", "100000", "105000", "150003", "199999", "200000", "200001", "200003",
        "200004",
        "204999", "205000", "205003", "2147483647", "2147483648", "3000000000",
        "4000000000", "4294967294", "61001", "61003"]
GROUPS = ["ncstaff", "ncsmall", "ncg00", "ncg05", "ncg39", "ncg40", "ncbiggrp", "ncempty",
          "NCSTAFF", "ncfiles", "ncfmany", "ncflast", "ncfdupgid", "ncfempty", "root",
          "users", "nogroup", "nosuchgroup", "ncdynuser2", ""]
GIDS = ["0", "100", "150000", "150001", "150002", "200000", "200001", "210000", "210005",
        "210039", "220000", "299999", "2147483648", "3000000001", "4000000000", "61002"]
INITGROUPS = ["ncu0001", "ncu0002", "ncu0003", "ncu0004", "ncu4999", "nc.dot-user",
              "nc-dash.2", LONG_USER, "ncbig", "ncnogroup", "ncf00001", "ncf00005",
              "ncf09999", "ncfdup", "root", "nosuchuser", "NCU0001", "ncdynuser1"]
GROUPLISTS = [("ncu0001", "200000"), ("ncu0002", "200000"), ("ncu0003", "100"),
              ("ncbig", "3000000001"), ("ncf00001", "100"), ("ncf09999", "4000000000"),
              ("nc.dot-user", "200000"), ("nosuchuser", "12345"), ("root", "0"),
              ("ncu0001", "4294967295"), ("ncu0001", "61003"), ("ncdynuser1", "61001")]
ID_KEYS = ["ncu0001", "ncu0002", "ncu0003", "ncbig", "ncnogroup", "nc.dot-user", LONG_USER,
           "ncf00001", "ncf00005", "ncf09999", "ncfdup", "root", "nosuchuser", "200004",
           "3000000000", "ncdynuser1"]
SERVICES = ["nctest-svc", "nctest-svc/tcp", "nctest-svc/udp", "nctest-svc/sctp",
            "ncalias1", "ncalias1/udp", "ncalias2/tcp", "ncalias2/udp", "nctest-udp",
            "nctest-udp/tcp", "nctest-dup", "nctest-dup2", "NcTest-Case", "nctest-case",
            "nctop", "nctest-sctp", "40001", "40001/udp", "40002", "40002/tcp", "40003",
            "40004", "40005", "40005/sctp", "65535", "ssh", "http", "http/udp", "www", "80",
            "80/udp", "domain/udp", "53", "25/tcp", "nosuchservice", "nosuchservice/tcp",
            "0", "99999"]
NETGROUPS = ["ncng-hosts", "ncng-users", "ncng-all", "ncng-deep", "ncng-loop-a",
             "ncng-loop-b", "ncng-self", "ncng-wild", "ncng-fields", "ncng-missing",
             "ncng-empty", "ncng-dup", "ncng-cont", "ncng-spaces", "NCNG-ALL", "ncng-nosuch"]
# innetgr(netgroup, host, user, domain); None is NULL.
INNETGR = [
    ("ncng-all", "ncgh1", None, None), ("ncng-all", "ncgh3", "ncu0003", "ncdom"),
    ("ncng-all", None, "ncu0002", "ncdom"), ("ncng-all", None, "ncu0002", "otherdom"),
    ("ncng-all", "NCGH1", None, None), ("ncng-all", None, None, "NCDOM"),
    ("ncng-all", None, "NCU0001", None), ("ncng-deep", "ncgh2", None, "ncdom"),
    ("ncng-all", "ncgh3", "ncu0003", "NCDOM"), ("ncng-users", None, "ncu0002", "NCDOM"),
    ("ncng-hosts", "ncgh1", "someuser", None), ("ncng-hosts", "ncgh1", "-", None),
    ("ncng-loop-a", "loopb", None, None), ("ncng-loop-b", None, "ua", None),
    ("ncng-loop-a", "nohost", None, None), ("ncng-self", "selfh", "x", "y"),
    ("ncng-wild", "anyhost", "anyuser", "anydom"), ("ncng-wild", None, None, None),
    ("ncng-fields", "ncgh4", "x", "y"), ("ncng-fields", "other", "ncu0004", None),
    ("ncng-fields", "other", "other", "ncdom"), ("ncng-fields", "other", "other", "other"),
    ("ncng-missing", "ncgh5", None, None), ("ncng-empty", None, None, None),
    ("ncng-cont", "conth2", "cu2", "cd2"), ("ncng-spaces", "sph", None, None),
    ("ncng-nosuch", None, None, None), ("ncng-dup", "ncgh2", None, None),
]


def queries(families):
    """(family, label, argv) for the single-shot programs (getent, id)."""
    q = []

    def add(fam, argv):
        if families is None or fam in families:
            q.append((fam, " ".join(a if a else "''" for a in argv), argv))
    for k in USERS + UIDS:
        add("passwd", ["getent", "passwd", k])
    for k in GROUPS + GIDS:
        add("group", ["getent", "group", k])
    for k in INITGROUPS:
        add("initgroups", ["getent", "initgroups", k])
    for k in SERVICES:
        add("services", ["getent", "services", k])
    for k in NETGROUPS:
        add("netgroup", ["getent", "netgroup", k])
    for t in INNETGR:
        add("netgroup", ["getent", "netgroup"] + [a if a is not None else "*" for a in t])
    for k in ID_KEYS:
        add("id", ["id", k])
    # Whole enumerations: not nscd's, but the same process may have asked it.
    add("passwd", ["getent", "passwd"])
    add("group", ["getent", "group"])
    return q


def probe_args(families):
    args = []

    def want(f):
        return families is None or f in families
    if want("passwd"):
        for k in USERS:
            args += ["pwnam", k]
        for k in UIDS:
            args += ["pwuid", k]
        args += ["pwent"]
    if want("group"):
        for k in GROUPS:
            args += ["grnam", k]
        for k in GIDS:
            args += ["grgid", k]
        args += ["grent"]
    if want("initgroups"):
        for u, g in GROUPLISTS:
            args += ["grouplist", u, g]
    if want("services"):
        for k in SERVICES:
            name, _, proto = k.partition("/")
            args += ["servport" if name.isdigit() else "servname", name, proto or "-"]
    if want("netgroup"):
        for k in NETGROUPS:
            args += ["netgr", k]
        for t in INNETGR:
            args += ["innetgr"] + [a if a is not None else "-" for a in t]
    return args


def python_calls(families):
    calls = []

    def want(f):
        return families is None or f in families
    if want("passwd"):
        calls += [["getpwnam", k] for k in USERS] + [["getpwuid", k] for k in UIDS]
    if want("group"):
        calls += [["getgrnam", k] for k in GROUPS] + [["getgrgid", k] for k in GIDS]
    if want("initgroups"):
        calls += [["getgrouplist", u, g] for u, g in GROUPLISTS]
    if want("services"):
        for k in SERVICES:
            name, _, proto = k.partition("/")
            calls.append(["getservbyport" if name.isdigit() else "getservbyname", name] +
                         ([proto] if proto else []))
    return calls


PY_CLIENT = r"""
import grp, json, os, pwd, socket, sys
out = {}
for call in json.loads(sys.argv[1]):
    fn, args = call[0], call[1:]
    label = "python " + " ".join([fn] + [a if a else "''" for a in args])
    try:
        if fn == "getpwnam":
            r = list(pwd.getpwnam(args[0]))
        elif fn == "getpwuid":
            r = list(pwd.getpwuid(int(args[0])))
        elif fn == "getgrnam":
            r = list(grp.getgrnam(args[0]))
        elif fn == "getgrgid":
            r = list(grp.getgrgid(int(args[0])))
        elif fn == "getgrouplist":
            r = os.getgrouplist(args[0], int(args[1]))
        elif fn == "getservbyname":
            r = socket.getservbyname(*args)
        else:
            r = socket.getservbyport(int(args[0]), *args[1:])
    except Exception as e:
        r = "%s: %s" % (type(e).__name__, e)
    out[label] = json.dumps(r)
print(json.dumps(out))
"""


# --- the namespace -------------------------------------------------------------------

def enter_namespace():
    """Re-executes the script in a private mount namespace (root only: exit
    77 otherwise; privns.enter); then a tmpfs over /run and a copy of /etc
    over /etc."""
    global ETC
    privns.enter("a mount namespace over /run/nscd and /etc")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/run"], check=True)
    os.mkdir("/run/nscd", 0o755)
    # /etc has no netgroup file to bind over: the test binds a whole copy
    # (a few MB), in a tmpfs of its own that goes with the namespace.
    base = privns.mkdtemp("nc-nscddb-etc-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", base], check=True)
    ETC = os.path.join(base, "etc")
    subprocess.run(["cp", "-a", "/etc", ETC], check=True)
    for name, text in (("passwd", passwd_text()), ("group", group_text()),
                       ("services", services_text()), ("netgroup", NETGROUP_TEXT),
                       ("nsswitch.conf", VARIANTS[0][1])):
        write_etc(name, text)
    subprocess.run(["mount", "--bind", ETC, "/etc"], check=True)
    # ncdyn's users, for the clients and the server of the two-module
    # variant only (VARIANT_ENV; os.environ stays as it was).
    VARIANT_ENV["two-modules"] = {"NCDYN_STATIC": "0",
                                  "NCDYN_DYNAMIC": os.path.join(base, "ncdyn-users")}
    with open(VARIANT_ENV["two-modules"]["NCDYN_DYNAMIC"], "w") as f:
        f.write(DYNAMIC_TEXT)
    # The guard: from here on the test writes the copy, and /etc is it.
    assert os.stat("/etc/nsswitch.conf").st_ino == os.stat(
        os.path.join(ETC, "nsswitch.conf")).st_ino


def write_etc(name, text):
    """Into the copy (never the real /etc), in place: the same inode."""
    with open(os.path.join(ETC, name), "w") as f:
        f.write(text)


def clear_run_nscd():
    for p in os.listdir("/run/nscd"):
        os.unlink(os.path.join("/run/nscd", p))


# --- the servers ---------------------------------------------------------------------

class Nscd:
    """Debian's glibc nscd in the foreground on glibc's socket, with a test
    nscd.conf (passwd, group, services, netgroup: shared, not persistent)."""

    def __init__(self, tmp, env):
        self.tmp = tmp
        self.env = env
        self.conf = os.path.join(tmp, "nscd.conf")
        self.log = os.path.join(tmp, "nscd.log")
        with open(self.conf, "w") as f:
            f.write(NSCD_CONF.format(log=self.log))
        self.proc = None
        self.logf = None

    def start(self):
        self.logf = open(self.log + ".out", "ab")
        self.proc = subprocess.Popen([NSCD, "-F", "-f", self.conf], stdout=self.logf,
                                     stderr=self.logf, env=self.env)

        def ready():
            if self.proc.poll() is not None:
                raise AssertionError("nscd exited: %s" % self.read_log())
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.connect(NSCD_SOCKET)
                return True
            except OSError:
                return False
        nclib.wait_until(ready, "nscd listening on " + NSCD_SOCKET)
        return self

    def read_log(self):
        out = ""
        for p in (self.log, self.log + ".out"):
            if os.path.exists(p):
                with open(p, "rb") as f:
                    out += f.read().decode(errors="replace")
        return out

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.logf:
            self.logf.close()
            self.logf = None
        # nscd's SIGTERM exit is not ours to judge.
        return 0 if self.proc else None


class Env:
    def __init__(self, tmp):
        self.tmp = tmp
        self.daemons = []
        self.servers = []
        clear_run_nscd()
        write_etc("nsswitch.conf", VARIANTS[0][1])

    def server(self, nsswitch_text, sub="srv", log=None, module=True, extra=None):
        """The server under test on glibc's socket, reading nsswitch_text
        (the clients' too), with the module on its LD_LIBRARY_PATH (unless
        module=False), logging the modules' calls (read_calls(log)), with
        extra in its environment."""
        tmp = os.path.join(self.tmp, sub)
        os.makedirs(tmp, exist_ok=True)
        clear_run_nscd()
        env = dict(os.environ)
        env.pop("NCDIR_LOG", None)
        env.pop("NCENUM_LOG", None)
        env.pop("NCDYN_LOG", None)
        env.pop("LD_LIBRARY_PATH", None)
        if module:
            env["LD_LIBRARY_PATH"] = nssdir()
        if log:
            env["NCDIR_LOG"] = env["NCENUM_LOG"] = log
            env["NCDYN_LOG"] = log + ".ncdyn"
        env.update(extra or {})
        if SERVER == "nscd":
            d = Nscd(tmp, env)
        else:
            d = nclib.Daemon(BUILD, tmp, conf_text=NAMECACHE_CONF,
                             nsswitch_text=nsswitch_text,
                             args=["--nscd-socket", NSCD_SOCKET], env=env)
        self.daemons.append(d)
        return d.start()

    def stop_server(self, d):
        rc = d.stop()
        self.daemons.remove(d)
        clear_run_nscd()
        if rc != 0:
            raise AssertionError("server exit status %s: %s" % (rc, d.read_log()[-3000:]))


# --- running the clients -------------------------------------------------------------

def run(argv, env=None, timeout=60):
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)


def client_env(log=None, module=True, extra=None):
    env = dict(os.environ)
    for k in ("NCDIR_LOG", "NCENUM_LOG", "NCDYN_LOG", "NCDIR_DYNAMIC", "NCDIR_DELAY_MS", "NCDYN_DELAY_MS",
              "NCDIR_STATIC", "LD_PRELOAD"):
        env.pop(k, None)
    env.update(extra or {})
    env.pop("LD_LIBRARY_PATH", None)
    if module:
        env["LD_LIBRARY_PATH"] = nssdir()
    if log:
        env["NCDIR_LOG"] = env["NCENUM_LOG"] = log
        env["NCDYN_LOG"] = log + ".ncdyn"
    return env


def summarize(text):
    """Long outputs (enumerations, the big group) as size and hash, with
    their first lines, so a report stays readable."""
    if len(text) <= 600:
        return text
    return "%d bytes, %d lines, sha256 %s, begins %r" % (
        len(text), text.count("\n"), hashlib.sha256(text.encode()).hexdigest()[:16],
        text[:200])


def collect(families, logdir, extra=None):
    """One run of every reader: (label -> answer, [(process, the keyed
    module calls it made itself, in order)]).  Each process logs the
    module's calls to a file of its own in logdir, and has extra in its
    environment."""
    os.makedirs(logdir)
    out = {}
    procs = []

    def start(label, argv, timeout=60):
        log = os.path.join(logdir, "%d.log" % len(procs))
        procs.append((label, log))
        return run(argv, client_env(log, extra=extra), timeout)
    for fam, label, argv in queries(families):
        r = start(label, argv)
        out[label] = "rc=%d\n%s%s" % (r.returncode, r.stdout,
                                      ("stderr: " + r.stderr) if r.stderr else "")
    r = start("python", [PYTHON, "-c", PY_CLIENT, json.dumps(python_calls(families))], 120)
    assert r.returncode == 0, r.stderr
    out.update(json.loads(r.stdout))
    args = probe_args(families)
    if args:
        r = start("dbprobe", [dbprobe_path()] + args, 120)
        assert r.returncode == 0, r.stderr
        for line in r.stdout.splitlines():
            label, _, answer = line.partition(": ")
            out["dbprobe " + label] = answer
    return out, [(label, read_calls(log)) for label, log in procs]


KEYED = {"getpwnam_r", "getpwuid_r", "getgrnam_r", "getgrgid_r", "initgroups_dyn"}


def read_calls(path, keyed_only=True):
    """The modules' call logs (path for ncdir, path.ncdyn for ncdyn):
    ["FUNC KEY", ..., "ncdyn FUNC KEY", ...], an empty key as ''."""
    out = []
    for p, prefix in ((path, ""), (path + ".ncdyn", "ncdyn ")):
        if os.path.exists(p):
            with open(p) as f:
                for line in f.read().splitlines():
                    func, _, key = line.partition(" ")
                    if not keyed_only or func in KEYED:
                        out.append("%s%s %s" % (prefix, func, key or "''"))
    return out


# --- what is known to differ ---------------------------------------------------------

def numbers(text):
    """The ids in a group list, whatever the reader printed: sorted."""
    if text.startswith("n="):                           # dbprobe
        return sorted(text.split()[1:])
    if text.startswith("["):                            # Python
        return sorted(str(g) for g in json.loads(text))
    if "groups=" in text:                               # id
        return sorted(text.split("groups=", 1)[1].split()[0].split(","))
    return [text]


def same_set(a, b):
    return numbers(a) == numbers(b)


def same_triples(a, b):
    """The same netgroup triples in any order, and the same text around."""
    def split(text):
        return sorted(re.findall(r"\([^)]*\)", text)), re.sub(r"\([^)]*\)", "", text)
    return split(a) == split(b)


# Differences that are not bugs of the server under test.  Each entry: the
# server it applies to ("*": any), fnmatch patterns on the label (and the
# variant and run, "*" by default), optionally when(glibc, server) that
# must hold too, and why.  Every other difference fails the test; entries
# that matched nothing are listed at the end (stale ones should go).
GROUPLISTS_LABELS = ["dbprobe grouplist *", "python getgrouplist *", "id *"]
ALLOW = [
    # The protocol: INITGROUPS carries the user name only, so the server
    # walks with no primary gid (nscd passes -1) and the client adds the
    # gid it was given where it is missing.  glibc's own walk puts that gid
    # first; through any nscd server it sits where the server's list has
    # it, or last.  The order only: the set must be equal.
    *[dict(server="*", label=l, when=same_set, reason="the group list's order: INITGROUPS "
           "has no gid; the set is equal") for l in GROUPLISTS_LABELS],

    # glibc nscd (nscd/initgrcache.c, addinitgroupsX) walks the group
    # line, never the initgroups line, and goes on after a SUCCESS: with
    # "initgroups: files ncdir" glibc stops at files (which found the user
    # in its groups), nscd adds every ncdir group.
    *[dict(server="nscd", variant="initgroups", label=l, reason="nscd ignores the "
           "initgroups line (walks group: files ncdir, on past SUCCESS)")
      for l in GROUPLISTS_LABELS + ["getent initgroups *"]],

    # glibc nscd (nscd/netgroupcache.c) expands nested netgroups in
    # another order than glibc's setnetgrent (breadth first, where glibc
    # takes the last-named first): the same triples.
    dict(server="nscd", label="dbprobe netgr *", when=same_triples,
         reason="nscd: nested netgroups in another order"),
    dict(server="nscd", label="getent netgroup *", when=same_triples,
         reason="nscd: nested netgroups in another order"),

    # glibc nscd's innetgr compares host and domain with strcmp; glibc's
    # own with strcasecmp (inet/getnetgrent_r.c): NCGH1 and NCDOM are in
    # directly, not through nscd.
    dict(server="nscd", label="dbprobe innetgr * NCGH1 *",
         reason="nscd: innetgr host compared case-sensitively"),
    dict(server="nscd", label="getent netgroup * NCGH1 * *",
         reason="nscd: innetgr host compared case-sensitively"),
    dict(server="nscd", label="dbprobe innetgr * NCDOM",
         reason="nscd: innetgr domain compared case-sensitively"),
    dict(server="nscd", label="getent netgroup * NCDOM",
         reason="nscd: innetgr domain compared case-sensitively"),

    # glibc nscd files an answer found by id under its name as well:
    # files' ncsmall is gid 150001, the directory's gid 200001 is also
    # named ncsmall, so once getgrgid(200001) has been asked,
    # getgrnam("ncsmall") answers the directory's group.  The same for
    # passwd: files' ncu0003 is uid 150003, the directory's 200003; and
    # on "files ncdyn ncdir", ncdyn's ncu0001 (61003) and the directory's
    # (200001).
    *[dict(server="nscd", variant=v, label=l, reason="nscd files an answer by id "
           "under its name too: the name then gives the other source's entry")
      for v, l in [("*", "dbprobe grnam ncsmall"), ("*", "getent group ncsmall"),
                   ("*", "python getgrnam ncsmall")] +
      [(v, f % u) for v, u in (("*", "ncu0003"), ("two-modules", "ncu0001"))
       for f in ("dbprobe pwnam %s", "getent passwd %s", "python getpwnam %s", "id %s")]],

    # glibc nscd never hits on an id above 2^31: its server calls the
    # module again at every lookup (the answers are right).
    dict(server="nscd", run="B2", label="server-module *get*id_r [34]?????????",
         reason="nscd: ids above 2^31 are never cache hits"),
]


def allowed(variant, run_name, label, a=None, b=None):
    for e in ALLOW:
        if e["server"] in ("*", SERVER) and fnmatch.fnmatchcase(variant, e.get("variant", "*")) \
                and fnmatch.fnmatchcase(run_name, e.get("run", "*")) \
                and fnmatch.fnmatchcase(label, e["label"]) \
                and ("when" not in e or e["when"](a, b)):
            e["used"] = e.get("used", 0) + 1
            return e
    return None


# --- tests ---------------------------------------------------------------------------

@test
def differential(env):
    """glibc alone against the server, for every key, reader and variant."""
    failures = []
    known = []
    notes = []
    compared = 0

    def differ(variant, run_name, label, a, b, text):
        e = allowed(variant, run_name, label, a, b)
        if e:
            known.append((e["reason"], "%s %s %s" % (variant, run_name, label)))
        else:
            failures.append("%s %s: %s" % (variant, run_name, text))

    for variant, nsswitch, families in VARIANTS:
        write_etc("nsswitch.conf", nsswitch)
        clear_run_nscd()
        t0 = time.monotonic()
        extra = VARIANT_ENV.get(variant)
        want, calls = collect(families, os.path.join(env.tmp, "client-%s-A" % variant), extra)
        t_a = time.monotonic() - t0
        # The clients' call log works: without a server they call the module.
        assert any(c for _, c in calls), "no module call logged by the clients in run A"
        server_log = os.path.join(env.tmp, "server-%s.log" % variant)
        d = env.server(nsswitch, sub="srv-" + variant, log=server_log, extra=extra)
        got = {}
        server_calls = {}
        for run_name in ("B1", "B2"):
            got[run_name], calls = collect(families, os.path.join(
                env.tmp, "client-%s-%s" % (variant, run_name)), extra)
            server_calls[run_name] = read_calls(server_log)
            # The module opens its log at each call: the next run's is new.
            for p in (server_log, server_log + ".ncdyn"):
                if os.path.exists(p):
                    os.rename(p, "%s.%s" % (p, run_name))
            # A keyed lookup a client walked itself: the server refused it.
            # After a refusal glibc's client leaves nscd alone for that
            # database for the process's next 100 lookups (NSS_NSCD_RETRY),
            # so in a process that asks many keys the first is the cause.
            for proc, c in calls:
                if c:
                    differ(variant, run_name, "client-module " + c[0], None, None,
                           "%s: the client walked NSS itself for %s%s" % (
                               proc, c[0], (" first, then for %d more (%s%s)" % (
                                   len(c) - 1, ", ".join(c[1:6]), ", ..." if len(c) > 6
                                   else "")) if len(c) > 1 else ""))
        # Hits: the server should not need the module again.
        for call in sorted(set(server_calls["B2"])):
            differ(variant, "B2", "server-module " + call, None, None,
                   "a hit made the server call the module: %s (%d times)" % (
                       call, server_calls["B2"].count(call)))
        if d.proc.poll() is not None:
            raise AssertionError("server died: %s" % d.read_log()[-3000:])
        env.stop_server(d)
        for run_name in ("B1", "B2"):
            for label in sorted(want):
                compared += 1
                a, b = want[label], got[run_name].get(label, "<no answer>")
                if a != b:
                    differ(variant, run_name, label, a, b, "%s\n    glibc:  %s\n    %-7s %s" % (
                        label, summarize(a).replace("\n", "\n            "), SERVER + ":",
                        summarize(b).replace("\n", "\n            ")))
        notes.append("%s: %d labels; server module calls B1 %d, B2 %d; run A %.1f s" % (
            variant, len(want), len(server_calls["B1"]), len(server_calls["B2"]), t_a))
    for n in notes:
        print("  " + n)
    for reason in sorted(set(r for r, _ in known)):
        where = [w for r, w in known if r == reason]
        print("  known (%d): %s\n      %s%s" % (len(where), reason, "\n      ".join(where[:6]),
                                             "\n      ..." if len(where) > 6 else ""))
    for e in ALLOW:
        if e["server"] in ("*", SERVER) and not e.get("used"):
            print("  note: ALLOW entry matched nothing: %s" % e["label"])
    print("differential (%s): %d comparisons, %d known, %d failures" % (
        SERVER, compared, len(known), len(failures)))
    assert not failures, "\n".join(failures[:int(os.environ.get("NC_SHOW", "60"))]) + \
        ("\n(%d in all)" % len(failures))


NCU0001 = "ncu0001:x:200001:200000:NC User 1:/home/ncu0001:/bin/bash"


@test
def nixos_client_without_module(env):
    """NixOS: the server's environment names the module, the client's
    does not, and its nsswitch.conf still says ncdir.  The client cannot
    load the module, and still gets ncu0001 through the socket."""
    cenv = client_env(module=False)
    r = run(["getent", "passwd", "ncu0001"], cenv)
    assert r.returncode == 2, ("without a server the client should not know it", r)
    d = env.server(VARIANTS[0][1])
    r = run(["getent", "passwd", "ncu0001"], cenv)
    assert r.returncode == 0 and r.stdout == NCU0001 + "\n", r
    r = run(["getent", "passwd", "3000000000"], cenv)
    assert r.returncode == 0 and r.stdout.startswith("ncbig:x:3000000000:3000000001:"), r
    r = run(["getent", "group", "ncsmall"], cenv)
    # files' ncsmall wins by name; the directory's is gid 200001
    assert r.stdout == "ncsmall:x:150001:ncf00002,ncu0001\n", r
    r = run(["getent", "group", "200001"], cenv)
    assert r.stdout == "ncsmall:x:200001:ncu0001,nc.dot-user,nc-dash.2\n", r
    r = run(["id", "ncu0001"], cenv)
    assert r.returncode == 0 and "210039(ncg39)" in r.stdout, r
    r = run([dbprobe_path(), "pwnam", "ncu0001", "grnam", "ncstaff", "grouplist", "ncu0001",
             "200000", "pwnam", "nosuchuser"], cenv)
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and lines[0] == "pwnam ncu0001: " + NCU0001, r
    assert lines[1].startswith("grnam ncstaff: ncstaff:x:200000:n=5000:ncu0000,"), lines[1][:80]
    n = int(lines[2].split("n=")[1].split()[0])
    assert n >= 42 and " 210039" in lines[2], lines[2]
    assert lines[3] == "pwnam nosuchuser: notfound", lines[3]
    r = run([PYTHON, "-c", "import pwd, grp; print(pwd.getpwnam('ncu0001').pw_uid, "
             "len(grp.getgrgid(200000).gr_mem))"], cenv)
    assert r.stdout.split() == ["200001", "5000"], r
    print("  without the module: ncu0001, ncbig, ncstaff (5000 members), %d groups" % n)


@test
def musl_static(env):
    """A static musl program: no NSS at all, only /etc's files and the nscd
    socket.  It gets the directory's users and groups through the socket,
    the same answers as glibc's (the group list as a set, and musl's:
    it merges /etc/group's own and trusts it for the gids it has)."""
    if shutil.which("musl-gcc") is None:
        nclib.skip_part("musl_static", "no musl-gcc (musl-tools)")
        return
    exe = os.path.join(env.tmp, "musl-pw")
    r = run(["musl-gcc", "-static", "-O2", "-o", exe, os.path.join(HERE, "musl-pw.c")],
            timeout=120)
    assert r.returncode == 0, r.stderr
    qs = ["pwnam", "ncu0001", "pwnam", "ncbig", "pwuid", "3000000000", "pwuid", "200001",
          "grnam", "ncstaff", "grnam", "ncg39", "grgid", "3000000001",
          "grouplist", "ncu0001", "200000", "pwnam", "ncf09999", "pwnam", "nosuchuser"]
    r = run([exe] + qs, client_env(module=False))
    assert "pwnam ncu0001: notfound" in r.stdout, ("without a server musl knows it?", r)
    d = env.server(VARIANTS[0][1])
    glibc = run([dbprobe_path()] + qs, client_env(module=False))
    assert glibc.returncode == 0, glibc.stderr
    r = run([exe] + qs, client_env(module=False))
    assert r.returncode == 0, r
    m, g = r.stdout.splitlines(), glibc.stdout.splitlines()
    assert m[0] == "pwnam ncu0001: " + NCU0001, m[0]
    assert m[4].startswith("grnam ncstaff: ncstaff:x:200000:n=5000:"), m[4][:80]
    # musl trusts /etc/group for the gids it has: an nscd gid that a file
    # group has, without the user as a member, is dropped (files' gid
    # 210000 is ncfdupgid there, ncg00 in the directory).
    files_gids = {}
    with open("/etc/group") as f:
        for line in f:
            name, _, gid, members = line.rstrip("\n").split(":")
            files_gids.setdefault(gid, set()).update(members.split(","))
    for a, b in zip(m, g):
        if a.startswith("grouplist"):
            user, gid = a.split()[1:3]
            sa = set(a.split()[4:])
            sb = {x for x in b.split()[4:] if x == gid or x not in files_gids or
                  user in files_gids[x]}
            assert sa == sb and "210039" in sa, (a, b)
        else:
            assert a == b, (a[:200], b[:200])
    print("  musl: %s" % "; ".join(l[:60] for l in m[:3]))


def main():
    global SERVER
    argv = sys.argv[1:]
    if "--server" in argv:
        i = argv.index("--server")
        SERVER = argv[i + 1]
        del argv[i:i + 2]
    if SERVER not in ("namecache", "nscd"):
        print("--server namecache|nscd")
        return 2
    if SERVER == "nscd" and not os.path.exists(NSCD):
        print("skip: no " + NSCD)
        return 77
    enter_namespace()

    def set_build(b):
        global BUILD
        BUILD = b
    return nclib.run_tests(TESTS, Env, "nc-nscddb-", set_build, argv)


if __name__ == "__main__":
    sys.exit(main())
