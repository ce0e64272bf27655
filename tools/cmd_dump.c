/* SPDX-License-Identifier: MIT */
/*
 * tools/cmd_dump.c - `etwforge dump FILE.etl [--stats] [--jsonl] [--raw]`:
 * print any ETL file (etwforge's or Windows') as the reader in
 * tools/etl_reader.c sees it - logfile header, buffers, records with their
 * PERFINFO extended items and, for CSwitch / SpinLock / compact batches, the
 * decoded payload (producer/etw_encode.h decoders) - or count it (--stats).
 *
 * Order: the text listing follows the file, so it can be read next to a hex
 * dump; --jsonl follows buffer 0, then (ProcessorIndex, SequenceNumber), the
 * order in which each CPU's records are in time order, which is what tools
 * want. A malformed file stops the output with one error line on stderr and
 * exit status 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "producer/etw_encode.h"
#include "producer/etw_layout.h"
#include "writer/etl_wire.h"
#include "tools/commands.h"
#include "producer/ccswap_expand.h"
#include "tools/lib/dump_compact.h"
#include "writer/etl_reader.h"
#include "writer/etl_layout.h"

#define PROG "etwforge dump"

/* Offsets inside the non-kernel headers, for the summary fields we print. */
enum {
	EVH_FLAGS = 0x04,     /* EVENT_HEADER Flags u16 */
	EVH_THREAD_ID = 0x08, /* all of EVENT_HEADER, EVENT_TRACE_HEADER, INSTANCE */
	EVH_PROCESS_ID = 0x0C,
	EVH_TIMESTAMP = 0x10,
	EVH_GUID = 0x18,    /* ProviderId / Guid */
	EVH_DESC_ID = 0x28, /* EVENT_DESCRIPTOR: Id u16, Version, Channel, Level, Opcode */
	EVH_DESC_VERSION = 0x2A,
	EVH_DESC_LEVEL = 0x2C,
	EVH_DESC_OPCODE = 0x2D,
	ETH_CLASS_TYPE = 0x04, /* EVENT_TRACE_HEADER Class {Type, Level, Version u16} */
	ETH_CLASS_LEVEL = 0x05,
	ETH_CLASS_VERSION = 0x06,
};

#define FILETIME_UNIX_EPOCH 116444736000000000LL /* 1970-01-01 in 100 ns since 1601 */

struct dump_opts {
	bool stats;
	bool jsonl;
	bool raw;
	bool keep_going;
	int max_wait_reason; /* -1: from the file's ProviderVersion */
	const char *path;
};

static void help(FILE *f)
{
	fprintf(f,
		"usage: etwforge dump FILE.etl [--stats] [--jsonl] [--raw] [--keep-going]\n"
		"\n"
		"Read any ETL file (etwforge's or Windows') buffer by buffer and print it: the\n"
		"logfile header, one line per buffer and one line per record (kind, hook id,\n"
		"version, size, timestamp, PEBS/PMC extended items), with the payload decoded\n"
		"for CSwitch 0x0524 (v2/v4), SpinLock 0x0529 and compact CSwitch batches 0x0525:\n"
		"the batch header (first timestamp, TIDs, bytes of records), then every switch\n"
		"it records (form, time = FirstTimeStamp + running deltas, old thread, priority,\n"
		"state or wait reason, wait time) with its new thread taken from the next switch\n"
		"on that CPU, across batches (absent for the CPU's last switch).\n"
		"\n"
		"options:\n"
		"  --stats    print counts instead of the listing: buffers (total, per CPU,\n"
		"             compressed), records per kind (SYSTEM64, PERFINFO64, ...), per\n"
		"             (kind, hook id) for SYSTEM/COMPACT/PERFINFO, per CPU, records with\n"
		"             PEBS/PMC items, switches in compact batches by record form,\n"
		"             trailing bytes. With --jsonl: one JSON object.\n"
		"  --jsonl    one JSON object per line and nothing else on stdout: first the\n"
		"             file ({\"kind\":\"file\", logger name, clock type, perf frequency,\n"
		"             CPU speed, pointer size, CPUs, start/end/boot time, start_ts (the\n"
		"             session clock at StartTime), buffer size, buffers, events lost}),\n"
		"             then one per record; each switch of a compact batch follows its\n"
		"             batch as a \"CSWITCH_COMPACT\" object (batch number on its CPU,\n"
		"             index, form, fields)\n"
		"  --raw      hex + ASCII dump of every record after its line (with --jsonl:\n"
		"             a \"raw\" hex string in each object); not with --stats\n"
		"  --keep-going  on damage, skip the rest of the damaged buffer (one line on\n"
		"             stderr for each) and go on with the next buffer, to salvage what\n"
		"             is readable of a cut or corrupt file; the exit status is still 1\n"
		"  --max-wait-reason N  the producer's MaximumWaitReason, which splits a compact\n"
		"             record's OldThreadStateWr into state / wait reason (default: from\n"
		"             the ProviderVersion: 39 before 1709, 40, 43 from 22H2)\n"
		"  -h, --help this text\n"
		"\n"
		"Order: the text listing follows the file (buffers in file order), to be read\n"
		"next to a hex dump. --jsonl gives buffer 0 first, then each CPU's buffers in\n"
		"SequenceNumber order (CPU 0 first), so every CPU's records come in time order.\n"
		"Compressed buffers (BufferFlag 0x40, relogged files) are decompressed when the\n"
		"format is XPRESS (plain LZ77, MS-XCA; State 3 in buffer 0) and their records\n"
		"listed, with offsets counted as if the buffer were stored uncompressed; other\n"
		"formats are listed and counted, their records not decoded.\n"
		"\n"
		"FILE '-' reads standard input.\n"
		"\n"
		"exit status: 0 the file is valid, 1 it is malformed or unreadable: everything\n"
		"before the damage is printed, then one line on stderr, FILE: offset 0x...:\n"
		"what is wrong (\"not an ETL file\" with the reason when its header buffer\n"
		"cannot be read); 2 bad usage.\n");
}

/** usage_error - the one-line usage complaint: @what, then '@arg' if given. */
static int usage_error(const char *what, const char *arg)
{
	if (arg) {
		fprintf(stderr, PROG ": %s '%s' (try '" PROG " --help')\n", what, arg);
	} else {
		fprintf(stderr, PROG ": %s (try '" PROG " --help')\n", what);
	}
	return EXIT_USAGE;
}

/* ---- small formatting helpers ------------------------------------------- */

static const char *clock_name(uint32_t c)
{
	switch (c) {
	case 0:
		return "RAW";
	case ETL_CLOCK_QPC:
		return "QPC";
	case ETL_CLOCK_SYSTIME:
		return "SYSTEMTIME";
	case ETL_CLOCK_CYCLES:
		return "CPUCYCLE";
	default:
		return "unknown";
	}
}

static const char *timer_source_name(uint64_t v)
{
	/* HAL_PLATFORM_TIMER_SOURCE (KERNEL_FACTS 8.2). */
	static const char *const names[] = {
		"NotSpecified",
		"8254",
		"Rtc",
		"Acpi",
		"AcpiBroken",
		"Hpet",
		"ProcessorCounter",
		"HvReferenceTime",
		"Sfi",
		"Apic",
		"HvSynthetic",
		"Custom",
		"CycleCounter",
		"Git",
	};
	return v < sizeof(names) / sizeof(names[0]) ? names[v] : "unknown";
}

static const char *buffer_type_name(uint16_t t)
{
	static const char *const names[] = {
		"GENERIC", "RUNDOWN", "CTX_SWAP",     "REFTIME",
		"HEADER",  "BATCHED", "EMPTY_MARKER", "DBG_INFO",
	};
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "unknown";
}

/** append - add @s to the string in @out (@cap bytes), silently truncating. */
static void append(char *out, size_t cap, const char *s)
{
	size_t o = strlen(out);

	if (o + 1 < cap) {
		snprintf(out + o, cap - o, "%s", s);
	}
}

/** flag_names - "A|B|0x..." for the bits of @v named in @names (bit i = names[i]). */
static void flag_names(char *out, size_t cap, uint32_t v, const char *const *names, unsigned n)
{
	uint32_t rest = v;
	char hex[16];

	out[0] = '\0';
	for (unsigned i = 0; i < n && i < 32; i++) {
		uint32_t bit = 1u << i;

		if ((v & bit) && names[i]) {
			if (out[0]) {
				append(out, cap, "|");
			}
			append(out, cap, names[i]);
			rest &= ~bit;
		}
	}
	if (rest || v == 0) {
		snprintf(hex, sizeof(hex), "%s0x%" PRIx32, out[0] ? "|" : "", rest);
		append(out, cap, hex);
	}
}

static void buffer_flag_names(char *out, size_t cap, uint16_t flag)
{
	static const char *const names[] = {
		"FLUSH_MARKER", "EVENTS_LOST", "BUFFER_LOST", "RTBACKUP_CORRUPT",
		"RTBACKUP",     "PROC_INDEX",  "COMPRESSED",
	};
	flag_names(out, cap, flag, names, sizeof(names) / sizeof(names[0]));
}

static void log_file_mode_names(char *out, size_t cap, uint32_t mode)
{
	/* EVENT_TRACE_* logging modes, evntrace.h. */
	static const char *const names[32] = {
		[0] = "FILE_MODE_SEQUENTIAL",
		[1] = "FILE_MODE_CIRCULAR",
		[2] = "FILE_MODE_APPEND",
		[3] = "FILE_MODE_NEWFILE",
		[5] = "FILE_MODE_PREALLOCATE",
		[6] = "NONSTOPPABLE_MODE",
		[7] = "SECURE_MODE",
		[8] = "REAL_TIME_MODE",
		[9] = "DELAY_OPEN_FILE_MODE",
		[10] = "BUFFERING_MODE",
		[11] = "PRIVATE_LOGGER_MODE",
		[12] = "ADD_HEADER_MODE",
		[13] = "USE_KBYTES_FOR_SIZE",
		[14] = "USE_GLOBAL_SEQUENCE",
		[15] = "USE_LOCAL_SEQUENCE",
		[16] = "RELOG_MODE",
		[17] = "PRIVATE_IN_PROC",
		[20] = "MODE_RESERVED",
		[24] = "USE_PAGED_MEMORY",
		[25] = "SYSTEM_LOGGER_MODE",
		[26] = "COMPRESSED_MODE",
		[27] = "INDEPENDENT_SESSION_MODE",
		[28] = "NO_PER_PROCESSOR_BUFFERING",
		[29] = "BLOCKING_MODE",
		[31] = "ADDTO_TRIAGE_MODE",
	};
	flag_names(out, cap, mode, names, 32);
}

/** filetime_str - a FILETIME as "YYYY-MM-DD hh:mm:ss UTC", or "-" if zero/out of range. */
static void filetime_str(char *out, size_t cap, int64_t ft)
{
	struct tm tm;
	time_t t;

	if (ft <= 0) {
		snprintf(out, cap, "-");
		return;
	}
	t = (time_t)((ft - FILETIME_UNIX_EPOCH) / 10000000);
	if (!gmtime_r(&t, &tm) || !strftime(out, cap, "%Y-%m-%d %H:%M:%S UTC", &tm)) {
		snprintf(out, cap, "?");
	}
}

static void guid_str(char *out, size_t cap, const uint8_t *g)
{
	snprintf(out, cap, "{%08" PRIx32 "-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x}",
		 get_le32(g), get_le16(g + 4), get_le16(g + 6), g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
}

static void kind_label(char *out, size_t cap, const struct etl_record *r)
{
	if (r->kind == ETL_KIND_MESSAGE || r->kind == ETL_KIND_OTHER) {
		snprintf(out, cap, "%s", etl_kind_name(r->kind));
	} else {
		snprintf(out, cap, "%s%s", etl_kind_name(r->kind), r->is64 ? "64" : "32");
	}
}

static bool has_hook(const struct etl_record *r)
{
	return r->kind == ETL_KIND_SYSTEM || r->kind == ETL_KIND_COMPACT ||
	       r->kind == ETL_KIND_PERFINFO;
}

/** has_event_trace_header - FULL, INSTANCE, EVENT_HEADER: tid/pid/ts at 8/0xC/0x10. */
static bool has_event_trace_header(const struct etl_record *r)
{
	return r->kind == ETL_KIND_FULL || r->kind == ETL_KIND_INSTANCE ||
	       r->kind == ETL_KIND_EVENT_HEADER;
}

/* ---- JSON output ---------------------------------------------------------- */

/** utf8_len - length of the valid UTF-8 sequence at @s (of @n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0xC2 || s[0] > 0xF4) {
		return 0;
	}
	len = s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
	if (n < len) {
		return 0;
	}
	cp = s[0] & (0x7Fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			return 0;
		}
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
		return 0;
	}
	return len;
}

/** json_str - print @s as a JSON string: escapes, invalid UTF-8 as U+FFFD. */
static void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	fputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			i++;
		} else if (c < 0x20 || c == 0x7F) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			fputc(c, f);
			i++;
		} else {
			size_t l = utf8_len(p + i, n - i);

			if (l) {
				fwrite(p + i, 1, l, f);
				i += l;
			} else {
				fputs("\\ufffd", f);
				i++;
			}
		}
	}
	fputc('"', f);
}

/* ---- payload decoding ------------------------------------------------------ */

/** struct decoded - what the known-payload decoders made of one record. */
struct decoded {
	enum { DEC_NONE, DEC_CSWITCH, DEC_SPINLOCK, DEC_BATCH, DEC_SHORT } what;
	const char *name; /* for DEC_SHORT: which decoder refused */
	struct etw_cswitch cs;
	struct etw_spinlock sl;
	struct etw_ccswap_buffer cb;
	unsigned tids;
	size_t batch_bytes;
};

static void decode_payload(const struct etl_record *r, struct decoded *o)
{
	memset(o, 0, sizeof(*o));
	if (r->kind != ETL_KIND_PERFINFO) {
		return;
	}
	switch (r->hook_id) {
	case ETW_HOOK_CSWITCH:
		if (r->version != 2 && r->version != 4) {
			return;
		}
		o->what = etw_decode_cswitch(r->payload, r->payload_len, &o->cs) < 0 ? DEC_SHORT
										     : DEC_CSWITCH;
		o->name = "CSwitch";
		break;
	case ETW_HOOK_SPINLOCK:
		o->what = etw_decode_spinlock(r->payload, r->payload_len,
					      r->is64 ? ETL_ARCH_X64 : ETL_ARCH_X86, &o->sl) < 0
				  ? DEC_SHORT
				  : DEC_SPINLOCK;
		o->name = "SpinLock";
		break;
	case ETW_HOOK_CSWITCH_BATCH:
		o->name = "CSwitch batch";
		if (etw_decode_ccswap_buffer(r->payload, r->payload_len, &o->cb) < 0) {
			o->what = DEC_SHORT;
			break;
		}
		o->what = DEC_BATCH;
		for (unsigned i = 0; i < ETW_CCSWAP_MAX_TID; i++) {
			o->tids += o->cb.tid_table[i] != 0;
		}
		o->batch_bytes = r->payload_len - ETW_CCB_LEN;
		break;
	default:
		break;
	}
}

/* ---- text listing ---------------------------------------------------------- */

static void print_logfile(const struct etl_reader *d, const struct etl_record *r0)
{
	const struct etl_logfile *lf = etl_reader_logfile(d);
	char buf[1024], t1[64];
	const uint8_t v[4] = {(uint8_t)lf->version, (uint8_t)(lf->version >> 8),
			      (uint8_t)(lf->version >> 16), (uint8_t)(lf->version >> 24)};

	printf("file %s: %u buffers, %" PRIu64 " trailing bytes\n", etl_reader_name(d),
	       etl_reader_buffer_count(d), etl_reader_trailing_bytes(d));
	printf("logfile header: %s hook 0x0000 v%u Size %u at 0x%" PRIx64 ", ThreadId %" PRIu32
	       ", ProcessId %" PRIu32 ", SystemTime %" PRIu64 "\n",
	       lf->is64 ? "SYSTEM64" : "SYSTEM32", r0->version, r0->size, r0->file_offset,
	       get_le32(r0->data + ETL_SH_THREAD_ID), get_le32(r0->data + ETL_SH_PROCESS_ID),
	       lf->header_system_time);
	printf("  %-20s %" PRIu32 "\n", "BufferSize", lf->buffer_size);
	printf("  %-20s 0x%08" PRIx32 " (OS %u.%u, file layout %u.%u)\n", "Version", lf->version,
	       v[0], v[1], v[2], v[3]);
	printf("  %-20s %" PRIu32 " (OS build)\n", "ProviderVersion", lf->provider_version);
	printf("  %-20s %" PRIu32 "\n", "NumberOfProcessors", lf->number_of_processors);
	filetime_str(t1, sizeof(t1), lf->end_time);
	printf("  %-20s %" PRId64 " (%s)\n", "EndTime", lf->end_time, t1);
	printf("  %-20s %" PRIu32 " (100 ns units)\n", "TimerResolution", lf->timer_resolution);
	printf("  %-20s %" PRIu32 " (MB)\n", "MaximumFileSize", lf->maximum_file_size);
	log_file_mode_names(buf, sizeof(buf), lf->log_file_mode);
	printf("  %-20s 0x%08" PRIx32 " (%s)\n", "LogFileMode", lf->log_file_mode, buf);
	printf("  %-20s %" PRIu32 "\n", "BuffersWritten", lf->buffers_written);
	printf("  %-20s %" PRIu32 "\n", "StartBuffers", lf->start_buffers);
	printf("  %-20s %" PRIu32 "\n", "PointerSize", lf->pointer_size);
	printf("  %-20s %" PRIu32 "\n", "EventsLost", lf->events_lost);
	printf("  %-20s %" PRIu32 "\n", "CpuSpeedInMHz", lf->cpu_speed_mhz);
	printf("  %-20s %" PRIu64 " (LoggerName slot: clock timer source %s)\n", "TimerSourceClock",
	       lf->timer_source_clock, timer_source_name(lf->timer_source_clock));
	printf("  %-20s %" PRIu64 " (LogFileName slot: perf counter source %s)\n",
	       "TimerSourcePerf", lf->timer_source_perf, timer_source_name(lf->timer_source_perf));
	filetime_str(t1, sizeof(t1), lf->boot_time);
	printf("  %-20s %" PRId64 " (%s)\n", "BootTime", lf->boot_time, t1);
	printf("  %-20s %" PRId64 "\n", "PerfFreq", lf->perf_freq);
	filetime_str(t1, sizeof(t1), lf->start_time);
	printf("  %-20s %" PRId64 " (%s)\n", "StartTime", lf->start_time, t1);
	printf("  %-20s %" PRIu32 " (clock type %s)\n", "ReservedFlags", lf->reserved_flags,
	       clock_name(lf->reserved_flags));
	printf("  %-20s %" PRIu32 "\n", "BuffersLost", lf->buffers_lost);
	printf("  %-20s \"%s\"\n", "LoggerName", lf->logger_name);
	printf("  %-20s \"%s\"\n", "LogFileName", lf->logfile_name);
}

static void print_buffer(const struct etl_buffer *b)
{
	char flags[128];

	buffer_flag_names(flags, sizeof(flags), b->flag);
	printf("buffer %u @0x%" PRIx64 " size %" PRIu32 " cpu %u seq %" PRId64 " ts %" PRId64
	       " saved %" PRIu32 " offset %" PRIu32 " current %" PRIu32
	       " flags 0x%04x(%s) type %u(%s) state %" PRIu32 " logger %u%s\n",
	       b->index, b->file_offset, b->buffer_size, b->processor_index, b->sequence,
	       b->timestamp, b->saved_offset, b->offset, b->current_offset, b->flag, flags, b->type,
	       buffer_type_name(b->type), b->state, b->logger_id,
	       !b->compressed	 ? ""
	       : b->decompressed ? " compressed (XPRESS, decompressed)"
				 : " compressed: records not decoded");
}

static void print_raw(const struct etl_record *r)
{
	for (size_t i = 0; i < r->size; i += 16) {
		char ascii[17];
		size_t n = r->size - i < 16 ? r->size - i : 16;

		printf("      %04zx:", i);
		for (size_t j = 0; j < 16; j++) {
			if (j < n) {
				printf(" %02x", r->data[i + j]);
				ascii[j] = (r->data[i + j] >= 0x20 && r->data[i + j] < 0x7F)
						   ? (char)r->data[i + j]
						   : '.';
			} else {
				printf("   ");
			}
		}
		ascii[n] = '\0';
		printf("  |%s|\n", ascii);
	}
}

static void print_record(const struct etl_record *r, bool raw)
{
	char label[24], guid[48];
	struct decoded o;

	kind_label(label, sizeof(label), r);
	printf("  0x%08" PRIx64 " %-14s marker 0x%08" PRIx32, r->file_offset, label, r->marker);
	if (has_hook(r)) {
		printf(" hook 0x%04X v%u size %u ts %" PRIu64, r->hook_id, r->version, r->size,
		       r->ts);
		if (r->kind != ETL_KIND_PERFINFO) {
			printf(" tid %" PRIu32 " pid %" PRIu32,
			       get_le32(r->data + ETL_SH_THREAD_ID),
			       get_le32(r->data + ETL_SH_PROCESS_ID));
		}
	} else {
		printf(" size %u", r->size);
	}
	if (has_event_trace_header(r)) {
		guid_str(guid, sizeof(guid), r->data + EVH_GUID);
		printf(" ts %" PRIu64 " tid %" PRIu32 " pid %" PRIu32,
		       get_le64(r->data + EVH_TIMESTAMP), get_le32(r->data + EVH_THREAD_ID),
		       get_le32(r->data + EVH_PROCESS_ID));
		if (r->kind == ETL_KIND_EVENT_HEADER) {
			printf(" provider %s id %u v%u opcode %u level %u", guid,
			       get_le16(r->data + EVH_DESC_ID), r->data[EVH_DESC_VERSION],
			       r->data[EVH_DESC_OPCODE], r->data[EVH_DESC_LEVEL]);
		} else {
			printf(" guid %s type %u level %u v%u", guid, r->data[ETH_CLASS_TYPE],
			       r->data[ETH_CLASS_LEVEL], get_le16(r->data + ETH_CLASS_VERSION));
		}
	}
	if (r->has_pebs) {
		printf(" pebs_index 0x%" PRIx64, r->pebs_index);
	}
	if (r->pmc_count) {
		printf(" pmc");
		for (unsigned i = 0; i < r->pmc_count; i++) {
			printf("%c%" PRIu64, i ? ',' : '=', r->pmc[i]);
		}
	}
	decode_payload(r, &o);
	switch (o.what) {
	case DEC_CSWITCH:
		printf(" | CSwitch new_tid %" PRIu32 " old_tid %" PRIu32 " new_pri %d old_pri %d"
		       " prev_cstate %u new_pri_decrement %d old_wait_reason %u %s %u old_state %u"
		       " old_ideal_cpu %u new_wait_time %" PRIu32 " old_remaining_quantum %" PRId32,
		       o.cs.new_tid, o.cs.old_tid, o.cs.new_pri, o.cs.old_pri, o.cs.prev_cstate,
		       o.cs.new_pri_decrement, o.cs.old_wait_reason,
		       r->version >= 4 ? "flags" : "old_wait_mode", o.cs.wait_mode_or_flags,
		       o.cs.old_state, o.cs.old_ideal_cpu, o.cs.new_wait_time,
		       o.cs.old_remaining_quantum);
		break;
	case DEC_SPINLOCK:
		printf(" | SpinLock lock 0x%" PRIx64 " caller 0x%" PRIx64 " acquire_time %" PRIu64
		       " release_time %" PRIu64 " wait_cycles %" PRIu32 " spin_count %" PRIu32
		       " tid %" PRIu32 " interrupt_count %" PRIu32 " irql %u depth %u mode %u%s%s",
		       o.sl.lock_address, o.sl.caller_address, o.sl.acquire_time, o.sl.release_time,
		       o.sl.wait_cycles, o.sl.spin_count, o.sl.tid, o.sl.interrupt_count, o.sl.irql,
		       o.sl.depth, o.sl.acquire_mode, o.sl.execute_dpc ? " dpc" : "",
		       o.sl.execute_isr ? " isr" : "");
		break;
	case DEC_BATCH:
		printf(" | CSwitch batch first_ts %" PRId64 " tids %u records_bytes %zu",
		       o.cb.first_ts, o.tids, o.batch_bytes);
		break;
	case DEC_SHORT:
		printf(" | %s payload too short (%zu bytes)", o.name, r->payload_len);
		break;
	case DEC_NONE:
		break;
	}
	putchar('\n');
	if (raw) {
		print_raw(r);
	}
}

/* One switch of a batch, indented under it. */
static void print_compact(void *ctx, const struct dec_event *ev)
{
	const struct etw_cswitch_compact *c = &ev->u.cc;

	(void)ctx;
	printf("      0x%08" PRIx64 " #%u %-10s ts %" PRIu64 " old_tid %" PRIu32, ev->file_offset,
	       c->index, etw_ccswap_form_name(c->form), c->ts, c->old_tid);
	if (c->form == ETW_CCSWAP_LITE || c->form == ETW_CCSWAP_FULL) {
		printf(" old_pri %d old_state %u", c->old_pri, c->old_state);
		if (c->old_state == ETW_THREAD_STATE_WAITING) {
			printf(" old_wait_reason %u", c->old_wait_reason);
		}
		if (c->wait_le1) {
			printf(" new_wait_time <=1");
		} else {
			printf(" new_wait_time %" PRIu32, c->wait_time);
		}
	}
	if (ev->new_tid_known) {
		printf(" new_tid %" PRIu32, ev->new_tid);
	}
	putchar('\n');
}

/* One switch of a batch as a JSON object of its own. */
static void json_compact(void *ctx, const struct dec_event *ev)
{
	const struct etw_cswitch_compact *c = &ev->u.cc;
	const unsigned *buffer = ctx;

	printf("{\"buffer\":%u,\"cpu\":%u,\"offset\":%" PRIu64
	       ",\"kind\":\"CSWITCH_COMPACT\",\"batch\":%" PRIu64 ",\"batch_offset\":%" PRIu64
	       ",\"index\":%u,\"form\":\"%s\",\"ts\":%" PRIu64 ",\"delta\":%" PRIu32
	       ",\"old_tid\":%" PRIu32,
	       *buffer, ev->cpu, ev->file_offset, ev->batch, ev->rec.file_offset, c->index,
	       etw_ccswap_form_name(c->form), c->ts, c->delta, c->old_tid);
	if (c->form == ETW_CCSWAP_LITE || c->form == ETW_CCSWAP_FULL) {
		printf(",\"tid_index\":%u,\"old_pri\":%d,\"state_wr\":%u,\"old_state\":%u",
		       c->tid_index, c->old_pri, c->state_wr, c->old_state);
		if (c->old_state == ETW_THREAD_STATE_WAITING) {
			printf(",\"old_wait_reason\":%u", c->old_wait_reason);
		}
		if (c->wait_le1) {
			printf(",\"new_wait_le1\":true");
		} else {
			printf(",\"new_wait_time\":%" PRIu32, c->wait_time);
		}
	}
	if (ev->new_tid_known) {
		printf(",\"new_tid\":%" PRIu32, ev->new_tid);
	}
	printf("}\n");
}

static void print_error(const struct etl_error *err)
{
	fflush(stdout);
	fprintf(stderr, "%s\n", err->msg);
}

/*
 * The damage the salvaging open found, after what could be read: the one
 * error, or with --keep-going one line per damaged buffer. Return: EXIT_OK
 * for an undamaged file, else EXIT_DATA.
 */
static int report_damage(const struct etl_reader *d, bool keep_going)
{
	unsigned n, buffers = 0;
	const struct etl_damage *dmg = etl_reader_damage(d, &n);

	fflush(stdout);
	for (unsigned i = 0; i < n; i++) {
		if (!keep_going) {
			fprintf(stderr, "%s\n", dmg[i].err.msg); /* the first damage only */
			break;
		}
		if (i > 0 && dmg[i].buffer == dmg[i - 1].buffer) {
			continue; /* one line per buffer */
		}
		fprintf(stderr, "%s (buffer %u: the rest of it skipped)\n", dmg[i].err.msg,
			dmg[i].buffer);
		buffers++;
	}
	if (buffers) {
		fprintf(stderr, PROG ": %s: %u damaged buffer%s skipped\n", etl_reader_name(d),
			buffers, buffers == 1 ? "" : "s");
	}
	return n ? EXIT_DATA : EXIT_OK;
}

/*
 * A compact batch that does not decode: stop (the error is the last line),
 * or with --keep-going say so and go on. Return: true to stop.
 */
static bool batch_damage(const struct etl_error *err, bool keep_going, bool *damaged)
{
	*damaged = true;
	fflush(stdout);
	if (keep_going) {
		fprintf(stderr, "%s (batch skipped)\n", err->msg);
		return false;
	}
	fprintf(stderr, "%s\n", err->msg);
	return true;
}

static int dump_text(const struct etl_reader *d, bool raw, bool keep_going, struct dump_expander *x)
{
	struct etl_error err;
	struct etl_record r;
	bool damaged = false;

	for (unsigned i = 0; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		size_t pos = 0;
		int rc;

		if (i == 0) {
			/* Opening parsed it, so the first record is the logfile header. */
			rc = etl_buffer_next(d, b, &pos, &r, &err);
			if (rc <= 0) {
				print_error(&err);
				return EXIT_DATA;
			}
			print_logfile(d, &r);
			pos = 0;
		}
		print_buffer(b);
		while ((rc = etl_buffer_next(d, b, &pos, &r, &err)) > 0) {
			print_record(&r, raw);
			if (r.kind == ETL_KIND_PERFINFO && r.hook_id == ETW_HOOK_CSWITCH_BATCH &&
			    dump_expander_batch(x, &r, print_compact, NULL, &err) < 0 &&
			    batch_damage(&err, keep_going, &damaged)) {
				return EXIT_DATA;
			}
		}
		if (rc < 0) {
			print_error(&err);
			return EXIT_DATA;
		}
		if (ferror(stdout)) {
			return EXIT_DATA; /* main() says why */
		}
	}
	return report_damage(d, keep_going) == EXIT_OK && !damaged ? EXIT_OK : EXIT_DATA;
}

/* ---- JSON Lines ------------------------------------------------------------ */

static void json_record(const struct etl_record *r, unsigned buffer, bool raw)
{
	char label[24], guid[48];
	struct decoded o;

	kind_label(label, sizeof(label), r);
	printf("{\"buffer\":%u,\"cpu\":%u,\"offset\":%" PRIu64
	       ",\"kind\":\"%s\",\"marker\":\"0x%08" PRIx32 "\"",
	       buffer, r->cpu, r->file_offset, label, r->marker);
	if (has_hook(r)) {
		printf(",\"hook\":\"0x%04X\",\"version\":%u", r->hook_id, r->version);
	}
	printf(",\"size\":%u", r->size);
	if (has_hook(r)) {
		printf(",\"ts\":%" PRIu64, r->ts);
		if (r->kind != ETL_KIND_PERFINFO) {
			printf(",\"tid\":%" PRIu32 ",\"pid\":%" PRIu32,
			       get_le32(r->data + ETL_SH_THREAD_ID),
			       get_le32(r->data + ETL_SH_PROCESS_ID));
		}
	}
	if (has_event_trace_header(r)) {
		guid_str(guid, sizeof(guid), r->data + EVH_GUID);
		printf(",\"ts\":%" PRIu64 ",\"tid\":%" PRIu32 ",\"pid\":%" PRIu32,
		       get_le64(r->data + EVH_TIMESTAMP), get_le32(r->data + EVH_THREAD_ID),
		       get_le32(r->data + EVH_PROCESS_ID));
		if (r->kind == ETL_KIND_EVENT_HEADER) {
			printf(",\"provider\":\"%s\",\"event_id\":%u,\"event_version\":%u,"
			       "\"opcode\":%u,\"level\":%u",
			       guid, get_le16(r->data + EVH_DESC_ID), r->data[EVH_DESC_VERSION],
			       r->data[EVH_DESC_OPCODE], r->data[EVH_DESC_LEVEL]);
		} else {
			printf(",\"guid\":\"%s\",\"class_type\":%u,\"class_level\":%u,"
			       "\"class_version\":%u",
			       guid, r->data[ETH_CLASS_TYPE], r->data[ETH_CLASS_LEVEL],
			       get_le16(r->data + ETH_CLASS_VERSION));
		}
	}
	if (r->has_pebs) {
		printf(",\"pebs_index\":%" PRIu64, r->pebs_index);
	}
	if (r->pmc_count) {
		printf(",\"pmc\":[");
		for (unsigned i = 0; i < r->pmc_count; i++) {
			printf("%s%" PRIu64, i ? "," : "", r->pmc[i]);
		}
		putchar(']');
	}
	decode_payload(r, &o);
	switch (o.what) {
	case DEC_CSWITCH:
		printf(",\"new_tid\":%" PRIu32 ",\"old_tid\":%" PRIu32 ",\"new_pri\":%d,"
		       "\"old_pri\":%d,\"prev_cstate\":%u,\"new_pri_decrement\":%d,"
		       "\"old_wait_reason\":%u,\"old_state\":%u,\"old_ideal_cpu\":%u,"
		       "\"new_wait_time\":%" PRIu32 ",\"old_remaining_quantum\":%" PRId32,
		       o.cs.new_tid, o.cs.old_tid, o.cs.new_pri, o.cs.old_pri, o.cs.prev_cstate,
		       o.cs.new_pri_decrement, o.cs.old_wait_reason, o.cs.old_state,
		       o.cs.old_ideal_cpu, o.cs.new_wait_time, o.cs.old_remaining_quantum);
		if (r->version >= 4) {
			uint8_t fl = o.cs.wait_mode_or_flags;

			printf(",\"flags\":%u,\"old_wait_mode\":%u,\"old_qos\":%u,\"new_qos\":%u",
			       fl, FIELD_GET(ETW_CS4_WAIT_MODE, fl), FIELD_GET(ETW_CS4_OLD_QOS, fl),
			       FIELD_GET(ETW_CS4_NEW_QOS, fl));
		} else {
			printf(",\"old_wait_mode\":%u", o.cs.wait_mode_or_flags);
		}
		break;
	case DEC_SPINLOCK:
		printf(",\"lock\":\"0x%" PRIx64 "\",\"caller\":\"0x%" PRIx64
		       "\",\"acquire_time\":%" PRIu64 ",\"release_time\":%" PRIu64
		       ",\"wait_cycles\":%" PRIu32 ",\"spin_count\":%" PRIu32 ",\"tid\":%" PRIu32
		       ",\"interrupt_count\":%" PRIu32
		       ",\"irql\":%u,\"depth\":%u,\"mode\":%u,\"dpc\":%s,\"isr\":%s",
		       o.sl.lock_address, o.sl.caller_address, o.sl.acquire_time, o.sl.release_time,
		       o.sl.wait_cycles, o.sl.spin_count, o.sl.tid, o.sl.interrupt_count, o.sl.irql,
		       o.sl.depth, o.sl.acquire_mode, o.sl.execute_dpc ? "true" : "false",
		       o.sl.execute_isr ? "true" : "false");
		break;
	case DEC_BATCH:
		printf(",\"first_ts\":%" PRId64 ",\"tids\":%u,\"records_bytes\":%zu", o.cb.first_ts,
		       o.tids, o.batch_bytes);
		break;
	case DEC_SHORT:
		printf(",\"decode_error\":\"%s payload too short\"", o.name);
		break;
	case DEC_NONE:
		break;
	}
	if (raw) {
		printf(",\"raw\":\"");
		for (size_t i = 0; i < r->size; i++) {
			printf("%02x", r->data[i]);
		}
		putchar('"');
	}
	printf("}\n");
}

static int json_buffer(const struct etl_reader *d, unsigned i, bool raw, bool keep_going,
		       bool *damaged, struct dump_expander *x)
{
	const struct etl_buffer *b = etl_reader_buffer(d, i);
	unsigned index = b->index; /* its place in the file */
	struct etl_error err;
	struct etl_record r;
	size_t pos = 0;
	int rc;

	while ((rc = etl_buffer_next(d, b, &pos, &r, &err)) > 0) {
		json_record(&r, index, raw);
		if (r.kind == ETL_KIND_PERFINFO && r.hook_id == ETW_HOOK_CSWITCH_BATCH &&
		    dump_expander_batch(x, &r, json_compact, &index, &err) < 0 &&
		    batch_damage(&err, keep_going, damaged)) {
			return EXIT_DATA;
		}
	}
	if (rc < 0) {
		print_error(&err);
		return EXIT_DATA;
	}
	return ferror(stdout) ? EXIT_DATA : EXIT_OK;
}

/* The truth schema's name of a clock type ("qpc", "systime", "cycles"). */
static const char *clock_key(uint32_t c)
{
	switch (c) {
	case ETL_CLOCK_QPC:
		return "qpc";
	case ETL_CLOCK_SYSTIME:
		return "systime";
	case ETL_CLOCK_CYCLES:
		return "cycles";
	default:
		return "unknown";
	}
}

/* The first --jsonl object: what a program needs to read the rest. */
static void json_file(const struct etl_reader *d)
{
	const struct etl_logfile *lf = etl_reader_logfile(d);

	printf("{\"kind\":\"file\",\"format\":\"etwforge-dump\",\"version\":1,\"file\":");
	json_str(stdout, etl_reader_name(d));
	printf(",\"logger_name\":");
	json_str(stdout, lf->logger_name);
	printf(",\"logfile_name\":");
	json_str(stdout, lf->logfile_name);
	printf(",\"clock_type\":%" PRIu32 ",\"clock\":\"%s\",\"perf_freq\":%" PRId64
	       ",\"cpu_mhz\":%" PRIu32 ",\"pointer_size\":%" PRIu32 ",\"cpus\":%" PRIu32
	       ",\"start_time\":%" PRId64 ",\"end_time\":%" PRId64 ",\"boot_time\":%" PRId64
	       ",\"start_ts\":%" PRIu64 ",\"timer_resolution\":%" PRIu32
	       ",\"buffer_size\":%" PRIu32 ",\"buffers\":%" PRIu32 ",\"events_lost\":%" PRIu32
	       ",\"buffers_lost\":%" PRIu32 ",\"provider_version\":%" PRIu32
	       ",\"log_file_mode\":%" PRIu32 "}\n",
	       lf->reserved_flags, clock_key(lf->reserved_flags), lf->perf_freq, lf->cpu_speed_mhz,
	       lf->pointer_size, lf->number_of_processors, lf->start_time, lf->end_time,
	       lf->boot_time, lf->header_system_time, lf->timer_resolution, lf->buffer_size,
	       lf->buffers_written, lf->events_lost, lf->buffers_lost, lf->provider_version,
	       lf->log_file_mode);
}

static int dump_jsonl(const struct etl_reader *d, bool raw, bool keep_going, struct dump_expander *x)
{
	const unsigned *order;
	bool damaged = false;
	unsigned n;

	json_file(d);
	if (json_buffer(d, 0, raw, keep_going, &damaged, x) != EXIT_OK) {
		return EXIT_DATA;
	}
	order = etl_reader_cpu_order(d, &n);
	for (unsigned k = 0; k < n; k++) {
		if (json_buffer(d, order[k], raw, keep_going, &damaged, x) != EXIT_OK) {
			return EXIT_DATA;
		}
	}
	return report_damage(d, keep_going) == EXIT_OK && !damaged ? EXIT_OK : EXIT_DATA;
}

/* ---- --stats ---------------------------------------------------------------- */

#define NCPU_SLOTS (ETL_PROCESSOR_INDEX_MASK + 1u)

/** struct stats - counts over every buffer and record of the file. */
struct stats {
	uint64_t buffers, compressed, records, pebs, pmc;
	uint64_t compact[4]; /* switches in 0x0525 batches, by record form */
	uint64_t buf_cpu[NCPU_SLOTS];
	uint64_t rec_cpu[NCPU_SLOTS];
	uint64_t kind[ETL_KIND_COUNT][2];
	uint64_t *hook; /* [3 hooked kinds][2][65536] */
};

static unsigned hooked_index(enum etl_kind k)
{
	return k == ETL_KIND_SYSTEM ? 0u : k == ETL_KIND_COMPACT ? 1u : 2u;
}

static uint64_t *hook_slot(struct stats *s, unsigned hk, unsigned is64, unsigned hook)
{
	return &s->hook[((size_t)hk * 2u + is64) * 65536u + hook];
}

/* Count the switches of one batch by form (the bias does not matter here). */
static int count_compact(const struct etl_reader *d, const struct etl_record *r, struct stats *s,
			 struct etl_error *err)
{
	struct etw_ccswap_iter it;
	struct etw_cswitch_compact c;
	size_t bad = 0;
	int rc;

	if (etw_ccswap_expand_begin(&it, r->payload, r->payload_len, 40) < 0) {
		return 0; /* the listing reports the short payload; nothing to count */
	}
	while ((rc = etw_ccswap_expand_next(&it, &c, &bad)) > 0) {
		s->compact[c.form]++;
	}
	if (rc < 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "%s: offset 0x%" PRIx64 ": compact CSwitch record runs past the batch or "
			 "names an empty TidTable slot",
			 etl_reader_name(d), r->file_offset + (uint64_t)(r->payload - r->data) + bad);
		return -EINVAL;
	}
	return 0;
}

static int collect(const struct etl_reader *d, struct stats *s)
{
	struct etl_error err;
	struct etl_record r;

	for (unsigned i = 0; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		size_t pos = 0;
		int rc;

		s->buffers++;
		s->buf_cpu[b->processor_index]++;
		s->compressed += b->compressed;
		while ((rc = etl_buffer_next(d, b, &pos, &r, &err)) > 0) {
			s->records++;
			s->rec_cpu[r.cpu]++;
			s->kind[r.kind][r.is64]++;
			s->pebs += r.has_pebs;
			s->pmc += r.pmc_count != 0;
			if (has_hook(&r)) {
				(*hook_slot(s, hooked_index(r.kind), r.is64, r.hook_id))++;
			}
			if (r.kind == ETL_KIND_PERFINFO && r.hook_id == ETW_HOOK_CSWITCH_BATCH &&
			    count_compact(d, &r, s, &err) < 0) {
				print_error(&err);
				return EXIT_DATA;
			}
		}
		if (rc < 0) {
			print_error(&err);
			return EXIT_DATA;
		}
	}
	return EXIT_OK;
}

static const enum etl_kind hooked_kinds[3] = {ETL_KIND_SYSTEM, ETL_KIND_COMPACT, ETL_KIND_PERFINFO};

static void stats_label(char *out, size_t cap, enum etl_kind k, unsigned is64)
{
	if (k == ETL_KIND_MESSAGE || k == ETL_KIND_OTHER) {
		snprintf(out, cap, "%s", etl_kind_name(k));
	} else {
		snprintf(out, cap, "%s%s", etl_kind_name(k), is64 ? "64" : "32");
	}
}

static void stats_text(const struct etl_reader *d, const struct stats *s)
{
	char label[24];

	printf("%-28s %s\n", "file", etl_reader_name(d));
	printf("%-28s %12" PRIu64 "\n", "buffers", s->buffers);
	printf("  %-26s %12" PRIu64 "\n", "compressed", s->compressed);
	for (unsigned c = 0; c < NCPU_SLOTS; c++) {
		if (s->buf_cpu[c]) {
			printf("  cpu %-22u %12" PRIu64 "\n", c, s->buf_cpu[c]);
		}
	}
	printf("%-28s %12" PRIu64 "\n", "records", s->records);
	for (unsigned k = 0; k < ETL_KIND_COUNT; k++) {
		for (unsigned w = 0; w < 2; w++) {
			if (s->kind[k][w]) {
				stats_label(label, sizeof(label), (enum etl_kind)k, w);
				printf("  %-26s %12" PRIu64 "\n", label, s->kind[k][w]);
			}
		}
	}
	printf("records per hook\n");
	for (unsigned hk = 0; hk < 3; hk++) {
		for (unsigned w = 0; w < 2; w++) {
			stats_label(label, sizeof(label), hooked_kinds[hk], w);
			for (unsigned h = 0; h < 65536; h++) {
				uint64_t n = s->hook[((size_t)hk * 2u + w) * 65536u + h];

				if (n) {
					printf("  %-16s 0x%04X    %12" PRIu64 "\n", label, h, n);
				}
			}
		}
	}
	printf("records per cpu\n");
	for (unsigned c = 0; c < NCPU_SLOTS; c++) {
		if (s->rec_cpu[c]) {
			printf("  cpu %-22u %12" PRIu64 "\n", c, s->rec_cpu[c]);
		}
	}
	uint64_t nc = s->compact[0] + s->compact[1] + s->compact[2] + s->compact[3];
	if (nc) {
		printf("%-28s %12" PRIu64 "\n", "compact switches", nc);
		for (unsigned f = 0; f < 4; f++) {
			printf("  %-26s %12" PRIu64 "\n",
			       etw_ccswap_form_name((enum etw_ccswap_type)f), s->compact[f]);
		}
	}
	printf("%-28s %12" PRIu64 "\n", "with PEBS item", s->pebs);
	printf("%-28s %12" PRIu64 "\n", "with PMC items", s->pmc);
	printf("%-28s %12" PRIu64 "\n", "trailing bytes", etl_reader_trailing_bytes(d));
}

static void json_cpu_map(const uint64_t *v)
{
	bool first = true;

	putchar('{');
	for (unsigned c = 0; c < NCPU_SLOTS; c++) {
		if (v[c]) {
			printf("%s\"%u\":%" PRIu64, first ? "" : ",", c, v[c]);
			first = false;
		}
	}
	putchar('}');
}

static void stats_json(const struct etl_reader *d, const struct stats *s)
{
	char label[24];
	bool first = true;

	printf("{\"file\":");
	json_str(stdout, etl_reader_name(d));
	printf(",\"buffers\":{\"total\":%" PRIu64 ",\"compressed\":%" PRIu64 ",\"per_cpu\":",
	       s->buffers, s->compressed);
	json_cpu_map(s->buf_cpu);
	printf("},\"records\":{\"total\":%" PRIu64 ",\"by_kind\":{", s->records);
	for (unsigned k = 0; k < ETL_KIND_COUNT; k++) {
		for (unsigned w = 0; w < 2; w++) {
			if (s->kind[k][w]) {
				stats_label(label, sizeof(label), (enum etl_kind)k, w);
				printf("%s\"%s\":%" PRIu64, first ? "" : ",", label, s->kind[k][w]);
				first = false;
			}
		}
	}
	printf("},\"by_hook\":{");
	first = true;
	for (unsigned hk = 0; hk < 3; hk++) {
		for (unsigned w = 0; w < 2; w++) {
			bool inner = true;

			if (!s->kind[hooked_kinds[hk]][w]) {
				continue;
			}
			stats_label(label, sizeof(label), hooked_kinds[hk], w);
			printf("%s\"%s\":{", first ? "" : ",", label);
			first = false;
			for (unsigned h = 0; h < 65536; h++) {
				uint64_t n = s->hook[((size_t)hk * 2u + w) * 65536u + h];

				if (n) {
					printf("%s\"0x%04X\":%" PRIu64, inner ? "" : ",", h, n);
					inner = false;
				}
			}
			putchar('}');
		}
	}
	printf("},\"per_cpu\":");
	json_cpu_map(s->rec_cpu);
	printf("},\"compact_switches\":{\"idle_short\":%" PRIu64 ",\"idle\":%" PRIu64
	       ",\"lite\":%" PRIu64 ",\"full\":%" PRIu64 "}",
	       s->compact[0], s->compact[1], s->compact[2], s->compact[3]);
	printf(",\"with_pebs\":%" PRIu64 ",\"with_pmc\":%" PRIu64 ",\"trailing_bytes\":%" PRIu64
	       "}\n",
	       s->pebs, s->pmc, etl_reader_trailing_bytes(d));
}

static int dump_stats(const struct etl_reader *d, bool json)
{
	struct stats *s = calloc(1, sizeof(*s));
	int rc;

	if (!s || !(s->hook = calloc(3u * 2u * 65536u, sizeof(*s->hook)))) {
		free(s);
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_DATA;
	}
	rc = collect(d, s);
	if (rc == EXIT_OK) {
		if (json) {
			stats_json(d, s);
		} else {
			stats_text(d, s);
		}
	}
	free(s->hook);
	free(s);
	return rc;
}

/* ---- entry point ------------------------------------------------------------ */

int cmd_dump(int argc, char **argv)
{
	struct dump_opts o = {.max_wait_reason = -1};
	struct dump_expander *x = NULL;
	struct etl_error err;
	struct etl_reader *d;
	bool options_done = false;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!options_done && a[0] == '-' && a[1] != '\0') {
			if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
				help(stdout);
				return EXIT_OK;
			} else if (!strcmp(a, "--stats")) {
				o.stats = true;
			} else if (!strcmp(a, "--jsonl")) {
				o.jsonl = true;
			} else if (!strcmp(a, "--raw")) {
				o.raw = true;
			} else if (!strcmp(a, "--keep-going")) {
				o.keep_going = true;
			} else if (!strcmp(a, "--max-wait-reason")) {
				char *end = NULL;
				long v = i + 1 < argc ? strtol(argv[i + 1], &end, 0) : -1;

				if (!end || *end || v < 1 || v > 63) {
					return usage_error("--max-wait-reason needs a number 1..63",
							   i + 1 < argc ? argv[i + 1] : NULL);
				}
				o.max_wait_reason = (int)v;
				i++;
			} else if (!strcmp(a, "--")) {
				options_done = true;
			} else {
				return usage_error("unknown option", a);
			}
		} else if (o.path) {
			return usage_error("one FILE only, got another", a);
		} else {
			o.path = a;
		}
	}
	if (!o.path) {
		return usage_error("missing FILE.etl", NULL);
	}
	if (o.stats && o.raw) {
		return usage_error("--raw does not combine with --stats", NULL);
	}
	d = etl_reader_open_file_flags(
		o.path, ETL_OPEN_SALVAGE | (o.keep_going ? ETL_OPEN_KEEP_GOING : 0u), &err);
	if (!d) {
		fprintf(stderr, "%s\n", err.msg);
		return EXIT_DATA;
	}
	if (!o.stats) {
		uint8_t mwr = o.max_wait_reason > 0
				      ? (uint8_t)o.max_wait_reason
				      : etw_target_max_wait_reason(etl_reader_logfile(d)->provider_version);

		x = dump_expander_create(d, mwr);
		if (!x) {
			fprintf(stderr, PROG ": out of memory\n");
			etl_reader_close(d);
			return EXIT_DATA;
		}
	}
	if (o.stats) {
		rc = dump_stats(d, o.jsonl);
		if (report_damage(d, o.keep_going) != EXIT_OK) {
			rc = EXIT_DATA;
		}
	} else if (o.jsonl) {
		rc = dump_jsonl(d, o.raw, o.keep_going, x);
	} else {
		rc = dump_text(d, o.raw, o.keep_going, x);
	}
	dump_expander_destroy(x);
	etl_reader_close(d);
	return rc; /* main() checks standard output */
}
