/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/stacks.h - the call stacks of a file's events
 * (stacks.c): its stack records gathered in the identity's pass, each
 * cached stack's key resolved to its definition, and the parts of one
 * event joined into one stack:
 *
 *   event (ts T, thread t)        the sample, switch, load ... logged at T
 *     StackWalk {T, t, frames}     a part: all kernel or all user frames
 *     StackKeyKernel {T, t, key}   a part whose frames are the key's
 *       ... KeyDelete/KeyRundown {key, frames}: the first definition of
 *           that key at or after the reference (keys are used again)
 *     StackKeyUser {T, t, key}     the user part, perhaps much later and
 *                                  on another CPU (taken when the thread
 *                                  returned to user mode)
 *   => the event's stack: its kernel frames, then its user frames,
 *      innermost first, found by (T, t)
 *
 * The frames of parts and of joined stacks are kept once each (interned):
 * memory grows with the stack records and the distinct stacks.
 */
#ifndef TOOLS_LIB_ANALYSIS_STACKS_H
#define TOOLS_LIB_ANALYSIS_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tools/lib/analysis/images.h"

/* The event kinds the stacks take from the identity's pass. */
#define AN_STACK_KINDS ETWFORGE_EV_STACKS

/* struct an_runs - runs of frames, each kept once: its number is its identity. */
struct an_run {
	size_t off;	 /* in @pool */
	uint32_t n;	 /* frames */
	uint32_t kernel; /* joined stacks: how many of them are the kernel part */
	uint64_t hash;
};

struct an_runs {
	uint64_t *pool;
	size_t npool, cap_pool;
	struct an_run *v;
	size_t n, cap;
	uint32_t *slots; /* open addressing: run + 1, 0 empty */
	size_t nslots;
};

/*
 * struct an_stack_event - an event's stack.
 * @stack:  its joined stack (a run of @stacks)
 * @kernel/@user: it has a kernel part / a user part
 */
struct an_stack_event {
	uint64_t event_ts;
	uint32_t tid;
	uint32_t pid;
	uint32_t stack;
	bool kernel, user;
};

struct an_part;
struct an_def;

/*
 * struct an_stacks - the stacks of a file.
 * @parts/@joined: the frames of parts and of joined stacks
 * @ev:        every event's stack, by (event time, thread)
 * @samples:   per joined stack: samples whose stack it is (the pass adds)
 * @records:   StackWalk and key references; @defs key definitions;
 *             @unresolved references no definition resolves; @empty
 *             StackWalks without a frame
 * @frames/@frames_in_image: of the events' stacks, and of them those an
 *             image of the stack's process or the kernel maps
 */
struct an_stacks {
	struct an_runs parts, joined;
	struct an_stack_event *ev;
	size_t nev;
	uint64_t *samples;
	struct an_part *p;
	size_t np, cap_p;
	struct an_def *d;
	size_t nd, cap_d;
	uint64_t kernel_at;
	uint64_t records, defs, unresolved, empty;
	uint64_t frames, frames_in_image;
};

/** an_stacks_init - empty, for addresses whose kernel part starts at @kernel_at. */
void an_stacks_init(struct an_stacks *st, uint64_t kernel_at);

/** an_stacks_note - keep a stack event of the identity's pass. Return: 0, -ENOMEM. */
int an_stacks_note(struct an_stacks *st, const struct etwforge_event *ev, size_t seq);

/**
 * an_stacks_finish - resolve the keys, join each event's parts, and map
 * every frame with @im (each image row's @frames counted).
 * Return: 0, or -ENOMEM.
 */
int an_stacks_finish(struct an_stacks *st, struct an_images *im);

/** an_stack_of - the stack of the event at @event_ts of thread @tid, NULL none. */
const struct an_stack_event *an_stack_of(const struct an_stacks *st, uint64_t event_ts,
					 uint32_t tid);

/** an_run_frames - the frames of run @i of @r (*@n of them). */
const uint64_t *an_run_frames(const struct an_runs *r, uint32_t i, size_t *n);

/** an_stacks_free - free everything. */
void an_stacks_free(struct an_stacks *st);

#endif /* TOOLS_LIB_ANALYSIS_STACKS_H */
