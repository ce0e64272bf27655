// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/images.c - the image table of a file (see images.h):
 * its Image, ImageID and DbgID records gathered in CPU order, sorted by
 * time (an identity record of KernelTraceControl comes right before its
 * image record, with its time), cut into rows per address space and base;
 * each address space's rows sorted by base for the lookups, which find
 * the rows mapping an address and take the one mapped at the time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/images.h"
#include "tools/lib/analysis/tables.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/grow.h"

#define HOOK_PROCESS_END 0x0302u

enum rec_kind {
	R_LOAD,	    /* 0x030A */
	R_UNLOAD,   /* 0x1402 */
	R_DCSTART,  /* 0x1403 */
	R_DCEND,    /* 0x1404 */
	R_IMAGE_ID, /* KernelTraceControl ImageID: the file's TimeDateStamp */
	R_DBGID,    /* KernelTraceControl DbgID_RSDS / _ILRSDS: the PDB */
	R_PROC_END, /* Process End 0x0302: its images end */
};

struct an_image_rec {
	enum rec_kind kind;
	uint64_t ts;
	size_t seq;
	uint32_t pid;
	uint64_t base, size;
	uint32_t timestamp, checksum;
	uint32_t age;
	char *path; /* R_LOAD...R_DCEND: the path; R_DBGID: the PDB's name; R_IMAGE_ID: none */
	char *guid; /* R_DBGID */
};

/* One address space's rows, sorted by base (an_images_finish()). */
struct an_space {
	size_t *rows;
	size_t n, cap;
	uint64_t max_size; /* its largest image: how far below an address a row may start */
};

void an_images_init(struct an_images *im, unsigned pointer_size)
{
	memset(im, 0, sizeof(*im));
	im->spaces.elem_size = sizeof(struct an_space);
	im->kernel_at = pointer_size == 4 ? 0x80000000u : 0xFFFF800000000000u;
	an_symbols_init(&im->syms);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The name alone of a Windows path (after its last \ or /). */
static const char *base_name(const char *p)
{
	const char *b = p;

	for (const char *q = p; *q; q++) {
		if (*q == '\\' || *q == '/') {
			b = q + 1;
		}
	}
	return b;
}

int an_images_note(struct an_images *im, const struct etwforge_event *ev, size_t seq)
{
	struct an_image_rec r = {.ts = ev->ts, .seq = seq}, *v;
	const char *path = NULL, *guid = NULL;

	switch (ev->kind) {
	case ETWFORGE_EV_IMAGE: {
		const struct etwforge_image *m = &ev->u.image;

		switch (ev->rec->hook) {
		case 0x030A:
			r.kind = R_LOAD;
			break;
		case 0x1402:
			r.kind = R_UNLOAD;
			break;
		case 0x1403:
			r.kind = R_DCSTART;
			break;
		case 0x1404:
			r.kind = R_DCEND;
			break;
		default:
			return 0; /* KernelBase, HypercallPage: no image */
		}
		r.pid = m->pid;
		r.base = m->base;
		r.size = m->size;
		r.timestamp = m->timestamp;
		r.checksum = m->checksum;
		path = m->file_name;
		break;
	}
	case ETWFORGE_EV_IMAGE_ID:
		r.kind = R_IMAGE_ID;
		r.pid = ev->u.image_id.pid;
		r.base = ev->u.image_id.base;
		r.timestamp = ev->u.image_id.timestamp;
		break;
	case ETWFORGE_EV_DBGID:
		if (!ev->u.dbgid.guid) {
			return 0; /* None: no PDB */
		}
		r.kind = R_DBGID;
		r.pid = ev->u.dbgid.pid;
		r.base = ev->u.dbgid.base;
		r.age = ev->u.dbgid.age;
		path = base_name(ev->u.dbgid.pdb ? ev->u.dbgid.pdb : "");
		guid = ev->u.dbgid.guid;
		break;
	case ETWFORGE_EV_PROCESS:
		if (ev->rec->hook != HOOK_PROCESS_END) {
			return 0;
		}
		r.kind = R_PROC_END;
		r.pid = ev->u.process.pid;
		break;
	default:
		return 0;
	}
	v = grow_room(im->recs, &im->cap_recs, im->nrecs, sizeof(*v), 256);
	if (!v) {
		return -ENOMEM;
	}
	im->recs = v;
	r.path = dup_or_null(path);
	r.guid = dup_or_null(guid);
	if ((path && !r.path) || (guid && !r.guid)) {
		free(r.path);
		free(r.guid);
		return -ENOMEM;
	}
	im->recs[im->nrecs++] = r;
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct an_image_rec *x = a, *y = b;

	if (x->ts != y->ts) {
		return x->ts < y->ts ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void recs_free(struct an_images *im)
{
	for (size_t i = 0; i < im->nrecs; i++) {
		free(im->recs[i].path);
		free(im->recs[i].guid);
	}
	free(im->recs);
	im->recs = NULL;
	im->nrecs = im->cap_recs = 0;
}

/* What is kept per (pid, base) while cutting rows: the row open there, the identity pending. */
struct slot {
	uint32_t pid;
	uint64_t base;
	int64_t open; /* the row mapped there now, -1 none */
	int64_t last; /* the latest row there, -1 none */
	uint32_t timestamp;
	char *pdb, *guid; /* the identity a merge wrote before the image record */
	uint32_t age;
};

/* The rows open in one address space: what a Load over them or the process's End closes. */
struct open_list {
	size_t *rows;
	size_t n, cap;
};

/* A small map from (pid, base) to its slot, open addressing; per PID its open rows. */
struct slots {
	struct slot *v;
	bool *used;
	size_t cap, n;
	struct id_map open; /* PID -> struct open_list */
};

static uint64_t mix(uint32_t pid, uint64_t base)
{
	return an_mix64(base ^ ((uint64_t)pid << 32 | pid));
}

static struct slot *slot_of(struct slots *s, uint32_t pid, uint64_t base)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct slot *v = calloc(cap, sizeof(*v));
		bool *used = calloc(cap, sizeof(*used));

		if (!v || !used) {
			free(v);
			free(used);
			return NULL;
		}
		for (size_t k = 0; k < s->cap; k++) {
			if (s->used[k]) {
				for (i = mix(s->v[k].pid, s->v[k].base) & (cap - 1); used[i];
				     i = (i + 1) & (cap - 1)) {
				}
				used[i] = true;
				v[i] = s->v[k];
			}
		}
		free(s->v);
		free(s->used);
		s->v = v;
		s->used = used;
		s->cap = cap;
	}
	for (i = mix(pid, base) & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1)) {
		if (s->v[i].pid == pid && s->v[i].base == base) {
			return &s->v[i];
		}
	}
	s->used[i] = true;
	s->n++;
	s->v[i] = (struct slot){.pid = pid, .base = base, .open = -1, .last = -1};
	return &s->v[i];
}

/* The slot of (@pid, @base), NULL none (a lookup: the table does not move). */
static struct slot *slot_find(struct slots *s, uint32_t pid, uint64_t base)
{
	if (!s->cap) {
		return NULL;
	}
	for (size_t i = mix(pid, base) & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1)) {
		if (s->v[i].pid == pid && s->v[i].base == base) {
			return &s->v[i];
		}
	}
	return NULL;
}

/* Row @row of @pid is open. Return: 0, -ENOMEM. */
static int open_add(struct slots *s, uint32_t pid, size_t row)
{
	struct open_list *l = id_map_add(&s->open, pid);
	size_t *v;

	if (!l) {
		return -ENOMEM;
	}
	v = grow_room(l->rows, &l->cap, l->n, sizeof(*v), 16);
	if (!v) {
		return -ENOMEM;
	}
	l->rows = v;
	l->rows[l->n++] = row;
	return 0;
}

/* Row @row of @pid is no longer open. */
static void open_del(struct slots *s, uint32_t pid, size_t row)
{
	struct open_list *l = id_map_get(&s->open, pid);

	for (size_t i = 0; l && i < l->n; i++) {
		if (l->rows[i] == row) {
			l->rows[i] = l->rows[--l->n];
			return;
		}
	}
}

static void slots_free(struct slots *s)
{
	for (size_t k = 0; k < s->open.cap; k++) {
		uint32_t pid;
		struct open_list *l = id_map_at(&s->open, k, &pid);

		if (l) {
			free(l->rows);
		}
	}
	id_map_free(&s->open);
	for (size_t i = 0; i < s->cap; i++) {
		if (s->used[i]) {
			free(s->v[i].pdb);
			free(s->v[i].guid);
		}
	}
	free(s->v);
	free(s->used);
}

/* A new row of the image of @r, mapped from @lo. Return: its index, -1 out of memory. */
static int64_t new_row(struct an_images *im, struct an_image_rec *r, uint64_t lo)
{
	struct an_image *m = grow_room(im->rows, &im->cap, im->n, sizeof(*m), 64);

	if (!m) {
		return -1;
	}
	im->rows = m;
	m += im->n;
	memset(m, 0, sizeof(*m));
	m->lo = lo;
	m->hi = UINT64_MAX;
	m->sym = -1;
	m->path = r->path;
	r->path = NULL;
	m->pub.pid = r->pid;
	m->pub.base = r->base;
	m->pub.size = r->size;
	m->pub.timestamp = r->timestamp;
	m->pub.checksum = r->checksum;
	m->pub.process = -1;
	return (int64_t)im->n++;
}

/* Row @row takes the identity pending at @s (the merge's records before its image record). */
static int take_identity(struct an_images *im, int64_t row, struct slot *s)
{
	struct an_image *m = &im->rows[row];

	if (s->timestamp && !m->pub.timestamp) {
		m->pub.timestamp = s->timestamp;
	}
	if (s->guid && !m->guid) {
		m->guid = s->guid;
		m->pdb = s->pdb;
		m->pub.age = s->age;
		s->guid = s->pdb = NULL;
	}
	/* taken: the next records at this base say their own */
	free(s->guid);
	free(s->pdb);
	s->guid = s->pdb = NULL;
	s->timestamp = 0;
	return 0;
}

/* Do [@a, @a + @an) and [@b, @b + @bn) overlap (no wrap past 2^64 assumed)? */
static bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return a <= b ? b - a < an : a - b < bn;
}

/* Row @row ends at @hi: it is open no more, nor is its slot. */
static void close_row(struct an_images *im, struct slots *s, size_t row, uint64_t hi)
{
	struct an_image *m = &im->rows[row];
	struct slot *o = slot_find(s, m->pub.pid, m->pub.base);

	m->hi = hi;
	if (o && o->open == (int64_t)row) {
		o->open = -1;
	}
	open_del(s, m->pub.pid, row);
}

/* The open rows of @pid overlapping [@base, @base + @size) end at @ts - 1 (a Load over them). */
static void end_overlaps(struct an_images *im, struct slots *s, uint32_t pid, uint64_t base,
			 uint64_t size, uint64_t ts)
{
	struct open_list *l = id_map_get(&s->open, pid);

	for (size_t i = 0; l && i < l->n;) {
		const struct an_image *m = &im->rows[l->rows[i]];

		if (overlap(m->pub.base, m->pub.size, base, size)) {
			close_row(im, s, l->rows[i], ts ? ts - 1 : 0); /* swaps the last into i */
		} else {
			i++;
		}
	}
}

/* The rows, from the records sorted by time. Return: 0, or -ENOMEM. */
static int cut(struct an_images *im, struct slots *s)
{
	for (size_t i = 0; i < im->nrecs; i++) {
		struct an_image_rec *r = &im->recs[i];
		struct slot *o;

		if (r->kind == R_PROC_END) {
			struct open_list *l = id_map_get(&s->open, r->pid);

			while (l && l->n) {
				close_row(im, s, l->rows[l->n - 1], r->ts);
			}
			continue;
		}
		o = slot_of(s, r->pid, r->base);
		if (!o) {
			return -ENOMEM;
		}
		switch (r->kind) {
		case R_IMAGE_ID:
			o->timestamp = r->timestamp;
			continue;
		case R_DBGID:
			free(o->pdb);
			free(o->guid);
			o->pdb = r->path;
			o->guid = r->guid;
			o->age = r->age;
			r->path = r->guid = NULL;
			continue;
		case R_LOAD:
			if (o->open >= 0) {
				close_row(im, s, (size_t)o->open, r->ts ? r->ts - 1 : 0);
			}
			end_overlaps(im, s, r->pid, r->base, r->size, r->ts);
			o->open = new_row(im, r, r->ts);
			if (o->open >= 0 && open_add(s, r->pid, (size_t)o->open) < 0) {
				return -ENOMEM;
			}
			break;
		case R_DCSTART:
		case R_DCEND:
			if (o->open < 0) {
				/* mapped before the trace, or since the end of its last row */
				uint64_t lo = o->last >= 0 ? im->rows[o->last].hi + 1 : 0;

				o->open = new_row(im, r, lo);
				if (o->open >= 0 && open_add(s, r->pid, (size_t)o->open) < 0) {
					return -ENOMEM;
				}
			}
			break;
		case R_UNLOAD:
			if (o->open < 0 && o->last >= 0) {
				im->unmatched++; /* unloaded twice */
				continue;
			}
			if (o->open < 0) {
				o->open = new_row(im, r, 0); /* mapped before the trace */
			} else {
				open_del(s, r->pid, (size_t)o->open);
			}
			if (o->open >= 0) {
				im->rows[o->open].hi = r->ts;
			}
			break;
		default:
			continue;
		}
		if (o->open < 0) {
			return -ENOMEM;
		}
		o->last = o->open;
		if (take_identity(im, o->open, o) < 0) {
			return -ENOMEM;
		}
		if (r->kind == R_UNLOAD) {
			o->open = -1;
		}
	}
	return 0;
}

/* The order of an address space's rows: by base, then by time. */
static const struct an_images *sort_im;

static int by_base(const void *a, const void *b)
{
	const struct an_image *x = &sort_im->rows[*(const size_t *)a];
	const struct an_image *y = &sort_im->rows[*(const size_t *)b];

	if (x->pub.base != y->pub.base) {
		return x->pub.base < y->pub.base ? -1 : 1;
	}
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Each row into its address space, the spaces sorted. Return: 0, or -ENOMEM. */
static int index_spaces(struct an_images *im)
{
	for (size_t i = 0; i < im->n; i++) {
		struct an_space *sp = id_map_add(&im->spaces, im->rows[i].pub.pid);
		size_t *v;

		if (!sp) {
			return -ENOMEM;
		}
		v = grow_room(sp->rows, &sp->cap, sp->n, sizeof(*v), 16);
		if (!v) {
			return -ENOMEM;
		}
		sp->rows = v;
		sp->rows[sp->n++] = i;
		if (im->rows[i].pub.size > sp->max_size) {
			sp->max_size = im->rows[i].pub.size;
		}
	}
	sort_im = im;
	for (size_t k = 0; k < im->spaces.cap; k++) {
		uint32_t pid;
		struct an_space *sp = id_map_at(&im->spaces, k, &pid);

		if (sp && sp->n > 1) {
			qsort(sp->rows, sp->n, sizeof(*sp->rows), by_base);
		}
	}
	sort_im = NULL;
	return 0;
}

int an_images_finish(struct an_images *im, const struct an_identity *id, const struct an_clock *c,
		     const char *symbols, struct etwforge_error *err)
{
	struct slots s = {.open.elem_size = sizeof(struct open_list)};
	int rc = 0;

	if (im->nrecs) {
		qsort(im->recs, im->nrecs, sizeof(*im->recs), by_time);
	}
	if (cut(im, &s) < 0 || index_spaces(im) < 0) {
		rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	slots_free(&s);
	recs_free(im);
	for (size_t i = 0; rc == 0 && i < im->n; i++) {
		struct an_image *m = &im->rows[i];

		m->pub.path = m->path ? m->path : "";
		m->pub.name = base_name(m->pub.path);
		m->pub.pdb = m->pdb;
		m->pub.guid = m->guid;
		m->pub.load_ns = m->lo == 0 ? INT64_MIN : an_ns(c, m->lo);
		m->pub.unload_ns = m->hi == UINT64_MAX ? INT64_MAX : an_ns(c, m->hi);
		m->pub.process = m->pub.pid ? an_process_at(id, m->pub.pid, m->lo) : -1;
		im->kernel_rows += m->pub.pid == 0;
	}
	if (rc == 0 && symbols) {
		rc = an_symbols_open(&im->syms, symbols, err);
		for (size_t i = 0; rc == 0 && i < im->n; i++) {
			struct an_image *m = &im->rows[i];

			rc = an_symbols_find(&im->syms, m->pdb, m->guid, m->pub.age, m->pub.name,
					     &m->sym, err);
			m->pub.symbols = m->sym >= 0;
		}
	}
	return rc;
}

/* The row of space @sp mapping @addr at @ts, -1 none. */
static int64_t in_space(const struct an_images *im, const struct an_space *sp, uint64_t addr,
			uint64_t ts)
{
	size_t lo = 0, hi = sp->n;

	/* the first row whose base is above @addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->rows[sp->rows[mid]].pub.base <= addr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	while (lo-- > 0) {
		const struct an_image *m = &im->rows[sp->rows[lo]];

		if (addr - m->pub.base >= sp->max_size) {
			break; /* no row further down reaches @addr */
		}
		if (addr - m->pub.base < m->pub.size && ts >= m->lo && ts <= m->hi) {
			return (int64_t)sp->rows[lo];
		}
	}
	return -1;
}

int64_t an_image_at(const struct an_images *im, uint32_t pid, uint64_t addr, uint64_t ts)
{
	const struct an_space *sp;
	int64_t r = -1;

	if (pid && (sp = id_map_get(&im->spaces, pid)) != NULL) {
		r = in_space(im, sp, addr, ts);
	}
	if (r < 0 && (sp = id_map_get(&im->spaces, 0)) != NULL) {
		r = in_space(im, sp, addr, ts);
	}
	return r;
}

void an_images_free(struct an_images *im)
{
	recs_free(im);
	for (size_t i = 0; i < im->n; i++) {
		free(im->rows[i].path);
		free(im->rows[i].pdb);
		free(im->rows[i].guid);
	}
	free(im->rows);
	for (size_t k = 0; k < im->spaces.cap; k++) {
		uint32_t pid;
		struct an_space *sp = id_map_at(&im->spaces, k, &pid);

		if (sp) {
			free(sp->rows);
		}
	}
	id_map_free(&im->spaces);
	an_symbols_free(&im->syms);
	memset(im, 0, sizeof(*im));
}
