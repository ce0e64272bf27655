// SPDX-License-Identifier: MIT
/*
 * spinlock_model/spin_cfg.c - the spin-lock subsystem's configuration:
 * its checks (ranges, takers, the nesting graph), the IRQL each family is
 * held at, and where the locks and their callers live in kernel memory.
 *
 * Addresses are stable functions of the names (FNV-1a), so a lock keeps its
 * address across runs and seeds:
 *   x64  module base  0xFFFFF803'00000000 + 16 MiB * (hash(module) % 1024)
 *        lock         base + 0x400000 + 64 * ((hash(name) % 0x8000) + k)
 *        caller       base + 0x1000 + hash(name, site) % 0x3F0000
 *   x86  the same layout from 0x80400000, 1 MiB modules (% 256), 32 * (...)
 * Locks sit in the module's data (one cache line each); callers in its code.
 */
#include <errno.h>
#include <string.h>

#include "spinlock_model/spin_cfg.h"

static const char *const mode_names[SPIN_MODES] = {"ordinary", "queued", "shared", "exclusive",
						   "converted"};

const char *spin_mode_name(unsigned mode)
{
	return mode < SPIN_MODES ? mode_names[mode] : NULL;
}

/* FNV-1a over @n bytes of @p, continuing from @h. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ b[i]) * UINT64_C(0x100000001B3);
	}
	return h;
}

#define FNV_BASIS UINT64_C(0xCBF29CE484222325)

/* The module of a lock: its name up to '!' ("nt" for "nt!PfnLock"; all of it without one). */
static uint64_t module_hash(const char *name)
{
	const char *bang = strchr(name, '!');

	return fnv1a(FNV_BASIS, name, bang ? (size_t)(bang - name) : strlen(name));
}

static uint64_t module_base(const struct spin_cfg *cfg, const char *name)
{
	uint64_t h = module_hash(name);

	if (cfg->x86) {
		return UINT64_C(0x80400000) + (h % 256u) * UINT64_C(0x100000);
	}
	return UINT64_C(0xFFFFF80300000000) + (h % 1024u) * UINT64_C(0x1000000);
}

uint64_t spin_lock_address(const struct spin_cfg *cfg, unsigned i, unsigned k)
{
	const char *name = cfg->locks[i].name;
	uint64_t h = fnv1a(FNV_BASIS, name, strlen(name));

	if (cfg->x86) {
		return module_base(cfg, name) + 0x80000u + 32u * (h % 0x3000u + k);
	}
	return module_base(cfg, name) + 0x400000u + 64u * (h % 0x8000u + k);
}

uint64_t spin_caller_address(const struct spin_cfg *cfg, unsigned i, unsigned site)
{
	const char *name = cfg->locks[i].name;
	uint64_t h = fnv1a(FNV_BASIS, name, strlen(name));
	unsigned char s = (unsigned char)site;

	h = fnv1a(h, &s, 1);
	if (cfg->x86) {
		return module_base(cfg, name) + 0x1000u + h % 0x7E000u;
	}
	return module_base(cfg, name) + 0x1000u + h % 0x3F0000u;
}

/* Depth-first over the nesting graph: 0 ok, -ELOOP a cycle, -E2BIG too deep. */
static int walk(const struct spin_cfg *cfg, unsigned i, unsigned depth, uint8_t *state)
{
	const struct spin_lock_cfg *l = &cfg->locks[i];

	if (state[i] == 1) {
		return -ELOOP;
	}
	if (state[i] == 2 && depth == 0) {
		return 0;
	}
	if (depth >= SPIN_MAX_CHAIN) {
		return -E2BIG;
	}
	state[i] = 1;
	for (unsigned n = 0; n < l->nnested; n++) {
		int rc = walk(cfg, l->nested[n], depth + 1u, state);

		if (rc < 0) {
			state[i] = 2;
			return rc;
		}
	}
	state[i] = 2;
	return 0;
}

int spin_cfg_check(const struct spin_cfg *cfg, unsigned ngroups, const char **why, int *lock)
{
	uint8_t state[SPIN_MAX_LOCKS];
	const char *w;

	*lock = -1;
	if (cfg->nlocks > SPIN_MAX_LOCKS) {
		*why = "too many lock families";
		return -EINVAL;
	}
	if (spin_sampling_check(&cfg->sampling, &w) < 0) {
		*why = w;
		return -EINVAL;
	}
	for (unsigned i = 0; i < cfg->nlocks; i++) {
		const struct spin_lock_cfg *l = &cfg->locks[i];
		uint64_t weights = 0;

		*lock = (int)i;
		for (unsigned m = 0; m < SPIN_MODES; m++) {
			weights += l->mode_weight[m];
		}
		if (l->count < 1 || l->count > SPIN_MAX_COUNT) {
			*why = "count must be 1..4096";
		} else if (l->hold_ns < 1 || l->hold_ns > UINT64_C(1000000000)) {
			*why = "hold must be 1ns..1s";
		} else if (l->hold_tail_pct > 100) {
			*why = "hold_tail must be 0..100 percent";
		} else if (l->hold_tail_max_ns && l->hold_tail_max_ns < l->hold_ns) {
			*why = "hold_tail_max must be at least hold";
		} else if (l->hold_tail_max_ns > UINT64_C(1000000000)) {
			*why = "hold_tail_max must be at most 1s";
		} else if (weights == 0) {
			*why = "modes needs a weight above 0";
		} else if (l->rate > UINT64_C(1000000000)) {
			*why = "rate must be at most 10^9 per second";
		} else if (l->rate && !l->by_dpc && !l->by_isr && !l->groups) {
			*why = "taken_by names nobody, so the rate cannot be met";
		} else if (ngroups < 64 && (l->groups >> ngroups)) {
			*why = "taken_by names a thread group that does not exist";
		} else if (l->nnested > SPIN_MAX_NESTED) {
			*why = "nested takes at most 8 families";
		} else {
			*why = NULL;
		}
		for (unsigned n = 0; !*why && n < l->nnested; n++) {
			if (l->nested[n] >= cfg->nlocks) {
				*why = "nested names a lock that does not exist";
			}
		}
		if (*why) {
			return -EINVAL;
		}
	}
	memset(state, 0, sizeof(state));
	for (unsigned i = 0; i < cfg->nlocks; i++) {
		int rc = walk(cfg, i, 0, state);

		if (rc < 0) {
			*lock = (int)i;
			*why = rc == -ELOOP
				       ? "nested makes a cycle: a lock would be taken inside itself"
				       : "nested chains are at most 12 locks deep";
			return -EINVAL;
		}
	}
	*lock = -1;
	*why = NULL;
	return 0;
}

unsigned spin_lock_irql(const struct spin_cfg *cfg, unsigned i)
{
	/*
	 * A family is held at device IRQL if an ISR takes it, or if it is
	 * nested in one that is: marked from the ISR families down, one level
	 * of nesting per pass (chains are at most SPIN_MAX_CHAIN long).
	 */
	bool dev[SPIN_MAX_LOCKS];
	bool changed = true;

	for (unsigned j = 0; j < cfg->nlocks; j++) {
		dev[j] = cfg->locks[j].by_isr;
	}
	for (unsigned pass = 0; changed && pass <= SPIN_MAX_CHAIN; pass++) {
		changed = false;
		for (unsigned j = 0; j < cfg->nlocks; j++) {
			const struct spin_lock_cfg *l = &cfg->locks[j];

			for (unsigned n = 0; dev[j] && n < l->nnested; n++) {
				if (l->nested[n] < cfg->nlocks && !dev[l->nested[n]]) {
					dev[l->nested[n]] = true;
					changed = true;
				}
			}
		}
	}
	return i < cfg->nlocks && dev[i] ? SPIN_DEVICE_IRQL : SPIN_DISPATCH_LEVEL;
}
