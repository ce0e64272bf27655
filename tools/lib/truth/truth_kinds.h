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

#include "producer/trace_sink.h"

/* clang-format off */
#define TRUTH_KINDS(K)                                                                             \
	K(cswitch,     CSWITCH,     struct sim_cswitch,     cs,     "a cswitch line",              \
	  SIM_CSWITCH_FIELDS,     TRUTH_STAMP_CSWITCH,  NONE)                                      \
	K(spinlock,    SPINLOCK,    struct sim_spinlock,    sl,     "a spinlock line",             \
	  SIM_SPINLOCK_FIELDS,    TRUTH_STAMP_SPINLOCK, NONE)                                      \
	K(ccswap_stop, CCSWAP_STOP, struct sim_ccswap_stop, stop,   "a ccswap_stop line",          \
	  SIM_CCSWAP_STOP_FIELDS, TRUTH_STAMP_NONE,     NONE)                                      \
	K(end,         END,         struct sim_end,         end,    "an end line",                 \
	  SIM_END_FIELDS,         TRUTH_STAMP_NONE,     END)                                       \
	K(process,     PROCESS,     struct sim_process,     process, "a process line",             \
	  SIM_PROCESS_FIELDS,     TRUTH_STAMP_NONE,     NONE)                                      \
	K(thread,      THREAD,      struct sim_thread,      thread, "a thread line",               \
	  SIM_THREAD_FIELDS,      TRUTH_STAMP_NONE,     NONE)                                      \
	K(thread_name, THREAD_NAME, struct sim_thread_name, thread_name, "a thread_name line",     \
	  SIM_THREAD_SET_NAME_FIELDS, TRUTH_STAMP_NONE, NONE)                                      \
	K(ready,       READY,       struct sim_ready,       ready,  "a ready line",                \
	  SIM_READY_FIELDS,       TRUTH_STAMP_NONE,     NONE)                                      \
	K(sample,      SAMPLE,      struct sim_sample,      sample, "a sample line",               \
	  SIM_PROFILE_FIELDS,     TRUTH_STAMP_NONE,     NONE)                                      \
	K(interval,    INTERVAL,    struct sim_interval,    interval, "an interval line",          \
	  SIM_PROFILE_INTERVAL_FIELDS, TRUTH_STAMP_NONE, NONE)                                     \
	K(config,      CONFIG,      struct sim_cpu_config,  cpu_config, "a config line",           \
	  SIM_CPU_CONFIG_FIELDS,  TRUTH_STAMP_NONE,     NONE)                                      \
	K(masks,       MASKS,       struct sim_masks,       masks,  "a masks line",                \
	  SIM_GROUP_MASKS_FIELDS, TRUTH_STAMP_NONE,     NONE)                                      \
	K(rundown,     RUNDOWN,     struct sim_rundown,     rundown, "a rundown line",             \
	  SIM_RUNDOWN_FIELDS,     TRUTH_STAMP_NONE,     NONE)                                      \
	K(image,       IMAGE,       struct sim_image,       image,  "an image line",               \
	  SIM_IMAGE_FIELDS,       TRUTH_STAMP_NONE,     NONE)                                      \
	K(stack,       STACK,       struct sim_stack,       stack,  "a stack line",                \
	  SIM_STACK_FIELDS,       TRUTH_STAMP_NONE,     NONE)                                      \
	K(dpc,         DPC,         struct sim_dpc,         dpc,    "a dpc line",                  \
	  SIM_DPC_FIELDS,         TRUTH_STAMP_NONE,     NONE)
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
