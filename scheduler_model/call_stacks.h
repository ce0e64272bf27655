/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/call_stacks.h - the call stacks behind a sample, a switch
 * or a wake-up: from the function a thread is in, its callers up to the
 * thread's start, drawn from the address spaces (modules.h).
 *
 * A function's callers are a chain that depends on the function alone (its
 * caller is one function of its own image, chosen by a hash of the seed and
 * the function, the next one when that one is on the chain already; the
 * chain's length too), so the same function has the same call path in every
 * stack, as real code does, stacks that meet share their outer frames, and
 * no chain loops. A frame is a return address inside its function.
 * Shapes (the part each StackWalk record holds, STACK_IMAGE_FACTS 3.4):
 *
 *   user thread, user IP    user: IP, its chain, [the app function's chain
 *                           when the IP is in a system DLL],
 *                           BaseThreadInitThunk, RtlUserThreadStart
 *   user thread, kernel IP  kernel: IP, its chain, KiSystemServiceCopyEnd;
 *                           user: an ntdll system-call stub, a kernelbase
 *                           caller, the app function's chain, the two
 *                           thread-start frames
 *   system thread           kernel: IP, its chain, PspSystemThreadStartup
 *   a switched-in thread    the IP in KiSwapContext, called by the wait of
 *                           the thread (KeWaitForSingleObject,
 *                           NtWaitForSingleObject, NtReadFile or
 *                           NtDeviceIoControlFile, one per thread), its chain
 *   idle CPU's DPC          kernel: IP, its chain, KiRetireDpcList,
 *                           KiIdleLoop
 *
 * Depths: a chain is 2 to 18 callers in the kernel, 2 to 9 in a DLL and 4 to
 * 22 in the application, fewer when the image has fewer functions (the
 * PerfView sample's stack parts: kernel median 10 frames, user median 19,
 * at most 111); capped at STK_MAX_FRAMES.
 */
#ifndef SCHEDULER_MODEL_CALL_STACKS_H
#define SCHEDULER_MODEL_CALL_STACKS_H

#include <stdbool.h>
#include <stdint.h>

struct mod_cfg;

#define STK_NONE       UINT32_MAX /* no function */
#define STK_MAX_FRAMES 192u	  /* a StackWalk record's most (ETW_STACK_SW_ARRAY_SIZE) */

/* whose stack */
enum stk_who {
	STK_USER_THREAD,   /* a thread of a user process */
	STK_SYSTEM_THREAD, /* a thread of System (kernel frames only) */
	STK_IDLE_DPC,	   /* a DPC on an idle CPU (kernel frames only) */
};

/** struct stk_walk - the two parts of one stack, innermost frame first. */
struct stk_walk {
	uint64_t kernel[STK_MAX_FRAMES];
	unsigned nk;
	uint64_t user[STK_MAX_FRAMES];
	unsigned nu;
};

struct stk_paths;

/**
 * stk_new - the fixed frames of every address space of @c (its @nprocesses
 * processes: thread starts, system-call stubs), found once. @c is borrowed
 * for the paths' life. Return: the paths, or NULL (out of memory).
 */
struct stk_paths *stk_new(const struct mod_cfg *c, unsigned nprocesses);

void stk_free(struct stk_paths *p);

/**
 * stk_build - the stack of a thread of process @pi (its index in the
 * address spaces) stopped at @ip in function @fn (STK_NONE: @ip alone, or
 * no stack when @ip is 0), called by @via (a kernel function; STK_NONE:
 * @fn's own caller), whose own code is @app (a user function of its
 * process; STK_NONE: none, the stack ends in the IP's own image). A
 * function's chain is found the first time and kept: memory grows with the
 * functions met, not with time.
 */
void stk_build(struct stk_paths *p, unsigned pi, enum stk_who who, uint32_t fn, uint32_t via,
	       uint64_t ip, uint32_t app, struct stk_walk *w);

/**
 * stk_kernel_fn - a named function of the kernel ("KiSwapContext"), or
 * STK_NONE.
 */
uint32_t stk_kernel_fn(const struct stk_paths *p, const char *name);

#endif /* SCHEDULER_MODEL_CALL_STACKS_H */
