# SPDX-License-Identifier: MIT
"""Hosts files for the differential test: hand-written cases and random ones.

Everything here works on bytes.  A generator never decides what the answer
should be: the driver asks glibc's files module for that.  It only makes
files that exercise the corners of glibc's parser (nss_files, nss_readline,
files-parse.c) and of "multi on" merging.

random_case(rng) draws from one random.Random, so a seed names a file set.
"""

import random
import socket
import struct

# Names shared by every file, so the same name comes back file after file and
# a daemon that kept a stale answer across a reload is caught.
POOL = [
    b"localhost", b"ip6-localhost", b"ip6-loopback", b"localhost.localdomain",
    b"alpha", b"beta", b"gamma", b"delta", b"x", b"n1", b"srv",
    b"www.example.com", b"mail.example.com", b"db1.internal", b"db2.internal",
    b"a.b.c.d.e", b"host-a", b"host_b", b"-dash", b"Mixed.Case.Org",
    b"foo.", b"trailing.dot.", b"only6.example", b"only4.example",
    b"caf\xc3\xa9.example", b"xn--nxasmq6b.example", b"*.wild", b"a..b",
    b".lead", b"UPPER.EXAMPLE", b"1host", b"123.example", b"h0st.a1",
    b"name!odd", b"semi;colon", b"quote'name", b"back\\slash", b"pct%x",
    b"very-long-name." + b"l" * 40 + b".example",
]

# A label of exactly 63 and a name of exactly 253: the largest keys allowed.
LABEL63 = b"m" * 63 + b".example"
NAME253 = b".".join([b"a" * 63, b"b" * 63, b"c" * 63, b"d" * 61])
assert len(NAME253) == 253
# Too long to be asked, fine to sit in the file as aliases.
LABEL64 = b"k" * 64 + b".example"
NAME254 = b".".join([b"a" * 63, b"b" * 63, b"c" * 63, b"e" * 62])
assert len(NAME254) == 254
CONTROL = [b"ctl\x01name", b"del\x7fname", b"esc\x1b[0m", b"bell\x07"]

V4_FIXED = [
    "127.0.0.1", "127.0.1.1", "127.0.0.2", "0.0.0.0", "255.255.255.255",
    "192.0.2.1", "192.0.2.2", "198.51.100.7", "10.0.0.1", "10.0.0.2",
    "10.1.2.3", "1.2.3.4", "169.254.1.1", "224.0.0.1",
]
V6_FIXED = [
    "::1", "::", "fe80::1", "fe80::1:2", "2001:db8::1", "2001:db8::2",
    "2001:db8:0:0:1:0:0:1", "2001:db8:85a3::8a2e:370:7334", "ff02::1",
    "ff02::2", "fd00::abcd", "64:ff9b::c000:201", "::ffff:0:102:304",
    "::102:304", "1:2:3:4:5:6:7:8", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
]

BAD_ADDRS = [
    b"999.1.1.1", b"1.2.3", b"01.2.3.4", b"1.2.3.4.5", b"256.0.0.1",
    b"fe80::1%eth0", b"fe80::1%1", b"garbage", b"1.2.3.4/24", b"1.2.3.4:80",
    b"::ffff:999.1.1.1", b"1:2:3:4:5:6:7:8:9", b"0x7f.0.0.1", b"127.1",
    b"[::1]", b"gggg::1", b":::1", b"1::2::3", b"12345::1", b"1.2.3.04",
    b"-", b"localhost", b"::1:", b":1::", b"1.2.3.", b".1.2.3", b"+1.2.3.4",
    b"1.2.3.4a", b"2001:db8::1::", b"::ffff:1.2.3", b"1.2.3.4\xc2\xa0",
    b"\xef\xbc\x91.2.3.4", b"0177.0.0.1", b"4294967295",
]

SEPS = [b" ", b" ", b" ", b"\t", b"  ", b" \t ", b"\t\t", b"\v", b"\f",
        b"\r", b" \r ", b"   "]

COMMENTS = [b"# comment", b"#", b"#1.2.3.4 hidden-name", b"## x y z",
            b"# alpha beta", b"#\tonly6.example"]


def v6_bytes(text):
    return socket.inet_pton(socket.AF_INET6, text)


def v6_spellings(packed):
    """Several ways to write one IPv6 address that inet_pton accepts."""
    g = struct.unpack("!8H", packed)
    out = {socket.inet_ntop(socket.AF_INET6, packed)}
    out.add(":".join("%04x" % x for x in g))             # full
    out.add(":".join("%x" % x for x in g))               # uncompressed
    # Every run of zero groups may be the one written as "::".
    i = 0
    while i < 8:
        if g[i] == 0:
            j = i
            while j < 8 and g[j] == 0:
                j += 1
            left = ":".join("%x" % x for x in g[:i])
            right = ":".join("%x" % x for x in g[j:])
            out.add(left + "::" + right)
            i = j
        else:
            i += 1
    # The last 32 bits in dotted form.
    tail = socket.inet_ntop(socket.AF_INET, packed[12:])
    head = g[:6]
    out.add(":".join("%x" % x for x in head) + ":" + tail)
    if all(x == 0 for x in head[:5]):
        out.add("::" + ("%x:" % head[5] if head[5] else "") + tail)
    spelled = sorted(out)
    spelled += [s.upper() for s in spelled if s.upper() != s]
    return spelled


def rand_case(rng, name):
    return bytes(c ^ 0x20 if (65 <= c <= 90 or 97 <= c <= 122) and rng.random() < 0.5
                 else c for c in name)


def rand_label(rng, lo=1, hi=12):
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789-"
    n = rng.randint(lo, hi)
    s = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(1)) + \
        bytes(rng.choice(alphabet) for _ in range(n - 1))
    return s


def rand_name(rng):
    labels = [rand_label(rng) for _ in range(rng.randint(1, 4))]
    return b".".join(labels)


class FileGen:
    """One random hosts file."""

    def __init__(self, rng):
        self.rng = rng
        r = rng
        names = r.sample(POOL, r.randint(2, 10))
        names += [rand_name(r) for _ in range(r.randint(0, 3))]
        if r.random() < 0.1:
            names.append(r.choice([LABEL63, NAME253]))
        self.names = names
        v4 = r.sample(V4_FIXED, r.randint(1, 5))
        v4 += ["10.%d.%d.%d" % (r.randint(0, 1), r.randint(0, 2), r.randint(0, 9))
               for _ in range(r.randint(0, 3))]
        self.v4 = v4
        v6 = [v6_bytes(a) for a in r.sample(V6_FIXED, r.randint(1, 4))]
        # v4-mapped forms of this file's IPv4 addresses, to collide with them.
        for a in r.sample(v4, min(len(v4), r.randint(0, 2))):
            v6.append(b"\0" * 10 + b"\xff\xff" + socket.inet_aton(a))
        self.v6 = v6
        self.eol_style = r.choices(["lf", "crlf", "mixed"], [80, 15, 5])[0]
        self.lines = []

    # -- pieces ------------------------------------------------------------
    def eol(self):
        r = self.rng
        if self.eol_style == "lf":
            base = b"\n"
        elif self.eol_style == "crlf":
            base = b"\r\n"
        else:
            # A bare "\r" does not end a line: it is a blank inside one.
            base = r.choice([b"\n", b"\r\n", b"\r\r\n", b"\r"])
        if r.random() < 0.1:
            base = r.choice([b" ", b"\t", b" \v", b"\f"]) + base
        return base

    def sep(self):
        r = self.rng
        return r.choice(SEPS) if r.random() < 0.5 else b" "

    def name(self):
        r = self.rng
        n = r.choice(self.names)
        x = r.random()
        if x < 0.15:
            n = rand_case(r, n)
        elif x < 0.22:
            n = n.upper()
        elif x < 0.30:
            n = n[:-1] if n.endswith(b".") else n + b"."
        elif x < 0.33:
            n = r.choice([LABEL64, NAME254] + CONTROL)
        elif x < 0.36:
            n = rand_name(r)
        return n

    def addr(self):
        r = self.rng
        x = r.random()
        if x < 0.5:
            return r.choice(self.v4).encode()
        if x < 0.93:
            return r.choice(v6_spellings(r.choice(self.v6))).encode()
        return r.choice(BAD_ADDRS)

    def names_part(self, lo=0, hi=4):
        r = self.rng
        parts = []
        for _ in range(r.randint(lo, hi)):
            parts.append(self.sep())
            parts.append(self.name())
        return b"".join(parts)

    def host_line(self):
        r = self.rng
        lead = r.choice([b"", b"", b"", b" ", b"\t", b"  \t"])
        body = lead + self.addr() + self.sep() + self.name() + self.names_part()
        if r.random() < 0.1:
            body += r.choice([b" ", b"\t"]) + r.choice(COMMENTS)
        elif r.random() < 0.04:
            # '#' inside a word ends the line there.
            body += self.sep() + self.name() + b"#" + self.name()
        elif r.random() < 0.05:
            body += self.sep()
        return body

    def line(self):
        r = self.rng
        kind = r.choices(
            ["host", "addr-only", "comment", "blank", "bad", "dup", "same-addr",
             "v6only", "nul"],
            [55, 5, 7, 6, 7, 6, 6, 6, 2])[0]
        if kind == "host" or (kind in ("dup", "same-addr") and not self.lines):
            return self.host_line()
        if kind == "addr-only":
            return self.addr() + r.choice([b"", b" ", b"\t", b" # c"])
        if kind == "comment":
            return r.choice([b"", b" ", b"\t"]) + r.choice(COMMENTS)
        if kind == "blank":
            return r.choice([b"", b" ", b"\t", b" \t ", b"\v", b"\f"])
        if kind == "bad":
            return r.choice(BAD_ADDRS) + self.sep() + self.name() + self.names_part(0, 2)
        if kind == "dup":
            return r.choice(self.lines)
        if kind == "same-addr":
            prev = r.choice(self.lines).split(None, 1)
            if not prev:
                return self.host_line()
            return prev[0] + self.sep() + self.name() + self.names_part(0, 2)
        if kind == "v6only":
            a = r.choice(v6_spellings(r.choice(self.v6))).encode()
            return a + self.sep() + r.choice([b"only6.example", self.name()]) + self.names_part(0, 2)
        if kind == "nul":
            s = self.host_line()
            k = r.randint(0, len(s))
            return s[:k] + b"\0" + s[k:] + self.names_part(1, 2)
        raise AssertionError(kind)

    def long_line(self):
        """One line of thousands of aliases, well under a 64 KiB answer."""
        r = self.rng
        target = r.randint(15000, 38000)
        parts = [r.choice(self.v4).encode() if r.random() < 0.7
                 else socket.inet_ntop(socket.AF_INET6, r.choice(self.v6)).encode(),
                 b" ", r.choice(self.names)]
        size, i = 0, 0
        while size < target:
            a = b"al%d-%s" % (i, rand_label(r, 2, 8))
            parts.append(self.sep())
            parts.append(a)
            size += len(a) + 1
            i += 1
            if r.random() < 0.002:
                parts.append(b" " + r.choice(self.names))
        return b"".join(parts)

    def build(self):
        r = self.rng
        n = r.choices([0, r.randint(1, 5), r.randint(5, 30), r.randint(30, 150)],
                      [3, 40, 47, 10])[0]
        for _ in range(n):
            self.lines.append(self.line())
        if r.random() < 0.05 and self.lines:
            # A whole file repeated: every line twice.
            self.lines = self.lines + self.lines
        if r.random() < 0.035:
            # Once only, after the repeats: two of them would merge into an
            # answer too big for a frame, which the daemon declines by design.
            self.lines.insert(r.randint(0, len(self.lines)), self.long_line())
        out = b"".join(l + self.eol() for l in self.lines)
        if r.random() < 0.15 and out:
            # The last line without its newline.
            out = out.rstrip(b"\n").rstrip(b"\r")
        return out


def random_case(rng):
    return FileGen(rng).build()


def fixed_cases():
    """(title, bytes) written by hand, run before the random ones."""
    long_aliases = b" ".join(b"alias%04d.long.example" % i for i in range(1500))
    return [
        ("debian-default",
         b"127.0.0.1\tlocalhost\n127.0.1.1\tbox.example.org\tbox\n\n"
         b"# The following lines are desirable for IPv6 capable hosts\n"
         b"::1     localhost ip6-localhost ip6-loopback\n"
         b"ff02::1 ip6-allnodes\nff02::2 ip6-allrouters\n"),
        ("multi-merge-families",
         b"10.0.0.1 a b\n10.0.0.2 b c\n::1 b\n::ffff:10.0.0.3 b B\n"
         b"2001:db8::1 c a\n10.0.0.1 a b\n127.0.0.1 b\n"),
        ("comments",
         b"10.0.0.1 a#b c\n#10.0.0.2 a\n  # x\n10.0.0.3\ta # c d\n"
         b"10.0.0.4 e#\n10.0.0.5#f g\n#\n10.0.0.6 h ## i\n"),
        ("blanks-crlf-vtff",
         b"10.0.0.1\va\fb\r\n\r\n \t \n10.0.0.2\r\tc\r\r\n\v10.0.0.3 d\f\n"
         b"10.0.0.4  \t  e   f\t\t\n"),
        ("address-only",
         b"10.0.0.1\n10.0.0.1 a\n10.0.0.2   \n::1\n2001:db8::5\t\n10.0.0.3 # c\n"),
        ("nul-bytes",
         b"10.0.0.1 a\0b c\n10.0.0.2 \0d\n\0 10.0.0.3 e\n10.0.\x000.4 f\n"
         b"10.0.0.5\0 g\n10.0.0.6 h\n10.0.0.7 i"),
        ("trailing-dots-and-case",
         b"10.0.0.1 Foo. foo FOO.bar.\n10.0.0.2 foo.\n10.0.0.3 FOO\n"
         b"2001:db8::3 fOo. foo.BAR\n10.0.0.4 .\n10.0.0.5 ..\n"),
        ("invalid-addresses",
         b"".join(a + b" bad%d n%d\n" % (i, i) for i, a in enumerate(BAD_ADDRS))
         + b"10.9.9.9 good bad0\n"),
        ("ipv6-spellings",
         b"2001:db8::1 s1\n2001:0db8:0000:0000:0000:0000:0000:0001 s2\n"
         b"2001:DB8::1 s3\n2001:db8:0:0:0:0:0:1 s1\n::FFFF:192.0.2.1 m1\n"
         b"::ffff:c000:201 m2\n0:0:0:0:0:ffff:192.0.2.1 m3\n192.0.2.1 v4\n"
         b"0:0:0:0:0:0:0:1 lo6\n::0:1 lo6b\n::1.2.3.4 compat\n"
         b"::ffff:0:1.2.3.4 translated\n64:ff9b::1.2.3.4 nat64\n"),
        ("duplicates",
         b"10.0.0.1 a b\n10.0.0.1 a b\n10.0.0.1 c\n10.0.0.2 a\n10.0.0.1 a b\n"
         b"::1 a\n::1 a\n::ffff:10.0.0.1 d a\n"),
        ("length-boundaries",
         b"10.0.0.1 " + LABEL63 + b" " + NAME253 + b" " + LABEL64 + b" " + NAME254
         + b" after\n10.0.0.2 " + b" ".join(CONTROL) + b" ctl-after\n"
         + b"10.0.0.3 " + NAME254 + b" " + LABEL63 + b"\n"),
        ("families-only",
         b"127.0.0.1 v4name both\n::1 v6name both\n::ffff:127.0.0.1 mappedname\n"
         b"fe80::1 linklocal both\n10.0.0.1 both\n"),
        ("long-line",
         b"10.0.0.1 first\n10.0.0.2 long.example " + long_aliases + b" first\n"
         b"10.0.0.3 after\n"),
        ("empty", b""),
        ("only-comments", b"# nothing\n\n   \n#10.0.0.1 a\n"),
        ("no-final-newline", b"10.0.0.1 a\n10.0.0.2 b c"),
        ("localhost-everywhere",
         b"127.0.0.1 localhost\n::1 localhost\n127.0.1.1 localhost\n"
         b"::ffff:127.0.0.1 localhost\n0.0.0.0 localhost\n"),
    ]
