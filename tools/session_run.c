// SPDX-License-Identifier: MIT
/*
 * tools/session_run.c - writers + producer for one run (see session_run.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/session_run.h"

#include <sys/stat.h>
#include <unistd.h>

void session_run_discard(struct session_run *r, unsigned n)
{
	for (unsigned i = 0; i < n && i < r->cfg->nsessions; i++) {
		const char *path = r->cfg->sessions[i].file;
		struct stat st;

		/* never a device or FIFO written in place, nor standard output */
		if (strcmp(path, "-") && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			unlink(path);
		}
	}
}

int session_run_open(struct session_run *r, const struct trace_config *cfg, char *err,
		     size_t errlen)
{
	struct producer_cfg pc;

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->failed_session = -1;
	trace_config_producer(cfg, &pc);
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		struct writer_opts wo;
		const char *why = NULL;

		trace_config_writer(cfg, i, &wo);
		if (!cfg->sessions[i].file[0]) {
			snprintf(err, errlen, "session '%s': no output file (name it in the "
					      "stream's meta line, or with -o for the first)",
				 cfg->sessions[i].name);
			session_run_close(r);
			return -EINVAL;
		}
		if (writer_validate_opts(&wo, &why) < 0) {
			snprintf(err, errlen, "%s: %s", wo.path, why ? why : "invalid option");
			session_run_close(r);
			return -EINVAL;
		}
		r->writers[i] = writer_create(&wo);
		if (!r->writers[i]) {
			int e = errno;

			snprintf(err, errlen, "%s: cannot create: %s", wo.path, strerror(e));
			session_run_close(r);
			return -e;
		}
		pc.sessions[i].backend = writer_backend_ops();
		pc.sessions[i].backend_ctx = r->writers[i];
	}
	r->prod = producer_create(&pc);
	if (!r->prod) {
		int e = errno;

		snprintf(err, errlen, "cannot set up the producer: %s", strerror(e));
		session_run_close(r);
		return -e;
	}
	return 0;
}

struct trace_sink session_run_sink(struct session_run *r)
{
	return producer_sink(r->prod);
}

void session_run_error(struct session_run *r, int rc, char *err, size_t errlen)
{
	const char *file = r->cfg->nsessions ? r->cfg->sessions[0].file : "?";

	if (rc == -E2BIG) {
		snprintf(err, errlen, "%s: an event is larger than a buffer", file);
	} else {
		snprintf(err, errlen, "%s: write failed: %s", file, strerror(-rc));
	}
}

int session_run_finish(struct session_run *r, const struct sim_end *end, char *err,
		       size_t errlen)
{
	int rc = producer_end(r->prod, end);

	if (rc < 0) {
		session_run_error(r, rc, err, errlen);
		return rc;
	}
	producer_get_stats(r->prod, &r->pstats);
	for (unsigned i = 0; i < r->cfg->nsessions; i++) {
		const struct trace_session_cfg *s = &r->cfg->sessions[i];
		uint64_t end_ts = end->ts[s->clock];

		rc = writer_finish(r->writers[i], end_ts,
				   trace_config_filetime(r->cfg, s->clock, end_ts));
		if (rc < 0) {
			snprintf(err, errlen, "%s: write failed: %s", s->file, strerror(-rc));
			r->failed_session = (int)i;
			/* no partial output: take back the files already renamed */
			session_run_discard(r, i);
			return rc;
		}
		writer_get_stats(r->writers[i], &r->wstats[i]);
	}
	return 0;
}

void session_run_close(struct session_run *r)
{
	for (unsigned i = 0; i < SIM_MAX_SESSIONS; i++) {
		writer_destroy(r->writers[i]);
		r->writers[i] = NULL;
	}
	producer_destroy(r->prod);
	r->prod = NULL;
}
