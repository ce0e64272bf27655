/* SPDX-License-Identifier: MIT */
/*
 * scheduler_model/modules.h - the machine's address spaces: which images
 * (executables, DLLs, the kernel and its drivers) occupy which addresses in
 * which process, the functions inside them, and where each thread group
 * spends its time (its hot functions). The identity model draws sampled
 * instruction pointers from it; the image records and stack walks come
 * from it too.
 *
 *   building   mod_cfg_init(), mod_add_image() / mod_add_function() /
 *              mod_add_hot() for what a scenario names, then
 *              mod_cfg_finish(): the default images of every process (its
 *              executable, ntdll.dll, kernel32.dll, kernelbase.dll) and of
 *              the kernel (ntoskrnl.exe, hal.dll), bases for the images
 *              that have none (deterministic from the seed: a DLL has the
 *              same base in every process, as Windows maps it), generated
 *              functions, the checks (ranges, overlaps, functions inside
 *              their image); then the scenario's hot lists
 *              (mod_add_hot(), by the functions' final indices) and
 *              mod_cfg_default_hot(): a list for every other thread group
 *              from its behaviour
 *   running    mod_sample(): where a sample of a group's thread lands;
 *              mod_idle_ip(): an idle CPU's
 *
 * The configuration is plain data: a model that uses it keeps no state of
 * its own in it, so replay and verify can rebuild it from a scenario.
 */
#ifndef SCHEDULER_MODEL_MODULES_H
#define SCHEDULER_MODEL_MODULES_H

#include <stdbool.h>
#include <stdint.h>

#include "scheduler_model/sched.h"
#include "scheduler_model/sim_rng.h"

#define MOD_MAX_IMAGES	  4096	/* every process's defaults and the scenario's */
#define MOD_MAX_FUNCTIONS 16384 /* named and generated */
#define MOD_MAX_HOT	  2048	/* entries of all groups' hot lists */
#define MOD_NAME_MAX	  64	/* an image's file name */
#define MOD_PATH_MAX	  200	/* its NT path */
#define MOD_FN_NAME_MAX	  64	/* a function's name */
#define MOD_NEVER	  UINT64_MAX
#define MOD_GEN_FUNCTIONS 16 /* functions generated for an image the scenario names none of */
#define MOD_PAGE	  0x1000u
#define MOD_ALLOC_GRANULE 0x10000u /* user images start on 64 KiB */
#define MOD_NO_IMAGE	  UINT32_MAX
#define MOD_SYSTEM	  1u /* the System process's index (identity.h's IDENT_SYSTEM) */

/**
 * struct mod_process - what the address spaces need of a process (index i
 * of the identity model's list: 0 Idle, MOD_SYSTEM System, then the rest).
 * @image:   its ImageFileName ("explorer.exe"), the executable's name
 * @pid:     its PID
 * @cmdline: its command line (the executable's path is taken from it), or NULL
 */
struct mod_process {
	const char *image;
	uint32_t pid;
	const char *cmdline;
};

/**
 * struct mod_space - the processes and which process each thread group runs in.
 * @nprocesses/@processes: as the identity model lists them
 * @group_process: each group's process (index)
 * @sc:            the groups (their names and behaviours)
 */
struct mod_space {
	unsigned nprocesses;
	const struct mod_process *processes;
	const uint16_t *group_process;
	const struct sched_cfg *sc;
};

/**
 * struct mod_function - one function of an image.
 * @name:   its name; NULL for a generated one (printed "fn_<rva hex>")
 * @image:  the image (index into mod_cfg.images)
 * @rva:    its start, relative to the image base
 * @size:   its length in bytes
 * @hot:    the offset (from @rva) of its hottest instruction: most samples
 *          land there, as loops make them do
 * @weight: a scenario's weight for it (0: none): it joins the default hot
 *          list of every group of its process (of System for a kernel
 *          module's), mod_cfg_default_hot()
 */
struct mod_function {
	const char *name;
	uint32_t image;
	uint32_t rva;
	uint32_t size;
	uint32_t hot;
	uint32_t weight;
};

/**
 * struct mod_image - one image mapped in one address space.
 * @name:       the file name ("ntdll.dll")
 * @path:       the NT path the loader opened ("\SystemRoot\System32\ntdll.dll")
 * @process:    its process (index into mod_space.processes); a kernel
 *              module's is MOD_SYSTEM
 * @kernel:     a kernel module (the rundown's PID 0)
 * @base:       where it is mapped (0 before mod_cfg_finish(): assigned)
 * @size:       its mapped size, a multiple of 4 KiB
 * @timestamp:  the PE TimeDateStamp
 * @checksum:   the PE CheckSum
 * @pdb_guid:   the CodeView RSDS GUID (16 wire bytes)
 * @pdb_age:    its age
 * @pdb_name:   the PDB's name ("ntdll.pdb")
 * @load_ns:    when it is loaded (0: mapped before the session starts)
 * @unload_ns:  when it is unloaded (MOD_NEVER: not during the session)
 * @first_fn, @nfn: its functions, mod_cfg.functions[@first_fn ...], by rva
 * @given:      bit 0: base given, bit 1: timestamp, bit 2: checksum, bit 3: PDB
 *              GUID, bit 4: path, bit 5: no PDB at all (no debug directory:
 *              @pdb_name stays empty), bit 6: a lived-in common DLL, with
 *              no functions (the rest are derived)
 */
struct mod_image {
	char name[MOD_NAME_MAX];
	char path[MOD_PATH_MAX];
	uint32_t process;
	bool kernel;
	uint64_t base;
	uint64_t size;
	uint32_t timestamp;
	uint32_t checksum;
	uint8_t pdb_guid[16];
	uint32_t pdb_age;
	char pdb_name[MOD_NAME_MAX];
	uint64_t load_ns;
	uint64_t unload_ns;
	uint32_t first_fn;
	uint32_t nfn;
	unsigned given;
};
#define MOD_GIVEN_BASE	    0x1u
#define MOD_GIVEN_TIMESTAMP 0x2u
#define MOD_GIVEN_CHECKSUM  0x4u
#define MOD_GIVEN_PDB	    0x8u
#define MOD_GIVEN_PATH	    0x10u
#define MOD_GIVEN_NO_PDB    0x20u
#define MOD_COMMON	    0x40u /* a lived-in common DLL: no functions generated */

/** struct mod_hot - a hot function of a group: where its time goes, with a weight. */
struct mod_hot {
	uint32_t fn;
	uint32_t weight;
};

/**
 * struct mod_cfg - the address spaces of a machine.
 * @ptr64:        x64 ranges (else x86)
 * @seed:         what bases, timestamps and generated functions derive from
 * @images/@nimages, @functions/@nfunctions: as above; a function's image's
 *                functions are contiguous and sorted by rva after finish
 * @hot/@nhot:    every group's hot list; group g's are @hot[@hot_first[g] ..
 *                + @hot_n[g]]; a group the scenario gives none gets its
 *                behaviour's default at finish
 * @idle_fn:      the idle loop (ntoskrnl's), where idle samples land
 * @common_dlls:  lived-in: each Win32 process also maps 26 to 65 of the
 *                system DLLs a Windows 10 process has (msvcrt, combase,
 *                user32 ...), with no functions (set after mod_cfg_init())
 */
struct mod_cfg {
	bool common_dlls;
	bool ptr64;
	uint64_t seed;
	unsigned nimages;
	struct mod_image images[MOD_MAX_IMAGES];
	unsigned nfunctions;
	struct mod_function functions[MOD_MAX_FUNCTIONS];
	unsigned nhot;
	struct mod_hot hot[MOD_MAX_HOT];
	uint32_t hot_first[SCHED_MAX_GROUPS];
	uint32_t hot_n[SCHED_MAX_GROUPS];
	bool hot_given[SCHED_MAX_GROUPS];
	uint32_t idle_fn;
};

/** mod_cfg_init - empty, for @ptr64 and @seed. */
void mod_cfg_init(struct mod_cfg *c, bool ptr64, uint64_t seed);

/**
 * mod_add_image - append an image (its fields as given; what is 0 or empty
 * is derived at finish: path, timestamp, checksum, PDB identity, base).
 * Return: its index, or -ENOSPC.
 */
int mod_add_image(struct mod_cfg *c, const struct mod_image *im);

/**
 * mod_add_function - a named function of image @image (@name borrowed for
 * the configuration's life). Return: its index, or -ENOSPC.
 */
int mod_add_function(struct mod_cfg *c, uint32_t image, const char *name, uint32_t rva,
		     uint32_t size);

/**
 * mod_add_hot - a hot function of group @group (the group's entries must
 * be added together). Return: 0 or -ENOSPC.
 */
int mod_add_hot(struct mod_cfg *c, unsigned group, uint32_t fn, uint32_t weight);

/**
 * struct mod_problem - what mod_cfg_finish() refused.
 * @image:    the image (MOD_NO_IMAGE: none)
 * @function: the function (UINT32_MAX: none)
 * @other:    the image it overlaps (MOD_NO_IMAGE: none)
 * @why:      a static phrase
 */
struct mod_problem {
	uint32_t image;
	uint32_t function;
	uint32_t other;
	const char *why;
};

/**
 * mod_cfg_finish - the defaults, bases, generated functions and checks
 * described atop, for the processes of @sp. Functions are sorted by image
 * and rva: their indices change (add hot functions after).
 * Return: 0, or -EINVAL with @p saying what (an image outside its range or
 * not page-aligned, two images of one address space overlapping, a
 * function outside its image or overlapping another, no room left).
 */
int mod_cfg_finish(struct mod_cfg *c, const struct mod_space *sp, struct mod_problem *p);

/**
 * mod_cfg_default_hot - a hot list for each group of @sp that has none:
 * its behaviour's (a System group's: kernel functions only), then the
 * functions with a weight of its process's images (a System group's: of
 * the kernel modules).
 * Return: 0 or -ENOSPC.
 */
int mod_cfg_default_hot(struct mod_cfg *c, const struct mod_space *sp);

/** mod_function_name - @f's name, or "fn_<rva>" in @buf for a generated one. */
const char *mod_function_name(const struct mod_function *f, char *buf, size_t cap);

/**
 * mod_find_function - the function of image @image named @name (a
 * generated one by its "fn_<rva>" name). Return: its index, or -ENOENT.
 */
int mod_find_function(const struct mod_cfg *c, uint32_t image, const char *name);

/**
 * mod_find_image - the image named @name (any case) in process @process
 * (or a kernel module when @kernel). Return: its index, or -ENOENT.
 */
int mod_find_image(const struct mod_cfg *c, uint32_t process, bool kernel, const char *name);

/**
 * mod_sample - where a sample of a thread of @group lands: a hot function
 * drawn by weight, at its hot offset most of the time, anywhere in it
 * otherwise. Return: the IP; *@fn the function (may be NULL).
 */
uint64_t mod_sample(const struct mod_cfg *c, unsigned group, struct sim_rng *rng, uint32_t *fn);

/** mod_idle_ip - an idle CPU's IP: the idle loop's hot instruction, nearly always. */
uint64_t mod_idle_ip(const struct mod_cfg *c, struct sim_rng *rng);

/** mod_fn_address - the start of function @fn. */
uint64_t mod_fn_address(const struct mod_cfg *c, uint32_t fn);

/** mod_is_kernel_address - does @a lie in the kernel's half (x64 / x86)? */
bool mod_is_kernel_address(const struct mod_cfg *c, uint64_t a);

/** mod_mix64 - a 64-bit mix (splitmix64's finaliser): what derived values hash with. */
uint64_t mod_mix64(uint64_t x);

#define MOD_RANKS 5

/**
 * mod_image_rank - where image @i comes in its address space's list, as
 * the loader maps them (a process's executable @exe 0, ntdll.dll 1,
 * kernel32.dll 2, kernelbase.dll 3, the others 4; the kernel's ntoskrnl.exe
 * 0, hal.dll 1, drivers 2): the rundowns and a new process's loads list
 * its images by rank, then by index. Return: 0 .. MOD_RANKS - 1.
 */
unsigned mod_image_rank(const struct mod_cfg *c, uint32_t i, const char *exe);

#define MOD_GUID_TEXT 37 /* "3C8F0528-9C07-4257-9192-78EA9AA6A1F4" and its NUL */

/**
 * mod_image_record - image @i's fields of an image record (trace_sink.h's
 * struct sim_image: all but cpu, ts, event and the header's context), @pid
 * its process's PID (0 for a kernel module). Its signature is Windows' own
 * for the default images (ntoskrnl.exe 0/Embedded, the other kernel
 * modules 12/Embedded, the system DLLs 12/Cache) and 4/Cache (Authenticode)
 * for the others; DefaultBase is the base (a 64-bit image at its preferred
 * base; x86: a PE32 image's) and 0 for a kernel module. The strings point
 * into @c and @guid (the PDB GUID as text; NULL in the record for an image
 * without a PDB).
 */
void mod_image_record(const struct mod_cfg *c, uint32_t i, uint32_t pid, struct sim_image *r,
		      char guid[MOD_GUID_TEXT]);

#endif /* SCHEDULER_MODEL_MODULES_H */
