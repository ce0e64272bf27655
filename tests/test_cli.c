// SPDX-License-Identifier: MIT
/*
 * tests/test_cli.c - the command line's own parsers (tools/cli/cli.c): the CPU
 * list of `dump --cpus`.
 */
#include <criterion/criterion.h>
#include <errno.h>

#include "cli.h"

#define MAX 64

static bool has(const uint8_t *m, unsigned c)
{
	return m[c / 8] & (1u << (c % 8));
}

Test(cli, cpu_list_takes_numbers_and_ranges)
{
	uint8_t m[MAX / 8];
	const char *why = NULL;

	cr_assert_eq(cli_parse_cpu_list("0-3,8,63", m, MAX, &why), 0);
	for (unsigned c = 0; c < MAX; c++) {
		cr_expect_eq(has(m, c), c <= 3 || c == 8 || c == 63, "CPU %u", c);
	}
	cr_assert_eq(cli_parse_cpu_list("5-5", m, MAX, &why), 0);
	cr_assert(has(m, 5) && !has(m, 4) && !has(m, 6), "a list replaces what was there");
}

Test(cli, cpu_list_refuses_what_is_not_a_list)
{
	static const char *const bad[] = {"",	"a",  "1,",  ",1",  "1,,2", "3-1",
					  "1-", "-1", "1 2", "0x1", "1-2-3"};
	uint8_t m[MAX / 8];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;

		cr_expect_eq(cli_parse_cpu_list(bad[i], m, MAX, &why), -EINVAL, "'%s'", bad[i]);
		cr_expect_not_null(why, "'%s' says why", bad[i]);
	}
}

Test(cli, cpu_list_refuses_cpus_past_the_limit)
{
	uint8_t m[MAX / 8];
	const char *why = NULL;

	cr_expect_eq(cli_parse_cpu_list("64", m, MAX, &why), -ERANGE);
	cr_expect_eq(cli_parse_cpu_list("60-64", m, MAX, &why), -ERANGE);
	cr_expect_eq(cli_parse_cpu_list("99999999999", m, MAX, &why), -EINVAL);
	cr_expect_eq(cli_parse_cpu_list("63", m, MAX, &why), 0);
}

Test(cli, a_duration_on_the_command_line_needs_its_unit)
{
	static const struct {
		const char *s;
		int rc;
		int64_t ns;
	} cases[] = {
		{"0", 0, 0},
		{"000", 0, 0},
		{"5s", 0, 5000000000},
		{"1.5ms", 0, 1500000},
		{"250us", 0, 250000},
		{"7ns", 0, 7},
		{"2min", 0, 120000000000},
		{"5", -ENOMSG, 0},
		{"1000000", -ENOMSG, 0},
		{"", -EINVAL, 0},
		{"5x", -EINVAL, 0},
		{"-1s", -EINVAL, 0},
		{"200000000000000000000ns", -EINVAL, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ns = -1;
		const char *why = NULL;
		int rc = cli_parse_duration(cases[i].s, &ns, &why);

		cr_expect_eq(rc, cases[i].rc, "'%s': %d", cases[i].s, rc);
		if (rc == 0) {
			cr_expect_eq(ns, cases[i].ns, "'%s'", cases[i].s);
		} else {
			cr_expect_not_null(why, "'%s'", cases[i].s);
		}
	}
}
