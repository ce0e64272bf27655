// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_common.c - the small things every public entry point
 * needs: filling struct etwforge_error, the version, a wall clock, the
 * signals and the closed standard descriptors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tools/lib/api.h"
#include "tools/lib/one_line.h"
#include "tools/lib/run/out_file.h"

static int vfail(struct etwforge_error *err, int code, int status, bool located, const char *fmt,
		 va_list ap)
{
	if (err) {
		err->code = code;
		err->status = status;
		err->located = located;
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		one_line(err->msg, sizeof(err->msg));
	}
	return code;
}

int api_fail(struct etwforge_error *err, int code, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, code, status, false, fmt, ap);
	va_end(ap);
	return code;
}

int api_fail_at(struct etwforge_error *err, int code, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(err, code, status, true, fmt, ap);
	va_end(ap);
	return code;
}

int api_ok(struct etwforge_error *err)
{
	if (err) {
		err->code = 0;
		err->status = ETWFORGE_EXIT_OK;
		err->located = false;
		err->msg[0] = '\0';
	}
	return 0;
}

double api_wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *etwforge_version(void)
{
	return ETWFORGE_VERSION;
}

void etwforge_signals_install(void)
{
	out_signals_install();
}

void api_note_empty(FILE *notes, const char *prog, const struct etwforge_summary *sum,
		    const char *span)
{
	if (sum->switches || sum->spinlock_releases) {
		return;
	}
	if (span) {
		fprintf(notes,
			"etwforge %s: note: no context switch or spin lock in %s of simulated "
			"time: the files hold their headers only\n",
			prog, span);
	} else {
		fprintf(notes,
			"etwforge %s: note: the stream has no context switch or spin lock: the "
			"files hold their headers only\n",
			prog);
	}
}

unsigned etwforge_stdio_guard(void)
{
	return out_std_guard();
}

bool etwforge_stdio_closed(int fd)
{
	return out_std_closed(fd);
}

int api_stdin_closed(const char *path, struct etwforge_error *err)
{
	if (path && !strcmp(path, "-") && out_std_closed(STDIN_FILENO)) {
		return api_fail(err, -EBADF, ETWFORGE_EXIT_DATA, "standard input is closed");
	}
	return 0;
}
