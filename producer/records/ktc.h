/* SPDX-License-Identifier: MIT */
/*
 * producer/records/ktc.h - the KernelTraceControl image identities a merge
 * adds, described once: ImageID (type 0), DbgID_RSDS / DbgID_ILRSDS (36 /
 * 37), None (32) and FileVersion (64), classic events of
 * {B3E675D7-2554-4F18-830B-2762732560DE}. Encoded and decoded by
 * producer/etw_ktc.c. The columns are those of producer/records/process.h,
 * with one more "json" how: GUID (16 wire bytes, printed as
 * etw_guid_format() does).
 *
 * ETW_KTC_IMAGE_ID_FIELDS(F, x) from struct etw_ktc_image_id *w;
 * ETW_KTC_DBGID_FIELDS(F, x) from struct etw_ktc_dbgid *w (None: the first
 * two rows, jwhen "some" false for the rest); ETW_KTC_FILE_VERSION_FIELDS(F,
 * x) from struct etw_ktc_file_version *w.
 */
#ifndef PRODUCER_RECORDS_KTC_H
#define PRODUCER_RECORDS_KTC_H

/* clang-format off */
#define ETW_KTC_IMAGE_ID_FIELDS(F, x)                                                              \
	F(x, base,      uint64_t,        HEX,  1, w->image_base,         0x00, 0x00, "ImageBase")  \
	F(x, size,      uint64_t,        HEX,  1, w->image_size,         0x08, 0x04, "ImageSize")  \
	F(x, pid,       uint32_t,        U,    1, w->process_id,         0x10, 0x08, "ProcessId")  \
	F(x, timestamp, uint32_t,        HEX,  1, w->time_date_stamp,    0x14, 0x0C,               \
	  "TimeDateStamp")                                                                         \
	F(x, file_name, struct etw_wstr, WSTR, 1, w->original_file_name, 0x18, 0x10,               \
	  "OriginalFileName")

/* some: false for None, which ends after ProcessId */
#define ETW_KTC_DBGID_FIELDS(F, x)                                                                 \
	F(x, base,      uint64_t,        HEX,  1,    w->image_base,    0x00, 0x00, "ImageBase")    \
	F(x, pid,       uint32_t,        U,    1,    w->process_id,    0x08, 0x04, "ProcessId")    \
	F(x, guid,      const uint8_t *, GUID, some, w->guid,          0x0C, 0x08, "GuidSig")      \
	F(x, age,       uint32_t,        U,    some, w->age,           0x1C, 0x18, "Age")          \
	F(x, pdb,       const char *,    ASTR, some, w->pdb_file_name, 0x20, 0x1C, "PdbFileName")

#define ETW_KTC_FILE_VERSION_FIELDS(F, x)                                                          \
	F(x, size,      uint32_t,        HEX,  1, w->image_size,      0x00, 0x00, "ImageSize")     \
	F(x, timestamp, uint32_t,        HEX,  1, w->time_date_stamp, 0x04, 0x04, "TimeDateStamp") \
	F(x, orig_file_name,    struct etw_wstr, WSTR, 1, w->strings[0], 0x08, 0x08,               \
	  "OrigFileName")                                                                          \
	F(x, file_description,  struct etw_wstr, WSTR, 1, w->strings[1], ETW_AT_VAR, ETW_AT_VAR,   \
	  "FileDescription")                                                                       \
	F(x, file_version,      struct etw_wstr, WSTR, 1, w->strings[2], ETW_AT_VAR, ETW_AT_VAR,   \
	  "FileVersion")                                                                           \
	F(x, bin_file_version,  struct etw_wstr, WSTR, 1, w->strings[3], ETW_AT_VAR, ETW_AT_VAR,   \
	  "BinFileVersion")                                                                        \
	F(x, ver_language,      struct etw_wstr, WSTR, 1, w->strings[4], ETW_AT_VAR, ETW_AT_VAR,   \
	  "VerLanguage")                                                                           \
	F(x, product_name,      struct etw_wstr, WSTR, 1, w->strings[5], ETW_AT_VAR, ETW_AT_VAR,   \
	  "ProductName")                                                                           \
	F(x, company_name,      struct etw_wstr, WSTR, 1, w->strings[6], ETW_AT_VAR, ETW_AT_VAR,   \
	  "CompanyName")                                                                           \
	F(x, product_version,   struct etw_wstr, WSTR, 1, w->strings[7], ETW_AT_VAR, ETW_AT_VAR,   \
	  "ProductVersion")                                                                        \
	F(x, file_id,           struct etw_wstr, WSTR, 1, w->strings[8], ETW_AT_VAR, ETW_AT_VAR,   \
	  "FileId")                                                                                \
	F(x, program_id,        struct etw_wstr, WSTR, 1, w->strings[9], ETW_AT_VAR, ETW_AT_VAR,   \
	  "ProgramId")
/* clang-format on */

#endif /* PRODUCER_RECORDS_KTC_H */
