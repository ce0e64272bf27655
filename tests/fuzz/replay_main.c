/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/replay_main.c - a main() for a libFuzzer target, so that its
 * findings run as regression tests in every build (gcc, no libFuzzer):
 * every file of the folders (or files) named on the command line goes
 * through LLVMFuzzerTestOneInput() once. A finding that still crashes,
 * traps or (in the sanitizer build) reads out of bounds fails the test.
 * tests/data/fuzz/TARGET/ holds each target's findings (tools/fuzzing/fuzz.sh
 * leaves new ones in fuzz-out/findings/TARGET/).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
		fclose(f);
		return -1;
	}
	rewind(f);
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	fprintf(stderr, "replay: %s (%ld bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned inputs = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		struct dirent *e;
		DIR *d;

		if (stat(argv[i], &st) != 0) {
			continue; /* no findings for this target yet */
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0) {
				return 1;
			}
			inputs++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.') {
				continue;
			}
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path) < 0) {
				closedir(d);
				return 1;
			}
			inputs++;
		}
		if (d) {
			closedir(d);
		}
	}
	printf("%u inputs replayed\n", inputs);
	return 0;
}
