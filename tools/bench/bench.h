/* SPDX-License-Identifier: MIT */
/*
 * tools/bench/bench.h - what the files of `etwforge bench` share (private to
 * the library): the results being built (the handle behind struct
 * etwforge_bench), the sizes of each kind of run, the clocks, and one entry
 * point per measured path.
 *
 *   bench_run()              api_bench.c: sizes, scratch, order
 *     bench_machine_fill()            bench_machine.c
 *     bench_compact()     (a)         bench_compact.c, on bench_ccswap.c
 *     bench_cswitch()     (b)         bench_cswitch.c  \  bench_backend.c:
 *     bench_spinlock()    (c)         bench_spinlock.c /  in-memory buffers
 *     bench_gen()         (d)         bench_gen.c: a child process per run
 *                                     (bench_child.c)
 *     bench_decode()      (e)         bench_decode.c   \  on the source trace
 *     bench_replay_verify() (f)       bench_replay.c   /  of bench_scratch.c
 *     bench_mutate()      (g)         bench_mutate.c: the fuzzing mutator
 *   bench_print()            bench_print.c: text or JSON
 *
 * A figure is the median, min and max of its runs. Every path also records
 * its work (struct bench_work: the stream's seed and mix, the digest of
 * what it produced), and a timed run that produces other bytes than the
 * first run fails the benchmark (-EIO): the same work or no figure.
 */
#ifndef TOOLS_LIB_BENCH_H
#define TOOLS_LIB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "etwforge/etwforge.h"
#include "tools/bench/bench_api.h"

#define BENCH_MAX_RUNS	  99
#define BENCH_MAX_FIGURES 96
#define BENCH_MAX_WORK	  16
#define BENCH_MAX_KV	  24

/**
 * struct bench_size - how much work one run of each path does.
 * @runs:             timed runs per figure
 * @ccswap_switches:  (a) switches per pass
 * @cswitch_switches: (b) switches per pass and variant
 * @spinlock_events:  (c) releases per pass
 * @gen_default_ns:   (d) simulated time of the default scenario
 * @gen_server_ns:    (d) simulated time of server64.yaml
 * @source_ns:        (e, f) simulated time of the default scenario whose
 *                    files and truth are decoded, replayed and verified
 * @decode_repeats:   (e) times the file is read per run
 * @mutate_stage:     (g) mutants of each catalogue file per run
 */
struct bench_size {
	unsigned runs;
	uint64_t ccswap_switches;
	uint64_t cswitch_switches;
	uint64_t spinlock_events;
	uint64_t gen_default_ns;
	uint64_t gen_server_ns;
	uint64_t source_ns;
	unsigned decode_repeats;
	unsigned mutate_stage;
};

/* One item of a path's work: a count, a decimal, a string or a digest. */
enum bench_kv_type {
	BENCH_KV_U64 = 0,
	BENCH_KV_F64,
	BENCH_KV_STR,
	BENCH_KV_HEX,
};

/**
 * struct bench_kv - one item of a work description.
 * @key:   JSON member name and text label
 * @of:    BENCH_KV_U64: the text also shows the share of @of (0: none)
 * @dec:   BENCH_KV_F64: digits after the point
 */
struct bench_kv {
	const char *key;
	enum bench_kv_type type;
	uint64_t u;
	uint64_t of;
	double d;
	unsigned dec;
	char s[160];
};

/**
 * struct bench_work - what one path measured, so two runs can be compared.
 * @name: JSON key ("ccswap", "gen.server64")
 * @what: one line for people
 */
struct bench_work {
	char name[32];
	char what[400];
	unsigned nkv;
	struct bench_kv kv[BENCH_MAX_KV];
};

/** struct bench - the results of bench_run(). */
struct bench {
	enum bench_scale size;
	unsigned groups;
	unsigned runs;
	struct bench_machine machine;
	unsigned nfig;
	struct bench_figure fig[BENCH_MAX_FIGURES];
	unsigned nwork;
	struct bench_work work[BENCH_MAX_WORK];
	/* the progress callback of the options */
	void (*progress)(void *ctx, const char *what);
	void *progress_ctx;
	/* the clock of the path being measured: bench_figure()'s for times and rates */
	const char *clock;
};

/* ---- bench_util.c ---------------------------------------------------------- */

/** bench_wall_ns - CLOCK_MONOTONIC in ns: for laps of a hot path. */
double bench_wall_ns(void);

/** bench_cpu_s - the process's CPU time (user + system) in seconds. */
double bench_cpu_s(void);

/**
 * bench_figure - add the figure @name (@label, @unit) from the @n values of
 * @v (one per run): median, min, max. @name, @label and @unit must be
 * string literals (they are kept). A time or a rate is of the path's clock
 * (b->clock, set by bench_run()); other units have none.
 */
void bench_figure(struct bench *b, const char *name, const char *label, const char *unit,
		  const double *v, unsigned n);

/** bench_figure_clock - bench_figure() with the clock said: BENCH_CPU, BENCH_WALL or NULL. */
void bench_figure_clock(struct bench *b, const char *name, const char *label, const char *unit,
			const char *clock, const double *v, unsigned n);

#define BENCH_CPU  "cpu"
#define BENCH_WALL "wall"

/**
 * bench_laps_ns - the time of a pass timed in laps, with preempted laps
 * taken out: the machine is shared, and a lap during which the thread
 * was descheduled takes milliseconds instead of microseconds, so a lap
 * above 4x the median lap counts as the median lap.
 * @lap_ns: each lap's time per event; @nlaps laps of @window events, the
 *          last one holding what is left of @events
 * Return: the pass's time in ns, or -1 without memory.
 */
double bench_laps_ns(const float *lap_ns, uint64_t nlaps, uint64_t events, unsigned window);

/** bench_progress - tell the caller what is measured now. */
void bench_progress(struct bench *b, const char *what);

/** bench_work_add - a new work description @name ("what" formatted). NULL when full. */
struct bench_work *bench_work_add(struct bench *b, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Work items; @key must be a string literal. */
void bench_kv_u64(struct bench_work *w, const char *key, uint64_t v, uint64_t of);
void bench_kv_f64(struct bench_work *w, const char *key, double v, unsigned dec);
void bench_kv_str(struct bench_work *w, const char *key, const char *v);
void bench_kv_hex(struct bench_work *w, const char *key, uint64_t v);

/* ---- the paths: each returns 0 or a negative errno with @err filled ------ */

/** bench_machine_fill - the machine line (CPU, cores, compiler, build, kernel, version). */
void bench_machine_fill(struct bench_machine *m);

/** bench_compact - (a) the compact batching engine alone, and a memset of its output. */
int bench_compact(struct bench *b, const struct bench_size *sz, struct etwforge_error *err);

/** bench_cswitch - (b) the plain CSwitch path: no items, 3 PMC counters, PEBS. */
int bench_cswitch(struct bench *b, const struct bench_size *sz, struct etwforge_error *err);

/** bench_spinlock - (c) SpinLock 0x0529 events through the producer. */
int bench_spinlock(struct bench *b, const struct bench_size *sz, struct etwforge_error *err);

struct bench_scratch;

/**
 * bench_gen - (d) gen of the default scenario and server64.yaml, truth off
 * and on, and desktop.yaml without and with loader and stacks, each run in
 * a child process (peak RSS from wait4()).
 */
int bench_gen(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
	      struct etwforge_error *err);

/**
 * bench_cores - (d, cont.) server64.yaml: the machine alone, gen to the null
 * device, gen to files with one thread and with --jobs N (bench_cores.c).
 */
int bench_cores(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
		struct etwforge_error *err);

/** bench_mutate - (g) the mutator over the catalogue: an AFL++ stage, and a new input each call. */
int bench_mutate(struct bench *b, const struct bench_size *sz, struct etwforge_error *err);

/** bench_decode - (e) reading the source trace: etwforge_file_stats() and the iterator. */
int bench_decode(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
		 struct etwforge_error *err);

/** bench_replay_verify - (f) replay of the source truth, and verify of the source trace. */
int bench_replay_verify(struct bench *b, const struct bench_size *sz, struct bench_scratch *s,
			struct etwforge_error *err);

/* ---- bench_scratch.c: the scratch folder ----------------------------------- */

/* The files of the scratch folder (the signal cleanup knows each one). */
enum bench_file {
	BENCH_F_GEN = 0,   /* gen.etl: (d)'s first session */
	BENCH_F_GEN2,	   /* gen-2.etl */
	BENCH_F_GEN_TRUTH, /* gen.truth.jsonl */
	BENCH_F_SRC,	   /* src.etl: the source trace of (e) and (f) */
	BENCH_F_SRC2,	   /* src-2.etl */
	BENCH_F_SRC_TRUTH, /* src.truth.jsonl */
	BENCH_F_REPLAY,	   /* replay.etl */
	BENCH_F_REPLAY2,   /* replay-2.etl */
	BENCH_F_COUNT,
};

/**
 * bench_scratch_create - a new folder "etwforge-bench-XXXXXX" in @tmpdir
 * (NULL: $TMPDIR, else /tmp), removed with every file above by
 * bench_scratch_destroy(), and by the signals of cli_signals_install()
 * (which then also stop a child process running for it).
 * Return: the folder, or NULL with @err filled.
 */
struct bench_scratch *bench_scratch_create(const char *tmpdir, struct etwforge_error *err);

/** bench_scratch_destroy - remove the files and the folder. NULL is a no-op. */
void bench_scratch_destroy(struct bench_scratch *s);

/** bench_scratch_path - the path of file @f in the folder. */
const char *bench_scratch_path(const struct bench_scratch *s, enum bench_file f);

/** bench_scratch_name - the name of file @f in the folder (in a child: its path). */
const char *bench_scratch_name(enum bench_file f);

/** bench_scratch_dir - the folder. */
const char *bench_scratch_dir(const struct bench_scratch *s);

/**
 * bench_scratch_child - the child process running for the scratch folder
 * (0: none): a signal stops it and waits for it before the folder goes.
 */
void bench_scratch_child(int pid);

/**
 * bench_scratch_forked - call first in a child process: a signal there
 * removes the child's temporary files only, the folder is the parent's.
 */
void bench_scratch_forked(void);

/* ---- bench_child.c: a function run in a child process ---------------------- */

/**
 * bench_child_fn - what a child runs, in the scratch folder: fill the @len
 * bytes at @out (copied back to the parent).
 * Return: 0, or a negative errno with @err filled (passed back).
 */
typedef int (*bench_child_fn)(void *ctx, void *out, struct etwforge_error *err);

/**
 * bench_child_run - run @fn in a child process whose working folder is the
 * scratch folder (outputs named relatively, so a file's digest does not
 * depend on where the folder is) and wait for it. @fn NULL: a child that
 * exits at once (the peak RSS a fork starts with). @what names it in
 * messages.
 * Return: 0 with @out filled, *@ru (the child's rusage: CPU time,
 * ru_maxrss) and *@wall (seconds from fork to wait); the child's error; or
 * -EIO when the child died.
 */
int bench_child_run(struct bench_scratch *s, const char *what, bench_child_fn fn, void *ctx,
		    void *out, size_t len, struct rusage *ru, double *wall,
		    struct etwforge_error *err);

/** bench_rusage_cpu_s - user + system time of @ru, in seconds. */
double bench_rusage_cpu_s(const struct rusage *ru);

/**
 * struct bench_source - the source trace of (e) and (f).
 * @switches: switches it holds
 * @events:   events in the compact session's file (src.etl)
 * @xxh3:     that file's XXH3-64
 */
struct bench_source {
	uint64_t switches;
	uint64_t events;
	uint64_t xxh3;
};

/**
 * bench_scratch_source - the source trace: the default scenario for @sim_ns
 * of simulated time, with its truth, generated on first use (untimed, in a
 * child process: src.etl, src-2.etl, src.truth.jsonl).
 * Return: 0 with *@src, or a negative errno.
 */
int bench_scratch_source(struct bench_scratch *s, uint64_t sim_ns, struct bench_source *src,
			 struct etwforge_error *err);

#endif /* TOOLS_LIB_BENCH_H */
