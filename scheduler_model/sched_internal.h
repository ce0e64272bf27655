/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/sched_internal.h - the dispatcher's data structures, and
 * hooks for the model's own tests: single-stepping, a structural validator
 * and an observer of readying decisions (the events a kernel would log as
 * ReadyThread), so a test can re-check every switch independently.
 */
#ifndef SCHEDULER_MODEL_SCHED_INTERNAL_H
#define SCHEDULER_MODEL_SCHED_INTERNAL_H

#include "scheduler_model/sim_rng.h"
#include "scheduler_model/sched.h"
#include "scheduler_model/sched_evq.h"

#define SCHED_NONE	 UINT32_MAX /* no thread / no CPU */
#define SCHED_NEVER	 UINT64_MAX /* no event */
#define SCHED_MASK_WORDS (SCHED_MAX_CPUS / 64)
#define SCHED_PRIORITIES 32
#define SCHED_LAST_TID	 0xFFFFFFFCu /* the last multiple of 4 */
#define SCHED_WPICK	 128u	     /* wait-reason picks looked up, not counted */

/**
 * struct sched_thread - one thread slot (a KTHREAD, as far as the
 * dispatcher and EtwTraceContextSwap look at it). A slot whose thread
 * terminated waits for its replacement's creation event.
 */
struct sched_thread {
	uint32_t tid;		 /* TID (multiple of 4) */
	uint16_t group;		 /* index into cfg.groups */
	uint8_t state;		 /* enum sched_thread_state */
	uint8_t wait_reason;	 /* KWAIT_REASON while Waiting */
	uint8_t wait_mode;	 /* KPROCESSOR_MODE while Waiting */
	uint8_t qos;		 /* 0..7 */
	uint8_t boost;		 /* priority increment due at wait completion */
	int8_t base;		 /* BasePriority 1..31 */
	int8_t pri;		 /* Priority (dynamic) base..31 */
	int8_t pri_dec;		 /* PriorityDecrement: the boost still to decay */
	bool starved;		 /* running on a balance-set-manager boost */
	bool new_quantum;	 /* replenish QuantumTarget at the next dispatch */
	uint32_t ideal;		 /* IdealProcessor */
	uint32_t cpu;		 /* queue, standby or running CPU */
	uint32_t last_cpu;	 /* where it last ran (SCHED_NONE: never) */
	uint32_t wait_tick;	 /* WaitTime: tick it last became ready */
	uint32_t qprev, qnext;	 /* ready-queue links (slot numbers) */
	uint64_t cycle_time;	 /* CycleTime: cycles run so far */
	uint64_t quantum_target; /* QuantumTarget (cycles) */
	uint64_t burst_left;	 /* ns of work before its next wait (as of run_start) */
	uint64_t run_start;	 /* start of the current accounting interval */
	uint64_t run_start_cyc;	 /* the cycle clock then */
	uint64_t exit_at;	 /* end of its lifetime (SCHED_NEVER: none) */
	uint64_t next_period;	 /* PERIODIC: next wake-up */
	uint32_t burst_k;	 /* its burst mean: the group's * burst_k / 256 */
	uint32_t wait_k;	 /* its wait mean: the group's * wait_k / 256 */
};

/** struct sched_cpu - one processor (its PRCB, as far as the model goes). */
struct sched_cpu {
	uint32_t running;    /* slot, or SCHED_NONE for the idle thread */
	uint32_t standby;    /* NextThread slot, or SCHED_NONE */
	uint64_t standby_at; /* when the standby thread gets the CPU */
	uint64_t idle_since; /* when the idle thread last started */
	uint8_t cstate;	     /* idle: the C-state it was woken from */
	bool deferred;	     /* a decision waits for a model (sched_cpu_release) */
	uint32_t qmask;	     /* bit p: ready queue p non-empty */
	uint32_t qcount;     /* threads in its ready queues */
	uint32_t qhead[SCHED_PRIORITIES];
	uint32_t qtail[SCHED_PRIORITIES];
	struct sim_rng rng; /* decisions made on this CPU */
};

/** struct sched_grp - a group's run-time tables. */
struct sched_grp {
	bool any;			 /* no affinity restriction */
	uint64_t mask[SCHED_MASK_WORDS]; /* allowed existing CPUs */
	uint32_t nallowed;
	uint32_t next_ideal;		     /* round-robin position among allowed */
	uint64_t wcum[SCHED_WAIT_REASONS];   /* cumulative wait weights */
	uint64_t wsum[SCHED_WAIT_REASONS];   /* the same, of the reasons with a weight */
	uint8_t wreason[SCHED_WAIT_REASONS]; /* those reasons, in order */
	uint32_t nwait;			     /* how many */
	uint8_t wpick[SCHED_WPICK];	     /* the reason a pick below SCHED_WPICK selects */
	uint64_t burst_mean;		     /* ns */
	uint64_t wait_mean;		     /* ns, for non-lock waits */
	uint32_t burst_k[32];		     /* lived-in: the threads' burst factors */
	uint32_t wait_k[32];		     /* and wait factors (1/256ths) */
	uint32_t cls;			     /* affinity class (0: unrestricted) */
	enum sim_activity act;
};

/** enum sched_obs_kind - what the observer is told (values = the new state). */
enum sched_obs_kind {
	SCHED_OBS_READY = SCHED_TS_READY,      /* queued on @cpu's ready queue */
	SCHED_OBS_STANDBY = SCHED_TS_STANDBY,  /* chosen to run next on @cpu */
	SCHED_OBS_PRIORITY = SCHED_TS_RUNNING, /* keeps running on @cpu, priority decayed */
};

/**
 * struct sched_obs - a thread was readied (woken, created, preempted,
 * displaced from standby or boosted by the balance set manager), or a
 * running thread's priority decayed at a quantum end that switched nothing.
 * @affinity: the thread's allowed CPUs (SCHED_MASK_WORDS words), NULL = any
 */
struct sched_obs {
	enum sched_obs_kind kind;
	uint64_t t;
	uint32_t tid;
	uint32_t cpu;
	int8_t pri;
	int8_t base;
	uint32_t wait_tick;
	const uint64_t *affinity;
};

/** struct sched_observer - called synchronously; must not call back into the sched. */
struct sched_observer {
	void (*event)(void *ctx, const struct sched_obs *o);
	void *ctx;
};

struct sched {
	struct sched_cfg cfg;
	struct trace_sink sink;
	struct sched_observer obs;
	void (*thread_fn)(void *ctx, const struct sched_thread_event *e); /* lifecycle listener */
	void *thread_ctx;
	unsigned nhooks; /* models attached (sched_attach) */
	struct {
		const struct sim_hook_ops *ops;
		void *ctx;
		uint64_t at; /* its armed event (SCHED_NEVER: none) */
	} hooks[SIM_MAX_HOOKS];
	unsigned ncs; /* hooks with a cswitch(), in the order attached */
	struct {
		void (*fn)(void *ctx, unsigned cpu, uint64_t now_ns, enum sim_activity ran,
			   struct sim_cswitch *cs);
		void *ctx;
	} cs_hooks[SIM_MAX_HOOKS]; /* what switch_cpu() calls: no test per hook */
	struct {
		void (*fn)(void *ctx, uint64_t now_ns, const struct sim_wake *w);
		void *ctx;
	} wake_hooks[SIM_MAX_HOOKS]; /* what wake_note() calls, in the order attached */
	unsigned nbusy;		     /* hooks with a busy() */
	unsigned nlife;		     /* ... with a thread() */
	unsigned nwake;		     /* ... with a ready() */
	unsigned nswitched;	     /* ... with a switched() */
	uint64_t model_at;	     /* the earliest armed model event */
	unsigned model_h;	     /* whose */
	unsigned ncpu;
	uint32_t nthr;
	struct sched_cpu *cpu;
	struct sched_thread *thr;
	struct sched_grp grp[SCHED_MAX_GROUPS];
	uint64_t idle_mask[SCHED_MASK_WORDS];  /* idle CPUs without a standby thread */
	uint64_t ready_mask[SCHED_MASK_WORDS]; /* CPUs with queued threads */
	/*
	 * Who has what queued, for steal(): threads are counted per CPU,
	 * priority and affinity class (class 0: any CPU; 1..: one distinct
	 * restricted mask each), and each (priority, class) pair keeps the
	 * mask of CPUs where its count is non-zero.
	 */
	uint32_t nwords;			 /* mask words in use: ceil(ncpu / 64) */
	uint32_t nclass;			 /* affinity classes (1 + restricted ones) */
	uint32_t prio_any;			 /* bit p: some CPU has threads queued at p */
	uint32_t prio_cpus[SCHED_PRIORITIES];	 /* CPUs with a non-empty queue p */
	uint64_t *cls_ok;			 /* [cpu]: bit k-1: class k may run there */
	uint32_t *qcls;				 /* [cpu][p][class]: threads queued */
	uint64_t *pcmask;			 /* [p][class][word]: CPUs where qcls > 0 */
	uint32_t *pword;			 /* [p][class]: bit w: pcmask word w non-zero */
	uint32_t cls_prio[SCHED_MAX_GROUPS + 1]; /* [class]: bit p: pword[p][class] non-zero */
	uint64_t uptime_ns;			 /* boot to simulation time 0 */
	uint64_t tick_ns;
	uint64_t tick_k;  /* the tick count at now: (uptime_ns + now) / tick_ns */
	uint64_t tick_b;  /* tick_k * tick_ns: where that tick began (from boot) */
	uint64_t sec_k;	  /* whole seconds since boot at now: (uptime_ns + now) / 1e9 */
	uint64_t sec_b;	  /* sec_k * 1e9 */
	uint64_t now_cyc; /* the cycle clock at now, if now_cyc_ok */
	bool now_cyc_ok;
	uint64_t quantum_cycles;
	uint32_t starve_ticks; /* ready this long: balance-set-manager boost */
	uint64_t now;
	uint32_t next_tid;
	bool tids_exhausted; /* SCHED_LAST_TID was handed out */
	uint64_t *id_used;   /* lived-in: client IDs / 4 in use (PIDs, live TIDs) */
	uint32_t id_slots;   /* how many IDs the pool holds (a multiple of 64) */
	struct sim_rng id_rng;
	struct sim_rng rng; /* thread creation */
	/*
	 * events in (time, id) order; ids: CPUs, then thread slots, then the
	 * balancer, then the models (in the order attached)
	 */
	uint32_t nev;
	struct sched_tree cpuq; /* CPU c's next decision */
	struct sched_pq thq;	/* slot i's wake-up or replacement */
	uint64_t balance_at;	/* the balance set manager's next pass */
	uint32_t ev_cur;	/* the CPU event being handled, until it is re-armed */
	struct sched_stats st;
	uint8_t boost_tab[4][2][100]; /* lived-in: [wait class][interactive][draw]: the boost */
	struct sim_cswitch rec;	      /* the switch record, built in place */
	int err;		      /* sticky sink error */
	bool done;		      /* the end record was fired */
};

/**
 * sched_step - process the next event if it is not after the duration.
 * Return: 1 one event processed, 0 nothing left before the end (the end
 * record is fired by sched_run_until), or the sink's negative error.
 */
int sched_step(struct sched *s);

/**
 * sched_validate - check every structural invariant (queues, states, the
 * idle bitmap, "an idle CPU has nothing eligible queued anywhere", the
 * heap). Slow: for tests, between steps.
 * Return: 0 or -EINVAL with *@why naming the first broken rule.
 */
int sched_validate(const struct sched *s, const char **why);

/** sched_set_observer - install (or with NULL remove) the observer. */
void sched_set_observer(struct sched *s, const struct sched_observer *o);

/** sched_thread_allowed - may slot @i's thread run on @cpu? */
bool sched_thread_allowed(const struct sched *s, uint32_t i, unsigned cpu);

/**
 * sched_steal - the thread idle-bound CPU @c would take from another
 * processor's queue (KiSearchForNewThread): the highest priority any CPU
 * but @c has queued that may run on @c; of those, the first CPU after @c
 * (wrapping), and the first such thread in its queue.
 * Return: the thread's slot, or SCHED_NONE.
 */
uint32_t sched_steal(const struct sched *s, unsigned c);

#endif /* SCHEDULER_MODEL_SCHED_INTERNAL_H */
