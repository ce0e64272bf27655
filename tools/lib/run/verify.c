// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/verify.c - run_verify(): check every recoverable field of
 * every logged event of one session against the truth stream, CPU by CPU,
 * and report the first mismatch with its byte offset.
 *
 * Plain CSwitch and SpinLock events carry every field. A compact switch
 * carries its time, old thread, old priority, state or wait reason and
 * (FULL) the new thread's wait; its new thread is the next switch's old
 * thread; a LITE record only says the wait was <= 1. The batch around the
 * records is checked too: its header TS and PMC items belong to the switch
 * that flushed it (the first of the next batch), or to the end of tracing.
 * A delta of exactly 0x40000000 wraps to 0 in the kernel's 30-bit field;
 * that quirk shifts the rest of the batch and is accepted as such. Fields
 * the kernel keeps wider than the wire are compared after the kernel's
 * rule (the rank saturates, the quantum and wait cycles keep 32 bits).
 * The identity and rundown records are verify_ident.c's: it is told each
 * switch, batch and spin-lock record matched here (a batch when the switch
 * that flushed it, or the end, comes) so that it can hold them in order.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/run/input_check.h"
#include "tools/lib/run/run.h"
#include "tools/lib/read/event_stream.h"
#include "tools/lib/truth/truth.h"
#include "tools/lib/run/truth_match.h"
#include "tools/lib/run/verify_ident.h"
#include "tools/lib/truth/truth_schema.h"
#include "producer/trace_sink.h"
#include "writer/etl_wire.h"

struct cpu_state {
	struct dec_cursor sw;	/* CSwitch or compact events */
	struct dec_cursor spin; /* SpinLock events */
	uint64_t switches;
	uint64_t skew; /* accumulated 0x40000000 wraps in the current batch */
	bool dropped;  /* flush_at_end false: the rest of the CPU's switches were dropped */
	bool have_batch;
	struct etl_record last_batch;
	unsigned long last_batch_line;
};

struct verify {
	const char *file;
	const char *truth_path;
	struct trace_config *cfg;
	const struct trace_session_cfg *s;
	const struct etl_reader *d;
	struct cpu_state *cpus;
	uint64_t n_plain, n_compact, n_spin, n_batches;
	unsigned long line; /* current truth line */
	struct etwforge_error *err;
	uint64_t end_ts[SIM_CLOCK_SLOTS]; /* the "end" line's */
	uint64_t n_rundown;		  /* spin-lock configuration rundown events */
	struct verify_ident ident;	  /* the identity records (verify_ident.c) */
};

/* The negative errno of the failure @v->err says (a check that failed: -EBADMSG). */
static int verify_failed(const struct verify *v)
{
	return v->err->code < 0 ? v->err->code : -EBADMSG;
}

static int mismatch(struct verify *v, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The first mismatch: `FILE: offset 0x...: what (truth T:LINE)`. */
static int mismatch(struct verify *v, uint64_t off, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	error_fail_at(v->err, -EBADMSG, ERR_DATA, "%s: offset 0x%" PRIx64 ": %s (truth %s:%lu)",
		      v->file, off, what, v->truth_path, v->line);
	return verify_failed(v);
}

#define CHECK(v, off, what, got, want)                                                             \
	do {                                                                                       \
		if ((uint64_t)(got) != (uint64_t)(want)) {                                         \
			return mismatch(v, off, "%s is %lld, the truth says %lld", what,           \
					(long long)(got), (long long)(want));                      \
		}                                                                                  \
	} while (0)

/* PMC items the session's file carries on @hook (the producer's one policy). */
static unsigned want_items(const struct verify *v, uint16_t hook)
{
	const struct trace_session_cfg *s = v->s;

	return producer_stamps(s->flags, s->pebs, s->pmc_events, s->pmc_event_count,
			       v->cfg->pebs_and_pmc, hook)
		       ? s->pmc_count
		       : 0;
}

/* The PMC items of @rec against the values @pmc (NULL = zero-filled). */
static int check_pmc(struct verify *v, const struct etl_record *rec, unsigned want_count,
		     const uint64_t *pmc, const char *what)
{
	CHECK(v, rec->file_offset, what, rec->pmc_count, want_count);
	for (unsigned j = 0; j < want_count; j++) {
		uint64_t want = pmc ? pmc[v->s->pmc_counters[j]] : 0;

		if (rec->pmc[j] != want) {
			return mismatch(v, rec->file_offset + 0x10 + 8u * (rec->has_pebs + j),
					"PMC counter %u is %" PRIu64 ", the truth says %" PRIu64, j,
					rec->pmc[j], want);
		}
	}
	return 0;
}

/* Return: 0 event, 1 none left and @may_end, -1 reported error. */
static int next_event(struct verify *v, struct dec_cursor *c, struct dec_event *ev,
		      const char *what, unsigned cpu, bool may_end)
{
	struct etl_error err;
	int r = dec_cursor_next(c, ev, &err);

	if (r < 0) {
		error_fail_at(v->err, -EINVAL, ERR_DATA, "%s", err.msg);
		return verify_failed(v);
	}
	if (r == 0 && may_end) {
		return 1;
	}
	if (r == 0) {
		error_fail_at(v->err, -EBADMSG, ERR_DATA,
			      "%s: cpu %u: the file has no more %s events, the truth has one more "
			      "(truth %s:%lu)",
			      v->file, cpu, what, v->truth_path, v->line);
		return verify_failed(v);
	}
	return 0;
}

/*
 * A payload's fields as their table says (producer/records/): when its
 * row's vwhen holds, the file's value (the row's "from", of its C type)
 * must be what the truth gives (its "want"); the message names the field
 * and its offset (@base + its row's).
 */
#define VERIFY_ROW(x, name, ctype, json, jpass, jwhen, from, at, what, vwhen, want, back)          \
	if (vwhen) {                                                                               \
		CHECK(v, base + (at), what, (ctype)(from), want);                                  \
	}

static int check_plain(struct verify *v, const struct sim_cswitch *cs, const struct dec_event *ev)
{
	const struct etw_cswitch *w = &ev->u.cs;
	const struct etl_record *rec = &ev->rec;
	const unsigned ver = rec->version;
	uint64_t base = ev->file_offset + 0x10 + 8u * (rec->has_pebs + rec->pmc_count);
	const struct trace_session_cfg *s = v->s;
	unsigned want_pmc = 0;

	CHECK(v, rec->file_offset + 8, "the timestamp", rec->ts, cs->ts[s->clock]);
	CHECK(v, rec->file_offset, "the CSwitch version", rec->version,
	      v->cfg->target->cswitch_version);
	ETW_CSWITCH_FIELDS(VERIFY_ROW, )
	CHECK(v, rec->file_offset, "the PEBS item", rec->has_pebs, s->pebs);
	if (s->pebs) {
		CHECK(v, rec->file_offset + 0x10, "PebsIndex", rec->pebs_index, cs->pebs_index);
	}
	want_pmc = want_items(v, ETW_HOOK_CSWITCH);
	return check_pmc(v, rec, want_pmc, cs->pmc, "the number of PMC items");
}

/* The batch that @ev's switch flushed (the previous one on the CPU) ends here. */
static int check_batch_close(struct verify *v, struct cpu_state *st, uint64_t ts,
			     const uint64_t *pmc)
{
	const struct etl_record *b = &st->last_batch;
	unsigned want_pmc = want_items(v, ETW_HOOK_CSWITCH_BATCH);

	if (b->ts != ts) {
		return mismatch(v, b->file_offset + 8,
				"batch header TS is %" PRIu64
				", the flushing switch's time is %" PRIu64,
				b->ts, ts);
	}
	CHECK(v, b->file_offset, "the batch version", b->version, ETW_VERSION_BATCH);
	if (b->size > ETW_BATCH_CAP + 8u * b->pmc_count) {
		return mismatch(v, b->file_offset + 4, "batch Size 0x%x is above the 0x400 cap",
				b->size);
	}
	return check_pmc(v, b, want_pmc, pmc, "the number of PMC items on the batch");
}

static int check_compact(struct verify *v, struct cpu_state *st, const struct sim_cswitch *cs,
			 const struct dec_event *ev)
{
	const struct etw_cswitch_compact *cc = &ev->u.cc;
	uint64_t off = ev->file_offset;
	uint64_t want_ts, delta;

	if (ev->batch_first) {
		if (st->have_batch) {
			if (check_batch_close(v, st, cs->ts[v->s->clock], cs->pmc) < 0) {
				return verify_failed(v);
			}
			vident_placed(&v->ident, cs->cpu); /* the switch flushed it here */
		}
		st->have_batch = true;
		st->last_batch = ev->rec;
		st->skew = 0;
		v->n_batches++;
	}
	want_ts = cs->ts[v->s->clock] - st->skew;
	delta = cc->delta;
	if (cc->ts != want_ts && !ev->batch_first && cc->delta == 0 &&
	    want_ts - cc->ts == 0x40000000u &&
	    (cc->form == ETW_CCSWAP_FULL || cc->form == ETW_CCSWAP_IDLE)) {
		/* the kernel's 30-bit field wrapped a delta of exactly 0x40000000 */
		st->skew += 0x40000000u;
		want_ts -= 0x40000000u;
		delta = 0x40000000u;
	}
	if (cc->ts != want_ts) {
		return mismatch(v, off,
				"compact switch time is %" PRIu64 ", the truth says %" PRIu64,
				cc->ts, want_ts);
	}
	CHECK(v, off, "the old thread", cc->old_tid, cs->old_tid);
	if (cs->old_tid == 0) {
		bool short_form = delta < 0x4000;

		CHECK(v, off, "the idle record form (0 IDLE_SHORT, 1 IDLE)", cc->form,
		      short_form ? ETW_CCSWAP_IDLE_SHORT : ETW_CCSWAP_IDLE);
	} else {
		uint32_t wait = cs->new_tid ? cs->new_wait_ticks : 0;
		int8_t base = (int8_t)ev->rec.payload[ETW_CCB_BASE_PRI + cc->tid_index];
		uint32_t inc = (uint32_t)((int32_t)cs->old_pri - (int32_t)base);
		bool lite = wait <= 1 && delta < 0x20000 && inc <= 7;

		CHECK(v, off, "the record form (2 LITE, 3 FULL)", cc->form,
		      lite ? ETW_CCSWAP_LITE : ETW_CCSWAP_FULL);
		CHECK(v, off, "the old thread's priority", cc->old_pri, cs->old_pri);
		if (cs->old_state == ETW_THREAD_STATE_WAITING) {
			CHECK(v, off, "the old thread's state", cc->old_state, cs->old_state);
			CHECK(v, off, "the old thread's wait reason", cc->old_wait_reason,
			      cs->old_wait_reason);
		} else {
			CHECK(v, off, "the old thread's state", cc->old_state, cs->old_state);
		}
		if (cc->form == ETW_CCSWAP_FULL) {
			CHECK(v, off, "NewThreadWaitTime", cc->wait_time,
			      wait > ETW_CCSWAP_WAIT_SAT ? ETW_CCSWAP_WAIT_SAT : wait);
		}
	}
	if (ev->new_tid_known) {
		CHECK(v, off, "the new thread (the next switch's old thread)", ev->new_tid,
		      cs->new_tid);
	}
	return 0;
}

static int check_spin(struct verify *v, const struct sim_spinlock *sl, const struct dec_event *ev)
{
	const struct etw_spinlock *w = &ev->u.sl;
	const struct etl_record *rec = &ev->rec;
	uint64_t base = ev->file_offset;
	uint64_t mask = v->cfg->arch == ETL_ARCH_X86 ? 0xFFFFFFFFu : UINT64_MAX;

	CHECK(v, base + 8, "the timestamp", rec->ts, sl->ts[v->s->clock]);
	ETW_SPINLOCK_FIELDS(VERIFY_ROW, )
	return check_pmc(v, rec, want_items(v, ETW_HOOK_SPINLOCK), sl->pmc,
			 "the number of PMC items");
}

static int on_cswitch(struct verify *v, const struct sim_cswitch *cs)
{
	struct cpu_state *st = &v->cpus[cs->cpu];
	struct dec_event ev;

	if (!(v->s->flags & PRODUCER_F_CSWITCH)) {
		return 0;
	}
	st->switches++;
	if (v->s->flags & PRODUCER_F_COMPACT) {
		int r;

		if (st->dropped) {
			return 0;
		}
		/* without the end-of-trace flush, the CPU's last batch never reached the file */
		r = next_event(v, &st->sw, &ev, "compact CSwitch", cs->cpu, !v->cfg->flush_at_end);
		if (r < 0) {
			return verify_failed(v);
		}
		if (r > 0) {
			/*
			 * This switch is the first of the batch that never reached the
			 * file: it flushed the CPU's last batch in the file (if any),
			 * whose header time and PMC items are then this switch's.
			 */
			st->dropped = true;
			if (st->have_batch) {
				if (check_batch_close(v, st, cs->ts[v->s->clock], cs->pmc) < 0) {
					return verify_failed(v);
				}
				st->have_batch = false;
				vident_placed(&v->ident, cs->cpu);
			}
			return 0;
		}
		v->n_compact++;
		return check_compact(v, st, cs, &ev);
	}
	if (next_event(v, &st->sw, &ev, "CSwitch", cs->cpu, false) < 0) {
		return verify_failed(v);
	}
	vident_placed(&v->ident, cs->cpu);
	v->n_plain++;
	return check_plain(v, cs, &ev);
}

/*
 * A truth from gen (meta "spinlock"."rows") carries the PRCB counters of
 * every release: the kernel's predicate must say what the line says. With
 * "all" every release is checked (so the logged set is exactly the
 * predicate's), with "logged" each logged one.
 */
static int check_sampling(struct verify *v, const struct sim_spinlock *sl)
{
	const struct spin_prcb prcb = {sl->acquire_count, sl->contention_count};
	enum sim_spin_why want;

	if (v->cfg->spin_rows == TRACE_SPIN_ROWS_UNKNOWN) {
		return 0;
	}
	if (sl->untracked || sl->guarded) {
		if (!sl->logged) {
			return 0;
		}
		error_fail_at(v->err, -EBADMSG, ERR_DATA,
			      "%s:%lu: spinlock: logged, but the kernel logs no release %s",
			      v->truth_path, v->line,
			      sl->untracked ? "acquired past its 8-deep stack"
					    : "made inside its own logger (re-entrancy guard)");
		return verify_failed(v);
	}
	want = spin_sample(&v->cfg->spin, &prcb, sl->acquire_time, sl->release_time,
			   sl->spin_count);
	if ((want != SIM_SPIN_NONE) == sl->logged && (!sl->logged || want == sl->why)) {
		return 0;
	}
	error_fail_at(v->err, -EBADMSG, ERR_DATA,
		      "%s:%lu: spinlock: the sampling predicate says %s (held %" PRIu32
		      " cycles, spin_count %" PRIu32 ", acquire_count %" PRIu32
		      ", contention_count %" PRIu32 "), the line says %s",
		      v->truth_path, v->line, truth_why_names[want],
		      (uint32_t)(sl->release_time - sl->acquire_time), sl->spin_count,
		      sl->acquire_count, sl->contention_count,
		      sl->logged ? truth_why_names[sl->why] : "not logged");
	return verify_failed(v);
}

static int on_spinlock(struct verify *v, const struct sim_spinlock *sl)
{
	struct dec_event ev;

	if (check_sampling(v, sl) < 0) {
		return verify_failed(v);
	}
	if (!(v->s->flags & PRODUCER_F_SPINLOCK) || !sl->logged) {
		return 0;
	}
	if (next_event(v, &v->cpus[sl->cpu].spin, &ev, "SpinLock", sl->cpu, false) < 0) {
		return verify_failed(v);
	}
	vident_placed(&v->ident, sl->cpu);
	v->n_spin++;
	return check_spin(v, sl, &ev);
}

static int on_end(struct verify *v, const struct sim_end *end)
{
	memcpy(v->end_ts, end->ts, sizeof(v->end_ts));
	for (unsigned cpu = 0; cpu < v->cfg->cpus; cpu++) {
		struct cpu_state *st = &v->cpus[cpu];
		struct dec_event ev;
		struct etl_error err;
		int r;

		if (st->have_batch) {
			if (!v->cfg->flush_at_end) {
				/* the pending batch was dropped: what was logged must be complete */
			} else if (check_batch_close(v, st, end->ts[v->s->clock], NULL) < 0) {
				return verify_failed(v);
			} else {
				vident_placed(&v->ident, cpu); /* flushed at the end */
			}
		}
		struct dec_cursor *cur[2] = {&st->sw, &st->spin};
		for (unsigned k = 0; k < 2; k++) {
			r = dec_cursor_next(cur[k], &ev, &err);
			if (r < 0) {
				error_fail_at(v->err, -EINVAL, ERR_DATA, "%s", err.msg);
				return verify_failed(v);
			}
			if (r > 0) {
				return mismatch(v, ev.file_offset,
						"cpu %u: an event the truth does not have", cpu);
			}
		}
	}
	return vident_end(&v->ident, end->ts) < 0 ? verify_failed(v) : 0;
}

/*
 * The session FILE.etl is: the one named by --session, else the one whose
 * file has FILE's name, else the only one, else the one whose name is the
 * file's LoggerName (standard input has no name).
 */
static int find_session(const struct trace_config *cfg, const char *file, const char *name,
			const char *logger_name)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	int by_logger = -1, n_logger = 0;

	for (unsigned i = 0; i < cfg->nsessions; i++) {
		const char *sf = cfg->sessions[i].file;
		const char *sb = strrchr(sf, '/') ? strrchr(sf, '/') + 1 : sf;

		if (name ? !strcmp(cfg->sessions[i].name, name) : !strcmp(sb, base)) {
			return (int)i;
		}
		if (!strcmp(cfg->sessions[i].name, logger_name)) {
			by_logger = (int)i;
			n_logger++;
		}
	}
	if (!name && cfg->nsessions == 1) {
		return 0;
	}
	return !name && n_logger == 1 ? by_logger : -1;
}

/* The truth's and the file's machine must be the same one (truth_match.c). */
static int check_machine(struct verify *v, const struct etl_logfile *lf)
{
	if (truth_match(v->cfg, (int)(v->s - v->cfg->sessions), lf, v->truth_path, v->file,
			v->err) < 0) {
		return -EBADMSG;
	}
	if (lf->events_lost) {
		return error_fail_at(
			v->err, -EBADMSG, ERR_DATA,
			"%s: %u events were lost (EventsLost): the file cannot match the "
			"truth event for event",
			v->file, lf->events_lost);
	}
	return 0;
}

/* One rundown record @rec (hook 0x0F4B or 0x0F4C): its header and payload. */
static int check_rundown_record(struct verify *v, const struct etl_record *rec, uint64_t want_ts)
{
	const struct spin_sampling *spin = &v->cfg->spin;
	const struct etw_spinlock_config *w;
	struct etw_spinlock_config c;
	const char *what = rec->hook_id == ETW_HOOK_SPINLOCK_DC_START ? "0x0F4B" : "0x0F4C";
	uint64_t base = rec->file_offset;

	if (rec->kind != ETL_KIND_SYSTEM || rec->version != ETW_VERSION_SPINLOCK_CONFIG) {
		return mismatch(v, rec->file_offset,
				"%s: the configuration rundown has a SYSTEM header, version 3",
				what);
	}
	if (etw_decode_spinlock_config(rec->payload, rec->payload_len, &c) < 0) {
		return mismatch(v, rec->file_offset, "%s: payload shorter than 0x10 bytes", what);
	}
	w = &c;
	CHECK(v, rec->file_offset + ETL_SH_SYSTEM_TIME, "the rundown's timestamp", rec->ts,
	      want_ts);
	ETW_SPINLOCK_CONFIG_FIELDS(VERIFY_ROW, )
	v->n_rundown++;
	return 0;
}

/*
 * The spin-lock configuration rundown: a session that logs spin locks has
 * 0x0F4B as CPU 0's first record (at the start) and 0x0F4C as its last (at
 * the end), each once, with the truth's parameters; any other session none.
 */
static int check_rundown(struct verify *v)
{
	bool spin = (v->s->flags & PRODUCER_F_SPINLOCK) != 0;
	unsigned n, start = 0, end = 0;
	const unsigned *order = etl_reader_cpu_order(v->d, &n);
	struct etl_record first = {0}, last = {0};
	bool any = false;

	v->line = 1; /* the parameters are the meta line's */
	for (unsigned i = 0; i < n; i++) {
		const struct etl_buffer *b = etl_reader_buffer(v->d, order[i]);
		struct etl_record rec;
		struct etl_error err;
		size_t pos = 0;
		int r;

		while ((r = etl_buffer_next(v->d, b, &pos, &rec, &err)) > 0) {
			bool rd = rec.hook_id == ETW_HOOK_SPINLOCK_DC_START ||
				  rec.hook_id == ETW_HOOK_SPINLOCK_DC_END;

			if (rd && (rec.kind == ETL_KIND_SYSTEM || rec.kind == ETL_KIND_PERFINFO)) {
				if (!spin || rec.cpu != 0) {
					return mismatch(
						v, rec.file_offset,
						"a spin-lock configuration rundown %s",
						spin ? "on a CPU other than 0"
						     : "in a session that logs no spin locks");
				}
				start += rec.hook_id == ETW_HOOK_SPINLOCK_DC_START;
				end += rec.hook_id == ETW_HOOK_SPINLOCK_DC_END;
			}
			if (rec.cpu == 0) {
				if (!any) {
					first = rec;
				}
				last = rec;
				any = true;
			}
		}
		if (r < 0) {
			return error_fail_at(v->err, -EINVAL, ERR_DATA, "%s", err.msg);
		}
	}
	if (!spin) {
		return 0;
	}
	if (start != 1 || end != 1 || first.hook_id != ETW_HOOK_SPINLOCK_DC_START ||
	    last.hook_id != ETW_HOOK_SPINLOCK_DC_END) {
		error_fail_at(v->err, -EBADMSG, ERR_DATA,
			      "%s: session '%s' logs spin locks: CPU 0 must start with one 0x0F4B "
			      "and end with one 0x0F4C (configuration rundown); found %u and %u",
			      v->file, v->s->name, start, end);
		return verify_failed(v);
	}
	if (check_rundown_record(v, &first,
				 v->cfg->have_start_ts ? v->cfg->start_ts[v->s->clock] : first.ts) <
	    0) {
		return verify_failed(v);
	}
	return check_rundown_record(v, &last, v->end_ts[v->s->clock]);
}

/*
 * After a mismatch: the rest of the truth must be a stream, or the stream's
 * fault is what is said (as replay says it: a bad stream is the input's
 * fault, whichever command reads it). Return: @rc, or the stream's error.
 */
static int rest_of_stream(struct verify *v, struct truth_reader *tr, int rc)
{
	struct etwforge_error e;
	struct truth_record rec;
	int kind;

	error_ok(&e);
	while ((kind = truth_next(tr, &rec, &e)) > TRUTH_EOF) {
	}
	if (kind < 0 && v->err) {
		*v->err = e;
		return kind;
	}
	return rc;
}

/* Walk the truth, checking the file's events as they come. */
static int walk(struct verify *v, struct truth_reader *tr)
{
	struct truth_record rec;
	int kind, r;

	for (;;) {
		kind = truth_next(tr, &rec, v->err);
		if (kind < 0) {
			return kind;
		}
		if (kind == TRUTH_EOF) {
			return 0;
		}
		v->line = rec.line;
		r = 0;
		if (kind == TRUTH_CSWITCH) {
			r = on_cswitch(v, &rec.u.cs);
		} else if (kind == TRUTH_SPINLOCK) {
			r = on_spinlock(v, &rec.u.sl);
		} else if (kind == TRUTH_END) {
			r = on_end(v, &rec.u.end);
		} else if (kind >= TRUTH_PROCESS && kind <= TRUTH_DPC) {
			r = vident_line(&v->ident, kind, &rec);
		}
		if (r < 0) {
			return rest_of_stream(v, tr,
					      v->err && v->err->code ? v->err->code : -EBADMSG);
		}
	}
}

int run_verify(const char *etl, const char *truth, const char *session,
	       struct run_verify_result *res, struct etwforge_error *err)
{
	struct etwforge_error local;
	struct verify v = {0};
	struct trace_config *cfg = NULL;
	struct truth_reader *tr = NULL;
	struct etl_reader *d = NULL;
	struct etl_error derr;
	int idx, rc;

	v.err = err ? err : &local;
	error_ok(v.err);
	if (!strcmp(etl, "-") && !strcmp(truth, "-")) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "FILE.etl and --truth cannot both be '-' (standard input)");
	}
	if (run_stdin_closed(etl, err) < 0 || run_stdin_closed(truth, err) < 0) {
		return -EBADF;
	}
	v.file = etl;
	v.truth_path = truth;
	cfg = calloc(1, sizeof(*cfg));
	if (!cfg) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	tr = truth_open(truth, cfg, err);
	if (!tr) {
		rc = -EINVAL;
		goto out;
	}
	d = etl_reader_open_file_flags(etl, 0, &derr);
	if (!d) {
		rc = error_fail_at(err, -(errno ? errno : EINVAL),
				   derr.unopened ? ERR_INPUT : ERR_DATA, "%s", derr.msg);
		goto out;
	}
	idx = find_session(cfg, etl, session, etl_reader_logfile(d)->logger_name);
	if (idx < 0) {
		rc = error_fail(err, -EINVAL, ERR_INPUT,
				"%s: no session of %s %s (use --session NAME)", etl, truth,
				session ? "has that name" : "wrote a file of that name");
		goto out;
	}
	v.cfg = cfg;
	v.s = &cfg->sessions[idx];
	v.d = d;
	rc = check_machine(&v, etl_reader_logfile(d));
	if (rc < 0) {
		rc = rest_of_stream(&v, tr, rc);
		goto out;
	}
	v.cpus = calloc(cfg->cpus, sizeof(*v.cpus));
	if (!v.cpus) {
		rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		goto out;
	}
	rc = vident_init(&v.ident, etl, truth, cfg, v.s, d, v.err);
	if (rc < 0) {
		goto out;
	}
	for (unsigned cpu = 0; cpu < cfg->cpus; cpu++) {
		dec_cursor_init(&v.cpus[cpu].sw, d, cpu,
				(v.s->flags & PRODUCER_F_COMPACT) ? DEC_EV_COMPACT : DEC_EV_CSWITCH,
				cfg->max_wait_reason);
		dec_cursor_init(&v.cpus[cpu].spin, d, cpu, DEC_EV_SPINLOCK, cfg->max_wait_reason);
	}
	rc = walk(&v, tr);
	if (rc < 0) {
		goto out;
	}
	if (check_rundown(&v) < 0) {
		rc = v.err->code ? v.err->code : -EBADMSG;
		goto out;
	}
	if (res) {
		memset(res, 0, sizeof(*res));
		snprintf(res->session, sizeof(res->session), "%s", v.s->name);
		res->switches = v.n_plain + v.n_compact;
		res->plain = v.n_plain;
		res->compact = v.n_compact;
		res->batches = v.n_batches;
		res->spinlocks = v.n_spin;
		res->identity = v.ident.n;
	}
	rc = error_ok(err);
out:
	vident_free(&v.ident);
	free(v.cpus);
	etl_reader_close(d);
	truth_close(tr);
	free(cfg);
	return rc;
}
