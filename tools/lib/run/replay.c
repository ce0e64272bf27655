// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/replay.c - run_replay(): a switch / spin-lock stream in the
 * truth schema, encoded exactly through the same producer and writers as
 * a simulated run. The precise way to build a hand-made edge case. A bad
 * line stops everything (`stream:line: what`), and nothing is written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/lib/run/input_check.h"
#include "tools/lib/run/run.h"
#include "tools/lib/run/summary.h"
#include "tools/lib/run/engine_mem.h"
#include "tools/lib/run/replay_mem.h"
#include "tools/lib/run/run_stop.h"
#include "tools/lib/truth/truth.h"
#include "tools/lib/run/out_file.h"

/* An identity or rundown line as the record the machine fires. Return: whether it is one. */
static bool as_record(const struct truth_record *rec, struct sim_record *r)
{
	switch (rec->kind) {
#define AS_RECORD(KIND, um, REC)                                                                   \
	case TRUTH_##KIND:                                                                         \
		r->kind = SIM_REC_##REC;                                                           \
		r->u.um = rec->u.um;                                                               \
		return true;
		AS_RECORD(PROCESS, process, PROCESS)
		AS_RECORD(THREAD, thread, THREAD)
		AS_RECORD(THREAD_NAME, thread_name, THREAD_NAME)
		AS_RECORD(READY, ready, READY)
		AS_RECORD(SAMPLE, sample, SAMPLE)
		AS_RECORD(INTERVAL, interval, INTERVAL)
		AS_RECORD(CONFIG, cpu_config, CPU_CONFIG)
		AS_RECORD(MASKS, masks, MASKS)
		AS_RECORD(RUNDOWN, rundown, RUNDOWN)
		AS_RECORD(IMAGE, image, IMAGE)
		AS_RECORD(STACK, stack, STACK)
		AS_RECORD(DPC, dpc, DPC)
#undef AS_RECORD
	default:
		return false;
	}
}

static int feed(const struct trace_sink *sink, const struct truth_record *rec)
{
	struct sim_record r;

	switch (rec->kind) {
	case TRUTH_CSWITCH:
		return sink->ops->cswitch(sink->ctx, &rec->u.cs);
	case TRUTH_SPINLOCK:
		return sink->ops->spinlock(sink->ctx, &rec->u.sl);
	case TRUTH_CCSWAP_STOP:
		return sink->ops->ccswap_stop(sink->ctx, &rec->u.stop);
	default:
		if (as_record(rec, &r) && sink->ops->record) {
			return sink->ops->record(sink->ctx, &r);
		}
		return 0;
	}
}

/* Clock values of a record, to stand for the session start when the meta line has none. */
static void record_ts(const struct truth_record *rec, uint64_t ts[SIM_CLOCK_SLOTS])
{
	struct sim_record r;
	const uint64_t *v = rec->u.end.ts;

	switch (rec->kind) {
	case TRUTH_CSWITCH:
		v = rec->u.cs.ts;
		break;
	case TRUTH_SPINLOCK:
		v = rec->u.sl.ts;
		break;
	case TRUTH_CCSWAP_STOP:
		v = rec->u.stop.ts;
		break;
	default:
		if (as_record(rec, &r)) {
			v = r.u.head.ts;
		}
		break;
	}
	memcpy(ts, v, sizeof(uint64_t) * SIM_CLOCK_SLOTS);
}

/* Per CPU, the thread the previous switch put on it: a stream should chain. */
struct chain_check {
	uint32_t *next_old; /* [cpu]: expected old_tid of the next switch */
	bool *seen;
	unsigned long first_line;
	unsigned long count;
};

static void chain_note(struct chain_check *ch, const struct truth_record *rec)
{
	const struct sim_cswitch *cs = &rec->u.cs;

	if (ch->seen[cs->cpu] && ch->next_old[cs->cpu] != cs->old_tid && !ch->count++) {
		ch->first_line = rec->line;
	}
	ch->seen[cs->cpu] = true;
	ch->next_old[cs->cpu] = cs->new_tid;
}

/*
 * A stream does not choose where files go (it travels: attached to a bug
 * report, made by another tool). Unless @o->stream_paths: with -o every
 * session's file derives from it (the stream's names are dropped, so
 * session_run_name() derives them); without -o each name the stream gives
 * must be a plain file name, for the current folder.
 */
static int stream_names(struct trace_config *cfg, const char *stream,
			const struct etwforge_run_opts *o, struct etwforge_error *err)
{
	if (o->stream_paths) {
		return 0;
	}
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		char *file = cfg->sessions[i].file;

		if (o->output) {
			if (i > 0) {
				file[0] = '\0';
			}
			continue;
		}
		if (file[0] && (strchr(file, '/') || !strcmp(file, ".") || !strcmp(file, "..") ||
				!strcmp(file, "-"))) {
			return error_fail_at(
				err, -EINVAL, ERR_INPUT,
				"%s:1: sessions.%u.file: \"%s\" is not a plain file name "
				"in the current folder; a stream does not choose where "
				"files go: give -o OUT.etl (every session's file then "
				"derives from it), or --stream-paths to write where the "
				"stream says",
				strcmp(stream, "-") ? stream : "<stdin>", i, file);
		}
	}
	return 0;
}

/* Everything one replay holds, freed in one place. */
struct replay_run {
	struct trace_config *cfg;
	struct truth_reader *tr;
	struct session_run run;
	const char *labels[SIM_MAX_SESSIONS]; /* each session's file, as named for messages */
	bool planned;
	struct chain_check ch;
	uint64_t steps;	    /* lines fed */
	uint64_t nswitches; /* switch lines fed */
	double last;	    /* wall time of the last progress report */
};

#define STEP_LINES 4096 /* lines between two looks at the stop flag and the clock */

/*
 * A line the producer refused: a write error is the file's (a writer has
 * it), anything else is the stream's - a record the format cannot carry -
 * and is said at its line (a limit the reader does not know of).
 */
static void feed_error(struct replay_run *r, const char *stream, const struct truth_record *rec,
		       int rc, struct etwforge_error *err)
{
	const char *name = strcmp(stream, "-") ? stream : "<stdin>";

	for (unsigned k = 0; k < r->cfg->nsessions; k++) {
		if (r->run.writers[k] && writer_get_error(r->run.writers[k])) {
			session_run_error(&r->run, rc, err);
			return;
		}
	}
	if (rc == -E2BIG) {
		error_fail_at(err, rc, ERR_INPUT,
			      "%s:%lu: the record is larger than a buffer (the meta line's "
			      "buffer_size)",
			      name, rec->line);
	} else if (rc == -EINVAL || rc == -EOVERFLOW || rc == -ENOSPC || rc == -ERANGE) {
		error_fail_at(err, rc, ERR_INPUT, "%s:%lu: the record cannot be encoded (%s)", name,
			      rec->line, strerror(-rc));
	} else {
		session_run_error(&r->run, rc, err);
	}
}

static void report_progress(const struct replay_run *r, const struct etwforge_run_opts *o,
			    double t0)
{
	struct etwforge_progress p = {0};

	p.switches = r->nswitches;
	p.wall_seconds = wall_seconds() - t0;
	for (unsigned i = 0; i < r->cfg->nsessions; i++) {
		struct writer_stats ws;

		writer_get_stats(r->run.writers[i], &ws);
		p.bytes += ws.bytes_written;
	}
	o->progress(o->progress_ctx, &p);
}

/* Between lines: progress when it is time, then the caller's stop flag. */
static int step(struct replay_run *r, const struct etwforge_run_opts *o, double t0,
		struct etwforge_error *err)
{
	double every = (o->progress_ms ? o->progress_ms : 200) / 1000.0;

	if (o->progress && wall_seconds() - r->last >= every) {
		r->last = wall_seconds();
		report_progress(r, o, t0);
	}
	return run_stopped(o, err) ? -ECANCELED : 0;
}

static void replay_free(struct replay_run *r)
{
	if (r->planned) {
		session_run_close(&r->run);
	}
	truth_close(r->tr);
	free(r->ch.next_old);
	free(r->ch.seen);
	free(r->cfg);
}

/* Make every output and the producer, checked against each other first. */
static int open_outputs(struct replay_run *r, const char *stream, const struct etwforge_run_opts *o,
			FILE **json_f, struct etwforge_error *err)
{
	const struct run_input input = {stream, "the stream"};
	int rc, json_i = -1;

	session_run_name(r->cfg, o->output, true, r->labels);
	rc = session_run_plan(&r->run, r->cfg, r->labels, &input, 1, err);
	r->planned = true;
	if (rc < 0) {
		return rc;
	}
	if (o->json) {
		rc = json_i = out_set_add(&r->run.outs, o->json, "--json", err);
		if (rc < 0) {
			/* replay: only two outputs that are one file are the command line's */
			return error_reclass(err, rc, rc == -EEXIST ? ERR_INPUT : ERR_DATA);
		}
	}
	rc = session_run_open(&r->run, err);
	if (rc < 0) {
		return error_reclass(err, rc,
				     rc == -EINVAL || rc == -EEXIST ? ERR_INPUT : ERR_DATA);
	}
	if (json_i >= 0) {
		*json_f = out_file_stream(out_set_file(&r->run.outs, (unsigned)json_i));
		if (!*json_f) {
			return error_fail(err, -errno, ERR_DATA, "%s: %s", o->json,
					  strerror(errno));
		}
	}
	return 0;
}

int run_replay(const char *stream, const struct etwforge_run_opts *opts,
	       struct etwforge_summary *sum, struct etwforge_error *err)
{
	static const struct etwforge_run_opts no_opts;
	const struct etwforge_run_opts *o = opts ? opts : &no_opts;
	struct replay_run r = {0};
	struct truth_record rec, end;
	struct etwforge_summary local;
	struct trace_sink sink;
	double t0 = wall_seconds();
	bool have_end = false;
	FILE *json_f = NULL;
	int rc, kind;

	if (run_stdin_closed(stream, err) < 0) {
		return -EBADF;
	}
	r.last = t0;
	r.cfg = calloc(1, sizeof(*r.cfg));
	if (!r.cfg) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	r.tr = truth_open(stream, r.cfg, err);
	if (!r.tr) {
		rc = -EINVAL;
		goto out;
	}
	if (!o->output && !r.cfg->sessions[0].file[0]) {
		rc = error_fail(err, -EINVAL, ERR_INPUT, "no output: give -o OUT.etl");
		goto out;
	}
	rc = stream_names(r.cfg, stream, o, err);
	if (rc < 0) {
		goto out;
	}
	r.ch.next_old = calloc(r.cfg->cpus, sizeof(*r.ch.next_old));
	r.ch.seen = calloc(r.cfg->cpus, sizeof(*r.ch.seen));
	if (!r.ch.next_old || !r.ch.seen) {
		rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		goto out;
	}
	/* the first record gives the start clock values when the meta line has none */
	kind = truth_next(r.tr, &rec, err);
	if (kind < 0) {
		rc = kind;
		goto out;
	}
	if (!r.cfg->have_start_ts && kind != TRUTH_EOF) {
		record_ts(&rec, r.cfg->start_ts);
		r.cfg->have_start_ts = true;
	}
	rc = open_outputs(&r, stream, o, &json_f, err);
	if (rc < 0) {
		goto out;
	}
	sink = session_run_sink(&r.run);
	while (kind != TRUTH_EOF) {
		if (++r.steps % STEP_LINES == 0 && (rc = step(&r, o, t0, err)) < 0) {
			goto out;
		}
		if (kind == TRUTH_END) {
			end = rec;
			have_end = true;
		} else {
			if (kind == TRUTH_CSWITCH) {
				chain_note(&r.ch, &rec);
				r.nswitches++;
			}
			rc = feed(&sink, &rec);
			if (rc < 0) {
				feed_error(&r, stream, &rec, rc, err);
				goto out;
			}
		}
		kind = truth_next(r.tr, &rec, err);
		if (kind < 0) {
			rc = kind;
			goto out;
		}
	}
	if (!have_end) {
		/* truth_next synthesizes an end line; this only guards an empty stream */
		memset(&end, 0, sizeof(end));
		memcpy(end.u.end.ts, r.cfg->start_ts, sizeof(end.u.end.ts));
	}
	if (r.ch.count && o->notes) {
		fprintf(o->notes,
			"etwforge replay: warning: %s:%lu: %lu switch%s do not chain on their CPU "
			"(the new thread of one is not the old thread of the next); written as "
			"given, but the compact format cannot carry this and verify will "
			"disagree\n",
			stream, r.ch.first_line, r.ch.count, r.ch.count == 1 ? "" : "es");
	}
	rc = session_run_finish(&r.run, &end.u.end, err);
	if (rc < 0) {
		goto out;
	}
	if (o->progress) {
		report_progress(&r, o, t0);
	}
	if (run_stopped(o, err)) {
		rc = -ECANCELED;
		goto out;
	}
	summary_fill(sum ? sum : &local, r.cfg, &r.run, &end.u.end, wall_seconds() - t0);
	if (json_f) {
		etwforge_summary_print(json_f, sum ? sum : &local, true);
	}
	rc = session_run_commit(&r.run, err);
	if (rc < 0) {
		goto out;
	}
	session_run_notes(r.cfg, r.labels, true, "replay", o->notes);
	if (o->notes) {
		summary_note_empty(o->notes, "replay", sum ? sum : &local, NULL);
	}
	rc = error_ok(err);
out:
	replay_free(&r);
	return rc;
}

/*
 * A fault of a stream replay_mem() was handed: the library built it, so it
 * is no input of the caller's (ERR_DATA), and it is said after the
 * caller's name for it (not located).
 */
static int stream_fault(struct etwforge_error *err, int rc)
{
	if (err) {
		err->located = false;
	}
	return error_reclass(err, rc, ERR_DATA);
}

int replay_mem(const char *name, const char *text, size_t len, struct trace_config *cfg,
	       uint8_t *data[SIM_MAX_SESSIONS], size_t lens[SIM_MAX_SESSIONS],
	       struct etwforge_error *err)
{
	struct engine_mem e;
	struct truth_reader *tr;
	struct truth_record rec, end;
	struct trace_sink sink;
	bool have_end = false, open = false;
	int rc, kind;

	tr = truth_open_mem(name, text, len, cfg, err);
	if (!tr) {
		return stream_fault(err, -EINVAL);
	}
	kind = truth_next(tr, &rec, err);
	if (kind < 0) {
		rc = stream_fault(err, kind);
		goto out;
	}
	if (!cfg->have_start_ts && kind != TRUTH_EOF) {
		record_ts(&rec, cfg->start_ts);
		cfg->have_start_ts = true;
	}
	rc = engine_mem_open(&e, cfg, err);
	open = true;
	if (rc < 0) {
		goto out;
	}
	sink = engine_mem_sink(&e);
	while (kind != TRUTH_EOF) {
		if (kind == TRUTH_END) {
			end = rec;
			have_end = true;
		} else if ((rc = feed(&sink, &rec)) < 0) {
			error_fail(err, rc, ERR_DATA, "%s:%lu: %s", name, rec.line,
				   rc == -E2BIG ? "an event is larger than a buffer"
						: strerror(-rc));
			goto out;
		}
		kind = truth_next(tr, &rec, err);
		if (kind < 0) {
			rc = stream_fault(err, kind);
			goto out;
		}
	}
	if (!have_end) {
		memset(&end, 0, sizeof(end));
		memcpy(end.u.end.ts, cfg->start_ts, sizeof(end.u.end.ts));
	}
	rc = engine_mem_finish(&e, &end.u.end, err);
	if (rc < 0) {
		goto out;
	}
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		engine_mem_take(&e, i, &data[i], &lens[i]);
	}
out:
	if (open) {
		engine_mem_close(&e);
	}
	truth_close(tr);
	return rc < 0 ? rc : 0;
}
