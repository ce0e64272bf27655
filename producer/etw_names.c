// SPDX-License-Identifier: MIT
/*
 * producer/etw_names.c - the names of KWAIT_REASON and KTHREAD_STATE (see
 * etw_names.h): what the CSwitch's OldThreadWaitReason and OldThreadState
 * mean, once for the scenario parser, the readers and the analysis.
 */
#include "producer/etw_names.h"

/* KWAIT_REASON (wdm.h; the current 43-entry enum). */
static const char *const wait_reason_names[] = {
	"Executive",
	"FreePage",
	"PageIn",
	"PoolAllocation",
	"DelayExecution",
	"Suspended",
	"UserRequest",
	"WrExecutive",
	"WrFreePage",
	"WrPageIn",
	"WrPoolAllocation",
	"WrDelayExecution",
	"WrSuspended",
	"WrUserRequest",
	"WrEventPair",
	"WrQueue",
	"WrLpcReceive",
	"WrLpcReply",
	"WrVirtualMemory",
	"WrPageOut",
	"WrRendezvous",
	"WrKeyedEvent",
	"WrTerminated",
	"WrProcessInSwap",
	"WrCpuRateControl",
	"WrCalloutStack",
	"WrKernel",
	"WrResource",
	"WrPushLock",
	"WrMutex",
	"WrQuantumEnd",
	"WrDispatchInt",
	"WrPreempted",
	"WrYieldExecution",
	"WrFastMutex",
	"WrGuardedMutex",
	"WrRundown",
	"WrAlertByThreadId",
	"WrDeferredPreempt",
	"WrPhysicalFault",
	"WrIoRing",
	"WrMdlCache",
	"WrRcu",
};

#define N_REASONS (sizeof(wait_reason_names) / sizeof(wait_reason_names[0]))

/* KTHREAD_STATE (ntddk.h's KTHREAD_STATE, Windows Internals). */
static const char *const thread_state_names[] = {
	"Initialized", "Ready",	     "Running",	      "Standby",  "Terminated",
	"Waiting",     "Transition", "DeferredReady", "GateWait", "WaitingForProcessInSwap",
};

const char *etw_wait_reason_name(unsigned reason)
{
	return reason < N_REASONS ? wait_reason_names[reason] : "?";
}

unsigned etw_wait_reason_count(void)
{
	return (unsigned)N_REASONS;
}

const char *etw_thread_state_name(unsigned state)
{
	return state < sizeof(thread_state_names) / sizeof(thread_state_names[0])
		       ? thread_state_names[state]
		       : "?";
}
