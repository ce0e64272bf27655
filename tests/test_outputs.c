// SPDX-License-Identifier: MIT
/*
 * tests/test_outputs.c - the output rules every command follows (DESIGN.md
 * "Outputs", README "Output rules"), from the command line: a device is
 * written in place and never replaced (a private one made with mknod), a
 * symbolic link is followed and kept, two outputs naming one file are
 * refused before anything is made, a signal or a write error leaves every
 * target as it was and no temporary file, standard output is checked by
 * every command; a closed standard descriptor is never an output; a
 * stream output spools in $TMPDIR and the null device takes nothing;
 * /dev/stdout and /dev/fd/N of a pipe are written in place; a reader that
 * stops reading standard output ends the run by SIGPIPE, silently; and
 * the consumer-facing edges: '-' for standard input, `help CMD`, the
 * replay chain warning, damaged files under dump.
 */
#define _DEFAULT_SOURCE /* mknod, makedev */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/test_util.h"

TestSuite(outputs, .init = test_dir_make, .fini = test_dir_remove);
TestSuite(consumers, .init = test_dir_make, .fini = test_dir_remove);

static void put_text(const char *name, const char *text)
{
	FILE *f = fopen(test_path(name), "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static char *slurp(const char *name)
{
	static char buf[65536];
	FILE *f = fopen(test_path(name), "r");
	size_t n;

	cr_assert_not_null(f, "%s", name);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Entries of the scratch folder, sorted by ls, one per line (hidden ones too). */
static char *listing(void)
{
	cr_assert_eq(test_run("cd '%s' && LC_ALL=C ls -A | grep -v '^err.txt$' > ../ls-%d.txt",
			      test_dir, (int)getpid()),
		     0);
	static char buf[4096];
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/tmp/ls-%d.txt", (int)getpid());
	f = fopen(path, "r");
	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	return buf;
}

static unsigned lines_of(const char *s)
{
	unsigned n = 0;

	for (; *s; s++) {
		n += *s == '\n';
	}
	return n;
}

/* A private character device (/dev/null's or /dev/full's numbers), or skip. */
static bool make_device(const char *name, unsigned minor)
{
	if (mknod(test_path(name), S_IFCHR | 0666, makedev(1, minor)) != 0) {
		cr_log_warn("mknod not allowed here (%s): device tests skipped", strerror(errno));
		return false;
	}
	return true;
}

static bool is_chr(const char *name)
{
	struct stat st;

	return lstat(test_path(name), &st) == 0 && S_ISCHR(st.st_mode);
}

#define GEN "'%s' gen -q --duration 20ms"

Test(outputs, a_device_is_written_in_place_never_replaced)
{
	if (!make_device("null", 3) || !make_device("full", 7)) {
		cr_skip_test("mknod is not allowed here");
	}
	/* writing into the /dev/null twin works and leaves it a device */
	cr_assert_eq(test_run(GEN " -o '%s' --truth '%s'", test_bin(), test_path("a.etl"),
			      test_path("null")),
		     0);
	cr_assert(is_chr("null"));
	/* the /dev/full twin: a write error, exit 1, still a device, no ETL made */
	cr_assert_eq(test_run(GEN " -o '%s' --truth '%s' 2>'%s'", test_bin(), test_path("b.etl"),
			      test_path("full"), test_path("err.txt")),
		     1);
	cr_assert(is_chr("full"));
	cr_assert_eq(access(test_path("b.etl"), F_OK), -1, "a failed run leaves no ETL");
	cr_assert_neq(strstr(slurp("err.txt"), "full: write failed: No space left on device"), NULL,
		      "%s", slurp("err.txt"));
	cr_assert_eq(lines_of(slurp("err.txt")), 1);
	/* an ETL to the device: the other session is discarded, no name is derived from it */
	cr_assert_eq(test_run("'%s' gen --duration 20ms -o '%s' 2>'%s'", test_bin(),
			      test_path("null"), test_path("err.txt")),
		     0);
	cr_assert(is_chr("null"));
	cr_assert_neq(strstr(slurp("err.txt"), "discarded"), NULL, "%s", slurp("err.txt"));
	cr_assert_str_eq(listing(), "a-2.etl\na.etl\nfull\nnull\n");
}

Test(outputs, a_symlink_is_followed_and_kept)
{
	struct stat before, after, link;

	put_text("real.etl", "old");
	cr_assert_eq(symlink("real.etl", test_path("link.etl")), 0);
	cr_assert_eq(stat(test_path("real.etl"), &before), 0);
	cr_assert_eq(test_run(GEN " -o '%s'", test_bin(), test_path("link.etl")), 0);
	cr_assert_eq(lstat(test_path("link.etl"), &link), 0);
	cr_assert(S_ISLNK(link.st_mode), "the link is still a link");
	cr_assert_eq(stat(test_path("real.etl"), &after), 0);
	cr_assert(after.st_size > 3, "the file it points to was replaced");
	cr_assert_neq(before.st_ino, after.st_ino, "replaced atomically (a new inode)");
	/* a dangling link: the file it names is created */
	cr_assert_eq(symlink("new.etl", test_path("dangling.etl")), 0);
	cr_assert_eq(test_run(GEN " -o '%s'", test_bin(), test_path("dangling.etl")), 0);
	cr_assert_eq(lstat(test_path("dangling.etl"), &link), 0);
	cr_assert(S_ISLNK(link.st_mode));
	cr_assert_eq(stat(test_path("new.etl"), &after), 0);
	cr_assert(S_ISREG(after.st_mode));
}

Test(outputs, two_outputs_naming_one_file_are_refused_before_anything_is_made)
{
	static const struct {
		const char *args; /* %1$s: the scratch folder */
		const char *want;
	} cases[] = {
		{"-o %1$s/x.etl --truth %1$s/x.etl", "-o %1$s/x.etl and --truth %1$s/x.etl"},
		{"-o %1$s/x.etl --truth %1$s/x-2.etl",
		 "the derived name %1$s/x-2.etl and --truth %1$s/x-2.etl"},
		{"-o %1$s/x.etl --set sessions.1.file=%1$s/y.etl --truth %1$s/y.etl",
		 "sessions.1.file %1$s/y.etl and --truth %1$s/y.etl"},
		{"-o %1$s/x.etl --truth %1$s/ln.etl", "-o %1$s/x.etl and --truth %1$s/ln.etl"},
		{"-o %1$s/x.etl --truth %1$s/../%2$s/x.etl", "-o %1$s/x.etl and --truth"},
		{"-o %1$s/x.etl --json=%1$s/x.etl", "-o %1$s/x.etl and --json %1$s/x.etl"},
		{"-o - --json", "-o - and --json - are the same file"},
		{"-o - --truth -", "-o - and --truth - are the same file"},
		{"-o %1$s/x.etl --set sessions.1.file=%1$s/x.etl",
		 "-o %1$s/x.etl and sessions.1.file %1$s/x.etl are the same file"},
		{"--set sessions.0.file=%1$s/x.etl --set sessions.1.file=%1$s/x.etl",
		 "sessions.1.file: \"%1$s/x.etl\" is also the file of sessions.0"},
	};
	char args[1024], want[1024], *base = strrchr(test_dir, '/') + 1;

	cr_assert_eq(symlink("x.etl", test_path("ln.etl")), 0);
	put_text("x.etl", "keep me");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(args, sizeof(args), cases[i].args, test_dir, base);
		snprintf(want, sizeof(want), cases[i].want, test_dir, base);
		cr_assert_eq(test_run(GEN " %s >/dev/null 2>'%s'", test_bin(), args,
				      test_path("err.txt")),
			     2, "%s", args);
		cr_assert_neq(strstr(slurp("err.txt"), want), NULL, "%s\n got: %s", args,
			      slurp("err.txt"));
		cr_assert_eq(lines_of(slurp("err.txt")), 1, "%s", slurp("err.txt"));
		cr_assert_str_eq(listing(), "ln.etl\nx.etl\n", "%s: nothing was created", args);
		cr_assert_str_eq(slurp("x.etl"), "keep me");
	}
}

/*
 * An output that is a file the run reads (the scenario, the stream, the ETL
 * drawn, the names' truth) is refused before anything is made: renaming it
 * into place would destroy the input. Hand-typed messages.
 */
Test(outputs, an_output_that_is_an_input_is_refused)
{
	static const struct {
		const char *cmd; /* %1$s: the binary, %2$s: the scratch folder */
		const char *want;
	} cases[] = {
		{"%1$s gen -q %2$s/s.yaml -o %2$s/s.yaml",
		 "the scenario %2$s/s.yaml and -o %2$s/s.yaml"},
		{"%1$s gen -q %2$s/s.yaml -o %2$s/a.etl --truth %2$s/s.yaml",
		 "the scenario %2$s/s.yaml and --truth %2$s/s.yaml"},
		{"%1$s gen -q %2$s/s.yaml -o %2$s/a.etl --json=%2$s/s.yaml",
		 "the scenario %2$s/s.yaml and --json %2$s/s.yaml"},
		{"%1$s gen -q %2$s/s.yaml -o %2$s/a.etl --set sessions.1.file=%2$s/s.yaml",
		 "the scenario %2$s/s.yaml and sessions.1.file %2$s/s.yaml"},
		{"%1$s gen -q %2$s/hard.yaml -o %2$s/s.yaml",
		 "the scenario %2$s/hard.yaml and -o %2$s/s.yaml"},
		{"%1$s gen -q %2$s/s.yaml -o %2$s/ln.yaml",
		 "the scenario %2$s/s.yaml and -o %2$s/ln.yaml"},
		{"%1$s gen -q - -o %2$s/s.yaml < %2$s/s.yaml",
		 "the scenario (standard input) and -o %2$s/s.yaml"},
		{"%1$s gen -q %2$s/s.yaml -o - >> %2$s/s.yaml",
		 "the scenario %2$s/s.yaml and -o -"},
		{"%1$s replay -q %2$s/t.jsonl -o %2$s/t.jsonl",
		 "the stream %2$s/t.jsonl and -o %2$s/t.jsonl"},
		{"%1$s replay -q %2$s/t.jsonl -o %2$s/a.etl --json=%2$s/t.jsonl",
		 "the stream %2$s/t.jsonl and --json %2$s/t.jsonl"},
		{"%1$s dump %2$s/x.etl --timeline %2$s/x.etl",
		 "the input %2$s/x.etl and --timeline %2$s/x.etl"},
		{"%1$s dump %2$s/x.etl --chrome-trace %2$s/x.etl",
		 "the input %2$s/x.etl and --chrome-trace %2$s/x.etl"},
		{"%1$s dump %2$s/x.etl --timeline %2$s/y.svg --truth %2$s/t.jsonl --chrome-trace "
		 "%2$s/t.jsonl",
		 "--truth %2$s/t.jsonl and --chrome-trace %2$s/t.jsonl"},
		{"%1$s dump - --timeline %2$s/x.etl < %2$s/x.etl",
		 "the input (standard input) and --timeline %2$s/x.etl"},
	};
	static const char *const files[] = {"s.yaml", "t.jsonl", "x.etl"};
	struct stat before[3], now;
	char cmd[2048], want[1024];

	put_text("s.yaml", "seed: 9\nduration: 20ms\nmachine: {cpus: 2}\n");
	cr_assert_eq(link(test_path("s.yaml"), test_path("hard.yaml")), 0);
	cr_assert_eq(symlink("s.yaml", test_path("ln.yaml")), 0);
	cr_assert_eq(
		test_run("'%s' gen -q '%s' -o '%s' --set sessions.1.file=/dev/null --truth '%s'",
			 test_bin(), test_path("s.yaml"), test_path("x.etl"), test_path("t.jsonl")),
		0);
	for (unsigned k = 0; k < 3; k++) {
		cr_assert_eq(stat(test_path(files[k]), &before[k]), 0);
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), cases[i].cmd, test_bin(), test_dir);
		snprintf(want, sizeof(want), cases[i].want, test_bin(), test_dir);
		cr_assert_eq(test_run("%s 2>'%s'", cmd, test_path("err.txt")), 2, "%s", cmd);
		cr_assert_neq(strstr(slurp("err.txt"), want), NULL, "%s\n got: %s", cmd,
			      slurp("err.txt"));
		cr_assert_neq(strstr(slurp("err.txt"), "are the same file"), NULL, "%s", cmd);
		cr_assert_eq(lines_of(slurp("err.txt")), 1, "%s", slurp("err.txt"));
		cr_assert_str_eq(listing(), "hard.yaml\nln.yaml\ns.yaml\nt.jsonl\nx.etl\n",
				 "%s: nothing was created", cmd);
		for (unsigned k = 0; k < 3; k++) {
			cr_assert_eq(stat(test_path(files[k]), &now), 0);
			cr_assert(now.st_ino == before[k].st_ino &&
					  now.st_size == before[k].st_size &&
					  now.st_mtim.tv_sec == before[k].st_mtim.tv_sec &&
					  now.st_mtim.tv_nsec == before[k].st_mtim.tv_nsec,
				  "%s: %s untouched", cmd, files[k]);
		}
	}
	/* the same files as inputs only, with other outputs: no refusal */
	cr_assert_eq(test_run("'%s' dump '%s' --timeline '%s' --truth '%s'", test_bin(),
			      test_path("x.etl"), test_path("y.svg"), test_path("t.jsonl")),
		     0);
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s' --json='%s' >/dev/null", test_bin(),
			      test_path("t.jsonl"), test_path("r.etl"), test_path("r.json")),
		     0);
}

Test(outputs, an_empty_output_name_is_one_line_naming_the_option)
{
	static const struct {
		const char *cmd; /* %1$s: the binary, %2$s: the scratch folder */
		const char *want;
	} cases[] = {
		{"%1$s gen -q -o ''", "etwforge gen: -o: empty file name\n"},
		{"%1$s gen -q -o %2$s/a.etl --truth ''",
		 "etwforge gen: --truth: empty file name\n"},
		{"%1$s replay %2$s/t.jsonl -o ''", "etwforge replay: -o: empty file name\n"},
	};
	char cmd[2048];

	cr_assert_eq(test_run(GEN " -o '%s' --truth '%s'", test_bin(), test_path("x.etl"),
			      test_path("t.jsonl")),
		     0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), cases[i].cmd, test_bin(), test_dir);
		cr_assert_eq(test_run("%s 2>'%s'", cmd, test_path("err.txt")), 2, "%s", cmd);
		cr_assert_str_eq(slurp("err.txt"), cases[i].want, "%s", cmd);
		cr_assert_str_eq(listing(), "t.jsonl\nx-2.etl\nx.etl\n", "%s", cmd);
	}
}

/* Run gen in a child with default signal dispositions; signal it mid-run. */
static int interrupted_gen(int sig)
{
	pid_t pid = fork();
	int st;

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		const char *bin = test_bin();

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		freopen("/dev/null", "w", stderr);
		execl(bin, bin, "gen", "-q", SOURCE_DIR "/../tools/scenarios/server64.yaml",
		      "--duration", "60s", "-o", test_path("s.etl"), "--truth",
		      test_path("s.jsonl"), (char *)NULL);
		_exit(127);
	}
	/* wait until the run has made its temporary files */
	for (int k = 0; k < 200 && !strstr(listing(), ".s.jsonl."); k++) {
		struct timespec ts = {0, 20000000};

		nanosleep(&ts, NULL);
	}
	cr_assert_neq(strstr(listing(), ".s.jsonl."), NULL, "the run started");
	kill(pid, sig);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "it exits, it is not killed");
	return WEXITSTATUS(st);
}

Test(outputs, a_signal_leaves_every_target_as_it_was, .timeout = 60)
{
	put_text("s.etl", "old etl");
	cr_assert_eq(interrupted_gen(SIGINT), 128 + SIGINT);
	cr_assert_str_eq(listing(), "s.etl\n", "no temporary file is left");
	cr_assert_str_eq(slurp("s.etl"), "old etl");
	cr_assert_eq(interrupted_gen(SIGTERM), 128 + SIGTERM);
	cr_assert_str_eq(listing(), "s.etl\n");
	cr_assert_eq(interrupted_gen(SIGHUP), 128 + SIGHUP);
	cr_assert_str_eq(listing(), "s.etl\n");
	cr_assert_str_eq(slurp("s.etl"), "old etl");
}

Test(outputs, a_write_error_anywhere_leaves_every_target_as_it_was)
{
	put_text("a.etl", "old a");
	put_text("t.jsonl", "old t");
	/* the second session's file fails: the first and the truth stay as they were */
	cr_assert_eq(test_run(GEN " -o '%s' --set sessions.1.file=/dev/full --truth '%s' 2>'%s'",
			      test_bin(), test_path("a.etl"), test_path("t.jsonl"),
			      test_path("err.txt")),
		     1);
	cr_assert_str_eq(slurp("a.etl"), "old a");
	cr_assert_str_eq(slurp("t.jsonl"), "old t");
	cr_assert_eq(lines_of(slurp("err.txt")), 1, "%s", slurp("err.txt"));
	/* the JSON report to a full standard output: exit 1, nothing put in place */
	cr_assert_eq(test_run(GEN " -o '%s' --json > /dev/full 2>'%s'", test_bin(),
			      test_path("a.etl"), test_path("err.txt")),
		     1);
	cr_assert_str_eq(slurp("err.txt"),
			 "etwforge gen: standard output: write failed: No space left on device\n",
			 "one line, naming standard output");
	cr_assert_str_eq(slurp("a.etl"), "old a");
	cr_assert_str_eq(listing(), "a.etl\nt.jsonl\n");
	unlink(test_path("t.jsonl"));
}

/*
 * replay -o NEW: a session whose file in the stream is the name gen derived
 * (OUT-2.etl) follows -o (NEW-2.etl); gen's own files are never touched.
 * Without -o the stream's names are used (gen's run reproduced).
 */
Test(outputs, replay_derives_names_from_its_own_o)
{
	struct stat before, after;

	cr_assert_eq(test_run(GEN " -o '%s' --truth '%s'", test_bin(), test_path("g.etl"),
			      test_path("g.jsonl")),
		     0);
	cr_assert_eq(stat(test_path("g-2.etl"), &before), 0);
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s'", test_bin(), test_path("g.jsonl"),
			      test_path("r.etl")),
		     0);
	cr_assert_str_eq(listing(), "g-2.etl\ng.etl\ng.jsonl\nr-2.etl\nr.etl\n");
	cr_assert_eq(stat(test_path("g-2.etl"), &after), 0);
	cr_assert_eq(before.st_ino, after.st_ino, "gen's second file untouched");
	cr_assert_eq(test_run("cmp -s '%s' '%s'", test_path("g-2.etl"), test_path("r-2.etl")), 1,
		     "r-2.etl names itself in its header, so it differs from g-2.etl");
	/* standard output as -o: the derived session is discarded with a note */
	cr_assert_eq(test_run("'%s' replay '%s' -o - > /dev/null 2>'%s'", test_bin(),
			      test_path("g.jsonl"), test_path("err.txt")),
		     0);
	cr_assert_neq(strstr(slurp("err.txt"), "etwforge replay: session 'etwforge CSwitch' has no "
					       "file of its own and -o - is not a regular file: "
					       "discarded"),
		      NULL, "%s", slurp("err.txt"));
	/* a full standard output: exit 1, one line */
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s' --json > /dev/full 2>'%s'", test_bin(),
			      test_path("g.jsonl"), test_path("r.etl"), test_path("err.txt")),
		     1);
	cr_assert_str_eq(
		slurp("err.txt"),
		"etwforge replay: standard output: write failed: No space left on device\n");
	cr_assert_str_eq(listing(), "g-2.etl\ng.etl\ng.jsonl\nr-2.etl\nr.etl\n");
	/* without -o: the stream's own names */
	cr_assert_eq(test_run("cd '%s' && mkdir again && cd again && '%s' gen -q --duration 20ms "
			      "-o h.etl --truth ../h.jsonl && rm h.etl h-2.etl && '%s' replay -q "
			      "../h.jsonl && ls > ../again.txt",
			      test_dir, test_bin(), test_bin()),
		     0);
	cr_assert_str_eq(slurp("again.txt"), "h-2.etl\nh.etl\n");
}

Test(outputs, every_command_checks_its_standard_output)
{
	static const char *const cmds[] = {
		"--help",      "help",		"help gen",	      "gen --help", "replay --help",
		"dump --help", "verify --help", "gen --print-config", "--version",
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		cr_assert_eq(test_run("'%s' %s > /dev/full 2>'%s'", test_bin(), cmds[i],
				      test_path("err.txt")),
			     1, "%s", cmds[i]);
		cr_assert_neq(strstr(slurp("err.txt"), "standard output: write failed"), NULL,
			      "%s: %s", cmds[i], slurp("err.txt"));
		cr_assert_eq(lines_of(slurp("err.txt")), 1, "%s", cmds[i]);
	}
	cr_assert_eq(test_run(GEN " -o '%s'", test_bin(), test_path("a.etl")), 0);
	cr_assert_eq(test_run("'%s' dump '%s' > /dev/full 2>'%s'", test_bin(), test_path("a.etl"),
			      test_path("err.txt")),
		     1);
	cr_assert_eq(lines_of(slurp("err.txt")), 1, "%s", slurp("err.txt"));
	cr_assert_eq(test_run("'%s' dump --jsonl '%s' > /dev/full 2>/dev/null", test_bin(),
			      test_path("a.etl")),
		     1);
	cr_assert_eq(test_run("'%s' dump --stats '%s' > /dev/full 2>/dev/null", test_bin(),
			      test_path("a.etl")),
		     1);
}

/* A small scenario: 2 CPUs, 20 ms, so each run takes a few ms. */
#define REF_YAML "seed: 9\nduration: 20ms\nmachine: {cpus: 2}\n"

/*
 * A closed standard descriptor is never an output (gen -o - >&- used to
 * write the ETL into the --truth file that took descriptor 1, exit 0).
 * A run that needs the closed stream fails with one line, exit 1, making
 * nothing; a run that does not goes on, its files as with the stream open.
 */
Test(outputs, a_closed_standard_descriptor_is_never_an_output)
{
	static const struct {
		const char *cmd; /* %1$s: the binary, %2$s: the scratch folder */
		const char *want;
	} cases[] = {
		{"%1$s gen -q %2$s/s.yaml -o - --truth %2$s/t.jsonl >&-",
		 "etwforge gen: -o -: standard output is closed\n"},
		{"%1$s gen -q %2$s/s.yaml -o %2$s/a.etl --json >&-",
		 "etwforge gen: --json -: standard output is closed\n"},
		{"%1$s replay -q %2$s/s.jsonl -o %2$s/r.etl --json >&-",
		 "etwforge replay: --json -: standard output is closed\n"},
		{"%1$s replay -q %2$s/s.jsonl -o - >&-",
		 "etwforge replay: -o -: standard output is closed\n"},
		{"%1$s dump %2$s/s.etl >&-", "etwforge dump: standard output is closed\n"},
		{"%1$s dump --stats %2$s/s.etl >&-", "etwforge dump: standard output is closed\n"},
		{"%1$s dump %2$s/s.etl --timeline - >&-",
		 "etwforge dump: --timeline -: standard output is closed\n"},
		{"%1$s verify %2$s/s.etl --truth %2$s/s.jsonl >&-",
		 "etwforge verify: standard output is closed (-q says nothing)\n"},
		{"%1$s gen --help >&-", "etwforge gen: standard output is closed\n"},
		{"%1$s dump - <&-", "etwforge dump: standard input is closed\n"},
		{"%1$s gen -q - -o %2$s/a.etl <&-", "etwforge gen: standard input is closed\n"},
		{"%1$s replay -q - -o %2$s/a.etl <&-",
		 "etwforge replay: standard input is closed\n"},
		{"%1$s verify %2$s/s.etl --truth - <&-",
		 "etwforge verify: standard input is closed\n"},
	};
	char cmd[2048];

	put_text("s.yaml", REF_YAML);
	cr_assert_eq(test_run("cd '%s' && mkdir one two && cd one && '%s' gen ../s.yaml -o a.etl "
			      "--truth a.jsonl 2>/dev/null && cd .. && '%s' gen -q s.yaml -o s.etl "
			      "--truth s.jsonl",
			      test_dir, test_bin(), test_bin()),
		     0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(cmd, sizeof(cmd), cases[i].cmd, test_bin(), test_dir);
		cr_assert_eq(test_run("%s 2>'%s'", cmd, test_path("err.txt")), 1, "%s", cmd);
		cr_assert_str_eq(slurp("err.txt"), cases[i].want, "%s", cmd);
		cr_assert_str_eq(listing(), "one\ns-2.etl\ns.etl\ns.jsonl\ns.yaml\ntwo\n",
				 "%s: nothing was made", cmd);
	}
	/*
	 * Not using the closed stream: the run goes on, and its files are the
	 * same bytes (without the guard, a closed standard error would let the
	 * ETL's temporary take descriptor 2 and the summary land in it).
	 */
	for (int fd = 0; fd <= 2; fd++) {
		cr_assert_eq(test_run("cd '%s/two' && rm -f a.etl a-2.etl a.jsonl && '%s' gen "
				      "../s.yaml -o a.etl --truth a.jsonl %d>&- 2>/dev/null",
				      test_dir, test_bin(), fd),
			     0, "descriptor %d closed", fd);
		cr_assert_eq(test_run("cd '%s' && cmp -s one/a.etl two/a.etl && cmp -s "
				      "one/a-2.etl two/a-2.etl && cmp -s one/a.jsonl two/a.jsonl",
				      test_dir),
			     0, "descriptor %d closed: the same files", fd);
	}
	cr_assert_eq(
		test_run("cd '%s/two' && '%s' gen ../s.yaml -o a.etl 2>&-", test_dir, test_bin()),
		0);
	cr_assert_eq(test_run("cmp -s '%s/one/a.etl' '%s/two/a.etl'", test_dir, test_dir), 0,
		     "the summary on a closed standard error went nowhere");
	cr_assert_eq(test_run("'%s' dump '%s' --timeline '%s' >&-", test_bin(), test_path("s.etl"),
			      test_path("two/x.svg")),
		     0);
	cr_assert_eq(access(test_path("two/x.svg"), F_OK), 0);
	cr_assert_eq(test_run("'%s' verify -q '%s' --truth '%s' >&- <&-", test_bin(),
			      test_path("s.etl"), test_path("s.jsonl")),
		     0);
}

/* How many of @pid's descriptors lead to a file in @dir, and to a deleted file anywhere. */
static void count_fds(pid_t pid, const char *dir, unsigned *in_dir, unsigned *deleted)
{
	char path[64], link[4096];
	struct dirent *e;
	DIR *d;

	*in_dir = *deleted = 0;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d) {
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char fd_path[512];
		ssize_t n;

		snprintf(fd_path, sizeof(fd_path), "%s/%s", path, e->d_name);
		n = readlink(fd_path, link, sizeof(link) - 1);
		if (n <= 0) {
			continue;
		}
		link[n] = '\0';
		*in_dir += !strncmp(link, dir, strlen(dir)) && link[strlen(dir)] == '/';
		*deleted += strstr(link, " (deleted)") != NULL;
	}
	closedir(d);
}

/*
 * gen server64 for a minute, -o @out, TMPDIR @tmp, standard output a pipe
 * nobody reads (the ETL goes there only at the end); the child's pid.
 */
static pid_t long_gen(const char *out, const char *tmp, const char *truth, int *pipe_rd)
{
	int p[2];
	pid_t pid;

	cr_assert_eq(pipe(p), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		const char *bin = test_bin();

		dup2(p[1], STDOUT_FILENO);
		for (int fd = STDERR_FILENO + 1; fd < 1024; fd++) {
			close(fd); /* the pipe, and what the test runner holds (its arena) */
		}
		setenv("TMPDIR", tmp, 1);
		signal(SIGTERM, SIG_DFL);
		execl(bin, bin, "gen", "-q", SOURCE_DIR "/../tools/scenarios/server64.yaml",
		      "--duration", "60s", "-o", out, "--truth", truth, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	*pipe_rd = p[0];
	return pid;
}

static void stop_gen(pid_t pid, int pipe_rd)
{
	int st;

	kill(pid, SIGTERM);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	close(pipe_rd);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM, "status %d", st);
}

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/*
 * A stream output spools its ETL in $TMPDIR (not /tmp whatever TMPDIR
 * says), one spool: the discarded session (no file of its own, -o a
 * stream) has none. The null device takes nothing: no spool at all.
 */
Test(outputs, a_stream_spools_in_tmpdir_and_the_null_device_takes_nothing, .timeout = 60)
{
	char tmp[128];
	unsigned in_tmp = 0, deleted = 0;
	int rd;
	pid_t pid;

	snprintf(tmp, sizeof(tmp), "%s/tmp", test_dir);
	cr_assert_eq(mkdir(tmp, 0700), 0);
	pid = long_gen("-", tmp, test_path("t.jsonl"), &rd);
	for (int k = 0; k < 500 && in_tmp == 0; k++) {
		nap_ms(20);
		count_fds(pid, tmp, &in_tmp, &deleted);
	}
	nap_ms(300); /* every writer is open by now: count again */
	count_fds(pid, tmp, &in_tmp, &deleted);
	stop_gen(pid, rd);
	cr_assert_eq(in_tmp, 1, "one spool, in TMPDIR: the first session's");
	cr_assert_eq(deleted, 1, "no other hidden file (the discarded session has none)");
	cr_assert_eq(test_run("[ -z \"$(ls -A '%s')\" ]", tmp), 0, "the spool had no name");

	/* -o /dev/null: no spool for either session; the truth's temporary shows the run started */
	pid = long_gen("/dev/null", tmp, test_path("t.jsonl"), &rd);
	for (int k = 0; k < 500 && !strstr(listing(), ".t.jsonl."); k++) {
		nap_ms(20);
	}
	cr_assert_neq(strstr(listing(), ".t.jsonl."), NULL, "the run started");
	for (int k = 0; k < 10; k++) {
		nap_ms(30);
		count_fds(pid, tmp, &in_tmp, &deleted);
		cr_assert_eq(in_tmp + deleted, 0, "no spool for the null device");
	}
	stop_gen(pid, rd);
	cr_assert_str_eq(listing(), "tmp\n");
}

/*
 * The spool's folder is named when it fails: TMPDIR not a folder, or full
 * (a file-size limit stands in for a full disk: the write fails the same
 * way, EFBIG for ENOSPC). One line, exit 1, every target as it was.
 */
Test(outputs, a_spool_that_fails_is_one_line_naming_tmpdir)
{
	char want[512];

	put_text("s.yaml", REF_YAML);
	put_text("notdir", "a file");
	put_text("keep.json", "old");
	cr_assert_eq(test_run("{ TMPDIR='%s' '%s' gen -q '%s' -o - --json='%s' --truth '%s' "
			      "2>'%s'; echo $? > '%s'; } | cat > /dev/null",
			      test_path("notdir"), test_bin(), test_path("s.yaml"),
			      test_path("keep.json"), test_path("t.jsonl"), test_path("err.txt"),
			      test_path("rc")),
		     0);
	cr_assert_str_eq(slurp("rc"), "1\n");
	snprintf(want, sizeof(want), "etwforge gen: -: cannot spool in %s/notdir (TMPDIR): %s\n",
		 test_dir, strerror(ENOTDIR));
	cr_assert_str_eq(slurp("err.txt"), want);
	cr_assert_str_eq(listing(), "keep.json\nnotdir\nrc\ns.yaml\n");
	cr_assert_str_eq(slurp("keep.json"), "old");
	/* the spool outgrows what the folder takes, mid-run */
	cr_assert_eq(test_run("{ trap '' XFSZ; ulimit -f 400; TMPDIR='%s' '%s' gen -q --duration "
			      "1s -o - --json='%s' 2>'%s'; echo $? > '%s'; } | cat > /dev/null",
			      test_dir, test_bin(), test_path("keep.json"), test_path("err.txt"),
			      test_path("rc")),
		     0);
	cr_assert_str_eq(slurp("rc"), "1\n");
	snprintf(want, sizeof(want), "etwforge gen: -: cannot spool in %s (TMPDIR): %s\n", test_dir,
		 strerror(EFBIG));
	cr_assert_str_eq(slurp("err.txt"), want);
	cr_assert_str_eq(listing(), "keep.json\nnotdir\nrc\ns.yaml\n");
	cr_assert_str_eq(slurp("keep.json"), "old");
	/* and --help says where the spool goes */
	cr_assert_eq(test_run("'%s' gen --help | tr '\\n' ' ' | grep -q 'spooled until the end in "
			      "$TMPDIR (else /tmp)' && '%s' replay --help | tr '\\n' ' ' | grep -q "
			      "'spooled until the end in $TMPDIR (else /tmp)'",
			      test_bin(), test_bin()),
		     0);
}

/* The summary of a session whose file is the null device: counted, not written, no digest. */
Test(outputs, the_summary_says_which_sessions_were_discarded)
{
	char *j;

	cr_assert_eq(test_run(GEN " -o '%s' --set sessions.1.file=/dev/null --json='%s'",
			      test_bin(), test_path("a.etl"), test_path("j")),
		     0);
	j = slurp("j");
	cr_assert_neq(strstr(j, "\"file\":\"/dev/null\",\"events\":"), NULL, "%s", j);
	cr_assert_neq(strstr(j, ",\"xxh3\":null,\"discarded\":true}]"), NULL, "%s", j);
	cr_assert_eq(strstr(j, "\"discarded\":true},"), NULL, "the first session was written");
	cr_assert_eq(test_run("grep -q '\"file\":\"%s\",.*\"xxh3\":\"[0-9a-f]\\{16\\}\"' '%s'",
			      test_path("a.etl"), test_path("j")),
		     0);
	/* -o - to /dev/null: both thrown away; the text says so, after the run */
	cr_assert_eq(test_run("'%s' gen --duration 20ms -o - > /dev/null 2>'%s'", test_bin(),
			      test_path("err.txt")),
		     0);
	cr_assert_eq(test_run("grep -c 'bytes/switch, discarded (not written, no xxh3)$' '%s' | "
			      "grep -qx 2",
			      test_path("err.txt")),
		     0, "%s", slurp("err.txt"));
	cr_assert_str_eq(listing(), "a.etl\nj\n");
}

/*
 * Run @argv (its "FD" replaced by /dev/fd/N of a pipe's write end) in
 * @dir; copy what comes out of the pipe to @out. Return: the exit status.
 */
static int run_into_pipe(const char *dir, const char *const *argv, const char *out)
{
	char fd_name[32], buf[65536];
	const char *args[32];
	FILE *f = fopen(out, "w");
	int p[2], st;
	ssize_t n;
	pid_t pid;

	cr_assert_not_null(f);
	cr_assert_eq(pipe(p), 0);
	snprintf(fd_name, sizeof(fd_name), "/dev/fd/%d", p[1]);
	for (unsigned i = 0; i < 31; i++) {
		args[i] = argv[i] && !strcmp(argv[i], "FD") ? fd_name : argv[i];
		if (!argv[i]) {
			break;
		}
	}
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		close(p[0]);
		if (chdir(dir) != 0) {
			_exit(126);
		}
		execv(test_bin(), (char *const *)(uintptr_t)args);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf, sizeof(buf))) > 0) {
		cr_assert_eq(fwrite(buf, 1, (size_t)n, f), (size_t)n);
	}
	close(p[0]);
	fclose(f);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * /dev/fd/N and /dev/stdout of a pipe are written in place, like a FIFO:
 * their links read "pipe:[N]", no path to replace (`--truth >(gzip)`).
 */
Test(outputs, dev_fd_and_dev_stdout_of_a_pipe_are_written_in_place)
{
	const char *const truth_argv[] = {"etwforge", "gen",	 "-q", "../s.yaml", "-o",
					  "a.etl",    "--truth", "FD", NULL};
	const char *const dump_argv[] = {"etwforge", "dump", "a.etl", "--chrome-trace", "FD", NULL};

	put_text("s.yaml", REF_YAML);
	cr_assert_eq(test_run("cd '%s' && mkdir one two && cd one && '%s' gen -q ../s.yaml -o "
			      "a.etl --truth a.jsonl && '%s' dump a.etl --chrome-trace c.json",
			      test_dir, test_bin(), test_bin()),
		     0);
	cr_assert_eq(run_into_pipe(test_path("two"), truth_argv, test_path("two/a.jsonl")), 0);
	cr_assert_eq(test_run("cd '%s' && cmp -s one/a.jsonl two/a.jsonl && cmp -s one/a.etl "
			      "two/a.etl",
			      test_dir),
		     0, "the truth through /dev/fd/N is the truth");
	cr_assert_eq(run_into_pipe(test_path("one"), dump_argv, test_path("two/c.json")), 0);
	cr_assert_eq(test_run("cmp -s '%s/one/c.json' '%s/two/c.json'", test_dir, test_dir), 0);
	/* /dev/stdout of a pipe */
	cr_assert_eq(test_run("cd '%s/one' && { '%s' dump a.etl --chrome-trace /dev/stdout 2>'%s'; "
			      "echo $? > '%s'; } | cat > ../two/d.json",
			      test_dir, test_bin(), test_path("err.txt"), test_path("rc")),
		     0);
	cr_assert_str_eq(slurp("rc"), "0\n", "%s", slurp("err.txt"));
	cr_assert_eq(test_run("cmp -s '%s/one/c.json' '%s/two/d.json'", test_dir, test_dir), 0);
	/* it is standard output: with -o - it is the same file */
	cr_assert_eq(test_run("'%s' gen -q '%s' -o - --json=/dev/stdout 2>'%s' | cat > /dev/null",
			      test_bin(), test_path("s.yaml"), test_path("err.txt")),
		     0);
	cr_assert_str_eq(slurp("err.txt"),
			 "etwforge gen: -o - and --json /dev/stdout are the same file\n");
	cr_assert_str_eq(listing(), "one\nrc\ns.yaml\ntwo\n");
}

/*
 * A failed run says one line, not a note about a discarded session first
 * (-o a folder, -o /dev/full). A reader that stops reading standard output
 * ends the run as GNU tools end: by SIGPIPE (141 in the shell), no
 * message, nothing left behind. A closed pipe that is another output (a
 * --truth FIFO) stays a write error: one line, exit 1.
 */
Test(outputs, one_line_for_a_failure_and_silence_for_a_reader_that_left, .timeout = 60)
{
	const char *samples = getenv("ETWFORGE_SAMPLES");
	struct stat st;
	char want[512];

	cr_assert_not_null(samples);
	/* -o a folder, -o /dev/full: the error alone */
	cr_assert_eq(mkdir(test_path("d"), 0755), 0);
	cr_assert_eq(test_run("'%s' gen --duration 20ms -o '%s' 2>'%s'", test_bin(), test_path("d"),
			      test_path("err.txt")),
		     2);
	snprintf(want, sizeof(want), "etwforge gen: %s: is a directory\n", test_path("d"));
	cr_assert_str_eq(slurp("err.txt"), want);
	if (stat("/dev/full", &st) == 0 ? S_ISCHR(st.st_mode) : make_device("full", 7)) {
		const char *full = stat("/dev/full", &st) == 0 ? "/dev/full" : test_path("full");

		cr_assert_eq(test_run("'%s' gen --duration 20ms -o '%s' 2>'%s'", test_bin(), full,
				      test_path("err.txt")),
			     1);
		snprintf(want, sizeof(want),
			 "etwforge gen: %s: write failed: No space left on device\n", full);
		cr_assert_str_eq(slurp("err.txt"), want);
		unlink(test_path("full"));
	}
	/* dump | head: the listing stops quietly, by SIGPIPE */
	cr_assert_eq(test_run("{ '%s' dump '%s/airbus_ShutdownPerfDiagLogger.etl' 2>'%s'; echo $? "
			      "> '%s'; } | head -n 1 >/dev/null",
			      test_bin(), samples, test_path("err.txt"), test_path("rc")),
		     0);
	cr_assert_str_eq(slurp("rc"), "141\n", "killed by SIGPIPE, as GNU tools");
	cr_assert_str_eq(slurp("err.txt"), "", "no message");
	/* gen -o - | head: the same, and the truth is not put in place */
	cr_assert_eq(test_run("{ '%s' gen --duration 20ms -o - --truth '%s' 2>'%s'; echo $? > "
			      "'%s'; } | head -c 100 >/dev/null",
			      test_bin(), test_path("t.jsonl"), test_path("err.txt"),
			      test_path("rc")),
		     0);
	cr_assert_str_eq(slurp("rc"), "141\n");
	cr_assert_str_eq(slurp("err.txt"), "");
	cr_assert_str_eq(listing(), "d\nrc\n", "no truth, no temporary file");
	/* the JSON summary to a reader gone long before the end (true): nothing put in place */
	cr_assert_eq(test_run("{ '%s' gen -q --duration 200ms -o '%s' --json 2>'%s'; echo $? > "
			      "'%s'; } | true",
			      test_bin(), test_path("a.etl"), test_path("err.txt"),
			      test_path("rc")),
		     0);
	cr_assert_str_eq(slurp("rc"), "141\n");
	cr_assert_str_eq(slurp("err.txt"), "");
	cr_assert_str_eq(listing(), "d\nrc\n");
	/* a --truth FIFO whose reader left: a write error, one line, no ETL */
	cr_assert_eq(mkfifo(test_path("fifo"), 0600), 0);
	cr_assert_eq(test_run("(head -c 10 '%s' > /dev/null &); '%s' gen -q --duration 300ms -o "
			      "'%s' --truth '%s' 2>'%s'",
			      test_path("fifo"), test_bin(), test_path("a.etl"), test_path("fifo"),
			      test_path("err.txt")),
		     1);
	snprintf(want, sizeof(want), "etwforge gen: %s: write failed: Broken pipe\n",
		 test_path("fifo"));
	cr_assert_str_eq(slurp("err.txt"), want);
	cr_assert_str_eq(listing(), "d\nfifo\nrc\n");
}

Test(consumers, help_cmd_is_cmd_help)
{
	cr_assert_eq(test_run("'%s' help gen > '%s' && '%s' gen --help > '%s' && cmp -s '%s' '%s'",
			      test_bin(), test_path("h1"), test_bin(), test_path("h2"),
			      test_path("h1"), test_path("h2")),
		     0);
	cr_assert_eq(test_run("'%s' help nosuch 2>/dev/null", test_bin()), 2);
}

Test(consumers, dash_is_standard_input)
{
	put_text("s.yaml", "seed: 9\nduration: 20ms\nmachine: {cpus: 2}\n");
	cr_assert_eq(test_run("'%s' gen -q '%s' -o '%s' && mv '%s' '%s'", test_bin(),
			      test_path("s.yaml"), test_path("a.etl"), test_path("a.etl"),
			      test_path("b.etl")),
		     0);
	cr_assert_eq(test_run("'%s' gen -q - -o '%s' --truth '%s' < '%s'", test_bin(),
			      test_path("a.etl"), test_path("a.jsonl"), test_path("s.yaml")),
		     0);
	cr_assert_eq(test_run("cmp -s '%s' '%s'", test_path("a.etl"), test_path("b.etl")), 0,
		     "the same scenario from stdin and from the file");
	cr_assert_eq(test_run("'%s' dump --stats - < '%s' > '%s'", test_bin(), test_path("a.etl"),
			      test_path("s1")),
		     0);
	cr_assert_neq(strstr(slurp("s1"), "<stdin>"), NULL);
	cr_assert_eq(test_run("'%s' verify -q - --truth '%s' < '%s'", test_bin(),
			      test_path("a.jsonl"), test_path("a.etl")),
		     0);
	cr_assert_eq(test_run("'%s' verify -q '%s' --truth - < '%s'", test_bin(),
			      test_path("a.etl"), test_path("a.jsonl")),
		     0);
}

Test(consumers, gen_json_is_one_object_on_stdout_with_the_run)
{
	cr_assert_eq(test_run(GEN " -o '%s' --seed 5 --json > '%s'", test_bin(), test_path("a.etl"),
			      test_path("j")),
		     0);
	char *j = slurp("j");
	cr_assert_eq(lines_of(j), 1);
	cr_assert_neq(strstr(j, "\"seed\":5,\"duration_ns\":20000000,\"cpus\":8,\"wall_seconds\":"),
		      NULL, "%s", j);
	cr_assert_neq(strstr(j, "\"xxh3\":\""), NULL);
	cr_assert_eq(test_run(GEN " -o '%s' --json='%s'", test_bin(), test_path("b.etl"),
			      test_path("k")),
		     0);
	cr_assert_neq(strstr(slurp("k"), "\"switches\":"), NULL);
}

Test(consumers, replay_warns_once_when_switches_do_not_chain)
{
	put_text("s.jsonl",
		 "{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":1}\n"
		 "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":10},\"old_tid\":0,"
		 "\"new_tid\":8}\n"
		 "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":20},\"old_tid\":8,"
		 "\"new_tid\":12}\n"
		 "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":30},\"old_tid\":16,"
		 "\"new_tid\":0}\n"
		 "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":40},\"old_tid\":4,"
		 "\"new_tid\":0}\n");
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s' 2>'%s'", test_bin(),
			      test_path("s.jsonl"), test_path("a.etl"), test_path("err.txt")),
		     0, "written as given");
	cr_assert_neq(strstr(slurp("err.txt"), "s.jsonl:4: 2 switches do not chain"), NULL, "%s",
		      slurp("err.txt"));
	cr_assert_eq(lines_of(slurp("err.txt")), 1);
	cr_assert_eq(access(test_path("a.etl"), F_OK), 0);
}

Test(consumers, not_an_etl_file_says_so)
{
	put_text("t.etl", "this is text, not a trace\n");
	cr_assert_eq(test_run("'%s' dump '%s' 2>'%s'", test_bin(), test_path("t.etl"),
			      test_path("err.txt")),
		     1);
	cr_assert_neq(strstr(slurp("err.txt"), "t.etl: offset 0x0: not an ETL file: "), NULL, "%s",
		      slurp("err.txt"));
	cr_assert_eq(lines_of(slurp("err.txt")), 1);
}

Test(consumers, a_cut_trace_is_salvaged)
{
	const char *samples = getenv("ETWFORGE_SAMPLES");
	char *err;

	cr_assert_not_null(samples);
	/* 49 buffers of 64 KiB; cut inside buffer 24 (27136 bytes of it left) */
	cr_assert_eq(test_run("head -c 1600000 '%s/airbus_ShutdownPerfDiagLogger.etl' > '%s'",
			      samples, test_path("cut.etl")),
		     0);
	cr_assert_eq(test_run("'%s' dump '%s' > '%s' 2>'%s'", test_bin(), test_path("cut.etl"),
			      test_path("out"), test_path("err.txt")),
		     1);
	err = slurp("err.txt");
	cr_assert_eq(lines_of(err), 1, "%s", err);
	cr_assert_neq(strstr(err, "cut.etl: offset 0x180000: buffer 24 truncated: BufferSize 65536 "
				  "but 27136 bytes left in the file\n"),
		      NULL, "%s", err);
	cr_assert_eq(test_run("grep -c '^buffer ' '%s' | grep -qx 25", test_path("out")), 0,
		     "buffers 0..24 are listed, the cut one with the records before the cut");
	cr_assert_eq(test_run("tail -n 1 '%s' | grep -q 'SYSTEM64.*size 106 ts 295205201121'",
			      test_path("out")),
		     0, "the last whole record before the cut");
	cr_assert_eq(
		test_run("'%s' dump '%s' 2>&1 >/dev/null | tail -n 1 | grep -qx '%s: offset "
			 "0x180000: buffer 24 truncated: BufferSize 65536 but 27136 bytes left "
			 "in the file'",
			 test_bin(), test_path("cut.etl"), test_path("cut.etl")),
		0, "then the one-line error");
	cr_assert_eq(test_run("'%s' dump --keep-going '%s' > '%s' 2>'%s'", test_bin(),
			      test_path("cut.etl"), test_path("out2"), test_path("err.txt")),
		     1);
	cr_assert_eq(lines_of(slurp("err.txt")), 2, "%s", slurp("err.txt"));
	cr_assert_neq(strstr(slurp("err.txt"), "1 damaged buffer skipped"), NULL);
}

Test(consumers, keep_going_skips_a_damaged_buffer_and_goes_on)
{
	const char *samples = getenv("ETWFORGE_SAMPLES");
	char *err;

	cr_assert_not_null(samples);
	/* buffer 5's SavedOffset and Offset past BufferSize, at 5 * 64 KiB + 4 and + 0x30 */
	cr_assert_eq(test_run("cp '%s/airbus_ShutdownPerfDiagLogger.etl' '%s' && printf '\\377\\377"
			      "\\377\\377' | dd of='%s' bs=1 seek=$((5*65536+4)) conv=notrunc "
			      "2>/dev/null && printf '\\377\\377\\377\\377' | dd of='%s' bs=1 "
			      "seek=$((5*65536+48)) conv=notrunc 2>/dev/null",
			      samples, test_path("bad.etl"), test_path("bad.etl"),
			      test_path("bad.etl")),
		     0);
	cr_assert_eq(test_run("'%s' dump '%s' > '%s' 2>'%s'", test_bin(), test_path("bad.etl"),
			      test_path("out"), test_path("err.txt")),
		     1);
	cr_assert_eq(test_run("grep -c '^buffer ' '%s' | grep -qx 5", test_path("out")), 0,
		     "buffers before the damage only");
	cr_assert_eq(test_run("'%s' dump --keep-going '%s' > '%s' 2>'%s'", test_bin(),
			      test_path("bad.etl"), test_path("out"), test_path("err.txt")),
		     1);
	err = slurp("err.txt");
	cr_assert_neq(strstr(err, "offset 0x50004: buffer 5 SavedOffset 4294967295 past its "
				  "BufferSize 65536 (buffer 5: the rest of it skipped)"),
		      NULL, "%s", err);
	cr_assert_eq(test_run("grep -c '^buffer ' '%s' | grep -qx 48", test_path("out")), 0,
		     "every other buffer is listed");
	cr_assert_eq(test_run("'%s' dump --stats --keep-going '%s' 2>/dev/null | grep -Eq "
			      "'^buffers +48$'",
			      test_bin(), test_path("bad.etl")),
		     0);
}
