// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/traits.c - what a trace looks like (etwforge_traits_*):
 * the statistics that tell a real machine's trace from a made-up one, read
 * from one full analysis of the file (its items for samples and wake-ups,
 * its tables for threads, processes and CPUs, its identity for the rundown),
 * and the distance of each between two traces.
 *
 *   analysis (FULL, items SAMPLE | WAKE | SLICE) ──► per-CPU sample spacing,
 *        │                                            shared sample times,
 *        │                                            IP and latency counts
 *        └─ tables, identity, file info ───────────► the rest
 *
 * Distances are in [0, 1]: amounts by their ratio, shares by their
 * difference, distributions by Kolmogorov-Smirnov, mixes by Jensen-Shannon.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "producer/etw_names.h"
#include "tools/lib/analysis/analysis.h"
#include "tools/lib/analysis/ip_counts.h"
#include "tools/lib/analysis/state.h"
#include "tools/lib/analysis/traits.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/json_out.h"
#include "tools/lib/read/read.h"

enum trait_id {
	T_CPUS,
	T_DURATION,
	T_SAMPLE_RATE,
	T_SWITCH_RATE,
	T_SPACING_CV,
	T_SHARED_TS,
	T_TOP10_IPS,
	T_IDLE_TOP_IP,
	T_IDLE_PRIORITY,
	T_DPC_ISR,
	T_IN_MODULE,
	T_STACK_DEPTH,
	T_THREADS_SAMPLED,
	T_CPU_CV_IN_PROCESS,
	T_PROCESSES_AT_START,
	T_THREADS_AT_START,
	T_TID_MULTIPLE_OF_4,
	T_TIDS_BELOW_MAX_PID,
	T_TIDS_REUSED,
	T_RUNDOWN_MS,
	T_RUNDOWN_CPUS,
	T_RUNDOWN_INTERLEAVED,
	T_RUNDOWN_CONTEXT,
	T_CPU_BUSY,
	T_CPU_BUSY_BY_INDEX,
	T_READY_REASONS,
	T_WAKE_LATENCY,
	T_WAKE_TOP2,
	T_WAKE_BOOST,
	T_RUN_BURST,
	T_WAIT,
	T_ROUND_TIMES,
	T_COUNT
};

#define BUSY_BUCKETS 20u /* a CPU's busy share in steps of 5 % */
#define PRIORITIES   32u

/* What each trait is, in the order of enum trait_id. */
static const struct {
	const char *name, *what, *unit;
	enum etwforge_trait_kind kind;
	bool scored;
} defs[T_COUNT] = {
	{"cpus", "CPUs in the trace", "", ETWFORGE_TRAIT_AMOUNT, false},
	{"duration", "length of the trace", "s", ETWFORGE_TRAIT_AMOUNT, false},
	{"sample_rate", "samples per CPU per second", "", ETWFORGE_TRAIT_AMOUNT, false},
	{"switch_rate", "context switches per CPU per second", "", ETWFORGE_TRAIT_AMOUNT, false},
	{"sample_spacing_cv",
	 "spacing of a CPU's samples: coefficient of variation (median of CPUs)", "",
	 ETWFORGE_TRAIT_AMOUNT, true},
	{"sample_times_shared", "share of samples whose timestamp another CPU's sample has too", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"top10_ip_share", "share of samples at the 10 most sampled addresses", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"idle_top_ip_share", "share of idle samples at the most sampled idle address", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"idle_sample_priority", "priority the idle thread's samples report", "",
	 ETWFORGE_TRAIT_MIX, true},
	{"dpc_isr_sample_share", "share of samples taken in a DPC or an interrupt", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"samples_in_module",
	 "share of samples whose address an image of the process or the kernel maps", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"stack_depth", "frames of a sampled stack", "frames", ETWFORGE_TRAIT_DIST_LOG2, true},
	{"threads_sampled", "share of threads with at least one sample", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"thread_cpu_cv",
	 "CPU time of a process's threads: coefficient of variation (median of "
	 "processes with 2 threads or more)",
	 "", ETWFORGE_TRAIT_AMOUNT, true},
	{"processes_at_start", "processes when the trace starts", "", ETWFORGE_TRAIT_AMOUNT, true},
	{"threads_at_start", "threads when the trace starts", "", ETWFORGE_TRAIT_AMOUNT, true},
	{"tids_multiple_of_4", "share of thread IDs that are multiples of 4", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"tids_below_max_pid",
	 "share of thread IDs below the largest process ID (IDs from one pool)", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"tids_reused", "share of thread IDs given to two threads or more", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"rundown_time", "time from the first to the last Process or Thread DCStart", "ms",
	 ETWFORGE_TRAIT_AMOUNT, true},
	{"rundown_cpus", "CPUs the start rundown's records are on", "", ETWFORGE_TRAIT_AMOUNT,
	 true},
	{"rundown_interleaved",
	 "share of other events (samples, switches) among the events of the "
	 "rundown's time",
	 "", ETWFORGE_TRAIT_FRACTION, true},
	{"rundown_header_context",
	 "share of DCStart records whose header names a thread or process (the controller's)", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"cpu_busy_share", "how busy each CPU is (share of its time a thread ran)", "",
	 ETWFORGE_TRAIT_DIST_LINEAR, true},
	{"cpu_busy_by_index", "rank correlation of a CPU's number and how busy it is", "",
	 ETWFORGE_TRAIT_SIGNED, true},
	{"ready_wait_reasons", "wait reason a thread switched out in state Ready is given", "",
	 ETWFORGE_TRAIT_MIX, true},
	{"wake_latency", "ReadyThread to switch-in", "ns", ETWFORGE_TRAIT_DIST_LOG2, true},
	{"wake_latency_top2_share",
	 "share of wake-ups in the two fullest quarter-octave latency bins", "",
	 ETWFORGE_TRAIT_FRACTION, true},
	{"wake_boost", "a woken thread's priority at its switch-in over its base priority", "",
	 ETWFORGE_TRAIT_MIX, true},
	{"run_burst", "how long a thread runs once switched in", "ns", ETWFORGE_TRAIT_DIST_LOG2,
	 true},
	{"wait_time", "how long a thread is out between two runs", "ns", ETWFORGE_TRAIT_DIST_LOG2,
	 true},
	{"round_times", "the start time is a whole second or the uptime a whole minute", "",
	 ETWFORGE_TRAIT_FRACTION, true},
};

static const char *const priority_labels[PRIORITIES] = {
	"0",  "1",  "2",  "3",	"4",  "5",  "6",  "7",	"8",  "9",  "10",
	"11", "12", "13", "14", "15", "16", "17", "18", "19", "20", "21",
	"22", "23", "24", "25", "26", "27", "28", "29", "30", "31",
};

static const char *const boost_labels[AN_BOOSTS] = {
	"-31", "-30", "-29", "-28", "-27", "-26", "-25", "-24", "-23", "-22", "-21", "-20", "-19",
	"-18", "-17", "-16", "-15", "-14", "-13", "-12", "-11", "-10", "-9",  "-8",  "-7",  "-6",
	"-5",  "-4",  "-3",  "-2",  "-1",  "0",	  "+1",	 "+2",	"+3",  "+4",  "+5",  "+6",  "+7",
	"+8",  "+9",  "+10", "+11", "+12", "+13", "+14", "+15", "+16", "+17", "+18", "+19", "+20",
	"+21", "+22", "+23", "+24", "+25", "+26", "+27", "+28", "+29", "+30", "+31",
};

struct etwforge_traits {
	struct etwforge_trait t[T_COUNT];
	uint64_t idle_priority[PRIORITIES];
	uint64_t busy[BUSY_BUCKETS];
	uint64_t reasons[AN_REASONS];
	const char *reason_labels[AN_REASONS];
	uint64_t wake[ETWFORGE_HIST_BUCKETS];
	uint64_t depth[ETWFORGE_HIST_BUCKETS];
	uint64_t boost[AN_BOOSTS];
	uint64_t burst[ETWFORGE_HIST_BUCKETS];
	uint64_t wait[ETWFORGE_HIST_BUCKETS];
};

/* One CPU's samples so far: the spacing's running mean and variance (Welford). */
struct spacing {
	int64_t last;
	uint64_t n; /* samples */
	double mean, m2;
};

/* What the items give, gathered during the pass. */
struct seen {
	struct spacing *cpu; /* AN_MAX_CPUS */
	int64_t prev_t0;     /* the previous sample's time */
	uint64_t group;	     /* samples at @prev_t0 so far */
	unsigned group_cpu;  /* the CPU of the first of them */
	bool group_cpus;     /* another CPU has a sample at @prev_t0 too */
	uint64_t shared;     /* samples at a time another CPU's sample has too */
	uint64_t samples, dpc_isr;
	struct ip_counts ips, idle_ips, latencies;
	int64_t rd_lo, rd_hi; /* the rundown's time, ns (rd_lo > rd_hi: none) */
	uint64_t in_rundown;  /* samples and switches in it */
};

static void set(struct etwforge_traits *t, enum trait_id i, double v)
{
	t->t[i].present = true;
	t->t[i].value = v;
}

/* A distribution or mix of @n counts at @c: present when it counts anything. */
static void set_counts(struct etwforge_traits *t, enum trait_id i, const uint64_t *c, unsigned n)
{
	uint64_t sum = 0, half, at = 0, top = 0;
	unsigned k;

	t->t[i].counts = c;
	t->t[i].ncounts = n;
	for (k = 0; k < n; k++) {
		sum += c[k];
		top = c[k] > top ? c[k] : top;
	}
	if (sum == 0) {
		return;
	}
	if (t->t[i].kind == ETWFORGE_TRAIT_MIX) {
		set(t, i, (double)top / (double)sum);
		return;
	}
	half = (sum + 1) / 2;
	for (k = 0; k < n && at + c[k] < half; k++) {
		at += c[k];
	}
	set(t, i,
	    t->t[i].kind == ETWFORGE_TRAIT_DIST_LINEAR ? (double)k / n
	    : k == 0				       ? 0.0
						       : ldexp(1.0, (int)k));
}

static void on_sample(struct seen *s, const struct etwforge_item *it)
{
	struct spacing *c = &s->cpu[it->cpu % AN_MAX_CPUS];

	s->samples++;
	s->dpc_isr += (it->reason & 3u) != 0;
	if (c->n > 0) {
		double d = (double)(it->t0 - c->last), delta = d - c->mean;
		uint64_t k = c->n; /* intervals so far + 1 */

		c->mean += delta / (double)k;
		c->m2 += delta * (d - c->mean);
	}
	c->n++;
	c->last = it->t0;
	if (s->samples > 1 && it->t0 == s->prev_t0) {
		s->group++;
		s->group_cpus |= it->cpu != s->group_cpu;
	} else {
		s->shared += s->group_cpus ? s->group : 0;
		s->group = 1;
		s->group_cpu = it->cpu;
		s->group_cpus = false;
		s->prev_t0 = it->t0;
	}
	if (it->t0 >= s->rd_lo && it->t0 <= s->rd_hi) {
		s->in_rundown++;
	}
}

/* The median of @v[0..n) (sorted here). */
static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The sample traits from @s. Return: 0, or -ENOMEM. */
static int sample_traits(struct etwforge_traits *t, struct seen *s, uint64_t idle_samples)
{
	double *cv = malloc(AN_MAX_CPUS * sizeof(*cv));
	size_t n = 0, nips = 0;
	struct etwforge_ip_count *ips;
	uint64_t top = 0;

	if (!cv) {
		return -ENOMEM;
	}
	for (unsigned c = 0; c < AN_MAX_CPUS; c++) {
		const struct spacing *sp = &s->cpu[c];

		if (sp->n >= 3 && sp->mean > 0) {
			cv[n++] = sqrt(sp->m2 / (double)(sp->n - 2)) / sp->mean;
		}
	}
	if (n) {
		set(t, T_SPACING_CV, median(cv, n));
	}
	free(cv);
	if (s->samples == 0) {
		return 0;
	}
	s->shared += s->group_cpus ? s->group : 0;
	set(t, T_SHARED_TS, (double)s->shared / (double)s->samples);
	set(t, T_DPC_ISR, (double)s->dpc_isr / (double)s->samples);
	ips = ip_counts_sorted(&s->ips, &nips);
	if (!ips && nips) {
		return -ENOMEM;
	}
	for (size_t i = 0; i < nips && i < 10; i++) {
		top += ips[i].samples;
	}
	free(ips);
	set(t, T_TOP10_IPS, (double)top / (double)s->samples);
	if (idle_samples) {
		ips = ip_counts_sorted(&s->idle_ips, &nips);
		if (!ips && nips) {
			return -ENOMEM;
		}
		set(t, T_IDLE_TOP_IP, nips ? (double)ips[0].samples / (double)idle_samples : 0.0);
		free(ips);
	}
	return 0;
}

/* Rank correlation of the CPUs' numbers (@n of them, in order) and @busy. */
static double spearman(const double *busy, unsigned n)
{
	double *rank = calloc(n, sizeof(*rank)), mean = (n - 1) / 2.0, sxy = 0, sxx = 0, syy = 0;

	if (!rank) {
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned below = 0, equal = 0;

		for (unsigned j = 0; j < n; j++) {
			below += busy[j] < busy[i];
			equal += busy[j] == busy[i];
		}
		rank[i] = below + (equal - 1) / 2.0; /* ties share their mean rank */
	}
	for (unsigned i = 0; i < n; i++) {
		sxy += (i - mean) * (rank[i] - mean);
		sxx += (i - mean) * (i - mean);
		syy += (rank[i] - mean) * (rank[i] - mean);
	}
	free(rank);
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* The CPU traits from the analysis's CPU table. Return: 0, or -ENOMEM. */
static int cpu_traits(struct etwforge_traits *t, const struct etwforge_analysis *a)
{
	const struct etwforge_analysis_totals *tot = analysis_totals(a);
	unsigned n = analysis_cpus(a), m = 0;
	double *busy = calloc(n ? n : 1, sizeof(*busy));

	if (!busy) {
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct etwforge_cpu_row *c = analysis_cpu(a, i);
		uint64_t all = c->busy_ns + c->idle_ns;

		if (all) {
			busy[m] = (double)c->busy_ns / (double)all;
			t->busy[busy[m] >= 1 ? BUSY_BUCKETS - 1
					     : (unsigned)(busy[m] * BUSY_BUCKETS)]++;
			m++;
		}
	}
	if (m && tot->switches) {
		set_counts(t, T_CPU_BUSY, t->busy, BUSY_BUCKETS);
		if (m >= 3) {
			set(t, T_CPU_BUSY_BY_INDEX, spearman(busy, m));
		}
	}
	free(busy);
	return 0;
}

/* The thread and process traits from the tables. Return: 0, or -ENOMEM. */
static int table_traits(struct etwforge_traits *t, const struct etwforge_analysis *a,
			uint64_t samples)
{
	const struct etwforge_analysis_totals *tot = analysis_totals(a);
	size_t nt = tot->threads, np = tot->processes, named = 0, at_start = 0, sampled = 0;
	size_t tids = 0, mult4 = 0, below = 0, reused = 0, procs_start = 0, ncv = 0;
	double *sum = calloc(np + 1, sizeof(*sum)), *sq = calloc(np + 1, sizeof(*sq));
	size_t *cnt = calloc(np + 1, sizeof(*cnt));
	uint32_t max_pid = 0;
	int rc = 0;

	if (!sum || !sq || !cnt) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < np; i++) {
		const struct etwforge_process_row *p = analysis_process(a, i);

		max_pid = p->pid > max_pid ? p->pid : max_pid;
		procs_start += p->start_ns == INT64_MIN;
	}
	for (size_t i = 0; i < nt; i++) {
		const struct etwforge_thread_row *r = analysis_thread(a, i);
		const struct an_tid *e;

		for (unsigned k = 0; k < ETWFORGE_HIST_BUCKETS && a->id.full; k++) {
			t->burst[k] += r->burst_hist ? r->burst_hist[k] : 0;
			t->wait[k] += r->wait_hist ? r->wait_hist[k] : 0;
		}
		if (!r->named) {
			continue;
		}
		named++;
		at_start += r->start_ns == INT64_MIN;
		sampled += r->samples > 0;
		if (r->process >= 0 && (size_t)r->process < np) {
			sum[r->process] += (double)r->cpu_ns;
			sq[r->process] += (double)r->cpu_ns * (double)r->cpu_ns;
			cnt[r->process]++;
		}
		/* each TID once: at its first named row */
		e = id_map_get(&a->id.tids, r->tid);
		if (e && e->head >= 0) {
			int64_t first = -1, rows = 0;

			for (int64_t k = e->head; k >= 0; k = a->id.threads[k].next) {
				if (a->id.threads[k].named) {
					first = first < 0 ? k : first;
					rows++;
				}
			}
			if (first == (int64_t)i) {
				tids++;
				mult4 += r->tid % 4 == 0;
				below += r->tid < max_pid;
				reused += rows > 1;
			}
		}
	}
	if (np) {
		set(t, T_PROCESSES_AT_START, (double)procs_start);
	}
	if (named) {
		set(t, T_THREADS_AT_START, (double)at_start);
		set(t, T_TID_MULTIPLE_OF_4, (double)mult4 / (double)tids);
		set(t, T_TIDS_REUSED, (double)reused / (double)tids);
		if (np) {
			set(t, T_TIDS_BELOW_MAX_PID, (double)below / (double)tids);
		}
		if (samples) {
			set(t, T_THREADS_SAMPLED, (double)sampled / (double)named);
		}
	}
	for (size_t p = 0; p < np; p++) {
		if (cnt[p] >= 2 && sum[p] > 0) {
			double mean = sum[p] / (double)cnt[p];
			double var = sq[p] / (double)cnt[p] - mean * mean;

			sum[ncv++] = sqrt(var > 0 ? var : 0) / mean;
		}
	}
	if (ncv && (tot->busy_ns || tot->cpu_from_samples)) {
		set(t, T_CPU_CV_IN_PROCESS, median(sum, ncv));
	}
out:
	free(sum);
	free(sq);
	free(cnt);
	return rc;
}

/* What the pass counted on its way: reasons, boosts, distributions. */
static void pass_traits(struct etwforge_traits *t, const struct etwforge_analysis *a,
			struct seen *s)
{
	const struct etwforge_analysis_totals *tot = analysis_totals(a);
	size_t n = 0;
	struct etwforge_ip_count *lat;

	memcpy(t->reasons, a->ready_reasons, sizeof(t->reasons));
	set_counts(t, T_READY_REASONS, t->reasons, AN_REASONS);
	memcpy(t->wake, a->wake_hist, sizeof(t->wake));
	set_counts(t, T_WAKE_LATENCY, t->wake, ETWFORGE_HIST_BUCKETS);
	memcpy(t->boost, a->boosts, sizeof(t->boost));
	set_counts(t, T_WAKE_BOOST, t->boost, AN_BOOSTS);
	set_counts(t, T_RUN_BURST, t->burst, ETWFORGE_HIST_BUCKETS);
	set_counts(t, T_WAIT, t->wait, ETWFORGE_HIST_BUCKETS);
	set_counts(t, T_IDLE_PRIORITY, t->idle_priority, PRIORITIES);
	if (tot->samples) {
		set(t, T_IN_MODULE, (double)tot->samples_in_image / (double)tot->samples);
	}
	memcpy(t->depth, a->depth_hist, sizeof(t->depth));
	set_counts(t, T_STACK_DEPTH, t->depth, ETWFORGE_HIST_BUCKETS);
	lat = ip_counts_sorted(&s->latencies, &n);
	if (lat && tot->wakeups) {
		set(t, T_WAKE_TOP2,
		    (double)(lat[0].samples + (n > 1 ? lat[1].samples : 0)) / (double)tot->wakeups);
	}
	free(lat);
}

/* The rundown's and the clock's traits. */
static void file_traits(struct etwforge_traits *t, const struct etwforge_analysis *a,
			const struct seen *s)
{
	const struct etwforge_analysis_totals *tot = analysis_totals(a);
	const struct an_rundown *rd = &a->id.rundown;
	const struct etwforge_file_info *fi = read_file_info(a->f);
	double secs = (double)(tot->to_ns - tot->from_ns) / 1e9;

	set(t, T_CPUS, (double)tot->cpus);
	if (secs > 0) {
		set(t, T_DURATION, secs);
		if (tot->cpus) {
			if (tot->samples) {
				set(t, T_SAMPLE_RATE, (double)tot->samples / tot->cpus / secs);
			}
			if (tot->switches) {
				set(t, T_SWITCH_RATE, (double)tot->switches / tot->cpus / secs);
			}
		}
	}
	if (rd->records) {
		set(t, T_RUNDOWN_MS, (double)(s->rd_hi - s->rd_lo) / 1e6);
		set(t, T_RUNDOWN_CPUS, rd->cpus);
		set(t, T_RUNDOWN_INTERLEAVED,
		    (double)s->in_rundown / (double)(s->in_rundown + rd->records));
		set(t, T_RUNDOWN_CONTEXT, (double)rd->with_context / (double)rd->records);
	}
	if (fi->start_time > 0 && fi->boot_time > 0) {
		bool round = fi->start_time % 10000000 == 0 ||
			     (fi->start_time - fi->boot_time) % 600000000 == 0;

		set(t, T_ROUND_TIMES, round ? 1.0 : 0.0);
	}
}

/* The quarter-octave bin of @ns: floor(4 log2 ns), 0 for 0 and 1 ns. */
static uint64_t quarter_octave(int64_t ns)
{
	return ns > 1 ? (uint64_t)floor(4 * log2((double)ns)) : 0;
}

/* Read @a to its end, gathering what its items say into @s and @t. */
static int read_items(struct etwforge_analysis *a, struct seen *s, struct etwforge_traits *t,
		      struct etwforge_error *err)
{
	const struct etwforge_item *it;
	int rc;

	while ((rc = analysis_next(a, &it, err)) == 1) {
		switch (it->kind) {
		case ETWFORGE_ITEM_SAMPLE:
			on_sample(s, it);
			if (ip_counts_add(&s->ips, it->ip) < 0) {
				return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			}
			if (it->tid == 0) {
				t->idle_priority[(it->reason >> 3) % PRIORITIES]++;
				if (ip_counts_add(&s->idle_ips, it->ip) < 0) {
					return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
				}
			}
			break;
		case ETWFORGE_ITEM_WAKE:
			/* by quarter octaves: a delay of a few constants and their jitter
			 * falls into a few bins, a real distribution into many */
			if (ip_counts_add(&s->latencies, quarter_octave(it->t1 - it->t0)) < 0) {
				return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			}
			break;
		case ETWFORGE_ITEM_SLICE:
			s->in_rundown += it->opened && it->t0 >= s->rd_lo && it->t0 <= s->rd_hi;
			break;
		default:
			break;
		}
	}
	return rc;
}

struct etwforge_traits *traits_new(struct etwforge_file *f, struct etwforge_error *err)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = ETWFORGE_DETAIL_FULL,
		      .items = ETWFORGE_ITEM_SAMPLE | ETWFORGE_ITEM_WAKE | ETWFORGE_ITEM_SLICE,
		      .keep_going = read_file_keep_going(f));
	struct etwforge_traits *t = calloc(1, sizeof(*t));
	struct seen s = {.cpu = calloc(AN_MAX_CPUS, sizeof(*s.cpu)), .rd_lo = 1, .rd_hi = 0};
	struct etwforge_analysis *a = NULL;
	int rc = 0;

	if (!t || !s.cpu) {
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < T_COUNT; i++) {
		t->t[i] = (struct etwforge_trait){.name = defs[i].name,
						  .what = defs[i].what,
						  .unit = defs[i].unit,
						  .kind = defs[i].kind,
						  .scored = defs[i].scored};
	}
	for (unsigned r = 0; r < AN_REASONS; r++) {
		t->reason_labels[r] = etw_wait_reason_name(r);
	}
	t->t[T_READY_REASONS].labels = t->reason_labels;
	t->t[T_IDLE_PRIORITY].labels = priority_labels;
	t->t[T_WAKE_BOOST].labels = boost_labels;
	a = analysis_new(f, &o, err);
	if (!a) {
		goto fail;
	}
	if (a->id.rundown.records) {
		s.rd_lo = an_ns(&a->clock, a->id.rundown.lo);
		s.rd_hi = an_ns(&a->clock, a->id.rundown.hi);
	}
	rc = read_items(a, &s, t, err);
	if (rc == 0) {
		rc = sample_traits(t, &s, analysis_totals(a)->idle_samples);
	}
	if (rc == 0) {
		rc = table_traits(t, a, analysis_totals(a)->samples);
	}
	if (rc == 0) {
		rc = cpu_traits(t, a);
	}
	if (rc == -ENOMEM) {
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	if (rc < 0) {
		goto fail;
	}
	pass_traits(t, a, &s);
	file_traits(t, a, &s);
	analysis_free(a);
	ip_counts_free(&s.ips);
	ip_counts_free(&s.idle_ips);
	ip_counts_free(&s.latencies);
	free(s.cpu);
	return t;
fail:
	analysis_free(a);
	ip_counts_free(&s.ips);
	ip_counts_free(&s.idle_ips);
	ip_counts_free(&s.latencies);
	free(s.cpu);
	free(t);
	return NULL;
}

void traits_free(struct etwforge_traits *t)
{
	free(t);
}

size_t traits_count(void)
{
	return T_COUNT;
}

const struct etwforge_trait *traits_at(const struct etwforge_traits *t, size_t i)
{
	return t && i < T_COUNT ? &t->t[i] : NULL;
}

/* Kolmogorov-Smirnov distance of two histograms of @n buckets. */
static double ks(const uint64_t *a, const uint64_t *b, unsigned n)
{
	double sa = 0, sb = 0, ca = 0, cb = 0, d = 0;

	for (unsigned k = 0; k < n; k++) {
		sa += (double)a[k];
		sb += (double)b[k];
	}
	for (unsigned k = 0; k < n; k++) {
		ca += (double)a[k] / sa;
		cb += (double)b[k] / sb;
		d = fabs(ca - cb) > d ? fabs(ca - cb) : d;
	}
	return d > 1 ? 1 : d;
}

/* Jensen-Shannon divergence (base 2) of two mixes of @n categories. */
static double js(const uint64_t *a, const uint64_t *b, unsigned n)
{
	double sa = 0, sb = 0, d = 0;

	for (unsigned k = 0; k < n; k++) {
		sa += (double)a[k];
		sb += (double)b[k];
	}
	for (unsigned k = 0; k < n; k++) {
		double p = (double)a[k] / sa, q = (double)b[k] / sb, m = (p + q) / 2;

		d += p > 0 ? p * log2(p / m) / 2 : 0;
		d += q > 0 ? q * log2(q / m) / 2 : 0;
	}
	return d < 0 ? 0 : d > 1 ? 1 : d;
}

int trait_distance(const struct etwforge_trait *a, const struct etwforge_trait *b, double *d)
{
	double x, y, v;

	if (!a || !b || strcmp(a->name, b->name) != 0 || a->kind != b->kind ||
	    a->ncounts != b->ncounts) {
		return -EINVAL;
	}
	if (!a->present || !b->present) {
		return -ENOENT;
	}
	x = a->value;
	y = b->value;
	switch (a->kind) {
	case ETWFORGE_TRAIT_AMOUNT:
		v = x == y ? 0 : 1 - fmin(x, y) / fmax(x, y);
		break;
	case ETWFORGE_TRAIT_FRACTION:
		v = fabs(x - y);
		break;
	case ETWFORGE_TRAIT_SIGNED:
		v = fabs(x - y) / 2;
		break;
	case ETWFORGE_TRAIT_MIX:
		v = js(a->counts, b->counts, a->ncounts);
		break;
	default:
		v = ks(a->counts, b->counts, a->ncounts);
		break;
	}
	*d = v < 0 ? 0 : v > 1 ? 1 : v;
	return 0;
}

double traits_score(const struct etwforge_traits *a, const struct etwforge_traits *b,
		    unsigned *compared)
{
	double sum = 0, d;
	unsigned n = 0;

	for (unsigned i = 0; a && b && i < T_COUNT; i++) {
		if (a->t[i].scored && trait_distance(&a->t[i], &b->t[i], &d) == 0) {
			sum += d;
			n++;
		}
	}
	if (compared) {
		*compared = n;
	}
	return n ? sum / n : 0;
}

static const char *kind_name(enum etwforge_trait_kind k)
{
	static const char *const names[] = {"amount",	 "fraction",	"signed",
					    "dist_log2", "dist_linear", "mix"};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

/* One trace's side of a trait: whether present, its value and its counts. */
static void side_json(struct jout *j, const char *key, const struct etwforge_trait *t)
{
	jout_key(j, key);
	jout_open(j, '{');
	jout_kbool(j, "present", t->present);
	if (t->present) {
		jout_key(j, "value");
		jout_double(j, t->value, 6);
	}
	if (t->ncounts) {
		jout_key(j, "counts");
		jout_open(j, '[');
		for (unsigned k = 0; k < t->ncounts; k++) {
			jout_sep(j);
			jout_u64(j, t->counts[k]);
		}
		jout_close(j, ']');
	}
	jout_close(j, '}');
}

size_t traits_json(const struct etwforge_traits *a, const struct etwforge_traits *b,
		   const char *name_a, const char *name_b, char *buf, size_t cap)
{
	struct jout j;
	unsigned n = 0;
	double score = b ? traits_score(a, b, &n) : 0;

	jout_init(&j, buf, cap);
	jout_open(&j, '{');
	jout_kstr(&j, "a", name_a ? name_a : "");
	if (b) {
		jout_kstr(&j, "b", name_b ? name_b : "");
		jout_key(&j, "score");
		jout_double(&j, score, 6);
		jout_ku64(&j, "compared", n);
	}
	jout_key(&j, "traits");
	jout_open(&j, '[');
	for (unsigned i = 0; i < T_COUNT; i++) {
		const struct etwforge_trait *t = &a->t[i];
		double d;

		jout_sep(&j);
		jout_open(&j, '{');
		jout_kstr(&j, "name", t->name);
		jout_kstr(&j, "what", t->what);
		jout_kstr(&j, "unit", t->unit);
		jout_kstr(&j, "kind", kind_name(t->kind));
		jout_kbool(&j, "scored", t->scored);
		if (t->labels) {
			jout_key(&j, "labels");
			jout_open(&j, '[');
			for (unsigned k = 0; k < t->ncounts; k++) {
				jout_sep(&j);
				jout_str(&j, t->labels[k]);
			}
			jout_close(&j, ']');
		}
		side_json(&j, "a", t);
		if (b) {
			side_json(&j, "b", &b->t[i]);
			jout_key(&j, "distance");
			if (trait_distance(t, &b->t[i], &d) == 0) {
				jout_double(&j, d, 6);
			} else {
				jout_raw(&j, "null", 4);
			}
		}
		jout_close(&j, '}');
	}
	jout_close(&j, ']');
	jout_close(&j, '}');
	return jout_finish(&j);
}

const char *traits_wait_reason_name(unsigned reason)
{
	return etw_wait_reason_name(reason);
}

const char *traits_thread_state_name(unsigned state)
{
	return etw_thread_state_name(state);
}
