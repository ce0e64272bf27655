/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fit/fit_locks.h - the spin-lock families of a lookalike
 * (fit_locks.c): the logged releases of the pass gathered by lock address,
 * the addresses joined into families (neighbouring cache lines: one lock or
 * an array of them), and each family's keys estimated from what the
 * kernel's sampling let through (scenario locks[] and kernel.spinlock).
 */
#ifndef TOOLS_LIB_FIT_FIT_LOCKS_H
#define TOOLS_LIB_FIT_FIT_LOCKS_H

#include <stdbool.h>

#include "etwforge/etwforge.h"

struct fit;
struct fit_node;
struct fit_locks;

/**
 * fit_locks_new - an empty gathering, for releases logged with @cfg (@from_file:
 * the trace's configuration rundown, else the kernel's defaults). NULL: no memory.
 */
struct fit_locks *fit_locks_new(const struct etwforge_spinlock_config *cfg, bool from_file);

/** fit_locks_note - a spin item of the pass. Return: 0, -ENOMEM. */
int fit_locks_note(struct fit_locks *l, const struct etwforge_item *it);

/**
 * fit_locks_write - kernel.spinlock and locks[] into @root (nothing when the
 * trace logged no spin lock); group names from @fit's groups (written first).
 * Return: 0, -ENOMEM.
 */
int fit_locks_write(struct fit_locks *l, struct fit *fit, struct fit_node *root);

/** fit_locks_free - NULL is a no-op. */
void fit_locks_free(struct fit_locks *l);

#endif /* TOOLS_LIB_FIT_FIT_LOCKS_H */
