// SPDX-License-Identifier: MIT
/*
 * tools/lib/fuzz/corpus_set.c - the corpus in memory (corpus_set.h): its
 * files and streams, and each file's expected decode - what `etwforge dump
 * --jsonl` prints for it, made through the read room's calls, the same
 * `dump --jsonl` makes (tests/test_corpus.c runs the real command and
 * compares) - with the offsets of the records its stream marked.
 */
#include "tools/lib/fuzz/corpus_set.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/json_out.h"
#include "tools/lib/read/read.h"

struct corpus_file *corpus_add_file(struct corpus *c)
{
	if (c->n == c->cap) {
		unsigned cap = c->cap ? 2 * c->cap : 64;
		struct corpus_file *n = realloc(c->files, cap * sizeof(*n));

		if (!n) {
			return NULL;
		}
		c->files = n;
		c->cap = cap;
	}
	memset(&c->files[c->n], 0, sizeof(c->files[0]));
	c->files[c->n].stream = -1;
	return &c->files[c->n++];
}

struct corpus_file *corpus_find(struct corpus *c, const char *id)
{
	for (unsigned i = 0; i < c->n; i++) {
		if (!strcmp(c->files[i].id, id)) {
			return &c->files[i];
		}
	}
	return NULL;
}

void corpus_free(struct corpus *c)
{
	for (unsigned i = 0; i < c->n; i++) {
		free(c->files[i].data);
		free(c->files[i].expected);
	}
	for (unsigned i = 0; i < c->nstreams; i++) {
		free(c->streams[i].text);
	}
	free(c->files);
	free(c->streams);
	memset(c, 0, sizeof(*c));
}

/* ---- the expected decode and the offsets of the marks ------------------------ */

void text_add(struct text *t, const char *s, size_t n)
{
	if (t->oom) {
		return;
	}
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *p;

		while (cap < t->len + n + 1) {
			cap *= 2;
		}
		p = realloc(t->p, cap);
		if (!p) {
			t->oom = true;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = '\0';
}

void text_add_json(struct text *t, struct jout *j, const char *buf, size_t cap)
{
	size_t n = jout_finish(j);

	text_add(t, buf, n < cap ? n : cap - 1);
	text_add(t, "\n", 1);
}

char *text_take(struct text *t, size_t *len)
{
	if (t->oom) {
		free(t->p);
		t->p = NULL;
		return NULL;
	}
	*len = t->len;
	return t->p;
}

/* One JSON line from @fn (an etwforge_*_json function), the buffer grown to fit. */
static void add_json_line(struct text *t,
			  size_t (*ev_fn)(const struct etwforge_event *, unsigned, char *, size_t),
			  const struct etwforge_event *ev, const struct etwforge_file *f)
{
	char small[8192];
	char *buf = small;
	size_t n =
		ev ? ev_fn(ev, 0, small, sizeof(small)) : read_file_json(f, small, sizeof(small));

	if (n >= sizeof(small)) {
		buf = malloc(n + 1);
		if (!buf) {
			t->oom = true;
			return;
		}
		n = ev ? ev_fn(ev, 0, buf, n + 1) : read_file_json(f, buf, n + 1);
	}
	text_add(t, buf, n);
	text_add(t, "\n", 1);
	if (buf != small) {
		free(buf);
	}
}

/* What `dump --jsonl` prints on standard output for @fi (it stops at damage). */
static int expected_decode(struct corpus_file *fi)
{
	struct etwforge_error err;
	const struct etwforge_event *ev;
	struct etwforge_iter *it;
	struct etwforge_file *f;
	struct text t = {0};
	int rc;

	text_add(&t, "", 0);
	f = read_file_open_mem(fi->data, fi->len, fi->file, ETWFORGE_OPEN_SALVAGE, &err);
	if (!f) {
		goto done; /* dump prints only the error line */
	}
	add_json_line(&t, NULL, NULL, f);
	it = read_iter_new(f, ETWFORGE_ORDER_CPU,
			   ETWFORGE_EV_BUFFER | ETWFORGE_EV_RECORD | ETWFORGE_EV_COMPACT, &err);
	while (it && (rc = read_iter_next(it, &ev, &err)) > 0) {
		if (ev->kind != ETWFORGE_EV_BUFFER) {
			add_json_line(&t, read_event_json, ev, f);
		}
	}
	read_iter_free(it);
	read_file_close(f);
done:
	if (t.oom) {
		free(t.p);
		return -ENOMEM;
	}
	fi->expected = t.p;
	fi->expected_len = t.len;
	return 0;
}

/* The records of a hook each record mark counts, on its CPU (a pass of their own). */
static void find_record_marks(struct corpus_file *fi, const struct corpus_mark *marks,
			      struct etwforge_file *f)
{
	struct etwforge_error err;
	const struct etwforge_event *ev;
	struct etwforge_iter *it;
	uint64_t nrec[CORPUS_MARKS_MAX] = {0};

	it = read_iter_new(f, ETWFORGE_ORDER_CPU, ETWFORGE_EV_RECORD, &err);
	while (it && read_iter_next(it, &ev, &err) > 0) {
		for (unsigned k = 0; k < fi->noffs; k++) {
			if (marks[k].kind != CORPUS_MARK_RECORD || marks[k].cpu != ev->cpu ||
			    ev->kind != ETWFORGE_EV_RECORD || !ev->rec || !ev->rec->has_hook ||
			    ev->rec->hook != marks[k].hook) {
				continue;
			}
			if (nrec[k]++ == marks[k].index) {
				fi->offs[k].found = true;
				fi->offs[k].record = ev->file_offset;
			}
		}
	}
	read_iter_free(it);
}

/* Where each mark's record is: a CPU's switches and spin locks counted in order, and records of a hook. */
static void find_marks(struct corpus_file *fi, const struct corpus_mark *marks, unsigned nmarks)
{
	struct etwforge_error err;
	const struct etwforge_event *ev;
	struct etwforge_iter *it;
	struct etwforge_file *f;
	uint64_t nsw[64] = {0}, nspin[64] = {0};
	bool records = false;

	fi->noffs = nmarks < CORPUS_MARKS_MAX ? nmarks : CORPUS_MARKS_MAX;
	for (unsigned k = 0; k < fi->noffs; k++) {
		snprintf(fi->offs[k].what, sizeof(fi->offs[k].what), "%s", marks[k].what);
		records = records || marks[k].kind == CORPUS_MARK_RECORD;
	}
	f = read_file_open_mem(fi->data, fi->len, fi->file, 0, &err);
	if (!f) {
		return;
	}
	it = read_iter_new(f, ETWFORGE_ORDER_CPU,
			   ETWFORGE_EV_CSWITCH | ETWFORGE_EV_COMPACT | ETWFORGE_EV_SPINLOCK, &err);
	while (it && read_iter_next(it, &ev, &err) > 0) {
		bool spin = ev->kind == ETWFORGE_EV_SPINLOCK;
		uint64_t *count = spin ? nspin : nsw;

		if (ev->cpu >= 64) {
			continue;
		}
		for (unsigned k = 0; k < fi->noffs; k++) {
			struct corpus_offset *o = &fi->offs[k];

			if (marks[k].kind == CORPUS_MARK_RECORD || marks[k].cpu != ev->cpu ||
			    marks[k].index != count[ev->cpu] ||
			    (marks[k].kind == CORPUS_MARK_SPIN) != spin) {
				continue;
			}
			o->found = true;
			o->record = ev->file_offset;
			if (ev->kind == ETWFORGE_EV_COMPACT) {
				o->in_batch = true;
				o->batch = ev->u.compact.batch_offset;
				o->form = ev->u.compact.form;
			}
		}
		count[ev->cpu]++;
	}
	read_iter_free(it);
	if (records) {
		find_record_marks(fi, marks, f);
	}
	read_file_close(f);
}

int corpus_decode(struct corpus_file *f, const struct corpus_mark *marks, unsigned nmarks)
{
	if (marks) {
		find_marks(f, marks, nmarks);
	}
	return expected_decode(f);
}
