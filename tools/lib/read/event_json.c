// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/event_json.c - events and files as the JSON objects `etwforge
 * dump --jsonl` prints, one per line: the file first, then each record with
 * its decoded payload (a stack's frames a list of hex strings, a GUID its
 * registry form), each switch of a compact batch after its batch.
 * Written with the library's one JSON writer (json_out.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "producer/records/cswitch.h"
#include "producer/records/dpc.h"
#include "producer/records/image.h"
#include "producer/records/ktc.h"
#include "producer/records/process.h"
#include "producer/records/profile.h"
#include "producer/records/ready.h"
#include "producer/records/spinlock.h"
#include "producer/records/stack.h"
#include "producer/records/sysconfig.h"
#include "producer/records/thread.h"
#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/common/json_out.h"

/* A member whose key is a string literal (written without an escape scan). */
#define JS_U(key, v)	(jout_key_lit(j, JOUT_LIT(key)), jout_u64(j, v))
#define JS_I(key, v)	(jout_key_lit(j, JOUT_LIT(key)), jout_i64(j, v))
#define JS_HEX(key, v)	(jout_key_lit(j, JOUT_LIT(key)), jout_hex(j, v))
#define JS_BOOL(key, v) (jout_key_lit(j, JOUT_LIT(key)), jout_bool(j, v))
#define JS_STR(key, v)	(jout_key_lit(j, JOUT_LIT(key)), jout_str(j, v))

/* FULL, INSTANCE, EVENT_HEADER: who logged it. */
static void provider(struct jout *j, const struct etwforge_record *r)
{
	if (!r->has_provider) {
		return;
	}
	JS_U("ts", r->ts);
	JS_U("tid", r->tid);
	JS_U("pid", r->pid);
	if (!strncmp(r->kind, "EVENT_HEADER", 12)) {
		JS_STR("provider", r->provider);
		JS_U("event_id", r->event_id);
		JS_U("event_version", r->event_version);
		JS_U("opcode", r->opcode);
		JS_U("level", r->level);
	} else {
		uint32_t kt, ut;

		JS_STR("guid", r->provider);
		JS_U("class_type", r->class_type);
		JS_U("class_level", r->class_level);
		JS_U("class_version", r->class_version);
		if (read_record_times(r, &kt, &ut)) {
			JS_U("kernel_time", kt);
			JS_U("user_time", ut);
		}
	}
}

/*
 * A payload's members as its table says (producer/records/): its key, how
 * it prints, in which pass (a field of pass 2 comes after every field of
 * pass 1) and when.
 */
#define JS_NONE(key, v) (void)0
#define JS_ROW1(x, name, ctype, json, jpass, jwhen, ...)                                           \
	if (jpass == 1 && (jwhen)) {                                                               \
		JS_##json(#name, c->name);                                                         \
	}
#define JS_ROW2(x, name, ctype, json, jpass, jwhen, ...)                                           \
	if (jpass == 2 && (jwhen)) {                                                               \
		JS_##json(#name, c->name);                                                         \
	}

/*
 * The identity records (the columns of producer/records/process.h): a
 * string NULL in the public struct (a field the record does not carry) is
 * null; a number is printed when its row's "when" holds.
 */
static void kstr_or_null(struct jout *j, const char *key, const char *v)
{
	if (v) {
		jout_kstr(j, key, v);
	} else {
		jout_key(j, key);
		jout_raw(j, "null", 4);
	}
}

static void kmasks(struct jout *j, const char *key, const uint32_t *m, unsigned n)
{
	jout_key(j, key);
	if (!m) {
		jout_raw(j, "null", 4);
		return;
	}
	jout_open(j, '[');
	for (unsigned i = 0; i < n; i++) {
		jout_sep(j);
		jout_u64(j, m[i]);
	}
	jout_close(j, ']');
}

#define JI_U(key, v, when, n)                                                                      \
	if (when) {                                                                                \
		jout_ku64(j, key, v);                                                              \
	}
#define JI_I(key, v, when, n)                                                                      \
	if (when) {                                                                                \
		jout_ki64(j, key, v);                                                              \
	}
#define JI_HEX(key, v, when, n)                                                                    \
	if (when) {                                                                                \
		jout_khex(j, key, v);                                                              \
	}
#define JI_BOOL(key, v, when, n)                                                                   \
	if (when) {                                                                                \
		jout_kbool(j, key, v);                                                             \
	}
/* A run of frames: a list of hex strings, innermost first. */
static void kframes(struct jout *j, const char *key, const uint64_t *f, size_t n)
{
	jout_key(j, key);
	jout_open(j, '[');
	for (size_t i = 0; i < n; i++) {
		jout_sep(j);
		jout_hex(j, f[i]);
	}
	jout_close(j, ']');
}

/* @n: the count of a FRAMES member (nNAME), not evaluated for the others */
#define JI_SID(key, v, when, n)			 kstr_or_null(j, key, v);
#define JI_ASTR(key, v, when, n)		 kstr_or_null(j, key, v);
#define JI_WSTR(key, v, when, n)		 kstr_or_null(j, key, v);
#define JI_GUID(key, v, when, n)		 kstr_or_null(j, key, v);
#define JI_MASKS(key, v, when, n)		 kmasks(j, key, v, c->nmasks);
#define JI_FRAMES(key, v, when, n)		 kframes(j, key, v, n);
#define JI_ROW(x, name, ctype, json, jwhen, ...) JI_##json(#name, c->name, jwhen, c->n##name)

/* An identity payload, as one member named after its kind: its fields do not meet the header's. */
static void identity(struct jout *j, const struct etwforge_record *r)
{
	const unsigned ver = r->version;

	(void)ver;
	switch (r->decoded) {
	case ETWFORGE_PAYLOAD_PROCESS: {
		const struct etwforge_process *c = &r->u.process;

		jout_key(j, "process");
		jout_open(j, '{');
		JS_STR("event", c->event);
		if (r->hook == 0x030B) {
			JS_U("pid", c->pid);
		} else {
			ETW_PROCESS_FIELDS(JI_ROW, )
		}
		break;
	}
	case ETWFORGE_PAYLOAD_THREAD: {
		const struct etwforge_thread *c = &r->u.thread;

		jout_key(j, "thread");
		jout_open(j, '{');
		JS_STR("event", c->event);
		ETW_THREAD_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_THREAD_NAME: {
		const struct etwforge_thread_name *c = &r->u.thread_name;

		jout_key(j, "thread_name");
		jout_open(j, '{');
		ETW_THREAD_SET_NAME_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_READY: {
		const struct etwforge_ready *c = &r->u.ready;

		jout_key(j, "ready");
		jout_open(j, '{');
		ETW_READY_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_SAMPLE: {
		const struct etwforge_sample *c = &r->u.sample;

		jout_key(j, "sample");
		jout_open(j, '{');
		ETW_PROFILE_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_PROFILE_INTERVAL: {
		const struct etwforge_profile_interval *c = &r->u.profile_interval;

		jout_key(j, "profile_interval");
		jout_open(j, '{');
		JS_STR("event", c->event);
		ETW_PROFILE_INTERVAL_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_SYSCONFIG_CPU: {
		const struct etwforge_sysconfig_cpu *c = &r->u.sysconfig_cpu;

		jout_key(j, "sysconfig_cpu");
		jout_open(j, '{');
		ETW_CPU_CONFIG_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_IMAGE: {
		const struct etwforge_image *c = &r->u.image;

		jout_key(j, "image");
		jout_open(j, '{');
		JS_STR("event", c->event);
		if (r->hook == 0x1421 || r->hook == 0x1422) {
			ETW_IMAGE_ADDRESS_FIELDS(JI_ROW, )
		} else {
			ETW_IMAGE_FIELDS(JI_ROW, )
		}
		break;
	}
	case ETWFORGE_PAYLOAD_STACK_WALK: {
		const struct etwforge_stack_walk *c = &r->u.stack;

		jout_key(j, "stack");
		jout_open(j, '{');
		ETW_STACK_WALK_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_STACK_KEY: {
		const struct etwforge_stack_key *c = &r->u.stack_key;

		jout_key(j, "stack_key");
		jout_open(j, '{');
		JS_STR("event", c->event);
		ETW_STACK_KEY_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_STACK_DEF: {
		const struct etwforge_stack_def *c = &r->u.stack_def;

		jout_key(j, "stack_def");
		jout_open(j, '{');
		JS_STR("event", c->event);
		ETW_STACK_DEF_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_DPC: {
		const struct etwforge_dpc *c = &r->u.dpc;

		jout_key(j, "dpc");
		jout_open(j, '{');
		JS_STR("event", c->event);
		if (r->hook == 0x0F43) {
			ETW_ISR_FIELDS(JI_ROW, )
		} else {
			ETW_DPC_FIELDS(JI_ROW, )
		}
		break;
	}
	case ETWFORGE_PAYLOAD_IMAGE_ID: {
		const struct etwforge_image_id *c = &r->u.image_id;

		jout_key(j, "image_id");
		jout_open(j, '{');
		ETW_KTC_IMAGE_ID_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_DBGID: {
		const struct etwforge_dbgid *c = &r->u.dbgid;
		const bool some = c->guid != NULL;

		jout_key(j, "dbgid");
		jout_open(j, '{');
		JS_STR("event", c->event);
		ETW_KTC_DBGID_FIELDS(JI_ROW, )
		break;
	}
	case ETWFORGE_PAYLOAD_FILE_VERSION: {
		const struct etwforge_file_version *c = &r->u.file_version;

		jout_key(j, "file_version");
		jout_open(j, '{');
		ETW_KTC_FILE_VERSION_FIELDS(JI_ROW, )
		break;
	}
	default: {
		const struct etwforge_rundown *c = &r->u.rundown;

		jout_key(j, "rundown");
		jout_open(j, '{');
		JS_STR("event", c->event);
		if (c->masks) {
			ETW_GROUP_MASKS_FIELDS(JI_ROW, )
		}
		break;
	}
	}
	jout_close(j, '}');
}

static void payload(struct jout *j, const struct etwforge_record *r)
{
	const unsigned ver = r->version;

	(void)ver;
	switch (r->decoded) {
	case ETWFORGE_PAYLOAD_CSWITCH: {
		const struct etwforge_cswitch *c = &r->u.cswitch;

		ETW_CSWITCH_FIELDS(JS_ROW1, )
		ETW_CSWITCH_FIELDS(JS_ROW2, )
		break;
	}
	case ETWFORGE_PAYLOAD_SPINLOCK: {
		const struct etwforge_spinlock *c = &r->u.spinlock;

		ETW_SPINLOCK_FIELDS(JS_ROW1, )
		ETW_SPINLOCK_FIELDS(JS_ROW2, )
		break;
	}
	case ETWFORGE_PAYLOAD_BATCH:
		JS_I("first_ts", r->u.batch.first_ts);
		JS_U("tids", r->u.batch.tids);
		JS_U("records_bytes", r->u.batch.record_bytes);
		break;
	case ETWFORGE_PAYLOAD_SPINLOCK_CONFIG: {
		const struct etwforge_spinlock_config *c = &r->u.spinlock_config;

		ETW_SPINLOCK_CONFIG_FIELDS(JS_ROW1, )
		ETW_SPINLOCK_CONFIG_FIELDS(JS_ROW2, )
		break;
	}
	case ETWFORGE_PAYLOAD_SHORT: {
		char what[64];

		snprintf(what, sizeof(what), "%s payload too short", read_record_name(r));
		JS_STR("decode_error", what);
		break;
	}
	case ETWFORGE_PAYLOAD_PROCESS:
	case ETWFORGE_PAYLOAD_THREAD:
	case ETWFORGE_PAYLOAD_THREAD_NAME:
	case ETWFORGE_PAYLOAD_READY:
	case ETWFORGE_PAYLOAD_SAMPLE:
	case ETWFORGE_PAYLOAD_PROFILE_INTERVAL:
	case ETWFORGE_PAYLOAD_SYSCONFIG_CPU:
	case ETWFORGE_PAYLOAD_RUNDOWN:
	case ETWFORGE_PAYLOAD_IMAGE:
	case ETWFORGE_PAYLOAD_STACK_WALK:
	case ETWFORGE_PAYLOAD_STACK_KEY:
	case ETWFORGE_PAYLOAD_STACK_DEF:
	case ETWFORGE_PAYLOAD_IMAGE_ID:
	case ETWFORGE_PAYLOAD_DBGID:
	case ETWFORGE_PAYLOAD_FILE_VERSION:
	case ETWFORGE_PAYLOAD_DPC:
		identity(j, r);
		break;
	case ETWFORGE_PAYLOAD_NONE:
		break;
	}
}

static void record(struct jout *j, const struct etwforge_record *r, unsigned flags)
{
	JS_U("buffer", r->buffer);
	JS_U("cpu", r->cpu);
	JS_U("offset", r->file_offset);
	JS_STR("kind", r->kind);
	jout_key_lit(j, JOUT_LIT("marker"));
	jout_hex_width(j, r->marker, 8, false);
	if (r->has_hook) {
		jout_key_lit(j, JOUT_LIT("hook"));
		jout_hex_width(j, r->hook, 4, true);
		JS_U("version", r->version);
	}
	JS_U("size", r->size);
	if (r->has_hook) {
		JS_U("ts", r->ts);
		if (strncmp(r->kind, "PERFINFO", 8)) {
			uint32_t kt, ut;

			JS_U("tid", r->tid);
			JS_U("pid", r->pid);
			if (read_record_times(r, &kt, &ut)) {
				JS_U("kernel_time", kt);
				JS_U("user_time", ut);
			}
		}
	}
	provider(j, r);
	if (r->has_pebs) {
		JS_U("pebs_index", r->pebs_index);
	}
	if (r->pmc_count) {
		jout_key(j, "pmc");
		jout_open(j, '[');
		for (unsigned i = 0; i < r->pmc_count; i++) {
			jout_sep(j);
			jout_u64(j, r->pmc[i]);
		}
		jout_close(j, ']');
	}
	payload(j, r);
	if (flags & ETWFORGE_JSON_RAW) {
		static const char hex[] = "0123456789abcdef";

		jout_key(j, "raw");
		jout_raw(j, "\"", 1);
		for (size_t i = 0; i < r->size; i++) {
			char two[2] = {hex[r->data[i] >> 4], hex[r->data[i] & 15]};

			jout_raw(j, two, 2);
		}
		jout_raw(j, "\"", 1);
	}
}

#define JS_COMPACT_ROW(x, name, ctype, json, key, jwhen, from)                                     \
	if (jwhen) {                                                                               \
		JS_##json(key, c->name);                                                           \
	}

static void compact(struct jout *j, const struct etwforge_event *ev)
{
	const struct etwforge_compact *c = &ev->u.compact;

	JS_U("buffer", ev->rec ? ev->rec->buffer : 0);
	JS_U("cpu", ev->cpu);
	JS_U("offset", ev->file_offset);
	JS_STR("kind", "CSWITCH_COMPACT");
	ETW_COMPACT_FIELDS(JS_COMPACT_ROW, )
}

static void buffer(struct jout *j, const struct etwforge_buffer *b)
{
	JS_STR("kind", "BUFFER");
	JS_U("buffer", b->index);
	JS_U("offset", b->file_offset);
	JS_U("size", b->buffer_size);
	JS_U("cpu", b->cpu);
	JS_I("seq", b->sequence);
	JS_I("ts", b->timestamp);
	JS_U("saved_offset", b->saved_offset);
	JS_U("offset_0x30", b->offset);
	JS_U("current_offset", b->current_offset);
	JS_U("flags", b->flag);
	JS_U("type", b->type);
	JS_U("state", b->state);
	JS_U("logger_id", b->logger_id);
	JS_BOOL("compressed", b->compressed);
	JS_BOOL("damaged", b->damaged);
}

size_t read_event_json(const struct etwforge_event *ev, unsigned flags, char *buf, size_t cap)
{
	struct jout j;

	jout_init(&j, buf, cap);
	jout_open(&j, '{');
	switch (ev->kind) {
	case ETWFORGE_EV_BUFFER:
		buffer(&j, &ev->u.buffer);
		break;
	case ETWFORGE_EV_COMPACT:
		compact(&j, ev);
		break;
	default:
		if (ev->rec) {
			record(&j, ev->rec, flags);
		}
		break;
	}
	jout_close(&j, '}');
	return jout_finish(&j);
}

static const char *clock_key(uint32_t c)
{
	switch (c) {
	case 1:
		return "qpc";
	case 2:
		return "systime";
	case 3:
		return "cycles";
	default:
		return "unknown";
	}
}

size_t read_file_json(const struct etwforge_file *f, char *buf, size_t cap)
{
	const struct etwforge_file_info *in = read_file_info(f);
	struct jout j;

	jout_init(&j, buf, cap);
	jout_open(&j, '{');
	jout_kstr(&j, "kind", "file");
	jout_kstr(&j, "format", "etwforge-dump");
	jout_ku64(&j, "version", 1);
	jout_kstr(&j, "file", in->name);
	jout_kstr(&j, "logger_name", in->logger_name);
	jout_kstr(&j, "logfile_name", in->logfile_name);
	jout_ku64(&j, "clock_type", in->clock_type);
	jout_kstr(&j, "clock", clock_key(in->clock_type));
	jout_ki64(&j, "perf_freq", in->perf_freq);
	jout_ku64(&j, "cpu_mhz", in->cpu_mhz);
	jout_ku64(&j, "pointer_size", in->pointer_size);
	jout_ku64(&j, "cpus", in->cpus);
	jout_ki64(&j, "start_time", in->start_time);
	jout_ki64(&j, "end_time", in->end_time);
	jout_ki64(&j, "boot_time", in->boot_time);
	jout_ku64(&j, "start_ts", in->start_ts);
	jout_ku64(&j, "timer_resolution", in->timer_resolution);
	jout_ku64(&j, "buffer_size", in->buffer_size);
	jout_ku64(&j, "buffers", in->buffers_written);
	jout_ku64(&j, "events_lost", in->events_lost);
	jout_ku64(&j, "buffers_lost", in->buffers_lost);
	jout_ku64(&j, "provider_version", in->provider_version);
	jout_ku64(&j, "log_file_mode", in->log_file_mode);
	jout_close(&j, '}');
	return jout_finish(&j);
}
