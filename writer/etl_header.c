// SPDX-License-Identifier: MIT
/*
 * writer/etl_header.c - the bytes of WMI_BUFFER_HEADER and of the header
 * buffer (buffer 0): the 0x0000 logfile record and the 0x0005 header
 * extension record (KERNEL_FACTS 8.1, 8.2; ETL_READERS 2.1, 2.4, 5).
 *
 * Buffer 0, x64 (x86: SYSTEM32 marker, 0x110-byte logfile header):
 *
 *   0x000  WMI_BUFFER_HEADER      BufferType 4 (HEADER), BufferFlag 0x21
 *   0x048  SYSTEM header          Marker 0xC0020002, HookId 0x0000, Size = all of:
 *   0x068  TRACE_LOGFILE_HEADER   0x118 bytes (x86 0x110)
 *   0x180  LoggerName             UTF-16LE, NUL-terminated
 *          LogFileName            UTF-16LE, NUL-terminated
 *   align8 SYSTEM header          HookId 0x0005, Size 68:
 *          GroupMasks[8], Version
 *   align8 end = SavedOffset = Offset = CurrentOffset; zero up to BufferSize
 *
 * Every field is stored with put_le*() at the offsets named in
 * writer/etl_layout.h, never through a struct.
 * Bytes the spec leaves to the kernel (the time zone, the 0x20 union, the
 * 0x38 reference clock, padding) are zero, our documented choice.
 */
#include <string.h>

#include "writer/etl_layout.h"
#include "writer/etl_trace_header.h"
#include "writer/etl_wire.h"
#include "writer/etl_header.h"

/* The 0x0005 record: SYSTEM header + PERFINFO_GROUPMASK[8] + u32 version. */
#define HDR_EXT_RECORD_LEN (ETL_SH_LEN + ETL_HDR_EXT_LEN)
static_assert(HDR_EXT_RECORD_LEN == 68, "header extension record is 68 bytes (KF 8.2)");

static size_t logfile_len(enum etl_arch arch)
{
	return arch == ETL_ARCH_X86 ? ETL_LF32_LEN : ETL_LF64_LEN;
}

/* Size of the 0x0000 record: SYSTEM header, logfile header, two UTF-16Z names. */
static size_t logfile_record_len(enum etl_arch arch, size_t logger_chars, size_t logfile_chars)
{
	return ETL_SH_LEN + logfile_len(arch) + 2u * (logger_chars + 1u) +
	       2u * (logfile_chars + 1u);
}

size_t etl_header_len(enum etl_arch arch, size_t logger_chars, size_t logfile_chars)
{
	return etl_align8(logfile_record_len(arch, logger_chars, logfile_chars)) +
	       etl_align8(HDR_EXT_RECORD_LEN);
}

void etl_put_buffer_header(uint8_t *buf, const struct etl_buffer_info *bi)
{
	put_le32(buf + ETL_BH_BUFFER_SIZE, bi->buffer_size);
	put_le32(buf + ETL_BH_SAVED_OFFSET, bi->end);
	/* Real files show CurrentOffset >= SavedOffset; we write the exact end. */
	put_le32(buf + ETL_BH_CURRENT_OFFSET, bi->end);
	put_le32(buf + ETL_BH_REFERENCE_COUNT, 0);
	put_le64(buf + ETL_BH_TIMESTAMP, bi->timestamp);
	put_le64(buf + ETL_BH_SEQUENCE, bi->sequence);
	put_le64(buf + ETL_BH_CLOCK_UNION, 0);
	put_le16(buf + ETL_BH_PROCESSOR_INDEX, bi->cpu);
	put_le16(buf + ETL_BH_LOGGER_ID, bi->logger_id);
	/*
	 * State 3 (Flush) everywhere; in a compressed file the low 16 bits of the
	 * header buffer's State name the format, and 3 is XPRESS too (ETL_READERS 2.7).
	 */
	static_assert(ETL_BUFFER_STATE_FLUSH == 3u, "Flush state = COMPRESSION_FORMAT_XPRESS");
	put_le32(buf + ETL_BH_STATE, ETL_BUFFER_STATE_FLUSH);
	put_le32(buf + ETL_BH_OFFSET, bi->end);
	put_le16(buf + ETL_BH_BUFFER_FLAG, bi->flags);
	put_le16(buf + ETL_BH_BUFFER_TYPE, bi->type);
	/* 0x38..0x47: kernel list pointers in real files; zero here. */
	memset(buf + ETL_BH_REF_CLOCK, 0, ETL_BH_LEN - ETL_BH_REF_CLOCK);
}

/*
 * The code point at @s (UTF-8), its length in *@len; -1 if the bytes are
 * not one well-formed character.
 */
static long utf8_next(const unsigned char *s, size_t *len)
{
	static const uint32_t min[4] = {0, 0x80, 0x800, 0x10000};
	unsigned n = s[0] < 0x80		   ? 1
		     : s[0] >= 0xC2 && s[0] < 0xE0 ? 2
		     : s[0] >= 0xE0 && s[0] < 0xF0 ? 3
		     : s[0] >= 0xF0 && s[0] < 0xF5 ? 4
						   : 0;
	uint32_t c;

	if (n == 0) {
		return -1;
	}
	c = n == 1 ? s[0] : s[0] & (0x7Fu >> n);
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			return -1;
		}
		c = (c << 6) | (s[i] & 0x3Fu);
	}
	if (c < min[n - 1] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
		return -1;
	}
	*len = n;
	return (long)c;
}

long etl_utf16_units(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	long units = 0;

	while (*p) {
		size_t n;
		long c = utf8_next(p, &n);

		if (c < 0) {
			return -1;
		}
		units += c > 0xFFFF ? 2 : 1;
		p += n;
	}
	return units;
}

/* UTF-8 (well-formed, etl_utf16_units()) -> UTF-16LE with the terminating NUL; returns the bytes. */
static size_t put_utf16z(uint8_t *p, const char *s)
{
	const unsigned char *q = (const unsigned char *)s;
	size_t i = 0;

	while (*q) {
		size_t n = 1;
		long c = utf8_next(q, &n);

		if (c < 0) {
			c = 0xFFFD; /* not reached: writer_create() refuses such a name */
		}
		if (c > 0xFFFF) {
			c -= 0x10000;
			put_le16(p + 2 * i++, (uint16_t)(0xD800 + (c >> 10)));
			c = 0xDC00 + (c & 0x3FF);
		}
		put_le16(p + 2 * i++, (uint16_t)c);
		q += n;
	}
	put_le16(p + 2 * i, 0);
	return 2 * (i + 1);
}

/* SYSTEM_TRACE_HEADER (KF 3.3) of a header-buffer record; Kernel/UserTime 0. */
static void put_system_header(uint8_t *p, const struct writer_opts *o, size_t size, uint16_t hook)
{
	const struct etl_system_header h = {
		.arch = o->arch,
		.version = ETL_VERSION_SYSTEM,
		.size = (uint16_t)size,
		.hook_id = hook,
		.thread_id = o->thread_id,
		.process_id = o->process_id,
		.ts = o->start_ts,
	};

	(void)etl_encode_system_header(p, ETL_SH_LEN, &h);
}

/* TRACE_LOGFILE_HEADER (KF 8.2) without the totals; @lf was zeroed by the caller. */
static void put_logfile_header(uint8_t *lf, const struct writer_opts *o)
{
	bool x86 = o->arch == ETL_ARCH_X86;
	unsigned ptr = x86 ? 4u : 8u;

	put_le32(lf + ETL_LF_BUFFER_SIZE, o->buffer_size);
	/* Version {Major, Minor, SubVersion, SubMinorVersion}: Windows 10 -> 0x0501000A. */
	put_u8(lf + ETL_LF_VERSION + 0, o->os_major);
	put_u8(lf + ETL_LF_VERSION + 1, o->os_minor);
	/* a compressed file is layout 2.0 (KERNEL_FACTS 8.2; the relogged samples) */
	put_u8(lf + ETL_LF_VERSION + 2, o->compress ? 2u : ETL_LAYOUT_VERSION_MAJOR);
	put_u8(lf + ETL_LF_VERSION + 3, o->compress ? 0u : ETL_LAYOUT_VERSION_MINOR);
	put_le32(lf + ETL_LF_PROVIDER_VERSION, o->provider_version);
	put_le32(lf + ETL_LF_NUMBER_OF_PROCESSORS, o->cpus);
	put_le32(lf + ETL_LF_TIMER_RESOLUTION, o->timer_resolution);
	put_le32(lf + ETL_LF_MAXIMUM_FILE_SIZE, 0);
	put_le32(lf + ETL_LF_LOG_FILE_MODE, o->log_file_mode);
	put_le32(lf + ETL_LF_START_BUFFERS, 1);
	put_le32(lf + ETL_LF_POINTER_SIZE, ptr);
	put_le32(lf + ETL_LF_CPU_SPEED_MHZ, o->cpu_mhz);
	/* 6.1+ keeps the HAL timer sources in the two pointer slots. */
	put_ptr(lf + ETL_LF_LOGGER_NAME, ptr, o->timer_source_clock);
	put_ptr(lf + (x86 ? ETL_LF32_LOG_FILE_NAME : ETL_LF64_LOG_FILE_NAME), ptr,
		o->timer_source_perf);
	/* TimeZone (0xAC) and the 4-byte pad after it stay zero: UTC, documented. */
	put_le64(lf + (x86 ? ETL_LF32_BOOT_TIME : ETL_LF64_BOOT_TIME), (uint64_t)o->boot_time);
	put_le64(lf + (x86 ? ETL_LF32_PERF_FREQ : ETL_LF64_PERF_FREQ), o->perf_freq);
	put_le64(lf + (x86 ? ETL_LF32_START_TIME : ETL_LF64_START_TIME), (uint64_t)o->start_time);
	put_le32(lf + (x86 ? ETL_LF32_RESERVED_FLAGS : ETL_LF64_RESERVED_FLAGS),
		 (uint32_t)o->clock);
}

void etl_header_encode(uint8_t *buf, const struct writer_opts *o)
{
	size_t rec0 = logfile_record_len(o->arch, (size_t)etl_utf16_units(o->logger_name),
					 (size_t)etl_utf16_units(o->logfile_name));
	uint8_t *p = buf + ETL_BH_LEN;
	uint8_t *names = p + ETL_SH_LEN + logfile_len(o->arch);
	uint8_t *ext;
	struct etl_buffer_info bi = {
		.buffer_size = o->buffer_size,
		.timestamp = 0, /* observed 0 in the header buffer of real files */
		.sequence = 0,
		.cpu = 0,
		.logger_id = o->logger_id,
		.flags = ETL_BUFFER_FLAG_PROC_INDEX | ETL_BUFFER_FLAG_FLUSH_MARKER,
		.type = ETL_BUFFER_TYPE_HEADER,
	};

	put_system_header(p, o, rec0, ETL_HOOK_LOGFILE_HEADER);
	put_logfile_header(p + ETL_SH_LEN, o);
	names += put_utf16z(names, o->logger_name);
	put_utf16z(names, o->logfile_name);

	ext = p + etl_align8(rec0);
	put_system_header(ext, o, HDR_EXT_RECORD_LEN, ETL_HOOK_HEADER_EXTENSION);
	for (unsigned i = 0; i < 8; i++) {
		put_le32(ext + ETL_SH_LEN + 4 * i, o->group_masks[i]);
	}
	put_le32(ext + ETL_SH_LEN + 0x20, o->kernel_event_version);

	bi.end = (uint32_t)(ETL_BH_LEN + etl_align8(rec0) + etl_align8(HDR_EXT_RECORD_LEN));
	etl_put_buffer_header(buf, &bi);
}

void etl_header_set_totals(uint8_t *buf, enum etl_arch arch, const struct etl_totals *t)
{
	uint8_t *lf = buf + ETL_BH_LEN + ETL_SH_LEN;
	bool x86 = arch == ETL_ARCH_X86;

	put_le64(lf + ETL_LF_END_TIME, (uint64_t)t->end_time);
	put_le32(lf + ETL_LF_BUFFERS_WRITTEN, t->buffers_written);
	put_le32(lf + ETL_LF_EVENTS_LOST, t->events_lost);
	put_le32(lf + (x86 ? ETL_LF32_BUFFERS_LOST : ETL_LF64_BUFFERS_LOST), t->buffers_lost);
}
