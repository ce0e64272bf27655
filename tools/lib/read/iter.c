// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/iter.c - the event iterator (read.h): its constructor,
 * and the file and CPU orders; the time order is iter_time.c's.
 *
 *   ETWFORGE_ORDER_FILE / _CPU
 *   buffer list (file order, or 0 then each CPU's by SequenceNumber)
 *     for each buffer: BUFFER event
 *       for each record: RECORD event
 *         plain CSwitch / SpinLock: their decoded event
 *         an identity record (process, thread, ...): its decoded event,
 *         from its table (producer/records/), its strings in UTF-8
 *         compact batch: its switches, expanded (the new thread of the
 *         last one taken from the next batch on the CPU), queued
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/read/dump_compact.h"
#include "tools/lib/read/read.h"
#include "tools/lib/read/read_internal.h"
#include "writer/etl_reader.h"

#define QUEUE_MAX 512 /* switches of one batch: (0x400 - 0x68) / 2 at most */

struct iter_list {
	struct etwforge_file *f;
	enum etwforge_order order;
	unsigned kinds;
	unsigned *list; /* buffer slots to walk */
	unsigned nlist;
	unsigned li;
	bool in_buffer;
	size_t pos;
	struct dump_expander *x;
	struct etwforge_event queue[QUEUE_MAX];
	unsigned qhead, qlen;
	struct etl_error qerr; /* a batch that did not expand: said after its record */
	bool have_qerr;
	struct rec_store batch;	  /* the batch record of the queued switches */
	struct rec_store cur;	  /* the record of the event handed out */
	struct etwforge_event ev; /* the event handed out (but a queued switch) */
};

struct etwforge_iter {
	enum etwforge_order order;
	struct iter_list *list;
	struct iter_time *time;
};

static void queue_compact(void *ctx, const struct dec_event *ev)
{
	struct iter_list *it = ctx;

	if (it->qlen < QUEUE_MAX) {
		rv_conv_dec_event(ev, &it->batch, NULL,
				  &it->queue[(it->qhead + it->qlen++) % QUEUE_MAX]);
	}
}

void iter_list_free(struct iter_list *it)
{
	if (!it) {
		return;
	}
	dump_expander_destroy(it->x);
	rv_store_free(&it->cur);
	rv_store_free(&it->batch);
	free(it->list);
	free(it);
}

struct iter_list *iter_list_new(struct etwforge_file *f, enum etwforge_order order, unsigned kinds)
{
	struct iter_list *it = calloc(1, sizeof(*it));
	unsigned n = etl_reader_buffer_count(f->d), norder;
	const unsigned *order_of = etl_reader_cpu_order(f->d, &norder);

	if (!it) {
		return NULL;
	}
	it->f = f;
	it->order = order;
	it->kinds = kinds;
	it->list = calloc(n ? n : 1, sizeof(*it->list));
	if (!it->list) {
		iter_list_free(it);
		return NULL;
	}
	if (order == ETWFORGE_ORDER_FILE) {
		for (unsigned i = 0; i < n; i++) {
			it->list[it->nlist++] = i;
		}
	} else {
		it->list[it->nlist++] = 0;
		for (unsigned i = 0; i < norder && it->nlist < n; i++) {
			it->list[it->nlist++] = order_of[i];
		}
	}
	if (kinds & ETWFORGE_EV_COMPACT) {
		it->x = dump_expander_create(f->d, f->info.max_wait_reason);
		if (!it->x) {
			iter_list_free(it);
			return NULL;
		}
	}
	return it;
}

int iter_list_next(struct iter_list *it, const struct etwforge_event **out,
		   struct etwforge_error *err)
{
	struct etwforge_event *ev = &it->ev;
	struct etl_error e;
	struct etl_record r;

	*out = ev;
	for (;;) {
		if (it->qlen) {
			*out = &it->queue[it->qhead];
			it->batch.rec.buffer =
				it->list[it->li - 1] < etl_reader_buffer_count(it->f->d)
					? etl_reader_buffer(it->f->d, it->list[it->li - 1])->index
					: 0;
			it->qhead = (it->qhead + 1) % QUEUE_MAX;
			it->qlen--;
			return 1;
		}
		if (it->have_qerr) {
			it->have_qerr = false;
			return read_reader_fail(err, &it->qerr, -EINVAL);
		}
		if (it->in_buffer) {
			const struct etl_buffer *b =
				etl_reader_buffer(it->f->d, it->list[it->li - 1]);
			int rc = etl_buffer_next(it->f->d, b, &it->pos, &r, &e);

			if (rc < 0) {
				it->in_buffer = false;
				return read_reader_fail(err, &e, -EINVAL);
			}
			if (rc == 0) {
				it->in_buffer = false;
				continue;
			}
			if ((it->kinds & ETWFORGE_EV_COMPACT) && r.kind == ETL_KIND_PERFINFO &&
			    r.hook_id == ETW_HOOK_CSWITCH_BATCH) {
				it->qhead = 0;
				it->qlen = 0;
				if (dump_expander_batch(it->x, &r, queue_compact, it, &it->qerr) <
				    0) {
					it->have_qerr = true;
				}
			}
			if (it->kinds & ETWFORGE_EV_RECORD) {
				memset(ev, 0, sizeof(*ev));
				ev->kind = ETWFORGE_EV_RECORD;
				ev->cpu = r.cpu;
				ev->ts = r.ts;
				ev->file_offset = r.file_offset;
				rv_conv_record(&r, b->index, &it->cur);
				ev->rec = &it->cur.rec;
				return 1;
			}
			if (rv_record_event(it->kinds, &r, b->index, &it->cur, ev)) {
				return 1;
			}
			continue;
		}
		if (it->li >= it->nlist) {
			return 0;
		}
		{
			const struct etl_buffer *b =
				etl_reader_buffer(it->f->d, it->list[it->li++]);

			it->in_buffer = true;
			it->pos = 0;
			if (it->kinds & ETWFORGE_EV_BUFFER) {
				rv_conv_buffer(b, ev);
				return 1;
			}
		}
	}
}

/* The iterator of read_iter_new(); @raw: read_iter_new_raw()'s. */
static struct etwforge_iter *iter_new(struct etwforge_file *f, enum etwforge_order order,
				      unsigned kinds, bool raw, struct etwforge_error *err)
{
	struct etwforge_iter *it;

	if (!f || order > ETWFORGE_ORDER_TIME || !kinds || (kinds & ~ETWFORGE_EV_ALL)) {
		error_fail(err, -EINVAL, ERR_INPUT, "etwforge_iter_new: bad order or kinds");
		errno = EINVAL;
		return NULL;
	}
	if (order == ETWFORGE_ORDER_TIME && (kinds & (ETWFORGE_EV_BUFFER | ETWFORGE_EV_RECORD))) {
		error_fail(err, -EINVAL, ERR_INPUT,
			   "etwforge_iter_new: the time order gives events, not buffers or "
			   "records: ask the file or CPU order for those");
		errno = EINVAL;
		return NULL;
	}
	it = calloc(1, sizeof(*it));
	if (it) {
		it->order = order;
		if (order == ETWFORGE_ORDER_TIME) {
			it->time = iter_time_new(f, kinds, raw);
		} else {
			it->list = iter_list_new(f, order, kinds);
		}
	}
	if (!it || (!it->time && !it->list)) {
		read_iter_free(it);
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	error_ok(err);
	return it;
}

struct etwforge_iter *read_iter_new(struct etwforge_file *f, enum etwforge_order order,
				    unsigned kinds, struct etwforge_error *err)
{
	return iter_new(f, order, kinds, false, err);
}

struct etwforge_iter *read_iter_new_raw(struct etwforge_file *f, unsigned kinds,
					struct etwforge_error *err)
{
	return iter_new(f, ETWFORGE_ORDER_TIME, kinds, true, err);
}

int read_iter_next_raw(struct etwforge_iter *it, const struct etwforge_event **ev,
		       const struct read_switch **sw, struct etwforge_error *err)
{
	if (it->time) {
		return iter_time_next_raw(it->time, ev, sw, err);
	}
	*sw = NULL;
	return iter_list_next(it->list, ev, err);
}

int read_iter_next(struct etwforge_iter *it, const struct etwforge_event **ev,
		   struct etwforge_error *err)
{
	if (it->time) {
		return iter_time_next(it->time, ev, err);
	}
	return iter_list_next(it->list, ev, err);
}

void read_iter_free(struct etwforge_iter *it)
{
	if (!it) {
		return;
	}
	iter_list_free(it->list);
	iter_time_free(it->time);
	free(it);
}
