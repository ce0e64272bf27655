/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_layout.h - ETL file framing: the trace headers every record
 * starts with (Marker, SYSTEM and PERFINFO headers, extended items;
 * ../shared/spec/KERNEL_FACTS.md section 3), WMI_BUFFER_HEADER and
 * TRACE_LOGFILE_HEADER offsets (section 8, ../shared/spec/ETL_READERS.md
 * section 2), shared by the writer and the reader. No payload layout here:
 * those are producer/etw_layout.h.
 */
#ifndef WRITER_ETL_LAYOUT_H
#define WRITER_ETL_LAYOUT_H

#include <assert.h>
#include <stdint.h>

/* Pointer size and header flavour of a trace (x64: PERFINFO64/SYSTEM64, PointerSize 8). */
enum etl_arch {
	ETL_ARCH_X64 = 0,
	ETL_ARCH_X86 = 1,
};

/* ---- Marker (KERNEL_FACTS 3.1) ------------------------------------------ */
#define ETL_MARKER_FLAGS_MASK	 0xFF000000u
#define ETL_MARKER_FLAGS_TRACE	 0xC0000000u /* TRACE_HEADER_FLAG | EVENT_TRACE */
#define ETL_MARKER_TYPE_MASK	 0x00FF0000u /* TRACE_HEADER_ENUM_MASK */
#define ETL_MARKER_TYPE_SHIFT	 16
#define ETL_MARKER_PEBS_FLAG	 0x00008000u /* TRACE_HEADER_PEBS_INDEX_FLAG */
#define ETL_MARKER_PMC_MASK	 0x00000700u /* TRACE_HEADER_PMC_COUNTERS_MASK */
#define ETL_MARKER_PMC_SHIFT	 8
#define ETL_MARKER_VERSION_MASK	 0x000000FFu /* the kernel treats Version as 8-bit */
#define ETL_MARKER_MESSAGE_FLAGS 0x90000000u /* TRACE_MESSAGE-style headers (0x90 top byte) */

static_assert((ETL_MARKER_PEBS_FLAG & ETL_MARKER_PMC_MASK) == 0, "ext flags disjoint");

/* Header types: byte 2 of the Marker (KERNEL_FACTS 3.1). */
enum etl_header_type {
	ETL_HT_SYSTEM32 = 1,
	ETL_HT_SYSTEM64 = 2,
	ETL_HT_COMPACT32 = 3,
	ETL_HT_COMPACT64 = 4,
	ETL_HT_FULL_HEADER32 = 10,
	ETL_HT_INSTANCE32 = 11,
	ETL_HT_TIMED = 12,
	ETL_HT_ERROR = 13,
	ETL_HT_WNODE_HEADER = 14,
	ETL_HT_MESSAGE = 15,
	ETL_HT_PERFINFO32 = 16,
	ETL_HT_PERFINFO64 = 17,
	ETL_HT_EVENT_HEADER32 = 18,
	ETL_HT_EVENT_HEADER64 = 19,
	ETL_HT_FULL_HEADER64 = 20,
	ETL_HT_INSTANCE64 = 21,
};

/* Ready-made base markers (add the version in the low byte). */
#define ETL_SYSTEM_MARKER32   0xC0010000u
#define ETL_SYSTEM_MARKER64   0xC0020000u
#define ETL_COMPACT_MARKER32  0xC0030000u /* SYSTEM header without Kernel/UserTime */
#define ETL_COMPACT_MARKER64  0xC0040000u
#define ETL_PERFINFO_MARKER32 0xC0100000u
#define ETL_PERFINFO_MARKER64 0xC0110000u

/* ---- Hook ids of the header events (KERNEL_FACTS 4.1) -------------------- */
#define ETL_HOOK_LOGFILE_HEADER	  0x0000u
#define ETL_HOOK_HEADER_EXTENSION 0x0005u

/* The SYSTEM header's event version (KERNEL_FACTS 4.2). */
#define ETL_VERSION_SYSTEM 2

/* ---- PERFINFO_TRACE_HEADER as it sits in a buffer (KERNEL_FACTS 3.2) ---- */
enum {
	ETL_TH_MARKER = 0x00,
	ETL_TH_SIZE = 0x04,
	ETL_TH_HOOK_ID = 0x06,
	ETL_TH_TS = 0x08,
	ETL_TH_LEN = 0x10, /* payload / extended items start here */
};
static_assert(ETL_TH_TS + 8 == ETL_TH_LEN, "TS is the last header field");
#define ETL_EXT_ITEM_LEN   8u /* PEBS index or one PMC counter, ULONG64 each */
#define ETL_MAX_PMC_ITEMS  7u /* 3-bit count in the Marker */
#define ETL_MAX_EVENT_SIZE 0xFFFFu

/* ---- SYSTEM_TRACE_HEADER (KERNEL_FACTS 3.3) ------------------------------ */
enum {
	ETL_SH_MARKER = 0x00,
	ETL_SH_SIZE = 0x04,
	ETL_SH_HOOK_ID = 0x06,
	ETL_SH_THREAD_ID = 0x08,
	ETL_SH_PROCESS_ID = 0x0C,
	ETL_SH_SYSTEM_TIME = 0x10,
	ETL_SH_KERNEL_TIME = 0x18,
	ETL_SH_USER_TIME = 0x1C,
	ETL_SH_LEN = 0x20,
	ETL_COMPACT_SH_LEN = 0x18,
};
static_assert(ETL_SH_USER_TIME + 4 == ETL_SH_LEN, "SYSTEM header is 0x20 bytes");

/* ---- EVENT_TRACE_HEADER, FULL_HEADER32/64 (KERNEL_FACTS 3.4) ------------ */
enum {
	ETL_FH_SIZE = 0x00, /* u16: the whole record, not a version */
	ETL_FH_HEADER_TYPE = 0x02,
	ETL_FH_MARKER_FLAGS = 0x03,
	ETL_FH_CLASS_TYPE = 0x04, /* the opcode */
	ETL_FH_CLASS_LEVEL = 0x05,
	ETL_FH_CLASS_VERSION = 0x06, /* u16 */
	ETL_FH_THREAD_ID = 0x08,
	ETL_FH_PROCESS_ID = 0x0C,
	ETL_FH_TIME_STAMP = 0x10,
	ETL_FH_GUID = 0x18,
	ETL_FH_KERNEL_TIME = 0x28,
	ETL_FH_USER_TIME = 0x2C,
	ETL_FH_LEN = 0x30,
};
static_assert(ETL_FH_GUID + 16 == ETL_FH_KERNEL_TIME && ETL_FH_USER_TIME + 4 == ETL_FH_LEN,
	      "EVENT_TRACE_HEADER is 0x30 bytes");
#define ETL_FULL_MARKER_FLAGS 0xC0u /* TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE */

/* ---- WMI_BUFFER_HEADER, 0x48 bytes (KERNEL_FACTS 8.1) -------------------- */
enum {
	ETL_BH_BUFFER_SIZE = 0x00,
	ETL_BH_SAVED_OFFSET = 0x04,
	ETL_BH_CURRENT_OFFSET = 0x08,
	ETL_BH_REFERENCE_COUNT = 0x0C,
	ETL_BH_TIMESTAMP = 0x10,
	ETL_BH_SEQUENCE = 0x18,
	ETL_BH_CLOCK_UNION = 0x20,
	ETL_BH_PROCESSOR_INDEX = 0x28,
	ETL_BH_LOGGER_ID = 0x2A,
	ETL_BH_STATE = 0x2C,
	ETL_BH_OFFSET = 0x30,
	ETL_BH_BUFFER_FLAG = 0x34,
	ETL_BH_BUFFER_TYPE = 0x36,
	ETL_BH_REF_CLOCK = 0x38,
	ETL_BH_LEN = 0x48,
};
static_assert(ETL_BH_REF_CLOCK + 16 == ETL_BH_LEN, "WMI_BUFFER_HEADER is 0x48 bytes");

#define ETL_BUFFER_FLAG_FLUSH_MARKER 0x0001u
#define ETL_BUFFER_FLAG_EVENTS_LOST  0x0002u
#define ETL_BUFFER_FLAG_BUFFER_LOST  0x0004u
#define ETL_BUFFER_FLAG_PROC_INDEX   0x0020u
#define ETL_BUFFER_FLAG_COMPRESSED   0x0040u
#define ETL_PROCESSOR_INDEX_MASK     0x07FFu

#define ETL_BUFFER_TYPE_GENERIC 0u
#define ETL_BUFFER_TYPE_HEADER	4u
#define ETL_BUFFER_STATE_FLUSH	3u

/* ---- TRACE_LOGFILE_HEADER (KERNEL_FACTS 8.2), x64 / x86 ------------------ */
enum {
	ETL_LF_BUFFER_SIZE = 0x00,
	ETL_LF_VERSION = 0x04,
	ETL_LF_PROVIDER_VERSION = 0x08,
	ETL_LF_NUMBER_OF_PROCESSORS = 0x0C,
	ETL_LF_END_TIME = 0x10,
	ETL_LF_TIMER_RESOLUTION = 0x18,
	ETL_LF_MAXIMUM_FILE_SIZE = 0x1C,
	ETL_LF_LOG_FILE_MODE = 0x20,
	ETL_LF_BUFFERS_WRITTEN = 0x24,
	ETL_LF_START_BUFFERS = 0x28,
	ETL_LF_POINTER_SIZE = 0x2C,
	ETL_LF_EVENTS_LOST = 0x30,
	ETL_LF_CPU_SPEED_MHZ = 0x34,
	ETL_LF_LOGGER_NAME = 0x38, /* 6.1+: clock-interrupt HAL_PLATFORM_TIMER_SOURCE */
};
enum {
	ETL_LF64_LOG_FILE_NAME = 0x40, /* 6.1+: perf-counter HAL_PLATFORM_TIMER_SOURCE */
	ETL_LF64_TIME_ZONE = 0x48,
	ETL_LF64_BOOT_TIME = 0xF8,
	ETL_LF64_PERF_FREQ = 0x100,
	ETL_LF64_START_TIME = 0x108,
	ETL_LF64_RESERVED_FLAGS = 0x110,
	ETL_LF64_BUFFERS_LOST = 0x114,
	ETL_LF64_LEN = 0x118,
};
enum {
	ETL_LF32_LOG_FILE_NAME = 0x3C,
	ETL_LF32_TIME_ZONE = 0x40,
	ETL_LF32_BOOT_TIME = 0xF0,
	ETL_LF32_PERF_FREQ = 0xF8,
	ETL_LF32_START_TIME = 0x100,
	ETL_LF32_RESERVED_FLAGS = 0x108,
	ETL_LF32_BUFFERS_LOST = 0x10C,
	ETL_LF32_LEN = 0x110,
};
#define ETL_TIME_ZONE_LEN 0xACu
/* The time zone is followed by 4 bytes of padding before BootTime. */
static_assert(ETL_LF64_TIME_ZONE + ETL_TIME_ZONE_LEN + 4 == ETL_LF64_BOOT_TIME, "x64 pad");
static_assert(ETL_LF32_TIME_ZONE + ETL_TIME_ZONE_LEN + 4 == ETL_LF32_BOOT_TIME, "x86 pad");
static_assert(ETL_LF64_BUFFERS_LOST + 4 == ETL_LF64_LEN, "x64 logfile header 0x118");
static_assert(ETL_LF32_BUFFERS_LOST + 4 == ETL_LF32_LEN, "x86 logfile header 0x110");

/* ETW_KERNEL_HEADER_EXTENSION (hook 0x0005): PERFINFO_GROUPMASK[8] + version. */
#define ETL_HDR_EXT_LEN 0x24u

/* LogFileMode bits used by etwforge. */
#define ETL_MODE_FILE_MODE_SEQUENTIAL 0x00000001u
#define ETL_MODE_SYSTEM_LOGGER	      0x02000000u
#define ETL_MODE_COMPRESSED	      0x04000000u

/* Clock types (ReservedFlags, KERNEL_FACTS 8.3). */
enum etl_clock {
	ETL_CLOCK_QPC = 1,
	ETL_CLOCK_SYSTIME = 2,
	ETL_CLOCK_CYCLES = 3,
};

#define ETL_MIN_BUFFER_SIZE	4096u
#define ETL_DEFAULT_BUFFER_SIZE 65536u
#define ETL_MAX_BUFFER_SIZE	(16u * 1024u * 1024u)

#endif /* WRITER_ETL_LAYOUT_H */
