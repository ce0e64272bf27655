/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_schema.c - the vocabulary and the PMC-stamping rule that
 * the truth writer and reader share (see truth_schema.h): a session
 * "stamps" an event when it logs it with a hook its pmc.events lists and
 * has counters, which is when the producer adds a PMC item to it.
 */
#include "tools/lib/truth/truth_schema.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "producer/etw_ktc.h"
#include "producer/etw_layout.h"
#include "producer/producer.h"

static_assert(SIM_SPIN_ACQUIRE_SAMPLE == TRUTH_NWHY - 1, "truth_why_names covers the enum");

const char *const truth_why_names[TRUTH_NWHY] = {
	[SIM_SPIN_NONE] = "none",
	[SIM_SPIN_HOLD] = "hold",
	[SIM_SPIN_CONTENDED] = "contended",
	[SIM_SPIN_ACQUIRE_SAMPLE] = "acquire_sample",
};

/*
 * Does @s read PMC values for the switches (or, @spin, the spin locks) it
 * logs? The producer's policy, PEBS aside: the truth carries the counters
 * whenever the session's ProfileEventList names the hook, also when the
 * PEBS item wins on 0x0524 (DESIGN.md's sample line has both).
 */
static bool stamps(const struct trace_config *cfg, const struct trace_session_cfg *s, bool spin)
{
	uint16_t hook = spin				  ? ETW_HOOK_SPINLOCK
			: (s->flags & PRODUCER_F_COMPACT) ? ETW_HOOK_CSWITCH_BATCH
							  : ETW_HOOK_CSWITCH;

	return s->pmc_count != 0 && producer_stamps(s->flags, false, s->pmc_events,
						    s->pmc_event_count, cfg->pebs_and_pmc, hook);
}

/* Indices of the sessions that stamp (@spin: spin locks, else switches). */
unsigned truth_stamping_sessions(const struct trace_config *cfg, bool spin,
				 unsigned idx[SIM_MAX_SESSIONS])
{
	unsigned n = 0;

	for (unsigned i = 0; i < cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		const struct trace_session_cfg *s = &cfg->sessions[i];

		if (stamps(cfg, s, spin)) {
			idx[n++] = i;
		}
	}
	return n;
}

int truth_check_waiting_reason(const struct trace_config *cfg, const struct sim_cswitch *cs,
			       struct etwforge_error *err)
{
	if (cs->old_state != SIM_THREAD_WAITING || cs->old_wait_reason < cfg->max_wait_reason) {
		return 0;
	}
	return error_fail(err, -EINVAL, ERR_INPUT,
			  "old_wait_reason: %u is not below max_wait_reason %u; the thread "
			  "is Waiting, so it would decode as a thread state",
			  (unsigned)cs->old_wait_reason, (unsigned)cfg->max_wait_reason);
}

int truth_check_pdb_guid(const struct trace_config *cfg, const struct sim_image *im,
			 struct etwforge_error *err)
{
	uint8_t g[ETW_GUID_LEN];

	(void)cfg;
	if (!im->pdb_guid || etw_guid_parse(im->pdb_guid, g) == 0) {
		return 0;
	}
	return error_fail(err, -EINVAL, ERR_INPUT,
			  "pdb_guid: \"%.60s\" is not a GUID such as "
			  "\"3C8F0528-9C07-4257-9192-78EA9AA6A1F4\"",
			  im->pdb_guid);
}

int truth_check_frames(const struct trace_config *cfg, const struct sim_stack *st,
		       struct etwforge_error *err)
{
	uint64_t f[ETW_STACK_MAX_FRAMES];

	if (producer_stack_frames(st->frames, cfg->arch == ETL_ARCH_X86, f, ETW_STACK_MAX_FRAMES) >
	    0) {
		return 0;
	}
	return error_fail(err, -EINVAL, ERR_INPUT,
			  "frames: must be 1 to %u addresses \"0x...\" separated by single "
			  "spaces%s",
			  ETW_STACK_MAX_FRAMES,
			  cfg->arch == ETL_ARCH_X86 ? ", below 4 GiB (x86)" : "");
}

int truth_check_initial_time(const struct trace_config *cfg, const struct sim_dpc *d,
			     struct etwforge_error *err)
{
	(void)cfg;
	for (unsigned c = 0; c < SIM_CLOCK_SLOTS; c++) {
		if (d->initial_time[c] > d->ts[c]) {
			return error_fail(
				err, -EINVAL, ERR_INPUT,
				"initial_time: %s %" PRIu64 " is after the line's ts %" PRIu64
				" (the routine ends when it is logged)",
				sim_clock_name((enum sim_clock)c), d->initial_time[c], d->ts[c]);
		}
	}
	if (d->event != SIM_EVENT_ISR && (d->return_value || d->vector)) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "return_value, vector: an ISR's alone (this line is a %s)",
				  sim_event_name(d->event));
	}
	return 0;
}
