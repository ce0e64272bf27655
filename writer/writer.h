/* SPDX-License-Identifier: MIT */
/*
 * writer/writer.h - one ETL file per session: per-CPU buffers, the header
 * buffer with the logfile header, the buffer pool and its losses. Its bytes
 * go to a sink (writer/etl_sink.h): the writer opens no file.
 *
 * The producer reaches a writer only through the per-buffer contract of
 * writer/backend.h (writer_backend_ops()); tools call
 * writer_create/finish/destroy. writer_reserve()/writer_commit() place one
 * event at a time on the same buffers, for tests and simple users.
 */
#ifndef WRITER_WRITER_H
#define WRITER_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writer/backend.h"
#include "writer/etl_layout.h"
#include "writer/etl_header.h"
#include "writer/etl_sink.h"
#include "writer/writer_stats.h"

struct etl_writer;

/**
 * writer_validate_opts - check @o without creating anything.
 * Return: 0 or -EINVAL; *@why (if not NULL) names the bad option.
 */
int writer_validate_opts(const struct writer_opts *o, const char **why);

/**
 * writer_create - allocate the per-CPU buffers and start the file in @sink
 * (its begin op). The writer keeps a copy of *@sink and uses it until
 * writer_destroy(), which ends with its release op; on failure @sink is
 * left as it was (its begin failed or was not called).
 * Return: the writer, or NULL with errno set (EINVAL bad option, or the
 * errno of the failed allocation or begin).
 */
struct etl_writer *writer_create(const struct writer_opts *o, const struct etl_sink *sink);

/**
 * writer_reserve - room for one event of @size bytes on @cpu at @ts; flushes
 * the CPU's current buffer first when the event does not fit (the buffer's
 * TimeStamp is then @ts). The event starts 8-byte aligned; its Size is not
 * rounded. Pair with writer_commit().
 * Return: 0; -ENOBUFS when the pool has no free buffer (event lost, counted);
 * -E2BIG when @size exceeds BufferSize - 0x48; -EINVAL bad cpu;
 * -EIO (or the write errno) when the output failed (sticky).
 */
int writer_reserve(struct etl_writer *w, unsigned cpu, size_t size, uint64_t ts, uint8_t **out);

/** writer_commit - the last reserved event on @cpu is complete. */
void writer_commit(struct etl_writer *w, unsigned cpu);

/** writer_write - reserve, copy @size bytes from @ev, commit. Return: as writer_reserve. */
int writer_write(struct etl_writer *w, unsigned cpu, uint64_t ts, const void *ev, size_t size);

/**
 * writer_finish - flush every partial buffer with TimeStamp @end_ts, write
 * the header buffer (EndTime @end_time, exact BuffersWritten, EventsLost,
 * BuffersLost) and complete the file in the sink, which hashes it.
 * Return: 0 or a negative errno (the sink is then aborted).
 */
int writer_finish(struct etl_writer *w, uint64_t end_ts, int64_t end_time);

/** writer_stats - counters so far (final after writer_finish()). */
void writer_get_stats(const struct etl_writer *w, struct writer_stats *st);

/** writer_get_error - the first output error (a negative errno, sticky), or 0. */
int writer_get_error(const struct etl_writer *w);

/**
 * writer_destroy - free; an unfinished file is aborted in the sink, then the
 * sink is released. NULL is a no-op.
 */
void writer_destroy(struct etl_writer *w);

/* Several threads, one writer: writer/writer_defer.h. */

/** writer_backend_ops - the buffer contract (writer/backend.h) over a writer (ctx = the writer). */
const struct etl_backend_ops *writer_backend_ops(void);

#endif /* WRITER_WRITER_H */
