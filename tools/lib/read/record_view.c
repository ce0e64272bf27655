// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/record_view.c - the public views of what the framing
 * reader finds (read_internal.h): a record with its payload decoded by
 * producer's etw_decode_payload() (the one hook dispatcher of the project)
 * (or, for a classic event, etw_decode_classic_payload()) into the struct
 * of its kind, member by member from the record tables of
 * producer/records/, its strings in UTF-8 and its frames widened to 64
 * bits; a buffer; a switch expanded from a compact batch; and which event
 * of the iterator's kinds a record is.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "producer/ccswap_expand.h"
#include "producer/etw_encode.h"
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
#include "tools/lib/read/read.h"
#include "tools/lib/read/read_internal.h"
#include "writer/etl_layout.h"
#include "writer/etl_reader.h"
#include "writer/etl_wire.h"

static const char *kind_name(const struct etl_record *r)
{
	static const char *const names[ETL_KIND_COUNT][2] = {
		[ETL_KIND_SYSTEM] = {"SYSTEM32", "SYSTEM64"},
		[ETL_KIND_COMPACT] = {"COMPACT32", "COMPACT64"},
		[ETL_KIND_PERFINFO] = {"PERFINFO32", "PERFINFO64"},
		[ETL_KIND_FULL] = {"FULL_HEADER32", "FULL_HEADER64"},
		[ETL_KIND_INSTANCE] = {"INSTANCE32", "INSTANCE64"},
		[ETL_KIND_EVENT_HEADER] = {"EVENT_HEADER32", "EVENT_HEADER64"},
		[ETL_KIND_MESSAGE] = {"MESSAGE", "MESSAGE"},
		[ETL_KIND_OTHER] = {"OTHER", "OTHER"},
	};

	return (unsigned)r->kind < ETL_KIND_COUNT ? names[r->kind][r->is64] : "?";
}

/*
 * The public structs of the payloads, member by member from their tables
 * (producer/records/): each member is its row's "from", and has its row's
 * C type (checked here, so the public header cannot drift from a table).
 */
#define CONV_ROW(x, name, ctype, json, jpass, jwhen, from, ...) o->name = (ctype)(from);
#define PUB_TYPE(x, name, ctype, ...)                                                              \
	static_assert(_Generic(((struct x *)0)->name, ctype : 1, default : 0),                     \
		      "struct " #x "." #name " is a " #ctype " in its table");

ETW_CSWITCH_FIELDS(PUB_TYPE, etwforge_cswitch)
ETW_SPINLOCK_FIELDS(PUB_TYPE, etwforge_spinlock)
ETW_SPINLOCK_CONFIG_FIELDS(PUB_TYPE, etwforge_spinlock_config)
ETW_COMPACT_FIELDS(PUB_TYPE, etwforge_compact)

void read_conv_cswitch(const struct etw_cswitch *w, unsigned ver, struct etwforge_cswitch *o)
{
	ETW_CSWITCH_FIELDS(CONV_ROW, )
}

void read_conv_spinlock(const struct etw_spinlock *w, struct etwforge_spinlock *o)
{
	ETW_SPINLOCK_FIELDS(CONV_ROW, )
}

void read_conv_spinlock_config(const struct etw_spinlock_config *w,
			       struct etwforge_spinlock_config *o)
{
	ETW_SPINLOCK_CONFIG_FIELDS(CONV_ROW, )
}

/* Offsets inside the non-kernel headers, for the fields of struct etwforge_record. */
enum {
	EVH_THREAD_ID = 0x08, /* all of EVENT_HEADER, EVENT_TRACE_HEADER, INSTANCE */
	EVH_PROCESS_ID = 0x0C,
	EVH_TIMESTAMP = 0x10,
	EVH_GUID = 0x18,    /* ProviderId / Guid */
	EVH_DESC_ID = 0x28, /* EVENT_DESCRIPTOR: Id u16, Version, Channel, Level, Opcode */
	EVH_DESC_VERSION = 0x2A,
	EVH_DESC_LEVEL = 0x2C,
	EVH_DESC_OPCODE = 0x2D,
	ETH_CLASS_TYPE = 0x04, /* EVENT_TRACE_HEADER Class {Type, Level, Version u16} */
	ETH_CLASS_LEVEL = 0x05,
	ETH_CLASS_VERSION = 0x06,
};

/* FULL_HEADER, INSTANCE, EVENT_HEADER: tid/pid/ts at 8/0xC/0x10, and who logged it. */
static void provider_fields(const struct etl_record *r, struct etwforge_record *o, char *provider,
			    size_t cap)
{
	bool evh = r->kind == ETL_KIND_EVENT_HEADER;
	const uint8_t *g = r->data + EVH_GUID;

	if ((!evh && r->kind != ETL_KIND_FULL && r->kind != ETL_KIND_INSTANCE) ||
	    r->size < (evh ? EVH_DESC_OPCODE + 1u : EVH_GUID + 16u)) {
		return;
	}
	o->has_provider = true;
	o->ts = get_le64(r->data + EVH_TIMESTAMP);
	o->tid = get_le32(r->data + EVH_THREAD_ID);
	o->pid = get_le32(r->data + EVH_PROCESS_ID);
	snprintf(provider, cap, "{%08" PRIx32 "-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
		 get_le32(g), get_le16(g + 4), get_le16(g + 6), g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
	if (evh) {
		o->event_id = get_le16(r->data + EVH_DESC_ID);
		o->event_version = r->data[EVH_DESC_VERSION];
		o->opcode = r->data[EVH_DESC_OPCODE];
		o->level = r->data[EVH_DESC_LEVEL];
	} else {
		o->class_type = r->data[ETH_CLASS_TYPE];
		o->class_level = r->data[ETH_CLASS_LEVEL];
		o->class_version = get_le16(r->data + ETH_CLASS_VERSION);
	}
}

/*
 * The strings of the identity records, in @st->str: reserved at once for a
 * whole payload (every pointer handed out stays where it is), so that
 * @need bytes always fit: UTF-16 becomes at most 3 bytes a unit (1.5 x
 * its bytes), Latin-1 at most 2 bytes a byte, a SID at most 200 bytes.
 */
static bool str_reserve(struct rec_store *st, size_t payload_len)
{
	size_t need = 2 * payload_len + 512;

	st->str_len = 0;
	if (st->str_cap < need) {
		char *p = realloc(st->str, need);

		if (!p) {
			return false;
		}
		st->str = p;
		st->str_cap = need;
	}
	return true;
}

static const char *str_utf16(struct rec_store *st, struct etw_wstr w)
{
	char *out = st->str + st->str_len;
	int n = etw_wstr_to_utf8(w, out, st->str_cap - st->str_len);

	if (n < 0) {
		return "";
	}
	st->str_len += (size_t)n + 1;
	return out;
}

/* ImageFileName: ANSI, taken as Latin-1 (its bytes >= 0x80 each one code point). */
static const char *str_ansi(struct rec_store *st, const char *a)
{
	char *out = st->str + st->str_len, *o = out;

	if (!a) {
		return NULL;
	}
	for (const unsigned char *p = (const unsigned char *)a; *p; p++) {
		if ((size_t)(o - st->str) + 3 > st->str_cap) {
			break;
		}
		if (*p < 0x80) {
			*o++ = (char)*p;
		} else {
			*o++ = (char)(0xC0 | (*p >> 6));
			*o++ = (char)(0x80 | (*p & 0x3F));
		}
	}
	*o++ = '\0';
	st->str_len = (size_t)(o - st->str);
	return out;
}

/* The SID as Windows writes it: S-R-A-S1-S2-...; an authority of 2^32 or more in hex. */
static const char *str_sid(struct rec_store *st, const struct etw_sid *sid)
{
	char *out = st->str + st->str_len;
	size_t cap = st->str_cap - st->str_len, n;
	uint64_t auth = 0;

	if (!sid->present) {
		return NULL;
	}
	for (unsigned i = 0; i < ETW_SID_AUTHORITY_LEN; i++) {
		auth = auth << 8 | sid->authority[i];
	}
	n = (size_t)snprintf(out, cap, auth >> 32 ? "S-%u-0x%" PRIx64 : "S-%u-%" PRIu64,
			     sid->revision, auth);
	for (unsigned i = 0; i < sid->sub_count && i < ETW_SID_MAX_SUB && n < cap; i++) {
		n += (size_t)snprintf(out + n, cap - n, "-%" PRIu32, sid->sub[i]);
	}
	st->str_len += (n < cap ? n : cap - 1) + 1;
	return out;
}

/* The GUID of a PDB, as its registry form, into the store. */
static const char *str_guid(struct rec_store *st, const uint8_t *g)
{
	char *out = st->str + st->str_len;

	etw_guid_format(g, out);
	st->str_len += ETW_GUID_STR_LEN + 1;
	return out;
}

/*
 * The frames of a stack record, widened to 64 bits, into the store (grown
 * to fit: a record holds at most 65535 bytes). @n is set to their number.
 * Return: them; NULL (and @n 0) when no memory.
 */
static const uint64_t *str_frames(struct rec_store *st, const struct etw_frames *f,
				  enum etl_arch arch, size_t *n)
{
	*n = 0;
	if (f->n > st->frames_cap) {
		uint64_t *p = realloc(st->frames, f->n * sizeof(*p));

		if (!p) {
			return NULL;
		}
		st->frames = p;
		st->frames_cap = f->n;
	}
	for (size_t i = 0; i < f->n; i++) {
		st->frames[i] = etw_frame(f, arch, i);
	}
	*n = f->n;
	return st->frames;
}

/*
 * The identity, image and stack records from their tables (the columns of
 * producer/records/process.h): a number as its row's "from"; a string
 * (SID, ASTR, WSTR, GUID) into the record's store, NULL when its row's
 * "when" does not hold; the group masks copied into the store; frames
 * widened into it, member NAME with its count nNAME.
 */
#define ID_U(st, x, name, from, when)		       x->name = (from)
#define ID_I(st, x, name, from, when)		       x->name = (from)
#define ID_HEX(st, x, name, from, when)		       x->name = (from)
#define ID_BOOL(st, x, name, from, when)	       x->name = (from)
#define ID_SID(st, x, name, from, when)		       x->name = str_sid(st, from)
#define ID_ASTR(st, x, name, from, when)	       x->name = (when) ? str_ansi(st, from) : NULL
#define ID_WSTR(st, x, name, from, when)	       x->name = (when) ? str_utf16(st, from) : NULL
#define ID_GUID(st, x, name, from, when)	       x->name = (when) ? str_guid(st, from) : NULL
#define ID_FRAMES(st, x, name, from, when)	       x->name = str_frames(st, from, arch, &x->n##name)
#define ID_MASKS(st, x, name, from, when)	       x->name = memcpy(st->masks, from, sizeof(st->masks))
#define ID_ROW(x, name, ctype, json, jwhen, from, ...) ID_##json(st, x, name, from, jwhen);

/* The public member's type: the row's own for numbers, UTF-8 for a string. */
#define ID_TYPE_U(x, name, ctype)	   PUB_TYPE(x, name, ctype, )
#define ID_TYPE_I(x, name, ctype)	   PUB_TYPE(x, name, ctype, )
#define ID_TYPE_HEX(x, name, ctype)	   PUB_TYPE(x, name, ctype, )
#define ID_TYPE_BOOL(x, name, ctype)	   PUB_TYPE(x, name, ctype, )
#define ID_TYPE_SID(x, name, ctype)	   PUB_TYPE(x, name, const char *, )
#define ID_TYPE_ASTR(x, name, ctype)	   PUB_TYPE(x, name, const char *, )
#define ID_TYPE_WSTR(x, name, ctype)	   PUB_TYPE(x, name, const char *, )
#define ID_TYPE_MASKS(x, name, ctype)	   PUB_TYPE(x, name, const uint32_t *, )
#define ID_TYPE_GUID(x, name, ctype)	   PUB_TYPE(x, name, const char *, )
#define ID_TYPE_FRAMES(x, name, ctype)	   PUB_TYPE(x, name, const uint64_t *, )
#define ID_TYPE(x, name, ctype, json, ...) ID_TYPE_##json(x, name, ctype)

ETW_PROCESS_FIELDS(ID_TYPE, etwforge_process)
ETW_THREAD_FIELDS(ID_TYPE, etwforge_thread)
ETW_THREAD_SET_NAME_FIELDS(ID_TYPE, etwforge_thread_name)
ETW_READY_FIELDS(ID_TYPE, etwforge_ready)
ETW_PROFILE_FIELDS(ID_TYPE, etwforge_sample)
ETW_PROFILE_INTERVAL_FIELDS(ID_TYPE, etwforge_profile_interval)
ETW_CPU_CONFIG_FIELDS(ID_TYPE, etwforge_sysconfig_cpu)
ETW_GROUP_MASKS_FIELDS(ID_TYPE, etwforge_rundown)
ETW_IMAGE_FIELDS(ID_TYPE, etwforge_image)
ETW_IMAGE_ADDRESS_FIELDS(ID_TYPE, etwforge_image)
ETW_STACK_WALK_FIELDS(ID_TYPE, etwforge_stack_walk)
ETW_STACK_KEY_FIELDS(ID_TYPE, etwforge_stack_key)
ETW_STACK_DEF_FIELDS(ID_TYPE, etwforge_stack_def)
ETW_KTC_IMAGE_ID_FIELDS(ID_TYPE, etwforge_image_id)
ETW_KTC_DBGID_FIELDS(ID_TYPE, etwforge_dbgid)
ETW_KTC_FILE_VERSION_FIELDS(ID_TYPE, etwforge_file_version)
ETW_ISR_FIELDS(ID_TYPE, etwforge_dpc)

static const char *event_name(uint16_t hook)
{
	switch (hook) {
	case ETW_HOOK_PROCESS_START:
	case ETW_HOOK_THREAD_START:
		return "start";
	case ETW_HOOK_PROCESS_END:
	case ETW_HOOK_THREAD_END:
		return "end";
	case ETW_HOOK_PROCESS_DC_START:
	case ETW_HOOK_THREAD_DC_START:
	case ETW_HOOK_PROFILE_INTERVAL_DC_S:
		return "dcstart";
	case ETW_HOOK_PROCESS_DC_END:
	case ETW_HOOK_THREAD_DC_END:
	case ETW_HOOK_PROFILE_INTERVAL_DC_E:
		return "dcend";
	case ETW_HOOK_PROCESS_DEFUNCT:
		return "defunct";
	case ETW_HOOK_PROCESS_TERMINATE:
		return "terminate";
	case ETW_HOOK_PROFILE_SET_INTERVAL:
		return "set";
	case ETW_HOOK_GROUP_MASKS_END:
		return "masks_end";
	case ETW_HOOK_RUNDOWN_COMPLETE:
		return "complete";
	case ETW_HOOK_IMAGE_LOAD:
		return "load";
	case ETW_HOOK_IMAGE_UNLOAD:
		return "unload";
	case ETW_HOOK_IMAGE_DC_START:
		return "dcstart";
	case ETW_HOOK_IMAGE_DC_END:
		return "dcend";
	case ETW_HOOK_IMAGE_KERNEL_BASE:
		return "kernel_base";
	case ETW_HOOK_IMAGE_HYPERCALL:
		return "hypercall_page";
	case ETW_HOOK_STACK_KEY_KERNEL:
		return "kernel";
	case ETW_HOOK_STACK_KEY_USER:
		return "user";
	case ETW_HOOK_STACK_KEY_CREATE:
		return "create";
	case ETW_HOOK_STACK_KEY_DELETE:
		return "delete";
	case ETW_HOOK_STACK_KEY_RUNDOWN:
		return "rundown";
	case ETW_HOOK_THREADED_DPC:
		return "threaded_dpc";
	case ETW_HOOK_ISR:
		return "isr";
	case ETW_HOOK_DPC:
		return "dpc";
	case ETW_HOOK_TIMER_DPC:
		return "timer_dpc";
	default:
		return "masks"; /* 0x0005 */
	}
}

/* A KernelTraceControl DbgID record's kind, by its Class.Type. */
static const char *dbgid_event(uint8_t type)
{
	return type == ETW_KTC_DBGID_RSDS     ? "rsds"
	       : type == ETW_KTC_DBGID_ILRSDS ? "ilrsds"
					      : "none";
}

/*
 * The public view of an identity payload @pl of record @r into @o, its
 * strings in @st. Return: false when its strings find no memory (the
 * record is then handed out undecoded).
 */
static bool conv_identity(const struct etw_payload *pl, const struct etl_record *r,
			  struct rec_store *st, struct etwforge_record *o)
{
	const unsigned ver = r->version;
	const enum etl_arch arch = r->is64 ? ETL_ARCH_X64 : ETL_ARCH_X86;
	const bool some = pl->kind != ETW_PAYLOAD_KTC_DBGID_NONE;

	(void)ver;
	if (!str_reserve(st, r->payload_len)) {
		return false;
	}
	switch (pl->kind) {
	case ETW_PAYLOAD_PROCESS: {
		const struct etw_process *w = &pl->u.pr;
		struct etwforge_process *p = &o->u.process;

		ETW_PROCESS_FIELDS(ID_ROW, p)
		if (ver < 5) {
			p->exit_time = 0;
		}
		p->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_PROCESS;
		break;
	}
	case ETW_PAYLOAD_PROCESS_TERMINATE:
		o->u.process.event = event_name(r->hook_id);
		o->u.process.pid = pl->u.terminated_pid;
		o->decoded = ETWFORGE_PAYLOAD_PROCESS;
		break;
	case ETW_PAYLOAD_THREAD: {
		const struct etw_thread *w = &pl->u.th;
		struct etwforge_thread *o2 = &o->u.thread;

		ETW_THREAD_FIELDS(ID_ROW, o2)
		o2->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_THREAD;
		break;
	}
	case ETW_PAYLOAD_THREAD_SET_NAME: {
		const struct etw_thread_set_name *w = &pl->u.tsn;
		struct etwforge_thread_name *o2 = &o->u.thread_name;

		ETW_THREAD_SET_NAME_FIELDS(ID_ROW, o2)
		o->decoded = ETWFORGE_PAYLOAD_THREAD_NAME;
		break;
	}
	case ETW_PAYLOAD_READY_THREAD: {
		const struct etw_ready_thread *w = &pl->u.rt;
		struct etwforge_ready *o2 = &o->u.ready;

		ETW_READY_FIELDS(ID_ROW, o2)
		o->decoded = ETWFORGE_PAYLOAD_READY;
		break;
	}
	case ETW_PAYLOAD_SAMPLED_PROFILE: {
		const struct etw_sampled_profile *w = &pl->u.sp;
		struct etwforge_sample *o2 = &o->u.sample;

		ETW_PROFILE_FIELDS(ID_ROW, o2)
		o->decoded = ETWFORGE_PAYLOAD_SAMPLE;
		break;
	}
	case ETW_PAYLOAD_PROFILE_INTERVAL: {
		const struct etw_profile_interval *w = &pl->u.pi;
		struct etwforge_profile_interval *o2 = &o->u.profile_interval;

		ETW_PROFILE_INTERVAL_FIELDS(ID_ROW, o2)
		o2->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_PROFILE_INTERVAL;
		break;
	}
	case ETW_PAYLOAD_CPU_CONFIG: {
		const struct etw_cpu_config *w = &pl->u.cpu;
		struct etwforge_sysconfig_cpu *o2 = &o->u.sysconfig_cpu;

		ETW_CPU_CONFIG_FIELDS(ID_ROW, o2)
		o->decoded = ETWFORGE_PAYLOAD_SYSCONFIG_CPU;
		break;
	}
	case ETW_PAYLOAD_GROUP_MASKS: {
		const struct etw_group_masks *w = &pl->u.gm;
		struct etwforge_rundown *o2 = &o->u.rundown;

		ETW_GROUP_MASKS_FIELDS(ID_ROW, o2)
		o2->nmasks = ETW_GROUP_MASKS;
		o2->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_RUNDOWN;
		break;
	}
	case ETW_PAYLOAD_RUNDOWN_COMPLETE:
		o->u.rundown.event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_RUNDOWN;
		break;
	case ETW_PAYLOAD_IMAGE: {
		const struct etw_image *w = &pl->u.im;
		struct etwforge_image *o2 = &o->u.image;

		ETW_IMAGE_FIELDS(ID_ROW, o2)
		o2->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_IMAGE;
		break;
	}
	case ETW_PAYLOAD_IMAGE_ADDRESS: {
		const uint64_t *w = &pl->u.address;
		struct etwforge_image *o2 = &o->u.image;

		ETW_IMAGE_ADDRESS_FIELDS(ID_ROW, o2)
		o2->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_IMAGE;
		break;
	}
	case ETW_PAYLOAD_STACK_WALK: {
		const struct etw_stack_walk *w = &pl->u.sw;
		struct etwforge_stack_walk *o2 = &o->u.stack;

		ETW_STACK_WALK_FIELDS(ID_ROW, o2)
		if (!o2->frames && w->frames.n) {
			return false;
		}
		o->decoded = ETWFORGE_PAYLOAD_STACK_WALK;
		break;
	}
	case ETW_PAYLOAD_DPC:
	case ETW_PAYLOAD_ISR: {
		const struct etw_dpc *w = &pl->u.dpc;
		struct etwforge_dpc *o2 = &o->u.dpc;

		ETW_ISR_FIELDS(ID_ROW, o2)
		o2->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_DPC;
		break;
	}
	case ETW_PAYLOAD_STACK_KEY: {
		const struct etw_stack_key *w = &pl->u.sk;
		struct etwforge_stack_key *o2 = &o->u.stack_key;

		ETW_STACK_KEY_FIELDS(ID_ROW, o2)
		o2->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_STACK_KEY;
		break;
	}
	case ETW_PAYLOAD_STACK_DEF: {
		const struct etw_stack_def *w = &pl->u.sd;
		struct etwforge_stack_def *o2 = &o->u.stack_def;

		ETW_STACK_DEF_FIELDS(ID_ROW, o2)
		if (!o2->frames && w->frames.n) {
			return false;
		}
		o2->event = event_name(r->hook_id);
		o->decoded = ETWFORGE_PAYLOAD_STACK_DEF;
		break;
	}
	case ETW_PAYLOAD_KTC_IMAGE_ID: {
		const struct etw_ktc_image_id *w = &pl->u.kid;
		struct etwforge_image_id *o2 = &o->u.image_id;

		ETW_KTC_IMAGE_ID_FIELDS(ID_ROW, o2)
		o->decoded = ETWFORGE_PAYLOAD_IMAGE_ID;
		break;
	}
	case ETW_PAYLOAD_KTC_DBGID:
	case ETW_PAYLOAD_KTC_DBGID_NONE: {
		const struct etw_ktc_dbgid *w = &pl->u.kdb;
		struct etwforge_dbgid *o2 = &o->u.dbgid;

		ETW_KTC_DBGID_FIELDS(ID_ROW, o2)
		o2->event = dbgid_event(o->class_type);
		o->decoded = ETWFORGE_PAYLOAD_DBGID;
		break;
	}
	case ETW_PAYLOAD_KTC_FILE_VERSION: {
		const struct etw_ktc_file_version *w = &pl->u.kfv;
		struct etwforge_file_version *o2 = &o->u.file_version;

		ETW_KTC_FILE_VERSION_FIELDS(ID_ROW, o2)
		o->decoded = ETWFORGE_PAYLOAD_FILE_VERSION;
		break;
	}
	default:
		break;
	}
	return true;
}

/* The GUID of a classic event's header (EVENT_TRACE_HEADER.Guid, 16 wire bytes). */
static const uint8_t *classic_guid(const struct etl_record *r)
{
	return r->kind == ETL_KIND_FULL && r->size >= EVH_GUID + ETW_GUID_LEN ? r->data + EVH_GUID
									      : NULL;
}

/* The public view of record @r of buffer @buffer, its payload decoded, into @st. */
void rv_conv_record(const struct etl_record *r, unsigned buffer, struct rec_store *st)
{
	struct etwforge_record *o = &st->rec;

	memset(o, 0, sizeof(*o));
	st->provider[0] = '\0';
	o->provider = st->provider;
	o->pmc = st->pmc;
	o->buffer = buffer;
	o->cpu = r->cpu;
	o->file_offset = r->file_offset;
	o->size = r->size;
	o->marker = r->marker;
	o->header_type = r->header_type;
	o->kind = kind_name(r);
	o->is64 = r->is64;
	o->has_hook = r->kind == ETL_KIND_SYSTEM || r->kind == ETL_KIND_COMPACT ||
		      r->kind == ETL_KIND_PERFINFO;
	if (o->has_hook) {
		o->hook = r->hook_id;
		o->version = r->version;
		o->ts = r->ts;
		if (r->kind != ETL_KIND_PERFINFO && r->size >= ETL_SH_PROCESS_ID + 4) {
			o->tid = get_le32(r->data + ETL_SH_THREAD_ID);
			o->pid = get_le32(r->data + ETL_SH_PROCESS_ID);
		}
	}
	provider_fields(r, o, st->provider, sizeof(st->provider));
	o->has_pebs = r->has_pebs;
	o->pebs_index = r->pebs_index;
	o->pmc_count = r->pmc_count;
	static_assert(sizeof(st->pmc) == sizeof(r->pmc), "PMC counters");
	memcpy(st->pmc, r->pmc, sizeof(st->pmc));
	o->data = r->data;
	o->payload = r->payload;
	o->payload_len = r->payload_len;
	if (r->kind == ETL_KIND_PERFINFO || r->kind == ETL_KIND_SYSTEM) {
		struct etw_payload pl;

		etw_decode_payload(r->hook_id, r->version, r->is64 ? ETL_ARCH_X64 : ETL_ARCH_X86,
				   r->payload, r->payload_len, &pl);
		switch (pl.kind) {
		case ETW_PAYLOAD_CSWITCH:
			o->decoded = ETWFORGE_PAYLOAD_CSWITCH;
			read_conv_cswitch(&pl.u.cs, r->version, &o->u.cswitch);
			break;
		case ETW_PAYLOAD_SPINLOCK:
			o->decoded = ETWFORGE_PAYLOAD_SPINLOCK;
			read_conv_spinlock(&pl.u.sl, &o->u.spinlock);
			break;
		case ETW_PAYLOAD_BATCH:
			o->decoded = ETWFORGE_PAYLOAD_BATCH;
			o->u.batch.first_ts = pl.u.cb.first_ts;
			static_assert(sizeof(st->tid_table) == sizeof(pl.u.cb.tid_table),
				      "TidTable");
			static_assert(sizeof(st->base_pri) == sizeof(pl.u.cb.base_pri), "BasePri");
			memcpy(st->tid_table, pl.u.cb.tid_table, sizeof(st->tid_table));
			memcpy(st->base_pri, pl.u.cb.base_pri, sizeof(st->base_pri));
			o->u.batch.tid_table = st->tid_table;
			o->u.batch.base_pri = st->base_pri;
			o->u.batch.tids = pl.tids;
			o->u.batch.record_bytes = pl.batch_bytes;
			break;
		case ETW_PAYLOAD_SPINLOCK_CONFIG:
			o->decoded = ETWFORGE_PAYLOAD_SPINLOCK_CONFIG;
			read_conv_spinlock_config(&pl.u.sc, &o->u.spinlock_config);
			break;
		case ETW_PAYLOAD_SHORT:
			o->decoded = ETWFORGE_PAYLOAD_SHORT;
			break;
		case ETW_PAYLOAD_NONE:
			break;
		case ETW_PAYLOAD_IMAGE:
		case ETW_PAYLOAD_IMAGE_ADDRESS:
		case ETW_PAYLOAD_STACK_WALK:
		case ETW_PAYLOAD_STACK_KEY:
		case ETW_PAYLOAD_STACK_DEF:
		case ETW_PAYLOAD_DPC:
		case ETW_PAYLOAD_ISR:
		case ETW_PAYLOAD_KTC_IMAGE_ID:
		case ETW_PAYLOAD_KTC_DBGID:
		case ETW_PAYLOAD_KTC_DBGID_NONE:
		case ETW_PAYLOAD_KTC_FILE_VERSION:
		case ETW_PAYLOAD_PROCESS:
		case ETW_PAYLOAD_PROCESS_TERMINATE:
		case ETW_PAYLOAD_THREAD:
		case ETW_PAYLOAD_THREAD_SET_NAME:
		case ETW_PAYLOAD_READY_THREAD:
		case ETW_PAYLOAD_SAMPLED_PROFILE:
		case ETW_PAYLOAD_PROFILE_INTERVAL:
		case ETW_PAYLOAD_CPU_CONFIG:
		case ETW_PAYLOAD_GROUP_MASKS:
		case ETW_PAYLOAD_RUNDOWN_COMPLETE:
			conv_identity(&pl, r, st, o);
			break;
		}
	} else if (classic_guid(r)) {
		struct etw_payload pl;

		etw_decode_classic_payload(classic_guid(r), o->class_type, o->class_version,
					   r->is64 ? ETL_ARCH_X64 : ETL_ARCH_X86, r->payload,
					   r->payload_len, &pl);
		if (pl.kind == ETW_PAYLOAD_SHORT) {
			o->decoded = ETWFORGE_PAYLOAD_SHORT;
		} else if (pl.kind != ETW_PAYLOAD_NONE) {
			conv_identity(&pl, r, st, o);
		}
	}
}

#define CONV_COMPACT_ROW(x, name, ctype, json, key, jwhen, from) c->name = (ctype)(from);

static void conv_compact(const struct dec_event *ev, struct rec_store *rc, struct etwforge_event *o)
{
	const struct etw_cswitch_compact *cc = &ev->u.cc;
	struct etwforge_compact *c = &o->u.compact;

	o->kind = ETWFORGE_EV_COMPACT;
	o->cpu = ev->cpu;
	o->ts = cc->ts;
	o->file_offset = ev->file_offset;
	if (rc->data != ev->rec.data) {
		rv_conv_record(&ev->rec, 0, rc);
		rc->data = ev->rec.data;
	}
	o->rec = &rc->rec;
	memset(c, 0, sizeof(*c));
	ETW_COMPACT_FIELDS(CONV_COMPACT_ROW, )
}

void rv_conv_buffer(const struct etl_buffer *b, struct etwforge_event *o)
{
	struct etwforge_buffer *ob = &o->u.buffer;

	memset(o, 0, sizeof(*o));
	o->kind = ETWFORGE_EV_BUFFER;
	o->cpu = b->processor_index;
	o->ts = (uint64_t)b->timestamp;
	o->file_offset = b->file_offset;
	ob->index = b->index;
	ob->file_offset = b->file_offset;
	ob->buffer_size = b->buffer_size;
	ob->saved_offset = b->saved_offset;
	ob->current_offset = b->current_offset;
	ob->timestamp = b->timestamp;
	ob->sequence = b->sequence;
	ob->cpu = b->processor_index;
	ob->logger_id = b->logger_id;
	ob->state = b->state;
	ob->offset = b->offset;
	ob->flag = b->flag;
	ob->type = b->type;
	ob->compressed = b->compressed;
	ob->decompressed = b->decompressed;
	ob->damaged = b->damaged;
	ob->data_end = b->data_end;
}

void rv_conv_dec_event(const struct dec_event *ev, struct rec_store *rc, struct rec_store *cur,
		       struct etwforge_event *o)
{
	if (ev->kind == DEC_EV_COMPACT) {
		conv_compact(ev, rc, o); /* it writes every field but the union's others */
		return;
	}
	memset(o, 0, sizeof(*o));
	o->cpu = ev->cpu;
	o->ts = ev->rec.ts;
	o->file_offset = ev->file_offset;
	rv_conv_record(&ev->rec, 0, cur);
	o->rec = &cur->rec;
	if (ev->kind == DEC_EV_CSWITCH) {
		o->kind = ETWFORGE_EV_CSWITCH;
		read_conv_cswitch(&ev->u.cs, ev->rec.version, &o->u.cswitch);
	} else if (ev->kind == DEC_EV_READY) {
		const struct etw_ready_thread *w = &ev->u.rt;
		struct etwforge_ready *o2 = &o->u.ready;

		o->kind = ETWFORGE_EV_READY;
		ETW_READY_FIELDS(ID_ROW, o2)
	} else {
		o->kind = ETWFORGE_EV_SPINLOCK;
		read_conv_spinlock(&ev->u.sl, &o->u.spinlock);
	}
}

/* An identity record's own event, when @kinds asks for its kind. */
static bool identity_event(unsigned kinds, const struct etwforge_record *r,
			   struct etwforge_event *ev)
{
	static const unsigned kind_of[] = {
		[ETWFORGE_PAYLOAD_PROCESS] = ETWFORGE_EV_PROCESS,
		[ETWFORGE_PAYLOAD_THREAD] = ETWFORGE_EV_THREAD,
		[ETWFORGE_PAYLOAD_THREAD_NAME] = ETWFORGE_EV_THREAD_NAME,
		[ETWFORGE_PAYLOAD_READY] = ETWFORGE_EV_READY,
		[ETWFORGE_PAYLOAD_SAMPLE] = ETWFORGE_EV_SAMPLE,
		[ETWFORGE_PAYLOAD_PROFILE_INTERVAL] = ETWFORGE_EV_PROFILE_INTERVAL,
		[ETWFORGE_PAYLOAD_SYSCONFIG_CPU] = ETWFORGE_EV_SYSCONFIG_CPU,
		[ETWFORGE_PAYLOAD_RUNDOWN] = ETWFORGE_EV_RUNDOWN,
		[ETWFORGE_PAYLOAD_IMAGE] = ETWFORGE_EV_IMAGE,
		[ETWFORGE_PAYLOAD_STACK_WALK] = ETWFORGE_EV_STACK,
		[ETWFORGE_PAYLOAD_STACK_KEY] = ETWFORGE_EV_STACK_KEY,
		[ETWFORGE_PAYLOAD_STACK_DEF] = ETWFORGE_EV_STACK_DEF,
		[ETWFORGE_PAYLOAD_IMAGE_ID] = ETWFORGE_EV_IMAGE_ID,
		[ETWFORGE_PAYLOAD_DBGID] = ETWFORGE_EV_DBGID,
		[ETWFORGE_PAYLOAD_FILE_VERSION] = ETWFORGE_EV_FILE_VERSION,
	};
	unsigned k = (unsigned)r->decoded < sizeof(kind_of) / sizeof(kind_of[0])
			     ? kind_of[r->decoded]
			     : 0;

	if (!k || !(kinds & k)) {
		return false;
	}
	ev->kind = (enum etwforge_event_kind)k;
	static_assert(sizeof(ev->u) >= sizeof(r->u), "the event's union holds the record's");
	switch (r->decoded) {
	case ETWFORGE_PAYLOAD_PROCESS:
		ev->u.process = r->u.process;
		break;
	case ETWFORGE_PAYLOAD_THREAD:
		ev->u.thread = r->u.thread;
		break;
	case ETWFORGE_PAYLOAD_THREAD_NAME:
		ev->u.thread_name = r->u.thread_name;
		break;
	case ETWFORGE_PAYLOAD_READY:
		ev->u.ready = r->u.ready;
		break;
	case ETWFORGE_PAYLOAD_SAMPLE:
		ev->u.sample = r->u.sample;
		break;
	case ETWFORGE_PAYLOAD_PROFILE_INTERVAL:
		ev->u.profile_interval = r->u.profile_interval;
		break;
	case ETWFORGE_PAYLOAD_SYSCONFIG_CPU:
		ev->u.sysconfig_cpu = r->u.sysconfig_cpu;
		break;
	case ETWFORGE_PAYLOAD_IMAGE:
		ev->u.image = r->u.image;
		break;
	case ETWFORGE_PAYLOAD_STACK_WALK:
		ev->u.stack = r->u.stack;
		break;
	case ETWFORGE_PAYLOAD_STACK_KEY:
		ev->u.stack_key = r->u.stack_key;
		break;
	case ETWFORGE_PAYLOAD_STACK_DEF:
		ev->u.stack_def = r->u.stack_def;
		break;
	case ETWFORGE_PAYLOAD_IMAGE_ID:
		ev->u.image_id = r->u.image_id;
		break;
	case ETWFORGE_PAYLOAD_DBGID:
		ev->u.dbgid = r->u.dbgid;
		break;
	case ETWFORGE_PAYLOAD_FILE_VERSION:
		ev->u.file_version = r->u.file_version;
		break;
	default:
		ev->u.rundown = r->u.rundown;
		break;
	}
	return true;
}

/*
 * The hooks whose payload the library decodes: the record's name (for one
 * too short, etwforge_payload_name()) and the event kind it can be (0: it
 * is no event of its own but a switch, spin lock or batch).
 */
static const struct {
	uint16_t hook;
	const char *name;
	unsigned kind;
} decoded_hooks[] = {
	{0x0524, "CSwitch", 0},
	{0x0529, "SpinLock", 0},
	{0x0525, "CSwitch batch", 0},
	{0x0F4B, "SpinLockConfig", 0},
	{0x0F4C, "SpinLockConfig", 0},
	{0x0301, "Process", ETWFORGE_EV_PROCESS},
	{0x0302, "Process", ETWFORGE_EV_PROCESS},
	{0x0303, "Process", ETWFORGE_EV_PROCESS},
	{0x0304, "Process", ETWFORGE_EV_PROCESS},
	{0x0327, "Process", ETWFORGE_EV_PROCESS},
	{0x030B, "Process", ETWFORGE_EV_PROCESS},
	{0x0501, "Thread", ETWFORGE_EV_THREAD},
	{0x0502, "Thread", ETWFORGE_EV_THREAD},
	{0x0503, "Thread", ETWFORGE_EV_THREAD},
	{0x0504, "Thread", ETWFORGE_EV_THREAD},
	{0x0548, "ThreadSetName", ETWFORGE_EV_THREAD_NAME},
	{0x0532, "ReadyThread", ETWFORGE_EV_READY},
	{0x0F2E, "SampledProfile", ETWFORGE_EV_SAMPLE},
	{0x0F48, "ProfileInterval", ETWFORGE_EV_PROFILE_INTERVAL},
	{0x0F49, "ProfileInterval", ETWFORGE_EV_PROFILE_INTERVAL},
	{0x0F4A, "ProfileInterval", ETWFORGE_EV_PROFILE_INTERVAL},
	{0x0B0A, "SystemConfig CPU", ETWFORGE_EV_SYSCONFIG_CPU},
	{0x0005, "GroupMasks", ETWFORGE_EV_RUNDOWN},
	{0x0020, "GroupMasks", ETWFORGE_EV_RUNDOWN},
	/* no payload, so no name for a short one: an event all the same */
	{ETW_HOOK_RUNDOWN_COMPLETE, NULL, ETWFORGE_EV_RUNDOWN},
	{0x030A, "Image", ETWFORGE_EV_IMAGE},
	{0x1402, "Image", ETWFORGE_EV_IMAGE},
	{0x1403, "Image", ETWFORGE_EV_IMAGE},
	{0x1404, "Image", ETWFORGE_EV_IMAGE},
	{0x1421, "KernelBase", ETWFORGE_EV_IMAGE},
	{0x1422, "HypercallPage", ETWFORGE_EV_IMAGE},
	{0x1820, "StackWalk", ETWFORGE_EV_STACK},
	{0x1825, "StackKeyKernel", ETWFORGE_EV_STACK_KEY},
	{0x1826, "StackKeyUser", ETWFORGE_EV_STACK_KEY},
	{0x1822, "KeyCreate", ETWFORGE_EV_STACK_DEF},
	{0x1823, "KeyDelete", ETWFORGE_EV_STACK_DEF},
	{0x1824, "KeyRundown", ETWFORGE_EV_STACK_DEF},
};

/* KernelTraceControl's image identities, by Class.Type: their names and event kinds. */
static const struct {
	uint8_t type;
	const char *name;
	unsigned kind;
} decoded_classic[] = {
	{ETW_KTC_IMAGE_ID, "ImageID", ETWFORGE_EV_IMAGE_ID},
	{ETW_KTC_DBGID_RSDS, "DbgID_RSDS", ETWFORGE_EV_DBGID},
	{ETW_KTC_DBGID_ILRSDS, "DbgID_ILRSDS", ETWFORGE_EV_DBGID},
	{ETW_KTC_DBGID_NONE, "DbgID None", ETWFORGE_EV_DBGID},
	{ETW_KTC_FILE_VERSION, "FileVersion", ETWFORGE_EV_FILE_VERSION},
};

/* The row of decoded_classic of a classic event's @guid and @type; past the end: none. */
static unsigned classic_at(const uint8_t *guid, uint8_t type)
{
	unsigned i = 0, n = sizeof(decoded_classic) / sizeof(decoded_classic[0]);

	if (!guid || memcmp(guid, etw_ktc_guid, ETW_GUID_LEN) != 0) {
		return n;
	}
	while (i < n && decoded_classic[i].type != type) {
		i++;
	}
	return i;
}

static unsigned decoded_at(uint16_t hook)
{
	unsigned i = 0;

	while (i < sizeof(decoded_hooks) / sizeof(decoded_hooks[0]) &&
	       decoded_hooks[i].hook != hook) {
		i++;
	}
	return i;
}

const char *read_payload_name(uint16_t hook)
{
	unsigned i = decoded_at(hook);

	return i < sizeof(decoded_hooks) / sizeof(decoded_hooks[0]) ? decoded_hooks[i].name : NULL;
}

const char *read_record_name(const struct etwforge_record *r)
{
	if (r->has_hook) {
		return read_payload_name(r->hook);
	}
	if (r->has_provider && !strncmp(r->kind, "FULL_HEADER", 11) &&
	    r->size >= EVH_GUID + ETW_GUID_LEN) {
		unsigned i = classic_at(r->data + EVH_GUID, r->class_type);

		return i < sizeof(decoded_classic) / sizeof(decoded_classic[0])
			       ? decoded_classic[i].name
			       : NULL;
	}
	return NULL;
}

/* The identity event kind a hook's record can be (0: none). */
static unsigned identity_kind_of(uint16_t hook)
{
	unsigned i = decoded_at(hook);

	return i < sizeof(decoded_hooks) / sizeof(decoded_hooks[0]) ? decoded_hooks[i].kind : 0;
}

/*
 * Can record @r give an event of @kinds other than ETWFORGE_EV_RECORD? Only
 * PERFINFO and SYSTEM payloads are decoded (rv_conv_record()), and only the
 * hooks of an asked-for kind: an iteration for a few kinds skips the rest
 * without converting them (read_identity's counts per kind on the samples
 * hold this list to the decoder's).
 */
bool rv_may_give_event(unsigned kinds, const struct etl_record *r)
{
	if (r->kind == ETL_KIND_FULL) {
		const uint8_t *g = classic_guid(r);
		unsigned i = g ? classic_at(g, r->data[ETH_CLASS_TYPE]) : ~0u;

		return g && i < sizeof(decoded_classic) / sizeof(decoded_classic[0]) &&
		       (kinds & decoded_classic[i].kind);
	}
	if (r->kind != ETL_KIND_PERFINFO && r->kind != ETL_KIND_SYSTEM) {
		return false;
	}
	if (r->hook_id == ETW_HOOK_CSWITCH) {
		return kinds & ETWFORGE_EV_CSWITCH;
	}
	if (r->hook_id == ETW_HOOK_SPINLOCK) {
		return kinds & ETWFORGE_EV_SPINLOCK;
	}
	return kinds & identity_kind_of(r->hook_id);
}

bool rv_record_event(unsigned kinds, const struct etl_record *r, unsigned buffer,
		     struct rec_store *st, struct etwforge_event *ev)
{
	if (!rv_may_give_event(kinds, r)) {
		return false;
	}
	memset(ev, 0, sizeof(*ev));
	ev->cpu = r->cpu;
	ev->file_offset = r->file_offset;
	rv_conv_record(r, buffer, st);
	ev->ts = st->rec.ts; /* a classic event's is in its own header */
	ev->rec = &st->rec;
	if ((kinds & ETWFORGE_EV_CSWITCH) && st->rec.decoded == ETWFORGE_PAYLOAD_CSWITCH) {
		ev->kind = ETWFORGE_EV_CSWITCH;
		ev->u.cswitch = st->rec.u.cswitch;
		return true;
	}
	if ((kinds & ETWFORGE_EV_SPINLOCK) && st->rec.decoded == ETWFORGE_PAYLOAD_SPINLOCK) {
		ev->kind = ETWFORGE_EV_SPINLOCK;
		ev->u.spinlock = st->rec.u.spinlock;
		return true;
	}
	return identity_event(kinds, &st->rec, ev);
}

void rv_store_free(struct rec_store *st)
{
	free(st->str);
	free(st->frames);
	memset(st, 0, sizeof(*st));
}
