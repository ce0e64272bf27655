// SPDX-License-Identifier: MIT
/*
 * producer/etw_ktc.c - the KernelTraceControl image identities both ways
 * (see etw_ktc.h). Offsets x64 / x86, relative to the payload (after the
 * 0x30-byte EVENT_TRACE_HEADER):
 *
 *   ImageID      0x00 ImageBase ptr  0x08/0x04 ImageSize ptr
 *                0x10/0x08 ProcessId  0x14/0x0C TimeDateStamp
 *                0x18/0x10 OriginalFileName UTF-16 z          (pack 1)
 *   DbgID_RSDS   0x00 ImageBase ptr  0x08/0x04 ProcessId
 *   DbgID_ILRSDS 0x0C/0x08 GuidSig (16)  0x1C/0x18 Age
 *                0x20/0x1C PdbFileName ANSI z
 *   None         0x00 ImageBase ptr  0x08/0x04 ProcessId
 *   FileVersion  0x00 ImageSize u32  0x04 TimeDateStamp  0x08 ten UTF-16 z
 */
#include <errno.h>
#include <string.h>

#include "producer/etw_ktc.h"
#include "writer/etl_wire.h"

#define PTR32_MAX 0xFFFFFFFFu

const uint8_t etw_ktc_guid[ETW_GUID_LEN] = ETW_KTC_GUID_BYTES;

/* The wire index of each hex pair of a GUID's text, in the text's order. */
static const uint8_t guid_order[ETW_GUID_LEN] = {3, 2, 1,  0,  5,  4,  7,  6,
						 8, 9, 10, 11, 12, 13, 14, 15};

void etw_guid_format(const uint8_t *g, char out[ETW_GUID_STR_LEN + 1])
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	out[o++] = '{';
	for (unsigned i = 0; i < ETW_GUID_LEN; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10) {
			out[o++] = '-';
		}
		out[o++] = hex[g[guid_order[i]] >> 4];
		out[o++] = hex[g[guid_order[i]] & 0xF];
	}
	out[o++] = '}';
	out[o] = 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int etw_guid_parse(const char *s, uint8_t *g)
{
	uint8_t out[ETW_GUID_LEN];
	bool brace = s[0] == '{';
	const char *p = s + brace;

	for (unsigned i = 0; i < ETW_GUID_LEN; i++) {
		int hi, lo;

		if (i == 4 || i == 6 || i == 8 || i == 10) {
			if (*p++ != '-') {
				return -EINVAL;
			}
		}
		hi = hex_digit(p[0]);
		lo = hi < 0 ? -1 : hex_digit(p[1]);
		if (lo < 0) {
			return -EINVAL;
		}
		out[guid_order[i]] = (uint8_t)(hi << 4 | lo);
		p += 2;
	}
	if ((brace && *p++ != '}') || *p) {
		return -EINVAL;
	}
	memcpy(g, out, ETW_GUID_LEN);
	return 0;
}

struct ktc_layout {
	unsigned ptr;
	size_t id_size, id_pid, id_tds, id_name;
	size_t db_pid, db_guid, db_age, db_pdb;
};

static const struct ktc_layout k64 = {8,
				      ETW_KID64_SIZE,
				      ETW_KID64_PID,
				      ETW_KID64_TIMESTAMP,
				      ETW_KID64_NAME,
				      ETW_KDB64_PID,
				      ETW_KDB64_GUID,
				      ETW_KDB64_AGE,
				      ETW_KDB64_PDB};
static const struct ktc_layout k32 = {4,
				      ETW_KID32_SIZE,
				      ETW_KID32_PID,
				      ETW_KID32_TIMESTAMP,
				      ETW_KID32_NAME,
				      ETW_KDB32_PID,
				      ETW_KDB32_GUID,
				      ETW_KDB32_AGE,
				      ETW_KDB32_PDB};

static const struct ktc_layout *layout(enum etl_arch arch)
{
	switch (arch) {
	case ETL_ARCH_X64:
		return &k64;
	case ETL_ARCH_X86:
		return &k32;
	default:
		return NULL;
	}
}

/* put_wstrz - the string's units then a NUL unit; returns the bytes written. */
static size_t put_wstrz(uint8_t *p, struct etw_wstr w)
{
	if (w.units) {
		memcpy(p, w.le, 2 * w.units);
	}
	put_le16(p + 2 * w.units, 0);
	return 2 * (w.units + 1);
}

/* get_wstrz - the UTF-16 z string at @buf[*off], within @len; advances *off. */
static int get_wstrz(const uint8_t *buf, size_t len, size_t *off, struct etw_wstr *w)
{
	long n = *off <= len ? etw_wstrz_scan(buf + *off, len - *off) : -EINVAL;

	if (n < 0) {
		return -EINVAL;
	}
	w->le = n ? buf + *off : NULL;
	w->units = (size_t)n;
	*off += 2 * ((size_t)n + 1);
	return 0;
}

size_t etw_ktc_image_id_len(enum etl_arch arch, const struct etw_ktc_image_id *k)
{
	const struct ktc_layout *l = layout(arch);

	return l ? l->id_name + 2 * (k->original_file_name.units + 1) : 0;
}

int etw_encode_ktc_image_id(uint8_t *buf, size_t cap, enum etl_arch arch,
			    const struct etw_ktc_image_id *k, unsigned flags)
{
	const struct ktc_layout *l = layout(arch);
	size_t len = etw_ktc_image_id_len(arch, k);

	if (!l || etw_wstr_has_nul(k->original_file_name)) {
		return -EINVAL;
	}
	if (l->ptr == 4 && !(flags & ETW_ENC_WRAP) &&
	    (k->image_base > PTR32_MAX || k->image_size > PTR32_MAX)) {
		return -EOVERFLOW;
	}
	if (cap < len) {
		return -ENOSPC;
	}
	put_ptr(buf, l->ptr, k->image_base);
	put_ptr(buf + l->id_size, l->ptr, k->image_size);
	put_le32(buf + l->id_pid, k->process_id);
	put_le32(buf + l->id_tds, k->time_date_stamp);
	put_wstrz(buf + l->id_name, k->original_file_name);
	return (int)len;
}

int etw_decode_ktc_image_id(const uint8_t *buf, size_t len, enum etl_arch arch,
			    struct etw_ktc_image_id *k)
{
	const struct ktc_layout *l = layout(arch);
	struct etw_ktc_image_id out;
	size_t off;

	if (!l || len < l->id_name) {
		return -EINVAL;
	}
	off = l->id_name;
	if (get_wstrz(buf, len, &off, &out.original_file_name) < 0) {
		return -EINVAL;
	}
	out.image_base = get_ptr(buf, l->ptr);
	out.image_size = get_ptr(buf + l->id_size, l->ptr);
	out.process_id = get_le32(buf + l->id_pid);
	out.time_date_stamp = get_le32(buf + l->id_tds);
	*k = out;
	return (int)off;
}

size_t etw_ktc_dbgid_len(enum etl_arch arch, bool none, const struct etw_ktc_dbgid *d)
{
	const struct ktc_layout *l = layout(arch);

	if (!l) {
		return 0;
	}
	if (none) {
		return l->db_pid + 4;
	}
	return l->db_pdb + (d->pdb_file_name ? strlen(d->pdb_file_name) : 0) + 1;
}

int etw_encode_ktc_dbgid(uint8_t *buf, size_t cap, enum etl_arch arch, bool none,
			 const struct etw_ktc_dbgid *d, unsigned flags)
{
	const struct ktc_layout *l = layout(arch);
	size_t len = etw_ktc_dbgid_len(arch, none, d);
	size_t n;

	if (!l) {
		return -EINVAL;
	}
	if (l->ptr == 4 && !(flags & ETW_ENC_WRAP) && d->image_base > PTR32_MAX) {
		return -EOVERFLOW;
	}
	if (cap < len) {
		return -ENOSPC;
	}
	put_ptr(buf, l->ptr, d->image_base);
	put_le32(buf + l->db_pid, d->process_id);
	if (none) {
		return (int)len;
	}
	memcpy(buf + l->db_guid, d->guid, ETW_GUID_LEN);
	put_le32(buf + l->db_age, d->age);
	n = len - l->db_pdb - 1;
	if (n) {
		memcpy(buf + l->db_pdb, d->pdb_file_name, n);
	}
	put_u8(buf + l->db_pdb + n, 0);
	return (int)len;
}

int etw_decode_ktc_dbgid(const uint8_t *buf, size_t len, enum etl_arch arch, bool none,
			 struct etw_ktc_dbgid *d)
{
	const struct ktc_layout *l = layout(arch);
	struct etw_ktc_dbgid out;
	long n;

	if (!l || len < (none ? l->db_pid + 4 : l->db_pdb)) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	out.image_base = get_ptr(buf, l->ptr);
	out.process_id = get_le32(buf + l->db_pid);
	if (none) {
		*d = out;
		return (int)(l->db_pid + 4);
	}
	n = etw_astrz_scan(buf + l->db_pdb, len - l->db_pdb);
	if (n < 0) {
		return -EINVAL;
	}
	memcpy(out.guid, buf + l->db_guid, ETW_GUID_LEN);
	out.age = get_le32(buf + l->db_age);
	out.pdb_file_name = (const char *)(buf + l->db_pdb);
	*d = out;
	return (int)(l->db_pdb + (size_t)n + 1);
}

size_t etw_ktc_file_version_len(const struct etw_ktc_file_version *f)
{
	size_t len = ETW_KFV_STRINGS;

	for (unsigned i = 0; i < ETW_KFV_NSTRINGS; i++) {
		len += 2 * (f->strings[i].units + 1);
	}
	return len;
}

int etw_encode_ktc_file_version(uint8_t *buf, size_t cap, const struct etw_ktc_file_version *f)
{
	size_t len = etw_ktc_file_version_len(f);
	size_t off = ETW_KFV_STRINGS;

	for (unsigned i = 0; i < ETW_KFV_NSTRINGS; i++) {
		if (etw_wstr_has_nul(f->strings[i])) {
			return -EINVAL;
		}
	}
	if (cap < len) {
		return -ENOSPC;
	}
	put_le32(buf + ETW_KFV_SIZE, f->image_size);
	put_le32(buf + ETW_KFV_TIMESTAMP, f->time_date_stamp);
	for (unsigned i = 0; i < ETW_KFV_NSTRINGS; i++) {
		off += put_wstrz(buf + off, f->strings[i]);
	}
	return (int)len;
}

int etw_decode_ktc_file_version(const uint8_t *buf, size_t len, struct etw_ktc_file_version *f)
{
	struct etw_ktc_file_version out;
	size_t off = ETW_KFV_STRINGS;

	if (len < ETW_KFV_STRINGS) {
		return -EINVAL;
	}
	out.image_size = get_le32(buf + ETW_KFV_SIZE);
	out.time_date_stamp = get_le32(buf + ETW_KFV_TIMESTAMP);
	for (unsigned i = 0; i < ETW_KFV_NSTRINGS; i++) {
		if (get_wstrz(buf, len, &off, &out.strings[i]) < 0) {
			return -EINVAL;
		}
	}
	*f = out;
	return (int)off;
}
