/* SPDX-License-Identifier: MIT */
/*
 * tests/scenario_fixture.h - what the scenario suites share: a scenario on
 * the heap with its defaults (struct scenario is large: keep it off the
 * stack), and the error of the last load in serr.
 */
#ifndef TESTS_SCENARIO_FIXTURE_H
#define TESTS_SCENARIO_FIXTURE_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "tools/lib/scenario/scenario.h"

static struct etwforge_error serr;

static inline struct scenario *new_scenario(void)
{
	struct scenario *sc = malloc(sizeof(*sc));

	cr_assert_not_null(sc);
	scenario_default(sc);
	return sc;
}

/* Load and finish @text into @sc. Return: 0, or the error (its message in serr). */
static inline int load_and_finish(struct scenario *sc, const char *text)
{
	int rc = scenario_load_string(sc, "t.yaml", text, &serr);

	return rc ? rc : scenario_finish(sc, &serr);
}

#endif
