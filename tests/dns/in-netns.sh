#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/dns/in-netns.sh - run a command where glibc's DNS reaches the test zones.
#
#   tests/dns/in-netns.sh [--search DOMAIN] [--options "OPTS"] \
#       [--zone ORIGIN=ZONEFILE]... [--no-nsd] [--no-addresses] [--no-rrl] -- COMMAND [ARG...]
#
# Needs root.  The command runs inside `unshare --mount --net` (a private
# network namespace holding only `lo`, and a private mount namespace), where:
#   - nsd serves dnsenv.ZONES (plus any --zone) on 127.0.0.1:53 and [::1]:53;
#   - /etc/resolv.conf is a bind mount, private to that namespace, of
#       nameserver 127.0.0.1
#       search test.example             (--search; "" for none)
#       options ndots:1 timeout:1 attempts:2   (--options; "" for none)
#   - lo is up with 127.0.0.1, ::1, 203.0.113.1/32 and 2001:db8:ffff::1/128
#     (the last two so that glibc's AI_ADDRCONFIG sees an address of each
#     family; --no-addresses leaves them out); no other interface, no route;
#   - the environment has DNSENV_NETNS=1, DNSENV_NSD_PORT=53 and
#     DNSENV_DIR=<temporary folder>.
# The real /etc/resolv.conf is never written, and nothing there can reach a
# non-loopback address: there is no other interface.  Everything is undone
# when the command ends; its exit status is this script's.  Exit 77 (skip)
# when not root or when unshare is unavailable.  dnsenv.py enters the
# namespaces itself, as every test does (tests/privns.py).
here=$(cd "$(dirname "$0")" && pwd)
exec /usr/bin/python3 "$here/dnsenv.py" netns-inner "$@"
