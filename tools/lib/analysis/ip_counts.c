// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/ip_counts.c - sampled addresses and their counts (see
 * ip_counts.h): open addressing with linear probing, grown to twice its
 * size when half full.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/ip_counts.h"

static size_t slot_of(uint64_t ip, size_t cap)
{
	return (size_t)((ip * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int grow(struct ip_counts *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct etwforge_ip_count *v = calloc(cap, sizeof(*v));

	if (!v) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->v[i].samples) {
			size_t j = slot_of(m->v[i].ip, cap);

			while (v[j].samples) {
				j = (j + 1) & (cap - 1);
			}
			v[j] = m->v[i];
		}
	}
	free(m->v);
	m->v = v;
	m->cap = cap;
	return 0;
}

int ip_counts_add(struct ip_counts *m, uint64_t ip)
{
	size_t j;

	if ((m->n + 1) * 2 > m->cap && grow(m) < 0) {
		return -ENOMEM;
	}
	for (j = slot_of(ip, m->cap); m->v[j].samples; j = (j + 1) & (m->cap - 1)) {
		if (m->v[j].ip == ip) {
			m->v[j].samples++;
			return 0;
		}
	}
	m->v[j].ip = ip;
	m->v[j].samples = 1;
	m->n++;
	return 0;
}

static int by_samples(const void *a, const void *b)
{
	const struct etwforge_ip_count *x = a, *y = b;

	if (x->samples != y->samples) {
		return x->samples > y->samples ? -1 : 1;
	}
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

struct etwforge_ip_count *ip_counts_sorted(const struct ip_counts *m, size_t *n)
{
	struct etwforge_ip_count *v;
	size_t k = 0;

	*n = 0;
	if (!m->n) {
		return NULL;
	}
	v = malloc(m->n * sizeof(*v));
	if (!v) {
		*n = 1;
		return NULL;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (m->v[i].samples) {
			v[k++] = m->v[i];
		}
	}
	qsort(v, k, sizeof(*v), by_samples);
	*n = k;
	return v;
}

void ip_counts_free(struct ip_counts *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
