/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/read/dump_compact.h - for `etwforge dump`: the switches of each compact
 * CSwitch batch, with the new thread filled in from the next switch on the
 * CPU (also across batches), delivered batch by batch as the listing meets
 * the batch records. One event_stream cursor per CPU, made on first use.
 */
#ifndef TOOLS_LIB_DUMP_COMPACT_H
#define TOOLS_LIB_DUMP_COMPACT_H

#include <stdint.h>

#include "tools/lib/read/event_stream.h"

struct dump_expander;

/** dump_expander_create - Return: the expander or NULL (ENOMEM). */
struct dump_expander *dump_expander_create(const struct etl_reader *d, uint8_t max_wait_reason);

/** dump_expander_destroy - NULL is a no-op. */
void dump_expander_destroy(struct dump_expander *x);

typedef void (*dump_switch_fn)(void *ctx, const struct dec_event *ev);

/**
 * dump_expander_batch - call @fn for every switch of the batch record @rec.
 * Records must be met in each CPU's SequenceNumber order (etwforge files and
 * the --jsonl order); batches met out of that order are not expanded.
 * Return: 0, or -EINVAL with @err filled when the batch is malformed.
 */
int dump_expander_batch(struct dump_expander *x, const struct etl_record *rec, dump_switch_fn fn,
			void *ctx, struct etl_error *err);

#endif /* TOOLS_LIB_DUMP_COMPACT_H */
