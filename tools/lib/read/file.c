// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/file.c - reading ETL files (read.h): open
 * (writer/etl_reader.c does the framing), iterate decoded events in file,
 * CPU or time order, and count a whole file.
 *
 *   ETWFORGE_ORDER_FILE / _CPU            ETWFORGE_ORDER_TIME
 *   buffer list (file order, or 0 then   one dec_cursor per CPU (its buffers
 *   each CPU's by SequenceNumber)        by SequenceNumber); a binary heap on
 *     for each buffer: BUFFER event       (ts, cpu) hands out the earliest
 *       for each record: RECORD event     switch, spin lock or ReadyThread of
 *                                         any CPU
 *         plain CSwitch / SpinLock: their decoded event
 *         an identity record (process, thread, ...): its decoded event,
 *         from its table (producer/records/), its strings in UTF-8
 *         compact batch: its switches, expanded (the new thread of the
 *         last one taken from the next batch on the CPU), queued
 *
 * The payload of a record is decoded by producer's etw_decode_payload(),
 * the one hook dispatcher of the project.
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
#include "producer/records/process.h"
#include "producer/records/profile.h"
#include "producer/records/ready.h"
#include "producer/records/spinlock.h"
#include "producer/records/sysconfig.h"
#include "producer/records/thread.h"
#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/read/dump_compact.h"
#include "tools/lib/read/event_stream.h"
#include "writer/etl_layout.h"
#include "writer/etl_reader.h"
#include "writer/etl_wire.h"

#define QUEUE_MAX 512 /* switches of one batch: (0x400 - 0x68) / 2 at most */

/* One damaged place: the public view, and the message it points to. */
struct file_damage {
	struct etwforge_damage pub;
	char msg[256];
};

struct etwforge_file {
	struct etl_reader *d;
	struct etwforge_file_info info; /* its strings point to the three below */
	char name[4096];
	char logger_name[256];
	char logfile_name[512];
	struct file_damage *damage;
	unsigned ndamage;
	bool keep_going; /* opened with ETWFORGE_OPEN_KEEP_GOING */
};

/* The reader behind a file handle (for the other API files). */
struct etl_reader *read_file_reader(const struct etwforge_file *f)
{
	return f->d;
}

bool read_file_keep_going(const struct etwforge_file *f)
{
	return f->keep_going;
}

static int reader_fail(struct etwforge_error *err, const struct etl_error *e, int code)
{
	/* a path that names nothing readable is a mistake of the command line, as for every
	 * other input; what is in a file that opens is data */
	return error_fail_at(err, code, e->unopened ? ERR_INPUT : ERR_DATA, "%s", e->msg);
}

static void fill_info(struct etwforge_file *f)
{
	const struct etl_logfile *lf = etl_reader_logfile(f->d);
	struct etwforge_file_info *in = &f->info;

	snprintf(f->name, sizeof(f->name), "%s", etl_reader_name(f->d));
	snprintf(f->logger_name, sizeof(f->logger_name), "%s", lf->logger_name);
	snprintf(f->logfile_name, sizeof(f->logfile_name), "%s", lf->logfile_name);
	in->name = f->name;
	in->logger_name = f->logger_name;
	in->logfile_name = f->logfile_name;
	in->is64 = lf->is64;
	in->buffer_size = lf->buffer_size;
	in->version = lf->version;
	in->provider_version = lf->provider_version;
	in->cpus = lf->number_of_processors;
	in->start_time = lf->start_time;
	in->end_time = lf->end_time;
	in->boot_time = lf->boot_time;
	in->start_ts = lf->header_system_time;
	in->timer_resolution = lf->timer_resolution;
	in->maximum_file_size = lf->maximum_file_size;
	in->log_file_mode = lf->log_file_mode;
	in->buffers_written = lf->buffers_written;
	in->start_buffers = lf->start_buffers;
	in->pointer_size = lf->pointer_size;
	in->events_lost = lf->events_lost;
	in->buffers_lost = lf->buffers_lost;
	in->cpu_mhz = lf->cpu_speed_mhz;
	in->perf_freq = lf->perf_freq;
	in->clock_type = lf->reserved_flags;
	in->timer_source_clock = lf->timer_source_clock;
	in->timer_source_perf = lf->timer_source_perf;
	in->buffers = etl_reader_buffer_count(f->d);
	in->trailing_bytes = etl_reader_trailing_bytes(f->d);
	in->max_wait_reason = etw_target_max_wait_reason(lf->provider_version);
}

static struct etwforge_file *wrap(struct etl_reader *d, unsigned flags, struct etwforge_error *err)
{
	struct etwforge_file *f = calloc(1, sizeof(*f));
	const struct etl_damage *dm;
	unsigned n;

	if (f) {
		f->d = d;
		f->keep_going = flags & ETWFORGE_OPEN_KEEP_GOING;
		dm = etl_reader_damage(d, &n);
		f->damage = n ? calloc(n, sizeof(*f->damage)) : NULL;
	}
	if (!f || (n && !f->damage)) {
		free(f);
		etl_reader_close(d);
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		f->damage[i].pub.buffer = dm[i].buffer;
		f->damage[i].pub.offset = dm[i].err.offset;
		snprintf(f->damage[i].msg, sizeof(f->damage[i].msg), "%s", dm[i].err.msg);
		f->damage[i].pub.msg = f->damage[i].msg;
	}
	f->ndamage = n;
	fill_info(f);
	error_ok(err);
	return f;
}

static unsigned reader_flags(unsigned flags)
{
	return (flags & ETWFORGE_OPEN_SALVAGE ? ETL_OPEN_SALVAGE : 0u) |
	       (flags & ETWFORGE_OPEN_KEEP_GOING ? ETL_OPEN_KEEP_GOING : 0u);
}

struct etwforge_file *read_file_open(const char *path, unsigned flags, struct etwforge_error *err)
{
	struct etl_error e;
	struct etl_reader *d;

	d = etl_reader_open_file_flags(path, reader_flags(flags), &e);
	if (!d) {
		int code = errno ? errno : EINVAL;

		reader_fail(err, &e, -code);
		errno = code;
		return NULL;
	}
	return wrap(d, flags, err);
}

struct etwforge_file *read_file_open_mem(const void *data, size_t len, const char *name,
					 unsigned flags, struct etwforge_error *err)
{
	struct etl_error e;
	struct etl_reader *d = etl_reader_open_mem_flags(data, len, name, reader_flags(flags), &e);

	if (!d) {
		int code = errno ? errno : EINVAL;

		reader_fail(err, &e, -code);
		errno = code;
		return NULL;
	}
	return wrap(d, flags, err);
}

void read_file_close(struct etwforge_file *f)
{
	if (!f) {
		return;
	}
	etl_reader_close(f->d);
	free(f->damage);
	free(f);
}

const struct etwforge_file_info *read_file_info(const struct etwforge_file *f)
{
	return &f->info;
}

int read_file_set_max_wait_reason(struct etwforge_file *f, unsigned v)
{
	if (v < 1 || v > 63) {
		return -EINVAL;
	}
	f->info.max_wait_reason = (uint8_t)v;
	return 0;
}

unsigned read_file_damage_count(const struct etwforge_file *f)
{
	return f->ndamage;
}

const struct etwforge_damage *read_file_damage_at(const struct etwforge_file *f, unsigned i)
{
	return i < f->ndamage ? &f->damage[i].pub : NULL;
}

/* ---- events --------------------------------------------------------------- */

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
 * struct rec_store - a record's public view and what its pointers point to
 * (the iterator's: valid until the next event). @data (NULL: empty) names
 * the record converted, for the batch records of compact switches (every
 * switch of a batch carries its record, decoded once per batch instead of
 * once per switch; the reader hands out each record's bytes at one place
 * for its lifetime).
 */
struct rec_store {
	const uint8_t *data;
	struct etwforge_record rec;
	char provider[40];
	uint64_t pmc[7];
	uint32_t tid_table[16];
	int8_t base_pri[16];
	uint32_t masks[ETW_GROUP_MASKS];
	char *str; /* the strings of an identity record (malloc'd, grown to fit) */
	size_t str_len, str_cap;
};

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

/*
 * The identity records from their tables (the columns of
 * producer/records/process.h): a number as its row's "from"; a string
 * (SID, ASTR, WSTR) into the record's store, NULL when its row's "when"
 * does not hold; the group masks copied into the store.
 */
#define ID_U(st, to, from, when)		       to = (from)
#define ID_I(st, to, from, when)		       to = (from)
#define ID_HEX(st, to, from, when)		       to = (from)
#define ID_BOOL(st, to, from, when)		       to = (from)
#define ID_SID(st, to, from, when)		       to = str_sid(st, from)
#define ID_ASTR(st, to, from, when)		       to = str_ansi(st, from)
#define ID_WSTR(st, to, from, when)		       to = (when) ? str_utf16(st, from) : NULL
#define ID_MASKS(st, to, from, when)		       to = memcpy(st->masks, from, sizeof(st->masks))
#define ID_ROW(x, name, ctype, json, jwhen, from, ...) ID_##json(st, x->name, from, jwhen);

/* The public member's type: the row's own for numbers, UTF-8 for a string. */
#define ID_TYPE_U(x, name, ctype)	   PUB_TYPE(x, name, ctype, )
#define ID_TYPE_I(x, name, ctype)	   PUB_TYPE(x, name, ctype, )
#define ID_TYPE_HEX(x, name, ctype)	   PUB_TYPE(x, name, ctype, )
#define ID_TYPE_BOOL(x, name, ctype)	   PUB_TYPE(x, name, ctype, )
#define ID_TYPE_SID(x, name, ctype)	   PUB_TYPE(x, name, const char *, )
#define ID_TYPE_ASTR(x, name, ctype)	   PUB_TYPE(x, name, const char *, )
#define ID_TYPE_WSTR(x, name, ctype)	   PUB_TYPE(x, name, const char *, )
#define ID_TYPE_MASKS(x, name, ctype)	   PUB_TYPE(x, name, const uint32_t *, )
#define ID_TYPE(x, name, ctype, json, ...) ID_TYPE_##json(x, name, ctype)

ETW_PROCESS_FIELDS(ID_TYPE, etwforge_process)
ETW_THREAD_FIELDS(ID_TYPE, etwforge_thread)
ETW_THREAD_SET_NAME_FIELDS(ID_TYPE, etwforge_thread_name)
ETW_READY_FIELDS(ID_TYPE, etwforge_ready)
ETW_PROFILE_FIELDS(ID_TYPE, etwforge_sample)
ETW_PROFILE_INTERVAL_FIELDS(ID_TYPE, etwforge_profile_interval)
ETW_CPU_CONFIG_FIELDS(ID_TYPE, etwforge_sysconfig_cpu)
ETW_GROUP_MASKS_FIELDS(ID_TYPE, etwforge_rundown)

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
	default:
		return "masks"; /* 0x0005 */
	}
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
	default:
		break;
	}
	return true;
}

/* The public view of record @r of buffer @buffer, its payload decoded, into @st. */
static void conv_record(const struct etl_record *r, unsigned buffer, struct rec_store *st)
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
		conv_record(&ev->rec, 0, rc);
		rc->data = ev->rec.data;
	}
	o->rec = &rc->rec;
	memset(c, 0, sizeof(*c));
	ETW_COMPACT_FIELDS(CONV_COMPACT_ROW, )
}

static void conv_buffer(const struct etl_buffer *b, struct etwforge_event *o)
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

/* ---- the iterator ---------------------------------------------------------- */

/* One CPU of the time-ordered merge. */
struct merge_cpu {
	struct dec_cursor cur;
	struct dec_event next;
	bool have;
	struct rec_store batch; /* the batch record of this CPU's switches */
};

struct etwforge_iter {
	struct etwforge_file *f;
	enum etwforge_order order;
	unsigned kinds;
	/* FILE and CPU orders */
	unsigned *list; /* buffer slots to walk */
	unsigned nlist;
	unsigned li;
	bool in_buffer;
	size_t pos;
	struct dump_expander *x;
	struct etwforge_event queue[QUEUE_MAX];
	unsigned qhead, qlen;
	struct etl_error qerr; /* a batch that did not expand: said after its record */
	bool have_qerr;
	struct rec_store batch;	  /* the batch record of the queued switches */
	struct rec_store cur;	  /* the record of the event handed out */
	struct etwforge_event ev; /* the event handed out (but a queued switch) */
	/* TIME order */
	struct merge_cpu *cpu;
	unsigned ncpu;
	unsigned *heap; /* CPUs with a next event, earliest first */
	unsigned hn;
};

static void queue_compact(void *ctx, const struct dec_event *ev)
{
	struct etwforge_iter *it = ctx;

	if (it->qlen < QUEUE_MAX) {
		conv_compact(ev, &it->batch, &it->queue[(it->qhead + it->qlen++) % QUEUE_MAX]);
	}
}

static bool heap_less(const struct etwforge_iter *it, unsigned a, unsigned b)
{
	uint64_t ta = it->cpu[a].next.kind == DEC_EV_COMPACT ? it->cpu[a].next.u.cc.ts
							     : it->cpu[a].next.rec.ts;
	uint64_t tb = it->cpu[b].next.kind == DEC_EV_COMPACT ? it->cpu[b].next.u.cc.ts
							     : it->cpu[b].next.rec.ts;

	return ta < tb || (ta == tb && a < b);
}

static void heap_down(struct etwforge_iter *it, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, m = i;

		if (l < it->hn && heap_less(it, it->heap[l], it->heap[m])) {
			m = l;
		}
		if (l + 1 < it->hn && heap_less(it, it->heap[l + 1], it->heap[m])) {
			m = l + 1;
		}
		if (m == i) {
			return;
		}
		unsigned t = it->heap[i];

		it->heap[i] = it->heap[m];
		it->heap[m] = t;
		i = m;
	}
}

static void heap_up(struct etwforge_iter *it, unsigned i)
{
	while (i > 0 && heap_less(it, it->heap[i], it->heap[(i - 1) / 2])) {
		unsigned p = (i - 1) / 2, t = it->heap[i];

		it->heap[i] = it->heap[p];
		it->heap[p] = t;
		i = p;
	}
}

static int time_init(struct etwforge_iter *it)
{
	unsigned mask = 0;

	mask |= it->kinds & ETWFORGE_EV_CSWITCH ? DEC_EV_CSWITCH : 0u;
	mask |= it->kinds & ETWFORGE_EV_COMPACT ? DEC_EV_COMPACT : 0u;
	mask |= it->kinds & ETWFORGE_EV_SPINLOCK ? DEC_EV_SPINLOCK : 0u;
	mask |= it->kinds & ETWFORGE_EV_READY ? DEC_EV_READY : 0u;
	/*
	 * NumberOfProcessors comes from the file (any u32); a buffer's CPU is at
	 * most 0x7FF (ProcessorIndex is 11 bits), so no more cursors are needed.
	 */
	it->ncpu = it->f->info.cpus < ETL_PROCESSOR_INDEX_MASK + 1u ? it->f->info.cpus
								    : ETL_PROCESSOR_INDEX_MASK + 1u;
	it->cpu = calloc(it->ncpu ? it->ncpu : 1, sizeof(*it->cpu));
	it->heap = calloc(it->ncpu ? it->ncpu : 1, sizeof(*it->heap));
	if (!it->cpu || !it->heap) {
		return -ENOMEM;
	}
	for (unsigned c = 0; c < it->ncpu; c++) {
		dec_cursor_init(&it->cpu[c].cur, it->f->d, c, mask, it->f->info.max_wait_reason);
	}
	it->hn = UINT32_MAX; /* filled at the first next() (reading can fail) */
	return 0;
}

/* Fetch CPU @c's next event into the heap. Return: 0 or -EINVAL (@err). */
static int time_fetch(struct etwforge_iter *it, unsigned c, struct etl_error *err)
{
	int r = dec_cursor_next(&it->cpu[c].cur, &it->cpu[c].next, err);

	if (r < 0) {
		return r;
	}
	if (r > 0) {
		it->heap[it->hn++] = c;
		heap_up(it, it->hn - 1);
	}
	return 0;
}

static void conv_dec_event(const struct dec_event *ev, struct rec_store *rc, struct rec_store *cur,
			   struct etwforge_event *o)
{
	if (ev->kind == DEC_EV_COMPACT) {
		/* every field but the union is written: clear only that */
		memset(&o->u, 0, sizeof(o->u));
		conv_compact(ev, rc, o);
		return;
	}
	memset(o, 0, sizeof(*o));
	o->cpu = ev->cpu;
	o->ts = ev->rec.ts;
	o->file_offset = ev->file_offset;
	conv_record(&ev->rec, 0, cur);
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

static int time_next(struct etwforge_iter *it, const struct etwforge_event **out,
		     struct etwforge_error *err)
{
	struct etl_error e;
	unsigned c;

	if (it->hn == UINT32_MAX) {
		it->hn = 0;
		for (c = 0; c < it->ncpu; c++) {
			if (time_fetch(it, c, &e) < 0) {
				return reader_fail(err, &e, -EINVAL);
			}
		}
	}
	if (it->hn == 0) {
		return 0;
	}
	c = it->heap[0];
	conv_dec_event(&it->cpu[c].next, &it->cpu[c].batch, &it->cur, &it->ev);
	*out = &it->ev;
	it->heap[0] = it->heap[--it->hn];
	heap_down(it, 0);
	if (time_fetch(it, c, &e) < 0) {
		return reader_fail(err, &e, -EINVAL);
	}
	return 1;
}

static int list_init(struct etwforge_iter *it)
{
	unsigned n = etl_reader_buffer_count(it->f->d), norder;
	const unsigned *order = etl_reader_cpu_order(it->f->d, &norder);

	it->list = calloc(n ? n : 1, sizeof(*it->list));
	if (!it->list) {
		return -ENOMEM;
	}
	if (it->order == ETWFORGE_ORDER_FILE) {
		for (unsigned i = 0; i < n; i++) {
			it->list[it->nlist++] = i;
		}
	} else {
		it->list[it->nlist++] = 0;
		for (unsigned i = 0; i < norder && it->nlist < n; i++) {
			it->list[it->nlist++] = order[i];
		}
	}
	if (it->kinds & ETWFORGE_EV_COMPACT) {
		it->x = dump_expander_create(it->f->d, it->f->info.max_wait_reason);
		if (!it->x) {
			return -ENOMEM;
		}
	}
	return 0;
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
	default:
		ev->u.rundown = r->u.rundown;
		break;
	}
	return true;
}

/*
 * Can record @r give an event of @kinds other than ETWFORGE_EV_RECORD? Only
 * PERFINFO and SYSTEM payloads are decoded (conv_record()), and only the
 * hooks read_payload_name() names, and rundown complete: an iteration for a
 * few kinds skips the rest without converting them (read_identity's counts
 * per kind on the samples hold this list to the decoder's).
 */
static bool may_give_event(unsigned kinds, const struct etl_record *r)
{
	if (r->kind != ETL_KIND_PERFINFO && r->kind != ETL_KIND_SYSTEM) {
		return false;
	}
	if (r->hook_id == ETW_HOOK_CSWITCH) {
		return kinds & ETWFORGE_EV_CSWITCH;
	}
	if (r->hook_id == ETW_HOOK_SPINLOCK) {
		return kinds & ETWFORGE_EV_SPINLOCK;
	}
	/* rundown complete has no payload, so no name for a short one: it is no less an event */
	return (kinds & ETWFORGE_EV_IDENTITY) &&
	       (read_payload_name(r->hook_id) != NULL || r->hook_id == ETW_HOOK_RUNDOWN_COMPLETE);
}

static int list_next(struct etwforge_iter *it, const struct etwforge_event **out,
		     struct etwforge_error *err)
{
	struct etwforge_event *ev = &it->ev;
	struct etl_error e;
	struct etl_record r;

	*out = ev;
	for (;;) {
		if (it->qlen) {
			*out = &it->queue[it->qhead];
			it->batch.rec.buffer =
				it->list[it->li - 1] < etl_reader_buffer_count(it->f->d)
					? etl_reader_buffer(it->f->d, it->list[it->li - 1])->index
					: 0;
			it->qhead = (it->qhead + 1) % QUEUE_MAX;
			it->qlen--;
			return 1;
		}
		if (it->have_qerr) {
			it->have_qerr = false;
			return reader_fail(err, &it->qerr, -EINVAL);
		}
		if (it->in_buffer) {
			const struct etl_buffer *b =
				etl_reader_buffer(it->f->d, it->list[it->li - 1]);
			int rc = etl_buffer_next(it->f->d, b, &it->pos, &r, &e);

			if (rc < 0) {
				it->in_buffer = false;
				return reader_fail(err, &e, -EINVAL);
			}
			if (rc == 0) {
				it->in_buffer = false;
				continue;
			}
			if ((it->kinds & ETWFORGE_EV_COMPACT) && r.kind == ETL_KIND_PERFINFO &&
			    r.hook_id == ETW_HOOK_CSWITCH_BATCH) {
				it->qhead = 0;
				it->qlen = 0;
				if (dump_expander_batch(it->x, &r, queue_compact, it, &it->qerr) <
				    0) {
					it->have_qerr = true;
				}
			}
			if (!(it->kinds & ETWFORGE_EV_RECORD) && !may_give_event(it->kinds, &r)) {
				continue; /* not converted: most records of a file, most of the time */
			}
			memset(ev, 0, sizeof(*ev));
			ev->cpu = r.cpu;
			ev->ts = r.ts;
			ev->file_offset = r.file_offset;
			conv_record(&r, b->index, &it->cur);
			ev->rec = &it->cur.rec;
			if (it->kinds & ETWFORGE_EV_RECORD) {
				ev->kind = ETWFORGE_EV_RECORD;
				return 1;
			}
			if ((it->kinds & ETWFORGE_EV_CSWITCH) &&
			    it->cur.rec.decoded == ETWFORGE_PAYLOAD_CSWITCH) {
				ev->kind = ETWFORGE_EV_CSWITCH;
				ev->u.cswitch = it->cur.rec.u.cswitch;
				return 1;
			}
			if ((it->kinds & ETWFORGE_EV_SPINLOCK) &&
			    it->cur.rec.decoded == ETWFORGE_PAYLOAD_SPINLOCK) {
				ev->kind = ETWFORGE_EV_SPINLOCK;
				ev->u.spinlock = it->cur.rec.u.spinlock;
				return 1;
			}
			if (identity_event(it->kinds, &it->cur.rec, ev)) {
				return 1;
			}
			continue;
		}
		if (it->li >= it->nlist) {
			return 0;
		}
		{
			const struct etl_buffer *b =
				etl_reader_buffer(it->f->d, it->list[it->li++]);

			it->in_buffer = true;
			it->pos = 0;
			if (it->kinds & ETWFORGE_EV_BUFFER) {
				conv_buffer(b, ev);
				return 1;
			}
		}
	}
}

struct etwforge_iter *read_iter_new(struct etwforge_file *f, enum etwforge_order order,
				    unsigned kinds, struct etwforge_error *err)
{
	struct etwforge_iter *it;
	int rc;

	if (!f || order > ETWFORGE_ORDER_TIME || !kinds || (kinds & ~ETWFORGE_EV_ALL)) {
		error_fail(err, -EINVAL, ERR_INPUT, "etwforge_iter_new: bad order or kinds");
		errno = EINVAL;
		return NULL;
	}
	it = calloc(1, sizeof(*it));
	if (!it) {
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	it->f = f;
	it->order = order;
	it->kinds = kinds;
	rc = order == ETWFORGE_ORDER_TIME ? time_init(it) : list_init(it);
	if (rc < 0) {
		read_iter_free(it);
		error_fail(err, rc, ERR_DATA, "out of memory");
		errno = -rc;
		return NULL;
	}
	error_ok(err);
	return it;
}

int read_iter_next(struct etwforge_iter *it, const struct etwforge_event **ev,
		   struct etwforge_error *err)
{
	if (it->order == ETWFORGE_ORDER_TIME) {
		return time_next(it, ev, err);
	}
	return list_next(it, ev, err);
}

void read_iter_free(struct etwforge_iter *it)
{
	if (!it) {
		return;
	}
	dump_expander_destroy(it->x);
	free(it->cur.str);
	free(it->batch.str);
	for (unsigned c = 0; it->cpu && c < it->ncpu; c++) {
		free(it->cpu[c].batch.str);
	}
	free(it->list);
	free(it->cpu);
	free(it->heap);
	free(it);
}

bool read_record_times(const struct etwforge_record *r, uint32_t *kernel_time, uint32_t *user_time)
{
	*kernel_time = *user_time = 0;
	if (!r || !r->data || r->size < ETL_SH_LEN ||
	    (r->header_type != ETL_HT_SYSTEM32 && r->header_type != ETL_HT_SYSTEM64)) {
		return false;
	}
	*kernel_time = get_le32(r->data + ETL_SH_KERNEL_TIME);
	*user_time = get_le32(r->data + ETL_SH_USER_TIME);
	return true;
}

/* The record a decoded hook is, for a payload too short (public: etwforge_payload_name()). */
const char *read_payload_name(uint16_t hook)
{
	switch (hook) {
	case 0x0524:
		return "CSwitch";
	case 0x0529:
		return "SpinLock";
	case 0x0525:
		return "CSwitch batch";
	case 0x0F4B:
	case 0x0F4C:
		return "SpinLockConfig";
	case 0x0301:
	case 0x0302:
	case 0x0303:
	case 0x0304:
	case 0x0327:
	case 0x030B:
		return "Process";
	case 0x0501:
	case 0x0502:
	case 0x0503:
	case 0x0504:
		return "Thread";
	case 0x0548:
		return "ThreadSetName";
	case 0x0532:
		return "ReadyThread";
	case 0x0F2E:
		return "SampledProfile";
	case 0x0F48:
	case 0x0F49:
	case 0x0F4A:
		return "ProfileInterval";
	case 0x0B0A:
		return "SystemConfig CPU";
	case 0x0005:
	case 0x0020:
		return "GroupMasks";
	default:
		return NULL;
	}
}
