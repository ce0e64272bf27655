// SPDX-License-Identifier: MIT
/*
 * tools/thread_names.c - thread names for the pictures (see thread_names.h:
 * the hook a truth's thread groups will fill).
 */
#include <inttypes.h>
#include <stdio.h>

#include "thread_names.h"

const char *thread_name(const struct thread_names *names, uint32_t tid, char *buf, size_t cap)
{
	(void)names; /* no source of names yet: the truth's thread groups will be one */
	if (tid == 0) {
		snprintf(buf, cap, "Idle");
	} else {
		snprintf(buf, cap, "TID %" PRIu32, tid);
	}
	return buf;
}
