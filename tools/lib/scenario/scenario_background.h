/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/scenario/scenario_background.h - the processes a Windows machine
 * has whatever it is used for (machine.background), added to a lived-in
 * scenario's own by scenario_finish().
 */
#ifndef TOOLS_LIB_SCENARIO_SCENARIO_BACKGROUND_H
#define TOOLS_LIB_SCENARIO_SCENARIO_BACKGROUND_H

#include <stdint.h>

#include "scheduler_model/sched.h"
#include "tools/lib/scenario/scenario_process.h"

/** enum scenario_background - machine.background. */
enum scenario_background {
	SCENARIO_BACKGROUND_NONE = 0,
	SCENARIO_BACKGROUND_DESKTOP,
	SCENARIO_BACKGROUND_SERVER,
};

/**
 * struct scenario_bg - what the background is added to.
 * @kind:       enum scenario_background
 * @seed:       the scenario's seed (PIDs, the interactive user's SID)
 * @nprocesses/@processes: the scenario's process list, grown in place
 * @sched:      its groups, grown in place (@group_x beside them)
 */
struct scenario_bg {
	int kind;
	uint64_t seed;
	unsigned *nprocesses;
	struct scenario_process *processes;
	struct sched_cfg *sched;
	struct scenario_group_x *group_x;
};

/**
 * scenario_background_add - the background of @b->kind into the lists:
 * each process of the list the scenario does not name (by name) with its
 * waiting threads as a group "NAME (background)", System's as one of
 * System's; a process the scenario names gains the group only. As far as
 * the limits on processes and groups leave room, in the list's order;
 * what is there already (a printed scenario read back) is not added again.
 * Return: the groups added.
 */
int scenario_background_add(const struct scenario_bg *b);

#endif /* TOOLS_LIB_SCENARIO_SCENARIO_BACKGROUND_H */
