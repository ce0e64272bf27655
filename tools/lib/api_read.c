// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_read.c - the public reading calls (files, iterators, JSON,
 * stats) handed to the read room (tools/lib/read/read.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "tools/lib/api.h"
#include "tools/lib/read/read.h"

struct etwforge_file *etwforge_file_open(const char *path, unsigned flags,
					 struct etwforge_error *err)
{
	if (run_stdin_closed(path, err) < 0) {
		errno = EBADF;
		return NULL;
	}
	return read_file_open(path, flags, err);
}

struct etwforge_file *etwforge_file_open_mem(const void *data, size_t len, const char *name,
					     unsigned flags, struct etwforge_error *err)
{
	return read_file_open_mem(data, len, name, flags, err);
}

void etwforge_file_close(struct etwforge_file *f)
{
	read_file_close(f);
}

const struct etwforge_file_info *etwforge_file_info(const struct etwforge_file *f)
{
	return read_file_info(f);
}

int etwforge_file_set_max_wait_reason(struct etwforge_file *f, unsigned v)
{
	return read_file_set_max_wait_reason(f, v);
}

unsigned etwforge_file_damage_count(const struct etwforge_file *f)
{
	return read_file_damage_count(f);
}

const struct etwforge_damage *etwforge_file_damage_at(const struct etwforge_file *f, unsigned i)
{
	return read_file_damage_at(f, i);
}

struct etwforge_iter *etwforge_iter_new(struct etwforge_file *f, enum etwforge_order order,
					unsigned kinds, struct etwforge_error *err)
{
	return read_iter_new(f, order, kinds, err);
}

int etwforge_iter_next(struct etwforge_iter *it, const struct etwforge_event **ev,
		       struct etwforge_error *err)
{
	return read_iter_next(it, ev, err);
}

void etwforge_iter_free(struct etwforge_iter *it)
{
	read_iter_free(it);
}

size_t etwforge_event_json(const struct etwforge_event *ev, unsigned flags, char *buf, size_t cap)
{
	return read_event_json(ev, flags, buf, cap);
}

size_t etwforge_file_json(const struct etwforge_file *f, char *buf, size_t cap)
{
	return read_file_json(f, buf, cap);
}

struct etwforge_stats *etwforge_stats_new(void)
{
	/* calloc: etwforge_file_stats() then leaves the pages of zero counts untouched */
	return calloc(1, sizeof(struct etwforge_stats));
}

void etwforge_stats_free(struct etwforge_stats *st)
{
	free(st);
}

int etwforge_stats_count(const struct etwforge_stats *st, enum etwforge_stat what, unsigned index,
			 uint64_t *out)
{
	return read_stats_count(st, what, index, out);
}

int etwforge_stats_hook(const struct etwforge_stats *st, unsigned kind, bool is64, uint16_t hook,
			uint64_t *out)
{
	return read_stats_hook(st, kind, is64, hook, out);
}

int etwforge_stats_hook_next(const struct etwforge_stats *st, unsigned kind, bool is64, int from)
{
	return read_stats_hook_next(st, kind, is64, from);
}

bool etwforge_record_times(const struct etwforge_record *r, uint32_t *kernel_time,
			   uint32_t *user_time)
{
	return read_record_times(r, kernel_time, user_time);
}

const char *etwforge_payload_name(uint16_t hook)
{
	return read_payload_name(hook);
}

const char *etwforge_stats_kind_name(unsigned k)
{
	return read_stats_kind_name(k);
}

int etwforge_file_stats(struct etwforge_file *f, struct etwforge_stats *st,
			struct etwforge_error *err)
{
	return read_file_stats(f, st, err);
}

size_t etwforge_stats_json(const struct etwforge_file *f, const struct etwforge_stats *st,
			   char *buf, size_t cap)
{
	return read_stats_json(f, st, buf, cap);
}
