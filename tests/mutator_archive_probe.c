// SPDX-License-Identifier: MIT
/*
 * tests/mutator_archive_probe.c - a program linked with libetwforge_mutator.a
 * and nothing else (tests/test_mutator_archive.sh): it declares the libFuzzer
 * entry points itself, as a fuzz target's engine does, and calls them.
 *
 *   mutator_archive_probe SEED IN OUT            LLVMFuzzerCustomMutator of IN
 *   mutator_archive_probe SEED IN OTHER OUT      LLVMFuzzerCustomCrossOver
 *
 * writes the mutant to OUT. Exit status 1 with one line on an error.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size,
				 unsigned int seed);

/* The file at @path in a buffer of @extra more bytes than it; *@len its size. */
static uint8_t *slurp(const char *path, size_t extra, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f) {
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		*len = (size_t)n;
		buf = malloc(*len + extra);
		if (buf && fread(buf, 1, *len, f) != *len) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	size_t len = 0, other_len = 0, max, n;
	uint8_t *in, *other = NULL, *out;
	unsigned seed;
	FILE *f;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: mutator_archive_probe SEED IN [OTHER] OUT\n");
		return 2;
	}
	seed = (unsigned)strtoul(argv[1], NULL, 10);
	in = slurp(argv[2], 0, &len);
	if (!in || (argc == 5 && !(other = slurp(argv[3], 0, &other_len)))) {
		fprintf(stderr, "mutator_archive_probe: cannot read %s\n", in ? argv[3] : argv[2]);
		return 1;
	}
	max = 2 * (len + other_len) + 65536;
	out = malloc(max);
	if (!out) {
		fprintf(stderr, "mutator_archive_probe: out of memory\n");
		return 1;
	}
	if (other) {
		n = LLVMFuzzerCustomCrossOver(in, len, other, other_len, out, max, seed);
	} else {
		memcpy(out, in, len);
		n = LLVMFuzzerCustomMutator(out, len, max, seed);
	}
	if (n == 0 || n > max) {
		fprintf(stderr, "mutator_archive_probe: the mutator returned %zu bytes\n", n);
		return 1;
	}
	f = fopen(argv[argc - 1], "wb");
	if (!f || fwrite(out, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "mutator_archive_probe: cannot write %s\n", argv[argc - 1]);
		return 1;
	}
	free(in);
	free(other);
	free(out);
	return 0;
}
