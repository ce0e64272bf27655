/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_reader.h - bounds-checked reader of any ETL file (ours and
 * Windows'): logfile header, buffer headers, records classified by their
 * Marker, PERFINFO extended items. The inverse of writer/; shared by
 * `etwforge dump`, `verify`, the tests and the fuzz target.
 *
 * Every length and offset is checked before use. A malformed file yields an
 * error `NAME: offset 0x...: what is wrong` in struct etl_error, never a
 * crash or an out-of-bounds read.
 */
#ifndef WRITER_ETL_READER_H
#define WRITER_ETL_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** struct etl_error - where and what; @msg is the full one-line message. */
struct etl_error {
	uint64_t offset;
	char msg[256];
	bool unopened; /* the path named nothing readable: `PATH: cannot open: REASON` */
};

/** enum etl_kind - record family from the Marker's header type. */
enum etl_kind {
	ETL_KIND_SYSTEM,       /* SYSTEM32/64 (0x20-byte header) */
	ETL_KIND_COMPACT,      /* COMPACT32/64 (0x18-byte header) */
	ETL_KIND_PERFINFO,     /* PERFINFO32/64 (0x10-byte header + ext items) */
	ETL_KIND_FULL,	       /* FULL_HEADER32/64 (EVENT_TRACE_HEADER) */
	ETL_KIND_INSTANCE,     /* INSTANCE32/64 */
	ETL_KIND_EVENT_HEADER, /* EVENT_HEADER32/64 */
	ETL_KIND_MESSAGE,      /* TRACE_MESSAGE (Marker top byte 0x90 or type 15) */
	ETL_KIND_OTHER,	       /* a valid size but an unclassified header type */
	ETL_KIND_COUNT,
};

/** etl_kind_name - "SYSTEM", "PERFINFO", ... */
const char *etl_kind_name(enum etl_kind k);

/** struct etl_logfile - the TRACE_LOGFILE_HEADER of buffer 0, record 0. */
struct etl_logfile {
	bool is64; /* SYSTEM64 header / PointerSize 8 */
	uint32_t buffer_size;
	uint32_t version;
	uint32_t provider_version;
	uint32_t number_of_processors;
	int64_t end_time;
	uint32_t timer_resolution;
	uint32_t maximum_file_size;
	uint32_t log_file_mode;
	uint32_t buffers_written;
	uint32_t start_buffers;
	uint32_t pointer_size;
	uint32_t events_lost;
	uint32_t cpu_speed_mhz;
	uint64_t timer_source_clock; /* LoggerName pointer slot */
	uint64_t timer_source_perf;  /* LogFileName pointer slot */
	int64_t boot_time;
	int64_t perf_freq;
	int64_t start_time;
	uint32_t reserved_flags; /* clock type */
	uint32_t buffers_lost;
	uint64_t header_system_time; /* SystemTime of the 0x0000 event */
	char logger_name[256];	     /* UTF-16LE converted to UTF-8 ("?" for non-ASCII) */
	char logfile_name[512];
};

/** struct etl_buffer - one WMI_BUFFER_HEADER. */
struct etl_buffer {
	unsigned index;	      /* position in the file, 0 = header buffer */
	uint64_t file_offset; /* of the buffer header */
	uint32_t buffer_size; /* on-disk size (compressed length if compressed) */
	uint32_t saved_offset;
	uint32_t current_offset;
	int64_t timestamp;
	int64_t sequence;
	uint16_t processor_index; /* masked with 0x7FF when PROC_INDEX is set */
	uint16_t logger_id;
	uint32_t state;
	uint32_t offset; /* Offset at 0x30 */
	uint16_t flag;
	uint16_t type;
	bool compressed;
	bool decompressed; /* XPRESS buffer decoded: its records are readable */
	uint32_t data_end; /* where records end: Offset, or SavedOffset when Offset is 0 */
	bool damaged;	   /* salvage: cut at the damage (data_end moved back to it) */
};

/** struct etl_record - one record inside a buffer. */
struct etl_record {
	uint64_t file_offset;
	const uint8_t *data; /* the whole record, @size bytes */
	uint16_t size;
	uint32_t marker;
	uint8_t header_type;
	enum etl_kind kind;
	bool is64;
	uint16_t cpu; /* ProcessorIndex of the buffer */
	/* SYSTEM, COMPACT and PERFINFO only: */
	uint16_t hook_id;
	uint8_t version; /* Marker low byte */
	uint64_t ts;	 /* SystemTime / TS */
	/* PERFINFO extended items: */
	bool has_pebs;
	uint64_t pebs_index;
	unsigned pmc_count;
	uint64_t pmc[7];
	const uint8_t *payload; /* after header and items */
	size_t payload_len;
};

struct etl_reader;

/*
 * Open flags. Without them any damage is an error and the file does not
 * open. With ETL_OPEN_SALVAGE only an unreadable header buffer is; damage
 * further on (a broken buffer header, a record that breaks the framing, a
 * compressed buffer that does not decompress) is recorded, and the file is
 * cut right before it: the damaged buffer keeps its records up to the
 * damage, later buffers are dropped. ETL_OPEN_KEEP_GOING (with SALVAGE)
 * drops only what is damaged and goes on with the next buffer (a broken
 * buffer header is skipped by the logfile's BufferSize).
 */
#define ETL_OPEN_SALVAGE    0x1u
#define ETL_OPEN_KEEP_GOING 0x2u

/**
 * struct etl_damage - one place where the file is damaged.
 * @buffer: the buffer's index in the file (as counted by the reader)
 * @err:    offset and one-line message, as an error would have said it
 */
struct etl_damage {
	unsigned buffer;
	struct etl_error err;
};

/**
 * etl_reader_open_mem - parse the logfile header and every buffer header of the
 * file image @data (borrowed; must outlive the reader). @name prefixes errors.
 * A file whose header buffer cannot be read is "not an ETL file" (the
 * message says so, with the reason).
 * Return: the reader, or NULL with @err filled (ENOMEM: errno set, err->msg too).
 */
struct etl_reader *etl_reader_open_mem(const uint8_t *data, size_t len, const char *name,
				       struct etl_error *err);

/** etl_reader_open_mem_flags - etl_reader_open_mem() with ETL_OPEN_* @flags. */
struct etl_reader *etl_reader_open_mem_flags(const uint8_t *data, size_t len, const char *name,
					     unsigned flags, struct etl_error *err);

/** etl_reader_open_file - mmap @path read-only and open it. Return: as _mem. */
struct etl_reader *etl_reader_open_file(const char *path, struct etl_error *err);

/**
 * etl_reader_open_file_flags - etl_reader_open_file() with ETL_OPEN_* @flags;
 * @path "-" reads standard input (into memory).
 */
struct etl_reader *etl_reader_open_file_flags(const char *path, unsigned flags,
					      struct etl_error *err);

/**
 * etl_reader_damage - the damage found by a ETL_OPEN_SALVAGE open, in file
 * order. Sets *@n (0 for an undamaged file).
 */
const struct etl_damage *etl_reader_damage(const struct etl_reader *d, unsigned *n);

/** etl_reader_close - unmap/free. NULL is a no-op. */
void etl_reader_close(struct etl_reader *d);

const struct etl_logfile *etl_reader_logfile(const struct etl_reader *d);
unsigned etl_reader_buffer_count(const struct etl_reader *d);
/** etl_reader_buffer - the @i-th buffer in file order. */
const struct etl_buffer *etl_reader_buffer(const struct etl_reader *d, unsigned i);
/**
 * etl_reader_cpu_order - file indices of the data buffers (not buffer 0, not
 * compressed ones we could not decompress) sorted by (ProcessorIndex,
 * SequenceNumber): the order in
 * which each CPU's records are in time order. Sets *@n.
 */
const unsigned *etl_reader_cpu_order(const struct etl_reader *d, unsigned *n);
/**
 * etl_reader_cpu_buffers - the run of etl_reader_cpu_order() that is @cpu's
 * buffers (in sequence order): its first entry, and *@n of them (0: none).
 */
const unsigned *etl_reader_cpu_buffers(const struct etl_reader *d, unsigned cpu, unsigned *n);
/** etl_reader_trailing_bytes - bytes in the file after the last counted buffer. */
uint64_t etl_reader_trailing_bytes(const struct etl_reader *d);
/** etl_reader_name - the name errors carry. */
const char *etl_reader_name(const struct etl_reader *d);

/**
 * etl_buffer_next - the record at *@pos of buffer @b (start with *@pos = 0);
 * advances *@pos past it, 8-byte aligned. A compressed buffer is read from
 * its decompressed image (XPRESS, plain LZ77); record offsets there count
 * from the buffer's file offset as if it were stored uncompressed. A buffer
 * in another compression format has no records.
 * Return: 1 record in *@rec, 0 end of data, -EINVAL malformed (@err filled).
 */
int etl_buffer_next(const struct etl_reader *d, const struct etl_buffer *b, size_t *pos,
		    struct etl_record *rec, struct etl_error *err);

/**
 * etl_buffer_next_careful - etl_buffer_next() without its fast path for the
 * common kernel headers: every check one at a time. The same results in
 * every case (tests/test_reader.c holds the two to each other).
 */
int etl_buffer_next_careful(const struct etl_reader *d, const struct etl_buffer *b, size_t *pos,
			    struct etl_record *rec, struct etl_error *err);

#endif /* WRITER_ETL_READER_H */
