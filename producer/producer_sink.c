// SPDX-License-Identifier: MIT
/*
 * producer/producer_sink.c - producer_sink(): the producer as a trace_sink,
 * each of the machine's records to its producer_*() function (producer.c
 * for switches, spin locks, stops and the end; producer_records.c for the
 * identity and rundown records).
 */
#include "producer/producer.h"

static int sink_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	return producer_cswitch(ctx, cs);
}

static int sink_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	return producer_spinlock(ctx, sl);
}

static int sink_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	return producer_ccswap_stop(ctx, st);
}

static int sink_end(void *ctx, const struct sim_end *end)
{
	return producer_end(ctx, end);
}

static int sink_record(void *ctx, const struct sim_record *r)
{
	return producer_record(ctx, r);
}

static const struct trace_sink_ops producer_sink_ops = {
	.cswitch = sink_cswitch,
	.spinlock = sink_spinlock,
	.ccswap_stop = sink_stop,
	.end = sink_end,
	.record = sink_record,
};

struct trace_sink producer_sink(struct producer *p)
{
	struct trace_sink s = {&producer_sink_ops, p};
	return s;
}
