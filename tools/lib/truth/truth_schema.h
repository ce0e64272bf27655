/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_schema.h - what writing (truth_write.c) and reading
 * (truth_read.c) the truth stream both need, private to them: the names the
 * stream gives session flags and spin-lock sampling reasons, and which
 * sessions stamp PMC values on an event, which decides whether a line has a
 * "pmc" and its shape. One definition for both directions, so what is
 * written is what is read back.
 */
#ifndef TOOLS_LIB_TRUTH_SCHEMA_H
#define TOOLS_LIB_TRUTH_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/lib/common/error.h"
#include "tools/lib/config/trace_config.h"

/* a spinlock line's "why", indexed by enum sim_spin_why */
#define TRUTH_NWHY 4u
extern const char *const truth_why_names[TRUTH_NWHY];

/**
 * truth_stamping_sessions - the sessions that put PMC values on an event.
 * A session stamps switches when its pmc.events lists the hook it logs them
 * with (0x0525 for a compact session, else 0x0524 with the cswitch flag),
 * and spin locks with the spinlock flag and 0x0529; one without counters
 * stamps nothing (producer.c follows the same rule).
 * @cfg:  the trace configuration (its sessions)
 * @spin: true for spin-lock events, false for context switches
 * @idx:  filled with the stamping sessions' indices, in session order
 * Return: how many sessions stamp (0..SIM_MAX_SESSIONS).
 */
unsigned truth_stamping_sessions(const struct trace_config *cfg, bool spin,
				 unsigned idx[SIM_MAX_SESSIONS]);

/*
 * The checks of several fields that the tables name (C rows): 0, or
 * -EINVAL with the reader's message in @msg (when not NULL), whose field
 * it names first.
 */

/**
 * truth_check_waiting_reason - a Waiting thread's wait reason must be below
 * the target's MaximumWaitReason, or the compact form would decode it as a
 * thread state (OldThreadStateWr holds either).
 * Return: 0 or -EINVAL with @err (ERR_INPUT; the message names the field,
 * not its place).
 */
int truth_check_waiting_reason(const struct trace_config *cfg, const struct sim_cswitch *cs,
			       struct etwforge_error *err);

/**
 * truth_check_pdb_guid - an image's pdb_guid, when given, is a GUID
 * ("3C8F0528-9C07-4257-9192-78EA9AA6A1F4", braces allowed), as the
 * DbgID_RSDS record carries it.
 * Return: 0 or -EINVAL with @err (ERR_INPUT).
 */
int truth_check_pdb_guid(const struct trace_config *cfg, const struct sim_image *im,
			 struct etwforge_error *err);

/**
 * truth_check_frames - a stack line's frames are 1 to 192 addresses
 * (producer_stack_frames()), below 4 GiB on x86.
 * Return: 0 or -EINVAL with @err (ERR_INPUT; NULL: no message).
 */
int truth_check_frames(const struct trace_config *cfg, const struct sim_stack *st,
		       struct etwforge_error *err);

/**
 * truth_check_initial_time - a dpc line's initial_time is at or before its
 * ts in every clock; return_value and vector are 0 but for an ISR.
 * Return: 0 or -EINVAL with @err (ERR_INPUT; NULL: no message).
 */
int truth_check_initial_time(const struct trace_config *cfg, const struct sim_dpc *d,
			     struct etwforge_error *err);

#endif /* TOOLS_LIB_TRUTH_SCHEMA_H */
