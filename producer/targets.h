/* SPDX-License-Identifier: MIT */
/*
 * producer/targets.h - the Windows builds etwforge can pretend to be: what
 * differs between them for the events we write (KERNEL_FACTS 4.2, 5.3, 7;
 * RUNDOWN_FACTS 1.2 for the process and thread records).
 */
#ifndef PRODUCER_TARGETS_H
#define PRODUCER_TARGETS_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct etw_target - one target build.
 * @name:             "win10-1709"
 * @build:            ProviderVersion (OS build number)
 * @os_major/@os_minor: logfile Version bytes 0 and 1
 * @max_wait_reason:  MaximumWaitReason = the CCSWAP OldThreadStateWr bias
 * @cswitch_version:  0x0524 event version
 * @kernel_event_version: the 0x0005 header extension's version
 * @defunct_version:  Process Defunct 0x0327: 4, or 5 with ExitTime
 * @thread_version:   Thread 0x0501-0x0504 marker version (3)
 * @thread_name:      v3 thread records carry the trailing ThreadName (the
 *                    18362 form); v4 always does
 * @image_version:    Image 0x030A/0x1402-0x1404 marker version: 2 (the
 *                    9200 form) or 3 (18362: the signature bytes)
 */
struct etw_target {
	const char *name;
	uint32_t build;
	uint8_t os_major;
	uint8_t os_minor;
	uint8_t max_wait_reason;
	uint8_t cswitch_version;
	uint32_t kernel_event_version;
	uint8_t defunct_version;
	uint8_t thread_version;
	bool thread_name;
	uint8_t image_version;
};

/** etw_target_find - by name. Return: the target or NULL. */
const struct etw_target *etw_target_find(const char *name);

/** etw_target_by_build - the newest known target whose build is <= @build (NULL if none). */
const struct etw_target *etw_target_by_build(uint32_t build);

/** etw_target_at - the @i-th known target, NULL past the end (for listings). */
const struct etw_target *etw_target_at(unsigned i);

#endif /* PRODUCER_TARGETS_H */
