// SPDX-License-Identifier: MIT
/*
 * tools/examples/etl_harness.c - a fuzz harness for an ETL parser: the
 * shape to copy when fuzzing your own with etwforge's corpus and mutator.
 * parse_etl() below stands for the parser under test (a small walker of
 * buffers, records and compact CSwitch batches, bounds-checked); replace it
 * with a call into yours.
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

/* The records of one compact CSwitch batch (0x0525): every TID index must name a TID. */
static int walk_batch(const uint8_t *p, size_t n)
{
	size_t q =
		0x58; /* after PERFINFO_CCSWAP_BUFFER: FirstTimeStamp, TidTable[16], BasePri[16] */
	int switches = 0;

	if (n < q) {
		return -1;
	}
	while (q + 2 <= n) {
		unsigned type = p[q] & 3u, index;
		size_t len = type == 0 ? 2 : type == 3 ? 8 : 4;

		if (q + len > n) {
			return -1; /* a record cut by the batch's end */
		}
		if (type >= 2) {
			index = type == 2 ? (p[q] >> 2) & 15u : p[q + 4] & 15u;
			if (le32(p + 8 + 4 * index) == 0) {
				return -1; /* an empty TidTable slot */
			}
		}
		q += len;
		switches++;
	}
	return switches;
}

/* The parser under test: buffers, records, and the payloads it knows. Return: records. */
static int parse_etl(const uint8_t *data, size_t size)
{
	size_t pos = 0;
	int records = 0;

	while (size - pos >= 0x48) {
		const uint8_t *b = data + pos;
		uint32_t bsize = le32(b), end = le32(b + 0x30) ? le32(b + 0x30) : le32(b + 4);
		size_t r = 0x48;

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

			if (marker == 0xFFFFFFFFu || !(marker & 0x80000000u)) {
				break;
			}
			if (rsize < 0x10 || rsize > end - r) {
				return -1;
			}
			if (((marker >> 16) & 0xFF) == 0x11 && hook == 0x0525 &&
			    rsize >= 0x10 + 8 * items) {
				if (walk_batch(b + r + 0x10 + 8 * items, rsize - 0x10 - 8 * items) <
				    0) {
					return -1;
				}
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
