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

/**
 * etwforge_scenario_warning - warning @i of @sc (from 0; NULL past the
 * last): a value that loads but may not be what was meant, as one line
 * "FILE:LINE:COL: KEY: what" (a bare number in a file is nanoseconds, and
 * one below a microsecond, such as `hold: 2`, is said). A later
 * etwforge_scenario_set() of that key takes its warning back. A tool says
 * them (etwforge gen does, even with -q); the run goes on.
 */
ETWFORGE_API const char *etwforge_scenario_warning(const struct etwforge_scenario *sc, unsigned i);

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
 *               once at the end (gen and replay)
 * @progress_ms: 0 = 200
 * @notes:       where notes and warnings go (a discarded session, switches
 *               that do not chain); NULL = nowhere
 * @truth_logged_spinlocks: gen only: the truth has a line for the logged
 *               spin-lock releases only (they can outnumber switches by far),
 *               not for every release; verify then checks that each logged
 *               one satisfies the sampling predicate, not that the set is
 *               complete (etwforge-truth(5), SPINLOCK LINES)
 * @stream_paths: replay only: write each session where the stream's meta
 *               line names it, any path. By default a stream does not choose
 *               where files go: with @output every session's file derives
 *               from it (OUTPUT-2.etl, ...); without it the stream's names
 *               must be plain file names in the current folder (no '/', not
 *               "." or ".." or "-"), else -EINVAL (ETWFORGE_ERROR_INPUT)
 * @stop:        when not NULL, read between steps of a run (every 10 ms of
 *               simulated time, every few thousand stream lines, and before
 *               the outputs go into place): once *@stop is not 0 the run
 *               stops, removes what it made (every target as it was) and
 *               fails with -ECANCELED ("interrupted", ETWFORGE_ERROR_DATA).
 *               A signal handler may set it; the library only reads it
 * @jobs:        gen only: threads, the simulation's included; the others
 *               encode (a share of the CPUs each) and write the truth while
 *               the simulation goes on, the same bytes as one thread. 0 or 1
 *               = one thread; at most 1 + the machine's CPUs are used
 * @simulate_only: gen only: the machine runs, its records go nowhere: no
 *               file is made (@output, @truth and @json are not used), the
 *               summary has the seed, duration, CPUs, switches and wall
 *               time. What a run costs before a byte is encoded
 * @symbols:     gen only: a folder (made when missing) that gets, before the
 *               ETL files go into place, one Breakpad text symbol file per
 *               image with a PDB identity: DIR/<pdb name>/<GUID without
 *               dashes, upper case><age in hex>/<pdb name without
 *               .pdb>.sym, with a MODULE line and a FUNC line per function
 *               (etwforge(1), gen --symbols); NULL = none
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
	bool stream_paths;
	const volatile int *stop;
	unsigned jobs;
	bool simulate_only;
	const char *symbols;
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
 * exactly, one ETL file per session of its meta line, where @opts->output
 * says (see @stream_paths of struct etwforge_run_opts: the stream's own
 * file names are taken only as plain names in the current folder).
 * Return: as etwforge_generate(); a bad line, a record it cannot hold or a
 * file name it may not take is -EINVAL with `stream:line: what`.
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
	/* the identity records (etwforge(1), IDENTITY RECORDS) */
	ETWFORGE_EV_PROCESS = 0x20,	      /* Process 0x0301-0x0304, 0x0327, 0x030B */
	ETWFORGE_EV_THREAD = 0x40,	      /* Thread 0x0501-0x0504 */
	ETWFORGE_EV_THREAD_NAME = 0x80,	      /* ThreadSetName 0x0548 */
	ETWFORGE_EV_READY = 0x100,	      /* ReadyThread 0x0532 */
	ETWFORGE_EV_SAMPLE = 0x200,	      /* SampledProfile 0x0F2E */
	ETWFORGE_EV_PROFILE_INTERVAL = 0x400, /* 0x0F48 / 0x0F49 / 0x0F4A */
	ETWFORGE_EV_SYSCONFIG_CPU = 0x800,    /* SystemConfig CPU 0x0B0A */
	ETWFORGE_EV_RUNDOWN = 0x1000, /* group masks 0x0005 / 0x0020, rundown complete 0x0008 */
	/* images, stack walks and the image identities a merge adds (etwforge(1), IMAGES AND STACKS) */
	ETWFORGE_EV_IMAGE = 0x2000,	    /* Image 0x030A, 0x1402-0x1404, 0x1421, 0x1422 */
	ETWFORGE_EV_STACK = 0x4000,	    /* StackWalk 0x1820: an event's frames */
	ETWFORGE_EV_STACK_KEY = 0x8000,	    /* 0x1825 / 0x1826: an event's cached stack */
	ETWFORGE_EV_STACK_DEF = 0x10000,    /* 0x1822-0x1824: a cached stack's frames */
	ETWFORGE_EV_IMAGE_ID = 0x20000,	    /* KernelTraceControl ImageID */
	ETWFORGE_EV_DBGID = 0x40000,	    /* KernelTraceControl DbgID_RSDS, _ILRSDS, None */
	ETWFORGE_EV_FILE_VERSION = 0x80000, /* KernelTraceControl FileVersion */
};
#define ETWFORGE_EV_SWITCHES (ETWFORGE_EV_CSWITCH | ETWFORGE_EV_COMPACT)
#define ETWFORGE_EV_IDENTITY 0x1FE0u  /* ETWFORGE_EV_PROCESS ... ETWFORGE_EV_RUNDOWN */
#define ETWFORGE_EV_STACKS   0x1C000u /* ETWFORGE_EV_STACK, _STACK_KEY, _STACK_DEF */
#define ETWFORGE_EV_IMAGES   0xE2000u /* ETWFORGE_EV_IMAGE, _IMAGE_ID, _DBGID, _FILE_VERSION */
#define ETWFORGE_EV_ALL	     0xFFFFFu
#define ETWFORGE_EV_EVENTS   0xFFFFCu /* every decoded kind: all but buffers and records */

/* Orders (etwforge_iter_new() @order). */
enum etwforge_order {
	ETWFORGE_ORDER_FILE = 0, /* buffers in file order: a listing to read beside a hex dump */
	ETWFORGE_ORDER_CPU,	 /* buffer 0, then each CPU's buffers by SequenceNumber */
	ETWFORGE_ORDER_TIME,	 /* every decoded event of every CPU by time (no buffer, record) */
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
	ETWFORGE_PAYLOAD_IMAGE,		   /* 0x030A, 0x1402-0x1404 (v2/v3), 0x1421, 0x1422 */
	ETWFORGE_PAYLOAD_STACK_WALK,	   /* 0x1820 */
	ETWFORGE_PAYLOAD_STACK_KEY,	   /* 0x1825 / 0x1826 */
	ETWFORGE_PAYLOAD_STACK_DEF,	   /* 0x1822 / 0x1823 / 0x1824 */
	ETWFORGE_PAYLOAD_IMAGE_ID,	   /* KernelTraceControl type 0 (v2) */
	ETWFORGE_PAYLOAD_DBGID,		   /* KernelTraceControl types 36, 37, 32 (v2) */
	ETWFORGE_PAYLOAD_FILE_VERSION,	   /* KernelTraceControl type 64 (v0) */
	ETWFORGE_PAYLOAD_DPC,		   /* 0x0F42 / 0x0F43 / 0x0F44 / 0x0F45 (v2) */
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

/*
 * Images and stacks (etwforge(1), IMAGES AND STACKS, lists every field; the
 * layouts are those of ntwmi.h's WMI_IMAGELOAD_INFORMATION,
 * STACK_WALK_EVENT_DATA and WMI_IMAGEID_INFORMATION, and of PerfView's
 * KernelTraceEventParser and SymbolTraceEventParser). Addresses are widened
 * to 64 bits on x86. Frames and strings are owned by the iterator, valid
 * until its next event.
 */

/**
 * struct etwforge_image - WMI_IMAGELOAD_INFORMATION (v2; v3 adds the
 * signature bytes), or the one address of 0x1421 / 0x1422.
 * @event:        "load" (0x030A), "unload" (0x1402), "dcstart" (0x1403),
 *                "dcend" (0x1404), "kernel_base" (0x1421: @base is
 *                ntoskrnl's) or "hypercall_page" (0x1422: @base is the
 *                page's address; the other fields 0, @file_name NULL)
 * @base/@size:   where the image is mapped, and how much
 * @pid:          the address space's process; 0 a kernel module
 * @checksum:     the PE CheckSum; @timestamp its TimeDateStamp (Windows
 *                writes 0 in a process's rundown)
 * @signature_level/@signature_type: v3 (SE_SIGNING_LEVEL,
 *                SE_IMAGE_SIGNATURE_TYPE); 0 in v2
 * @default_base: the preferred base (0 for kernel modules)
 * @file_name:    the NT path, as the kernel wrote it
 */
struct etwforge_image {
	const char *event;
	uint64_t base;
	uint64_t size;
	uint32_t pid;
	uint32_t checksum;
	uint32_t timestamp;
	uint8_t signature_level;
	uint8_t signature_type;
	uint64_t default_base;
	const char *file_name;
};

/**
 * struct etwforge_dpc - PERFINFO_DPC_INFORMATION of ThreadedDPC 0x0F42, DPC
 * 0x0F44 and TimerDPC 0x0F45, or PERFINFO_INTERRUPT_INFORMATION of ISR
 * 0x0F43: a routine that ran from @initial_time (session clock) to the
 * record's timestamp, when it was logged.
 * @event:        "threaded_dpc", "isr", "dpc" or "timer_dpc"
 * @routine:      the DPC routine's or the ISR's address
 * @return_value/@vector/@reserved: an ISR's (0 for a DPC)
 */
struct etwforge_dpc {
	const char *event;
	uint64_t initial_time;
	uint64_t routine;
	uint8_t return_value;
	uint16_t vector;
	uint8_t reserved;
};

/**
 * struct etwforge_stack_walk - STACK_WALK_EVENT_DATA 0x1820: the frames of
 * the event logged at @event_ts by thread @tid of process @pid (a sample's
 * thread; 0 and 0 for an idle-thread sample), all kernel or all user
 * addresses (an event with both parts has two records, kernel first).
 * @frames:  @nframes addresses, the innermost (the IP) first
 */
struct etwforge_stack_walk {
	uint64_t event_ts;
	uint32_t pid;
	uint32_t tid;
	const uint64_t *frames;
	size_t nframes;
};

/**
 * struct etwforge_stack_key - 0x1825 / 0x1826: as a stack walk, but the
 * frames are a cached stack's, defined by the first definition of @key
 * (struct etwforge_stack_def) logged after this reference.
 * @event: "kernel" (0x1825) or "user" (0x1826)
 */
struct etwforge_stack_key {
	const char *event;
	uint64_t event_ts;
	uint32_t pid;
	uint32_t tid;
	uint64_t key;
};

/**
 * struct etwforge_stack_def - 0x1822 / 0x1823 / 0x1824: the frames of
 * cached stack @key (innermost first); the key may be used again after it.
 * @event: "create" (0x1822), "delete" (0x1823, evicted) or "rundown"
 *         (0x1824, still cached when the session stopped)
 */
struct etwforge_stack_def {
	const char *event;
	uint64_t key;
	const uint64_t *frames;
	size_t nframes;
};

/**
 * struct etwforge_image_id - KernelTraceControl ImageID (type 0, v2), a
 * classic event a merge writes right before an image event, with its time.
 * @timestamp: the PE TimeDateStamp, from the file (also where the image
 *             event has 0)
 * @file_name: the file's name alone ("ntdll.dll")
 */
struct etwforge_image_id {
	uint64_t base;
	uint64_t size;
	uint32_t pid;
	uint32_t timestamp;
	const char *file_name;
};

/**
 * struct etwforge_dbgid - KernelTraceControl DbgID_RSDS (type 36),
 * DbgID_ILRSDS (37) or None (32, an image without a CodeView record): the
 * image's PDB.
 * @event: "rsds", "ilrsds" or "none" (then only @base and @pid; @guid and
 *         @pdb NULL)
 * @guid:  the PDB's GUID, "{3C8F0528-9C07-4257-9192-78EA9AA6A1F4}"
 * @age:   the PDB's age
 * @pdb:   PdbFileName as written (a path or a bare name; bytes >= 0x80
 *         read as Latin-1)
 */
struct etwforge_dbgid {
	const char *event;
	uint64_t base;
	uint32_t pid;
	const char *guid;
	uint32_t age;
	const char *pdb;
};

/**
 * struct etwforge_file_version - KernelTraceControl FileVersion (type 64,
 * v0): the image's version resource; no base or process (the record's
 * @pid says which process, its time which image event follows).
 */
struct etwforge_file_version {
	uint32_t size;
	uint32_t timestamp;
	const char *orig_file_name;
	const char *file_description;
	const char *file_version;
	const char *bin_file_version;
	const char *ver_language;
	const char *product_name;
	const char *company_name;
	const char *product_version;
	const char *file_id;
	const char *program_id;
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
		struct etwforge_image image;
		struct etwforge_stack_walk stack;
		struct etwforge_stack_key stack_key;
		struct etwforge_stack_def stack_def;
		struct etwforge_image_id image_id;
		struct etwforge_dbgid dbgid;
		struct etwforge_file_version file_version;
		struct etwforge_dpc dpc;
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
		struct etwforge_image image;
		struct etwforge_stack_walk stack;
		struct etwforge_stack_key stack_key;
		struct etwforge_stack_def stack_def;
		struct etwforge_image_id image_id;
		struct etwforge_dbgid dbgid;
		struct etwforge_file_version file_version;
	} u;
};

struct etwforge_iter;

/**
 * etwforge_iter_new - iterate the events of @kinds (a mask of
 * ETWFORGE_EV_*) of @f in @order. In ETWFORGE_ORDER_FILE and _CPU the
 * records come as they sit (a compact batch's switches follow its record);
 * ETWFORGE_ORDER_TIME merges every decoded event of every CPU by
 * timestamp (ETWFORGE_EV_EVENTS: switches, spin locks, the identity
 * kinds, images and stacks; a compact batch's switches where they
 * happened, not where the batch was written; a stack record at its own
 * time, after its event's), events of one timestamp in the order the CPUs'
 * records were logged, buffer 0's first; it gives no buffers or records,
 * and asking for them is an error (EINVAL), never an empty iteration.
 * A record of an identity, image or stack kind whose payload does not
 * decode (cut short, a string without its end, frames that are not whole
 * pointers) is no event of its kind; as a record its @decoded is
 * ETWFORGE_PAYLOAD_SHORT.
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
 * full SYSTEM header (SYSTEM32/SYSTEM64; the compact form has none) or an
 * EVENT_TRACE_HEADER (FULL_HEADER32/64): the logging thread's times in
 * clock ticks (for Thread and Process records, the thread the record is
 * about, or its creator for Start; for KernelTraceControl's image
 * identities, those of the image event they describe).
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
 * etwforge_record_name - what record @r is, when the library decodes its
 * payload: etwforge_payload_name() of its hook for a kernel header, and for
 * a classic event of KernelTraceControl's image identities "ImageID",
 * "DbgID_RSDS", "DbgID_ILRSDS", "DbgID None" or "FileVersion" (what a
 * record with ETWFORGE_PAYLOAD_SHORT is called).
 * Return: the name; NULL when its payload is not decoded.
 */
ETWFORGE_API const char *etwforge_record_name(const struct etwforge_record *r);

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
 * (ETWFORGE_STAT_PROCESSES and after: an analysis of the file at
 * ETWFORGE_DETAIL_COUNTS, kept in @st: etwforge_stats_analysis()).
 * Return: 0, or -EINVAL at damage (@err), with the counts up to there; for
 * a file opened with ETWFORGE_OPEN_KEEP_GOING, a batch that does not expand
 * (or the rest of a buffer that does not frame) is skipped and the counts
 * cover the rest of the file, @err saying the first damage.
 */
ETWFORGE_API int etwforge_file_stats(struct etwforge_file *f, struct etwforge_stats *st,
				     struct etwforge_error *err);

/**
 * etwforge_stats_json - @st (of @f) as the one JSON object `dump --stats
 * --jsonl` prints (with where the CPU went: "wakeups", "cpu_time" by
 * process and CPU, from etwforge_stats_analysis()). Return: as
 * etwforge_event_json().
 */
ETWFORGE_API size_t etwforge_stats_json(const struct etwforge_file *f,
					const struct etwforge_stats *st, char *buf, size_t cap);

/* ---- one reading of a trace: who ran, who woke whom, where the CPU went ---- */

/*
 * An analysis reads a file once, in time order, and keeps per CPU what runs
 * and per thread and process who it is (from the file's Process, Thread and
 * ThreadSetName records; TIDs and PIDs reused over time are told apart by
 * their Start and End records). It pairs each ReadyThread with the readied
 * thread's next switch-in (plain and compact switches alike) and counts
 * what a consumer's analyses report: CPU time by process, thread and CPU,
 * run bursts, waits, wait reasons and states, wake-up latency, idle time,
 * sampled addresses. `etwforge dump --stats`, its pictures and the Python
 * package all read a trace through it, so their numbers agree.
 *
 * Times are nanoseconds since the session started (the file's start_ts),
 * negative before it. A slice of a CPU runs from one switch to the next;
 * before a CPU's first switch its old thread runs since the session start,
 * after its last one the new thread runs until the end of tracing (EndTime,
 * else the last buffer) -- unless the switch is compact: a compact record
 * names the thread switched out, so after a CPU's last compact switch the
 * file does not say who ran (the slice is not @known, its time unknown_ns).
 * Time is summed in the session clock's units and turned into nanoseconds
 * once per total, so the two levels of detail agree to the nanosecond.
 */
struct etwforge_analysis;

/* etwforge_analysis_opts @detail */
enum etwforge_detail {
	/* everything below, in one pass in time order (items, distributions, windows) */
	ETWFORGE_DETAIL_FULL = 0,
	/* the counts and CPU times of the tables and totals only (no item, distribution or
	 * window): a compact batch is summed a batch at a time, many times faster */
	ETWFORGE_DETAIL_COUNTS = 1,
};

/* What etwforge_analysis_next() hands out: etwforge_analysis_opts @items, a mask. */
enum etwforge_item_kind {
	ETWFORGE_ITEM_SLICE = 0x1, /* a thread ran on a CPU from @t0 to @t1 */
	ETWFORGE_ITEM_WAKE = 0x2,  /* a ReadyThread at @t0 and the thread's next switch-in at @t1 */
	ETWFORGE_ITEM_FLUSH = 0x4, /* a compact batch flushed at @t0, with the reason it shows */
	ETWFORGE_ITEM_SPIN = 0x8,  /* a logged spin-lock release at @t0, with why it was logged */
	ETWFORGE_ITEM_SAMPLE = 0x10 /* a SampledProfile at @t0 */
};
#define ETWFORGE_ITEM_ALL 0x1Fu

/* Why a compact batch was flushed, as far as its file shows (an item's @reason). */
enum etwforge_flush_seen {
	ETWFORGE_FLUSH_TID_FULL = 0, /* its 16-entry TidTable was full and a 17th thread came */
	ETWFORGE_FLUSH_TICKS,	     /* more than 500 interrupt ticks since it started */
	ETWFORGE_FLUSH_SIZE,	     /* Offset + 8 > 0x400: the next record might not fit */
	ETWFORGE_FLUSH_DELTA,	     /* the time since the previous switch exceeds 2^30 */
	ETWFORGE_FLUSH_END,	     /* written when tracing ended */
	ETWFORGE_FLUSH_UNKNOWN,	     /* none of these shows: the stop flag, lost events, damage */
};
#define ETWFORGE_FLUSH_SEEN 6

/* Why a spin-lock release was logged, the first clause of the kernel's test it meets. */
enum etwforge_spin_seen {
	ETWFORGE_SPIN_HOLD = 0,	 /* held longer than HoldThreshold cycles */
	ETWFORGE_SPIN_CONTENDED, /* SpinCount >= SpinThreshold */
	ETWFORGE_SPIN_SAMPLED,	 /* neither: one of AcquireSampleRate acquisitions */
};
#define ETWFORGE_SPIN_SEEN 3

/**
 * etwforge_flush_seen_name - "tid_full", "ticks", "size", "delta", "end",
 * "unknown"; etwforge_flush_seen_label - the words a legend uses ("TID
 * table full", ...). NULL past them.
 */
ETWFORGE_API const char *etwforge_flush_seen_name(unsigned reason);
ETWFORGE_API const char *etwforge_flush_seen_label(unsigned reason);

/** etwforge_spin_seen_name - "hold", "contended", "sampled"; NULL past them. */
ETWFORGE_API const char *etwforge_spin_seen_name(unsigned kind);

/**
 * struct etwforge_analysis_opts - what an analysis counts and hands out.
 * Declare it with ETWFORGE_OPTS(etwforge_analysis_opts, o, ...).
 * @sz:         sizeof(struct etwforge_analysis_opts) (see "Growth" at the top)
 * @detail:     ETWFORGE_DETAIL_FULL (0) or _COUNTS
 * @items:      the ETWFORGE_ITEM_* kinds etwforge_analysis_next() hands out
 *              (0: none; etwforge_analysis_run() reads to the end)
 * @window:     count only [@from_ns, @to_ns]: slices clipped to it, the
 *              switches, samples and spin locks in it, the wake-ups whose
 *              switch-in is in it; items that meet it
 * @cpus:       a bitmap (bit c % 8 of byte c / 8) of the CPUs counted and
 *              handed out, @cpus_bytes long; NULL: every CPU. A wake-up
 *              counts on the CPU it switched in on.
 * @keep_going: where the file is damaged, skip what is damaged (counted in
 *              the totals' @damaged) and go on, instead of failing there
 * @symbols:    a symbol store, the folder of Breakpad text symbol files in
 *              Breakpad's layout, DIR/PDB/ID/NAME.sym (ID: the PDB's GUID,
 *              32 upper-case hex digits, then its age in hex; NAME the PDB's
 *              name without .pdb): function names of the images whose PDB
 *              identity the file gives (KernelTraceControl's DbgID_RSDS),
 *              and of an image without one whose PDB (its name with .pdb)
 *              the store holds in one version only; NULL none
 * @stacks:     ETWFORGE_STACKS_JOIN (0): every event's stack joined, held
 *              from the first pass to the end (memory grows with the
 *              file's stack records); ETWFORGE_STACKS_NONE: stack records
 *              are not read (no stack rows, call tree by IP only, the
 *              totals' stack counts 0), for a pass over a long file whose
 *              memory must stay flat
 */
struct etwforge_analysis_opts {
	size_t sz;
	unsigned detail;
	unsigned items;
	bool window;
	int64_t from_ns;
	int64_t to_ns;
	const uint8_t *cpus;
	size_t cpus_bytes;
	bool keep_going;
	const char *symbols;
	unsigned stacks;
};

/* etwforge_analysis_opts @stacks */
enum etwforge_stacks {
	ETWFORGE_STACKS_JOIN = 0, /* every event's stack joined (the default) */
	ETWFORGE_STACKS_NONE = 1, /* stack records not read: memory flat over a long file */
};

/**
 * etwforge_analysis_new - an analysis of @f (which must outlive it). The
 * file's Process and Thread records are read first (every thread's name is
 * known from the start); nothing else is read until the first
 * etwforge_analysis_next() or etwforge_analysis_run().
 * The file's images and stacks (etwforge(1), IMAGES AND STACKS) are read
 * in the same first pass: an image's rows, and every event's stack joined.
 * Return: it, or NULL with errno and @err: EINVAL (@opts refused: its sz,
 * @detail, @items with ETWFORGE_DETAIL_COUNTS, a CPU of @cpus not in the
 * file, @to_ns before @from_ns), ENOENT / ENOTDIR (@symbols names no
 * folder: INPUT), ENOMEM; EINVAL (DATA) damage in the identity, image or
 * stack records of a file not opened with ETWFORGE_OPEN_KEEP_GOING, or a
 * symbol file that is not one (`PATH:LINE: what`).
 */
ETWFORGE_API struct etwforge_analysis *
etwforge_analysis_new(struct etwforge_file *f, const struct etwforge_analysis_opts *opts,
		      struct etwforge_error *err);

/** etwforge_analysis_free - NULL is a no-op. */
ETWFORGE_API void etwforge_analysis_free(struct etwforge_analysis *a);

/**
 * struct etwforge_item - one item of an analysis, owned by it and valid
 * until the next etwforge_analysis_next(); read through the pointer given
 * (it may grow at its end).
 * @cpu:      slice, flush, spin, sample: its CPU; wake: the CPU it switched
 *            in on (@from_cpu: the ReadyThread's)
 * @t0/@t1:   ns since the session start; slice: from, to (clipped to the
 *            window); wake: readied, switched in; else both the time
 * @tid:      slice: the thread that ran (@known); wake: the readied one;
 *            sample: the sampled one
 * @thread:   @tid's row of the thread table, -1 for idle or unknown
 * @known:    slice: the file says which thread ran (not so after a CPU's
 *            last compact switch)
 * @opened:   slice: a switch began it (not: running since the trace began)
 * @waker:    wake: the thread that readied it (the ReadyThread header's;
 *            0: idle, a DPC or an interrupt), @waker_thread its row or -1
 * @reason:   flush: an etwforge_flush_seen; spin: an etwforge_spin_seen;
 *            sample: its Flags byte (bit 0 ExecutingDpc, bit 1 ExecutingIsr,
 *            bits 3-7 the thread's priority)
 * @batch/@tids/@record_bytes: flush: the batch's number on its CPU, its
 *            TidTable entries, its bytes of records
 * @lock:     spin: the release (valid as long as the item)
 * @ip:       sample: the instruction pointer
 * @stack:    sample: its call stack's row (etwforge_analysis_stack()), -1
 *            none (the file has no stack records of the sample's time and
 *            thread)
 * @pid:      sample: the sampled thread's process (its Thread record's; else
 *            its stack's StackProcess), 0 unknown or idle
 */
struct etwforge_item {
	enum etwforge_item_kind kind;
	unsigned cpu;
	int64_t t0;
	int64_t t1;
	uint32_t tid;
	int64_t thread;
	bool known;
	bool opened;
	uint32_t waker;
	int64_t waker_thread;
	unsigned from_cpu;
	unsigned reason;
	uint64_t batch;
	unsigned tids;
	uint64_t record_bytes;
	const struct etwforge_spinlock *lock;
	uint64_t ip;
	int64_t stack;
	uint32_t pid;
};

/**
 * etwforge_analysis_next - read on to the next item of the kinds asked
 * for, counting everything on the way; at the end the tables are complete.
 * Items come in the order the pass meets them: a slice when it ends, a
 * wake-up at its switch-in, a flush when the next batch of its CPU begins.
 * Return: 1 with *@item; 0 at the end; -EINVAL damage (@err: `file: offset
 * 0x...: what`; without @keep_going the analysis ends there, its tables
 * holding what came before); -ENOMEM.
 */
ETWFORGE_API int etwforge_analysis_next(struct etwforge_analysis *a,
					const struct etwforge_item **item,
					struct etwforge_error *err);

/** etwforge_analysis_run - read to the end, items not handed out. Return: as _next(), 0 done. */
ETWFORGE_API int etwforge_analysis_run(struct etwforge_analysis *a, struct etwforge_error *err);

/* Buckets of a distribution: bucket k counts the values of [2^k, 2^(k+1)) ns (0: 0 and 1). */
#define ETWFORGE_HIST_BUCKETS 64u

/**
 * struct etwforge_analysis_totals - what the analysis counted (in its
 * window, on its CPUs). Read it through etwforge_analysis_totals(); it may
 * grow at its end.
 * @from_ns/@to_ns:  the span counted: the window, or the session start to
 *                   the end of tracing
 * @end_ns:          the end of tracing (EndTime, else the latest buffer)
 * @clock_hz:        the session clock's units per second
 * @cpus:            CPUs counted
 * @switches:        context switches (@compact of them from batches)
 * @switch_ins:      of which to a thread other than idle that the file
 *                   names (@attributed: a Thread record names it;
 *                   @unattributed: none does). A CPU's last compact switch
 *                   is neither: its new thread is not known.
 * @readies:         ReadyThread events (in the span: their time)
 * @wakeups:         ReadyThreads paired with the readied thread's next
 *                   switch-in (in the span: the switch-in's time)
 * @samples:         SampledProfile events; @samples_attributed of them of
 *                   a thread a Thread record names; @idle_samples of TID 0
 * @busy_ns/@idle_ns/@unknown_ns: CPU time of threads, of idle, and not known
 * @cpu_from_samples: the file has no switch: CPU time is @samples x
 *                   @sample_interval_ns (the file's profile interval, else
 *                   1 ms)
 * @flushes/@spins:  items of those kinds met (counted whether asked or not)
 * @damaged:         damaged places skipped (@keep_going)
 * @threads/@processes: rows of the tables
 * @wake_hist:       ETWFORGE_HIST_BUCKETS: wake-up latencies (FULL only)
 * @images:          rows of the image table (etwforge_analysis_image())
 * @samples_in_image: samples whose IP an image of the sampled thread's
 *                   process (or a kernel module) maps at its time
 * @samples_stacked: samples with a stack (stack records of their time and
 *                   thread)
 * @stack_events:    events of the whole file with a stack (the distinct
 *                   EventTimeStamp and StackThread of its stack records
 *                   whose frames are known); @stacks the distinct stacks
 * @stack_records:   StackWalk and stack-key references; @keys_unresolved
 *                   references no later definition of their key resolves
 * @frames:          frames of those events' stacks; @frames_in_image of them
 *                   an image of the stack's process (or a kernel module)
 *                   maps at the event's time
 * @depth_hist:      ETWFORGE_HIST_BUCKETS: the frames of the samples' stacks,
 *                   bucket k = [2^k, 2^(k+1)) frames (FULL only)
 */
struct etwforge_analysis_totals {
	int64_t from_ns;
	int64_t to_ns;
	int64_t end_ns;
	uint64_t clock_hz;
	unsigned cpus;
	uint64_t switches;
	uint64_t compact;
	uint64_t switch_ins;
	uint64_t attributed;
	uint64_t unattributed;
	uint64_t readies;
	uint64_t wakeups;
	uint64_t samples;
	uint64_t samples_attributed;
	uint64_t idle_samples;
	uint64_t busy_ns;
	uint64_t idle_ns;
	uint64_t unknown_ns;
	bool cpu_from_samples;
	uint64_t sample_interval_ns;
	uint64_t flushes;
	uint64_t spins;
	uint64_t damaged;
	size_t threads;
	size_t processes;
	const uint64_t *wake_hist;
	size_t images;
	uint64_t samples_in_image;
	uint64_t samples_stacked;
	uint64_t stack_events;
	size_t stacks;
	uint64_t stack_records;
	uint64_t keys_unresolved;
	uint64_t frames;
	uint64_t frames_in_image;
	const uint64_t *depth_hist;
};

/** etwforge_analysis_totals - the totals so far (complete at the end), owned by @a. */
ETWFORGE_API const struct etwforge_analysis_totals *
etwforge_analysis_totals(const struct etwforge_analysis *a);

/**
 * struct etwforge_thread_row - one thread of the trace: a TID from its
 * Start (or from before the trace) to its End (or after it); a TID reused
 * is a new row. A thread no Thread record names has a row all the same
 * (@named false, @pid 0). Read it through etwforge_analysis_thread(); it
 * may grow at its end. Counts are in the window, on the CPUs counted.
 * @process:     its row in the process table, -1 when no Process record
 *               names its process
 * @name:        ThreadName or the latest ThreadSetName; "" none
 * @start_ns/@end_ns: its Start and End, INT64_MIN / INT64_MAX: not in the
 *               trace
 * @cpu_ns:      time it ran (from switches; from samples where the file
 *               has none)
 * @switch_ins:  times it was switched in; @samples: samples of it
 * @wakeups:     its ReadyThreads paired with a switch-in; @wake_ns their
 *               latencies summed
 * @waits:       times it was switched out and in again; @wait_ns the time
 *               between, summed; @max_wait_ns the longest
 * @bursts:      its slices (a switch-in to the next switch-out, both in
 *               the file); @max_burst_ns the longest
 * @burst_hist/@wait_hist/@wake_hist: ETWFORGE_HIST_BUCKETS each (FULL)
 * @wait_reasons: switch-outs by the OldThreadWaitReason of a switch whose
 *               OldThreadState is Waiting (5), @nreasons entries (FULL)
 * @states:      switch-outs by OldThreadState, @nstates entries (FULL)
 * @distinct_ips: sampled addresses (etwforge_analysis_ips())
 */
struct etwforge_thread_row {
	uint32_t tid;
	uint32_t pid;
	int64_t process;
	const char *name;
	bool named;
	int64_t start_ns;
	int64_t end_ns;
	uint64_t cpu_ns;
	uint64_t switch_ins;
	uint64_t samples;
	uint64_t wakeups;
	uint64_t wake_ns;
	uint64_t waits;
	uint64_t wait_ns;
	uint64_t max_wait_ns;
	uint64_t bursts;
	uint64_t max_burst_ns;
	const uint64_t *burst_hist;
	const uint64_t *wait_hist;
	const uint64_t *wake_hist;
	const uint64_t *wait_reasons;
	unsigned nreasons;
	const uint64_t *states;
	unsigned nstates;
	size_t distinct_ips;
};

/**
 * struct etwforge_process_row - one process: a PID from its Start (or from
 * before the trace) to its End; a PID reused is a new row. Read it through
 * etwforge_analysis_process(); it may grow at its end.
 * @image:   ImageFileName; @cmdline the command line ("" none)
 * @threads: rows of the thread table in it
 * @cpu_ns/@switch_ins/@samples: its threads' summed
 */
struct etwforge_process_row {
	uint32_t pid;
	uint32_t ppid;
	const char *image;
	const char *cmdline;
	int64_t start_ns;
	int64_t end_ns;
	size_t threads;
	uint64_t cpu_ns;
	uint64_t switch_ins;
	uint64_t samples;
};

/**
 * struct etwforge_cpu_row - one CPU counted. Read it through
 * etwforge_analysis_cpu(); it may grow at its end.
 * @busy_ns/@idle_ns/@unknown_ns: as the totals', on this CPU
 */
struct etwforge_cpu_row {
	unsigned cpu;
	uint64_t switches;
	uint64_t busy_ns;
	uint64_t idle_ns;
	uint64_t unknown_ns;
	uint64_t samples;
	uint64_t idle_samples;
};

/**
 * etwforge_analysis_thread / _process / _cpu - row @i of a table (the
 * totals say how many threads and processes; CPUs: etwforge_analysis_cpus()).
 * Return: it, owned by @a (valid until it is freed; its counts grow while
 * it reads); NULL past the end.
 */
ETWFORGE_API const struct etwforge_thread_row *
etwforge_analysis_thread(const struct etwforge_analysis *a, size_t i);
ETWFORGE_API const struct etwforge_process_row *
etwforge_analysis_process(const struct etwforge_analysis *a, size_t i);
ETWFORGE_API unsigned etwforge_analysis_cpus(const struct etwforge_analysis *a);
ETWFORGE_API const struct etwforge_cpu_row *etwforge_analysis_cpu(const struct etwforge_analysis *a,
								  unsigned i);

/**
 * etwforge_analysis_thread_at - the row of thread @tid at @t_ns (a TID's
 * rows tell its reuses apart), -1 when no row has it (or @tid is 0).
 */
ETWFORGE_API int64_t etwforge_analysis_thread_at(const struct etwforge_analysis *a, uint32_t tid,
						 int64_t t_ns);

/** struct etwforge_ip_count - a sampled address and how many samples it has. */
struct etwforge_ip_count {
	uint64_t ip;
	uint64_t samples;
};

/**
 * etwforge_analysis_ips - the sampled addresses of thread row @row (-1: of
 * the idle thread), most samples first (FULL detail; complete at the end).
 * Return: the array (owned by @a, valid until the next call or free) and
 * *@n its length; NULL with *@n 0 when none; NULL with errno ENOMEM.
 */
ETWFORGE_API const struct etwforge_ip_count *etwforge_analysis_ips(struct etwforge_analysis *a,
								   int64_t row, size_t *n);

/**
 * struct etwforge_image_row - one image: a module mapped at @base in
 * process @pid (0: a kernel module, mapped in every process) from @load_ns
 * to @unload_ns, from the file's Image records and the identities a merge
 * wrote beside them. A Load over an image still mapped at that place of
 * the process ends it, and so does the process's End. Read it through
 * etwforge_analysis_image(); it may grow at its end.
 * @process:   its process row, -1 (a kernel module, or no Process record)
 * @load_ns/@unload_ns: INT64_MIN: mapped before the trace (a rundown's);
 *             INT64_MAX: still mapped at its end
 * @path:      as the Image record names it; @name its file name alone
 * @timestamp: the PE TimeDateStamp (KernelTraceControl's ImageID's when the
 *             record has 0); @checksum the PE CheckSum
 * @pdb/@guid/@age: the PDB a merge named (DbgID_RSDS): its name without a
 *             folder, GUID ("{...}") and age; NULL and 0 none
 * @symbols:   the symbol store has its file (etwforge_analysis_opts)
 * @samples:   samples whose IP it maps; @frames stack frames it maps
 */
struct etwforge_image_row {
	uint32_t pid;
	int64_t process;
	uint64_t base;
	uint64_t size;
	int64_t load_ns;
	int64_t unload_ns;
	const char *path;
	const char *name;
	uint32_t timestamp;
	uint32_t checksum;
	const char *pdb;
	const char *guid;
	uint32_t age;
	bool symbols;
	uint64_t samples;
	uint64_t frames;
};

/** etwforge_analysis_image - image row @i (the totals' @images), owned by @a; NULL past the end. */
ETWFORGE_API const struct etwforge_image_row *
etwforge_analysis_image(const struct etwforge_analysis *a, size_t i);

/**
 * struct etwforge_stack_row - one distinct call stack of the file's events:
 * its frames, innermost (the instruction pointer) first, the kernel part's
 * @kernel_frames, then the user part's. Read it through
 * etwforge_analysis_stack(); it may grow at its end.
 * @samples: samples whose stack it is (in the window, on the CPUs counted)
 */
struct etwforge_stack_row {
	const uint64_t *frames;
	size_t nframes;
	size_t kernel_frames;
	uint64_t samples;
};

/** etwforge_analysis_stack - stack row @i (the totals' @stacks), owned by @a; NULL past the end. */
ETWFORGE_API const struct etwforge_stack_row *
etwforge_analysis_stack(const struct etwforge_analysis *a, size_t i);

/**
 * struct etwforge_location - where an address is: in which image, which
 * function.
 * @image:    its image row, -1 in none
 * @module:   the image's file name; NULL in none
 * @function: the function of the symbol store holding it; NULL unknown
 * @offset:   from the function's start, else from the image's base, else
 *            the address itself
 * @text:     "ntdll.dll!RtlUserThreadStart+0x21", "ntdll.dll+0x2c1a" or
 *            "0x7f9d02f2c1a" (owned by the analysis, valid until its next
 *            etwforge_analysis_locate())
 */
struct etwforge_location {
	int64_t image;
	const char *module;
	const char *function;
	uint64_t offset;
	const char *text;
};

/**
 * etwforge_analysis_locate - where @addr is in process @pid (0: only the
 * kernel modules) at @t_ns (ns since the session start): the image mapping
 * it then, its own first, else a kernel module's.
 * Return: 1 in an image, 0 in none (@out says the address), -EINVAL @out NULL.
 */
ETWFORGE_API int etwforge_analysis_locate(struct etwforge_analysis *a, uint32_t pid, uint64_t addr,
					  int64_t t_ns, struct etwforge_location *out);

/**
 * struct etwforge_call_node - one node of the call tree of the samples
 * (FULL detail, after etwforge_analysis_run()): the root "all", a process
 * under it ("Test.x64.exe (3676)", "Idle (0)" the idle thread's samples,
 * "? (PID)" a process no record names), then each sample's frames from the
 * outermost (the thread's start) to the innermost, merged by function:
 * "module!function", "module!?" (no name known) or "?" (in no image). A
 * sample without a stack is its IP alone. Read it through
 * etwforge_analysis_call_node(); it may grow at its end.
 * @parent:    -1 for the root (node 0)
 * @first_child/@next_sibling: the children, most samples first; -1 none
 * @depth:     0 the root, 1 a process, 2 its outermost frames, ...
 * @samples:   samples whose stack goes through it; @self of them ending here
 * @pid:       depth 1 and below: the process's PID
 */
struct etwforge_call_node {
	int64_t parent;
	int64_t first_child;
	int64_t next_sibling;
	unsigned depth;
	const char *name;
	uint64_t samples;
	uint64_t self;
	uint32_t pid;
};

/**
 * etwforge_analysis_call_nodes - the nodes of the call tree, made at the
 * first call after the analysis read to its end (FULL detail; in COUNTS,
 * or before the end: 0).
 * Return: how many; 0 with errno ENOMEM.
 */
ETWFORGE_API size_t etwforge_analysis_call_nodes(struct etwforge_analysis *a);

/** etwforge_analysis_call_node - node @i, owned by @a; NULL past the end. */
ETWFORGE_API const struct etwforge_call_node *
etwforge_analysis_call_node(const struct etwforge_analysis *a, size_t i);

/**
 * etwforge_stats_analysis - the analysis (ETWFORGE_DETAIL_COUNTS, read to
 * its end) that etwforge_file_stats() took the identity counts from: CPU
 * time by process, thread and CPU, wake-ups. Return: it, owned by @st
 * (valid until @st is filled again or freed); NULL before a fill.
 */
ETWFORGE_API const struct etwforge_analysis *
etwforge_stats_analysis(const struct etwforge_stats *st);

/* ---- traits: what a trace looks like, to compare two (`etwforge compare`) -- */

/*
 * The statistics an analyst's eye goes to when deciding whether a trace
 * comes from a real machine (how samples are spaced, how skewed they are,
 * how many processes and threads a machine has, how its IDs look, how
 * threads leave and come back), each with a distance in [0, 1] between two
 * traces. Read from the analysis of the file (one reading of it).
 */

/** enum etwforge_trait_kind - what a trait is, and so how two are compared. */
enum etwforge_trait_kind {
	ETWFORGE_TRAIT_AMOUNT,	    /* a quantity >= 0: distance 1 - smaller / larger */
	ETWFORGE_TRAIT_FRACTION,    /* a share in [0, 1]: distance |a - b| */
	ETWFORGE_TRAIT_SIGNED,	    /* a correlation in [-1, 1]: distance |a - b| / 2 */
	ETWFORGE_TRAIT_DIST_LOG2,   /* a distribution, bucket k = [2^k, 2^(k+1)) of @unit:
				       Kolmogorov-Smirnov distance of the two */
	ETWFORGE_TRAIT_DIST_LINEAR, /* a distribution over [0, 1] in @ncounts equal
				       buckets: Kolmogorov-Smirnov distance */
	ETWFORGE_TRAIT_MIX,	    /* counts of named categories: Jensen-Shannon
				       divergence (base 2) of the two shares */
};

/**
 * struct etwforge_trait - one statistic of a trace.
 * @name:    a short key ("sample_spacing_cv")
 * @what:    one line saying what it is
 * @unit:    "ns", "ms", "s", "" (a plain number or share)
 * @kind:    how it compares
 * @scored:  it counts in etwforge_traits_score() (else it is context: the
 *           size of the machine or the length of the trace)
 * @present: the trace shows it (no samples: no sample traits)
 * @value:   AMOUNT, FRACTION, SIGNED: the value; a distribution: its median
 *           (in @unit; the lower edge of its bucket); MIX: the share of its
 *           most common category
 * @counts/@ncounts: a distribution's buckets or a mix's categories
 * @labels:  MIX: the categories' names (@ncounts of them)
 */
struct etwforge_trait {
	const char *name;
	const char *what;
	const char *unit;
	enum etwforge_trait_kind kind;
	bool scored;
	bool present;
	double value;
	const uint64_t *counts;
	unsigned ncounts;
	const char *const *labels;
};

struct etwforge_traits;

/**
 * etwforge_traits_new - read @f (its full analysis, once) and compute its
 * traits. Damage: as etwforge_analysis_run() (the file's keep-going flag).
 * Return: the traits (free them with etwforge_traits_free()), or NULL with
 * @err filled.
 */
ETWFORGE_API struct etwforge_traits *etwforge_traits_new(struct etwforge_file *f,
							 struct etwforge_error *err);

/** etwforge_traits_free - free @t (NULL: nothing). */
ETWFORGE_API void etwforge_traits_free(struct etwforge_traits *t);

/** etwforge_traits_count - how many traits there are (the same for every trace). */
ETWFORGE_API size_t etwforge_traits_count(const struct etwforge_traits *t);

/** etwforge_traits_at - trait @i (0 .., in a fixed order), NULL past the end; owned by @t. */
ETWFORGE_API const struct etwforge_trait *etwforge_traits_at(const struct etwforge_traits *t,
							     size_t i);

/**
 * etwforge_trait_distance - how far apart trait @a and trait @b are, in
 * [0, 1] (0: the same) into *@d.
 * Return: 0; -ENOENT one of them is not present; -EINVAL they are not the
 * same trait.
 */
ETWFORGE_API int etwforge_trait_distance(const struct etwforge_trait *a,
					 const struct etwforge_trait *b, double *d);

/**
 * etwforge_traits_score - the mean distance of the scored traits both
 * present (0: alike on all of them; 1: as far apart as can be); *@compared
 * (may be NULL) how many that was. 0 traits compared: 0.
 */
ETWFORGE_API double etwforge_traits_score(const struct etwforge_traits *a,
					  const struct etwforge_traits *b, unsigned *compared);

/**
 * etwforge_traits_json - the traits of @a (named @name_a) beside those of
 * @b (@name_b; NULL: @a alone) as one JSON object: "a", "b", "score" (as
 * etwforge_traits_score()), "compared", and "traits", one object each with
 * "name", "what", "unit", "kind" ("amount", "fraction", "signed",
 * "dist_log2", "dist_linear", "mix"), "scored", "labels" (a mix), "a" and
 * "b" ({"present", "value", "counts"}) and "distance" (null: not both
 * present). Return: as etwforge_event_json() (the length it needs).
 */
ETWFORGE_API size_t etwforge_traits_json(const struct etwforge_traits *a,
					 const struct etwforge_traits *b, const char *name_a,
					 const char *name_b, char *buf, size_t cap);

/** etwforge_wait_reason_name - KWAIT_REASON @reason's name ("WrPreempted"), "?" unknown. */
ETWFORGE_API const char *etwforge_wait_reason_name(unsigned reason);

/** etwforge_thread_state_name - KTHREAD_STATE @state's name ("Ready"), "?" unknown. */
ETWFORGE_API const char *etwforge_thread_state_name(unsigned state);

/* ---- fit: a scenario that looks like a trace (`etwforge fit`) ------------- */

/* What etwforge_fit_new() renames (struct etwforge_fit_opts @anonymize). */
enum etwforge_anonymize {
	ETWFORGE_ANONYMIZE_NONE = 0,  /* the trace's names, command lines, paths, PDB identities */
	ETWFORGE_ANONYMIZE_NAMES = 1, /* pseudonyms; names every Windows machine has kept */
	ETWFORGE_ANONYMIZE_ALL = 2,   /* pseudonyms for every name */
};

/**
 * struct etwforge_fit_opts - how etwforge_fit_new() fits.
 * Declare it with ETWFORGE_OPTS(etwforge_fit_opts, o, ...); NULL is the
 * defaults.
 * @sz:           sizeof(struct etwforge_fit_opts) (see "Growth" at the top)
 * @anonymize:    an enum etwforge_anonymize: with NAMES or ALL no string of
 *                the trace reaches the scenario (process, image and thread
 *                names become pseudonyms in the order first met: proc1.exe,
 *                mod1.dll, thread1; command lines, paths, the logger's
 *                name, start time and PDB identities are left to gen, which
 *                derives them from the pseudonyms and the seed; IDs are
 *                gen's own). NAMES keeps the names of a stock Windows
 *                machine (System, svchost.exe, ntoskrnl.exe, ntdll.dll ...)
 * @progress:     called now and then with the share of the trace read so
 *                far (0..1), and with 1 at the end; NULL never
 * @progress_ctx: its first argument
 */
struct etwforge_fit_opts {
	size_t sz;
	unsigned anonymize;
	void (*progress)(void *ctx, double done);
	void *progress_ctx;
};

struct etwforge_fit;

/**
 * etwforge_fit_new - read @f in full (one analysis) and make the scenario
 * (etwforge-scenario(5)) that etwforge gen runs into a trace like it: the
 * machine and session of its header and events, its processes, a thread
 * group per process (two where some threads ran and others only waited;
 * at most 64) with the run bursts, waits, spreads and wait reasons its
 * context switches show (from samples alone: the CPU share; from the
 * rundown alone: threads that wait), the images its samples land in with
 * their functions, and each group's hot functions. What the scenario
 * language cannot say is named in comments of the YAML. The scenario is
 * checked: it loads as gen would load it. Damage: as
 * etwforge_analysis_run() (the file's keep-going flag). The same file and
 * options give the same bytes.
 * Return: the fit (free it with etwforge_fit_free()), or NULL with errno
 * and @err: EINVAL (@opts refused: INPUT; damage: DATA), ENOMEM.
 */
ETWFORGE_API struct etwforge_fit *etwforge_fit_new(struct etwforge_file *f,
						   const struct etwforge_fit_opts *opts,
						   struct etwforge_error *err);

/** etwforge_fit_yaml - the scenario as YAML with its comments, owned by @fit. */
ETWFORGE_API const char *etwforge_fit_yaml(const struct etwforge_fit *fit);

/** etwforge_fit_json - the same scenario as one JSON object (no comments), owned by @fit. */
ETWFORGE_API const char *etwforge_fit_json(const struct etwforge_fit *fit);

/** etwforge_fit_free - NULL is a no-op. */
ETWFORGE_API void etwforge_fit_free(struct etwforge_fit *fit);

/* ---- the fuzzing corpus (`etwforge corpus`) ------------------------------- */

/**
 * struct etwforge_corpus_opts - what etwforge_corpus_write() makes.
 * Declare it with ETWFORGE_OPTS(etwforge_corpus_opts, o, ...).
 * @sz:       sizeof(struct etwforge_corpus_opts) (see "Growth" at the top)
 * @seed:     what the edge cases leave free (thread ids, priorities, PMC
 *            values, addresses) comes from it, 1..2^63-1 (larger: -EINVAL);
 *            0 = the default, 1. The same seed and
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
