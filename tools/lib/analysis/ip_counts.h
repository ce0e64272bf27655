/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/ip_counts.h - how many samples each instruction
 * pointer of a thread has (ip_counts.c): a map from a 64-bit address to a
 * count, and the list of it sorted, most samples first. Memory grows with
 * the distinct addresses sampled, not with the samples.
 */
#ifndef TOOLS_LIB_ANALYSIS_IP_COUNTS_H
#define TOOLS_LIB_ANALYSIS_IP_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"

/** struct ip_counts - zero-initialise. */
struct ip_counts {
	struct etwforge_ip_count *v; /* open addressing; samples 0: an empty slot */
	size_t cap;		     /* a power of two, 0 before the first add */
	size_t n;
};

/** ip_counts_add - one more sample of @ip. Return: 0, or -ENOMEM. */
int ip_counts_add(struct ip_counts *m, uint64_t ip);

/**
 * ip_counts_sorted - the addresses, most samples first (then the lower
 * address), into a new array of *@n (free() it). Return: it, NULL with *@n
 * 0 when none, NULL with *@n 1 when out of memory.
 */
struct etwforge_ip_count *ip_counts_sorted(const struct ip_counts *m, size_t *n);

/** ip_counts_free - @m is empty again. */
void ip_counts_free(struct ip_counts *m);

#endif /* TOOLS_LIB_ANALYSIS_IP_COUNTS_H */
