/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_layout.h - offsets, sizes, markers and hook ids of the ETW
 * event layouts etwforge writes, each from ../shared/spec/KERNEL_FACTS.md
 * (section given per block) or the seed pages in ../shared/seeds/.
 *
 * Offsets are named constants tied together with static_asserts, never the
 * sizeof of a host struct: the layouts differ between x86 and x64 and the
 * CCSWAP records are MSVC bitfields.
 */
#ifndef PRODUCER_ETW_LAYOUT_H
#define PRODUCER_ETW_LAYOUT_H

#include <assert.h>
#include <stdint.h>

/* ---- Marker (KERNEL_FACTS 3.1) ------------------------------------------ */
#define ETW_MARKER_FLAGS_MASK    0xFF000000u
#define ETW_MARKER_FLAGS_TRACE   0xC0000000u /* TRACE_HEADER_FLAG | EVENT_TRACE */
#define ETW_MARKER_TYPE_MASK     0x00FF0000u /* TRACE_HEADER_ENUM_MASK */
#define ETW_MARKER_TYPE_SHIFT    16
#define ETW_MARKER_PEBS_FLAG     0x00008000u /* TRACE_HEADER_PEBS_INDEX_FLAG */
#define ETW_MARKER_PMC_MASK      0x00000700u /* TRACE_HEADER_PMC_COUNTERS_MASK */
#define ETW_MARKER_PMC_SHIFT     8
#define ETW_MARKER_VERSION_MASK  0x000000FFu /* the kernel treats Version as 8-bit */
#define ETW_MARKER_MESSAGE_FLAGS 0x90000000u /* TRACE_MESSAGE-style headers (0x90 top byte) */

static_assert((ETW_MARKER_PEBS_FLAG & ETW_MARKER_PMC_MASK) == 0, "ext flags disjoint");

/* Header types: byte 2 of the Marker (KERNEL_FACTS 3.1). */
enum etw_header_type {
	ETW_HT_SYSTEM32 = 1,
	ETW_HT_SYSTEM64 = 2,
	ETW_HT_COMPACT32 = 3,
	ETW_HT_COMPACT64 = 4,
	ETW_HT_FULL_HEADER32 = 10,
	ETW_HT_INSTANCE32 = 11,
	ETW_HT_TIMED = 12,
	ETW_HT_ERROR = 13,
	ETW_HT_WNODE_HEADER = 14,
	ETW_HT_MESSAGE = 15,
	ETW_HT_PERFINFO32 = 16,
	ETW_HT_PERFINFO64 = 17,
	ETW_HT_EVENT_HEADER32 = 18,
	ETW_HT_EVENT_HEADER64 = 19,
	ETW_HT_FULL_HEADER64 = 20,
	ETW_HT_INSTANCE64 = 21,
};

/* Ready-made base markers (add the version in the low byte). */
#define ETW_SYSTEM_MARKER32   0xC0010000u
#define ETW_SYSTEM_MARKER64   0xC0020000u
#define ETW_PERFINFO_MARKER32 0xC0100000u
#define ETW_PERFINFO_MARKER64 0xC0110000u

/* ---- Hook ids (KERNEL_FACTS 4.1), HookId = Group << 8 | Type ------------- */
#define ETW_HOOK_LOGFILE_HEADER   0x0000u
#define ETW_HOOK_HEADER_EXTENSION 0x0005u
#define ETW_HOOK_CSWITCH          0x0524u
#define ETW_HOOK_CSWITCH_BATCH    0x0525u
#define ETW_HOOK_SPINLOCK         0x0529u

/* Event versions (KERNEL_FACTS 4.2). */
#define ETW_VERSION_SYSTEM   2
#define ETW_VERSION_BATCH    2
#define ETW_VERSION_SPINLOCK 2

/* ---- PERFINFO_TRACE_HEADER as it sits in a buffer (KERNEL_FACTS 3.2) ---- */
enum {
	ETW_TH_MARKER = 0x00,
	ETW_TH_SIZE = 0x04,
	ETW_TH_HOOK_ID = 0x06,
	ETW_TH_TS = 0x08,
	ETW_TH_LEN = 0x10, /* payload / extended items start here */
};
static_assert(ETW_TH_TS + 8 == ETW_TH_LEN, "TS is the last header field");
#define ETW_EXT_ITEM_LEN   8u /* PEBS index or one PMC counter, ULONG64 each */
#define ETW_MAX_PMC_ITEMS  7u /* 3-bit count in the Marker */
#define ETW_MAX_EVENT_SIZE 0xFFFFu

/* ---- SYSTEM_TRACE_HEADER (KERNEL_FACTS 3.3) ------------------------------ */
enum {
	ETW_SH_MARKER = 0x00,
	ETW_SH_SIZE = 0x04,
	ETW_SH_HOOK_ID = 0x06,
	ETW_SH_THREAD_ID = 0x08,
	ETW_SH_PROCESS_ID = 0x0C,
	ETW_SH_SYSTEM_TIME = 0x10,
	ETW_SH_KERNEL_TIME = 0x18,
	ETW_SH_USER_TIME = 0x1C,
	ETW_SH_LEN = 0x20,
	ETW_COMPACT_SH_LEN = 0x18,
};
static_assert(ETW_SH_USER_TIME + 4 == ETW_SH_LEN, "SYSTEM header is 0x20 bytes");

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
#define ETW_CS4_OLD_QOS   0x0Eu
#define ETW_CS4_NEW_QOS   0x70u
#define ETW_CS4_RESERVED  0x80u

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
#define ETW_SL_DPC_FLAG  0x40u
#define ETW_SL_ISR_FLAG  0x80u

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
#define ETW_BATCH_FIXED_LEN (ETW_TH_LEN + ETW_CCB_LEN)
#define ETW_BATCH_CAP       0x400u
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
#define ETW_CCF_DELTA      0xFFFFFFFCu /* dword0 [31:2], 30 bits */
#define ETW_CCF_TID_INDEX  0x0000000Fu /* dword1 [3:0] */
#define ETW_CCF_STATE_WR   0x000003F0u /* dword1 [9:4] */
#define ETW_CCF_PRIORITY   0x00007C00u /* dword1 [14:10] */
#define ETW_CCF_WAIT_TIME  0xFFFF8000u /* dword1 [31:15], 17 bits */
static_assert(ETW_CCF_TID_INDEX + ETW_CCF_STATE_WR + ETW_CCF_PRIORITY + ETW_CCF_WAIT_TIME ==
		      0xFFFFFFFFu,
	      "FULL dword1 tiles");
/* LITE, 4 bytes. */
#define ETW_CCL_TID_INDEX 0x0000003Cu /* [5:2] */
#define ETW_CCL_PRI_INC   0x000001C0u /* [8:6] */
#define ETW_CCL_STATE_WR  0x00007E00u /* [14:9] */
#define ETW_CCL_DELTA     0xFFFF8000u /* [31:15], 17 bits */
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
#define ETW_THREAD_STATE_MAX     10u

#endif /* PRODUCER_ETW_LAYOUT_H */
