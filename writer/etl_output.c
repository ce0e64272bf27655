// SPDX-License-Identifier: MIT
/*
 * writer/etl_output.c - how an ETL file's bytes reach its output
 * (writer/out_file.h decides where that is and commits it).
 *
 * The header buffer must come first in the file but is only complete at the
 * end (BuffersWritten, EndTime, EventsLost). Data buffers are written as
 * they are flushed, so memory stays bounded whatever the trace length. A
 * data buffer takes BufferSize bytes, or fewer when it is compressed (its
 * on-disk BufferSize is then its compressed length), so they are placed by
 * a running offset:
 *
 *   OUT_RENAME (the temporary file beside a regular or new target):
 *     [ hole: BufferSize ][ buf 1 ][ buf 2 ] ...
 *     complete: pwrite the header at 0, hash the file back
 *
 *   OUT_STDOUT / OUT_IN_PLACE (a device, FIFO or pipe, never replaced):
 *     the out_file's spool (unlinked, in $TMPDIR)  [ buf 1 ][ buf 2 ] ...
 *     complete: write the header, then copy the spool after it
 *     (readers walk a file by the header's counts, so the header cannot
 *     come last; the spool is the price of a target that cannot seek)
 *
 *   the null device (out_file.is_null: /dev/null, or standard output
 *   sent there): the bytes would be thrown away, so they are only
 *   counted - no spool, no write, no digest (xxh3 0)
 *
 *   memory (writer_opts.mem: the corpus, the mutator, tests):
 *     [ hole: BufferSize ][ buf 1 ][ buf 2 ] ... grown with realloc
 *     complete: copy the header to 0, hash the image
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
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#if defined(ETWFORGE_XXH_DISPATCH) && ETWFORGE_XXH_DISPATCH
#include <xxh_x86dispatch.h> /* XXH3_64bits_update: the run-time widest SIMD, same digest */
#endif

#include "writer/writer_internal.h"

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

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
	}
	return 0;
}

static int pwrite_all(int fd, const uint8_t *p, size_t len, off_t off)
{
	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, off);

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
		off += (off_t)n;
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

int etl_out_open(struct etl_output *out, struct out_file *of, struct writer_mem *mem,
		 const char *path, uint32_t buffer_size)
{
	char err[64];
	int rc;

	memset(out, 0, sizeof(*out));
	out->data_fd = -1;
	out->buffer_size = buffer_size;
	if (mem) {
		/* the header buffer's place first, filled at the end */
		mem->data = calloc(1, (size_t)buffer_size * 2);
		if (!mem->data) {
			return -ENOMEM;
		}
		mem->len = buffer_size;
		out->mem = mem;
		out->mem_cap = (size_t)buffer_size * 2;
		return 0;
	}
	if (!of) {
		out_set_init(&out->own);
		out->owns_set = true;
		rc = out_set_add(&out->own, path, "output", err, sizeof(err));
		if (rc >= 0) {
			out_file_want_spool(out_set_file(&out->own, 0));
			rc = out_set_open(&out->own, err, sizeof(err));
		}
		if (rc < 0) {
			out_set_free(&out->own);
			out->owns_set = false;
			return rc;
		}
		of = out_set_file(&out->own, 0);
	}
	out->of = of;
	if (of->kind == OUT_RENAME) {
		out->data_fd = of->fd;
		return 0;
	}
	if (of->is_null) {
		out->discard = true;
		return 0;
	}
	out->data_fd = of->spool_fd;
	if (out->data_fd < 0) {
		etl_out_abort(out); /* the caller's set was opened without out_file_want_spool() */
		return -EINVAL;
	}
	return 0;
}

/* Append @len bytes to the memory image: the first @used from @buf, then zeros. */
static int mem_append(struct etl_output *out, const uint8_t *buf, size_t used, size_t len)
{
	struct writer_mem *m = out->mem;

	if (len > SIZE_MAX / 2 - m->len) {
		return -EFBIG;
	}
	if (m->len + len > out->mem_cap) {
		size_t cap = out->mem_cap * 2 > m->len + len ? out->mem_cap * 2 : m->len + len;
		uint8_t *n = realloc(m->data, cap);

		if (!n) {
			return -ENOMEM;
		}
		m->data = n;
		out->mem_cap = cap;
	}
	memcpy(m->data + m->len, buf, used);
	memset(m->data + m->len + used, 0, len - used);
	m->len += len;
	return 0;
}

int etl_out_write_data(struct etl_output *out, const uint8_t *buf, uint32_t used, uint32_t len)
{
	uint64_t base = out->mem || out->of->kind == OUT_RENAME ? out->buffer_size : 0u;
	off_t off;
	int ret;

	if (used > len) {
		used = len;
	}
	if (out->mem) {
		ret = mem_append(out, buf, used, len);
	} else if (out->discard) {
		ret = 0;
	} else {
		/* the tail [used, len) stays a hole: zeros, not written */
		ret = data_offset(base, out->data_bytes, &off);
		if (!ret) {
			ret = pwrite_all(out->data_fd, buf, used, off);
		}
		out->spool_err = ret && out->of->kind != OUT_RENAME;
	}
	if (ret) {
		return ret;
	}
	out->data_buffers++;
	out->data_bytes += len;
	return 0;
}

/* Extend @fd over a trailing hole to @base + the data bytes. */
static int extend(struct etl_output *out, int fd, uint64_t base)
{
	off_t end;
	int ret = data_offset(base, out->data_bytes, &end);

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

		XXH3_64bits_update(h, zeros, n);
		if (copy_fd >= 0) {
			ret = write_all(copy_fd, zeros, n);
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
 * The bytes of the data buffers, read back from @fd at @base in chunks of
 * BufferSize (@scratch), holes counted as zeros; copied to @copy_fd when
 * it is >= 0.
 */
static int hash_data(struct etl_output *out, int fd, uint64_t base, uint8_t *scratch,
		     XXH3_state_t *h, int copy_fd)
{
	off_t pos, end;
	int ret = data_offset(base, 0, &pos);

	if (!ret) {
		ret = data_offset(base, out->data_bytes, &end);
	}
	while (!ret && pos < end) {
		off_t data, hole;

		next_data(fd, pos, end, &data, &hole);
		ret = hash_zeros((uint64_t)(data - pos), h, copy_fd);
		for (pos = data; !ret && pos < hole;) {
			size_t n = hole - pos < (off_t)out->buffer_size ? (size_t)(hole - pos)
									: out->buffer_size;

			ret = pread_all(fd, scratch, n, pos);
			if (ret) {
				out->spool_err = copy_fd >= 0; /* reading the spool back */
			} else {
				XXH3_64bits_update(h, scratch, n);
				if (copy_fd >= 0) {
					ret = write_all(copy_fd, scratch, n);
				}
			}
			pos += (off_t)n;
		}
	}
	return ret;
}

/* The temporary file: header at 0, then hash the file as it now is. */
static int complete_rename(struct etl_output *out, const uint8_t *hdr, uint8_t *scratch,
			   XXH3_state_t *h)
{
	int ret = pwrite_all(out->of->fd, hdr, out->buffer_size, 0);

	if (!ret) {
		ret = extend(out, out->of->fd, out->buffer_size);
	}
	XXH3_64bits_update(h, hdr, out->buffer_size);
	if (!ret) {
		ret = hash_data(out, out->of->fd, out->buffer_size, scratch, h, -1);
	}
	return ret;
}

/* A stream: the header, then the spool copied after it. */
static int complete_stream(struct etl_output *out, const uint8_t *hdr, uint8_t *scratch,
			   XXH3_state_t *h)
{
	int ret;

	if (out->of->kind == OUT_STDOUT) {
		fflush(stdout); /* keep whatever stdio already buffered ahead of us */
	}
	ret = extend(out, out->data_fd, 0);
	out->spool_err = ret != 0;
	if (!ret) {
		ret = write_all(out->of->fd, hdr, out->buffer_size);
	}
	XXH3_64bits_update(h, hdr, out->buffer_size);
	if (!ret) {
		ret = hash_data(out, out->data_fd, 0, scratch, h, out->of->fd);
	}
	return ret;
}

int etl_out_complete(struct etl_output *out, const uint8_t *hdr, uint8_t *scratch, uint64_t *xxh3)
{
	XXH3_state_t *h = XXH3_createState();
	char err[64];
	int ret;

	if (!h) {
		etl_out_abort(out);
		return -ENOMEM;
	}
	XXH3_64bits_reset(h);
	if (out->mem) {
		memcpy(out->mem->data, hdr, out->buffer_size);
		XXH3_64bits_update(h, out->mem->data, out->mem->len);
		ret = 0;
	} else if (out->discard) {
		ret = 0;
	} else if (out->of->kind == OUT_RENAME) {
		ret = complete_rename(out, hdr, scratch, h);
	} else {
		ret = complete_stream(out, hdr, scratch, h);
	}
	*xxh3 = out->discard ? 0 : XXH3_64bits_digest(h);
	XXH3_freeState(h);
	if (out->of && out->of->kind != OUT_RENAME) {
		out_file_spool_close(out->of); /* copied: its space is free again */
	}
	if (!ret && out->owns_set) {
		ret = out_set_commit(&out->own, err, sizeof(err));
	}
	if (ret) {
		etl_out_abort(out);
		return ret;
	}
	if (out->owns_set) {
		out_set_free(&out->own);
		out->owns_set = false;
	}
	return 0;
}

void etl_out_abort(struct etl_output *out)
{
	out->mem = NULL; /* the image stays the caller's to free */
	if (out->of && out->of->kind != OUT_RENAME) {
		out_file_spool_close(out->of);
	}
	if (out->owns_set) {
		out_set_free(&out->own);
		out->owns_set = false;
	}
	out->of = NULL;
}
