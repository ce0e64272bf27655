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

int etwforge_iter_switches(struct etwforge_iter *it, const struct etwforge_switch_columns *cols,
			   size_t n, size_t *got, struct etwforge_error *err)
{
	struct etwforge_switch_columns c;
	const struct etwforge_event *ev;
	size_t k = 0;
	int rc;

	*got = 0;
	if ((rc = sized_in(&c, sizeof(c), cols, SIZED_FIRST_END(struct etwforge_switch_columns, ts),
			   "struct etwforge_switch_columns", err)) < 0) {
		return rc;
	}
	while (k < n && (rc = read_iter_next(it, &ev, err)) > 0) {
		uint32_t new_tid, wait;
		int8_t pri;
		uint8_t state, reason, form, known = 1;

		if (ev->kind == ETWFORGE_EV_CSWITCH) {
			new_tid = ev->u.cswitch.new_tid;
			pri = ev->u.cswitch.old_pri;
			state = ev->u.cswitch.old_state;
			reason = ev->u.cswitch.old_wait_reason;
			wait = ev->u.cswitch.new_wait_time;
			form = ETWFORGE_FORM_PLAIN;
		} else if (ev->kind == ETWFORGE_EV_COMPACT) {
			const struct etwforge_compact *cp = &ev->u.compact;

			known = cp->new_tid_known;
			new_tid = known ? cp->new_tid : 0;
			pri = cp->old_pri;
			state = cp->old_state;
			reason = cp->old_wait_reason;
			wait = cp->wait_time;
			form = (uint8_t)cp->form_code;
		} else {
			continue;
		}
		if (c.ts) {
			c.ts[k] = ev->ts;
		}
		if (c.cpu) {
			c.cpu[k] = ev->cpu;
		}
		if (c.old_tid) {
			c.old_tid[k] = ev->kind == ETWFORGE_EV_CSWITCH ? ev->u.cswitch.old_tid
								       : ev->u.compact.old_tid;
		}
		if (c.new_tid) {
			c.new_tid[k] = new_tid;
		}
		if (c.new_tid_known) {
			c.new_tid_known[k] = known;
		}
		if (c.old_pri) {
			c.old_pri[k] = pri;
		}
		if (c.old_state) {
			c.old_state[k] = state;
		}
		if (c.old_wait_reason) {
			c.old_wait_reason[k] = reason;
		}
		if (c.wait_time) {
			c.wait_time[k] = wait;
		}
		if (c.form) {
			c.form[k] = form;
		}
		if (c.file_offset) {
			c.file_offset[k] = ev->file_offset;
		}
		k++;
	}
	*got = k;
	return rc < 0 ? rc : 0;
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

const char *etwforge_record_name(const struct etwforge_record *r)
{
	return r ? read_record_name(r) : NULL;
}
