// SPDX-License-Identifier: MIT
/*
 * tools/lib/read/stats.c - read_file_stats(): count every buffer and
 * record of a file (by kind, hook id and CPU, with PEBS/PMC items) and the
 * switches of its compact batches by record form, without building an
 * event per switch: this is `dump --stats`, and it has to be fast. Who
 * the switches went to (the identity counts) is the analysis room's to say:
 * the API fills them from its reading of the file (api_analysis.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "producer/ccswap_expand.h"
#include "producer/etw_layout.h"
#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/common/json_out.h"
#include "writer/etl_reader.h"

struct etwforge_file;
static_assert(ETL_KIND_COUNT == 8, "records_by_kind has 8 kinds");

const char *read_stats_kind_name(unsigned k)
{
	return k < ETL_KIND_COUNT ? etl_kind_name((enum etl_kind)k) : "?";
}

int read_stats_count(const struct etwforge_stats *st, enum etwforge_stat what, unsigned index,
		     uint64_t *out)
{
	const uint64_t *v;
	unsigned n = 1;

	switch (what) {
	case ETWFORGE_STAT_BUFFERS:
		v = &st->buffers;
		break;
	case ETWFORGE_STAT_COMPRESSED:
		v = &st->compressed;
		break;
	case ETWFORGE_STAT_RECORDS:
		v = &st->records;
		break;
	case ETWFORGE_STAT_PEBS:
		v = &st->pebs;
		break;
	case ETWFORGE_STAT_PMC:
		v = &st->pmc;
		break;
	case ETWFORGE_STAT_COMPACT:
		v = st->compact;
		n = 4;
		break;
	case ETWFORGE_STAT_BUFFERS_BY_CPU:
		v = st->buffers_by_cpu;
		n = 2048;
		break;
	case ETWFORGE_STAT_RECORDS_BY_CPU:
		v = st->records_by_cpu;
		n = 2048;
		break;
	case ETWFORGE_STAT_PROCESSES:
		v = &st->ident.processes;
		break;
	case ETWFORGE_STAT_THREADS:
		v = &st->ident.threads;
		break;
	case ETWFORGE_STAT_READY:
		v = &st->ident.ready;
		break;
	case ETWFORGE_STAT_SAMPLES:
		v = &st->ident.samples;
		break;
	case ETWFORGE_STAT_SWITCHES_ATTRIBUTED:
		v = &st->ident.attributed;
		break;
	case ETWFORGE_STAT_SWITCHES_UNATTRIBUTED:
		v = &st->ident.unattributed;
		break;
	case ETWFORGE_STAT_RECORDS_BY_KIND32:
	case ETWFORGE_STAT_RECORDS_BY_KIND64:
		if (index >= ETL_KIND_COUNT) {
			return -ERANGE;
		}
		*out = st->records_by_kind[index][what == ETWFORGE_STAT_RECORDS_BY_KIND64];
		return 0;
	default:
		return -EINVAL;
	}
	if (index >= n) {
		return -ERANGE;
	}
	*out = v[index];
	return 0;
}

int read_stats_hook(const struct etwforge_stats *st, unsigned kind, bool is64, uint16_t hook,
		    uint64_t *out)
{
	if (kind >= 3) {
		return -ERANGE;
	}
	*out = st->hooks[kind][is64][hook];
	return 0;
}

int read_stats_hook_next(const struct etwforge_stats *st, unsigned kind, bool is64, int from)
{
	if (kind >= 3) {
		return -ERANGE;
	}
	for (unsigned h = from < 0 ? 0u : (unsigned)from; h < 65536;) {
		uint64_t w = st->hook_seen[kind][is64][h / 64] >> (h % 64);

		if (w) {
			for (; !(w & 1u); w >>= 1) {
				h++;
			}
			return (int)h;
		}
		h = (h / 64 + 1) * 64;
	}
	return -ENOENT;
}

static unsigned hooked_index(enum etl_kind k)
{
	return k == ETL_KIND_SYSTEM ? 0u : k == ETL_KIND_COMPACT ? 1u : 2u;
}

/* Count the switches of one batch by form (the split of StateWr does not matter here). */
static int count_compact(const struct etl_reader *d, const struct etl_record *r,
			 struct etwforge_stats *s, struct etwforge_error *err)
{
	size_t bad = 0;

	if (r->payload_len < ETW_CCB_LEN) {
		return 0; /* a short payload: the listing says so; nothing to count */
	}
	if (etw_ccswap_count_forms(r->payload, r->payload_len, s->compact, &bad) < 0) {
		return error_fail_at(err, -EINVAL, ERR_DATA,
				     "%s: offset 0x%" PRIx64
				     ": compact CSwitch record runs past the batch "
				     "or names an empty TidTable slot",
				     etl_reader_name(d),
				     r->file_offset + (uint64_t)(r->payload - r->data) + bad);
	}
	return 0;
}

/*
 * zero_stats - clear @s, writing only the parts that are not zero already.
 * Most of its 3 MiB (the per-hook counts) stays zero, and a caller's calloc()
 * gives pages the kernel has not backed yet: writing zeros over them all
 * would make it allocate and clear every page (measured: a quarter of
 * `dump --stats` on an 18 MB file). Reading them is not free either: each
 * page read maps the zero page with a fault of its own (770 of a `dump
 * --stats` run's 2,700), so a struct never counted into is not read.
 */
static void zero_stats(struct etwforge_stats *s)
{
	enum { CHUNK = 4096 };
	unsigned char *p = (unsigned char *)s;
	size_t n = sizeof(*s);

	for (size_t at = 0; s->used && at < n; at += CHUNK) {
		size_t len = n - at < CHUNK ? n - at : CHUNK;
		unsigned char any = 0;

		for (size_t i = 0; i < len; i++) {
			any |= p[at + i];
		}
		if (any) {
			memset(p + at, 0, len);
		}
	}
	s->used = true; /* (cleared with its chunk above) */
}

/* One buffer @b of the file, counted. */
static void count_buffer(struct etwforge_stats *s, const struct etl_buffer *b)
{
	s->buffers++;
	s->buffers_by_cpu[b->processor_index & 2047u]++;
	s->compressed += b->compressed;
}

/* One record @r, counted (but a batch's switches). */
static inline void count_record(struct etwforge_stats *s, const struct etl_record *r)
{
	s->records++;
	s->records_by_cpu[r->cpu & 2047u]++;
	s->records_by_kind[r->kind][r->is64]++;
	s->pebs += r->has_pebs;
	s->pmc += r->pmc_count != 0;
	if (r->kind == ETL_KIND_SYSTEM || r->kind == ETL_KIND_COMPACT ||
	    r->kind == ETL_KIND_PERFINFO) {
		unsigned k = hooked_index(r->kind);

		s->hooks[k][r->is64][r->hook_id]++;
		s->hook_seen[k][r->is64][r->hook_id / 64] |= UINT64_C(1) << (r->hook_id % 64);
	}
}

void read_stats_begin(struct etwforge_file *f, struct etwforge_stats *s)
{
	const struct etl_reader *d = read_file_reader(f);

	zero_stats(s);
	for (unsigned i = 0; i < etl_reader_buffer_count(d); i++) {
		count_buffer(s, etl_reader_buffer(d, i));
	}
}

void read_stats_record(void *st, const struct etl_record *r)
{
	count_record(st, r);
}

int read_file_stats(struct etwforge_file *f, struct etwforge_stats *s, bool forms,
		    struct etwforge_error *err)
{
	const struct etl_reader *d = read_file_reader(f);
	bool keep_going = read_file_keep_going(f);
	struct etl_error e;
	struct etl_record r;
	int first = 0; /* with keep_going: the first damage, said in @err */
	int rc;

	zero_stats(s);
	for (unsigned i = 0; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		size_t pos = 0;

		count_buffer(s, b);
		while ((rc = etl_buffer_next(d, b, &pos, &r, &e)) > 0) {
			count_record(s, &r);
			if (forms && r.kind == ETL_KIND_PERFINFO &&
			    r.hook_id == ETW_HOOK_CSWITCH_BATCH &&
			    count_compact(d, &r, s, first ? NULL : err) < 0) {
				if (!keep_going) {
					return -EINVAL;
				}
				first = -EINVAL; /* the batch is skipped, the count goes on */
			}
		}
		if (rc < 0) {
			if (!keep_going) {
				return error_fail_at(err, -EINVAL, ERR_DATA, "%s", e.msg);
			}
			if (!first) {
				first = error_fail_at(err, -EINVAL, ERR_DATA, "%s", e.msg);
			}
		}
	}
	return first ? first : error_ok(err);
}

/* "SYSTEM64", "MESSAGE": the kind, with its width where it has one. */
static void kind_label(char *out, size_t cap, unsigned k, unsigned is64)
{
	if (k == ETL_KIND_MESSAGE || k == ETL_KIND_OTHER) {
		snprintf(out, cap, "%s", read_stats_kind_name(k));
	} else {
		snprintf(out, cap, "%s%s", read_stats_kind_name(k), is64 ? "64" : "32");
	}
}

static void cpu_map(struct jout *j, const uint64_t *v)
{
	char key[8];

	jout_open(j, '{');
	for (unsigned c = 0; c < 2048; c++) {
		if (v[c]) {
			snprintf(key, sizeof(key), "%u", c);
			jout_ku64(j, key, v[c]);
		}
	}
	jout_close(j, '}');
}

size_t read_stats_json(const struct etwforge_file *f, const struct etwforge_stats *s,
		       read_json_more_fn more, const void *ctx, char *buf, size_t cap)
{
	struct jout j;
	char label[24], hook[8];

	jout_init(&j, buf, cap);
	jout_open(&j, '{');
	jout_kstr(&j, "file", read_file_info(f)->name);
	jout_key(&j, "buffers");
	jout_open(&j, '{');
	jout_ku64(&j, "total", s->buffers);
	jout_ku64(&j, "compressed", s->compressed);
	jout_key(&j, "per_cpu");
	cpu_map(&j, s->buffers_by_cpu);
	jout_close(&j, '}');
	jout_key(&j, "records");
	jout_open(&j, '{');
	jout_ku64(&j, "total", s->records);
	jout_key(&j, "by_kind");
	jout_open(&j, '{');
	for (unsigned k = 0; k < ETL_KIND_COUNT; k++) {
		for (unsigned w = 0; w < 2; w++) {
			if (s->records_by_kind[k][w]) {
				kind_label(label, sizeof(label), k, w);
				jout_ku64(&j, label, s->records_by_kind[k][w]);
			}
		}
	}
	jout_close(&j, '}');
	jout_key(&j, "by_hook");
	jout_open(&j, '{');
	for (unsigned hk = 0; hk < 3; hk++) {
		for (unsigned w = 0; w < 2; w++) {
			if (!s->records_by_kind[hk][w]) {
				continue;
			}
			kind_label(label, sizeof(label), hk, w);
			jout_key(&j, label);
			jout_open(&j, '{');
			for (int h = 0; (h = read_stats_hook_next(s, hk, w, h)) >= 0; h++) {
				snprintf(hook, sizeof(hook), "0x%04X", (unsigned)h & 0xFFFFu);
				jout_ku64(&j, hook, s->hooks[hk][w][h]);
			}
			jout_close(&j, '}');
		}
	}
	jout_close(&j, '}');
	jout_key(&j, "per_cpu");
	cpu_map(&j, s->records_by_cpu);
	jout_close(&j, '}');
	jout_key(&j, "compact_switches");
	jout_open(&j, '{');
	jout_ku64(&j, "idle_short", s->compact[0]);
	jout_ku64(&j, "idle", s->compact[1]);
	jout_ku64(&j, "lite", s->compact[2]);
	jout_ku64(&j, "full", s->compact[3]);
	jout_close(&j, '}');
	jout_ku64(&j, "with_pebs", s->pebs);
	jout_ku64(&j, "with_pmc", s->pmc);
	jout_ku64(&j, "trailing_bytes", read_file_info(f)->trailing_bytes);
	jout_ku64(&j, "processes", s->ident.processes);
	jout_ku64(&j, "threads", s->ident.threads);
	jout_ku64(&j, "ready_thread", s->ident.ready);
	jout_ku64(&j, "sampled_profile", s->ident.samples);
	jout_key(&j, "switches");
	jout_open(&j, '{');
	jout_ku64(&j, "attributed", s->ident.attributed);
	jout_ku64(&j, "unattributed", s->ident.unattributed);
	jout_close(&j, '}');
	if (more) {
		more(&j, ctx);
	}
	jout_close(&j, '}');
	return jout_finish(&j);
}
