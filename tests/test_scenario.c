/* SPDX-License-Identifier: MIT */
/*
 * tests/test_scenario.c - scenarios (tools/lib/scenario.h): the built-in
 * defaults, every key of every section read from YAML and from JSON, --set
 * on scalars, maps, lists, list items and wait-reason keys (and refusing
 * to create what does not exist), print -> load round trips, a table of bad
 * inputs with the exact `file:line:col: key: message` each must produce,
 * and the example scenarios in tools/scenarios/.
 *
 * Expected values are typed from the scenario text of each test (and the
 * unit arithmetic in comments), never read back from the defaults tables.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/scenario_fixture.h"
#include "tools/lib/scenario/scenario.h"

TestSuite(scenario, .timeout = 20.);

static void load_ok(struct scenario *sc, const char *text)
{
	int rc = scenario_load_string(sc, "t.yaml", text, &serr);

	cr_assert_eq(rc, 0, "load failed: %s", serr.msg);
}

static void set_ok(struct scenario *sc, const char *assignment)
{
	int rc = scenario_set(sc, assignment, &serr);

	cr_assert_eq(rc, 0, "--set %s failed: %s", assignment, serr.msg);
}

static void finish_ok(struct scenario *sc)
{
	int rc = scenario_finish(sc, &serr);

	cr_assert_eq(rc, 0, "finish failed: %s", serr.msg);
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The identity model's configuration: the same values, the same strings. */
static void assert_same_identity(const struct scenario *a, const struct scenario *b)
{
	struct ident_cfg *x = malloc(sizeof(*x));
	struct ident_cfg *y = malloc(sizeof(*y));

	cr_assert(x && y);
	cr_assert_eq(memcmp(&a->ident, &b->ident, sizeof(a->ident)), 0, "ident differs");
	scenario_ident_cfg(a, x);
	scenario_ident_cfg(b, y);
	cr_assert(same_str(x->computer_name, y->computer_name));
	for (unsigned i = 0; i < x->nprocesses; i++) {
		cr_assert(same_str(x->processes[i].image, y->processes[i].image), "image %u", i);
		cr_assert(same_str(x->processes[i].cmdline, y->processes[i].cmdline), "cmdline %u",
			  i);
		cr_assert(same_str(x->processes[i].sid, y->processes[i].sid), "sid %u", i);
	}
	for (unsigned g = 0; g < a->sched.ngroups; g++) {
		cr_assert(same_str(x->thread_name[g], y->thread_name[g]), "thread name %u", g);
	}
	free(x);
	free(y);
}

/* Everything scenario_finish() hands to gen: must match byte for byte. */
static void assert_same_config(const struct scenario *a, const struct scenario *b)
{
	cr_assert_eq(memcmp(&a->trace, &b->trace, sizeof(a->trace)), 0, "trace differs");
	cr_assert_eq(a->sched.ngroups, b->sched.ngroups);
	for (unsigned i = 0; i < a->sched.ngroups; i++) {
		cr_assert_eq(memcmp(&a->sched.groups[i], &b->sched.groups[i],
				    sizeof(a->sched.groups[i])),
			     0, "group %u differs", i);
	}
	cr_assert_eq(memcmp(&a->sched, &b->sched, sizeof(a->sched)), 0, "sched differs");
	cr_assert_eq(a->nlocks, b->nlocks);
	cr_assert_eq(memcmp(a->locks, b->locks, sizeof(a->locks)), 0, "locks differ");
	cr_assert_eq(memcmp(&a->lock_model, &b->lock_model, sizeof(a->lock_model)), 0,
		     "lock model differs");
	cr_assert_eq(memcmp(a->sess_x, b->sess_x, sizeof(a->sess_x)), 0, "sessions differ");
	assert_same_identity(a, b);
}

/* scenario_print() into a malloc'd string */
static char *print_to_string(const struct scenario *sc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	scenario_print(f, sc);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static void assert_round_trip(struct scenario *sc);

static bool has_cpu(const struct sched_group *g, unsigned c)
{
	return g->affinity[c / 64] >> (c % 64) & 1;
}

static unsigned cpu_count(const struct sched_group *g)
{
	unsigned n = 0;

	for (unsigned c = 0; c < SCHED_MAX_CPUS; c++) {
		n += has_cpu(g, c);
	}
	return n;
}

static const struct sched_group *group_named(const struct scenario *sc, const char *name)
{
	for (unsigned i = 0; i < sc->sched.ngroups; i++) {
		if (!strcmp(sc->sched.groups[i].name, name)) {
			return &sc->sched.groups[i];
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------------ */

Test(scenario, defaults_are_the_documented_desktop)
{
	struct scenario *sc = new_scenario();
	const struct trace_session_cfg *s0 = &sc->trace.sessions[0];
	const struct trace_session_cfg *s1 = &sc->trace.sessions[1];
	bool interactive = false;
	bool io = false;
	bool audio = false;
	bool background = false;

	finish_ok(sc);
	cr_assert_eq(sc->trace.cpus, 8);
	cr_assert_eq(sc->sched.duration_ns, 2000000000ull);
	cr_assert_eq(sc->sched.seed, 1);
	cr_assert_eq(sc->trace.seed, 1);
	cr_assert_str_eq(sc->trace.target->name, "win10-1709");
	cr_assert_eq(sc->trace.arch, ETL_ARCH_X64);
	cr_assert_eq(sc->trace.max_wait_reason, 40);
	cr_assert_eq(sc->trace.nsessions, 2);
	cr_assert_str_eq(s0->name, "NT Kernel Logger");
	cr_assert_eq(s0->clock, SIM_CLOCK_QPC);
	cr_assert_eq(s0->flags, PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT | PRODUCER_F_PROC_THREAD);
	cr_assert_str_eq(s1->name, "etwforge CSwitch");
	cr_assert_eq(s1->clock, SIM_CLOCK_QPC);
	cr_assert_eq(s1->flags, PRODUCER_F_CSWITCH);
	cr_assert_eq(s0->buffer_size, 65536);
	cr_assert_eq(sc->trace.quirks, true);
	cr_assert_eq(sc->trace.flush_at_end, true);
	cr_assert_eq(sc->trace.pebs_and_pmc, false);
	/* lived-in: start in 2019..2025 (FILETIME 131907744000000000 is 2019-01-01),
	 * up ten minutes (6 * 10^9 100-ns units) to two months before */
	cr_assert_eq(sc->realism, 1);
	cr_assert_eq(sc->sched.lived_in, true);
	cr_assert_geq(sc->trace.start_time, 131907744000000000ll);
	cr_assert_lt(sc->trace.start_time, 131907744000000000ll + 7ll * 365 * 864000000000ll);
	cr_assert_geq(sc->trace.start_time - sc->trace.boot_time, 6000000000ll);
	cr_assert_leq(sc->trace.start_time - sc->trace.boot_time, 60ll * 864000000000ll);
	cr_assert_neq(sc->trace.start_time % 10000000, 0, "not a round second");
	/* 2 ticks of 156250 * 100 ns = 31.25 ms */
	cr_assert_eq(sc->sched.quantum_ns, 31250000ull);
	cr_assert_eq(sc->sched.cpus, 8);
	cr_assert_eq(sc->sched.clocks[SIM_CLOCK_QPC], true);
	cr_assert_eq(sc->sched.clocks[SIM_CLOCK_SYSTIME], false);
	cr_assert_eq(sc->sched.clocks[SIM_CLOCK_CYCLES], false);
	cr_assert_eq(sc->sched.pebs, false);
	cr_assert_eq(sc->sched.ncounters, 0);
	cr_assert_eq(sc->nlocks, 0);
	cr_assert_eq(sc->trace.spin.spin_threshold, 1);
	cr_assert_eq(sc->trace.spin.acquire_sample_rate, 1000);
	cr_assert_eq(sc->trace.spin.contention_sample_rate, 1);
	cr_assert_eq(sc->trace.spin.hold_threshold, 1000000);
	cr_assert_geq(sc->sched.ngroups, 3);
	for (unsigned i = 0; i < sc->sched.ngroups; i++) {
		const struct sched_group *g = &sc->sched.groups[i];

		interactive |= g->behaviour == SCHED_INTERACTIVE;
		io |= g->behaviour == SCHED_IO_BOUND;
		audio |= g->behaviour == SCHED_PERIODIC && g->base_priority >= 15;
		background |= g->behaviour == SCHED_CPU_BOUND && g->base_priority >= 4 &&
			      g->base_priority <= 8;
	}
	cr_assert(interactive && io && audio && background);
	free(sc);
}

Test(scenario, empty_scenarios_are_the_defaults)
{
	static const char *const empties[] = {
		"",
		"# nothing but a comment\n",
		"{}",
		"---\n",
		"null\n",
		"machine:\nkernel: {}\n",
		"%YAML 1.1\n---\n",
	};
	struct scenario *def = new_scenario();

	finish_ok(def);
	for (size_t i = 0; i < sizeof(empties) / sizeof(empties[0]); i++) {
		struct scenario *sc = new_scenario();

		load_ok(sc, empties[i]);
		finish_ok(sc);
		assert_same_config(sc, def);
		free(sc);
	}
	free(def);
}

/* Every key of every section, none at its default value. */
static const char every_key_yaml[] = "seed: 12345678901234\n"
				     "duration: 1.25s\n"
				     "machine:\n"
				     "  cpus: 12\n"
				     "  cpu_mhz: 2500\n"
				     "  perf_freq: 3579545\n"
				     "  timer_resolution: 10000\n"
				     "  target: win11-22h2\n"
				     "  arch: x86\n"
				     "  start_time: 132000000000000000\n"
				     "  boot_time: 131999000000000000\n"
				     "  quantum: 20ms\n"
				     "  memory_mb: 8192\n"
				     "  computer_name: DESKTOP-7Q2\n"
				     "kernel:\n"
				     "  quirks: false\n"
				     "  flush_at_end: false\n"
				     "  pebs_and_pmc: true\n"
				     "  spinlock:\n"
				     "    spin_threshold: 5\n"
				     "    acquire_sample_rate: 2000\n"
				     "    contention_sample_rate: 3\n"
				     "    hold_threshold: 2000000\n"
				     "sessions:\n"
				     "  - name: First\n"
				     "    clock: cycles\n"
				     "    flags: [spinlock, cswitch, compact_cswitch, dispatcher]\n"
				     "    pebs: true\n"
				     "    pmc: {counters: [TotalCycles, CacheMisses],\n"
				     "          events: [\"0x0524\", \"0x0525\", 0x0529]}\n"
				     "    buffer_size: 8192\n"
				     "    pool_buffers: 32\n"
				     "    flush_latency: 1.5ms\n"
				     "    file: first.etl\n"
				     "  - name: Second\n"
				     "    clock: systime\n"
				     "    flags: [proc_thread, profile]\n"
				     "    pmc:\n"
				     "      counters: [CacheMisses, BranchMispredictions]\n"
				     "    flush_latency: 250us\n"
				     "    file: \"second file.etl\"\n"
				     "processes:\n"
				     "  - name: host\n"
				     "    image: svchost.exe\n"
				     "    pid: 1200\n"
				     "    parent: 600\n"
				     "    session: none\n"
				     "    user: S-1-5-19\n"
				     "    cmdline: \"svchost.exe -k netsvcs\"\n"
				     "    start: 100ms\n"
				     "    exit: 900ms\n"
				     "    exit_status: 0xC0000005\n"
				     "  - name: app.exe\n"
				     "    parent: host\n"
				     "    session: 2\n"
				     "    user: none\n"
				     "    cmdline: \"app.exe --na\u00efve \u65e5\u672c\"\n"
				     "    start: 10ms\n"
				     "    lifetime: 20ms\n"
				     "    exit_status: -1\n"
				     "threads:\n"
				     "  - name: g0\n"
				     "    count: 3\n"
				     "    priority: 31\n"
				     "    behaviour: periodic\n"
				     "    period: 2500us\n"
				     "    duty: 40\n"
				     "    wait_reasons: {WrRcu: 2, \"6\": 5, Executive: 1}\n"
				     "    user_wait: 33\n"
				     "    affinity: [1, \"4-6\", 11]\n"
				     "    lifetime: 50ms\n"
				     "    process: app.exe\n"
				     "    thread_name: \"Worker {n} \u00e9\"\n"
				     "  - name: g1\n"
				     "    behaviour: io_bound\n"
				     "locks:\n"
				     "  - name: L\n"
				     "    count: 3\n"
				     "    per_cpu: true\n"
				     "    taken_by: [dpc, g1]\n"
				     "    rate: 123456\n"
				     "    hold: 750ns\n"
				     "    hold_tail: 7\n"
				     "    hold_tail_max: 2ms\n"
				     "    modes: {queued: 2, shared: 3}\n"
				     "    nested: [M]\n"
				     "  - name: M\n"
				     "    taken_by: [isr]\n"
				     "    rate: 0\n"
				     "profile_interval: 250us\n"
				     "sysconfig: false\n";

/* every_key_yaml's processes, group processes and identity keys */
static void check_every_identity_key(const struct scenario *sc)
{
	const struct ident_cfg *id = &sc->ident;
	struct ident_cfg *full = malloc(sizeof(*full));
	const struct ident_process *host = &id->processes[2];
	const struct ident_process *app = &id->processes[3];
	const struct ident_process *own = &id->processes[4];

	cr_assert_not_null(full);
	scenario_ident_cfg(sc, full);
	cr_assert(id->proc_thread && id->dispatcher && id->profile, "from the sessions' flags");
	cr_assert_eq(id->sysconfig, false);
	cr_assert_eq(id->names_in_thread_records, true, "win11-22h2's Thread records are v4");
	cr_assert_eq(id->ptr64, false, "x86");
	cr_assert_eq(id->profile_interval, 2500, "250 us in 100-ns units");
	cr_assert_eq(id->memory_mb, 8192);
	cr_assert_str_eq(full->computer_name, "DESKTOP-7Q2");
	/* Idle, System, host, app.exe, and g1's own process */
	cr_assert_eq(id->nprocesses, 5);
	cr_assert_eq(host->pid, 1200);
	cr_assert_eq(host->ppid, 600);
	cr_assert_eq(host->session, UINT32_MAX, "none");
	cr_assert_eq(host->start_ns, 100000000ull);
	cr_assert_eq(host->exit_ns, 900000000ull);
	cr_assert_eq((uint32_t)host->exit_status, 0xC0000005u);
	cr_assert_str_eq(full->processes[2].image, "svchost.exe");
	cr_assert_str_eq(full->processes[2].sid, "S-1-5-19");
	cr_assert_str_eq(full->processes[2].cmdline, "svchost.exe -k netsvcs");
	/* app.exe: the first assigned PID, its parent by name, exit = start + lifetime */
	cr_assert_eq(app->pid, 1000);
	cr_assert_eq(app->ppid, 1200);
	cr_assert_eq(app->session, 2);
	cr_assert_eq(app->start_ns, 10000000ull);
	cr_assert_eq(app->exit_ns, 30000000ull);
	cr_assert_eq(app->exit_status, -1);
	cr_assert_str_eq(full->processes[3].image, "app.exe");
	cr_assert_null(full->processes[3].sid, "user: none");
	cr_assert_str_eq(full->processes[3].cmdline, "app.exe --na\u00efve \u65e5\u672c");
	/* g1 named no process: one of its own, the next assigned PID */
	cr_assert_eq(own->pid, 1020);
	cr_assert_eq(own->ppid, 4, "no services.exe: System");
	cr_assert_eq(own->session, 1);
	cr_assert_str_eq(full->processes[4].image, "g1.exe");
	cr_assert_eq(id->group_process[0], 3);
	cr_assert_eq(id->group_process[1], 4);
	cr_assert_str_eq(full->thread_name[0], "Worker {n} \u00e9");
	cr_assert_null(full->thread_name[1]);
	/* the groups start and exit with their processes */
	cr_assert_eq(sc->sched.groups[0].start_ns, 10000000ull);
	cr_assert_eq(sc->sched.groups[0].exit_ns, 30000000ull);
	cr_assert_eq(sc->sched.groups[1].start_ns, 0);
	cr_assert_eq(sc->sched.groups[1].exit_ns, 0);
	free(full);
}

static void check_every_key(const struct scenario *sc)
{
	const struct trace_config *t = &sc->trace;
	const struct trace_session_cfg *s0 = &t->sessions[0];
	const struct trace_session_cfg *s1 = &t->sessions[1];
	const struct sched_group *g0 = &sc->sched.groups[0];
	const struct sched_group *g1 = &sc->sched.groups[1];

	cr_assert_eq(sc->sched.seed, 12345678901234ull);
	cr_assert_eq(t->seed, 12345678901234ull);
	cr_assert_eq(sc->sched.duration_ns, 1250000000ull);
	cr_assert_eq(t->cpus, 12);
	cr_assert_eq(t->cpu_mhz, 2500);
	cr_assert_eq(t->perf_freq, 3579545);
	cr_assert_eq(t->timer_resolution, 10000);
	cr_assert_str_eq(t->target->name, "win11-22h2");
	cr_assert_eq(t->max_wait_reason, 43);
	cr_assert_eq(t->arch, ETL_ARCH_X86);
	cr_assert_eq(t->start_time, 132000000000000000ll);
	cr_assert_eq(t->boot_time, 131999000000000000ll);
	cr_assert_eq(sc->sched.quantum_ns, 20000000ull);
	cr_assert_eq(t->quirks, false);
	cr_assert_eq(t->flush_at_end, false);
	cr_assert_eq(t->pebs_and_pmc, true);
	cr_assert_eq(sc->trace.spin.spin_threshold, 5);
	cr_assert_eq(sc->trace.spin.acquire_sample_rate, 2000);
	cr_assert_eq(sc->trace.spin.contention_sample_rate, 3);
	cr_assert_eq(sc->trace.spin.hold_threshold, 2000000);

	cr_assert_eq(t->nsessions, 2);
	cr_assert_str_eq(s0->name, "First");
	cr_assert_eq(s0->clock, SIM_CLOCK_CYCLES);
	cr_assert_eq(s0->flags, PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT | PRODUCER_F_SPINLOCK |
					PRODUCER_F_DISPATCHER);
	cr_assert_eq(s0->pebs, true);
	cr_assert_eq(s0->pmc_count, 2);
	cr_assert_eq(s0->pmc_event_count, 3);
	cr_assert_eq(s0->pmc_events[0], 0x0524);
	cr_assert_eq(s0->pmc_events[1], 0x0525);
	cr_assert_eq(s0->pmc_events[2], 0x0529);
	cr_assert_eq(s0->buffer_size, 8192);
	cr_assert_eq(s0->pool_buffers, 32);
	/* 1.5 ms at 2500 MHz: 1500000 ns * 2500 / 1000 = 3750000 cycles */
	cr_assert_eq(s0->flush_latency, 3750000ull);
	cr_assert_str_eq(s0->file, "first.etl");
	cr_assert_str_eq(s1->name, "Second");
	cr_assert_eq(s1->clock, SIM_CLOCK_SYSTIME);
	cr_assert_eq(s1->flags, PRODUCER_F_PROC_THREAD | PRODUCER_F_PROFILE);
	cr_assert_eq(s1->pebs, false);
	cr_assert_eq(s1->pmc_count, 2);
	cr_assert_eq(s1->pmc_event_count, 0);
	cr_assert_eq(s1->buffer_size, 65536);
	/* 250 us in 100 ns units = 2500 */
	cr_assert_eq(s1->flush_latency, 2500ull);
	cr_assert_str_eq(s1->file, "second file.etl");
	/* machine counters: union in order of first appearance */
	cr_assert_eq(t->ncounters, 3);
	cr_assert_str_eq(t->counters[0], "TotalCycles");
	cr_assert_str_eq(t->counters[1], "CacheMisses");
	cr_assert_str_eq(t->counters[2], "BranchMispredictions");
	cr_assert_eq(s0->pmc_counters[0], 0);
	cr_assert_eq(s0->pmc_counters[1], 1);
	cr_assert_eq(s1->pmc_counters[0], 1);
	cr_assert_eq(s1->pmc_counters[1], 2);

	cr_assert_eq(sc->sched.ngroups, 2);
	cr_assert_str_eq(g0->name, "g0");
	cr_assert_eq(g0->count, 3);
	cr_assert_eq(g0->base_priority, 31);
	cr_assert_eq(g0->behaviour, SCHED_PERIODIC);
	cr_assert_eq(g0->period_ns, 2500000ull);
	cr_assert_eq(g0->duty_pct, 40);
	cr_assert_eq(g0->wait_weights[42], 2); /* WrRcu */
	cr_assert_eq(g0->wait_weights[6], 5);  /* UserRequest, by number */
	cr_assert_eq(g0->wait_weights[0], 1);  /* Executive */
	cr_assert_eq(g0->wait_weights[13], 0);
	cr_assert_eq(g0->user_wait_pct, 33);
	cr_assert_eq(cpu_count(g0), 5);
	cr_assert(has_cpu(g0, 1) && has_cpu(g0, 4) && has_cpu(g0, 5) && has_cpu(g0, 6) &&
		  has_cpu(g0, 11));
	cr_assert_eq(g0->lifetime_ns, 50000000ull);
	/* g1: item defaults, and the io_bound defaults for period and user_wait */
	cr_assert_str_eq(g1->name, "g1");
	cr_assert_eq(g1->count, 1);
	cr_assert_eq(g1->base_priority, 8);
	cr_assert_eq(g1->behaviour, SCHED_IO_BOUND);
	cr_assert_eq(g1->period_ns, 200000ull);
	cr_assert_eq(g1->user_wait_pct, 20);
	cr_assert_eq(g1->lifetime_ns, 0);
	cr_assert_eq(cpu_count(g1), 0);

	cr_assert_eq(sc->nlocks, 2);
	cr_assert_str_eq(sc->locks[0].cfg.name, "L");
	cr_assert_eq(sc->locks[0].cfg.count, 3);
	cr_assert_eq(sc->locks[0].cfg.per_cpu, true);
	cr_assert_eq(sc->locks[0].cfg.rate, 123456);
	cr_assert_eq(sc->locks[0].cfg.hold_ns, 750);
	cr_assert_eq(sc->locks[0].cfg.hold_tail_pct, 7);
	cr_assert_eq(sc->locks[0].cfg.hold_tail_max_ns, 2000000ull);
	cr_assert_eq(sc->locks[0].cfg.mode_weight[SPIN_MODE_ORDINARY], 0);
	cr_assert_eq(sc->locks[0].cfg.mode_weight[SPIN_MODE_QUEUED], 2);
	cr_assert_eq(sc->locks[0].cfg.mode_weight[SPIN_MODE_SHARED], 3);
	/* resolved for the model: takers and nesting by index */
	cr_assert_eq(sc->lock_model.nlocks, 2);
	cr_assert_eq(sc->lock_model.locks[0].by_dpc, true);
	cr_assert_eq(sc->lock_model.locks[0].by_isr, false);
	cr_assert_eq(sc->lock_model.locks[0].groups, 0x2, "g1 is group 1");
	cr_assert_eq(sc->lock_model.locks[0].nnested, 1);
	cr_assert_eq(sc->lock_model.locks[0].nested[0], 1);
	cr_assert_eq(sc->lock_model.locks[1].by_isr, true);
	cr_assert_eq(sc->lock_model.locks[1].groups, 0);
	cr_assert_eq(sc->lock_model.locks[1].rate, 0);
	cr_assert_eq(sc->lock_model.locks[1].mode_weight[SPIN_MODE_ORDINARY], 1, "the default");
	cr_assert_eq(sc->lock_model.instrumented, true, "First logs spin locks");
	cr_assert_eq(sc->lock_model.x86, true);
	cr_assert_eq(sc->lock_model.sampling.spin_threshold, 5);

	/* derived for the model */
	cr_assert_eq(sc->sched.cpus, 12);
	cr_assert_eq(sc->sched.cpu_mhz, 2500);
	cr_assert_eq(sc->sched.perf_freq, 3579545);
	cr_assert_eq(sc->sched.timer_resolution, 10000);
	cr_assert_eq(sc->sched.start_time, 132000000000000000ll);
	cr_assert_eq(sc->sched.boot_time, 131999000000000000ll);
	cr_assert_eq(sc->sched.max_wait_reason, 43);
	cr_assert_eq(sc->sched.clocks[SIM_CLOCK_QPC], false);
	cr_assert_eq(sc->sched.clocks[SIM_CLOCK_SYSTIME], true);
	cr_assert_eq(sc->sched.clocks[SIM_CLOCK_CYCLES], true);
	cr_assert_eq(sc->sched.ncounters, 3);
	cr_assert_eq(sc->sched.pebs, true);
	check_every_identity_key(sc);
}

Test(scenario, every_key_from_yaml)
{
	struct scenario *sc = new_scenario();

	load_ok(sc, every_key_yaml);
	finish_ok(sc);
	check_every_key(sc);
	free(sc);
}

Test(scenario, every_key_from_json_is_the_same_config)
{
	static const char json[] =
		"{\"seed\":12345678901234,\"duration\":\"1.25s\","
		"\"machine\":{\"cpus\":12,\"cpu_mhz\":2500,\"perf_freq\":3579545,"
		"\"timer_resolution\":10000,\"target\":\"win11-22h2\",\"arch\":\"x86\","
		"\"start_time\":132000000000000000,\"boot_time\":131999000000000000,"
		"\"quantum\":\"20ms\",\"memory_mb\":8192,\"computer_name\":\"DESKTOP-7Q2\"},"
		"\"kernel\":{\"quirks\":false,\"flush_at_end\":false,\"pebs_and_pmc\":true,"
		"\"spinlock\":{\"spin_threshold\":5,\"acquire_sample_rate\":2000,"
		"\"contention_sample_rate\":3,\"hold_threshold\":2000000}},\n"
		"\"sessions\":[{\"name\":\"First\",\"clock\":\"cycles\","
		"\"flags\":[\"spinlock\",\"cswitch\",\"compact_cswitch\",\"dispatcher\"],"
		"\"pebs\":true,"
		"\"pmc\":{\"counters\":[\"TotalCycles\",\"CacheMisses\"],"
		"\"events\":[\"0x0524\",\"0x0525\",\"0x0529\"]},\"buffer_size\":8192,"
		"\"pool_buffers\":32,\"flush_latency\":1500000,\"file\":\"first.etl\"},\n"
		"  "
		"{\"name\":\"Second\",\"clock\":\"systime\",\"flags\":[\"proc_thread\",\"profile\"]"
		","
		"\"pmc\":{\"counters\":[\"CacheMisses\",\"BranchMispredictions\"]},"
		"\"flush_latency\":\"250us\",\"file\":\"second file.etl\"}],\n"
		"\"processes\":[{\"name\":\"host\",\"image\":\"svchost.exe\",\"pid\":1200,"
		"\"parent\":600,\"session\":\"none\",\"user\":\"S-1-5-19\","
		"\"cmdline\":\"svchost.exe -k netsvcs\",\"start\":\"100ms\",\"exit\":900000000,"
		"\"exit_status\":3221225477},\n"
		" {\"name\":\"app.exe\",\"parent\":\"host\",\"session\":2,\"user\":\"none\","
		"\"cmdline\":\"app.exe --na\\u00efve \\u65e5\\u672c\",\"start\":\"10ms\","
		"\"lifetime\":\"20ms\",\"exit_status\":-1}],\n"
		"\"threads\":[{\"name\":\"g0\",\"count\":3,\"priority\":31,"
		"\"behaviour\":\"periodic\",\"period\":2500000,\"duty\":40,"
		"\"wait_reasons\":{\"WrRcu\":2,\"6\":5,\"Executive\":1},"
		"\"user_wait\":33,\"affinity\":[1,\"4-6\",11],\"lifetime\":\"50ms\","
		"\"process\":\"app.exe\",\"thread_name\":\"Worker {n} \\u00e9\"},"
		"{\"name\":\"g1\",\"behaviour\":\"io_bound\"}],\n"
		"\"locks\":[{\"name\":\"L\",\"count\":3,\"per_cpu\":true,\"taken_by\":[\"dpc\","
		"\"g1\"],"
		"\"rate\":123456,\"hold\":750,\"hold_tail\":7,\"hold_tail_max\":\"2ms\","
		"\"modes\":{\"queued\":2,\"shared\":3},\"nested\":[\"M\"]},"
		"{\"name\":\"M\",\"taken_by\":[\"isr\"],\"rate\":0}],\n"
		"\"profile_interval\":\"250us\",\"sysconfig\":false}\n";
	struct scenario *j = new_scenario();
	struct scenario *y = new_scenario();

	load_ok(j, json);
	finish_ok(j);
	check_every_key(j);
	load_ok(y, every_key_yaml);
	finish_ok(y);
	assert_same_config(j, y);
	free(j);
	free(y);
}

Test(scenario, a_file_list_replaces_and_a_file_map_merges)
{
	struct scenario *sc = new_scenario();

	load_ok(sc, "machine: {cpus: 4}\n"
		    "sessions:\n"
		    "  - name: Only\n"
		    "threads:\n"
		    "  - {name: solo, behaviour: interactive}\n");
	finish_ok(sc);
	cr_assert_eq(sc->trace.cpus, 4);
	cr_assert_eq(sc->trace.cpu_mhz, 3000, "other machine keys keep their defaults");
	cr_assert_str_eq(sc->trace.target->name, "win10-1709");
	cr_assert_eq(sc->trace.nsessions, 1);
	cr_assert_str_eq(sc->trace.sessions[0].name, "Only");
	/* a session item's defaults: qpc, cswitch + compact_cswitch, 64 KiB */
	cr_assert_eq(sc->trace.sessions[0].clock, SIM_CLOCK_QPC);
	cr_assert_eq(sc->trace.sessions[0].flags, PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT);
	cr_assert_eq(sc->trace.sessions[0].buffer_size, 65536);
	cr_assert_eq(sc->sched.ngroups, 1);
	cr_assert_str_eq(sc->sched.groups[0].name, "solo");
	/* interactive defaults: 1 ms bursts, 90 % UserMode waits */
	cr_assert_eq(sc->sched.groups[0].period_ns, 1000000ull);
	cr_assert_eq(sc->sched.groups[0].user_wait_pct, 90);
	free(sc);
}

Test(scenario, anchors_aliases_tabs_and_comments_are_yaml)
{
	struct scenario *sc = new_scenario();

	load_ok(sc, "# a worker shape used twice\n"
		    "threads:\n"
		    "  - &w {name: a, count: 2, behaviour: io_bound, priority: 9}\n"
		    "  - *w\n"
		    "machine:\n"
		    "  cpus:\t6   # a tab before the value\n");
	/* two groups with one name is fine for the model (names are labels) */
	cr_assert_eq(sc->sched.ngroups, 2);
	cr_assert_eq(sc->sched.groups[1].count, 2);
	cr_assert_eq(sc->sched.groups[1].base_priority, 9);
	cr_assert_eq(sc->trace.cpus, 6);
	finish_ok(sc);
	free(sc);
}

Test(scenario, a_self_referencing_alias_is_an_error_not_a_hang)
{
	struct scenario *sc = new_scenario();
	int rc = scenario_load_string(sc, "loop.yaml", "machine: &m {cpus: 4, again: *m}\n", &serr);

	cr_assert_eq(rc, -EINVAL);
	cr_assert(strstr(serr.msg, "loop.yaml:1:23: machine.again: unknown key"), "%s", serr.msg);
	free(sc);
}

Test(scenario, an_error_echoing_a_multi_line_value_stays_on_one_line)
{
	/* found by fuzz_scenario: a plain scalar folded over two lines */
	struct scenario *sc = new_scenario();
	int rc = scenario_load_string(
		sc, "ml.yaml", "sessions:\n  - pmc:\n      events: [\"0x05\n\n  25\"]\n", &serr);

	cr_assert_eq(rc, -EINVAL);
	cr_assert_null(strchr(serr.msg, '\n'), "%s", serr.msg);
	cr_assert(strstr(serr.msg, "ml.yaml:3:16: sessions.0.pmc.events.0: \"0x05\\n25\""), "%s",
		  serr.msg);
	free(sc);
}

/* ------------------------------------------------------------------------ */
/* --set */

Test(scenario, set_scalars)
{
	struct scenario *sc = new_scenario();

	set_ok(sc, "machine.cpus=4");
	set_ok(sc, "seed=0x10");
	set_ok(sc, "duration=1.5s");
	set_ok(sc, "sessions.1.clock=cycles");
	set_ok(sc, "sessions.0.clock=2");
	set_ok(sc, "kernel.quirks=false");
	set_ok(sc, "sessions.0.name=Foo Bar");
	set_ok(sc, "threads.0.count=7");
	set_ok(sc, "threads.1.behaviour=periodic");
	set_ok(sc, "machine.target=win10-1507");
	set_ok(sc, "sessions.1.file=");
	finish_ok(sc);
	cr_assert_eq(sc->trace.cpus, 4);
	cr_assert_eq(sc->sched.seed, 16);
	cr_assert_eq(sc->sched.duration_ns, 1500000000ull);
	cr_assert_eq(sc->trace.sessions[1].clock, SIM_CLOCK_CYCLES);
	cr_assert_eq(sc->trace.sessions[0].clock, SIM_CLOCK_SYSTIME);
	cr_assert_eq(sc->trace.quirks, false);
	cr_assert_str_eq(sc->trace.sessions[0].name, "Foo Bar");
	cr_assert_eq(sc->sched.groups[0].count, 7);
	cr_assert_eq(sc->sched.groups[1].behaviour, SCHED_PERIODIC);
	cr_assert_eq(sc->trace.max_wait_reason, 39);
	cr_assert_str_eq(sc->trace.sessions[1].file, "");
	free(sc);
}

Test(scenario, set_lists_replace)
{
	struct scenario *sc = new_scenario();
	const struct sched_group *g;

	set_ok(sc, "sessions.0.flags=[cswitch]");
	set_ok(sc, "threads.2.affinity=[0, \"2-3\"]");
	set_ok(sc, "sessions.1.pmc.counters=[TotalCycles, LLCMisses]");
	set_ok(sc, "sessions.1.pmc.events=[\"0x0524\"]");
	cr_assert_eq(sc->trace.sessions[0].flags, PRODUCER_F_CSWITCH);
	g = &sc->sched.groups[2];
	cr_assert_eq(cpu_count(g), 3);
	cr_assert(has_cpu(g, 0) && has_cpu(g, 2) && has_cpu(g, 3));
	finish_ok(sc);
	cr_assert_eq(sc->trace.sessions[1].pmc_count, 2);
	cr_assert_eq(sc->trace.ncounters, 2);
	cr_assert_eq(sc->trace.sessions[1].pmc_event_count, 1);

	set_ok(sc, "threads=[{name: solo, count: 2}]");
	set_ok(sc, "sessions=[{name: A}, {name: B, clock: cycles}]");
	finish_ok(sc);
	cr_assert_eq(sc->sched.ngroups, 1);
	cr_assert_str_eq(sc->sched.groups[0].name, "solo");
	cr_assert_eq(sc->sched.groups[0].count, 2);
	cr_assert_eq(sc->trace.nsessions, 2);
	cr_assert_eq(sc->trace.sessions[1].clock, SIM_CLOCK_CYCLES);
	/* the replaced session 1 lost its counters */
	cr_assert_eq(sc->trace.sessions[1].pmc_count, 0);
	cr_assert_eq(sc->trace.ncounters, 0);
	free(sc);
}

Test(scenario, affinity_spans_bitmap_words)
{
	struct scenario *sc = new_scenario();
	const struct sched_group *g = &sc->sched.groups[0];
	char *text;

	set_ok(sc, "machine.cpus=1024");
	set_ok(sc, "threads.0.affinity=[63, \"64-65\", 1023, \"128-191\"]");
	finish_ok(sc);
	/* 63..65 (3) + 128..191 (64) + 1023 (1) */
	cr_assert_eq(cpu_count(g), 68);
	cr_assert(has_cpu(g, 63) && has_cpu(g, 64) && has_cpu(g, 65) && has_cpu(g, 1023));
	cr_assert(has_cpu(g, 128) && has_cpu(g, 191));
	cr_assert(!has_cpu(g, 0) && !has_cpu(g, 62) && !has_cpu(g, 127) && !has_cpu(g, 192));
	text = print_to_string(sc);
	cr_assert(strstr(text, "    affinity: [\"63-65\", \"128-191\", 1023]\n"), "%s", text);
	free(text);
	assert_round_trip(sc);
	free(sc);
}

Test(scenario, a_replaced_list_forgets_where_its_old_items_were)
{
	struct scenario *sc = new_scenario();

	load_ok(sc, "sessions:\n  - name: A\n  - name: B\n");
	/* item 1 takes the default name "etwforge session 1": it clashes with item 0 */
	set_ok(sc, "sessions=[{name: etwforge session 1}, {}]");
	cr_assert_eq(scenario_finish(sc, &serr), -EINVAL);
	cr_assert(strstr(serr.msg,
			 "--set:1:39: sessions.1.name: \"etwforge session 1\" is also the "
			 "name of sessions.0"),
		  "%s", serr.msg);
	free(sc);
}

Test(scenario, set_maps_merge)
{
	struct scenario *sc = new_scenario();

	set_ok(sc, "machine={cpus: 2, arch: x86}");
	set_ok(sc, "sessions.1={clock: systime, buffer_size: 4096}");
	set_ok(sc, "kernel.spinlock={hold_threshold: 0}");
	finish_ok(sc);
	cr_assert_eq(sc->trace.cpus, 2);
	cr_assert_eq(sc->trace.arch, ETL_ARCH_X86);
	cr_assert_eq(sc->trace.cpu_mhz, 3000);
	cr_assert_eq(sc->trace.sessions[1].clock, SIM_CLOCK_SYSTIME);
	cr_assert_eq(sc->trace.sessions[1].buffer_size, 4096);
	cr_assert_str_eq(sc->trace.sessions[1].name, "etwforge CSwitch");
	cr_assert_eq(sc->trace.sessions[1].flags, PRODUCER_F_CSWITCH);
	cr_assert_eq(sc->trace.spin.hold_threshold, 0);
	cr_assert_eq(sc->trace.spin.acquire_sample_rate, 1000);
	free(sc);
}

Test(scenario, set_one_wait_reason_or_the_whole_mix)
{
	struct scenario *sc = new_scenario();
	uint32_t before[SCHED_WAIT_REASONS];

	memcpy(before, sc->sched.groups[0].wait_weights, sizeof(before));
	set_ok(sc, "threads.0.wait_reasons.WrQueue=9");
	set_ok(sc, "threads.0.wait_reasons.37=4");
	for (unsigned r = 0; r < SCHED_WAIT_REASONS; r++) {
		uint32_t want = r == 15 ? 9 : r == 37 ? 4 : before[r];

		cr_assert_eq(sc->sched.groups[0].wait_weights[r], want, "reason %u", r);
	}
	set_ok(sc, "threads.0.wait_reasons={DelayExecution: 2}");
	for (unsigned r = 0; r < SCHED_WAIT_REASONS; r++) {
		cr_assert_eq(sc->sched.groups[0].wait_weights[r], r == 4 ? 2 : 0, "reason %u", r);
	}
	set_ok(sc, "threads.0.wait_reasons={}");
	for (unsigned r = 0; r < SCHED_WAIT_REASONS; r++) {
		cr_assert_eq(sc->sched.groups[0].wait_weights[r], 0);
	}
	finish_ok(sc);
	free(sc);
}

Test(scenario, set_applies_in_order_over_the_file)
{
	struct scenario *sc = new_scenario();

	load_ok(sc, "machine: {cpus: 16}\nseed: 5\n");
	set_ok(sc, "machine.cpus=3");
	set_ok(sc, "machine.cpus=5");
	finish_ok(sc);
	cr_assert_eq(sc->trace.cpus, 5);
	cr_assert_eq(sc->sched.seed, 5);
	free(sc);
}

Test(scenario, set_creates_nothing)
{
	static const struct {
		const char *set;
		const char *want;
	} cases[] = {
		{"sessions.2.clock=qpc",
		 "--set:1:10: sessions.2: no item 2: sessions has 2 items (give the whole list"},
		{"locks.0.name=x", "--set:1:7: locks.0: no item 0: locks has 0 items"},
		{"sessions.one.clock=qpc", "--set:1:10: sessions.one: expected an item index"},
		{"machine.nope=1", "--set:1:9: machine.nope: unknown key (known: cpus, cpu_mhz"},
		{"machine.cpu=1", "--set:1:9: machine.cpu: unknown key (did you mean 'cpus'?)"},
		{"sessions.0.clok=qpc",
		 "--set:1:12: sessions.0.clok: unknown key (did you mean 'clock'?)"},
		{"machine.cpus.x=1", "--set:1:14: machine.cpus.x: no such key: cpus is an integer"},
		{"sessions.0.flags.0=cswitch",
		 "--set:1:18: sessions.0.flags.0: no such key: flags is set as a whole"},
		{"threads.0.wait_reasons.WrQueu=1",
		 "--set:1:24: threads.0.wait_reasons.WrQueu: unknown wait reason (did you mean "
		 "'WrQueue'?)"},
		{"threads.0.wait_reasons.64=1",
		 "--set:1:24: threads.0.wait_reasons.64: wait reason 64 is out of range (0..63)"},
		{"machine.cpus", "--set:1:1: machine.cpus: expected key.path=value"},
		{"machine..cpus=2", "--set:1:9: machine..cpus: empty key in the path"},
		{"=2", "--set:1:1: scenario: empty key in the path"},
		{"machine.cpus=0", "--set:1:14: machine.cpus: 0 is out of range (1..1024)"},
		{"machine.cpus=[3", "--set:1:16: yaml: did not find expected ',' or ']'"},
		{"sessions=[]", "--set:1:10: sessions: 0 sessions, at least 1 needed"},
		{"threads.0={colour: red}",
		 "--set:1:12: threads.0.colour: unknown key (known: name, count"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scenario *sc = new_scenario();
		int rc = scenario_set(sc, cases[i].set, &serr);

		cr_assert_eq(rc, -EINVAL, "%s: rc %d", cases[i].set, rc);
		cr_assert(strstr(serr.msg, cases[i].want), "%s\n got: %s\nwant: %s", cases[i].set,
			  serr.msg, cases[i].want);
		cr_assert_eq(strchr(serr.msg, '\n'), NULL, "one line: %s", serr.msg);
		free(sc);
	}
}

Test(scenario, finish_errors_point_at_the_set_that_caused_them)
{
	struct scenario *sc = new_scenario();

	set_ok(sc, "sessions.0.flags=[compact_cswitch]");
	cr_assert_eq(scenario_finish(sc, &serr), -EINVAL);
	cr_assert(
		strstr(serr.msg, "--set:1:18: sessions.0.flags: compact_cswitch needs cswitch too"),
		"%s", serr.msg);
	free(sc);
}

Test(scenario, durations_are_exact)
{
	static const struct {
		const char *text;
		uint64_t ns;
	} good[] = {
		{"2s", 2000000000ull},	    {"500ms", 500000000ull},
		{"250us", 250000ull},	    {"100ns", 100ull},
		{"1.5s", 1500000000ull},    {"1.000000001s", 1000000001ull},
		{"0.5ms", 500000ull},	    {"7ns", 7ull},
		{"\"3s\"", 3000000000ull},  {"1.25 ms", 1250000ull},
		{"1.50us", 1500ull},	    {"86400s", 86400000000000ull},
		{"2min", 120000000000ull},  {"1.5min", 90000000000ull},
		{"2h", 7200000000000ull},   {"0.25h", 900000000000ull},
		{"24h", 86400000000000ull},
	};
	static const struct {
		const char *text;
		const char *want;
	} bad[] = {
		{"1.5ns", "\"1.5ns\" is not a whole number of nanoseconds"},
		{"1.0000000001s", "is not a whole number of nanoseconds"},
		{"2d", "\"2d\" is not a duration"},
		{"2m", "\"2m\" is not a duration"},
		{"25h", "25h is out of range (1ns..86400s)"},
		{"s", "\"s\" is not a duration"},
		{"1e9", "\"1e9\" is not a duration"},
		{"-1s", "-1s is out of range (1ns..86400s)"},
		{"0", "0 is out of range (1ns..86400s)"},
		{"86400.000000001s", "is out of range (1ns..86400s)"},
		{"99999999999999999999", "is out of range"},
		/* a bare number in an assignment is a unit forgotten, not nanoseconds */
		{"7", "7 needs a unit (7s, 7ms, 7us or 7ns): only a scenario file reads a bare "
		      "number as nanoseconds"},
		{"500000000", "500000000 needs a unit"},
	};
	struct scenario *file = new_scenario();

	/* ... while a scenario file keeps integers as nanoseconds */
	load_ok(file, "duration: 7\n");
	cr_assert_eq(file->sched.duration_ns, 7ull);
	free(file);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct scenario *sc = new_scenario();
		char a[64];

		snprintf(a, sizeof(a), "duration=%s", good[i].text);
		set_ok(sc, a);
		cr_assert_eq(sc->sched.duration_ns, good[i].ns, "%s", a);
		free(sc);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct scenario *sc = new_scenario();
		char a[64];

		snprintf(a, sizeof(a), "duration=%s", bad[i].text);
		cr_assert_eq(scenario_set(sc, a, &serr), -EINVAL, "%s", a);
		cr_assert(strstr(serr.msg, "--set:1:10: duration: "), "%s", serr.msg);
		cr_assert(strstr(serr.msg, bad[i].want), "%s\n got: %s", a, serr.msg);
		free(sc);
	}
}

/* ------------------------------------------------------------------------ */
/* print -> load */

static void assert_round_trip(struct scenario *sc)
{
	struct scenario *back = new_scenario();
	char *text = print_to_string(sc);
	char *again;
	int rc = scenario_load_string(back, "printed.yaml", text, &serr);

	cr_assert_eq(rc, 0, "reload failed: %s\n%s", serr.msg, text);
	finish_ok(back);
	assert_same_config(back, sc);
	again = print_to_string(back);
	cr_assert_str_eq(again, text);
	free(again);
	free(text);
	free(back);
}

Test(scenario, realism_plain_keeps_the_round_clocks_and_lived_in_draws_them_from_the_seed)
{
	struct scenario *a = new_scenario(), *b = new_scenario(), *c = new_scenario();
	struct scenario *d = new_scenario();

	/* plain: 2022-06-15 08:53:20 UTC; boot one hour (3600 * 10^7 100-ns units) before */
	load_ok(a, "machine: {realism: plain}\n");
	finish_ok(a);
	cr_assert_eq(a->sched.lived_in, false);
	cr_assert_eq(a->trace.start_time, 133000000000000000ll);
	cr_assert_eq(a->trace.boot_time, 133000000000000000ll - 36000000000ll);
	/* lived-in: the same seed the same clocks, another seed others */
	load_ok(b, "seed: 7\n");
	finish_ok(b);
	load_ok(c, "seed: 7\n");
	finish_ok(c);
	load_ok(d, "seed: 8\n");
	finish_ok(d);
	cr_assert_eq(b->trace.start_time, c->trace.start_time);
	cr_assert_eq(b->trace.boot_time, c->trace.boot_time);
	cr_assert_neq(b->trace.start_time, d->trace.start_time);
	cr_assert_neq(b->trace.start_time - b->trace.boot_time,
		      d->trace.start_time - d->trace.boot_time);
	free(a);
	free(b);
	free(c);
	free(d);
	/* a start time given keeps its hour of uptime; a mistyped name is refused */
	a = new_scenario();
	load_ok(a, "machine: {start_time: 133500000000000000}\n");
	finish_ok(a);
	cr_assert_eq(a->trace.start_time, 133500000000000000ll);
	cr_assert_eq(a->trace.boot_time, 133500000000000000ll - 36000000000ll);
	cr_assert_neq(scenario_load_string(a, "r.yaml", "machine: {realism: lived_in}\n", &serr),
		      0);
	cr_assert(strstr(serr.msg, "lived-in"), "%s", serr.msg);
	free(a);
}

/* Groups named "... (background)" and the threads they hold. */
static unsigned background_groups(const struct scenario *sc, unsigned *threads)
{
	unsigned n = 0;

	*threads = 0;
	for (unsigned g = 0; g < sc->sched.ngroups; g++) {
		if (strstr(sc->sched.groups[g].name, " (background)")) {
			n++;
			*threads += sc->sched.groups[g].count;
		}
	}
	return n;
}

Test(scenario, a_lived_in_machine_runs_windows_own_processes_when_its_scenario_lets_it)
{
	struct scenario *sc = new_scenario();
	unsigned threads, groups, procs;
	bool csrss = false, lsass = false;

	/* the built-in desktop: Windows' own 34 processes and ~660 threads besides its own */
	finish_ok(sc);
	groups = background_groups(sc, &threads);
	cr_assert_geq(groups, 30);
	cr_assert_gt(threads, 600);
	for (unsigned i = 0; i < sc->nprocesses; i++) {
		csrss |= !strcmp(sc->processes[i].image, "csrss.exe");
		lsass |= !strcmp(sc->processes[i].name, "lsass.exe");
		cr_assert_lt(sc->processes[i].pid, 4096);
		cr_assert_eq(sc->processes[i].pid % 4, 0);
	}
	cr_assert(csrss && lsass);
	/* the scenario's own explorer.exe keeps its PID and gains waiting threads */
	for (unsigned i = 0; i < sc->nprocesses; i++) {
		if (!strcmp(sc->processes[i].name, "explorer.exe")) {
			cr_assert_eq(sc->processes[i].pid, 1868);
		}
	}
	procs = sc->nprocesses;
	free(sc);
	/* a scenario with threads of its own: none unless it says so */
	sc = new_scenario();
	load_ok(sc, "threads: [{name: solo}]\n");
	finish_ok(sc);
	cr_assert_eq(background_groups(sc, &threads), 0);
	cr_assert_eq(sc->background, 0);
	free(sc);
	sc = new_scenario();
	load_ok(sc, "machine: {background: server}\nthreads: [{name: solo}]\n");
	finish_ok(sc);
	cr_assert_gt(background_groups(sc, &threads), 10);
	cr_assert_gt(threads, 400);
	free(sc);
	/* plain: never */
	sc = new_scenario();
	load_ok(sc, "machine: {realism: plain, background: desktop}\n");
	finish_ok(sc);
	cr_assert_eq(background_groups(sc, &threads), 0);
	cr_assert_lt(sc->nprocesses, procs);
	/* a mistyped kind is refused with the kinds */
	cr_assert_neq(scenario_load_string(sc, "b.yaml", "machine: {background: desk}\n", &serr),
		      0);
	cr_assert(strstr(serr.msg, "desktop"), "%s", serr.msg);
	free(sc);
}

Test(scenario, print_round_trips_the_defaults)
{
	struct scenario *sc = new_scenario();
	char *text;

	finish_ok(sc);
	assert_round_trip(sc);
	text = print_to_string(sc);
	/* every section and a sample of keys, as YAML */
	cr_assert(strstr(text, "\nseed: 1\n"), "%s", text);
	cr_assert(strstr(text, "\nduration: 2s\n"));
	cr_assert(strstr(text, "\nmachine:\n  cpus: 8\n"));
	cr_assert(strstr(text, "  quantum: 31250us\n"));
	cr_assert(strstr(text, "  realism: lived-in\n"), "%s", text);
	cr_assert(strstr(text, "\nkernel:\n  quirks: true\n"));
	cr_assert(strstr(text, "\nsessions:\n  - name: \"NT Kernel Logger\"\n    clock: qpc\n"
			       "    flags: [cswitch, compact_cswitch, proc_thread]\n"));
	cr_assert(strstr(text, "\nthreads:\n  - name: "));
	cr_assert(strstr(text, "\nlocks: []\n"));
	free(text);
	free(sc);
}

Test(scenario, print_round_trips_every_key)
{
	struct scenario *sc = new_scenario();

	load_ok(sc, every_key_yaml);
	set_ok(sc, "sessions.0.name=quote \" backslash \\ tab \t end");
	set_ok(sc, "threads.1.wait_reasons.42=1");
	set_ok(sc, "threads.1.affinity=[0, 2, \"4-5\", 7, \"9-11\"]");
	finish_ok(sc);
	assert_round_trip(sc);
	free(sc);
}

Test(scenario, print_round_trips_a_nameless_wait_reason)
{
	struct scenario *sc = new_scenario();
	char *text;

	/* no target has 43 or more reasons today, so print and reload before finishing */
	set_ok(sc, "threads.0.wait_reasons={45: 3}");
	text = print_to_string(sc);
	cr_assert(strstr(text, "wait_reasons: {45: 3}"), "%s", text);
	free(text);
	cr_assert_eq(scenario_finish(sc, &serr), -EINVAL);
	cr_assert(strstr(serr.msg, "--set:1:25: threads.0.wait_reasons.45: wait reason 45 is not "
				   "below win10-1709's MaximumWaitReason (40)"),
		  "%s", serr.msg);
	free(sc);
}

/* ------------------------------------------------------------------------ */
/* bad input: the exact one-line message */

struct bad_case {
	const char *file; /* the name messages use */
	const char *text; /* the scenario */
	bool at_finish;	  /* the error comes from scenario_finish() */
	const char *want; /* a substring of the message, from file:line:col on */
};

#define NINE_SESSIONS                                                                              \
	"sessions: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f},\n"           \
	"           {name: g}, {name: h}, {name: i}]\n"

static const struct bad_case bad_cases[] = {
	{"busy.yaml", "machine:\n  cpus: 0\n", false,
	 "busy.yaml:2:9: machine.cpus: 0 is out of range (1..1024)"},
	{"x.yaml", "seed: 3\nsessions:\n  - name: A\n    clok: qpc\n", false,
	 "x.yaml:4:5: sessions.0.clok: unknown key (did you mean 'clock'?)"},
	{"x.yaml", "threads:\n  - {priority: 32}\n", false,
	 "x.yaml:2:16: threads.0.priority: 32 is out of range (1..31)"},
	{"x.yaml", "sessions:\n  - {name: A, clock: 7}\n", false,
	 "x.yaml:2:22: sessions.0.clock: 7 is out of range (1..3: qpc, systime, cycles)"},
	{"x.yaml", "sessions:\n  - {name: A, clock: qcp}\n", false,
	 "x.yaml:2:22: sessions.0.clock: \"qcp\" is not one of qpc, systime, cycles"},
	{"x.yaml", "sessions:\n  - {buffer_size: 5000}\n", false,
	 "x.yaml:2:19: sessions.0.buffer_size: 5000 is not a multiple of 4096 (4 KiB)"},
	{"x.yaml", "sessions:\n  - {buffer_size: 33554432}\n", false,
	 "x.yaml:2:19: sessions.0.buffer_size: 33554432 is out of range (4096..16777216)"},
	{"x.yaml", NINE_SESSIONS, false,
	 "x.yaml:1:11: sessions: 9 sessions, at most 8 (system loggers)"},
	{"x.yaml", "duration: 0\n", false, "x.yaml:1:11: duration: 0 is out of range"},
	{"x.yaml", "sessions: [{name: A}, {name: B}, {name: A}]\n", true,
	 "x.yaml:1:41: sessions.2.name: \"A\" is also the name of sessions.0"},
	{"x.yaml", "sessions: [{name: A, file: a.etl}, {name: B, file: a.etl}]\n", true,
	 "x.yaml:1:52: sessions.1.file: \"a.etl\" is also the file of sessions.0"},
	{"x.yaml", "sessions:\n  - name: A\n    flags: [compact_cswitch]\n", true,
	 "x.yaml:3:12: sessions.0.flags: compact_cswitch needs cswitch too"},
	{"x.yaml", "machine:\n  target: win7\n", false,
	 "x.yaml:2:11: machine.target: unknown target \"win7\" (known: win10-1507, win10-1607, "
	 "win10-1709, win10-1903, win11-22h2)"},
	{"x.yaml", "threads:\n  - wait_reasons: {UserReqest: 3}\n", false,
	 "x.yaml:2:20: threads.0.wait_reasons.UserReqest: unknown wait reason (did you mean "
	 "'UserRequest'?)"},
	{"x.yaml", "threads:\n  - wait_reasons: {userrequest: 3}\n", false,
	 "x.yaml:2:20: threads.0.wait_reasons.userrequest: unknown wait reason (did you mean "
	 "'UserRequest'?)"},
	{"x.yaml",
	 "machine: {target: win10-1507}\nthreads:\n  - wait_reasons: {WrPhysicalFault: 3}\n", true,
	 "x.yaml:3:20: threads.0.wait_reasons.WrPhysicalFault: wait reason 39 is not below "
	 "win10-1507's MaximumWaitReason (39)"},
	{"x.yaml", "threads:\n  - wait_reasons: {Executive: 1, \"0\": 2}\n", false,
	 "x.yaml:2:34: threads.0.wait_reasons.0: wait reason 0 is given twice"},
	{"x.yaml", "machine: {cpus: 4}\nthreads:\n  - affinity: [0, \"2-5\"]\n", true,
	 "x.yaml:3:15: threads.0.affinity: CPU 4 is not below machine.cpus (4)"},
	{"x.yaml", "threads:\n  - affinity: [\"3-1\"]\n", false,
	 "x.yaml:2:16: threads.0.affinity.0: \"3-1\" is not a CPU range \"a-b\" with a <= b"},
	{"x.yaml", "threads:\n  - affinity: [1024]\n", false,
	 "x.yaml:2:16: threads.0.affinity.0: 1024 is out of range (0..1023)"},
	{"x.yaml", "machine:\n  cpus: 4\n   x: 1\n", false,
	 "x.yaml:3:5: yaml: mapping values are not allowed in this context"},
	{"x.yaml", "machine: {cpus: 4\n", false, "x.yaml:2:1: yaml: did not find expected"},
	{"x.yaml", "machine:\n\tcpus: 4\n", false,
	 "x.yaml:2:1: yaml: found character that cannot start any token"},
	{"bin.yaml",
	 "\x7f"
	 "ELF\x02\x01\x01",
	 false, "bin.yaml:1:1: yaml: control characters are not allowed (byte 0x7f)"},
	{"x.yaml", "a: 1\n---\nb: 2\n", false,
	 "x.yaml:3:1: yaml: a second document; a scenario is one document"},
	{"x.yaml", "just some words\n", false, "x.yaml:1:1: scenario: must be a map, not a"},
	{"x.yaml", "- machine\n", false, "x.yaml:1:1: scenario: must be a map, not a list"},
	{"x.yaml", "machine: {cpus: \"8\"}\n", false,
	 "x.yaml:1:17: machine.cpus: must be an integer, not the string \"8\""},
	{"x.yaml", "machine: {cpus: [8]}\n", false,
	 "x.yaml:1:17: machine.cpus: must be an integer, not a list"},
	{"x.yaml", "machine: {cpus: eight}\n", false,
	 "x.yaml:1:17: machine.cpus: \"eight\" is not an integer"},
	{"x.yaml", "machine: {cpus: 8.5}\n", false,
	 "x.yaml:1:17: machine.cpus: \"8.5\" is not an integer"},
	{"x.yaml", "machine: {cpus: -1}\n", false,
	 "x.yaml:1:17: machine.cpus: -1 is out of range (1..1024)"},
	{"x.yaml", "machine: {cpus: 99999999999999999999999}\n", false,
	 "x.yaml:1:17: machine.cpus: 99999999999999999999999 is out of range (1..1024)"},
	{"x.yaml", "machine: {cpus: }\n", false,
	 "x.yaml:1:17: machine.cpus: no value (expected an integer)"},
	{"x.yaml", "machine: 5\n", false, "x.yaml:1:10: machine: must be a map, not a"},
	{"x.yaml", "sessions: {name: A}\n", false,
	 "x.yaml:1:11: sessions: must be a list, not a map"},
	{"x.yaml", "sessions: [A]\n", false, "x.yaml:1:12: sessions.0: must be a map, not a"},
	{"x.yaml", "seed: 1\nseed: 2\n", false, "x.yaml:2:1: seed: duplicate key (first at 1:1)"},
	{"x.yaml", "sesions: []\n", false,
	 "x.yaml:1:1: sesions: unknown key (did you mean 'sessions'?)"},
	{"x.yaml", "colour: red\n", false,
	 "x.yaml:1:1: colour: unknown key (known: seed, duration, machine, kernel, sessions, "
	 "processes, threads, locks, profile_interval, sysconfig, drivers)"},
	{"x.yaml", "threads: [{behavior: io_bound}]\n", false,
	 "x.yaml:1:12: threads.0.behavior: unknown key (did you mean 'behaviour'?)"},
	{"x.yaml", "threads: [{behaviour: busy}]\n", false,
	 "x.yaml:1:23: threads.0.behaviour: \"busy\" is not one of cpu_bound, io_bound, "
	 "interactive, periodic"},
	{"x.yaml", "threads: [{count: 0}]\n", true,
	 "x.yaml:1:10: threads: every group has count 0"},
	{"x.yaml", "threads: []\n", false, "x.yaml:1:10: threads: 0 groups, at least 1 needed"},
	{"x.yaml", "threads: [{lifetime: 5us}]\n", false,
	 "x.yaml:1:22: threads.0.lifetime: 5us is out of range (0 = the whole run, or "
	 "10us..86400s)"},
	{"x.yaml", "threads: [{duty: 0}]\n", false,
	 "x.yaml:1:18: threads.0.duty: 0 is out of range (1..100)"},
	{"x.yaml", "kernel: {quirks: yes}\n", false,
	 "x.yaml:1:18: kernel.quirks: \"yes\" is neither true nor false"},
	{"x.yaml", "kernel: {quirks: \"true\"}\n", false,
	 "x.yaml:1:18: kernel.quirks: must be true or false, not the string \"true\""},
	{"x.yaml", "kernel: {spinlock: {hold_threshold: 5}}\n", false,
	 "x.yaml:1:37: kernel.spinlock.hold_threshold: 5 is out of range (0 = off, or "
	 "1000000..4294967295 cycles"},
	{"x.yaml", "kernel: {spinlock: {acquire_sample_rate: 999}}\n", false,
	 "x.yaml:1:42: kernel.spinlock.acquire_sample_rate: 999 is out of range "
	 "(1000..4294967295)"},
	{"x.yaml", "sessions: [{flags: [cswich]}]\n", false,
	 "x.yaml:1:21: sessions.0.flags.0: \"cswich\" is not one of cswitch, compact_cswitch, "
	 "spinlock, proc_thread, dispatcher, profile, loader, dpc, interrupt (did you mean "
	 "'cswitch'?)"},
	{"x.yaml", "sessions: [{pmc: {events: [\"0x05245\"]}}]\n", false,
	 "x.yaml:1:28: sessions.0.pmc.events.0: \"0x05245\" is not a hook id such as "
	 "\"0x0524\""},
	{"x.yaml", "sessions: [{pmc: {events: [\"0x0524\", \"0x0524\"]}}]\n", false,
	 "x.yaml:1:38: sessions.0.pmc.events.1: hook 0x0524 is listed twice"},
	{"x.yaml", "sessions: [{pmc: {events: [1, 2, 3, 4, 5]}}]\n", false,
	 "x.yaml:1:27: sessions.0.pmc.events: 5 hook ids, at most 4"},
	{"x.yaml", "sessions: [{pmc: {counters: [a, b, c, d, e, f, g, h]}}]\n", false,
	 "x.yaml:1:29: sessions.0.pmc.counters: 8 PMC counter names, at most 7"},
	{"x.yaml", "sessions: [{pmc: {counters: [TotalCycles, totalcycles]}}]\n", false,
	 "x.yaml:1:43: sessions.0.pmc.counters.1: \"TotalCycles\" is listed twice"},
	{"x.yaml", "sessions: [{pmc: {counters: [TotalCycles, Bogus]}}]\n", false,
	 "x.yaml:1:43: sessions.0.pmc.counters.1: unknown PMC source \"Bogus\" (see "
	 "etwforge-scenario(5), PMC SOURCES)"},
	{"x.yaml", "sessions: [{pmc: {counters: [TotalCycle]}}]\n", false,
	 "x.yaml:1:30: sessions.0.pmc.counters.0: unknown PMC source \"TotalCycle\" (did you mean "
	 "\"TotalCycles\"?)"},
	{"x.yaml", "sessions: [{pmc: {counters: [InstructionRetired, llcmiss]}}]\n", false,
	 "x.yaml:1:50: sessions.0.pmc.counters.1: unknown PMC source \"llcmiss\" (did you mean "
	 "\"LLCMisses\"?)"},
	{"x.yaml", "sessions: [{pmc: {counters: [7]}}]\n", false,
	 "x.yaml:1:30: sessions.0.pmc.counters.0: unknown PMC source \"7\" (see "
	 "etwforge-scenario(5), PMC SOURCES)"},
	{"x.yaml",
	 "machine: {target: win10-1607}\n"
	 "sessions: [{pmc: {counters: [TotalCycles, LLCMisses, LLCReference, ProfileTime, "
	 "CacheMisses]}}]\n",
	 true,
	 "x.yaml:2:29: sessions.0.pmc.counters: 5 PMC counters, but win10-1607 (build 14393) "
	 "allows at most 4 per session (7 from Windows 10 1703, build 15063)"},
	{"x.yaml",
	 "sessions:\n"
	 "  - {name: A, pmc: {counters: [ProfileTime, AlignmentFixup, TotalIssues, PipelineDry,\n"
	 "      LoadInstructions, PipelineFrozen, BranchInstructions]}}\n"
	 "  - {name: B, pmc: {counters: [TotalNonissues, DcacheMisses, IcacheMisses, CacheMisses,\n"
	 "      BranchMispredictions, StoreInstructions, FpInstructions]}}\n"
	 "  - {name: C, pmc: {counters: [IntegerInstructions, Profile2Issue, Profile3Issue]}}\n",
	 true,
	 "x.yaml:6:31: sessions.2.pmc.counters: \"Profile3Issue\" is one more than the 16 "
	 "distinct PMC counters the machine has"},
	{"x.yaml", "sessions: [{name: \"\"}]\n", false,
	 "x.yaml:1:19: sessions.0.name: must not be empty"},
	{"x.yaml", "machine: {arch: x65}\n", false,
	 "x.yaml:1:17: machine.arch: \"x65\" is not one of x64, x86 (did you mean 'x64'?)"},
	{"x.yaml", "machine: {start_time: 100, boot_time: 200}\n", true,
	 "x.yaml:1:39: machine.boot_time: 200 is after machine.start_time (100)"},
	{"x.yaml", "machine: {timer_resolution: 100}\n", false,
	 "x.yaml:1:29: machine.timer_resolution: 100 is out of range (5000..156250)"},
	{"x.yaml", "machine: {quantum: 10us}\n", false,
	 "x.yaml:1:20: machine.quantum: 10us is out of range (100us..10s)"},
	/* every clock stays within what a truth carries (2^63-1), blamed on the key typed */
	{"x.yaml", "machine: {start_time: 9223372036854775807}\n", true,
	 "x.yaml:1:23: machine.start_time: the system time at the end of the run passes 2^63-1, "
	 "the largest integer a truth stream carries"},
	{"x.yaml", "machine: {boot_time: 0}\n", true,
	 "x.yaml:1:22: machine.boot_time: the uptime at the end of the run passes 2^63-1 ns, the "
	 "largest integer a truth stream carries"},
	{"x.yaml",
	 "machine: {perf_freq: 10000000000, start_time: 10000000000000000, boot_time: 0}\n", true,
	 "x.yaml:1:22: machine.perf_freq: the QPC clock at the end of the run passes 2^63-1, the "
	 "largest integer a truth stream carries"},
	/* 9e9 s of uptime: 9e16 QPC ticks fit, 2.7e19 cycles at 3000 MHz do not; cpu_mhz was
	 * not typed, so the first typed key that moves the clock is blamed */
	{"x.yaml", "machine: {start_time: 100000000000000000, boot_time: 10000000000000000}\n",
	 true,
	 "x.yaml:1:54: machine.boot_time: the cycle counter at the end of the run passes 2^63-1"},
	{"x.yaml", "machine: {cpu_mhz: 100000, start_time: 1000000000000000, boot_time: 0}\n", true,
	 "x.yaml:1:20: machine.cpu_mhz: the cycle counter at the end of the run passes 2^63-1, the "
	 "largest integer a truth stream carries"},
	{"x.yaml", "seed: 9223372036854775808\n", false,
	 "x.yaml:1:7: seed: 9223372036854775808 is out of range (0..9223372036854775807)"},
	{"x.yaml", "duration: 2s\nduration: 3s\n", false,
	 "x.yaml:2:1: duration: duplicate key (first at 1:1)"},
	{"x.yaml", "threads: [{name: ui}]\nlocks: [{name: L, taken_by: [iu]}]\n", true,
	 "x.yaml:2:30: locks.0.taken_by.0: unknown taker \"iu\": dpc, isr, or a thread group (ui)"},
	{"x.yaml", "threads: [{name: rx_worker}]\nlocks: [{name: L, taken_by: [rx_wroker]}]\n",
	 true,
	 "x.yaml:2:30: locks.0.taken_by.0: unknown taker \"rx_wroker\" (did you mean "
	 "\"rx_worker\"?)"},
	{"x.yaml", "locks: [{name: A, nested: [B]}]\n", true,
	 "x.yaml:1:28: locks.0.nested.0: no lock is named \"B\""},
	{"x.yaml", "locks: [{name: A, nested: [B]}, {name: B, nested: [A]}]\n", true,
	 "x.yaml:1:27: locks.0.nested: makes a cycle: a lock would be taken inside itself"},
	{"x.yaml", "locks: [{name: A, modes: {queud: 1}}]\n", false,
	 "x.yaml:1:27: locks.0.modes.queud: unknown acquire mode (did you mean \"queued\"?)"},
	{"x.yaml", "locks: [{name: A, modes: {ordinary: 0}}]\n", true,
	 "x.yaml:1:26: locks.0.modes: needs a weight above 0"},
	{"x.yaml", "locks: [{name: A, hold: 2us, hold_tail_max: 1us}]\n", true,
	 "x.yaml:1:45: locks.0.hold_tail_max: must be at least hold"},
	{"x.yaml", "locks: [{name: A}, {name: A}]\n", true,
	 "x.yaml:1:27: locks.1.name: \"A\" is also the name of locks.0"},
	{"x.yaml", "locks: [{name: A, taken_by: [dpc, dpc]}]\n", false,
	 "x.yaml:1:35: locks.0.taken_by.1: \"dpc\" is listed twice"},
	{"x.yaml", "locks: [{name: A, rate: 1000000001}]\n", false,
	 "x.yaml:1:25: locks.0.rate: 1000000001 is out of range (0..1000000000)"},
	{"x.yaml", "locks: [{name: L, contention: 10}]\n", false,
	 "x.yaml:1:31: locks.0.contention: is no longer a setting: contention emerges from rate, "
	 "hold, taken_by and the CPUs, and gen reports it per lock; remove the key (README: Spin "
	 "locks)"},
	{"x.yaml", "locks: [{hold: 0}]\n", false,
	 "x.yaml:1:16: locks.0.hold: 0 is out of range (1ns..1s)"},
	{"x.yaml", "? [a, b]\n: 1\n", false,
	 "x.yaml:1:3: scenario: a key must be a name, not a list"},
	/* processes */
	{"x.yaml",
	 "processes: [{name: explorer.exe}]\nthreads: [{name: ui, process: explorer.ex}]\n", true,
	 "x.yaml:2:31: threads.0.process: no process is named \"explorer.ex\" (did you mean "
	 "\"explorer.exe\"?)"},
	{"x.yaml", "threads: [{name: ui, process: Sytem}]\n", true,
	 "x.yaml:1:31: threads.0.process: no process is named \"Sytem\" (did you mean "
	 "\"System\"?)"},
	{"x.yaml", "processes: [{name: a.exe, pid: 1000}, {name: b.exe, pid: 1000}]\n", true,
	 "x.yaml:1:58: processes.1.pid: 1000 is also the PID of processes.0"},
	{"x.yaml", "processes: [{name: a.exe, pid: 1002}]\n", false,
	 "x.yaml:1:32: processes.0.pid: 1002 is not a multiple of 4 (Windows' PIDs are)"},
	{"x.yaml", "processes: [{name: a.exe, pid: 4096}]\n", false,
	 "x.yaml:1:32: processes.0.pid: 4096 is out of range (PIDs are below 4096, where thread "
	 "IDs start: they share one ID space)"},
	{"x.yaml", "processes: [{name: a.exe, pid: 4}]\n", false,
	 "x.yaml:1:32: processes.0.pid: 4 is the PID of System"},
	{"x.yaml", "processes: [{name: a.exe, pid: 0}]\n", false,
	 "x.yaml:1:32: processes.0.pid: 0 is the PID of Idle"},
	{"x.yaml", "processes: [{name: a.exe}, {name: a.exe}]\n", true,
	 "x.yaml:1:35: processes.1.name: \"a.exe\" is also the name of processes.0"},
	{"x.yaml", "processes: [{name: System}]\n", false,
	 "x.yaml:1:20: processes.0.name: \"System\" is the built-in process of PID 4"},
	{"x.yaml", "processes:\n  - {name: a.exe, start: 2s, exit: 1500ms}\n", true,
	 "x.yaml:2:36: processes.0.exit: 1500ms is not after start (2s): a process exits after "
	 "it starts"},
	{"x.yaml", "processes:\n  - {name: a.exe, exit: 1s, lifetime: 1s}\n", false,
	 "x.yaml:2:39: processes.0.lifetime: give exit or lifetime, not both"},
	{"x.yaml", "processes: [{name: a.exe, image: \"expl\u00f6rer.exe\"}]\n", false,
	 "x.yaml:1:34: processes.0.image: \"expl\u00f6rer.exe\" is not 7-bit ASCII: "
	 "ImageFileName is an ANSI string"},
	{"x.yaml", "processes: [{name: \"\u00e9diteur.exe\"}]\n", true,
	 "x.yaml:1:20: processes.0.name: \"\u00e9diteur.exe\" is not 7-bit ASCII: ImageFileName "
	 "is an ANSI string (give an ASCII image: key)"},
	{"x.yaml", "processes: [{name: a.exe, sesion: 1}]\n", false,
	 "x.yaml:1:27: processes.0.sesion: unknown key (did you mean 'session'?)"},
	{"x.yaml", "processes: [{name: a.exe, user: S-1-5-x}]\n", false,
	 "x.yaml:1:33: processes.0.user: \"S-1-5-x\" is not a SID (S-1-<authority>-"
	 "<sub-authority>..., at most 15 sub-authorities, e.g. S-1-5-18) nor none"},
	{"x.yaml",
	 "processes: [{name: a.exe, user: S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16}]\n", false,
	 "x.yaml:1:33: processes.0.user: \"S-1-5-1-2-3-4-5-6-7-8-9-10-11-12-13-14-15-16\" "
	 "is not a SID"},
	{"x.yaml", "processes: [{name: a.exe, parent: explorer}]\n", true,
	 "x.yaml:1:35: processes.0.parent: no process is named \"explorer\" (processes: the "
	 "names of the processes list, or System)"},
	{"x.yaml", "processes: [{name: a.exe, parent: b.ex}, {name: b.exe}]\n", true,
	 "x.yaml:1:35: processes.0.parent: no process is named \"b.ex\" (did you mean "
	 "\"b.exe\"?)"},
	{"x.yaml", "processes: [{name: a.exe, parent: a.exe}]\n", true,
	 "x.yaml:1:35: processes.0.parent: a process cannot be its own parent"},
	{"x.yaml", "processes: [{name: a.exe, session: -2}]\n", false,
	 "x.yaml:1:36: processes.0.session: \"-2\" is not a session (0..65535, or none / -1: no "
	 "session)"},
	{"x.yaml", "processes: [{pid: 1000}]\n", true,
	 "x.yaml:1:13: processes.0: needs a name (e.g. name: explorer.exe)"},
	{"x.yaml", "profile_interval: 100us\n", false,
	 "x.yaml:1:19: profile_interval: 100us is out of range (122100ns..1s: what Windows "
	 "accepts)"},
	{"x.yaml", "profile_interval: 2s\n", false,
	 "x.yaml:1:19: profile_interval: 2s is out of range (122100ns..1s"},
	{"x.yaml", "profile_interval: 122.15us\n", false,
	 "x.yaml:1:19: profile_interval: 122.15us is not a whole number of 100 ns (Windows' unit "
	 "for it)"},
	{"x.yaml", "machine: {computer_name: THE-LONG-HOSTNAME}\n", false,
	 "x.yaml:1:26: machine.computer_name: is too long (17 bytes, at most 15)"},
	{"x.yaml", "processes: [{name: a.exe, exit_status: 0x100000000}]\n", false,
	 "x.yaml:1:40: processes.0.exit_status: \"0x100000000\" is not an exit code"},
};

#define NBAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

static void free_params(struct criterion_test_params *crp)
{
	cr_free(crp->params);
}

/* the parameter is an index: pointers in parameters do not survive the worker */
ParameterizedTestParameters(scenario, bad_input)
{
	unsigned *idx = cr_malloc(NBAD * sizeof(*idx));

	for (unsigned i = 0; i < NBAD; i++) {
		idx[i] = i;
	}
	return cr_make_param_array(unsigned, idx, NBAD, free_params);
}

ParameterizedTest(unsigned *i, scenario, bad_input)
{
	const struct bad_case *c = &bad_cases[*i];
	struct scenario *sc = new_scenario();
	const char *text = c->text;
	int rc = scenario_load_string(sc, c->file, text, &serr);

	if (c->at_finish) {
		cr_assert_eq(rc, 0, "load: %s", serr.msg);
		rc = scenario_finish(sc, &serr);
	}
	cr_assert_eq(rc, -EINVAL, "rc %d for:\n%s", rc, text);
	cr_assert(strstr(serr.msg, c->want), "\n got: %s\nwant: %s", serr.msg, c->want);
	cr_assert_eq(strncmp(serr.msg, c->want, strlen(c->file)), 0, "starts with the file: %s",
		     serr.msg);
	cr_assert_eq(strchr(serr.msg, '\n'), NULL, "one line: %s", serr.msg);
	free(sc);
}

/* libyaml takes quadratic time over deep nesting (80 KB of '[': 11 s): refused at the 17th
 * level, at once; a text over 1 MiB is refused unread. */
Test(scenario, deep_or_huge_text_is_refused_at_once)
{
	struct scenario *sc = new_scenario();
	size_t n = 80000;
	char *text = malloc(2 * n + 16);

	cr_assert_not_null(text);
	memcpy(text, "seed: ", 6);
	memset(text + 6, '[', n);
	memset(text + 6 + n, ']', n);
	text[6 + 2 * n] = '\0';
	cr_assert_eq(scenario_load_string(sc, "deep.yaml", text, &serr), -EINVAL);
	cr_assert_str_eq(
		serr.msg,
		"deep.yaml:1:22: yaml: nested more than 16 levels deep; a scenario needs a "
		"handful");
	free(text);
	text = malloc((1u << 20) + 2);
	cr_assert_not_null(text);
	memset(text, '#', (1u << 20) + 1);
	text[(1u << 20) + 1] = '\0';
	cr_assert_eq(scenario_load_string(sc, "big.yaml", text, &serr), -EFBIG);
	cr_assert_str_eq(serr.msg, "big.yaml: larger than 1 MiB: not a scenario");
	free(text);
	/* 16 levels reach the schema (which wants no list there); a scenario needs 4 */
	scenario_default(sc);
	cr_assert_eq(scenario_load_string(sc, "x.yaml", "seed: [[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]\n",
					  &serr),
		     -EINVAL);
	cr_assert(strstr(serr.msg, "x.yaml:1:7: seed: ") && !strstr(serr.msg, "nested"), "%s",
		  serr.msg);
	free(sc);
}

Test(scenario, too_many_groups)
{
	struct scenario *sc = new_scenario();
	char text[2048] = "threads:\n";
	size_t n = strlen(text);

	for (int i = 0; i < 65; i++) {
		n += (size_t)snprintf(text + n, sizeof(text) - n, "  - {}\n");
	}
	cr_assert_eq(scenario_load_string(sc, "many.yaml", text, &serr), -EINVAL);
	cr_assert(strstr(serr.msg, "many.yaml:2:3: threads: 65 groups, at most 64 (thread groups)"),
		  "%s", serr.msg);
	free(sc);
}

/* ------------------------------------------------------------------------ */
/* files */

Test(scenario, unreadable_files)
{
	struct scenario *sc = new_scenario();
	char dir[] = "/tmp/test_scenario.XXXXXX";
	char big[64];
	FILE *f;

	cr_assert_eq(scenario_load_file(sc, "/nonexistent/busy.yaml", &serr), -EIO);
	cr_assert_str_eq(serr.msg,
			 "/nonexistent/busy.yaml: cannot open: No such file or directory");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(scenario_load_file(sc, dir, &serr), -EIO);
	cr_assert(strstr(serr.msg, ": cannot open: Is a directory"), "%s", serr.msg);
	/* 2 MiB (sparse): over the 1 MiB limit */
	snprintf(big, sizeof(big), "%s/big.yaml", dir);
	f = fopen(big, "w");
	cr_assert_not_null(f);
	cr_assert_eq(ftruncate(fileno(f), 2 << 20), 0);
	fclose(f);
	cr_assert_eq(scenario_load_file(sc, big, &serr), -EFBIG);
	cr_assert(strstr(serr.msg, "big.yaml: larger than 1 MiB"), "%s", serr.msg);
	unlink(big);
	rmdir(dir);
	free(sc);
}

Test(scenario, a_file_loads_like_a_string)
{
	struct scenario *a = new_scenario();
	struct scenario *b = new_scenario();
	char path[] = "/tmp/test_scenario_XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	cr_assert_not_null(f);
	fputs(every_key_yaml, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(scenario_load_file(a, path, &serr), 0, "%s", serr.msg);
	finish_ok(a);
	load_ok(b, every_key_yaml);
	finish_ok(b);
	assert_same_config(a, b);
	cr_assert_str_eq(a->source, path);
	unlink(path);
	free(a);
	free(b);
}

/*
 * tools/scenarios/: $ETWFORGE_SCENARIOS, else next to the tests' SOURCE_DIR
 * (when the build defines it), else found from this file's path (meson
 * compiles it relative to the build dir and runs tests there).
 */
static void examples_dir(char *buf, size_t len)
{
	const char *env = getenv("ETWFORGE_SCENARIOS");
	const char *slash = strrchr(__FILE__, '/');

	if (env) {
		snprintf(buf, len, "%s", env);
#ifdef SOURCE_DIR
	} else if (SOURCE_DIR[0]) {
		snprintf(buf, len, "%s/../tools/scenarios", SOURCE_DIR);
#endif
	} else if (slash) {
		snprintf(buf, len, "%.*s/../tools/scenarios", (int)(slash - __FILE__), __FILE__);
	} else {
		snprintf(buf, len, "../tools/scenarios");
	}
}

static struct scenario *load_example(const char *name)
{
	struct scenario *sc = new_scenario();
	char dir[1024];
	char path[1200];

	examples_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(scenario_load_file(sc, path, &serr), 0, "%s", serr.msg);
	finish_ok(sc);
	return sc;
}

Test(scenario, every_example_loads_finishes_and_round_trips)
{
	char dir[1024];
	DIR *d;
	struct dirent *e;
	unsigned n = 0;

	examples_dir(dir, sizeof(dir));
	d = opendir(dir);
	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		struct scenario *sc;

		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml")) {
			continue;
		}
		sc = load_example(e->d_name);
		assert_round_trip(sc);
		free(sc);
		n++;
	}
	closedir(d);
	cr_assert_geq(n, 5, "desktop, server64, lock_driver, multi_clock, lock_contention");
}

Test(scenario, examples_say_what_their_names_say)
{
	struct scenario *sc;

	sc = load_example("desktop.yaml");
	cr_assert_eq(sc->trace.cpus, 8);
	cr_assert_not_null(group_named(sc, "audio"));
	cr_assert_geq(group_named(sc, "audio")->base_priority, 15);
	/* who runs: the shell, a browser of several processes, services; every record kind */
	cr_assert(sc->ident.proc_thread && sc->ident.dispatcher && sc->ident.profile);
	{
		struct ident_cfg *c = malloc(sizeof(*c));
		unsigned edge = 0;
		bool late_tab = false;

		cr_assert_not_null(c);
		scenario_ident_cfg(sc, c);
		for (unsigned i = 2; i < c->nprocesses; i++) {
			edge += !strcmp(c->processes[i].image, "msedge.exe");
			late_tab |= c->processes[i].start_ns > 0 &&
				    c->processes[i].exit_ns != IDENT_NO_EXIT;
		}
		cr_assert_geq(edge, 3, "a browser process and renderers");
		cr_assert(late_tab, "a process that starts and exits during the trace");
		cr_assert_eq(c->nprocesses, 2 + sc->nprocesses, "every group names its process");
		free(c);
	}
	free(sc);

	sc = load_example("server64.yaml");
	cr_assert_eq(sc->trace.cpus, 64);
	cr_assert_gt(group_named(sc, "request_workers")->count, 64);
	cr_assert_gt(sc->trace.ncounters, 0);
	cr_assert_eq(sc->ident.group_process[0], sc->ident.group_process[3],
		     "request workers and handlers: one worker process");
	for (unsigned g = 0; g < sc->sched.ngroups; g++) {
		/* its own System workers, and the background's (machine.background: server) */
		bool system = !strcmp(sc->sched.groups[g].name, "system_workers") ||
			      !strcmp(sc->sched.groups[g].name, "System (background)");

		cr_assert_eq(sc->ident.group_process[g] == IDENT_SYSTEM, system, "group %u", g);
	}
	free(sc);

	sc = load_example("lock_driver.yaml");
	cr_assert_gt(sc->nlocks, 0);
	cr_assert(sc->trace.sessions[0].flags & PRODUCER_F_SPINLOCK);
	cr_assert(sc->trace.sessions[1].pebs && sc->trace.sessions[1].pmc_count == 3,
		  "a session with PEBS and PMC items on 0x0529");
	cr_assert(sc->lock_model.counters);
	free(sc);

	sc = load_example("lock_contention.yaml");
	cr_assert_eq(sc->trace.cpus, 2);
	cr_assert_eq(sc->nlocks, 1);
	cr_assert_eq(sc->lock_model.locks[0].groups, 0x3, "both groups take it");
	free(sc);

	sc = load_example("multi_clock.yaml");
	cr_assert_eq(sc->trace.nsessions, 3);
	cr_assert_eq(sc->trace.sessions[0].clock, SIM_CLOCK_QPC);
	cr_assert_eq(sc->trace.sessions[1].clock, SIM_CLOCK_SYSTIME);
	cr_assert_eq(sc->trace.sessions[2].clock, SIM_CLOCK_CYCLES);
	cr_assert(sc->sched.clocks[SIM_CLOCK_QPC] && sc->sched.clocks[SIM_CLOCK_SYSTIME] &&
		  sc->sched.clocks[SIM_CLOCK_CYCLES]);
	free(sc);
}
