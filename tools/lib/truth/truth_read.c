/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_read.c - reading the truth / replay stream declared in
 * tools/lib/truth.h (truth_write.c writes it) one line at a time, from a
 * buffer filled in large blocks, so memory stays bounded by the buffer
 * and the longest line.
 *
 * Two parsers: a record line goes first to the fast path (truth_fast.c, a
 * single pass made for the schema), which accepts what it can read with
 * certainty; everything else - the meta line, and any record line it
 * declines, a bad one included - is read with jansson below, so every
 * error keeps its message. Both end in the same history checks.
 *
 *   truth_open:  line 1 -> trace_config (defaults, then the line's keys,
 *                then trace_config_check)
 *   truth_next:  line N -> one struct truth_record, checked for presence,
 *                type and range of every field, and against the history of
 *                its CPU (tick and every clock in use never go backwards)
 *
 * Choices where DESIGN.md is silent (documented in tools/lib/truth.h):
 *  - Empty or whitespace-only lines are accepted only at the end of the
 *    stream (editors add them); one followed by another record is an error
 *    at the blank line. A UTF-8 byte order mark before the meta line and a
 *    CR before each LF are accepted.
 *  - "pmc" is read for the sessions that stamp the event, by the same rule
 *    the writer uses (truth_schema.c); entries of other sessions are
 *    ignored, a name that is no session's is an error.
 *  - A field the line's kind does not have is an error with a did-you-mean
 *    (a typo must not turn into a default); a writer's own fields start
 *    with "x_" and are skipped, at any level.
 *  - jansson integers are signed 64-bit: unsigned fields read back only up
 *    to 2^63-1. The fast path keeps that limit (it could read 2^64-1, but
 *    the error for a value above 2^63-1, with its column, and the ranges
 *    in the messages, "0..9223372036854775807", would change).
 */
#include "tools/lib/truth/truth.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tools/lib/common/input_file.h"
#include "tools/lib/common/one_line.h"
#include "tools/lib/common/suggest.h"
#include "tools/lib/truth/truth_fast.h"
#include "tools/lib/truth/truth_schema.h"

#define READ_BLOCK	  (1u << 20) /* bytes asked of the stream at a time */
#define KTHREAD_STATE_MAX 10	     /* MaximumThreadState (KERNEL_FACTS 5.3, KTHREAD_STATE) */
#define KTHREAD_WAITING	  5	     /* Waiting: OldThreadStateWr holds the wait reason */
#define WAIT_REASON_MAX	  63	     /* OldThreadStateWr is 6 bits */
#define PRIORITY_MAX	  31
#define QOS_MAX		  7
#define IRQL_MAX	  31
#define SPIN_MODE_MAX	  0x3F /* AcquireMode bits (etw_encode_spinlock) */
#define CPUS_MAX	  1024 /* producer_cfg.cpus */
#define JSON_INT_MAX	  INT64_MAX

/* What each CPU's last record said (line 0: none yet). */
struct cpu_hist {
	uint32_t tick;
	uint64_t ts[SIM_CLOCK_SLOTS];
	unsigned long line;
};

/* The largest value seen so far of a tick or clock, and where. */
struct high_mark {
	uint64_t v;
	unsigned cpu;
	unsigned long line; /* 0: nothing seen */
};

struct truth_reader {
	FILE *f;
	bool own_f;
	char *path;
	char *buf; /* [cap + 1]: bytes read, a NUL after the line being parsed */
	size_t cap;
	size_t pos; /* the unparsed bytes are buf[pos..len) */
	size_t len;
	bool eof;      /* the stream has no more bytes */
	bool read_err; /* the stream failed (errno in read_errno) */
	int read_errno;
	uint64_t base;	 /* the stream offset of buf[0] */
	uint64_t nul_at; /* a NUL byte's stream offset + 1 (0: none seen): binary data */
	bool no_fast;	 /* every line with jansson (truth_reader_fast) */
	struct truth_fast fast;
	unsigned long line;	  /* lines read so far */
	unsigned long blank_line; /* first of a run of blank lines, 0 if none */
	unsigned long end_line;	  /* the "end" record's line, 0 if none yet */
	bool done;		  /* EOF (and the synthesized end) delivered */
	struct trace_config cfg;
	bool used[SIM_CLOCK_SLOTS];
	unsigned ncs, cs_sess[SIM_MAX_SESSIONS]; /* sessions stamping switches */
	unsigned nsl, sl_sess[SIM_MAX_SESSIONS]; /* sessions stamping spin locks */
	struct high_mark max_tick;
	struct high_mark max_ts[SIM_CLOCK_SLOTS];
	struct cpu_hist *hist; /* [cfg.cpus] */
	char name[64];	       /* the last spinlock line's "name" (sl->name points here) */
};

/* Where the line being decoded came from, and where its error goes. */
struct rd {
	const char *path;
	unsigned long line;
	char *err;
	size_t errlen;
};

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

PRINTF_LIKE(2, 3)
static int fail(const struct rd *d, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!d->err || d->errlen == 0) {
		return -EINVAL;
	}
	n = snprintf(d->err, d->errlen, "%s:%lu: ", d->path, d->line);
	if (n >= 0 && (size_t)n < d->errlen) {
		va_start(ap, fmt);
		vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	one_line(d->err, d->errlen);
	return -EINVAL;
}

#define NFIELDS(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* The fields each object of the stream may have (besides "x_..."). */
static const char *const meta_fields[] = {
	"kind",	    "format",	 "version",	     "target",		"arch",	      "cpus",
	"cpu_mhz",  "perf_freq", "timer_resolution", "max_wait_reason", "start_time", "boot_time",
	"quirks",   "seed",	 "flush_at_end",     "pebs_and_pmc",	"spinlock",   "sessions",
	"start_ts", "groups",
};
static const char *const session_fields[] = {
	"name",	       "clock",	       "flags",		"pebs",	      "pmc",
	"buffer_size", "pool_buffers", "flush_latency", "compressed", "file",
};
static const char *const session_pmc_fields[] = {"counters", "events"};
static const char *const spinlock_cfg_fields[] = {
	"spin_threshold", "acquire_sample_rate", "contention_sample_rate", "hold_threshold", "rows",
};
static const char *const group_fields[] = {"name", "tids"};
static const char *const cswitch_fields[] = {
	"kind",
	"cpu",
	"tick",
	"ts",
	"old_tid",
	"old_pri",
	"old_base_pri",
	"old_state",
	"old_wait_reason",
	"old_wait_mode",
	"old_ideal_cpu",
	"old_remaining_quantum",
	"old_qos",
	"prev_cstate",
	"old_rank",
	"new_tid",
	"new_pri",
	"new_pri_decrement",
	"new_wait_ticks",
	"new_qos",
	"pmc",
	"pebs_index",
};
static const char *const spinlock_fields[] = {
	"kind",		 "cpu",
	"tick",		 "ts",
	"lock",		 "caller",
	"acquire_time",	 "release_time",
	"wait_cycles",	 "spin_count",
	"tid",		 "interrupt_count",
	"irql",		 "depth",
	"mode",		 "dpc",
	"isr",		 "logged",
	"why",		 "name",
	"acquire_count", "contention_count",
	"untracked",	 "guarded",
	"pmc",
};
static const char *const thread_fields[] = {"kind", "tid", "group", "event", "tick", "ts"};
static const char *const stop_fields[] = {"kind", "clock", "tick", "ts"};
static const char *const end_fields[] = {"kind", "tick", "ts"};

/*
 * Every field of object @o (@pfx: where it is, @what: what it is) is one of
 * @fields or a writer's own "x_..." one; else the first that is not is an
 * error naming the closest field. Return: 0 or -EINVAL.
 */
static int check_fields(const struct rd *d, json_t *o, const char *pfx, const char *what,
			const char *const *fields, unsigned n)
{
	const char *key, *near;
	json_t *v;

	json_object_foreach(o, key, v)
	{
		unsigned i = 0;

		while (i < n && strcmp(key, fields[i])) {
			i++;
		}
		if (i < n || !strncmp(key, "x_", 2)) {
			continue;
		}
		near = suggest_name(key, fields, n);
		if (near) {
			return fail(d, "%s%s: unknown field of %s (did you mean '%s'?)", pfx, key,
				    what, near);
		}
		return fail(d, "%s%s: unknown field of %s (a writer's own fields start with x_)",
			    pfx, key, what);
	}
	return 0;
}

/*
 * Member getters. @pfx names the enclosing object ("", "sessions[1].") for
 * messages. Return: 1 stored, 0 absent (and not @req: *out untouched),
 * -EINVAL with the error written.
 */
static int get_int(const struct rd *d, json_t *o, const char *pfx, const char *key, bool req,
		   int64_t lo, int64_t hi, int64_t *out)
{
	json_t *v = json_object_get(o, key);
	json_int_t x;

	if (!v) {
		return req ? fail(d, "%s%s: missing", pfx, key) : 0;
	}
	if (!json_is_integer(v)) {
		return fail(d, "%s%s: must be an integer", pfx, key);
	}
	x = json_integer_value(v);
	if (x < lo || x > hi) {
		return fail(d, "%s%s: %" PRId64 " is out of range %" PRId64 "..%" PRId64, pfx, key,
			    (int64_t)x, lo, hi);
	}
	*out = (int64_t)x;
	return 1;
}

static int get_u64(const struct rd *d, json_t *o, const char *pfx, const char *key, bool req,
		   uint64_t *out)
{
	int64_t x = 0;
	int rc = get_int(d, o, pfx, key, req, 0, JSON_INT_MAX, &x);

	if (rc > 0) {
		*out = (uint64_t)x;
	}
	return rc;
}

static int get_u32(const struct rd *d, json_t *o, const char *pfx, const char *key, bool req,
		   int64_t lo, int64_t hi, uint32_t *out)
{
	int64_t x = 0;
	int rc = get_int(d, o, pfx, key, req, lo, hi, &x);

	if (rc > 0) {
		*out = (uint32_t)x;
	}
	return rc;
}

static int get_u8(const struct rd *d, json_t *o, const char *key, int64_t lo, int64_t hi,
		  uint8_t *out)
{
	int64_t x = 0;
	int rc = get_int(d, o, "", key, false, lo, hi, &x);

	if (rc > 0) {
		*out = (uint8_t)x;
	}
	return rc;
}

static int get_s8(const struct rd *d, json_t *o, const char *key, int64_t lo, int64_t hi,
		  int8_t *out)
{
	int64_t x = 0;
	int rc = get_int(d, o, "", key, false, lo, hi, &x);

	if (rc > 0) {
		*out = (int8_t)x;
	}
	return rc;
}

static int get_bool(const struct rd *d, json_t *o, const char *pfx, const char *key, bool req,
		    bool *out)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		return req ? fail(d, "%s%s: missing", pfx, key) : 0;
	}
	if (!json_is_boolean(v)) {
		return fail(d, "%s%s: must be true or false", pfx, key);
	}
	*out = json_is_true(v);
	return 1;
}

static int get_str(const struct rd *d, json_t *o, const char *pfx, const char *key, bool req,
		   const char **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL; /* written on every path: callers read it only when 1 is returned */
	if (!v) {
		return req ? fail(d, "%s%s: missing", pfx, key) : 0;
	}
	if (!json_is_string(v)) {
		return fail(d, "%s%s: must be a string", pfx, key);
	}
	*out = json_string_value(v);
	return 1;
}

/* A string that fits @size bytes with its NUL. */
static int get_name(const struct rd *d, json_t *o, const char *pfx, const char *key, char *out,
		    size_t size)
{
	const char *s;
	int rc = get_str(d, o, pfx, key, false, &s);

	if (rc <= 0) {
		return rc;
	}
	if (strlen(s) >= size) {
		return fail(d, "%s%s: longer than %zu bytes", pfx, key, size - 1);
	}
	memcpy(out, s, strlen(s) + 1);
	return 1;
}

/* "0x" and 1 or more hex digits, at most @max. */
static int get_addr(const struct rd *d, json_t *o, const char *key, uint64_t max,
		    const char *why_max, uint64_t *out)
{
	const char *s;
	uint64_t v = 0;
	int rc = get_str(d, o, "", key, true, &s);

	if (rc <= 0) {
		return rc;
	}
	if (s[0] != '0' || s[1] != 'x' || !s[2]) {
		return fail(d, "%s: \"%s\" is not an address (\"0x\" and hex digits)", key, s);
	}
	for (const char *p = s + 2; *p; p++) {
		unsigned h;

		if (*p >= '0' && *p <= '9') {
			h = (unsigned)(*p - '0');
		} else if (*p >= 'a' && *p <= 'f') {
			h = (unsigned)(*p - 'a' + 10);
		} else if (*p >= 'A' && *p <= 'F') {
			h = (unsigned)(*p - 'A' + 10);
		} else {
			return fail(d, "%s: \"%s\" is not an address (\"0x\" and hex digits)", key,
				    s);
		}
		if (v > UINT64_MAX >> 4) {
			return fail(d, "%s: %s does not fit 64 bits", key, s);
		}
		v = v << 4 | h;
	}
	if (v > max) {
		return fail(d, "%s: %s does not fit 32 bits (%s)", key, s, why_max);
	}
	*out = v;
	return 1;
}

/* "pebs_index": an address as "0x..." (what we write), or a plain number. */
static int get_pebs_index(const struct rd *d, json_t *o, uint64_t *out)
{
	if (json_is_string(json_object_get(o, "pebs_index"))) {
		return get_addr(d, o, "pebs_index", UINT64_MAX, "", out);
	}
	return get_u64(d, o, "", "pebs_index", false, out);
}

/*
 * "ts" (or "start_ts"): {"qpc":..,...}. @req: every clock in @used must be
 * there; otherwise the missing ones keep their value in @ts. Clocks not in
 * use are stored; unknown names are an error (a typo would lose a clock).
 */
static int get_ts(const struct rd *d, const bool used[SIM_CLOCK_SLOTS], json_t *o, const char *key,
		  bool req, uint64_t ts[SIM_CLOCK_SLOTS])
{
	json_t *v = json_object_get(o, key);
	char pfx[16];
	const char *name;
	json_t *x;

	if (!v) {
		return req ? fail(d, "%s: missing", key) : 0;
	}
	if (!json_is_object(v)) {
		return fail(d, "%s: must be an object {\"qpc\":..,\"systime\":..,\"cycles\":..}",
			    key);
	}
	json_object_foreach(v, name, x)
	{
		enum sim_clock c;

		if (sim_clock_parse(name, &c)) {
			return fail(d, "%s: unknown clock \"%s\" (qpc, systime or cycles)", key,
				    name);
		}
	}
	snprintf(pfx, sizeof(pfx), "%s.", key);
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		const char *cn = sim_clock_name((enum sim_clock)c);
		int rc;

		if (req && used[c] && !json_object_get(v, cn)) {
			return fail(d, "%s: missing \"%s\" (a session uses that clock)", key, cn);
		}
		rc = get_u64(d, v, pfx, cn, false, &ts[c]);
		if (rc < 0) {
			return rc;
		}
	}
	return 1;
}

/* 0x0524-style hook id string. */
static int parse_hook(const char *s, uint16_t *out)
{
	unsigned v = 0;
	size_t n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
		return -EINVAL;
	}
	for (const char *p = s + 2; *p; p++, n++) {
		unsigned h;

		if (*p >= '0' && *p <= '9') {
			h = (unsigned)(*p - '0');
		} else if (*p >= 'a' && *p <= 'f') {
			h = (unsigned)(*p - 'a' + 10);
		} else if (*p >= 'A' && *p <= 'F') {
			h = (unsigned)(*p - 'A' + 10);
		} else {
			return -EINVAL;
		}
		v = v << 4 | h;
		if (n >= 4) {
			return -EINVAL;
		}
	}
	if (n == 0) {
		return -EINVAL;
	}
	*out = (uint16_t)v;
	return 0;
}

static int parse_session_pmc(const struct rd *d, json_t *pmc, const char *pfx,
			     struct trace_config *cfg, struct trace_session_cfg *s)
{
	char where[96];
	json_t *a;
	size_t j;
	json_t *e;

	if (!json_is_object(pmc)) {
		return fail(d, "%spmc: must be an object {\"counters\":[..],\"events\":[..]}", pfx);
	}
	snprintf(where, sizeof(where), "%spmc.", pfx);
	if (check_fields(d, pmc, where, "a session's pmc", session_pmc_fields,
			 NFIELDS(session_pmc_fields)) < 0) {
		return -EINVAL;
	}
	a = json_object_get(pmc, "counters");
	if (a) {
		if (!json_is_array(a)) {
			return fail(d, "%spmc.counters: must be a list of counter names", pfx);
		}
		if (json_array_size(a) > SIM_MAX_PMC) {
			return fail(d, "%spmc.counters: %zu counters, at most %d per session", pfx,
				    json_array_size(a), SIM_MAX_PMC);
		}
		json_array_foreach(a, j, e)
		{
			const char *name = json_string_value(e);
			int id;

			snprintf(where, sizeof(where), "%spmc.counters[%zu]", pfx, j);
			if (!name) {
				return fail(d, "%s: must be a string (a counter name)", where);
			}
			if (!name[0] || strlen(name) >= TRACE_COUNTER_NAME_MAX) {
				return fail(d, "%s: a counter name is 1..%d bytes", where,
					    TRACE_COUNTER_NAME_MAX - 1);
			}
			/* any name: a label of recorded values (replay does not
			 * simulate; scenarios check names against the PMC sources) */
			id = trace_config_counter_id(cfg, name);
			if (id < 0) {
				return fail(d,
					    "%s: \"%s\" is one more than the %d distinct "
					    "counters the machine can have",
					    where, name, SIM_MAX_COUNTERS);
			}
			s->pmc_counters[s->pmc_count++] = (uint8_t)id;
		}
	}
	a = json_object_get(pmc, "events");
	if (a) {
		if (!json_is_array(a)) {
			return fail(d, "%spmc.events: must be a list of hook ids (\"0x0524\")",
				    pfx);
		}
		if (json_array_size(a) > 4) {
			return fail(d, "%spmc.events: %zu events, at most 4 (ETW_MAX_PMC_EVENTS)",
				    pfx, json_array_size(a));
		}
		json_array_foreach(a, j, e)
		{
			const char *h = json_string_value(e);

			if (!h || parse_hook(h, &s->pmc_events[s->pmc_event_count])) {
				return fail(d,
					    "%spmc.events[%zu]: must be a hook id string "
					    "such as \"0x0524\"",
					    pfx, j);
			}
			s->pmc_event_count++;
		}
	}
	return 0;
}

static int parse_session(const struct rd *d, json_t *o, unsigned i, struct trace_config *cfg)
{
	struct trace_session_cfg *s = &cfg->sessions[i];
	char pfx[32];
	const char *str;
	json_t *v;
	int rc;

	snprintf(pfx, sizeof(pfx), "sessions[%u].", i);
	if (!json_is_object(o)) {
		return fail(d, "sessions[%u]: must be an object", i);
	}
	if (check_fields(d, o, pfx, "a session", session_fields, NFIELDS(session_fields)) < 0) {
		return -EINVAL;
	}
	memset(s, 0, sizeof(*s));
	if (i == 0) {
		snprintf(s->name, sizeof(s->name), "NT Kernel Logger");
	} else {
		snprintf(s->name, sizeof(s->name), "etwforge session %u", i);
	}
	s->clock = SIM_CLOCK_QPC;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
	s->buffer_size = 65536;
	if ((rc = get_name(d, o, pfx, "name", s->name, sizeof(s->name))) < 0) {
		return rc;
	}
	if ((rc = get_str(d, o, pfx, "clock", false, &str)) < 0) {
		return rc;
	}
	if (rc > 0 && sim_clock_parse(str, &s->clock)) {
		return fail(d, "%sclock: unknown clock \"%s\" (qpc, systime or cycles)", pfx, str);
	}
	v = json_object_get(o, "flags");
	if (v) {
		size_t j;
		json_t *e;

		if (!json_is_array(v)) {
			return fail(d,
				    "%sflags: must be a list (cswitch, compact_cswitch, "
				    "spinlock)",
				    pfx);
		}
		s->flags = 0;
		json_array_foreach(v, j, e)
		{
			const char *fl = json_string_value(e);
			size_t k = 0;

			while (fl && k < TRACE_NFLAGS && strcmp(fl, trace_flag_names[k])) {
				k++;
			}
			if (!fl || k == TRACE_NFLAGS) {
				return fail(d,
					    "%sflags[%zu]: must be \"cswitch\", "
					    "\"compact_cswitch\" or \"spinlock\"",
					    pfx, j);
			}
			s->flags |= trace_flag_bits[k];
		}
	}
	if ((rc = get_bool(d, o, pfx, "pebs", false, &s->pebs)) < 0) {
		return rc;
	}
	v = json_object_get(o, "pmc");
	if (v && (rc = parse_session_pmc(d, v, pfx, cfg, s)) < 0) {
		return rc;
	}
	if ((rc = get_u32(d, o, pfx, "buffer_size", false, 0, UINT32_MAX, &s->buffer_size)) < 0 ||
	    (rc = get_u32(d, o, pfx, "pool_buffers", false, 0, UINT32_MAX, &s->pool_buffers)) < 0 ||
	    (rc = get_u64(d, o, pfx, "flush_latency", false, &s->flush_latency)) < 0 ||
	    (rc = get_bool(d, o, pfx, "compressed", false, &s->compress)) < 0 ||
	    (rc = get_name(d, o, pfx, "file", s->file, sizeof(s->file))) < 0) {
		return rc;
	}
	return 0;
}

/* "groups" (read by the names reader): a list of {"name":..,"tids":[..]}, spelled right. */
static int check_groups(const struct rd *d, json_t *groups)
{
	char pfx[32];
	size_t i;
	json_t *g;

	if (!groups) {
		return 0;
	}
	if (!json_is_array(groups)) {
		return fail(d, "groups: must be a list of {\"name\":..,\"tids\":[..]}");
	}
	json_array_foreach(groups, i, g)
	{
		snprintf(pfx, sizeof(pfx), "groups[%zu].", i);
		if (!json_is_object(g)) {
			return fail(d, "groups[%zu]: must be an object {\"name\":..,\"tids\":[..]}",
				    i);
		}
		if (check_fields(d, g, pfx, "a group", group_fields, NFIELDS(group_fields)) < 0) {
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_meta(const struct rd *d, json_t *o, struct trace_config *cfg)
{
	bool used[SIM_CLOCK_SLOTS] = {false};
	int64_t uptime;
	const char *str;
	const char *why;
	int64_t x = 0;
	json_t *v;
	int rc;

	trace_config_defaults(cfg);
	uptime = cfg->start_time - cfg->boot_time;
	if ((rc = get_str(d, o, "", "kind", true, &str)) < 0) {
		return rc;
	}
	if (strcmp(str, "meta")) {
		return fail(d, "kind: the first line must be the \"meta\" line, not \"%s\"", str);
	}
	if (check_fields(d, o, "", "the meta line", meta_fields, NFIELDS(meta_fields)) < 0) {
		return -EINVAL;
	}
	if ((rc = get_str(d, o, "", "format", true, &str)) < 0) {
		return rc;
	}
	if (strcmp(str, "etwforge-truth")) {
		return fail(d, "format: \"%s\" is not \"etwforge-truth\"", str);
	}
	v = json_object_get(o, "version");
	if (!v) {
		return fail(d, "version: missing");
	}
	if (!json_is_integer(v) || json_integer_value(v) != 1) {
		return fail(d, "version: only version 1 is supported");
	}
	if ((rc = get_str(d, o, "", "target", false, &str)) < 0) {
		return rc;
	}
	if (rc > 0) {
		const struct etw_target *t = etw_target_find(str);
		char known[256] = "";
		size_t n = 0;

		if (!t) {
			for (unsigned i = 0; etw_target_at(i) && n < sizeof(known); i++) {
				int k = snprintf(known + n, sizeof(known) - n, "%s%s",
						 i ? ", " : "", etw_target_at(i)->name);
				n += k > 0 ? (size_t)k : 0;
			}
			return fail(d, "target: unknown \"%s\" (known: %s)", str, known);
		}
		cfg->target = t;
		cfg->max_wait_reason = t->max_wait_reason;
	}
	if ((rc = get_str(d, o, "", "arch", false, &str)) < 0) {
		return rc;
	}
	if (rc > 0) {
		if (!strcmp(str, "x64")) {
			cfg->arch = ETL_ARCH_X64;
		} else if (!strcmp(str, "x86")) {
			cfg->arch = ETL_ARCH_X86;
		} else {
			return fail(d, "arch: \"%s\" is neither \"x64\" nor \"x86\"", str);
		}
	}
	if ((rc = get_int(d, o, "", "cpus", false, 1, CPUS_MAX, &x)) < 0) {
		return rc;
	}
	cfg->cpus = rc > 0 ? (unsigned)x : cfg->cpus;
	if ((rc = get_u32(d, o, "", "cpu_mhz", false, 0, UINT32_MAX, &cfg->cpu_mhz)) < 0 ||
	    (rc = get_u64(d, o, "", "perf_freq", false, &cfg->perf_freq)) < 0 ||
	    (rc = get_u32(d, o, "", "timer_resolution", false, 0, UINT32_MAX,
			  &cfg->timer_resolution)) < 0) {
		return rc;
	}
	if ((rc = get_int(d, o, "", "max_wait_reason", false, 0, UINT8_MAX, &x)) < 0) {
		return rc;
	}
	cfg->max_wait_reason = rc > 0 ? (uint8_t)x : cfg->max_wait_reason;
	/* FILETIMEs are below 2^63; a boot time not given keeps the default uptime */
	if ((rc = get_int(d, o, "", "start_time", false, 0, INT64_MAX, &cfg->start_time)) < 0) {
		return rc;
	}
	cfg->boot_time = cfg->start_time - uptime;
	if ((rc = get_int(d, o, "", "boot_time", false, 0, INT64_MAX, &cfg->boot_time)) < 0 ||
	    (rc = get_bool(d, o, "", "quirks", false, &cfg->quirks)) < 0 ||
	    (rc = get_u64(d, o, "", "seed", false, &cfg->seed)) < 0 ||
	    (rc = get_bool(d, o, "", "flush_at_end", false, &cfg->flush_at_end)) < 0 ||
	    (rc = get_bool(d, o, "", "pebs_and_pmc", false, &cfg->pebs_and_pmc)) < 0) {
		return rc;
	}
	/* extension: the spin-lock sampling parameters (absent: the kernel's defaults) */
	v = json_object_get(o, "spinlock");
	if (v) {
		struct spin_sampling *sp = &cfg->spin;

		if (!json_is_object(v)) {
			return fail(d, "spinlock: must be an object");
		}
		if (check_fields(d, v, "spinlock.", "the spin-lock sampling", spinlock_cfg_fields,
				 NFIELDS(spinlock_cfg_fields)) < 0) {
			return -EINVAL;
		}
		str = NULL;
		if ((rc = get_u32(d, v, "spinlock.", "spin_threshold", false, 0, UINT32_MAX,
				  &sp->spin_threshold)) < 0 ||
		    (rc = get_u32(d, v, "spinlock.", "acquire_sample_rate", false, 0, UINT32_MAX,
				  &sp->acquire_sample_rate)) < 0 ||
		    (rc = get_u32(d, v, "spinlock.", "contention_sample_rate", false, 0, UINT32_MAX,
				  &sp->contention_sample_rate)) < 0 ||
		    (rc = get_u32(d, v, "spinlock.", "hold_threshold", false, 0, UINT32_MAX,
				  &sp->hold_threshold)) < 0 ||
		    (rc = get_str(d, v, "spinlock.", "rows", false, &str)) < 0) {
			return rc;
		}
		if (str && !strcmp(str, "all")) {
			cfg->spin_rows = TRACE_SPIN_ROWS_ALL;
		} else if (str && !strcmp(str, "logged")) {
			cfg->spin_rows = TRACE_SPIN_ROWS_LOGGED;
		} else if (str) {
			return fail(d, "spinlock.rows: \"%s\" is neither \"all\" nor \"logged\"",
				    str);
		}
	}
	if ((rc = check_groups(d, json_object_get(o, "groups"))) < 0) {
		return rc;
	}
	v = json_object_get(o, "sessions");
	if (v) {
		size_t i;
		json_t *e;

		if (!json_is_array(v)) {
			return fail(d, "sessions: must be a list of session objects");
		}
		if (json_array_size(v) > SIM_MAX_SESSIONS) {
			return fail(d, "sessions: %zu sessions, at most %d system loggers",
				    json_array_size(v), SIM_MAX_SESSIONS);
		}
		json_array_foreach(v, i, e)
		{
			if ((rc = parse_session(d, e, (unsigned)i, cfg)) < 0) {
				return rc;
			}
			cfg->nsessions = (unsigned)i + 1;
		}
	} else {
		/* no "sessions": one with every default, as if "sessions":[{}] */
		json_t *empty = json_object();

		rc = empty ? parse_session(d, empty, 0, cfg) : fail(d, "out of memory");
		json_decref(empty);
		if (rc < 0) {
			return rc;
		}
		cfg->nsessions = 1;
	}
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		used[c] = trace_config_clock_used(cfg, (enum sim_clock)c);
	}
	/* optional, but with every clock in use when given */
	cfg->have_start_ts = json_object_get(o, "start_ts") != NULL;
	if (cfg->have_start_ts && (rc = get_ts(d, used, o, "start_ts", true, cfg->start_ts)) < 0) {
		return rc;
	}
	if (trace_config_check(cfg, &why)) {
		return fail(d, "%s", why);
	}
	return 0;
}

/*
 * "pmc": a list (the counters of the first session in @sess, in its order)
 * or an object keyed by session name. Values go to @pmc by machine counter
 * id; two sessions that share a counter must agree on its value. Entries
 * for sessions that do not stamp this event (or no session at all) are
 * ignored, like any extra field (DESIGN.md); in an object, every stamping
 * session must have its entry, with one value per counter.
 */
static int parse_pmc(const struct rd *d, const struct truth_reader *r, json_t *o,
		     const unsigned *sess, unsigned nsess, const char *hooks,
		     uint64_t pmc[SIM_MAX_COUNTERS])
{
	json_t *v = json_object_get(o, "pmc");
	unsigned set_by[SIM_MAX_COUNTERS]; /* session + 1 that gave the value, 0 none */

	if (!v || nsess == 0) {
		return 0;
	}
	memset(set_by, 0, sizeof(set_by));
	if (!json_is_array(v) && !json_is_object(v)) {
		return fail(d, "pmc: must be a list of counter values or an object keyed by "
			       "session name");
	}
	if (json_is_object(v)) {
		const char *names[SIM_MAX_SESSIONS];
		const char *key;
		json_t *x;

		for (unsigned i = 0; i < r->cfg.nsessions && i < SIM_MAX_SESSIONS; i++) {
			names[i] = r->cfg.sessions[i].name;
		}
		json_object_foreach(v, key, x)
		{
			unsigned i = 0;
			const char *near;

			while (i < r->cfg.nsessions && strcmp(key, names[i])) {
				i++;
			}
			if (i < r->cfg.nsessions || !strncmp(key, "x_", 2)) {
				continue;
			}
			near = suggest_name(key, names, r->cfg.nsessions);
			if (near) {
				return fail(d,
					    "pmc.%s: no session has that name (did you mean '%s'?)",
					    key, near);
			}
			return fail(d, "pmc.%s: no session has that name", key);
		}
	}
	for (unsigned i = 0; i < nsess; i++) {
		const struct trace_session_cfg *s = &r->cfg.sessions[sess[i]];
		json_t *a = v;
		char where[TRACE_NAME_MAX + 16];

		if (json_is_array(v)) {
			snprintf(where, sizeof(where), "pmc");
			if (i > 0) {
				break;
			}
		} else {
			snprintf(where, sizeof(where), "pmc.%s", s->name);
			a = json_object_get(v, s->name);
			if (!a) {
				return fail(d,
					    "%s: missing: session \"%s\" puts PMC counters on %s "
					    "events",
					    where, s->name, hooks);
			}
			if (!json_is_array(a)) {
				return fail(d, "%s: must be a list of counter values", where);
			}
		}
		if (json_array_size(a) != s->pmc_count) {
			return fail(d, "%s: %zu value%s, but session \"%s\" has %u counter%s",
				    where, json_array_size(a), json_array_size(a) == 1 ? "" : "s",
				    s->name, s->pmc_count, s->pmc_count == 1 ? "" : "s");
		}
		for (unsigned j = 0; j < s->pmc_count; j++) {
			json_t *e = json_array_get(a, j);
			unsigned id = s->pmc_counters[j] % SIM_MAX_COUNTERS;
			uint64_t val;

			if (!json_is_integer(e) || json_integer_value(e) < 0) {
				return fail(d, "%s[%u]: must be an integer 0..%" PRId64, where, j,
					    (int64_t)JSON_INT_MAX);
			}
			val = (uint64_t)json_integer_value(e);
			if (set_by[id] && pmc[id] != val) {
				return fail(d,
					    "%s[%u]: counter \"%s\" is %" PRIu64
					    " here but %" PRIu64 " for session \"%s\"",
					    where, j, r->cfg.counters[id], val, pmc[id],
					    r->cfg.sessions[set_by[id] - 1].name);
			}
			set_by[id] = sess[i] + 1;
			pmc[id] = val;
		}
	}
	return 1;
}

/* Tick and clocks of @cpu may not go backwards; then they become its history. */
static int check_cpu_time(const struct rd *d, struct truth_reader *r, uint32_t cpu, uint32_t tick,
			  const uint64_t ts[SIM_CLOCK_SLOTS])
{
	struct cpu_hist *h = &r->hist[cpu];

	if (h->line) {
		if (tick < h->tick) {
			return fail(d,
				    "cpu %" PRIu32 ": tick %" PRIu32
				    " is before the previous %" PRIu32 " (line %lu)",
				    cpu, tick, h->tick, h->line);
		}
		for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
			if (r->used[c] && ts[c] < h->ts[c]) {
				return fail(d,
					    "cpu %" PRIu32 ": %s timestamp %" PRIu64
					    " is before the previous %" PRIu64 " (line %lu)",
					    cpu, sim_clock_name((enum sim_clock)c), ts[c], h->ts[c],
					    h->line);
			}
		}
	}
	h->tick = tick;
	memcpy(h->ts, ts, sizeof(h->ts));
	h->line = d->line;
	if (!r->max_tick.line || tick > r->max_tick.v) {
		r->max_tick = (struct high_mark){tick, cpu, d->line};
	}
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		if (r->used[c] && (!r->max_ts[c].line || ts[c] > r->max_ts[c].v)) {
			r->max_ts[c] = (struct high_mark){ts[c], cpu, d->line};
		}
	}
	return 0;
}

static int get_cpu(const struct rd *d, const struct truth_reader *r, json_t *o, uint32_t *cpu)
{
	return get_u32(d, o, "", "cpu", true, 0, (int64_t)r->cfg.cpus - 1, cpu);
}

static int parse_cswitch(const struct rd *d, struct truth_reader *r, json_t *o,
			 struct sim_cswitch *cs)
{
	int64_t q = 0;
	int rc;

	memset(cs, 0, sizeof(*cs));
	if (check_fields(d, o, "", "a cswitch line", cswitch_fields, NFIELDS(cswitch_fields)) < 0) {
		return -EINVAL;
	}
	if ((rc = get_cpu(d, r, o, &cs->cpu)) < 0 ||
	    (rc = get_u32(d, o, "", "tick", true, 0, UINT32_MAX, &cs->tick)) < 0 ||
	    (rc = get_ts(d, r->used, o, "ts", true, cs->ts)) < 0 ||
	    (rc = get_u32(d, o, "", "old_tid", true, 0, UINT32_MAX, &cs->old_tid)) < 0 ||
	    (rc = get_s8(d, o, "old_pri", 0, PRIORITY_MAX, &cs->old_pri)) < 0 ||
	    (rc = get_s8(d, o, "old_base_pri", 0, PRIORITY_MAX, &cs->old_base_pri)) < 0 ||
	    (rc = get_u8(d, o, "old_state", 0, KTHREAD_STATE_MAX, &cs->old_state)) < 0 ||
	    (rc = get_u8(d, o, "old_wait_reason", 0, WAIT_REASON_MAX, &cs->old_wait_reason)) < 0 ||
	    (rc = get_u8(d, o, "old_wait_mode", 0, 1, &cs->old_wait_mode)) < 0 ||
	    (rc = get_u32(d, o, "", "old_ideal_cpu", false, 0, UINT32_MAX, &cs->old_ideal_cpu)) <
		    0) {
		return rc;
	}
	if (cs->old_state == KTHREAD_WAITING && cs->old_wait_reason >= r->cfg.max_wait_reason) {
		return fail(d,
			    "old_wait_reason: %u is not below max_wait_reason %u; the thread "
			    "is Waiting, so it would decode as a thread state",
			    (unsigned)cs->old_wait_reason, (unsigned)r->cfg.max_wait_reason);
	}
	if ((rc = get_int(d, o, "", "old_remaining_quantum", false, INT64_MIN, INT64_MAX, &q)) <
		    0 ||
	    (rc = get_u8(d, o, "old_qos", 0, QOS_MAX, &cs->old_qos)) < 0 ||
	    (rc = get_u8(d, o, "prev_cstate", 0, UINT8_MAX, &cs->prev_cstate)) < 0 ||
	    (rc = get_u32(d, o, "", "old_rank", false, 0, UINT32_MAX, &cs->old_rank)) < 0 ||
	    (rc = get_u32(d, o, "", "new_tid", true, 0, UINT32_MAX, &cs->new_tid)) < 0 ||
	    (rc = get_s8(d, o, "new_pri", 0, PRIORITY_MAX, &cs->new_pri)) < 0 ||
	    (rc = get_s8(d, o, "new_pri_decrement", INT8_MIN, INT8_MAX, &cs->new_pri_decrement)) <
		    0 ||
	    (rc = get_u32(d, o, "", "new_wait_ticks", false, 0, UINT32_MAX, &cs->new_wait_ticks)) <
		    0 ||
	    (rc = get_u8(d, o, "new_qos", 0, QOS_MAX, &cs->new_qos)) < 0 ||
	    (rc = parse_pmc(d, r, o, r->cs_sess, r->ncs, "0x0524/0x0525", cs->pmc)) < 0 ||
	    (rc = get_pebs_index(d, o, &cs->pebs_index)) < 0) {
		return rc;
	}
	cs->old_remaining_quantum = q;
	return check_cpu_time(d, r, cs->cpu, cs->tick, cs->ts);
}

static int parse_spinlock(const struct rd *d, struct truth_reader *r, json_t *o,
			  struct sim_spinlock *sl)
{
	bool x86 = r->cfg.arch == ETL_ARCH_X86;
	uint64_t amax = x86 ? UINT32_MAX : UINT64_MAX;
	const char *why = NULL, *name = NULL;
	int rc;

	memset(sl, 0, sizeof(*sl));
	sl->depth = 1;
	if (check_fields(d, o, "", "a spinlock line", spinlock_fields, NFIELDS(spinlock_fields)) <
	    0) {
		return -EINVAL;
	}
	if ((rc = get_cpu(d, r, o, &sl->cpu)) < 0) {
		return rc;
	}
	sl->tick = r->hist[sl->cpu].tick;
	if ((rc = get_u32(d, o, "", "tick", false, 0, UINT32_MAX, &sl->tick)) < 0 ||
	    (rc = get_ts(d, r->used, o, "ts", true, sl->ts)) < 0 ||
	    (rc = get_addr(d, o, "lock", amax, "arch x86", &sl->lock)) < 0 ||
	    (rc = get_addr(d, o, "caller", amax, "arch x86", &sl->caller)) < 0 ||
	    (rc = get_u64(d, o, "", "acquire_time", false, &sl->acquire_time)) < 0 ||
	    (rc = get_u64(d, o, "", "release_time", false, &sl->release_time)) < 0 ||
	    (rc = get_u64(d, o, "", "wait_cycles", false, &sl->wait_cycles)) < 0 ||
	    (rc = get_u32(d, o, "", "spin_count", false, 0, UINT32_MAX, &sl->spin_count)) < 0 ||
	    (rc = get_u32(d, o, "", "tid", false, 0, UINT32_MAX, &sl->tid)) < 0 ||
	    (rc = get_u32(d, o, "", "interrupt_count", false, 0, UINT32_MAX,
			  &sl->interrupt_count)) < 0 ||
	    (rc = get_u8(d, o, "irql", 0, IRQL_MAX, &sl->irql)) < 0 ||
	    (rc = get_u8(d, o, "depth", 1, UINT8_MAX, &sl->depth)) < 0 ||
	    (rc = get_u8(d, o, "mode", 0, SPIN_MODE_MAX, &sl->mode)) < 0 ||
	    (rc = get_bool(d, o, "", "dpc", false, &sl->dpc)) < 0 ||
	    (rc = get_bool(d, o, "", "isr", false, &sl->isr)) < 0 ||
	    (rc = get_bool(d, o, "", "logged", true, &sl->logged)) < 0 ||
	    (rc = get_str(d, o, "", "why", false, &why)) < 0) {
		return rc;
	}
	if ((rc = get_u32(d, o, "", "acquire_count", false, 0, UINT32_MAX, &sl->acquire_count)) <
		    0 ||
	    (rc = get_u32(d, o, "", "contention_count", false, 0, UINT32_MAX,
			  &sl->contention_count)) < 0 ||
	    (rc = get_bool(d, o, "", "untracked", false, &sl->untracked)) < 0 ||
	    (rc = get_bool(d, o, "", "guarded", false, &sl->guarded)) < 0 ||
	    (rc = get_str(d, o, "", "name", false, &name)) < 0) {
		return rc;
	}
	if (name) {
		snprintf(r->name, sizeof(r->name), "%s", name);
		sl->name = r->name;
	}
	if (why) {
		unsigned k = 0;

		while (k < TRUTH_NWHY && strcmp(why, truth_why_names[k])) {
			k++;
		}
		if (k == TRUTH_NWHY) {
			return fail(d, "why: \"%s\" is not hold, contended, acquire_sample or none",
				    why);
		}
		sl->why = (enum sim_spin_why)k;
	}
	if ((rc = parse_pmc(d, r, o, r->sl_sess, r->nsl, "0x0529", sl->pmc)) < 0) {
		return rc;
	}
	return check_cpu_time(d, r, sl->cpu, sl->tick, sl->ts);
}

/* The largest tick and clock values seen so far (the default of stop/end). */
static void high_marks(const struct truth_reader *r, uint32_t *tick, uint64_t ts[SIM_CLOCK_SLOTS])
{
	*tick = (uint32_t)r->max_tick.v;
	for (unsigned c = 0; c < SIM_CLOCK_SLOTS; c++) {
		ts[c] = r->max_ts[c].v;
	}
}

/* A "thread" line: which thread started or ended, and when (no CPU). */
static int parse_thread(const struct rd *d, struct truth_reader *r, json_t *o,
			struct truth_thread *th)
{
	const char *event, *group;
	int rc;

	memset(th, 0, sizeof(*th));
	high_marks(r, &th->tick, th->ts);
	if (check_fields(d, o, "", "a thread line", thread_fields, NFIELDS(thread_fields)) < 0) {
		return -EINVAL;
	}
	if ((rc = get_u32(d, o, "", "tid", true, 0, UINT32_MAX, &th->tid)) < 0 ||
	    (rc = get_str(d, o, "", "group", true, &group)) < 0 ||
	    (rc = get_str(d, o, "", "event", true, &event)) < 0 ||
	    (rc = get_u32(d, o, "", "tick", false, 0, UINT32_MAX, &th->tick)) < 0 ||
	    (rc = get_ts(d, r->used, o, "ts", false, th->ts)) < 0) {
		return rc;
	}
	if (strcmp(event, "start") && strcmp(event, "exit")) {
		return fail(d, "event: \"%s\" is neither \"start\" nor \"exit\"", event);
	}
	th->exit = !strcmp(event, "exit");
	return 0;
}

static int parse_stop(const struct rd *d, struct truth_reader *r, json_t *o,
		      struct sim_ccswap_stop *st)
{
	const char *clock;
	int rc;

	memset(st, 0, sizeof(*st));
	high_marks(r, &st->tick, st->ts);
	if (check_fields(d, o, "", "a ccswap_stop line", stop_fields, NFIELDS(stop_fields)) < 0) {
		return -EINVAL;
	}
	if ((rc = get_str(d, o, "", "clock", true, &clock)) < 0) {
		return rc;
	}
	if (sim_clock_parse(clock, &st->clock)) {
		return fail(d, "clock: unknown clock \"%s\" (qpc, systime or cycles)", clock);
	}
	if ((rc = get_u32(d, o, "", "tick", false, 0, UINT32_MAX, &st->tick)) < 0 ||
	    (rc = get_ts(d, r->used, o, "ts", false, st->ts)) < 0) {
		return rc;
	}
	return 0;
}

static int check_end(const struct rd *d, struct truth_reader *r, const struct sim_end *end);

static int parse_end(const struct rd *d, struct truth_reader *r, json_t *o, struct sim_end *end)
{
	int rc;

	memset(end, 0, sizeof(*end));
	high_marks(r, &end->tick, end->ts);
	if (check_fields(d, o, "", "an end line", end_fields, NFIELDS(end_fields)) < 0) {
		return -EINVAL;
	}
	if ((rc = get_u32(d, o, "", "tick", false, 0, UINT32_MAX, &end->tick)) < 0 ||
	    (rc = get_ts(d, r->used, o, "ts", false, end->ts)) < 0) {
		return rc;
	}
	return check_end(d, r, end);
}

/* The end may not be before any CPU's last record; then nothing may follow. */
static int check_end(const struct rd *d, struct truth_reader *r, const struct sim_end *end)
{
	if (r->max_tick.line && end->tick < r->max_tick.v) {
		return fail(d,
			    "end: tick %" PRIu32 " is before cpu %u's last %" PRIu64 " (line %lu)",
			    end->tick, r->max_tick.cpu, r->max_tick.v, r->max_tick.line);
	}
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		const struct high_mark *m = &r->max_ts[c];

		if (r->used[c] && m->line && end->ts[c] < m->v) {
			return fail(d,
				    "end: %s timestamp %" PRIu64 " is before cpu %u's last %" PRIu64
				    " (line %lu)",
				    sim_clock_name((enum sim_clock)c), end->ts[c], m->cpu, m->v,
				    m->line);
		}
	}
	r->end_line = d->line;
	return 0;
}

static bool is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') {
			return false;
		}
	}
	return true;
}

/*
 * The next line of the stream, its terminator included: *@s, *@n. It
 * stays valid until the next call, and buf[pos..] after it may be
 * changed (the caller puts a NUL after what it parses). Return: 1, 0 at
 * the end of the stream, -1 on a read error (r->read_errno).
 */
static int read_line(struct truth_reader *r, char **s, size_t *n)
{
	for (;;) {
		char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
		size_t end = nl ? (size_t)(nl + 1 - r->buf) : r->len; /* this line's, so far */
		const char *nul;
		size_t got;

		if (r->nul_at && r->nul_at - 1 < r->base + end) {
			return -2; /* a NUL in this line: not text, however long it would run */
		}
		if (nl || (r->eof && r->pos < r->len)) {
			*s = r->buf + r->pos;
			*n = nl ? (size_t)(nl + 1 - *s) : r->len - r->pos;
			r->pos += *n;
			return 1;
		}
		if (r->eof) {
			return r->read_err ? -1 : 0;
		}
		/* the start of a line: to the front, and more room if it fills the buffer */
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->base += r->pos;
		r->pos = 0;
		if (r->cap - r->len < READ_BLOCK / 2) {
			size_t cap = r->cap * 2;
			char *nb = realloc(r->buf, cap + 1);

			if (!nb) {
				r->read_errno = ENOMEM;
				r->read_err = r->eof = true;
				continue;
			}
			r->buf = nb;
			r->cap = cap;
		}
		errno = 0;
		got = fread(r->buf + r->len, 1, r->cap - r->len, r->f);
		/* JSON text never holds a NUL: an ETL file (or any binary) is said at once, rather
		 * than read whole as one line in search of a newline */
		nul = memchr(r->buf + r->len, '\0', got);
		if (nul) {
			r->nul_at = r->base + (uint64_t)(nul - r->buf) + 1;
		}
		r->len += got;
		if (got == 0) {
			r->eof = true;
			if (ferror(r->f)) {
				r->read_err = true;
				r->read_errno = errno ? errno : EIO;
			}
		}
	}
}

/*
 * The next non-blank line, its terminators removed, with a NUL after it:
 * *@s, *@n. Return: 1, 0 at EOF, -EINVAL (a read error, a blank line
 * inside).
 */
static int next_line(struct truth_reader *r, struct rd *d, char **s, size_t *n)
{
	for (;;) {
		int rc = read_line(r, s, n);

		if (rc == -2) {
			d->line = r->line + 1;
			return fail(d,
				    "not a JSON Lines stream: binary data (a NUL byte at offset "
				    "0x%" PRIx64 ")",
				    r->nul_at - 1);
		}
		if (rc < 0) {
			d->line = r->line + 1;
			return fail(d, "read error: %s", strerror(r->read_errno));
		}
		if (rc == 0) {
			return 0;
		}
		d->line = ++r->line;
		if (r->line == 1 && *n >= 3 && !memcmp(*s, "\xEF\xBB\xBF", 3)) {
			*s += 3;
			*n -= 3;
		}
		if (is_blank(*s, *n)) {
			if (r->line == 1) {
				return fail(d, "expected the meta line, found a blank line");
			}
			if (!r->blank_line) {
				r->blank_line = r->line;
			}
			continue;
		}
		if (r->blank_line) {
			d->line = r->blank_line;
			return fail(d, "blank line (only allowed at the end of the stream)");
		}
		/* without its terminator, an error at the end still has a column */
		while (*n > 0 && ((*s)[*n - 1] == '\n' || (*s)[*n - 1] == '\r')) {
			(*n)--;
		}
		(*s)[*n] = '\0'; /* buf has a byte past its capacity for the last line */
		return 1;
	}
}

/* Line @s (@n bytes) with jansson. Return: 1 with *@out (caller decrefs), or -EINVAL. */
static int load_object(struct rd *d, const char *s, size_t n, json_t **out)
{
	json_error_t je;

	*out = json_loadb(s, n, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &je);
	if (!*out) {
		if (je.column > 0 && d->err && d->errlen) {
			snprintf(d->err, d->errlen, "%s:%lu:%d: %s", d->path, d->line, je.column,
				 je.text);
			return -EINVAL;
		}
		return fail(d, "%s", je.text);
	}
	if (!json_is_object(*out)) {
		json_decref(*out);
		return fail(d, "not a JSON object");
	}
	return 1;
}

void truth_reader_fast(struct truth_reader *r, bool on)
{
	r->no_fast = !on;
}

void truth_close(struct truth_reader *r)
{
	if (!r) {
		return;
	}
	if (r->own_f) {
		fclose(r->f);
	}
	free(r->hist);
	free(r->buf);
	free(r->path);
	free(r);
}

/* Read the meta line of @r (its stream is open) into @cfg and get ready. */
static struct truth_reader *truth_start(struct truth_reader *r, struct trace_config *cfg, char *err,
					size_t errlen)
{
	struct rd d = {r->path, 1, err, errlen};
	json_t *o = NULL;
	char *line;
	size_t n;
	int rc, e;

	if (!(r->buf = malloc(READ_BLOCK + 1))) {
		e = ENOMEM;
		snprintf(err, errlen, "%s: %s", r->path, strerror(e));
		goto fail;
	}
	r->cap = READ_BLOCK;
	rc = next_line(r, &d, &line, &n);
	if (rc == 0) {
		fail(&d, "empty stream: expected the meta line");
	}
	if (rc > 0) {
		rc = load_object(&d, line, n, &o);
	}
	if (rc <= 0) {
		e = EINVAL;
		goto fail;
	}
	rc = parse_meta(&d, o, cfg);
	json_decref(o);
	if (rc < 0) {
		e = EINVAL;
		goto fail;
	}
	r->cfg = *cfg;
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		r->used[c] = trace_config_clock_used(cfg, (enum sim_clock)c);
	}
	r->ncs = truth_stamping_sessions(cfg, false, r->cs_sess);
	r->nsl = truth_stamping_sessions(cfg, true, r->sl_sess);
	truth_fast_init(&r->fast, &r->cfg);
	r->hist = calloc(cfg->cpus, sizeof(*r->hist));
	if (!r->hist) {
		e = ENOMEM;
		snprintf(err, errlen, "%s: %s", r->path, strerror(e));
		goto fail;
	}
	return r;

fail:
	truth_close(r);
	errno = e;
	return NULL;
}

/* A reader named @name on the open stream @f (closed with it when @own), its meta line read. */
static struct truth_reader *reader_on(const char *name, FILE *f, bool own, struct trace_config *cfg,
				      char *err, size_t errlen)
{
	struct truth_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->path = strdup(name))) {
		if (own) {
			fclose(f);
		}
		free(r);
		snprintf(err, errlen, "%s: %s", name, strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	r->f = f;
	r->own_f = own;
	return truth_start(r, cfg, err, errlen);
}

struct truth_reader *truth_open(const char *path, struct trace_config *cfg, char *err,
				size_t errlen)
{
	FILE *f;

	if (!strcmp(path, "-")) {
		return reader_on("<stdin>", stdin, false, cfg, err, errlen);
	}
	f = input_open(path, err, errlen);
	return f ? reader_on(path, f, true, cfg, err, errlen) : NULL;
}

struct truth_reader *truth_open_mem(const char *name, const char *text, size_t len,
				    struct trace_config *cfg, char *err, size_t errlen)
{
	/* fmemopen wants a writable pointer; "r" never writes through it */
	FILE *f = fmemopen((void *)(uintptr_t)text, len, "r");

	if (!f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", name, strerror(e));
		errno = e;
		return NULL;
	}
	return reader_on(name, f, true, cfg, err, errlen);
}

/*
 * Line @s (@n bytes) by the fast path: 0 when it declines, else what
 * truth_next returns, after the defaults that depend on the history and
 * the same checks as the jansson path.
 */
static int next_fast(struct truth_reader *r, const struct rd *d, const char *s, size_t n,
		     struct truth_record *rec)
{
	struct truth_fast_opt opt;
	int kind = truth_fast_line(&r->fast, s, n, rec, &opt);
	uint32_t tick;
	uint64_t ts[SIM_CLOCK_SLOTS];
	uint64_t *rts = NULL;
	uint32_t *rtick = NULL;
	int rc = 0;

	switch (kind) {
	case TRUTH_CSWITCH:
		rc = check_cpu_time(d, r, rec->u.cs.cpu, rec->u.cs.tick, rec->u.cs.ts);
		break;
	case TRUTH_SPINLOCK:
		if (!opt.tick) {
			rec->u.sl.tick = r->hist[rec->u.sl.cpu].tick;
		}
		if (opt.name) {
			size_t len = opt.name_len < sizeof(r->name) - 1 ? opt.name_len
									: sizeof(r->name) - 1;

			memcpy(r->name, opt.name, len);
			r->name[len] = '\0';
			rec->u.sl.name = r->name;
		}
		rc = check_cpu_time(d, r, rec->u.sl.cpu, rec->u.sl.tick, rec->u.sl.ts);
		break;
	case TRUTH_THREAD:
		rts = rec->u.thread.ts;
		rtick = &rec->u.thread.tick;
		break;
	case TRUTH_CCSWAP_STOP:
		rts = rec->u.stop.ts;
		rtick = &rec->u.stop.tick;
		break;
	case TRUTH_END:
		rts = rec->u.end.ts;
		rtick = &rec->u.end.tick;
		break;
	default:
		return 0;
	}
	if (rts) {
		/* an absent tick and absent clocks are the largest seen so far */
		high_marks(r, &tick, ts);
		if (!opt.tick) {
			*rtick = tick;
		}
		for (unsigned c = 0; c < SIM_CLOCK_SLOTS; c++) {
			if (!(opt.ts & 1u << c)) {
				rts[c] = ts[c];
			}
		}
		if (kind == TRUTH_END) {
			rc = check_end(d, r, &rec->u.end);
		}
	}
	rec->kind = (enum truth_kind)kind;
	return rc < 0 ? rc : kind;
}

int truth_next(struct truth_reader *r, struct truth_record *rec, char *err, size_t errlen)
{
	struct rd d = {r->path, r->line, err, errlen};
	const char *kind;
	json_t *o;
	char *s;
	size_t n;
	int rc;

	memset(rec, 0, sizeof(*rec));
	if (r->done) {
		rec->line = r->line + 1;
		return TRUTH_EOF;
	}
	rc = next_line(r, &d, &s, &n);
	if (rc < 0) {
		return rc;
	}
	if (rc == 0) {
		r->done = true;
		rec->line = r->line + 1;
		if (r->end_line) {
			return TRUTH_EOF;
		}
		/* no "end" line: end where the stream ends */
		high_marks(r, &rec->u.end.tick, rec->u.end.ts);
		rec->kind = TRUTH_END;
		return TRUTH_END;
	}
	rec->line = d.line;
	if (!r->end_line && !r->no_fast && (rc = next_fast(r, &d, s, n, rec)) != 0) {
		return rc;
	}
	memset(&rec->u, 0, sizeof(rec->u));
	rec->kind = TRUTH_EOF;
	if ((rc = load_object(&d, s, n, &o)) < 0) {
		return rc;
	}
	if (r->end_line) {
		rc = fail(&d, "a record after the end line (line %lu)", r->end_line);
	} else if ((rc = get_str(&d, o, "", "kind", true, &kind)) < 0) {
		/* reported */
	} else if (!strcmp(kind, "cswitch")) {
		rc = parse_cswitch(&d, r, o, &rec->u.cs);
		rec->kind = TRUTH_CSWITCH;
	} else if (!strcmp(kind, "spinlock")) {
		rc = parse_spinlock(&d, r, o, &rec->u.sl);
		rec->kind = TRUTH_SPINLOCK;
	} else if (!strcmp(kind, "ccswap_stop")) {
		rc = parse_stop(&d, r, o, &rec->u.stop);
		rec->kind = TRUTH_CCSWAP_STOP;
	} else if (!strcmp(kind, "end")) {
		rc = parse_end(&d, r, o, &rec->u.end);
		rec->kind = TRUTH_END;
	} else if (!strcmp(kind, "thread")) {
		rc = parse_thread(&d, r, o, &rec->u.thread);
		rec->kind = TRUTH_THREAD;
	} else {
		static const char *const kinds[] = {"cswitch", "spinlock", "ccswap_stop", "end",
						    "thread"};
		const char *near = suggest_name(kind, kinds, NFIELDS(kinds));

		if (near) {
			rc = fail(&d, "kind: unknown \"%s\" (did you mean '%s'?)", kind, near);
		} else {
			rc = fail(&d,
				  "kind: unknown \"%s\" (cswitch, spinlock, ccswap_stop, end or "
				  "thread)",
				  kind);
		}
	}
	json_decref(o);
	return rc < 0 ? rc : (int)rec->kind;
}
