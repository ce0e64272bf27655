/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/grow.h - an array that grows by doubling as elements are
 * added at its end (grow.c): the one way the library's lists make room.
 */
#ifndef TOOLS_LIB_COMMON_GROW_H
#define TOOLS_LIB_COMMON_GROW_H

#include <stddef.h>

/**
 * grow_room - room for element @n of the array @v (*@cap elements of @size
 * bytes allocated; NULL with 0): doubled when full, @first elements the
 * first time. Return: the array (moved, or @v itself when it had room), or
 * NULL out of memory (@v and *@cap as they were).
 */
void *grow_room(void *v, size_t *cap, size_t n, size_t size, size_t first);

#endif /* TOOLS_LIB_COMMON_GROW_H */
