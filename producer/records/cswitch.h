/* SPDX-License-Identifier: MIT */
/*
 * producer/records/cswitch.h - the context switch, described once (STYLE.md
 * B5, "Every record described once"): X-macro tables that the structs, the
 * truth stream's writer and both readers, the iterator's conversion, dump's
 * JSON, verify and the mutator all expand. Nothing here compiles alone: a
 * consumer defines the row macros and expands a list. Adding a field is a
 * row here and the encoder (producer/cswitch_words.h, etw_encode.c), plus
 * the public struct when the field is public.
 *
 * SIM_CSWITCH_FIELDS(F, C, x) - struct sim_cswitch, what the machine tells
 * the logging code at a switch, and the truth's "cswitch" line, in the
 * line's order (the struct keeps it too):
 *
 *   F(x, name, ctype, how, lo, hi, need, dflt, when)
 *     x      the consumer's own argument, handed through
 *     name   the member, and the line's key
 *     ctype  its C type (an array of them for TS and PMC)
 *     how    how the line holds it (tools/lib/truth/truth_fields.h has the
 *            hooks): U, I an unsigned / signed JSON integer in lo..hi; CPU
 *            one below the meta line's "cpus"; TS an object of the clocks
 *            in use; PMC the stamping sessions' counters; PEBS a "0x..."
 *            string (a plain number is read too); ADDR a "0x..." string
 *            that fits the pointer size; BOOL; WHY, CLOCK, EVENT, GROUP a
 *            string of a list; STR a string
 *     need   REQ the line must have it; OPT absent is @dflt; LAST absent is
 *            the CPU's last tick; HIGH absent is the largest seen so far
 *     when   the writer writes it ALWAYS; PEBS when a session has PEBS;
 *            ROWS when the meta line has "spinlock"."rows"; TRUE when true;
 *            SET when not NULL
 *   C(x, name) - a check of several fields, made where it stands in the
 *     list: the reader's message for a line with two faults is the first
 *     one's
 *
 * ETW_CSWITCH_FIELDS(F, x) - WMI_CONTEXTSWAP, the payload of a 0x0524
 * event, as struct etwforge_cswitch (include/etwforge/etwforge.h), in
 * wire order:
 *
 *   F(x, name, ctype, json, jpass, jwhen, from, at, what, vwhen, want, back)
 *     name   the public member, and its key in dump's JSON
 *     ctype  its C type (static_assert'ed against the public struct)
 *     json   how dump prints it (U, I, HEX, BOOL, NONE), in pass jpass (1,
 *            or 2: after every pass-1 field; byte 0x0D's fields go last),
 *            when jwhen holds (an expression of the event's version ver)
 *     from   its value from the decoder's struct etw_cswitch *w and ver
 *     at, what  verify's message: the wire offset and name
 *     vwhen  when verify compares it (an expression of ver; 0: never)
 *     want   what the truth's struct sim_cswitch *cs says it must be:
 *            the kernel's rule where the wire is narrower
 *     back   the mutator's way back from the public o to cs (a file read
 *            back into a stream): an assignment, or (void)0
 */
#ifndef PRODUCER_RECORDS_CSWITCH_H
#define PRODUCER_RECORDS_CSWITCH_H

/* The ranges the truth reader accepts. */
#define SIM_PRI_MAX	   31 /* KPRIORITY of a thread */
#define SIM_STATE_MAX	   10 /* MaximumThreadState (KERNEL_FACTS 5.3, KTHREAD_STATE) */
#define SIM_THREAD_WAITING 5  /* Waiting: OldThreadStateWr holds the wait reason */
#define SIM_REASON_MAX	   63 /* OldThreadStateWr is 6 bits */
#define SIM_QOS_MAX	   7  /* 3 bits in the v4 flags byte */

/* clang-format off */
#define SIM_CSWITCH_FIELDS(F, C, x)                                                                \
	/* the CPU it happened on */                                                               \
	F(x, cpu,                   uint32_t, CPU,  0,         0,              REQ, 0, ALWAYS)     \
	/* interrupt tick count (KUSER_SHARED_DATA.TickCount low dword) */                         \
	F(x, tick,                  uint32_t, U,    0,         UINT32_MAX,     REQ, 0, ALWAYS)     \
	/* the time in every clock type in use, in that clock's units */                           \
	F(x, ts,                    uint64_t, TS,   0,         0,              REQ, 0, ALWAYS)     \
	F(x, old_tid,               uint32_t, U,    0,         UINT32_MAX,     REQ, 0, ALWAYS)     \
	F(x, old_pri,               int8_t,   I,    0,         SIM_PRI_MAX,    OPT, 0, ALWAYS)     \
	F(x, old_base_pri,          int8_t,   I,    0,         SIM_PRI_MAX,    OPT, 0, ALWAYS)     \
	F(x, old_state,             uint8_t,  U,    0,         SIM_STATE_MAX,  OPT, 0, ALWAYS)     \
	F(x, old_wait_reason,       uint8_t,  U,    0,         SIM_REASON_MAX, OPT, 0, ALWAYS)     \
	F(x, old_wait_mode,         uint8_t,  U,    0,         1,              OPT, 0, ALWAYS)     \
	/* IdealProcessor; 0x0524 keeps the low 8 bits */                                          \
	F(x, old_ideal_cpu,         uint32_t, U,    0,         UINT32_MAX,     OPT, 0, ALWAYS)     \
	/* a Waiting thread's reason is below the target's MaximumWaitReason */                    \
	C(x, waiting_reason)                                                                       \
	/* (QuantumTarget - CycleTime) >> 10; 0x0524 keeps 32 bits */                              \
	F(x, old_remaining_quantum, int64_t,  I,    INT64_MIN, INT64_MAX,      OPT, 0, ALWAYS)     \
	F(x, old_qos,               uint8_t,  U,    0,         SIM_QOS_MAX,    OPT, 0, ALWAYS)     \
	F(x, prev_cstate,           uint8_t,  U,    0,         UINT8_MAX,      OPT, 0, ALWAYS)     \
	/* scheduling-group rank; 0x0524 saturates at 0xFF */                                      \
	F(x, old_rank,              uint32_t, U,    0,         UINT32_MAX,     OPT, 0, ALWAYS)     \
	F(x, new_tid,               uint32_t, U,    0,         UINT32_MAX,     REQ, 0, ALWAYS)     \
	F(x, new_pri,               int8_t,   I,    0,         SIM_PRI_MAX,    OPT, 0, ALWAYS)     \
	F(x, new_pri_decrement,     int8_t,   I,    INT8_MIN,  INT8_MAX,       OPT, 0, ALWAYS)     \
	/* TickCount - new thread's WaitTime, unclamped */                                         \
	F(x, new_wait_ticks,        uint32_t, U,    0,         UINT32_MAX,     OPT, 0, ALWAYS)     \
	F(x, new_qos,               uint8_t,  U,    0,         SIM_QOS_MAX,    OPT, 0, ALWAYS)     \
	/* every machine counter (index = global counter id) on the CPU at the switch;
	 * sessions pick theirs by id */                                                           \
	F(x, pmc,                   uint64_t, PMC,  0,         INT64_MAX,      OPT, 0, ALWAYS)     \
	/* the CPU's DS-save-area PebsIndex at the switch, a linear address */                     \
	F(x, pebs_index,            uint64_t, PEBS, 0,         INT64_MAX,      OPT, 0, PEBS)

#define ETW_CSWITCH_FIELDS(F, x)                                                                   \
	F(x, new_tid, uint32_t, U, 1, 1, w->new_tid,                                               \
	  ETW_CS_NEW_TID, "NewThreadId", 1, cs->new_tid,                                           \
	  cs->new_tid = o->new_tid)                                                                \
	F(x, old_tid, uint32_t, U, 1, 1, w->old_tid,                                               \
	  ETW_CS_OLD_TID, "OldThreadId", 1, cs->old_tid,                                           \
	  cs->old_tid = o->old_tid)                                                                \
	F(x, new_pri, int8_t, I, 1, 1, w->new_pri,                                                 \
	  ETW_CS_NEW_PRI, "NewThreadPriority", 1, cs->new_pri,                                     \
	  cs->new_pri = o->new_pri)                                                                \
	/* the file has one priority: the base is taken to be it */                                \
	F(x, old_pri, int8_t, I, 1, 1, w->old_pri,                                                 \
	  ETW_CS_OLD_PRI, "OldThreadPriority", 1, cs->old_pri,                                     \
	  cs->old_pri = cs->old_base_pri = o->old_pri)                                             \
	/* PreviousCState when the old thread is idle, else OldThreadRank: 0xFF above 255 */       \
	F(x, prev_cstate, uint8_t, U, 1, 1, w->prev_cstate,                                        \
	  ETW_CS_PREV_CSTATE, cs->old_tid == 0 ? "PreviousCState" : "OldThreadRank", 1,            \
	  cs->old_tid == 0 ? cs->prev_cstate : etw_cswitch_rank_byte(cs->old_rank),                \
	  cs->prev_cstate = o->prev_cstate)                                                        \
	F(x, new_pri_decrement, int8_t, I, 1, 1, w->new_pri_decrement,                             \
	  ETW_CS_NEW_PRI_DECR, "NewThreadPriorityDecrement", 1, cs->new_pri_decrement,             \
	  cs->new_pri_decrement = o->new_pri_decrement)                                            \
	F(x, old_wait_reason, uint8_t, U, 1, 1, w->old_wait_reason,                                \
	  ETW_CS_OLD_WAIT_REASON, "OldThreadWaitReason", 1, cs->old_wait_reason,                   \
	  cs->old_wait_reason = o->old_wait_reason)                                                \
	/* byte 0x0D: the wait mode (v2), or the v4 flags */                                       \
	F(x, flags,                 uint8_t,  U, 2, ver >= 3, w->wait_mode_or_flags,               \
	  ETW_CS_OLD_WAIT_MODE, "the flags byte (wait mode, QoS)", ver >= 3,                       \
	  cs->old_wait_mode | cs->old_qos << 1 | cs->new_qos << 4,                                 \
	  (void)0)                                                                                 \
	F(x, old_wait_mode, uint8_t, U, 2, 1,                                                      \
	  ver >= 3 ? FIELD_GET(ETW_CS4_WAIT_MODE, w->wait_mode_or_flags) : w->wait_mode_or_flags,  \
	  ETW_CS_OLD_WAIT_MODE, "OldThreadWaitMode", ver < 3, cs->old_wait_mode,                   \
	  cs->old_wait_mode = o->old_wait_mode & 1u)                                               \
	F(x, old_qos, uint8_t, U, 2, ver >= 3, ver >= 3 ? FIELD_GET(ETW_CS4_OLD_QOS,               \
	  w->wait_mode_or_flags) : 0,                                                              \
	  ETW_CS_OLD_WAIT_MODE, "", 0, 0,                                                          \
	  (void)0)                                                                                 \
	F(x, new_qos, uint8_t, U, 2, ver >= 3, ver >= 3 ? FIELD_GET(ETW_CS4_NEW_QOS,               \
	  w->wait_mode_or_flags) : 0,                                                              \
	  ETW_CS_OLD_WAIT_MODE, "", 0, 0,                                                          \
	  (void)0)                                                                                 \
	F(x, old_state, uint8_t, U, 1, 1, w->old_state,                                            \
	  ETW_CS_OLD_STATE, "OldThreadState", 1, cs->old_state,                                    \
	  cs->old_state = o->old_state)                                                            \
	/* IdealProcessor: the wire keeps the low 8 bits */                                        \
	F(x, old_ideal_cpu, uint8_t, U, 1, 1, w->old_ideal_cpu,                                    \
	  ETW_CS_OLD_IDEAL_CPU, "OldThreadIdealProcessor", 1, (uint8_t)cs->old_ideal_cpu,          \
	  cs->old_ideal_cpu = o->old_ideal_cpu)                                                    \
	F(x, new_wait_time, uint32_t, U, 1, 1, w->new_wait_time,                                   \
	  ETW_CS_NEW_WAIT_TIME, "NewThreadWaitTime", 1, cs->new_wait_ticks,                        \
	  cs->new_wait_ticks = o->new_wait_time)                                                   \
	/* the kernel's 64-bit difference stored in a LONG: its low 32 bits */                     \
	F(x, old_remaining_quantum, int32_t, I, 1, 1, w->old_remaining_quantum,                    \
	  ETW_CS_OLD_REMAINING_QUANTUM, "OldThreadRemainingQuantum", 1,                            \
	  (int32_t)(uint32_t)(uint64_t)cs->old_remaining_quantum,                                  \
	  cs->old_remaining_quantum = o->old_remaining_quantum)

/*
 * ETW_COMPACT_FIELDS(F, x) - one switch expanded from a compact batch
 * (0x0525), as struct etwforge_compact, in the order dump prints it:
 *
 *   F(x, name, ctype, json, key, jwhen, from)
 *     json, key  how dump prints it (U, I, STR, BOOL; NONE: not printed)
 *                and under which key
 *     jwhen      when (an expression of the public struct c)
 *     from       its value from the expander's struct etw_cswitch_compact
 *                *cc and the reader's struct dec_event *ev
 *
 * verify's comparison of compact switches (run/verify.c) is the record
 * forms' own logic, not a field-by-field one.
 */
#define ETW_COMPACT_FIELDS(F, x)                                                                   \
	/* the batch's number on its CPU, where it is, and the record's number in it */            \
	F(x, batch, uint64_t, U, "batch", 1, ev->batch)                                            \
	F(x, batch_offset, uint64_t, U, "batch_offset", 1, ev->rec.file_offset)                    \
	F(x, index, unsigned, U, "index", 1, cc->index)                                            \
	/* "idle_short", "idle", "lite" or "full" */                                               \
	F(x, form, const char *, STR, "form", 1, etw_ccswap_form_name(cc->form))                   \
	/* FirstTimeStamp + the running sum of deltas (session clock) */                           \
	F(x, ts, uint64_t, U, "ts", 1, cc->ts)                                                     \
	F(x, delta, uint32_t, U, "delta", 1, cc->delta)                                            \
	F(x, old_tid, uint32_t, U, "old_tid", 1, cc->old_tid)                                      \
	F(x, tid_index, uint8_t, U, "tid_index", c->form_code >= 2, cc->tid_index)                 \
	/* FULL: the 5-bit priority; LITE: base priority + increment */                            \
	F(x, old_pri, int8_t, I, "old_pri", c->form_code >= 2, cc->old_pri)                        \
	F(x, state_wr, uint8_t, U, "state_wr", c->form_code >= 2, cc->state_wr)                    \
	F(x, old_state, uint8_t, U, "old_state", c->form_code >= 2, cc->old_state)                 \
	F(x, old_wait_reason, uint8_t,    U,    "old_wait_reason",                                 \
	  c->form_code >= 2 && c->old_state == SIM_THREAD_WAITING, cc->old_wait_reason)            \
	/* LITE: only "at most 1" is known */                                                      \
	F(x, wait_le1, bool, BOOL, "new_wait_le1", c->form_code >= 2 && c->wait_le1,               \
	  cc->wait_le1)                                                                            \
	/* FULL: NewThreadWaitTime, saturated at 0x1FFFF */                                        \
	F(x, wait_time, uint32_t, U, "new_wait_time", c->form_code >= 2 && !c->wait_le1,           \
	  cc->wait_time)                                                                           \
	/* the next switch's old thread on the CPU (unknown for its last one) */                   \
	F(x, new_tid, uint32_t, U, "new_tid", c->new_tid_known, ev->new_tid)                       \
	F(x, new_tid_known, bool, NONE, "", 0, ev->new_tid_known)                                  \
	/* PerfCSwapIdleShort 0, Idle 1, Lite 2, Full 3 */                                         \
	F(x, form_code, unsigned, NONE, "", 0, cc->form)                                           \
	F(x, batch_first,   bool,         NONE, "",                0, ev->batch_first)
/* clang-format on */

#endif /* PRODUCER_RECORDS_CSWITCH_H */
