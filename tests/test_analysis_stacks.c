// SPDX-License-Identifier: MIT
/*
 * tests/test_analysis_stacks.c - the analysis's images, stacks and symbols
 * (etwforge_analysis_image/_stack/_locate/_call_node*) on the PerfView
 * sample (tests/data/samples/perfview_net.4.5.2.x64.etl, build 9200,
 * merged by PerfView): the counts its documentation gives (samples with a
 * stack: 353 + 170 + 78 + 30 + 22 + 5 kernel-IP, 5,462 + 94 user-IP, 84
 * DPC and 20 ISR idle samples; 252 StackWalk + 2,061 kernel + 7,046 user
 * key references, every one resolving), and the records decoded by hand
 * there, typed here from their bytes: a sample's kernel and user parts
 * joined from two cached keys, an idle DPC sample's one-frame stack, the
 * images of a Load, an Unload, a process's and a kernel module's rundown
 * with the PDB identities the merge wrote. A Breakpad symbol store written
 * here names ntdll's functions; broken symbol files are errors that say
 * where.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"

#define P_FILE "perfview_net.4.5.2.x64.etl"

TestSuite(analysis_stacks, .init = test_dir_make, .fini = test_dir_remove);

/* The ntdll.pdb of build 9200 (P b38+0x8188, DbgID_RSDS): its store folder's identifier. */
#define NTDLL_ID "6048FDB62DCD41C18835594844CE71432"

static struct etwforge_analysis *analyse(struct etwforge_file **f, const char *symbols,
					 struct etwforge_error *err)
{
	ETWFORGE_OPTS(etwforge_analysis_opts, o, .detail = ETWFORGE_DETAIL_FULL,
		      .items = ETWFORGE_ITEM_SAMPLE, .symbols = symbols);

	*f = etwforge_file_open(test_sample(P_FILE), 0, NULL);
	cr_assert_not_null(*f);
	return etwforge_analysis_new(*f, &o, err);
}

/* A Breakpad store of ntdll.pdb's one version holding @text as ntdll.sym. Return: the store. */
static const char *store_with(const char *text)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/sym/ntdll.pdb/" NTDLL_ID, test_dir);
	cr_assert_eq(test_run("mkdir -p '%s'", dir), 0);
	test_write("sym/ntdll.pdb/" NTDLL_ID "/ntdll.sym", text, strlen(text));
	return test_path("sym");
}

/* The image row of @pid at @base (the first; there may be a later one after an unload). */
static const struct etwforge_image_row *image_of(struct etwforge_analysis *a, uint32_t pid,
						 uint64_t base)
{
	const struct etwforge_image_row *r;

	for (size_t i = 0; (r = etwforge_analysis_image(a, i)) != NULL; i++) {
		if (r->pid == pid && r->base == base) {
			return r;
		}
	}
	cr_assert_fail("no image of PID %u at 0x%llx", pid, (unsigned long long)base);
	return NULL;
}

Test(analysis_stacks, counts_of_the_sample)
{
	struct etwforge_file *f;
	struct etwforge_analysis *a = analyse(&f, NULL, NULL);
	const struct etwforge_analysis_totals *t;
	uint64_t depth = 0;

	cr_assert_not_null(a);
	cr_assert_eq(etwforge_analysis_run(a, NULL), 0);
	t = etwforge_analysis_totals(a);
	cr_expect_eq(t->samples, 79528);
	cr_expect_eq(t->samples_stacked, 353 + 170 + 78 + 30 + 22 + 5 + 5462 + 94 + 84 + 20);
	cr_expect_eq(t->stack_records, 252 + 2061 + 7046);
	cr_expect_eq(t->keys_unresolved, 0);
	cr_expect_leq(t->frames_in_image, t->frames);
	cr_expect_gt(t->frames_in_image, t->frames / 2, "most frames are in a module");
	cr_expect_gt(t->samples_in_image, t->samples / 2, "most samples are in a module");
	cr_assert_not_null(t->depth_hist);
	for (unsigned k = 0; k < ETWFORGE_HIST_BUCKETS; k++) {
		depth += t->depth_hist[k];
	}
	cr_expect_eq(depth, t->samples_stacked);
	etwforge_analysis_free(a);
	etwforge_file_close(f);
}

/* Is @s the stack of P b21+0x16C8's sample (kernel key ...442250, user key ...442390)? */
static bool is_b21_stack(const struct etwforge_stack_row *s)
{
	return s->nframes == 30 && s->kernel_frames == 15 && s->frames[0] == 0xFFFFF80021434313u &&
	       s->frames[1] == 0xFFFFF8002142FBB9u && s->frames[14] == 0xFFFFF80021503053u &&
	       s->frames[15] == 0x7F9D02F2C1Au && s->frames[16] == 0x7F9CF9E1AC6u &&
	       s->frames[28] == 0x7F9CF59167Eu && s->frames[29] == 0x7F9D030C3F1u;
}

Test(analysis_stacks, a_sample_joins_its_kernel_and_user_keys)
{
	struct etwforge_file *f;
	struct etwforge_analysis *a = analyse(&f, NULL, NULL);
	/* the samples in time order beside the analysis's items: the same samples, one by one */
	struct etwforge_iter *raw =
		etwforge_iter_new(f, ETWFORGE_ORDER_TIME, ETWFORGE_EV_SAMPLE, NULL);
	const struct etwforge_event *ev;
	const struct etwforge_item *it;
	unsigned joined = 0, idle_dpc = 0;
	int rc;

	cr_assert_not_null(a);
	cr_assert_not_null(raw);
	while ((rc = etwforge_analysis_next(a, &it, NULL)) == 1) {
		const struct etwforge_stack_row *s =
			it->stack >= 0 ? etwforge_analysis_stack(a, (size_t)it->stack) : NULL;

		cr_assert_eq(etwforge_iter_next(raw, &ev, NULL), 1);
		cr_assert_eq(it->kind, ETWFORGE_ITEM_SAMPLE);
		cr_assert_eq(it->ip, ev->u.sample.ip);
		if (ev->ts == 0x73E452CEu && it->tid == 0xAC0) {
			struct etwforge_location w;

			/* P b21+0x16C8, its keys' definitions P b208+0xAF30 and b208+0xE218 */
			cr_assert_not_null(s);
			cr_expect(is_b21_stack(s));
			cr_expect_eq(it->pid, 1188);
			cr_expect_geq(s->samples, 1);
			/* its first user frame: ntdll's, mapped at the same base in every process */
			cr_expect_eq(etwforge_analysis_locate(a, 1188, s->frames[15], it->t0, &w),
				     1);
			cr_expect_str_eq(w.module, "ntdll.dll");
			cr_expect_null(w.function);
			cr_expect_eq(w.offset, 0x2C1A);
			cr_expect_str_eq(w.text, "ntdll.dll+0x2c1a");
			joined++;
		}
		if (ev->ts == 0x758DC861u && it->tid == 0) {
			/* P b38+0xDA70: the idle thread in a DPC, its StackWalk P b38+0xDA90 */
			cr_assert_not_null(s);
			cr_expect_eq(it->ip, 0xFFFFF880012C2070u);
			cr_expect_eq(it->reason & 1u, 1u, "ExecutingDpc");
			cr_expect_eq(s->nframes, 1);
			cr_expect_eq(s->kernel_frames, 1);
			cr_expect_eq(s->frames[0], 0xFFFFF880012C2070u);
			cr_expect_eq(it->pid, 0);
			idle_dpc++;
		}
	}
	cr_assert_eq(rc, 0);
	cr_expect_eq(etwforge_iter_next(raw, &ev, NULL), 0);
	cr_expect_eq(joined, 1);
	cr_expect_eq(idle_dpc, 1);
	etwforge_iter_free(raw);
	etwforge_analysis_free(a);
	etwforge_file_close(f);
}

Test(analysis_stacks, images_and_their_identities)
{
	struct etwforge_file *f;
	struct etwforge_analysis *a = analyse(&f, NULL, NULL);
	const struct etwforge_image_row *r;
	struct etwforge_location w;

	cr_assert_not_null(a);
	/* P b38+0x81E8: ntdll.dll loaded into Test.x64.exe, after its ImageID and DbgID_RSDS */
	r = image_of(a, 3676, 0x7F9D02F0000u);
	cr_expect_eq(r->size, 0x1BE000);
	cr_expect_str_eq(r->path, "\\SystemRoot\\System32\\ntdll.dll");
	cr_expect_str_eq(r->name, "ntdll.dll");
	cr_expect_eq(r->timestamp, 0x5010ACD2);
	cr_expect_eq(r->checksum, 0x1C7B26);
	cr_expect_neq(r->load_ns, INT64_MIN, "a Load, in the trace");
	cr_expect_str_eq(r->pdb, "ntdll.pdb");
	cr_expect_str_eq(r->guid, "{6048FDB6-2DCD-41C1-8835-594844CE7143}");
	cr_expect_eq(r->age, 2);
	cr_expect_geq(r->process, 0);
	cr_expect_not(r->symbols);
	/* P b2+0x0458: smss.exe's rundown, TimeDateStamp 0 there, the ImageID's taken */
	r = image_of(a, 456, 0x7F60BD90000u);
	cr_expect_eq(r->size, 0x25000);
	cr_expect_eq(r->timestamp, 0x5010AC3A);
	cr_expect_eq(r->load_ns, INT64_MIN, "a rundown: mapped before the trace");
	cr_expect_str_eq(r->pdb, "smss.pdb");
	cr_expect_str_eq(r->guid, "{3C8F0528-9C07-4257-9192-78EA9AA6A1F4}");
	cr_expect_eq(r->age, 1);
	/* P b29+0x4F28: combase.dll unloaded from Test.x64.exe */
	r = image_of(a, 3676, 0x7F9CFAC0000u);
	cr_expect_str_eq(r->name, "combase.dll");
	cr_expect_neq(r->unload_ns, INT64_MAX);
	cr_expect_lt(r->load_ns, r->unload_ns);
	/* P b1+0x5420: ntoskrnl.exe, a kernel module: PID 0, no process */
	r = image_of(a, 0, 0xFFFFF80021489000u);
	cr_expect_eq(r->size, 0x748000);
	cr_expect_eq(r->process, -1);
	cr_expect_str_eq(r->name, "ntoskrnl.exe");
	/* a kernel module is mapped in every process; an address in none says itself */
	cr_expect_eq(etwforge_analysis_locate(a, 3676, 0xFFFFF80021489000u + 0x1234, 0, &w), 1);
	cr_expect_str_eq(w.text, "ntoskrnl.exe+0x1234");
	cr_expect_eq(etwforge_analysis_locate(a, 3676, 0x1234, 0, &w), 0);
	cr_expect_eq(w.image, -1);
	cr_expect_null(w.module);
	cr_expect_str_eq(w.text, "0x1234");
	cr_expect_eq(etwforge_analysis_locate(a, 3676, 0x1234, 0, NULL), -EINVAL);
	etwforge_analysis_free(a);
	etwforge_file_close(f);
}

/* The node named @name anywhere under @from, -1 none. */
static int64_t find_node(struct etwforge_analysis *a, int64_t from, const char *name)
{
	const struct etwforge_call_node *n = etwforge_analysis_call_node(a, (size_t)from);

	if (!strcmp(n->name, name)) {
		return from;
	}
	for (int64_t c = n->first_child; c >= 0;
	     c = etwforge_analysis_call_node(a, c)->next_sibling) {
		int64_t r = find_node(a, c, name);

		if (r >= 0) {
			return r;
		}
	}
	return -1;
}

Test(analysis_stacks, a_symbol_store_names_functions)
{
	const char *dir = store_with("MODULE windows x86_64 " NTDLL_ID " ntdll.pdb\n"
				     "FILE 1 d:\\rtl\\start.c\n"
				     "FUNC 2c00 40 8 RtlUserThreadStart\n"
				     "2c00 10 12 1\n"
				     "PUBLIC 3000 0 LdrpPublicThing\n");
	struct etwforge_file *f;
	struct etwforge_analysis *a = analyse(&f, dir, NULL);
	const struct etwforge_call_node *root, *n;
	struct etwforge_location w;
	uint64_t self = 0, count = 0;
	size_t nodes;

	cr_assert_not_null(a);
	cr_expect(image_of(a, 3676, 0x7F9D02F0000u)->symbols);
	cr_expect_eq(etwforge_analysis_locate(a, 1188, 0x7F9D02F2C1Au, INT64_MAX / 2, &w), 1);
	cr_expect_str_eq(w.function, "RtlUserThreadStart");
	cr_expect_eq(w.offset, 0x1A);
	cr_expect_str_eq(w.text, "ntdll.dll!RtlUserThreadStart+0x1a");
	/* past the FUNC's 0x40 bytes: the PUBLIC at or below it */
	cr_expect_eq(etwforge_analysis_locate(a, 1188, 0x7F9D02F3005u, INT64_MAX / 2, &w), 1);
	cr_expect_str_eq(w.text, "ntdll.dll!LdrpPublicThing+0x5");
	/* below every name of the file: the module and the offset */
	cr_expect_eq(etwforge_analysis_locate(a, 1188, 0x7F9D02F0010u, INT64_MAX / 2, &w), 1);
	cr_expect_str_eq(w.text, "ntdll.dll+0x10");

	cr_expect_eq(etwforge_analysis_call_nodes(a), 0, "no tree before the end");
	cr_assert_eq(etwforge_analysis_run(a, NULL), 0);
	nodes = etwforge_analysis_call_nodes(a);
	cr_assert_gt(nodes, 2);
	root = etwforge_analysis_call_node(a, 0);
	cr_expect_str_eq(root->name, "all");
	cr_expect_eq(root->samples, etwforge_analysis_totals(a)->samples);
	cr_expect_null(etwforge_analysis_call_node(a, nodes));
	for (size_t i = 0; i < nodes; i++) {
		uint64_t below = 0, last = UINT64_MAX;

		n = etwforge_analysis_call_node(a, i);
		self += n->self;
		for (int64_t c = n->first_child; c >= 0;) {
			const struct etwforge_call_node *k = etwforge_analysis_call_node(a, c);

			cr_assert_eq(k->parent, (int64_t)i);
			cr_assert_eq(k->depth, n->depth + 1);
			cr_assert_leq(k->samples, last, "children most samples first");
			last = k->samples;
			below += k->samples;
			c = k->next_sibling;
			count++;
		}
		cr_assert_eq(n->samples, below + n->self, "%s: %llu = %llu below + %llu self",
			     n->name, (unsigned long long)n->samples, (unsigned long long)below,
			     (unsigned long long)n->self);
	}
	cr_expect_eq(self, root->samples);
	cr_expect_eq(count, nodes - 1, "every node but the root is someone's child");
	cr_expect_geq(find_node(a, 0, "ntdll.dll!RtlUserThreadStart"), 0);
	cr_expect_geq(find_node(a, 0, "Idle (0)"), 0);
	cr_expect_geq(find_node(a, 0, "Test.x64.exe (3676)"), 0);
	etwforge_analysis_free(a);
	etwforge_file_close(f);
}

/* The analysis of the sample with the store @dir fails with @errnum and a message holding @what. */
static void refused(const char *dir, int errnum, const char *what)
{
	struct etwforge_error *err = etwforge_error_new();
	struct etwforge_file *f;
	struct etwforge_analysis *a = analyse(&f, dir, err);

	cr_expect_null(a);
	cr_expect_eq(errno, errnum, "errno %d, not %d", errno, errnum);
	cr_expect(strstr(etwforge_error_message(err), what), "%s: not in \"%s\"", what,
		  etwforge_error_message(err));
	etwforge_analysis_free(a);
	etwforge_file_close(f);
	etwforge_error_free(err);
}

Test(analysis_stacks, bad_stores_and_symbol_files_say_where)
{
	refused(test_path("none"), ENOENT, "none: cannot open");
	test_write("plain", "x", 1);
	refused(test_path("plain"), ENOTDIR, "not a folder");
	refused(store_with("FUNC 2c00 40 8 RtlUserThreadStart\n"), EINVAL,
		"ntdll.sym:1: not a Breakpad symbol file");
	refused(store_with("MODULE windows x86_64 00000000000000000000000000000000 ntdll.pdb\n"),
		EINVAL,
		"ntdll.sym:1: MODULE 00000000000000000000000000000000 is not the identifier");
	refused(store_with("MODULE windows x86_64 " NTDLL_ID " ntdll.pdb\nINFO CODE_ID 1\n"
			   "FUNC 2c00 4x0 8 RtlUserThreadStart\n"),
		EINVAL, "ntdll.sym:3: FUNC record: bad size");
	refused(store_with("MODULE windows x86_64 " NTDLL_ID " ntdll.pdb\nPUBLIC 3000 0 \n"),
		EINVAL, "ntdll.sym:2: PUBLIC record: bad name");
}

/* ---- dump --folded, --flamegraph, --chrome-trace, --symbols ------------------- */

static int dump(const char *args, char *err, size_t cap)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "dump '%s' %s", test_sample(P_FILE), args);
	return test_etwforge(cmd, err, cap);
}

static bool exists(const char *name)
{
	struct stat st;

	return stat(test_path(name), &st) == 0;
}

Test(analysis_stacks, folded_stacks_hold_every_sample)
{
	static char text[1 << 20];
	char err[512];
	const char *dir = store_with("MODULE windows x86_64 " NTDLL_ID " ntdll.pdb\n"
				     "FUNC 2c00 40 8 RtlUserThreadStart\n");
	unsigned long long sum = 0;
	unsigned lines = 0;
	FILE *in;
	char line[8192];

	(void)dir;
	cr_assert_eq(dump("--folded p.txt --symbols sym", err, sizeof(err)), 0, "%s", err);
	in = fopen(test_path("p.txt"), "r");
	cr_assert_not_null(in);
	while (fgets(line, sizeof(line), in)) {
		char *sp = strrchr(line, ' ');

		cr_assert_not_null(sp, "%s", line);
		sum += strtoull(sp + 1, NULL, 10);
		lines++;
	}
	fclose(in);
	cr_expect_eq(sum, 79528, "every sample once: %llu", sum);
	test_read("p.txt", text, sizeof(text));
	cr_expect(strstr(text, "\nsvchost.exe (1188);ntdll.dll!?;"), "ntdll+0x1c3f1: no FUNC");
	cr_expect(strstr(text, ";ntdll.dll!RtlUserThreadStart;"), "ntdll+0x2c1a: in the FUNC");
	cr_expect(strstr(text, "Idle (0);ntoskrnl.exe!? "));
	cr_expect_gt(lines, 100);
}

Test(analysis_stacks, flamegraph_draws_the_processes)
{
	static char svg[1 << 21];
	char err[512];

	cr_assert_eq(dump("--flamegraph p.svg", err, sizeof(err)), 0, "%s", err);
	test_read("p.svg", svg, sizeof(svg));
	cr_expect_eq(strncmp(svg, "<?xml", 5), 0);
	cr_expect(strstr(svg, "the whole trace: 79528 samples"));
	cr_expect(strstr(svg, ">Test.x64.exe (3676): 5126 samples<"), "its own graph");
	cr_expect(strstr(svg, "<title>Idle (0) (73313 samples, 92.19%)</title>"));
	cr_expect(strstr(svg, "</svg>\n"));
}

Test(analysis_stacks, chrome_trace_carries_the_sample_stacks)
{
	static char json[1 << 25];
	static const char phase_p[] = "\"ph\":\"P\"";
	char err[512];
	const char *sf;
	unsigned samples = 0;

	cr_assert_eq(dump("--chrome-trace p.json", err, sizeof(err)), 0, "%s", err);
	test_read("p.json", json, sizeof(json));
	/* one pass (strstr again from each hit is quadratic where a sanitizer checks the rest) */
	for (size_t i = 0, n = strlen(json), k = strlen(phase_p); i + k <= n; i++) {
		samples += json[i] == '"' && !memcmp(json + i, phase_p, k);
	}
	cr_expect_eq(samples, 79528);
	sf = strstr(json, "\"stackFrames\":{");
	cr_assert_not_null(sf);
	/* the DPC sample P b38+0xDA70's one frame, in a kernel module */
	cr_expect(strstr(json, "\"ip\":\"0xfffff880012c2070\""));
	cr_expect(strstr(sf, "\"category\":\"ntoskrnl.exe\""));
	cr_expect(strstr(sf, "\"parent\":\"S"));
}

Test(analysis_stacks, symbols_refused_before_anything_is_written)
{
	char err[512];

	cr_expect_eq(dump("--folded p.txt --symbols none", err, sizeof(err)), 2);
	cr_expect(strstr(err, "none: cannot open"), "%s", err);
	cr_expect_not(exists("p.txt"));
	cr_expect_eq(dump("--symbols sym", err, sizeof(err)), 2);
	cr_expect(strstr(err, "--symbols need"), "%s", err);
	store_with("MODULE windows x86_64 " NTDLL_ID " ntdll.pdb\nFUNC 2c00\n");
	cr_expect_eq(dump("--flamegraph p.svg --symbols sym", err, sizeof(err)), 1);
	cr_expect(strstr(err, "ntdll.sym:2: FUNC record: bad address"), "%s", err);
	cr_expect_not(exists("p.svg"));
}
