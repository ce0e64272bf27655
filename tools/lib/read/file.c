// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/file.c - an ETL file handle (read.h): open (writer/etl_reader.c
 * does the framing), its header as struct etwforge_file_info, its damaged
 * places, and the two small readers of a record that need no iterator.
 * Its events: the iterator (iter.c, iter_time.c) over the records' public
 * views (record_view.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "producer/ccswap_expand.h"
#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/read/read_internal.h"
#include "writer/etl_layout.h"
#include "writer/etl_reader.h"
#include "writer/etl_wire.h"

/* The reader behind a file handle (for the other API files). */
struct etl_reader *read_file_reader(const struct etwforge_file *f)
{
	return f->d;
}

bool read_file_keep_going(const struct etwforge_file *f)
{
	return f->keep_going;
}

int read_reader_fail(struct etwforge_error *err, const struct etl_error *e, int code)
{
	/* a path that names nothing readable is a mistake of the command line, as for every
	 * other input; what is in a file that opens is data */
	return error_fail_at(err, code, e->unopened ? ERR_INPUT : ERR_DATA, "%s", e->msg);
}

static void fill_info(struct etwforge_file *f)
{
	const struct etl_logfile *lf = etl_reader_logfile(f->d);
	struct etwforge_file_info *in = &f->info;

	snprintf(f->name, sizeof(f->name), "%s", etl_reader_name(f->d));
	snprintf(f->logger_name, sizeof(f->logger_name), "%s", lf->logger_name);
	snprintf(f->logfile_name, sizeof(f->logfile_name), "%s", lf->logfile_name);
	in->name = f->name;
	in->logger_name = f->logger_name;
	in->logfile_name = f->logfile_name;
	in->is64 = lf->is64;
	in->buffer_size = lf->buffer_size;
	in->version = lf->version;
	in->provider_version = lf->provider_version;
	in->cpus = lf->number_of_processors;
	in->start_time = lf->start_time;
	in->end_time = lf->end_time;
	in->boot_time = lf->boot_time;
	in->start_ts = lf->header_system_time;
	in->timer_resolution = lf->timer_resolution;
	in->maximum_file_size = lf->maximum_file_size;
	in->log_file_mode = lf->log_file_mode;
	in->buffers_written = lf->buffers_written;
	in->start_buffers = lf->start_buffers;
	in->pointer_size = lf->pointer_size;
	in->events_lost = lf->events_lost;
	in->buffers_lost = lf->buffers_lost;
	in->cpu_mhz = lf->cpu_speed_mhz;
	in->perf_freq = lf->perf_freq;
	in->clock_type = lf->reserved_flags;
	in->timer_source_clock = lf->timer_source_clock;
	in->timer_source_perf = lf->timer_source_perf;
	in->buffers = etl_reader_buffer_count(f->d);
	in->trailing_bytes = etl_reader_trailing_bytes(f->d);
	in->max_wait_reason = etw_target_max_wait_reason(lf->provider_version);
}

static struct etwforge_file *wrap(struct etl_reader *d, unsigned flags, struct etwforge_error *err)
{
	struct etwforge_file *f = calloc(1, sizeof(*f));
	const struct etl_damage *dm;
	unsigned n;

	if (f) {
		f->d = d;
		f->keep_going = flags & ETWFORGE_OPEN_KEEP_GOING;
		dm = etl_reader_damage(d, &n);
		f->damage = n ? calloc(n, sizeof(*f->damage)) : NULL;
	}
	if (!f || (n && !f->damage)) {
		free(f);
		etl_reader_close(d);
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		f->damage[i].pub.buffer = dm[i].buffer;
		f->damage[i].pub.offset = dm[i].err.offset;
		snprintf(f->damage[i].msg, sizeof(f->damage[i].msg), "%s", dm[i].err.msg);
		f->damage[i].pub.msg = f->damage[i].msg;
	}
	f->ndamage = n;
	fill_info(f);
	error_ok(err);
	return f;
}

static unsigned reader_flags(unsigned flags)
{
	return (flags & ETWFORGE_OPEN_SALVAGE ? ETL_OPEN_SALVAGE : 0u) |
	       (flags & ETWFORGE_OPEN_KEEP_GOING ? ETL_OPEN_KEEP_GOING : 0u);
}

struct etwforge_file *read_file_open(const char *path, unsigned flags, struct etwforge_error *err)
{
	struct etl_error e;
	struct etl_reader *d;

	d = etl_reader_open_file_flags(path, reader_flags(flags), &e);
	if (!d) {
		int code = errno ? errno : EINVAL;

		read_reader_fail(err, &e, -code);
		errno = code;
		return NULL;
	}
	return wrap(d, flags, err);
}

struct etwforge_file *read_file_open_mem(const void *data, size_t len, const char *name,
					 unsigned flags, struct etwforge_error *err)
{
	struct etl_error e;
	struct etl_reader *d = etl_reader_open_mem_flags(data, len, name, reader_flags(flags), &e);

	if (!d) {
		int code = errno ? errno : EINVAL;

		read_reader_fail(err, &e, -code);
		errno = code;
		return NULL;
	}
	return wrap(d, flags, err);
}

void read_file_close(struct etwforge_file *f)
{
	if (!f) {
		return;
	}
	etl_reader_close(f->d);
	free(f->damage);
	free(f);
}

const struct etwforge_file_info *read_file_info(const struct etwforge_file *f)
{
	return &f->info;
}

int read_file_set_max_wait_reason(struct etwforge_file *f, unsigned v)
{
	if (v < 1 || v > 63) {
		return -EINVAL;
	}
	f->info.max_wait_reason = (uint8_t)v;
	return 0;
}

unsigned read_file_damage_count(const struct etwforge_file *f)
{
	return f->ndamage;
}

const struct etwforge_damage *read_file_damage_at(const struct etwforge_file *f, unsigned i)
{
	return i < f->ndamage ? &f->damage[i].pub : NULL;
}

bool read_record_times(const struct etwforge_record *r, uint32_t *kernel_time, uint32_t *user_time)
{
	*kernel_time = *user_time = 0;
	if (r && r->data && r->size >= ETL_FH_LEN &&
	    (r->header_type == ETL_HT_FULL_HEADER32 || r->header_type == ETL_HT_FULL_HEADER64)) {
		*kernel_time = get_le32(r->data + ETL_FH_KERNEL_TIME);
		*user_time = get_le32(r->data + ETL_FH_USER_TIME);
		return true;
	}
	if (!r || !r->data || r->size < ETL_SH_LEN ||
	    (r->header_type != ETL_HT_SYSTEM32 && r->header_type != ETL_HT_SYSTEM64)) {
		return false;
	}
	*kernel_time = get_le32(r->data + ETL_SH_KERNEL_TIME);
	*user_time = get_le32(r->data + ETL_SH_USER_TIME);
	return true;
}
