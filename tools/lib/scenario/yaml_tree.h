/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/scenario/yaml_tree.h - a small read-only tree of YAML nodes with their line
 * and column, built from libyaml's document loader. The scenario loader
 * walks it against its schema, so every error can say where it is. libyaml
 * does no implicit typing: every scalar is text, and @plain tells whether
 * it was written unquoted (so it may be read as a number, bool or null).
 * JSON is YAML, so JSON files load the same way.
 */
#ifndef TOOLS_LIB_YAML_TREE_H
#define TOOLS_LIB_YAML_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/lib/common/error.h"

/* Sequences and mappings nested deeper than this are refused (yt_parse). */
#define YT_MAX_DEPTH 16u

/** enum yt_kind - what a node is. */
enum yt_kind {
	YT_SCALAR = 0,
	YT_SEQ,
	YT_MAP,
};

/**
 * struct yt_node - one node.
 * @kind:  scalar, sequence or mapping
 * @plain: a scalar written without quotes (or a block scalar: false)
 * @line:  1-based line of the node's first character
 * @col:   1-based column of it (on line 1 shifted by the parse's @col0)
 * @str:   scalar text, NUL-terminated (may contain NULs: see @len)
 * @len:   scalar text length in bytes
 * @n:     sequence items, or mapping pairs
 * @kids:  sequence: @n items; mapping: 2 * @n nodes, key then value. Aliases
 *         share nodes, so the tree may be a graph (even a cyclic one): walk
 *         it against a bounded schema, never blindly.
 */
struct yt_node {
	enum yt_kind kind;
	bool plain;
	uint32_t line;
	uint32_t col;
	const char *str;
	size_t len;
	size_t n;
	struct yt_node **kids;
};

/**
 * struct yt_doc - a parsed document; yt_doc_free() releases it.
 * @root: the top node, NULL for an empty document (or only comments)
 */
struct yt_doc {
	struct yt_node *root;
	struct yt_node *nodes;
	struct yt_node **links;
	char *text;
};

/**
 * yt_parse - parse one YAML (or JSON) document.
 * @doc:    filled on success; free it with yt_doc_free()
 * @name:   the source name used in messages ("busy.yaml", "--set")
 * @text:   the bytes (need not be NUL-terminated)
 * @len:    their length
 * @col0:   column of @text's first byte on line 1 (1 for a file; the value's
 *          position in a --set assignment), so messages point into it
 * @err:    on failure, one line "name:line:col: yaml: libyaml's problem"
 *          (ERR_INPUT, located)
 * Return: 0, -EINVAL (syntax error, or more than one document) or -ENOMEM.
 */
int yt_parse(struct yt_doc *doc, const char *name, const char *text, size_t len, unsigned col0,
	     struct etwforge_error *err);

/** yt_doc_free - release @doc's memory (a zeroed doc is fine). */
void yt_doc_free(struct yt_doc *doc);

/** yt_is_null - a missing value: NULL, or a plain empty, "~" or "null" scalar. */
bool yt_is_null(const struct yt_node *n);

/** yt_map_get - the value of key @key in mapping @map, or NULL. */
const struct yt_node *yt_map_get(const struct yt_node *map, const char *key);

/** yt_kind_name - "a scalar", "a list", "a map" (for messages). */
const char *yt_kind_name(const struct yt_node *n);

#endif /* TOOLS_LIB_YAML_TREE_H */
