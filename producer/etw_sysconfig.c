// SPDX-License-Identifier: MIT
/*
 * producer/etw_sysconfig.c - CPU_CONFIG_RECORD both ways (see
 * etw_sysconfig.h). x64 offsets (x86: the pointers are 4 bytes, so
 * everything after HyperThreadingFlag moves down 4, then 8):
 *
 *   0x000 MHz  0x004 NumberOfProcessors  0x008 MemSize  0x00C PageSize
 *   0x010 AllocationGranularity  0x014 ComputerName WCHAR[256]
 *   0x214 DomainName WCHAR[134]  0x320 HyperThreadingFlag (ptr)
 *   0x328 HighestUserAddress (ptr)  0x330 ProcessorArchitecture u16
 *   0x332 ProcessorLevel  0x334 ProcessorRevision  0x336 Pae  0x337 Nx
 *   0x338 MemorySpeed  -> 0x33C
 *
 * The arrays are zero after the name, as in the sample (RUNDOWN_FACTS 6.2).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "producer/etw_sysconfig.h"
#include "writer/etl_wire.h"

#define PTR32_MAX 0xFFFFFFFFu

struct cpu_layout {
	unsigned ptr;
	size_t highest, arch, level, revision, pae, nx, mem_speed, len;
};

static const struct cpu_layout cpu64 = {8,
					ETW_CPU64_HIGHEST_USER,
					ETW_CPU64_ARCH,
					ETW_CPU64_LEVEL,
					ETW_CPU64_REVISION,
					ETW_CPU64_PAE,
					ETW_CPU64_NX,
					ETW_CPU64_MEM_SPEED,
					ETW_CPU64_LEN};
static const struct cpu_layout cpu32 = {4,
					ETW_CPU32_HIGHEST_USER,
					ETW_CPU32_ARCH,
					ETW_CPU32_LEVEL,
					ETW_CPU32_REVISION,
					ETW_CPU32_PAE,
					ETW_CPU32_NX,
					ETW_CPU32_MEM_SPEED,
					ETW_CPU32_LEN};

static const struct cpu_layout *layout(enum etl_arch arch)
{
	switch (arch) {
	case ETL_ARCH_X64:
		return &cpu64;
	case ETL_ARCH_X86:
		return &cpu32;
	default:
		return NULL;
	}
}

size_t etw_cpu_config_len(enum etl_arch arch)
{
	const struct cpu_layout *l = layout(arch);

	return l ? l->len : 0;
}

/* put_warray - @w in a WCHAR[@units] array, cut to @units - 1, zero after it. */
static void put_warray(uint8_t *p, size_t units, struct etw_wstr w)
{
	size_t n = w.units < units ? w.units : units - 1;

	memset(p, 0, 2 * units);
	if (n) {
		memcpy(p, w.le, 2 * n);
	}
}

/* get_warray - the name in a WCHAR[@units] array: up to its first NUL, or all of it. */
static struct etw_wstr get_warray(const uint8_t *p, size_t units)
{
	long n = etw_wstrz_scan(p, 2 * units);
	struct etw_wstr w;

	w.units = n < 0 ? units : (size_t)n;
	w.le = w.units ? p : NULL;
	return w;
}

int etw_encode_cpu_config(uint8_t *buf, size_t cap, enum etl_arch arch,
			  const struct etw_cpu_config *c, unsigned flags)
{
	const struct cpu_layout *l = layout(arch);
	bool wrap = (flags & ETW_ENC_WRAP) != 0;

	if (!l || etw_wstr_has_nul(c->computer_name) || etw_wstr_has_nul(c->domain_name)) {
		return -EINVAL;
	}
	if (!wrap && (c->computer_name.units >= ETW_CPU_COMPUTER_UNITS ||
		      c->domain_name.units >= ETW_CPU_DOMAIN_UNITS)) {
		return -EOVERFLOW;
	}
	if (!wrap && l->ptr == 4 &&
	    (c->hyperthreading_flag > PTR32_MAX || c->highest_user_address > PTR32_MAX)) {
		return -EOVERFLOW;
	}
	if (cap < l->len) {
		return -ENOSPC;
	}
	put_le32(buf + ETW_CPU_MHZ, c->mhz);
	put_le32(buf + ETW_CPU_NPROC, c->number_of_processors);
	put_le32(buf + ETW_CPU_MEM_MB, c->memory_mb);
	put_le32(buf + ETW_CPU_PAGE_SIZE, c->page_size);
	put_le32(buf + ETW_CPU_ALLOC_GRAN, c->allocation_granularity);
	put_warray(buf + ETW_CPU_COMPUTER, ETW_CPU_COMPUTER_UNITS, c->computer_name);
	put_warray(buf + ETW_CPU_DOMAIN, ETW_CPU_DOMAIN_UNITS, c->domain_name);
	put_ptr(buf + ETW_CPU_HT, l->ptr, c->hyperthreading_flag);
	put_ptr(buf + l->highest, l->ptr, c->highest_user_address);
	put_le16(buf + l->arch, c->processor_architecture);
	put_le16(buf + l->level, c->processor_level);
	put_le16(buf + l->revision, c->processor_revision);
	put_u8(buf + l->pae, c->pae_enabled);
	put_u8(buf + l->nx, c->nx_enabled);
	put_le32(buf + l->mem_speed, c->memory_speed);
	return (int)l->len;
}

int etw_decode_cpu_config(const uint8_t *buf, size_t len, enum etl_arch arch,
			  struct etw_cpu_config *c)
{
	const struct cpu_layout *l = layout(arch);

	if (!l || len < l->len) {
		return -EINVAL;
	}
	c->mhz = get_le32(buf + ETW_CPU_MHZ);
	c->number_of_processors = get_le32(buf + ETW_CPU_NPROC);
	c->memory_mb = get_le32(buf + ETW_CPU_MEM_MB);
	c->page_size = get_le32(buf + ETW_CPU_PAGE_SIZE);
	c->allocation_granularity = get_le32(buf + ETW_CPU_ALLOC_GRAN);
	c->computer_name = get_warray(buf + ETW_CPU_COMPUTER, ETW_CPU_COMPUTER_UNITS);
	c->domain_name = get_warray(buf + ETW_CPU_DOMAIN, ETW_CPU_DOMAIN_UNITS);
	c->hyperthreading_flag = get_ptr(buf + ETW_CPU_HT, l->ptr);
	c->highest_user_address = get_ptr(buf + l->highest, l->ptr);
	c->processor_architecture = get_le16(buf + l->arch);
	c->processor_level = get_le16(buf + l->level);
	c->processor_revision = get_le16(buf + l->revision);
	c->pae_enabled = get_u8(buf + l->pae);
	c->nx_enabled = get_u8(buf + l->nx);
	c->memory_speed = get_le32(buf + l->mem_speed);
	return (int)l->len;
}
