/* SPDX-License-Identifier: MIT */
/*
 * producer/records/ready.h - ReadyThread 0x0532 v2, described once (the
 * columns of producer/records/process.h). Encoded and decoded by
 * producer/etw_thread.c; fired by the identity model
 * (scheduler_model/identity.c).
 *
 * SIM_READY_FIELDS(F, C, x) - the truth's "ready" line: the readying thread
 * goes in the header (our choice: a full SYSTEM header, see
 * producer/etw_event.c), the readied one in the payload.
 *
 * ETW_READY_FIELDS(F, x) - ETW_READY_THREAD_EVENT from struct
 * etw_ready_thread *w; 8 bytes, the same on x86 and x64. The spare byte at
 * 0x07 is no field (we write 0; the decoder keeps what it reads), as
 * WMI_SPINLOCK's Reserved bytes are not.
 */
#ifndef PRODUCER_RECORDS_READY_H
#define PRODUCER_RECORDS_READY_H

#define SIM_ADJUST_REASON_MAX 2	  /* None, Unwait, Boost */
#define SIM_READY_FLAGS_MAX   0xF /* DPC, stack swapped, process swapped, direct switch */

/* clang-format off */
#define SIM_READY_FIELDS(F, C, x)                                                                  \
	F(x, cpu,              uint32_t, BUF, 0,        0,                     REQ, 0, ALWAYS)     \
	F(x, ts,               uint64_t, TS,  0,        0,                     REQ, 0, ALWAYS)     \
	/* the readying thread (header ThreadId/ProcessId; 0/0 for an idle CPU's DPC) */           \
	F(x, waker_tid,        uint32_t, U,   0,        UINT32_MAX,            OPT, 0, ALWAYS)     \
	F(x, waker_pid,        uint32_t, U,   0,        UINT32_MAX,            OPT, 0, ALWAYS)     \
	F(x, kernel_time,      uint32_t, U,   0,        UINT32_MAX,            OPT, 0, ALWAYS)     \
	F(x, user_time,        uint32_t, U,   0,        UINT32_MAX,            OPT, 0, ALWAYS)     \
	F(x, tid,              uint32_t, U,   0,        UINT32_MAX,            REQ, 0, ALWAYS)     \
	F(x, adjust_reason,    int8_t,   I,   0,        SIM_ADJUST_REASON_MAX, OPT, 0, ALWAYS)     \
	F(x, adjust_increment, int8_t,   I,   INT8_MIN, INT8_MAX,              OPT, 0, ALWAYS)     \
	F(x, flags,            uint8_t,  U,   0,        SIM_READY_FLAGS_MAX,   OPT, 0, ALWAYS)

#define ETW_READY_FIELDS(F, x)                                                                     \
	F(x, tid,              uint32_t, U, 1, w->thread_id,        0x00, 0x00, "TThreadId")       \
	F(x, adjust_reason,    int8_t,   I, 1, w->adjust_reason,    0x04, 0x04, "AdjustReason")    \
	F(x, adjust_increment, int8_t,   I, 1, w->adjust_increment, 0x05, 0x05, "AdjustIncrement") \
	F(x, flags,            uint8_t,  U, 1, w->flags,            0x06, 0x06, "Flags")
/* clang-format on */

#endif /* PRODUCER_RECORDS_READY_H */
