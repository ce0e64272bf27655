/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/tables.h - what the analysis's hash tables and string
 * pools share (tables.c): a 64-bit mixer, the growth of an open-addressing
 * table of entry numbers (slot = entry + 1, 0 empty; kept at most half
 * full, rehashed through the caller's hash of an entry), and a pool of
 * NUL-terminated strings addressed by offset (offsets stay valid as the
 * pool grows, pointers do not).
 */
#ifndef TOOLS_LIB_ANALYSIS_TABLES_H
#define TOOLS_LIB_ANALYSIS_TABLES_H

#include <stddef.h>
#include <stdint.h>

/** an_mix64 - @h's bits mixed (MurmurHash3's finalizer). */
uint64_t an_mix64(uint64_t h);

/**
 * an_slots_grow - room in the table *@slots of *@nslots slots (a power of
 * two, 0 none yet) for @n + 1 entries at half load, entry i rehashed at
 * @hash(@ctx, i). Return: 0, or -ENOMEM (the table as it was).
 */
int an_slots_grow(uint32_t **slots, size_t *nslots, size_t n,
		  uint64_t (*hash)(const void *ctx, uint32_t i), const void *ctx);

/* struct an_text - a pool of strings: @buf holds @len bytes of @cap. */
struct an_text {
	char *buf;
	size_t len, cap;
};

/**
 * an_text_add - the @n bytes at @s and a NUL appended to @t.
 * Return: their offset, or SIZE_MAX out of memory.
 */
size_t an_text_add(struct an_text *t, const char *s, size_t n);

#endif /* TOOLS_LIB_ANALYSIS_TABLES_H */
