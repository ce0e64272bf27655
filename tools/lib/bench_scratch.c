// SPDX-License-Identifier: MIT
/*
 * tools/lib/bench_scratch.c - the scratch folder of `etwforge bench`: the
 * files (d), (e) and (f) write, and the source trace (e) and (f) read.
 *
 *   bench_scratch_create()   mkdtemp("$TMPDIR/etwforge-bench-XXXXXX"); the
 *        |                   signal hook of tools/lib/run/out_file.c armed
 *   ... gen children write gen*.etl, replay writes replay.etl ...
 *   bench_scratch_destroy()  every file of enum bench_file, the folder; the
 *                            hook disarmed
 *
 * A signal of etwforge_signals_install() (SIGINT, SIGTERM, SIGHUP) first
 * removes the temporary files of the run in progress (out_file.c), then
 * runs on_signal() here: it passes the signal on to the child process
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

#include "tools/lib/api.h"
#include "tools/lib/bench.h"
#include "tools/lib/run/out_file.h"

static const char *const file_names[BENCH_F_COUNT] = {
	"gen.etl",   "gen-2.etl",	"gen.truth.jsonl", "src.etl",
	"src-2.etl", "src.truth.jsonl", "replay.etl",	   "replay-2.etl",
};

struct bench_scratch {
	char dir[PATH_MAX];
	char path[BENCH_F_COUNT][PATH_MAX];
	bool have_source;
	uint64_t source_ns;
	struct bench_source source;
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
		api_fail(err, -ENOMEM, ETWFORGE_EXIT_DATA, "%s", strerror(ENOMEM));
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
		api_fail(err, -ENAMETOOLONG, ETWFORGE_EXIT_DATA,
			 "%s: cannot create a scratch folder: %s", base, strerror(ENAMETOOLONG));
		free(s);
		return NULL;
	}
	if (!mkdtemp(s->dir)) {
		int e = errno;

		api_fail(err, -e, ETWFORGE_EXIT_DATA, "%s: cannot create a scratch folder: %s",
			 base, strerror(e));
		free(s);
		return NULL;
	}
	for (unsigned f = 0; f < BENCH_F_COUNT; f++) {
		snprintf(s->path[f], sizeof(s->path[f]), "%.*s/%s", PATH_MAX - 32, s->dir,
			 file_names[f]);
	}
	live = s;
	out_signals_at_exit(on_signal);
	return s;
}

void bench_scratch_destroy(struct bench_scratch *s)
{
	if (!s) {
		return;
	}
	out_signals_at_exit(NULL);
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
	out_signals_at_exit(NULL);
	live = NULL;
	child_pid = 0;
}

/* The source trace, in a child in the folder. */
static int source_child(void *ctx, void *out, struct etwforge_error *err)
{
	const uint64_t *sim_ns = ctx;
	struct bench_source *src = out;
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_summary *sum = malloc(sizeof(*sum));
	struct etwforge_run_opts o = {0};
	char set[64];
	int rc;

	if (!sc || !sum) {
		return api_fail(err, -ENOMEM, ETWFORGE_EXIT_DATA, "%s", strerror(ENOMEM));
	}
	snprintf(set, sizeof(set), "duration=%lluns", (unsigned long long)*sim_ns);
	o.output = file_names[BENCH_F_SRC];
	o.truth = file_names[BENCH_F_SRC_TRUTH];
	rc = etwforge_scenario_set(sc, set, err);
	if (rc == 0) {
		rc = etwforge_generate(sc, &o, sum, err);
	}
	if (rc == 0) {
		src->switches = sum->switches;
		src->events = sum->sessions[0].events;
		src->xxh3 = sum->sessions[0].xxh3;
	}
	return rc; /* the process ends: nothing to free */
}

int bench_scratch_source(struct bench_scratch *s, uint64_t sim_ns, struct bench_source *src,
			 struct etwforge_error *err)
{
	struct rusage ru;
	double wall;
	int rc;

	if (s->have_source && s->source_ns == sim_ns) {
		*src = s->source;
		return 0;
	}
	memset(&s->source, 0, sizeof(s->source));
	rc = bench_child_run(s, "the source trace", source_child, &sim_ns, &s->source,
			     sizeof(s->source), &ru, &wall, err);
	if (rc < 0) {
		return rc;
	}
	s->have_source = true;
	s->source_ns = sim_ns;
	*src = s->source;
	return 0;
}
