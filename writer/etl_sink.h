/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_sink.h - where a writer's bytes go. The writer knows the ETL
 * layout and nothing of files; a sink knows where bytes land (a file, a
 * spool, memory) and nothing of ETL (barectf's platform: the tracer fills a
 * packet, the platform's close_packet writes it where it likes).
 * tools/lib/run/out_sink.h has the file sink (temporary files, spools, the
 * null device); etl_sink_mem_init() below is the memory one.
 *
 * An ETL file's first buffer (the header buffer) holds totals known only at
 * the end, yet readers walk the file from it, so it must come first. The
 * writer therefore calls, for one file:
 *
 *   begin(head)                   once: the first @head bytes come last
 *   write_at(off, buf, len)  \    the body, from offset @head on, in
 *   hole(off, len)           /    increasing offsets, every byte once: a
 *     ...                         buffer's events by write_at, its zero
 *                                 tail (often most of it) by hole
 *   finish(head_bytes, size)      the head at offset 0; the file is
 *                                 complete (@size bytes): its digest
 *   abort()                       instead of finish, or after a failed
 *                                 one: nothing of the file may remain
 *   release()                     writer_destroy(): last call
 *
 * Each call but abort and release returns 0 or a negative errno; the writer
 * keeps the first error (sticky) and calls nothing but abort after it.
 */
#ifndef WRITER_ETL_SINK_H
#define WRITER_ETL_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct etl_sink_ops - what the writer needs of a place for its bytes.
 * @begin:    the file starts; its first @head bytes (BufferSize) are given
 *            to @finish, the body goes from offset @head on
 * @write_at: @len bytes of @buf at offset @off of the file
 * @hole:     @len zero bytes at @off: a file may skip them (a sparse hole,
 *            extended over when the next write or @finish grows the file)
 * @finish:   write @head (the @head bytes of @begin) at offset 0 and
 *            complete the @size-byte file; *@xxh3 = the XXH3-64 of all of
 *            it (0 for a sink that discards). @scratch is @head bytes of
 *            memory the sink may use meanwhile (the writer's buffers are
 *            idle by then, so finishing allocates nothing big)
 * @abort:    give the file up (after a failure, or a writer destroyed
 *            before finishing): close what was opened, leave nothing
 * @release:  the writer is done with the sink (may be NULL)
 */
struct etl_sink_ops {
	int (*begin)(void *ctx, uint32_t head);
	int (*write_at)(void *ctx, uint64_t off, const void *buf, size_t len);
	int (*hole)(void *ctx, uint64_t off, uint64_t len);
	int (*finish)(void *ctx, const void *head, uint64_t size, void *scratch, uint64_t *xxh3);
	void (*abort)(void *ctx);
	void (*release)(void *ctx);
};

/**
 * struct etl_sink - a place for one file's bytes.
 * @ops:     see struct etl_sink_ops
 * @ctx:     their first argument
 * @discard: the bytes go nowhere (the null device, say): the writer still
 *           counts them, and says its output was discarded (no digest)
 */
struct etl_sink {
	const struct etl_sink_ops *ops;
	void *ctx;
	bool discard;
};

/**
 * struct writer_mem - a file kept in memory by etl_sink_mem_init()'s sink
 * (the corpus, the mutator, tests).
 * @data: the file's bytes once the writer has finished; malloc'd, and the
 *        caller's to free, after success or failure
 * @len:  their number
 * @cap:  private: bytes allocated
 * @head: private: the header buffer's length (etl_sink_ops.begin)
 */
struct writer_mem {
	uint8_t *data;
	size_t len;
	size_t cap;
	uint32_t head;
};

/**
 * etl_sink_mem_init - @s becomes a sink that writes into @m (zeroed by the
 * caller), growing it with realloc. @m is borrowed for the writer's life.
 */
void etl_sink_mem_init(struct etl_sink *s, struct writer_mem *m);

#endif /* WRITER_ETL_SINK_H */
