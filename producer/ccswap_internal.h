/* SPDX-License-Identifier: MIT */
/*
 * producer/ccswap_internal.h - the batching engine's hot-path pieces, kept
 * in a header so the tests can hold each fast path against its reference:
 * the 16-lane TidTable match (SSE2 and portable) against a serial scan, the
 * trailing-zero count (builtin and portable), the form index (an adc chain
 * in an asm on x86-64, else C) against its flags, the cmov select against
 * ?:, and the branch-free record encoder (its step too) against
 * etw_encode_ccswap_rec() with ETW_ENC_WRAP.
 */
#ifndef PRODUCER_CCSWAP_INTERNAL_H
#define PRODUCER_CCSWAP_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "producer/etw_layout.h"
#include "writer/etl_wire.h"

/*
 * CCSWAP_NO_SIMD / CCSWAP_NO_BUILTINS select the portable code on any host:
 * the tests build the engine a second time with both, so the fallbacks run
 * on x86-64 too.
 */
#if defined(__SSE2__) && !defined(CCSWAP_NO_SIMD)
#define CCSWAP_SSE2 1
#include <emmintrin.h>
#endif
#if defined(__GNUC__) && !defined(CCSWAP_NO_BUILTINS)
#define CCSWAP_GNUC 1
#endif

#if defined(CCSWAP_GNUC)
#define CCSWAP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CCSWAP_NOINLINE	   __attribute__((noinline))
#define CCSWAP_INLINE	   inline __attribute__((always_inline))
#else
#define CCSWAP_UNLIKELY(x) (x)
#define CCSWAP_NOINLINE
#define CCSWAP_INLINE inline
#endif

/* Field shifts, pinned to the masks of etw_layout.h. */
static_assert(FIELD_LSB(ETW_CCL_TID_INDEX) == 1u << 2 && FIELD_LSB(ETW_CCL_PRI_INC) == 1u << 6 &&
		      FIELD_LSB(ETW_CCL_STATE_WR) == 1u << 9 &&
		      FIELD_LSB(ETW_CCL_DELTA) == 1u << 15,
	      "LITE field shifts");
static_assert(FIELD_LSB(ETW_CCF_DELTA) == 1u << 2 && FIELD_LSB(ETW_CCI_DELTA) == 1u << 2 &&
		      FIELD_LSB(ETW_CCIS_DELTA) == 1u << 2,
	      "FULL, IDLE and IDLE_SHORT keep TimeDelta at bit 2");
static_assert(FIELD_LSB(ETW_CCF_TID_INDEX) == 1u && FIELD_LSB(ETW_CCF_STATE_WR) == 1u << 4 &&
		      FIELD_LSB(ETW_CCF_PRIORITY) == 1u << 10 &&
		      FIELD_LSB(ETW_CCF_WAIT_TIME) == 1u << 15,
	      "FULL dword1 field shifts");
static_assert(FIELD_MAX(ETW_CCF_PRIORITY) == 31 && FIELD_MAX(ETW_CCF_STATE_WR) == 63 &&
		      FIELD_MAX(ETW_CCF_TID_INDEX) == 15 && FIELD_MAX(ETW_CCL_PRI_INC) == 7,
	      "FULL dword1 and LITE field widths");

/*
 * @c ? @a : @b for @c in {0, 1}, for data-dependent @c: both compilers
 * like to turn a plain ?: into a branch (clang even to skip a load), which
 * mispredicts on every other switch here. clang gets the hint it knows,
 * gcc (which ignores __builtin_expect_with_probability for this) the
 * arithmetic form, which it keeps.
 */
#if defined(__has_builtin) && !defined(CCSWAP_NO_BUILTINS)
#if __has_builtin(__builtin_unpredictable)
#define CCSWAP_HAVE_UNPREDICTABLE 1
#endif
#endif

/*
 * The condition of a ?: whose operands are already loaded, for which gcc
 * emits a cmov by itself: clang gets the hint as well.
 */
#if defined(CCSWAP_HAVE_UNPREDICTABLE)
#define CCSWAP_UNPREDICTABLE(x) __builtin_unpredictable(x)
#else
#define CCSWAP_UNPREDICTABLE(x) (x)
#endif

static inline uint32_t ccswap_sel(uint32_t c, uint32_t a, uint32_t b)
{
#if defined(CCSWAP_HAVE_UNPREDICTABLE)
	return __builtin_unpredictable(c) ? a : b;
#else
	return b ^ ((a ^ b) & (0u - c));
#endif
}

/*
 * @c != 0 ? @a : @b as a cmov: gcc 12 turns such a select next to another
 * one on the same condition into a branch (and ccswap_sel()'s arithmetic
 * costs it six operations). 64-bit, as it is an index.
 */
static inline uint64_t ccswap_pick(uint32_t c, uint64_t a, uint64_t b)
{
#if defined(CCSWAP_GNUC) && defined(__x86_64__)
	__asm__("testl %[c], %[c]\n\t"
		"cmovnzq %[a], %[b]"
		: [b] "+r"(b)
		: [c] "r"(c), [a] "rm"(a)
		: "cc");
	return b;
#else
	return c != 0 ? a : b;
#endif
}

/*
 * @x as it is, but loaded: clang 14 turns wait & -(new_tid != 0) into a
 * branch around the wait's load, which mispredicts on the ~1 switch in 5
 * that goes idle; an empty asm that needs the value in a register keeps
 * the load before the mask. Not for gcc, which keeps the mask (and folds
 * the load into it: the asm would cost it a move).
 */
static inline uint32_t ccswap_opaque(uint32_t x)
{
#if defined(CCSWAP_GNUC) && defined(__clang__)
	__asm__("" : "+r"(x));
#endif
	return x;
}

/*
 * put_le64() as one store: the explicit shifts are the portable form, but
 * not every compiler merges them (clang 14 stores byte by byte here).
 */
static inline void ccswap_put_le64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, sizeof(v));
#else
	put_le64(p, v);
#endif
}

/* Bit i set when @tids[i] == @tid, i < 16: the plain C version. */
static inline uint32_t ccswap_tid_match_portable(const uint32_t *tids, uint32_t tid)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
		m |= (uint32_t)(tids[i] == tid) << i;
	}
	return m;
}

#if defined(CCSWAP_SSE2)
/*
 * The same with four 4-lane compares, packed down to one byte per lane.
 * Unaligned loads: struct ccswap_block aligns @tids to 16, but a block in
 * memory from an allocator that gives less must still work.
 */
static inline uint32_t ccswap_tid_match_sse2(const uint32_t *tids, uint32_t tid)
{
	__m128i k = _mm_set1_epi32((int)tid);
	__m128i a = _mm_cmpeq_epi32(_mm_loadu_si128((const void *)tids), k);
	__m128i b = _mm_cmpeq_epi32(_mm_loadu_si128((const void *)(tids + 4)), k);
	__m128i c = _mm_cmpeq_epi32(_mm_loadu_si128((const void *)(tids + 8)), k);
	__m128i d = _mm_cmpeq_epi32(_mm_loadu_si128((const void *)(tids + 12)), k);

	/* signed saturation keeps 0 and -1, and the lane order */
	return (uint32_t)_mm_movemask_epi8(
		_mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
}
#endif

static inline uint32_t ccswap_tid_match(const uint32_t *tids, uint32_t tid)
{
#if defined(CCSWAP_SSE2)
	return ccswap_tid_match_sse2(tids, tid);
#else
	return ccswap_tid_match_portable(tids, tid);
#endif
}

/* Trailing zeros of @x != 0, branch-free (de Bruijn multiply). */
static inline unsigned ccswap_ctz_portable(uint32_t x)
{
	static const uint8_t pos[32] = {0,  1,	28, 2,	29, 14, 24, 3,	30, 22, 20,
					15, 25, 17, 4,	8,  31, 27, 13, 23, 21, 19,
					16, 7,	26, 12, 18, 6,	11, 5,	10, 9};

	return pos[(uint32_t)((x & (0u - x)) * 0x077CB531u) >> 27];
}

static inline unsigned ccswap_ctz(uint32_t x)
{
#if defined(CCSWAP_GNUC)
	return (unsigned)__builtin_ctz(x);
#else
	return ccswap_ctz_portable(x);
#endif
}

/**
 * struct ccswap_rec_in - what one record is made of.
 * @delta:    ts - LastTimestamp (signed; the fields keep its low bits)
 * @old_tid:  0 for the idle thread
 * @new_tid:  0 for the idle thread (no wait time then)
 * @wait:     TickCount - new thread's WaitTime, unclamped
 * @old_pri:  old thread's Priority
 * @base:     ThreadBasePriority[@idx] as the block holds it
 * @state:    old thread's KTHREAD_STATE
 * @wait_reason: old thread's KWAIT_REASON
 * @idx:      OldThreadIdIndex, < 16
 * @max_wait_reason: the target's OldThreadStateWr bias
 */
struct ccswap_rec_in {
	int64_t delta;
	uint32_t old_tid;
	uint32_t new_tid;
	uint32_t wait;
	int8_t old_pri;
	int8_t base;
	uint8_t state;
	uint8_t wait_reason;
	uint32_t idx;
	uint8_t max_wait_reason;
};

/*
 * The record forms by a 5-bit index of the switch's flags, from bit 4 down:
 * idle (old TID 0), delta >= 0x4000, delta < 0x20000, wait <= 1, priority
 * increment <= 7. Idle switches are IDLE_SHORT or IDLE by the second; the
 * others LITE when the last three all hold, else FULL (KERNEL_FACTS 5.3).
 * Each flag is a compare that sets the carry and an add-with-carry into
 * the index, where the form's own bits (busy << 2 | big << 1 | lite) took
 * setcc, and, shift and or. Columns of one object, so one base register
 * reaches them all: the step (CCSWAP_STEP(length)), dword0's bits by
 * (lite_fields | set) & keep (the type alone, or LITE's fields and type),
 * and 1 << where TimeDelta starts (a multiply, not a shift by %cl).
 */
struct ccswap_forms {
	uint64_t step[32];
	uint32_t set[32];
	uint32_t keep[32];
	uint16_t delta_mul[32];
};

#define CCSWAP_F_IDLE(i) (((i)&16) != 0)
#define CCSWAP_F_BIG(i)	 (((i)&8) != 0)
#define CCSWAP_F_LITE(i) (!CCSWAP_F_IDLE(i) && ((i)&7) == 7)
#define CCSWAP_F_TYPE(i)                                                                           \
	(CCSWAP_F_IDLE(i) ? (CCSWAP_F_BIG(i) ? ETW_CCSWAP_IDLE : ETW_CCSWAP_IDLE_SHORT)            \
			  : (CCSWAP_F_LITE(i) ? ETW_CCSWAP_LITE : ETW_CCSWAP_FULL))
#define CCSWAP_F_LEN(i)                                                                            \
	(CCSWAP_F_IDLE(i) ? (CCSWAP_F_BIG(i) ? 4u : 2u) : (CCSWAP_F_LITE(i) ? 4u : 8u))
#define CCSWAP_F_STEP(i) CCSWAP_STEP(CCSWAP_F_LEN(i)),
#define CCSWAP_F_SET(i)	 (uint32_t) CCSWAP_F_TYPE(i),
#define CCSWAP_F_KEEP(i) (CCSWAP_F_LITE(i) ? ~0u : (uint32_t)CCSWAP_F_TYPE(i)),
#define CCSWAP_F_MUL(i)	 (uint16_t)(CCSWAP_F_LITE(i) ? 1u << 15 : 1u << 2),
#define CCSWAP_F8(F, b)	 F(b) F(b + 1) F(b + 2) F(b + 3) F(b + 4) F(b + 5) F(b + 6) F(b + 7)
#define CCSWAP_F32(F)	 CCSWAP_F8(F, 0) CCSWAP_F8(F, 8) CCSWAP_F8(F, 16) CCSWAP_F8(F, 24)

/*
 * The index of struct ccswap_forms: a flag at a time shifted in, each as
 * the carry of an unsigned compare (@delta with its sign bit flipped
 * compares unsigned as it does signed). On x86-64 the compare and an adc
 * (2 operations a flag) in an asm, as compilers make each a setcc, a
 * zeroing and an lea. *@delta comes back with bit 63 flipped: its low 32
 * bits, all the record keeps, are the same.
 */
static CCSWAP_INLINE uint64_t ccswap_form_index(uint32_t old_tid, uint64_t *delta, uint32_t wait,
						uint32_t inc)
{
	static const uint64_t lim[2] = {0x3FFFull ^ 1ull << 63, 0x20000ull ^ 1ull << 63};
	uint64_t k = 0;

#if defined(CCSWAP_GNUC) && defined(__x86_64__)
	__asm__("btcq $63, %[db]\n\t"
		"cmpl $1, %[tid]\n\t" /* CF: idle */
		"adcq %[k], %[k]\n\t"
		"cmpq %[db], %[big]\n\t" /* CF: 0x3FFF < delta */
		"adcq %[k], %[k]\n\t"
		"cmpq %[s17], %[db]\n\t" /* CF: delta < 0x20000 */
		"adcq %[k], %[k]\n\t"
		"cmpl $2, %[wait]\n\t" /* CF: wait <= 1 */
		"adcq %[k], %[k]\n\t"
		"cmpl $8, %[inc]\n\t" /* CF: inc <= 7 */
		"adcq %[k], %[k]"
		: [k] "+&r"(k), [db] "+&r"(*delta)
		: [tid] "rm"(old_tid), [big] "m"(lim[0]), [s17] "m"(lim[1]), [wait] "rm"(wait),
		  [inc] "rm"(inc)
		: "cc");
#else
	uint64_t db = *delta ^ 1ull << 63;

	k = (uint64_t)(old_tid == 0);
	k = k * 2 + (uint64_t)(db > lim[0]);
	k = k * 2 + (uint64_t)(db < lim[1]);
	k = k * 2 + (uint64_t)(wait < 2);
	k = k * 2 + (uint64_t)(inc < 8);
	*delta = db;
#endif
	return k;
}

/* OldThreadStateWr (KERNEL_FACTS 5.3): the wait reason when Waiting, else state + bias. */
static inline uint32_t ccswap_swr(uint8_t state, uint8_t wait_reason, uint8_t bias)
{
	return (state == ETW_THREAD_STATE_WAITING ? wait_reason : (uint32_t)state + bias) &
	       FIELD_MAX(ETW_CCF_STATE_WR);
}

/* A record's step: its length (2, 4 or 8) in the low word, 1 in the high one. */
#define CCSWAP_STEP(len) ((uint64_t)(len) | 1ull << 32)

/*
 * ccswap_rec_step - choose the form and store the record at @dst without a
 * branch: the bits of every form are computed and the right ones kept.
 * Always stores 8 bytes (little-endian); only the record's length (2, 4 or
 * 8) belongs to the record, the rest is scratch the next record
 * overwrites. The caller guarantees 8 bytes of room.
 * Return: CCSWAP_STEP(length): what a block's Offset and record count
 * (adjacent words) grow by, in one add.
 * ccswap_rec_step_swr() is given OldThreadStateWr @swr (< 64) instead of
 * computing it from @in's state, wait reason and bias.
 */
static CCSWAP_INLINE uint64_t ccswap_rec_step_swr(uint8_t *dst, const struct ccswap_rec_in *in,
						  uint32_t swr)
{
	static const struct ccswap_forms forms = {
		.step = {CCSWAP_F32(CCSWAP_F_STEP)},
		.set = {CCSWAP_F32(CCSWAP_F_SET)},
		.keep = {CCSWAP_F32(CCSWAP_F_KEEP)},
		.delta_mul = {CCSWAP_F32(CCSWAP_F_MUL)},
	};
	uint32_t wait = ccswap_opaque(in->wait) & (0u - (uint32_t)(in->new_tid != 0));
	/* compared unsigned: a priority below the recorded base is never LITE */
	uint32_t inc = (uint32_t)((int32_t)in->old_pri - (int32_t)in->base);
	uint64_t dflip = (uint64_t)in->delta;
	uint64_t form = ccswap_form_index(in->old_tid, &dflip, wait, inc);
	uint32_t d = (uint32_t)dflip; /* 30/17/14-bit fields wrap as the kernel's do */
	/*
	 * The LITE fields (swr << 9 | inc << 6 | idx << 2) nested so each step
	 * is a shift or an lea: they are kept only when inc <= 7, and idx < 16,
	 * swr < 64 need no mask (else the sum is garbage the mask drops; their
	 * two low bits are zero, so set's type goes in and keep holds it).
	 * IDLE_SHORT, IDLE and FULL's dword0 keep TimeDelta at bit 2, LITE at
	 * bit 15; the 32-bit multiply drops what does not fit. dword1 (FULL's
	 * WaitTime, Priority, StateWr, TidIndex) nested the same way.
	 */
	uint32_t lite_fields = ((swr * 8u + inc) << 6) + in->idx * 4u;
	uint32_t lo = d * (uint32_t)forms.delta_mul[form] |
		      ((lite_fields | forms.set[form]) & forms.keep[form]);
	uint32_t sat = wait > ETW_CCSWAP_WAIT_SAT ? ETW_CCSWAP_WAIT_SAT : wait;
	uint32_t hi =
		((sat << 5 | ((uint32_t)(uint8_t)in->old_pri & 31u)) << 6 | swr) << 4 | in->idx;

	ccswap_put_le64(dst, (uint64_t)hi << 32 | lo);
	return forms.step[form];
}

static CCSWAP_INLINE uint64_t ccswap_rec_step(uint8_t *dst, const struct ccswap_rec_in *in)
{
	return ccswap_rec_step_swr(dst, in,
				   ccswap_swr(in->state, in->wait_reason, in->max_wait_reason));
}

/* ccswap_rec_step() for the record's length alone: 2, 4 or 8. */
static CCSWAP_INLINE uint32_t ccswap_rec_encode(uint8_t *dst, const struct ccswap_rec_in *in)
{
	return (uint32_t)ccswap_rec_step(dst, in);
}

#endif /* PRODUCER_CCSWAP_INTERNAL_H */
