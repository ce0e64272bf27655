/* SPDX-License-Identifier: MIT */
/*
 * producer/flush_reason.h - why a compact batch was closed: the rules of
 * ccswap.c, counted by the producer (producer.h) and named in summaries.
 */
#ifndef PRODUCER_FLUSH_REASON_H
#define PRODUCER_FLUSH_REASON_H

/* Why a batch was flushed (KERNEL_FACTS 1.2 step 4, plus the end of tracing). */
enum producer_flush_reason {
	PRODUCER_FLUSH_TID_FULL = 0, /* idx == 16 */
	PRODUCER_FLUSH_TICKS,	     /* now_tick - StartTick > 500 */
	PRODUCER_FLUSH_SIZE,	     /* Offset + 8 > 0x400 */
	PRODUCER_FLUSH_DELTA,	     /* delta > 0x40000000 */
	PRODUCER_FLUSH_STOP,	     /* the stop flag (EtwpCCSwapStop) */
	PRODUCER_FLUSH_END,	     /* end of tracing (our policy) */
	PRODUCER_FLUSH_REASONS,
};

/** producer_flush_reason_name - "tid_full", "ticks", "size", "delta", "stop", "end". */
const char *producer_flush_reason_name(enum producer_flush_reason r);

#endif /* PRODUCER_FLUSH_REASON_H */
