/* SPDX-License-Identifier: MIT */
/*
 * writer/writer_buffer.h - a data buffer of a writer written into its sink,
 * the pool model's bookkeeping, the buffers' memory (writer_buffer.c).
 */
#ifndef WRITER_WRITER_BUFFER_H
#define WRITER_WRITER_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writer/writer_state.h"

/**
 * writer_buf_alloc - a zero-filled buffer of @size bytes, faulted in when
 * @resident. Return: it, or NULL with errno ENOMEM.
 */
uint8_t *writer_buf_alloc(size_t size, bool resident);

/** writer_buf_free - NULL is a no-op. */
void writer_buf_free(uint8_t *p, size_t size);

/** writer_pool_retire - buffers whose flush latency has passed at @ts are back in the pool. */
void writer_pool_retire(struct etl_writer *w, uint64_t ts);

/*
 * writer_write_buffer - write @b (a data buffer of CPU @b->cpu, its events
 * up to @b->pos) with TimeStamp @ts, the next sequence number, EVENTS_LOST
 * when @lost, and put it in flight (the pool model). Return: 0 or the
 * sticky error.
 */
int writer_write_buffer(struct etl_writer *w, const struct etl_buf *b, uint64_t ts, bool lost);

#endif /* WRITER_WRITER_BUFFER_H */
