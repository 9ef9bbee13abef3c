/* SPDX-License-Identifier: MIT */
/* proto/nscdent.c - glibc's nscd replies for passwd, group, initgroups, services and netgroup. */

/* Pure: no I/O, no allocation. */
#include <errno.h>
#include <string.h>

#include "nscd.h"
#include "nscdent.h"

/* A writer that stops at cap and remembers it overflowed. */
struct wr {
	uint8_t	*p;
	size_t	 off, cap;
	bool	 full;
};

static void
put(struct wr *w, const void *b, size_t n)
{
	if (w->full || n > w->cap - w->off) {
		w->full = true;
		return;
	}
	if (n == 0)
		return;		/* b may be NULL: a user in no group */
	memcpy(w->p + w->off, b, n);
	w->off += n;
}

static void
put_u32(struct wr *w, uint32_t v)
{
	put(w, &v, sizeof(v));
}

static int
slen(const char *s, int32_t *ret)
{
	size_t n;

	if (s == NULL)
		return -EINVAL;
	n = strlen(s) + 1;
	if (n > INT32_MAX / 4)
		return -EINVAL;
	*ret = (int32_t)n;
	return 0;
}

static int
done(const struct wr *w)
{
	if (w->full)
		return -E2BIG;
	return w->off > INT32_MAX ? -E2BIG : (int)w->off;
}

int
nscd_build_pw(const struct passwd *pw, void *out, size_t cap)
{
	struct nscd_pw_reply	 r = { .version = NSCD_VERSION, .found = 1 };
	struct wr		 w = { out, 0, cap, false };

	if (slen(pw->pw_name, &r.name_len) < 0 ||
	    slen(pw->pw_passwd, &r.passwd_len) < 0 ||
	    slen(pw->pw_gecos, &r.gecos_len) < 0 ||
	    slen(pw->pw_dir, &r.dir_len) < 0 || slen(pw->pw_shell, &r.shell_len) < 0)
		return -EINVAL;
	r.uid = pw->pw_uid;
	r.gid = pw->pw_gid;
	put(&w, &r, sizeof(r));
	put(&w, pw->pw_name, (size_t)r.name_len);
	put(&w, pw->pw_passwd, (size_t)r.passwd_len);
	put(&w, pw->pw_gecos, (size_t)r.gecos_len);
	put(&w, pw->pw_dir, (size_t)r.dir_len);
	put(&w, pw->pw_shell, (size_t)r.shell_len);
	return done(&w);
}

int
nscd_build_gr(const struct group *gr, void *out, size_t cap)
{
	struct nscd_gr_reply	 r = { .version = NSCD_VERSION, .found = 1 };
	struct wr		 w = { out, 0, cap, false };
	int32_t			 n;
	size_t			 i, cnt = 0;

	if (slen(gr->gr_name, &r.name_len) < 0 ||
	    slen(gr->gr_passwd, &r.passwd_len) < 0)
		return -EINVAL;
	while (gr->gr_mem && gr->gr_mem[cnt])
		if (++cnt > NSCDDB_LIST_MAX)
			return -EINVAL;
	r.gid = gr->gr_gid;
	r.mem_cnt = (int32_t)cnt;
	put(&w, &r, sizeof(r));
	for (i = 0; i < cnt; i++) {
		if (slen(gr->gr_mem[i], &n) < 0)
			return -EINVAL;
		put_u32(&w, (uint32_t)n);
	}
	put(&w, gr->gr_name, (size_t)r.name_len);
	put(&w, gr->gr_passwd, (size_t)r.passwd_len);
	for (i = 0; i < cnt; i++)
		put(&w, gr->gr_mem[i], strlen(gr->gr_mem[i]) + 1);
	return done(&w);
}

int
nscd_build_serv(const struct servent *s, void *out, size_t cap)
{
	struct nscd_serv_reply	 r = { .version = NSCD_VERSION, .found = 1 };
	struct wr		 w = { out, 0, cap, false };
	int32_t			 n;
	size_t			 i, cnt = 0;

	if (slen(s->s_name, &r.name_len) < 0 || slen(s->s_proto, &r.proto_len) < 0)
		return -EINVAL;
	while (s->s_aliases && s->s_aliases[cnt])
		if (++cnt > NSCDDB_LIST_MAX)
			return -EINVAL;
	r.aliases_cnt = (int32_t)cnt;
	r.port = s->s_port;
	put(&w, &r, sizeof(r));
	put(&w, s->s_name, (size_t)r.name_len);
	put(&w, s->s_proto, (size_t)r.proto_len);
	for (i = 0; i < cnt; i++) {
		if (slen(s->s_aliases[i], &n) < 0)
			return -EINVAL;
		put_u32(&w, (uint32_t)n);
	}
	for (i = 0; i < cnt; i++)
		put(&w, s->s_aliases[i], strlen(s->s_aliases[i]) + 1);
	return done(&w);
}

int
nscd_build_initgr(const uint32_t *gids, size_t n, void *out, size_t cap)
{
	struct nscd_initgr_reply r = { NSCD_VERSION, 1, 0 };
	struct wr		 w = { out, 0, cap, false };

	if (n > NSCDDB_LIST_MAX)
		return -EINVAL;
	r.ngrps = (int32_t)n;
	put(&w, &r, sizeof(r));
	put(&w, gids, n * sizeof(*gids));
	return done(&w);
}

int
nscd_build_innetgr(bool in, void *out, size_t cap)
{
	struct nscd_innetgr_reply r = { NSCD_VERSION, 1, in ? 1 : 0 };
	struct wr		  w = { out, 0, cap, false };

	put(&w, &r, sizeof(r));
	return done(&w);
}

int
nscd_build_notfound(int32_t type, void *out, size_t cap)
{
	int32_t	v[9] = { NSCD_VERSION, 0 };
	size_t	n = nscd_reply_hdr_size(type);

	if (n == 0 || type == NSCD_GETAI || (type >= NSCD_GETHOSTBYNAME &&
	    type <= NSCD_GETHOSTBYADDRv6))
		return -EINVAL;
	if (type == NSCD_INNETGR)
		return nscd_build_innetgr(false, out, cap);
	if (n > cap)
		return -E2BIG;
	memcpy(out, v, n);
	return (int)n;
}

/* --- reading a group back ----------------------------------------------- */

static bool
str_at(const uint8_t *p, const uint8_t *end, size_t n)
{
	return n >= 1 && n <= (size_t)(end - p) && p[n - 1] == '\0' &&
	    memchr(p, '\0', n) == p + n - 1;
}

int
nscd_gr_view(const void *reply, size_t len, struct nscd_gr_view *ret)
{
	const uint8_t		*p = reply, *end = p + len;
	struct nscd_gr_reply	 h;
	size_t			 i, lens;
	uint32_t		 n;

	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, p, sizeof(h));
	if (h.version != NSCD_VERSION || h.found != 1 || h.mem_cnt < 0 ||
	    (size_t)h.mem_cnt > NSCDDB_LIST_MAX)
		return -EBADMSG;
	p += sizeof(h);
	lens = (size_t)h.mem_cnt * 4;
	if (lens > (size_t)(end - p))
		return -EBADMSG;
	ret->hdr = reply;
	ret->lens = p;
	p += lens;
	if (h.name_len < 1 || h.passwd_len < 1 || !str_at(p, end, (size_t)h.name_len))
		return -EBADMSG;
	ret->name = (const char *)p;
	p += h.name_len;
	if (!str_at(p, end, (size_t)h.passwd_len))
		return -EBADMSG;
	ret->passwd = (const char *)p;
	p += h.passwd_len;
	ret->members = (const char *)p;
	for (i = 0; i < (size_t)h.mem_cnt; i++) {
		memcpy(&n, ret->lens + 4 * i, 4);
		if (!str_at(p, end, n))
			return -EBADMSG;
		p += n;
	}
	ret->members_len = (size_t)(p - (const uint8_t *)ret->members);
	return p == end ? 0 : -EBADMSG;
}

int
nscd_gr_merge(const struct nscd_gr_view *a, const struct nscd_gr_view *b,
    void *out, size_t cap)
{
	struct nscd_gr_reply	 r = *a->hdr;
	struct wr		 w = { out, 0, cap, false };
	size_t			 blens = (size_t)b->hdr->mem_cnt * 4;

	/* Another group (gid or name): the first stands, as in glibc. */
	if (a->hdr->gid != b->hdr->gid || strcmp(a->name, b->name) != 0) {
		put(&w, a->hdr, (size_t)((const uint8_t *)a->members - (const uint8_t *)a->hdr) +
		    a->members_len);
		return done(&w);
	}
	if ((size_t)a->hdr->mem_cnt + (size_t)b->hdr->mem_cnt > NSCDDB_LIST_MAX)
		return -EINVAL;
	r.mem_cnt = a->hdr->mem_cnt + b->hdr->mem_cnt;
	put(&w, &r, sizeof(r));
	put(&w, a->lens, (size_t)a->hdr->mem_cnt * 4);
	put(&w, b->lens, blens);
	put(&w, a->name, (size_t)a->hdr->name_len);
	put(&w, a->passwd, (size_t)a->hdr->passwd_len);
	put(&w, a->members, a->members_len);
	put(&w, b->members, b->members_len);
	return done(&w);
}

/* --- keys --------------------------------------------------------------- */

int
nscd_key_name(const void *key, size_t len)
{
	const char *k = key;

	/* "" is a name glibc asks for too (getpwnam("")): its modules say */
	if (len < 1 || len > NSCD_KEY_MAX || k[len - 1] != '\0' ||
	    memchr(k, '\0', len - 1) != NULL)
		return -EINVAL;
	return 0;
}

int
nscd_key_number(const void *key, size_t len, uint32_t *ret)
{
	const char	*k = key;
	uint64_t	 v = 0;
	size_t		 i;

	if (nscd_key_name(key, len) < 0 || len < 2 || len - 1 > 10)
		return -EINVAL;
	for (i = 0; i < len - 1; i++) {
		if (k[i] < '0' || k[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(k[i] - '0');
	}
	if (v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

int
nscd_key_serv(int32_t type, const void *key, size_t len, struct nscd_serv_key *ret)
{
	const char	*k = key, *slash;
	size_t		 clen;
	uint32_t	 port;

	if (nscd_key_name(key, len) < 0 || (slash = memrchr(k, '/', len - 1)) == NULL)
		return -EINVAL;
	clen = (size_t)(slash - k);
	if (clen == 0 || clen >= sizeof(ret->crit))
		return -EINVAL;
	memcpy(ret->crit, k, clen);
	ret->crit[clen] = '\0';
	memcpy(ret->proto, slash + 1, len - 1 - clen);	/* with its NUL */
	ret->port = 0;
	if (type == NSCD_GETSERVBYPORT) {
		if (nscd_key_number(ret->crit, clen + 1, &port) < 0 || port > INT32_MAX)
			return -EINVAL;
		ret->port = (int32_t)port;
	}
	return 0;
}

/* One field of INNETGR's key at *p: "\1" VALUE "\0", or "\0" for none. */
static int
innetgr_field(const char **p, const char *end, const char **ret)
{
	const char *nul;

	if (*p >= end)
		return -EINVAL;
	if (**p == '\0') {
		*ret = NULL;
		(*p)++;
		return 0;
	}
	if (**p != '\1' || (nul = memchr(*p + 1, '\0', (size_t)(end - *p - 1))) == NULL)
		return -EINVAL;
	*ret = *p + 1;
	*p = nul + 1;
	return 0;
}

int
nscd_key_innetgr(const void *key, size_t len, struct nscd_innetgr_key *ret)
{
	const char *k = key, *end = k + len, *p, *nul;

	if (len < 5 || len > NSCD_KEY_MAX || (nul = memchr(k, '\0', len)) == NULL ||
	    nul == k)
		return -EINVAL;
	ret->netgroup = k;
	p = nul + 1;
	if (innetgr_field(&p, end, &ret->host) < 0 ||
	    innetgr_field(&p, end, &ret->user) < 0 ||
	    innetgr_field(&p, end, &ret->domain) < 0 || p != end)
		return -EINVAL;
	return 0;
}
