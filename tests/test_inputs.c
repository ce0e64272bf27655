// SPDX-License-Identifier: MIT
/*
 * tests/test_inputs.c - one wording and one exit status per kind of mistake,
 * whatever the command: an input that cannot be opened (missing, a folder)
 * is `PATH: cannot open: REASON`, exit 2, for gen's scenario, replay's
 * stream, dump's and verify's ETL file and every --truth; a binary file
 * given as a stream says it is not JSON Lines; an output folder that is a
 * file is a usage error.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_util.h"

TestSuite(inputs, .init = test_dir_make, .fini = test_dir_remove, .timeout = 60.);

Test(inputs, an_input_that_cannot_be_opened_is_one_line_and_exit_2_everywhere)
{
	static const struct {
		const char *args;
		const char *want;
	} cases[] = {
		{"gen nope.yaml -o out.etl", "nope.yaml: cannot open: No such file or directory\n"},
		{"gen dir -o out.etl", "dir: cannot open: Is a directory\n"},
		{"replay nope.jsonl -o out.etl",
		 "nope.jsonl: cannot open: No such file or directory\n"},
		{"replay dir -o out.etl", "dir: cannot open: Is a directory\n"},
		{"dump nope.etl", "nope.etl: cannot open: No such file or directory\n"},
		{"dump dir", "dir: cannot open: Is a directory\n"},
		{"dump --stats nope.etl", "nope.etl: cannot open: No such file or directory\n"},
		{"verify nope.etl --truth a.jsonl",
		 "nope.etl: cannot open: No such file or directory\n"},
		{"verify a.etl --truth nope.jsonl",
		 "nope.jsonl: cannot open: No such file or directory\n"},
		{"verify a.etl --truth dir", "dir: cannot open: Is a directory\n"},
		{"dump a.etl --timeline x.svg --truth nope.jsonl",
		 "nope.jsonl: cannot open: No such file or directory\n"},
	};
	char err[1024];

	cr_assert_eq(test_run("cd '%s' && mkdir dir && '%s' gen -q --duration 20ms -o a.etl "
			      "--truth a.jsonl",
			      test_dir, test_bin()),
		     0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(test_etwforge(cases[i].args, err, sizeof(err)), 2, "%s",
			     cases[i].args);
		cr_expect_str_eq(err, cases[i].want, "%s", cases[i].args);
	}
	cr_assert_eq(test_run("cd '%s' && test ! -e out.etl && test ! -e x.svg", test_dir), 0);
}

Test(inputs, a_binary_file_given_as_a_stream_says_it_is_not_json_lines)
{
	char err[1024];

	cr_assert_eq(test_run("cd '%s' && '%s' gen -q --duration 20ms -o a.etl --truth a.jsonl",
			      test_dir, test_bin()),
		     0);
	cr_assert_eq(test_etwforge("replay a.etl -o out.etl", err, sizeof(err)), 2);
	cr_assert_str_eq(
		err, "a.etl:1: not a JSON Lines stream: binary data (a NUL byte at offset 0x0)\n");
	cr_assert_eq(test_etwforge("verify a.etl --truth a.etl", err, sizeof(err)), 2);
	cr_assert_str_eq(
		err, "a.etl:1: not a JSON Lines stream: binary data (a NUL byte at offset 0x0)\n");
	/* a NUL after good lines: said on its own line, at its own offset */
	cr_assert_eq(test_run("cd '%s' && head -n 2 a.jsonl > n.jsonl && printf 'x\\000' >> "
			      "n.jsonl && stat -c %%s n.jsonl > size.txt",
			      test_dir),
		     0);
	cr_assert_eq(test_etwforge("replay n.jsonl -o out.etl", err, sizeof(err)), 2);
	cr_assert_not_null(strstr(err, "n.jsonl:3: not a JSON Lines stream: binary data"), "%s",
			   err);
	cr_assert_eq(test_run("cd '%s' && test ! -e out.etl", test_dir), 0);
}

Test(inputs, an_output_folder_that_is_a_file_is_a_usage_error)
{
	char err[1024];

	cr_assert_eq(test_run("cd '%s' && touch f.etl", test_dir), 0);
	cr_assert_eq(test_etwforge("corpus -q --out f.etl", err, sizeof(err)), 2);
	cr_assert_str_eq(err, "etwforge corpus: --out f.etl: not a directory\n");
}
