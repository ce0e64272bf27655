/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_profile.h - the profiling payloads (RUNDOWN_FACTS 5):
 * PERFINFO_SAMPLED_PROFILE_INFORMATION, SampledProfile 0x0F2E v2 (x64 and
 * x86), and PERFINFO_SAMPLED_PROFILE_CONFIG, the interval events 0x0F48
 * SetInterval, 0x0F49 DCStart and 0x0F4A DCEnd (v2, v3 with SourceName).
 * The error policy of etw_process.h.
 */
#ifndef PRODUCER_ETW_PROFILE_H
#define PRODUCER_ETW_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"
#include "producer/etw_text.h"

/**
 * struct etw_sampled_profile - one sample.
 * @instruction_pointer: pointer-sized
 * @thread_id:           the running thread, 0 for an idle thread
 * @count:               1 in every real record
 * @flags:               the byte at 0x0E/0x0A: ETW_SP_FLAG_DPC, _ISR, and the
 *                       running thread's priority in bits 3-7 (see
 *                       etw_sampled_profile_flags())
 * @rank:                scheduling-group rank (0)
 */
struct etw_sampled_profile {
	uint64_t instruction_pointer;
	uint32_t thread_id;
	uint16_t count;
	uint8_t flags;
	uint8_t rank;
};

/**
 * etw_sampled_profile_flags - the flags byte from its parts.
 * Return: 0 and *@out set, or -EOVERFLOW if @priority > 31.
 */
int etw_sampled_profile_flags(bool dpc, bool isr, unsigned priority, uint8_t *out);

/** etw_sampled_profile_len - 0x10 on x64, 0x0C on x86 (0 for a bad arch). */
size_t etw_sampled_profile_len(enum etl_arch arch);
/**
 * etw_encode_sampled_profile - Return: bytes, -EINVAL (arch), -EOVERFLOW (an
 * IP above 32 bits on x86 unless ETW_ENC_WRAP), -ENOSPC.
 */
int etw_encode_sampled_profile(uint8_t *buf, size_t cap, enum etl_arch arch,
			       const struct etw_sampled_profile *s, unsigned flags);
/** etw_decode_sampled_profile - Return: bytes consumed or -EINVAL. */
int etw_decode_sampled_profile(const uint8_t *buf, size_t len, enum etl_arch arch,
			       struct etw_sampled_profile *s);

/**
 * struct etw_profile_interval - PERFINFO_SAMPLED_PROFILE_CONFIG.
 * @source:       KPROFILE_SOURCE (0: the timer)
 * @new_interval: the timer's in 100-ns units; a counter's in events
 * @old_interval: the previous setting (0 if profiling was off)
 * @source_name:  v3 only (e.g. L"Timer")
 */
struct etw_profile_interval {
	uint32_t source;
	uint32_t new_interval;
	uint32_t old_interval;
	struct etw_wstr source_name;
};

/** etw_profile_interval_len - 12, + 2 * (units + 1) in v3; 0 for another version. */
size_t etw_profile_interval_len(uint8_t version, const struct etw_profile_interval *p);
/** etw_encode_profile_interval - Return: bytes, -EINVAL (version 2/3 only, NUL in the name), -ENOSPC. */
int etw_encode_profile_interval(uint8_t *buf, size_t cap, uint8_t version,
				const struct etw_profile_interval *p);
/** etw_decode_profile_interval - Return: bytes consumed, -EINVAL (version, short, no NUL). */
int etw_decode_profile_interval(const uint8_t *buf, size_t len, uint8_t version,
				struct etw_profile_interval *p);

#endif /* PRODUCER_ETW_PROFILE_H */
