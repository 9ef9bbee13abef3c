#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/fuzz/make-seeds.py - writes the seed corpora of the fuzz targets.
#
# Usage: tests/fuzz/make-seeds.py [CORPUS_DIR]   (default: corpus/ beside it)
#
# Every seed is built here from its fields, so that a reader sees what it
# is and the set can be regenerated; the generated files are checked in.
# Seeds the fuzzer found (crash-*, regress-*) are kept by hand, not here:
# this script only writes and removes the files whose names it owns
# (seed-*).  Python standard library only.

import os
import struct
import sys

# ---- DNS messages (fuzz-dnsmsg) ----------------------------------------

T_A, T_NS, T_CNAME, T_SOA, T_PTR, T_MX, T_TXT = 1, 2, 5, 6, 12, 15, 16
T_AAAA, T_SRV, T_OPT, T_CAA, T_ANY = 28, 33, 41, 257, 255
IN = 1


def labels(name):
    """The labels of a dotted name, without the root label."""
    out = b''
    for lab in name.split('.'):
        if lab:
            raw = lab.encode('latin-1')
            out += bytes([len(raw)]) + raw
    return out


def name(n):
    return labels(n) + b'\0'


def ptr(off):
    return struct.pack('>H', 0xc000 | off)


class Msg:
    """A DNS message written in order; offsets are known as it grows."""

    def __init__(self, id=0x1234, flags=0x8180, qd=1, an=0, ns=0, ar=0):
        self.b = bytearray(struct.pack('>6H', id, flags, qd, an, ns, ar))

    def off(self):
        return len(self.b)

    def raw(self, data):
        at = len(self.b)
        self.b += data
        return at

    def question(self, qname, qtype=T_A):
        at = self.raw(name(qname) if isinstance(qname, str) else qname)
        self.b += struct.pack('>HH', qtype, IN)
        return at

    def rr(self, owner, rtype, rdata, ttl=300, rclass=IN):
        """owner: a dotted name or raw bytes (a pointer); returns rdata's offset."""
        self.raw(name(owner) if isinstance(owner, str) else owner)
        self.b += struct.pack('>HHIH', rtype, rclass, ttl, len(rdata))
        return self.raw(rdata)

    def bytes(self):
        return bytes(self.b)


def soa(mname, rname, serial=2024010101, refresh=7200, retry=3600,
        expire=1209600, minimum=300):
    return mname + rname + struct.pack('>5I', serial, refresh, retry, expire,
                                       minimum)


def txt(*strings):
    return b''.join(bytes([len(s)]) + s for s in strings)


def dns_seeds():
    s = {}
    ex = 16     # "example.com" inside a question "www.example.com" at 12

    m = Msg(an=2)
    m.question('www.example.com')
    m.rr(ptr(12), T_A, bytes([192, 0, 2, 1]))
    m.rr(ptr(12), T_A, bytes([192, 0, 2, 2]))
    s['a-two'] = m.bytes()

    m = Msg(an=1)
    m.question('www.example.com', T_AAAA)
    m.rr(ptr(12), T_AAAA, bytes.fromhex('20010db8000000000000000000000001'))
    s['aaaa'] = m.bytes()

    # A CNAME chain, the answer names compressed into earlier rdata.
    m = Msg(an=3, ns=2, ar=3)
    m.question('www.example.com')
    web = m.rr(ptr(12), T_CNAME, labels('web') + ptr(ex), ttl=3600)
    edge = m.rr(ptr(web), T_CNAME, labels('edge.cdn') + ptr(ex), ttl=60)
    m.rr(ptr(edge), T_A, bytes([198, 51, 100, 7]), ttl=20)
    ns1 = m.rr(ptr(ex), T_NS, labels('ns1') + ptr(ex), ttl=86400)
    ns2 = m.rr(ptr(ex), T_NS, labels('ns2') + ptr(ex), ttl=86400)
    m.rr(ptr(ns1), T_A, bytes([192, 0, 2, 53]), ttl=86400)
    m.rr(ptr(ns2), T_AAAA, bytes.fromhex('20010db8000000000000000000000053'))
    m.rr('.', T_OPT, struct.pack('>HH', 10, 8) + b'\1\2\3\4\5\6\7\x08',
         ttl=0, rclass=1232)
    s['cname-chain-glue-opt'] = m.bytes()

    m = Msg(an=2)
    m.question('example.com', T_MX)
    m.rr(ptr(12), T_MX, struct.pack('>H', 10) + labels('mail') + ptr(12))
    m.rr(ptr(12), T_MX, struct.pack('>H', 0) + name('.'))
    s['mx'] = m.bytes()

    m = Msg(flags=0x8183, ns=1)
    m.question('nope.example.com')
    m.rr(ptr(17), T_SOA, soa(labels('ns1') + ptr(17),
                             labels('hostmaster') + ptr(17)), ttl=900)
    s['nxdomain-soa'] = m.bytes()

    m = Msg(flags=0x8180, ns=1)
    m.question('www.example.com', T_AAAA)
    m.rr(ptr(ex), T_SOA, soa(name('ns1.example.com'), name('h.example.com'),
                             minimum=0xffffffff))
    s['nodata-soa'] = m.bytes()

    m = Msg(an=2)
    m.question('example.com', T_TXT)
    m.rr(ptr(12), T_TXT, txt(b'v=spf1 -all'))
    m.rr(ptr(12), T_TXT, txt(b'a"b\\c', b'\x00\x01\xff', b''))
    s['txt'] = m.bytes()

    m = Msg(an=2)
    m.question('_sip._udp.example.com', T_SRV)
    m.rr(ptr(12), T_SRV, struct.pack('>3H', 10, 60, 5060) +
         name('sip.example.com'))
    m.rr(ptr(12), T_SRV, struct.pack('>3H', 20, 0, 5061) +
         labels('sip2') + ptr(22))
    s['srv'] = m.bytes()

    m = Msg(an=3)
    m.question('example.com', T_CAA)
    m.rr(ptr(12), T_CAA, b'\0\x05issueletsencrypt.org')
    m.rr(ptr(12), T_CAA, b'\x80\x05iodefmailto:sec@example.com')
    m.rr(ptr(12), T_CAA, b'\0\x09issuewild;')
    s['caa'] = m.bytes()

    m = Msg(an=1)
    m.question('1.2.0.192.in-addr.arpa', T_PTR)
    m.rr(ptr(12), T_PTR, name('host.example.com'))
    s['ptr'] = m.bytes()

    m = Msg(an=3)
    m.question('example.com', T_ANY)
    m.rr(ptr(12), 65280, b'\x0a\x00\x00\xff')
    m.rr(ptr(12), 65534, b'')
    m.rr(ptr(12), 99, b'\x05hello')
    s['unknown-types'] = m.bytes()

    # Escapes: a dot, a backslash, binary bytes inside labels.
    m = Msg(an=1)
    m.question(b'\x03a.b\x03c\\d\x04\x00\xff *' + name('example'))
    m.rr(ptr(12), T_A, bytes([10, 0, 0, 1]))
    s['escapes'] = m.bytes()

    m = Msg(flags=0x8380, an=0)
    m.question('big.example.com', T_TXT)
    s['truncated-tc'] = m.bytes()

    s['no-question'] = Msg(flags=0x8001, qd=0).bytes()
    s['header-only-bad'] = Msg(qd=1).bytes()

    m = Msg(qd=2)
    m.question('a.example')
    m.question('b.example')
    s['two-questions'] = m.bytes()

    # Compression gone wrong: self, forward, a loop through a label.
    m = Msg(an=0)
    m.question(ptr(12))
    s['ptr-self'] = m.bytes()
    m = Msg(an=0)
    m.question(ptr(18))
    m.raw(name('example.com'))
    s['ptr-forward'] = m.bytes()
    m = Msg(an=0)
    m.question(labels('a') + ptr(12))
    s['ptr-loop-label'] = m.bytes()

    # A chain of 65 pointers behind the question: 64 followed, then 65.
    m = Msg(an=2)
    m.question('example.com')
    rdata = bytearray()
    base = m.off() + 2 + 10
    prev = 12
    chain = []
    for i in range(65):
        chain.append(base + len(rdata))
        rdata += ptr(prev)
        prev = chain[-1]
    m.rr(ptr(12), 65280, bytes(rdata))
    m.rr(ptr(chain[62]), T_A, bytes([1, 2, 3, 4]))
    s['ptr-chain-64'] = m.bytes()
    b = bytearray(m.bytes())
    at = len(b) - 4 - 10 - 2
    b[at:at + 2] = ptr(chain[63])
    s['ptr-chain-65'] = bytes(b)

    # Names at the limit: 255 wire bytes, and 256.
    l63 = 'a' * 63
    m = Msg(an=0)
    m.question('.'.join([l63, l63, l63, 'b' * 61]))
    s['name-255'] = m.bytes()
    m = Msg(an=0)
    m.question('.'.join([l63, l63, l63, 'b' * 62]))
    s['name-256'] = m.bytes()
    m = Msg(an=0)
    m.question(b'\x40' + b'a' * 64 + b'\0')
    s['label-0x40'] = m.bytes()
    m = Msg(an=0)
    m.question(b'\x80' + b'a' * 10 + b'\0')
    s['label-0x80'] = m.bytes()

    # rdlength past the end; wrong for A and AAAA.
    m = Msg(an=1)
    m.question('example.com')
    m.rr(ptr(12), T_A, bytes([1, 2, 3, 4]))
    b = bytearray(m.bytes())
    b[-5] = 9
    s['rdlen-past-end'] = bytes(b)
    m = Msg(an=2)
    m.question('example.com')
    m.rr(ptr(12), T_A, bytes([1, 2, 3]))
    m.rr(ptr(12), T_AAAA, bytes(15))
    s['rdlen-wrong'] = m.bytes()

    m = Msg(an=3)
    m.question('example.com')
    m.rr(ptr(12), T_A, bytes([1, 2, 3, 4]))
    s['count-too-big'] = m.bytes()

    s['empty'] = b''
    s['short-header'] = b'\x12\x34\x81'
    return s


# ---- DNS listener: client queries, upstream replies kept (fuzz-dnswire) --

T_MB, T_MINFO, T_RP, T_SIG, T_PX, T_NAPTR = 7, 14, 17, 24, 26, 35
T_SVCB, T_HTTPS, T_TSIG = 64, 65, 250
OP_NOTIFY, OP_UPDATE = 4, 5


def query(qname, qtype=T_A, id=0x2a2a, flags=0x0100, qclass=IN):
    """A client's query: one question, nothing else (yet)."""
    m = Msg(id=id, flags=flags, qd=1)
    m.raw(name(qname) if isinstance(qname, str) else qname)
    m.b += struct.pack('>HH', qtype, qclass)
    return m


def opt(m, size=1232, version=0, do=False, options=b'', owner=b'\0'):
    """An OPT at the end of m, counted in ARCOUNT."""
    ttl = version << 16 | (0x8000 if do else 0)
    m.raw(owner)
    m.b += struct.pack('>HHIH', T_OPT, size, ttl, len(options)) + options
    m.b[11] += 1
    return m


def option(code, data):
    return struct.pack('>HH', code, len(data)) + data


def kept_rr(section, owner, rtype, rdata, ttl=300, rclass=IN):
    """One record as dnswire_rrs_keep writes it: names expanded."""
    return (bytes([section]) + name(owner) +
            struct.pack('>HHIH', rtype, rclass, ttl, len(rdata)) + rdata)


def dnswire_seeds():
    s = {}
    cookie = option(10, bytes(range(8)))

    # Plain questions, without and with EDNS (DO, a client cookie).
    for qname, qtype, tag in (('www.example.com', T_A, 'a'),
                              ('www.example.com', T_AAAA, 'aaaa'),
                              ('example.com', T_MX, 'mx'),
                              ('example.com', T_HTTPS, 'https'),
                              ('_svc.example.com', T_SVCB, 'svcb'),
                              ('1.2.0.192.in-addr.arpa', T_PTR, 'ptr'),
                              ('example.com', T_ANY, 'any')):
        s['q-' + tag] = query(qname, qtype).bytes()
        s['q-' + tag + '-edns'] = opt(query(qname, qtype), 4096, do=True,
                                      options=cookie).bytes()
    s['q-0x20'] = query('wWw.ExAmPlE.cOm').bytes()
    s['q-root-ns'] = query('.', T_NS).bytes()
    s['q-chaos'] = query('version.bind', T_TXT, qclass=3).bytes()
    s['q-edns-small'] = opt(query('example.com'), 100).bytes()
    s['q-edns-trailing'] = query('example.com').bytes() + b'\xde\xad'
    s['q-odd-bytes'] = query(b'\x03a b\x03x\x00y\x03a.b\x02\xc3\xa9' +
                             name('example')).bytes()
    s['q-wildcard'] = query('*.example.com').bytes()

    # The header: truncated, alone, a reply, other opcodes, counts.
    full = opt(query('www.example.com'), do=True).bytes()
    for n in (0, 1, 11, 12, 20):
        s['q-cut-%d' % n] = full[:n]
    s['q-header-only'] = Msg(flags=0x0100, qd=0).bytes()
    s['q-qr-set'] = query('example.com', flags=0x8100).bytes()
    s['q-notify'] = query('example.com', T_SOA,
                          flags=OP_NOTIFY << 11).bytes()
    s['q-update'] = query('example.com', T_SOA,
                          flags=OP_UPDATE << 11).bytes()
    m = query('a.example')
    m.question('b.example')
    m.b[5] = 2
    s['q-qdcount-2'] = m.bytes()
    s['q-qdcount-0'] = Msg(flags=0x0100, qd=0).bytes() + name('a.example')
    m = query('example.com')
    m.rr(ptr(12), T_A, bytes([1, 2, 3, 4]))
    m.b[7] = 1
    s['q-ancount-1'] = m.bytes()
    s['q-meta-opt'] = query('example.com', T_OPT).bytes()
    s['q-meta-tsig'] = query('example.com', T_TSIG).bytes()

    # Compression in the question: loops, forward, back into the header.
    s['q-ptr-self'] = query(ptr(12)).bytes()
    s['q-ptr-loop'] = query(labels('a') + ptr(12)).bytes()
    s['q-ptr-forward'] = query(ptr(18)).bytes() + name('example')
    s['q-ptr-header'] = query(ptr(0), id=0x0161).bytes()
    s['q-ptr-header-long'] = query(ptr(0), id=0x0161).bytes() + bytes(3)

    # Names at the limit: 255 wire bytes, and 256.
    l63 = 'a' * 63
    s['q-name-255'] = query('.'.join([l63, l63, l63, 'b' * 61])).bytes()
    s['q-name-256'] = query('.'.join([l63, l63, l63, 'b' * 62])).bytes()

    # EDNS gone wrong, and giant options.
    s['q-edns-v1'] = opt(query('example.com'), version=1, do=True).bytes()
    s['q-edns-two'] = opt(opt(query('example.com'))).bytes()
    s['q-edns-owner'] = opt(query('example.com'), owner=name('x')).bytes()
    s['q-edns-overrun'] = opt(query('example.com'),
                              options=struct.pack('>HH', 10, 9) + b'1234').bytes()
    s['q-edns-partial'] = opt(query('example.com'), options=b'\0\x0a\0').bytes()
    s['q-edns-giant'] = opt(query('example.com'),
                            options=option(12, b'x' * 4000)).bytes()
    s['q-edns-giant-overrun'] = opt(query('example.com'),
                                    options=struct.pack('>HH', 12, 0xffff) +
                                    b'x' * 4000).bytes()
    s['q-edns-many'] = opt(query('example.com'),
                           options=b''.join(option(i, b'') for i in range(300))).bytes()
    m = opt(query('example.com'))
    m.rr('key.example', T_TSIG, b'')
    m.b[11] += 1
    s['q-tsig'] = m.bytes()

    # Upstream replies, for the records kept: compression in owners and
    # in every rdata that may hold it, and in some that may not.
    ex = 16
    m = Msg(an=4, ns=2, ar=2)
    m.question('www.example.com', T_MX)
    mail = m.rr(ptr(12), T_CNAME, labels('Mail') + ptr(ex), ttl=3600)
    m.rr(ptr(mail), T_MX, struct.pack('>H', 10) + labels('mx1') + ptr(ex))
    m.rr(ptr(mail), T_MX, struct.pack('>H', 20) + name('mx2.other.net'),
         ttl=60)
    m.rr(ptr(mail), T_MINFO, labels('r') + ptr(ex) + labels('e') + ptr(ex))
    m.rr(ptr(ex), T_SOA, soa(labels('ns1') + ptr(ex),
                             labels('hostmaster') + ptr(ex), minimum=600),
         ttl=3600)
    m.rr(ptr(ex), T_NS, labels('ns1') + ptr(ex), ttl=86400)
    m.rr(name('mx1.example.com'), T_A, bytes([1, 2, 3, 4]))
    m.rr('.', T_OPT, b'', ttl=0, rclass=1232)
    s['up-mx-cname-soa'] = m.bytes()

    m = Msg(an=6)
    m.question('_sip._udp.example.com', T_SRV)
    m.rr(ptr(12), T_SRV, struct.pack('>3H', 10, 60, 5060) +
         labels('sip') + ptr(22), ttl=0x80000000)
    m.rr(ptr(12), T_HTTPS, b'\0\1\xc0\x0c\0\1\0\3\x02h2')
    m.rr(ptr(12), T_NAPTR, struct.pack('>HH', 100, 10) + b'\1S\x07SIP+D2U\0' +
         labels('_sip') + ptr(22))
    m.rr(ptr(12), T_RP, labels('admin') + ptr(22) + ptr(12))
    m.rr(ptr(12), T_PX, struct.pack('>H', 5) + ptr(22) + ptr(12))
    m.rr(ptr(12), T_SIG, struct.pack('>HBBIIIH', T_A, 8, 2, 300, 2, 1, 7) +
         ptr(22) + b'sig')
    s['up-srv-https-naptr'] = m.bytes()

    m = Msg(flags=0x8183, ns=1)
    m.question('nope.example.com', T_AAAA)
    m.rr(ptr(17), T_SOA, soa(labels('ns1') + ptr(17),
                             labels('hostmaster') + ptr(17), minimum=60),
         ttl=900)
    s['up-nxdomain'] = m.bytes()
    m = Msg(an=1)
    m.question('example.com', T_MX)
    m.rr(ptr(12), T_MX, struct.pack('>H', 10) + ptr(12) + b'\0')
    s['up-mx-trailing'] = m.bytes()

    # Kept lists as a store would hold them.
    soa_rd = soa(name('ns1.example.com'), name('h.example.com'))
    s['kept-a-soa'] = (kept_rr(1, 'www.example.com', T_A, bytes([1, 2, 3, 4])) +
                       kept_rr(2, 'example.com', T_SOA, soa_rd, ttl=60))
    s['kept-cname-mx'] = (kept_rr(1, 'www.example.com', T_CNAME,
                                  name('mail.example.com')) +
                          kept_rr(1, 'mail.example.com', T_MX,
                                  struct.pack('>H', 10) + name('mx.example.com')))
    s['kept-bad-order'] = (kept_rr(2, 'example.com', T_SOA, soa_rd) +
                           kept_rr(1, 'example.com', T_A, bytes(4)))
    s['kept-bad-cname'] = kept_rr(1, 'a', T_CNAME, b'\x01b')
    return s


# ---- protocol frames (fuzz-proto) ----------------------------------------

(SEL_HDR, SEL_NAME, SEL_ADDR, SEL_ANSWER, SEL_KV, SEL_ERROR, SEL_FRAME,
 SEL_QUERY_RR, SEL_RECORDS, SEL_INVALIDATE, SEL_SHOW_CACHE,
 SEL_RRTYPE, SEL_EVENT, SEL_METRICS) = range(14)
P_LOOKUP_NAME, P_LOOKUP_ADDR, P_STATISTICS, P_STATUS = 1, 2, 3, 4
P_QUERY_RR, P_FLUSH_CACHES, P_INVALIDATE, P_RESET_STATISTICS = 5, 6, 7, 8
P_RELOAD, P_SHOW_CACHE = 9, 10
REPLY = 0x80
AF4, AF6 = 4, 6


def pstr(b):
    return struct.pack('>H', len(b)) + b


def frame(ptype, body=b'', status=0, id=1, version=1, length=None):
    n = 12 + len(body) if length is None else length
    return struct.pack('>IBBHI', n, version, ptype, status, id) + body


def nscd_req(version, ptype, key_len):
    return struct.pack('=iii', version, ptype, key_len)


def lookup_name(family, n, flags=0):
    return bytes([family, flags]) + pstr(n)


def lookup_addr(family, addr, flags=0):
    return bytes([family, flags]) + addr


def answer(ttl, source, canon, addrs, aliases, flags=0):
    b = struct.pack('>IBBHH', ttl, source, flags, len(addrs), len(aliases))
    b += pstr(canon)
    for fam, a in addrs:
        b += bytes([fam]) + a
    for al in aliases:
        b += pstr(al)
    return b


def kv(items):
    b = struct.pack('>H', len(items))
    for key, val in items:
        if isinstance(val, int):
            b += pstr(key) + b'\0' + struct.pack('>Q', val)
        else:
            b += pstr(key) + b'\1' + pstr(val)
    return b


def query_rr(rtype, n):
    return struct.pack('>HBB', rtype, 0, 0) + pstr(n)


def records(ttl, source, recs):
    b = struct.pack('>IBBH', ttl, source, 0, len(recs))
    for owner, rtype, rttl, rdata in recs:
        b += pstr(owner) + struct.pack('>HI', rtype, rttl) + pstr(rdata)
    return b


def cache_page(nxt, items):
    b = struct.pack('>QH', nxt, len(items))
    for n, kind, status, flags, ttl, *origin in items:
        b += pstr(n) + struct.pack('>IBBI', kind, status, flags, ttl)
        if kind & 0x20000:      # an NSS module's answer: its name follows
            b += pstr(origin[0] if origin else b'')
    return b


def proto_seeds():
    s = {}
    v6 = bytes.fromhex('20010db8000000000000000000000001')
    ans = answer(300, 2, b'www.example.com',
                 [(AF4, bytes([192, 0, 2, 1])), (AF6, v6)],
                 [b'web.example.com', b'alias'])

    s['hdr-ok'] = bytes([SEL_HDR]) + frame(P_LOOKUP_NAME)
    s['hdr-short'] = bytes([SEL_HDR]) + frame(P_LOOKUP_NAME)[:11]
    s['hdr-version'] = bytes([SEL_HDR]) + frame(P_STATUS, version=2)
    s['hdr-too-big'] = bytes([SEL_HDR]) + frame(P_STATUS, length=65537)
    s['hdr-too-small'] = bytes([SEL_HDR]) + frame(P_STATUS, length=11)
    # The same bytes read as glibc's nscd request header (host order).
    s['hdr-nscd-getai'] = bytes([SEL_HDR]) + nscd_req(2, 14, 12) + b'example.org\0'
    s['hdr-nscd-short'] = bytes([SEL_HDR]) + nscd_req(2, 14, 12)[:11]
    s['hdr-nscd-version'] = bytes([SEL_HDR]) + nscd_req(1, 4, 10) + b'localhost\0'
    s['hdr-nscd-key-too-long'] = bytes([SEL_HDR]) + nscd_req(2, 4, 1025)
    s['hdr-nscd-key-max'] = bytes([SEL_HDR]) + nscd_req(2, 4, 1024)
    s['hdr-nscd-negative-type'] = bytes([SEL_HDR]) + nscd_req(2, -1, 0)

    s['name-ok'] = bytes([SEL_NAME]) + lookup_name(0, b'www.example.com')
    s['name-dot'] = bytes([SEL_NAME]) + lookup_name(4, b'www.example.com.')
    s['name-v6'] = bytes([SEL_NAME]) + lookup_name(6, b'localhost')
    s['name-nul'] = bytes([SEL_NAME]) + lookup_name(0, b'a\0b')
    s['name-label64'] = bytes([SEL_NAME]) + lookup_name(0, b'a' * 64 + b'.com')
    s['name-254'] = bytes([SEL_NAME]) + lookup_name(
        0, b'.'.join([b'a' * 63] * 3 + [b'b' * 62]))
    s['name-253-dot'] = bytes([SEL_NAME]) + lookup_name(
        0, b'.'.join([b'a' * 63] * 3 + [b'b' * 61]) + b'.')
    s['name-empty-label'] = bytes([SEL_NAME]) + lookup_name(0, b'a..b')
    s['name-family'] = bytes([SEL_NAME]) + lookup_name(5, b'example.com')
    s['name-truncated'] = bytes([SEL_NAME]) + lookup_name(0, b'example.com')[:8]

    s['addr-v4'] = bytes([SEL_ADDR]) + lookup_addr(AF4, bytes([127, 0, 0, 1]))
    s['addr-v6'] = bytes([SEL_ADDR]) + lookup_addr(AF6, v6)
    s['addr-short'] = bytes([SEL_ADDR]) + lookup_addr(AF6, v6[:10])
    s['addr-family0'] = bytes([SEL_ADDR]) + lookup_addr(0, bytes(16))

    s['answer-ok'] = bytes([SEL_ANSWER]) + ans
    s['answer-empty'] = bytes([SEL_ANSWER]) + answer(0, 1, b'', [], [])
    s['answer-truncated'] = bytes([SEL_ANSWER]) + ans[:-3]
    s['answer-bad-family'] = bytes([SEL_ANSWER]) + answer(
        1, 2, b'x', [(5, bytes(4))], [])
    s['answer-nul-alias'] = bytes([SEL_ANSWER]) + answer(
        1, 2, b'x', [(AF4, bytes(4))], [b'a\0b'])
    s['answer-many'] = bytes([SEL_ANSWER]) + answer(
        60, 3, b'many.example', [(AF4, bytes([10, 0, 0, i])) for i in range(40)],
        [b'al%d' % i for i in range(20)])

    s['kv-ok'] = bytes([SEL_KV]) + kv([(b'lookups', 12345),
                                       (b'version', b'0.1.0'),
                                       (b'uptime', 0)])
    s['kv-empty'] = bytes([SEL_KV]) + kv([])
    s['kv-bad-kind'] = bytes([SEL_KV]) + b'\0\1' + pstr(b'k') + b'\x07'
    s['kv-long-key'] = bytes([SEL_KV]) + kv([(b'k' * 65, 1)])
    s['kv-count-over'] = bytes([SEL_KV]) + b'\0\5' + kv([(b'a', 1)])[2:]

    s['error-msg'] = bytes([SEL_ERROR]) + pstr(b'label longer than 63 characters')
    s['error-empty'] = bytes([SEL_ERROR])
    s['error-short'] = bytes([SEL_ERROR]) + b'\0\x10abc'

    s['frame-lookup-name'] = bytes([SEL_FRAME]) + frame(
        P_LOOKUP_NAME, lookup_name(0, b'www.example.com'), id=42)
    s['frame-lookup-addr'] = bytes([SEL_FRAME]) + frame(
        P_LOOKUP_ADDR, lookup_addr(AF4, bytes([192, 0, 2, 1])))
    s['frame-answer'] = bytes([SEL_FRAME]) + frame(P_LOOKUP_NAME | REPLY, ans)
    s['frame-notfound'] = bytes([SEL_FRAME]) + frame(
        P_LOOKUP_NAME | REPLY, b'', status=1)
    s['frame-badname'] = bytes([SEL_FRAME]) + frame(
        P_LOOKUP_ADDR | REPLY, pstr(b'malformed address'), status=5)
    s['frame-stats'] = bytes([SEL_FRAME]) + frame(
        P_STATISTICS | REPLY, kv([(b'hits', 1), (b'misses', 2)]))
    s['frame-status'] = bytes([SEL_FRAME]) + frame(
        P_STATUS | REPLY, kv([(b'socket', b'/run/namecache/socket')]))
    s['frame-len-over'] = bytes([SEL_FRAME]) + frame(
        P_LOOKUP_NAME, lookup_name(0, b'a'), length=100)

    recs = records(300, 2, [
        (b'example.com', 15, 300, b'10 mail.example.com.'),
        (b'example.com', 16, 300, b'"v=spf1 -all"'),
        (b'example.com', 65280, 60, b'\\# 4 0a0000ff')])
    page = cache_page(17, [(b'www.example.com', 1, 0, 0, 120),
                           (b'gone.example', 0x10000 | 15, 1, 1, 0)])
    s['query-rr-mx'] = bytes([SEL_QUERY_RR]) + query_rr(15, b'example.com')
    s['query-rr-type0'] = bytes([SEL_QUERY_RR]) + query_rr(0, b'example.com')
    s['query-rr-badname'] = bytes([SEL_QUERY_RR]) + query_rr(1, b'a..b')
    s['records-ok'] = bytes([SEL_RECORDS]) + recs
    s['records-empty'] = bytes([SEL_RECORDS]) + records(0, 2, [])
    s['records-truncated'] = bytes([SEL_RECORDS]) + recs[:-5]
    s['invalidate-ok'] = bytes([SEL_INVALIDATE]) + pstr(b'www.example.com')
    s['invalidate-bad'] = bytes([SEL_INVALIDATE]) + pstr(b'a' * 70)
    s['show-cache-req'] = bytes([SEL_SHOW_CACHE]) + struct.pack('>Q', 0)
    s['show-cache-page'] = bytes([SEL_SHOW_CACHE]) + page
    s['show-cache-short'] = bytes([SEL_SHOW_CACHE]) + page[:-2]
    s['show-cache-page-nss'] = bytes([SEL_SHOW_CACHE]) + cache_page(
        0x0102030405060708, [(b'192.0.2.1', 0x20000 | 0x300 | 0x80 | 4, 0, 0, 30,
                              b'mdns4_minimal'),
                             (b'printer.local', 0x20000 | 0x300 | 6, 2, 1, 0,
                              b'mdns4_minimal')])
    s['rrtype-mx'] = bytes([SEL_RRTYPE]) + b'mx'
    # The monitor's events (proto/event.h): fixed fields, command, source,
    # name, then the reply's type and body.
    def event(fe, cache, q, fam, qtype, status, name, body=b'', reply=0,
              client=(0, 0, bytes(16)), addr=bytes(16), lost=0):
        return (struct.pack('>QIQiIBBBBHHBH', 1796325359008037, 43, lost, 20243, 0, fe,
                            cache, q, fam, qtype, status, client[0], client[1]) +
                client[2] + addr + pstr(b'getent') + pstr(b'files') + pstr(name) +
                bytes([reply]) + pstr(body))
    s['event-lookup'] = bytes([SEL_EVENT]) + event(1, 0, 0, 0, 0, 0, b'web.test', ans,
                                                   P_LOOKUP_NAME | REPLY)
    s['event-addr'] = bytes([SEL_EVENT]) + event(1, 0, 1, 4, 0, 0, b'', ans,
                                                 P_LOOKUP_ADDR | REPLY,
                                                 addr=bytes([192, 0, 2, 10]) + bytes(12))
    s['event-dns'] = bytes([SEL_EVENT]) + event(3, 1, 0, 0, 1, 1, b'nx.test',
                                                client=(4, 5353, bytes([127, 0, 0, 1]) +
                                                        bytes(12)))
    s['event-rr'] = bytes([SEL_EVENT]) + event(1, 1, 2, 0, 15, 0, b'mx.test', recs,
                                               P_QUERY_RR | REPLY)
    s['event-nscd-db'] = bytes([SEL_EVENT]) + event(2, 1, 4, 0, 1, 0, b'1000')
    s['event-lost'] = bytes([SEL_EVENT]) + event(0, 0, 0, 0, 0, 0, b'', lost=27402)
    s['event-short'] = bytes([SEL_EVENT]) + event(1, 0, 0, 0, 0, 0, b'web.test')[:40]
    s['event-bad-cache'] = bytes([SEL_EVENT]) + event(1, 9, 0, 0, 0, 0, b'web.test')
    s['metrics-req'] = bytes([SEL_METRICS]) + struct.pack('>QQ', 0, 0)
    s['metrics-page'] = bytes([SEL_METRICS]) + struct.pack('>QQ', 3, 30) + \
        b'# TYPE namecache_x counter\nnamecache_x 1\n'
    s['rrtype-number'] = bytes([SEL_RRTYPE]) + b'TYPE65280'
    s['rrtype-zero'] = bytes([SEL_RRTYPE]) + b'type0'
    s['frame-query-rr'] = bytes([SEL_FRAME]) + frame(
        P_QUERY_RR, query_rr(33, b'_sip._udp.example.com'))
    s['frame-records'] = bytes([SEL_FRAME]) + frame(P_QUERY_RR | REPLY, recs)
    s['frame-invalidate'] = bytes([SEL_FRAME]) + frame(
        P_INVALIDATE, pstr(b'example.com'))
    s['frame-invalidated'] = bytes([SEL_FRAME]) + frame(
        P_INVALIDATE | REPLY, kv([(b'invalidated', 3)]))
    s['frame-denied'] = bytes([SEL_FRAME]) + frame(
        P_FLUSH_CACHES | REPLY, pstr(b'permission denied'), status=7)
    s['frame-show-cache'] = bytes([SEL_FRAME]) + frame(
        P_SHOW_CACHE, struct.pack('>Q', 17))
    s['frame-cache-page'] = bytes([SEL_FRAME]) + frame(
        P_SHOW_CACHE | REPLY, page)
    return s


# ---- hosts files (fuzz-hosts) ----------------------------------------

def hosts_seeds():
    s = {}
    s['debian-default'] = (
        b'127.0.0.1\tlocalhost\n'
        b'127.0.1.1\tmyhost.example.org\tmyhost\n'
        b'\n'
        b'# The following lines are desirable for IPv6 capable hosts\n'
        b'::1     localhost ip6-localhost ip6-loopback\n'
        b'ff02::1 ip6-allnodes\n'
        b'ff02::2 ip6-allrouters\n')
    s['aliases-case-repeat'] = (
        b'192.0.2.1 Web.Example.COM web www\n'
        b'192.0.2.2 web.example.com web2\n'
        b'2001:db8::1 web.example.com www6\n'
        b'192.0.2.1 other.example.com\n'
        b'192.0.2.3 WEB\n')
    s['comments-blanks'] = (
        b'   # indented comment\n'
        b'\t\t\n'
        b'10.0.0.1 a b # trailing comment c\n'
        b'10.0.0.2#nospace\n'
        b'10.0.0.3 d#e f\n'
        b' \t 10.0.0.4\t \tg  \t h \n')
    s['invalid-addresses'] = (
        b'999.1.1.1 bad4\n'
        b'1.2.3 short\n'
        b'01.2.3.4 octal\n'
        b'1.2.3.4.5 five\n'
        b'::g bad6\n'
        b'fe80::1%eth0 scoped\n'
        b'1.2.3.4/24 cidr\n'
        b'localhost 127.0.0.1\n'
        b'10.1.1.1 good\n')
    s['mapped-loopback'] = (
        b'::ffff:192.0.2.9 mapped\n'
        b'::1 lo6 localhost\n'
        b'::ffff:10.0.0.1 v4m\n'
        b'10.0.0.1 plain4\n'
        b'::ffff:0:10.0.0.2 notmapped\n'
        b'0:0:0:0:0:ffff:c000:0209 mapped2\n')
    s['crlf-no-final-newline'] = (
        b'10.0.0.1 crlf\r\n'
        b'10.0.0.2 crlf2 alias\r\n'
        b'10.0.0.3 last')
    s['nul-bytes'] = (
        b'10.0.0.1 before\0after\n'
        b'\0 10.0.0.2 hidden\n'
        b'10.0.0.3 ok\0\n'
        b'10.0.0\0.4 cut\n')
    s['address-only'] = b'10.0.0.1\n10.0.0.2 \n10.0.0.3\t\n2001:db8::5\n'
    s['empty'] = b''
    s['only-newlines'] = b'\n\n\n'
    s['long-names'] = (
        b'10.0.0.1 ' + b'a' * 63 + b'.' + b'b' * 63 + b'.' + b'c' * 63 +
        b'.' + b'd' * 61 + b'\n'
        b'10.0.0.2 ' + b'x' * 300 + b'\n'
        b'10.0.0.3 ' + b' '.join(b'al%d' % i for i in range(100)) + b'\n')
    s['many-lines-same-name'] = b''.join(
        b'10.0.%d.%d dup dup%d\n' % (i // 256, i % 256, i % 7)
        for i in range(300))
    s['high-bytes'] = (
        b'10.0.0.1 caf\xc3\xa9 \xff\xfe\n'
        b'10.0.0.2 \x7f\x01ctl\n'
        b'10.0.0.3 \xc3\x89COLE \xc3\xa9cole\n')
    s['v6-forms'] = (
        b'::  unspecified\n'
        b'2001:DB8:0:0:0:0:0:1 upper6\n'
        b'2001:db8::0.0.0.1 embedded4\n'
        b'::ffff:1.2.3.4 m\n'
        b'2001:0db8:0000:0000:0000:0000:0000:0001 full6\n')
    return s


# ---- configuration files (fuzz-config) ----------------------------------------

def config_seeds():
    s = {}
    s['defaults'] = (
        b'# namecached.conf with every key at its default\n'
        b'socket = /run/namecache/socket\n'
        b'hosts_file = /etc/hosts\n'
        b'resolv_conf = /etc/resolv.conf\n'
        b'upstream =\n'
        b'cache_size = 100000\n'
        b'min_ttl = 0\n'
        b'max_ttl = 86400\n'
        b'negative_max_ttl = 3600\n'
        b'failure_ttl = 5\n'
        b'serve_stale = 86400\n'
        b'prefetch = yes\n'
        b'shared = yes\n'
        b'max_clients = 4096\n'
        b'admin_group =\n'
        b'log_level = info\n')
    s['upstream-forms'] = (
        b'upstream = 127.0.0.1:5353 [::1]:5353 192.0.2.1 2001:db8::53, '
        b'[2001:db8::1] 10.0.0.1:53\n')
    s['upstream-too-many'] = (
        b'upstream = 192.0.2.1 192.0.2.2 192.0.2.3 192.0.2.4 192.0.2.5 192.0.2.6 '
        b'192.0.2.7 192.0.2.8 192.0.2.9\n')
    s['upstream-bad'] = b'upstream = [::1:53 1.2.3.4:0 1.2.3.4:65536\n'
    s['upstream-port-junk'] = b'upstream = 1.2.3.4:53x\n'
    s['unknown-key'] = b'# comment\ncache_size = 10\nfoo = bar\n'
    s['no-equals'] = b'cache_size 10\n'
    s['bad-uint'] = b'max_ttl = -1\n'
    s['uint-overflow'] = b'cache_size = 99999999999999999999999\n'
    s['uint-bounds'] = b'min_ttl = 604800\nmax_ttl = 604800\nmax_clients = 0\n'
    s['min-over-max'] = b'min_ttl = 100\nmax_ttl = 10\n'
    s['bools'] = (b'prefetch = off\nshared = false\nprefetch = 1\n'
                  b'shared = On\n')
    s['log-levels'] = (b'log_level = debug\nlog_level = error\n'
                       b'log_level = warning\nlog_level = verbose\n')
    s['relative-path'] = b'socket = run/sock\n'
    s['crlf-tabs'] = b'\tcache_size\t=\t42\t\r\nshared=no\r\n'
    s['empty-value'] = b'hosts_file =\n'
    s['equals-in-value'] = b'socket = /tmp/a=b\n'
    s['nul-byte'] = b'cache_size = 1\0junk\nmax_ttl = 5\n'
    s['no-final-newline'] = b'failure_ttl = 30'
    s['admin-group'] = b'admin_group = root\nadmin_group = \n'
    s['admin-group-missing'] = b'admin_group = namecache-no-such-group-4f1c\n'
    s['empty'] = b''
    s['comments-only'] = b'# one\n   # two\n\n#\n'
    return s


# ---- DNS replies for the cache (fuzz-dnsanswer) ----------------------------

# The control byte before each reply: see tests/fuzz/fuzz-dnsanswer.c.
A_ADDR, A_PTR, A_RR = 0, 1, 2
A_V6, A_UPPER, A_QTYPE = 4, 8, 16


def a_small(k):
    """A second run into a writer of k/8 of the body's size."""
    return k << 5


def answer_seeds():
    s = {}
    ex = 16     # "example.com" inside a question "www.example.com" at 12
    v6 = bytes.fromhex('20010db8000000000000000000000001')

    m = Msg(an=2)
    m.question('www.example.com')
    m.rr(ptr(12), T_A, bytes([192, 0, 2, 1]))
    m.rr(ptr(12), T_A, bytes([192, 0, 2, 2]), ttl=60)
    s['a-two'] = bytes([A_ADDR]) + m.bytes()
    s['a-two-upper-small'] = bytes([A_ADDR | A_UPPER | a_small(5)]) + m.bytes()
    s['a-two-rr'] = bytes([A_RR | A_QTYPE]) + m.bytes()

    m = Msg(an=1)
    m.question('www.example.com', T_AAAA)
    m.rr(ptr(12), T_AAAA, v6)
    s['aaaa'] = bytes([A_ADDR | A_V6 | a_small(7)]) + m.bytes()

    # A CNAME chain, glue, EDNS: what a recursive resolver sends.
    m = Msg(an=4, ns=2, ar=3)
    m.question('www.example.com')
    web = m.rr(ptr(12), T_CNAME, labels('web') + ptr(ex), ttl=3600)
    edge = m.rr(ptr(web), T_CNAME, labels('edge.cdn') + ptr(ex), ttl=60)
    m.rr(ptr(edge), T_A, bytes([198, 51, 100, 7]), ttl=20)
    m.rr(ptr(edge), T_A, bytes([198, 51, 100, 8]), ttl=20)
    ns1 = m.rr(ptr(ex), T_NS, labels('ns1') + ptr(ex), ttl=86400)
    ns2 = m.rr(ptr(ex), T_NS, labels('ns2') + ptr(ex), ttl=86400)
    m.rr(ptr(ns1), T_A, bytes([192, 0, 2, 53]), ttl=86400)
    m.rr(ptr(ns2), T_AAAA, bytes.fromhex('20010db8000000000000000000000053'))
    m.rr('.', T_OPT, b'', ttl=0, rclass=1232)
    s['cname-chain'] = bytes([A_ADDR | a_small(3)]) + m.bytes()
    s['cname-chain-rr'] = bytes([A_RR | A_QTYPE | a_small(6)]) + m.bytes()

    # 16 links: the most followed; 17: rejected.
    for n in (16, 17):
        m = Msg(an=n + 1)
        m.question('c0.example')
        for i in range(n):
            m.rr('c%d.example' % i, T_CNAME, name('c%d.example' % (i + 1)),
                 ttl=1000 - i)
        m.rr('c%d.example' % n, T_A, bytes([192, 0, 2, 1]))
        s['chain-%d' % n] = bytes([A_ADDR]) + m.bytes()

    m = Msg(an=3)
    m.question('a.example')
    m.rr('a.example', T_CNAME, name('b.example'))
    m.rr('b.example', T_CNAME, name('a.example'))
    m.rr('a.example', T_A, bytes([192, 0, 2, 1]))
    s['cname-loop'] = bytes([A_ADDR]) + m.bytes()

    # Other names' data in every section: none of it may come out.
    m = Msg(an=4, ns=1, ar=2)
    m.question('www.example')
    m.rr('bank.example', T_A, bytes([203, 0, 113, 66]), ttl=86400)
    m.rr(ptr(12), T_A, bytes([192, 0, 2, 1]))
    m.rr('bank.example', T_CNAME, name('www.example'))
    m.rr(ptr(12), T_A, bytes([203, 0, 113, 67]), rclass=3)
    m.rr(ptr(12), T_CNAME, name('bank.example'))
    m.rr(ptr(12), T_A, bytes([203, 0, 113, 68]))
    m.rr('bank.example', T_A, bytes([203, 0, 113, 69]))
    s['poison'] = bytes([A_ADDR]) + m.bytes()
    s['poison-rr'] = bytes([A_RR | A_QTYPE]) + m.bytes()

    m = Msg(flags=0x8183, ns=1)
    m.question('nope.example.com')
    m.rr(ptr(17), T_SOA, soa(labels('ns1') + ptr(17),
                             labels('hostmaster') + ptr(17), minimum=60),
         ttl=900)
    s['nxdomain-soa'] = bytes([A_ADDR]) + m.bytes()

    m = Msg(flags=0x8180, ns=1)
    m.question('www.example.com', T_AAAA)
    m.rr(ptr(ex), T_SOA, soa(name('ns1.example.com'), name('h.example.com'),
                             minimum=0xffffffff), ttl=30)
    s['nodata-soa'] = bytes([A_ADDR | A_V6]) + m.bytes()

    m = Msg(flags=0x8183)
    m.question('nope.example.com')
    s['nxdomain-no-soa'] = bytes([A_ADDR]) + m.bytes()

    m = Msg(flags=0x8182, an=1)
    m.question('www.example.com')
    m.rr(ptr(12), T_A, bytes([192, 0, 2, 1]))
    s['servfail'] = bytes([A_ADDR]) + m.bytes()

    m = Msg(an=3)
    m.question('www.example.com')
    m.rr(ptr(12), T_CNAME, name('web.example.com'), ttl=0x80000000)
    m.rr('web.example.com', T_A, bytes([192, 0, 2, 1]), ttl=0xffffffff)
    m.rr('web.example.com', T_A, bytes([192, 0, 2, 2]), ttl=0x7fffffff)
    s['ttl-top-bit'] = bytes([A_ADDR]) + m.bytes()

    m = Msg(an=600)
    m.question('many.example')
    for i in range(600):
        m.rr(ptr(12), T_A, bytes([10, 0, i >> 8, i & 0xff]))
    s['a-600'] = bytes([A_ADDR | a_small(7)]) + m.bytes()

    # PTR: the address comes from the last bytes of the input.
    m = Msg(an=2)
    m.question('4.3.2.1.in-addr.arpa', T_PTR)
    m.rr(ptr(12), T_PTR, name('host.example.com'), ttl=3600)
    m.rr(ptr(12), T_PTR, name('other.example.com'), ttl=600)
    s['ptr-v4'] = bytes([A_PTR]) + m.bytes()

    m = Msg(an=1)
    m.question('1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2'
               '.ip6.arpa', T_PTR)
    m.rr(ptr(12), T_PTR, name('v6host.example.com'))
    s['ptr-v6'] = bytes([A_PTR | A_V6 | a_small(4)]) + m.bytes()

    # RFC 2317: a CNAME to the PTR.
    m = Msg(an=2)
    m.question('130.2.0.192.in-addr.arpa', T_PTR)
    at = m.rr(ptr(12), T_CNAME, labels('130.128-25') + ptr(16))
    m.rr(ptr(at), T_PTR, name('mail.example.org'))
    s['ptr-classless'] = bytes([A_PTR]) + m.bytes()

    m = Msg(an=3)
    m.question('example.com', T_MX)
    m.rr(ptr(12), T_MX, struct.pack('>H', 10) + labels('mail') + ptr(12))
    m.rr(ptr(12), T_MX, struct.pack('>H', 0) + name('.'))
    m.rr('example.org', T_MX, struct.pack('>H', 5) + name('evil'))
    s['mx'] = bytes([A_RR]) + m.bytes()

    m = Msg(an=2)
    m.question('example.com', T_TXT)
    m.rr(ptr(12), T_TXT, txt(b'v=spf1 -all'))
    m.rr(ptr(12), T_TXT, txt(b'a"b\\c', b'\x00\x01\xff', b''))
    s['txt'] = bytes([A_RR | a_small(2)]) + m.bytes()

    m = Msg(an=1)
    m.question('_sip._udp.example.com', T_SRV)
    m.rr(ptr(12), T_SRV, struct.pack('>3H', 10, 60, 5060) +
         name('sip.example.com'))
    s['srv'] = bytes([A_RR]) + m.bytes()

    m = Msg(an=2)
    m.question('example.com', T_CAA)
    m.rr(ptr(12), T_CAA, b'\0\x05issueletsencrypt.org')
    m.rr(ptr(12), T_CAA, b'\x80\x05iodefmailto:sec@example.com')
    s['caa'] = bytes([A_RR]) + m.bytes()

    m = Msg(an=2)
    m.question('www.example.com', T_MX)
    m.rr(ptr(12), T_CNAME, name('mx.example.net'), ttl=600)
    m.rr('mx.example.net', T_MX, struct.pack('>H', 10) + name('mail.example.net'))
    s['mx-via-cname'] = bytes([A_RR | A_UPPER]) + m.bytes()

    m = Msg(flags=0x0100, an=1)
    m.question('www.example.com')
    m.rr(ptr(12), T_A, bytes([192, 0, 2, 1]))
    s['query-not-reply'] = bytes([A_ADDR]) + m.bytes()

    m = Msg(an=1)
    m.question('www.example.com')
    m.rr(ptr(12), T_A, bytes([192, 0, 2, 1]))
    s['truncated'] = bytes([A_ADDR]) + m.bytes()[:-3]
    s['empty'] = b''
    s['ctl-only'] = bytes([A_RR])
    return s


# ---- replies as libnamecache decodes them (fuzz-client) -------------------

C_RESULT, C_RESULT_TTL, C_RECORDS, C_VALUES, C_PAGE, C_STRINGS, C_CHANGED = range(7)


def client_seeds():
    s = {}
    v6 = bytes.fromhex('20010db8000000000000000000000001')
    s['result'] = bytes([C_RESULT]) + answer(300, 2, b'www.example.com',
                                              [(AF4, bytes([192, 0, 2, 1])), (AF6, v6)],
                                              [b'web.example.com', b'alias'])
    s['result-shared-ttl'] = bytes([C_RESULT_TTL]) + answer(
        60, 3, b'a', [(AF4, bytes([10, 0, 0, i])) for i in range(8)], [])
    s['result-empty'] = bytes([C_RESULT]) + answer(0, 1, b'', [], [])
    # Counts that lie: more addresses or aliases said than given, and fewer.
    s['result-naddr-lies'] = bytes([C_RESULT]) + answer(
        1, 2, b'x', [(AF4, bytes(4))], [])[:-6] + struct.pack('>HH', 9, 0) + pstr(b'x') + \
        bytes([AF4]) + bytes(4)
    s['result-nalias-lies'] = bytes([C_RESULT]) + struct.pack(
        '>IBBHH', 1, 2, 0, 0, 3) + pstr(b'x') + pstr(b'y')
    s['result-bad-family'] = bytes([C_RESULT]) + answer(1, 2, b'x', [(9, bytes(4))], [])
    s['records'] = bytes([C_RECORDS]) + records(300, 2, [
        (b'example.com', 15, 300, b'10 mx.example.com.'),
        (b'example.com', 16, 300, b'"v=spf1 -all"')])
    s['records-none'] = bytes([C_RECORDS]) + records(0, 2, [])
    s['values'] = bytes([C_VALUES]) + kv([(b'cache_hits', 12), (b'version', b'0.1.0'),
                                         (b'shared', b'yes')])
    s['values-bad-kind'] = bytes([C_VALUES]) + struct.pack('>H', 1) + pstr(b'k') + b'\x07' + \
        struct.pack('>Q', 1)
    s['page'] = bytes([C_PAGE]) + cache_page(7, [(b'www.example.com', 1, 0, 0, 30),
                                                (b'gone.example', 28, 2, 1, 0)])
    s['page-last'] = bytes([C_PAGE]) + cache_page(0, [])
    s['name'] = bytes([C_STRINGS]) + b'www.example.com.'
    s['name-long'] = bytes([C_STRINGS]) + b'.'.join([b'a' * 63] * 4)
    s['name-ctl'] = bytes([C_STRINGS]) + b'a\x01b'
    s['rrtype'] = bytes([C_STRINGS]) + b'TYPE65280'
    # A shared-cache hit's body changed after it was decoded: a family made
    # longer, an address of another family, an alias made longer.
    both = answer(60, 2, b'web.example', [(AF4, bytes([192, 0, 2, 1])), (AF6, v6)],
                  [b'www.example', b'w'])
    fam = 10 + 2 + len(b'web.example')
    al = fam + 5 + 17

    def changed(body, changes):
        b = bytes([C_CHANGED, len(changes)])
        for off, x in changes:
            b += struct.pack('>HB', off, x)
        return b + body
    s['changed-none'] = changed(both, [])
    s['changed-family'] = changed(both, [(fam, AF4 ^ AF6)])
    s['changed-v6-to-v4'] = changed(both, [(fam + 5, AF6 ^ AF4)])
    s['changed-alias'] = changed(both, [(al + 1, 0x7f)])
    s['changed-alias-shorter'] = changed(both, [(al + 1, 11 ^ 1)])
    return s


# ---- shared answer segments (fuzz-shm) -----------------------------------
#
# The layout of proto/shmfmt.h, little-endian as on the machines it runs
# on, written the way daemon/engine/shm.c writes it (SipHash-1-3 of kind, family
# and the case-folded key; linear probing; a replaced key takes its slot).

SHM_MAGIC = 0x3130484d53434e00
SHM_NAME, SHM_ADDR, SHM_EXACT = 1, 2, 1
SHM_FOREVER = (1 << 63) - 1
SHM_LIVE, SHM_RETIRED = 1, 2
M64 = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M64


def siphash13(k0, k1, data):
    v0 = 0x736f6d6570736575 ^ k0
    v1 = 0x646f72616e646f6d ^ k1
    v2 = 0x6c7967656e657261 ^ k0
    v3 = 0x7465646279746573 ^ k1

    def rnd():
        nonlocal v0, v1, v2, v3
        v0 = (v0 + v1) & M64
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & M64
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & M64
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & M64
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)

    end = len(data) & ~7
    for i in range(0, end, 8):
        m = int.from_bytes(data[i:i + 8], 'little')
        v3 ^= m
        rnd()
        v0 ^= m
    b = (len(data) << 56) & M64
    for i in range(len(data) & 7):
        b |= data[end + i] << (8 * i)
    v3 ^= b
    rnd()
    v0 ^= b
    v2 ^= 0xff
    rnd()
    rnd()
    rnd()
    return v0 ^ v1 ^ v2 ^ v3


def shm_key_hash(k, kind, family, key):
    """The slot hash of key bytes k in a segment whose SipHash key is key."""
    k = k[:256]
    if kind == SHM_NAME:
        k = bytes(c + 32 if 65 <= c <= 90 else c for c in k)
    return siphash13(key[0], key[1], bytes([kind, family]) + k)


def shm_rec_size(klen, blen):
    return 32 + ((klen + 7) & ~7) + ((blen + 7) & ~7)


class Segment:
    """A segment image as daemon/engine/shm.c writes one."""

    def __init__(self, nslots=16, data_size=2048, key=(0x0706050403020100, 0x0f0e0d0c0b0a0908),
                 generation=1, state=SHM_LIVE, heartbeat=10 ** 12):
        self.nslots, self.data_size, self.key = nslots, data_size, key
        self.slots_off = 128
        self.data_off = (128 + nslots * 8 + 7) & ~7
        self.generation, self.state, self.heartbeat = generation, state, heartbeat
        self.slots = [0] * nslots
        self.data = bytearray(data_size)
        self.used = 0
        self.at = {}        # key bytes -> data offset of its record

    def put(self, kind, family, k, body, exact=False, status=0, expires=SHM_FOREVER, ttl=0,
            flags=None):
        if isinstance(k, str):
            k = k.encode()
        h = shm_key_hash(k, kind, family, self.key)
        tag = (h >> 40) & 0xffffff
        need = shm_rec_size(len(k), len(body))
        pos = None
        for i in range(32):
            at = (h + i) & (self.nslots - 1)
            v = self.slots[at]
            if v == 0:
                pos = at
                break
            if v & 0xffffff != tag:
                continue
            off = (v >> 24) * 8
            okind, ofam, oflags = self.data[off + 22], self.data[off + 23], self.data[off + 25]
            klen = struct.unpack_from('<H', self.data, off + 20)[0]
            okey = bytes(self.data[off + 32:off + 32 + klen])
            fold = okey.lower() == k.lower() and kind == SHM_NAME and not exact \
                and not oflags & SHM_EXACT
            if okind == kind and ofam == family and (okey == k or fold):
                pos = at
                break
        assert pos is not None and self.used + need <= self.data_size, 'seed too big'
        off = self.used
        rec = struct.pack('<IIqIHBBBB6x', need, len(body), expires, ttl, len(k), kind, family,
                          status, (SHM_EXACT if exact else 0) if flags is None else flags)
        rec += k + b'\0' * (((len(k) + 7) & ~7) - len(k))
        rec += body + b'\0' * (((len(body) + 7) & ~7) - len(body))
        self.data[off:off + need] = rec
        self.slots[pos] = (off // 8) << 24 | (h >> 40) & 0xffffff
        self.used += need
        self.at[k] = off
        return off

    def image(self):
        file_size = self.data_off + self.data_size
        hdr = struct.pack('<QIIQQIIQQQqQQ', SHM_MAGIC, 1, 128, file_size, self.generation,
                          self.nslots, self.state, self.slots_off, self.data_off,
                          self.data_size, self.heartbeat, self.key[0], self.key[1])
        hdr += bytes(128 - len(hdr))
        slots = b''.join(struct.pack('<Q', v) for v in self.slots)
        pad = bytes(self.data_off - 128 - len(slots))
        return bytearray(hdr + slots + pad + bytes(self.data))


# Control byte of fuzz-shm: kind, family, plausible header, upper case, short map.
SK_NAME, SK_ADDR, SK_RAW = 0, 1, 2
SF_UNSPEC, SF_INET, SF_INET6, SF_RAW = 0, 4, 8, 12
S_PLAUSIBLE, S_UPPER, S_SHORT, S_VIEW = 16, 32, 64, 128


def shm_answer(canon, addrs, ttl=0, source=1):
    return answer(ttl, source, canon, addrs, [])


def shm_seeds():
    s = {}
    v4 = bytes([192, 0, 2, 1])
    v6 = bytes.fromhex('20010db8000000000000000000000001')

    def seed(name_, seg_or_img, ctl=SK_NAME | SF_INET, klen=0):
        img = seg_or_img.image() if isinstance(seg_or_img, Segment) else seg_or_img
        s[name_] = bytes([ctl, klen]) + bytes(img)

    # What the daemon publishes: hosts answers (folded), DNS answers (exact),
    # negative answers, addresses.
    g = Segment(nslots=16, data_size=2048)
    g.put(SHM_NAME, AF4, b'localhost', shm_answer(b'localhost', [(AF4, bytes([127, 0, 0, 1]))]))
    g.put(SHM_NAME, 0, b'www.example.com',
          shm_answer(b'www.example.com', [(AF4, v4), (AF6, v6)], source=3), exact=True,
          expires=5 * 10 ** 12, ttl=300)
    g.put(SHM_NAME, AF4, b'WWW.Example.COM',
          shm_answer(b'WWW.Example.COM', [(AF4, v4)], source=3), exact=True,
          expires=5 * 10 ** 12, ttl=300)
    g.put(SHM_NAME, AF6, b'nx.example', b'', status=1, expires=2 * 10 ** 12, ttl=60)
    g.put(SHM_NAME, AF4, b'nodata.example', b'', status=2, expires=2 * 10 ** 12, ttl=60)
    g.put(SHM_ADDR, AF4, bytes([127, 0, 0, 1]), shm_answer(b'localhost', [(AF4, bytes([127, 0, 0, 1]))]))
    g.put(SHM_ADDR, AF6, v6, shm_answer(b'www.example.com', [(AF6, v6)]))
    g.put(SHM_NAME, AF4, b'a', b'x')
    g.put(SHM_NAME, AF4, b'', b'empty key')
    good = g.image()
    seed('names-v4', good, SK_NAME | SF_INET)
    seed('names-unspec', good, SK_NAME | SF_UNSPEC)
    seed('names-v6-upper', good, SK_NAME | SF_INET6 | S_UPPER)
    seed('addr-v4', good, SK_ADDR | SF_INET, klen=4)
    seed('plausible', good, SK_NAME | SF_INET | S_PLAUSIBLE | S_UPPER)
    seed('short-map', good, SK_NAME | SF_INET | S_SHORT)
    seed('raw-kind', good, SK_RAW | SF_RAW, klen=0x44)

    # A replaced key: the old record stays, unreferenced.
    r = Segment(nslots=16, data_size=1024)
    r.put(SHM_NAME, AF4, b'host', b'first')
    r.put(SHM_NAME, AF4, b'HOST', b'second')
    r.put(SHM_NAME, AF4, b'Host', b'exact', exact=True)
    seed('replaced', r, SK_NAME | SF_INET | S_UPPER)

    # A table full enough that probes wrap from the last slot to the first.
    f = Segment(nslots=16, data_size=4096)
    for i in range(15):
        f.put(SHM_NAME, AF4, ('h%d.example' % i).encode(), ('body %d' % i).encode())
    seed('crowded', f, SK_NAME | SF_INET | S_UPPER)
    seed('crowded-plausible', f, SK_NAME | SF_INET | S_PLAUSIBLE)

    # Keys up to the longest name, and past the 256 bytes the hash reads.
    big = Segment(nslots=16, data_size=4096)
    big.put(SHM_NAME, AF4, b'x' * 253, b'253')
    big.put(SHM_NAME, AF4, b'y' * 300, b'300', exact=True)
    big.put(SHM_NAME, AF4, b'y' * 299 + b'z', b'300z', exact=True)
    seed('long-keys', big, SK_NAME | SF_INET, klen=200)

    # Empty segments, the states a reader meets.
    seed('empty', Segment(nslots=16, data_size=64))
    seed('retired', Segment(nslots=16, data_size=64, state=SHM_RETIRED))
    seed('one-slot', Segment(nslots=1, data_size=64), SK_NAME | SF_INET | S_PLAUSIBLE)

    # Every lie a slot or a record can tell, each alone, on the good segment.
    lo = g.at[b'localhost']
    base = g.data_off + lo
    home = shm_key_hash(b'localhost', SHM_NAME, AF4, g.key) & (g.nslots - 1)
    slot_at = 128 + home * 8
    tag = (shm_key_hash(b'localhost', SHM_NAME, AF4, g.key) >> 40) & 0xffffff

    def lie(name_, at, fmt, value, ctl=SK_NAME | SF_INET):
        img = bytearray(good)
        struct.pack_into(fmt, img, at, value)
        seed('lie-' + name_, img, ctl)

    lie('slot-at-end', slot_at, '<Q', (g.data_size // 8) << 24 | tag)
    lie('slot-header-cut', slot_at, '<Q', ((g.data_size - 24) // 8) << 24 | tag)
    lie('slot-far', slot_at, '<Q', ((1 << 40) - 1) << 24 | tag)
    lie('slot-mid-record', slot_at, '<Q', ((lo + 8) // 8) << 24 | tag)
    lie('rec-len-huge', base, '<I', 0xfffffff8)
    lie('rec-len-odd', base, '<I', 37)
    lie('rec-len-small', base, '<I', 8)
    lie('rec-len-zero', base, '<I', 0)
    lie('rec-len-past-end', base, '<I', g.data_size - lo + 8)
    lie('body-len-huge', base + 4, '<I', 0xffffffff)
    lie('body-len-long', base + 4, '<I', 4000)
    lie('key-len-huge', base + 20, '<H', 0xffff)
    lie('key-len-long', base + 20, '<H', 100)
    lie('flags-exact', base + 25, '<B', 0xff, SK_NAME | SF_INET | S_UPPER)
    # Header fields: each wrong alone.
    lie('magic', 0, '<Q', SHM_MAGIC ^ 1)
    lie('version', 8, '<I', 2)
    lie('header-size', 12, '<I', 64)
    lie('file-size', 16, '<Q', len(good) + 8)
    lie('nslots-odd', 32, '<I', 12)
    lie('nslots-big', 32, '<I', 1 << 31, SK_NAME | SF_INET | S_PLAUSIBLE)
    lie('nslots-zero', 32, '<I', 0)
    lie('slots-off-odd', 40, '<Q', 132)
    lie('slots-off-wrap', 40, '<Q', M64 - 7)
    lie('data-off-over-slots', 48, '<Q', 128 + 8)
    lie('data-off-past', 48, '<Q', len(good) + 8)
    lie('data-size-big', 56, '<Q', g.data_size + 8)
    lie('data-size-huge', 56, '<Q', M64)
    # Cut short: the header no longer fits the mapping (or, with the
    # plausible bit, is fitted to what is left).
    seed('cut-half', good[:len(good) // 2])
    seed('cut-half-plausible', good[:len(good) // 2], SK_NAME | SF_INET | S_PLAUSIBLE)
    seed('cut-header', good[:100])
    seed('tiny', b'\0' * 8, S_PLAUSIBLE)
    # A view made of a fitted header, then the input's own header put back
    # over it (a writer changing it after the reader checked it).
    seed('view-good', good, SK_NAME | SF_INET | S_VIEW)
    for name_, at, fmt, value in (('data-size-huge', 56, '<Q', M64),
                                  ('data-off-past', 48, '<Q', len(good) + 8),
                                  ('nslots-big', 32, '<I', 1 << 30),
                                  ('magic', 0, '<Q', 0)):
        img = bytearray(good)
        struct.pack_into(fmt, img, at, value)
        seed('view-then-' + name_, img, SK_NAME | SF_INET | S_PLAUSIBLE | S_VIEW)
    return s


# ---- nsswitch.conf (fuzz-nsswitch) --------------------------------------

def nsswitch_seeds():
    """Lines of the distributions' files, every status and action, and what
    glibc rejects or reads oddly (no comment syntax, the last line wins)."""
    return {
        'debian': b'hosts: files dns\n',
        'desktop': b'hosts:          namecache [!UNAVAIL=return] files '
                   b'mdns4_minimal [NOTFOUND=return] dns myhostname\n',
        'fedora': b'passwd: files systemd\nhosts: files myhostname resolve '
                  b'[!UNAVAIL=return] dns\n',
        'arch': b'hosts: mymachines resolve [!UNAVAIL=return] files myhostname dns\n',
        'actions': b'hosts: files [NOTFOUND=return SUCCESS=continue TRYAGAIN=merge] sss\n',
        'reject': b'group: files [x=y]\nhosts: files\n',
        'odd': b'# comment\n  hosts::files# dns\nhosts files [ !unavail = RETURN ]\n',
        'many': b'hosts: ' + b' '.join(b'm%d' % i for i in range(17)) + b'\n',
    }


def nscdent_seeds():
    """fuzz-nscdent: a selector byte, then a key or a group reply."""
    def gr(name, pw, gid, members, found=1):
        lens = b''.join(struct.pack('=I', len(m) + 1) for m in members)
        return (struct.pack('=iiiiIi', 2, found, len(name) + 1, len(pw) + 1, gid,
                            len(members)) + lens + name + b'\0' + pw + b'\0' +
                b''.join(m + b'\0' for m in members))
    return {
        'name': b'\0alice\0',
        'name-nonul': b'\0alice',
        'name-inner-nul': b'\0al\0ice\0',
        'uid': b'\x013000000000\0',
        'uid-big': b'\x014294967296\0',
        'uid-neg': b'\x01-1\0',
        'serv-name': b'\x02http/tcp\0',
        'serv-anyproto': b'\x02http/\0',
        'serv-slash-first': b'\x02/tcp\0',
        'serv-port': b'\x0320480/tcp\0',
        'serv-port-bad': b'\x03http/tcp\0',
        'innetgr': b'\x04trusted\0\x01hostA\0\0\x01dom\0',
        'innetgr-none': b'\x04trusted\0\0\0\0',
        'innetgr-short': b'\x04trusted\0\x01host',
        'group': b'\x05' + gr(b'devs', b'x', 6001, [b'alice', b'bob']),
        'group-empty': b'\x05' + gr(b'none', b'x', 7, []),
        'group-biggid': b'\x05' + gr(b'big', b'*', 3000000001, [b'a.b-c']),
        'group-badlen': b'\x05' + gr(b'devs', b'x', 6001, [b'alice'])[:-3],
        'group-notfound': b'\x05' + struct.pack('=iiiiIi', 2, 0, 0, 0, 0xffffffff, 0),
    }


# ---- the NSS module's layouts (fuzz-nss) ----------------------------------
#
# Byte 0: the layout (0 getaddrinfo's tuples, 1 the same with storage for
# the first, 2 a hostent for AF_INET, 3 for AF_INET6); bytes 1-2 the
# buffer's length; byte 3 the number of changes made to the body after it
# was decoded, then each as (u16 offset, u8 xor); then the body.

AF6_SCOPED = 7
N_GAIH, N_GAIH_FIRST, N_HOST4, N_HOST6 = range(4)


def nss_input(layout, buflen, body, changes=()):
    b = bytes([layout]) + struct.pack('>H', buflen) + bytes([len(changes)])
    for off, x in changes:
        b += struct.pack('>HB', off, x)
    return b + body


def nss_seeds():
    s = {}
    v4 = bytes([192, 0, 2, 1])
    v6 = bytes.fromhex('20010db8000000000000000000000001')
    one = answer(300, 3, b'www.bench.example', [(AF4, v4)], [])
    both = answer(60, 2, b'web.example', [(AF4, v4), (AF6, v6),
                                           (AF6_SCOPED, v6 + struct.pack('>I', 3))],
                  [b'www.example', b'w'])
    many = answer(1, 1, b'h', [(AF4, bytes([10, 0, 0, i])) for i in range(20)] +
                  [(AF6, v6)] * 5, [b'a' * 40] * 6)
    none = answer(0, 2, b'x.example', [], [b'alias'])
    for layout, tag in ((N_GAIH, 'gaih'), (N_GAIH_FIRST, 'gaih-first'),
                        (N_HOST4, 'host4'), (N_HOST6, 'host6')):
        s[tag + '-one'] = nss_input(layout, 1024, one)
        s[tag + '-both'] = nss_input(layout, 1024, both)
        s[tag + '-many'] = nss_input(layout, 4095, many)
        s[tag + '-none'] = nss_input(layout, 64, none)
        # Short buffers: ERANGE, and the last byte that is enough.
        s[tag + '-short'] = nss_input(layout, 40, both)
        s[tag + '-tiny'] = nss_input(layout, 0, one)
        # After decoding: the first family made INET6 (16 bytes, not 4),
        # then scoped (20), then unknown; an alias made longer; an address
        # made a family of the other kind, so the counts disagree.
        first_fam = 10 + 2 + len(b'web.example')
        alias_len = first_fam + 5 + 17 + 21
        s[tag + '-grown-family'] = nss_input(layout, 1024, both, [(first_fam, AF4 ^ AF6)])
        s[tag + '-scoped-family'] = nss_input(layout, 1024, both,
                                              [(first_fam, AF4 ^ AF6_SCOPED)])
        s[tag + '-bad-family'] = nss_input(layout, 1024, both, [(first_fam, AF4 ^ 9)])
        s[tag + '-v6-to-v4'] = nss_input(layout, 1024, both,
                                         [(first_fam + 5, AF6 ^ AF4)])
        s[tag + '-alias-grown'] = nss_input(layout, 1024, both, [(alias_len + 1, 0x7f)])
        s[tag + '-alias-huge'] = nss_input(layout, 4095, many,
                                           [(10 + 2 + 1 + 20 * 5 + 5 * 17, 0xff)])
    return s


def write_corpus(root, target, seeds):
    d = os.path.join(root, target)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if f.startswith('seed-'):
            os.unlink(os.path.join(d, f))
    for name_, data in sorted(seeds.items()):
        with open(os.path.join(d, 'seed-' + name_), 'wb') as f:
            f.write(data)
    return len(seeds)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, 'corpus')
    for target, seeds in (('dnsmsg', dns_seeds()), ('dnswire', dnswire_seeds()),
                          ('proto', proto_seeds()),
                          ('hosts', hosts_seeds()), ('config', config_seeds()),
                          ('dnsanswer', answer_seeds()), ('shm', shm_seeds()),
                          ('client', client_seeds()), ('nsswitch', nsswitch_seeds()),
                          ('nscdent', nscdent_seeds()), ('nss', nss_seeds())):
        n = write_corpus(root, target, seeds)
        print('%s: %d seeds' % (target, n))


if __name__ == '__main__':
    main()
