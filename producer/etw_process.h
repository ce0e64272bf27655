/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_process.h - the Process payloads (RUNDOWN_FACTS 2):
 * WMI_PROCESS_INFORMATION v4 for Start 0x0301, End 0x0302, DCStart 0x0303,
 * DCEnd 0x0304 and Defunct 0x0327 (v5 adds ExitTime), its UserSID blob, and
 * Terminate 0x030B. x64 and x86 by the pointer size. Pure functions over
 * caller memory; the errors of etw_encode.h (-EINVAL, -EOVERFLOW unless
 * ETW_ENC_WRAP, -ENOSPC; decoders -EINVAL), nothing written on failure.
 */
#ifndef PRODUCER_ETW_PROCESS_H
#define PRODUCER_ETW_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"
#include "producer/etw_text.h"

/**
 * struct etw_sid - the UserSID blob (RUNDOWN_FACTS 2.3).
 * @present:    false: the 4-byte NULL form (a u32 0), the rest ignored
 * @token_sid:  TOKEN_USER.User.Sid, a kernel pointer readers never follow;
 *              its low 32 bits must not be 0 (they are what says "a SID
 *              follows")
 * @attributes: TOKEN_USER.User.Attributes (0 in nearly every real record)
 * @token_pad:  x64 only: the 4 bytes after Attributes; real files hold
 *              stale bytes there, our policy is 0
 * @revision:   SID revision (1)
 * @sub_count:  SubAuthorityCount, 0..15
 * @authority:  IdentifierAuthority, 6 bytes as on the wire (big-endian)
 * @sub:        SubAuthority[@sub_count]
 */
struct etw_sid {
	bool present;
	uint64_t token_sid;
	uint32_t attributes;
	uint32_t token_pad;
	uint8_t revision;
	uint8_t sub_count;
	uint8_t authority[ETW_SID_AUTHORITY_LEN];
	uint32_t sub[ETW_SID_MAX_SUB];
};

/**
 * struct etw_process - WMI_PROCESS_INFORMATION v4 / Defunct v5.
 * @unique_process_key:   the EPROCESS address (pointer)
 * @exit_status:          0x103 for a live process; the exit code at End
 * @directory_table_base: physical page-table base (pointer)
 * @flags:                ETW_PROCESS_FLAG_*
 * @image_file_name:      ANSI; encode: NULL is ""; decode: points into the
 *                        record, NUL-terminated there
 * @command_line, @package_full_name, @application_id: UTF-16 (etw_text.h)
 * @exit_time:            Defunct v5 only: FILETIME
 */
struct etw_process {
	uint64_t unique_process_key;
	uint32_t process_id;
	uint32_t parent_id;
	uint32_t session_id;
	int32_t exit_status;
	uint64_t directory_table_base;
	uint32_t flags;
	struct etw_sid sid;
	const char *image_file_name;
	struct etw_wstr command_line;
	struct etw_wstr package_full_name;
	struct etw_wstr application_id;
	uint64_t exit_time;
};

/**
 * etw_sid_parse - "S-1-5-21-..." (revision 1..255, authority decimal or 0x
 * hex below 2^48, 0..15 sub-authorities) into @out, present, token_sid 0
 * (the caller's to set). Return: 0 or -EINVAL.
 */
int etw_sid_parse(const char *str, struct etw_sid *out);

/**
 * etw_sid_len - bytes of the blob: 4 without a SID, else TOKEN_USER (16 on
 * x64, 8 on x86) + 8 + 4 * sub_count. 0 if @arch or sub_count is invalid.
 */
size_t etw_sid_len(enum etl_arch arch, const struct etw_sid *sid);

/**
 * etw_process_len - the payload's length for @version (4, or 5: +ExitTime).
 * Return: bytes, or 0 if @arch, @version or the SID is invalid.
 */
size_t etw_process_len(enum etl_arch arch, uint8_t version, const struct etw_process *p);

/**
 * etw_encode_process - write the payload.
 * Return: bytes written, -EINVAL (arch, version 4/5 only, sub_count > 15, a
 * SID whose token_sid has zero low 32 bits, a NUL unit inside a UTF-16
 * string), -EOVERFLOW (a pointer above 32 bits on x86, unless
 * ETW_ENC_WRAP), -ENOSPC.
 */
int etw_encode_process(uint8_t *buf, size_t cap, enum etl_arch arch, uint8_t version,
		       const struct etw_process *p, unsigned flags);

/**
 * etw_decode_process - read it; the strings point into @buf.
 * Return: bytes consumed (v4 ends after ApplicationId; v5 after ExitTime;
 * anything later is not read), or -EINVAL: bad arch or version, short, a
 * SubAuthorityCount above 15, a string without its NUL.
 */
int etw_decode_process(const uint8_t *buf, size_t len, enum etl_arch arch, uint8_t version,
		       struct etw_process *p);

/** etw_encode_process_terminate - 0x030B: the terminated ProcessId. Return: 4 or -ENOSPC. */
int etw_encode_process_terminate(uint8_t *buf, size_t cap, uint32_t process_id);
/** etw_decode_process_terminate - Return: 4 or -EINVAL (short). */
int etw_decode_process_terminate(const uint8_t *buf, size_t len, uint32_t *process_id);

#endif /* PRODUCER_ETW_PROCESS_H */
