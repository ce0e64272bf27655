/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_header.h - what goes into an ETL file's headers (etl_header.c):
 * the options of a file (struct writer_opts, which the writer keeps), the
 * bytes of a WMI_BUFFER_HEADER and of the header buffer (the 0x0000 logfile
 * record with both names, the 0x0005 extension), and the totals patched in
 * at the end.
 */
#ifndef WRITER_ETL_HEADER_H
#define WRITER_ETL_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writer/etl_layout.h"

/* Version bytes 2/3: the 6.1+ file layout version 1.5 (KERNEL_FACTS 8.2). */
#define ETL_LAYOUT_VERSION_MAJOR 1u
#define ETL_LAYOUT_VERSION_MINOR 5u
/**
 * struct writer_opts - what goes into the file. A zero field takes the
 * default in brackets.
 * @path:             the file's name, as given: the default of
 *                    @logfile_name (the bytes go to writer_create()'s sink)
 * @logger_name:      LoggerName string ["NT Kernel Logger"]
 * @logfile_name:     LogFileName string [@path]
 * @arch:             x64 or x86 (pointer size, SYSTEM32/64 and PERFINFO32/64)
 * @cpus:             NumberOfProcessors, > every CPU index used [1]
 * @buffer_size:      bytes per buffer, multiple of 4096, 4 KiB..16 MiB [65536]
 * @pool_buffers:     buffers in the session's pool; 0 = never exhausted
 * @flush_latency:    clock units a flushed buffer stays in flight before it
 *                    returns to the pool (the pool model; 0 = at once)
 * @clock:            ReservedFlags clock type [QPC]
 * @os_major/@os_minor: Version bytes 0/1 [10/0]; bytes 2/3 are 1.5
 * @provider_version: OS build number [19041]
 * @timer_resolution: 100 ns units [156250]
 * @perf_freq:        QPC frequency [10000000]
 * @cpu_mhz:          CpuSpeedInMHz [3000]
 * @start_time:       FILETIME of session start (StartTime)
 * @boot_time:        FILETIME of boot (BootTime)
 * @start_ts:         session clock value at start (header event SystemTime)
 * @log_file_mode:    LogFileMode [SYSTEM_LOGGER | SEQUENTIAL]
 * @logger_id:        LoggerId in every buffer header [1]
 * @group_masks:      PERFINFO_GROUPMASK of the 0x0005 header extension
 * @kernel_event_version: its trailing version [the target's]
 * @timer_source_clock/@timer_source_perf: HAL_PLATFORM_TIMER_SOURCE values
 *                    stored where 6.1+ keeps them (LoggerName/LogFileName
 *                    pointer slots) [9 Apic / 6 ProcessorCounter]
 * @thread_id/@process_id: the starting context of the header event [0/0]
 * @compress:         XPRESS-compress every data buffer (plain LZ77, MS-XCA),
 *                    as a relogged file has them: LogFileMode
 *                    COMPRESSED_MODE, file layout version 2.0, BufferFlag
 *                    0x40, the on-disk BufferSize the compressed length,
 *                    SavedOffset/Offset the uncompressed end (ETL_READERS
 *                    2.7). A buffer that would not shrink is stored plain.
 */
struct writer_opts {
	const char *path;
	bool compress;
	const char *logger_name;
	const char *logfile_name;
	enum etl_arch arch;
	unsigned cpus;
	uint32_t buffer_size;
	uint32_t pool_buffers;
	uint64_t flush_latency;
	enum etl_clock clock;
	uint8_t os_major;
	uint8_t os_minor;
	uint32_t provider_version;
	uint32_t timer_resolution;
	uint64_t perf_freq;
	uint32_t cpu_mhz;
	int64_t start_time;
	int64_t boot_time;
	uint64_t start_ts;
	uint32_t log_file_mode;
	uint16_t logger_id;
	uint32_t group_masks[8];
	uint32_t kernel_event_version;
	uint32_t timer_source_clock;
	uint32_t timer_source_perf;
	uint32_t thread_id;
	uint32_t process_id;
};

/**
 * struct etl_totals - the logfile header fields known only at the end,
 * patched into the header buffer by writer_finish().
 */
struct etl_totals {
	int64_t end_time;
	uint32_t buffers_written;
	uint32_t events_lost;
	uint32_t buffers_lost;
};

/** struct etl_buffer_info - the variable fields of one WMI_BUFFER_HEADER. */
struct etl_buffer_info {
	uint32_t buffer_size;
	uint32_t end;	    /* SavedOffset = CurrentOffset = Offset */
	uint64_t timestamp; /* flush time, session clock units */
	uint64_t sequence;  /* global flush order; 0 = header buffer */
	uint16_t cpu;	    /* ProcessorIndex */
	uint16_t logger_id;
	uint16_t flags; /* BufferFlag */
	uint16_t type;	/* BufferType */
};

/** etl_put_buffer_header - write the 0x48-byte WMI_BUFFER_HEADER at @buf. */
void etl_put_buffer_header(uint8_t *buf, const struct etl_buffer_info *bi);

/**
 * etl_utf16_units - the UTF-16 code units of the UTF-8 name @s (a character
 * beyond U+FFFF counts two), or -1 if @s is not well-formed UTF-8 (overlong
 * forms, surrogates, values above U+10FFFF): the header holds both names
 * as UTF-16.
 */
long etl_utf16_units(const char *s);

/**
 * etl_header_len - bytes the header buffer's two records take after the
 * buffer header (0x0000 record aligned to 8, then the 0x0005 record aligned
 * to 8), for names of @logger_chars and @logfile_chars UTF-16 units.
 */
size_t etl_header_len(enum etl_arch arch, size_t logger_chars, size_t logfile_chars);

/**
 * etl_header_encode - fill @buf (@o->buffer_size bytes, zeroed by the
 * caller) with the complete header buffer: WMI_BUFFER_HEADER, the 0x0000
 * logfile record with both names, the 0x0005 extension record. The totals
 * are zero until etl_header_set_totals(). @o holds resolved values (no
 * zero-means-default left), names are ASCII and fit (checked by the caller).
 */
void etl_header_encode(uint8_t *buf, const struct writer_opts *o);

/** etl_header_set_totals - patch EndTime, BuffersWritten, EventsLost, BuffersLost. */
void etl_header_set_totals(uint8_t *buf, enum etl_arch arch, const struct etl_totals *t);

#endif /* WRITER_ETL_HEADER_H */
