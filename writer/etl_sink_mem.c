// SPDX-License-Identifier: MIT
/*
 * writer/etl_sink_mem.c - the memory sink (writer/etl_sink.h): the file in
 * a malloc'd image, for the corpus, the mutator and tests.
 *
 *   begin(head)   [ head: zeros ] ............ room for 2 x head
 *   write_at/hole [ head: zeros ][ buf 1 ][ buf 2 ] ... grown with realloc
 *   finish        [ header      ][ buf 1 ][ buf 2 ] ... hashed
 *
 * The image doubles when it grows, so appending a file of N buffers copies
 * O(N) bytes in all.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "writer/etl_hash.h"

#include "writer/etl_sink.h"

static int mem_begin(void *ctx, uint32_t head)
{
	struct writer_mem *m = ctx;

	/* the header buffer's place first, filled at the end */
	m->data = calloc(1, (size_t)head * 2);
	if (!m->data) {
		return -ENOMEM;
	}
	m->len = head;
	m->cap = (size_t)head * 2;
	m->head = head;
	return 0;
}

/* Room for the image to reach @end bytes; the new bytes are not cleared. */
static int mem_reserve(struct writer_mem *m, uint64_t end)
{
	size_t cap;
	uint8_t *n;

	if (end > SIZE_MAX / 2) {
		return -EFBIG;
	}
	if (end <= m->cap) {
		return 0;
	}
	cap = m->cap * 2 > end ? m->cap * 2 : (size_t)end;
	n = realloc(m->data, cap);
	if (!n) {
		return -ENOMEM;
	}
	m->data = n;
	m->cap = cap;
	return 0;
}

static int mem_write_at(void *ctx, uint64_t off, const void *buf, size_t len)
{
	struct writer_mem *m = ctx;
	int ret = len > UINT64_MAX - off ? -EFBIG : mem_reserve(m, off + len);

	if (ret) {
		return ret;
	}
	if (off > m->len) {
		memset(m->data + m->len, 0, (size_t)off - m->len);
	}
	memcpy(m->data + off, buf, len);
	if (off + len > m->len) {
		m->len = (size_t)(off + len);
	}
	return 0;
}

static int mem_hole(void *ctx, uint64_t off, uint64_t len)
{
	struct writer_mem *m = ctx;
	int ret = len > UINT64_MAX - off ? -EFBIG : mem_reserve(m, off + len);

	if (ret) {
		return ret;
	}
	/* the image's new bytes are realloc's, not zeros: the hole is written */
	if (off + len > m->len) {
		size_t from = off > m->len ? m->len : (size_t)off;

		memset(m->data + from, 0, (size_t)(off + len) - from);
		m->len = (size_t)(off + len);
	}
	return 0;
}

static int mem_finish(void *ctx, const void *head, uint64_t size, void *scratch, uint64_t *xxh3)
{
	struct writer_mem *m = ctx;

	(void)scratch;
	assert(size == m->len);
	(void)size;
	memcpy(m->data, head, m->head);
	*xxh3 = etl_xxh3(m->data, m->len);
	return 0;
}

static void mem_abort(void *ctx)
{
	(void)ctx; /* the image stays the caller's to free */
}

static const struct etl_sink_ops mem_ops = {
	.begin = mem_begin,
	.write_at = mem_write_at,
	.hole = mem_hole,
	.finish = mem_finish,
	.abort = mem_abort,
	.release = NULL,
};

void etl_sink_mem_init(struct etl_sink *s, struct writer_mem *m)
{
	s->ops = &mem_ops;
	s->ctx = m;
	s->discard = false;
}
