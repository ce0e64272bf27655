// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/stats_identity.c - the identity counts of `dump --stats`:
 * plain CSwitch records handed over by the framing pass of stats.c, the
 * rest in one pass of the iterator (CPU order: none is needed in time
 * order) that converts only the records of the kinds it asks for. A
 * thread's switches-in are kept per TID until the end, when whether any
 * Thread record named it is known: memory grows with distinct TIDs and
 * PIDs, not with the file.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/read/stats_identity.h"

/* One TID or PID: open addressing, linear probing, a power-of-two table. */
struct id_slot {
	uint32_t id;
	bool used;
	bool named; /* a Thread (or Process) record carries it */
	uint64_t switch_ins;
};

struct id_set {
	struct id_slot *v;
	size_t cap; /* power of two, 0 before the first insert */
	size_t n;
};

static size_t id_hash(uint32_t id, size_t cap)
{
	return (size_t)((id * 2654435761u) & (uint32_t)(cap - 1));
}

static int id_grow(struct id_set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 256;
	struct id_slot *v = calloc(cap, sizeof(*v));

	if (!v) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		if (s->v[i].used) {
			size_t j = id_hash(s->v[i].id, cap);

			while (v[j].used) {
				j = (j + 1) & (cap - 1);
			}
			v[j] = s->v[i];
		}
	}
	free(s->v);
	s->v = v;
	s->cap = cap;
	return 0;
}

/* The slot of @id, added if new. Return: it, or NULL (ENOMEM). */
static struct id_slot *id_get(struct id_set *s, uint32_t id)
{
	size_t j;

	if ((s->n + 1) * 2 > s->cap && id_grow(s) < 0) {
		return NULL;
	}
	for (j = id_hash(id, s->cap); s->v[j].used; j = (j + 1) & (s->cap - 1)) {
		if (s->v[j].id == id) {
			return &s->v[j];
		}
	}
	s->v[j].used = true;
	s->v[j].id = id;
	s->n++;
	return &s->v[j];
}

/* Count @ev into the sets and @out. Return: 0 or -ENOMEM. */
static int count_event(const struct etwforge_event *ev, struct id_set *tids, struct id_set *pids,
		       struct stats_identity *out)
{
	struct id_slot *slot;
	uint32_t new_tid;

	switch (ev->kind) {
	case ETWFORGE_EV_PROCESS:
		if (ev->rec->hook == 0x030B) {
			return 0; /* terminate: no record of the process, a note of its end */
		}
		slot = id_get(pids, ev->u.process.pid);
		if (!slot) {
			return -ENOMEM;
		}
		slot->named = true;
		return 0;
	case ETWFORGE_EV_THREAD:
		slot = id_get(tids, ev->u.thread.tid);
		if (!slot) {
			return -ENOMEM;
		}
		if (!slot->named) {
			slot->named = true;
			out->threads++;
		}
		return 0;
	case ETWFORGE_EV_READY:
		out->ready++;
		return 0;
	case ETWFORGE_EV_SAMPLE:
		out->samples++;
		return 0;
	case ETWFORGE_EV_CSWITCH:
		new_tid = ev->u.cswitch.new_tid;
		break;
	case ETWFORGE_EV_COMPACT:
		if (!ev->u.compact.new_tid_known) {
			return 0;
		}
		new_tid = ev->u.compact.new_tid;
		break;
	default:
		return 0;
	}
	if (new_tid == 0) {
		return 0;
	}
	slot = id_get(tids, new_tid);
	if (!slot) {
		return -ENOMEM;
	}
	slot->switch_ins++;
	return 0;
}

/* The sets both passes fill. */
struct stats_ident {
	struct id_set tids;
	struct id_set pids;
	struct stats_identity counts;
};

struct stats_ident *stats_identity_new(void)
{
	return calloc(1, sizeof(struct stats_ident));
}

int stats_identity_switch_in(struct stats_ident *si, uint32_t new_tid)
{
	struct id_slot *slot;

	if (new_tid == 0) {
		return 0;
	}
	slot = id_get(&si->tids, new_tid);
	if (!slot) {
		return -ENOMEM;
	}
	slot->switch_ins++;
	return 0;
}

int stats_identity_finish(struct stats_ident *si, struct etwforge_file *f,
			  struct stats_identity *out, struct etwforge_error *err)
{
	/* plain CSwitch records were counted by the framing pass (stats_identity_switch_in) */
	unsigned kinds = ETWFORGE_EV_PROCESS | ETWFORGE_EV_THREAD | ETWFORGE_EV_READY |
			 ETWFORGE_EV_SAMPLE | ETWFORGE_EV_COMPACT;
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	int rc, first = 0;

	*out = (struct stats_identity){0};
	it = read_iter_new(f, ETWFORGE_ORDER_CPU, kinds, err);
	if (!it) {
		return -ENOMEM; /* @err says it */
	}
	while ((rc = read_iter_next(it, &ev, first ? NULL : err)) != 0) {
		if (rc < 0) {
			if (!read_file_keep_going(f)) {
				first = rc;
				break;
			}
			first = first ? first : rc;
			continue;
		}
		if (count_event(ev, &si->tids, &si->pids, &si->counts) < 0) {
			first = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			break;
		}
	}
	read_iter_free(it);
	*out = si->counts;
	out->processes = si->pids.n;
	for (size_t i = 0; i < si->tids.cap; i++) {
		const struct id_slot *sl = &si->tids.v[i];

		if (sl->used) {
			*(sl->named ? &out->attributed : &out->unattributed) += sl->switch_ins;
		}
	}
	return first;
}

void stats_identity_free(struct stats_ident *si)
{
	if (si) {
		free(si->tids.v);
		free(si->pids.v);
		free(si);
	}
}
