/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_stack.h - the stack-walk payloads (STACK_IMAGE_FACTS 3):
 * STACK_WALK_EVENT_DATA of StackWalk 0x1820 (the event it belongs to, then
 * its frames), the cached-stack references StackKeyKernel 0x1825 /
 * StackKeyUser 0x1826 (the event, then a key), and the definitions of a
 * key, KeyCreate 0x1822 / KeyDelete 0x1823 / KeyRundown 0x1824 (the key,
 * then its frames). x64 and x86 by the pointer size; no count field: the
 * frames are what the record's length holds. The error policy of
 * etw_process.h.
 */
#ifndef PRODUCER_ETW_STACK_H
#define PRODUCER_ETW_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"

/**
 * struct etw_frames - a run of stack frames, innermost (the IP) first.
 * An encoder reads @ips; a decoder sets @le, the wire bytes (one pointer
 * of the record's size each, unaligned) read with etw_frame(), and leaves
 * @ips NULL.
 * @ips: @n addresses (encode)
 * @le:  @n pointers as on the wire (decode)
 * @n:   the number of frames
 */
struct etw_frames {
	const uint64_t *ips;
	const uint8_t *le;
	size_t n;
};

/** etw_frame - frame @i of @f (decoded for @arch, or given as @ips). */
uint64_t etw_frame(const struct etw_frames *f, enum etl_arch arch, size_t i);

/**
 * struct etw_stack_walk - 0x1820.
 * @event_ts:   the header timestamp of the event the stack belongs to
 * @process_id: that event's process (0 for an idle-thread sample)
 * @thread_id:  that event's thread (a sample's payload ThreadId)
 * @frames:     all kernel or all user addresses (the kernel records the two
 *              parts of one stack as two records, kernel part first)
 */
struct etw_stack_walk {
	uint64_t event_ts;
	uint32_t process_id;
	uint32_t thread_id;
	struct etw_frames frames;
};

/**
 * struct etw_stack_key - 0x1825 / 0x1826: like a StackWalk, with the key of
 * a cached stack instead of its frames.
 * @key: the cache entry, a kernel address; defined by the first
 *       0x1823/0x1824 of that key at or after the reference
 */
struct etw_stack_key {
	uint64_t event_ts;
	uint32_t process_id;
	uint32_t thread_id;
	uint64_t key;
};

/** struct etw_stack_def - 0x1822 / 0x1823 / 0x1824: a key's frames. */
struct etw_stack_def {
	uint64_t key;
	struct etw_frames frames;
};

/** etw_stack_walk_len - 0x10 + pointer size x frames (0 for a bad @arch). */
size_t etw_stack_walk_len(enum etl_arch arch, size_t frames);
/**
 * etw_encode_stack_walk - Return: bytes, -EINVAL (arch; no frames or more
 * than ETW_STACK_MAX_FRAMES: the kernel logs neither; @ips NULL),
 * -EOVERFLOW (x86: a frame above 32 bits, unless ETW_ENC_WRAP), -ENOSPC.
 */
int etw_encode_stack_walk(uint8_t *buf, size_t cap, enum etl_arch arch,
			  const struct etw_stack_walk *s, unsigned flags);
/**
 * etw_decode_stack_walk - the frames point into @buf.
 * Return: @len, or -EINVAL (arch, shorter than the head, or frames that are
 * not a whole number of pointers). No frame at all, or more than 192, is
 * read as it is: a reader takes what it finds.
 */
int etw_decode_stack_walk(const uint8_t *buf, size_t len, enum etl_arch arch,
			  struct etw_stack_walk *s);

/** etw_stack_key_len - 0x18 (x64) / 0x14 (x86); 0 for a bad @arch. */
size_t etw_stack_key_len(enum etl_arch arch);
/** etw_encode_stack_key - Return: bytes, -EINVAL, -EOVERFLOW (x86 key), -ENOSPC. */
int etw_encode_stack_key(uint8_t *buf, size_t cap, enum etl_arch arch,
			 const struct etw_stack_key *k, unsigned flags);
/** etw_decode_stack_key - Return: bytes consumed, or -EINVAL (arch, short). */
int etw_decode_stack_key(const uint8_t *buf, size_t len, enum etl_arch arch,
			 struct etw_stack_key *k);

/** etw_stack_def_len - the key + pointer size x frames (0 for a bad @arch). */
size_t etw_stack_def_len(enum etl_arch arch, size_t frames);
/**
 * etw_encode_stack_def - Return: bytes, -EINVAL (arch; no frames or more
 * than ETW_STACK_MAX_FRAMES; @ips NULL), -EOVERFLOW (x86), -ENOSPC.
 */
int etw_encode_stack_def(uint8_t *buf, size_t cap, enum etl_arch arch,
			 const struct etw_stack_def *d, unsigned flags);
/**
 * etw_decode_stack_def - Return: @len, or -EINVAL (arch, no key, frames
 * that are not a whole number of pointers).
 */
int etw_decode_stack_def(const uint8_t *buf, size_t len, enum etl_arch arch,
			 struct etw_stack_def *d);

#endif /* PRODUCER_ETW_STACK_H */
