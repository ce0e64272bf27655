/* SPDX-License-Identifier: MIT */
/*
 * writer/writer_defer.h - several threads, one writer (tools/lib/run/gen_jobs.c):
 * while deferring, the CPUs are split in @nlanes lanes (CPU c in lane
 * c % nlanes), each fed by one thread; a buffer put is kept with its key
 * (etl_buf.key), not written, and its CPU gets fresh memory.
 * writer_defer_flush(), with no lane running, writes the kept buffers in
 * key order, exactly as if each had been written when put. The pool is not
 * consulted while deferring: the caller first checks, with
 * writer_defer_room(), that no take could be refused.
 */
#ifndef WRITER_WRITER_DEFER_H
#define WRITER_WRITER_DEFER_H

#include <stdbool.h>
#include <stdint.h>

#include "writer/backend.h"

struct etl_writer;

/** writer_defer - defer the buffers put from now on (see above). Return: 0 or -errno. */
int writer_defer(struct etl_writer *w, unsigned nlanes);

/**
 * writer_defer_room - can @flushes more buffers be flushed with no take
 * refused, whatever the order (every CPU holding a buffer meanwhile)?
 * Always true without a pool limit.
 */
bool writer_defer_room(const struct etl_writer *w, uint64_t flushes);

/**
 * writer_defer_flush - write every kept buffer in key order, then take the
 * pool clock to @clock (the largest timestamp logged, over every lane).
 * Return: 0 or the first error (sticky; a lane's failed allocation too).
 */
int writer_defer_flush(struct etl_writer *w, uint64_t clock);

/** writer_undefer - write each buffer when it is put again (after writer_defer_flush()). */
void writer_undefer(struct etl_writer *w);

/* writer.c's buffer_get / buffer_put while deferring. */
int writer_defer_get(struct etl_writer *w, unsigned cpu, struct etl_buf **out);
int writer_defer_put(struct etl_writer *w, struct etl_buf *b, uint64_t ts);
/* writer_defer_memory - buffer memory for @cpu, whose own was kept (NULL: out of memory). */
uint8_t *writer_defer_memory(struct etl_writer *w, unsigned cpu);
/* writer_defer_free - the lanes' memory (at writer_destroy). */
void writer_defer_free(struct etl_writer *w);

#endif /* WRITER_WRITER_DEFER_H */
