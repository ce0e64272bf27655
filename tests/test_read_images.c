// SPDX-License-Identifier: MIT
/*
 * tests/test_read_images.c - images, stack walks, stack keys and the
 * KernelTraceControl image identities through the public reading API
 * (etwforge_iter_*, etwforge_event_json): on the two Windows samples that
 * carry them (tests/data/samples/: P = perfview_net.4.5.2.x64.etl, build
 * 9200, merged by PerfView; A = airbus_ShutdownPerfDiagLogger.etl, build
 * 18362, image records v3), the count of each kind is the one the
 * samples' documentation gives, and the records decoded by hand there (a
 * record at "b38+0x81E8" is at offset 0x81E8 of buffer 38, counted as if
 * the buffer were stored uncompressed) read as typed here from their
 * bytes, not from the decoder's constants. A stack record cut inside its
 * frames is no event and a record whose payload is "too short".
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"

#define A_FILE "airbus_ShutdownPerfDiagLogger.etl"
#define P_FILE "perfview_net.4.5.2.x64.etl"

static struct etwforge_file *open_sample(const char *name)
{
	struct etwforge_file *f = etwforge_file_open(test_sample(name), 0, NULL);

	cr_assert_not_null(f, "%s does not open", name);
	return f;
}

/* ---- counts ----------------------------------------------------------------- */

struct counts {
	unsigned by_kind[20];	     /* by bit of the event kind */
	unsigned by_hook[2][0x2000]; /* [SYSTEM 0, PERFINFO 1][hook] */
	unsigned by_type[256];	     /* KernelTraceControl Class.Type */
	unsigned frames_max[3];	     /* of 0x1820 (kernel, user), of definitions */
	unsigned long long frames;   /* every frame of every record */
};

static unsigned bit_of(unsigned kind)
{
	unsigned b = 0;

	while (kind > 1) {
		kind >>= 1;
		b++;
	}
	return b;
}

static void count(struct etwforge_file *f, enum etwforge_order order, unsigned kinds,
		  struct counts *c)
{
	struct etwforge_iter *it = etwforge_iter_new(f, order, kinds, NULL);
	const struct etwforge_event *ev;
	int rc;

	memset(c, 0, sizeof(*c));
	cr_assert_not_null(it);
	while ((rc = etwforge_iter_next(it, &ev, NULL)) == 1) {
		cr_assert_not_null(ev->rec);
		c->by_kind[bit_of(ev->kind)]++;
		if (ev->rec->has_hook && ev->rec->hook < 0x2000) {
			c->by_hook[strncmp(ev->rec->kind, "PERFINFO", 8) == 0][ev->rec->hook]++;
		} else if (ev->rec->has_provider) {
			c->by_type[ev->rec->class_type]++;
		}
		if (ev->kind == ETWFORGE_EV_STACK) {
			unsigned k = ev->u.stack.frames[0] < 0xFFFF800000000000u;
			unsigned n = (unsigned)ev->u.stack.nframes;

			c->frames_max[k] = n > c->frames_max[k] ? n : c->frames_max[k];
			c->frames += n;
		} else if (ev->kind == ETWFORGE_EV_STACK_DEF) {
			unsigned n = (unsigned)ev->u.stack_def.nframes;

			c->frames_max[2] = n > c->frames_max[2] ? n : c->frames_max[2];
			c->frames += n;
		}
	}
	cr_assert_eq(rc, 0, "the iteration ends cleanly");
	etwforge_iter_free(it);
}

#define N(c, kind) ((c)->by_kind[bit_of(ETWFORGE_EV_##kind)])

/* P (STACK_IMAGE_FACTS 0.3, from every record of the file) */
static void expect_p_counts(const struct counts *c)
{
	/* Image: 0x030A x35, 0x1402 x32 (SYSTEM64); 0x1403 141 SYSTEM64 + 1622 PERFINFO64,
	 * 0x1404 141 + 1625; 0x1421, 0x1422 x1 (PERFINFO64) */
	cr_expect_eq(c->by_hook[0][0x030A], 35);
	cr_expect_eq(c->by_hook[0][0x1402], 32);
	cr_expect_eq(c->by_hook[0][0x1403], 141);
	cr_expect_eq(c->by_hook[1][0x1403], 1622);
	cr_expect_eq(c->by_hook[0][0x1404], 141);
	cr_expect_eq(c->by_hook[1][0x1404], 1625);
	cr_expect_eq(c->by_hook[1][0x1421], 1);
	cr_expect_eq(c->by_hook[1][0x1422], 1);
	cr_expect_eq(N(c, IMAGE), 3596 + 2, "the 3,596 image records and the two singletons");
	/* StackWalk 0x1820 x252, 0x1823 x1909, 0x1824 x1012, 0x1825 x2061, 0x1826 x7046, no 0x1822 */
	cr_expect_eq(c->by_hook[1][0x1820], 252);
	cr_expect_eq(c->by_hook[1][0x1822], 0);
	cr_expect_eq(c->by_hook[1][0x1823], 1909);
	cr_expect_eq(c->by_hook[1][0x1824], 1012);
	cr_expect_eq(c->by_hook[1][0x1825], 2061);
	cr_expect_eq(c->by_hook[1][0x1826], 7046);
	cr_expect_eq(N(c, STACK), 252);
	cr_expect_eq(N(c, STACK_KEY), 2061 + 7046);
	cr_expect_eq(N(c, STACK_DEF), 1909 + 1012);
	/* maxima: 0x1820 40 frames (user), 22 (kernel); definitions 111 */
	cr_expect_eq(c->frames_max[0], 22);
	cr_expect_eq(c->frames_max[1], 40);
	cr_expect_eq(c->frames_max[2], 111);
	/* KernelTraceControl: ImageID x3590, DbgID_RSDS x3534, FileVersion x705, DbgID_ILRSDS
	 * x44, None x12 */
	cr_expect_eq(c->by_type[0], 3590);
	cr_expect_eq(c->by_type[36], 3534);
	cr_expect_eq(c->by_type[37], 44);
	cr_expect_eq(c->by_type[32], 12);
	cr_expect_eq(c->by_type[64], 705);
	cr_expect_eq(N(c, IMAGE_ID), 3590);
	cr_expect_eq(N(c, DBGID), 3534 + 44 + 12);
	cr_expect_eq(N(c, FILE_VERSION), 705);
}

Test(read_images, counts_9200_in_every_order, .timeout = 120.)
{
	struct etwforge_file *f = open_sample(P_FILE);
	static struct counts c;

	for (unsigned o = ETWFORGE_ORDER_FILE; o <= ETWFORGE_ORDER_TIME; o++) {
		count(f, (enum etwforge_order)o, ETWFORGE_EV_IMAGES | ETWFORGE_EV_STACKS, &c);
		expect_p_counts(&c);
	}
	/* a kind asked alone gives only itself */
	count(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_STACK_KEY, &c);
	cr_expect_eq(N(&c, STACK_KEY), 9107);
	cr_expect_eq(N(&c, IMAGE) + N(&c, STACK) + N(&c, STACK_DEF) + N(&c, IMAGE_ID) +
			     N(&c, DBGID) + N(&c, FILE_VERSION),
		     0);
	count(f, ETWFORGE_ORDER_CPU, ETWFORGE_EV_DBGID, &c);
	cr_expect_eq(N(&c, DBGID), 3590);
	cr_expect_eq(c.by_type[0] + c.by_type[64], 0);
	etwforge_file_close(f);
}

Test(read_images, counts_18362)
{
	struct etwforge_file *f = open_sample(A_FILE);
	static struct counts c;

	count(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_IMAGES | ETWFORGE_EV_STACKS, &c);
	/* Image v3: 0x030A x72, 0x1402 x4791, 0x1403 196 + 6549, 0x1404 193 + 1952, 0x1421 /
	 * 0x1422 x1; no stacks, no KernelTraceControl records */
	cr_expect_eq(c.by_hook[0][0x030A], 72);
	cr_expect_eq(c.by_hook[0][0x1402], 4791);
	cr_expect_eq(c.by_hook[0][0x1403], 196);
	cr_expect_eq(c.by_hook[1][0x1403], 6549);
	cr_expect_eq(c.by_hook[0][0x1404], 193);
	cr_expect_eq(c.by_hook[1][0x1404], 1952);
	cr_expect_eq(c.by_hook[1][0x1421], 1);
	cr_expect_eq(c.by_hook[1][0x1422], 1);
	cr_expect_eq(N(&c, IMAGE), 13753 + 2);
	cr_expect_eq(N(&c, STACK) + N(&c, STACK_KEY) + N(&c, STACK_DEF), 0);
	cr_expect_eq(N(&c, IMAGE_ID) + N(&c, DBGID) + N(&c, FILE_VERSION), 0);
	etwforge_file_close(f);
}

/* ---- the hand-decoded records ----------------------------------------------- */

/*
 * struct seek - an iteration in file order of @kinds that knows where each
 * buffer starts: at() finds the event of @kind at offset @at of buffer @b.
 */
struct seek {
	struct etwforge_iter *it;
	uint64_t buffer_at[512];
};

static void seek_open(struct seek *s, struct etwforge_file *f, unsigned kinds)
{
	memset(s, 0, sizeof(*s));
	s->it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE, kinds | ETWFORGE_EV_BUFFER, NULL);
	cr_assert_not_null(s->it);
}

static const struct etwforge_event *at(struct seek *s, unsigned kind, unsigned b, uint64_t off)
{
	const struct etwforge_event *ev;

	while (etwforge_iter_next(s->it, &ev, NULL) == 1) {
		if (ev->kind == ETWFORGE_EV_BUFFER) {
			if (ev->u.buffer.index < 512) {
				s->buffer_at[ev->u.buffer.index] = ev->u.buffer.file_offset;
			}
			continue;
		}
		if (ev->rec->buffer == b && ev->file_offset - s->buffer_at[b] == off) {
			cr_assert_eq(ev->kind, kind, "b%u+0x%llx is of kind 0x%x, not 0x%x", b,
				     (unsigned long long)off, ev->kind, kind);
			return ev;
		}
	}
	cr_assert_fail("no record at b%u+0x%llx", b, (unsigned long long)off);
	return NULL;
}

static json_t *as_json(const struct etwforge_event *ev)
{
	char buf[16384];
	size_t n = etwforge_event_json(ev, 0, buf, sizeof(buf));
	json_error_t e;
	json_t *o;

	cr_assert_lt(n, sizeof(buf));
	o = json_loads(buf, 0, &e);
	cr_assert_not_null(o, "bad JSON: %s: %s", e.text, buf);
	return o;
}

static json_t *jget(json_t *o, const char *obj, const char *key)
{
	return json_object_get(json_object_get(o, obj), key);
}

static const char *jstr(json_t *o, const char *obj, const char *key)
{
	return json_string_value(jget(o, obj, key));
}

/* Record headers: SYSTEM64 (@tid, @pid, times) or PERFINFO64, with its size and time. */
static void expect_system(const struct etwforge_event *ev, unsigned size, unsigned long long ts,
			  unsigned tid, unsigned pid, unsigned kt, unsigned ut)
{
	uint32_t k, u;

	cr_expect_str_eq(ev->rec->kind, "SYSTEM64");
	cr_expect_eq(ev->rec->size, size);
	cr_expect_eq(ev->ts, ts);
	cr_expect_eq(ev->rec->tid, tid);
	cr_expect_eq(ev->rec->pid, pid);
	cr_expect(etwforge_record_times(ev->rec, &k, &u));
	cr_expect_eq(k, kt);
	cr_expect_eq(u, ut);
}

static void expect_perfinfo(const struct etwforge_event *ev, unsigned hook, unsigned size,
			    unsigned long long ts)
{
	cr_expect_str_eq(ev->rec->kind, "PERFINFO64");
	cr_expect_eq(ev->rec->marker, 0xC0110002u);
	cr_expect_eq(ev->rec->hook, hook);
	cr_expect_eq(ev->rec->size, size);
	cr_expect_eq(ev->ts, ts);
}

/* Image Load v2, P b38+0x81E8: ntdll.dll into Test.x64.exe */
Test(read_images, load_9200)
{
	struct etwforge_file *f = open_sample(P_FILE);
	struct seek s;
	const struct etwforge_event *ev;
	const struct etwforge_image *m;
	json_t *o;

	seek_open(&s, f, ETWFORGE_EV_IMAGE);
	ev = at(&s, ETWFORGE_EV_IMAGE, 38, 0x81E8);
	m = &ev->u.image;
	expect_system(ev, 150, 0x756BC9E7, 3680, 3676, 0, 0);
	cr_expect_eq(ev->rec->hook, 0x030A);
	cr_expect_eq(ev->rec->marker, 0xC0020002u);
	cr_expect_eq(ev->rec->decoded, ETWFORGE_PAYLOAD_IMAGE);
	cr_expect_str_eq(m->event, "load");
	cr_expect_eq(m->base, 0x7F9D02F0000);
	cr_expect_eq(m->size, 0x1BE000);
	cr_expect_eq(m->pid, 3676);
	cr_expect_eq(m->checksum, 0x1C7B26);
	cr_expect_eq(m->timestamp, 0x5010ACD2);
	cr_expect_eq(m->signature_level + m->signature_type, 0, "v2 has none");
	cr_expect_eq(m->default_base, 0x7F9D02F0000);
	cr_expect_str_eq(m->file_name, "\\SystemRoot\\System32\\ntdll.dll");
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "image", "event"), "load");
	cr_expect_str_eq(jstr(o, "image", "base"), "0x7f9d02f0000");
	cr_expect_str_eq(jstr(o, "image", "file_name"), "\\SystemRoot\\System32\\ntdll.dll");
	cr_expect_null(jget(o, "image", "signature_level"), "v2: no signature bytes");
	json_decref(o);
	etwforge_iter_free(s.it);
	etwforge_file_close(f);
}

/*
 * Unload v2 (P b29+0x4F28, combase.dll), the kernel-module DCStart (P
 * b1+0x5420, ntoskrnl.exe, SYSTEM64 of the rundown thread), a process's
 * DCStart (P b2+0x0458, smss.exe, PERFINFO64) and its DCEnd (P
 * b185+0xD320, the same payload), the PE32 DefaultBase (P b184+0x4EE8),
 * KernelBase and HypercallPage (P b184+0xE238 / +0xE250).
 */
Test(read_images, unload_rundown_singletons_9200)
{
	struct etwforge_file *f = open_sample(P_FILE);
	struct seek s;
	const struct etwforge_event *ev;
	const struct etwforge_image *m;
	json_t *o;

	seek_open(&s, f, ETWFORGE_EV_IMAGE);
	ev = at(&s, ETWFORGE_EV_IMAGE, 1, 0x5420);
	m = &ev->u.image;
	expect_system(ev, 156, 0x73CE39C4, 3780, 3988, 2, 0);
	cr_expect_eq(ev->rec->hook, 0x1403);
	cr_expect_str_eq(m->event, "dcstart");
	cr_expect_eq(m->base, 0xFFFFF80021489000u);
	cr_expect_eq(m->size, 0x748000);
	cr_expect_eq(m->pid, 0);
	cr_expect_eq(m->checksum, 0x6AA6C8);
	cr_expect_eq(m->timestamp, 0x5010AC4B);
	cr_expect_eq(m->default_base, 0);
	cr_expect_str_eq(m->file_name, "\\SystemRoot\\system32\\ntoskrnl.exe");

	ev = at(&s, ETWFORGE_EV_IMAGE, 2, 0x0458);
	m = &ev->u.image;
	expect_perfinfo(ev, 0x1403, 172, 0x73CE3EB3);
	cr_expect_str_eq(m->event, "dcstart");
	cr_expect_eq(m->base, 0x7F60BD90000);
	cr_expect_eq(m->size, 0x25000);
	cr_expect_eq(m->pid, 456);
	cr_expect_eq(m->checksum, 0x24B53);
	cr_expect_eq(m->timestamp, 0);
	cr_expect_eq(m->default_base, 0x7F60BD90000);
	cr_expect_str_eq(m->file_name, "\\Device\\HarddiskVolume2\\Windows\\System32\\smss.exe");

	ev = at(&s, ETWFORGE_EV_IMAGE, 29, 0x4F28);
	m = &ev->u.image;
	expect_system(ev, 148, 0x757D885E, 3680, 3676, 0, 1);
	cr_expect_eq(ev->rec->hook, 0x1402);
	cr_expect_str_eq(m->event, "unload");
	cr_expect_eq(m->base, 0x7F9CFAC0000);
	cr_expect_eq(m->size, 0x1B0000);
	cr_expect_eq(m->pid, 3676);
	cr_expect_eq(m->checksum, 0x1B8C93);
	cr_expect_eq(m->timestamp, 0x501088C7);
	cr_expect_eq(m->default_base, 0x7F9CFAC0000);
	cr_expect_str_eq(m->file_name, "\\Windows\\System32\\combase.dll");

	ev = at(&s, ETWFORGE_EV_IMAGE, 184, 0x4EE8);
	m = &ev->u.image;
	cr_expect_eq(ev->rec->hook, 0x030A);
	cr_expect_eq(m->base, 0x77150000);
	cr_expect_eq(m->size, 0x43000);
	cr_expect_eq(m->pid, 3988);
	cr_expect_eq(m->checksum, 0x501E2);
	cr_expect_eq(m->timestamp, 0x50108851);
	cr_expect_eq(m->default_base, 0x771500000003C000u, "PE32: ImageBase << 32 | BaseOfData");

	ev = at(&s, ETWFORGE_EV_IMAGE, 184, 0xE238);
	expect_perfinfo(ev, 0x1421, 24, 0x79BBF766);
	cr_expect_str_eq(ev->u.image.event, "kernel_base");
	cr_expect_eq(ev->u.image.base, 0xFFFFF80021489000u);
	cr_expect_null(ev->u.image.file_name);
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "image", "base"), "0xfffff80021489000");
	cr_expect_null(jget(o, "image", "file_name"), "one address, nothing else");
	json_decref(o);
	ev = at(&s, ETWFORGE_EV_IMAGE, 184, 0xE250);
	expect_perfinfo(ev, 0x1422, 24, 0x79BBF769);
	cr_expect_str_eq(ev->u.image.event, "hypercall_page");
	cr_expect_eq(ev->u.image.base, 0xFFFFFFFFFFD03000u);

	ev = at(&s, ETWFORGE_EV_IMAGE, 185, 0xD320);
	m = &ev->u.image;
	cr_expect_eq(ev->rec->hook, 0x1404);
	cr_expect_str_eq(m->event, "dcend");
	cr_expect_eq(m->base, 0x7F60BD90000);
	cr_expect_eq(m->pid, 456);
	cr_expect_eq(m->checksum, 0x24B53);
	cr_expect_str_eq(m->file_name, "\\Device\\HarddiskVolume2\\Windows\\System32\\smss.exe");
	etwforge_iter_free(s.it);
	etwforge_file_close(f);
}

/* Unload v3 with the signature bytes, A b8+0x4340 (ieproxy.dll); A is uncompressed. */
Test(read_images, unload_v3_18362)
{
	struct etwforge_file *f = open_sample(A_FILE);
	struct seek s;
	const struct etwforge_event *ev;
	const struct etwforge_image *m;
	json_t *o;

	seek_open(&s, f, ETWFORGE_EV_IMAGE);
	ev = at(&s, ETWFORGE_EV_IMAGE, 8, 0x4340);
	m = &ev->u.image;
	cr_expect_eq(ev->file_offset, 8 * 0x10000 + 0x4340);
	cr_expect_eq(ev->rec->marker, 0xC0020003u);
	expect_system(ev, 194, 0x44BB7EB017, 2608, 2100, 1, 0);
	cr_expect_str_eq(m->event, "unload");
	cr_expect_eq(m->base, 0x7FF971590000);
	cr_expect_eq(m->size, 0xD5000);
	cr_expect_eq(m->pid, 2100);
	cr_expect_eq(m->checksum, 0xD8E98);
	cr_expect_eq(m->timestamp, 0xB8DFEA3B);
	cr_expect_eq(m->signature_level, 12, "SE_SIGNING_LEVEL_WINDOWS");
	cr_expect_eq(m->signature_type, 2, "SeImageSignatureCache");
	cr_expect_eq(m->default_base, 0x7FF971590000);
	cr_expect_str_eq(m->file_name, "\\Device\\HarddiskVolume3\\Windows\\System32\\ieproxy.dll");
	o = as_json(ev);
	cr_expect_eq(json_integer_value(jget(o, "image", "signature_level")), 12);
	cr_expect_eq(json_integer_value(jget(o, "image", "signature_type")), 2);
	json_decref(o);
	etwforge_iter_free(s.it);
	etwforge_file_close(f);
}

static void expect_frames(const uint64_t *got, size_t n, const uint64_t *want, size_t wn)
{
	cr_assert_eq(n, wn, "%zu frames, not %zu", n, wn);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(got[i], want[i], "frame %zu: 0x%llx, not 0x%llx", i,
			     (unsigned long long)got[i], (unsigned long long)want[i]);
	}
}

/*
 * A sample's kernel key and user key (P b21+0x16E8 / +0x1710), the plain
 * StackWalks of one kernel frame (P b21+0xCF60) and three user frames (P
 * b38+0x4808), the idle-thread DPC sample's stack (P b38+0xDA90), and an
 * image load's kernel key and one-frame user StackWalk (P b38+0x80D8 /
 * +0x8100).
 */
Test(read_images, stack_walks_and_keys_9200)
{
	static const uint64_t user3[] = {0x7F9D02F84A5, 0x7F9CF59167E, 0x7F9D030C3F1};
	struct etwforge_file *f = open_sample(P_FILE);
	struct seek s;
	const struct etwforge_event *ev;
	json_t *o, *fr;

	seek_open(&s, f, ETWFORGE_EV_STACKS);
	ev = at(&s, ETWFORGE_EV_STACK_KEY, 21, 0x16E8);
	expect_perfinfo(ev, 0x1825, 40, 0x73E4533D);
	cr_expect_str_eq(ev->u.stack_key.event, "kernel");
	cr_expect_eq(ev->u.stack_key.event_ts, 0x73E452CE);
	cr_expect_eq(ev->u.stack_key.pid, 1188);
	cr_expect_eq(ev->u.stack_key.tid, 0xAC0);
	cr_expect_eq(ev->u.stack_key.key, 0xFFFFFA8303442250u);
	ev = at(&s, ETWFORGE_EV_STACK_KEY, 21, 0x1710);
	expect_perfinfo(ev, 0x1826, 40, 0x73E4544E);
	cr_expect_str_eq(ev->u.stack_key.event, "user");
	cr_expect_eq(ev->u.stack_key.event_ts, 0x73E452CE);
	cr_expect_eq(ev->u.stack_key.pid, 1188);
	cr_expect_eq(ev->u.stack_key.tid, 0xAC0);
	cr_expect_eq(ev->u.stack_key.key, 0xFFFFFA8303442390u);
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "stack_key", "key"), "0xfffffa8303442390");
	cr_expect_eq(json_integer_value(jget(o, "stack_key", "event_ts")), 0x73E452CE);
	json_decref(o);

	ev = at(&s, ETWFORGE_EV_STACK, 21, 0xCF60);
	expect_perfinfo(ev, 0x1820, 40, 0x74B7DBD1);
	cr_expect_eq(ev->u.stack.event_ts, 0x74B7DA61);
	cr_expect_eq(ev->u.stack.pid, 4);
	cr_expect_eq(ev->u.stack.tid, 0x248);
	expect_frames(ev->u.stack.frames, ev->u.stack.nframes,
		      (const uint64_t[]){0xFFFFF8800422EE86u}, 1);

	ev = at(&s, ETWFORGE_EV_STACK, 38, 0x4808);
	expect_perfinfo(ev, 0x1820, 56, 0x753D5D67);
	cr_expect_eq(ev->u.stack.event_ts, 0x753D5BCC);
	cr_expect_eq(ev->u.stack.pid, 0x3D4);
	cr_expect_eq(ev->u.stack.tid, 0x3D0);
	expect_frames(ev->u.stack.frames, ev->u.stack.nframes, user3, 3);
	o = as_json(ev);
	fr = jget(o, "stack", "frames");
	cr_expect_eq(json_array_size(fr), 3);
	cr_expect_str_eq(json_string_value(json_array_get(fr, 0)), "0x7f9d02f84a5");
	cr_expect_str_eq(json_string_value(json_array_get(fr, 2)), "0x7f9d030c3f1");
	json_decref(o);

	ev = at(&s, ETWFORGE_EV_STACK_KEY, 38, 0x80D8);
	expect_perfinfo(ev, 0x1825, 40, 0x756BC89A);
	cr_expect_eq(ev->u.stack_key.event_ts, 0x756BC82C);
	cr_expect_eq(ev->u.stack_key.pid, 3676);
	cr_expect_eq(ev->u.stack_key.tid, 3680);
	cr_expect_eq(ev->u.stack_key.key, 0xFFFFFA830340D610u);
	ev = at(&s, ETWFORGE_EV_STACK, 38, 0x8100);
	expect_perfinfo(ev, 0x1820, 40, 0x756BC9C0);
	cr_expect_eq(ev->u.stack.event_ts, 0x756BC82C);
	cr_expect_eq(ev->u.stack.pid, 3676);
	cr_expect_eq(ev->u.stack.tid, 3680);
	expect_frames(ev->u.stack.frames, ev->u.stack.nframes, (const uint64_t[]){0x7F9D030C3D0},
		      1);

	ev = at(&s, ETWFORGE_EV_STACK, 38, 0xDA90);
	expect_perfinfo(ev, 0x1820, 40, 0x758DC8D2);
	cr_expect_eq(ev->u.stack.event_ts, 0x758DC861);
	cr_expect_eq(ev->u.stack.pid, 0);
	cr_expect_eq(ev->u.stack.tid, 0, "the idle thread");
	expect_frames(ev->u.stack.frames, ev->u.stack.nframes,
		      (const uint64_t[]){0xFFFFF880012C2070u}, 1);
	etwforge_iter_free(s.it);
	etwforge_file_close(f);
}

/*
 * The definitions: the smallest, a KeyDelete of 4 frames (P b105+0x7240),
 * and the two KeyRundowns of the sample's keys above (P b208+0xAF30 kernel,
 * all 15 frames; b208+0xE218 user, its ends).
 */
Test(read_images, stack_definitions_9200)
{
	static const uint64_t del4[] = {0xFFFFF800218D202Cu, 0xFFFFF800218D5808u,
					0xFFFFF800218E8764u, 0xFFFFF80021503053u};
	static const uint64_t kernel15[] = {
		0xFFFFF80021434313u, 0xFFFFF8002142FBB9u, 0xFFFFF8002152D832u, 0xFFFFF8002152F686u,
		0xFFFFF800214B80B0u, 0xFFFFF88001A59D16u, 0xFFFFF88001AD52D7u, 0xFFFFF88001A5A35Eu,
		0xFFFFF88001B52B85u, 0xFFFFF88003EC8DB2u, 0xFFFFF88003ECA7E0u, 0xFFFFF88003ECA8D3u,
		0xFFFFF800218ED42Fu, 0xFFFFF800218EDDB6u, 0xFFFFF80021503053u};
	struct etwforge_file *f = open_sample(P_FILE);
	struct seek s;
	const struct etwforge_event *ev;
	const struct etwforge_stack_def *d;
	json_t *o, *fr;

	seek_open(&s, f, ETWFORGE_EV_STACK_DEF);
	ev = at(&s, ETWFORGE_EV_STACK_DEF, 105, 0x7240);
	expect_perfinfo(ev, 0x1823, 56, 0x768E285E);
	cr_expect_str_eq(ev->u.stack_def.event, "delete");
	cr_expect_eq(ev->u.stack_def.key, 0xFFFFFA83032A8750u);
	expect_frames(ev->u.stack_def.frames, ev->u.stack_def.nframes, del4, 4);

	ev = at(&s, ETWFORGE_EV_STACK_DEF, 208, 0xAF30);
	expect_perfinfo(ev, 0x1824, 144, 0x79BDF195);
	cr_expect_str_eq(ev->u.stack_def.event, "rundown");
	cr_expect_eq(ev->u.stack_def.key, 0xFFFFFA8303442250u);
	expect_frames(ev->u.stack_def.frames, ev->u.stack_def.nframes, kernel15, 15);
	o = as_json(ev);
	fr = jget(o, "stack_def", "frames");
	cr_expect_eq(json_array_size(fr), 15);
	cr_expect_str_eq(json_string_value(json_array_get(fr, 14)), "0xfffff80021503053");
	json_decref(o);

	ev = at(&s, ETWFORGE_EV_STACK_DEF, 208, 0xE218);
	d = &ev->u.stack_def;
	expect_perfinfo(ev, 0x1824, 144, 0x79BDF244);
	cr_expect_eq(d->key, 0xFFFFFA8303442390u);
	cr_assert_eq(d->nframes, 15);
	cr_expect_eq(d->frames[0], 0x7F9D02F2C1A);
	cr_expect_eq(d->frames[1], 0x7F9CF9E1AC6);
	cr_expect_eq(d->frames[2], 0x7F9C8CF2180);
	cr_expect_eq(d->frames[13], 0x7F9CF59167E);
	cr_expect_eq(d->frames[14], 0x7F9D030C3F1, "the thread's start");
	etwforge_iter_free(s.it);
	etwforge_file_close(f);
}

static void expect_ktc(const struct etwforge_event *ev, unsigned size, unsigned type,
		       unsigned version, unsigned long long ts, unsigned tid, unsigned pid)
{
	uint32_t k, u;

	cr_expect_str_eq(ev->rec->kind, "FULL_HEADER64");
	cr_expect_eq(ev->rec->size, size);
	cr_expect(ev->rec->has_provider);
	cr_expect_str_eq(ev->rec->provider, "{b3e675d7-2554-4f18-830b-2762732560de}");
	cr_expect_eq(ev->rec->class_type, type);
	cr_expect_eq(ev->rec->class_level, 0);
	cr_expect_eq(ev->rec->class_version, version);
	cr_expect_eq(ev->ts, ts, "the image event's time");
	cr_expect_eq(ev->rec->tid, tid);
	cr_expect_eq(ev->rec->pid, pid);
	cr_expect(etwforge_record_times(ev->rec, &k, &u));
	cr_expect_eq(k + u, 0);
}

/*
 * The chain before smss.exe's DCStart (P b2+0x0210 FileVersion, +0x0398
 * ImageID, +0x03F8 DbgID_RSDS), the one before ntdll.dll's Load (P
 * b38+0x8128 ImageID, +0x8188 DbgID_RSDS), a None (P b3+0x57B8) and a
 * DbgID_ILRSDS (P b13+0xB3E0).
 */
Test(read_images, kernel_trace_control_9200)
{
	struct etwforge_file *f = open_sample(P_FILE);
	struct seek s;
	const struct etwforge_event *ev;
	const struct etwforge_file_version *v;
	const struct etwforge_dbgid *d;
	json_t *o;

	seek_open(&s, f, ETWFORGE_EV_IMAGE_ID | ETWFORGE_EV_DBGID | ETWFORGE_EV_FILE_VERSION);
	ev = at(&s, ETWFORGE_EV_FILE_VERSION, 2, 0x0210);
	v = &ev->u.file_version;
	expect_ktc(ev, 390, 64, 0, 0x73CE3EB3, 0xFFFFFFFF, 456);
	cr_expect_eq(ev->rec->decoded, ETWFORGE_PAYLOAD_FILE_VERSION);
	cr_expect_eq(v->size, 0x25000);
	cr_expect_eq(v->timestamp, 0x5010AC3A);
	cr_expect_str_eq(v->orig_file_name, "smss.exe");
	cr_expect_str_eq(v->file_description, "Windows Session Manager");
	cr_expect_str_eq(v->file_version, "6.2.9200.16384 (win8_rtm.120725-1247)");
	cr_expect_str_eq(v->bin_file_version, "6.2.9200.16384");
	cr_expect_str_eq(v->ver_language, "1033");
	cr_expect_str_eq(v->product_name, "Microsoft\xC2\xAE Windows\xC2\xAE Operating System");
	cr_expect_str_eq(v->company_name, "Microsoft Corporation");
	cr_expect_str_eq(v->product_version, "6.2.9200.16384");
	cr_expect_str_eq(v->file_id, "");
	cr_expect_str_eq(v->program_id, "");
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "file_version", "file_description"), "Windows Session Manager");
	cr_expect_eq(json_integer_value(json_object_get(o, "kernel_time")), 0);
	json_decref(o);

	ev = at(&s, ETWFORGE_EV_IMAGE_ID, 2, 0x0398);
	expect_ktc(ev, 90, 0, 2, 0x73CE3EB3, 0xFFFFFFFF, 456);
	cr_expect_eq(ev->u.image_id.base, 0x7F60BD90000);
	cr_expect_eq(ev->u.image_id.size, 0x25000);
	cr_expect_eq(ev->u.image_id.pid, 456);
	cr_expect_eq(ev->u.image_id.timestamp, 0x5010AC3A, "from the file: the DCStart has 0");
	cr_expect_str_eq(ev->u.image_id.file_name, "smss.exe");

	ev = at(&s, ETWFORGE_EV_DBGID, 2, 0x03F8);
	d = &ev->u.dbgid;
	expect_ktc(ev, 89, 36, 2, 0x73CE3EB3, 0xFFFFFFFF, 456);
	cr_expect_str_eq(d->event, "rsds");
	cr_expect_eq(d->base, 0x7F60BD90000);
	cr_expect_eq(d->pid, 456);
	cr_expect_str_eq(d->guid, "{3C8F0528-9C07-4257-9192-78EA9AA6A1F4}");
	cr_expect_eq(d->age, 1);
	cr_expect_str_eq(d->pdb, "smss.pdb");
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "dbgid", "guid"), "{3C8F0528-9C07-4257-9192-78EA9AA6A1F4}");
	cr_expect_str_eq(jstr(o, "dbgid", "pdb"), "smss.pdb");
	json_decref(o);

	ev = at(&s, ETWFORGE_EV_DBGID, 3, 0x57B8);
	d = &ev->u.dbgid;
	expect_ktc(ev, 60, 32, 2, 0x73CE61DB, 0xFFFFFFFF, 724);
	cr_expect_str_eq(d->event, "none");
	cr_expect_eq(d->base, 0x7F9CCC50000);
	cr_expect_eq(d->pid, 724);
	cr_expect_null(d->guid);
	cr_expect_null(d->pdb);
	o = as_json(ev);
	cr_expect_null(jget(o, "dbgid", "age"), "None ends with its ProcessId");
	json_decref(o);

	ev = at(&s, ETWFORGE_EV_DBGID, 13, 0xB3E0);
	d = &ev->u.dbgid;
	cr_expect_eq(ev->rec->size, 181);
	cr_expect_eq(ev->rec->class_type, 37);
	cr_expect_str_eq(d->event, "ilrsds");
	cr_expect_eq(d->pid, 3988);
	cr_expect_eq(d->base, 0x5DF0000);
	cr_expect_eq(d->age, 1);
	cr_expect_str_eq(d->pdb,
			 "E:\\A\\_work\\622\\s\\src\\FastSerialization\\obj\\Release\\net45\\"
			 "Microsoft.Diagnostics.FastSerialization.pdb");

	ev = at(&s, ETWFORGE_EV_IMAGE_ID, 38, 0x8128);
	expect_ktc(ev, 92, 0, 2, 0x756BC9E7, 3680, 3676);
	cr_expect_eq(ev->u.image_id.base, 0x7F9D02F0000);
	cr_expect_eq(ev->u.image_id.size, 0x1BE000);
	cr_expect_eq(ev->u.image_id.pid, 3676);
	cr_expect_eq(ev->u.image_id.timestamp, 0x5010ACD2);
	cr_expect_str_eq(ev->u.image_id.file_name, "ntdll.dll");
	ev = at(&s, ETWFORGE_EV_DBGID, 38, 0x8188);
	expect_ktc(ev, 90, 36, 2, 0x756BC9E7, 3680, 3676);
	cr_expect_str_eq(ev->u.dbgid.guid, "{6048FDB6-2DCD-41C1-8835-594844CE7143}");
	cr_expect_eq(ev->u.dbgid.age, 2);
	cr_expect_str_eq(ev->u.dbgid.pdb, "ntdll.pdb");
	etwforge_iter_free(s.it);
	etwforge_file_close(f);
}

Test(read_images, names)
{
	cr_expect_str_eq(etwforge_payload_name(0x030A), "Image");
	cr_expect_str_eq(etwforge_payload_name(0x1404), "Image");
	cr_expect_str_eq(etwforge_payload_name(0x1421), "KernelBase");
	cr_expect_str_eq(etwforge_payload_name(0x1820), "StackWalk");
	cr_expect_str_eq(etwforge_payload_name(0x1826), "StackKeyUser");
	cr_expect_str_eq(etwforge_payload_name(0x1824), "KeyRundown");
	cr_expect_null(etwforge_payload_name(0x1821), "reserved");
	cr_expect_null(etwforge_record_name(NULL));
}

/* ---- damage ----------------------------------------------------------------- */

static uint8_t *load(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *d;
	long n;

	cr_assert_not_null(fp);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	d = malloc((size_t)n);
	cr_assert_not_null(d);
	cr_assert_eq(fread(d, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return d;
}

/*
 * Stack records are in neither uncompressed sample: two image records of A
 * rewritten in place, their framing kept. The process image DCStart at
 * b1+0x3408 (PERFINFO64, Size 178) becomes a StackWalk whose frames end in
 * half a pointer (178 - 0x20 = 146 bytes, not whole pointers): a record
 * "too short", no event. The kernel module DCStart at b1+0x3570 (SYSTEM64,
 * Size 156) becomes a KeyRundown of 15 frames... of a SYSTEM header: the
 * payload is decoded as it is, 0x7C bytes = the key and 14.5 frames, so
 * too short as well.
 */
Test(read_images, damaged_stacks_are_short)
{
	size_t len;
	uint8_t *d = load(test_sample(A_FILE), &len);
	struct etwforge_file *f;
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	unsigned shorts = 0, events = 0;
	int rc;

	cr_assert_eq(d[0x13408 + 4], 178); /* PERFINFO64 0x1403 */
	cr_assert_eq(d[0x13408 + 7], 0x14);
	d[0x13408 + 6] = 0x20;
	d[0x13408 + 7] = 0x18;
	d[0x13408] = 2;
	cr_assert_eq(d[0x13570 + 4], 156); /* SYSTEM64 0x1403 */
	d[0x13570 + 6] = 0x24;
	d[0x13570 + 7] = 0x18;
	d[0x13570] = 2;
	f = etwforge_file_open_mem(d, len, "damaged", 0, NULL);
	cr_assert_not_null(f);
	it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_RECORD | ETWFORGE_EV_STACKS,
			       NULL);
	while ((rc = etwforge_iter_next(it, &ev, NULL)) == 1) {
		if (ev->kind != ETWFORGE_EV_RECORD) {
			events++;
		} else if (ev->file_offset == 0x13408 || ev->file_offset == 0x13570) {
			char buf[4096];

			cr_expect_eq(ev->rec->decoded, ETWFORGE_PAYLOAD_SHORT);
			etwforge_event_json(ev, 0, buf, sizeof(buf));
			cr_expect(
				strstr(buf,
				       ev->file_offset == 0x13408
					       ? "\"decode_error\":\"StackWalk payload too short\""
					       : "\"decode_error\":\"KeyRundown payload too "
						 "short\"") != NULL,
				"%s", buf);
			shorts++;
		}
	}
	cr_expect_eq(rc, 0);
	cr_expect_eq(shorts, 2);
	cr_expect_eq(events, 0, "neither is a stack event");
	etwforge_iter_free(it);
	etwforge_file_close(f);
	free(d);
}

/* Every image, stack and identity record of P to JSON: it parses, with its member. */
Test(read_images, json_parses, .timeout = 120.)
{
	static const char *const member[] = {"image",	 "stack", "stack_key",	 "stack_def",
					     "image_id", "dbgid", "file_version"};
	struct etwforge_file *f = open_sample(P_FILE);
	struct etwforge_iter *it = etwforge_iter_new(f, ETWFORGE_ORDER_TIME,
						     ETWFORGE_EV_IMAGES | ETWFORGE_EV_STACKS, NULL);
	const struct etwforge_event *ev;
	unsigned n = 0;

	while (etwforge_iter_next(it, &ev, NULL) == 1) {
		json_t *o = as_json(ev);
		unsigned k = bit_of(ev->kind) - bit_of(ETWFORGE_EV_IMAGE);

		cr_assert_lt(k, 7);
		cr_assert(json_is_object(json_object_get(o, member[k])), "no %s", member[k]);
		json_decref(o);
		n++;
	}
	cr_expect_eq(n, 3596 + 2 + 252 + 9107 + 2921 + 3590 + 3590 + 705);
	etwforge_iter_free(it);
	etwforge_file_close(f);
}
