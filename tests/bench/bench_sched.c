// SPDX-License-Identifier: MIT
/*
 * tests/bench/bench_sched.c - the scheduler model alone, into a counting
 * sink: switches per second at 8, 64 and 512 CPUs and the cost of a switch
 * at 512 CPUs relative to 8, for two workloads: "scaled", a server-like
 * machine whose threads grow with the CPU count (each CPU sees the same
 * load; 3 PMC counters), and "fixed", the default desktop's 37 threads on
 * more and more CPUs (no counters). Wired as `meson test --benchmark
 * sched`; no timing is asserted anywhere, it only prints.
 *
 *   bench_sched [--cpus N]... [--workload scaled|fixed|both] [--scale X]
 *               [--reps R] [--digest]
 *
 * --scale multiplies the simulated duration (default 1: about 1.2 M switches
 * per CPU count), --reps takes the median of R timed runs (default 3),
 * --digest also prints an XXH3-64 of every record (fields serialized one by
 * one, little-endian), to check that an optimization left the records alone.
 * bench_sched_cfg() and bench_sched_once() are kept free of I/O so a later
 * `etwforge bench` can reuse them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include "pebs_model/pebs.h"
#include "scheduler_model/sched.h"

#define MAX_RUNS 16

struct bench_sink {
	uint64_t switches;
	uint64_t ends;
	XXH3_state_t *hash; /* NULL: count only */
};

static void put64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++) {
		p[i] = (uint8_t)(v >> (8 * i));
	}
}

/* Every field of @cs, little-endian, in declaration order. */
static size_t serialize(const struct sim_cswitch *cs, uint8_t *out)
{
	uint8_t *p = out;

	put64(p, cs->cpu), p += 8;
	put64(p, cs->tick), p += 8;
	for (unsigned k = 0; k < SIM_CLOCK_SLOTS; k++) {
		put64(p, cs->ts[k]), p += 8;
	}
	put64(p, cs->old_tid), p += 8;
	*p++ = (uint8_t)cs->old_pri;
	*p++ = (uint8_t)cs->old_base_pri;
	*p++ = cs->old_state;
	*p++ = cs->old_wait_reason;
	*p++ = cs->old_wait_mode;
	put64(p, cs->old_ideal_cpu), p += 8;
	put64(p, (uint64_t)(int64_t)cs->old_remaining_quantum), p += 8;
	*p++ = cs->old_qos;
	*p++ = cs->prev_cstate;
	*p++ = (uint8_t)cs->old_rank; /* always below 256 in the model */
	put64(p, cs->new_tid), p += 8;
	*p++ = (uint8_t)cs->new_pri;
	*p++ = (uint8_t)cs->new_pri_decrement;
	put64(p, cs->new_wait_ticks), p += 8;
	*p++ = cs->new_qos;
	for (unsigned k = 0; k < SIM_MAX_COUNTERS; k++) {
		put64(p, cs->pmc[k]), p += 8;
	}
	put64(p, cs->pebs_index), p += 8;
	return (size_t)(p - out);
}

static int on_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	struct bench_sink *b = ctx;

	b->switches++;
	if (b->hash) {
		uint8_t buf[512];

		XXH3_64bits_update(b->hash, buf, serialize(cs, buf));
	}
	return 0;
}

static int on_end(void *ctx, const struct sim_end *end)
{
	struct bench_sink *b = ctx;

	(void)end;
	b->ends++;
	return 0;
}

static const struct trace_sink_ops bench_ops = {
	.cswitch = on_cswitch,
	.end = on_end,
};

static struct sched_group *add_group(struct sched_cfg *cfg, const char *name, unsigned count,
				     int8_t base, enum sched_behaviour b, uint64_t period_ns)
{
	struct sched_group *g = &cfg->groups[cfg->ngroups++];

	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->count = count ? count : 1;
	g->base_priority = base;
	g->behaviour = b;
	g->period_ns = period_ns;
	return g;
}

/** enum bench_workload - what the machine runs. */
enum bench_workload {
	BENCH_SCALED = 0, /* server64's threads, per CPU */
	BENCH_FIXED,	  /* the default desktop's threads, whatever the CPUs */
};

static const char *const workload_names[] = {"scaled", "fixed"};

/**
 * bench_sched_cfg - the machine of @w on @cpus CPUs. BENCH_SCALED: the
 * server of tools/scenarios/server64.yaml scaled to @cpus (4 request
 * workers per CPU, CPU-bound batch jobs pinned to the upper half, kernel
 * workers, short-lived handlers, one heartbeat), 3 PMC counters, simulated
 * for 320 CPU-seconds (its 64-CPU run is server64's scheduler, 10 times as
 * long). BENCH_FIXED: sched_cfg_defaults() on @cpus CPUs for 150 s.
 * @cfg:       filled in
 * @w:         the workload
 * @cpus:      2..1024 (the default desktop pins a group to CPUs 0 and 1)
 * @scale_pct: duration scale in percent (100 = about 1.2 M switches)
 */
void bench_sched_cfg(struct sched_cfg *cfg, enum bench_workload w, unsigned cpus,
		     unsigned scale_pct);

void bench_sched_cfg(struct sched_cfg *cfg, enum bench_workload w, unsigned cpus,
		     unsigned scale_pct)
{
	struct sched_group *g;

	sched_cfg_defaults(cfg);
	if (w == BENCH_FIXED) {
		cfg->cpus = cpus;
		cfg->duration_ns = 150000000000ull / 100u * scale_pct;
		return;
	}
	cfg->ngroups = 0;
	cfg->cpus = cpus;
	cfg->cpu_mhz = 2400;
	cfg->seed = 64;
	cfg->max_wait_reason = 43;
	cfg->duration_ns = 320000000000ull / cpus * scale_pct / 100u;
	cfg->ncounters = 3;

	g = add_group(cfg, "request_workers", 4 * cpus, 9, SCHED_IO_BOUND, 150000);
	g->wait_weights[SCHED_WR_WR_QUEUE] = 6;
	g->wait_weights[SCHED_WR_EXECUTIVE] = 2;
	g->wait_weights[40] = 1; /* WrIoRing */
	g->wait_weights[SCHED_WR_WR_PUSH_LOCK] = 1;
	g->user_wait_pct = 60;
	g = add_group(cfg, "batch", 3 * cpus / 4, 7, SCHED_CPU_BOUND, 50000000);
	for (unsigned c = cpus / 2; c < cpus; c++) {
		g->affinity[c / 64] |= UINT64_C(1) << (c % 64);
	}
	g->user_wait_pct = 50;
	g = add_group(cfg, "system_workers", cpus / 2, 13, SCHED_IO_BOUND, 80000);
	g->wait_weights[SCHED_WR_WR_QUEUE] = 5;
	g->wait_weights[SCHED_WR_WR_RESOURCE] = 1;
	g->wait_weights[SCHED_WR_WR_MUTEX] = 1;
	g = add_group(cfg, "handlers", cpus, 8, SCHED_IO_BOUND, 200000);
	g->lifetime_ns = 100000000;
	g->user_wait_pct = 50;
	g = add_group(cfg, "heartbeat", 1, 15, SCHED_PERIODIC, 5000000);
	g->duty_pct = 2;
	g->user_wait_pct = 50;
}

/*
 * CPU time of the process, not wall time: on a shared machine a run that
 * waits for a core is not charged for the wait.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/**
 * bench_sched_once - create, run to the end and destroy one scheduler.
 * @cfg:      the machine
 * @switches: set to the switches fired
 * @digest:   NULL, or set to the XXH3-64 of the records (slower)
 * Return: CPU seconds spent in sched_run_until (creation excluded), or a
 * negative value if the scheduler could not be created or failed.
 */
double bench_sched_once(const struct sched_cfg *cfg, uint64_t *switches, uint64_t *digest);

double bench_sched_once(const struct sched_cfg *cfg, uint64_t *switches, uint64_t *digest)
{
	struct bench_sink b = {0};
	struct trace_sink sink = {&bench_ops, &b};
	struct sched *s;
	double t0, t;
	int rc;

	if (digest) {
		b.hash = XXH3_createState();
		if (!b.hash) {
			return -1.0;
		}
		XXH3_64bits_reset(b.hash);
	}
	s = sched_create(cfg, sink);
	if (!s || pebs_attach(s) < 0) {
		sched_destroy(s);
		XXH3_freeState(b.hash);
		return -1.0;
	}
	t0 = now_s();
	rc = sched_run_until(s, UINT64_MAX);
	t = now_s() - t0;
	sched_destroy(s);
	*switches = b.switches;
	if (digest) {
		*digest = XXH3_64bits_digest(b.hash);
		XXH3_freeState(b.hash);
	}
	return rc == 1 && b.ends == 1 ? t : -1.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Run @w at each CPU count; print a line each and the ratio. Return: 0, or 1 on failure. */
static int bench_workload(enum bench_workload w, const unsigned *cpus, unsigned ncpus,
			  unsigned reps, unsigned scale, bool digest)
{
	double ns_per[8] = {0};

	for (unsigned k = 0; k < ncpus; k++) {
		struct sched_cfg cfg;
		double t[MAX_RUNS], med;
		uint64_t n = 0, d = 0;

		bench_sched_cfg(&cfg, w, cpus[k], scale);
		for (unsigned r = 0; r < reps; r++) {
			t[r] = bench_sched_once(&cfg, &n, digest && r == 0 ? &d : NULL);
			if (t[r] < 0) {
				fprintf(stderr, "the scheduler failed at %u CPUs\n", cpus[k]);
				return 1;
			}
		}
		if (digest) {
			/* the first run hashed: time the others if there are any */
			t[0] = reps > 1 ? t[1] : t[0];
		}
		qsort(t, reps, sizeof(t[0]), cmp_double);
		med = t[reps / 2];
		ns_per[k] = med * 1e9 / (double)n;
		printf("sched %-6s %4u CPUs: %8llu switches in %.3f s CPU (median of %u) = %6.2f M "
		       "switches/s, %6.1f ns/switch",
		       workload_names[w], cpus[k], (unsigned long long)n, med, reps,
		       (double)n / med * 1e-6, ns_per[k]);
		if (digest) {
			printf(", digest %016llx", (unsigned long long)d);
		}
		printf("\n");
	}
	if (ncpus > 1 && ns_per[0] > 0) {
		printf("sched %-6s cost per switch at %u CPUs / at %u CPUs: %.2f\n",
		       workload_names[w], cpus[ncpus - 1], cpus[0], ns_per[ncpus - 1] / ns_per[0]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned cpus[8] = {8, 64, 512}, ncpus = 3, user_cpus = 0, reps = 3, scale = 100;
	bool digest = false, run[2] = {true, true};

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--cpus") && a + 1 < argc && user_cpus < 8) {
			cpus[user_cpus++] = (unsigned)strtoul(argv[++a], NULL, 0);
			ncpus = user_cpus;
		} else if (!strcmp(argv[a], "--scale") && a + 1 < argc) {
			scale = (unsigned)(strtod(argv[++a], NULL) * 100.0);
		} else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
			reps = (unsigned)strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--digest")) {
			digest = true;
		} else if (!strcmp(argv[a], "--workload") && a + 1 < argc) {
			a++;
			run[BENCH_SCALED] = strcmp(argv[a], "fixed") != 0;
			run[BENCH_FIXED] = strcmp(argv[a], "scaled") != 0;
		} else {
			fprintf(stderr,
				"usage: %s [--cpus N]... [--workload scaled|fixed|both] "
				"[--scale X] [--reps R] [--digest]\n",
				argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAX_RUNS || scale < 1) {
		fprintf(stderr, "--reps must be 1..%u, --scale > 0\n", MAX_RUNS);
		return 2;
	}
	for (unsigned k = 0; k < ncpus; k++) {
		if (cpus[k] < 2 || cpus[k] > SCHED_MAX_CPUS) {
			fprintf(stderr, "--cpus must be 2..%u\n", SCHED_MAX_CPUS);
			return 2;
		}
	}
	for (unsigned w = 0; w < 2; w++) {
		if (run[w] &&
		    bench_workload((enum bench_workload)w, cpus, ncpus, reps, scale, digest)) {
			return 1;
		}
	}
	return 0;
}
