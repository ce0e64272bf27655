// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/analysis.c - an analysis (see analysis.h): its
 * options, its file's clock, identity and CPUs, the way it reads (the full
 * pass of pass.c, or the batch sums of counts.c), and its tables as the
 * public rows, their sums turned into nanoseconds when read.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/analysis/analysis.h"
#include "tools/lib/analysis/state.h"
#include "tools/lib/analysis/infer.h"
#include "tools/lib/analysis/where.h"
#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "writer/etl_reader.h"

#define SAMPLE_INTERVAL_DEFAULT_100NS 10000u /* 1 ms, Windows' default */

/*
 * The sampling parameters the spin locks were logged with: the file's
 * configuration rundown (0x0F4B, CPU 0's first record) when it has one,
 * else the kernel's defaults.
 */
static bool spin_params(struct etwforge_file *f, struct etwforge_spinlock_config *c)
{
	bool found = false;

	struct etwforge_iter *it = read_iter_new(f, ETWFORGE_ORDER_CPU, ETWFORGE_EV_RECORD, NULL);
	const struct etwforge_event *ev;

	memset(c, 0, sizeof(*c));
	c->spin_threshold = INFER_SPIN_THRESHOLD;
	c->contention_sample_rate = 1;
	c->acquire_sample_rate = 1000;
	c->hold_threshold = INFER_HOLD_THRESHOLD;
	if (it && read_iter_next(it, &ev, NULL) == 1 &&
	    ev->rec->decoded == ETWFORGE_PAYLOAD_SPINLOCK_CONFIG) {
		*c = ev->rec->u.spinlock_config;
		found = true;
	}
	read_iter_free(it);
	return found;
}

/* The CPUs: the file's NumberOfProcessors, and any CPU a buffer names past it. */
static int cpus_init(struct etwforge_analysis *a, struct etwforge_error *err)
{
	const struct etwforge_file_info *in = read_file_info(a->f);
	unsigned norder, n = in->cpus < AN_MAX_CPUS ? in->cpus : AN_MAX_CPUS;
	const struct etl_reader *d = read_file_reader(a->f);
	const unsigned *order = etl_reader_cpu_order(d, &norder);

	if (norder) {
		unsigned top = etl_reader_buffer(d, order[norder - 1])->processor_index + 1u;

		n = top > n ? top : n;
	}
	for (size_t b = 0; a->o.cpus && b < a->o.cpus_bytes; b++) {
		for (unsigned k = 0; k < 8; k++) {
			if ((a->o.cpus[b] >> k & 1u) && b * 8 + k >= n) {
				return error_fail(err, -EINVAL, ERR_INPUT,
						  "CPU %zu is not in %s (%u CPUs)", b * 8 + k,
						  in->name, n);
			}
		}
	}
	a->ncpu = n;
	a->cpu = calloc(n ? n : 1, sizeof(*a->cpu));
	a->counted = calloc(n ? n : 1, sizeof(*a->counted));
	if (!a->cpu || !a->counted) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	for (unsigned c = 0; c < n; c++) {
		a->cpu[c].counted =
			!a->o.cpus || (c / 8 < a->o.cpus_bytes && a->o.cpus[c / 8] >> (c % 8) & 1u);
		a->cpu[c].row = -1;
		a->cpu[c].pub.cpu = c;
		if (a->cpu[c].counted) {
			a->counted[a->ncounted++] = c;
		}
	}
	return 0;
}

/* An image, identity, stack or Process event of the identity's pass, to its table. */
static int more_note(void *ctx, const struct etwforge_event *ev, size_t seq)
{
	struct etwforge_analysis *a = ctx;

	if (ev->kind & AN_STACK_KINDS) {
		return an_stacks_note(&a->st, ev, seq);
	}
	return an_images_note(&a->im, ev, seq);
}

/* The public rows of the joined stacks. Return: 0, -ENOMEM. */
static int stack_rows(struct etwforge_analysis *a)
{
	size_t n = a->st.joined.n;

	a->stack_rows = calloc(n ? n : 1, sizeof(*a->stack_rows));
	if (!a->stack_rows) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct etwforge_stack_row *r = &a->stack_rows[i];

		r->frames = an_run_frames(&a->st.joined, (uint32_t)i, &r->nframes);
		r->kernel_frames = a->st.joined.v[i].kernel;
	}
	return 0;
}

/* The file's images and stacks, read in the identity's pass: the rows, joined. */
static int images_stacks(struct etwforge_analysis *a, struct etwforge_error *err)
{
	int rc = an_images_finish(&a->im, &a->id, &a->clock, a->o.symbols, err);

	if (rc == 0 && (an_stacks_finish(&a->st, &a->im) < 0 || stack_rows(a) < 0)) {
		rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	return rc;
}

/* The file's clock, CPUs, identity, images and stacks, and the window: all an analysis starts from. */
static int setup(struct etwforge_analysis *a, struct etwforge_error *err)
{
	const struct an_more more = {
		AN_IMAGE_KINDS |
			(a->o.stacks == ETWFORGE_STACKS_NONE ? 0u : (unsigned)AN_STACK_KINDS),
		more_note, a};
	int rc;

	an_clock_init(&a->clock, a->f);
	an_images_init(&a->im, read_file_info(a->f)->pointer_size);
	an_stacks_init(&a->st, a->im.kernel_at);
	rc = cpus_init(a, err);
	if (rc == 0) {
		rc = an_identity_load(&a->id, a->f, &a->clock, a->o.detail == ETWFORGE_DETAIL_FULL,
				      a->o.keep_going, &more, err);
	}
	if (rc == 0) {
		rc = images_stacks(a, err);
	}
	if (rc < 0) {
		return rc;
	}
	a->spin_from_file = spin_params(a->f, &a->spin);
	if (a->o.window) {
		a->from_ns = a->o.from_ns;
		a->to_ns = a->o.to_ns;
		a->from_ts = an_ts_at(&a->clock, a->from_ns);
		a->to_ts =
			a->to_ns == INT64_MAX ? UINT64_MAX : an_ts_at(&a->clock, a->to_ns + 1) - 1;
	} else {
		a->from_ns = INT64_MIN;
		a->to_ns = INT64_MAX;
		a->from_ts = 0;
		a->to_ts = UINT64_MAX;
	}
	return 0;
}

/* Everything setup() and the reading made, freed (the options and the file kept). */
static void teardown(struct etwforge_analysis *a)
{
	read_iter_free(a->it);
	an_identity_free(&a->id);
	an_images_free(&a->im);
	an_stacks_free(&a->st);
	an_calls_free(&a->calls);
	free(a->stack_rows);
	ip_counts_free(&a->idle_ips);
	free(a->cpu);
	free(a->counted);
	free(a->q);
	free(a->ips_out);
	free(a->proc_t);
	free(a->proc_in);
	free(a->proc_samples);
	free(a->proc_fresh);
	free(a->proc_start);
	free(a->proc_rows);
}

struct etwforge_analysis *analysis_new(struct etwforge_file *f,
				       const struct etwforge_analysis_opts *opts,
				       struct etwforge_error *err)
{
	struct etwforge_analysis *a = calloc(1, sizeof(*a));
	int rc;

	if (!a) {
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	a->f = f;
	rc = sized_in(&a->o, sizeof(a->o), opts,
		      SIZED_FIRST_END(struct etwforge_analysis_opts, detail),
		      "struct etwforge_analysis_opts", err);
	if (rc == 0 && a->o.detail > ETWFORGE_DETAIL_COUNTS) {
		rc = error_fail(
			err, -EINVAL, ERR_INPUT,
			"etwforge_analysis_new: detail %u is neither FULL (0) nor COUNTS (1)",
			a->o.detail);
	}
	if (rc == 0 && a->o.stacks > ETWFORGE_STACKS_NONE) {
		rc = error_fail(err, -EINVAL, ERR_INPUT,
				"etwforge_analysis_new: stacks %u is neither JOIN (0) nor NONE (1)",
				a->o.stacks);
	}
	if (rc == 0 && (a->o.items & ~ETWFORGE_ITEM_ALL)) {
		rc = error_fail(err, -EINVAL, ERR_INPUT,
				"etwforge_analysis_new: items 0x%x: no such item kind", a->o.items);
	}
	if (rc == 0 && a->o.detail == ETWFORGE_DETAIL_COUNTS &&
	    (a->o.items || a->o.window || a->o.cpus)) {
		rc = error_fail(
			err, -EINVAL, ERR_INPUT,
			"etwforge_analysis_new: the COUNTS detail gives no items and counts "
			"the whole trace: ask FULL for items, a window or some CPUs");
	}
	if (rc == 0 && a->o.window && a->o.to_ns < a->o.from_ns) {
		rc = error_fail(err, -EINVAL, ERR_INPUT,
				"etwforge_analysis_new: the window ends before it starts");
	}
	if (rc == 0) {
		rc = setup(a, err);
	}
	if (rc < 0) {
		analysis_free(a);
		errno = -rc;
		return NULL;
	}
	error_ok(err);
	return a;
}

/*
 * The counts gave up (a file that needs the time order): start again from
 * nothing, for the full pass. Return: 0, or as setup().
 */
static int restart(struct etwforge_analysis *a, struct etwforge_error *err)
{
	struct etwforge_analysis_opts o = a->o;
	struct etwforge_file *f = a->f;
	bool no_raw = a->no_raw;

	teardown(a);
	memset(a, 0, sizeof(*a));
	a->o = o;
	a->f = f;
	a->no_raw = no_raw;
	return setup(a, err);
}

void analysis_no_raw(struct etwforge_analysis *a)
{
	a->no_raw = true;
}

void analysis_free(struct etwforge_analysis *a)
{
	if (!a) {
		return;
	}
	teardown(a);
	free(a);
}

int analysis_next(struct etwforge_analysis *a, const struct etwforge_item **item,
		  struct etwforge_error *err)
{
	int rc;

	if (a->qi < a->qn) {
		*item = &a->q[a->qi++].item;
		return 1;
	}
	a->qi = a->qn = 0;
	if (a->failed) {
		return error_fail(err, a->failed, ERR_DATA, "the analysis ended at an error");
	}
	if (a->o.detail == ETWFORGE_DETAIL_COUNTS && !a->ended && !a->it) {
		rc = counts_run(a, err);
		if (rc != -EAGAIN || a->tap) {
			/* with a tap, the caller reads such a file again its own way */
			a->ended = true;
			a->failed = rc < 0 ? rc : 0;
			return rc;
		}
		/* a file the sums cannot read exactly: the full pass, from the start */
		rc = restart(a, err);
		if (rc < 0) {
			a->failed = rc;
			return rc;
		}
	}
	rc = pass_next(a, err);
	if (rc < 0 && (!a->o.keep_going || rc == -ENOMEM)) {
		a->failed = rc;
	}
	if (rc <= 0) {
		return rc;
	}
	*item = &a->q[a->qi++].item;
	return 1;
}

int analysis_run(struct etwforge_analysis *a, struct etwforge_error *err)
{
	const struct etwforge_item *it;
	int rc, first = 0;

	while ((rc = analysis_next(a, &it, err)) != 0) {
		if (rc < 0) {
			if (!a->o.keep_going || a->failed) {
				return rc;
			}
			first = first ? first : rc;
		}
	}
	return first;
}

/* The profile interval in ns: the file's, or Windows' default. */
static uint64_t sample_interval_ns(const struct etwforge_analysis *a)
{
	return 100u * (a->interval_100ns ? a->interval_100ns : SAMPLE_INTERVAL_DEFAULT_100NS);
}

/* CPU time of a thread row in ns: its switches' sum, or its samples where the file has none. */
static uint64_t thread_cpu_ns(const struct etwforge_analysis *a, const struct an_thread *t)
{
	if (!a->any_switch) {
		return t->samples * sample_interval_ns(a);
	}
	return an_span_ns(&a->clock, t->cpu_t);
}

bool analysis_spin_config(const struct etwforge_analysis *a, struct etwforge_spinlock_config *out)
{
	*out = a->spin;
	return a->spin_from_file;
}

const struct etwforge_analysis_totals *analysis_totals(const struct etwforge_analysis *a)
{
	struct etwforge_analysis *m = (struct etwforge_analysis *)a; /* sums turned into ns */
	struct etwforge_analysis_totals *t = &m->tot;
	uint64_t busy = 0, idle = 0, unknown = 0;

	for (unsigned c = 0; c < a->ncpu; c++) {
		busy += a->cpu[c].busy_t;
		idle += a->cpu[c].idle_t;
		unknown += a->cpu[c].unknown_t;
	}
	t->from_ns = a->o.window ? a->from_ns : 0;
	t->to_ns = a->o.window ? a->to_ns : a->clock.end_ns;
	t->end_ns = a->clock.end_ns;
	t->clock_hz = a->clock.hz;
	t->cpus = a->ncounted;
	t->sample_interval_ns = sample_interval_ns(a);
	t->cpu_from_samples = !a->any_switch && t->samples > 0;
	if (t->cpu_from_samples) {
		t->busy_ns = (t->samples - t->idle_samples) * t->sample_interval_ns;
		t->idle_ns = t->idle_samples * t->sample_interval_ns;
		t->unknown_ns = 0;
	} else {
		t->busy_ns = an_span_ns(&a->clock, busy);
		t->idle_ns = an_span_ns(&a->clock, idle);
		t->unknown_ns = an_span_ns(&a->clock, unknown);
	}
	t->threads = a->id.nthreads;
	t->processes = a->id.nprocs;
	t->wake_hist = a->o.detail == ETWFORGE_DETAIL_FULL ? a->wake_hist : NULL;
	t->images = a->im.n;
	t->stack_events = a->st.nev;
	t->stacks = a->st.joined.n;
	t->stack_records = a->st.records;
	t->keys_unresolved = a->st.unresolved;
	t->frames = a->st.frames;
	t->frames_in_image = a->st.frames_in_image;
	t->depth_hist = a->o.detail == ETWFORGE_DETAIL_FULL ? a->depth_hist : NULL;
	return t;
}

const struct etwforge_thread_row *analysis_thread(const struct etwforge_analysis *a, size_t i)
{
	struct an_thread *t;

	if (i >= a->id.nthreads) {
		return NULL;
	}
	t = &a->id.threads[i];
	t->pub.cpu_ns = thread_cpu_ns(a, t);
	t->pub.switch_ins = t->ins;
	t->pub.samples = t->samples;
	t->pub.wake_ns = an_span_ns(&a->clock, t->wake_t);
	t->pub.wait_ns = an_span_ns(&a->clock, t->wait_t);
	t->pub.max_wait_ns = an_span_ns(&a->clock, t->max_wait_t);
	t->pub.max_burst_ns = an_span_ns(&a->clock, t->max_burst_t);
	t->pub.burst_hist = t->hist;
	t->pub.wait_hist = t->hist ? t->hist + ETWFORGE_HIST_BUCKETS : NULL;
	t->pub.wake_hist = t->hist ? t->hist + 2 * ETWFORGE_HIST_BUCKETS : NULL;
	t->pub.wait_reasons = t->reasons;
	t->pub.nreasons = t->reasons ? AN_REASONS : 0;
	t->pub.states = t->states;
	t->pub.nstates = t->states ? AN_STATES : 0;
	t->pub.distinct_ips = t->ips.n;
	return &t->pub;
}

/*
 * The thread rows by process (a counting sort), again when rows were added
 * or linked since; every process's sums to be made again. Return: 0, -ENOMEM.
 */
static int process_index(struct etwforge_analysis *a)
{
	const struct an_identity *id = &a->id;
	size_t np = id->nprocs, nt = id->nthreads;

	if (a->proc_start && a->proc_made[0] == np && a->proc_made[1] == nt &&
	    a->proc_made[2] == id->linked) {
		return 0;
	}
	free(a->proc_t);
	free(a->proc_in);
	free(a->proc_samples);
	free(a->proc_fresh);
	free(a->proc_start);
	free(a->proc_rows);
	a->proc_t = calloc(np + 1, sizeof(*a->proc_t));
	a->proc_in = calloc(np + 1, sizeof(*a->proc_in));
	a->proc_samples = calloc(np + 1, sizeof(*a->proc_samples));
	a->proc_fresh = calloc(np + 1, sizeof(*a->proc_fresh)); /* none made yet */
	a->proc_start = calloc(np + 2, sizeof(*a->proc_start));
	a->proc_rows = malloc((nt + 1) * sizeof(*a->proc_rows));
	if (!a->proc_t || !a->proc_in || !a->proc_samples || !a->proc_fresh || !a->proc_start ||
	    !a->proc_rows) {
		free(a->proc_start);
		free(a->proc_fresh);
		a->proc_start = NULL; /* made again on the next call */
		a->proc_fresh = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < nt; i++) {
		int64_t p = id->threads[i].pub.process;

		if (p >= 0) {
			a->proc_start[p + 2]++;
		}
	}
	for (size_t p = 0; p < np; p++) {
		a->proc_start[p + 2] += a->proc_start[p + 1];
	}
	for (size_t i = 0; i < nt; i++) {
		int64_t p = id->threads[i].pub.process;

		if (p >= 0) {
			a->proc_rows[a->proc_start[p + 1]++] = i;
		}
	}
	a->proc_made[0] = np;
	a->proc_made[1] = nt;
	a->proc_made[2] = id->linked;
	return 0;
}

const struct etwforge_process_row *analysis_process(const struct etwforge_analysis *a, size_t i)
{
	struct etwforge_analysis *m = (struct etwforge_analysis *)a; /* the sums are a cache */
	struct an_process *p;

	if (i >= a->id.nprocs || process_index(m) < 0) {
		return NULL;
	}
	if (!a->proc_fresh[i]) { /* its threads' sums, kept from then on (an_thread_sums_add()) */
		uint64_t t = 0, in = 0, samples = 0;

		for (size_t k = a->proc_start[i]; k < a->proc_start[i + 1]; k++) {
			const struct an_thread *th = &a->id.threads[a->proc_rows[k]];

			t += th->cpu_t;
			in += th->ins;
			samples += th->samples;
		}
		m->proc_t[i] = t;
		m->proc_in[i] = in;
		m->proc_samples[i] = samples;
		m->proc_fresh[i] = true;
	}
	p = &a->id.procs[i];
	p->pub.cpu_ns = !a->any_switch ? a->proc_samples[i] * sample_interval_ns(a)
				       : an_span_ns(&a->clock, a->proc_t[i]);
	p->pub.switch_ins = a->proc_in[i];
	p->pub.samples = a->proc_samples[i];
	return &p->pub;
}

unsigned analysis_cpus(const struct etwforge_analysis *a)
{
	return a->ncounted;
}

const struct etwforge_cpu_row *analysis_cpu(const struct etwforge_analysis *a, unsigned i)
{
	struct an_cpu *c;

	if (i >= a->ncounted) {
		return NULL;
	}
	c = &a->cpu[a->counted[i]];
	c->pub.busy_ns = an_span_ns(&a->clock, c->busy_t);
	c->pub.idle_ns = an_span_ns(&a->clock, c->idle_t);
	c->pub.unknown_ns = an_span_ns(&a->clock, c->unknown_t);
	return &c->pub;
}

int64_t analysis_thread_at(const struct etwforge_analysis *a, uint32_t tid, int64_t t_ns)
{
	return tid ? an_thread_find(&a->id, tid, an_ts_at(&a->clock, t_ns)) : -1;
}

const struct etwforge_ip_count *analysis_ips(struct etwforge_analysis *a, int64_t row, size_t *n)
{
	const struct ip_counts *m = row < 0			   ? &a->idle_ips
				    : (size_t)row < a->id.nthreads ? &a->id.threads[row].ips
								   : NULL;

	free(a->ips_out);
	a->ips_out = NULL;
	*n = 0;
	if (!m) {
		return NULL;
	}
	a->ips_out = ip_counts_sorted(m, n);
	if (!a->ips_out && *n) {
		*n = 0;
		errno = ENOMEM;
	}
	return a->ips_out;
}

void analysis_forms(const struct etwforge_analysis *a, uint64_t forms[4])
{
	for (unsigned k = 0; k < 4; k++) {
		forms[k] = a->forms[k];
	}
}

void analysis_tap(struct etwforge_analysis *a, analysis_tap_fn fn, void *ctx)
{
	a->tap = fn;
	a->tap_ctx = ctx;
}

bool analysis_tapped_all(const struct etwforge_analysis *a)
{
	return a->tap && a->tapped_all;
}

void analysis_named(const struct etwforge_analysis *a, uint64_t *tids, uint64_t *pids)
{
	*tids = a->id.named_tids;
	*pids = a->id.named_pids;
}

const struct etwforge_image_row *analysis_image(const struct etwforge_analysis *a, size_t i)
{
	return i < a->im.n ? &a->im.rows[i].pub : NULL;
}

const struct etwforge_stack_row *analysis_stack(const struct etwforge_analysis *a, size_t i)
{
	if (i >= a->st.joined.n) {
		return NULL;
	}
	a->stack_rows[i].samples = a->st.samples[i];
	return &a->stack_rows[i];
}

int analysis_locate(struct etwforge_analysis *a, uint32_t pid, uint64_t addr, int64_t t_ns,
		    struct etwforge_location *out)
{
	struct an_where w;

	if (!out) {
		return -EINVAL;
	}
	an_where(&a->im, pid, addr, an_ts_at(&a->clock, t_ns), &w);
	an_where_text(&a->im, &w, addr, a->where_text, sizeof(a->where_text));
	out->image = w.image;
	out->module = w.image >= 0 ? a->im.rows[w.image].pub.name : NULL;
	out->function = w.function;
	out->offset = w.offset;
	out->text = a->where_text;
	return w.image >= 0;
}

size_t analysis_call_nodes(struct etwforge_analysis *a)
{
	if (a->o.detail != ETWFORGE_DETAIL_FULL || !a->ended) {
		return 0;
	}
	if (an_calls_build(&a->calls, &a->id, &a->im, &a->st) < 0) {
		errno = ENOMEM;
		return 0;
	}
	return a->calls.nnodes;
}

const struct etwforge_call_node *analysis_call_node(const struct etwforge_analysis *a, size_t i)
{
	return a->calls.built && i < a->calls.nnodes ? &a->calls.nodes[i] : NULL;
}

void analysis_stats_fill(const struct etwforge_analysis *a, struct etwforge_stats *st)
{
	const struct etwforge_analysis_totals *t = analysis_totals(a);

	analysis_named(a, &st->ident.threads, &st->ident.processes);
	analysis_forms(a, st->compact);
	st->ident.ready = t->readies;
	st->ident.samples = t->samples;
	st->ident.attributed = t->attributed;
	st->ident.unattributed = t->unattributed;
}
