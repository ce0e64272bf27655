/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/read/event_stream.h - one CPU's logical events from an ETL file, in the
 * order that CPU logged them: plain CSwitch (0x0524), the switches expanded
 * from compact batches (0x0525), SpinLock (0x0529), ReadyThread (0x0532). Buffers are walked in
 * SequenceNumber order; a compact switch is delivered once the next one on
 * the CPU is known, so that its new thread (= the next old thread) can be
 * filled in. Used by `dump --jsonl` and `verify`.
 */
#ifndef TOOLS_LIB_EVENT_STREAM_H
#define TOOLS_LIB_EVENT_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "producer/etw_encode.h"
#include "producer/ccswap_expand.h"
#include "writer/etl_reader.h"

enum dec_ev_kind {
	DEC_EV_CSWITCH = 0x1,
	DEC_EV_COMPACT = 0x2,
	DEC_EV_SPINLOCK = 0x4,
	DEC_EV_READY = 0x8, /* ReadyThread 0x0532 (any hooked header); one that does not
			     * decode is no event */
};

/**
 * struct dec_event - one logical event.
 * @rec:           the ETW record it came from (the batch, for compact ones)
 * @file_offset:   where it is: the record, or the compact record inside it
 * @batch:         compact: batch number on this CPU (0-based)
 * @batch_first:   compact: first switch of its batch
 * @new_tid_known: compact: false for the CPU's last switch
 */
struct dec_event {
	enum dec_ev_kind kind;
	unsigned cpu;
	uint64_t file_offset;
	struct etl_record rec;
	union {
		struct etw_cswitch cs;
		struct etw_cswitch_compact cc;
		struct etw_spinlock sl;
		struct etw_ready_thread rt;
	} u;
	uint64_t batch;
	bool batch_first;
	bool new_tid_known;
	uint32_t new_tid;
};

/** struct dec_cursor - iteration state; treat as opaque. */
struct etwforge_record;

struct dec_cursor {
	const struct etl_reader *d;
	unsigned cpu;
	unsigned kinds;
	uint8_t max_wait_reason;
	const unsigned *order;
	unsigned norder;
	unsigned oi; /* index into order */
	size_t pos;  /* inside the current buffer */
	bool in_batch;
	struct etw_ccswap_iter it;
	struct etl_record batch_rec;
	uint64_t batch_no;
	bool batch_first;
	bool have_pending;
	struct dec_event sw[2]; /* sw[pi]: the compact switch waiting for its successor */
	unsigned pi;
	struct dec_event one; /* the last event of another kind handed out */
	bool have_deferred;
	struct etl_error deferred; /* an error, given after the pending switch */
};

/**
 * dec_cursor_init - events of @kinds (DEC_EV_* mask) on @cpu.
 * @max_wait_reason splits OldThreadStateWr.
 */
void dec_cursor_init(struct dec_cursor *c, const struct etl_reader *d, unsigned cpu, unsigned kinds,
		     uint8_t max_wait_reason);

/**
 * dec_cursor_next - the next event.
 * A compact batch that does not decode is an error once the switches before
 * it are out (the last of them without its new thread); the next call goes
 * on after that batch. A record that breaks its buffer's framing is one
 * too; the next call goes on with the CPU's next buffer.
 * Return: 1 with *@ev, 0 at the end, -EINVAL malformed (@err filled).
 */
int dec_cursor_next(struct dec_cursor *c, struct dec_event *ev, struct etl_error *err);

/*
 * struct read_switch - a compact switch as the raw time order hands it out
 * (read.h's read_iter_next_raw(), from dec_cursor_run()): what a pass over
 * every switch reads, without building the public event (the same values
 * as its struct etwforge_compact).
 * @rec: its batch record, converted once per batch
 */
struct read_switch {
	uint64_t ts;
	uint64_t batch;
	const struct etwforge_record *rec;
	unsigned cpu;
	uint32_t old_tid;
	uint32_t new_tid;
	unsigned form_code;
	uint8_t old_state;
	uint8_t old_wait_reason;
	bool new_tid_known;
	bool batch_first;
};

/**
 * dec_cursor_run - inside a compact batch, up to @max of its switches at
 * once into @out: what as many dec_cursor_peek() calls would hand out, as
 * long as each is a switch of the batch @c->batch_rec being read (each
 * @rec left as it was: the caller converts that record). It stops
 * before anything else (the batch's end: 0 then, and dec_cursor_peek()
 * goes on), or after the switch before damage (the next dec_cursor_peek()
 * says it).
 * Return: how many switches it gave.
 */
unsigned dec_cursor_run(struct dec_cursor *c, struct read_switch *out, unsigned max);

/**
 * dec_cursor_peek - dec_cursor_next() without the copy: *@ev points into
 * @c, valid until its next call (a reader of every switch of a file).
 */
int dec_cursor_peek(struct dec_cursor *c, const struct dec_event **ev, struct etl_error *err);

#endif /* TOOLS_LIB_EVENT_STREAM_H */
