/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_names.h - the names of the kernel enumerations a CSwitch
 * carries (etw_names.c): KWAIT_REASON (OldThreadWaitReason) and
 * KTHREAD_STATE (OldThreadState), as Windows' headers and WPA name them.
 */
#ifndef PRODUCER_ETW_NAMES_H
#define PRODUCER_ETW_NAMES_H

/** etw_wait_reason_name - "Executive", "WrQueue", ... (KWAIT_REASON 0..42), "?" else. */
const char *etw_wait_reason_name(unsigned reason);

/** etw_wait_reason_count - the wait reasons etw_wait_reason_name() knows (43). */
unsigned etw_wait_reason_count(void);

/** etw_thread_state_name - "Initialized", "Ready", ... (KTHREAD_STATE 0..9), "?" else. */
const char *etw_thread_state_name(unsigned state);

#endif /* PRODUCER_ETW_NAMES_H */
