/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_image.h - the Image payloads (STACK_IMAGE_FACTS 2):
 * WMI_IMAGELOAD_INFORMATION v2 (Windows 8) and v3 (Windows 10 1903: the
 * signature bytes) for Load 0x030A, Unload 0x1402, DCStart 0x1403 and DCEnd
 * 0x1404, and the one-pointer payloads of KernelBase 0x1421 and
 * HypercallPage 0x1422. x64 and x86 by the pointer size. The error policy
 * of etw_process.h: -EINVAL, -EOVERFLOW unless ETW_ENC_WRAP, -ENOSPC;
 * decoders -EINVAL; nothing written on failure.
 */
#ifndef PRODUCER_ETW_IMAGE_H
#define PRODUCER_ETW_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"
#include "producer/etw_text.h"

/**
 * struct etw_image - WMI_IMAGELOAD_INFORMATION.
 * @image_base:      where the image is mapped (pointer)
 * @image_size:      its mapped size (SIZE_T), a multiple of 0x1000 in every
 *                   real record
 * @process_id:      the address space's process; 0 for a kernel module
 * @checksum:        the PE OptionalHeader.CheckSum (0 allowed)
 * @time_date_stamp: the PE FileHeader.TimeDateStamp; 0 in every per-process
 *                   DCStart/DCEnd Windows writes
 * @signature_level: v3 only: SE_SIGNING_LEVEL (0..15)
 * @signature_type:  v3 only: SE_IMAGE_SIGNATURE_TYPE (0..6)
 * @reserved0:       v2: the u32 at 0x1C; v3: the u16 at 0x1E (0 in every
 *                   real record)
 * @default_base:    the preferred base (pointer): = @image_base for a
 *                   PE32+ image at its preferred base, 0 for kernel modules
 * @reserved:        Reserved1..Reserved4 (0 in every real record)
 * @file_name:       the NT path, UTF-16
 */
struct etw_image {
	uint64_t image_base;
	uint64_t image_size;
	uint32_t process_id;
	uint32_t checksum;
	uint32_t time_date_stamp;
	uint8_t signature_level;
	uint8_t signature_type;
	uint32_t reserved0;
	uint64_t default_base;
	uint32_t reserved[ETW_IMAGE_RESERVED_N];
	struct etw_wstr file_name;
};

/**
 * etw_image_len - the payload's length: 0x38 (x64) or 0x2C (x86) + the
 * FileName and its NUL. 0 for a bad @arch or a @version other than 2 or 3.
 */
size_t etw_image_len(enum etl_arch arch, uint8_t version, const struct etw_image *im);

/**
 * etw_encode_image - write the payload.
 * Return: bytes written, -EINVAL (arch; version 2 or 3 only; a NUL unit in
 * the name; in v2 a signature byte, which the version has no room for),
 * -EOVERFLOW (a pointer above 32 bits on x86, in v3 a Reserved0 above
 * 16 bits, unless ETW_ENC_WRAP), -ENOSPC.
 */
int etw_encode_image(uint8_t *buf, size_t cap, enum etl_arch arch, uint8_t version,
		     const struct etw_image *im, unsigned flags);

/**
 * etw_decode_image - read it; @file_name points into @buf. Bytes after the
 * name's NUL are not read (a reader takes later versions' longer records).
 * Return: bytes consumed, or -EINVAL (arch, version, short, no NUL).
 */
int etw_decode_image(const uint8_t *buf, size_t len, enum etl_arch arch, uint8_t version,
		     struct etw_image *im);

/** etw_image_address_len - the KernelBase / HypercallPage payload: one pointer. */
size_t etw_image_address_len(enum etl_arch arch);
/**
 * etw_encode_image_address - 0x1421's ImageBase of ntoskrnl or 0x1422's
 * hypercall page. Return: bytes, -EINVAL (arch), -EOVERFLOW (x86 above 32
 * bits unless ETW_ENC_WRAP), -ENOSPC.
 */
int etw_encode_image_address(uint8_t *buf, size_t cap, enum etl_arch arch, uint64_t va,
			     unsigned flags);
/** etw_decode_image_address - Return: bytes consumed, or -EINVAL (arch, short). */
int etw_decode_image_address(const uint8_t *buf, size_t len, enum etl_arch arch, uint64_t *va);

#endif /* PRODUCER_ETW_IMAGE_H */
