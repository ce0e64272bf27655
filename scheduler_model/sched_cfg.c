// SPDX-License-Identifier: MIT
/*
 * scheduler_model/sched_cfg.c - the simulated machine's configuration: a
 * default desktop, the range and overflow rules, names, and the exact
 * integer conversion of simulation time to every clock (KERNEL_FACTS 8.3).
 *
 *   boot_time            start_time (sim t = 0)          sim t
 *   |--------- uptime ------|-------------------------------|
 *   QPC, cycles, TickCount count from boot; system time is start_time + t/100.
 */
#include <errno.h>
#include <string.h>

#include "producer/etw_names.h"
#include "scheduler_model/sched_cfg.h"

#define NS_PER_SEC 1000000000u

/* 2022-06-15 08:53:20 UTC as a FILETIME (the tools' default start time). */
#define DEFAULT_START_TIME 133000000000000000LL
/* one hour of uptime before tracing starts */
#define DEFAULT_UPTIME_100NS (3600LL * 10000000LL)

/* Caps that keep every product below 2^64 and the mean draws sane. */
#define MAX_CPU_MHZ	100000u		    /* 100 GHz */
#define MAX_PERF_FREQ	10000000000ull	    /* 10 GHz: rem * freq < 2^64 */
#define MAX_QUANTUM_NS	10000000000ull	    /* 10 s */
#define MIN_QUANTUM_NS	100000ull	    /* 100 us */
#define MAX_PERIOD_NS	1000000000000ull    /* 1000 s */
#define MIN_PERIOD_NS	1000ull		    /* 1 us */
#define MAX_LIFETIME_NS 1000000000000000ull /* ~11.6 days */
#define MIN_LIFETIME_NS 10000ull	    /* 10 us */

static const char *const behaviour_names[] = {"cpu_bound", "io_bound", "interactive", "periodic"};

const char *sched_behaviour_name(enum sched_behaviour b)
{
	return (unsigned)b < 4 ? behaviour_names[b] : "?";
}

int sched_behaviour_parse(const char *name, enum sched_behaviour *out)
{
	for (unsigned i = 0; i < 4; i++) {
		if (!strcmp(name, behaviour_names[i])) {
			*out = (enum sched_behaviour)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *sched_wait_reason_name(unsigned reason)
{
	return etw_wait_reason_name(reason);
}

static void set_name(struct sched_group *g, const char *name)
{
	size_t n = strlen(name);

	if (n >= sizeof(g->name)) {
		n = sizeof(g->name) - 1;
	}
	memcpy(g->name, name, n);
	g->name[n] = '\0';
}

static struct sched_group *add_group(struct sched_cfg *cfg, const char *name, unsigned count,
				     int8_t base, enum sched_behaviour b, unsigned user_pct)
{
	struct sched_group *g = &cfg->groups[cfg->ngroups++];

	memset(g, 0, sizeof(*g));
	set_name(g, name);
	g->count = count;
	g->base_priority = base;
	g->behaviour = b;
	g->user_wait_pct = user_pct;
	return g;
}

void sched_cfg_defaults(struct sched_cfg *cfg)
{
	struct sched_group *g;

	memset(cfg, 0, sizeof(*cfg));
	cfg->cpus = 8;
	cfg->cpu_mhz = 3000;
	cfg->perf_freq = 10000000;
	cfg->timer_resolution = 156250;
	cfg->start_time = DEFAULT_START_TIME;
	cfg->boot_time = DEFAULT_START_TIME - DEFAULT_UPTIME_100NS;
	cfg->duration_ns = 2ull * NS_PER_SEC;
	cfg->seed = 1;
	cfg->max_wait_reason = 40;  /* win10-1709 (KERNEL_FACTS 5.3) */
	cfg->quantum_ns = 31250000; /* 2 ticks of 15.625 ms */
	cfg->clocks[SIM_CLOCK_QPC] = true;

	/* foreground UI: short bursts, long waits for input, boosted */
	add_group(cfg, "ui", 10, 8, SCHED_INTERACTIVE, 90);
	/* a build: long compute bursts, the odd lock or I/O wait */
	add_group(cfg, "build", 5, 8, SCHED_CPU_BOUND, 20);
	/* file and network workers */
	add_group(cfg, "io", 8, 8, SCHED_IO_BOUND, 30);
	/* audio: real-time priority, every 10 ms for 8% of it */
	g = add_group(cfg, "audio", 2, 24, SCHED_PERIODIC, 100);
	g->period_ns = 10000000;
	g->duty_pct = 8;
	/* short-lived service workers: thread churn */
	g = add_group(cfg, "services", 6, 9, SCHED_IO_BOUND, 10);
	g->lifetime_ns = 400000000;
	/* a low-priority indexer pinned to CPUs 0 and 1 */
	g = add_group(cfg, "indexer", 2, 4, SCHED_CPU_BOUND, 50);
	g->affinity[0] = 0x3;
	/* kernel worker threads */
	add_group(cfg, "system", 4, 13, SCHED_IO_BOUND, 0);
}

static bool affinity_names_a_cpu(const struct sched_group *g, unsigned cpus, bool *any)
{
	bool all_zero = true;

	for (unsigned w = 0; w < SCHED_MAX_CPUS / 64; w++) {
		uint64_t m = g->affinity[w];

		if (!m) {
			continue;
		}
		all_zero = false;
		if (w * 64u >= cpus) {
			continue;
		}
		if (cpus - w * 64u < 64u) {
			m &= (UINT64_C(1) << (cpus - w * 64u)) - 1u;
		}
		if (m) {
			*any = false;
			return true;
		}
	}
	*any = all_zero;
	return all_zero;
}

static const char *check_group(const struct sched_cfg *cfg, const struct sched_group *g)
{
	bool any;

	if (!memchr(g->name, '\0', sizeof(g->name))) {
		return "groups[].name must be NUL-terminated within 64 bytes";
	}
	if (g->base_priority < 1 || g->base_priority > 31) {
		return "groups[].base_priority must be 1..31";
	}
	if ((unsigned)g->behaviour > SCHED_PERIODIC) {
		return "groups[].behaviour is not a known behaviour";
	}
	if (g->behaviour == SCHED_PERIODIC && g->period_ns < MIN_PERIOD_NS) {
		return "groups[].period_ns must be >= 1000 for a periodic group";
	}
	if (g->period_ns > MAX_PERIOD_NS) {
		return "groups[].period_ns must be <= 1000 s";
	}
	if (g->behaviour == SCHED_PERIODIC && (g->duty_pct < 1 || g->duty_pct > 100)) {
		return "groups[].duty_pct must be 1..100 for a periodic group";
	}
	if (g->duty_pct > 100) {
		return "groups[].duty_pct must be <= 100";
	}
	if (g->user_wait_pct > 100) {
		return "groups[].user_wait_pct must be 0..100";
	}
	for (unsigned r = cfg->max_wait_reason; r < SCHED_WAIT_REASONS; r++) {
		if (g->wait_weights[r]) {
			return "groups[].wait_weights names a reason >= max_wait_reason";
		}
	}
	if (!affinity_names_a_cpu(g, cfg->cpus, &any)) {
		return "groups[].affinity names no existing CPU";
	}
	if (g->exit_ns && g->exit_ns <= g->start_ns) {
		return "groups[].exit_ns must be 0 or after start_ns";
	}
	if (g->lifetime_ns &&
	    (g->lifetime_ns < MIN_LIFETIME_NS || g->lifetime_ns > MAX_LIFETIME_NS)) {
		return "groups[].lifetime_ns must be 0 or 10 us..1e15 ns";
	}
	return NULL;
}

/*
 * Every clock of sched_clocks_at() stays at or below 2^63 - 1 for the whole
 * run: the largest integer a truth stream carries (a JSON reader takes
 * signed 64-bit numbers), so a run can always be read back. The messages
 * start with the field they blame, for the scenario to point there.
 */
static const char *check_time_range(const struct sched_cfg *cfg)
{
	uint64_t up100, up, secs;

	if (cfg->boot_time < 0 || cfg->start_time < cfg->boot_time) {
		return "boot_time must be 0..start_time";
	}
	up100 = (uint64_t)cfg->start_time - (uint64_t)cfg->boot_time;
	up = up100 * 100u; /* wraps when up100 is too large, which is checked first */
	if (up100 > (uint64_t)INT64_MAX / 100u) {
		return "boot_time: the uptime at the end of the run passes 2^63-1 ns";
	}
	if (cfg->duration_ns > (uint64_t)INT64_MAX - up) {
		return "duration_ns: the uptime at the end of the run passes 2^63-1 ns";
	}
	if (cfg->duration_ns / 100u > (uint64_t)(INT64_MAX - cfg->start_time)) {
		return "start_time: the system time at the end of the run passes 2^63-1";
	}
	/* value(t) < (secs + 1) * f at any t of the run, with secs rounded up */
	secs = (up + cfg->duration_ns) / NS_PER_SEC + 1u;
	if (secs > (uint64_t)INT64_MAX / cfg->perf_freq) {
		return "perf_freq: the QPC clock at the end of the run passes 2^63-1";
	}
	if (secs > (uint64_t)INT64_MAX / ((uint64_t)cfg->cpu_mhz * 1000000u)) {
		return "cpu_mhz: the cycle counter at the end of the run passes 2^63-1";
	}
	return NULL;
}

int sched_cfg_check(const struct sched_cfg *cfg, const char **why)
{
	const char *w = NULL;
	uint64_t threads = 0;

	if (!cfg) {
		w = "cfg is NULL";
	} else if (cfg->cpus == 0 || cfg->cpus > SCHED_MAX_CPUS) {
		w = "cpus must be 1..1024";
	} else if (cfg->cpu_mhz == 0 || cfg->cpu_mhz > MAX_CPU_MHZ) {
		w = "cpu_mhz must be 1..100000";
	} else if (cfg->perf_freq == 0 || cfg->perf_freq > MAX_PERF_FREQ) {
		w = "perf_freq must be 1..10000000000";
	} else if (cfg->timer_resolution == 0) {
		w = "timer_resolution must be > 0";
	} else if (cfg->duration_ns == 0) {
		w = "duration_ns must be > 0";
	} else if (cfg->max_wait_reason == 0 || cfg->max_wait_reason >= SCHED_WAIT_REASONS) {
		w = "max_wait_reason must be 1..63";
	} else if (cfg->quantum_ns &&
		   (cfg->quantum_ns < MIN_QUANTUM_NS || cfg->quantum_ns > MAX_QUANTUM_NS)) {
		w = "quantum_ns must be 0 (two ticks) or 100 us..10 s";
	} else if (!cfg->quantum_ns && 2ull * cfg->timer_resolution * 100u > MAX_QUANTUM_NS) {
		w = "quantum_ns: two ticks of timer_resolution exceed 10 s";
	} else if (cfg->clocks[0]) {
		w = "clocks[0] is unused (index by enum sim_clock)";
	} else if (cfg->ncounters > SIM_MAX_COUNTERS) {
		w = "ncounters must be 0..16";
	} else if (cfg->ngroups == 0 || cfg->ngroups > SCHED_MAX_GROUPS) {
		w = "ngroups must be 1..64";
	} else if (cfg->ntaken > SCHED_MAX_TAKEN_IDS) {
		w = "ntaken must be 0..512";
	} else {
		w = check_time_range(cfg);
	}
	for (unsigned i = 0; !w && i < cfg->ngroups; i++) {
		w = check_group(cfg, &cfg->groups[i]);
		threads += cfg->groups[i].count;
	}
	if (!w && (threads == 0 || threads > SCHED_MAX_THREADS)) {
		w = "groups[].count must add up to 1..262144 threads";
	}
	if (why) {
		*why = w;
	}
	return w ? -EINVAL : 0;
}

void sched_clocks_at(const struct sched_cfg *cfg, uint64_t t_ns, uint64_t ts[SIM_CLOCK_SLOTS],
		     uint32_t *tick)
{
	uint64_t up = ((uint64_t)cfg->start_time - (uint64_t)cfg->boot_time) * 100u;
	uint64_t b = up + t_ns;
	uint64_t sec = b / NS_PER_SEC, rem = b % NS_PER_SEC;

	/* x * f / 1e9 = sec * f + rem * f / 1e9 exactly, since sec * 1e9 * f / 1e9 = sec * f */
	ts[0] = 0;
	ts[SIM_CLOCK_QPC] = sec * cfg->perf_freq + rem * cfg->perf_freq / NS_PER_SEC;
	ts[SIM_CLOCK_SYSTIME] = (uint64_t)cfg->start_time + t_ns / 100u;
	ts[SIM_CLOCK_CYCLES] = sec * cfg->cpu_mhz * 1000000u + rem * cfg->cpu_mhz / 1000u;
	if (tick) {
		*tick = (uint32_t)(b / ((uint64_t)cfg->timer_resolution * 100u));
	}
}
