/* SPDX-License-Identifier: MIT */
/* proto/nscd.c - glibc's nscd formats: the request header, replies from namecache answers, the hash. */

/* Pure: no I/O, no allocation. */
#include <errno.h>
#include <stdbool.h>
#include <netdb.h>
#include <string.h>
#include <sys/socket.h>

#include "nscd.h"

uint32_t
nscd_hash(const void *key, size_t len)
{
	const unsigned char	*p = key;
	uint32_t		 h = 0;

	while (len-- > 0)
		h = *p++ + 65599u * h;
	return h;
}

int
nscd_req_decode(const void *buf, size_t len, struct nscd_req_hdr *ret_hdr)
{
	struct nscd_req_hdr	 h;
	struct rd		 rd;
	const uint8_t		*p;

	/* Host order, as glibc writes the struct: copied, not read big-endian. */
	rd_init(&rd, buf, len);
	if ((p = rd_bytes(&rd, sizeof(h))) == NULL)
		return -EAGAIN;
	memcpy(&h, p, sizeof(h));
	if (h.version != NSCD_VERSION)
		return -EPROTONOSUPPORT;
	if (h.type < 0)
		return -EBADMSG;
	if (h.key_len < 0 || h.key_len > NSCD_KEY_MAX)
		return -EMSGSIZE;
	*ret_hdr = h;
	return 0;
}

size_t
nscd_data_offset(uint32_t module)
{
	size_t array = (size_t)module * sizeof(uint32_t);

	return sizeof(struct nscd_db_head) +
	    ((array + NSCD_ALIGN - 1) & ~(size_t)(NSCD_ALIGN - 1));
}

size_t
nscd_reply_hdr_size(int32_t type)
{
	switch (type) {
	case NSCD_GETPWBYNAME:
	case NSCD_GETPWBYUID:
		return 9 * sizeof(int32_t);	/* pw_response_header */
	case NSCD_GETGRBYNAME:
	case NSCD_GETGRBYGID:
		return 6 * sizeof(int32_t);	/* gr_response_header */
	case NSCD_GETHOSTBYNAME:
	case NSCD_GETHOSTBYNAMEv6:
	case NSCD_GETHOSTBYADDR:
	case NSCD_GETHOSTBYADDRv6:
		return sizeof(struct nscd_hst_reply);
	case NSCD_GETAI:
		return sizeof(struct nscd_ai_reply);
	case NSCD_INITGROUPS:
		return 3 * sizeof(int32_t);	/* initgr_response_header */
	case NSCD_GETSERVBYNAME:
	case NSCD_GETSERVBYPORT:
		return 6 * sizeof(int32_t);	/* serv_response_header */
	case NSCD_GETNETGRENT:
		return 4 * sizeof(int32_t);	/* netgroup_response_header */
	case NSCD_INNETGR:
		return 3 * sizeof(int32_t);	/* innetgroup_response_header */
	default:
		return 0;
	}
}

size_t
nscd_refusal(int32_t type, void *out)
{
	size_t	n = nscd_reply_hdr_size(type);
	int32_t	v[9] = { NSCD_VERSION, -1 };

	if (n)
		memcpy(out, v, n);
	return n;
}

int
nscd_build_negative(int32_t type, int herrno, void *out, size_t cap)
{
	if (type == NSCD_GETAI) {
		struct nscd_ai_reply r = { NSCD_VERSION, 0, 0, 0, 0, herrno };

		if (cap < sizeof(r))
			return -E2BIG;
		memcpy(out, &r, sizeof(r));
		return sizeof(r);
	} else {
		struct nscd_hst_reply r = { NSCD_VERSION, 0, 0, 0, -1, -1, 0, herrno };

		if (cap < sizeof(r))
			return -E2BIG;
		memcpy(out, &r, sizeof(r));
		return sizeof(r);
	}
}

/* Whether the answer has an address glibc's nscd format cannot carry. */
static bool
has_scoped(const struct proto_answer *a)
{
	const uint8_t	*addr;
	size_t		 cur = 0;
	uint8_t		 fam;

	while (proto_answer_next_addr(a, &cur, &fam, &addr))
		if (fam == PROTO_AF_INET6_SCOPED)
			return true;
	return false;
}

int
nscd_build_ai(const struct proto_answer *a, void *out, size_t cap)
{
	struct nscd_ai_reply	 r = { .version = NSCD_VERSION, .found = 1 };
	uint8_t			*p = out, *addrs, *fams;
	const uint8_t		*addr;
	size_t			 cur = 0, need, i = 0;
	uint8_t			 fam;

	if (has_scoped(a))
		return -ENOTSUP;
	if (a->naddr == 0)
		return nscd_build_negative(NSCD_GETAI, NO_DATA, out, cap);
	r.naddrs = a->naddr;
	r.addrslen = a->naddr4 * 4 + a->naddr6 * 16;
	r.canonlen = (int32_t)a->canon_len + 1;
	need = sizeof(r) + (size_t)r.addrslen + a->naddr + (size_t)r.canonlen;
	if (need > cap)
		return -E2BIG;
	memcpy(p, &r, sizeof(r));
	addrs = p + sizeof(r);
	fams = addrs + r.addrslen;
	while (proto_answer_next_addr(a, &cur, &fam, &addr)) {
		size_t alen = fam == PROTO_AF_INET ? 4 : 16;

		memcpy(addrs, addr, alen);
		addrs += alen;
		fams[i++] = fam == PROTO_AF_INET ? AF_INET : AF_INET6;
	}
	memcpy(fams + i, a->canon, a->canon_len);
	fams[i + a->canon_len] = '\0';
	return (int)need;
}

int
nscd_build_hst(int32_t type, const struct proto_answer *a, void *out, size_t cap)
{
	bool			 v4 = type == NSCD_GETHOSTBYNAME || type == NSCD_GETHOSTBYADDR;
	uint8_t			 want = v4 ? PROTO_AF_INET : PROTO_AF_INET6;
	size_t			 alen = v4 ? 4 : 16;
	struct nscd_hst_reply	 r = { .version = NSCD_VERSION, .found = 1 };
	uint8_t			*p = out;
	const uint8_t		*addr;
	const char		*s;
	size_t			 cur = 0, need, slen, off;
	uint32_t		 l;
	uint8_t			 fam;

	if (has_scoped(a))
		return -ENOTSUP;
	r.h_addr_list_cnt = v4 ? a->naddr4 : a->naddr6;
	if (r.h_addr_list_cnt == 0) {
		/*
		 * A v4-mapped address's name comes as an AF_INET hostent,
		 * which this request's reply cannot say: glibc asks NSS.
		 */
		if (type == NSCD_GETHOSTBYADDRv6 && a->naddr4 > 0)
			return -ENOTSUP;
		return nscd_build_negative(type, NO_DATA, out, cap);
	}
	r.h_name_len = (int32_t)a->canon_len + 1;
	r.h_aliases_cnt = a->nalias;
	r.h_addrtype = v4 ? AF_INET : AF_INET6;
	r.h_length = (int32_t)alen;
	need = sizeof(r) + (size_t)r.h_name_len + 4 * (size_t)a->nalias +
	    alen * (size_t)r.h_addr_list_cnt + (a->strings_size - (a->canon_len + 1));
	if (need > cap)
		return -E2BIG;
	memcpy(p, &r, sizeof(r));
	off = sizeof(r);
	memcpy(p + off, a->canon, a->canon_len);
	p[off + a->canon_len] = '\0';
	off += a->canon_len + 1;
	for (cur = 0; proto_answer_next_alias(a, &cur, &s, &slen); off += 4) {
		l = (uint32_t)slen + 1;
		memcpy(p + off, &l, 4);
	}
	for (cur = 0; proto_answer_next_addr(a, &cur, &fam, &addr); )
		if (fam == want) {
			memcpy(p + off, addr, alen);
			off += alen;
		}
	for (cur = 0; proto_answer_next_alias(a, &cur, &s, &slen); ) {
		memcpy(p + off, s, slen);
		p[off + slen] = '\0';
		off += slen + 1;
	}
	return (int)off;
}

int
nscd_reply_from(int32_t type, uint16_t status, const struct proto_answer *a,
    void *out, size_t cap)
{
	int n;

	switch (status) {
	case PROTO_OK:
		if (a == NULL)
			return 0;
		n = type == NSCD_GETAI ? nscd_build_ai(a, out, cap) :
		    nscd_build_hst(type, a, out, cap);
		return n > 0 ? n : 0;
	case PROTO_NOTFOUND:
		n = nscd_build_negative(type, HOST_NOT_FOUND, out, cap);
		return n > 0 ? n : 0;
	case PROTO_NODATA:
		n = nscd_build_negative(type, NO_DATA, out, cap);
		return n > 0 ? n : 0;
	case PROTO_TRYAGAIN:
	case PROTO_NOTFOUND_TRYAGAIN:
		/*
		 * Neither can be said through GETAI: glibc reads any negative
		 * GETAI reply as EAI_NONAME, where its own walk gives
		 * EAI_AGAIN (TRYAGAIN; NOTFOUND_TRYAGAIN but for AF_INET
		 * without AI_CANONNAME).  Refused, as every reply is for
		 * every map: glibc asks NSS itself, and the NSS module
		 * returns the status exactly.
		 */
		return 0;
	default:
		/*
		 * A line whose every source was unavailable ends as glibc's
		 * own walk ends: glibc asks NSS itself.
		 */
		return 0;
	}
}
