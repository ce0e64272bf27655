/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_rundown.h - the group-mask records that frame a rundown in
 * the data buffers (RUNDOWN_FACTS 7.2): 0x0005 (the new masks) and 0x0020
 * (the previous masks) carry ETW_KERNEL_HEADER_EXTENSION, 0x0008 (rundown
 * complete) no payload. The same on x86 and x64.
 */
#ifndef PRODUCER_ETW_RUNDOWN_H
#define PRODUCER_ETW_RUNDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"

/**
 * struct etw_group_masks - ETW_KERNEL_HEADER_EXTENSION.
 * @masks:   PERFINFO_GROUPMASK, Masks[0..7]
 * @version: the kernel event version (etw_target.kernel_event_version)
 */
struct etw_group_masks {
	uint32_t masks[ETW_GROUP_MASKS];
	uint32_t version;
};

/** etw_encode_group_masks - 0x24 bytes. Return: 0x24 or -ENOSPC. */
int etw_encode_group_masks(uint8_t *buf, size_t cap, const struct etw_group_masks *g);
/** etw_decode_group_masks - Return: 0x24 or -EINVAL (short). */
int etw_decode_group_masks(const uint8_t *buf, size_t len, struct etw_group_masks *g);

#endif /* PRODUCER_ETW_RUNDOWN_H */
