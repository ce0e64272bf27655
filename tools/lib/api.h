/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/api.h - what the public API's implementation files share: the
 * opaque handles' contents and filling struct etwforge_error. Private to
 * the library.
 */
#ifndef TOOLS_LIB_API_H
#define TOOLS_LIB_API_H

#include "etwforge/etwforge.h"
#include "tools/lib/scenario/scenario.h"
#include "tools/lib/run/session_run.h"

/** struct etwforge_scenario - a scenario being built (handle of the API). */
struct etwforge_scenario {
	struct scenario sc;
};

/**
 * api_fail - fill @err (may be NULL) with @code, @status and the message.
 * Return: @code, for `return api_fail(...)`.
 */
int api_fail(struct etwforge_error *err, int code, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** api_fail_at - api_fail() for a message that starts with its own place (located). */
int api_fail_at(struct etwforge_error *err, int code, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** api_ok - clear @err (may be NULL). Return: 0. */
int api_ok(struct etwforge_error *err);

/** api_file_reader - the reader behind a file handle. */
struct etl_reader *api_file_reader(const struct etwforge_file *f);
/** api_file_keep_going - was @f opened with ETWFORGE_OPEN_KEEP_GOING? */
bool api_file_keep_going(const struct etwforge_file *f);

/** api_wall_seconds - a monotonic clock, in seconds. */
double api_wall_seconds(void);

/**
 * api_stdin_closed - @path is "-" and standard input was closed at
 * etwforge_stdio_guard(): reading it would read nothing, or what took
 * its place. Return: -EBADF with @err ("standard input is closed", exit
 * status 1), else 0.
 */
int api_stdin_closed(const char *path, struct etwforge_error *err);

/**
 * api_summary_fill - @sum from a finished run of @cfg that ended at @end
 * and took @wall seconds.
 */
void api_summary_fill(struct etwforge_summary *sum, const struct trace_config *cfg,
		      const struct session_run *run, const struct sim_end *end, double wall);

/**
 * api_summary_json - @sum as the JSON object `--json` writes, with a newline.
 * Return: as etwforge_event_json().
 */
size_t api_summary_json(const struct etwforge_summary *sum, char *buf, size_t cap);

/**
 * api_note_empty - say on @notes that a run wrote no event at all (no
 * switch, no spin lock), so that an empty trace is never taken for a
 * result: "etwforge @prog: note: no context switch in @span of simulated
 * time ..." (@span NULL: "in the stream"). Nothing when there were events.
 */
void api_note_empty(FILE *notes, const char *prog, const struct etwforge_summary *sum,
		    const char *span);

#endif /* TOOLS_LIB_API_H */
