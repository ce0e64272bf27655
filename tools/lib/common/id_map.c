// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/id_map.c - the id map of id_map.h: open addressing with linear
 * probing, grown to twice its size when half full.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/id_map.h"

static size_t slot_of(uint32_t id, size_t cap)
{
	return (size_t)((id * 2654435761u) & (uint32_t)(cap - 1));
}

void *id_map_get(const struct id_map *m, uint32_t id)
{
	if (!m->cap) {
		return NULL;
	}
	for (size_t j = slot_of(id, m->cap); m->used[j]; j = (j + 1) & (m->cap - 1)) {
		if (m->ids[j] == id) {
			return m->vals + j * m->elem_size;
		}
	}
	return NULL;
}

/* The slots made @cap (a power of two, room for every id in them). */
static int grow_to(struct id_map *m, size_t cap)
{
	uint32_t *ids = calloc(cap, sizeof(*ids));
	bool *used = calloc(cap, sizeof(*used));
	unsigned char *vals = calloc(cap, m->elem_size ? m->elem_size : 1);

	if (!ids || !used || !vals) {
		free(ids);
		free(used);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->used[i]) {
			size_t j = slot_of(m->ids[i], cap);

			while (used[j]) {
				j = (j + 1) & (cap - 1);
			}
			used[j] = true;
			ids[j] = m->ids[i];
			memcpy(vals + j * m->elem_size, m->vals + i * m->elem_size, m->elem_size);
		}
	}
	free(m->ids);
	free(m->used);
	free(m->vals);
	m->ids = ids;
	m->used = used;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

static int grow(struct id_map *m)
{
	return grow_to(m, m->cap ? m->cap * 2 : 64);
}

int id_map_reserve(struct id_map *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	while (cap < 2 * n) {
		cap *= 2;
	}
	return cap > m->cap ? grow_to(m, cap) : 0;
}

void *id_map_add(struct id_map *m, uint32_t id)
{
	void *v = id_map_get(m, id);
	size_t j;

	if (v) {
		return v;
	}
	if ((m->n + 1) * 2 > m->cap && grow(m) < 0) {
		return NULL;
	}
	for (j = slot_of(id, m->cap); m->used[j]; j = (j + 1) & (m->cap - 1)) {
	}
	m->used[j] = true;
	m->ids[j] = id;
	m->n++;
	return m->vals + j * m->elem_size;
}

void *id_map_at(const struct id_map *m, size_t i, uint32_t *id)
{
	if (i >= m->cap || !m->used[i]) {
		return NULL;
	}
	*id = m->ids[i];
	return m->vals + i * m->elem_size;
}

void id_map_free(struct id_map *m)
{
	free(m->ids);
	free(m->used);
	free(m->vals);
	*m = (struct id_map){.elem_size = m->elem_size};
}
