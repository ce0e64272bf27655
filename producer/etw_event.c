// SPDX-License-Identifier: MIT
/*
 * producer/etw_event.c - the header each identity and rundown event is
 * written with, and that header both ways (see etw_event.h).
 *
 * The forms, from the records of two Windows samples (RUNDOWN_FACTS 1.2:
 * 9200 and 18362, x64) and, where no sample has the event, our choice:
 *
 *   hook          event                       header    version
 *   0x0301/0302   Process Start / End         SYSTEM    4
 *   0x0303/0304   Process DCStart / DCEnd     PERFINFO  4
 *   0x0327        Process Defunct             PERFINFO  target (4, or 5 +ExitTime)
 *   0x030B        Process Terminate           SYSTEM    2
 *   0x0501-0504   Thread Start/End/DCStart/DCEnd SYSTEM target (3)
 *   0x0548        ThreadSetName               PERFINFO  2   inferred: a reader
 *                                                           asserts ProcessId -1
 *   0x0532        ReadyThread                 SYSTEM    2   CHOICE: unknown;
 *                 readers take the readying thread from the header's ThreadId,
 *                 so not PERFINFO; full rather than compact, the form every
 *                 thread-group event of the samples has
 *   0x0F2E        SampledProfile              PERFINFO  2
 *   0x0F48        profile SetInterval         SYSTEM    3   CHOICE: unknown; the
 *                 form of its siblings 0x0F49/0x0F4A (v3 carries SourceName)
 *   0x0F49/0F4A   profile interval DCStart/End SYSTEM   3
 *   0x0B0A        SystemConfig CPU            SYSTEM    3
 *   0x0005/0020   group masks (data buffers)  PERFINFO  2
 *   0x0008        rundown complete            PERFINFO  2   (no payload)
 *   0x030A/1402   Image Load / Unload         SYSTEM    target (2, or 3)
 *   0x1403/1404   Image DCStart / DCEnd       PERFINFO  target   a process's
 *                 images; a kernel module's (PID 0) are SYSTEM: etw_image_form()
 *   0x1421/1422   KernelBase / HypercallPage  PERFINFO  2
 *   0x1820-1826   StackWalk and stack keys    PERFINFO  2
 *
 * The header buffer's own 0x0005 is SYSTEM (writer/etl_header.c), not this.
 */
#include <errno.h>
#include <string.h>

#include "producer/etw_event.h"
#include "producer/etw_layout.h"
#include "writer/etl_trace_header.h"
#include "writer/etl_wire.h"

/* Where a row's version comes from. */
enum version_from {
	FIXED,	 /* the row's own */
	DEFUNCT, /* etw_target.defunct_version */
	THREAD,	 /* etw_target.thread_version */
	IMAGE,	 /* etw_target.image_version */
};

struct form_row {
	uint16_t hook;
	enum etw_header_form header;
	enum version_from from;
	uint8_t version;
};

/* clang-format off */
static const struct form_row forms[] = {
	/* the records of every few microseconds first: looked up for each record */
	{ETW_HOOK_STACK_WALK,            ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_STACK_WALK},
	{ETW_HOOK_SAMPLED_PROFILE,       ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_SAMPLED_PROFILE},
	{ETW_HOOK_READY_THREAD,          ETW_HEADER_SYSTEM,   FIXED,   ETW_VERSION_READY_THREAD},
	/* the rest */
	{ETW_HOOK_PROCESS_START,         ETW_HEADER_SYSTEM,   FIXED,   ETW_PROCESS_VERSION},
	{ETW_HOOK_PROCESS_END,           ETW_HEADER_SYSTEM,   FIXED,   ETW_PROCESS_VERSION},
	{ETW_HOOK_PROCESS_DC_START,      ETW_HEADER_PERFINFO, FIXED,   ETW_PROCESS_VERSION},
	{ETW_HOOK_PROCESS_DC_END,        ETW_HEADER_PERFINFO, FIXED,   ETW_PROCESS_VERSION},
	{ETW_HOOK_PROCESS_DEFUNCT,       ETW_HEADER_PERFINFO, DEFUNCT, 0},
	{ETW_HOOK_PROCESS_TERMINATE,     ETW_HEADER_SYSTEM,   FIXED,   ETW_VERSION_PROCESS_TERMINATE},
	{ETW_HOOK_THREAD_START,          ETW_HEADER_SYSTEM,   THREAD,  0},
	{ETW_HOOK_THREAD_END,            ETW_HEADER_SYSTEM,   THREAD,  0},
	{ETW_HOOK_THREAD_DC_START,       ETW_HEADER_SYSTEM,   THREAD,  0},
	{ETW_HOOK_THREAD_DC_END,         ETW_HEADER_SYSTEM,   THREAD,  0},
	{ETW_HOOK_THREAD_SET_NAME,       ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_THREAD_SET_NAME},
	{ETW_HOOK_PROFILE_SET_INTERVAL,  ETW_HEADER_SYSTEM,   FIXED,   ETW_VERSION_PROFILE_INTERVAL},
	{ETW_HOOK_PROFILE_INTERVAL_DC_S, ETW_HEADER_SYSTEM,   FIXED,   ETW_VERSION_PROFILE_INTERVAL},
	{ETW_HOOK_PROFILE_INTERVAL_DC_E, ETW_HEADER_SYSTEM,   FIXED,   ETW_VERSION_PROFILE_INTERVAL},
	{ETW_HOOK_SYSCONFIG_CPU,         ETW_HEADER_SYSTEM,   FIXED,   ETW_VERSION_SYSCONFIG_CPU},
	{ETL_HOOK_HEADER_EXTENSION,      ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_GROUP_MASKS},
	{ETW_HOOK_GROUP_MASKS_END,       ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_GROUP_MASKS},
	{ETW_HOOK_RUNDOWN_COMPLETE,      ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_GROUP_MASKS},
	{ETW_HOOK_IMAGE_LOAD,            ETW_HEADER_SYSTEM,   IMAGE,   0},
	{ETW_HOOK_IMAGE_UNLOAD,          ETW_HEADER_SYSTEM,   IMAGE,   0},
	{ETW_HOOK_IMAGE_DC_START,        ETW_HEADER_PERFINFO, IMAGE,   0},
	{ETW_HOOK_IMAGE_DC_END,          ETW_HEADER_PERFINFO, IMAGE,   0},
	{ETW_HOOK_IMAGE_KERNEL_BASE,     ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_IMAGE_SINGLETON},
	{ETW_HOOK_IMAGE_HYPERCALL,       ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_IMAGE_SINGLETON},
	{ETW_HOOK_STACK_KEY_CREATE,      ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_STACK_WALK},
	{ETW_HOOK_STACK_KEY_DELETE,      ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_STACK_WALK},
	{ETW_HOOK_STACK_KEY_RUNDOWN,     ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_STACK_WALK},
	{ETW_HOOK_STACK_KEY_KERNEL,      ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_STACK_WALK},
	{ETW_HOOK_STACK_KEY_USER,        ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_STACK_WALK},
	{ETW_HOOK_THREADED_DPC,          ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_DPC},
	{ETW_HOOK_ISR,                   ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_DPC},
	{ETW_HOOK_DPC,                   ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_DPC},
	{ETW_HOOK_TIMER_DPC,             ETW_HEADER_PERFINFO, FIXED,   ETW_VERSION_DPC},
};
/* clang-format on */

size_t etw_header_form_len(enum etw_header_form header)
{
	switch (header) {
	case ETW_HEADER_PERFINFO:
		return ETL_TH_LEN;
	case ETW_HEADER_SYSTEM:
		return ETL_SH_LEN;
	case ETW_HEADER_COMPACT:
		return ETL_COMPACT_SH_LEN;
	default:
		return 0;
	}
}

int etw_event_form_for(const struct etw_target *t, uint16_t hook, struct etw_event_form *out)
{
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const struct form_row *r = &forms[i];

		if (r->hook != hook) {
			continue;
		}
		out->header = r->header;
		out->version = r->from == DEFUNCT  ? t->defunct_version
			       : r->from == THREAD ? t->thread_version
			       : r->from == IMAGE  ? t->image_version
						   : r->version;
		return 0;
	}
	return -ENOENT;
}

int etw_image_form(const struct etw_target *t, uint16_t hook, bool kernel_module,
		   struct etw_event_form *out)
{
	int r = etw_event_form_for(t, hook, out);

	if (r == 0 && kernel_module &&
	    (hook == ETW_HOOK_IMAGE_DC_START || hook == ETW_HOOK_IMAGE_DC_END)) {
		out->header = ETW_HEADER_SYSTEM;
	}
	return r;
}

int etw_encode_event_header(uint8_t *buf, size_t cap, enum etl_arch arch, uint16_t hook,
			    struct etw_event_form form, size_t payload_len,
			    const struct etw_event_ctx *ctx)
{
	size_t hlen = etw_header_form_len(form.header);
	size_t size = hlen + payload_len;

	if (hlen == 0 || (arch != ETL_ARCH_X64 && arch != ETL_ARCH_X86)) {
		return -EINVAL;
	}
	if (payload_len > ETL_MAX_EVENT_SIZE || size > ETL_MAX_EVENT_SIZE) {
		return -E2BIG;
	}
	if (cap < size) {
		return -ENOSPC;
	}
	if (form.header == ETW_HEADER_PERFINFO) {
		const struct etl_perfinfo_header h = {
			.arch = arch,
			.version = form.version,
			.size = (uint16_t)size,
			.hook_id = hook,
			.ts = ctx->ts,
		};

		return etl_encode_perfinfo_header(buf, cap, &h);
	}
	const struct etl_system_header h = {
		.arch = arch,
		.version = form.version,
		.size = (uint16_t)size,
		.hook_id = hook,
		.thread_id = ctx->thread_id,
		.process_id = ctx->process_id,
		.ts = ctx->ts,
		.kernel_time = ctx->kernel_time,
		.user_time = ctx->user_time,
	};
	return form.header == ETW_HEADER_SYSTEM ? etl_encode_system_header(buf, cap, &h)
						: etl_encode_compact_header(buf, cap, &h);
}

int etw_decode_event_header(const uint8_t *buf, size_t len, struct etw_event_header *h)
{
	struct etw_event_header out;
	struct etl_system_header sh;
	struct etl_perfinfo_header ph;
	unsigned type;
	int n;

	if (len < ETL_TH_LEN) {
		return -EINVAL;
	}
	memset(&out, 0, sizeof(out));
	type = (get_le32(buf + ETL_TH_MARKER) & ETL_MARKER_TYPE_MASK) >> ETL_MARKER_TYPE_SHIFT;
	switch (type) {
	case ETL_HT_PERFINFO32:
	case ETL_HT_PERFINFO64:
		n = etl_decode_perfinfo_header(buf, len, &ph);
		if (n < 0 || ph.has_pebs || ph.pmc_count) {
			return -EINVAL;
		}
		out.arch = ph.arch;
		out.form = (struct etw_event_form){ETW_HEADER_PERFINFO, ph.version};
		out.hook = ph.hook_id;
		out.size = ph.size;
		out.ctx.ts = ph.ts;
		break;
	case ETL_HT_SYSTEM32:
	case ETL_HT_SYSTEM64:
	case ETL_HT_COMPACT32:
	case ETL_HT_COMPACT64:
		if (type == ETL_HT_SYSTEM32 || type == ETL_HT_SYSTEM64) {
			n = etl_decode_system_header(buf, len, &sh);
		} else {
			n = etl_decode_compact_header(buf, len, &sh);
		}
		if (n < 0) {
			return -EINVAL;
		}
		out.arch = sh.arch;
		out.form.header = n == ETL_SH_LEN ? ETW_HEADER_SYSTEM : ETW_HEADER_COMPACT;
		out.form.version = sh.version;
		out.hook = sh.hook_id;
		out.size = sh.size;
		out.ctx = (struct etw_event_ctx){sh.ts, sh.thread_id, sh.process_id, sh.kernel_time,
						 sh.user_time};
		break;
	default:
		return -EINVAL;
	}
	if (out.size < (size_t)n || out.size > len) {
		return -EINVAL;
	}
	*h = out;
	return n;
}
