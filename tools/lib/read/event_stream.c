// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/event_stream.c - per-CPU logical event cursor (see event_stream.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/read/event_stream.h"

void dec_cursor_init(struct dec_cursor *c, const struct etl_reader *d, unsigned cpu, unsigned kinds,
		     uint8_t max_wait_reason)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->cpu = cpu;
	c->kinds = kinds;
	c->max_wait_reason = max_wait_reason;
	c->order = etl_reader_cpu_buffers(d, cpu, &c->norder);
}

static int fail(struct etl_error *err, const struct dec_cursor *c, uint64_t off, const char *what)
{
	err->offset = off;
	err->unopened = false;
	snprintf(err->msg, sizeof(err->msg), "%s: offset 0x%llx: %s", etl_reader_name(c->d),
		 (unsigned long long)off, what);
	return -EINVAL;
}

static uint64_t payload_offset(const struct etl_record *rec)
{
	return rec->file_offset + (uint64_t)(rec->payload - rec->data);
}

/*
 * A compact switch @cc of the batch being read: the waiting one, if any, is
 * handed out (*@out) with @cc's old thread as its new one, and @cc waits in
 * the other slot (its batch record copied only when the slot held another
 * batch's switch). Return: 1 when *@out is set.
 */
static int push_compact(struct dec_cursor *c, const struct etw_cswitch_compact *cc,
			const struct dec_event **out)
{
	struct dec_event *ev = &c->sw[c->pi ^ 1u];
	int ready = c->have_pending;

	if (ready) {
		struct dec_event *p = &c->sw[c->pi];

		p->new_tid_known = true;
		p->new_tid = cc->old_tid;
		*out = p;
	}
	if (ev->rec.data != c->batch_rec.data) {
		ev->rec = c->batch_rec;
	}
	ev->kind = DEC_EV_COMPACT;
	ev->cpu = c->cpu;
	ev->u.cc = *cc;
	ev->file_offset = payload_offset(&c->batch_rec) + cc->rec_offset;
	ev->batch = c->batch_no - 1;
	ev->batch_first = c->batch_first;
	ev->new_tid_known = false;
	ev->new_tid = 0;
	c->batch_first = false;
	c->have_pending = true;
	c->pi ^= 1u;
	return ready;
}

/* The waiting compact switch, its new thread unknown, handed out. */
static const struct dec_event *take_pending(struct dec_cursor *c)
{
	c->have_pending = false;
	return &c->sw[c->pi];
}

/* @p, a compact switch, as dec_cursor_run() hands it out. */
static void switch_of(const struct dec_event *p, struct read_switch *o)
{
	o->ts = p->u.cc.ts;
	o->batch = p->batch;
	o->cpu = p->cpu;
	o->old_tid = p->u.cc.old_tid;
	o->new_tid = p->new_tid;
	o->form_code = p->u.cc.form;
	o->old_state = p->u.cc.old_state;
	o->old_wait_reason = p->u.cc.old_wait_reason;
	o->new_tid_known = p->new_tid_known;
	o->batch_first = p->batch_first;
}

unsigned dec_cursor_run(struct dec_cursor *c, struct read_switch *out, unsigned max)
{
	/* the switch waiting for its successor, handed out by copy: its slot is used again */
	struct dec_event *p = &c->sw[c->pi];
	unsigned n = 0;

	if (!c->in_batch || !c->have_pending || c->have_deferred ||
	    p->rec.data != c->batch_rec.data) {
		return 0;
	}
	while (n < max) {
		struct etw_cswitch_compact cc;
		size_t bad = 0;
		int r = etw_ccswap_expand_next(&c->it, &cc, &bad);

		if (r == 0) {
			c->in_batch = false; /* dec_cursor_peek() reads on */
			break;
		}
		if (r < 0) {
			/* as dec_cursor_peek(): the switch before the damage, then the damage */
			c->in_batch = false;
			fail(&c->deferred, c, payload_offset(&c->batch_rec) + bad,
			     "compact CSwitch record runs past the batch or names an empty "
			     "TidTable slot");
			c->have_deferred = true;
			c->have_pending = false;
			switch_of(p, &out[n++]);
			break;
		}
		p->new_tid_known = true;
		p->new_tid = cc.old_tid;
		switch_of(p, &out[n++]);
		/* push_compact() of @cc, into the same slot */
		p->kind = DEC_EV_COMPACT;
		p->cpu = c->cpu;
		p->u.cc = cc;
		p->file_offset = payload_offset(&c->batch_rec) + cc.rec_offset;
		p->batch = c->batch_no - 1;
		p->batch_first = c->batch_first;
		p->new_tid_known = false;
		p->new_tid = 0;
		c->batch_first = false;
	}
	return n;
}

int dec_cursor_next(struct dec_cursor *c, struct dec_event *ev, struct etl_error *err)
{
	const struct dec_event *p;
	int r = dec_cursor_peek(c, &p, err);

	if (r > 0) {
		*ev = *p;
	}
	return r;
}

int dec_cursor_peek(struct dec_cursor *c, const struct dec_event **out, struct etl_error *err)
{
	struct dec_event *ev = &c->one;

	if (c->have_deferred) {
		c->have_deferred = false;
		*err = c->deferred;
		return -EINVAL;
	}
	for (;;) {
		if (c->in_batch) {
			struct etw_cswitch_compact cc;
			size_t bad = 0;
			int r = etw_ccswap_expand_next(&c->it, &cc, &bad);

			if (r < 0) {
				c->in_batch = false; /* the rest of the batch is skipped */
				fail(err, c, payload_offset(&c->batch_rec) + bad,
				     "compact CSwitch record runs past the batch or names an empty "
				     "TidTable slot");
				if (c->have_pending) {
					/* the switch before the damage first, its new thread unknown */
					c->deferred = *err;
					c->have_deferred = true;
					*out = take_pending(c);
					return 1;
				}
				return -EINVAL;
			}
			if (r == 0) {
				c->in_batch = false;
				continue;
			}
			if (push_compact(c, &cc, out)) {
				return 1;
			}
			continue;
		}
		if (c->oi >= c->norder) {
			if (c->have_pending) {
				*out = take_pending(c);
				return 1;
			}
			return 0;
		}

		const struct etl_buffer *b = etl_reader_buffer(c->d, c->order[c->oi]);
		struct etl_record rec;
		int r = etl_buffer_next(c->d, b, &c->pos, &rec, err);

		if (r < 0) {
			/* the rest of that buffer is lost: the next call goes on with the next one */
			c->oi++;
			c->pos = 0;
			if (c->have_pending) {
				/* the switch before the damage first, its new thread unknown */
				c->deferred = *err;
				c->have_deferred = true;
				*out = take_pending(c);
				return 1;
			}
			return r;
		}
		if (r == 0) {
			c->oi++;
			c->pos = 0;
			continue;
		}
		if (rec.hook_id == ETW_HOOK_READY_THREAD && (c->kinds & DEC_EV_READY) &&
		    (rec.kind == ETL_KIND_SYSTEM || rec.kind == ETL_KIND_COMPACT ||
		     rec.kind == ETL_KIND_PERFINFO)) {
			struct etw_payload pl;

			etw_decode_payload(rec.hook_id, rec.version,
					   rec.is64 ? ETL_ARCH_X64 : ETL_ARCH_X86, rec.payload,
					   rec.payload_len, &pl);
			if (pl.kind != ETW_PAYLOAD_READY_THREAD) {
				continue; /* too short, another version: no event (file.c) */
			}
			memset(ev, 0, sizeof(*ev));
			ev->kind = DEC_EV_READY;
			ev->u.rt = pl.u.rt;
			ev->cpu = c->cpu;
			ev->rec = rec;
			ev->file_offset = rec.file_offset;
			*out = ev;
			return 1;
		}
		if (rec.kind != ETL_KIND_PERFINFO) {
			continue;
		}
		if ((rec.hook_id == ETW_HOOK_CSWITCH && (c->kinds & DEC_EV_CSWITCH)) ||
		    (rec.hook_id == ETW_HOOK_SPINLOCK && (c->kinds & DEC_EV_SPINLOCK))) {
			struct etw_payload pl;

			etw_decode_payload(rec.hook_id, rec.version,
					   rec.is64 ? ETL_ARCH_X64 : ETL_ARCH_X86, rec.payload,
					   rec.payload_len, &pl);
			if (pl.kind == ETW_PAYLOAD_NONE) {
				continue; /* a CSwitch version without this layout */
			}
			if (pl.kind == ETW_PAYLOAD_SHORT) {
				return fail(err, c, rec.file_offset,
					    rec.hook_id == ETW_HOOK_CSWITCH
						    ? "CSwitch payload shorter than 0x18 bytes"
						    : "SpinLock payload too short");
			}
			memset(ev, 0, sizeof(*ev));
			if (pl.kind == ETW_PAYLOAD_CSWITCH) {
				ev->kind = DEC_EV_CSWITCH;
				ev->u.cs = pl.u.cs;
			} else {
				ev->kind = DEC_EV_SPINLOCK;
				ev->u.sl = pl.u.sl;
			}
			ev->cpu = c->cpu;
			ev->rec = rec;
			ev->file_offset = rec.file_offset;
			*out = ev;
			return 1;
		}
		if (rec.hook_id == ETW_HOOK_CSWITCH_BATCH && (c->kinds & DEC_EV_COMPACT)) {
			if (etw_ccswap_expand_begin(&c->it, rec.payload, rec.payload_len,
						    c->max_wait_reason) < 0) {
				return fail(
					err, c, rec.file_offset,
					"compact CSwitch batch shorter than its 0x58-byte header");
			}
			c->in_batch = true;
			c->batch_rec = rec;
			c->batch_no++;
			c->batch_first = true;
		}
	}
}
