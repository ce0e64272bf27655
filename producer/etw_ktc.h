/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_ktc.h - the image identities KernelTraceControl writes into
 * a merged trace (STACK_IMAGE_FACTS 6), classic events of the GUID
 * {B3E675D7-2554-4F18-830B-2762732560DE} told apart by Class.Type: ImageID
 * 0 (WMI_IMAGEID_INFORMATION v2), DbgID_RSDS 36 and DbgID_ILRSDS 37 (the
 * CodeView RSDS identity: PDB GUID, age and name, v2), None 32 (an image
 * without a debug directory, v2) and FileVersion 64 (the version resource,
 * v0). Their header is an EVENT_TRACE_HEADER (writer/etl_trace_header.h,
 * FULL_HEADER). x64 and x86 by the pointer size; the error policy of
 * etw_process.h.
 */
#ifndef PRODUCER_ETW_KTC_H
#define PRODUCER_ETW_KTC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"
#include "producer/etw_text.h"

/** etw_ktc_guid - the 16 wire bytes of the events' GUID. */
extern const uint8_t etw_ktc_guid[ETW_GUID_LEN];

#define ETW_GUID_STR_LEN 38 /* "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}" */

/**
 * etw_guid_format - the registry form of the GUID whose 16 wire bytes are
 * @g (Data1, Data2, Data3 little-endian, then Data4 as it is), upper case,
 * with braces, NUL-terminated in @out.
 */
void etw_guid_format(const uint8_t *g, char out[ETW_GUID_STR_LEN + 1]);

/**
 * etw_guid_parse - the inverse: "{3C8F0528-9C07-4257-9192-78EA9AA6A1F4}" or
 * the same without braces, either case, into its wire bytes.
 * Return: 0, or -EINVAL (anything else; @g untouched).
 */
int etw_guid_parse(const char *s, uint8_t *g);

/**
 * struct etw_ktc_image_id - ImageID (type 0, v2), packed.
 * @time_date_stamp:    from the file (filled where the kernel's rundown has 0)
 * @original_file_name: the file name alone (L"ntdll.dll")
 */
struct etw_ktc_image_id {
	uint64_t image_base;
	uint64_t image_size;
	uint32_t process_id;
	uint32_t time_date_stamp;
	struct etw_wstr original_file_name;
};

/**
 * struct etw_ktc_dbgid - DbgID_RSDS (type 36) and DbgID_ILRSDS (37), v2; also
 * None (type 32), which has only @image_base and @process_id.
 * @guid:          GuidSig, the PDB's GUID as its 16 wire bytes (Data1..3
 *                 little-endian)
 * @age:           the PDB's age
 * @pdb_file_name: ANSI / UTF-8 (the path of the CodeView record, or a bare
 *                 name); encode: NULL is ""; decode: points into the record
 */
struct etw_ktc_dbgid {
	uint64_t image_base;
	uint32_t process_id;
	uint8_t guid[ETW_GUID_LEN];
	uint32_t age;
	const char *pdb_file_name;
};

/**
 * struct etw_ktc_file_version - FileVersion (type 64, v0): no ImageBase and
 * no ProcessId (the header's ProcessId says which process).
 * @strings: OrigFileName, FileDescription, FileVersion, BinFileVersion,
 *           VerLanguage, ProductName, CompanyName, ProductVersion, FileId,
 *           ProgramId, in that order (empty ones are a lone NUL)
 */
struct etw_ktc_file_version {
	uint32_t image_size;
	uint32_t time_date_stamp;
	struct etw_wstr strings[ETW_KFV_NSTRINGS];
};

/** etw_ktc_image_id_len - 0x18 (x64) / 0x10 (x86) + the name and its NUL; 0 for a bad @arch. */
size_t etw_ktc_image_id_len(enum etl_arch arch, const struct etw_ktc_image_id *k);
/**
 * etw_encode_ktc_image_id - Return: bytes, -EINVAL (arch, NUL in the name),
 * -EOVERFLOW (x86 pointer above 32 bits unless ETW_ENC_WRAP), -ENOSPC.
 */
int etw_encode_ktc_image_id(uint8_t *buf, size_t cap, enum etl_arch arch,
			    const struct etw_ktc_image_id *k, unsigned flags);
/** etw_decode_ktc_image_id - Return: bytes consumed, -EINVAL (arch, short, no NUL). */
int etw_decode_ktc_image_id(const uint8_t *buf, size_t len, enum etl_arch arch,
			    struct etw_ktc_image_id *k);

/**
 * etw_ktc_dbgid_len - RSDS/ILRSDS: 0x20 (x64) / 0x1C (x86) + the PDB name and
 * its NUL; None (@none): 0x0C / 0x08. 0 for a bad @arch.
 */
size_t etw_ktc_dbgid_len(enum etl_arch arch, bool none, const struct etw_ktc_dbgid *d);
/**
 * etw_encode_ktc_dbgid - RSDS/ILRSDS, or None when @none (its other fields
 * ignored). Return: bytes, -EINVAL, -EOVERFLOW (x86), -ENOSPC.
 */
int etw_encode_ktc_dbgid(uint8_t *buf, size_t cap, enum etl_arch arch, bool none,
			 const struct etw_ktc_dbgid *d, unsigned flags);
/**
 * etw_decode_ktc_dbgid - RSDS/ILRSDS (the name points into @buf), or None
 * (the rest zeroed, @pdb_file_name NULL).
 * Return: bytes consumed, or -EINVAL (arch, short, no NUL).
 */
int etw_decode_ktc_dbgid(const uint8_t *buf, size_t len, enum etl_arch arch, bool none,
			 struct etw_ktc_dbgid *d);

/** etw_ktc_file_version_len - 8 + the ten strings and their NULs. */
size_t etw_ktc_file_version_len(const struct etw_ktc_file_version *f);
/** etw_encode_ktc_file_version - Return: bytes, -EINVAL (NUL in a string), -ENOSPC. */
int etw_encode_ktc_file_version(uint8_t *buf, size_t cap, const struct etw_ktc_file_version *f);
/** etw_decode_ktc_file_version - Return: bytes consumed, -EINVAL (short, a string without NUL). */
int etw_decode_ktc_file_version(const uint8_t *buf, size_t len, struct etw_ktc_file_version *f);

#endif /* PRODUCER_ETW_KTC_H */
