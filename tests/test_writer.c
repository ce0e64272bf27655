// SPDX-License-Identifier: MIT
/*
 * tests/test_writer.c - the ETL writer, checked on the bytes of the files it
 * writes: every offset below is typed by hand from KERNEL_FACTS 8.1/8.2 and
 * ETL_READERS 2/5 (the arithmetic in the comments), never taken from
 * writer/etl_layout.h, so a wrong constant there shows up here. The tools/
 * reader is not used. Outputs go to a mkdtemp directory removed afterwards.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "tests/test_util.h"
#include "writer/etl_reader.h"
#include "writer/etl_wire.h"
#include "tools/lib/run/out_sink.h"
#include "writer/writer.h"

#define KB4 4096u

/* Entries of the test directory other than . and .. */
static int dir_count(void)
{
	DIR *d = opendir(test_dir);
	struct dirent *e;
	int n = 0;

	cr_assert(d != NULL);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			n++;
		}
	}
	closedir(d);
	return n;
}

TestSuite(writer, .init = test_dir_make, .fini = test_dir_remove, .timeout = 60.);

static const char *path_in(const char *name)
{
	return test_path(name);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	cr_assert(f != NULL, "open %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(n > 0 ? (size_t)n : 1);
	cr_assert(fread(b, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Macro conditions start with '(' which cr_assert() cannot take directly. */
static bool is_true(int cond)
{
	return cond != 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i]) {
			return false;
		}
	}
	return true;
}

static bool all_byte(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != v) {
			return false;
		}
	}
	return true;
}

/* Options with a non-default value in every field the header shows. */
static struct writer_opts full_opts(const char *path, enum etl_arch arch)
{
	struct writer_opts o = {
		.path = path,
		.logger_name = "NT Kernel Logger",
		.logfile_name = "C:\\x\\emu.etl",
		.arch = arch,
		.cpus = 2,
		.buffer_size = KB4,
		.clock = ETL_CLOCK_SYSTIME,
		.os_major = 10,
		.os_minor = 0,
		.provider_version = 17763,
		.timer_resolution = 156250,
		.perf_freq = 3579545,
		.cpu_mhz = 2992,
		.start_time = 0x01D9000011112222LL,
		.boot_time = 0x01D8FFFF33334444LL,
		.start_ts = 0x1122334455ULL,
		.logger_id = 28,
		.group_masks = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88000000u},
		.timer_source_clock = 5,
		.timer_source_perf = 7,
		.thread_id = 0x1234,
		.process_id = 4,
	};
	return o;
}

/* Small-buffer options for data tests: defaults except path, cpus, 4 KiB. */
static struct writer_opts small_opts(const char *path, unsigned cpus)
{
	struct writer_opts o = {
		.path = path,
		.logfile_name = "t.etl",
		.cpus = cpus,
		.buffer_size = KB4,
	};
	return o;
}

static void put_event(struct etl_writer *w, unsigned cpu, uint64_t ts, size_t size, uint8_t fill)
{
	uint8_t ev[0x10000];

	memset(ev, fill, size);
	cr_assert(eq(int, writer_write(w, cpu, ts, ev, size), 0));
}

/* The two UTF-16LE names typed by hand: "NT Kernel Logger" then "C:\x\emu.etl". */
static const uint8_t names_utf16[] = {
	'N', 0, 'T', 0, ' ',  0, 'K', 0, 'e',  0, 'r', 0, 'n', 0, 'e', 0, 'l', 0,
	' ', 0, 'L', 0, 'o',  0, 'g', 0, 'g',  0, 'e', 0, 'r', 0, 0,   0, /* 17 x 2 = 34 bytes */
	'C', 0, ':', 0, '\\', 0, 'x', 0, '\\', 0, 'e', 0, 'm', 0, 'u', 0, '.', 0,
	'e', 0, 't', 0, 'l',  0, 0,   0, /* 13 x 2 = 26 bytes */
};

/* Checks of a data buffer's WMI_BUFFER_HEADER (KF 8.1 table). */
static void check_data_hdr(const uint8_t *b, uint32_t end, uint64_t ts, uint64_t seq, uint16_t cpu,
			   uint16_t logger_id, uint16_t flags)
{
	cr_assert(eq(u32, get_le32(b + 0x00), KB4));
	cr_assert(eq(u32, get_le32(b + 0x04), end)); /* SavedOffset */
	cr_assert(eq(u32, get_le32(b + 0x08), end)); /* CurrentOffset */
	cr_assert(eq(u32, get_le32(b + 0x0C), 0));   /* ReferenceCount */
	cr_assert(eq(u64, get_le64(b + 0x10), ts));  /* TimeStamp */
	cr_assert(eq(u64, get_le64(b + 0x18), seq)); /* SequenceNumber */
	cr_assert(eq(u64, get_le64(b + 0x20), 0));   /* clock/Slist union */
	cr_assert(eq(u16, get_le16(b + 0x28), cpu)); /* ProcessorIndex */
	cr_assert(eq(u16, get_le16(b + 0x2A), logger_id));
	cr_assert(eq(u32, get_le32(b + 0x2C), 3));   /* State Flush */
	cr_assert(eq(u32, get_le32(b + 0x30), end)); /* Offset */
	cr_assert(eq(u16, get_le16(b + 0x34), flags));
	cr_assert(eq(u16, get_le16(b + 0x36), 0)); /* GENERIC */
	cr_assert(all_zero(b + 0x38, 0x10));
	cr_assert(all_zero(b + end, KB4 - end), "tail after 0x%x not zero", end);
}

/* Header buffer checks shared by x64 and x86 (everything before the pointer slots). */
static void check_header_common(const uint8_t *f, uint32_t end, uint32_t marker, uint32_t rec_size,
				uint32_t buffers, uint32_t events_lost)
{
	/* WMI_BUFFER_HEADER of buffer 0. */
	cr_assert(eq(u32, get_le32(f + 0x00), KB4));
	cr_assert(eq(u32, get_le32(f + 0x04), end));
	cr_assert(eq(u32, get_le32(f + 0x08), end));
	cr_assert(eq(u32, get_le32(f + 0x0C), 0));
	cr_assert(eq(u64, get_le64(f + 0x10), 0));
	cr_assert(eq(u64, get_le64(f + 0x18), 0));
	cr_assert(eq(u64, get_le64(f + 0x20), 0));
	cr_assert(eq(u16, get_le16(f + 0x28), 0));
	cr_assert(eq(u16, get_le16(f + 0x2A), 28));
	cr_assert(eq(u32, get_le32(f + 0x2C), 3));
	cr_assert(eq(u32, get_le32(f + 0x30), end));
	cr_assert(eq(u16, get_le16(f + 0x34), 0x21));
	cr_assert(eq(u16, get_le16(f + 0x36), 4));
	cr_assert(all_zero(f + 0x38, 0x10));
	/* SYSTEM header at 0x48. */
	cr_assert(eq(u32, get_le32(f + 0x48), marker));
	cr_assert(eq(u16, get_le16(f + 0x4C), rec_size));
	cr_assert(eq(u16, get_le16(f + 0x4E), 0x0000));
	cr_assert(eq(u32, get_le32(f + 0x50), 0x1234));	      /* ThreadId */
	cr_assert(eq(u32, get_le32(f + 0x54), 4));	      /* ProcessId */
	cr_assert(eq(u64, get_le64(f + 0x58), 0x1122334455)); /* SystemTime = start_ts */
	cr_assert(eq(u32, get_le32(f + 0x60), 0));	      /* KernelTime */
	cr_assert(eq(u32, get_le32(f + 0x64), 0));	      /* UserTime */
	/* TRACE_LOGFILE_HEADER at 0x48 + 0x20 = 0x68. */
	cr_assert(eq(u32, get_le32(f + 0x68), KB4));		       /* BufferSize */
	cr_assert(eq(u32, get_le32(f + 0x6C), 0x0501000A));	       /* Version 0A 00 01 05 */
	cr_assert(eq(u32, get_le32(f + 0x70), 17763));		       /* ProviderVersion */
	cr_assert(eq(u32, get_le32(f + 0x74), 2));		       /* NumberOfProcessors */
	cr_assert(eq(u64, get_le64(f + 0x78), 0x01D9000099990000ULL)); /* EndTime */
	cr_assert(eq(u32, get_le32(f + 0x80), 156250));		       /* TimerResolution */
	cr_assert(eq(u32, get_le32(f + 0x84), 0));		       /* MaximumFileSize */
	cr_assert(eq(u32, get_le32(f + 0x88), 0x02000001));  /* SYSTEM_LOGGER | SEQUENTIAL */
	cr_assert(eq(u32, get_le32(f + 0x8C), buffers));     /* BuffersWritten */
	cr_assert(eq(u32, get_le32(f + 0x90), 1));	     /* StartBuffers */
	cr_assert(eq(u32, get_le32(f + 0x98), events_lost)); /* EventsLost */
	cr_assert(eq(u32, get_le32(f + 0x9C), 2992));	     /* CpuSpeedInMHz */
}

/* The 0x0005 extension record at @p (SYSTEM header + 8 masks + version, Size 68). */
static void check_ext_record(const uint8_t *p, uint32_t marker)
{
	static const uint32_t masks[8] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88000000u};

	cr_assert(eq(u32, get_le32(p + 0x00), marker));
	cr_assert(eq(u16, get_le16(p + 0x04), 68));
	cr_assert(eq(u16, get_le16(p + 0x06), 0x0005));
	cr_assert(eq(u32, get_le32(p + 0x08), 0x1234));
	cr_assert(eq(u32, get_le32(p + 0x0C), 4));
	cr_assert(eq(u64, get_le64(p + 0x10), 0x1122334455));
	cr_assert(eq(u64, get_le64(p + 0x18), 0)); /* KernelTime, UserTime */
	for (unsigned i = 0; i < 8; i++) {
		cr_assert(eq(u32, get_le32(p + 0x20 + 4 * i), masks[i]));
	}
	cr_assert(eq(u32, get_le32(p + 0x40), 60)); /* default kernel event version */
	cr_assert(all_zero(p + 0x44, 4));	    /* 68 -> 72 alignment pad */
}

Test(writer, header_buffer_x64_every_field)
{
	const char *path = path_in("h64.etl");
	struct writer_opts o = full_opts(path, ETL_ARCH_X64);
	struct etl_writer *w = out_writer_create(&o);
	size_t len;
	uint8_t *f;

	cr_assert(w != NULL, "create: %s", strerror(errno));
	put_event(w, 1, 100, 0x28, 0x5A);
	cr_assert(eq(int, writer_finish(w, 500, 0x01D9000099990000LL), 0));
	writer_destroy(w);
	f = read_file(path, &len);
	cr_assert(eq(sz, len, 2 * KB4));

	/*
	 * Record 0 Size = 0x20 + 0x118 + 34 + 26 = 0x174; align8 -> 0x178, so the
	 * 0x0005 record is at 0x48 + 0x178 = 0x1C0 and the data end is
	 * 0x1C0 + align8(68) = 0x1C0 + 0x48 = 0x208.
	 */
	check_header_common(f, 0x208, 0xC0020002, 0x174, 2, 0);
	cr_assert(eq(u32, get_le32(f + 0x94), 8)); /* PointerSize */
	cr_assert(eq(u64, get_le64(f + 0xA0), 5)); /* 0x68+0x38 clock timer source */
	cr_assert(eq(u64, get_le64(f + 0xA8), 7)); /* 0x68+0x40 perf timer source */
	cr_assert(all_zero(f + 0xB0, 0xAC + 4));   /* 0x68+0x48 TimeZone + pad */
	cr_assert(eq(u64, get_le64(f + 0x160), 0x01D8FFFF33334444ULL)); /* 0x68+0xF8 BootTime */
	cr_assert(eq(u64, get_le64(f + 0x168), 3579545));		/* 0x68+0x100 PerfFreq */
	cr_assert(eq(u64, get_le64(f + 0x170), 0x01D9000011112222ULL)); /* 0x68+0x108 StartTime */
	cr_assert(eq(u32, get_le32(f + 0x178), 2)); /* 0x48+0x20+0x110 ReservedFlags */
	cr_assert(eq(u32, get_le32(f + 0x17C), 0)); /* 0x68+0x114 BuffersLost */
	/* Names at 0x68 + 0x118 = 0x180, 60 bytes, to 0x1BC; pad to 0x1C0. */
	cr_assert(eq(int, memcmp(f + 0x180, names_utf16, sizeof(names_utf16)), 0));
	cr_assert(all_zero(f + 0x1BC, 4));
	check_ext_record(f + 0x1C0, 0xC0020002);
	cr_assert(all_zero(f + 0x208, KB4 - 0x208));

	/* The one data buffer: CPU 1, flushed at finish with end_ts 500. */
	check_data_hdr(f + KB4, 0x48 + 0x28, 500, 1, 1, 28, 0x20);
	cr_assert(all_byte(f + KB4 + 0x48, 0x28, 0x5A));
	free(f);
}

/*
 * Names beyond ASCII are UTF-8 in, UTF-16LE in the header: "Lögger 😀"
 * (U+00F6; U+1F600 as the pair D83D DE00) and "ü.etl" (U+00FC), typed by hand.
 */
Test(writer, header_names_beyond_ascii)
{
	static const uint8_t want[] = {
		'L',  0, 0xF6, 0,    'g',  0,	 'g', 0, 'e', 0, 'r', 0,
		' ',  0, 0x3D, 0xD8, 0x00, 0xDE, 0,   0, /* 9 units + NUL = 20 bytes */
		0xFC, 0, '.',  0,    'e',  0,	 't', 0, 'l', 0, 0,   0, /* 6 x 2 = 12 bytes */
	};
	const char *path = path_in("u64.etl");
	struct writer_opts o = full_opts(path, ETL_ARCH_X64);
	struct etl_writer *w;
	struct etl_reader *d;
	struct etl_error err;
	size_t len;
	uint8_t *f;

	o.logger_name = "L\xc3\xb6gger \xf0\x9f\x98\x80";
	o.logfile_name = "\xc3\xbc.etl";
	w = out_writer_create(&o);
	cr_assert(w != NULL, "create: %s", strerror(errno));
	cr_assert(eq(int, writer_finish(w, 500, 0x01D9000099990000LL), 0));
	writer_destroy(w);
	f = read_file(path, &len);
	/* Record 0 Size = 0x20 + 0x118 + 20 + 12 = 0x158, the names at 0x48 + 0x20 + 0x118 */
	cr_assert(eq(u16, get_le16(f + 0x4C), 0x158));
	cr_assert(eq(int, memcmp(f + 0x180, want, sizeof(want)), 0));
	free(f);
	d = etl_reader_open_file(path, &err);
	cr_assert(d != NULL, "%s", err.msg);
	cr_assert_str_eq(etl_reader_logfile(d)->logger_name, "L\xc3\xb6gger \xf0\x9f\x98\x80");
	cr_assert_str_eq(etl_reader_logfile(d)->logfile_name, "\xc3\xbc.etl");
	etl_reader_close(d);
}

Test(writer, header_buffer_x86_every_field)
{
	const char *path = path_in("h86.etl");
	struct writer_opts o = full_opts(path, ETL_ARCH_X86);
	struct etl_writer *w = out_writer_create(&o);
	size_t len;
	uint8_t *f;

	cr_assert(w != NULL, "create: %s", strerror(errno));
	put_event(w, 0, 100, 0x18, 0x5A);
	put_event(w, 1, 101, 0x18, 0x5B);
	cr_assert(eq(int, writer_finish(w, 500, 0x01D9000099990000LL), 0));
	writer_destroy(w);
	f = read_file(path, &len);
	cr_assert(eq(sz, len, 3 * KB4));

	/*
	 * Record 0 Size = 0x20 + 0x110 + 34 + 26 = 0x16C; align8 -> 0x170, so
	 * the 0x0005 record is at 0x48 + 0x170 = 0x1B8 and the end is
	 * 0x1B8 + 0x48 = 0x200.
	 */
	check_header_common(f, 0x200, 0xC0010002, 0x16C, 3, 0);
	cr_assert(eq(u32, get_le32(f + 0x94), 4)); /* PointerSize */
	cr_assert(eq(u32, get_le32(f + 0xA0), 5)); /* 0x68+0x38 */
	cr_assert(eq(u32, get_le32(f + 0xA4), 7)); /* 0x68+0x3C */
	cr_assert(all_zero(f + 0xA8, 0xAC + 4));   /* 0x68+0x40 TimeZone + pad */
	cr_assert(eq(u64, get_le64(f + 0x158), 0x01D8FFFF33334444ULL)); /* 0x68+0xF0 BootTime */
	cr_assert(eq(u64, get_le64(f + 0x160), 3579545));		/* 0x68+0xF8 PerfFreq */
	cr_assert(eq(u64, get_le64(f + 0x168), 0x01D9000011112222ULL)); /* 0x68+0x100 StartTime */
	cr_assert(eq(u32, get_le32(f + 0x170), 2)); /* 0x48+0x20+0x108 ReservedFlags */
	cr_assert(eq(u32, get_le32(f + 0x174), 0)); /* 0x68+0x10C BuffersLost */
	/* Names at 0x68 + 0x110 = 0x178, to 0x1B4; pad to 0x1B8. */
	cr_assert(eq(int, memcmp(f + 0x178, names_utf16, sizeof(names_utf16)), 0));
	cr_assert(all_zero(f + 0x1B4, 4));
	check_ext_record(f + 0x1B8, 0xC0010002);
	cr_assert(all_zero(f + 0x200, KB4 - 0x200));

	/* Finish flushes CPUs in index order. */
	check_data_hdr(f + KB4, 0x48 + 0x18, 500, 1, 0, 28, 0x20);
	check_data_hdr(f + 2 * KB4, 0x48 + 0x18, 500, 2, 1, 28, 0x20);
	cr_assert(all_byte(f + 2 * KB4 + 0x48, 0x18, 0x5B));
	free(f);
}

Test(writer, header_defaults)
{
	const char *path = path_in("def.etl");
	struct writer_opts o = {.path = path};
	struct etl_writer *w = out_writer_create(&o);
	size_t len;
	uint8_t *f;
	size_t plen = strlen(path);
	uint32_t rec;

	cr_assert(w != NULL);
	cr_assert(eq(int, writer_finish(w, 0, 0), 0));
	writer_destroy(w);
	f = read_file(path, &len);
	/* No data buffer: just the 64 KiB header buffer, BuffersWritten 1. */
	cr_assert(eq(sz, len, 65536));
	cr_assert(eq(u32, get_le32(f + 0x00), 65536));
	cr_assert(eq(u16, get_le16(f + 0x2A), 1));	    /* LoggerId */
	cr_assert(eq(u32, get_le32(f + 0x48), 0xC0020002)); /* x64 */
	cr_assert(eq(u32, get_le32(f + 0x6C), 0x0501000A)); /* Windows 10 */
	cr_assert(eq(u32, get_le32(f + 0x70), 19041));
	cr_assert(eq(u32, get_le32(f + 0x74), 1));
	cr_assert(eq(u32, get_le32(f + 0x80), 156250));
	cr_assert(eq(u32, get_le32(f + 0x88), 0x02000001));
	cr_assert(eq(u32, get_le32(f + 0x8C), 1));
	cr_assert(eq(u32, get_le32(f + 0x9C), 3000));
	cr_assert(eq(u64, get_le64(f + 0xA0), 9));
	cr_assert(eq(u64, get_le64(f + 0xA8), 6));
	cr_assert(eq(u64, get_le64(f + 0x168), 10000000));
	cr_assert(eq(u32, get_le32(f + 0x178), 1)); /* QPC */
	/* "NT Kernel Logger" then LogFileName = the path itself. */
	cr_assert(eq(u16, get_le16(f + 0x180), 'N'));
	cr_assert(eq(u16, get_le16(f + 0x180 + 32), 0));
	for (size_t i = 0; i < plen; i++) {
		cr_assert(eq(u16, get_le16(f + 0x1A2 + 2 * i), (uint16_t)path[i]));
	}
	cr_assert(eq(u16, get_le16(f + 0x1A2 + 2 * plen), 0));
	rec = 0x20 + 0x118 + 34 + 2 * ((uint32_t)plen + 1);
	cr_assert(eq(u16, get_le16(f + 0x4C), rec));
	free(f);
}

Test(writer, data_buffers_two_cpus_flush_order_and_padding)
{
	const char *path = path_in("data.etl");
	struct writer_opts o = small_opts(path, 2);
	struct etl_writer *w;
	struct writer_stats st;
	size_t len;
	uint8_t *f, *b;

	o.logger_id = 40;
	w = out_writer_create(&o);
	cr_assert(w != NULL);
	put_event(w, 0, 10, 0x29, 0xA1); /* CPU 0: 0x48..0x71, pad to 0x78 */
	put_event(w, 1, 11, 0x30, 0xB1); /* CPU 1: 0x48..0x78 */
	put_event(w, 0, 12, 1, 0xC1);	 /* CPU 0: 0x78, pad to 0x80 */
	/* 0x78 + 4000 > 4096: CPU 1 flushes first (seq 1, TimeStamp 20). */
	put_event(w, 1, 20, 4000, 0xD1);
	/* 0x80 + 4000 > 4096: CPU 0 flushes (seq 2, TimeStamp 30). */
	put_event(w, 0, 30, 4000, 0xE1);
	cr_assert(eq(int, writer_finish(w, 99, 7), 0));
	writer_get_stats(w, &st);
	writer_destroy(w);

	f = read_file(path, &len);
	cr_assert(eq(sz, len, 5 * KB4));
	cr_assert(eq(u32, get_le32(f + 0x48 + 0x20 + 0x24), 5)); /* BuffersWritten */

	b = f + 1 * KB4; /* seq 1: CPU 1, B */
	check_data_hdr(b, 0x78, 20, 1, 1, 40, 0x20);
	cr_assert(all_byte(b + 0x48, 0x30, 0xB1));

	b = f + 2 * KB4; /* seq 2: CPU 0, A and C */
	check_data_hdr(b, 0x80, 30, 2, 0, 40, 0x20);
	cr_assert(all_byte(b + 0x48, 0x29, 0xA1));
	cr_assert(all_zero(b + 0x71, 7));
	cr_assert(eq(u8, b[0x78], 0xC1));
	cr_assert(all_zero(b + 0x79, 7));

	/* finish: CPU 0 then CPU 1, TimeStamp = end_ts; 0x48 + 4000 = 0xFE8. */
	b = f + 3 * KB4;
	check_data_hdr(b, 0xFE8, 99, 3, 0, 40, 0x20);
	cr_assert(all_byte(b + 0x48, 4000, 0xE1));
	b = f + 4 * KB4;
	check_data_hdr(b, 0xFE8, 99, 4, 1, 40, 0x20);
	cr_assert(all_byte(b + 0x48, 4000, 0xD1));

	cr_assert(eq(u64, st.events_written, 5));
	cr_assert(eq(u64, st.event_bytes, 0x29 + 0x30 + 1 + 4000 + 4000));
	cr_assert(eq(u64, st.buffers_written, len / KB4));
	cr_assert(eq(u64, st.bytes_written, len));
	cr_assert(eq(u64, st.events_lost, 0));
	free(f);
}

Test(writer, exact_fit_stays_one_more_byte_flushes)
{
	const char *p1 = path_in("fit.etl");
	const char *p2 = path_in("fit3.etl");
	const char *p3 = path_in("over.etl");
	struct writer_opts o;
	struct etl_writer *w;
	size_t len;
	uint8_t *f;

	/* 0x48 + 16 + 4008 = 4096: fills the buffer exactly, no flush. */
	o = small_opts(p1, 1);
	w = out_writer_create(&o);
	put_event(w, 0, 1, 16, 0x01);
	put_event(w, 0, 2, 4008, 0x02);
	cr_assert(eq(int, writer_finish(w, 9, 0), 0));
	writer_destroy(w);
	f = read_file(p1, &len);
	cr_assert(eq(sz, len, 2 * KB4));
	check_data_hdr(f + KB4, 0x1000, 9, 1, 0, 1, 0x20);
	free(f);

	/* The same, then 1 byte at ts 3: the full buffer is flushed at ts 3. */
	o = small_opts(p2, 1);
	w = out_writer_create(&o);
	put_event(w, 0, 1, 16, 0x01);
	put_event(w, 0, 2, 4008, 0x02);
	put_event(w, 0, 3, 1, 0x03);
	cr_assert(eq(int, writer_finish(w, 9, 0), 0));
	writer_destroy(w);
	f = read_file(p2, &len);
	cr_assert(eq(sz, len, 3 * KB4));
	check_data_hdr(f + KB4, 0x1000, 3, 1, 0, 1, 0x20);
	check_data_hdr(f + 2 * KB4, 0x50, 9, 2, 0, 1, 0x20);
	cr_assert(eq(u8, f[2 * KB4 + 0x48], 0x03));
	free(f);

	/* One byte more (4009): flushed before it, at its ts 2. */
	o = small_opts(p3, 1);
	w = out_writer_create(&o);
	put_event(w, 0, 1, 16, 0x01);
	put_event(w, 0, 2, 4009, 0x02);
	cr_assert(eq(int, writer_finish(w, 9, 0), 0));
	writer_destroy(w);
	f = read_file(p3, &len);
	cr_assert(eq(sz, len, 3 * KB4));
	check_data_hdr(f + KB4, 0x58, 2, 1, 0, 1, 0x20);
	/* 0x48 + align8(4009) = 0x48 + 4016 = 0xFF8 */
	check_data_hdr(f + 2 * KB4, 0xFF8, 9, 2, 0, 1, 0x20);
	cr_assert(all_byte(f + 2 * KB4 + 0x48, 4009, 0x02));
	free(f);
}

Test(writer, too_big_and_bad_arguments)
{
	const char *path = path_in("big.etl");
	struct writer_opts o = small_opts(path, 2);
	struct etl_writer *w = out_writer_create(&o);
	struct writer_stats st;
	uint8_t *p;

	cr_assert(w != NULL);
	/* 4096 - 0x48 = 4024 is the largest event. */
	cr_assert(eq(int, writer_reserve(w, 0, 4025, 1, &p), -E2BIG));
	cr_assert(eq(int, writer_reserve(w, 0, 4024, 1, &p), 0));
	writer_commit(w, 0);
	cr_assert(eq(int, writer_reserve(w, 2, 8, 1, &p), -EINVAL)); /* cpu == cpus */
	cr_assert(eq(int, writer_reserve(w, 0, 0, 1, &p), -EINVAL));
	writer_get_stats(w, &st);
	cr_assert(eq(u64, st.events_lost, 0));
	cr_assert(eq(u64, st.events_written, 1));
	cr_assert(eq(int, writer_finish(w, 2, 0), 0));
	/* Finished: no more events, no second finish. */
	cr_assert(eq(int, writer_reserve(w, 0, 8, 3, &p), -EINVAL));
	cr_assert(eq(int, writer_finish(w, 2, 0), -EINVAL));
	writer_destroy(w);

	/* Size is a USHORT: with 128 KiB buffers 0xFFFF fits, 0x10000 does not. */
	o = small_opts(path_in("big2.etl"), 1);
	o.buffer_size = 131072;
	w = out_writer_create(&o);
	cr_assert(w != NULL);
	cr_assert(eq(int, writer_reserve(w, 0, 0x10000, 1, &p), -E2BIG));
	cr_assert(eq(int, writer_reserve(w, 0, 0xFFFF, 1, &p), 0));
	writer_commit(w, 0);
	writer_destroy(w);
}

/*
 * Pool of 2, flush latency 100, 4 KiB buffers, 2000-byte events (two per
 * buffer: 0x48 + 2 x 2000 = 4072). Offered 11, written 7, lost 4.
 */
Test(writer, pool_exhaustion_loses_and_flags)
{
	const char *path = path_in("pool.etl");
	struct writer_opts o = full_opts(path, ETL_ARCH_X64);
	struct etl_writer *w;
	struct writer_stats st;
	uint8_t ev[2000];
	size_t len;
	uint8_t *f;
	unsigned offered = 0;

	o.pool_buffers = 2;
	o.flush_latency = 100;
	w = out_writer_create(&o);
	cr_assert(w != NULL);
	memset(ev, 0x77, sizeof(ev));
#define OFFER(cpu, ts, want)                                                                       \
	do {                                                                                       \
		offered++;                                                                         \
		cr_assert(eq(int, writer_write(w, cpu, ts, ev, sizeof(ev)), want), "ts %d",        \
			  (int)(ts));                                                              \
	} while (0)
	OFFER(0, 0, 0); /* takes buffer 1 of 2 */
	OFFER(0, 1, 0);
	OFFER(0, 2, 0); /* flush seq 1 at 2 (back at 102), takes buffer 2 */
	OFFER(0, 3, 0);
	OFFER(0, 4, -ENOBUFS); /* flush seq 2 at 4 (back at 104); none free */
	OFFER(0, 50, -ENOBUFS);
	OFFER(0, 101, -ENOBUFS); /* one tick before the first comes back */
	OFFER(0, 102, 0);	 /* back: CPU 0 holds it */
	OFFER(0, 103, 0);
	OFFER(1, 103, -ENOBUFS); /* CPU 0 holds one, one in flight until 104 */
	OFFER(1, 104, 0);
#undef OFFER
	writer_get_stats(w, &st);
	cr_assert(eq(u64, st.events_lost, 4));
	cr_assert(eq(u64, st.buffers_lost, 2)); /* CPU 0 once (3 losses), CPU 1 once */
	cr_assert(eq(int, writer_finish(w, 200, 0x01D9000099990000LL), 0));
	writer_get_stats(w, &st);
	writer_destroy(w);
	cr_assert(eq(u64, st.events_written, 7));
	cr_assert(eq(u64, st.events_written + st.events_lost, offered));

	f = read_file(path, &len);
	cr_assert(eq(sz, len, 5 * KB4));
	check_header_common(f, 0x208, 0xC0020002, 0x174, 5, 4);
	cr_assert(eq(u32, get_le32(f + 0x17C), 2)); /* 0x68+0x114 BuffersLost */
	/* 0x48 + 2 x 2000 = 4072 = 0xFE8; 0x48 + 2000 = 0x818 */
	check_data_hdr(f + 1 * KB4, 0xFE8, 2, 1, 0, 28, 0x20);
	check_data_hdr(f + 2 * KB4, 0xFE8, 4, 2, 0, 28, 0x20);
	check_data_hdr(f + 3 * KB4, 0xFE8, 200, 3, 0, 28, 0x22); /* after CPU 0's losses */
	check_data_hdr(f + 4 * KB4, 0x818, 200, 4, 1, 28, 0x22); /* after CPU 1's loss */
	free(f);
}

/* Pool of 1, latency 0: a CPU holding the only buffer starves the other. */
Test(writer, pool_of_one_starves_other_cpu)
{
	const char *path = path_in("pool1.etl");
	struct writer_opts o = small_opts(path, 2);
	struct etl_writer *w;
	struct writer_stats st;
	size_t len;
	uint8_t *f;

	o.pool_buffers = 1;
	w = out_writer_create(&o);
	cr_assert(w != NULL);
	put_event(w, 0, 1, 2000, 0x10);
	cr_assert(eq(int, writer_write(w, 1, 2, "x", 1), -ENOBUFS));
	cr_assert(eq(int, writer_write(w, 1, 3, "x", 1), -ENOBUFS));
	put_event(w, 0, 4, 2000, 0x11);
	/* Full: flushed at 5, back at once (latency 0), CPU 0 takes it again. */
	put_event(w, 0, 5, 2000, 0x12);
	cr_assert(eq(int, writer_write(w, 1, 6, "x", 1), -ENOBUFS));
	writer_get_stats(w, &st);
	cr_assert(eq(u64, st.events_lost, 3));
	cr_assert(eq(u64, st.buffers_lost, 1)); /* one run of losses on CPU 1 */
	cr_assert(eq(int, writer_finish(w, 9, 0), 0));
	writer_destroy(w);
	f = read_file(path, &len);
	cr_assert(eq(sz, len, 3 * KB4));
	cr_assert(eq(u32, get_le32(f + 0x68 + 0x30), 3));  /* EventsLost */
	cr_assert(eq(u32, get_le32(f + 0x68 + 0x114), 1)); /* BuffersLost */
	check_data_hdr(f + KB4, 0xFE8, 5, 1, 0, 1, 0x20);
	check_data_hdr(f + 2 * KB4, 0x818, 9, 2, 0, 1, 0x20);
	free(f);
}

/*
 * Flush times out of order across CPUs (10, 30, 20, 40, latency 100): the
 * buffers come back in return-time order 110, 120, 130, 140, whatever the
 * order they were flushed in (exercises both children of the heap).
 */
Test(writer, pool_returns_in_return_time_order)
{
	const char *path = path_in("order.etl");
	struct writer_opts o = small_opts(path, 4);
	struct etl_writer *w;
	struct writer_stats st;
	static const uint64_t flush_ts[4] = {10, 30, 20, 40};
	static const uint8_t big[2000];
	size_t len;
	uint8_t *f;

	o.pool_buffers = 4;
	o.flush_latency = 100;
	w = out_writer_create(&o);
	cr_assert(w != NULL);
	for (unsigned c = 0; c < 4; c++) {
		put_event(w, c, 1 + c, 2000, 1); /* each CPU holds one: pool used up */
		put_event(w, c, 5 + c, 2000, 2);
	}
	for (unsigned c = 0; c < 4; c++) {
		/* Full: flushed (back at flush_ts + 100), no buffer left for it. */
		cr_assert(eq(int, writer_write(w, c, flush_ts[c], big, sizeof(big)), -ENOBUFS));
	}
	cr_assert(eq(int, writer_write(w, 0, 115, "x", 1), 0)); /* 110 is back */
	cr_assert(eq(int, writer_write(w, 1, 116, "x", 1), -ENOBUFS));
	cr_assert(eq(int, writer_write(w, 1, 120, "x", 1), 0));
	cr_assert(eq(int, writer_write(w, 2, 129, "x", 1), -ENOBUFS));
	cr_assert(eq(int, writer_write(w, 2, 130, "x", 1), 0));
	cr_assert(eq(int, writer_write(w, 3, 139, "x", 1), -ENOBUFS));
	cr_assert(eq(int, writer_write(w, 3, 140, "x", 1), 0));
	cr_assert(eq(int, writer_finish(w, 200, 0), 0));
	writer_get_stats(w, &st);
	writer_destroy(w);
	cr_assert(eq(u64, st.events_lost, 7));
	cr_assert(eq(u64, st.buffers_lost, 4));
	cr_assert(eq(u64, st.events_written, 12));

	f = read_file(path, &len);
	cr_assert(eq(sz, len, 9 * KB4));
	for (unsigned c = 0; c < 4; c++) {
		check_data_hdr(f + (1 + c) * KB4, 0xFE8, flush_ts[c], 1 + c, (uint16_t)c, 1, 0x20);
		/* 0x48 + align8(1) = 0x50 */
		check_data_hdr(f + (5 + c) * KB4, 0x50, 200, 5 + c, (uint16_t)c, 1, 0x22);
	}
	free(f);
}

Test(writer, unlimited_pool_never_loses)
{
	struct writer_opts o = small_opts(path_in("unl.etl"), 4);
	struct etl_writer *w;
	struct writer_stats st;

	o.flush_latency = UINT64_MAX; /* never back: only a bounded pool could run out */
	w = out_writer_create(&o);
	cr_assert(w != NULL);
	for (unsigned i = 0; i < 400; i++) {
		put_event(w, i % 4, i, 1000, (uint8_t)i);
	}
	cr_assert(eq(int, writer_finish(w, 1000, 0), 0));
	writer_get_stats(w, &st);
	writer_destroy(w);
	cr_assert(eq(u64, st.events_lost, 0));
	cr_assert(eq(u64, st.events_written, 400));
	/* 4 events of align8(1000) = 1000 per buffer (0x48 + 4000 <= 4096): 100 + 1. */
	cr_assert(eq(u64, st.buffers_written, 101));
}

/* Stale bytes never reach the file: padding after reuse, abandoned reservations. */
Test(writer, reused_buffer_padding_is_zero)
{
	const char *path = path_in("stale.etl");
	struct writer_opts o = small_opts(path, 1);
	struct etl_writer *w = out_writer_create(&o);
	size_t len;
	uint8_t *f, *p;

	cr_assert(w != NULL);
	/* 503 x 8 = 4024: buffer 1 is 0xFF from 0x48 to the end. */
	for (unsigned i = 0; i < 503; i++) {
		put_event(w, 0, i, 8, 0xFF);
	}
	put_event(w, 0, 600, 1, 0xEE); /* flushes; lands where 0xFF bytes were */
	/* Reserved, scribbled on, never committed: abandoned by the next reserve. */
	cr_assert(eq(int, writer_reserve(w, 0, 100, 601, &p), 0));
	memset(p, 0xFF, 100);
	cr_assert(eq(int, writer_reserve(w, 0, 4, 602, &p), 0));
	memcpy(p, "\x11\x22\x33\x44", 4);
	writer_commit(w, 0);
	/* And one more abandoned at the end. */
	cr_assert(eq(int, writer_reserve(w, 0, 200, 603, &p), 0));
	memset(p, 0xFF, 200);
	cr_assert(eq(int, writer_finish(w, 700, 0), 0));
	writer_destroy(w);

	f = read_file(path, &len);
	cr_assert(eq(sz, len, 3 * KB4));
	check_data_hdr(f + KB4, 0x1000, 600, 1, 0, 1, 0x20);
	/* 0x48: EE + 7 zero; 0x50: 11 22 33 44 + 4 zero; end 0x58, zero tail. */
	check_data_hdr(f + 2 * KB4, 0x58, 700, 2, 0, 1, 0x20);
	cr_assert(eq(u8, f[2 * KB4 + 0x48], 0xEE));
	cr_assert(all_zero(f + 2 * KB4 + 0x49, 7));
	cr_assert(eq(u32, get_le32(f + 2 * KB4 + 0x50), 0x44332211));
	cr_assert(all_zero(f + 2 * KB4 + 0x54, 4));
	free(f);
}

Test(writer, backend_ops_lend_whole_buffers)
{
	const char *path = path_in("ops.etl");
	struct writer_opts o = small_opts(path, 2);
	struct etl_writer *w = out_writer_create(&o);
	const struct etl_backend_ops *ops = writer_backend_ops();
	struct etl_buf *b, *again;
	uint8_t *p;
	size_t len;
	uint8_t *f;

	cr_assert(w != NULL);
	cr_assert(ops && ops->buffer_get && ops->buffer_put && ops->max_event);
	cr_assert(eq(u32, ops->max_event(w), 4096 - 0x48), "a 4 KiB buffer takes 0xFB8 bytes");
	cr_assert(eq(int, ops->buffer_get(w, 1, 77, &b), 0));
	cr_assert(eq(u32, b->pos, 0x48));
	cr_assert(eq(u32, b->size, 4096));
	cr_assert(eq(u32, b->cpu, 1));
	/* the producer writes in place and advances */
	p = b->base + b->pos;
	put_le32(p, 0xC0110004);
	memset(p + 4, 0x3C, 0x24);
	b->pos += 0x28;
	b->events++;
	b->event_bytes += 0x28;
	cr_assert(eq(int, ops->buffer_get(w, 1, 78, &again), 0));
	cr_assert(eq(ptr, again, b), "the CPU keeps its buffer until it is put back");
	/* CPU 0: one event, then put back full at TS 79: written at once */
	cr_assert(eq(int, ops->buffer_get(w, 0, 79, &b), 0));
	memset(b->base + b->pos, 0x11, 8);
	b->pos += 8;
	b->events++;
	b->event_bytes += 8;
	cr_assert(eq(int, ops->buffer_put(w, b, 79), 0));
	cr_assert(eq(int, ops->buffer_get(w, 0, 79, &b), 0));
	cr_assert(eq(u32, b->pos, 0x48), "a fresh buffer after the put");
	cr_assert(eq(int, writer_finish(w, 80, 0), 0));
	writer_destroy(w);
	f = read_file(path, &len);
	cr_assert(eq(sz, len, 3 * KB4), "header buffer, CPU 0's put buffer, CPU 1's at the end");
	check_data_hdr(f + KB4, 0x50, 79, 1, 0, 1, 0x20);
	check_data_hdr(f + 2 * KB4, 0x70, 80, 2, 1, 1, 0x20);
	cr_assert(eq(u32, get_le32(f + 2 * KB4 + 0x48), 0xC0110004));
	cr_assert(all_byte(f + 2 * KB4 + 0x4C, 0x24, 0x3C));
	cr_assert(all_zero(f + 2 * KB4 + 0x70, KB4 - 0x70), "the tail is zeroed at the write");
	free(f);
}

/*
 * Writes a fixed pseudo-random trace to @path: 3 CPUs, a pool of 4 with
 * flush latency 30, events of 8..600 bytes carrying their Size at +4 (so
 * check_framing() can walk them). Returns the stats.
 */
static struct writer_stats run_trace(const char *path, uint32_t seed)
{
	struct writer_opts o = small_opts(path, 3);
	struct etl_writer *w;
	struct writer_stats st;
	uint32_t x = seed;

	o.logfile_name = "same.etl"; /* the path differs; the name in the file must not */
	o.pool_buffers = 4;
	o.flush_latency = 30;
	w = out_writer_create(&o);
	cr_assert(w != NULL);
	for (uint64_t ts = 0; ts < 3000; ts++) {
		uint8_t ev[600];
		size_t size;
		int ret;

		x = x * 1664525u + 1013904223u;
		size = 8 + (x >> 8) % 593;
		memset(ev, (int)(x >> 24), size);
		put_le16(ev + 4, (uint16_t)size);
		ret = writer_write(w, (x >> 4) % 3, ts, ev, size);
		cr_assert(ret == 0 || ret == -ENOBUFS, "ret %d", ret);
	}
	cr_assert(eq(int, writer_finish(w, 3000, 42), 0));
	writer_get_stats(w, &st);
	writer_destroy(w);
	return st;
}

/* Walk every buffer: the framing invariants readers rely on (ETL_READERS 5). */
static void check_framing(const uint8_t *f, size_t len, uint64_t events)
{
	uint32_t n = get_le32(f + 0x68 + 0x24); /* BuffersWritten */
	uint64_t seen = 0;

	cr_assert(eq(sz, len % KB4, 0));
	cr_assert(eq(u32, n, len / KB4)); /* BuffersWritten == file size / BufferSize */
	for (uint32_t i = 1; i < n; i++) {
		const uint8_t *b = f + (size_t)i * KB4;
		uint32_t end = get_le32(b + 0x04);
		uint32_t off = 0x48;

		cr_assert(eq(u32, get_le32(b + 0x30), end));
		cr_assert(eq(u32, get_le32(b + 0x08), end));
		cr_assert(end <= KB4);
		cr_assert(eq(u64, get_le64(b + 0x18), i)); /* file order == flush order */
		cr_assert(get_le16(b + 0x28) < get_le32(f + 0x68 + 0x0C));
		while (off < end) {
			uint32_t size = get_le16(b + off + 4);

			cr_assert(size >= 8 && off + size <= end);
			/* 1..7 bytes of alignment padding, all zero */
			cr_assert(all_zero(b + off + size, ((size + 7) & ~7u) - size));
			off += (size + 7) & ~7u;
			seen++;
		}
		cr_assert(eq(u32, off, end), "buffer %u: records overrun SavedOffset", i);
		cr_assert(all_zero(b + end, KB4 - end));
	}
	cr_assert(eq(u64, seen, events));
}

Test(writer, deterministic_bytes)
{
	const char *p1 = path_in("d1.etl");
	const char *p2 = path_in("d2.etl");
	const char *p3 = path_in("d3.etl");
	struct writer_stats s1 = run_trace(p1, 7);
	struct writer_stats s2 = run_trace(p2, 7);
	struct writer_stats s3 = run_trace(p3, 8);
	size_t l1, l2, l3;
	uint8_t *f1 = read_file(p1, &l1);
	uint8_t *f2 = read_file(p2, &l2);
	uint8_t *f3 = read_file(p3, &l3);

	cr_assert(eq(sz, l1, l2));
	cr_assert(eq(int, memcmp(f1, f2, l1), 0));
	cr_assert(eq(int, memcmp(&s1, &s2, sizeof(s1)), 0));
	cr_assert(s1.events_lost > 0, "the pool should run short in this trace");
	cr_assert(eq(u64, s1.events_written + s1.events_lost, 3000));
	cr_assert(eq(u32, get_le32(f1 + 0x68 + 0x30), (uint32_t)s1.events_lost));
	cr_assert(eq(u32, get_le32(f1 + 0x68 + 0x114), (uint32_t)s1.buffers_lost));
	cr_assert(eq(u64, s1.bytes_written, l1));
	check_framing(f1, l1, s1.events_written);
	/* A different seed gives different bytes (the comparison can fail). */
	cr_assert(l1 != l3 || memcmp(f1, f3, l1) != 0);
	(void)s3;
	free(f1);
	free(f2);
	free(f3);
}

Test(writer, output_file_mode_follows_umask)
{
	const char *path = path_in("mode.etl");
	struct writer_opts o = small_opts(path, 1);
	struct etl_writer *w;
	struct stat st;
	mode_t old = umask(022);

	w = out_writer_create(&o);
	cr_assert(w != NULL);
	cr_assert(eq(int, writer_finish(w, 0, 0), 0));
	writer_destroy(w);
	umask(old);
	cr_assert(eq(int, stat(path, &st), 0));
	cr_assert(is_true(S_ISREG(st.st_mode)));
	cr_assert(eq(u32, st.st_mode & 0777, 0644));
	cr_assert(eq(int, dir_count(), 1)); /* no temporary file left */
}

Test(writer, nothing_at_target_before_finish_and_after_destroy)
{
	const char *path = path_in("pending.etl");
	struct writer_opts o = small_opts(path, 1);
	struct etl_writer *w = out_writer_create(&o);
	struct stat st;

	cr_assert(w != NULL);
	for (unsigned i = 0; i < 10; i++) {
		put_event(w, 0, i, 3000, 1); /* several buffers already on disk */
	}
	cr_assert(eq(int, stat(path, &st), -1));
	cr_assert(eq(int, dir_count(), 1)); /* the temporary file */
	writer_destroy(w);
	cr_assert(eq(int, stat(path, &st), -1));
	cr_assert(eq(int, dir_count(), 0));
}

/* RLIMIT_FSIZE turns the third data buffer's write into EFBIG: a sticky error. */
Test(writer, write_error_is_sticky_and_leaves_nothing)
{
	const char *path = path_in("fail.etl");
	struct writer_opts o = small_opts(path, 1);
	struct etl_writer *w;
	struct rlimit rl = {.rlim_cur = 3 * KB4, .rlim_max = RLIM_INFINITY};
	struct rlimit old;
	uint8_t ev[3000];
	int ret = 0;
	unsigned i;
	FILE *prev;
	size_t len;
	uint8_t *f;

	/* An older file at the target survives the failed run untouched. */
	prev = fopen(path, "w");
	fputs("old contents", prev);
	fclose(prev);

	memset(ev, 1, sizeof(ev));
	signal(SIGXFSZ, SIG_IGN);
	cr_assert(eq(int, getrlimit(RLIMIT_FSIZE, &old), 0));
	rl.rlim_max = old.rlim_max;
	cr_assert(eq(int, setrlimit(RLIMIT_FSIZE, &rl), 0));
	w = out_writer_create(&o);
	cr_assert(w != NULL);
	/* Buffers 1 and 2 go to offsets 4096 and 8192; buffer 3 (12288) fails. */
	for (i = 0; i < 10 && ret == 0; i++) {
		ret = writer_write(w, 0, i, ev, sizeof(ev));
	}
	cr_assert(eq(int, ret, -EFBIG));
	cr_assert(eq(u32, i, 4)); /* the 4th event flushed the 3rd buffer */
	cr_assert(eq(int, writer_write(w, 0, 100, ev, 8), -EFBIG));
	cr_assert(eq(int, writer_finish(w, 200, 0), -EFBIG));
	writer_destroy(w);
	setrlimit(RLIMIT_FSIZE, &old);

	cr_assert(eq(int, dir_count(), 1)); /* only the old file, no temporary */
	f = read_file(path, &len);
	cr_assert(eq(sz, len, 12));
	cr_assert(eq(int, memcmp(f, "old contents", 12), 0));
	free(f);
}

Test(writer, dev_full_fails_at_finish_in_place)
{
	struct writer_opts o = small_opts("/dev/full", 1);
	struct etl_writer *w = out_writer_create(&o);
	struct stat st;
	DIR *d;
	struct dirent *e;

	cr_assert(w != NULL, "create: %s", strerror(errno));
	put_event(w, 0, 1, 3000, 1);
	put_event(w, 0, 2, 3000, 1); /* one data buffer spooled */
	cr_assert(eq(int, writer_finish(w, 3, 0), -ENOSPC));
	writer_destroy(w);
	cr_assert(eq(int, stat("/dev/full", &st), 0));
	cr_assert(is_true(S_ISCHR(st.st_mode)), "/dev/full was replaced");
	d = opendir("/dev");
	cr_assert(d != NULL);
	while ((e = readdir(d)) != NULL) {
		cr_assert(strncmp(e->d_name, ".full.", 6) != 0, "temporary %s left", e->d_name);
	}
	closedir(d);
}

/* The null device takes nothing (no spool, no write): counted, no digest. */
Test(writer, dev_null_written_in_place)
{
	struct writer_opts o = small_opts("/dev/null", 1);
	struct etl_writer *w = out_writer_create(&o);
	struct writer_stats ws;
	struct stat st;

	cr_assert(w != NULL);
	put_event(w, 0, 1, 3000, 1);
	put_event(w, 0, 2, 3000, 1);
	cr_assert(eq(int, writer_finish(w, 3, 0), 0));
	writer_get_stats(w, &ws);
	cr_assert(is_true(ws.discarded));
	cr_assert(eq(u64, ws.xxh3, 0));
	cr_assert(eq(u64, ws.events_written, 2));
	cr_assert(eq(u64, ws.buffers_written, 3)); /* the header and two of 3000-byte events */
	writer_destroy(w);
	cr_assert(eq(int, stat("/dev/null", &st), 0));
	cr_assert(is_true(S_ISCHR(st.st_mode)));
}

/* The reference bytes for the stream tests: the same trace to a regular file. */
static void small_trace(const char *path)
{
	struct writer_opts o = small_opts(path, 2);
	struct etl_writer *w = out_writer_create(&o);

	cr_assert(w != NULL, "create %s: %s", path, strerror(errno));
	for (unsigned i = 0; i < 12; i++) {
		put_event(w, i % 2, i, 1500 + i, (uint8_t)(0x40 + i));
	}
	cr_assert(eq(int, writer_finish(w, 50, 5), 0));
	writer_destroy(w);
}

Test(writer, stdout_gets_header_first_then_spooled_data)
{
	const char *ref = path_in("ref.etl");
	const char *out = path_in("stdout.etl");
	int fd, saved;
	size_t l1, l2;
	uint8_t *f1, *f2;

	small_trace(ref);
	fflush(stdout);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0);
	saved = dup(STDOUT_FILENO);
	cr_assert(dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
	close(fd);
	small_trace("-");
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);

	f1 = read_file(ref, &l1);
	f2 = read_file(out, &l2);
	cr_assert(eq(sz, l1, 7 * KB4)); /* 12 events of ~1.5 KB, 2 per buffer, + header */
	cr_assert(eq(sz, l1, l2));
	cr_assert(eq(int, memcmp(f1, f2, l1), 0));
	cr_assert(eq(int, dir_count(), 2));
	free(f1);
	free(f2);
}

/* The FIFO's reader: copies everything it reads into a regular file. */
static void *fifo_reader(void *arg)
{
	const char **paths = arg;
	int in = open(paths[0], O_RDONLY);
	int out = open(paths[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char buf[4096];
	ssize_t n = -1;

	if (in >= 0 && out >= 0) {
		while ((n = read(in, buf, sizeof(buf))) > 0) {
			if (write(out, buf, (size_t)n) != n) {
				n = -1;
				break;
			}
		}
	}
	if (in >= 0) {
		close(in);
	}
	if (out >= 0) {
		close(out);
	}
	return n == 0 ? (void *)paths : NULL;
}

Test(writer, fifo_written_in_place)
{
	const char *ref = path_in("ref.etl");
	const char *paths[2] = {path_in("pipe"), path_in("copy.etl")};
	struct stat st;
	pthread_t reader;
	void *res = NULL;
	size_t l1, l2;
	uint8_t *f1, *f2;

	small_trace(ref);
	cr_assert(eq(int, mkfifo(paths[0], 0600), 0));
	cr_assert(eq(int, pthread_create(&reader, NULL, fifo_reader, paths), 0));
	small_trace(paths[0]); /* opening blocks until the reader has opened */
	cr_assert(eq(int, pthread_join(reader, &res), 0));
	cr_assert(res != NULL, "the reader failed");
	cr_assert(eq(int, stat(paths[0], &st), 0));
	cr_assert(is_true(S_ISFIFO(st.st_mode)), "the FIFO was replaced");
	f1 = read_file(ref, &l1);
	f2 = read_file(paths[1], &l2);
	cr_assert(eq(sz, l1, l2));
	cr_assert(eq(int, memcmp(f1, f2, l1), 0));
	free(f1);
	free(f2);
}

Test(writer, create_fails_on_bad_directory)
{
	struct writer_opts o = small_opts(path_in("no/such/dir/x.etl"), 1);
	struct etl_writer *w;

	errno = 0;
	w = out_writer_create(&o);
	cr_assert(w == NULL);
	cr_assert(eq(int, errno, ENOENT));

	/* An existing directory as the target is not replaced either. */
	o = small_opts(test_dir, 1);
	errno = 0;
	w = out_writer_create(&o);
	cr_assert(w == NULL);
	cr_assert(eq(int, errno, EISDIR));

	if (geteuid() != 0) {
		/* Root bypasses permissions, so only an unprivileged run can see EACCES. */
		const char *ro = path_in("ro");
		cr_assert(eq(int, mkdir(ro, 0555), 0));
		o = small_opts(path_in("ro/x.etl"), 1);
		errno = 0;
		w = out_writer_create(&o);
		cr_assert(w == NULL);
		cr_assert(eq(int, errno, EACCES));
		rmdir(ro);
	}
	cr_assert(eq(int, dir_count(), 0));
}

struct bad_case {
	const char *what;
	struct writer_opts o;
};

Test(writer, validate_rejects_bad_options)
{
	static char long_name[1026];
	static char max_name[1025];
	const char *p = path_in("v.etl");
	struct writer_opts good = {.path = p};
	struct bad_case bad[] = {
		{"path NULL", {.path = NULL}},
		{"path empty", {.path = ""}},
		{"arch 2", {.path = p, .arch = (enum etl_arch)2}},
		{"cpus 2049", {.path = p, .cpus = 2049}},
		{"buffer 4095", {.path = p, .buffer_size = 4095}},
		{"buffer 2048", {.path = p, .buffer_size = 2048}},
		{"buffer 6144", {.path = p, .buffer_size = 6144}},
		{"buffer 16 MiB + 4 KiB", {.path = p, .buffer_size = 16777216 + 4096}},
		{"clock 4", {.path = p, .clock = (enum etl_clock)4}},
		{"compressed", {.path = p, .log_file_mode = 0x04000000}},
		{"pool 2^20 + 1", {.path = p, .pool_buffers = 1048577}},
		{"logger not UTF-8", {.path = p, .logger_name = "caf\xe9"}},
		{"logfile not UTF-8", {.path = p, .logfile_name = "\xff.etl"}},
		{"path not UTF-8", {.path = "/tmp/\xe9.etl"}},
		{"logger a surrogate", {.path = p, .logger_name = "\xed\xa0\x80"}},
		{"logger overlong", {.path = p, .logger_name = "\xc0\xaf"}},
		{"logger 1025", {.path = p, .logger_name = long_name}},
		{"logfile 1025", {.path = p, .logfile_name = long_name}},
		/* 0x48 + align8(0x20 + 0x118 + 2050 + 2050) + 72 = 72 + 4416 + 72 = 4560 > 4096 */
		{"names too big for 4 KiB",
		 {.path = p,
		  .buffer_size = 4096,
		  .logger_name = max_name,
		  .logfile_name = max_name}},
	};
	struct writer_opts ok[] = {
		{.path = p, .buffer_size = 4096},
		{.path = "/tmp/\xc3\xa9.etl", .logger_name = "caf\xc3\xa9"},
		{.path = p, .buffer_size = 12288},
		{.path = p, .buffer_size = 16777216},
		{.path = p, .cpus = 2048, .buffer_size = 4096},
		{.path = p, .pool_buffers = 1048576},
		{.path = p, .buffer_size = 8192, .logger_name = max_name, .logfile_name = max_name},
		{.path = p, .arch = ETL_ARCH_X86, .clock = ETL_CLOCK_CYCLES},
	};
	const char *why;

	memset(long_name, 'a', 1025);
	memset(max_name, 'b', 1024);
	cr_assert(eq(int, writer_validate_opts(&good, &why), 0));
	cr_assert(eq(int, writer_validate_opts(NULL, &why), -EINVAL));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct etl_writer *w;

		why = NULL;
		cr_assert(eq(int, writer_validate_opts(&bad[i].o, &why), -EINVAL), "%s",
			  bad[i].what);
		cr_assert(why != NULL && why[0] != '\0', "%s: no reason", bad[i].what);
		errno = 0;
		w = out_writer_create(&bad[i].o);
		cr_assert(w == NULL, "%s", bad[i].what);
		cr_assert(eq(int, errno, EINVAL), "%s", bad[i].what);
	}
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		why = "unset";
		cr_assert(eq(int, writer_validate_opts(&ok[i], &why), 0), "ok[%zu]: %s", i, why);
		cr_assert(why == NULL);
	}
	cr_assert(eq(int, writer_validate_opts(&good, NULL), 0));
	cr_assert(eq(int, dir_count(), 0)); /* validation and failed creates make nothing */
}
