// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/gen.c - run_generate(): a scenario becomes a machine, the
 * machine runs, its records become ETL files (and the truth).
 *
 *   struct scenario (finished) --> sched_create() the simulated machine
 *        |                                 | struct sim_cswitch / sim_end ...
 *   session_run_plan() + truth + json      v
 *        |  (every output checked     gen_tee --> truth writer (--truth)
 *        |   against the others)            \--> producer -> writers -> .etl
 *   session_run_open()
 *   sched_run_until() in 10 ms slices of simulated time (memory stays
 *        |            bounded; progress between slices)
 *   session_run_finish() -> summary -> JSON -> session_run_commit()
 *
 * Nothing is in place until the commit: a failure anywhere leaves every
 * target as it was.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pebs_model/pebs.h"
#include "scheduler_model/identity.h"
#include "scheduler_model/sched.h"
#include "spinlock_model/spinlock.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/lib/run/gen_jobs.h"
#include "tools/lib/run/run.h"
#include "tools/lib/run/run_stop.h"
#include "tools/lib/run/summary.h"
#include "tools/lib/run/symbols.h"
#include "tools/lib/scenario/schema.h"
#include "tools/lib/truth/truth.h"
#include "tools/lib/run/out_file.h"

#define SLICE_NS 10000000u /* 10 ms of simulated time per step */

/*
 * Feeds the truth writer (if any) and the producer; holds the end record
 * back. With --jobs, @prod is gen_jobs' sink, which formats the truth lines
 * itself: @have_truth is then off, and the end line waits for the workers.
 */
struct gen_tee {
	struct trace_sink truth;
	bool have_truth;
	bool logged_spinlocks_only; /* the truth gets the logged releases only */
	struct trace_sink prod;
	struct sim_end end;
	bool ended;
};

static int tee_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	struct gen_tee *t = ctx;
	int rc;

	if (t->have_truth && (rc = t->truth.ops->cswitch(t->truth.ctx, cs)) < 0) {
		return rc;
	}
	return t->prod.ops->cswitch(t->prod.ctx, cs);
}

static int tee_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	struct gen_tee *t = ctx;
	int rc;

	if (t->have_truth && (sl->logged || !t->logged_spinlocks_only) &&
	    (rc = t->truth.ops->spinlock(t->truth.ctx, sl)) < 0) {
		return rc;
	}
	return t->prod.ops->spinlock(t->prod.ctx, sl);
}

static int tee_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	struct gen_tee *t = ctx;
	int rc;

	if (t->have_truth && (rc = t->truth.ops->ccswap_stop(t->truth.ctx, st)) < 0) {
		return rc;
	}
	return t->prod.ops->ccswap_stop(t->prod.ctx, st);
}

/* The end goes to session_run_finish(), which flushes and completes the files. */
static int tee_end(void *ctx, const struct sim_end *end)
{
	struct gen_tee *t = ctx;

	t->end = *end;
	t->ended = true;
	if (t->have_truth) {
		return t->truth.ops->end(t->truth.ctx, end);
	}
	return 0;
}

static int tee_record(void *ctx, const struct sim_record *r)
{
	struct gen_tee *t = ctx;
	int rc;

	if (t->have_truth && (rc = t->truth.ops->record(t->truth.ctx, r)) < 0) {
		return rc;
	}
	return t->prod.ops->record(t->prod.ctx, r);
}

static const struct trace_sink_ops tee_ops = {
	.cswitch = tee_cswitch,
	.spinlock = tee_spinlock,
	.ccswap_stop = tee_stop,
	.end = tee_end,
	.record = tee_record,
};

/* Everything one generate call holds, freed in one place. */
struct gen_run {
	struct scenario *sc; /* a copy: names are filled in for this run only */
	struct session_run run;
	const char *labels[SIM_MAX_SESSIONS]; /* each session's file, as named for messages */
	bool planned;
	struct sched *sched;
	struct spin *spin;   /* the spin-lock subsystem (freed with the machine), or NULL */
	struct ident *ident; /* the identity model (freed with the machine), or NULL */
	struct truth_writer tw;
	struct gen_tee tee;
	struct gen_jobs *jobs; /* --jobs: the workers, or NULL */
	FILE *truth_f;
	FILE *json_f;
	uint32_t *group_tids; /* the meta line's TIDs of the groups at the start */
	int truth_i;
	int json_i;
};

static void gen_free(struct gen_run *g)
{
	gen_jobs_stop(g->jobs);
	sched_destroy(g->sched);
	if (g->planned) {
		session_run_close(&g->run);
	}
	truth_writer_finish(&g->tw);
	free(g->group_tids);
	free(g->sc);
}

static void report_progress(const struct gen_run *g, const struct etwforge_run_opts *o, double t0)
{
	struct etwforge_progress p = {0};
	struct sched_stats st;

	sched_get_stats(g->sched, &st);
	p.sim_ns = st.now_ns;
	p.duration_ns = g->sc->sched.duration_ns;
	p.switches = st.switches;
	p.wall_seconds = wall_seconds() - t0;
	for (unsigned i = 0; !g->jobs && i < g->sc->trace.nsessions; i++) {
		struct writer_stats ws;

		writer_get_stats(g->run.writers[i], &ws);
		p.bytes += ws.bytes_written;
	}
	if (g->jobs) {
		p.bytes = gen_jobs_bytes(g->jobs); /* the workers write */
	}
	o->progress(o->progress_ctx, &p);
}

/* Plan and open every output; set up the truth and JSON streams. */
static int open_outputs(struct gen_run *g, const struct etwforge_run_opts *o,
			struct etwforge_error *err)
{
	struct trace_config *tc = &g->sc->trace;
	struct run_input inputs[SCENARIO_MAX_FILES];
	const char *why = NULL;
	int rc;

	if (!o->output && !tc->sessions[0].file[0]) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "no output: give -o OUT.etl (or sessions.0.file)");
	}
	session_run_name(tc, o->output, false, g->labels);
	if (trace_config_check(tc, &why) < 0) {
		return error_fail(err, -EINVAL, ERR_INPUT, "%s", why);
	}
	for (unsigned i = 0; i < g->sc->nfiles; i++) {
		inputs[i] = (struct run_input){g->sc->files[i], "the scenario"};
	}
	rc = session_run_plan(&g->run, tc, g->labels, inputs, g->sc->nfiles, err);
	g->planned = true;
	if (rc >= 0 && o->truth) {
		rc = g->truth_i = out_set_add(&g->run.outs, o->truth, "--truth", err);
	}
	if (rc >= 0 && o->json) {
		rc = g->json_i = out_set_add(&g->run.outs, o->json, "--json", err);
	}
	if (rc >= 0) {
		rc = session_run_open(&g->run, err);
	}
	if (rc < 0) {
		return rc;
	}
	if (g->truth_i >= 0) {
		tc->spin_rows =
			o->truth_logged_spinlocks ? TRACE_SPIN_ROWS_LOGGED : TRACE_SPIN_ROWS_ALL;
		g->tee.logged_spinlocks_only = o->truth_logged_spinlocks;
		g->truth_f = out_file_stream(out_set_file(&g->run.outs, (unsigned)g->truth_i));
		if (!g->truth_f) {
			return error_fail(err, -EIO, ERR_DATA, "%s: write failed", o->truth);
		}
		if (truth_writer_init(&g->tw, g->truth_f, tc) < 0) {
			return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		}
		g->tee.truth = truth_writer_sink(&g->tw);
		g->tee.have_truth = true;
	}
	if (g->json_i >= 0) {
		g->json_f = out_file_stream(out_set_file(&g->run.outs, (unsigned)g->json_i));
		if (!g->json_f) {
			return error_fail(err, -errno, ERR_DATA, "%s: %s", o->json,
					  strerror(errno));
		}
	}
	return 0;
}

/*
 * The truth's meta line, once the machine exists: it names the thread
 * groups and the TIDs they start with; later threads get "thread" lines.
 */
static int truth_begin(struct gen_run *g, const struct etwforge_run_opts *o,
		       struct etwforge_error *err)
{
	struct trace_config *tc = &g->sc->trace;

	if (!g->truth_f) {
		return 0;
	}
	tc->ngroups =
		g->sc->sched.ngroups < TRACE_MAX_GROUPS ? g->sc->sched.ngroups : TRACE_MAX_GROUPS;
	g->group_tids = malloc(((size_t)sched_thread_slots(g->sched) + 1u) * sizeof(uint32_t));
	if (!g->group_tids) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	for (unsigned i = 0, at = 0; i < tc->ngroups; i++) {
		struct trace_group *tg = &tc->groups[i];

		snprintf(tg->name, sizeof(tg->name), "%s", g->sc->sched.groups[i].name);
		tg->tids = g->group_tids + at;
		tg->count = sched_initial_tids(g->sched, i, g->group_tids + at,
					       sched_thread_slots(g->sched) - at);
		at += tg->count;
	}
	errno = 0;
	if (truth_write_meta(g->truth_f, tc) < 0) {
		/* a long meta line reaches the device at once: say why it failed */
		int e = errno ? errno : EIO;

		return error_fail(err, -e, ERR_DATA, "%s: write failed: %s", o->truth, strerror(e));
	}
	return 0;
}

/*
 * The identity model: attached when it has anything to fire (it never
 * changes the machine's switches), then the start rundown, before the
 * first switch.
 */
static int ident_begin(struct gen_run *g, struct etwforge_error *err)
{
	struct ident_cfg ic;
	const char *why = NULL;
	int rc;

	scenario_ident_cfg(g->sc, &ic);
	if (ident_cfg_check(&ic, g->sc->sched.ngroups, &why) < 0) {
		return error_fail(err, -EINVAL, ERR_INPUT, "%s", why);
	}
	if (!ident_wanted(&ic)) {
		return 0;
	}
	rc = ident_attach(g->sched, &ic, &g->ident);
	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "cannot give the machine its processes: %s",
				  strerror(-rc));
	}
	rc = ident_start(g->ident);
	if (rc < 0) {
		session_run_error(&g->run, rc, err);
		return error_reclass(err, rc, rc == -EINVAL ? ERR_INPUT : ERR_DATA);
	}
	return 0;
}

/* The spin-lock families' figures, from the model. */
static void locks_fill(struct etwforge_summary *sum, const struct gen_run *g)
{
	const struct spin_cfg *m = &g->sc->lock_model;

	sum->nlocks = g->spin ? m->nlocks : 0;
	for (unsigned i = 0; i < sum->nlocks; i++) {
		struct etwforge_lock_summary *l = &sum->locks[i];
		struct spin_lock_stats *st = malloc(sizeof(*st));

		if (!st) {
			sum->nlocks = i;
			return;
		}
		spin_get_stats(g->spin, i, st);
		snprintf(sum->lock_name[i], sizeof(sum->lock_name[i]), "%s", m->locks[i].name);
		l->name = sum->lock_name[i];
		l->acquisitions = st->acquisitions;
		l->contended = st->contended;
		l->spin_mean = st->contended ? st->spin_cycles / st->contended : 0;
		l->spin_p99 = spin_hist_quantile(st->spin_hist, 990);
		l->hold_mean = st->releases ? st->hold_cycles / st->releases : 0;
		l->hold_p99 = spin_hist_quantile(st->hold_hist, 990);
		l->logged_hold = st->logged[SIM_SPIN_HOLD];
		l->logged_contended = st->logged[SIM_SPIN_CONTENDED];
		l->logged_acquire_sample = st->logged[SIM_SPIN_ACQUIRE_SAMPLE];
		l->untracked = st->untracked;
		l->guarded = st->guarded;
		l->dropped = st->dropped;
		free(st);
	}
}

/* A record the producer or the truth could not take (@rc), said once. */
static int feed_error(struct gen_run *g, const struct etwforge_run_opts *o, int rc,
		      struct etwforge_error *err)
{
	if (rc == -EIO && g->truth_f && ferror(g->truth_f)) {
		/* the stream's: EPIPE for a closed pipe (a worker's, with --jobs) */
		int e = g->jobs && gen_jobs_errno(g->jobs) ? gen_jobs_errno(g->jobs)
			: errno				   ? errno
							   : EIO;

		return error_fail(err, -e, ERR_DATA, "%s: write failed: %s", o->truth, strerror(e));
	}
	session_run_error(&g->run, rc, err);
	return rc;
}

/* Run the machine to its end, reporting progress between slices. */
static int simulate(struct gen_run *g, const struct etwforge_run_opts *o, double t0,
		    struct etwforge_error *err)
{
	double every = (o->progress_ms ? o->progress_ms : 200) / 1000.0, last = t0;
	uint64_t t = 0, slices = 0;
	char msg[1024];
	int rc;

	for (;;) {
		t += SLICE_NS;
		rc = sched_run_until(g->sched, t);
		if (rc < 0) {
			if (rc == -EDEADLK && spin_stall_describe(g->spin, msg, sizeof(msg)) > 0) {
				/* a fault of the model: what it wrote so far is not a trace */
				return error_fail(err, rc, ERR_DATA, "%s", msg);
			}
			return feed_error(g, o, rc, err);
		}
		if (g->truth_f && !g->jobs && ++slices % 16 == 0) {
			out_writeback(fileno(g->truth_f)); /* the workers' do it with --jobs */
		}
		if (o->progress && wall_seconds() - last >= every) {
			last = wall_seconds();
			report_progress(g, o, t0);
		}
		if (run_stopped(o, err)) {
			return -ECANCELED;
		}
		if (rc == 1) {
			break;
		}
	}
	if (o->progress) {
		report_progress(g, o, t0);
	}
	if (!g->tee.ended) {
		return error_fail(err, -EPROTO, ERR_DATA,
				  "the simulation ended without an end record");
	}
	if (g->jobs) {
		/* the workers' last chunks, then the truth's end line after theirs */
		rc = gen_jobs_drain(g->jobs);
		if (rc < 0) {
			return feed_error(g, o, rc, err);
		}
		if (g->truth_f && (rc = g->tee.truth.ops->end(g->tee.truth.ctx, &g->tee.end)) < 0) {
			return feed_error(g, o, rc, err);
		}
	}
	return 0;
}

/*
 * --jobs: workers encode and write the truth; the machine fires into them.
 * Their number: what was asked less the simulation's thread, at most one
 * per CPU of the machine (a worker encodes a share of the CPUs).
 */
static int jobs_begin(struct gen_run *g, const struct etwforge_run_opts *o,
		      struct etwforge_error *err)
{
	unsigned workers = o->jobs > 1 ? o->jobs - 1 : 0;
	int rc;

	if (workers > g->sc->trace.cpus) {
		workers = g->sc->trace.cpus;
	}
	if (!workers) {
		return 0;
	}
	rc = gen_jobs_start(&g->jobs, &g->run, workers, g->sc->sched.ncounters, g->truth_f,
			    &g->sc->trace, o->truth_logged_spinlocks);
	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "cannot start the workers: %s", strerror(-rc));
	}
	g->tee.prod = gen_jobs_sink(g->jobs);
	if (g->truth_f) {
		g->tee.have_truth = false; /* the workers write it; the end line is ours */
	}
	return 0;
}

static int simulate_only(const struct scenario *sc, struct etwforge_summary *sum, double t0,
			 struct etwforge_error *err);

int run_generate(const struct scenario *sc, const struct etwforge_run_opts *opts,
		 struct etwforge_summary *sum, struct etwforge_error *err)
{
	static const struct etwforge_run_opts no_opts;
	const struct etwforge_run_opts *o = opts ? opts : &no_opts;
	struct gen_run g = {.truth_i = -1, .json_i = -1};
	struct etwforge_summary local;
	double t0 = wall_seconds();
	uint32_t tick0;
	int rc;

	if (o->simulate_only) {
		return simulate_only(sc, sum, t0, err);
	}
	g.sc = malloc(sizeof(*g.sc));
	if (!g.sc) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	*g.sc = *sc;
	sched_clocks_at(&g.sc->sched, 0, g.sc->trace.start_ts, &tick0);
	g.sc->trace.have_start_ts = true;
	rc = open_outputs(&g, o, err);
	if (rc < 0) {
		goto out;
	}
	g.tee.prod = session_run_sink(&g.run);
	g.sched = sched_create(&g.sc->sched, (struct trace_sink){&tee_ops, &g.tee});
	if (!g.sched) {
		rc = error_fail(err, -errno, errno == EINVAL ? ERR_INPUT : ERR_DATA,
				"cannot build the machine: %s", strerror(errno));
		goto out;
	}
	rc = pebs_attach(g.sched);
	if (rc < 0) {
		rc = error_fail(err, rc, ERR_DATA, "cannot give the machine its PMU: %s",
				strerror(-rc));
		goto out;
	}
	rc = spin_attach(g.sched, &g.sc->lock_model, &g.spin);
	if (rc < 0) {
		rc = error_fail(err, rc, ERR_DATA, "cannot give the machine its spin locks: %s",
				strerror(-rc));
		goto out;
	}
	rc = truth_begin(&g, o, err);
	if (rc < 0) {
		goto out;
	}
	rc = jobs_begin(&g, o, err);
	if (rc < 0) {
		goto out;
	}
	rc = ident_begin(&g, err);
	if (rc < 0) {
		goto out;
	}
	if (g.sc->lock_model.instrumented && !g.sc->lock_model.nlocks && o->notes) {
		fprintf(o->notes, "etwforge gen: a session logs spin locks but locks: [] names "
				  "none, so it gets no 0x0529 events\n");
	}
	rc = simulate(&g, o, t0, err);
	if (rc < 0) {
		goto out;
	}
	gen_jobs_stop(g.jobs);
	g.jobs = NULL;
	rc = session_run_finish(&g.run, &g.tee.end, err);
	if (rc < 0) {
		goto out;
	}
	summary_fill(sum ? sum : &local, &g.sc->trace, &g.run, &g.tee.end, wall_seconds() - t0);
	locks_fill(sum ? sum : &local, &g);
	if (g.json_f) {
		etwforge_summary_print(g.json_f, sum ? sum : &local, true);
	}
	if (run_stopped(o, err)) {
		rc = -ECANCELED;
		goto out;
	}
	if (o->sz > offsetof(struct etwforge_run_opts, symbols) && o->symbols &&
	    (rc = run_write_symbols(&g.sc->modules, o->symbols, err)) < 0) {
		goto out;
	}
	rc = session_run_commit(&g.run, err);
	if (rc < 0) {
		goto out;
	}
	session_run_notes(&g.sc->trace, g.labels, false, "gen", o->notes);
	if (o->notes) {
		char span[64];

		sk_format_duration(span, sizeof(span), g.sc->sched.duration_ns);
		summary_note_empty(o->notes, "gen", sum ? sum : &local, span);
	}
	rc = error_ok(err);
out:
	gen_free(&g);
	return rc;
}

/* ---- the machine alone ---------------------------------------------------- */

static int count_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	(void)cs;
	++*(uint64_t *)ctx;
	return 0;
}

static int count_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	(void)ctx;
	(void)sl;
	return 0;
}

static int count_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	(void)ctx;
	(void)st;
	return 0;
}

static int count_end(void *ctx, const struct sim_end *end)
{
	(void)ctx;
	(void)end;
	return 0;
}

static int count_record(void *ctx, const struct sim_record *r)
{
	(void)ctx;
	(void)r;
	return 0;
}

static const struct trace_sink_ops count_ops = {
	.cswitch = count_cswitch,
	.spinlock = count_spinlock,
	.ccswap_stop = count_stop,
	.end = count_end,
	.record = count_record,
};

int run_simulate(const struct scenario *sc, uint64_t *switches)
{
	struct scenario *copy = malloc(sizeof(*copy));
	struct ident_cfg ic;
	struct sched *s = NULL;
	struct spin *spin = NULL;
	struct ident *ident = NULL;
	uint64_t t = 0;
	int rc;

	*switches = 0;
	if (!copy) {
		return -ENOMEM;
	}
	*copy = *sc;
	s = sched_create(&copy->sched, (struct trace_sink){&count_ops, switches});
	rc = s ? pebs_attach(s) : -errno;
	if (rc >= 0) {
		rc = spin_attach(s, &copy->lock_model, &spin);
	}
	if (rc >= 0) {
		scenario_ident_cfg(copy, &ic);
		if (ident_wanted(&ic) && (rc = ident_attach(s, &ic, &ident)) >= 0) {
			rc = ident_start(ident);
		}
	}
	while (rc >= 0) {
		t += SLICE_NS;
		rc = sched_run_until(s, t);
		if (rc == 1) {
			rc = 0;
			break;
		}
	}
	sched_destroy(s);
	free(copy);
	return rc;
}

/* etwforge_run_opts.simulate_only: run_simulate(), and a summary of what it did. */
static int simulate_only(const struct scenario *sc, struct etwforge_summary *sum, double t0,
			 struct etwforge_error *err)
{
	uint64_t switches;
	int rc = run_simulate(sc, &switches);

	if (rc < 0) {
		return error_fail(err, rc, rc == -EINVAL ? ERR_INPUT : ERR_DATA,
				  "cannot run the machine: %s", strerror(-rc));
	}
	if (sum) {
		memset(sum, 0, sizeof(*sum));
		sum->t.seed = sc->sched.seed;
		sum->t.duration_ns = sc->sched.duration_ns;
		sum->t.cpus = sc->sched.cpus;
		sum->t.switches = switches;
		sum->t.wall_seconds = wall_seconds() - t0;
	}
	return error_ok(err);
}
