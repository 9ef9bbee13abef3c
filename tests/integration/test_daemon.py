#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""tests/integration/test_daemon.py - namecached end to end: CLI, NSS module, reloads, bad input.

Each test starts its own daemon on a socket in a temporary folder, with a
temporary hosts file, and reaches it through the real CLI, the real NSS
module (getent with LD_LIBRARY_PATH) and raw protocol frames.  Loopback only.
"""
import argparse
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import nclib  # noqa: E402
from nclib import (OK, NOTFOUND, BADREQUEST, BADNAME, UNSUPPORTED,  # noqa: E402
                   LOOKUP_NAME, LOOKUP_ADDR, STATUS, REPLY, HUNG_SEC, connect, frame,
                   name_req, nss_env, parse_answer, read_frame, rss_kib, sanitizer_reports,
                   wait_until)

BUILD = None
TESTS = []


def test(fn):
    TESTS.append(fn)
    return fn


def Daemon(tmp, hosts_text="127.0.0.1 localhost\n", conf_text=None, args=()):
    return nclib.Daemon(BUILD, tmp, hosts_text, conf_text or "", args)


# --- tests ------------------------------------------------------------------

HOSTS = """# test hosts
127.0.0.1\tlocalhost
::1\tlocalhost ip6-localhost
10.1.2.3   web.example.com   web WWW
2001:db8::7 v6only.example
10.9.9.9 Multi
10.9.9.10 multi other
bogus-address broken
"""


@test
def cli_query_and_json(d):
    r = d.ctl("query", "web")
    assert r.returncode == 0, r
    assert "10.1.2.3" in r.stdout and "web.example.com" in r.stdout, r.stdout
    j = d.ctl_json("query", "WEB.example.com")
    assert j["addresses"] == ["10.1.2.3"], j
    assert j["canonical"] == "web.example.com" and j["source"] == "hosts", j
    assert j["aliases"] == ["web", "WWW"], j
    assert "ttl" in j and j["name"] == "WEB.example.com"
    j = d.ctl_json("query", "localhost")
    assert j["addresses"] == ["127.0.0.1", "::1"], j
    j = d.ctl_json("query", "-6", "localhost")
    assert j["addresses"] == ["::1"], j
    # glibc reads the ::1 line as 127.0.0.1 when asked for IPv4; so do we.
    j = d.ctl_json("query", "-4", "localhost")
    assert j["addresses"] == ["127.0.0.1", "127.0.0.1"], j
    j = d.ctl_json("query", "multi")
    assert j["addresses"] == ["10.9.9.9", "10.9.9.10"] and j["canonical"] == "Multi", j
    r = d.ctl("--json", "query", "10.9.9.10")
    assert r.returncode == 0 and json.loads(r.stdout)["canonical"] == "multi", r
    r = d.ctl("query", "nothere.example")
    assert r.returncode == 1 and "not found" in r.stderr, r
    r = d.ctl("--json", "query", "nothere.example")
    assert r.returncode == 1 and json.loads(r.stdout)["status"] == "notfound", r
    r = d.ctl("query", "-4", "v6only.example")
    assert r.returncode == 1, r
    r = d.ctl("query", "a" * 300)
    assert r.returncode == 1 and "253" in r.stderr, r
    r = d.ctl("query")
    assert r.returncode == 2, r
    r = d.ctl("frobnicate")
    assert r.returncode == 2, r
    # Several names: one JSON object a line, exit 1 because one failed.
    r = d.ctl("--json", "query", "web", "nothere.example")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 1 and len(lines) == 2 and lines[0]["addresses"] == ["10.1.2.3"], r


@test
def cli_status_and_statistics(d):
    st = d.ctl_json("status")
    assert st["hosts_file"] == d.hosts and st["hosts_entries"] == 6, st
    assert st["hosts_invalid_lines"] == 1 and st["hosts_multi"] in ("yes", "no"), st
    s1 = d.ctl_json("statistics")
    d.ctl("query", "web", "nothere.example")
    s2 = d.ctl_json("statistics")
    assert s2["lookups_name"] == s1["lookups_name"] + 2, (s1, s2)
    assert s2["hosts_answers"] == s1["hosts_answers"] + 1, (s1, s2)
    assert s2["not_found"] == s1["not_found"] + 1, (s1, s2)
    r = d.ctl("status")
    assert r.returncode == 0 and "Hosts file:" in r.stdout, r.stdout


@test
def nss_module(d):
    r = d.getent("hosts", "web")
    assert r.returncode == 0 and r.stdout.split() == ["10.1.2.3", "web.example.com", "web", "WWW"], r
    r = d.getent("ahostsv4", "WWW")
    assert r.returncode == 0 and r.stdout.splitlines()[0].split() == ["10.1.2.3", "STREAM",
                                                                      "web.example.com"], r
    r = d.getent("hosts", "10.1.2.3")
    assert r.returncode == 0 and r.stdout.split()[:2] == ["10.1.2.3", "web.example.com"], r
    r = d.getent("hosts", "2001:db8::7")
    assert r.returncode == 0 and "v6only.example" in r.stdout, r
    r = d.getent("hosts", "nothere.example")
    assert r.returncode == 2 and r.stdout == "", r


@test
def reload_in_place(d):
    assert d.getent("hosts", "fresh.example").returncode == 2
    d.write_hosts(HOSTS + "10.7.7.7 fresh.example\n")
    wait_until(lambda: d.getent("hosts", "fresh.example").returncode == 0,
               "the in-place rewrite seen through NSS")
    assert d.getent("hosts", "fresh.example").stdout.split()[0] == "10.7.7.7"


@test
def reload_rename_over(d):
    tmp = d.hosts + ".new"
    with open(tmp, "w") as f:
        f.write("10.8.8.8 renamed.example\n")
    os.rename(tmp, d.hosts)
    wait_until(lambda: d.ctl("query", "renamed.example").returncode == 0,
               "the rename-over seen")
    assert d.ctl("query", "web").returncode == 1, "old content still served"
    # The new inode is watched too: a second in-place edit is seen.
    d.write_hosts("10.8.8.9 second.example\n")
    wait_until(lambda: d.ctl("query", "second.example").returncode == 0,
               "an edit of the new inode seen")


@test
def reload_delete_and_return(d):
    os.unlink(d.hosts)
    wait_until(lambda: d.ctl("query", "web").returncode == 1, "the deleted file forgotten")
    st = d.ctl_json("status")
    assert st["hosts_entries"] == 0, st
    d.write_hosts("10.5.5.5 back.example\n")
    wait_until(lambda: d.ctl("query", "back.example").returncode == 0,
               "the file's return noticed")


@test
def reload_slow_writer(d):
    """A write in several pieces: the final answer is the whole file's."""
    lines = ["10.6.0.%d slow%d.example\n" % (i, i) for i in range(1, 200)]
    with open(d.hosts, "w") as f:
        for i, line in enumerate(lines):
            f.write(line)
            if i % 50 == 0:
                f.flush()
                time.sleep(0.05)    # the stimulus: a writer that pauses
    wait_until(lambda: d.ctl("query", "slow199.example").returncode == 0,
               "the whole file loaded")
    assert d.ctl_json("status")["hosts_entries"] == 199
    assert d.ctl("query", "slow1.example").returncode == 0


@test
def sighup_reloads(d):
    g0 = d.ctl_json("status")["hosts_generation"]
    d.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: d.ctl_json("status")["hosts_generation"] > g0,
               "the hosts file read again on SIGHUP")
    # A bad config on reload keeps the old one, and the daemon keeps serving.
    with open(d.conf, "w") as f:
        f.write("cache_size = lots\n")
    d.proc.send_signal(signal.SIGHUP)
    wait_until(lambda: "keeping the old configuration" in d.read_log(),
               "the bad configuration refused, in the log")
    assert d.proc.poll() is None and d.ctl("query", "web").returncode == 0


@test
def sigterm_stops_cleanly(d):
    assert d.stop() == 0, d.read_log()
    assert not os.path.exists(d.sock), "socket left behind"


@test
def bad_config_is_an_error_with_file_and_line(tmp):
    conf = os.path.join(tmp, "bad.conf")
    for text, want in [("# ok\nmax_clients = 10\nfrobs = 3\n", ":3: unknown key 'frobs'"),
                       ("min_ttl = 10\nmax_ttl = 5\n", "min_ttl"),
                       ("prefetch = maybe\n", ":1: prefetch"),
                       ("upstream = 127.0.0.1:99999\n", ":1: bad upstream"),
                       ("just words\n", ":1: expected 'key = value'")]:
        with open(conf, "w") as f:
            f.write(text)
        r = subprocess.run([os.path.join(BUILD, "daemon", "namecached"), "--config", conf,
                            "--socket", os.path.join(tmp, "s"), "--upstream", "127.0.0.1:1"],
                           capture_output=True, text=True, timeout=HUNG_SEC)
        assert r.returncode != 0 and want in r.stderr, (text, r.returncode, r.stderr)
        assert not sanitizer_reports(r.stderr), r.stderr
    r = subprocess.run([os.path.join(BUILD, "daemon", "namecached"), "--config", "/dev/null",
                        "--log-level", "loud", "--upstream", "127.0.0.1:1"],
                       capture_output=True, text=True, timeout=HUNG_SEC)
    assert r.returncode != 0 and "log_level" in r.stderr, r
    assert not sanitizer_reports(r.stderr), r.stderr
    r = subprocess.run([os.path.join(BUILD, "daemon", "namecached"), "--config",
                        os.path.join(tmp, "missing.conf"), "--upstream", "127.0.0.1:1"],
                       capture_output=True, text=True, timeout=HUNG_SEC)
    assert r.returncode != 0 and "missing.conf" in r.stderr, r
    assert not sanitizer_reports(r.stderr), r.stderr


@test
def second_daemon_refused(d):
    d2 = subprocess.run([os.path.join(BUILD, "daemon", "namecached"), "--config", d.conf,
                         "--socket", d.sock, "--hosts-file", d.hosts,
                         "--resolv-conf", d.resolv, "--upstream", "127.0.0.1:1"],
                        capture_output=True, text=True, timeout=HUNG_SEC)
    assert d2.returncode != 0 and "another daemon" in d2.stderr, d2
    assert not sanitizer_reports(d2.stderr), d2.stderr
    assert d.ctl("query", "web").returncode == 0, "first daemon lost its socket"


@test
def nss_falls_through_at_once_without_daemon(tmp):
    env_sock = os.path.join(tmp, "absent.sock")
    stale = os.path.join(tmp, "stale.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(stale)
    s.close()      # a socket file nobody listens on: connect is refused
    for path in (env_sock, stale):
        env = nss_env(BUILD, path)
        argv = ["getent", "-s", "namecache [!UNAVAIL=return] files", "hosts", "localhost"]
        r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=HUNG_SEC)
        assert r.returncode == 0 and "localhost" in r.stdout, r
        # "At once": the failed connect is the module's last word; it never
        # waits (poll, sleep) for a daemon that is not there.
        calls = waits_traced(argv, env, tmp)
        if calls is not None:
            connects = [c for c in calls if c.startswith("connect(")]
            assert connects and all(os.path.basename(path) in c and " = -1 E" in c
                                    for c in connects), calls
            assert connects == calls, ("waited for an absent daemon", calls)
        r = subprocess.run(["getent", "-s", "namecache", "hosts", "localhost"],
                           capture_output=True, text=True, env=env, timeout=HUNG_SEC)
        assert r.returncode == 2, r


def waits_traced(argv, env, tmp):
    """argv's connect calls and the calls it could wait in, under strace (None without it)."""
    import shutil
    if shutil.which("strace") is None:
        import nclib
        nclib.skip_part("nss_falls_through_at_once_without_daemon",
                        "no strace: the absence of waits is not checked")
        return None
    out = os.path.join(tmp, "strace.out")
    r = subprocess.run(["strace", "-f", "-qq", "-o", out, "-e",
                        "trace=connect,poll,ppoll,select,pselect6,epoll_wait,epoll_pwait,"
                        "nanosleep,clock_nanosleep"] + argv,
                       capture_output=True, text=True, env=env, timeout=HUNG_SEC)
    assert r.returncode == 0, r
    with open(out) as f:
        return [line.split(None, 1)[1] for line in f.read().splitlines() if " " in line]


@test
def bad_frames_cost_nothing_else(d):
    # Unknown version: answered, then the connection is closed.
    s = connect(d)
    s.sendall(frame(STATUS, version=9, fid=77))
    f = read_frame(s)
    assert f and f["status"] == UNSUPPORTED and f["id"] == 77, f
    assert read_frame(s) is None
    s.close()
    # A frame over 64 KiB closes the connection without an answer.
    s = connect(d)
    s.sendall(frame(LOOKUP_NAME, length=70000))
    assert read_frame(s) is None
    s.close()
    # A length below the header size too.
    s = connect(d)
    s.sendall(frame(LOOKUP_NAME, length=5))
    assert read_frame(s) is None
    s.close()
    s = connect(d)
    # Unknown type, truncated bodies, bad names, bad family: error replies, same connection.
    cases = [
        (frame(99, fid=1), UNSUPPORTED),
        (frame(LOOKUP_NAME, b"\x00", fid=2), BADREQUEST),
        (frame(LOOKUP_NAME, struct.pack(">BBH", 0, 0, 50) + b"short", fid=3), BADREQUEST),
        (name_req(b"a\x00b", fid=4), BADNAME),
        (name_req(b"a" * 254, fid=5), BADNAME),
        (name_req(b"x" * 64 + b".example", fid=6), BADNAME),
        (name_req(b"bad\x07name", fid=7), BADNAME),
        (name_req(b"", fid=8), BADNAME),
        (name_req(b"web", family=5, fid=9), BADNAME),
        (frame(LOOKUP_ADDR, b"\x04\x00\x01", fid=10), BADREQUEST),
        (frame(LOOKUP_ADDR, b"\x07\x00" + b"\x00" * 16, fid=11), BADNAME),
        (frame(STATUS | REPLY, fid=12), BADREQUEST),
        (name_req("web", fid=13), OK),
    ]
    for req, want in cases:
        s.sendall(req)
        f = read_frame(s)
        assert f is not None, ("connection closed after", req)
        assert f["status"] == want, (req, f)
    s.close()
    # Garbage of every length, then a normal query still answers.
    for n in range(1, 40):
        s = connect(d)
        s.sendall(os.urandom(n))
        s.shutdown(socket.SHUT_WR)
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
        s.close()
    assert d.proc.poll() is None, "daemon died"
    assert d.ctl("query", "web").returncode == 0
    st = d.ctl_json("statistics")
    assert st["bad_requests"] >= 11, st


@test
def pipelined_requests_on_one_connection(d):
    s = connect(d)
    names = ["web", "localhost", "nothere.example", "multi", "v6only.example"] * 200
    s.sendall(b"".join(name_req(n, fid=i + 1) for i, n in enumerate(names)))
    seen = {}
    for _ in names:
        f = read_frame(s)
        assert f is not None
        seen[f["id"]] = f
    assert sorted(seen) == list(range(1, len(names) + 1))
    for i, n in enumerate(names):
        f = seen[i + 1]
        if n == "nothere.example":
            assert f["status"] == NOTFOUND, f
        else:
            assert f["status"] == OK, f
    assert parse_answer(seen[1]["body"])["addrs"] == ["10.1.2.3"]
    s.close()


@test
def many_clients_at_once(d):
    socks = [connect(d) for _ in range(300)]
    for i, s in enumerate(socks):
        s.sendall(name_req("web", fid=i))
    for i, s in enumerate(socks):
        f = read_frame(s)
        assert f and f["status"] == OK and f["id"] == i, f
        s.close()


@test
def max_clients_enforced(tmp):
    d = Daemon(tmp, HOSTS, conf_text="max_clients = 3\n").start()
    try:
        # The start-up probe's connection must be gone before we count.
        wait_until(lambda: d.ctl_json("statistics")["clients"] == 1,
                   "the start-up probe's connection gone")
        held = [connect(d) for _ in range(3)]
        for s in held:
            s.sendall(name_req("web"))
            assert read_frame(s)["status"] == OK
        extra = connect(d)
        try:
            extra.sendall(name_req("web"))
        except BrokenPipeError:
            pass    # closed already: refused, as it should be
        assert read_frame(extra) is None, "connection over max_clients was served"
        held[0].close()
        wait_until(lambda: d.ctl("query", "web").returncode == 0, "a freed slot served")
        assert d.ctl_json("statistics")["connections_rejected"] >= 1
    finally:
        d.stop()


@test
def client_that_never_reads(d):
    """Pipelining without reading: memory stays bounded, others are served."""
    rss0 = rss_kib(d.proc.pid)
    s = connect(d)
    # Until the daemon stops reading (its output for us is over
    # SERVER_OUT_HIGH) and the socket's buffers are full: a send blocked for
    # 2 s.  Should it never stop reading, 50 MB and the RSS bound below.
    s.settimeout(2)
    req = name_req("web") * 1000
    sent = 0
    while sent < 50_000_000:
        try:
            sent += s.send(req)
        except socket.timeout:
            break
    t = time.monotonic()
    r = d.ctl("query", "web")
    other_ms = (time.monotonic() - t) * 1000
    assert r.returncode == 0, r
    rss1 = rss_kib(d.proc.pid)
    print("  sent %d bytes unread; RSS %d -> %d KiB; another client answered in %.1f ms"
          % (sent, rss0, rss1, other_ms))
    assert rss1 - rss0 < 16 * 1024, (rss0, rss1)
    s.close()
    assert d.proc.poll() is None


@test
def large_hosts_file(tmp):
    n = 200_000
    with open(os.path.join(tmp, "hosts"), "w") as f:
        for i in range(n):
            f.write("10.%d.%d.%d host%d.example host%d\n" % (i >> 16, (i >> 8) & 255, i & 255, i, i))
    d = Daemon(tmp, None).start()
    try:
        st = d.ctl_json("status")
        assert st["hosts_entries"] == n, st
        last = n - 1
        j = d.ctl_json("query", "host%d" % last)
        assert j["addresses"] == ["10.%d.%d.%d" % (last >> 16, (last >> 8) & 255, last & 255)], j
        r = d.getent("hosts", "host%d.example" % last)
        assert r.returncode == 0, r
        print("  %d lines loaded in %.1f ms, index %d bytes a line" %
              (n, st["hosts_load_usec"] / 1000, st["hosts_memory_bytes"] // n))
    finally:
        d.stop()


def main():
    global BUILD
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("-k", help="run only tests whose name contains this")
    args = ap.parse_args()
    BUILD = os.path.abspath(args.build)
    failed = 0
    ran = 0
    for fn in TESTS:
        if args.k and args.k not in fn.__name__:
            continue
        ran += 1
        with tempfile.TemporaryDirectory(prefix="nc-it-") as tmp:
            wants_daemon = fn.__code__.co_varnames[0] == "d"
            d = Daemon(tmp, HOSTS) if wants_daemon else None
            t0 = time.monotonic()
            try:
                if d:
                    d.start()
                    fn(d)
                else:
                    fn(tmp)
                if d and d.proc.poll() is not None and fn is not sigterm_stops_cleanly:
                    raise AssertionError("daemon died: %s" % d.read_log())
                # A clean stop: exit 0, so no crash and (under ASan) no leak.
                if d and d.stop() != 0:
                    raise AssertionError("daemon exit status %s: %s" %
                                         (d.proc.returncode, d.read_log()))
                print("ok   %s (%.2f s)" % (fn.__name__, time.monotonic() - t0))
            except Exception:
                failed += 1
                print("FAIL %s" % fn.__name__)
                traceback.print_exc()
                if d:
                    print("---- daemon log ----\n" + d.read_log())
            finally:
                if d:
                    d.stop()
    print("%d tests, %d failed" % (ran, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
