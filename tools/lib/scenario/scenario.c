// SPDX-License-Identifier: MIT
/*
 * tools/lib/scenario/scenario.c - what a scenario is: its schema (the key tables of
 * machine, kernel, sessions, threads and locks, bound by tools/lib/schema.c),
 * the custom keys (target, flags, PMC counters and events, wait reasons,
 * affinity, boot time, quantum, ...), the built-in default scenario, loading
 * a file, and the cross-key checks of scenario_finish().
 *
 *   scenario_default()          structs hold the defaults
 *        |
 *   scenario_load_file()        the file's bytes -> sk_load(scenario_schema)
 *        |
 *   scenario_set() ...          sk_set(scenario_schema, "key.path=value")
 *        |
 *   scenario_finish()           rules across keys, reported by sk_fail_key() at
 *                               the position remembered for the key that set
 *                               the value last (sc->where)
 *
 * Values go straight into the structs, layer after layer, so no tree
 * outlives its call and struct scenario needs no freeing.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pebs_model/pmc_sources.h"
#include "producer/stack_cache.h"
#include "scheduler_model/sim_rng.h"
#include "tools/lib/common/input_file.h"
#include "tools/lib/scenario/scenario.h"
#include "tools/lib/scenario/scenario_background.h"
#include "tools/lib/scenario/scenario_internal.h"
#include "tools/lib/scenario/schema.h"
#include "tools/lib/scenario/yaml_tree.h"

#define NS_PER_US SK_NS_PER_US
#define NS_PER_MS SK_NS_PER_MS
#define NS_PER_S  SK_NS_PER_S

/* a scenario is a few KiB; libyaml's time grows faster than its text (see yaml_tree.c) */
#define SCENARIO_MAX_FILE (1024u * 1024)

static_assert(sizeof(enum sim_clock) == sizeof(int), "enums are stored as int");
static_assert(sizeof(enum etl_arch) == sizeof(int), "enums are stored as int");
static_assert(sizeof(enum sched_behaviour) == sizeof(int), "enums are stored as int");
static_assert(SCENARIO_WAIT_NAMES <= SCHED_WAIT_REASONS, "names fit the weights");

/* KWAIT_REASON, KERNEL_FACTS 7 (ntkeapi.h), 0..42. */
/* clang-format off */
static const char *const wait_names[SCENARIO_WAIT_NAMES] = {
	"Executive",	     "FreePage",	  "PageIn",	       "PoolAllocation",
	"DelayExecution",    "Suspended",	  "UserRequest",       "WrExecutive",
	"WrFreePage",	     "WrPageIn",	  "WrPoolAllocation",  "WrDelayExecution",
	"WrSuspended",	     "WrUserRequest",	  "WrEventPair",       "WrQueue",
	"WrLpcReceive",	     "WrLpcReply",	  "WrVirtualMemory",   "WrPageOut",
	"WrRendezvous",	     "WrKeyedEvent",	  "WrTerminated",      "WrProcessInSwap",
	"WrCpuRateControl",  "WrCalloutStack",	  "WrKernel",	       "WrResource",
	"WrPushLock",	     "WrMutex",		  "WrQuantumEnd",      "WrDispatchInt",
	"WrPreempted",	     "WrYieldExecution",  "WrFastMutex",       "WrGuardedMutex",
	"WrRundown",	     "WrAlertByThreadId", "WrDeferredPreempt", "WrPhysicalFault",
	"WrIoRing",	     "WrMdlCache",	  "WrRcu",
};
/* clang-format on */

const char *scenario_wait_reason_name(unsigned r)
{
	return r < SCENARIO_WAIT_NAMES ? wait_names[r] : NULL;
}

static const char *const clock_names[] = {NULL, "qpc", "systime", "cycles"};
static const char *const arch_names[] = {"x64", "x86"};
static const char *const realism_names[] = {"plain", "lived-in"};
static const char *const background_names[] = {"none", "desktop", "server"};
static const char *const behaviour_names[] = {"cpu_bound", "io_bound", "interactive", "periodic"};

static_assert(ETL_ARCH_X64 == 0 && ETL_ARCH_X86 == 1, "arch_names order");
static_assert(SCHED_CPU_BOUND == 0 && SCHED_PERIODIC == 3, "behaviour_names order");
static_assert(SIM_CLOCK_QPC == 1 && SIM_CLOCK_CYCLES == 3, "clock_names order");

/* ------------------------------------------------------------------------ */
/* custom keys */

/* The scenario a walk applies to (the schema's root). */
static struct scenario *scenario_of(const struct sk_walk *w)
{
	return w->root;
}

static int apply_target(struct sk_walk *w, const struct sk_desc *d, void *base,
			const struct yt_node *n)
{
	const char *names[16];
	unsigned nn = 0;
	char known[200];
	const struct etw_target *t;
	int rc = sk_need_scalar(w, n, "a target name");

	(void)d;
	(void)base;
	if (rc) {
		return rc;
	}
	t = etw_target_find(n->str);
	if (!t) {
		while (nn < ARRAY_SIZE(names) && etw_target_at(nn)) {
			names[nn] = etw_target_at(nn)->name;
			nn++;
		}
		join_names(known, sizeof(known), names, nn);
		return sk_fail(w, n, "unknown target \"%s\" (known: %s)", n->str, known);
	}
	scenario_of(w)->trace.target = t;
	return 0;
}

static int apply_boot_time(struct sk_walk *w, const struct sk_desc *d, void *base,
			   const struct yt_node *n)
{
	uint64_t v;
	int rc = sk_get_uint(w, n, d->min, d->max, &v);

	(void)base;
	if (rc == 0) {
		scenario_of(w)->trace.boot_time = (int64_t)v;
		scenario_of(w)->boot_time_set = true;
	}
	return rc;
}

static int apply_start_time(struct sk_walk *w, const struct sk_desc *d, void *base,
			    const struct yt_node *n)
{
	uint64_t v;
	int rc = sk_get_uint(w, n, d->min, d->max, &v);

	(void)base;
	if (rc == 0) {
		scenario_of(w)->trace.start_time = (int64_t)v;
		scenario_of(w)->start_time_set = true;
	}
	return rc;
}

static int apply_quantum(struct sk_walk *w, const struct sk_desc *d, void *base,
			 const struct yt_node *n)
{
	uint64_t v;
	int rc = sk_get_duration(w, n, d->min, d->max, &v);

	(void)base;
	if (rc == 0) {
		scenario_of(w)->sched.quantum_ns = v;
		scenario_of(w)->quantum_set = true;
	}
	return rc;
}

static int apply_hold_threshold(struct sk_walk *w, const struct sk_desc *d, void *base,
				const struct yt_node *n)
{
	uint64_t v;
	int rc = sk_get_uint(w, n, 0, UINT32_MAX, &v);

	(void)d;
	(void)base;
	if (rc == 0 && v != 0 && v < 1000000) {
		return sk_fail(w, n,
			       "%" PRIu64
			       " is out of range (0 = off, or 1000000..4294967295 cycles: "
			       "the kernel refuses 1..999999)",
			       v);
	}
	if (rc == 0) {
		scenario_of(w)->trace.spin.hold_threshold = (uint32_t)v;
	}
	return rc;
}

/* A duration that is 0 (@zero says what 0 means) or in @d's range, into @v. */
static int get_duration_or_zero(struct sk_walk *w, const struct sk_desc *d, const struct yt_node *n,
				const char *zero, uint64_t *v)
{
	int rc = sk_get_duration(w, n, 0, d->max, v);

	if (rc == 0 && *v != 0 && *v < d->min) {
		char lo[32];
		char hi[32];

		sk_format_duration(lo, sizeof(lo), d->min);
		sk_format_duration(hi, sizeof(hi), d->max);
		return sk_fail(w, n, "%s is out of range (0 = %s, or %s..%s)", n->str, zero, lo,
			       hi);
	}
	return rc;
}

/* 0 (the thread lives for the whole run), or @d's range. */
static int apply_lifetime(struct sk_walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n)
{
	return get_duration_or_zero(w, d, n, "the whole run",
				    &((struct sched_group *)base)->lifetime_ns);
}

/* 0 (the behaviour's mean wait), or @d's range. */
static int apply_wait_mean(struct sk_walk *w, const struct sk_desc *d, void *base,
			   const struct yt_node *n)
{
	return get_duration_or_zero(w, d, n, "the behaviour's",
				    &((struct sched_group *)base)->wait_ns);
}

/*
 * A spread's sigma: a number from 0 to 3 with at most two decimals, into
 * hundredths at @d's offset of the group (0 stored as SCHED_SIGMA_ZERO, the
 * default's value as 0: 0 there means the default).
 */
static int apply_sigma(struct sk_walk *w, const struct sk_desc *d, void *base,
		       const struct yt_node *n)
{
	const char *p;
	unsigned v = 0, frac = 0, digits = 0;
	int rc = sk_need_scalar(w, n, "a number from 0 to 3 (the log-normal's sigma)");

	if (rc) {
		return rc;
	}
	p = n->str;
	if (!(*p >= '0' && *p <= '9')) {
		return sk_fail(w, n, "\"%s\" is not a number from 0 to 3 (the log-normal's sigma)",
			       n->str);
	}
	for (; *p >= '0' && *p <= '9' && v < 1000; p++) {
		v = v * 10 + (unsigned)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9' && digits < 3; p++, digits++) {
			frac = frac * 10 + (unsigned)(*p - '0');
		}
	}
	if (*p || digits > 2) {
		return sk_fail(w, n,
			       "\"%s\" is not a number from 0 to 3 with at most two decimals "
			       "(the log-normal's sigma)",
			       n->str);
	}
	v = v * 100 + (digits == 1 ? frac * 10 : frac);
	if (v > SCHED_SIGMA_MAX) {
		return sk_fail(w, n, "%s is out of range (0..3)", n->str);
	}
	if (v == (d->off == offsetof(struct sched_group, burst_sigma) ? 80u : 130u)) {
		v = 0; /* the default's own value: stored as the default, so it prints back the same */
	} else if (v == 0) {
		v = SCHED_SIGMA_ZERO;
	}
	{
		uint16_t v16 = (uint16_t)v;

		memcpy((char *)base + d->off, &v16, sizeof(v16));
	}
	return 0;
}

/* A list of names from @names[@n] (@what: the message's list) into their @bits. */
static int apply_enum_bits(struct sk_walk *w, const struct yt_node *n, const char *what,
			   const char *const *names, const unsigned *bits, unsigned count,
			   unsigned max, unsigned *out)
{
	unsigned flags = 0;
	size_t cnt;
	int rc = sk_need_list(w, n, what, max, &cnt);

	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		unsigned k;
		size_t old = sk_push_index(w, (unsigned)i);

		rc = sk_get_enum(w, n->kids[i], names, count, false, &k);
		if (rc == 0) {
			flags |= bits[k];
			sk_pop(w, old);
		}
	}
	if (rc == 0) {
		*out = flags;
	}
	return rc;
}

static int apply_flags(struct sk_walk *w, const struct sk_desc *d, void *base,
		       const struct yt_node *n)
{
	struct trace_session_cfg *s = base;
	unsigned flags;
	int rc = apply_enum_bits(
		w, n,
		"flags (cswitch, compact_cswitch, spinlock, proc_thread, dispatcher, "
		"profile, loader)",
		trace_flag_names, trace_flag_bits, TRACE_NFLAGS, 16, &flags);

	(void)d;
	if (rc == 0) {
		s->flags =
			(s->flags & PRODUCER_F_STACKS) | flags; /* the stacks are apply_stacks()' */
	}
	return rc;
}

/* sessions[].stacks: the events whose stacks the session logs (as xperf -stackwalk names them). */
static int apply_stacks(struct sk_walk *w, const struct sk_desc *d, void *base,
			const struct yt_node *n)
{
	struct trace_session_cfg *s = base;
	unsigned flags;
	int rc = apply_enum_bits(w, n, "stacks (profile, cswitch, ready_thread)", trace_stack_names,
				 trace_stack_bits, TRACE_NSTACKS, TRACE_NSTACKS, &flags);

	(void)d;
	if (rc == 0) {
		s->flags = (s->flags & ~PRODUCER_F_STACKS) | flags;
	}
	return rc;
}

/* A PMC source by name, any case (pebs_model/pmc_sources.h); @out: its canonical name. */
static int get_pmc_source(struct sk_walk *w, const struct yt_node *n, const char **out)
{
	const char *names[PMC_SOURCES];
	const char *near;
	const char *name;
	unsigned id;
	int rc = sk_get_str(w, n, 1, TRACE_COUNTER_NAME_MAX, &name);

	*out = NULL; /* written on every path */
	if (rc) {
		return rc;
	}
	id = pmc_source_find(name);
	if (id) {
		*out = pmc_source_name(id);
		return 0;
	}
	for (unsigned i = 0; i < PMC_SOURCES; i++) {
		names[i] = pmc_source_name(i + 1);
	}
	near = suggest_name(name, names, PMC_SOURCES);
	if (near) {
		return sk_fail(w, n, "unknown PMC source \"%s\" (did you mean \"%s\"?)", name,
			       near);
	}
	return sk_fail(w, n, "unknown PMC source \"%s\" (see etwforge-scenario(5), PMC SOURCES)",
		       name);
}

static int apply_counters(struct sk_walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n)
{
	struct trace_session_cfg *s = base;
	struct scenario_session_x *x = &scenario_of(w)->sess_x[w->item];
	char names[SIM_MAX_PMC][TRACE_COUNTER_NAME_MAX];
	size_t cnt;
	int rc = sk_need_list(w, n, "PMC counter names", SIM_MAX_PMC, &cnt);

	(void)d;
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		const char *name;
		size_t old = sk_push_index(w, (unsigned)i);

		rc = get_pmc_source(w, n->kids[i], &name);
		for (size_t j = 0; rc == 0 && j < i; j++) {
			if (!strcmp(names[j], name)) {
				rc = sk_fail(w, n->kids[i], "\"%s\" is listed twice", name);
			}
		}
		if (rc == 0) {
			sk_copy_str(names[i], TRACE_COUNTER_NAME_MAX, name);
			sk_pop(w, old);
		}
	}
	if (rc == 0) {
		memset(x->counters, 0, sizeof(x->counters));
		memcpy(x->counters, names, cnt * sizeof(names[0]));
		s->pmc_count = (unsigned)cnt;
		memset(s->pmc_counters, 0, sizeof(s->pmc_counters)); /* ids: scenario_finish */
	}
	return rc;
}

/* "0x0524" (hex, 1..4 digits, quoted or not) or a plain decimal 0..65535. */
static int get_hook(struct sk_walk *w, const struct yt_node *n, uint16_t *out)
{
	uint64_t v = 0;
	int rc = sk_need_scalar(w, n, "a hook id such as \"0x0524\"");
	bool hex;

	*out = 0; /* written on every path */
	if (rc) {
		return rc;
	}
	hex = n->str[0] == '0' && (n->str[1] == 'x' || n->str[1] == 'X');
	if ((!hex && !n->plain) || (hex && (n->len < 3 || n->len > 6)) || n->str[0] == '+' ||
	    sk_parse_u64(n->str, &v) || v > 0xFFFF) {
		return sk_fail(w, n, "\"%s\" is not a hook id such as \"0x0524\"", n->str);
	}
	*out = (uint16_t)v;
	return 0;
}

static int apply_events(struct sk_walk *w, const struct sk_desc *d, void *base,
			const struct yt_node *n)
{
	struct trace_session_cfg *s = base;
	uint16_t ev[4] = {0};
	size_t cnt;
	int rc = sk_need_list(w, n, "hook ids", 4, &cnt);

	(void)d;
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		size_t old = sk_push_index(w, (unsigned)i);

		rc = get_hook(w, n->kids[i], &ev[i]);
		for (size_t j = 0; rc == 0 && j < i; j++) {
			if (ev[j] == ev[i]) {
				rc = sk_fail(w, n->kids[i], "hook 0x%04x is listed twice",
					     (unsigned)ev[i]);
			}
		}
		if (rc == 0) {
			sk_pop(w, old);
		}
	}
	if (rc == 0) {
		memcpy(s->pmc_events, ev, sizeof(ev));
		s->pmc_event_count = (unsigned)cnt;
	}
	return rc;
}

static int apply_flush_latency(struct sk_walk *w, const struct sk_desc *d, void *base,
			       const struct yt_node *n)
{
	uint64_t v;
	int rc = sk_get_duration(w, n, d->min, d->max, &v);

	(void)base;
	if (rc == 0) {
		scenario_of(w)->sess_x[w->item].flush_latency_ns = v;
	}
	return rc;
}

/* A KWAIT_REASON by name (case as in the enum) or number 0..63. */
static int get_wait_reason(struct sk_walk *w, const char *key, uint32_t line, uint32_t col,
			   unsigned *out)
{
	uint64_t v;
	const char *s;

	*out = 0; /* written on every path */
	for (unsigned r = 0; r < SCENARIO_WAIT_NAMES; r++) {
		if (!strcmp(wait_names[r], key)) {
			*out = r;
			return 0;
		}
	}
	if (sk_parse_u64(key, &v) == 0 && key[0] >= '0' && key[0] <= '9') {
		if (v >= SCHED_WAIT_REASONS) {
			return sk_fail_at(w, line, col, "wait reason %s is out of range (0..%d)",
					  key, SCHED_WAIT_REASONS - 1);
		}
		*out = (unsigned)v;
		return 0;
	}
	s = suggest_name(key, wait_names, SCENARIO_WAIT_NAMES);
	if (s) {
		return sk_fail_at(w, line, col, "unknown wait reason (did you mean '%s'?)", s);
	}
	return sk_fail_at(w, line, col,
			  "unknown wait reason (a KWAIT_REASON name such as Executive, "
			  "UserRequest, WrQueue, or its number)");
}

/* the canonical path component of reason @r */
static void reason_key(char *buf, size_t len, unsigned r)
{
	if (r < SCENARIO_WAIT_NAMES) {
		snprintf(buf, len, "%s", wait_names[r]);
	} else {
		snprintf(buf, len, "%u", r);
	}
}

static int apply_wait(struct sk_walk *w, const struct sk_desc *d, void *base,
		      const struct yt_node *n)
{
	struct sched_group *g = base;
	uint32_t weights[SCHED_WAIT_REASONS] = {0};
	bool seen[SCHED_WAIT_REASONS] = {false};

	(void)d;
	if (!yt_is_null(n) && n->kind != YT_MAP) {
		return sk_fail(w, n, "must be a map of wait reason: weight, not %s",
			       yt_kind_name(n));
	}
	/* a mix replaces the whole mix: merging two distributions means nothing */
	sk_where_drop_under(w->log, w->path);
	for (size_t i = 0; !yt_is_null(n) && i < n->n; i++) {
		const struct yt_node *k = n->kids[2 * i];
		char rk[24];
		unsigned r;
		uint64_t v;
		size_t old;
		int rc;

		if (k->kind != YT_SCALAR || yt_is_null(k)) {
			return sk_fail(w, k, "a key must be a wait reason, not %s",
				       yt_kind_name(k));
		}
		old = sk_push(w, k->str);
		rc = get_wait_reason(w, k->str, k->line, k->col, &r);
		if (rc) {
			return rc;
		}
		if (seen[r]) {
			return sk_fail(w, k, "wait reason %u is given twice", r);
		}
		seen[r] = true;
		sk_pop(w, old);
		reason_key(rk, sizeof(rk), r);
		old = sk_push(w, rk);
		rc = sk_get_uint(w, n->kids[2 * i + 1], 0, 1000000, &v);
		if (rc) {
			return rc;
		}
		weights[r] = (uint32_t)v;
		sk_where_put(w, w->path, k->line, k->col);
		sk_pop(w, old);
	}
	memcpy(g->wait_weights, weights, sizeof(weights));
	return 0;
}

static int set_wait_key(struct sk_walk *w, const struct sk_desc *d, void *base, const char *key,
			uint32_t col, const struct yt_node *v)
{
	struct sched_group *g = base;
	char rk[24];
	unsigned r;
	uint64_t x;
	size_t old;
	int rc;

	(void)d;
	old = sk_push(w, key);
	rc = get_wait_reason(w, key, 1, col, &r);
	if (rc) {
		return rc;
	}
	sk_pop(w, old);
	reason_key(rk, sizeof(rk), r);
	sk_push(w, rk);
	rc = sk_get_uint(w, v, 0, 1000000, &x);
	if (rc == 0) {
		g->wait_weights[r] = (uint32_t)x;
		sk_where_put(w, w->path, v->line, v->col);
	}
	return rc;
}

/* One affinity entry: a CPU number, or "a-b". */
static int get_cpu_range(struct sk_walk *w, const struct yt_node *n, unsigned *lo, unsigned *hi)
{
	char buf[48];
	const char *dash;
	uint64_t a;
	uint64_t b;
	int rc = sk_need_scalar(w, n, "a CPU number or a range \"a-b\"");

	*lo = *hi = 0; /* written on every path */
	if (rc) {
		return rc;
	}
	dash = strchr(n->str, '-');
	if (!dash) {
		if (!n->plain) {
			return sk_fail(w, n, "must be a CPU number or a range \"a-b\", not \"%s\"",
				       n->str);
		}
		rc = sk_get_uint(w, n, 0, SCHED_MAX_CPUS - 1, &a);
		if (rc) {
			return rc;
		}
		*lo = *hi = (unsigned)a;
		return 0;
	}
	if ((size_t)(dash - n->str) >= sizeof(buf)) {
		return sk_fail(w, n, "\"%s\" is not a CPU range \"a-b\"", n->str);
	}
	memcpy(buf, n->str, (size_t)(dash - n->str));
	buf[dash - n->str] = '\0';
	if (sk_parse_u64(buf, &a) || sk_parse_u64(dash + 1, &b) || buf[0] == '+' ||
	    dash[1] == '+' || a > b) {
		return sk_fail(w, n, "\"%s\" is not a CPU range \"a-b\" with a <= b", n->str);
	}
	if (b >= SCHED_MAX_CPUS) {
		return sk_fail(w, n, "CPU %" PRIu64 " is out of range (0..%d)", b,
			       SCHED_MAX_CPUS - 1);
	}
	*lo = (unsigned)a;
	*hi = (unsigned)b;
	return 0;
}

static int apply_affinity(struct sk_walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n)
{
	struct sched_group *g = base;
	uint64_t mask[SCHED_MAX_CPUS / 64] = {0};
	size_t cnt;
	int rc = sk_need_list(w, n, "CPUs", SCHED_MAX_CPUS, &cnt);

	(void)d;
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		unsigned lo = 0;
		unsigned hi = 0;
		size_t old = sk_push_index(w, (unsigned)i);

		rc = get_cpu_range(w, n->kids[i], &lo, &hi);
		if (rc == 0) {
			for (unsigned c = lo; c <= hi; c++) {
				mask[c / 64] |= 1ull << (c % 64);
			}
			sk_pop(w, old);
		}
	}
	if (rc == 0) {
		memcpy(g->affinity, mask, sizeof(mask));
	}
	return rc;
}

/* A list of at most SCENARIO_LOCK_NAMES names into @dst (checked by scenario_finish). */
static int apply_names(struct sk_walk *w, const struct yt_node *n, const char *what,
		       char dst[SCENARIO_LOCK_NAMES][SCENARIO_NAME_MAX], unsigned *count)
{
	char names[SCENARIO_LOCK_NAMES][SCENARIO_NAME_MAX];
	size_t cnt;
	int rc = sk_need_list(w, n, what, SCENARIO_LOCK_NAMES, &cnt);

	memset(names, 0, sizeof(names));
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		size_t old = sk_push_index(w, (unsigned)i);
		const char *v;

		rc = sk_get_str(w, n->kids[i], 1, SCENARIO_NAME_MAX, &v);
		for (size_t j = 0; rc == 0 && j < i; j++) {
			if (!strcmp(names[j], v)) {
				rc = sk_fail(w, n->kids[i], "\"%s\" is listed twice", v);
			}
		}
		if (rc == 0) {
			sk_copy_str(names[i], sizeof(names[i]), v);
			sk_where_put(w, w->path, n->kids[i]->line, n->kids[i]->col);
			sk_pop(w, old);
		}
	}
	if (rc == 0) {
		memcpy(dst, names, sizeof(names));
		*count = (unsigned)cnt;
	}
	return rc;
}

static int apply_taken_by(struct sk_walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n)
{
	struct scenario_lock *l = base;

	(void)d;
	return apply_names(w, n, "takers (dpc, isr, thread group names)", l->taken_by,
			   &l->ntaken_by);
}

static int apply_nested(struct sk_walk *w, const struct sk_desc *d, void *base,
			const struct yt_node *n)
{
	struct scenario_lock *l = base;

	(void)d;
	return apply_names(w, n, "lock names", l->nested, &l->nnested);
}

static const char *const mode_names[SPIN_MODES] = {"ordinary", "queued", "shared", "exclusive",
						   "converted"};

/* One modes entry: @key a mode name, @v its weight. */
static int set_mode(struct sk_walk *w, uint32_t weights[SPIN_MODES], const char *key, uint32_t line,
		    uint32_t col, const struct yt_node *v)
{
	unsigned m = 0;
	uint64_t x;
	size_t old;
	int rc;

	while (m < SPIN_MODES && strcmp(key, mode_names[m])) {
		m++;
	}
	old = sk_push(w, key);
	if (m == SPIN_MODES) {
		const char *near = suggest_name(key, mode_names, SPIN_MODES);

		if (near) {
			return sk_fail_at(w, line, col,
					  "unknown acquire mode (did you mean \"%s\"?)", near);
		}
		return sk_fail_at(w, line, col,
				  "unknown acquire mode (ordinary, queued, shared, exclusive, "
				  "converted)");
	}
	rc = sk_get_uint(w, v, 0, 1000000, &x);
	if (rc == 0) {
		weights[m] = (uint32_t)x;
		sk_where_put(w, w->path, line, col);
		sk_pop(w, old);
	}
	return rc;
}

static int apply_modes(struct sk_walk *w, const struct sk_desc *d, void *base,
		       const struct yt_node *n)
{
	struct scenario_lock *l = base;
	uint32_t weights[SPIN_MODES] = {0};

	(void)d;
	if (!yt_is_null(n) && n->kind != YT_MAP) {
		return sk_fail(w, n, "must be a map of acquire mode: weight, not %s",
			       yt_kind_name(n));
	}
	/* a mix replaces the whole mix, as wait_reasons does */
	sk_where_drop_under(w->log, w->path);
	for (size_t i = 0; !yt_is_null(n) && i < n->n; i++) {
		const struct yt_node *k = n->kids[2 * i];
		int rc;

		if (k->kind != YT_SCALAR || yt_is_null(k)) {
			return sk_fail(w, k, "a key must be an acquire mode, not %s",
				       yt_kind_name(k));
		}
		rc = set_mode(w, weights, k->str, k->line, k->col, n->kids[2 * i + 1]);
		if (rc) {
			return rc;
		}
	}
	memcpy(l->cfg.mode_weight, weights, sizeof(weights));
	return 0;
}

static int set_mode_key(struct sk_walk *w, const struct sk_desc *d, void *base, const char *key,
			uint32_t col, const struct yt_node *v)
{
	struct scenario_lock *l = base;

	(void)d;
	return set_mode(w, l->cfg.mode_weight, key, 1, col, v);
}

static int apply_contention(struct sk_walk *w, const struct sk_desc *d, void *base,
			    const struct yt_node *n)
{
	(void)d;
	(void)base;
	return sk_fail(
		w, n,
		"is no longer a setting: contention emerges from rate, hold, taken_by and "
		"the CPUs, and gen reports it per lock; remove the key (README: Spin locks)");
}

/* ------------------------------------------------------------------------ */
/* the schema */

#define SC   struct scenario
#define SESS struct trace_session_cfg
#define GRP  struct sched_group
#define LCK  struct scenario_lock

static const struct sk_desc machine_keys[] = {
	K_UINT("cpus", SC, trace.cpus, 1, SCHED_MAX_CPUS),
	K_UINT("cpu_mhz", SC, trace.cpu_mhz, 1, 100000),
	K_UINT("perf_freq", SC, trace.perf_freq, 1, 10000000000ull),
	K_UINT("timer_resolution", SC, trace.timer_resolution, 5000, 156250),
	K_CUSTOM("target", apply_target, scenario_print_target),
	K_ENUM("arch", SC, trace.arch, arch_names, false),
	K_CUSTOM_X("start_time", apply_start_time, scenario_print_start_time, .min = 0,
		   .max = INT64_MAX),
	K_CUSTOM_X("boot_time", apply_boot_time, scenario_print_boot_time, .min = 0,
		   .max = INT64_MAX),
	K_CUSTOM_X("quantum", apply_quantum, scenario_print_quantum, .min = 100 * NS_PER_US,
		   .max = 10 * NS_PER_S),
	K_UINT("memory_mb", SC, ident.memory_mb, 1, 4194304), /* 4 TiB: Windows' most */
	K_STR("computer_name", SC, computer_name, 1),
	K_ENUM("realism", SC, realism, realism_names, false),
	K_ENUM("background", SC, background, background_names, false),
	K_END,
};

static const struct sk_desc spinlock_keys[] = {
	K_UINT("spin_threshold", SC, trace.spin.spin_threshold, 1, UINT32_MAX),
	K_UINT("acquire_sample_rate", SC, trace.spin.acquire_sample_rate, 1000, UINT32_MAX),
	K_UINT("contention_sample_rate", SC, trace.spin.contention_sample_rate, 1, UINT32_MAX),
	K_CUSTOM_X("hold_threshold", apply_hold_threshold, scenario_print_uint,
		   .off = offsetof(SC, trace.spin.hold_threshold),
		   .size = FSIZE(SC, trace.spin.hold_threshold)),
	K_END,
};

static const struct sk_desc kernel_keys[] = {
	K_BOOL("quirks", SC, trace.quirks),
	K_BOOL("flush_at_end", SC, trace.flush_at_end),
	K_BOOL("pebs_and_pmc", SC, trace.pebs_and_pmc),
	{.key = "spinlock", .kind = SK_MAP, .sub = spinlock_keys},
	K_END,
};

static const struct sk_desc pmc_keys[] = {
	K_CUSTOM("counters", apply_counters, scenario_print_counters),
	K_CUSTOM("events", apply_events, scenario_print_events),
	K_END,
};

static const struct sk_desc session_keys[] = {
	K_STR("name", SESS, name, 1),
	K_ENUM("clock", SESS, clock, clock_names, true),
	K_CUSTOM("flags", apply_flags, scenario_print_flags),
	K_CUSTOM("stacks", apply_stacks, scenario_print_stacks),
	K_UINT_M("stack_cache", SESS, stack_cache, 0, STACK_CACHE_MAX, STACK_CACHE_WAYS),
	K_BOOL("merged", SESS, merged),
	K_BOOL("pebs", SESS, pebs),
	{.key = "pmc", .kind = SK_MAP, .sub = pmc_keys},
	K_UINT_M("buffer_size", SESS, buffer_size, 4096, 16u * 1024 * 1024, 4096),
	K_UINT("pool_buffers", SESS, pool_buffers, 0, 1u << 20),
	K_CUSTOM_X("flush_latency", apply_flush_latency, scenario_print_flush_latency, .min = 0,
		   .max = 60 * NS_PER_S),
	K_STR("file", SESS, file, 0),
	K_END,
};

static const struct sk_desc group_keys[] = {
	K_STR("name", GRP, name, 1),
	K_UINT("count", GRP, count, 0, 4096),
	K_UINT("priority", GRP, base_priority, 1, 31),
	K_ENUM("behaviour", GRP, behaviour, behaviour_names, false),
	K_DUR("period", GRP, period_ns, NS_PER_US, 60 * NS_PER_S),
	K_UINT("duty", GRP, duty_pct, 1, 100),
	K_CUSTOM_X("wait_reasons", apply_wait, scenario_print_wait, .set_key = set_wait_key),
	K_UINT("user_wait", GRP, user_wait_pct, 0, 100),
	K_CUSTOM_X("wait", apply_wait_mean, scenario_print_wait_mean, .min = NS_PER_US,
		   .max = 86400 * NS_PER_S),
	K_CUSTOM_X("burst_spread", apply_sigma, scenario_print_sigma,
		   .off = offsetof(GRP, burst_sigma)),
	K_CUSTOM_X("wait_spread", apply_sigma, scenario_print_sigma,
		   .off = offsetof(GRP, wait_sigma)),
	K_CUSTOM("affinity", apply_affinity, scenario_print_affinity),
	K_CUSTOM_X("lifetime", apply_lifetime, scenario_print_lifetime, .min = 10 * NS_PER_US,
		   .max = 86400 * NS_PER_S),
	K_CUSTOM_X("process", scenario_apply_group_process, scenario_print_group_process,
		   .off = offsetof(SC, group_x)),
	K_CUSTOM_X("thread_name", scenario_apply_thread_name, scenario_print_thread_name,
		   .off = offsetof(SC, group_x)),
	K_CUSTOM_X("hot", scenario_apply_hot, scenario_print_hot, .off = offsetof(SC, group_x)),
	K_END,
};

static const struct sk_desc lock_keys[] = {
	K_STR("name", LCK, cfg.name, 1),
	K_UINT("count", LCK, cfg.count, 1, SPIN_MAX_COUNT),
	K_BOOL("per_cpu", LCK, cfg.per_cpu),
	K_CUSTOM("taken_by", apply_taken_by, scenario_print_taken_by),
	K_UINT("rate", LCK, cfg.rate, 0, 1000000000),
	K_DUR("hold", LCK, cfg.hold_ns, 1, NS_PER_S),
	K_UINT("hold_tail", LCK, cfg.hold_tail_pct, 0, 100),
	K_DUR("hold_tail_max", LCK, cfg.hold_tail_max_ns, 0, NS_PER_S),
	K_CUSTOM_X("modes", apply_modes, scenario_print_modes, .set_key = set_mode_key),
	K_CUSTOM("nested", apply_nested, scenario_print_nested),
	/* refused with a pointer to what replaced it; never printed */
	K_CUSTOM("contention", apply_contention, NULL),
	K_END,
};

#define PROC	       struct scenario_process
#define MAX_PROCESS_NS (86400 * NS_PER_S)

static const struct sk_desc process_keys[] = {
	K_CUSTOM_X("name", scenario_apply_process_name, scenario_print_name_str,
		   .off = offsetof(PROC, name), .size = FSIZE(PROC, name)),
	K_CUSTOM_X("image", scenario_apply_process_image, scenario_print_name_str,
		   .off = offsetof(PROC, image), .size = FSIZE(PROC, image)),
	K_CUSTOM("pid", scenario_apply_process_pid, scenario_print_pid),
	K_CUSTOM("parent", scenario_apply_process_parent, scenario_print_parent),
	K_CUSTOM("session", scenario_apply_process_session, scenario_print_session),
	K_CUSTOM_X("user", scenario_apply_process_user, scenario_print_user,
		   .size = FSIZE(PROC, user)),
	K_STR("cmdline", PROC, cmdline, 0),
	K_DUR("start", PROC, start_ns, 0, MAX_PROCESS_NS),
	K_CUSTOM_X("exit", scenario_apply_process_exit, scenario_print_exit, .min = 1,
		   .max = MAX_PROCESS_NS),
	/* read into exit by scenario_finish(); printed as exit */
	K_CUSTOM_X("lifetime", scenario_apply_process_lifetime, NULL, .min = 1,
		   .max = MAX_PROCESS_NS),
	K_CUSTOM("exit_status", scenario_apply_process_exit_status, scenario_print_exit_status),
	K_CUSTOM_X("images", scenario_apply_images, scenario_print_process_images,
		   .off = offsetof(SC, images)),
	K_END,
};

static void session_init(void *root, unsigned i);
static void process_init(void *root, unsigned i);
static void group_init(void *root, unsigned i);
static void group_done(void *root, unsigned i, const struct yt_node *item);
static void lock_init(void *root, unsigned i);

static const struct sk_list sessions_list = {
	.count_off = offsetof(SC, trace.nsessions),
	.items_off = offsetof(SC, trace.sessions),
	.stride = sizeof(SESS),
	.min = 1,
	.max = SIM_MAX_SESSIONS,
	.noun = "sessions",
	.why_max = "system loggers",
	.init = session_init,
};

static const struct sk_list threads_list = {
	.count_off = offsetof(SC, sched.ngroups),
	.items_off = offsetof(SC, sched.groups),
	.stride = sizeof(GRP),
	.max = SCHED_MAX_GROUPS,
	.min = 1,
	.noun = "groups",
	.why_max = "thread groups",
	.init = group_init,
	.done = group_done,
};

static const struct sk_list processes_list = {
	.count_off = offsetof(SC, nprocesses),
	.items_off = offsetof(SC, processes),
	.stride = sizeof(PROC),
	.min = 0,
	.max = SCENARIO_MAX_PROCESSES,
	.noun = "processes",
	.why_max = "besides Idle and System",
	.init = process_init,
};

static const struct sk_list locks_list = {
	.count_off = offsetof(SC, nlocks),
	.items_off = offsetof(SC, locks),
	.stride = sizeof(LCK),
	.min = 0,
	.max = SCENARIO_MAX_LOCKS,
	.noun = "locks",
	.why_max = "lock families",
	.init = lock_init,
};

static const struct sk_desc scenario_keys[] = {
	K_UINT("seed", SC, sched.seed, 0, INT64_MAX), /* what a truth carries */
	K_DUR("duration", SC, sched.duration_ns, 1, 86400 * NS_PER_S),
	{.key = "machine", .kind = SK_MAP, .sub = machine_keys},
	{.key = "kernel", .kind = SK_MAP, .sub = kernel_keys},
	{.key = "sessions", .kind = SK_LIST, .sub = session_keys, .list = &sessions_list},
	{.key = "processes", .kind = SK_LIST, .sub = process_keys, .list = &processes_list},
	{.key = "threads", .kind = SK_LIST, .sub = group_keys, .list = &threads_list},
	{.key = "locks", .kind = SK_LIST, .sub = lock_keys, .list = &locks_list},
	K_CUSTOM_X("profile_interval", scenario_apply_profile_interval,
		   scenario_print_profile_interval, .off = offsetof(SC, ident.profile_interval)),
	K_BOOL("sysconfig", SC, ident.sysconfig),
	K_CUSTOM_X("drivers", scenario_apply_drivers, scenario_print_drivers,
		   .off = offsetof(SC, images)),
	K_END,
};

const struct sk_schema scenario_schema = {
	.keys = scenario_keys,
	.name = "scenario",
};

/* ------------------------------------------------------------------------ */
/* defaults */

static void session_init(void *root, unsigned i)
{
	struct scenario *sc = root;
	struct trace_session_cfg *s = &sc->trace.sessions[i];

	memset(s, 0, sizeof(*s));
	memset(&sc->sess_x[i], 0, sizeof(sc->sess_x[i]));
	if (i == 0) {
		sk_copy_str(s->name, sizeof(s->name), "NT Kernel Logger");
	} else {
		snprintf(s->name, sizeof(s->name), "etwforge session %u", i);
	}
	s->clock = SIM_CLOCK_QPC;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
	s->buffer_size = 65536;
}

/*
 * What a behaviour means when a group does not say: the mean run burst
 * (the wake period for periodic), and the share of UserMode waits.
 */
static const struct {
	uint64_t period_ns;
	unsigned user_wait_pct;
} behaviour_defaults[] = {
	[SCHED_CPU_BOUND] = {20 * NS_PER_MS, 50},
	[SCHED_IO_BOUND] = {200 * NS_PER_US, 20},
	[SCHED_INTERACTIVE] = {1 * NS_PER_MS, 90},
	[SCHED_PERIODIC] = {10 * NS_PER_MS, 50},
};

static void group_init(void *root, unsigned i)
{
	struct scenario *sc = root;
	struct sched_group *g = &sc->sched.groups[i];

	memset(g, 0, sizeof(*g));
	memset(&sc->group_x[i], 0, sizeof(sc->group_x[i]));
	snprintf(g->name, sizeof(g->name), "group%u", i);
	g->count = 1;
	g->base_priority = 8;
	g->behaviour = SCHED_CPU_BOUND;
	g->period_ns = behaviour_defaults[SCHED_CPU_BOUND].period_ns;
	g->duty_pct = 20;
	g->user_wait_pct = behaviour_defaults[SCHED_CPU_BOUND].user_wait_pct;
}

static void group_done(void *root, unsigned i, const struct yt_node *item)
{
	struct scenario *sc = root;
	struct sched_group *g = &sc->sched.groups[i];
	unsigned b = (unsigned)g->behaviour;

	if (b >= ARRAY_SIZE(behaviour_defaults)) {
		return;
	}
	if (!yt_map_get(item, "period")) {
		g->period_ns = behaviour_defaults[b].period_ns;
	}
	if (!yt_map_get(item, "user_wait")) {
		g->user_wait_pct = behaviour_defaults[b].user_wait_pct;
	}
}

static void process_init(void *root, unsigned i)
{
	struct scenario *sc = root;

	scenario_process_init(&sc->processes[i]);
	scenario_images_drop(&sc->images, (int)i);
}

static void lock_init(void *root, unsigned i)
{
	struct scenario *sc = root;
	struct scenario_lock *l = &sc->locks[i];

	memset(l, 0, sizeof(*l));
	snprintf(l->cfg.name, sizeof(l->cfg.name), "lock%u", i);
	l->cfg.count = 1;
	l->cfg.rate = 10000;
	l->cfg.hold_ns = 1 * NS_PER_US;
	l->cfg.hold_tail_pct = 1;
	l->cfg.mode_weight[SPIN_MODE_ORDINARY] = 1;
}

/* clang-format off */
/* the default desktop: {name, count, priority, behaviour, period, duty, user_wait, lifetime} */
static const struct {
	const char *name;
	unsigned count;
	int8_t priority;
	enum sched_behaviour behaviour;
	uint64_t period_ns;
	unsigned duty_pct;
	unsigned user_wait_pct;
	uint64_t lifetime_ns;
	struct {
		uint8_t reason;
		uint8_t weight;
	} waits[4];
} default_groups[] = {
	/* UI threads: mostly waiting for window messages, short bursts */
	{"ui", 4, 10, SCHED_INTERACTIVE, 1 * NS_PER_MS, 20, 95, 0,
	 {{13 /* WrUserRequest */, 6}, {6 /* UserRequest */, 3}, {15 /* WrQueue */, 1}}},
	/* I/O workers: short bursts between disk and network waits */
	{"io_workers", 8, 8, SCHED_IO_BOUND, 200 * NS_PER_US, 20, 10, 0,
	 {{0 /* Executive */, 5}, {15 /* WrQueue */, 3}, {2 /* PageIn */, 1},
	  {27 /* WrResource */, 1}}},
	/* an MMCSS-style audio thread: 10 ms period, 10 % duty, real-time priority */
	{"audio", 1, 24, SCHED_PERIODIC, 10 * NS_PER_MS, 10, 100, 0,
	 {{6 /* UserRequest */, 1}}},
	/* thread-pool threads that come and go */
	{"pool", 4, 8, SCHED_IO_BOUND, 500 * NS_PER_US, 20, 80, 300 * NS_PER_MS,
	 {{15 /* WrQueue */, 3}, {4 /* DelayExecution */, 1}}},
	/* background work (indexer, updates) at below-normal priority */
	{"background", 3, 6, SCHED_CPU_BOUND, 30 * NS_PER_MS, 20, 50, 0, {{0, 0}}},
};
/* clang-format on */

void scenario_default(struct scenario *sc)
{
	memset(sc, 0, sizeof(*sc));
	trace_config_defaults(&sc->trace);
	sched_cfg_defaults(&sc->sched); /* fields we do not set keep the model's defaults */

	sc->trace.nsessions = 2;
	session_init(sc, 0);
	session_init(sc, 1);
	sk_copy_str(sc->trace.sessions[1].name, sizeof(sc->trace.sessions[1].name),
		    "etwforge CSwitch");
	sc->trace.sessions[1].flags = PRODUCER_F_CSWITCH;
	sc->trace.sessions[0].flags |= PRODUCER_F_PROC_THREAD;

	sc->sched.duration_ns = 2 * NS_PER_S;
	sc->sched.seed = 1;
	sc->realism = 1;			      /* lived-in */
	sc->background = SCENARIO_BACKGROUND_DESKTOP; /* the built-in desktop has it */
	sc->sched.quantum_ns = 0;		      /* derived: 2 ticks */
	sc->sched.ngroups = (unsigned)ARRAY_SIZE(default_groups);
	for (unsigned i = 0; i < sc->sched.ngroups; i++) {
		struct sched_group *g = &sc->sched.groups[i];

		group_init(sc, i);
		sk_copy_str(g->name, sizeof(g->name), default_groups[i].name);
		g->count = default_groups[i].count;
		g->base_priority = default_groups[i].priority;
		g->behaviour = default_groups[i].behaviour;
		g->period_ns = default_groups[i].period_ns;
		g->duty_pct = default_groups[i].duty_pct;
		g->user_wait_pct = default_groups[i].user_wait_pct;
		g->lifetime_ns = default_groups[i].lifetime_ns;
		for (unsigned k = 0; k < ARRAY_SIZE(default_groups[i].waits); k++) {
			g->wait_weights[default_groups[i].waits[k].reason] +=
				default_groups[i].waits[k].weight;
		}
	}
	scenario_processes_default(sc->processes, &sc->nprocesses, &sc->sched, sc->group_x);
	ident_cfg_defaults(&sc->ident);
	sc->ident.computer_name = NULL; /* the string lives in sc->computer_name */
	sc->ident.sysconfig = true;
	sk_copy_str(sc->computer_name, sizeof(sc->computer_name), "ETWFORGE");
	sc->nlocks = 0;
	sk_copy_str(sc->source, sizeof(sc->source), "(default)");
}

struct scenario_procs scenario_procs_of(struct scenario *sc)
{
	return (struct scenario_procs){
		.nprocesses = sc->nprocesses,
		.processes = sc->processes,
		.group_x = sc->group_x,
		.sched = &sc->sched,
		.trace = &sc->trace,
		.ident = &sc->ident,
		.computer_name = sc->computer_name,
		.where = &sc->where,
		.source = sc->source,
	};
}

void scenario_ident_cfg(const struct scenario *sc, struct ident_cfg *out)
{
	/* the view only reads through its pointers here */
	struct scenario_procs v = scenario_procs_of((struct scenario *)sc);

	scenario_procs_ident_cfg(&v, out);
	out->modules = sc->modules.nimages ? &sc->modules : NULL;
}

/* The names of the images of address space @pi (a process's, and the kernel's), for a did-you-mean. */
static unsigned image_names(const struct mod_cfg *m, uint32_t pi, const char **out, unsigned cap)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < m->nimages && n < cap; i++) {
		if (m->images[i].kernel || m->images[i].process == pi) {
			out[n++] = m->images[i].name;
		}
	}
	return n;
}

/* Group @g's hot functions ("image!function"), found in its process @pi's images or the kernel's. */
static int finish_hot(struct scenario *sc, unsigned g, uint32_t pi, struct etwforge_error *err)
{
	const struct scenario_group_x *x = &sc->group_x[g];
	struct mod_cfg *m = &sc->modules;
	static const char *names[MOD_MAX_IMAGES];
	char key[SK_PATH_MAX];

	for (unsigned k = 0; k < x->nhot; k++) {
		char img[SCENARIO_HOT_FN_MAX];
		const char *fn = strchr(x->hot[k].fn, '!') + 1;
		int im, f, cut;

		snprintf(img, sizeof(img), "%.*s", (int)(fn - 1 - x->hot[k].fn), x->hot[k].fn);
		/* a long name is cut, as the remembered paths are (SK_PATH_MAX) */
		cut = snprintf(key, sizeof(key), "threads.%u.hot.%s", g, x->hot[k].fn);
		(void)cut;
		im = mod_find_image(m, pi, false, img);
		if (im < 0) {
			im = mod_find_image(m, pi, true, img);
		}
		if (im < 0) {
			unsigned n = image_names(m, pi, names, MOD_MAX_IMAGES);
			const char *near = suggest_name(img, names, n);

			return sk_fail_key(
				&sc->where, sc->source, err, key,
				"no image \"%s\" in the group's process or the kernel%s%s%s", img,
				near ? " (did you mean \"" : "", near ? near : "",
				near ? "\"?)" : "");
		}
		f = mod_find_function(m, (uint32_t)im, fn);
		if (f < 0) {
			const struct mod_image *mi = &m->images[im];
			static char bufs[64][24];
			unsigned n = 0;

			for (uint32_t j = 0; j < mi->nfn && n < 64; j++) {
				names[n] = mod_function_name(&m->functions[mi->first_fn + j],
							     bufs[n], sizeof(bufs[n]));
				n++;
			}
			{
				const char *near = suggest_name(fn, names, n);

				return sk_fail_key(&sc->where, sc->source, err, key,
						   "no function \"%s\" in %s%s%s%s", fn, mi->name,
						   near ? " (did you mean \"" : "",
						   near ? near : "", near ? "\"?)" : "");
			}
		}
		if (mod_add_hot(m, g, (uint32_t)f, x->hot[k].weight) < 0) {
			return sk_fail_key(&sc->where, sc->source, err, key,
					   "too many hot functions (%d at most)", MOD_MAX_HOT);
		}
	}
	return 0;
}

/*
 * The address spaces (scheduler_model/modules.h): the images and functions
 * of every process and of the kernel, bases from the seed, and each
 * group's hot functions.
 */
static int finish_modules(struct scenario *sc, struct etwforge_error *err)
{
	struct ident_cfg ic;
	struct mod_process procs[IDENT_MAX_PROCESSES];
	struct mod_problem p;
	struct scenario_procs v = scenario_procs_of(sc);
	struct mod_space sp;
	unsigned kept[SCENARIO_MAX_IMAGES], nkept = 0;

	scenario_procs_ident_cfg(&v, &ic);
	for (unsigned i = 0; i < ic.nprocesses; i++) {
		procs[i] = (struct mod_process){ic.processes[i].image, ic.processes[i].pid,
						ic.processes[i].cmdline};
	}
	sp = (struct mod_space){ic.nprocesses, procs, ic.group_process, &sc->sched};
	mod_cfg_init(&sc->modules, sc->trace.arch == ETL_ARCH_X64, sc->sched.seed);
	sc->modules.common_dlls = sc->realism != 0;
	if (scenario_images_check(&sc->images, sc->nprocesses, &sc->where, sc->source, err)) {
		return -EINVAL;
	}
	if (scenario_images_add(&sc->images, sc->nprocesses, &sc->modules, kept, &nkept) < 0) {
		sc->modules.nimages = 0;
		return sk_fail_key(&sc->where, sc->source, err, "processes",
				   "images: too many functions (%d at most)", MOD_MAX_FUNCTIONS);
	}
	if (mod_cfg_finish(&sc->modules, &sp, &p) < 0) {
		int rc = scenario_images_problem(&sc->images, &sc->modules, kept, nkept, &p,
						 &sc->where, sc->source, err);

		sc->modules.nimages = 0;
		return rc;
	}
	for (unsigned g = 0; g < sc->sched.ngroups; g++) {
		int rc = finish_hot(sc, g, ic.group_process[g], err);

		if (rc) {
			sc->modules.nimages = 0;
			return rc;
		}
	}
	if (mod_cfg_default_hot(&sc->modules, &sp) < 0) {
		sc->modules.nimages = 0;
		return sk_fail_key(&sc->where, sc->source, err, "threads",
				   "too many hot functions (%d at most)", MOD_MAX_HOT);
	}
	return 0;
}

/* FILETIMEs: 2019-01-01 and seven years on, in 100 ns units */
#define LIVED_START_MIN	 131907744000000000LL
#define LIVED_START_SPAN (7LL * 365 * 86400 * 10000000)
#define LIVED_UPTIME_MIN (600LL * 10000000)	   /* ten minutes */
#define LIVED_UPTIME_AVG (3LL * 86400 * 10000000)  /* three days on average */
#define LIVED_UPTIME_MAX (60LL * 86400 * 10000000) /* two months at most */

/*
 * A lived-in machine's start and boot time when the scenario gives neither:
 * any 100 ns of 2019..2025 and an uptime of ten minutes to two months,
 * drawn from the seed (a real trace's clocks are never round numbers).
 */
static void lived_in_times(const struct scenario *sc, int64_t *start, int64_t *boot)
{
	struct sim_rng r;
	uint64_t up;

	sim_rng_init(&r, sc->sched.seed, SIM_RNG_IDENT, 2);
	*start = LIVED_START_MIN + (int64_t)sim_rng_below(&r, (uint64_t)LIVED_START_SPAN);
	up = (uint64_t)LIVED_UPTIME_MIN + sim_rng_exp(&r, (uint64_t)LIVED_UPTIME_AVG);
	up = up < (uint64_t)LIVED_UPTIME_MAX ? up : (uint64_t)LIVED_UPTIME_MAX;
	*boot = *start - (int64_t)up;
}

int64_t scenario_effective_start_time(const struct scenario *sc)
{
	int64_t start, boot;

	if (sc->start_time_set || sc->boot_time_set || !sc->realism) {
		return sc->trace.start_time;
	}
	lived_in_times(sc, &start, &boot);
	return start;
}

int64_t scenario_effective_boot_time(const struct scenario *sc)
{
	if (sc->boot_time_set) {
		return sc->trace.boot_time;
	}
	if (!sc->start_time_set && sc->realism) {
		int64_t start, boot;

		lived_in_times(sc, &start, &boot);
		return boot;
	}
	return sc->trace.start_time > SCENARIO_DEFAULT_UPTIME
		       ? sc->trace.start_time - SCENARIO_DEFAULT_UPTIME
		       : 0;
}

uint64_t scenario_effective_quantum(const struct scenario *sc)
{
	/* two clock ticks: timer_resolution is in 100 ns units */
	return sc->quantum_set ? sc->sched.quantum_ns : 2ull * sc->trace.timer_resolution * 100u;
}

/* ------------------------------------------------------------------------ */
/* loading */

static int load_text(struct scenario *sc, const char *name, const char *text, size_t len,
		     struct etwforge_error *err)
{
	if (len > SCENARIO_MAX_FILE) {
		return error_fail_at(err, -EFBIG, ERR_INPUT,
				     "%s: larger than %u MiB: not a scenario", name,
				     SCENARIO_MAX_FILE >> 20);
	}
	sk_copy_str(sc->source, sizeof(sc->source), name);
	return sk_load(&scenario_schema, sc, &sc->where, name, text, len, err);
}

int scenario_load_string(struct scenario *sc, const char *name, const char *text,
			 struct etwforge_error *err)
{
	return load_text(sc, name, text, strlen(text), err);
}

int scenario_load_file(struct scenario *sc, const char *path, struct etwforge_error *err)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : input_open(path, err);
	char *buf = NULL;
	size_t len = 0;
	size_t cap = 0;
	int rc;

	if (!f) {
		return error_reclass(err, -EIO, ERR_INPUT);
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			char *nb;

			if (cap >= SCENARIO_MAX_FILE) {
				error_fail_at(err, -EFBIG, ERR_INPUT,
					      "%s: larger than %u MiB: not a scenario", path,
					      SCENARIO_MAX_FILE >> 20);
				free(buf);
				if (!in) {
					fclose(f);
				}
				return -EFBIG;
			}
			cap = cap ? 2 * cap : 8192;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				error_fail_at(err, -ENOMEM, ERR_INPUT, "%s: out of memory", path);
				free(buf);
				if (!in) {
					fclose(f);
				}
				return -ENOMEM;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			break;
		}
	}
	if (ferror(f)) {
		error_fail_at(err, -EIO, ERR_INPUT, "%s: cannot read: %s", in ? "<stdin>" : path,
			      strerror(errno));
		free(buf);
		if (!in) {
			fclose(f);
		}
		return -EIO;
	}
	if (!in) {
		fclose(f);
	}
	buf[len] = '\0';
	rc = load_text(sc, in ? "<stdin>" : path, buf, len, err);
	free(buf);
	if (rc == 0 && sc->nfiles < SCENARIO_MAX_FILES) {
		sk_copy_str(sc->files[sc->nfiles++], sizeof(sc->files[0]), path);
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* --set key.path=value */

int scenario_set(struct scenario *sc, const char *assignment, struct etwforge_error *err)
{
	return sk_set(&scenario_schema, sc, &sc->where, assignment, err);
}

/* ------------------------------------------------------------------------ */
/* scenario_finish */

/* Does @path name a character device (which several outputs may share)? */
static bool is_char_device(const char *path)
{
	struct stat st = {0};

	return stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

/* @ns in clock @c's units (exact integer arithmetic, rounded down). */
static uint64_t ns_to_clock(const struct trace_config *t, enum sim_clock c, uint64_t ns)
{
	switch (c) {
	case SIM_CLOCK_QPC:
		return ns / NS_PER_S * t->perf_freq + ns % NS_PER_S * t->perf_freq / NS_PER_S;
	case SIM_CLOCK_CYCLES:
		return ns / NS_PER_S * t->cpu_mhz * 1000000u + ns % NS_PER_S * t->cpu_mhz / 1000u;
	default:
		return ns / 100u;
	}
}

static int finish_sessions(struct scenario *sc, struct etwforge_error *err)
{
	struct trace_config *t = &sc->trace;
	char path[SK_PATH_MAX];

	t->ncounters = 0;
	memset(t->counters, 0, sizeof(t->counters));
	for (unsigned i = 0; i < t->nsessions; i++) {
		struct trace_session_cfg *s = &t->sessions[i];
		const struct scenario_session_x *x = &sc->sess_x[i];

		if ((s->flags & PRODUCER_F_COMPACT) && !(s->flags & PRODUCER_F_CSWITCH)) {
			snprintf(path, sizeof(path), "sessions.%u.flags", i);
			return sk_fail_key(&sc->where, sc->source, err, path,
					   "compact_cswitch needs cswitch too (the kernel logs "
					   "compact batches only with both group masks)");
		}
		for (unsigned k = 0; k < TRACE_NSTACKS; k++) {
			static const unsigned logs[TRACE_NSTACKS] = {
				PRODUCER_F_PROFILE, PRODUCER_F_CSWITCH, PRODUCER_F_DISPATCHER};
			static const char *const flag[TRACE_NSTACKS] = {"profile", "cswitch",
									"dispatcher"};

			if ((s->flags & trace_stack_bits[k]) && !(s->flags & logs[k])) {
				snprintf(path, sizeof(path), "sessions.%u.stacks", i);
				return sk_fail_key(&sc->where, sc->source, err, path,
						   "%s: the session does not log the event (its "
						   "flags have no %s)",
						   trace_stack_names[k], flag[k]);
			}
		}
		if (s->stack_cache && !(s->flags & PRODUCER_F_STACKS)) {
			snprintf(path, sizeof(path), "sessions.%u.stack_cache", i);
			return sk_fail_key(&sc->where, sc->source, err, path,
					   "the session logs no stack to cache (its stacks list is "
					   "empty)");
		}
		if (s->merged && !(s->flags & PRODUCER_F_LOADER)) {
			snprintf(path, sizeof(path), "sessions.%u.merged", i);
			return sk_fail_key(&sc->where, sc->source, err, path,
					   "the session logs no image to identify (its flags have "
					   "no loader)");
		}
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(s->name, t->sessions[j].name)) {
				snprintf(path, sizeof(path), "sessions.%u.name", i);
				return sk_fail_key(&sc->where, sc->source, err, path,
						   "\"%s\" is also the name of sessions.%u",
						   s->name, j);
			}
			/* a character device such as /dev/null may take several sessions,
			 * as the output rules allow (run/out_file.c decides the rest) */
			if (s->file[0] && !strcmp(s->file, t->sessions[j].file) &&
			    !is_char_device(s->file)) {
				snprintf(path, sizeof(path), "sessions.%u.file", i);
				return sk_fail_key(&sc->where, sc->source, err, path,
						   "\"%s\" is also the file of sessions.%u",
						   s->file, j);
			}
		}
		if (s->pmc_count > pmc_max_per_session(t->target->build)) {
			snprintf(path, sizeof(path), "sessions.%u.pmc.counters", i);
			return sk_fail_key(
				&sc->where, sc->source, err, path,
				"%u PMC counters, but %s (build %u) allows at most %u per "
				"session (%u from Windows 10 1703, build %u)",
				s->pmc_count, t->target->name, t->target->build,
				pmc_max_per_session(t->target->build),
				pmc_max_per_session(PMC_WIDE_BUILD), PMC_WIDE_BUILD);
		}
		for (unsigned j = 0; j < s->pmc_count; j++) {
			int id = trace_config_counter_id(t, x->counters[j]);

			if (id < 0) {
				snprintf(path, sizeof(path), "sessions.%u.pmc.counters", i);
				return sk_fail_key(&sc->where, sc->source, err, path,
						   "\"%s\" is one more than the %d distinct PMC "
						   "counters the machine has",
						   x->counters[j], SIM_MAX_COUNTERS);
			}
			s->pmc_counters[j] = (uint8_t)id;
		}
		s->flush_latency = ns_to_clock(t, s->clock, x->flush_latency_ns);
	}
	return 0;
}

static int finish_groups(struct scenario *sc, struct etwforge_error *err)
{
	const struct sched_cfg *s = &sc->sched;
	const struct trace_config *t = &sc->trace;
	char path[SK_PATH_MAX];
	uint64_t threads = 0;

	for (unsigned g = 0; g < s->ngroups; g++) {
		threads += s->groups[g].count;
	}
	if (threads == 0) {
		return sk_fail_key(&sc->where, sc->source, err, "threads",
				   "every group has count 0: the machine needs a thread");
	}

	for (unsigned g = 0; g < s->ngroups; g++) {
		const struct sched_group *gr = &s->groups[g];

		for (unsigned c = t->cpus; c < SCHED_MAX_CPUS; c++) {
			if (gr->affinity[c / 64] >> (c % 64) & 1) {
				snprintf(path, sizeof(path), "threads.%u.affinity", g);
				return sk_fail_key(&sc->where, sc->source, err, path,
						   "CPU %u is not below machine.cpus (%u)", c,
						   t->cpus);
			}
		}
		for (unsigned r = t->max_wait_reason; r < SCHED_WAIT_REASONS; r++) {
			if (gr->wait_weights[r]) {
				char rk[24];

				reason_key(rk, sizeof(rk), r);
				snprintf(path, sizeof(path), "threads.%u.wait_reasons.%s", g, rk);
				return sk_fail_key(&sc->where, sc->source, err, path,
						   "wait reason %u is not below %s's "
						   "MaximumWaitReason (%u)",
						   r, t->target->name,
						   (unsigned)t->max_wait_reason);
			}
		}
	}
	return 0;
}

/*
 * The locks of a session that logs spin locks when the scenario names none:
 * kernel, cache manager, network and storage locks of a desktop, with a
 * nested pair, DPC and ISR takers and an executive lock (README "Spin locks").
 */
static const struct {
	const char *name;
	unsigned count;
	bool per_cpu;
	const char *taker; /* NULL: every thread group */
	uint64_t rate;
	uint64_t hold_ns;
	uint32_t modes[SPIN_MODES];
	const char *nested;
} default_locks[] = {
	{"nt!PfnLock", 1, false, NULL, 20000, 800, {0, 1, 0, 0, 0}, NULL},
	{"nt!CcMasterSpinLock", 1, false, NULL, 5000, 1500, {0, 1, 0, 0, 0}, "nt!CcVacbSpinLock"},
	{"nt!CcVacbSpinLock", 1, false, NULL, 0, 300, {0, 1, 0, 0, 0}, NULL},
	{"ndis!MiniportLock", 4, true, "dpc", 40000, 600, {1, 0, 0, 0, 0}, NULL},
	{"fltmgr!InstanceListLock", 1, false, NULL, 10000, 500, {0, 0, 80, 15, 5}, NULL},
	{"storport!InterruptLock", 2, false, "isr", 8000, 400, {1, 0, 0, 0, 0}, NULL},
};

static void install_default_locks(struct scenario *sc)
{
	sc->nlocks = ARRAY_SIZE(default_locks);
	for (unsigned i = 0; i < sc->nlocks; i++) {
		struct scenario_lock *l = &sc->locks[i];

		lock_init(sc, i);
		sk_copy_str(l->cfg.name, sizeof(l->cfg.name), default_locks[i].name);
		l->cfg.count = default_locks[i].count;
		l->cfg.per_cpu = default_locks[i].per_cpu;
		l->cfg.rate = default_locks[i].rate;
		l->cfg.hold_ns = default_locks[i].hold_ns;
		memcpy(l->cfg.mode_weight, default_locks[i].modes, sizeof(l->cfg.mode_weight));
		if (default_locks[i].taker) {
			l->ntaken_by = 1;
			sk_copy_str(l->taken_by[0], sizeof(l->taken_by[0]), default_locks[i].taker);
		}
		if (default_locks[i].nested) {
			l->nnested = 1;
			sk_copy_str(l->nested[0], sizeof(l->nested[0]), default_locks[i].nested);
		}
	}
}

/* "a, b, c" of the thread groups' names (for messages) */
static void group_names(const struct sched_cfg *s, char *buf, size_t len)
{
	const char *names[SCHED_MAX_GROUPS];

	for (unsigned g = 0; g < s->ngroups; g++) {
		names[g] = s->groups[g].name;
	}
	join_names(buf, len, names, s->ngroups);
}

/* Resolve lock @i's takers into @m->locks[@i]. */
static int finish_takers(struct scenario *sc, unsigned i, struct etwforge_error *err)
{
	const struct scenario_lock *l = &sc->locks[i];
	struct spin_lock_cfg *c = &sc->lock_model.locks[i];
	const struct sched_cfg *s = &sc->sched;
	char path[SK_PATH_MAX];

	if (l->ntaken_by == 0) {
		c->groups = s->ngroups >= 64 ? UINT64_MAX : (UINT64_C(1) << s->ngroups) - 1u;
		return 0;
	}
	for (unsigned j = 0; j < l->ntaken_by; j++) {
		const char *name = l->taken_by[j];
		const char *cands[SCHED_MAX_GROUPS + 2];
		uint64_t bits = 0;
		const char *near;
		char list[512];

		if (!strcmp(name, "dpc")) {
			c->by_dpc = true;
			continue;
		}
		if (!strcmp(name, "isr")) {
			c->by_isr = true;
			continue;
		}
		for (unsigned g = 0; g < s->ngroups; g++) {
			if (!strcmp(s->groups[g].name, name)) {
				bits |= UINT64_C(1) << g;
			}
		}
		if (bits) {
			c->groups |= bits;
			continue;
		}
		cands[0] = "dpc";
		cands[1] = "isr";
		for (unsigned g = 0; g < s->ngroups; g++) {
			cands[g + 2] = s->groups[g].name;
		}
		near = suggest_name(name, cands, s->ngroups + 2u);
		group_names(s, list, sizeof(list));
		snprintf(path, sizeof(path), "locks.%u.taken_by.%u", i, j);
		if (near) {
			return sk_fail_key(&sc->where, sc->source, err, path,
					   "unknown taker \"%s\" (did you mean \"%s\"?)", name,
					   near);
		}
		return sk_fail_key(&sc->where, sc->source, err, path,
				   "unknown taker \"%s\": dpc, isr, or a thread group (%s)", name,
				   list);
	}
	return 0;
}

/* Resolve lock @i's nested names into @m->locks[@i]. */
static int finish_nested(struct scenario *sc, unsigned i, struct etwforge_error *err)
{
	const struct scenario_lock *l = &sc->locks[i];
	struct spin_lock_cfg *c = &sc->lock_model.locks[i];
	char path[SK_PATH_MAX];

	for (unsigned j = 0; j < l->nnested; j++) {
		const char *cands[SCENARIO_MAX_LOCKS];
		const char *near;
		unsigned k = 0;

		while (k < sc->nlocks && strcmp(sc->locks[k].cfg.name, l->nested[j])) {
			k++;
		}
		if (k < sc->nlocks) {
			c->nested[c->nnested++] = (uint16_t)k;
			continue;
		}
		for (unsigned x = 0; x < sc->nlocks; x++) {
			cands[x] = x == i ? NULL : sc->locks[x].cfg.name; /* not itself */
		}
		near = suggest_name(l->nested[j], cands, sc->nlocks);
		snprintf(path, sizeof(path), "locks.%u.nested.%u", i, j);
		return sk_fail_key(&sc->where, sc->source, err, path,
				   "no lock is named \"%s\"%s%s%s", l->nested[j],
				   near ? " (did you mean \"" : "", near ? near : "",
				   near ? "\"?)" : "");
	}
	return 0;
}

/*
 * The spin-lock subsystem: a default set of locks for a session that logs
 * them when the scenario names none, names resolved, the model's checks.
 */
static int finish_locks(struct scenario *sc, struct etwforge_error *err)
{
	const struct trace_config *t = &sc->trace;
	struct spin_cfg *m = &sc->lock_model;
	char path[SK_PATH_MAX];
	const char *why;
	int lock, rc;

	memset(m, 0, sizeof(*m));
	for (unsigned i = 0; i < t->nsessions; i++) {
		const struct trace_session_cfg *s = &t->sessions[i];

		if (s->flags & PRODUCER_F_SPINLOCK) {
			m->instrumented = true;
			m->counters =
				m->counters ||
				(s->pmc_count &&
				 producer_stamps(s->flags, s->pebs, s->pmc_events,
						 s->pmc_event_count, t->pebs_and_pmc, 0x0529));
		}
	}
	if (sc->nlocks == 0 && m->instrumented && !sk_where_has(&sc->where, "locks")) {
		install_default_locks(sc);
	}
	m->nlocks = sc->nlocks;
	m->sampling = t->spin;
	m->x86 = t->arch == ETL_ARCH_X86;
	for (unsigned i = 0; i < sc->nlocks; i++) {
		for (unsigned k = 0; k < i; k++) {
			if (!strcmp(sc->locks[k].cfg.name, sc->locks[i].cfg.name)) {
				snprintf(path, sizeof(path), "locks.%u.name", i);
				return sk_fail_key(&sc->where, sc->source, err, path,
						   "\"%s\" is also the name of locks.%u",
						   sc->locks[i].cfg.name, k);
			}
		}
		m->locks[i] = sc->locks[i].cfg;
		m->locks[i].nnested = 0;
		m->locks[i].groups = 0;
		m->locks[i].by_dpc = m->locks[i].by_isr = false;
		rc = finish_takers(sc, i, err);
		if (rc == 0) {
			rc = finish_nested(sc, i, err);
		}
		if (rc) {
			return rc;
		}
	}
	if (spin_cfg_check(m, sc->sched.ngroups, &why, &lock) < 0) {
		if (lock < 0) {
			return sk_fail_key(&sc->where, sc->source, err, "kernel.spinlock", "%s",
					   why);
		}
		/* the messages start with the key they are about: point there */
		static const char *const keys[] = {"count", "rate",  "hold_tail_max", "hold_tail",
						   "hold",  "modes", "taken_by",      "nested"};
		size_t klen = strcspn(why, " ");
		const char *key = NULL;

		for (unsigned k = 0; k < ARRAY_SIZE(keys); k++) {
			if (strlen(keys[k]) == klen && !strncmp(why, keys[k], klen)) {
				key = keys[k];
			}
		}
		if (key) {
			snprintf(path, sizeof(path), "locks.%d.%s", lock, key);
			why += klen + 1; /* the path names the key */
		} else {
			snprintf(path, sizeof(path), "locks.%d", lock);
		}
		return sk_fail_key(&sc->where, sc->source, err, path, "%s", why);
	}
	return 0;
}

/*
 * The core's check failed: point at the key to blame. The clock range
 * messages start with the field they are about; the end of the run depends
 * on several keys, so the first of them the scenario set is blamed (what
 * the user typed), else the first. Group fields are "groups[]...".
 */
static int fail_sched_check(const struct scenario *sc, const char *why, struct etwforge_error *err)
{
	static const struct {
		const char *field;   /* as the core's message starts */
		const char *keys[4]; /* the scenario keys that move it, most direct first */
	} range[] = {
		{"boot_time", {"machine.boot_time", "machine.start_time", "duration"}},
		{"start_time", {"machine.start_time", "duration"}},
		{"duration_ns", {"duration", "machine.boot_time", "machine.start_time"}},
		{"perf_freq",
		 {"machine.perf_freq", "machine.boot_time", "machine.start_time", "duration"}},
		{"cpu_mhz",
		 {"machine.cpu_mhz", "machine.boot_time", "machine.start_time", "duration"}},
	};
	size_t flen = strcspn(why, ":");

	for (unsigned i = 0; i < ARRAY_SIZE(range); i++) {
		const char *key = range[i].keys[0];

		if (why[flen] != ':' || strlen(range[i].field) != flen ||
		    strncmp(why, range[i].field, flen)) {
			continue;
		}
		for (unsigned k = ARRAY_SIZE(range[i].keys); k-- > 0;) {
			if (range[i].keys[k] && sk_where_has(&sc->where, range[i].keys[k])) {
				key = range[i].keys[k];
			}
		}
		return sk_fail_key(&sc->where, sc->source, err, key,
				   "%s, the largest integer a truth stream carries",
				   why + flen + 2);
	}
	return sk_fail_key(&sc->where, sc->source, err,
			   strncmp(why, "groups", 6) ? "machine" : "threads", "%s", why);
}

int scenario_finish(struct scenario *sc, struct etwforge_error *err)
{
	struct trace_config *t = &sc->trace;
	struct sched_cfg *s = &sc->sched;
	const char *why = NULL;
	int rc;

	t->max_wait_reason = t->target->max_wait_reason;
	if (!sk_where_has(&sc->where, "machine.background") &&
	    (sk_where_has(&sc->where, "threads") || sk_where_has(&sc->where, "processes"))) {
		/* a scenario that lists its own threads or processes describes its machine:
		 * Windows' own processes only when it says so */
		sc->background = SCENARIO_BACKGROUND_NONE;
	}
	if (sc->realism) {
		const struct scenario_bg bg = {
			.kind = sc->background,
			.seed = sc->sched.seed,
			.nprocesses = &sc->nprocesses,
			.processes = sc->processes,
			.sched = &sc->sched,
			.group_x = sc->group_x,
		};

		scenario_background_add(&bg);
	}
	t->start_time = scenario_effective_start_time(sc);
	t->boot_time = scenario_effective_boot_time(sc);
	if (t->boot_time > t->start_time) {
		return sk_fail_key(&sc->where, sc->source, err, "machine.boot_time",
				   "%" PRId64 " is after machine.start_time (%" PRId64 ")",
				   t->boot_time, t->start_time);
	}
	s->quantum_ns = scenario_effective_quantum(sc);
	rc = finish_sessions(sc, err);
	if (rc == 0) {
		rc = finish_groups(sc, err);
	}
	if (rc == 0) {
		rc = finish_locks(sc, err);
	}
	if (rc == 0) {
		struct scenario_procs v = scenario_procs_of(sc);

		rc = scenario_procs_finish(&v, err);
	}
	if (rc == 0) {
		rc = finish_modules(sc, err);
	}
	if (rc) {
		return rc;
	}
	t->seed = s->seed;
	s->cpus = t->cpus;
	s->cpu_mhz = t->cpu_mhz;
	s->perf_freq = t->perf_freq;
	s->timer_resolution = t->timer_resolution;
	s->start_time = t->start_time;
	s->boot_time = t->boot_time;
	s->max_wait_reason = t->max_wait_reason;
	s->lived_in = sc->realism != 0;
	s->ntaken = 0;
	for (unsigned i = 0; i < sc->ident.nprocesses && s->ntaken + 2u <= SCHED_MAX_TAKEN_IDS;
	     i++) {
		/* a TID never takes a process's ID, nor that of its parent (simulated or not) */
		const struct ident_process *p = &sc->ident.processes[i];

		s->taken_ids[s->ntaken++] = p->pid;
		s->taken_ids[s->ntaken++] = p->ppid;
	}
	s->pebs = false;
	for (unsigned c = 0; c < SIM_CLOCK_SLOTS; c++) {
		s->clocks[c] = c != 0 && trace_config_clock_used(t, (enum sim_clock)c);
	}
	for (unsigned i = 0; i < t->nsessions; i++) {
		s->pebs = s->pebs || t->sessions[i].pebs;
	}
	s->ncounters = t->ncounters;
	memset(s->counter_source, 0, sizeof(s->counter_source));
	for (unsigned k = 0; k < t->ncounters; k++) {
		/* checked at load already; 0 would silently count the id's default */
		s->counter_source[k] = (uint8_t)pmc_source_find(t->counters[k]);
		if (!s->counter_source[k]) {
			return sk_fail_key(&sc->where, sc->source, err, "sessions",
					   "unknown PMC source \"%s\"", t->counters[k]);
		}
	}
	if (trace_config_check(t, &why)) {
		return sk_fail_key(&sc->where, sc->source, err, "sessions", "%s", why);
	}
	if (sched_cfg_check(s, &why)) {
		return fail_sched_check(sc, why, err);
	}
	return 0;
}
