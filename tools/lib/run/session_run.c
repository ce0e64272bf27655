// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/session_run.c - writers + producer + the output set of one run
 * (see session_run.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/run/session_run.h"

/* @out = the name derived from @first for session @i: "STEM-(i+1).etl". */
static void derived_name(char *out, size_t cap, const char *first, unsigned i)
{
	size_t len = strlen(first);

	if (len > 4 && !strcmp(first + len - 4, ".etl")) {
		len -= 4;
	}
	snprintf(out, cap, "%.*s-%u.etl", (int)len, first, i + 1);
}

void session_run_name(struct trace_config *tc, const char *output, bool rederive,
		      const char *labels[SIM_MAX_SESSIONS])
{
	char old_first[TRACE_PATH_MAX], name[TRACE_PATH_MAX];
	const char *first = tc->sessions[0].file;

	snprintf(old_first, sizeof(old_first), "%s", first);
	if (output) {
		snprintf(tc->sessions[0].file, sizeof(tc->sessions[0].file), "%s", output);
		labels[0] = "-o";
		if (!output[0]) {
			return; /* session_run_plan() refuses the empty name */
		}
	}
	for (unsigned i = 1; i < tc->nsessions; i++) {
		char *file = tc->sessions[i].file;

		if (rederive && output && old_first[0]) {
			derived_name(name, sizeof(name), old_first, i);
			if (!strcmp(file, name)) {
				file[0] = '\0'; /* gen derived it: derive it again from -o */
			}
		}
		if (file[0]) {
			continue;
		}
		if (out_is_regular_target(first)) {
			derived_name(file, sizeof(tc->sessions[i].file), first, i);
			labels[i] = "the derived name";
			continue;
		}
		snprintf(file, sizeof(tc->sessions[i].file), "/dev/null");
		labels[i] = SESSION_RUN_DISCARDED;
	}
}

void session_run_notes(const struct trace_config *tc, const char *const labels[SIM_MAX_SESSIONS],
		       bool rederive, const char *prog, FILE *notes)
{
	for (unsigned i = 1; notes && i < tc->nsessions; i++) {
		if (!labels[i] || strcmp(labels[i], SESSION_RUN_DISCARDED) != 0) {
			continue;
		}
		fprintf(notes,
			"etwforge %s: session '%s' has no file of its own and -o %s is not a "
			"regular file: discarded (name it ",
			prog, tc->sessions[i].name, tc->sessions[0].file);
		if (rederive) {
			fprintf(notes, "in the stream's meta line and give --stream-paths, or give "
				       "-o a regular file)\n");
		} else {
			fprintf(notes, "with sessions.%u.file)\n", i);
		}
	}
}

int session_run_plan(struct session_run *r, const struct trace_config *cfg,
		     const char *const labels[SIM_MAX_SESSIONS], const struct run_input *inputs,
		     unsigned ninputs, struct etwforge_error *err)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	out_set_init(&r->outs);
	for (unsigned i = 0; i < ninputs; i++) {
		int rc = out_set_input(&r->outs, inputs[i].path, inputs[i].label, err);

		if (rc < 0) {
			return rc;
		}
	}
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		struct writer_opts wo;
		const char *why = NULL;
		char label[48];
		int rc;

		if (!cfg->sessions[i].file[0] && labels && labels[i]) {
			return error_fail(err, -EINVAL, ERR_INPUT, "%s: empty file name",
					  labels[i]);
		}
		if (!cfg->sessions[i].file[0]) {
			return error_fail(err, -EINVAL, ERR_INPUT,
					  "session '%s': no output file (name it in the stream's "
					  "meta line, or with -o for the first)",
					  cfg->sessions[i].name);
		}
		trace_config_writer(cfg, i, &wo);
		if (writer_validate_opts(&wo, &why) < 0) {
			return error_fail(err, -EINVAL, ERR_INPUT, "%s: %s", wo.path,
					  why ? why : "invalid option");
		}
		snprintf(label, sizeof(label), "sessions.%u.file", i);
		rc = out_set_add(&r->outs, cfg->sessions[i].file,
				 labels && labels[i] ? labels[i] : label, err);
		if (rc < 0) {
			/* its kind stays: ERR_INPUT, or ERR_DATA for -EBADF and no memory */
			return error_reclass(err, rc == -EEXIST || rc == -EBADF ? rc : -EINVAL,
					     rc == -EBADF || rc == -ENOMEM ? ERR_DATA : ERR_INPUT);
		}
		r->out_index[i] = rc;
		out_file_want_spool(out_set_file(&r->outs, (unsigned)rc));
	}
	return 0;
}

int session_run_open(struct session_run *r, struct etwforge_error *err)
{
	const struct trace_config *cfg = r->cfg;
	struct producer_cfg pc;
	int rc = out_set_open(&r->outs, err);

	if (rc < 0) {
		return error_reclass(err, rc, rc == -EINVAL ? ERR_INPUT : ERR_DATA);
	}
	trace_config_producer(cfg, &pc);
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		struct writer_opts wo;

		trace_config_writer(cfg, i, &wo);
		out_sink_init(&r->sinks[i], out_set_file(&r->outs, (unsigned)r->out_index[i]));
		r->writers[i] = writer_create(&wo, &r->sinks[i].sink);
		if (!r->writers[i]) {
			int e = errno;

			/* -EINVAL: the options are wrong, the caller's; the rest the system's */
			return error_fail(err, -e, e == EINVAL ? ERR_INPUT : ERR_DATA,
					  "%s: cannot create: %s", wo.path, strerror(e));
		}
		pc.sessions[i].backend = writer_backend_ops();
		pc.sessions[i].backend_ctx = r->writers[i];
	}
	r->prod = producer_create(&pc);
	if (!r->prod) {
		int e = errno;

		return error_fail(err, -e, e == EINVAL ? ERR_INPUT : ERR_DATA,
				  "cannot set up the producer: %s", strerror(e));
	}
	rc = producer_start(r->prod, cfg->start_ts);
	if (rc < 0) {
		session_run_error(r, rc, err);
		return error_reclass(err, rc, rc == -EINVAL ? ERR_INPUT : ERR_DATA);
	}
	return 0;
}

struct trace_sink session_run_sink(struct session_run *r)
{
	return producer_sink(r->prod);
}

/* Session @i's write error @rc: its file's, or its spool's (where the temporary space ran out). */
static void write_error(const struct session_run *r, unsigned i, int rc, struct etwforge_error *err)
{
	const char *file = r->cfg->sessions[i].file;

	if (r->writers[i] && writer_get_error(r->writers[i]) &&
	    out_sink_error_in_spool(&r->sinks[i])) {
		error_fail(err, rc, ERR_DATA, "%s: cannot spool in %s (TMPDIR): %s", file,
			   out_spool_dir(), strerror(-rc));
	} else {
		error_fail(err, rc, ERR_DATA, "%s: write failed: %s", file, strerror(-rc));
	}
}

void session_run_error(struct session_run *r, int rc, struct etwforge_error *err)
{
	unsigned i = 0;

	/* a writer's error is sticky: name the session whose writer has one */
	for (unsigned k = 0; k < r->cfg->nsessions; k++) {
		if (r->writers[k] && writer_get_error(r->writers[k])) {
			i = k;
			break;
		}
	}
	if (!r->cfg->nsessions) {
		error_fail(err, rc, ERR_DATA, "?: write failed: %s", strerror(-rc));
	} else if (rc == -E2BIG) {
		error_fail(err, rc, ERR_DATA, "%s: an event is larger than a buffer",
			   r->cfg->sessions[i].file);
	} else {
		write_error(r, i, rc, err);
	}
}

int session_run_finish(struct session_run *r, const struct sim_end *end, struct etwforge_error *err)
{
	int rc = producer_end(r->prod, end);

	if (rc < 0) {
		session_run_error(r, rc, err);
		return rc;
	}
	producer_get_stats(r->prod, &r->pstats);
	for (unsigned i = 0; i < r->cfg->nsessions; i++) {
		const struct trace_session_cfg *s = &r->cfg->sessions[i];
		uint64_t end_ts = end->ts[s->clock];

		rc = writer_finish(r->writers[i], end_ts,
				   trace_config_filetime(r->cfg, s->clock, end_ts));
		if (rc < 0) {
			write_error(r, i, rc, err);
			return rc;
		}
		writer_get_stats(r->writers[i], &r->wstats[i]);
	}
	return 0;
}

int session_run_commit(struct session_run *r, struct etwforge_error *err)
{
	return out_set_commit(&r->outs, err);
}

void session_run_close(struct session_run *r)
{
	for (unsigned i = 0; i < SIM_MAX_SESSIONS; i++) {
		writer_destroy(r->writers[i]);
		r->writers[i] = NULL;
	}
	producer_destroy(r->prod);
	r->prod = NULL;
	out_set_free(&r->outs);
}
