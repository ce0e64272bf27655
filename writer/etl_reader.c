/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_reader.c - the bounds-checked ETL reader declared in
 * writer/etl_reader.h: buffer headers, the TRACE_LOGFILE_HEADER record of
 * buffer 0 and record framing inside a buffer, for our files and Windows'.
 *
 * Layouts: ../shared/spec/KERNEL_FACTS.md sections 3 (trace headers) and 8
 * (ETL framing) through writer/etl_layout.h; what
 * real readers and real files demand: ../shared/spec/ETL_READERS.md and
 * ../shared/etl-samples/README.md. Every offset read is checked against the
 * end of the buffer or record first, every sum is widened before it is
 * compared, and the first violation becomes one `NAME: offset 0x...: what`
 * line in struct etl_error.
 *
 * Choices where the spec is silent (all seven real samples pass them):
 *  - Records end at Offset (0x30) when it is non-zero, else at SavedOffset
 *    (a relogged header buffer can have SavedOffset 0 or SavedOffset <
 *    Offset); both must be 0 or inside [0x48, BufferSize].
 *  - Inside the data, records are contiguous: every record start holds a
 *    Marker with TRACE_HEADER_FLAG (0x80000000) set. A Marker without it
 *    (zero fill, stale bytes, or records packed without 8-byte alignment, so
 *    that the aligned position lands inside the next record) is an error.
 *    0xFFFFFFFF or fewer than 4 bytes before the data end mean "no more".
 *  - Buffer 0 must be uncompressed, of BufferType 4 (HEADER) and start with a
 *    SYSTEM32/64 hook 0x0000 record whose PointerSize matches its header
 *    type. Missing logger/file name strings are tolerated when the record
 *    Size ends before them; a string the Size covers must be terminated.
 *  - ProcessorIndex is masked with 0x7FF when BufferFlag has PROC_INDEX
 *    (0x20); without the flag (Windows 7 ETW_BUFFER_CONTEXT) the CPU is the
 *    low byte (ProcessorNumber), the high byte being Alignment.
 *  - Compressed buffers (BufferFlag 0x40) are framed and checked (on-disk
 *    BufferSize, CPU, end of data <= the logfile's uncompressed BufferSize);
 *    XPRESS ones (plain LZ77, State 3 of buffer 0) are decompressed at open
 *    and their records read; other formats yield no records.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_DONTNEED */
#include "writer/etl_reader.h"
#include "writer/etl_xpress.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer/etl_layout.h"
#include "writer/etl_wire.h"
#include "writer/etl_layout.h"

/* Minimum header lengths of the kinds whose layouts are not in etl_layout.h. */
#define EVENT_TRACE_HEADER_LEN	  0x30u /* FULL_HEADER32/64 (KERNEL_FACTS 3.4) */
#define EVENT_INSTANCE_HEADER_LEN 0x38u /* EVENT_TRACE_HEADER + instance ids + parent handle */
#define EVENT_HEADER_LEN	  0x50u /* EVENT_HEADER incl. ProviderId, descriptor, ActivityId */
#define MESSAGE_HEADER_LEN	  0x08u /* MESSAGE_TRACE_HEADER: Marker + packet */
#define OTHER_HEADER_LEN	  0x04u /* at least the Marker/Size dword */

#define MARKER_TRACE_HEADER_FLAG 0x80000000u /* TRACE_HEADER_FLAG */
#define MARKER_EVENT_TRACE	 0x40000000u /* TRACE_HEADER_EVENT_TRACE */
#define MARKER_MESSAGE		 0x10000000u /* TRACE_MESSAGE */
#define MARKER_END		 0xFFFFFFFFu /* padding after the data in real files */

/* the careful path out of line: the fast one stays small where it is inlined */
#if defined(__GNUC__)
#define READER_NOINLINE __attribute__((noinline))
#else
#define READER_NOINLINE
#endif

/*
 * A mapped file of this size or more gives a buffer's pages back once its
 * last record is read: a pass over a 1 GB trace then holds the buffers it
 * is reading, not the whole file (the pages stay in the page cache, and a
 * later pass maps them in again). Below it, mapping them in again would
 * cost more than the memory: `dump --stats` of a 68 MB file, three walks,
 * is 5 % slower with the release.
 */
#define RELEASE_MIN  ((size_t)256 << 20)
#define OPEN_RELEASE 0x100u /* private flag: a mapping of RELEASE_MIN or more */

struct etl_reader {
	const uint8_t *data;
	size_t len;
	char *name;
	void *map; /* etl_reader_open_file: the mapping to undo, else NULL */
	size_t map_len;
	struct etl_logfile lf;
	struct etl_buffer *bufs;
	unsigned nbufs;
	unsigned *order;
	unsigned norder;
	uint64_t trailing;
	uint8_t *plain;	   /* decompressed buffers, each a whole buffer image */
	size_t *plain_off; /* per entry of @bufs: its image in @plain, or SIZE_MAX */
	uint8_t *owned;	   /* the file image when read from standard input */
	unsigned flags;	   /* ETL_OPEN_* */
	struct etl_damage *damage;
	unsigned ndamage;
	uint8_t streamed; /* what stream_in() read, kept so its loads stay */
};

static const char *const kind_names[ETL_KIND_COUNT] = {
	[ETL_KIND_SYSTEM] = "SYSTEM",	  [ETL_KIND_COMPACT] = "COMPACT",
	[ETL_KIND_PERFINFO] = "PERFINFO", [ETL_KIND_FULL] = "FULL_HEADER",
	[ETL_KIND_INSTANCE] = "INSTANCE", [ETL_KIND_EVENT_HEADER] = "EVENT_HEADER",
	[ETL_KIND_MESSAGE] = "MESSAGE",	  [ETL_KIND_OTHER] = "OTHER",
};

const char *etl_kind_name(enum etl_kind k)
{
	if ((unsigned)k >= ETL_KIND_COUNT) {
		return "?";
	}
	return kind_names[k];
}

/**
 * set_err - fill @err with `@name: offset 0x@off: <fmt>`, one line.
 * @err may be NULL (the caller only wants the return code).
 */
static void set_err(struct etl_error *err, const char *name, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set_err(struct etl_error *err, const char *name, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err) {
		return;
	}
	err->offset = off;
	err->unopened = false;
	n = snprintf(err->msg, sizeof(err->msg), "%s: offset 0x%" PRIx64 ": ", name, off);
	if (n < 0 || (size_t)n >= sizeof(err->msg)) {
		return;
	}
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* A path that names nothing readable: said as every command says an input it cannot open. */
static void set_unopened(struct etl_error *err, const char *path, int e)
{
	if (err) {
		err->offset = 0;
		err->unopened = true;
		snprintf(err->msg, sizeof(err->msg), "%s: cannot open: %s", path, strerror(e));
	}
}

/**
 * struct rec_shape - where a record's Size is and how long its fixed header
 * is, from the Marker's flag byte and header type (KERNEL_FACTS 3.1).
 */
struct rec_shape {
	enum etl_kind kind;
	bool is64;
	bool has_hook;	   /* SYSTEM, COMPACT, PERFINFO: Size at +4, HookId at +6 */
	unsigned size_off; /* 4 for the kernel's own headers, else 0 */
	unsigned hdr_len;  /* fixed header bytes, before any PERFINFO items */
	unsigned ts_off;   /* SystemTime / TS (has_hook only) */
};

/*
 * The shapes of the kernel's own headers (SYSTEM, COMPACT, PERFINFO: Size
 * at +4, HookId at +6) by their Marker's type, for classify() and the fast
 * path of etl_buffer_next(): has_hook is false for every other type.
 */
static const struct rec_shape kernel_shape[32] = {
	[ETL_HT_SYSTEM32] = {ETL_KIND_SYSTEM, false, true, ETL_TH_SIZE, ETL_SH_LEN,
			     ETL_SH_SYSTEM_TIME},
	[ETL_HT_SYSTEM64] = {ETL_KIND_SYSTEM, true, true, ETL_TH_SIZE, ETL_SH_LEN,
			     ETL_SH_SYSTEM_TIME},
	[ETL_HT_COMPACT32] = {ETL_KIND_COMPACT, false, true, ETL_TH_SIZE, ETL_COMPACT_SH_LEN,
			      ETL_SH_SYSTEM_TIME},
	[ETL_HT_COMPACT64] = {ETL_KIND_COMPACT, true, true, ETL_TH_SIZE, ETL_COMPACT_SH_LEN,
			      ETL_SH_SYSTEM_TIME},
	[ETL_HT_PERFINFO32] = {ETL_KIND_PERFINFO, false, true, ETL_TH_SIZE, ETL_TH_LEN, ETL_TH_TS},
	[ETL_HT_PERFINFO64] = {ETL_KIND_PERFINFO, true, true, ETL_TH_SIZE, ETL_TH_LEN, ETL_TH_TS},
};

/** plain - a header with Size u16 at 0 (EVENT_TRACE_HEADER family, WNODE, unknown). */
static struct rec_shape plain(enum etl_kind kind, bool is64, unsigned hdr_len)
{
	struct rec_shape s = {kind, is64, false, 0, hdr_len, 0};

	return s;
}

/** classify - map a Marker with TRACE_HEADER_FLAG set to its record shape. */
static struct rec_shape classify(uint32_t marker, bool lf_is64)
{
	uint8_t type = (uint8_t)((marker & ETL_MARKER_TYPE_MASK) >> ETL_MARKER_TYPE_SHIFT);

	static_assert((int)ETL_SH_SIZE == (int)ETL_TH_SIZE &&
			      (int)ETL_SH_HOOK_ID == (int)ETL_TH_HOOK_ID,
		      "SYSTEM and PERFINFO headers share Size and HookId");
	if (!(marker & MARKER_EVENT_TRACE)) {
		/* 0x90 top byte (or 0xB0 with ULONG32 time): a TRACE_MESSAGE. */
		if (marker & MARKER_MESSAGE) {
			return plain(ETL_KIND_MESSAGE, lf_is64, MESSAGE_HEADER_LEN);
		}
		return plain(ETL_KIND_OTHER, lf_is64, OTHER_HEADER_LEN);
	}
	switch (type) {
	case ETL_HT_SYSTEM32:
	case ETL_HT_SYSTEM64:
	case ETL_HT_COMPACT32:
	case ETL_HT_COMPACT64:
	case ETL_HT_PERFINFO32:
	case ETL_HT_PERFINFO64:
		return kernel_shape[type];
	case ETL_HT_FULL_HEADER32:
	case ETL_HT_FULL_HEADER64:
		return plain(ETL_KIND_FULL, type == ETL_HT_FULL_HEADER64, EVENT_TRACE_HEADER_LEN);
	case ETL_HT_INSTANCE32:
	case ETL_HT_INSTANCE64:
		return plain(ETL_KIND_INSTANCE, type == ETL_HT_INSTANCE64,
			     EVENT_INSTANCE_HEADER_LEN);
	case ETL_HT_EVENT_HEADER32:
	case ETL_HT_EVENT_HEADER64:
		return plain(ETL_KIND_EVENT_HEADER, type == ETL_HT_EVENT_HEADER64,
			     EVENT_HEADER_LEN);
	case ETL_HT_MESSAGE:
		return plain(ETL_KIND_MESSAGE, lf_is64, MESSAGE_HEADER_LEN);
	default:
		/* TIMED, ERROR, WNODE and unknown types: Size u16 at 0 as in WNODE/EVENT_TRACE. */
		return plain(ETL_KIND_OTHER, lf_is64, OTHER_HEADER_LEN);
	}
}

/** kind_label - "PERFINFO64" style label for error messages. */
static void kind_label(char *out, size_t cap, enum etl_kind k, bool is64)
{
	if (k == ETL_KIND_MESSAGE || k == ETL_KIND_OTHER) {
		snprintf(out, cap, "%s", etl_kind_name(k));
	} else {
		snprintf(out, cap, "%s%s", etl_kind_name(k), is64 ? "64" : "32");
	}
}

/*
 * The whole pages of [@off, @off + @len) of a large mapping leave the
 * process (see RELEASE_MIN). Reading a buffer's header alone maps all of
 * it (the kernel maps the cached pages around a fault), so the opening
 * walk over the headers gives each buffer back too.
 */
static void release_range(const struct etl_reader *d, uint64_t off, uint64_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from, to;

	if (!(d->flags & OPEN_RELEASE) || off > d->len || len > d->len - off) {
		return;
	}
	from = ((uintptr_t)(d->data + off) + page - 1) & ~(page - 1);
	to = (uintptr_t)(d->data + off + len) & ~(page - 1);
	if (to > from) {
		/* MAP_PRIVATE and never written: a later read faults the file's bytes in again */
		(void)madvise((void *)from, to - from, MADV_DONTNEED);
	}
}

/* PERFINFO extended items of a record (PEBS index, PMC counters): 8 bytes each, after its header. */
static inline unsigned item_count(const struct rec_shape *s, uint32_t marker)
{
	if (s->kind != ETL_KIND_PERFINFO) {
		return 0;
	}
	return ((marker & ETL_MARKER_PEBS_FLAG) ? 1u : 0u) + FIELD_GET(ETL_MARKER_PMC_MASK, marker);
}

/*
 * Record @rec from the record at @data (@at in the file; @size bytes, the
 * first @need of them its header and PERFINFO items), shaped @s: every
 * field written (what the record has not: zero), no copy of a zeroed
 * record first.
 */
static inline void fill_record(struct etl_record *rec, const struct etl_buffer *b,
			       const uint8_t *data, uint64_t at, uint32_t marker,
			       const struct rec_shape *s, uint16_t size, unsigned need)
{
	rec->file_offset = at;
	rec->data = data;
	rec->size = size;
	rec->marker = marker;
	rec->header_type = (uint8_t)((marker & ETL_MARKER_TYPE_MASK) >> ETL_MARKER_TYPE_SHIFT);
	rec->kind = s->kind;
	rec->is64 = s->is64;
	rec->cpu = b->processor_index;
	rec->hook_id = 0;
	rec->version = 0;
	rec->ts = 0;
	if (s->has_hook) {
		rec->hook_id = get_le16(data + ETL_TH_HOOK_ID);
		rec->version = (uint8_t)(marker & ETL_MARKER_VERSION_MASK);
		rec->ts = get_le64(data + s->ts_off);
	}
	rec->has_pebs = false;
	rec->pebs_index = 0;
	rec->pmc_count = 0;
	memset(rec->pmc, 0, sizeof(rec->pmc));
	if (s->kind == ETL_KIND_PERFINFO &&
	    (marker & (ETL_MARKER_PEBS_FLAG | ETL_MARKER_PMC_MASK))) {
		/* PEBS first, then the PMC counters (KERNEL_FACTS 3.2, S7 order). */
		const uint8_t *q = data + ETL_TH_LEN;

		if (marker & ETL_MARKER_PEBS_FLAG) {
			rec->has_pebs = true;
			rec->pebs_index = get_le64(q);
			q += ETL_EXT_ITEM_LEN;
		}
		rec->pmc_count = FIELD_GET(ETL_MARKER_PMC_MASK, marker);
		for (unsigned i = 0; i < rec->pmc_count; i++) {
			rec->pmc[i] = get_le64(q + (size_t)i * ETL_EXT_ITEM_LEN);
		}
	}
	/* @need is the header alone but for PERFINFO items */
	rec->payload = data + need;
	rec->payload_len = size - need;
}

/* A mapped buffer read to its end: its pages leave the process. */
static void release_read(const struct etl_reader *d, const struct etl_buffer *b)
{
	if (!b->compressed) {
		release_range(d, b->file_offset, b->buffer_size);
	}
}

/*
 * etl_buffer_next() a step at a time, each check with its message: any
 * record the fast path does not take (the end, damage, other headers,
 * compressed buffers).
 */
static READER_NOINLINE int next_careful(const struct etl_reader *d, const struct etl_buffer *b,
					size_t *pos, struct etl_record *rec, struct etl_error *err)
{
	const uint8_t *base;
	size_t p, end;
	uint64_t at;
	uint32_t marker;
	struct rec_shape s;
	unsigned items, need;
	uint16_t size;
	char label[24];

	if (b->compressed) {
		if (!b->decompressed) {
			return 0; /* a format we do not decompress: the records stay unread */
		}
		/* offsets inside a decompressed buffer count from its header, as if stored plain */
		base = d->plain + d->plain_off[b - d->bufs];
	} else {
		base = d->data + b->file_offset;
	}
	p = *pos < ETL_BH_LEN ? ETL_BH_LEN : *pos;
	end = b->data_end < ETL_BH_LEN ? ETL_BH_LEN : b->data_end;
	at = b->file_offset + p;
	if (p >= end || end - p < 4) {
		release_read(d, b);
		return 0;
	}
	if (p & 7u) {
		set_err(err, d->name, at, "record start 0x%zx in buffer %u is not 8-byte aligned",
			p, b->index);
		return -EINVAL;
	}
	marker = get_le32(base + p);
	if (marker == MARKER_END) {
		release_read(d, b);
		return 0;
	}
	if (marker == 0) {
		set_err(err, d->name, at,
			"zero Marker in buffer %u where the data end (0x%x) says a record follows",
			b->index, b->data_end);
		return -EINVAL;
	}
	if (!(marker & MARKER_TRACE_HEADER_FLAG)) {
		set_err(err, d->name, at,
			"Marker 0x%08" PRIx32 " is not a trace header (TRACE_HEADER_FLAG clear): a "
			"corrupt record, or records not placed at 8-byte aligned starts",
			marker);
		return -EINVAL;
	}
	s = classify(marker, d->lf.is64);
	if (end - p < (size_t)s.size_off + 2) {
		kind_label(label, sizeof(label), s.kind, s.is64);
		set_err(err, d->name, at, "%s record header runs past the data end 0x%x", label,
			b->data_end);
		return -EINVAL;
	}
	size = get_le16(base + p + s.size_off);
	if (size == 0) {
		kind_label(label, sizeof(label), s.kind, s.is64);
		set_err(err, d->name, at, "%s record Size 0", label);
		return -EINVAL;
	}
	items = item_count(&s, marker);
	need = s.hdr_len + items * ETL_EXT_ITEM_LEN;
	if (size < need) {
		kind_label(label, sizeof(label), s.kind, s.is64);
		if (items) {
			set_err(err, d->name, at,
				"%s record Size %u smaller than its 0x%x-byte header and %u "
				"extended items (%u bytes)",
				label, size, s.hdr_len, items, need);
		} else {
			set_err(err, d->name, at,
				"%s record Size %u smaller than its %u-byte header", label, size,
				need);
		}
		return -EINVAL;
	}
	if ((size_t)size > end - p) {
		kind_label(label, sizeof(label), s.kind, s.is64);
		set_err(err, d->name, at,
			"%s record Size %u runs past the data end (buffer offset 0x%zx + %u > "
			"0x%x)",
			label, size, p, size, b->data_end);
		return -EINVAL;
	}

	fill_record(rec, b, base + p, at, marker, &s, size, need);
	*pos = etl_align8(p + size);
	return 1;
}

int etl_buffer_next_careful(const struct etl_reader *d, const struct etl_buffer *b, size_t *pos,
			    struct etl_record *rec, struct etl_error *err)
{
	return next_careful(d, b, pos, rec, err);
}

/*
 * The common record at once: a kernel header, whole, at an aligned offset
 * of a plain buffer, with room for its Size and items. Anything else (and
 * the end) goes to next_careful(), which says what is wrong: the two give
 * the same record (tests/test_reader.c holds them to each other).
 */
int etl_buffer_next(const struct etl_reader *d, const struct etl_buffer *b, size_t *pos,
		    struct etl_record *rec, struct etl_error *err)
{
	size_t p = *pos, end = b->data_end;
	const uint8_t *data;
	const struct rec_shape *s;
	uint32_t marker, type;
	unsigned need;
	uint16_t size;

	if (b->compressed || p < ETL_BH_LEN || (p & 7u) || p >= end || end - p < 8) {
		return next_careful(d, b, pos, rec, err);
	}
	data = d->data + b->file_offset + p;
	marker = get_le32(data);
	type = (marker & ETL_MARKER_TYPE_MASK) >> ETL_MARKER_TYPE_SHIFT;
	s = &kernel_shape[type & 31u];
	size = get_le16(data + ETL_TH_SIZE);
	need = s->hdr_len + item_count(s, marker) * ETL_EXT_ITEM_LEN;
	if ((marker & ETL_MARKER_FLAGS_TRACE) != ETL_MARKER_FLAGS_TRACE || type > 31u ||
	    !s->has_hook || size == 0 || size < need || size > end - p) {
		return next_careful(d, b, pos, rec, err);
	}
	fill_record(rec, b, data, b->file_offset + p, marker, s, size, need);
	*pos = etl_align8(p + size);
	return 1;
}

/**
 * parse_buffer - read and check the WMI_BUFFER_HEADER at @pos as buffer @i.
 * @lf_known: the logfile header is parsed (false only for buffer 0), so the
 * checks against BufferSize and NumberOfProcessors can run.
 * Return: 0 or -EINVAL with @err filled.
 */
static int parse_buffer(struct etl_reader *d, unsigned i, size_t pos, unsigned of,
			struct etl_buffer *b, struct etl_error *err)
{
	const uint8_t *h;
	size_t left = d->len - pos;
	uint16_t raw_cpu;
	uint32_t limit;

	if (left == 0) {
		set_err(err, d->name, pos,
			"buffer %u missing: the file ends after %u of BuffersWritten %u buffers", i,
			i, of);
		return -EINVAL;
	}
	if (left < ETL_BH_LEN) {
		set_err(err, d->name, pos,
			"buffer %u truncated: %zu bytes left, its header needs %u", i, left,
			(unsigned)ETL_BH_LEN);
		return -EINVAL;
	}
	h = d->data + pos;
	memset(b, 0, sizeof(*b));
	b->index = i;
	b->file_offset = pos;
	b->buffer_size = get_le32(h + ETL_BH_BUFFER_SIZE);
	b->saved_offset = get_le32(h + ETL_BH_SAVED_OFFSET);
	b->current_offset = get_le32(h + ETL_BH_CURRENT_OFFSET);
	b->timestamp = (int64_t)get_le64(h + ETL_BH_TIMESTAMP);
	b->sequence = (int64_t)get_le64(h + ETL_BH_SEQUENCE);
	raw_cpu = get_le16(h + ETL_BH_PROCESSOR_INDEX);
	b->logger_id = get_le16(h + ETL_BH_LOGGER_ID);
	b->state = get_le32(h + ETL_BH_STATE);
	b->offset = get_le32(h + ETL_BH_OFFSET);
	b->flag = get_le16(h + ETL_BH_BUFFER_FLAG);
	b->type = get_le16(h + ETL_BH_BUFFER_TYPE);
	b->compressed = (b->flag & ETL_BUFFER_FLAG_COMPRESSED) != 0;
	b->processor_index = (b->flag & ETL_BUFFER_FLAG_PROC_INDEX)
				     ? (uint16_t)(raw_cpu & ETL_PROCESSOR_INDEX_MASK)
				     : (uint16_t)(raw_cpu & 0xFFu);
	b->data_end = b->offset ? b->offset : b->saved_offset;

	if (b->buffer_size < ETL_BH_LEN) {
		set_err(err, d->name, pos + ETL_BH_BUFFER_SIZE,
			"buffer %u BufferSize %" PRIu32 " smaller than its %u-byte header", i,
			b->buffer_size, (unsigned)ETL_BH_LEN);
		return -EINVAL;
	}
	if (b->buffer_size > left) {
		set_err(err, d->name, pos + ETL_BH_BUFFER_SIZE,
			"buffer %u truncated: BufferSize %" PRIu32
			" but %zu bytes left in the file",
			i, b->buffer_size, left);
		return -EINVAL;
	}
	if (i == 0 && b->compressed) {
		set_err(err, d->name, pos + ETL_BH_BUFFER_FLAG,
			"header buffer is compressed (BufferFlag 0x%04x)", b->flag);
		return -EINVAL;
	}
	if (i == 0 && b->type != ETL_BUFFER_TYPE_HEADER) {
		set_err(err, d->name, pos + ETL_BH_BUFFER_TYPE,
			"buffer 0 BufferType %u is not 4 (HEADER)", b->type);
		return -EINVAL;
	}
	if (i == 0) {
		/* The logfile header is not read yet: only the buffer's own size bounds it. */
		limit = b->buffer_size;
	} else if (b->compressed) {
		/* Offsets of a compressed buffer count uncompressed bytes. */
		limit = d->lf.buffer_size;
		if (b->buffer_size > d->lf.buffer_size) {
			set_err(err, d->name, pos + ETL_BH_BUFFER_SIZE,
				"buffer %u compressed length %" PRIu32
				" larger than the logfile BufferSize %" PRIu32,
				i, b->buffer_size, d->lf.buffer_size);
			return -EINVAL;
		}
	} else {
		limit = b->buffer_size;
		if (b->buffer_size > d->lf.buffer_size) {
			set_err(err, d->name, pos + ETL_BH_BUFFER_SIZE,
				"buffer %u BufferSize %" PRIu32
				" larger than the logfile BufferSize %" PRIu32,
				i, b->buffer_size, d->lf.buffer_size);
			return -EINVAL;
		}
	}
	if (b->saved_offset > limit) {
		set_err(err, d->name, pos + ETL_BH_SAVED_OFFSET,
			"buffer %u SavedOffset %" PRIu32 " past its %s %" PRIu32, i,
			b->saved_offset, b->compressed ? "uncompressed size" : "BufferSize", limit);
		return -EINVAL;
	}
	if (b->saved_offset != 0 && b->saved_offset < ETL_BH_LEN) {
		set_err(err, d->name, pos + ETL_BH_SAVED_OFFSET,
			"buffer %u SavedOffset %" PRIu32 " inside the %u-byte buffer header", i,
			b->saved_offset, (unsigned)ETL_BH_LEN);
		return -EINVAL;
	}
	if (b->offset > limit) {
		set_err(err, d->name, pos + ETL_BH_OFFSET,
			"buffer %u Offset %" PRIu32 " past its %s %" PRIu32, i, b->offset,
			b->compressed ? "uncompressed size" : "BufferSize", limit);
		return -EINVAL;
	}
	if (b->offset != 0 && b->offset < ETL_BH_LEN) {
		set_err(err, d->name, pos + ETL_BH_OFFSET,
			"buffer %u Offset %" PRIu32 " inside the %u-byte buffer header", i,
			b->offset, (unsigned)ETL_BH_LEN);
		return -EINVAL;
	}
	return 0;
}

/** check_cpu - ProcessorIndex < NumberOfProcessors (snail indexes an array with it). */
static int check_cpu(const struct etl_reader *d, const struct etl_buffer *b, struct etl_error *err)
{
	if (b->processor_index >= d->lf.number_of_processors) {
		set_err(err, d->name, b->file_offset + ETL_BH_PROCESSOR_INDEX,
			"buffer %u ProcessorIndex %u >= NumberOfProcessors %" PRIu32, b->index,
			b->processor_index, d->lf.number_of_processors);
		return -EINVAL;
	}
	return 0;
}

/* @c as UTF-8 at @out + *@o, if it fits before @cap (room kept for the NUL). */
static void put_utf8(char *out, size_t *o, size_t cap, uint32_t c)
{
	uint8_t b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (uint8_t)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (uint8_t)(0xC0 | (c >> 6));
		b[1] = (uint8_t)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (uint8_t)(0xE0 | (c >> 12));
		b[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
		b[2] = (uint8_t)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		b[0] = (uint8_t)(0xF0 | (c >> 18));
		b[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
		b[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
		b[3] = (uint8_t)(0x80 | (c & 0x3F));
		n = 4;
	}
	if (*o + n < cap) {
		memcpy(out + *o, b, n);
		*o += n;
	}
}

/**
 * read_utf16z - convert the NUL-terminated UTF-16LE string at @p (@n bytes
 * available) to UTF-8 in @out, a control character as "?" and an unpaired
 * surrogate as U+FFFD, truncated to @cap (never inside a character).
 * Return: bytes consumed including the terminator, or 0 if none in @n.
 */
static size_t read_utf16z(const uint8_t *p, size_t n, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i + 2 <= n; i += 2) {
		uint32_t c = get_le16(p + i);

		if (c == 0) {
			out[o] = '\0';
			return i + 2;
		}
		if (c >= 0xD800 && c < 0xDC00 && i + 4 <= n && get_le16(p + i + 2) >= 0xDC00 &&
		    get_le16(p + i + 2) < 0xE000) {
			c = 0x10000 + ((c - 0xD800) << 10) + (get_le16(p + i + 2) - 0xDC00u);
			i += 2;
		} else if (c >= 0xD800 && c < 0xE000) {
			c = 0xFFFD;
		} else if (c < 0x20 || c == 0x7F) {
			c = '?';
		}
		put_utf8(out, &o, cap, c);
	}
	out[0] = '\0';
	return 0;
}

/**
 * parse_logfile - buffer 0, record 0: the SYSTEM hook 0x0000 record with the
 * TRACE_LOGFILE_HEADER (KERNEL_FACTS 8.2) and the two name strings.
 */
static int parse_logfile(struct etl_reader *d, const struct etl_buffer *b0, struct etl_error *err)
{
	struct etl_logfile *lf = &d->lf;
	struct etl_record rec;
	size_t pos = 0, lf_len, n, used;
	const uint8_t *p;
	uint64_t at;
	int rc;

	if (b0->data_end == 0) {
		set_err(err, d->name, ETL_BH_SAVED_OFFSET,
			"header buffer holds no data (SavedOffset and Offset are 0)");
		return -EINVAL;
	}
	rc = etl_buffer_next(d, b0, &pos, &rec, err);
	if (rc < 0) {
		return rc;
	}
	if (rc == 0) {
		set_err(err, d->name, ETL_BH_LEN, "header buffer holds no logfile header record");
		return -EINVAL;
	}
	if (rec.kind != ETL_KIND_SYSTEM || rec.hook_id != ETL_HOOK_LOGFILE_HEADER) {
		set_err(err, d->name, rec.file_offset,
			"first record is not the SYSTEM hook 0x0000 logfile header (Marker "
			"0x%08" PRIx32 ", HookId 0x%04x)",
			rec.marker, rec.kind == ETL_KIND_SYSTEM ? rec.hook_id : 0u);
		return -EINVAL;
	}
	lf_len = rec.is64 ? ETL_LF64_LEN : ETL_LF32_LEN;
	if (rec.payload_len < lf_len) {
		set_err(err, d->name, rec.file_offset,
			"logfile header record Size %u shorter than the SYSTEM header + %zu-byte "
			"TRACE_LOGFILE_HEADER",
			rec.size, lf_len);
		return -EINVAL;
	}
	p = rec.payload;
	at = rec.file_offset + ETL_SH_LEN;
	lf->is64 = rec.is64;
	lf->pointer_size = get_le32(p + ETL_LF_POINTER_SIZE);
	if (lf->pointer_size != (rec.is64 ? 8u : 4u)) {
		set_err(err, d->name, at + ETL_LF_POINTER_SIZE,
			"PointerSize %" PRIu32 " does not match the SYSTEM%s logfile record",
			lf->pointer_size, rec.is64 ? "64" : "32");
		return -EINVAL;
	}
	lf->buffer_size = get_le32(p + ETL_LF_BUFFER_SIZE);
	lf->version = get_le32(p + ETL_LF_VERSION);
	lf->provider_version = get_le32(p + ETL_LF_PROVIDER_VERSION);
	lf->number_of_processors = get_le32(p + ETL_LF_NUMBER_OF_PROCESSORS);
	lf->end_time = (int64_t)get_le64(p + ETL_LF_END_TIME);
	lf->timer_resolution = get_le32(p + ETL_LF_TIMER_RESOLUTION);
	lf->maximum_file_size = get_le32(p + ETL_LF_MAXIMUM_FILE_SIZE);
	lf->log_file_mode = get_le32(p + ETL_LF_LOG_FILE_MODE);
	lf->buffers_written = get_le32(p + ETL_LF_BUFFERS_WRITTEN);
	lf->start_buffers = get_le32(p + ETL_LF_START_BUFFERS);
	lf->events_lost = get_le32(p + ETL_LF_EVENTS_LOST);
	lf->cpu_speed_mhz = get_le32(p + ETL_LF_CPU_SPEED_MHZ);
	lf->timer_source_clock = get_ptr(p + ETL_LF_LOGGER_NAME, lf->pointer_size);
	if (rec.is64) {
		lf->timer_source_perf = get_le64(p + ETL_LF64_LOG_FILE_NAME);
		lf->boot_time = (int64_t)get_le64(p + ETL_LF64_BOOT_TIME);
		lf->perf_freq = (int64_t)get_le64(p + ETL_LF64_PERF_FREQ);
		lf->start_time = (int64_t)get_le64(p + ETL_LF64_START_TIME);
		lf->reserved_flags = get_le32(p + ETL_LF64_RESERVED_FLAGS);
		lf->buffers_lost = get_le32(p + ETL_LF64_BUFFERS_LOST);
	} else {
		lf->timer_source_perf = get_le32(p + ETL_LF32_LOG_FILE_NAME);
		lf->boot_time = (int64_t)get_le64(p + ETL_LF32_BOOT_TIME);
		lf->perf_freq = (int64_t)get_le64(p + ETL_LF32_PERF_FREQ);
		lf->start_time = (int64_t)get_le64(p + ETL_LF32_START_TIME);
		lf->reserved_flags = get_le32(p + ETL_LF32_RESERVED_FLAGS);
		lf->buffers_lost = get_le32(p + ETL_LF32_BUFFERS_LOST);
	}
	lf->header_system_time = rec.ts;

	if (lf->buffers_written == 0) {
		set_err(err, d->name, at + ETL_LF_BUFFERS_WRITTEN,
			"BuffersWritten 0, but the header buffer is there");
		return -EINVAL;
	}
	if (lf->number_of_processors == 0) {
		set_err(err, d->name, at + ETL_LF_NUMBER_OF_PROCESSORS, "NumberOfProcessors 0");
		return -EINVAL;
	}

	/* The strings: absent when Size ends at the struct, terminated when present. */
	p += lf_len;
	n = rec.payload_len - lf_len;
	at += lf_len;
	if (n == 0) {
		return 0;
	}
	used = read_utf16z(p, n, lf->logger_name, sizeof(lf->logger_name));
	if (used == 0) {
		set_err(err, d->name, at,
			"LoggerName: no UTF-16 NUL terminator in the %zu bytes the record Size "
			"leaves",
			n);
		return -EINVAL;
	}
	p += used;
	n -= used;
	at += used;
	if (n == 0) {
		return 0;
	}
	if (read_utf16z(p, n, lf->logfile_name, sizeof(lf->logfile_name)) == 0) {
		set_err(err, d->name, at,
			"LogFileName: no UTF-16 NUL terminator in the %zu bytes the record Size "
			"leaves",
			n);
		return -EINVAL;
	}
	return 0;
}

struct order_key {
	uint16_t cpu;
	int64_t seq;
	unsigned idx;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;

	if (x->cpu != y->cpu) {
		return x->cpu < y->cpu ? -1 : 1;
	}
	if (x->seq != y->seq) {
		return x->seq < y->seq ? -1 : 1;
	}
	return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

/** build_order - the (ProcessorIndex, SequenceNumber) order of the data buffers. */
static int build_order(struct etl_reader *d)
{
	struct order_key *keys;
	unsigned n = 0;

	keys = calloc(d->nbufs ? d->nbufs : 1, sizeof(*keys));
	d->order = calloc(d->nbufs ? d->nbufs : 1, sizeof(*d->order));
	if (!keys || !d->order) {
		free(keys);
		return -ENOMEM;
	}
	for (unsigned i = 1; i < d->nbufs; i++) {
		if (!d->bufs[i].compressed || d->bufs[i].decompressed) {
			keys[n++] = (struct order_key){d->bufs[i].processor_index,
						       d->bufs[i].sequence, i};
		}
	}
	qsort(keys, n, sizeof(*keys), cmp_order);
	for (unsigned i = 0; i < n; i++) {
		d->order[i] = keys[i].idx;
	}
	d->norder = n;
	free(keys);
	return 0;
}

/* Record one damage (salvage). Return: 0 or -ENOMEM. */
static int add_damage(struct etl_reader *d, unsigned buffer, const struct etl_error *err)
{
	struct etl_damage *n = realloc(d->damage, (d->ndamage + 1) * sizeof(*n));

	if (!n) {
		return -ENOMEM;
	}
	d->damage = n;
	n[d->ndamage].buffer = buffer;
	n[d->ndamage].err = *err;
	d->ndamage++;
	return 0;
}

/*
 * The header buffer could not be read: what is there is not an ETL file.
 * Turn "NAME: offset 0x..: why" into "NAME: offset 0x..: not an ETL file: why".
 */
static void not_etl(struct etl_error *err, const char *name)
{
	struct etl_error e = *err;
	const char *why = e.msg;
	char off[32];
	int n = snprintf(off, sizeof(off), ": offset 0x%" PRIx64 ": ", e.offset);

	if (n > 0 && strlen(e.msg) > strlen(name) + (size_t)n &&
	    !strncmp(e.msg + strlen(name), off, (size_t)n)) {
		why = e.msg + strlen(name) + (size_t)n;
	}
	set_err(err, name, e.offset, "not an ETL file: %s", why);
}

/*
 * cut_buffer - salvage: buffer @i at @pos has a readable header but the file
 * ends inside it (a cut trace). Take it with its data end moved back to the
 * end of the file, when the header is otherwise sound.
 * Return: true when @b is such a buffer.
 */
static bool cut_buffer(struct etl_reader *d, unsigned i, size_t pos, struct etl_buffer *b)
{
	size_t left = d->len - pos, real_len = d->len;
	struct etl_error ignored;
	bool ok;

	if (left < ETL_BH_LEN) {
		return false;
	}
	/* check the header as if the buffer were whole; only its header is read */
	d->len = pos + get_le32(d->data + pos + ETL_BH_BUFFER_SIZE);
	ok = d->len > real_len && parse_buffer(d, i, pos, i + 1, b, &ignored) == 0 &&
	     check_cpu(d, b, &ignored) == 0 && !b->compressed;
	d->len = real_len;
	if (!ok) {
		return false;
	}
	if (b->data_end > left) {
		b->data_end = (uint32_t)left;
	}
	b->damaged = true;
	return true;
}

/*
 * stream_in - read the first @len bytes at @p in address order, one byte of
 * each 64-byte line. A walk of the records hops from header to header by
 * each record's Size, so every hop waits for the line it lands on: one
 * cache miss per record, about 100 ns on a file not read lately (a third of
 * `dump --stats` on a file of 1 MB buffers holding 1 KB batches). These
 * loads do not depend on each other: many misses are in flight at once and
 * the prefetchers stream, so the walk that follows finds its lines cached.
 * Return: the bytes xor-ed, for the caller to keep (so the loads stay).
 */
static uint8_t stream_in(const uint8_t *p, size_t len)
{
	uint8_t x = 0;

	for (size_t i = 0; i < len; i += 64) {
		x ^= p[i];
	}
	return x;
}

/*
 * salvage_records - walk every record of every buffer; at the first one that
 * breaks the framing, cut the buffer there and record the damage (and,
 * without KEEP_GOING, drop every later buffer).
 */
static int salvage_records(struct etl_reader *d)
{
	for (unsigned k = 0; k < d->nbufs; k++) {
		struct etl_buffer *b = &d->bufs[k];
		struct etl_record rec;
		struct etl_error err;
		size_t pos = 0;
		int rc;

		if (!b->compressed) { /* decompressed ones were just written: cached */
			d->streamed ^= stream_in(d->data + b->file_offset, b->data_end);
		}
		while ((rc = etl_buffer_next(d, b, &pos, &rec, &err)) > 0) {
		}
		if (rc == 0) {
			continue;
		}
		if (add_damage(d, b->index, &err) < 0) {
			return -ENOMEM;
		}
		b->damaged = true;
		b->data_end = (uint32_t)(err.offset - b->file_offset);
		if (!(d->flags & ETL_OPEN_KEEP_GOING)) {
			d->nbufs = k + 1;
			break;
		}
	}
	return 0;
}

#define PLAIN_TOTAL_MAX (1ull << 30) /* decompressed bytes a file may claim */

/*
 * decompress - XPRESS (plain LZ77, MS-XCA 2.4) buffers of a compressed
 * file: the 0x48-byte header is stored plain, the rest is one stream that
 * decompresses to Offset - 0x48 bytes. Each buffer image goes to d->plain.
 * Other compression formats are left compressed (counted, not decoded).
 * Return: 0, -EINVAL (malformed, @err filled) or -ENOMEM.
 */
static int decompress(struct etl_reader *d, struct etl_error *err)
{
	uint64_t total = 0;
	size_t at = 0;

	if (!(d->lf.log_file_mode & ETL_MODE_COMPRESSED) ||
	    (d->bufs[0].state & 0xFFFFu) != ETL_XPRESS_FORMAT_LZ77) {
		return 0;
	}
	for (unsigned i = 1; i < d->nbufs; i++) {
		if (d->bufs[i].compressed && d->bufs[i].data_end >= ETL_BH_LEN) {
			total += d->bufs[i].data_end;
		}
	}
	if (total == 0) {
		return 0;
	}
	if (total > PLAIN_TOTAL_MAX) {
		set_err(err, d->name, 0,
			"compressed buffers claim %" PRIu64 " bytes uncompressed, more than %llu",
			total, PLAIN_TOTAL_MAX);
		return -EINVAL;
	}
	d->plain = malloc((size_t)total);
	d->plain_off = malloc(d->nbufs * sizeof(*d->plain_off));
	if (!d->plain || !d->plain_off) {
		return -ENOMEM;
	}
	for (unsigned i = 0; i < d->nbufs; i++) {
		struct etl_buffer *b = &d->bufs[i];
		const uint8_t *src = d->data + b->file_offset;
		size_t want;
		long got;

		d->plain_off[i] = SIZE_MAX;
		if (!b->compressed || b->data_end < ETL_BH_LEN) {
			continue;
		}
		want = b->data_end - ETL_BH_LEN;
		memcpy(d->plain + at, src, ETL_BH_LEN);
		got = etl_xpress_decompress(src + ETL_BH_LEN, b->buffer_size - ETL_BH_LEN,
					    d->plain + at + ETL_BH_LEN, want);
		if (got < 0 || (size_t)got != want) {
			set_err(err, d->name, b->file_offset + ETL_BH_LEN,
				"buffer %u: XPRESS data %s (%ld of the %zu bytes its Offset says)",
				b->index, got < 0 ? "is malformed" : "ends early",
				got < 0 ? 0L : got, want);
			if (!(d->flags & ETL_OPEN_SALVAGE)) {
				return -EINVAL;
			}
			/* salvage: the buffer stays, without records */
			if (add_damage(d, b->index, err) < 0) {
				return -ENOMEM;
			}
			b->damaged = true;
			b->data_end = ETL_BH_LEN;
			if (!(d->flags & ETL_OPEN_KEEP_GOING)) {
				d->nbufs = i + 1;
				return 0;
			}
			continue;
		}
		d->plain_off[i] = at;
		b->decompressed = true;
		at += b->data_end;
	}
	return 0;
}

static void enomem(struct etl_error *err, const char *name)
{
	set_err(err, name ? name : "<memory>", 0, "out of memory");
	errno = ENOMEM;
}

struct etl_reader *etl_reader_open_mem(const uint8_t *data, size_t len, const char *name,
				       struct etl_error *err)
{
	return etl_reader_open_mem_flags(data, len, name, 0, err);
}

struct etl_reader *etl_reader_open_mem_flags(const uint8_t *data, size_t len, const char *name,
					     unsigned flags, struct etl_error *err)
{
	struct etl_reader *d;
	struct etl_buffer b0;
	size_t pos, cap;
	int rc;

	if (!name) {
		name = "<memory>";
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(name))) {
		free(d);
		enomem(err, name);
		return NULL;
	}
	d->data = data;
	d->len = len;
	d->flags = flags & ETL_OPEN_KEEP_GOING ? flags | ETL_OPEN_SALVAGE : flags;
	if (len == 0) {
		set_err(err, d->name, 0, "not an ETL file: the file is empty");
		goto fail;
	}
	rc = parse_buffer(d, 0, 0, 1, &b0, err);
	if (rc == 0) {
		rc = parse_logfile(d, &b0, err);
	}
	/* Buffer 0's checks that need the logfile header. */
	if (rc == 0 && b0.buffer_size > d->lf.buffer_size) {
		set_err(err, d->name, ETL_BH_BUFFER_SIZE,
			"buffer 0 BufferSize %" PRIu32
			" larger than the logfile BufferSize %" PRIu32,
			b0.buffer_size, d->lf.buffer_size);
		rc = -EINVAL;
	}
	if (rc == 0) {
		rc = check_cpu(d, &b0, err);
	}
	if (rc < 0) {
		not_etl(err, d->name);
		goto fail;
	}
	/* Every buffer takes >= 0x48 bytes: allocate no more than the file can hold. */
	cap = len / ETL_BH_LEN;
	if (cap > d->lf.buffers_written) {
		cap = d->lf.buffers_written;
	}
	d->bufs = calloc(cap, sizeof(*d->bufs));
	if (!d->bufs) {
		enomem(err, d->name);
		goto fail_errno;
	}
	d->bufs[0] = b0;
	d->nbufs = 1;
	pos = b0.buffer_size;
	for (unsigned i = 1; i < d->lf.buffers_written; i++) {
		struct etl_buffer b;

		if (parse_buffer(d, i, pos, d->lf.buffers_written, &b, err) < 0 ||
		    check_cpu(d, &b, err) < 0) {
			if (!(d->flags & ETL_OPEN_SALVAGE)) {
				goto fail;
			}
			if (add_damage(d, i, err) < 0) {
				enomem(err, d->name);
				goto fail_errno;
			}
			if (d->nbufs < cap && cut_buffer(d, i, pos, &b)) {
				d->bufs[d->nbufs++] = b; /* the records before the cut */
				break;
			}
			/* keep going: the next buffer is one logfile BufferSize further */
			if (!(d->flags & ETL_OPEN_KEEP_GOING) || pos >= len ||
			    len - pos <= d->lf.buffer_size) {
				break;
			}
			pos += d->lf.buffer_size;
			continue;
		}
		if (d->nbufs >= cap) { /* unreachable: each buffer consumed >= 0x48 bytes */
			set_err(err, d->name, pos, "buffer %u missing", i);
			goto fail;
		}
		d->bufs[d->nbufs++] = b;
		release_range(d, pos, b.buffer_size);
		pos += b.buffer_size;
	}
	d->trailing = pos < len ? len - pos : 0;
	rc = decompress(d, err);
	if (rc == -ENOMEM) {
		enomem(err, d->name);
		goto fail_errno;
	}
	if (rc < 0) {
		goto fail;
	}
	if ((d->flags & ETL_OPEN_SALVAGE) && salvage_records(d) < 0) {
		enomem(err, d->name);
		goto fail_errno;
	}
	if (build_order(d) < 0) {
		enomem(err, d->name);
		goto fail_errno;
	}
	return d;

fail:
	errno = EINVAL;
fail_errno:
	rc = errno;
	etl_reader_close(d);
	errno = rc;
	return NULL;
}

struct etl_reader *etl_reader_open_file(const char *path, struct etl_error *err)
{
	return etl_reader_open_file_flags(path, 0, err);
}

#define STDIN_MAX ((size_t)1 << 34) /* 16 GiB: more is not read into memory */

/* Standard input, read whole into memory (a pipe cannot be mapped). */
static struct etl_reader *open_stdin(unsigned flags, struct etl_error *err)
{
	const char *name = "<stdin>";
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	struct etl_reader *d;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			uint8_t *nb;

			if (cap >= STDIN_MAX) {
				free(buf);
				set_err(err, name, 0, "more than 16 GiB on standard input");
				errno = EFBIG;
				return NULL;
			}
			cap = cap ? 2 * cap : 1u << 20;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				enomem(err, name);
				return NULL;
			}
			buf = nb;
		}
		n = read(STDIN_FILENO, buf + len, cap - len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			int e = errno;

			free(buf);
			set_err(err, name, len, "cannot read: %s", strerror(e));
			errno = e;
			return NULL;
		}
		if (n == 0) {
			break;
		}
		len += (size_t)n;
	}
	d = etl_reader_open_mem_flags(buf, len, name, flags, err);
	if (!d) {
		int e = errno;

		free(buf);
		errno = e;
		return NULL;
	}
	d->owned = buf;
	return d;
}

struct etl_reader *etl_reader_open_file_flags(const char *path, unsigned flags,
					      struct etl_error *err)
{
	struct etl_reader *d;
	/* = {0}: MemorySanitizer of clang < 15 does not see fstat() fill it */
	struct stat st = {0};
	void *map;
	int fd, e;

	if (!strcmp(path, "-")) {
		return open_stdin(flags, err);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		set_unopened(err, path, e);
		errno = e;
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		e = errno;
		set_err(err, path, 0, "cannot stat: %s", strerror(e));
		close(fd);
		errno = e;
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		set_unopened(err, path, EISDIR);
		close(fd);
		errno = EISDIR;
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(err, path, 0, "not a regular file (give '-' to read standard input)");
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if (st.st_size == 0) {
		set_err(err, path, 0, "not an ETL file: the file is empty");
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	e = errno;
	close(fd);
	if (map == MAP_FAILED) {
		set_err(err, path, 0, "cannot map: %s", strerror(e));
		errno = e;
		return NULL;
	}
	d = etl_reader_open_mem_flags(
		map, (size_t)st.st_size, path,
		(flags & ~OPEN_RELEASE) | ((size_t)st.st_size >= RELEASE_MIN ? OPEN_RELEASE : 0u),
		err);
	if (!d) {
		e = errno;
		munmap(map, (size_t)st.st_size);
		errno = e;
		return NULL;
	}
	d->map = map;
	d->map_len = (size_t)st.st_size;
	return d;
}

void etl_reader_close(struct etl_reader *d)
{
	if (!d) {
		return;
	}
	if (d->map) {
		munmap(d->map, d->map_len);
	}
	free(d->order);
	free(d->bufs);
	free(d->plain);
	free(d->plain_off);
	free(d->owned);
	free(d->damage);
	free(d->name);
	free(d);
}

const struct etl_damage *etl_reader_damage(const struct etl_reader *d, unsigned *n)
{
	*n = d->ndamage;
	return d->damage;
}

const struct etl_logfile *etl_reader_logfile(const struct etl_reader *d)
{
	return &d->lf;
}

unsigned etl_reader_buffer_count(const struct etl_reader *d)
{
	return d->nbufs;
}

const struct etl_buffer *etl_reader_buffer(const struct etl_reader *d, unsigned i)
{
	return i < d->nbufs ? &d->bufs[i] : NULL;
}

const unsigned *etl_reader_cpu_order(const struct etl_reader *d, unsigned *n)
{
	*n = d->norder;
	return d->order;
}

const unsigned *etl_reader_cpu_buffers(const struct etl_reader *d, unsigned cpu, unsigned *n)
{
	unsigned i = 0, end;

	while (i < d->norder && d->bufs[d->order[i]].processor_index != cpu) {
		i++;
	}
	end = i;
	while (end < d->norder && d->bufs[d->order[end]].processor_index == cpu) {
		end++;
	}
	*n = end - i;
	return d->order + i;
}

uint64_t etl_reader_trailing_bytes(const struct etl_reader *d)
{
	return d->trailing;
}

const char *etl_reader_name(const struct etl_reader *d)
{
	return d->name;
}
