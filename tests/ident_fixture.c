// SPDX-License-Identifier: MIT
/*
 * tests/ident_fixture.c - the file of ident_fixture.h, x64, build 19041,
 * QPC at 10 MHz (1 unit = 100 ns), start_ts 1000000; times below are units
 * after the start.
 *
 *   Process DCStart   pid 100 "app.exe", pid 200 "svc.exe"          t=1
 *   Thread DCStart    1001 (pid 100, "main"), 1002 (pid 100, no name),
 *                     2001 (pid 200, "w\"<&>" + an unpaired surrogate)  t=2
 *   ThreadSetName     1002 -> "io"                                  t=3
 *   CPU 0 switches    100 ->1001, 500 ->idle, 600 ->2001, 900 ->3333,
 *                     1000 ->1001
 *   CPU 1 switches    150 ->1002, 300 ->idle, 850 ->1002, 950 ->idle
 *   ReadyThread       450 CPU 0, by 1001: 2001 (in at 600 on CPU 0);
 *                     800 CPU 0, by 2001: 1002 (in at 850 on CPU 1)
 *   SampledProfile    700 CPU 0, thread 2001
 *   end               1200
 *
 * ident_fixture_write_pingpong(): the same processes and threads, 1001 on
 * CPU 0 from t=10, and per round k (t = 100 + 100 k) a ReadyThread of 2001
 * by 1001 at t on CPU 0, 2001 on CPU 1 from t+10 to t+50.
 *
 * ident_fixture_write_reuse(): the same processes and threads; 1001 (app.exe)
 * runs on CPU 0 from 100 to 300, ends at 400; a thread of svc.exe starts as
 * 1001 at 500, runs on CPU 0 from 600 to 700, readied at 600 (its
 * ReadyThread after its switch-in in the file); 1002 runs on CPU 1 from
 * 200 to 800; a ReadyThread of 2001 at 250 (2001 never runs); end 1000.
 *
 * So (ident_fixture_write): 2 processes, 3 threads (3333 has no Thread record), 2 ReadyThread,
 * 1 SampledProfile, switches to a thread: 5 attributed (1001 twice, 2001,
 * 1002 twice), 1 unattributed (3333).
 */
#include <string.h>

#include "producer/etw_encode.h"
#include "producer/etw_event.h"
#include "producer/etw_process.h"
#include "producer/etw_profile.h"
#include "producer/etw_thread.h"
#include "producer/targets.h"
#include "tests/ident_fixture.h"
#include "tools/lib/run/out_sink.h"
#include "writer/etl_trace_header.h"
#include "writer/writer.h"

#define START_TS 1000000u

struct fx {
	struct etl_writer *w;
	const struct etw_target *t;
	int rc;
};

/* One identity event: its header (the target's form for @hook) and @payload. */
static void put(struct fx *x, unsigned cpu, uint64_t t, uint16_t hook, uint32_t tid, uint32_t pid,
		const uint8_t *payload, int len)
{
	uint8_t buf[0x400];
	struct etw_event_form form;
	struct etw_event_ctx ctx = {.ts = START_TS + t, .thread_id = tid, .process_id = pid};
	int h;

	if (len < 0 || etw_event_form_for(x->t, hook, &form) < 0) {
		x->rc = -1;
		return;
	}
	h = etw_encode_event_header(buf, sizeof(buf), ETL_ARCH_X64, hook, form, (size_t)len, &ctx);
	if (h < 0) {
		x->rc = -1;
		return;
	}
	memcpy(buf + h, payload, (size_t)len);
	if (writer_write(x->w, cpu, START_TS + t, buf, (size_t)h + (size_t)len) < 0) {
		x->rc = -1;
	}
}

static void process(struct fx *x, uint32_t pid, const char *image)
{
	struct etw_process p = {.unique_process_key = 0xFFFF800000001000ull + pid,
				.process_id = pid,
				.parent_id = 4,
				.session_id = 1,
				.exit_status = 0x103,
				.image_file_name = image};
	uint8_t b[0x200];

	put(x, 0, 1, 0x0303, 0, 0, b, etw_encode_process(b, sizeof(b), ETL_ARCH_X64, 4, &p, 0));
}

/* @name: UTF-16 units (NULL: none), @units of them. */
static void thread(struct fx *x, uint32_t pid, uint32_t tid, const uint16_t *name, size_t units)
{
	uint8_t store[64], b[0x200];
	struct etw_thread th = {.process_id = pid,
				.thread_id = tid,
				.stack_base = 0xFFFF880000010000ull,
				.stack_limit = 0xFFFF88000000A000ull,
				.base_priority = 8,
				.page_priority = 5,
				.io_priority = 2,
				.has_name = true};

	for (size_t i = 0; i < units; i++) {
		store[2 * i] = (uint8_t)name[i];
		store[2 * i + 1] = (uint8_t)(name[i] >> 8);
	}
	th.name.le = store;
	th.name.units = units;
	put(x, 0, 2, 0x0503, tid, pid, b, etw_encode_thread(b, sizeof(b), ETL_ARCH_X64, 3, &th, 0));
}

/* A live Thread record of @hook (0x0501 Start, 0x0502 End) at @t on CPU 0, without a name. */
static void thread_event(struct fx *x, uint16_t hook, uint64_t t, uint32_t pid, uint32_t tid)
{
	uint8_t b[0x200];
	struct etw_thread th = {.process_id = pid, .thread_id = tid, .base_priority = 8};

	put(x, 0, t, hook, tid, pid, b, etw_encode_thread(b, sizeof(b), ETL_ARCH_X64, 3, &th, 0));
}

static void set_name(struct fx *x, uint32_t pid, uint32_t tid, const char *name)
{
	uint8_t store[64], b[0x100];
	struct etw_thread_set_name s = {.process_id = pid, .thread_id = tid};

	if (etw_wstr_from_utf8(name, store, sizeof(store), &s.name) < 0) {
		x->rc = -1;
		return;
	}
	put(x, 0, 3, 0x0548, tid, pid, b, etw_encode_thread_set_name(b, sizeof(b), &s));
}

static void cswitch(struct fx *x, unsigned cpu, uint64_t t, uint32_t old_tid, uint32_t new_tid)
{
	struct etl_perfinfo_header h = {
		.arch = ETL_ARCH_X64, .version = 4, .hook_id = 0x0524, .ts = START_TS + t};
	struct etw_cswitch cs = {
		.new_tid = new_tid, .old_tid = old_tid, .new_pri = 9, .old_state = 5};
	uint8_t b[0x100];
	int hl;

	h.size = (uint16_t)(etl_perfinfo_header_len(&h) + ETW_CS_LEN);
	hl = etl_encode_perfinfo_header(b, sizeof(b), &h);
	if (hl < 0 || etw_encode_cswitch(b + hl, sizeof(b) - (size_t)hl, &cs) < 0 ||
	    writer_write(x->w, cpu, START_TS + t, b, h.size) < 0) {
		x->rc = -1;
	}
}

static void ready(struct fx *x, uint64_t t, uint32_t by, uint32_t by_pid, uint32_t tid)
{
	struct etw_ready_thread r = {.thread_id = tid, .adjust_reason = 1, .adjust_increment = 1};
	uint8_t b[16];

	put(x, 0, t, 0x0532, by, by_pid, b, etw_encode_ready_thread(b, sizeof(b), &r));
}

static void sample(struct fx *x, uint64_t t, uint32_t tid)
{
	struct etw_sampled_profile s = {
		.instruction_pointer = 0xFFFFF80000123456ull, .thread_id = tid, .count = 1};
	uint8_t b[32];

	put(x, 0, t, 0x0F2E, 0, 0, b,
	    etw_encode_sampled_profile(b, sizeof(b), ETL_ARCH_X64, &s, 0));
}

/* A writer for @path: 2 CPUs, 4 KiB buffers, x64, build 19041. */
static int open_fx(struct fx *x, const char *path)
{
	struct writer_opts wo = {.path = path,
				 .arch = ETL_ARCH_X64,
				 .cpus = 2,
				 .buffer_size = 4096,
				 .provider_version = 19041,
				 .start_ts = START_TS,
				 .start_time = 133000000000000000ll};

	*x = (struct fx){.t = etw_target_by_build(19041)};
	x->w = out_writer_create(&wo);
	if (!x->w || !x->t) {
		writer_destroy(x->w);
		return -1;
	}
	return 0;
}

/* The processes and threads of both files, at t = 1..3. */
static void rundown(struct fx *x)
{
	static const uint16_t main_name[] = {'m', 'a', 'i', 'n'};
	static const uint16_t odd_name[] = {'w', '"', '<', '&', '>', 0xD800};

	process(x, 100, "app.exe");
	process(x, 200, "svc.exe");
	thread(x, 100, 1001, main_name, 4);
	thread(x, 100, 1002, NULL, 0);
	thread(x, 200, 2001, odd_name, 6);
	set_name(x, 100, 1002, "io");
}

static int close_fx(struct fx *x, uint64_t end)
{
	if (writer_finish(x->w, START_TS + end, 133000000000000000ll + (int64_t)end) < 0) {
		x->rc = -1;
	}
	writer_destroy(x->w);
	return x->rc;
}

int ident_fixture_write(const char *path)
{
	struct fx x;

	if (open_fx(&x, path) < 0) {
		return -1;
	}
	rundown(&x);
	/* CPU 0 in time order, readies and the sample among its switches */
	cswitch(&x, 0, 100, 0, 1001);
	ready(&x, 450, 1001, 100, 2001);
	cswitch(&x, 0, 500, 1001, 0);
	cswitch(&x, 0, 600, 0, 2001);
	sample(&x, 700, 2001);
	ready(&x, 800, 2001, 200, 1002);
	cswitch(&x, 0, 900, 2001, 3333);
	cswitch(&x, 0, 1000, 3333, 1001);
	cswitch(&x, 1, 150, 0, 1002);
	cswitch(&x, 1, 300, 1002, 0);
	cswitch(&x, 1, 850, 0, 1002);
	cswitch(&x, 1, 950, 1002, 0);
	return close_fx(&x, 1200);
}

int ident_fixture_write_reuse(const char *path)
{
	struct fx x;

	if (open_fx(&x, path) < 0) {
		return -1;
	}
	rundown(&x);
	cswitch(&x, 0, 100, 0, 1001);
	cswitch(&x, 0, 300, 1001, 0);
	thread_event(&x, 0x0502, 400, 100, 1001); /* app.exe's 1001 ends */
	thread_event(&x, 0x0501, 500, 200, 1001); /* svc.exe's 1001 starts */
	cswitch(&x, 0, 600, 0, 1001);
	ready(&x, 600, 0, 0, 1001); /* at its switch-in's very time, after it in the file */
	cswitch(&x, 0, 700, 1001, 0);
	cswitch(&x, 1, 200, 0, 1002);
	ready(&x, 250, 1002, 100, 2001);
	cswitch(&x, 1, 800, 1002, 0);
	return close_fx(&x, 1000);
}

int ident_fixture_write_pingpong(const char *path, unsigned rounds)
{
	struct fx x;

	if (open_fx(&x, path) < 0) {
		return -1;
	}
	rundown(&x);
	cswitch(&x, 0, 10, 0, 1001);
	for (unsigned k = 0; k < rounds; k++) {
		uint64_t t = 100 + 100 * (uint64_t)k;

		ready(&x, t, 1001, 100, 2001);
		cswitch(&x, 1, t + 10, 0, 2001);
		cswitch(&x, 1, t + 50, 2001, 0);
	}
	return close_fx(&x, 200 + 100 * (uint64_t)rounds);
}
