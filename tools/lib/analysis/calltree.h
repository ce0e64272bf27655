/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/calltree.h - the call tree of the samples
 * (calltree.c): the pass counts each sample under (process, PID, stack,
 * IP), so memory grows with the distinct stacks sampled, not with the
 * samples; at the end the counts become a tree whose levels are the root,
 * the processes, then the frames from the outermost to the innermost,
 * merged by function name (where.h):
 *
 *   all ── Test.x64.exe (3676) ── ntdll.dll!RtlUserThreadStart ── ...
 *      └── Idle (0) ── ntoskrnl.exe!KiIdleLoop
 */
#ifndef TOOLS_LIB_ANALYSIS_CALLTREE_H
#define TOOLS_LIB_ANALYSIS_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tools/lib/analysis/identity.h"
#include "tools/lib/analysis/images.h"
#include "tools/lib/analysis/stacks.h"
#include "tools/lib/analysis/tables.h"

#define AN_PROC_IDLE (-2) /* the process of the idle thread's samples */

struct an_call_entry;

/*
 * struct an_calls - the samples by where they were, then the tree.
 * @e/@slots:   the entries (in the order first met) and their hash table
 * @nodes:      the tree once made (@built), node 0 the root
 */
struct an_calls {
	struct an_call_entry *e;
	size_t n, cap;
	uint32_t *slots;
	size_t nslots;
	struct etwforge_call_node *nodes;
	size_t nnodes, cap_nodes;
	struct an_text names;
	bool built;
};

/**
 * an_calls_add - one sample of process row @proc (AN_PROC_IDLE: the idle
 * thread's; -1 none) of @pid at @ts: its stack @stack (a run of the joined
 * stacks, UINT32_MAX none) and its @ip, which heads the frames when the
 * stack does not start with it. Return: 0, or -ENOMEM.
 */
int an_calls_add(struct an_calls *c, int64_t proc, uint32_t pid, uint32_t stack, uint64_t ip,
		 uint64_t ts);

/** an_calls_build - the tree of the samples added. Return: 0, or -ENOMEM. */
int an_calls_build(struct an_calls *c, const struct an_identity *id, const struct an_images *im,
		   const struct an_stacks *st);

/** an_calls_free - free everything. */
void an_calls_free(struct an_calls *c);

#endif /* TOOLS_LIB_ANALYSIS_CALLTREE_H */
