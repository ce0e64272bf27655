/* SPDX-License-Identifier: MIT */
/*
 * producer/records/stack.h - the stack-walk records, described once:
 * StackWalk 0x1820, the cached-stack references 0x1825 (kernel) / 0x1826
 * (user) and the definitions 0x1822 / 0x1823 / 0x1824. Encoded and decoded
 * by producer/etw_stack.c. The columns are those of
 * producer/records/process.h, with one more "json" how: FRAMES, the run of
 * frames to the record's end (a list of addresses; etw_frame() reads one).
 *
 * SIM_STACK_FIELDS(F, C, x) - the truth's "stack" line: one StackWalk 0x1820
 * record, the kernel part or the user part of the call stack of an event
 * (@event: profile, cswitch, ready_thread) logged right after it on its
 * CPU. Its @ts is the event's: EventTimeStamp is @ts in the session's
 * clock, and the record's own header carries the same time (Windows'
 * comes 2 us or more later; ours keeps the CPU's buffer in time order).
 * @frames is the addresses, innermost first, as "0x..." separated by
 * single spaces: 1 to ETW_STACK_MAX_FRAMES of them, all kernel or all user.
 *
 * ETW_STACK_WALK_FIELDS(F, x) from struct etw_stack_walk *w,
 * ETW_STACK_KEY_FIELDS(F, x) from struct etw_stack_key *w,
 * ETW_STACK_DEF_FIELDS(F, x) from struct etw_stack_def *w.
 */
#ifndef PRODUCER_RECORDS_STACK_H
#define PRODUCER_RECORDS_STACK_H

/* clang-format off */
#define SIM_STACK_FIELDS(F, C, x)                                                                  \
	F(x, cpu,    uint32_t,       BUF,   0, 0,            REQ, 0, ALWAYS)                       \
	F(x, ts,     uint64_t,       TS,    0, 0,            REQ, 0, ALWAYS)                       \
	/* whose stack: profile (a sample), cswitch (the new thread), ready_thread (the waker) */ \
	F(x, event,  enum sim_event, EVENT, 0, SIM_EV_STACK, REQ, 0, ALWAYS)                       \
	/* StackProcess, StackThread: the event's thread (0, 0: the idle thread's DPC) */          \
	F(x, pid,    uint32_t,       U,     0, UINT32_MAX,   REQ, 0, ALWAYS)                       \
	F(x, tid,    uint32_t,       U,     0, UINT32_MAX,   REQ, 0, ALWAYS)                       \
	F(x, frames, const char *,   TEXT,  0, 0,            REQ, 0, SET)                          \
	C(x, frames)

#define ETW_STACK_WALK_FIELDS(F, x)                                                                \
	F(x, event_ts, uint64_t,                  U,      1, w->event_ts,   0x00, 0x00,            \
	  "EventTimeStamp")                                                                        \
	F(x, pid,      uint32_t,                  U,      1, w->process_id, 0x08, 0x08,            \
	  "StackProcess")                                                                          \
	F(x, tid,      uint32_t,                  U,      1, w->thread_id,  0x0C, 0x0C,            \
	  "StackThread")                                                                           \
	F(x, frames,   const struct etw_frames *, FRAMES, 1, &w->frames,    0x10, 0x10, "Stack")

#define ETW_STACK_KEY_FIELDS(F, x)                                                                 \
	F(x, event_ts, uint64_t,                  U,      1, w->event_ts,   0x00, 0x00,            \
	  "EventTimeStamp")                                                                        \
	F(x, pid,      uint32_t,                  U,      1, w->process_id, 0x08, 0x08,            \
	  "StackProcess")                                                                          \
	F(x, tid,      uint32_t,                  U,      1, w->thread_id,  0x0C, 0x0C,            \
	  "StackThread")                                                                           \
	F(x, key,      uint64_t,                  HEX,    1, w->key,        0x10, 0x10, "StackKey")

#define ETW_STACK_DEF_FIELDS(F, x)                                                                 \
	F(x, key,      uint64_t,                  HEX,    1, w->key,        0x00, 0x00, "StackKey")\
	F(x, frames,   const struct etw_frames *, FRAMES, 1, &w->frames,    0x08, 0x04, "Stack")
/* clang-format on */

#endif /* PRODUCER_RECORDS_STACK_H */
