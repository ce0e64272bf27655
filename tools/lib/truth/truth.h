/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth.h - the truth / replay stream (JSON Lines, DESIGN.md schema,
 * exact field names): write what the engine consumed, read it back line by
 * line with `file:line: what is wrong` errors. Streaming both ways: one
 * line in memory at a time.
 */
#ifndef TOOLS_LIB_TRUTH_H
#define TOOLS_LIB_TRUTH_H

#include <stdio.h>

#include "producer/trace_sink.h"
#include "tools/lib/common/error.h"
#include "tools/lib/truth/truth_kinds.h"
#include "tools/lib/config/trace_config.h"

/* ---- writing ------------------------------------------------------------ */

/**
 * truth_write_meta - line 1. Writes every meta field of DESIGN.md plus the
 * extensions etwforge reads back (boot_time, start_ts, flush_at_end,
 * pebs_and_pmc, per-session pool_buffers/flush_latency).
 * Return: 0 or -EIO.
 */
int truth_write_meta(FILE *f, const struct trace_config *cfg);

/**
 * truth_write_cswitch - one "cswitch" line, keys in DESIGN.md's order; "ts"
 * holds each clock in use (qpc, systime, cycles); "pmc" is the list of the
 * stamping sessions' counter values when they all list the same counters,
 * an object keyed by session name otherwise, and absent when no session
 * stamps; "pebs_index" only when a session has PEBS. A session stamps
 * switches when its pmc.events lists the hook it logs them with (0x0525 for
 * a compact session, else 0x0524 with the cswitch flag) and it has
 * counters; it stamps spin locks with the spinlock flag and 0x0529.
 * Return: 0 or -EIO.
 */
int truth_write_cswitch(FILE *f, const struct trace_config *cfg, const struct sim_cswitch *cs);
/** truth_write_spinlock - one "spinlock" line (addresses as "0x..." strings). */
int truth_write_spinlock(FILE *f, const struct trace_config *cfg, const struct sim_spinlock *sl);
/** truth_write_record - one identity or rundown line ("process", "thread", ...). */
int truth_write_record(FILE *f, const struct trace_config *cfg, const struct sim_record *r);
/** truth_write_ccswap_stop - extension line {"kind":"ccswap_stop","tick","ts","clock"}. */
int truth_write_ccswap_stop(FILE *f, const struct trace_config *cfg,
			    const struct sim_ccswap_stop *st);
/** truth_write_end - the "end" line. */
int truth_write_end(FILE *f, const struct trace_config *cfg, const struct sim_end *end);

struct truth_wbuf;

/**
 * struct truth_writer - writes every record as truth, for `gen --truth`
 * (tee its sink in front of the producer).
 * @f:   the stream
 * @cfg: the configuration the lines follow
 * @wb:  truth_writer_init's buffer (only truth_writer_* and
 *       truth_writer_sink() use it; truth_sink() needs @f and @cfg alone)
 */
struct truth_writer {
	FILE *f;
	const struct trace_config *cfg;
	struct truth_wbuf *wb;
};

/**
 * truth_sink - a sink that writes each record line to @w->f as it comes
 * (@w->f and @w->cfg set by hand are enough).
 */
struct trace_sink truth_sink(struct truth_writer *w);

/**
 * truth_writer_init - a writer that gathers lines in a 1 MiB buffer and
 * hands them to @f in blocks, at the "end" record and truth_writer_flush().
 * What decides "pmc", "pebs_index" and the spin-lock counters is read from
 * @cfg once, at the first switch or spin lock. Lines written straight to
 * @f (the meta line) must come before the first buffered one, or after a
 * flush. Free it with truth_writer_finish().
 * Return: 0 or -ENOMEM.
 */
int truth_writer_init(struct truth_writer *w, FILE *f, const struct trace_config *cfg);
/** truth_writer_sink - the sink of a writer from truth_writer_init(): lines through its buffer. */
struct trace_sink truth_writer_sink(struct truth_writer *w);
/** truth_writer_flush - hand the buffered lines to @f (not fflush). Return: 0 or -EIO. */
int truth_writer_flush(struct truth_writer *w);
/*
 * A writer initialized with @f NULL keeps every line in its buffer (it
 * grows); truth_writer_flush_to() hands them to @f and empties it (gen
 * --jobs: lines made by several threads, written in order by one).
 */
int truth_writer_flush_to(struct truth_writer *w, FILE *f);
/**
 * truth_writer_finish - free the buffer (unflushed lines are dropped); a
 * writer that was zeroed and never initialized, or NULL, is a no-op.
 */
void truth_writer_finish(struct truth_writer *w);

/* ---- reading ------------------------------------------------------------ */

/* TRUTH_EOF, then a kind per row of TRUTH_KINDS (truth_kinds.h). */
#define TRUTH_KIND_ENUM(kind, ENUM, ...) TRUTH_##ENUM,
enum truth_kind { TRUTH_EOF = 0, TRUTH_KINDS(TRUTH_KIND_ENUM) };

/** struct truth_record - one decoded line; @line is its 1-based number. */
struct truth_record {
	enum truth_kind kind;
	unsigned long line;
#define TRUTH_KIND_MEMBER(kind, ENUM, ctype, u, ...) ctype u;
	union {
		TRUTH_KINDS(TRUTH_KIND_MEMBER)
	} u;
};

struct truth_reader;

/**
 * truth_open - open @path ("-" = stdin, "<stdin>" in messages), read and
 * validate the meta line into @cfg (trace_config_defaults() first, then
 * the line's values, then trace_config_check()). Only "kind" ("meta"),
 * "format" ("etwforge-truth") and "version" (1) are required. "target"
 * also sets max_wait_reason unless that is given; "start_time" moves
 * boot_time with it unless that is given. A session's "name" defaults to
 * "NT Kernel Logger" (first) or "etwforge session N", "clock" to "qpc",
 * "flags" to ["cswitch","compact_cswitch"], "buffer_size" to 65536, "file"
 * to "" (the command line fills it). "start_ts", when present, needs every
 * clock in use. @cfg is copied: changing it later does not affect reading.
 * Return: the reader, or NULL with errno set and @err = "path:1: what is
 * wrong" ("path: strerror" when the file cannot be opened), its code
 * -EINVAL and its kind ERR_INPUT whatever failed, located.
 */
struct truth_reader *truth_open(const char *path, struct trace_config *cfg,
				struct etwforge_error *err);

/**
 * truth_open_mem - truth_open() over the @len bytes of @text (borrowed until
 * truth_close()), named @name in messages.
 */
struct truth_reader *truth_open_mem(const char *name, const char *text, size_t len,
				    struct trace_config *cfg, struct etwforge_error *err);

/**
 * truth_next - the next record. Validates field presence, types and ranges
 * (cpu < cpus, priorities 0..31, state 0..10, wait reason below the target's
 * MaximumWaitReason when Waiting, wait mode 0/1, QoS 0..7, a ts for every
 * clock in use, ...) and that each CPU's tick and timestamps never go
 * backwards. After the "end" line only EOF may follow. A stream without an
 * "end" line gets one at EOF (tick and ts = the largest seen; @line = the
 * line after the last).
 *
 * Required keys: cswitch: cpu, tick, ts, old_tid, new_tid; spinlock: cpu,
 * ts, lock, caller, logged; ccswap_stop: clock. Every other key defaults to
 * 0 / false, except: spinlock "tick" = the CPU's last tick, "depth" = 1,
 * "why" = "none"; ccswap_stop and end "tick"/"ts" = the largest seen so far.
 * "pmc" (list or per-session object, as written) is optional, absent
 * counters are 0. Keys DESIGN.md does not name are ignored; an unknown
 * clock inside "ts" is an error. Integers must be JSON integers (1.0 is
 * not); unsigned 64-bit values are limited to 2^63-1 (jansson).
 * Empty or whitespace-only lines are allowed only at the end of the stream.
 * Syntax errors are "path:line:column: jansson's message". A line with
 * several faults is named by the first in its kind's table order
 * (truth_kinds.h).
 * Return: the kind (TRUTH_EOF at the end), or -EINVAL with @err =
 * "path:line: what is wrong" (ERR_INPUT, located; filled on the error path
 * only, so the line costs what it did).
 */
int truth_next(struct truth_reader *r, struct truth_record *rec, struct etwforge_error *err);

/** truth_close - NULL is a no-op. */
void truth_close(struct truth_reader *r);

#endif /* TOOLS_LIB_TRUTH_H */
