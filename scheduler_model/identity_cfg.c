// SPDX-License-Identifier: MIT
/* scheduler_model/identity_cfg.c - TEMPORARY: replaced by the scenario branch's. */
#include <errno.h>
#include <string.h>

#include "scheduler_model/identity.h"

void ident_cfg_defaults(struct ident_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->profile_interval = IDENT_PROFILE_DEFAULT_100NS;
	c->memory_mb = 16384;
	c->computer_name = "ETWFORGE";
	c->nprocesses = 2;
	c->processes[IDENT_IDLE] = (struct ident_process){
		.image = "Idle", .pid = 0, .session = IDENT_NO_SESSION, .exit_ns = IDENT_NO_EXIT};
	c->processes[IDENT_SYSTEM] = (struct ident_process){
		.image = "System", .pid = 4, .session = IDENT_NO_SESSION, .exit_ns = IDENT_NO_EXIT};
	for (unsigned g = 0; g < SCHED_MAX_GROUPS; g++) {
		c->group_process[g] = IDENT_SYSTEM;
	}
}

int ident_cfg_check(const struct ident_cfg *c, unsigned ngroups, const char **why)
{
	for (unsigned g = 0; g < ngroups; g++) {
		if (c->group_process[g] >= c->nprocesses) {
			*why = "a group's process is out of range";
			return -EINVAL;
		}
	}
	return 0;
}
