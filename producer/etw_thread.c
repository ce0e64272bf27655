// SPDX-License-Identifier: MIT
/*
 * producer/etw_thread.c - the Thread payloads both ways (see etw_thread.h).
 * Thread v3, x64 offsets (x86 in etw_layout.h):
 *
 *   0x00 ProcessId  0x04 TThreadId  0x08 StackBase  0x10 StackLimit
 *   0x18 UserStackBase  0x20 UserStackLimit  0x28 Affinity
 *   0x30 Win32StartAddr  0x38 TebBase  0x40 SubProcessTag
 *   0x44 BasePriority  0x45 PagePriority  0x46 IoPriority  0x47 ThreadFlags
 *   0x48 [ThreadName UTF-16 z: 18362's v3, and every v4]
 */
#include <errno.h>
#include <string.h>

#include "producer/etw_thread.h"
#include "writer/etl_wire.h"

#define PTR32_MAX 0xFFFFFFFFu

struct thread_layout {
	unsigned ptr;
	size_t pid, tid, stack_base, stack_limit, ustack_base, ustack_limit, affinity, win32_start,
		teb, sub_tag, base_pri, page_pri, io_pri, flags, len;
};

static const struct thread_layout th64 = {
	8,
	ETW_TH64_PID,
	ETW_TH64_TID,
	ETW_TH64_STACK_BASE,
	ETW_TH64_STACK_LIMIT,
	ETW_TH64_USTACK_BASE,
	ETW_TH64_USTACK_LIMIT,
	ETW_TH64_AFFINITY,
	ETW_TH64_WIN32_START,
	ETW_TH64_TEB,
	ETW_TH64_SUB_TAG,
	ETW_TH64_BASE_PRI,
	ETW_TH64_PAGE_PRI,
	ETW_TH64_IO_PRI,
	ETW_TH64_FLAGS,
	ETW_TH64_LEN,
};
static const struct thread_layout th32 = {
	4,
	ETW_TH32_PID,
	ETW_TH32_TID,
	ETW_TH32_STACK_BASE,
	ETW_TH32_STACK_LIMIT,
	ETW_TH32_USTACK_BASE,
	ETW_TH32_USTACK_LIMIT,
	ETW_TH32_AFFINITY,
	ETW_TH32_WIN32_START,
	ETW_TH32_TEB,
	ETW_TH32_SUB_TAG,
	ETW_TH32_BASE_PRI,
	ETW_TH32_PAGE_PRI,
	ETW_TH32_IO_PRI,
	ETW_TH32_FLAGS,
	ETW_TH32_LEN,
};

static const struct thread_layout *layout(enum etl_arch arch, uint8_t version)
{
	if (version != ETW_THREAD_VERSION && version != ETW_THREAD_V4) {
		return NULL;
	}
	switch (arch) {
	case ETL_ARCH_X64:
		return &th64;
	case ETL_ARCH_X86:
		return &th32;
	default:
		return NULL;
	}
}

static bool carries_name(uint8_t version, const struct etw_thread *t)
{
	return version == ETW_THREAD_V4 || t->has_name;
}

size_t etw_thread_len(enum etl_arch arch, uint8_t version, const struct etw_thread *t)
{
	const struct thread_layout *l = layout(arch, version);

	if (!l) {
		return 0;
	}
	return l->len + (carries_name(version, t) ? 2 * (t->name.units + 1) : 0);
}

int etw_encode_thread(uint8_t *buf, size_t cap, enum etl_arch arch, uint8_t version,
		      const struct etw_thread *t, unsigned flags)
{
	const struct thread_layout *l = layout(arch, version);
	size_t len = etw_thread_len(arch, version, t);

	if (!l) {
		return -EINVAL;
	}
	if (carries_name(version, t) && etw_wstr_has_nul(t->name)) {
		return -EINVAL;
	}
	if (l->ptr == 4 && !(flags & ETW_ENC_WRAP) &&
	    (t->stack_base > PTR32_MAX || t->stack_limit > PTR32_MAX ||
	     t->user_stack_base > PTR32_MAX || t->user_stack_limit > PTR32_MAX ||
	     t->affinity > PTR32_MAX || t->win32_start_address > PTR32_MAX ||
	     t->teb_base > PTR32_MAX)) {
		return -EOVERFLOW;
	}
	if (len > cap) {
		return -ENOSPC;
	}
	put_le32(buf + l->pid, t->process_id);
	put_le32(buf + l->tid, t->thread_id);
	put_ptr(buf + l->stack_base, l->ptr, t->stack_base);
	put_ptr(buf + l->stack_limit, l->ptr, t->stack_limit);
	put_ptr(buf + l->ustack_base, l->ptr, t->user_stack_base);
	put_ptr(buf + l->ustack_limit, l->ptr, t->user_stack_limit);
	put_ptr(buf + l->affinity, l->ptr, t->affinity);
	put_ptr(buf + l->win32_start, l->ptr, t->win32_start_address);
	put_ptr(buf + l->teb, l->ptr, t->teb_base);
	put_le32(buf + l->sub_tag, t->sub_process_tag);
	put_u8(buf + l->base_pri, (uint8_t)t->base_priority);
	put_u8(buf + l->page_pri, t->page_priority);
	put_u8(buf + l->io_pri, t->io_priority);
	put_u8(buf + l->flags, t->flags);
	if (carries_name(version, t)) {
		if (t->name.units) {
			memcpy(buf + l->len, t->name.le, 2 * t->name.units);
		}
		put_le16(buf + l->len + 2 * t->name.units, 0);
	}
	return (int)len;
}

int etw_decode_thread(const uint8_t *buf, size_t len, enum etl_arch arch, uint8_t version,
		      struct etw_thread *t)
{
	const struct thread_layout *l = layout(arch, version);
	struct etw_thread out;
	size_t used;
	long n;

	if (!l || len < l->len) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	out.process_id = get_le32(buf + l->pid);
	out.thread_id = get_le32(buf + l->tid);
	out.stack_base = get_ptr(buf + l->stack_base, l->ptr);
	out.stack_limit = get_ptr(buf + l->stack_limit, l->ptr);
	out.user_stack_base = get_ptr(buf + l->ustack_base, l->ptr);
	out.user_stack_limit = get_ptr(buf + l->ustack_limit, l->ptr);
	out.affinity = get_ptr(buf + l->affinity, l->ptr);
	out.win32_start_address = get_ptr(buf + l->win32_start, l->ptr);
	out.teb_base = get_ptr(buf + l->teb, l->ptr);
	out.sub_process_tag = get_le32(buf + l->sub_tag);
	out.base_priority = (int8_t)get_u8(buf + l->base_pri);
	out.page_priority = get_u8(buf + l->page_pri);
	out.io_priority = get_u8(buf + l->io_pri);
	out.flags = get_u8(buf + l->flags);
	used = l->len;
	if (version == ETW_THREAD_V4 || len > l->len) {
		n = etw_wstrz_scan(buf + l->len, len - l->len);
		if (n < 0) {
			return -EINVAL;
		}
		out.has_name = true;
		out.name.le = n ? buf + l->len : NULL;
		out.name.units = (size_t)n;
		used += 2 * ((size_t)n + 1);
	}
	*t = out;
	return (int)used;
}

size_t etw_thread_set_name_len(const struct etw_thread_set_name *s)
{
	return ETW_TSN_NAME + 2 * (s->name.units + 1);
}

int etw_encode_thread_set_name(uint8_t *buf, size_t cap, const struct etw_thread_set_name *s)
{
	size_t len = etw_thread_set_name_len(s);

	if (etw_wstr_has_nul(s->name)) {
		return -EINVAL;
	}
	if (len > cap) {
		return -ENOSPC;
	}
	put_le32(buf + ETW_TSN_PID, s->process_id);
	put_le32(buf + ETW_TSN_TID, s->thread_id);
	if (s->name.units) {
		memcpy(buf + ETW_TSN_NAME, s->name.le, 2 * s->name.units);
	}
	put_le16(buf + ETW_TSN_NAME + 2 * s->name.units, 0);
	return (int)len;
}

int etw_decode_thread_set_name(const uint8_t *buf, size_t len, struct etw_thread_set_name *s)
{
	long n;

	if (len < ETW_TSN_NAME) {
		return -EINVAL;
	}
	n = etw_wstrz_scan(buf + ETW_TSN_NAME, len - ETW_TSN_NAME);
	if (n < 0) {
		return -EINVAL;
	}
	s->process_id = get_le32(buf + ETW_TSN_PID);
	s->thread_id = get_le32(buf + ETW_TSN_TID);
	s->name.le = n ? buf + ETW_TSN_NAME : NULL;
	s->name.units = (size_t)n;
	return (int)(ETW_TSN_NAME + 2 * ((size_t)n + 1));
}

int etw_encode_ready_thread(uint8_t *buf, size_t cap, const struct etw_ready_thread *r)
{
	if (cap < ETW_RT_LEN) {
		return -ENOSPC;
	}
	put_le32(buf + ETW_RT_TID, r->thread_id);
	put_u8(buf + ETW_RT_ADJUST_REASON, (uint8_t)r->adjust_reason);
	put_u8(buf + ETW_RT_ADJUST_INCREMENT, (uint8_t)r->adjust_increment);
	put_u8(buf + ETW_RT_FLAGS, r->flags);
	put_u8(buf + ETW_RT_RESERVED, r->reserved);
	return ETW_RT_LEN;
}

int etw_decode_ready_thread(const uint8_t *buf, size_t len, struct etw_ready_thread *r)
{
	if (len < ETW_RT_LEN) {
		return -EINVAL;
	}
	r->thread_id = get_le32(buf + ETW_RT_TID);
	r->adjust_reason = (int8_t)get_u8(buf + ETW_RT_ADJUST_REASON);
	r->adjust_increment = (int8_t)get_u8(buf + ETW_RT_ADJUST_INCREMENT);
	r->flags = get_u8(buf + ETW_RT_FLAGS);
	r->reserved = get_u8(buf + ETW_RT_RESERVED);
	return ETW_RT_LEN;
}
