// SPDX-License-Identifier: MIT
/*
 * producer/etw_image.c - the Image payloads both ways (see etw_image.h).
 * Layout, x64 offsets (x86 in etw_layout.h):
 *
 *   0x00 ImageBase ptr  0x08 ImageSize ptr  0x10 ProcessId  0x14 CheckSum
 *   0x18 TimeDateStamp  0x1C v2: Reserved0 u32
 *                            v3: SignatureLevel u8, SignatureType u8 (0x1D),
 *                                Reserved0 u16 (0x1E)
 *   0x20 DefaultBase ptr  0x28 Reserved1..4 u32  0x38 FileName UTF-16 z
 *
 * Size = header + 0x38 + 2 * (units + 1), no padding (every real record).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "producer/etw_image.h"
#include "writer/etl_wire.h"

#define PTR32_MAX 0xFFFFFFFFu

/* Offsets of one pointer size. */
struct image_layout {
	unsigned ptr;
	size_t base, size, pid, checksum, tds, sig_level, sig_type, reserved0, default_base,
		reserved1, name;
};

static const struct image_layout im64 = {8,
					 ETW_IM64_BASE,
					 ETW_IM64_SIZE,
					 ETW_IM64_PID,
					 ETW_IM64_CHECKSUM,
					 ETW_IM64_TIMESTAMP,
					 ETW_IM64_SIG_LEVEL,
					 ETW_IM64_SIG_TYPE,
					 ETW_IM64_RESERVED0,
					 ETW_IM64_DEFAULT_BASE,
					 ETW_IM64_RESERVED1,
					 ETW_IM64_FILE_NAME};
static const struct image_layout im32 = {4,
					 ETW_IM32_BASE,
					 ETW_IM32_SIZE,
					 ETW_IM32_PID,
					 ETW_IM32_CHECKSUM,
					 ETW_IM32_TIMESTAMP,
					 ETW_IM32_SIG_LEVEL,
					 ETW_IM32_SIG_TYPE,
					 ETW_IM32_RESERVED0,
					 ETW_IM32_DEFAULT_BASE,
					 ETW_IM32_RESERVED1,
					 ETW_IM32_FILE_NAME};

static const struct image_layout *layout(enum etl_arch arch)
{
	switch (arch) {
	case ETL_ARCH_X64:
		return &im64;
	case ETL_ARCH_X86:
		return &im32;
	default:
		return NULL;
	}
}

static bool known_version(uint8_t version)
{
	return version == ETW_VERSION_IMAGE_WIN8 || version == ETW_VERSION_IMAGE_WIN10;
}

size_t etw_image_len(enum etl_arch arch, uint8_t version, const struct etw_image *im)
{
	const struct image_layout *l = layout(arch);

	if (!l || !known_version(version)) {
		return 0;
	}
	return l->name + 2 * (im->file_name.units + 1);
}

int etw_encode_image(uint8_t *buf, size_t cap, enum etl_arch arch, uint8_t version,
		     const struct etw_image *im, unsigned flags)
{
	const struct image_layout *l = layout(arch);
	size_t len = etw_image_len(arch, version, im);
	bool v3 = version == ETW_VERSION_IMAGE_WIN10;

	if (!l || len == 0 || etw_wstr_has_nul(im->file_name)) {
		return -EINVAL;
	}
	if (!v3 && (im->signature_level || im->signature_type)) {
		return -EINVAL;
	}
	if (!(flags & ETW_ENC_WRAP)) {
		if (l->ptr == 4 && (im->image_base > PTR32_MAX || im->image_size > PTR32_MAX ||
				    im->default_base > PTR32_MAX)) {
			return -EOVERFLOW;
		}
		if (v3 && im->reserved0 > UINT16_MAX) {
			return -EOVERFLOW;
		}
	}
	if (len > cap) {
		return -ENOSPC;
	}
	put_ptr(buf + l->base, l->ptr, im->image_base);
	put_ptr(buf + l->size, l->ptr, im->image_size);
	put_le32(buf + l->pid, im->process_id);
	put_le32(buf + l->checksum, im->checksum);
	put_le32(buf + l->tds, im->time_date_stamp);
	if (v3) {
		put_u8(buf + l->sig_level, im->signature_level);
		put_u8(buf + l->sig_type, im->signature_type);
		put_le16(buf + l->reserved0, (uint16_t)im->reserved0);
	} else {
		put_le32(buf + l->sig_level, im->reserved0);
	}
	put_ptr(buf + l->default_base, l->ptr, im->default_base);
	for (unsigned i = 0; i < ETW_IMAGE_RESERVED_N; i++) {
		put_le32(buf + l->reserved1 + 4 * i, im->reserved[i]);
	}
	if (im->file_name.units) {
		memcpy(buf + l->name, im->file_name.le, 2 * im->file_name.units);
	}
	put_le16(buf + l->name + 2 * im->file_name.units, 0);
	return (int)len;
}

int etw_decode_image(const uint8_t *buf, size_t len, enum etl_arch arch, uint8_t version,
		     struct etw_image *im)
{
	const struct image_layout *l = layout(arch);
	struct etw_image out;
	long n;

	if (!l || !known_version(version) || len < l->name) {
		return -EINVAL;
	}
	n = etw_wstrz_scan(buf + l->name, len - l->name);
	if (n < 0) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	out.image_base = get_ptr(buf + l->base, l->ptr);
	out.image_size = get_ptr(buf + l->size, l->ptr);
	out.process_id = get_le32(buf + l->pid);
	out.checksum = get_le32(buf + l->checksum);
	out.time_date_stamp = get_le32(buf + l->tds);
	if (version == ETW_VERSION_IMAGE_WIN10) {
		out.signature_level = get_u8(buf + l->sig_level);
		out.signature_type = get_u8(buf + l->sig_type);
		out.reserved0 = get_le16(buf + l->reserved0);
	} else {
		out.reserved0 = get_le32(buf + l->sig_level);
	}
	out.default_base = get_ptr(buf + l->default_base, l->ptr);
	for (unsigned i = 0; i < ETW_IMAGE_RESERVED_N; i++) {
		out.reserved[i] = get_le32(buf + l->reserved1 + 4 * i);
	}
	out.file_name.le = n ? buf + l->name : NULL;
	out.file_name.units = (size_t)n;
	*im = out;
	return (int)(l->name + 2 * ((size_t)n + 1));
}

size_t etw_image_address_len(enum etl_arch arch)
{
	const struct image_layout *l = layout(arch);

	return l ? l->ptr : 0;
}

int etw_encode_image_address(uint8_t *buf, size_t cap, enum etl_arch arch, uint64_t va,
			     unsigned flags)
{
	const struct image_layout *l = layout(arch);

	if (!l) {
		return -EINVAL;
	}
	if (l->ptr == 4 && !(flags & ETW_ENC_WRAP) && va > PTR32_MAX) {
		return -EOVERFLOW;
	}
	if (cap < l->ptr) {
		return -ENOSPC;
	}
	put_ptr(buf, l->ptr, va);
	return (int)l->ptr;
}

int etw_decode_image_address(const uint8_t *buf, size_t len, enum etl_arch arch, uint64_t *va)
{
	const struct image_layout *l = layout(arch);

	if (!l || len < l->ptr) {
		return -EINVAL;
	}
	*va = get_ptr(buf, l->ptr);
	return (int)l->ptr;
}
