/* SPDX-License-Identifier: MIT */
/*
 * producer/records/sysconfig.h - SystemConfig CPU 0x0B0A v3 and the
 * group-mask records 0x0005 / 0x0020 (0x0008 has no payload), described once
 * (the columns of producer/records/process.h). Encoded and decoded by
 * producer/etw_sysconfig.c and etw_rundown.c; fired by the identity model
 * (scheduler_model/identity.c).
 *
 * SIM_CPU_CONFIG_FIELDS(F, C, x) - the truth's "cpu_config" line: what the
 * machine is (most of it from the trace's configuration: CPUs, MHz).
 * ETW_CPU_CONFIG_FIELDS(F, x) - CPU_CONFIG_RECORD from struct
 * etw_cpu_config *w. Pae before Nx: the readers' order (the kernel's is not
 * known).
 *
 * SIM_GROUP_MASKS_FIELDS(F, C, x) - the truth's "masks" line: a 0x0005 (new)
 * or 0x0020 (previous) record, whose masks are each session's own (from its
 * flags) or all zeros, and whose version is the target's kernel event
 * version. ETW_GROUP_MASKS_FIELDS(F, x) - PERFINFO_GROUPMASK and that version
 * from struct etw_group_masks *w; a "how", MASKS, for the eight u32 (an
 * array of numbers).
 */
#ifndef PRODUCER_RECORDS_SYSCONFIG_H
#define PRODUCER_RECORDS_SYSCONFIG_H

/* clang-format off */
#define SIM_CPU_CONFIG_FIELDS(F, C, x)                                                             \
	F(x, cpu,            uint32_t,     BUF,  0, 0,          REQ, 0,     ALWAYS)                \
	F(x, ts,             uint64_t,     TS,   0, 0,          REQ, 0,     ALWAYS)                \
	F(x, mhz,            uint32_t,     U,    0, UINT32_MAX, OPT, 0,     ALWAYS)                \
	F(x, nproc,          uint32_t,     U,    0, UINT32_MAX, OPT, 0,     ALWAYS)                \
	F(x, memory_mb,      uint32_t,     U,    0, UINT32_MAX, OPT, 0,     ALWAYS)                \
	F(x, page_size,      uint32_t,     U,    0, UINT32_MAX, OPT, 4096,  ALWAYS)                \
	F(x, alloc_gran,     uint32_t,     U,    0, UINT32_MAX, OPT, 65536, ALWAYS)                \
	/* at most 255 / 133 UTF-16 units */                                                       \
	F(x, computer_name,  const char *, TEXT,  0, 0,          OPT, 0,     SET)                   \
	F(x, domain_name,    const char *, TEXT,  0, 0,          OPT, 0,     SET)                   \
	F(x, hyperthreading, uint64_t,     U,    0, INT64_MAX,  OPT, 0,     ALWAYS)                \
	F(x, highest_user,   uint64_t,     ADDR, 0, 0,          OPT, 0,     ALWAYS)                \
	/* PROCESSOR_ARCHITECTURE: 9 AMD64, 0 INTEL */                                             \
	F(x, arch,           uint16_t,     U,    0, UINT16_MAX, OPT, 0,     ALWAYS)                \
	F(x, level,          uint16_t,     U,    0, UINT16_MAX, OPT, 0,     ALWAYS)                \
	F(x, revision,       uint16_t,     U,    0, UINT16_MAX, OPT, 0,     ALWAYS)                \
	F(x, pae,            uint8_t,      U,    0, 1,          OPT, 1,     ALWAYS)                \
	F(x, nx,             uint8_t,      U,    0, 1,          OPT, 1,     ALWAYS)                \
	F(x, memory_speed,   uint32_t,     U,    0, UINT32_MAX, OPT, 0,     ALWAYS)

#define ETW_CPU_CONFIG_FIELDS(F, x)                                                                \
	F(x, mhz,            uint32_t,        U,    1, w->mhz,                    0x000, 0x000,    \
	  "MHz")                                                                                   \
	F(x, nproc,          uint32_t,        U,    1, w->number_of_processors,   0x004, 0x004,    \
	  "NumberOfProcessors")                                                                    \
	F(x, memory_mb,      uint32_t,        U,    1, w->memory_mb,              0x008, 0x008,    \
	  "MemSize")                                                                               \
	F(x, page_size,      uint32_t,        U,    1, w->page_size,              0x00C, 0x00C,    \
	  "PageSize")                                                                              \
	F(x, alloc_gran,     uint32_t,        U,    1, w->allocation_granularity, 0x010, 0x010,    \
	  "AllocationGranularity")                                                                 \
	F(x, computer_name,  struct etw_wstr, WSTR, 1, w->computer_name,          0x014, 0x014,    \
	  "ComputerName")                                                                          \
	F(x, domain_name,    struct etw_wstr, WSTR, 1, w->domain_name,            0x214, 0x214,    \
	  "DomainName")                                                                            \
	F(x, hyperthreading, uint64_t,        U,    1, w->hyperthreading_flag,    0x320, 0x320,    \
	  "HyperThreadingFlag")                                                                    \
	F(x, highest_user,   uint64_t,        HEX,  1, w->highest_user_address,   0x328, 0x324,    \
	  "HighestUserAddress")                                                                    \
	F(x, arch,           uint16_t,        U,    1, w->processor_architecture, 0x330, 0x328,    \
	  "ProcessorArchitecture")                                                                 \
	F(x, level,          uint16_t,        U,    1, w->processor_level,        0x332, 0x32A,    \
	  "ProcessorLevel")                                                                        \
	F(x, revision,       uint16_t,        HEX,  1, w->processor_revision,     0x334, 0x32C,    \
	  "ProcessorRevision")                                                                     \
	F(x, pae,            uint8_t,         U,    1, w->pae_enabled,            0x336, 0x32E,    \
	  "PaeEnabled")                                                                            \
	F(x, nx,             uint8_t,         U,    1, w->nx_enabled,             0x337, 0x32F,    \
	  "NxEnabled")                                                                             \
	F(x, memory_speed,   uint32_t,        U,    1, w->memory_speed,           0x338, 0x330,    \
	  "MemorySpeed")

#define SIM_GROUP_MASKS_FIELDS(F, C, x)                                                            \
	F(x, cpu,     uint32_t,       BUF,   0, 0,          REQ, 0, ALWAYS)                        \
	F(x, ts,      uint64_t,       TS,    0, 0,          REQ, 0, ALWAYS)                        \
	/* new (0x0005) or end (0x0020) */                                                         \
	F(x, event,   enum sim_event, EVENT, 0, SIM_EV_MASKS,          REQ, 0, ALWAYS)                        \
	/* the masks are the session's own (its flags), not all zeros */                          \
	F(x, enabled, bool,           BOOL,  0, 1,          OPT, 0, ALWAYS)

/* SIM_RUNDOWN_FIELDS(F, C, x) - the truth's "rundown" line: 0x0008, rundown complete. */
#define SIM_RUNDOWN_FIELDS(F, C, x)                                                                \
	F(x, cpu,     uint32_t,       BUF,   0, 0,          REQ, 0, ALWAYS)                        \
	F(x, ts,      uint64_t,       TS,    0, 0,          REQ, 0, ALWAYS)

#define ETW_GROUP_MASKS_FIELDS(F, x)                                                               \
	F(x, masks,   const uint32_t *, MASKS, 1, w->masks,   0x00, 0x00, "Masks")                 \
	F(x, version, uint32_t,         U,     1, w->version, 0x20, 0x20, "Version")
/* clang-format on */

#endif /* PRODUCER_RECORDS_SYSCONFIG_H */
