// SPDX-License-Identifier: MIT
/*
 * tests/test_loader.c - the loader flag end to end: gen writes the image
 * records where Windows does (STACK_IMAGE_FACTS 2.3-2.5, RUNDOWN_FACTS 7.3,
 * 7.4) and the file holds them as its truth says. The order is read from
 * the truth (every line's kind, event and process), the bytes from
 * `etwforge dump --jsonl --raw` (header form and the payload's fields at
 * the offsets of the spec's table, read here by hand); verify is clean, a
 * changed or missing image line is a mismatch, replay gives the same
 * bytes, and an x86 file with the version-2 layout too. A merged session
 * puts ImageID and DbgID_RSDS (None without a PDB) right before each image
 * record, with its time and the header rules of STACK_IMAGE_FACTS 6.2 (read
 * from the bytes); merged without loader is refused. gen --symbols writes
 * one Breakpad file per PDB, where and as the layout says.
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

/*
 * One truth line, reduced: kind, event, pid (0 when none) and for an image its
 * name. Only the identity records (process, thread, image, masks, interval,
 * rundown ...): the live ones (switches, samples, wake-ups, stacks) fall between
 * the start rundown's records on a lived-in machine, as on Windows.
 */
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
		k = json_string_value(json_object_get(o, "kind"));
		if (k && (!strcmp(k, "cswitch") || !strcmp(k, "sample") || !strcmp(k, "ready") ||
			  !strcmp(k, "stack"))) {
			json_decref(o);
			continue;
		}
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			cr_assert_not_null(v);
		}
		l = &v[(*n)++];
		memset(l, 0, sizeof(*l));
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
	long sys, i, start_end, app, kb, nimg;

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
	/* its executable, ntdll, kernel32, kernelbase, then (lived-in) 26 to 65 of the
	 * common system DLLs, the first of which is msvcrt.dll */
	for (nimg = 0; !strcmp(v[i + nimg].kind, "image"); nimg++) {
		cr_assert_str_eq(v[i + nimg].event, "dcstart");
		cr_assert_eq(v[i + nimg].pid, 1200);
	}
	cr_assert_geq(nimg, 4 + 26);
	cr_assert_leq(nimg, 4 + 65);
	cr_assert_str_eq(v[i].file, "app.exe");
	cr_assert_str_eq(v[i + 1].file, "ntdll.dll");
	cr_assert_str_eq(v[i + 4].file, "msvcrt.dll");
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
	for (nimg = 0; !strcmp(v[i + 2 + nimg].kind, "image") && v[i + 2 + nimg].pid == 2400;
	     nimg++) {
		cr_assert_str_eq(v[i + 2 + nimg].event, "load", "line %ld", i + 2 + nimg);
	}
	cr_assert_geq(nimg, 4 + 26);
	cr_assert_str_eq(v[i + 2].file, "late.exe");
	i = find(v, n, 0, "process", "end", 2400, NULL);
	cr_assert_gt(i, 0);
	for (long k = 1; k <= nimg; k++) {
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
	for (nimg = 0; !strcmp(v[i + nimg].kind, "image"); nimg++) {
		cr_assert_eq(v[i + nimg].pid, 1200);
	}
	cr_assert_geq(nimg, 4 + 26);
	cr_assert_str_eq(v[i + nimg].kind, "thread");
	cr_assert_str_eq(v[i + nimg].event, "dcend");
	free(v);
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

/* The records of dump's output, in file order: kind, hook, CPU, ts and raw bytes. */
struct rec {
	char kind[16], hook[8];
	long cpu;
	uint64_t ts;
	uint8_t b[1024];
	size_t n;
};

static struct rec *dump_records(size_t *count)
{
	FILE *f;
	static char buf[1 << 16];
	struct rec *v = NULL;
	size_t cap = 0;

	cr_assert_eq(
		test_run("cd '%s' && '%s' dump d.etl --jsonl --raw > d.dump", test_dir, test_bin()),
		0);
	f = fopen(test_path("d.dump"), "r");
	cr_assert_not_null(f);
	*count = 0;
	while (fgets(buf, sizeof(buf), f)) {
		json_t *o = json_loads(buf, 0, NULL);
		const char *k = o ? json_string_value(json_object_get(o, "kind")) : NULL;
		const char *h = o ? json_string_value(json_object_get(o, "hook")) : NULL;
		const char *raw = o ? json_string_value(json_object_get(o, "raw")) : NULL;
		struct rec *r;

		if (!k || !raw) {
			json_decref(o);
			continue;
		}
		if (*count == cap) {
			cap = cap ? 2 * cap : 4096;
			v = realloc(v, cap * sizeof(*v));
			cr_assert_not_null(v);
		}
		r = &v[(*count)++];
		memset(r, 0, sizeof(*r));
		snprintf(r->kind, sizeof(r->kind), "%s", k);
		snprintf(r->hook, sizeof(r->hook), "%s", h ? h : "");
		r->cpu = (long)json_integer_value(json_object_get(o, "cpu"));
		r->ts = (uint64_t)json_integer_value(json_object_get(o, "ts"));
		r->n = test_unhex(raw, r->b, sizeof(r->b));
		json_decref(o);
	}
	fclose(f);
	return v;
}

/*
 * The raw bytes of the first record with @hook and (when @pid >= 0) payload
 * ProcessId @pid at @pid_at into @out, its header kind into @form. Return: its size.
 */
static size_t raw_record(const char *hook, long pid, unsigned pid_at, uint8_t *out, size_t cap,
			 char *form, size_t form_cap)
{
	size_t n, len = 0;
	struct rec *v = dump_records(&n);

	for (size_t i = 0; i < n && !len; i++) {
		unsigned hdr = strstr(v[i].kind, "SYSTEM") ? 0x20 : 0x10;

		if (strcasecmp(v[i].hook, hook) ||
		    (pid >= 0 &&
		     (v[i].n < hdr + pid_at + 4 || u32(v[i].b + hdr + pid_at) != (uint32_t)pid))) {
			continue;
		}
		cr_assert_leq(v[i].n, cap);
		memcpy(out, v[i].b, v[i].n);
		len = v[i].n;
		snprintf(form, form_cap, "%s", v[i].kind);
	}
	free(v);
	cr_assert_gt(len, 0, "no %s record", hook);
	return len;
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
	/* the group masks have PERF_LOADER: Masks[0] bit 0x4 */
	n = raw_record("0x0005", -1, 0, r, sizeof(r), form, sizeof(form));
	cr_assert_geq(n, 0x10 + 0x24);
	cr_assert_eq(u32(r + (strstr(form, "SYSTEM") ? 0x20 : 0x10)) & 0x7u, 0x7u,
		     "PERF_PROCESS | PERF_THREAD | PERF_LOADER");
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

/* The record before @i on its CPU. */
static const struct rec *before(const struct rec *v, size_t i, unsigned back)
{
	for (size_t k = i; k-- > 0;) {
		if (v[k].cpu == v[i].cpu && --back == 0) {
			return &v[k];
		}
	}
	cr_assert_fail("no record before %zu", i);
	return NULL;
}

/* A KernelTraceControl record: FULL_HEADER64 Class.Type @type, v2, the GUID, @tid/@pid, @ts. */
static void expect_ktc(const struct rec *r, uint8_t type, uint32_t tid, uint32_t pid, uint64_t ts)
{
	static const uint8_t guid[16] = {0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
					 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde};

	cr_assert_str_eq(r->kind, "FULL_HEADER64");
	cr_assert_eq((size_t)(r->b[0] | r->b[1] << 8), r->n, "Size at 0");
	cr_assert_eq(r->b[2], 0x14);
	cr_assert_eq(r->b[3], 0xC0);
	cr_assert_eq(r->b[4], type);
	cr_assert_eq(r->b[6] | r->b[7] << 8, 2, "Class.Version 2");
	cr_assert_eq(u32(r->b + 8), tid);
	cr_assert_eq(u32(r->b + 12), pid);
	cr_assert_eq(u64(r->b + 16), ts, "the image event's time");
	cr_assert_eq(memcmp(r->b + 0x18, guid, 16), 0);
}

Test(loader, merged_sessions_put_each_image_identity_right_before_it)
{
	static const char text[] =
		"seed: 5\nduration: 300ms\nmachine: {cpus: 2, arch: x64, target: win10-1903}\n"
		"sessions:\n"
		"  - {name: k, clock: qpc, flags: [cswitch, proc_thread, loader], merged: true}\n"
		"processes: [{name: app.exe, pid: 1200}]\n"
		"drivers: [{name: nvlddmkm.sys, size: 0x100000, load: 80ms, pdb: none}]\n"
		"threads: [{name: r, process: app.exe, count: 1}, {name: kw, process: System}]\n";
	size_t n, checked = 0;
	struct rec *v;

	test_write("s.yaml", text, strlen(text));
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q s.yaml -o d.etl --truth d.jsonl && '%s' "
			      "verify -q d.etl --truth d.jsonl",
			      test_dir, test_bin(), test_bin()),
		     0);
	v = dump_records(&n);
	for (size_t i = 0; i < n; i++) {
		const struct rec *dbg, *id;
		bool perfinfo = !strcmp(v[i].kind, "PERFINFO64");
		unsigned hdr = perfinfo ? 0x10 : 0x20;

		if (strcasecmp(v[i].hook, "0x030a") && strcasecmp(v[i].hook, "0x1402") &&
		    strcasecmp(v[i].hook, "0x1403") && strcasecmp(v[i].hook, "0x1404")) {
			cr_assert(strcasecmp(v[i].hook, "0x1421") ||
					  strcmp(before(v, i, 1)->kind, "FULL_HEADER64"),
				  "no identity before the kernel base");
			continue;
		}
		dbg = before(v, i, 1);
		id = before(v, i, 2);
		{
			uint32_t pid = u32(v[i].b + hdr + 0x10);
			uint32_t tid = perfinfo ? UINT32_MAX : u32(v[i].b + 8);
			uint32_t hpid = perfinfo ? pid : u32(v[i].b + 12);
			bool none = dbg->b[4] == 0x20;

			expect_ktc(id, 0x00, tid, hpid, v[i].ts);
			expect_ktc(dbg, none ? 0x20 : 0x24, tid, hpid, v[i].ts);
			/* ImageID: base, size, pid, the file's TimeDateStamp even where the image
			 * record has 0, the name alone */
			cr_assert_eq(u64(id->b + 0x30), u64(v[i].b + hdr));
			cr_assert_eq(u64(id->b + 0x38), u64(v[i].b + hdr + 8));
			cr_assert_eq(u32(id->b + 0x40), pid);
			cr_assert_neq(u32(id->b + 0x44), 0);
			cr_assert_neq(id->b[0x48], '\\', "the file name alone");
			cr_assert_eq(u64(dbg->b + 0x30), u64(v[i].b + hdr));
			cr_assert_eq(u32(dbg->b + 0x38), pid);
			if (none) {
				cr_assert_eq(dbg->n, 0x3C, "None: base and pid");
				cr_assert_eq(id->b[0x48], 'n', "only nvlddmkm.sys has no PDB");
			} else {
				cr_assert_eq(u32(dbg->b + 0x4C), 1, "age 1");
				cr_assert_eq(dbg->b[dbg->n - 1], 0, "the PDB name's NUL");
				cr_assert_not_null(strstr((const char *)dbg->b + 0x50, ".pdb"));
			}
			if (perfinfo && pid == 1200 && !strcasecmp(v[i].hook, "0x1403")) {
				cr_assert_eq(u32(v[i].b + hdr + 0x18), 0, "the rundown's TDS is 0");
			}
		}
		checked++;
	}
	cr_assert_gt(checked, 10);
	free(v);
	/* verify reads them against the image lines: a PDB age changed in the truth is a
	 * mismatch */
	cr_assert_eq(test_run("cd '%s' && sed 's/\"pdb_age\":1,\"pdb_name\":\"ntdll.pdb\"/"
			      "\"pdb_age\":2,\"pdb_name\":\"ntdll.pdb\"/' d.jsonl > e.jsonl && "
			      "! cmp -s d.jsonl e.jsonl",
			      test_dir),
		     0);
	{
		char err[1024];
		int rc = test_etwforge("verify -q d.etl --truth e.jsonl", err, sizeof(err));

		cr_assert_eq(rc, 1, "%s", err);
		cr_assert_not_null(strstr(err, "image dcstart ntdll.dll: the PDB identity is not"),
				   "%s", err);
	}
}

Test(loader, merged_without_loader_is_refused)
{
	static const char text[] = "sessions:\n  - {name: k, flags: [cswitch], merged: true}\n";
	char err[1024];
	int rc;

	test_write("m.yaml", text, strlen(text));
	rc = test_etwforge("gen -q m.yaml -o m.etl", err, sizeof(err));
	cr_assert_eq(rc, 2, "%s", err);
	cr_assert_not_null(strstr(err, "m.yaml:2:"), "%s", err);
	cr_assert_not_null(strstr(err, "sessions.0.merged: the session logs no image to identify "
				       "(its flags have no loader)"),
			   "%s", err);
	cr_assert_eq(test_run("test ! -e '%s/m.etl'", test_dir), 0, "nothing written");
}

Test(loader, symbols_one_breakpad_file_per_pdb)
{
	char line[512], path[1024], guid[64] = "", err[1024];
	FILE *f;
	unsigned long prev_end = 0, funcs = 0;
	int rc;

	gen("x64", "win10-1903");
	cr_assert_eq(test_run("cd '%s' && rm -f d.etl && '%s' gen -q s.yaml -o d.etl --symbols sym",
			      test_dir, test_bin()),
		     0);
	/* ntdll.dll's identity from the truth: "D71323D9-2088-..." and age 1 */
	f = fopen(test_path("d.jsonl"), "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f) && !guid[0]) {
		char *g = strstr(line, "\"pdb_name\":\"ntdll.pdb\"")
				  ? strstr(line, "\"pdb_guid\":\"")
				  : NULL;

		if (g) {
			size_t n = 0;

			for (g += strlen("\"pdb_guid\":\""); *g != '"'; g++) {
				if (*g != '-') {
					guid[n++] = *g;
				}
			}
			guid[n] = '\0';
		}
	}
	fclose(f);
	cr_assert_eq(strlen(guid), 32);
	snprintf(path, sizeof(path), "sym/ntdll.pdb/%s1/ntdll.sym", guid);
	f = fopen(test_path(path), "r");
	cr_assert_not_null(f, "%s", path);
	cr_assert_not_null(fgets(line, sizeof(line), f));
	snprintf(path, sizeof(path), "MODULE windows x86_64 %s1 ntdll.pdb\n", guid);
	cr_assert_str_eq(line, path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long rva, size;
		char name[256];

		cr_assert_eq(sscanf(line, "FUNC %lx %lx 0 %255s", &rva, &size, name), 3, "%s",
			     line);
		cr_assert_geq(rva, prev_end, "by address, no overlap: %s", line);
		cr_assert_gt(size, 0);
		prev_end = rva + size;
		funcs++;
	}
	fclose(f);
	cr_assert_gt(funcs, 10);
	/* d3d11.dll and the driver have their own; a driver without a PDB has none */
	cr_assert_eq(
		test_run("cd '%s' && ls sym/d3d11.pdb/*/d3d11.sym sym/nvlddmkm.pdb/*/nvlddmkm.sym "
			 ">/dev/null && '%s' gen -q s.yaml -s 'drivers=[{name: nvlddmkm.sys, size: "
			 "0x100000, pdb: none}]' -o n.etl "
			 "--symbols nsym && test -e nsym/ntdll.pdb && test ! -e nsym/nvlddmkm.pdb",
			 test_dir, test_bin()),
		0);
	/* a folder that cannot be made: exit 1, no ETL file */
	test_write("plain", "x", 1);
	rc = test_etwforge("gen -q s.yaml -o e.etl --symbols plain/sym", err, sizeof(err));
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert_not_null(strstr(err, "--symbols: plain/sym: "), "%s", err);
	cr_assert_eq(test_run("test ! -e '%s/e.etl'", test_dir), 0, "nothing written");
	/* one PDB's folder taken by a file: no .sym file at all, no folder made, no
	 * temporary file left; the folder holds what it held */
	cr_assert_eq(test_run("cd '%s' && mkdir bad && echo x > bad/d3d11.pdb", test_dir), 0);
	rc = test_etwforge("gen -q s.yaml -o e.etl --symbols bad", err, sizeof(err));
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert_not_null(strstr(err, "--symbols: bad/d3d11.pdb: "), "%s", err);
	cr_assert_eq(test_run("cd '%s' && test \"$(ls -A bad)\" = d3d11.pdb && "
			      "test \"$(cat bad/d3d11.pdb)\" = x && test ! -e e.etl",
			      test_dir),
		     0, "the folder as it was");
	/* a folder where ntdll's file goes: the rename fails, no temporary file stays */
	cr_assert_eq(test_run("cd '%s' && rm -r bad && mkdir -p bad/ntdll.pdb/%s1/ntdll.sym",
			      test_dir, guid),
		     0);
	rc = test_etwforge("gen -q s.yaml -o e.etl --symbols bad", err, sizeof(err));
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert_not_null(strstr(err, "ntdll.sym: "), "%s", err);
	cr_assert_eq(test_run("cd '%s' && test -z \"$(find bad -name '*.tmp-*')\" && "
			      "test ! -e e.etl",
			      test_dir),
		     0, "no temporary file left");
}
