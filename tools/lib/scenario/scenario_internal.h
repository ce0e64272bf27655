/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/scenario/scenario_internal.h - the scenario's private header: its schema
 * (the key tables, bound by the generic tools/lib/schema.c) and what the
 * loader (scenario.c) and the printer (scenario_print.c) share. The loader
 * walks YAML nodes against the tables, the printer walks the structs with
 * them. One table for both is what makes print -> load a round trip: a key
 * cannot be loaded but not printed, or printed differently.
 */
#ifndef TOOLS_LIB_SCENARIO_INTERNAL_H
#define TOOLS_LIB_SCENARIO_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "tools/lib/scenario/scenario.h"
#include "tools/lib/scenario/schema.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FSIZE(T, m)   ((unsigned)sizeof(((T *)0)->m))

/* key descriptors (struct sk_desc) of the tables */
#define K_UINT(k, T, m, lo, hi)                                                                    \
	{                                                                                          \
		.key = (k), .kind = SK_UINT, .off = offsetof(T, m), .size = FSIZE(T, m),           \
		.min = (lo), .max = (hi)                                                           \
	}
#define K_UINT_M(k, T, m, lo, hi, mul)                                                             \
	{                                                                                          \
		.key = (k), .kind = SK_UINT, .off = offsetof(T, m), .size = FSIZE(T, m),           \
		.min = (lo), .max = (hi), .multiple = (mul)                                        \
	}
#define K_BOOL(k, T, m)                                                                            \
	{                                                                                          \
		.key = (k), .kind = SK_BOOL, .off = offsetof(T, m), .size = FSIZE(T, m)            \
	}
#define K_STR(k, T, m, lo)                                                                         \
	{                                                                                          \
		.key = (k), .kind = SK_STR, .off = offsetof(T, m), .size = FSIZE(T, m),            \
		.min = (lo)                                                                        \
	}
#define K_DUR(k, T, m, lo, hi)                                                                     \
	{                                                                                          \
		.key = (k), .kind = SK_DUR, .off = offsetof(T, m), .size = FSIZE(T, m),            \
		.min = (lo), .max = (hi)                                                           \
	}
#define K_ENUM(k, T, m, nm, num)                                                                   \
	{                                                                                          \
		.key = (k), .kind = SK_ENUM, .off = offsetof(T, m), .size = FSIZE(T, m),           \
		.names = (nm), .nnames = ARRAY_SIZE(nm), .numeric = (num)                          \
	}
#define K_CUSTOM(k, ap, pr)                                                                        \
	{                                                                                          \
		.key = (k), .kind = SK_CUSTOM, .apply = (ap), .print = (pr)                        \
	}
#define K_CUSTOM_X(k, ap, pr, ...)                                                                 \
	{                                                                                          \
		.key = (k), .kind = SK_CUSTOM, .apply = (ap), .print = (pr), __VA_ARGS__           \
	}
#define K_END                                                                                      \
	{                                                                                          \
		.key = NULL                                                                        \
	}

/* the document type: the top-level keys, the root being a struct scenario */
extern const struct sk_schema scenario_schema;

/* KWAIT_REASON names 0..42 (KERNEL_FACTS 7) */
#define SCENARIO_WAIT_NAMES 43

/* 1 hour in 100 ns units: the default uptime before start_time */
#define SCENARIO_DEFAULT_UPTIME (3600LL * 10000000LL)

/**
 * scenario_effective_start_time - start_time; on a lived-in machine given
 * neither start nor boot time, one drawn from the seed.
 */
int64_t scenario_effective_start_time(const struct scenario *sc);

/**
 * scenario_effective_boot_time - boot_time, or its default: start_time less
 * an hour; on a lived-in machine given neither, an uptime drawn from the seed.
 */
int64_t scenario_effective_boot_time(const struct scenario *sc);
/** scenario_effective_quantum - quantum_ns, or its default (2 ticks). */
uint64_t scenario_effective_quantum(const struct scenario *sc);

/* printers of the custom keys (scenario_print.c); @root is the struct scenario */
void scenario_print_target(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item);
void scenario_print_flags(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			  unsigned item);
void scenario_print_stacks(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item);
void scenario_print_taken_by(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item);
void scenario_print_nested(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item);
void scenario_print_modes(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			  unsigned item);
void scenario_print_counters(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item);
void scenario_print_events(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item);
void scenario_print_flush_latency(FILE *f, const void *root, const struct sk_desc *d,
				  const void *base, unsigned item);
void scenario_print_wait(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			 unsigned item);
void scenario_print_lifetime(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item);
void scenario_print_affinity(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item);
void scenario_print_wait_mean(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			      unsigned item);
void scenario_print_sigma(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			  unsigned item);
void scenario_print_start_time(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			       unsigned item);
void scenario_print_boot_time(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			      unsigned item);
void scenario_print_quantum(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			    unsigned item);
void scenario_print_name_str(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			     unsigned item);
void scenario_print_pid(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			unsigned item);
void scenario_print_parent(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			   unsigned item);
void scenario_print_session(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			    unsigned item);
void scenario_print_user(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			 unsigned item);
void scenario_print_exit(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			 unsigned item);
void scenario_print_exit_status(FILE *f, const void *root, const struct sk_desc *d,
				const void *base, unsigned item);
void scenario_print_group_process(FILE *f, const void *root, const struct sk_desc *d,
				  const void *base, unsigned item);
void scenario_print_hot(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			unsigned item);
void scenario_print_thread_name(FILE *f, const void *root, const struct sk_desc *d,
				const void *base, unsigned item);
void scenario_print_profile_interval(FILE *f, const void *root, const struct sk_desc *d,
				     const void *base, unsigned item);
void scenario_print_process_images(FILE *f, const void *root, const struct sk_desc *d,
				   const void *base, unsigned item);
void scenario_print_drivers(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			    unsigned item);
void scenario_print_uint(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			 unsigned item);

/** scenario_procs_of - the pieces of @sc the processes step works on (scenario_process.h). */
struct scenario_procs scenario_procs_of(struct scenario *sc);

#endif /* TOOLS_LIB_SCENARIO_INTERNAL_H */
