/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_kinds.h - the record kinds of the truth / replay
 * stream, one row each: the struct a line is read into, its table of fields
 * (producer/records/, or below for the lines that are the truth's own), and
 * what the readers do with it besides its fields. The enum truth_kind, the
 * record union, the writer (truth_write.c), the fast reader (truth_fast.c)
 * and the jansson reader (truth_read.c) are all expanded from here, so a
 * new kind of line is a row here and a table.
 *
 * TRUTH_KINDS(K):
 *   K(kind, ENUM, ctype, u, what, FIELDS, stamp, after)
 *     kind   the line's "kind", and the name of the functions made for it
 *     ENUM   TRUTH_<ENUM> in enum truth_kind
 *     ctype  the struct of a line, u its member of struct truth_record
 *     what   how messages name such a line
 *     FIELDS its table (the columns of SIM_CSWITCH_FIELDS)
 *     stamp  whose PMC values its "pmc" holds: TRUTH_STAMP_CSWITCH or
 *            TRUTH_STAMP_SPINLOCK (truth_schema.h), or TRUTH_STAMP_NONE
 *     after  a check of the reader's history once the line is read: NONE,
 *            or END (nothing may end before a CPU's last record)
 * Lines that have a "cpu" are checked against that CPU's history (tick and
 * every clock in use never go backwards). The order is the messages' (and
 * the enum's).
 */
#ifndef TOOLS_LIB_TRUTH_KINDS_H
#define TOOLS_LIB_TRUTH_KINDS_H

#include "producer/records/control.h"
#include "producer/trace_sink.h"

/*
 * TRUTH_THREAD_FIELDS(F, C, x) - a "thread" line (gen's extension): a
 * thread of a group started or ended. "group" is the group's name, which
 * the readers only check to be a string; "event" is held in the member
 * exit ("start" false, "exit" true).
 */
/* clang-format off */
#define TRUTH_THREAD_FIELDS(F, C, x)                                                               \
	F(x, tid,   uint32_t,     U,     0, UINT32_MAX, REQ,  0, ALWAYS)                           \
	F(x, group, const char *, GROUP, 0, 0,          REQ,  0, ALWAYS)                           \
	F(x, event, bool,         EVENT, 0, 0,          REQ,  0, ALWAYS)                           \
	F(x, tick,  uint32_t,     U,     0, UINT32_MAX, HIGH, 0, ALWAYS)                           \
	F(x, ts,    uint64_t,     TS,    0, 0,          HIGH, 0, ALWAYS)

#define TRUTH_KINDS(K)                                                                             \
	K(cswitch,     CSWITCH,     struct sim_cswitch,     cs,     "a cswitch line",              \
	  SIM_CSWITCH_FIELDS,     TRUTH_STAMP_CSWITCH,  NONE)                                      \
	K(spinlock,    SPINLOCK,    struct sim_spinlock,    sl,     "a spinlock line",             \
	  SIM_SPINLOCK_FIELDS,    TRUTH_STAMP_SPINLOCK, NONE)                                      \
	K(ccswap_stop, CCSWAP_STOP, struct sim_ccswap_stop, stop,   "a ccswap_stop line",          \
	  SIM_CCSWAP_STOP_FIELDS, TRUTH_STAMP_NONE,     NONE)                                      \
	K(end,         END,         struct sim_end,         end,    "an end line",                 \
	  SIM_END_FIELDS,         TRUTH_STAMP_NONE,     END)                                       \
	K(thread,      THREAD,      struct truth_thread,    thread, "a thread line",               \
	  TRUTH_THREAD_FIELDS,    TRUTH_STAMP_NONE,     NONE)
/* clang-format on */

/* Who stamps the PMC values a line's "pmc" holds (the index of the writer's and readers' sets). */
enum truth_stamp {
	TRUTH_STAMP_CSWITCH = 0,
	TRUTH_STAMP_SPINLOCK,
	TRUTH_NSTAMP,
	TRUTH_STAMP_NONE = TRUTH_NSTAMP,
};

/* Helpers of the expansions: a row that is ignored, and counting rows. */
#define TRUTH_NO_CHECK(x, name)
#define TRUTH_COUNT_ROW(x, name, ...) +1

#endif /* TOOLS_LIB_TRUTH_KINDS_H */
