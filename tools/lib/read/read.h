/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/read/read.h - reading any ETL file: a file handle over the
 * framing reader (file.c), its events one by one in file, CPU or time order
 * with compact batches expanded (file.c, event_stream.c, dump_compact.c),
 * each event and the file as JSON (event_json.c), the counts of --stats
 * (stats.c). The types are the public ones (include/etwforge/etwforge.h),
 * the opaque struct etwforge_stats defined here; each function is the
 * etwforge_ one of the same name, which api_read.c hands through. Nothing
 * here knows scenarios or runs.
 */
#ifndef ETWFORGE_TOOLS_LIB_READ_READ_H
#define ETWFORGE_TOOLS_LIB_READ_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tools/lib/read/event_stream.h"
#include "writer/etl_reader.h"

struct etwforge_file *read_file_open(const char *path, unsigned flags, struct etwforge_error *err);
struct etwforge_file *read_file_open_mem(const void *data, size_t len, const char *name,
					 unsigned flags, struct etwforge_error *err);
void read_file_close(struct etwforge_file *f);
const struct etwforge_file_info *read_file_info(const struct etwforge_file *f);
int read_file_set_max_wait_reason(struct etwforge_file *f, unsigned v);
unsigned read_file_damage_count(const struct etwforge_file *f);
const struct etwforge_damage *read_file_damage_at(const struct etwforge_file *f, unsigned i);
/** read_file_reader - the framing reader behind @f. */
struct etl_reader *read_file_reader(const struct etwforge_file *f);
/** read_file_keep_going - was @f opened with ETWFORGE_OPEN_KEEP_GOING? */
bool read_file_keep_going(const struct etwforge_file *f);

struct etwforge_iter *read_iter_new(struct etwforge_file *f, enum etwforge_order order,
				    unsigned kinds, struct etwforge_error *err);
int read_iter_next(struct etwforge_iter *it, const struct etwforge_event **ev,
		   struct etwforge_error *err);
void read_iter_free(struct etwforge_iter *it);

/* struct read_switch: tools/lib/read/event_stream.h (its cursor fills it) */

/**
 * read_iter_new_raw - as read_iter_new() in ETWFORGE_ORDER_TIME, its
 * compact switches handed out raw by read_iter_next_raw().
 */
struct etwforge_iter *read_iter_new_raw(struct etwforge_file *f, unsigned kinds,
					struct etwforge_error *err);

/**
 * read_iter_next_raw - as read_iter_next(): 1 with either *@ev (NULL *@sw)
 * or, for a compact switch of an iterator of read_iter_new_raw(), *@sw
 * (NULL *@ev), valid until the next call.
 */
int read_iter_next_raw(struct etwforge_iter *it, const struct etwforge_event **ev,
		       const struct read_switch **sw, struct etwforge_error *err);

struct etw_cswitch;
struct etw_spinlock;
struct etw_spinlock_config;

/**
 * read_conv_cswitch - the public view of a decoded 0x0524 payload of
 * version @ver, field by field of ETW_CSWITCH_FIELDS
 * (producer/records/cswitch.h).
 */
void read_conv_cswitch(const struct etw_cswitch *w, unsigned ver, struct etwforge_cswitch *o);
/** read_conv_spinlock - the same of a 0x0529 payload (ETW_SPINLOCK_FIELDS). */
void read_conv_spinlock(const struct etw_spinlock *w, struct etwforge_spinlock *o);
/** read_conv_spinlock_config - the same of a 0x0F4B/0x0F4C payload (ETW_SPINLOCK_CONFIG_FIELDS). */
void read_conv_spinlock_config(const struct etw_spinlock_config *w,
			       struct etwforge_spinlock_config *o);

size_t read_event_json(const struct etwforge_event *ev, unsigned flags, char *buf, size_t cap);
size_t read_file_json(const struct etwforge_file *f, char *buf, size_t cap);

/**
 * struct stats_identity - the identity counts of --stats (the analysis
 * room's, filled by the API).
 * @processes:    distinct PIDs of Process records (0x0301-0x0304, 0x0327)
 * @threads:      distinct TIDs of Thread records (0x0501-0x0504)
 * @ready:        ReadyThread 0x0532 events (decoded: not a too-short one)
 * @samples:      SampledProfile 0x0F2E events
 * @attributed:   switches to a thread other than idle (TID != 0) that a
 *                Thread record anywhere in the file names
 * @unattributed: switches to a thread other than idle no Thread record
 *                names (a compact switch whose new thread the file does
 *                not say is neither)
 */
struct stats_identity {
	uint64_t processes;
	uint64_t threads;
	uint64_t ready;
	uint64_t samples;
	uint64_t attributed;
	uint64_t unattributed;
};

/**
 * struct etwforge_stats - counts over a whole file (`dump --stats`).
 * @records_by_kind: [kind][0 = 32-bit, 1 = 64-bit], kinds in the order of
 *                   read_stats_kind_name()
 * @hooks:           per hooked kind (SYSTEM, COMPACT, PERFINFO) x 32/64-bit,
 *                   a count per hook id; @hook_seen the ones counted, so that
 *                   the hooks are listed without reading (and faulting in)
 *                   all 3 MiB
 * @compact:         switches in compact batches by form (idle_short, idle,
 *                   lite, full)
 * @ident:           processes, threads, ready and sample events, switches
 *                   attributed or not
 * @an:              the analysis the identity counts come from (the API
 *                   makes and frees it: the read room knows no analysis)
 * @used:            false until the first count: all of it is still the
 *                   zeros calloc() gave
 */
struct etwforge_stats {
	uint64_t buffers;
	uint64_t compressed;
	uint64_t records;
	uint64_t pebs;
	uint64_t pmc;
	uint64_t compact[4];
	uint64_t buffers_by_cpu[2048];
	uint64_t records_by_cpu[2048];
	uint64_t records_by_kind[8][2];
	uint64_t hooks[3][2][65536];
	uint64_t hook_seen[3][2][65536 / 64]; /* a bit per hook with a count in @hooks */
	struct stats_identity ident;
	struct etwforge_analysis *an;
	bool used; /* counted into since etwforge_stats_new()'s calloc() */
};

/* read_record_times - as etwforge_record_times(). */
bool read_record_times(const struct etwforge_record *r, uint32_t *kernel_time, uint32_t *user_time);

/* read_payload_name - as etwforge_payload_name(). */
const char *read_payload_name(uint16_t hook);
/* read_record_name - as etwforge_record_name(). */
const char *read_record_name(const struct etwforge_record *r);
const char *read_stats_kind_name(unsigned k);
int read_stats_count(const struct etwforge_stats *st, enum etwforge_stat what, unsigned index,
		     uint64_t *out);
int read_stats_hook(const struct etwforge_stats *st, unsigned kind, bool is64, uint16_t hook,
		    uint64_t *out);
/* read_stats_hook_next - the first hook id >= @from with records, -ENOENT none, -ERANGE bad @kind. */
int read_stats_hook_next(const struct etwforge_stats *st, unsigned kind, bool is64, int from);
/*
 * read_file_stats - as etwforge_file_stats() but the identity counts; the
 * compact switches by form too with @forms (else left for the caller: the
 * analysis counts them as it reads the batches).
 */
int read_file_stats(struct etwforge_file *f, struct etwforge_stats *st, bool forms,
		    struct etwforge_error *err);
/*
 * read_stats_begin - clear @st and count @f's buffers: what read_file_stats()
 * does but the records, which read_stats_record() then counts one at a time
 * as another walk of every buffer hands them (the analysis's counts).
 */
void read_stats_begin(struct etwforge_file *f, struct etwforge_stats *st);
struct etl_record;
/* read_stats_record - count record @r into @st (a struct etwforge_stats) as read_file_stats() does. */
void read_stats_record(void *st, const struct etl_record *r);
struct jout;
/* read_json_more_fn - members to add at the end of a JSON object. */
typedef void (*read_json_more_fn)(struct jout *j, const void *ctx);
/* read_stats_json - as etwforge_stats_json(), @more (NULL: none) adding its members last. */
size_t read_stats_json(const struct etwforge_file *f, const struct etwforge_stats *st,
		       read_json_more_fn more, const void *ctx, char *buf, size_t cap);

#endif
