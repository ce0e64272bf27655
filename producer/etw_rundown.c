// SPDX-License-Identifier: MIT
/*
 * producer/etw_rundown.c - ETW_KERNEL_HEADER_EXTENSION both ways (see
 * etw_rundown.h): Masks[8] u32 at 0x00, the kernel event version at 0x20.
 */
#include <errno.h>

#include "producer/etw_rundown.h"
#include "writer/etl_wire.h"

int etw_encode_group_masks(uint8_t *buf, size_t cap, const struct etw_group_masks *g)
{
	if (cap < ETW_GM_LEN) {
		return -ENOSPC;
	}
	for (unsigned i = 0; i < ETW_GROUP_MASKS; i++) {
		put_le32(buf + ETW_GM_MASKS + 4 * i, g->masks[i]);
	}
	put_le32(buf + ETW_GM_VERSION, g->version);
	return ETW_GM_LEN;
}

int etw_decode_group_masks(const uint8_t *buf, size_t len, struct etw_group_masks *g)
{
	if (len < ETW_GM_LEN) {
		return -EINVAL;
	}
	for (unsigned i = 0; i < ETW_GROUP_MASKS; i++) {
		g->masks[i] = get_le32(buf + ETW_GM_MASKS + 4 * i);
	}
	g->version = get_le32(buf + ETW_GM_VERSION);
	return ETW_GM_LEN;
}
