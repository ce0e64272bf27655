// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/out_sink.c - an ETL file's bytes into an output of a run
 * (out_sink.h; out_file.h decides where that is and commits it).
 *
 * The header buffer must come first in the file but is only complete at the
 * end (BuffersWritten, EndTime, EventsLost). Data buffers are written as
 * they are flushed, so memory stays bounded whatever the trace length. A
 * data buffer takes BufferSize bytes, or fewer when it is compressed (its
 * on-disk BufferSize is then its compressed length); the writer places
 * them by a running offset:
 *
 *   OUT_RENAME (the temporary file beside a regular or new target):
 *     [ hole: BufferSize ][ buf 1 ][ buf 2 ] ...
 *     finish: pwrite the header at 0, hash the file back
 *
 *   OUT_STDOUT / OUT_IN_PLACE (a device, FIFO or pipe, never replaced):
 *     the out_file's spool (unlinked, in $TMPDIR)  [ buf 1 ][ buf 2 ] ...
 *     finish: write the header, then copy the spool after it
 *     (readers walk a file by the header's counts, so the header cannot
 *     come last; the spool is the price of a target that cannot seek)
 *
 *   the null device (out_file.is_null: /dev/null, or standard output
 *   sent there): the bytes would be thrown away, so they are only
 *   counted - no spool, no write, no digest (xxh3 0)
 *
 * A data buffer is written up to its end of data (SavedOffset); its zero
 * tail is left as a hole of the file (the next buffer's write, or the final
 * ftruncate, extends the file over it), so a mostly empty buffer costs no
 * copy: a compact session's 1 MiB buffers are a few KB of events. Reading
 * the file back for the hash, SEEK_DATA/SEEK_HOLE find the holes, whose
 * zeros are counted without being read (a file system without holes
 * simply reads them).
 *
 * Where libxxhash ships its x86 dispatcher, the hash runs on the widest
 * vector unit the CPU has (AVX2, AVX-512) instead of SSE2: same digest.
 *
 * Every write loops over short writes and EINTR; a write that makes no
 * progress is -EIO. Errors are negative errno values; the writer keeps the
 * first one (sticky).
 */
#define _GNU_SOURCE /* SEEK_DATA, SEEK_HOLE (Linux, the BSDs, Solaris) */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "tools/lib/run/out_sink.h"
#include "writer/etl_hash.h"

/* All of @p to @fd at @off, or at its current position when @off < 0 (a pipe). */
static int put_all(int fd, const uint8_t *p, size_t len, off_t off)
{
	while (len > 0) {
		ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -errno;
		}
		if (n == 0) {
			return -EIO;
		}
		p += n;
		len -= (size_t)n;
		if (off >= 0) {
			off += (off_t)n;
		}
	}
	return 0;
}

static int pread_all(int fd, uint8_t *p, size_t len, off_t off)
{
	while (len > 0) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -errno;
		}
		if (n == 0) {
			return -EIO; /* shorter than what we wrote */
		}
		p += n;
		len -= (size_t)n;
		off += (off_t)n;
	}
	return 0;
}

/* @base + @at as an off_t, or -EFBIG when off_t cannot hold it. */
static int data_offset(uint64_t base, uint64_t at, off_t *off)
{
	uint64_t max = ((uint64_t)1 << (sizeof(off_t) * 8 - 1)) - 1;

	if (at > max - base) {
		return -EFBIG;
	}
	*off = (off_t)(base + at);
	return 0;
}

/* Extend @fd over a trailing hole to @base + @body. */
static int extend(int fd, uint64_t base, uint64_t body)
{
	off_t end;
	int ret = data_offset(base, body, &end);

	if (!ret && ftruncate(fd, end) < 0) {
		ret = -errno;
	}
	return ret;
}

static const uint8_t zeros[4096];

/* @len zeros into @h (and to @copy_fd when it is >= 0). */
static int hash_zeros(uint64_t len, XXH3_state_t *h, int copy_fd)
{
	int ret = 0;

	while (!ret && len) {
		size_t n = len < sizeof(zeros) ? (size_t)len : sizeof(zeros);

		etl_xxh3_update(h, zeros, n);
		if (copy_fd >= 0) {
			ret = put_all(copy_fd, zeros, n, -1);
		}
		len -= n;
	}
	return ret;
}

/*
 * Where the data at or after @pos of @fd starts (@end when none before
 * it), and where it ends. Without SEEK_DATA/SEEK_HOLE (or on any error)
 * everything is data: correct, just read.
 */
static void next_data(int fd, off_t pos, off_t end, off_t *data, off_t *hole)
{
#ifdef SEEK_DATA
	off_t d = lseek(fd, pos, SEEK_DATA);
	off_t e;

	if (d < 0) {
		*data = errno == ENXIO ? end : pos;
		*hole = end;
		return;
	}
	*data = d < end ? d : end;
	e = lseek(fd, *data, SEEK_HOLE);
	*hole = e < 0 || e > end ? end : e;
	if (*hole <= *data) {
		*hole = end;
	}
#else
	(void)fd;
	*data = pos;
	*hole = end;
#endif
}

/*
 * The @body bytes of the data buffers, read back from @fd at @base in
 * chunks of BufferSize (@scratch), holes counted as zeros; copied to
 * @copy_fd when it is >= 0.
 */
static int hash_data(struct out_sink *s, int fd, uint64_t base, uint64_t body, uint8_t *scratch,
		     XXH3_state_t *h, int copy_fd)
{
	off_t pos, end;
	int ret = data_offset(base, 0, &pos);

	if (!ret) {
		ret = data_offset(base, body, &end);
	}
	while (!ret && pos < end) {
		off_t data, hole;

		next_data(fd, pos, end, &data, &hole);
		ret = hash_zeros((uint64_t)(data - pos), h, copy_fd);
		for (pos = data; !ret && pos < hole;) {
			size_t n = hole - pos < (off_t)s->head ? (size_t)(hole - pos) : s->head;

			ret = pread_all(fd, scratch, n, pos);
			if (ret) {
				s->spool_err = copy_fd >= 0; /* reading the spool back */
			} else {
				etl_xxh3_update(h, scratch, n);
				if (copy_fd >= 0) {
					ret = put_all(copy_fd, scratch, n, -1);
				}
			}
			pos += (off_t)n;
		}
	}
	return ret;
}

/* Where the body starts in the file its bytes go to: after the header's place, or 0 in a spool. */
static uint64_t body_base(const struct out_sink *s)
{
	return s->of->kind == OUT_RENAME ? s->head : 0u;
}

static int sink_begin(void *ctx, uint32_t head)
{
	struct out_sink *s = ctx;
	struct out_file *of = s->of;

	s->head = head;
	s->spool_err = false;
	if (of->kind == OUT_RENAME) {
		s->data_fd = of->fd;
		return 0;
	}
	if (of->is_null) {
		return 0;
	}
	s->data_fd = of->spool_fd;
	if (s->data_fd < 0) {
		/* the caller's set was opened without out_file_want_spool() */
		out_file_spool_close(of);
		return -EINVAL;
	}
	return 0;
}

static int sink_write_at(void *ctx, uint64_t off, const void *buf, size_t len)
{
	struct out_sink *s = ctx;
	off_t at;
	int ret;

	if (s->sink.discard) {
		return 0;
	}
	assert(off >= s->head);
	ret = data_offset(body_base(s), off - s->head, &at);
	if (!ret) {
		ret = put_all(s->data_fd, buf, len, at);
	}
	s->spool_err = ret && s->of->kind != OUT_RENAME;
	if (!ret && s->of->kind == OUT_RENAME) {
		s->unsynced += len;
		if (s->unsynced >= OUT_WRITEBACK_EVERY) {
			out_writeback(s->data_fd);
			s->unsynced = 0;
		}
	}
	return ret;
}

void out_writeback(int fd)
{
#if defined(SYNC_FILE_RANGE_WRITE)
	/*
	 * Start writing what is dirty now, without waiting: the fsync at the
	 * commit then finds most of the file on its way, rather than all of it
	 * to write while the run waits. A hint: its failure (a pipe, a file
	 * system without it) changes nothing.
	 */
	(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
	(void)fd;
#endif
}

static int sink_hole(void *ctx, uint64_t off, uint64_t len)
{
	/* left unwritten: the next write, or finish's ftruncate, extends the file over it */
	(void)ctx;
	(void)off;
	(void)len;
	return 0;
}

/* The temporary file: header at 0, then hash the file as it now is. */
static int complete_rename(struct out_sink *s, const uint8_t *hdr, uint64_t body, uint8_t *scratch,
			   XXH3_state_t *h)
{
	int ret = put_all(s->of->fd, hdr, s->head, 0);

	if (!ret) {
		ret = extend(s->of->fd, s->head, body);
	}
	etl_xxh3_update(h, hdr, s->head);
	if (!ret) {
		ret = hash_data(s, s->of->fd, s->head, body, scratch, h, -1);
	}
	return ret;
}

/* A stream: the header, then the spool copied after it. */
static int complete_stream(struct out_sink *s, const uint8_t *hdr, uint64_t body, uint8_t *scratch,
			   XXH3_state_t *h)
{
	int ret;

	if (s->of->kind == OUT_STDOUT) {
		fflush(stdout); /* keep whatever stdio already buffered ahead of us */
	}
	ret = extend(s->data_fd, 0, body);
	s->spool_err = ret != 0;
	if (!ret) {
		ret = put_all(s->of->fd, hdr, s->head, -1);
	}
	etl_xxh3_update(h, hdr, s->head);
	if (!ret) {
		ret = hash_data(s, s->data_fd, 0, body, scratch, h, s->of->fd);
	}
	return ret;
}

static int sink_finish(void *ctx, const void *head, uint64_t size, void *scratch, uint64_t *xxh3)
{
	struct out_sink *s = ctx;
	XXH3_state_t *h = XXH3_createState();
	uint64_t body = size - s->head;
	int ret;

	assert(size >= s->head);
	if (!h) {
		return -ENOMEM;
	}
	XXH3_64bits_reset(h);
	if (s->sink.discard) {
		ret = 0;
	} else if (s->of->kind == OUT_RENAME) {
		ret = complete_rename(s, head, body, scratch, h);
	} else {
		ret = complete_stream(s, head, body, scratch, h);
	}
	*xxh3 = s->sink.discard ? 0 : XXH3_64bits_digest(h);
	XXH3_freeState(h);
	if (s->of->kind != OUT_RENAME) {
		out_file_spool_close(s->of); /* copied: its space is free again */
	}
	return ret;
}

static void sink_abort(void *ctx)
{
	struct out_sink *s = ctx;

	if (s->of->kind != OUT_RENAME) {
		out_file_spool_close(s->of);
	}
}

static const struct etl_sink_ops sink_ops = {
	.begin = sink_begin,
	.write_at = sink_write_at,
	.hole = sink_hole,
	.finish = sink_finish,
	.abort = sink_abort,
	.release = NULL, /* the caller's memory */
};

void out_sink_init(struct out_sink *s, struct out_file *of)
{
	memset(s, 0, sizeof(*s));
	s->sink.ops = &sink_ops;
	s->sink.ctx = s;
	s->sink.discard = of->kind != OUT_RENAME && of->is_null;
	s->of = of;
	s->data_fd = -1;
}

bool out_sink_error_in_spool(const struct out_sink *s)
{
	return s->spool_err;
}

/* ---- a writer with an output set of its own ----------------------------- */

/*
 * The file sink above, and on success the commit of the set: what
 * writer_create() did when it was given a path instead of a sink.
 * @set_open: @set holds the output (freed once committed or given up)
 */
struct own_output {
	struct etl_sink sink;
	struct out_set set;
	struct out_sink file;
	bool set_open;
};

static int own_begin(void *ctx, uint32_t head)
{
	struct own_output *o = ctx;

	return sink_begin(&o->file, head);
}

static int own_write_at(void *ctx, uint64_t off, const void *buf, size_t len)
{
	struct own_output *o = ctx;

	return sink_write_at(&o->file, off, buf, len);
}

static int own_hole(void *ctx, uint64_t off, uint64_t len)
{
	struct own_output *o = ctx;

	return sink_hole(&o->file, off, len);
}

static int own_finish(void *ctx, const void *head, uint64_t size, void *scratch, uint64_t *xxh3)
{
	struct own_output *o = ctx;
	int ret = sink_finish(&o->file, head, size, scratch, xxh3);

	if (!ret) {
		ret = out_set_commit(&o->set, NULL);
	}
	if (!ret) {
		out_set_free(&o->set);
		o->set_open = false;
	}
	return ret;
}

static void own_abort(void *ctx)
{
	struct own_output *o = ctx;

	if (o->set_open) {
		sink_abort(&o->file);
		out_set_free(&o->set);
		o->set_open = false;
	}
}

static void own_release(void *ctx)
{
	own_abort(ctx); /* nothing left once finished */
	free(ctx);
}

static const struct etl_sink_ops own_ops = {
	.begin = own_begin,
	.write_at = own_write_at,
	.hole = own_hole,
	.finish = own_finish,
	.abort = own_abort,
	.release = own_release,
};

struct etl_writer *out_writer_create(const struct writer_opts *opts)
{
	struct own_output *o;
	struct etl_writer *w;
	int rc;

	if (writer_validate_opts(opts, NULL) < 0) {
		errno = EINVAL;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		return NULL; /* errno = ENOMEM */
	}
	out_set_init(&o->set);
	rc = out_set_add(&o->set, opts->path, "output", NULL);
	if (rc >= 0) {
		out_file_want_spool(out_set_file(&o->set, 0));
		rc = out_set_open(&o->set, NULL);
	}
	if (rc < 0) {
		out_set_free(&o->set);
		free(o);
		errno = -rc;
		return NULL;
	}
	o->set_open = true;
	out_sink_init(&o->file, out_set_file(&o->set, 0));
	o->sink.ops = &own_ops;
	o->sink.ctx = o;
	o->sink.discard = o->file.sink.discard;
	w = writer_create(opts, &o->sink);
	if (!w) {
		rc = errno;
		own_release(o);
		errno = rc;
	}
	return w;
}
