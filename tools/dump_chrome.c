// SPDX-License-Identifier: MIT
/*
 * tools/dump_chrome.c - `dump --chrome-trace OUT.json`: the schedule as
 * Chrome trace-event JSON (the JSON Object Format: {"traceEvents": [...],
 * "displayTimeUnit": "ms"}), which Perfetto's UI and chrome://tracing open.
 *
 *   pid 1            the session ("FILE: LoggerName")
 *   tid CPU + 1      one track per CPU, named "CPU n", sorted by CPU
 *   "X" events       one per slice a switch opened with a known thread
 *                    that is not idle (so one per switch whose new thread
 *                    is known and not TID 0): name = the thread's name,
 *                    ts/dur in us
 *   "i" events       thread-scoped instants: "flush: REASON" where a
 *                    compact batch was flushed, "spinlock: KIND" where a
 *                    logged spin-lock release is
 *
 * Streamed: each event is printed when the walk hands it over, so memory
 * stays the same however many switches the file holds. Times are integers
 * of ns printed as us with three decimals, so a slice ends exactly where
 * the next one starts. TIDs are never 0 (Perfetto's swapper): CPU n is
 * tid n + 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "dump_chrome.h"

#define CHROME_PID 1

struct chrome {
	FILE *f;
	const struct sched_frame *fr;
	const struct thread_names *names;
	bool comma; /* an event was written: the next one needs a comma */
};

/* @s as a JSON string body: quotes, backslashes and control bytes escaped. */
static void put_json_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
		} else if (c >= 0x7F) {
			putc('?', f); /* bytes of a path need not be UTF-8: JSON must be */
		} else {
			putc(c, f);
		}
	}
	putc('"', f);
}

/* ns as microseconds with three decimals, exactly. */
static void put_abs_us(FILE *f, const char *sign, uint64_t a)
{
	fprintf(f, "%s%" PRIu64 ".%03u", sign, a / 1000, (unsigned)(a % 1000));
}

static void put_us(FILE *f, int64_t ns)
{
	put_abs_us(f, ns < 0 ? "-" : "", ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns);
}

static void begin_event(struct chrome *c)
{
	fputs(c->comma ? ",\n" : "\n", c->f);
	c->comma = true;
}

static void metadata(struct chrome *c, const char *name, unsigned tid, const char *key,
		     const char *str, long num)
{
	begin_event(c);
	fprintf(c->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"args\":{\"%s\":", name,
		CHROME_PID, tid, key);
	if (str) {
		put_json_string(c->f, str);
	} else {
		fprintf(c->f, "%ld", num);
	}
	fputs("}}", c->f);
}

struct chrome *chrome_new(const struct sched_frame *fr, const struct thread_names *names, FILE *out)
{
	struct chrome *c = calloc(1, sizeof(*c));
	char label[sizeof(fr->info->name) + sizeof(fr->info->logger_name) + 4];

	if (!c) {
		return NULL;
	}
	c->f = out;
	c->fr = fr;
	c->names = names;
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"etwforge dump "
	      "--chrome-trace\",\"file\":",
	      out);
	put_json_string(out, fr->info->name);
	fputs(",\"logger_name\":", out);
	put_json_string(out, fr->info->logger_name);
	fprintf(out,
		",\"cpus\":%" PRIu32 ",\"clock_type\":%" PRIu32 ",\"clock_hz\":%" PRIu64
		",\"time_origin\":\"session start (ts %" PRIu64 ")\"},\"traceEvents\":[",
		fr->info->cpus, fr->info->clock_type, fr->hz, fr->info->start_ts);
	snprintf(label, sizeof(label), "%s: %s", fr->info->name, fr->info->logger_name);
	metadata(c, "process_name", fr->nlanes ? fr->lane_cpu[0] + 1 : 1, "name", label, 0);
	for (unsigned l = 0; l < fr->nlanes; l++) {
		char name[32];

		snprintf(name, sizeof(name), "CPU %u", fr->lane_cpu[l]);
		metadata(c, "thread_name", fr->lane_cpu[l] + 1, "name", name, 0);
		metadata(c, "thread_sort_index", fr->lane_cpu[l] + 1, "sort_index", NULL,
			 (long)fr->lane_cpu[l]);
	}
	return c;
}

static void on_slice(void *ctx, const struct sched_slice *s)
{
	struct chrome *c = ctx;
	char name[THREAD_NAME_MAX];

	if (!s->known || s->tid == 0 || !s->opened) {
		return; /* idle is blank; before a CPU's first switch nothing opened a slice */
	}
	begin_event(c);
	fputs("{\"name\":", c->f);
	put_json_string(c->f, thread_name(c->names, s->tid, name, sizeof(name)));
	fputs(",\"cat\":\"thread\",\"ph\":\"X\",\"ts\":", c->f);
	put_us(c->f, s->t0);
	fputs(",\"dur\":", c->f);
	/* t1 >= t0; the difference of two int64 is exact in uint64 (a damaged file's times) */
	put_abs_us(c->f, "", (uint64_t)s->t1 - (uint64_t)s->t0);
	fprintf(c->f, ",\"pid\":%d,\"tid\":%u,\"args\":{\"tid\":%" PRIu32 ",\"cpu\":%u}}",
		CHROME_PID, s->cpu + 1, s->tid, s->cpu);
}

static void on_flush(void *ctx, const struct sched_flush *fl)
{
	struct chrome *c = ctx;

	begin_event(c);
	fprintf(c->f, "{\"name\":\"flush: %s\",\"cat\":\"batch\",\"ph\":\"i\",\"s\":\"t\",\"ts\":",
		flush_reason_name(fl->reason));
	put_us(c->f, fl->t);
	fprintf(c->f,
		",\"pid\":%d,\"tid\":%u,\"args\":{\"reason\":\"%s\",\"batch\":%" PRIu64
		",\"tids\":%u,\"record_bytes\":%" PRIu64 "}}",
		CHROME_PID, fl->cpu + 1, flush_reason_name(fl->reason), fl->batch, fl->tids,
		fl->record_bytes);
}

static void on_spin(void *ctx, const struct sched_spin *sp)
{
	struct chrome *c = ctx;
	const struct etwforge_spinlock *l = sp->lock;

	begin_event(c);
	fprintf(c->f,
		"{\"name\":\"spinlock: %s\",\"cat\":\"spinlock\",\"ph\":\"i\",\"s\":\"t\",\"ts\":",
		spin_kind_name(sp->kind));
	put_us(c->f, sp->t);
	fprintf(c->f,
		",\"pid\":%d,\"tid\":%u,\"args\":{\"kind\":\"%s\",\"lock\":\"0x%" PRIx64
		"\",\"caller\":\"0x%" PRIx64 "\",\"tid\":%" PRIu32 ",\"spin_count\":%" PRIu32
		",\"wait_cycles\":%" PRIu32 ",\"hold_cycles\":%" PRIu64 ",\"irql\":%u}}",
		CHROME_PID, sp->cpu + 1, spin_kind_name(sp->kind), l->lock, l->caller, l->tid,
		l->spin_count, l->wait_cycles, l->release_time - l->acquire_time, l->irql);
}

const struct sched_ops chrome_ops = {
	.slice = on_slice,
	.flush = on_flush,
	.spin = on_spin,
};

int chrome_finish(struct chrome *c)
{
	fputs("\n]}\n", c->f);
	return ferror(c->f) ? -EIO : 0;
}

void chrome_free(struct chrome *c)
{
	free(c);
}
