/* SPDX-License-Identifier: MIT */
/*
 * tests/fake_backend.h - a recording producer_backend_ops for producer
 * tests: keeps every reserved event's cpu, ts and bytes, and can refuse
 * with a given error to test losses.
 */
#ifndef TESTS_FAKE_BACKEND_H
#define TESTS_FAKE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "writer/backend.h"

#define FAKE_MAX_EVENTS 4096
#define FAKE_MAX_SIZE   0x500

struct fake_event {
	unsigned cpu;
	uint64_t ts;
	size_t size;
	uint8_t bytes[FAKE_MAX_SIZE];
	int committed;
};

struct fake_backend {
	unsigned n;
	int refuse; /* reserve returns this when non-zero */
	unsigned refused;
	struct fake_event ev[FAKE_MAX_EVENTS];
};

extern const struct producer_backend_ops fake_backend_ops;

#endif /* TESTS_FAKE_BACKEND_H */
