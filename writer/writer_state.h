/* SPDX-License-Identifier: MIT */
/*
 * writer/writer_state.h - a writer's state (struct etl_writer), shared by
 * its files: writer.c (options, reserve, finish), writer_buffer.c (a data
 * buffer written, the pool model), writer_defer.c (several threads). The
 * tests reach it through writer/writer_internal.h.
 */
#ifndef WRITER_WRITER_STATE_H
#define WRITER_WRITER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "writer/backend.h"
#include "writer/etl_header.h"
#include "writer/etl_sink.h"
#include "writer/writer_stats.h"

/** struct cpu_state - one CPU's current buffer and loss bookkeeping. */
struct cpu_state {
	struct etl_buf buf; /* memory owned for the writer's lifetime; lent to the producer */
	uint32_t pending;   /* writer_reserve(): Size awaiting writer_commit(), 0 if none */
	bool has_buffer;    /* holds a pool buffer (counts as in use) */
	bool starved;	    /* went without a buffer; cleared when it gets one */
	bool lost_pending;  /* events lost since this CPU's previous buffer was written */
};

/**
 * struct etl_writer - one ETL file being written.
 * @o:        options with every default resolved (names not kept)
 * @cpu:      per-CPU state, @o.cpus entries
 * @hdr:      the header buffer, encoded at create, totals patched at finish
 * @sink:     where the bytes go; data buffers at BufferSize + @data_bytes
 * @inflight: min-heap of the return times of flushed buffers (pool model)
 * @err:      first output error, negative errno, sticky
 */
struct etl_writer {
	struct writer_opts o;
	struct cpu_state *cpu;
	uint8_t *hdr;
	uint8_t *zbuf; /* compress: one buffer's compressed image */
	struct etl_sink sink;
	uint64_t data_buffers; /* data buffers written so far */
	uint64_t data_bytes;   /* their bytes (a compressed buffer is shorter) */
	uint64_t *inflight;
	uint32_t n_inflight;
	uint32_t n_held;
	uint64_t pool_clock; /* the largest timestamp seen (writer_reserve) */
	uint64_t next_seq;
	struct writer_stats st;
	int err;
	bool done; /* writer_finish() ran (successfully or not) */
	/* a sink that discards, uncompressed: the one buffer every CPU writes over */
	uint8_t *scratch;
	/* writer_defer.c: buffers put are kept, per lane, until writer_defer_flush() */
	bool defer;
	unsigned nlanes;
	struct writer_lane *lanes;
};

#endif /* WRITER_WRITER_STATE_H */
