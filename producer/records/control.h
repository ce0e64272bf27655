/* SPDX-License-Identifier: MIT */
/*
 * producer/records/control.h - the stream's own records, described once (the
 * columns of SIM_CSWITCH_FIELDS, producer/records/cswitch.h): they carry no
 * event of the machine but tell the logging code when to write.
 *
 * SIM_CCSWAP_STOP_FIELDS(F, C, x) - struct sim_ccswap_stop and the truth's
 * "ccswap_stop" line (an etwforge extension): EtwpCCSwapStop for one clock
 * type; absent tick and clocks are the largest seen so far.
 *
 * SIM_END_FIELDS(F, C, x) - struct sim_end and the truth's "end" line.
 */
#ifndef PRODUCER_RECORDS_CONTROL_H
#define PRODUCER_RECORDS_CONTROL_H

/* clang-format off */
#define SIM_CCSWAP_STOP_FIELDS(F, C, x)                                                            \
	F(x, tick,  uint32_t,       U,     0, UINT32_MAX, HIGH, 0, ALWAYS)                         \
	F(x, ts,    uint64_t,       TS,    0, 0,          HIGH, 0, ALWAYS)                         \
	/* the clock type whose pending batches are written */                                     \
	F(x, clock, enum sim_clock, CLOCK, 0, 0,          REQ,  0, ALWAYS)

#define SIM_END_FIELDS(F, C, x)                                                                    \
	F(x, tick, uint32_t, U,  0, UINT32_MAX, HIGH, 0, ALWAYS)                                   \
	F(x, ts,   uint64_t, TS, 0, 0,          HIGH, 0, ALWAYS)                                   \
/* clang-format on */

#endif /* PRODUCER_RECORDS_CONTROL_H */
