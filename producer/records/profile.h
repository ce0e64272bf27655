/* SPDX-License-Identifier: MIT */
/*
 * producer/records/profile.h - SampledProfile 0x0F2E v2 and the interval
 * events 0x0F48 / 0x0F49 / 0x0F4A v3, described once (the columns of
 * producer/records/process.h). Encoded and decoded by producer/etw_profile.c;
 * fired by the identity model
 * (scheduler_model/identity.c).
 *
 * SIM_PROFILE_FIELDS(F, C, x) - the truth's "sample" line (PERFINFO header:
 * no thread context; the CPU is the buffer's).
 * ETW_PROFILE_FIELDS(F, x) - PERFINFO_SAMPLED_PROFILE_INFORMATION from
 * struct etw_sampled_profile *w; the flags byte is split into dpc, isr and
 * priority (FIELD_GET with ETW_SP_FLAG_*).
 *
 * SIM_PROFILE_INTERVAL_FIELDS(F, C, x) - the truth's "profile_interval"
 * line; ETW_PROFILE_INTERVAL_FIELDS(F, x) from struct etw_profile_interval *w.
 */
#ifndef PRODUCER_RECORDS_PROFILE_H
#define PRODUCER_RECORDS_PROFILE_H

#define SIM_SAMPLE_PRI_MAX 31 /* 5 bits of the flags byte */

/* clang-format off */
#define SIM_PROFILE_FIELDS(F, C, x)                                                                \
	F(x, cpu,      uint32_t, BUF,  0, 0,                  REQ, 0, ALWAYS)                      \
	F(x, ts,       uint64_t, TS,   0, 0,                  REQ, 0, ALWAYS)                      \
	F(x, ip,       uint64_t, ADDR, 0, 0,                  REQ, 0, ALWAYS)                      \
	/* the running thread, 0 for the idle thread */                                            \
	F(x, tid,      uint32_t, U,    0, UINT32_MAX,         REQ, 0, ALWAYS)                      \
	F(x, count,    uint16_t, U,    0, UINT16_MAX,         OPT, 1, ALWAYS)                      \
	F(x, dpc,      bool,     BOOL, 0, 1,                  OPT, 0, TRUE)                        \
	F(x, isr,      bool,     BOOL, 0, 1,                  OPT, 0, TRUE)                        \
	/* the running thread's priority (16 for the idle thread in the samples) */                \
	F(x, priority, uint8_t,  U,    0, SIM_SAMPLE_PRI_MAX, OPT, 0, ALWAYS)                      \
	F(x, rank,     uint8_t,  U,    0, UINT8_MAX,          OPT, 0, ALWAYS)

#define ETW_PROFILE_FIELDS(F, x)                                                                   \
	F(x, ip,       uint64_t, HEX,  1, w->instruction_pointer, 0x00, 0x00,                      \
	  "InstructionPointer")                                                                    \
	F(x, tid,      uint32_t, U,    1, w->thread_id,           0x08, 0x04, "ThreadId")          \
	F(x, count,    uint16_t, U,    1, w->count,               0x0C, 0x08, "Count")             \
	F(x, dpc,      bool,     BOOL, 1, (w->flags & ETW_SP_FLAG_DPC) != 0,                       \
	  0x0E, 0x0A, "ExecutingDpc")                                                              \
	F(x, isr,      bool,     BOOL, 1, (w->flags & ETW_SP_FLAG_ISR) != 0,                       \
	  0x0E, 0x0A, "ExecutingIsr")                                                              \
	F(x, priority, uint8_t,  U,    1, (uint8_t)FIELD_GET(ETW_SP_FLAG_PRIORITY, w->flags),      \
	  0x0E, 0x0A, "Priority")                                                                  \
	F(x, rank,     uint8_t,  U,    1, w->rank,                0x0F, 0x0B, "Rank")

#define SIM_PROFILE_INTERVAL_FIELDS(F, C, x)                                                       \
	F(x, cpu,          uint32_t,       BUF,   0, 0,          REQ, 0, ALWAYS)                   \
	F(x, ts,           uint64_t,       TS,    0, 0,          REQ, 0, ALWAYS)                   \
	/* set (0x0F48), dcstart (0x0F49), dcend (0x0F4A) */                                       \
	F(x, event,        enum sim_event, EVENT, 0, SIM_EV_INTERVAL,          REQ, 0, ALWAYS)                   \
	/* SYSTEM header: the controller thread */                                                 \
	F(x, ctx_tid,      uint32_t,       U,     0, UINT32_MAX, OPT, 0, ALWAYS)                   \
	F(x, ctx_pid,      uint32_t,       U,     0, UINT32_MAX, OPT, 0, ALWAYS)                   \
	F(x, kernel_time,  uint32_t,       U,     0, UINT32_MAX, OPT, 0, ALWAYS)                   \
	F(x, user_time,    uint32_t,       U,     0, UINT32_MAX, OPT, 0, ALWAYS)                   \
	/* KPROFILE_SOURCE, 0 = the timer */                                                       \
	F(x, source,       uint32_t,       U,     0, UINT32_MAX, OPT, 0, ALWAYS)                   \
	/* the timer's in 100-ns units (10000 = 1 ms) */                                           \
	F(x, new_interval, uint32_t,       U,     0, UINT32_MAX, REQ, 0, ALWAYS)                   \
	F(x, old_interval, uint32_t,       U,     0, UINT32_MAX, OPT, 0, ALWAYS)                   \
	/* v3: "Timer" for source 0 */                                                             \
	F(x, source_name,  const char *,   TEXT,   0, 0,          OPT, 0, SET)

#define ETW_PROFILE_INTERVAL_FIELDS(F, x)                                                          \
	F(x, source,       uint32_t,        U,    1,        w->source,       0x00, 0x00, "Source") \
	F(x, new_interval, uint32_t,        U,    1,        w->new_interval, 0x04, 0x04,           \
	  "NewInterval")                                                                           \
	F(x, old_interval, uint32_t,        U,    1,        w->old_interval, 0x08, 0x08,           \
	  "OldInterval")                                                                           \
	F(x, source_name,  struct etw_wstr, WSTR, ver >= 3, w->source_name,  0x0C, 0x0C,           \
	  "SourceName")
/* clang-format on */

#endif /* PRODUCER_RECORDS_PROFILE_H */
