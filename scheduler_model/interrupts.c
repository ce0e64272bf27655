// SPDX-License-Identifier: MIT
/*
 * scheduler_model/interrupts.c - the machine's DPC routines and ISRs
 * (interrupts.h), found in its address spaces.
 */
#include <string.h>

#include "scheduler_model/interrupts.h"

/* Without address spaces: the kernel's text (identity.c's X64_KCODE / X86_KCODE) */
#define X64_KCODE 0xFFFFF80000200000ull
#define X86_KCODE 0x82000000u

static struct irq_routine at(const struct mod_cfg *c, uint32_t fn, uint16_t vector)
{
	struct irq_routine r = {mod_fn_address(c, fn) + c->functions[fn].hot, fn, vector};

	return r;
}

/* Function @name of kernel module @image, or IRQ_NO_FN. */
static uint32_t kernel_fn(const struct mod_cfg *c, const char *image, const char *name)
{
	int i = mod_find_image(c, MOD_SYSTEM, true, image);
	int f = i < 0 ? -1 : mod_find_function(c, (uint32_t)i, name);

	return f < 0 ? IRQ_NO_FN : (uint32_t)f;
}

static void fixed(struct irq_routines *r, bool ptr64)
{
	uint64_t k = ptr64 ? X64_KCODE : X86_KCODE;

	r->timer = (struct irq_routine){k + 0x2A0140u, IRQ_NO_FN, 0};
	r->dpc[r->ndpc++] = r->timer;
	r->clock = (struct irq_routine){k + 0x9C0080u, IRQ_NO_FN, IRQ_CLOCK_VECTOR};
	r->isr[r->nisr++] = r->clock;
}

void irq_routines_init(struct irq_routines *r, const struct mod_cfg *c, bool ptr64)
{
	uint32_t f;

	memset(r, 0, sizeof(*r));
	if (!c) {
		fixed(r, ptr64);
		return;
	}
	f = kernel_fn(c, "ntoskrnl.exe", "KiTimerExpiration");
	if (f == IRQ_NO_FN) {
		fixed(r, ptr64);
		return;
	}
	r->timer = at(c, f, 0);
	{
		uint32_t clk = kernel_fn(c, "hal.dll", "HalpTimerClockInterrupt");

		r->clock = clk != IRQ_NO_FN
				   ? at(c, clk, IRQ_CLOCK_VECTOR)
				   : (struct irq_routine){r->timer.addr, f, IRQ_CLOCK_VECTOR};
	}
	for (uint32_t i = 0; i < c->nimages && r->ndpc < IRQ_MAX_ROUTINES; i++) {
		const struct mod_image *im = &c->images[i];

		if (!im->kernel || im->nfn == 0 || !strcmp(im->name, "ntoskrnl.exe") ||
		    !strcmp(im->name, "hal.dll")) {
			continue;
		}
		r->dpc[r->ndpc] = at(c, im->first_fn, 0);
		r->isr[r->nisr] = at(c, im->first_fn + (im->nfn > 1 ? 1u : 0u),
				     (uint16_t)(IRQ_DEVICE_VECTOR + 8u * r->nisr));
		r->ndpc++;
		r->nisr++;
	}
	r->drivers = r->ndpc > 0;
	if (!r->drivers) {
		r->dpc[r->ndpc++] = r->timer;
		r->isr[r->nisr++] = r->clock;
	}
}
