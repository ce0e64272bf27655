// SPDX-License-Identifier: MIT
/*
 * tests/test_loader.c - the loader flag end to end: gen writes the image
 * records where Windows does (STACK_IMAGE_FACTS 2.3-2.5, RUNDOWN_FACTS 7.3,
 * 7.4) and the file holds them as its truth says. The order is read from
 * the truth (every line's kind, event and process), the bytes from
 * `etwforge dump --jsonl --raw` (header form and the payload's fields at
 * the offsets of the spec's table, read here by hand); verify is clean, a
 * changed or missing image line is a mismatch, replay gives the same
 * bytes, and an x86 file with the version-2 layout too.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tests/test_util.h"

TestSuite(loader, .init = test_dir_make, .fini = test_dir_remove, .timeout = 120.);

/* app.exe from the start (its d3d11.dll mapped at 50 ms, unmapped at 150 ms), late.exe
 * from 100 ms to 200 ms, a driver loaded at 80 ms */
static const char scenario[] =
	"seed: 5\nduration: 300ms\n"
	"machine: {cpus: 2, arch: %s, target: %s}\n"
	"sessions:\n"
	"  - {name: k, clock: qpc, flags: [cswitch, compact_cswitch, proc_thread, profile, "
	"loader]}\n"
	"processes:\n"
	"  - name: app.exe\n"
	"    pid: 1200\n"
	"    images:\n"
	"      - {name: d3d11.dll, size: 0x200000, timestamp: 0x5F3A0C11, load: 50ms, "
	"unload: 150ms}\n"
	"  - {name: late.exe, pid: 2400, start: 100ms, exit: 200ms}\n"
	"drivers:\n"
	"  - {name: nvlddmkm.sys, size: 0x100000, load: 80ms}\n"
	"threads:\n"
	"  - {name: render, process: app.exe, count: 2, behaviour: cpu_bound}\n"
	"  - {name: l, process: late.exe, count: 1, behaviour: io_bound}\n";

static void gen(const char *arch, const char *target)
{
	char text[2048];
	int n = snprintf(text, sizeof(text), scenario, arch, target);

	test_write("s.yaml", text, (size_t)n);
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q s.yaml -o d.etl --truth d.jsonl", test_dir,
			      test_bin()),
		     0);
}

/* One truth line, reduced: kind, event, pid (0 when none) and for an image its name. */
struct line {
	char kind[16], event[16], file[64];
	long pid;
};

static struct line *truth_lines(size_t *n)
{
	FILE *f = fopen(test_path("d.jsonl"), "r");
	struct line *v = NULL;
	size_t cap = 0;
	char buf[8192];

	cr_assert_not_null(f);
	*n = 0;
	while (fgets(buf, sizeof(buf), f)) {
		json_t *o = json_loads(buf, 0, NULL);
		const char *k, *e, *fn;
		struct line *l;

		cr_assert_not_null(o, "%s", buf);
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			cr_assert_not_null(v);
		}
		l = &v[(*n)++];
		memset(l, 0, sizeof(*l));
		k = json_string_value(json_object_get(o, "kind"));
		e = json_string_value(json_object_get(o, "event"));
		fn = json_string_value(json_object_get(o, "file_name"));
		snprintf(l->kind, sizeof(l->kind), "%s", k ? k : "");
		snprintf(l->event, sizeof(l->event), "%s", e ? e : "");
		if (fn) {
			const char *slash = strrchr(fn, '\\');

			snprintf(l->file, sizeof(l->file), "%s", slash ? slash + 1 : fn);
		}
		l->pid = (long)json_integer_value(json_object_get(o, "pid"));
		json_decref(o);
	}
	fclose(f);
	return v;
}

/* The index of the first line from @from on with @kind, @event, @pid (-1: any) and @file (NULL: any). */
static long find(const struct line *v, size_t n, size_t from, const char *kind, const char *event,
		 long pid, const char *file)
{
	for (size_t i = from; i < n; i++) {
		if (!strcmp(v[i].kind, kind) && !strcmp(v[i].event, event) &&
		    (pid < 0 || v[i].pid == pid) && (!file || !strcmp(v[i].file, file))) {
			return (long)i;
		}
	}
	return -1;
}

Test(loader, the_truth_has_the_rundown_and_live_order_of_windows)
{
	size_t n;
	struct line *v;
	long sys, i, start_end, app, kb;

	gen("x64", "win10-1903");
	v = truth_lines(&n);
	/* start: System's threads, then the kernel modules (pid 0), then the next process */
	sys = find(v, n, 0, "process", "dcstart", 4, NULL);
	cr_assert_geq(sys, 0);
	for (i = sys + 1; !strcmp(v[i].kind, "thread"); i++) {
		cr_assert_eq(v[i].pid, 4);
	}
	cr_assert_str_eq(v[i].kind, "image");
	cr_assert_str_eq(v[i].event, "dcstart");
	cr_assert_eq(v[i].pid, 0);
	cr_assert_str_eq(v[i].file, "ntoskrnl.exe");
	cr_assert_str_eq(v[i + 1].file, "hal.dll");
	cr_assert_str_eq(v[i + 2].kind, "process", "the driver is loaded later, not run down");
	/* app.exe: its threads, then its four images (not d3d11.dll, which loads at 50 ms) */
	app = find(v, n, 0, "process", "dcstart", 1200, NULL);
	cr_assert_geq(app, 0);
	for (i = app + 1; !strcmp(v[i].kind, "thread"); i++) {
	}
	cr_assert_eq(i, app + 3, "two render threads");
	for (int k = 0; k < 4; k++) {
		cr_assert_str_eq(v[i + k].kind, "image");
		cr_assert_str_eq(v[i + k].event, "dcstart");
		cr_assert_eq(v[i + k].pid, 1200);
	}
	cr_assert_str_eq(v[i].file, "app.exe");
	cr_assert_str_neq(v[i + 4].kind, "image");
	cr_assert_lt(find(v, n, 0, "image", "dcstart", 1200, "d3d11.dll"), 0);
	start_end = find(v, n, 0, "rundown", "", -1, NULL);
	cr_assert_gt(start_end, i);

	/* live: d3d11.dll in and out, the driver in, late.exe's images after its first thread */
	cr_assert_gt(find(v, n, 0, "image", "load", 1200, "d3d11.dll"), start_end);
	cr_assert_gt(find(v, n, 0, "image", "unload", 1200, "d3d11.dll"),
		     find(v, n, 0, "image", "load", 1200, "d3d11.dll"));
	cr_assert_gt(find(v, n, 0, "image", "load", 0, "nvlddmkm.sys"), start_end);
	i = find(v, n, 0, "process", "start", 2400, NULL);
	cr_assert_gt(i, start_end);
	cr_assert_str_eq(v[i + 1].kind, "thread");
	cr_assert_str_eq(v[i + 1].event, "start");
	for (int k = 0; k < 4; k++) {
		cr_assert_str_eq(v[i + 2 + k].event, "load", "line %ld", i + 2 + k);
		cr_assert_eq(v[i + 2 + k].pid, 2400);
	}
	i = find(v, n, 0, "process", "end", 2400, NULL);
	cr_assert_gt(i, 0);
	for (int k = 1; k <= 4; k++) {
		cr_assert_str_eq(v[i - k].event, "unload", "line %ld", i - k);
		cr_assert_eq(v[i - k].pid, 2400);
	}
	cr_assert_lt(find(v, n, 0, "image", "dcend", 2400, NULL), 0);
	cr_assert_lt(find(v, n, 0, "image", "dcend", 1200, "d3d11.dll"), 0);

	/* stop: Idle, kernel base, hypercall page, the three kernel modules, then per process
	 * its images before its threads */
	kb = find(v, n, 0, "image", "kernel_base", -1, NULL);
	cr_assert_gt(kb, 0);
	cr_assert_str_eq(v[kb - 1].kind, "process");
	cr_assert_str_eq(v[kb - 1].event, "dcend");
	cr_assert_eq(v[kb - 1].pid, 0);
	cr_assert_str_eq(v[kb + 1].event, "hypercall_page");
	cr_assert_str_eq(v[kb + 2].file, "ntoskrnl.exe");
	cr_assert_str_eq(v[kb + 3].file, "hal.dll");
	cr_assert_str_eq(v[kb + 4].file, "nvlddmkm.sys");
	cr_assert_eq(v[kb + 4].pid, 0);
	i = find(v, n, kb, "image", "dcend", 1200, NULL);
	cr_assert_gt(i, kb + 4);
	for (int k = 0; k < 4; k++) {
		cr_assert_str_eq(v[i + k].kind, "image");
	}
	cr_assert_str_eq(v[i + 4].kind, "thread");
	cr_assert_str_eq(v[i + 4].event, "dcend");
	free(v);
}

/* The raw bytes of the first record of dump's with @hook and (when @pid >= 0) payload ProcessId. */
static size_t raw_record(const char *hook, long pid, unsigned pid_at, uint8_t *out, size_t cap,
			 char *form, size_t form_cap)
{
	FILE *f;
	char buf[16384];
	size_t len = 0;

	cr_assert_eq(
		test_run("cd '%s' && '%s' dump d.etl --jsonl --raw > d.dump", test_dir, test_bin()),
		0);
	f = fopen(test_path("d.dump"), "r");
	cr_assert_not_null(f);
	while (!len && fgets(buf, sizeof(buf), f)) {
		json_t *o = json_loads(buf, 0, NULL);
		const char *h = o ? json_string_value(json_object_get(o, "hook")) : NULL;
		const char *raw = o ? json_string_value(json_object_get(o, "raw")) : NULL;
		const char *k = o ? json_string_value(json_object_get(o, "kind")) : NULL;

		if (h && raw && k && !strcasecmp(h, hook)) {
			size_t n = strlen(raw) / 2;
			unsigned hdr = strstr(k, "SYSTEM") ? 0x20 : 0x10;

			cr_assert_leq(n, cap);
			for (size_t j = 0; j < n; j++) {
				unsigned b;

				sscanf(raw + 2 * j, "%2x", &b);
				out[j] = (uint8_t)b;
			}
			if (pid < 0 || (n >= hdr + pid_at + 4 &&
					(long)(out[hdr + pid_at] | out[hdr + pid_at + 1] << 8 |
					       out[hdr + pid_at + 2] << 16) == pid)) {
				len = n;
				snprintf(form, form_cap, "%s", k);
			}
		}
		json_decref(o);
	}
	fclose(f);
	cr_assert_gt(len, 0, "no %s record", hook);
	return len;
}

static uint64_t u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--) {
		v = v << 8 | p[i];
	}
	return v;
}

/* UTF-16 units before the first NUL unit of @p[@n] (@n when none). */
static size_t utf16_len(const uint8_t *p, size_t n)
{
	size_t k = 0;

	while (2 * k + 1 < n && (p[2 * k] | p[2 * k + 1])) {
		k++;
	}
	return k;
}

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

Test(loader, the_records_have_the_forms_and_fields_of_windows_x64_v3)
{
	uint8_t r[4096];
	char form[32];
	size_t n;

	gen("x64", "win10-1903");
	/* a process's image in the start rundown: PERFINFO64 v3, TimeDateStamp 0, DefaultBase =
	 * ImageBase, FileName at 0x38 */
	n = raw_record("0x1403", 1200, 0x10, r, sizeof(r), form, sizeof(form));
	cr_assert_str_eq(form, "PERFINFO64");
	cr_assert_eq(u32(r), 0xC0110003u);
	cr_assert_eq(u32(r + 0x10 + 0x18), 0, "TimeDateStamp 0 in a process's rundown");
	cr_assert_eq(u64(r + 0x10 + 0x20), u64(r + 0x10), "DefaultBase = ImageBase");
	cr_assert_eq(u64(r + 0x10) >> 40, 0x7Fu, "a user address");
	cr_assert_eq(n, 0x10 + 0x38 + 2 * (utf16_len(r + 0x48, n - 0x48) + 1),
		     "Size = header + 0x38 + the name and its NUL");
	cr_assert_eq(r[n - 1] | r[n - 2], 0, "FileName ends with its NUL");
	/* a kernel module's: SYSTEM64, ProcessId 0, DefaultBase 0, TimeDateStamp kept */
	raw_record("0x1403", 0, 0x10, r, sizeof(r), form, sizeof(form));
	cr_assert_str_eq(form, "SYSTEM64");
	cr_assert_eq(u32(r), 0xC0020003u);
	cr_assert_eq(u64(r + 0x20) >> 44, 0xFFFFFu, "a kernel address");
	cr_assert_eq(u64(r + 0x20 + 0x20), 0, "DefaultBase 0");
	cr_assert_neq(u32(r + 0x20 + 0x18), 0, "TimeDateStamp kept");
	/* d3d11.dll's load: SYSTEM64 0x030A in app.exe's context, its TimeDateStamp */
	raw_record("0x030a", 1200, 0x10, r, sizeof(r), form, sizeof(form));
	cr_assert_str_eq(form, "SYSTEM64");
	cr_assert_eq(u32(r + 0x0C), 1200, "header PID = the loading thread's");
	cr_assert_eq(u32(r + 0x20 + 0x18), 0x5F3A0C11u);
	cr_assert_eq(u64(r + 0x20 + 0x08), 0x200000u);
	/* KernelBase: PERFINFO64 v2, ntoskrnl's base; HypercallPage the fixed page */
	n = raw_record("0x1421", -1, 0, r, sizeof(r), form, sizeof(form));
	cr_assert_eq(n, 0x18);
	cr_assert_eq(u32(r), 0xC0110002u);
	cr_assert_eq(u64(r + 0x10) >> 44, 0xFFFFFu);
	n = raw_record("0x1422", -1, 0, r, sizeof(r), form, sizeof(form));
	cr_assert_eq(n, 0x18);
	cr_assert_eq(u64(r + 0x10), 0xFFFFFFFFFFD03000ull);
	/* the group masks have PERF_LOADER */
	n = raw_record("0x0005", -1, 0, r, sizeof(r), form, sizeof(form));
	cr_assert_gt(n, 0x14);
}

Test(loader, x86_win8_style_v2_has_no_signature_and_4_byte_pointers)
{
	uint8_t r[4096];
	char form[32];
	size_t n;

	gen("x86", "win10-1607");
	/* PERFINFO32 v2: ImageBase @0, ImageSize @4, ProcessId @8, FileName @0x2C */
	n = raw_record("0x1403", 1200, 0x08, r, sizeof(r), form, sizeof(form));
	cr_assert_str_eq(form, "PERFINFO32");
	cr_assert_eq(u32(r), 0xC0100002u);
	cr_assert_eq(u32(r + 0x10 + 0x08), 1200);
	cr_assert_eq(u32(r + 0x10 + 0x14), 0, "no signature bytes in v2");
	cr_assert_eq(u32(r + 0x10 + 0x18), u32(r + 0x10), "DefaultBase = ImageBase");
	cr_assert_eq(r[0x10 + 0x2C], '\\', "FileName at 0x2C");
	cr_assert_eq(r[n - 1] | r[n - 2], 0);
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
}

/* d.jsonl into e.jsonl with the base of d3d11.dll's load line given a leading 1. */
static void edit_load_base(void)
{
	FILE *in = fopen(test_path("d.jsonl"), "r"), *out = fopen(test_path("e.jsonl"), "w");
	char buf[8192];
	bool done = false;

	cr_assert(in && out);
	while (fgets(buf, sizeof(buf), in)) {
		char *b = strstr(buf, "\"base\":\"0x");

		if (!done && b && strstr(buf, "\"event\":\"load\"") && strstr(buf, "d3d11")) {
			b += strlen("\"base\":\"0x");
			fwrite(buf, 1, (size_t)(b - buf), out);
			fputc('1', out);
			fputs(b, out);
			done = true;
		} else {
			fputs(buf, out);
		}
	}
	fclose(in);
	fclose(out);
	cr_assert(done);
}

Test(loader, verify_replay_and_a_changed_image_line)
{
	char err[1024];
	int rc;

	gen("x64", "win10-1903");
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
	cr_assert_eq(test_run("cd '%s' && mkdir r && cd r && '%s' replay -q ../d.jsonl -o d.etl && "
			      "cmp d.etl ../d.etl",
			      test_dir, test_bin()),
		     0, "replay writes the same bytes");
	/* d3d11.dll's load at another base in the truth: verify names the field */
	edit_load_base();
	rc = test_etwforge("verify -q d.etl --truth e.jsonl", err, sizeof(err));
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert_not_null(strstr(err, "image load d3d11.dll: base 0x"), "%s", err);
	cr_assert_not_null(strstr(err, ": base 0x"), "%s", err);
	/* the stop's kernel base line missing: the file has a record the truth lacks */
	cr_assert_eq(test_run("cd '%s' && grep -v kernel_base d.jsonl > m.jsonl", test_dir), 0);
	rc = test_etwforge("verify -q d.etl --truth m.jsonl", err, sizeof(err));
	cr_assert_eq(rc, 1, "%s", err);
}
