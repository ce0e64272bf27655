// SPDX-License-Identifier: MIT
/*
 * tests/test_verify.c - `etwforge verify` on the identity records: a file
 * from gen whose first session logs processes and threads, ready threads
 * and samples (with compact switches) verifies clean, as does a second
 * session with plain switches, spin locks and ready threads, and a third
 * with plain switches and the thread records; a Thread
 * record with one byte changed, a truth without one of its identity lines
 * (in the middle, or the last rundown), a truth line with one field
 * changed and a thread line swapped with a switch line each fail with exit 1
 * and one line naming the file offset, the truth line and the field.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_util.h"

TestSuite(verify, .init = test_dir_make, .fini = test_dir_remove);

/* plain: the tests below name the threads by their TIDs, numbered on from 4096 */
static const char scenario[] =
	"seed: 3\nduration: 60ms\n"
	"machine: {cpus: 2, arch: x64, target: win10-1709, realism: plain}\n"
	"sessions:\n"
	"  - {name: k, clock: qpc, flags: [cswitch, compact_cswitch, proc_thread, dispatcher, "
	"profile]}\n"
	"  - {name: b, clock: systime, flags: [cswitch, spinlock, dispatcher], file: b.etl}\n"
	"  - {name: p, clock: qpc, flags: [cswitch, proc_thread], file: p.etl}\n"
	"threads:\n"
	"  - {name: w, count: 3, priority: 8, behaviour: cpu_bound, lifetime: 20ms}\n"
	"  - {name: io, count: 2, behaviour: io_bound, period: 1ms}\n"
	"locks:\n"
	"  - {name: L, taken_by: [io, dpc], rate: 20000, hold: 1us}\n";

/* gen the scenario into d.etl (session k), b.etl, p.etl and d.jsonl. */
static void gen(void)
{
	test_write("s.yaml", scenario, strlen(scenario));
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q s.yaml -o d.etl --truth d.jsonl", test_dir,
			      test_bin()),
		     0);
}

/* verify @etl against @truth: its exit status, its standard error in @err. */
static int verify(const char *etl, const char *truth, char *err, size_t cap)
{
	char args[256];

	snprintf(args, sizeof(args), "verify -q %s --truth %s", etl, truth);
	return test_etwforge(args, err, cap);
}

static char *slurp(const char *name, size_t *len)
{
	FILE *f = fopen(test_path(name), "rb");
	char *buf;
	long n;

	cr_assert_not_null(f, "%s", name);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/*
 * d.jsonl into @out with its first line containing @match changed: dropped
 * (@from NULL), or its first @from replaced by @to. @nth picks the nth such
 * line (0: the first, -1: the last). Return: that line's number.
 */
static unsigned long edit_truth(const char *out, const char *match, int nth, const char *from,
				const char *to)
{
	size_t len;
	char *text = slurp("d.jsonl", &len);
	FILE *f = fopen(test_path(out), "wb");
	unsigned long line = 0, hit = 0;
	int seen = 0, total = 0;

	cr_assert_not_null(f);
	for (char *p = text; *p; p = strchr(p, '\n') + 1) {
		total += strstr(p, match) && strstr(p, match) < strchr(p, '\n');
	}
	if (nth < 0) {
		nth = total - 1;
	}
	for (char *p = text; *p;) {
		char *eol = strchr(p, '\n');
		char *m;

		cr_assert_not_null(eol);
		*eol = '\0';
		line++;
		m = strstr(p, match);
		if (m && seen++ == nth) {
			hit = line;
			if (from) {
				char *at = strstr(p, from);

				cr_assert_not_null(at, "line %lu has no %s", line, from);
				fwrite(p, 1, (size_t)(at - p), f);
				fputs(to, f);
				fputs(at + strlen(from), f);
				fputc('\n', f);
			}
		} else {
			fputs(p, f);
			fputc('\n', f);
		}
		p = eol + 1;
	}
	fclose(f);
	free(text);
	cr_assert_neq(hit, 0, "no line has %s", match);
	return hit;
}

Test(verify, identity_records_verify_clean)
{
	char err[2048], out[1024];

	gen();
	cr_assert_eq(test_run("cd '%s' && '%s' verify d.etl --truth d.jsonl >out.txt 2>err.txt",
			      test_dir, test_bin()),
		     0, "%s", test_read("err.txt", err, sizeof(err)));
	test_read("out.txt", out, sizeof(out));
	cr_assert(strstr(out, " identity records against d.jsonl"), "%s", out);
	cr_assert_null(strstr(out, " 0 identity records"), "%s", out);
	/* the second session gets the config, the ready lines; spin locks in between */
	cr_assert_eq(verify("b.etl", "d.jsonl", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(verify("p.etl", "d.jsonl", err, sizeof(err)), 0, "%s", err);
}

/* The file offset of the first Thread DCStart of a thread with a name (from dump --jsonl). */
static unsigned long thread_record(void)
{
	size_t len;
	char *text, *p;
	unsigned long off;

	cr_assert_eq(test_run("cd '%s' && '%s' dump --jsonl d.etl >d.dump", test_dir, test_bin()),
		     0);
	text = slurp("d.dump", &len);
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char *eol = strchr(p, '\n');
		char *tid = strstr(p, "\"tid\":4096,");

		if (strstr(p, "\"hook\":\"0x0503\"") && tid && (!eol || tid < eol)) {
			break;
		}
	}
	cr_assert(p && *p, "no Thread DCStart record of tid 4096");
	p = strstr(p, "\"offset\":");
	cr_assert_not_null(p);
	off = strtoul(p + 9, NULL, 10);
	free(text);
	return off;
}

Test(verify, one_byte_of_a_thread_record)
{
	char err[2048];
	unsigned long rec;
	size_t len;
	char *etl;
	int base;

	gen();
	rec = thread_record();
	etl = slurp("d.etl", &len);
	cr_assert_lt(rec + 0x20 + 0x44, len);
	base = etl[rec + 0x20 + 0x44]; /* BasePriority: SYSTEM header 0x20, x64 offset 0x44 */
	etl[rec + 0x20 + 0x44] = (char)(base + 1);
	test_write("e.etl", etl, len);
	free(etl);
	cr_assert_eq(verify("e.etl", "d.jsonl", err, sizeof(err)), 1);
	char want[128];
	snprintf(want, sizeof(want), "e.etl: offset 0x%lx: thread dcstart tid 4096: base_pri %d,",
		 rec + 0x20 + 0x44, base + 1);
	cr_assert(strstr(err, want), "%s", err);
	snprintf(want, sizeof(want), "says %d\n", base);
	cr_assert(strstr(err, want), "%s", err);
	cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
}

Test(verify, truth_without_an_identity_line)
{
	char err[2048];

	gen();
	/* tid 4100's DCStart: the file's record of it meets tid 4104's line */
	edit_truth("r.jsonl", "\"event\":\"dcstart\",\"ctx_tid\":4100", 0, NULL, NULL);
	cr_assert_eq(verify("d.etl", "r.jsonl", err, sizeof(err)), 1);
	cr_assert(strstr(err, "d.etl: offset 0x"), "%s", err);
	cr_assert(strstr(err, ": thread dcstart tid 4104: header ThreadId 4100, truth line "), "%s",
		  err);
	/* the last rundown: the file has one the truth does not */
	edit_truth("z.jsonl", "\"kind\":\"rundown\"", -1, NULL, NULL);
	cr_assert_eq(verify("d.etl", "z.jsonl", err, sizeof(err)), 1);
	cr_assert(strstr(err, "an identity record (hook 0x0008) the truth does not have"), "%s",
		  err);
}

Test(verify, truth_line_with_a_field_changed)
{
	char err[2048], want[128];
	unsigned long line;

	gen();
	line = edit_truth("f.jsonl", "\"event\":\"dcstart\",\"ctx_tid\":4100", 0, "\"base_pri\":8",
			  "\"base_pri\":7");
	cr_assert_eq(verify("d.etl", "f.jsonl", err, sizeof(err)), 1);
	snprintf(want, sizeof(want), ": thread dcstart tid 4100: base_pri 8, truth line %lu says 7",
		 line);
	cr_assert(strstr(err, want), "%s", err);

	line = edit_truth("g.jsonl", "\"kind\":\"process\"", 2, "\"sid\":\"S-1-5-18",
			  "\"sid\":\"S-1-5-22-1");
	cr_assert_eq(verify("d.etl", "g.jsonl", err, sizeof(err)), 1);
	snprintf(want, sizeof(want), ", truth line %lu says \"S-1-5-22-", line);
	cr_assert(strstr(err, want), "%s", err);
	cr_assert(strstr(err, ": process dcstart pid ") && strstr(err, ": sid \"S-1-5-18\""), "%s",
		  err);
	cr_assert(strstr(err, "S-1-5-22-"), "%s", err);

	edit_truth("m.jsonl", "\"kind\":\"masks\"", 1, "\"enabled\":true", "\"enabled\":false");
	cr_assert_eq(verify("d.etl", "m.jsonl", err, sizeof(err)), 1);
	cr_assert(strstr(err, ": masks new: Masks[0] 0x3, truth line "), "%s", err);
}

/* The value of @key ("cpu" or "ts") in the JSON line at @p, as its text, into @out. */
static void value_of(const char *p, const char *key, char *out, size_t cap)
{
	char k[16];
	const char *v, *e;

	snprintf(k, sizeof(k), "\"%s\":", key);
	v = strstr(p, k);
	cr_assert_not_null(v, "%s in %.80s", key, p);
	v += strlen(k);
	e = *v == '{' ? strchr(v, '}') + 1 : v + strcspn(v, ",}");
	cr_assert_lt((size_t)(e - v), cap);
	memcpy(out, v, (size_t)(e - v));
	out[e - v] = '\0';
}

/*
 * Session p logs plain switches and the thread records: a thread line and
 * the switch line after it on the same CPU at the same time, swapped, put
 * the Thread record after a switch the truth now says comes after it.
 */
Test(verify, identity_record_out_of_order)
{
	char err[2048], c1[16], c2[16], t1[128], t2[128];
	size_t len;
	char *text, *a = NULL, *b = NULL;
	FILE *f;

	gen();
	cr_assert_eq(verify("p.etl", "d.jsonl", err, sizeof(err)), 0, "%s", err);
	text = slurp("d.jsonl", &len);
	for (char *p = text; *p; p = strchr(p, '\n') + 1) {
		char *q = strchr(p, '\n') + 1;

		if (strncmp(p, "{\"kind\":\"thread\",", 17) ||
		    strncmp(q, "{\"kind\":\"cswitch\",", 18)) {
			continue;
		}
		value_of(p, "cpu", c1, sizeof(c1));
		value_of(q, "cpu", c2, sizeof(c2));
		value_of(p, "ts", t1, sizeof(t1));
		value_of(q, "ts", t2, sizeof(t2));
		if (!strcmp(c1, c2) && !strcmp(t1, t2)) {
			a = p;
			b = q;
			break;
		}
	}
	cr_assert_not_null(a, "no thread line before a switch of its CPU at its time");
	f = fopen(test_path("o.jsonl"), "wb");
	cr_assert_not_null(f);
	fwrite(text, 1, (size_t)(a - text), f);
	fwrite(b, 1, (size_t)(strchr(b, '\n') + 1 - b), f); /* the switch */
	fwrite(a, 1, (size_t)(b - a), f);		    /* the thread line */
	fputs(strchr(b, '\n') + 1, f);
	fclose(f);
	free(text);
	cr_assert_eq(verify("p.etl", "o.jsonl", err, sizeof(err)), 1);
	cr_assert(strstr(err, "p.etl: offset 0x"), "%s", err);
	cr_assert(strstr(err, ": thread "), "%s", err);
	cr_assert(strstr(err, "switch or spin-lock records of cpu "), "%s", err);
	/* the compact session cannot tell: the switch is inside a batch written later */
	cr_assert_eq(verify("d.etl", "o.jsonl", err, sizeof(err)), 0, "%s", err);
}
