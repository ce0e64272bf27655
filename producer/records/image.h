/* SPDX-License-Identifier: MIT */
/*
 * producer/records/image.h - the image records, described once: Load
 * 0x030A, Unload 0x1402, DCStart 0x1403, DCEnd 0x1404 (v2, v3 with the
 * signature bytes) and the two addresses of the stop rundown, KernelBase
 * 0x1421 and HypercallPage 0x1422. Encoded and decoded by
 * producer/etw_image.c. The columns are those of producer/records/process.h.
 *
 * SIM_IMAGE_FIELDS(F, C, x) - the truth's "image" line: what the machine
 * tells the logging code about an image mapped or unmapped (load, unload),
 * or found by a rundown (dcstart, dcend), and the two addresses of the
 * stop rundown (kernel_base, hypercall_page: @base alone). Its fields carry
 * the image's own values; the producer applies Windows' rules: a process's
 * DCStart/DCEnd gets TimeDateStamp 0 (every such real record has it), and a
 * v2 target has no room for the signature bytes. The PDB identity is in no
 * kernel record: it is what a merge's KernelTraceControl records
 * (producer/records/ktc.h) would carry, DbgID_RSDS when @pdb_guid is set,
 * else None; the truth keeps it with the image.
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

#define SIM_SIGNATURE_LEVEL_MAX 15 /* SE_SIGNING_LEVEL_* */

/* clang-format off */
#define SIM_IMAGE_FIELDS(F, C, x)                                                                  \
	F(x, cpu,             uint32_t,       BUF,   0, 0,             REQ, 0, ALWAYS)             \
	F(x, ts,              uint64_t,       TS,    0, 0,             REQ, 0, ALWAYS)             \
	/* load, unload, dcstart, dcend, kernel_base, hypercall_page */                            \
	F(x, event,           enum sim_event, EVENT, 0, SIM_EV_IMAGE,  REQ, 0, ALWAYS)             \
	/* SYSTEM header (load, unload, a kernel module's rundown): the loading, unloading or       \
	   rundown thread and its times */                                                         \
	F(x, ctx_tid,         uint32_t,       U,     0, UINT32_MAX,    OPT, 0, ALWAYS)             \
	F(x, ctx_pid,         uint32_t,       U,     0, UINT32_MAX,    OPT, 0, ALWAYS)             \
	F(x, kernel_time,     uint32_t,       U,     0, UINT32_MAX,    OPT, 0, ALWAYS)             \
	F(x, user_time,       uint32_t,       U,     0, UINT32_MAX,    OPT, 0, ALWAYS)             \
	/* ImageBase; kernel_base: ntoskrnl's, hypercall_page: the page's address */               \
	F(x, base,            uint64_t,       ADDR,  0, 0,             REQ, 0, ALWAYS)             \
	F(x, size,            uint64_t,       ADDR,  0, 0,             OPT, 0, ALWAYS)             \
	/* the address space's process; 0 for a kernel module */                                   \
	F(x, pid,             uint32_t,       U,     0, UINT32_MAX,    OPT, 0, ALWAYS)             \
	F(x, checksum,        uint32_t,       U,     0, UINT32_MAX,    OPT, 0, ALWAYS)             \
	/* the PE TimeDateStamp */                                                                 \
	F(x, timestamp,       uint32_t,       U,     0, UINT32_MAX,    OPT, 0, ALWAYS)             \
	F(x, signature_level, uint8_t,        U,     0, SIM_SIGNATURE_LEVEL_MAX, OPT, 0, ALWAYS)   \
	F(x, signature_type,  uint8_t,        U,     0, UINT8_MAX,     OPT, 0, ALWAYS)             \
	/* the preferred base: the base for a 64-bit image, 0 for a kernel module */               \
	F(x, default_base,    uint64_t,       ADDR,  0, 0,             OPT, 0, ALWAYS)             \
	F(x, file_name,       const char *,   TEXT,  0, 0,             OPT, 0, SET)                \
	/* the CodeView identity: "3C8F0528-9C07-4257-9192-78EA9AA6A1F4", none: no debug record */ \
	F(x, pdb_guid,        const char *,   TEXT,  0, 0,             OPT, 0, SET)                \
	F(x, pdb_age,         uint32_t,       U,     0, UINT32_MAX,    OPT, 0, ALWAYS)             \
	F(x, pdb_name,        const char *,   TEXT,  0, 0,             OPT, 0, SET)                \
	C(x, pdb_guid)

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
