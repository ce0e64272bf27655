/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/identity.h - who each thread and process of a file is
 * (identity.c): the rows of the thread and process tables, made from the
 * file's Process, Thread and ThreadSetName records before anything else is
 * read, and the row of a TID at a time. A TID or PID reused is a new row:
 *
 *   a TID's records by time   Start ........ End   DCStart ... DCEnd
 *   its rows                  [row 1: start, end]  [row 2 ........... )
 *
 * A Start begins a row (ending the one before); an End ends the current
 * row (beginning one when none is open: the thread existed before the
 * trace); a rundown record (DCStart, DCEnd) or a rename names the current
 * row (beginning one after an End). A switch of a TID at a time no row
 * covers gets a row of its own for that gap, not named. Memory grows with
 * the threads and processes, not with the file.
 */
#ifndef TOOLS_LIB_ANALYSIS_IDENTITY_H
#define TOOLS_LIB_ANALYSIS_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tools/lib/analysis/clock.h"
#include "tools/lib/analysis/ip_counts.h"
#include "tools/lib/analysis/wake.h"
#include "tools/lib/common/id_map.h"

#define AN_REASONS 64 /* KWAIT_REASON: 6 bits in the compact form */
#define AN_STATES  16 /* KTHREAD_STATE */

/*
 * struct an_thread - a thread row: what every switch of it reads and
 * writes first (one cache line), then its public view (the accessor
 * refreshes its counts from the sums) and the rest.
 * @lo/@hi:    the timestamps it covers, inclusive
 * @next:      the same TID's next row by time, -1
 * @cpu_t:     clock units it ran; @ins its switch-ins; @samples its samples
 * @last_in:   COUNTS: the latest time it was switched in + 1 (0: never)
 * @named:     a Thread record names it (pub.named)
 * @out_ts:    FULL: switched out at this time and not back yet (@out)
 * @hist:      FULL: burst, wait and wake-up distributions (3 x 64)
 */
struct an_thread {
	uint64_t lo, hi;
	uint64_t cpu_t;
	uint64_t ins;
	uint64_t samples;
	uint64_t last_in;
	int64_t next;
	bool named;
	bool out;
	bool linked; /* its process row is looked up */
	uint64_t out_ts;
	struct etwforge_thread_row pub;
	char *name;
	uint64_t wait_t, wake_t, max_wait_t, max_burst_t;
	int base_pri; /* BasePriority of its Thread record, -1 none */
	uint64_t *hist;
	uint64_t *reasons;
	uint64_t *states;
	struct ip_counts ips;
};

/* struct an_process - a process row: its public view, its span, its strings. */
struct an_process {
	struct etwforge_process_row pub;
	uint64_t lo, hi;
	int64_t next;
	char *image;
	char *cmdline;
};

/*
 * struct an_tid - what is kept per TID.
 * @head:    its first row by time, -1 none yet
 * @hit:     the row found last (most lookups find it again)
 * @last_in: the latest time it was switched in (@has_in), on @last_cpu,
 *           for pairing
 * @wakes:   its ReadyThreads waiting for a switch-in (FULL)
 */
struct an_tid {
	int64_t head;
	int64_t hit;
	uint64_t last_in;
	unsigned last_cpu;
	bool has_in;
	struct wake_list wakes;
};

/** struct an_identity - the tables. */
/*
 * struct an_rundown - the start rundown as the file shows it: its Process
 * and Thread DCStart records, when (clock units), on how many CPUs, and how
 * many of them name a thread in their header (the controller's).
 */
struct an_rundown {
	uint64_t records;
	uint64_t lo, hi; /* the first's and the last's time (records > 0) */
	unsigned cpus;
	uint64_t with_context; /* header ThreadId or ProcessId not 0 */
};

struct an_identity {
	struct an_thread *threads;
	size_t nthreads, cap_threads;
	struct an_process *procs;
	size_t nprocs, cap_procs;
	size_t linked;	     /* threads with their process row found */
	struct id_map tids;  /* TID -> struct an_tid */
	struct id_map pids;  /* PID -> its first process row (int64_t) */
	uint64_t named_tids; /* distinct TIDs a Thread record names */
	uint64_t named_pids; /* distinct PIDs a Process record names */
	bool full;	     /* rows get distributions (FULL detail) */
	struct an_rundown rundown;
};

/**
 * struct an_more - what else the identity's one pass over a file reads: the
 * events of @kinds, and the Process events, each handed to @fn with its
 * place in the pass (@seq: CPU order, for events of one time).
 * @fn returns 0, or -ENOMEM to stop the pass.
 */
struct an_more {
	unsigned kinds;
	int (*fn)(void *ctx, const struct etwforge_event *ev, size_t seq);
	void *ctx;
};

/**
 * an_identity_load - the rows of @f's Process, Thread and ThreadSetName
 * records (zeroed @id), in one pass in CPU order that also hands @more
 * (NULL: nothing more) its events. With @keep_going, damage is skipped.
 * Return: 0; -ENOMEM; -EINVAL damage (@err).
 */
int an_identity_load(struct an_identity *id, struct etwforge_file *f, const struct an_clock *c,
		     bool full, bool keep_going, const struct an_more *more,
		     struct etwforge_error *err);

/** an_process_at - the process row of @pid at @ts, -1 none. */
int64_t an_process_at(const struct an_identity *id, uint32_t pid, uint64_t ts);

/**
 * an_thread_at - the row of TID @tid (not 0) at @ts, made for the gap when
 * no row covers it. Return: its index, -1 out of memory.
 */
int64_t an_thread_at(struct an_identity *id, uint32_t tid, uint64_t ts);

/** an_thread_of - as an_thread_at() for the TID whose struct an_tid is @e. */
int64_t an_thread_of(struct an_identity *id, struct an_tid *e, uint32_t tid, uint64_t ts);

/** an_thread_find - as an_thread_at() without making a row: -1 when none covers @ts. */
int64_t an_thread_find(const struct an_identity *id, uint32_t tid, uint64_t ts);

/** an_tid - what is kept of @tid, made when new. Return: it, NULL out of memory. */
struct an_tid *an_tid(struct an_identity *id, uint32_t tid);

/** an_thread_full - @t's distributions, made on first use. Return: 0, or -ENOMEM. */
int an_thread_full(struct an_thread *t);

/** an_identity_free - free the tables. */
void an_identity_free(struct an_identity *id);

#endif /* TOOLS_LIB_ANALYSIS_IDENTITY_H */
