/* SPDX-License-Identifier: MIT */
/*
 * etwforge/etwforge.h - the installed API of libetwforge: simulate a
 * Windows-like machine and write the ETL files its NT Kernel Logger
 * sessions would (CSwitch 0x0524, compact CSwitch batches 0x0525, SpinLock
 * 0x0529, PMC and PEBS items), replay a truth stream into ETL files
 * exactly, read any ETL file back as a stream of decoded events, and
 * verify a file against its truth.
 *
 * Conventions: every name is etwforge_-prefixed; handles are opaque;
 * pointers are borrowed unless a comment says otherwise. Compile with
 * `pkg-config --cflags etwforge`, link with `pkg-config --libs etwforge`.
 *
 * Errors, one way for every function: a function that can fail returns 0
 * (or a count, or a pointer) on success, and a negative errno (or NULL with
 * errno set) on failure. Where a person must read why, it takes a
 * `struct etwforge_error *err` last (NULL is allowed: then only the errno
 * tells) and fills it with one line saying where and what, the errno, and
 * the error's kind: ETWFORGE_ERROR_INPUT (what the caller gave is wrong: a
 * scenario, a stream, an option value, a path that names nothing readable,
 * two outputs that are one file) or ETWFORGE_ERROR_DATA (the data is bad, a
 * check failed, or the system failed: a write error, no memory). A
 * command-line tool maps the kinds to its exit statuses; the library has
 * none, and installs no signal handler.
 *
 * Growth (see README, "Layers, and the library"): a struct the caller
 * allocates and hands in or out (options, results) starts with
 * `size_t sz`, the size of the caller's struct: declare it with
 * ETWFORGE_OPTS() so that sz is set and every other field is zero. The
 * library reads (or writes) only the first sz bytes, takes the fields past
 * them as zero (their default), and refuses with -EINVAL an sz that does
 * not reach past the first field, or one larger than its own struct whose
 * extra bytes are not all zero (an option this library does not know). A
 * struct the library hands out is read through the const pointer it gives
 * (never copied by value or allocated by the caller): it may grow at its
 * end. No public struct holds a fixed array: strings are `const char *`
 * owned by the object they come from, and lists are read one element at a
 * time by index (an index out of range gives NULL or -ERANGE).
 */
#ifndef ETWFORGE_ETWFORGE_H
#define ETWFORGE_ETWFORGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ETWFORGE_API __attribute__((visibility("default")))
#else
#define ETWFORGE_API
#endif

#define ETWFORGE_VERSION_MAJOR 0
#define ETWFORGE_VERSION_MINOR 2
#define ETWFORGE_VERSION_PATCH 0

/** etwforge_version - the library's version, "0.2.0". */
ETWFORGE_API const char *etwforge_version(void);

/**
 * etwforge_outputs_abandon - remove the temporary file of every output in
 * progress (see OUTPUT FILES in etwforge(1)), and the folders made for
 * them while still empty; targets are never touched. Async-signal-safe:
 * call it from your SIGINT/SIGTERM handler before you exit, so an
 * interrupted run leaves nothing behind. The library installs no signal
 * handler of its own.
 */
ETWFORGE_API void etwforge_outputs_abandon(void);

/**
 * etwforge_stdio_guard - once per process, for tools, first thing in
 * main() (gnulib's stdopen): each of descriptors 0, 1 and 2 that is closed
 * gets /dev/null, so that no file opened later becomes standard output
 * (an ETL written into the truth file, say), and is remembered: an output
 * "-" is then refused ("-o -: standard output is closed", a DATA error),
 * and so is reading "-" when standard input is closed. A run that does not
 * use the closed stream goes on as usual.
 * Return: bit N set when descriptor N was closed (the same on later calls).
 */
ETWFORGE_API unsigned etwforge_stdio_guard(void);

/** etwforge_stdio_closed - was descriptor @fd (0, 1 or 2) closed at etwforge_stdio_guard()? */
ETWFORGE_API bool etwforge_stdio_closed(int fd);

/* ---- errors and options ------------------------------------------------- */

/**
 * struct etwforge_error - what went wrong, in one line (opaque): see
 * "Errors" at the top. One object may serve any number of calls; each
 * call that fails overwrites it, and each that succeeds may clear it.
 */
struct etwforge_error;

/* What an error is about (etwforge_error_kind()). */
enum etwforge_error_kind {
	ETWFORGE_ERROR_NONE = 0,  /* no error */
	ETWFORGE_ERROR_INPUT = 1, /* the caller's input: scenario, stream, option, path, usage */
	ETWFORGE_ERROR_DATA = 2,  /* bad data, a failed check, the system (write error, memory) */
};

/**
 * etwforge_error_new - an empty error object, to hand to the calls.
 * Return: it, or NULL with errno ENOMEM (calls take NULL too).
 */
ETWFORGE_API struct etwforge_error *etwforge_error_new(void);

/** etwforge_error_free - NULL is a no-op. */
ETWFORGE_API void etwforge_error_free(struct etwforge_error *err);

/**
 * etwforge_error_message - the line: `file:line:col: key: what`
 * (scenarios), `file:line: what` (streams), `file: offset 0x...: what`
 * (ETL files), or `path: what` (outputs). Return: "" when none (or @err is
 * NULL); the text belongs to @err, valid until its next use.
 */
ETWFORGE_API const char *etwforge_error_message(const struct etwforge_error *err);

/** etwforge_error_code - the negative errno the failed call returned; 0 none (or NULL). */
ETWFORGE_API int etwforge_error_code(const struct etwforge_error *err);

/** etwforge_error_kind - ETWFORGE_ERROR_INPUT or _DATA; _NONE when none (or NULL). */
ETWFORGE_API enum etwforge_error_kind etwforge_error_kind(const struct etwforge_error *err);

/**
 * etwforge_error_located - does the message start with the place it is
 * about (a scenario, stream or ETL position)? A tool prints such a message
 * as it is, and may prefix the others with its own name. False for NULL.
 */
ETWFORGE_API bool etwforge_error_located(const struct etwforge_error *err);

/**
 * ETWFORGE_OPTS(type, name, ...) - declare @name, a struct @type whose
 * first field is `size_t sz`, with sz = sizeof(struct @type) and the
 * fields named after it set (every other one zero):
 *
 *	ETWFORGE_OPTS(etwforge_run_opts, o, .output = "out.etl");
 *	etwforge_generate(sc, &o, sum, err);
 */
#define ETWFORGE_OPTS(...)		ETWFORGE_OPTS_(__VA_ARGS__, )
#define ETWFORGE_OPTS_(type, name, ...) struct type name = {.sz = sizeof(struct type), __VA_ARGS__}

/**
 * etwforge_parse_duration - a duration as scenarios and options write it:
 * an integer is nanoseconds, otherwise a decimal number and a unit (ns, us,
 * ms, s, min, h), computed exactly ("1.5s" is 1500000000 ns; "1.5ns" is
 * refused).
 * Return: 0 with *@ns; -EINVAL not a duration, -EDOM not a whole number of
 * nanoseconds, -ERANGE above 2^64 - 1 ns.
 */
ETWFORGE_API int etwforge_parse_duration(const char *s, uint64_t *ns);

/* ---- output files (etwforge(1), OUTPUT FILES) ------------------------------ */

/*
 * The outputs of one run, written the way every etwforge output is: a
 * regular file (or a new path) under a temporary name beside it, renamed
 * into place at commit, all of them at once; a symbolic link followed; a
 * device or FIFO written in place; "-" standard output. Two outputs that
 * are one file are refused when the second is added, before anything is
 * created. Freeing a set that was not committed removes its temporary files
 * (so does etwforge_outputs_abandon(), from a signal handler).
 *
 *	struct etwforge_output *o = etwforge_output_new();
 *	int i = etwforge_output_add(o, "out.svg", "--timeline", &err);
 *	etwforge_output_open(o, &err);
 *	fputs("<svg/>", etwforge_output_stream(o, i));
 *	etwforge_output_commit(o, &err);
 *	etwforge_output_free(o);
 */
struct etwforge_output;

/**
 * etwforge_output_new - an empty set of outputs.
 * Return: the set, or NULL with errno ENOMEM.
 */
ETWFORGE_API struct etwforge_output *etwforge_output_new(void);

/**
 * etwforge_output_add - add @path ("-" = standard output) to @o; @label
 * names what asked for it in messages ("--timeline"). Creates nothing.
 * Return: the output's index (>= 0); -EEXIST it is the same file as an
 * output added before or an input (etwforge_output_input()) (@err: "LABEL
 * PATH and LABEL2 PATH2 are the same file"), -EISDIR, -ENOENT (empty name), -ELOOP, -ENOSPC (2048 outputs
 * already), -EINVAL (@o is open), -ENOMEM; all INPUT errors; -EBADF
 * (DATA): "-" while standard output is closed (etwforge_stdio_guard()).
 */
ETWFORGE_API int etwforge_output_add(struct etwforge_output *o, const char *path, const char *label,
				     struct etwforge_error *err);

/**
 * etwforge_output_input - @path ("-" = standard input) is a file the
 * program reads, named @label in messages ("the input"): an output of @o
 * that is the same file, added before or after, is refused, as replacing
 * it would destroy what is being read. Only an existing regular file
 * counts (a device or FIFO may be read and written).
 * Return: 0; -EEXIST an output added before is that file (@err: "LABEL
 * PATH and LABEL2 PATH2 are the same file", INPUT); -EINVAL (@o
 * is open), -ENOMEM.
 */
ETWFORGE_API int etwforge_output_input(struct etwforge_output *o, const char *path,
				       const char *label, struct etwforge_error *err);

/**
 * etwforge_output_open - create every temporary file and open every device.
 * Call once, after the last etwforge_output_add().
 * Return: 0, or a negative errno (@err: "PATH: cannot create: why",
 * DATA); then nothing is left behind.
 */
ETWFORGE_API int etwforge_output_open(struct etwforge_output *o, struct etwforge_error *err);

/**
 * etwforge_output_stream - the stream to write output @i to, once @o is
 * open. It belongs to @o: do not fclose() it.
 * Return: the stream, or NULL with errno (EINVAL: no such output or @o is
 * not open).
 */
ETWFORGE_API FILE *etwforge_output_stream(struct etwforge_output *o, unsigned i);

/**
 * etwforge_output_commit - flush and sync every output and rename each
 * temporary file into place, all or none.
 * Return: 0; or a negative errno (@err: "PATH: write failed: why", DATA),
 * and then every target is as it was and no temporary is left.
 */
ETWFORGE_API int etwforge_output_commit(struct etwforge_output *o, struct etwforge_error *err);

/**
 * etwforge_output_free - free @o; when it was not committed, remove its
 * temporary files first (every target stays as it was). NULL is a no-op.
 */
ETWFORGE_API void etwforge_output_free(struct etwforge_output *o);

/* ---- scenarios (YAML or JSON; see etwforge-scenario(5)) ------------------ */

struct etwforge_scenario;

/**
 * etwforge_scenario_new - the built-in default scenario (8 CPUs, 2 s, two
 * QPC sessions, a desktop-like load).
 * Return: the scenario, or NULL with errno ENOMEM.
 */
ETWFORGE_API struct etwforge_scenario *etwforge_scenario_new(void);

/** etwforge_scenario_free - NULL is a no-op. */
ETWFORGE_API void etwforge_scenario_free(struct etwforge_scenario *sc);

/**
 * etwforge_scenario_load_file - apply the YAML or JSON file @path ("-" =
 * standard input) over @sc: maps merge key by key, lists replace.
 * Return: 0; -EINVAL bad scenario (@err: `file:line:col: key: what`), -EIO
 * unreadable, -EFBIG over 1 MiB, -ENOMEM. On failure discard @sc.
 */
ETWFORGE_API int etwforge_scenario_load_file(struct etwforge_scenario *sc, const char *path,
					     struct etwforge_error *err);

/**
 * etwforge_scenario_load_string - apply the YAML or JSON @text, named @name
 * in messages. Return: as etwforge_scenario_load_file().
 */
ETWFORGE_API int etwforge_scenario_load_string(struct etwforge_scenario *sc, const char *name,
					       const char *text, struct etwforge_error *err);

/**
 * etwforge_scenario_set - one `key.path=value` override ("machine.cpus=4",
 * "sessions.1.clock=cycles", "sessions.0.flags=[cswitch]"); errors say
 * `--set:1:COL:`. A duration needs its unit here ("duration=5s",
 * "duration=7ns", or 0): a bare number is nanoseconds only in a scenario
 * file. Return: 0, -EINVAL or -ENOMEM.
 */
ETWFORGE_API int etwforge_scenario_set(struct etwforge_scenario *sc, const char *assignment,
				       struct etwforge_error *err);

/**
 * etwforge_scenario_finish - check the rules that span keys and fill what
 * follows from them; etwforge_generate() calls it too. Idempotent.
 * Return: 0 or -EINVAL with @err.
 */
ETWFORGE_API int etwforge_scenario_finish(struct etwforge_scenario *sc, struct etwforge_error *err);

/**
 * etwforge_scenario_print - the effective scenario as YAML, every key, loadable
 * again to the same configuration. Finishes @sc first.
 * Return: 0, -EINVAL (@err: a rule across keys is broken) or -EIO.
 */
ETWFORGE_API int etwforge_scenario_print(struct etwforge_scenario *sc, FILE *f,
					 struct etwforge_error *err);

/* ---- runs: gen and replay ------------------------------------------------- */

/**
 * struct etwforge_progress - how far a run is, for the progress callback.
 * @sim_ns/@duration_ns: simulated time done and to do (replay: 0/0)
 * @switches:            context switches so far
 * @bytes:               bytes written to the session files so far
 * @wall_seconds:        since the run started
 */
struct etwforge_progress {
	uint64_t sim_ns;
	uint64_t duration_ns;
	uint64_t switches;
	uint64_t bytes;
	double wall_seconds;
};

typedef void (*etwforge_progress_fn)(void *ctx, const struct etwforge_progress *p);

/**
 * struct etwforge_run_opts - where a run writes (see etwforge(1), OUTPUT FILES:
 * every output goes in place only when the whole run succeeded, and two
 * outputs that are one file are refused before anything is made).
 * Declare it with ETWFORGE_OPTS(etwforge_run_opts, o, ...); NULL is the
 * defaults.
 * @sz:          sizeof(struct etwforge_run_opts) (see "Growth" at the top)
 * @output:      the first session's ETL file ("-" = standard output); NULL
 *               = the scenario's (or stream's) own. A later session without
 *               a file of its own, or (replay) with the name gen derived
 *               from the stream's first file, gets OUTPUT-N.etl beside it
 *               (discarded when @output is not a regular file)
 * @truth:       gen only: the ground truth as JSON Lines; NULL = none
 * @json:        the summary as one JSON object: NULL = none, "-" = standard
 *               output, else a file
 * @progress:    called every @progress_ms of wall time (NULL = never) and
 *               once at the end
 * @progress_ms: 0 = 200
 * @notes:       where notes and warnings go (a discarded session, switches
 *               that do not chain); NULL = nowhere
 * @truth_logged_spinlocks: gen only: the truth has a line for the logged
 *               spin-lock releases only (they can outnumber switches by far),
 *               not for every release; verify then checks that each logged
 *               one satisfies the sampling predicate, not that the set is
 *               complete (etwforge-truth(5), SPINLOCK LINES)
 * @jobs:        gen only: threads, the simulation's included; the others
 *               encode (a share of the CPUs each) and write the truth while
 *               the simulation goes on, the same bytes as one thread. 0 or 1
 *               = one thread; at most 1 + the machine's CPUs are used
 * @simulate_only: gen only: the machine runs, its records go nowhere: no
 *               file is made (@output, @truth and @json are not used), the
 *               summary has the seed, duration, CPUs, switches and wall
 *               time. What a run costs before a byte is encoded
 */
struct etwforge_run_opts {
	size_t sz;
	const char *output;
	const char *truth;
	const char *json;
	etwforge_progress_fn progress;
	void *progress_ctx;
	unsigned progress_ms;
	FILE *notes;
	bool truth_logged_spinlocks;
	unsigned jobs;
	bool simulate_only;
};

/**
 * struct etwforge_summary - what a run did (opaque): etwforge_generate()
 * and etwforge_replay() fill it, the functions below read it.
 */
struct etwforge_summary;

/**
 * etwforge_summary_new - an empty summary (every figure 0, no session).
 * Return: it, or NULL with errno ENOMEM.
 */
ETWFORGE_API struct etwforge_summary *etwforge_summary_new(void);

/** etwforge_summary_free - NULL is a no-op. */
ETWFORGE_API void etwforge_summary_free(struct etwforge_summary *sum);

/**
 * struct etwforge_totals - a run's figures (etwforge_summary_totals()).
 * Declare it with ETWFORGE_OPTS(etwforge_totals, t).
 * @sz:            sizeof(struct etwforge_totals) (see "Growth" at the top)
 * @seed:          the scenario's seed (replay: the stream's)
 * @duration_ns:   simulated (or streamed) time
 * @cpus:          processors
 * @wall_seconds:  the run's wall time
 * @switches:      context switches
 * @spinlock_releases/@spinlock_events: spin-lock releases, and the events
 *                 logged for them
 * @batches/@batch_records: compact CSwitch batches, and the switches in them
 * @batches_dropped: batches still open at the end, not written
 * @events_lost:   over every session
 */
struct etwforge_totals {
	size_t sz;
	uint64_t seed;
	uint64_t duration_ns;
	unsigned cpus;
	double wall_seconds;
	uint64_t switches;
	uint64_t spinlock_releases;
	uint64_t spinlock_events;
	uint64_t batches;
	uint64_t batch_records;
	uint64_t batches_dropped;
	uint64_t events_lost;
};

/**
 * etwforge_summary_totals - copy @sum's figures into @out (its first
 * @out->sz bytes). Return: 0; -EINVAL @out->sz refused (@err).
 */
ETWFORGE_API int etwforge_summary_totals(const struct etwforge_summary *sum,
					 struct etwforge_totals *out, struct etwforge_error *err);

/**
 * etwforge_summary_batches - the compact batches flushed for @reason
 * (indexed like etwforge_flush_reason_name()).
 * Return: 0 with *@out; -ERANGE no such reason.
 */
ETWFORGE_API int etwforge_summary_batches(const struct etwforge_summary *sum, unsigned reason,
					  uint64_t *out);

/** etwforge_flush_reason_name - "tid_full", "ticks", "size", "delta", "stop", "end"; NULL past them. */
ETWFORGE_API const char *etwforge_flush_reason_name(unsigned reason);

/**
 * struct etwforge_session_summary - one session's file (read it through
 * etwforge_summary_session(); it may grow at its end).
 * @name/@file:       the session's name and file; owned by the summary
 * @bytes_per_switch: event bytes per switch
 * @xxh3:             XXH3-64 of the whole file
 * @discarded:        @file is the null device: counted, not written, no
 *                    xxh3 (0)
 */
struct etwforge_session_summary {
	const char *name;
	const char *file;
	uint64_t events;
	uint64_t events_lost;
	uint64_t buffers;
	uint64_t bytes;
	double bytes_per_switch;
	uint64_t xxh3;
	bool discarded;
};

/** etwforge_summary_sessions - how many sessions @sum has. */
ETWFORGE_API unsigned etwforge_summary_sessions(const struct etwforge_summary *sum);

/**
 * etwforge_summary_session - session @i of @sum, in the order of the
 * scenario (or stream). Return: it, owned by @sum; NULL when @i is out of
 * range.
 */
ETWFORGE_API const struct etwforge_session_summary *
etwforge_summary_session(const struct etwforge_summary *sum, unsigned i);

/**
 * struct etwforge_lock_summary - one spin-lock family of a gen run (the
 * cycles are CPU cycles; the 99th percentiles are the upper bound of a
 * histogram bucket, within 1/16 of a power of two). Read it through
 * etwforge_summary_lock(); it may grow at its end.
 * @name:          the family's name, owned by the summary
 * @acquisitions:  acquired
 * @contended:     of them, found the lock held and spun
 * @spin_mean/@spin_p99: WaitTimeInCycles of the contended acquisitions
 * @hold_mean/@hold_p99: ReleaseTime - AcquireTime of every release
 * @logged_hold/@logged_contended/@logged_acquire_sample: releases logged,
 *                 by the first test of the sampling predicate that held
 * @untracked:     acquisitions past the CPU's 8-deep stack (never logged)
 * @guarded:       releases inside the logger (re-entrancy guard, not logged)
 * @dropped:       arrivals that found no taker running, the CPU busy or its
 *                 DPC/interrupt queue full
 */
struct etwforge_lock_summary {
	const char *name;
	uint64_t acquisitions;
	uint64_t contended;
	uint64_t spin_mean;
	uint64_t spin_p99;
	uint64_t hold_mean;
	uint64_t hold_p99;
	uint64_t logged_hold;
	uint64_t logged_contended;
	uint64_t logged_acquire_sample;
	uint64_t untracked;
	uint64_t guarded;
	uint64_t dropped;
};

/** etwforge_summary_locks - how many spin-lock families @sum has (gen; replay: 0). */
ETWFORGE_API unsigned etwforge_summary_locks(const struct etwforge_summary *sum);

/**
 * etwforge_summary_lock - spin-lock family @i of @sum, as the scenario
 * lists them. Return: it, owned by @sum; NULL when @i is out of range.
 */
ETWFORGE_API const struct etwforge_lock_summary *
etwforge_summary_lock(const struct etwforge_summary *sum, unsigned i);

/**
 * etwforge_generate - simulate the machine of @sc (finished first) and write
 * one ETL file per session, the truth and the JSON summary if asked.
 * Return: 0 with @sum filled (may be NULL); -EINVAL bad scenario or
 * options, -EEXIST two outputs are one file (both INPUT errors); -EIO,
 * -ENOSPC, -EPIPE... a write error (DATA). On failure every target is as
 * it was.
 */
ETWFORGE_API int etwforge_generate(struct etwforge_scenario *sc,
				   const struct etwforge_run_opts *opts,
				   struct etwforge_summary *sum, struct etwforge_error *err);

/**
 * etwforge_replay - encode the truth stream @stream ("-" = standard input)
 * exactly, one ETL file per session of its meta line.
 * Return: as etwforge_generate(); a bad line is -EINVAL with
 * `stream:line: what`.
 */
ETWFORGE_API int etwforge_replay(const char *stream, const struct etwforge_run_opts *opts,
				 struct etwforge_summary *sum, struct etwforge_error *err);

/**
 * etwforge_summary_print - @sum as text for people, or (@json) as the one
 * JSON object `--json` writes. Return: 0, -EIO or -ENOMEM.
 */
ETWFORGE_API int etwforge_summary_print(FILE *f, const struct etwforge_summary *sum, bool json);

/* ---- thread names ---------------------------------------------------------- */

struct etwforge_names;
struct etwforge_file;

/**
 * etwforge_names_load - the thread group of every TID a truth stream from
 * gen names: its meta line's "groups" (the threads at the start) and its
 * "thread" lines (threads started later). @truth may be "-" (standard input).
 * Return: the table, or NULL with @err set (-ENOENT and the like: the file
 * cannot be read; -EINVAL: not a truth stream; both INPUT errors).
 */
ETWFORGE_API struct etwforge_names *etwforge_names_load(const char *truth,
							struct etwforge_error *err);

/**
 * etwforge_names_check - is the truth @n was loaded from the one of @f? Its
 * meta line against the file's logfile header: the machine (processors,
 * pointer size, build, clock tick, CPU MHz, QPC frequency, start and boot
 * time) and the session named by the file's LoggerName (clock, buffer
 * size). Names from another run's truth would name the wrong threads.
 * Return: 0, or -EBADMSG with @err (`T is not the truth of F: ...`,
 * DATA).
 */
ETWFORGE_API int etwforge_names_check(const struct etwforge_names *n, struct etwforge_file *f,
				      struct etwforge_error *err);

/** etwforge_names_group - @tid's group name, or NULL (unknown, or the idle thread). */
ETWFORGE_API const char *etwforge_names_group(const struct etwforge_names *n, uint32_t tid);

/** etwforge_names_free - NULL is a no-op. */
ETWFORGE_API void etwforge_names_free(struct etwforge_names *n);

/* ---- verify --------------------------------------------------------------- */

/**
 * struct etwforge_verify_result - what was checked. Declare it with
 * ETWFORGE_OPTS(etwforge_verify_result, res).
 * @sz:      sizeof(struct etwforge_verify_result) (see "Growth" at the top)
 * @session: the session of the truth the file was checked as; valid until
 *           the thread's next etwforge_verify()
 * @switches: plain and compact switches, @plain + @compact
 * @batches: compact batches
 * @spinlocks: spin-lock events
 * @identity: identity and rundown records (process, thread, thread name,
 *            ready, sample, interval, config, masks, rundown complete)
 */
struct etwforge_verify_result {
	size_t sz;
	const char *session;
	uint64_t switches;
	uint64_t plain;
	uint64_t compact;
	uint64_t batches;
	uint64_t spinlocks;
	uint64_t identity;
};

/**
 * etwforge_verify - check every recoverable field of every event the ETL
 * file @etl logged against the truth stream @truth (either may be "-",
 * standard input, not both). @session names the truth's session the file
 * is; NULL = the one whose file has the ETL's name, else the only one, else
 * the one named like the file's LoggerName.
 * Return: 0 all match (@res filled, its first @res->sz bytes; @res may be
 * NULL); -EBADMSG the first mismatch
 * (`file: offset 0x...: what (truth T:LINE)`, DATA); -EINVAL bad usage
 * or truth stream (INPUT); other -errno unreadable (INPUT when a path names
 * nothing readable, else DATA).
 */
ETWFORGE_API int etwforge_verify(const char *etl, const char *truth, const char *session,
				 struct etwforge_verify_result *res, struct etwforge_error *err);

/* ---- reading ETL files ---------------------------------------------------- */

struct etwforge_file;

/*
 * Open flags. Without them a damaged file does not open. SALVAGE opens a
 * file whose header buffer is sound and cuts it before the first damage
 * (the damaged buffer keeps its records up to it); KEEP_GOING (implies
 * SALVAGE) drops only what is damaged. etwforge_file_damage_at() lists it.
 */
#define ETWFORGE_OPEN_SALVAGE	 0x1u
#define ETWFORGE_OPEN_KEEP_GOING 0x2u

/**
 * etwforge_file_open - read the ETL file @path ("-" = standard input, read
 * into memory; a regular file is mapped).
 * Return: the file, or NULL with @err (`not an ETL file: why` when its
 * header buffer cannot be read) and errno set.
 */
ETWFORGE_API struct etwforge_file *etwforge_file_open(const char *path, unsigned flags,
						      struct etwforge_error *err);

/**
 * etwforge_file_open_mem - the same over @len bytes at @data (borrowed:
 * they must outlive the file), named @name in messages.
 */
ETWFORGE_API struct etwforge_file *etwforge_file_open_mem(const void *data, size_t len,
							  const char *name, unsigned flags,
							  struct etwforge_error *err);

/** etwforge_file_close - NULL is a no-op. */
ETWFORGE_API void etwforge_file_close(struct etwforge_file *f);

/**
 * struct etwforge_file_info - the logfile header (TRACE_LOGFILE_HEADER of
 * buffer 0) and what the reader found. Times are FILETIMEs (100 ns since
 * 1601); @start_ts is the session clock at @start_time (the header event's
 * SystemTime), so a record's time is start_time + (ts - start_ts) x scale,
 * scale = 10^7 / perf_freq (clock 1, QPC), 1 (2, system time) or 10 /
 * cpu_mhz (3, CPU cycles).
 * Read it through etwforge_file_info(); it may grow at its end.
 * @name:            the file's name in messages; @logger_name and
 *                   @logfile_name, the header's LoggerName and LogFileName
 *                   (UTF-8); all three owned by the file
 * @max_wait_reason: the MaximumWaitReason used to split compact records'
 *                   OldThreadStateWr (from @provider_version, see
 *                   etwforge_file_set_max_wait_reason())
 */
struct etwforge_file_info {
	const char *name;
	const char *logger_name;
	const char *logfile_name;
	bool is64;
	uint32_t buffer_size;
	uint32_t version;
	uint32_t provider_version;
	uint32_t cpus;
	int64_t start_time;
	int64_t end_time;
	int64_t boot_time;
	uint64_t start_ts;
	uint32_t timer_resolution;
	uint32_t maximum_file_size;
	uint32_t log_file_mode;
	uint32_t buffers_written;
	uint32_t start_buffers;
	uint32_t pointer_size;
	uint32_t events_lost;
	uint32_t buffers_lost;
	uint32_t cpu_mhz;
	int64_t perf_freq;
	uint32_t clock_type;
	uint64_t timer_source_clock;
	uint64_t timer_source_perf;
	unsigned buffers;	 /* buffers the reader took (the header buffer too) */
	uint64_t trailing_bytes; /* bytes after the last buffer */
	uint8_t max_wait_reason;
};

/** etwforge_file_info - the file's header, owned by @f. */
ETWFORGE_API const struct etwforge_file_info *etwforge_file_info(const struct etwforge_file *f);

/**
 * etwforge_file_set_max_wait_reason - the producer's MaximumWaitReason
 * (1..63), when the ProviderVersion does not tell it.
 * Return: 0 or -EINVAL.
 */
ETWFORGE_API int etwforge_file_set_max_wait_reason(struct etwforge_file *f, unsigned v);

/**
 * struct etwforge_damage - one damaged place of a salvaged file (read it
 * through etwforge_file_damage_at(); it may grow at its end).
 * @buffer: its index in the file
 * @msg:    `file: offset 0x...: what`, owned by the file
 */
struct etwforge_damage {
	unsigned buffer;
	uint64_t offset;
	const char *msg;
};

/** etwforge_file_damage_count - how many damaged places a salvaging open found. */
ETWFORGE_API unsigned etwforge_file_damage_count(const struct etwforge_file *f);

/**
 * etwforge_file_damage_at - damaged place @i, in file order.
 * Return: it, owned by @f; NULL when @i is out of range.
 */
ETWFORGE_API const struct etwforge_damage *etwforge_file_damage_at(const struct etwforge_file *f,
								   unsigned i);

/* Event kinds (etwforge_iter_new() @kinds is a mask of them). */
enum etwforge_event_kind {
	ETWFORGE_EV_BUFFER = 0x01,   /* a WMI_BUFFER_HEADER */
	ETWFORGE_EV_RECORD = 0x02,   /* any record, framed (the ones below too) */
	ETWFORGE_EV_CSWITCH = 0x04,  /* a plain CSwitch 0x0524, decoded */
	ETWFORGE_EV_COMPACT = 0x08,  /* a switch expanded from a compact batch 0x0525 */
	ETWFORGE_EV_SPINLOCK = 0x10, /* a SpinLock 0x0529, decoded */
	/* the identity records (FILE and CPU orders only; etwforge(1), IDENTITY RECORDS) */
	ETWFORGE_EV_PROCESS = 0x20,	      /* Process 0x0301-0x0304, 0x0327, 0x030B */
	ETWFORGE_EV_THREAD = 0x40,	      /* Thread 0x0501-0x0504 */
	ETWFORGE_EV_THREAD_NAME = 0x80,	      /* ThreadSetName 0x0548 */
	ETWFORGE_EV_READY = 0x100,	      /* ReadyThread 0x0532 */
	ETWFORGE_EV_SAMPLE = 0x200,	      /* SampledProfile 0x0F2E */
	ETWFORGE_EV_PROFILE_INTERVAL = 0x400, /* 0x0F48 / 0x0F49 / 0x0F4A */
	ETWFORGE_EV_SYSCONFIG_CPU = 0x800,    /* SystemConfig CPU 0x0B0A */
	ETWFORGE_EV_RUNDOWN = 0x1000, /* group masks 0x0005 / 0x0020, rundown complete 0x0008 */
};
#define ETWFORGE_EV_SWITCHES (ETWFORGE_EV_CSWITCH | ETWFORGE_EV_COMPACT)
#define ETWFORGE_EV_IDENTITY 0x1FE0u /* ETWFORGE_EV_PROCESS ... ETWFORGE_EV_RUNDOWN */
#define ETWFORGE_EV_ALL	     0x1FFFu

/* Orders (etwforge_iter_new() @order). */
enum etwforge_order {
	ETWFORGE_ORDER_FILE = 0, /* buffers in file order: a listing to read beside a hex dump */
	ETWFORGE_ORDER_CPU,	 /* buffer 0, then each CPU's buffers by SequenceNumber */
	ETWFORGE_ORDER_TIME,	 /* switches, spin locks and ReadyThread of every CPU by time */
};

/*
 * The structs of an event below are handed out inside struct
 * etwforge_event, read through the pointer etwforge_iter_next() gives:
 * each may grow at its end.
 */

/** struct etwforge_buffer - one WMI_BUFFER_HEADER as the reader saw it. */
struct etwforge_buffer {
	unsigned index;
	uint64_t file_offset;
	uint32_t buffer_size;
	uint32_t saved_offset;
	uint32_t current_offset;
	int64_t timestamp;
	int64_t sequence;
	uint16_t cpu;
	uint16_t logger_id;
	uint32_t state;
	uint32_t offset;
	uint16_t flag;
	uint16_t type;
	bool compressed;
	bool decompressed;
	bool damaged;
	uint32_t data_end;
};

/* What the payload of a record is, decoded. */
enum etwforge_payload {
	ETWFORGE_PAYLOAD_NONE = 0,
	ETWFORGE_PAYLOAD_CSWITCH,	   /* 0x0524 */
	ETWFORGE_PAYLOAD_SPINLOCK,	   /* 0x0529 */
	ETWFORGE_PAYLOAD_BATCH,		   /* 0x0525 */
	ETWFORGE_PAYLOAD_SHORT,		   /* a known hook whose payload is too short */
	ETWFORGE_PAYLOAD_SPINLOCK_CONFIG,  /* 0x0F4B / 0x0F4C (SYSTEM header) */
	ETWFORGE_PAYLOAD_PROCESS,	   /* 0x0301-0x0304, 0x0327 (v4/v5), 0x030B */
	ETWFORGE_PAYLOAD_THREAD,	   /* 0x0501-0x0504 (v3/v4) */
	ETWFORGE_PAYLOAD_THREAD_NAME,	   /* 0x0548 (v2 and later) */
	ETWFORGE_PAYLOAD_READY,		   /* 0x0532 (v2) */
	ETWFORGE_PAYLOAD_SAMPLE,	   /* 0x0F2E (v2) */
	ETWFORGE_PAYLOAD_PROFILE_INTERVAL, /* 0x0F48 / 0x0F49 / 0x0F4A (v2/v3) */
	ETWFORGE_PAYLOAD_SYSCONFIG_CPU,	   /* 0x0B0A (v3) */
	ETWFORGE_PAYLOAD_RUNDOWN,	   /* 0x0005 / 0x0020 / 0x0008 */
};

/** struct etwforge_cswitch - WMI_CONTEXTSWAP, the payload of a 0x0524 event. */
struct etwforge_cswitch {
	uint32_t new_tid;
	uint32_t old_tid;
	int8_t new_pri;
	int8_t old_pri;
	uint8_t prev_cstate; /* PreviousCState (idle old thread) or OldThreadRank */
	int8_t new_pri_decrement;
	uint8_t old_wait_reason;
	uint8_t flags; /* byte 0x0D: the wait mode (v2), or the v4 flags */
	uint8_t old_wait_mode;
	uint8_t old_qos; /* v4 */
	uint8_t new_qos; /* v4 */
	uint8_t old_state;
	uint8_t old_ideal_cpu;
	uint32_t new_wait_time;
	int32_t old_remaining_quantum;
};

/** struct etwforge_spinlock - WMI_SPINLOCK, the payload of a 0x0529 event. */
struct etwforge_spinlock {
	uint64_t lock;
	uint64_t caller;
	uint64_t acquire_time;
	uint64_t release_time;
	uint32_t wait_cycles;
	uint32_t spin_count;
	uint32_t tid;
	uint32_t interrupt_count;
	uint8_t irql;
	uint8_t depth;
	uint8_t mode;
	bool dpc;
	bool isr;
};

/**
 * struct etwforge_spinlock_config - PERFINFO_SPINLOCK_CONFIG, the spin-lock
 * configuration rundown at the start (0x0F4B) and end (0x0F4C) of a session
 * that logs spin locks, in this order on the wire.
 */
struct etwforge_spinlock_config {
	uint32_t spin_threshold;
	uint32_t contention_sample_rate;
	uint32_t acquire_sample_rate;
	uint32_t hold_threshold;
};

/*
 * The identity records (etwforge(1), IDENTITY RECORDS, lists every field;
 * the layouts are those of ntwmi.h and Microsoft's "NT Kernel Logger"
 * MOF classes). The SYSTEM header's ThreadId/ProcessId (the creating
 * thread of a Start, the thread itself of a Thread End...) are the
 * record's @tid/@pid. Strings are UTF-8, owned by the iterator, valid
 * until its next event; an empty string on the wire is "", a field the
 * record does not carry is NULL.
 */

/**
 * struct etwforge_process - WMI_PROCESS_INFORMATION (v4; v5 adds @exit_time).
 * @event:   "start", "end", "dcstart", "dcend", "defunct" or "terminate"
 *           (0x030B: only @pid, the terminated process, is set)
 * @key:     UniqueProcessKey (the EPROCESS address)
 * @exit_status: 0x103 (STATUS_PENDING) while alive
 * @dtb:     DirectoryTableBase
 * @sid:     the user's SID, "S-1-5-18"; NULL when the record has none
 * @image:   ImageFileName (ANSI on the wire, read as Latin-1)
 * @cmdline, @package, @app_id: CommandLine, PackageFullName, ApplicationId
 * @exit_time: Defunct v5: a FILETIME; else 0
 */
struct etwforge_process {
	const char *event;
	uint64_t key;
	uint32_t pid;
	uint32_t ppid;
	uint32_t session;
	int32_t exit_status;
	uint64_t dtb;
	uint32_t flags;
	const char *sid;
	const char *image;
	const char *cmdline;
	const char *package;
	const char *app_id;
	uint64_t exit_time;
};

/**
 * struct etwforge_thread - WMI_EXTENDED_THREAD_INFORMATION (v3/v4).
 * @event: "start", "end", "dcstart" or "dcend"
 * @name:  ThreadName (v4, and v3 from Windows 10 1903); NULL when the
 *         record has none
 */
struct etwforge_thread {
	const char *event;
	uint32_t pid;
	uint32_t tid;
	uint64_t stack_base;
	uint64_t stack_limit;
	uint64_t user_stack_base;
	uint64_t user_stack_limit;
	uint64_t affinity;
	uint64_t win32_start;
	uint64_t teb;
	uint32_t sub_process_tag;
	int8_t base_pri;
	uint8_t page_pri;
	uint8_t io_pri;
	uint8_t flags;
	const char *name;
};

/** struct etwforge_thread_name - ThreadSetName 0x0548: @tid of @pid is now @name. */
struct etwforge_thread_name {
	uint32_t pid;
	uint32_t tid;
	const char *name;
};

/**
 * struct etwforge_ready - ETW_READY_THREAD_EVENT 0x0532: thread @tid made
 * ready by the record's header thread.
 * @adjust_reason: 0 None, 1 Unwait, 2 Boost
 * @flags:         0x1 readied from a DPC, 0x2 kernel stack not resident,
 *                 0x4 process out of memory, 0x8 direct switch attempt
 */
struct etwforge_ready {
	uint32_t tid;
	int8_t adjust_reason;
	int8_t adjust_increment;
	uint8_t flags;
};

/**
 * struct etwforge_sample - PERFINFO_SAMPLED_PROFILE_INFORMATION 0x0F2E.
 * @tid:      the running thread (0: idle); the flags byte split into
 *            @dpc, @isr and @priority (bits 3-7)
 */
struct etwforge_sample {
	uint64_t ip;
	uint32_t tid;
	uint16_t count;
	bool dpc;
	bool isr;
	uint8_t priority;
	uint8_t rank;
};

/**
 * struct etwforge_profile_interval - PERFINFO_SAMPLED_PROFILE_CONFIG.
 * @event:       "set" (0x0F48), "dcstart" (0x0F49) or "dcend" (0x0F4A)
 * @source:      KPROFILE_SOURCE (0 the timer, its intervals in 100 ns)
 * @source_name: v3 ("Timer"); NULL in v2
 */
struct etwforge_profile_interval {
	const char *event;
	uint32_t source;
	uint32_t new_interval;
	uint32_t old_interval;
	const char *source_name;
};

/** struct etwforge_sysconfig_cpu - CPU_CONFIG_RECORD 0x0B0A v3 (@memory_mb in MiB). */
struct etwforge_sysconfig_cpu {
	uint32_t mhz;
	uint32_t nproc;
	uint32_t memory_mb;
	uint32_t page_size;
	uint32_t alloc_gran;
	const char *computer_name;
	const char *domain_name;
	uint64_t hyperthreading;
	uint64_t highest_user;
	uint16_t arch;
	uint16_t level;
	uint16_t revision;
	uint8_t pae;
	uint8_t nx;
	uint32_t memory_speed;
};

/**
 * struct etwforge_rundown - ETW_KERNEL_HEADER_EXTENSION or a marker.
 * @event:   "masks" (0x0005, the new group masks), "masks_end" (0x0020,
 *           the previous ones) or "complete" (0x0008, the end of a
 *           rundown: no payload)
 * @masks:   the @nmasks (8) PERFINFO_GROUPMASK words, owned by the
 *           iterator; NULL for "complete"
 * @version: the kernel's event version
 */
struct etwforge_rundown {
	const char *event;
	const uint32_t *masks;
	unsigned nmasks;
	uint32_t version;
};

/**
 * struct etwforge_batch - the PERFINFO_CCSWAP_BUFFER of a 0x0525 record.
 * @tid_table/@base_pri: its 16 entries each, owned by the iterator (valid
 *              as long as the event)
 */
struct etwforge_batch {
	int64_t first_ts;
	const uint32_t *tid_table;
	const int8_t *base_pri;
	unsigned tids;	     /* TidTable entries before the first empty one */
	size_t record_bytes; /* bytes of packed records after the 0x58-byte header */
};

/**
 * struct etwforge_record - one record of a buffer.
 * @kind:       "SYSTEM64", "PERFINFO64", "EVENT_HEADER64", "MESSAGE", ...
 * @has_hook:   a kernel header (SYSTEM, COMPACT, PERFINFO): @hook, @version
 *              and @ts are set; SYSTEM and COMPACT also @tid and @pid
 * @has_provider: an EVENT_HEADER (@event_*), FULL_HEADER or INSTANCE
 *              (@class_*) record: @ts, @tid, @pid and @provider (the
 *              ProviderId or Guid, "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}";
 *              "" without one)
 * @pmc:        @pmc_count counters (at most 7); @provider and @pmc are owned
 *              by the iterator, valid as long as the event
 * @data:       the whole record (@size bytes); valid until the file closes
 * @payload:    after the header and the PEBS/PMC items
 * @u:          the payload @decoded says, last (it may grow)
 */
struct etwforge_record {
	unsigned buffer;
	uint16_t cpu;
	uint64_t file_offset;
	uint16_t size;
	uint32_t marker;
	uint8_t header_type;
	const char *kind;
	bool is64;
	bool has_hook;
	uint16_t hook;
	uint8_t version;
	uint64_t ts;
	uint32_t tid;
	uint32_t pid;
	bool has_provider;
	const char *provider;
	uint16_t event_id;
	uint8_t event_version;
	uint8_t opcode;
	uint8_t level;
	uint8_t class_type;
	uint8_t class_level;
	uint16_t class_version;
	bool has_pebs;
	uint64_t pebs_index;
	unsigned pmc_count;
	const uint64_t *pmc;
	const uint8_t *data;
	const uint8_t *payload;
	size_t payload_len;
	enum etwforge_payload decoded;
	union {
		struct etwforge_cswitch cswitch;
		struct etwforge_spinlock spinlock;
		struct etwforge_batch batch;
		struct etwforge_spinlock_config spinlock_config;
		struct etwforge_process process;
		struct etwforge_thread thread;
		struct etwforge_thread_name thread_name;
		struct etwforge_ready ready;
		struct etwforge_sample sample;
		struct etwforge_profile_interval profile_interval;
		struct etwforge_sysconfig_cpu sysconfig_cpu;
		struct etwforge_rundown rundown;
	} u;
};

/**
 * struct etwforge_compact - one switch expanded from a compact batch.
 * @ts:       FirstTimeStamp + the running sum of deltas (session clock)
 * @form:     "idle_short", "idle", "lite" or "full"
 * @old_pri:  FULL: the 5-bit priority; LITE: base priority + increment
 * @wait_time: FULL: NewThreadWaitTime (saturated at 0x1FFFF); LITE: only
 *            "at most 1" is known (@wait_le1)
 * @new_tid:  the next switch's old thread on the CPU (@new_tid_known false
 *            for the CPU's last switch, or before a damaged batch)
 * @batch:    the batch's number on its CPU; @batch_first its first switch
 */
struct etwforge_compact {
	uint64_t ts;
	const char *form;
	unsigned form_code; /* PerfCSwapIdleShort 0, Idle 1, Lite 2, Full 3 */
	uint32_t old_tid;
	uint8_t tid_index;
	int8_t old_pri;
	uint8_t state_wr;
	uint8_t old_state;
	uint8_t old_wait_reason;
	uint32_t wait_time;
	bool wait_le1;
	uint32_t delta;
	unsigned index;
	uint64_t batch;
	bool batch_first;
	uint64_t batch_offset;
	bool new_tid_known;
	uint32_t new_tid;
};

/**
 * struct etwforge_event - one event of an iteration, owned by the iterator
 * and valid until its next etwforge_iter_next() (or etwforge_iter_free()):
 * read it through the pointer given, copy what you keep.
 * @kind:        one ETWFORGE_EV_* value
 * @file_offset: where it is (a compact switch: its record inside the batch)
 * @rec:         the record it is, or (a compact switch) its batch; NULL for
 *               ETWFORGE_EV_BUFFER
 * @u:           what @kind says, last (it may grow)
 */
struct etwforge_event {
	enum etwforge_event_kind kind;
	unsigned cpu;
	uint64_t ts;
	uint64_t file_offset;
	const struct etwforge_record *rec;
	union {
		struct etwforge_buffer buffer;
		struct etwforge_cswitch cswitch;
		struct etwforge_compact compact;
		struct etwforge_spinlock spinlock;
		struct etwforge_process process;
		struct etwforge_thread thread;
		struct etwforge_thread_name thread_name;
		struct etwforge_ready ready;
		struct etwforge_sample sample;
		struct etwforge_profile_interval profile_interval;
		struct etwforge_sysconfig_cpu sysconfig_cpu;
		struct etwforge_rundown rundown;
	} u;
};

struct etwforge_iter;

/**
 * etwforge_iter_new - iterate the events of @kinds (a mask of
 * ETWFORGE_EV_*) of @f in @order. In ETWFORGE_ORDER_FILE and _CPU the
 * records come as they sit (a compact batch's switches follow its record);
 * ETWFORGE_ORDER_TIME merges the switches, spin locks and ReadyThread
 * events of every CPU by timestamp (not buffers, records or the other
 * identity kinds of ETWFORGE_EV_IDENTITY).
 * A record of an identity kind whose payload does not decode (cut short, a
 * string without its end) is no event of its kind; as a record its
 * @decoded is ETWFORGE_PAYLOAD_SHORT.
 * Return: the iterator, or NULL with errno (EINVAL, ENOMEM).
 */
ETWFORGE_API struct etwforge_iter *etwforge_iter_new(struct etwforge_file *f,
						     enum etwforge_order order, unsigned kinds,
						     struct etwforge_error *err);

/**
 * etwforge_iter_next - the next event: *@ev points to it, in @it, until
 * the next call.
 * Return: 1 with *@ev; 0 at the end; -EINVAL where the data is damaged
 * (@err: `file: offset 0x...: what`). After a damaged compact batch the
 * iteration may go on: the next call resumes after it.
 */
ETWFORGE_API int etwforge_iter_next(struct etwforge_iter *it, const struct etwforge_event **ev,
				    struct etwforge_error *err);

/** etwforge_iter_free - NULL is a no-op. */
ETWFORGE_API void etwforge_iter_free(struct etwforge_iter *it);

/* etwforge_switch_columns @form values: a compact form_code (0..3), or a plain CSwitch */
#define ETWFORGE_FORM_PLAIN 4u

/**
 * struct etwforge_switch_columns - where etwforge_iter_switches() puts the
 * switches it reads, one array per field (column), each of at least the
 * @n elements asked for; a NULL column is not filled. Declare it with
 * ETWFORGE_OPTS(etwforge_switch_columns, c, .ts = ts, ...).
 * @sz:          sizeof(struct etwforge_switch_columns) (see "Growth" at the top)
 * @ts:          the event's timestamp (session clock)
 * @cpu:         the CPU whose buffer it is in
 * @old_tid/@new_tid: the threads switched out and in; @new_tid is 0 where
 *               @new_tid_known is 0 (a CPU's last compact switch)
 * @old_pri:     as struct etwforge_cswitch / etwforge_compact
 * @old_state/@old_wait_reason: as there
 * @wait_time:   plain: NewThreadWaitTime; compact: as etwforge_compact
 * @form:        a compact switch's form_code (0 idle_short, 1 idle, 2 lite,
 *               3 full), or ETWFORGE_FORM_PLAIN (a CSwitch 0x0524)
 * @file_offset: as struct etwforge_event
 */
struct etwforge_switch_columns {
	size_t sz;
	uint64_t *ts;
	uint32_t *cpu;
	uint32_t *old_tid;
	uint32_t *new_tid;
	uint8_t *new_tid_known;
	int8_t *old_pri;
	uint8_t *old_state;
	uint8_t *old_wait_reason;
	uint32_t *wait_time;
	uint8_t *form;
	uint64_t *file_offset;
};

/**
 * etwforge_iter_switches - the next switches of @it (plain and compact, in
 * the iterator's order; events of other kinds are skipped: make @it with
 * ETWFORGE_EV_SWITCHES for speed), up to @n of them, into @cols: the batch
 * form of etwforge_iter_next() for programs (and other languages) that
 * read a whole file's switches.
 * Return: 0 with *@got switches filled (fewer than @n only at the end; 0
 * at the end); -EINVAL where the data is damaged (@err as
 * etwforge_iter_next()), *@got the switches filled before it, and the next
 * call resumes after it; -EINVAL (@err, INPUT) @cols->sz refused.
 */
ETWFORGE_API int etwforge_iter_switches(struct etwforge_iter *it,
					const struct etwforge_switch_columns *cols, size_t n,
					size_t *got, struct etwforge_error *err);

/* etwforge_event_json() flags */
#define ETWFORGE_JSON_RAW 0x1u /* add the record's bytes as a "raw" hex string */

/**
 * etwforge_event_json - @ev as one JSON object (no newline), the form
 * `etwforge dump --jsonl` prints, into @buf of @cap bytes.
 * Return: its length; when that is >= @cap the text was cut (call again
 * with a larger buffer).
 */
ETWFORGE_API size_t etwforge_event_json(const struct etwforge_event *ev, unsigned flags, char *buf,
					size_t cap);

/**
 * etwforge_file_json - the file object `dump --jsonl` starts with (the
 * logfile header a program needs to convert timestamps).
 * Return: as etwforge_event_json().
 */
ETWFORGE_API size_t etwforge_file_json(const struct etwforge_file *f, char *buf, size_t cap);

/**
 * struct etwforge_stats - counts over a whole file (`dump --stats`),
 * opaque: etwforge_file_stats() fills it, etwforge_stats_count() and
 * etwforge_stats_hook() read it.
 */
struct etwforge_stats;

/** etwforge_stats_new - empty counts. Return: them, or NULL with errno ENOMEM. */
ETWFORGE_API struct etwforge_stats *etwforge_stats_new(void);

/** etwforge_stats_free - NULL is a no-op. */
ETWFORGE_API void etwforge_stats_free(struct etwforge_stats *st);

/* What etwforge_stats_count() reads, and what its index is. */
enum etwforge_stat {
	ETWFORGE_STAT_BUFFERS = 0,    /* buffers (index 0) */
	ETWFORGE_STAT_COMPRESSED,     /* compressed buffers (index 0) */
	ETWFORGE_STAT_RECORDS,	      /* records (index 0) */
	ETWFORGE_STAT_PEBS,	      /* records with a PEBS item (index 0) */
	ETWFORGE_STAT_PMC,	      /* records with PMC items (index 0) */
	ETWFORGE_STAT_COMPACT,	      /* compact switches by form: 0 idle_short, 1 idle, 2 lite,
					  * 3 full */
	ETWFORGE_STAT_BUFFERS_BY_CPU, /* buffers of CPU index (0..2047) */
	ETWFORGE_STAT_RECORDS_BY_CPU, /* records of CPU index (0..2047) */
	ETWFORGE_STAT_RECORDS_BY_KIND32, /* 32-bit records of kind index (etwforge_stats_kind_name()) */
	ETWFORGE_STAT_RECORDS_BY_KIND64, /* 64-bit records of kind index */
	/* the identity records (index 0 each) */
	ETWFORGE_STAT_PROCESSES, /* distinct PIDs of Process records */
	ETWFORGE_STAT_THREADS,	 /* distinct TIDs of Thread records (Start, End, DCStart, DCEnd) */
	ETWFORGE_STAT_READY,	 /* ReadyThread events */
	ETWFORGE_STAT_SAMPLES,	 /* SampledProfile events */
	ETWFORGE_STAT_SWITCHES_ATTRIBUTED,   /* switches to a thread (TID != 0) a Thread record
					      * of the file names */
	ETWFORGE_STAT_SWITCHES_UNATTRIBUTED, /* switches to a thread (TID != 0) none names */
};

/**
 * etwforge_stats_count - one count of @st: @what, at @index.
 * Return: 0 with *@out; -ERANGE @index out of range, -EINVAL no such @what.
 */
ETWFORGE_API int etwforge_stats_count(const struct etwforge_stats *st, enum etwforge_stat what,
				      unsigned index, uint64_t *out);

/**
 * etwforge_stats_hook - the records of kind @kind (0 SYSTEM, 1 COMPACT, 2
 * PERFINFO: the hooked kinds), 32- or (@is64) 64-bit, with hook id @hook.
 * Return: 0 with *@out; -ERANGE @kind out of range.
 */
ETWFORGE_API int etwforge_stats_hook(const struct etwforge_stats *st, unsigned kind, bool is64,
				     uint16_t hook, uint64_t *out);

/**
 * etwforge_stats_hook_next - the hook ids that have records, in order:
 * `for (int h = etwforge_stats_hook_next(st, k, w, 0); h >= 0;
 * h = etwforge_stats_hook_next(st, k, w, h + 1))`.
 * Return: the first hook id >= @from with records of kind @kind (as in
 * etwforge_stats_hook()) and width @is64; -ENOENT none; -ERANGE @kind out
 * of range.
 */
ETWFORGE_API int etwforge_stats_hook_next(const struct etwforge_stats *st, unsigned kind, bool is64,
					  int from);

/**
 * etwforge_record_times - the KernelTime and UserTime of a record with a
 * full SYSTEM header (SYSTEM32/SYSTEM64; the compact form has none): the
 * logging thread's times in clock ticks (for Thread and Process records,
 * the thread the record is about, or its creator for Start).
 * Return: true and both set, or false (another header; both 0).
 */
ETWFORGE_API bool etwforge_record_times(const struct etwforge_record *r, uint32_t *kernel_time,
					uint32_t *user_time);

/**
 * etwforge_payload_name - the record a hook's payload is, for the hooks
 * whose payload the library decodes ("CSwitch", "SpinLock", "Process",
 * "Thread", ...): what a record with ETWFORGE_PAYLOAD_SHORT is called.
 * Return: the name; NULL for a hook whose payload is not decoded.
 */
ETWFORGE_API const char *etwforge_payload_name(uint16_t hook);

/**
 * etwforge_stats_kind_name - the record kind of index @k (0 SYSTEM, 1
 * COMPACT, 2 PERFINFO, 3 FULL_HEADER, 4 INSTANCE, 5 EVENT_HEADER, 6
 * MESSAGE, 7 OTHER); "?" past them.
 */
ETWFORGE_API const char *etwforge_stats_kind_name(unsigned k);

/**
 * etwforge_file_stats - count every buffer and record of @f, expanding
 * compact batches, into @st (from etwforge_stats_new(); cleared first),
 * and what its Process, Thread, ReadyThread and SampledProfile records say
 * (ETWFORGE_STAT_PROCESSES and after: a second pass, in memory that grows
 * with the file's distinct PIDs and TIDs).
 * Return: 0, or -EINVAL at damage (@err), with the counts up to there; for
 * a file opened with ETWFORGE_OPEN_KEEP_GOING, a batch that does not expand
 * (or the rest of a buffer that does not frame) is skipped and the counts
 * cover the rest of the file, @err saying the first damage.
 */
ETWFORGE_API int etwforge_file_stats(struct etwforge_file *f, struct etwforge_stats *st,
				     struct etwforge_error *err);

/**
 * etwforge_stats_json - @st (of @f) as the one JSON object `dump --stats
 * --jsonl` prints. Return: as etwforge_event_json().
 */
ETWFORGE_API size_t etwforge_stats_json(const struct etwforge_file *f,
					const struct etwforge_stats *st, char *buf, size_t cap);

/* ---- the fuzzing corpus (`etwforge corpus`) ------------------------------- */

/**
 * struct etwforge_corpus_opts - what etwforge_corpus_write() makes.
 * Declare it with ETWFORGE_OPTS(etwforge_corpus_opts, o, ...).
 * @sz:       sizeof(struct etwforge_corpus_opts) (see "Growth" at the top)
 * @seed:     what the edge cases leave free (thread ids, priorities, PMC
 *            values, addresses) comes from it; 0 = 1. The same seed and
 *            version give the same bytes (the xxh3 values of the manifest).
 * @mangle:   write the broken-file set instead of the valid catalogue: each
 *            file a valid one with exactly one invariant broken, with the
 *            error class `etwforge dump` reports for it in the manifest
 * @zip_name: also NAME_seed_corpus.zip (the .etl files) and NAME.dict, the
 *            OSS-Fuzz layout; NULL = not
 * @mutants:  when not 0, write this many structure-aware mutants of the
 *            catalogue instead (mutant-NNNNNN.etl, 1..1000000): mutant i is
 *            a function of @seed and i alone (and the tool version)
 * @shard:    with @shards: write only the mutants with i % @shards == @shard
 *            (0-based), so @shards runs write disjoint parts whose union is
 *            the run without shards, byte for byte
 * @shards:   0 or 1 = no sharding; one run writes at most 2000 mutants
 */
struct etwforge_corpus_opts {
	size_t sz;
	uint64_t seed;
	bool mangle;
	const char *zip_name;
	uint64_t mutants;
	uint64_t shard;
	uint64_t shards;
};

/**
 * struct etwforge_corpus_summary - what was written. Declare it with
 * ETWFORGE_OPTS(etwforge_corpus_summary, sum).
 * @sz:      sizeof(struct etwforge_corpus_summary) (see "Growth" at the top)
 * @files:   ETL files
 * @pending: catalogue entries that cannot be made yet (listed in the manifest)
 * @bytes:   bytes of ETL files
 * @outputs: files written in all (ETL, expected decodes, streams, manifest, ...)
 */
struct etwforge_corpus_summary {
	size_t sz;
	unsigned files;
	unsigned pending;
	uint64_t bytes;
	unsigned outputs;
};

/**
 * etwforge_corpus_write - write the fuzzing corpus into the folder @dir
 * (made if missing): one small ETL file per named edge case of the
 * producer, built by replaying a truth stream through the engine (ID.etl,
 * its stream ID.truth.jsonl), or with @opts->mangle the broken-file set;
 * for each file ID.expected.jsonl, what `etwforge dump --jsonl ID.etl`
 * prints when run in @dir; MANIFEST.jsonl (one JSON object per file: id,
 * description, seed, tool version, xxh3-64, offsets of the records that
 * matter or the expected error); etl.dict (AFL++/libFuzzer dictionary).
 * Every file follows the output rules (etwforge(1), OUTPUT FILES): nothing is
 * in place before all is written, and a failure leaves @dir as it was.
 * Return: 0 with @sum filled (its first @sum->sz bytes; may be NULL);
 * -EINVAL bad options, -EEXIST two outputs are one file (INPUT errors);
 * -EIO, -ENOSPC... a write error (DATA). @opts NULL is the defaults.
 */
ETWFORGE_API int etwforge_corpus_write(const char *dir, const struct etwforge_corpus_opts *opts,
				       struct etwforge_corpus_summary *sum,
				       struct etwforge_error *err);

/* ---- the structure-aware mutator (AFL++, libFuzzer) ----------------------- */

struct etwforge_mutator;

/**
 * struct etwforge_mutator_opts - how a mutator behaves. Declare it with
 * ETWFORGE_OPTS(etwforge_mutator_opts, o, ...).
 * @sz:             sizeof(struct etwforge_mutator_opts) (see "Growth" at the top)
 * @seed:           its random choices (the same seed and inputs give the
 *                  same mutants)
 * @mangle_percent: 0..100: how often a mutant also gets one rule of the
 *                  `corpus --mangle` set (then it is broken on purpose)
 */
struct etwforge_mutator_opts {
	size_t sz;
	uint64_t seed;
	unsigned mangle_percent;
};

/**
 * etwforge_mutator_new - a mutator that reads an ETL file back into the
 * switch and spin-lock stream that makes it (session set-up included),
 * changes that stream (threads, deltas at the record-form and flush
 * boundaries, ticks, states, priorities, waits, batch fill, spin-lock
 * nesting and flags, PMC counts, PEBS, clocks, buffer sizes, CPUs,
 * compression) and encodes it again through the engine: every mutant is a
 * valid file (unless mangled on purpose). An input that is not an ETL file
 * seeds a small made-up stream. @opts NULL is the defaults.
 * Return: the mutator, or NULL with errno (ENOMEM; EINVAL @opts->sz
 * refused, @err saying why).
 */
ETWFORGE_API struct etwforge_mutator *etwforge_mutator_new(const struct etwforge_mutator_opts *opts,
							   struct etwforge_error *err);

/** etwforge_mutator_reseed - start the random choices again from @seed (libFuzzer's Seed). */
ETWFORGE_API void etwforge_mutator_reseed(struct etwforge_mutator *m, uint64_t seed);

/**
 * etwforge_mutator_mutate - one mutant of the @len bytes at @in; @other
 * (may be NULL) lends records for a crossover.
 * @max:  the largest mutant wanted (0 = no limit): the stream is cut until
 *        the file fits
 * @out:  set to the mutant, owned by @m and valid until the next call (or
 *        to @in when nothing that fits could be made)
 * Return: the mutant's length (0 when nothing fits in @max).
 */
ETWFORGE_API size_t etwforge_mutator_mutate(struct etwforge_mutator *m, const uint8_t *in,
					    size_t len, const uint8_t *other, size_t other_len,
					    size_t max, const uint8_t **out);

/** etwforge_mutator_describe - what the last mutation did ("delta+threads"). */
ETWFORGE_API const char *etwforge_mutator_describe(const struct etwforge_mutator *m);

/** etwforge_mutator_free - NULL is a no-op. */
ETWFORGE_API void etwforge_mutator_free(struct etwforge_mutator *m);

#ifdef __cplusplus
}
#endif

#endif /* ETWFORGE_ETWFORGE_H */
