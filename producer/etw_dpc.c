// SPDX-License-Identifier: MIT
/*
 * producer/etw_dpc.c - the DPC and ISR payloads both ways (see etw_dpc.h).
 * Offsets (x64 / x86):
 *
 *   0x0F42/44/45  0x00 InitialTime u64   0x08 Routine ptr        len 0x10 / 0x0C
 *   0x0F43        as above, then ReturnValue u8 0x10/0x0C, Vector u16
 *                 0x11/0x0D (unaligned), Reserved u8 0x13/0x0F  len 0x14 / 0x10
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "producer/etw_dpc.h"
#include "writer/etl_wire.h"

#define PTR32_MAX 0xFFFFFFFFu

size_t etw_dpc_len(enum etl_arch arch, bool isr)
{
	switch (arch) {
	case ETL_ARCH_X64:
		return isr ? ETW_ISR64_LEN : ETW_DPC64_LEN;
	case ETL_ARCH_X86:
		return isr ? ETW_ISR32_LEN : ETW_DPC32_LEN;
	default:
		return 0;
	}
}

int etw_encode_dpc(uint8_t *buf, size_t cap, enum etl_arch arch, bool isr, const struct etw_dpc *d,
		   unsigned flags)
{
	bool x86 = arch == ETL_ARCH_X86;
	size_t len = etw_dpc_len(arch, isr);

	if (len == 0) {
		return -EINVAL;
	}
	if (x86 && !(flags & ETW_ENC_WRAP) && d->routine > PTR32_MAX) {
		return -EOVERFLOW;
	}
	if (cap < len) {
		return -ENOSPC;
	}
	put_le64(buf + ETW_DPC_INITIAL_TIME, d->initial_time);
	put_ptr(buf + ETW_DPC_ROUTINE, x86 ? 4u : 8u, d->routine);
	if (isr) {
		put_u8(buf + (x86 ? ETW_ISR32_RETURN : ETW_ISR64_RETURN), d->return_value);
		put_le16(buf + (x86 ? ETW_ISR32_VECTOR : ETW_ISR64_VECTOR), d->vector);
		put_u8(buf + (x86 ? ETW_ISR32_RESERVED : ETW_ISR64_RESERVED), d->reserved);
	}
	return (int)len;
}

int etw_decode_dpc(const uint8_t *buf, size_t len, enum etl_arch arch, bool isr, struct etw_dpc *d)
{
	bool x86 = arch == ETL_ARCH_X86;
	size_t need = etw_dpc_len(arch, isr);

	if (need == 0 || len < need) {
		return -EINVAL;
	}
	memset(d, 0, sizeof(*d));
	d->initial_time = get_le64(buf + ETW_DPC_INITIAL_TIME);
	d->routine = get_ptr(buf + ETW_DPC_ROUTINE, x86 ? 4u : 8u);
	if (isr) {
		d->return_value = get_u8(buf + (x86 ? ETW_ISR32_RETURN : ETW_ISR64_RETURN));
		d->vector = get_le16(buf + (x86 ? ETW_ISR32_VECTOR : ETW_ISR64_VECTOR));
		d->reserved = get_u8(buf + (x86 ? ETW_ISR32_RESERVED : ETW_ISR64_RESERVED));
	}
	return (int)need;
}
