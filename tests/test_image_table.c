// SPDX-License-Identifier: MIT
/*
 * tests/test_image_table.c - the analysis's rules for images and stacks
 * (tools/lib/analysis/images.c, stacks.c), fed events made here: which
 * image maps an address when (a rundown's from before the trace, a Load
 * until its Unload, a Load over a mapped image ending it, a process's End
 * ending its images, an image unloaded twice counted and dropped, a kernel
 * module in every process, the identity a merge wrote before an image
 * record); how an event's stack is joined (the kernel part, then the user
 * part, however late; a key resolved to the first definition at or after
 * the reference, keys used again; a key no definition follows; an empty
 * StackWalk). The rules are etwforge(1)'s IMAGES AND STACKS.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "tools/lib/analysis/images.h"
#include "tools/lib/analysis/stacks.h"

#define K(x) (0xFFFFF80000000000u + (x)) /* a kernel address of x64 */

static struct an_clock clk = {.hz = 1000000000u}; /* ts = ns */
static struct an_identity no_processes;
static size_t seq;

static void image(struct an_images *im, uint16_t hook, uint64_t ts, uint32_t pid, uint64_t base,
		  uint64_t size, const char *path)
{
	struct etwforge_record rec = {.hook = hook};
	struct etwforge_event ev = {.kind = ETWFORGE_EV_IMAGE, .ts = ts, .rec = &rec};

	ev.u.image =
		(struct etwforge_image){.base = base, .size = size, .pid = pid, .file_name = path};
	cr_assert_eq(an_images_note(im, &ev, seq++), 0);
}

static void process_end(struct an_images *im, uint64_t ts, uint32_t pid)
{
	struct etwforge_record rec = {.hook = 0x0302};
	struct etwforge_event ev = {.kind = ETWFORGE_EV_PROCESS, .ts = ts, .rec = &rec};

	ev.u.process.pid = pid;
	cr_assert_eq(an_images_note(im, &ev, seq++), 0);
}

static const char *name_at(const struct an_images *im, uint32_t pid, uint64_t addr, uint64_t ts)
{
	int64_t r = an_image_at(im, pid, addr, ts);

	return r < 0 ? NULL : im->rows[r].pub.name;
}

Test(image_table, rows_over_time)
{
	struct an_images im;

	an_images_init(&im, 8);
	/* the start rundown: a kernel module, two images of process 100 */
	image(&im, 0x1403, 10, 0, K(0x100000), 0x10000, "\\SystemRoot\\system32\\ntoskrnl.exe");
	image(&im, 0x1403, 11, 100, 0x10000, 0x1000, "\\Device\\HarddiskVolume2\\a.dll");
	image(&im, 0x1403, 12, 100, 0x20000, 0x1000, "\\Windows\\System32\\b.dll");
	/* b.dll unloaded twice; c.dll loaded over a.dll's place (no Unload); d.dll loaded */
	image(&im, 0x1402, 50, 100, 0x20000, 0x1000, "\\Windows\\System32\\b.dll");
	image(&im, 0x1402, 55, 100, 0x20000, 0x1000, "\\Windows\\System32\\b.dll");
	image(&im, 0x030A, 60, 100, 0x10800, 0x1000, "C:\\c.dll");
	image(&im, 0x030A, 70, 200, 0x30000, 0x1000, "d.dll");
	process_end(&im, 80, 200);
	/* the stop rundown: c.dll still there */
	image(&im, 0x1404, 90, 100, 0x10800, 0x1000, "C:\\c.dll");
	cr_assert_eq(an_images_finish(&im, &no_processes, &clk, NULL, NULL), 0);

	cr_expect_eq(im.n, 5, "ntoskrnl, a, b, c, d: the DCEnd of c continues its Load's row");
	cr_expect_eq(im.unmatched, 1, "b.dll's second Unload");
	cr_expect_str_eq(name_at(&im, 100, 0x10010, 20), "a.dll");
	cr_expect_str_eq(name_at(&im, 100, 0x10010, 59), "a.dll");
	cr_expect_null(name_at(&im, 100, 0x10010, 60), "a Load over it ended a.dll");
	cr_expect_str_eq(name_at(&im, 100, 0x10810, 60), "c.dll");
	cr_expect_str_eq(name_at(&im, 100, 0x10810, 1000), "c.dll", "mapped to the end");
	cr_expect_str_eq(name_at(&im, 100, 0x20fff, 50), "b.dll", "its Unload's time included");
	cr_expect_null(name_at(&im, 100, 0x21000, 20), "past b.dll's end");
	cr_expect_null(name_at(&im, 100, 0x20000, 51));
	cr_expect_str_eq(name_at(&im, 200, 0x30000, 75), "d.dll");
	cr_expect_null(name_at(&im, 200, 0x30000, 81), "its process ended");
	cr_expect_null(name_at(&im, 100, 0x30000, 75), "another process's image");
	cr_expect_str_eq(name_at(&im, 100, K(0x100123), 5), "ntoskrnl.exe", "in every process");
	cr_expect_str_eq(name_at(&im, 0, K(0x100123), 5), "ntoskrnl.exe");
	cr_expect_str_eq(name_at(&im, 4242, K(0x10ffff), 5), "ntoskrnl.exe");
	for (size_t i = 0; i < im.n; i++) {
		const struct etwforge_image_row *r = &im.rows[i].pub;

		if (!strcmp(r->name, "a.dll") || !strcmp(r->name, "ntoskrnl.exe")) {
			cr_expect_eq(r->load_ns, INT64_MIN, "%s: from before the trace", r->name);
		}
		if (!strcmp(r->name, "c.dll")) {
			cr_expect_eq(r->load_ns, 60);
			cr_expect_eq(r->unload_ns, INT64_MAX);
		}
		if (!strcmp(r->name, "a.dll")) {
			cr_expect_eq(r->unload_ns, 59);
		}
	}
	an_images_free(&im);
}

Test(image_table, a_merge_identity_goes_to_the_image_record_after_it)
{
	struct an_images im;
	struct etwforge_record ktc = {0};
	struct etwforge_event id = {.kind = ETWFORGE_EV_IMAGE_ID, .ts = 10, .rec = &ktc};
	struct etwforge_event dbg = {.kind = ETWFORGE_EV_DBGID, .ts = 10, .rec = &ktc};
	int64_t r;

	an_images_init(&im, 8);
	id.u.image_id = (struct etwforge_image_id){
		.base = 0x7F60BD90000u, .size = 0x25000, .pid = 456, .timestamp = 0x5010AC3A};
	dbg.u.dbgid = (struct etwforge_dbgid){.base = 0x7F60BD90000u,
					      .pid = 456,
					      .guid = "{3C8F0528-9C07-4257-9192-78EA9AA6A1F4}",
					      .age = 1,
					      .pdb = "d:\\build\\smss.pdb"};
	cr_assert_eq(an_images_note(&im, &id, seq++), 0);
	cr_assert_eq(an_images_note(&im, &dbg, seq++), 0);
	image(&im, 0x1403, 10, 456, 0x7F60BD90000u, 0x25000, "smss.exe");
	/* the next image at another base has no identity */
	image(&im, 0x1403, 11, 456, 0x7F60BDC0000u, 0x1000, "x.dll");
	cr_assert_eq(an_images_finish(&im, &no_processes, &clk, NULL, NULL), 0);
	r = an_image_at(&im, 456, 0x7F60BD90010u, 10);
	cr_assert_geq(r, 0);
	cr_expect_eq(im.rows[r].pub.timestamp, 0x5010AC3A, "the ImageID's, the record's is 0");
	cr_expect_str_eq(im.rows[r].pub.pdb, "smss.pdb", "the PDB's name without its folder");
	cr_expect_eq(im.rows[r].pub.age, 1);
	r = an_image_at(&im, 456, 0x7F60BDC0010u, 11);
	cr_assert_geq(r, 0);
	cr_expect_null(im.rows[r].pub.pdb);
	cr_expect_eq(im.rows[r].pub.timestamp, 0);
	an_images_free(&im);
}

/* ---- stacks ---------------------------------------------------------------------- */

static void walk(struct an_stacks *st, uint64_t ts, uint64_t event_ts, uint32_t tid,
		 const uint64_t *frames, size_t n)
{
	struct etwforge_record rec = {.hook = 0x1820};
	struct etwforge_event ev = {.kind = ETWFORGE_EV_STACK, .ts = ts, .rec = &rec};

	ev.u.stack = (struct etwforge_stack_walk){event_ts, 100, tid, frames, n};
	cr_assert_eq(an_stacks_note(st, &ev, seq++), 0);
}

static void key(struct an_stacks *st, bool user, uint64_t ts, uint64_t event_ts, uint32_t tid,
		uint64_t k)
{
	struct etwforge_record rec = {.hook = user ? 0x1826 : 0x1825};
	struct etwforge_event ev = {.kind = ETWFORGE_EV_STACK_KEY, .ts = ts, .rec = &rec};

	ev.u.stack_key =
		(struct etwforge_stack_key){user ? "user" : "kernel", event_ts, 100, tid, k};
	cr_assert_eq(an_stacks_note(st, &ev, seq++), 0);
}

static void def(struct an_stacks *st, uint64_t ts, uint64_t k, const uint64_t *frames, size_t n)
{
	struct etwforge_record rec = {.hook = 0x1823};
	struct etwforge_event ev = {.kind = ETWFORGE_EV_STACK_DEF, .ts = ts, .rec = &rec};

	ev.u.stack_def = (struct etwforge_stack_def){"delete", k, frames, n};
	cr_assert_eq(an_stacks_note(st, &ev, seq++), 0);
}

/* The frames of the stack of (@event_ts, @tid) equal @want (@n of them). */
static void expect_stack(const struct an_stacks *st, uint64_t event_ts, uint32_t tid,
			 const uint64_t *want, size_t n, size_t kernel)
{
	const struct an_stack_event *e = an_stack_of(st, event_ts, tid);
	const uint64_t *f;
	size_t m;

	cr_assert_not_null(e, "no stack at %llu of %u", (unsigned long long)event_ts, tid);
	f = an_run_frames(&st->joined, e->stack, &m);
	cr_assert_eq(m, n, "%zu frames, not %zu", m, n);
	cr_expect_eq(st->joined.v[e->stack].kernel, kernel);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(f[i], want[i], "frame %zu", i);
	}
}

Test(image_table, stacks_joined)
{
	static const uint64_t kern[] = {K(1), K(2), K(3), K(4)}, kern2[] = {K(9), K(8), K(7), K(6)};
	static const uint64_t user[] = {0x1001, 0x1002, 0x1003, 0x1004}, short_user[] = {0x2001};
	static const uint64_t joined[] = {K(1), K(2), K(3), K(4), 0x1001, 0x1002, 0x1003, 0x1004};
	struct an_stacks st;
	struct an_images im;

	an_images_init(&im, 8);
	cr_assert_eq(an_images_finish(&im, &no_processes, &clk, NULL, NULL), 0);
	an_stacks_init(&st, im.kernel_at);
	/* event 1000 of thread 7: its user part first in the file (deferred parts come in any
	 * order of CPUs), then its kernel part; keys 0xA and 0xB, defined later */
	key(&st, true, 1500, 1000, 7, 0xB);
	key(&st, false, 1010, 1000, 7, 0xA);
	/* event 2000 of thread 7: key 0xA again, after its first definition: the second */
	key(&st, false, 2010, 2000, 7, 0xA);
	/* event 2000 of thread 8 (another thread, same time): a plain user StackWalk */
	walk(&st, 2020, 2000, 8, short_user, 1);
	/* event 3000 of thread 9: a key never defined; an empty StackWalk of thread 10 */
	key(&st, false, 3010, 3000, 9, 0xC);
	walk(&st, 3020, 3000, 10, NULL, 0);
	def(&st, 1800, 0xA, kern, 4);
	def(&st, 1900, 0xB, user, 4);
	def(&st, 2500, 0xA, kern2, 4);
	cr_assert_eq(an_stacks_finish(&st, &im), 0);

	expect_stack(&st, 1000, 7, joined, 8, 4);
	expect_stack(&st, 2000, 7, kern2, 4, 4);
	expect_stack(&st, 2000, 8, short_user, 1, 0);
	cr_expect_null(an_stack_of(&st, 3000, 9), "its key has no definition");
	cr_expect_null(an_stack_of(&st, 3000, 10), "an empty stack");
	cr_expect_null(an_stack_of(&st, 1000, 8), "another thread's event");
	cr_expect_eq(st.unresolved, 1);
	cr_expect_eq(st.empty, 1);
	cr_expect_eq(st.records, 6);
	cr_expect_eq(st.nev, 3);
	cr_expect_eq(st.frames, 8 + 4 + 1);
	cr_expect_eq(st.frames_in_image, 0, "no image");
	an_stacks_free(&st);
	an_images_free(&im);
}
