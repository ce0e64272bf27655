/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/scenario_internal.h - the scenario schema: one table of key
 * descriptors per map, shared by the loader (scenario.c), which walks YAML
 * nodes against it, and the printer (scenario_print.c), which walks the
 * structs with it. One table for both is what makes print -> load a round
 * trip: a key cannot be loaded but not printed, or printed differently.
 */
#ifndef TOOLS_LIB_SCENARIO_INTERNAL_H
#define TOOLS_LIB_SCENARIO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/lib/scenario.h"
#include "tools/lib/yaml_tree.h"

/** enum sk_kind - how a key's value is read, stored and printed. */
enum sk_kind {
	SK_UINT = 0, /* unsigned integer of @size bytes in [@min, @max], a multiple of @multiple */
	SK_BOOL,     /* bool */
	SK_STR,      /* char[@size], at least @min bytes */
	SK_DUR,      /* uint64_t nanoseconds in [@min, @max] */
	SK_ENUM,     /* an enum (int-sized) named by @names[value]; numbers too if @numeric */
	SK_MAP,      /* nested map of @sub keys, same base */
	SK_LIST,     /* top-level list of @sub items, see struct sk_list */
	SK_CUSTOM,   /* @apply / @print */
};

struct walk;
struct sk_desc;

typedef int (*sk_apply_fn)(struct walk *w, const struct sk_desc *d, void *base,
			   const struct yt_node *n);
typedef void (*sk_print_fn)(FILE *f, const struct scenario *sc, const struct sk_desc *d,
			    const void *base, unsigned item);
typedef int (*sk_set_key_fn)(struct walk *w, const struct sk_desc *d, void *base,
			     const char *key, uint32_t col, const struct yt_node *v);

/**
 * struct sk_list - a list of items stored in the scenario.
 * @count_off: offset of its unsigned count in struct scenario
 * @items_off: offset of item 0 in struct scenario
 * @stride:    item size
 * @min/@max:  allowed item counts
 * @noun:      "sessions", "groups", "locks" (for messages)
 * @why_max:   what the maximum is ("system loggers")
 * @init:      set item @i to the item defaults (and its extras)
 * @done:      after a new item's keys: defaults that depend on them
 */
struct sk_list {
	size_t count_off;
	size_t items_off;
	size_t stride;
	unsigned min;
	unsigned max;
	const char *noun;
	const char *why_max;
	void (*init)(struct scenario *sc, unsigned i);
	void (*done)(struct scenario *sc, unsigned i, const struct yt_node *item);
};

/**
 * struct sk_desc - one key. Tables end with a NULL @key.
 * @off:     field offset from the base: struct scenario for top-level and
 *           map keys, the list item for item keys
 * @set_key: custom maps with free keys (wait_reasons): set one key from a
 *           --set path such as threads.0.wait_reasons.WrQueue
 */
struct sk_desc {
	const char *key;
	enum sk_kind kind;
	size_t off;
	unsigned size;
	uint64_t min;
	uint64_t max;
	uint64_t multiple;
	const char *const *names;
	unsigned nnames;
	bool numeric;
	const struct sk_desc *sub;
	const struct sk_list *list;
	sk_apply_fn apply;
	sk_print_fn print;
	sk_set_key_fn set_key;
};

/* the top-level keys */
extern const struct sk_desc scenario_schema[];

/* KWAIT_REASON names 0..42 (KERNEL_FACTS 7) */
#define SCENARIO_WAIT_NAMES 43

/* 1 hour in 100 ns units: the default uptime before start_time */
#define SCENARIO_DEFAULT_UPTIME (3600LL * 10000000LL)

/** sk_item - list item @i of @d (a SK_LIST) in @sc. */
void *sk_item(const struct scenario *sc, const struct sk_desc *d, unsigned i);
/** sk_count - items in list @d. */
unsigned sk_count(const struct scenario *sc, const struct sk_desc *d);

/** scenario_format_duration - "2s", "500ms", "31250us", "7ns" or "0". */
void scenario_format_duration(char *buf, size_t len, uint64_t ns);

/** scenario_effective_boot_time - boot_time, or its default from start_time. */
int64_t scenario_effective_boot_time(const struct scenario *sc);
/** scenario_effective_quantum - quantum_ns, or its default (2 ticks). */
uint64_t scenario_effective_quantum(const struct scenario *sc);

/* printers of the custom keys (scenario_print.c) */
void sk_print_target(FILE *f, const struct scenario *sc, const struct sk_desc *d,
		     const void *base, unsigned item);
void sk_print_flags(FILE *f, const struct scenario *sc, const struct sk_desc *d, const void *base,
		    unsigned item);
void sk_print_counters(FILE *f, const struct scenario *sc, const struct sk_desc *d,
		       const void *base, unsigned item);
void sk_print_events(FILE *f, const struct scenario *sc, const struct sk_desc *d,
		     const void *base, unsigned item);
void sk_print_flush_latency(FILE *f, const struct scenario *sc, const struct sk_desc *d,
			    const void *base, unsigned item);
void sk_print_wait(FILE *f, const struct scenario *sc, const struct sk_desc *d, const void *base,
		   unsigned item);
void sk_print_lifetime(FILE *f, const struct scenario *sc, const struct sk_desc *d,
		       const void *base, unsigned item);
void sk_print_affinity(FILE *f, const struct scenario *sc, const struct sk_desc *d,
		       const void *base, unsigned item);
void sk_print_boot_time(FILE *f, const struct scenario *sc, const struct sk_desc *d,
			const void *base, unsigned item);
void sk_print_quantum(FILE *f, const struct scenario *sc, const struct sk_desc *d,
		      const void *base, unsigned item);
void sk_print_uint(FILE *f, const struct scenario *sc, const struct sk_desc *d, const void *base,
		   unsigned item);

#endif /* TOOLS_LIB_SCENARIO_INTERNAL_H */
