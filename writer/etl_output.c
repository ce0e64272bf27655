// SPDX-License-Identifier: MIT
/*
 * writer/etl_output.c - where an ETL file's bytes go, so that a failed run
 * never leaves a partial file at the target path (DESIGN "Command line").
 *
 * The header buffer must come first in the file but is only complete at the
 * end (BuffersWritten, EndTime, EventsLost). Data buffers are written as
 * they are flushed, so memory stays bounded whatever the trace length:
 *
 *   target is a regular file or does not exist (ETL_OUT_RENAME):
 *     mkstemp("DIR/.NAME.XXXXXX")  [ hole: BufferSize ][ buf 1 ][ buf 2 ] ...
 *     finish: pwrite header at 0 -> fsync -> close -> rename onto DIR/NAME
 *     failure / destroy before finish: unlink the temporary file
 *
 *   "-" (ETL_OUT_STDOUT) or an existing non-regular target such as
 *   /dev/null, /dev/full or a FIFO (ETL_OUT_IN_PLACE, opened directly and
 *   never replaced):
 *     tmpfile() spool (already unlinked)  [ buf 1 ][ buf 2 ] ...
 *     finish: write header, copy the spool after it, fsync where possible
 *
 * The decision uses stat(), which follows symlinks: a link to a device is
 * written in place, a link to a regular file is replaced by the new file
 * (like most tools that write through a temporary name). The new file gets
 * mode 0666 & ~umask; reading the umask means setting it back at once,
 * which is not thread-safe (writers are created from one thread).
 *
 * Every write loops over short writes and EINTR; a write that makes no
 * progress is -EIO. Errors are returned as negative errno values; the
 * writer keeps the first one (sticky).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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
			return -EIO; /* the spool is shorter than what we wrote */
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

/*
 * fsync that accepts descriptors which cannot be synced (pipes, ttys,
 * /dev/null report EINVAL or ENOTSUP): there is nothing to make durable.
 */
static int sync_fd(int fd)
{
	if (fsync(fd) == 0) {
		return 0;
	}
	if (errno == EINVAL || errno == EROFS || errno == ENOTSUP) {
		return 0;
	}
	return -errno;
}

static int open_spool(struct etl_output *out)
{
	out->spool = tmpfile();
	if (!out->spool) {
		return errno ? -errno : -EIO;
	}
	out->data_fd = fileno(out->spool);
	return 0;
}

/* Build "DIR/.NAME.XXXXXX" beside @path; -EISDIR if @path names a directory. */
static int make_tmp_name(const char *path, char **tmp)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	const char *base = path + dir_len;
	size_t base_len = strlen(base);
	char *t;

	if (base_len == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		return -EISDIR;
	}
	t = malloc(dir_len + 1 + base_len + 8);
	if (!t) {
		return -ENOMEM;
	}
	memcpy(t, path, dir_len);
	t[dir_len] = '.';
	memcpy(t + dir_len + 1, base, base_len);
	memcpy(t + dir_len + 1 + base_len, ".XXXXXX", 8);
	*tmp = t;
	return 0;
}

static int open_rename(struct etl_output *out, const char *path)
{
	mode_t mask;
	int ret;

	out->final_path = malloc(strlen(path) + 1);
	if (!out->final_path) {
		return -ENOMEM;
	}
	strcpy(out->final_path, path);
	ret = make_tmp_name(path, &out->tmp_path);
	if (ret) {
		return ret;
	}
	out->fd = mkstemp(out->tmp_path);
	if (out->fd < 0) {
		ret = -errno;
		free(out->tmp_path);
		out->tmp_path = NULL; /* nothing was created */
		return ret;
	}
	/* mkstemp makes 0600; give the file the mode a plain creat() would. */
	mask = umask(0);
	umask(mask);
	if (fchmod(out->fd, (mode_t)(0666 & ~mask)) != 0) {
		return -errno;
	}
	out->data_fd = out->fd;
	return 0;
}

int etl_out_open(struct etl_output *out, const char *path, uint32_t buffer_size)
{
	struct stat st;
	int ret;

	memset(out, 0, sizeof(*out));
	out->fd = -1;
	out->data_fd = -1;
	out->buffer_size = buffer_size;

	if (strcmp(path, "-") == 0) {
		out->mode = ETL_OUT_STDOUT;
		out->fd = STDOUT_FILENO;
		ret = open_spool(out);
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or FIFO is the destination itself: never replace it. */
		out->mode = ETL_OUT_IN_PLACE;
		out->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		ret = out->fd < 0 ? -errno : open_spool(out);
	} else {
		out->mode = ETL_OUT_RENAME;
		ret = open_rename(out, path);
	}
	if (ret) {
		etl_out_abort(out);
	}
	return ret;
}

int etl_out_write_data(struct etl_output *out, const uint8_t *buf)
{
	uint64_t index = out->data_buffers + (out->mode == ETL_OUT_RENAME ? 1u : 0u);
	off_t off;
	int ret = buffer_offset(index, out->buffer_size, &off);

	if (ret) {
		return ret;
	}
	ret = pwrite_all(out->data_fd, buf, out->buffer_size, off);
	if (ret) {
		return ret;
	}
	out->data_buffers++;
	return 0;
}

/* Release everything without removing files (after a successful commit). */
static void release(struct etl_output *out)
{
	if (out->spool) {
		fclose(out->spool);
	}
	free(out->tmp_path);
	free(out->final_path);
	out->spool = NULL;
	out->tmp_path = NULL;
	out->final_path = NULL;
	out->fd = -1;
	out->data_fd = -1;
}

/* Best effort: make the rename itself durable. The file is complete either way. */
static void sync_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash) {
		fd = open(".", O_RDONLY | O_CLOEXEC);
	} else {
		size_t len = slash == path ? 1 : (size_t)(slash - path);

		dir = malloc(len + 1);
		if (!dir) {
			return;
		}
		memcpy(dir, path, len);
		dir[len] = '\0';
		fd = open(dir, O_RDONLY | O_CLOEXEC);
		free(dir);
	}
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

static int commit_rename(struct etl_output *out, const uint8_t *hdr)
{
	int ret = pwrite_all(out->fd, hdr, out->buffer_size, 0);
	int fd = out->fd;

	if (!ret && fsync(fd) != 0) {
		ret = -errno;
	}
	out->fd = -1;
	if (close(fd) != 0 && !ret) {
		ret = -errno;
	}
	if (!ret && rename(out->tmp_path, out->final_path) != 0) {
		ret = -errno;
	}
	if (ret) {
		return ret; /* the caller aborts: unlinks the temporary file */
	}
	sync_dir_of(out->final_path);
	return 0;
}

static int commit_stream(struct etl_output *out, const uint8_t *hdr, uint8_t *scratch)
{
	int ret;

	if (out->mode == ETL_OUT_STDOUT) {
		fflush(stdout); /* keep whatever stdio already buffered ahead of us */
	}
	ret = write_all(out->fd, hdr, out->buffer_size);
	for (uint64_t i = 0; !ret && i < out->data_buffers; i++) {
		off_t off;

		ret = buffer_offset(i, out->buffer_size, &off);
		if (!ret) {
			ret = pread_all(out->data_fd, scratch, out->buffer_size, off);
		}
		if (!ret) {
			ret = write_all(out->fd, scratch, out->buffer_size);
		}
	}
	if (!ret) {
		ret = sync_fd(out->fd);
	}
	if (out->mode == ETL_OUT_IN_PLACE) {
		int fd = out->fd;

		out->fd = -1;
		if (close(fd) != 0 && !ret) {
			ret = -errno;
		}
	}
	return ret;
}

int etl_out_commit(struct etl_output *out, const uint8_t *hdr, uint8_t *scratch)
{
	int ret;

	if (out->mode == ETL_OUT_RENAME) {
		ret = commit_rename(out, hdr);
	} else {
		ret = commit_stream(out, hdr, scratch);
	}
	if (ret) {
		etl_out_abort(out);
		return ret;
	}
	release(out);
	return 0;
}

void etl_out_abort(struct etl_output *out)
{
	if (out->fd >= 0 && out->mode != ETL_OUT_STDOUT) {
		close(out->fd);
	}
	if (out->tmp_path) {
		unlink(out->tmp_path);
	}
	release(out);
}
