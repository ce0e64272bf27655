/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/id_map.h - a map from a 32-bit id (a TID or a PID) to a
 * value of fixed size, zeroed when added (id_map.c): what the readers of a
 * trace keep per thread or process, so that their memory grows with the
 * threads and processes of a file, not with its length.
 */
#ifndef TOOLS_LIB_COMMON_ID_MAP_H
#define TOOLS_LIB_COMMON_ID_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** struct id_map - zero-initialise, then set @elem_size (bytes of a value). */
struct id_map {
	size_t elem_size;
	size_t n;   /* ids in the map */
	size_t cap; /* slots: a power of two, 0 before the first add */
	uint32_t *ids;
	bool *used;
	unsigned char *vals;
};

/** id_map_get - the value of @id, or NULL when it is not in @m. */
void *id_map_get(const struct id_map *m, uint32_t id);

/** id_map_add - the value of @id, added (zeroed) when new. Return: it, or NULL (ENOMEM). */
void *id_map_add(struct id_map *m, uint32_t id);

/**
 * id_map_reserve - room for @n ids in all (no growing while they are added).
 * Return: 0, or -1 out of memory (@m as it was).
 */
int id_map_reserve(struct id_map *m, size_t n);

/**
 * id_map_at - slot @i (0 .. @m->cap - 1): its value and *@id, or NULL
 * for an empty slot; to visit every id in no particular order.
 */
void *id_map_at(const struct id_map *m, size_t i, uint32_t *id);

/** id_map_free - free the storage; @m is empty again (its @elem_size kept). */
void id_map_free(struct id_map *m);

#endif /* TOOLS_LIB_COMMON_ID_MAP_H */
