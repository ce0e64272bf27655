// SPDX-License-Identifier: MIT
/*
 * scheduler_model/call_stacks.c - the call stacks of call_stacks.h: each
 * function's stable chain of callers, the thread-start and system-call
 * frames of each address space, found once.
 */
#include "scheduler_model/call_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "scheduler_model/modules.h"

#define NSTUBS	  7  /* ntdll's system-call stubs */
#define NBASE	  10 /* kernelbase's callers of them */
#define MAX_CHAIN 22 /* the longest chain */

/* the frames a user process's stacks end or enter the kernel with */
struct stk_process {
	uint32_t rtl_start; /* ntdll!RtlUserThreadStart */
	uint32_t thunk;	    /* kernel32!BaseThreadInitThunk */
	uint32_t stub[NSTUBS];
	unsigned nstub;
	uint32_t base[NBASE];
	unsigned nbase;
};

/* a function's chain, found once (the same every time) */
struct stk_chain {
	uint64_t *frames; /* NULL: not found yet */
	uint32_t top;
	uint8_t n;
};

enum { CH_KERNEL, CH_DLL, CH_APP, NCHAINS }; /* the three lengths chains come in */

#define NKEPT 4096u /* return addresses kept (a direct-mapped table by caller and callee) */

/* one return address kept: ret_addr(@caller, @callee) */
struct stk_ret {
	uint32_t caller, callee; /* caller STK_NONE: empty */
	uint64_t addr;
};

struct stk_paths {
	const struct mod_cfg *c;
	unsigned nprocesses;
	struct stk_chain *chains[NCHAINS]; /* by function */
	uint32_t syscall_end;		   /* KiSystemServiceCopyEnd */
	uint32_t system_start;		   /* PspSystemThreadStartup */
	uint32_t retire_dpc;		   /* KiRetireDpcList */
	uint32_t idle_loop;		   /* KiIdleLoop */
	struct stk_ret kept[NKEPT];	   /* the frames the tails repeat, found once */
	struct stk_process proc[];
};

/* A hash of the seed, @a and @salt: every choice of a path comes from one. */
static uint64_t h(const struct stk_paths *p, uint64_t a, uint64_t salt)
{
	return mod_mix64(p->c->seed ^ mod_mix64(a * 0x9E3779B97F4A7C15ull + salt));
}

/* Function @name of image @name in process @pi (kernel: the kernel's), or STK_NONE. */
static uint32_t fn_of(const struct mod_cfg *c, unsigned pi, bool kernel, const char *image,
		      const char *name)
{
	int i = mod_find_image(c, pi, kernel, image);
	int f = i < 0 ? -1 : mod_find_function(c, (uint32_t)i, name);

	return f < 0 ? STK_NONE : (uint32_t)f;
}

uint32_t stk_kernel_fn(const struct stk_paths *p, const char *name)
{
	return fn_of(p->c, MOD_SYSTEM, true, "ntoskrnl.exe", name);
}

/*
 * The named functions of image @image of process @pi whose names start with
 * @prefix (its system-call stubs, its API), at most @max, into @out.
 */
static void named(const struct mod_cfg *c, unsigned pi, const char *image, const char *prefix,
		  uint32_t *out, unsigned *n, unsigned max)
{
	int i = mod_find_image(c, pi, false, image);
	const struct mod_image *im = i < 0 ? NULL : &c->images[i];

	for (uint32_t k = 0; im && k < im->nfn && *n < max; k++) {
		const char *name = c->functions[im->first_fn + k].name;

		if (name && !strncmp(name, prefix, strlen(prefix))) {
			out[(*n)++] = im->first_fn + k;
		}
	}
}

struct stk_paths *stk_new(const struct mod_cfg *c, unsigned nprocesses)
{
	struct stk_paths *p =
		calloc(1, sizeof(*p) + (size_t)nprocesses * sizeof(struct stk_process));

	if (!p) {
		return NULL;
	}
	p->c = c;
	p->nprocesses = nprocesses;
	for (unsigned k = 0; k < NKEPT; k++) {
		p->kept[k].caller = STK_NONE;
	}
	for (unsigned k = 0; k < NCHAINS; k++) {
		p->chains[k] = calloc(c->nfunctions ? c->nfunctions : 1, sizeof(struct stk_chain));
		if (!p->chains[k]) {
			stk_free(p);
			return NULL;
		}
	}
	p->syscall_end = stk_kernel_fn(p, "KiSystemServiceCopyEnd");
	p->system_start = stk_kernel_fn(p, "PspSystemThreadStartup");
	p->retire_dpc = stk_kernel_fn(p, "KiRetireDpcList");
	p->idle_loop = stk_kernel_fn(p, "KiIdleLoop");
	for (unsigned pi = MOD_SYSTEM + 1; pi < nprocesses; pi++) {
		struct stk_process *sp = &p->proc[pi];

		sp->rtl_start = fn_of(c, pi, false, "ntdll.dll", "RtlUserThreadStart");
		sp->thunk = fn_of(c, pi, false, "kernel32.dll", "BaseThreadInitThunk");
		named(c, pi, "ntdll.dll", "Nt", sp->stub, &sp->nstub, NSTUBS);
		named(c, pi, "kernelbase.dll", "", sp->base, &sp->nbase, NBASE);
	}
	return p;
}

void stk_free(struct stk_paths *p)
{
	for (unsigned k = 0; p && k < NCHAINS; k++) {
		for (uint32_t f = 0; p->chains[k] && f < p->c->nfunctions; f++) {
			free(p->chains[k][f].frames);
		}
		free(p->chains[k]);
	}
	free(p);
}

/* A return address in @caller after its call to @callee: the same one for the same pair. */
static uint64_t ret_addr(const struct stk_paths *p, uint32_t caller, uint32_t callee)
{
	const struct mod_function *f = &p->c->functions[caller];
	uint64_t off = f->size > 16 ? 5 + h(p, caller, (uint64_t)callee << 20 | 1u) % (f->size - 8)
				    : f->size / 2;

	return mod_fn_address(p->c, caller) + off;
}

/* ret_addr(), kept: the tails and the system calls ask for the same few pairs again and again. */
static uint64_t ret_kept(struct stk_paths *p, uint32_t caller, uint32_t callee)
{
	struct stk_ret *k = &p->kept[(caller * 0x9E3779B1u ^ callee) % NKEPT];

	if (k->caller != caller || k->callee != callee) {
		k->caller = caller;
		k->callee = callee;
		k->addr = ret_addr(p, caller, callee);
	}
	return k->addr;
}

static void push(uint64_t *v, unsigned *n, uint64_t a)
{
	if (*n < STK_MAX_FRAMES) {
		v[(*n)++] = a;
	}
}

/*
 * The chain of callers of @fn in its own image, @lo to @hi of them (the
 * number fixed by @fn, cut short when the image has no function left):
 * their return addresses into @v. A function's caller is the first after a
 * start hashed from the function alone that is not on the chain yet, so a
 * function has the same caller wherever it is met, and no chain loops.
 * Return: how many; the outermost function (@fn when the image has no
 * other) in @top.
 */
static unsigned find_chain(const struct stk_paths *p, uint32_t fn, unsigned lo, unsigned hi,
			   uint64_t *v, uint32_t *top)
{
	const struct mod_cfg *c = p->c;
	const struct mod_image *im = &c->images[c->functions[fn].image];
	unsigned depth = lo + (unsigned)(h(p, fn, 2) % (hi - lo + 1));
	uint32_t seen[MAX_CHAIN + 1];
	unsigned nseen = 0, n = 0;
	uint32_t cur = fn;

	seen[nseen++] = fn;
	for (unsigned k = 0; k < depth; k++) {
		uint32_t start = (uint32_t)(h(p, cur, 3) % im->nfn), caller = STK_NONE;

		for (uint32_t j = 0; j < im->nfn && caller == STK_NONE; j++) {
			uint32_t f = im->first_fn + (start + j) % im->nfn;
			bool on = false;

			for (unsigned q = 0; q < nseen && !on; q++) {
				on = seen[q] == f;
			}
			if (!on) {
				caller = f;
			}
		}
		if (caller == STK_NONE) {
			break; /* every function of the image is on the chain */
		}
		v[n++] = ret_addr(p, caller, cur);
		seen[nseen++] = caller;
		cur = caller;
	}
	*top = cur;
	return n;
}

/* @fn's chain of kind @kind onto @v (found the first time). Return: the outermost function. */
static uint32_t chain(struct stk_paths *p, unsigned kind, uint32_t fn, uint64_t *v, unsigned *n)
{
	static const unsigned lo[NCHAINS] = {2, 2, 4}, hi[NCHAINS] = {18, 9, 22};
	struct stk_chain *ch = &p->chains[kind][fn];

	if (!ch->frames) {
		uint64_t f[MAX_CHAIN];
		unsigned k = find_chain(p, fn, lo[kind], hi[kind], f, &ch->top);

		ch->frames = malloc((k ? k : 1) * sizeof(*f));
		if (!ch->frames) {
			return fn; /* out of memory: the chain is left out */
		}
		memcpy(ch->frames, f, k * sizeof(*f));
		ch->n = (uint8_t)k;
	}
	{
		unsigned k = *n + ch->n <= STK_MAX_FRAMES ? ch->n : STK_MAX_FRAMES - *n;

		memcpy(v + *n, ch->frames, k * sizeof(*v));
		*n += k;
	}
	return ch->top;
}

/* The user part from function @from (already on the stack) to the thread's start. */
static void user_tail(struct stk_paths *p, const struct stk_process *sp, uint32_t from,
		      uint32_t app, struct stk_walk *w)
{
	const struct mod_cfg *c = p->c;
	uint32_t top = from;

	if (app != STK_NONE && c->functions[app].image != c->functions[from].image) {
		push(w->user, &w->nu, ret_kept(p, app, from));
		top = chain(p, CH_APP, app, w->user, &w->nu);
	}
	if (sp->thunk != STK_NONE) {
		push(w->user, &w->nu, ret_kept(p, sp->thunk, top));
	}
	if (sp->rtl_start != STK_NONE) {
		push(w->user, &w->nu, ret_kept(p, sp->rtl_start, sp->thunk));
	}
}

void stk_build(struct stk_paths *p, unsigned pi, enum stk_who who, uint32_t fn, uint32_t via,
	       uint64_t ip, uint32_t app, struct stk_walk *w)
{
	const struct mod_cfg *c = p->c;
	bool kernel_ip = mod_is_kernel_address(c, ip);
	const struct stk_process *sp = pi < p->nprocesses ? &p->proc[pi] : NULL;
	uint32_t top;

	w->nk = w->nu = 0;
	if (!ip) {
		return;
	}
	if (who != STK_USER_THREAD || pi <= MOD_SYSTEM) {
		sp = NULL;
	}
	if (!kernel_ip) {
		push(w->user, &w->nu, ip);
		if (fn != STK_NONE && sp) {
			/* in the thread's own module: as deep as its own code goes (the
			 * PerfView sample's user parts: 19 frames, median) */
			bool own = app != STK_NONE &&
				   c->functions[app].image == c->functions[fn].image;

			top = chain(p, own ? CH_APP : CH_DLL, fn, w->user, &w->nu);
			user_tail(p, sp, top, app, w);
		}
		return;
	}
	push(w->kernel, &w->nk, ip);
	if (via != STK_NONE && fn != STK_NONE) {
		push(w->kernel, &w->nk, ret_kept(p, via, fn));
		fn = via;
	}
	top = fn == STK_NONE ? STK_NONE : chain(p, CH_KERNEL, fn, w->kernel, &w->nk);
	if (who == STK_IDLE_DPC) {
		if (p->retire_dpc != STK_NONE && p->idle_loop != STK_NONE) {
			push(w->kernel, &w->nk, ret_kept(p, p->retire_dpc, top));
			push(w->kernel, &w->nk, ret_kept(p, p->idle_loop, p->retire_dpc));
		}
		return;
	}
	if (!sp) {
		if (p->system_start != STK_NONE) {
			push(w->kernel, &w->nk, ret_kept(p, p->system_start, top));
		}
		return;
	}
	if (p->syscall_end != STK_NONE) {
		push(w->kernel, &w->nk, ret_kept(p, p->syscall_end, top));
	}
	/* the system call it made: a stub of ntdll (after its syscall), a kernelbase caller */
	if (sp->nstub && sp->nbase) {
		uint64_t k = h(p, fn == STK_NONE ? ip : fn, 4);
		uint32_t stub = sp->stub[k % sp->nstub];
		uint32_t base = sp->base[(k >> 8) % sp->nbase];

		push(w->user, &w->nu, mod_fn_address(c, stub) + 0x14);
		push(w->user, &w->nu, ret_kept(p, base, stub));
		user_tail(p, sp, base, app, w);
	}
}
