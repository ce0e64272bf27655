/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_layout.h - offsets, sizes and hook ids of the ETW event
 * payloads etwforge writes (CSwitch, SpinLock, compact batches), each from
 * ../shared/spec/KERNEL_FACTS.md (section given per block) or the seed pages
 * in ../shared/seeds/; and of the identity and rundown events (process,
 * thread, ReadyThread, SampledProfile, SystemConfig CPU, the group-mask
 * records), from ../shared/spec/RUNDOWN_FACTS.md ("RF" below); and of the
 * image, stack-walk and KernelTraceControl records, from
 * ../shared/spec/STACK_IMAGE_FACTS.md ("SIF" below). The framing they sit in
 * (trace headers, markers, buffers) is writer/etl_layout.h.
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

/* Encoder flag, for every encoder of producer/. */
#define ETW_ENC_WRAP 0x1u /* truncate values to their field as the kernel does */

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

/* ==== Identity, scheduling context and rundown (RUNDOWN_FACTS) =========== */

/* ---- Hook ids (RF 2.1, 3.1, 4, 5.2, 6, 7.2), HookId = Group << 8 | Type -- */
#define ETW_HOOK_PROCESS_START	       0x0301u
#define ETW_HOOK_PROCESS_END	       0x0302u
#define ETW_HOOK_PROCESS_DC_START      0x0303u
#define ETW_HOOK_PROCESS_DC_END	       0x0304u
#define ETW_HOOK_PROCESS_TERMINATE     0x030Bu
#define ETW_HOOK_PROCESS_DEFUNCT       0x0327u /* PERFINFO_LOG_TYPE_ZOMBIE_PROCESS */
#define ETW_HOOK_THREAD_START	       0x0501u
#define ETW_HOOK_THREAD_END	       0x0502u
#define ETW_HOOK_THREAD_DC_START       0x0503u
#define ETW_HOOK_THREAD_DC_END	       0x0504u
#define ETW_HOOK_READY_THREAD	       0x0532u
#define ETW_HOOK_THREAD_SET_NAME       0x0548u /* Thread group, opcode 72 (RF 3.10) */
#define ETW_HOOK_SAMPLED_PROFILE       0x0F2Eu
#define ETW_HOOK_PROFILE_SET_INTERVAL  0x0F48u
#define ETW_HOOK_PROFILE_INTERVAL_DC_S 0x0F49u /* CollectionStart */
#define ETW_HOOK_PROFILE_INTERVAL_DC_E 0x0F4Au /* CollectionEnd */
#define ETW_HOOK_SYSCONFIG_CPU	       0x0B0Au
#define ETW_HOOK_GROUP_MASKS_END       0x0020u /* WMI_LOG_TYPE_GROUP_MASKS_END */
#define ETW_HOOK_RUNDOWN_COMPLETE      0x0008u /* WMI_LOG_TYPE_RUNDOWN_COMPLETE, no payload */
/* 0x0005 WMI_LOG_TYPE_HEADER_EXTENSION is ETL_HOOK_HEADER_EXTENSION (writer/). */

/*
 * ---- WMI_PROCESS_INFORMATION v4/v5 (RF 2.2): the fixed part, then UserSID,
 * ImageFileName (ANSI z), CommandLine, PackageFullName, ApplicationId (UTF-16
 * z each, unaligned), and for Defunct v5 ExitTime (u64).
 */
enum {
	ETW_PR64_KEY = 0x00, /* UniqueProcessKey, pointer */
	ETW_PR64_PID = 0x08,
	ETW_PR64_PPID = 0x0C,
	ETW_PR64_SESSION = 0x10,
	ETW_PR64_EXIT_STATUS = 0x14,
	ETW_PR64_DTB = 0x18, /* DirectoryTableBase, pointer */
	ETW_PR64_FLAGS = 0x20,
	ETW_PR64_SID = 0x24,
};
enum {
	ETW_PR32_KEY = 0x00,
	ETW_PR32_PID = 0x04,
	ETW_PR32_PPID = 0x08,
	ETW_PR32_SESSION = 0x0C,
	ETW_PR32_EXIT_STATUS = 0x10,
	ETW_PR32_DTB = 0x14,
	ETW_PR32_FLAGS = 0x18,
	ETW_PR32_SID = 0x1C,
};
static_assert(ETW_PR64_DTB + 8 == ETW_PR64_FLAGS && ETW_PR64_FLAGS + 4 == ETW_PR64_SID,
	      "x64 v4 fixed part 0x24");
static_assert(ETW_PR32_DTB + 4 == ETW_PR32_FLAGS && ETW_PR32_FLAGS + 4 == ETW_PR32_SID,
	      "x86 v4 fixed part 0x1C");
#define ETW_PROCESS_VERSION	      4 /* Start, End, DCStart, DCEnd (RF 1.2) */
#define ETW_PROCESS_DEFUNCT_V5	      5 /* + ExitTime */
#define ETW_PROCESS_EXIT_TIME_LEN     8u
#define ETW_PROCESS_STATUS_PENDING    0x103 /* STATUS_PENDING: a live process (RF 2.4) */
#define ETW_PROCESS_FLAG_APP_ID	      0x1u  /* ETW_PROCESS_EVENT_FLAG_* (RF 2.4) */
#define ETW_PROCESS_FLAG_WOW64	      0x2u
#define ETW_PROCESS_FLAG_PROTECTED    0x4u
#define ETW_PROCESS_FLAG_PACKAGED     0x8u
#define ETW_PROCESS_TERMINATE_LEN     4u /* 0x030B: the terminated ProcessId (RF 2.11) */
#define ETW_VERSION_PROCESS_TERMINATE 2

/*
 * ---- The Sid blob (RF 2.3): a u32 0 when there is no SID, else TOKEN_USER
 * (Sid pointer, Attributes u32, and on x64 4 pad bytes up to 16) then the SID
 * itself: Revision, SubAuthorityCount, IdentifierAuthority[6] (big-endian),
 * SubAuthority[n] u32.
 */
#define ETW_SID_NONE_LEN      4u
#define ETW_TOKEN_USER64_LEN  16u
#define ETW_TOKEN_USER32_LEN  8u
#define ETW_TU64_ATTRIBUTES   0x08u
#define ETW_TU64_PAD	      0x0Cu
#define ETW_TU32_ATTRIBUTES   0x04u
#define ETW_SID_REVISION      0x00u
#define ETW_SID_SUB_COUNT     0x01u
#define ETW_SID_AUTHORITY     0x02u
#define ETW_SID_SUB_AUTHORITY 0x08u
#define ETW_SID_AUTHORITY_LEN 6u
#define ETW_SID_MAX_SUB	      15u /* SID_MAX_SUB_AUTHORITIES */
static_assert(ETW_TU64_PAD + 4 == ETW_TOKEN_USER64_LEN, "x64 TOKEN_USER pads to 16");
static_assert(ETW_SID_AUTHORITY + ETW_SID_AUTHORITY_LEN == ETW_SID_SUB_AUTHORITY, "SID head 8");

/*
 * ---- WMI_EXTENDED_THREAD_INFORMATION v3 (RF 3.2): 0x48 bytes on x64, 0x2C
 * on x86, then (18362: inside v3; v4: always) ThreadName, UTF-16 z.
 */
enum {
	ETW_TH64_PID = 0x00,
	ETW_TH64_TID = 0x04,
	ETW_TH64_STACK_BASE = 0x08,
	ETW_TH64_STACK_LIMIT = 0x10,
	ETW_TH64_USTACK_BASE = 0x18,
	ETW_TH64_USTACK_LIMIT = 0x20,
	ETW_TH64_AFFINITY = 0x28, /* v1/v2: StartAddr */
	ETW_TH64_WIN32_START = 0x30,
	ETW_TH64_TEB = 0x38,
	ETW_TH64_SUB_TAG = 0x40,
	ETW_TH64_BASE_PRI = 0x44,
	ETW_TH64_PAGE_PRI = 0x45,
	ETW_TH64_IO_PRI = 0x46,
	ETW_TH64_FLAGS = 0x47,
	ETW_TH64_LEN = 0x48, /* ThreadName starts here */
};
enum {
	ETW_TH32_PID = 0x00,
	ETW_TH32_TID = 0x04,
	ETW_TH32_STACK_BASE = 0x08,
	ETW_TH32_STACK_LIMIT = 0x0C,
	ETW_TH32_USTACK_BASE = 0x10,
	ETW_TH32_USTACK_LIMIT = 0x14,
	ETW_TH32_AFFINITY = 0x18,
	ETW_TH32_WIN32_START = 0x1C,
	ETW_TH32_TEB = 0x20,
	ETW_TH32_SUB_TAG = 0x24,
	ETW_TH32_BASE_PRI = 0x28,
	ETW_TH32_PAGE_PRI = 0x29,
	ETW_TH32_IO_PRI = 0x2A,
	ETW_TH32_FLAGS = 0x2B,
	ETW_TH32_LEN = 0x2C,
};
static_assert(ETW_TH64_TEB + 8 == ETW_TH64_SUB_TAG && ETW_TH64_FLAGS + 1 == ETW_TH64_LEN,
	      "x64 thread v3 0x48");
static_assert(ETW_TH32_TEB + 4 == ETW_TH32_SUB_TAG && ETW_TH32_FLAGS + 1 == ETW_TH32_LEN,
	      "x86 thread v3 0x2C");
#define ETW_THREAD_VERSION	   3
#define ETW_THREAD_V4		   4	/* ThreadName mandatory */
#define ETW_THREAD_FLAG_REG_NOTIFY 0x1u /* ETW_THREAD_FLAG_REGISTRY_NOTIFICATION */

/* ---- ThreadSetName 0x0548 v2 (RF 3.10): no pointer, x86 = x64 ----------- */
enum {
	ETW_TSN_PID = 0x00,
	ETW_TSN_TID = 0x04,
	ETW_TSN_NAME = 0x08,
};
#define ETW_VERSION_THREAD_SET_NAME 2

/* ---- ETW_READY_THREAD_EVENT 0x0532 v2 (RF 4), 8 bytes on x86 and x64 ---- */
enum {
	ETW_RT_TID = 0x00,
	ETW_RT_ADJUST_REASON = 0x04,
	ETW_RT_ADJUST_INCREMENT = 0x05,
	ETW_RT_FLAGS = 0x06,
	ETW_RT_RESERVED = 0x07,
	ETW_RT_LEN = 0x08,
};
static_assert(ETW_RT_RESERVED + 1 == ETW_RT_LEN, "ReadyThread 8 bytes");
#define ETW_VERSION_READY_THREAD    2
#define ETW_RT_REASON_NONE	    0 /* AdjustReason: ignore the increment */
#define ETW_RT_REASON_UNWAIT	    1
#define ETW_RT_REASON_BOOST	    2
#define ETW_RT_FLAG_DPC		    0x1u /* readied from a DPC */
#define ETW_RT_FLAG_STACK_SWAPPED   0x2u /* KernelStackNotResident */
#define ETW_RT_FLAG_PROCESS_SWAPPED 0x4u /* ProcessOutOfMemory */
#define ETW_RT_FLAG_DIRECT_SWITCH   0x8u /* DirectSwitchAttempt */

/* ---- PERFINFO_SAMPLED_PROFILE_INFORMATION 0x0F2E v2 (RF 5.1) ----------- */
enum {
	ETW_SP64_IP = 0x00,
	ETW_SP64_TID = 0x08,
	ETW_SP64_COUNT = 0x0C,
	ETW_SP64_FLAGS = 0x0E,
	ETW_SP64_RANK = 0x0F,
	ETW_SP64_LEN = 0x10,
};
enum {
	ETW_SP32_IP = 0x00,
	ETW_SP32_TID = 0x04,
	ETW_SP32_COUNT = 0x08,
	ETW_SP32_FLAGS = 0x0A,
	ETW_SP32_RANK = 0x0B,
	ETW_SP32_LEN = 0x0C,
};
static_assert(ETW_SP64_RANK + 1 == ETW_SP64_LEN && ETW_SP32_RANK + 1 == ETW_SP32_LEN,
	      "SampledProfile 0x10 / 0xC");
#define ETW_VERSION_SAMPLED_PROFILE 2
#define ETW_SP_FLAG_DPC		    0x01u /* ExecutingDpc */
#define ETW_SP_FLAG_ISR		    0x02u /* ExecutingIsr */
#define ETW_SP_FLAG_RESERVED	    0x04u
#define ETW_SP_FLAG_PRIORITY	    0xF8u /* bits 3-7 */
static_assert(ETW_SP_FLAG_DPC + ETW_SP_FLAG_ISR + ETW_SP_FLAG_RESERVED + ETW_SP_FLAG_PRIORITY ==
		      0xFFu,
	      "flags byte tiles");

/* ---- PERFINFO_SAMPLED_PROFILE_CONFIG 0x0F48/49/4A (RF 5.2) -------------- */
enum {
	ETW_PI_SOURCE = 0x00, /* KPROFILE_SOURCE */
	ETW_PI_NEW = 0x04,
	ETW_PI_OLD = 0x08,
	ETW_PI_LEN = 0x0C, /* v2 ends here; v3: SourceName UTF-16 z */
};
#define ETW_VERSION_PROFILE_INTERVAL 3
#define ETW_PROFILE_SOURCE_TIME	     0u /* ProfileTime, the timer: 100-ns units */

/* ---- CPU_CONFIG_RECORD, SystemConfig CPU 0x0B0A v3 (RF 6.2) ------------ */
enum {
	ETW_CPU_MHZ = 0x000,
	ETW_CPU_NPROC = 0x004,
	ETW_CPU_MEM_MB = 0x008,
	ETW_CPU_PAGE_SIZE = 0x00C,
	ETW_CPU_ALLOC_GRAN = 0x010,
	ETW_CPU_COMPUTER = 0x014, /* WCHAR[256], NUL-padded */
	ETW_CPU_DOMAIN = 0x214,	  /* WCHAR[134] */
	ETW_CPU_HT = 0x320,	  /* HyperThreadingFlag, pointer-sized */
};
#define ETW_CPU_COMPUTER_UNITS 256u /* MAX_DEVICE_ID_LENGTH */
#define ETW_CPU_DOMAIN_UNITS   134u /* CONFIG_MAX_DOMAIN_NAME_LEN */
static_assert(ETW_CPU_COMPUTER + 2 * ETW_CPU_COMPUTER_UNITS == ETW_CPU_DOMAIN, "ComputerName");
static_assert(ETW_CPU_DOMAIN + 2 * ETW_CPU_DOMAIN_UNITS == ETW_CPU_HT, "DomainName");
enum {
	ETW_CPU64_HIGHEST_USER = 0x328,
	ETW_CPU64_ARCH = 0x330,
	ETW_CPU64_LEVEL = 0x332,
	ETW_CPU64_REVISION = 0x334,
	ETW_CPU64_PAE = 0x336, /* Pae then Nx: the readers' order (RF 6.2, unknown) */
	ETW_CPU64_NX = 0x337,
	ETW_CPU64_MEM_SPEED = 0x338,
	ETW_CPU64_LEN = 0x33C,
};
enum {
	ETW_CPU32_HIGHEST_USER = 0x324,
	ETW_CPU32_ARCH = 0x328,
	ETW_CPU32_LEVEL = 0x32A,
	ETW_CPU32_REVISION = 0x32C,
	ETW_CPU32_PAE = 0x32E,
	ETW_CPU32_NX = 0x32F,
	ETW_CPU32_MEM_SPEED = 0x330,
	ETW_CPU32_LEN = 0x334,
};
static_assert(ETW_CPU_HT + 8 == ETW_CPU64_HIGHEST_USER && ETW_CPU64_MEM_SPEED + 4 == ETW_CPU64_LEN,
	      "x64 CPU config 828 bytes");
static_assert(ETW_CPU_HT + 4 == ETW_CPU32_HIGHEST_USER && ETW_CPU32_MEM_SPEED + 4 == ETW_CPU32_LEN,
	      "x86 CPU config 820 bytes");
#define ETW_VERSION_SYSCONFIG_CPU 3

/*
 * ---- ETW_KERNEL_HEADER_EXTENSION in data buffers (RF 7.2): the payload of
 * 0x0005 (the new group masks) and 0x0020 (the previous ones).
 */
enum {
	ETW_GM_MASKS = 0x00, /* PERFINFO_GROUPMASK: Masks[8] u32 */
	ETW_GM_VERSION = 0x20,
	ETW_GM_LEN = 0x24,
};
#define ETW_GROUP_MASKS 8u
static_assert(ETW_GM_MASKS + 4 * ETW_GROUP_MASKS == ETW_GM_VERSION, "Masks[8]");
static_assert(ETW_GM_LEN == ETL_HDR_EXT_LEN, "the header buffer's 0x0005 payload");
#define ETW_VERSION_GROUP_MASKS 2

/*
 * ---- DPC and ISR records (STACK_IMAGE_FACTS 5; ntwmi.h's
 * PERFINFO_DPC_INFORMATION, PERFINFO_INTERRUPT_INFORMATION pack(1), PerfView's
 * DPCTraceData / ISRTraceData), PerfInfo group, logged when the routine ends.
 * No real file holds them: PERFINFO header (like SampledProfile, a PerfInfo
 * hook the kernel logs at DISPATCH_LEVEL or above, with no thread context)
 * and version 2 (dissect.etl's v2 templates; PerfView's length asserts).
 */
#define ETW_HOOK_THREADED_DPC 0x0F42u /* opcode 66 */
#define ETW_HOOK_ISR	      0x0F43u /* opcode 67, PERFINFO_LOG_TYPE_INTERRUPT */
#define ETW_HOOK_DPC	      0x0F44u /* opcode 68 */
#define ETW_HOOK_TIMER_DPC    0x0F45u /* opcode 69 */
#define ETW_VERSION_DPC	      2
/* the same offsets on x86 and x64 up to the routine; the ISR's tail follows it */
enum {
	ETW_DPC_INITIAL_TIME = 0x00, /* u64 on both */
	ETW_DPC_ROUTINE = 0x08,	     /* a pointer */
	ETW_DPC64_LEN = 0x10,
	ETW_DPC32_LEN = 0x0C,
	ETW_ISR64_RETURN = 0x10, /* u8 ReturnValue */
	ETW_ISR64_VECTOR = 0x11, /* u16 Vector, unaligned (pack 1) */
	ETW_ISR64_RESERVED = 0x13,
	ETW_ISR64_LEN = 0x14,
	ETW_ISR32_RETURN = 0x0C,
	ETW_ISR32_VECTOR = 0x0D,
	ETW_ISR32_RESERVED = 0x0F,
	ETW_ISR32_LEN = 0x10,
};
static_assert(ETW_ISR64_RETURN == ETW_DPC64_LEN && ETW_ISR32_RETURN == ETW_DPC32_LEN,
	      "an ISR is a DPC's head and 4 bytes");

/* ==== Images, stack walks, image identities (STACK_IMAGE_FACTS) ========== */

/* ---- Hook ids (SIF 2.1, 3.1) --------------------------------------------- */
#define ETW_HOOK_IMAGE_LOAD	    0x030Au /* Process group, type 10: the only load hook */
#define ETW_HOOK_IMAGE_UNLOAD	    0x1402u
#define ETW_HOOK_IMAGE_DC_START	    0x1403u
#define ETW_HOOK_IMAGE_DC_END	    0x1404u
#define ETW_HOOK_IMAGE_KERNEL_BASE  0x1421u /* DCEnd only, before the kernel modules */
#define ETW_HOOK_IMAGE_HYPERCALL    0x1422u
#define ETW_HOOK_STACK_WALK	    0x1820u
#define ETW_HOOK_STACK_KEY_CREATE   0x1822u /* never logged (SIF 3.1); decoded all the same */
#define ETW_HOOK_STACK_KEY_DELETE   0x1823u /* a cached stack's definition, on eviction */
#define ETW_HOOK_STACK_KEY_RUNDOWN  0x1824u /* ... and for every entry still cached at stop */
#define ETW_HOOK_STACK_KEY_KERNEL   0x1825u /* a reference to a cached kernel stack */
#define ETW_HOOK_STACK_KEY_USER	    0x1826u /* ... to a cached user stack */
#define ETW_VERSION_IMAGE_WIN8	    2	    /* 9200: Reserved0 u32 at 0x1C */
#define ETW_VERSION_IMAGE_WIN10	    3	    /* 18362: SignatureLevel, SignatureType */
#define ETW_VERSION_IMAGE_SINGLETON 2	    /* 0x1421 / 0x1422 on both builds */
#define ETW_VERSION_STACK_WALK	    2	    /* every stack record, PERFINFO */

/*
 * ---- WMI_IMAGELOAD_INFORMATION v2/v3 (SIF 2.2): 0x38 bytes on x64, 0x2C on
 * x86, then FileName UTF-16 z. v2 has Reserved0 as a u32 at 0x1C/0x14; v3
 * splits it into SignatureLevel u8, SignatureType u8, Reserved0 u16.
 */
enum {
	ETW_IM64_BASE = 0x00,
	ETW_IM64_SIZE = 0x08,
	ETW_IM64_PID = 0x10,
	ETW_IM64_CHECKSUM = 0x14,
	ETW_IM64_TIMESTAMP = 0x18,
	ETW_IM64_SIG_LEVEL = 0x1C,
	ETW_IM64_SIG_TYPE = 0x1D,
	ETW_IM64_RESERVED0 = 0x1E,
	ETW_IM64_DEFAULT_BASE = 0x20,
	ETW_IM64_RESERVED1 = 0x28, /* Reserved1..4, u32 each */
	ETW_IM64_FILE_NAME = 0x38,
};
enum {
	ETW_IM32_BASE = 0x00,
	ETW_IM32_SIZE = 0x04,
	ETW_IM32_PID = 0x08,
	ETW_IM32_CHECKSUM = 0x0C,
	ETW_IM32_TIMESTAMP = 0x10,
	ETW_IM32_SIG_LEVEL = 0x14,
	ETW_IM32_SIG_TYPE = 0x15,
	ETW_IM32_RESERVED0 = 0x16,
	ETW_IM32_DEFAULT_BASE = 0x18,
	ETW_IM32_RESERVED1 = 0x1C,
	ETW_IM32_FILE_NAME = 0x2C,
};
#define ETW_IMAGE_RESERVED_N 4u /* Reserved1..Reserved4 */
static_assert(ETW_IM64_RESERVED1 + 4 * ETW_IMAGE_RESERVED_N == ETW_IM64_FILE_NAME,
	      "x64 image fixed part 0x38");
static_assert(ETW_IM32_RESERVED1 + 4 * ETW_IMAGE_RESERVED_N == ETW_IM32_FILE_NAME,
	      "x86 image fixed part 0x2C");
static_assert(ETW_IM64_RESERVED0 + 2 == ETW_IM64_DEFAULT_BASE &&
		      ETW_IM32_RESERVED0 + 2 == ETW_IM32_DEFAULT_BASE,
	      "v3 Reserved0 is a u16");

/*
 * ---- STACK_WALK_EVENT_DATA 0x1820 (SIF 3.2) and the stack-key reference
 * 0x1825/0x1826 (3.6): the same head on x86 and x64, then the frames
 * (pointer each, innermost first) or the key (a pointer).
 */
enum {
	ETW_SW_EVENT_TS = 0x00,
	ETW_SW_PROCESS = 0x08,
	ETW_SW_THREAD = 0x0C,
	ETW_SW_FRAMES = 0x10, /* 0x1820: Stack[n]; 0x1825/0x1826: StackKey */
};
#define ETW_STACK_MAX_FRAMES   192u		     /* ETW_STACK_SW_ARRAY_SIZE: Stack1..Stack192 */
#define ETW_STACK_MIN_CACHED   4u		     /* ETW_MINIMUM_CACHED_STACK_LENGTH */
#define ETW_STACK_DEF_KEY      0x00u		     /* 0x1822-0x1824: StackKey, then Stack[n] */
#define ETW_USER_ADDRESS_END   0x8000000000000000ull /* x64 kernel frames lie above */
#define ETW_USER_ADDRESS_END32 0x80000000u	     /* x86 (without /3GB) */

/* ---- KernelTraceControl image identities (SIF 6): FULL_HEADER records ---- */
/* {B3E675D7-2554-4F18-830B-2762732560DE}, as its 16 bytes on the wire */
#define ETW_KTC_GUID_BYTES                                                                         \
	{                                                                                          \
		0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f, 0x83, 0x0b, 0x27, 0x62, 0x73,      \
			0x25, 0x60, 0xde                                                           \
	}
#define ETW_KTC_IMAGE_ID	     0x00u /* Class.Type (the opcode) */
#define ETW_KTC_DBGID_NONE	     0x20u /* DBGID_LOG_TYPE_NONE: no debug directory */
#define ETW_KTC_DBGID_RSDS	     0x24u
#define ETW_KTC_DBGID_ILRSDS	     0x25u
#define ETW_KTC_FILE_VERSION	     0x40u
#define ETW_VERSION_KTC		     2 /* ImageID, DbgID_*, None */
#define ETW_VERSION_KTC_FILE_VERSION 0
/* WMI_IMAGEID_INFORMATION, pack(1) */
enum {
	ETW_KID64_BASE = 0x00,
	ETW_KID64_SIZE = 0x08,
	ETW_KID64_PID = 0x10,
	ETW_KID64_TIMESTAMP = 0x14,
	ETW_KID64_NAME = 0x18,
	ETW_KID32_BASE = 0x00,
	ETW_KID32_SIZE = 0x04,
	ETW_KID32_PID = 0x08,
	ETW_KID32_TIMESTAMP = 0x0C,
	ETW_KID32_NAME = 0x10,
};
/* DbgID_RSDS / DbgID_ILRSDS (the same layout), and None (ImageBase, ProcessId) */
enum {
	ETW_KDB64_BASE = 0x00,
	ETW_KDB64_PID = 0x08,
	ETW_KDB64_GUID = 0x0C,
	ETW_KDB64_AGE = 0x1C,
	ETW_KDB64_PDB = 0x20,
	ETW_KDB32_BASE = 0x00,
	ETW_KDB32_PID = 0x04,
	ETW_KDB32_GUID = 0x08,
	ETW_KDB32_AGE = 0x18,
	ETW_KDB32_PDB = 0x1C,
};
#define ETW_GUID_LEN 16u
static_assert(ETW_KDB64_GUID + ETW_GUID_LEN == ETW_KDB64_AGE &&
		      ETW_KDB32_GUID + ETW_GUID_LEN == ETW_KDB32_AGE,
	      "GuidSig is 16 bytes");
static_assert(ETW_KDB64_PID + 4 == ETW_KDB64_GUID, "None ends with its ProcessId");
/* FileVersion v0: ImageSize u32, TimeDateStamp u32, then 10 UTF-16 z strings */
enum {
	ETW_KFV_SIZE = 0x00,
	ETW_KFV_TIMESTAMP = 0x04,
	ETW_KFV_STRINGS = 0x08,
};
#define ETW_KFV_NSTRINGS 10u

#endif /* PRODUCER_ETW_LAYOUT_H */
