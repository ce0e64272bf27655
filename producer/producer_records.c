// SPDX-License-Identifier: MIT
/*
 * producer/producer_records.c - producer_record(): the identity and rundown
 * records (Process, Thread, ThreadSetName, ReadyThread, SampledProfile, the
 * profile interval, SystemConfig CPU, the group masks, rundown complete)
 * into the buffers of the sessions that asked for them.
 *
 *   sim_record --> payload encoded once (the masks: per session, they are
 *                  each session's own) --> for each session whose flags
 *                  want it: header of the target's form (etw_event.c) with
 *                  the session's clock, into the record's CPU buffer
 *
 *   who gets what: process, thread, thread_name   proc_thread sessions
 *                  ready                          dispatcher sessions
 *                  sample, interval               profile sessions
 *                  image                          loader sessions (a merged
 *                                                 one: its KernelTraceControl
 *                                                 identity first)
 *                  stack                          sessions whose stacks name
 *                                                 its event (EventTimeStamp in
 *                                                 each one's clock)
 *                  dpc                            dpc sessions (an ISR's:
 *                                                 interrupt ones; InitialTime
 *                                                 in each one's clock)
 *                  masks, rundown                 proc_thread, profile or loader
 *                  cpu_config                     every session
 *
 * Not a hot path (a few records per thread, one per wake-up or sample): the
 * payload goes through a stack buffer, and strings are transcoded here.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "producer/etw_event.h"
#include "producer/etw_image.h"
#include "producer/etw_ktc.h"
#include "producer/etw_dpc.h"
#include "producer/etw_process.h"
#include "producer/etw_profile.h"
#include "producer/etw_rundown.h"
#include "producer/etw_stack.h"
#include "producer/stack_cache.h"
#include "producer/etw_sysconfig.h"
#include "producer/etw_thread.h"
#include "producer/producer_internal.h"
#include "writer/etl_trace_header.h"

#define PAYLOAD_MAX 16384u /* the largest payload we build (a long command line) */
#define TEXT_MAX    8192u  /* UTF-16 bytes of one string */

unsigned producer_record_flags(enum sim_record_kind kind)
{
	switch (kind) {
	case SIM_REC_PROCESS:
	case SIM_REC_THREAD:
	case SIM_REC_THREAD_NAME:
		return PRODUCER_F_PROC_THREAD;
	case SIM_REC_READY:
		return PRODUCER_F_DISPATCHER;
	case SIM_REC_SAMPLE:
	case SIM_REC_INTERVAL:
		return PRODUCER_F_PROFILE;
	case SIM_REC_IMAGE:
		return PRODUCER_F_LOADER;
	case SIM_REC_STACK:
		return PRODUCER_F_STACKS;
	case SIM_REC_DPC:
		return PRODUCER_F_DPC | PRODUCER_F_INTERRUPT;
	case SIM_REC_MASKS:
	case SIM_REC_RUNDOWN:
		return PRODUCER_F_PROC_THREAD | PRODUCER_F_PROFILE | PRODUCER_F_LOADER;
	default:
		return ~0u; /* cpu_config: every session */
	}
}

/* PERFINFO_GROUPMASK: the top 3 bits of a PERF_ mask pick the dword. */
static void groupmask_set(uint32_t masks[ETW_GROUP_MASKS], uint32_t perf_mask)
{
	masks[perf_mask >> 29] |= perf_mask & 0x1FFFFFFFu;
}

unsigned producer_stack_flag(enum sim_event ev)
{
	switch (ev) {
	case SIM_EVENT_PROFILE:
		return PRODUCER_F_STACK_PROFILE;
	case SIM_EVENT_CSWITCH:
		return PRODUCER_F_STACK_CSWITCH;
	case SIM_EVENT_READY_THREAD:
		return PRODUCER_F_STACK_READY;
	default:
		return 0;
	}
}

unsigned producer_dpc_flag(enum sim_event ev)
{
	switch (ev) {
	case SIM_EVENT_DPC:
	case SIM_EVENT_TIMER_DPC:
	case SIM_EVENT_THREADED_DPC:
		return PRODUCER_F_DPC;
	case SIM_EVENT_ISR:
		return PRODUCER_F_INTERRUPT;
	default:
		return 0;
	}
}

int producer_stack_frames(const char *text, bool x86, uint64_t *out, size_t cap)
{
	const char *p = text;
	size_t n = 0;

	if (!p || !*p) {
		return -EINVAL;
	}
	for (;;) {
		uint64_t v = 0;
		unsigned digits = 0;

		if (p[0] != '0' || p[1] != 'x' || n == cap) {
			return -EINVAL;
		}
		for (p += 2; isxdigit((unsigned char)*p); p++, digits++) {
			unsigned d = (unsigned)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);

			if (v >> 60) {
				return -EINVAL;
			}
			v = v << 4 | d;
		}
		if (!digits || (x86 && v > UINT32_MAX)) {
			return -EINVAL;
		}
		out[n++] = v;
		if (!*p) {
			return (int)n;
		}
		if (*p != ' ' || p[1] == ' ') {
			return -EINVAL;
		}
		p++;
	}
}

void producer_group_masks(unsigned flags, uint32_t masks[ETW_GROUP_MASKS])
{
	memset(masks, 0, sizeof(uint32_t) * ETW_GROUP_MASKS);
	if (flags & PRODUCER_F_PROC_THREAD) {
		groupmask_set(masks, 0x00000003u); /* PERF_PROCESS | PERF_THREAD */
	}
	if (flags & PRODUCER_F_LOADER) {
		groupmask_set(masks, 0x00000004u); /* PERF_LOADER */
	}
	if (flags & PRODUCER_F_PROFILE) {
		groupmask_set(masks, 0x20000002u); /* PERF_PROFILE */
	}
	if (flags & PRODUCER_F_CSWITCH) {
		groupmask_set(masks, 0x20000004u); /* PERF_CONTEXT_SWITCH */
	}
	if (flags & PRODUCER_F_COMPACT) {
		groupmask_set(masks, 0x20000100u); /* PERF_COMPACT_CSWITCH */
	}
	if (flags & PRODUCER_F_DISPATCHER) {
		groupmask_set(masks, 0x20000200u); /* PERF_DISPATCHER */
	}
	if (flags & PRODUCER_F_SPINLOCK) {
		groupmask_set(masks, 0x20010000u); /* PERF_SPINLOCK */
	}
	if (flags & PRODUCER_F_DPC) {
		groupmask_set(masks, 0x20000080u); /* PERF_DPC */
	}
	if (flags & PRODUCER_F_INTERRUPT) {
		groupmask_set(masks, 0x20004000u); /* PERF_INTERRUPT */
	}
}

uint16_t producer_record_hook(enum sim_record_kind kind, enum sim_event ev)
{
	static const uint16_t process[SIM_EVENTS] = {
		[SIM_EVENT_START] = ETW_HOOK_PROCESS_START,
		[SIM_EVENT_END] = ETW_HOOK_PROCESS_END,
		[SIM_EVENT_DCSTART] = ETW_HOOK_PROCESS_DC_START,
		[SIM_EVENT_DCEND] = ETW_HOOK_PROCESS_DC_END,
		[SIM_EVENT_DEFUNCT] = ETW_HOOK_PROCESS_DEFUNCT,
	};
	static const uint16_t thread[SIM_EVENTS] = {
		[SIM_EVENT_START] = ETW_HOOK_THREAD_START,
		[SIM_EVENT_END] = ETW_HOOK_THREAD_END,
		[SIM_EVENT_DCSTART] = ETW_HOOK_THREAD_DC_START,
		[SIM_EVENT_DCEND] = ETW_HOOK_THREAD_DC_END,
	};
	static const uint16_t interval[SIM_EVENTS] = {
		[SIM_EVENT_SET] = ETW_HOOK_PROFILE_SET_INTERVAL,
		[SIM_EVENT_DCSTART] = ETW_HOOK_PROFILE_INTERVAL_DC_S,
		[SIM_EVENT_DCEND] = ETW_HOOK_PROFILE_INTERVAL_DC_E,
	};
	static const uint16_t masks[SIM_EVENTS] = {
		[SIM_EVENT_NEW] = ETL_HOOK_HEADER_EXTENSION,
		[SIM_EVENT_END] = ETW_HOOK_GROUP_MASKS_END,
	};
	static const uint16_t image[SIM_EVENTS] = {
		[SIM_EVENT_LOAD] = ETW_HOOK_IMAGE_LOAD,
		[SIM_EVENT_UNLOAD] = ETW_HOOK_IMAGE_UNLOAD,
		[SIM_EVENT_DCSTART] = ETW_HOOK_IMAGE_DC_START,
		[SIM_EVENT_DCEND] = ETW_HOOK_IMAGE_DC_END,
		[SIM_EVENT_KERNEL_BASE] = ETW_HOOK_IMAGE_KERNEL_BASE,
		[SIM_EVENT_HYPERCALL_PAGE] = ETW_HOOK_IMAGE_HYPERCALL,
	};
	static const uint16_t dpc[SIM_EVENTS] = {
		[SIM_EVENT_DPC] = ETW_HOOK_DPC,
		[SIM_EVENT_TIMER_DPC] = ETW_HOOK_TIMER_DPC,
		[SIM_EVENT_THREADED_DPC] = ETW_HOOK_THREADED_DPC,
		[SIM_EVENT_ISR] = ETW_HOOK_ISR,
	};
	bool evok = (unsigned)ev < SIM_EVENTS;

	switch (kind) {
	case SIM_REC_PROCESS:
		return evok ? process[ev] : 0;
	case SIM_REC_THREAD:
		return evok ? thread[ev] : 0;
	case SIM_REC_THREAD_NAME:
		return ETW_HOOK_THREAD_SET_NAME;
	case SIM_REC_READY:
		return ETW_HOOK_READY_THREAD;
	case SIM_REC_SAMPLE:
		return ETW_HOOK_SAMPLED_PROFILE;
	case SIM_REC_INTERVAL:
		return evok ? interval[ev] : 0;
	case SIM_REC_CPU_CONFIG:
		return ETW_HOOK_SYSCONFIG_CPU;
	case SIM_REC_MASKS:
		return evok ? masks[ev] : 0;
	case SIM_REC_RUNDOWN:
		return ETW_HOOK_RUNDOWN_COMPLETE;
	case SIM_REC_IMAGE:
		return evok ? image[ev] : 0;
	case SIM_REC_DPC:
		return evok ? dpc[ev] : 0;
	default:
		return 0;
	}
}

int producer_image_form(const struct etw_target *t, const struct sim_image *im,
			struct etw_event_form *form)
{
	uint16_t hook = producer_record_hook(SIM_REC_IMAGE, im->event);

	if (!hook) {
		return -EINVAL;
	}
	return etw_image_form(t, hook, im->pid == 0, form);
}

int producer_image_payload(const struct etw_target *t, const struct sim_image *im,
			   struct etw_image *w)
{
	bool rundown = im->event == SIM_EVENT_DCSTART || im->event == SIM_EVENT_DCEND;

	memset(w, 0, sizeof(*w));
	w->image_base = im->base;
	w->image_size = im->size;
	w->process_id = im->pid;
	w->checksum = im->checksum;
	/* Windows' rundown of a process's images has no TimeDateStamp (every real one reads 0) */
	w->time_date_stamp = rundown && im->pid != 0 ? 0 : im->timestamp;
	if (t->image_version >= ETW_VERSION_IMAGE_WIN10) {
		w->signature_level = im->signature_level;
		w->signature_type = im->signature_type;
	}
	w->default_base = im->default_base;
	return 0;
}

/* UTF-8 @s (NULL: empty) into UTF-16 at @store. */
static int text(const char *s, uint8_t *store, struct etw_wstr *w)
{
	if (!s) {
		w->le = NULL;
		w->units = 0;
		return 0;
	}
	return etw_wstr_from_utf8(s, store, TEXT_MAX, w) < 0 ? -EINVAL : 0;
}

/* The payload of @r (not masks) at @buf; its hook and header context. */
static int encode(const struct producer_cfg *cfg, const struct sim_record *r, uint8_t *buf,
		  uint16_t *hook, struct etw_event_ctx *ctx)
{
	uint8_t t1[TEXT_MAX], t2[TEXT_MAX], t3[TEXT_MAX];
	enum etl_arch arch = cfg->arch;
	struct etw_event_form form;
	int n;

	memset(ctx, 0, sizeof(*ctx));
	switch (r->kind) {
	case SIM_REC_PROCESS: {
		const struct sim_process *s = &r->u.process;
		struct etw_process w = {0};

		*hook = producer_record_hook(r->kind, s->event);
		if (!*hook || etw_event_form_for(cfg->target, *hook, &form) < 0) {
			return -EINVAL;
		}
		w.unique_process_key = s->key;
		w.process_id = s->pid;
		w.parent_id = s->ppid;
		w.session_id = s->session;
		w.exit_status = s->exit_status;
		w.directory_table_base = s->dtb;
		w.flags = s->flags;
		if (s->sid) {
			if (etw_sid_parse(s->sid, &w.sid) < 0) {
				return -EINVAL;
			}
			w.sid.token_sid = s->sid_token;
		}
		w.image_file_name = s->image;
		if (text(s->cmdline, t1, &w.command_line) < 0 ||
		    text(s->package, t2, &w.package_full_name) < 0) {
			return -EINVAL;
		}
		w.exit_time = s->exit_time;
		ctx->thread_id = s->ctx_tid;
		ctx->process_id = s->ctx_pid;
		ctx->kernel_time = s->kernel_time;
		ctx->user_time = s->user_time;
		if (text(s->app_id, t3, &w.application_id) < 0) {
			return -EINVAL;
		}
		n = etw_encode_process(buf, PAYLOAD_MAX, arch, form.version, &w, 0);
		return n;
	}
	case SIM_REC_THREAD: {
		const struct sim_thread *s = &r->u.thread;
		struct etw_thread w = {0};

		*hook = producer_record_hook(r->kind, s->event);
		if (!*hook || etw_event_form_for(cfg->target, *hook, &form) < 0) {
			return -EINVAL;
		}
		w.process_id = s->pid;
		w.thread_id = s->tid;
		w.stack_base = s->stack_base;
		w.stack_limit = s->stack_limit;
		w.user_stack_base = s->user_stack_base;
		w.user_stack_limit = s->user_stack_limit;
		w.affinity = s->affinity;
		w.win32_start_address = s->win32_start;
		w.teb_base = s->teb;
		w.sub_process_tag = s->sub_process_tag;
		w.base_priority = s->base_pri;
		w.page_priority = s->page_pri;
		w.io_priority = s->io_pri;
		w.flags = s->flags;
		w.has_name = cfg->target->thread_name;
		if (w.has_name && text(s->name, t1, &w.name) < 0) {
			return -EINVAL;
		}
		ctx->thread_id = s->ctx_tid;
		ctx->process_id = s->ctx_pid;
		ctx->kernel_time = s->kernel_time;
		ctx->user_time = s->user_time;
		return etw_encode_thread(buf, PAYLOAD_MAX, arch, form.version, &w, 0);
	}
	case SIM_REC_THREAD_NAME: {
		const struct sim_thread_name *s = &r->u.thread_name;
		struct etw_thread_set_name w = {.process_id = s->pid, .thread_id = s->tid};

		*hook = ETW_HOOK_THREAD_SET_NAME;
		if (text(s->name, t1, &w.name) < 0) {
			return -EINVAL;
		}
		return etw_encode_thread_set_name(buf, PAYLOAD_MAX, &w);
	}
	case SIM_REC_READY: {
		const struct sim_ready *s = &r->u.ready;
		struct etw_ready_thread w = {
			.thread_id = s->tid,
			.adjust_reason = s->adjust_reason,
			.adjust_increment = s->adjust_increment,
			.flags = s->flags,
		};

		*hook = ETW_HOOK_READY_THREAD;
		ctx->thread_id = s->waker_tid;
		ctx->process_id = s->waker_pid;
		ctx->kernel_time = s->kernel_time;
		ctx->user_time = s->user_time;
		return etw_encode_ready_thread(buf, PAYLOAD_MAX, &w);
	}
	case SIM_REC_SAMPLE: {
		const struct sim_sample *s = &r->u.sample;
		struct etw_sampled_profile w = {
			.instruction_pointer = s->ip,
			.thread_id = s->tid,
			.count = s->count,
			.rank = s->rank,
		};

		*hook = ETW_HOOK_SAMPLED_PROFILE;
		if (etw_sampled_profile_flags(s->dpc, s->isr, s->priority, &w.flags) < 0) {
			return -EINVAL;
		}
		return etw_encode_sampled_profile(buf, PAYLOAD_MAX, arch, &w, 0);
	}
	case SIM_REC_INTERVAL: {
		const struct sim_interval *s = &r->u.interval;
		struct etw_profile_interval w = {
			.source = s->source,
			.new_interval = s->new_interval,
			.old_interval = s->old_interval,
		};

		*hook = producer_record_hook(r->kind, s->event);
		if (!*hook || etw_event_form_for(cfg->target, *hook, &form) < 0 ||
		    text(s->source_name, t1, &w.source_name) < 0) {
			return -EINVAL;
		}
		ctx->thread_id = s->ctx_tid;
		ctx->process_id = s->ctx_pid;
		ctx->kernel_time = s->kernel_time;
		ctx->user_time = s->user_time;
		return etw_encode_profile_interval(buf, PAYLOAD_MAX, form.version, &w);
	}
	case SIM_REC_CPU_CONFIG: {
		const struct sim_cpu_config *s = &r->u.cpu_config;
		struct etw_cpu_config w = {
			.mhz = s->mhz,
			.number_of_processors = s->nproc,
			.memory_mb = s->memory_mb,
			.page_size = s->page_size,
			.allocation_granularity = s->alloc_gran,
			.hyperthreading_flag = s->hyperthreading,
			.highest_user_address = s->highest_user,
			.processor_architecture = s->arch,
			.processor_level = s->level,
			.processor_revision = s->revision,
			.pae_enabled = s->pae,
			.nx_enabled = s->nx,
			.memory_speed = s->memory_speed,
		};

		*hook = ETW_HOOK_SYSCONFIG_CPU;
		if (text(s->computer_name, t1, &w.computer_name) < 0 ||
		    text(s->domain_name, t2, &w.domain_name) < 0) {
			return -EINVAL;
		}
		return etw_encode_cpu_config(buf, PAYLOAD_MAX, arch, &w, 0);
	}
	case SIM_REC_RUNDOWN:
		*hook = ETW_HOOK_RUNDOWN_COMPLETE;
		return 0;
	case SIM_REC_IMAGE: {
		const struct sim_image *s = &r->u.image;
		struct etw_image w;

		*hook = producer_record_hook(r->kind, s->event);
		if (!*hook) {
			return -EINVAL;
		}
		ctx->thread_id = s->ctx_tid;
		ctx->process_id = s->ctx_pid;
		ctx->kernel_time = s->kernel_time;
		ctx->user_time = s->user_time;
		if (s->event == SIM_EVENT_KERNEL_BASE || s->event == SIM_EVENT_HYPERCALL_PAGE) {
			return etw_encode_image_address(buf, PAYLOAD_MAX, arch, s->base, 0);
		}
		if (producer_image_form(cfg->target, s, &form) < 0 ||
		    producer_image_payload(cfg->target, s, &w) < 0 ||
		    text(s->file_name, t1, &w.file_name) < 0) {
			return -EINVAL;
		}
		return etw_encode_image(buf, PAYLOAD_MAX, arch, form.version, &w, 0);
	}
	default:
		return -EINVAL;
	}
}

/* The header form of @r with @hook: an image's by its process (etw_image_form()). */
static int form_of(const struct producer_cfg *cfg, const struct sim_record *r, uint16_t hook,
		   struct etw_event_form *form)
{
	if (r->kind == SIM_REC_IMAGE && r->u.image.event != SIM_EVENT_KERNEL_BASE &&
	    r->u.image.event != SIM_EVENT_HYPERCALL_PAGE) {
		return producer_image_form(cfg->target, &r->u.image, form);
	}
	return etw_event_form_for(cfg->target, hook, form);
}

/*
 * Room for a record of @hook with a payload of @len bytes in session @i's
 * @cpu buffer at the session's clock, its header written. Return: where the
 * payload goes (*@total: the record's size, for put_done()), or NULL with
 * *@rc 0 (no free buffer: lost and counted) or a negative errno.
 */
static uint8_t *put_head(struct producer_lane *l, unsigned i, const struct sim_record *r,
			 uint16_t hook, const struct etw_event_ctx *ctx0, size_t len,
			 uint32_t *total, int *rc)
{
	struct producer *p = producer_lane_producer(l);
	const struct producer_cfg *cfg = producer_get_cfg(p);
	struct etw_event_form form;
	struct etw_event_ctx ctx = *ctx0;
	size_t hlen;
	uint8_t *out;
	int h;

	*rc = -EINVAL;
	if (form_of(cfg, r, hook, &form) < 0) {
		return NULL;
	}
	hlen = etw_header_form_len(form.header);
	if (hlen + len > 0xFFFFu) {
		*rc = -E2BIG;
		return NULL;
	}
	ctx.ts = r->u.head.ts[producer_session_clock(p, i)];
	out = producer_place(l, i, r->u.head.cpu, (uint32_t)(hlen + len), ctx.ts, rc);
	if (!out) {
		return NULL;
	}
	h = etw_encode_event_header(out, hlen + len, cfg->arch, hook, form, len, &ctx);
	if (h < 0) {
		*rc = h;
		return NULL;
	}
	*total = (uint32_t)(hlen + len);
	return out + h;
}

/* The record put_head() made room for is written: commit it, count it. */
static void put_done(struct producer_lane *l, unsigned i, const struct sim_record *r,
		     uint32_t total)
{
	producer_commit(l, i, r->u.head.cpu, total);
	producer_count_record(l, r->kind);
}

/* Write header + @payload[@len] into session @i's @cpu buffer at the session's clock. */
static int put(struct producer_lane *l, unsigned i, const struct sim_record *r, uint16_t hook,
	       const struct etw_event_ctx *ctx0, const uint8_t *payload, size_t len)
{
	uint32_t total;
	int rc;
	uint8_t *out = put_head(l, i, r, hook, ctx0, len, &total, &rc);

	if (!out) {
		return rc;
	}
	if (len) {
		memcpy(out, payload, len);
	}
	put_done(l, i, r, total);
	return 0;
}

/* A KernelTraceControl record (FULL_HEADER) of Class.Type @type into session @i's @cpu buffer. */
static int put_full(struct producer_lane *l, unsigned i, const struct sim_record *r, uint8_t type,
		    const struct etw_event_ctx *ctx, const uint8_t *payload, size_t len)
{
	struct producer *p = producer_lane_producer(l);
	const struct producer_cfg *cfg = producer_get_cfg(p);
	struct etl_full_header h = {
		.arch = cfg->arch,
		.size = (uint16_t)(ETL_FH_LEN + len),
		.type = type,
		.version = ETW_VERSION_KTC,
		.thread_id = ctx->thread_id,
		.process_id = ctx->process_id,
		.ts = r->u.head.ts[producer_session_clock(p, i)],
		.kernel_time = ctx->kernel_time,
		.user_time = ctx->user_time,
	};
	uint8_t *out;
	int rc;

	if (ETL_FH_LEN + len > 0xFFFFu) {
		return -E2BIG;
	}
	memcpy(h.guid, etw_ktc_guid, sizeof(h.guid));
	out = producer_place(l, i, r->u.head.cpu, (uint32_t)(ETL_FH_LEN + len), h.ts, &rc);
	if (!out) {
		return rc;
	}
	if ((rc = etl_encode_full_header(out, ETL_FH_LEN + len, &h)) < 0) {
		return rc;
	}
	memcpy(out + ETL_FH_LEN, payload, len);
	producer_commit(l, i, r->u.head.cpu, (uint32_t)(ETL_FH_LEN + len));
	return 0;
}

/*
 * A merged session's identity of image record @r (its header context
 * @ctx): ImageID, then DbgID_RSDS or None. Their header: the image event's
 * thread, process and times when it has a SYSTEM header, else ThreadId
 * 0xFFFFFFFF, the image's process and no times (STACK_IMAGE_FACTS 6.2).
 */
static int put_identity(struct producer_lane *l, unsigned i, const struct sim_record *r,
			const struct etw_event_ctx *ctx)
{
	const struct producer_cfg *cfg = producer_get_cfg(producer_lane_producer(l));
	const struct sim_image *im = &r->u.image;
	const char *slash = im->file_name ? strrchr(im->file_name, '\\') : NULL;
	struct etw_event_form form;
	struct etw_event_ctx hc = *ctx;
	struct etw_ktc_image_id id = {im->base, im->size, im->pid, im->timestamp, {0}};
	struct etw_ktc_dbgid dbg = {.image_base = im->base, .process_id = im->pid};
	uint8_t name[TEXT_MAX], payload[PAYLOAD_MAX];
	bool none = !im->pdb_guid;
	int len, rc;

	if (producer_image_form(cfg->target, im, &form) < 0) {
		return -EINVAL;
	}
	if (form.header != ETW_HEADER_SYSTEM) {
		memset(&hc, 0, sizeof(hc));
		hc.thread_id = UINT32_MAX;
		hc.process_id = im->pid;
	}
	if (text(slash ? slash + 1 : im->file_name, name, &id.original_file_name) < 0 ||
	    (len = etw_encode_ktc_image_id(payload, sizeof(payload), cfg->arch, &id, 0)) < 0 ||
	    (rc = put_full(l, i, r, ETW_KTC_IMAGE_ID, &hc, payload, (size_t)len)) < 0) {
		return -EINVAL;
	}
	if (!none && etw_guid_parse(im->pdb_guid, dbg.guid) < 0) {
		return -EINVAL;
	}
	dbg.age = im->pdb_age;
	dbg.pdb_file_name = im->pdb_name;
	len = etw_encode_ktc_dbgid(payload, sizeof(payload), cfg->arch, none, &dbg, 0);
	if (len < 0) {
		return -EINVAL;
	}
	return put_full(l, i, r, none ? ETW_KTC_DBGID_NONE : ETW_KTC_DBGID_RSDS, &hc, payload,
			(size_t)len);
}

/* A stack line's frames: its @ips, or its text read into @out. Return: how many, -EINVAL. */
static int stack_frames(const struct producer_cfg *cfg, const struct sim_stack *st,
			uint64_t out[ETW_STACK_MAX_FRAMES])
{
	if (st->ips) {
		return st->nips && st->nips <= ETW_STACK_MAX_FRAMES ? (int)st->nips : -EINVAL;
	}
	return producer_stack_frames(st->frames, cfg->arch == ETL_ARCH_X86, out,
				     ETW_STACK_MAX_FRAMES);
}

/* A key's definition (KeyDelete, KeyRundown @hook) at @r's time and CPU. */
static int put_stack_def(struct producer_lane *l, unsigned i, const struct sim_record *r,
			 uint16_t hook, uint64_t key, const uint64_t *ips, size_t n)
{
	const struct producer_cfg *cfg = producer_get_cfg(producer_lane_producer(l));
	const struct etw_stack_def d = {.key = key, .frames = {.ips = ips, .n = n}};
	const struct etw_event_ctx ctx = {0};
	uint8_t payload[PAYLOAD_MAX];
	int len = etw_encode_stack_def(payload, sizeof(payload), cfg->arch, &d, 0);

	if (len < 0) {
		return len == -ENOSPC ? -E2BIG : -EINVAL;
	}
	return put(l, i, r, hook, &ctx, payload, (size_t)len);
}

/*
 * Stack line @r (frames @ips[@n]) into session @i: a StackWalk, or with
 * stack caching a key reference (kernel or user by its first frame), after
 * the definition of the entry it pushed out of the cache if any.
 */
static int put_stack(struct producer_lane *l, unsigned i, const struct sim_record *r,
		     const uint64_t *ips, size_t n)
{
	struct producer *p = producer_lane_producer(l);
	const struct producer_cfg *cfg = producer_get_cfg(p);
	const uint64_t ts = r->u.stack.ts[producer_session_clock(p, i)];
	const struct etw_event_ctx ctx = {0};
	struct stack_cache_victim victim;
	uint8_t payload[PAYLOAD_MAX];
	struct stack_cache *c;
	uint64_t key;
	int rc, len;

	c = producer_stack_cache(p, i, r->u.stack.cpu, true, &rc);
	if (rc < 0) {
		return rc;
	}
	rc = c ? stack_cache_get(c, ips, n, ts, &key, &victim) : 0;
	if (rc < 0) {
		return rc;
	}
	if (rc == 0) {
		/* EventTimeStamp: the event's time in this session's clock; encoded in place */
		const struct etw_stack_walk w = {
			.event_ts = ts,
			.process_id = r->u.stack.pid,
			.thread_id = r->u.stack.tid,
			.frames = {.ips = ips, .n = n},
		};
		size_t want = etw_stack_walk_len(cfg->arch, n);
		uint32_t total;
		uint8_t *out;

		if (!n || n > ETW_STACK_MAX_FRAMES || !want) {
			return -EINVAL;
		}
		out = put_head(l, i, r, ETW_HOOK_STACK_WALK, &ctx, want, &total, &rc);
		if (!out) {
			return rc;
		}
		len = etw_encode_stack_walk(out, want, cfg->arch, &w, 0);
		if (len < 0) {
			return len == -ENOSPC ? -E2BIG : -EINVAL;
		}
		put_done(l, i, r, total);
		return 0;
	}
	if (victim.n && (rc = put_stack_def(l, i, r, ETW_HOOK_STACK_KEY_DELETE, victim.key,
					    victim.frames, victim.n)) < 0) {
		return rc;
	}
	{
		const struct etw_stack_key k = {
			.event_ts = ts,
			.process_id = r->u.stack.pid,
			.thread_id = r->u.stack.tid,
			.key = key,
		};
		const bool kernel = cfg->arch == ETL_ARCH_X86
					    ? ips[0] >= UINT64_C(0x80000000)
					    : ips[0] >= UINT64_C(0xFFFF800000000000);

		len = etw_encode_stack_key(payload, sizeof(payload), cfg->arch, &k, 0);
		if (len < 0) {
			return -EINVAL;
		}
		return put(l, i, r, kernel ? ETW_HOOK_STACK_KEY_KERNEL : ETW_HOOK_STACK_KEY_USER,
			   &ctx, payload, (size_t)len);
	}
}

/* KeyRundown 0x1824 of each stack session @i's caches still hold, at @ts, in each CPU's buffer. */
static int stack_rundown(struct producer *p, unsigned i, const uint64_t ts[SIM_CLOCK_SLOTS])
{
	const struct producer_cfg *cfg = producer_get_cfg(p);
	struct producer_lane *l = producer_own_lane(p);
	struct sim_record r = {.kind = SIM_REC_STACK};

	memcpy(r.u.stack.ts, ts, sizeof(r.u.stack.ts));
	for (unsigned cpu = 0; cpu < cfg->cpus; cpu++) {
		struct stack_cache *c;
		const uint64_t *ips;
		size_t pos = 0, n;
		uint64_t key;
		int rc;

		c = producer_stack_cache(p, i, cpu, false, &rc);
		if (!c) {
			continue;
		}
		r.u.stack.cpu = cpu;
		while (stack_cache_next(c, &pos, &key, &ips, &n)) {
			rc = put_stack_def(l, i, &r, ETW_HOOK_STACK_KEY_RUNDOWN, key, ips, n);
			if (rc < 0) {
				return rc;
			}
		}
	}
	return 0;
}

int producer_end(struct producer *p, const struct sim_end *end)
{
	int rc = producer_flush_end(p, end);

	for (unsigned i = 0; rc == 0 && i < producer_nsessions(p); i++) {
		rc = stack_rundown(p, i, end->ts);
	}
	return rc;
}

int producer_record(struct producer *p, const struct sim_record *r)
{
	return producer_lane_record(producer_own_lane(p), r);
}

int producer_lane_record(struct producer_lane *l, const struct sim_record *r)
{
	struct producer *p = producer_lane_producer(l);
	const struct producer_cfg *cfg = producer_get_cfg(p);
	unsigned want = r->kind == SIM_REC_STACK ? producer_stack_flag(r->u.stack.event)
			: r->kind == SIM_REC_DPC ? producer_dpc_flag(r->u.dpc.event)
						 : producer_record_flags(r->kind);
	unsigned ns = producer_nsessions(p);
	uint64_t frames[ETW_STACK_MAX_FRAMES];
	int nframes = 0;
	uint8_t payload[PAYLOAD_MAX];
	struct etw_event_ctx ctx;
	uint16_t hook = 0;
	int len = -1;

	if ((unsigned)r->kind >= SIM_RECORD_KINDS || r->u.head.cpu >= cfg->cpus || !cfg->target) {
		return -EINVAL;
	}
	for (unsigned i = 0; i < ns; i++) {
		unsigned flags = producer_session_flags(p, i);
		int rc;

		if (!(flags & want)) {
			continue;
		}
		if (r->kind == SIM_REC_MASKS) {
			struct etw_group_masks g = {.version = cfg->target->kernel_event_version};

			memset(&ctx, 0, sizeof(ctx));
			if (r->u.masks.enabled) {
				producer_group_masks(flags, g.masks);
			}
			hook = producer_record_hook(r->kind, r->u.masks.event);
			if (!hook) {
				return -EINVAL;
			}
			len = etw_encode_group_masks(payload, sizeof(payload), &g);
		} else if (r->kind == SIM_REC_STACK) {
			if (!nframes) {
				nframes = stack_frames(cfg, &r->u.stack, frames);
			}
			if (nframes < 0) {
				return -EINVAL;
			}
			rc = put_stack(l, i, r, r->u.stack.ips ? r->u.stack.ips : frames,
				       (size_t)nframes);
			if (rc < 0) {
				return rc;
			}
			continue;
		} else if (r->kind == SIM_REC_DPC) {
			/* InitialTime: when the routine was entered, in this session's clock */
			const struct sim_dpc *d = &r->u.dpc;
			struct etw_dpc w = {
				.initial_time = d->initial_time[producer_session_clock(p, i)],
				.routine = d->routine,
				.return_value = d->return_value,
				.vector = d->vector,
			};

			memset(&ctx, 0, sizeof(ctx));
			hook = producer_record_hook(SIM_REC_DPC, d->event);
			if (!hook) {
				return -EINVAL;
			}
			len = etw_encode_dpc(payload, sizeof(payload), cfg->arch,
					     d->event == SIM_EVENT_ISR, &w, 0);
		} else if (len < 0) {
			len = encode(cfg, r, payload, &hook, &ctx);
		}
		if (len < 0) {
			return len == -ENOSPC ? -E2BIG : -EINVAL;
		}
		if ((flags & PRODUCER_F_MERGED) && r->kind == SIM_REC_IMAGE &&
		    r->u.image.event != SIM_EVENT_KERNEL_BASE &&
		    r->u.image.event != SIM_EVENT_HYPERCALL_PAGE &&
		    (rc = put_identity(l, i, r, &ctx)) < 0) {
			return rc;
		}
		rc = put(l, i, r, hook, &ctx, payload, (size_t)len);
		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}
