// SPDX-License-Identifier: MIT
/*
 * producer/targets.c - the table of target builds.
 *
 * MaximumWaitReason per build: 39 in the original Windows 10 (Geoff, D-A),
 * 40 from 1709 (D-B), 43 in the newest build read (D-C, phnt's enum); see
 * KERNEL_FACTS 5.3. CSwitch is version 2 up to 1607 and 4 from 1709 (4.2).
 * Kernel event versions from KERNEL_FACTS 7: 60 (1511), 65 (1607-1803),
 * 70 (1809-1903), 80 (2004; used for 22H2 too, later values unknown).
 *
 * Process and thread records (RUNDOWN_FACTS 1.2, 3.3): only 9200 (Win8) and
 * 18362 were observed. Defunct 0x0327 is v4 on 9200 and v5 (+ExitTime) on
 * 18362; thread records are v3 on both, 18362 appending ThreadName. Where
 * the build switched is unknown; our choice: the 9200 forms (Defunct v4, no
 * name) up to 1709, the 18362 forms from 1903 on, 22H2 included (Thread v4
 * is the newest class known, but the strictest reader keys on v3).
 * Image records (STACK_IMAGE_FACTS 2.2) are v2 on 9200 and v3 on 18362 (the
 * signature bytes); the same split: v2 up to 1709, v3 from 1903 on.
 */
#include <stddef.h>
#include <string.h>

#include "producer/targets.h"

static const struct etw_target targets[] = {
	/* clang-format off */
	/* name         build  major minor mwr cs  kev defunct thread name image */
	{"win10-1507", 10240, 10, 0, 39, 2, 60, 4, 3, false, 2},
	{"win10-1607", 14393, 10, 0, 39, 2, 65, 4, 3, false, 2},
	{"win10-1709", 16299, 10, 0, 40, 4, 65, 4, 3, false, 2},
	{"win10-1903", 18362, 10, 0, 40, 4, 70, 5, 3, true, 3},
	{"win11-22h2", 22621, 10, 0, 43, 4, 80, 5, 3, true, 3},
	/* clang-format on */
};

#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

const struct etw_target *etw_target_find(const char *name)
{
	for (size_t i = 0; i < NTARGETS; i++) {
		if (!strcmp(targets[i].name, name)) {
			return &targets[i];
		}
	}
	return NULL;
}

const struct etw_target *etw_target_by_build(uint32_t build)
{
	const struct etw_target *best = NULL;

	for (size_t i = 0; i < NTARGETS; i++) {
		if (targets[i].build <= build) {
			best = &targets[i];
		}
	}
	return best;
}

const struct etw_target *etw_target_at(unsigned i)
{
	return i < NTARGETS ? &targets[i] : NULL;
}
