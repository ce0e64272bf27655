/* SPDX-License-Identifier: MIT */
/*
 * producer/records/dpc.h - the DPC and ISR records, described once:
 * ThreadedDPC 0x0F42, ISR 0x0F43, DPC 0x0F44, TimerDPC 0x0F45 (PerfInfo
 * group, PERFINFO header, version 2; STACK_IMAGE_FACTS 5). Encoded and
 * decoded by producer/etw_dpc.c; fired by the identity model
 * (scheduler_model/identity.c). The columns are those of
 * producer/records/process.h.
 *
 * SIM_DPC_FIELDS(F, C, x) - the truth's "dpc" line: a routine that ran on
 * @cpu from @initial_time to @ts (the record's header time: it is logged
 * when the routine returns), each in every clock of the run; @event says
 * which record (dpc, timer_dpc, threaded_dpc, isr); @return_value and
 * @vector are an ISR's (0 for the others).
 *
 * ETW_DPC_FIELDS(F, x) from struct etw_dpc *w (0x0F42 / 0x0F44 / 0x0F45),
 * ETW_ISR_FIELDS(F, x) the same and the ISR's tail (0x0F43).
 */
#ifndef PRODUCER_RECORDS_DPC_H
#define PRODUCER_RECORDS_DPC_H

/* clang-format off */
#define SIM_DPC_FIELDS(F, C, x)                                                                    \
	F(x, cpu,          uint32_t,       BUF,   0, 0,          REQ, 0, ALWAYS)                   \
	/* when the routine returned: the record's header time */                                  \
	F(x, ts,           uint64_t,       TS,    0, 0,          REQ, 0, ALWAYS)                   \
	/* dpc (0x0F44), timer_dpc (0x0F45), threaded_dpc (0x0F42), isr (0x0F43) */               \
	F(x, event,        enum sim_event, EVENT, 0, SIM_EV_DPC, REQ, 0, ALWAYS)                   \
	/* InitialTime: when it was entered, in each clock (at or before ts) */                    \
	F(x, initial_time, uint64_t,       TS,    0, 0,          REQ, 0, ALWAYS)                   \
	/* the DPC routine's or the ISR's address */                                               \
	F(x, routine,      uint64_t,       ADDR,  0, 0,          REQ, 0, ALWAYS)                   \
	/* an ISR's BOOLEAN result and its vector */                                               \
	F(x, return_value, uint8_t,        U,     0, UINT8_MAX,  OPT, 0, ALWAYS)                   \
	F(x, vector,       uint16_t,       U,     0, UINT16_MAX, OPT, 0, ALWAYS)                   \
	C(x, initial_time)

#define ETW_DPC_FIELDS(F, x)                                                                       \
	F(x, initial_time, uint64_t, U,   1, w->initial_time, 0x00, 0x00, "InitialTime")          \
	F(x, routine,      uint64_t, HEX, 1, w->routine,      0x08, 0x08, "Routine")

#define ETW_ISR_FIELDS(F, x)                                                                       \
	ETW_DPC_FIELDS(F, x)                                                                       \
	F(x, return_value, uint8_t,  U,   1, w->return_value, 0x10, 0x0C, "ReturnValue")          \
	F(x, vector,       uint16_t, U,   1, w->vector,       0x11, 0x0D, "Vector")               \
	F(x, reserved,     uint8_t,  U,   1, w->reserved,     0x13, 0x0F, "Reserved")
/* clang-format on */

#endif /* PRODUCER_RECORDS_DPC_H */
