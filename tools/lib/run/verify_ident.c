// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/verify_ident.c - verify's identity records: every truth
 * line of kind process, thread, thread_name, ready, sample, interval,
 * config, masks or rundown that the session gets (its flags, as the
 * producer_record_flags(), producer/producer.h) must be the next
 * identity record of its CPU's buffers, with the hook of its event, the
 * header form and version of the target (etw_event_form_for()), the
 * session's clock in the header, the header's context (SYSTEM headers) and
 * every payload field of the ETW_*_FIELDS table equal to the SIM row of the
 * same name (strings after UTF-16 -> UTF-8, the SID as its string, the
 * masks the session's own or zeros). The file may hold no identity record
 * the truth does not have.
 *
 * Order against the switches and spin locks: each CPU's walk counts the
 * switch, batch and spin-lock records it steps over ("passed"); verify.c
 * counts those it matched to the truth so far ("placed": a plain switch or
 * spin lock at its line, a compact batch at the switch that flushed it or
 * at the end). An identity record is in its place when the two agree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "producer/etw_encode.h"
#include "producer/etw_event.h"
#include "producer/etw_image.h"
#include "producer/etw_ktc.h"
#include "producer/etw_layout.h"
#include "producer/etw_stack.h"
#include "producer/producer.h"
#include "producer/stack_cache.h"
#include "tools/lib/run/verify_ident.h"
#include "writer/etl_layout.h"
#include "writer/etl_trace_header.h"
#include "writer/etl_wire.h"

#define TEXT_CAP (3u * 32768u + 4u) /* UTF-8 of the longest UTF-16 string a record holds */

struct vident_cpu {
	const unsigned *order; /* the CPU's buffers, in sequence order */
	unsigned norder;
	unsigned oi;
	size_t pos;
	uint64_t passed; /* switch, batch and spin-lock records the walk stepped over */
	uint64_t placed; /* ... that verify.c has matched to the truth */
};

int vident_init(struct verify_ident *vi, const char *file, const char *truth_path,
		const struct trace_config *cfg, const struct trace_session_cfg *s,
		const struct etl_reader *d, struct etwforge_error *err)
{
	memset(vi, 0, sizeof(*vi));
	vi->file = file;
	vi->truth_path = truth_path;
	vi->cfg = cfg;
	vi->s = s;
	vi->d = d;
	vi->err = err;
	vi->cpus = calloc(cfg->cpus ? cfg->cpus : 1, sizeof(*vi->cpus));
	vi->text = malloc(TEXT_CAP);
	vi->text_cap = TEXT_CAP;
	if (s->stack_cache) {
		vi->caches = calloc(cfg->cpus ? cfg->cpus : 1, sizeof(*vi->caches));
	}
	if (!vi->cpus || !vi->text || (s->stack_cache && !vi->caches)) {
		vident_free(vi);
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	for (unsigned cpu = 0; cpu < cfg->cpus; cpu++) {
		vi->cpus[cpu].order = etl_reader_cpu_buffers(d, cpu, &vi->cpus[cpu].norder);
	}
	return 0;
}

void vident_free(struct verify_ident *vi)
{
	for (unsigned cpu = 0; vi->caches && cpu < vi->cfg->cpus; cpu++) {
		stack_cache_destroy(vi->caches[cpu]);
	}
	free(vi->caches);
	vi->caches = NULL;
	free(vi->cpus);
	free(vi->text);
	vi->cpus = NULL;
	vi->text = NULL;
}

bool vident_wants(const struct verify_ident *vi, int kind)
{
	static const struct {
		int truth;
		enum sim_record_kind rec;
	} map[] = {
		{TRUTH_PROCESS, SIM_REC_PROCESS},
		{TRUTH_THREAD, SIM_REC_THREAD},
		{TRUTH_THREAD_NAME, SIM_REC_THREAD_NAME},
		{TRUTH_READY, SIM_REC_READY},
		{TRUTH_SAMPLE, SIM_REC_SAMPLE},
		{TRUTH_INTERVAL, SIM_REC_INTERVAL},
		{TRUTH_CONFIG, SIM_REC_CPU_CONFIG},
		{TRUTH_MASKS, SIM_REC_MASKS},
		{TRUTH_RUNDOWN, SIM_REC_RUNDOWN},
		{TRUTH_IMAGE, SIM_REC_IMAGE},
		{TRUTH_STACK, SIM_REC_STACK},
		{TRUTH_DPC, SIM_REC_DPC},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].truth == kind) {
			return (vi->s->flags & producer_record_flags(map[i].rec)) != 0;
		}
	}
	return false;
}

void vident_placed(struct verify_ident *vi, unsigned cpu)
{
	if (cpu < vi->cfg->cpus) {
		vi->cpus[cpu].placed++;
	}
}

/* A KernelTraceControl image identity (a merge's classic event of its GUID)? */
static bool is_ktc(const struct etl_record *r)
{
	return r->kind == ETL_KIND_FULL && r->size >= ETL_FH_LEN &&
	       !memcmp(r->data + ETL_FH_GUID, etw_ktc_guid, ETW_GUID_LEN);
}

static bool is_identity(const struct etl_record *r)
{
	if (is_ktc(r)) {
		return true;
	}
	if (r->kind != ETL_KIND_SYSTEM && r->kind != ETL_KIND_COMPACT &&
	    r->kind != ETL_KIND_PERFINFO) {
		return false;
	}
	switch (r->hook_id) {
	case ETW_HOOK_PROCESS_START:
	case ETW_HOOK_PROCESS_END:
	case ETW_HOOK_PROCESS_DC_START:
	case ETW_HOOK_PROCESS_DC_END:
	case ETW_HOOK_PROCESS_TERMINATE:
	case ETW_HOOK_PROCESS_DEFUNCT:
	case ETW_HOOK_THREAD_START:
	case ETW_HOOK_THREAD_END:
	case ETW_HOOK_THREAD_DC_START:
	case ETW_HOOK_THREAD_DC_END:
	case ETW_HOOK_READY_THREAD:
	case ETW_HOOK_THREAD_SET_NAME:
	case ETW_HOOK_SAMPLED_PROFILE:
	case ETW_HOOK_PROFILE_SET_INTERVAL:
	case ETW_HOOK_PROFILE_INTERVAL_DC_S:
	case ETW_HOOK_PROFILE_INTERVAL_DC_E:
	case ETW_HOOK_SYSCONFIG_CPU:
	case ETL_HOOK_HEADER_EXTENSION:
	case ETW_HOOK_GROUP_MASKS_END:
	case ETW_HOOK_RUNDOWN_COMPLETE:
	case ETW_HOOK_IMAGE_LOAD:
	case ETW_HOOK_IMAGE_UNLOAD:
	case ETW_HOOK_IMAGE_DC_START:
	case ETW_HOOK_IMAGE_DC_END:
	case ETW_HOOK_IMAGE_KERNEL_BASE:
	case ETW_HOOK_IMAGE_HYPERCALL:
	case ETW_HOOK_STACK_WALK:
	case ETW_HOOK_STACK_KEY_CREATE:
	case ETW_HOOK_STACK_KEY_DELETE:
	case ETW_HOOK_STACK_KEY_RUNDOWN:
	case ETW_HOOK_STACK_KEY_KERNEL:
	case ETW_HOOK_STACK_KEY_USER:
	case ETW_HOOK_THREADED_DPC:
	case ETW_HOOK_ISR:
	case ETW_HOOK_DPC:
	case ETW_HOOK_TIMER_DPC:
		return true;
	default:
		return false;
	}
}

/* A record verify.c's cursors match to truth lines (the session's kinds, as verify.c reads them). */
static bool is_placed_kind(const struct verify_ident *vi, const struct etl_record *r)
{
	unsigned f = vi->s->flags;

	if (r->kind != ETL_KIND_PERFINFO) {
		return false;
	}
	if (r->hook_id == ETW_HOOK_SPINLOCK) {
		return f & PRODUCER_F_SPINLOCK;
	}
	if (!(f & PRODUCER_F_CSWITCH)) {
		return false;
	}
	return r->hook_id == ((f & PRODUCER_F_COMPACT) ? ETW_HOOK_CSWITCH_BATCH : ETW_HOOK_CSWITCH);
}

/* The next identity record of @cpu. Return: 1 in *@rec, 0 none left, <0 error (@err set). */
static int next_identity(struct verify_ident *vi, unsigned cpu, struct etl_record *rec)
{
	struct vident_cpu *c = &vi->cpus[cpu];

	while (c->oi < c->norder) {
		const struct etl_buffer *b = etl_reader_buffer(vi->d, c->order[c->oi]);
		struct etl_error e;
		int r = etl_buffer_next(vi->d, b, &c->pos, rec, &e);

		if (r < 0) {
			return error_fail_at(vi->err, -EINVAL, ERR_DATA, "%s", e.msg);
		}
		if (r == 0) {
			c->oi++;
			c->pos = 0;
			continue;
		}
		if (is_identity(rec)) {
			return 1;
		}
		if (is_placed_kind(vi, rec)) {
			c->passed++;
		}
	}
	return 0;
}

static int fail(struct verify_ident *vi, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* `FILE: offset 0x...: WHAT: message` (the message names the truth line). */
static int fail(struct verify_ident *vi, uint64_t off, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error_fail_at(vi->err, -EBADMSG, ERR_DATA, "%s: offset 0x%" PRIx64 ": %s: %s",
			     vi->file, off, vi->what, msg);
}

enum num_fmt { NUM_U, NUM_I, NUM_X };

static void num_str(char *out, size_t cap, enum num_fmt f, uint64_t v)
{
	if (f == NUM_I) {
		snprintf(out, cap, "%" PRId64, (int64_t)v);
	} else if (f == NUM_X) {
		snprintf(out, cap, "0x%" PRIx64, v);
	} else {
		snprintf(out, cap, "%" PRIu64, v);
	}
}

static int num(struct verify_ident *vi, uint64_t off, const char *field, enum num_fmt f,
	       uint64_t got, uint64_t want)
{
	char g[32], w[32];

	if (got == want) {
		return 0;
	}
	num_str(g, sizeof(g), f, got);
	num_str(w, sizeof(w), f, want);
	return fail(vi, off, "%s %s, truth line %lu says %s", field, g, vi->line, w);
}

static int str(struct verify_ident *vi, uint64_t off, const char *field, const char *got,
	       const char *want)
{
	want = want ? want : "";
	if (!strcmp(got, want)) {
		return 0;
	}
	return fail(vi, off, "%s \"%.160s\", truth line %lu says \"%.160s\"", field, got, vi->line,
		    want);
}

static int wstr(struct verify_ident *vi, uint64_t off, const char *field, struct etw_wstr got,
		const char *want)
{
	if (etw_wstr_to_utf8(got, vi->text, vi->text_cap) < 0) {
		return fail(vi, off, "%s does not fit %zu bytes of UTF-8", field, vi->text_cap);
	}
	return str(vi, off, field, vi->text, want);
}

/* The SID as its string ("S-1-5-18"), as dump prints it. */
static int sid(struct verify_ident *vi, uint64_t off, const char *field, const struct etw_sid *s,
	       const char *want)
{
	char out[160];
	uint64_t auth = 0;
	size_t n;

	if (!s->present) {
		return want ? fail(vi, off, "%s is the NULL form, truth line %lu says %s", field,
				   vi->line, want)
			    : 0;
	}
	for (unsigned i = 0; i < ETW_SID_AUTHORITY_LEN; i++) {
		auth = auth << 8 | s->authority[i];
	}
	n = (size_t)snprintf(out, sizeof(out), auth >> 32 ? "S-%u-0x%" PRIx64 : "S-%u-%" PRIu64,
			     s->revision, auth);
	for (unsigned i = 0; i < s->sub_count && i < ETW_SID_MAX_SUB && n < sizeof(out); i++) {
		n += (size_t)snprintf(out + n, sizeof(out) - n, "-%" PRIu32, s->sub[i]);
	}
	if (!want) {
		return fail(vi, off, "%s %s, truth line %lu has none (the NULL form)", field, out,
			    vi->line);
	}
	return str(vi, off, field, out, want);
}

/*
 * A payload's fields from its ETW_ table (the columns of
 * producer/records/process.h): when the row's jwhen holds, the decoded
 * value (its "from") must be the truth's member of the same name; the
 * message names the field and its offset (@base + the row's, or @base for
 * a field after a variable-length one).
 */
#define VI_AT(at64, at32) ((at64) == ETW_AT_VAR ? 0 : x86 ? (uint64_t)(at32) : (uint64_t)(at64))
#define VI_U(off, name, ctype, got, want)                                                          \
	num(vi, off, name, NUM_U, (uint64_t)(ctype)(got), (uint64_t)(ctype)(want))
#define VI_I(off, name, ctype, got, want)                                                          \
	num(vi, off, name, NUM_I, (uint64_t)(int64_t)(ctype)(got), (uint64_t)(int64_t)(ctype)(want))
#define VI_HEX(off, name, ctype, got, want)                                                        \
	num(vi, off, name, NUM_X, (uint64_t)(ctype)(got)&mask, (uint64_t)(ctype)(want)&mask)
#define VI_BOOL(off, name, ctype, got, want) num(vi, off, name, NUM_U, !!(got), !!(want))
#define VI_SID(off, name, ctype, got, want)  sid(vi, off, name, got, want)
#define VI_ASTR(off, name, ctype, got, want) str(vi, off, name, got, want)
#define VI_WSTR(off, name, ctype, got, want) wstr(vi, off, name, got, want)
#define VI_ROW(t, name, ctype, json, jwhen, from, at64, at32, what)                                \
	if ((jwhen) && VI_##json(base + VI_AT(at64, at32), #name, ctype, from, (t)->name) < 0) {   \
		return -EBADMSG;                                                                   \
	}

/* The truth line's CPU, clocks, hook, header form and context; its name into vi->what. */
struct line_head {
	uint32_t cpu;
	const uint64_t *ts;
	uint16_t hook;
	bool form_set; /* @form is the line's own (an image's), not the hook's */
	struct etw_event_form form;
	uint32_t tid, pid, kernel_time, user_time;
};

#define HEAD_CTX(h, p, t, pi, k, us)                                                               \
	do {                                                                                       \
		(h)->tid = (p)->t;                                                                 \
		(h)->pid = (p)->pi;                                                                \
		(h)->kernel_time = (p)->k;                                                         \
		(h)->user_time = (p)->us;                                                          \
	} while (0)

static void line_head(struct verify_ident *vi, int kind, const struct truth_record *tr,
		      struct line_head *h)
{
	const char *ev;

	memset(h, 0, sizeof(*h));
	switch (kind) {
	case TRUTH_PROCESS: {
		const struct sim_process *p = &tr->u.process;

		h->cpu = p->cpu;
		h->ts = p->ts;
		h->hook = producer_record_hook(SIM_REC_PROCESS, p->event);
		HEAD_CTX(h, p, ctx_tid, ctx_pid, kernel_time, user_time);
		ev = sim_event_name(p->event);
		snprintf(vi->what, sizeof(vi->what), "process %s pid %" PRIu32, ev ? ev : "?",
			 p->pid);
		break;
	}
	case TRUTH_THREAD: {
		const struct sim_thread *p = &tr->u.thread;

		h->cpu = p->cpu;
		h->ts = p->ts;
		h->hook = producer_record_hook(SIM_REC_THREAD, p->event);
		HEAD_CTX(h, p, ctx_tid, ctx_pid, kernel_time, user_time);
		ev = sim_event_name(p->event);
		snprintf(vi->what, sizeof(vi->what), "thread %s tid %" PRIu32, ev ? ev : "?",
			 p->tid);
		break;
	}
	case TRUTH_THREAD_NAME:
		h->cpu = tr->u.thread_name.cpu;
		h->ts = tr->u.thread_name.ts;
		h->hook = ETW_HOOK_THREAD_SET_NAME;
		snprintf(vi->what, sizeof(vi->what), "thread_name tid %" PRIu32,
			 tr->u.thread_name.tid);
		break;
	case TRUTH_READY: {
		const struct sim_ready *p = &tr->u.ready;

		h->cpu = p->cpu;
		h->ts = p->ts;
		h->hook = ETW_HOOK_READY_THREAD;
		HEAD_CTX(h, p, waker_tid, waker_pid, kernel_time, user_time);
		snprintf(vi->what, sizeof(vi->what), "ready tid %" PRIu32, p->tid);
		break;
	}
	case TRUTH_SAMPLE:
		h->cpu = tr->u.sample.cpu;
		h->ts = tr->u.sample.ts;
		h->hook = ETW_HOOK_SAMPLED_PROFILE;
		snprintf(vi->what, sizeof(vi->what), "sample tid %" PRIu32, tr->u.sample.tid);
		break;
	case TRUTH_INTERVAL: {
		const struct sim_interval *p = &tr->u.interval;

		h->cpu = p->cpu;
		h->ts = p->ts;
		h->hook = producer_record_hook(SIM_REC_INTERVAL, p->event);
		HEAD_CTX(h, p, ctx_tid, ctx_pid, kernel_time, user_time);
		ev = sim_event_name(p->event);
		snprintf(vi->what, sizeof(vi->what), "interval %s", ev ? ev : "?");
		break;
	}
	case TRUTH_CONFIG:
		h->cpu = tr->u.cpu_config.cpu;
		h->ts = tr->u.cpu_config.ts;
		h->hook = ETW_HOOK_SYSCONFIG_CPU;
		snprintf(vi->what, sizeof(vi->what), "config");
		break;
	case TRUTH_MASKS:
		h->cpu = tr->u.masks.cpu;
		h->ts = tr->u.masks.ts;
		h->hook = producer_record_hook(SIM_REC_MASKS, tr->u.masks.event);
		snprintf(vi->what, sizeof(vi->what), "masks %s",
			 tr->u.masks.event == SIM_EVENT_NEW ? "new" : "end");
		break;
	case TRUTH_IMAGE: {
		const struct sim_image *p = &tr->u.image;
		const char *slash;

		h->cpu = p->cpu;
		h->ts = p->ts;
		h->hook = producer_record_hook(SIM_REC_IMAGE, p->event);
		HEAD_CTX(h, p, ctx_tid, ctx_pid, kernel_time, user_time);
		h->form_set = p->event != SIM_EVENT_KERNEL_BASE &&
			      p->event != SIM_EVENT_HYPERCALL_PAGE &&
			      producer_image_form(vi->cfg->target, p, &h->form) == 0;
		ev = sim_event_name(p->event);
		slash = p->file_name ? strrchr(p->file_name, '\\') : NULL;
		snprintf(vi->what, sizeof(vi->what), "image %s %.40s", ev ? ev : "?",
			 slash		? slash + 1
			 : p->file_name ? p->file_name
					: "");
		break;
	}
	case TRUTH_DPC:
		h->cpu = tr->u.dpc.cpu;
		h->ts = tr->u.dpc.ts;
		h->hook = producer_record_hook(SIM_REC_DPC, tr->u.dpc.event);
		ev = sim_event_name(tr->u.dpc.event);
		snprintf(vi->what, sizeof(vi->what), "%s 0x%" PRIx64, ev ? ev : "?",
			 tr->u.dpc.routine);
		break;
	case TRUTH_STACK:
		h->cpu = tr->u.stack.cpu;
		h->ts = tr->u.stack.ts;
		h->hook = ETW_HOOK_STACK_WALK;
		ev = sim_event_name(tr->u.stack.event);
		snprintf(vi->what, sizeof(vi->what), "stack of %s tid %" PRIu32, ev ? ev : "?",
			 tr->u.stack.tid);
		break;
	default: /* TRUTH_RUNDOWN */
		h->cpu = tr->u.rundown.cpu;
		h->ts = tr->u.rundown.ts;
		h->hook = ETW_HOOK_RUNDOWN_COMPLETE;
		snprintf(vi->what, sizeof(vi->what), "rundown");
		break;
	}
}

/* The framing: hook, header form and version, the clock, a SYSTEM header's context. */
static int check_header(struct verify_ident *vi, const struct etl_record *rec,
			const struct line_head *h)
{
	const uint64_t off = rec->file_offset;
	struct etw_event_header eh;
	struct etw_event_form form;
	bool system;

	if (rec->hook_id != h->hook) {
		return fail(vi, off, "hook 0x%04x, truth line %lu says 0x%04x", rec->hook_id,
			    vi->line, h->hook);
	}
	if (h->form_set) {
		form = h->form;
	} else if (etw_event_form_for(vi->cfg->target, h->hook, &form) < 0) {
		return fail(vi, off, "the target %s has no form for hook 0x%04x",
			    vi->cfg->target->name, h->hook);
	}
	system = form.header == ETW_HEADER_SYSTEM;
	if (rec->kind != (system ? ETL_KIND_SYSTEM : ETL_KIND_PERFINFO)) {
		return fail(vi, off, "a %s header, target %s (truth line %lu) writes %s",
			    etl_kind_name(rec->kind), vi->cfg->target->name, vi->line,
			    system ? "SYSTEM" : "PERFINFO");
	}
	if (num(vi, off, "the version", NUM_U, rec->version, form.version) < 0) {
		return -EBADMSG;
	}
	if (etw_decode_event_header(rec->data, rec->size, &eh) < 0) {
		return fail(vi, off, "the header does not decode (PEBS or PMC items, or short)");
	}
	if (num(vi, off + (system ? ETL_SH_SYSTEM_TIME : ETL_TH_TS), "the timestamp", NUM_U,
		eh.ctx.ts, h->ts[vi->s->clock]) < 0) {
		return -EBADMSG;
	}
	if (!system) {
		return 0;
	}
	if (num(vi, off + ETL_SH_THREAD_ID, "header ThreadId", NUM_U, eh.ctx.thread_id, h->tid) <
		    0 ||
	    num(vi, off + ETL_SH_PROCESS_ID, "header ProcessId", NUM_U, eh.ctx.process_id, h->pid) <
		    0 ||
	    num(vi, off + ETL_SH_KERNEL_TIME, "header KernelTime", NUM_U, eh.ctx.kernel_time,
		h->kernel_time) < 0 ||
	    num(vi, off + ETL_SH_USER_TIME, "header UserTime", NUM_U, eh.ctx.user_time,
		h->user_time) < 0) {
		return -EBADMSG;
	}
	return 0;
}

/* The masks: the session's own when enabled, else zeros; the target's kernel event version. */
static int check_masks(struct verify_ident *vi, const struct etw_group_masks *g, uint64_t base,
		       const struct sim_masks *m)
{
	uint32_t want[ETW_GROUP_MASKS] = {0};

	if (m->enabled) {
		producer_group_masks(vi->s->flags, want);
	}
	for (unsigned i = 0; i < ETW_GROUP_MASKS; i++) {
		char field[32];

		snprintf(field, sizeof(field), "Masks[%u]", i);
		if (num(vi, base + 4u * i, field, NUM_X, g->masks[i], want[i]) < 0) {
			return -EBADMSG;
		}
	}
	return num(vi, base + 4u * ETW_GROUP_MASKS, "the masks' Version", NUM_U, g->version,
		   vi->cfg->target->kernel_event_version);
}

/*
 * An image record: its fields as the producer writes the line's
 * (producer_image_payload(): a process's rundown without TimeDateStamp),
 * or the one address of KernelBase / HypercallPage.
 */
static int check_image(struct verify_ident *vi, const struct etw_payload *pl, uint64_t base,
		       const struct sim_image *line)
{
	const bool x86 = vi->cfg->arch == ETL_ARCH_X86;
	const uint64_t mask = x86 ? 0xFFFFFFFFu : UINT64_MAX;
	const unsigned ver = vi->cfg->target->image_version;
	struct etw_image want;
	struct sim_image tt = *line;
	const struct sim_image *t = &tt;

	if (pl->kind == ETW_PAYLOAD_IMAGE_ADDRESS) {
		const uint64_t *w = &pl->u.address;

		ETW_IMAGE_ADDRESS_FIELDS(VI_ROW, (&(struct { uint64_t base; }){line->base}))
		return 0;
	}
	if (pl->kind != ETW_PAYLOAD_IMAGE) {
		return fail(vi, base, "the payload is not an image's");
	}
	(void)producer_image_payload(vi->cfg->target, line, &want);
	tt.timestamp = want.time_date_stamp;
	{
		const struct etw_image *w = &pl->u.im;

		ETW_IMAGE_FIELDS(VI_ROW, t)
	}
	return 0;
}

/*
 * A StackWalk: EventTimeStamp is the line's time in the session's clock,
 * the process, the thread and every frame are the line's.
 */
static int check_stack(struct verify_ident *vi, const struct etw_stack_walk *w, uint64_t base,
		       const struct sim_stack *line)
{
	const bool x86 = vi->cfg->arch == ETL_ARCH_X86;
	const uint64_t mask = x86 ? 0xFFFFFFFFu : UINT64_MAX;
	uint64_t want[ETW_STACK_MAX_FRAMES];
	int n = producer_stack_frames(line->frames, x86, want, ETW_STACK_MAX_FRAMES);
	char field[32];

	if (n < 0) {
		return fail(vi, base, "truth line %lu's frames are not a list of addresses",
			    vi->line);
	}
	if (num(vi, base, "EventTimeStamp", NUM_U, w->event_ts, line->ts[vi->s->clock]) < 0 ||
	    num(vi, base + 8, "StackProcess", NUM_U, w->process_id, line->pid) < 0 ||
	    num(vi, base + 12, "StackThread", NUM_U, w->thread_id, line->tid) < 0 ||
	    num(vi, base + 16, "the number of frames", NUM_U, w->frames.n, (uint64_t)n) < 0) {
		return -EBADMSG;
	}
	for (size_t i = 0; i < w->frames.n; i++) {
		snprintf(field, sizeof(field), "Stack[%zu]", i);
		if (num(vi, base + 16 + i * (x86 ? 4u : 8u), field, NUM_X,
			etw_frame(&w->frames, vi->cfg->arch, i) & mask, want[i] & mask) < 0) {
			return -EBADMSG;
		}
	}
	return 0;
}

/* The payload of @rec against truth line @tr (its hook already checked). */
static int check_payload(struct verify_ident *vi, int kind, const struct truth_record *tr,
			 const struct etl_record *rec)
{
	const bool x86 = vi->cfg->arch == ETL_ARCH_X86;
	const uint64_t mask = x86 ? 0xFFFFFFFFu : UINT64_MAX;
	const unsigned ver = rec->version;
	const uint64_t base = rec->file_offset + (uint64_t)(rec->payload - rec->data);
	struct etw_payload pl;

	(void)ver;
	if (kind == TRUTH_RUNDOWN) {
		return num(vi, base, "the payload's length", NUM_U, rec->payload_len, 0);
	}
	etw_decode_payload(rec->hook_id, rec->version, vi->cfg->arch, rec->payload,
			   rec->payload_len, &pl);
	if (pl.kind == ETW_PAYLOAD_NONE || pl.kind == ETW_PAYLOAD_SHORT) {
		return fail(vi, base, "the payload (%zu bytes) does not decode", rec->payload_len);
	}
	switch (kind) {
	case TRUTH_PROCESS: {
		const struct etw_process *w = &pl.u.pr;
		const struct sim_process *t = &tr->u.process;

		ETW_PROCESS_FIELDS(VI_ROW, t)
		if (w->sid.present && num(vi, base, "UserSID's TOKEN_USER.Sid (sid_token)", NUM_X,
					  w->sid.token_sid & mask, t->sid_token & mask) < 0) {
			return -EBADMSG;
		}
		return 0;
	}
	case TRUTH_THREAD: {
		const struct etw_thread *w = &pl.u.th;
		const struct sim_thread *t = &tr->u.thread;

		if (w->has_name != vi->cfg->target->thread_name) {
			return fail(vi, base, "the record %s ThreadName, target %s %s",
				    w->has_name ? "has a" : "has no", vi->cfg->target->name,
				    w->has_name ? "writes none" : "writes one");
		}
		ETW_THREAD_FIELDS(VI_ROW, t)
		return 0;
	}
	case TRUTH_THREAD_NAME: {
		const struct etw_thread_set_name *w = &pl.u.tsn;
		const struct sim_thread_name *t = &tr->u.thread_name;

		ETW_THREAD_SET_NAME_FIELDS(VI_ROW, t)
		return 0;
	}
	case TRUTH_READY: {
		const struct etw_ready_thread *w = &pl.u.rt;
		const struct sim_ready *t = &tr->u.ready;

		ETW_READY_FIELDS(VI_ROW, t)
		return 0;
	}
	case TRUTH_SAMPLE: {
		const struct etw_sampled_profile *w = &pl.u.sp;
		const struct sim_sample *t = &tr->u.sample;

		ETW_PROFILE_FIELDS(VI_ROW, t)
		return 0;
	}
	case TRUTH_INTERVAL: {
		const struct etw_profile_interval *w = &pl.u.pi;
		const struct sim_interval *t = &tr->u.interval;

		ETW_PROFILE_INTERVAL_FIELDS(VI_ROW, t)
		return 0;
	}
	case TRUTH_CONFIG: {
		const struct etw_cpu_config *w = &pl.u.cpu;
		const struct sim_cpu_config *t = &tr->u.cpu_config;

		ETW_CPU_CONFIG_FIELDS(VI_ROW, t)
		return 0;
	}
	case TRUTH_IMAGE:
		return check_image(vi, &pl, base, &tr->u.image);
	case TRUTH_STACK:
		if (pl.kind != ETW_PAYLOAD_STACK_WALK) {
			return fail(vi, base, "the payload is not a stack walk's");
		}
		return check_stack(vi, &pl.u.sw, base, &tr->u.stack);
	case TRUTH_DPC: {
		const struct etw_dpc *w = &pl.u.dpc;
		const struct sim_dpc *t = &tr->u.dpc;

		/* InitialTime: the line's in the session's clock; an ISR's tail its own */
		if (num(vi, base, "InitialTime", NUM_U, w->initial_time,
			t->initial_time[vi->s->clock]) < 0 ||
		    num(vi, base + 8, "Routine", NUM_X, w->routine & mask, t->routine & mask) < 0) {
			return -EBADMSG;
		}
		if (pl.kind == ETW_PAYLOAD_ISR &&
		    (num(vi, base + (x86 ? 0x0Cu : 0x10u), "ReturnValue", NUM_U, w->return_value,
			 t->return_value) < 0 ||
		     num(vi, base + (x86 ? 0x0Du : 0x11u), "Vector", NUM_U, w->vector, t->vector) <
			     0 ||
		     num(vi, base + (x86 ? 0x0Fu : 0x13u), "Reserved", NUM_U, w->reserved, 0) <
			     0)) {
			return -EBADMSG;
		}
		return 0;
	}
	default: /* TRUTH_MASKS */
		return check_masks(vi, &pl.u.gm, base, &tr->u.masks);
	}
}

/*
 * A merged session's identity of image line @t, the two records before its
 * image record on CPU @cpu: ImageID, then DbgID_RSDS (or None without a
 * pdb_guid), with the line's time, the header rules of the producer
 * (producer_records.c put_identity()) and the line's values.
 */
static int check_ktc(struct verify_ident *vi, unsigned cpu, const struct sim_image *t,
		     const struct line_head *h)
{
	const bool perfinfo = h->form_set && h->form.header != ETW_HEADER_SYSTEM;
	const char *slash = t->file_name ? strrchr(t->file_name, '\\') : NULL;
	const char *name = slash ? slash + 1 : t->file_name ? t->file_name : "";
	const bool none = !t->pdb_guid;

	for (unsigned k = 0; k < 2; k++) {
		static const char *const what[2] = {"ImageID", "DbgID"};
		uint8_t want_type = k == 0 ? ETW_KTC_IMAGE_ID
				    : none ? ETW_KTC_DBGID_NONE
					   : ETW_KTC_DBGID_RSDS;
		struct etl_full_header fh;
		struct etl_record rec;
		const uint8_t *pl;
		size_t len;
		int r = next_identity(vi, cpu, &rec);

		if (r <= 0) {
			return r < 0 ? r
				     : fail(vi, 0,
					    "the file has no more records, the %s of truth "
					    "line %lu first",
					    what[k], vi->line);
		}
		if (!is_ktc(&rec) || etl_decode_full_header(rec.data, rec.size, &fh) < 0) {
			return fail(vi, rec.file_offset,
				    "not the %s KernelTraceControl record a merged session puts "
				    "before truth line %lu",
				    what[k], vi->line);
		}
		pl = rec.data + ETL_FH_LEN;
		len = rec.size - ETL_FH_LEN;
		if (num(vi, rec.file_offset + ETL_FH_CLASS_TYPE, "Class.Type", NUM_X, fh.type,
			want_type) < 0 ||
		    num(vi, rec.file_offset + ETL_FH_CLASS_VERSION, "Class.Version", NUM_U,
			fh.version, ETW_VERSION_KTC) < 0 ||
		    num(vi, rec.file_offset + ETL_FH_THREAD_ID, "ThreadId", NUM_U, fh.thread_id,
			perfinfo ? UINT32_MAX : h->tid) < 0 ||
		    num(vi, rec.file_offset + ETL_FH_PROCESS_ID, "ProcessId", NUM_U, fh.process_id,
			perfinfo ? t->pid : h->pid) < 0 ||
		    num(vi, rec.file_offset + ETL_FH_TIME_STAMP, "TimeStamp", NUM_U, fh.ts,
			t->ts[vi->s->clock]) < 0) {
			return -EBADMSG;
		}
		if (k == 0) {
			struct etw_ktc_image_id id;
			char got[512];

			if (etw_decode_ktc_image_id(pl, len, vi->cfg->arch, &id) < 0) {
				return fail(vi, rec.file_offset, "the ImageID does not decode");
			}
			(void)etw_wstr_to_utf8(id.original_file_name, got, sizeof(got));
			if (num(vi, rec.file_offset, "ImageID ImageBase", NUM_X, id.image_base,
				t->base) < 0 ||
			    num(vi, rec.file_offset, "ImageID ImageSize", NUM_X, id.image_size,
				t->size) < 0 ||
			    num(vi, rec.file_offset, "ImageID ProcessId", NUM_U, id.process_id,
				t->pid) < 0 ||
			    num(vi, rec.file_offset, "ImageID TimeDateStamp", NUM_X,
				id.time_date_stamp, t->timestamp) < 0) {
				return -EBADMSG;
			}
			if (strcmp(got, name)) {
				return fail(vi, rec.file_offset,
					    "OriginalFileName \"%.100s\", truth line %lu says "
					    "\"%.100s\"",
					    got, vi->line, name);
			}
		} else {
			struct etw_ktc_dbgid d;
			uint8_t g[ETW_GUID_LEN] = {0};

			if (etw_decode_ktc_dbgid(pl, len, vi->cfg->arch, none, &d) < 0 ||
			    (!none && etw_guid_parse(t->pdb_guid, g) < 0)) {
				return fail(vi, rec.file_offset, "the DbgID does not decode");
			}
			if (num(vi, rec.file_offset, "DbgID ImageBase", NUM_X, d.image_base,
				t->base) < 0 ||
			    num(vi, rec.file_offset, "DbgID ProcessId", NUM_U, d.process_id,
				t->pid) < 0) {
				return -EBADMSG;
			}
			if (!none && (memcmp(d.guid, g, sizeof(g)) || d.age != t->pdb_age ||
				      strcmp(d.pdb_file_name ? d.pdb_file_name : "",
					     t->pdb_name ? t->pdb_name : ""))) {
				return fail(vi, rec.file_offset,
					    "the PDB identity is not truth line %lu's", vi->line);
			}
		}
	}
	return 0;
}

/*
 * The next identity record of @h's CPU, in its place (after as many
 * switch and spin-lock records as verify.c has matched), with @h's header.
 * @what names what the truth expects there. Return: 0, or -EBADMSG (@err set).
 */
static int next_placed(struct verify_ident *vi, const struct line_head *h, const char *what,
		       struct etl_record *rec)
{
	struct vident_cpu *c = &vi->cpus[h->cpu];
	int r = next_identity(vi, h->cpu, rec);

	if (r < 0) {
		return r;
	}
	if (r == 0) {
		return error_fail_at(vi->err, -EBADMSG, ERR_DATA,
				     "%s: cpu %" PRIu32 ": the file has no more identity records, "
				     "truth line %lu has %s",
				     vi->file, h->cpu, vi->line, what);
	}
	if (c->passed != c->placed) {
		return fail(vi, rec->file_offset,
			    "the record comes after %" PRIu64 " switch or spin-lock records of "
			    "cpu %" PRIu32 ", truth line %lu puts it after %" PRIu64,
			    c->passed, h->cpu, vi->line, c->placed);
	}
	return check_header(vi, rec, h) < 0 ? -EBADMSG : 0;
}

/* The payload of @rec as a stack key's definition: @key and its frames @ips[@n]. */
static int check_stack_def(struct verify_ident *vi, const struct etl_record *rec, uint64_t key,
			   const uint64_t *ips, size_t n)
{
	const uint64_t base = rec->file_offset + (uint64_t)(rec->payload - rec->data);
	const unsigned ptr = vi->cfg->arch == ETL_ARCH_X86 ? 4u : 8u;
	const uint64_t mask = ptr == 4 ? 0xFFFFFFFFu : UINT64_MAX;
	struct etw_stack_def d;
	char field[32];

	if (etw_decode_stack_def(rec->payload, rec->payload_len, vi->cfg->arch, &d) < 0) {
		return fail(vi, base, "the payload (%zu bytes) is not a stack key's definition",
			    rec->payload_len);
	}
	if (num(vi, base, "StackKey", NUM_X, d.key, key) < 0 ||
	    num(vi, base + ptr, "the number of frames", NUM_U, d.frames.n, n) < 0) {
		return -EBADMSG;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(field, sizeof(field), "Stack[%zu]", i);
		if (num(vi, base + ptr + i * ptr, field, NUM_X,
			etw_frame(&d.frames, vi->cfg->arch, i) & mask, ips[i] & mask) < 0) {
			return -EBADMSG;
		}
	}
	return 0;
}

/* Session's cache of @cpu, the same the producer keeps (made at its first stack). */
static struct stack_cache *cache_of(struct verify_ident *vi, unsigned cpu)
{
	if (!vi->caches[cpu]) {
		vi->caches[cpu] = stack_cache_create(
			vi->s->stack_cache,
			stack_cache_key_base(cpu, vi->cfg->arch == ETL_ARCH_X86));
		if (!vi->caches[cpu]) {
			error_fail(vi->err, -ENOMEM, ERR_DATA, "out of memory");
		}
	}
	return vi->caches[cpu];
}

/*
 * Stack line @tr in a session that caches stacks: what the producer's
 * cache makes of it (producer/stack_cache.h), record by record: the
 * definition of the entry it pushes out (KeyDelete), then its key reference
 * (StackKeyKernel / StackKeyUser). Return: 1 when the stack is not cached
 * (the caller checks its StackWalk), 0, or a negative errno (@err set).
 */
static int check_cached_stack(struct verify_ident *vi, const struct truth_record *tr,
			      struct line_head *h)
{
	const struct sim_stack *line = &tr->u.stack;
	const bool x86 = vi->cfg->arch == ETL_ARCH_X86;
	uint64_t want[ETW_STACK_MAX_FRAMES];
	int n = producer_stack_frames(line->frames, x86, want, ETW_STACK_MAX_FRAMES);
	struct stack_cache *c = cache_of(vi, h->cpu);
	struct stack_cache_victim victim;
	struct etl_record rec;
	struct etw_stack_key k;
	uint64_t key, base;
	int cached, r;

	if (!c) {
		return -ENOMEM;
	}
	if (n < 0) {
		return fail(vi, 0, "truth line %lu's frames are not a list of addresses", vi->line);
	}
	cached = stack_cache_get(c, want, (size_t)n, line->ts[vi->s->clock], &key, &victim);
	if (cached < 0) {
		return error_fail(vi->err, cached, ERR_DATA, "out of memory");
	}
	if (victim.n) {
		h->hook = ETW_HOOK_STACK_KEY_DELETE;
		if ((r = next_placed(vi, h, "a stack key's definition", &rec)) < 0 ||
		    (r = check_stack_def(vi, &rec, victim.key, victim.frames, victim.n)) < 0) {
			return r;
		}
	}
	if (!cached) {
		h->hook = ETW_HOOK_STACK_WALK;
		return 1;
	}
	h->hook = (x86 ? want[0] >= UINT64_C(0x80000000) : want[0] >= UINT64_C(0xFFFF800000000000))
			  ? ETW_HOOK_STACK_KEY_KERNEL
			  : ETW_HOOK_STACK_KEY_USER;
	if ((r = next_placed(vi, h, vi->what, &rec)) < 0) {
		return r;
	}
	base = rec.file_offset + (uint64_t)(rec.payload - rec.data);
	if (etw_decode_stack_key(rec.payload, rec.payload_len, vi->cfg->arch, &k) < 0) {
		return fail(vi, base, "the payload (%zu bytes) is not a stack key reference's",
			    rec.payload_len);
	}
	if (num(vi, base, "EventTimeStamp", NUM_U, k.event_ts, line->ts[vi->s->clock]) < 0 ||
	    num(vi, base + 8, "StackProcess", NUM_U, k.process_id, line->pid) < 0 ||
	    num(vi, base + 12, "StackThread", NUM_U, k.thread_id, line->tid) < 0 ||
	    num(vi, base + 16, "StackKey", NUM_X, k.key, key) < 0) {
		return -EBADMSG;
	}
	vi->n++;
	return 0;
}

int vident_line(struct verify_ident *vi, int kind, const struct truth_record *tr)
{
	struct line_head h;
	struct etl_record rec;
	int r;

	if (!vident_wants(vi, kind) ||
	    (kind == TRUTH_STACK && !(vi->s->flags & producer_stack_flag(tr->u.stack.event))) ||
	    (kind == TRUTH_DPC && !(vi->s->flags & producer_dpc_flag(tr->u.dpc.event)))) {
		return 0;
	}
	vi->line = tr->line;
	line_head(vi, kind, tr, &h);
	if (h.cpu >= vi->cfg->cpus) {
		return error_fail_at(vi->err, -EBADMSG, ERR_DATA,
				     "%s:%lu: %s: cpu %" PRIu32 " is past the machine's %u",
				     vi->truth_path, vi->line, vi->what, h.cpu, vi->cfg->cpus);
	}
	if (kind == TRUTH_STACK && vi->caches && (r = check_cached_stack(vi, tr, &h)) <= 0) {
		return r;
	}
	if (kind == TRUTH_IMAGE && vi->s->merged && h.form_set &&
	    (r = check_ktc(vi, h.cpu, &tr->u.image, &h)) < 0) {
		return r;
	}
	if ((r = next_placed(vi, &h, vi->what, &rec)) < 0) {
		return r;
	}
	if (check_payload(vi, kind, tr, &rec) < 0) {
		return -EBADMSG;
	}
	vi->n++;
	return 0;
}

int vident_end(struct verify_ident *vi, const uint64_t end_ts[SIM_CLOCK_SLOTS])
{
	for (unsigned cpu = 0; cpu < vi->cfg->cpus; cpu++) {
		struct etl_record rec;
		int r;

		/* the keys still cached: KeyRundown at the end of tracing */
		if (vi->caches && vi->caches[cpu]) {
			struct line_head h = {
				.cpu = cpu, .ts = end_ts, .hook = ETW_HOOK_STACK_KEY_RUNDOWN};
			const uint64_t *ips;
			size_t pos = 0, n;
			uint64_t key;

			snprintf(vi->what, sizeof(vi->what), "the stack keys' rundown");
			while (stack_cache_next(vi->caches[cpu], &pos, &key, &ips, &n)) {
				if ((r = next_placed(vi, &h, "a stack key's rundown", &rec)) < 0 ||
				    (r = check_stack_def(vi, &rec, key, ips, n)) < 0) {
					return r;
				}
			}
		}
		r = next_identity(vi, cpu, &rec);

		if (r < 0) {
			return r;
		}
		if (r > 0) {
			return error_fail_at(vi->err, -EBADMSG, ERR_DATA,
					     "%s: offset 0x%" PRIx64 ": cpu %u: an identity record "
					     "(hook 0x%04x) the truth does not have",
					     vi->file, rec.file_offset, cpu, rec.hook_id);
		}
	}
	return 0;
}
