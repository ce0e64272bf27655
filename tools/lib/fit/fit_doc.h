/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fit/fit_doc.h - the fitted scenario as a small tree of maps,
 * lists and scalars, each node with the comment lines to print above it,
 * written out as YAML (with the comments) or as JSON (without).
 */
#ifndef TOOLS_LIB_FIT_FIT_DOC_H
#define TOOLS_LIB_FIT_FIT_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fit_kind {
	FIT_MAP,
	FIT_LIST,
	FIT_STR,  /* a string: quoted in YAML when it needs it, always in JSON */
	FIT_NUM,  /* a number: bare in both */
	FIT_BOOL, /* true / false */
	FIT_WORD, /* a bare YAML word (a duration "250us", an enum): a string in JSON */
};

/**
 * struct fit_node - one node. @key: its key in its parent map (NULL in a
 * list); @text: a scalar's text; @flow: a map or list printed on one line;
 * @comment: lines (joined by '\n') printed as "# ..." above it in YAML.
 * An add that runs out of memory marks its parent @failed, and the
 * printings of a tree with a failed node give NULL: no check at each add.
 */
struct fit_node {
	enum fit_kind kind;
	char *key;
	char *text;
	char *comment;
	bool flow;
	bool failed; /* an add to it ran out of memory: the texts are refused */
	struct fit_node **kids;
	size_t n, cap;
};

/** fit_doc_map / _list - a new empty map or list, NULL out of memory. */
struct fit_node *fit_doc_map(void);
struct fit_node *fit_doc_list(void);

/** fit_doc_free - a node and everything under it (NULL: nothing). */
void fit_doc_free(struct fit_node *n);

/*
 * Adding to a map (@key) or a list (@key NULL). Each returns the node
 * added, or NULL out of memory (the tree then stays as it was); a NULL
 * @parent is passed through as NULL, so a chain of calls checks once.
 */
struct fit_node *fit_add_map(struct fit_node *parent, const char *key);
struct fit_node *fit_add_list(struct fit_node *parent, const char *key);
struct fit_node *fit_add_str(struct fit_node *parent, const char *key, const char *s);
struct fit_node *fit_add_u64(struct fit_node *parent, const char *key, uint64_t v);
struct fit_node *fit_add_hex(struct fit_node *parent, const char *key, uint64_t v);
struct fit_node *fit_add_fixed2(struct fit_node *parent, const char *key, double v);
struct fit_node *fit_add_bool(struct fit_node *parent, const char *key, bool v);
struct fit_node *fit_add_word(struct fit_node *parent, const char *key, const char *word);
/** fit_add_duration - @ns as "1.23ms"-like text, exact (the loader's units). */
struct fit_node *fit_add_duration(struct fit_node *parent, const char *key, uint64_t ns);

/**
 * fit_comment - add a comment line (printf-style) above @n. Return: 0 or
 * -ENOMEM (@n NULL: -ENOMEM).
 */
int fit_comment(struct fit_node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * fit_doc_yaml / _json - the tree as text (malloc'd, NUL-terminated),
 * NULL out of memory. YAML: block style but for flow nodes, comments above
 * their nodes; JSON: one object on one line.
 */
char *fit_doc_yaml(const struct fit_node *root, const char *header);
char *fit_doc_json(const struct fit_node *root);

/** fit_round3 - @ns rounded to 3 significant digits (what the YAML says). */
uint64_t fit_round3(uint64_t ns);

/** fit_clamp_ns - @ns rounded to 3 digits, clamped to [@lo, @hi] (NaN: @lo). */
uint64_t fit_clamp_ns(double ns, uint64_t lo, uint64_t hi);

#endif /* TOOLS_LIB_FIT_FIT_DOC_H */
