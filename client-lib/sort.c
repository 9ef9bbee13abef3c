/* SPDX-License-Identifier: MIT */
/* client-lib/sort.c - getaddrinfo's order: RFC 6724 as glibc sorts, its source probes cached; AI_ADDRCONFIG. */

/*
 * The daemon answers in the order the hosts line's sources gave; glibc's
 * getaddrinfo then sorts by destination address selection (RFC 3484's
 * rules, RFC 6724's numbering), and that depends on the caller's own
 * source addresses, so it is done here, in the caller.  The rules follow
 * glibc 2.36 (Debian 12), with its tables or /etc/gai.conf's (gaiconf.c),
 * quirks included, so that a sorted result is in exactly getaddrinfo's order:
 *
 *   - the source of each destination is what a UDP connect() to it
 *     picks (rule 1: none, unusable), with its scope id, as glibc
 *     connects to the sockaddr_in6 it returns (a link-local address
 *     without one cannot be connected to); its flags (deprecated, home),
 *     prefix length and interface come from an RTM_GETADDR dump, which,
 *     as glibc's __check_pf, is kept only when the host has an IPv6
 *     address other than ::1;
 *   - rule 9's IPv4 netmask for a prefix length of 0 is all ones (glibc
 *     shifts a 32-bit value by 32; x86-64 and arm64 shift by 0);
 *   - the merge sort is glibc's msort: the same halves, the same ties.
 *
 * What glibc redoes on every call is cached: the dump, and each
 * destination's source.  The cache is keyed on the daemon's shared
 * segment (its generation and netlink counter, bumped on every address or
 * route change); with no live segment there is no key, and every sort
 * probes anew, as glibc does.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "array.h"
#include "client.h"
#include "gaiconf.h"
#include "hash.h"
#include "proto.h"
#include "shared.h"
#include "sort.h"

/* Guards the cache below and gaiconf's tables. */
static pthread_mutex_t	lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t	once = PTHREAD_ONCE_INIT;

/* A fork while another thread sorted: the child's lock is free. */
static void
atfork_child(void)
{
	pthread_mutex_init(&lock, NULL);
}

static void
init_once(void)
{
	pthread_atfork(NULL, NULL, atfork_child);
}

/* --- the interfaces: RTM_GETADDR, as __check_pf --------------------------- */

struct ifa {
	uint8_t		addr[16];	/* IPv4 as v4-mapped */
	uint8_t		flags;		/* NC_SRC_* */
	uint8_t		prefixlen;
	uint32_t	index;
};

#define NC_SRC_DEPRECATED	1
#define NC_SRC_HOME		2

struct ifinfo {
	bool		 seen4, seen6;
	struct ifa	*v;		/* NULL unless seen6, as glibc */
	size_t		 n;
};

static int
ifa_cmp(const void *a, const void *b)
{
	return memcmp(((const struct ifa *)a)->addr, ((const struct ifa *)b)->addr, 16);
}

/* 0, or -1 when the dump failed (glibc then assumes both families). */
static int
ifinfo_dump(struct ifinfo *out)
{
	struct {
		struct nlmsghdr	nlh;
		struct rtgenmsg	g;
		char		pad[3];
	} req = {
		.nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETADDR,
		    .nlmsg_flags = NLM_F_ROOT | NLM_F_MATCH | NLM_F_REQUEST, .nlmsg_seq = 1 },
		.g = { .rtgen_family = AF_UNSPEC },
	};
	struct sockaddr_nl	 nl = { .nl_family = AF_NETLINK };
	socklen_t		 nl_len = sizeof(nl);
	struct ifinfo		 r = { 0 };
	size_t			 cap = 0;
	uint32_t		 pid;
	char			 buf[8192];
	bool			 done = false;
	int			 fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&nl, sizeof(nl)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&nl, &nl_len) < 0)
		goto fail;
	pid = nl.nl_pid;
	memset(&nl, 0, sizeof(nl));
	nl.nl_family = AF_NETLINK;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&nl, sizeof(nl)) < 0)
		goto fail;
	while (!done) {
		struct iovec	 iov = { buf, sizeof(buf) };
		struct msghdr	 msg = { .msg_name = &nl, .msg_namelen = sizeof(nl),
		    .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t		 len = recvmsg(fd, &msg, 0);
		struct nlmsghdr	*h;

		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0 || (msg.msg_flags & MSG_TRUNC))
			goto fail;
		for (h = (struct nlmsghdr *)(void *)buf; NLMSG_OK(h, (size_t)len);
		    h = NLMSG_NEXT(h, len)) {
			struct ifaddrmsg	*ifm;
			struct rtattr		*rta;
			const void		*local = NULL, *address = NULL;
			size_t			 alen;

			if (nl.nl_pid != 0 || h->nlmsg_pid != pid || h->nlmsg_seq != 1)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR)
				goto fail;
			if (h->nlmsg_type != RTM_NEWADDR ||
			    h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifm)))
				continue;
			ifm = NLMSG_DATA(h);
			if (ifm->ifa_family != AF_INET && ifm->ifa_family != AF_INET6)
				continue;
			alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifm));
			for (rta = IFA_RTA(ifm); RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen)) {
				size_t need = ifm->ifa_family == AF_INET ? 4 : 16;

				if (RTA_PAYLOAD(rta) < need)
					continue;
				if (rta->rta_type == IFA_LOCAL)
					local = RTA_DATA(rta);
				else if (rta->rta_type == IFA_ADDRESS) {
					address = RTA_DATA(rta);
					break;
				}
			}
			if (address == NULL)
				address = local;
			if (address == NULL)
				continue;	/* glibc would read garbage: no such message */
			if (array_grow((void **)&r.v, &cap, r.n, sizeof(*r.v)) < 0)
				goto fail;
			if (ifm->ifa_family == AF_INET) {
				static const uint8_t lo[4] = { 127, 0, 0, 1 };

				if (memcmp(address, lo, 4) != 0)
					r.seen4 = true;
				memset(r.v[r.n].addr, 0, 10);
				r.v[r.n].addr[10] = r.v[r.n].addr[11] = 0xff;
				memcpy(r.v[r.n].addr + 12, address, 4);
			} else {
				if (!IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)address))
					r.seen6 = true;
				memcpy(r.v[r.n].addr, address, 16);
			}
			r.v[r.n].flags = (ifm->ifa_flags & (IFA_F_DEPRECATED | IFA_F_OPTIMISTIC) ?
			    NC_SRC_DEPRECATED : 0) | (ifm->ifa_flags & IFA_F_HOMEADDRESS ?
			    NC_SRC_HOME : 0);
			r.v[r.n].prefixlen = ifm->ifa_prefixlen;
			r.v[r.n].index = ifm->ifa_index;
			r.n++;
		}
	}
	close(fd);
	if (!r.seen6) {
		free(r.v);
		r.v = NULL;
		r.n = 0;
	} else
		qsort(r.v, r.n, sizeof(*r.v), ifa_cmp);
	*out = r;
	return 0;
fail:
	close(fd);
	free(r.v);
	return -1;
}

/* --- the cache ----------------------------------------------------------- */

struct src {
	uint8_t		dst[16];
	uint8_t		dst_family;	/* 0: empty */
	uint32_t	dst_scope_id;	/* IPv6: the interface; 0: none */
	bool		got;		/* a source: the destination is reachable */
	struct namecache_address src_addr;
	uint8_t		flags;
	uint8_t		prefixlen;
	uint32_t	index;		/* 0xffffffff: not known */
	int8_t		native;		/* -1: not asked yet */
	/* what the rules look up, once per destination (a reload of the
	   tables drops the cache) */
	int		dst_scope, dst_label, dst_prec, src_scope, src_label;
};

#define NSRC	128

static struct {
	bool		have_key;	/* the cache is valid for key */
	uint64_t	key[2];
	bool		have_if;
	struct ifinfo	ifs;
	struct src	srcs[NSRC];
	uint64_t	probes;		/* connects made (tests) */
	uint64_t	dumps;
} cache;

static void
cache_drop(void)
{
	free(cache.ifs.v);
	cache.ifs = (struct ifinfo){ 0 };
	cache.have_if = false;
	for (size_t i = 0; i < NSRC; i++)
		cache.srcs[i].dst_family = 0;
}

/*
 * Keeps the cache if the daemon's segment says nothing changed.  Returns
 * whether entries may be kept after this sort.  Under lock.
 */
static bool
cache_check(void)
{
	uint64_t key[2];

	if (!ncc_shared_netstamp(ncc_socket_path(), key)) {
		if (cache.have_key)
			cache_drop();
		cache.have_key = false;
		return false;
	}
	if (!cache.have_key || key[0] != cache.key[0] || key[1] != cache.key[1]) {
		cache_drop();
		cache.key[0] = key[0];
		cache.key[1] = key[1];
		cache.have_key = true;
	}
	return true;
}

static const struct ifinfo *
ifinfo_get(bool keep)
{
	if (cache.have_if)
		return &cache.ifs;
	free(cache.ifs.v);
	cache.ifs = (struct ifinfo){ 0 };
	cache.dumps++;
	if (ifinfo_dump(&cache.ifs) < 0) {
		/* as glibc: both families, nothing known of the addresses */
		cache.ifs = (struct ifinfo){ .seen4 = true, .seen6 = true };
		keep = false;	/* a failure is not kept */
	}
	cache.have_if = keep;
	return &cache.ifs;
}

static size_t
src_slot(int family, const uint8_t *addr, uint32_t scope_id)
{
	/*
	 * FNV-1a from the basis this slot has always used, a digit short of
	 * HASH_FNV1A_INIT's: any basis works, and with this one the 23
	 * destinations of tests/sort's pool take 23 slots (direct-mapped: a
	 * collision probes again, which that test counts).  A scope id of 0
	 * leaves the basis as it was.
	 */
	uint64_t h = hash_fnv1a(1469598103934665603ULL ^ (uint64_t)family ^
	    (uint64_t)scope_id << 8, addr, family == AF_INET ? 4 : 16);

	return (size_t)(h % NSRC);
}

/* Whether s holds the source of this destination. */
static bool
src_is(const struct src *s, int family, const uint8_t *addr, uint32_t scope_id)
{
	return s->dst_family == family && s->dst_scope_id == scope_id &&
	    memcmp(s->dst, addr, family == AF_INET ? 4 : 16) == 0;
}

/* What a UDP connect() to the destination chooses, and what the dump says of it. */
static void
probe(struct src *s, int family, const uint8_t *dst, uint32_t scope_id,
    const struct ifinfo *ifs)
{
	struct sockaddr_storage	ss = { 0 };
	socklen_t		sl = family == AF_INET ? sizeof(struct sockaddr_in) :
	    sizeof(struct sockaddr_in6), gl = sizeof(ss);
	int			fd;

	memset(s, 0, sizeof(*s));
	s->dst_family = (uint8_t)family;
	memcpy(s->dst, dst, family == AF_INET ? 4 : 16);
	s->dst_scope_id = scope_id;
	s->index = 0xffffffffu;
	s->native = -1;
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, dst, 4);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, dst, 16);
		sin6->sin6_scope_id = scope_id;
	}
	{
		struct namecache_address d = { .family = family };

		memcpy(d.addr.bytes, dst, family == AF_INET ? 4 : 16);
		s->dst_scope = gaiconf_scope(&d);
		s->dst_label = gaiconf_label(&d);
		s->dst_prec = gaiconf_precedence(&d);
	}
	cache.probes++;
	if ((fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_IP)) < 0)
		return;
	if (connect(fd, (struct sockaddr *)&ss, sl) == 0 &&
	    getsockname(fd, (struct sockaddr *)&ss, &gl) == 0 && ss.ss_family == family) {
		struct ifa key = { 0 }, *found;

		s->got = true;
		s->src_addr.family = family;
		if (family == AF_INET) {
			memcpy(s->src_addr.addr.bytes, &((struct sockaddr_in *)&ss)->sin_addr, 4);
			key.addr[10] = key.addr[11] = 0xff;
			/* glibc: any 127/8 source is looked up as 127.0.0.1 */
			if (s->src_addr.addr.bytes[0] == 127) {
				key.addr[12] = 127;
				key.addr[15] = 1;
			} else
				memcpy(key.addr + 12, s->src_addr.addr.bytes, 4);
		} else {
			memcpy(s->src_addr.addr.bytes, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
			memcpy(key.addr, s->src_addr.addr.bytes, 16);
		}
		if (ifs->v && (found = bsearch(&key, ifs->v, ifs->n, sizeof(*ifs->v),
		    ifa_cmp)) != NULL) {
			s->flags = found->flags;
			s->prefixlen = found->prefixlen;
			s->index = found->index;
		}
		s->src_scope = gaiconf_scope(&s->src_addr);
		s->src_label = gaiconf_label(&s->src_addr);
	}
	close(fd);
}

/* Rule 7: not a tunnel (glibc's __check_native). */
static int
native_of(uint32_t index)
{
	struct ifreq	ifr = { 0 };
	int		fd, r = 0;

	if ((fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	ifr.ifr_ifindex = (int)index;
	if (ioctl(fd, SIOCGIFNAME, &ifr) == 0 && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
		r = ifr.ifr_hwaddr.sa_family != ARPHRD_TUNNEL6 &&
		    ifr.ifr_hwaddr.sa_family != ARPHRD_TUNNEL &&
		    ifr.ifr_hwaddr.sa_family != ARPHRD_SIT;
	close(fd);
	return r;
}

/* --- the comparison: glibc's rfc3484_sort ------------------------------- */

/* glibc's fls: the leading zero bits of a 32-bit value (32 for 0). */
static int
lead0(uint32_t v)
{
	return v ? __builtin_clz(v) : 32;
}

struct item {
	const struct namecache_address *dst;
	uint32_t		  scope_id;
	struct src		 *s;
	size_t			  idx;
};

static int
compare(const struct item *i1, const struct item *i2)
{
	struct src	*a1 = i1->s, *a2 = i2->s;
	int		 d1, d2;

	/* 1: avoid unusable destinations */
	if (a1->got != a2->got)
		return a1->got ? -1 : 1;
	d1 = a1->dst_scope;
	d2 = a2->dst_scope;
	if (a1->got) {
		int s1 = a1->src_scope, s2 = a2->src_scope;
		int l1 = a1->dst_label, ls1 = a1->src_label;
		int l2 = a2->dst_label, ls2 = a2->src_label;

		/* 2: prefer matching scope */
		if ((d1 == s1) != (d2 == s2))
			return d1 == s1 ? -1 : 1;
		/* 3: avoid deprecated addresses */
		if ((a1->flags & NC_SRC_DEPRECATED) != (a2->flags & NC_SRC_DEPRECATED))
			return a1->flags & NC_SRC_DEPRECATED ? 1 : -1;
		/* 4: prefer home addresses */
		if ((a1->flags & NC_SRC_HOME) != (a2->flags & NC_SRC_HOME))
			return a1->flags & NC_SRC_HOME ? -1 : 1;
		/* 5: prefer matching label */
		if ((l1 == ls1) != (l2 == ls2))
			return l1 == ls1 ? -1 : 1;
	}
	/* 6: prefer higher precedence */
	if (a1->dst_prec != a2->dst_prec)
		return a1->dst_prec > a2->dst_prec ? -1 : 1;
	/* 7: prefer native transport (when the interfaces differ) */
	if (a1->got && a1->index != a2->index) {
		if (a1->native < 0)
			a1->native = (int8_t)(a1->index == 0xffffffffu ? 0 : native_of(a1->index));
		if (a2->native < 0)
			a2->native = (int8_t)(a2->index == 0xffffffffu ? 0 : native_of(a2->index));
		if (a1->native != a2->native)
			return a1->native ? -1 : 1;
	}
	/* 8: prefer smaller scope */
	if (d1 != d2)
		return d1 < d2 ? -1 : 1;
	/* 9: longest matching prefix, within a family */
	if (a1->got && i1->dst->family == i2->dst->family) {
		int b1 = 0, b2 = 0;

		if (i1->dst->family == AF_INET) {
			uint32_t dst1, src1, dst2, src2, m1, m2;

			memcpy(&dst1, i1->dst->addr.bytes, 4);
			memcpy(&src1, a1->src_addr.addr.bytes, 4);
			memcpy(&dst2, i2->dst->addr.bytes, 4);
			memcpy(&src2, a2->src_addr.addr.bytes, 4);
			dst1 = ntohl(dst1), src1 = ntohl(src1);
			dst2 = ntohl(dst2), src2 = ntohl(src2);
			m1 = 0xffffffffu << ((32 - a1->prefixlen) & 31);
			m2 = 0xffffffffu << ((32 - a2->prefixlen) & 31);
			if ((src1 & m1) == (dst1 & m1))
				b1 = lead0(dst1 ^ src1);
			if ((src2 & m2) == (dst2 & m2))
				b2 = lead0(dst2 ^ src2);
		} else if (i1->dst->family == AF_INET6) {
			uint32_t w[4][4];
			int i;

			memcpy(w[0], i1->dst->addr.bytes, 16);
			memcpy(w[1], a1->src_addr.addr.bytes, 16);
			memcpy(w[2], i2->dst->addr.bytes, 16);
			memcpy(w[3], a2->src_addr.addr.bytes, 16);
			for (i = 0; i < 4; i++)
				if (w[0][i] != w[1][i] || w[2][i] != w[3][i])
					break;
			if (i < 4) {
				b1 = lead0(ntohl(w[0][i] ^ w[1][i]));
				b2 = lead0(ntohl(w[2][i] ^ w[3][i]));
			}
		}
		if (b1 != b2)
			return b1 > b2 ? -1 : 1;
	}
	/* 10: the order the sources gave */
	return i1->idx < i2->idx ? -1 : 1;
}

/* glibc's msort: halves n/2 and n - n/2, ties to the left. */
static void
msort(struct item *b, size_t n, struct item *t)
{
	size_t		 n1 = n / 2, n2 = n - n1, k = 0;
	struct item	*b1 = b, *b2 = b + n1;

	if (n <= 1)
		return;
	msort(b1, n1, t);
	msort(b2, n2, t);
	while (n1 > 0 && n2 > 0) {
		if (compare(b1, b2) <= 0) {
			t[k++] = *b1++;
			n1--;
		} else {
			t[k++] = *b2++;
			n2--;
		}
	}
	while (n1 > 0) {
		t[k++] = *b1++;
		n1--;
	}
	memcpy(b, t, k * sizeof(*t));
}

int
nc_sort(struct namecache_address *v, uint32_t *scope_ids, size_t n)
{
	struct item		 stack_items[16], *items = stack_items;
	struct src		 stack_srcs[16], *srcs = stack_srcs;
	struct namecache_address	 stack_copy[8], *copy = stack_copy;
	const struct ifinfo	*ifs;
	bool			 keep;
	int			 saved = errno;

	if (n < 2)
		return 0;
	if (n > 8) {
		items = malloc(2 * n * sizeof(*items));
		srcs = malloc(n * sizeof(*srcs));
		copy = malloc(n * sizeof(*copy));
		if (items == NULL || srcs == NULL || copy == NULL) {
			free(items);
			free(srcs);
			free(copy);
			return -ENOMEM;
		}
	}
	pthread_once(&once, init_once);
	pthread_mutex_lock(&lock);
	/* the cached labels, precedences and scopes were the old tables' */
	if (gaiconf_refresh())
		cache_drop();
	keep = cache_check();
	ifs = ifinfo_get(keep);
	for (size_t i = 0; i < n; i++) {
		/* an IPv4 address has no scope: glibc's sockaddr_in has none */
		uint32_t	 sid = scope_ids && v[i].family == AF_INET6 ? scope_ids[i] : 0;
		struct src	*s = &cache.srcs[src_slot(v[i].family, v[i].addr.bytes, sid)];

		copy[i] = v[i];
		if (!keep || !src_is(s, v[i].family, v[i].addr.bytes, sid)) {
			if (keep)
				probe(s, v[i].family, v[i].addr.bytes, sid, ifs);
			else
				probe(s = &srcs[i], v[i].family, v[i].addr.bytes, sid, ifs);
		}
		/* a copy: two destinations may share a slot */
		srcs[i] = *s;
		items[i] = (struct item){ &copy[i], sid, &srcs[i], i };
	}
	msort(items, n, items + n);
	/* what rule 7 learnt is worth keeping */
	if (keep)
		for (size_t i = 0; i < n; i++) {
			struct src *s = &cache.srcs[src_slot(copy[i].family, copy[i].addr.bytes,
			    srcs[i].dst_scope_id)];

			if (srcs[i].native >= 0 && src_is(s, copy[i].family, copy[i].addr.bytes,
			    srcs[i].dst_scope_id))
				s->native = srcs[i].native;
		}
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < n; i++) {
		v[i] = *items[i].dst;
		if (scope_ids)
			scope_ids[i] = items[i].scope_id;
	}
	if (items != stack_items) {
		free(items);
		free(srcs);
		free(copy);
	}
	errno = saved;
	return 0;
}

int
nc_sort_result(struct namecache_result *res)
{
	return nc_sort(res->addresses, res->scope_ids, res->naddresses);
}

int
nc_addrconfig(bool *ret_v4, bool *ret_v6)
{
	const struct ifinfo	*ifs;
	int			 saved = errno;

	pthread_once(&once, init_once);
	pthread_mutex_lock(&lock);
	ifs = ifinfo_get(cache_check());
	*ret_v4 = ifs->seen4;
	*ret_v6 = ifs->seen6;
	pthread_mutex_unlock(&lock);
	errno = saved;
	return 0;
}

int
nc_addrconfig_family(int pf)
{
	bool v4, v6;

	nc_addrconfig(&v4, &v6);
	if (pf == PROTO_AF_UNSPEC && v4 != v6)
		return v4 ? PROTO_AF_INET : PROTO_AF_INET6;
	if ((pf == PROTO_AF_INET && !v4) || (pf == PROTO_AF_INET6 && !v6))
		return NAMECACHE_ERR_NOTFOUND;
	return pf;
}

void
nc_sort_counts(uint64_t *ret_probes, uint64_t *ret_dumps)
{
	pthread_mutex_lock(&lock);
	*ret_probes = cache.probes;
	*ret_dumps = cache.dumps;
	pthread_mutex_unlock(&lock);
}
