/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_encode.h - stateless encoders and decoders of the ETW event
 * layouts: PERFINFO trace header (+ PEBS/PMC extended items), WMI_CONTEXTSWAP
 * (v2/v4), WMI_SPINLOCK (x86/x64), the four CCSWAP record forms and the
 * PERFINFO_CCSWAP_BUFFER header.
 *
 * Pure functions over caller memory: no allocation, no I/O. Encoders check
 * every value against its field and return -EOVERFLOW instead of truncating,
 * unless the caller passes ETW_ENC_WRAP (the kernel's own modular behaviour).
 * Decoders check lengths first and return -EINVAL on short input.
 */
#ifndef PRODUCER_ETW_ENCODE_H
#define PRODUCER_ETW_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/etw_dpc.h"
#include "producer/etw_image.h"
#include "producer/etw_ktc.h"
#include "producer/etw_layout.h"
#include "producer/etw_process.h"
#include "producer/etw_profile.h"
#include "producer/etw_rundown.h"
#include "producer/etw_stack.h"
#include "producer/etw_sysconfig.h"
#include "producer/etw_thread.h"
#include "writer/etl_trace_header.h"

/* Encoder flags: ETW_ENC_WRAP (etw_layout.h). */

/**
 * struct etw_cswitch - WMI_CONTEXTSWAP payload (0x18 bytes, seed 001).
 * @wait_mode_or_flags is the raw byte at 0x0D: the WaitMode in v2, the flags
 * byte in v4 (see etw_cswitch_v4_flags()).
 */
struct etw_cswitch {
	uint32_t new_tid;
	uint32_t old_tid;
	int8_t new_pri;
	int8_t old_pri;
	uint8_t prev_cstate; /* PreviousCState / OldThreadRank union */
	int8_t new_pri_decrement;
	uint8_t old_wait_reason;
	uint8_t wait_mode_or_flags;
	uint8_t old_state;
	uint8_t old_ideal_cpu;
	uint32_t new_wait_time;
	int32_t old_remaining_quantum;
};

/**
 * etw_cswitch_v4_flags - build the v4 flags byte.
 * Return: 0 and *out set, or -EOVERFLOW if wait_mode > 1 or a QoS > 7.
 */
int etw_cswitch_v4_flags(unsigned wait_mode, unsigned old_qos, unsigned new_qos, uint8_t *out);

/** etw_encode_cswitch - write the 0x18-byte payload. Return: 0x18 or -ENOSPC. */
int etw_encode_cswitch(uint8_t *buf, size_t cap, const struct etw_cswitch *cs);
/** etw_decode_cswitch - read it back. Return: 0x18 or -EINVAL if @len < 0x18. */
int etw_decode_cswitch(const uint8_t *buf, size_t len, struct etw_cswitch *cs);

/** struct etw_spinlock - WMI_SPINLOCK payload (seed 003, KERNEL_FACTS 6.1). */
struct etw_spinlock {
	uint64_t lock_address;
	uint64_t caller_address;
	uint64_t acquire_time;
	uint64_t release_time;
	uint32_t wait_cycles;
	uint32_t spin_count;
	uint32_t tid;
	uint32_t interrupt_count;
	uint8_t irql;
	uint8_t depth;
	uint8_t acquire_mode; /* 6 bits */
	bool execute_dpc;
	bool execute_isr;
};

/**
 * struct etw_spinlock_config - PERFINFO_SPINLOCK_CONFIG (KERNEL_FACTS 6.3),
 * the payload of the configuration rundown 0x0F4B / 0x0F4C.
 */
struct etw_spinlock_config {
	uint32_t spin_threshold;
	uint32_t contention_sample_rate;
	uint32_t acquire_sample_rate;
	uint32_t hold_threshold;
};

/** etw_encode_spinlock_config - 0x10 bytes. Return: 0x10, or -EINVAL (@cap too small). */
int etw_encode_spinlock_config(uint8_t *buf, size_t cap, const struct etw_spinlock_config *c);
/** etw_decode_spinlock_config - Return: 0x10 or -EINVAL (short). */
int etw_decode_spinlock_config(const uint8_t *buf, size_t len, struct etw_spinlock_config *c);

/** etw_spinlock_len - 0x38 on x64, 0x30 on x86. */
size_t etw_spinlock_len(enum etl_arch arch);
/**
 * etw_encode_spinlock - write WMI_SPINLOCK for @arch (Reserved[5] zeroed).
 * Return: bytes written, -ENOSPC, or -EOVERFLOW (acquire_mode > 0x3F, or an
 * address above 32 bits on x86, unless ETW_ENC_WRAP).
 */
int etw_encode_spinlock(uint8_t *buf, size_t cap, enum etl_arch arch, const struct etw_spinlock *sl,
			unsigned flags);
/** etw_decode_spinlock - Return: bytes consumed or -EINVAL. */
int etw_decode_spinlock(const uint8_t *buf, size_t len, enum etl_arch arch,
			struct etw_spinlock *sl);

/**
 * struct etw_ccswap_rec - one compact record, any form.
 * Fields a form does not carry are ignored on encode and zeroed on decode.
 * @type:       ETW_CCSWAP_IDLE_SHORT / IDLE / LITE / FULL
 * @delta:      TimeDelta (14, 30, 17 or 30 bits by form)
 * @tid_index:  OldThreadIdIndex (LITE, FULL), 4 bits
 * @state_wr:   OldThreadStateWr (LITE, FULL), 6 bits
 * @priority:   OldThreadPriority (FULL), 5 bits
 * @pri_inc:    OldThreadPriInc (LITE), 3 bits
 * @wait_time:  NewThreadWaitTime (FULL), 17 bits
 */
struct etw_ccswap_rec {
	enum etw_ccswap_type type;
	uint32_t delta;
	uint8_t tid_index;
	uint8_t state_wr;
	uint8_t priority;
	uint8_t pri_inc;
	uint32_t wait_time;
};

/** etw_ccswap_rec_len - 2, 4, 4, 8 by type. */
size_t etw_ccswap_rec_len(enum etw_ccswap_type type);
/**
 * etw_encode_ccswap_rec - pack one record, little-endian, unaligned.
 * Return: bytes written, -ENOSPC, -EINVAL (bad type), -EOVERFLOW (a value
 * exceeds its field) unless ETW_ENC_WRAP.
 */
int etw_encode_ccswap_rec(uint8_t *buf, size_t cap, const struct etw_ccswap_rec *r, unsigned flags);
/**
 * etw_decode_ccswap_rec - unpack the record at @buf (type from its low 2 bits).
 * Return: bytes consumed, or -EINVAL if @len is shorter than the record.
 */
int etw_decode_ccswap_rec(const uint8_t *buf, size_t len, struct etw_ccswap_rec *r);

/** struct etw_ccswap_buffer - PERFINFO_CCSWAP_BUFFER (0x58 bytes). */
struct etw_ccswap_buffer {
	int64_t first_ts;
	uint32_t tid_table[ETW_CCSWAP_MAX_TID];
	int8_t base_pri[ETW_CCSWAP_MAX_TID];
};

/** etw_encode_ccswap_buffer - Return: 0x58 or -ENOSPC. */
int etw_encode_ccswap_buffer(uint8_t *buf, size_t cap, const struct etw_ccswap_buffer *b);
/** etw_decode_ccswap_buffer - Return: 0x58 or -EINVAL. */
int etw_decode_ccswap_buffer(const uint8_t *buf, size_t len, struct etw_ccswap_buffer *b);

/**
 * etw_ccswap_state_wr - OldThreadStateWr: the wait reason when @state is
 * Waiting (5), else (@state + @max_wait_reason) mod 64 (KERNEL_FACTS 5.3).
 */
uint8_t etw_ccswap_state_wr(uint8_t state, uint8_t wait_reason, uint8_t max_wait_reason);

/**
 * etw_ccswap_state_wr_split - inverse of etw_ccswap_state_wr(): a value below
 * @max_wait_reason is a wait reason (state Waiting), else state = v - bias
 * (mod 64). Sets *state and *wait_reason (wait reason 0 when not waiting).
 */
void etw_ccswap_state_wr_split(uint8_t state_wr, uint8_t max_wait_reason, uint8_t *state,
			       uint8_t *wait_reason);

/** enum etw_payload_kind - what etw_decode_payload() found. */
enum etw_payload_kind {
	ETW_PAYLOAD_NONE = 0,	     /* not a hook (or version) decoded here */
	ETW_PAYLOAD_CSWITCH,	     /* 0x0524 version 2, 3 or 4 */
	ETW_PAYLOAD_SPINLOCK,	     /* 0x0529 */
	ETW_PAYLOAD_BATCH,	     /* 0x0525: its PERFINFO_CCSWAP_BUFFER */
	ETW_PAYLOAD_SPINLOCK_CONFIG, /* 0x0F4B / 0x0F4C */
	ETW_PAYLOAD_SHORT,	     /* a hook decoded here, with a payload too short */
	/* the identity records (etw_process.h ... etw_rundown.h): */
	ETW_PAYLOAD_PROCESS,	       /* 0x0301-0x0304, 0x0327: version 4 or 5 */
	ETW_PAYLOAD_PROCESS_TERMINATE, /* 0x030B */
	ETW_PAYLOAD_THREAD,	       /* 0x0501-0x0504: version 3 or 4 */
	ETW_PAYLOAD_THREAD_SET_NAME,   /* 0x0548: version 2 and later */
	ETW_PAYLOAD_READY_THREAD,      /* 0x0532: version 2 */
	ETW_PAYLOAD_SAMPLED_PROFILE,   /* 0x0F2E: version 2 */
	ETW_PAYLOAD_PROFILE_INTERVAL,  /* 0x0F48-0x0F4A: version 2 or 3 */
	ETW_PAYLOAD_CPU_CONFIG,	       /* 0x0B0A: version 3 */
	ETW_PAYLOAD_GROUP_MASKS,       /* 0x0005, 0x0020 */
	ETW_PAYLOAD_RUNDOWN_COMPLETE,  /* 0x0008: no payload */
	/* images, stack walks (etw_image.h, etw_stack.h): */
	ETW_PAYLOAD_IMAGE,	   /* 0x030A, 0x1402-0x1404: version 2 or 3 */
	ETW_PAYLOAD_IMAGE_ADDRESS, /* 0x1421 KernelBase, 0x1422 HypercallPage */
	ETW_PAYLOAD_STACK_WALK,	   /* 0x1820 */
	ETW_PAYLOAD_STACK_KEY,	   /* 0x1825 / 0x1826 */
	ETW_PAYLOAD_STACK_DEF,	   /* 0x1822 / 0x1823 / 0x1824 */
	/* the KernelTraceControl image identities (etw_ktc.h), by GUID and type: */
	ETW_PAYLOAD_KTC_IMAGE_ID,     /* type 0, v2 */
	ETW_PAYLOAD_KTC_DBGID,	      /* types 36 (RSDS) and 37 (ILRSDS), v2 */
	ETW_PAYLOAD_KTC_DBGID_NONE,   /* type 32, v2: u.kdb's base and PID only */
	ETW_PAYLOAD_KTC_FILE_VERSION, /* type 64, v0 */
	/* DPC and ISR records (STACK_IMAGE_FACTS 5) */
	ETW_PAYLOAD_DPC, /* 0x0F42, 0x0F44, 0x0F45: version 2 */
	ETW_PAYLOAD_ISR, /* 0x0F43: version 2 */
};

/**
 * struct etw_payload - a decoded PERFINFO payload.
 * @name:        "CSwitch", "SpinLock", "Process DCStart", ... (kinds but NONE)
 * @u:           the decoded payload; strings point into the payload
 * @tids:        BATCH: TidTable entries that are set
 * @batch_bytes: BATCH: bytes of packed records after the 0x58-byte header
 */
struct etw_payload {
	enum etw_payload_kind kind;
	const char *name;
	union {
		struct etw_cswitch cs;
		struct etw_spinlock sl;
		struct etw_ccswap_buffer cb;
		struct etw_spinlock_config sc;
		struct etw_process pr;
		uint32_t terminated_pid;
		struct etw_thread th;
		struct etw_thread_set_name tsn;
		struct etw_ready_thread rt;
		struct etw_sampled_profile sp;
		struct etw_profile_interval pi;
		struct etw_cpu_config cpu;
		struct etw_group_masks gm;
		struct etw_image im;
		uint64_t address; /* IMAGE_ADDRESS */
		struct etw_stack_walk sw;
		struct etw_stack_key sk;
		struct etw_stack_def sd;
		struct etw_ktc_image_id kid;
		struct etw_ktc_dbgid kdb;
		struct etw_ktc_file_version kfv;
		struct etw_dpc dpc; /* DPC and ISR */
	} u;
	unsigned tids;
	size_t batch_bytes;
};

/**
 * etw_decode_payload - the one hook dispatcher, for every reader of
 * payloads: decode the @len bytes at @p of a PERFINFO record with @hook and
 * @version (@arch for the pointer size of WMI_SPINLOCK). CSwitch versions 2
 * to 4 share the 0x18-byte layout (KERNEL_FACTS 4.2, 5.2); version 1 is not
 * decoded. The identity and rundown records (RUNDOWN_FACTS) are decoded for
 * the versions their decoders know; a malformed one is ETW_PAYLOAD_SHORT.
 * So are the image and stack-walk records (STACK_IMAGE_FACTS 2, 3): Image
 * versions 2 and 3, every version of the others. Only the member of @out->u
 * that @out->kind names is to be read (a CSwitch leaves the others as they
 * were).
 */
void etw_decode_payload(uint16_t hook, uint8_t version, enum etl_arch arch, const uint8_t *p,
			size_t len, struct etw_payload *out);

/**
 * etw_decode_classic_payload - the dispatcher of classic events (an
 * EVENT_TRACE_HEADER, writer/etl_trace_header.h): decode the @len payload
 * bytes at @p of an event with @guid (16 wire bytes), Class.Type @type and
 * Class.Version @version. Knows the KernelTraceControl image identities
 * (etw_ktc.h) in the versions Windows writes (ImageID, DbgID_* and None v2,
 * FileVersion v0); anything else is ETW_PAYLOAD_NONE, a malformed one
 * ETW_PAYLOAD_SHORT.
 */
void etw_decode_classic_payload(const uint8_t *guid, uint8_t type, uint16_t version,
				enum etl_arch arch, const uint8_t *p, size_t len,
				struct etw_payload *out);

#endif /* PRODUCER_ETW_ENCODE_H */
