/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_layout.h - offsets, sizes and hook ids of the ETW event
 * payloads etwforge writes (CSwitch, SpinLock, compact batches), each from
 * ../shared/spec/KERNEL_FACTS.md (section given per block) or the seed pages
 * in ../shared/seeds/. The framing they sit in (trace headers, markers,
 * buffers) is writer/etl_layout.h.
 *
 * Offsets are named constants tied together with static_asserts, never the
 * sizeof of a host struct: the layouts differ between x86 and x64 and the
 * CCSWAP records are MSVC bitfields.
 */
#ifndef PRODUCER_ETW_LAYOUT_H
#define PRODUCER_ETW_LAYOUT_H

#include <assert.h>
#include <stdint.h>

#include "writer/etl_layout.h"

/* ---- Hook ids of the payloads (KERNEL_FACTS 4.1), HookId = Group << 8 | Type */
#define ETW_HOOK_CSWITCH	   0x0524u
#define ETW_HOOK_CSWITCH_BATCH	   0x0525u
#define ETW_HOOK_SPINLOCK	   0x0529u
#define ETW_HOOK_SPINLOCK_DC_START 0x0F4Bu /* spin-lock configuration rundown, start */
#define ETW_HOOK_SPINLOCK_DC_END   0x0F4Cu /* ... and end (SYSTEM header, version 3) */

/* Event versions (KERNEL_FACTS 4.2). */
#define ETW_VERSION_BATCH	    2
#define ETW_VERSION_SPINLOCK	    2
#define ETW_VERSION_SPINLOCK_CONFIG 3

/* ---- WMI_CONTEXTSWAP, 0x18 bytes on x86 and x64 (seed 001, KF 5.2) ------- */
enum {
	ETW_CS_NEW_TID = 0x00,
	ETW_CS_OLD_TID = 0x04,
	ETW_CS_NEW_PRI = 0x08,
	ETW_CS_OLD_PRI = 0x09,
	ETW_CS_PREV_CSTATE = 0x0A, /* union with OldThreadRank */
	ETW_CS_NEW_PRI_DECR = 0x0B,
	ETW_CS_OLD_WAIT_REASON = 0x0C,
	ETW_CS_OLD_WAIT_MODE = 0x0D, /* v2: WaitMode; v4: flags byte */
	ETW_CS_OLD_STATE = 0x0E,
	ETW_CS_OLD_IDEAL_CPU = 0x0F,
	ETW_CS_NEW_WAIT_TIME = 0x10,
	ETW_CS_OLD_REMAINING_QUANTUM = 0x14,
	ETW_CS_LEN = 0x18,
};
static_assert(ETW_CS_OLD_REMAINING_QUANTUM + 4 == ETW_CS_LEN, "CSwitch payload 0x18");
/* v4 flags byte at 0x0D: bit0 WaitMode, bits1-3 old QoS, bits4-6 new QoS. */
#define ETW_CS4_WAIT_MODE 0x01u
#define ETW_CS4_OLD_QOS	  0x0Eu
#define ETW_CS4_NEW_QOS	  0x70u
#define ETW_CS4_RESERVED  0x80u

/*
 * ---- PERFINFO_SPINLOCK_CONFIG, the payload of 0x0F4B/0x0F4C (KERNEL_FACTS
 * 6.3): the sampling parameters in the order Spin, Contention, Acquire, Hold
 * (not EVENT_TRACE_SPINLOCK_INFORMATION's order). The same on x86 and x64.
 */
enum {
	ETW_SPINCFG_SPIN_THRESHOLD = 0x00,
	ETW_SPINCFG_CONTENTION_RATE = 0x04,
	ETW_SPINCFG_ACQUIRE_RATE = 0x08,
	ETW_SPINCFG_HOLD_THRESHOLD = 0x0C,
	ETW_SPINCFG_LEN = 0x10,
};
static_assert(ETW_SPINCFG_HOLD_THRESHOLD + 4 == ETW_SPINCFG_LEN, "PERFINFO_SPINLOCK_CONFIG 0x10");

/* ---- WMI_SPINLOCK (seed 003, KERNEL_FACTS 6.1) --------------------------- */
enum {
	ETW_SL64_LOCK = 0x00,
	ETW_SL64_CALLER = 0x08,
	ETW_SL64_ACQUIRE_TIME = 0x10,
	ETW_SL64_RELEASE_TIME = 0x18,
	ETW_SL64_WAIT_CYCLES = 0x20,
	ETW_SL64_SPIN_COUNT = 0x24,
	ETW_SL64_TID = 0x28,
	ETW_SL64_INTERRUPT_COUNT = 0x2C,
	ETW_SL64_IRQL = 0x30,
	ETW_SL64_DEPTH = 0x31,
	ETW_SL64_FLAGS = 0x32,
	ETW_SL64_RESERVED = 0x33,
	ETW_SL64_LEN = 0x38,
};
enum {
	ETW_SL32_LOCK = 0x00,
	ETW_SL32_CALLER = 0x04,
	ETW_SL32_ACQUIRE_TIME = 0x08,
	ETW_SL32_RELEASE_TIME = 0x10,
	ETW_SL32_WAIT_CYCLES = 0x18,
	ETW_SL32_SPIN_COUNT = 0x1C,
	ETW_SL32_TID = 0x20,
	ETW_SL32_INTERRUPT_COUNT = 0x24,
	ETW_SL32_IRQL = 0x28,
	ETW_SL32_DEPTH = 0x29,
	ETW_SL32_FLAGS = 0x2A,
	ETW_SL32_RESERVED = 0x2B,
	ETW_SL32_LEN = 0x30,
};
static_assert(ETW_SL64_RESERVED + 5 == ETW_SL64_LEN, "x64 WMI_SPINLOCK 0x38");
static_assert(ETW_SL32_RESERVED + 5 == ETW_SL32_LEN, "x86 WMI_SPINLOCK 0x30");
#define ETW_SL_MODE_MASK 0x3Fu /* WMI_SPINLOCK_ACQUIRE_MODE_MASK */
#define ETW_SL_DPC_FLAG	 0x40u
#define ETW_SL_ISR_FLAG	 0x80u

/* ---- PERFINFO_CCSWAP_BUFFER, 0x58 bytes (seed 000, KERNEL_FACTS 5.3) ----- */
enum {
	ETW_CCB_FIRST_TS = 0x00,
	ETW_CCB_TID_TABLE = 0x08,
	ETW_CCB_BASE_PRI = 0x48,
	ETW_CCB_LEN = 0x58,
};
#define ETW_CCSWAP_MAX_TID 16u
static_assert(ETW_CCB_TID_TABLE + 4 * ETW_CCSWAP_MAX_TID == ETW_CCB_BASE_PRI, "TidTable[16]");
static_assert(ETW_CCB_BASE_PRI + ETW_CCSWAP_MAX_TID == ETW_CCB_LEN, "ThreadBasePriority[16]");
/* A batch event: 0x10 trace header + 0x58 CCSWAP_BUFFER + packed records, Size <= 0x400. */
#define ETW_BATCH_FIXED_LEN (ETL_TH_LEN + ETW_CCB_LEN)
#define ETW_BATCH_CAP	    0x400u
static_assert(ETW_BATCH_FIXED_LEN == 0x68, "batch fixed part");

/* Record types (PERFINFO_CCSWAP_TYPE). */
enum etw_ccswap_type {
	ETW_CCSWAP_IDLE_SHORT = 0,
	ETW_CCSWAP_IDLE = 1,
	ETW_CCSWAP_LITE = 2,
	ETW_CCSWAP_FULL = 3,
};
#define ETW_CCSWAP_TYPE_MASK 0x00000003u
/* FULL, 8 bytes: dword0 and dword1. */
#define ETW_CCF_DELTA	  0xFFFFFFFCu /* dword0 [31:2], 30 bits */
#define ETW_CCF_TID_INDEX 0x0000000Fu /* dword1 [3:0] */
#define ETW_CCF_STATE_WR  0x000003F0u /* dword1 [9:4] */
#define ETW_CCF_PRIORITY  0x00007C00u /* dword1 [14:10] */
#define ETW_CCF_WAIT_TIME 0xFFFF8000u /* dword1 [31:15], 17 bits */
static_assert(ETW_CCF_TID_INDEX + ETW_CCF_STATE_WR + ETW_CCF_PRIORITY + ETW_CCF_WAIT_TIME ==
		      0xFFFFFFFFu,
	      "FULL dword1 tiles");
/* LITE, 4 bytes. */
#define ETW_CCL_TID_INDEX 0x0000003Cu /* [5:2] */
#define ETW_CCL_PRI_INC	  0x000001C0u /* [8:6] */
#define ETW_CCL_STATE_WR  0x00007E00u /* [14:9] */
#define ETW_CCL_DELTA	  0xFFFF8000u /* [31:15], 17 bits */
static_assert(ETW_CCSWAP_TYPE_MASK + ETW_CCL_TID_INDEX + ETW_CCL_PRI_INC + ETW_CCL_STATE_WR +
			      ETW_CCL_DELTA ==
		      0xFFFFFFFFu,
	      "LITE tiles");
/* IDLE, 4 bytes; IDLE_SHORT, 2 bytes (u16). */
#define ETW_CCI_DELTA  0xFFFFFFFCu /* [31:2], 30 bits */
#define ETW_CCIS_DELTA 0x0000FFFCu /* [15:2], 14 bits */

#define ETW_CCSWAP_WAIT_SAT 0x1FFFFu /* NewThreadWaitTime saturation */

/* Thread states (KTHREAD_STATE, KERNEL_FACTS 7). */
#define ETW_THREAD_STATE_WAITING 5u
#define ETW_THREAD_STATE_MAX	 10u

/**
 * etw_cswitch_rank_byte - the OldThreadRank byte for a scheduling-group rank:
 * the rank, or 0xFF when it is above 255 (KERNEL_FACTS 5.2, offset 0x0A).
 */
static inline uint8_t etw_cswitch_rank_byte(uint32_t rank)
{
	return rank > 0xFFu ? 0xFFu : (uint8_t)rank;
}

#endif /* PRODUCER_ETW_LAYOUT_H */
