// SPDX-License-Identifier: MIT
/*
 * scheduler_model/identity_cfg.c - the identity model's configuration
 * (identity.h): its defaults (Idle and System in place, nothing fired) and
 * the rules a scenario must keep before the model may run it. The model
 * itself is identity.c; this file needs nothing of it.
 */
#include <errno.h>
#include <string.h>

#include "scheduler_model/identity.h"

/* PIDs and TIDs share the client-ID space: our TIDs start at SCHED_FIRST_TID. */
#define PID_LIMIT SCHED_FIRST_TID

void ident_cfg_defaults(struct ident_cfg *c)
{
	struct ident_process *idle = &c->processes[IDENT_IDLE];
	struct ident_process *sys = &c->processes[IDENT_SYSTEM];

	memset(c, 0, sizeof(*c));
	c->sysconfig = false;
	c->profile_interval = IDENT_PROFILE_DEFAULT_100NS;
	c->memory_mb = 16384;
	c->computer_name = "ETWFORGE";
	c->nprocesses = 2;
	idle->image = "Idle";
	idle->pid = 0;
	idle->ppid = 0;
	idle->session = IDENT_NO_SESSION;
	idle->sid = "S-1-5-18";
	idle->exit_ns = IDENT_NO_EXIT;
	sys->image = "System";
	sys->pid = 4;
	sys->ppid = 0;
	sys->session = IDENT_NO_SESSION;
	sys->sid = "S-1-5-18";
	sys->exit_ns = IDENT_NO_EXIT;
	for (unsigned g = 0; g < SCHED_MAX_GROUPS; g++) {
		c->group_process[g] = IDENT_SYSTEM;
	}
}

/* Non-empty and 7-bit: ImageFileName is an ANSI string. */
static bool image_ok(const char *image)
{
	if (!image || !image[0]) {
		return false;
	}
	for (const unsigned char *p = (const unsigned char *)image; *p; p++) {
		if (*p >= 0x80) {
			return false;
		}
	}
	return true;
}

/* The rules of one process @i (Idle and System keep their fixed PIDs). */
static const char *process_problem(const struct ident_cfg *c, unsigned i)
{
	const struct ident_process *p = &c->processes[i];

	if (i == IDENT_IDLE && p->pid != 0) {
		return "the Idle process must have PID 0";
	}
	if (i == IDENT_SYSTEM && p->pid != 4) {
		return "the System process must have PID 4";
	}
	if (i > IDENT_SYSTEM && (p->pid == 0 || p->pid == 4)) {
		return "PIDs 0 and 4 are Idle's and System's";
	}
	if (p->pid % 4) {
		return "a PID must be a multiple of 4";
	}
	if (p->pid >= PID_LIMIT) {
		return "a PID must be below 4096 (the first thread ID)";
	}
	if (!image_ok(p->image)) {
		return "an image name must be non-empty 7-bit ASCII (an ANSI string)";
	}
	if (p->exit_ns != IDENT_NO_EXIT && p->exit_ns <= p->start_ns) {
		return "a process must exit after it starts";
	}
	for (unsigned j = 0; j < i; j++) {
		if (c->processes[j].pid == p->pid) {
			return "two processes have the same PID";
		}
	}
	return NULL;
}

int ident_cfg_check(const struct ident_cfg *c, unsigned ngroups, const char **why)
{
	const char *w = NULL;

	if (c->nprocesses < 2 || c->nprocesses > IDENT_MAX_PROCESSES) {
		w = "processes must be Idle, System and at most 128 more";
	} else if (ngroups > SCHED_MAX_GROUPS) {
		w = "too many thread groups";
	} else if (c->profile_interval < IDENT_PROFILE_MIN_100NS ||
		   c->profile_interval > IDENT_PROFILE_MAX_100NS) {
		w = "the profile interval must be 1221..10000000 (100-ns units: 0.1221 ms to 1 s)";
	} else if (!c->computer_name || !c->computer_name[0]) {
		w = "the computer name must not be empty";
	}
	for (unsigned i = 0; !w && i < c->nprocesses; i++) {
		w = process_problem(c, i);
	}
	for (unsigned g = 0; !w && g < ngroups; g++) {
		if (c->group_process[g] == IDENT_IDLE || c->group_process[g] >= c->nprocesses) {
			w = "a thread group's process must be System or one of the scenario's";
		}
	}
	if (why) {
		*why = w;
	}
	return w ? -EINVAL : 0;
}
