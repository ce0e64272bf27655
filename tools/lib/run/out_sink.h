/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/out_sink.h - ETL files into the outputs of a run: the file
 * sink (writer/etl_sink.h) over one struct out_file (out_file.h), and a
 * writer that opens, and commits, an output of its own.
 *
 *   a regular file or a new path (OUT_RENAME): the body at its offsets in
 *     the seekable temporary file, zero tails left as holes; the header
 *     buffer at 0 last, the file hashed back
 *   a stream (OUT_STDOUT, OUT_IN_PLACE: a device, FIFO or pipe): the body
 *     in the output's spool; the header buffer, then the spool copied after
 *     it (a stream cannot seek back to its start)
 *   the null device: counted, not written, no digest
 */
#ifndef TOOLS_LIB_RUN_OUT_SINK_H
#define TOOLS_LIB_RUN_OUT_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/lib/run/out_file.h"
#include "writer/etl_sink.h"
#include "writer/writer.h"

/**
 * struct out_sink - the sink of one ETL output. Fields are private but
 * @sink, what writer_create() takes.
 * @sink:      ops, ctx (this struct) and discard (@of is the null device)
 * @of:        the output, borrowed from the caller's set
 * @data_fd:   where the body goes: @of->fd (OUT_RENAME) or @of->spool_fd
 * @head:      the header buffer's length (BufferSize)
 * @spool_err: the last error was the spool's, not the output's
 * @unsynced:  bytes written since the last out_writeback()
 */
struct out_sink {
	struct etl_sink sink;
	struct out_file *of;
	int data_fd;
	uint32_t head;
	bool spool_err;
	uint64_t unsynced;
};

/* Bytes of an output written between two out_writeback() calls. */
#define OUT_WRITEBACK_EVERY (8u << 20)

/**
 * out_writeback - start writing @fd's dirty pages to disk, without waiting
 * (Linux's sync_file_range; elsewhere nothing): the fsync of the commit is
 * then short. A hint only.
 */
void out_writeback(int fd);

/**
 * out_sink_init - @s writes into @of, an output of an open set. An output
 * written in place needs a spool: out_file_want_spool() before the set
 * was opened (else the writer's create fails with EINVAL). Nothing is
 * committed: the caller's out_set_commit() puts the file in place.
 * @s is borrowed by the writer for its life.
 */
void out_sink_init(struct out_sink *s, struct out_file *of);

/**
 * out_sink_error_in_spool - the writer's error (writer_get_error())
 * happened on the spool of an output written in place (out_spool_dir():
 * the temporary folder ran out of room, say), not on the output itself.
 */
bool out_sink_error_in_spool(const struct out_sink *s);

/**
 * out_writer_create - writer_create() into @o->path, in an output set of
 * the writer's own (out_file.h's rules: a temporary file renamed into
 * place, a stream through a spool, the null device discarded). Nothing
 * appears at the target before writer_finish() succeeds, which commits
 * it; writer_destroy() before that leaves the target as it was.
 * Return: the writer, or NULL with errno set (EINVAL bad option, or the
 * errno of the failed open or allocation).
 */
struct etl_writer *out_writer_create(const struct writer_opts *o);

#endif /* TOOLS_LIB_RUN_OUT_SINK_H */
