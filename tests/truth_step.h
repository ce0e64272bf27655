/* SPDX-License-Identifier: MIT */
/*
 * tests/truth_step.h - one reader's outcome of one truth_next() call, kept
 * so that two readers of the same stream (the fast path and jansson alone)
 * can be compared: shared by tests/test_truth_fast.c and the fuzz target
 * tests/fuzz/fuzz_truth.c.
 */
#ifndef ETWFORGE_TESTS_TRUTH_STEP_H
#define ETWFORGE_TESTS_TRUTH_STEP_H

#include <stdio.h>
#include <string.h>

#include "tools/lib/truth/truth.h"

struct truth_step {
	int rc;
	struct etwforge_error e;
	struct truth_record rec;
	char name[64];
};

/* Read @r's next record into @s; a spin lock's name is copied (each reader has its own). */
static inline void truth_step_next(struct truth_reader *r, struct truth_step *s)
{
	memset(s, 0, sizeof(*s));
	s->rc = truth_next(r, &s->rec, &s->e);
	if (s->rc == TRUTH_SPINLOCK && s->rec.u.sl.name) {
		snprintf(s->name, sizeof(s->name), "%s", s->rec.u.sl.name);
		s->rec.u.sl.name = NULL;
	}
}

#endif
