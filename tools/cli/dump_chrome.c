// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_chrome.c - `dump --chrome-trace OUT.json`: the schedule as
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
 * When the file names its threads (Process and Thread records,
 * dump_identity.h), also:
 *
 *   pid PID, tid TID one track per thread the file names, in its process:
 *                    process_name / thread_name metadata at the start, and
 *                    each of its slices again there ("X", args cpu)
 *   "s" / "f"        a flow per wake-up (dump_wakeup.h): from the readying
 *                    thread's track (its CPU's when the file does not name
 *                    it) at the ReadyThread to the readied thread's track
 *                    at its next switch-in, bound to the slice there
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
#include "text_escape.h"

#define CHROME_PID 1

struct chrome {
	FILE *f;
	const struct sched_frame *fr;
	const struct thread_names *names;
	bool comma;	/* an event was written: the next one needs a comma */
	uint64_t flows; /* flow ids handed out */
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

/*
 * The thread @tid has a track of its own: the file names it, and neither it
 * nor its process is 0 (idle, the swapper in Perfetto). Return: it, or NULL.
 */
static const struct ident_thread *own_track(const struct chrome *c, uint32_t tid)
{
	const struct ident_thread *t =
		c->names && tid ? identity_thread(c->names->ident, tid) : NULL;

	return t && t->pid ? t : NULL;
}

/* The metadata of a process or thread track of the file's own (@str: its name). */
static void named_metadata(struct chrome *c, const char *what, uint32_t pid, uint32_t tid,
			   const char *str)
{
	begin_event(c);
	fprintf(c->f,
		"{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"args\":{\"name\":",
		what, pid, tid);
	put_json_text(c->f, str);
	fputs("}}", c->f);
}

/* A process_name per process and a thread_name per thread the file names. */
static void identity_tracks(struct chrome *c, const struct identity *id)
{
	for (size_t i = 0; i < id->processes.cap; i++) {
		uint32_t pid;
		const struct ident_process *p = tid_map_at(&id->processes, i, &pid);

		if (p && pid) {
			named_metadata(c, "process_name", pid, pid, p->image[0] ? p->image : "?");
		}
	}
	for (size_t i = 0; i < id->threads.cap; i++) {
		uint32_t tid;
		const struct ident_thread *t = tid_map_at(&id->threads, i, &tid);

		if (t && tid && t->pid) {
			const char *image = identity_image(id, t->pid);

			named_metadata(c, "thread_name", t->pid, tid,
				       t->name[0] ? t->name
				       : image[0] ? image
						  : "?");
		}
	}
}

struct chrome *chrome_new(const struct sched_frame *fr, const struct thread_names *names, FILE *out)
{
	struct chrome *c = calloc(1, sizeof(*c));
	char label[512]; /* "FILE: LoggerName", cut if longer */

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
	if (names && identity_any(names->ident)) {
		identity_tracks(c, names->ident);
	}
	return c;
}

/* One complete event of slice @s named @name on track (@pid, @tid). */
static void slice_event(struct chrome *c, const struct sched_slice *s, const char *name,
			uint32_t pid, uint32_t tid)
{
	begin_event(c);
	fputs("{\"name\":", c->f);
	put_json_text(c->f, name);
	fputs(",\"cat\":\"thread\",\"ph\":\"X\",\"ts\":", c->f);
	put_us(c->f, s->t0);
	fputs(",\"dur\":", c->f);
	/* t1 >= t0; the difference of two int64 is exact in uint64 (a damaged file's times) */
	put_abs_us(c->f, "", (uint64_t)s->t1 - (uint64_t)s->t0);
	fprintf(c->f,
		",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"tid\":%" PRIu32
		",\"cpu\":%u}}",
		pid, tid, s->tid, s->cpu);
}

static void on_slice(void *ctx, const struct sched_slice *s)
{
	struct chrome *c = ctx;
	const struct ident_thread *t;
	char name[THREAD_NAME_MAX];

	if (!s->known || s->tid == 0 || !s->opened) {
		return; /* idle is blank; before a CPU's first switch nothing opened a slice */
	}
	thread_name(c->names, s->tid, name, sizeof(name));
	slice_event(c, s, name, CHROME_PID, s->cpu + 1);
	if ((t = own_track(c, s->tid)) != NULL) {
		slice_event(c, s, name, t->pid, s->tid); /* the thread's own track */
	}
}

/* The track (pid, tid) of thread @tid at a wake-up: its own, else CPU @cpu's. */
static void wake_track(const struct chrome *c, uint32_t tid, unsigned cpu, uint32_t *pid,
		       uint32_t *track)
{
	const struct ident_thread *t = own_track(c, tid);

	*pid = t ? t->pid : CHROME_PID;
	*track = t ? tid : cpu + 1;
}

static void on_wake(void *ctx, const struct sched_wake *wk)
{
	struct chrome *c = ctx;
	uint32_t pid, tid;
	uint64_t id = ++c->flows;

	if (wk->to_lane < 0 && !own_track(c, wk->tid)) {
		return; /* it ran on a CPU not drawn, in no track of its own */
	}
	wake_track(c, wk->waker, wk->from_cpu, &pid, &tid);
	begin_event(c);
	fprintf(c->f,
		"{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"s\",\"id\":%" PRIu64 ",\"ts\":",
		id);
	put_us(c->f, wk->t_ready);
	fprintf(c->f,
		",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"waker\":%" PRIu32
		",\"tid\":%" PRIu32 ",\"cpu\":%u}}",
		pid, tid, wk->waker, wk->tid, wk->from_cpu);
	wake_track(c, wk->tid, wk->to_cpu, &pid, &tid);
	begin_event(c);
	fprintf(c->f,
		"{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%" PRIu64
		",\"ts\":",
		id);
	put_us(c->f, wk->t_run);
	fprintf(c->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 "}", pid, tid);
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
	.wake = on_wake,
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
