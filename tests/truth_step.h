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
#include "tools/lib/truth/truth_kinds.h"

struct truth_step {
	int rc;
	struct etwforge_error e;
	struct truth_record rec;
	char name[8192]; /* the record's strings, one after the other ("|" between) */
};

/* Append string *@m to @s->name and clear the pointer (each reader keeps its own copy). */
static inline void truth_step_keep(struct truth_step *s, const char **m)
{
	size_t n = strlen(s->name);

	snprintf(s->name + n, sizeof(s->name) - n, "%s|", *m ? *m : "(null)");
	*m = NULL;
}

/* The string members of a line (its TEXT, SID and STR rows) go to @s->name; other rows stay in rec. */
#define TRUTH_STEP_ROW(x, name, ctype, how, ...) TRUTH_STEP_##how(x, name)
#define TRUTH_STEP_TEXT(x, name)		 truth_step_keep(s, &s->rec.u.x.name);
#define TRUTH_STEP_SID(x, name)			 truth_step_keep(s, &s->rec.u.x.name);
#define TRUTH_STEP_STR(x, name)			 truth_step_keep(s, &s->rec.u.x.name);
#define TRUTH_STEP_U(x, name)
#define TRUTH_STEP_CPU(x, name)
#define TRUTH_STEP_CLOCK(x, name)
#define TRUTH_STEP_WHY(x, name)
#define TRUTH_STEP_PMC(x, name)
#define TRUTH_STEP_PEBS(x, name)
#define TRUTH_STEP_I(x, name)
#define TRUTH_STEP_BUF(x, name)
#define TRUTH_STEP_TS(x, name)
#define TRUTH_STEP_ADDR(x, name)
#define TRUTH_STEP_BOOL(x, name)
#define TRUTH_STEP_EVENT(x, name)
#define TRUTH_STEP_NO(x, name)

/* A stack line's frames (a pointer into the reader's own buffer) go to @s->name as hex. */
static inline void truth_step_frames(struct truth_step *s)
{
	for (uint32_t i = 0; i < s->rec.u.stack.nips; i++) {
		size_t n = strlen(s->name);

		snprintf(s->name + n, sizeof(s->name) - n, "%llx,",
			 (unsigned long long)s->rec.u.stack.ips[i]);
	}
	s->rec.u.stack.ips = NULL;
}

/* Every kind of line: its strings (and a stack's frames) are copied out of the record. */
#define TRUTH_STEP_KIND(kind, ENUM, ctype, u, what, FIELDS, ...)                                   \
	case TRUTH_##ENUM:                                                                         \
		FIELDS(TRUTH_STEP_ROW, TRUTH_STEP_NO, u)                                           \
		break;

/* Read @r's next record into @s; its strings are copied (each reader has its own). */
static inline void truth_step_next(struct truth_reader *r, struct truth_step *s)
{
	memset(s, 0, sizeof(*s));
	s->rc = truth_next(r, &s->rec, &s->e);
	switch (s->rc) {
		TRUTH_KINDS(TRUTH_STEP_KIND)
	default:
		break;
	}
	if (s->rc == TRUTH_STACK) {
		truth_step_frames(s);
	}
}

#endif
