// SPDX-License-Identifier: MIT
/*
 * tests/test_trust_api.c - the public calls a caller relies on to stay in
 * charge: a run told to stop (etwforge_run_opts.stop) stops and leaves every
 * target as it was; replay writes only where the caller says unless
 * stream_paths; a scenario's warnings are read one by one and a later --set
 * takes one back.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"

TestSuite(trust_api, .init = test_dir_make, .fini = test_dir_remove, .timeout = 120.);

static const char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "rb");
	size_t n;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static unsigned files_in_test_dir(void)
{
	char cmd[160];
	unsigned n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", test_dir);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(cmd, sizeof(cmd), p)) {
		n++;
	}
	pclose(p);
	return n;
}

Test(trust_api, a_stopped_generate_leaves_every_target_as_it_was)
{
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_error *err = etwforge_error_new();
	volatile int stop = 1;
	char out[128], truth[128];

	snprintf(out, sizeof(out), "%s", test_write("s.etl", "old", 3));
	snprintf(truth, sizeof(truth), "%s", test_path("s.jsonl"));
	ETWFORGE_OPTS(etwforge_run_opts, o, .output = out, .truth = truth, .stop = &stop);
	cr_assert_eq(etwforge_scenario_set(sc, "duration=50ms", err), 0);
	cr_assert_eq(etwforge_generate(sc, &o, NULL, err), -ECANCELED, "%s",
		     etwforge_error_message(err));
	cr_assert_str_eq(etwforge_error_message(err), "interrupted");
	cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_DATA);
	cr_assert_str_eq(slurp(out), "old");
	cr_assert_eq(files_in_test_dir(), 1, "only the old target is there");
	stop = 0;
	cr_assert_eq(etwforge_generate(sc, &o, NULL, err), 0, "%s", etwforge_error_message(err));
	cr_assert_eq(files_in_test_dir(), 3, "s.etl, s-2.etl and s.jsonl");
	etwforge_scenario_free(sc);
	etwforge_error_free(err);
}

/* A stream naming a path outside the current folder, for the first session. */
static const char *stream_naming(const char *file)
{
	static char text[512];

	snprintf(text, sizeof(text),
		 "{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":1,"
		 "\"sessions\":[{\"flags\":[\"cswitch\"],\"file\":\"%s\"}]}\n"
		 "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":0,\"ts\":{\"qpc\":5},\"old_tid\":0,"
		 "\"new_tid\":8}\n",
		 file);
	return text;
}

Test(trust_api, replay_writes_where_the_caller_says)
{
	struct etwforge_error *err = etwforge_error_new();
	volatile int stop = 1;
	char victim[128], stream[128];
	struct stat st;

	snprintf(victim, sizeof(victim), "%s", test_write("victim", "keep", 4));
	snprintf(stream, sizeof(stream), "%s",
		 test_write("s.jsonl", stream_naming(victim), strlen(stream_naming(victim))));
	{
		ETWFORGE_OPTS(etwforge_run_opts, o);
		cr_assert_eq(etwforge_replay(stream, &o, NULL, err), -EINVAL);
		cr_assert_eq(etwforge_error_kind(err), ETWFORGE_ERROR_INPUT);
		cr_assert_not_null(strstr(etwforge_error_message(err), ":1: sessions.0.file: \""),
				   "%s", etwforge_error_message(err));
		cr_assert_not_null(strstr(etwforge_error_message(err), "is not a plain file name"));
		cr_assert_str_eq(slurp(victim), "keep");
	}
	{
		ETWFORGE_OPTS(etwforge_run_opts, o, .stream_paths = true, .stop = &stop);
		cr_assert_eq(etwforge_replay(stream, &o, NULL, err), -ECANCELED);
		cr_assert_str_eq(slurp(victim), "keep", "a stopped replay writes nothing");
		stop = 0;
		cr_assert_eq(etwforge_replay(stream, &o, NULL, err), 0, "%s",
			     etwforge_error_message(err));
		cr_assert_eq(stat(victim, &st), 0);
		cr_assert_gt(st.st_size, 4, "told so, replay wrote where the stream said");
	}
	etwforge_error_free(err);
}

Test(trust_api, scenario_warnings_one_by_one)
{
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_error *err = etwforge_error_new();

	cr_assert_eq(etwforge_scenario_load_string(
			     sc, "w.yaml",
			     "duration: 999\nlocks:\n  - {name: \"a!b\", hold: 1500}\n  - {name: "
			     "\"c!d\", hold: 7, hold_tail_max: 2ms}\n",
			     err),
		     0, "%s", etwforge_error_message(err));
	cr_assert_str_eq(
		etwforge_scenario_warning(sc, 0),
		"w.yaml:1:11: duration: 999 is read as 999ns, less than a microsecond (a "
		"bare number is nanoseconds): if 999us or 999ms was meant, write the unit");
	cr_assert_not_null(
		strstr(etwforge_scenario_warning(sc, 1), "w.yaml:4:25: locks.1.hold: 7"));
	cr_assert_null(etwforge_scenario_warning(sc, 2), "1500 is 1.5 us: no warning");
	cr_assert_eq(etwforge_scenario_set(sc, "duration=10ms", err), 0);
	cr_assert_not_null(strstr(etwforge_scenario_warning(sc, 0), "locks.1.hold: 7"));
	cr_assert_null(etwforge_scenario_warning(sc, 1));
	etwforge_scenario_free(sc);
	etwforge_error_free(err);
}
