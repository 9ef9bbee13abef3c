/* SPDX-License-Identifier: MIT */
/* daemon/stats.c - the daemon's counters, as namecachectl statistics shows them. */
#include "proto.h"
#include "stats.h"

void
stats_write(const struct stats *s, struct proto_kv_wr *kw)
{
	/* Keys are part of the protocol: add new ones, never rename. */
	proto_kv_u64(kw, "requests", s->requests);
	proto_kv_u64(kw, "lookups_name", s->lookups_name);
	proto_kv_u64(kw, "lookups_addr", s->lookups_addr);
	proto_kv_u64(kw, "hosts_answers", s->hosts_answers);
	proto_kv_u64(kw, "not_found", s->not_found);
	proto_kv_u64(kw, "bad_requests", s->bad_requests);
	proto_kv_u64(kw, "errors", s->errors);
	proto_kv_u64(kw, "connections", s->connections);
	proto_kv_u64(kw, "connections_rejected", s->connections_rejected);
	proto_kv_u64(kw, "connections_dropped", s->connections_dropped);
	proto_kv_u64(kw, "connections_idle_closed", s->connections_idle_closed);
	proto_kv_u64(kw, "hosts_reloads", s->hosts_reloads);
	proto_kv_u64(kw, "hosts_reload_failures", s->hosts_reload_failures);
}
