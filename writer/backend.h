/* SPDX-License-Identifier: MIT */
/*
 * writer/backend.h - the only contract between producer/ and writer/.
 *
 * The producer never owns buffer memory: it asks its backend for room for
 * one event in the buffer of a CPU, writes the bytes, and commits (lttng-ust
 * reserve/commit). writer/ implements it over ETL buffers; tests can pass a
 * recording fake.
 */
#ifndef WRITER_BACKEND_H
#define WRITER_BACKEND_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct producer_backend_ops - where a session's events go.
 * @reserve: room for one event of @size bytes (its unaligned Size) on @cpu,
 *           logged at @ts (session clock units). Sets *@out to the bytes.
 *           Return: 0, -ENOBUFS (no free buffer: the event is lost and
 *           counted by the backend), -E2BIG (larger than any buffer), -EIO.
 * @commit:  the event reserved last on @cpu is complete.
 */
struct producer_backend_ops {
	int (*reserve)(void *ctx, unsigned cpu, size_t size, uint64_t ts, uint8_t **out);
	void (*commit)(void *ctx, unsigned cpu);
};

#endif /* WRITER_BACKEND_H */
