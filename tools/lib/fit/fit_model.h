/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fit/fit_model.h - what the files of the fit room share: the
 * trace as fit reads it (its processes, threads and images, from the
 * analysis tables), and the parts of the scenario each file writes.
 *
 *   fit.c         the pass, the machine, the sessions, the processes; the
 *                 whole document and its header
 *   fit_groups.c  threads into at most 64 groups, each group's run bursts,
 *                 waits, spreads, wait reasons, behaviour and name
 *   fit_images.c  sampled addresses into images and functions, the images
 *                 listed (at most 64) and each group's hot functions
 *   fit_stacks.c  the stacks: events and samples with one, their depths
 *   fit_locks.c   spin-lock families from the logged releases
 */
#ifndef TOOLS_LIB_FIT_FIT_MODEL_H
#define TOOLS_LIB_FIT_FIT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tools/lib/fit/fit_doc.h"
#include "tools/lib/fit/fit_names.h"
#include "tools/lib/fit/fit_stacks.h"

#define FIT_MAX_GROUPS 64u /* threads[]: the language's limit */
#define FIT_MAX_PROCESSES                                                                          \
	80u		   /* processes[]: 128 in the language, but gen maps 4096 images in
				 * all and a lived-in process has up to 69 */
#define FIT_MAX_IMAGES 64u /* processes[].images and drivers, in all */
#define FIT_MAX_FNS    32u /* functions of an image */
#define FIT_MAX_HOT    16u /* threads[].hot entries */
#define FIT_NAME       72u /* a process's name or image, with its NUL */
#define FIT_WAITS      64u /* wait reasons counted (KWAIT_REASON is 6 bits) */

/* Where a trace's CPU use is read from. */
enum fit_source {
	FIT_FROM_SWITCHES, /* context switches: bursts, waits, wait reasons */
	FIT_FROM_SAMPLES,  /* SampledProfile only: CPU share per thread */
	FIT_FROM_RUNDOWN,  /* neither: who exists, not what they do */
};

/* One thread of the trace (a thread row of the analysis). */
struct fit_thread {
	size_t row;
	size_t proc;	  /* its struct fit_proc */
	uint64_t cpu_ns;  /* time it ran (from samples where the trace has no switch) */
	uint64_t vol;	  /* switch-outs in state Waiting: the ends of its bursts of work */
	uint64_t samples; /* its SampledProfile events */
	double life_ns;	  /* its time in the trace */
	double exposure;  /* of it, off CPU (ns) */
	bool at_start;	  /* alive when its process began in the trace (or the trace did) */
	bool ran;	  /* it ran or was sampled */
	unsigned cls;	  /* FIT_BUSY, FIT_RAN, FIT_IDLE or FIT_CHURN */
	int64_t mid_ns;	  /* the middle of its life in the trace: where its samples are placed */
	size_t group;	  /* its group, SIZE_MAX none */
};

/* One process of the trace (System has one even without a Process record). */
struct fit_proc {
	int64_t row; /* analysis process row, -1 none */
	bool system; /* PID 4: its groups go in System */
	uint32_t pid, ppid;
	int64_t start_ns, end_ns; /* from the session start; INT64_MIN / INT64_MAX: beyond it */
	char name[FIT_NAME];	  /* the scenario's name (unique), out of fit_names */
	char image[FIT_NAME];	  /* its image, out of fit_names */
	const char *image_in;	  /* its image as the trace says it (owned by the analysis) */
	uint64_t cpu_ns;
	size_t nthreads, nran;
	bool listed;		 /* in processes[] */
	size_t first;		 /* its threads: fit->order[first .. first + nthreads) */
	struct fit_node *node;	 /* its map in processes[], NULL not listed */
	struct fit_node *images; /* its images list, NULL none yet */
};

/* The classes of a process's threads a group may hold (struct fit_group @mask). */
enum {
	FIT_BUSY = 1u,	/* ran 1 % of its time or more */
	FIT_RAN = 2u,	/* ran (or was sampled), less */
	FIT_IDLE = 4u,	/* never ran in the trace */
	FIT_CHURN = 8u, /* began and ended in the trace (any of the above) */
	FIT_ALL = 15u,
};

/* One thread group of the scenario: the threads of a process of some classes, or one thread. */
struct fit_group {
	char name[FIT_NAME + 16]; /* as written (fit_groups_write) */
	size_t proc;
	unsigned mask; /* FIT_BUSY | FIT_RAN | FIT_IDLE | FIT_CHURN */
	size_t single; /* the one thread of a group of its own, SIZE_MAX none */
	unsigned nth;  /* a single's number among its process's singles (its name) */
};

/* What the pass saw of a thread row beyond the analysis's table: where it ran, at what priority. */
struct fit_locks; /* fit_locks.h */

struct fit_seen {
	uint64_t cpus;	   /* CPUs 0..63 it ran or was sampled on */
	bool wide;	   /* on a CPU past 63 */
	uint32_t items;	   /* its slices and samples */
	uint32_t moves;	   /* items on another CPU than its item before */
	unsigned last_cpu; /* its last item\'s, UINT_MAX none */
	uint32_t prio[32]; /* its samples by priority (the sample's Flags) */
};

/* A sampled address placed in an image: thread, image row, offset, samples. */
struct fit_hit {
	size_t thread;
	size_t image; /* struct fit_image, SIZE_MAX none listed */
	uint64_t off;
	uint64_t n;
	unsigned fn; /* its function in the image, UINT32_MAX none kept */
};

struct fit_fn {
	uint32_t rva, size;
	uint64_t samples;
};

/* One image listed (processes[].images or drivers). */
struct fit_image {
	size_t row;  /* analysis image row (the first of its name in its process) */
	size_t proc; /* struct fit_proc, SIZE_MAX a kernel module */
	char name[64];
	uint64_t samples;
	struct fit_fn fn[FIT_MAX_FNS];
	unsigned nfn;
	uint64_t fn_dropped; /* samples of functions past FIT_MAX_FNS */
};

struct fit_opts;

struct fit {
	struct etwforge_file *f;
	struct etwforge_analysis *a;
	const struct etwforge_file_info *info;
	const struct etwforge_analysis_totals *tot;
	const struct fit_opts *o;
	struct fit_names names;
	enum fit_source source;
	int64_t from_ns, to_ns; /* the trace's span */
	int64_t last_ns;	/* the last slice or sample's end, INT64_MIN none */
	unsigned max_wait_reason;
	struct fit_thread *th;
	size_t nth;
	size_t *order; /* thread indexes by process */
	struct fit_proc *pr;
	size_t npr;
	struct fit_group grp[FIT_MAX_GROUPS];
	size_t ngrp;
	struct fit_image img[FIT_MAX_IMAGES];
	size_t nimg;
	size_t images_in_trace; /* distinct (process, name) of the image table */
	struct fit_hit *hits;
	size_t nhits, hcap;
	uint64_t unplaced;     /* samples of grouped threads in no image */
	struct fit_stacks stk; /* the stack tally (the analysis joins none: flat memory) */
	struct fit_seen *seen; /* by thread row, @nseen of them */
	size_t nseen;
	struct fit_locks *locks;
	struct fit_node *root;
};

#endif /* TOOLS_LIB_FIT_FIT_MODEL_H */
