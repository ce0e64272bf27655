/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_read.c - reading the truth / replay stream declared in
 * tools/lib/truth.h (truth_write.c writes it) one line at a time, from a
 * buffer filled in large blocks, so memory stays bounded by the buffer
 * and the longest line. A regular file is mapped instead (the kernel's
 * copy of each block into the buffer was a fifth of replay's and
 * verify's time), its pages let go of behind the reader.
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
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise, MADV_DONTNEED */
#include "tools/lib/truth/truth.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "producer/etw_process.h"
#include "producer/stack_cache.h"
#include "tools/lib/common/input_file.h"
#include "tools/lib/common/one_line.h"
#include "tools/lib/common/suggest.h"
#include "tools/lib/truth/truth_fast.h"
#include "tools/lib/truth/truth_limits.h"
#include "tools/lib/truth/truth_schema.h"

#define READ_BLOCK   (1u << 20)	 /* bytes asked of the stream at a time */
#define DROP_STEP    (16u << 20) /* a mapped stream's bytes read between two releases */
#define CPUS_MAX     1024	 /* producer_cfg.cpus */
#define JSON_INT_MAX INT64_MAX

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
	char *map;	/* buf when the file is mapped (its bytes, then zeros), else NULL */
	size_t map_len; /* the mapping's length: the file's, rounded up, with the pad */
	size_t dropped; /* map[0..dropped) has been released */
	size_t pos;	/* the unparsed bytes are buf[pos..len) */
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
	unsigned nstamp[TRUTH_NSTAMP],
		stamp[TRUTH_NSTAMP][SIM_MAX_SESSIONS]; /* stamping sessions */
	struct high_mark max_tick;
	struct high_mark max_ts[SIM_CLOCK_SLOTS];
	struct cpu_hist *hist; /* [cfg.cpus] */
	char name[64];	       /* the last spinlock line's "name" (sl->name points here) */
	char *kept;	       /* the identity strings of the line being read */
	size_t kept_len, kept_cap;
};

/* Where the line being decoded came from, and where its error goes. */
struct rd {
	const char *path;
	unsigned long line;
	struct etwforge_error *err;
};

#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

PRINTF_LIKE(2, 3)
static int fail(const struct rd *d, const char *fmt, ...)
{
	char msg[sizeof(d->err->msg)];
	va_list ap;
	int n;

	if (!d->err) {
		return -EINVAL;
	}
	n = snprintf(msg, sizeof(msg), "%s:%lu: ", d->path, d->line);
	if (n >= 0 && (size_t)n < sizeof(msg)) {
		va_start(ap, fmt);
		vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return error_fail_at(d->err, -EINVAL, ERR_INPUT, "%s", msg);
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
	"name",		 "clock",      "flags", "pebs",	  "pmc",    "buffer_size", "pool_buffers",
	"flush_latency", "compressed", "file",	"stacks", "merged", "stack_cache",
};
static const char *const session_pmc_fields[] = {"counters", "events"};
static const char *const spinlock_cfg_fields[] = {
	"spin_threshold", "acquire_sample_rate", "contention_sample_rate", "hold_threshold", "rows",
};
static const char *const group_fields[] = {"name", "tids"};
/* Each kind's fields, "kind" first: fields_<kind> (truth_kinds.h). */
#define FIELD_NAME(x, name, ...) #name,
#define KIND_FIELDS(kind, ENUM, ctype, um, what, FIELDS, ...)                                      \
	static const char *const fields_##kind[] = {"kind", FIELDS(FIELD_NAME, TRUTH_NO_CHECK, )};

TRUTH_KINDS(KIND_FIELDS)

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
static int get_addr(const struct rd *d, json_t *o, const char *key, bool req, uint64_t max,
		    const char *why_max, uint64_t *out)
{
	const char *s;
	uint64_t v = 0;
	int rc = get_str(d, o, "", key, req, &s);

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
static int get_pebs_index(const struct rd *d, json_t *o, const char *key, uint64_t *out)
{
	if (json_is_string(json_object_get(o, key))) {
		return get_addr(d, o, key, true, UINT64_MAX, "", out);
	}
	return get_u64(d, o, "", key, false, out);
}

/* A string kept in @r (a spin lock's "name": the record points there). */
static int get_kept_str(const struct rd *d, struct truth_reader *r, json_t *o, const char *key,
			bool req, const char **out)
{
	const char *s;
	int rc = get_str(d, o, "", key, req, &s);

	if (rc > 0) {
		snprintf(r->name, sizeof(r->name), "%s", s);
		*out = r->name;
	}
	return rc;
}

/* A spin lock's "why": one of truth_why_names. */
static int get_why(const struct rd *d, json_t *o, const char *key, bool req, enum sim_spin_why *out)
{
	const char *s;
	unsigned k = 0;
	int rc = get_str(d, o, "", key, req, &s);

	if (rc <= 0) {
		return rc;
	}
	while (k < TRUTH_NWHY && strcmp(s, truth_why_names[k])) {
		k++;
	}
	if (k == TRUTH_NWHY) {
		return fail(d, "%s: \"%s\" is not hold, contended, acquire_sample or none", key, s);
	}
	*out = (enum sim_spin_why)k;
	return 1;
}

/* A clock's name. */
static int get_clock(const struct rd *d, json_t *o, const char *key, bool req, enum sim_clock *out)
{
	const char *s;
	int rc = get_str(d, o, "", key, req, &s);

	if (rc > 0 && sim_clock_parse(s, out)) {
		return fail(d, "%s: unknown clock \"%s\" (qpc, systime or cycles)", key, s);
	}
	return rc;
}

/* An "event": one of the family's (@allowed: a set of 1 << event). */
static int get_event(const struct rd *d, json_t *o, const char *key, bool req, unsigned allowed,
		     enum sim_event *out)
{
	char list[96] = "";
	size_t n = 0;
	const char *s;
	int rc = get_str(d, o, "", key, req, &s);

	if (rc <= 0) {
		return rc;
	}
	for (unsigned e = 0; e < SIM_EVENTS; e++) {
		if ((allowed & SIM_EV_BIT(e)) && !strcmp(s, sim_event_name((enum sim_event)e))) {
			*out = (enum sim_event)e;
			return 1;
		}
	}
	for (unsigned e = 0; e < SIM_EVENTS && n < sizeof(list); e++) {
		if (allowed & SIM_EV_BIT(e)) {
			int k = snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
					 sim_event_name((enum sim_event)e));

			n += k > 0 ? (size_t)k : 0;
		}
	}
	return fail(d, "%s: \"%s\" is not one of %s", key, s, list);
}

/* A string of an identity line, kept in the line's arena until the next line. */
static int get_text(const struct rd *d, struct truth_reader *r, json_t *o, const char *key,
		    bool req, const char **out)
{
	const char *s;
	int rc = get_str(d, o, "", key, req, &s);
	size_t n;

	if (rc <= 0) {
		return rc;
	}
	n = strlen(s) + 1;
	if (r->kept_len + n > r->kept_cap) {
		return fail(d, "%s: out of memory", key); /* the arena holds the whole line */
	}
	memcpy(r->kept + r->kept_len, s, n);
	*out = r->kept + r->kept_len;
	r->kept_len += n;
	return 1;
}

/* A SID: "S-1-..." that parses as the record's UserSID will. */
static int get_sid(const struct rd *d, struct truth_reader *r, json_t *o, const char *key, bool req,
		   const char **out)
{
	struct etw_sid sid;
	int rc = get_text(d, r, o, key, req, out);

	if (rc > 0 && etw_sid_parse(*out, &sid) < 0) {
		return fail(d,
			    "%s: \"%s\" is not a SID (S-1-<authority>-<sub-authority>..., at "
			    "most 15 of them)",
			    key, *out);
	}
	return rc;
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

/*
 * A session's list @v (absent: nothing) of names from @names[@n], each
 * adding its bit from @bits to @flags.
 */
static int parse_names(const struct rd *d, json_t *v, const char *pfx, const char *key,
		       const char *const *names, const unsigned *bits, unsigned n, unsigned *flags)
{
	char list[160] = "";
	size_t at = 0, j;
	json_t *e;

	for (unsigned k = 0; k < n && at < sizeof(list); k++) {
		int w = snprintf(list + at, sizeof(list) - at, "%s\"%s\"",
				 k == 0	      ? ""
				 : k + 1 == n ? " or "
					      : ", ",
				 names[k]);

		at += w > 0 ? (size_t)w : 0;
	}
	if (v && !json_is_array(v)) {
		return fail(d, "%s%s: must be a list of %s", pfx, key, list);
	}
	json_array_foreach(v, j, e)
	{
		const char *name = json_string_value(e);
		unsigned k = 0;

		while (name && k < n && strcmp(name, names[k])) {
			k++;
		}
		if (!name || k == n) {
			return fail(d, "%s%s[%zu]: must be %s", pfx, key, j, list);
		}
		*flags |= bits[k];
	}
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
	if (json_object_get(o, "flags")) {
		s->flags = 0; /* else the default's */
	}
	if ((rc = parse_names(d, json_object_get(o, "flags"), pfx, "flags", trace_flag_names,
			      trace_flag_bits, TRACE_NFLAGS, &s->flags)) < 0 ||
	    (rc = parse_names(d, json_object_get(o, "stacks"), pfx, "stacks", trace_stack_names,
			      trace_stack_bits, TRACE_NSTACKS, &s->flags)) < 0) {
		return rc;
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
	    (rc = get_bool(d, o, pfx, "merged", false, &s->merged)) < 0 ||
	    (rc = get_u32(d, o, pfx, "stack_cache", false, 0, STACK_CACHE_MAX, &s->stack_cache)) <
		    0 ||
	    (rc = get_name(d, o, pfx, "file", s->file, sizeof(s->file))) < 0) {
		return rc;
	}
	if (s->stack_cache % STACK_CACHE_WAYS) {
		return fail(d, "%sstack_cache: %" PRIu32 " is not a multiple of %u", pfx,
			    s->stack_cache, STACK_CACHE_WAYS);
	}
	if (s->stack_cache && !(s->flags & PRODUCER_F_STACKS)) {
		return fail(d, "%sstack_cache: the session logs no stack to cache (no \"stacks\")",
			    pfx);
	}
	return 0;
}

/* "groups" (read by the names reader): a list of {"name":..,"tids":[..]}, spelled right. */
/* One group: "name" a string, "tids" a list of thread IDs (1..2^32-1). */
static int check_group(const struct rd *d, json_t *g, size_t i)
{
	json_t *name = json_object_get(g, "name"), *tids = json_object_get(g, "tids"), *t;
	size_t k;

	if (!json_is_string(name)) {
		return fail(d, "groups[%zu].name: %s", i, name ? "must be a string" : "missing");
	}
	if (!json_is_array(tids)) {
		return fail(d, "groups[%zu].tids: %s", i,
			    tids ? "must be a list of thread IDs" : "missing");
	}
	json_array_foreach(tids, k, t)
	{
		if (!json_is_integer(t) || json_integer_value(t) < 1 ||
		    json_integer_value(t) > UINT32_MAX) {
			return fail(d, "groups[%zu].tids[%zu]: must be a thread ID 1..4294967295",
				    i, k);
		}
	}
	return 0;
}

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
		if (check_group(d, g, i) < 0) {
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

/* The hooks a stamping session names in pmc's messages (by enum truth_stamp). */
static const char *const stamp_hooks[TRUTH_NSTAMP] = {
	[TRUTH_STAMP_CSWITCH] = "0x0524/0x0525",
	[TRUTH_STAMP_SPINLOCK] = "0x0529",
};

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

/* The largest tick and clock values seen so far (the default of stop/end). */
static void high_marks(const struct truth_reader *r, uint32_t *tick, uint64_t ts[SIM_CLOCK_SLOTS])
{
	*tick = (uint32_t)r->max_tick.v;
	for (unsigned c = 0; c < SIM_CLOCK_SLOTS; c++) {
		ts[c] = r->max_ts[c].v;
	}
}

static int check_end(const struct rd *d, struct truth_reader *r, const struct sim_end *end);

/* ---- the record lines, from their tables (truth_kinds.h) -------------------- */

/*
 * A line is read field by field of its kind's table, in the table's order
 * (the first fault of a line is the one named): each "how" reads the key
 * into the member m (of C type ctype) or fails with the message. Defaults
 * are set before: a field's own, or the reader's history's.
 */
#define REQ_REQ	 true
#define REQ_OPT	 false
#define REQ_LAST false
#define REQ_HIGH false

#define J_INT(key, lo, hi, req, m, ctype)                                                          \
	do {                                                                                       \
		int64_t v_ = 0;                                                                    \
                                                                                                   \
		if ((rc = get_int(d, o, "", key, req, lo, hi, &v_)) < 0) {                         \
			return rc;                                                                 \
		}                                                                                  \
		if (rc > 0) {                                                                      \
			m = (ctype)v_;                                                             \
		}                                                                                  \
	} while (0)
#define J_U(key, lo, hi, req, m, ctype)	  J_INT(key, lo, hi, req, m, ctype)
#define J_I(key, lo, hi, req, m, ctype)	  J_INT(key, lo, hi, req, m, ctype)
#define J_CPU(key, lo, hi, req, m, ctype) J_INT(key, 0, (int64_t)r->cfg.cpus - 1, req, m, ctype)
#define J_CALL(call)                                                                               \
	do {                                                                                       \
		if ((rc = (call)) < 0) {                                                           \
			return rc;                                                                 \
		}                                                                                  \
	} while (0)
#define J_TS(key, lo, hi, req, m, ctype) J_CALL(get_ts(d, r->used, o, key, req, m))
#define J_PMC(key, lo, hi, req, m, ctype)                                                          \
	J_CALL(parse_pmc(d, r, o, r->stamp[stamp], r->nstamp[stamp], stamp_hooks[stamp], m))
#define J_PEBS(key, lo, hi, req, m, ctype) J_CALL(get_pebs_index(d, o, key, &m))
#define J_ADDR(key, lo, hi, req, m, ctype)                                                         \
	J_CALL(get_addr(d, o, key, req, r->cfg.arch == ETL_ARCH_X86 ? UINT32_MAX : UINT64_MAX,     \
			"arch x86", &m))
#define J_BOOL(key, lo, hi, req, m, ctype) J_CALL(get_bool(d, o, "", key, req, &m))
#define J_STR(key, lo, hi, req, m, ctype)  J_CALL(get_kept_str(d, r, o, key, req, &m))
/* only checked to be a string */
#define J_GROUP(key, lo, hi, req, m, ctype)                                                        \
	do {                                                                                       \
		const char *s_;                                                                    \
                                                                                                   \
		J_CALL(get_str(d, o, "", key, req, &s_));                                          \
	} while (0)
#define J_WHY(key, lo, hi, req, m, ctype)   J_CALL(get_why(d, o, key, req, &m))
#define J_CLOCK(key, lo, hi, req, m, ctype) J_CALL(get_clock(d, o, key, req, &m))
#define J_EVENT(key, lo, hi, req, m, ctype) J_CALL(get_event(d, o, key, req, hi, &m))
#define J_BUF(key, lo, hi, req, m, ctype)   J_CPU(key, lo, hi, req, m, ctype)
#define J_TEXT(key, lo, hi, req, m, ctype)  J_CALL(get_text(d, r, o, key, req, &m))
#define J_SID(key, lo, hi, req, m, ctype)   J_CALL(get_sid(d, r, o, key, req, &m))

/* Defaults: the field's own (dflt), or the CPU's last (LAST) or the largest so far (HIGH). */
#define J_PRE_REQ(how, m, name)
#define J_PRE_OPT(how, m, name)
#define J_PRE_LAST(how, m, name) m = r->hist[rec->cpu].name;
#define J_PRE_HIGH(how, m, name) J_HIGH_##how(m)
#define J_HIGH_U(m)		 m = (uint32_t)r->max_tick.v;
#define J_HIGH_TS(m)                                                                               \
	for (unsigned c_ = 0; c_ < SIM_CLOCK_SLOTS; c_++) {                                        \
		m[c_] = r->max_ts[c_].v;                                                           \
	}
#define J_DFLT(x, name, ctype, how, lo, hi, need, dflt, when) J_DFLT_##how(rec->name, dflt)
#define J_DFLT_U(m, v)					      m = v;
#define J_DFLT_I(m, v)					      m = v;
#define J_DFLT_CPU(m, v)
#define J_DFLT_TS(m, v)
#define J_DFLT_PMC(m, v)
#define J_DFLT_PEBS(m, v) m = v;
#define J_DFLT_ADDR(m, v)
#define J_DFLT_BOOL(m, v) m = v;
#define J_DFLT_WHY(m, v)  m = v;
#define J_DFLT_STR(m, v)
#define J_DFLT_GROUP(m, v)
#define J_DFLT_EVENT(m, v)
#define J_DFLT_BUF(m, v)
#define J_DFLT_TEXT(m, v)
#define J_DFLT_SID(m, v)
#define J_DFLT_CLOCK(m, v)

#define J_ROW(x, name, ctype, how, lo, hi, need, dflt, when)                                       \
	J_PRE_##need(how, rec->name, name) J_##how(#name, lo, hi, REQ_##need, rec->name, ctype);
#define J_CHECK(x, name)                                                                           \
	do {                                                                                       \
		struct etwforge_error e_; /* written only when the check fails */                  \
                                                                                                   \
		if (truth_check_##name(&r->cfg, rec, &e_) < 0) {                                   \
			return fail(d, "%s", e_.msg);                                              \
		}                                                                                  \
	} while (0);

/* Once read: a line with a "cpu" against that CPU's history, and the kind's own check. */
#define J_CPU_TIME(x, name, ctype, how, ...) J_CPU_TIME_##how
#define J_CPU_TIME_CPU			     J_CALL(check_cpu_time(d, r, rec->cpu, rec->tick, rec->ts));
#define J_CPU_TIME_U
#define J_CPU_TIME_I
#define J_CPU_TIME_TS
#define J_CPU_TIME_PMC
#define J_CPU_TIME_PEBS
#define J_CPU_TIME_ADDR
#define J_CPU_TIME_BOOL
#define J_CPU_TIME_WHY
#define J_CPU_TIME_STR
#define J_CPU_TIME_GROUP
#define J_CPU_TIME_EVENT
#define J_CPU_TIME_TEXT
#define J_CPU_TIME_SID
/* identity lines have no tick: their clocks alone are held to the CPU's history */
#define J_CPU_TIME_BUF J_CALL(check_cpu_time(d, r, rec->cpu, r->hist[rec->cpu].tick, rec->ts));
#define J_CPU_TIME_CLOCK
#define AFTER_NONE
#define AFTER_END J_CALL(check_end(d, r, rec));

#define J_PARSE(kind, ENUM, ctype, um, what, FIELDS, stamp_of, after)                              \
	static int parse_##kind(const struct rd *d, struct truth_reader *r, json_t *o, ctype *rec) \
	{                                                                                          \
		const unsigned stamp = stamp_of;                                                   \
		int rc;                                                                            \
                                                                                                   \
		(void)stamp;                                                                       \
		memset(rec, 0, sizeof(*rec));                                                      \
		FIELDS(J_DFLT, TRUTH_NO_CHECK, kind)                                               \
		if (check_fields(d, o, "", what, fields_##kind, NFIELDS(fields_##kind)) < 0) {     \
			return -EINVAL;                                                            \
		}                                                                                  \
		FIELDS(J_ROW, J_CHECK, kind)                                                       \
		FIELDS(J_CPU_TIME, TRUTH_NO_CHECK, kind)                                           \
		AFTER_##after return 0;                                                            \
	}

TRUTH_KINDS(J_PARSE)

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
			if (r->map) {
				/* a mapped file is not scanned ahead for a NUL: each line the
				 * general way is (one the fast path took has none), so the
				 * first one found is the stream's first, as when read */
				const char *z = memchr(*s, '\0', *n);

				if (z) {
					r->nul_at = (uint64_t)(z - r->buf) + 1;
					return -2;
				}
			}
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
			char *nb = realloc(r->buf, cap + TRUTH_FAST_PAD + 1);

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
		memset(r->buf + r->len, 0, TRUTH_FAST_PAD); /* truth_fast_cswitch() reads ahead */
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
		if (je.column > 0) {
			return error_fail_at(d->err, -EINVAL, ERR_INPUT, "%s:%lu:%d: %s", d->path,
					     d->line, je.column, je.text);
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
	free(r->kept);
	if (r->map) {
		munmap(r->map, r->map_len);
	} else {
		free(r->buf);
	}
	free(r->path);
	free(r);
}

/*
 * Map @r's stream when it is a regular file of its own: its bytes at
 * buf[0..len), then zeros (the TRUTH_FAST_PAD the fast path reads ahead
 * and the NUL after the last line, in an anonymous mapping the file's is
 * laid over), as if it had been read whole. The file is taken as it is
 * now: bytes appended later are not read. Return: whether it is mapped
 * (if not, it is read in blocks).
 */
static bool map_stream(struct truth_reader *r)
{
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);
	size_t len, total;
	char *m;
	int fd;

	if (!r->own_f || page <= 0 || (fd = fileno(r->f)) < 0 || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX / 2) {
		return false;
	}
	len = (size_t)st.st_size;
	total = (len + TRUTH_FAST_PAD + 1 + (size_t)page - 1) & ~((size_t)page - 1);
	m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		return false;
	}
	/* private and writable: the general path puts a NUL after its line */
	if (mmap(m, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
		munmap(m, total);
		return false;
	}
	r->map = r->buf = m;
	r->map_len = total;
	r->cap = r->len = len;
	r->eof = true;
	return true;
}

/* Let go of the mapped pages the reader has passed (a later touch would read them again). */
static void drop_behind(struct truth_reader *r)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t to = page > 0 ? r->pos & ~((size_t)page - 1) : 0;

	if (to > r->dropped) {
		(void)madvise(r->map + r->dropped, to - r->dropped, MADV_DONTNEED);
		r->dropped = to;
	}
}

/* Read the meta line of @r (its stream is open) into @cfg and get ready. */
static struct truth_reader *truth_start(struct truth_reader *r, struct trace_config *cfg,
					struct etwforge_error *err)
{
	struct rd d = {r->path, 1, err};
	json_t *o = NULL;
	char *line;
	size_t n;
	int rc, e;

	if (map_stream(r)) {
		/* read as if whole */
	} else if (!(r->buf = calloc(1, READ_BLOCK + TRUTH_FAST_PAD + 1))) {
		e = ENOMEM;
		error_fail_at(err, -EINVAL, ERR_INPUT, "%s: %s", r->path, strerror(e));
		goto fail;
	} else {
		r->cap = READ_BLOCK;
	}
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
	r->nstamp[TRUTH_STAMP_CSWITCH] =
		truth_stamping_sessions(cfg, false, r->stamp[TRUTH_STAMP_CSWITCH]);
	r->nstamp[TRUTH_STAMP_SPINLOCK] =
		truth_stamping_sessions(cfg, true, r->stamp[TRUTH_STAMP_SPINLOCK]);
	truth_fast_init(&r->fast, &r->cfg);
	r->hist = calloc(cfg->cpus, sizeof(*r->hist));
	if (!r->hist) {
		e = ENOMEM;
		error_fail_at(err, -EINVAL, ERR_INPUT, "%s: %s", r->path, strerror(e));
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
				      struct etwforge_error *err)
{
	struct truth_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->path = strdup(name))) {
		if (own) {
			fclose(f);
		}
		free(r);
		error_fail_at(err, -EINVAL, ERR_INPUT, "%s: %s", name, strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	r->f = f;
	r->own_f = own;
	return truth_start(r, cfg, err);
}

struct truth_reader *truth_open(const char *path, struct trace_config *cfg,
				struct etwforge_error *err)
{
	FILE *f;

	if (!strcmp(path, "-")) {
		return reader_on("<stdin>", stdin, false, cfg, err);
	}
	f = input_open(path, err);
	if (!f) {
		int e = errno;

		error_reclass(err, -EINVAL, ERR_INPUT); /* as every stream the caller gave */
		errno = e;
		return NULL;
	}
	return reader_on(path, f, true, cfg, err);
}

struct truth_reader *truth_open_mem(const char *name, const char *text, size_t len,
				    struct trace_config *cfg, struct etwforge_error *err)
{
	/* fmemopen wants a writable pointer; "r" never writes through it */
	FILE *f = fmemopen((void *)(uintptr_t)text, len, "r");

	if (!f) {
		int e = errno;

		error_fail_at(err, -EINVAL, ERR_INPUT, "%s: %s", name, strerror(e));
		errno = e;
		return NULL;
	}
	return reader_on(name, f, true, cfg, err);
}

/*
 * What the fast path leaves to the reader, field by field of the kind's
 * table: the defaults of its history (the fast path says what was given),
 * a string kept, and the checks of the jansson path once a line is read.
 */
#define F_FIX_REQ(how, m, name)
#define F_FIX_OPT(how, m, name)
#define F_FIX_LAST(how, m, name)                                                                   \
	if (!opt->tick) {                                                                          \
		m = r->hist[rec->cpu].name;                                                        \
	}
#define F_FIX_HIGH(how, m, name) F_HIGH_##how(m)
#define F_HIGH_U(m)                                                                                \
	if (!opt->tick) {                                                                          \
		m = (uint32_t)r->max_tick.v;                                                       \
	}
#define F_HIGH_TS(m)                                                                               \
	for (unsigned c_ = 0; c_ < SIM_CLOCK_SLOTS; c_++) {                                        \
		if (!(opt->ts & 1u << c_)) {                                                       \
			m[c_] = r->max_ts[c_].v;                                                   \
		}                                                                                  \
	}
#define F_KEEP_STR(m)                                                                              \
	if (opt->name) {                                                                           \
		size_t len_ =                                                                      \
			opt->name_len < sizeof(r->name) - 1 ? opt->name_len : sizeof(r->name) - 1; \
                                                                                                   \
		memcpy(r->name, opt->name, len_);                                                  \
		r->name[len_] = '\0';                                                              \
		m = r->name;                                                                       \
	}
#define F_KEEP_U(m)
#define F_KEEP_I(m)
#define F_KEEP_CPU(m)
#define F_KEEP_TS(m)
#define F_KEEP_PMC(m)
#define F_KEEP_PEBS(m)
#define F_KEEP_ADDR(m)
#define F_KEEP_BOOL(m)
#define F_KEEP_WHY(m)
#define F_KEEP_GROUP(m)
#define F_KEEP_EVENT(m)
#define F_KEEP_BUF(m)
#define F_KEEP_TEXT(m)
#define F_KEEP_SID(m)
#define F_KEEP_CLOCK(m)
#define F_ROW(x, name, ctype, how, lo, hi, need, dflt, when)                                       \
	F_FIX_##need(how, rec->name, name) F_KEEP_##how(rec->name)

#define F_FINISH(kind, ENUM, ctype, um, what, FIELDS, stamp_of, after)                             \
	static int finish_##kind(const struct rd *d, struct truth_reader *r, ctype *rec,           \
				 const struct truth_fast_opt *opt)                                 \
	{                                                                                          \
		int rc = 0;                                                                        \
                                                                                                   \
		(void)d;                                                                           \
		(void)opt;                                                                         \
		(void)rc;                                                                          \
		FIELDS(F_ROW, TRUTH_NO_CHECK, kind)                                                \
		FIELDS(J_CPU_TIME, TRUTH_NO_CHECK, kind)                                           \
		AFTER_##after return 0;                                                            \
	}

TRUTH_KINDS(F_FINISH)

#define F_CASE(kind, ENUM, ctype, um, ...)                                                         \
	case TRUTH_##ENUM:                                                                         \
		rc = finish_##kind(d, r, &rec->u.um, &opt);                                        \
		break;

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
	int rc;

	if (kind && opt.ntext) {
		/* the identity strings: copies for the record, as get_text() keeps them */
		if (r->kept_cap < n + 1) {
			char *k = realloc(r->kept, n + 1);

			if (!k) {
				return 0; /* the jansson path says it */
			}
			r->kept = k;
			r->kept_cap = n + 1;
		}
		r->kept_len = 0;
		for (unsigned i = 0; i < opt.ntext; i++) {
			char *to = r->kept + r->kept_len;

			memcpy(to, opt.text[i].s, opt.text[i].n);
			to[opt.text[i].n] = '\0';
			*opt.text[i].to = to;
			r->kept_len += opt.text[i].n + 1;
		}
	}
	switch (kind) {
		TRUTH_KINDS(F_CASE)
	default:
		return 0;
	}
	rec->kind = (enum truth_kind)kind;
	return rc < 0 ? rc : kind;
}

/* Each kind's name, for the message of an unknown one. */
#define KIND_NAME(kind, ...) #kind,
static const char *const kind_names[] = {TRUTH_KINDS(KIND_NAME)};

/* "kind": an unknown one is named with a did-you-mean, or the list. */
static int unknown_kind(const struct rd *d, const char *kind)
{
	const char *near = suggest_name(kind, kind_names, NFIELDS(kind_names));
	char list[256] = "";
	size_t n = 0;

	if (near) {
		return fail(d, "kind: unknown \"%s\" (did you mean '%s'?)", kind, near);
	}
	for (unsigned i = 0; i < NFIELDS(kind_names) && n < sizeof(list); i++) {
		int k = snprintf(list + n, sizeof(list) - n, "%s%s",
				 i == 0				? ""
				 : i + 1 == NFIELDS(kind_names) ? " or "
								: ", ",
				 kind_names[i]);

		n += k > 0 ? (size_t)k : 0;
	}
	return fail(d, "kind: unknown \"%s\" (%s)", kind, list);
}

/* What the line holds must fit its record (truth_limits.c). Return: @kind, or -EINVAL. */
static int limits(const struct rd *d, const struct truth_record *rec, int kind)
{
	struct etwforge_error e; /* written only when a limit is passed */

	if (truth_check_limits(rec, &e) < 0) {
		return fail(d, "%s", e.msg);
	}
	return kind;
}

#define J_CASE(knd, ENUM, ctype, um, ...)                                                          \
	else if (!strcmp(kind, #knd))                                                              \
	{                                                                                          \
		rc = parse_##knd(&d, r, o, &rec->u.um);                                            \
		rec->kind = TRUTH_##ENUM;                                                          \
	}

int truth_next(struct truth_reader *r, struct truth_record *rec, struct etwforge_error *err)
{
	struct rd d = {r->path, r->line, err};
	const char *kind;
	json_t *o;
	char *s;
	size_t n;
	int rc;

	if (r->map && r->pos - r->dropped >= DROP_STEP) {
		drop_behind(r);
	}
	if (!r->end_line && !r->no_fast && !r->blank_line && r->pos < r->len) {
		/* gen's switch line, read where it lies (its end is found as it is read) */
		const char *q =
			truth_fast_cswitch(&r->fast, r->buf + r->pos, r->buf + r->len, &rec->u.cs);

		if (q) {
			r->pos = (size_t)(q - r->buf);
			d.line = ++r->line;
			rec->kind = TRUTH_CSWITCH;
			rec->line = d.line;
			rc = check_cpu_time(&d, r, rec->u.cs.cpu, rec->u.cs.tick, rec->u.cs.ts);
			return rc < 0 ? rc : TRUTH_CSWITCH;
		}
	}
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
		return rc < 0 ? rc : limits(&d, rec, rc);
	}
	memset(&rec->u, 0, sizeof(rec->u));
	rec->kind = TRUTH_EOF;
	r->kept_len = 0;
	if (r->kept_cap < n + 1) {
		char *k = realloc(r->kept, n + 1);

		if (!k) {
			return fail(&d, "out of memory");
		}
		r->kept = k;
		r->kept_cap = n + 1;
	}
	if ((rc = load_object(&d, s, n, &o)) < 0) {
		return rc;
	}
	if (r->end_line) {
		rc = fail(&d, "a record after the end line (line %lu)", r->end_line);
	} else if ((rc = get_str(&d, o, "", "kind", true, &kind)) < 0) {
		/* reported */
	}
	TRUTH_KINDS(J_CASE)
	else
	{
		rc = unknown_kind(&d, kind);
	}
	json_decref(o);
	return rc < 0 ? rc : limits(&d, rec, (int)rec->kind);
}
