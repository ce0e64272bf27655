// SPDX-License-Identifier: MIT
/* tools/lib/scenario/scenario_ident.c - TEMPORARY until the scenario's processes land. */
#include <stdio.h>

#include "tools/lib/scenario/scenario.h"

void scenario_ident(const struct scenario *sc, struct ident_cfg *ic)
{
	ident_cfg_defaults(ic);
	for (unsigned i = 0; i < sc->trace.nsessions; i++) {
		unsigned f = sc->trace.sessions[i].flags;

		ic->proc_thread |= (f & PRODUCER_F_PROC_THREAD) != 0;
		ic->dispatcher |= (f & PRODUCER_F_DISPATCHER) != 0;
		ic->profile |= (f & PRODUCER_F_PROFILE) != 0;
	}
	ic->sysconfig = true;
	ic->ptr64 = sc->trace.arch == ETL_ARCH_X64;
	ic->names_in_thread_records = sc->trace.target->thread_name;
	for (unsigned g = 0; g < sc->sched.ngroups && ic->nprocesses < IDENT_MAX_PROCESSES; g++) {
		struct ident_process *p = &ic->processes[ic->nprocesses];

		p->image = sc->sched.groups[g].name;
		p->pid = 0x200u + 4u * g;
		p->ppid = 4;
		p->session = 1;
		p->sid = "S-1-5-21-1004336348-1177238915-682003330-1001";
		p->exit_ns = IDENT_NO_EXIT;
		ic->group_process[g] = (uint16_t)ic->nprocesses++;
	}
}
