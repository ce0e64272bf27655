/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/engine_mem.h - the engine (producer + one writer per session)
 * writing into memory instead of files: what the corpus, its mangled
 * variants and the structure-aware mutator encode through. The same code
 * path as `gen` and `replay` from the producer down; only the bytes land
 * in a malloc'd image (etl_sink_mem_init()) instead of an output set.
 *
 *   engine_mem_open()    writers (in memory) and the producer for @cfg
 *   ... records through engine_mem_sink() ...
 *   engine_mem_finish()  end of tracing: every image complete
 *   engine_mem_take()    hand an image to the caller (who frees it)
 *   engine_mem_close()   free the rest
 */
#ifndef TOOLS_LIB_ENGINE_MEM_H
#define TOOLS_LIB_ENGINE_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "tools/lib/common/error.h"
#include "tools/lib/config/trace_config.h"
#include "writer/writer.h"

struct engine_mem {
	const struct trace_config *cfg;
	struct producer *prod;
	struct etl_writer *writers[SIM_MAX_SESSIONS];
	struct writer_mem mem[SIM_MAX_SESSIONS];
	struct writer_stats wstats[SIM_MAX_SESSIONS];
	struct producer_stats pstats;
};

/**
 * engine_mem_open - writers and producer for @cfg (borrowed until close);
 * a session without a file is named after its logger name + ".etl".
 * Return: 0, or -EINVAL (bad option) / -ENOMEM with @err filled (ERR_DATA:
 * the caller's configuration was checked before).
 */
int engine_mem_open(struct engine_mem *e, const struct trace_config *cfg,
		    struct etwforge_error *err);

/** engine_mem_sink - where the records go. */
struct trace_sink engine_mem_sink(struct engine_mem *e);

/**
 * engine_mem_finish - producer_end(@end) and complete every writer.
 * Return: 0 or a negative errno with @err filled (ERR_DATA).
 */
int engine_mem_finish(struct engine_mem *e, const struct sim_end *end, struct etwforge_error *err);

/**
 * engine_mem_take - session @i's file image: *@data (the caller frees it)
 * and *@len. Call once per session after engine_mem_finish().
 */
void engine_mem_take(struct engine_mem *e, unsigned i, uint8_t **data, size_t *len);

/** engine_mem_close - free everything not taken. */
void engine_mem_close(struct engine_mem *e);

#endif /* TOOLS_LIB_ENGINE_MEM_H */
