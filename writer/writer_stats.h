/* SPDX-License-Identifier: MIT */
/*
 * writer/writer_stats.h - what a writer did (writer_get_stats()), apart so
 * that the writer's files can share it without needing each other.
 */
#ifndef WRITER_WRITER_STATS_H
#define WRITER_WRITER_STATS_H

#include <stdbool.h>
#include <stdint.h>

/** struct writer_stats - what a writer did; lost events are data, not errors. */
struct writer_stats {
	uint64_t events_written;
	uint64_t events_lost;
	uint64_t buffers_written; /* incl. the header buffer: = BuffersWritten */
	uint64_t buffers_lost;
	uint64_t bytes_written;
	uint64_t event_bytes; /* sum of unaligned Size of written events */
	uint64_t xxh3;	      /* XXH3-64 of the whole file (after writer_finish()) */
	bool discarded; /* the sink discards (etl_sink.discard): counted, not written, xxh3 0 */
};

#endif /* WRITER_WRITER_STATS_H */
