/* SPDX-License-Identifier: MIT */
/*
 * producer/records/image.h - the image records, described once: Load
 * 0x030A, Unload 0x1402, DCStart 0x1403, DCEnd 0x1404 (v2, v3 with the
 * signature bytes) and the two addresses of the stop rundown, KernelBase
 * 0x1421 and HypercallPage 0x1422. Encoded and decoded by
 * producer/etw_image.c. The columns are those of producer/records/process.h.
 *
 * ETW_IMAGE_FIELDS(F, x) - WMI_IMAGELOAD_INFORMATION from the decoder's
 * struct etw_image *w, in wire order (Reserved1..4 are not listed: 0 in
 * every real record, kept in w->reserved).
 * ETW_IMAGE_ADDRESS_FIELDS(F, x) - 0x1421 / 0x1422 from uint64_t *w: ntoskrnl's
 * ImageBase, or the hypercall page's address, as the base of struct
 * etwforge_image.
 */
#ifndef PRODUCER_RECORDS_IMAGE_H
#define PRODUCER_RECORDS_IMAGE_H

/* clang-format off */
#define ETW_IMAGE_FIELDS(F, x)                                                                     \
	F(x, base,            uint64_t,        HEX,  1,        w->image_base,      0x00, 0x00,     \
	  "ImageBase")                                                                             \
	F(x, size,            uint64_t,        HEX,  1,        w->image_size,      0x08, 0x04,     \
	  "ImageSize")                                                                             \
	F(x, pid,             uint32_t,        U,    1,        w->process_id,      0x10, 0x08,     \
	  "ProcessId")                                                                             \
	F(x, checksum,        uint32_t,        HEX,  1,        w->checksum,        0x14, 0x0C,     \
	  "ImageCheckSum")                                                                         \
	F(x, timestamp,       uint32_t,        HEX,  1,        w->time_date_stamp, 0x18, 0x10,     \
	  "TimeDateStamp")                                                                         \
	F(x, signature_level, uint8_t,         U,    ver >= 3, w->signature_level, 0x1C, 0x14,     \
	  "SignatureLevel")                                                                        \
	F(x, signature_type,  uint8_t,         U,    ver >= 3, w->signature_type,  0x1D, 0x15,     \
	  "SignatureType")                                                                         \
	F(x, default_base,    uint64_t,        HEX,  1,        w->default_base,    0x20, 0x18,     \
	  "DefaultBase")                                                                           \
	F(x, file_name,       struct etw_wstr, WSTR, 1,        w->file_name,       0x38, 0x2C,     \
	  "FileName")

#define ETW_IMAGE_ADDRESS_FIELDS(F, x)                                                             \
	F(x, base,            uint64_t,        HEX,  1,        *w,                 0x00, 0x00,     \
	  "ImageBase")
/* clang-format on */

#endif /* PRODUCER_RECORDS_IMAGE_H */
