// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_machine.c - the machine line of `etwforge bench`: the CPU
 * model (/proc/cpuinfo), the online cores, the compiler that built the
 * library (__VERSION__), the build type and flags as meson configured them
 * (tools/bench/bench_build.h, generated), the kernel and etwforge's version.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "tools/bench/bench.h"
#include "tools/bench/bench_build.h"

#if defined(__clang__)
#define COMPILER __VERSION__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER BENCH_CC
#endif

/* The value of the first "@key : value" line of /proc/cpuinfo, or false. */
static bool cpuinfo(const char *key, char *out, size_t cap)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t klen = strlen(key);
	char line[512];
	bool found = false;

	if (!f) {
		return false;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = line + klen, *v;

		if (strncmp(line, key, klen) != 0) {
			continue;
		}
		p += strspn(p, " \t");
		if (*p != ':') {
			continue;
		}
		v = p + 1 + strspn(p + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, cap, "%s", v);
		found = *v != '\0';
	}
	fclose(f);
	return found;
}

void bench_machine_fill(struct bench_machine *m)
{
	static const char *const keys[] = {"model name", "Processor", "cpu model", "Hardware"};
	struct utsname u;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	bool found = false;

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && !found; i++) {
		found = cpuinfo(keys[i], m->cpu, sizeof(m->cpu));
	}
	if (!found) {
		snprintf(m->cpu, sizeof(m->cpu), "unknown");
	}
	m->cores = n > 0 ? (unsigned)n : 0;
	snprintf(m->compiler, sizeof(m->compiler), "%s", COMPILER);
	snprintf(m->build, sizeof(m->build), "%s (%s)", BENCH_BUILD_TYPE, BENCH_BUILD_FLAGS);
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%s %s %s", u.sysname, u.release, u.machine);
	}
	snprintf(m->version, sizeof(m->version), "%s", etwforge_version());
}
