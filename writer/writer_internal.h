/* SPDX-License-Identifier: MIT */
/*
 * writer/writer_internal.h - the writer's private state (writer.c). The
 * bytes of buffer headers and of the header buffer are etl_header.c's
 * (writer/etl_header.h); where the bytes go is the sink's (etl_sink.h).
 * Tests may include it; other modules use writer/writer.h only.
 */
#ifndef WRITER_WRITER_INTERNAL_H
#define WRITER_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "writer/backend.h"
#include "writer/etl_sink.h"
#include "writer/writer.h"

/* Longest LoggerName / LogFileName accepted, in characters (without the NUL). */
#define ETL_MAX_NAME_CHARS 1024u

/* Defaults of struct writer_opts fields left at zero (see writer.h). */
#define ETL_DEFAULT_LOGGER_NAME	     "NT Kernel Logger"
#define ETL_DEFAULT_CPUS	     1u
#define ETL_DEFAULT_OS_MAJOR	     10u
#define ETL_DEFAULT_PROVIDER_VERSION 19041u
#define ETL_DEFAULT_TIMER_RESOLUTION 156250u
#define ETL_DEFAULT_PERF_FREQ	     10000000u
#define ETL_DEFAULT_CPU_MHZ	     3000u
#define ETL_DEFAULT_LOG_FILE_MODE    (ETL_MODE_SYSTEM_LOGGER | ETL_MODE_FILE_MODE_SEQUENTIAL)
#define ETL_DEFAULT_LOGGER_ID	     1u
#define ETL_DEFAULT_KERNEL_EVENT_VER 60u /* ETW_KERNEL_EVENT_VERSION of ntetw.h (KF S3) */
#define ETL_DEFAULT_TIMER_SRC_CLOCK  9u	 /* HAL_PLATFORM_TIMER_SOURCE Apic */
#define ETL_DEFAULT_TIMER_SRC_PERF   6u	 /* HAL_PLATFORM_TIMER_SOURCE ProcessorCounter */
/* Largest pool the model tracks (in-flight return times are kept per buffer). */
#define ETL_MAX_POOL_BUFFERS (1u << 20)

/* ---- writer.c ----------------------------------------------------------- */

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
};

#endif /* WRITER_WRITER_INTERNAL_H */
