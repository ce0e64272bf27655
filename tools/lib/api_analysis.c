// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_analysis.c - the public API of the analysis room
 * (etwforge_analysis_*), and the identity counts of etwforge_file_stats(),
 * which are the analysis's (read its counts and the framing counts of the
 * read room in one object).
 */
#include <errno.h>
#include <stdlib.h>

#include "etwforge/etwforge.h"
#include "tools/lib/analysis/analysis.h"
#include "tools/lib/analysis/infer.h"
#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"

struct etwforge_analysis *etwforge_analysis_new(struct etwforge_file *f,
						const struct etwforge_analysis_opts *opts,
						struct etwforge_error *err)
{
	if (!f) {
		error_fail(err, -EINVAL, ERR_INPUT, "etwforge_analysis_new: no file");
		errno = EINVAL;
		return NULL;
	}
	return analysis_new(f, opts, err);
}

void etwforge_analysis_free(struct etwforge_analysis *a)
{
	analysis_free(a);
}

int etwforge_analysis_next(struct etwforge_analysis *a, const struct etwforge_item **item,
			   struct etwforge_error *err)
{
	return analysis_next(a, item, err);
}

int etwforge_analysis_run(struct etwforge_analysis *a, struct etwforge_error *err)
{
	return analysis_run(a, err);
}

const struct etwforge_analysis_totals *etwforge_analysis_totals(const struct etwforge_analysis *a)
{
	return analysis_totals(a);
}

const struct etwforge_thread_row *etwforge_analysis_thread(const struct etwforge_analysis *a,
							   size_t i)
{
	return analysis_thread(a, i);
}

const struct etwforge_process_row *etwforge_analysis_process(const struct etwforge_analysis *a,
							     size_t i)
{
	return analysis_process(a, i);
}

unsigned etwforge_analysis_cpus(const struct etwforge_analysis *a)
{
	return analysis_cpus(a);
}

const struct etwforge_cpu_row *etwforge_analysis_cpu(const struct etwforge_analysis *a, unsigned i)
{
	return analysis_cpu(a, i);
}

int64_t etwforge_analysis_thread_at(const struct etwforge_analysis *a, uint32_t tid, int64_t t_ns)
{
	return analysis_thread_at(a, tid, t_ns);
}

const struct etwforge_ip_count *etwforge_analysis_ips(struct etwforge_analysis *a, int64_t row,
						      size_t *n)
{
	return analysis_ips(a, row, n);
}

const struct etwforge_image_row *etwforge_analysis_image(const struct etwforge_analysis *a,
							 size_t i)
{
	return a ? analysis_image(a, i) : NULL;
}

const struct etwforge_stack_row *etwforge_analysis_stack(const struct etwforge_analysis *a,
							 size_t i)
{
	return a ? analysis_stack(a, i) : NULL;
}

int etwforge_analysis_locate(struct etwforge_analysis *a, uint32_t pid, uint64_t addr, int64_t t_ns,
			     struct etwforge_location *out)
{
	return a ? analysis_locate(a, pid, addr, t_ns, out) : -EINVAL;
}

size_t etwforge_analysis_call_nodes(struct etwforge_analysis *a)
{
	return a ? analysis_call_nodes(a) : 0;
}

const struct etwforge_call_node *etwforge_analysis_call_node(const struct etwforge_analysis *a,
							     size_t i)
{
	return a ? analysis_call_node(a, i) : NULL;
}

const char *etwforge_flush_seen_name(unsigned reason)
{
	return infer_flush_name(reason);
}

const char *etwforge_flush_seen_label(unsigned reason)
{
	return infer_flush_label(reason);
}

const char *etwforge_spin_seen_name(unsigned kind)
{
	return infer_spin_name(kind);
}

/*
 * The identity counts of @st: the file's records and switches as the
 * analysis reads them (ETWFORGE_DETAIL_COUNTS), kept in @st for
 * etwforge_stats_analysis() and the JSON.
 */
static int stats_identity(struct etwforge_file *f, struct etwforge_stats *st, bool quiet,
			  struct etwforge_error *err)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = ETWFORGE_DETAIL_COUNTS,
		      .keep_going = read_file_keep_going(f));
	int rc;

	st->an = analysis_new(f, &o, quiet ? NULL : err);
	if (!st->an) {
		return -errno;
	}
	rc = analysis_run(st->an, quiet ? NULL : err);
	analysis_stats_fill(st->an, st);
	return rc;
}

/*
 * The counts of @st in one walk of @f: the analysis's batch sums read every
 * record, and hand each to the read room's count. Only a file that reads to
 * its end without damage and sums a batch at a time is counted so (the
 * counts commute: the same as two walks); for any other the two walks tell
 * which damage is said, and what counts up to it. Return: true when @st
 * is filled (with its analysis), false (nothing kept) to count it the long way.
 */
static bool stats_one_walk(struct etwforge_file *f, struct etwforge_stats *st)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = ETWFORGE_DETAIL_COUNTS,
		      .keep_going = read_file_keep_going(f));
	struct etwforge_analysis *a;

	read_stats_begin(f, st);
	a = analysis_new(f, &o, NULL);
	if (!a) {
		return false;
	}
	analysis_tap(a, read_stats_record, st);
	if (analysis_run(a, NULL) != 0 || !analysis_tapped_all(a)) {
		analysis_free(a);
		return false;
	}
	st->an = a;
	analysis_stats_fill(st->an, st);
	return true;
}

int etwforge_file_stats(struct etwforge_file *f, struct etwforge_stats *st,
			struct etwforge_error *err)
{
	int first, rc;

	analysis_free(st->an);
	st->an = NULL;
	if (stats_one_walk(f, st)) {
		return error_ok(err);
	}
	/* the compact switches by form: the analysis counts them as it sums the batches */
	first = read_file_stats(f, st, false, err);
	if (first < 0 && (first == -ENOMEM || !read_file_keep_going(f))) {
		return first;
	}
	/* the damage is the framing pass's to say: the analysis meets the same */
	rc = stats_identity(f, st, first < 0, err);
	if (rc < 0 && (rc == -ENOMEM || first == 0)) {
		return rc;
	}
	return first;
}

const struct etwforge_analysis *etwforge_stats_analysis(const struct etwforge_stats *st)
{
	return st->an;
}

size_t etwforge_stats_json(const struct etwforge_file *f, const struct etwforge_stats *st,
			   char *buf, size_t cap)
{
	return read_stats_json(f, st, st->an ? analysis_json : NULL, st->an, buf, cap);
}

void etwforge_stats_free(struct etwforge_stats *st)
{
	if (st) {
		analysis_free(st->an);
		free(st);
	}
}
