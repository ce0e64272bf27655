/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_write.c - writing the truth / replay stream declared in
 * tools/lib/truth.h: one JSON object per line (DESIGN.md "Truth / replay
 * stream") in a fixed key order, so a line is byte-for-byte the same for
 * the same record. truth_sink() tees the engine's records into it for
 * `gen --truth`; truth_read.c reads it back.
 *
 * Speed: a line is formatted into memory, at a cursor kept in a register,
 * with the integer formatter of dec_fmt.h (up to eight digits made at once)
 * and literal keys copied as constants, after one check that the line's
 * worst case fits, and leaves in one fwrite; the sink's lines gather in a
 * large buffer of the writer first.
 * printf's format parsing cost more than the simulation that made the
 * records.
 *
 * Choices where DESIGN.md is silent (documented in tools/lib/truth.h):
 *  - "pmc" holds the values of the sessions that stamp the event (the rule
 *    is in truth_schema.c): a list when they all list the same counters,
 *    an object keyed by session name otherwise, absent when none stamps.
 *  - Strings are written with JSON escapes; bytes that are not UTF-8 are
 *    written as U+FFFD so that the line stays readable JSON.
 */
#include "tools/lib/truth/truth.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/dec_fmt.h"
#include "tools/lib/truth/truth_schema.h"

/* ---- formatting into memory ------------------------------------------------ */

/*
 * Derived once per line from the configuration (or once per run by the
 * sink): the clocks in use, and who stamps PMC values on each kind.
 */
struct stampers {
	unsigned n, idx[SIM_MAX_SESSIONS];
	bool same;    /* they list the same counters: "pmc" is a list */
	size_t bound; /* room their "pmc" takes at most */
};

struct shape {
	bool used[SIM_CLOCK_SLOTS];
	bool pebs; /* a session has PEBS: switches carry "pebs_index" */
	bool rows; /* spin_rows known: spin locks carry the PRCB counters */
	struct stampers stamp[TRUTH_NSTAMP]; /* by enum truth_stamp */
};

/*
 * A line being built: @p is the cursor. Writers that know a bound call
 * room() once and then append unchecked; the meta line, whose length has
 * no bound, calls room() before each piece. A line is built on the stack
 * (then on the heap if it outgrows it), or at the end of a writer's
 * buffer (@wb), which room() empties into its stream when full.
 */
struct line {
	char *p;
	char *end;
	char *base;
	char *heap; /* when the line outgrew @stack */
	struct truth_wbuf *wb;
	FILE *f; /* @wb's stream */
	int err; /* why room() failed: -ENOMEM or -EIO */
	char stack[1024];
};

/*
 * struct truth_wbuf - truth_writer_init's buffer: whole lines, handed to
 * the stream in large blocks, and what the lines need of the configuration.
 */
struct truth_wbuf {
	char *buf;
	size_t len; /* bytes of whole lines in @buf */
	size_t cap;
	bool shaped; /* @sh is set (at the first record line) */
	struct shape sh;
};

/*
 * A writer's buffer: 256 KiB, not 1 MiB - fewer system calls gain nothing,
 * and a buffer that stays in the cache is copied into the page cache faster
 * (gen --truth -j 1 of server64, 2 s: 404 -> 321 ms CPU, medians of 9).
 */
#define WBUF_SIZE     (1u << 18)
#define U64_MAX_CHARS 20u /* 18446744073709551615, or -9223372036854775808 */

static void line_init(struct line *l)
{
	l->base = l->p = l->stack;
	l->end = l->stack + sizeof(l->stack);
	l->heap = NULL;
	l->wb = NULL;
	l->f = NULL;
	l->err = 0;
}

/* A line at the end of @wb's whole lines. */
static void line_init_wbuf(struct line *l, struct truth_wbuf *wb, FILE *f)
{
	l->base = l->p = wb->buf + wb->len;
	l->end = wb->buf + wb->cap;
	l->heap = NULL;
	l->wb = wb;
	l->f = f;
	l->err = 0;
}

static void line_free(struct line *l)
{
	free(l->heap);
}

/* Hand @wb's whole lines to @f. Return: 0 or -EIO (sticky in the stream). */
static int wbuf_drain(struct truth_wbuf *wb, FILE *f)
{
	size_t n = wb->len;

	wb->len = 0;
	if (n && fwrite(wb->buf, 1, n, f) != n) {
		return -EIO;
	}
	return ferror(f) ? -EIO : 0;
}

/*
 * Room in a writer's buffer: drain the whole lines before this one, grow if
 * still short. A writer without a stream keeps its lines: it only grows.
 */
static bool room_wbuf(struct line *l, size_t n)
{
	struct truth_wbuf *wb = l->wb;
	size_t part = (size_t)(l->p - l->base);
	int rc = l->f ? wbuf_drain(wb, l->f) : 0;

	if (rc < 0) {
		l->err = rc;
		return false;
	}
	if (!l->f) {
		size_t kept = (size_t)(l->base - wb->buf), cap = wb->cap;
		char *nb;

		while (cap - kept - part < n) {
			cap *= 2;
		}
		nb = realloc(wb->buf, cap);
		if (!nb) {
			l->err = -ENOMEM;
			return false;
		}
		wb->buf = nb;
		wb->cap = cap;
		l->base = nb + kept;
		l->p = l->base + part;
		l->end = nb + cap;
		return true;
	}
	memmove(wb->buf, l->base, part);
	if (wb->cap - part < n) {
		size_t cap = wb->cap;
		char *nb;

		while (cap - part < n) {
			cap *= 2;
		}
		nb = realloc(wb->buf, cap);
		if (!nb) {
			l->err = -ENOMEM;
			return false;
		}
		wb->buf = nb;
		wb->cap = cap;
	}
	l->base = wb->buf;
	l->p = wb->buf + part;
	l->end = wb->buf + wb->cap;
	return true;
}

/*
 * Make room for @n more bytes, and DEC_ROOM past them (a number's wide
 * stores); false (and @l->err) when that fails.
 */
static bool room(struct line *l, size_t n)
{
	size_t used = (size_t)(l->p - l->base), cap = (size_t)(l->end - l->base);
	char *nb;

	n += DEC_ROOM;
	if (n <= (size_t)(l->end - l->p)) {
		return true;
	}
	if (l->wb) {
		return room_wbuf(l, n);
	}
	while (cap - used < n) {
		cap *= 2;
	}
	nb = realloc(l->heap, cap);
	if (!nb) {
		l->err = -ENOMEM;
		return false;
	}
	if (!l->heap) {
		memcpy(nb, l->stack, used);
	}
	l->heap = l->base = nb;
	l->p = nb + used;
	l->end = nb + cap;
	return true;
}

/*
 * The text goes in at a cursor (char *p) that each piece returns advanced,
 * so a record line is formatted with it in a register (W_FMT below). Kept
 * in the struct line instead, it would be read again after every byte
 * stored (a char store may alias it): each piece waiting on the last one's
 * store, about 45 times a switch line. The put_*() forms on a struct line
 * are for the meta line.
 */

/* Append a string literal (its length is a constant: the copy is inlined). */
#define LIT_AT(p, s) lit_at((p), (s), sizeof(s) - 1)
#define LIT(l, s)    ((l)->p = LIT_AT((l)->p, s))

static inline char *lit_at(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static inline void lit(struct line *l, const char *s, size_t n)
{
	l->p = lit_at(l->p, s, n);
}

static inline void put_c(struct line *l, char c)
{
	*l->p++ = c;
}

/* @v in decimal (dec_fmt.h: room() keeps DEC_ROOM bytes past what it is asked for). */
static inline void put_u64(struct line *l, uint64_t v)
{
	l->p = dec_u64(l->p, v);
}

static inline void put_i64(struct line *l, int64_t v)
{
	l->p = dec_i64(l->p, v);
}

/* "0x" and @v in lower-case hex, quoted (%" PRIx64 "). */
static char *addr_at(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	unsigned n = 1;
	char *e;

	while (n < 16 && v >> (4 * n)) {
		n++;
	}
	p = LIT_AT(p, "\"0x");
	e = p + n;
	p = e + 1;
	*e = '"';
	do {
		*--e = hex[v & 15];
		v >>= 4;
	} while (v);
	return p;
}

static inline char *bool_at(char *p, bool b)
{
	return b ? LIT_AT(p, "true") : LIT_AT(p, "false");
}

static inline void put_bool(struct line *l, bool b)
{
	l->p = bool_at(l->p, b);
}

/* Length of the valid UTF-8 sequence at @s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80) {
		return 1;
	} else if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		n = 2;
		cp = s[0] & 0x1Fu;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3;
		cp = s[0] & 0x0Fu;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4;
		cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0u) != 0x80u) {
			return 0;
		}
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	/* overlong forms, surrogates and values past U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
	    (cp >= 0xD800 && cp <= 0xDFFF)) {
		return 0;
	}
	return n;
}

/* The most a string of @len bytes takes as JSON: every byte "\u00XX", and the quotes. */
static size_t str_bound(size_t len)
{
	return 6 * len + 2;
}

/* A JSON string: quotes, backslashes and control bytes escaped (room: str_bound). */
static char *str_at(char *p, const char *str)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;

	*p++ = '"';
	while (*s) {
		size_t n = utf8_len(s);

		if (n == 0) {
			p = LIT_AT(p, "\\ufffd");
			s++;
		} else if (*s == '"' || *s == '\\') {
			*p++ = '\\';
			*p++ = (char)*s++;
		} else if (*s == '\n') {
			p = LIT_AT(p, "\\n");
			s++;
		} else if (*s == '\t') {
			p = LIT_AT(p, "\\t");
			s++;
		} else if (*s < 0x20 || *s == 0x7F) {
			p = LIT_AT(p, "\\u00");
			*p++ = hex[*s >> 4];
			*p++ = hex[*s & 15];
			s++;
		} else {
			p = lit_at(p, (const char *)s, n);
			s += n;
		}
	}
	*p++ = '"';
	return p;
}

static void put_str(struct line *l, const char *str)
{
	l->p = str_at(l->p, str);
}

/* put_str with its own room() call; false when out of memory. */
static bool put_str_room(struct line *l, const char *s)
{
	if (!room(l, str_bound(strlen(s)))) {
		return false;
	}
	put_str(l, s);
	return true;
}

/* Room for ,"ts":{..} (or ,"start_ts":{..}): the key, three clocks, the braces. */
#define TS_BOUND (16u + 3 * (10 + U64_MAX_CHARS))

/* {"qpc":..,"systime":..,"cycles":..} - the clocks in use, in that order. */
static inline char *clocks_at(char *p, const bool used[SIM_CLOCK_SLOTS],
			      const uint64_t ts[SIM_CLOCK_SLOTS])
{
	bool first = true;

	*p++ = '{';
	if (used[SIM_CLOCK_QPC]) {
		p = dec_u64(LIT_AT(p, "\"qpc\":"), ts[SIM_CLOCK_QPC]);
		first = false;
	}
	if (used[SIM_CLOCK_SYSTIME]) {
		if (!first) {
			*p++ = ',';
		}
		p = dec_u64(LIT_AT(p, "\"systime\":"), ts[SIM_CLOCK_SYSTIME]);
		first = false;
	}
	if (used[SIM_CLOCK_CYCLES]) {
		if (!first) {
			*p++ = ',';
		}
		p = dec_u64(LIT_AT(p, "\"cycles\":"), ts[SIM_CLOCK_CYCLES]);
	}
	*p++ = '}';
	return p;
}

static void clocks_used(const struct trace_config *cfg, bool used[SIM_CLOCK_SLOTS])
{
	used[0] = false;
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		used[c] = trace_config_clock_used(cfg, (enum sim_clock)c);
	}
}

/* ---- what a record line needs of the configuration ------------------------- */

static bool same_counters(const struct trace_session_cfg *a, const struct trace_session_cfg *b)
{
	return a->pmc_count == b->pmc_count &&
	       !memcmp(a->pmc_counters, b->pmc_counters, a->pmc_count);
}

static bool all_same(const struct trace_config *cfg, const unsigned *idx, unsigned n)
{
	for (unsigned i = 1; i < n; i++) {
		if (!same_counters(&cfg->sessions[idx[0]], &cfg->sessions[idx[i]])) {
			return false;
		}
	}
	return true;
}

/* Room for ,"pmc":.. of these stamping sessions. */
static size_t pmc_bound(const struct trace_config *cfg, const unsigned *idx, unsigned n)
{
	size_t b = 16;

	for (unsigned i = 0; i < n; i++) {
		b += str_bound(strlen(cfg->sessions[idx[i]].name)) + 4 +
		     SIM_MAX_PMC * (U64_MAX_CHARS + 1);
	}
	return b;
}

static void stampers_init(struct stampers *st, const struct trace_config *cfg, bool spin)
{
	st->n = truth_stamping_sessions(cfg, spin, st->idx);
	st->same = all_same(cfg, st->idx, st->n);
	st->bound = pmc_bound(cfg, st->idx, st->n);
}

static void shape_init(struct shape *sh, const struct trace_config *cfg)
{
	clocks_used(cfg, sh->used);
	sh->pebs = false;
	for (unsigned i = 0; i < cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		sh->pebs = sh->pebs || cfg->sessions[i].pebs;
	}
	sh->rows = cfg->spin_rows != TRACE_SPIN_ROWS_UNKNOWN;
	stampers_init(&sh->stamp[TRUTH_STAMP_CSWITCH], cfg, false);
	stampers_init(&sh->stamp[TRUTH_STAMP_SPINLOCK], cfg, true);
}

static inline char *values_at(char *p, const struct trace_session_cfg *s,
			      const uint64_t pmc[SIM_MAX_COUNTERS])
{
	*p++ = '[';
	for (unsigned j = 0; j < s->pmc_count && j < SIM_MAX_PMC; j++) {
		if (j) {
			*p++ = ',';
		}
		p = dec_u64(p, pmc[s->pmc_counters[j] % SIM_MAX_COUNTERS]);
	}
	*p++ = ']';
	return p;
}

/* ,"pmc":[..] or ,"pmc":{"name":[..],..}, nothing when no session stamps. */
static inline char *pmc_at(char *p, const struct trace_config *cfg, const struct stampers *st,
			   const uint64_t pmc[SIM_MAX_COUNTERS])
{
	if (st->n == 0) {
		return p;
	}
	p = LIT_AT(p, ",\"pmc\":");
	if (st->same) {
		return values_at(p, &cfg->sessions[st->idx[0]], pmc);
	}
	*p++ = '{';
	for (unsigned i = 0; i < st->n; i++) {
		if (i) {
			*p++ = ',';
		}
		p = str_at(p, cfg->sessions[st->idx[i]].name);
		*p++ = ':';
		p = values_at(p, &cfg->sessions[st->idx[i]], pmc);
	}
	*p++ = '}';
	return p;
}

/* @s (@n bytes) in quotes. */
static char *quoted_at(char *p, const char *s, size_t n)
{
	*p++ = '"';
	p = lit_at(p, s, n);
	*p++ = '"';
	return p;
}

/* A spin lock's "why" (an unknown value is written "none"). */
static char *why_at(char *p, enum sim_spin_why why)
{
	unsigned k = (unsigned)why < TRUTH_NWHY ? (unsigned)why : SIM_SPIN_NONE;

	return quoted_at(p, truth_why_names[k], strlen(truth_why_names[k]));
}

static char *event_at(char *p, enum sim_event e)
{
	const char *name = sim_event_name(e);

	return quoted_at(p, name ? name : "?", name ? strlen(name) : 1);
}

static char *clock_at(char *p, enum sim_clock c)
{
	const char *name = sim_clock_name(c);

	return quoted_at(p, name, strlen(name));
}

/* ---- the record lines, from their tables (truth_kinds.h) --------------------- */

/*
 * A line is its kind, then each field of its table in order: the key and
 * the value as the field's "how" says, when its "when" holds. The room it
 * needs is the sum of each field's most, worked out at compile time but
 * for strings and "pmc".
 */
#define W_WHEN_ALWAYS(v) 1
#define W_WHEN_PEBS(v)	 sh->pebs
#define W_WHEN_ROWS(v)	 sh->rows
#define W_WHEN_TRUE(v)	 (v)
#define W_WHEN_SET(v)	 ((v) != NULL)

#define W_U(key, v)	p = dec_u64(LIT_AT(p, key), (uint64_t)(v))
#define W_CPU(key, v)	W_U(key, v)
#define W_I(key, v)	p = dec_i64(LIT_AT(p, key), (int64_t)(v))
#define W_TS(key, v)	p = clocks_at(LIT_AT(p, key), sh->used, v)
#define W_PMC(key, v)	p = pmc_at(p, cfg, &sh->stamp[stamp], v)
#define W_PEBS(key, v)	p = addr_at(LIT_AT(p, key), v) /* a linear address: a hex string */
#define W_ADDR(key, v)	p = addr_at(LIT_AT(p, key), v)
#define W_BOOL(key, v)	p = bool_at(LIT_AT(p, key), v)
#define W_WHY(key, v)	p = why_at(LIT_AT(p, key), v)
#define W_STR(key, v)	p = str_at(LIT_AT(p, key), v)
#define W_GROUP(key, v) p = str_at(LIT_AT(p, key), v)
#define W_CLOCK(key, v) p = clock_at(LIT_AT(p, key), v)
#define W_EVENT(key, v) p = event_at(LIT_AT(p, key), v)
#define W_BUF(key, v)	W_U(key, v)
#define W_TEXT(key, v)	p = str_at(LIT_AT(p, key), v)
#define W_SID(key, v)	p = str_at(LIT_AT(p, key), v)

#define W_ROW(x, name, ctype, how, lo, hi, need, dflt, when)                                       \
	if (W_WHEN_##when(rec->name)) {                                                            \
		W_##how(",\"" #name "\":", rec->name);                                             \
	}

/* The most a value takes (a string's and "pmc"'s: BR_ below). */
#define B_U						     U64_MAX_CHARS
#define B_CPU						     U64_MAX_CHARS
#define B_I						     U64_MAX_CHARS
#define B_TS						     TS_BOUND
#define B_PMC						     0
#define B_PEBS						     (4 + 16)
#define B_ADDR						     (4 + 16)
#define B_BOOL						     5
#define B_WHY						     (2 + 16)
#define B_STR						     0
#define B_GROUP						     0
#define B_CLOCK						     (2 + 8)
#define B_EVENT						     (2 + 14) /* "hypercall_page" */
#define B_BUF						     U64_MAX_CHARS
#define B_TEXT						     0
#define B_SID						     0
#define B_ROW(x, name, ctype, how, lo, hi, need, dflt, when) +sizeof(",\"" #name "\":") + B_##how

#define BR_STR(v)					      ((v) ? str_bound(strlen(v)) : 0)
#define BR_GROUP(v)					      ((v) ? str_bound(strlen(v)) : 0)
#define BR_TEXT(v)					      ((v) ? str_bound(strlen(v)) : 0)
#define BR_SID(v)					      ((v) ? str_bound(strlen(v)) : 0)
#define BR_BUF(v)					      0
#define BR_PMC(v)					      sh->stamp[stamp].bound
#define BR_ROW(x, name, ctype, how, lo, hi, need, dflt, when) +BR_##how(rec->name)
#define BR_U(v)						      0
#define BR_CPU(v)					      0
#define BR_I(v)						      0
#define BR_TS(v)					      0
#define BR_PEBS(v)					      0
#define BR_ADDR(v)					      0
#define BR_BOOL(v)					      0
#define BR_WHY(v)					      0
#define BR_CLOCK(v)					      0
#define BR_EVENT(v)					      0

#define W_FMT(kind, ENUM, ctype, u, what, FIELDS, stamp_of, after)                                 \
	static bool fmt_##kind(struct line *l, const struct trace_config *cfg,                     \
			       const struct shape *sh, const ctype *rec)                           \
	{                                                                                          \
		const unsigned stamp = stamp_of;                                                   \
                                                                                                   \
		(void)cfg;                                                                         \
		(void)stamp;                                                                       \
		if (!room(l, sizeof("{\"kind\":\"" #kind "\"}\n") FIELDS(B_ROW, TRUTH_NO_CHECK, )  \
				     FIELDS(BR_ROW, TRUTH_NO_CHECK, ))) {                          \
			return false;                                                              \
		}                                                                                  \
		char *p = LIT_AT(l->p, "{\"kind\":\"" #kind "\"");                                 \
		FIELDS(W_ROW, TRUTH_NO_CHECK, kind)                                                \
		l->p = LIT_AT(p, "}\n");                                                           \
		return true;                                                                       \
	}

TRUTH_KINDS(W_FMT)

/* One "sessions" entry: DESIGN.md's keys, then the extensions. */
/* The names of @flags's bits as a JSON list (room: the caller's 200). */
static void put_names(struct line *l, unsigned flags, const char *const *names,
		      const unsigned *bits, unsigned n)
{
	bool first = true;

	put_c(l, '[');
	for (unsigned k = 0; k < n; k++) {
		if (flags & bits[k]) {
			if (!first) {
				put_c(l, ',');
			}
			put_c(l, '"');
			lit(l, names[k], strlen(names[k]));
			put_c(l, '"');
			first = false;
		}
	}
	put_c(l, ']');
}

static bool fmt_session(struct line *l, const struct trace_config *cfg,
			const struct trace_session_cfg *s)
{
	if (!room(l, 16)) {
		return false;
	}
	LIT(l, "{\"name\":");
	if (!put_str_room(l, s->name) || !room(l, 200)) {
		return false;
	}
	LIT(l, ",\"clock\":\"");
	lit(l, sim_clock_name(s->clock), strlen(sim_clock_name(s->clock)));
	LIT(l, "\",\"flags\":");
	put_names(l, s->flags, trace_flag_names, trace_flag_bits, TRACE_NFLAGS);
	LIT(l, ",\"pebs\":");
	put_bool(l, s->pebs);
	LIT(l, ",\"pmc\":{\"counters\":[");
	for (unsigned j = 0; j < s->pmc_count && j < SIM_MAX_PMC; j++) {
		if (!room(l, 1)) {
			return false;
		}
		if (j) {
			put_c(l, ',');
		}
		if (!put_str_room(l, cfg->counters[s->pmc_counters[j] % SIM_MAX_COUNTERS])) {
			return false;
		}
	}
	if (!room(l, 128)) {
		return false;
	}
	LIT(l, "],\"events\":[");
	for (unsigned j = 0; j < s->pmc_event_count && j < 4; j++) {
		static const char hex[] = "0123456789abcdef";
		unsigned h = s->pmc_events[j];

		if (j) {
			put_c(l, ',');
		}
		LIT(l, "\"0x");
		put_c(l, hex[h >> 12 & 15]);
		put_c(l, hex[h >> 8 & 15]);
		put_c(l, hex[h >> 4 & 15]);
		put_c(l, hex[h & 15]);
		put_c(l, '"');
	}
	LIT(l, "]},\"buffer_size\":");
	put_u64(l, s->buffer_size);
	LIT(l, ",\"file\":");
	if (!put_str_room(l, s->file) || !room(l, 128)) {
		return false;
	}
	LIT(l, ",\"pool_buffers\":");
	put_u64(l, s->pool_buffers);
	LIT(l, ",\"flush_latency\":");
	put_u64(l, s->flush_latency);
	if (s->compress) {
		/* only when set: older streams stay as they were */
		LIT(l, ",\"compressed\":true");
	}
	if (s->merged) {
		LIT(l, ",\"merged\":true"); /* only when set, as compressed */
	}
	if (s->stack_cache) {
		LIT(l, ",\"stack_cache\":"); /* only when set, as compressed */
		put_u64(l, s->stack_cache);
	}
	if (s->flags & PRODUCER_F_STACKS) {
		/* only when set: older streams stay as they were */
		if (!room(l, 64)) {
			return false;
		}
		LIT(l, ",\"stacks\":");
		put_names(l, s->flags, trace_stack_names, trace_stack_bits, TRACE_NSTACKS);
	}
	put_c(l, '}');
	return true;
}

static bool any_spinlock(const struct trace_config *cfg)
{
	for (unsigned i = 0; i < cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		if (cfg->sessions[i].flags & PRODUCER_F_SPINLOCK) {
			return true;
		}
	}
	return false;
}

static bool fmt_meta(struct line *l, const struct trace_config *cfg)
{
	bool used[SIM_CLOCK_SLOTS];

	assert(cfg->target);
	clocks_used(cfg, used);
	if (!room(l, 80)) {
		return false;
	}
	LIT(l, "{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"target\":");
	if (!put_str_room(l, cfg->target->name) || !room(l, 400)) {
		return false;
	}
	LIT(l, ",\"arch\":\"");
	if (cfg->arch == ETL_ARCH_X86) {
		LIT(l, "x86");
	} else {
		LIT(l, "x64");
	}
	LIT(l, "\",\"cpus\":");
	put_u64(l, cfg->cpus);
	LIT(l, ",\"cpu_mhz\":");
	put_u64(l, cfg->cpu_mhz);
	LIT(l, ",\"perf_freq\":");
	put_u64(l, cfg->perf_freq);
	LIT(l, ",\"timer_resolution\":");
	put_u64(l, cfg->timer_resolution);
	LIT(l, ",\"max_wait_reason\":");
	put_u64(l, cfg->max_wait_reason);
	LIT(l, ",\"start_time\":");
	put_i64(l, cfg->start_time);
	LIT(l, ",\"quirks\":");
	put_bool(l, cfg->quirks);
	LIT(l, ",\"seed\":");
	put_u64(l, cfg->seed);
	LIT(l, ",\"sessions\":[");
	for (unsigned i = 0; i < cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		if (!room(l, 1)) {
			return false;
		}
		if (i) {
			put_c(l, ',');
		}
		if (!fmt_session(l, cfg, &cfg->sessions[i])) {
			return false;
		}
	}
	if (!room(l, 96 + TS_BOUND)) {
		return false;
	}
	LIT(l, "],\"boot_time\":");
	put_i64(l, cfg->boot_time);
	if (cfg->have_start_ts) {
		LIT(l, ",\"start_ts\":");
		l->p = clocks_at(l->p, used, cfg->start_ts);
	}
	LIT(l, ",\"flush_at_end\":");
	put_bool(l, cfg->flush_at_end);
	LIT(l, ",\"pebs_and_pmc\":");
	put_bool(l, cfg->pebs_and_pmc);
	/* gen's extension: the thread groups and their TIDs at the start */
	if (cfg->ngroups) {
		LIT(l, ",\"groups\":[");
		for (unsigned g = 0; g < cfg->ngroups && g < TRACE_MAX_GROUPS; g++) {
			if (!room(l, 16)) {
				return false;
			}
			if (g) {
				put_c(l, ',');
			}
			LIT(l, "{\"name\":");
			if (!put_str_room(l, cfg->groups[g].name) || !room(l, 16)) {
				return false;
			}
			LIT(l, ",\"tids\":[");
			for (unsigned k = 0; k < cfg->groups[g].count; k++) {
				if (!room(l, 1 + U64_MAX_CHARS)) {
					return false;
				}
				if (k) {
					put_c(l, ',');
				}
				put_u64(l, cfg->groups[g].tids ? cfg->groups[g].tids[k]
							       : cfg->groups[g].first_tid + 4u * k);
			}
			if (!room(l, 8)) {
				return false;
			}
			LIT(l, "]}");
		}
		put_c(l, ']');
	}
	if (!room(l, 160 + 4 * U64_MAX_CHARS)) {
		return false;
	}
	/* gen's extension: the sampling parameters, and which releases have a line */
	if (any_spinlock(cfg) && cfg->spin_rows != TRACE_SPIN_ROWS_UNKNOWN) {
		LIT(l, ",\"spinlock\":{\"spin_threshold\":");
		put_u64(l, cfg->spin.spin_threshold);
		LIT(l, ",\"acquire_sample_rate\":");
		put_u64(l, cfg->spin.acquire_sample_rate);
		LIT(l, ",\"contention_sample_rate\":");
		put_u64(l, cfg->spin.contention_sample_rate);
		LIT(l, ",\"hold_threshold\":");
		put_u64(l, cfg->spin.hold_threshold);
		if (cfg->spin_rows == TRACE_SPIN_ROWS_ALL) {
			LIT(l, ",\"rows\":\"all\"}");
		} else {
			LIT(l, ",\"rows\":\"logged\"}");
		}
	}
	LIT(l, "}\n");
	return true;
}

/* ---- onto the stream ------------------------------------------------------- */

/*
 * Write the line (when it was built: @ok) and free it. Every write error
 * so far (sticky in the stream) is -EIO; out of memory is -ENOMEM.
 */
static int emit(FILE *f, struct line *l, bool ok)
{
	size_t n = (size_t)(l->p - l->base);
	int rc = 0;

	if (!ok) {
		rc = l->err;
	} else if (fwrite(l->base, 1, n, f) != n || ferror(f)) {
		rc = -EIO;
	}
	line_free(l);
	return rc;
}

int truth_write_meta(FILE *f, const struct trace_config *cfg)
{
	struct line l;

	line_init(&l);
	return emit(f, &l, fmt_meta(&l, cfg));
}

int truth_write_cswitch(FILE *f, const struct trace_config *cfg, const struct sim_cswitch *cs)
{
	struct shape sh;
	struct line l;

	shape_init(&sh, cfg);
	line_init(&l);
	return emit(f, &l, fmt_cswitch(&l, cfg, &sh, cs));
}

int truth_write_spinlock(FILE *f, const struct trace_config *cfg, const struct sim_spinlock *sl)
{
	struct shape sh;
	struct line l;

	shape_init(&sh, cfg);
	line_init(&l);
	return emit(f, &l, fmt_spinlock(&l, cfg, &sh, sl));
}

int truth_write_ccswap_stop(FILE *f, const struct trace_config *cfg,
			    const struct sim_ccswap_stop *st)
{
	struct shape sh;
	struct line l;

	shape_init(&sh, cfg);
	line_init(&l);
	return emit(f, &l, fmt_ccswap_stop(&l, cfg, &sh, st));
}

int truth_write_end(FILE *f, const struct trace_config *cfg, const struct sim_end *end)
{
	struct shape sh;
	struct line l;

	shape_init(&sh, cfg);
	line_init(&l);
	return emit(f, &l, fmt_end(&l, cfg, &sh, end));
}

/* A stack line: the model's addresses (@ips) printed as its frames. */
static bool fmt_stack_line(struct line *l, const struct trace_config *cfg, const struct shape *sh,
			   const struct sim_stack *st)
{
	static const char digits[] = "0123456789abcdef";
	char text[ETW_STACK_MAX_FRAMES * 19 + 1];
	struct sim_stack copy;
	size_t o = 0;

	if (st->frames || !st->ips) {
		return fmt_stack(l, cfg, sh, st);
	}
	for (uint32_t k = 0; k < st->nips && k < ETW_STACK_MAX_FRAMES; k++) {
		uint64_t a = st->ips[k];
		int shift = 60;

		if (k) {
			text[o++] = ' ';
		}
		text[o++] = '0';
		text[o++] = 'x';
		while (shift > 0 && !(a >> shift)) {
			shift -= 4;
		}
		for (; shift >= 0; shift -= 4) {
			text[o++] = digits[(a >> shift) & 0xFu];
		}
	}
	text[o] = '\0';
	copy = *st;
	copy.frames = text;
	return fmt_stack(l, cfg, sh, &copy);
}

/* An identity or rundown record's line, by its kind. */
static bool fmt_record(struct line *l, const struct trace_config *cfg, const struct shape *sh,
		       const struct sim_record *r)
{
	switch (r->kind) {
	case SIM_REC_PROCESS:
		return fmt_process(l, cfg, sh, &r->u.process);
	case SIM_REC_THREAD:
		return fmt_thread(l, cfg, sh, &r->u.thread);
	case SIM_REC_THREAD_NAME:
		return fmt_thread_name(l, cfg, sh, &r->u.thread_name);
	case SIM_REC_READY:
		return fmt_ready(l, cfg, sh, &r->u.ready);
	case SIM_REC_SAMPLE:
		return fmt_sample(l, cfg, sh, &r->u.sample);
	case SIM_REC_INTERVAL:
		return fmt_interval(l, cfg, sh, &r->u.interval);
	case SIM_REC_CPU_CONFIG:
		return fmt_config(l, cfg, sh, &r->u.cpu_config);
	case SIM_REC_MASKS:
		return fmt_masks(l, cfg, sh, &r->u.masks);
	case SIM_REC_RUNDOWN:
		return fmt_rundown(l, cfg, sh, &r->u.rundown);
	case SIM_REC_IMAGE:
		return fmt_image(l, cfg, sh, &r->u.image);
	case SIM_REC_STACK:
		return fmt_stack_line(l, cfg, sh, &r->u.stack);
	case SIM_REC_DPC:
		return fmt_dpc(l, cfg, sh, &r->u.dpc);
	default:
		l->err = -EINVAL;
		return false;
	}
}

int truth_write_record(FILE *f, const struct trace_config *cfg, const struct sim_record *r)
{
	struct shape sh;
	struct line l;

	shape_init(&sh, cfg);
	line_init(&l);
	return emit(f, &l, fmt_record(&l, cfg, &sh, r));
}

/* ---- the writer and its sink ------------------------------------------------ */

int truth_writer_init(struct truth_writer *w, FILE *f, const struct trace_config *cfg)
{
	w->f = f;
	w->cfg = cfg;
	w->wb = calloc(1, sizeof(*w->wb));
	if (!w->wb || !(w->wb->buf = malloc(WBUF_SIZE))) {
		free(w->wb);
		w->wb = NULL;
		return -ENOMEM;
	}
	w->wb->cap = WBUF_SIZE;
	return 0;
}

void truth_writer_finish(struct truth_writer *w)
{
	if (w && w->wb) {
		free(w->wb->buf);
		free(w->wb);
		w->wb = NULL;
	}
}

int truth_writer_flush(struct truth_writer *w)
{
	return wbuf_drain(w->wb, w->f);
}

int truth_writer_flush_to(struct truth_writer *w, FILE *f)
{
	return wbuf_drain(w->wb, f);
}

/* The line built at the end of @w's buffer is whole: keep it. */
static int keep(struct truth_writer *w, struct line *l, bool ok)
{
	if (!ok) {
		return l->err;
	}
	w->wb->len = (size_t)(l->p - w->wb->buf);
	return 0;
}

static const struct shape *writer_shape(struct truth_writer *w)
{
	if (!w->wb->shaped) {
		shape_init(&w->wb->sh, w->cfg);
		w->wb->shaped = true;
	}
	return &w->wb->sh;
}

/* truth_sink(): every line straight to the stream. */
static int sink_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	struct truth_writer *w = ctx;

	return truth_write_cswitch(w->f, w->cfg, cs);
}

static int sink_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	struct truth_writer *w = ctx;

	return truth_write_spinlock(w->f, w->cfg, sl);
}

static int sink_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	struct truth_writer *w = ctx;

	return truth_write_ccswap_stop(w->f, w->cfg, st);
}

static int sink_end(void *ctx, const struct sim_end *end)
{
	struct truth_writer *w = ctx;

	return truth_write_end(w->f, w->cfg, end);
}

static int sink_record(void *ctx, const struct sim_record *r)
{
	struct truth_writer *w = ctx;

	return truth_write_record(w->f, w->cfg, r);
}

static const struct trace_sink_ops truth_sink_ops = {
	.cswitch = sink_cswitch,
	.spinlock = sink_spinlock,
	.ccswap_stop = sink_stop,
	.end = sink_end,
	.record = sink_record,
};

struct trace_sink truth_sink(struct truth_writer *w)
{
	struct trace_sink s = {&truth_sink_ops, w};

	return s;
}

/* truth_writer_sink(): lines through the writer's buffer. */
static int wsink_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	struct truth_writer *w = ctx;
	const struct shape *sh = writer_shape(w);
	struct line l;

	line_init_wbuf(&l, w->wb, w->f);
	return keep(w, &l, fmt_cswitch(&l, w->cfg, sh, cs));
}

static int wsink_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	struct truth_writer *w = ctx;
	const struct shape *sh = writer_shape(w);
	struct line l;

	line_init_wbuf(&l, w->wb, w->f);
	return keep(w, &l, fmt_spinlock(&l, w->cfg, sh, sl));
}

static int wsink_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	struct truth_writer *w = ctx;
	struct line l;

	line_init_wbuf(&l, w->wb, w->f);
	return keep(w, &l, fmt_ccswap_stop(&l, w->cfg, writer_shape(w), st));
}

/* The end of tracing: the last line, and every buffered line goes to the stream. */
static int wsink_end(void *ctx, const struct sim_end *end)
{
	struct truth_writer *w = ctx;
	struct line l;
	int rc;

	line_init_wbuf(&l, w->wb, w->f);
	rc = keep(w, &l, fmt_end(&l, w->cfg, writer_shape(w), end));
	return rc < 0 ? rc : truth_writer_flush(w);
}

static int wsink_record(void *ctx, const struct sim_record *r)
{
	struct truth_writer *w = ctx;
	struct line l;

	line_init_wbuf(&l, w->wb, w->f);
	return keep(w, &l, fmt_record(&l, w->cfg, writer_shape(w), r));
}

static const struct trace_sink_ops truth_writer_ops = {
	.cswitch = wsink_cswitch,
	.spinlock = wsink_spinlock,
	.ccswap_stop = wsink_stop,
	.end = wsink_end,
	.record = wsink_record,
};

struct trace_sink truth_writer_sink(struct truth_writer *w)
{
	struct trace_sink s = {&truth_writer_ops, w};

	return s;
}
