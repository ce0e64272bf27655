/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_dpc.h - the DPC and ISR payloads (STACK_IMAGE_FACTS 5):
 * PERFINFO_DPC_INFORMATION of ThreadedDPC 0x0F42, DPC 0x0F44 and TimerDPC
 * 0x0F45 (when the routine started, the routine), and
 * PERFINFO_INTERRUPT_INFORMATION of ISR 0x0F43 (the same, then the ISR's
 * BOOLEAN result, its vector and a reserved byte, packed). x64 and x86 by
 * the pointer size. The error policy of etw_process.h.
 */
#ifndef PRODUCER_ETW_DPC_H
#define PRODUCER_ETW_DPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"

/**
 * struct etw_dpc - 0x0F42 / 0x0F44 / 0x0F45, and 0x0F43 with the ISR's tail.
 * @initial_time: the session-clock time the routine started (the record's
 *                header time is when it ended: the difference is its duration)
 * @routine:      the DPC routine's or the ISR's address
 * @return_value: ISR: its BOOLEAN result (it handled the interrupt)
 * @vector:       ISR: the interrupt vector
 * @reserved:     ISR: the reserved byte (0)
 */
struct etw_dpc {
	uint64_t initial_time;
	uint64_t routine;
	uint8_t return_value;
	uint16_t vector;
	uint8_t reserved;
};

/** etw_dpc_len - 0x10 (x64) / 0x0C (x86); an ISR's @isr: 0x14 / 0x10; 0 for a bad @arch. */
size_t etw_dpc_len(enum etl_arch arch, bool isr);
/**
 * etw_encode_dpc - a DPC's payload (@isr false: the head alone) or an ISR's.
 * Return: bytes, -EINVAL (arch), -EOVERFLOW (x86: a routine above 32 bits,
 * unless ETW_ENC_WRAP), -ENOSPC.
 */
int etw_encode_dpc(uint8_t *buf, size_t cap, enum etl_arch arch, bool isr, const struct etw_dpc *d,
		   unsigned flags);
/**
 * etw_decode_dpc - the tail fields are 0 for a DPC. Return: the bytes of the
 * layout, or -EINVAL (arch, short).
 */
int etw_decode_dpc(const uint8_t *buf, size_t len, enum etl_arch arch, bool isr, struct etw_dpc *d);

#endif /* PRODUCER_ETW_DPC_H */
