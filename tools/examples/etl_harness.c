// SPDX-License-Identifier: MIT
/*
 * tools/examples/etl_harness.c - a fuzz harness for an ETL parser: the
 * shape to copy when fuzzing your own with etwforge's corpus and mutator.
 * parse_etl() below stands for the parser under test (a small consumer:
 * it walks buffers and records, decodes CSwitch, compact CSwitch batches
 * and Thread records into a table of threads, counts what it finds odd,
 * and checks bounds); replace it with a call into yours.
 *
 * Seeds and dictionary (README, "Fuzzing your parser"):
 *   etwforge corpus --out corpus --zip etl && etwforge corpus --mangle --out broken
 *   then copy the .etl files of corpus/ and broken/ into a folder seeds/
 * AFL++ (reads the file named on the command line):
 *   afl-clang-fast -O1 -o harness etl_harness.c
 *   AFL_CUSTOM_MUTATOR_LIBRARY=$(pkg-config --variable=libdir etwforge)/libetwforge_mutator.so \
 *     afl-fuzz -i seeds -o findings -x corpus/etl.dict -- ./harness @@
 * libFuzzer (the mutator linked in replaces libFuzzer's own mutations):
 *   clang -O1 -g -fsanitize=fuzzer,address -DETL_LIBFUZZER etl_harness.c \
 *     $(pkg-config --libs etwforge) -letwforge_mutator -o harness_lf
 *   mkdir -p findings_lf && ./harness_lf -dict=corpus/etl.dict findings_lf seeds
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/*
 * What a consumer builds while it reads: the threads it has seen and what
 * each is doing, and the oddities it counts instead of trusting the file.
 */
#define VIEW_THREADS 256u

enum { T_FREE, T_KNOWN, T_RUNNING, T_WAITING, T_ENDED };

struct view {
	uint32_t tid[VIEW_THREADS];
	uint8_t state[VIEW_THREADS];
	unsigned threads;
	unsigned table_full, unknown_in, running_twice, ended_unknown, bad_state, bad_priority,
		backwards, batch_types[4];
};

/* The slot of @tid (open addressing), added when @add; NULL when absent or the table is full. */
static uint8_t *thread_slot(struct view *v, uint32_t tid, int add)
{
	unsigned h = (tid >> 2) * 2654435761u % VIEW_THREADS;

	for (unsigned k = 0; k < VIEW_THREADS; k++, h = (h + 1) % VIEW_THREADS) {
		if (v->state[h] != T_FREE && v->tid[h] == tid) {
			return &v->state[h];
		}
		if (v->state[h] == T_FREE) {
			if (!add) {
				return NULL;
			}
			v->tid[h] = tid;
			v->state[h] = T_KNOWN;
			v->threads++;
			return &v->state[h];
		}
	}
	v->table_full++;
	return NULL;
}

/* A switch to @new_tid (0: idle); the thread that left is @old_tid, in @old_state. */
static void switch_to(struct view *v, uint32_t new_tid, uint32_t old_tid, unsigned old_state)
{
	uint8_t *n = new_tid ? thread_slot(v, new_tid, 0) : NULL, *o;

	if (new_tid && !n) {
		v->unknown_in++; /* no Thread Start/DCStart before it */
		n = thread_slot(v, new_tid, 1);
	}
	if (n) {
		if (*n == T_RUNNING) {
			v->running_twice++;
		}
		*n = T_RUNNING;
	}
	if (old_tid && (o = thread_slot(v, old_tid, 1))) {
		*o = old_state == 5 ? T_WAITING : T_KNOWN; /* KTHREAD_STATE Waiting */
	}
}

/* The records of one compact CSwitch batch (0x0525): every TID index must name a TID. */
static int walk_batch(struct view *v, const uint8_t *p, size_t n)
{
	size_t q =
		0x58; /* after PERFINFO_CCSWAP_BUFFER: FirstTimeStamp, TidTable[16], BasePri[16] */
	int switches = 0;
	uint32_t last = 0;

	if (n < q) {
		return -1;
	}
	while (q + 2 <= n) {
		unsigned type = p[q] & 3u, index;
		size_t len = type == 0 ? 2 : type == 3 ? 8 : 4;

		if (q + len > n) {
			return -1; /* a record cut by the batch's end */
		}
		v->batch_types[type]++;
		if (type >= 2) {
			uint32_t tid;

			index = type == 2 ? (p[q] >> 2) & 15u : p[q + 4] & 15u;
			tid = le32(p + 8 + 4 * index);
			if (tid == 0) {
				return -1; /* an empty TidTable slot */
			}
			if ((int8_t)p[0x48 + index] > 31) {
				v->bad_priority++; /* ThreadBasePriority[index] */
			}
			switch_to(v, tid, last, 0);
			last = tid;
		} else {
			switch_to(v, 0, last, 0); /* to idle */
			last = 0;
		}
		q += len;
		switches++;
	}
	return switches;
}

/* A CSwitch (0x0524) payload: NewThreadId, OldThreadId, priorities, wait reason, state. */
static void cswitch(struct view *v, const uint8_t *pl, size_t n)
{
	if (n < 0x18) {
		return;
	}
	if ((int8_t)pl[8] > 31 || (int8_t)pl[9] > 31 || (int8_t)pl[8] < 0) {
		v->bad_priority++;
	}
	if (pl[14] > 9) { /* OldThreadState beyond KTHREAD_STATE */
		v->bad_state++;
	}
	switch_to(v, le32(pl), le32(pl + 4), pl[14]);
}

/* Thread Start/End/DCStart/DCEnd (0x0501..0x0504): ProcessId, TThreadId. */
static void thread_record(struct view *v, unsigned hook, const uint8_t *pl, size_t n)
{
	uint8_t *t;

	if (n < 8) {
		return;
	}
	if (hook == 0x0501 || hook == 0x0503) {
		thread_slot(v, le32(pl + 4), 1);
	} else if ((t = thread_slot(v, le32(pl + 4), 0)) != NULL) {
		*t = T_ENDED;
	} else {
		v->ended_unknown++;
	}
}

/* The parser under test: buffers, records, and the payloads it knows. Return: records. */
static int parse_etl(const uint8_t *data, size_t size)
{
	static struct view v;
	size_t pos = 0;
	int records = 0;

	memset(&v, 0, sizeof(v));
	while (size - pos >= 0x48) {
		const uint8_t *b = data + pos;
		uint32_t bsize = le32(b), end = le32(b + 0x30) ? le32(b + 0x30) : le32(b + 4);
		size_t r = 0x48;
		uint64_t last_ts = 0;

		if (bsize < 0x48 || bsize > size - pos || end > bsize) {
			return -1;
		}
		if (le16(b + 0x34) & 0x40) {
			pos += bsize; /* compressed: not handled by this parser */
			continue;
		}
		while (r + 0x10 <= end) {
			uint32_t marker = le32(b + r), rsize = le16(b + r + 4),
				 hook = le16(b + r + 6);
			unsigned items = ((marker >> 15) & 1u) + ((marker >> 8) & 7u);
			unsigned htype = (marker >> 16) & 0xFF;
			size_t hsize = htype == 0x11 || htype == 0x10 ? 0x10 : 0x20;
			uint64_t ts;

			if (marker == 0xFFFFFFFFu || !(marker & 0x80000000u)) {
				break;
			}
			if (rsize < hsize || rsize > end - r) {
				return -1;
			}
			ts = le64(b + r + (hsize == 0x10 ? 8 : 0x10));
			if (ts < last_ts) {
				v.backwards++; /* out of order within a buffer */
			}
			last_ts = ts;
			if (htype == 0x11 && hook == 0x0525 && rsize >= 0x10 + 8 * items) {
				if (walk_batch(&v, b + r + 0x10 + 8 * items,
					       rsize - 0x10 - 8 * items) < 0) {
					return -1;
				}
			} else if (htype == 0x11 && hook == 0x0524) {
				cswitch(&v, b + r + 0x10, rsize - 0x10);
			} else if (hsize == 0x20 && hook >= 0x0501 && hook <= 0x0504) {
				thread_record(&v, hook, b + r + 0x20, rsize - 0x20);
			}
			records++;
			r += (rsize + 7u) & ~7u;
		}
		pos += bsize;
	}
	return records;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keep the result observable: a parse without effects may be optimised away. */
static volatile int sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sink = parse_etl(data, size);
	return 0;
}

#ifndef ETL_LIBFUZZER
/* AFL++ and plain runs: the file named by argv[1], or standard input. */
int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(argv[1]);
		return 2;
	}
	do {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 65536);

			if (!nb) {
				free(buf);
				return 2;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (f != stdin) {
		fclose(f);
	}
	printf("%d records\n", parse_etl(buf, len));
	free(buf);
	return 0;
}
#endif
