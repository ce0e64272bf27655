/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_trace_header.h - the trace headers kernel event records start
 * with: PERFINFO_TRACE_HEADER with its PEBS/PMC extended items (KERNEL_FACTS
 * 3.2), SYSTEM_TRACE_HEADER (3.3), full or compact, and EVENT_TRACE_HEADER
 * (3.4): framing, both ways, for the producer
 * that writes records, the header buffer, and the reader that walks them.
 * Pure functions over caller memory.
 */
#ifndef WRITER_ETL_TRACE_HEADER_H
#define WRITER_ETL_TRACE_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writer/etl_layout.h"

/**
 * struct etl_perfinfo_header - PERFINFO_TRACE_HEADER plus its extended items.
 * @arch:       x64 -> HeaderType PERFINFO64 (0x11), x86 -> PERFINFO32 (0x10)
 * @version:    event version (Marker low byte)
 * @size:       whole event size incl. header, items and payload (unaligned)
 * @hook_id:    Group << 8 | Type
 * @ts:         timestamp in the session clock's units
 * @has_pebs:   PEBS index item present (Marker | 0x8000), written first
 * @pebs_index: its value
 * @pmc_count:  number of PMC counter items (0..7, Marker | n << 8)
 * @pmc:        their values, written after the PEBS item
 */
struct etl_perfinfo_header {
	enum etl_arch arch;
	uint8_t version;
	uint16_t size;
	uint16_t hook_id;
	uint64_t ts;
	bool has_pebs;
	uint64_t pebs_index;
	unsigned pmc_count;
	uint64_t pmc[ETL_MAX_PMC_ITEMS];
};

/** etl_perfinfo_header_len - bytes of header + extended items (0x10 + 8 per item). */
size_t etl_perfinfo_header_len(const struct etl_perfinfo_header *h);

/**
 * etl_encode_perfinfo_header - write the 0x10 header then PEBS then PMC items.
 * Return: bytes written, -ENOSPC if @cap is too small, -EINVAL if pmc_count > 7
 * or @size is smaller than the header.
 */
int etl_encode_perfinfo_header(uint8_t *buf, size_t cap, const struct etl_perfinfo_header *h);

/**
 * etl_decode_perfinfo_header - parse a PERFINFO32/64 header and its items.
 * Return: bytes consumed (header + items), -EINVAL if @len is short, the
 * header type is not PERFINFO, or Size is smaller than header + items.
 */
int etl_decode_perfinfo_header(const uint8_t *buf, size_t len, struct etl_perfinfo_header *h);

/**
 * struct etl_system_header - SYSTEM_TRACE_HEADER (0x20 bytes on x86 and x64).
 * @arch:    x64 -> HeaderType SYSTEM64 (2), x86 -> SYSTEM32 (1)
 * @version: event version (Marker low byte)
 * @size:    whole event size incl. the header (unaligned)
 * @ts:      SystemTime: a timestamp in the session clock's units
 */
struct etl_system_header {
	enum etl_arch arch;
	uint8_t version;
	uint16_t size;
	uint16_t hook_id;
	uint32_t thread_id;
	uint32_t process_id;
	uint64_t ts;
	uint32_t kernel_time;
	uint32_t user_time;
};

/** etl_encode_system_header - write 0x20 bytes. Return: 0x20, or -EINVAL (@cap too small). */
int etl_encode_system_header(uint8_t *buf, size_t cap, const struct etl_system_header *h);

/**
 * etl_decode_system_header - read one (SYSTEM32/64 HeaderType and flags 0xC0).
 * Return: 0x20, or -EINVAL (short, or not a full SYSTEM header).
 */
int etl_decode_system_header(const uint8_t *buf, size_t len, struct etl_system_header *h);

/**
 * etl_encode_compact_header - write the compact SYSTEM header: the first 0x18
 * bytes of SYSTEM_TRACE_HEADER (no KernelTime/UserTime, which @h's fields
 * are then ignored), HeaderType COMPACT64 (4) on x64, COMPACT32 (3) on x86.
 * Return: 0x18, or -EINVAL (@cap too small).
 */
int etl_encode_compact_header(uint8_t *buf, size_t cap, const struct etl_system_header *h);

/**
 * etl_decode_compact_header - read one (COMPACT32/64 and flags 0xC0);
 * kernel_time and user_time come back 0.
 * Return: 0x18, or -EINVAL (short, or not a compact header).
 */
int etl_decode_compact_header(const uint8_t *buf, size_t len, struct etl_system_header *h);

/**
 * struct etl_full_header - EVENT_TRACE_HEADER (0x30 bytes on x86 and x64),
 * the header of classic (MOF) events such as the image identities a merge
 * adds (KERNEL_FACTS 3.4).
 * @arch:          x64 -> HeaderType FULL_HEADER64 (0x14), x86 -> FULL_HEADER32 (0x0A)
 * @size:          whole event size incl. the header (unaligned), at offset 0
 * @type:          Class.Type, the opcode
 * @level:         Class.Level
 * @version:       Class.Version
 * @guid:          the event's GUID, its 16 wire bytes
 * @kernel_time, @user_time: the logging thread's times
 */
struct etl_full_header {
	enum etl_arch arch;
	uint16_t size;
	uint8_t type;
	uint8_t level;
	uint16_t version;
	uint32_t thread_id;
	uint32_t process_id;
	uint64_t ts;
	uint8_t guid[16];
	uint32_t kernel_time;
	uint32_t user_time;
};

/**
 * etl_encode_full_header - write 0x30 bytes.
 * Return: 0x30, -EINVAL (unknown arch, @size below 0x30), -ENOSPC.
 */
int etl_encode_full_header(uint8_t *buf, size_t cap, const struct etl_full_header *h);

/**
 * etl_decode_full_header - read one (FULL_HEADER32/64 and flags 0xC0).
 * Return: 0x30, or -EINVAL (short, another header type, Size below 0x30).
 */
int etl_decode_full_header(const uint8_t *buf, size_t len, struct etl_full_header *h);

#endif /* WRITER_ETL_TRACE_HEADER_H */
