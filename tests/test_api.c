// SPDX-License-Identifier: MIT
/*
 * tests/test_api.c - the installed library's calls seen from a program that
 * uses them (include/etwforge/etwforge.h only): what each says when it
 * cannot do what it was asked, so that no failure passes as a success.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "etwforge/etwforge.h"

TestSuite(api, .timeout = 60.);

/* A full device takes the buffered text without a word; the flush must tell. */
Test(api, scenario_print_to_a_full_device_fails)
{
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_error *err = etwforge_error_new();
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(sc);
	cr_assert_not_null(err);
	cr_assert_not_null(f, "/dev/full: %s", strerror(errno));
	cr_assert_eq(etwforge_scenario_print(sc, f, err), -ENOSPC, "%s",
		     etwforge_error_message(err));
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_DATA);
	cr_assert_eq(etwforge_error_code(err), -ENOSPC);
	cr_assert_not_null(strstr(etwforge_error_message(err), "No space left on device"), "%s",
			   etwforge_error_message(err));
	fclose(f);
	f = fopen("/dev/null", "w");
	cr_assert_not_null(f);
	cr_assert_eq(etwforge_scenario_print(sc, f, err), 0, "%s", etwforge_error_message(err));
	fclose(f);
	etwforge_scenario_free(sc);
	etwforge_error_free(err);
}
