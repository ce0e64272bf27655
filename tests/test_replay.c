// SPDX-License-Identifier: MIT
/*
 * tests/test_replay.c - `etwforge replay` and `verify` from the command
 * line: a hand-written 20-line stream (tests/data/hand20.jsonl) must give
 * the four batches computed by hand below, byte for byte; bad streams must
 * be refused with `file:line: what`, exit 2 and no output file.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "writer/etl_wire.h"
#include "tests/test_util.h"
#include "writer/etl_reader.h"

static char out[160];
static char errfile[160];

static void setup(void)
{
	test_dir_make();
	snprintf(out, sizeof(out), "%s/out.etl", test_dir);
	snprintf(errfile, sizeof(errfile), "%s/stderr.txt", test_dir);
}

TestSuite(replay, .init = setup, .fini = test_dir_remove);
TestSuite(verify, .init = setup, .fini = test_dir_remove);

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/*
 * The four batches of hand20.jsonl (target win10-1507: MaximumWaitReason 39,
 * quirks on). Arithmetic per record: LITE = 2 | idx<<2 | inc<<6 | swr<<9 |
 * delta<<15; FULL dword0 = 3 | delta<<2, dword1 = idx | swr<<4 | pri<<10 |
 * wait<<15; IDLE = 1 | delta<<2; IDLE_SHORT = delta<<2.
 */
/* clang-format off */
/* cpu 0, flushed at line 8 by ticks (700 - 100 > 500), TS 50000 (0xC350) */
static const uint8_t batch_a[0x86] = {
	0x02, 0x00, 0x11, 0xC0, 0x86, 0x00, 0x25, 0x05, 0x50, 0xC3, 0, 0, 0, 0, 0, 0,
	0x10, 0x27, 0, 0, 0, 0, 0, 0,                   /* FirstTimeStamp 10000 */
	0x00, 0x10, 0, 0, 0x04, 0x10, 0, 0, 0x08, 0x10, 0, 0,
	0x0C, 0x10, 0, 0, /* 0x100C: the trigger's TID, inserted before the flush test */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x08, 0x0D, 0x0F, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* base priorities */
	0x00, 0x00,             /* 1: idle, IDLE_SHORT delta 0 */
	0x42, 0x1E, 0xFA, 0x00, /* 2: LITE 2|0|1<<6|15<<9|500<<15 = 0x00FA1E42 */
	0x93, 0x01, 0x00, 0x00, /* 3: FULL 3|100<<2 = 0x193 */
	0x81, 0xB6, 0x01, 0x00, /*    1|(1+39)<<4|13<<10|3<<15 = 0x1B681 */
	0x02, 0x08, 0xE4, 0x25, /* 4: LITE 2|4<<9|19400<<15 = 0x25E40802 (to idle: wait 0) */
	0x01, 0x00, 0x01, 0x00, /* 5: IDLE 1|0x4000<<2 */
	0x1F, 0x00, 0x00, 0x00, /* 6: FULL 3|7<<2 */
	0x02, 0xD1, 0xFF, 0xFF, /*    2|16<<4|20<<10|0x1FFFF<<15 (wait 151552 saturated) */
};
/* cpu 0, flushed at the end, TS 2200000000 (0x83215600) */
static const uint8_t batch_b[0x72] = {
	0x02, 0x00, 0x11, 0xC0, 0x72, 0x00, 0x25, 0x05, 0x00, 0x56, 0x21, 0x83, 0, 0, 0, 0,
	0x50, 0xC3, 0, 0, 0, 0, 0, 0,                   /* FirstTimeStamp 50000 */
	0x0C, 0x10, 0, 0, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* TidTable[0] = old TID */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* slot 0 stale (8, not 0x100C's 10), slot 1 = 8, slots 2-3 stale from batch A */
	0x08, 0x08, 0x0F, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x82, 0x0C, 0x00, 0x00, /* 7: LITE 2|0|(10-8)<<6|6<<9|0 = 0xC82 */
	0xFC, 0xFF,             /* 8: IDLE_SHORT 0x3FFF<<2 */
	0x06, 0xD6, 0xFF, 0xFF, /* 9: LITE 2|1<<2|0|(4+39)<<9|0x1FFFF<<15 = 0xFFFFD606 */
};
/* cpu 1, flushed at line 13 by a delta of 0x40000001, TS 2147503649 (0x80004E21) */
static const uint8_t batch_c[0x72] = {
	0x02, 0x00, 0x11, 0xC0, 0x72, 0x00, 0x25, 0x05, 0x21, 0x4E, 0x00, 0x80, 0, 0, 0, 0,
	0x20, 0x4E, 0, 0, 0, 0, 0, 0,                   /* FirstTimeStamp 20000 */
	0x00, 0x20, 0, 0, 0x04, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x0C, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x00,             /* 11: IDLE_SHORT */
	0x03, 0x00, 0x00, 0x00, /* 12: FULL, delta exactly 0x40000000 wraps to 0 */
	0xC0, 0x31, 0x00, 0x00, /*     0|28<<4|12<<10|0 = 0x31C0 */
};
/* cpu 1, flushed at the end */
static const uint8_t batch_d[0x92] = {
	0x02, 0x00, 0x11, 0xC0, 0x92, 0x00, 0x25, 0x05, 0x00, 0x56, 0x21, 0x83, 0, 0, 0, 0,
	0x21, 0x4E, 0x00, 0x80, 0, 0, 0, 0,             /* FirstTimeStamp 2147503649 */
	0x04, 0x20, 0, 0, 0x00, 0x20, 0, 0, 0x08, 0x20, 0, 0, 0x0C, 0x20, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x0C, 0x0C, 0x04, 0x0F, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x03, 0x00, 0x00, 0x00, /* 13: FULL (9 - stale 12 < 0: never LITE), delta 0 */
	0xD0, 0x25, 0x00, 0x00, /*     0|29<<4|9<<10 = 0x25D0 */
	0x86, 0x50, 0x05, 0x00, /* 14: LITE 2|1<<2|2<<6|(1+39)<<9|10<<15 = 0x55086 */
	0x53, 0x00, 0x00, 0x00, /* 15: FULL 3|20<<2 (wait 2) */
	0x02, 0x10, 0x01, 0x00, /*     2|0|4<<10|2<<15 = 0x11002 */
	0x03, 0x00, 0x08, 0x00, /* 16: FULL 3|0x20000<<2 */
	0xA3, 0x3E, 0x00, 0x00, /*     3|(3+39)<<4|15<<10 = 0x3EA3 */
	0x04, 0x00,             /* 17: IDLE_SHORT 1<<2 */
	0x7B, 0x00, 0x00, 0x00, /* 18: FULL 3|30<<2 (9 - stale 12) */
	0xC0, 0xA5, 0x00, 0x00, /*     0|28<<4|9<<10|1<<15 = 0xA5C0 */
	0x06, 0x0C, 0x04, 0x00, /* 19: LITE 2|1<<2|0|6<<9|8<<15 = 0x40C06 */
};
/* clang-format on */

/* The n-th 0x0525 record of @cpu, in SequenceNumber order. */
static const uint8_t *batch_of(struct etl_reader *d, unsigned cpu, unsigned nth, uint16_t *size)
{
	unsigned n;
	const unsigned *order = etl_reader_cpu_order(d, &n);

	for (unsigned i = 0; i < n; i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, order[i]);
		struct etl_record rec;
		struct etl_error err;
		size_t pos = 0;

		if (b->processor_index != cpu) {
			continue;
		}
		while (etl_buffer_next(d, b, &pos, &rec, &err) == 1) {
			if (rec.kind == ETL_KIND_PERFINFO && rec.hook_id == 0x0525 && nth-- == 0) {
				*size = rec.size;
				return rec.data;
			}
		}
	}
	return NULL;
}

Test(replay, hand_written_stream_gives_hand_computed_batches)
{
	struct etl_reader *d;
	struct etl_error err;
	const uint8_t *got;
	uint16_t size = 0;
	const struct {
		unsigned cpu, nth;
		const uint8_t *want;
		size_t len;
	} cases[] = {
		{0, 0, batch_a, sizeof(batch_a)},
		{0, 1, batch_b, sizeof(batch_b)},
		{1, 0, batch_c, sizeof(batch_c)},
		{1, 1, batch_d, sizeof(batch_d)},
	};

	cr_assert_eq(test_run("'%s' replay -q '%s/data/hand20.jsonl' -o '%s'", test_bin(),
			      SOURCE_DIR, out),
		     0);
	d = etl_reader_open_file(out, &err);
	cr_assert_not_null(d, "%s", err.msg);
	for (unsigned i = 0; i < 4; i++) {
		got = batch_of(d, cases[i].cpu, cases[i].nth, &size);
		cr_assert_not_null(got, "batch %u missing", i);
		cr_assert_eq(size, cases[i].len, "batch %u Size", i);
		for (size_t k = 0; k < cases[i].len; k++) {
			cr_assert_eq(got[k], cases[i].want[k],
				     "batch %u byte 0x%zx: 0x%02x, want 0x%02x", i, k, got[k],
				     cases[i].want[k]);
		}
	}
	cr_assert_null(batch_of(d, 0, 2, &size), "no fifth batch");
	cr_assert_null(batch_of(d, 1, 2, &size));
	etl_reader_close(d);
	cr_assert_eq(test_run("'%s' verify -q '%s' --truth '%s/data/hand20.jsonl'", test_bin(), out,
			      SOURCE_DIR),
		     0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

#define META                                                                                       \
	"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":2,"               \
	"\"sessions\":[{\"name\":\"k\",\"clock\":\"qpc\"}]}\n"

static void refused(const char *stream, const char *want_msg)
{
	char in[160];
	struct stat st;

	snprintf(in, sizeof(in), "%s/in.jsonl", test_dir);
	write_file(in, stream);
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s' 2>'%s'", test_bin(), in, out, errfile),
		     2);
	cr_assert_neq(strstr(slurp(errfile), want_msg), NULL, "stderr: %s", slurp(errfile));
	cr_assert_neq(stat(out, &st), 0, "no output file after a refused stream");
}

Test(replay, time_going_backwards_on_a_cpu_is_refused)
{
	refused(META
		"{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":200},\"old_tid\":0,"
		"\"new_tid\":4}\n"
		"{\"kind\":\"cswitch\",\"cpu\":1,\"tick\":1,\"ts\":{\"qpc\":100},\"old_tid\":0,"
		"\"new_tid\":8}\n"
		"{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":150},\"old_tid\":4,"
		"\"new_tid\":0}\n",
		"in.jsonl:4:");
}

Test(replay, malformed_line_is_refused_with_its_number)
{
	refused(META
		"{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":200},\"old_tid\":0,"
		"\"new_tid\":4}\n"
		"{\"kind\":\"cswitch\",\"cpu\":0,\n",
		"in.jsonl:3");
}

Test(replay, cpu_out_of_range_is_refused)
{
	refused(META
		"{\"kind\":\"cswitch\",\"cpu\":2,\"tick\":1,\"ts\":{\"qpc\":200},\"old_tid\":0,"
		"\"new_tid\":4}\n",
		"in.jsonl:2:");
}

Test(replay, write_error_exits_1_without_output)
{
	cr_assert_eq(test_run("'%s' replay -q '%s/data/hand20.jsonl' -o /dev/full 2>'%s'",
			      test_bin(), SOURCE_DIR, errfile),
		     1);
	cr_assert_neq(strstr(slurp(errfile), "/dev/full"), NULL, "%s", slurp(errfile));
}

Test(replay, usage_errors_exit_2)
{
	cr_assert_eq(test_run("'%s' replay 2>/dev/null", test_bin()), 2);
	cr_assert_eq(test_run("'%s' replay --bogus x 2>/dev/null", test_bin()), 2);
	cr_assert_eq(test_run("'%s' replay '%s/nonexistent.jsonl' -o '%s' 2>/dev/null", test_bin(),
			      test_dir, out),
		     2);
	cr_assert_eq(test_run("'%s' replay --help >/dev/null", test_bin()), 0);
}

Test(verify, a_wrong_truth_is_a_mismatch_with_offset)
{
	char bad[160], cmd[512];

	cr_assert_eq(test_run("'%s' replay -q '%s/data/hand20.jsonl' -o '%s'", test_bin(),
			      SOURCE_DIR, out),
		     0);
	snprintf(bad, sizeof(bad), "%s/bad.jsonl", test_dir);
	/* line 3: old_pri 9 -> 10 (inc 2 instead of 1) */
	snprintf(cmd, sizeof(cmd),
		 "sed '3s/\"old_pri\":9,/\"old_pri\":10,/' '%s/data/hand20.jsonl' > '%s'",
		 SOURCE_DIR, bad);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(
		test_run("'%s' verify '%s' --truth '%s' 2>'%s'", test_bin(), out, bad, errfile), 1);
	cr_assert_neq(strstr(slurp(errfile), "offset 0x"), NULL, "%s", slurp(errfile));
	cr_assert_neq(strstr(slurp(errfile), "bad.jsonl:3"), NULL, "%s", slurp(errfile));
}

Test(replay, dump_expands_every_switch_with_form_batch_and_new_tid)
{
	char cmd[1024], line[1024];
	unsigned n = 0, seen = 0;
	FILE *p;

	cr_assert_eq(test_run("'%s' replay -q '%s/data/hand20.jsonl' -o '%s'", test_bin(),
			      SOURCE_DIR, out),
		     0);
	snprintf(cmd, sizeof(cmd), "'%s' dump --jsonl '%s'", test_bin(), out);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (!strstr(line, "\"kind\":\"CSWITCH_COMPACT\"")) {
			continue;
		}
		n++;
		/* line 7 of the stream: FULL, wait saturated, new thread from the next batch */
		if (strstr(line, "\"ts\":46391,")) {
			cr_assert_neq(strstr(line, "\"batch\":0,"), NULL, "%s", line);
			cr_assert_neq(strstr(line, "\"form\":\"full\""), NULL, "%s", line);
			cr_assert_neq(strstr(line, "\"old_tid\":4104,"), NULL, "%s", line);
			cr_assert_neq(strstr(line, "\"old_pri\":20,"), NULL, "%s", line);
			cr_assert_neq(strstr(line, "\"old_wait_reason\":16,"), NULL, "%s", line);
			cr_assert_neq(strstr(line, "\"new_wait_time\":131071"), NULL, "%s", line);
			cr_assert_neq(strstr(line, "\"new_tid\":4108}"), NULL, "%s", line);
			seen++;
		}
		/* line 10: the CPU's last switch has no known new thread */
		if (strstr(line, "\"ts\":197454,")) {
			cr_assert_neq(strstr(line, "\"batch\":1,"), NULL, "%s", line);
			cr_assert_eq(strstr(line, "new_tid"), NULL, "%s", line);
			cr_assert_neq(strstr(line, "\"old_state\":4,"), NULL, "%s", line);
			seen++;
		}
	}
	cr_assert_eq(pclose(p), 0);
	cr_assert_eq(n, 18, "one object per switch");
	cr_assert_eq(seen, 2);
}

#define SPIN_META                                                                                  \
	"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":2,"               \
	"\"sessions\":[{\"name\":\"k\",\"clock\":\"qpc\",\"flags\":[\"cswitch\","                  \
	"\"compact_cswitch\",\"spinlock\"],\"pmc\":{\"counters\":[\"TotalCycles\"],"               \
	"\"events\":[\"0x0529\"]}}]}\n"

#define SPIN_LINE(cpu, ts, logged)                                                                 \
	"{\"kind\":\"spinlock\",\"cpu\":" #cpu ",\"ts\":{\"qpc\":" #ts "},"                        \
	"\"lock\":\"0xfffff8031a2b3c40\",\"caller\":\"0xfffff8031a000123\","                       \
	"\"acquire_time\":5000,\"release_time\":9000,\"wait_cycles\":777,\"spin_count\":12,"       \
	"\"tid\":4096,\"interrupt_count\":1,\"irql\":2,\"depth\":1,\"mode\":1,\"dpc\":true,"       \
	"\"isr\":false,\"logged\":" #logged ",\"why\":\"contended\",\"pmc\":[99]}\n"

Test(replay, spinlocks_are_logged_when_sampled_and_verify)
{
	char in[160], cmd[512], line[2048];
	unsigned spins = 0;
	FILE *p;

	snprintf(in, sizeof(in), "%s/spin.jsonl", test_dir);
	write_file(in, SPIN_META
		   "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":100},\"old_tid\":0,"
		   "\"new_tid\":4096}\n" SPIN_LINE(0, 150, true) SPIN_LINE(0, 160, false) SPIN_LINE(
			   1, 170,
			   true) "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":200},"
				 "\"old_tid\":4096,"
				 "\"old_pri\":8,\"old_base_pri\":8,\"old_state\":5,\"new_tid\":0}\n"
				 "{\"kind\":\"end\",\"tick\":2,\"ts\":{\"qpc\":300}}\n");
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s'", test_bin(), in, out), 0);
	cr_assert_eq(test_run("'%s' verify -q '%s' --truth '%s'", test_bin(), out, in), 0);
	snprintf(cmd, sizeof(cmd), "'%s' dump --jsonl --raw '%s'", test_bin(), out);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (!strstr(line, "\"hook\":\"0x0529\"")) {
			continue;
		}
		spins++;
		if (spins == 1) {
			/* x64: 0xC0110002 | 1 PMC << 8, Size 0x10 + 8 + 0x38 = 0x50, TS 150 (0x96),
			 * PMC 99 (0x63), then WMI_SPINLOCK; Flags = mode 1 | DPC 0x40 = 0x41 */
			cr_assert_neq(strstr(line, "\"raw\":\"020111c0"
						   "50002905"
						   "9600000000000000"
						   "6300000000000000"
						   "403c2b1a03f8ffff"
						   "2301001a03f8ffff"
						   "8813000000000000"
						   "2823000000000000"
						   "09030000"
						   "0c000000"
						   "00100000"
						   "01000000"
						   "020141"
						   "0000000000\""),
				      NULL, "%s", line);
		}
	}
	cr_assert_eq(pclose(p), 0);
	cr_assert_eq(spins, 2, "the release with logged:false is not an event");

	/* a changed SpinCount in the truth is caught */
	char bad[160];
	snprintf(bad, sizeof(bad), "%s/bad.jsonl", test_dir);
	snprintf(cmd, sizeof(cmd), "sed 's/\"spin_count\":12/\"spin_count\":13/' '%s' > '%s'", in,
		 bad);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(test_run("'%s' verify -q '%s' --truth '%s' 2>/dev/null", test_bin(), out, bad),
		     1);
}

Test(replay, ccswap_stop_flushes_at_the_next_switch)
{
	char in[160], cmd[512], line[2048];
	unsigned batches = 0;
	FILE *p;

	snprintf(in, sizeof(in), "%s/stop.jsonl", test_dir);
	write_file(
		in, META
		"{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":100},\"old_tid\":0,"
		"\"new_tid\":4096}\n"
		"{\"kind\":\"ccswap_stop\",\"tick\":1,\"ts\":{\"qpc\":120},\"clock\":\"qpc\"}\n"
		"{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":200},\"old_tid\":4096,"
		"\"old_pri\":8,\"old_base_pri\":8,\"old_state\":5,\"new_tid\":0}\n"
		"{\"kind\":\"end\",\"tick\":2,\"ts\":{\"qpc\":300}}\n");
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s'", test_bin(), in, out), 0);
	snprintf(cmd, sizeof(cmd), "'%s' dump --jsonl '%s'", test_bin(), out);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "\"hook\":\"0x0525\"")) {
			/* first: flushed by the stop at the second switch (TS 200), one record */
			if (batches++ == 0) {
				cr_assert_neq(strstr(line, "\"ts\":200,"), NULL, "%s", line);
				cr_assert_neq(strstr(line, "\"records_bytes\":2"), NULL, "%s",
					      line);
			}
		}
	}
	cr_assert_eq(pclose(p), 0);
	cr_assert_eq(batches, 2);
	cr_assert_eq(test_run("'%s' verify -q '%s' --truth '%s'", test_bin(), out, in), 0);
}

Test(replay, dump_stats_counts_compact_switches_by_form)
{
	/* hand20: IDLE_SHORT 4 (lines 2, 9, 11, 17), IDLE 1 (6), LITE 6, FULL 7 */
	cr_assert_eq(test_run("'%s' replay -q '%s/data/hand20.jsonl' -o '%s'", test_bin(),
			      SOURCE_DIR, out),
		     0);
	cr_assert_eq(test_run("'%s' dump --stats '%s' > '%s/stats.txt'", test_bin(), out, test_dir),
		     0);
	cr_assert_eq(test_run("grep -Eq '^compact switches +18$' '%s/stats.txt' && "
			      "grep -Eq '^  idle_short +4$' '%s/stats.txt' && "
			      "grep -Eq '^  idle +1$' '%s/stats.txt' && "
			      "grep -Eq '^  lite +6$' '%s/stats.txt' && "
			      "grep -Eq '^  full +7$' '%s/stats.txt'",
			      test_dir, test_dir, test_dir, test_dir, test_dir),
		     0, "the counts in stats.txt differ");
}

/* ---- fields wider in the kernel than on the wire (KERNEL_FACTS 5.2, 6.2) -- */

#define PLAIN_META                                                                                 \
	"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":1,"               \
	"\"sessions\":[{\"name\":\"k\",\"clock\":\"qpc\",\"flags\":[\"cswitch\"]}]}\n"

/* The raw hex of the first record with @hook in `dump --jsonl --raw` of @etl. */
static void raw_of(const char *etl, const char *hook, char *out_hex, size_t cap)
{
	char cmd[512], line[4096], key[32];
	FILE *p;

	out_hex[0] = 0;
	snprintf(key, sizeof(key), "\"hook\":\"%s\"", hook);
	snprintf(cmd, sizeof(cmd), "'%s' dump --jsonl --raw '%s'", test_bin(), etl);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *r = strstr(line, "\"raw\":\"");

		if (strstr(line, key) && r && !out_hex[0]) {
			r += 7;
			snprintf(out_hex, cap, "%.*s", (int)strcspn(r, "\""), r);
		}
	}
	cr_assert_eq(pclose(p), 0);
}

Test(replay, old_rank_saturates_and_quantum_keeps_32_bits)
{
	static const struct {
		const char *rank;    /* the kernel's scheduling-group rank */
		const char *quantum; /* (QuantumTarget - CycleTime) >> 10, 64-bit */
		const char *byte0a;  /* OldThreadRank at payload 0x0A, typed from KF 5.2 */
		const char *quant14; /* OldThreadRemainingQuantum at 0x14, little-endian */
	} cases[] = {
		{"254", "-3", "fe", "fdffffff"},
		{"255", "0", "ff", "00000000"},
		{"256", "2147483647", "ff", "ffffff7f"},
		{"300", "2147483648", "ff", "00000080"},
		{"4294967295", "4294967303", "ff", "07000000"},
	};
	char in[160], hex[512], want[512], line[1024];

	snprintf(in, sizeof(in), "%s/rank.jsonl", test_dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line),
			 PLAIN_META
			 "{\"kind\":\"cswitch\",\"cpu\":0,\"tick\":1,\"ts\":{\"qpc\":256},"
			 "\"old_tid\":4096,\"old_pri\":9,\"old_base_pri\":8,"
			 "\"old_state\":1,\"old_rank\":%s,\"old_remaining_quantum\":%s,"
			 "\"new_tid\":4100,\"new_pri\":10}\n",
			 cases[i].rank, cases[i].quantum);
		write_file(in, line);
		cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s'", test_bin(), in, out), 0, "%s",
			     cases[i].rank);
		raw_of(out, "0x0524", hex, sizeof(hex));
		/* Marker 0xC0110004 (v4, win10-1709), Size 0x28, HookId 0x0524, TS 0x100;
		 * NewThreadId 0x1004, OldThreadId 0x1000, priorities 10 and 9, the rank byte,
		 * decrement 0, wait reason 0, flags 0, state 1 (Ready), ideal 0, wait time 0 */
		snprintf(want, sizeof(want),
			 "040011c0"
			 "28002405"
			 "0001000000000000"
			 "04100000"
			 "00100000"
			 "0a09%s00"
			 "00000100"
			 "00000000"
			 "%s",
			 cases[i].byte0a, cases[i].quant14);
		cr_assert_str_eq(hex, want, "rank %s quantum %s", cases[i].rank, cases[i].quantum);
		cr_assert_eq(test_run("'%s' verify -q '%s' --truth '%s'", test_bin(), out, in), 0,
			     "verify applies the same rule (rank %s)", cases[i].rank);
	}
}

Test(replay, wait_cycles_keep_their_low_32_bits)
{
	char in[160], hex[512];

	snprintf(in, sizeof(in), "%s/wait.jsonl", test_dir);
	/* WaitTimeInCycles = (ULONG)(AcquireTime - T0): 2^32 + 777 is 777 on the wire */
	write_file(in, SPIN_META
		   "{\"kind\":\"spinlock\",\"cpu\":0,\"ts\":{\"qpc\":150},"
		   "\"lock\":\"0xfffff8031a2b3c40\",\"caller\":\"0xfffff8031a000123\","
		   "\"acquire_time\":5000,\"release_time\":9000,\"wait_cycles\":4294968073,"
		   "\"spin_count\":12,\"tid\":4096,\"interrupt_count\":1,\"irql\":2,\"depth\":1,"
		   "\"mode\":1,\"dpc\":true,\"isr\":false,\"logged\":true,\"why\":\"contended\","
		   "\"pmc\":[99]}\n");
	cr_assert_eq(test_run("'%s' replay -q '%s' -o '%s'", test_bin(), in, out), 0);
	raw_of(out, "0x0529", hex, sizeof(hex));
	/* WaitTimeInCycles at payload 0x20: after 0x10 header, 8 PMC, 0x20 of payload */
	cr_assert_str_eq(hex + 2 * (0x10 + 8 + 0x20), "09030000"
						      "0c000000"
						      "00100000"
						      "01000000"
						      "020141"
						      "0000000000");
	cr_assert_eq(test_run("'%s' verify -q '%s' --truth '%s'", test_bin(), out, in), 0);
}
