// SPDX-License-Identifier: MIT
/*
 * tools/cli/cmd_dump.c - `etwforge dump FILE.etl [--stats] [--jsonl] [--raw]`:
 * print any ETL file (etwforge's or Windows') as the library reads it -
 * logfile header, buffers, records with their PERFINFO extended items and,
 * for CSwitch / SpinLock / compact batches, the decoded payload - or count
 * it (--stats, printed by dump_stats.c), or draw its schedule (--timeline,
 * --chrome-trace: dump_draw.c).
 *
 * Order: the text listing follows the file, so it can be read next to a hex
 * dump; --jsonl follows buffer 0, then (ProcessorIndex, SequenceNumber), the
 * order in which each CPU's records are in time order, which is what tools
 * want. Damage: everything before it is printed, then one error line
 * (exit 1); --keep-going skips the rest of a damaged buffer and goes on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "dump.h"

#define PROG		    "etwforge dump"
#define SCHED_CPU_BITS	    65536		 /* ProcessorIndex is 16 bits */
#define FILETIME_UNIX_EPOCH 116444736000000000LL /* 1970-01-01 in 100 ns since 1601 */

struct dump_opts {
	struct draw_opts draw;
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
		"       etwforge dump FILE.etl [--timeline OUT.svg] [--chrome-trace OUT.json]\n"
		"                     [--flamegraph OUT.svg] [--folded OUT.txt] [--symbols DIR]\n"
		"                     [--from T] [--to T] [--cpus LIST] [--keep-going]\n"
		"\n"
		"Read any ETL file (etwforge's or Windows') buffer by buffer and print it: the\n"
		"logfile header, one line per buffer and one line per record (kind, hook id,\n"
		"version, size, timestamp, PEBS/PMC extended items), with the payload decoded\n"
		"for CSwitch 0x0524 (v2/v4), SpinLock 0x0529 and compact CSwitch batches 0x0525:\n"
		"the batch header (first timestamp, TIDs, bytes of records), then every switch\n"
		"it records (form, time = FirstTimeStamp + running deltas, old thread, priority,\n"
		"state or wait reason, wait time) with its new thread taken from the next switch\n"
		"on that CPU, across batches (absent for the CPU's last switch); and the\n"
		"identity records (processes, threads, samples, rundown), images, stack walks,\n"
		"stack keys and the image identities a merge adds (see etwforge(1)).\n"
		"\n"
		"options:\n"
		"  --stats    print counts instead of the listing: buffers (total, per CPU,\n"
		"             compressed), records per kind (SYSTEM64, PERFINFO64, ...), per\n"
		"             (kind, hook id) for SYSTEM/COMPACT/PERFINFO, per CPU, records with\n"
		"             PEBS/PMC items, switches in compact batches by record form,\n"
		"             trailing bytes; processes (distinct PIDs of Process records),\n"
		"             threads (distinct TIDs of Thread records), ReadyThread and\n"
		"             SampledProfile events, switches to a thread (TID not 0)\n"
		"             attributed (a Thread record of the file names the TID) or\n"
		"             unattributed. With --jsonl: one JSON object.\n"
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
		"             the ProviderVersion: 39 before 1709, 40, 43 from 22H2)\n");
	fprintf(f,
		"  --timeline OUT.svg  draw the schedule instead of the listing: one lane per\n"
		"             CPU, a colour per thread (a fixed hash of its TID, the same in\n"
		"             every picture), idle blank, batch flushes as ticks under the\n"
		"             lanes coloured by their inferred reason, logged spin-lock releases\n"
		"             as marks above them (contended, hold, sampled; bars, log2 of the\n"
		"             count, where marks would fill a lane), time in ms since the\n"
		"             session start; where slices are narrower than 2 pixels each\n"
		"             pixel column shows its dominant thread, shaded by utilisation;\n"
		"             when the file has Process and Thread records, threads are named\n"
		"             \"process!thread TID\" from them and coloured by process, a\n"
		"             legend lists the processes and threads that ran with their share\n"
		"             of the CPU time, and wake-ups (ReadyThread to the next switch-in)\n"
		"             are arrows when at most 200 are in the window\n"
		"  --chrome-trace OUT.json  write the schedule as Chrome trace-event JSON (for\n"
		"             Perfetto's UI or chrome://tracing): a track per CPU, a complete\n"
		"             event per thread slice a switch opened (idle left out), instant\n"
		"             events for batch flushes and spin-lock events; with Process and\n"
		"             Thread records also a track per thread in its process and the\n"
		"             wake-ups as flow events\n"
		"  --flamegraph OUT.svg  draw the sampled stacks as a flame graph: a box per\n"
		"             frame as wide as its share of the samples, callees above their\n"
		"             callers, the whole trace by process (the idle thread's too),\n"
		"             then each busy process on its own; a frame is named\n"
		"             module!function (module!? without a symbol file, ? in no image,\n"
		"             by the file's Image records); a sample without a stack is its\n"
		"             instruction pointer alone\n"
		"  --folded OUT.txt  the same as folded stacks, the text flame graph tools\n"
		"             read: \"process;outer;...;inner count\" a line\n"
		"  --symbols DIR  a Breakpad symbol store (DIR/PDB/GUIDAGE/NAME.sym, as\n"
		"             symbol servers lay them out) naming the functions of the\n"
		"             images whose PDB the file identifies (a merged trace), or\n"
		"             whose PDB, named after the image, it holds in one version\n"
		"  --truth T.jsonl  name the threads in the pictures by their scenario group\n"
		"             (\"ui 4100\"), from the truth gen wrote with the file (another\n"
		"             run's truth is refused: it would name the wrong threads); it\n"
		"             wins over the names of the file's own Thread records\n"
		"  --from T   draw from T after the session start (a duration: 250us, 1.5s)\n"
		"  --to T     draw up to T after the session start (default: the end)\n"
		"  --cpus LIST  the CPUs to draw, e.g. 0-3,8 (default: all)\n"
		"  -h, --help this text\n");
	fprintf(f, "\n"
		   "Pictures: --timeline, --chrome-trace, --flamegraph and --folded may be given\n"
		   "together (one pass over the file; two names for one file, or the input, are\n"
		   "refused) and follow the output rules: written under a temporary name,\n"
		   "renamed when complete, '-' is stdout. Flush reasons are inferred, as the file "
		   "does not store them: TID\n"
		   "table full (16 TIDs and the next batch starts with a thread not among them),\n"
		   "ticks (the batch spans more than 500 ticks of TimerResolution), size\n"
		   "(records + 0x70 > 0x400), delta (more than 0x40000000 clock units since the\n"
		   "previous switch), end (the header time is the end of tracing), else unknown\n"
		   "(the stop flag, lost events). Spin-lock kinds use the default thresholds:\n"
		   "hold when held more than 1000000 cycles, contended when SpinCount >= 1, else\n"
		   "sampled.\n"
		   "A damaged file is not drawn unless --keep-going (then exit status 1).\n");
	fprintf(f,
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
		"exit status: 0 the file is valid, 1 it is malformed: everything before the\n"
		"damage is printed, then one line on stderr, FILE: offset 0x...: what is wrong\n"
		"(\"not an ETL file\" with the reason when its header buffer cannot be read);\n"
		"2 bad usage, or FILE cannot be opened (FILE: cannot open: REASON).\n");
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
	case 1:
		return "QPC";
	case 2:
		return "SYSTEMTIME";
	case 3:
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
		"RTBACKUP",	"PROC_INDEX",  "COMPRESSED",
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

static void kind_line(const struct etwforge_record *r, char *label, size_t cap)
{
	snprintf(label, cap, "%s", r->kind);
}

static void print_raw(const struct etwforge_record *r)
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

static const char *or_null(const char *s)
{
	return s ? s : "(none)";
}

/* A stack's frames, innermost first. */
static void print_frames(const uint64_t *f, size_t n)
{
	printf(" frames %zu", n);
	for (size_t i = 0; i < n; i++) {
		printf("%s0x%" PRIx64, i ? "," : " ", f[i]);
	}
}

/* The identity, image and stack records: their main fields (--jsonl has every one). */
static void print_identity(const struct etwforge_record *r)
{
	switch (r->decoded) {
	case ETWFORGE_PAYLOAD_PROCESS: {
		const struct etwforge_process *p = &r->u.process;

		if (r->hook == 0x030B) {
			printf(" | Process %s pid %" PRIu32, p->event, p->pid);
			break;
		}
		printf(" | Process %s pid %" PRIu32 " ppid %" PRIu32 " session %" PRId32
		       " exit_status %" PRId32 " flags 0x%" PRIx32 " sid %s image \"%s\"",
		       p->event, p->pid, p->ppid, (int32_t)p->session, p->exit_status, p->flags,
		       or_null(p->sid), p->image);
		break;
	}
	case ETWFORGE_PAYLOAD_THREAD: {
		const struct etwforge_thread *t = &r->u.thread;

		printf(" | Thread %s pid %" PRIu32 " tid %" PRIu32 " base_pri %d page_pri %u"
		       " io_pri %u flags 0x%x win32_start 0x%" PRIx64,
		       t->event, t->pid, t->tid, t->base_pri, t->page_pri, t->io_pri, t->flags,
		       t->win32_start);
		if (t->name) {
			printf(" name \"%s\"", t->name);
		}
		break;
	}
	case ETWFORGE_PAYLOAD_THREAD_NAME:
		printf(" | ThreadSetName pid %" PRIu32 " tid %" PRIu32 " name \"%s\"",
		       r->u.thread_name.pid, r->u.thread_name.tid, r->u.thread_name.name);
		break;
	case ETWFORGE_PAYLOAD_READY:
		printf(" | ReadyThread tid %" PRIu32
		       " adjust_reason %d adjust_increment %d flags 0x%x",
		       r->u.ready.tid, r->u.ready.adjust_reason, r->u.ready.adjust_increment,
		       r->u.ready.flags);
		break;
	case ETWFORGE_PAYLOAD_SAMPLE: {
		const struct etwforge_sample *p = &r->u.sample;

		printf(" | SampledProfile ip 0x%" PRIx64 " tid %" PRIu32
		       " count %u priority %u%s%s",
		       p->ip, p->tid, p->count, p->priority, p->dpc ? " dpc" : "",
		       p->isr ? " isr" : "");
		break;
	}
	case ETWFORGE_PAYLOAD_PROFILE_INTERVAL: {
		const struct etwforge_profile_interval *p = &r->u.profile_interval;

		printf(" | ProfileInterval %s source %" PRIu32 " new_interval %" PRIu32
		       " old_interval %" PRIu32,
		       p->event, p->source, p->new_interval, p->old_interval);
		if (p->source_name) {
			printf(" source_name \"%s\"", p->source_name);
		}
		break;
	}
	case ETWFORGE_PAYLOAD_SYSCONFIG_CPU: {
		const struct etwforge_sysconfig_cpu *c = &r->u.sysconfig_cpu;

		printf(" | SystemConfig CPU mhz %" PRIu32 " nproc %" PRIu32 " memory_mb %" PRIu32
		       " computer_name \"%s\" domain_name \"%s\"",
		       c->mhz, c->nproc, c->memory_mb, c->computer_name, c->domain_name);
		break;
	}
	case ETWFORGE_PAYLOAD_IMAGE: {
		const struct etwforge_image *m = &r->u.image;

		if (!m->file_name) { /* KernelBase, HypercallPage: one address */
			printf(" | Image %s 0x%" PRIx64, m->event, m->base);
			break;
		}
		printf(" | Image %s base 0x%" PRIx64 " size 0x%" PRIx64 " pid %" PRIu32
		       " checksum 0x%" PRIx32 " timestamp 0x%" PRIx32 " default_base 0x%" PRIx64,
		       m->event, m->base, m->size, m->pid, m->checksum, m->timestamp,
		       m->default_base);
		if (r->version >= 3) {
			printf(" signature %u/%u", m->signature_level, m->signature_type);
		}
		printf(" file \"%s\"", m->file_name);
		break;
	}
	case ETWFORGE_PAYLOAD_STACK_WALK: {
		const struct etwforge_stack_walk *w = &r->u.stack;

		printf(" | StackWalk event_ts %" PRIu64 " pid %" PRIu32 " tid %" PRIu32,
		       w->event_ts, w->pid, w->tid);
		print_frames(w->frames, w->nframes);
		break;
	}
	case ETWFORGE_PAYLOAD_STACK_KEY: {
		const struct etwforge_stack_key *k = &r->u.stack_key;

		printf(" | StackKey %s event_ts %" PRIu64 " pid %" PRIu32 " tid %" PRIu32
		       " key 0x%" PRIx64,
		       k->event, k->event_ts, k->pid, k->tid, k->key);
		break;
	}
	case ETWFORGE_PAYLOAD_STACK_DEF:
		printf(" | StackKey definition (%s) key 0x%" PRIx64, r->u.stack_def.event,
		       r->u.stack_def.key);
		print_frames(r->u.stack_def.frames, r->u.stack_def.nframes);
		break;
	case ETWFORGE_PAYLOAD_DPC: {
		const struct etwforge_dpc *d = &r->u.dpc;

		printf(" | %s initial_time %" PRIu64 " routine 0x%" PRIx64, d->event,
		       d->initial_time, d->routine);
		if (r->hook == 0x0F43) {
			printf(" return_value %u vector %u", d->return_value, d->vector);
		}
		break;
	}
	case ETWFORGE_PAYLOAD_IMAGE_ID: {
		const struct etwforge_image_id *m = &r->u.image_id;

		printf(" | ImageID base 0x%" PRIx64 " size 0x%" PRIx64 " pid %" PRIu32
		       " timestamp 0x%" PRIx32 " file \"%s\"",
		       m->base, m->size, m->pid, m->timestamp, m->file_name);
		break;
	}
	case ETWFORGE_PAYLOAD_DBGID: {
		const struct etwforge_dbgid *d = &r->u.dbgid;

		printf(" | DbgID %s base 0x%" PRIx64 " pid %" PRIu32, d->event, d->base, d->pid);
		if (d->guid) {
			printf(" guid %s age %" PRIu32 " pdb \"%s\"", d->guid, d->age, d->pdb);
		}
		break;
	}
	case ETWFORGE_PAYLOAD_FILE_VERSION: {
		const struct etwforge_file_version *v = &r->u.file_version;

		printf(" | FileVersion size 0x%" PRIx32 " timestamp 0x%" PRIx32
		       " file \"%s\" version \"%s\" product \"%s\" company \"%s\"",
		       v->size, v->timestamp, v->orig_file_name, v->file_version, v->product_name,
		       v->company_name);
		break;
	}
	case ETWFORGE_PAYLOAD_RUNDOWN: {
		const struct etwforge_rundown *d = &r->u.rundown;

		printf(" | Rundown %s", d->event);
		if (d->masks) {
			for (unsigned i = 0; i < d->nmasks; i++) {
				printf("%s0x%" PRIx32, i ? "," : " [", d->masks[i]);
			}
			printf("] version %" PRIu32, d->version);
		}
		break;
	}
	default:
		break;
	}
}

static void print_payload(const struct etwforge_record *r)
{
	switch (r->decoded) {
	case ETWFORGE_PAYLOAD_CSWITCH: {
		const struct etwforge_cswitch *c = &r->u.cswitch;

		printf(" | CSwitch new_tid %" PRIu32 " old_tid %" PRIu32 " new_pri %d old_pri %d"
		       " prev_cstate %u new_pri_decrement %d old_wait_reason %u %s %u old_state %u"
		       " old_ideal_cpu %u new_wait_time %" PRIu32 " old_remaining_quantum %" PRId32,
		       c->new_tid, c->old_tid, c->new_pri, c->old_pri, c->prev_cstate,
		       c->new_pri_decrement, c->old_wait_reason,
		       r->version >= 3 ? "flags" : "old_wait_mode", c->flags, c->old_state,
		       c->old_ideal_cpu, c->new_wait_time, c->old_remaining_quantum);
		break;
	}
	case ETWFORGE_PAYLOAD_SPINLOCK: {
		const struct etwforge_spinlock *l = &r->u.spinlock;

		printf(" | SpinLock lock 0x%" PRIx64 " caller 0x%" PRIx64 " acquire_time %" PRIu64
		       " release_time %" PRIu64 " wait_cycles %" PRIu32 " spin_count %" PRIu32
		       " tid %" PRIu32 " interrupt_count %" PRIu32 " irql %u depth %u mode %u%s%s",
		       l->lock, l->caller, l->acquire_time, l->release_time, l->wait_cycles,
		       l->spin_count, l->tid, l->interrupt_count, l->irql, l->depth, l->mode,
		       l->dpc ? " dpc" : "", l->isr ? " isr" : "");
		break;
	}
	case ETWFORGE_PAYLOAD_BATCH:
		printf(" | CSwitch batch first_ts %" PRId64 " tids %u records_bytes %zu",
		       r->u.batch.first_ts, r->u.batch.tids, r->u.batch.record_bytes);
		break;
	case ETWFORGE_PAYLOAD_SPINLOCK_CONFIG: {
		const struct etwforge_spinlock_config *c = &r->u.spinlock_config;

		printf(" | SpinLockConfig %s spin_threshold %" PRIu32
		       " contention_sample_rate %" PRIu32 " acquire_sample_rate %" PRIu32
		       " hold_threshold %" PRIu32,
		       r->hook == 0x0F4B ? "DCStart" : "DCEnd", c->spin_threshold,
		       c->contention_sample_rate, c->acquire_sample_rate, c->hold_threshold);
		break;
	}
	case ETWFORGE_PAYLOAD_SHORT:
		printf(" | %s payload too short (%zu bytes)", etwforge_record_name(r),
		       r->payload_len);
		break;
	case ETWFORGE_PAYLOAD_NONE:
		break;
	default:
		print_identity(r);
		break;
	}
}

static void print_record(const struct etwforge_record *r, bool raw)
{
	char label[24];

	kind_line(r, label, sizeof(label));
	printf("  0x%08" PRIx64 " %-14s marker 0x%08" PRIx32, r->file_offset, label, r->marker);
	if (r->has_hook) {
		printf(" hook 0x%04X v%u size %u ts %" PRIu64, r->hook, r->version, r->size, r->ts);
		if (strncmp(r->kind, "PERFINFO", 8)) {
			printf(" tid %" PRIu32 " pid %" PRIu32, r->tid, r->pid);
		}
	} else {
		printf(" size %u", r->size);
	}
	if (r->has_provider) {
		printf(" ts %" PRIu64 " tid %" PRIu32 " pid %" PRIu32, r->ts, r->tid, r->pid);
		if (!strncmp(r->kind, "EVENT_HEADER", 12)) {
			printf(" provider %s id %u v%u opcode %u level %u", r->provider,
			       r->event_id, r->event_version, r->opcode, r->level);
		} else {
			printf(" guid %s type %u level %u v%u", r->provider, r->class_type,
			       r->class_level, r->class_version);
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
	print_payload(r);
	putchar('\n');
	if (raw) {
		print_raw(r);
	}
}

/* One switch of a batch, indented under it. */
static void print_compact(const struct etwforge_event *ev)
{
	const struct etwforge_compact *c = &ev->u.compact;

	printf("      0x%08" PRIx64 " #%u %-10s ts %" PRIu64 " old_tid %" PRIu32, ev->file_offset,
	       c->index, c->form, c->ts, c->old_tid);
	if (c->form_code >= 2) { /* LITE, FULL */
		printf(" old_pri %d old_state %u", c->old_pri, c->old_state);
		if (c->old_state == 5) { /* Waiting */
			printf(" old_wait_reason %u", c->old_wait_reason);
		}
		if (c->wait_le1) {
			printf(" new_wait_time <=1");
		} else {
			printf(" new_wait_time %" PRIu32, c->wait_time);
		}
	}
	if (c->new_tid_known) {
		printf(" new_tid %" PRIu32, c->new_tid);
	}
	putchar('\n');
}

static void print_logfile(struct etwforge_file *f, const struct etwforge_record *r0)
{
	const struct etwforge_file_info *lf = etwforge_file_info(f);
	char buf[1024], t1[64];
	const uint8_t v[4] = {(uint8_t)lf->version, (uint8_t)(lf->version >> 8),
			      (uint8_t)(lf->version >> 16), (uint8_t)(lf->version >> 24)};

	printf("file %s: %u buffers, %" PRIu64 " trailing bytes\n", lf->name, lf->buffers,
	       lf->trailing_bytes);
	printf("logfile header: %s hook 0x0000 v%u Size %u at 0x%" PRIx64 ", ThreadId %" PRIu32
	       ", ProcessId %" PRIu32 ", SystemTime %" PRIu64 "\n",
	       lf->is64 ? "SYSTEM64" : "SYSTEM32", r0->version, r0->size, r0->file_offset, r0->tid,
	       r0->pid, lf->start_ts);
	printf("  %-20s %" PRIu32 "\n", "BufferSize", lf->buffer_size);
	printf("  %-20s 0x%08" PRIx32 " (OS %u.%u, file layout %u.%u)\n", "Version", lf->version,
	       v[0], v[1], v[2], v[3]);
	printf("  %-20s %" PRIu32 " (OS build)\n", "ProviderVersion", lf->provider_version);
	printf("  %-20s %" PRIu32 "\n", "NumberOfProcessors", lf->cpus);
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
	printf("  %-20s %" PRIu32 "\n", "CpuSpeedInMHz", lf->cpu_mhz);
	printf("  %-20s %" PRIu64 " (LoggerName slot: clock timer source %s)\n", "TimerSourceClock",
	       lf->timer_source_clock, timer_source_name(lf->timer_source_clock));
	printf("  %-20s %" PRIu64 " (LogFileName slot: perf counter source %s)\n",
	       "TimerSourcePerf", lf->timer_source_perf, timer_source_name(lf->timer_source_perf));
	filetime_str(t1, sizeof(t1), lf->boot_time);
	printf("  %-20s %" PRId64 " (%s)\n", "BootTime", lf->boot_time, t1);
	printf("  %-20s %" PRId64 "\n", "PerfFreq", lf->perf_freq);
	filetime_str(t1, sizeof(t1), lf->start_time);
	printf("  %-20s %" PRId64 " (%s)\n", "StartTime", lf->start_time, t1);
	printf("  %-20s %" PRIu32 " (clock type %s)\n", "ReservedFlags", lf->clock_type,
	       clock_name(lf->clock_type));
	printf("  %-20s %" PRIu32 "\n", "BuffersLost", lf->buffers_lost);
	printf("  %-20s \"%s\"\n", "LoggerName", lf->logger_name);
	printf("  %-20s \"%s\"\n", "LogFileName", lf->logfile_name);
}

static void print_buffer(const struct etwforge_buffer *b)
{
	char flags[128];

	buffer_flag_names(flags, sizeof(flags), b->flag);
	printf("buffer %u @0x%" PRIx64 " size %" PRIu32 " cpu %u seq %" PRId64 " ts %" PRId64
	       " saved %" PRIu32 " offset %" PRIu32 " current %" PRIu32
	       " flags 0x%04x(%s) type %u(%s) state %" PRIu32 " logger %u%s\n",
	       b->index, b->file_offset, b->buffer_size, b->cpu, b->sequence, b->timestamp,
	       b->saved_offset, b->offset, b->current_offset, b->flag, flags, b->type,
	       buffer_type_name(b->type), b->state, b->logger_id,
	       !b->compressed	 ? ""
	       : b->decompressed ? " compressed (XPRESS, decompressed)"
				 : " compressed: records not decoded");
}

/*
 * Walk every event of @f in @order and print each with @print; a batch that
 * does not expand stops the listing (its error is the last line), or with
 * --keep-going is said and skipped. Return: the exit status.
 */
static int walk(struct etwforge_file *f, enum etwforge_order order, const struct dump_opts *o,
		void (*print)(const struct etwforge_event *ev, const struct dump_opts *o))
{
	struct etwforge_error *err = cli_err();
	const struct etwforge_event *ev;
	struct damage_log dl = {0};
	struct etwforge_iter *it = etwforge_iter_new(
		f, order, ETWFORGE_EV_BUFFER | ETWFORGE_EV_RECORD | ETWFORGE_EV_COMPACT, err);
	int rc;

	if (!it) {
		return cli_error("dump", err);
	}
	while ((rc = etwforge_iter_next(it, &ev, err)) != 0) {
		if (rc < 0) {
			damage_add(&dl, etwforge_error_message(err),
				   o->keep_going ? " (batch skipped)" : NULL);
			if (!o->keep_going) {
				break;
			}
			continue;
		}
		print(ev, o);
		if (ferror(stdout)) {
			etwforge_iter_free(it);
			damage_print(&dl, PROG, etwforge_file_info(f)->name, false);
			return EXIT_STDOUT_FAILED;
		}
	}
	etwforge_iter_free(it);
	/* the open's damage too, in file order with what the walk met */
	damage_add_file(&dl, f, o->keep_going);
	return damage_print(&dl, PROG, etwforge_file_info(f)->name, o->keep_going) ? EXIT_DATA
										   : EXIT_OK;
}

static void print_text(const struct etwforge_event *ev, const struct dump_opts *o)
{
	switch (ev->kind) {
	case ETWFORGE_EV_BUFFER:
		print_buffer(&ev->u.buffer);
		break;
	case ETWFORGE_EV_COMPACT:
		print_compact(ev);
		break;
	default:
		print_record(ev->rec, o->raw);
		break;
	}
}

static int dump_text(struct etwforge_file *f, const struct dump_opts *o)
{
	struct etwforge_error *err = cli_err();
	const struct etwforge_event *ev;
	struct etwforge_iter *it =
		etwforge_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_RECORD, err);

	/* the logfile header first: opening read it, so the first record is there */
	if (!it || etwforge_iter_next(it, &ev, err) != 1) {
		etwforge_iter_free(it);
		return cli_error("dump", err);
	}
	print_logfile(f, ev->rec);
	etwforge_iter_free(it);
	return walk(f, ETWFORGE_ORDER_FILE, o, print_text);
}

/* One line of JSON, the buffer grown to fit it. */
static void print_json(const struct etwforge_event *ev, const struct dump_opts *o)
{
	static char small[8192];
	char *buf = small;
	size_t n;

	if (ev->kind == ETWFORGE_EV_BUFFER) {
		return; /* --jsonl lists records (each names its buffer) */
	}
	n = etwforge_event_json(ev, o->raw ? ETWFORGE_JSON_RAW : 0, small, sizeof(small));
	if (n >= sizeof(small)) {
		buf = malloc(n + 1);
		if (!buf) {
			return;
		}
		etwforge_event_json(ev, o->raw ? ETWFORGE_JSON_RAW : 0, buf, n + 1);
	}
	fwrite(buf, 1, n, stdout);
	putchar('\n');
	if (buf != small) {
		free(buf);
	}
}

static int dump_jsonl(struct etwforge_file *f, const struct dump_opts *o)
{
	char line[16384];
	size_t n = etwforge_file_json(f, line, sizeof(line));

	fwrite(line, 1, n < sizeof(line) ? n : sizeof(line) - 1, stdout);
	putchar('\n');
	return walk(f, ETWFORGE_ORDER_CPU, o, print_json);
}

/* Set when value_of() met its option without a value. */
static bool missing;

/*
 * The value of option @name at argv[*@i], as "--name VALUE" (then *@i moves
 * past it) or "--name=VALUE". Return: the value, or NULL when argv[*@i] is
 * another option or the value is missing (then `missing` is set).
 */
static const char *value_of(int argc, char **argv, int *i, const char *name)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n) != 0) {
		return NULL;
	}
	if (a[n] == '=') {
		return a + n + 1;
	}
	if (a[n] != '\0') {
		return NULL;
	}
	if (*i + 1 >= argc) {
		missing = true;
		return NULL;
	}
	return argv[++*i];
}

/* A --from/--to duration in ns. Return: 0, or -EINVAL after saying why. */
static int parse_time(const char *opt, const char *s, int64_t *ns)
{
	const char *why;
	int rc = cli_parse_duration(s, ns, &why);

	if (rc == -ENOMSG) {
		fprintf(stderr, PROG ": %s: %s needs a unit (%ss, %sms, %sus or %sns)\n", opt, s, s,
			s, s, s);
		return -EINVAL;
	}
	if (rc < 0) {
		fprintf(stderr,
			PROG ": %s: '%s' %s (a number and ns, us, ms, s, min or h: 250us, 1.5s) "
			     "(try '" PROG " --help')\n",
			opt, s, why);
		return -EINVAL;
	}
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	static uint8_t cpu_mask[SCHED_CPU_BITS / 8];
	struct dump_opts o = {.max_wait_reason = -1};
	struct etwforge_error *err = cli_err();
	struct etwforge_file *f;
	bool options_done = false, drawing;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v;

		if (!options_done && a[0] == '-' && a[1] != '\0') {
			missing = false;
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
			} else if ((v = value_of(argc, argv, &i, "--timeline")) != NULL) {
				o.draw.timeline = v;
			} else if ((v = value_of(argc, argv, &i, "--chrome-trace")) != NULL) {
				o.draw.chrome = v;
			} else if ((v = value_of(argc, argv, &i, "--flamegraph")) != NULL) {
				o.draw.flamegraph = v;
			} else if ((v = value_of(argc, argv, &i, "--folded")) != NULL) {
				o.draw.folded = v;
			} else if ((v = value_of(argc, argv, &i, "--symbols")) != NULL) {
				o.draw.rq.symbols = v;
			} else if ((v = value_of(argc, argv, &i, "--truth")) != NULL) {
				o.draw.truth = v;
			} else if ((v = value_of(argc, argv, &i, "--from")) != NULL) {
				if (parse_time("--from", v, &o.draw.rq.from_ns) < 0) {
					return EXIT_USAGE;
				}
				o.draw.rq.have_from = true;
			} else if ((v = value_of(argc, argv, &i, "--to")) != NULL) {
				if (parse_time("--to", v, &o.draw.rq.to_ns) < 0) {
					return EXIT_USAGE;
				}
				o.draw.rq.have_to = true;
			} else if ((v = value_of(argc, argv, &i, "--cpus")) != NULL) {
				const char *why = "";

				if (cli_parse_cpu_list(v, cpu_mask, SCHED_CPU_BITS, &why) < 0) {
					fprintf(stderr,
						PROG ": --cpus: '%s': %s (a list such as 0-3,8; "
						     "try '" PROG " --help')\n",
						v, why);
					return EXIT_USAGE;
				}
				o.draw.rq.cpu_mask = cpu_mask;
			} else if (missing) {
				return usage_error("option needs a value", a);
			} else if (!strcmp(a, "--max-wait-reason")) {
				char *end = NULL;
				long mw = i + 1 < argc ? strtol(argv[i + 1], &end, 0) : -1;

				if (!end || *end || mw < 1 || mw > 63) {
					return usage_error("--max-wait-reason needs a number 1..63",
							   i + 1 < argc ? argv[i + 1] : NULL);
				}
				o.max_wait_reason = (int)mw;
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
	drawing = o.draw.timeline || o.draw.chrome || o.draw.flamegraph || o.draw.folded;
	if (drawing && (o.stats || o.jsonl || o.raw)) {
		return usage_error(o.draw.timeline ? "--timeline does not combine with --stats, "
						     "--jsonl or --raw"
				   : o.draw.chrome ? "--chrome-trace does not combine with "
						     "--stats, --jsonl or --raw"
				   : o.draw.flamegraph ? "--flamegraph does not combine with "
							 "--stats, --jsonl or --raw"
						       : "--folded does not combine with --stats, "
							 "--jsonl or --raw",
				   NULL);
	}
	if (!drawing && (o.draw.rq.have_from || o.draw.rq.have_to || o.draw.rq.cpu_mask ||
			 o.draw.truth || o.draw.rq.symbols)) {
		return usage_error("--from, --to, --cpus, --truth and --symbols need --timeline, "
				   "--chrome-trace, --flamegraph or --folded",
				   NULL);
	}
	if (o.draw.rq.have_from && o.draw.rq.have_to && o.draw.rq.to_ns <= o.draw.rq.from_ns) {
		return usage_error("--to must be after --from", NULL);
	}
	if (!drawing && etwforge_stdio_closed(STDOUT_FILENO)) {
		fprintf(stderr, PROG ": standard output is closed\n"); /* where it prints */
		return EXIT_DATA;
	}
	o.draw.rq.keep_going = o.keep_going;
	o.draw.input = o.path;
	f = etwforge_file_open(
		o.path, ETWFORGE_OPEN_SALVAGE | (o.keep_going ? ETWFORGE_OPEN_KEEP_GOING : 0u),
		err);
	if (!f) {
		return cli_error("dump", err);
	}
	if (o.max_wait_reason > 0) {
		etwforge_file_set_max_wait_reason(f, (unsigned)o.max_wait_reason);
	}
	if (drawing) {
		rc = dump_draw(f, &o.draw);
	} else if (o.stats) {
		rc = dump_stats(f, o.jsonl, o.keep_going);
	} else if (o.jsonl) {
		rc = dump_jsonl(f, &o);
	} else {
		rc = dump_text(f, &o);
	}
	etwforge_file_close(f);
	return rc; /* main() checks standard output */
}
