/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_sysconfig.h - CPU_CONFIG_RECORD, the payload of SystemConfig
 * CPU 0x0B0A v3 (RUNDOWN_FACTS 6.2): 828 bytes on x64, 820 on x86, with
 * two NUL-padded WCHAR arrays. The error policy of etw_process.h.
 */
#ifndef PRODUCER_ETW_SYSCONFIG_H
#define PRODUCER_ETW_SYSCONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "producer/etw_layout.h"
#include "producer/etw_text.h"

/**
 * struct etw_cpu_config - CPU_CONFIG_RECORD v3.
 * @mhz:                    = the logfile header's CpuSpeedInMHz
 * @memory_mb:              MemSize, in MB
 * @computer_name:          at most 255 units (WCHAR[256] keeps a NUL); the
 *                          rest of the array is zero. Decoding: up to the
 *                          first NUL, or all 256 units when there is none
 * @domain_name:            at most 133 units (WCHAR[134])
 * @hyperthreading_flag:    pointer-sized
 * @highest_user_address:   pointer-sized
 * @processor_architecture: PROCESSOR_ARCHITECTURE_* (9 AMD64, 0 INTEL)
 * @pae_enabled, @nx_enabled: Pae then Nx, the order readers decode (the
 *                          kernel's own order is not known)
 */
struct etw_cpu_config {
	uint32_t mhz;
	uint32_t number_of_processors;
	uint32_t memory_mb;
	uint32_t page_size;
	uint32_t allocation_granularity;
	struct etw_wstr computer_name;
	struct etw_wstr domain_name;
	uint64_t hyperthreading_flag;
	uint64_t highest_user_address;
	uint16_t processor_architecture;
	uint16_t processor_level;
	uint16_t processor_revision;
	uint8_t pae_enabled;
	uint8_t nx_enabled;
	uint32_t memory_speed;
};

/** etw_cpu_config_len - 0x33C on x64, 0x334 on x86 (0 for a bad arch). */
size_t etw_cpu_config_len(enum etl_arch arch);
/**
 * etw_encode_cpu_config - Return: bytes, -EINVAL (arch, a NUL unit inside a
 * name), -EOVERFLOW (a name too long for its array, a pointer above 32 bits
 * on x86 unless ETW_ENC_WRAP: then a long name is cut to fit), -ENOSPC.
 */
int etw_encode_cpu_config(uint8_t *buf, size_t cap, enum etl_arch arch,
			  const struct etw_cpu_config *c, unsigned flags);
/** etw_decode_cpu_config - the names point into @buf. Return: bytes consumed or -EINVAL. */
int etw_decode_cpu_config(const uint8_t *buf, size_t len, enum etl_arch arch,
			  struct etw_cpu_config *c);

#endif /* PRODUCER_ETW_SYSCONFIG_H */
