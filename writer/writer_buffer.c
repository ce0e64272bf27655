// SPDX-License-Identifier: MIT
/*
 * writer/writer_buffer.c - one data buffer written, and what that does to
 * the pool: the buffers' memory, the in-flight heap of the pool model (see
 * writer.c atop), the bytes into the sink (compressed or not). Shared by
 * writer.c, which writes a buffer when it is put, and writer_defer.c, which
 * writes the kept ones later.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_POPULATE */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "writer/etl_layout.h"
#include "writer/etl_wire.h"
#include "writer/etl_xpress.h"
#include "writer/writer_buffer.h"

/*
 * A CPU's buffer, zero-filled and (@resident) faulted in: see Memory atop.
 * One mapping faulted in by the kernel in one call (MAP_POPULATE: about
 * 50 ms for 80 MiB, against about 10 times that for a write per page);
 * where that is missing, a write per page.
 */
uint8_t *writer_buf_alloc(size_t size, bool resident)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void *p;

#ifdef MAP_POPULATE
	flags |= resident ? MAP_POPULATE : 0;
#endif
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
#ifndef MAP_POPULATE
	for (size_t i = 0; resident && i < size; i += 4096) {
		((volatile uint8_t *)p)[i] = 0;
	}
#endif
	return p;
}

void writer_buf_free(uint8_t *p, size_t size)
{
	if (p) {
		munmap(p, size);
	}
}

/* ---- pool model: a binary min-heap of in-flight return times ------------ */

static void inflight_push(struct etl_writer *w, uint64_t t)
{
	uint32_t i = w->n_inflight++;

	assert(w->n_inflight <= w->o.pool_buffers);
	while (i > 0 && w->inflight[(i - 1) / 2] > t) {
		w->inflight[i] = w->inflight[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->inflight[i] = t;
}

static void inflight_pop(struct etl_writer *w)
{
	uint64_t last = w->inflight[--w->n_inflight];
	uint32_t n = w->n_inflight;
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= n) {
			break;
		}
		if (c + 1 < n && w->inflight[c + 1] < w->inflight[c]) {
			c++;
		}
		if (w->inflight[c] >= last) {
			break;
		}
		w->inflight[i] = w->inflight[c];
		i = c;
	}
	if (n > 0) {
		w->inflight[i] = last;
	}
}

/* Buffers whose flush latency has passed at @ts are back in the pool. */
void writer_pool_retire(struct etl_writer *w, uint64_t ts)
{
	while (w->n_inflight > 0 && w->inflight[0] <= ts) {
		inflight_pop(w);
	}
}

/* ---- buffers ------------------------------------------------------------ */

/*
 * Append one data buffer that takes @len bytes of the file (BufferSize, or
 * less when compressed) at the running offset: its first @used bytes, then
 * zeros the sink may leave as a hole (see etl_sink.h).
 */
static int write_data(struct etl_writer *w, const uint8_t *buf, uint32_t used, uint32_t len)
{
	const struct etl_sink *s = &w->sink;
	uint64_t off = w->o.buffer_size + w->data_bytes;
	int ret;

	if (used > len) {
		used = len;
	}
	ret = s->ops->write_at(s->ctx, off, buf, used);
	if (!ret && used < len) {
		ret = s->ops->hole(s->ctx, off + used, len - used);
	}
	if (ret) {
		return ret;
	}
	w->data_buffers++;
	w->data_bytes += len;
	return 0;
}

/*
 * Compressed mode: the 0x48-byte header stays plain, the records up to the
 * data end become one XPRESS stream, and the on-disk BufferSize is the
 * header plus that stream. A buffer that would not shrink is written plain
 * (uncompressed buffers may sit in a compressed file, as in relogged ones).
 */
static int write_compressed(struct etl_writer *w, const struct etl_buf *b,
			    const struct etl_buffer_info *plain)
{
	uint32_t bs = w->o.buffer_size;
	struct etl_buffer_info bi = *plain;
	long n = etl_xpress_compress(b->base + ETL_BH_LEN, b->pos - ETL_BH_LEN,
				     w->zbuf + ETL_BH_LEN, bs - ETL_BH_LEN);

	if (n < 0 || (uint64_t)n >= bs - ETL_BH_LEN) {
		return write_data(w, b->base, b->pos, bs);
	}
	bi.buffer_size = ETL_BH_LEN + (uint32_t)n;
	bi.flags |= ETL_BUFFER_FLAG_COMPRESSED;
	etl_put_buffer_header(w->zbuf, &bi);
	return write_data(w, w->zbuf, bi.buffer_size, bi.buffer_size);
}

int writer_write_buffer(struct etl_writer *w, const struct etl_buf *b, uint64_t ts, bool lost)
{
	uint32_t bs = w->o.buffer_size;
	struct etl_buffer_info bi = {
		.buffer_size = bs,
		.end = b->pos,
		.timestamp = ts,
		.sequence = w->next_seq,
		.cpu = (uint16_t)b->cpu,
		.logger_id = w->o.logger_id,
		.flags = (uint16_t)(ETL_BUFFER_FLAG_PROC_INDEX |
				    (lost ? ETL_BUFFER_FLAG_EVENTS_LOST : 0u)),
		.type = ETL_BUFFER_TYPE_GENERIC,
	};
	uint64_t before = w->data_bytes;
	int ret;

	/* BuffersWritten (incl. the header buffer) is a ULONG. */
	if (w->data_buffers >= UINT32_MAX - 1u) {
		w->err = -EFBIG;
		return w->err;
	}
	/*
	 * The tail may hold bytes of an abandoned reservation or an older use:
	 * it is not written (the file has zeros there, a hole), so it needs no
	 * clearing.
	 */
	etl_put_buffer_header(b->base, &bi);
	ret = w->o.compress ? write_compressed(w, b, &bi) : write_data(w, b->base, b->pos, bs);

	w->st.events_written += b->events;
	w->st.event_bytes += b->event_bytes;
	if (w->o.pool_buffers) {
		uint64_t back = ts + w->o.flush_latency;

		inflight_push(w, back < ts ? UINT64_MAX : back);
	}
	if (ret) {
		w->err = ret;
		return ret;
	}
	w->next_seq++;
	w->st.buffers_written++;
	w->st.bytes_written += w->data_bytes - before;
	return 0;
}
