/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/traits.h - what a trace looks like (traits.c): the
 * statistics `etwforge compare` sets side by side, from one full analysis
 * of the file, and their distances. The public etwforge_traits_* call these.
 */
#ifndef TOOLS_LIB_ANALYSIS_TRAITS_H
#define TOOLS_LIB_ANALYSIS_TRAITS_H

#include <stddef.h>

#include "etwforge/etwforge.h"

struct etwforge_traits *traits_new(struct etwforge_file *f, struct etwforge_error *err);
void traits_free(struct etwforge_traits *t);
size_t traits_count(void);
const struct etwforge_trait *traits_at(const struct etwforge_traits *t, size_t i);
int trait_distance(const struct etwforge_trait *a, const struct etwforge_trait *b, double *d);
double traits_score(const struct etwforge_traits *a, const struct etwforge_traits *b,
		    unsigned *compared);
size_t traits_json(const struct etwforge_traits *a, const struct etwforge_traits *b,
		   const char *name_a, const char *name_b, char *buf, size_t cap);

/* The names of KWAIT_REASON and KTHREAD_STATE values (the producer's). */
const char *traits_wait_reason_name(unsigned reason);
const char *traits_thread_state_name(unsigned state);

#endif /* TOOLS_LIB_ANALYSIS_TRAITS_H */
