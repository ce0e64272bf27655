// SPDX-License-Identifier: MIT
/*
 * producer/etw_process.c - the Process payloads both ways (see
 * etw_process.h). Layout, x64 offsets (x86 in etw_layout.h):
 *
 *   0x00 UniqueProcessKey  0x08 PID  0x0C ParentId  0x10 SessionId
 *   0x14 ExitStatus  0x18 DirectoryTableBase  0x20 Flags
 *   0x24 UserSID: u32 0 | TOKEN_USER {Sid ptr, Attributes, pad} + SID
 *        ImageFileName  ANSI z      (no alignment anywhere from here)
 *        CommandLine    UTF-16 z
 *        PackageFullName UTF-16 z
 *        ApplicationId  UTF-16 z
 *        [v5: ExitTime u64]
 *
 * Encoders measure first and write only once everything is known to fit.
 */
#include <errno.h>
#include <string.h>

#include "producer/etw_process.h"
#include "writer/etl_wire.h"

#define PTR32_MAX 0xFFFFFFFFu

/* Offsets of the fixed part for one pointer size. */
struct process_layout {
	unsigned ptr;
	size_t key, pid, ppid, session, exit_status, dtb, flags, sid, token_user;
};

static const struct process_layout pr64 = {8,
					   ETW_PR64_KEY,
					   ETW_PR64_PID,
					   ETW_PR64_PPID,
					   ETW_PR64_SESSION,
					   ETW_PR64_EXIT_STATUS,
					   ETW_PR64_DTB,
					   ETW_PR64_FLAGS,
					   ETW_PR64_SID,
					   ETW_TOKEN_USER64_LEN};
static const struct process_layout pr32 = {4,
					   ETW_PR32_KEY,
					   ETW_PR32_PID,
					   ETW_PR32_PPID,
					   ETW_PR32_SESSION,
					   ETW_PR32_EXIT_STATUS,
					   ETW_PR32_DTB,
					   ETW_PR32_FLAGS,
					   ETW_PR32_SID,
					   ETW_TOKEN_USER32_LEN};

static const struct process_layout *layout(enum etl_arch arch)
{
	switch (arch) {
	case ETL_ARCH_X64:
		return &pr64;
	case ETL_ARCH_X86:
		return &pr32;
	default:
		return NULL;
	}
}

size_t etw_sid_len(enum etl_arch arch, const struct etw_sid *sid)
{
	const struct process_layout *l = layout(arch);

	if (!l) {
		return 0;
	}
	if (!sid->present) {
		return ETW_SID_NONE_LEN;
	}
	if (sid->sub_count > ETW_SID_MAX_SUB) {
		return 0;
	}
	return l->token_user + ETW_SID_SUB_AUTHORITY + 4u * sid->sub_count;
}

static size_t name_len(const char *s)
{
	return (s ? strlen(s) : 0) + 1;
}

size_t etw_process_len(enum etl_arch arch, uint8_t version, const struct etw_process *p)
{
	const struct process_layout *l = layout(arch);
	size_t sid = etw_sid_len(arch, &p->sid);

	if (!l || sid == 0 ||
	    (version != ETW_PROCESS_VERSION && version != ETW_PROCESS_DEFUNCT_V5)) {
		return 0;
	}
	return l->sid + sid + name_len(p->image_file_name) + 2 * (p->command_line.units + 1) +
	       2 * (p->package_full_name.units + 1) + 2 * (p->application_id.units + 1) +
	       (version == ETW_PROCESS_DEFUNCT_V5 ? ETW_PROCESS_EXIT_TIME_LEN : 0);
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

/* put_sid - the blob at @p; returns its length. */
static size_t put_sid(uint8_t *p, const struct process_layout *l, const struct etw_sid *s)
{
	uint8_t *sid;

	if (!s->present) {
		put_le32(p, 0);
		return ETW_SID_NONE_LEN;
	}
	put_ptr(p, l->ptr, s->token_sid);
	if (l->ptr == 8) {
		put_le32(p + ETW_TU64_ATTRIBUTES, s->attributes);
		put_le32(p + ETW_TU64_PAD, s->token_pad);
	} else {
		put_le32(p + ETW_TU32_ATTRIBUTES, s->attributes);
	}
	sid = p + l->token_user;
	put_u8(sid + ETW_SID_REVISION, s->revision);
	put_u8(sid + ETW_SID_SUB_COUNT, s->sub_count);
	memcpy(sid + ETW_SID_AUTHORITY, s->authority, ETW_SID_AUTHORITY_LEN);
	for (unsigned i = 0; i < s->sub_count; i++) {
		put_le32(sid + ETW_SID_SUB_AUTHORITY + 4 * i, s->sub[i]);
	}
	return l->token_user + ETW_SID_SUB_AUTHORITY + 4u * s->sub_count;
}

int etw_encode_process(uint8_t *buf, size_t cap, enum etl_arch arch, uint8_t version,
		       const struct etw_process *p, unsigned flags)
{
	const struct process_layout *l = layout(arch);
	size_t len = etw_process_len(arch, version, p);
	size_t off, n;

	if (!l || len == 0) {
		return -EINVAL;
	}
	if (p->sid.present && (uint32_t)p->sid.token_sid == 0) {
		return -EINVAL; /* a reader would take the blob for the NULL form */
	}
	if (etw_wstr_has_nul(p->command_line) || etw_wstr_has_nul(p->package_full_name) ||
	    etw_wstr_has_nul(p->application_id)) {
		return -EINVAL;
	}
	if (l->ptr == 4 && !(flags & ETW_ENC_WRAP) &&
	    (p->unique_process_key > PTR32_MAX || p->directory_table_base > PTR32_MAX ||
	     (p->sid.present && p->sid.token_sid > PTR32_MAX))) {
		return -EOVERFLOW;
	}
	if (len > cap) {
		return -ENOSPC;
	}
	put_ptr(buf + l->key, l->ptr, p->unique_process_key);
	put_le32(buf + l->pid, p->process_id);
	put_le32(buf + l->ppid, p->parent_id);
	put_le32(buf + l->session, p->session_id);
	put_le32(buf + l->exit_status, (uint32_t)p->exit_status);
	put_ptr(buf + l->dtb, l->ptr, p->directory_table_base);
	put_le32(buf + l->flags, p->flags);
	off = l->sid + put_sid(buf + l->sid, l, &p->sid);
	n = name_len(p->image_file_name);
	if (n > 1) {
		memcpy(buf + off, p->image_file_name, n - 1);
	}
	put_u8(buf + off + n - 1, 0);
	off += n;
	off += put_wstrz(buf + off, p->command_line);
	off += put_wstrz(buf + off, p->package_full_name);
	off += put_wstrz(buf + off, p->application_id);
	if (version == ETW_PROCESS_DEFUNCT_V5) {
		put_le64(buf + off, p->exit_time);
		off += ETW_PROCESS_EXIT_TIME_LEN;
	}
	return (int)off;
}

/* get_sid - the blob at @buf[*off], within @len; advances *off. */
static int get_sid(const uint8_t *buf, size_t len, size_t *off, const struct process_layout *l,
		   struct etw_sid *s)
{
	const uint8_t *p = buf + *off;
	size_t room = len - *off;
	size_t need;

	memset(s, 0, sizeof(*s));
	if (room < ETW_SID_NONE_LEN) {
		return -EINVAL;
	}
	if (get_le32(p) == 0) {
		*off += ETW_SID_NONE_LEN;
		return 0;
	}
	if (room < l->token_user + ETW_SID_SUB_AUTHORITY) {
		return -EINVAL;
	}
	s->present = true;
	s->token_sid = get_ptr(p, l->ptr);
	if (l->ptr == 8) {
		s->attributes = get_le32(p + ETW_TU64_ATTRIBUTES);
		s->token_pad = get_le32(p + ETW_TU64_PAD);
	} else {
		s->attributes = get_le32(p + ETW_TU32_ATTRIBUTES);
	}
	p += l->token_user;
	s->revision = get_u8(p + ETW_SID_REVISION);
	s->sub_count = get_u8(p + ETW_SID_SUB_COUNT);
	if (s->sub_count > ETW_SID_MAX_SUB) {
		return -EINVAL;
	}
	need = l->token_user + ETW_SID_SUB_AUTHORITY + 4u * s->sub_count;
	if (room < need) {
		return -EINVAL;
	}
	memcpy(s->authority, p + ETW_SID_AUTHORITY, ETW_SID_AUTHORITY_LEN);
	for (unsigned i = 0; i < s->sub_count; i++) {
		s->sub[i] = get_le32(p + ETW_SID_SUB_AUTHORITY + 4 * i);
	}
	*off += need;
	return 0;
}

/* get_wstrz - the UTF-16 z string at @buf[*off], within @len; advances *off. */
static int get_wstrz(const uint8_t *buf, size_t len, size_t *off, struct etw_wstr *w)
{
	long n = etw_wstrz_scan(buf + *off, len - *off);

	if (n < 0) {
		return -EINVAL;
	}
	w->le = n ? buf + *off : NULL;
	w->units = (size_t)n;
	*off += 2 * ((size_t)n + 1);
	return 0;
}

int etw_decode_process(const uint8_t *buf, size_t len, enum etl_arch arch, uint8_t version,
		       struct etw_process *p)
{
	const struct process_layout *l = layout(arch);
	struct etw_process out;
	size_t off;
	long n;

	if (!l || (version != ETW_PROCESS_VERSION && version != ETW_PROCESS_DEFUNCT_V5) ||
	    len < l->sid) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	out.unique_process_key = get_ptr(buf + l->key, l->ptr);
	out.process_id = get_le32(buf + l->pid);
	out.parent_id = get_le32(buf + l->ppid);
	out.session_id = get_le32(buf + l->session);
	out.exit_status = (int32_t)get_le32(buf + l->exit_status);
	out.directory_table_base = get_ptr(buf + l->dtb, l->ptr);
	out.flags = get_le32(buf + l->flags);
	off = l->sid;
	if (get_sid(buf, len, &off, l, &out.sid) < 0) {
		return -EINVAL;
	}
	n = etw_astrz_scan(buf + off, len - off);
	if (n < 0) {
		return -EINVAL;
	}
	out.image_file_name = (const char *)(buf + off);
	off += (size_t)n + 1;
	if (get_wstrz(buf, len, &off, &out.command_line) < 0 ||
	    get_wstrz(buf, len, &off, &out.package_full_name) < 0 ||
	    get_wstrz(buf, len, &off, &out.application_id) < 0) {
		return -EINVAL;
	}
	if (version == ETW_PROCESS_DEFUNCT_V5) {
		if (len - off < ETW_PROCESS_EXIT_TIME_LEN) {
			return -EINVAL;
		}
		out.exit_time = get_le64(buf + off);
		off += ETW_PROCESS_EXIT_TIME_LEN;
	}
	*p = out;
	return (int)off;
}

int etw_encode_process_terminate(uint8_t *buf, size_t cap, uint32_t process_id)
{
	if (cap < ETW_PROCESS_TERMINATE_LEN) {
		return -ENOSPC;
	}
	put_le32(buf, process_id);
	return ETW_PROCESS_TERMINATE_LEN;
}

int etw_decode_process_terminate(const uint8_t *buf, size_t len, uint32_t *process_id)
{
	if (len < ETW_PROCESS_TERMINATE_LEN) {
		return -EINVAL;
	}
	*process_id = get_le32(buf);
	return ETW_PROCESS_TERMINATE_LEN;
}

/* One decimal (or 0x hex) number of a SID string at *@p, at most @max. */
static int sid_number(const char **p, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	unsigned base = 10;
	uint64_t v = 0;
	bool any = false;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (;; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9') {
			d = (unsigned)(*s - '0');
		} else if (base == 16 && ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')) {
			d = (unsigned)((*s | 0x20) - 'a' + 10);
		} else {
			break;
		}
		if (v > (max - d) / base) {
			return -EINVAL;
		}
		v = v * base + d;
		any = true;
	}
	if (!any) {
		return -EINVAL;
	}
	*p = s;
	*out = v;
	return 0;
}

int etw_sid_parse(const char *str, struct etw_sid *out)
{
	const char *p = str;
	uint64_t v, auth;

	memset(out, 0, sizeof(*out));
	if (!str || (p[0] != 'S' && p[0] != 's') || p[1] != '-') {
		return -EINVAL;
	}
	p += 2;
	if (sid_number(&p, UINT8_MAX, &v) < 0 || v == 0 || *p++ != '-' ||
	    sid_number(&p, (1ull << 48) - 1u, &auth) < 0) {
		return -EINVAL;
	}
	out->revision = (uint8_t)v;
	for (unsigned k = 0; k < ETW_SID_AUTHORITY_LEN; k++) {
		out->authority[k] = (uint8_t)(auth >> (8u * (ETW_SID_AUTHORITY_LEN - 1u - k)));
	}
	while (*p == '-') {
		p++;
		if (out->sub_count == ETW_SID_MAX_SUB || sid_number(&p, UINT32_MAX, &v) < 0) {
			return -EINVAL;
		}
		out->sub[out->sub_count++] = (uint32_t)v;
	}
	if (*p) {
		return -EINVAL;
	}
	out->present = true;
	return 0;
}
