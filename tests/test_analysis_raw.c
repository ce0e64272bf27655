// SPDX-License-Identifier: MIT
/*
 * tests/test_analysis_raw.c - the full pass's fast path held to its general
 * one: the compact switches read raw from the time order (read_iter_new_raw(),
 * a batch's switches 16 at a time by dec_cursor_run()) give the same switches,
 * damage at the same places, and the analysis the same tables and items as
 * the public events (analysis_no_raw()), on compact and plain files of
 * generated scenarios and on copies whose batches are damaged.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"
#include "tools/lib/analysis/analysis.h"
#include "tools/lib/read/read.h"

/* Generate the default scenario, or tools/scenarios/@yaml, for @ms into @path (its sessions beside it). */
static void generate(const char *yaml, unsigned ms, const char *set, const char *path)
{
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_summary *sum = etwforge_summary_new();
	struct etwforge_error *err = etwforge_error_new();
	ETWFORGE_OPTS(etwforge_run_opts, o, .output = path);
	char dur[64], file[4096];

	cr_assert(sc && sum && err);
	if (yaml) {
		snprintf(file, sizeof(file), "%s/../tools/scenarios/%s", SOURCE_DIR, yaml);
		cr_assert_eq(etwforge_scenario_load_file(sc, file, err), 0, "%s",
			     etwforge_error_message(err));
	}
	snprintf(dur, sizeof(dur), "duration=%ums", ms);
	cr_assert_eq(etwforge_scenario_set(sc, dur, err), 0, "%s", etwforge_error_message(err));
	if (set) {
		cr_assert_eq(etwforge_scenario_set(sc, set, err), 0, "%s",
			     etwforge_error_message(err));
	}
	cr_assert_eq(etwforge_generate(sc, &o, sum, err), 0, "%s", etwforge_error_message(err));
	etwforge_error_free(err);
	etwforge_summary_free(sum);
	etwforge_scenario_free(sc);
}

/*
 * A copy of @path at @out with some of its compact batches damaged (every
 * @every-th: its TidTable emptied, its records overwritten, in turn).
 * Return: the batches damaged.
 */
static unsigned damage(const char *path, const char *out, unsigned every)
{
	struct etwforge_file *f = etwforge_file_open(path, 0, NULL);
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	unsigned n = 0, hit = 0;
	size_t len = 0;
	uint8_t *buf;
	FILE *fp = fopen(path, "rb");

	cr_assert(f && fp);
	fseek(fp, 0, SEEK_END);
	len = (size_t)ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc(len);
	cr_assert(buf && fread(buf, 1, len, fp) == len);
	fclose(fp);
	it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_RECORD, NULL);
	cr_assert_not_null(it);
	while (etwforge_iter_next(it, &ev, NULL) > 0) {
		const struct etwforge_record *r = ev->rec;
		uint64_t pay;

		if (!r->has_hook || r->hook != 0x0525 || n++ % every != every / 2) {
			continue;
		}
		pay = r->file_offset + (uint64_t)(r->payload - r->data);
		if (hit % 2 == 0 && pay + 0x48 <= len) {
			memset(buf + pay + 8, 0,
			       64); /* the TidTable: every record names an empty slot */
		} else if (pay + 0x58 + 24 <= len && r->payload_len >= 0x58 + 24) {
			memset(buf + pay + 0x58 + 8, 0xff, 16); /* a record runs past the batch */
		}
		hit++;
	}
	etwforge_iter_free(it);
	etwforge_file_close(f);
	fp = fopen(out, "wb");
	cr_assert(fp && fwrite(buf, 1, len, fp) == len);
	fclose(fp);
	free(buf);
	return hit;
}

/* A compact switch as a line of text; @first: its batch's record when it is the batch's first. */
static void put_switch(FILE *out, unsigned cpu, uint64_t ts, struct etwforge_compact c,
		       const struct etwforge_record *first)
{
	fprintf(out, "C %u %" PRIu64 " %u %u %d %u %u %u %" PRIu64 " %d %" PRIu64 " %u\n", cpu, ts,
		c.old_tid, c.new_tid, c.new_tid_known, c.form_code, c.old_state, c.old_wait_reason,
		c.batch, c.batch_first, first ? first->file_offset : 0,
		first ? first->u.batch.tids : 0);
}

/* The time order's compact switches and damage, raw or not, as text into @out. */
static void switches(struct etwforge_file *f, bool raw, FILE *out)
{
	unsigned kinds = ETWFORGE_EV_SWITCHES | ETWFORGE_EV_READY | ETWFORGE_EV_SAMPLE;
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_iter *it = raw ? read_iter_new_raw(f, kinds, err)
				       : read_iter_new(f, ETWFORGE_ORDER_TIME, kinds, err);
	const struct etwforge_event *ev;
	const struct read_switch *sw;
	int rc;

	cr_assert_not_null(it);
	while ((rc = raw ? read_iter_next_raw(it, &ev, &sw, err) : read_iter_next(it, &ev, err)) !=
	       0) {
		if (rc < 0) {
			fprintf(out, "damage %s\n", etwforge_error_message(err));
			continue;
		}
		if (raw && sw) {
			cr_assert_null(ev);
			put_switch(out, sw->cpu, sw->ts,
				   (struct etwforge_compact){
					   .old_tid = sw->old_tid,
					   .new_tid = sw->new_tid,
					   .new_tid_known = sw->new_tid_known,
					   .form_code = sw->form_code,
					   .old_state = sw->old_state,
					   .old_wait_reason = sw->old_wait_reason,
					   .batch = sw->batch,
					   .batch_first = sw->batch_first,
				   },
				   sw->batch_first ? sw->rec : NULL);
		} else if (ev->kind == ETWFORGE_EV_COMPACT) {
			put_switch(out, ev->cpu, ev->ts, ev->u.compact,
				   ev->u.compact.batch_first ? ev->rec : NULL);
		} else {
			fprintf(out, "E %u %u %" PRIu64 " %" PRIu64 "\n", ev->kind, ev->cpu, ev->ts,
				ev->file_offset);
		}
	}
	read_iter_free(it);
	etwforge_error_free(err);
}

static void hist(FILE *out, const uint64_t *h, unsigned n)
{
	for (unsigned i = 0; h && i < n; i++) {
		fprintf(out, " %" PRIu64, h[i]);
	}
	fprintf(out, h ? ";" : " -;");
}

/* The analysis of @f with @items (raw or not): its items and every table as text into @out. */
static void analysis(struct etwforge_file *f, bool raw, unsigned items, FILE *out)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .items = items, .keep_going = true);
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_analysis *a = etwforge_analysis_new(f, &o, err);
	const struct etwforge_analysis_totals *t;
	const struct etwforge_item *it;
	int rc;

	cr_assert_not_null(a, "%s", etwforge_error_message(err));
	if (!raw) {
		analysis_no_raw(a);
	}
	while ((rc = etwforge_analysis_next(a, &it, err)) != 0) {
		if (rc < 0) {
			fprintf(out, "damage %s\n", etwforge_error_message(err));
			continue;
		}
		fprintf(out,
			"I %u %u %" PRId64 " %" PRId64 " %u %" PRId64 " %d %d %u %" PRId64
			" %u %u %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %" PRId64 " %u\n",
			it->kind, it->cpu, it->t0, it->t1, it->tid, it->thread, it->known,
			it->opened, it->waker, it->waker_thread, it->from_cpu, it->reason,
			it->batch, it->tids, it->record_bytes, it->ip, it->stack, it->pid);
	}
	t = etwforge_analysis_totals(a);
	fprintf(out,
		"T %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		" %" PRIu64 " %" PRIu64 " %zu %zu",
		t->switches, t->compact, t->switch_ins, t->attributed, t->unattributed, t->readies,
		t->wakeups, t->samples, t->samples_attributed, t->idle_samples, t->busy_ns,
		t->idle_ns, t->unknown_ns, t->flushes, t->spins, t->damaged, t->threads,
		t->processes);
	hist(out, t->wake_hist, ETWFORGE_HIST_BUCKETS);
	fprintf(out, "\n");
	for (size_t i = 0; i < t->threads; i++) {
		const struct etwforge_thread_row *r = etwforge_analysis_thread(a, i);

		fprintf(out,
			"R %u %u %" PRId64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
			r->tid, r->pid, r->process, r->cpu_ns, r->switch_ins, r->samples,
			r->wakeups, r->wake_ns, r->waits, r->wait_ns, r->max_wait_ns, r->bursts,
			r->max_burst_ns);
		hist(out, r->burst_hist, ETWFORGE_HIST_BUCKETS);
		hist(out, r->wait_hist, ETWFORGE_HIST_BUCKETS);
		hist(out, r->wake_hist, ETWFORGE_HIST_BUCKETS);
		hist(out, r->wait_reasons, r->nreasons);
		hist(out, r->states, r->nstates);
		fprintf(out, "\n");
	}
	for (size_t i = 0; i < t->processes; i++) {
		const struct etwforge_process_row *p = etwforge_analysis_process(a, i);

		fprintf(out, "P %u %zu %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", p->pid, p->threads,
			p->cpu_ns, p->switch_ins, p->samples);
	}
	for (unsigned i = 0; i < etwforge_analysis_cpus(a); i++) {
		const struct etwforge_cpu_row *c = etwforge_analysis_cpu(a, i);

		fprintf(out, "U %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", c->cpu,
			c->switches, c->busy_ns, c->idle_ns, c->unknown_ns);
	}
	etwforge_analysis_free(a);
	etwforge_error_free(err);
}

/*
 * The switches (@iter) or the analysis with @items of @path, raw and not:
 * the same; *@lines of it, *@damaged damage said.
 */
static void same(const char *path, bool keep_going, unsigned items, bool iter, size_t *lines,
		 size_t *damaged)
{
	struct etwforge_file *f =
		etwforge_file_open(path, keep_going ? ETWFORGE_OPEN_KEEP_GOING : 0, NULL);
	char *text[2] = {NULL, NULL};
	size_t len[2] = {0, 0};

	cr_assert_not_null(f, "%s", path);
	for (int raw = 0; raw < 2; raw++) {
		FILE *out = open_memstream(&text[raw], &len[raw]);

		cr_assert_not_null(out);
		if (iter) {
			switches(f, raw, out);
		} else {
			analysis(f, raw, items, out);
		}
		fclose(out);
	}
	cr_assert_gt(len[0], 0);
	cr_assert(len[0] == len[1] && memcmp(text[0], text[1], len[0]) == 0,
		  "%s (%s, items 0x%x): raw and general differ", path,
		  iter ? "switches" : "analysis", items);
	for (char *p = text[0]; (p = strchr(p, '\n')); p++) {
		++*lines;
	}
	for (char *p = text[0]; (p = strstr(p, "damage")); p++) {
		++*damaged;
	}
	free(text[0]);
	free(text[1]);
	etwforge_file_close(f);
}

/* Every comparison over @path (opened keep-going when @keep_going). */
static void all_same(const char *path, bool keep_going, size_t *damaged)
{
	size_t lines = 0;

	same(path, keep_going, 0, true, &lines, damaged);
	same(path, keep_going, 0, false, &lines, damaged);
	same(path, keep_going, ETWFORGE_ITEM_ALL, false, &lines, damaged);
	cr_assert_gt(lines, 100, "%s: too little read", path);
}

TestSuite(analysis_raw, .init = test_dir_make, .fini = test_dir_remove);

Test(analysis_raw, compact_and_plain_files_read_the_same_raw, .timeout = 240.)
{
	const char *path = test_path("default.etl");
	size_t damaged = 0;

	/* the default scenario: a compact session, then a plain one */
	generate(NULL, 300, NULL, path);
	all_same(path, false, &damaged);
	all_same(test_path("default-2.etl"), false, &damaged);
	/* ReadyThread and samples among the switches */
	path = test_path("desktop.etl");
	generate("desktop.yaml", 200, NULL, path);
	all_same(path, false, &damaged);
	cr_assert_eq(damaged, 0);
}

Test(analysis_raw, damaged_batches_read_the_same_raw, .timeout = 240.)
{
	const char *path = test_path("default.etl"), *bad = test_path("bad.etl");
	size_t damaged = 0;

	generate(NULL, 300, NULL, path);
	for (unsigned every = 2; every <= 7; every += 5) {
		cr_assert_gt(damage(path, bad, every), 0);
		all_same(bad, true, &damaged);
	}
	path = test_path("desktop.etl");
	generate("desktop.yaml", 200, NULL, path);
	cr_assert_gt(damage(path, bad, 3), 0);
	all_same(bad, true, &damaged);
	/* the damage is met (and said at the same places) */
	cr_assert_gt(damaged, 0);
}
