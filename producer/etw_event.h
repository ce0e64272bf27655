/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_event.h - which trace header each identity and rundown event
 * is written with (PERFINFO, full SYSTEM or compact SYSTEM, and the marker's
 * version byte), per target build, and writing / reading that header in
 * front of a payload whose length is known.
 */
#ifndef PRODUCER_ETW_EVENT_H
#define PRODUCER_ETW_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "producer/targets.h"
#include "writer/etl_layout.h"

/* enum etw_header_form - the three system header forms (RUNDOWN_FACTS 1.1). */
enum etw_header_form {
	ETW_HEADER_PERFINFO = 1, /* 0x10: Marker, Size, HookId, TS */
	ETW_HEADER_SYSTEM = 2,	 /* 0x20: + ThreadId, ProcessId, KernelTime, UserTime */
	ETW_HEADER_COMPACT = 3,	 /* 0x18: SYSTEM without Kernel/UserTime */
};

/** struct etw_event_form - a header form and the event version (the Marker's low byte). */
struct etw_event_form {
	enum etw_header_form header;
	uint8_t version;
};

/**
 * struct etw_event_ctx - what the header says besides the framing.
 * @ts:          SystemTime / TS, in the session clock's units
 * @thread_id:   SYSTEM/COMPACT only: the thread the event is logged in the
 *               context of (RUNDOWN_FACTS 1.3: the enumerated thread for
 *               Thread DCStart/DCEnd/End, the creating thread for Thread
 *               and Process Start, the last thread for Process End, the
 *               controller thread for rundown, interval and config events)
 * @process_id:  that thread's process
 * @kernel_time: SYSTEM only: that thread's kernel time, in TimerResolution
 *               ticks (15.625 ms at 156250)
 * @user_time:   the same for user time
 */
struct etw_event_ctx {
	uint64_t ts;
	uint32_t thread_id;
	uint32_t process_id;
	uint32_t kernel_time;
	uint32_t user_time;
};

/** etw_header_form_len - 0x10, 0x20 or 0x18; 0 for a value outside the enum. */
size_t etw_header_form_len(enum etw_header_form header);

/**
 * etw_event_form_for - the header form and version @t writes @hook with
 * (the table atop etw_event.c). No extended items (PEBS/PMC) are attached.
 * Return: 0 and *@out set, or -ENOENT for a hook not in the table.
 */
int etw_event_form_for(const struct etw_target *t, uint16_t hook, struct etw_event_form *out);

/**
 * etw_image_form - etw_event_form_for() for an image record, with the two
 * rundown forms (STACK_IMAGE_FACTS 2.3): DCStart/DCEnd of a kernel module
 * (@kernel_module, payload PID 0) is SYSTEM (the thread running the
 * rundown), of an image mapped in a process PERFINFO. Return: as
 * etw_event_form_for().
 */
int etw_image_form(const struct etw_target *t, uint16_t hook, bool kernel_module,
		   struct etw_event_form *out);

/**
 * etw_encode_event_header - write the header of an event of @payload_len
 * payload bytes: Size = header + payload (not rounded). The payload goes
 * at @buf + the returned length.
 * Return: the header's length, -EINVAL (bad form or arch), -E2BIG (Size
 * above 0xFFFF), -ENOSPC (@cap below header + payload). Nothing is written
 * on failure.
 */
int etw_encode_event_header(uint8_t *buf, size_t cap, enum etl_arch arch, uint16_t hook,
			    struct etw_event_form form, size_t payload_len,
			    const struct etw_event_ctx *ctx);

/**
 * struct etw_event_header - a decoded header (@ctx's fields the form does
 * not carry are 0).
 */
struct etw_event_header {
	enum etl_arch arch;
	struct etw_event_form form;
	uint16_t hook;
	uint16_t size;
	struct etw_event_ctx ctx;
};

/**
 * etw_decode_event_header - read a PERFINFO (without extended items), SYSTEM
 * or compact SYSTEM header.
 * Return: the header's length (the payload is the next Size - that many
 * bytes), or -EINVAL: short, another header type, PEBS/PMC items, or Size
 * below the header or above @len.
 */
int etw_decode_event_header(const uint8_t *buf, size_t len, struct etw_event_header *h);

#endif /* PRODUCER_ETW_EVENT_H */
