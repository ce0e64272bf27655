// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/engine_mem.c - producer + writers into memory (see engine_mem.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/run/engine_mem.h"

int engine_mem_open(struct engine_mem *e, const struct trace_config *cfg,
		    struct etwforge_error *err)
{
	struct producer_cfg pc;
	char names[SIM_MAX_SESSIONS][TRACE_NAME_MAX + 8];
	int rc;

	memset(e, 0, sizeof(*e));
	e->cfg = cfg;
	trace_config_producer(cfg, &pc);
	for (unsigned i = 0; i < cfg->nsessions; i++) {
		struct writer_opts wo;
		struct etl_sink sink;
		const char *why = NULL;

		trace_config_writer(cfg, i, &wo);
		if (!wo.path[0]) {
			snprintf(names[i], sizeof(names[i]), "%s.etl", cfg->sessions[i].name);
			wo.path = names[i];
			wo.logfile_name = names[i];
		}
		if (writer_validate_opts(&wo, &why) < 0) {
			return error_fail(err, -EINVAL, ERR_DATA, "%s: %s", wo.path,
					  why ? why : "invalid option");
		}
		etl_sink_mem_init(&sink, &e->mem[i]);
		e->writers[i] = writer_create(&wo, &sink);
		if (!e->writers[i]) {
			rc = -errno;

			return error_fail(err, rc, ERR_DATA, "%s: cannot create: %s", wo.path,
					  strerror(-rc));
		}
		pc.sessions[i].backend = writer_backend_ops();
		pc.sessions[i].backend_ctx = e->writers[i];
	}
	e->prod = producer_create(&pc);
	if (!e->prod) {
		rc = -errno;

		return error_fail(err, rc, ERR_DATA, "cannot set up the producer: %s",
				  strerror(-rc));
	}
	/* tracing starts: the spin-lock configuration rundown, as session_run_open() */
	rc = producer_start(e->prod, cfg->start_ts);
	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "%s",
				  rc == -E2BIG ? "an event is larger than a buffer"
					       : strerror(-rc));
	}
	return 0;
}

struct trace_sink engine_mem_sink(struct engine_mem *e)
{
	return producer_sink(e->prod);
}

int engine_mem_finish(struct engine_mem *e, const struct sim_end *end, struct etwforge_error *err)
{
	int rc = producer_end(e->prod, end);

	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "%s",
				  rc == -E2BIG ? "an event is larger than a buffer"
					       : strerror(-rc));
	}
	producer_get_stats(e->prod, &e->pstats);
	for (unsigned i = 0; i < e->cfg->nsessions; i++) {
		const struct trace_session_cfg *s = &e->cfg->sessions[i];
		uint64_t end_ts = end->ts[s->clock];

		rc = writer_finish(e->writers[i], end_ts,
				   trace_config_filetime(e->cfg, s->clock, end_ts));
		if (rc < 0) {
			return error_fail(err, rc, ERR_DATA, "%s: %s", s->file, strerror(-rc));
		}
		writer_get_stats(e->writers[i], &e->wstats[i]);
	}
	return 0;
}

void engine_mem_take(struct engine_mem *e, unsigned i, uint8_t **data, size_t *len)
{
	*data = e->mem[i].data;
	*len = e->mem[i].len;
	e->mem[i].data = NULL;
	e->mem[i].len = 0;
}

void engine_mem_close(struct engine_mem *e)
{
	for (unsigned i = 0; i < SIM_MAX_SESSIONS; i++) {
		writer_destroy(e->writers[i]);
		e->writers[i] = NULL;
		free(e->mem[i].data);
		e->mem[i].data = NULL;
	}
	producer_destroy(e->prod);
	e->prod = NULL;
}
