/* SPDX-License-Identifier: MIT */
/*
 * producer/records/thread.h - the thread records, described once: Start
 * 0x0501, End 0x0502, DCStart 0x0503, DCEnd 0x0504 (v3, with the trailing
 * ThreadName on the targets that carry it) and ThreadSetName 0x0548.
 * Encoded and decoded by producer/etw_thread.c; fired by the identity model
 * (scheduler_model/identity.c). The
 * columns are those of producer/records/process.h.
 *
 * SIM_THREAD_FIELDS(F, C, x) - the truth's "thread" line. The header's
 * context (ctx_tid/ctx_pid, kernel_time/user_time) is the thread itself for
 * End, DCStart and DCEnd, the creating thread for Start.
 *
 * ETW_THREAD_FIELDS(F, x) - WMI_EXTENDED_THREAD_INFORMATION, from the
 * decoder's struct etw_thread *w.
 *
 * SIM_THREAD_SET_NAME_FIELDS(F, C, x), ETW_THREAD_SET_NAME_FIELDS(F, x) -
 * ThreadSetName (PERFINFO header: no context), from struct
 * etw_thread_set_name *w.
 */
#ifndef PRODUCER_RECORDS_THREAD_H
#define PRODUCER_RECORDS_THREAD_H

#define SIM_PAGE_PRI_MAX 7 /* MEMORY_PRIORITY: 0..7, 5 normal */
#define SIM_IO_PRI_MAX	 7 /* IO_PRIORITY_HINT: 0..4 used, 2 normal */
/* base_pri is checked against SIM_PRI_MAX of producer/records/cswitch.h. */

/* clang-format off */
#define SIM_THREAD_FIELDS(F, C, x)                                                                 \
	F(x, cpu,          uint32_t,       BUF,   0,        0,                REQ, 0, ALWAYS)      \
	F(x, ts,           uint64_t,       TS,    0,        0,                REQ, 0, ALWAYS)      \
	/* start, end, dcstart, dcend */                                                           \
	F(x, event,        enum sim_event, EVENT, 0,        SIM_EV_THREAD,                REQ, 0, ALWAYS)      \
	F(x, ctx_tid,      uint32_t,       U,     0,        UINT32_MAX,       OPT, 0, ALWAYS)      \
	F(x, ctx_pid,      uint32_t,       U,     0,        UINT32_MAX,       OPT, 0, ALWAYS)      \
	F(x, kernel_time,  uint32_t,       U,     0,        UINT32_MAX,       OPT, 0, ALWAYS)      \
	F(x, user_time,    uint32_t,       U,     0,        UINT32_MAX,       OPT, 0, ALWAYS)      \
	F(x, pid,          uint32_t,       U,     0,        UINT32_MAX,       REQ, 0, ALWAYS)      \
	F(x, tid,          uint32_t,       U,     0,        UINT32_MAX,       REQ, 0, ALWAYS)      \
	F(x, stack_base,   uint64_t,       ADDR,  0,        0,                OPT, 0, ALWAYS)      \
	F(x, stack_limit,  uint64_t,       ADDR,  0,        0,                OPT, 0, ALWAYS)      \
	/* 0 for system threads */                                                                 \
	F(x, user_stack_base,  uint64_t,   ADDR,  0,        0,                OPT, 0, ALWAYS)      \
	F(x, user_stack_limit, uint64_t,   ADDR,  0,        0,                OPT, 0, ALWAYS)      \
	/* KAFFINITY; an idle thread's is 1 << its CPU */                                          \
	F(x, affinity,     uint64_t,       ADDR,  0,        0,                OPT, 0, ALWAYS)      \
	F(x, win32_start,  uint64_t,       ADDR,  0,        0,                OPT, 0, ALWAYS)      \
	F(x, teb,          uint64_t,       ADDR,  0,        0,                OPT, 0, ALWAYS)      \
	F(x, sub_process_tag, uint32_t,    U,     0,        UINT32_MAX,       OPT, 0, ALWAYS)      \
	F(x, base_pri,     int8_t,         I,     0,        SIM_PRI_MAX,      OPT, 8, ALWAYS)      \
	F(x, page_pri,     uint8_t,        U,     0,        SIM_PAGE_PRI_MAX, OPT, 5, ALWAYS)      \
	F(x, io_pri,       uint8_t,        U,     0,        SIM_IO_PRI_MAX,   OPT, 2, ALWAYS)      \
	/* ETW_THREAD_FLAG_REGISTRY_NOTIFICATION (1) */                                            \
	F(x, flags,        uint8_t,        U,     0,        UINT8_MAX,        OPT, 0, ALWAYS)      \
	/* UTF-8; written where the target carries names (NULL: "") */                             \
	F(x, name,         const char *,   TEXT,   0,        0,                OPT, 0, SET)      \
	/* the scenario's thread group (truth only: no record carries it) */                      \
	F(x, group,        const char *,   TEXT,  0,        0,                OPT, 0, SET)

#define ETW_THREAD_FIELDS(F, x)                                                                    \
	F(x, pid,              uint32_t,        U,    1, w->process_id,          0x00, 0x00,       \
	  "ProcessId")                                                                             \
	F(x, tid,              uint32_t,        U,    1, w->thread_id,           0x04, 0x04,       \
	  "TThreadId")                                                                             \
	F(x, stack_base,       uint64_t,        HEX,  1, w->stack_base,          0x08, 0x08,       \
	  "StackBase")                                                                             \
	F(x, stack_limit,      uint64_t,        HEX,  1, w->stack_limit,         0x10, 0x0C,       \
	  "StackLimit")                                                                            \
	F(x, user_stack_base,  uint64_t,        HEX,  1, w->user_stack_base,     0x18, 0x10,       \
	  "UserStackBase")                                                                         \
	F(x, user_stack_limit, uint64_t,        HEX,  1, w->user_stack_limit,    0x20, 0x14,       \
	  "UserStackLimit")                                                                        \
	F(x, affinity,         uint64_t,        HEX,  1, w->affinity,            0x28, 0x18,       \
	  "Affinity")                                                                              \
	F(x, win32_start,      uint64_t,        HEX,  1, w->win32_start_address, 0x30, 0x1C,       \
	  "Win32StartAddr")                                                                        \
	F(x, teb,              uint64_t,        HEX,  1, w->teb_base,            0x38, 0x20,       \
	  "TebBase")                                                                               \
	F(x, sub_process_tag,  uint32_t,        U,    1, w->sub_process_tag,     0x40, 0x24,       \
	  "SubProcessTag")                                                                         \
	F(x, base_pri,         int8_t,          I,    1, w->base_priority,       0x44, 0x28,       \
	  "BasePriority")                                                                          \
	F(x, page_pri,         uint8_t,         U,    1, w->page_priority,       0x45, 0x29,       \
	  "PagePriority")                                                                          \
	F(x, io_pri,           uint8_t,         U,    1, w->io_priority,         0x46, 0x2A,       \
	  "IoPriority")                                                                            \
	F(x, flags,            uint8_t,         U,    1, w->flags,               0x47, 0x2B,       \
	  "ThreadFlags")                                                                           \
	/* present in 18362's v3 and every v4 */                                                   \
	F(x, name,             struct etw_wstr, WSTR, w->has_name, w->name,      0x48, 0x2C,       \
	  "ThreadName")

#define SIM_THREAD_SET_NAME_FIELDS(F, C, x)                                                        \
	F(x, cpu,  uint32_t,     BUF, 0, 0,          REQ, 0, ALWAYS)                               \
	F(x, ts,   uint64_t,     TS,  0, 0,          REQ, 0, ALWAYS)                               \
	F(x, pid,  uint32_t,     U,   0, UINT32_MAX, REQ, 0, ALWAYS)                               \
	F(x, tid,  uint32_t,     U,   0, UINT32_MAX, REQ, 0, ALWAYS)                               \
	F(x, name, const char *, TEXT, 0, 0,          REQ, 0, ALWAYS)

#define ETW_THREAD_SET_NAME_FIELDS(F, x)                                                           \
	F(x, pid,  uint32_t,        U,    1, w->process_id, 0x00, 0x00, "ProcessId")               \
	F(x, tid,  uint32_t,        U,    1, w->thread_id,  0x04, 0x04, "ThreadId")                \
	F(x, name, struct etw_wstr, WSTR, 1, w->name,       0x08, 0x08, "ThreadName")
/* clang-format on */

#endif /* PRODUCER_RECORDS_THREAD_H */
