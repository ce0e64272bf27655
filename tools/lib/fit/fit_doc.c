// SPDX-License-Identifier: MIT
/*
 * tools/lib/fit/fit_doc.c - the fitted scenario's tree and its two
 * printings: YAML for `etwforge fit` (block style, the comments that name
 * what the scenario cannot say above the keys they concern) and JSON for
 * Python (the same values, no comments). Strings are checked as UTF-8 on
 * the way out (a byte that is not becomes '?'), so either text loads.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/lib/common/grow.h"
#include "tools/lib/fit/fit_doc.h"

/* ---- the tree ---------------------------------------------------------- */

static struct fit_node *node_new(enum fit_kind kind, const char *key, const char *text)
{
	struct fit_node *n = calloc(1, sizeof(*n));

	if (!n) {
		return NULL;
	}
	n->kind = kind;
	if ((key && !(n->key = strdup(key))) || (text && !(n->text = strdup(text)))) {
		fit_doc_free(n);
		return NULL;
	}
	return n;
}

struct fit_node *fit_doc_map(void)
{
	return node_new(FIT_MAP, NULL, NULL);
}

struct fit_node *fit_doc_list(void)
{
	return node_new(FIT_LIST, NULL, NULL);
}

void fit_doc_free(struct fit_node *n)
{
	if (!n) {
		return;
	}
	for (size_t i = 0; i < n->n; i++) {
		fit_doc_free(n->kids[i]);
	}
	free(n->kids);
	free(n->key);
	free(n->text);
	free(n->comment);
	free(n);
}

static struct fit_node *add(struct fit_node *parent, enum fit_kind kind, const char *key,
			    const char *text)
{
	struct fit_node *n, **kids;

	if (!parent) {
		return NULL;
	}
	kids = grow_room(parent->kids, &parent->cap, parent->n, sizeof(*kids), 8);
	if (!kids) {
		parent->failed = true;
		return NULL;
	}
	parent->kids = kids;
	n = node_new(kind, parent->kind == FIT_MAP ? key : NULL, text);
	if (n) {
		parent->kids[parent->n++] = n;
	} else {
		parent->failed = true;
	}
	return n;
}

struct fit_node *fit_add_map(struct fit_node *parent, const char *key)
{
	return add(parent, FIT_MAP, key, NULL);
}

struct fit_node *fit_add_list(struct fit_node *parent, const char *key)
{
	return add(parent, FIT_LIST, key, NULL);
}

struct fit_node *fit_add_str(struct fit_node *parent, const char *key, const char *s)
{
	return add(parent, FIT_STR, key, s ? s : "");
}

struct fit_node *fit_add_u64(struct fit_node *parent, const char *key, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	return add(parent, FIT_NUM, key, b);
}

struct fit_node *fit_add_hex(struct fit_node *parent, const char *key, uint64_t v)
{
	char b[24];

	/* JSON has no hex: a number there, 0x text in YAML (fit_doc_json) */
	snprintf(b, sizeof(b), "0x%" PRIX64, v);
	return add(parent, FIT_NUM, key, b);
}

struct fit_node *fit_add_fixed2(struct fit_node *parent, const char *key, double v)
{
	char b[32];

	snprintf(b, sizeof(b), "%.2f", v);
	return add(parent, FIT_NUM, key, b);
}

struct fit_node *fit_add_bool(struct fit_node *parent, const char *key, bool v)
{
	return add(parent, FIT_BOOL, key, v ? "true" : "false");
}

struct fit_node *fit_add_word(struct fit_node *parent, const char *key, const char *word)
{
	return add(parent, FIT_WORD, key, word);
}

uint64_t fit_round3(uint64_t ns)
{
	uint64_t scale = 1;

	while (ns / scale >= 1000) {
		scale *= 10;
	}
	return (ns + scale / 2) / scale * scale;
}

uint64_t fit_clamp_ns(double ns, uint64_t lo, uint64_t hi)
{
	uint64_t v;

	if (!(ns >= (double)lo)) { /* NaN too */
		return lo;
	}
	if (ns >= (double)hi) {
		return hi;
	}
	v = fit_round3((uint64_t)ns);
	return v < lo ? lo : v > hi ? hi : v;
}

struct fit_node *fit_add_duration(struct fit_node *parent, const char *key, uint64_t ns)
{
	static const struct {
		uint64_t ns;
		const char *unit;
	} units[] = {{1000000000u, "s"}, {1000000u, "ms"}, {1000u, "us"}};
	char b[32];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns >= units[i].ns && ns % units[i].ns == 0) {
			snprintf(b, sizeof(b), "%" PRIu64 "%s", ns / units[i].ns, units[i].unit);
			return add(parent, FIT_WORD, key, b);
		}
	}
	snprintf(b, sizeof(b), "%" PRIu64 "ns", ns);
	return add(parent, FIT_WORD, key, b);
}

int fit_comment(struct fit_node *n, const char *fmt, ...)
{
	char line[512];
	size_t have, len;
	char *c;
	va_list ap;

	if (!n) {
		return -ENOMEM;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	have = n->comment ? strlen(n->comment) : 0;
	len = strlen(line);
	c = realloc(n->comment, have + len + 2);
	if (!c) {
		n->failed = true;
		return -ENOMEM;
	}
	if (have) {
		c[have++] = '\n';
	}
	memcpy(c + have, line, len + 1);
	n->comment = c;
	return 0;
}

/* ---- text out ---------------------------------------------------------- */

struct buf {
	char *p;
	size_t n, cap;
	bool nomem;
};

static void put(struct buf *b, const char *s, size_t len)
{
	if (b->nomem) {
		return;
	}
	if (b->n + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (b->n + len + 1 > cap) {
			cap *= 2;
		}
		if (!(p = realloc(b->p, cap))) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void indent(struct buf *b, unsigned n)
{
	static const char sp[] = "                                                                ";

	while (n > 0) {
		unsigned k = n < sizeof(sp) - 1 ? n : (unsigned)sizeof(sp) - 1;

		put(b, sp, k);
		n -= k;
	}
}

/* The length of the UTF-8 sequence at @s (0: not a valid one). */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80) {
		return 1;
	}
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		n = 2, cp = s[0] & 0x1Fu;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		n = 3, cp = s[0] & 0x0Fu;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		n = 4, cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			return 0;
		}
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
		return 0;
	}
	/* U+FEFF and the C1 controls are refused by YAML readers: not passed */
	if (cp == 0xFEFF || (cp >= 0x80 && cp <= 0x9F)) {
		return 0;
	}
	return n;
}

/* @s in double quotes, escaped for YAML (@json false) or JSON. */
static void quoted(struct buf *b, const char *s, bool json)
{
	const unsigned char *u = (const unsigned char *)s;

	put(b, "\"", 1);
	while (*u) {
		size_t n = utf8_len(u);
		char e[8];

		if (*u == '"' || *u == '\\') {
			e[0] = '\\', e[1] = (char)*u;
			put(b, e, 2);
		} else if (*u < 0x20 || *u == 0x7F) {
			snprintf(e, sizeof(e), json ? "\\u%04x" : "\\x%02x", *u);
			puts_(b, e);
		} else if (n == 0) {
			put(b, "?", 1);
			n = 1;
		} else {
			put(b, (const char *)u, n);
		}
		u += n ? n : 1;
	}
	put(b, "\"", 1);
}

/* Can @s be a plain (unquoted) YAML scalar that reads back as this string? */
static bool plain_ok(const char *s)
{
	static const char *const words[] = {"true", "false", "null", "yes", "no",
					    "on",   "off",   "y",    "n",   "~"};
	size_t len = strlen(s);

	if (!len ||
	    !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_')) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-')) {
			return false;
		}
	}
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcasecmp(s, words[i])) {
			return false;
		}
	}
	return true;
}

static void yaml_str(struct buf *b, const char *s)
{
	if (plain_ok(s)) {
		puts_(b, s);
	} else {
		quoted(b, s, false);
	}
}

static void comments(struct buf *b, const char *c, unsigned ind)
{
	while (c && *c) {
		const char *nl = strchr(c, '\n');
		size_t len = nl ? (size_t)(nl - c) : strlen(c);
		char *line = strndup(c, len);

		if (!line) {
			b->nomem = true;
			return;
		}
		/* a comment ends at its line: no control byte or bad UTF-8 in it */
		for (unsigned char *u = (unsigned char *)line; *u;) {
			size_t n = utf8_len(u);

			if (*u < 0x20 || *u == 0x7F || n == 0) {
				*u = '?';
				n = 1;
			}
			u += n;
		}
		indent(b, ind);
		put(b, "# ", 2);
		puts_(b, line);
		put(b, "\n", 1);
		free(line);
		c = nl ? nl + 1 : NULL;
	}
}

static void yaml_flow(struct buf *b, const struct fit_node *n)
{
	switch (n->kind) {
	case FIT_MAP:
	case FIT_LIST:
		put(b, n->kind == FIT_MAP ? "{" : "[", 1);
		for (size_t i = 0; i < n->n; i++) {
			if (i) {
				put(b, ", ", 2);
			}
			if (n->kind == FIT_MAP) {
				yaml_str(b, n->kids[i]->key);
				put(b, ": ", 2);
			}
			yaml_flow(b, n->kids[i]);
		}
		put(b, n->kind == FIT_MAP ? "}" : "]", 1);
		break;
	case FIT_STR:
		yaml_str(b, n->text);
		break;
	default:
		puts_(b, n->text);
		break;
	}
}

static bool inline_node(const struct fit_node *n)
{
	return (n->kind != FIT_MAP && n->kind != FIT_LIST) || n->flow || n->n == 0;
}

static void yaml_block(struct buf *b, const struct fit_node *n, unsigned ind);

/* The value of a key or list item after "key:" / "-": inline, or a block below. */
static void yaml_value(struct buf *b, const struct fit_node *n, unsigned ind)
{
	if (inline_node(n)) {
		put(b, " ", 1);
		yaml_flow(b, n);
		put(b, "\n", 1);
	} else {
		put(b, "\n", 1);
		yaml_block(b, n, ind);
	}
}

static void yaml_block(struct buf *b, const struct fit_node *n, unsigned ind)
{
	for (size_t i = 0; i < n->n; i++) {
		const struct fit_node *k = n->kids[i];

		if (n->kind == FIT_MAP) {
			comments(b, k->comment, ind);
			indent(b, ind);
			yaml_str(b, k->key);
			put(b, ":", 1);
			yaml_value(b, k, ind + 2);
			continue;
		}
		/* a list item: a block map starts on the dash's line */
		comments(b, k->comment, ind);
		if (k->kind == FIT_MAP && !inline_node(k)) {
			comments(b, k->kids[0]->comment, ind);
			indent(b, ind);
			put(b, "- ", 2);
			yaml_str(b, k->kids[0]->key);
			put(b, ":", 1);
			yaml_value(b, k->kids[0], ind + 4);
			for (size_t j = 1; j < k->n; j++) {
				comments(b, k->kids[j]->comment, ind + 2);
				indent(b, ind + 2);
				yaml_str(b, k->kids[j]->key);
				put(b, ":", 1);
				yaml_value(b, k->kids[j], ind + 4);
			}
		} else {
			indent(b, ind);
			put(b, "-", 1);
			yaml_value(b, k, ind + 2);
		}
	}
}

static bool failed(const struct fit_node *n)
{
	if (n->failed) {
		return true;
	}
	for (size_t i = 0; i < n->n; i++) {
		if (failed(n->kids[i])) {
			return true;
		}
	}
	return false;
}

char *fit_doc_yaml(const struct fit_node *root, const char *header)
{
	struct buf b = {0};

	if (failed(root)) {
		return NULL;
	}

	comments(&b, header, 0);
	yaml_block(&b, root, 0);
	if (b.nomem) {
		free(b.p);
		return NULL;
	}
	return b.p ? b.p : strdup("");
}

static void json_node(struct buf *b, const struct fit_node *n)
{
	switch (n->kind) {
	case FIT_MAP:
	case FIT_LIST:
		put(b, n->kind == FIT_MAP ? "{" : "[", 1);
		for (size_t i = 0; i < n->n; i++) {
			if (i) {
				put(b, ",", 1);
			}
			if (n->kind == FIT_MAP) {
				quoted(b, n->kids[i]->key, true);
				put(b, ":", 1);
			}
			json_node(b, n->kids[i]);
		}
		put(b, n->kind == FIT_MAP ? "}" : "]", 1);
		break;
	case FIT_NUM:
		if (!strncmp(n->text, "0x", 2)) {
			char d[24];

			snprintf(d, sizeof(d), "%" PRIu64, (uint64_t)strtoull(n->text, NULL, 16));
			puts_(b, d);
		} else {
			puts_(b, n->text);
		}
		break;
	case FIT_BOOL:
		puts_(b, n->text);
		break;
	default:
		quoted(b, n->text, true);
		break;
	}
}

char *fit_doc_json(const struct fit_node *root)
{
	struct buf b = {0};

	if (failed(root)) {
		return NULL;
	}

	json_node(&b, root);
	if (b.nomem) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
