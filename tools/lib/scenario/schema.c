// SPDX-License-Identifier: MIT
/*
 * tools/lib/scenario/schema.c - the generic binder of tools/lib/schema.h: a YAML tree
 * walked against tables of key descriptors, values checked at their node
 * and stored at their offset, errors as one line with the key path and a
 * "did you mean", --set paths, and the log of where each key got its value.
 *
 *   sk_load()       yt_parse() -> tree -> apply_map(schema keys, root)
 *        |          each key: find its sk_desc (or "did you mean"), check
 *        |          type and range at the node, store, and remember where it
 *        |          came from (the sk_where_log)
 *   sk_set() ...    the path picks the sk_desc (list items by index), the
 *        |          value is parsed as YAML and applied the same way
 *   sk_fail_key()   a later check across keys, reported at the position
 *                   remembered for the key that set the value last
 *
 * Values go straight into the root struct, layer after layer, so no tree
 * outlives its call. The document type (its tables, defaults, custom keys
 * and rules) is the caller's: tools/lib/scenario.c.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/scenario/schema.h"
#include "tools/lib/scenario/yaml_tree.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* the walk: position, key path, errors */

size_t sk_push(struct sk_walk *w, const char *key)
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

size_t sk_push_index(struct sk_walk *w, unsigned i)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", i);
	return sk_push(w, num);
}

void sk_pop(struct sk_walk *w, size_t old)
{
	w->plen = old;
	w->path[old] = '\0';
}

/* @what: the key path, or the document's name for an error at the top */
static int vfail(struct etwforge_error *err, const char *file, uint32_t line, uint32_t col,
		 const char *what, const char *fmt, va_list ap)
{
	char msg[sizeof(err->msg)];
	int k;

	if (!err) {
		return -EINVAL;
	}
	k = snprintf(msg, sizeof(msg), "%s:%" PRIu32 ":%" PRIu32 ": %s: ", file, line, col, what);
	if (k >= 0 && (size_t)k < sizeof(msg)) {
		vsnprintf(msg + k, sizeof(msg) - (size_t)k, fmt, ap);
	}
	return error_fail_at(err, -EINVAL, ERR_INPUT, "%s", msg);
}

static const char *path_or_name(const struct sk_walk *w)
{
	return w->path[0] ? w->path : w->schema->name;
}

int sk_fail_at(struct sk_walk *w, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(w->err, w->file, line, col, path_or_name(w), fmt, ap);
	va_end(ap);
	return rc;
}

int sk_fail(struct sk_walk *w, const struct yt_node *n, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(w->err, w->file, n->line, n->col, path_or_name(w), fmt, ap);
	va_end(ap);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* where each key got its value: the position later checks report */

/* The entry of @path in @log, -1 if none. */
static int where_index(const struct sk_where_log *log, const char *path)
{
	for (unsigned i = 0; i < log->n; i++) {
		if (!strcmp(log->at[i].path, path)) {
			return (int)i;
		}
	}
	return -1;
}

void sk_where_put(struct sk_walk *w, const char *path, uint32_t line, uint32_t col)
{
	struct sk_where_log *log = w->log;
	struct sk_where *e;
	int i;

	if (strlen(path) >= SK_PATH_MAX) {
		return; /* a parent's position will do */
	}
	i = where_index(log, path);
	if (i >= 0) {
		e = &log->at[i];
	} else {
		if (log->n >= SK_WHERE_MAX) {
			return;
		}
		e = &log->at[log->n++];
		strcpy(e->path, path);
	}
	e->src = w->src;
	e->line = line;
	e->col = col;
}

const char *sk_note_current(const struct sk_where_log *log, unsigned i)
{
	const struct sk_note *nt;
	int k;

	if (i >= log->nnotes || i >= SK_NOTES_MAX) {
		return NULL;
	}
	nt = &log->notes[i];
	k = where_index(log, nt->path);
	if (k < 0 || log->at[k].src != SK_SRC_FILE || log->at[k].line != nt->line ||
	    log->at[k].col != nt->col) {
		return NULL;
	}
	return nt->msg;
}

/* Note that @n (at @w->path) is read as written, but may not be what was meant. */
SK_PRINTF_LIKE(3, 4)
static void sk_note(struct sk_walk *w, const struct yt_node *n, const char *fmt, ...)
{
	struct sk_note *nt;
	va_list ap;
	int k;

	if (!w->log || w->log->nnotes >= SK_NOTES_MAX || strlen(w->path) >= SK_PATH_MAX) {
		return;
	}
	nt = &w->log->notes[w->log->nnotes++];
	strcpy(nt->path, w->path);
	nt->line = n->line;
	nt->col = n->col;
	k = snprintf(nt->msg, sizeof(nt->msg), "%s:%" PRIu32 ":%" PRIu32 ": %s: ", w->file, n->line,
		     n->col, path_or_name(w));
	if (k >= 0 && (size_t)k < sizeof(nt->msg)) {
		va_start(ap, fmt);
		vsnprintf(nt->msg + k, sizeof(nt->msg) - (size_t)k, fmt, ap);
		va_end(ap);
	}
}

bool sk_where_has(const struct sk_where_log *log, const char *path)
{
	return where_index(log, path) >= 0;
}

void sk_where_drop_under(struct sk_where_log *log, const char *path)
{
	size_t len = strlen(path);
	unsigned j = 0;

	for (unsigned i = 0; i < log->n; i++) {
		const char *p = log->at[i].path;

		if (!strncmp(p, path, len) && p[len] == '.') {
			continue;
		}
		log->at[j++] = log->at[i];
	}
	log->n = j;
}

int sk_fail_key(const struct sk_where_log *log, const char *source, struct etwforge_error *err,
		const char *path, const char *fmt, ...)
{
	char p[SK_PATH_MAX + 8];
	const char *file = "(default)";
	uint32_t line = 0;
	uint32_t col = 0;
	va_list ap;
	int rc;

	snprintf(p, sizeof(p), "%s", path);
	for (;;) {
		int i = where_index(log, p);
		char *dot;

		if (i >= 0) {
			file = log->at[i].src == SK_SRC_SET ? "--set" : source;
			line = log->at[i].line;
			col = log->at[i].col;
			break;
		}
		dot = strrchr(p, '.');
		if (!dot) {
			break;
		}
		*dot = '\0';
	}
	va_start(ap, fmt);
	rc = vfail(err, file, line, col, path, fmt, ap);
	va_end(ap);
	return rc;
}

/* ------------------------------------------------------------------------ */
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
static int fail_unknown_key(struct sk_walk *w, const struct sk_desc *table, const char *key,
			    uint32_t line, uint32_t col)
{
	const char *keys[32];
	unsigned n = table_keys(table, keys, 32);
	const char *s = suggest_name(key, keys, n);
	char known[400];

	if (s) {
		return sk_fail_at(w, line, col, "unknown key (did you mean '%s'?)", s);
	}
	join_names(known, sizeof(known), keys, n);
	return sk_fail_at(w, line, col, "unknown key (known: %s)", known);
}

/* ------------------------------------------------------------------------ */
/* values */

/* Decimal or 0x hex, optional '+'. Return: 0, -EINVAL (not a number), -ERANGE. */
/* ASCII lower case (no locale: scenario names are ASCII). */
static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int sk_parse_u64(const char *s, uint64_t *out)
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

	return s[0] == '-' && s[1] != '+' && sk_parse_u64(s + 1, &v) != -EINVAL;
}

int sk_parse_duration(const char *s, uint64_t *out)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{"ns", 1},
		{"us", SK_NS_PER_US},
		{"\xc2\xb5s", SK_NS_PER_US},
		{"ms", SK_NS_PER_MS},
		{"s", SK_NS_PER_S},
		{"min", 60 * SK_NS_PER_S},
		{"h", 3600 * SK_NS_PER_S},
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

void sk_format_duration(char *buf, size_t len, uint64_t ns)
{
	if (ns == 0) {
		snprintf(buf, len, "0");
	} else if (ns % SK_NS_PER_S == 0) {
		snprintf(buf, len, "%" PRIu64 "s", ns / SK_NS_PER_S);
	} else if (ns % SK_NS_PER_MS == 0) {
		snprintf(buf, len, "%" PRIu64 "ms", ns / SK_NS_PER_MS);
	} else if (ns % SK_NS_PER_US == 0) {
		snprintf(buf, len, "%" PRIu64 "us", ns / SK_NS_PER_US);
	} else {
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	}
}

/* A scalar with a value (any quoting), else an error saying what it is. */
int sk_need_scalar(struct sk_walk *w, const struct yt_node *n, const char *what)
{
	if (yt_is_null(n)) {
		return sk_fail(w, n, "no value (expected %s)", what);
	}
	if (n->kind != YT_SCALAR) {
		return sk_fail(w, n, "must be %s, not %s", what, yt_kind_name(n));
	}
	if (strlen(n->str) != n->len) {
		return sk_fail(w, n, "contains a NUL character");
	}
	return 0;
}

/* A number or bool: like need_scalar, and written without quotes. */
static int need_plain(struct sk_walk *w, const struct yt_node *n, const char *what)
{
	int rc = sk_need_scalar(w, n, what);

	if (rc == 0 && !n->plain) {
		return sk_fail(w, n, "must be %s, not the string \"%s\"", what, n->str);
	}
	return rc;
}

/* A list node (null = empty), else an error. */
int sk_need_list(struct sk_walk *w, const struct yt_node *n, const char *what, size_t max,
		 size_t *count)
{
	*count = 0; /* written on every path */
	if (yt_is_null(n) && n->kind == YT_SCALAR) {
		*count = 0;
		return 0;
	}
	if (n->kind != YT_SEQ) {
		return sk_fail(w, n, "must be a list of %s, not %s", what, yt_kind_name(n));
	}
	if (n->n > max) {
		return sk_fail(w, n, "%zu %s, at most %zu", n->n, what, max);
	}
	*count = n->n;
	return 0;
}

int sk_get_uint(struct sk_walk *w, const struct yt_node *n, uint64_t min, uint64_t max,
		uint64_t *out)
{
	uint64_t v = 0;
	int rc = need_plain(w, n, "an integer");

	*out = 0; /* written on every path: callers read it only on success */
	if (rc) {
		return rc;
	}
	rc = sk_parse_u64(n->str, &v);
	if (rc == -EINVAL && !is_negative_number(n->str)) {
		return sk_fail(w, n, "\"%s\" is not an integer", n->str);
	}
	if (rc || v < min || v > max) {
		return sk_fail(w, n, "%s is out of range (%" PRIu64 "..%" PRIu64 ")", n->str, min,
			       max);
	}
	*out = v;
	return 0;
}

/* Digits with at most one '.' among them: a number without a unit. */
static bool bare_number(const char *s)
{
	size_t digits = strspn(s, "0123456789");

	if (s[digits] == '.') {
		size_t frac = strspn(s + digits + 1, "0123456789");

		return (digits || frac) && s[digits + 1 + frac] == '\0';
	}
	return digits && s[digits] == '\0';
}

int sk_get_duration(struct sk_walk *w, const struct yt_node *n, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	char lo[32];
	char hi[32];
	uint64_t v = 0;
	int rc = sk_need_scalar(w, n, "a duration");

	*out = 0; /* written on every path */
	if (rc) {
		return rc;
	}
	rc = sk_parse_duration(n->str, &v);
	if ((rc == 0 || rc == -EDOM) && w->src == SK_SRC_SET && bare_number(n->str) &&
	    strspn(n->str, "0.") != strlen(n->str)) {
		/* typed in a --set, "5" is seconds or ms without its unit more often than
		 * 5 ns: a file keeps integers as ns, an assignment wants the unit */
		return sk_fail(w, n,
			       "%s needs a unit (%ss, %sms, %sus or %sns): only a scenario file "
			       "reads a bare number as nanoseconds",
			       n->str, n->str, n->str, n->str, n->str);
	}
	if (rc == -EDOM) {
		return sk_fail(w, n,
			       "\"%s\" is not a whole number of nanoseconds (a bare number is "
			       "nanoseconds: give a unit, %ss or %sms)",
			       n->str, n->str, n->str);
	}
	if (rc == -EINVAL && !(n->str[0] == '-' && sk_parse_duration(n->str + 1, &v) != -EINVAL)) {
		return sk_fail(w, n,
			       "\"%s\" is not a duration (integer nanoseconds, or a number and "
			       "ns, us, ms, s, min or h, e.g. \"1.5s\")",
			       n->str);
	}
	if (rc || v < min || v > max) {
		sk_format_duration(lo, sizeof(lo), min);
		sk_format_duration(hi, sizeof(hi), max);
		return sk_fail(w, n, "%s is out of range (%s..%s)", n->str, lo, hi);
	}
	if (w->src == SK_SRC_FILE && n->plain && v > 0 && v < 1000 &&
	    strspn(n->str, "0123456789") == strlen(n->str)) {
		sk_note(w, n,
			"%s is read as %" PRIu64 "ns, less than a microsecond (a bare number is "
			"nanoseconds): if %sus or %sms was meant, write the unit",
			n->str, v, n->str, n->str);
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

void sk_copy_str(char *dst, size_t size, const char *src)
{
	memset(dst, 0, size); /* whole array: structs compare equal with memcmp */
	memcpy(dst, src, strlen(src) < size ? strlen(src) : size - 1);
}

int sk_get_str(struct sk_walk *w, const struct yt_node *n, size_t min, size_t size,
	       const char **out)
{
	int rc;

	if (yt_is_null(n) && n->kind == YT_SCALAR) {
		*out = "";
	} else if ((rc = sk_need_scalar(w, n, "a string")) != 0) {
		return rc;
	} else {
		*out = n->str;
	}
	if (strlen(*out) >= size) {
		return sk_fail(w, n, "is too long (%zu bytes, at most %zu)", strlen(*out),
			       size - 1);
	}
	if (strlen(*out) < min) {
		return sk_fail(w, n, "must not be empty");
	}
	return 0;
}

/* An enum value by name, or (if @numeric) by number. */
int sk_get_enum(struct sk_walk *w, const struct yt_node *n, const char *const *names,
		unsigned nnames, bool numeric, unsigned *out)
{
	char list[200];
	uint64_t v;
	int rc = sk_need_scalar(w, n, "a name");

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
	join_names(list, sizeof(list), names, nnames);
	if (numeric && n->plain &&
	    (sk_parse_u64(n->str, &v) != -EINVAL || is_negative_number(n->str))) {
		unsigned lo = 0;
		unsigned hi = nnames - 1;

		while (!names[lo]) {
			lo++;
		}
		if (sk_parse_u64(n->str, &v) == 0 && v < nnames && names[v]) {
			*out = (unsigned)v;
			return 0;
		}
		return sk_fail(w, n, "%s is out of range (%u..%u: %s)", n->str, lo, hi, list);
	}
	{
		const char *s = suggest_name(n->str, names, nnames);

		if (s) {
			return sk_fail(w, n, "\"%s\" is not one of %s (did you mean '%s'?)", n->str,
				       list, s);
		}
	}
	return sk_fail(w, n, "\"%s\" is not one of %s", n->str, list);
}

/* ------------------------------------------------------------------------ */
/* the walk */

static int apply_map(struct sk_walk *w, const struct sk_desc *table, void *base,
		     const struct yt_node *n);
static int apply_list(struct sk_walk *w, const struct sk_desc *d, const struct yt_node *n);

static int apply_value(struct sk_walk *w, const struct sk_desc *d, void *base,
		       const struct yt_node *n)
{
	void *p = (char *)base + d->off;
	uint64_t v = 0;
	unsigned e = 0;
	const char *s;
	int rc;

	switch (d->kind) {
	case SK_UINT:
		rc = sk_get_uint(w, n, d->min, d->max, &v);
		if (rc == 0 && d->multiple && v % d->multiple) {
			rc = sk_fail(w, n, "%" PRIu64 " is not a multiple of %" PRIu64 "%s", v,
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
				return sk_fail(w, n, "\"%s\" is neither true nor false", n->str);
			}
			memcpy(p, &b, sizeof(b));
		}
		break;
	case SK_STR:
		rc = sk_get_str(w, n, (size_t)d->min, d->size, &s);
		if (rc == 0) {
			sk_copy_str(p, d->size, s);
		}
		break;
	case SK_DUR:
		rc = sk_get_duration(w, n, d->min, d->max, &v);
		if (rc == 0) {
			memcpy(p, &v, sizeof(v));
		}
		break;
	case SK_ENUM:
		rc = sk_get_enum(w, n, d->names, d->nnames, d->numeric, &e);
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
		sk_where_put(w, w->path, n->line, n->col);
	}
	return rc;
}

static int apply_map(struct sk_walk *w, const struct sk_desc *table, void *base,
		     const struct yt_node *n)
{
	if (yt_is_null(n)) {
		return 0;
	}
	if (n->kind != YT_MAP) {
		return sk_fail(w, n, "must be a map, not %s", yt_kind_name(n));
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct yt_node *k = n->kids[2 * i];
		const struct sk_desc *d;
		size_t old;
		int rc;

		if (k->kind != YT_SCALAR || yt_is_null(k)) {
			return sk_fail(w, k, "a key must be a name, not %s", yt_kind_name(k));
		}
		old = sk_push(w, k->str);
		for (size_t j = 0; j < i; j++) {
			const struct yt_node *o = n->kids[2 * j];

			if (o->kind == YT_SCALAR && !strcmp(o->str, k->str)) {
				return sk_fail(w, k,
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
		sk_pop(w, old);
	}
	return 0;
}

void *sk_item(const void *root, const struct sk_desc *d, unsigned i)
{
	return (char *)root + d->list->items_off + (size_t)i * d->list->stride;
}

unsigned sk_count(const void *root, const struct sk_desc *d)
{
	unsigned n;

	memcpy(&n, (const char *)root + d->list->count_off, sizeof(n));
	return n;
}

static void set_count(void *root, const struct sk_desc *d, unsigned n)
{
	memcpy((char *)root + d->list->count_off, &n, sizeof(n));
}

/* A list replaces the old one: items start from the item defaults. */
static int apply_list(struct sk_walk *w, const struct sk_desc *d, const struct yt_node *n)
{
	const struct sk_list *l = d->list;
	size_t cnt = 0;

	if (!yt_is_null(n)) {
		if (n->kind != YT_SEQ) {
			return sk_fail(w, n, "must be a list, not %s", yt_kind_name(n));
		}
		cnt = n->n;
	}
	if (cnt > l->max) {
		return sk_fail(w, n, "%zu %s, at most %u (%s)", cnt, l->noun, l->max, l->why_max);
	}
	if (cnt < l->min) {
		return sk_fail(w, n, "%zu %s, at least %u needed", cnt, l->noun, l->min);
	}
	sk_where_drop_under(w->log, w->path);
	set_count(w->root, d, 0);
	for (unsigned i = 0; i < cnt; i++) {
		const struct yt_node *it = n->kids[i];
		size_t old = sk_push_index(w, i);
		int rc;

		l->init(w->root, i);
		set_count(w->root, d, i + 1);
		w->item = i;
		if (!yt_is_null(it) && it->kind != YT_MAP) {
			return sk_fail(w, it, "must be a map, not %s", yt_kind_name(it));
		}
		rc = apply_map(w, d->sub, sk_item(w->root, d, i), it);
		if (rc) {
			return rc;
		}
		if (l->done) {
			l->done(w->root, i, it);
		}
		sk_where_put(w, w->path, it->line, it->col);
		sk_pop(w, old);
	}
	return 0;
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

static int set_walk(struct sk_walk *w, char comps[][SK_PATH_MAX], const uint32_t *cols, unsigned nc,
		    const struct yt_node *v)
{
	const struct sk_desc *table = w->schema->keys;
	void *base = w->root;

	for (unsigned i = 0; i < nc; i++) {
		const struct sk_desc *d = find_key(table, comps[i]);

		sk_push(w, comps[i]);
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
			unsigned cnt = sk_count(w->root, d);
			uint64_t idx;
			int rc;

			i++;
			sk_push(w, comps[i]);
			if (sk_parse_u64(comps[i], &idx) || comps[i][0] < '0' ||
			    comps[i][0] > '9') {
				return sk_fail_at(w, 1, cols[i],
						  "expected an item index (%s has %u item%s)",
						  d->key, cnt, cnt == 1 ? "" : "s");
			}
			if (idx >= cnt) {
				return sk_fail_at(w, 1, cols[i],
						  "no item %" PRIu64 ": %s has %u item%s (give the "
						  "whole list to add items)",
						  idx, d->key, cnt, cnt == 1 ? "" : "s");
			}
			w->item = (unsigned)idx;
			base = sk_item(w->root, d, (unsigned)idx);
			table = d->sub;
			if (i == nc - 1) {
				rc = apply_map(w, table, base, v);
				if (rc == 0) {
					sk_where_put(w, w->path, v->line, v->col);
				}
				return rc;
			}
			continue;
		}
		if (d->set_key && i + 2 == nc) {
			return d->set_key(w, d, base, comps[i + 1], cols[i + 1], v);
		}
		sk_push(w, comps[i + 1]);
		if (d->kind == SK_CUSTOM) {
			return sk_fail_at(w, 1, cols[i + 1],
					  "no such key: %s is set as a whole (e.g. %s=[...])",
					  d->key, d->key);
		}
		return sk_fail_at(w, 1, cols[i + 1], "no such key: %s is %s, not a map", d->key,
				  kind_noun(d));
	}
	return 0;
}

int sk_set(const struct sk_schema *schema, void *root, struct sk_where_log *log,
	   const char *assignment, struct etwforge_error *err)
{
	struct sk_walk w = {.schema = schema,
			    .root = root,
			    .log = log,
			    .file = "--set",
			    .src = SK_SRC_SET,
			    .err = err};
	char comps[SET_MAX_DEPTH][SK_PATH_MAX];
	uint32_t cols[SET_MAX_DEPTH];
	struct yt_node null_node = {.kind = YT_SCALAR, .plain = true, .line = 1, .str = ""};
	const char *eq = strchr(assignment, '=');
	const char *p = assignment;
	struct yt_doc doc;
	unsigned nc = 0;
	int rc;

	if (!eq) {
		snprintf(w.path, sizeof(w.path), "%s", assignment);
		return sk_fail_at(&w, 1, 1, "expected key.path=value");
	}
	while (p <= eq) {
		const char *end = p;

		while (end < eq && *end != '.') {
			end++;
		}
		if (end == p || (size_t)(end - p) >= SK_PATH_MAX || nc == SET_MAX_DEPTH) {
			snprintf(w.path, sizeof(w.path), "%.*s", (int)(eq - assignment),
				 assignment);
			return sk_fail_at(&w, 1, (uint32_t)(p - assignment) + 1,
					  end == p ? "empty key in the path" : "key path too long");
		}
		memcpy(comps[nc], p, (size_t)(end - p));
		comps[nc][end - p] = '\0';
		cols[nc++] = (uint32_t)(p - assignment) + 1;
		p = end + 1;
	}
	null_node.col = (uint32_t)(eq - assignment) + 2;
	rc = yt_parse(&doc, "--set", eq + 1, strlen(eq + 1), null_node.col, err);
	if (rc) {
		return rc;
	}
	rc = set_walk(&w, comps, cols, nc, doc.root ? doc.root : &null_node);
	yt_doc_free(&doc);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* a document */

int sk_load(const struct sk_schema *schema, void *root, struct sk_where_log *log, const char *name,
	    const char *text, size_t len, struct etwforge_error *err)
{
	struct sk_walk w = {.schema = schema,
			    .root = root,
			    .log = log,
			    .file = name,
			    .src = SK_SRC_FILE,
			    .err = err};
	struct yt_doc doc;
	int rc;

	rc = yt_parse(&doc, name, text, len, 1, err);
	if (rc) {
		return rc;
	}
	if (doc.root) {
		rc = apply_map(&w, schema->keys, root, doc.root);
	}
	yt_doc_free(&doc);
	return rc;
}
