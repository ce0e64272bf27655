// SPDX-License-Identifier: MIT
/*
 * tools/lib/fuzz/mutate.c - the structure-aware mutator behind
 * etwforge_mutator_*(): it reads an ETL file back into the stream that
 * would make it (the session set-up from the logfile header, every switch
 * and spin lock of every CPU, in time order), mutates that stream, and
 * encodes it again through the engine (producer + writer into memory). So
 * a mutant is a valid file whatever was changed, and the changes are the
 * ones that move a parser into deep states: thread churn that fills the
 * TidTable, deltas at the record-form and flush boundaries, tick jumps,
 * batch fill, thread states and priorities, spin-lock nesting and flags,
 * PMC counts, clocks, buffer sizes, CPU counts, compression.
 *
 *   input ETL ──reader──► model: trace_config + records (+ ticks made up
 *       │                 from time; what a compact batch does not carry
 *       │                 is left at 0)
 *       │ (not an ETL file: a small stream made from its bytes)
 *       ▼
 *   1..4 operators ──► repair (ranges, per-CPU time order, switches chain)
 *       ──► engine_mem ──► output ETL (shrunk until it fits max_size)
 *       ──► optionally one mangle rule (mangle.c): then it is broken on purpose
 *
 * Deterministic: the same seed and inputs give the same output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "scheduler_model/sim_rng.h"
#include "producer/ccswap_expand.h"
#include "producer/etw_encode.h"
#include "producer/etw_ktc.h"
#include "producer/etw_layout.h"
#include "producer/producer.h"
#include "producer/trace_sink.h"
#include "producer/targets.h"
#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/fuzz/mangle.h"
#include "tools/lib/fuzz/mutate.h"
#include "tools/lib/run/engine_mem.h"
#include "tools/lib/read/event_stream.h"
#include "tools/lib/truth/truth.h"
#include "writer/etl_layout.h"
#include "writer/etl_wire.h"

#define MUT_MAX_RECORDS 2048 /* what a model keeps of an input */
#define MUT_MAX_CPUS	64
#define MUT_MAX_BUFFER	65536u

#define MUT_STR_MAX    64 /* bytes of one string of an identity record, NUL included */
#define MUT_STACK_KEEP 16 /* frames a StackWalk keeps; deeper ones repeat them (encode_ident) */

/* The strings of an identity record, by slot (pointed at only while it is encoded). */
enum mstr {
	MS_IMAGE =
		0,  /* process image; thread, thread_name name; interval source; config computer */
	MS_CMDLINE, /* process command line; config domain */
	MS_PACKAGE,
	MS_APP_ID,
	MS_SID, /* "S-1-5-18"; absent: the NULL form */
	MS_SLOTS,
};

/*
 * One record of the model: a switch, a spin-lock release, a stop, or an
 * identity record (@kind TRUTH_PROCESS..TRUTH_RUNDOWN, in @u.rec, its
 * strings in @str: records are copied and moved, so no pointer is kept).
 */
struct mrec {
	enum truth_kind kind;
	uint64_t t;    /* in the session clock's units */
	uint32_t jump; /* ticks added before it (op_ticks) */
	uint32_t seq;  /* order read (a stable sort by time) */
	union {
		struct sim_cswitch cs;
		struct sim_spinlock sl;
		struct sim_ccswap_stop stop;
		struct sim_record rec;
	} u;
	bool has[MS_SLOTS];
	char str[MS_SLOTS][MUT_STR_MAX];
	/* a StackWalk's first frames (u.rec.u.stack.nips of them in all); image: none */
	uint64_t ips[MUT_STACK_KEEP];
};

static bool is_ident(const struct mrec *r)
{
	return r->kind != TRUTH_EOF && r->kind != TRUTH_CSWITCH && r->kind != TRUTH_SPINLOCK &&
	       r->kind != TRUTH_CCSWAP_STOP && r->kind != TRUTH_END;
}

/* The stream of one file: its set-up and its records in time order. */
struct model {
	struct trace_config cfg;
	struct mrec *r;
	unsigned n, cap;
	uint32_t start_tick;
};

/*
 * An input and what it decodes to, kept: AFL++ hands the same queue entry
 * to the mutator hundreds of times in a row (its custom stage), libFuzzer
 * its current unit several times, and reading a file back is most of a
 * mutant's cost. @ok: it was an ETL file (else @m is empty).
 */
struct decoded {
	bool valid, ok;
	size_t len;
	uint64_t hash; /* XXH3 of the bytes */
	struct model m;
};

struct etwforge_mutator {
	struct sim_rng rng;
	unsigned mangle_percent;
	struct model m;		  /* the one being mutated: a copy of in.m */
	struct decoded in, other; /* the last input and the last other input read */
	uint8_t *out;
	size_t out_len;
	char what[256];
};

/* ---- the model ------------------------------------------------------------------ */

/* Room for @need records (at most MUT_MAX_RECORDS * 2). Return: 0 or -ENOMEM. */
static int model_reserve(struct model *m, unsigned need)
{
	unsigned cap = m->cap ? m->cap : 256;
	struct mrec *r;

	if (need <= m->cap) {
		return 0;
	}
	if (need > MUT_MAX_RECORDS * 2) {
		return -ENOMEM;
	}
	while (cap < need) {
		cap *= 2;
	}
	r = realloc(m->r, cap * sizeof(*r));
	if (!r) {
		return -ENOMEM;
	}
	m->r = r;
	m->cap = cap;
	return 0;
}

static struct mrec *model_add(struct model *m)
{
	if (model_reserve(m, m->n + 1) < 0) {
		return NULL;
	}
	memset(&m->r[m->n], 0, sizeof(m->r[0]));
	return &m->r[m->n++];
}

/* Insert @k zeroed records at @at. Return: the first, or NULL. */
static struct mrec *model_insert(struct model *m, unsigned at, unsigned k)
{
	if (k == 0) {
		return NULL;
	}
	if (at > m->n) {
		at = m->n;
	}
	if (model_reserve(m, m->n + k) < 0) {
		return NULL;
	}
	memmove(&m->r[at + k], &m->r[at], (m->n - at) * sizeof(m->r[0]));
	memset(&m->r[at], 0, k * sizeof(m->r[0]));
	m->n += k;
	return &m->r[at];
}

static void model_delete(struct model *m, unsigned at, unsigned k)
{
	if (at >= m->n) {
		return;
	}
	if (k > m->n - at) {
		k = m->n - at;
	}
	memmove(&m->r[at], &m->r[at + k], (m->n - at - k) * sizeof(m->r[0]));
	m->n -= k;
}

static struct trace_session_cfg *sess(struct model *m)
{
	return &m->cfg.sessions[0];
}

static enum sim_clock clk(const struct model *m)
{
	return m->cfg.sessions[0].clock;
}

/* A machine and one session with etwforge's defaults, 4 KiB buffers. */
static void model_defaults(struct model *m)
{
	struct trace_session_cfg *s;

	m->n = 0;
	trace_config_defaults(&m->cfg);
	m->cfg.cpus = 1;
	m->cfg.nsessions = 1;
	s = sess(m);
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "NT Kernel Logger");
	snprintf(s->file, sizeof(s->file), "mutant.etl");
	s->clock = SIM_CLOCK_QPC;
	s->flags = PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
	s->buffer_size = 4096;
	m->cfg.have_start_ts = true;
	for (unsigned c = 1; c < SIM_CLOCK_SLOTS; c++) {
		m->cfg.start_ts[c] = 36000000000ull;
	}
}

/* The session's PMC counters: @n machine counters named C0.. in order. */
static void set_counters(struct model *m, unsigned n)
{
	struct trace_session_cfg *s = sess(m);

	if (n > SIM_MAX_PMC) {
		n = SIM_MAX_PMC;
	}
	m->cfg.ncounters = 0;
	for (unsigned j = 0; j < n; j++) {
		char name[16]; /* "C" and any unsigned: no truncation for gcc to suspect */

		snprintf(name, sizeof(name), "C%u", j);
		s->pmc_counters[j] = (uint8_t)trace_config_counter_id(&m->cfg, name);
	}
	s->pmc_count = n;
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi, uint64_t dflt)
{
	return v < lo || v > hi ? dflt : v;
}

/* 100 ns units of @d clock units (rounded down), for ticks. */
static uint64_t to_100ns(const struct model *m, uint64_t d)
{
	const struct trace_config *c = &m->cfg;

	switch (clk(m)) {
	case SIM_CLOCK_QPC:
		return d / c->perf_freq * 10000000u + d % c->perf_freq * 10000000u / c->perf_freq;
	case SIM_CLOCK_CYCLES:
		return d / c->cpu_mhz * 10u + d % c->cpu_mhz * 10u / c->cpu_mhz;
	default:
		return d;
	}
}

static uint32_t tick_at(const struct model *m, uint64_t t)
{
	uint64_t s = m->cfg.start_ts[clk(m)];

	return m->start_tick + (uint32_t)(to_100ns(m, t > s ? t - s : 0) / m->cfg.timer_resolution);
}

/*
 * A field of a decoded payload back into the model's record: its table's
 * "back" (producer/records/), what the mutator carries.
 */
#define BACK_ROW(x, name, ctype, json, jpass, jwhen, from, at, what, vwhen, want, back) back;

/* The sampling parameters of the first spin-lock configuration rundown (0x0F4B) of @d. */
static void spin_config_from(struct model *m, const struct etl_reader *d)
{
	for (unsigned i = 1; i < etl_reader_buffer_count(d); i++) {
		const struct etl_buffer *b = etl_reader_buffer(d, i);
		struct etw_spinlock_config sc;
		struct etwforge_spinlock_config pub;
		const struct etwforge_spinlock_config *o = &pub;
		struct spin_sampling p;
		struct spin_sampling *sp = &p;
		struct etl_record r;
		struct etl_error e;
		const char *why;
		size_t pos = 0;

		while (etl_buffer_next(d, b, &pos, &r, &e) > 0) {
			if (r.kind != ETL_KIND_SYSTEM || r.hook_id != ETW_HOOK_SPINLOCK_DC_START ||
			    etw_decode_spinlock_config(r.payload, r.payload_len, &sc) < 0) {
				continue;
			}
			read_conv_spinlock_config(&sc, &pub);
			ETW_SPINLOCK_CONFIG_FIELDS(BACK_ROW, )
			if (spin_sampling_check(&p, &why) == 0) {
				m->cfg.spin = p;
			}
			return;
		}
	}
}

/* The session set-up of the file @d. */
static void config_from(struct model *m, const struct etl_reader *d)
{
	const struct etl_logfile *lf = etl_reader_logfile(d);
	const struct etw_target *t = etw_target_by_build(lf->provider_version);
	struct trace_session_cfg *s = sess(m);
	uint32_t bs = lf->buffer_size / 4096u * 4096u;

	m->cfg.arch = lf->is64 ? ETL_ARCH_X64 : ETL_ARCH_X86;
	m->cfg.cpus = (unsigned)clamp_u64(lf->number_of_processors, 1, MUT_MAX_CPUS, 1);
	if (t) {
		m->cfg.target = t;
		m->cfg.max_wait_reason = t->max_wait_reason;
	}
	m->cfg.cpu_mhz = (uint32_t)clamp_u64(lf->cpu_speed_mhz, 1, 100000, 3000);
	m->cfg.perf_freq = clamp_u64((uint64_t)lf->perf_freq, 1, 10000000000ull, 10000000);
	m->cfg.timer_resolution = (uint32_t)clamp_u64(lf->timer_resolution, 5000, 156250, 156250);
	if (lf->start_time > 0 && lf->start_time < (int64_t)1 << 61) {
		m->cfg.start_time = lf->start_time;
		m->cfg.boot_time = lf->boot_time > 0 && lf->boot_time <= lf->start_time
					   ? lf->boot_time
					   : lf->start_time - 36000000000ll;
	}
	s->clock = lf->reserved_flags >= 1 && lf->reserved_flags <= 3
			   ? (enum sim_clock)lf->reserved_flags
			   : SIM_CLOCK_QPC;
	s->buffer_size = (uint32_t)clamp_u64(bs, 4096, MUT_MAX_BUFFER, 4096);
	s->compress = (lf->log_file_mode & ETL_MODE_COMPRESSED) != 0;
	if (lf->header_system_time < (uint64_t)1 << 62) {
		m->cfg.start_ts[s->clock] = lf->header_system_time;
	}
	m->start_tick = (uint32_t)(36000000000ull / m->cfg.timer_resolution);
	spin_config_from(m, d);
}

/* One CPU's events of @d as model records (appended), and what they say of the session. */
static void events_from(struct model *m, const struct etl_reader *d, unsigned cpu, unsigned *flags,
			unsigned *pmc, bool *pebs, uint16_t *pmc_hooks)
{
	struct dec_cursor c;
	struct dec_event ev;
	struct etl_error e;
	const struct trace_config *cfg = &m->cfg;

	dec_cursor_init(&c, d, cpu, DEC_EV_CSWITCH | DEC_EV_COMPACT | DEC_EV_SPINLOCK,
			cfg->max_wait_reason);
	while (m->n < MUT_MAX_RECORDS) {
		int r = dec_cursor_next(&c, &ev, &e);
		struct mrec *x;

		if (r == 0) {
			break;
		}
		if (r < 0) {
			continue; /* a damaged batch: the cursor goes on after it */
		}
		x = model_add(m);
		if (!x) {
			return;
		}
		for (unsigned j = 0; j < ev.rec.pmc_count && j < SIM_MAX_PMC; j++) {
			x->u.cs.pmc[j] = ev.rec.pmc[j];
		}
		if (ev.rec.pmc_count > *pmc) {
			*pmc = ev.rec.pmc_count;
		}
		if (ev.rec.pmc_count) {
			*pmc_hooks |= ev.kind == DEC_EV_SPINLOCK  ? 4u
				      : ev.kind == DEC_EV_COMPACT ? 2u
								  : 1u;
		}
		*pebs = *pebs || ev.rec.has_pebs;
		if (ev.kind == DEC_EV_SPINLOCK) {
			struct sim_spinlock *sl = &x->u.sl;
			uint64_t pmcv[SIM_MAX_COUNTERS];
			struct etwforge_spinlock pub;
			const struct etwforge_spinlock *o = &pub;

			memcpy(pmcv, x->u.cs.pmc, sizeof(pmcv));
			memset(sl, 0, sizeof(*sl));
			memcpy(sl->pmc, pmcv, sizeof(sl->pmc));
			x->kind = TRUTH_SPINLOCK;
			x->t = ev.rec.ts;
			sl->cpu = cpu;
			read_conv_spinlock(&ev.u.sl, &pub);
			ETW_SPINLOCK_FIELDS(BACK_ROW, )
			sl->logged = true;
			sl->why = SIM_SPIN_CONTENDED;
			*flags |= PRODUCER_F_SPINLOCK;
			continue;
		}
		x->kind = TRUTH_CSWITCH;
		x->u.cs.cpu = cpu;
		x->u.cs.pebs_index = ev.rec.pebs_index;
		if (ev.kind == DEC_EV_CSWITCH) {
			struct sim_cswitch *cs = &x->u.cs;
			struct etwforge_cswitch pub;
			const struct etwforge_cswitch *o = &pub;

			x->t = ev.rec.ts;
			read_conv_cswitch(&ev.u.cs, ev.rec.version, &pub);
			ETW_CSWITCH_FIELDS(BACK_ROW, )
			*flags |= PRODUCER_F_CSWITCH;
		} else {
			const struct etw_cswitch_compact *cc = &ev.u.cc;
			struct sim_cswitch *cs = &x->u.cs;
			struct etw_ccswap_buffer hdr;

			x->t = cc->ts;
			cs->old_tid = cc->old_tid;
			cs->new_tid = ev.new_tid_known ? ev.new_tid : 0;
			cs->old_pri = cc->old_pri;
			cs->old_base_pri = cc->old_pri;
			if (cc->form == ETW_CCSWAP_LITE &&
			    etw_decode_ccswap_buffer(ev.rec.payload, ev.rec.payload_len, &hdr) >
				    0) {
				cs->old_base_pri = hdr.base_pri[cc->tid_index & 15u];
			}
			cs->old_state = cc->old_state;
			cs->old_wait_reason = cc->old_wait_reason;
			cs->new_wait_ticks = cc->wait_le1 ? 0 : cc->wait_time;
			*flags |= PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
		}
	}
}

/* ---- identity records ------------------------------------------------------------ */

/* @w as UTF-8 into slot @k of @x ("" when it does not fit). */
static void put_wstr(struct mrec *x, enum mstr k, struct etw_wstr w)
{
	if (etw_wstr_to_utf8(w, x->str[k], MUT_STR_MAX) < 0) {
		x->str[k][0] = '\0';
	}
	x->has[k] = true;
}

/* ANSI @s (NUL-terminated in its record) into slot @k, as ASCII: no byte above 0x7F. */
static void put_ansi(struct mrec *x, enum mstr k, const char *s)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < MUT_STR_MAX; i++) {
		x->str[k][i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	}
	x->str[k][i] = '\0';
	x->has[k] = true;
}

/* @sid as "S-R-A-s1-..." into slot MS_SID (absent: the NULL form). */
static void put_sid(struct mrec *x, const struct etw_sid *sid)
{
	uint64_t auth = 0;
	size_t n;

	if (!sid->present) {
		return;
	}
	for (unsigned k = 0; k < ETW_SID_AUTHORITY_LEN; k++) {
		auth = auth << 8 | sid->authority[k];
	}
	n = (size_t)snprintf(x->str[MS_SID], MUT_STR_MAX, "S-%u-%llu",
			     sid->revision ? sid->revision : 1u, (unsigned long long)auth);
	for (unsigned k = 0; k < sid->sub_count && n < MUT_STR_MAX; k++) {
		int w = snprintf(x->str[MS_SID] + n, MUT_STR_MAX - n, "-%u", sid->sub[k]);

		if (w < 0 || (size_t)w >= MUT_STR_MAX - n) {
			x->str[MS_SID][n] = '\0'; /* the sub-authorities that fit */
			break;
		}
		n += (size_t)w;
	}
	x->has[MS_SID] = true;
}

static enum sim_event event_of(uint16_t hook, uint16_t start)
{
	return (enum sim_event)(hook - start); /* start, end, dcstart, dcend in hook order */
}

/* A decoded identity payload of hook @hook as a model record @x. Return: false if not one. */
static bool ident_from(struct mrec *x, uint16_t hook, const struct etw_payload *pl)
{
	struct sim_record *r = &x->u.rec;

	switch (pl->kind) {
	case ETW_PAYLOAD_PROCESS: {
		struct sim_process *p = &r->u.process;
		const struct etw_process *w = &pl->u.pr;

		if (hook == ETW_HOOK_PROCESS_DEFUNCT) {
			p->event = SIM_EVENT_DEFUNCT;
		} else if (hook >= ETW_HOOK_PROCESS_START && hook <= ETW_HOOK_PROCESS_DC_END) {
			p->event = event_of(hook, ETW_HOOK_PROCESS_START);
		} else {
			return false;
		}
		r->kind = SIM_REC_PROCESS;
		x->kind = TRUTH_PROCESS;
		p->key = w->unique_process_key;
		p->pid = w->process_id;
		p->ppid = w->parent_id;
		p->session = w->session_id;
		p->exit_status = w->exit_status;
		p->dtb = w->directory_table_base;
		p->flags = w->flags;
		p->sid_token = w->sid.token_sid;
		p->exit_time = w->exit_time;
		put_sid(x, &w->sid);
		put_ansi(x, MS_IMAGE, w->image_file_name);
		put_wstr(x, MS_CMDLINE, w->command_line);
		put_wstr(x, MS_PACKAGE, w->package_full_name);
		put_wstr(x, MS_APP_ID, w->application_id);
		return true;
	}
	case ETW_PAYLOAD_THREAD: {
		struct sim_thread *t = &r->u.thread;
		const struct etw_thread *w = &pl->u.th;

		r->kind = SIM_REC_THREAD;
		x->kind = TRUTH_THREAD;
		t->event = event_of(hook, ETW_HOOK_THREAD_START);
		t->pid = w->process_id;
		t->tid = w->thread_id;
		t->stack_base = w->stack_base;
		t->stack_limit = w->stack_limit;
		t->user_stack_base = w->user_stack_base;
		t->user_stack_limit = w->user_stack_limit;
		t->affinity = w->affinity;
		t->win32_start = w->win32_start_address;
		t->teb = w->teb_base;
		t->sub_process_tag = w->sub_process_tag;
		t->base_pri = w->base_priority;
		t->page_pri = w->page_priority;
		t->io_pri = w->io_priority;
		t->flags = w->flags;
		if (w->has_name) {
			put_wstr(x, MS_IMAGE, w->name);
		}
		return true;
	}
	case ETW_PAYLOAD_THREAD_SET_NAME:
		r->kind = SIM_REC_THREAD_NAME;
		x->kind = TRUTH_THREAD_NAME;
		r->u.thread_name.pid = pl->u.tsn.process_id;
		r->u.thread_name.tid = pl->u.tsn.thread_id;
		put_wstr(x, MS_IMAGE, pl->u.tsn.name);
		return true;
	case ETW_PAYLOAD_READY_THREAD:
		r->kind = SIM_REC_READY;
		x->kind = TRUTH_READY;
		r->u.ready.tid = pl->u.rt.thread_id;
		r->u.ready.adjust_reason = pl->u.rt.adjust_reason;
		r->u.ready.adjust_increment = pl->u.rt.adjust_increment;
		r->u.ready.flags = pl->u.rt.flags;
		return true;
	case ETW_PAYLOAD_SAMPLED_PROFILE:
		r->kind = SIM_REC_SAMPLE;
		x->kind = TRUTH_SAMPLE;
		r->u.sample.ip = pl->u.sp.instruction_pointer;
		r->u.sample.tid = pl->u.sp.thread_id;
		r->u.sample.count = pl->u.sp.count;
		r->u.sample.dpc = (pl->u.sp.flags & ETW_SP_FLAG_DPC) != 0;
		r->u.sample.isr = (pl->u.sp.flags & ETW_SP_FLAG_ISR) != 0;
		r->u.sample.priority = (uint8_t)FIELD_GET(ETW_SP_FLAG_PRIORITY, pl->u.sp.flags);
		r->u.sample.rank = pl->u.sp.rank;
		return true;
	case ETW_PAYLOAD_PROFILE_INTERVAL:
		r->kind = SIM_REC_INTERVAL;
		x->kind = TRUTH_INTERVAL;
		r->u.interval.event = hook == ETW_HOOK_PROFILE_SET_INTERVAL    ? SIM_EVENT_SET
				      : hook == ETW_HOOK_PROFILE_INTERVAL_DC_S ? SIM_EVENT_DCSTART
									       : SIM_EVENT_DCEND;
		r->u.interval.source = pl->u.pi.source;
		r->u.interval.new_interval = pl->u.pi.new_interval;
		r->u.interval.old_interval = pl->u.pi.old_interval;
		if (pl->u.pi.source_name.units) {
			put_wstr(x, MS_IMAGE, pl->u.pi.source_name);
		}
		return true;
	case ETW_PAYLOAD_CPU_CONFIG: {
		struct sim_cpu_config *c = &r->u.cpu_config;
		const struct etw_cpu_config *w = &pl->u.cpu;

		r->kind = SIM_REC_CPU_CONFIG;
		x->kind = TRUTH_CONFIG;
		c->mhz = w->mhz;
		c->nproc = w->number_of_processors;
		c->memory_mb = w->memory_mb;
		c->page_size = w->page_size;
		c->alloc_gran = w->allocation_granularity;
		c->hyperthreading = w->hyperthreading_flag;
		c->highest_user = w->highest_user_address;
		c->arch = w->processor_architecture;
		c->level = w->processor_level;
		c->revision = w->processor_revision;
		c->pae = w->pae_enabled;
		c->nx = w->nx_enabled;
		c->memory_speed = w->memory_speed;
		put_wstr(x, MS_IMAGE, w->computer_name);
		put_wstr(x, MS_CMDLINE, w->domain_name);
		return true;
	}
	case ETW_PAYLOAD_GROUP_MASKS:
		r->kind = SIM_REC_MASKS;
		x->kind = TRUTH_MASKS;
		r->u.masks.event = hook == ETW_HOOK_GROUP_MASKS_END ? SIM_EVENT_END : SIM_EVENT_NEW;
		for (unsigned j = 0; j < ETW_GROUP_MASKS; j++) {
			r->u.masks.enabled = r->u.masks.enabled || pl->u.gm.masks[j];
		}
		return true;
	case ETW_PAYLOAD_RUNDOWN_COMPLETE:
		r->kind = SIM_REC_RUNDOWN;
		x->kind = TRUTH_RUNDOWN;
		return true;
	default:
		return false;
	}
}

/* ---- image, stack-walk and KernelTraceControl records ----------------------------- */

/*
 * Image records become image lines (file name in MS_IMAGE; a merge's
 * DbgID_RSDS just before, in the same CPU's buffer, gives the PDB: GUID in
 * MS_PACKAGE, name in MS_CMDLINE), StackWalks stack lines of a sample
 * (their first MUT_STACK_KEEP frames kept, the depth in nips).
 */
struct mut_pdb {
	bool have;
	char guid[ETW_GUID_STR_LEN + 1];
	uint32_t age;
	char name[MUT_STR_MAX];
};

/* A merge's record @r: its DbgID_RSDS kept in @pdb for the image after it. Return: is it one. */
static bool ktc_from(const struct etl_record *r, enum etl_arch arch, struct mut_pdb *pdb)
{
	struct etw_payload pl;

	if (r->kind != ETL_KIND_FULL || r->size < ETL_FH_LEN ||
	    memcmp(r->data + ETL_FH_GUID, etw_ktc_guid, ETW_GUID_LEN) != 0) {
		return false;
	}
	etw_decode_classic_payload(r->data + ETL_FH_GUID, r->data[ETL_FH_CLASS_TYPE],
				   get_le16(r->data + ETL_FH_CLASS_VERSION), arch, r->payload,
				   r->payload_len, &pl);
	if (pl.kind == ETW_PAYLOAD_KTC_DBGID) {
		pdb->have = true;
		etw_guid_format(pl.u.kdb.guid, pdb->guid);
		pdb->age = pl.u.kdb.age;
		snprintf(pdb->name, sizeof(pdb->name), "%s", pl.u.kdb.pdb_file_name);
	} else if (pl.kind == ETW_PAYLOAD_KTC_DBGID_NONE) {
		pdb->have = false;
	}
	return true;
}

static enum sim_event image_event(uint16_t hook)
{
	switch (hook) {
	case ETW_HOOK_IMAGE_LOAD:
		return SIM_EVENT_LOAD;
	case ETW_HOOK_IMAGE_UNLOAD:
		return SIM_EVENT_UNLOAD;
	case ETW_HOOK_IMAGE_DC_START:
		return SIM_EVENT_DCSTART;
	case ETW_HOOK_IMAGE_DC_END:
		return SIM_EVENT_DCEND;
	case ETW_HOOK_IMAGE_KERNEL_BASE:
		return SIM_EVENT_KERNEL_BASE;
	default:
		return SIM_EVENT_HYPERCALL_PAGE;
	}
}

/* An image or StackWalk payload as a model record @x. Return: false if not one. */
static bool image_stack_from(struct mrec *x, uint16_t hook, enum etl_arch arch,
			     const struct etw_payload *pl, struct mut_pdb *pdb)
{
	struct sim_record *r = &x->u.rec;

	switch (pl->kind) {
	case ETW_PAYLOAD_IMAGE: {
		struct sim_image *im = &r->u.image;
		const struct etw_image *w = &pl->u.im;

		r->kind = SIM_REC_IMAGE;
		x->kind = TRUTH_IMAGE;
		im->event = image_event(hook);
		im->base = w->image_base;
		im->size = w->image_size;
		im->pid = w->process_id;
		im->checksum = w->checksum;
		im->timestamp = w->time_date_stamp;
		im->signature_level = w->signature_level;
		im->signature_type = w->signature_type;
		im->default_base = w->default_base;
		put_wstr(x, MS_IMAGE, w->file_name);
		if (pdb->have) {
			snprintf(x->str[MS_PACKAGE], MUT_STR_MAX, "%s", pdb->guid);
			x->has[MS_PACKAGE] = true;
			put_ansi(x, MS_CMDLINE, pdb->name);
			im->pdb_age = pdb->age;
		}
		pdb->have = false;
		return true;
	}
	case ETW_PAYLOAD_IMAGE_ADDRESS:
		r->kind = SIM_REC_IMAGE;
		x->kind = TRUTH_IMAGE;
		r->u.image.event = image_event(hook);
		r->u.image.base = pl->u.address;
		return true;
	case ETW_PAYLOAD_STACK_WALK: {
		struct sim_stack *st = &r->u.stack;
		const struct etw_stack_walk *w = &pl->u.sw;

		if (w->frames.n == 0) {
			return false; /* the engine logs none */
		}
		r->kind = SIM_REC_STACK;
		x->kind = TRUTH_STACK;
		st->event = SIM_EVENT_PROFILE;
		st->pid = w->process_id;
		st->tid = w->thread_id;
		st->nips = (uint32_t)(w->frames.n < ETW_STACK_MAX_FRAMES ? w->frames.n
									 : ETW_STACK_MAX_FRAMES);
		for (unsigned k = 0; k < MUT_STACK_KEEP && k < st->nips; k++) {
			x->ips[k] = etw_frame(&w->frames, arch, k);
		}
		return true;
	}
	default:
		return false;
	}
}

/* One CPU's identity records of @d as model records (appended); the flags they need. */
static void idents_from(struct model *m, const struct etl_reader *d, unsigned cpu, unsigned *flags)
{
	unsigned n;
	const unsigned *order = etl_reader_cpu_order(d, &n);
	enum etl_arch arch = m->cfg.arch;
	struct mut_pdb pdb = {0};

	for (unsigned k = 0; k < n && m->n < MUT_MAX_RECORDS; k++) {
		const struct etl_buffer *b = etl_reader_buffer(d, order[k]);
		struct etl_record r;
		struct etl_error e;
		size_t pos = 0;

		if (b->processor_index != cpu) {
			continue;
		}
		while (m->n < MUT_MAX_RECORDS && etl_buffer_next(d, b, &pos, &r, &e) > 0) {
			struct etw_payload pl;
			struct mrec *x;

			if (ktc_from(&r, arch, &pdb)) {
				*flags |= PRODUCER_F_MERGED;
				continue;
			}
			if (r.kind == ETL_KIND_OTHER || r.hook_id == ETW_HOOK_CSWITCH ||
			    r.hook_id == ETW_HOOK_CSWITCH_BATCH || r.hook_id == ETW_HOOK_SPINLOCK) {
				continue;
			}
			etw_decode_payload(r.hook_id, r.version, arch, r.payload, r.payload_len,
					   &pl);
			if (pl.kind == ETW_PAYLOAD_NONE || pl.kind == ETW_PAYLOAD_SHORT ||
			    pl.kind == ETW_PAYLOAD_SPINLOCK_CONFIG) {
				continue;
			}
			x = model_add(m);
			if (!x) {
				return;
			}
			if (!ident_from(x, r.hook_id, &pl) &&
			    !image_stack_from(x, r.hook_id, arch, &pl, &pdb)) {
				m->n--;
				continue;
			}
			x->t = r.ts;
			x->u.rec.u.head.cpu = cpu;
			if (x->kind == TRUTH_IMAGE) {
				*flags |= PRODUCER_F_LOADER;
			} else if (x->kind == TRUTH_STACK) {
				*flags |= producer_stack_flag(x->u.rec.u.stack.event);
			} else if (x->kind != TRUTH_CONFIG) {
				*flags |= producer_record_flags(x->u.rec.kind) &
					  (PRODUCER_F_PROC_THREAD | PRODUCER_F_DISPATCHER |
					   PRODUCER_F_PROFILE);
			}
		}
	}
}

static int by_time(const void *a, const void *b)
{
	const struct mrec *x = a, *y = b;

	if (x->t != y->t) {
		return x->t < y->t ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Merge the per-CPU runs [starts[c], starts[c+1]) of @m->r by time (stable). */
static int merge_by_time(struct model *m, const unsigned *starts, unsigned ncpu)
{
	struct mrec *out = malloc((m->n ? m->n : 1) * sizeof(*out));
	unsigned pos[MUT_MAX_CPUS + 1];

	if (!out) {
		return -ENOMEM;
	}
	memcpy(pos, starts, (ncpu + 1) * sizeof(pos[0]));
	for (unsigned k = 0; k < m->n; k++) {
		unsigned best = ncpu;

		for (unsigned c = 0; c < ncpu; c++) {
			if (pos[c] < starts[c + 1] &&
			    (best == ncpu || m->r[pos[c]].t < m->r[pos[best]].t)) {
				best = c;
			}
		}
		out[k] = m->r[pos[best]++];
	}
	memcpy(m->r, out, m->n * sizeof(*out));
	free(out);
	return 0;
}

/* Read @data as an ETL file into @m. Return: 0, or -EINVAL when nothing usable is in it. */
static int model_from_etl(struct model *m, const uint8_t *data, size_t len)
{
	struct etl_error e;
	struct etl_reader *d;
	unsigned starts[MUT_MAX_CPUS + 1], flags = 0, pmc = 0;
	uint16_t pmc_hooks = 0;
	bool pebs = false;
	struct trace_session_cfg *s;

	model_defaults(m);
	d = etl_reader_open_mem_flags(data, len, "input", ETL_OPEN_SALVAGE | ETL_OPEN_KEEP_GOING,
				      &e);
	if (!d) {
		return -EINVAL;
	}
	config_from(m, d);
	for (unsigned cpu = 0; cpu < m->cfg.cpus; cpu++) {
		starts[cpu] = m->n;
		events_from(m, d, cpu, &flags, &pmc, &pebs, &pmc_hooks);
		idents_from(m, d, cpu, &flags);
		for (unsigned k = starts[cpu]; k < m->n; k++) {
			m->r[k].seq = k;
		}
		if (m->n > starts[cpu]) { /* m->r may still be NULL */
			qsort(m->r + starts[cpu], m->n - starts[cpu], sizeof(m->r[0]), by_time);
		}
	}
	starts[m->cfg.cpus] = m->n;
	etl_reader_close(d);
	if (m->n == 0 || merge_by_time(m, starts, m->cfg.cpus) < 0) {
		return -EINVAL;
	}
	s = sess(m);
	s->flags = flags & PRODUCER_F_COMPACT ? flags | PRODUCER_F_CSWITCH : flags;
	if (!(s->flags & (PRODUCER_F_CSWITCH | PRODUCER_F_SPINLOCK))) {
		s->flags |= PRODUCER_F_CSWITCH | PRODUCER_F_COMPACT;
	}
	s->pebs = pebs;
	set_counters(m, pmc);
	s->pmc_event_count = 0;
	if (pmc) {
		static const uint16_t hooks[] = {0x0524, 0x0525, 0x0529};

		for (unsigned j = 0; j < 3; j++) {
			if (pmc_hooks & (1u << j)) {
				s->pmc_events[s->pmc_event_count++] = hooks[j];
			}
		}
	}
	return 0;
}

/* @dst becomes a copy of @src (records included). Return: 0 or -ENOMEM. */
static int model_copy(struct model *dst, const struct model *src)
{
	if (model_reserve(dst, src->n) < 0) {
		return -ENOMEM;
	}
	dst->cfg = src->cfg;
	dst->start_tick = src->start_tick;
	dst->n = src->n;
	if (src->n) {
		memcpy(dst->r, src->r, src->n * sizeof(*src->r));
	}
	return 0;
}

/*
 * @d describes @data: read again only when the bytes differ from the last
 * ones (length and XXH3). Return: 0, or -EINVAL when it is not an ETL file.
 */
static int decode_cached(struct decoded *d, const uint8_t *data, size_t len)
{
	uint64_t h = XXH3_64bits(data, len);

	if (!d->valid || d->len != len || d->hash != h) {
		d->ok = model_from_etl(&d->m, data, len) == 0;
		d->valid = true;
		d->len = len;
		d->hash = h;
	}
	return d->ok ? 0 : -EINVAL;
}

/* ---- random helpers --------------------------------------------------------------- */

static uint64_t rnd(struct etwforge_mutator *x, uint64_t n)
{
	return sim_rng_below(&x->rng, n);
}

static void note(struct etwforge_mutator *x, const char *what)
{
	size_t n = strlen(x->what);

	snprintf(x->what + n, sizeof(x->what) - n, "%s%s", n ? "+" : "", what);
}

/* A thread id (multiple of 4), new to @m most of the time. */
static uint32_t some_tid(struct etwforge_mutator *x, const struct model *m)
{
	if (m->n && rnd(x, 4) == 0) {
		const struct mrec *r = &m->r[rnd(x, m->n)];

		if (r->kind == TRUTH_CSWITCH && r->u.cs.new_tid) {
			return r->u.cs.new_tid;
		}
	}
	return 4u * (uint32_t)(16 + rnd(x, 1u << 14));
}

/* The index of a random switch, or @m->n when there is none. */
static unsigned some_switch(struct etwforge_mutator *x, const struct model *m)
{
	for (int tries = 0; tries < 8 && m->n; tries++) {
		unsigned i = (unsigned)rnd(x, m->n);

		if (m->r[i].kind == TRUTH_CSWITCH) {
			return i;
		}
	}
	return m->n;
}

static uint32_t rec_cpu(const struct mrec *r)
{
	return r->kind == TRUTH_SPINLOCK ? r->u.sl.cpu
	       : is_ident(r)		 ? r->u.rec.u.head.cpu
					 : r->u.cs.cpu;
}

/* The previous record on @cpu before @i (or @i itself when none). */
static unsigned prev_on_cpu(const struct model *m, unsigned i, uint32_t cpu)
{
	for (unsigned k = i; k-- > 0;) {
		if (m->r[k].kind != TRUTH_CCSWAP_STOP && rec_cpu(&m->r[k]) == cpu) {
			return k;
		}
	}
	return i;
}

/* Shift the time of every record of @cpu from @i on by @d (repair keeps the order). */
static void shift_cpu(struct model *m, unsigned i, uint32_t cpu, uint64_t d)
{
	for (unsigned k = i; k < m->n; k++) {
		if (m->r[k].kind == TRUTH_CCSWAP_STOP || rec_cpu(&m->r[k]) == cpu) {
			m->r[k].t += d;
		}
	}
}

/* ---- operators -------------------------------------------------------------------- */

static const uint64_t deltas[] = {0,	   1,	       0x3FFF,	   0x4000,     0x1FFFF,
				  0x20000, 0x3FFFFFFF, 0x40000000, 0x40000001, 0xFFFFFFFFull,
				  7,	   0x8000};

/* A switch's delta from the previous record on its CPU set to a boundary value. */
static void op_delta(struct etwforge_mutator *x, struct model *m)
{
	unsigned i = some_switch(x, m), p;
	uint64_t want, have;

	if (i == m->n) {
		return;
	}
	p = prev_on_cpu(m, i, m->r[i].u.cs.cpu);
	want = deltas[rnd(x, sizeof(deltas) / sizeof(deltas[0]))];
	have = p == i ? 0 : m->r[i].t - m->r[p].t;
	if (p == i || m->r[i].t < m->r[p].t) {
		return;
	}
	if (want > have) {
		shift_cpu(m, i, m->r[i].u.cs.cpu, want - have);
	} else {
		for (unsigned k = i; k < m->n; k++) {
			if (m->r[k].kind != TRUTH_CCSWAP_STOP &&
			    rec_cpu(&m->r[k]) == m->r[i].u.cs.cpu) {
				m->r[k].t -= have - want;
			}
		}
	}
	note(x, "delta");
}

/* A tick jump of 499, 500, 501 or more before a record (kept by repair). */
static void op_ticks(struct etwforge_mutator *x, struct model *m)
{
	static const uint32_t jumps[] = {499, 500, 501, 502, 1000, 65536};

	if (m->n == 0) {
		return;
	}
	m->r[rnd(x, m->n)].jump = jumps[rnd(x, sizeof(jumps) / sizeof(jumps[0]))];
	note(x, "ticks");
}

/* Insert @k switches on one CPU, each to a new thread (or alternating with idle). */
static void insert_run(struct etwforge_mutator *x, struct model *m, unsigned k, bool idle_pairs,
		       uint64_t gap)
{
	unsigned at = m->n ? (unsigned)rnd(x, m->n + 1) : 0;
	uint32_t cpu = (uint32_t)rnd(x, m->cfg.cpus);
	uint32_t t = some_tid(x, m);
	uint64_t base =
		at < m->n ? m->r[at].t : (m->n ? m->r[m->n - 1].t : m->cfg.start_ts[clk(m)]);
	struct mrec *r;

	if (m->n + k > MUT_MAX_RECORDS) {
		return;
	}
	r = model_insert(m, at, k);
	if (!r) {
		return;
	}
	for (unsigned j = 0; j < k; j++) {
		struct sim_cswitch *cs = &r[j].u.cs;

		r[j].kind = TRUTH_CSWITCH;
		r[j].t = base + gap * j;
		cs->cpu = cpu;
		cs->new_tid = idle_pairs ? (j % 2 ? 0 : t) : some_tid(x, m);
		cs->old_pri = cs->old_base_pri = (int8_t)(1 + rnd(x, 15));
		cs->new_pri = (int8_t)(1 + rnd(x, 15));
		cs->old_state = 5;
		cs->old_wait_reason = 6;
	}
	shift_cpu(m, at + k, cpu, gap * k);
}

static void op_threads(struct etwforge_mutator *x, struct model *m)
{
	static const unsigned runs[] = {15, 16, 17, 18, 33};

	insert_run(x, m, runs[rnd(x, 5)], false, 1 + rnd(x, 64));
	note(x, "threads");
}

static void op_fill(struct etwforge_mutator *x, struct model *m)
{
	insert_run(x, m, 140 + (unsigned)rnd(x, 200), true, 1 + rnd(x, 16));
	note(x, "fill");
}

/* A switch's old thread state, wait reason, priority and the new thread's wait. */
static void op_switch_fields(struct etwforge_mutator *x, struct model *m)
{
	static const int incs[] = {-1, 0, 1, 7, 8, 15, -8};
	static const uint32_t waits[] = {0, 1, 2, 0x1FFFF, 0x20000, 0xFFFFFFFFu, 3};
	unsigned i = some_switch(x, m);
	struct sim_cswitch *cs;

	if (i == m->n) {
		return;
	}
	cs = &m->r[i].u.cs;
	switch (rnd(x, 4)) {
	case 0:
		cs->old_state = (uint8_t)rnd(x, 11);
		cs->old_wait_reason = (uint8_t)rnd(x, m->cfg.max_wait_reason);
		break;
	case 1:
		cs->old_base_pri = (int8_t)rnd(x, 32);
		cs->old_pri = (int8_t)(cs->old_base_pri + incs[rnd(x, 7)]);
		break;
	case 2:
		cs->new_wait_ticks = waits[rnd(x, 7)];
		break;
	default:
		cs->new_tid = rnd(x, 3) ? some_tid(x, m) : 0;
		break;
	}
	note(x, "fields");
}

/* Delete, duplicate or swap a run of records. */
static void op_splice(struct etwforge_mutator *x, struct model *m)
{
	unsigned at, k;

	if (m->n < 2) {
		return;
	}
	at = (unsigned)rnd(x, m->n);
	k = 1 + (unsigned)rnd(x, m->n - at < 32 ? m->n - at : 32);
	if (rnd(x, 2) || m->n + k > MUT_MAX_RECORDS) {
		model_delete(m, at, k);
		note(x, "delete");
	} else {
		struct mrec *r = model_insert(m, at + k, k);

		if (r) {
			memcpy(r, &m->r[at], k * sizeof(*r));
			note(x, "duplicate");
		}
	}
}

/* Spin-lock releases: nested up to 9 deep, modes, DPC/ISR, spin counts, holds. */
static void op_spinlocks(struct etwforge_mutator *x, struct model *m)
{
	unsigned depth = 1 + (unsigned)rnd(x, 9);
	unsigned at = m->n ? (unsigned)rnd(x, m->n + 1) : 0;
	uint32_t cpu = (uint32_t)rnd(x, m->cfg.cpus);
	uint64_t base =
		at < m->n ? m->r[at].t : (m->n ? m->r[m->n - 1].t : m->cfg.start_ts[clk(m)]);
	bool x86 = m->cfg.arch == ETL_ARCH_X86;
	struct mrec *r;

	if (m->n + depth > MUT_MAX_RECORDS || !(r = model_insert(m, at, depth))) {
		return;
	}
	sess(m)->flags |= PRODUCER_F_SPINLOCK;
	for (unsigned j = 0; j < depth; j++) {
		struct sim_spinlock *sl = &r[j].u.sl;
		static const uint32_t spins[] = {0, 1, 2, 1000, 0xFFFFFFFFu};

		r[j].kind = TRUTH_SPINLOCK;
		r[j].t = base + j;
		sl->cpu = cpu;
		sl->lock = (x86 ? 0x82000000u : 0xFFFFF80312000000ull) + 8u * rnd(x, 4096);
		sl->caller = (x86 ? 0x81000000u : 0xFFFFF80310000000ull) + rnd(x, 1u << 20);
		sl->release_time = 1000000000ull + base + j;
		sl->acquire_time = sl->release_time - (rnd(x, 2) ? 1000001 : rnd(x, 5000));
		sl->wait_cycles = rnd(x, 3) ? rnd(x, 4000) : 0x100000005ull;
		sl->spin_count = spins[rnd(x, 5)];
		sl->tid = some_tid(x, m);
		sl->interrupt_count = (uint32_t)rnd(x, 3);
		sl->irql = (uint8_t)(rnd(x, 2) ? 2 : rnd(x, 32));
		sl->depth = (uint8_t)(depth - j);
		sl->mode = (uint8_t)rnd(x, 5);
		sl->dpc = rnd(x, 3) == 0;
		sl->isr = rnd(x, 3) == 0;
		sl->logged = depth - j <= 8;
		sl->why = sl->logged ? SIM_SPIN_CONTENDED : SIM_SPIN_NONE;
	}
	shift_cpu(m, at + depth, cpu, depth);
	note(x, "spinlocks");
}

static void op_stop(struct etwforge_mutator *x, struct model *m)
{
	unsigned at = m->n ? (unsigned)rnd(x, m->n + 1) : 0;
	struct mrec *r = m->n < MUT_MAX_RECORDS ? model_insert(m, at, 1) : NULL;

	if (r) {
		r->kind = TRUTH_CCSWAP_STOP;
		r->t = at > 0 ? m->r[at - 1].t : m->cfg.start_ts[clk(m)];
		note(x, "stop");
	}
}

/* The index of a random identity record, or @m->n when there is none. */
static unsigned some_ident(struct etwforge_mutator *x, const struct model *m)
{
	for (int tries = 0; tries < 16 && m->n; tries++) {
		unsigned i = (unsigned)rnd(x, m->n);

		if (is_ident(&m->r[i])) {
			return i;
		}
	}
	return m->n;
}

/* A name at an edge: empty, 1 or 3 units, a surrogate pair, the longest the model keeps. */
static void some_name(struct etwforge_mutator *x, struct mrec *r, enum mstr k)
{
	static const char *const names[] = {
		"",
		"x",
		"abc",
		"\xF0\x9F\x98\x80",
		"w\"<&>\\",
		"\xC3\xA9t\xC3\xA9",
		"\xE2\x82\xAC\xE6\x97\xA5",   /* three-byte characters (UTF-16: one unit each) */
		"ctl\x01\x1F\ttab\nline\x7F", /* control characters: escaped by JSON writers */
		"a-name-of-sixty-three-bytes-exactly-for-the-models-string-slot."};

	snprintf(r->str[k], MUT_STR_MAX, "%s", names[rnd(x, sizeof(names) / sizeof(names[0]))]);
	r->has[k] = true;
}

/* A SID: NULL, S-1-5-18, or 0..15 sub-authorities of edge values. */
static void some_sid(struct etwforge_mutator *x, struct mrec *r)
{
	static const uint32_t subs[] = {0, 1, 18, 21, 1001, 0x7FFFFFFFu, 0xFFFFFFFFu};
	unsigned n = (unsigned)rnd(x, 16);
	size_t len;

	switch (rnd(x, 3)) {
	case 0:
		r->has[MS_SID] = false;
		return;
	case 1:
		snprintf(r->str[MS_SID], MUT_STR_MAX, "S-1-5-18");
		r->has[MS_SID] = true;
		return;
	default:
		break;
	}
	/* 15 sub-authorities of 10 digits do not fit the slot: short values */
	len = (size_t)snprintf(r->str[MS_SID], MUT_STR_MAX, "S-1-%u", (unsigned)rnd(x, 16));
	for (unsigned k = 0; k < n; k++) {
		uint32_t v = n > 5 ? (uint32_t)rnd(x, 1000) : subs[rnd(x, 7)];
		int w = snprintf(r->str[MS_SID] + len, MUT_STR_MAX - len, "-%u", v);

		if (w < 0 || (size_t)w >= MUT_STR_MAX - len) {
			r->str[MS_SID][len] = '\0';
			break;
		}
		len += (size_t)w;
	}
	r->has[MS_SID] = true;
}

static uint32_t some_id(struct etwforge_mutator *x, const struct model *m)
{
	static const uint32_t ids[] = {0, 4, 8, 0xFFFFFFFCu, 0xFFFFFFFFu, 1, 3};

	return rnd(x, 3) ? some_tid(x, m) : ids[rnd(x, 7)];
}

/* A Process and Thread DCStart for a switched-to thread, at the start of its CPU. */
static void insert_ident(struct etwforge_mutator *x, struct model *m)
{
	unsigned i = some_switch(x, m);
	uint32_t tid = i < m->n ? m->r[i].u.cs.new_tid : some_tid(x, m);
	uint32_t pid = 4u * (uint32_t)(100 + rnd(x, 4000));
	struct mrec *r;

	if (m->n + 2 > MUT_MAX_RECORDS || !(r = model_insert(m, 0, 2))) {
		return;
	}
	r[0].kind = TRUTH_PROCESS;
	r[0].u.rec.kind = SIM_REC_PROCESS;
	r[0].u.rec.u.process.event = SIM_EVENT_DCSTART;
	r[0].u.rec.u.process.pid = pid;
	r[0].u.rec.u.process.ppid = 4;
	r[0].u.rec.u.process.key = 0x80001000u + 0x100u * (pid & 0xFFFFu);
	r[0].u.rec.u.process.sid_token = 0x80000020u;
	r[0].u.rec.u.process.exit_status = 0x103;
	snprintf(r[0].str[MS_IMAGE], MUT_STR_MAX, "mutant.exe");
	r[0].has[MS_IMAGE] = true;
	snprintf(r[0].str[MS_SID], MUT_STR_MAX, "S-1-5-18");
	r[0].has[MS_SID] = true;
	r[1].kind = TRUTH_THREAD;
	r[1].u.rec.kind = SIM_REC_THREAD;
	r[1].u.rec.u.thread.event = SIM_EVENT_DCSTART;
	r[1].u.rec.u.thread.pid = pid;
	r[1].u.rec.u.thread.tid = tid;
	r[1].u.rec.u.thread.base_pri = 8;
	some_name(x, &r[1], MS_IMAGE);
	for (unsigned k = 0; k < 2; k++) {
		r[k].t = m->n > 2 ? m->r[2].t : m->cfg.start_ts[clk(m)];
		r[k].u.rec.u.head.cpu = m->n > 2 ? rec_cpu(&m->r[2]) : 0;
	}
	sess(m)->flags |= PRODUCER_F_PROC_THREAD;
	note(x, "ident-insert");
}

/*
 * An identity record's fields: PIDs and TIDs, the event among start, end,
 * dcstart and dcend, names, SIDs (the NULL form, sub-authority counts and
 * values), sample IPs and threads, ReadyThread's thread and flags. Without
 * identity records, a Process and Thread DCStart are put in.
 */
static void op_identity(struct etwforge_mutator *x, struct model *m)
{
	static const uint64_t ips[] = {0,
				       1,
				       0x00007FF600201234ull,
				       0xFFFFF80310001234ull,
				       0x80001234u,
				       0xFFFFFFFFFFFFFFFFull};
	unsigned i = some_ident(x, m);
	struct mrec *r;
	struct sim_record *q;

	if (i == m->n) {
		insert_ident(x, m);
		return;
	}
	r = &m->r[i];
	q = &r->u.rec;
	switch (q->kind) {
	case SIM_REC_PROCESS:
		switch (rnd(x, 5)) {
		case 0:
			q->u.process.pid = some_id(x, m);
			note(x, "ident-pid");
			break;
		case 1:
			q->u.process.event = (enum sim_event)rnd(x, SIM_EVENT_DEFUNCT + 1);
			note(x, "ident-event");
			break;
		case 2:
			some_name(x, r, rnd(x, 2) ? MS_IMAGE : MS_CMDLINE);
			if (r->str[MS_IMAGE][0] & 0x80) {
				snprintf(r->str[MS_IMAGE], MUT_STR_MAX, "odd.ex");
			}
			note(x, "ident-name");
			break;
		default:
			some_sid(x, r);
			note(x, "ident-sid");
			break;
		}
		break;
	case SIM_REC_THREAD:
		switch (rnd(x, 4)) {
		case 0:
			q->u.thread.pid = some_id(x, m);
			note(x, "ident-pid");
			break;
		case 1:
			q->u.thread.tid = some_id(x, m);
			note(x, "ident-tid");
			break;
		case 2:
			q->u.thread.event = (enum sim_event)rnd(x, SIM_EVENT_DCEND + 1);
			note(x, "ident-event");
			break;
		default:
			some_name(x, r, MS_IMAGE);
			note(x, "ident-name");
			break;
		}
		break;
	case SIM_REC_THREAD_NAME:
		if (rnd(x, 2)) {
			q->u.thread_name.tid = some_id(x, m);
			note(x, "ident-tid");
		} else {
			some_name(x, r, MS_IMAGE);
			note(x, "ident-name");
		}
		break;
	case SIM_REC_READY:
		if (rnd(x, 2)) {
			q->u.ready.tid = some_id(x, m);
			note(x, "ident-ready-tid");
		} else {
			q->u.ready.flags = (uint8_t)rnd(x, SIM_READY_FLAGS_MAX + 1);
			q->u.ready.adjust_reason = (int8_t)rnd(x, SIM_ADJUST_REASON_MAX + 1);
			q->u.ready.adjust_increment = (int8_t)(rnd(x, 256) - 128);
			note(x, "ident-ready-flags");
		}
		break;
	case SIM_REC_SAMPLE:
		if (rnd(x, 2)) {
			q->u.sample.ip = ips[rnd(x, sizeof(ips) / sizeof(ips[0]))];
			note(x, "ident-sample-ip");
		} else {
			q->u.sample.tid = rnd(x, 3) ? some_id(x, m) : 0;
			q->u.sample.priority = (uint8_t)rnd(x, SIM_SAMPLE_PRI_MAX + 1);
			note(x, "ident-sample-tid");
		}
		break;
	case SIM_REC_CPU_CONFIG: {
		static const uint32_t n[] = {0, 1, 2, 64, 65, 0xFFFFFFFFu};

		q->u.cpu_config.nproc = n[rnd(x, 6)];
		note(x, "ident-config-nproc");
		break;
	}
	case SIM_REC_INTERVAL:
		q->u.interval.new_interval = (uint32_t)rnd(x, 2) ? 0 : 0xFFFFFFFFu;
		note(x, "ident-interval");
		break;
	default:
		insert_ident(x, m);
		break;
	}
}

/* ---- image and stack records: the operator ------------------------------------------ */

/* The index of a random image (@want TRUTH_IMAGE) or stack line, or @m->n when there is none. */
static unsigned some_kind(struct etwforge_mutator *x, const struct model *m, enum truth_kind want)
{
	unsigned n = 0, k;

	for (unsigned i = 0; i < m->n; i++) {
		n += m->r[i].kind == want;
	}
	if (n == 0) {
		return m->n;
	}
	k = (unsigned)rnd(x, n);
	for (unsigned i = 0; i < m->n; i++) {
		if (m->r[i].kind == want && k-- == 0) {
			return i;
		}
	}
	return m->n;
}

/* An image Load and a StackWalk of its thread, at a random switch (the switch's new thread). */
static void insert_image_stack(struct etwforge_mutator *x, struct model *m)
{
	static const uint32_t depths[] = {1, 2, 3, 4, 191, 192};
	bool x86 = m->cfg.arch == ETL_ARCH_X86;
	unsigned i = some_switch(x, m);
	struct mrec *r;

	if (i >= m->n || m->n + 2 > MUT_MAX_RECORDS || !(r = model_insert(m, i + 1, 2))) {
		return;
	}
	memset(r, 0, 2 * sizeof(*r));
	for (unsigned k = 0; k < 2; k++) {
		r[k].t = m->r[i].t;
		r[k].u.rec.u.head.cpu = m->r[i].u.cs.cpu;
	}
	r[0].kind = TRUTH_IMAGE;
	r[0].u.rec.kind = SIM_REC_IMAGE;
	r[0].u.rec.u.image.event = SIM_EVENT_LOAD;
	r[0].u.rec.u.image.pid = 4u * (uint32_t)(100 + rnd(x, 4000));
	r[0].u.rec.u.image.base = x86 ? 0x10000000u : 0x00007FF8E0000000ull;
	r[0].u.rec.u.image.size = 0x1000u * (1 + rnd(x, 64));
	snprintf(r[0].str[MS_IMAGE], MUT_STR_MAX, "\\??\\C:\\mutant.dll");
	r[0].has[MS_IMAGE] = true;
	r[1].kind = TRUTH_STACK;
	r[1].u.rec.kind = SIM_REC_STACK;
	r[1].u.rec.u.stack.event = SIM_EVENT_PROFILE;
	r[1].u.rec.u.stack.tid = m->r[i].u.cs.new_tid;
	r[1].u.rec.u.stack.nips = depths[rnd(x, 6)];
	for (unsigned k = 0; k < MUT_STACK_KEEP; k++) {
		r[1].ips[k] = (x86 ? 0x81000000u : 0xFFFFF80310000000ull) + 0x10000u * k;
	}
	sess(m)->flags |= PRODUCER_F_LOADER | PRODUCER_F_STACK_PROFILE;
	note(x, "image-stack-insert");
}

/*
 * Image and StackWalk fields: an image's base (onto another image: they
 * overlap), its event (an image unloaded again, a DCEnd without DCStart),
 * its path (each form the kernel writes) and PDB identity (DbgID_RSDS or
 * None in a merged session); a StackWalk's depth (1 to 4 around the
 * cached-stack minimum, 191, 192), thread, and CPU. Without either, an
 * image Load and a StackWalk are put in.
 */
static void op_image_stack(struct etwforge_mutator *x, struct model *m)
{
	static const char *const paths[] = {"\\SystemRoot\\system32\\ntoskrnl.exe",
					    "\\Device\\HarddiskVolume3\\Windows\\System32\\a.dll",
					    "\\??\\C:\\b.dll", "c.dll", ""};
	static const uint32_t depths[] = {1, 2, 3, 4, 191, 192};
	unsigned i = some_kind(x, m, rnd(x, 2) ? TRUTH_IMAGE : TRUTH_STACK), j;
	struct sim_record *q;

	if (i == m->n) {
		insert_image_stack(x, m);
		return;
	}
	q = &m->r[i].u.rec;
	if (q->kind == SIM_REC_IMAGE) {
		switch (rnd(x, 4)) {
		case 0:
			j = some_kind(x, m, TRUTH_IMAGE);
			q->u.image.base = m->r[j].u.rec.u.image.base + 0x1000u * rnd(x, 4);
			note(x, "image-base");
			break;
		case 1:
			q->u.image.event = (enum sim_event)(SIM_EVENT_LOAD + rnd(x, 2));
			q->u.image.event =
				rnd(x, 3) ? q->u.image.event
					  : (enum sim_event)(SIM_EVENT_DCSTART + rnd(x, 2));
			note(x, "image-event");
			break;
		case 2:
			snprintf(m->r[i].str[MS_IMAGE], MUT_STR_MAX, "%s", paths[rnd(x, 5)]);
			m->r[i].has[MS_IMAGE] = true;
			note(x, "image-path");
			break;
		default:
			m->r[i].has[MS_PACKAGE] = !m->r[i].has[MS_PACKAGE];
			snprintf(m->r[i].str[MS_PACKAGE], MUT_STR_MAX,
				 "3C8F0528-9C07-4257-9192-78EA9AA6A1F4");
			snprintf(m->r[i].str[MS_CMDLINE], MUT_STR_MAX, "%s",
				 rnd(x, 2) ? "m.pdb" : "C:\\src\\obj\\m.pdb");
			m->r[i].has[MS_CMDLINE] = m->r[i].has[MS_PACKAGE];
			sess(m)->flags |= PRODUCER_F_MERGED;
			note(x, "image-pdb");
			break;
		}
		return;
	}
	switch (rnd(x, 4)) {
	case 0:
		q->u.stack.nips = depths[rnd(x, 6)];
		note(x, "stack-depth");
		break;
	case 3: {
		/* stack caching on (a set of 4: evictions, keys taken again; or 1024) or off */
		static const uint32_t entries[] = {0, 4, 8, 1024};

		sess(m)->stack_cache = entries[rnd(x, 4)];
		note(x, "stack-cache");
		break;
	}
	case 1:
		q->u.stack.tid = rnd(x, 3) ? some_tid(x, m) : 0;
		q->u.stack.pid = rnd(x, 3) ? q->u.stack.pid : 0;
		note(x, "stack-thread");
		break;
	default:
		q->u.head.cpu = (uint32_t)rnd(x, m->cfg.cpus ? m->cfg.cpus : 1);
		note(x, "stack-cpu");
		break;
	}
}

/* The session set-up: flags, clock, PEBS, PMC, buffer size, arch, target, quirks... */
static void op_session(struct etwforge_mutator *x, struct model *m)
{
	struct trace_session_cfg *s = sess(m);
	static const uint32_t sizes[] = {4096, 8192, 12288, 65536};
	static const char *const targets[] = {"win10-1507", "win10-1607", "win10-1709",
					      "win10-1903", "win11-22h2"};
	static const uint16_t hooks[] = {0x0524, 0x0525, 0x0529};

	switch (rnd(x, 12)) {
	case 0:
		s->flags ^= PRODUCER_F_COMPACT;
		s->flags |= PRODUCER_F_CSWITCH;
		note(x, "compact");
		break;
	case 1:
		s->clock = (enum sim_clock)(1 + rnd(x, 3));
		note(x, "clock");
		break;
	case 2:
		s->pebs = !s->pebs;
		m->cfg.pebs_and_pmc = rnd(x, 2);
		note(x, "pebs");
		break;
	case 3:
		set_counters(m, (unsigned)rnd(x, 8));
		s->pmc_event_count = 0;
		for (unsigned j = 0; j < 3; j++) {
			if (rnd(x, 2)) {
				s->pmc_events[s->pmc_event_count++] = hooks[j];
			}
		}
		note(x, "pmc");
		break;
	case 4:
		s->buffer_size = sizes[rnd(x, 4)];
		note(x, "buffer");
		break;
	case 5:
		m->cfg.arch = m->cfg.arch == ETL_ARCH_X86 ? ETL_ARCH_X64 : ETL_ARCH_X86;
		note(x, "arch");
		break;
	case 6:
		m->cfg.target = etw_target_find(targets[rnd(x, 5)]);
		m->cfg.max_wait_reason = m->cfg.target->max_wait_reason;
		note(x, "target");
		break;
	case 7:
		m->cfg.quirks = !m->cfg.quirks;
		m->cfg.flush_at_end = rnd(x, 4) != 0;
		note(x, "quirks");
		break;
	case 8:
		s->compress = !s->compress;
		note(x, "compress");
		break;
	case 9:
		s->pool_buffers = s->pool_buffers ? 0 : (uint32_t)(1 + rnd(x, 3));
		s->flush_latency = rnd(x, 100000);
		note(x, "pool");
		break;
	case 10: {
		static const uint32_t spin[] = {1, 2, 4, 1000};
		static const uint32_t rates[] = {1000, 1001, 5000, 65536};
		static const uint32_t holds[] = {0, 1000000, 1000001, 0xFFFFFFFFu};

		m->cfg.spin.spin_threshold = spin[rnd(x, 4)];
		m->cfg.spin.acquire_sample_rate = rates[rnd(x, 4)];
		m->cfg.spin.contention_sample_rate = (uint32_t)(1 + rnd(x, 4));
		m->cfg.spin.hold_threshold = holds[rnd(x, 4)];
		s->flags |= PRODUCER_F_SPINLOCK;
		note(x, "spin-config");
		break;
	}
	default: {
		static const unsigned cpus[] = {1, 2, 3, 4, 64};

		m->cfg.cpus = cpus[rnd(x, 5)];
		note(x, "cpus");
		break;
	}
	}
}

/* A run of records from the other input, spliced in. */
static void op_crossover(struct etwforge_mutator *x, struct model *m, const struct model *o)
{
	unsigned from, k, at;
	struct mrec *r;

	if (!o->n) {
		return;
	}
	from = (unsigned)rnd(x, o->n);
	k = 1 + (unsigned)rnd(x, o->n - from < 64 ? o->n - from : 64);
	at = m->n ? (unsigned)rnd(x, m->n + 1) : 0;
	if (m->n + k > MUT_MAX_RECORDS || !(r = model_insert(m, at, k))) {
		return;
	}
	memcpy(r, &o->r[from], k * sizeof(*r));
	note(x, "crossover");
}

/* A small stream made up from the seed: what a non-ETL input becomes. */
static void synth(struct etwforge_mutator *x, struct model *m)
{
	unsigned n = 8 + (unsigned)rnd(x, 60);

	model_defaults(m);
	m->cfg.cpus = 1 + (unsigned)rnd(x, 2);
	m->start_tick = (uint32_t)(36000000000ull / m->cfg.timer_resolution);
	insert_run(x, m, n, rnd(x, 2), 1 + rnd(x, 0x3000));
	note(x, "synth");
}

/* ---- repair and encode ------------------------------------------------------------- */

/* @raw (a field's value, as uint64_t) within @lo..@hi; @sgn: the field is signed. */
static int64_t within(bool sgn, uint64_t raw, int64_t lo, int64_t hi)
{
	int64_t v = (int64_t)raw;

	if (!sgn && raw > (uint64_t)INT64_MAX) {
		return hi;
	}
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Every integer field of a record within the range the truth reader
 * accepts (its table's lo..hi), as a stream that says so would be read:
 * after the repairs below, a net for a field they do not know.
 */
#define WITHIN_U(m, ctype, lo, hi) m = (ctype)within(false, (uint64_t)(m), lo, hi);
#define WITHIN_I(m, ctype, lo, hi) m = (ctype)within(true, (uint64_t)(m), lo, hi);
#define WITHIN_CPU(m, ctype, lo, hi)
#define WITHIN_TS(m, ctype, lo, hi)
#define WITHIN_PMC(m, ctype, lo, hi)
#define WITHIN_PEBS(m, ctype, lo, hi)
#define WITHIN_ADDR(m, ctype, lo, hi)
#define WITHIN_BOOL(m, ctype, lo, hi)
#define WITHIN_WHY(m, ctype, lo, hi)
#define WITHIN_STR(m, ctype, lo, hi)
#define WITHIN_BUF(m, ctype, lo, hi)
#define WITHIN_EVENT(m, ctype, lo, hi)
#define WITHIN_TEXT(m, ctype, lo, hi)
#define WITHIN_SID(m, ctype, lo, hi)
#define WITHIN_ROW(x, name, ctype, how, lo, hi, need, dflt, when)                                  \
	WITHIN_##how(x->name, ctype, lo, hi)

/* An address that fits the pointer size (x86: the low 32 bits). */
static uint64_t ptr_fit(bool x86, uint64_t v)
{
	return x86 ? v & 0xFFFFFFFFu : v;
}

/* An image or stack line as the producer takes it; the session flag that logs it. */
static void repair_image_stack(struct model *m, struct mrec *r)
{
	struct sim_record *q = &r->u.rec;
	bool x86 = m->cfg.arch == ETL_ARCH_X86;
	uint8_t g[ETW_GUID_LEN];

	if (q->kind == SIM_REC_IMAGE) {
		struct sim_image *im = &q->u.image;

		if (!(SIM_EV_IMAGE & SIM_EV_BIT(im->event))) {
			im->event = SIM_EVENT_LOAD;
		}
		im->base = ptr_fit(x86, im->base);
		im->size = ptr_fit(x86, im->size);
		im->default_base = ptr_fit(x86, im->default_base);
		if (im->signature_level > SIM_SIGNATURE_LEVEL_MAX) {
			im->signature_level = 0;
		}
		if (r->has[MS_PACKAGE] && etw_guid_parse(r->str[MS_PACKAGE], g) < 0) {
			r->has[MS_PACKAGE] = false;
		}
		r->has[MS_CMDLINE] = r->has[MS_PACKAGE];
		for (char *c = r->str[MS_CMDLINE]; *c; c++) {
			*c = (unsigned char)*c < 0x80 ? *c : '?';
		}
		sess(m)->flags |= PRODUCER_F_LOADER;
		return;
	}
	if (!(SIM_EV_STACK & SIM_EV_BIT(q->u.stack.event))) {
		q->u.stack.event = SIM_EVENT_PROFILE;
	}
	if (q->u.stack.nips == 0 || q->u.stack.nips > ETW_STACK_MAX_FRAMES) {
		q->u.stack.nips = 1;
	}
	for (unsigned k = 0; k < MUT_STACK_KEEP; k++) {
		r->ips[k] = ptr_fit(x86, r->ips[k]);
	}
	sess(m)->flags |= producer_stack_flag(q->u.stack.event);
}

/*
 * An identity record as the producer takes it: a known event, values in
 * range, addresses that fit the pointer size, a TOKEN_USER pointer that is
 * not taken for the NULL form, a SID that parses, an ASCII image name.
 */
static void repair_ident(struct model *m, struct mrec *r)
{
	struct sim_record *q = &r->u.rec;
	bool x86 = m->cfg.arch == ETL_ARCH_X86;
	unsigned *flags = &sess(m)->flags;

	for (unsigned k = 0; k < MS_SLOTS; k++) {
		r->str[k][MUT_STR_MAX - 1] = '\0';
	}
	switch (q->kind) {
	case SIM_REC_PROCESS: {
		struct sim_process *p = &q->u.process;
		struct etw_sid sid;

		if (!(SIM_EV_PROCESS & SIM_EV_BIT(p->event))) {
			p->event = SIM_EVENT_DCSTART;
		}
		p->key = ptr_fit(x86, p->key);
		p->dtb = ptr_fit(x86, p->dtb);
		p->sid_token = ptr_fit(x86, p->sid_token);
		if ((uint32_t)p->sid_token == 0) {
			p->sid_token |= 0x10u;
		}
		if (r->has[MS_SID] && etw_sid_parse(r->str[MS_SID], &sid) < 0) {
			snprintf(r->str[MS_SID], MUT_STR_MAX, "S-1-5-18");
		}
		for (char *c = r->str[MS_IMAGE]; *c; c++) {
			*c = (unsigned char)*c < 0x80 ? *c : '?';
		}
		r->has[MS_IMAGE] = true;
		p->exit_time &= INT64_MAX;
		SIM_PROCESS_FIELDS(WITHIN_ROW, TRUTH_NO_CHECK, p)
		break;
	}
	case SIM_REC_THREAD: {
		struct sim_thread *t = &q->u.thread;

		if (!(SIM_EV_THREAD & SIM_EV_BIT(t->event))) {
			t->event = SIM_EVENT_DCSTART;
		}
		t->stack_base = ptr_fit(x86, t->stack_base);
		t->stack_limit = ptr_fit(x86, t->stack_limit);
		t->user_stack_base = ptr_fit(x86, t->user_stack_base);
		t->user_stack_limit = ptr_fit(x86, t->user_stack_limit);
		t->affinity = ptr_fit(x86, t->affinity);
		t->win32_start = ptr_fit(x86, t->win32_start);
		t->teb = ptr_fit(x86, t->teb);
		SIM_THREAD_FIELDS(WITHIN_ROW, TRUTH_NO_CHECK, t)
		break;
	}
	case SIM_REC_THREAD_NAME:
		r->has[MS_IMAGE] = true;
		break;
	case SIM_REC_READY:
		SIM_READY_FIELDS(WITHIN_ROW, TRUTH_NO_CHECK, (&q->u.ready))
		break;
	case SIM_REC_SAMPLE:
		q->u.sample.ip = ptr_fit(x86, q->u.sample.ip);
		SIM_PROFILE_FIELDS(WITHIN_ROW, TRUTH_NO_CHECK, (&q->u.sample))
		break;
	case SIM_REC_INTERVAL:
		if (!(SIM_EV_INTERVAL & SIM_EV_BIT(q->u.interval.event))) {
			q->u.interval.event = SIM_EVENT_SET;
		}
		break;
	case SIM_REC_CPU_CONFIG:
		q->u.cpu_config.highest_user = ptr_fit(x86, q->u.cpu_config.highest_user);
		SIM_CPU_CONFIG_FIELDS(WITHIN_ROW, TRUTH_NO_CHECK, (&q->u.cpu_config))
		break;
	case SIM_REC_MASKS:
		if (!(SIM_EV_MASKS & SIM_EV_BIT(q->u.masks.event))) {
			q->u.masks.event = SIM_EVENT_NEW;
		}
		break;
	case SIM_REC_IMAGE:
	case SIM_REC_STACK:
		repair_image_stack(m, r);
		return;
	default:
		break;
	}
	/* the session that takes it (masks and rundown: proc_thread or profile) */
	if (q->kind != SIM_REC_CPU_CONFIG &&
	    !(*flags & producer_record_flags(q->kind) &
	      (PRODUCER_F_PROC_THREAD | PRODUCER_F_DISPATCHER | PRODUCER_F_PROFILE))) {
		*flags |= q->kind == SIM_REC_READY ? PRODUCER_F_DISPATCHER
			  : q->kind == SIM_REC_SAMPLE || q->kind == SIM_REC_INTERVAL
				  ? PRODUCER_F_PROFILE
				  : PRODUCER_F_PROC_THREAD;
	}
}

static int8_t pri(int v)
{
	return (int8_t)(v < 0 ? 0 : v > 31 ? 31 : v);
}

/*
 * What the truth reader would demand: values in range, each CPU's time and
 * ticks in order, switches that chain (the compact format needs it), a
 * consistent session.
 */
static void repair(struct model *m)
{
	struct trace_session_cfg *s = sess(m);
	uint64_t last_t[MUT_MAX_CPUS] = {0};
	uint32_t last_tick[MUT_MAX_CPUS] = {0}, extra[MUT_MAX_CPUS] = {0};
	uint32_t cur[MUT_MAX_CPUS] = {0};
	bool seen[MUT_MAX_CPUS] = {false};
	bool x86 = m->cfg.arch == ETL_ARCH_X86;
	uint64_t start = m->cfg.start_ts[clk(m)];

	if (s->flags & PRODUCER_F_COMPACT) {
		s->flags |= PRODUCER_F_CSWITCH;
	}
	if (!(s->flags & (PRODUCER_F_CSWITCH | PRODUCER_F_SPINLOCK))) {
		s->flags |= PRODUCER_F_CSWITCH;
	}
	if (m->cfg.cpus == 0 || m->cfg.cpus > MUT_MAX_CPUS) {
		m->cfg.cpus = 1;
	}
	if (s->pmc_count > SIM_MAX_PMC) {
		set_counters(m, SIM_MAX_PMC);
	}
	m->cfg.have_start_ts = true;
	for (unsigned c = 1; c < SIM_CLOCK_SLOTS; c++) {
		m->cfg.start_ts[c] = start;
	}
	for (unsigned i = 0; i < m->n; i++) {
		struct mrec *r = &m->r[i];
		uint32_t cpu, jump;

		if (r->kind == TRUTH_CCSWAP_STOP) {
			r->u.stop.clock = clk(m);
			continue;
		}
		cpu = rec_cpu(r) % m->cfg.cpus;
		/* time and ticks in order on the CPU, with the jumps op_ticks put in */
		jump = r->jump;
		if (extra[cpu] + jump < extra[cpu]) {
			jump = 0;
		}
		extra[cpu] += jump;
		if (seen[cpu] && r->t < last_t[cpu]) {
			r->t = last_t[cpu];
		}
		if (r->t > (uint64_t)1 << 62) {
			r->t = (uint64_t)1 << 62;
		}
		last_t[cpu] = r->t;
		if (is_ident(r)) {
			r->u.rec.u.head.cpu = cpu;
			repair_ident(m, r);
			seen[cpu] = true;
			continue;
		}
		{
			uint32_t tick = tick_at(m, r->t) + extra[cpu];

			if (seen[cpu] && tick < last_tick[cpu]) {
				tick = last_tick[cpu];
			}
			last_tick[cpu] = tick;
			if (r->kind == TRUTH_SPINLOCK) {
				r->u.sl.tick = tick;
			} else {
				r->u.cs.tick = tick;
			}
		}
		if (r->kind == TRUTH_SPINLOCK) {
			struct sim_spinlock *sl = &r->u.sl;

			sl->cpu = cpu;
			sl->depth = sl->depth ? sl->depth : 1;
			sl->mode &= 0x3F;
			sl->irql &= 31;
			if (x86) {
				sl->lock &= 0xFFFFFFFFu;
				sl->caller &= 0xFFFFFFFFu;
			}
			sl->why = sl->logged ? (sl->why ? sl->why : SIM_SPIN_CONTENDED)
					     : SIM_SPIN_NONE;
			sl->acquire_time &= INT64_MAX;
			sl->release_time &= INT64_MAX;
			sl->wait_cycles &= INT64_MAX;
			SIM_SPINLOCK_FIELDS(WITHIN_ROW, TRUTH_NO_CHECK, sl)
			seen[cpu] = true;
			continue;
		}
		{
			struct sim_cswitch *cs = &r->u.cs;

			cs->cpu = cpu;
			if (seen[cpu]) {
				cs->old_tid = cur[cpu]; /* switches chain on a CPU */
			}
			cur[cpu] = cs->new_tid;
			cs->old_pri = pri(cs->old_pri);
			cs->old_base_pri = pri(cs->old_base_pri);
			cs->new_pri = pri(cs->new_pri);
			if (cs->old_tid == 0) {
				cs->old_pri = cs->old_base_pri = 0;
			}
			if (cs->old_state > 10) {
				cs->old_state = 1;
			}
			cs->old_wait_reason &= 63;
			if (cs->old_state == 5 && cs->old_wait_reason >= m->cfg.max_wait_reason) {
				cs->old_wait_reason = (uint8_t)(m->cfg.max_wait_reason - 1);
			}
			cs->old_wait_mode &= 1;
			cs->old_qos &= 7;
			cs->new_qos &= 7;
			for (unsigned j = 0; j < SIM_MAX_COUNTERS; j++) {
				cs->pmc[j] &= INT64_MAX;
			}
			SIM_CSWITCH_FIELDS(WITHIN_ROW, TRUTH_NO_CHECK, cs)
			seen[cpu] = true;
		}
	}
}

/* Slot @k of @r, or NULL when the record has none. */
static const char *slot(const struct mrec *r, enum mstr k)
{
	return r->has[k] ? r->str[k] : NULL;
}

/* An identity record to the engine, its strings pointed at for the call. */
static int encode_ident(const struct trace_sink *sink, struct mrec *r, enum sim_clock c)
{
	struct sim_record q = r->u.rec;
	uint64_t frames[ETW_STACK_MAX_FRAMES];

	q.u.head.ts[c] = r->t;
	switch (q.kind) {
	case SIM_REC_PROCESS:
		q.u.process.image = r->str[MS_IMAGE];
		q.u.process.cmdline = slot(r, MS_CMDLINE);
		q.u.process.package = slot(r, MS_PACKAGE);
		q.u.process.app_id = slot(r, MS_APP_ID);
		q.u.process.sid = slot(r, MS_SID);
		break;
	case SIM_REC_THREAD:
		q.u.thread.name = slot(r, MS_IMAGE);
		q.u.thread.group = NULL;
		break;
	case SIM_REC_THREAD_NAME:
		q.u.thread_name.name = r->str[MS_IMAGE];
		break;
	case SIM_REC_INTERVAL:
		q.u.interval.source_name = slot(r, MS_IMAGE);
		break;
	case SIM_REC_CPU_CONFIG:
		q.u.cpu_config.computer_name = slot(r, MS_IMAGE);
		q.u.cpu_config.domain_name = slot(r, MS_CMDLINE);
		break;
	case SIM_REC_IMAGE:
		q.u.image.file_name = slot(r, MS_IMAGE);
		q.u.image.pdb_guid = slot(r, MS_PACKAGE);
		q.u.image.pdb_name = slot(r, MS_CMDLINE);
		break;
	case SIM_REC_STACK:
		/* the kept frames, repeated to the depth */
		for (uint32_t k = 0; k < q.u.stack.nips && k < ETW_STACK_MAX_FRAMES; k++) {
			frames[k] = r->ips[k % MUT_STACK_KEEP];
		}
		q.u.stack.frames = NULL;
		q.u.stack.ips = frames;
		break;
	default:
		break;
	}
	return sink->ops->record(sink->ctx, &q);
}

/* Encode @m; on success the image is in @x->out. Return: 0 or a negative errno. */
static int encode(struct etwforge_mutator *x, struct model *m)
{
	struct engine_mem e;
	struct trace_sink sink;
	struct sim_end end;
	const char *why;
	int rc;
	enum sim_clock c = clk(m);

	repair(m);
	if (trace_config_check(&m->cfg, &why) < 0) {
		return -EINVAL;
	}
	rc = engine_mem_open(&e, &m->cfg, NULL);
	sink = engine_mem_sink(&e);
	memset(&end, 0, sizeof(end));
	for (unsigned i = 0; rc >= 0 && i < m->n; i++) {
		struct mrec *r = &m->r[i];

		switch (r->kind) {
		case TRUTH_CSWITCH:
			r->u.cs.ts[c] = r->t;
			rc = sink.ops->cswitch(sink.ctx, &r->u.cs);
			end.tick = r->u.cs.tick > end.tick ? r->u.cs.tick : end.tick;
			break;
		case TRUTH_SPINLOCK:
			r->u.sl.ts[c] = r->t;
			rc = sink.ops->spinlock(sink.ctx, &r->u.sl);
			end.tick = r->u.sl.tick > end.tick ? r->u.sl.tick : end.tick;
			break;
		case TRUTH_CCSWAP_STOP:
			r->u.stop.ts[c] = r->t;
			rc = sink.ops->ccswap_stop(sink.ctx, &r->u.stop);
			break;
		default:
			if (is_ident(r)) {
				rc = encode_ident(&sink, r, c);
			}
			break;
		}
		if (r->t > end.ts[c]) {
			end.ts[c] = r->t;
		}
	}
	if (end.ts[c] < m->cfg.start_ts[c]) {
		end.ts[c] = m->cfg.start_ts[c];
	}
	end.ts[c] += 1;
	if (rc >= 0) {
		rc = engine_mem_finish(&e, &end, NULL);
	}
	if (rc >= 0) {
		free(x->out);
		engine_mem_take(&e, 0, &x->out, &x->out_len);
	}
	engine_mem_close(&e);
	return rc < 0 ? rc : 0;
}

/* ---- the public API ------------------------------------------------------------------ */

struct etwforge_mutator *fuzz_mutator_new(const struct etwforge_mutator_opts *opts)
{
	struct etwforge_mutator *x = calloc(1, sizeof(*x));

	if (!x) {
		errno = ENOMEM;
		return NULL;
	}
	sim_rng_init(&x->rng, opts ? opts->seed : 0, SIM_RNG_MUTATOR, 0);
	x->mangle_percent = opts && opts->mangle_percent <= 100 ? opts->mangle_percent : 0;
	return x;
}

void fuzz_mutator_reseed(struct etwforge_mutator *x, uint64_t seed)
{
	sim_rng_init(&x->rng, seed, SIM_RNG_MUTATOR, 0);
}

const char *fuzz_mutator_describe(const struct etwforge_mutator *x)
{
	return x->what[0] ? x->what : "none";
}

void fuzz_mutator_free(struct etwforge_mutator *x)
{
	if (!x) {
		return;
	}
	free(x->m.r);
	free(x->in.m.r);
	free(x->other.m.r);
	free(x->out);
	free(x);
}

/* Keep only the first half of the records (to fit a size limit). */
static void halve(struct model *m)
{
	m->n /= 2;
}

size_t fuzz_mutator_mutate(struct etwforge_mutator *x, const uint8_t *in, size_t len,
			   const uint8_t *other, size_t other_len, size_t max, const uint8_t **out)
{
	struct model *m = &x->m;
	unsigned nops;

	x->what[0] = '\0';
	if (!in || decode_cached(&x->in, in, len) < 0 || model_copy(m, &x->in.m) < 0) {
		sim_rng_init(&x->rng, XXH3_64bits_withSeed(in, in ? len : 0, x->rng.s[0]),
			     SIM_RNG_MUTATOR, 1);
		synth(x, m);
	}
	nops = 1 + (unsigned)rnd(x, 4);
	for (unsigned k = 0; k < nops; k++) {
		switch (rnd(x, 12)) {
		case 0:
		case 1:
			op_delta(x, m);
			break;
		case 2:
			op_ticks(x, m);
			break;
		case 3:
			op_threads(x, m);
			break;
		case 4:
			op_fill(x, m);
			break;
		case 5:
			op_switch_fields(x, m);
			break;
		case 6:
			op_splice(x, m);
			break;
		case 7:
			op_spinlocks(x, m);
			break;
		case 8:
			op_stop(x, m);
			break;
		case 10:
			if (rnd(x, 3)) {
				op_identity(x, m);
			} else {
				op_image_stack(x, m);
			}
			break;
		default:
			/* the other input is read only when it is used */
			if (other && other_len && rnd(x, 2) &&
			    decode_cached(&x->other, other, other_len) == 0 && x->other.m.n) {
				op_crossover(x, m, &x->other.m);
			} else {
				op_session(x, m);
			}
			break;
		}
	}
	for (int tries = 0; tries < 6; tries++) {
		if (encode(x, m) == 0 && (!max || x->out_len <= max)) {
			break;
		}
		free(x->out);
		x->out = NULL;
		x->out_len = 0;
		if (m->n == 0) {
			sess(m)->buffer_size = 4096;
			m->cfg.cpus = 1;
		}
		halve(m);
		if (tries >= 2) {
			sess(m)->buffer_size = 4096;
			sess(m)->compress = false;
			m->cfg.cpus = 1;
		}
	}
	if (!x->out) {
		/* nothing fits: give the input back unchanged (when it fits) */
		*out = in;
		return in && (!max || len <= max) ? len : 0;
	}
	if (x->mangle_percent && rnd(x, 100) < x->mangle_percent) {
		struct corpus_expect exp;
		uint64_t at;
		size_t n = x->out_len;
		unsigned rule = (unsigned)rnd(x, mangle_rule_count());

		if (mangle_apply(rule, x->out, &n, rnd(x, 64), &at, &exp) == 0) {
			x->out_len = n;
			note(x, mangle_rule_id(rule));
		}
	}
	*out = x->out;
	return x->out_len;
}
