/* SPDX-License-Identifier: MIT */
/*
 * spinlock_model/spinlock_internal.h - hooks for the model's own tests:
 * faults the model itself never makes, so a test can see its stall guard
 * (spin_stall_describe()) stop a run that could not go on.
 */
#ifndef SPINLOCK_MODEL_SPINLOCK_INTERNAL_H
#define SPINLOCK_MODEL_SPINLOCK_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "spinlock_model/spinlock.h"

/**
 * spin_test_seize - with @held, instance @k of family @lock gets an owner
 * outside the machine, which never releases it: every CPU that takes it
 * spins. Without @held, that owner lets go of it behind the model's back
 * (no hand-over to the CPUs in its queue): a lost hand-over.
 * Return: 0, -EINVAL (no such instance, or not seized), -EBUSY (held now).
 */
int spin_test_seize(struct spin *sp, unsigned lock, unsigned k, bool held);

/** spin_test_waiting - the CPUs in the queue of instance @k of family @lock. */
uint32_t spin_test_waiting(const struct spin *sp, unsigned lock, unsigned k);

#endif /* SPINLOCK_MODEL_SPINLOCK_INTERNAL_H */
