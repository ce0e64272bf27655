/* SPDX-License-Identifier: MIT */
/*
 * producer/producer_internal.h - what producer.c lends the producer's other
 * files (producer_records.c): a lane's state, the sessions' flags and clocks,
 * and room in a session's CPU buffer for one event (place, then commit once
 * written).
 */
#ifndef PRODUCER_PRODUCER_INTERNAL_H
#define PRODUCER_PRODUCER_INTERNAL_H

#include "producer/producer.h"

/*
 * struct producer_lane - what the event path changes beside the CPUs' own
 * state: counters, the pool clock of each session, the switch being logged
 * (for the batch emitter). The producer has one of its own; producer_lanes()
 * adds one per thread that feeds a share of the CPUs.
 * @clock_max: per session, the largest timestamp logged to it (its pool
 *             clock; the producer's own lane keeps it in the session, psess)
 * @key:       the order key of the record being logged (etl_buf.key)
 */
struct producer_lane {
	struct producer *p;
	struct producer_stats st;
	uint64_t clock_max[SIM_MAX_SESSIONS];
	uint64_t key;
	unsigned index, nlanes; /* CPUs c with c % nlanes == index (nlanes 1: all) */
	/* the switch being logged, for the batch emitter */
	unsigned cur_cpu;
	unsigned cur_clock; /* index into clocks[] */
	uint64_t cur_ts;
	const uint64_t *cur_pmc; /* NULL at the end of tracing: zero-filled items */
};

unsigned producer_nsessions(const struct producer *p);
unsigned producer_session_flags(const struct producer *p, unsigned i);
enum sim_clock producer_session_clock(const struct producer *p, unsigned i);
const struct producer_cfg *producer_get_cfg(const struct producer *p);

/*
 * producer_place - room for @size bytes at @ts in session @i's buffer of
 * @cpu, for lane @l. Return: where to write, or NULL with *@rc 0 (no free
 * buffer: the event is lost and counted) or a negative errno.
 */
uint8_t *producer_place(struct producer_lane *l, unsigned i, unsigned cpu, uint32_t size,
			uint64_t ts, int *rc);
/* producer_commit - the event placed last is written: pad it to 8, count it. */
void producer_commit(struct producer_lane *l, unsigned i, unsigned cpu, uint32_t size);
/* producer_count_record - one more record of @kind written to a session. */
static inline void producer_count_record(struct producer_lane *l, enum sim_record_kind kind)
{
	l->st.records[kind]++;
}
/*
 * producer_stack_cache - session @i's stack cache of @cpu (made if @make
 * and there is none yet), NULL with *@rc 0 when the session does not cache
 * stacks (or has none for @cpu), or NULL with *@rc -ENOMEM.
 */
struct stack_cache *producer_stack_cache(struct producer *p, unsigned i, unsigned cpu, bool make,
					 int *rc);
/*
 * producer_flush_end - producer_end() but the stack keys' rundown: the
 * pending batches, then the spin-lock configuration rundown.
 */
int producer_flush_end(struct producer *p, const struct sim_end *end);
/* producer_own_lane - the lane of producer_cswitch() and friends. */
struct producer_lane *producer_own_lane(struct producer *p);
/* producer_lane_producer - the producer a lane belongs to. */
static inline struct producer *producer_lane_producer(const struct producer_lane *l)
{
	return l->p;
}

#endif /* PRODUCER_PRODUCER_INTERNAL_H */
