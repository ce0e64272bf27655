/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_encode.c - the stateless wire encoders and decoders declared in
 * etw_encode.h: PERFINFO trace header + PEBS/PMC items, WMI_CONTEXTSWAP,
 * WMI_SPINLOCK, the four CCSWAP record forms and PERFINFO_CCSWAP_BUFFER.
 *
 * Every byte goes through put_le*()/get_le*() at an offset named in
 * etw_layout.h, and every bit field through FIELD_PREP()/FIELD_GET() with the
 * masks copied from the spec, because the wire is little-endian and shaped
 * by MSVC bitfields whatever the host compiler does (STYLE B5).
 *
 * Error policy, the same in every function:
 *   1. bad arguments (unknown type or arch, pmc_count > 7, Size too small)
 *      -> -EINVAL;
 *   2. a value that does not fit its field -> -EOVERFLOW, unless the caller
 *      passed ETW_ENC_WRAP (then it is truncated modulo the field width, the
 *      way the kernel's bitfield assignment does it);
 *   3. @cap too small -> -ENOSPC.
 * Nothing is written to @buf and nothing to the decoded struct unless the
 * call succeeds, so a caller may retry after closing a batch.
 *
 * The CCSWAP record forms, LSB first (KERNEL_FACTS 5.3, seed 000):
 *
 *   FULL (8 B)   dword0  31                                 2 1 0
 *                        [ TimeDelta (30)                   |type=3]
 *                dword1  31              15 14    10 9    4 3    0
 *                        [ NewThreadWaitTime | Priority | StateWr | TidIdx ]
 *                            (17)              (5)       (6)      (4)
 *   LITE (4 B)           31              15 14    9 8   6 5    2 1 0
 *                        [ TimeDelta (17)  | StateWr | Inc | TidIdx |type=2]
 *   IDLE (4 B)           31                                 2 1 0
 *                        [ TimeDelta (30)                   |type=1]
 *   IDLE_SHORT (2 B u16) 15                                 2 1 0
 *                        [ TimeDelta (14)                   |type=0]
 */
#include <errno.h>
#include <string.h>

#include "producer/cswitch_words.h"
#include "producer/etw_encode.h"
#include "writer/etl_wire.h"

/* OldThreadStateWr is 6 bits in both LITE and FULL (PERFINFO_CCSWAP_BIT_STATE_WR). */
#define STATE_WR_MASK FIELD_MAX(ETW_CCF_STATE_WR)
static_assert(ETW_CCF_STATE_WR / 0x10u == ETW_CCL_STATE_WR / 0x200u, "StateWr width");
/* The largest x86 pointer. */
#define PTR32_MAX 0xFFFFFFFFu

int etw_cswitch_v4_flags(unsigned wait_mode, unsigned old_qos, unsigned new_qos, uint8_t *out)
{
	if (!etw_cswitch_v4_flags_fit(wait_mode, old_qos, new_qos)) {
		return -EOVERFLOW;
	}
	*out = etw_cswitch_v4_flags_pack(wait_mode, old_qos, new_qos);
	return 0;
}

int etw_encode_cswitch(uint8_t *buf, size_t cap, const struct etw_cswitch *cs)
{
	if (cap < ETW_CS_LEN) {
		return -ENOSPC;
	}
	put_le32(buf + ETW_CS_NEW_TID, cs->new_tid);
	put_le32(buf + ETW_CS_OLD_TID, cs->old_tid);
	put_u8(buf + ETW_CS_NEW_PRI, (uint8_t)cs->new_pri);
	put_u8(buf + ETW_CS_OLD_PRI, (uint8_t)cs->old_pri);
	put_u8(buf + ETW_CS_PREV_CSTATE, cs->prev_cstate);
	put_u8(buf + ETW_CS_NEW_PRI_DECR, (uint8_t)cs->new_pri_decrement);
	put_u8(buf + ETW_CS_OLD_WAIT_REASON, cs->old_wait_reason);
	put_u8(buf + ETW_CS_OLD_WAIT_MODE, cs->wait_mode_or_flags);
	put_u8(buf + ETW_CS_OLD_STATE, cs->old_state);
	put_u8(buf + ETW_CS_OLD_IDEAL_CPU, cs->old_ideal_cpu);
	put_le32(buf + ETW_CS_NEW_WAIT_TIME, cs->new_wait_time);
	put_le32(buf + ETW_CS_OLD_REMAINING_QUANTUM, (uint32_t)cs->old_remaining_quantum);
	return ETW_CS_LEN;
}

int etw_decode_cswitch(const uint8_t *buf, size_t len, struct etw_cswitch *cs)
{
	if (len < ETW_CS_LEN) {
		return -EINVAL;
	}
	cs->new_tid = get_le32(buf + ETW_CS_NEW_TID);
	cs->old_tid = get_le32(buf + ETW_CS_OLD_TID);
	cs->new_pri = (int8_t)get_u8(buf + ETW_CS_NEW_PRI);
	cs->old_pri = (int8_t)get_u8(buf + ETW_CS_OLD_PRI);
	cs->prev_cstate = get_u8(buf + ETW_CS_PREV_CSTATE);
	cs->new_pri_decrement = (int8_t)get_u8(buf + ETW_CS_NEW_PRI_DECR);
	cs->old_wait_reason = get_u8(buf + ETW_CS_OLD_WAIT_REASON);
	cs->wait_mode_or_flags = get_u8(buf + ETW_CS_OLD_WAIT_MODE);
	cs->old_state = get_u8(buf + ETW_CS_OLD_STATE);
	cs->old_ideal_cpu = get_u8(buf + ETW_CS_OLD_IDEAL_CPU);
	cs->new_wait_time = get_le32(buf + ETW_CS_NEW_WAIT_TIME);
	cs->old_remaining_quantum = (int32_t)get_le32(buf + ETW_CS_OLD_REMAINING_QUANTUM);
	return ETW_CS_LEN;
}

/* Offsets of one WMI_SPINLOCK form; the two differ by the pointer size. */
struct spinlock_layout {
	unsigned ptr_size;
	size_t lock, caller, acquire_time, release_time, wait_cycles, spin_count, tid,
		interrupt_count, irql, depth, flags, reserved, len;
};

static const struct spinlock_layout sl_layout64 = {
	.ptr_size = 8,
	.lock = ETW_SL64_LOCK,
	.caller = ETW_SL64_CALLER,
	.acquire_time = ETW_SL64_ACQUIRE_TIME,
	.release_time = ETW_SL64_RELEASE_TIME,
	.wait_cycles = ETW_SL64_WAIT_CYCLES,
	.spin_count = ETW_SL64_SPIN_COUNT,
	.tid = ETW_SL64_TID,
	.interrupt_count = ETW_SL64_INTERRUPT_COUNT,
	.irql = ETW_SL64_IRQL,
	.depth = ETW_SL64_DEPTH,
	.flags = ETW_SL64_FLAGS,
	.reserved = ETW_SL64_RESERVED,
	.len = ETW_SL64_LEN,
};

static const struct spinlock_layout sl_layout32 = {
	.ptr_size = 4,
	.lock = ETW_SL32_LOCK,
	.caller = ETW_SL32_CALLER,
	.acquire_time = ETW_SL32_ACQUIRE_TIME,
	.release_time = ETW_SL32_RELEASE_TIME,
	.wait_cycles = ETW_SL32_WAIT_CYCLES,
	.spin_count = ETW_SL32_SPIN_COUNT,
	.tid = ETW_SL32_TID,
	.interrupt_count = ETW_SL32_INTERRUPT_COUNT,
	.irql = ETW_SL32_IRQL,
	.depth = ETW_SL32_DEPTH,
	.flags = ETW_SL32_FLAGS,
	.reserved = ETW_SL32_RESERVED,
	.len = ETW_SL32_LEN,
};

/* NULL for an arch value outside the enum (a programmer error, -EINVAL). */
static const struct spinlock_layout *spinlock_layout(enum etl_arch arch)
{
	switch (arch) {
	case ETL_ARCH_X64:
		return &sl_layout64;
	case ETL_ARCH_X86:
		return &sl_layout32;
	default:
		return NULL;
	}
}

size_t etw_spinlock_len(enum etl_arch arch)
{
	const struct spinlock_layout *l = spinlock_layout(arch);

	return l ? l->len : 0;
}

int etw_encode_spinlock(uint8_t *buf, size_t cap, enum etl_arch arch, const struct etw_spinlock *sl,
			unsigned flags)
{
	const struct spinlock_layout *l = spinlock_layout(arch);
	bool wrap = (flags & ETW_ENC_WRAP) != 0;
	uint8_t fl;

	if (!l) {
		return -EINVAL;
	}
	if (!wrap) {
		if (!FIELD_FITS(ETW_SL_MODE_MASK, sl->acquire_mode)) {
			return -EOVERFLOW;
		}
		/* An x86 kernel cannot have logged a pointer above 4 GiB. */
		if (l->ptr_size == 4 &&
		    (sl->lock_address > PTR32_MAX || sl->caller_address > PTR32_MAX)) {
			return -EOVERFLOW;
		}
	}
	if (cap < l->len) {
		return -ENOSPC;
	}

	/* AcquireMode:6 is truncated alone; it must not spill into the DPC bit. */
	fl = (uint8_t)FIELD_PREP(ETW_SL_MODE_MASK, sl->acquire_mode);
	if (sl->execute_dpc) {
		fl |= ETW_SL_DPC_FLAG;
	}
	if (sl->execute_isr) {
		fl |= ETW_SL_ISR_FLAG;
	}

	put_ptr(buf + l->lock, l->ptr_size, sl->lock_address);
	put_ptr(buf + l->caller, l->ptr_size, sl->caller_address);
	put_le64(buf + l->acquire_time, sl->acquire_time);
	put_le64(buf + l->release_time, sl->release_time);
	put_le32(buf + l->wait_cycles, sl->wait_cycles);
	put_le32(buf + l->spin_count, sl->spin_count);
	put_le32(buf + l->tid, sl->tid);
	put_le32(buf + l->interrupt_count, sl->interrupt_count);
	put_u8(buf + l->irql, sl->irql);
	put_u8(buf + l->depth, sl->depth);
	put_u8(buf + l->flags, fl);
	/* Reserved[5]: the kernel zeroes it [D-S]; so do we. */
	memset(buf + l->reserved, 0, l->len - l->reserved);
	return (int)l->len;
}

int etw_decode_spinlock(const uint8_t *buf, size_t len, enum etl_arch arch, struct etw_spinlock *sl)
{
	const struct spinlock_layout *l = spinlock_layout(arch);
	uint8_t fl;

	if (!l || len < l->len) {
		return -EINVAL;
	}
	fl = get_u8(buf + l->flags);
	/* Reserved[5] is not checked: a reader takes what Windows wrote. */
	sl->lock_address = get_ptr(buf + l->lock, l->ptr_size);
	sl->caller_address = get_ptr(buf + l->caller, l->ptr_size);
	sl->acquire_time = get_le64(buf + l->acquire_time);
	sl->release_time = get_le64(buf + l->release_time);
	sl->wait_cycles = get_le32(buf + l->wait_cycles);
	sl->spin_count = get_le32(buf + l->spin_count);
	sl->tid = get_le32(buf + l->tid);
	sl->interrupt_count = get_le32(buf + l->interrupt_count);
	sl->irql = get_u8(buf + l->irql);
	sl->depth = get_u8(buf + l->depth);
	sl->acquire_mode = (uint8_t)FIELD_GET(ETW_SL_MODE_MASK, fl);
	sl->execute_dpc = (fl & ETW_SL_DPC_FLAG) != 0;
	sl->execute_isr = (fl & ETW_SL_ISR_FLAG) != 0;
	return (int)l->len;
}

int etw_encode_spinlock_config(uint8_t *buf, size_t cap, const struct etw_spinlock_config *c)
{
	if (cap < ETW_SPINCFG_LEN) {
		return -EINVAL;
	}
	put_le32(buf + ETW_SPINCFG_SPIN_THRESHOLD, c->spin_threshold);
	put_le32(buf + ETW_SPINCFG_CONTENTION_RATE, c->contention_sample_rate);
	put_le32(buf + ETW_SPINCFG_ACQUIRE_RATE, c->acquire_sample_rate);
	put_le32(buf + ETW_SPINCFG_HOLD_THRESHOLD, c->hold_threshold);
	return ETW_SPINCFG_LEN;
}

int etw_decode_spinlock_config(const uint8_t *buf, size_t len, struct etw_spinlock_config *c)
{
	if (len < ETW_SPINCFG_LEN) {
		return -EINVAL;
	}
	c->spin_threshold = get_le32(buf + ETW_SPINCFG_SPIN_THRESHOLD);
	c->contention_sample_rate = get_le32(buf + ETW_SPINCFG_CONTENTION_RATE);
	c->acquire_sample_rate = get_le32(buf + ETW_SPINCFG_ACQUIRE_RATE);
	c->hold_threshold = get_le32(buf + ETW_SPINCFG_HOLD_THRESHOLD);
	return ETW_SPINCFG_LEN;
}

size_t etw_ccswap_rec_len(enum etw_ccswap_type type)
{
	switch (type) {
	case ETW_CCSWAP_IDLE_SHORT:
		return 2;
	case ETW_CCSWAP_IDLE:
	case ETW_CCSWAP_LITE:
		return 4;
	case ETW_CCSWAP_FULL:
		return 8;
	default:
		return 0;
	}
}

/*
 * ccswap_fits - true if every field the form @r->type carries fits its width.
 * Fields of other forms are ignored, as the header promises.
 */
static bool ccswap_fits(const struct etw_ccswap_rec *r)
{
	switch (r->type) {
	case ETW_CCSWAP_IDLE_SHORT:
		return FIELD_FITS(ETW_CCIS_DELTA, r->delta);
	case ETW_CCSWAP_IDLE:
		return FIELD_FITS(ETW_CCI_DELTA, r->delta);
	case ETW_CCSWAP_LITE:
		return FIELD_FITS(ETW_CCL_DELTA, r->delta) &&
		       FIELD_FITS(ETW_CCL_TID_INDEX, r->tid_index) &&
		       FIELD_FITS(ETW_CCL_PRI_INC, r->pri_inc) &&
		       FIELD_FITS(ETW_CCL_STATE_WR, r->state_wr);
	case ETW_CCSWAP_FULL:
		return FIELD_FITS(ETW_CCF_DELTA, r->delta) &&
		       FIELD_FITS(ETW_CCF_TID_INDEX, r->tid_index) &&
		       FIELD_FITS(ETW_CCF_STATE_WR, r->state_wr) &&
		       FIELD_FITS(ETW_CCF_PRIORITY, r->priority) &&
		       FIELD_FITS(ETW_CCF_WAIT_TIME, r->wait_time);
	default:
		return false;
	}
}

int etw_encode_ccswap_rec(uint8_t *buf, size_t cap, const struct etw_ccswap_rec *r, unsigned flags)
{
	size_t len = etw_ccswap_rec_len(r->type);
	uint32_t type = FIELD_PREP(ETW_CCSWAP_TYPE_MASK, r->type);

	if (len == 0) {
		return -EINVAL;
	}
	if (!(flags & ETW_ENC_WRAP) && !ccswap_fits(r)) {
		return -EOVERFLOW;
	}
	if (cap < len) {
		return -ENOSPC;
	}
	/* FIELD_PREP() masks after shifting: exactly the bitfield truncation. */
	switch (r->type) {
	case ETW_CCSWAP_IDLE_SHORT:
		put_le16(buf, (uint16_t)(type | FIELD_PREP(ETW_CCIS_DELTA, r->delta)));
		break;
	case ETW_CCSWAP_IDLE:
		put_le32(buf, type | FIELD_PREP(ETW_CCI_DELTA, r->delta));
		break;
	case ETW_CCSWAP_LITE:
		put_le32(buf, type | FIELD_PREP(ETW_CCL_TID_INDEX, r->tid_index) |
				      FIELD_PREP(ETW_CCL_PRI_INC, r->pri_inc) |
				      FIELD_PREP(ETW_CCL_STATE_WR, r->state_wr) |
				      FIELD_PREP(ETW_CCL_DELTA, r->delta));
		break;
	case ETW_CCSWAP_FULL:
		put_le32(buf, type | FIELD_PREP(ETW_CCF_DELTA, r->delta));
		put_le32(buf + 4, FIELD_PREP(ETW_CCF_TID_INDEX, r->tid_index) |
					  FIELD_PREP(ETW_CCF_STATE_WR, r->state_wr) |
					  FIELD_PREP(ETW_CCF_PRIORITY, r->priority) |
					  FIELD_PREP(ETW_CCF_WAIT_TIME, r->wait_time));
		break;
	}
	return (int)len;
}

int etw_decode_ccswap_rec(const uint8_t *buf, size_t len, struct etw_ccswap_rec *r)
{
	struct etw_ccswap_rec out;
	enum etw_ccswap_type type;
	size_t need;
	uint32_t w0, w1;

	/* The type sits in the low 2 bits of the first byte in every form. */
	if (len < 1) {
		return -EINVAL;
	}
	type = (enum etw_ccswap_type)FIELD_GET(ETW_CCSWAP_TYPE_MASK, get_u8(buf));
	need = etw_ccswap_rec_len(type);
	if (len < need) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	out.type = type;
	switch (type) {
	case ETW_CCSWAP_IDLE_SHORT:
		out.delta = FIELD_GET(ETW_CCIS_DELTA, get_le16(buf));
		break;
	case ETW_CCSWAP_IDLE:
		out.delta = FIELD_GET(ETW_CCI_DELTA, get_le32(buf));
		break;
	case ETW_CCSWAP_LITE:
		w0 = get_le32(buf);
		out.tid_index = (uint8_t)FIELD_GET(ETW_CCL_TID_INDEX, w0);
		out.pri_inc = (uint8_t)FIELD_GET(ETW_CCL_PRI_INC, w0);
		out.state_wr = (uint8_t)FIELD_GET(ETW_CCL_STATE_WR, w0);
		out.delta = FIELD_GET(ETW_CCL_DELTA, w0);
		break;
	case ETW_CCSWAP_FULL:
		w0 = get_le32(buf);
		w1 = get_le32(buf + 4);
		out.delta = FIELD_GET(ETW_CCF_DELTA, w0);
		out.tid_index = (uint8_t)FIELD_GET(ETW_CCF_TID_INDEX, w1);
		out.state_wr = (uint8_t)FIELD_GET(ETW_CCF_STATE_WR, w1);
		out.priority = (uint8_t)FIELD_GET(ETW_CCF_PRIORITY, w1);
		out.wait_time = FIELD_GET(ETW_CCF_WAIT_TIME, w1);
		break;
	}
	*r = out;
	return (int)need;
}

int etw_encode_ccswap_buffer(uint8_t *buf, size_t cap, const struct etw_ccswap_buffer *b)
{
	unsigned i;

	if (cap < ETW_CCB_LEN) {
		return -ENOSPC;
	}
	put_le64(buf + ETW_CCB_FIRST_TS, (uint64_t)b->first_ts);
	for (i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		put_le32(buf + ETW_CCB_TID_TABLE + 4 * i, b->tid_table[i]);
		put_u8(buf + ETW_CCB_BASE_PRI + i, (uint8_t)b->base_pri[i]);
	}
	return ETW_CCB_LEN;
}

int etw_decode_ccswap_buffer(const uint8_t *buf, size_t len, struct etw_ccswap_buffer *b)
{
	unsigned i;

	if (len < ETW_CCB_LEN) {
		return -EINVAL;
	}
	b->first_ts = (int64_t)get_le64(buf + ETW_CCB_FIRST_TS);
	for (i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		b->tid_table[i] = get_le32(buf + ETW_CCB_TID_TABLE + 4 * i);
		b->base_pri[i] = (int8_t)get_u8(buf + ETW_CCB_BASE_PRI + i);
	}
	return ETW_CCB_LEN;
}

/*
 * Both results are taken mod 64 because OldThreadStateWr is a 6-bit field
 * and the kernel assigns to it without a check: a wait reason >= 64 (none
 * exists today) would be truncated the same way as a biased state.
 */
uint8_t etw_ccswap_state_wr(uint8_t state, uint8_t wait_reason, uint8_t max_wait_reason)
{
	if (state == ETW_THREAD_STATE_WAITING) {
		return (uint8_t)(wait_reason & STATE_WR_MASK);
	}
	return (uint8_t)((state + max_wait_reason) & STATE_WR_MASK);
}

void etw_ccswap_state_wr_split(uint8_t state_wr, uint8_t max_wait_reason, uint8_t *state,
			       uint8_t *wait_reason)
{
	unsigned v = state_wr & STATE_WR_MASK; /* only 6 bits exist on the wire */

	if (v < max_wait_reason) {
		*state = ETW_THREAD_STATE_WAITING;
		*wait_reason = (uint8_t)v;
	} else {
		*state = (uint8_t)((v - max_wait_reason) & STATE_WR_MASK);
		*wait_reason = 0;
	}
}

/* The name of each identity and rundown hook the dispatcher knows. */
static const char *identity_name(uint16_t hook)
{
	switch (hook) {
	case ETW_HOOK_PROCESS_START:
		return "Process Start";
	case ETW_HOOK_PROCESS_END:
		return "Process End";
	case ETW_HOOK_PROCESS_DC_START:
		return "Process DCStart";
	case ETW_HOOK_PROCESS_DC_END:
		return "Process DCEnd";
	case ETW_HOOK_PROCESS_DEFUNCT:
		return "Process Defunct";
	case ETW_HOOK_PROCESS_TERMINATE:
		return "Process Terminate";
	case ETW_HOOK_THREAD_START:
		return "Thread Start";
	case ETW_HOOK_THREAD_END:
		return "Thread End";
	case ETW_HOOK_THREAD_DC_START:
		return "Thread DCStart";
	case ETW_HOOK_THREAD_DC_END:
		return "Thread DCEnd";
	case ETW_HOOK_THREAD_SET_NAME:
		return "ThreadSetName";
	case ETW_HOOK_READY_THREAD:
		return "ReadyThread";
	case ETW_HOOK_SAMPLED_PROFILE:
		return "SampledProfile";
	case ETW_HOOK_PROFILE_SET_INTERVAL:
		return "SampledProfile SetInterval";
	case ETW_HOOK_PROFILE_INTERVAL_DC_S:
		return "SampledProfile interval DCStart";
	case ETW_HOOK_PROFILE_INTERVAL_DC_E:
		return "SampledProfile interval DCEnd";
	case ETW_HOOK_SYSCONFIG_CPU:
		return "SystemConfig CPU";
	case ETL_HOOK_HEADER_EXTENSION:
		return "Group masks";
	case ETW_HOOK_GROUP_MASKS_END:
		return "Group masks end";
	case ETW_HOOK_RUNDOWN_COMPLETE:
		return "Rundown complete";
	case ETW_HOOK_IMAGE_LOAD:
		return "Image Load";
	case ETW_HOOK_IMAGE_UNLOAD:
		return "Image Unload";
	case ETW_HOOK_IMAGE_DC_START:
		return "Image DCStart";
	case ETW_HOOK_IMAGE_DC_END:
		return "Image DCEnd";
	case ETW_HOOK_IMAGE_KERNEL_BASE:
		return "Image KernelBase";
	case ETW_HOOK_IMAGE_HYPERCALL:
		return "Image HypercallPage";
	case ETW_HOOK_STACK_WALK:
		return "StackWalk";
	case ETW_HOOK_STACK_KEY_CREATE:
		return "StackWalk KeyCreate";
	case ETW_HOOK_STACK_KEY_DELETE:
		return "StackWalk KeyDelete";
	case ETW_HOOK_STACK_KEY_RUNDOWN:
		return "StackWalk KeyRundown";
	case ETW_HOOK_STACK_KEY_KERNEL:
		return "StackWalk StackKeyKernel";
	case ETW_HOOK_STACK_KEY_USER:
		return "StackWalk StackKeyUser";
	case ETW_HOOK_THREADED_DPC:
		return "ThreadedDPC";
	case ETW_HOOK_ISR:
		return "ISR";
	case ETW_HOOK_DPC:
		return "DPC";
	case ETW_HOOK_TIMER_DPC:
		return "TimerDPC";
	default:
		return NULL;
	}
}

/*
 * decode_identity - the identity, rundown, image and stack-walk records: a hook and version
 * with a decoder gives its kind, or SHORT when the decoder refuses the bytes.
 */
static void decode_identity(uint16_t hook, uint8_t version, enum etl_arch arch, const uint8_t *p,
			    size_t len, struct etw_payload *out)
{
	enum etw_payload_kind kind = ETW_PAYLOAD_NONE;
	int r = -EINVAL;

	switch (hook) {
	case ETW_HOOK_PROCESS_START:
	case ETW_HOOK_PROCESS_END:
	case ETW_HOOK_PROCESS_DC_START:
	case ETW_HOOK_PROCESS_DC_END:
	case ETW_HOOK_PROCESS_DEFUNCT:
		if (version == ETW_PROCESS_VERSION || version == ETW_PROCESS_DEFUNCT_V5) {
			kind = ETW_PAYLOAD_PROCESS;
			r = etw_decode_process(p, len, arch, version, &out->u.pr);
		}
		break;
	case ETW_HOOK_PROCESS_TERMINATE:
		kind = ETW_PAYLOAD_PROCESS_TERMINATE;
		r = etw_decode_process_terminate(p, len, &out->u.terminated_pid);
		break;
	case ETW_HOOK_THREAD_START:
	case ETW_HOOK_THREAD_END:
	case ETW_HOOK_THREAD_DC_START:
	case ETW_HOOK_THREAD_DC_END:
		if (version == ETW_THREAD_VERSION || version == ETW_THREAD_V4) {
			kind = ETW_PAYLOAD_THREAD;
			r = etw_decode_thread(p, len, arch, version, &out->u.th);
		}
		break;
	case ETW_HOOK_THREAD_SET_NAME:
		if (version >= ETW_VERSION_THREAD_SET_NAME) {
			kind = ETW_PAYLOAD_THREAD_SET_NAME;
			r = etw_decode_thread_set_name(p, len, &out->u.tsn);
		}
		break;
	case ETW_HOOK_READY_THREAD:
		if (version == ETW_VERSION_READY_THREAD) {
			kind = ETW_PAYLOAD_READY_THREAD;
			r = etw_decode_ready_thread(p, len, &out->u.rt);
		}
		break;
	case ETW_HOOK_SAMPLED_PROFILE:
		if (version == ETW_VERSION_SAMPLED_PROFILE) {
			kind = ETW_PAYLOAD_SAMPLED_PROFILE;
			r = etw_decode_sampled_profile(p, len, arch, &out->u.sp);
		}
		break;
	case ETW_HOOK_PROFILE_SET_INTERVAL:
	case ETW_HOOK_PROFILE_INTERVAL_DC_S:
	case ETW_HOOK_PROFILE_INTERVAL_DC_E:
		if (version == 2 || version == ETW_VERSION_PROFILE_INTERVAL) {
			kind = ETW_PAYLOAD_PROFILE_INTERVAL;
			r = etw_decode_profile_interval(p, len, version, &out->u.pi);
		}
		break;
	case ETW_HOOK_SYSCONFIG_CPU:
		if (version == ETW_VERSION_SYSCONFIG_CPU) {
			kind = ETW_PAYLOAD_CPU_CONFIG;
			r = etw_decode_cpu_config(p, len, arch, &out->u.cpu);
		}
		break;
	case ETL_HOOK_HEADER_EXTENSION:
	case ETW_HOOK_GROUP_MASKS_END:
		kind = ETW_PAYLOAD_GROUP_MASKS;
		r = etw_decode_group_masks(p, len, &out->u.gm);
		break;
	case ETW_HOOK_RUNDOWN_COMPLETE:
		kind = ETW_PAYLOAD_RUNDOWN_COMPLETE;
		r = 0;
		break;
	case ETW_HOOK_IMAGE_LOAD:
	case ETW_HOOK_IMAGE_UNLOAD:
	case ETW_HOOK_IMAGE_DC_START:
	case ETW_HOOK_IMAGE_DC_END:
		if (version == ETW_VERSION_IMAGE_WIN8 || version == ETW_VERSION_IMAGE_WIN10) {
			kind = ETW_PAYLOAD_IMAGE;
			r = etw_decode_image(p, len, arch, version, &out->u.im);
		}
		break;
	case ETW_HOOK_IMAGE_KERNEL_BASE:
	case ETW_HOOK_IMAGE_HYPERCALL:
		kind = ETW_PAYLOAD_IMAGE_ADDRESS;
		r = etw_decode_image_address(p, len, arch, &out->u.address);
		break;
	case ETW_HOOK_STACK_WALK:
		kind = ETW_PAYLOAD_STACK_WALK;
		r = etw_decode_stack_walk(p, len, arch, &out->u.sw);
		break;
	case ETW_HOOK_STACK_KEY_KERNEL:
	case ETW_HOOK_STACK_KEY_USER:
		kind = ETW_PAYLOAD_STACK_KEY;
		r = etw_decode_stack_key(p, len, arch, &out->u.sk);
		break;
	case ETW_HOOK_STACK_KEY_CREATE:
	case ETW_HOOK_STACK_KEY_DELETE:
	case ETW_HOOK_STACK_KEY_RUNDOWN:
		kind = ETW_PAYLOAD_STACK_DEF;
		r = etw_decode_stack_def(p, len, arch, &out->u.sd);
		break;
	case ETW_HOOK_THREADED_DPC:
	case ETW_HOOK_DPC:
	case ETW_HOOK_TIMER_DPC:
	case ETW_HOOK_ISR:
		if (version == ETW_VERSION_DPC) {
			bool isr = hook == ETW_HOOK_ISR;

			kind = isr ? ETW_PAYLOAD_ISR : ETW_PAYLOAD_DPC;
			r = etw_decode_dpc(p, len, arch, isr, &out->u.dpc);
		}
		break;
	default:
		break;
	}
	if (kind == ETW_PAYLOAD_NONE) {
		return;
	}
	out->name = identity_name(hook);
	out->kind = r < 0 ? ETW_PAYLOAD_SHORT : kind;
}

void etw_decode_payload(uint16_t hook, uint8_t version, enum etl_arch arch, const uint8_t *p,
			size_t len, struct etw_payload *out)
{
	if (hook == ETW_HOOK_CSWITCH && version >= 2 && version <= 4) {
		/*
		 * The most common record: its member written whole (zeros when
		 * short), not the whole payload cleared first (232 bytes, the most
		 * of its cost); the other members are not to be read.
		 */
		out->name = "CSwitch";
		out->tids = 0;
		out->batch_bytes = 0;
		out->kind = ETW_PAYLOAD_CSWITCH;
		if (etw_decode_cswitch(p, len, &out->u.cs) < 0) {
			memset(&out->u.cs, 0, sizeof(out->u.cs));
			out->kind = ETW_PAYLOAD_SHORT;
		}
		return;
	}
	memset(out, 0, sizeof(*out));
	switch (hook) {
	case ETW_HOOK_CSWITCH: /* a version not decoded */
		return;
	case ETW_HOOK_SPINLOCK:
		out->name = "SpinLock";
		out->kind = etw_decode_spinlock(p, len, arch, &out->u.sl) < 0
				    ? ETW_PAYLOAD_SHORT
				    : ETW_PAYLOAD_SPINLOCK;
		return;
	case ETW_HOOK_CSWITCH_BATCH:
		out->name = "CSwitch batch";
		if (etw_decode_ccswap_buffer(p, len, &out->u.cb) < 0) {
			out->kind = ETW_PAYLOAD_SHORT;
			return;
		}
		out->kind = ETW_PAYLOAD_BATCH;
		for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
			out->tids += out->u.cb.tid_table[i] != 0;
		}
		out->batch_bytes = len - ETW_CCB_LEN;
		return;
	case ETW_HOOK_SPINLOCK_DC_START:
	case ETW_HOOK_SPINLOCK_DC_END:
		out->name = hook == ETW_HOOK_SPINLOCK_DC_START ? "SpinLockConfig DCStart"
							       : "SpinLockConfig DCEnd";
		out->kind = etw_decode_spinlock_config(p, len, &out->u.sc) < 0
				    ? ETW_PAYLOAD_SHORT
				    : ETW_PAYLOAD_SPINLOCK_CONFIG;
		return;
	default:
		decode_identity(hook, version, arch, p, len, out);
		return;
	}
}

void etw_decode_classic_payload(const uint8_t *guid, uint8_t type, uint16_t version,
				enum etl_arch arch, const uint8_t *p, size_t len,
				struct etw_payload *out)
{
	enum etw_payload_kind kind = ETW_PAYLOAD_NONE;
	int r = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (memcmp(guid, etw_ktc_guid, ETW_GUID_LEN) != 0) {
		return;
	}
	switch (type) {
	case ETW_KTC_IMAGE_ID:
		if (version == ETW_VERSION_KTC) {
			out->name = "ImageID";
			kind = ETW_PAYLOAD_KTC_IMAGE_ID;
			r = etw_decode_ktc_image_id(p, len, arch, &out->u.kid);
		}
		break;
	case ETW_KTC_DBGID_RSDS:
	case ETW_KTC_DBGID_ILRSDS:
		if (version == ETW_VERSION_KTC) {
			out->name = type == ETW_KTC_DBGID_RSDS ? "DbgID_RSDS" : "DbgID_ILRSDS";
			kind = ETW_PAYLOAD_KTC_DBGID;
			r = etw_decode_ktc_dbgid(p, len, arch, false, &out->u.kdb);
		}
		break;
	case ETW_KTC_DBGID_NONE:
		if (version == ETW_VERSION_KTC) {
			out->name = "DbgID None";
			kind = ETW_PAYLOAD_KTC_DBGID_NONE;
			r = etw_decode_ktc_dbgid(p, len, arch, true, &out->u.kdb);
		}
		break;
	case ETW_KTC_FILE_VERSION:
		if (version == ETW_VERSION_KTC_FILE_VERSION) {
			out->name = "FileVersion";
			kind = ETW_PAYLOAD_KTC_FILE_VERSION;
			r = etw_decode_ktc_file_version(p, len, &out->u.kfv);
		}
		break;
	default:
		break;
	}
	if (kind != ETW_PAYLOAD_NONE) {
		out->kind = r < 0 ? ETW_PAYLOAD_SHORT : kind;
	}
}
