// SPDX-License-Identifier: MIT
/*
 * scheduler_model/identity.c - the identity model (identity.h): processes,
 * threads and their names, the start and stop rundowns, ReadyThread at
 * wake-ups, SampledProfile on a timer, SystemConfig CPU at the stop.
 *
 * The values no consumer interprets (kernel addresses, stacks, TEBs) are
 * derived from the PID or TID alone, so they are the same in every record
 * of the same process or thread and need no memory; sampled instruction
 * pointers come from the model's own RNG stream. Memory is one small entry
 * per thread slot, per process and per image, whatever the duration.
 *
 * Images (loader): each image of the address spaces is not yet loaded,
 * loaded or unloaded. The start rundown lists the loaded ones (an image
 * whose load time is 0, of a process alive at the start); a process that
 * starts loads the images whose time has come (its first thread's
 * context, right after its Thread Start); an image with a load time after
 * its process's start is loaded then, by one of the process's threads (a
 * System thread for a driver); an unload time unloads it, and a process's
 * end unloads what it still has, before its Process End. The stop rundown
 * lists what is loaded.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_model/call_stacks.h"
#include "scheduler_model/identity.h"
#include "scheduler_model/interrupts.h"
#include "scheduler_model/modules.h"

/* Where the addresses come from (plausible ranges; no reader follows them). */
#define X64_EPROCESS  0xFFFFB10000000080ull
#define X64_KSTACK    0xFFFFD00000000000ull
#define X64_KCODE     0xFFFFF80000200000ull /* ntoskrnl's text */
#define X64_USTACK    0x0000000A00000000ull
#define X64_TEB	      0x0000009000000000ull
#define X64_IMAGE     0x00007FF600000000ull
#define X64_SID_TOKEN 0xFFFFC00000001010ull
#define X86_EPROCESS  0x84000040u
#define X86_KSTACK    0x90000000u
#define X86_KCODE     0x82000000u
#define X86_USTACK    0x01000000u
#define X86_TEB	      0x7FF00000u
#define X86_IMAGE     0x00400000u
#define X86_SID_TOKEN 0x8C001010u
#define KSTACK_SIZE   0x6000u	/* 6 pages: TID step 4 x 0x1800 */
#define IMAGE_SPAN    0x80000u	/* an image's code, for sampled IPs */
#define KCODE_SPAN    0xA00000u /* the kernel's */
#define IDLE_IP_SPAN  0x100u	/* the idle loop (HalProcessorIdle) */
/* HypercallPage 0x1422: the page's address (P's, a fixed kernel VA; x86: the same page below 4 GiB) */
#define X64_HYPERCALL 0xFFFFFFFFFFD03000ull
#define X86_HYPERCALL 0xFFD03000u

static_assert(MOD_SYSTEM == IDENT_SYSTEM, "the address spaces index processes as we do");

enum proc_state {
	PROC_NOT_STARTED = 0,
	PROC_ALIVE,
	PROC_ENDED,
};

enum img_state {
	IMG_NOT_LOADED = 0,
	IMG_LOADED,
	IMG_UNLOADED,
};

struct ident_slot {
	uint32_t index; /* the thread's index in its group ("{n}") */
	bool alive;
};

/* A DPC running on a CPU: it returns (and is logged) at @end_ns. */
struct ident_dpc {
	bool on;
	enum sim_event event;
	uint64_t end_ns;
	uint64_t initial[SIM_CLOCK_SLOTS];
	uint64_t routine;
};

struct ident {
	struct ident_cfg cfg;
	struct sched *s;
	const struct sched_cfg *sc;
	int handle;
	struct sim_rng rng;
	uint64_t interval_ns;
	uint64_t next_sample;
	struct sim_rng timer_rng; /* lived-in: the profile interrupt's lateness */
	uint64_t *grid;		  /* lived-in, per CPU: its timer's next tick */
	uint64_t *due;		  /* and when that tick's sample is taken */
	struct sim_rng rd_rng;	  /* lived-in: the start rundown's pace and CPU */
	uint64_t next_rundown;	  /* lived-in: its next process's time (SCHED_NEVER_NS: done) */
	unsigned rd_cpu;	  /* the CPU the rundown is logged on */
	unsigned rd_next;	  /* the next process it runs down */
	unsigned rd_move;	  /* the process after which it migrates */
	uint64_t nfired;	  /* records fired so far */
	bool rd_done[IDENT_MAX_PROCESSES]; /* run down already (out of turn: it changed first) */
	unsigned nslots;
	struct ident_slot *slot;
	uint32_t next_index[SCHED_MAX_GROUPS];
	enum proc_state state[IDENT_MAX_PROCESSES];
	uint32_t live[IDENT_MAX_PROCESSES]; /* live threads */
	char name[512];			    /* the name being fired */
	uint8_t img[MOD_MAX_IMAGES];	    /* enum img_state */
	uint64_t next_image;		    /* the next timed load or unload (SCHED_NEVER_NS) */
	char guid[MOD_GUID_TEXT];	    /* the image being fired's PDB GUID */
	struct stk_paths *paths;	    /* stacks: the address spaces' call paths */
	uint32_t swap_fn;		    /* KiSwapContext: where a switched-in thread waited */
	uint32_t wait_fn[4];		    /* the waits that called it */
	unsigned nwait;
	uint32_t timer_fn;    /* KiTimerExpiration: an idle CPU's waking DPC */
	uint32_t signal_fn;   /* KeReleaseSpinLock: where a waker signals */
	struct stk_walk walk; /* the stack being fired */
	uint32_t *app_fns;    /* each group's hot user functions, in its hot list's order */
	uint32_t app_first[SCHED_MAX_GROUPS], app_n[SCHED_MAX_GROUPS];
	struct irq_routines irq; /* the DPC routines and ISRs */
	struct sim_rng irq_rng;	 /* lived-in: which samples a DPC or an ISR interrupted */
	struct sim_rng dpc_rng;	 /* the DPC and ISR records' durations */
	struct ident_dpc *dpcs;	 /* per CPU: the DPC running there (dpc / interrupt) */
	uint64_t next_dpc;	 /* the first of their ends (SCHED_NEVER_NS: none) */
	struct sim_record rec;
	struct sim_hook_ops ops; /* what it attached with (ident_ops or ident_stack_ops, trimmed) */
};

bool ident_wanted(const struct ident_cfg *c)
{
	return c->proc_thread || c->loader || c->dispatcher || c->profile || c->sysconfig ||
	       (c->stacks & SIM_EV_STACK) || c->dpc || c->interrupt;
}

/* ---- values derived from a PID or TID ---------------------------------- */

static uint64_t wrap32(const struct ident *m, uint64_t v64, uint64_t v32)
{
	return m->cfg.ptr64 ? v64 : (uint32_t)v32;
}

static const struct ident_process *proc_of_group(const struct ident *m, unsigned group)
{
	return &m->cfg.processes[m->cfg.group_process[group]];
}

static unsigned proc_index_of_group(const struct ident *m, unsigned group)
{
	return m->cfg.group_process[group];
}

static uint64_t image_base(const struct ident *m, uint32_t pid)
{
	return wrap32(m, X64_IMAGE + (uint64_t)pid * 0x100000u,
		      X86_IMAGE + (uint64_t)pid * 0x10000u);
}

/* A thread's kernel/user times in ticks: what it has run, split (System's: all kernel). */
static void times_of(const struct ident *m, uint64_t cycles, bool system, uint32_t *kt,
		     uint32_t *ut)
{
	uint64_t ns = m->sc->cpu_mhz ? cycles * 1000u / m->sc->cpu_mhz : 0;
	uint64_t ticks = ns / ((uint64_t)m->sc->timer_resolution * 100u);

	ticks = ticks > UINT32_MAX ? UINT32_MAX : ticks;
	*kt = system ? (uint32_t)ticks : (uint32_t)(ticks / 4u);
	*ut = (uint32_t)ticks - *kt;
}

/* The thread's name ("{n}" replaced by its index), or NULL if its group has none. */
static const char *name_of(struct ident *m, unsigned group, uint32_t index)
{
	const char *pat = m->cfg.thread_name[group];
	size_t o = 0;

	if (!pat) {
		return NULL;
	}
	for (const char *p = pat; *p && o + 1 < sizeof(m->name); p++) {
		if (p[0] == '{' && p[1] == 'n' && p[2] == '}') {
			int n = snprintf(m->name + o, sizeof(m->name) - o, "%u", index);

			o += n > 0 ? (size_t)n : 0;
			o = o < sizeof(m->name) ? o : sizeof(m->name) - 1;
			p += 2;
			continue;
		}
		m->name[o++] = *p;
	}
	m->name[o] = '\0';
	return m->name;
}

/* ---- firing ---------------------------------------------------------------- */

static int fire(struct ident *m, enum sim_record_kind kind, unsigned cpu)
{
	m->rec.kind = kind;
	m->rec.u.head.cpu = cpu;
	m->nfired++;
	return sched_fire_record(m->s, &m->rec);
}

static int fire_process(struct ident *m, unsigned pi, enum sim_event ev, unsigned cpu,
			uint32_t ctx_tid, uint32_t ctx_pid, uint32_t kt, uint32_t ut)
{
	const struct ident_process *p = &m->cfg.processes[pi];
	struct sim_process *r = &m->rec.u.process;

	memset(r, 0, sizeof(*r));
	r->event = ev;
	if (ev == SIM_EVENT_START || ev == SIM_EVENT_END) {
		r->ctx_tid = ctx_tid;
		r->ctx_pid = ctx_pid;
		r->kernel_time = kt;
		r->user_time = ut;
	}
	r->key = wrap32(m, X64_EPROCESS + (uint64_t)p->pid * 0x200u,
			X86_EPROCESS + (uint64_t)p->pid * 0x100u);
	r->pid = p->pid;
	r->ppid = p->ppid;
	r->session = p->session;
	r->exit_status = ev == SIM_EVENT_END ? p->exit_status : pi == IDENT_IDLE ? 0 : 0x103;
	r->dtb = 0x1AD000u + (uint64_t)p->pid * 0x1000u;
	r->sid = p->sid;
	r->sid_token = p->sid ? wrap32(m, X64_SID_TOKEN + (uint64_t)p->pid * 0x40u,
				       X86_SID_TOKEN + (uint64_t)p->pid * 0x40u)
			      : 0;
	r->image = p->image;
	r->cmdline = p->cmdline;
	return fire(m, SIM_REC_PROCESS, cpu);
}

/* KAFFINITY of a group's threads (the first 64 CPUs: the record's one word). */
static uint64_t affinity_of(const struct ident *m, unsigned group)
{
	const uint64_t *a = m->sc->groups[group].affinity;
	unsigned n = m->sc->cpus < 64 ? m->sc->cpus : 64;
	uint64_t all = n == 64 ? UINT64_MAX : (1ull << n) - 1u;
	bool any = true;

	for (unsigned w = 0; w < SCHED_MAX_CPUS / 64; w++) {
		any = any && a[w] == 0;
	}
	if (!m->cfg.ptr64) {
		all &= UINT32_MAX;
	}
	return any ? all : (a[0] & all ? a[0] & all : all);
}

/*
 * A thread record of @tid of @group (@index: its index in the group), or of
 * CPU @index's idle thread when @group < 0, into CPU @cpu's buffer. The header context is the thread's own
 * except for Start (@ctx_tid/@ctx_pid, the creator).
 */
static int fire_thread(struct ident *m, enum sim_event ev, unsigned cpu, int group, uint32_t tid,
		       uint32_t index, uint64_t cycles, uint32_t ctx_tid, uint32_t ctx_pid)
{
	struct sim_thread *r = &m->rec.u.thread;
	unsigned pi = group < 0 ? IDENT_IDLE : proc_index_of_group(m, (unsigned)group);
	const struct ident_process *p = &m->cfg.processes[pi];
	bool kernel = pi == IDENT_SYSTEM || pi == IDENT_IDLE;
	const char *name = group < 0 ? NULL : name_of(m, (unsigned)group, index);
	uint64_t kstack = wrap32(m, X64_KSTACK + (uint64_t)tid * 0x1800u,
				 X86_KSTACK + ((uint64_t)tid * 0x1800u) % 0x60000000u);
	uint32_t kt, ut;
	int rc;

	memset(r, 0, sizeof(*r));
	r->event = ev;
	r->pid = p->pid;
	r->tid = tid;
	times_of(m, cycles, kernel, &kt, &ut);
	if (ev == SIM_EVENT_START) {
		r->ctx_tid = ctx_tid;
		r->ctx_pid = ctx_pid;
	} else {
		r->ctx_tid = tid;
		r->ctx_pid = p->pid;
		r->kernel_time = kt;
		r->user_time = ut;
	}
	if (group < 0) {
		/* the idle thread of @cpu: its stack, affinity 1 << cpu, priority 0 */
		r->stack_base = wrap32(m, X64_KSTACK - 0x100000u * (uint64_t)(index + 1u),
				       X86_KSTACK - 0x10000u * (uint64_t)(index + 1u));
		r->stack_limit = r->stack_base - KSTACK_SIZE;
		r->affinity = 1ull << (index % (m->cfg.ptr64 ? 64u : 32u));
		r->win32_start = wrap32(m, X64_KCODE, X86_KCODE);
		r->base_pri = 0;
	} else {
		r->stack_base = kstack;
		r->stack_limit = kstack - KSTACK_SIZE;
		if (!kernel) {
			uint64_t us = wrap32(m, X64_USTACK + (uint64_t)tid * 0x100000u,
					     X86_USTACK + ((uint64_t)tid * 0x10000u) % 0x60000000u);

			r->user_stack_base = us;
			r->user_stack_limit = us - 0x10000u;
			r->teb = wrap32(m, X64_TEB + (uint64_t)tid * 0x2000u,
					X86_TEB - ((uint64_t)tid * 0x1000u) % 0x70000000u);
			r->win32_start = image_base(m, p->pid) + 0x1000u + (uint64_t)group * 0x40u;
		} else {
			r->win32_start =
				wrap32(m, X64_KCODE, X86_KCODE) + 0x1000u + (uint64_t)group * 0x40u;
		}
		r->affinity = affinity_of(m, (unsigned)group);
		r->base_pri = m->sc->groups[group].base_priority;
	}
	r->page_pri = 5;
	r->io_pri = 2;
	r->name = m->cfg.names_in_thread_records ? name : NULL;
	r->group = group < 0 ? NULL : m->sc->groups[group].name;
	rc = fire(m, SIM_REC_THREAD, cpu);
	if (rc < 0 || !name || m->cfg.names_in_thread_records ||
	    (ev != SIM_EVENT_START && ev != SIM_EVENT_DCSTART)) {
		return rc;
	}
	/* the target's Thread records carry no name: ThreadSetName after it */
	{
		struct sim_thread_name *n = &m->rec.u.thread_name;

		memset(n, 0, sizeof(*n));
		n->pid = p->pid;
		n->tid = tid;
		n->name = name;
		return fire(m, SIM_REC_THREAD_NAME, cpu);
	}
}

static int fire_masks(struct ident *m, enum sim_event ev, bool enabled)
{
	struct sim_masks *r = &m->rec.u.masks;

	memset(r, 0, sizeof(*r));
	r->event = ev;
	r->enabled = enabled;
	return fire(m, SIM_REC_MASKS, 0);
}

static int fire_interval(struct ident *m, enum sim_event ev, unsigned cpu)
{
	struct sim_interval *r = &m->rec.u.interval;

	memset(r, 0, sizeof(*r));
	r->event = ev;
	r->source = 0;
	r->new_interval = m->cfg.profile_interval;
	r->old_interval = m->cfg.profile_interval;
	r->source_name = "Timer";
	return fire(m, SIM_REC_INTERVAL, cpu);
}

static int fire_rundown_complete(struct ident *m, unsigned cpu)
{
	memset(&m->rec.u.rundown, 0, sizeof(m->rec.u.rundown));
	return fire(m, SIM_REC_RUNDOWN, cpu);
}

static int fire_cpu_config(struct ident *m)
{
	struct sim_cpu_config *r = &m->rec.u.cpu_config;

	memset(r, 0, sizeof(*r));
	r->mhz = m->sc->cpu_mhz;
	r->nproc = m->sc->cpus;
	r->memory_mb = m->cfg.memory_mb;
	r->page_size = 4096;
	r->alloc_gran = 65536;
	r->computer_name = m->cfg.computer_name;
	r->domain_name = "";
	r->highest_user = m->cfg.ptr64 ? 0x7FFFFFFEFFFFull : 0x7FFEFFFFu;
	r->arch = m->cfg.ptr64 ? 9 : 0; /* PROCESSOR_ARCHITECTURE_AMD64 / _INTEL */
	r->level = 6;
	r->revision = 0x9E0A;
	r->pae = 1;
	r->nx = 1;
	r->memory_speed = 3200;
	return fire(m, SIM_REC_CPU_CONFIG, 0);
}

/* Arm the model's event at the earliest of what is pending. */
static void arm(struct ident *m)
{
	uint64_t t = m->next_sample < m->next_image ? m->next_sample : m->next_image;

	t = m->next_rundown < t ? m->next_rundown : t;
	t = m->next_dpc < t ? m->next_dpc : t;

	sched_model_arm(m->s, m->handle, t);
}

/* The CPU thread @tid last ran on (0 when it is none of the live threads). */
static unsigned creator_cpu(struct ident *m, uint32_t tid)
{
	struct sched_thread_view v;

	for (unsigned k = 0; tid && k < m->nslots; k++) {
		if (m->slot[k].alive && sched_thread_at(m->s, k, &v) && v.tid == tid) {
			return v.cpu;
		}
	}
	return 0;
}

/* ---- images ------------------------------------------------------------------ */

static bool images_on(const struct ident *m)
{
	return m->cfg.loader && m->cfg.modules;
}

/* Image @i's record of @ev into @cpu's buffer, a SYSTEM header's context @tid/@pid/@kt/@ut. */
static int fire_image(struct ident *m, uint32_t i, enum sim_event ev, unsigned cpu, uint32_t tid,
		      uint32_t pid, uint32_t kt, uint32_t ut)
{
	const struct mod_image *im = &m->cfg.modules->images[i];
	struct sim_image *r = &m->rec.u.image;

	memset(r, 0, sizeof(*r));
	r->event = ev;
	r->ctx_tid = tid;
	r->ctx_pid = pid;
	r->kernel_time = kt;
	r->user_time = ut;
	mod_image_record(m->cfg.modules, i, im->kernel ? 0 : m->cfg.processes[im->process].pid, r,
			 m->guid);
	return fire(m, SIM_REC_IMAGE, cpu);
}

/* Is image @i one of process @pi's (a kernel module: System's, listed apart)? */
static bool image_of(const struct ident *m, uint32_t i, unsigned pi)
{
	const struct mod_image *im = &m->cfg.modules->images[i];

	return !im->kernel && im->process == pi;
}

/* Image @i's place in its list (mod_image_rank()). */
static unsigned rank_of(const struct ident *m, uint32_t i)
{
	const struct mod_image *im = &m->cfg.modules->images[i];

	return mod_image_rank(m->cfg.modules, i,
			      im->kernel ? NULL : m->cfg.processes[im->process].image);
}

/* The rundown of process @pi's loaded images (PERFINFO: no context), or the kernel's modules. */
static int rundown_images(struct ident *m, unsigned pi, bool kernel, enum sim_event ev,
			  unsigned cpu)
{
	for (unsigned rank = 0; images_on(m) && rank < MOD_RANKS; rank++) {
		for (uint32_t i = 0; i < m->cfg.modules->nimages; i++) {
			const struct mod_image *im = &m->cfg.modules->images[i];
			int rc;

			if (m->img[i] != IMG_LOADED ||
			    (kernel ? !im->kernel : !image_of(m, i, pi)) || rank_of(m, i) != rank) {
				continue;
			}
			/* a kernel module's: SYSTEM, the controller's context (0/0, as the interval's) */
			if ((rc = fire_image(m, i, ev, cpu, 0, 0, 0, 0)) < 0) {
				return rc;
			}
		}
	}
	return 0;
}

/* The stop rundown's kernel part: KernelBase, HypercallPage, then the kernel modules. */
static int rundown_kernel_end(struct ident *m)
{
	const struct mod_cfg *c = m->cfg.modules;
	int nt = mod_find_image(c, IDENT_SYSTEM, true, "ntoskrnl.exe");
	struct sim_image *r = &m->rec.u.image;
	int rc;

	memset(r, 0, sizeof(*r));
	r->event = SIM_EVENT_KERNEL_BASE;
	r->base = nt >= 0 ? c->images[nt].base : 0;
	if ((rc = fire(m, SIM_REC_IMAGE, 0)) < 0) {
		return rc;
	}
	memset(r, 0, sizeof(*r));
	r->event = SIM_EVENT_HYPERCALL_PAGE;
	r->base = wrap32(m, X64_HYPERCALL, X86_HYPERCALL);
	if ((rc = fire(m, SIM_REC_IMAGE, 0)) < 0) {
		return rc;
	}
	return rundown_images(m, IDENT_SYSTEM, true, SIM_EVENT_DCEND, 0);
}

/* The images loaded before the session: kernel modules, and those of the processes alive then. */
static void images_at_start(struct ident *m)
{
	for (uint32_t i = 0; images_on(m) && i < m->cfg.modules->nimages; i++) {
		const struct mod_image *im = &m->cfg.modules->images[i];

		if (im->load_ns == 0 && im->unload_ns != 0 &&
		    (im->kernel || m->cfg.processes[im->process].start_ns == 0)) {
			m->img[i] = IMG_LOADED;
		}
	}
}

/*
 * Process @pi's images whose load time has come (@now): Loads, in the context
 * @tid/@pid (times @kt/@ut) on @cpu.
 */
static int load_images(struct ident *m, unsigned pi, uint64_t now, unsigned cpu, uint32_t tid,
		       uint32_t pid, uint32_t kt, uint32_t ut)
{
	for (unsigned rank = 0; images_on(m) && rank < MOD_RANKS; rank++) {
		for (uint32_t i = 0; i < m->cfg.modules->nimages; i++) {
			const struct mod_image *im = &m->cfg.modules->images[i];
			int rc;

			if (m->img[i] != IMG_NOT_LOADED || !image_of(m, i, pi) ||
			    im->load_ns > now || im->unload_ns <= now || rank_of(m, i) != rank) {
				continue;
			}
			m->img[i] = IMG_LOADED;
			if ((rc = fire_image(m, i, SIM_EVENT_LOAD, cpu, tid, pid, kt, ut)) < 0) {
				return rc;
			}
		}
	}
	return 0;
}

/* Process @pi's loaded images unloaded (its end). */
static int unload_images(struct ident *m, unsigned pi, unsigned cpu, uint32_t tid, uint32_t pid,
			 uint32_t kt, uint32_t ut)
{
	for (uint32_t i = 0; images_on(m) && i < m->cfg.modules->nimages; i++) {
		int rc;

		if (m->img[i] != IMG_LOADED || !image_of(m, i, pi)) {
			continue;
		}
		m->img[i] = IMG_UNLOADED;
		if ((rc = fire_image(m, i, SIM_EVENT_UNLOAD, cpu, tid, pid, kt, ut)) < 0) {
			return rc;
		}
	}
	return 0;
}

/* The next timed load or unload after @now (SCHED_NEVER_NS: none). */
static uint64_t next_image_time(const struct ident *m, uint64_t now)
{
	uint64_t t = SCHED_NEVER_NS;

	for (uint32_t i = 0; images_on(m) && i < m->cfg.modules->nimages; i++) {
		const struct mod_image *im = &m->cfg.modules->images[i];
		uint64_t at = m->img[i] == IMG_NOT_LOADED ? im->load_ns
			      : m->img[i] == IMG_LOADED	  ? im->unload_ns
							  : SCHED_NEVER_NS;

		if (at > now && at < t && at != MOD_NEVER &&
		    (im->kernel || m->state[im->process] != PROC_ENDED)) {
			t = at;
		}
	}
	return t;
}

static void creator_of(struct ident *m, unsigned pi, uint32_t *tid, uint32_t *pid);
static int rundown_first(struct ident *m, unsigned pi);

/* The loads and unloads whose time is @now: by a thread of the process (System's for a driver). */
static int images_due(struct ident *m, uint64_t now)
{
	for (uint32_t i = 0; images_on(m) && i < m->cfg.modules->nimages; i++) {
		const struct mod_image *im = &m->cfg.modules->images[i];
		unsigned pi = im->kernel ? IDENT_SYSTEM : im->process;
		bool load = m->img[i] == IMG_NOT_LOADED && im->load_ns <= now && im->load_ns != 0;
		bool unload = m->img[i] == IMG_LOADED && im->unload_ns <= now;
		uint32_t tid, pid;
		int rc;

		if ((!load && !unload) || m->state[pi] != PROC_ALIVE) {
			continue;
		}
		if ((rc = rundown_first(m, pi)) < 0) {
			return rc;
		}
		creator_of(m, pi, &tid, &pid);
		m->img[i] = load ? IMG_LOADED : IMG_UNLOADED;
		rc = fire_image(m, i, load ? SIM_EVENT_LOAD : SIM_EVENT_UNLOAD, creator_cpu(m, tid),
				tid, pid, 0, 0);
		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}

/* ---- rundowns -------------------------------------------------------------- */

/* The threads of process @pi alive now, in slot order: @ev records of each. */
static int threads_of(struct ident *m, unsigned pi, enum sim_event ev, unsigned cpu)
{
	struct sched_thread_view v;

	for (unsigned k = 0; k < m->nslots; k++) {
		int rc;

		if (!m->slot[k].alive || !sched_thread_at(m->s, k, &v) ||
		    proc_index_of_group(m, v.group) != pi) {
			continue;
		}
		rc = fire_thread(m, ev, cpu, (int)v.group, v.tid, m->slot[k].index, v.cycles, 0, 0);
		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}

static int idle_threads(struct ident *m, enum sim_event ev, unsigned cpu)
{
	for (unsigned c = 0; c < m->sc->cpus; c++) {
		/* each idle thread (its CPU as @index), logged on the controller's CPU */
		int rc = fire_thread(m, ev, cpu, -1, 0, c, 0, 0, 0);

		if (rc < 0) {
			return rc;
		}
	}
	return 0;
}

/* Process @pi's start rundown, on CPU @cpu: the process, its threads, its images. */
static int rundown_process(struct ident *m, unsigned pi, unsigned cpu)
{
	int rc;

	m->rd_done[pi] = true;
	if ((rc = fire_process(m, pi, SIM_EVENT_DCSTART, cpu, 0, 0, 0, 0)) < 0) {
		return rc;
	}
	rc = pi == IDENT_IDLE ? idle_threads(m, SIM_EVENT_DCSTART, cpu)
			      : threads_of(m, pi, SIM_EVENT_DCSTART, cpu);
	if (rc == 0 && pi != IDENT_IDLE) {
		/* System's own images (none here), then the kernel modules */
		rc = rundown_images(m, pi, false, SIM_EVENT_DCSTART, cpu);
		if (rc == 0 && pi == IDENT_SYSTEM) {
			rc = rundown_images(m, pi, true, SIM_EVENT_DCSTART, cpu);
		}
	}
	return rc;
}

/* The start rundown's last records: the profile interval, then RundownComplete. */
static int rundown_end(struct ident *m, unsigned cpu)
{
	int rc;

	m->next_rundown = SCHED_NEVER_NS;
	if (m->cfg.profile && (rc = fire_interval(m, SIM_EVENT_DCSTART, cpu)) < 0) {
		return rc;
	}
	return fire_rundown_complete(m, cpu);
}

/* Whether process @pi is alive and waits for its turn in a lived-in start rundown. */
static bool rundown_pending(const struct ident *m, unsigned pi)
{
	return m->next_rundown != SCHED_NEVER_NS && m->state[pi] == PROC_ALIVE && !m->rd_done[pi];
}

/*
 * Lived-in: the next process of the start rundown at @now. The controller's
 * thread walks the process list while the machine runs on, so the records
 * take time (1 to 5 us each, now and then a preemption of a few hundred us:
 * the Windows sample file's rundown takes 8.4 ms for 34 processes, 662
 * threads and their images; another machine's, 208 ms for 97 and 1,173)
 * and live records of every CPU fall between them; it migrates once.
 */
static int rundown_step(struct ident *m, uint64_t now)
{
	uint64_t cost = 0, nrec = m->nfired;
	unsigned pi = m->rd_next;
	int rc;

	while (pi < m->cfg.nprocesses && !rundown_pending(m, pi)) {
		pi++;
	}
	if (pi >= m->cfg.nprocesses) {
		return rundown_end(m, m->rd_cpu);
	}
	m->rd_next = pi + 1;
	if ((rc = rundown_process(m, pi, m->rd_cpu)) < 0) {
		return rc;
	}
	nrec = m->nfired - nrec;
	for (uint64_t k = 0; k < nrec; k++) {
		cost += 1000u + sim_rng_below(&m->rd_rng, 4000);
	}
	if (sim_rng_below(&m->rd_rng, 100) < 4) {
		cost += sim_rng_exp(&m->rd_rng, 300000u); /* preempted */
	}
	if (pi == m->rd_move && m->sc->cpus > 1) {
		/* to another CPU, once (the Windows sample file's is on two) */
		m->rd_cpu =
			(m->rd_cpu + 1u + (unsigned)sim_rng_below(&m->rd_rng, m->sc->cpus - 1u)) %
			m->sc->cpus;
	}
	m->next_rundown = now + cost;
	return 0;
}

/* A lived-in process about to change (a thread, an image) before its turn: its rundown now. */
static int rundown_first(struct ident *m, unsigned pi)
{
	return rundown_pending(m, pi) ? rundown_process(m, pi, m->rd_cpu) : 0;
}

int ident_start(struct ident *m)
{
	int rc;

	if ((rc = fire_masks(m, SIM_EVENT_END, false)) < 0 ||
	    (rc = fire_masks(m, SIM_EVENT_NEW, true)) < 0) {
		return rc;
	}
	images_at_start(m);
	for (unsigned pi = 0; pi < m->cfg.nprocesses; pi++) {
		if (m->cfg.processes[pi].start_ns != 0) {
			continue;
		}
		m->state[pi] = PROC_ALIVE;
		if (!m->sc->lived_in && (rc = rundown_process(m, pi, 0)) < 0) {
			return rc;
		}
	}
	m->next_image = next_image_time(m, 0);
	if (m->sc->lived_in) {
		/* the rundown begins a few tens of microseconds in, on any CPU */
		sim_rng_init(&m->rd_rng, m->sc->seed, SIM_RNG_IDENT, 2);
		m->rd_cpu = (unsigned)sim_rng_below(&m->rd_rng, m->sc->cpus);
		m->rd_next = 0;
		m->rd_move = (unsigned)sim_rng_below(&m->rd_rng, m->cfg.nprocesses);
		m->next_rundown = 10000u + sim_rng_below(&m->rd_rng, 50000);
		arm(m);
		return 0;
	}
	arm(m);
	return rundown_end(m, 0);
}

static int stop(void *ctx, uint64_t now_ns)
{
	struct ident *m = ctx;
	int rc;

	while (m->next_rundown != SCHED_NEVER_NS) {
		/* a run shorter than its start rundown: the rest of it first */
		if ((rc = rundown_step(m, now_ns)) < 0) {
			return rc;
		}
	}
	if (m->cfg.sysconfig && (rc = fire_cpu_config(m)) < 0) {
		return rc;
	}
	if ((rc = fire_masks(m, SIM_EVENT_END, true)) < 0) {
		return rc;
	}
	for (unsigned pi = 0; pi < m->cfg.nprocesses; pi++) {
		if (m->state[pi] != PROC_ALIVE) {
			continue;
		}
		rc = pi == IDENT_IDLE ? idle_threads(m, SIM_EVENT_DCEND, 0)
				      : rundown_images(m, pi, false, SIM_EVENT_DCEND, 0);
		if (rc == 0 && pi != IDENT_IDLE) {
			rc = threads_of(m, pi, SIM_EVENT_DCEND, 0);
		}
		if (rc < 0 || (rc = fire_process(m, pi, SIM_EVENT_DCEND, 0, 0, 0, 0, 0)) < 0) {
			return rc;
		}
		if (pi == IDENT_IDLE && images_on(m) && (rc = rundown_kernel_end(m)) < 0) {
			return rc;
		}
	}
	if (m->cfg.profile && (rc = fire_interval(m, SIM_EVENT_DCEND, 0)) < 0) {
		return rc;
	}
	if ((rc = fire_masks(m, SIM_EVENT_NEW, false)) < 0) {
		return rc;
	}
	return fire_rundown_complete(m, 0);
}

/* ---- live events ------------------------------------------------------------- */

/* Who creates a thread of process @pi: one of its live threads, else its parent's, else System. */
static void creator_of(struct ident *m, unsigned pi, uint32_t *tid, uint32_t *pid)
{
	struct sched_thread_view v;
	uint32_t ppid = m->cfg.processes[pi].ppid;
	uint32_t parent_tid = 0;

	for (unsigned k = 0; k < m->nslots; k++) {
		unsigned q;

		if (!m->slot[k].alive || !sched_thread_at(m->s, k, &v)) {
			continue;
		}
		q = proc_index_of_group(m, v.group);
		if (q == pi) {
			*tid = v.tid;
			*pid = m->cfg.processes[pi].pid;
			return;
		}
		if (!parent_tid && m->cfg.processes[q].pid == ppid && q != IDENT_IDLE) {
			parent_tid = v.tid;
		}
	}
	if (parent_tid) {
		*tid = parent_tid;
		*pid = ppid;
		return;
	}
	*tid = 0;
	*pid = m->cfg.processes[IDENT_SYSTEM].pid;
}

static void on_thread(void *ctx, uint64_t now_ns, const struct sim_thread_change *c)
{
	struct ident *m = ctx;
	unsigned pi = proc_index_of_group(m, c->group);
	struct sched_thread_view v = {0};
	int rc = 0;

	if (c->slot >= m->nslots || rundown_first(m, pi) < 0) {
		return;
	}
	if (!c->exit) {
		uint32_t ctid, cpid;
		bool starts = false;

		creator_of(m, pi, &ctid, &cpid);
		m->slot[c->slot].alive = true;
		m->slot[c->slot].index = m->next_index[c->group]++;
		m->live[pi]++;
		if (m->state[pi] == PROC_NOT_STARTED) {
			m->state[pi] = PROC_ALIVE;
			rc = fire_process(m, pi, SIM_EVENT_START, c->cpu, ctid, cpid, 0, 0);
			starts = true;
		}
		if (rc == 0) {
			rc = fire_thread(m, SIM_EVENT_START, c->cpu, (int)c->group, c->tid,
					 m->slot[c->slot].index, 0, ctid, cpid);
		}
		if (rc == 0 && starts) {
			/* its first thread maps its images */
			(void)load_images(m, pi, now_ns, c->cpu, c->tid, m->cfg.processes[pi].pid,
					  0, 0);
			m->next_image = next_image_time(m, now_ns);
			arm(m);
		}
		return;
	}
	(void)sched_thread_at(m->s, c->slot, &v);
	rc = fire_thread(m, SIM_EVENT_END, c->cpu, (int)c->group, c->tid, m->slot[c->slot].index,
			 v.cycles, 0, 0);
	m->slot[c->slot].alive = false;
	m->live[pi] -= m->live[pi] > 0;
	if (rc == 0 && m->live[pi] == 0 && m->cfg.processes[pi].exit_ns != IDENT_NO_EXIT &&
	    now_ns >= m->cfg.processes[pi].exit_ns && m->state[pi] == PROC_ALIVE) {
		uint32_t kt, ut;

		times_of(m, v.cycles, pi == IDENT_SYSTEM, &kt, &ut);
		m->state[pi] = PROC_ENDED;
		rc = unload_images(m, pi, c->cpu, c->tid, m->cfg.processes[pi].pid, kt, ut);
		if (rc == 0) {
			(void)fire_process(m, pi, SIM_EVENT_END, c->cpu, c->tid,
					   m->cfg.processes[pi].pid, kt, ut);
		}
	}
}

/* ---- stacks -------------------------------------------------------------- */

static bool stacks_on(const struct ident *m, enum sim_event ev)
{
	return (m->cfg.stacks & SIM_EV_BIT(ev)) && m->paths;
}

/* The user function thread @tid of @group runs in (one of its group's hot user functions). */
static uint32_t app_of(const struct ident *m, unsigned group, uint32_t tid)
{
	uint32_t n = m->app_n[group];

	return n == 0 ? STK_NONE : m->app_fns[m->app_first[group] + (tid / 4u) % n];
}

/* Each group's hot user functions, listed once for app_of(). Return: 0 or -ENOMEM. */
static int list_apps(struct ident *m)
{
	const struct mod_cfg *c = m->cfg.modules;
	uint32_t n = 0;

	m->app_fns = malloc((c->nhot ? c->nhot : 1) * sizeof(*m->app_fns));
	if (!m->app_fns) {
		return -ENOMEM;
	}
	for (unsigned g = 0; g < SCHED_MAX_GROUPS; g++) {
		const struct mod_hot *h = &c->hot[c->hot_first[g]];

		m->app_first[g] = n;
		for (uint32_t k = 0; k < c->hot_n[g] && c->hot_first[g] + k < c->nhot; k++) {
			if (!c->images[c->functions[h[k].fn].image].kernel) {
				m->app_fns[n++] = h[k].fn;
			}
		}
		m->app_n[g] = n - m->app_first[g];
	}
	return 0;
}

/* One part of the stack (@f[@n], none when 0) of @ev's thread @tid/@pid on @cpu. */
static int fire_part(struct ident *m, unsigned cpu, enum sim_event ev, uint32_t pid, uint32_t tid,
		     const uint64_t *f, unsigned n)
{
	struct sim_stack *r = &m->rec.u.stack;

	if (n == 0) {
		return 0;
	}
	memset(r, 0, sizeof(*r));
	r->event = ev;
	r->pid = pid;
	r->tid = tid;
	r->ips = f; /* the truth writer prints them as the line's frames */
	r->nips = n;
	return fire(m, SIM_REC_STACK, cpu);
}

/*
 * The stack of @ev's thread @tid (of @group; < 0: the idle CPU's DPC) at @ip in @fn, after
 * the event on @cpu: its kernel part, then its user part.
 */
static int fire_stack(struct ident *m, unsigned cpu, enum sim_event ev, int group, uint32_t tid,
		      uint32_t fn, uint32_t via, uint64_t ip)
{
	unsigned pi = group < 0 ? IDENT_IDLE : proc_index_of_group(m, (unsigned)group);
	enum stk_who who = group < 0		? STK_IDLE_DPC
			   : pi == IDENT_SYSTEM ? STK_SYSTEM_THREAD
						: STK_USER_THREAD;
	uint32_t pid = group < 0 ? 0 : m->cfg.processes[pi].pid;
	uint32_t app = group < 0 ? STK_NONE : app_of(m, (unsigned)group, tid);
	int rc;

	stk_build(m->paths, pi, who, fn, via, ip, app, &m->walk);
	if ((rc = fire_part(m, cpu, ev, pid, tid, m->walk.kernel, m->walk.nk)) < 0) {
		return rc;
	}
	return fire_part(m, cpu, ev, pid, tid, m->walk.user, m->walk.nu);
}

/* An address in @fn (its hot instruction), or 0 for STK_NONE. */
static uint64_t at_fn(const struct ident *m, uint32_t fn)
{
	return fn == STK_NONE
		       ? 0
		       : mod_fn_address(m->cfg.modules, fn) + m->cfg.modules->functions[fn].hot;
}

/* The context switch's stack: the new thread's, where it waited (KiSwapContext). */
static void on_switched(void *ctx, uint64_t now_ns, const struct sim_cswitch *cs)
{
	struct ident *m = ctx;
	struct sched_cpu_view v;

	(void)now_ns;
	if (!stacks_on(m, SIM_EVENT_CSWITCH) || cs->new_tid == 0) {
		return;
	}
	sched_cpu_view(m->s, cs->cpu, &v);
	if (v.group < 0 || v.tid != cs->new_tid) {
		return;
	}
	/* called by the thread's own wait: one of them per thread */
	(void)fire_stack(m, cs->cpu, SIM_EVENT_CSWITCH, v.group, v.tid, m->swap_fn,
			 m->nwait ? m->wait_fn[(v.tid / 4u) % m->nwait] : STK_NONE,
			 at_fn(m, m->swap_fn));
}

static uint32_t pid_running(struct ident *m, const struct sched_cpu_view *v)
{
	return v->group < 0 ? 0 : proc_of_group(m, (unsigned)v->group)->pid;
}

/* ---- DPC and ISR records ------------------------------------------------- */

/* The clocks of simulation time @t_ns (those the run does not keep: 0). */
static void clocks_at(const struct ident *m, uint64_t t_ns, uint64_t ts[SIM_CLOCK_SLOTS])
{
	uint32_t tick;

	sched_clocks_at(m->sc, t_ns, ts, &tick);
	for (unsigned k = 0; k < SIM_CLOCK_SLOTS; k++) {
		ts[k] = m->sc->clocks[k] ? ts[k] : 0;
	}
}

static void dpc_rearm(struct ident *m)
{
	m->next_dpc = SCHED_NEVER_NS;
	for (unsigned c = 0; c < m->sc->cpus; c++) {
		if (m->dpcs[c].on && m->dpcs[c].end_ns < m->next_dpc) {
			m->next_dpc = m->dpcs[c].end_ns;
		}
	}
}

/* The DPCs that have returned by now: each one's record on its CPU. */
static int dpcs_due(struct ident *m, uint64_t now_ns)
{
	int rc = 0;

	for (unsigned c = 0; c < m->sc->cpus && rc == 0; c++) {
		struct ident_dpc *d = &m->dpcs[c];
		struct sim_dpc *r = &m->rec.u.dpc;

		if (!d->on || d->end_ns > now_ns) {
			continue;
		}
		d->on = false;
		if (!m->cfg.dpc) {
			continue;
		}
		memset(r, 0, sizeof(*r));
		r->event = d->event;
		memcpy(r->initial_time, d->initial, sizeof(r->initial_time));
		r->routine = d->routine;
		rc = fire(m, SIM_REC_DPC, c);
	}
	dpc_rearm(m);
	return rc;
}

/*
 * A wake-up from a DPC on CPU @cpu at @now_ns (before its ReadyThread): a
 * timer's expiry (@timer) or, on an idle CPU, an I/O completion (with
 * driver modules). The interrupt that starts it is logged now, when it
 * returns: the clock's for a timer, the driver's for its I/O, from 1 to 4
 * us before; the DPC runs from now (the ReadyThread is its work) for 2 us
 * and an exponential 3 us more (a timer's) or 8 us (an I/O's), at most 50
 * / 100 us, and is logged (with dpc) when it returns. A DPC already running
 * on the CPU readies this thread too: no second one, and no interrupt.
 * Durations from their own RNG stream (SIM_RNG_IDENT 5).
 */
static void dpc_begin(struct ident *m, unsigned cpu, uint64_t now_ns, bool timer)
{
	struct ident_dpc *d = &m->dpcs[cpu];
	unsigned k = 0;
	uint64_t run;

	if (d->on || (!timer && !m->irq.drivers)) {
		return;
	}
	if (!timer) {
		k = (unsigned)sim_rng_below(&m->dpc_rng, m->irq.ndpc);
	}
	if (m->cfg.interrupt) {
		struct sim_dpc *r = &m->rec.u.dpc;
		const struct irq_routine *isr = timer ? &m->irq.clock : &m->irq.isr[k];
		uint64_t took = sim_rng_range(&m->dpc_rng, 1000, 4000);

		memset(r, 0, sizeof(*r));
		r->event = SIM_EVENT_ISR;
		clocks_at(m, now_ns > took ? now_ns - took : 0, r->initial_time);
		r->routine = isr->addr;
		r->return_value = 1; /* TRUE: it was its interrupt */
		r->vector = isr->vector;
		if (fire(m, SIM_REC_DPC, cpu) < 0) {
			return;
		}
	}
	/* tracked with interrupt alone too: a wake-up during it takes no second interrupt */
	run = sim_rng_exp(&m->dpc_rng, timer ? 3000u : 8000u);
	run = 2000u + (run < (timer ? 48000u : 98000u) ? run : (timer ? 48000u : 98000u));
	d->on = true;
	d->event = timer ? SIM_EVENT_TIMER_DPC : SIM_EVENT_DPC;
	d->end_ns = now_ns + run;
	clocks_at(m, now_ns, d->initial);
	d->routine = timer ? m->irq.timer.addr : m->irq.dpc[k].addr;
	if (d->end_ns < m->next_dpc) {
		m->next_dpc = d->end_ns;
		arm(m);
	}
}

static void on_ready(void *ctx, uint64_t now_ns, const struct sim_wake *w)
{
	struct ident *m = ctx;
	struct sim_ready *r = &m->rec.u.ready;
	struct sched_cpu_view v;

	if (m->dpcs && !w->created) {
		sched_cpu_view(m->s, w->cpu, &v);
		if (w->timer || v.tid == 0) {
			dpc_begin(m, w->cpu, now_ns, w->timer);
		}
	}
	if (!m->cfg.dispatcher) {
		return;
	}
	sched_cpu_view(m->s, w->cpu, &v);
	memset(r, 0, sizeof(*r));
	/* the thread running there readies it (from a DPC when a timer or the idle CPU's I/O did) */
	r->waker_tid = v.tid;
	r->waker_pid = pid_running(m, &v);
	r->tid = w->tid;
	r->adjust_reason = w->created ? 0 : 1; /* None for a new thread, else Unwait */
	r->adjust_increment = w->boost;
	r->flags = (w->timer || v.tid == 0) ? 0x1 : 0; /* ReadiedFromDPC */
	if (fire(m, SIM_REC_READY, w->cpu) < 0 || !stacks_on(m, SIM_EVENT_READY_THREAD)) {
		return;
	}
	/* the waker's stack: a DPC's on an idle CPU (the timer's), else the thread's signalling */
	if (v.tid == 0) {
		(void)fire_stack(m, w->cpu, SIM_EVENT_READY_THREAD, -1, 0, m->timer_fn, STK_NONE,
				 at_fn(m, m->timer_fn));
	} else if (v.group >= 0) {
		(void)fire_stack(m, w->cpu, SIM_EVENT_READY_THREAD, v.group, v.tid, m->signal_fn,
				 STK_NONE, at_fn(m, m->signal_fn));
	}
}

/*
 * Lived-in: is this sample taken in a DPC or an ISR (sets *@dpc or *@isr and
 * returns the routine), or not (NULL)? The Windows sample file's shares, per
 * idle and per thread sample (a busy CPU takes its interrupts and DPCs over a
 * thread, so a busier machine has more): of 73,313 idle samples 84 in a DPC
 * and 21 in an ISR; of 6,215 thread samples 23 and 7 (0.13 % and 0.035 % of
 * all). A DPC is the timer's or a driver's, an ISR a driver's or the clock's.
 */
static const struct irq_routine *in_dpc_isr(struct ident *m, bool idle, bool *dpc, bool *isr)
{
	uint64_t r = sim_rng_below(&m->irq_rng, 1000000);
	uint64_t d = idle ? 1146 : 3701, i = idle ? 286 : 1126; /* per million */
	unsigned k;

	if (r < d) {
		*dpc = true;
		k = (unsigned)sim_rng_below(&m->irq_rng, m->irq.ndpc + (m->irq.drivers ? 1u : 0u));
		return k < m->irq.ndpc ? &m->irq.dpc[k] : &m->irq.timer;
	}
	if (r < d + i) {
		*isr = true;
		return &m->irq.isr[sim_rng_below(&m->irq_rng, m->irq.nisr)];
	}
	return NULL;
}

/* A sample of what runs on CPU @c now, and its stack. */
static int sample_cpu(struct ident *m, unsigned c)
{
	struct sim_sample *r = &m->rec.u.sample;
	struct sched_cpu_view v;
	uint32_t fn = STK_NONE;
	uint64_t ip;
	uint64_t kcode = wrap32(m, X64_KCODE, X86_KCODE);
	int rc;

	sched_cpu_view(m->s, c, &v);
	memset(r, 0, sizeof(*r));
	r->tid = v.tid;
	r->count = 1;
	/* a real idle thread's samples say 16 (the Windows sample file: all of them) */
	r->priority = (uint8_t)(v.group >= 0 ? v.pri : m->sc->lived_in ? 16 : 0);
	if (m->cfg.modules) {
		/* the hot functions of the thread's group, the idle loop when idle */
		r->ip = v.group < 0 ? mod_idle_ip(m->cfg.modules, &m->rng)
				    : mod_sample(m->cfg.modules, (unsigned)v.group, &m->rng, &fn);
	} else if (v.group < 0) {
		r->ip = kcode + 0x3F0000u + sim_rng_below(&m->rng, IDLE_IP_SPAN);
	} else {
		unsigned pi = proc_index_of_group(m, (unsigned)v.group);

		if (pi == IDENT_SYSTEM || sim_rng_below(&m->rng, 5) == 0) {
			r->ip = kcode + sim_rng_below(&m->rng, KCODE_SPAN);
		} else {
			r->ip = image_base(m, m->cfg.processes[pi].pid) + 0x1000u +
				sim_rng_below(&m->rng, IMAGE_SPAN);
		}
	}
	if (m->sc->lived_in) {
		const struct irq_routine *rt = in_dpc_isr(m, v.group < 0, &r->dpc, &r->isr);

		if (rt) {
			r->ip = rt->addr;
			fn = rt->fn;
		}
	}
	ip = r->ip;
	if ((rc = fire(m, SIM_REC_SAMPLE, c)) < 0) {
		return rc;
	}
	/* the idle thread's samples have a stack only in a DPC or an ISR: kernel frames, 0/0 */
	if (stacks_on(m, SIM_EVENT_PROFILE) && v.group >= 0) {
		rc = fire_stack(m, c, SIM_EVENT_PROFILE, v.group, v.tid, fn, STK_NONE, ip);
	} else if (stacks_on(m, SIM_EVENT_PROFILE) && (r->dpc || r->isr)) {
		rc = fire_stack(m, c, SIM_EVENT_PROFILE, -1, 0, fn, STK_NONE, ip);
	}
	return rc < 0 ? rc : 0;
}

/*
 * Lived-in: how late after its tick a CPU's profile interrupt is taken
 * (ns). The CPUs share one timer grid, as the Windows sample file shows
 * (a sample's nearest other-CPU sample is almost always within 0.1 ms);
 * about a fifth are taken on the tick itself, so CPUs now and then share
 * a timestamp (17 % of the samples there), most a few microseconds late,
 * some tens of microseconds (the file's spacing: half within 0.5 % of the
 * interval, 90 % within 5 %). Never an interval or more.
 */
static uint64_t timer_delay(struct ident *m)
{
	uint64_t r = sim_rng_below(&m->timer_rng, 1000), d;

	if (r < 180) {
		return 0;
	}
	d = sim_rng_exp(&m->timer_rng, r < 700 ? 3000u : 25000u);
	return d < m->interval_ns / 2u ? d : m->interval_ns / 2u;
}

/* Lived-in: CPU @c's next tick after the one just taken; now and then some are lost. */
static void timer_next(struct ident *m, unsigned c)
{
	uint64_t skip = 1;

	if (sim_rng_below(&m->timer_rng, 10000) < 12) {
		skip += 1 + sim_rng_below(&m->timer_rng, 4); /* interrupts held off */
	}
	m->grid[c] += skip * m->interval_ns;
	m->due[c] = m->grid[c] + timer_delay(m);
}

/* The profile timer: plain, every CPU at every tick; lived-in, each CPU when its interrupt is taken. */
static int samples(struct ident *m, uint64_t now_ns)
{
	uint64_t next = SCHED_NEVER_NS;
	int rc;

	if (!m->due) {
		for (unsigned c = 0; c < m->sc->cpus; c++) {
			if ((rc = sample_cpu(m, c)) < 0) {
				return rc;
			}
		}
		m->next_sample = now_ns + m->interval_ns;
		return 0;
	}
	for (unsigned c = 0; c < m->sc->cpus; c++) {
		if (m->due[c] <= now_ns) {
			if ((rc = sample_cpu(m, c)) < 0) {
				return rc;
			}
			timer_next(m, c);
		}
		next = m->due[c] < next ? m->due[c] : next;
	}
	m->next_sample = next;
	return 0;
}

/* The model's event: what is due now (samples, then loads and unloads); armed again for the next. */
static int on_event(void *ctx, uint64_t now_ns)
{
	struct ident *m = ctx;
	int rc = 0;

	if (now_ns >= m->next_sample) {
		rc = samples(m, now_ns);
	}
	if (rc == 0 && now_ns >= m->next_dpc) {
		rc = dpcs_due(m, now_ns);
	}
	if (rc == 0 && now_ns >= m->next_rundown) {
		rc = rundown_step(m, now_ns);
	}
	if (rc == 0 && now_ns >= m->next_image) {
		rc = images_due(m, now_ns);
		m->next_image = next_image_time(m, now_ns);
	}
	arm(m);
	return rc;
}

static void destroy(void *ctx)
{
	struct ident *m = ctx;

	stk_free(m->paths);
	free(m->app_fns);
	free(m->slot);
	free(m->grid);
	free(m->due);
	free(m->dpcs);
	free(m);
}

static const struct sim_hook_ops ident_ops = {
	.event = on_event,
	.thread = on_thread,
	.ready = on_ready,
	.stop = stop,
	.destroy = destroy,
};

/* with the switches' stacks: called after every switch */
static const struct sim_hook_ops ident_stack_ops = {
	.event = on_event,
	.thread = on_thread,
	.ready = on_ready,
	.switched = on_switched,
	.stop = stop,
	.destroy = destroy,
};

int ident_attach(struct sched *s, const struct ident_cfg *c, struct ident **out)
{
	struct ident *m = calloc(1, sizeof(*m));
	struct sched_thread_view v;
	int h;

	if (!m) {
		return -ENOMEM;
	}
	m->cfg = *c;
	m->s = s;
	m->sc = sched_get_cfg(s);
	m->nslots = sched_thread_slots(s);
	m->slot = calloc(m->nslots ? m->nslots : 1u, sizeof(*m->slot));
	if (!m->slot) {
		free(m);
		return -ENOMEM;
	}
	sim_rng_init(&m->rng, m->sc->seed, SIM_RNG_IDENT, 0);
	sim_rng_init(&m->irq_rng, m->sc->seed, SIM_RNG_IDENT, 4);
	irq_routines_init(&m->irq, c->modules, c->ptr64);
	for (unsigned k = 0; k < m->nslots; k++) {
		if (sched_thread_at(s, k, &v)) {
			unsigned pi = proc_index_of_group(m, v.group);

			m->slot[k].alive = true;
			m->slot[k].index = m->next_index[v.group]++;
			m->live[pi]++;
		}
	}
	if ((c->stacks & SIM_EV_STACK) && c->modules) {
		m->paths = stk_new(c->modules, c->nprocesses);
		if (!m->paths || list_apps(m) < 0) {
			destroy(m);
			return -ENOMEM;
		}
		static const char *const waits[] = {"KeWaitForSingleObject",
						    "NtWaitForSingleObject", "NtReadFile",
						    "NtDeviceIoControlFile"};

		m->swap_fn = stk_kernel_fn(m->paths, "KiSwapContext");
		for (unsigned k = 0; k < sizeof(waits) / sizeof(waits[0]); k++) {
			uint32_t f = stk_kernel_fn(m->paths, waits[k]);

			if (f != STK_NONE) {
				m->wait_fn[m->nwait++] = f;
			}
		}
		m->timer_fn = stk_kernel_fn(m->paths, "KiTimerExpiration");
		m->signal_fn = stk_kernel_fn(m->paths, "KeReleaseSpinLock");
	}
	m->ops = m->paths && (c->stacks & SIM_EV_BIT(SIM_EVENT_CSWITCH)) ? ident_stack_ops
									 : ident_ops;
	if (!c->dispatcher && !c->dpc && !c->interrupt) {
		/*
		 * on_ready() would do nothing (no ReadyThread record, no DPC):
		 * without the hook the core skips building its wake-up notice
		 * and the call, at every wake-up.
		 */
		m->ops.ready = NULL;
	}
	h = sched_attach(s, &m->ops, m);
	if (h < 0) {
		destroy(m);
		return h;
	}
	m->handle = h;
	m->interval_ns = (uint64_t)c->profile_interval * 100u;
	m->next_sample = SCHED_NEVER_NS;
	m->next_rundown = SCHED_NEVER_NS;
	m->next_image = SCHED_NEVER_NS;
	m->next_dpc = SCHED_NEVER_NS;
	if (c->dpc || c->interrupt) {
		m->dpcs = calloc(m->sc->cpus, sizeof(*m->dpcs));
		if (!m->dpcs) {
			destroy(m);
			return -ENOMEM;
		}
		sim_rng_init(&m->dpc_rng, m->sc->seed, SIM_RNG_IDENT, 5);
	}
	if (c->profile && m->interval_ns && m->sc->lived_in) {
		/* one grid for every CPU, its phase from the seed */
		uint64_t phase;

		m->grid = calloc(m->sc->cpus, sizeof(*m->grid));
		m->due = calloc(m->sc->cpus, sizeof(*m->due));
		if (!m->grid || !m->due) {
			destroy(m);
			return -ENOMEM;
		}
		sim_rng_init(&m->timer_rng, m->sc->seed, SIM_RNG_IDENT, 1);
		phase = 1u + sim_rng_below(&m->timer_rng, m->interval_ns);
		m->next_sample = SCHED_NEVER_NS;
		for (unsigned k = 0; k < m->sc->cpus; k++) {
			m->grid[k] = phase;
			m->due[k] = phase + timer_delay(m);
			m->next_sample = m->due[k] < m->next_sample ? m->due[k] : m->next_sample;
		}
		sched_model_arm(s, h, m->next_sample);
	} else if (c->profile && m->interval_ns) {
		m->next_sample = m->interval_ns;
		sched_model_arm(s, h, m->next_sample);
	}
	*out = m;
	return 0;
}
