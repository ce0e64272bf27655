// SPDX-License-Identifier: MIT
/*
 * tests/test_stacks.c - sessions[].stacks end to end, checked from the
 * outside: the truth's stack lines follow their event's line on its CPU
 * with its time and thread, every frame lies in an image of the thread's
 * process or of the kernel by the truth's own image lines, a part is all
 * kernel or all user (kernel first), a function has the same callers in
 * every stack, idle samples have none (but in a DPC or an ISR); the file's
 * StackWalk records (read from `etwforge dump --jsonl --raw` at the spec's
 * offsets) carry
 * EventTimeStamp = the event's timestamp and follow it in its CPU's
 * buffer; verify is clean and catches a changed frame; replay and --jobs
 * give the same bytes; a stack option naming an event the session does
 * not log is one located line, exit 2, nothing written.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tests/test_util.h"

TestSuite(stacks, .init = test_dir_make, .fini = test_dir_remove, .timeout = 120.);

static const char scenario[] =
	"seed: 9\nduration: 200ms\n"
	"machine: {cpus: 2, arch: %s, target: win10-1903}\n"
	"sessions:\n"
	"  - {name: k, clock: qpc, flags: [cswitch, proc_thread, dispatcher, profile, loader], "
	"stacks: [profile, cswitch, ready_thread]}\n"
	"  - {name: c, clock: cycles, flags: [cswitch, compact_cswitch, profile], stacks: "
	"[profile], file: c.etl}\n"
	"processes:\n"
	"  - {name: app.exe, pid: 1200}\n"
	"threads:\n"
	"  - {name: render, process: app.exe, count: 2, behaviour: cpu_bound}\n"
	"  - {name: io, process: app.exe, count: 2, behaviour: io_bound}\n"
	"  - {name: kw, process: System, count: 1, behaviour: io_bound}\n";

static void gen(const char *arch)
{
	char text[2048];
	int n = snprintf(text, sizeof(text), scenario, arch);

	test_write("s.yaml", text, (size_t)n);
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q s.yaml -o d.etl --truth d.jsonl", test_dir,
			      test_bin()),
		     0);
}

static uint64_t hex(const char *s)
{
	return strtoull(s, NULL, 16);
}

struct image {
	uint64_t lo, hi;
	long pid;
};

#define MAX_IMAGES 64

static bool kernel_address(uint64_t a, bool x86)
{
	return x86 ? a >= 0x80000000u : a >= 0xFFFF800000000000ull;
}

/* The first image (any process's) @a lies in, or -1. */
static long image_of(const struct image *im, size_t n, uint64_t a)
{
	for (size_t i = 0; i < n; i++) {
		if (a >= im[i].lo && a < im[i].hi) {
			return (long)i;
		}
	}
	return -1;
}

/* Does @a lie in an image of process @pid or of the kernel (pid 0)? */
static bool mapped(const struct image *im, size_t n, uint64_t a, long pid)
{
	for (size_t i = 0; i < n; i++) {
		if ((im[i].pid == pid || im[i].pid == 0) && a >= im[i].lo && a < im[i].hi) {
			return true;
		}
	}
	return false;
}

/* The kind, cpu, qpc time and thread of a line (sample: tid, cswitch: new_tid, ready: the waker). */
struct ev {
	char kind[16], event[16];
	long cpu, tid, pid;
	uint64_t qpc, ip;
	bool in_dpc_isr; /* a sample taken in a DPC or an ISR */
};

static void ev_of(json_t *o, struct ev *e)
{
	const char *k = json_string_value(json_object_get(o, "kind"));
	const char *v = json_string_value(json_object_get(o, "event"));
	json_t *ts = json_object_get(o, "ts");

	memset(e, 0, sizeof(*e));
	snprintf(e->kind, sizeof(e->kind), "%s", k ? k : "");
	snprintf(e->event, sizeof(e->event), "%s", v ? v : "");
	e->cpu = (long)json_integer_value(json_object_get(o, "cpu"));
	e->qpc = ts ? (uint64_t)json_integer_value(json_object_get(ts, "qpc")) : 0;
	if (!strcmp(e->kind, "cswitch")) {
		e->tid = (long)json_integer_value(json_object_get(o, "new_tid"));
	} else if (!strcmp(e->kind, "ready")) {
		e->tid = (long)json_integer_value(json_object_get(o, "waker_tid"));
	} else {
		e->tid = (long)json_integer_value(json_object_get(o, "tid"));
	}
	e->pid = (long)json_integer_value(json_object_get(o, "pid"));
	e->in_dpc_isr =
		json_is_true(json_object_get(o, "dpc")) || json_is_true(json_object_get(o, "isr"));
	if (json_string_value(json_object_get(o, "ip"))) {
		e->ip = hex(json_string_value(json_object_get(o, "ip")));
	}
}

/*
 * The images of the start rundown (DCStart), wherever in the truth they lie:
 * a lived-in rundown takes a few milliseconds, live events (and their
 * stacks) fall between its records, as on Windows, so a stack may come
 * before the rundown of its images. Return: how many, in @im.
 */
static size_t rundown_images(struct image *im)
{
	FILE *f = fopen(test_path("d.jsonl"), "r");
	static char buf[1 << 16];
	size_t nim = 0;

	cr_assert_not_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		json_t *o = json_loads(buf, 0, NULL);
		struct ev e;

		cr_assert_not_null(o);
		ev_of(o, &e);
		if (!strcmp(e.kind, "image") && json_object_get(o, "size") &&
		    !strcmp(e.event, "dcstart")) {
			cr_assert_lt(nim, MAX_IMAGES);
			im[nim].lo = hex(json_string_value(json_object_get(o, "base")));
			im[nim].hi =
				im[nim].lo + hex(json_string_value(json_object_get(o, "size")));
			im[nim].pid = e.pid;
			nim++;
		}
		json_decref(o);
	}
	fclose(f);
	return nim;
}

static void check_truth(bool x86)
{
	FILE *f = fopen(test_path("d.jsonl"), "r");
	static char buf[1 << 16];
	struct image im[MAX_IMAGES];
	size_t nim = rundown_images(im);
	struct ev last[4] = {0}; /* per CPU: the last line that is not a stack */
	struct ev prev_stack[4] = {0};
	long nstacks = 0, idle_samples = 0, by[3] = {0};
	uint64_t first_caller_of[1024] = {0}; /* a leaf's caller, by a hash of the leaf */
	uint64_t leaf_of[1024] = {0};

	cr_assert_not_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		json_t *o = json_loads(buf, 0, NULL);
		struct ev e;

		cr_assert_not_null(o);
		ev_of(o, &e);
		if (!strcmp(e.kind, "stack")) {
			const char *fr = json_string_value(json_object_get(o, "frames"));
			const struct ev *owner = &last[e.cpu];
			const struct ev *ps = &prev_stack[e.cpu];
			bool kernel = false, second;
			unsigned n = 0;
			uint64_t fv[200];

			cr_assert_lt(e.cpu, 4);
			nstacks++;
			by[!strcmp(e.event, "profile") ? 0 : !strcmp(e.event, "cswitch") ? 1 : 2]++;
			/* the event it follows on its CPU: same time, same thread */
			cr_assert_eq(e.qpc, owner->qpc, "stack line %ld: not its event's time",
				     nstacks);
			cr_assert_eq(e.tid, owner->tid, "stack of %s tid %ld after %s of tid %ld",
				     e.event, e.tid, owner->kind, owner->tid);
			cr_assert(strcmp(owner->kind, "sample") || owner->tid != 0 ||
					  owner->in_dpc_isr,
				  "an idle sample has no stack (but in a DPC or an ISR)");
			cr_assert_str_eq(e.event, !strcmp(owner->kind, "sample") ? "profile"
						  : !strcmp(owner->kind, "cswitch")
							  ? "cswitch"
							  : "ready_thread");
			for (const char *p = fr; *p; n++) {
				char *end;

				cr_assert_lt(n, 200);
				fv[n] = strtoull(p, &end, 16);
				p = *end ? end + 1 : end;
			}
			cr_assert(n >= 1 && n <= 192);
			kernel = kernel_address(fv[0], x86);
			for (unsigned k = 0; k < n; k++) {
				cr_assert_eq(kernel_address(fv[k], x86), kernel,
					     "a part is all kernel or all user");
				cr_assert(mapped(im, nim, fv[k], e.pid),
					  "frame 0x%" PRIx64 " of pid %ld in no image of its own",
					  fv[k], e.pid);
			}
			/* a user part after a kernel part of the same event; never two alike */
			second =
				ps->qpc == e.qpc && ps->tid == e.tid && !strcmp(ps->event, e.event);
			if (second) {
				cr_assert(!kernel, "the kernel part comes first");
			}
			/* a sample's IP is the first frame of the part it is in */
			if (!strcmp(e.event, "profile") &&
			    kernel == kernel_address(owner->ip, x86)) {
				cr_assert_eq(fv[0], owner->ip, "the sampled IP leads its part");
			}
			/* a sampled function has the same caller in its image: the frame after
			 * the IP (a switch's KiSwapContext is called by each thread's wait) */
			if (!strcmp(e.event, "profile") && n >= 2 &&
			    image_of(im, nim, fv[0]) == image_of(im, nim, fv[1])) {
				unsigned slot = (unsigned)((fv[0] >> 4) % 1024);

				if (leaf_of[slot] == fv[0]) {
					cr_assert_eq(first_caller_of[slot], fv[1],
						     "0x%" PRIx64 " has two callers", fv[0]);
				} else if (!leaf_of[slot]) {
					leaf_of[slot] = fv[0];
					first_caller_of[slot] = fv[1];
				}
			}
			prev_stack[e.cpu] = e;
		} else if (json_object_get(o, "cpu") &&
			   (strcmp(e.kind, "image") || strcmp(e.event, "dcstart"))) {
			if (!strcmp(e.kind, "sample")) {
				/* the idle thread's samples have no stack */
				idle_samples += e.tid == 0;
			}
			last[e.cpu] = e;
			memset(&prev_stack[e.cpu], 0, sizeof(prev_stack[e.cpu]));
		}
		json_decref(o);
	}
	fclose(f);
	cr_assert_gt(by[0], 0);
	cr_assert_gt(by[1], 0);
	cr_assert_gt(by[2], 0);
	cr_assert_gt(idle_samples, 0);
	cr_assert_geq(nim, 6, "the kernel's two and app.exe's four");
}

Test(stacks, every_stack_follows_its_event_in_the_images_of_its_process)
{
	gen("x64");
	check_truth(false);
}

Test(stacks, x86_too)
{
	gen("x86");
	check_truth(true);
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
}

/* Each StackWalk of @etl (dump's lines) follows, in its CPU's buffer, the record whose
 * timestamp is its EventTimeStamp; a sample's thread is its StackThread. Return: how many. */
static long check_file(const char *etl)
{
	FILE *f;
	static char buf[1 << 16];
	uint64_t last_ts[4] = {0}, last_tid[4] = {0};
	bool last_sample[4] = {0};
	long n = 0;

	cr_assert_eq(test_run("cd '%s' && '%s' dump %s --jsonl --raw > d.dump", test_dir,
			      test_bin(), etl),
		     0);
	f = fopen(test_path("d.dump"), "r");
	cr_assert_not_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		json_t *o = json_loads(buf, 0, NULL);
		const char *hook = json_string_value(json_object_get(o, "hook"));
		const char *raw = json_string_value(json_object_get(o, "raw"));
		long cpu = (long)json_integer_value(json_object_get(o, "cpu"));
		uint8_t b[64] = {0};

		if (!hook || !raw || cpu < 0 || cpu > 3) {
			json_decref(o);
			continue;
		}
		test_unhex(raw, b, sizeof(b));
		if (!strcasecmp(hook, "0x1820")) {
			uint64_t ets = 0, ts = 0;

			for (int k = 7; k >= 0; k--) {
				ets = ets << 8 | b[0x10 + k];
				ts = ts << 8 | b[0x08 + k];
			}
			cr_assert_eq(b[3], 0xC0);
			cr_assert_eq(b[2], 0x11, "PERFINFO64");
			cr_assert_eq(ets, last_ts[cpu], "EventTimeStamp is the event's");
			cr_assert_eq(ts, ets);
			if (last_sample[cpu]) {
				cr_assert_eq((uint64_t)(b[0x1C] | b[0x1D] << 8 | b[0x1E] << 16),
					     last_tid[cpu], "StackThread is the sample's thread");
			}
			n++;
		} else {
			uint64_t ts = 0;
			bool perfinfo = b[2] == 0x11;

			for (int k = 7; k >= 0; k--) {
				ts = ts << 8 | b[(perfinfo ? 0x08 : 0x10) + k];
			}
			last_ts[cpu] = ts;
			last_sample[cpu] = !strcasecmp(hook, "0x0f2e");
			last_tid[cpu] = b[0x18] | b[0x19] << 8 | b[0x1A] << 16;
		}
		json_decref(o);
	}
	fclose(f);
	return n;
}

Test(stacks, the_records_follow_their_events_in_the_file)
{
	gen("x64");
	cr_assert_gt(check_file("d.etl"), 0);
	cr_assert_gt(check_file("c.etl"), 0);
}

Test(stacks, verify_replay_jobs_and_a_changed_frame)
{
	char err[1024];
	int rc;

	gen("x64");
	cr_assert_eq(test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl && '%s' verify -q "
			      "c.etl --truth d.jsonl --session c",
			      test_dir, test_bin(), test_bin()),
		     0);
	cr_assert_eq(test_run("cd '%s' && mkdir r && cd r && '%s' replay -q ../d.jsonl "
			      "--stream-paths -o d.etl && cmp d.etl ../d.etl && cmp c.etl ../c.etl",
			      test_dir, test_bin()),
		     0, "replay writes the same bytes");
	cr_assert_eq(test_run("cd '%s' && mkdir j && cd j && '%s' gen -q ../s.yaml -o d.etl "
			      "--jobs 3 && cmp d.etl ../d.etl && cmp c.etl ../c.etl",
			      test_dir, test_bin()),
		     0, "--jobs 3 writes the same bytes");
	/* the last frame of the first user part one byte further */
	cr_assert_eq(test_run("cd '%s' && awk '!done && /\"kind\":\"stack\".*\"frames\":\"0x7/ "
			      "{ sub(/\"}$/, \"1\\\"}\"); done = 1 } { print }' d.jsonl > e.jsonl "
			      "&& ! cmp -s d.jsonl e.jsonl",
			      test_dir),
		     0);
	rc = test_etwforge("verify -q d.etl --truth e.jsonl", err, sizeof(err));
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert_not_null(strstr(err, "stack of "), "%s", err);
	cr_assert_not_null(strstr(err, "Stack["), "%s", err);
}

Test(stacks, an_event_the_session_does_not_log_is_refused)
{
	char err[1024];
	static const char bad[] = "sessions:\n"
				  "  - name: k\n"
				  "    flags: [cswitch, profile]\n"
				  "    stacks: [profile, ready_thread]\n";
	static const char typo[] = "sessions: [{flags: [cswitch], stacks: [cswich]}]\n";
	int rc;

	test_write("b.yaml", bad, strlen(bad));
	rc = test_etwforge("gen -q b.yaml -o b.etl", err, sizeof(err));
	cr_assert_eq(rc, 2, "%s", err);
	cr_assert_not_null(strstr(err, "b.yaml:4:"), "%s", err);
	cr_assert_not_null(strstr(err, "sessions.0.stacks"), "%s", err);
	cr_assert_not_null(strstr(err, "ready_thread: the session does not log the event (its "
				       "flags have no dispatcher)"),
			   "%s", err);
	cr_assert_eq(test_run("test ! -e '%s/b.etl'", test_dir), 0, "nothing written");
	test_write("t.yaml", typo, strlen(typo));
	rc = test_etwforge("gen -q t.yaml -o t.etl", err, sizeof(err));
	cr_assert_eq(rc, 2, "%s", err);
	cr_assert_not_null(strstr(err, "did you mean 'cswitch'"), "%s", err);
}
