/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_fast.c - the truth reader's fast path (truth_fast.h): a
 * record line in one pass, no allocation, no jansson.
 *
 * Pass 1 reads the whole object: each key is first compared with the one
 * gen writes next (the kind's key order, below), then looked up; a key's
 * value is kept as a token (an integer, a string's bytes, a literal, or
 * the span of an object or array, which is checked and skipped). "ts" is
 * read as it goes. Pass 2 checks the tokens of the line's kind as the
 * jansson path does and fills the record.
 *
 * Declined (return 0; truth_read.c then uses jansson): anything that is
 * not plain JSON of the schema - a syntax error, a duplicate key (jansson
 * rejects them at any depth), a string with an escape, a control byte or
 * a byte above 0x7F, a real number, an integer outside signed 64 bits,
 * nesting past MAX_DEPTH, a key the line's kind does not have (a typo:
 * the jansson path names it) but a writer's own "x_...", more than
 * MAX_KEYS of those in an object -
 * and every value the jansson path refuses (a missing key, a wrong type,
 * a value out of range). Declining costs speed, never correctness: every
 * error message comes from the jansson path.
 */
#include "tools/lib/truth/truth_fast.h"

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "tools/lib/truth/truth_schema.h"

#define MAX_DEPTH 16 /* nesting of an unknown key's value (jansson allows 2048) */
#define MAX_KEYS  16 /* unknown keys of one object, for the duplicate check */

#define KTHREAD_STATE_MAX 10
#define KTHREAD_WAITING	  5
#define WAIT_REASON_MAX	  63
#define PRIORITY_MAX	  31
#define QOS_MAX		  7
#define IRQL_MAX	  31
#define SPIN_MODE_MAX	  0x3F

/* Every key some record kind reads. */
enum key {
	K_KIND,
	K_CPU,
	K_TICK,
	K_TS,
	K_OLD_TID,
	K_OLD_PRI,
	K_OLD_BASE_PRI,
	K_OLD_STATE,
	K_OLD_WAIT_REASON,
	K_OLD_WAIT_MODE,
	K_OLD_IDEAL_CPU,
	K_OLD_REMAINING_QUANTUM,
	K_OLD_QOS,
	K_PREV_CSTATE,
	K_OLD_RANK,
	K_NEW_TID,
	K_NEW_PRI,
	K_NEW_PRI_DECREMENT,
	K_NEW_WAIT_TICKS,
	K_NEW_QOS,
	K_PMC,
	K_PEBS_INDEX,
	K_LOCK,
	K_CALLER,
	K_ACQUIRE_TIME,
	K_RELEASE_TIME,
	K_WAIT_CYCLES,
	K_SPIN_COUNT,
	K_TID,
	K_INTERRUPT_COUNT,
	K_IRQL,
	K_DEPTH,
	K_MODE,
	K_DPC,
	K_ISR,
	K_LOGGED,
	K_WHY,
	K_NAME,
	K_ACQUIRE_COUNT,
	K_CONTENTION_COUNT,
	K_UNTRACKED,
	K_GUARDED,
	K_CLOCK,
	K_GROUP,
	K_EVENT,
	NKEYS,
	K_UNKNOWN = NKEYS,
};

static_assert(NKEYS <= 64, "a line's keys are a 64-bit set");

/*
 * A key's text followed by the `":` gen writes after it (zero-padded to
 * three 8-byte words, compared a word at a time), and the key's length.
 */
#define KEY_WORDS 3

struct key_text {
	char text[8 * KEY_WORDS];
	uint64_t mask[KEY_WORDS]; /* the bytes of each word that hold the text */
	unsigned len;
};

/* The mask of word @i of a text of @n bytes (little-endian: the low bytes). */
#define BYTES(n, i) ((n) <= 8 * (i) ? 0 : (n)-8 * (i) >= 8 ? 8 : (n)-8 * (i))
#define MASK(n, i)  (BYTES(n, i) ? UINT64_MAX >> ((64 - 8 * BYTES(n, i)) & 63) : 0)
#define KEY(k, s)                                                                                  \
	[k] = {s "\":",                                                                            \
	       {MASK(sizeof(s) + 1, 0), MASK(sizeof(s) + 1, 1), MASK(sizeof(s) + 1, 2)},           \
	       sizeof(s) - 1}

static const struct key_text keys[NKEYS] = {
	KEY(K_KIND, "kind"),
	KEY(K_CPU, "cpu"),
	KEY(K_TICK, "tick"),
	KEY(K_TS, "ts"),
	KEY(K_OLD_TID, "old_tid"),
	KEY(K_OLD_PRI, "old_pri"),
	KEY(K_OLD_BASE_PRI, "old_base_pri"),
	KEY(K_OLD_STATE, "old_state"),
	KEY(K_OLD_WAIT_REASON, "old_wait_reason"),
	KEY(K_OLD_WAIT_MODE, "old_wait_mode"),
	KEY(K_OLD_IDEAL_CPU, "old_ideal_cpu"),
	KEY(K_OLD_REMAINING_QUANTUM, "old_remaining_quantum"),
	KEY(K_OLD_QOS, "old_qos"),
	KEY(K_PREV_CSTATE, "prev_cstate"),
	KEY(K_OLD_RANK, "old_rank"),
	KEY(K_NEW_TID, "new_tid"),
	KEY(K_NEW_PRI, "new_pri"),
	KEY(K_NEW_PRI_DECREMENT, "new_pri_decrement"),
	KEY(K_NEW_WAIT_TICKS, "new_wait_ticks"),
	KEY(K_NEW_QOS, "new_qos"),
	KEY(K_PMC, "pmc"),
	KEY(K_PEBS_INDEX, "pebs_index"),
	KEY(K_LOCK, "lock"),
	KEY(K_CALLER, "caller"),
	KEY(K_ACQUIRE_TIME, "acquire_time"),
	KEY(K_RELEASE_TIME, "release_time"),
	KEY(K_WAIT_CYCLES, "wait_cycles"),
	KEY(K_SPIN_COUNT, "spin_count"),
	KEY(K_TID, "tid"),
	KEY(K_INTERRUPT_COUNT, "interrupt_count"),
	KEY(K_IRQL, "irql"),
	KEY(K_DEPTH, "depth"),
	KEY(K_MODE, "mode"),
	KEY(K_DPC, "dpc"),
	KEY(K_ISR, "isr"),
	KEY(K_LOGGED, "logged"),
	KEY(K_WHY, "why"),
	KEY(K_NAME, "name"),
	KEY(K_ACQUIRE_COUNT, "acquire_count"),
	KEY(K_CONTENTION_COUNT, "contention_count"),
	KEY(K_UNTRACKED, "untracked"),
	KEY(K_GUARDED, "guarded"),
	KEY(K_CLOCK, "clock"),
	KEY(K_GROUP, "group"),
	KEY(K_EVENT, "event"),
};

/*
 * The order gen writes each kind's keys in (truth_write.c): the key
 * expected next. A stream in another order is read as well, by lookup.
 */
#define END_OF_ORDER NKEYS

static const unsigned char order_cswitch[] = {
	K_KIND,
	K_CPU,
	K_TICK,
	K_TS,
	K_OLD_TID,
	K_OLD_PRI,
	K_OLD_BASE_PRI,
	K_OLD_STATE,
	K_OLD_WAIT_REASON,
	K_OLD_WAIT_MODE,
	K_OLD_IDEAL_CPU,
	K_OLD_REMAINING_QUANTUM,
	K_OLD_QOS,
	K_PREV_CSTATE,
	K_OLD_RANK,
	K_NEW_TID,
	K_NEW_PRI,
	K_NEW_PRI_DECREMENT,
	K_NEW_WAIT_TICKS,
	K_NEW_QOS,
	K_PMC,
	K_PEBS_INDEX,
	END_OF_ORDER,
};
static const unsigned char order_spinlock[] = {
	K_KIND,		 K_CPU,
	K_TICK,		 K_TS,
	K_LOCK,		 K_CALLER,
	K_ACQUIRE_TIME,	 K_RELEASE_TIME,
	K_WAIT_CYCLES,	 K_SPIN_COUNT,
	K_TID,		 K_INTERRUPT_COUNT,
	K_IRQL,		 K_DEPTH,
	K_MODE,		 K_DPC,
	K_ISR,		 K_LOGGED,
	K_WHY,		 K_NAME,
	K_ACQUIRE_COUNT, K_CONTENTION_COUNT,
	K_UNTRACKED,	 K_GUARDED,
	K_PMC,		 END_OF_ORDER,
};
static const unsigned char order_stop[] = {K_KIND, K_TICK, K_TS, K_CLOCK, END_OF_ORDER};
static const unsigned char order_end[] = {K_KIND, K_TICK, K_TS, END_OF_ORDER};
static const unsigned char order_thread[] = {K_KIND, K_TID, K_GROUP,	 K_EVENT,
					     K_TICK, K_TS,  END_OF_ORDER};
static const unsigned char order_start[] = {K_KIND, END_OF_ORDER};

/* A value: its type and what it holds. */
enum tok_type {
	T_NONE = 0, /* the key was not given */
	T_INT,
	T_STR,
	T_TRUE,
	T_FALSE,
	T_NULL,
	T_OBJ,
	T_ARR,
};

struct tok {
	enum tok_type type;
	int64_t i;     /* T_INT */
	const char *s; /* T_STR: the bytes between the quotes; T_OBJ, T_ARR: from the bracket */
	size_t n;
};

/* Does the line at @p (up to @e) start with @k's text and `":`? */
static inline bool key_at(const char *p, const char *e, const struct key_text *k)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e - p >= 8 * KEY_WORDS) {
		uint64_t a0, a1, a2, b0, b1, b2;

		/* whole words of the line, masked to the key's bytes */
		memcpy(&a0, p, 8);
		memcpy(&a1, p + 8, 8);
		memcpy(&a2, p + 16, 8);
		memcpy(&b0, k->text, 8);
		memcpy(&b1, k->text + 8, 8);
		memcpy(&b2, k->text + 16, 8);
		return (((a0 ^ b0) & k->mask[0]) | ((a1 ^ b1) & k->mask[1]) |
			((a2 ^ b2) & k->mask[2])) == 0;
	}
#endif
	return (size_t)(e - p) >= k->len + 2 && !memcmp(p, k->text, k->len + 2);
}

/* A line being read: pass 1's tokens. */
struct rd {
	const char *e; /* the line's end (a NUL) */
	uint64_t seen; /* bit k: key k was given */
	struct tok tok[NKEYS];
	unsigned ts_mask; /* bit c: "ts" gave clock c */
	uint64_t ts[SIM_CLOCK_SLOTS];
	uint64_t pmc[SIM_MAX_PMC]; /* "pmc" as a list of integers 0..2^63-1 (pmc_n of them) */
	unsigned pmc_n;
	bool pmc_list;		       /* pmc[] holds the list */
	const char *unknown[MAX_KEYS]; /* the top level's unknown keys, for duplicates */
	size_t unknown_len[MAX_KEYS];
	unsigned nunknown;
};

static const struct tok no_tok; /* T_NONE */

static inline bool is_ws(char c)
{
	return (unsigned char)c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n');
}

static inline const char *ws(const char *p)
{
	while (is_ws(*p)) {
		p++;
	}
	return p;
}

/* A byte a plain string may hold: printable ASCII but the quote and the backslash. */
static inline bool is_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* The string at @p (past its opening quote); Return: past its closing quote, or NULL. */
static const char *scan_str(const char *p, const char **s, size_t *n)
{
	const char *q = p;

	while (is_plain((unsigned char)*q)) {
		q++;
	}
	if (*q != '"') {
		return NULL; /* an escape, a control byte, a non-ASCII byte or the end */
	}
	*s = p;
	*n = (size_t)(q - p);
	return q + 1;
}

/* A key and its colon, @p past the key's opening quote. Return: past the colon, or NULL. */
static const char *scan_key(const char *p, const char **s, size_t *n)
{
	p = scan_str(p, s, n);
	if (!p) {
		return NULL;
	}
	p = ws(p);
	return *p == ':' ? ws(p + 1) : NULL;
}

/*
 * A JSON integer (as jansson reads it: no leading zeros, no fraction or
 * exponent, within signed 64 bits). Return: past it, or NULL. One loop
 * for every digit, the first too: whether a value is 0 is not
 * predictable. (Counting the digits 8 at a time without branches measured
 * slower.)
 */
static inline const char *scan_int(const char *p, int64_t *out)
{
	bool neg = *p == '-';
	const char *d = p + neg, *q = d;
	uint64_t v = 0;
	size_t n;

	while ((unsigned)(*q - '0') <= 9) {
		v = v * 10 + (uint64_t)(*q++ - '0'); /* wraps past 20 digits: refused below */
	}
	n = (size_t)(q - d);
	if (n == 0 || n > 19 || (n > 1 && *d == '0') || v > (uint64_t)INT64_MAX + neg) {
		return NULL; /* no digit, 20 or more (past 2^63), a leading zero, too large */
	}
	if (*q == '.' || (*q | 0x20) == 'e') {
		return NULL; /* a real number */
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return q;
}

static const char *scan_value(const char *p, const char *e, struct tok *t, unsigned depth);

/* Does key @s (@n bytes) repeat one of @ks? */
static bool repeats(const char *const *ks, const size_t *kn, unsigned nk, const char *s, size_t n)
{
	for (unsigned i = 0; i < nk; i++) {
		if (kn[i] == n && !memcmp(ks[i], s, n)) {
			return true;
		}
	}
	return false;
}

/* An object at @p ('{'), checked and skipped. Return: past it, or NULL. */
static const char *skip_object(const char *p, const char *e, unsigned depth)
{
	const char *ks[MAX_KEYS];
	size_t kn[MAX_KEYS];
	unsigned nk = 0;
	struct tok t;

	p = ws(p + 1);
	if (*p == '}') {
		return p + 1;
	}
	for (;;) {
		const char *s;
		size_t n;

		if (*p != '"' || !(p = scan_key(p + 1, &s, &n))) {
			return NULL;
		}
		if (nk == MAX_KEYS || repeats(ks, kn, nk, s, n)) {
			return NULL;
		}
		ks[nk] = s;
		kn[nk++] = n;
		if (!(p = scan_value(p, e, &t, depth))) {
			return NULL;
		}
		p = ws(p);
		if (*p == '}') {
			return p + 1;
		}
		if (*p != ',') {
			return NULL;
		}
		p = ws(p + 1);
	}
}

/* An array at @p ('['), checked and skipped. Return: past it, or NULL. */
static const char *skip_array(const char *p, const char *e, unsigned depth)
{
	struct tok t;

	p = ws(p + 1);
	if (*p == ']') {
		return p + 1;
	}
	for (;;) {
		if (!(p = scan_value(p, e, &t, depth))) {
			return NULL;
		}
		p = ws(p);
		if (*p == ']') {
			return p + 1;
		}
		if (*p != ',') {
			return NULL;
		}
		p = ws(p + 1);
	}
}

/* Any value at @p into @t (@depth: the brackets around it). Return: past it, or NULL. */
static const char *scan_value(const char *p, const char *e, struct tok *t, unsigned depth)
{
	const char *start = p;

	switch (*p) {
	case '"':
		t->type = T_STR;
		return scan_str(p + 1, &t->s, &t->n);
	case '{':
	case '[':
		if (depth >= MAX_DEPTH) {
			return NULL;
		}
		t->type = *p == '{' ? T_OBJ : T_ARR;
		p = *p == '{' ? skip_object(p, e, depth + 1) : skip_array(p, e, depth + 1);
		if (p) {
			t->s = start;
			t->n = (size_t)(p - start);
		}
		return p;
	case 't':
		t->type = T_TRUE;
		return e - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
	case 'f':
		t->type = T_FALSE;
		return e - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
	case 'n':
		t->type = T_NULL;
		return e - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
	default:
		t->type = T_INT;
		return scan_int(p, &t->i);
	}
}

/*
 * A list of at most SIM_MAX_PMC integers 0..2^63-1 at @p ('[') into @vals.
 * Return: past it, or NULL when it is anything else (no harm: the caller
 * reads it as any value).
 */
static const char *scan_int_list(const char *p, uint64_t *vals, unsigned *n)
{
	*n = 0;
	p = ws(p + 1);
	if (*p == ']') {
		return p + 1;
	}
	for (;;) {
		int64_t v;

		if (*n == SIM_MAX_PMC || !(p = scan_int(p, &v)) || v < 0) {
			return NULL;
		}
		vals[(*n)++] = (uint64_t)v;
		p = ws(p);
		if (*p == ']') {
			return p + 1;
		}
		if (*p != ',') {
			return NULL;
		}
		p = ws(p + 1);
	}
}

/* "ts": an object of clocks, each an integer 0..2^63-1, no other name. Return: past it, or NULL. */
static const char *scan_ts(struct rd *r, const char *p)
{
	if (*p != '{') {
		return NULL;
	}
	p = ws(p + 1);
	if (*p == '}') {
		return p + 1;
	}
	for (;;) {
		const char *s;
		size_t n;
		unsigned c;
		int64_t v;

		if (*p != '"' || !(p = scan_key(p + 1, &s, &n))) {
			return NULL;
		}
		if (n == 3 && !memcmp(s, "qpc", 3)) {
			c = SIM_CLOCK_QPC;
		} else if (n == 7 && !memcmp(s, "systime", 7)) {
			c = SIM_CLOCK_SYSTIME;
		} else if (n == 6 && !memcmp(s, "cycles", 6)) {
			c = SIM_CLOCK_CYCLES;
		} else {
			return NULL; /* an unknown clock is an error */
		}
		if ((r->ts_mask & 1u << c) || !(p = scan_int(p, &v)) || v < 0) {
			return NULL;
		}
		r->ts_mask |= 1u << c;
		r->ts[c] = (uint64_t)v;
		p = ws(p);
		if (*p == '}') {
			return p + 1;
		}
		if (*p != ',') {
			return NULL;
		}
		p = ws(p + 1);
	}
}

/* The key at @p (past its quote): @k, or K_UNKNOWN (checked for repeats). Return: past ':', or NULL. */
static const char *lookup_key(struct rd *r, const char *p, unsigned *k)
{
	const char *s;
	size_t n;

	p = scan_key(p, &s, &n);
	if (!p) {
		return NULL;
	}
	for (unsigned i = 0; i < NKEYS; i++) {
		if (keys[i].len == n && !memcmp(keys[i].text, s, n)) {
			*k = i;
			return p;
		}
	}
	if (n < 2 || memcmp(s, "x_", 2)) {
		return NULL; /* no field of any kind, and not a writer's own: an error */
	}
	if (r->nunknown == MAX_KEYS || repeats(r->unknown, r->unknown_len, r->nunknown, s, n)) {
		return NULL;
	}
	r->unknown[r->nunknown] = s;
	r->unknown_len[r->nunknown++] = n;
	*k = K_UNKNOWN;
	return p;
}

static const unsigned char *order_of(const struct tok *kind)
{
	static const struct {
		const char *name;
		const unsigned char *order;
	} kinds[] = {
		{"cswitch", order_cswitch},  {"spinlock", order_spinlock},
		{"ccswap_stop", order_stop}, {"end", order_end},
		{"thread", order_thread},
	};

	if (kind->type == T_STR) {
		for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			if (strlen(kinds[i].name) == kind->n &&
			    !memcmp(kinds[i].name, kind->s, kind->n)) {
				return kinds[i].order;
			}
		}
	}
	return order_start;
}

/* The keys a kind's line may have: the bits of its order. */
static uint64_t fields_of(const unsigned char *order)
{
	uint64_t m = 0;

	while (*order != END_OF_ORDER) {
		m |= (uint64_t)1 << *order++;
	}
	return m;
}

/* Pass 1: the whole object into @r. Return: false to decline. */
static bool scan_line(struct rd *r, const char *p)
{
	const unsigned char *order = order_start;
	unsigned oi = 0;

	p = ws(p);
	if (*p != '{') {
		return false;
	}
	p = ws(p + 1);
	if (*p == '}') {
		return false; /* no "kind" */
	}
	for (;;) {
		unsigned k = order[oi];
		const char *q;
		struct tok *t;

		if (*p != '"') {
			return false;
		}
		p++;
		if (k != END_OF_ORDER && key_at(p, r->e, &keys[k])) {
			p = ws(p + keys[k].len + 2); /* the key gen writes next */
			oi++;
		} else {
			if (!(p = lookup_key(r, p, &k))) {
				return false;
			}
			for (unsigned i = 0; order[i] != END_OF_ORDER; i++) {
				if (order[i] == k) {
					oi = i + 1;
					break;
				}
			}
		}
		if (k == K_UNKNOWN) {
			struct tok skip;

			p = scan_value(p, r->e, &skip, 0);
		} else {
			if (r->seen & (uint64_t)1 << k) {
				return false; /* a duplicate key */
			}
			r->seen |= (uint64_t)1 << k;
			t = &r->tok[k];
			if (k == K_TS) {
				t->type = T_OBJ;
				p = scan_ts(r, p);
			} else if (k == K_PMC && *p == '[' &&
				   (q = scan_int_list(p, r->pmc, &r->pmc_n)) != NULL) {
				t->type = T_ARR;
				t->s = p;
				t->n = (size_t)(q - p);
				r->pmc_list = true;
				p = q;
			} else if ((*p >= '0' && *p <= '9') || *p == '-') {
				t->type = T_INT;
				p = scan_int(p, &t->i);
			} else {
				p = scan_value(p, r->e, t, 0);
			}
			if (k == K_KIND && p && oi == 1) {
				order = order_of(t);
			}
		}
		if (!p) {
			return false;
		}
		p = ws(p);
		if (*p == '}') {
			break;
		}
		if (*p != ',') {
			return false;
		}
		p = ws(p + 1);
	}
	return ws(p + 1) == r->e; /* nothing after the object (a NUL inside ends it early) */
}

/* ---- pass 2: the record ----------------------------------------------------- */

static const struct tok *tok(const struct rd *r, unsigned k)
{
	return r->seen & (uint64_t)1 << k ? &r->tok[k] : &no_tok;
}

/* An optional integer in @lo..@hi: absent leaves *@out. Return: false to decline. */
static bool opt_int(const struct rd *r, unsigned k, int64_t lo, int64_t hi, int64_t *out)
{
	const struct tok *t = tok(r, k);

	if (t->type == T_NONE) {
		return true;
	}
	if (t->type != T_INT || t->i < lo || t->i > hi) {
		return false;
	}
	*out = t->i;
	return true;
}

static bool req_int(const struct rd *r, unsigned k, int64_t lo, int64_t hi, int64_t *out)
{
	return tok(r, k)->type != T_NONE && opt_int(r, k, lo, hi, out);
}

static bool opt_u32(const struct rd *r, unsigned k, uint32_t *out)
{
	int64_t v = *out;
	bool ok = opt_int(r, k, 0, UINT32_MAX, &v);

	*out = (uint32_t)v;
	return ok;
}

static bool opt_u64(const struct rd *r, unsigned k, uint64_t *out)
{
	int64_t v = (int64_t)*out;
	bool ok = opt_int(r, k, 0, INT64_MAX, &v);

	*out = (uint64_t)v;
	return ok;
}

static bool opt_u8(const struct rd *r, unsigned k, int64_t lo, int64_t hi, uint8_t *out)
{
	int64_t v = *out;
	bool ok = opt_int(r, k, lo, hi, &v);

	*out = (uint8_t)v;
	return ok;
}

static bool opt_s8(const struct rd *r, unsigned k, int64_t lo, int64_t hi, int8_t *out)
{
	int64_t v = *out;
	bool ok = opt_int(r, k, lo, hi, &v);

	*out = (int8_t)v;
	return ok;
}

static bool opt_bool(const struct rd *r, unsigned k, bool *out)
{
	const struct tok *t = tok(r, k);

	if (t->type == T_TRUE || t->type == T_FALSE) {
		*out = t->type == T_TRUE;
		return true;
	}
	return t->type == T_NONE;
}

static bool str_is(const struct tok *t, const char *s)
{
	return t->type == T_STR && t->n == strlen(s) && !memcmp(t->s, s, t->n);
}

/* "0x" and 1 or more hex digits, at most @max (get_addr). */
static bool addr(const struct tok *t, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (t->type != T_STR || t->n < 3 || t->s[0] != '0' || t->s[1] != 'x') {
		return false;
	}
	for (size_t i = 2; i < t->n; i++) {
		char c = t->s[i];
		unsigned h;

		if (c >= '0' && c <= '9') {
			h = (unsigned)(c - '0');
		} else if (c >= 'a' && c <= 'f') {
			h = (unsigned)(c - 'a' + 10);
		} else if (c >= 'A' && c <= 'F') {
			h = (unsigned)(c - 'A' + 10);
		} else {
			return false;
		}
		if (v > UINT64_MAX >> 4) {
			return false;
		}
		v = v << 4 | h;
	}
	if (v > max) {
		return false;
	}
	*out = v;
	return true;
}

/* "ts": @req: every clock in use; absent clocks keep their value (0 here). */
static bool get_ts(const struct truth_fast *fx, const struct rd *r, bool req,
		   uint64_t ts[SIM_CLOCK_SLOTS], struct truth_fast_opt *opt)
{
	if (!(r->seen & (uint64_t)1 << K_TS)) {
		return !req;
	}
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		if (r->ts_mask & 1u << c) {
			ts[c] = r->ts[c];
		} else if (req && fx->used[c]) {
			return false;
		}
	}
	opt->ts = r->ts_mask;
	return true;
}

/*
 * The @n counter values @vals of session @sess into @pmc by machine
 * counter id; a counter another session gave must agree (@set_by).
 * Return: false to decline.
 */
static bool pmc_apply(const struct truth_fast *fx, const uint64_t *vals, unsigned n, unsigned sess,
		      unsigned set_by[SIM_MAX_COUNTERS], uint64_t pmc[SIM_MAX_COUNTERS])
{
	const struct trace_session_cfg *s = &fx->cfg->sessions[sess];

	if (n != s->pmc_count) {
		return false;
	}
	for (unsigned j = 0; j < n; j++) {
		unsigned id = s->pmc_counters[j] % SIM_MAX_COUNTERS;

		if (set_by[id] && pmc[id] != vals[j]) {
			return false;
		}
		set_by[id] = sess + 1;
		pmc[id] = vals[j];
	}
	return true;
}

/* Session @sess's list at @p: pmc_apply. */
static bool pmc_values(const struct truth_fast *fx, const char *p, unsigned sess,
		       unsigned set_by[SIM_MAX_COUNTERS], uint64_t pmc[SIM_MAX_COUNTERS])
{
	uint64_t vals[SIM_MAX_PMC];
	unsigned n;

	return *p == '[' && scan_int_list(p, vals, &n) && pmc_apply(fx, vals, n, sess, set_by, pmc);
}

/* "pmc" (parse_pmc): a list for the first stamping session, or an object by session name. */
static bool get_pmc(const struct truth_fast *fx, const struct rd *r, const unsigned *sess,
		    unsigned nsess, uint64_t pmc[SIM_MAX_COUNTERS])
{
	const struct tok *t = tok(r, K_PMC);
	const char *at[SIM_MAX_SESSIONS] = {NULL}; /* each stamping session's list */
	unsigned set_by[SIM_MAX_COUNTERS] = {0};
	const char *p;

	if (t->type == T_NONE || nsess == 0) {
		return true;
	}
	if (t->type == T_ARR) {
		return r->pmc_list && pmc_apply(fx, r->pmc, r->pmc_n, sess[0], set_by, pmc);
	}
	if (t->type != T_OBJ) {
		return false;
	}
	/* pass 1 checked the object: keys are plain, none repeats */
	p = ws(t->s + 1);
	while (*p == '"') {
		struct tok skip;
		const char *s;
		size_t n;

		bool known = false;

		p = scan_key(p + 1, &s, &n);
		for (unsigned i = 0; p && i < nsess; i++) {
			if (fx->name_len[sess[i]] == n &&
			    !memcmp(fx->cfg->sessions[sess[i]].name, s, n)) {
				at[i] = p;
			}
		}
		for (unsigned i = 0; p && i < fx->cfg->nsessions; i++) {
			known = known ||
				(fx->name_len[i] == n && !memcmp(fx->cfg->sessions[i].name, s, n));
		}
		if (!p || !(known || (n >= 2 && !memcmp(s, "x_", 2))) ||
		    !(p = scan_value(p, r->e, &skip, 1))) {
			return false; /* a name that is no session's: an error */
		}
		p = ws(p);
		p = *p == ',' ? ws(p + 1) : p;
	}
	for (unsigned i = 0; i < nsess; i++) {
		if (!at[i] || !pmc_values(fx, at[i], sess[i], set_by, pmc)) {
			return false;
		}
	}
	return true;
}

static bool get_cswitch(const struct truth_fast *fx, const struct rd *r, struct sim_cswitch *cs,
			struct truth_fast_opt *opt)
{
	const struct tok *pebs = tok(r, K_PEBS_INDEX);
	int64_t cpu, q = 0;

	if (!req_int(r, K_CPU, 0, (int64_t)fx->cfg->cpus - 1, &cpu) ||
	    tok(r, K_TICK)->type == T_NONE || !opt_u32(r, K_TICK, &cs->tick) ||
	    !get_ts(fx, r, true, cs->ts, opt) || tok(r, K_OLD_TID)->type == T_NONE ||
	    !opt_u32(r, K_OLD_TID, &cs->old_tid) ||
	    !opt_s8(r, K_OLD_PRI, 0, PRIORITY_MAX, &cs->old_pri) ||
	    !opt_s8(r, K_OLD_BASE_PRI, 0, PRIORITY_MAX, &cs->old_base_pri) ||
	    !opt_u8(r, K_OLD_STATE, 0, KTHREAD_STATE_MAX, &cs->old_state) ||
	    !opt_u8(r, K_OLD_WAIT_REASON, 0, WAIT_REASON_MAX, &cs->old_wait_reason) ||
	    !opt_u8(r, K_OLD_WAIT_MODE, 0, 1, &cs->old_wait_mode) ||
	    !opt_u32(r, K_OLD_IDEAL_CPU, &cs->old_ideal_cpu) ||
	    (cs->old_state == KTHREAD_WAITING && cs->old_wait_reason >= fx->cfg->max_wait_reason) ||
	    !opt_int(r, K_OLD_REMAINING_QUANTUM, INT64_MIN, INT64_MAX, &q) ||
	    !opt_u8(r, K_OLD_QOS, 0, QOS_MAX, &cs->old_qos) ||
	    !opt_u8(r, K_PREV_CSTATE, 0, UINT8_MAX, &cs->prev_cstate) ||
	    !opt_u32(r, K_OLD_RANK, &cs->old_rank) || tok(r, K_NEW_TID)->type == T_NONE ||
	    !opt_u32(r, K_NEW_TID, &cs->new_tid) ||
	    !opt_s8(r, K_NEW_PRI, 0, PRIORITY_MAX, &cs->new_pri) ||
	    !opt_s8(r, K_NEW_PRI_DECREMENT, INT8_MIN, INT8_MAX, &cs->new_pri_decrement) ||
	    !opt_u32(r, K_NEW_WAIT_TICKS, &cs->new_wait_ticks) ||
	    !opt_u8(r, K_NEW_QOS, 0, QOS_MAX, &cs->new_qos) ||
	    !get_pmc(fx, r, fx->cs, fx->ncs, cs->pmc)) {
		return false;
	}
	if (pebs->type == T_STR ? !addr(pebs, UINT64_MAX, &cs->pebs_index)
				: !opt_u64(r, K_PEBS_INDEX, &cs->pebs_index)) {
		return false;
	}
	cs->cpu = (uint32_t)cpu;
	cs->old_remaining_quantum = q;
	return true;
}

static bool get_spinlock(const struct truth_fast *fx, const struct rd *r, struct sim_spinlock *sl,
			 struct truth_fast_opt *opt)
{
	uint64_t amax = fx->cfg->arch == ETL_ARCH_X86 ? UINT32_MAX : UINT64_MAX;
	const struct tok *why = tok(r, K_WHY), *name = tok(r, K_NAME);
	int64_t cpu;

	sl->depth = 1;
	if (!req_int(r, K_CPU, 0, (int64_t)fx->cfg->cpus - 1, &cpu) ||
	    !opt_u32(r, K_TICK, &sl->tick) || !get_ts(fx, r, true, sl->ts, opt) ||
	    !addr(tok(r, K_LOCK), amax, &sl->lock) || !addr(tok(r, K_CALLER), amax, &sl->caller) ||
	    !opt_u64(r, K_ACQUIRE_TIME, &sl->acquire_time) ||
	    !opt_u64(r, K_RELEASE_TIME, &sl->release_time) ||
	    !opt_u64(r, K_WAIT_CYCLES, &sl->wait_cycles) ||
	    !opt_u32(r, K_SPIN_COUNT, &sl->spin_count) || !opt_u32(r, K_TID, &sl->tid) ||
	    !opt_u32(r, K_INTERRUPT_COUNT, &sl->interrupt_count) ||
	    !opt_u8(r, K_IRQL, 0, IRQL_MAX, &sl->irql) ||
	    !opt_u8(r, K_DEPTH, 1, UINT8_MAX, &sl->depth) ||
	    !opt_u8(r, K_MODE, 0, SPIN_MODE_MAX, &sl->mode) || !opt_bool(r, K_DPC, &sl->dpc) ||
	    !opt_bool(r, K_ISR, &sl->isr) || tok(r, K_LOGGED)->type == T_NONE ||
	    !opt_bool(r, K_LOGGED, &sl->logged) ||
	    !opt_u32(r, K_ACQUIRE_COUNT, &sl->acquire_count) ||
	    !opt_u32(r, K_CONTENTION_COUNT, &sl->contention_count) ||
	    !opt_bool(r, K_UNTRACKED, &sl->untracked) || !opt_bool(r, K_GUARDED, &sl->guarded) ||
	    (name->type != T_NONE && name->type != T_STR)) {
		return false;
	}
	if (why->type != T_NONE) {
		unsigned k = 0;

		while (k < TRUTH_NWHY && !str_is(why, truth_why_names[k])) {
			k++;
		}
		if (k == TRUTH_NWHY) {
			return false;
		}
		sl->why = (enum sim_spin_why)k;
	}
	if (!get_pmc(fx, r, fx->sl, fx->nsl, sl->pmc)) {
		return false;
	}
	sl->cpu = (uint32_t)cpu;
	opt->tick = tok(r, K_TICK)->type != T_NONE;
	if (name->type == T_STR) {
		opt->name = name->s;
		opt->name_len = name->n;
	}
	return true;
}

static bool get_thread(const struct truth_fast *fx, const struct rd *r, struct truth_thread *th,
		       struct truth_fast_opt *opt)
{
	const struct tok *event = tok(r, K_EVENT);

	if (tok(r, K_TID)->type == T_NONE || !opt_u32(r, K_TID, &th->tid) ||
	    tok(r, K_GROUP)->type != T_STR || !opt_u32(r, K_TICK, &th->tick) ||
	    !get_ts(fx, r, false, th->ts, opt) ||
	    !(str_is(event, "start") || str_is(event, "exit"))) {
		return false;
	}
	th->exit = str_is(event, "exit");
	opt->tick = tok(r, K_TICK)->type != T_NONE;
	return true;
}

static bool get_stop(const struct truth_fast *fx, const struct rd *r, struct sim_ccswap_stop *st,
		     struct truth_fast_opt *opt)
{
	const struct tok *clock = tok(r, K_CLOCK);

	if (str_is(clock, "qpc")) {
		st->clock = SIM_CLOCK_QPC;
	} else if (str_is(clock, "systime")) {
		st->clock = SIM_CLOCK_SYSTIME;
	} else if (str_is(clock, "cycles")) {
		st->clock = SIM_CLOCK_CYCLES;
	} else {
		return false;
	}
	opt->tick = tok(r, K_TICK)->type != T_NONE;
	return opt_u32(r, K_TICK, &st->tick) && get_ts(fx, r, false, st->ts, opt);
}

static bool get_end(const struct truth_fast *fx, const struct rd *r, struct sim_end *end,
		    struct truth_fast_opt *opt)
{
	opt->tick = tok(r, K_TICK)->type != T_NONE;
	return opt_u32(r, K_TICK, &end->tick) && get_ts(fx, r, false, end->ts, opt);
}

/* ---- gen's own switch lines: a template ------------------------------------- */

/*
 * A line of gen is the same text around the values every time: the
 * template matches that text a word at a time and reads each value
 * straight into its field, with the checks of pass 2, but no token, no
 * duplicate check, no lookup. A line that differs in any byte goes to the
 * general parse (which accepts it too when it is good).
 */
enum tpl_field {
	F_CPU,
	F_TICK,
	F_TS, /* + the clock */
	F_OLD_TID = F_TS + SIM_CLOCK_SLOTS,
	F_OLD_PRI,
	F_OLD_BASE_PRI,
	F_OLD_STATE,
	F_OLD_WAIT_REASON,
	F_OLD_WAIT_MODE,
	F_OLD_IDEAL_CPU,
	F_OLD_REMAINING_QUANTUM,
	F_OLD_QOS,
	F_PREV_CSTATE,
	F_OLD_RANK,
	F_NEW_TID,
	F_NEW_PRI,
	F_NEW_PRI_DECREMENT,
	F_NEW_WAIT_TICKS,
	F_NEW_QOS,
	F_PMC,	/* the next counter value */
	F_PEBS, /* hex digits, then the closing quote */
	F_END,	/* the line ends after the text */
};

/* Builds the template: text gathers until a value's field ends the step. */
struct tpl_build {
	struct truth_fast *fx;
	char text[8 * TRUTH_TPL_WORDS];
	size_t len;
	bool ok;
};

static void tpl_text(struct tpl_build *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n > sizeof(b->text)) {
		b->ok = false;
		return;
	}
	memcpy(b->text + b->len, s, n);
	b->len += n;
}

static void tpl_value(struct tpl_build *b, enum tpl_field field)
{
	struct truth_tpl_step *st = &b->fx->tpl[b->fx->ntpl];

	if (!b->ok || b->fx->ntpl == TRUTH_TPL_STEPS) {
		b->ok = false;
		return;
	}
	memset(st, 0, sizeof(*st));
	st->field = (unsigned char)field;
	st->len = (unsigned char)b->len;
	st->words = (unsigned char)((b->len + 7) / 8);
	for (size_t i = 0; i < st->words; i++) {
		size_t left = b->len - 8 * i;
		unsigned char word[8] = {0};

		memcpy(word, b->text + 8 * i, left < 8 ? left : 8);
		memcpy(&st->w[i], word, 8);
		memset(word, 0, 8);
		memset(word, 0xFF, left < 8 ? left : 8);
		memcpy(&st->m[i], word, 8);
	}
	b->fx->ntpl++;
	b->len = 0;
}

/* The switch line of truth_write.c's fmt_cswitch for this configuration. */
static void tpl_init(struct truth_fast *fx)
{
	static const struct {
		const char *text;
		enum tpl_field field;
	} fields[] = {
		{",\"old_pri\":", F_OLD_PRI},
		{",\"old_base_pri\":", F_OLD_BASE_PRI},
		{",\"old_state\":", F_OLD_STATE},
		{",\"old_wait_reason\":", F_OLD_WAIT_REASON},
		{",\"old_wait_mode\":", F_OLD_WAIT_MODE},
		{",\"old_ideal_cpu\":", F_OLD_IDEAL_CPU},
		{",\"old_remaining_quantum\":", F_OLD_REMAINING_QUANTUM},
		{",\"old_qos\":", F_OLD_QOS},
		{",\"prev_cstate\":", F_PREV_CSTATE},
		{",\"old_rank\":", F_OLD_RANK},
		{",\"new_tid\":", F_NEW_TID},
		{",\"new_pri\":", F_NEW_PRI},
		{",\"new_pri_decrement\":", F_NEW_PRI_DECREMENT},
		{",\"new_wait_ticks\":", F_NEW_WAIT_TICKS},
		{",\"new_qos\":", F_NEW_QOS},
	};
	static const char *const clock_key[SIM_CLOCK_SLOTS] = {
		NULL, "\"qpc\":", "\"systime\":", "\"cycles\":"};
	struct tpl_build b = {.fx = fx, .ok = true};
	bool first = true, pebs = false;

	fx->ntpl = 0;
	tpl_text(&b, "{\"kind\":\"cswitch\",\"cpu\":");
	tpl_value(&b, F_CPU);
	tpl_text(&b, ",\"tick\":");
	tpl_value(&b, F_TICK);
	tpl_text(&b, ",\"ts\":{");
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		if (fx->used[c]) {
			tpl_text(&b, first ? "" : ",");
			tpl_text(&b, clock_key[c]);
			tpl_value(&b, (enum tpl_field)(F_TS + c));
			first = false;
		}
	}
	tpl_text(&b, "},\"old_tid\":");
	tpl_value(&b, F_OLD_TID);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		tpl_text(&b, fields[i].text);
		tpl_value(&b, fields[i].field);
	}
	if (fx->ncs) {
		const struct trace_session_cfg *s0 = &fx->cfg->sessions[fx->cs[0]];

		for (unsigned i = 1; i < fx->ncs; i++) {
			const struct trace_session_cfg *s = &fx->cfg->sessions[fx->cs[i]];

			if (s->pmc_count != s0->pmc_count ||
			    memcmp(s->pmc_counters, s0->pmc_counters, s0->pmc_count)) {
				b.ok = false; /* "pmc" is an object: the general parse */
			}
		}
		tpl_text(&b, ",\"pmc\":[");
		for (unsigned j = 0; j < s0->pmc_count; j++) {
			tpl_text(&b, j ? "," : "");
			tpl_value(&b, F_PMC);
		}
		tpl_text(&b, "]");
	}
	for (unsigned i = 0; i < fx->cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		pebs = pebs || fx->cfg->sessions[i].pebs;
	}
	if (pebs) {
		tpl_text(&b, ",\"pebs_index\":\"0x");
		tpl_value(&b, F_PEBS);
	}
	tpl_text(&b, "}");
	tpl_value(&b, F_END);
	if (!b.ok) {
		fx->ntpl = 0;
	}
}

static inline bool tpl_text_at(const struct truth_tpl_step *st, const char *p, const char *e)
{
	uint64_t diff = 0;

	if ((size_t)(e - p) < 8u * st->words) {
		return (size_t)(e - p) >= st->len && !memcmp(p, st->w, st->len);
	}
	for (unsigned i = 0; i < st->words; i++) {
		uint64_t a;

		memcpy(&a, p + 8 * i, 8);
		diff |= (a ^ st->w[i]) & st->m[i];
	}
	return diff == 0;
}

/* An integer in @lo..@hi for the template. Return: past it, or NULL. */
static inline const char *tpl_int(const char *p, int64_t lo, int64_t hi, int64_t *v)
{
	p = scan_int(p, v);
	return p && *v >= lo && *v <= hi ? p : NULL;
}

/* Hex digits of a 64-bit value and the closing quote. Return: past the quote, or NULL. */
static const char *tpl_hex(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = p;

	for (;; p++) {
		char c = *p;
		unsigned h;

		if (c >= '0' && c <= '9') {
			h = (unsigned)(c - '0');
		} else if (c >= 'a' && c <= 'f') {
			h = (unsigned)(c - 'a' + 10);
		} else if (c >= 'A' && c <= 'F') {
			h = (unsigned)(c - 'A' + 10);
		} else {
			break;
		}
		if (v > UINT64_MAX >> 4) {
			return NULL;
		}
		v = v << 4 | h;
	}
	if (p == start || *p != '"') {
		return NULL;
	}
	*out = v;
	return p + 1;
}

/*
 * Line @p (up to @e) as gen's switch line. Return: 1 with @cs filled, 0
 * not quite (@cs untouched), -1 not quite after all (@cs partly written).
 */
static int tpl_cswitch(const struct truth_fast *fx, const char *p, const char *e,
		       struct sim_cswitch *cs)
{
	uint64_t vals[SIM_MAX_PMC];
	unsigned nvals = 0;
	unsigned set_by[SIM_MAX_COUNTERS] = {0};
	int64_t v;

	for (unsigned i = 0; i < fx->ntpl; i++) {
		const struct truth_tpl_step *st = &fx->tpl[i];

		if (!tpl_text_at(st, p, e)) {
			return i ? -1 : 0;
		}
		p += st->len;
		switch (st->field) {
		case F_CPU:
			p = tpl_int(p, 0, (int64_t)fx->cfg->cpus - 1, &v);
			cs->cpu = (uint32_t)v;
			break;
		case F_TICK:
			p = tpl_int(p, 0, UINT32_MAX, &v);
			cs->tick = (uint32_t)v;
			break;
		case F_TS + SIM_CLOCK_QPC:
		case F_TS + SIM_CLOCK_SYSTIME:
		case F_TS + SIM_CLOCK_CYCLES:
			p = tpl_int(p, 0, INT64_MAX, &v);
			cs->ts[st->field - F_TS] = (uint64_t)v;
			break;
		case F_OLD_TID:
			p = tpl_int(p, 0, UINT32_MAX, &v);
			cs->old_tid = (uint32_t)v;
			break;
		case F_OLD_PRI:
			p = tpl_int(p, 0, PRIORITY_MAX, &v);
			cs->old_pri = (int8_t)v;
			break;
		case F_OLD_BASE_PRI:
			p = tpl_int(p, 0, PRIORITY_MAX, &v);
			cs->old_base_pri = (int8_t)v;
			break;
		case F_OLD_STATE:
			p = tpl_int(p, 0, KTHREAD_STATE_MAX, &v);
			cs->old_state = (uint8_t)v;
			break;
		case F_OLD_WAIT_REASON:
			p = tpl_int(p, 0, WAIT_REASON_MAX, &v);
			cs->old_wait_reason = (uint8_t)v;
			break;
		case F_OLD_WAIT_MODE:
			p = tpl_int(p, 0, 1, &v);
			cs->old_wait_mode = (uint8_t)v;
			break;
		case F_OLD_IDEAL_CPU:
			p = tpl_int(p, 0, UINT32_MAX, &v);
			cs->old_ideal_cpu = (uint32_t)v;
			break;
		case F_OLD_REMAINING_QUANTUM:
			p = tpl_int(p, INT64_MIN, INT64_MAX, &v);
			cs->old_remaining_quantum = v;
			break;
		case F_OLD_QOS:
			p = tpl_int(p, 0, QOS_MAX, &v);
			cs->old_qos = (uint8_t)v;
			break;
		case F_PREV_CSTATE:
			p = tpl_int(p, 0, UINT8_MAX, &v);
			cs->prev_cstate = (uint8_t)v;
			break;
		case F_OLD_RANK:
			p = tpl_int(p, 0, UINT32_MAX, &v);
			cs->old_rank = (uint32_t)v;
			break;
		case F_NEW_TID:
			p = tpl_int(p, 0, UINT32_MAX, &v);
			cs->new_tid = (uint32_t)v;
			break;
		case F_NEW_PRI:
			p = tpl_int(p, 0, PRIORITY_MAX, &v);
			cs->new_pri = (int8_t)v;
			break;
		case F_NEW_PRI_DECREMENT:
			p = tpl_int(p, INT8_MIN, INT8_MAX, &v);
			cs->new_pri_decrement = (int8_t)v;
			break;
		case F_NEW_WAIT_TICKS:
			p = tpl_int(p, 0, UINT32_MAX, &v);
			cs->new_wait_ticks = (uint32_t)v;
			break;
		case F_NEW_QOS:
			p = tpl_int(p, 0, QOS_MAX, &v);
			cs->new_qos = (uint8_t)v;
			break;
		case F_PMC:
			p = tpl_int(p, 0, INT64_MAX, &v);
			vals[nvals++ % SIM_MAX_PMC] = (uint64_t)v;
			break;
		case F_PEBS:
			p = tpl_hex(p, &cs->pebs_index);
			break;
		default: /* F_END */
			return p == e &&
					       !(cs->old_state == KTHREAD_WAITING &&
						 cs->old_wait_reason >= fx->cfg->max_wait_reason) &&
					       (!fx->ncs || pmc_apply(fx, vals, nvals, fx->cs[0],
								      set_by, cs->pmc))
				       ? 1
				       : -1;
		}
		if (!p) {
			return -1;
		}
	}
	return -1;
}

void truth_fast_init(struct truth_fast *fx, const struct trace_config *cfg)
{
	fx->cfg = cfg;
	fx->used[0] = false;
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		fx->used[c] = trace_config_clock_used(cfg, (enum sim_clock)c);
	}
	fx->ncs = truth_stamping_sessions(cfg, false, fx->cs);
	fx->nsl = truth_stamping_sessions(cfg, true, fx->sl);
	for (unsigned i = 0; i < SIM_MAX_SESSIONS; i++) {
		fx->name_len[i] = i < cfg->nsessions ? strlen(cfg->sessions[i].name) : 0;
	}
	tpl_init(fx);
}

int truth_fast_line(const struct truth_fast *fx, const char *s, size_t n, struct truth_record *rec,
		    struct truth_fast_opt *opt)
{
	struct rd r;
	const struct tok *kind;

	memset(opt, 0, sizeof(*opt));
	if (fx->ntpl) {
		int t = tpl_cswitch(fx, s, s + n, &rec->u.cs);

		if (t > 0) {
			return TRUTH_CSWITCH;
		}
		if (t < 0) {
			/* not quite gen's text: a clean record for the general parse */
			memset(&rec->u.cs, 0, sizeof(rec->u.cs));
		}
	}
	r.e = s + n;
	r.seen = 0;
	r.ts_mask = 0;
	r.pmc_list = false;
	r.nunknown = 0;
	if (!scan_line(&r, s)) {
		return 0;
	}
	kind = tok(&r, K_KIND);
	if (r.seen & ~fields_of(order_of(kind))) {
		return 0; /* a field of another kind: an error */
	}
	if (str_is(kind, "cswitch")) {
		return get_cswitch(fx, &r, &rec->u.cs, opt) ? TRUTH_CSWITCH : 0;
	}
	if (str_is(kind, "spinlock")) {
		return get_spinlock(fx, &r, &rec->u.sl, opt) ? TRUTH_SPINLOCK : 0;
	}
	if (str_is(kind, "thread")) {
		return get_thread(fx, &r, &rec->u.thread, opt) ? TRUTH_THREAD : 0;
	}
	if (str_is(kind, "ccswap_stop")) {
		return get_stop(fx, &r, &rec->u.stop, opt) ? TRUTH_CCSWAP_STOP : 0;
	}
	if (str_is(kind, "end")) {
		return get_end(fx, &r, &rec->u.end, opt) ? TRUTH_END : 0;
	}
	return 0;
}
