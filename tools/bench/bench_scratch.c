// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_scratch.c - the scratch folder of `etwforge bench`: the
 * files (d), (e) and (f) write, and the source trace (e) and (f) read.
 *
 *   bench_scratch_create()   mkdtemp("$TMPDIR/etwforge-bench-XXXXXX"); the
 *        |                   signal hook of tools/lib/run/out_file.c armed
 *   ... gen children write gen*.etl, replay writes replay.etl ...
 *   bench_scratch_destroy()  every file of enum bench_file, the folder; the
 *                            hook disarmed
 *
 * A signal of cli_signals_install() (SIGINT, SIGTERM, SIGHUP) first
 * removes the temporary files of the run in progress (the library's
 * etwforge_outputs_abandon()), then runs on_signal() here: it passes the signal on to the child process
 * that is running for the folder and waits for it (so the child removes
 * its own temporary files), removes the files by their known names and
 * the folder, and the process exits with 128 + the signal number. Only
 * async-signal-safe calls there: kill, waitpid, unlink, rmdir.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/bench/bench.h"
#include "cli.h"

static const char *const file_names[BENCH_F_COUNT] = {
	"gen.etl",   "gen-2.etl",	"gen.truth.jsonl", "src.etl",
	"src-2.etl", "src.truth.jsonl", "replay.etl",	   "replay-2.etl",
};

struct bench_scratch {
	char dir[PATH_MAX];
	char path[BENCH_F_COUNT][PATH_MAX];
};

/* The folder a signal removes (one per process at a time), and its child. */
static struct bench_scratch *volatile live;
static volatile sig_atomic_t child_pid;

static void remove_files(const struct bench_scratch *s)
{
	for (unsigned f = 0; f < BENCH_F_COUNT; f++) {
		unlink(s->path[f]);
	}
	rmdir(s->dir);
}

static void on_signal(int sig)
{
	struct bench_scratch *s = live;
	pid_t pid = (pid_t)child_pid;

	if (pid > 0) {
		kill(pid, sig);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
		}
	}
	if (s) {
		remove_files(s);
	}
}

struct bench_scratch *bench_scratch_create(const char *tmpdir, struct etwforge_error *err)
{
	struct bench_scratch *s = calloc(1, sizeof(*s));
	const char *base = tmpdir;

	if (!s) {
		error_fail(err, -ENOMEM, ERR_DATA, "%s", strerror(ENOMEM));
		return NULL;
	}
	if (!base || !*base) {
		base = getenv("TMPDIR");
	}
	if (!base || !*base) {
		base = "/tmp";
	}
	if ((size_t)snprintf(s->dir, sizeof(s->dir), "%s/etwforge-bench-XXXXXX", base) >=
	    sizeof(s->dir) - 32) {
		error_fail(err, -ENAMETOOLONG, ERR_DATA, "%s: cannot create a scratch folder: %s",
			   base, strerror(ENAMETOOLONG));
		free(s);
		return NULL;
	}
	if (!mkdtemp(s->dir)) {
		int e = errno;

		error_fail(err, -e, ERR_DATA, "%s: cannot create a scratch folder: %s", base,
			   strerror(e));
		free(s);
		return NULL;
	}
	for (unsigned f = 0; f < BENCH_F_COUNT; f++) {
		snprintf(s->path[f], sizeof(s->path[f]), "%.*s/%s", PATH_MAX - 32, s->dir,
			 file_names[f]);
	}
	live = s;
	cli_at_signal(on_signal);
	return s;
}

void bench_scratch_destroy(struct bench_scratch *s)
{
	if (!s) {
		return;
	}
	cli_at_signal(NULL);
	live = NULL;
	remove_files(s);
	free(s);
}

const char *bench_scratch_path(const struct bench_scratch *s, enum bench_file f)
{
	return s->path[f];
}

const char *bench_scratch_name(enum bench_file f)
{
	return file_names[f];
}

const char *bench_scratch_dir(const struct bench_scratch *s)
{
	return s->dir;
}

void bench_scratch_child(int pid)
{
	child_pid = pid;
}

void bench_scratch_forked(void)
{
	cli_at_signal(NULL);
	live = NULL;
	child_pid = 0;
}
