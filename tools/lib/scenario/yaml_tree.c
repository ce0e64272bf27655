// SPDX-License-Identifier: MIT
/*
 * tools/lib/scenario/yaml_tree.c - libyaml's document loader turned into struct yt_node:
 * one array of nodes (same order as libyaml's, so an alias is simply a
 * second pointer to the anchored node), one array of child links and one
 * block of scalar text. Three allocations, freed together; no recursion,
 * so deep or self-referencing documents cannot exhaust the stack here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "tools/lib/scenario/yaml_tree.h"

static uint32_t clamp32(size_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* 1-based line and column of a 0-based libyaml mark. */
static void mark_pos(const yaml_mark_t *m, unsigned col0, uint32_t *line, uint32_t *col)
{
	*line = clamp32(m->line + 1);
	*col = clamp32(m->line == 0 ? m->column + col0 : m->column + 1);
}

/*
 * The reader (encoding, control characters) reports a byte offset, not a
 * mark: count lines in the text up to it. Columns count bytes.
 */
static void offset_pos(const char *text, size_t len, size_t off, unsigned col0, uint32_t *line,
		       uint32_t *col)
{
	size_t l = 0;
	size_t c = 0;

	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			l++;
			c = 0;
		} else {
			c++;
		}
	}
	*line = clamp32(l + 1);
	*col = clamp32(l == 0 ? c + col0 : c + 1);
}

static int parser_error(const yaml_parser_t *p, const char *name, const char *text, size_t len,
			unsigned col0, struct etwforge_error *err)
{
	const char *problem = p->problem ? p->problem : "unknown error";
	uint32_t line;
	uint32_t col;

	if (p->error == YAML_MEMORY_ERROR) {
		return error_fail_at(err, -ENOMEM, ERR_INPUT, "%s: out of memory", name);
	}
	if (p->error == YAML_READER_ERROR) {
		offset_pos(text, len, p->problem_offset, col0, &line, &col);
		if (p->problem_value >= 0) {
			error_fail_at(err, -EINVAL, ERR_INPUT, "%s:%u:%u: yaml: %s (byte 0x%02x)",
				      name, line, col, problem, (unsigned)p->problem_value & 0xFFu);
		} else {
			error_fail_at(err, -EINVAL, ERR_INPUT, "%s:%u:%u: yaml: %s", name, line,
				      col, problem);
		}
		return -EINVAL;
	}
	if (p->problem_mark.index >= len) {
		/* at the end: libyaml's mark may sit on a line the text does not have */
		offset_pos(text, len, len, col0, &line, &col);
	} else {
		mark_pos(&p->problem_mark, col0, &line, &col);
	}
	if (p->context) {
		uint32_t cl;
		uint32_t cc;

		mark_pos(&p->context_mark, col0, &cl, &cc);
		error_fail_at(err, -EINVAL, ERR_INPUT, "%s:%u:%u: yaml: %s (%s at %u:%u)", name,
			      line, col, problem, p->context, cl, cc);
	} else {
		error_fail_at(err, -EINVAL, ERR_INPUT, "%s:%u:%u: yaml: %s", name, line, col,
			      problem);
	}
	return -EINVAL;
}

/* Copy libyaml's document into @doc (indices become pointers). */
static int convert(struct yt_doc *doc, yaml_document_t *yd, unsigned col0)
{
	size_t nn = (size_t)(yd->nodes.top - yd->nodes.start);
	size_t nlinks = 0;
	size_t ntext = 0;
	size_t li = 0;
	size_t ti = 0;

	for (size_t i = 0; i < nn; i++) {
		const yaml_node_t *y = &yd->nodes.start[i];

		if (y->type == YAML_SCALAR_NODE) {
			ntext += y->data.scalar.length + 1;
		} else if (y->type == YAML_SEQUENCE_NODE) {
			nlinks +=
				(size_t)(y->data.sequence.items.top - y->data.sequence.items.start);
		} else if (y->type == YAML_MAPPING_NODE) {
			nlinks += 2 *
				  (size_t)(y->data.mapping.pairs.top - y->data.mapping.pairs.start);
		}
	}
	doc->nodes = calloc(nn ? nn : 1, sizeof(*doc->nodes));
	doc->links = calloc(nlinks ? nlinks : 1, sizeof(*doc->links));
	doc->text = malloc(ntext ? ntext : 1);
	if (!doc->nodes || !doc->links || !doc->text) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < nn; i++) {
		const yaml_node_t *y = &yd->nodes.start[i];
		struct yt_node *n = &doc->nodes[i];

		mark_pos(&y->start_mark, col0, &n->line, &n->col);
		switch (y->type) {
		case YAML_SCALAR_NODE:
			n->kind = YT_SCALAR;
			n->plain = y->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			n->len = y->data.scalar.length;
			memcpy(doc->text + ti, y->data.scalar.value, n->len);
			doc->text[ti + n->len] = '\0';
			n->str = doc->text + ti;
			ti += n->len + 1;
			break;
		case YAML_SEQUENCE_NODE:
			n->kind = YT_SEQ;
			n->kids = doc->links + li;
			for (yaml_node_item_t *it = y->data.sequence.items.start;
			     it < y->data.sequence.items.top; it++) {
				doc->links[li++] = &doc->nodes[*it - 1];
				n->n++;
			}
			break;
		case YAML_MAPPING_NODE:
			n->kind = YT_MAP;
			n->kids = doc->links + li;
			for (yaml_node_pair_t *pr = y->data.mapping.pairs.start;
			     pr < y->data.mapping.pairs.top; pr++) {
				doc->links[li++] = &doc->nodes[pr->key - 1];
				doc->links[li++] = &doc->nodes[pr->value - 1];
				n->n++;
			}
			break;
		default:
			/* YAML_NO_NODE: libyaml never leaves one in a loaded document */
			n->kind = YT_SCALAR;
			n->plain = true;
			n->str = "";
			break;
		}
	}
	return 0;
}

/*
 * The nesting of the text, by libyaml's events, up to YT_MAX_DEPTH. libyaml
 * rescans every open flow level at each token, so a deeply nested text
 * takes quadratic time (80 KB of '[': 11 s); this pass stops at the first
 * node too deep, after a few dozen tokens. Return: 0 (other errors are left
 * to the loader, which says them), or -EINVAL with @err.
 */
static int check_depth(const char *name, const char *text, size_t len, unsigned col0,
		       struct etwforge_error *err)
{
	yaml_parser_t p;
	yaml_event_t ev;
	unsigned depth = 0;
	int rc = 0;

	if (!yaml_parser_initialize(&p)) {
		return 0; /* the loader says "out of memory" */
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (rc == 0 && yaml_parser_parse(&p, &ev)) {
		yaml_event_type_t t = ev.type;

		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
			if (++depth > YT_MAX_DEPTH) {
				uint32_t line, col;

				mark_pos(&ev.start_mark, col0, &line, &col);
				error_fail_at(err, -EINVAL, ERR_INPUT,
					      "%s:%u:%u: yaml: nested more than %u levels deep; a "
					      "scenario "
					      "needs a handful",
					      name, line, col, YT_MAX_DEPTH);
				rc = -EINVAL;
			}
		} else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		yaml_event_delete(&ev);
		if (t == YAML_STREAM_END_EVENT) {
			break;
		}
	}
	yaml_parser_delete(&p);
	return rc;
}

int yt_parse(struct yt_doc *doc, const char *name, const char *text, size_t len, unsigned col0,
	     struct etwforge_error *err)
{
	yaml_parser_t p;
	yaml_document_t yd;
	yaml_node_t *root;
	int rc = 0;

	memset(doc, 0, sizeof(*doc));
	rc = check_depth(name, text, len, col0, err);
	if (rc) {
		return rc;
	}
	if (!yaml_parser_initialize(&p)) {
		return error_fail_at(err, -ENOMEM, ERR_INPUT, "%s: out of memory", name);
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &yd)) {
		rc = parser_error(&p, name, text, len, col0, err);
		yaml_parser_delete(&p);
		return rc;
	}
	root = yaml_document_get_root_node(&yd);
	if (root) {
		rc = convert(doc, &yd, col0);
		if (rc) {
			error_fail_at(err, rc, ERR_INPUT, "%s: out of memory", name);
		} else {
			doc->root = &doc->nodes[root - yd.nodes.start];
		}
	}
	yaml_document_delete(&yd);
	if (rc == 0 && root) {
		/* a second document is an error, and so is a syntax error after the first */
		if (!yaml_parser_load(&p, &yd)) {
			rc = parser_error(&p, name, text, len, col0, err);
		} else {
			yaml_node_t *r2 = yaml_document_get_root_node(&yd);

			if (r2) {
				uint32_t line;
				uint32_t col;

				mark_pos(&r2->start_mark, col0, &line, &col);
				error_fail_at(
					err, -EINVAL, ERR_INPUT,
					"%s:%u:%u: yaml: a second document; a scenario is one "
					"document",
					name, line, col);
				rc = -EINVAL;
			}
			yaml_document_delete(&yd);
		}
	}
	yaml_parser_delete(&p);
	if (rc) {
		yt_doc_free(doc);
	}
	return rc;
}

void yt_doc_free(struct yt_doc *doc)
{
	free(doc->nodes);
	free(doc->links);
	free(doc->text);
	memset(doc, 0, sizeof(*doc));
}

bool yt_is_null(const struct yt_node *n)
{
	if (!n) {
		return true;
	}
	if (n->kind != YT_SCALAR || !n->plain) {
		return false;
	}
	return n->len == 0 || !strcmp(n->str, "~") || !strcmp(n->str, "null") ||
	       !strcmp(n->str, "Null") || !strcmp(n->str, "NULL");
}

const struct yt_node *yt_map_get(const struct yt_node *map, const char *key)
{
	if (!map || map->kind != YT_MAP) {
		return NULL;
	}
	for (size_t i = 0; i < map->n; i++) {
		const struct yt_node *k = map->kids[2 * i];

		if (k->kind == YT_SCALAR && !strcmp(k->str, key)) {
			return map->kids[2 * i + 1];
		}
	}
	return NULL;
}

const char *yt_kind_name(const struct yt_node *n)
{
	if (yt_is_null(n)) {
		return "empty";
	}
	switch (n->kind) {
	case YT_SEQ:
		return "a list";
	case YT_MAP:
		return "a map";
	default:
		return n->plain ? "a plain scalar" : "a string";
	}
}
