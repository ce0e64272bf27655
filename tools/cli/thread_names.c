// SPDX-License-Identifier: MIT
/*
 * tools/cli/thread_names.c - thread names for the pictures (see thread_names.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "thread_names.h"

const char *thread_name(const struct thread_names *names, uint32_t tid, char *buf, size_t cap)
{
	const char *group = names ? etwforge_names_group(names->groups, tid) : NULL;

	if (tid == 0) {
		snprintf(buf, cap, "Idle");
	} else if (group) {
		snprintf(buf, cap, "%s %" PRIu32, group, tid);
	} else {
		if (names && names->groups && names->unnamed) {
			++*names->unnamed;
		}
		if (names && !names->groups && identity_label(names->ident, tid, buf, cap)) {
			return buf;
		}
		snprintf(buf, cap, "TID %" PRIu32, tid);
	}
	return buf;
}
