// SPDX-License-Identifier: MIT
/*
 * producer/etw_stack.c - the stack-walk payloads both ways (see
 * etw_stack.h). Offsets, the same head on x86 and x64:
 *
 *   0x1820         0x00 EventTimeStamp u64  0x08 StackProcess  0x0C StackThread
 *                  0x10 Stack[n], pointer each      n = (len - 0x10) / ptr
 *   0x1825/0x1826  0x00-0x0F as 0x1820              0x10 StackKey ptr
 *   0x1822-0x1824  0x00 StackKey ptr  then Stack[n] n = (len - ptr) / ptr
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "producer/etw_stack.h"
#include "writer/etl_wire.h"

#define PTR32_MAX 0xFFFFFFFFu

static unsigned ptr_size(enum etl_arch arch)
{
	switch (arch) {
	case ETL_ARCH_X64:
		return 8;
	case ETL_ARCH_X86:
		return 4;
	default:
		return 0;
	}
}

uint64_t etw_frame(const struct etw_frames *f, enum etl_arch arch, size_t i)
{
	unsigned ptr = ptr_size(arch);

	if (f->ips) {
		return f->ips[i];
	}
	return ptr ? get_ptr(f->le + (size_t)ptr * i, ptr) : 0;
}

/* frames_ok - the encoders' checks of a run of frames for @ptr-sized pointers. */
static int frames_ok(const struct etw_frames *f, unsigned ptr, unsigned flags)
{
	if (!f->ips || f->n == 0 || f->n > ETW_STACK_MAX_FRAMES) {
		return -EINVAL;
	}
	if (ptr == 4 && !(flags & ETW_ENC_WRAP)) {
		for (size_t i = 0; i < f->n; i++) {
			if (f->ips[i] > PTR32_MAX) {
				return -EOVERFLOW;
			}
		}
	}
	return 0;
}

static void put_frames(uint8_t *p, unsigned ptr, const struct etw_frames *f)
{
	for (size_t i = 0; i < f->n; i++) {
		put_ptr(p + (size_t)ptr * i, ptr, f->ips[i]);
	}
}

/* get_frames - the rest of a record from @off as frames; false if not whole pointers. */
static bool get_frames(const uint8_t *buf, size_t len, size_t off, unsigned ptr,
		       struct etw_frames *f)
{
	if (len < off || (len - off) % ptr != 0) {
		return false;
	}
	f->ips = NULL;
	f->n = (len - off) / ptr;
	f->le = f->n ? buf + off : NULL;
	return true;
}

size_t etw_stack_walk_len(enum etl_arch arch, size_t frames)
{
	unsigned ptr = ptr_size(arch);

	return ptr ? ETW_SW_FRAMES + (size_t)ptr * frames : 0;
}

int etw_encode_stack_walk(uint8_t *buf, size_t cap, enum etl_arch arch,
			  const struct etw_stack_walk *s, unsigned flags)
{
	unsigned ptr = ptr_size(arch);
	size_t len;
	int r;

	if (!ptr) {
		return -EINVAL;
	}
	r = frames_ok(&s->frames, ptr, flags);
	if (r < 0) {
		return r;
	}
	len = etw_stack_walk_len(arch, s->frames.n);
	if (cap < len) {
		return -ENOSPC;
	}
	put_le64(buf + ETW_SW_EVENT_TS, s->event_ts);
	put_le32(buf + ETW_SW_PROCESS, s->process_id);
	put_le32(buf + ETW_SW_THREAD, s->thread_id);
	put_frames(buf + ETW_SW_FRAMES, ptr, &s->frames);
	return (int)len;
}

int etw_decode_stack_walk(const uint8_t *buf, size_t len, enum etl_arch arch,
			  struct etw_stack_walk *s)
{
	unsigned ptr = ptr_size(arch);
	struct etw_stack_walk out;

	if (!ptr || len < ETW_SW_FRAMES) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	if (!get_frames(buf, len, ETW_SW_FRAMES, ptr, &out.frames)) {
		return -EINVAL;
	}
	out.event_ts = get_le64(buf + ETW_SW_EVENT_TS);
	out.process_id = get_le32(buf + ETW_SW_PROCESS);
	out.thread_id = get_le32(buf + ETW_SW_THREAD);
	*s = out;
	return (int)len;
}

size_t etw_stack_key_len(enum etl_arch arch)
{
	unsigned ptr = ptr_size(arch);

	return ptr ? ETW_SW_FRAMES + ptr : 0;
}

int etw_encode_stack_key(uint8_t *buf, size_t cap, enum etl_arch arch,
			 const struct etw_stack_key *k, unsigned flags)
{
	unsigned ptr = ptr_size(arch);
	size_t len = etw_stack_key_len(arch);

	if (!ptr) {
		return -EINVAL;
	}
	if (ptr == 4 && !(flags & ETW_ENC_WRAP) && k->key > PTR32_MAX) {
		return -EOVERFLOW;
	}
	if (cap < len) {
		return -ENOSPC;
	}
	put_le64(buf + ETW_SW_EVENT_TS, k->event_ts);
	put_le32(buf + ETW_SW_PROCESS, k->process_id);
	put_le32(buf + ETW_SW_THREAD, k->thread_id);
	put_ptr(buf + ETW_SW_FRAMES, ptr, k->key);
	return (int)len;
}

int etw_decode_stack_key(const uint8_t *buf, size_t len, enum etl_arch arch,
			 struct etw_stack_key *k)
{
	unsigned ptr = ptr_size(arch);
	size_t need = etw_stack_key_len(arch);

	if (!ptr || len < need) {
		return -EINVAL;
	}
	k->event_ts = get_le64(buf + ETW_SW_EVENT_TS);
	k->process_id = get_le32(buf + ETW_SW_PROCESS);
	k->thread_id = get_le32(buf + ETW_SW_THREAD);
	k->key = get_ptr(buf + ETW_SW_FRAMES, ptr);
	return (int)need;
}

size_t etw_stack_def_len(enum etl_arch arch, size_t frames)
{
	unsigned ptr = ptr_size(arch);

	return ptr ? (size_t)ptr * (1 + frames) : 0;
}

int etw_encode_stack_def(uint8_t *buf, size_t cap, enum etl_arch arch,
			 const struct etw_stack_def *d, unsigned flags)
{
	unsigned ptr = ptr_size(arch);
	size_t len;
	int r;

	if (!ptr) {
		return -EINVAL;
	}
	r = frames_ok(&d->frames, ptr, flags);
	if (r < 0) {
		return r;
	}
	if (ptr == 4 && !(flags & ETW_ENC_WRAP) && d->key > PTR32_MAX) {
		return -EOVERFLOW;
	}
	len = etw_stack_def_len(arch, d->frames.n);
	if (cap < len) {
		return -ENOSPC;
	}
	put_ptr(buf + ETW_STACK_DEF_KEY, ptr, d->key);
	put_frames(buf + ptr, ptr, &d->frames);
	return (int)len;
}

int etw_decode_stack_def(const uint8_t *buf, size_t len, enum etl_arch arch,
			 struct etw_stack_def *d)
{
	unsigned ptr = ptr_size(arch);
	struct etw_stack_def out;

	if (!ptr || len < ptr) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	if (!get_frames(buf, len, ptr, ptr, &out.frames)) {
		return -EINVAL;
	}
	out.key = get_ptr(buf + ETW_STACK_DEF_KEY, ptr);
	*d = out;
	return (int)len;
}
