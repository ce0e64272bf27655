// SPDX-License-Identifier: MIT
/*
 * tools/lib/fuzz/corpus.c - fuzz_corpus_write(): the catalogue (corpus_cat.c)
 * or the mangled set (mangle.c) built in memory, then every output of the
 * run in one struct out_set (tools/lib/run/out_file.h): added first (collisions
 * refused before anything is made), opened, written, committed together.
 *
 *   DIR/ID.etl              one per edge case and session (or mangled file)
 *   DIR/ID.expected.jsonl   what `etwforge dump --jsonl ID.etl` prints, run in DIR
 *   DIR/ID.truth.jsonl      the stream each valid file was replayed from
 *   DIR/MANIFEST.jsonl      one line per file (+ one per pending entry)
 *   DIR/etl.dict            AFL++ / libFuzzer dictionary
 *   DIR/NAME_seed_corpus.zip, DIR/NAME.dict   with a zip name (OSS-Fuzz)
 *
 * With mutants (`corpus --mutants N [--shard K/M]`): DIR/mutant-NNNNNN.etl,
 * each a structure-aware mutant of a catalogue file made by mutate.c from
 * (seed, index) alone, MANIFEST.jsonl (one line per mutant) and the
 * dictionary; a shard writes the indexes i with i % M == K - 1.
 *
 * The corpus in memory and its expected decodes are corpus_set.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/fuzz/corpus.h"
#include "tools/lib/fuzz/corpus_cat.h"
#include "tools/lib/fuzz/corpus_set.h"
#include "tools/lib/fuzz/mangle.h"
#include "tools/lib/fuzz/mutate.h"
#include "tools/lib/common/json_out.h"
#include "writer/etl_wire.h"
#include "tools/lib/run/out_file.h"

/* ---- the dictionary ------------------------------------------------------------ */

#define DICT_NAME "etl.dict"

/*
 * Tokens as they sit in a file (little-endian): markers, hook ids, flag
 * bits, header constants. AFL++ and libFuzzer read the same format:
 * name="\xNN..." per line.
 */
struct dict_token {
	const char *name;
	const char *bytes;
	unsigned len;
};

#define TOK(n, b)                                                                                  \
	{                                                                                          \
		n, b, sizeof(b) - 1                                                                \
	}

static const struct dict_token dict[] = {
	/* Markers (KERNEL_FACTS 3.1): PERFINFO 32/64 with versions, PEBS, PMC counts */
	TOK("perfinfo64_v2", "\x02\x00\x11\xC0"),
	TOK("perfinfo64_v4", "\x04\x00\x11\xC0"),
	TOK("perfinfo32_v2", "\x02\x00\x10\xC0"),
	TOK("perfinfo32_v4", "\x04\x00\x10\xC0"),
	TOK("perfinfo64_pebs_v4", "\x04\x80\x11\xC0"),
	TOK("perfinfo64_pmc1_v4", "\x04\x01\x11\xC0"),
	TOK("perfinfo64_pmc4_v4", "\x04\x04\x11\xC0"),
	TOK("perfinfo64_pmc7_v2", "\x02\x07\x11\xC0"),
	TOK("perfinfo64_pebs_pmc2", "\x04\x82\x11\xC0"),
	TOK("system64_v2", "\x02\x00\x02\xC0"),
	TOK("system32_v2", "\x02\x00\x01\xC0"),
	TOK("system64_v3", "\x03\x00\x02\xC0"),
	TOK("compact64", "\x02\x00\x04\xC0"),
	TOK("event_header64", "\x00\x00\x13\xC0"),
	TOK("end_marker", "\xFF\xFF\xFF\xFF"),
	/* Size + HookId pairs of the records we write */
	TOK("cswitch_size_hook", "\x28\x00\x24\x05"),
	TOK("cswitch_pebs_size_hook", "\x30\x00\x24\x05"),
	TOK("spinlock64_size_hook", "\x48\x00\x29\x05"),
	TOK("spinlock32_size_hook", "\x40\x00\x29\x05"),
	TOK("batch_empty_size_hook", "\x68\x00\x25\x05"),
	TOK("batch_max_size_hook", "\x00\x04\x25\x05"),
	TOK("logfile_size_hook", "\x00\x00"),
	/* Hook ids (KERNEL_FACTS 4.1) */
	TOK("hook_logfile_header", "\x00\x00"),
	TOK("hook_header_extension", "\x05\x00"),
	TOK("hook_cswitch", "\x24\x05"),
	TOK("hook_cswitch_batch", "\x25\x05"),
	TOK("hook_spinlock", "\x29\x05"),
	TOK("hook_ready_thread", "\x32\x05"),
	TOK("hook_spinlock_dc_start", "\x4B\x0F"),
	TOK("hook_spinlock_dc_end", "\x4C\x0F"),
	TOK("hook_partition_info", "\x50\x00"),
	/* WMI_BUFFER_HEADER (KERNEL_FACTS 8.1) */
	TOK("buffer_size_4k", "\x00\x10\x00\x00"),
	TOK("buffer_size_8k", "\x00\x20\x00\x00"),
	TOK("buffer_size_64k", "\x00\x00\x01\x00"),
	TOK("buffer_header_len", "\x48\x00\x00\x00"),
	TOK("state_flush", "\x03\x00\x00\x00"),
	TOK("flag_proc_index", "\x20\x00"),
	TOK("flag_header", "\x21\x00"),
	TOK("flag_events_lost", "\x22\x00"),
	TOK("flag_compressed", "\x60\x00"),
	TOK("type_header", "\x04\x00"),
	TOK("type_generic", "\x00\x00"),
	TOK("cpu_index_mask", "\xFF\x07"),
	/* TRACE_LOGFILE_HEADER (KERNEL_FACTS 8.2) */
	TOK("version_10_0_1_5", "\x0A\x00\x01\x05"),
	TOK("version_10_0_2_0", "\x0A\x00\x02\x00"),
	TOK("build_10240", "\x00\x28\x00\x00"),
	TOK("build_16299", "\x8B\x3F\x00\x00"),
	TOK("build_22621", "\x5D\x58\x00\x00"),
	TOK("pointer_size_8", "\x08\x00\x00\x00"),
	TOK("pointer_size_4", "\x04\x00\x00\x00"),
	TOK("log_file_mode", "\x01\x00\x00\x02"),
	TOK("log_file_mode_compressed", "\x01\x00\x00\x06"),
	TOK("timer_resolution", "\x1A\x62\x02\x00"),
	TOK("perf_freq_10mhz", "\x80\x96\x98\x00"),
	TOK("clock_qpc", "\x01\x00\x00\x00"),
	TOK("clock_systime", "\x02\x00\x00\x00"),
	TOK("clock_cycles", "\x03\x00\x00\x00"),
	TOK("logger_name", "N\x00T\x00 \x00K\x00"),
	TOK("utf16_nul", "\x00\x00"),
	TOK("kernel_event_version_65", "\x41\x00\x00\x00"),
	/* PERFINFO_GROUPMASK bits of the 0x0005 extension */
	TOK("perf_context_switch", "\x04\x00\x00\x00"),
	TOK("perf_compact_cswitch", "\x00\x01\x00\x00"),
	TOK("perf_spinlock", "\x00\x00\x01\x00"),
	/* compact batch records (KERNEL_FACTS 5.3): type bits and boundary deltas */
	TOK("ccswap_idle_short_max", "\xFC\xFF"),
	TOK("ccswap_idle_max", "\xFD\xFF\xFF\xFF"),
	TOK("ccswap_lite", "\x02\x00\x00\x00"),
	TOK("ccswap_full", "\x03\x00\x00\x00"),
	TOK("ccswap_full_wait_max", "\x00\x80\xFF\xFF"),
	TOK("delta_0x40000000", "\x00\x00\x00\x40"),
	TOK("delta_0x1ffff", "\xFF\xFF\x01\x00"),
	TOK("batch_cap", "\x00\x04"),
	/* WMI_SPINLOCK flags byte: AcquireMode, ExecuteDpc 0x40, ExecuteIsr 0x80 */
	TOK("spin_flags_dpc", "\x40"),
	TOK("spin_flags_isr", "\x80"),
	TOK("spin_depth_8", "\x08"),
	/* XPRESS (MS-XCA): an all-literal flag word, the end-of-stream flags */
	TOK("xpress_literals", "\x00\x00\x00\x00"),
	TOK("xpress_end", "\xFF\xFF\xFF\xFF"),
	/* kernel addresses */
	TOK("kernel_address_hi", "\x00\xF8\xFF\xFF"),
};

static char *dict_text(size_t *len)
{
	struct text t = {0};
	char line[256];

	text_add(&t, "# etl.dict - ETL tokens as little-endian bytes (etwforge corpus)\n",
		 strlen("# etl.dict - ETL tokens as little-endian bytes (etwforge corpus)\n"));
	for (size_t i = 0; i < sizeof(dict) / sizeof(dict[0]); i++) {
		int n = snprintf(line, sizeof(line), "%s=\"", dict[i].name);

		for (unsigned k = 0; k < dict[i].len && n > 0 && (size_t)n + 8 < sizeof(line);
		     k++) {
			n += snprintf(line + n, sizeof(line) - (size_t)n, "\\x%02X",
				      (unsigned char)dict[i].bytes[k]);
		}
		n += snprintf(line + n, sizeof(line) - (size_t)n, "\"\n");
		text_add(&t, line, (size_t)n);
	}
	return text_take(&t, len);
}

/* ---- the OSS-Fuzz seed corpus: a zip of stored (uncompressed) entries ---------- */

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
	uint32_t c = 0xFFFFFFFFu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++) {
			c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
		}
	}
	return ~c;
}

static void bytes_add(struct text *t, const uint8_t *p, size_t n)
{
	text_add(t, (const char *)p, n);
}

static void le16_add(struct text *t, uint32_t v)
{
	uint8_t b[2];

	put_le16(b, (uint16_t)v);
	bytes_add(t, b, 2);
}

static void le32_add(struct text *t, uint32_t v)
{
	uint8_t b[4];

	put_le32(b, v);
	bytes_add(t, b, 4);
}

/*
 * The .etl files of @c as a zip (APPNOTE 4.3: local headers + data, the
 * central directory, its end record); every date is 1980-01-01 00:00, so
 * the same corpus gives the same bytes.
 */
static char *zip_text(const struct corpus *c, size_t *len)
{
	struct text t = {0}, cd = {0};
	unsigned n = 0;

	for (unsigned i = 0; i < c->n; i++) {
		const struct corpus_file *f = &c->files[i];
		uint32_t crc = crc32_of(f->data, f->len);
		uint32_t at = (uint32_t)t.len;
		size_t nl = strlen(f->file);

		le32_add(&t, 0x04034b50u); /* local file header */
		le16_add(&t, 10);	   /* version needed: 1.0 */
		le16_add(&t, 0);	   /* flags */
		le16_add(&t, 0);	   /* stored */
		le16_add(&t, 0);	   /* time 00:00 */
		le16_add(&t, 0x21);	   /* date 1980-01-01 */
		le32_add(&t, crc);
		le32_add(&t, (uint32_t)f->len);
		le32_add(&t, (uint32_t)f->len);
		le16_add(&t, (uint32_t)nl);
		le16_add(&t, 0);
		text_add(&t, f->file, nl);
		bytes_add(&t, f->data, f->len);

		le32_add(&cd, 0x02014b50u); /* central directory entry */
		le16_add(&cd, 0x031E);	    /* made by: unix, 3.0 */
		le16_add(&cd, 10);
		le16_add(&cd, 0);
		le16_add(&cd, 0);
		le16_add(&cd, 0);
		le16_add(&cd, 0x21);
		le32_add(&cd, crc);
		le32_add(&cd, (uint32_t)f->len);
		le32_add(&cd, (uint32_t)f->len);
		le16_add(&cd, (uint32_t)nl);
		le16_add(&cd, 0);	       /* extra */
		le16_add(&cd, 0);	       /* comment */
		le16_add(&cd, 0);	       /* disk */
		le16_add(&cd, 0);	       /* internal attributes */
		le32_add(&cd, 0100644u << 16); /* external: a regular file, rw-r--r-- */
		le32_add(&cd, at);
		text_add(&cd, f->file, nl);
		n++;
	}
	{
		uint32_t cd_at = (uint32_t)t.len;

		bytes_add(&t, (const uint8_t *)cd.p, cd.len);
		le32_add(&t, 0x06054b50u); /* end of central directory */
		le16_add(&t, 0);
		le16_add(&t, 0);
		le16_add(&t, n);
		le16_add(&t, n);
		le32_add(&t, (uint32_t)cd.len);
		le32_add(&t, cd_at);
		le16_add(&t, 0);
	}
	free(cd.p);
	if (t.oom || cd.oom) {
		free(t.p);
		return NULL;
	}
	*len = t.len;
	return t.p;
}

/* ---- MANIFEST.jsonl ----------------------------------------------------------- */

static void manifest_line(struct text *t, const struct corpus *c, const struct corpus_file *f)
{
	char buf[16384];
	struct jout j;
	char name[CORPUS_ID_MAX + 32];

	jout_init(&j, buf, sizeof(buf));
	jout_open(&j, '{');
	jout_kstr(&j, "id", f->id);
	jout_kstr(&j, "kind", f->mangled ? "mangled" : "valid");
	jout_kstr(&j, "file", f->file);
	jout_kstr(&j, "description", f->desc);
	jout_ku64(&j, "seed", c->seed);
	jout_kstr(&j, "tool_version", ETWFORGE_VERSION);
	jout_khex(&j, "xxh3", f->xxh3);
	jout_ku64(&j, "size", f->len);
	snprintf(name, sizeof(name), "%s.expected.jsonl", f->id);
	jout_kstr(&j, "expected", name);
	if (f->mangled) {
		jout_kstr(&j, "base", f->base);
		jout_kstr(&j, "rule", f->rule);
		jout_khex(&j, "offset", f->at);
		jout_key(&j, "expect");
		jout_open(&j, '{');
		jout_ku64(&j, "status", (uint64_t)f->expect.status);
		jout_kstr(&j, "class", f->expect.cls);
		if (f->expect.status) {
			jout_khex(&j, "offset", f->expect.offset);
		}
		jout_kstr(&j, "message", f->expect.message);
		jout_close(&j, '}');
	} else {
		jout_kstr(&j, "stream", c->streams[f->stream].name);
		jout_kstr(&j, "session", f->session);
		jout_kbool(&j, "verifies", f->verifies);
		jout_key(&j, "offsets");
		jout_open(&j, '[');
		for (unsigned k = 0; k < f->noffs; k++) {
			const struct corpus_offset *o = &f->offs[k];

			if (!o->found) {
				continue;
			}
			jout_sep(&j);
			jout_open(&j, '{');
			jout_kstr(&j, "what", o->what);
			jout_khex(&j, "record", o->record);
			if (o->in_batch) {
				jout_khex(&j, "batch", o->batch);
				jout_kstr(&j, "form", o->form);
			}
			jout_close(&j, '}');
		}
		jout_close(&j, ']');
	}
	jout_close(&j, '}');
	text_add_json(t, &j, buf, sizeof(buf));
}

static char *manifest_text(const struct corpus *c, bool mangle, size_t *len)
{
	struct text t = {0};
	const struct corpus_pending *p;
	unsigned np = 0;

	for (unsigned i = 0; i < c->n; i++) {
		manifest_line(&t, c, &c->files[i]);
	}
	p = mangle ? NULL : corpus_pending_list(&np);
	for (unsigned i = 0; i < np; i++) {
		char buf[1024];
		struct jout j;

		jout_init(&j, buf, sizeof(buf));
		jout_open(&j, '{');
		jout_kstr(&j, "id", p[i].id);
		jout_kstr(&j, "kind", "pending");
		jout_kstr(&j, "why", p[i].why);
		jout_close(&j, '}');
		text_add_json(&t, &j, buf, sizeof(buf));
	}
	return text_take(&t, len);
}

/* One line per mutant, in index order: the same line whatever the shard. */
static char *mutant_manifest_text(const struct corpus *c, size_t *len)
{
	struct text t = {0};

	for (unsigned i = 0; i < c->n; i++) {
		const struct corpus_file *f = &c->files[i];
		char buf[2048];
		struct jout j;

		jout_init(&j, buf, sizeof(buf));
		jout_open(&j, '{');
		jout_kstr(&j, "id", f->id);
		jout_kstr(&j, "kind", "mutant");
		jout_kstr(&j, "file", f->file);
		jout_ku64(&j, "index", f->index);
		jout_kstr(&j, "description", f->desc);
		jout_kstr(&j, "base", f->base);
		jout_kstr(&j, "other", f->other);
		jout_kstr(&j, "mutation", f->mutation);
		jout_ku64(&j, "seed", c->seed);
		jout_kstr(&j, "tool_version", ETWFORGE_VERSION);
		jout_khex(&j, "xxh3", f->xxh3);
		jout_ku64(&j, "size", f->len);
		jout_close(&j, '}');
		text_add_json(&t, &j, buf, sizeof(buf));
	}
	return text_take(&t, len);
}

/* ---- mutants of the catalogue ---------------------------------------------------- */

#define MUTANTS_MAX	 1000000u   /* mutant-000000 .. mutant-999999 */
#define MUTANTS_PER_RUN	 2000u	    /* one run's outputs fit one out_set */
#define MUTANT_MAX_BYTES (1u << 20) /* the mutator cuts the stream until it fits */

/* A number drawn for mutant @i of @seed: its own, whatever else is made. */
static uint64_t mutant_key(uint64_t seed, uint64_t i, uint64_t what)
{
	uint8_t b[16];

	put_le64(b, i);
	put_le64(b + 8, what);
	return XXH3_64bits_withSeed(b, sizeof(b), seed);
}

/*
 * Mutant @i into @f: a catalogue file of @cat (by the key) mutated one to
 * three times by a mutator made for it alone, another file lending records.
 */
static int mutant_make(struct corpus_file *f, const struct corpus *cat, uint64_t seed, uint64_t i)
{
	const struct corpus_file *base = &cat->files[mutant_key(seed, i, 0) % cat->n];
	const struct corpus_file *other = &cat->files[mutant_key(seed, i, 1) % cat->n];
	ETWFORGE_OPTS(etwforge_mutator_opts, mo, .seed = mutant_key(seed, i, 2));
	unsigned rounds = 1 + (unsigned)(mutant_key(seed, i, 3) % 3);
	struct etwforge_mutator *m = fuzz_mutator_new(&mo);
	uint8_t *cur;
	size_t len = base->len;

	if (!m) {
		return -ENOMEM;
	}
	cur = malloc(len ? len : 1);
	if (!cur) {
		fuzz_mutator_free(m);
		return -ENOMEM;
	}
	memcpy(cur, base->data, len);
	for (unsigned r = 0; r < rounds; r++) {
		const uint8_t *out = NULL;
		size_t n = fuzz_mutator_mutate(m, cur, len, other->data, other->len,
					       MUTANT_MAX_BYTES, &out);
		size_t at = strlen(f->mutation);

		if (n && out && out != cur) {
			uint8_t *next = malloc(n);

			if (!next) {
				free(cur);
				fuzz_mutator_free(m);
				return -ENOMEM;
			}
			memcpy(next, out, n);
			free(cur);
			cur = next;
			len = n;
		}
		snprintf(f->mutation + at, sizeof(f->mutation) - at, "%s%s", r ? "," : "",
			 fuzz_mutator_describe(m));
	}
	fuzz_mutator_free(m);
	f->data = cur;
	f->len = len;
	f->xxh3 = XXH3_64bits(cur, len);
	f->index = i;
	f->stream = -1;
	snprintf(f->id, sizeof(f->id), "mutant-%06" PRIu64, i);
	snprintf(f->file, sizeof(f->file), "%s.etl", f->id);
	snprintf(f->base, sizeof(f->base), "%s", base->id);
	snprintf(f->other, sizeof(f->other), "%s", other->id);
	snprintf(f->desc, sizeof(f->desc), "%s mutated %u time%s, records lent by %s", base->id,
		 rounds, rounds == 1 ? "" : "s", other->id);
	return 0;
}

/* The mutants of shard @shard of @shards (0-based; @shards 0 = 1) into @c. */
static int mutants_build(struct corpus *c, const struct corpus *cat, uint64_t seed, uint64_t n,
			 uint64_t shard, uint64_t shards, struct etwforge_error *err)
{
	uint64_t m = shards ? shards : 1;

	c->seed = seed;
	if (!cat->n) {
		return error_fail(err, -EINVAL, ERR_DATA, "the catalogue is empty");
	}
	for (uint64_t i = shard; i < n; i += m) {
		struct corpus_file *f = corpus_add_file(c);
		int rc;

		if (!f) {
			return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		}
		rc = mutant_make(f, cat, seed, i);
		if (rc < 0) {
			return error_fail(err, rc, ERR_DATA, "out of memory");
		}
	}
	return 0;
}

/* The mutant options, checked. Return: 0 or -EINVAL with @err (INPUT). */
static int mutants_check(const struct etwforge_corpus_opts *o, struct etwforge_error *err)
{
	uint64_t m = o->shards ? o->shards : 1, count;

	if (!o->mutants) {
		if (o->shards > 1 || o->shard) {
			return error_fail(err, -EINVAL, ERR_INPUT,
					  "--shard: only with --mutants N");
		}
		return 0;
	}
	if (o->mangle) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "--mutants and --mangle: one corpus at a time");
	}
	if (o->mutants > MUTANTS_MAX) {
		return error_fail(err, -EINVAL, ERR_INPUT, "--mutants %" PRIu64 ": at most %u",
				  o->mutants, MUTANTS_MAX);
	}
	if (o->shard >= m) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "--shard: shard %" PRIu64 " of %" PRIu64 " does not exist",
				  o->shard + 1, m);
	}
	count = o->mutants / m + (o->shard < o->mutants % m ? 1 : 0);
	if (count > MUTANTS_PER_RUN) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "--mutants %" PRIu64 ": %" PRIu64
				  " files in one run, at most %u: split it with --shard K/M, M >= "
				  "%" PRIu64,
				  o->mutants, count, MUTANTS_PER_RUN,
				  (o->mutants + MUTANTS_PER_RUN - 1) / MUTANTS_PER_RUN);
	}
	return 0;
}

/* ---- writing ------------------------------------------------------------------ */

/* One output of the run: its name in DIR and its bytes. */
struct output {
	char *path;
	const void *data;
	size_t len;
	char *owned; /* freed with the output (made for it) */
	int index;   /* in the out_set */
	bool zip;    /* asked for by --zip */
};

struct outputs {
	struct output *v;
	unsigned n, cap;
};

static int output_add(struct outputs *o, const char *dir, const char *name, const void *data,
		      size_t len, char *owned)
{
	struct output *e;
	size_t n = strlen(dir) + 1 + strlen(name) + 1;

	if (o->n == o->cap) {
		unsigned cap = o->cap ? 2 * o->cap : 256;
		struct output *v = realloc(o->v, cap * sizeof(*v));

		if (!v) {
			free(owned);
			return -ENOMEM;
		}
		o->v = v;
		o->cap = cap;
	}
	e = &o->v[o->n];
	e->path = malloc(n);
	if (!e->path) {
		free(owned);
		return -ENOMEM;
	}
	snprintf(e->path, n, "%s/%s", dir, name);
	e->data = data;
	e->len = len;
	e->owned = owned;
	e->index = -1;
	e->zip = false;
	o->n++;
	return 0;
}

static void outputs_free(struct outputs *o)
{
	for (unsigned i = 0; i < o->n; i++) {
		free(o->v[i].path);
		free(o->v[i].owned);
	}
	free(o->v);
}

/* Every file of the corpus @c (valid or mangled) and what goes with it. */
static int plan(struct outputs *o, const struct corpus *c, const char *dir, bool mangle,
		bool mutants, const char *zip)
{
	char name[CORPUS_ID_MAX + 64];
	size_t len = 0;
	char *t;
	int rc = 0;

	for (unsigned i = 0; i < c->n && !rc; i++) {
		const struct corpus_file *f = &c->files[i];

		rc = output_add(o, dir, f->file, f->data, f->len, NULL);
		snprintf(name, sizeof(name), "%s.expected.jsonl", f->id);
		if (!rc && !mutants) {
			rc = output_add(o, dir, name, f->expected, f->expected_len, NULL);
		}
	}
	for (unsigned i = 0; i < c->nstreams && !mangle && !mutants && !rc; i++) {
		rc = output_add(o, dir, c->streams[i].name, c->streams[i].text, c->streams[i].len,
				NULL);
	}
	if (rc) {
		return rc;
	}
	t = mutants ? mutant_manifest_text(c, &len) : manifest_text(c, mangle, &len);
	if (!t || (rc = output_add(o, dir, "MANIFEST.jsonl", t, len, t)) < 0) {
		return -ENOMEM;
	}
	t = dict_text(&len);
	if (!t || (rc = output_add(o, dir, DICT_NAME, t, len, t)) < 0) {
		return -ENOMEM;
	}
	if (zip) {
		snprintf(name, sizeof(name), "%s.dict", zip);
		/* with --zip etl, NAME.dict is the dictionary itself: written once */
		if (strcmp(name, DICT_NAME) != 0) {
			char *d = dict_text(&len);

			if (!d || (rc = output_add(o, dir, name, d, len, d)) < 0) {
				return -ENOMEM;
			}
			o->v[o->n - 1].zip = true;
		}
		t = zip_text(c, &len);
		snprintf(name, sizeof(name), "%s_seed_corpus.zip", zip);
		if (!t || (rc = output_add(o, dir, name, t, len, t)) < 0) {
			return -ENOMEM;
		}
		o->v[o->n - 1].zip = true;
	}
	return 0;
}

/* Write @o's data to its output of @s and close it (few descriptors at once). */
static int write_one(struct out_set *s, const struct output *o, struct etwforge_error *err)
{
	struct out_file *f = out_set_file(s, (unsigned)o->index);
	FILE *st = out_file_stream(f);
	int rc;

	if (!st) {
		rc = -errno;
		return error_fail(err, rc, ERR_DATA, "%s: %s", o->path, strerror(-rc));
	}
	if (o->len && fwrite(o->data, 1, o->len, st) != o->len) {
		rc = errno ? -errno : -EIO;
		return error_fail(err, rc, ERR_DATA, "%s: write failed: %s", o->path,
				  strerror(-rc));
	}
	rc = out_file_close(f);
	if (rc < 0) {
		error_fail(err, rc, ERR_DATA, "%s: write failed: %s", o->path, strerror(-rc));
	}
	return rc;
}

/* A zip name must be a plain file name (it becomes NAME_seed_corpus.zip in DIR). */
static bool good_zip_name(const char *z)
{
	return z[0] && !strchr(z, '/') && strcmp(z, ".") && strcmp(z, "..") && strlen(z) < 128;
}

/*
 * Every output in one set: added (collisions refused before anything is
 * made), then @dir made if missing, then opened, written and committed
 * together. A folder made here goes again when the run fails.
 */
static int write_all_outputs(struct outputs *o, const char *dir, struct etwforge_error *err)
{
	struct out_set s;
	int rc = 0, made = 0;

	out_set_init(&s);
	for (unsigned i = 0; i < o->n && rc >= 0; i++) {
		rc = o->v[i].index =
			out_set_add(&s, o->v[i].path, o->v[i].zip ? "--zip" : "--out", err);
	}
	if (rc < 0) {
		out_set_free(&s);
		/* the corpus names its files: only two that are one file are the caller's */
		return error_reclass(err, rc, rc == -EEXIST ? ERR_INPUT : ERR_DATA);
	}
	rc = made = out_dir_make(dir, err);
	if (rc == -ENOTDIR) {
		/* --out names a file: the command line's mistake, as an output that is a
		 * folder is for the commands that write files */
		error_fail(err, rc, ERR_INPUT, "--out %s: not a directory", dir);
	}
	if (rc >= 0) {
		rc = out_set_open(&s, err);
	}
	for (unsigned i = 0; i < o->n && rc >= 0; i++) {
		rc = write_one(&s, &o->v[i], err);
	}
	if (rc >= 0) {
		rc = out_set_commit(&s, err);
	}
	out_set_free(&s); /* aborts what was not committed */
	if (made == 1) {
		out_dir_done(dir, rc >= 0);
	}
	return rc < 0 ? rc : 0;
}

int fuzz_corpus_write(const char *dir, const struct etwforge_corpus_opts *opts,
		      struct etwforge_corpus_summary *sum, struct etwforge_error *err)
{
	static const struct etwforge_corpus_opts defaults;
	const struct etwforge_corpus_opts *o = opts ? opts : &defaults;
	struct corpus c = {0}, cat = {0};
	struct outputs outs = {0};
	int rc;

	if (!dir || !dir[0]) {
		return error_fail(err, -EINVAL, ERR_INPUT, "no output folder: give --out DIR");
	}
	if (o->zip_name && !good_zip_name(o->zip_name)) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "--zip %s: a plain file name is needed (NAME_seed_corpus.zip is "
				  "written in the output folder)",
				  o->zip_name);
	}
	if (o->seed > (uint64_t)INT64_MAX) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "--seed %" PRIu64 ": out of range 1..9223372036854775807 (each "
				  "truth stream carries it, a signed 64-bit JSON integer)",
				  o->seed);
	}
	rc = mutants_check(o, err);
	if (rc < 0) {
		return rc;
	}
	if (o->mutants && o->shard >= o->mutants) {
		/* an empty shard (more shards than mutants): nothing to write, no folder made */
		if (sum) {
			memset(sum, 0, sizeof(*sum));
		}
		return error_ok(err);
	}
	if (o->mutants) {
		rc = corpus_build_valid(&cat, o->seed ? o->seed : 1, err);
		if (rc == 0) {
			rc = mutants_build(&c, &cat, o->seed ? o->seed : 1, o->mutants, o->shard,
					   o->shards, err);
		}
	} else {
		rc = corpus_build_valid(&c, o->seed ? o->seed : 1, err);
	}
	if (rc == 0 && o->mangle) {
		rc = corpus_build_mangled(&c, err);
	}
	if (rc < 0) {
		goto out;
	}
	rc = plan(&outs, &c, dir, o->mangle, o->mutants != 0, o->zip_name);
	if (rc < 0) {
		rc = error_fail(err, rc, ERR_DATA, "out of memory");
		goto out;
	}
	rc = write_all_outputs(&outs, dir, err);
	if (rc < 0) {
		goto out;
	}
	if (sum) {
		memset(sum, 0, sizeof(*sum));
		sum->files = c.n;
		corpus_pending_list(&sum->pending);
		if (o->mangle || o->mutants) {
			sum->pending = 0;
		}
		for (unsigned i = 0; i < c.n; i++) {
			sum->bytes += c.files[i].len;
		}
		sum->outputs = outs.n;
	}
	rc = error_ok(err);
out:
	outputs_free(&outs);
	corpus_free(&c);
	corpus_free(&cat);
	return rc;
}
