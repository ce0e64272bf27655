/* SPDX-License-Identifier: MIT */
/*
 * producer/producer_internal.h - what producer.c lends the producer's other
 * files (producer_records.c): the sessions' flags and clocks, and room in a
 * session's CPU buffer for one event (place, then commit once written).
 */
#ifndef PRODUCER_PRODUCER_INTERNAL_H
#define PRODUCER_PRODUCER_INTERNAL_H

#include "producer/producer.h"

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
void producer_count_record(struct producer_lane *l, enum sim_record_kind kind);
/* producer_own_lane - the lane of producer_cswitch() and friends. */
struct producer_lane *producer_own_lane(struct producer *p);
/* producer_lane_producer - the producer a lane belongs to. */
struct producer *producer_lane_producer(const struct producer_lane *l);

#endif /* PRODUCER_PRODUCER_INTERNAL_H */
