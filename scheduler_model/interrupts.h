/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/interrupts.h - where the machine's DPCs and interrupt
 * service routines run: the kernel's timer DPC (ntoskrnl's
 * KiTimerExpiration), the kernel modules' DPC routines and ISRs (each
 * driver of the address spaces: its first function is its DPC, its second
 * its ISR, with a device vector of its own), and the HAL's clock interrupt
 * when no driver is there. The identity model draws from them for samples
 * taken in a DPC or an ISR and for the DPC / TimerDPC / ISR records.
 *
 * Plain data built once from the address spaces (or fixed kernel
 * addresses when there are none), so replay and verify see the same.
 */
#ifndef SCHEDULER_MODEL_INTERRUPTS_H
#define SCHEDULER_MODEL_INTERRUPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "scheduler_model/modules.h"

#define IRQ_MAX_ROUTINES  16
#define IRQ_NO_FN	  UINT32_MAX /* no function of the address spaces (call_stacks.h's STK_NONE) */
#define IRQ_CLOCK_VECTOR  0xD1u	     /* x64's clock interrupt (x86: 0xD1 too on Windows 8 on) */
#define IRQ_DEVICE_VECTOR 0x60u	     /* the first driver's vector; the next ones 8 apart */

/**
 * struct irq_routine - one routine.
 * @addr:   its address (the function's hot instruction)
 * @fn:     its function in the address spaces, IRQ_NO_FN without them
 * @vector: an ISR's interrupt vector (0 for a DPC)
 */
struct irq_routine {
	uint64_t addr;
	uint32_t fn;
	uint16_t vector;
};

/**
 * struct irq_routines - every routine of the machine.
 * @timer:      the timer DPC (KiTimerExpiration)
 * @clock:      the clock interrupt (the HAL's HalpTimerClockInterrupt, vector
 *              IRQ_CLOCK_VECTOR): what a timer's expiry follows
 * @dpc/@ndpc:  the drivers' DPC routines (none: the timer DPC stands in)
 * @isr/@nisr:  the ISRs: the drivers', else the HAL's clock interrupt
 * @drivers:    whether the address spaces have driver modules
 */
struct irq_routines {
	struct irq_routine timer;
	struct irq_routine clock;
	struct irq_routine dpc[IRQ_MAX_ROUTINES];
	unsigned ndpc;
	struct irq_routine isr[IRQ_MAX_ROUTINES];
	unsigned nisr;
	bool drivers;
};

/**
 * irq_routines_init - the routines of address spaces @c (NULL: fixed
 * addresses in the kernel's text, x64 or x86 by @ptr64). Always at least
 * one DPC and one ISR.
 */
void irq_routines_init(struct irq_routines *r, const struct mod_cfg *c, bool ptr64);

#endif /* SCHEDULER_MODEL_INTERRUPTS_H */
