/* SPDX-License-Identifier: MIT */
/*
 * producer/cswitch_words.h - the plain CSwitch event (0x0524) as the
 * producer writes it: whole little-endian quadwords rather than fields.
 *
 *   header  0x00 [ Marker | Size | HookId ]  per session, fixed: cs_head()
 *           0x08 [ TS                     ]
 *   items        PEBS index, then PMC counters (8 bytes each)
 *   payload 0x00 [ NewThreadId | OldThreadId ]                 word 0
 *   (0x18)  0x08 [ NewPri OldPri Rank/CState PriDecr           word 1
 *                  WaitReason Flags State IdealCpu ]
 *           0x10 [ NewThreadWaitTime | OldRemainingQuantum ]   word 2
 *
 * The three payload words are computed once per switch from the
 * sim_cswitch and stored with one put_le64() each in every session; the
 * bytes are those etw_encode_cswitch() writes field by field (the test
 * cswitch_words holds the two to each other on random switches and
 * configurations). Every 0x0524 size is a multiple of 8: no padding.
 */
#ifndef PRODUCER_CSWITCH_WORDS_H
#define PRODUCER_CSWITCH_WORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "producer/etw_layout.h"
#include "producer/trace_sink.h"
#include "writer/etl_wire.h"

/* The header's first quadword is Marker, Size, HookId (KERNEL_FACTS 3.2). */
static_assert(ETL_TH_MARKER == 0 && ETL_TH_SIZE == 4 && ETL_TH_HOOK_ID == 6 && ETL_TH_TS == 8,
	      "Marker, Size, HookId fill the first quadword, TS the second");
/* The payload's quadwords (KERNEL_FACTS 5.2). */
static_assert(ETW_CS_NEW_TID == 0x00 && ETW_CS_OLD_TID == 0x04, "word 0: the two TIDs");
static_assert(ETW_CS_NEW_PRI == 0x08 && ETW_CS_OLD_IDEAL_CPU == 0x0F, "word 1: eight bytes");
static_assert(ETW_CS_NEW_WAIT_TIME == 0x10 && ETW_CS_OLD_REMAINING_QUANTUM == 0x14,
	      "word 2: wait time, quantum");
static_assert((ETL_TH_LEN + ETW_CS_LEN) % 8 == 0 && ETL_EXT_ITEM_LEN % 8 == 0,
	      "a 0x0524 event needs no alignment padding");

/*
 * The v4 flags byte (KERNEL_FACTS 5.2): WaitMode in bit 0, the old and new
 * thread's QoS in bits 1-3 and 4-6. etw_cswitch_v4_flags() refuses values
 * that do not fit; these two are its test and its packing, inline.
 */
static_assert(FIELD_MAX(ETW_CS4_WAIT_MODE) == 1 && FIELD_LSB(ETW_CS4_OLD_QOS) == 2 &&
		      FIELD_MAX(ETW_CS4_OLD_QOS) == 7 && FIELD_LSB(ETW_CS4_NEW_QOS) == 16 &&
		      FIELD_MAX(ETW_CS4_NEW_QOS) == 7,
	      "WaitMode:1, OldQoS:3, NewQoS:3 from bit 0");

/** etw_cswitch_v4_flags_fit - wait_mode <= 1 and both QoS <= 7, without a branch. */
static inline bool etw_cswitch_v4_flags_fit(unsigned wait_mode, unsigned old_qos, unsigned new_qos)
{
	return ((wait_mode >> 1) | ((old_qos | new_qos) >> 3)) == 0;
}

/** etw_cswitch_v4_flags_pack - the flags byte of values that fit (truncated if not). */
static inline uint8_t etw_cswitch_v4_flags_pack(unsigned wait_mode, unsigned old_qos,
						unsigned new_qos)
{
	return (uint8_t)(FIELD_PREP(ETW_CS4_WAIT_MODE, wait_mode) |
			 FIELD_PREP(ETW_CS4_OLD_QOS, old_qos) |
			 FIELD_PREP(ETW_CS4_NEW_QOS, new_qos));
}

/** struct cswitch_words - the 0x18-byte payload as three quadwords; @bad: see below. */
struct cswitch_words {
	uint64_t w[3];
	bool bad; /* v4 flags out of their fields: the switch cannot be encoded (-EINVAL) */
};

/* The byte of word 1 at payload offset @off. */
#define CSWITCH_BYTE(off, v) ((uint64_t)(uint8_t)(v) << (8u * ((off)-ETW_CS_NEW_PRI)))

/**
 * cswitch_head - Marker, Size and HookId of a session's 0x0524 events as one
 * quadword (@marker carries version, PEBS flag and PMC count).
 */
static inline uint64_t cswitch_head(uint32_t marker, uint32_t size)
{
	return (uint64_t)marker | (uint64_t)(uint16_t)size << (8u * ETL_TH_SIZE) |
	       (uint64_t)ETW_HOOK_CSWITCH << (8u * ETL_TH_HOOK_ID);
}

/**
 * cswitch_words - WMI_CONTEXTSWAP of @cs (KERNEL_FACTS 5.2). @v4: byte 0x0D
 * is the v4 flags byte (WaitMode, both QoS), else the raw WaitMode.
 */
static inline void cswitch_words(struct cswitch_words *out, const struct sim_cswitch *cs, bool v4)
{
	/*
	 * PreviousCState when the old thread is the idle thread, else its rank
	 * (0xFF above 255); both read first, so that the choice is a select,
	 * not a branch the idle switches would mispredict.
	 */
	uint8_t cstate = cs->prev_cstate;
	uint8_t rank_byte = etw_cswitch_rank_byte(cs->old_rank);
	uint8_t rank = cs->old_tid == 0 ? cstate : rank_byte;
	/*
	 * Byte 0x0D: the raw WaitMode before v4, the flags byte in v4. The QoS
	 * go in at their bits unmasked (etw_cswitch_v4_flags_pack() without
	 * its masks): values that do not fit make the switch @bad, unwritten.
	 */
	unsigned flags = cs->old_wait_mode;

	out->bad = false;
	if (v4) {
		out->bad = !etw_cswitch_v4_flags_fit(cs->old_wait_mode, cs->old_qos, cs->new_qos);
		flags |= (unsigned)cs->old_qos * FIELD_LSB(ETW_CS4_OLD_QOS) |
			 (unsigned)cs->new_qos * FIELD_LSB(ETW_CS4_NEW_QOS);
	}
	out->w[0] = (uint64_t)cs->new_tid | (uint64_t)cs->old_tid << 32;
	out->w[1] = CSWITCH_BYTE(ETW_CS_NEW_PRI, cs->new_pri) |
		    CSWITCH_BYTE(ETW_CS_OLD_PRI, cs->old_pri) |
		    CSWITCH_BYTE(ETW_CS_PREV_CSTATE, rank) |
		    CSWITCH_BYTE(ETW_CS_NEW_PRI_DECR, cs->new_pri_decrement) |
		    CSWITCH_BYTE(ETW_CS_OLD_WAIT_REASON, cs->old_wait_reason) |
		    (uint64_t)flags << (8u * (ETW_CS_OLD_WAIT_MODE - ETW_CS_NEW_PRI)) |
		    CSWITCH_BYTE(ETW_CS_OLD_STATE, cs->old_state) |
		    /* IdealProcessor truncated to its low byte, as the kernel's */
		    CSWITCH_BYTE(ETW_CS_OLD_IDEAL_CPU, cs->old_ideal_cpu);
	/* the kernel's 64-bit quantum difference stored in a LONG: its low 32 bits */
	out->w[2] = (uint64_t)cs->new_wait_ticks |
		    (uint64_t)(uint32_t)(uint64_t)cs->old_remaining_quantum << 32;
}

/** cswitch_put_payload - the three words at @q (the payload's first byte). */
static inline void cswitch_put_payload(uint8_t *q, const struct cswitch_words *cw)
{
	put_le64(q + ETW_CS_NEW_TID, cw->w[0]);
	put_le64(q + ETW_CS_NEW_PRI, cw->w[1]);
	put_le64(q + ETW_CS_NEW_WAIT_TIME, cw->w[2]);
}

#endif /* PRODUCER_CSWITCH_WORDS_H */
