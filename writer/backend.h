/* SPDX-License-Identifier: MIT */
/*
 * writer/backend.h - the only contract between producer/ and writer/: per
 * buffer, never per event (barectf's open_packet/close_packet, lttng-ust's
 * client_buffer_begin/_end).
 *
 *   producer                                  writer (or a test's fake)
 *   --------                                  ------
 *   buffer_get(cpu, clock) ---------------->  hand out the CPU's buffer,
 *                          <- struct etl_buf  from the pool if it holds none
 *   write events at b->pos, in place:
 *     header, items, payload, zero padding;
 *     b->pos += align8(Size); b->events++;
 *     b->event_bytes += Size
 *   an event does not fit (pos + Size > size):
 *   buffer_put(b, ts) --------------------->  write it (TimeStamp ts),
 *   buffer_get(...) again                     back to the pool
 *   end of tracing: writer_finish() writes the buffers still held
 *
 * The writer owns the memory; the producer borrows one buffer per CPU
 * between get and put. No indirect call, copy or zeroing per event: bytes
 * the producer does not write (the tail after the last event) are zeroed by
 * the writer when it writes the buffer.
 */
#ifndef WRITER_BACKEND_H
#define WRITER_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct etl_buf - one borrowed buffer.
 * @base:        the whole buffer, @size bytes; [0, 0x48) is the writer's
 *               WMI_BUFFER_HEADER, events go from 0x48 on
 * @pos:         where the next event goes (8-byte aligned)
 * @size:        BufferSize
 * @events:      events written into it
 * @event_bytes: sum of their unaligned Size
 * @cpu:         the CPU it belongs to
 * @key:         the producer's order key of the event that did not fit, set
 *               before buffer_put (a writer fed by several threads writes
 *               the buffers put by key: writer_defer())
 */
struct etl_buf {
	uint8_t *base;
	uint32_t pos;
	uint32_t size;
	uint32_t events;
	uint32_t cpu;
	uint64_t event_bytes;
	uint64_t key;
};

/**
 * struct etl_backend_ops - what the producer needs of its buffers.
 * @buffer_get: the current buffer of @cpu, taking one from the pool when the
 *              CPU holds none. @clock is the largest timestamp the caller
 *              logged so far (the pool's clock: in-flight buffers whose
 *              return time has passed are back).
 *              Return: 0 and *@out; -ENOBUFS when no buffer is free (the
 *              event is lost, and the backend counts it); -EIO (or the
 *              write errno) when the output failed (sticky).
 * @buffer_put: @b cannot take an event at @ts: write it with TimeStamp @ts;
 *              the CPU holds no buffer afterwards. Return: 0 or -errno.
 * @max_event:  the largest event a buffer can take (BufferSize - 0x48, at
 *              most 0xFFFF); a larger one is -E2BIG for the producer.
 */
struct etl_backend_ops {
	int (*buffer_get)(void *ctx, unsigned cpu, uint64_t clock, struct etl_buf **out);
	int (*buffer_put)(void *ctx, struct etl_buf *b, uint64_t ts);
	uint32_t (*max_event)(void *ctx);
};

#endif /* WRITER_BACKEND_H */
