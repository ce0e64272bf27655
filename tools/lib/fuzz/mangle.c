// SPDX-License-Identifier: MIT
/*
 * tools/lib/fuzz/mangle.c - invalid-but-plausible ETL files: each rule breaks
 * exactly one invariant of the framing or of a payload, at a place it finds
 * in a valid file (with the framing reader), and says what `etwforge dump`
 * must report for it: the exit status, a class name, the offset of the
 * one-line error and a piece of it. `etwforge corpus --mangle` applies each
 * rule to its base file of the catalogue; the mutator applies a random one
 * to a re-encoded file.
 *
 *   valid image ──copy──► rule: find the place (etl_reader on the original)
 *                               change a few bytes (the copy)
 *                               struct corpus_expect: what dump says
 *
 * The expectations are the reader's documented rules (writer/etl_reader.c,
 * the expansion of compact batches), written down here per rule and
 * checked against the real `etwforge dump` by tests/test_corpus.c. A rule
 * whose break the reader tolerates says so (status 0) with the reason other
 * readers disagree (ETL_READERS.md section 5).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "producer/etw_encode.h"
#include "producer/etw_layout.h"
#include "tools/lib/fuzz/mangle.h"
#include "writer/etl_layout.h"
#include "writer/etl_reader.h"
#include "writer/etl_wire.h"

/* What a rule works with. */
struct mctx {
	uint8_t *p; /* the copy being changed */
	size_t len;
	struct etl_reader *d; /* reads the unchanged original */
	uint64_t pick;
	uint64_t at;
	struct corpus_expect *exp;
};

typedef int (*mangle_fn)(struct mctx *m);

/**
 * struct mangle_rule - one invariant broken.
 * @id:   the mangled file's name in the corpus (without .etl)
 * @base: the catalogue file it is made from
 * @desc: one line for MANIFEST.jsonl
 */
struct mangle_rule {
	const char *id;
	const char *base;
	const char *desc;
	mangle_fn fn;
};

static int expect_error(struct mctx *m, uint64_t at, uint64_t err_at, const char *cls,
			const char *message)
{
	m->at = at;
	m->exp->status = 1;
	m->exp->cls = cls;
	m->exp->offset = err_at;
	m->exp->message = message;
	return 0;
}

static int expect_ok(struct mctx *m, uint64_t at, const char *cls, const char *message)
{
	m->at = at;
	m->exp->status = 0;
	m->exp->cls = cls;
	m->exp->offset = 0;
	m->exp->message = message;
	return 0;
}

/* ---- finding places ------------------------------------------------------------ */

typedef bool (*rec_pred)(const struct etl_record *r, const struct etl_buffer *b);

/*
 * The @m->pick-th record (modulo how many there are) of a data buffer that
 * @pred accepts, and its buffer. Return: 0 or -ENOENT.
 */
static int find_record(struct mctx *m, rec_pred pred, struct etl_record *out,
		       const struct etl_buffer **buf)
{
	uint64_t n = 0, want;

	for (int pass = 0; pass < 2; pass++) {
		want = n ? m->pick % n : 0;
		n = 0;
		for (unsigned i = 1; i < etl_reader_buffer_count(m->d); i++) {
			const struct etl_buffer *b = etl_reader_buffer(m->d, i);
			struct etl_record r;
			struct etl_error e;
			size_t pos = 0;

			if (b->compressed) {
				continue; /* its bytes on disk are not the records */
			}
			while (etl_buffer_next(m->d, b, &pos, &r, &e) > 0) {
				if (!pred(&r, b)) {
					continue;
				}
				if (pass == 1 && n == want) {
					*out = r;
					*buf = b;
					return 0;
				}
				n++;
			}
		}
		if (n == 0) {
			return -ENOENT;
		}
	}
	return -ENOENT;
}

/* The @m->pick-th uncompressed data buffer (modulo how many) that @pred accepts. */
static const struct etl_buffer *
find_buffer(struct mctx *m, bool (*pred)(struct mctx *m, const struct etl_buffer *b))
{
	unsigned n = 0, want;

	for (unsigned i = 1; i < etl_reader_buffer_count(m->d); i++) {
		n += pred(m, etl_reader_buffer(m->d, i));
	}
	if (n == 0) {
		return NULL;
	}
	want = (unsigned)(m->pick % n);
	for (unsigned i = 1; i < etl_reader_buffer_count(m->d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(m->d, i);

		if (pred(m, b) && want-- == 0) {
			return b;
		}
	}
	return NULL;
}

static bool perfinfo(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->kind == ETL_KIND_PERFINFO;
}

static bool plain_cswitch(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->kind == ETL_KIND_PERFINFO && r->hook_id == ETW_HOOK_CSWITCH;
}

static bool pmc4_cswitch(const struct etl_record *r, const struct etl_buffer *b)
{
	return plain_cswitch(r, b) && r->pmc_count == 4 && !r->has_pebs;
}

static bool spinlock64(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->kind == ETL_KIND_PERFINFO && r->hook_id == ETW_HOOK_SPINLOCK && r->is64 &&
	       !r->has_pebs && r->pmc_count == 0;
}

static bool batch(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->kind == ETL_KIND_PERFINFO && r->hook_id == ETW_HOOK_CSWITCH_BATCH &&
	       r->payload_len > ETW_CCB_LEN;
}

/* The last record of its buffer. */
static bool last_in_buffer(const struct etl_record *r, const struct etl_buffer *b)
{
	return etl_align8(r->file_offset - b->file_offset + r->size) >= b->data_end;
}

static bool data_buffer(struct mctx *m, const struct etl_buffer *b)
{
	(void)m;
	return !b->compressed && b->data_end > ETL_BH_LEN;
}

/* A buffer that another one follows, with a zero byte at its end. */
static bool followed_buffer(struct mctx *m, const struct etl_buffer *b)
{
	return data_buffer(m, b) && b->index + 1 < etl_reader_buffer_count(m->d) &&
	       b->data_end < b->buffer_size && m->p[b->file_offset + b->buffer_size - 1] == 0;
}

static bool last_buffer(struct mctx *m, const struct etl_buffer *b)
{
	return data_buffer(m, b) && b->index + 1 == etl_reader_buffer_count(m->d);
}

static bool compressed_buffer(struct mctx *m, const struct etl_buffer *b)
{
	return b->compressed && b->decompressed &&
	       b->data_end + 8u <= etl_reader_logfile(m->d)->buffer_size;
}

/* ---- records ------------------------------------------------------------------- */

static int set_size(struct mctx *m, rec_pred pred, uint16_t size, const char *cls, const char *msg)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, pred, &r, &b) < 0) {
		return -ENOENT;
	}
	put_le16(m->p + r.file_offset + ETL_TH_SIZE, size);
	return expect_error(m, r.file_offset + ETL_TH_SIZE, r.file_offset, cls, msg);
}

static int r_size_zero(struct mctx *m)
{
	return set_size(m, perfinfo, 0, "record-size-zero", "record Size 0");
}

static int r_size_one(struct mctx *m)
{
	return set_size(m, perfinfo, 1, "record-size-below-header",
			"smaller than its 16-byte header");
}

static int r_size_header_minus_1(struct mctx *m)
{
	return set_size(m, perfinfo, ETL_TH_LEN - 1, "record-size-below-header",
			"smaller than its 16-byte header");
}

static int r_size_below_items(struct mctx *m)
{
	return set_size(m, pmc4_cswitch, ETL_TH_LEN + 4 * ETL_EXT_ITEM_LEN - 1,
			"record-size-below-items",
			"smaller than its 0x10-byte header and 4 extended items");
}

static int r_size_past_data(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;
	uint64_t end;

	if (find_record(m, last_in_buffer, &r, &b) < 0) {
		return -ENOENT;
	}
	end = b->file_offset + b->data_end;
	put_le16(m->p + r.file_offset + ETL_TH_SIZE, (uint16_t)(end - r.file_offset + 8));
	return expect_error(m, r.file_offset + ETL_TH_SIZE, r.file_offset, "record-past-data-end",
			    "runs past the data end");
}

/* The Marker's header type byte set to a type no header has (9). */
static int r_header_type(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, batch, &r, &b) < 0) {
		return -ENOENT;
	}
	/* a version-2 record: read as OTHER, its "Size" is the Marker's low word, 2 */
	m->p[r.file_offset + 2] = 9;
	return expect_error(m, r.file_offset + 2, r.file_offset, "record-size-below-header",
			    "OTHER record Size 2 smaller than its 4-byte header");
}

static int r_version(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, plain_cswitch, &r, &b) < 0) {
		return -ENOENT;
	}
	m->p[r.file_offset] = 9;
	return expect_ok(m, r.file_offset, "ok",
			 "CSwitch version 9: framed and listed, its payload not decoded (no "
			 "layout for it); version-keyed readers find no template");
}

static int r_hook(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, plain_cswitch, &r, &b) < 0) {
		return -ENOENT;
	}
	put_le16(m->p + r.file_offset + ETL_TH_HOOK_ID, 0x05FF);
	return expect_ok(m, r.file_offset + ETL_TH_HOOK_ID, "ok",
			 "hook 0x05FF: framed and listed, no payload decoder");
}

/* PMC count 5, 6 or 7 on a CSwitch sized for 4 counters: its payload is too short. */
static int pmc_count(struct mctx *m, unsigned n)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, pmc4_cswitch, &r, &b) < 0) {
		return -ENOENT;
	}
	m->p[r.file_offset + 1] = (uint8_t)((m->p[r.file_offset + 1] & ~7u) | n);
	return expect_ok(m, r.file_offset + 1, "payload-short", "CSwitch payload too short");
}

static int r_pmc5(struct mctx *m)
{
	return pmc_count(m, 5);
}

static int r_pmc6(struct mctx *m)
{
	return pmc_count(m, 6);
}

static int r_pmc7(struct mctx *m)
{
	return pmc_count(m, 7);
}

static int r_pebs_spinlock(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, spinlock64, &r, &b) < 0) {
		return -ENOENT;
	}
	m->p[r.file_offset + 1] |= 0x80;
	return expect_ok(m, r.file_offset + 1, "payload-short", "SpinLock payload too short");
}

/* Visit every LITE or FULL record of every batch; stop when @fn returns true. */
static bool each_compact(struct mctx *m,
			 bool (*fn)(void *ctx, const struct etl_record *r, size_t q, unsigned form),
			 void *ctx)
{
	for (unsigned i = 1; i < etl_reader_buffer_count(m->d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(m->d, i);
		struct etl_record r;
		struct etl_error e;
		size_t pos = 0;

		if (b->compressed) {
			continue;
		}
		while (etl_buffer_next(m->d, b, &pos, &r, &e) > 0) {
			size_t q = ETW_CCB_LEN;

			if (!batch(&r, b)) {
				continue;
			}
			while (q < r.payload_len) {
				struct etw_ccswap_rec cr;
				int n = etw_decode_ccswap_rec(r.payload + q, r.payload_len - q,
							      &cr);

				if (n < 0) {
					break;
				}
				if ((cr.type == ETW_CCSWAP_LITE || cr.type == ETW_CCSWAP_FULL) &&
				    fn(ctx, &r, q, cr.type)) {
					return true;
				}
				q += (size_t)n;
			}
		}
	}
	return false;
}

struct compact_pick {
	uint64_t n, want;
	struct etl_record r;
	size_t q;
	unsigned form;
};

static bool count_compact(void *ctx, const struct etl_record *r, size_t q, unsigned form)
{
	(void)r;
	(void)q;
	(void)form;
	((struct compact_pick *)ctx)->n++;
	return false;
}

static bool take_compact(void *ctx, const struct etl_record *r, size_t q, unsigned form)
{
	struct compact_pick *p = ctx;

	if (p->n++ != p->want) {
		return false;
	}
	p->r = *r;
	p->q = q;
	p->form = form;
	return true;
}

/* The @m->pick-th LITE or FULL record (modulo how many): its batch and payload offset. */
static int find_compact(struct mctx *m, struct etl_record *out, size_t *at, unsigned *form)
{
	struct compact_pick p = {0};

	each_compact(m, count_compact, &p);
	if (p.n == 0) {
		return -ENOENT;
	}
	p.want = m->pick % p.n;
	p.n = 0;
	each_compact(m, take_compact, &p);
	*out = p.r;
	*at = p.q;
	*form = p.form;
	return 0;
}

static uint64_t payload_at(const struct etl_record *r, size_t q)
{
	return r->file_offset + (uint64_t)(r->payload - r->data) + q;
}

/* OldThreadIdIndex 15 in a batch whose TidTable has fewer entries: slot 15 is empty. */
static int r_tid_index(struct mctx *m)
{
	struct etl_record r;
	size_t q;
	unsigned form;
	uint64_t off;

	if (find_compact(m, &r, &q, &form) < 0 || get_le32(r.payload + ETW_CCB_TID_TABLE + 60)) {
		return -ENOENT;
	}
	off = payload_at(&r, q);
	if (form == ETW_CCSWAP_LITE) {
		m->p[off] |= 0x3C; /* [5:2] */
	} else {
		m->p[off + 4] |= 0x0F; /* dword1 [3:0] */
	}
	return expect_error(m, off, off, "batch-tid-index", "names an empty TidTable slot");
}

/* OldThreadStateWr 63: neither a wait reason nor bias + a thread state (0..10). */
static int r_statewr(struct mctx *m)
{
	struct etl_record r;
	size_t q;
	unsigned form;
	uint64_t off;

	if (find_compact(m, &r, &q, &form) < 0) {
		return -ENOENT;
	}
	off = payload_at(&r, q);
	if (form == ETW_CCSWAP_LITE) {
		put_le32(m->p + off, get_le32(m->p + off) | ETW_CCL_STATE_WR);
	} else {
		put_le32(m->p + off + 4, get_le32(m->p + off + 4) | ETW_CCF_STATE_WR);
	}
	return expect_ok(m, off, "ok",
			 "StateWr 63: decoded as a state above MaximumThreadState (10); nothing "
			 "in the record can say it is reserved");
}

/* A batch that can be cut: its last record is 4 or 8 bytes, Size - 1 keeps the aligned size. */
static bool cuttable(const struct etl_record *r, const struct etl_buffer *b, size_t *last)
{
	size_t q = ETW_CCB_LEN;
	struct etw_ccswap_rec cr;
	int n = 0;

	if (!batch(r, b) || r->size % 8 == 1) {
		return false;
	}
	while (q < r->payload_len &&
	       (n = etw_decode_ccswap_rec(r->payload + q, r->payload_len - q, &cr)) > 0) {
		*last = q;
		q += (size_t)n;
	}
	return n >= 4 && q == r->payload_len;
}

static bool cuttable_batch(const struct etl_record *r, const struct etl_buffer *b)
{
	size_t last;

	return cuttable(r, b, &last);
}

/* A batch whose Size ends inside its last record (the aligned size unchanged). */
static int r_batch_cut(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;
	size_t last = 0;

	if (find_record(m, cuttable_batch, &r, &b) < 0 || !cuttable(&r, b, &last)) {
		return -ENOENT;
	}
	put_le16(m->p + r.file_offset + ETL_TH_SIZE, (uint16_t)(r.size - 1));
	return expect_error(m, r.file_offset + ETL_TH_SIZE, payload_at(&r, last),
			    "batch-record-cut", "runs past the batch");
}

/*
 * Two records packed without the 8-byte alignment: the record after one
 * whose Size is not a multiple of 8 moves down to right after it. The
 * reader, stepping to the aligned start, lands inside the moved record.
 */
static int r_unaligned(struct mctx *m)
{
	for (unsigned i = 1; i < etl_reader_buffer_count(m->d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(m->d, i);
		struct etl_record r, next;
		struct etl_error e;
		size_t pos = 0;

		if (b->compressed) {
			continue;
		}
		while (etl_buffer_next(m->d, b, &pos, &r, &e) > 0) {
			size_t k = etl_align8(r.size) - r.size, npos = pos;
			uint64_t to = r.file_offset + r.size, end = b->file_offset + b->data_end;
			uint32_t dword;

			if (k == 0 || etl_buffer_next(m->d, b, &npos, &next, &e) <= 0) {
				continue;
			}
			/* what the reader meets k bytes into the moved record */
			dword = get_le32(next.data + k);
			if (dword & 0x80000000u) {
				continue;
			}
			memmove(m->p + to, m->p + next.file_offset, end - next.file_offset);
			memset(m->p + end - k, 0, k);
			put_le32(m->p + b->file_offset + ETL_BH_SAVED_OFFSET,
				 b->data_end - (uint32_t)k);
			put_le32(m->p + b->file_offset + ETL_BH_CURRENT_OFFSET,
				 b->data_end - (uint32_t)k);
			put_le32(m->p + b->file_offset + ETL_BH_OFFSET, b->data_end - (uint32_t)k);
			if (dword == 0) {
				return expect_error(m, to, next.file_offset, "marker-zero",
						    "zero Marker");
			}
			return expect_error(m, to, next.file_offset, "marker-not-trace-header",
					    "is not a trace header");
		}
	}
	return -ENOENT;
}

/* A plain CSwitch whose timestamp is before the previous one on its CPU. */
static int r_time_backwards(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;
	uint64_t save = m->pick;
	uint64_t prev_ts;

	m->pick = save + 1; /* not the first: it needs a predecessor */
	if (find_record(m, plain_cswitch, &r, &b) < 0) {
		return -ENOENT;
	}
	m->pick = save;
	prev_ts = r.ts > 1000 ? r.ts - 1000 : 0;
	/* two records before it at most: go back far enough to pass them all */
	put_le64(m->p + r.file_offset + ETL_TH_TS, prev_ts > 100000 ? prev_ts - 100000 : 0);
	return expect_ok(m, r.file_offset + ETL_TH_TS, "ok",
			 "a CSwitch earlier than the one before it on the CPU: read as it is; "
			 "readers that merge CPUs by time reorder it");
}

/* ---- identity records ------------------------------------------------------------ */

/*
 * The readers decode these payloads field by field, strings by scanning for
 * their NUL: each rule makes one field run past the record. etwforge lists
 * the record and says "<record> payload too short" in its place (status 0);
 * a reader that trusts the field reads past the record.
 */

/* A Thread record that carries a ThreadName (18362 and later), its terminator last. */
static bool thread_named(const struct etl_record *r, const struct etl_buffer *b)
{
	size_t fixed = r->is64 ? ETW_TH64_LEN : ETW_TH32_LEN;

	(void)b;
	return r->kind == ETL_KIND_SYSTEM && r->hook_id >= ETW_HOOK_THREAD_START &&
	       r->hook_id <= ETW_HOOK_THREAD_DC_END && r->payload_len >= fixed + 4 &&
	       (r->payload_len - fixed) % 2 == 0 && get_le16(r->payload + r->payload_len - 2) == 0;
}

static bool thread_any(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->kind == ETL_KIND_SYSTEM && r->hook_id >= ETW_HOOK_THREAD_START &&
	       r->hook_id <= ETW_HOOK_THREAD_DC_END &&
	       r->payload_len >= (r->is64 ? ETW_TH64_LEN : ETW_TH32_LEN);
}

static bool set_name(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->hook_id == ETW_HOOK_THREAD_SET_NAME && r->kind != ETL_KIND_OTHER &&
	       r->payload_len >= 12 && get_le16(r->payload + r->payload_len - 2) == 0;
}

/* Process DCStart v4 (nothing after ApplicationId) with a SID. */
static bool process_sid(const struct etl_record *r, const struct etl_buffer *b)
{
	size_t sid = r->is64 ? ETW_PR64_SID : ETW_PR32_SID;

	(void)b;
	return r->hook_id >= ETW_HOOK_PROCESS_START && r->hook_id <= ETW_HOOK_PROCESS_DC_END &&
	       r->kind != ETL_KIND_OTHER && r->version == 4 && r->payload_len > sid + 4 &&
	       get_le32(r->payload + sid) != 0;
}

static bool ready_thread(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->hook_id == ETW_HOOK_READY_THREAD && r->kind != ETL_KIND_OTHER &&
	       r->payload_len == ETW_RT_LEN;
}

static bool sampled_profile(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->hook_id == ETW_HOOK_SAMPLED_PROFILE && r->kind == ETL_KIND_PERFINFO &&
	       r->payload_len == (r->is64 ? ETW_SP64_LEN : ETW_SP32_LEN);
}

/* The last UTF-16 unit of the record (a name's NUL) made 'X': the name runs to its end. */
static int name_unterminated(struct mctx *m, rec_pred pred, const char *msg)
{
	const struct etl_buffer *b;
	struct etl_record r;
	uint64_t at;

	if (find_record(m, pred, &r, &b) < 0) {
		return -ENOENT;
	}
	at = payload_at(&r, r.payload_len - 2);
	put_le16(m->p + at, 'X');
	return expect_ok(m, at, "payload-short", msg);
}

static int r_thread_name_unterminated(struct mctx *m)
{
	return name_unterminated(m, thread_named, "Thread payload too short");
}

static int r_set_name_unterminated(struct mctx *m)
{
	return name_unterminated(m, set_name, "ThreadSetName payload too short");
}

/* Where a process record's ImageFileName starts (after its SID blob), or 0. */
static size_t image_at(const struct etl_record *r)
{
	size_t sid = r->is64 ? ETW_PR64_SID : ETW_PR32_SID;
	size_t tu = r->is64 ? ETW_TOKEN_USER64_LEN : ETW_TOKEN_USER32_LEN;
	size_t at;

	if (get_le32(r->payload + sid) == 0) {
		return sid + 4;
	}
	if (r->payload_len < sid + tu + ETW_SID_SUB_AUTHORITY) {
		return 0;
	}
	at = sid + tu + ETW_SID_SUB_AUTHORITY + 4u * r->payload[sid + tu + ETW_SID_SUB_COUNT];
	return at < r->payload_len ? at : 0;
}

/* Every byte from ImageFileName to the end of the record non-zero: no ANSI NUL anywhere. */
static int r_image_unterminated(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;
	size_t img;

	if (find_record(m, process_sid, &r, &b) < 0 || !(img = image_at(&r))) {
		return -ENOENT;
	}
	for (size_t q = img; q < r.payload_len; q++) {
		if (m->p[payload_at(&r, q)] == 0) {
			m->p[payload_at(&r, q)] = 'X';
		}
	}
	return expect_ok(m, payload_at(&r, img), "payload-short", "Process payload too short");
}

/* ApplicationId's NUL (the record's last two bytes) made 'X'. */
static int r_app_id_unterminated(struct mctx *m)
{
	return name_unterminated(m, process_sid, "Process payload too short");
}

/* SubAuthorityCount raised until the SID ends past the record (15 at most, else 255). */
static int r_sid_count(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;
	size_t sid, tu, room;
	unsigned n;

	if (find_record(m, process_sid, &r, &b) < 0) {
		return -ENOENT;
	}
	sid = r.is64 ? ETW_PR64_SID : ETW_PR32_SID;
	tu = r.is64 ? ETW_TOKEN_USER64_LEN : ETW_TOKEN_USER32_LEN;
	if (r.payload_len < sid + tu + ETW_SID_SUB_AUTHORITY) {
		return -ENOENT;
	}
	room = r.payload_len - sid - tu - ETW_SID_SUB_AUTHORITY;
	for (n = r.payload[sid + tu + ETW_SID_SUB_COUNT] + 1u; n <= ETW_SID_MAX_SUB; n++) {
		if (4u * n > room) {
			break;
		}
	}
	if (n > ETW_SID_MAX_SUB) {
		n = 255;
	}
	m->p[payload_at(&r, sid + tu + ETW_SID_SUB_COUNT)] = (uint8_t)n;
	return expect_ok(m, payload_at(&r, sid + tu + ETW_SID_SUB_COUNT), "payload-short",
			 "Process payload too short");
}

/*
 * The record's Size cut to @keep payload bytes; the records after it move
 * up so the buffer still frames (its Offset fields follow).
 */
static int cut_record(struct mctx *m, rec_pred pred, size_t keep, const char *msg)
{
	const struct etl_buffer *b;
	struct etl_record r;
	size_t hdr;
	uint64_t old_end, new_end, data_end;

	if (find_record(m, pred, &r, &b) < 0) {
		return -ENOENT;
	}
	hdr = (size_t)(r.payload - r.data);
	if (keep >= r.payload_len) {
		return -ENOENT;
	}
	old_end = r.file_offset + etl_align8(r.size);
	new_end = r.file_offset + etl_align8(hdr + keep);
	data_end = b->file_offset + b->data_end;
	if (old_end > data_end) {
		old_end = data_end;
	}
	/* EVENT_TRACE_HEADER's Size is its first u16, the others' follows the Marker */
	put_le16(m->p + r.file_offset + (r.kind == ETL_KIND_FULL ? ETL_FH_SIZE : ETL_TH_SIZE),
		 (uint16_t)(hdr + keep));
	if (new_end < old_end) {
		uint32_t shrink = (uint32_t)(old_end - new_end);

		memmove(m->p + new_end, m->p + old_end, data_end - old_end);
		memset(m->p + data_end - shrink, 0, shrink);
		put_le32(m->p + b->file_offset + ETL_BH_SAVED_OFFSET, b->data_end - shrink);
		put_le32(m->p + b->file_offset + ETL_BH_CURRENT_OFFSET, b->data_end - shrink);
		put_le32(m->p + b->file_offset + ETL_BH_OFFSET, b->data_end - shrink);
	}
	return expect_ok(m, r.file_offset + (r.kind == ETL_KIND_FULL ? ETL_FH_SIZE : ETL_TH_SIZE),
			 "payload-short", msg);
}

static int r_thread_cut(struct mctx *m)
{
	return cut_record(m, thread_any, 0x20, "Thread payload too short");
}

static int r_ready_short(struct mctx *m)
{
	return cut_record(m, ready_thread, 4, "ReadyThread payload too short");
}

static int r_sample_short(struct mctx *m)
{
	return cut_record(m, sampled_profile, 8, "SampledProfile payload too short");
}

/* ---- image, stack-walk and KernelTraceControl payloads ---------------------------- */

/*
 * StackWalk 0x1820 (EventTimeStamp, StackProcess, StackThread, then
 * pointers to the record's end: no count field, n = (Size - 0x20) / 8 on
 * x64, STACK_IMAGE_FACTS 3.2), the image records (FileName UTF-16 z last,
 * 2.2) and a merge's DbgID_RSDS (GUID at 0x0C / 0x08, PdbFileName ANSI z
 * last, 6.3).
 */

static bool stack_walk(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->hook_id == ETW_HOOK_STACK_WALK && r->kind == ETL_KIND_PERFINFO &&
	       r->payload_len >= ETW_SW_FRAMES + (r->is64 ? 8u : 4u);
}

/* A Load, Unload, DCStart or DCEnd whose FileName's NUL ends it. */
static bool image_named(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return (r->hook_id == ETW_HOOK_IMAGE_LOAD ||
		(r->hook_id >= ETW_HOOK_IMAGE_UNLOAD && r->hook_id <= ETW_HOOK_IMAGE_DC_END)) &&
	       (r->kind == ETL_KIND_SYSTEM || r->kind == ETL_KIND_PERFINFO) &&
	       r->payload_len >= (r->is64 ? 0x3Au : 0x2Eu) &&
	       get_le16(r->payload + r->payload_len - 2) == 0;
}

/* A KernelTraceControl DbgID_RSDS whose PdbFileName's NUL ends it. */
static bool dbgid_rsds(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->kind == ETL_KIND_FULL && r->size > ETL_FH_LEN &&
	       r->data[ETL_FH_CLASS_TYPE] == ETW_KTC_DBGID_RSDS &&
	       r->payload_len > (r->is64 ? 0x20u : 0x1Cu) && r->payload[r->payload_len - 1] == 0;
}

/* A StackWalk cut to its 0x10-byte head: 0 frames, which the kernel never logs. */
static int r_stack_walk_empty(struct mctx *m)
{
	int rc = cut_record(m, stack_walk, ETW_SW_FRAMES, "");

	if (rc == 0) {
		m->exp->cls = "stack-walk-no-frames";
		m->exp->message = "\"frames\":[]";
	}
	return rc;
}

/* A StackWalk's Size 4 (x64) or 2 (x86) bytes short: not a whole number of frames. */
static int r_stack_walk_ragged(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, stack_walk, &r, &b) < 0) {
		return -ENOENT;
	}
	return cut_record(m, stack_walk, r.payload_len - (r.is64 ? 4u : 2u),
			  "StackWalk payload too short");
}

/* A StackKeyUser 0x1826 (a cached stack's reference: the event, then its key). */
static bool stack_key_user(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->hook_id == ETW_HOOK_STACK_KEY_USER && r->kind == ETL_KIND_PERFINFO &&
	       r->payload_len >= ETW_SW_FRAMES + (r->is64 ? 8u : 4u);
}

/* A KeyRundown 0x1824 (a key still cached at the stop: the key, then its frames). */
static bool stack_key_rundown(const struct etl_record *r, const struct etl_buffer *b)
{
	(void)b;
	return r->hook_id == ETW_HOOK_STACK_KEY_RUNDOWN && r->kind == ETL_KIND_PERFINFO &&
	       r->payload_len >= (r->is64 ? 16u : 8u);
}

/* A key reference cut to its 0x10-byte head: the event without the key. */
static int r_stack_key_short(struct mctx *m)
{
	return cut_record(m, stack_key_user, ETW_SW_FRAMES, "StackKeyUser payload too short");
}

/* A key's definition 4 (x64) or 2 (x86) bytes short: not a whole number of frames. */
static int r_stack_def_ragged(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, stack_key_rundown, &r, &b) < 0) {
		return -ENOENT;
	}
	return cut_record(m, stack_key_rundown, r.payload_len - (r.is64 ? 4u : 2u),
			  "KeyRundown payload too short");
}

static int r_image_file_name_past(struct mctx *m)
{
	return name_unterminated(m, image_named, "Image payload too short");
}

/* PdbFileName's NUL (the record's last byte) made 'X': the ANSI name runs past the payload. */
static int r_pdb_unterminated(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;
	uint64_t at;

	if (find_record(m, dbgid_rsds, &r, &b) < 0) {
		return -ENOENT;
	}
	at = payload_at(&r, r.payload_len - 1);
	m->p[at] = 'X';
	return expect_ok(m, at, "payload-short", "DbgID_RSDS payload too short");
}

/* A DbgID_RSDS cut 8 bytes into its 16-byte GuidSig. */
static int r_dbgid_cut_in_guid(struct mctx *m)
{
	const struct etl_buffer *b;
	struct etl_record r;

	if (find_record(m, dbgid_rsds, &r, &b) < 0) {
		return -ENOENT;
	}
	return cut_record(m, dbgid_rsds, (r.is64 ? 0x0Cu : 0x08u) + 8u,
			  "DbgID_RSDS payload too short");
}

/* ---- buffer headers ------------------------------------------------------------ */

static int buffer_field(struct mctx *m, bool (*pred)(struct mctx *, const struct etl_buffer *),
			const struct etl_buffer **out)
{
	*out = find_buffer(m, pred);
	return *out ? 0 : -ENOENT;
}

static int r_saved_past(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, data_buffer, &b) < 0) {
		return -ENOENT;
	}
	put_le32(m->p + b->file_offset + ETL_BH_SAVED_OFFSET, b->buffer_size + 8);
	return expect_error(m, b->file_offset + ETL_BH_SAVED_OFFSET,
			    b->file_offset + ETL_BH_SAVED_OFFSET, "saved-offset-past-buffer",
			    "SavedOffset");
}

static int r_saved_unaligned(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, data_buffer, &b) < 0 || b->saved_offset + 4 > b->buffer_size) {
		return -ENOENT;
	}
	put_le32(m->p + b->file_offset + ETL_BH_SAVED_OFFSET, b->saved_offset + 4);
	return expect_ok(m, b->file_offset + ETL_BH_SAVED_OFFSET, "ok",
			 "SavedOffset not 8-aligned: etwforge and dissect end at Offset (0x30); "
			 "airbus and snail take SavedOffset and meet 4 zero bytes");
}

static int r_saved_below_offset(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, data_buffer, &b) < 0 || b->saved_offset < ETL_BH_LEN + 8) {
		return -ENOENT;
	}
	put_le32(m->p + b->file_offset + ETL_BH_SAVED_OFFSET, ETL_BH_LEN + 8);
	return expect_ok(m, b->file_offset + ETL_BH_SAVED_OFFSET, "ok",
			 "SavedOffset != Offset: etwforge and dissect read to Offset; readers "
			 "of SavedOffset stop inside the first record");
}

static int r_offset_past_data(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, data_buffer, &b) < 0 || b->data_end + 8 > b->buffer_size) {
		return -ENOENT;
	}
	put_le32(m->p + b->file_offset + ETL_BH_OFFSET, b->data_end + 8);
	return expect_error(m, b->file_offset + ETL_BH_OFFSET, b->file_offset + b->data_end,
			    "marker-zero", "zero Marker");
}

static int r_buffer_size_zero(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, data_buffer, &b) < 0) {
		return -ENOENT;
	}
	put_le32(m->p + b->file_offset + ETL_BH_BUFFER_SIZE, 0);
	return expect_error(m, b->file_offset, b->file_offset, "buffer-size-below-header",
			    "BufferSize 0 smaller than its 72-byte header");
}

/* BufferSize one short of the logfile's: the next header is read a byte early. */
static int r_buffer_size_odd(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, followed_buffer, &b) < 0) {
		return -ENOENT;
	}
	put_le32(m->p + b->file_offset + ETL_BH_BUFFER_SIZE, b->buffer_size - 1);
	/* there: the zero byte, then the real BufferSize's first three bytes */
	return expect_error(m, b->file_offset, b->file_offset + b->buffer_size - 1,
			    "buffer-truncated", "truncated: BufferSize");
}

static int r_buffer_size_past_file(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, last_buffer, &b) < 0) {
		return -ENOENT;
	}
	put_le32(m->p + b->file_offset + ETL_BH_BUFFER_SIZE, 2 * b->buffer_size);
	return expect_error(m, b->file_offset, b->file_offset, "buffer-truncated",
			    "truncated: BufferSize");
}

static int r_cpu_eq_nproc(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, data_buffer, &b) < 0) {
		return -ENOENT;
	}
	put_le16(m->p + b->file_offset + ETL_BH_PROCESSOR_INDEX,
		 (uint16_t)etl_reader_logfile(m->d)->number_of_processors);
	return expect_error(m, b->file_offset + ETL_BH_PROCESSOR_INDEX,
			    b->file_offset + ETL_BH_PROCESSOR_INDEX, "cpu-out-of-range",
			    ">= NumberOfProcessors");
}

static int r_compressed_flag(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, data_buffer, &b) < 0) {
		return -ENOENT;
	}
	put_le16(m->p + b->file_offset + ETL_BH_BUFFER_FLAG, b->flag | ETL_BUFFER_FLAG_COMPRESSED);
	return expect_ok(m, b->file_offset + ETL_BH_BUFFER_FLAG, "ok",
			 "BufferFlag COMPRESSED in a file without COMPRESSED_MODE: no format to "
			 "decompress with, the buffer's records are not read");
}

/* Two buffers of one CPU with their SequenceNumbers swapped. */
static int r_sequence_swapped(struct mctx *m)
{
	unsigned n;
	const unsigned *order = etl_reader_cpu_order(m->d, &n);

	for (unsigned k = 0; k + 1 < n; k++) {
		const struct etl_buffer *a = etl_reader_buffer(m->d, order[k]);
		const struct etl_buffer *b = etl_reader_buffer(m->d, order[k + 1]);

		if (a->processor_index != b->processor_index) {
			continue;
		}
		put_le64(m->p + a->file_offset + ETL_BH_SEQUENCE, (uint64_t)b->sequence);
		put_le64(m->p + b->file_offset + ETL_BH_SEQUENCE, (uint64_t)a->sequence);
		return expect_ok(m, a->file_offset + ETL_BH_SEQUENCE, "ok",
				 "SequenceNumbers swapped: a CPU's buffers are read in the wrong "
				 "order; time goes backwards between them");
	}
	return -ENOENT;
}

static int r_xpress_lengths(struct mctx *m)
{
	const struct etl_buffer *b;

	if (buffer_field(m, compressed_buffer, &b) < 0) {
		return -ENOENT;
	}
	put_le32(m->p + b->file_offset + ETL_BH_SAVED_OFFSET, b->data_end + 8);
	put_le32(m->p + b->file_offset + ETL_BH_OFFSET, b->data_end + 8);
	return expect_error(m, b->file_offset + ETL_BH_SAVED_OFFSET, b->file_offset + ETL_BH_LEN,
			    "xpress-ends-early", "XPRESS data ends early");
}

/* ---- the header buffer and the logfile header ----------------------------------- */

/* The TRACE_LOGFILE_HEADER: after buffer 0's header and the SYSTEM header of record 0. */
#define LF_AT (ETL_BH_LEN + ETL_SH_LEN)

static size_t lf_len(const struct mctx *m)
{
	return etl_reader_logfile(m->d)->is64 ? ETL_LF64_LEN : ETL_LF32_LEN;
}

static uint16_t lf_rec_size(const struct mctx *m)
{
	return get_le16(m->p + ETL_BH_LEN + ETL_SH_SIZE);
}

static int r_buffers_written(struct mctx *m, int delta)
{
	uint64_t at = LF_AT + ETL_LF_BUFFERS_WRITTEN;
	uint32_t bw = etl_reader_logfile(m->d)->buffers_written;

	if (bw < 3 && delta < 0) {
		return -ENOENT;
	}
	put_le32(m->p + at, bw + (uint32_t)delta);
	if (delta > 0) {
		return expect_error(m, at, m->len, "buffer-missing", "missing: the file ends");
	}
	return expect_ok(m, at, "ok",
			 "BuffersWritten one short: the last buffer is trailing bytes, not read; "
			 "dissect and snail read that many buffers");
}

static int r_bw_plus(struct mctx *m)
{
	return r_buffers_written(m, 1);
}

static int r_bw_minus(struct mctx *m)
{
	return r_buffers_written(m, -1);
}

static int r_bw_zero(struct mctx *m)
{
	uint64_t at = LF_AT + ETL_LF_BUFFERS_WRITTEN;

	put_le32(m->p + at, 0);
	return expect_error(m, at, at, "not-etl", "not an ETL file: BuffersWritten 0");
}

static int r_nproc_zero(struct mctx *m)
{
	uint64_t at = LF_AT + ETL_LF_NUMBER_OF_PROCESSORS;

	put_le32(m->p + at, 0);
	return expect_error(m, at, at, "not-etl", "not an ETL file: NumberOfProcessors 0");
}

static int r_pointer_size(struct mctx *m)
{
	uint64_t at = LF_AT + ETL_LF_POINTER_SIZE;

	put_le32(m->p + at, etl_reader_logfile(m->d)->is64 ? 4 : 8);
	return expect_error(m, at, at, "not-etl", "does not match the SYSTEM");
}

static int r_buffer0_type(struct mctx *m)
{
	put_le16(m->p + ETL_BH_BUFFER_TYPE, ETL_BUFFER_TYPE_GENERIC);
	return expect_error(m, ETL_BH_BUFFER_TYPE, ETL_BH_BUFFER_TYPE, "not-etl",
			    "not an ETL file: buffer 0 BufferType 0 is not 4");
}

static int r_logfile_hook(struct mctx *m)
{
	put_le16(m->p + ETL_BH_LEN + ETL_SH_HOOK_ID, ETL_HOOK_HEADER_EXTENSION);
	return expect_error(m, ETL_BH_LEN + ETL_SH_HOOK_ID, ETL_BH_LEN, "not-etl",
			    "first record is not the SYSTEM hook 0x0000 logfile header");
}

static int r_logfile_version(struct mctx *m)
{
	m->p[ETL_BH_LEN] = 3;
	return expect_ok(m, ETL_BH_LEN, "ok",
			 "logfile record version 3: read; airbus (VersionNotFound) and snail "
			 "(invalid initial record) refuse it");
}

/* Where LoggerName starts and the record ends. */
static void strings_at(const struct mctx *m, uint64_t *s, uint64_t *end)
{
	*s = LF_AT + lf_len(m);
	*end = ETL_BH_LEN + lf_rec_size(m);
}

/* The two strings taken out: the Size ends at the struct, the next record moves up. */
static int r_strings_missing(struct mctx *m)
{
	uint64_t s, end, next_old, next_new, data_end = get_le32(m->p + ETL_BH_OFFSET);

	strings_at(m, &s, &end);
	if (end <= s) {
		return -ENOENT;
	}
	next_old = etl_align8(end);
	next_new = etl_align8(s);
	memmove(m->p + next_new, m->p + next_old, data_end - next_old);
	memset(m->p + data_end - (next_old - next_new), 0, next_old - next_new);
	put_le16(m->p + ETL_BH_LEN + ETL_SH_SIZE, (uint16_t)(s - ETL_BH_LEN));
	put_le32(m->p + ETL_BH_SAVED_OFFSET, (uint32_t)(data_end - (next_old - next_new)));
	put_le32(m->p + ETL_BH_CURRENT_OFFSET, (uint32_t)(data_end - (next_old - next_new)));
	put_le32(m->p + ETL_BH_OFFSET, (uint32_t)(data_end - (next_old - next_new)));
	return expect_ok(m, ETL_BH_LEN + ETL_SH_SIZE, "ok",
			 "no LoggerName / LogFileName: tolerated (the Size ends at the struct); "
			 "dissect fails with EOFError");
}

/* LogFileName's terminator replaced: the string runs to the end of the record. */
static int r_string_unterminated(struct mctx *m)
{
	uint64_t s, end, second = 0;

	strings_at(m, &s, &end);
	for (uint64_t q = s; q + 2 <= end; q += 2) {
		if (get_le16(m->p + q) == 0) {
			second = q + 2;
			break;
		}
	}
	if (!second || end < second + 2 || get_le16(m->p + end - 2) != 0) {
		return -ENOENT;
	}
	put_le16(m->p + end - 2, 'X');
	return expect_error(m, end - 2, second, "not-etl", "LogFileName: no UTF-16 NUL terminator");
}

/* Every terminator replaced: LoggerName runs past the event. */
static int r_string_past_event(struct mctx *m)
{
	uint64_t s, end;

	strings_at(m, &s, &end);
	if (end <= s) {
		return -ENOENT;
	}
	for (uint64_t q = s; q + 2 <= end; q += 2) {
		if (get_le16(m->p + q) == 0) {
			put_le16(m->p + q, 'X');
		}
	}
	return expect_error(m, s, s, "not-etl", "LoggerName: no UTF-16 NUL terminator");
}

/* ---- the rules ------------------------------------------------------------------ */

static const struct mangle_rule rules[] = {
	{"mangle-record-size-0", "header-clock-qpc", "a record's Size 0", r_size_zero},
	{"mangle-record-size-1", "header-clock-qpc", "a record's Size 1", r_size_one},
	{"mangle-record-size-below-header", "header-clock-qpc",
	 "a PERFINFO record's Size 0x0F, one short of its header", r_size_header_minus_1},
	{"mangle-record-size-below-items", "pmc-cswitch-4",
	 "Size one short of the header and its 4 PMC items", r_size_below_items},
	{"mangle-record-size-past-saved-offset", "header-clock-qpc",
	 "the last record's Size runs 8 bytes past SavedOffset/Offset", r_size_past_data},
	{"mangle-saved-offset-past-buffer-size", "header-clock-qpc", "SavedOffset = BufferSize + 8",
	 r_saved_past},
	{"mangle-saved-offset-unaligned", "header-clock-qpc", "SavedOffset + 4: not 8-aligned",
	 r_saved_unaligned},
	{"mangle-saved-offset-ne-offset", "header-clock-qpc",
	 "SavedOffset below Offset (just the first record)", r_saved_below_offset},
	{"mangle-offset-past-data", "header-clock-qpc",
	 "Offset (0x30) 8 bytes past the data, into the zero tail", r_offset_past_data},
	{"mangle-buffer-size-0", "header-clock-qpc", "a data buffer's BufferSize 0",
	 r_buffer_size_zero},
	{"mangle-buffer-size-not-multiple", "lost-events-pool",
	 "BufferSize 4095: not the logfile's, the next header read a byte early",
	 r_buffer_size_odd},
	{"mangle-buffer-size-past-file", "buffer-filled-exactly",
	 "the last buffer's BufferSize twice what the file holds", r_buffer_size_past_file},
	{"mangle-buffers-written-plus-1", "buffer-filled-exactly", "BuffersWritten one too many",
	 r_bw_plus},
	{"mangle-buffers-written-minus-1", "buffer-filled-exactly", "BuffersWritten one short",
	 r_bw_minus},
	{"mangle-buffers-written-0", "header-clock-qpc", "BuffersWritten 0", r_bw_zero},
	{"mangle-number-of-processors-0", "header-clock-qpc", "NumberOfProcessors 0", r_nproc_zero},
	{"mangle-processor-index-eq-cpus", "cpus-1", "ProcessorIndex = NumberOfProcessors",
	 r_cpu_eq_nproc},
	{"mangle-header-type-undefined", "cpus-1", "a Marker's header type 9 (none is defined)",
	 r_header_type},
	{"mangle-marker-version-undefined", "header-clock-qpc", "CSwitch version 9", r_version},
	{"mangle-hook-id-undefined", "header-clock-qpc", "hook id 0x05FF", r_hook},
	{"mangle-tid-index-past-table", "batch-thread-recurs",
	 "a compact record's OldThreadIdIndex 15, past the TidTable's filled entries", r_tid_index},
	{"mangle-batch-cut-mid-record", "flush-tid-table-16-threads",
	 "a batch's Size ends inside its last record", r_batch_cut},
	{"mangle-record-form-reserved", "batch-thread-recurs",
	 "OldThreadStateWr 63: no wait reason, no thread state", r_statewr},
	{"mangle-pmc-count-5", "pmc-cswitch-4", "PMC count 5 on a record sized for 4", r_pmc5},
	{"mangle-pmc-count-6", "pmc-cswitch-4", "PMC count 6", r_pmc6},
	{"mangle-pmc-count-7", "pmc-cswitch-4", "PMC count 7: no payload left", r_pmc7},
	{"mangle-pebs-flag-on-spinlock", "spinlock-contention-threshold",
	 "the PEBS flag on a SpinLock (0x0529), not 0x0524", r_pebs_spinlock},
	{"mangle-record-unaligned", "flush-ticks-501",
	 "a record placed right after the previous one's Size, not 8-aligned", r_unaligned},
	{"mangle-logfile-strings-missing", "header-clock-qpc",
	 "the logfile header without LoggerName and LogFileName", r_strings_missing},
	{"mangle-logfile-string-unterminated", "header-clock-qpc",
	 "LogFileName without its NUL terminator", r_string_unterminated},
	{"mangle-logfile-string-past-event", "header-clock-qpc",
	 "no terminator at all: LoggerName runs past the event", r_string_past_event},
	{"mangle-logfile-version-3", "header-clock-qpc", "the logfile record's version 3",
	 r_logfile_version},
	{"mangle-logfile-hook-not-0", "header-clock-qpc",
	 "buffer 0's first record is hook 0x0005, not the logfile header", r_logfile_hook},
	{"mangle-buffer0-type-generic", "header-clock-qpc", "buffer 0 BufferType 0 (GENERIC)",
	 r_buffer0_type},
	{"mangle-pointer-size-4-x64", "header-clock-qpc",
	 "PointerSize 4 with a SYSTEM64 header and PERFINFO64 events", r_pointer_size},
	{"mangle-pointer-size-8-x86", "arch-x86-plain",
	 "PointerSize 8 with a SYSTEM32 header and PERFINFO32 events", r_pointer_size},
	{"mangle-time-delta-backwards", "header-clock-qpc",
	 "a CSwitch's timestamp before the previous one's", r_time_backwards},
	{"mangle-sequence-swapped", "buffer-filled-exactly",
	 "two buffers of one CPU with SequenceNumbers swapped", r_sequence_swapped},
	{"mangle-compressed-flag-without-mode", "header-clock-qpc",
	 "BufferFlag COMPRESSED in an uncompressed file", r_compressed_flag},
	{"mangle-xpress-lengths-disagree", "compressed-xpress-compact",
	 "a compressed buffer whose Offset claims 8 bytes more than its XPRESS data holds",
	 r_xpress_lengths},
	{"mangle-thread-name-unterminated", "ident-all-x64-win10-1903",
	 "a Thread record's ThreadName without its UTF-16 NUL: the name runs to the record's end",
	 r_thread_name_unterminated},
	{"mangle-thread-name-unterminated-x86", "ident-all-x86-win10-1903",
	 "an x86 Thread record's ThreadName without its NUL", r_thread_name_unterminated},
	{"mangle-set-name-unterminated", "ident-all-x64-win10-1709",
	 "ThreadSetName's name without its UTF-16 NUL", r_set_name_unterminated},
	{"mangle-image-name-unterminated", "ident-all-x64-win10-1903",
	 "a Process record's ANSI ImageFileName without NUL, no zero byte to the record's end",
	 r_image_unterminated},
	{"mangle-app-id-unterminated", "ident-sid-1-sub-authority",
	 "a Process record's last string, ApplicationId, without its UTF-16 NUL",
	 r_app_id_unterminated},
	{"mangle-sid-count-past-record", "ident-sid-1-sub-authority",
	 "a UserSID's SubAuthorityCount puts the SID past the end of the Process record",
	 r_sid_count},
	{"mangle-sid-count-past-record-x86", "ident-sid-15-sub-authorities-x86",
	 "SubAuthorityCount 255 after an x86 TOKEN_USER: the SID past the record", r_sid_count},
	{"mangle-thread-cut-in-fixed-part", "ident-all-x64-win10-1709",
	 "a Thread record's Size ends 0x20 bytes into its 0x48-byte fixed part", r_thread_cut},
	{"mangle-ready-thread-short", "ident-all-x64-win10-1903",
	 "a ReadyThread with 4 of its 8 payload bytes", r_ready_short},
	{"mangle-sampled-profile-short", "ident-all-x64-win10-1903",
	 "a SampledProfile with 8 of its 16 payload bytes", r_sample_short},
	{"mangle-sampled-profile-short-x86", "ident-all-x86-win10-1903",
	 "an x86 SampledProfile with 8 of its 12 payload bytes", r_sample_short},
	/* image, stack-walk and KernelTraceControl records */
	{"mangle-stack-walk-0-frames", "stack-depth-1",
	 "a StackWalk cut to its 0x10-byte head: 0 frames (the kernel logs none)",
	 r_stack_walk_empty},
	{"mangle-stack-walk-ragged", "stack-depth-192",
	 "a StackWalk's Size 4 bytes short: (Size - 0x20) / 8 frames is not whole",
	 r_stack_walk_ragged},
	{"mangle-stack-walk-ragged-x86", "stack-depth-odd-x86",
	 "an x86 StackWalk's Size 2 bytes short: not a whole number of 4-byte frames",
	 r_stack_walk_ragged},
	{"mangle-stack-key-without-key", "stack-keys",
	 "a StackKeyUser cut to its 0x10-byte head: the event without its key", r_stack_key_short},
	{"mangle-stack-key-def-ragged", "stack-keys",
	 "a KeyRundown's Size 4 bytes short: its frames are not whole", r_stack_def_ragged},
	{"mangle-stack-key-def-ragged-x86", "stack-keys-x86",
	 "an x86 KeyRundown's Size 2 bytes short", r_stack_def_ragged},
	{"mangle-image-file-name-past-payload", "image-path-forms",
	 "an Image record's FileName without its UTF-16 NUL: it runs past the payload",
	 r_image_file_name_past},
	{"mangle-image-file-name-past-payload-x86", "image-path-forms-x86",
	 "an x86 Image record's FileName without its NUL", r_image_file_name_past},
	{"mangle-dbgid-pdb-unterminated", "ktc-dbgid-rsds",
	 "a DbgID_RSDS whose ANSI PdbFileName has no NUL", r_pdb_unterminated},
	{"mangle-dbgid-cut-in-guid", "ktc-dbgid-rsds",
	 "a DbgID_RSDS whose Size ends 8 bytes into its GuidSig", r_dbgid_cut_in_guid},
};

unsigned mangle_rule_count(void)
{
	return sizeof(rules) / sizeof(rules[0]);
}

const char *mangle_rule_id(unsigned i)
{
	return i < mangle_rule_count() ? rules[i].id : NULL;
}

int mangle_apply(unsigned i, uint8_t *data, size_t *len, uint64_t pick, uint64_t *at,
		 struct corpus_expect *exp)
{
	struct etl_error e;
	struct mctx m = {0};
	uint8_t *orig;
	int rc;

	if (i >= mangle_rule_count()) {
		return -ENOENT;
	}
	orig = malloc(*len ? *len : 1);
	if (!orig) {
		return -ENOMEM;
	}
	memcpy(orig, data, *len);
	m.d = etl_reader_open_mem(orig, *len, "mangle", &e);
	if (!m.d) {
		free(orig);
		return -ENOENT; /* rules need a valid file to find their place */
	}
	m.p = data;
	m.len = *len;
	m.pick = pick;
	m.exp = exp;
	memset(exp, 0, sizeof(*exp));
	rc = rules[i].fn(&m);
	etl_reader_close(m.d);
	free(orig);
	if (rc == 0) {
		*at = m.at;
		*len = m.len;
	}
	return rc;
}

int corpus_build_mangled(struct corpus *c, struct etwforge_error *err)
{
	struct corpus valid = *c;

	memset(c, 0, sizeof(*c));
	c->seed = valid.seed;
	for (unsigned i = 0; i < mangle_rule_count(); i++) {
		const struct mangle_rule *r = &rules[i];
		struct corpus_file *base = corpus_find(&valid, r->base);
		struct corpus_file *f;
		int rc;

		if (!base) {
			error_fail(err, -EINVAL, ERR_DATA, "corpus: %s: no base file %s", r->id,
				   r->base);
			corpus_free(&valid);
			return -EINVAL;
		}
		f = corpus_add_file(c);
		if (!f || !(f->data = malloc(base->len))) {
			error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			corpus_free(&valid);
			return -ENOMEM;
		}
		memcpy(f->data, base->data, base->len);
		f->len = base->len;
		snprintf(f->id, sizeof(f->id), "%s", r->id);
		snprintf(f->file, sizeof(f->file), "%s.etl", r->id);
		snprintf(f->desc, sizeof(f->desc), "%s", r->desc);
		snprintf(f->base, sizeof(f->base), "%s", base->id);
		f->mangled = true;
		f->rule = r->id + strlen("mangle-");
		rc = mangle_apply(i, f->data, &f->len, 0, &f->at, &f->expect);
		if (rc == 0) {
			rc = corpus_decode(f, NULL, 0);
		}
		if (rc < 0) {
			error_fail(err, rc, ERR_DATA, "corpus: %s: %s", r->id,
				   rc == -ENOENT ? "the base file has no place for the rule"
						 : strerror(-rc));
			corpus_free(&valid);
			return rc;
		}
		f->xxh3 = XXH3_64bits(f->data, f->len);
	}
	corpus_free(&valid);
	return 0;
}
