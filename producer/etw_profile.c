// SPDX-License-Identifier: MIT
/*
 * producer/etw_profile.c - SampledProfile and the profile-interval
 * payloads both ways (see etw_profile.h):
 *
 *   SampledProfile  x64: 0x00 IP  0x08 TID  0x0C Count u16  0x0E Flags  0x0F Rank
 *                   x86: 0x00 IP  0x04 TID  0x08 Count      0x0A Flags  0x0B Rank
 *   Flags byte      7          3  2    1     0
 *                   [ Priority | res | ISR | DPC ]
 *   Interval        0x00 Source  0x04 NewInterval  0x08 OldInterval
 *                   0x0C SourceName UTF-16 z (v3)
 */
#include <errno.h>
#include <string.h>

#include "producer/etw_profile.h"
#include "writer/etl_wire.h"

#define PTR32_MAX 0xFFFFFFFFu

int etw_sampled_profile_flags(bool dpc, bool isr, unsigned priority, uint8_t *out)
{
	if (!FIELD_FITS(ETW_SP_FLAG_PRIORITY, priority)) {
		return -EOVERFLOW;
	}
	*out = (uint8_t)((dpc ? ETW_SP_FLAG_DPC : 0u) | (isr ? ETW_SP_FLAG_ISR : 0u) |
			 FIELD_PREP(ETW_SP_FLAG_PRIORITY, priority));
	return 0;
}

size_t etw_sampled_profile_len(enum etl_arch arch)
{
	switch (arch) {
	case ETL_ARCH_X64:
		return ETW_SP64_LEN;
	case ETL_ARCH_X86:
		return ETW_SP32_LEN;
	default:
		return 0;
	}
}

int etw_encode_sampled_profile(uint8_t *buf, size_t cap, enum etl_arch arch,
			       const struct etw_sampled_profile *s, unsigned flags)
{
	bool x86 = arch == ETL_ARCH_X86;
	size_t len = etw_sampled_profile_len(arch);

	if (len == 0) {
		return -EINVAL;
	}
	if (x86 && !(flags & ETW_ENC_WRAP) && s->instruction_pointer > PTR32_MAX) {
		return -EOVERFLOW;
	}
	if (cap < len) {
		return -ENOSPC;
	}
	put_ptr(buf + ETW_SP64_IP, x86 ? 4u : 8u, s->instruction_pointer);
	put_le32(buf + (x86 ? ETW_SP32_TID : ETW_SP64_TID), s->thread_id);
	put_le16(buf + (x86 ? ETW_SP32_COUNT : ETW_SP64_COUNT), s->count);
	put_u8(buf + (x86 ? ETW_SP32_FLAGS : ETW_SP64_FLAGS), s->flags);
	put_u8(buf + (x86 ? ETW_SP32_RANK : ETW_SP64_RANK), s->rank);
	return (int)len;
}

int etw_decode_sampled_profile(const uint8_t *buf, size_t len, enum etl_arch arch,
			       struct etw_sampled_profile *s)
{
	bool x86 = arch == ETL_ARCH_X86;
	size_t need = etw_sampled_profile_len(arch);

	if (need == 0 || len < need) {
		return -EINVAL;
	}
	s->instruction_pointer = get_ptr(buf + ETW_SP64_IP, x86 ? 4u : 8u);
	s->thread_id = get_le32(buf + (x86 ? ETW_SP32_TID : ETW_SP64_TID));
	s->count = get_le16(buf + (x86 ? ETW_SP32_COUNT : ETW_SP64_COUNT));
	s->flags = get_u8(buf + (x86 ? ETW_SP32_FLAGS : ETW_SP64_FLAGS));
	s->rank = get_u8(buf + (x86 ? ETW_SP32_RANK : ETW_SP64_RANK));
	return (int)need;
}

size_t etw_profile_interval_len(uint8_t version, const struct etw_profile_interval *p)
{
	switch (version) {
	case 2:
		return ETW_PI_LEN;
	case ETW_VERSION_PROFILE_INTERVAL:
		return ETW_PI_LEN + 2 * (p->source_name.units + 1);
	default:
		return 0;
	}
}

int etw_encode_profile_interval(uint8_t *buf, size_t cap, uint8_t version,
				const struct etw_profile_interval *p)
{
	size_t len = etw_profile_interval_len(version, p);

	if (len == 0 ||
	    (version == ETW_VERSION_PROFILE_INTERVAL && etw_wstr_has_nul(p->source_name))) {
		return -EINVAL;
	}
	if (len > cap) {
		return -ENOSPC;
	}
	put_le32(buf + ETW_PI_SOURCE, p->source);
	put_le32(buf + ETW_PI_NEW, p->new_interval);
	put_le32(buf + ETW_PI_OLD, p->old_interval);
	if (version == ETW_VERSION_PROFILE_INTERVAL) {
		if (p->source_name.units) {
			memcpy(buf + ETW_PI_LEN, p->source_name.le, 2 * p->source_name.units);
		}
		put_le16(buf + ETW_PI_LEN + 2 * p->source_name.units, 0);
	}
	return (int)len;
}

int etw_decode_profile_interval(const uint8_t *buf, size_t len, uint8_t version,
				struct etw_profile_interval *p)
{
	struct etw_profile_interval out;
	size_t used = ETW_PI_LEN;
	long n;

	if ((version != 2 && version != ETW_VERSION_PROFILE_INTERVAL) || len < ETW_PI_LEN) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	out.source = get_le32(buf + ETW_PI_SOURCE);
	out.new_interval = get_le32(buf + ETW_PI_NEW);
	out.old_interval = get_le32(buf + ETW_PI_OLD);
	if (version == ETW_VERSION_PROFILE_INTERVAL) {
		n = etw_wstrz_scan(buf + ETW_PI_LEN, len - ETW_PI_LEN);
		if (n < 0) {
			return -EINVAL;
		}
		out.source_name.le = n ? buf + ETW_PI_LEN : NULL;
		out.source_name.units = (size_t)n;
		used += 2 * ((size_t)n + 1);
	}
	*p = out;
	return (int)used;
}
