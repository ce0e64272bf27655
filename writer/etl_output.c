// SPDX-License-Identifier: MIT
/*
 * writer/etl_output.c - how an ETL file's bytes reach its output
 * (writer/out_file.h decides where that is and commits it).
 *
 * The header buffer must come first in the file but is only complete at the
 * end (BuffersWritten, EndTime, EventsLost). Data buffers are written as
 * they are flushed, so memory stays bounded whatever the trace length:
 *
 *   OUT_RENAME (the temporary file beside a regular or new target):
 *     [ hole: BufferSize ][ buf 1 ][ buf 2 ] ...
 *     complete: pwrite the header at 0, hash the file back
 *
 *   OUT_STDOUT / OUT_IN_PLACE (a device or FIFO, never replaced):
 *     tmpfile() spool (already unlinked)  [ buf 1 ][ buf 2 ] ...
 *     complete: write the header, then copy the spool after it
 *
 * A data buffer is written up to its end of data (SavedOffset); its zero
 * tail is left as a hole of the new file (the next buffer's write, or the
 * final ftruncate, extends the file over it), so a mostly empty buffer
 * costs no copy: a compact session's 1 MiB buffers are a few KB of events.
 * The hash reads back the data and counts the tail's zeros without reading.
 *
 * Every write loops over short writes and EINTR; a write that makes no
 * progress is -EIO. Errors are negative errno values; the writer keeps the
 * first one (sticky).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "writer/etl_layout.h"
#include "writer/etl_wire.h"
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

/* Byte offset of buffer @index, or -EFBIG when off_t cannot hold it. */
static int buffer_offset(uint64_t index, uint32_t buffer_size, off_t *off)
{
	uint64_t max = ((uint64_t)1 << (sizeof(off_t) * 8 - 1)) - 1;

	if (index > (max - buffer_size) / buffer_size) {
		return -EFBIG;
	}
	*off = (off_t)(index * buffer_size);
	return 0;
}

int etl_out_open(struct etl_output *out, struct out_file *of, const char *path,
		 uint32_t buffer_size)
{
	char err[64];
	int rc;

	memset(out, 0, sizeof(*out));
	out->data_fd = -1;
	out->buffer_size = buffer_size;
	if (!of) {
		out_set_init(&out->own);
		out->owns_set = true;
		rc = out_set_add(&out->own, path, "output", err, sizeof(err));
		if (rc >= 0) {
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
	out->spool = tmpfile();
	if (!out->spool) {
		rc = errno ? -errno : -EIO;
		etl_out_abort(out);
		return rc;
	}
	out->data_fd = fileno(out->spool);
	return 0;
}

int etl_out_write_data(struct etl_output *out, const uint8_t *buf, uint32_t used)
{
	uint64_t index = out->data_buffers + (out->of->kind == OUT_RENAME ? 1u : 0u);
	off_t off;
	int ret = buffer_offset(index, out->buffer_size, &off);

	if (ret) {
		return ret;
	}
	if (used < ETL_BH_LEN || used > out->buffer_size) {
		used = out->buffer_size;
	}
	/* the tail [used, BufferSize) stays a hole: zeros, not written */
	ret = pwrite_all(out->data_fd, buf, used, off);
	if (ret) {
		return ret;
	}
	out->data_buffers++;
	return 0;
}

/* Extend @fd over the holes to @buffers whole buffers. */
static int extend(int fd, uint64_t buffers, uint32_t buffer_size)
{
	off_t end;
	int ret = buffer_offset(buffers, buffer_size, &end);

	if (!ret && ftruncate(fd, end) < 0) {
		ret = -errno;
	}
	return ret;
}

static const uint8_t zeros[4096];

/*
 * Hash buffer @index of @fd into @h: its data, read back (SavedOffset says
 * where it ends), then its zero tail, counted without reading it.
 */
static int hash_buffer(int fd, uint64_t index, uint32_t buffer_size, uint8_t *scratch,
		       XXH3_state_t *h)
{
	uint32_t used;
	off_t off;
	int ret = buffer_offset(index, buffer_size, &off);

	if (!ret) {
		ret = pread_all(fd, scratch, ETL_BH_LEN, off);
	}
	if (ret) {
		return ret;
	}
	used = get_le32(scratch + ETL_BH_SAVED_OFFSET);
	if (used < ETL_BH_LEN || used > buffer_size) {
		used = buffer_size;
	}
	ret = pread_all(fd, scratch + ETL_BH_LEN, used - ETL_BH_LEN, off + ETL_BH_LEN);
	if (ret) {
		return ret;
	}
	XXH3_64bits_update(h, scratch, used);
	for (uint32_t left = buffer_size - used; left;) {
		uint32_t n = left < sizeof(zeros) ? left : (uint32_t)sizeof(zeros);

		XXH3_64bits_update(h, zeros, n);
		left -= n;
	}
	return 0;
}

/* The temporary file: header at 0, then hash the file as it now is. */
static int complete_rename(struct etl_output *out, const uint8_t *hdr, uint8_t *scratch,
			   XXH3_state_t *h)
{
	int ret = pwrite_all(out->of->fd, hdr, out->buffer_size, 0);

	if (!ret) {
		ret = extend(out->of->fd, out->data_buffers + 1u, out->buffer_size);
	}
	XXH3_64bits_update(h, hdr, out->buffer_size);
	for (uint64_t i = 1; !ret && i <= out->data_buffers; i++) {
		ret = hash_buffer(out->of->fd, i, out->buffer_size, scratch, h);
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
	ret = extend(out->data_fd, out->data_buffers, out->buffer_size);
	if (!ret) {
		ret = write_all(out->of->fd, hdr, out->buffer_size);
	}
	XXH3_64bits_update(h, hdr, out->buffer_size);
	for (uint64_t i = 0; !ret && i < out->data_buffers; i++) {
		off_t off;

		ret = buffer_offset(i, out->buffer_size, &off);
		if (!ret) {
			ret = pread_all(out->data_fd, scratch, out->buffer_size, off);
		}
		if (!ret) {
			XXH3_64bits_update(h, scratch, out->buffer_size);
			ret = write_all(out->of->fd, scratch, out->buffer_size);
		}
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
	if (out->of->kind == OUT_RENAME) {
		ret = complete_rename(out, hdr, scratch, h);
	} else {
		ret = complete_stream(out, hdr, scratch, h);
	}
	*xxh3 = XXH3_64bits_digest(h);
	XXH3_freeState(h);
	if (out->spool) {
		fclose(out->spool);
		out->spool = NULL;
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
	if (out->spool) {
		fclose(out->spool);
		out->spool = NULL;
	}
	if (out->owns_set) {
		out_set_free(&out->own);
		out->owns_set = false;
	}
	out->of = NULL;
}
