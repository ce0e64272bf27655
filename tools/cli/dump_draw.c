// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_draw.c - `dump --timeline OUT.svg` and `--chrome-trace
 * OUT.json`: both outputs in one set (README "Output rules": two that are
 * one file are refused before anything is made; both appear only when the
 * whole run succeeded), one walk of the file feeding both pictures, after
 * a pass over its Process and Thread records (dump_identity.h) for names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dump.h"
#include "dump_chrome.h"
#include "dump_timeline.h"
#include "thread_names.h"

#define PROG "etwforge dump"

int dump_draw(struct etwforge_file *f, const struct draw_opts *o)
{
	struct etwforge_output *out = etwforge_output_new();
	struct sched_frame fr;
	struct sched_consumer cons[2];
	struct sched_totals tot;
	struct etwforge_error *err = cli_err();
	struct timeline *tl = NULL;
	struct chrome *ch = NULL;
	struct thread_names names = {NULL, NULL, NULL};
	struct identity ident = {0};
	unsigned long unnamed = 0;
	int tl_i = -1, ch_i = -1, rc, status = EXIT_DATA;
	struct damage_log dl = {0};
	unsigned ncons = 0, bad_cpu = 0;
	size_t ndamage;
	bool past_end = false;
	int64_t from, to;

	if (!out) {
		perror(PROG);
		return EXIT_DATA;
	}
	if (o->truth && (!(names.groups = etwforge_names_load(o->truth, err)) ||
			 etwforge_names_check(names.groups, f, err) < 0)) {
		status = cli_error("dump", err);
		goto out;
	}
	names.unnamed = &unnamed;
	if (identity_load(&ident, f) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	names.ident = &ident; /* the file's names; the truth's win where given */
	if (etwforge_output_input(out, o->input, "the input", err) < 0 ||
	    (o->truth && etwforge_output_input(out, o->truth, "--truth", err) < 0)) {
		status = cli_error("dump", err);
		goto out;
	}
	if (o->timeline && (tl_i = etwforge_output_add(out, o->timeline, "--timeline", err)) < 0) {
		status = cli_error("dump", err);
		goto out;
	}
	if (o->chrome && (ch_i = etwforge_output_add(out, o->chrome, "--chrome-trace", err)) < 0) {
		status = cli_error("dump", err);
		goto out;
	}
	rc = sched_frame_init(&fr, f, o->have_from ? o->from_ns : INT64_MIN,
			      o->have_to ? o->to_ns : INT64_MAX, o->cpu_mask, &bad_cpu);
	if (rc == -ERANGE) {
		fprintf(stderr,
			PROG ": --cpus: CPU %u is not in %s (%u CPUs) (try '" PROG " --help')\n",
			bad_cpu, etwforge_file_info(f)->name, etwforge_file_info(f)->cpus);
		status = EXIT_USAGE;
		goto out;
	}
	if (rc < 0) {
		fprintf(stderr, PROG ": %s\n", strerror(-rc));
		goto out;
	}
	from = o->have_from ? o->from_ns : 0;
	to = o->have_to ? o->to_ns : fr.end_ns;
	if (!o->have_to && to <= from) {
		/* an empty or 1 ns trace is drawn as 1 ns; a --from past the end is refused, but
		 * only once the walk has shown the file is sound (its damage comes first) */
		past_end = o->have_from;
		to = from + 1;
	}
	if (etwforge_output_open(out, err) < 0) {
		status = cli_error("dump", err);
		goto frame;
	}
	if (o->timeline) {
		tl = timeline_new(&fr, &names, from, to);
		if (!tl) {
			goto nomem;
		}
		cons[ncons++] = (struct sched_consumer){&timeline_ops, tl};
	}
	if (o->chrome) {
		ch = chrome_new(&fr, &names, etwforge_output_stream(out, (unsigned)ch_i));
		if (!ch) {
			goto nomem;
		}
		cons[ncons++] = (struct sched_consumer){&chrome_ops, ch};
	}
	rc = sched_walk(f, &fr, cons, ncons, o->keep_going, &tot, err);
	if (rc == -ENOMEM) {
		goto nomem;
	}
	if (rc < 0) {
		damage_add(&dl, etwforge_error_message(err), NULL); /* the walk stopped there */
	}
	damage_add_file(&dl, f, o->keep_going);
	ndamage = damage_print(&dl, etwforge_file_info(f)->name, o->keep_going);
	if (ndamage && !o->keep_going) {
		goto pictures; /* nothing is written from a damaged file without --keep-going */
	}
	if (past_end) {
		fprintf(stderr, PROG ": %s: the trace ends before --from (at %.3f ms)\n",
			etwforge_file_info(f)->name, (double)fr.end_ns / 1e6);
		status = EXIT_USAGE;
		goto pictures;
	}
	if ((tl &&
	     timeline_write(tl, &tot, etwforge_output_stream(out, (unsigned)tl_i)) == -ENOMEM) ||
	    (ch && chrome_finish(ch) == -ENOMEM)) {
		goto nomem;
	}
	if (etwforge_output_commit(out, err) < 0) {
		status = cli_error("dump", err);
		goto pictures;
	}
	status = tot.damaged || ndamage ? EXIT_DATA : EXIT_OK;
	if (unnamed) {
		fprintf(stderr,
			PROG ": note: %s names no thread group for %lu of the threads drawn (shown "
			     "as \"TID n\"); the truth gen writes names every thread of its file\n",
			o->truth, unnamed);
	}
	if (tot.switches == 0) {
		/* a picture of nothing is a result nobody wants to find out by looking */
		fprintf(stderr,
			PROG ": note: %s: no context switch %s %.6f ms and %.6f ms (the trace "
			     "ends at %.6f ms)\n",
			etwforge_file_info(f)->name,
			o->cpu_mask ? "of those CPUs between" : "between", (double)from / 1e6,
			(double)to / 1e6, (double)fr.end_ns / 1e6);
	}
	if (tot.damaged) {
		fprintf(stderr, PROG ": %s: %llu damaged batch%s skipped\n",
			etwforge_file_info(f)->name, (unsigned long long)tot.damaged,
			tot.damaged == 1 ? "" : "es");
	}
	goto pictures;
nomem:
	fprintf(stderr, PROG ": out of memory\n");
pictures:
	timeline_free(tl);
	chrome_free(ch);
frame:
	sched_frame_finish(&fr);
out:
	etwforge_output_free(out); /* removes the temporaries unless committed */
	etwforge_names_free(names.groups);
	identity_free(&ident);
	return status;
}
