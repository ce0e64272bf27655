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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dump_chrome.h"
#include "text_escape.h"

#define CHROME_PID 1
#define LINE_CAP   1024

/*
 * An event being made, written with one fwrite(): a large trace's millions
 * of events spent most of their time in printf's machinery.
 */
struct line {
	FILE *f;
	size_t n;
	char b[LINE_CAP];
};

struct chrome {
	FILE *f;
	struct line line;
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

static void line_flush(struct line *l)
{
	fwrite(l->b, 1, l->n, l->f);
	l->n = 0;
}

static void line_put(struct line *l, const char *s, size_t n)
{
	if (n > LINE_CAP - l->n) {
		line_flush(l);
		if (n > LINE_CAP) {
			fwrite(s, 1, n, l->f);
			return;
		}
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

#define LINE_LIT(l, s) line_put(l, s, sizeof(s) - 1)

static void line_str(struct line *l, const char *s)
{
	line_put(l, s, strlen(s));
}

/* @v in decimal, as printf's %u. */
static void line_u64(struct line *l, uint64_t v)
{
	char tmp[20], *p = tmp + sizeof(tmp);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	line_put(l, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* "0x" and @v in lower-case hex, as printf's 0x%x. */
static void line_hex(struct line *l, uint64_t v)
{
	char tmp[18], *p = tmp + sizeof(tmp);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	line_put(l, p, (size_t)(tmp + sizeof(tmp) - p));
}

/* @a ns as microseconds with three decimals, exactly (a slice ends where the next begins). */
static void line_abs_us(struct line *l, uint64_t a)
{
	char frac[4] = {'.', (char)('0' + a % 1000 / 100), (char)('0' + a % 100 / 10),
			(char)('0' + a % 10)};

	line_u64(l, a / 1000);
	line_put(l, frac, sizeof(frac));
}

/* @ns as microseconds with three decimals, its sign before them. */
static void line_us(struct line *l, int64_t ns)
{
	if (ns < 0) {
		LINE_LIT(l, "-");
	}
	line_abs_us(l, ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns);
}

/* @s as put_json_text() writes it: at once when nothing in it needs a look. */
static void line_json_text(struct line *l, const char *s)
{
	size_t n = json_plain_len(s);

	if (n == SIZE_MAX) {
		line_flush(l);
		put_json_text(l->f, s);
		return;
	}
	LINE_LIT(l, "\"");
	line_put(l, s, n);
	LINE_LIT(l, "\"");
}

/* The start of an event made in @c's line. */
static struct line *begin_line(struct chrome *c)
{
	struct line *l = &c->line;

	l->n = 0;
	if (c->comma) {
		LINE_LIT(l, ",\n");
	} else {
		LINE_LIT(l, "\n");
	}
	c->comma = true;
	return l;
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
	c->line.f = out;
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
	struct line *l = begin_line(c);

	LINE_LIT(l, "{\"name\":");
	line_json_text(l, name);
	LINE_LIT(l, ",\"cat\":\"thread\",\"ph\":\"X\",\"ts\":");
	line_us(l, s->t0);
	LINE_LIT(l, ",\"dur\":");
	/* t1 >= t0; the difference of two int64 is exact in uint64 (a damaged file's times) */
	line_abs_us(l, (uint64_t)s->t1 - (uint64_t)s->t0);
	LINE_LIT(l, ",\"pid\":");
	line_u64(l, pid);
	LINE_LIT(l, ",\"tid\":");
	line_u64(l, tid);
	LINE_LIT(l, ",\"args\":{\"tid\":");
	line_u64(l, s->tid);
	LINE_LIT(l, ",\"cpu\":");
	line_u64(l, s->cpu);
	if (!s->opened) {
		LINE_LIT(l, ",\"from_start\":true");
	}
	LINE_LIT(l, "}}");
	line_flush(l);
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
	struct line *l;

	wake_track(c, wk->waker, wk->waker_thread, wk->from_cpu, &pid, &tid);
	l = begin_line(c);
	LINE_LIT(l, "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"s\",\"id\":");
	line_u64(l, id);
	LINE_LIT(l, ",\"ts\":");
	line_us(l, wk->t0);
	LINE_LIT(l, ",\"pid\":");
	line_u64(l, pid);
	LINE_LIT(l, ",\"tid\":");
	line_u64(l, tid);
	LINE_LIT(l, ",\"args\":{\"waker\":");
	line_u64(l, wk->waker);
	LINE_LIT(l, ",\"tid\":");
	line_u64(l, wk->tid);
	LINE_LIT(l, ",\"cpu\":");
	line_u64(l, wk->from_cpu);
	LINE_LIT(l, "}}");
	line_flush(l);
	wake_track(c, wk->tid, wk->thread, wk->cpu, &pid, &tid);
	l = begin_line(c);
	LINE_LIT(l, "{\"name\":\"wakeup\",\"cat\":\"wakeup\",\"ph\":\"f\",\"bp\":\"e\",\"id\":");
	line_u64(l, id);
	LINE_LIT(l, ",\"ts\":");
	line_us(l, wk->t1);
	LINE_LIT(l, ",\"pid\":");
	line_u64(l, pid);
	LINE_LIT(l, ",\"tid\":");
	line_u64(l, tid);
	LINE_LIT(l, "}");
	line_flush(l);
}

static void on_flush(struct chrome *c, const struct etwforge_item *fl)
{
	const char *why = etwforge_flush_seen_name(fl->reason);
	struct line *l = begin_line(c);

	LINE_LIT(l, "{\"name\":\"flush: ");
	line_str(l, why);
	LINE_LIT(l, "\",\"cat\":\"batch\",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
	line_us(l, fl->t0);
	LINE_LIT(l, ",\"pid\":");
	line_u64(l, CHROME_PID);
	LINE_LIT(l, ",\"tid\":");
	line_u64(l, fl->cpu + 1);
	LINE_LIT(l, ",\"args\":{\"reason\":\"");
	line_str(l, why);
	LINE_LIT(l, "\",\"batch\":");
	line_u64(l, fl->batch);
	LINE_LIT(l, ",\"tids\":");
	line_u64(l, fl->tids);
	LINE_LIT(l, ",\"record_bytes\":");
	line_u64(l, fl->record_bytes);
	LINE_LIT(l, "}}");
	line_flush(l);
}

static void on_spin(struct chrome *c, const struct etwforge_item *sp)
{
	const struct etwforge_spinlock *lk = sp->lock;
	const char *kind = etwforge_spin_seen_name(sp->reason);
	struct line *l = begin_line(c);

	LINE_LIT(l, "{\"name\":\"spinlock: ");
	line_str(l, kind);
	LINE_LIT(l, "\",\"cat\":\"spinlock\",\"ph\":\"i\",\"s\":\"t\",\"ts\":");
	line_us(l, sp->t0);
	LINE_LIT(l, ",\"pid\":");
	line_u64(l, CHROME_PID);
	LINE_LIT(l, ",\"tid\":");
	line_u64(l, sp->cpu + 1);
	LINE_LIT(l, ",\"args\":{\"kind\":\"");
	line_str(l, kind);
	LINE_LIT(l, "\",\"lock\":\"");
	line_hex(l, lk->lock);
	LINE_LIT(l, "\",\"caller\":\"");
	line_hex(l, lk->caller);
	LINE_LIT(l, "\",\"tid\":");
	line_u64(l, lk->tid);
	LINE_LIT(l, ",\"spin_count\":");
	line_u64(l, lk->spin_count);
	LINE_LIT(l, ",\"wait_cycles\":");
	line_u64(l, lk->wait_cycles);
	LINE_LIT(l, ",\"hold_cycles\":");
	line_u64(l, lk->release_time - lk->acquire_time);
	LINE_LIT(l, ",\"irql\":");
	line_u64(l, lk->irql);
	LINE_LIT(l, "}}");
	line_flush(l);
}

/* A sample "P" event, its stack noted for the frames written at the end. */
static void on_sample(struct chrome *c, const struct etwforge_item *sm)
{
	const struct etwforge_thread_row *t = own_track(c, sm->thread);
	struct etwforge_location w;
	struct line *l;

	etwforge_analysis_locate(c->v->an, sm->pid, sm->ip, sm->t0, &w);
	l = begin_line(c);
	LINE_LIT(l, "{\"name\":");
	line_json_text(l, w.text);
	LINE_LIT(l, ",\"cat\":\"sample\",\"ph\":\"P\",\"ts\":");
	line_us(l, sm->t0);
	LINE_LIT(l, ",\"pid\":");
	line_u64(l, t ? t->pid : (uint32_t)CHROME_PID);
	LINE_LIT(l, ",\"tid\":");
	line_u64(l, t ? sm->tid : sm->cpu + 1);
	if (sm->stack >= 0 && (size_t)sm->stack < c->nstacks) {
		size_t k = (size_t)sm->stack;

		LINE_LIT(l, ",\"sf\":\"S");
		line_u64(l, k);
		LINE_LIT(l, "_0\"");
		if (!c->stack_seen[k]) {
			c->stack_seen[k] = true;
			c->stack_pid[k] = sm->pid;
			c->stack_ns[k] = sm->t0;
		}
	}
	LINE_LIT(l, ",\"args\":{\"tid\":");
	line_u64(l, sm->tid);
	LINE_LIT(l, ",\"pid\":");
	line_u64(l, sm->pid);
	LINE_LIT(l, ",\"cpu\":");
	line_u64(l, sm->cpu);
	LINE_LIT(l, ",\"ip\":\"");
	line_hex(l, sm->ip);
	LINE_LIT(l, "\"}}");
	line_flush(l);
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
