/* SPDX-License-Identifier: MIT */
/*
 * tests/test_reader.c - the ETL reader (writer/etl_reader.c) and
 * `etwforge dump`: exact record counts on the seven real Windows files of
 * tests/data/samples (README.md there), clean one-line errors on
 * hand-built malformed files, no crash on any truncation or byte flip, and
 * the dump command's --stats / --jsonl output and exit codes.
 *
 * The small valid file below is typed by hand at absolute file offsets from
 * KERNEL_FACTS 3 and 8 (arithmetic in the comments), not built with the
 * writer or with the layout constants the reader uses.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/test_util.h"
#include "writer/etl_wire.h"
#include "writer/etl_reader.h"

/* ---- helpers ----------------------------------------------------------------- */

static const char *samples_dir(void)
{
	const char *d = getenv("ETWFORGE_SAMPLES");

	cr_assert_not_null(d, "ETWFORGE_SAMPLES is not set");
	return d;
}

/* The seven real Windows files of the samples folder (its README.md). */
static const char *const sample_names[] = {
	"airbus_AMSITrace.etl",	      "airbus_ShutdownPerfDiagLogger.etl",
	"airbus_lxcore_kernel.etl",   "perfview_SelfDescribingSingleEvent.etl",
	"perfview_net.4.5.2.x64.etl", "perfview_smallEtlFile.etl",
	"tx_HTTP_Server.etl",
};
#define SAMPLE_COUNT (sizeof(sample_names) / sizeof(sample_names[0]))

static char *sample_path(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", samples_dir(), name);
	return path;
}

#define HOOKS 65536u

/** struct counts - what a full pass over a file sees. */
struct counts {
	unsigned buffers, compressed;
	unsigned buf_cpu[64];
	unsigned records;
	unsigned kind[ETL_KIND_COUNT][2];
	unsigned sys[2][HOOKS];	 /* SYSTEM32/64 per hook */
	unsigned perf[2][HOOKS]; /* PERFINFO32/64 per hook */
	unsigned pebs, pmc;
	int rc; /* last etl_buffer_next result: 0, or the error */
	struct etl_error err;
};

static void count_all(const struct etl_reader *d, struct counts *c)
{
	struct etl_record r;

	memset(c, 0, sizeof(*c));
	c->buffers = etl_reader_buffer_count(d);
	for (unsigned i = 0; i < c->buffers; i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		size_t pos = 0;

		c->compressed += b->compressed;
		if (b->processor_index < 64) {
			c->buf_cpu[b->processor_index]++;
		}
		while ((c->rc = etl_buffer_next(d, b, &pos, &r, &c->err)) > 0) {
			c->records++;
			c->kind[r.kind][r.is64]++;
			if (r.kind == ETL_KIND_SYSTEM) {
				c->sys[r.is64][r.hook_id]++;
			} else if (r.kind == ETL_KIND_PERFINFO) {
				c->perf[r.is64][r.hook_id]++;
			}
			c->pebs += r.has_pebs;
			c->pmc += r.pmc_count != 0;
		}
		if (c->rc < 0) {
			return;
		}
	}
}

static struct counts *count_sample(const char *name, struct etl_reader **out)
{
	struct etl_error err = {0};
	struct etl_reader *d = etl_reader_open_file(sample_path(name), &err);
	struct counts *c = calloc(1, sizeof(*c));

	cr_assert_not_null(d, "%s: %s", name, err.msg);
	cr_assert_not_null(c);
	count_all(d, c);
	cr_assert_eq(c->rc, 0, "%s: %s", name, c->err.msg);
	if (out) {
		*out = d;
	} else {
		etl_reader_close(d);
	}
	return c;
}

struct hook_count {
	unsigned hook, n;
};

static void assert_hooks(const unsigned *per_hook, const struct hook_count *want, size_t n,
			 unsigned total, const char *what)
{
	unsigned sum = 0;

	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(per_hook[want[i].hook], want[i].n, "%s hook 0x%04x: %u, want %u", what,
			     want[i].hook, per_hook[want[i].hook], want[i].n);
		sum += want[i].n;
	}
	/* The listed hooks are all there is: their sum is the kind's total. */
	cr_assert_eq(sum, total, "%s: listed hooks sum to %u, total %u", what, sum, total);
}

/* ---- the real Windows files (etl-samples/README.md) -------------------------- */

Test(reader_samples, shutdown_perfdiag_counts)
{
	struct etl_reader *d;
	struct counts *c = count_sample("airbus_ShutdownPerfDiagLogger.etl", &d);
	const struct etl_logfile *lf = etl_reader_logfile(d);
	static const struct hook_count sys[] = {
		{0x0000, 1},	{0x0005, 1},   {0x0050, 1},    {0x0302, 60},   {0x030A, 72},
		{0x030B, 60},	{0x0501, 350}, {0x0502, 1032}, {0x0503, 1175}, {0x0504, 501},
		{0x1402, 4791}, {0x1403, 196}, {0x1404, 193},
	};
	static const struct hook_count perf[] = {
		{0x0005, 2}, {0x0008, 2},    {0x0020, 2},    {0x0303, 94}, {0x0304, 37},
		{0x0327, 5}, {0x1403, 6549}, {0x1404, 1952}, {0x1421, 1},  {0x1422, 1},
	};

	cr_assert_eq(c->buffers, 49);
	cr_assert_eq(c->buf_cpu[0], 28);
	cr_assert_eq(c->buf_cpu[1], 21);
	cr_assert_eq(c->compressed, 0);
	cr_assert_eq(c->kind[ETL_KIND_SYSTEM][1], 8433);
	cr_assert_eq(c->kind[ETL_KIND_PERFINFO][1], 8645);
	cr_assert_eq(c->records, 8433 + 8645, "no other kinds");
	assert_hooks(c->sys[1], sys, sizeof(sys) / sizeof(sys[0]), 8433, "SYSTEM64");
	assert_hooks(c->perf[1], perf, sizeof(perf) / sizeof(perf[0]), 8645, "PERFINFO64");
	cr_assert_eq(c->pebs + c->pmc, 0, "no extended items in any real file");
	cr_assert_eq(etl_reader_trailing_bytes(d), 0);

	cr_assert(lf->is64);
	cr_assert_eq(lf->buffer_size, 65536);
	cr_assert_eq(lf->version, 0x0501000A);
	cr_assert_eq(lf->provider_version, 18362);
	cr_assert_eq(lf->number_of_processors, 2);
	cr_assert_eq(lf->buffers_written, 49);
	cr_assert_eq(lf->pointer_size, 8);
	cr_assert_eq(lf->log_file_mode, 0x02000080);
	cr_assert_eq(lf->reserved_flags, 1);
	cr_assert_eq(lf->timer_resolution, 156250);
	cr_assert_eq(lf->perf_freq, 10000000);
	cr_assert_str_eq(lf->logger_name, "PerfDiag Logger");

	/* Header buffer as the README describes it. */
	const struct etl_buffer *b0 = etl_reader_buffer(d, 0);
	cr_assert_eq(b0->type, 4);
	cr_assert_eq(b0->flag, 0x21);
	cr_assert_eq(b0->saved_offset, 688);
	cr_assert_eq(b0->offset, 688);
	cr_assert_eq(b0->data_end, 688);
	cr_assert_eq(b0->logger_id, 28);
	cr_assert_eq(b0->state, 3);

	/* File order is seq 1,3,2,4,...; the CPU order sorts it per CPU. */
	cr_assert_eq(etl_reader_buffer(d, 1)->sequence, 1);
	cr_assert_eq(etl_reader_buffer(d, 2)->sequence, 3);
	cr_assert_eq(etl_reader_buffer(d, 3)->sequence, 2);
	unsigned n;
	const unsigned *order = etl_reader_cpu_order(d, &n);
	cr_assert_eq(n, 48);
	for (unsigned k = 1; k < n; k++) {
		const struct etl_buffer *a = etl_reader_buffer(d, order[k - 1]);
		const struct etl_buffer *b = etl_reader_buffer(d, order[k]);

		cr_assert(a->processor_index < b->processor_index ||
				  (a->processor_index == b->processor_index &&
				   a->sequence < b->sequence),
			  "order %u: cpu %u seq %ld before cpu %u seq %ld", k, a->processor_index,
			  (long)a->sequence, b->processor_index, (long)b->sequence);
	}
	cr_assert_eq(etl_reader_buffer(d, order[0])->processor_index, 0);
	/* 28 buffers on CPU 0 including the header buffer: 27 data buffers. */
	cr_assert_eq(etl_reader_buffer(d, order[26])->processor_index, 0);
	cr_assert_eq(etl_reader_buffer(d, order[27])->processor_index, 1);
	etl_reader_close(d);
	free(c);
}

Test(reader_samples, shutdown_perfdiag_record_details)
{
	struct etl_error err;
	struct etl_reader *d =
		etl_reader_open_file(sample_path("airbus_ShutdownPerfDiagLogger.etl"), &err);
	struct etl_record r;
	size_t pos = 0;
	unsigned n = 0, hdr_only = 0;

	cr_assert_not_null(d, "%s", err.msg);
	/* Header buffer: 0x0000 Size 464, 0x0005 Size 68, 0x0050 Size 80. */
	const struct etl_buffer *b0 = etl_reader_buffer(d, 0);
	static const unsigned hooks[] = {0x0000, 0x0005, 0x0050}, sizes[] = {464, 68, 80};
	while (etl_buffer_next(d, b0, &pos, &r, &err) > 0) {
		cr_assert_lt(n, 3);
		cr_assert_eq(r.hook_id, hooks[n]);
		cr_assert_eq(r.size, sizes[n]);
		cr_assert_eq(r.version, 2);
		cr_assert_eq(r.marker, 0xC0020002);
		n++;
	}
	cr_assert_eq(n, 3);
	cr_assert_eq(pos, 688, "72 + 464 + 72 + 80 = 688 = SavedOffset");
	/* PERFINFO64 0x0008 records are header-only (Size 16). */
	for (unsigned i = 1; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);

		pos = 0;
		while (etl_buffer_next(d, b, &pos, &r, &err) > 0) {
			if (r.kind == ETL_KIND_PERFINFO && r.hook_id == 0x0008) {
				cr_assert_eq(r.size, 16);
				cr_assert_eq(r.payload_len, 0);
				cr_assert_eq(r.payload, r.data + 16);
				hdr_only++;
			}
			if (r.kind == ETL_KIND_PERFINFO && r.hook_id == 0x0303) {
				cr_assert_eq(r.version, 4);
				cr_assert_eq(r.payload_len, r.size - 16u);
			}
			cr_assert_eq(r.cpu, b->processor_index);
			cr_assert_eq(r.file_offset % 8, 0);
		}
	}
	cr_assert_eq(hdr_only, 2);
	etl_reader_close(d);
}

Test(reader_samples, lxcore_amsi)
{
	struct etl_reader *d;
	struct counts *c = count_sample("airbus_lxcore_kernel.etl", &d);

	cr_assert_eq(c->buffers, 3);
	cr_assert_eq(c->kind[ETL_KIND_SYSTEM][1], 2);
	cr_assert_eq(c->sys[1][0x0000], 1);
	cr_assert_eq(c->sys[1][0x0050], 1);
	cr_assert_eq(c->kind[ETL_KIND_EVENT_HEADER][1], 2);
	cr_assert_eq(c->records, 4);
	cr_assert_eq(etl_reader_logfile(d)->number_of_processors, 6);
	cr_assert_eq(etl_reader_logfile(d)->provider_version, 19041);
	cr_assert_eq(etl_reader_buffer(d, 0)->logger_id, 20);
	cr_assert_eq(etl_reader_buffer(d, 0)->data_end, 544);
	etl_reader_close(d);
	free(c);

	c = count_sample("airbus_AMSITrace.etl", &d);
	cr_assert_eq(c->buffers, 6);
	cr_assert_eq(c->kind[ETL_KIND_SYSTEM][1], 2);
	cr_assert_eq(c->sys[1][0x0000], 1);
	cr_assert_eq(c->sys[1][0x0050], 1);
	cr_assert_eq(c->kind[ETL_KIND_EVENT_HEADER][1], 19);
	cr_assert_eq(c->records, 21);
	cr_assert_eq(etl_reader_logfile(d)->number_of_processors, 8);
	cr_assert_eq(etl_reader_logfile(d)->log_file_mode, 0x08000001);
	cr_assert_eq(etl_reader_buffer(d, 0)->logger_id, 40);
	etl_reader_close(d);
	free(c);
}

Test(reader_samples, tx_http_server_windows7)
{
	struct etl_reader *d;
	struct counts *c = count_sample("tx_HTTP_Server.etl", &d);
	const struct etl_buffer *b0 = etl_reader_buffer(d, 0);

	cr_assert_eq(c->buffers, 36);
	cr_assert_eq(c->kind[ETL_KIND_SYSTEM][1], 1);
	cr_assert_eq(c->sys[1][0x0000], 1);
	cr_assert_eq(c->kind[ETL_KIND_EVENT_HEADER][1], 2041);
	cr_assert_eq(c->records, 2042);
	/* SavedOffset 0 in the header buffer: records end at Offset 552. */
	cr_assert_eq(b0->saved_offset, 0);
	cr_assert_eq(b0->offset, 552);
	cr_assert_eq(b0->data_end, 552);
	/* Windows 7 ETW_BUFFER_CONTEXT: 0x0800 | cpu, no PROC_INDEX flag. */
	for (unsigned i = 0; i < c->buffers; i++) {
		cr_assert_eq(etl_reader_buffer(d, i)->flag & 0x20, 0);
		cr_assert_lt(etl_reader_buffer(d, i)->processor_index, 4);
	}
	cr_assert_eq(etl_reader_buffer(d, 4)->processor_index, 2, "u16 0x0802 at 0x8028");
	cr_assert_eq(etl_reader_logfile(d)->provider_version, 7601);
	cr_assert_eq(etl_reader_logfile(d)->perf_freq, 1818300);
	etl_reader_close(d);
	free(c);
}

/* Per-hook counts of perfview_net.4.5.2.x64.etl, typed from etl-samples/README.md. */
static const struct hook_count net_sys64[] = {
	{0x0000, 1},  {0x0005, 1},   {0x010C, 1208}, {0x010D, 21}, {0x010F, 2},	  {0x0301, 1},
	{0x0302, 1},  {0x030A, 35},  {0x0501, 9},    {0x0502, 15}, {0x0503, 670}, {0x0504, 664},
	{0x0B0A, 1},  {0x0B0B, 1},   {0x0B0C, 1},    {0x0B0D, 3},  {0x0B0F, 157}, {0x0B10, 1},
	{0x0B12, 1},  {0x0B16, 78},  {0x0B19, 1},    {0x0B1C, 1},  {0x0F49, 1},	  {0x0F4A, 1},
	{0x1402, 32}, {0x1403, 141}, {0x1404, 141},
};
static const struct hook_count net_perf64[] = {
	{0x0005, 2},	{0x0008, 2},	{0x0020, 2},	 {0x010A, 1208}, {0x010B, 21},
	{0x010E, 2},	{0x0220, 153},	{0x0303, 32},	 {0x0304, 32},	 {0x0320, 1},
	{0x0321, 32},	{0x0327, 2},	{0x0420, 16},	 {0x0423, 14},	 {0x0424, 3054},
	{0x061A, 240},	{0x061B, 250},	{0x080A, 1},	 {0x080B, 19},	 {0x081A, 6},
	{0x081B, 10},	{0x0B11, 1},	{0x0F2E, 79528}, {0x1403, 1622}, {0x1404, 1625},
	{0x1421, 1},	{0x1422, 1},	{0x1820, 252},	 {0x1823, 1909}, {0x1824, 1012},
	{0x1825, 2061}, {0x1826, 7046},
};

/*
 * The three relogged files hold XPRESS (plain LZ77) buffers: decompressed,
 * they must give the README's full counts, not just the uncompressed ones.
 */
Test(reader_samples, compressed_files_decompress_to_their_full_counts)
{
	struct etl_reader *d;
	struct counts *c = count_sample("perfview_net.4.5.2.x64.etl", &d);
	unsigned sum = 0;

	cr_assert_eq(c->buffers, 360);
	cr_assert_eq(c->compressed, 359);
	cr_assert_eq(etl_reader_buffer(d, 0)->state & 0xFFFF, 3, "COMPRESSION_FORMAT_XPRESS");
	cr_assert_eq(etl_reader_buffer(d, 0)->buffer_size, 512);
	cr_assert_eq(etl_reader_buffer(d, 1)->buffer_size, 15016,
		     "compressed length, not 8-aligned");
	cr_assert(etl_reader_buffer(d, 1)->decompressed);
	cr_assert_eq(etl_reader_trailing_bytes(d), 0);
	cr_assert_eq(c->kind[ETL_KIND_PERFINFO][1], 100157);
	cr_assert_eq(c->kind[ETL_KIND_SYSTEM][1], 3189);
	cr_assert_eq(c->kind[ETL_KIND_SYSTEM][0], 2);
	cr_assert_eq(c->sys[0][0x0B17], 2, "the two SYSTEM32 records are hook 0x0B17");
	cr_assert_eq(c->kind[ETL_KIND_FULL][1], 7956);
	cr_assert_eq(c->kind[ETL_KIND_FULL][0], 27);
	cr_assert_eq(c->kind[ETL_KIND_EVENT_HEADER][1], 34765);
	cr_assert_eq(c->kind[ETL_KIND_EVENT_HEADER][0], 33378);
	cr_assert_eq(c->records, 100157 + 3191 + 7983 + 68143);
	for (size_t i = 0; i < sizeof(net_sys64) / sizeof(net_sys64[0]); i++) {
		cr_assert_eq(c->sys[1][net_sys64[i].hook], net_sys64[i].n, "SYSTEM64 0x%04X",
			     net_sys64[i].hook);
		sum += net_sys64[i].n;
	}
	cr_assert_eq(sum, 3189, "the table covers every SYSTEM64 record");
	sum = 0;
	for (size_t i = 0; i < sizeof(net_perf64) / sizeof(net_perf64[0]); i++) {
		cr_assert_eq(c->perf[1][net_perf64[i].hook], net_perf64[i].n, "PERFINFO64 0x%04X",
			     net_perf64[i].hook);
		sum += net_perf64[i].n;
	}
	cr_assert_eq(sum, 100157, "the table covers every PERFINFO64 record");
	unsigned n;
	etl_reader_cpu_order(d, &n);
	cr_assert_eq(n, 359, "every decompressed data buffer is in the per-CPU order");
	etl_reader_close(d);
	free(c);

	c = count_sample("perfview_smallEtlFile.etl", &d);
	cr_assert_eq(c->buffers, 2);
	cr_assert_eq(c->compressed, 1);
	cr_assert_eq(c->records, 2);
	cr_assert_eq(c->kind[ETL_KIND_SYSTEM][0], 1, "SYSTEM32");
	cr_assert_eq(c->sys[0][0x0000], 1);
	cr_assert_eq(c->kind[ETL_KIND_EVENT_HEADER][0], 1, "EVENT_HEADER32 in the compressed one");
	cr_assert_not(etl_reader_logfile(d)->is64);
	cr_assert_eq(etl_reader_logfile(d)->pointer_size, 4);
	cr_assert_eq(etl_reader_logfile(d)->perf_freq, 3117777, "x86 PerfFreq at 0xF8");
	cr_assert_eq(etl_reader_logfile(d)->reserved_flags, 1, "x86 ReservedFlags at 0x108");
	cr_assert_eq(etl_reader_logfile(d)->provider_version, 10586);
	etl_reader_close(d);
	free(c);

	/*
	 * Header buffer: SavedOffset 440 = 72 + align8(364), Offset 520 = 440 + 80:
	 * up to Offset, 0x0000 and one 0x0050. (The README's skip table says 2/3
	 * for SavedOffset/Offset; the bytes say 1/2.) The other two 0x0050, the 18
	 * FULL_HEADER64 and the EVENT_HEADER64 are in the compressed buffers.
	 */
	c = count_sample("perfview_SelfDescribingSingleEvent.etl", &d);
	cr_assert_eq(c->buffers, 3);
	cr_assert_eq(c->compressed, 2);
	cr_assert_eq(etl_reader_buffer(d, 0)->saved_offset, 440);
	cr_assert_eq(etl_reader_buffer(d, 0)->offset, 520);
	cr_assert_eq(etl_reader_buffer(d, 0)->data_end, 520);
	cr_assert_eq(c->kind[ETL_KIND_SYSTEM][1], 4);
	cr_assert_eq(c->sys[1][0x0000], 1);
	cr_assert_eq(c->sys[1][0x0050], 3);
	cr_assert_eq(c->kind[ETL_KIND_FULL][1], 18);
	cr_assert_eq(c->kind[ETL_KIND_EVENT_HEADER][1], 1);
	cr_assert_eq(c->records, 23);
	cr_assert_eq(etl_reader_logfile(d)->number_of_processors, 12);
	cr_assert_eq(etl_reader_logfile(d)->provider_version, 22000);
	etl_reader_close(d);
	free(c);
}

/* ---- the small valid file, typed by hand -------------------------------------- */

#define SMALL_LEN 8192u

static void put_utf16z(uint8_t *p, const char *s)
{
	size_t i = 0;

	for (; s[i]; i++) {
		put_le16(p + 2 * i, (uint16_t)s[i]);
	}
	put_le16(p + 2 * i, 0);
}

/**
 * make_small - buffer 0 (header, 4096 B) + buffer 1 (CPU 1, 4096 B).
 *
 * Buffer 0 @0x0000: WMI_BUFFER_HEADER 0x48, then SYSTEM64 hook 0x0000 @0x48:
 *   0x20 header + 0x118 TRACE_LOGFILE_HEADER @0x68 + "NT Kernel Logger"
 *   (17 * 2 = 34 B) @0x180 + "C:\x\emu.etl" (13 * 2 = 26 B) @0x1A2
 *   -> Size 0x20 + 0x118 + 34 + 26 = 372 = 0x174, end 0x48 + align8(0x174)
 *   = 0x48 + 0x178 = 0x1C0 = SavedOffset = Offset.
 * Buffer 1 @0x1000, records at buffer offsets (file offset - 0x1000):
 *   0x048 CSwitch v2        Size 0x28 (0x10 + 0x18)            -> 0x070
 *   0x070 CSwitch v4 + PEBS Size 0x30 (0x10 + 8 + 0x18)        -> 0x0A0
 *   0x0A0 CSwitch v2 + 2PMC Size 0x38 (0x10 + 16 + 0x18)       -> 0x0D8
 *   0x0D8 SYSTEM64 0x0501   Size 0x2D (0x20 + 13), align8 0x30 -> 0x108
 *   0x108 SpinLock          Size 0x48 (0x10 + 0x38)            -> 0x150
 *   0x150 CSwitch batch     Size 0x76 (0x10 + 0x58 + 8+4+2)    -> 0x1C6, align8 0x1C8
 *   SavedOffset = Offset = 0x1C8.
 */
static void make_small(uint8_t *f)
{
	memset(f, 0, SMALL_LEN);

	/* Buffer 0 header. */
	put_le32(f + 0x00, 0x1000); /* BufferSize */
	put_le32(f + 0x04, 0x1C0);  /* SavedOffset */
	put_le32(f + 0x08, 0x1C0);  /* CurrentOffset */
	put_le16(f + 0x28, 0);	    /* ProcessorIndex */
	put_le16(f + 0x2A, 1);	    /* LoggerId */
	put_le32(f + 0x2C, 3);	    /* State: Flush */
	put_le32(f + 0x30, 0x1C0);  /* Offset */
	put_le16(f + 0x34, 0x21);   /* BufferFlag: FLUSH_MARKER | PROC_INDEX */
	put_le16(f + 0x36, 4);	    /* BufferType: HEADER */
	/* SYSTEM64 header of the logfile record. */
	put_le32(f + 0x48, 0xC0020002);
	put_le16(f + 0x4C, 0x174);   /* Size */
	put_le16(f + 0x4E, 0x0000);  /* HookId */
	put_le32(f + 0x50, 100);     /* ThreadId */
	put_le32(f + 0x54, 4);	     /* ProcessId */
	put_le64(f + 0x58, 1000000); /* SystemTime = session start */
	/* TRACE_LOGFILE_HEADER x64 @0x68. */
	put_le32(f + 0x68, 4096);	/* +0x00 BufferSize */
	put_le32(f + 0x6C, 0x0501000A); /* +0x04 Version */
	put_le32(f + 0x70, 19041);	/* +0x08 ProviderVersion */
	put_le32(f + 0x74, 2);		/* +0x0C NumberOfProcessors */
	put_le32(f + 0x80, 156250);	/* +0x18 TimerResolution */
	put_le32(f + 0x88, 0x02000001); /* +0x20 LogFileMode */
	put_le32(f + 0x8C, 2);		/* +0x24 BuffersWritten */
	put_le32(f + 0x90, 1);		/* +0x28 StartBuffers */
	put_le32(f + 0x94, 8);		/* +0x2C PointerSize */
	put_le32(f + 0x9C, 3000);	/* +0x34 CpuSpeedInMHz */
	put_le64(f + 0xA0, 9);		/* +0x38 LoggerName slot: Apic */
	put_le64(f + 0xA8, 6);		/* +0x40 LogFileName slot: ProcessorCounter */
	/* +0x48 TimeZone 0xAC bytes + 4 pad -> BootTime at +0xF8 = 0x160. */
	put_le64(f + 0x160, 132000000000000000ull); /* BootTime */
	put_le64(f + 0x168, 10000000);		    /* +0x100 PerfFreq */
	put_le64(f + 0x170, 133000000000000000ull); /* +0x108 StartTime */
	put_le32(f + 0x178, 1);			    /* +0x110 ReservedFlags: QPC */
	put_le32(f + 0x17C, 0);			    /* +0x114 BuffersLost; ends at 0x180 */
	put_utf16z(f + 0x180, "NT Kernel Logger");  /* 0x180..0x1A2 */
	put_utf16z(f + 0x1A2, "C:\\x\\emu.etl");    /* 0x1A2..0x1BC = 0x48 + 0x174 */

	/* Buffer 1 header @0x1000. */
	put_le32(f + 0x1000, 0x1000);  /* BufferSize */
	put_le32(f + 0x1004, 0x1C8);   /* SavedOffset */
	put_le32(f + 0x1008, 0x1C8);   /* CurrentOffset */
	put_le64(f + 0x1010, 2000000); /* TimeStamp */
	put_le64(f + 0x1018, 1);       /* SequenceNumber */
	put_le16(f + 0x1028, 1);       /* ProcessorIndex: CPU 1 */
	put_le16(f + 0x102A, 1);       /* LoggerId */
	put_le32(f + 0x102C, 3);       /* State */
	put_le32(f + 0x1030, 0x1C8);   /* Offset */
	put_le16(f + 0x1034, 0x20);    /* BufferFlag: PROC_INDEX */
	put_le16(f + 0x1036, 0);       /* BufferType: GENERIC */

	/* R1 @0x1048: CSwitch v2, Marker 0xC0110002. */
	put_le32(f + 0x1048, 0xC0110002);
	put_le16(f + 0x104C, 0x28);
	put_le16(f + 0x104E, 0x0524);
	put_le64(f + 0x1050, 1100000);
	put_le32(f + 0x1058, 0x1111);	    /* NewThreadId */
	put_le32(f + 0x105C, 0x2222);	    /* OldThreadId */
	f[0x1060] = 10;			    /* NewThreadPriority */
	f[0x1061] = 9;			    /* OldThreadPriority */
	f[0x1064] = 6;			    /* OldThreadWaitReason: UserRequest */
	f[0x1065] = 1;			    /* OldThreadWaitMode: UserMode */
	f[0x1066] = 5;			    /* OldThreadState: Waiting */
	f[0x1067] = 1;			    /* OldThreadIdealProcessor */
	put_le32(f + 0x1068, 3);	    /* NewThreadWaitTime */
	put_le32(f + 0x106C, (uint32_t)-3); /* OldThreadRemainingQuantum */

	/* R2 @0x1070: CSwitch v4 + PEBS, Marker 0xC0118004. */
	put_le32(f + 0x1070, 0xC0118004);
	put_le16(f + 0x1074, 0x30);
	put_le16(f + 0x1076, 0x0524);
	put_le64(f + 0x1078, 1200000);
	put_le64(f + 0x1080, 0x1234); /* PebsIndex */
	put_le32(f + 0x1088, 0x3333); /* NewThreadId */
	put_le32(f + 0x108C, 0x1111); /* OldThreadId */

	/* R3 @0x10A0: CSwitch v2 + 2 PMC, Marker 0xC0110202. */
	put_le32(f + 0x10A0, 0xC0110202);
	put_le16(f + 0x10A4, 0x38);
	put_le16(f + 0x10A6, 0x0524);
	put_le64(f + 0x10A8, 1300000);
	put_le64(f + 0x10B0, 11);     /* PMC 0 */
	put_le64(f + 0x10B8, 22);     /* PMC 1 */
	put_le32(f + 0x10C0, 0x4444); /* NewThreadId */
	put_le32(f + 0x10C4, 0x3333); /* OldThreadId */

	/* R4 @0x10D8: SYSTEM64 hook 0x0501 v3, Size 45 (unaligned). */
	put_le32(f + 0x10D8, 0xC0020003);
	put_le16(f + 0x10DC, 0x2D);
	put_le16(f + 0x10DE, 0x0501);
	put_le32(f + 0x10E0, 0x4444);  /* ThreadId */
	put_le32(f + 0x10E4, 4);       /* ProcessId */
	put_le64(f + 0x10E8, 1400000); /* SystemTime */
	memset(f + 0x10F8, 0xAB, 13);  /* payload 0x10F8..0x1105, pad to 0x1108 */

	/* R5 @0x1108: SpinLock, Marker 0xC0110002, WMI_SPINLOCK x64 @0x1118. */
	put_le32(f + 0x1108, 0xC0110002);
	put_le16(f + 0x110C, 0x48);
	put_le16(f + 0x110E, 0x0529);
	put_le64(f + 0x1110, 1500000);
	put_le64(f + 0x1118, 0xFFFFF8031A2B3C40ull); /* SpinLockAddress */
	put_le64(f + 0x1120, 0xFFFFF8031A000123ull); /* CallerAddress */
	put_le64(f + 0x1128, 5000);		     /* AcquireTime */
	put_le64(f + 0x1130, 9000);		     /* ReleaseTime */
	put_le32(f + 0x1138, 777);		     /* WaitTimeInCycles */
	put_le32(f + 0x113C, 12);		     /* SpinCount */
	put_le32(f + 0x1140, 0x4444);		     /* ThreadId */
	put_le32(f + 0x1144, 1);		     /* InterruptCount */
	f[0x1148] = 2;				     /* Irql */
	f[0x1149] = 1;				     /* AcquireDepth */

	/* R6 @0x1150: CSwitch batch, PERFINFO_CCSWAP_BUFFER @0x1160, records @0x11B8. */
	put_le32(f + 0x1150, 0xC0110002);
	put_le16(f + 0x1154, 0x76);
	put_le16(f + 0x1156, 0x0525);
	put_le64(f + 0x1158, 1700000);
	put_le64(f + 0x1160, 1600000);	  /* FirstTimeStamp */
	put_le32(f + 0x1168, 0x1111);	  /* TidTable[0] */
	put_le32(f + 0x116C, 0x2222);	  /* TidTable[1] */
	put_le32(f + 0x1170, 0x3333);	  /* TidTable[2] */
	put_le32(f + 0x11B8, 0x00000003); /* FULL dword0: type 3, delta 0 */
	put_le32(f + 0x11BC, 0x00000051); /* FULL dword1: idx 1, StateWr 5 */
	put_le32(f + 0x11C0, 0x00010002); /* LITE: type 2, delta 2 */
	put_le16(f + 0x11C4, 0x0010);	  /* IDLE_SHORT: delta 4 */
}

static struct etl_reader *open_small(const uint8_t *f, size_t len, struct etl_error *err)
{
	memset(err, 0, sizeof(*err));
	return etl_reader_open_mem(f, len, "small.etl", err);
}

/** walk - open @f and read every record. Return: records, or -1 with @err set. */
static int walk(const uint8_t *f, size_t len, struct etl_error *err)
{
	struct etl_reader *d = open_small(f, len, err);
	struct etl_record r;
	int n = 0, rc = 0;

	if (!d) {
		return -1;
	}
	for (unsigned i = 0; i < etl_reader_buffer_count(d) && rc >= 0; i++) {
		size_t pos = 0;

		while ((rc = etl_buffer_next(d, etl_reader_buffer(d, i), &pos, &r, err)) > 0) {
			n++;
		}
	}
	etl_reader_close(d);
	return rc < 0 ? -1 : n;
}

#define assert_error(f, len, want)                                                                 \
	do {                                                                                       \
		struct etl_error e_;                                                               \
		int n_ = walk((f), (len), &e_);                                                    \
		cr_assert_eq(n_, -1, "expected error \"%s\", got %d records", (want), n_);         \
		cr_assert_str_eq(e_.msg, (want));                                                  \
		cr_assert_null(strchr(e_.msg, '\n'), "one line");                                  \
	} while (0)

Test(reader_small, valid_file_reads_back)
{
	static uint8_t f[SMALL_LEN];
	struct etl_error err;
	struct etl_reader *d;
	struct etl_record r;
	size_t pos = 0;

	make_small(f);
	d = open_small(f, sizeof(f), &err);
	cr_assert_not_null(d, "%s", err.msg);
	const struct etl_logfile *lf = etl_reader_logfile(d);
	cr_assert_str_eq(lf->logger_name, "NT Kernel Logger");
	cr_assert_str_eq(lf->logfile_name, "C:\\x\\emu.etl");
	cr_assert_eq(lf->buffers_written, 2);
	cr_assert_eq(lf->number_of_processors, 2);
	cr_assert_eq(lf->timer_source_clock, 9);
	cr_assert_eq(lf->timer_source_perf, 6);
	cr_assert_eq(lf->boot_time, 132000000000000000ll);
	cr_assert_eq(lf->perf_freq, 10000000);
	cr_assert_eq(lf->start_time, 133000000000000000ll);
	cr_assert_eq(lf->reserved_flags, 1);
	cr_assert_eq(lf->header_system_time, 1000000);
	cr_assert_eq(etl_reader_buffer_count(d), 2);
	cr_assert_eq(etl_reader_trailing_bytes(d), 0);

	const struct etl_buffer *b = etl_reader_buffer(d, 1);
	cr_assert_eq(b->file_offset, 0x1000);
	cr_assert_eq(b->processor_index, 1);
	cr_assert_eq(b->data_end, 0x1C8);
	cr_assert_null(etl_reader_buffer(d, 2));

	static const struct {
		uint64_t off;
		uint16_t size, hook;
		enum etl_kind kind;
		uint8_t version;
		uint64_t ts;
	} want[] = {
		{0x1048, 0x28, 0x0524, ETL_KIND_PERFINFO, 2, 1100000},
		{0x1070, 0x30, 0x0524, ETL_KIND_PERFINFO, 4, 1200000},
		{0x10A0, 0x38, 0x0524, ETL_KIND_PERFINFO, 2, 1300000},
		{0x10D8, 0x2D, 0x0501, ETL_KIND_SYSTEM, 3, 1400000},
		{0x1108, 0x48, 0x0529, ETL_KIND_PERFINFO, 2, 1500000},
		{0x1150, 0x76, 0x0525, ETL_KIND_PERFINFO, 2, 1700000},
	};
	for (unsigned i = 0; i < 6; i++) {
		cr_assert_eq(etl_buffer_next(d, b, &pos, &r, &err), 1, "record %u: %s", i, err.msg);
		cr_assert_eq(r.file_offset, want[i].off, "record %u", i);
		cr_assert_eq(r.size, want[i].size, "record %u", i);
		cr_assert_eq(r.hook_id, want[i].hook, "record %u", i);
		cr_assert_eq(r.kind, want[i].kind, "record %u", i);
		cr_assert(r.is64);
		cr_assert_eq(r.version, want[i].version, "record %u", i);
		cr_assert_eq(r.ts, want[i].ts, "record %u", i);
		cr_assert_eq(r.cpu, 1);
		cr_assert_eq(r.data, f + want[i].off);
	}
	cr_assert_eq(etl_buffer_next(d, b, &pos, &r, &err), 0, "end at 0x1C8");
	cr_assert_eq(pos, 0x1C8);

	/* Extended items: R2 PEBS, R3 two PMC counters; payload after them. */
	pos = 0x70;
	cr_assert_eq(etl_buffer_next(d, b, &pos, &r, &err), 1);
	cr_assert(r.has_pebs);
	cr_assert_eq(r.pebs_index, 0x1234);
	cr_assert_eq(r.pmc_count, 0);
	cr_assert_eq(r.payload, f + 0x1088);
	cr_assert_eq(r.payload_len, 0x18);
	cr_assert_eq(etl_buffer_next(d, b, &pos, &r, &err), 1);
	cr_assert_not(r.has_pebs);
	cr_assert_eq(r.pmc_count, 2);
	cr_assert_eq(r.pmc[0], 11);
	cr_assert_eq(r.pmc[1], 22);
	cr_assert_eq(r.payload, f + 0x10C0);
	cr_assert_eq(r.payload_len, 0x18);
	/* SYSTEM64: 0x20 header, 13 payload bytes. */
	cr_assert_eq(etl_buffer_next(d, b, &pos, &r, &err), 1);
	cr_assert_eq(r.payload, f + 0x10F8);
	cr_assert_eq(r.payload_len, 13);
	cr_assert_eq(pos, 0x108);

	unsigned n;
	const unsigned *order = etl_reader_cpu_order(d, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(order[0], 1);
	etl_reader_close(d);
	cr_assert_eq(walk(f, sizeof(f), &err), 7, "%s", err.msg);
}

Test(reader_small, tolerated_variants)
{
	static uint8_t f[SMALL_LEN + 100];
	struct etl_error err;
	struct etl_reader *d;

	/* Trailing bytes after BuffersWritten buffers are counted, not an error. */
	make_small(f);
	memset(f + SMALL_LEN, 0x5A, 100);
	d = open_small(f, sizeof(f), &err);
	cr_assert_not_null(d, "%s", err.msg);
	cr_assert_eq(etl_reader_trailing_bytes(d), 100);
	etl_reader_close(d);

	/* No strings: Size 0x138 = 0x20 + 0x118, data end 0x48 + 0x138 = 0x180. */
	make_small(f);
	put_le16(f + 0x4C, 0x138);
	put_le32(f + 0x04, 0x180);
	put_le32(f + 0x30, 0x180);
	d = open_small(f, SMALL_LEN, &err);
	cr_assert_not_null(d, "%s", err.msg);
	cr_assert_str_eq(etl_reader_logfile(d)->logger_name, "");
	cr_assert_str_eq(etl_reader_logfile(d)->logfile_name, "");
	etl_reader_close(d);

	/* SavedOffset 0 with Offset set (Windows 7 header buffer), and the reverse. */
	make_small(f);
	put_le32(f + 0x04, 0);
	put_le32(f + 0x1030, 0);
	cr_assert_eq(walk(f, SMALL_LEN, &err), 7, "%s", err.msg);

	/* Offset wins over SavedOffset: SavedOffset 0x150 stops nothing. */
	make_small(f);
	put_le32(f + 0x1004, 0x150);
	cr_assert_eq(walk(f, SMALL_LEN, &err), 7, "%s", err.msg);

	/* 0xFFFFFFFF after R3 ends the records early (dissect's rule). */
	make_small(f);
	put_le32(f + 0x10D8, 0xFFFFFFFF);
	cr_assert_eq(walk(f, SMALL_LEN, &err), 4, "%s", err.msg);

	/* An unknown header type with a sane size is OTHER (Size u16 at 0). */
	make_small(f);
	put_le32(f + 0x10D8, 0xC005002D);
	d = open_small(f, SMALL_LEN, &err);
	cr_assert_not_null(d);
	{
		struct etl_record r;
		size_t pos = 0xD8;

		cr_assert_eq(etl_buffer_next(d, etl_reader_buffer(d, 1), &pos, &r, &err), 1, "%s",
			     err.msg);
		cr_assert_eq(r.kind, ETL_KIND_OTHER);
		cr_assert_eq(r.size, 0x2D);
		cr_assert_eq(pos, 0x108);
	}
	etl_reader_close(d);

	/* A compressed data buffer is framed but yields no records. */
	make_small(f);
	put_le16(f + 0x1034, 0x60);
	d = open_small(f, SMALL_LEN, &err);
	cr_assert_not_null(d, "%s", err.msg);
	cr_assert(etl_reader_buffer(d, 1)->compressed);
	cr_assert_eq(walk(f, SMALL_LEN, &err), 1);
	etl_reader_close(d);

	/* Windows 7 ETW_BUFFER_CONTEXT: no PROC_INDEX, u16 0x0801 -> CPU 1. */
	make_small(f);
	put_le16(f + 0x1034, 0x00);
	put_le16(f + 0x1028, 0x0801);
	d = open_small(f, SMALL_LEN, &err);
	cr_assert_not_null(d, "%s", err.msg);
	cr_assert_eq(etl_reader_buffer(d, 1)->processor_index, 1);
	etl_reader_close(d);
}

Test(reader_small, malformed_buffers)
{
	static uint8_t f[SMALL_LEN];

	/* Empty and short files. */
	make_small(f);
	assert_error(f, 0, "small.etl: offset 0x0: not an ETL file: the file is empty");
	assert_error(f, 71,
		     "small.etl: offset 0x0: not an ETL file: buffer 0 truncated: 71 bytes left, "
		     "its header needs 72");
	/* Truncated buffer: 4096 + 2000 bytes, buffer 1 claims 4096. */
	assert_error(f, 4096 + 2000,
		     "small.etl: offset 0x1000: buffer 1 truncated: BufferSize 4096 but 2000 bytes "
		     "left in the file");
	/* BuffersWritten 3 but two buffers in the file. */
	put_le32(f + 0x8C, 3);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x2000: buffer 2 missing: the file ends after 2 of "
		     "BuffersWritten 3 buffers");
	/* SavedOffset past BufferSize (Offset 0 so SavedOffset counts). */
	make_small(f);
	put_le32(f + 0x1004, 0x1008);
	put_le32(f + 0x1030, 0);
	assert_error(
		f, SMALL_LEN,
		"small.etl: offset 0x1004: buffer 1 SavedOffset 4104 past its BufferSize 4096");
	/* Offset past BufferSize. */
	make_small(f);
	put_le32(f + 0x1030, 0x2000);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1030: buffer 1 Offset 8192 past its BufferSize 4096");
	/* SavedOffset inside the buffer header. */
	make_small(f);
	put_le32(f + 0x1004, 0x20);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1004: buffer 1 SavedOffset 32 inside the 72-byte buffer "
		     "header");
	/* ProcessorIndex >= NumberOfProcessors. */
	make_small(f);
	put_le16(f + 0x1028, 2);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1028: buffer 1 ProcessorIndex 2 >= NumberOfProcessors 2");
	/* BufferSize below the header, and above the logfile BufferSize. */
	make_small(f);
	put_le32(f + 0x1000, 0x40);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1000: buffer 1 BufferSize 64 smaller than its 72-byte "
		     "header");
	make_small(f);
	put_le32(f + 0x68, 2048);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x0: not an ETL file: buffer 0 BufferSize 4096 larger than "
		     "the logfile "
		     "BufferSize 2048");
	/* Offset inside the buffer header. */
	make_small(f);
	put_le32(f + 0x1030, 0x47);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1030: buffer 1 Offset 71 inside the 72-byte buffer "
		     "header");
	/* The header buffer starts with the 0xFFFFFFFF end marker: no logfile record. */
	make_small(f);
	put_le32(f + 0x48, 0xFFFFFFFF);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x48: not an ETL file: header buffer holds no logfile "
		     "header record");
	/* Header buffer of the wrong type, or compressed. */
	make_small(f);
	put_le16(f + 0x36, 0);
	assert_error(
		f, SMALL_LEN,
		"small.etl: offset 0x36: not an ETL file: buffer 0 BufferType 0 is not 4 (HEADER)");
	make_small(f);
	put_le16(f + 0x34, 0x61);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x34: not an ETL file: header buffer is compressed "
		     "(BufferFlag 0x0061)");
}

/* A data buffer larger than the logfile BufferSize: 4096 + 8192 bytes. */
Test(reader_small, data_buffer_larger_than_logfile_buffer_size)
{
	static uint8_t f[SMALL_LEN + 4096];

	make_small(f);
	memset(f + SMALL_LEN, 0, 4096);
	put_le32(f + 0x1000, 0x2000);
	assert_error(f, sizeof(f),
		     "small.etl: offset 0x1000: buffer 1 BufferSize 8192 larger than the logfile "
		     "BufferSize 4096");
	/* Compressed, the on-disk length is checked against it too. */
	put_le16(f + 0x1034, 0x60);
	assert_error(f, sizeof(f),
		     "small.etl: offset 0x1000: buffer 1 compressed length 8192 larger than the "
		     "logfile BufferSize 4096");
	/* A compressed buffer's offsets count uncompressed bytes: <= 4096, not its length. */
	put_le32(f + 0x1000, 0x100);
	put_le32(f + 0x1030, 0x800);
	put_le32(f + 0x1004, 0x800);
	put_le32(f + 0x8C, 2);
	{
		uint8_t g[0x1100];
		struct etl_error err;

		memcpy(g, f, sizeof(g));
		cr_assert_eq(walk(g, sizeof(g), &err), 1, "%s", err.msg);
		put_le32(g + 0x1030, 0x1008);
		assert_error(g, sizeof(g),
			     "small.etl: offset 0x1030: buffer 1 Offset 4104 past its uncompressed "
			     "size 4096");
	}
}

Test(reader_small, malformed_logfile_header)
{
	static uint8_t f[SMALL_LEN];

	/* First record is not hook 0x0000. */
	make_small(f);
	put_le16(f + 0x4E, 0x0005);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x48: not an ETL file: first record is not the SYSTEM hook "
		     "0x0000 logfile "
		     "header (Marker 0xc0020002, HookId 0x0005)");
	/* PointerSize disagrees with SYSTEM64. */
	make_small(f);
	put_le32(f + 0x94, 4);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x94: not an ETL file: PointerSize 4 does not match the "
		     "SYSTEM64 logfile "
		     "record");
	/* Size too short for the 0x118-byte struct: 0x100. */
	make_small(f);
	put_le16(f + 0x4C, 0x100);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x48: not an ETL file: logfile header record Size 256 "
		     "shorter than the "
		     "SYSTEM header + 280-byte TRACE_LOGFILE_HEADER");
	/* LogFileName's NUL at 0x1BA overwritten: the Size covers it, so it must be there. */
	make_small(f);
	put_le16(f + 0x1BA, 'x');
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1a2: not an ETL file: LogFileName: no UTF-16 NUL "
		     "terminator in the 26 "
		     "bytes the record Size leaves");
	/* Zero NumberOfProcessors / BuffersWritten. */
	make_small(f);
	put_le32(f + 0x74, 0);
	assert_error(f, SMALL_LEN, "small.etl: offset 0x74: not an ETL file: NumberOfProcessors 0");
	make_small(f);
	put_le32(f + 0x8C, 0);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x8c: not an ETL file: BuffersWritten 0, but the header "
		     "buffer is there");
	/* Header buffer with no data. */
	make_small(f);
	put_le32(f + 0x04, 0);
	put_le32(f + 0x30, 0);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x4: not an ETL file: header buffer holds no data "
		     "(SavedOffset and Offset "
		     "are 0)");
}

Test(reader_small, malformed_records)
{
	static uint8_t f[SMALL_LEN];

	/* Size 0 in R2. */
	make_small(f);
	put_le16(f + 0x1074, 0);
	assert_error(f, SMALL_LEN, "small.etl: offset 0x1070: PERFINFO64 record Size 0");
	/* Size past the data end: R6 Size 0x80, 0x150 + 0x80 = 0x1D0 > 0x1C8. */
	make_small(f);
	put_le16(f + 0x1154, 0x80);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1150: PERFINFO64 record Size 128 runs past the data end "
		     "(buffer offset 0x150 + 128 > 0x1c8)");
	/* Data end (SavedOffset = Offset) cut inside R5: 0x108 + 0x48 = 0x150 > 0x140. */
	make_small(f);
	put_le32(f + 0x1004, 0x140);
	put_le32(f + 0x1030, 0x140);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1108: PERFINFO64 record Size 72 runs past the data end "
		     "(buffer offset 0x108 + 72 > 0x140)");
	/* Size smaller than its header: SYSTEM64 Size 0x18 < 0x20. */
	make_small(f);
	put_le16(f + 0x10DC, 0x18);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x10d8: SYSTEM64 record Size 24 smaller than its 32-byte "
		     "header");
	/* Size smaller than header + items: 7 PMC items need 0x10 + 56 = 72 > 0x38. */
	make_small(f);
	put_le32(f + 0x10A0, 0xC0110702);
	assert_error(
		f, SMALL_LEN,
		"small.etl: offset 0x10a0: PERFINFO64 record Size 56 smaller than its 0x10-byte "
		"header and 7 extended items (72 bytes)");
	/* EVENT_HEADER64 with Size 0x40 < 0x50. */
	make_small(f);
	put_le32(f + 0x1048, 0xC0130040);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1048: EVENT_HEADER64 record Size 64 smaller than its "
		     "80-byte header");
	/* Zero fill where the data end says a record follows. */
	make_small(f);
	memset(f + 0x1108, 0, 0x48);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1108: zero Marker in buffer 1 where the data end (0x1c8) "
		     "says a record follows");
	/* The record header itself runs past the data end: 2 bytes before it. */
	make_small(f);
	put_le32(f + 0x1004, 0x10C);
	put_le32(f + 0x1030, 0x10C);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1108: PERFINFO64 record header runs past the data end "
		     "0x10c");
}

/*
 * "Unaligned" = records packed back to back without 8-byte alignment. Here
 * a SYSTEM64 record of Size 0x2D at 0x1048 is followed directly by a
 * CSwitch at 0x1075; the reader moves to align8(0x75) = 0x78 and finds bytes
 * 3..6 of the CSwitch there: c0 28 00 24 -> Marker 0x240028c0, whose
 * TRACE_HEADER_FLAG (bit 31) is clear. That is how it is detected.
 */
Test(reader_small, unaligned_records_detected)
{
	static uint8_t f[SMALL_LEN];

	make_small(f);
	memset(f + 0x1048, 0, 0x1000 - 0x48);
	put_le32(f + 0x1048, 0xC0020002);
	put_le16(f + 0x104C, 0x2D);
	put_le16(f + 0x104E, 0x0501);
	put_le32(f + 0x1075, 0xC0110002);
	put_le16(f + 0x1079, 0x28);
	put_le16(f + 0x107B, 0x0524);
	put_le32(f + 0x1004, 0x9D); /* 0x75 + 0x28: packed data end */
	put_le32(f + 0x1030, 0x9D);
	assert_error(f, SMALL_LEN,
		     "small.etl: offset 0x1078: Marker 0x240028c0 is not a trace header "
		     "(TRACE_HEADER_FLAG clear): a corrupt record, or records not placed at 8-byte "
		     "aligned starts");

	/* A caller-supplied unaligned position is refused as well. */
	make_small(f);
	struct etl_error err;
	struct etl_reader *d = open_small(f, SMALL_LEN, &err);
	struct etl_record r;
	size_t pos = 0x4C;
	cr_assert_not_null(d);
	cr_assert_eq(etl_buffer_next(d, etl_reader_buffer(d, 1), &pos, &r, &err), -EINVAL);
	cr_assert_str_eq(err.msg,
			 "small.etl: offset 0x104c: record start 0x4c in buffer 1 is not 8-byte "
			 "aligned");
	etl_reader_close(d);
}

Test(reader_small, every_truncation_is_an_error)
{
	static uint8_t f[SMALL_LEN];
	struct etl_error err;

	make_small(f);
	for (size_t len = 0; len < SMALL_LEN; len++) {
		/* A fresh heap copy of exactly @len bytes, so ASan sees any overread. */
		uint8_t *copy = malloc(len ? len : 1);

		cr_assert_not_null(copy);
		memcpy(copy, f, len);
		cr_assert_eq(walk(copy, len, &err), -1, "length %zu opened", len);
		cr_assert_not_null(strstr(err.msg, "small.etl: offset 0x"), "length %zu: %s", len,
				   err.msg);
		free(copy);
	}
	cr_assert_eq(walk(f, SMALL_LEN, &err), 7);
}

Test(reader_small, byte_flips_never_crash)
{
	static uint8_t f[SMALL_LEN];
	uint8_t *copy = malloc(SMALL_LEN);
	uint64_t x = 0x9E3779B97F4A7C15ull; /* xorshift64 state, fixed seed */
	unsigned opened = 0, failed = 0;
	struct etl_error err;

	cr_assert_not_null(copy);
	make_small(f);
	for (unsigned iter = 0; iter < 20000; iter++) {
		memcpy(copy, f, SMALL_LEN);
		unsigned flips = 1 + iter % 4;

		for (unsigned k = 0; k < flips; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Half the flips hit the headers and records, where they matter. */
			size_t at = (x & 1) ? (size_t)(x >> 8) % SMALL_LEN
					    : ((x >> 8) & 1 ? 0x1000u : 0u) +
						      (size_t)(x >> 16) % 0x1C8u;
			copy[at] ^= (uint8_t)(x >> 40) | 1u;
		}
		if (walk(copy, SMALL_LEN, &err) >= 0) {
			opened++;
		} else {
			failed++;
			cr_assert_not_null(strstr(err.msg, "small.etl: offset 0x"), "%s", err.msg);
		}
	}
	/* Both outcomes occur, so the loop exercised the error paths and the good ones. */
	cr_assert_gt(opened, 0);
	cr_assert_gt(failed, 0);
	free(copy);
}

/* ---- the fast path against the careful one ---------------------------------------- */

/* @a and @b the same record, field by field (the padding between them is no field). */
static void assert_same_record(const struct etl_record *a, const struct etl_record *b,
			       const char *what, size_t at)
{
	cr_assert(a->file_offset == b->file_offset && a->data == b->data && a->size == b->size &&
			  a->marker == b->marker && a->header_type == b->header_type &&
			  a->kind == b->kind && a->is64 == b->is64 && a->cpu == b->cpu,
		  "%s: the header of the record at 0x%zx differs", what, at);
	cr_assert(a->hook_id == b->hook_id && a->version == b->version && a->ts == b->ts,
		  "%s: hook, version or time of the record at 0x%zx differs", what, at);
	cr_assert(a->has_pebs == b->has_pebs && a->pebs_index == b->pebs_index &&
			  a->pmc_count == b->pmc_count && !memcmp(a->pmc, b->pmc, sizeof(a->pmc)),
		  "%s: the items of the record at 0x%zx differ", what, at);
	cr_assert(a->payload == b->payload && a->payload_len == b->payload_len,
		  "%s: the payload of the record at 0x%zx differs", what, at);
}

/*
 * Every record of @d read by etl_buffer_next() and by
 * etl_buffer_next_careful(): the same result, record, position and error.
 * Return: the records read.
 */
static unsigned both_paths_agree(const struct etl_reader *d, const char *what)
{
	unsigned n = 0;

	for (unsigned i = 0; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		size_t pos = 0, pos_c = 0;
		int rc, rc_c;

		do {
			struct etl_record r, r_c;
			struct etl_error e = {0}, e_c = {0};
			size_t at = pos;

			memset(&r, 0xA5, sizeof(r));
			memset(&r_c, 0x5A, sizeof(r_c));
			rc = etl_buffer_next(d, b, &pos, &r, &e);
			rc_c = etl_buffer_next_careful(d, b, &pos_c, &r_c, &e_c);
			cr_assert_eq(rc, rc_c, "%s: buffer %u at 0x%zx: %d, careful %d", what, i,
				     at, rc, rc_c);
			cr_assert_eq(pos, pos_c, "%s: buffer %u at 0x%zx", what, i, at);
			if (rc > 0) {
				assert_same_record(&r, &r_c, what, at);
				n++;
			} else if (rc < 0) {
				cr_assert_str_eq(e.msg, e_c.msg, "%s", what);
				cr_assert_eq(e.offset, e_c.offset, "%s", what);
			}
		} while (rc > 0);
	}
	return n;
}

Test(reader_paths, fast_and_careful_agree_on_every_sample)
{
	unsigned total = 0;

	for (size_t k = 0; k < SAMPLE_COUNT; k++) {
		struct etl_error err;
		struct etl_reader *d = etl_reader_open_file(sample_path(sample_names[k]), &err);

		cr_assert_not_null(d, "%s: %s", sample_names[k], err.msg);
		total += both_paths_agree(d, sample_names[k]);
		etl_reader_close(d);
	}
	cr_assert_gt(total, 10000, "the samples' records were read (%u)", total);
}

Test(reader_paths, fast_and_careful_agree_on_flipped_bytes)
{
	static uint8_t f[SMALL_LEN];
	uint8_t *copy = malloc(SMALL_LEN);
	uint64_t x = 0x2545F4914F6CDD1Dull; /* xorshift64 state, fixed seed */
	unsigned opened = 0, records = 0;

	cr_assert_not_null(copy);
	make_small(f);
	for (unsigned iter = 0; iter < 20000; iter++) {
		struct etl_error err;
		struct etl_reader *d;

		memcpy(copy, f, SMALL_LEN);
		for (unsigned k = 0; k < 1 + iter % 3; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* mostly the records' headers: their Marker, Size and items */
			copy[0x1000u + 0x48u + (size_t)(x >> 8) % 0x180u] ^=
				(uint8_t)(x >> 40) | 1u;
		}
		d = open_small(copy, SMALL_LEN, &err);
		if (d) {
			opened++;
			records += both_paths_agree(d, "flipped");
			etl_reader_close(d);
		}
	}
	cr_assert_gt(opened, 1000);
	cr_assert_gt(records, 1000);
	free(copy);
}

/* ---- etl_reader_open_file ---------------------------------------------------------- */

static char *tmp_file(const char *name, const uint8_t *data, size_t len)
{
	return (char *)test_write(name, data, len);
}

Test(reader_file, open_file_errors, .init = test_dir_make, .fini = test_dir_remove)
{
	static uint8_t f[SMALL_LEN];
	struct etl_error err;
	struct etl_reader *d;
	char want[600];

	make_small(f);
	char *good = tmp_file("good.etl", f, sizeof(f));
	d = etl_reader_open_file(good, &err);
	cr_assert_not_null(d, "%s", err.msg);
	cr_assert_str_eq(etl_reader_name(d), good);
	cr_assert_eq(etl_reader_buffer_count(d), 2);
	etl_reader_close(d);

	char *empty = tmp_file("empty.etl", f, 0);
	errno = 0;
	cr_assert_null(etl_reader_open_file(empty, &err));
	snprintf(want, sizeof(want), "%s: offset 0x0: not an ETL file: the file is empty", empty);
	cr_assert_str_eq(err.msg, want);
	cr_assert_eq(errno, EINVAL);

	cr_assert(!err.unopened, "an empty file opens: its content is bad");

	/* a path that names nothing readable: the one wording of every command's inputs */
	cr_assert_null(etl_reader_open_file(test_dir, &err));
	snprintf(want, sizeof(want), "%s: cannot open: Is a directory", test_dir);
	cr_assert_str_eq(err.msg, want);
	cr_assert(err.unopened);

	snprintf(want, sizeof(want), "%s/missing.etl", test_dir);
	cr_assert_null(etl_reader_open_file(want, &err));
	cr_assert_eq(errno, ENOENT);
	cr_assert(err.unopened);
	cr_assert_not_null(strstr(err.msg, "missing.etl: cannot open: No such file or directory"),
			   "%s", err.msg);

	put_le16(f + 0x1074, 0); /* record errors surface while reading, not at open */
	char *bad = tmp_file("bad.etl", f, sizeof(f));
	d = etl_reader_open_file(bad, &err);
	cr_assert_not_null(d);
	etl_reader_close(d);
	etl_reader_close(NULL);
	cr_assert_str_eq(etl_kind_name(ETL_KIND_PERFINFO), "PERFINFO");
	cr_assert_str_eq(etl_kind_name(ETL_KIND_FULL), "FULL_HEADER");
	cr_assert_str_eq(etl_kind_name(ETL_KIND_EVENT_HEADER), "EVENT_HEADER");
}

/* ---- etwforge dump ----------------------------------------------------------------- */

static const char *bin(void)
{
	const char *b = getenv("ETWFORGE_BIN");

	cr_assert_not_null(b, "ETWFORGE_BIN is not set");
	return b;
}

/** run - `etwforge ARGS >out 2>err`; returns the exit status, fills the two files' text. */
static int run(const char *args, char **out, char **err)
{
	char cmd[8192], o[600], e[600];
	int st;

	snprintf(o, sizeof(o), "%s/stdout", test_dir);
	snprintf(e, sizeof(e), "%s/stderr", test_dir);
	snprintf(cmd, sizeof(cmd), "'%s' %s >'%s' 2>'%s'", bin(), args, o, e);
	st = system(cmd);
	cr_assert(WIFEXITED(st), "%s", cmd);
	for (int k = 0; k < 2; k++) {
		char **dst = k ? err : out;
		FILE *fp = fopen(k ? e : o, "rb");
		long n;

		if (!dst) {
			fclose(fp);
			continue;
		}
		cr_assert_not_null(fp);
		fseek(fp, 0, SEEK_END);
		n = ftell(fp);
		fseek(fp, 0, SEEK_SET);
		*dst = calloc(1, (size_t)n + 1);
		cr_assert_eq(fread(*dst, 1, (size_t)n, fp), (size_t)n);
		fclose(fp);
	}
	return WEXITSTATUS(st);
}

static unsigned count_lines(const char *s)
{
	unsigned n = 0;

	for (; *s; s++) {
		n += *s == '\n';
	}
	return n;
}

/** has_line - some line of @text, split on blanks, is exactly the words of @words. */
static bool has_line(const char *text, const char *words)
{
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char a[512], b[512], *sa, *sb, *ta, *tb;
		bool same = true;

		snprintf(a, sizeof(a), "%.*s", (int)len, line);
		snprintf(b, sizeof(b), "%s", words);
		ta = strtok_r(a, " \t", &sa);
		tb = strtok_r(b, " \t", &sb);
		while (ta || tb) {
			if (!ta || !tb || strcmp(ta, tb)) {
				same = false;
				break;
			}
			ta = strtok_r(NULL, " \t", &sa);
			tb = strtok_r(NULL, " \t", &sb);
		}
		if (same) {
			return true;
		}
		line += len + (end ? 1 : 0);
	}
	return false;
}

Test(dump, stats_on_real_file, .init = test_dir_make, .fini = test_dir_remove)
{
	char args[4200], *out, *err;

	snprintf(args, sizeof(args), "dump --stats '%s'",
		 sample_path("airbus_ShutdownPerfDiagLogger.etl"));
	cr_assert_eq(run(args, &out, &err), 0, "%s", err);
	cr_assert_str_eq(err, "");
	static const char *const lines[] = {
		"buffers 49",
		"compressed 0",
		"cpu 0 28",
		"cpu 1 21",
		"records 17078",
		"SYSTEM64 8433",
		"PERFINFO64 8645",
		"SYSTEM64 0x0000 1",
		"SYSTEM64 0x0501 350",
		"SYSTEM64 0x0503 1175",
		"SYSTEM64 0x1402 4791",
		"PERFINFO64 0x0008 2",
		"PERFINFO64 0x1403 6549",
		"PERFINFO64 0x1404 1952",
		"PERFINFO64 0x0327 5",
		"with PEBS item 0",
		"with PMC items 0",
		"trailing bytes 0",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		cr_assert(has_line(out, lines[i]), "no line \"%s\" in:\n%s", lines[i], out);
	}
	cr_assert_not(has_line(out, "SYSTEM64 0x0501 351"), "has_line is exact");
	free(out);
	free(err);
}

/* The jansson calls the dump tests use, gathered so the tests read alike. */
struct jfuncs {
	json_t *(*loads)(const char *, size_t, json_error_t *);
	void (*del)(json_t *);
	json_t *(*get)(const json_t *, const char *);
	const char *(*string_value)(const json_t *);
	json_int_t (*integer_value)(const json_t *);
	size_t (*array_size)(const json_t *);
	json_t *(*array_get)(const json_t *, size_t);
};

static void load_jansson(struct jfuncs *j)
{
	j->loads = json_loads;
	j->del = json_delete;
	j->get = json_object_get;
	j->string_value = json_string_value;
	j->integer_value = json_integer_value;
	j->array_size = json_array_size;
	j->array_get = json_array_get;
}

static json_t *jparse(const struct jfuncs *j, const char *line, size_t len)
{
	json_error_t je;
	json_t *v = j->loads(line, 0, &je);

	cr_assert_not_null(v, "bad JSON (%s): %.*s", je.text, (int)len, line);
	return v;
}

Test(dump, jsonl_on_real_file, .init = test_dir_make, .fini = test_dir_remove)
{
	char args[4200], *out, *err;
	struct jfuncs j;
	unsigned n = 0;

	load_jansson(&j);
	snprintf(args, sizeof(args), "dump --jsonl '%s'",
		 sample_path("airbus_ShutdownPerfDiagLogger.etl"));
	cr_assert_eq(run(args, &out, &err), 0, "%s", err);
	cr_assert_eq(count_lines(out), 1 + 17078);
	{
		/* first the file: what a program needs to convert timestamps (README table) */
		char *end = strchr(out, '\n');
		json_t *f;

		*end = '\0';
		f = jparse(&j, out, (size_t)(end - out));

		cr_assert_str_eq(j.string_value(j.get(f, "kind")), "file");
		cr_assert_str_eq(j.string_value(j.get(f, "logger_name")), "PerfDiag Logger");
		cr_assert_eq(j.integer_value(j.get(f, "clock_type")), 1);
		cr_assert_str_eq(j.string_value(j.get(f, "clock")), "qpc");
		cr_assert_eq(j.integer_value(j.get(f, "perf_freq")), 10000000);
		cr_assert_eq(j.integer_value(j.get(f, "pointer_size")), 8);
		cr_assert_eq(j.integer_value(j.get(f, "cpus")), 2);
		cr_assert_eq(j.integer_value(j.get(f, "buffer_size")), 65536);
		cr_assert_eq(j.integer_value(j.get(f, "buffers")), 49);
		cr_assert_eq(j.integer_value(j.get(f, "events_lost")), 0);
		cr_assert_not_null(j.get(f, "start_ts"));
		cr_assert_not_null(j.get(f, "start_time"));
		cr_assert_not_null(j.get(f, "end_time"));
		cr_assert_not_null(j.get(f, "boot_time"));
		cr_assert_not_null(j.get(f, "cpu_mhz"));
		j.del(f);
		memmove(out, end + 1, strlen(end + 1) + 1);
	}
	for (char *line = out; *line;) {
		char *end = strchr(line, '\n');

		cr_assert_not_null(end);
		*end = '\0';
		json_t *v = jparse(&j, line, (size_t)(end - line));
		const char *kind = j.string_value(j.get(v, "kind"));

		cr_assert(kind && (!strcmp(kind, "SYSTEM64") || !strcmp(kind, "PERFINFO64")), "%s",
			  line);
		if (n == 0) {
			cr_assert_str_eq(j.string_value(j.get(v, "hook")), "0x0000");
			cr_assert_eq(j.integer_value(j.get(v, "size")), 464);
			cr_assert_eq(j.integer_value(j.get(v, "offset")), 72);
			cr_assert_eq(j.integer_value(j.get(v, "buffer")), 0);
		}
		j.del(v);
		n++;
		line = end + 1;
	}
	cr_assert_eq(n, 17078);
	free(out);
	free(err);

	/* --stats --jsonl: one object. */
	snprintf(args, sizeof(args), "dump --stats --jsonl '%s'",
		 sample_path("perfview_net.4.5.2.x64.etl"));
	cr_assert_eq(run(args, &out, &err), 0, "%s", err);
	cr_assert_eq(count_lines(out), 1);
	json_t *v = jparse(&j, out, strlen(out));
	json_t *bufs = j.get(v, "buffers");
	cr_assert_eq(j.integer_value(j.get(bufs, "total")), 360);
	cr_assert_eq(j.integer_value(j.get(bufs, "compressed")), 359);
	cr_assert_eq(j.integer_value(j.get(j.get(v, "records"), "total")), 179474, "decompressed");
	j.del(v);
	free(out);
	free(err);
}

Test(dump, jsonl_small_file_decodes_payloads, .init = test_dir_make, .fini = test_dir_remove)
{
	static uint8_t f[SMALL_LEN];
	char args[1200], *out, *err;
	json_t *rec[11];
	struct jfuncs j;
	unsigned n = 0;

	load_jansson(&j);
	make_small(f);
	snprintf(args, sizeof(args), "dump --jsonl --raw '%s'",
		 tmp_file("small.etl", f, sizeof(f)));
	cr_assert_eq(run(args, &out, &err), 0, "%s", err);
	/* the file, 7 records, then the batch's 3 switches as CSWITCH_COMPACT objects */
	cr_assert_eq(count_lines(out), 11);
	cr_assert_eq(strncmp(out, "{\"kind\":\"file\",", 15), 0, "%s", out);
	memmove(out, strchr(out, '\n') + 1, strlen(strchr(out, '\n') + 1) + 1);
	for (char *line = out; *line && n < 11;) {
		char *end = strchr(line, '\n');

		*end = '\0';
		rec[n++] = jparse(&j, line, (size_t)(end - line));
		line = end + 1;
	}
	/* Record 1: CSwitch v2 as typed at 0x1058. */
	cr_assert_str_eq(j.string_value(j.get(rec[1], "kind")), "PERFINFO64");
	cr_assert_str_eq(j.string_value(j.get(rec[1], "hook")), "0x0524");
	cr_assert_eq(j.integer_value(j.get(rec[1], "cpu")), 1);
	cr_assert_eq(j.integer_value(j.get(rec[1], "offset")), 0x1048);
	cr_assert_eq(j.integer_value(j.get(rec[1], "new_tid")), 0x1111);
	cr_assert_eq(j.integer_value(j.get(rec[1], "old_tid")), 0x2222);
	cr_assert_eq(j.integer_value(j.get(rec[1], "old_wait_reason")), 6);
	cr_assert_eq(j.integer_value(j.get(rec[1], "old_wait_mode")), 1);
	cr_assert_eq(j.integer_value(j.get(rec[1], "old_remaining_quantum")), -3);
	cr_assert_str_eq(j.string_value(j.get(rec[1], "raw")),
			 "020011c0"	      /* Marker 0xC0110002 */
			 "28002405"	      /* Size 0x28, HookId 0x0524 */
			 "e0c8100000000000"   /* TS 1100000 = 0x10C8E0 */
			 "1111000022220000"   /* NewThreadId, OldThreadId */
			 "0a09000006010501"   /* priorities, wait reason/mode, state, ideal */
			 "03000000fdffffff"); /* NewThreadWaitTime 3, quantum -3 */
	/* Record 2: PEBS index; record 3: two PMC counters. */
	cr_assert_eq(j.integer_value(j.get(rec[2], "pebs_index")), 0x1234);
	cr_assert_eq(j.integer_value(j.get(rec[2], "new_tid")), 0x3333);
	json_t *pmc = j.get(rec[3], "pmc");
	cr_assert_eq(j.array_size(pmc), 2);
	cr_assert_eq(j.integer_value(j.array_get(pmc, 0)), 11);
	cr_assert_eq(j.integer_value(j.array_get(pmc, 1)), 22);
	cr_assert_null(j.get(rec[3], "pebs_index"));
	/* Record 5: SpinLock; record 6: batch header summary. */
	cr_assert_str_eq(j.string_value(j.get(rec[5], "lock")), "0xfffff8031a2b3c40");
	cr_assert_eq(j.integer_value(j.get(rec[5], "spin_count")), 12);
	cr_assert_eq(j.integer_value(j.get(rec[5], "irql")), 2);
	cr_assert_eq(j.integer_value(j.get(rec[6], "first_ts")), 1600000);
	cr_assert_eq(j.integer_value(j.get(rec[6], "tids")), 3);
	cr_assert_eq(j.integer_value(j.get(rec[6], "records_bytes")), 14, "0x76 - 0x68");
	/* The batch expanded: FULL idx 1 (0x2222) at FirstTimeStamp, LITE idx 0 (0x1111)
	 * at +2, IDLE_SHORT at +4 more; each new thread is the next old thread. */
	cr_assert_str_eq(j.string_value(j.get(rec[7], "kind")), "CSWITCH_COMPACT");
	cr_assert_str_eq(j.string_value(j.get(rec[7], "form")), "full");
	cr_assert_eq(j.integer_value(j.get(rec[7], "ts")), 1600000);
	cr_assert_eq(j.integer_value(j.get(rec[7], "old_tid")), 0x2222);
	cr_assert_eq(j.integer_value(j.get(rec[7], "old_wait_reason")), 5);
	cr_assert_eq(j.integer_value(j.get(rec[7], "new_tid")), 0x1111);
	cr_assert_eq(j.integer_value(j.get(rec[7], "offset")), 0x11B8);
	cr_assert_str_eq(j.string_value(j.get(rec[8], "form")), "lite");
	cr_assert_eq(j.integer_value(j.get(rec[8], "ts")), 1600002);
	cr_assert_eq(j.integer_value(j.get(rec[8], "old_tid")), 0x1111);
	cr_assert_eq(j.integer_value(j.get(rec[8], "new_tid")), 0);
	cr_assert_str_eq(j.string_value(j.get(rec[9], "form")), "idle_short");
	cr_assert_eq(j.integer_value(j.get(rec[9], "ts")), 1600006);
	cr_assert_null(j.get(rec[9], "new_tid"), "the CPU's last switch");
	for (unsigned i = 0; i < n; i++) {
		j.del(rec[i]);
	}
	free(out);
	free(err);
}

Test(dump, exit_codes, .init = test_dir_make, .fini = test_dir_remove)
{
	static uint8_t f[SMALL_LEN];
	char args[1200], want[1200], *out, *err;

	/* 0: a valid file, text listing. */
	make_small(f);
	char *good = tmp_file("good.etl", f, sizeof(f));
	snprintf(args, sizeof(args), "dump '%s'", good);
	cr_assert_eq(run(args, &out, &err), 0, "%s", err);
	cr_assert_not_null(strstr(out, "LoggerName           \"NT Kernel Logger\""), "%s", out);
	cr_assert_not_null(strstr(out, "ReservedFlags        1 (clock type QPC)"), "%s", out);
	cr_assert_not_null(strstr(out, "pebs_index 0x1234"), "%s", out);
	cr_assert_not_null(strstr(out, "pmc=11,22"), "%s", out);
	cr_assert_gt(count_lines(out), 30);
	free(out);
	free(err);

	/* --help: every option and the exit codes, on stdout, status 0. */
	cr_assert_eq(run("dump --help", &out, &err), 0);
	for (const char *const *w = (const char *const[]){"--stats", "--jsonl", "--raw", "--help",
							  "exit status", "0 the file is valid",
							  "1 it is malformed", "2 bad usage", NULL};
	     *w; w++) {
		cr_assert_not_null(strstr(out, *w), "--help lacks \"%s\"", *w);
	}
	free(out);
	free(err);

	/* 2: usage errors, one line on stderr. */
	snprintf(args, sizeof(args), "dump --bogus '%s'", good);
	cr_assert_eq(run(args, &out, &err), 2);
	cr_assert_str_eq(err,
			 "etwforge dump: unknown option '--bogus' (try 'etwforge dump --help')\n");
	cr_assert_str_eq(out, "");
	free(out);
	free(err);
	cr_assert_eq(run("dump", NULL, &err), 2);
	cr_assert_eq(count_lines(err), 1);
	free(err);
	snprintf(args, sizeof(args), "dump '%s' '%s'", good, good);
	cr_assert_eq(run(args, NULL, &err), 2);
	free(err);

	/* 1: malformed (Size 0 in R2), with the one-line error on stderr. */
	put_le16(f + 0x1074, 0);
	char *bad = tmp_file("bad.etl", f, sizeof(f));
	for (int mode = 0; mode < 3; mode++) {
		static const char *const flags[] = {"", "--jsonl", "--stats"};

		snprintf(args, sizeof(args), "dump %s '%s'", flags[mode], bad);
		cr_assert_eq(run(args, &out, &err), 1, "mode %d", mode);
		snprintf(want, sizeof(want), "%s: offset 0x1070: PERFINFO64 record Size 0\n", bad);
		cr_assert_str_eq(err, want);
		if (mode == 1) {
			cr_assert_eq(count_lines(out), 3,
				     "the file object and the records before the bad one stay");
		}
		free(out);
		free(err);
	}
	/* 2: a path that names nothing readable (missing, a directory), as for every input */
	snprintf(args, sizeof(args), "dump '%s/missing.etl'", test_dir);
	cr_assert_eq(run(args, NULL, &err), 2);
	snprintf(want, sizeof(want), "%s/missing.etl: cannot open: No such file or directory\n",
		 test_dir);
	cr_assert_str_eq(err, want);
	free(err);
	snprintf(args, sizeof(args), "dump '%s'", test_dir);
	cr_assert_eq(run(args, NULL, &err), 2);
	snprintf(want, sizeof(want), "%s: cannot open: Is a directory\n", test_dir);
	cr_assert_str_eq(err, want);
	free(err);
	/* 1: a file that opens, with nothing of ETL in it */
	snprintf(args, sizeof(args), "dump '%s'", tmp_file("empty.etl", f, 0));
	cr_assert_eq(run(args, NULL, &err), 1);
	cr_assert_not_null(
		strstr(err, "empty.etl: offset 0x0: not an ETL file: the file is empty\n"));
	free(err);
}

/* One damaged file is one line, the first damage in file order, whatever the mode; with
 * --keep-going every damaged place, in file order. Here buffer 1 (at 0x1000) is cut short
 * (the open finds it) and, before the cut, holds a record of Size 0 at 0x1070 (a reader
 * meets it later). */
Test(dump, a_damaged_file_is_said_once_in_file_order, .init = test_dir_make,
     .fini = test_dir_remove)
{
	static const char *const modes[] = {"",
					    "--jsonl",
					    "--stats",
					    "--stats --jsonl",
					    "--timeline x.svg",
					    "--chrome-trace x.json"};
	static uint8_t f[SMALL_LEN];
	char args[1200], want[1200], *err;
	char *bad;

	make_small(f);
	put_le16(f + 0x1074, 0);
	bad = tmp_file("cut.etl", f, SMALL_LEN - 16);
	snprintf(want, sizeof(want),
		 "%s: offset 0x1000: buffer 1 truncated: BufferSize 4096 but 4080 bytes left in "
		 "the file\n",
		 bad);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		snprintf(args, sizeof(args), "dump %s '%s'", modes[i], bad);
		cr_assert_eq(run(args, NULL, &err), 1, "%s", modes[i]);
		cr_assert_str_eq(err, want, "%s", modes[i]);
		free(err);
	}
	/* --keep-going: a compact batch that does not expand (met while reading) is said after
	 * the cut of its buffer (found at open), as they lie in the file */
	cr_assert_eq(test_run("cd '%s' && '%s' corpus -q --mangle --out c && head -c $(( $(stat -c "
			      "%%s c/mangle-tid-index-past-table.etl) - 100 )) "
			      "c/mangle-tid-index-past-table.etl > two.etl",
			      test_dir, test_bin()),
		     0);
	for (size_t i = 0; i < 3; i++) {
		static const char *const keep[] = {"--stats", "--jsonl", ""};
		char *nl;

		snprintf(args, sizeof(args), "dump %s --keep-going '%s/two.etl'", keep[i],
			 test_dir);
		cr_assert_eq(run(args, NULL, &err), 1, "%s", keep[i]);
		nl = strchr(err, '\n');
		cr_assert_not_null(nl, "%s", err);
		cr_assert_not_null(strstr(err, "two.etl: offset 0x1000: buffer 1 truncated"), "%s",
				   err);
		cr_assert_lt(strstr(err, "truncated"), nl, "the cut first: %s", err);
		cr_assert_not_null(strstr(nl, "compact CSwitch record runs past the batch or names "
					      "an empty TidTable slot (batch skipped)\n"),
				   "%s: %s", keep[i], err);
		cr_assert_eq(count_lines(err), 3, "%s", err);
		free(err);
	}
}

Test(dump, every_sample_dumps_cleanly, .init = test_dir_make, .fini = test_dir_remove)
{
	char args[4200], *out, *err;

	for (size_t i = 0; i < SAMPLE_COUNT; i++) {
		snprintf(args, sizeof(args), "dump --raw '%s'", sample_path(sample_names[i]));
		cr_assert_eq(run(args, &out, &err), 0, "%s: %s", sample_names[i], err);
		cr_assert_str_eq(err, "");
		cr_assert_not_null(strstr(out, "logfile header: SYSTEM"), "%s", sample_names[i]);
		free(out);
		free(err);
	}
}
