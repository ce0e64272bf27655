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
 *                    ts/dur in us; and before each CPU's first switch the
 *                    thread that ran since the session start, marked
 *                    args.from_start (no switch in the file opened it)
 *   "i" events       thread-scoped instants: "flush: REASON" where a
 *                    compact batch was flushed, "spinlock: KIND" where a
 *                    logged spin-lock release is
 *
 * What it writes are the items of the library's analysis of the file
 * (etwforge_analysis_next()). When the file names its threads (Process and
 * Thread records: the analysis's thread table), also:
 *
 *   pid PID, tid TID one track per thread the file names, in its process:
 *                    process_name / thread_name metadata at the start, and
 *                    each of its slices again there ("X", args cpu)
 *   "s" / "f"        a flow per wake-up (ETWFORGE_ITEM_WAKE): from the readying
 *                    thread's track (its CPU's when the file does not name
 *                    it) at the ReadyThread to the readied thread's track
 *                    at its next switch-in, bound to the slice there
 *
 * Samples (SampledProfile), with their call stacks (the file's StackWalk
 * and stack-key records, joined by the library):
 *
 *   "P" events       one per sample, on its thread's track (its CPU's when
 *                    the file does not name it): name = where its
 *                    instruction pointer is ("ntdll.dll!RtlUserThreadStart+0x21",
 *                    "ntdll.dll+0x2c1a", "0x7f9d02f2c1a"), "sf" its stack's
 *                    innermost frame
 *   "stackFrames"    after the events: every frame of the stacks sampled,
 *                    "S<stack>_<i>" (i from the innermost), its name where
 *                    it is and its "parent" the next frame out
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
	const struct draw_view *v;
	const struct thread_names *names;
	bool comma;	/* an event was written: the next one needs a comma */
	uint64_t flows; /* flow ids handed out */
	/* per stack row: sampled, and the process and time its frames are placed at */
	bool *stack_seen;
	uint32_t *stack_pid;
	int64_t *stack_ns;
	size_t nstacks;
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
 * The thread row @row has a track of its own: the file names it, and neither
 * it nor its process is 0 (idle, the swapper in Perfetto). Return: it, or NULL.
 */
static const struct etwforge_thread_row *own_track(const struct chrome *c, int64_t row)
{
	const struct etwforge_thread_row *t =
		c->names && c->names->an && row >= 0
			? etwforge_analysis_thread(c->names->an, (size_t)row)
			: NULL;

	return t && t->named && t->tid && t->pid ? t : NULL;
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
static void identity_tracks(struct chrome *c, const struct etwforge_analysis *an)
{
	const struct etwforge_analysis_totals *t = etwforge_analysis_totals(an);

	for (size_t i = 0; i < t->processes; i++) {
		const struct etwforge_process_row *p = etwforge_analysis_process(an, i);

		if (p && p->pid) {
			named_metadata(c, "process_name", p->pid, p->pid,
				       p->image[0] ? p->image : "?");
		}
	}
	for (size_t i = 0; i < t->threads; i++) {
		const struct etwforge_thread_row *th = own_track(c, (int64_t)i);
		const struct etwforge_process_row *p = thread_process(c->names, (int64_t)i);

		if (th) {
			named_metadata(c, "thread_name", th->pid, th->tid,
				       th->name[0]	  ? th->name
				       : p && p->image[0] ? p->image
							  : "?");
		}
	}
}

struct chrome *chrome_new(const struct draw_view *v, FILE *out)
{
	struct chrome *c = calloc(1, sizeof(*c));
	char label[512]; /* "FILE: LoggerName", cut if longer */

	if (!c) {
		return NULL;
	}
	c->f = out;
	c->v = v;
	c->names = v->names;
	c->nstacks = etwforge_analysis_totals(v->an)->stacks;
	c->stack_seen = calloc(c->nstacks ? c->nstacks : 1, sizeof(*c->stack_seen));
	c->stack_pid = calloc(c->nstacks ? c->nstacks : 1, sizeof(*c->stack_pid));
	c->stack_ns = calloc(c->nstacks ? c->nstacks : 1, sizeof(*c->stack_ns));
	if (!c->stack_seen || !c->stack_pid || !c->stack_ns) {
		chrome_free(c);
		return NULL;
	}
	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"etwforge dump "
	      "--chrome-trace\",\"file\":",
	      out);
	put_json_string(out, v->info->name);
	fputs(",\"logger_name\":", out);
	put_json_string(out, v->info->logger_name);
	fprintf(out,
		",\"cpus\":%" PRIu32 ",\"clock_type\":%" PRIu32 ",\"clock_hz\":%" PRIu64
		",\"time_origin\":\"session start (ts %" PRIu64 ")\"},\"traceEvents\":[",
		v->info->cpus, v->info->clock_type, v->hz, v->info->start_ts);
	snprintf(label, sizeof(label), "%s: %s", v->info->name, v->info->logger_name);
	metadata(c, "process_name", v->nlanes ? v->lane_cpu[0] + 1 : 1, "name", label, 0);
	for (unsigned l = 0; l < v->nlanes; l++) {
		char name[32];

		snprintf(name, sizeof(name), "CPU %u", v->lane_cpu[l]);
		metadata(c, "thread_name", v->lane_cpu[l] + 1, "name", name, 0);
		metadata(c, "thread_sort_index", v->lane_cpu[l] + 1, "sort_index", NULL,
			 (long)v->lane_cpu[l]);
	}
	if (thread_named_rows(c->names)) {
		identity_tracks(c, c->names->an);
	}
	return c;
}

/* One complete event of slice @s named @name on track (@pid, @tid). */
static void slice_event(struct chrome *c, const struct etwforge_item *s, const char *name,
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
		",\"cpu\":%u%s}}",
		pid, tid, s->tid, s->cpu, s->opened ? "" : ",\"from_start\":true");
}

static void on_slice(struct chrome *c, const struct etwforge_item *s)
{
	const struct etwforge_thread_row *t;
	char name[THREAD_NAME_MAX];

	if (!s->known || s->tid == 0) {
		return; /* idle is blank; after a CPU's last compact switch nobody is known */
	}
	thread_name(c->names, s->tid, s->thread, name, sizeof(name));
	slice_event(c, s, name, CHROME_PID, s->cpu + 1);
	if ((t = own_track(c, s->thread)) != NULL) {
		slice_event(c, s, name, t->pid, s->tid); /* the thread's own track */
	}
}

/* The track (pid, tid) of thread @tid (row @row) at a wake-up: its own, else CPU @cpu's. */
static void wake_track(const struct chrome *c, uint32_t tid, int64_t row, unsigned cpu,
		       uint32_t *pid, uint32_t *track)
{
	const struct etwforge_thread_row *t = own_track(c, row);

	*pid = t ? t->pid : CHROME_PID;
	*track = t ? tid : cpu + 1;
}

static void on_wake(struct chrome *c, const struct etwforge_item *wk)
{
	uint32_t pid, tid;
	uint64_t id = ++c->flows;

	wake_track(c, wk->waker, wk->waker_thread, wk->from_cpu, &pid, &tid);
	begin_event(c);
	fprintf(c->f,
		"{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"s\",\"id\":%" PRIu64 ",\"ts\":",
		id);
	put_us(c->f, wk->t0);
	fprintf(c->f,
		",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"waker\":%" PRIu32
		",\"tid\":%" PRIu32 ",\"cpu\":%u}}",
		pid, tid, wk->waker, wk->tid, wk->from_cpu);
	wake_track(c, wk->tid, wk->thread, wk->cpu, &pid, &tid);
	begin_event(c);
	fprintf(c->f,
		"{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%" PRIu64
		",\"ts\":",
		id);
	put_us(c->f, wk->t1);
	fprintf(c->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 "}", pid, tid);
}

static void on_flush(struct chrome *c, const struct etwforge_item *fl)
{
	const char *why = etwforge_flush_seen_name(fl->reason);

	begin_event(c);
	fprintf(c->f,
		"{\"name\":\"flush: %s\",\"cat\":\"batch\",\"ph\":\"i\",\"s\":\"t\",\"ts\":", why);
	put_us(c->f, fl->t0);
	fprintf(c->f,
		",\"pid\":%d,\"tid\":%u,\"args\":{\"reason\":\"%s\",\"batch\":%" PRIu64
		",\"tids\":%u,\"record_bytes\":%" PRIu64 "}}",
		CHROME_PID, fl->cpu + 1, why, fl->batch, fl->tids, fl->record_bytes);
}

static void on_spin(struct chrome *c, const struct etwforge_item *sp)
{
	const struct etwforge_spinlock *l = sp->lock;
	const char *kind = etwforge_spin_seen_name(sp->reason);

	begin_event(c);
	fprintf(c->f,
		"{\"name\":\"spinlock: %s\",\"cat\":\"spinlock\",\"ph\":\"i\",\"s\":\"t\",\"ts\":",
		kind);
	put_us(c->f, sp->t0);
	fprintf(c->f,
		",\"pid\":%d,\"tid\":%u,\"args\":{\"kind\":\"%s\",\"lock\":\"0x%" PRIx64
		"\",\"caller\":\"0x%" PRIx64 "\",\"tid\":%" PRIu32 ",\"spin_count\":%" PRIu32
		",\"wait_cycles\":%" PRIu32 ",\"hold_cycles\":%" PRIu64 ",\"irql\":%u}}",
		CHROME_PID, sp->cpu + 1, kind, l->lock, l->caller, l->tid, l->spin_count,
		l->wait_cycles, l->release_time - l->acquire_time, l->irql);
}

/* A sample "P" event, its stack noted for the frames written at the end. */
static void on_sample(struct chrome *c, const struct etwforge_item *sm)
{
	const struct etwforge_thread_row *t = own_track(c, sm->thread);
	struct etwforge_location w;

	etwforge_analysis_locate(c->v->an, sm->pid, sm->ip, sm->t0, &w);
	begin_event(c);
	fputs("{\"name\":", c->f);
	put_json_text(c->f, w.text);
	fputs(",\"cat\":\"sample\",\"ph\":\"P\",\"ts\":", c->f);
	put_us(c->f, sm->t0);
	fprintf(c->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, t ? t->pid : (uint32_t)CHROME_PID,
		t ? sm->tid : sm->cpu + 1);
	if (sm->stack >= 0 && (size_t)sm->stack < c->nstacks) {
		size_t k = (size_t)sm->stack;

		fprintf(c->f, ",\"sf\":\"S%zu_0\"", k);
		if (!c->stack_seen[k]) {
			c->stack_seen[k] = true;
			c->stack_pid[k] = sm->pid;
			c->stack_ns[k] = sm->t0;
		}
	}
	fprintf(c->f,
		",\"args\":{\"tid\":%" PRIu32 ",\"pid\":%" PRIu32 ",\"cpu\":%u,\"ip\":\"0x%" PRIx64
		"\"}}",
		sm->tid, sm->pid, sm->cpu, sm->ip);
}

void chrome_item(struct chrome *c, const struct etwforge_item *it)
{
	bool drawn = draw_lane(c->v, it->cpu) >= 0;

	switch (it->kind) {
	case ETWFORGE_ITEM_SLICE:
		if (drawn) {
			on_slice(c, it);
		}
		break;
	case ETWFORGE_ITEM_WAKE:
		if (drawn || own_track(c, it->thread)) {
			on_wake(c, it);
		}
		break;
	case ETWFORGE_ITEM_FLUSH:
		if (drawn) {
			on_flush(c, it);
		}
		break;
	case ETWFORGE_ITEM_SPIN:
		if (drawn) {
			on_spin(c, it);
		}
		break;
	case ETWFORGE_ITEM_SAMPLE:
		if (drawn) {
			on_sample(c, it);
		}
		break;
	default:
		break;
	}
}

/* The frames of the stacks sampled: "stackFrames", each frame's parent the next one out. */
static void stack_frames(struct chrome *c)
{
	bool first = true;

	fputs(",\"stackFrames\":{", c->f);
	for (size_t k = 0; k < c->nstacks; k++) {
		const struct etwforge_stack_row *s =
			c->stack_seen[k] ? etwforge_analysis_stack(c->v->an, k) : NULL;

		for (size_t i = 0; s && i < s->nframes; i++) {
			struct etwforge_location w;

			etwforge_analysis_locate(c->v->an, c->stack_pid[k], s->frames[i],
						 c->stack_ns[k], &w);
			fprintf(c->f, "%s\n\"S%zu_%zu\":{\"name\":", first ? "" : ",", k, i);
			put_json_text(c->f, w.text);
			fputs(",\"category\":", c->f);
			put_json_text(c->f, w.module ? w.module : "?");
			if (i + 1 < s->nframes) {
				fprintf(c->f, ",\"parent\":\"S%zu_%zu\"", k, i + 1);
			}
			fputs("}", c->f);
			first = false;
		}
	}
	fputs("}", c->f);
}

int chrome_finish(struct chrome *c)
{
	fputs("\n]", c->f);
	if (c->nstacks) {
		stack_frames(c);
	}
	fputs("}\n", c->f);
	return ferror(c->f) ? -EIO : 0;
}

void chrome_free(struct chrome *c)
{
	if (c) {
		free(c->stack_seen);
		free(c->stack_pid);
		free(c->stack_ns);
	}
	free(c);
}
