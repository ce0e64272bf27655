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
	char name[8192]; /* the record's strings, one after the other ("|" between) */
};

/* Append string *@m to @s->name and clear the pointer (each reader keeps its own copy). */
static inline void truth_step_keep(struct truth_step *s, const char **m)
{
	size_t n = strlen(s->name);

	snprintf(s->name + n, sizeof(s->name) - n, "%s|", *m ? *m : "(null)");
	*m = NULL;
}

/* The string members of an identity line (its TEXT and SID rows) go to @s->name. */
#define TRUTH_STEP_ROW(x, name, ctype, how, ...) TRUTH_STEP_##how(x, name)
#define TRUTH_STEP_TEXT(x, name)		 truth_step_keep(s, &s->rec.u.x.name);
#define TRUTH_STEP_SID(x, name)			 truth_step_keep(s, &s->rec.u.x.name);
#define TRUTH_STEP_U(x, name)
#define TRUTH_STEP_I(x, name)
#define TRUTH_STEP_BUF(x, name)
#define TRUTH_STEP_TS(x, name)
#define TRUTH_STEP_ADDR(x, name)
#define TRUTH_STEP_BOOL(x, name)
#define TRUTH_STEP_EVENT(x, name)
#define TRUTH_STEP_NO(x, name)

/* Read @r's next record into @s; its strings are copied (each reader has its own). */
static inline void truth_step_next(struct truth_reader *r, struct truth_step *s)
{
	memset(s, 0, sizeof(*s));
	s->rc = truth_next(r, &s->rec, &s->e);
	switch (s->rc) {
	case TRUTH_SPINLOCK:
		if (s->rec.u.sl.name) {
			truth_step_keep(s, &s->rec.u.sl.name);
		}
		break;
	case TRUTH_PROCESS:
		SIM_PROCESS_FIELDS(TRUTH_STEP_ROW, TRUTH_STEP_NO, process)
		break;
	case TRUTH_THREAD:
		SIM_THREAD_FIELDS(TRUTH_STEP_ROW, TRUTH_STEP_NO, thread)
		break;
	case TRUTH_THREAD_NAME:
		SIM_THREAD_SET_NAME_FIELDS(TRUTH_STEP_ROW, TRUTH_STEP_NO, thread_name)
		break;
	case TRUTH_INTERVAL:
		SIM_PROFILE_INTERVAL_FIELDS(TRUTH_STEP_ROW, TRUTH_STEP_NO, interval)
		break;
	case TRUTH_CONFIG:
		SIM_CPU_CONFIG_FIELDS(TRUTH_STEP_ROW, TRUTH_STEP_NO, cpu_config)
		break;
	default:
		break;
	}
}

#endif
