// SPDX-License-Identifier: MIT
/*
 * tests/test_gen.c - `etwforge gen` from the command line: generated traces
 * verify clean against their truth for 3 clocks x 3 targets x x86/x64 and
 * for the example scenarios; same seed -> same bytes, another seed ->
 * other bytes; bad scenarios and bad targets exit 2 (1 for write errors)
 * with one line and no output file; and, in process, the heap gen holds
 * does not grow with the threads that end and start.
 */
#include <criterion/criterion.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"

/* under ASan, malloc is not glibc's: ask ASan how much is allocated */
#if defined(__SANITIZE_ADDRESS__)
#define HEAP_BY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_BY_ASAN 1
#endif
#endif
#ifdef HEAP_BY_ASAN
/* ASan's public interface (sanitizer/allocator_interface.h), which gcc does not install */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

TestSuite(gen, .init = test_dir_make, .fini = test_dir_remove);

static bool exists(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", test_dir, name);
	return stat(path, &st) == 0;
}

static uint64_t hash_of(const char *name)
{
	char path[256];
	uint64_t h = 0;

	snprintf(path, sizeof(path), "%s/%s", test_dir, name);
	cr_assert_eq(test_file_xxh3(path, &h), 0, "%s", path);
	return h;
}

/* gen with @sets into a.etl (+ a-N.etl), then verify every session's file. */
static void gen_and_verify(const char *sets, unsigned nsessions)
{
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q -o a.etl --truth a.jsonl %s", test_dir,
			      test_bin(), sets),
		     0, "gen %s", sets);
	for (unsigned i = 0; i < nsessions; i++) {
		char name[32];

		if (i == 0) {
			snprintf(name, sizeof(name), "a.etl");
		} else {
			snprintf(name, sizeof(name), "a-%u.etl", i + 1);
		}
		cr_assert_eq(test_run("cd '%s' && '%s' verify -q %s --truth a.jsonl", test_dir,
				      test_bin(), name),
			     0, "verify %s after gen %s", name, sets);
	}
}

Test(gen, every_clock_target_and_arch_verifies)
{
	static const char *const targets[] = {"win10-1507", "win10-1709", "win11-22h2"};
	static const char *const clocks[] = {"qpc", "systime", "cycles"};
	static const char *const arches[] = {"x64", "x86"};
	char sets[512];

	for (unsigned t = 0; t < 3; t++) {
		for (unsigned c = 0; c < 3; c++) {
			for (unsigned a = 0; a < 2; a++) {
				/* the default scenario: a compact and a plain session */
				snprintf(sets, sizeof(sets),
					 "--duration 300ms --set machine.target=%s "
					 "--set machine.arch=%s --set sessions.0.clock=%s "
					 "--set sessions.1.clock=%s --seed %u",
					 targets[t], arches[a], clocks[c], clocks[(c + 1) % 3],
					 t * 6 + c * 2 + a + 1);
				gen_and_verify(sets, 2);
			}
		}
	}
}

Test(gen, example_scenarios_generate_and_verify)
{
	static const char *const names[] = {"desktop", "server64", "lock_driver", "multi_clock",
					    "lock_contention"};

	for (unsigned i = 0; i < 5; i++) {
		char sets[512];

		/* shortened: the full durations run in the quickstart and by hand */
		snprintf(sets, sizeof(sets), "'%s/../tools/scenarios/%s.yaml' --duration 200ms",
			 SOURCE_DIR, names[i]);
		cr_assert_eq(test_run("cd '%s' && rm -f a*.etl && '%s' gen -q -o a.etl --truth "
				      "a.jsonl %s",
				      test_dir, test_bin(), sets),
			     0, "%s", names[i]);
		for (unsigned k = 0; k < 8; k++) {
			char name[32];

			snprintf(name, sizeof(name), k ? "a-%u.etl" : "a.etl", k + 1);
			if (!exists(name)) {
				cr_assert_geq(k, 1u, "%s wrote no file", names[i]);
				break;
			}
			cr_assert_eq(test_run("cd '%s' && '%s' verify -q %s --truth a.jsonl",
					      test_dir, test_bin(), name),
				     0, "%s: %s", names[i], name);
		}
	}
}

Test(gen, same_seed_same_bytes_other_seed_other_bytes)
{
	uint64_t h1, h2, h3, t1, t2;

	cr_assert_eq(test_run("cd '%s' && '%s' gen -q -o a.etl --truth a.jsonl --seed 42", test_dir,
			      test_bin()),
		     0);
	h1 = hash_of("a.etl");
	t1 = hash_of("a.jsonl");
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q -o a.etl --truth a.jsonl --seed 42", test_dir,
			      test_bin()),
		     0);
	h2 = hash_of("a.etl");
	t2 = hash_of("a.jsonl");
	cr_assert_eq(h1, h2, "same seed, same ETL bytes");
	cr_assert_eq(t1, t2, "same seed, same truth");
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q -o a.etl --seed 43", test_dir, test_bin()),
		     0);
	h3 = hash_of("a.etl");
	cr_assert_neq(h1, h3, "another seed, other bytes");
}

Test(gen, long_runs_stream_in_slices)
{
	/* 20 simulated seconds on 4 CPUs: must not buffer the trace, and verifies */
	gen_and_verify("--duration 20s --cpus 4", 2);
}

/* Heap bytes in use now: glibc's counters (small blocks and mmap()ed ones), or ASan's. */
static size_t heap_in_use(void)
{
#ifdef HEAP_BY_ASAN
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#endif
}

/* The most heap gen held at any of its progress reports (the last comes after the last slice). */
static void heap_peak(void *ctx, const struct etwforge_progress *p)
{
	size_t *peak = ctx, now = heap_in_use();

	(void)p;
	*peak = now > *peak ? now : *peak;
}

/*
 * 64 threads that each end about a millisecond after they start (when they
 * next run) and are replaced, taking a spin lock, stamped with PMC
 * counters, with the truth's thread lines: the most heap gen holds (write
 * buffers, the machine, the models, the truth writer) over @duration.
 */
static size_t churn_heap(const char *duration)
{
	static const char yaml[] =
		"seed: 5\nmachine: {cpus: 8}\n"
		"sessions:\n"
		"  - {name: A, clock: qpc, flags: [cswitch, compact_cswitch]}\n"
		"  - {name: B, clock: qpc, flags: [cswitch, spinlock], file: '%s/b.etl',\n"
		"     pmc: {counters: [TotalCycles, InstructionRetired], events: [\"0x0524\"]}}\n"
		"threads:\n"
		"  - {name: handlers, count: 64, behaviour: io_bound, period: 50us, lifetime: "
		"1ms}\n"
		"  - {name: steady, count: 8, behaviour: cpu_bound}\n"
		"locks:\n"
		"  - {name: L, taken_by: [handlers, dpc], rate: 50000, hold: 1us}\n";
	struct etwforge_scenario *sc = etwforge_scenario_new();
	ETWFORGE_OPTS(etwforge_run_opts, o);
	struct etwforge_error *err = etwforge_error_new();
	char text[1024], out[256], truth[256], set[64];
	size_t peak = 0;

	cr_assert_not_null(sc);
	snprintf(text, sizeof(text), yaml, test_dir);
	cr_assert_eq(etwforge_scenario_load_string(sc, "churn.yaml", text, err), 0, "%s",
		     etwforge_error_message(err));
	snprintf(set, sizeof(set), "duration=%s", duration);
	cr_assert_eq(etwforge_scenario_set(sc, set, err), 0, "%s", etwforge_error_message(err));
	snprintf(out, sizeof(out), "%s/a.etl", test_dir);
	snprintf(truth, sizeof(truth), "%s/a.jsonl", test_dir);
	o.output = out;
	o.truth = truth;
	o.progress = heap_peak;
	o.progress_ctx = &peak;
	o.progress_ms = 1;
	cr_assert_eq(etwforge_generate(sc, &o, NULL, err), 0, "%s", etwforge_error_message(err));
	cr_assert(exists("b.etl"));
	cr_assert_gt(peak, 0);
	etwforge_scenario_free(sc);
	etwforge_error_free(err);
	return peak;
}

Test(gen, thread_churn_holds_no_memory, .timeout = 120)
{
	size_t a = churn_heap("100ms"), b = churn_heap("3s");

	/*
	 * 3 s end and replace about 13700 threads, 100 ms about 450: 8 bytes
	 * kept per thread end is 430 KB more (tried). Nothing but the truth's
	 * line buffer (its longest line) may grow: 16 KiB allowed.
	 */
	cr_assert_leq(b, a + 16384, "peak heap %zu bytes over 3 s, %zu over 100 ms", b, a);
}

static void refused(const char *args, int want_status, const char *want_msg)
{
	char msg[1024] = "";

	cr_assert_eq(test_run("cd '%s' && '%s' gen -q %s 2>err.txt", test_dir, test_bin(), args),
		     want_status, "%s", args);
	test_read("err.txt", msg, sizeof(msg));
	cr_assert_neq(strstr(msg, want_msg), NULL, "%s: stderr was: %s", args, msg);
	cr_assert_eq(strchr(msg, '\n'), msg + strlen(msg) - 1, "one line: %s", msg);
	cr_assert(!exists("out.etl"), "%s left out.etl", args);
	cr_assert(!exists("out-2.etl"), "%s left out-2.etl", args);
}

static void write_scenario(const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/s.yaml", test_dir);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

Test(gen, bad_input_exits_2_with_one_line_and_no_file)
{
	write_scenario("machine:\n  cpus: 0\n");
	refused("s.yaml -o out.etl", 2, "s.yaml:2:9: machine.cpus:");
	write_scenario("machine:\n  cpuz: 4\n");
	refused("s.yaml -o out.etl", 2, "did you mean 'cpus'");
	write_scenario("threads:\n  - count: 2\n    base_priority: 32\n");
	refused("s.yaml -o out.etl", 2, "s.yaml:3:");
	write_scenario("machine: [1, 2\n");
	refused("s.yaml -o out.etl", 2, "s.yaml:");
	refused("nonexistent.yaml -o out.etl", 2, "nonexistent.yaml");
	refused("--set sessions.0.clock=7 -o out.etl", 2, "sessions.0.clock");
	refused("--set sessions.0.buffer_size=5000 -o out.etl", 2, "multiple of 4096");
	/* the shorthand options are named as typed, not as the --set underneath */
	refused("--duration 0 -o out.etl", 2,
		"etwforge gen: --duration: 0 is out of range (1ns..86400s)\n");
	refused("--cpus 0 -o out.etl", 2, "etwforge gen: --cpus: 0 is out of range (1..1024)\n");
	refused("--seed x -o out.etl", 2, "etwforge gen: --seed: \"x\" is not an integer\n");
	refused("--set duration=0 -o out.etl", 2,
		"--set:1:10: duration: 0 is out of range (1ns..86400s)\n");
	/* a bare number on the command line is a unit forgotten, not nanoseconds */
	refused("--duration 5 -o out.etl", 2,
		"etwforge gen: --duration: 5 needs a unit (5s, 5ms, 5us or 5ns): only a scenario "
		"file reads a bare number as nanoseconds\n");
	refused("--set threads.0.period=20 -o out.etl", 2,
		"--set:1:18: threads.0.period: 20 needs a unit");
	refused("--set machine.target=win95 -o out.etl", 2, "win95");
	write_scenario("sessions:\n"
		       "  - {name: a}\n  - {name: b}\n  - {name: c}\n  - {name: d}\n  - {name: e}\n"
		       "  - {name: f}\n  - {name: g}\n  - {name: h}\n  - {name: i}\n");
	refused("s.yaml -o out.etl", 2, "s.yaml:");
	refused("--bogus -o out.etl", 2, "etwforge gen");
}

/* A run that logged nothing says so (and still writes its files: they are valid). */
Test(gen, an_empty_run_says_so)
{
	char msg[1024] = "";

	cr_assert_eq(test_run("cd '%s' && '%s' gen --duration 1us -o a.etl 2>err.txt", test_dir,
			      test_bin()),
		     0);
	test_read("err.txt", msg, sizeof(msg));
	cr_assert_neq(strstr(msg, "etwforge gen: note: no context switch or spin lock in 1us of "
				  "simulated time: the files hold their headers only\n"),
		      NULL, "%s", msg);
	cr_assert(exists("a.etl") && exists("a-2.etl"));
	cr_assert_eq(test_run("cd '%s' && '%s' gen --duration 20ms -o b.etl 2>err.txt && ! grep -q "
			      "'no context switch' err.txt",
			      test_dir, test_bin()),
		     0);
}

/* What gen accepts, its truth carries: verify and replay read the largest seed and a
 * system time that ends at 2^63-1 back; one more is refused at the scenario. */
Test(gen, the_largest_seed_and_clock_read_back)
{
	/* 9223372036834775807 + 2 s / 100 ns = 9223372036854775807 at the end */
	cr_assert_eq(
		test_run("cd '%s' && '%s' gen -q -o a.etl --truth a.jsonl --duration 2s "
			 "--seed 9223372036854775807 --set machine.start_time=9223372036834775807"
			 " && '%s' verify -q a.etl --truth a.jsonl && mkdir r && cd r && "
			 "'%s' replay -q ../a.jsonl -o a.etl && cmp ../a.etl a.etl",
			 test_dir, test_bin(), test_bin(), test_bin()),
		0);
	refused("--seed 9223372036854775808 -o out.etl", 2,
		"etwforge gen: --seed: 9223372036854775808 is out of range "
		"(0..9223372036854775807)");
	refused("--duration 2s --set machine.start_time=9223372036834775808 -o out.etl", 2,
		"--set:1:20: machine.start_time: the system time at the end of the run passes "
		"2^63-1");
}

Test(gen, write_errors_exit_1_and_leave_nothing)
{
	refused("-o /dev/full", 1, "/dev/full");
	cr_assert_eq(test_run("cd '%s' && mkdir ro && chmod 555 ro", test_dir), 0);
	if (geteuid() != 0) {
		refused("-o ro/out.etl", 1, "ro/out.etl");
	}
	refused("-o nonexistent-dir/out.etl", 1, "nonexistent-dir/out.etl");
}

Test(gen, print_config_round_trips)
{
	cr_assert_eq(test_run("cd '%s' && '%s' gen --print-config --seed 9 --cpus 3 > p.yaml",
			      test_dir, test_bin()),
		     0);
	cr_assert_eq(
		test_run("cd '%s' && '%s' gen p.yaml --print-config > q.yaml && cmp p.yaml q.yaml",
			 test_dir, test_bin()),
		0);
	cr_assert_eq(test_run("cd '%s' && grep -q 'cpus: 3' p.yaml && grep -q 'seed: 9' p.yaml",
			      test_dir),
		     0);
}

Test(gen, spin_locks_replay_byte_for_byte_and_the_predicate_is_checked)
{
	uint64_t g1, g2;

	/* two sessions: the plain one, and one with PEBS and PMC items on 0x0529 */
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q -o a.etl --truth a.jsonl "
			      "'%s/../tools/scenarios/lock_driver.yaml' --duration 100ms",
			      test_dir, test_bin(), SOURCE_DIR),
		     0);
	g1 = hash_of("a.etl");
	g2 = hash_of("a-2.etl");
	cr_assert_eq(test_run("cd '%s' && mkdir r && cd r && '%s' replay -q ../a.jsonl -o a.etl",
			      test_dir, test_bin()),
		     0);
	cr_assert_eq(hash_of("r/a.etl"), g1);
	cr_assert_eq(hash_of("r/a-2.etl"), g2);
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q a-2.etl --truth a.jsonl", test_dir, test_bin()),
		0);
	/* an unlogged release turned "logged": the predicate disagrees, exit 1 */
	cr_assert_eq(
		test_run("cd '%s' && sed '0,/\"logged\":false,\"why\":\"none\"/"
			 "s//\"logged\":true,\"why\":\"acquire_sample\"/' a.jsonl > b.jsonl && "
			 "! cmp -s a.jsonl b.jsonl",
			 test_dir),
		0);
	cr_assert_eq(test_run("cd '%s' && '%s' verify a.etl --truth b.jsonl 2> err.txt; "
			      "test $? -eq 1 && grep -q 'the sampling predicate says none' err.txt",
			      test_dir, test_bin()),
		     0);
}

Test(gen, replaying_the_truth_reproduces_the_files_byte_for_byte)
{
	uint64_t g1, g2, r1, r2;

	/* the truth is everything the logging code consumed: replay must give the same bytes */
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q -o a.etl --truth a.jsonl --duration 500ms "
			      "--set sessions.1.pebs=true",
			      test_dir, test_bin()),
		     0);
	g1 = hash_of("a.etl");
	g2 = hash_of("a-2.etl");
	cr_assert_eq(test_run("cd '%s' && mkdir r && cd r && '%s' replay -q ../a.jsonl -o a.etl",
			      test_dir, test_bin()),
		     0);
	/* the other session's file name comes from the meta line: a-2.etl, relative */
	r1 = hash_of("r/a.etl");
	r2 = hash_of("r/a-2.etl");
	cr_assert_eq(g1, r1);
	cr_assert_eq(g2, r2);
}
