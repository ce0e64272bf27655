// SPDX-License-Identifier: MIT
/*
 * scheduler_model/modules.c - the machine's address spaces (modules.h):
 * default images, bases, generated functions, the checks, default hot
 * lists, and where samples land.
 *
 * Ranges (the user half below the kernel's, x64 / x86):
 *
 *   executables  0x7FF6'0000'0000 + a 64 KiB step   0x0040'0000 + a step
 *   DLLs         down from 0x7FFC'0000'0000         down from 0x7800'0000
 *                (one base per DLL name, the same in every process: Windows
 *                maps a DLL at one address per boot)
 *   ntoskrnl.exe 0xFFFFF800'0000'0000 + a 2 MiB step  0x8100'0000 + 1 MiB steps
 *   drivers      up from 0xFFFFF880'0000'0000           up from 0x8A00'0000
 *
 * Every derived value (bases, timestamps, checksums, PDB GUIDs, function
 * sizes) is a hash of the seed and the image's name, so adding an image
 * moves no other. Function names are those of the real modules for the
 * default images (the ones a profile of Windows shows), "fn_<rva>" for
 * the ones generated in an image the scenario names none of.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scheduler_model/modules.h"

#define X64_USER_TOP   0x00007FFFFFFF0000ull
#define X64_USER_MIN   0x0000000000010000ull
#define X64_KERNEL_MIN 0xFFFF800000000000ull
#define X64_EXE	       0x00007FF600000000ull
#define X64_DLL_TOP    0x00007FFC00000000ull
#define X64_NTOS       0xFFFFF80000000000ull
#define X64_DRIVERS    0xFFFFF88000000000ull
#define X86_USER_TOP   0x7FFF0000ull
#define X86_USER_MIN   0x00010000ull
#define X86_KERNEL_MIN 0x80000000ull
#define X86_KERNEL_TOP 0xFFFFF000ull
#define X86_EXE	       0x00400000ull
#define X86_DLL_TOP    0x78000000ull
#define X86_NTOS       0x81000000ull
#define X86_DRIVERS    0x8A000000ull
#define FN_FIRST_RVA   0x1000u
#define FN_ALIGN       0x10u

/* A default image: its name, size, directory and the functions a profile shows in it. */
struct known_image {
	const char *name;
	uint32_t size;
	bool kernel;
	const char *dir;
	const char *const *fns;
};

static const char *const ntdll_fns[] = {
	"RtlUserThreadStart",
	"TppWorkerThread",
	"NtWaitForSingleObject",
	"NtWaitForMultipleObjects",
	"NtRemoveIoCompletion",
	"NtDelayExecution",
	"NtReadFile",
	"NtWriteFile",
	"NtDeviceIoControlFile",
	"RtlAllocateHeap",
	"RtlFreeHeap",
	"RtlpAllocateHeapInternal",
	"RtlEnterCriticalSection",
	"RtlLeaveCriticalSection",
	"LdrpInitializeProcess",
	"memcpy",
	NULL,
};
static const char *const kernel32_fns[] = {
	"BaseThreadInitThunk",	"WaitForSingleObjectStub",   "CloseHandleImplementation",
	"GetTickCountKernel32", "CreateFileWImplementation", NULL,
};
static const char *const kernelbase_fns[] = {
	"WaitForSingleObjectEx",
	"WaitForMultipleObjectsEx",
	"SleepEx",
	"ReadFile",
	"WriteFile",
	"DeviceIoControl",
	"GetQueuedCompletionStatus",
	"MultiByteToWideChar",
	"CreateFileW",
	"lstrcmpiW",
	NULL,
};
static const char *const ntoskrnl_fns[] = {
	"KiIdleLoop",
	"PpmIdleExecuteTransition",
	"KiSystemServiceCopyEnd",
	"KiSwapContext",
	"KeWaitForSingleObject",
	"KiDispatchInterrupt",
	"KiRetireDpcList",
	"KiTimerExpiration",
	"MmAccessFault",
	"KiPageFault",
	"ExAllocatePoolWithTag",
	"ExFreePoolWithTag",
	"KeReleaseSpinLock",
	"IofCallDriver",
	"NtWaitForSingleObject",
	"NtReadFile",
	"NtDeviceIoControlFile",
	"ObReferenceObjectByHandle",
	"RtlCopyMemory",
	"ExpWorkerThread",
	"MiZeroPhysicalPage",
	"PspSystemThreadStartup",
	NULL,
};
static const char *const hal_fns[] = {
	"HalpTimerClockInterrupt",
	"HalRequestSoftwareInterrupt",
	"HalpApicRequestInterrupt",
	"HalProcessorIdle",
	NULL,
};

static const struct known_image known[] = {
	{"ntdll.dll", 0x1F0000, false, "Windows\\System32", ntdll_fns},
	{"kernel32.dll", 0xBE000, false, "Windows\\System32", kernel32_fns},
	{"kernelbase.dll", 0x2A3000, false, "Windows\\System32", kernelbase_fns},
	{"ntoskrnl.exe", 0xA4A000, true, "system32", ntoskrnl_fns},
	{"hal.dll", 0x6E000, true, "system32", hal_fns},
};
#define NKNOWN	     (sizeof(known) / sizeof(known[0]))
#define K_NTDLL	     0
#define K_KERNEL32   1
#define K_KERNELBASE 2
#define K_NTOSKRNL   3
#define K_HAL	     4

/*
 * Lived-in: the system DLLs a Windows 10 process maps beside ntdll,
 * kernel32 and kernelbase, in about the order the loader maps them (a
 * console service host stops early in the list, a GUI program goes far
 * down it), with their approximate sizes (0: one drawn from the seed). No
 * functions: nothing samples in them; they are there to be mapped, run down
 * and named, as the PerfView sample's 47 images a process (median) are.
 */
static const struct {
	const char *name;
	uint32_t size;
} common_dlls[] = {
	{"msvcrt.dll", 0x9E000},
	{"ucrtbase.dll", 0x100000},
	{"sechost.dll", 0x9C000},
	{"rpcrt4.dll", 0x125000},
	{"advapi32.dll", 0xA3000},
	{"bcryptprimitives.dll", 0x82000},
	{"combase.dll", 0x355000},
	{"msvcp_win.dll", 0x9D000},
	{"cryptbase.dll", 0xC000},
	{"sspicli.dll", 0x32000},
	{"user32.dll", 0x1A0000},
	{"win32u.dll", 0x22000},
	{"gdi32.dll", 0x29000},
	{"gdi32full.dll", 0x1A0000},
	{"imm32.dll", 0x30000},
	{"oleaut32.dll", 0xCD000},
	{"ole32.dll", 0x12A000},
	{"shlwapi.dll", 0x55000},
	{"kernel.appcore.dll", 0x11000},
	{"bcrypt.dll", 0x27000},
	{"cryptsp.dll", 0x18000},
	{"profapi.dll", 0x1F000},
	{"powrprof.dll", 0x4A000},
	{"umpdc.dll", 0x12000},
	{"cfgmgr32.dll", 0x4E000},
	{"shcore.dll", 0xA9000},
	{"windows.storage.dll", 0x780000},
	{"shell32.dll", 0x746000},
	{"userenv.dll", 0x2E000},
	{"clbcatq.dll", 0xA9000},
	{"ws2_32.dll", 0x6B000},
	{"nsi.dll", 0x8000},
	{"iphlpapi.dll", 0x3A000},
	{"dnsapi.dll", 0xCB000},
	{"mswsock.dll", 0x6A000},
	{"crypt32.dll", 0x15E000},
	{"msasn1.dll", 0x12000},
	{"wintrust.dll", 0x6A000},
	{"ntmarta.dll", 0x33000},
	{"wldp.dll", 0x28000},
	{"version.dll", 0xA000},
	{"secur32.dll", 0xC000},
	{"wintypes.dll", 0x15C000},
	{"rmclient.dll", 0x1C000},
	{"winsta.dll", 0x5D000},
	{"wtsapi32.dll", 0x14000},
	{"netapi32.dll", 0x17000},
	{"uxtheme.dll", 0x9E000},
	{"dwmapi.dll", 0x2F000},
	{"msctf.dll", 0x154000},
	{"propsys.dll", 0xF7000},
	{"winmm.dll", 0x27000},
	{"comctl32.dll", 0x29A000},
	{"textinputframework.dll", 0x15E000},
	{"coremessaging.dll", 0xF2000},
	{"coreuicomponents.dll", 0x35D000},
	{"twinapi.appcore.dll", 0x1F6000},
	{"oleacc.dll", 0x66000},
	{"dxgi.dll", 0xF4000},
	{"d3d11.dll", 0x263000},
	{"dcomp.dll", 0x1F4000},
	{"mpr.dll", 0x1A000},
	{"dbghelp.dll", 0x1E7000},
	{"winhttp.dll", 0xF3000},
	{"webio.dll", 0x7F000},
	{"urlmon.dll", 0x1D8000},
};
#define NCOMMON (sizeof(common_dlls) / sizeof(common_dlls[0]))

/* Processes with no Win32 subsystem: ntdll's images only. */
static bool is_native(const char *image)
{
	static const char *const native[] = {"smss.exe", "Registry", "MemCompression",
					     "Secure System", "vmmem"};

	for (size_t i = 0; image && i < sizeof(native) / sizeof(native[0]); i++) {
		if (!strcasecmp(image, native[i])) {
			return true;
		}
	}
	return false;
}

static const struct known_image *known_of(const char *name)
{
	for (size_t i = 0; i < NKNOWN; i++) {
		if (!strcasecmp(known[i].name, name)) {
			return &known[i];
		}
	}
	return NULL;
}

/* ---- building -------------------------------------------------------------- */

void mod_cfg_init(struct mod_cfg *c, bool ptr64, uint64_t seed)
{
	c->common_dlls = false;
	c->ptr64 = ptr64;
	c->seed = seed;
	c->nimages = 0;
	c->nfunctions = 0;
	c->nhot = 0;
	memset(c->hot_first, 0, sizeof(c->hot_first));
	memset(c->hot_n, 0, sizeof(c->hot_n));
	memset(c->hot_given, 0, sizeof(c->hot_given));
	c->idle_fn = UINT32_MAX;
}

int mod_add_image(struct mod_cfg *c, const struct mod_image *im)
{
	struct mod_image *o;

	if (c->nimages >= MOD_MAX_IMAGES) {
		return -ENOSPC;
	}
	o = &c->images[c->nimages];
	*o = *im;
	o->first_fn = c->nfunctions;
	o->nfn = 0;
	return (int)c->nimages++;
}

int mod_add_function(struct mod_cfg *c, uint32_t image, const char *name, uint32_t rva,
		     uint32_t size)
{
	struct mod_function *f;

	if (c->nfunctions >= MOD_MAX_FUNCTIONS) {
		return -ENOSPC;
	}
	f = &c->functions[c->nfunctions];
	f->name = name;
	f->image = image;
	f->rva = rva;
	f->size = size;
	f->hot = 0;
	f->weight = 0;
	return (int)c->nfunctions++;
}

int mod_add_hot(struct mod_cfg *c, unsigned group, uint32_t fn, uint32_t weight)
{
	if (c->nhot >= MOD_MAX_HOT || group >= SCHED_MAX_GROUPS) {
		return -ENOSPC;
	}
	if (!c->hot_given[group]) {
		c->hot_given[group] = true;
		c->hot_first[group] = c->nhot;
		c->hot_n[group] = 0;
	}
	c->hot[c->nhot].fn = fn;
	c->hot[c->nhot].weight = weight;
	c->nhot++;
	c->hot_n[group]++;
	return 0;
}

/* splitmix64's finaliser: every bit of @x moves every bit of the result. */
uint64_t mod_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/*
 * A hash of the seed, a name (any case: images are named either way) and
 * a salt (FNV-1a over the name, mixed): every derived value comes from one.
 */
static uint64_t h64(const struct mod_cfg *c, const char *name, uint64_t salt)
{
	uint64_t h = 0xCBF29CE484222325ull;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		h = (h ^ (uint64_t)(*p | ((*p >= 'A' && *p <= 'Z') ? 0x20u : 0u))) *
		    0x100000001B3ull;
	}
	return mod_mix64(h ^ mod_mix64(c->seed ^ mod_mix64(salt + 1u)));
}

static bool user_image_is_exe(const struct mod_image *im, const struct mod_process *p)
{
	return !im->kernel && p->image && !strcasecmp(im->name, p->image);
}

static void default_path(const struct mod_cfg *c, struct mod_image *im, const struct mod_process *p)
{
	const struct known_image *k = known_of(im->name);
	char name[sizeof(im->name)]; /* a copy: gcc cannot tell it from im->path (-Wrestrict) */

	(void)c;
	if (im->given & MOD_GIVEN_PATH) {
		return;
	}
	memcpy(name, im->name, sizeof(name));
	if (im->kernel) {
		snprintf(im->path, sizeof(im->path), "\\SystemRoot\\%s\\%s",
			 k ? k->dir : "System32\\drivers", name);
		return;
	}
	if (!k && p && user_image_is_exe(im, p) && p->cmdline) {
		/* the executable of the command line: C:\... becomes the volume's NT path */
		bool quoted = p->cmdline[0] == '"';
		const char *s = p->cmdline + quoted;
		size_t n = strcspn(s, quoted ? "\""
					     : " "); /* "C:\Program Files\..." keeps its spaces */

		if (n > 3 && s[1] == ':' && s[2] == '\\' && n < sizeof(im->path) - 32) {
			snprintf(im->path, sizeof(im->path), "\\Device\\HarddiskVolume3%.*s",
				 (int)(n - 2), s + 2);
			return;
		}
	}
	snprintf(im->path, sizeof(im->path), "\\Device\\HarddiskVolume3\\%s\\%s",
		 k ? k->dir
		   : (user_image_is_exe(im, p) ? "Program Files\\App" : "Windows\\System32"),
		 name);
}

/* The values derived from the name: timestamp, checksum, PDB identity. */
static void derive_identity(const struct mod_cfg *c, struct mod_image *im)
{
	uint64_t a = h64(c, im->name, 1), b = h64(c, im->name, 2);

	if (!(im->given & MOD_GIVEN_TIMESTAMP)) {
		im->timestamp = 0x50000000u + (uint32_t)(a % 0x10000000u);
	}
	if (!(im->given & MOD_GIVEN_CHECKSUM)) {
		im->checksum = (uint32_t)(im->size - im->size / 8u) + (uint32_t)(a >> 48);
	}
	if (!(im->given & MOD_GIVEN_PDB)) {
		for (unsigned i = 0; i < 8; i++) {
			im->pdb_guid[i] = (uint8_t)(a >> (8 * i));
			im->pdb_guid[8 + i] = (uint8_t)(b >> (8 * i));
		}
		im->pdb_guid[7] = (uint8_t)((im->pdb_guid[7] & 0x0Fu) | 0x40u); /* version 4 */
		im->pdb_guid[8] = (uint8_t)((im->pdb_guid[8] & 0x3Fu) | 0x80u); /* RFC 4122 */
		im->pdb_age = 1;
	}
	if (!im->pdb_name[0] && !(im->given & MOD_GIVEN_NO_PDB)) {
		char name[sizeof(im->name)]; /* a copy: gcc cannot tell it from im->pdb_name */
		const char *dot;
		int stem;

		memcpy(name, im->name, sizeof(name));
		dot = strrchr(name, '.');
		stem = dot ? (int)(dot - name) : (int)strlen(name);
		snprintf(im->pdb_name, sizeof(im->pdb_name), "%.*s.pdb", stem, name);
	}
}

/* Append the default image @k (or an executable when @k is NULL) to process @pi. */
static int add_default(struct mod_cfg *c, uint32_t pi, const struct known_image *k, const char *exe)
{
	struct mod_image im;

	memset(&im, 0, sizeof(im));
	snprintf(im.name, sizeof(im.name), "%s", k ? k->name : exe);
	im.process = pi;
	im.kernel = k && k->kernel;
	im.size = k ? k->size
		    : 0x20000u + (h64(c, exe, 3) % 0x3E0u) * MOD_PAGE; /* 128 KiB .. 4 MiB */
	im.unload_ns = MOD_NEVER;
	return mod_add_image(c, &im);
}

static bool has_image(const struct mod_cfg *c, uint32_t pi, bool kernel, const char *name)
{
	return mod_find_image(c, pi, kernel, name) >= 0;
}

/*
 * Lived-in: process @pi's common DLLs, the first 26 to 65 of the list (from
 * the seed and its name: a median near 46, with its other four near the
 * sample's 47), those it has already left out; while there is room: they
 * are decoration, never a reason to refuse a scenario.
 */
static int add_common(struct mod_cfg *c, uint32_t pi, const char *image)
{
	unsigned n = is_native(image) ? 0 : 26u + (unsigned)(h64(c, image ? image : "", 10) % 40u);

	for (unsigned k = 0; k < n && k < NCOMMON && c->nimages < MOD_MAX_IMAGES - 64u; k++) {
		struct mod_image im;
		int rc;

		if (has_image(c, pi, false, common_dlls[k].name)) {
			continue;
		}
		memset(&im, 0, sizeof(im));
		snprintf(im.name, sizeof(im.name), "%s", common_dlls[k].name);
		im.process = pi;
		im.size = common_dlls[k].size;
		im.unload_ns = MOD_NEVER;
		im.given = MOD_COMMON;
		if ((rc = mod_add_image(c, &im)) < 0) {
			return rc;
		}
	}
	return 0;
}

/* The defaults: each process gets its four (lived-in: and its common DLLs), the kernel its two. */
static int add_defaults(struct mod_cfg *c, const struct mod_space *sp)
{
	int rc;

	for (unsigned k = K_NTOSKRNL; k <= K_HAL; k++) {
		if (!has_image(c, MOD_SYSTEM, true, known[k].name) &&
		    (rc = add_default(c, MOD_SYSTEM, &known[k], NULL)) < 0) {
			return rc;
		}
	}
	for (uint32_t pi = MOD_SYSTEM + 1; pi < sp->nprocesses; pi++) {
		if (!has_image(c, pi, false, sp->processes[pi].image) &&
		    (rc = add_default(c, pi, NULL, sp->processes[pi].image)) < 0) {
			return rc;
		}
		for (unsigned k = K_NTDLL; k <= K_KERNELBASE; k++) {
			if (!has_image(c, pi, false, known[k].name) &&
			    (rc = add_default(c, pi, &known[k], NULL)) < 0) {
				return rc;
			}
		}
		if (c->common_dlls && (rc = add_common(c, pi, sp->processes[pi].image)) < 0) {
			return rc;
		}
	}
	return 0;
}

/* ---- bases ------------------------------------------------------------------- */

struct range {
	uint64_t lo, hi; /* [lo, hi) */
};

static struct range range_of(const struct mod_cfg *c, bool kernel)
{
	if (c->ptr64) {
		return kernel ? (struct range){X64_KERNEL_MIN, UINT64_MAX}
			      : (struct range){X64_USER_MIN, X64_USER_TOP};
	}
	return kernel ? (struct range){X86_KERNEL_MIN, X86_KERNEL_TOP}
		      : (struct range){X86_USER_MIN, X86_USER_TOP};
}

/* The same DLL's base in another process, if one has it already. */
static uint64_t dll_base_elsewhere(const struct mod_cfg *c, unsigned upto, const char *name,
				   uint64_t size)
{
	for (unsigned i = 0; i < upto; i++) {
		const struct mod_image *o = &c->images[i];

		if (!o->kernel && o->base && o->size == size && !strcasecmp(o->name, name)) {
			return o->base;
		}
	}
	return 0;
}

static int assign_bases(struct mod_cfg *c, const struct mod_space *sp, struct mod_problem *p)
{
	uint64_t dll = (c->ptr64 ? X64_DLL_TOP : X86_DLL_TOP) -
		       (h64(c, "dll", 4) % 0x100u) * MOD_ALLOC_GRANULE;
	uint64_t drv =
		(c->ptr64 ? X64_DRIVERS : X86_DRIVERS) + (h64(c, "drivers", 5) % 0x40u) * 0x100000u;
	uint64_t ntos = (c->ptr64 ? X64_NTOS + (h64(c, "ntoskrnl", 6) % 0x400u) * 0x200000u
				  : X86_NTOS + (h64(c, "ntoskrnl", 6) % 0x40u) * 0x100000u);

	for (unsigned i = 0; i < c->nimages; i++) {
		struct mod_image *im = &c->images[i];
		const struct mod_process *pr = &sp->processes[im->process];
		struct range r = range_of(c, im->kernel);

		if (im->given & MOD_GIVEN_BASE) {
			continue;
		}
		if (im->kernel) {
			if (!strcasecmp(im->name, "ntoskrnl.exe")) {
				im->base = ntos;
			} else if (!strcasecmp(im->name, "hal.dll")) {
				int nt = mod_find_image(c, MOD_SYSTEM, true, "ntoskrnl.exe");
				uint64_t sz = nt >= 0 ? c->images[nt].size : known[K_NTOSKRNL].size;

				im->base = ntos + ((sz + 0x1FFFFFu) & ~0x1FFFFFull);
			} else {
				im->base = drv;
				drv += (im->size + MOD_PAGE - 1) / MOD_PAGE * MOD_PAGE +
				       (h64(c, im->name, 7) % 0x10u + 1u) * MOD_PAGE;
			}
		} else if (user_image_is_exe(im, pr)) {
			im->base =
				(c->ptr64 ? X64_EXE : X86_EXE) +
				(h64(c, pr->image, 8 + pr->pid) % (c->ptr64 ? 0x8000u : 0x100u)) *
					MOD_ALLOC_GRANULE;
		} else {
			uint64_t b = dll_base_elsewhere(c, i, im->name, im->size);

			if (!b) {
				if (dll < r.lo + im->size + MOD_ALLOC_GRANULE) {
					*p = (struct mod_problem){
						i, UINT32_MAX, MOD_NO_IMAGE,
						"no room left for it below the other DLLs"};
					return -EINVAL;
				}
				b = (dll - im->size) & ~(uint64_t)(MOD_ALLOC_GRANULE - 1u);
				dll = b - (h64(c, im->name, 9) % 4u + 1u) * MOD_ALLOC_GRANULE;
			}
			im->base = b;
		}
	}
	return 0;
}

/* ---- functions --------------------------------------------------------------- */

/* Generate @k's functions (or fn_<rva> ones) for image @i: laid out after the named ones. */
static int generate_functions(struct mod_cfg *c, uint32_t i)
{
	struct mod_image *im = &c->images[i];
	const struct known_image *k = known_of(im->name);
	uint32_t rva = FN_FIRST_RVA;
	unsigned n = 0;

	if (im->given & MOD_COMMON) {
		return 0;
	}
	for (unsigned f = 0; f < c->nfunctions; f++) {
		const struct mod_function *fn = &c->functions[f];

		if (fn->image == i && fn->rva + fn->size > rva) {
			rva = (fn->rva + fn->size + FN_ALIGN - 1u) & ~(FN_ALIGN - 1u);
		}
	}
	for (;;) {
		const char *name = NULL;
		uint64_t h;
		uint32_t size;
		int rc;

		if (k && k->fns[n]) {
			name = k->fns[n];
		} else if (k || n >= MOD_GEN_FUNCTIONS) {
			break;
		}
		h = h64(c, im->name, 0x100u + n);
		size = (0x80u + (uint32_t)(h % 0x1780u)) & ~(FN_ALIGN - 1u);
		rva += (uint32_t)((h >> 32) % 0x800u) & ~(FN_ALIGN - 1u);
		if ((uint64_t)rva + size > im->size) {
			break;
		}
		rc = mod_add_function(c, i, name, rva, size);
		if (rc < 0) {
			return rc;
		}
		rva += size;
		n++;
	}
	return 0;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct mod_function *x = a, *y = b;

	if (x->image != y->image) {
		return x->image < y->image ? -1 : 1;
	}
	return x->rva < y->rva ? -1 : x->rva > y->rva;
}

/* Sort the functions by image and rva, index them, check them, and give each its hot spot. */
static int index_functions(struct mod_cfg *c, struct mod_problem *p)
{
	qsort(c->functions, c->nfunctions, sizeof(c->functions[0]), cmp_fn);
	for (unsigned i = 0; i < c->nimages; i++) {
		c->images[i].nfn = 0;
	}
	for (uint32_t f = 0; f < c->nfunctions; f++) {
		struct mod_function *fn = &c->functions[f];
		struct mod_image *im = &c->images[fn->image];
		uint64_t h;

		if (im->nfn == 0) {
			im->first_fn = f;
		}
		im->nfn++;
		if (fn->size == 0 || (uint64_t)fn->rva + fn->size > im->size) {
			*p = (struct mod_problem){fn->image, f, MOD_NO_IMAGE,
						  "lies outside its image"};
			return -EINVAL;
		}
		if (f > 0 && c->functions[f - 1].image == fn->image &&
		    c->functions[f - 1].rva + c->functions[f - 1].size > fn->rva) {
			*p = (struct mod_problem){fn->image, f, MOD_NO_IMAGE,
						  "overlaps the function before it"};
			return -EINVAL;
		}
		h = h64(c, im->name, 0x10000u + fn->rva);
		fn->hot = fn->size > 8 ? (uint32_t)(h % (fn->size - 8u)) : 0;
	}
	return 0;
}

/* ---- checks ------------------------------------------------------------------ */

static bool same_space(const struct mod_image *a, const struct mod_image *b)
{
	return a->kernel == b->kernel && (a->kernel || a->process == b->process);
}

static int check_images(const struct mod_cfg *c, struct mod_problem *p)
{
	for (uint32_t i = 0; i < c->nimages; i++) {
		const struct mod_image *im = &c->images[i];
		struct range r = range_of(c, im->kernel);

		if (im->size == 0 || im->size % MOD_PAGE || im->base % MOD_PAGE) {
			*p = (struct mod_problem){i, UINT32_MAX, MOD_NO_IMAGE,
						  "base and size must be multiples of 4 KiB"};
			return -EINVAL;
		}
		if (im->base < r.lo || im->base >= r.hi || im->size > r.hi - im->base) {
			*p = (struct mod_problem){
				i, UINT32_MAX, MOD_NO_IMAGE,
				im->kernel ? "does not fit in the kernel's address range"
					   : "does not fit in the user address range"};
			return -EINVAL;
		}
		for (uint32_t j = 0; j < i; j++) {
			const struct mod_image *o = &c->images[j];

			if (same_space(im, o) && im->base < o->base + o->size &&
			    o->base < im->base + im->size) {
				*p = (struct mod_problem){i, UINT32_MAX, j, "overlaps"};
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* ---- default hot lists ---------------------------------------------------- */

struct hot_row {
	int image;	  /* K_* of a known image, or -1: the process's executable */
	const char *name; /* a known function, or NULL: the executable's n-th generated */
	unsigned nth;
	uint32_t weight;
};

/* Where each behaviour's time goes: user code, the heap, the kernel's paths. */
static const struct hot_row hot_cpu[] = {
	{-1, NULL, 0, 48},
	{-1, NULL, 1, 22},
	{-1, NULL, 2, 11},
	{-1, NULL, 3, 6},
	{K_NTDLL, "RtlAllocateHeap", 0, 4},
	{K_NTDLL, "memcpy", 0, 4},
	{K_NTOSKRNL, "KiDispatchInterrupt", 0, 2},
	{K_NTOSKRNL, "MmAccessFault", 0, 3},
};
static const struct hot_row hot_io[] = {
	{-1, NULL, 0, 18},
	{-1, NULL, 1, 8},
	{K_KERNELBASE, "ReadFile", 0, 4},
	{K_NTDLL, "RtlAllocateHeap", 0, 5},
	{K_NTOSKRNL, "RtlCopyMemory", 0, 16},
	{K_NTOSKRNL, "IofCallDriver", 0, 10},
	{K_NTOSKRNL, "NtReadFile", 0, 8},
	{K_NTOSKRNL, "MmAccessFault", 0, 8},
	{K_NTOSKRNL, "ExAllocatePoolWithTag", 0, 6},
	{K_NTOSKRNL, "KiSystemServiceCopyEnd", 0, 5},
};
static const struct hot_row hot_interactive[] = {
	{-1, NULL, 0, 30},
	{-1, NULL, 1, 14},
	{-1, NULL, 2, 8},
	{K_KERNELBASE, "MultiByteToWideChar", 0, 5},
	{K_NTDLL, "RtlAllocateHeap", 0, 6},
	{K_NTDLL, "RtlFreeHeap", 0, 4},
	{K_NTOSKRNL, "KiSystemServiceCopyEnd", 0, 8},
	{K_NTOSKRNL, "KiSwapContext", 0, 6},
	{K_NTOSKRNL, "ObReferenceObjectByHandle", 0, 5},
	{K_NTOSKRNL, "ExAllocatePoolWithTag", 0, 4},
};
static const struct hot_row hot_periodic[] = {
	{-1, NULL, 0, 40},
	{-1, NULL, 1, 20},
	{K_NTDLL, "memcpy", 0, 12},
	{K_NTDLL, "NtDelayExecution", 0, 4},
	{K_NTOSKRNL, "KiTimerExpiration", 0, 8},
	{K_NTOSKRNL, "KiSwapContext", 0, 6},
	{K_NTOSKRNL, "KiSystemServiceCopyEnd", 0, 5},
};
/* System's threads: all kernel. */
static const struct hot_row hot_system[] = {
	{K_NTOSKRNL, "ExpWorkerThread", 0, 25},	   {K_NTOSKRNL, "RtlCopyMemory", 0, 22},
	{K_NTOSKRNL, "MiZeroPhysicalPage", 0, 18}, {K_NTOSKRNL, "IofCallDriver", 0, 10},
	{K_NTOSKRNL, "KeReleaseSpinLock", 0, 8},   {K_NTOSKRNL, "KiRetireDpcList", 0, 7},
	{K_HAL, "HalpTimerClockInterrupt", 0, 5},  {K_HAL, "HalRequestSoftwareInterrupt", 0, 5},
};

/* The function a hot row names in process @pi, or -1. */
static int hot_row_fn(const struct mod_cfg *c, const struct mod_space *sp, uint32_t pi,
		      const struct hot_row *r)
{
	int im;

	if (r->image < 0) {
		im = mod_find_image(c, pi, false, sp->processes[pi].image);
		if (im < 0 || c->images[im].nfn == 0) {
			return -1;
		}
		return (int)(c->images[im].first_fn + r->nth % c->images[im].nfn);
	}
	im = mod_find_image(c, pi, known[r->image].kernel, known[r->image].name);
	return im < 0 ? -1 : mod_find_function(c, (uint32_t)im, r->name);
}

int mod_cfg_default_hot(struct mod_cfg *c, const struct mod_space *sp)
{
	const struct sched_cfg *sc = sp->sc;

	for (unsigned g = 0; g < sc->ngroups; g++) {
		uint32_t pi = sp->group_process[g];
		const struct hot_row *rows;
		size_t n;

		if (c->hot_given[g]) {
			continue;
		}
		if (pi == MOD_SYSTEM) {
			rows = hot_system, n = sizeof(hot_system) / sizeof(hot_system[0]);
		} else {
			switch (sc->groups[g].behaviour) {
			case SCHED_CPU_BOUND:
				rows = hot_cpu, n = sizeof(hot_cpu) / sizeof(hot_cpu[0]);
				break;
			case SCHED_IO_BOUND:
				rows = hot_io, n = sizeof(hot_io) / sizeof(hot_io[0]);
				break;
			case SCHED_PERIODIC:
				rows = hot_periodic,
				n = sizeof(hot_periodic) / sizeof(hot_periodic[0]);
				break;
			default:
				rows = hot_interactive,
				n = sizeof(hot_interactive) / sizeof(hot_interactive[0]);
				break;
			}
		}
		for (size_t k = 0; k < n; k++) {
			int fn = hot_row_fn(c, sp, pi, &rows[k]);
			/* a group's own rows differ a little: two groups of a process are told apart */
			uint32_t w =
				rows[k].weight + (uint32_t)(h64(c, sc->groups[g].name, k) % 3u);

			if (fn >= 0 && mod_add_hot(c, g, (uint32_t)fn, w) < 0) {
				return -ENOSPC;
			}
		}
		/* the scenario's weighted functions of the process's images (System: the kernel's) */
		for (uint32_t f = 0; f < c->nfunctions; f++) {
			const struct mod_image *im = &c->images[c->functions[f].image];

			if (c->functions[f].weight &&
			    (pi == MOD_SYSTEM ? im->kernel : !im->kernel && im->process == pi) &&
			    mod_add_hot(c, g, f, c->functions[f].weight) < 0) {
				return -ENOSPC;
			}
		}
	}
	return 0;
}

int mod_cfg_finish(struct mod_cfg *c, const struct mod_space *sp, struct mod_problem *p)
{
	int rc;

	*p = (struct mod_problem){MOD_NO_IMAGE, UINT32_MAX, MOD_NO_IMAGE, "too many images"};
	if ((rc = add_defaults(c, sp)) < 0) {
		return -EINVAL;
	}
	for (uint32_t i = 0; i < c->nimages; i++) {
		struct mod_image *im = &c->images[i];

		default_path(c, im, im->kernel ? NULL : &sp->processes[im->process]);
		derive_identity(c, im);
	}
	if ((rc = assign_bases(c, sp, p)) < 0 || (rc = check_images(c, p)) < 0) {
		return rc;
	}
	for (uint32_t i = 0; i < c->nimages; i++) {
		if (generate_functions(c, i) < 0) {
			*p = (struct mod_problem){i, UINT32_MAX, MOD_NO_IMAGE,
						  "too many functions (16384 at most)"};
			return -EINVAL;
		}
	}
	if ((rc = index_functions(c, p)) < 0) {
		return rc;
	}
	{
		int nt = mod_find_image(c, MOD_SYSTEM, true, "ntoskrnl.exe");
		int fn = nt < 0 ? -1 : mod_find_function(c, (uint32_t)nt, "KiIdleLoop");

		c->idle_fn = fn < 0 ? (nt >= 0 && c->images[nt].nfn ? c->images[nt].first_fn
								    : UINT32_MAX)
				    : (uint32_t)fn;
	}
	return 0;
}

/* ---- lookups ----------------------------------------------------------------- */

const char *mod_function_name(const struct mod_function *f, char *buf, size_t cap)
{
	if (f->name) {
		return f->name;
	}
	snprintf(buf, cap, "fn_%x", f->rva);
	return buf;
}

int mod_find_function(const struct mod_cfg *c, uint32_t image, const char *name)
{
	const struct mod_image *im = &c->images[image];
	char buf[32];

	for (uint32_t k = 0; k < im->nfn; k++) {
		const struct mod_function *f = &c->functions[im->first_fn + k];

		if (!strcmp(mod_function_name(f, buf, sizeof(buf)), name)) {
			return (int)(im->first_fn + k);
		}
	}
	/* before mod_cfg_finish() indexes them: search all */
	for (uint32_t f = 0; im->nfn == 0 && f < c->nfunctions; f++) {
		if (c->functions[f].image == image && c->functions[f].name &&
		    !strcmp(c->functions[f].name, name)) {
			return (int)f;
		}
	}
	return -ENOENT;
}

int mod_find_image(const struct mod_cfg *c, uint32_t process, bool kernel, const char *name)
{
	for (uint32_t i = 0; i < c->nimages; i++) {
		const struct mod_image *im = &c->images[i];

		if (im->kernel == kernel && (kernel || im->process == process) &&
		    !strcasecmp(im->name, name)) {
			return (int)i;
		}
	}
	return -ENOENT;
}

uint64_t mod_fn_address(const struct mod_cfg *c, uint32_t fn)
{
	const struct mod_function *f = &c->functions[fn];

	return c->images[f->image].base + f->rva;
}

bool mod_is_kernel_address(const struct mod_cfg *c, uint64_t a)
{
	return a >= (c->ptr64 ? X64_KERNEL_MIN : X86_KERNEL_MIN);
}

/* ---- samples ------------------------------------------------------------------ */

/* An IP inside @fn: its hot instruction half the time, else anywhere in it. */
static uint64_t ip_in(const struct mod_cfg *c, uint32_t fn, struct sim_rng *rng)
{
	const struct mod_function *f = &c->functions[fn];

	if (sim_rng_chance(rng, 50)) {
		return mod_fn_address(c, fn) + f->hot;
	}
	return mod_fn_address(c, fn) + sim_rng_below(rng, f->size);
}

uint64_t mod_sample(const struct mod_cfg *c, unsigned group, struct sim_rng *rng, uint32_t *fn)
{
	uint32_t n = c->hot_n[group], total = 0, pick;
	const struct mod_hot *h = &c->hot[c->hot_first[group]];

	for (uint32_t k = 0; k < n; k++) {
		total += h[k].weight;
	}
	if (total == 0) {
		if (fn) {
			*fn = c->idle_fn;
		}
		return c->idle_fn == UINT32_MAX ? 0 : ip_in(c, c->idle_fn, rng);
	}
	pick = (uint32_t)sim_rng_below(rng, total);
	for (uint32_t k = 0; k < n; k++) {
		if (pick < h[k].weight) {
			if (fn) {
				*fn = h[k].fn;
			}
			return ip_in(c, h[k].fn, rng);
		}
		pick -= h[k].weight;
	}
	return 0; /* not reached: pick < total */
}

uint64_t mod_idle_ip(const struct mod_cfg *c, struct sim_rng *rng)
{
	const struct mod_function *f;

	if (c->idle_fn == UINT32_MAX) {
		return 0;
	}
	f = &c->functions[c->idle_fn];
	if (sim_rng_below(rng, 100) != 0) {
		return mod_fn_address(c, c->idle_fn) + f->hot; /* 99 %: one address */
	}
	return mod_fn_address(c, c->idle_fn) + sim_rng_below(rng, f->size);
}

/* ---- image records -------------------------------------------------------------- */

unsigned mod_image_rank(const struct mod_cfg *c, uint32_t i, const char *exe)
{
	const struct mod_image *im = &c->images[i];
	const struct known_image *k = known_of(im->name);

	if (im->kernel) {
		return k ? (unsigned)(k - known) - K_NTOSKRNL : 2;
	}
	if (exe && !strcasecmp(im->name, exe)) {
		return 0;
	}
	return k ? 1 + (unsigned)(k - known) : 4;
}

void mod_image_record(const struct mod_cfg *c, uint32_t i, uint32_t pid, struct sim_image *r,
		      char guid[MOD_GUID_TEXT])
{
	const struct mod_image *im = &c->images[i];
	const uint8_t *g = im->pdb_guid;
	bool windows = known_of(im->name) != NULL;

	r->base = im->base;
	r->size = im->size;
	r->pid = im->kernel ? 0 : pid;
	r->checksum = im->checksum;
	r->timestamp = im->timestamp;
	if (im->kernel) {
		/* SE_SIGNING_LEVEL_WINDOWS, SE_IMAGE_SIGNATURE_EMBEDDED; ntoskrnl reads 0 */
		r->signature_level = strcasecmp(im->name, "ntoskrnl.exe") ? 12 : 0;
		r->signature_type = 1;
	} else {
		/* WINDOWS or AUTHENTICODE, SE_IMAGE_SIGNATURE_CACHE */
		r->signature_level = windows ? 12 : 4;
		r->signature_type = 2;
	}
	r->default_base = im->kernel ? 0 : im->base;
	r->file_name = im->path;
	r->pdb_name = im->pdb_name[0] ? im->pdb_name : NULL;
	r->pdb_age = im->pdb_name[0] ? im->pdb_age : 0;
	r->pdb_guid = NULL;
	if (im->pdb_name[0]) {
		/* Data1..3 little-endian on the wire, Data4 as it is */
		snprintf(guid, MOD_GUID_TEXT,
			 "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X",
			 g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11],
			 g[12], g[13], g[14], g[15]);
		r->pdb_guid = guid;
	}
}
