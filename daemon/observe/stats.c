/* SPDX-License-Identifier: MIT */
/* daemon/observe/stats.c - the daemon's counters, as namecachectl statistics shows them. */
#include "proto.h"
#include "stats.h"

void
stats_write(const struct stats *s, struct proto_kv_wr *kw)
{
	/* Keys are part of the protocol: add new ones, never rename. */
	proto_kv_u64(kw, "requests", s->requests);
	proto_kv_u64(kw, "lookups_name", s->lookups_name);
	proto_kv_u64(kw, "lookups_addr", s->lookups_addr);
	proto_kv_u64(kw, "lookups_rr", s->lookups_rr);
	proto_kv_u64(kw, "bad_requests", s->bad_requests);
	proto_kv_u64(kw, "connections", s->connections);
	proto_kv_u64(kw, "connections_rejected", s->connections_rejected);
	proto_kv_u64(kw, "connections_dropped", s->connections_dropped);
	proto_kv_u64(kw, "connections_idle_closed", s->connections_idle_closed);
	proto_kv_u64(kw, "hosts_reloads", s->hosts_reloads);
	proto_kv_u64(kw, "hosts_reload_failures", s->hosts_reload_failures);
	proto_kv_u64(kw, "hosts_reloads_unchanged", s->hosts_reloads_unchanged);
	proto_kv_u64(kw, "upstream_queries", s->upstream_queries);
	proto_kv_u64(kw, "upstream_replies", s->upstream_replies);
	proto_kv_u64(kw, "upstream_timeouts", s->upstream_timeouts);
	proto_kv_u64(kw, "upstream_failures", s->upstream_failures);
	proto_kv_u64(kw, "nsswitch_reloads", s->nsswitch_reloads);
	proto_kv_u64(kw, "heap_trims", s->heap_trims);
	proto_kv_u64(kw, "heap_trim_max_usec", s->heap_trim_max_usec);
}
