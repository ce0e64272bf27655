// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_draw.c - `dump --timeline OUT.svg`, `--chrome-trace
 * OUT.json`, `--flamegraph OUT.svg` and `--folded OUT.txt`: the outputs in one set (README "Output rules": two that are
 * one file are refused before anything is made; both appear only when the
 * whole run succeeded), drawn by draw.c's one pass over the library's
 * analysis of the file; this file adds the outputs and what dump says.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dump.h"
#include "draw.h"
#include "dump_chrome.h"
#include "dump_flame.h"
#include "dump_timeline.h"
#include "thread_names.h"

#define PROG "etwforge dump"

int dump_draw(struct etwforge_file *f, const struct draw_opts *o)
{
	struct etwforge_output *out = etwforge_output_new();
	struct draw_view v = {0};
	struct draw_request rq;
	const struct etwforge_analysis_totals *tot;
	struct etwforge_error *err = cli_err();
	struct timeline *tl = NULL;
	struct chrome *ch = NULL;
	struct thread_names names = {NULL, NULL, NULL};
	unsigned long unnamed = 0;
	int tl_i = -1, ch_i = -1, fg_i = -1, fo_i = -1, rc, status = EXIT_DATA;
	struct damage_log dl = {0};
	unsigned bad_cpu = 0;
	size_t ndamage;
	bool past_end = false;

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
	if (o->flamegraph &&
	    (fg_i = etwforge_output_add(out, o->flamegraph, "--flamegraph", err)) < 0) {
		status = cli_error("dump", err);
		goto out;
	}
	if (o->folded && (fo_i = etwforge_output_add(out, o->folded, "--folded", err)) < 0) {
		status = cli_error("dump", err);
		goto out;
	}
	rq = o->rq;
	rq.samples = o->chrome != NULL;
	rc = draw_open(&v, f, &rq, &names, &past_end, &bad_cpu, err);
	if (rc == -ENOENT) { /* --symbols */
		status = cli_error("dump", err);
		goto out;
	}
	if (rc == -ERANGE) {
		fprintf(stderr,
			PROG ": --cpus: CPU %u is not in %s (%u CPUs) (try '" PROG " --help')\n",
			bad_cpu, etwforge_file_info(f)->name, etwforge_file_info(f)->cpus);
		status = EXIT_USAGE;
		goto out;
	}
	if (rc == -EINVAL) { /* damage in the identity records */
		damage_add(&dl, etwforge_error_message(err), NULL);
		damage_add_file(&dl, f, o->rq.keep_going);
		damage_print(&dl, PROG, etwforge_file_info(f)->name, o->rq.keep_going);
		goto out;
	}
	if (rc < 0) {
		goto nomem;
	}
	if (etwforge_output_open(out, err) < 0) {
		status = cli_error("dump", err);
		goto out;
	}
	if ((o->timeline && !(tl = timeline_new(&v))) ||
	    (o->chrome && !(ch = chrome_new(&v, etwforge_output_stream(out, (unsigned)ch_i))))) {
		goto nomem;
	}
	rc = draw_pass(&v, tl, ch, o->rq.keep_going, err);
	if (rc == -ENOMEM) {
		goto nomem;
	}
	if (rc < 0) {
		damage_add(&dl, etwforge_error_message(err), NULL); /* the pass stopped there */
	}
	tot = etwforge_analysis_totals(v.an);
	damage_add_file(&dl, f, o->rq.keep_going);
	ndamage = damage_print(&dl, PROG, v.info->name, o->rq.keep_going);
	if (ndamage && !o->rq.keep_going) {
		goto pictures; /* nothing is written from a damaged file without --keep-going */
	}
	if (past_end) {
		fprintf(stderr, PROG ": %s: the trace ends before --from (at %.3f ms)\n",
			v.info->name, (double)v.end_ns / 1e6);
		status = EXIT_USAGE;
		goto pictures;
	}
	if ((tl && timeline_write(tl, etwforge_output_stream(out, (unsigned)tl_i)) == -ENOMEM) ||
	    (ch && chrome_finish(ch) == -ENOMEM) ||
	    (fg_i >= 0 &&
	     flame_svg(etwforge_output_stream(out, (unsigned)fg_i), v.an, v.info->name) < 0) ||
	    (fo_i >= 0 && flame_folded(etwforge_output_stream(out, (unsigned)fo_i), v.an) < 0)) {
		goto nomem;
	}
	if (etwforge_output_commit(out, err) < 0) {
		status = cli_error("dump", err);
		goto pictures;
	}
	status = tot->damaged || ndamage ? EXIT_DATA : EXIT_OK;
	if (unnamed) {
		fprintf(stderr,
			PROG ": note: %s names no thread group for %lu of the threads drawn (shown "
			     "as \"TID n\"); the truth gen writes names every thread of its file\n",
			o->truth, unnamed);
	}
	if (tot->switches == 0 && (tl || ch)) {
		/* a picture of nothing is a result nobody wants to find out by looking */
		fprintf(stderr,
			PROG ": note: %s: no context switch %s %.6f ms and %.6f ms (the trace "
			     "ends at %.6f ms)\n",
			v.info->name, o->rq.cpu_mask ? "of those CPUs between" : "between",
			(double)v.from / 1e6, (double)v.to / 1e6, (double)v.end_ns / 1e6);
	}
	if ((fg_i >= 0 || fo_i >= 0) && tot->samples == 0) {
		fprintf(stderr,
			PROG ": note: %s: no SampledProfile event %s %.6f ms and %.6f ms: the "
			     "flame graph is empty\n",
			v.info->name, o->rq.cpu_mask ? "of those CPUs between" : "between",
			(double)v.from / 1e6, (double)v.to / 1e6);
	}
	if (tot->damaged) {
		fprintf(stderr, PROG ": %s: %llu damaged place%s skipped\n", v.info->name,
			(unsigned long long)tot->damaged, tot->damaged == 1 ? "" : "s");
	}
	goto pictures;
nomem:
	fprintf(stderr, PROG ": out of memory\n");
pictures:
	timeline_free(tl);
	chrome_free(ch);
out:
	etwforge_output_free(out); /* removes the temporaries unless committed */
	etwforge_names_free(names.groups);
	draw_close(&v);
	return status;
}
