// SPDX-License-Identifier: MIT
/*
 * writer/etl_trace_header.c - encode and decode the PERFINFO trace header
 * and its extended items, the SYSTEM header full and compact, and the
 * EVENT_TRACE_HEADER of classic events (see etl_trace_header.h). Every byte
 * goes through put_le*()/get_le*() at the offsets named in etl_layout.h
 * (STYLE B5).
 * Errors: -EINVAL bad argument (pmc_count > 7, unknown arch, Size smaller
 * than the header), -ENOSPC short buffer; nothing is written on failure.
 */
#include <errno.h>
#include <string.h>

#include "writer/etl_trace_header.h"
#include "writer/etl_wire.h"

static unsigned perfinfo_items(const struct etl_perfinfo_header *h)
{
	return (h->has_pebs ? 1u : 0u) + h->pmc_count;
}

size_t etl_perfinfo_header_len(const struct etl_perfinfo_header *h)
{
	return ETL_TH_LEN + (size_t)perfinfo_items(h) * ETL_EXT_ITEM_LEN;
}

int etl_encode_perfinfo_header(uint8_t *buf, size_t cap, const struct etl_perfinfo_header *h)
{
	uint32_t marker;
	size_t len, off;
	unsigned i;

	if (h->pmc_count > ETL_MAX_PMC_ITEMS) {
		return -EINVAL;
	}
	switch (h->arch) {
	case ETL_ARCH_X64:
		marker = ETL_PERFINFO_MARKER64;
		break;
	case ETL_ARCH_X86:
		marker = ETL_PERFINFO_MARKER32;
		break;
	default:
		return -EINVAL;
	}
	len = etl_perfinfo_header_len(h);
	/* Size counts the header and its items too (KERNEL_FACTS 3.2). */
	if (h->size < len) {
		return -EINVAL;
	}
	if (cap < len) {
		return -ENOSPC;
	}

	marker |= h->version;
	if (h->has_pebs) {
		marker |= ETL_MARKER_PEBS_FLAG;
	}
	marker |= FIELD_PREP(ETL_MARKER_PMC_MASK, h->pmc_count);

	put_le32(buf + ETL_TH_MARKER, marker);
	put_le16(buf + ETL_TH_SIZE, h->size);
	put_le16(buf + ETL_TH_HOOK_ID, h->hook_id);
	put_le64(buf + ETL_TH_TS, h->ts);
	/* PEBS first, then the PMC counters: the order consumers (S7) expect. */
	off = ETL_TH_LEN;
	if (h->has_pebs) {
		put_le64(buf + off, h->pebs_index);
		off += ETL_EXT_ITEM_LEN;
	}
	for (i = 0; i < h->pmc_count; i++) {
		put_le64(buf + off, h->pmc[i]);
		off += ETL_EXT_ITEM_LEN;
	}
	return (int)len;
}

int etl_decode_perfinfo_header(const uint8_t *buf, size_t len, struct etl_perfinfo_header *h)
{
	struct etl_perfinfo_header out;
	uint32_t marker;
	size_t need, off;
	unsigned i;

	if (len < ETL_TH_LEN) {
		return -EINVAL;
	}
	marker = get_le32(buf + ETL_TH_MARKER);
	/*
	 * A trace header of the event-trace kind has both top flag bits
	 * (TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE); the header type in
	 * byte 2 then says PERFINFO32 or PERFINFO64.
	 */
	if ((marker & ETL_MARKER_FLAGS_TRACE) != ETL_MARKER_FLAGS_TRACE) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	switch ((marker & ETL_MARKER_TYPE_MASK) >> ETL_MARKER_TYPE_SHIFT) {
	case ETL_HT_PERFINFO64:
		out.arch = ETL_ARCH_X64;
		break;
	case ETL_HT_PERFINFO32:
		out.arch = ETL_ARCH_X86;
		break;
	default:
		return -EINVAL;
	}
	out.version = (uint8_t)(marker & ETL_MARKER_VERSION_MASK);
	out.has_pebs = (marker & ETL_MARKER_PEBS_FLAG) != 0;
	out.pmc_count = FIELD_GET(ETL_MARKER_PMC_MASK, marker);
	out.size = get_le16(buf + ETL_TH_SIZE);
	out.hook_id = get_le16(buf + ETL_TH_HOOK_ID);
	out.ts = get_le64(buf + ETL_TH_TS);

	need = etl_perfinfo_header_len(&out);
	if (len < need || out.size < need) {
		return -EINVAL;
	}
	off = ETL_TH_LEN;
	if (out.has_pebs) {
		out.pebs_index = get_le64(buf + off);
		off += ETL_EXT_ITEM_LEN;
	}
	for (i = 0; i < out.pmc_count; i++) {
		out.pmc[i] = get_le64(buf + off);
		off += ETL_EXT_ITEM_LEN;
	}
	*h = out;
	return (int)need;
}

/*
 * The SYSTEM header and its compact form share their first 0x18 bytes: the
 * compact one is the SYSTEM header cut after SystemTime (KERNEL_FACTS 3.3).
 * @len is the form's length; the times are the full form's alone.
 */
static_assert(ETL_SH_SYSTEM_TIME + 8 == ETL_COMPACT_SH_LEN, "compact header ends after SystemTime");

static int encode_system(uint8_t *buf, size_t cap, const struct etl_system_header *h,
			 uint32_t marker, size_t len)
{
	if (cap < len) {
		return -EINVAL;
	}
	put_le32(buf + ETL_SH_MARKER, marker | h->version);
	put_le16(buf + ETL_SH_SIZE, h->size);
	put_le16(buf + ETL_SH_HOOK_ID, h->hook_id);
	put_le32(buf + ETL_SH_THREAD_ID, h->thread_id);
	put_le32(buf + ETL_SH_PROCESS_ID, h->process_id);
	put_le64(buf + ETL_SH_SYSTEM_TIME, h->ts);
	if (len == ETL_SH_LEN) {
		put_le32(buf + ETL_SH_KERNEL_TIME, h->kernel_time);
		put_le32(buf + ETL_SH_USER_TIME, h->user_time);
	}
	return (int)len;
}

/* The header types @t32 / @t64 of the form, which is @need bytes long. */
static int decode_system(const uint8_t *buf, size_t len, struct etl_system_header *h, unsigned t32,
			 unsigned t64, size_t need)
{
	uint32_t marker;
	unsigned type;

	if (len < need) {
		return -EINVAL;
	}
	marker = get_le32(buf + ETL_SH_MARKER);
	type = (marker >> 16) & 0xFFu;
	if ((marker >> 24) != 0xC0u || (type != t32 && type != t64)) {
		return -EINVAL;
	}
	h->arch = type == t32 ? ETL_ARCH_X86 : ETL_ARCH_X64;
	h->version = (uint8_t)marker;
	h->size = get_le16(buf + ETL_SH_SIZE);
	h->hook_id = get_le16(buf + ETL_SH_HOOK_ID);
	h->thread_id = get_le32(buf + ETL_SH_THREAD_ID);
	h->process_id = get_le32(buf + ETL_SH_PROCESS_ID);
	h->ts = get_le64(buf + ETL_SH_SYSTEM_TIME);
	h->kernel_time = need == ETL_SH_LEN ? get_le32(buf + ETL_SH_KERNEL_TIME) : 0;
	h->user_time = need == ETL_SH_LEN ? get_le32(buf + ETL_SH_USER_TIME) : 0;
	return (int)need;
}

int etl_encode_system_header(uint8_t *buf, size_t cap, const struct etl_system_header *h)
{
	return encode_system(buf, cap, h,
			     h->arch == ETL_ARCH_X86 ? ETL_SYSTEM_MARKER32 : ETL_SYSTEM_MARKER64,
			     ETL_SH_LEN);
}

int etl_decode_system_header(const uint8_t *buf, size_t len, struct etl_system_header *h)
{
	return decode_system(buf, len, h, ETL_HT_SYSTEM32, ETL_HT_SYSTEM64, ETL_SH_LEN);
}

int etl_encode_compact_header(uint8_t *buf, size_t cap, const struct etl_system_header *h)
{
	return encode_system(buf, cap, h,
			     h->arch == ETL_ARCH_X86 ? ETL_COMPACT_MARKER32 : ETL_COMPACT_MARKER64,
			     ETL_COMPACT_SH_LEN);
}

int etl_decode_compact_header(const uint8_t *buf, size_t len, struct etl_system_header *h)
{
	return decode_system(buf, len, h, ETL_HT_COMPACT32, ETL_HT_COMPACT64, ETL_COMPACT_SH_LEN);
}

int etl_encode_full_header(uint8_t *buf, size_t cap, const struct etl_full_header *h)
{
	uint8_t type;

	switch (h->arch) {
	case ETL_ARCH_X64:
		type = ETL_HT_FULL_HEADER64;
		break;
	case ETL_ARCH_X86:
		type = ETL_HT_FULL_HEADER32;
		break;
	default:
		return -EINVAL;
	}
	if (h->size < ETL_FH_LEN) {
		return -EINVAL;
	}
	if (cap < ETL_FH_LEN) {
		return -ENOSPC;
	}
	put_le16(buf + ETL_FH_SIZE, h->size);
	put_u8(buf + ETL_FH_HEADER_TYPE, type);
	put_u8(buf + ETL_FH_MARKER_FLAGS, ETL_FULL_MARKER_FLAGS);
	put_u8(buf + ETL_FH_CLASS_TYPE, h->type);
	put_u8(buf + ETL_FH_CLASS_LEVEL, h->level);
	put_le16(buf + ETL_FH_CLASS_VERSION, h->version);
	put_le32(buf + ETL_FH_THREAD_ID, h->thread_id);
	put_le32(buf + ETL_FH_PROCESS_ID, h->process_id);
	put_le64(buf + ETL_FH_TIME_STAMP, h->ts);
	memcpy(buf + ETL_FH_GUID, h->guid, sizeof(h->guid));
	put_le32(buf + ETL_FH_KERNEL_TIME, h->kernel_time);
	put_le32(buf + ETL_FH_USER_TIME, h->user_time);
	return ETL_FH_LEN;
}

int etl_decode_full_header(const uint8_t *buf, size_t len, struct etl_full_header *h)
{
	struct etl_full_header out;
	uint8_t type;

	if (len < ETL_FH_LEN || get_u8(buf + ETL_FH_MARKER_FLAGS) != ETL_FULL_MARKER_FLAGS) {
		return -EINVAL;
	}
	type = get_u8(buf + ETL_FH_HEADER_TYPE);
	if (type != ETL_HT_FULL_HEADER32 && type != ETL_HT_FULL_HEADER64) {
		return -EINVAL;
	}
	out.arch = type == ETL_HT_FULL_HEADER64 ? ETL_ARCH_X64 : ETL_ARCH_X86;
	out.size = get_le16(buf + ETL_FH_SIZE);
	if (out.size < ETL_FH_LEN) {
		return -EINVAL;
	}
	out.type = get_u8(buf + ETL_FH_CLASS_TYPE);
	out.level = get_u8(buf + ETL_FH_CLASS_LEVEL);
	out.version = get_le16(buf + ETL_FH_CLASS_VERSION);
	out.thread_id = get_le32(buf + ETL_FH_THREAD_ID);
	out.process_id = get_le32(buf + ETL_FH_PROCESS_ID);
	out.ts = get_le64(buf + ETL_FH_TIME_STAMP);
	memcpy(out.guid, buf + ETL_FH_GUID, sizeof(out.guid));
	out.kernel_time = get_le32(buf + ETL_FH_KERNEL_TIME);
	out.user_time = get_le32(buf + ETL_FH_USER_TIME);
	*h = out;
	return ETL_FH_LEN;
}
