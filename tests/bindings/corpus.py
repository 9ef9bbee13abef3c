# SPDX-License-Identifier: MIT
"""tests/bindings/corpus.py - the names the bindings' differential tests ask, and their hosts file.

The DNS names are dnsenv's test zones (served by nsd inside in-netns.sh,
with dnsenv.search_zones(): search test.example diff.example); the hosts
names are HOSTS's, which the tests bind
over /etc/hosts for glibc and give namecached as its hosts file.
"""

HOSTS = """127.0.0.1 localhost
::1 localhost ip6-localhost ip6-loopback
127.0.1.1 thishost.corp.example thishost
192.0.2.5 dual.hosts.example dual
2001:db8::5 dual.hosts.example dual
192.0.2.6 v4.hosts.example
2001:db8::7 v6.hosts.example
192.0.2.8 multi.hosts.example
192.0.2.9 multi.hosts.example
2001:db8::8 multi.hosts.example
fd00::8 multi.hosts.example
203.0.113.9 Mixed.Case.Example mixalias
garbage line that is not an address
"""

NAMES = [
    # hosts: localhost (::1 and 127.0.0.1), aliases, both families, one family
    "localhost", "ip6-localhost", "thishost", "thishost.corp.example",
    "dual.hosts.example", "dual", "v4.hosts.example", "v6.hosts.example",
    "multi.hosts.example", "mixed.case.example", "MIXALIAS",
    # DNS: both families, one, a CNAME chain, many, through the search list
    "www.test.example", "www", "multi.test.example", "alias1.test.example",
    "v4only.test.example", "v6only.test.example", "ttl3600.test.example",
    "many.test.example", "host.neg.example", "www.test.example.",
    # negative: no such name, no address, a CNAME to nowhere
    "nosuch.test.example", "nodata.test.example", "dangling.test.example",
    "nosuchname",
    # the search list's two cases: a pair split across test.example and
    # diff.example (AF_UNSPEC stops at test.example with one family; the
    # other family is found in diff.example), and SERVFAIL as asked
    # (broken.example, which nsd cannot load) then NXDOMAIN: glibc's
    # EAI_NONAME for AF_INET without AI_CANONNAME, EAI_AGAIN otherwise
    "v6only", "v4only", "x.broken.example", "broken.example",
    # numeric
    "127.0.0.1", "::1", "192.0.2.77", "2001:db8::99",
]

# Names whose answer is a temporary failure (SERVFAIL, then NXDOMAIN):
# never published in the shared store (docs/design.md), so their hits come
# from the daemon's cache over the socket.
TEMPORARY = ["x.broken.example", "broken.example"]

# The root, served by nsd too, so that every name outside the test zones
# gets an authoritative NXDOMAIN, as from a recursive resolver (without it
# nsd answers REFUSED, where glibc's dns module and namecache give
# different EAI_* codes: tests/differential/dns_diff.py's dns-refused).
ROOT_ZONE_TEXT = """\
$ORIGIN .
.	3600	IN	SOA	ns1.test.example. hostmaster.test.example. 1 3600 600 86400 60
.	3600	IN	NS	ns1.test.example.
"""


def root_zone(folder):
    """(origin, path) of the root zone file, written in folder, for run_in_netns."""
    import os
    path = os.path.join(folder, "root.zone")
    with open(path, "w") as f:
        f.write(ROOT_ZONE_TEXT)
    os.chmod(path, 0o644)
    return (".", path)
