// SPDX-License-Identifier: MIT
/*
 * tools/lib/scenario.c - loading a scenario: the schema tables, the walk of a
 * YAML tree against them, --set paths, the built-in default scenario and
 * the cross-key checks of scenario_finish().
 *
 *   scenario_default()          structs hold the defaults
 *        |
 *   scenario_load_file()        yt_parse() -> tree -> apply_map(schema, scenario)
 *        |                      each key: find its sk_desc (or "did you mean"),
 *        |                      check type and range at the node, store, and
 *        |                      remember where it came from (sc->where)
 *   scenario_set() ...          the path picks the sk_desc (list items by index),
 *        |                      the value is parsed as YAML and applied the same way
 *   scenario_finish()           rules across keys, reported at the position
 *                               remembered for the key that set the value last
 *
 * Values go straight into the structs, layer after layer, so no tree
 * outlives its call and struct scenario needs no freeing.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/scenario.h"
#include "tools/lib/scenario_internal.h"
#include "writer/out_file.h"
#include "tools/lib/yaml_tree.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FSIZE(T, m)   ((unsigned)sizeof(((T *)0)->m))

#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)
#define NS_PER_S  UINT64_C(1000000000)

#define SCENARIO_MAX_FILE (16u * 1024 * 1024)

static_assert(sizeof(enum sim_clock) == sizeof(int), "enums are stored as int");
static_assert(sizeof(enum etl_arch) == sizeof(int), "enums are stored as int");
static_assert(sizeof(enum sched_behaviour) == sizeof(int), "enums are stored as int");
static_assert(SCENARIO_WAIT_NAMES <= SCHED_WAIT_REASONS, "names fit the weights");

/* KWAIT_REASON, KERNEL_FACTS 7 (ntkeapi.h), 0..42. */
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

const char *scenario_wait_reason_name(unsigned r)
{
	return r < SCENARIO_WAIT_NAMES ? wait_names[r] : NULL;
}

static const char *const clock_names[] = {NULL, "qpc", "systime", "cycles"};
static const char *const arch_names[] = {"x64", "x86"};
static const char *const behaviour_names[] = {"cpu_bound", "io_bound", "interactive",
					      "periodic"};
static const char *const flag_names[] = {"cswitch", "compact_cswitch", "spinlock"};
static const unsigned flag_bits[] = {PRODUCER_F_CSWITCH, PRODUCER_F_COMPACT,
				     PRODUCER_F_SPINLOCK};

static_assert(ETL_ARCH_X64 == 0 && ETL_ARCH_X86 == 1, "arch_names order");
static_assert(SCHED_CPU_BOUND == 0 && SCHED_PERIODIC == 3, "behaviour_names order");
static_assert(SIM_CLOCK_QPC == 1 && SIM_CLOCK_CYCLES == 3, "clock_names order");

/* ------------------------------------------------------------------------ */
/* the walk: position, key path, errors */

struct walk {
	struct scenario *sc;
	const char *file; /* name in messages */
	uint8_t src;      /* SCENARIO_SRC_FILE or _SET */
	unsigned item;    /* index of the list item being applied */
	char path[256];   /* dotted key path of the value being applied */
	size_t plen;
	char *err;
	size_t errlen;
};

static size_t push(struct walk *w, const char *key)
{
	size_t old = w->plen;
	int k = snprintf(w->path + w->plen, sizeof(w->path) - w->plen, "%s%s", w->plen ? "." : "",
			 key);

	if (k > 0) {
		w->plen += (size_t)k;
	}
	if (w->plen >= sizeof(w->path)) {
		w->plen = sizeof(w->path) - 1; /* truncated: only messages see it */
	}
	return old;
}

static size_t push_index(struct walk *w, unsigned i)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", i);
	return push(w, num);
}

static void pop(struct walk *w, size_t old)
{
	w->plen = old;
	w->path[old] = '\0';
}

/*
 * Keep an error on one line: a value echoed into the message may hold line
 * breaks (a multi-line YAML scalar), which become "\n"-style escapes.
 */
static void one_line(char *err, size_t errlen)
{
	char tmp[2048];
	size_t o = 0;

	for (const char *p = err; *p && o + 5 < sizeof(tmp); p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\n' || c == '\r' || c == '\t') {
			tmp[o++] = '\\';
			tmp[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		} else if (c < 0x20 || c == 0x7F) {
			o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, "\\x%02x", c);
		} else {
			tmp[o++] = (char)c;
		}
	}
	tmp[o] = '\0';
	snprintf(err, errlen, "%s", tmp);
}

static int vfail(char *err, size_t errlen, const char *file, uint32_t line, uint32_t col,
		 const char *path, const char *fmt, va_list ap)
{
	int k = snprintf(err, errlen, "%s:%" PRIu32 ":%" PRIu32 ": %s: ", file, line, col,
			 path[0] ? path : "scenario");

	if (k >= 0 && (size_t)k < errlen) {
		vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
	}
	one_line(err, errlen);
	return -EINVAL;
}

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

PRINTF_LIKE(4, 5)
static int fail_at(struct walk *w, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(w->err, w->errlen, w->file, line, col, w->path, fmt, ap);
	va_end(ap);
	return rc;
}

PRINTF_LIKE(3, 4)
static int fail(struct walk *w, const struct yt_node *n, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(w->err, w->errlen, w->file, n->line, n->col, w->path, fmt, ap);
	va_end(ap);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* where each key got its value: the position scenario_finish() reports */

static struct scenario_where *where_find(struct scenario *sc, const char *path)
{
	for (unsigned i = 0; i < sc->nwhere; i++) {
		if (!strcmp(sc->where[i].path, path)) {
			return &sc->where[i];
		}
	}
	return NULL;
}

static void where_put(struct walk *w, const char *path, uint32_t line, uint32_t col)
{
	struct scenario *sc = w->sc;
	struct scenario_where *e;

	if (strlen(path) >= SCENARIO_PATH_MAX) {
		return; /* a parent's position will do */
	}
	e = where_find(sc, path);
	if (!e) {
		if (sc->nwhere >= SCENARIO_MAX_WHERE) {
			return;
		}
		e = &sc->where[sc->nwhere++];
		strcpy(e->path, path);
	}
	e->src = w->src;
	e->line = line;
	e->col = col;
}

/* A list was replaced: forget the positions of its old items. */
static void where_drop_under(struct scenario *sc, const char *path)
{
	size_t len = strlen(path);
	unsigned j = 0;

	for (unsigned i = 0; i < sc->nwhere; i++) {
		const char *p = sc->where[i].path;

		if (!strncmp(p, path, len) && p[len] == '.') {
			continue;
		}
		sc->where[j++] = sc->where[i];
	}
	sc->nwhere = j;
}

/* Report @path at the position that set it (or its nearest parent). */
PRINTF_LIKE(5, 6)
static int fail_key(const struct scenario *sc, char *err, size_t errlen, const char *path,
		    const char *fmt, ...)
{
	char p[SCENARIO_PATH_MAX + 8];
	const char *file = "(default)";
	uint32_t line = 0;
	uint32_t col = 0;
	va_list ap;
	int rc;

	snprintf(p, sizeof(p), "%s", path);
	for (;;) {
		const struct scenario_where *e = where_find((struct scenario *)sc, p);
		char *dot;

		if (e) {
			file = e->src == SCENARIO_SRC_SET ? "--set" : sc->source;
			line = e->line;
			col = e->col;
			break;
		}
		dot = strrchr(p, '.');
		if (!dot) {
			break;
		}
		*dot = '\0';
	}
	va_start(ap, fmt);
	rc = vfail(err, errlen, file, line, col, path, fmt, ap);
	va_end(ap);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* did you mean: the closest name by edit distance, ignoring case */

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[65];
	size_t la = strlen(a);
	size_t lb = strlen(b);

	if (la > 64 || lb > 64) {
		return 1000;
	}
	for (size_t j = 0; j <= lb; j++) {
		row[j] = (unsigned)j;
	}
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (lower(a[i - 1]) != lower(b[j - 1]));

			if (up + 1 < best) {
				best = up + 1;
			}
			if (row[j - 1] + 1 < best) {
				best = row[j - 1] + 1;
			}
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

static const char *suggest(const char *s, const char *const *cands, unsigned n)
{
	const char *best = NULL;
	unsigned bd = 1000;

	for (unsigned i = 0; i < n; i++) {
		unsigned d;
		unsigned limit;

		if (!cands[i]) {
			continue;
		}
		d = edit_distance(s, cands[i]);
		limit = strlen(cands[i]) >= 6 ? 2 : 1;
		if (d <= limit && d < bd) {
			best = cands[i];
			bd = d;
		}
	}
	return best;
}

/* "a, b, c" into @buf. */
static void join(char *buf, size_t len, const char *const *names, unsigned n)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		int k;

		if (!names[i]) {
			continue;
		}
		k = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", names[i]);
		if (k < 0 || (size_t)k >= len - at) {
			break;
		}
		at += (size_t)k;
	}
}

static unsigned table_keys(const struct sk_desc *table, const char **keys, unsigned max)
{
	unsigned n = 0;

	for (const struct sk_desc *d = table; d->key && n < max; d++) {
		keys[n++] = d->key;
	}
	return n;
}

static const struct sk_desc *find_key(const struct sk_desc *table, const char *key)
{
	for (const struct sk_desc *d = table; d->key; d++) {
		if (!strcmp(d->key, key)) {
			return d;
		}
	}
	return NULL;
}

/* The key at the end of w->path is not in @table. */
static int fail_unknown_key(struct walk *w, const struct sk_desc *table, const char *key,
			    uint32_t line, uint32_t col)
{
	const char *keys[32];
	unsigned n = table_keys(table, keys, 32);
	const char *s = suggest(key, keys, n);
	char known[400];

	if (s) {
		return fail_at(w, line, col, "unknown key (did you mean '%s'?)", s);
	}
	join(known, sizeof(known), keys, n);
	return fail_at(w, line, col, "unknown key (known: %s)", known);
}

/* ------------------------------------------------------------------------ */
/* scalars */

/* Decimal or 0x hex, optional '+'. Return: 0, -EINVAL (not a number), -ERANGE. */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	size_t n = 0;

	if (*s == '+') {
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, n++) {
		unsigned d;

		if (*s >= '0' && *s <= '9') {
			d = (unsigned)(*s - '0');
		} else if (base == 16 && lower(*s) >= 'a' && lower(*s) <= 'f') {
			d = (unsigned)(lower(*s) - 'a' + 10);
		} else {
			return -EINVAL;
		}
		if (v > (UINT64_MAX - d) / base) {
			/* keep scanning: "99999999999999999999x" is not a number at all */
			for (s++; *s; s++) {
				if (!(*s >= '0' && *s <= '9') &&
				    !(base == 16 && lower(*s) >= 'a' && lower(*s) <= 'f')) {
					return -EINVAL;
				}
			}
			return -ERANGE;
		}
		v = v * base + d;
	}
	if (n == 0) {
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static bool is_negative_number(const char *s)
{
	uint64_t v;

	return s[0] == '-' && s[1] != '+' && parse_u64(s + 1, &v) != -EINVAL;
}

/*
 * Durations: an integer is nanoseconds; otherwise a decimal number and a
 * unit (ns, us, ms, s), computed exactly: "1.5s" is 1500000000 and "1.5ns"
 * is refused. Return: 0, -EINVAL (not a duration), -EDOM (not a whole ns),
 * -ERANGE (above 2^64 - 1 ns).
 */
static int parse_duration(const char *s, uint64_t *out)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{"ns", 1}, {"us", NS_PER_US}, {"\xc2\xb5s", NS_PER_US}, {"ms", NS_PER_MS},
		{"s", NS_PER_S}, {"min", 60 * NS_PER_S}, {"h", 3600 * NS_PER_S},
	};
	const char *p = s;
	const char *ip;
	const char *fp = NULL;
	size_t ni = 0;
	size_t nf = 0;
	uint64_t mult = 1;
	uint64_t v = 0;
	uint64_t scale;

	if (*p == '+') {
		p++;
	}
	ip = p;
	while (*p >= '0' && *p <= '9') {
		p++;
		ni++;
	}
	if (*p == '.') {
		fp = ++p;
		while (*p >= '0' && *p <= '9') {
			p++;
			nf++;
		}
	}
	if (ni + nf == 0) {
		return -EINVAL;
	}
	while (*p == ' ') {
		p++;
	}
	if (*p) {
		size_t u = 0;

		while (u < ARRAY_SIZE(units) && strcmp(p, units[u].name)) {
			u++;
		}
		if (u == ARRAY_SIZE(units)) {
			return -EINVAL;
		}
		mult = units[u].ns;
	}
	for (size_t i = 0; i < ni; i++) {
		unsigned d = (unsigned)(ip[i] - '0');

		if (v > (UINT64_MAX - d) / 10) {
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	if (v > UINT64_MAX / mult) {
		return -ERANGE;
	}
	v *= mult;
	scale = mult;
	for (size_t i = 0; i < nf; i++) {
		unsigned d = (unsigned)(fp[i] - '0');

		if (scale < 10) {
			if (d) {
				return -EDOM;
			}
			continue;
		}
		scale /= 10;
		if (v > UINT64_MAX - d * scale) {
			return -ERANGE;
		}
		v += d * scale;
	}
	*out = v;
	return 0;
}

void scenario_format_duration(char *buf, size_t len, uint64_t ns)
{
	if (ns == 0) {
		snprintf(buf, len, "0");
	} else if (ns % NS_PER_S == 0) {
		snprintf(buf, len, "%" PRIu64 "s", ns / NS_PER_S);
	} else if (ns % NS_PER_MS == 0) {
		snprintf(buf, len, "%" PRIu64 "ms", ns / NS_PER_MS);
	} else if (ns % NS_PER_US == 0) {
		snprintf(buf, len, "%" PRIu64 "us", ns / NS_PER_US);
	} else {
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	}
}

/* A scalar with a value (any quoting), else an error saying what it is. */
static int need_scalar(struct walk *w, const struct yt_node *n, const char *what)
{
	if (yt_is_null(n)) {
		return fail(w, n, "no value (expected %s)", what);
	}
	if (n->kind != YT_SCALAR) {
		return fail(w, n, "must be %s, not %s", what, yt_kind_name(n));
	}
	if (strlen(n->str) != n->len) {
		return fail(w, n, "contains a NUL character");
	}
	return 0;
}

/* A number or bool: like need_scalar, and written without quotes. */
static int need_plain(struct walk *w, const struct yt_node *n, const char *what)
{
	int rc = need_scalar(w, n, what);

	if (rc == 0 && !n->plain) {
		return fail(w, n, "must be %s, not the string \"%s\"", what, n->str);
	}
	return rc;
}

static int get_uint(struct walk *w, const struct yt_node *n, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	uint64_t v = 0;
	int rc = need_plain(w, n, "an integer");

	*out = 0; /* written on every path: callers read it only on success */
	if (rc) {
		return rc;
	}
	rc = parse_u64(n->str, &v);
	if (rc == -EINVAL && !is_negative_number(n->str)) {
		return fail(w, n, "\"%s\" is not an integer", n->str);
	}
	if (rc || v < min || v > max) {
		return fail(w, n, "%s is out of range (%" PRIu64 "..%" PRIu64 ")", n->str, min,
			    max);
	}
	*out = v;
	return 0;
}

static int get_duration(struct walk *w, const struct yt_node *n, uint64_t min, uint64_t max,
			uint64_t *out)
{
	char lo[32];
	char hi[32];
	uint64_t v = 0;
	int rc = need_scalar(w, n, "a duration");

	*out = 0; /* written on every path */
	if (rc) {
		return rc;
	}
	rc = parse_duration(n->str, &v);
	if (rc == -EDOM) {
		return fail(w, n, "\"%s\" is not a whole number of nanoseconds", n->str);
	}
	if (rc == -EINVAL && !(n->str[0] == '-' && parse_duration(n->str + 1, &v) != -EINVAL)) {
		return fail(w, n,
			    "\"%s\" is not a duration (integer nanoseconds, or a number and "
			    "ns, us, ms, s, min or h, e.g. \"1.5s\")",
			    n->str);
	}
	if (rc || v < min || v > max) {
		scenario_format_duration(lo, sizeof(lo), min);
		scenario_format_duration(hi, sizeof(hi), max);
		return fail(w, n, "%s is out of range (%s..%s)", n->str, lo, hi);
	}
	*out = v;
	return 0;
}

static void store_uint(void *p, unsigned size, uint64_t v)
{
	switch (size) {
	case 1: {
		uint8_t x = (uint8_t)v;

		memcpy(p, &x, 1);
		break;
	}
	case 2: {
		uint16_t x = (uint16_t)v;

		memcpy(p, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)v;

		memcpy(p, &x, 4);
		break;
	}
	default:
		assert(size == 8);
		memcpy(p, &v, 8);
		break;
	}
}

static void copy_str(char *dst, size_t size, const char *src)
{
	memset(dst, 0, size); /* whole array: structs compare equal with memcmp */
	memcpy(dst, src, strlen(src) < size ? strlen(src) : size - 1);
}

static int get_str(struct walk *w, const struct yt_node *n, size_t min, size_t size,
		   const char **out)
{
	int rc;

	if (yt_is_null(n) && n->kind == YT_SCALAR) {
		*out = "";
	} else if ((rc = need_scalar(w, n, "a string")) != 0) {
		return rc;
	} else {
		*out = n->str;
	}
	if (strlen(*out) >= size) {
		return fail(w, n, "is too long (%zu bytes, at most %zu)", strlen(*out), size - 1);
	}
	if (strlen(*out) < min) {
		return fail(w, n, "must not be empty");
	}
	return 0;
}

/* An enum value by name, or (if @numeric) by number. */
static int get_enum(struct walk *w, const struct yt_node *n, const char *const *names,
		    unsigned nnames, bool numeric, unsigned *out)
{
	char list[200];
	uint64_t v;
	int rc = need_scalar(w, n, "a name");

	*out = 0; /* written on every path */
	if (rc) {
		return rc;
	}
	for (unsigned i = 0; i < nnames; i++) {
		if (names[i] && !strcmp(names[i], n->str)) {
			*out = i;
			return 0;
		}
	}
	join(list, sizeof(list), names, nnames);
	if (numeric && n->plain && (parse_u64(n->str, &v) != -EINVAL ||
				    is_negative_number(n->str))) {
		unsigned lo = 0;
		unsigned hi = nnames - 1;

		while (!names[lo]) {
			lo++;
		}
		if (parse_u64(n->str, &v) == 0 && v < nnames && names[v]) {
			*out = (unsigned)v;
			return 0;
		}
		return fail(w, n, "%s is out of range (%u..%u: %s)", n->str, lo, hi, list);
	}
	{
		const char *s = suggest(n->str, names, nnames);

		if (s) {
			return fail(w, n, "\"%s\" is not one of %s (did you mean '%s'?)", n->str,
				    list, s);
		}
	}
	return fail(w, n, "\"%s\" is not one of %s", n->str, list);
}

/* ------------------------------------------------------------------------ */
/* the walk */

static int apply_map(struct walk *w, const struct sk_desc *table, void *base,
		     const struct yt_node *n);
static int apply_list(struct walk *w, const struct sk_desc *d, const struct yt_node *n);

static int apply_value(struct walk *w, const struct sk_desc *d, void *base,
		       const struct yt_node *n)
{
	void *p = (char *)base + d->off;
	uint64_t v = 0;
	unsigned e = 0;
	const char *s;
	int rc;

	switch (d->kind) {
	case SK_UINT:
		rc = get_uint(w, n, d->min, d->max, &v);
		if (rc == 0 && d->multiple && v % d->multiple) {
			rc = fail(w, n, "%" PRIu64 " is not a multiple of %" PRIu64 "%s", v,
				  d->multiple, d->multiple == 4096 ? " (4 KiB)" : "");
		}
		if (rc == 0) {
			store_uint(p, d->size, v);
		}
		break;
	case SK_BOOL:
		rc = need_plain(w, n, "true or false");
		if (rc == 0) {
			bool b;

			if (!strcmp(n->str, "true") || !strcmp(n->str, "True") ||
			    !strcmp(n->str, "TRUE")) {
				b = true;
			} else if (!strcmp(n->str, "false") || !strcmp(n->str, "False") ||
				   !strcmp(n->str, "FALSE")) {
				b = false;
			} else {
				return fail(w, n, "\"%s\" is neither true nor false", n->str);
			}
			memcpy(p, &b, sizeof(b));
		}
		break;
	case SK_STR:
		rc = get_str(w, n, (size_t)d->min, d->size, &s);
		if (rc == 0) {
			copy_str(p, d->size, s);
		}
		break;
	case SK_DUR:
		rc = get_duration(w, n, d->min, d->max, &v);
		if (rc == 0) {
			memcpy(p, &v, sizeof(v));
		}
		break;
	case SK_ENUM:
		rc = get_enum(w, n, d->names, d->nnames, d->numeric, &e);
		if (rc == 0) {
			int x = (int)e;

			assert(d->size == sizeof(int));
			memcpy(p, &x, sizeof(x));
		}
		break;
	case SK_MAP:
		rc = apply_map(w, d->sub, base, n);
		break;
	case SK_LIST:
		rc = apply_list(w, d, n);
		break;
	default:
		rc = d->apply(w, d, base, n);
		break;
	}
	if (rc == 0) {
		where_put(w, w->path, n->line, n->col);
	}
	return rc;
}

static int apply_map(struct walk *w, const struct sk_desc *table, void *base,
		     const struct yt_node *n)
{
	if (yt_is_null(n)) {
		return 0;
	}
	if (n->kind != YT_MAP) {
		return fail(w, n, "must be a map, not %s", yt_kind_name(n));
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct yt_node *k = n->kids[2 * i];
		const struct sk_desc *d;
		size_t old;
		int rc;

		if (k->kind != YT_SCALAR || yt_is_null(k)) {
			return fail(w, k, "a key must be a name, not %s", yt_kind_name(k));
		}
		old = push(w, k->str);
		for (size_t j = 0; j < i; j++) {
			const struct yt_node *o = n->kids[2 * j];

			if (o->kind == YT_SCALAR && !strcmp(o->str, k->str)) {
				return fail(w, k,
					    "duplicate key (first at %" PRIu32 ":%" PRIu32 ")",
					    o->line, o->col);
			}
		}
		d = find_key(table, k->str);
		if (!d) {
			return fail_unknown_key(w, table, k->str, k->line, k->col);
		}
		rc = apply_value(w, d, base, n->kids[2 * i + 1]);
		if (rc) {
			return rc;
		}
		pop(w, old);
	}
	return 0;
}

void *sk_item(const struct scenario *sc, const struct sk_desc *d, unsigned i)
{
	return (char *)sc + d->list->items_off + (size_t)i * d->list->stride;
}

unsigned sk_count(const struct scenario *sc, const struct sk_desc *d)
{
	unsigned n;

	memcpy(&n, (const char *)sc + d->list->count_off, sizeof(n));
	return n;
}

static void set_count(struct scenario *sc, const struct sk_desc *d, unsigned n)
{
	memcpy((char *)sc + d->list->count_off, &n, sizeof(n));
}

/* A list replaces the old one: items start from the item defaults. */
static int apply_list(struct walk *w, const struct sk_desc *d, const struct yt_node *n)
{
	const struct sk_list *l = d->list;
	size_t cnt = 0;

	if (!yt_is_null(n)) {
		if (n->kind != YT_SEQ) {
			return fail(w, n, "must be a list, not %s", yt_kind_name(n));
		}
		cnt = n->n;
	}
	if (cnt > l->max) {
		return fail(w, n, "%zu %s, at most %u (%s)", cnt, l->noun, l->max, l->why_max);
	}
	if (cnt < l->min) {
		return fail(w, n, "%zu %s, at least %u needed", cnt, l->noun, l->min);
	}
	where_drop_under(w->sc, w->path);
	set_count(w->sc, d, 0);
	for (unsigned i = 0; i < cnt; i++) {
		const struct yt_node *it = n->kids[i];
		size_t old = push_index(w, i);
		int rc;

		l->init(w->sc, i);
		set_count(w->sc, d, i + 1);
		w->item = i;
		if (!yt_is_null(it) && it->kind != YT_MAP) {
			return fail(w, it, "must be a map, not %s", yt_kind_name(it));
		}
		rc = apply_map(w, d->sub, sk_item(w->sc, d, i), it);
		if (rc) {
			return rc;
		}
		if (l->done) {
			l->done(w->sc, i, it);
		}
		where_put(w, w->path, it->line, it->col);
		pop(w, old);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* custom keys */

static int apply_target(struct walk *w, const struct sk_desc *d, void *base,
			const struct yt_node *n)
{
	const char *names[16];
	unsigned nn = 0;
	char known[200];
	const struct etw_target *t;
	int rc = need_scalar(w, n, "a target name");

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
		join(known, sizeof(known), names, nn);
		return fail(w, n, "unknown target \"%s\" (known: %s)", n->str, known);
	}
	w->sc->trace.target = t;
	return 0;
}

static int apply_boot_time(struct walk *w, const struct sk_desc *d, void *base,
			   const struct yt_node *n)
{
	uint64_t v;
	int rc = get_uint(w, n, d->min, d->max, &v);

	(void)base;
	if (rc == 0) {
		w->sc->trace.boot_time = (int64_t)v;
		w->sc->boot_time_set = true;
	}
	return rc;
}

static int apply_quantum(struct walk *w, const struct sk_desc *d, void *base,
			 const struct yt_node *n)
{
	uint64_t v;
	int rc = get_duration(w, n, d->min, d->max, &v);

	(void)base;
	if (rc == 0) {
		w->sc->sched.quantum_ns = v;
		w->sc->quantum_set = true;
	}
	return rc;
}

static int apply_hold_threshold(struct walk *w, const struct sk_desc *d, void *base,
				const struct yt_node *n)
{
	uint64_t v;
	int rc = get_uint(w, n, 0, UINT32_MAX, &v);

	(void)d;
	(void)base;
	if (rc == 0 && v != 0 && v < 1000000) {
		return fail(w, n,
			    "%" PRIu64 " is out of range (0 = off, or 1000000..4294967295 cycles: "
			    "the kernel refuses 1..999999)",
			    v);
	}
	if (rc == 0) {
		w->sc->spin.hold_threshold = (uint32_t)v;
	}
	return rc;
}

/* 0 (the thread lives for the whole run), or @d's range. */
static int apply_lifetime(struct walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n)
{
	struct sched_group *g = base;
	uint64_t v;
	int rc = get_duration(w, n, 0, d->max, &v);

	if (rc == 0 && v != 0 && v < d->min) {
		char lo[32];
		char hi[32];

		scenario_format_duration(lo, sizeof(lo), d->min);
		scenario_format_duration(hi, sizeof(hi), d->max);
		return fail(w, n, "%s is out of range (0 = the whole run, or %s..%s)", n->str, lo,
			    hi);
	}
	if (rc == 0) {
		g->lifetime_ns = v;
	}
	return rc;
}

/* A list node (null = empty), else an error. */
static int need_list(struct walk *w, const struct yt_node *n, const char *what, size_t max,
		     size_t *count)
{
	*count = 0; /* written on every path */
	if (yt_is_null(n) && n->kind == YT_SCALAR) {
		*count = 0;
		return 0;
	}
	if (n->kind != YT_SEQ) {
		return fail(w, n, "must be a list of %s, not %s", what, yt_kind_name(n));
	}
	if (n->n > max) {
		return fail(w, n, "%zu %s, at most %zu", n->n, what, max);
	}
	*count = n->n;
	return 0;
}

static int apply_flags(struct walk *w, const struct sk_desc *d, void *base,
		       const struct yt_node *n)
{
	struct trace_session_cfg *s = base;
	unsigned flags = 0;
	size_t cnt;
	int rc = need_list(w, n, "flags (cswitch, compact_cswitch, spinlock)", 16, &cnt);

	(void)d;
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		unsigned k;
		size_t old = push_index(w, (unsigned)i);

		rc = get_enum(w, n->kids[i], flag_names, ARRAY_SIZE(flag_names), false, &k);
		if (rc == 0) {
			flags |= flag_bits[k];
			pop(w, old);
		}
	}
	if (rc == 0) {
		s->flags = flags;
	}
	return rc;
}

static int apply_counters(struct walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n)
{
	struct trace_session_cfg *s = base;
	struct scenario_session_x *x = &w->sc->sess_x[w->item];
	char names[SIM_MAX_PMC][TRACE_COUNTER_NAME_MAX];
	size_t cnt;
	int rc = need_list(w, n, "PMC counter names", SIM_MAX_PMC, &cnt);

	(void)d;
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		const char *name;
		size_t old = push_index(w, (unsigned)i);

		rc = get_str(w, n->kids[i], 1, TRACE_COUNTER_NAME_MAX, &name);
		for (size_t j = 0; rc == 0 && j < i; j++) {
			if (!strcmp(names[j], name)) {
				rc = fail(w, n->kids[i], "\"%s\" is listed twice", name);
			}
		}
		if (rc == 0) {
			copy_str(names[i], TRACE_COUNTER_NAME_MAX, name);
			pop(w, old);
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
static int get_hook(struct walk *w, const struct yt_node *n, uint16_t *out)
{
	uint64_t v = 0;
	int rc = need_scalar(w, n, "a hook id such as \"0x0524\"");
	bool hex;

	*out = 0; /* written on every path */
	if (rc) {
		return rc;
	}
	hex = n->str[0] == '0' && (n->str[1] == 'x' || n->str[1] == 'X');
	if ((!hex && !n->plain) || (hex && (n->len < 3 || n->len > 6)) || n->str[0] == '+' ||
	    parse_u64(n->str, &v) || v > 0xFFFF) {
		return fail(w, n, "\"%s\" is not a hook id such as \"0x0524\"", n->str);
	}
	*out = (uint16_t)v;
	return 0;
}

static int apply_events(struct walk *w, const struct sk_desc *d, void *base,
			const struct yt_node *n)
{
	struct trace_session_cfg *s = base;
	uint16_t ev[4] = {0};
	size_t cnt;
	int rc = need_list(w, n, "hook ids", 4, &cnt);

	(void)d;
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		size_t old = push_index(w, (unsigned)i);

		rc = get_hook(w, n->kids[i], &ev[i]);
		for (size_t j = 0; rc == 0 && j < i; j++) {
			if (ev[j] == ev[i]) {
				rc = fail(w, n->kids[i], "hook 0x%04x is listed twice",
					  (unsigned)ev[i]);
			}
		}
		if (rc == 0) {
			pop(w, old);
		}
	}
	if (rc == 0) {
		memcpy(s->pmc_events, ev, sizeof(ev));
		s->pmc_event_count = (unsigned)cnt;
	}
	return rc;
}

static int apply_flush_latency(struct walk *w, const struct sk_desc *d, void *base,
			       const struct yt_node *n)
{
	uint64_t v;
	int rc = get_duration(w, n, d->min, d->max, &v);

	(void)base;
	if (rc == 0) {
		w->sc->sess_x[w->item].flush_latency_ns = v;
	}
	return rc;
}

/* A KWAIT_REASON by name (case as in the enum) or number 0..63. */
static int get_wait_reason(struct walk *w, const char *key, uint32_t line, uint32_t col,
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
	if (parse_u64(key, &v) == 0 && key[0] >= '0' && key[0] <= '9') {
		if (v >= SCHED_WAIT_REASONS) {
			return fail_at(w, line, col, "wait reason %s is out of range (0..%d)", key,
				       SCHED_WAIT_REASONS - 1);
		}
		*out = (unsigned)v;
		return 0;
	}
	s = suggest(key, wait_names, SCENARIO_WAIT_NAMES);
	if (s) {
		return fail_at(w, line, col, "unknown wait reason (did you mean '%s'?)", s);
	}
	return fail_at(w, line, col,
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

static int apply_wait(struct walk *w, const struct sk_desc *d, void *base,
		      const struct yt_node *n)
{
	struct sched_group *g = base;
	uint32_t weights[SCHED_WAIT_REASONS] = {0};
	bool seen[SCHED_WAIT_REASONS] = {false};

	(void)d;
	if (!yt_is_null(n) && n->kind != YT_MAP) {
		return fail(w, n, "must be a map of wait reason: weight, not %s", yt_kind_name(n));
	}
	/* a mix replaces the whole mix: merging two distributions means nothing */
	where_drop_under(w->sc, w->path);
	for (size_t i = 0; !yt_is_null(n) && i < n->n; i++) {
		const struct yt_node *k = n->kids[2 * i];
		char rk[24];
		unsigned r;
		uint64_t v;
		size_t old;
		int rc;

		if (k->kind != YT_SCALAR || yt_is_null(k)) {
			return fail(w, k, "a key must be a wait reason, not %s", yt_kind_name(k));
		}
		old = push(w, k->str);
		rc = get_wait_reason(w, k->str, k->line, k->col, &r);
		if (rc) {
			return rc;
		}
		if (seen[r]) {
			return fail(w, k, "wait reason %u is given twice", r);
		}
		seen[r] = true;
		pop(w, old);
		reason_key(rk, sizeof(rk), r);
		old = push(w, rk);
		rc = get_uint(w, n->kids[2 * i + 1], 0, 1000000, &v);
		if (rc) {
			return rc;
		}
		weights[r] = (uint32_t)v;
		where_put(w, w->path, k->line, k->col);
		pop(w, old);
	}
	memcpy(g->wait_weights, weights, sizeof(weights));
	return 0;
}

static int set_wait_key(struct walk *w, const struct sk_desc *d, void *base, const char *key,
			uint32_t col, const struct yt_node *v)
{
	struct sched_group *g = base;
	char rk[24];
	unsigned r;
	uint64_t x;
	size_t old;
	int rc;

	(void)d;
	old = push(w, key);
	rc = get_wait_reason(w, key, 1, col, &r);
	if (rc) {
		return rc;
	}
	pop(w, old);
	reason_key(rk, sizeof(rk), r);
	push(w, rk);
	rc = get_uint(w, v, 0, 1000000, &x);
	if (rc == 0) {
		g->wait_weights[r] = (uint32_t)x;
		where_put(w, w->path, v->line, v->col);
	}
	return rc;
}

/* One affinity entry: a CPU number, or "a-b". */
static int get_cpu_range(struct walk *w, const struct yt_node *n, unsigned *lo, unsigned *hi)
{
	char buf[48];
	const char *dash;
	uint64_t a;
	uint64_t b;
	int rc = need_scalar(w, n, "a CPU number or a range \"a-b\"");

	*lo = *hi = 0; /* written on every path */
	if (rc) {
		return rc;
	}
	dash = strchr(n->str, '-');
	if (!dash) {
		if (!n->plain) {
			return fail(w, n, "must be a CPU number or a range \"a-b\", not \"%s\"",
				    n->str);
		}
		rc = get_uint(w, n, 0, SCHED_MAX_CPUS - 1, &a);
		if (rc) {
			return rc;
		}
		*lo = *hi = (unsigned)a;
		return 0;
	}
	if ((size_t)(dash - n->str) >= sizeof(buf)) {
		return fail(w, n, "\"%s\" is not a CPU range \"a-b\"", n->str);
	}
	memcpy(buf, n->str, (size_t)(dash - n->str));
	buf[dash - n->str] = '\0';
	if (parse_u64(buf, &a) || parse_u64(dash + 1, &b) || buf[0] == '+' || dash[1] == '+' ||
	    a > b) {
		return fail(w, n, "\"%s\" is not a CPU range \"a-b\" with a <= b", n->str);
	}
	if (b >= SCHED_MAX_CPUS) {
		return fail(w, n, "CPU %" PRIu64 " is out of range (0..%d)", b, SCHED_MAX_CPUS - 1);
	}
	*lo = (unsigned)a;
	*hi = (unsigned)b;
	return 0;
}

static int apply_affinity(struct walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n)
{
	struct sched_group *g = base;
	uint64_t mask[SCHED_MAX_CPUS / 64] = {0};
	size_t cnt;
	int rc = need_list(w, n, "CPUs", SCHED_MAX_CPUS, &cnt);

	(void)d;
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		unsigned lo = 0;
		unsigned hi = 0;
		size_t old = push_index(w, (unsigned)i);

		rc = get_cpu_range(w, n->kids[i], &lo, &hi);
		if (rc == 0) {
			for (unsigned c = lo; c <= hi; c++) {
				mask[c / 64] |= 1ull << (c % 64);
			}
			pop(w, old);
		}
	}
	if (rc == 0) {
		memcpy(g->affinity, mask, sizeof(mask));
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* the schema */

#define K_UINT(k, T, m, lo, hi)                                                                   \
	{                                                                                         \
		.key = (k), .kind = SK_UINT, .off = offsetof(T, m), .size = FSIZE(T, m),          \
		.min = (lo), .max = (hi)                                                          \
	}
#define K_UINT_M(k, T, m, lo, hi, mul)                                                            \
	{                                                                                         \
		.key = (k), .kind = SK_UINT, .off = offsetof(T, m), .size = FSIZE(T, m),          \
		.min = (lo), .max = (hi), .multiple = (mul)                                       \
	}
#define K_BOOL(k, T, m)                                                                           \
	{                                                                                         \
		.key = (k), .kind = SK_BOOL, .off = offsetof(T, m), .size = FSIZE(T, m)           \
	}
#define K_STR(k, T, m, lo)                                                                        \
	{                                                                                         \
		.key = (k), .kind = SK_STR, .off = offsetof(T, m), .size = FSIZE(T, m),          \
		.min = (lo)                                                                       \
	}
#define K_DUR(k, T, m, lo, hi)                                                                    \
	{                                                                                         \
		.key = (k), .kind = SK_DUR, .off = offsetof(T, m), .size = FSIZE(T, m),           \
		.min = (lo), .max = (hi)                                                          \
	}
#define K_ENUM(k, T, m, nm, num)                                                                  \
	{                                                                                         \
		.key = (k), .kind = SK_ENUM, .off = offsetof(T, m), .size = FSIZE(T, m),          \
		.names = (nm), .nnames = ARRAY_SIZE(nm), .numeric = (num)                         \
	}
#define K_CUSTOM(k, ap, pr)                                                                       \
	{                                                                                         \
		.key = (k), .kind = SK_CUSTOM, .apply = (ap), .print = (pr)                       \
	}
#define K_CUSTOM_X(k, ap, pr, ...)                                                                \
	{                                                                                         \
		.key = (k), .kind = SK_CUSTOM, .apply = (ap), .print = (pr), __VA_ARGS__          \
	}
#define K_END                                                                                     \
	{                                                                                         \
		.key = NULL                                                                       \
	}

#define SC struct scenario
#define SESS struct trace_session_cfg
#define GRP struct sched_group
#define LCK struct scenario_lock

static const struct sk_desc machine_keys[] = {
	K_UINT("cpus", SC, trace.cpus, 1, SCHED_MAX_CPUS),
	K_UINT("cpu_mhz", SC, trace.cpu_mhz, 1, 100000),
	K_UINT("perf_freq", SC, trace.perf_freq, 1, 10000000000ull),
	K_UINT("timer_resolution", SC, trace.timer_resolution, 5000, 156250),
	K_CUSTOM("target", apply_target, sk_print_target),
	K_ENUM("arch", SC, trace.arch, arch_names, false),
	K_UINT("start_time", SC, trace.start_time, 0, INT64_MAX),
	K_CUSTOM_X("boot_time", apply_boot_time, sk_print_boot_time, .min = 0, .max = INT64_MAX),
	K_CUSTOM_X("quantum", apply_quantum, sk_print_quantum, .min = 100 * NS_PER_US,
		 .max = 10 * NS_PER_S),
	K_END,
};

static const struct sk_desc spinlock_keys[] = {
	K_UINT("spin_threshold", SC, spin.spin_threshold, 1, UINT32_MAX),
	K_UINT("acquire_sample_rate", SC, spin.acquire_sample_rate, 1000, UINT32_MAX),
	K_UINT("contention_sample_rate", SC, spin.contention_sample_rate, 1, UINT32_MAX),
	K_CUSTOM_X("hold_threshold", apply_hold_threshold, sk_print_uint,
		 .off = offsetof(SC, spin.hold_threshold), .size = FSIZE(SC, spin.hold_threshold)),
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
	K_CUSTOM("counters", apply_counters, sk_print_counters),
	K_CUSTOM("events", apply_events, sk_print_events),
	K_END,
};

static const struct sk_desc session_keys[] = {
	K_STR("name", SESS, name, 1),
	K_ENUM("clock", SESS, clock, clock_names, true),
	K_CUSTOM("flags", apply_flags, sk_print_flags),
	K_BOOL("pebs", SESS, pebs),
	{.key = "pmc", .kind = SK_MAP, .sub = pmc_keys},
	K_UINT_M("buffer_size", SESS, buffer_size, 4096, 16u * 1024 * 1024, 4096),
	K_UINT("pool_buffers", SESS, pool_buffers, 0, 1u << 20),
	K_CUSTOM_X("flush_latency", apply_flush_latency, sk_print_flush_latency, .min = 0,
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
	K_CUSTOM_X("wait_reasons", apply_wait, sk_print_wait, .set_key = set_wait_key),
	K_UINT("user_wait", GRP, user_wait_pct, 0, 100),
	K_CUSTOM("affinity", apply_affinity, sk_print_affinity),
	K_CUSTOM_X("lifetime", apply_lifetime, sk_print_lifetime, .min = 10 * NS_PER_US,
		   .max = 86400 * NS_PER_S),
	K_END,
};

static const struct sk_desc lock_keys[] = {
	K_STR("name", LCK, name, 1),
	K_UINT("count", LCK, count, 1, 4096),
	K_UINT("rate", LCK, rate, 1, 1000000000),
	K_DUR("hold", LCK, hold_ns, 1, NS_PER_S),
	K_UINT("contention", LCK, contention_pct, 0, 100),
	K_END,
};

static void session_init(struct scenario *sc, unsigned i);
static void group_init(struct scenario *sc, unsigned i);
static void group_done(struct scenario *sc, unsigned i, const struct yt_node *item);
static void lock_init(struct scenario *sc, unsigned i);

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

const struct sk_desc scenario_schema[] = {
	K_UINT("seed", SC, sched.seed, 0, UINT64_MAX),
	K_DUR("duration", SC, sched.duration_ns, 1, 86400 * NS_PER_S),
	{.key = "machine", .kind = SK_MAP, .sub = machine_keys},
	{.key = "kernel", .kind = SK_MAP, .sub = kernel_keys},
	{.key = "sessions", .kind = SK_LIST, .sub = session_keys, .list = &sessions_list},
	{.key = "threads", .kind = SK_LIST, .sub = group_keys, .list = &threads_list},
	{.key = "locks", .kind = SK_LIST, .sub = lock_keys, .list = &locks_list},
	K_END,
};

/* ------------------------------------------------------------------------ */
/* defaults */

static void session_init(struct scenario *sc, unsigned i)
{
	struct trace_session_cfg *s = &sc->trace.sessions[i];

	memset(s, 0, sizeof(*s));
	memset(&sc->sess_x[i], 0, sizeof(sc->sess_x[i]));
	if (i == 0) {
		copy_str(s->name, sizeof(s->name), "NT Kernel Logger");
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

static void group_init(struct scenario *sc, unsigned i)
{
	struct sched_group *g = &sc->sched.groups[i];

	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "group%u", i);
	g->count = 1;
	g->base_priority = 8;
	g->behaviour = SCHED_CPU_BOUND;
	g->period_ns = behaviour_defaults[SCHED_CPU_BOUND].period_ns;
	g->duty_pct = 20;
	g->user_wait_pct = behaviour_defaults[SCHED_CPU_BOUND].user_wait_pct;
}

static void group_done(struct scenario *sc, unsigned i, const struct yt_node *item)
{
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

static void lock_init(struct scenario *sc, unsigned i)
{
	struct scenario_lock *l = &sc->locks[i];

	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "lock%u", i);
	l->count = 1;
	l->rate = 10000;
	l->hold_ns = 1 * NS_PER_US;
	l->contention_pct = 5;
}

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

void scenario_default(struct scenario *sc)
{
	memset(sc, 0, sizeof(*sc));
	trace_config_defaults(&sc->trace);
	sched_cfg_defaults(&sc->sched); /* fields we do not set keep the model's defaults */

	sc->trace.nsessions = 2;
	session_init(sc, 0);
	session_init(sc, 1);
	copy_str(sc->trace.sessions[1].name, sizeof(sc->trace.sessions[1].name),
		 "etwforge CSwitch");
	sc->trace.sessions[1].flags = PRODUCER_F_CSWITCH;

	sc->sched.duration_ns = 2 * NS_PER_S;
	sc->sched.seed = 1;
	sc->sched.quantum_ns = 0; /* derived: 2 ticks */
	sc->sched.ngroups = (unsigned)ARRAY_SIZE(default_groups);
	for (unsigned i = 0; i < sc->sched.ngroups; i++) {
		struct sched_group *g = &sc->sched.groups[i];

		group_init(sc, i);
		copy_str(g->name, sizeof(g->name), default_groups[i].name);
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
	sc->spin.spin_threshold = 1;
	sc->spin.acquire_sample_rate = 1000;
	sc->spin.contention_sample_rate = 1;
	sc->spin.hold_threshold = 1000000;
	sc->nlocks = 0;
	copy_str(sc->source, sizeof(sc->source), "(default)");
}

int64_t scenario_effective_boot_time(const struct scenario *sc)
{
	if (sc->boot_time_set) {
		return sc->trace.boot_time;
	}
	return sc->trace.start_time > SCENARIO_DEFAULT_UPTIME
		       ? sc->trace.start_time - SCENARIO_DEFAULT_UPTIME
		       : 0;
}

uint64_t scenario_effective_quantum(const struct scenario *sc)
{
	/* two clock ticks: timer_resolution is in 100 ns units */
	return sc->quantum_set ? sc->sched.quantum_ns
			       : 2ull * sc->trace.timer_resolution * 100u;
}

/* ------------------------------------------------------------------------ */
/* loading */

static int load_text(struct scenario *sc, const char *name, const char *text, size_t len,
		     char *err, size_t errlen)
{
	struct walk w = {.sc = sc, .file = name, .src = SCENARIO_SRC_FILE, .err = err,
			 .errlen = errlen};
	struct yt_doc doc;
	int rc;

	copy_str(sc->source, sizeof(sc->source), name);
	rc = yt_parse(&doc, name, text, len, 1, err, errlen);
	if (rc) {
		return rc;
	}
	if (doc.root) {
		rc = apply_map(&w, scenario_schema, sc, doc.root);
	}
	yt_doc_free(&doc);
	return rc;
}

int scenario_load_string(struct scenario *sc, const char *name, const char *text, char *err,
			 size_t errlen)
{
	return load_text(sc, name, text, strlen(text), err, errlen);
}

int scenario_load_file(struct scenario *sc, const char *path, char *err, size_t errlen)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;
	size_t cap = 0;
	int rc;

	if (!f) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -EIO;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			char *nb;

			if (cap >= SCENARIO_MAX_FILE) {
				snprintf(err, errlen, "%s: larger than %u MiB: not a scenario",
					 path, SCENARIO_MAX_FILE >> 20);
				free(buf);
				if (!in) {
					fclose(f);
				}
				return -EFBIG;
			}
			cap = cap ? 2 * cap : 8192;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
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
		snprintf(err, errlen, "%s: cannot read: %s", in ? "<stdin>" : path, strerror(errno));
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
	rc = load_text(sc, in ? "<stdin>" : path, buf, len, err, errlen);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* --set key.path=value */

#define SET_MAX_DEPTH 8

static const char *kind_noun(const struct sk_desc *d)
{
	switch (d->kind) {
	case SK_UINT:
		return "an integer";
	case SK_BOOL:
		return "a bool";
	case SK_STR:
		return "a string";
	case SK_DUR:
		return "a duration";
	case SK_ENUM:
		return "a name";
	default:
		return "a value";
	}
}

static int set_walk(struct walk *w, char comps[][SCENARIO_PATH_MAX], const uint32_t *cols,
		    unsigned nc, const struct yt_node *v)
{
	const struct sk_desc *table = scenario_schema;
	void *base = w->sc;

	for (unsigned i = 0; i < nc; i++) {
		const struct sk_desc *d = find_key(table, comps[i]);

		push(w, comps[i]);
		if (!d) {
			return fail_unknown_key(w, table, comps[i], 1, cols[i]);
		}
		if (i == nc - 1) {
			return apply_value(w, d, base, v);
		}
		if (d->kind == SK_MAP) {
			table = d->sub;
			continue;
		}
		if (d->kind == SK_LIST) {
			unsigned cnt = sk_count(w->sc, d);
			uint64_t idx;
			int rc;

			i++;
			push(w, comps[i]);
			if (parse_u64(comps[i], &idx) || comps[i][0] < '0' || comps[i][0] > '9') {
				return fail_at(w, 1, cols[i],
					       "expected an item index (%s has %u item%s)",
					       d->key, cnt, cnt == 1 ? "" : "s");
			}
			if (idx >= cnt) {
				return fail_at(w, 1, cols[i],
					       "no item %" PRIu64 ": %s has %u item%s (give the "
					       "whole list to add items)",
					       idx, d->key, cnt, cnt == 1 ? "" : "s");
			}
			w->item = (unsigned)idx;
			base = sk_item(w->sc, d, (unsigned)idx);
			table = d->sub;
			if (i == nc - 1) {
				rc = apply_map(w, table, base, v);
				if (rc == 0) {
					where_put(w, w->path, v->line, v->col);
				}
				return rc;
			}
			continue;
		}
		if (d->set_key && i + 2 == nc) {
			return d->set_key(w, d, base, comps[i + 1], cols[i + 1], v);
		}
		push(w, comps[i + 1]);
		if (d->kind == SK_CUSTOM) {
			return fail_at(w, 1, cols[i + 1],
				       "no such key: %s is set as a whole (e.g. %s=[...])", d->key,
				       d->key);
		}
		return fail_at(w, 1, cols[i + 1], "no such key: %s is %s, not a map", d->key,
			       kind_noun(d));
	}
	return 0;
}

int scenario_set(struct scenario *sc, const char *assignment, char *err, size_t errlen)
{
	struct walk w = {.sc = sc, .file = "--set", .src = SCENARIO_SRC_SET, .err = err,
			 .errlen = errlen};
	char comps[SET_MAX_DEPTH][SCENARIO_PATH_MAX];
	uint32_t cols[SET_MAX_DEPTH];
	struct yt_node null_node = {.kind = YT_SCALAR, .plain = true, .line = 1, .str = ""};
	const char *eq = strchr(assignment, '=');
	const char *p = assignment;
	struct yt_doc doc;
	unsigned nc = 0;
	int rc;

	if (!eq) {
		snprintf(w.path, sizeof(w.path), "%s", assignment);
		return fail_at(&w, 1, 1, "expected key.path=value");
	}
	while (p <= eq) {
		const char *end = p;

		while (end < eq && *end != '.') {
			end++;
		}
		if (end == p || (size_t)(end - p) >= SCENARIO_PATH_MAX || nc == SET_MAX_DEPTH) {
			snprintf(w.path, sizeof(w.path), "%.*s", (int)(eq - assignment),
				 assignment);
			return fail_at(&w, 1, (uint32_t)(p - assignment) + 1,
				       end == p ? "empty key in the path" : "key path too long");
		}
		memcpy(comps[nc], p, (size_t)(end - p));
		comps[nc][end - p] = '\0';
		cols[nc++] = (uint32_t)(p - assignment) + 1;
		p = end + 1;
	}
	null_node.col = (uint32_t)(eq - assignment) + 2;
	rc = yt_parse(&doc, "--set", eq + 1, strlen(eq + 1), null_node.col, err, errlen);
	if (rc) {
		return rc;
	}
	rc = set_walk(&w, comps, cols, nc, doc.root ? doc.root : &null_node);
	yt_doc_free(&doc);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* scenario_finish */

/* @ns in clock @c's units (exact integer arithmetic, rounded down). */
static uint64_t ns_to_clock(const struct trace_config *t, enum sim_clock c, uint64_t ns)
{
	switch (c) {
	case SIM_CLOCK_QPC:
		return ns / NS_PER_S * t->perf_freq + ns % NS_PER_S * t->perf_freq / NS_PER_S;
	case SIM_CLOCK_CYCLES:
		return ns / NS_PER_S * t->cpu_mhz * 1000000u +
		       ns % NS_PER_S * t->cpu_mhz / 1000u;
	default:
		return ns / 100u;
	}
}

static int finish_sessions(struct scenario *sc, char *err, size_t errlen)
{
	struct trace_config *t = &sc->trace;
	char path[SCENARIO_PATH_MAX];

	t->ncounters = 0;
	memset(t->counters, 0, sizeof(t->counters));
	for (unsigned i = 0; i < t->nsessions; i++) {
		struct trace_session_cfg *s = &t->sessions[i];
		const struct scenario_session_x *x = &sc->sess_x[i];

		if ((s->flags & PRODUCER_F_COMPACT) && !(s->flags & PRODUCER_F_CSWITCH)) {
			snprintf(path, sizeof(path), "sessions.%u.flags", i);
			return fail_key(sc, err, errlen, path,
					"compact_cswitch needs cswitch too (the kernel logs "
					"compact batches only with both group masks)");
		}
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(s->name, t->sessions[j].name)) {
				snprintf(path, sizeof(path), "sessions.%u.name", i);
				return fail_key(sc, err, errlen, path,
						"\"%s\" is also the name of sessions.%u", s->name,
						j);
			}
			/* a device such as /dev/null may take several sessions */
			if (s->file[0] && !strcmp(s->file, t->sessions[j].file) &&
			    out_is_regular_target(s->file)) {
				snprintf(path, sizeof(path), "sessions.%u.file", i);
				return fail_key(sc, err, errlen, path,
						"\"%s\" is also the file of sessions.%u", s->file,
						j);
			}
		}
		for (unsigned j = 0; j < s->pmc_count; j++) {
			int id = trace_config_counter_id(t, x->counters[j]);

			if (id < 0) {
				snprintf(path, sizeof(path), "sessions.%u.pmc.counters", i);
				return fail_key(sc, err, errlen, path,
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

static int finish_groups(struct scenario *sc, char *err, size_t errlen)
{
	const struct sched_cfg *s = &sc->sched;
	const struct trace_config *t = &sc->trace;
	char path[SCENARIO_PATH_MAX];
	uint64_t threads = 0;

	for (unsigned g = 0; g < s->ngroups; g++) {
		threads += s->groups[g].count;
	}
	if (threads == 0) {
		return fail_key(sc, err, errlen, "threads",
				"every group has count 0: the machine needs a thread");
	}

	for (unsigned g = 0; g < s->ngroups; g++) {
		const struct sched_group *gr = &s->groups[g];

		for (unsigned c = t->cpus; c < SCHED_MAX_CPUS; c++) {
			if (gr->affinity[c / 64] >> (c % 64) & 1) {
				snprintf(path, sizeof(path), "threads.%u.affinity", g);
				return fail_key(sc, err, errlen, path,
						"CPU %u is not below machine.cpus (%u)", c,
						t->cpus);
			}
		}
		for (unsigned r = t->max_wait_reason; r < SCHED_WAIT_REASONS; r++) {
			if (gr->wait_weights[r]) {
				char rk[24];

				reason_key(rk, sizeof(rk), r);
				snprintf(path, sizeof(path), "threads.%u.wait_reasons.%s", g, rk);
				return fail_key(sc, err, errlen, path,
						"wait reason %u is not below %s's "
						"MaximumWaitReason (%u)",
						r, t->target->name, (unsigned)t->max_wait_reason);
			}
		}
	}
	return 0;
}

int scenario_finish(struct scenario *sc, char *err, size_t errlen)
{
	struct trace_config *t = &sc->trace;
	struct sched_cfg *s = &sc->sched;
	const char *why = NULL;
	int rc;

	t->max_wait_reason = t->target->max_wait_reason;
	t->boot_time = scenario_effective_boot_time(sc);
	if (t->boot_time > t->start_time) {
		return fail_key(sc, err, errlen, "machine.boot_time",
				"%" PRId64 " is after machine.start_time (%" PRId64 ")",
				t->boot_time, t->start_time);
	}
	s->quantum_ns = scenario_effective_quantum(sc);
	rc = finish_sessions(sc, err, errlen);
	if (rc == 0) {
		rc = finish_groups(sc, err, errlen);
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
	s->pebs = false;
	for (unsigned c = 0; c < SIM_CLOCK_SLOTS; c++) {
		s->clocks[c] = c != 0 && trace_config_clock_used(t, (enum sim_clock)c);
	}
	for (unsigned i = 0; i < t->nsessions; i++) {
		s->pebs = s->pebs || t->sessions[i].pebs;
	}
	s->ncounters = t->ncounters;
	if (trace_config_check(t, &why)) {
		return fail_key(sc, err, errlen, "sessions", "%s", why);
	}
	if (sched_cfg_check(s, &why)) {
		/* the model names group fields "groups[]...", the rest are machine's */
		return fail_key(sc, err, errlen, strncmp(why, "groups", 6) ? "machine" : "threads",
				"%s", why);
	}
	return 0;
}
