// SPDX-License-Identifier: MIT
/*
 * tests/test_modules.c - the address spaces (scheduler_model/modules.h):
 * every process gets its executable, ntdll.dll, kernel32.dll and
 * kernelbase.dll, the kernel ntoskrnl.exe and hal.dll; bases in the right
 * half for x64 and x86, page-aligned, non-overlapping in each address
 * space, one base per DLL across processes, the same from the same seed;
 * what mod_cfg_finish() refuses; and where samples land (inside their
 * group's hot functions, by weight; idle samples on one address).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_model/modules.h"

static struct mod_process procs[] = {
	{"Idle", 0, NULL},
	{"System", 4, NULL},
	{"explorer.exe", 1864, "C:\\Windows\\Explorer.EXE"},
	{"msedge.exe", 3688,
	 "\"C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe\""},
	{"audiodg.exe", 3508, NULL},
};
#define NPROCS (sizeof(procs) / sizeof(procs[0]))

static struct sched_cfg sched;
static const uint16_t group_process[3] = {2, 3, MOD_SYSTEM};

static struct mod_space space(void)
{
	memset(&sched, 0, sizeof(sched));
	sched.ngroups = 3;
	snprintf(sched.groups[0].name, sizeof(sched.groups[0].name), "ui");
	sched.groups[0].behaviour = SCHED_INTERACTIVE;
	snprintf(sched.groups[1].name, sizeof(sched.groups[1].name), "render");
	sched.groups[1].behaviour = SCHED_CPU_BOUND;
	snprintf(sched.groups[2].name, sizeof(sched.groups[2].name), "workers");
	sched.groups[2].behaviour = SCHED_IO_BOUND;
	return (struct mod_space){NPROCS, procs, group_process, &sched};
}

static struct mod_cfg *built(bool ptr64, uint64_t seed)
{
	struct mod_cfg *c = malloc(sizeof(*c));
	struct mod_space sp = space();
	struct mod_problem p;

	cr_assert(not(eq(ptr, c, NULL)));
	mod_cfg_init(c, ptr64, seed);
	cr_assert(eq(int, mod_cfg_finish(c, &sp, &p), 0), "%s", p.why);
	cr_assert(eq(int, mod_cfg_default_hot(c, &sp), 0));
	return c;
}

Test(modules, every_process_has_its_images_and_the_kernel_its_own)
{
	struct mod_cfg *c = built(true, 7);
	static const char *const user[] = {"ntdll.dll", "kernel32.dll", "kernelbase.dll"};

	for (uint32_t pi = 2; pi < NPROCS; pi++) {
		int exe = mod_find_image(c, pi, false, procs[pi].image);

		cr_assert(ge(int, exe, 0), "%s", procs[pi].image);
		for (size_t k = 0; k < 3; k++) {
			cr_assert(ge(int, mod_find_image(c, pi, false, user[k]), 0));
		}
	}
	cr_assert(ge(int, mod_find_image(c, MOD_SYSTEM, true, "ntoskrnl.exe"), 0));
	cr_assert(ge(int, mod_find_image(c, MOD_SYSTEM, true, "HAL.DLL"), 0), "any case");
	cr_assert(eq(u32, c->nimages, 3 * 4 + 2));
	/* the executable's path is the command line's, on the volume */
	cr_assert(eq(str, c->images[mod_find_image(c, 2, false, "explorer.exe")].path,
		     "\\Device\\HarddiskVolume3\\Windows\\Explorer.EXE"));
	cr_assert(eq(str, c->images[mod_find_image(c, 0, true, "ntoskrnl.exe")].path,
		     "\\SystemRoot\\system32\\ntoskrnl.exe"));
	cr_assert(
		eq(str, c->images[mod_find_image(c, 2, false, "ntdll.dll")].pdb_name, "ntdll.pdb"));
	free(c);
}

static void check_layout(const struct mod_cfg *c)
{
	for (uint32_t i = 0; i < c->nimages; i++) {
		const struct mod_image *a = &c->images[i];

		cr_assert(eq(u64, a->base % 0x1000, 0));
		cr_assert(eq(u64, a->size % 0x1000, 0));
		cr_assert(eq(int, mod_is_kernel_address(c, a->base), a->kernel), "%s", a->name);
		cr_assert(eq(int, mod_is_kernel_address(c, a->base + a->size - 1), a->kernel));
		if (!c->ptr64) {
			cr_assert(lt(u64, a->base + a->size, 0x100000000ull), "%s", a->name);
		}
		for (uint32_t j = 0; j < i; j++) {
			const struct mod_image *b = &c->images[j];
			bool same =
				a->kernel == b->kernel && (a->kernel || a->process == b->process);

			if (same) {
				cr_assert(a->base >= b->base + b->size ||
						  b->base >= a->base + a->size,
					  "%s overlaps %s", a->name, b->name);
			}
			if (!a->kernel && !b->kernel && !strcmp(a->name, b->name) &&
			    a->size == b->size) {
				cr_assert(eq(u64, a->base, b->base), "one base per DLL: %s",
					  a->name);
			}
		}
		/* every function inside its image, by rva, not overlapping */
		for (uint32_t k = 0; k < a->nfn; k++) {
			const struct mod_function *f = &c->functions[a->first_fn + k];

			cr_assert(eq(u32, f->image, i));
			cr_assert(le(u64, (uint64_t)f->rva + f->size, a->size));
			cr_assert(lt(u32, f->hot, f->size));
			if (k) {
				const struct mod_function *e = &c->functions[a->first_fn + k - 1];

				cr_assert(le(u32, e->rva + e->size, f->rva));
			}
		}
		cr_assert(gt(u32, a->nfn, 0), "%s has functions", a->name);
	}
}

Test(modules, bases_in_their_half_aligned_and_apart_x64_and_x86)
{
	struct mod_cfg *c = built(true, 7);
	struct mod_cfg *d = built(false, 7);

	check_layout(c);
	check_layout(d);
	free(c);
	free(d);
}

Test(modules, the_same_seed_gives_the_same_spaces_another_moves_them)
{
	struct mod_cfg *a = built(true, 11), *b = built(true, 11), *c = built(true, 12);
	unsigned moved = 0;

	cr_assert(eq(u32, a->nimages, c->nimages));
	cr_assert(eq(int, memcmp(a->images, b->images, sizeof(a->images[0]) * a->nimages), 0));
	for (uint32_t i = 0; i < a->nimages; i++) {
		moved += a->images[i].base != c->images[i].base;
	}
	cr_assert(gt(u32, moved, a->nimages / 2));
	free(a);
	free(b);
	free(c);
}

Test(modules, overlapping_bases_and_functions_outside_are_refused)
{
	struct mod_cfg *c = malloc(sizeof(*c));
	struct mod_space sp = space();
	struct mod_problem p;
	struct mod_image im;
	int a, b;

	mod_cfg_init(c, true, 1);
	memset(&im, 0, sizeof(im));
	snprintf(im.name, sizeof(im.name), "a.dll");
	im.process = 2;
	im.size = 0x20000;
	im.base = 0x180000000ull;
	im.given = MOD_GIVEN_BASE;
	a = mod_add_image(c, &im);
	snprintf(im.name, sizeof(im.name), "b.dll");
	im.base = 0x180010000ull;
	b = mod_add_image(c, &im);
	cr_assert(eq(int, mod_cfg_finish(c, &sp, &p), -EINVAL));
	cr_assert(eq(u32, p.image, (uint32_t)b));
	cr_assert(eq(u32, p.other, (uint32_t)a));
	cr_assert(eq(str, (char *)p.why, "overlaps"));

	mod_cfg_init(c, true, 1);
	im.base = 0x7FFFFFFE0000ull; /* 0x20000 bytes run past the user range */
	mod_add_image(c, &im);
	cr_assert(eq(int, mod_cfg_finish(c, &sp, &p), -EINVAL));
	cr_assert(eq(str, (char *)p.why, "does not fit in the user address range"));

	mod_cfg_init(c, false, 1);
	im.base = 0x10000000;
	a = mod_add_image(c, &im);
	mod_add_function(c, (uint32_t)a, "Render", 0x1F000, 0x2000);
	cr_assert(eq(int, mod_cfg_finish(c, &sp, &p), -EINVAL));
	cr_assert(eq(str, (char *)p.why, "lies outside its image"));
	free(c);
}

Test(modules, samples_land_in_hot_functions_by_weight_idle_on_one_address)
{
	struct mod_cfg *c = built(true, 3);
	struct sim_rng rng;
	unsigned in_hot = 0, idle_top = 0, kernel = 0;
	uint64_t first_idle = 0;
	uint32_t top = c->hot[c->hot_first[1]].fn, top_hits = 0;

	sim_rng_init(&rng, 3, SIM_RNG_IDENT, 0);
	for (unsigned n = 0; n < 10000; n++) {
		uint32_t fn;
		uint64_t ip = mod_sample(c, 1, &rng, &fn);
		uint64_t start = mod_fn_address(c, fn);

		cr_assert(ge(u64, ip, start));
		cr_assert(lt(u64, ip, start + c->functions[fn].size));
		for (uint32_t k = 0; k < c->hot_n[1]; k++) {
			in_hot += c->hot[c->hot_first[1] + k].fn == fn;
		}
		top_hits += fn == top;
		kernel += mod_is_kernel_address(c, ip);
		ip = mod_idle_ip(c, &rng);
		if (!first_idle) {
			first_idle = ip;
		}
		idle_top += ip == first_idle;
	}
	cr_assert(eq(u32, in_hot, 10000));
	/* cpu_bound: the executable's first function holds about half, the kernel a few % */
	cr_assert(gt(u32, top_hits, 4000));
	cr_assert(lt(u32, top_hits, 5500));
	cr_assert(lt(u32, kernel, 1000));
	cr_assert(gt(u32, idle_top, 9800), "99 %% of idle samples on one address");
	/* a System group's samples are all kernel */
	for (unsigned n = 0; n < 1000; n++) {
		cr_assert(eq(int, mod_is_kernel_address(c, mod_sample(c, 2, &rng, NULL)), 1));
	}
	free(c);
}
