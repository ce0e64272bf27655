// SPDX-License-Identifier: MIT
/*
 * tests/test_read_identity.c - the identity records through the public
 * reading API (etwforge_iter_*, etwforge_event_json): on the two Windows
 * samples that carry them (tests/data/samples/: A =
 * airbus_ShutdownPerfDiagLogger.etl, build 18362; P =
 * perfview_net.4.5.2.x64.etl, build 9200), the count of each kind is the
 * one the samples' README gives, and the fields of records decoded by hand
 * (their hex is in tests/test_rundown_records.c) are typed here as read
 * from those bytes, not computed from the decoder's constants. A record
 * damaged inside its payload is no event of its kind and a record whose
 * payload is "too short", never a read past it.
 *
 * A is uncompressed with 64 KiB buffers: a record at offset X of buffer N
 * is at file offset N * 0x10000 + X. P's buffers are compressed: its
 * records are found by their timestamps.
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

struct kind_counts {
	unsigned process, thread, thread_name, ready, sample, interval, cpu, rundown, other;
	unsigned by_hook[0x1000];
};

static void count_kinds(struct etwforge_file *f, unsigned kinds, struct kind_counts *c)
{
	struct etwforge_iter *it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE, kinds, NULL);
	const struct etwforge_event *ev;
	int rc;

	memset(c, 0, sizeof(*c));
	cr_assert_not_null(it);
	while ((rc = etwforge_iter_next(it, &ev, NULL)) == 1) {
		cr_assert_not_null(ev->rec);
		if (ev->rec->hook < 0x1000) {
			c->by_hook[ev->rec->hook]++;
		}
		switch (ev->kind) {
		case ETWFORGE_EV_PROCESS:
			c->process++;
			break;
		case ETWFORGE_EV_THREAD:
			c->thread++;
			break;
		case ETWFORGE_EV_THREAD_NAME:
			c->thread_name++;
			break;
		case ETWFORGE_EV_READY:
			c->ready++;
			break;
		case ETWFORGE_EV_SAMPLE:
			c->sample++;
			break;
		case ETWFORGE_EV_PROFILE_INTERVAL:
			c->interval++;
			break;
		case ETWFORGE_EV_SYSCONFIG_CPU:
			c->cpu++;
			break;
		case ETWFORGE_EV_RUNDOWN:
			c->rundown++;
			break;
		default:
			c->other++;
			break;
		}
	}
	cr_assert_eq(rc, 0, "the iteration ends cleanly");
	etwforge_iter_free(it);
}

/* What a too-short payload is called, by dump's text and its JSON alike. */
Test(read_identity, payload_names)
{
	cr_assert_str_eq(etwforge_payload_name(0x0524), "CSwitch");
	cr_assert_str_eq(etwforge_payload_name(0x0525), "CSwitch batch");
	cr_assert_str_eq(etwforge_payload_name(0x0F4C), "SpinLockConfig");
	cr_assert_str_eq(etwforge_payload_name(0x0327), "Process");
	cr_assert_str_eq(etwforge_payload_name(0x0503), "Thread");
	cr_assert_str_eq(etwforge_payload_name(0x0F49), "ProfileInterval");
	cr_assert_str_eq(etwforge_payload_name(0x0B0A), "SystemConfig CPU");
	cr_assert_str_eq(etwforge_payload_name(0x0020), "GroupMasks");
	cr_assert_null(etwforge_payload_name(0x0008), "no payload to be short");
	cr_assert_null(etwforge_payload_name(0x0310));
}

Test(read_identity, counts_18362)
{
	struct etwforge_file *f = open_sample(A_FILE);
	static struct kind_counts c;

	count_kinds(f, ETWFORGE_EV_IDENTITY, &c);
	/* README: SYSTEM64 0x0302 x60, 0x030B x60; PERFINFO64 0x0303 x94, 0x0304 x37, 0x0327 x5 */
	cr_expect_eq(c.by_hook[0x0302], 60);
	cr_expect_eq(c.by_hook[0x030B], 60);
	cr_expect_eq(c.by_hook[0x0303], 94);
	cr_expect_eq(c.by_hook[0x0304], 37);
	cr_expect_eq(c.by_hook[0x0327], 5);
	cr_expect_eq(c.process, 60 + 60 + 94 + 37 + 5);
	/* Thread 0x0501 x350, 0x0502 x1032, 0x0503 x1175, 0x0504 x501 */
	cr_expect_eq(c.by_hook[0x0501], 350);
	cr_expect_eq(c.by_hook[0x0502], 1032);
	cr_expect_eq(c.by_hook[0x0503], 1175);
	cr_expect_eq(c.by_hook[0x0504], 501);
	cr_expect_eq(c.thread, 350 + 1032 + 1175 + 501);
	/* 0x0005 x2 in data buffers and x1 in the header buffer, 0x0008 x2, 0x0020 x2 */
	cr_expect_eq(c.by_hook[0x0005], 3);
	cr_expect_eq(c.by_hook[0x0008], 2);
	cr_expect_eq(c.by_hook[0x0020], 2);
	cr_expect_eq(c.rundown, 7);
	cr_expect_eq(c.sample + c.interval + c.cpu + c.ready + c.thread_name + c.other, 0);
	etwforge_file_close(f);
}

Test(read_identity, counts_9200)
{
	struct etwforge_file *f = open_sample(P_FILE);
	static struct kind_counts c;

	count_kinds(f, ETWFORGE_EV_IDENTITY, &c);
	/* README: SYSTEM64 0x0301 x1, 0x0302 x1; PERFINFO64 0x0303 x32, 0x0304 x32, 0x0327 x2 */
	cr_expect_eq(c.process, 1 + 1 + 32 + 32 + 2);
	cr_expect_eq(c.by_hook[0x0303], 32);
	cr_expect_eq(c.by_hook[0x0327], 2);
	/* SYSTEM64 0x0501 x9, 0x0502 x15, 0x0503 x670, 0x0504 x664 */
	cr_expect_eq(c.by_hook[0x0501], 9);
	cr_expect_eq(c.by_hook[0x0502], 15);
	cr_expect_eq(c.by_hook[0x0503], 670);
	cr_expect_eq(c.by_hook[0x0504], 664);
	cr_expect_eq(c.thread, 9 + 15 + 670 + 664);
	cr_expect_eq(c.sample, 79528);
	cr_expect_eq(c.interval, 2); /* 0x0F49 x1, 0x0F4A x1 */
	cr_expect_eq(c.cpu, 1);	     /* 0x0B0A x1 */
	cr_expect_eq(c.rundown, 7);
	cr_expect_eq(c.ready + c.thread_name + c.other, 0);
	etwforge_file_close(f);
}

/* Only the kinds asked for come, and the other events are as before. */
Test(read_identity, kinds_filter)
{
	struct etwforge_file *f = open_sample(P_FILE);
	static struct kind_counts c;

	count_kinds(f, ETWFORGE_EV_SAMPLE | ETWFORGE_EV_SYSCONFIG_CPU, &c);
	cr_expect_eq(c.sample, 79528);
	cr_expect_eq(c.cpu, 1);
	cr_expect_eq(c.process + c.thread + c.interval + c.rundown + c.other, 0);
	/* records still come as records, first */
	count_kinds(f, ETWFORGE_EV_RECORD | ETWFORGE_EV_SAMPLE, &c);
	cr_expect_eq(c.sample, 0);
	cr_expect_eq(c.by_hook[0x0F2E], 79528);
	etwforge_file_close(f);
}

/* ---- fields ----------------------------------------------------------------- */

/* The event of @kinds at @offset (A) or with timestamp @ts (P, @offset 0); NULL none. */
static const struct etwforge_event *find(struct etwforge_iter *it, uint64_t offset, uint64_t ts)
{
	const struct etwforge_event *ev;

	while (etwforge_iter_next(it, &ev, NULL) == 1) {
		if (offset ? ev->file_offset == offset : ev->ts == ts) {
			return ev;
		}
	}
	return NULL;
}

static json_t *as_json(const struct etwforge_event *ev)
{
	char buf[8192];
	size_t n = etwforge_event_json(ev, 0, buf, sizeof(buf));
	json_error_t e;
	json_t *o;

	cr_assert_lt(n, sizeof(buf));
	o = json_loads(buf, 0, &e);
	cr_assert_not_null(o, "bad JSON: %s: %s", e.text, buf);
	return o;
}

static const char *jstr(json_t *o, const char *obj, const char *key)
{
	return json_string_value(json_object_get(json_object_get(o, obj), key));
}

static long long jint(json_t *o, const char *obj, const char *key)
{
	json_t *v = json_object_get(json_object_get(o, obj), key);

	cr_assert(json_is_integer(v), "%s.%s is no integer", obj, key);
	return json_integer_value(v);
}

/* A b1+0x00B8: the Idle process DCStart, PERFINFO64 v4. */
Test(read_identity, idle_process_dcstart)
{
	struct etwforge_file *f = open_sample(A_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_PROCESS, NULL);
	const struct etwforge_event *ev = find(it, 0x100B8, 0);
	const struct etwforge_process *p;
	json_t *o;

	cr_assert_not_null(ev);
	cr_expect_eq(ev->kind, ETWFORGE_EV_PROCESS);
	cr_expect_eq(ev->ts, 0x44BB79025Aull);
	cr_expect_eq(ev->rec->hook, 0x0303);
	cr_expect_eq(ev->rec->version, 4);
	cr_expect_eq(ev->rec->size, 91);
	p = &ev->u.process;
	cr_expect_str_eq(p->event, "dcstart");
	cr_expect_eq(p->key, 0xFFFFF80242A399C0ull);
	cr_expect_eq(p->pid, 0);
	cr_expect_eq(p->ppid, 0);
	cr_expect_eq(p->session, 0xFFFFFFFFu);
	cr_expect_eq(p->exit_status, 0);
	cr_expect_eq(p->dtb, 0x1AD000);
	cr_expect_eq(p->flags, 0);
	cr_expect_str_eq(p->sid, "S-1-5-18");
	cr_expect_str_eq(p->image, "Idle");
	cr_expect_str_eq(p->cmdline, "");
	cr_expect_str_eq(p->package, "");
	cr_expect_str_eq(p->app_id, "");
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "process", "event"), "dcstart");
	cr_expect_str_eq(jstr(o, "process", "key"), "0xfffff80242a399c0");
	cr_expect_eq(jint(o, "process", "session"), 4294967295LL);
	cr_expect_str_eq(jstr(o, "process", "sid"), "S-1-5-18");
	cr_expect_str_eq(jstr(o, "process", "image"), "Idle");
	cr_expect_null(json_object_get(json_object_get(o, "process"), "exit_time"), "v4");
	json_decref(o);
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* A b1+0xD7F0: wininit.exe DCStart with its command line. */
Test(read_identity, wininit_command_line)
{
	struct etwforge_file *f = open_sample(A_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_PROCESS, NULL);
	const struct etwforge_event *ev = find(it, 0x1D7F0, 0);
	const struct etwforge_process *p;
	json_t *o;

	cr_assert_not_null(ev);
	p = &ev->u.process;
	cr_expect_eq(p->pid, 504);
	cr_expect_eq(p->ppid, 420);
	cr_expect_eq(p->session, 0);
	cr_expect_eq(p->exit_status, 0x103);
	cr_expect_eq(p->dtb, 0x3587A000);
	cr_expect_eq(p->flags, 4);
	cr_expect_str_eq(p->sid, "S-1-5-18");
	cr_expect_str_eq(p->image, "wininit.exe");
	cr_expect_str_eq(p->cmdline, "wininit.exe");
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "process", "cmdline"), "wininit.exe");
	cr_expect_eq(jint(o, "process", "exit_status"), 259);
	json_decref(o);
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* A b44+0x4680: a Defunct v5 record, with its ExitTime; A b3+0x4910: a Terminate. */
Test(read_identity, defunct_and_terminate)
{
	struct etwforge_file *f = open_sample(A_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_PROCESS, NULL);
	const struct etwforge_event *ev = find(it, 0x34910, 0);
	json_t *o;

	cr_assert_not_null(ev);
	cr_expect_str_eq(ev->u.process.event, "terminate");
	cr_expect_eq(ev->u.process.pid, 2100);
	cr_expect_eq(ev->rec->tid, 4788);
	cr_expect_eq(ev->rec->pid, 516);
	cr_expect_null(ev->u.process.image);
	ev = find(it, 0x2C4680, 0);
	cr_assert_not_null(ev);
	cr_expect_eq(ev->rec->version, 5);
	cr_expect_str_eq(ev->u.process.event, "defunct");
	cr_expect_eq(ev->u.process.pid, 496);
	cr_expect_eq(ev->u.process.ppid, 600);
	cr_expect_str_eq(ev->u.process.sid, "S-1-5-20");
	cr_expect_str_eq(ev->u.process.image, "svchost.exe");
	cr_expect_eq(ev->u.process.exit_time, 0x01D5EE5ABA25FC67ull);
	o = as_json(ev);
	cr_expect_eq(jint(o, "process", "exit_time"), 0x01D5EE5ABA25FC67LL);
	json_decref(o);
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* P b28+0x6420: a Process Start (SYSTEM64 header: the parent's thread), a long SID. */
Test(read_identity, process_start_9200)
{
	struct etwforge_file *f = open_sample(P_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_PROCESS, NULL);
	const struct etwforge_event *ev = find(it, 0, 0x756AE899);
	const struct etwforge_process *p;

	cr_assert_not_null(ev);
	cr_expect_eq(ev->rec->hook, 0x0301);
	cr_expect_eq(ev->rec->tid, 3512);
	cr_expect_eq(ev->rec->pid, 3508);
	p = &ev->u.process;
	cr_expect_str_eq(p->event, "start");
	cr_expect_eq(p->key, 0xFFFFFA8300CFB380ull);
	cr_expect_eq(p->pid, 3676);
	cr_expect_eq(p->ppid, 3508);
	cr_expect_eq(p->session, 1);
	cr_expect_eq(p->dtb, 0x558FB000);
	cr_expect_str_eq(p->sid, "S-1-5-21-2935914779-1618742390-1451969622-1001");
	cr_expect_str_eq(p->image, "Test.x64.exe");
	cr_expect_str_eq(p->cmdline, "Test.x64.exe");
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* A b1+0x0118 (the idle thread, empty name), A b1+0xC5E0 (a named thread). */
Test(read_identity, threads_18362)
{
	struct etwforge_file *f = open_sample(A_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_THREAD, NULL);
	const struct etwforge_event *ev = find(it, 0x10118, 0);
	const struct etwforge_thread *t;
	json_t *o;

	cr_assert_not_null(ev);
	t = &ev->u.thread;
	cr_expect_str_eq(t->event, "dcstart");
	cr_expect_eq(t->pid, 0);
	cr_expect_eq(t->tid, 0);
	cr_expect_eq(t->stack_base, 0xFFFFF8024506D000ull);
	cr_expect_eq(t->stack_limit, 0xFFFFF80245066000ull);
	cr_expect_eq(t->affinity, 1);
	cr_expect_eq(t->win32_start, 0xFFFFF8024266FFD0ull);
	cr_expect_eq(t->page_pri, 5);
	cr_expect_str_eq(t->name, "");

	ev = find(it, 0x1C5E0, 0);
	cr_assert_not_null(ev);
	t = &ev->u.thread;
	cr_expect_eq(ev->rec->tid, 560);
	cr_expect_eq(ev->rec->pid, 428);
	cr_expect_eq(t->pid, 428);
	cr_expect_eq(t->tid, 560);
	cr_expect_eq(t->user_stack_base, 0xB91CE00000ull);
	cr_expect_eq(t->user_stack_limit, 0xB91CDF8000ull);
	cr_expect_eq(t->affinity, 3);
	cr_expect_eq(t->win32_start, 0x7FF9909C32C0ull);
	cr_expect_eq(t->teb, 0xB91CBAB000ull);
	cr_expect_eq(t->base_pri, 16);
	cr_expect_eq(t->page_pri, 5);
	cr_expect_eq(t->io_pri, 2);
	cr_expect_str_eq(t->name, "Win32k Raw Input Thread");
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "thread", "name"), "Win32k Raw Input Thread");
	cr_expect_eq(jint(o, "thread", "base_pri"), 16);
	cr_expect_eq(json_integer_value(json_object_get(o, "tid")), 560, "the header's");
	json_decref(o);

	ev = find(it, 0x18E690, 0); /* A b24+0xE690: Thread End with a name */
	cr_assert_not_null(ev);
	cr_expect_str_eq(ev->u.thread.event, "end");
	cr_expect_eq(ev->u.thread.tid, 4164);
	cr_expect_eq(ev->u.thread.pid, 4660);
	/* the bytes at +0x68 spell "EdgeHtml Render" (15 units, then the NUL at +0x86) */
	cr_expect_str_eq(ev->u.thread.name, "EdgeHtml Render");
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* P b2+0x0140: a Win8 thread DCStart, v3 without a name. */
Test(read_identity, thread_without_name_9200)
{
	struct etwforge_file *f = open_sample(P_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_THREAD, NULL);
	const struct etwforge_event *ev = find(it, 0, 0x73CE3E12);
	json_t *o;

	cr_assert_not_null(ev);
	cr_expect_eq(ev->u.thread.tid, 460);
	cr_expect_eq(ev->u.thread.pid, 456);
	cr_expect_eq(ev->u.thread.affinity, 0xFF);
	cr_expect_eq(ev->u.thread.base_pri, 11);
	cr_expect_null(ev->u.thread.name);
	o = as_json(ev);
	cr_expect(json_is_null(json_object_get(json_object_get(o, "thread"), "name")));
	json_decref(o);
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* P b21+0x04A0 and +0x1680: SampledProfile, idle and not. */
Test(read_identity, samples_9200)
{
	struct etwforge_file *f = open_sample(P_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_SAMPLE, NULL);
	const struct etwforge_event *ev = find(it, 0, 0x73CE5B3D);
	json_t *o;

	cr_assert_not_null(ev);
	cr_expect_eq(ev->cpu, 0);
	cr_expect_eq(ev->u.sample.ip, 0xFFFFF8002152F552ull);
	cr_expect_eq(ev->u.sample.tid, 0);
	cr_expect_eq(ev->u.sample.count, 1);
	cr_expect_eq(ev->u.sample.priority, 16); /* flags 0x80 */
	cr_expect_not(ev->u.sample.dpc);
	cr_expect_not(ev->u.sample.isr);
	cr_expect_eq(ev->u.sample.rank, 0);
	{
		uint32_t kt = 99, ut = 99;

		cr_expect_not(etwforge_record_times(ev->rec, &kt, &ut), "a PERFINFO header");
		cr_expect_eq(kt + ut, 0);
	}
	ev = find(it, 0, 0x73E42BC9);
	cr_assert_not_null(ev);
	cr_expect_eq(ev->u.sample.ip, 0xFFFFF80021434313ull);
	cr_expect_eq(ev->u.sample.tid, 544);
	cr_expect_eq(ev->u.sample.priority, 8); /* flags 0x40 */
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "sample", "ip"), "0xfffff80021434313");
	cr_expect_eq(jint(o, "sample", "priority"), 8);
	json_decref(o);
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* P b17+0xCBD8: the profile interval DCStart; P b184+0x3DE0: SystemConfig CPU. */
Test(read_identity, interval_and_cpu_9200)
{
	struct etwforge_file *f = open_sample(P_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE,
				  ETWFORGE_EV_PROFILE_INTERVAL | ETWFORGE_EV_SYSCONFIG_CPU, NULL);
	const struct etwforge_event *ev = find(it, 0, 0x73CF7F8A);
	const struct etwforge_sysconfig_cpu *c;
	json_t *o;

	cr_assert_not_null(ev);
	cr_expect_eq(ev->kind, ETWFORGE_EV_PROFILE_INTERVAL);
	cr_expect_eq(ev->rec->tid, 3780);
	cr_expect_eq(ev->rec->pid, 3988);
	cr_expect_str_eq(ev->u.profile_interval.event, "dcstart");
	cr_expect_eq(ev->u.profile_interval.source, 0);
	cr_expect_eq(ev->u.profile_interval.new_interval, 10000);
	cr_expect_eq(ev->u.profile_interval.old_interval, 10000);
	cr_expect_str_eq(ev->u.profile_interval.source_name, "Timer");
	{
		/* RUNDOWN_FACTS' P b17+0xCBD8: KernelTime 3, UserTime 0 (header 0x18, 0x1C) */
		uint32_t kt = 99, ut = 99;

		cr_expect(etwforge_record_times(ev->rec, &kt, &ut));
		cr_expect_eq(kt, 3);
		cr_expect_eq(ut, 0);
		o = as_json(ev);
		cr_expect_eq(json_integer_value(json_object_get(o, "kernel_time")), 3);
		json_decref(o);
	}
	ev = find(it, 0, 0x79B429D0);
	cr_assert_not_null(ev);
	cr_expect_eq(ev->kind, ETWFORGE_EV_SYSCONFIG_CPU);
	cr_expect_eq(ev->rec->tid, 3784);
	c = &ev->u.sysconfig_cpu;
	cr_expect_eq(c->mhz, 3592);
	cr_expect_eq(c->nproc, 8);
	cr_expect_eq(c->memory_mb, 4096);
	cr_expect_eq(c->page_size, 4096);
	cr_expect_eq(c->alloc_gran, 65536);
	cr_expect_str_eq(c->computer_name, "BRIANROB-W8");
	cr_expect_str_eq(c->domain_name, "");
	cr_expect_eq(c->highest_user, 0x7FFFFFEFFFFull);
	cr_expect_eq(c->arch, 9);
	cr_expect_eq(c->level, 6);
	cr_expect_eq(c->revision, 0x3C03);
	cr_expect_eq(c->pae, 1);
	cr_expect_eq(c->nx, 1);
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "sysconfig_cpu", "computer_name"), "BRIANROB-W8");
	json_decref(o);
	etwforge_iter_free(it);
	etwforge_file_close(f);
}

/* A b1+0x0048 (0x0020), b1+0x0080 (0x0005), b24+0x6708 (0x0008). */
Test(read_identity, rundown_markers)
{
	struct etwforge_file *f = open_sample(A_FILE);
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_RUNDOWN, NULL);
	const struct etwforge_event *ev = find(it, 0x10048, 0);
	json_t *o, *m;

	cr_assert_not_null(ev);
	cr_expect_str_eq(ev->u.rundown.event, "masks_end");
	cr_expect_eq(ev->u.rundown.nmasks, 8);
	cr_expect_eq(ev->u.rundown.masks[0], 0);
	cr_expect_eq(ev->u.rundown.version, 0x46);
	ev = find(it, 0x10080, 0);
	cr_assert_not_null(ev);
	cr_expect_str_eq(ev->u.rundown.event, "masks");
	cr_expect_eq(ev->u.rundown.masks[0], 7);
	cr_expect_eq(ev->u.rundown.masks[7], 0);
	o = as_json(ev);
	m = json_object_get(json_object_get(o, "rundown"), "masks");
	cr_expect_eq(json_array_size(m), 8);
	cr_expect_eq(json_integer_value(json_array_get(m, 0)), 7);
	json_decref(o);
	ev = find(it, 0x186708, 0);
	cr_assert_not_null(ev);
	cr_expect_str_eq(ev->u.rundown.event, "complete");
	cr_expect_null(ev->u.rundown.masks);
	etwforge_iter_free(it);
	etwforge_file_close(f);
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
 * Two records damaged inside their payloads, their framing whole: wininit's
 * strings lose every NUL (the ANSI name and the UTF-16 ones run to the
 * record's end), the Idle process's SID claims 15 sub-authorities (60
 * bytes past the record). Each is then no process event, and a record
 * whose payload is too short; the rest of the file reads as before.
 */
Test(read_identity, damaged_payloads)
{
	size_t len;
	uint8_t *d = load(test_sample(A_FILE), &len);
	struct etwforge_file *f;
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	static struct kind_counts c;
	unsigned shorts = 0;
	int rc;

	cr_assert_eq(d[0x1D7F0 + 6], 0x03); /* wininit: hook 0x0303, Size 120 */
	cr_assert_eq(d[0x1D7F0 + 4], 120);
	memset(d + 0x1D7F0 + 0x50, 'A', 120 - 0x50);
	cr_assert_eq(d[0x100B8 + 0x45], 0x01); /* Idle: SubAuthorityCount of S-1-5-18 */
	d[0x100B8 + 0x45] = 15;
	f = etwforge_file_open_mem(d, len, "damaged", 0, NULL);
	cr_assert_not_null(f);
	count_kinds(f, ETWFORGE_EV_PROCESS, &c);
	cr_expect_eq(c.process, 256 - 2);
	cr_expect_eq(c.by_hook[0x0303], 94 - 2);

	it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_RECORD, NULL);
	while ((rc = etwforge_iter_next(it, &ev, NULL)) == 1) {
		if (ev->file_offset == 0x1D7F0 || ev->file_offset == 0x100B8) {
			char buf[4096];

			cr_expect_eq(ev->rec->decoded, ETWFORGE_PAYLOAD_SHORT);
			etwforge_event_json(ev, 0, buf, sizeof(buf));
			cr_expect(strstr(buf, "\"decode_error\":\"Process payload too short\"") !=
					  NULL,
				  "%s", buf);
			shorts++;
		}
	}
	cr_expect_eq(rc, 0);
	cr_expect_eq(shorts, 2);
	etwforge_iter_free(it);
	etwforge_file_close(f);
	free(d);
}

/* Every record of both files to JSON: it parses, and an identity record has its member. */
Test(read_identity, json_parses)
{
	static const char *const names[] = {A_FILE, P_FILE};

	for (unsigned i = 0; i < 2; i++) {
		struct etwforge_file *f = open_sample(names[i]);
		struct etwforge_iter *it =
			etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_IDENTITY, NULL);
		const struct etwforge_event *ev;
		unsigned n = 0;

		while (etwforge_iter_next(it, &ev, NULL) == 1 && n < 5000) {
			json_t *o = as_json(ev);

			cr_assert_eq(json_object_size(o) > 0, true);
			json_decref(o);
			n++;
		}
		cr_expect_gt(n, 0);
		etwforge_iter_free(it);
		etwforge_file_close(f);
	}
}

/*
 * ThreadSetName and ReadyThread are in neither sample: two records of A
 * rewritten in place, their framing kept (Size, marker), their hook,
 * version and payload replaced by hand-typed bytes. The Idle process
 * DCStart (PERFINFO64, b1+0x00B8) becomes a ThreadSetName v2 naming thread
 * 0x1234 of process 0x0568 "Ab\u00e9"; the idle thread DCStart (SYSTEM64,
 * b1+0x0118) a ReadyThread v2 readying thread 0x13C4 (Unwait, +2, from a
 * DPC). What follows each payload in its record is not read.
 */
Test(read_identity, thread_name_and_ready)
{
	static const uint8_t name[] = {0x68, 0x05, 0x00, 0x00, 0x34, 0x12, 0x00, 0x00,
				       'A',  0,	   'b',	 0,    0xE9, 0,	   0,	 0};
	static const uint8_t ready[] = {0xC4, 0x13, 0x00, 0x00, 0x01, 0x02, 0x01, 0x00};
	size_t len;
	uint8_t *d = load(test_sample(A_FILE), &len);
	struct etwforge_file *f;
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	json_t *o;

	/* PERFINFO64: marker version byte 0, hook at 6; payload at 0x10 */
	d[0x100B8] = 2;
	d[0x100B8 + 6] = 0x48;
	d[0x100B8 + 7] = 0x05;
	memset(d + 0x100B8 + 0x10, 0, 91 - 0x10);
	memcpy(d + 0x100B8 + 0x10, name, sizeof(name));
	/* SYSTEM64: payload at 0x20 */
	d[0x10118] = 2;
	d[0x10118 + 6] = 0x32;
	d[0x10118 + 7] = 0x05;
	memset(d + 0x10118 + 0x20, 0, 106 - 0x20);
	memcpy(d + 0x10118 + 0x20, ready, sizeof(ready));
	f = etwforge_file_open_mem(d, len, "rewritten", 0, NULL);
	cr_assert_not_null(f);
	it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_THREAD_NAME | ETWFORGE_EV_READY,
			       NULL);
	cr_assert_eq(etwforge_iter_next(it, &ev, NULL), 1);
	cr_expect_eq(ev->kind, ETWFORGE_EV_THREAD_NAME);
	cr_expect_eq(ev->file_offset, 0x100B8);
	cr_expect_eq(ev->u.thread_name.pid, 0x568);
	cr_expect_eq(ev->u.thread_name.tid, 0x1234);
	cr_expect_str_eq(ev->u.thread_name.name, "Ab\xC3\xA9");
	o = as_json(ev);
	cr_expect_str_eq(jstr(o, "thread_name", "name"), "Ab\xC3\xA9");
	json_decref(o);
	cr_assert_eq(etwforge_iter_next(it, &ev, NULL), 1);
	cr_expect_eq(ev->kind, ETWFORGE_EV_READY);
	cr_expect_eq(ev->rec->tid, 0, "the readying thread, the header's");
	cr_expect_eq(ev->u.ready.tid, 0x13C4);
	cr_expect_eq(ev->u.ready.adjust_reason, 1);
	cr_expect_eq(ev->u.ready.adjust_increment, 2);
	cr_expect_eq(ev->u.ready.flags, 1);
	o = as_json(ev);
	cr_expect_eq(jint(o, "ready", "tid"), 0x13C4);
	cr_expect_eq(jint(o, "ready", "flags"), 1);
	json_decref(o);
	cr_expect_eq(etwforge_iter_next(it, &ev, NULL), 0, "no other");
	etwforge_iter_free(it);
	etwforge_file_close(f);
	free(d);
}
