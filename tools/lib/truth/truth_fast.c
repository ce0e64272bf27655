/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_fast.c - the truth reader's fast path (truth_fast.h): a
 * record line in one pass, no allocation, no jansson.
 *
 * Pass 1 reads the whole object: the line's kind first (its first key, or
 * found by a quick scan when it is not), then each key is compared with
 * the one gen writes next (the kind's table order), then looked up among
 * the kind's keys; a key's value is kept as a token (an integer, a
 * string's bytes, a literal, or the span of an object or array, which is
 * checked and skipped). "ts" is read as it goes. Pass 2 checks the tokens
 * as the jansson path does and fills the record, field by field of the
 * kind's table (truth_kinds.h). Both the keys and pass 2 are expanded from
 * the tables at compile time: no table is walked per line.
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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "producer/etw_process.h"
#include "tools/lib/truth/truth_schema.h"

#define MAX_DEPTH     16 /* nesting of an unknown key's value (jansson allows 2048) */
#define MAX_KEYS      16 /* unknown keys of one object, for the duplicate check */
#define MAX_KIND_KEYS 64 /* keys of one kind: a 64-bit set */

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
#define KEY(s)                                                                                     \
	{                                                                                          \
		s "\":", {MASK(sizeof(s) + 1, 0), MASK(sizeof(s) + 1, 1), MASK(sizeof(s) + 1, 2)}, \
			sizeof(s) - 1                                                              \
	}

/*
 * Each kind's keys, "kind" first and then its table's in order - the
 * order gen writes them in (truth_write.c), so the key expected next is
 * the next one; a stream in another order is read as well, by lookup -
 * and their numbers: K_<kind>_<key>.
 */
#define KEY_ROW(x, name, ...)  KEY(#name),
#define KEY_ENUM(x, name, ...) K_##x##_##name,

#define KIND_KEYS(kind, ENUM, ctype, u, what, FIELDS, stamp, after)                                \
	static const struct key_text keys_##kind[] = {KEY("kind"),                                 \
						      FIELDS(KEY_ROW, TRUTH_NO_CHECK, )};          \
	enum { K_##kind##_kind, FIELDS(KEY_ENUM, TRUTH_NO_CHECK, kind) K_##kind##_N };             \
	static_assert(K_##kind##_N <= MAX_KIND_KEYS, "a line's keys are a 64-bit set");

TRUTH_KINDS(KIND_KEYS)

/*
 * A kind of line: its name and keys (index: enum truth_kind), and which of
 * them are "ts" and "pmc", read as they come (NO_KEY: none).
 */
struct kind_keys {
	const char *name;
	unsigned len;
	const struct key_text *keys;
	unsigned n;
	unsigned ts, pmc;
};

#define NO_KEY MAX_KIND_KEYS

/*
 * The number of the key a TS (PMC) row has: the sum over the rows, each 0 but
 * that one. Of the TS rows only "ts" itself is read here; another (a dpc
 * line's "initial_time") declines to the general parse.
 */
#define IS_TS_NAME_ts			  1
#define IS_TS_NAME_initial_time		  0
#define IS_TS_TS(n)			  IS_TS_NAME_##n
#define IS_PMC_PMC			  1
#define IS_TS_U(n)			  0
#define IS_TS_I(n)			  0
#define IS_TS_CPU(n)			  0
#define IS_TS_BUF(n)			  0
#define IS_TS_TEXT(n)			  0
#define IS_TS_SID(n)			  0
#define IS_TS_PMC(n)			  0
#define IS_TS_PEBS(n)			  0
#define IS_TS_ADDR(n)			  0
#define IS_TS_BOOL(n)			  0
#define IS_TS_WHY(n)			  0
#define IS_TS_STR(n)			  0
#define IS_TS_GROUP(n)			  0
#define IS_TS_EVENT(n)			  0
#define IS_TS_CLOCK(n)			  0
#define IS_PMC_U			  0
#define IS_PMC_I			  0
#define IS_PMC_CPU			  0
#define IS_PMC_BUF			  0
#define IS_PMC_TEXT			  0
#define IS_PMC_SID			  0
#define IS_PMC_TS			  0
#define IS_PMC_PEBS			  0
#define IS_PMC_ADDR			  0
#define IS_PMC_BOOL			  0
#define IS_PMC_WHY			  0
#define IS_PMC_STR			  0
#define IS_PMC_GROUP			  0
#define IS_PMC_EVENT			  0
#define IS_PMC_CLOCK			  0
#define TS_ROW(x, name, ctype, how, ...)  +IS_TS_##how(name) * K_##x##_##name
#define PMC_ROW(x, name, ctype, how, ...) +IS_PMC_##how *K_##x##_##name
/* "kind" is key 0: a sum of 0 is no such key */
#define KEY_OR_NONE(k) ((k) ? (unsigned)(k) : NO_KEY)

#define KIND_ROW(kind, ENUM, ctype, u, what, FIELDS, stamp, after)                                 \
	[TRUTH_##ENUM] = {#kind,                                                                   \
			  sizeof(#kind) - 1,                                                       \
			  keys_##kind,                                                             \
			  sizeof(keys_##kind) / sizeof(keys_##kind[0]),                            \
			  KEY_OR_NONE(0 FIELDS(TS_ROW, TRUTH_NO_CHECK, kind)),                     \
			  KEY_OR_NONE(0 FIELDS(PMC_ROW, TRUTH_NO_CHECK, kind))},

static const struct kind_keys kinds[] = {TRUTH_KINDS(KIND_ROW)};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

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
	const struct kind_keys *kind;
	uint64_t seen; /* bit k: key k of the kind was given */
	struct tok tok[MAX_KIND_KEYS];
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

/* A key that no kind has: it is skipped. */
#define K_UNKNOWN MAX_KIND_KEYS

/* The key at @p (past its quote): @k, or K_UNKNOWN (checked for repeats). Return: past ':', or NULL. */
static const char *lookup_key(struct rd *r, const char *p, unsigned *k)
{
	const char *s;
	size_t n;

	p = scan_key(p, &s, &n);
	if (!p) {
		return NULL;
	}
	for (unsigned i = 0; i < r->kind->n; i++) {
		if (r->kind->keys[i].len == n && !memcmp(r->kind->keys[i].text, s, n)) {
			*k = i;
			return p;
		}
	}
	if (n < 2 || memcmp(s, "x_", 2)) {
		return NULL; /* no field of the kind, and not a writer's own: an error */
	}
	if (r->nunknown == MAX_KEYS || repeats(r->unknown, r->unknown_len, r->nunknown, s, n)) {
		return NULL;
	}
	r->unknown[r->nunknown] = s;
	r->unknown_len[r->nunknown++] = n;
	*k = K_UNKNOWN;
	return p;
}

/* The kind a "kind" value names. Return: it, or NULL. */
static const struct kind_keys *kind_named(const struct tok *t)
{
	if (t->type != T_STR) {
		return NULL;
	}
	for (unsigned i = 1; i < NKINDS; i++) {
		if (kinds[i].len == t->n && !memcmp(kinds[i].name, t->s, t->n)) {
			return &kinds[i];
		}
	}
	return NULL;
}

/*
 * The kind of the line at @p: its first key's value when that is "kind"
 * (gen's lines), else found by scanning its keys, their values skipped.
 * Return: the kind, or NULL (no "kind", not a kind, not plain JSON).
 */
static const struct kind_keys *kind_of_line(const char *p, const char *e)
{
	static const struct key_text kind_key = KEY("kind");

	p = ws(p);
	if (*p != '{') {
		return NULL;
	}
	p = ws(p + 1);
	for (;;) {
		struct tok t;
		const char *s;
		size_t n;

		if (*p != '"') {
			return NULL;
		}
		if (key_at(p + 1, e, &kind_key)) {
			s = "kind";
			n = 4;
			p = ws(p + 1 + kind_key.len + 2);
		} else if (!(p = scan_key(p + 1, &s, &n))) {
			return NULL;
		}
		if (!(p = scan_value(p, e, &t, 0))) {
			return NULL;
		}
		if (n == 4 && !memcmp(s, "kind", 4)) {
			return kind_named(&t);
		}
		p = ws(p);
		if (*p != ',') {
			return NULL;
		}
		p = ws(p + 1);
	}
}

/* Pass 1: the whole object into @r (@r->kind set). Return: false to decline. */
static bool scan_line(struct rd *r, const char *p)
{
	const struct key_text *keys = r->kind->keys;
	unsigned oi = 0;

	p = ws(p);
	if (*p != '{') {
		return false;
	}
	p = ws(p + 1);
	for (;;) {
		unsigned k = oi;
		const char *q;
		struct tok *t;

		if (*p != '"') {
			return false;
		}
		p++;
		if (k < r->kind->n && key_at(p, r->e, &keys[k])) {
			p = ws(p + keys[k].len + 2); /* the key gen writes next */
			oi++;
		} else {
			if (!(p = lookup_key(r, p, &k))) {
				return false;
			}
			oi = k == K_UNKNOWN ? oi : k + 1;
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
			if (k == r->kind->ts) {
				t->type = T_OBJ;
				p = scan_ts(r, p);
			} else if (k == r->kind->pmc && *p == '[' &&
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

/*
 * Key @k as an integer in @lo..@hi, @req: it must be there. Return: 1 in
 * *@out, 0 absent (*@out untouched), -1 to decline.
 */
static inline int get_int(const struct rd *r, unsigned k, int64_t lo, int64_t hi, bool req,
			  int64_t *out)
{
	const struct tok *t = tok(r, k);

	if (t->type == T_NONE) {
		return req ? -1 : 0;
	}
	if (t->type != T_INT || t->i < lo || t->i > hi) {
		return -1;
	}
	*out = t->i;
	return 1;
}

/* A boolean: 1, 0 absent, -1 to decline. */
static inline int get_bool(const struct rd *r, unsigned k, bool req, bool *out)
{
	const struct tok *t = tok(r, k);

	if (t->type == T_TRUE || t->type == T_FALSE) {
		*out = t->type == T_TRUE;
		return 1;
	}
	return t->type == T_NONE && !req ? 0 : -1;
}

static bool str_is(const struct tok *t, const char *s)
{
	return t->type == T_STR && t->n == strlen(s) && !memcmp(t->s, s, t->n);
}

/* A plain string @t for member @to (absent: fine unless @req). Return: false to decline. */
static bool keep_text(const struct tok *t, bool req, const char **to, struct truth_fast_opt *opt)
{
	if (t->type == T_NONE) {
		return !req;
	}
	if (t->type != T_STR || opt->ntext == TRUTH_FAST_TEXTS) {
		return false;
	}
	opt->text[opt->ntext].to = to;
	opt->text[opt->ntext].s = t->s;
	opt->text[opt->ntext].n = t->n;
	opt->ntext++;
	return true;
}

/* Does the string @t parse as a SID (get_sid)? Long ones are left to the jansson path. */
static bool sid_ok(const struct tok *t)
{
	char buf[256];
	struct etw_sid sid;

	if (t->n >= sizeof(buf)) {
		return false;
	}
	memcpy(buf, t->s, t->n);
	buf[t->n] = '\0';
	return etw_sid_parse(buf, &sid) == 0;
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

/* "ts" (key @k): @req: every clock in use; absent clocks keep their value (0 here). */
static bool get_ts(const struct truth_fast *fx, const struct rd *r, unsigned k, bool req,
		   uint64_t ts[SIM_CLOCK_SLOTS], struct truth_fast_opt *opt)
{
	if (!(r->seen & (uint64_t)1 << k)) {
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

/*
 * "pmc" (key @k, parse_pmc): a list for the first stamping session, or an
 * object by session name; @stamp: whose values (enum truth_stamp).
 */
static bool get_pmc(const struct truth_fast *fx, const struct rd *r, unsigned k, unsigned stamp,
		    uint64_t pmc[SIM_MAX_COUNTERS])
{
	const struct tok *t = tok(r, k);
	const unsigned *sess = fx->stamp[stamp];
	unsigned nsess = fx->nstamp[stamp];
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

/* A string of a list: its index in @names (@n of them), or -1. */
static int one_of(const struct tok *t, const char *const *names, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (names[i] && str_is(t, names[i])) {
			return (int)i;
		}
	}
	return -1;
}

static const char *const clock_names[SIM_CLOCK_SLOTS] = {
	[SIM_CLOCK_QPC] = "qpc", [SIM_CLOCK_SYSTIME] = "systime", [SIM_CLOCK_CYCLES] = "cycles"};
/* "event": one of the family's (the row's "hi": a set of 1 << event) */
static int one_event(const struct tok *t, unsigned allowed)
{
	for (unsigned e = 0; e < SIM_EVENTS; e++) {
		if ((allowed & SIM_EV_BIT(e)) && str_is(t, sim_event_name((enum sim_event)e))) {
			return (int)e;
		}
	}
	return -1;
}

/*
 * A field of a line by its table row: each "how" reads key k into the
 * member m (of C type ctype) or declines (return false from the getter).
 */
#define REQ_REQ	 true
#define REQ_OPT	 false
#define REQ_LAST false
#define REQ_HIGH false

#define FR_INT(k, lo, hi, req, m, ctype)                                                           \
	do {                                                                                       \
		int64_t v_;                                                                        \
		int g_ = get_int(r, k, lo, hi, req, &v_);                                          \
                                                                                                   \
		if (g_ < 0) {                                                                      \
			return false;                                                              \
		}                                                                                  \
		if (g_) {                                                                          \
			m = (ctype)v_;                                                             \
		}                                                                                  \
	} while (0)
#define FR_U(k, lo, hi, req, m, ctype)	 FR_INT(k, lo, hi, req, m, ctype)
#define FR_I(k, lo, hi, req, m, ctype)	 FR_INT(k, lo, hi, req, m, ctype)
#define FR_CPU(k, lo, hi, req, m, ctype) FR_INT(k, 0, (int64_t)fx->cfg->cpus - 1, req, m, ctype)
#define FR_BUF(k, lo, hi, req, m, ctype) FR_CPU(k, lo, hi, req, m, ctype)
#define FR_TS(k, lo, hi, req, m, ctype)                                                            \
	do {                                                                                       \
		if (k != r->kind->ts || !get_ts(fx, r, k, req, m, opt)) {                          \
			return false;                                                              \
		}                                                                                  \
	} while (0)
#define FR_PMC(k, lo, hi, req, m, ctype)                                                           \
	do {                                                                                       \
		if (!get_pmc(fx, r, k, stamp, m)) {                                                \
			return false;                                                              \
		}                                                                                  \
	} while (0)
/* "0x..." (what gen writes), or a plain number */
#define FR_PEBS(k, lo, hi, req, m, ctype)                                                          \
	do {                                                                                       \
		if (tok(r, k)->type == T_STR) {                                                    \
			if (!addr(tok(r, k), UINT64_MAX, &m)) {                                    \
				return false;                                                      \
			}                                                                          \
		} else {                                                                           \
			FR_INT(k, lo, hi, req, m, ctype);                                          \
		}                                                                                  \
	} while (0)
#define FR_ADDR(k, lo, hi, req, m, ctype)                                                          \
	do {                                                                                       \
		if ((tok(r, k)->type != T_NONE || req) &&                                          \
		    !addr(tok(r, k), fx->cfg->arch == ETL_ARCH_X86 ? UINT32_MAX : UINT64_MAX,      \
			  &m)) {                                                                   \
			return false;                                                              \
		}                                                                                  \
	} while (0)
#define FR_BOOL(k, lo, hi, req, m, ctype)                                                          \
	do {                                                                                       \
		if (get_bool(r, k, req, &m) < 0) {                                                 \
			return false;                                                              \
		}                                                                                  \
	} while (0)
#define FR_ENUM(k, req, m, ctype, names, n)                                                        \
	do {                                                                                       \
		int i_ = one_of(tok(r, k), names, n);                                              \
                                                                                                   \
		if (tok(r, k)->type != T_NONE || req) {                                            \
			if (i_ < 0) {                                                              \
				return false;                                                      \
			}                                                                          \
			m = (ctype)i_;                                                             \
		}                                                                                  \
	} while (0)
#define FR_WHY(k, lo, hi, req, m, ctype)   FR_ENUM(k, req, m, ctype, truth_why_names, TRUTH_NWHY)
#define FR_CLOCK(k, lo, hi, req, m, ctype) FR_ENUM(k, req, m, ctype, clock_names, SIM_CLOCK_SLOTS)
#define FR_EVENT(k, lo, hi, req, m, ctype)                                                         \
	do {                                                                                       \
		int e_ = one_event(tok(r, k), hi);                                                 \
                                                                                                   \
		if (e_ < 0) {                                                                      \
			return false;                                                              \
		}                                                                                  \
		m = (ctype)e_;                                                                     \
	} while (0)
/* identity strings: handed back in @opt, the reader keeps a copy (the record points at it) */
#define FR_TEXT(k, lo, hi, req, m, ctype)                                                          \
	do {                                                                                       \
		if (!keep_text(tok(r, k), req, &m, opt)) {                                         \
			return false;                                                              \
		}                                                                                  \
	} while (0)
/* a SID that does not parse is the jansson path's error */
#define FR_SID(k, lo, hi, req, m, ctype)                                                           \
	do {                                                                                       \
		if (!keep_text(tok(r, k), req, &m, opt) ||                                         \
		    (tok(r, k)->type == T_STR && !sid_ok(tok(r, k)))) {                            \
			return false;                                                              \
		}                                                                                  \
	} while (0)
/* its text goes back in @opt (truth_read.c keeps a copy) */
#define FR_STR(k, lo, hi, req, m, ctype)                                                           \
	do {                                                                                       \
		if (tok(r, k)->type == T_STR) {                                                    \
			opt->name = tok(r, k)->s;                                                  \
			opt->name_len = tok(r, k)->n;                                              \
		} else if (tok(r, k)->type != T_NONE || req) {                                     \
			return false;                                                              \
		}                                                                                  \
	} while (0)
/* only checked to be a string */
#define FR_GROUP(k, lo, hi, req, m, ctype)                                                         \
	do {                                                                                       \
		if (tok(r, k)->type != T_STR && (tok(r, k)->type != T_NONE || req)) {              \
			return false;                                                              \
		}                                                                                  \
	} while (0)

/* A default from the reader's history: was the tick given? (the clocks: get_ts) */
#define FR_GIVEN_REQ(how, k)
#define FR_GIVEN_OPT(how, k)
#define FR_GIVEN_LAST(how, k) FR_TICK_##how(k)
#define FR_GIVEN_HIGH(how, k) FR_TICK_##how(k)
#define FR_TICK_U(k)	      opt->tick = tok(r, k)->type != T_NONE;
#define FR_TICK_TS(k)

#define FR_ROW(x, name, ctype, how, lo, hi, need, dflt, when)                                      \
	FR_##how(K_##x##_##name, lo, hi, REQ_##need, rec->name, ctype);                            \
	FR_GIVEN_##need(how, K_##x##_##name)
#define FR_DFLT(x, name, ctype, how, lo, hi, need, dflt, when)                                     \
	if (dflt) {                                                                                \
		FR_SET_##how(rec->name, dflt);                                                     \
	}
#define FR_SET_U(m, v)	   m = v
#define FR_SET_I(m, v)	   m = v
#define FR_SET_CPU(m, v)   m = v
#define FR_SET_TS(m, v)	   (void)0
#define FR_SET_PMC(m, v)   (void)0
#define FR_SET_PEBS(m, v)  m = v
#define FR_SET_ADDR(m, v)  m = v
#define FR_SET_BOOL(m, v)  m = v
#define FR_SET_WHY(m, v)   m = v
#define FR_SET_STR(m, v)   (void)0
#define FR_SET_GROUP(m, v) (void)0
#define FR_SET_EVENT(m, v) (void)0
#define FR_SET_BUF(m, v)   m = v
#define FR_SET_TEXT(m, v)  (void)0
#define FR_SET_SID(m, v)   (void)0
#define FR_SET_CLOCK(m, v) m = v
#define FR_CHECK(x, name)                                                                          \
	if (truth_check_##name(fx->cfg, rec, NULL) < 0) {                                          \
		return false;                                                                      \
	}

#define FR_GET(kind, ENUM, ctype, u, what, FIELDS, stamp_of, after)                                \
	static bool get_##kind(const struct truth_fast *fx, const struct rd *r, ctype *rec,        \
			       struct truth_fast_opt *opt)                                         \
	{                                                                                          \
		const unsigned stamp = stamp_of;                                                   \
                                                                                                   \
		(void)stamp;                                                                       \
		(void)fx;                                                                          \
		(void)opt;                                                                         \
		FIELDS(FR_DFLT, TRUTH_NO_CHECK, kind)                                              \
		FIELDS(FR_ROW, FR_CHECK, kind)                                                     \
		return true;                                                                       \
	}

TRUTH_KINDS(FR_GET)

/* ---- gen's own switch lines: a template ------------------------------------- */

/*
 * A line of gen is the same text around the values every time: the
 * template matches that text a word at a time and reads each value
 * straight into its field, with the checks of pass 2, but no token, no
 * duplicate check, no lookup. A line that differs in any byte goes to the
 * general parse (which accepts it too when it is good). Built from the
 * switch's table, like the writer's line: the two cannot drift.
 */
#define TF_ENUM(x, name, ctype, how, ...) TF_ENUM_##how(name)
#define TF_ENUM_ONE(name)		  TF_##name,
#define TF_ENUM_U(name)			  TF_ENUM_ONE(name)
#define TF_ENUM_I(name)			  TF_ENUM_ONE(name)
#define TF_ENUM_CPU(name)		  TF_ENUM_ONE(name)
#define TF_ENUM_PMC(name)		  TF_ENUM_ONE(name) /* the next counter value */
#define TF_ENUM_PEBS(name)		  TF_ENUM_ONE(name) /* hex digits, then the closing quote */
#define TF_ENUM_TS(name)		  TF_##name, TF_##name##_last = TF_##name + SIM_CLOCK_SLOTS - 1,

enum tpl_field {
	SIM_CSWITCH_FIELDS(TF_ENUM, TRUTH_NO_CHECK, ) TF_END, /* the line ends after the text */
};

static_assert(TF_END < 256, "a template step's field is a byte");

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

static void tpl_value(struct tpl_build *b, unsigned field)
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

/* The clocks in use, each its key and value (put_clocks). */
static void tpl_clocks(struct tpl_build *b, unsigned field)
{
	static const char *const clock_key[SIM_CLOCK_SLOTS] = {
		NULL, "\"qpc\":", "\"systime\":", "\"cycles\":"};
	bool first = true;

	tpl_text(b, "{");
	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		if (b->fx->used[c]) {
			tpl_text(b, first ? "" : ",");
			tpl_text(b, clock_key[c]);
			tpl_value(b, field + c);
			first = false;
		}
	}
	tpl_text(b, "}");
}

/* The switches' counters (put_pmc): a list, or no template when "pmc" is an object. */
static void tpl_pmc(struct tpl_build *b, const char *key, unsigned field)
{
	const struct truth_fast *fx = b->fx;
	const unsigned *sess = fx->stamp[TRUTH_STAMP_CSWITCH];
	const struct trace_session_cfg *s0;

	if (!fx->nstamp[TRUTH_STAMP_CSWITCH]) {
		return;
	}
	s0 = &fx->cfg->sessions[sess[0]];
	for (unsigned i = 1; i < fx->nstamp[TRUTH_STAMP_CSWITCH]; i++) {
		const struct trace_session_cfg *s = &fx->cfg->sessions[sess[i]];

		if (s->pmc_count != s0->pmc_count ||
		    memcmp(s->pmc_counters, s0->pmc_counters, s0->pmc_count)) {
			b->ok = false; /* "pmc" is an object: the general parse */
		}
	}
	tpl_text(b, key);
	tpl_text(b, "[");
	for (unsigned j = 0; j < s0->pmc_count; j++) {
		tpl_text(b, j ? "," : "");
		tpl_value(b, field);
	}
	tpl_text(b, "]");
}

/* What the writer writes (truth_write.c W_WHEN_, W_): a field the template cannot match ends it. */
#define TPL_WHEN_ALWAYS	 1
#define TPL_WHEN_PEBS	 pebs
#define TPL_WHEN_ROWS	 (b.ok = false)
#define TPL_WHEN_TRUE	 (b.ok = false)
#define TPL_WHEN_SET	 (b.ok = false)
#define TPL_U(key, f)	 tpl_text(&b, key), tpl_value(&b, f)
#define TPL_I(key, f)	 tpl_text(&b, key), tpl_value(&b, f)
#define TPL_CPU(key, f)	 tpl_text(&b, key), tpl_value(&b, f)
#define TPL_TS(key, f)	 tpl_text(&b, key), tpl_clocks(&b, f)
#define TPL_PMC(key, f)	 tpl_pmc(&b, key, f)
#define TPL_PEBS(key, f) tpl_text(&b, key), tpl_text(&b, "\"0x"), tpl_value(&b, f)
#define TPL_ROW(x, name, ctype, how, lo, hi, need, dflt, when)                                     \
	if (TPL_WHEN_##when) {                                                                     \
		TPL_##how(",\"" #name "\":", TF_##name);                                           \
	}

/* The switch line of truth_write.c for this configuration. */
static void tpl_init(struct truth_fast *fx)
{
	struct tpl_build b = {.fx = fx, .ok = true};
	bool pebs = false;

	for (unsigned i = 0; i < fx->cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		pebs = pebs || fx->cfg->sessions[i].pebs;
	}
	fx->ntpl = 0;
	tpl_text(&b, "{\"kind\":\"cswitch\"");
	SIM_CSWITCH_FIELDS(TPL_ROW, TRUTH_NO_CHECK, )
	tpl_text(&b, "}");
	tpl_value(&b, TF_END);
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

/* Each field's value at @p, by its table row (the range checks of pass 2). */
#define TPLC_ROW(x, name, ctype, how, lo, hi, need, dflt, when) TPLC_##how(name, ctype, lo, hi)
#define TPLC_INT(name, ctype, lo, hi)                                                              \
	case TF_##name:                                                                            \
		p = tpl_int(p, lo, hi, &v);                                                        \
		cs->name = (ctype)v;                                                               \
		break;
#define TPLC_U(name, ctype, lo, hi)   TPLC_INT(name, ctype, lo, hi)
#define TPLC_I(name, ctype, lo, hi)   TPLC_INT(name, ctype, lo, hi)
#define TPLC_CPU(name, ctype, lo, hi) TPLC_INT(name, ctype, 0, (int64_t)fx->cfg->cpus - 1)
#define TPLC_TS(name, ctype, lo, hi)                                                               \
	case TF_##name + SIM_CLOCK_QPC:                                                            \
	case TF_##name + SIM_CLOCK_SYSTIME:                                                        \
	case TF_##name + SIM_CLOCK_CYCLES:                                                         \
		p = tpl_int(p, 0, INT64_MAX, &v);                                                  \
		cs->name[st->field - TF_##name] = (uint64_t)v;                                     \
		break;
#define TPLC_PMC(name, ctype, lo, hi)                                                              \
	case TF_##name:                                                                            \
		p = tpl_int(p, lo, hi, &v);                                                        \
		vals[nvals++ % SIM_MAX_PMC] = (uint64_t)v;                                         \
		break;
#define TPLC_PEBS(name, ctype, lo, hi)                                                             \
	case TF_##name:                                                                            \
		p = tpl_hex(p, &cs->name);                                                         \
		break;
#define TPLC_NO_FIELD(x, name, ...)
#define TPLC_CHECK(x, name) &&truth_check_##name(fx->cfg, cs, NULL) == 0

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
			SIM_CSWITCH_FIELDS(TPLC_ROW, TRUTH_NO_CHECK, )
		default: /* TF_END */
			return p == e SIM_CSWITCH_FIELDS(TPLC_NO_FIELD, TPLC_CHECK, ) &&
					       (!fx->nstamp[TRUTH_STAMP_CSWITCH] ||
						pmc_apply(fx, vals, nvals,
							  fx->stamp[TRUTH_STAMP_CSWITCH][0], set_by,
							  cs->pmc))
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
	fx->nstamp[TRUTH_STAMP_CSWITCH] =
		truth_stamping_sessions(cfg, false, fx->stamp[TRUTH_STAMP_CSWITCH]);
	fx->nstamp[TRUTH_STAMP_SPINLOCK] =
		truth_stamping_sessions(cfg, true, fx->stamp[TRUTH_STAMP_SPINLOCK]);
	for (unsigned i = 0; i < SIM_MAX_SESSIONS; i++) {
		fx->name_len[i] = i < cfg->nsessions ? strlen(cfg->sessions[i].name) : 0;
	}
	fx->pebs = false;
	for (unsigned i = 0; i < cfg->nsessions && i < SIM_MAX_SESSIONS; i++) {
		fx->pebs = fx->pebs || cfg->sessions[i].pebs;
	}
	tpl_init(fx);
	fx->pmc_list = fx->ntpl != 0; /* the template gave up on an object */
}

#define FR_CASE(kind, ENUM, ctype, um, ...)                                                        \
	case TRUTH_##ENUM:                                                                         \
		return get_##kind(fx, &r, &rec->u.um, opt) ? TRUTH_##ENUM : 0;

int truth_fast_line(const struct truth_fast *fx, const char *s, size_t n, struct truth_record *rec,
		    struct truth_fast_opt *opt)
{
	struct rd r;

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
	r.kind = kind_of_line(s, r.e);
	if (!r.kind || !scan_line(&r, s)) {
		return 0;
	}
	switch ((enum truth_kind)(r.kind - kinds)) {
		TRUTH_KINDS(FR_CASE)
	default:
		return 0;
	}
}

/* ---- gen's switch line, straight through (truth_fast_cswitch) ------------ */

/*
 * The reader's buffer has TRUTH_FAST_PAD readable bytes past its data, so
 * the words below may be loaded whole; a line is taken only when it ends
 * (its '\n') before the data does.
 */
#if defined(__GNUC__)
#define FC_INLINE inline __attribute__((always_inline))
#else
#define FC_INLINE inline
#endif

static FC_INLINE uint64_t ld64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/*
 * LIT(p, s): do the bytes at @p spell the literal @s (up to 32 bytes)?
 * Compared a word at a time against words and masks built from the
 * literal at compile time.
 */
#define LIT_N(s) (sizeof(s) - 1)
#define LIT_B(s, k)                                                                                \
	((k) < LIT_N(s)                                                                            \
		 ? (uint64_t)(unsigned char)(s)[(k) < LIT_N(s) ? (k) : 0] << (8 * ((k) % 8))       \
		 : 0)
#define LIT_W(s, i)                                                                                \
	(LIT_B(s, 8 * (i)) | LIT_B(s, 8 * (i) + 1) | LIT_B(s, 8 * (i) + 2) |                       \
	 LIT_B(s, 8 * (i) + 3) | LIT_B(s, 8 * (i) + 4) | LIT_B(s, 8 * (i) + 5) |                   \
	 LIT_B(s, 8 * (i) + 6) | LIT_B(s, 8 * (i) + 7))
#define LIT_M(s, i)                                                                                \
	(LIT_N(s) >= 8 * (i) + 8 ? UINT64_MAX                                                      \
	 : LIT_N(s) <= 8 * (i)	 ? 0                                                               \
				 : (UINT64_C(1) << (8 * (LIT_N(s) - 8 * (i)) % 64)) - 1)
#define LIT_D(p, s, i) (LIT_M(s, i) ? (ld64((p) + 8 * (i)) ^ LIT_W(s, i)) & LIT_M(s, i) : 0)
#define LIT(p, s)                                                                                  \
	((void)sizeof(char[LIT_N(s) <= 32 ? 1 : -1]),                                              \
	 (LIT_D(p, s, 0) | LIT_D(p, s, 1) | LIT_D(p, s, 2) | LIT_D(p, s, 3)) == 0)

/*
 * @x - '0' in every byte (@t), and per byte a mark (0x80) where @x is not
 * an ASCII digit: exact up to the first mark and in it (a borrow or carry
 * only moves to later bytes), which is all the callers look at.
 */
static FC_INLINE uint64_t non_digits(uint64_t x, uint64_t *t)
{
	*t = x - UINT64_C(0x3030303030303030);
	return ((*t + UINT64_C(0x7676767676767676)) | *t) & UINT64_C(0x8080808080808080);
}

/* The value of the @k (1..8) digits at the start of @t (x - '0', its low bytes). */
static FC_INLINE uint64_t digits_value(uint64_t t, unsigned k)
{
	uint64_t v = t << (8 * (8 - k) & 63);

	if (k == 8) {
		v = t;
	}
	v = v * 10 + (v >> 8);
	v = ((v & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x000F424000000064) +
	     ((v >> 16) & UINT64_C(0x000000FF000000FF)) * UINT64_C(0x0000271000000001)) >>
	    32;
	return v;
}

static const uint64_t pow10_8[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/*
 * The digits of a JSON integer at @d as scan_int() reads them (no leading
 * zero, at most 19 digits), eight at a time; what follows is the next text
 * of the line, which the caller matches (so a fraction or an exponent is
 * refused there). Return: past them, or NULL.
 */
static FC_INLINE const char *fc_digits(const char *d, uint64_t *out)
{
	uint64_t t, nd = non_digits(ld64(d), &t), v;
	unsigned k, n;

	if (nd & 0x80) {
		return NULL;
	}
	if (nd & 0x8000) { /* one digit: the common case */
		*out = t & 0xF;
		return d + 1;
	}
	if ((t & 0xFF) == 0) {
		return NULL; /* a leading zero */
	}
	k = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
	n = k;
	v = digits_value(t, k);
	while (k == 8) { /* 9 digits or more: the next eight */
		nd = non_digits(ld64(d + n), &t);
		k = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
		if (k == 0) {
			break;
		}
		if (n + k > 19) {
			return NULL;
		}
		v = v * pow10_8[k] + digits_value(t, k);
		n += k;
	}
	*out = v;
	return d + n;
}

/*
 * Zero the clocks and the counters with plain 16-byte stores, written out:
 * a memset() of the counters' 128 bytes (or a loop, which the compiler
 * turns into one) was compiled to `rep stos`, whose start-up cost about a
 * tenth of a line's time.
 */
static FC_INLINE void zero_ts_pmc(struct sim_cswitch *cs)
{
#if defined(__SSE2__)
#define ZW(w, i) _mm_storeu_si128((__m128i *)(void *)((w) + (i)), _mm_setzero_si128())
#else
#define ZW(w, i) ((w)[i] = 0, (w)[(i) + 1] = 0)
#endif
	static_assert(SIM_CLOCK_SLOTS == 4 && SIM_MAX_COUNTERS == 16, "the stores below");
	ZW(cs->ts, 0);
	ZW(cs->ts, 2);
	ZW(cs->pmc, 0);
	ZW(cs->pmc, 2);
	ZW(cs->pmc, 4);
	ZW(cs->pmc, 6);
	ZW(cs->pmc, 8);
	ZW(cs->pmc, 10);
	ZW(cs->pmc, 12);
	ZW(cs->pmc, 14);
#undef ZW
}

/* An integer in @lo..@hi (a '-' only when @lo < 0). Return: past it, or NULL. */
static FC_INLINE const char *fc_range(const char *p, int64_t lo, int64_t hi, int64_t *v)
{
	uint64_t u;

	if (lo < 0 && *p == '-') {
		if (!(p = fc_digits(p + 1, &u)) || u > (uint64_t)INT64_MAX + 1) {
			return NULL;
		}
		*v = (int64_t)(0 - u);
	} else {
		if (!(p = fc_digits(p, &u)) || u > (uint64_t)INT64_MAX) {
			return NULL;
		}
		*v = (int64_t)u;
	}
	return *v >= lo && *v <= hi ? p : NULL;
}

/* fc_range() of a field in 0..@hi, @hi <= 99: one or two digits, looked at one by one. */
static FC_INLINE const char *fc_small(const char *p, int64_t hi, int64_t *v)
{
	unsigned a = (unsigned)(unsigned char)p[0] - '0', b = (unsigned)(unsigned char)p[1] - '0';

	if (a > 9) {
		return NULL;
	}
	if (b > 9) {
		*v = a;
		return (int64_t)a <= hi ? p + 1 : NULL;
	}
	if (a == 0 || (unsigned)(unsigned char)p[2] - '0' <= 9) {
		return NULL; /* a leading zero, or 3 digits or more: out of range */
	}
	*v = a * 10 + b;
	return *v <= hi ? p + 2 : NULL;
}

/*
 * Do the @n (1..32) bytes at @p spell @k (a 32-byte, zero-padded copy)?
 * Sixteen bytes at a time with SSE2, else a word at a time.
 */
static FC_INLINE bool text_at(const char *p, const char *k, size_t n)
{
#if defined(__SSE2__)
	uint32_t m0 = n >= 16 ? 0xFFFFu : (1u << n) - 1u;
	uint32_t m1 = n >= 32 ? 0xFFFFu : n > 16 ? (1u << (n - 16)) - 1u : 0u;
	uint32_t e0 = (uint32_t)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p),
			       _mm_loadu_si128((const __m128i *)(const void *)k)));

	if (m1) {
		uint32_t e1 = (uint32_t)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 16)),
				       _mm_loadu_si128((const __m128i *)(const void *)(k + 16))));

		return (e0 & m0) == m0 && (e1 & m1) == m1;
	}
	return (e0 & m0) == m0;
#else
	uint64_t diff = 0;

	for (size_t i = 0; i < n; i += 8) {
		uint64_t m = n - i >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * (n - i))) - 1;

		diff |= (ld64(p + i) ^ ld64(k + i)) & m;
	}
	return diff == 0;
#endif
}

#define FC_ROW(x, name, ctype, how, lo, hi, need, dflt, when) FC_##how(name, ctype, lo, hi)
#define FC_KEY(name)                                                                               \
	{                                                                                          \
		static const char key_[32] = ",\"" #name "\":";                                    \
                                                                                                   \
		if (!text_at(p, key_, sizeof(",\"" #name "\":") - 1)) {                            \
			return NULL;                                                               \
		}                                                                                  \
		p += sizeof(",\"" #name "\":") - 1;                                                \
	}
#define FC_NUM(name, ctype, lo, hi)                                                                \
	FC_KEY(name)                                                                               \
	if (!(p = (lo) >= 0 && (hi) <= 99 ? fc_small(p, hi, &v) : fc_range(p, lo, hi, &v))) {      \
		return NULL;                                                                       \
	}                                                                                          \
	cs->name = (ctype)v;
#define FC_U(name, ctype, lo, hi)   FC_NUM(name, ctype, lo, hi)
#define FC_I(name, ctype, lo, hi)   FC_NUM(name, ctype, lo, hi)
#define FC_CPU(name, ctype, lo, hi) FC_NUM(name, ctype, 0, (int64_t)fx->cfg->cpus - 1)
#define FC_TS(name, ctype, lo, hi)                                                                 \
	FC_KEY(name)                                                                               \
	if (!(p = fc_clocks(fx, p, cs->name))) {                                                   \
		return NULL;                                                                       \
	}
#define FC_PMC(name, ctype, lo, hi)                                                                \
	if (fx->nstamp[TRUTH_STAMP_CSWITCH]) {                                                     \
		FC_KEY(name)                                                                       \
		if (!(p = fc_pmc(fx, p, cs->name))) {                                              \
			return NULL;                                                               \
		}                                                                                  \
	}
#define FC_PEBS(name, ctype, lo, hi)                                                               \
	if (fx->pebs) {                                                                            \
		FC_KEY(name)                                                                       \
		if (!LIT(p, "\"0x") || !(p = tpl_hex(p + 3, &cs->name))) {                         \
			return NULL;                                                               \
		}                                                                                  \
	}
#define FC_CHECK(x, name)                                                                          \
	if (truth_check_##name(fx->cfg, cs, NULL) < 0) {                                           \
		return NULL;                                                                       \
	}

/* "ts": each clock in use, in order, as put_clocks() writes them. Return: past '}', or NULL. */
static const char *fc_clocks(const struct truth_fast *fx, const char *p, uint64_t *ts)
{
	char open = '{';
	int64_t v;

	for (unsigned c = SIM_CLOCK_QPC; c <= SIM_CLOCK_CYCLES; c++) {
		if (!fx->used[c]) {
			continue;
		}
		if (*p++ != open) {
			return NULL;
		}
		open = ',';
		if (c == SIM_CLOCK_QPC && LIT(p, "\"qpc\":")) {
			p += 6;
		} else if (c == SIM_CLOCK_SYSTIME && LIT(p, "\"systime\":")) {
			p += 10;
		} else if (c == SIM_CLOCK_CYCLES && LIT(p, "\"cycles\":")) {
			p += 9;
		} else {
			return NULL;
		}
		if (!(p = fc_range(p, 0, INT64_MAX, &v))) {
			return NULL;
		}
		ts[c] = (uint64_t)v;
	}
	return open == ',' && *p == '}' ? p + 1 : NULL;
}

/* "pmc": the first stamping session's list (gen writes one when they agree). */
static const char *fc_pmc(const struct truth_fast *fx, const char *p, uint64_t *pmc)
{
	unsigned set_by[SIM_MAX_COUNTERS] = {0};
	uint64_t vals[SIM_MAX_PMC];
	unsigned n = 0;
	int64_t v;

	if (!fx->pmc_list || *p++ != '[') {
		return NULL;
	}
	while (*p != ']') {
		if ((n && *p++ != ',') || n == SIM_MAX_PMC ||
		    !(p = fc_range(p, 0, INT64_MAX, &v))) {
			return NULL;
		}
		vals[n++] = (uint64_t)v;
	}
	return pmc_apply(fx, vals, n, fx->stamp[TRUTH_STAMP_CSWITCH][0], set_by, pmc) ? p + 1
										      : NULL;
}

const char *truth_fast_cswitch(const struct truth_fast *fx, const char *p, const char *end,
			       struct sim_cswitch *cs)
{
	const char *start = p;
	int64_t v;

	if (!fx->ntpl || end - p < 32 || !LIT(p, "{\"kind\":\"cswitch\"")) {
		return NULL;
	}
	p += sizeof("{\"kind\":\"cswitch\"") - 1;
	/* what the line may leave out; every other member is written below */
	zero_ts_pmc(cs); /* the clocks not in use, the counters */
	cs->pebs_index = 0;
	SIM_CSWITCH_FIELDS(FC_ROW, FC_CHECK, )
	if (p >= end - 1 || p[0] != '}' || p[1] != '\n') {
		return NULL;
	}
	(void)start;
	return p + 2;
}
