// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/calltree.c - the call tree of the samples (see
 * calltree.h): entries counted in a hash table by (process, PID, stack,
 * IP); the tree made from them in the order they were first met, each
 * entry's frames placed (where.c) at the time of its first sample and
 * walked from the outermost, a child found by (parent, name); at last each
 * node's children chained, most samples first (then by name).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/calltree.h"
#include "tools/lib/analysis/where.h"
#include "tools/lib/common/grow.h"

#define NO_STACK     UINT32_MAX
#define NAME_MAX_LEN 1024

struct an_call_entry {
	int64_t proc;
	uint32_t pid;
	uint32_t stack;
	uint64_t ip;
	uint64_t ts; /* its first sample's */
	uint64_t n;
};

static uint64_t entry_hash(int64_t proc, uint32_t pid, uint32_t stack, uint64_t ip)
{
	return an_mix64((uint64_t)proc * 0x9E3779B97F4A7C15u ^ ((uint64_t)pid << 32 | stack) ^
			an_mix64(ip));
}

static uint64_t entry_hash_at(const void *ctx, uint32_t i)
{
	const struct an_call_entry *e = &((const struct an_calls *)ctx)->e[i];

	return entry_hash(e->proc, e->pid, e->stack, e->ip);
}

int an_calls_add(struct an_calls *c, int64_t proc, uint32_t pid, uint32_t stack, uint64_t ip,
		 uint64_t ts)
{
	uint64_t h = entry_hash(proc, pid, stack, ip);
	struct an_call_entry *v;
	size_t k;

	if (c->n >= UINT32_MAX - 1 ||
	    an_slots_grow(&c->slots, &c->nslots, c->n, entry_hash_at, c) < 0) {
		return -ENOMEM;
	}
	for (k = h & (c->nslots - 1); c->slots[k]; k = (k + 1) & (c->nslots - 1)) {
		struct an_call_entry *e = &c->e[c->slots[k] - 1];

		if (e->proc == proc && e->pid == pid && e->stack == stack && e->ip == ip) {
			e->n++;
			return 0;
		}
	}
	v = grow_room(c->e, &c->cap, c->n, sizeof(*v), 256);
	if (!v) {
		return -ENOMEM;
	}
	c->e = v;
	c->e[c->n] = (struct an_call_entry){proc, pid, stack, ip, ts, 1};
	c->slots[k] = (uint32_t)c->n + 1;
	c->n++;
	return 0;
}

/* ---- the tree ------------------------------------------------------------------ */

/* What building the tree keeps on the side: names and children by (parent, name). */
struct build {
	struct an_calls *c;
	size_t *name_off; /* per node: its name's offset in c->names */
	size_t cap_off;
	uint32_t *name_slots; /* name offset + 1 by the name's hash */
	size_t nname_slots;
	size_t *name_list; /* offsets of the distinct names */
	size_t nnames, cap_names;
	uint32_t *child_slots; /* node + 1 by (parent, name) */
	size_t nchild_slots;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xCBF29CE484222325u;

	while (*s) {
		h = (h ^ (unsigned char)*s++) * 0x100000001B3u;
	}
	return h;
}

static uint64_t name_hash_at(const void *ctx, uint32_t i)
{
	const struct build *b = ctx;

	return str_hash(b->c->names.buf + b->name_list[i]);
}

/* The offset of @name in the names, added when new. Return: it, (size_t)-1 out of memory. */
static size_t name_of(struct build *b, const char *name)
{
	struct an_calls *c = b->c;
	uint64_t h = str_hash(name);
	size_t k, len = strlen(name), at;
	size_t *list;

	if (an_slots_grow(&b->name_slots, &b->nname_slots, b->nnames, name_hash_at, b) < 0) {
		return (size_t)-1;
	}
	for (k = h & (b->nname_slots - 1); b->name_slots[k]; k = (k + 1) & (b->nname_slots - 1)) {
		size_t off = b->name_list[b->name_slots[k] - 1];

		if (!strcmp(c->names.buf + off, name)) {
			return off;
		}
	}
	list = grow_room(b->name_list, &b->cap_names, b->nnames, sizeof(*list), 256);
	if (!list) {
		return (size_t)-1;
	}
	b->name_list = list;
	at = an_text_add(&c->names, name, len);
	if (at == SIZE_MAX) {
		return (size_t)-1;
	}
	b->name_list[b->nnames] = at;
	b->name_slots[k] = (uint32_t)b->nnames + 1;
	b->nnames++;
	return at;
}

static uint64_t child_hash(int64_t parent, size_t name)
{
	return an_mix64((uint64_t)parent * 0x9E3779B97F4A7C15u ^ name);
}

static uint64_t child_hash_at(const void *ctx, uint32_t i)
{
	const struct build *b = ctx;

	return child_hash(b->c->nodes[i].parent, b->name_off[i]);
}

/* The child @name of @parent, made when new. Return: its index, -1 out of memory. */
static int64_t child_of(struct build *b, int64_t parent, const char *name, uint32_t pid)
{
	struct an_calls *c = b->c;
	size_t off = name_of(b, name), k;
	struct etwforge_call_node *v;
	size_t *offs;

	if (off == (size_t)-1 || c->nnodes >= UINT32_MAX - 1 ||
	    an_slots_grow(&b->child_slots, &b->nchild_slots, c->nnodes, child_hash_at, b) < 0) {
		return -1;
	}
	for (k = child_hash(parent, off) & (b->nchild_slots - 1); b->child_slots[k];
	     k = (k + 1) & (b->nchild_slots - 1)) {
		size_t i = b->child_slots[k] - 1;

		if (c->nodes[i].parent == parent && b->name_off[i] == off) {
			return (int64_t)i;
		}
	}
	v = grow_room(c->nodes, &c->cap_nodes, c->nnodes, sizeof(*v), 256);
	if (!v) {
		return -1;
	}
	c->nodes = v;
	offs = grow_room(b->name_off, &b->cap_off, c->nnodes, sizeof(*offs), 256);
	if (!offs) {
		return -1;
	}
	b->name_off = offs;
	v[c->nnodes] = (struct etwforge_call_node){
		.parent = parent,
		.first_child = -1,
		.next_sibling = -1,
		.depth = parent >= 0 ? c->nodes[parent].depth + 1 : 0,
		.pid = pid,
	};
	offs[c->nnodes] = off;
	b->child_slots[k] = (uint32_t)c->nnodes + 1;
	return (int64_t)c->nnodes++;
}

/* A process's node name: "image (PID)", "Idle (0)", "? (PID)". */
static void process_name(const struct an_identity *id, int64_t proc, uint32_t pid, char *buf,
			 size_t cap)
{
	if (proc == AN_PROC_IDLE) {
		snprintf(buf, cap, "Idle (0)");
	} else if (proc >= 0 && (size_t)proc < id->nprocs && id->procs[proc].pub.image[0]) {
		snprintf(buf, cap, "%s (%u)", id->procs[proc].pub.image, (unsigned)pid);
	} else {
		snprintf(buf, cap, "? (%u)", (unsigned)pid);
	}
	for (char *p = buf; *p; p++) {
		if (*p == ';') {
			*p = ':';
		}
	}
}

/* Entry @e's path into the tree, its count on every node of it. Return: 0, -ENOMEM. */
static int place(struct build *b, const struct an_call_entry *e, const struct an_identity *id,
		 const struct an_images *im, const struct an_stacks *st)
{
	struct an_calls *c = b->c;
	char name[NAME_MAX_LEN];
	size_t n = 0;
	const uint64_t *f = e->stack != NO_STACK ? an_run_frames(&st->joined, e->stack, &n) : NULL;
	bool lead = !f || n == 0 || f[0] != e->ip; /* the IP heads the frames */
	int64_t node;

	process_name(id, e->proc, e->pid, name, sizeof(name));
	node = child_of(b, 0, name, e->pid);
	if (node < 0) {
		return -ENOMEM;
	}
	c->nodes[0].samples += e->n;
	c->nodes[node].samples += e->n;
	for (size_t k = n + lead; k-- > 0;) {
		uint64_t addr = k == 0 && lead ? e->ip : f[k - lead];
		struct an_where w;

		an_where(im, e->pid, addr, e->ts, &w);
		an_where_frame(im, &w, name, sizeof(name));
		node = child_of(b, node, name, e->pid);
		if (node < 0) {
			return -ENOMEM;
		}
		c->nodes[node].samples += e->n;
	}
	c->nodes[node].self += e->n;
	return 0;
}

/* The order of siblings: most samples first, then by name. */
static const struct etwforge_call_node *sort_nodes;

static int by_samples(const void *a, const void *b)
{
	const struct etwforge_call_node *x = &sort_nodes[*(const size_t *)a];
	const struct etwforge_call_node *y = &sort_nodes[*(const size_t *)b];

	if (x->samples != y->samples) {
		return x->samples > y->samples ? -1 : 1;
	}
	return strcmp(x->name, y->name);
}

static int by_parent(const void *a, const void *b)
{
	const struct etwforge_call_node *x = &sort_nodes[*(const size_t *)a];
	const struct etwforge_call_node *y = &sort_nodes[*(const size_t *)b];

	if (x->parent != y->parent) {
		return x->parent < y->parent ? -1 : 1;
	}
	return by_samples(a, b);
}

/* Each node's children chained, most samples first. Return: 0, -ENOMEM. */
static int chain(struct an_calls *c)
{
	size_t *order = malloc(c->nnodes * sizeof(*order));

	if (!order) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nnodes; i++) {
		order[i] = i;
	}
	sort_nodes = c->nodes;
	qsort(order + 1, c->nnodes - 1, sizeof(*order), by_parent);
	sort_nodes = NULL;
	for (size_t i = c->nnodes; i-- > 1;) {
		struct etwforge_call_node *n = &c->nodes[order[i]];

		n->next_sibling = c->nodes[n->parent].first_child;
		c->nodes[n->parent].first_child = (int64_t)order[i];
	}
	free(order);
	return 0;
}

int an_calls_build(struct an_calls *c, const struct an_identity *id, const struct an_images *im,
		   const struct an_stacks *st)
{
	struct build b = {.c = c};
	int rc = 0;

	if (c->built) {
		return 0;
	}
	if (child_of(&b, -1, "all", 0) != 0) {
		rc = -ENOMEM;
	}
	for (size_t i = 0; rc == 0 && i < c->n; i++) {
		rc = place(&b, &c->e[i], id, im, st);
	}
	if (rc == 0) {
		for (size_t i = 0; i < c->nnodes; i++) {
			c->nodes[i].name = c->names.buf + b.name_off[i];
		}
		rc = chain(c);
	}
	free(b.name_off);
	free(b.name_slots);
	free(b.name_list);
	free(b.child_slots);
	if (rc < 0) {
		free(c->nodes);
		c->nodes = NULL;
		c->nnodes = c->cap_nodes = 0;
		return rc;
	}
	c->built = true;
	return 0;
}

void an_calls_free(struct an_calls *c)
{
	free(c->e);
	free(c->slots);
	free(c->nodes);
	free(c->names.buf);
	memset(c, 0, sizeof(*c));
}
