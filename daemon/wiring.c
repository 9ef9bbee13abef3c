/* SPDX-License-Identifier: MIT */
/* daemon/wiring.c - the real parts behind the lookup engine's seams. */
#include <string.h>

#include "hostsfile.h"
#include "nscddb.h"
#include "nsspool.h"
#include "resolver.h"
#include "wiring.h"
#include "server.h"

void
wiring_client(struct lookup_client *ret, const struct server_req *req, uint8_t fe)
{
	memset(ret, 0, sizeof(*ret));
	ret->fe = fe;
	ret->pid = req->cred.pid;
	ret->uid = req->cred.uid;
}

static const struct hosts *
hosts_get(void *arg)
{
	return hostsfile_get(arg);
}

static int
hosts_error(void *arg)
{
	return hostsfile_error(arg);
}

static int
upstream_query(void *arg, const char *name, uint16_t type, resolver_cb *cb,
    void *cb_arg)
{
	return resolver_query(arg, name, type, cb, cb_arg);
}

static int
upstream_search(void *arg, const char *const **ret_domains, int *ret_ndots)
{
	return resolver_search(arg, ret_domains, ret_ndots);
}

static int
module_call(void *arg, int id, int op, uint8_t family, const void *key,
    size_t key_len, nsspool_fn *fn, void *fn_arg)
{
	return nsspool_call(arg, id, op, family, key, key_len, fn, fn_arg);
}

static bool
module_missing(void *arg, int id)
{
	return nsspool_missing(arg, id);
}

static int
module_id(void *arg, const char *name)
{
	return nsspool_module(arg, name);
}

void
wiring_modules(struct modsrc_modules *ret, struct nsspool *nss)
{
	*ret = (struct modsrc_modules){ module_call, module_missing, module_id, nss };
}

static int
module_job(void *arg, int first, const struct nsspool_job_fns *fns, void *job_arg)
{
	return nsspool_job(arg, first, fns, job_arg);
}

void
wiring_nscddb_modules(struct nscddb_modules *ret, struct nsspool *nss)
{
	*ret = (struct nscddb_modules){ module_id, module_missing, module_job,
	    nsspool_ask, nss };
}

void
wiring_lookup_env(struct lookup_env *env, struct hostsfile *hosts,
    struct resolver *resolver, struct nsspool *nss, cache_clock_fn *now,
    void *now_arg)
{
	memset(env, 0, sizeof(*env));
	env->hosts = (struct lookup_hosts){ hosts_get, hosts_error, hosts };
	env->upstream = (struct dnssrc_upstream){ upstream_query, upstream_search,
	    resolver };
	wiring_modules(&env->modules, nss);
	env->now = now;
	env->now_arg = now_arg;
}
