// SPDX-License-Identifier: MIT
/*
 * tests/test_dpc.c - DPC and ISR time end to end, from the outside: on a
 * lived-in machine a small share of the samples are taken in a DPC or an
 * ISR (the truth's dpc / isr), at a kernel IP inside the timer DPC or a
 * driver's routine, an idle CPU's with a kernel-only stack of process 0 /
 * thread 0 and no other idle sample with one; a plain machine takes none;
 * verify catches a changed flag. With session flags dpc and interrupt, the
 * file's DPC / TimerDPC / ISR records (dump --jsonl): a positive duration
 * (header time after InitialTime), each CPU's records in time order, a DPC
 * starting as its ISR returns with the thread it readied inside it, the
 * group masks' PERF_DPC / PERF_INTERRUPT; verify, replay and --jobs; verify
 * catches a changed initial_time; dpc alone logs no ISR; an unknown flag is
 * one located line, exit 2.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_util.h"

TestSuite(dpc, .init = test_dir_make, .fini = test_dir_remove, .timeout = 120.);

static const char scenario[] =
	"seed: 5\nduration: 3s\n"
	"machine: {cpus: 4, arch: %s, target: win10-1903, realism: %s}\n"
	"drivers:\n"
	"  - name: ndis.sys\n"
	"    size: 0x100000\n"
	"    functions:\n"
	"      - {name: ndisMiniportDpc, rva: 0x1000, size: 0x200}\n"
	"      - {name: ndisMiniportIsr, rva: 0x2000, size: 0x100}\n"
	"profile_interval: 250us\n"
	"sessions:\n"
	"  - {name: k, clock: qpc, flags: [cswitch, proc_thread, dispatcher, profile, loader%s], "
	"stacks: [profile]}\n"
	"processes:\n"
	"  - {name: app.exe, pid: 1200}\n"
	"threads:\n"
	"  - {name: render, process: app.exe, count: 2, behaviour: cpu_bound}\n"
	"  - {name: io, process: app.exe, count: 3, behaviour: io_bound}\n"
	"  - {name: tick, process: app.exe, count: 2, behaviour: periodic}\n";

static void gen(const char *arch, const char *realism, const char *extra)
{
	char text[2048];
	int n = snprintf(text, sizeof(text), scenario, arch, realism, extra);

	test_write("s.yaml", text, (size_t)n);
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q s.yaml -o d.etl --truth d.jsonl", test_dir,
			      test_bin()),
		     0);
}

static uint64_t hex_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? strtoull(s, NULL, 16) : 0;
}

static bool kernel_address(uint64_t a, bool x86)
{
	return x86 ? a >= 0x80000000u : a >= 0xFFFF800000000000ull;
}

struct counts {
	long samples, idle, dpc, isr, idle_dpc_isr, idle_stacks, in_ndis, in_nt;
};

/* Walk the truth: samples, their flags and IPs, and the stacks after them. */
static void walk_truth(bool x86, struct counts *c)
{
	FILE *f = fopen(test_path("d.jsonl"), "r");
	static char buf[1 << 16];
	uint64_t nt_lo = 0, nt_hi = 0, nd_lo = 0, nd_hi = 0;
	bool idle_flagged = false, after_idle = false;
	uint64_t idle_ip = 0;

	cr_assert_not_null(f);
	memset(c, 0, sizeof(*c));
	while (fgets(buf, sizeof(buf), f)) {
		json_t *o = json_loads(buf, 0, NULL);
		const char *k = json_string_value(json_object_get(o, "kind"));

		cr_assert_not_null(o);
		if (k && !strcmp(k, "image") &&
		    json_integer_value(json_object_get(o, "pid")) == 0) {
			const char *fn = json_string_value(json_object_get(o, "file_name"));
			uint64_t lo = hex_of(o, "base"), hi = lo + hex_of(o, "size");

			if (!fn) {
				; /* KernelBase, HypercallPage */
			} else if (strstr(fn, "ntoskrnl.exe")) {
				nt_lo = lo, nt_hi = hi;
			} else if (strstr(fn, "ndis.sys")) {
				nd_lo = lo, nd_hi = hi;
			}
		}
		if (k && !strcmp(k, "stack")) {
			if (after_idle) {
				/* only a DPC's or an ISR's: kernel frames, process 0, thread 0 */
				const char *fr = json_string_value(json_object_get(o, "frames"));

				cr_assert(idle_flagged,
					  "an idle sample outside a DPC/ISR has no stack");
				cr_assert_eq(json_integer_value(json_object_get(o, "pid")), 0);
				cr_assert_eq(json_integer_value(json_object_get(o, "tid")), 0);
				cr_assert_eq(strtoull(fr, NULL, 16), idle_ip,
					     "the IP leads the stack");
				for (const char *p = fr; *p;) {
					char *end;

					cr_assert(kernel_address(strtoull(p, &end, 16), x86),
						  "kernel frames only");
					p = *end ? end + 1 : end;
				}
				c->idle_stacks++;
			}
		} else if (k && json_object_get(o, "cpu")) {
			after_idle = false;
		}
		if (k && !strcmp(k, "sample")) {
			bool dpc = json_is_true(json_object_get(o, "dpc"));
			bool isr = json_is_true(json_object_get(o, "isr"));
			uint64_t ip = hex_of(o, "ip");
			bool idle = json_integer_value(json_object_get(o, "tid")) == 0;

			c->samples++;
			c->idle += idle;
			c->dpc += dpc;
			c->isr += isr;
			cr_assert(!(dpc && isr));
			if (dpc || isr) {
				cr_assert(kernel_address(ip, x86),
					  "a DPC/ISR sample's IP is the kernel's");
				cr_assert(nt_hi && nd_hi, "the rundown's images come first");
				c->in_ndis += ip >= nd_lo && ip < nd_hi;
				c->in_nt += ip >= nt_lo && ip < nt_hi;
				cr_assert(ip >= nd_lo && ip < nd_hi
						  ? true
						  : (!isr && ip >= nt_lo && ip < nt_hi),
					  "0x%" PRIx64
					  ": a DPC in ntoskrnl or ndis.sys, an ISR in ndis.sys",
					  ip);
				c->idle_dpc_isr += idle;
			}
			after_idle = idle;
			idle_flagged = dpc || isr;
			idle_ip = ip;
		}
		json_decref(o);
	}
	fclose(f);
}

Test(dpc, lived_in_samples_in_dpcs_and_isrs)
{
	struct counts c;

	gen("x64", "lived-in", "");
	walk_truth(false, &c);
	cr_assert_gt(c.samples, 40000);
	/* the Windows sample's 0.13 % / 0.035 %, more on a busier machine: within 0.05 .. 1 % */
	cr_assert(c.dpc * 2000 > c.samples && c.dpc * 100 < c.samples, "%ld DPC samples of %ld",
		  c.dpc, c.samples);
	cr_assert(c.isr > 0 && c.isr < c.dpc, "%ld ISR samples, %ld DPC", c.isr, c.dpc);
	cr_assert_gt(c.idle_dpc_isr, 0);
	cr_assert_eq(c.idle_stacks, c.idle_dpc_isr, "each idle DPC/ISR sample has its stack");
	cr_assert_gt(c.in_ndis, 0);
	cr_assert_gt(c.in_nt, 0, "the timer DPC");
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
}

Test(dpc, x86_too)
{
	struct counts c;

	gen("x86", "lived-in", "");
	walk_truth(true, &c);
	cr_assert_gt(c.dpc, 0);
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
}

Test(dpc, a_plain_machine_takes_none)
{
	struct counts c;

	gen("x64", "plain", "");
	walk_truth(false, &c);
	cr_assert_gt(c.idle, 1000);
	cr_assert_eq(c.dpc + c.isr, 0);
	cr_assert_eq(c.idle_stacks, 0);
}

Test(dpc, verify_catches_a_changed_flag_and_replay_agrees)
{
	gen("x64", "lived-in", "");
	cr_assert_eq(
		test_run("cd '%s' && sed '0,/\"dpc\":true,/s///' d.jsonl > e.jsonl && ! cmp -s "
			 "d.jsonl e.jsonl",
			 test_dir),
		0);
	cr_assert_neq(test_run("cd '%s' && '%s' verify -q d.etl --truth e.jsonl 2>/dev/null",
			       test_dir, test_bin()),
		      0, "a DPC sample's flag is checked");
	cr_assert_eq(test_run("cd '%s' && mkdir r && cd r && '%s' replay -q ../d.jsonl -o d.etl && "
			      "cmp d.etl ../d.etl",
			      test_dir, test_bin()),
		     0, "replay writes the same bytes");
}

/* ---- the DPC / TimerDPC / ISR records ------------------------------------ */

struct file_counts {
	long dpc, timer_dpc, isr, ready_from_dpc;
	uint32_t masks1;
};

/*
 * Walk the file's records (dump --jsonl), in each CPU's buffer order: every
 * DPC / ISR has a positive duration (header time after InitialTime) and its
 * CPU's records stay in time order; a DPC starts when the ISR before it on
 * its CPU returned (timer: the clock's, vector 0xD1; I/O: ndis.sys's), and
 * the ReadyThread it readied lies within it.
 */
static void walk_file(const char *etl, bool x86, struct file_counts *n)
{
	FILE *f;
	static char buf[1 << 16];
	uint64_t last_ts[4] = {0}, isr_end[4] = {0}, ready_ts[4] = {0};

	memset(n, 0, sizeof(*n));
	cr_assert_eq(
		test_run("cd '%s' && '%s' dump %s --jsonl > d.dump", test_dir, test_bin(), etl), 0);
	f = fopen(test_path("d.dump"), "r");
	cr_assert_not_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		json_t *o = json_loads(buf, 0, NULL);
		json_t *d = json_object_get(o, "dpc");
		json_t *rd = json_object_get(o, "rundown");
		long cpu = (long)json_integer_value(json_object_get(o, "cpu"));
		uint64_t ts = (uint64_t)json_integer_value(json_object_get(o, "ts"));
		const char *hook = json_string_value(json_object_get(o, "hook"));

		if (!hook || cpu < 0 || cpu > 3) {
			json_decref(o);
			continue;
		}
		if (rd && json_array_size(json_object_get(rd, "masks")) > 1 && !n->masks1) {
			n->masks1 = (uint32_t)json_integer_value(
				json_array_get(json_object_get(rd, "masks"), 1));
		}
		if (d) {
			const char *ev = json_string_value(json_object_get(d, "event"));
			uint64_t init =
				(uint64_t)json_integer_value(json_object_get(d, "initial_time"));
			uint64_t routine = hex_of(d, "routine");

			cr_assert(kernel_address(routine, x86), "a routine is the kernel's");
			cr_assert_gt(ts, init, "%s on cpu %ld: a positive duration", ev, cpu);
			cr_assert_geq(ts, last_ts[cpu], "cpu %ld in time order", cpu);
			if (!strcmp(ev, "isr")) {
				long v = (long)json_integer_value(json_object_get(d, "vector"));

				cr_assert(v == 0xD1 || (v >= 0x60 && v < 0xE0), "vector %ld", v);
				cr_assert_eq(json_integer_value(json_object_get(d, "return_value")),
					     1);
				isr_end[cpu] = ts;
				n->isr++;
			} else {
				cr_assert(!strcmp(ev, "timer_dpc") || !strcmp(ev, "dpc"), "%s", ev);
				/* with interrupt on, it starts as its ISR returns */
				cr_assert(!isr_end[cpu] || init == isr_end[cpu],
					  "a DPC starts as its ISR returns");
				cr_assert(ready_ts[cpu] >= init && ready_ts[cpu] <= ts,
					  "the thread it readied, within it");
				n->timer_dpc += !strcmp(ev, "timer_dpc");
				n->dpc += !strcmp(ev, "dpc");
			}
		} else if (!strcmp(hook, "0x0532")) {
			json_t *r = json_object_get(o, "ready");

			ready_ts[cpu] = ts;
			n->ready_from_dpc += json_integer_value(json_object_get(r, "flags")) & 1;
		}
		if (ts > last_ts[cpu] && strcmp(hook, "0x0005") && strcmp(hook, "0x0020")) {
			last_ts[cpu] = ts;
		}
		json_decref(o);
	}
	fclose(f);
}

Test(dpc, records_with_dpc_and_interrupt)
{
	struct file_counts n;

	gen("x64", "lived-in", ", dpc, interrupt");
	walk_file("d.etl", false, &n);
	cr_assert_gt(n.timer_dpc, 10);
	cr_assert_gt(n.dpc, 10, "I/O completions on idle CPUs (ndis.sys's DPC)");
	cr_assert_eq(n.isr, n.timer_dpc + n.dpc, "an ISR before each DPC");
	cr_assert_leq(n.timer_dpc + n.dpc, n.ready_from_dpc, "a DPC readies one thread or more");
	cr_assert_eq(n.masks1 & 0x4080u, 0x4080u, "Masks[1]: PERF_DPC 0x80, PERF_INTERRUPT 0x4000");
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
	cr_assert_eq(test_run("cd '%s' && mkdir r && cd r && '%s' replay -q ../d.jsonl -o d.etl && "
			      "cmp d.etl ../d.etl",
			      test_dir, test_bin()),
		     0, "replay writes the same bytes");
	cr_assert_eq(test_run("cd '%s' && mkdir j && cd j && '%s' gen -q ../s.yaml -o d.etl "
			      "--jobs 3 && cmp d.etl ../d.etl",
			      test_dir, test_bin()),
		     0, "--jobs 3 writes the same bytes");
}

Test(dpc, x86_records)
{
	struct file_counts n;

	gen("x86", "plain", ", dpc, interrupt");
	walk_file("d.etl", true, &n);
	cr_assert_gt(n.timer_dpc + n.dpc, 0);
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
}

Test(dpc, dpc_alone_has_no_isr_and_the_masks_say_so)
{
	struct file_counts n;

	gen("x64", "lived-in", ", dpc");
	walk_file("d.etl", false, &n);
	cr_assert_gt(n.timer_dpc, 0);
	cr_assert_eq(n.isr, 0);
	cr_assert_eq(n.masks1 & 0x4080u, 0x80u);
}

Test(dpc, verify_catches_a_changed_initial_time)
{
	char err[1024];
	int rc;

	gen("x64", "lived-in", ", dpc, interrupt");
	cr_assert_eq(test_run("cd '%s' && awk '!done && /\"event\":\"timer_dpc\"/ { "
			      "sub(/\"initial_time\":\\{\"qpc\":/, \"&1\"); done = 1 } { print }' "
			      "d.jsonl > e.jsonl && ! cmp -s d.jsonl e.jsonl",
			      test_dir),
		     0);
	rc = test_etwforge("verify -q d.etl --truth e.jsonl", err, sizeof(err));
	cr_assert_neq(rc, 0);
	cr_assert(strstr(err, "InitialTime") || strstr(err, "initial_time"), "%s", err);
}

Test(dpc, an_unknown_flag_is_one_located_line)
{
	char err[1024];
	static const char bad[] = "sessions:\n  - {name: k, flags: [cswitch, interupt]}\n";

	test_write("bad.yaml", bad, sizeof(bad) - 1);
	cr_assert_eq(test_etwforge("gen -q bad.yaml -o x.etl", err, sizeof(err)), 2);
	cr_assert(strstr(err, "bad.yaml:2:") && strstr(err, "did you mean 'interrupt'"), "%s", err);
	{
		const char *nl = strchr(err, '\n');

		cr_assert(!nl || !nl[1], "one line: %s", err);
	}
	cr_assert_neq(test_run("test -e '%s/x.etl'", test_dir), 0, "nothing written");
}

Test(dpc, interrupt_alone_has_no_dpc)
{
	struct file_counts n;

	gen("x64", "lived-in", ", interrupt");
	walk_file("d.etl", false, &n);
	cr_assert_gt(n.isr, 0);
	cr_assert_eq(n.timer_dpc + n.dpc, 0);
	cr_assert_eq(n.masks1 & 0x4080u, 0x4000u);
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
}
