/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_thread.h - the Thread payloads (RUNDOWN_FACTS 3, 4):
 * WMI_EXTENDED_THREAD_INFORMATION v3/v4 for Start 0x0501, End 0x0502,
 * DCStart 0x0503 and DCEnd 0x0504 (x64 and x86, with or without the
 * trailing ThreadName), ThreadSetName 0x0548 and ETW_READY_THREAD_EVENT
 * 0x0532. The error policy of etw_process.h.
 */
#ifndef PRODUCER_ETW_THREAD_H
#define PRODUCER_ETW_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"
#include "producer/etw_text.h"

/**
 * struct etw_thread - WMI_EXTENDED_THREAD_INFORMATION v3 (v4: the same,
 * ThreadName mandatory).
 * @stack_base .. @teb_base: pointer-sized (x86: 32 bits)
 * @affinity:        KAFFINITY (the v1/v2 StartAddr slot)
 * @sub_process_tag: service tag or 0
 * @base_priority:   SCHAR; @page_priority, @io_priority, @flags: UCHAR
 * @has_name:        v3: ThreadName follows (the 18362 form: written even
 *                   when empty); decoding v3, true when the payload is
 *                   longer than the fixed part. v4: always true
 * @name:            ThreadName, UTF-16
 */
struct etw_thread {
	uint32_t process_id;
	uint32_t thread_id;
	uint64_t stack_base;
	uint64_t stack_limit;
	uint64_t user_stack_base;
	uint64_t user_stack_limit;
	uint64_t affinity;
	uint64_t win32_start_address;
	uint64_t teb_base;
	uint32_t sub_process_tag;
	int8_t base_priority;
	uint8_t page_priority;
	uint8_t io_priority;
	uint8_t flags;
	bool has_name;
	struct etw_wstr name;
};

/** etw_thread_len - the payload's length (0x48 / 0x2C + the name); 0 if @arch or @version is bad. */
size_t etw_thread_len(enum etl_arch arch, uint8_t version, const struct etw_thread *t);

/**
 * etw_encode_thread - write the payload for @version 3 or 4.
 * Return: bytes written, -EINVAL (arch, version, a NUL unit in the name),
 * -EOVERFLOW (a pointer above 32 bits on x86 unless ETW_ENC_WRAP), -ENOSPC.
 */
int etw_encode_thread(uint8_t *buf, size_t cap, enum etl_arch arch, uint8_t version,
		      const struct etw_thread *t, unsigned flags);

/**
 * etw_decode_thread - read it; the name points into @buf.
 * Return: bytes consumed, or -EINVAL: bad arch or version, short, or bytes
 * after the fixed part that hold no NUL-terminated name (v4: no name).
 */
int etw_decode_thread(const uint8_t *buf, size_t len, enum etl_arch arch, uint8_t version,
		      struct etw_thread *t);

/** struct etw_thread_set_name - ThreadSetName 0x0548 v2: PID, TID, name. */
struct etw_thread_set_name {
	uint32_t process_id;
	uint32_t thread_id;
	struct etw_wstr name;
};

/** etw_thread_set_name_len - 8 + 2 * (units + 1). */
size_t etw_thread_set_name_len(const struct etw_thread_set_name *s);
/** etw_encode_thread_set_name - Return: bytes, -EINVAL (NUL unit in the name), -ENOSPC. */
int etw_encode_thread_set_name(uint8_t *buf, size_t cap, const struct etw_thread_set_name *s);
/** etw_decode_thread_set_name - Return: bytes consumed, or -EINVAL (short, no NUL). */
int etw_decode_thread_set_name(const uint8_t *buf, size_t len, struct etw_thread_set_name *s);

/**
 * struct etw_ready_thread - ETW_READY_THREAD_EVENT, 8 bytes on both arches.
 * @thread_id:        the thread being readied
 * @adjust_reason:    ETW_RT_REASON_* (None, Unwait, Boost)
 * @adjust_increment: the priority adjustment
 * @flags:            ETW_RT_FLAG_*
 * @reserved:         the spare byte (0)
 */
struct etw_ready_thread {
	uint32_t thread_id;
	int8_t adjust_reason;
	int8_t adjust_increment;
	uint8_t flags;
	uint8_t reserved;
};

/** etw_encode_ready_thread - Return: 8 or -ENOSPC. */
int etw_encode_ready_thread(uint8_t *buf, size_t cap, const struct etw_ready_thread *r);
/** etw_decode_ready_thread - Return: 8 or -EINVAL (short). */
int etw_decode_ready_thread(const uint8_t *buf, size_t len, struct etw_ready_thread *r);

#endif /* PRODUCER_ETW_THREAD_H */
