/* SPDX-License-Identifier: MIT */
/*
 * tests/test_truth_fast.c - the truth reader's fast path (tools/lib/truth_fast.c)
 * against its oracle, the jansson path: every stream here is read twice,
 * with the fast path and without it, and the two must give the same
 * records and the same errors. Then what the fast path must accept itself
 * (keys in any order, unknown keys, every extension), the line reader's
 * edges (long lines, NULs, no final newline, block boundaries) and the
 * writer's integer formatter and string escapes at their limits.
 *
 * Stream texts use ' for " (put_file() swaps them).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etwforge/etwforge.h"
#include "tests/truth_step.h"
#include "tools/lib/truth/truth.h"
#include "tools/lib/truth/truth_fast.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_truth_fast.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/case.jsonl", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
}

TestSuite(truth_fast, .init = setup, .fini = teardown, .timeout = 60.);

static void put_raw(const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

/* @text with ' for ", into the case file. */
static void put_file(const char *text)
{
	char *t = strdup(text);

	cr_assert_not_null(t);
	for (char *p = t; *p; p++) {
		*p = *p == '\'' ? '"' : *p;
	}
	put_raw(t, strlen(t));
	free(t);
}

/*
 * Read the case file with and without the fast path; they must agree
 * record by record, error by error. Return: the records read before EOF
 * or the error (the error's rc in *@last).
 */
static unsigned read_both(const char *what, int *last)
{
	struct trace_config ca, cb;
	struct etwforge_error ea = {0}, eb = {0};
	struct truth_reader *fast = truth_open(path, &ca, &ea);
	struct truth_reader *slow = truth_open(path, &cb, &eb);
	unsigned n = 0;

	cr_assert_eq(!fast, !slow, "%s", what);
	if (!fast) {
		cr_assert_str_eq(ea.msg, eb.msg, "%s", what);
		*last = -EINVAL;
		return 0;
	}
	truth_reader_fast(slow, false);
	for (;;) {
		static struct truth_step a, b;

		truth_step_next(fast, &a);
		truth_step_next(slow, &b);
		cr_assert_eq(a.rc, b.rc, "%s: record %u: fast %d (%s), jansson %d (%s)", what, n,
			     a.rc, a.e.msg, b.rc, b.e.msg);
		if (a.rc < 0) {
			cr_assert_str_eq(a.e.msg, b.e.msg, "%s", what);
			*last = a.rc;
			break;
		}
		cr_assert_eq(a.rec.line, b.rec.line, "%s", what);
		cr_assert_str_eq(a.name, b.name, "%s", what);
		cr_assert(!memcmp(&a.rec, &b.rec, sizeof(a.rec)), "%s: record %u differs", what, n);
		if (a.rc == TRUTH_EOF) {
			*last = 0;
			break;
		}
		n++;
	}
	truth_close(fast);
	truth_close(slow);
	return n;
}

#define META                                                                                       \
	"{'kind':'meta','format':'etwforge-truth','version':1,'cpus':4,"                           \
	"'sessions':[{'name':'q','flags':['cswitch','compact_cswitch','spinlock']}]}\n"
#define META2                                                                                      \
	"{'kind':'meta','format':'etwforge-truth','version':1,'cpus':2,'target':'win11-22h2',"     \
	"'sessions':[{'name':'q','pebs':true,'pmc':{'counters':['A','B'],'events':['0x0525']}},"   \
	"{'name':'p','clock':'cycles','flags':['cswitch','spinlock'],"                             \
	"'pmc':{'counters':['B','C','C'],'events':['0x0524','0x0529']}}]}\n"
#define META86                                                                                     \
	"{'kind':'meta','format':'etwforge-truth','version':1,'arch':'x86',"                       \
	"'sessions':[{'flags':['spinlock']}]}\n"
#define CS  "{'kind':'cswitch','cpu':1,'tick':2,'ts':{'qpc':30},'old_tid':4,'new_tid':5"
#define CS2 "{'kind':'cswitch','cpu':1,'tick':2,'ts':{'qpc':30,'cycles':9},'old_tid':4,'new_tid':5"
#define SL  "{'kind':'spinlock','cpu':0,'ts':{'qpc':40},'lock':'0x10','caller':'0x20','logged':true"

/* Lines after a meta line: good ones, bad ones, odd ones. */
static const char *const cases[] = {
	/* keys in any order, whitespace everywhere, extra keys */
	META CS "}\n",
	META "{'new_tid':5,'old_tid':4,'ts':{'qpc':30},'tick':2,'cpu':1,'kind':'cswitch'}\n",
	META " \t{ 'kind' : 'cswitch' ,\t'cpu':1 ,'tick' :2,'ts':{ 'qpc' : 30 },'old_tid':4,"
	     "'new_tid':5 } \r\n",
	META CS ",'x':{'a':[1,{'b':null}],'c':'d'},'y':[],'z':{},'w':-0,'v':true,'u':false}\n",
	META CS ",'':1}\n",
	META CS ",'old_pri':31,'old_base_pri':0,'old_state':5,'old_wait_reason':39,"
		"'old_wait_mode':1,'old_ideal_cpu':4294967295,'old_remaining_quantum':"
		"-9223372036854775808,'old_qos':7,'prev_cstate':255,'old_rank':4294967295,"
		"'new_pri':0,'new_pri_decrement':-128,'new_wait_ticks':4294967295,'new_qos':7,"
		"'pebs_index':'0xFFFFffffFFFFffff'}\n",
	META CS ",'pebs_index':9223372036854775807}\n",
	META CS ",'pebs_index':'0x0000000000000000000001'}\n",
	META CS ",'lock':5,'why':7,'clock':[],'group':{}}\n", /* other kinds' keys: ignored */
	/* values the jansson path refuses */
	META CS ",'old_pri':32}\n",
	META CS ",'old_pri':-1}\n",
	META CS ",'old_pri':'9'}\n",
	META CS ",'old_pri':null}\n",
	META CS ",'old_pri':9.0}\n",
	META CS ",'old_pri':1e1}\n",
	META CS ",'old_state':5,'old_wait_reason':40}\n",
	META CS ",'pebs_index':-1}\n",
	META CS ",'pebs_index':'0x'}\n",
	META CS ",'pebs_index':'0x10000000000000000'}\n",
	META CS ",'pebs_index':'1x10'}\n",
	META CS ",'pebs_index':true}\n",
	META CS ",'tick':3}\n",
	META CS ",'cpu':1}\n",
	META "{'kind':'cswitch','cpu':4,'tick':2,'ts':{'qpc':30},'old_tid':4,'new_tid':5}\n",
	META "{'kind':'cswitch','cpu':1,'tick':4294967296,'ts':{'qpc':30},'old_tid':4,"
	     "'new_tid':5}\n",
	META "{'kind':'cswitch','cpu':1,'tick':2,'ts':{'qpc':30},'new_tid':5}\n",
	META "{'kind':'cswitch','cpu':1,'tick':2,'ts':{},'old_tid':4,'new_tid':5}\n",
	META "{'kind':'cswitch','cpu':1,'tick':2,'ts':{'qpc':30,'qpc':31},'old_tid':4,"
	     "'new_tid':5}\n",
	META "{'kind':'cswitch','cpu':1,'tick':2,'ts':{'qpx':30},'old_tid':4,'new_tid':5}\n",
	META "{'kind':'cswitch','cpu':1,'tick':2,'ts':{'qpc':-30},'old_tid':4,'new_tid':5}\n",
	META "{'kind':'cswitch','cpu':1,'tick':2,'ts':[30],'old_tid':4,'new_tid':5}\n",
	META "{'kind':'cswitch','cpu':1,'tick':2,'ts':{'qpc':30,'systime':7},'old_tid':4,"
	     "'new_tid':5}\n",
	META CS "}\n" CS ",'ts':{'qpc':29}}\n",
	META CS "}\n" CS ",'tick':1}\n",
	/* syntax: jansson's message and column */
	META CS ",}\n",
	META CS "\n",
	META CS ",'a':1,'a':2}\n",
	META CS ",'x':{'a':1,'a':2}}\n",
	META CS ",'kind':'cswitch'}\n",
	META CS ",'x':tru}\n",
	META CS ",'x':truex}\n",
	META CS ",'x':nul}\n",
	META CS ",'x':01}\n",
	META CS ",'x':-}\n",
	META CS ",'x':1.}\n",
	META CS ",'x':9223372036854775808}\n",
	META CS ",'x':-9223372036854775809}\n",
	META CS ",'x':99999999999999999999999}\n",
	META CS ",'x':1e999}\n",
	META CS ",'x':[1,2,]}\n",
	META CS ",'x':'a\\'b'}\n",
	META CS ",'x':'\\u00e9'}\n",
	META CS ",'x':'\\u0000'}\n",
	META CS ",'x':'\xc3\xa9'}\n",
	META CS ",'x':'\xff'}\n",
	META CS ",'x':'\x01'}\n",
	META CS ",'x\\n':1}\n",
	META CS "} x\n",
	META CS "}}\n",
	META CS "} {}\n",
	META "[" CS "}]\n",
	META "{}\n",
	META "{'kind':5}\n",
	META "{'kind':'meta'}\n",
	META "{'kind':'cswitch'\n",
	META "{'kind'\n",
	META "{\n",
	META "'kind'\n",
	META "\xEF\xBB\xBF" CS "}\n",
	/* deep nesting */
	META CS
	",'x':[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}\n",
	META CS ",'x':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':{'a':"
		"{'a':{'a':{'a':{'a':{'a':1}}}}}}}}}}}}}}}}}}}}\n",
	META CS ",'a1':1,'a2':1,'a3':1,'a4':1,'a5':1,'a6':1,'a7':1,'a8':1,'a9':1,'a10':1,"
		"'a11':1,'a12':1,'a13':1,'a14':1,'a15':1,'a16':1,'a17':1,'a17':1}\n",
	/* spin locks and their extensions */
	META SL "}\n",
	META SL ",'tick':9,'acquire_time':1,'release_time':2,'wait_cycles':3,'spin_count':4,"
		"'tid':5,'interrupt_count':6,'irql':31,'depth':255,'mode':63,'dpc':true,"
		"'isr':false,'why':'acquire_sample','name':'nt!PfnLock','acquire_count':7,"
		"'contention_count':8,'untracked':true,'guarded':false}\n",
	META SL
	",'name':'0123456789012345678901234567890123456789012345678901234567890123456789'}\n",
	META SL ",'name':''}\n",
	META SL ",'name':5}\n",
	META SL ",'why':'long'}\n",
	META SL ",'why':3}\n",
	META SL ",'depth':0}\n",
	META SL ",'dpc':1}\n",
	META SL ",'logged':null}\n",
	META "{'kind':'spinlock','cpu':0,'ts':{'qpc':40},'caller':'0x20','logged':true}\n",
	META "{'kind':'spinlock','cpu':0,'ts':{'qpc':40},'lock':'0x1','caller':32,'logged':true}\n",
	META CS "}\n{'kind':'spinlock','cpu':1,'ts':{'qpc':40},'lock':'0x1','caller':'0x2',"
		"'logged':false}\n",
	META86 "{'kind':'spinlock','cpu':0,'ts':{'qpc':1},'lock':'0xffffffff','caller':'0x0',"
	       "'logged':true}\n",
	META86 "{'kind':'spinlock','cpu':0,'ts':{'qpc':1},'lock':'0x100000000','caller':'0x0',"
	       "'logged':true}\n",
	/* pmc: lists, objects, sessions that do not stamp */
	META2 CS2 ",'pmc':[1,2]}\n",
	META2 CS2 ",'pmc':[1]}\n",
	META2 CS2 ",'pmc':[1,2,3]}\n",
	META2 CS2 ",'pmc':[1,-2]}\n",
	META2 CS2 ",'pmc':[1,'2']}\n",
	META2 CS2 ",'pmc':{'q':[1,2],'p':[2,3,3]}}\n",
	META2 CS2 ",'pmc':{'p':[2,3,3],'x':{'y':1},'q':[1,2]}}\n",
	META2 CS2 ",'pmc':{'q':[1,2],'p':[9,3,3]}}\n",
	META2 CS2 ",'pmc':{'q':[1,2],'p':[2,3,4]}}\n",
	META2 CS2 ",'pmc':{'q':[1,2]}}\n",
	META2 CS2 ",'pmc':{'q':[1,2],'p':7}}\n",
	META2 CS2 ",'pmc':{'q':[1,2],'p':[2,3,3],'q':[1,2]}}\n",
	META2 CS2 ",'pmc':7}\n",
	META2 CS2 ",'pmc':[]}\n",
	META2 CS2 ",'pebs_index':'0x40'}\n",
	META2 "{'kind':'spinlock','cpu':1,'ts':{'qpc':40,'cycles':41},'lock':'0x1',"
	      "'caller':'0x2','logged':true,'pmc':[5,6,6]}\n",
	META2 "{'kind':'spinlock','cpu':1,'ts':{'qpc':40,'cycles':41},'lock':'0x1',"
	      "'caller':'0x2','logged':true,'pmc':{'p':[5,6,6]}}\n",
	META CS ",'pmc':'anything: nobody stamps'}\n",
	/* the other kinds, with and without their optional keys */
	META CS "}\n{'kind':'thread','tid':4100,'group':'pool','event':'start','tick':3,"
		"'ts':{'qpc':31}}\n",
	META CS "}\n{'kind':'thread','tid':4100,'group':'pool','event':'exit'}\n",
	META CS "}\n{'kind':'thread','tid':4100,'group':'pool','event':'stop'}\n",
	META CS "}\n{'kind':'thread','tid':4100,'group':7,'event':'exit'}\n",
	META CS "}\n{'kind':'thread','group':'g','event':'exit'}\n",
	META CS "}\n{'kind':'ccswap_stop','clock':'qpc'}\n",
	META CS "}\n{'kind':'ccswap_stop','clock':'cycles','tick':9,'ts':{'cycles':5}}\n",
	META CS "}\n{'kind':'ccswap_stop','clock':'tsc'}\n",
	META CS "}\n{'kind':'ccswap_stop'}\n",
	META CS "}\n{'kind':'end'}\n",
	META CS "}\n{'kind':'end','tick':2,'ts':{'qpc':30}}\n",
	META CS "}\n{'kind':'end','tick':1}\n",
	META CS "}\n{'kind':'end','ts':{'qpc':29}}\n",
	META CS "}\n{'kind':'end'}\n" CS "}\n",
	META CS "}\n{'kind':'end'}\n\n\n",
	META CS "}\n\n" CS "}\n",
	META CS "}\r\n\r\n",
	META CS "}", /* no final newline */
	META CS "}\r\r\n",
	META "{'kind':'cswap'}\n",
	META CS ",'old_wiat_reason':3}\n",
	META CS ",'x_mine':{'a':[1]}}\n",
	META "{'kind':'end','tss':{}}\n",
};

Test(truth_fast, agrees_with_jansson_on_every_case)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char what[32];
		int last;

		snprintf(what, sizeof(what), "case %zu", i);
		put_file(cases[i]);
		read_both(what, &last);
	}
}

Test(truth_fast, agrees_on_nul_bytes_and_truncated_lines)
{
	static const char base[] =
		"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1}\n"
		"{\"kind\":\"cswitch\",\"cpu\":1,\"tick\":2,\"ts\":{\"qpc\":3},"
		"\"old_tid\":4,\"new_tid\":5,\"name\":\"abc\"}\n";
	size_t meta = strchr(base, '\n') - base + 1, len = sizeof(base) - 1;
	char buf[sizeof(base)];

	/* a NUL at every position of the record line, and the line cut at every length */
	for (size_t i = meta; i < len; i++) {
		char what[32];
		int last;

		memcpy(buf, base, len);
		buf[i] = '\0';
		put_raw(buf, len);
		snprintf(what, sizeof(what), "NUL at %zu", i);
		read_both(what, &last);
		put_raw(base, i);
		snprintf(what, sizeof(what), "cut at %zu", i);
		read_both(what, &last);
	}
}

/* A stream of @n switches with a @pad-byte unknown string on each, and the meta line. */
static void put_big(unsigned n, size_t pad)
{
	FILE *f = fopen(path, "w");
	char *s = malloc(pad + 1);

	cr_assert_not_null(f);
	cr_assert_not_null(s);
	memset(s, 'x', pad);
	s[pad] = '\0';
	fputs("{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":2}\n", f);
	for (unsigned i = 0; i < n; i++) {
		fprintf(f,
			"{\"kind\":\"cswitch\",\"cpu\":%u,\"tick\":%u,\"ts\":{\"qpc\":%u},"
			"\"old_tid\":%u,\"new_tid\":%u,\"x_pad\":\"%s\"}\n",
			i % 2, i, 1000 + i, i, i + 1, s);
	}
	cr_assert_eq(fclose(f), 0);
	free(s);
}

Test(truth_fast, lines_across_blocks_and_longer_than_a_block)
{
	int last;

	/* 200 k lines of ~100 bytes: lines straddle the 1 MiB reads */
	put_big(200000, 10);
	cr_expect_eq(read_both("block boundaries", &last), 200001); /* + the end */
	cr_expect_eq(last, 0);
	/* lines of 3 MiB: the buffer grows */
	put_big(3, 3u << 20);
	cr_expect_eq(read_both("long lines", &last), 4);
	cr_expect_eq(last, 0);
}

/* ---- a file mapped, and the same bytes read in blocks ---------------------- */

/*
 * @len bytes of @text as the case file, read twice: by path (a regular
 * file: mapped) and from memory (fmemopen: read in blocks, as standard
 * input is). Both with the fast path, then both without it: the same
 * records and the same errors, message for message. Return: the records.
 */
static unsigned read_mapped_and_blocks(const char *what, const char *text, size_t len)
{
	unsigned n = 0;

	put_raw(text, len);
	for (int fast_on = 1; fast_on >= 0; fast_on--) {
		struct trace_config ca, cb;
		struct etwforge_error ea = {0}, eb = {0};
		struct truth_reader *mapped = truth_open(path, &ca, &ea);
		struct truth_reader *blocks = truth_open_mem(path, text, len, &cb, &eb);

		n = 0;
		cr_assert_eq(!mapped, !blocks, "%s", what);
		if (!mapped) {
			cr_assert_str_eq(ea.msg, eb.msg, "%s", what);
			return 0;
		}
		truth_reader_fast(mapped, fast_on);
		truth_reader_fast(blocks, fast_on);
		for (;;) {
			static struct truth_step a, b;

			truth_step_next(mapped, &a);
			truth_step_next(blocks, &b);
			cr_assert_eq(a.rc, b.rc, "%s: record %u: mapped %d (%s), blocks %d (%s)",
				     what, n, a.rc, a.e.msg, b.rc, b.e.msg);
			if (a.rc < 0) {
				cr_assert_str_eq(a.e.msg, b.e.msg, "%s", what);
				break;
			}
			cr_assert_eq(a.rec.line, b.rec.line, "%s", what);
			cr_assert_str_eq(a.name, b.name, "%s", what);
			cr_assert(!memcmp(&a.rec, &b.rec, sizeof(a.rec)), "%s: record %u differs",
				  what, n);
			if (a.rc == TRUTH_EOF) {
				break;
			}
			n++;
		}
		truth_close(mapped);
		truth_close(blocks);
	}
	return n;
}

/* gen's switch line (the template's text) with these values. */
static size_t gen_line(char *s, size_t cap, unsigned cpu, unsigned long long qpc, unsigned tid)
{
	int n = snprintf(s, cap,
			 "{\"kind\":\"cswitch\",\"cpu\":%u,\"tick\":7,\"ts\":{\"qpc\":%llu},"
			 "\"old_tid\":%u,\"old_pri\":8,\"old_base_pri\":8,\"old_state\":5,"
			 "\"old_wait_reason\":0,\"old_wait_mode\":0,\"old_ideal_cpu\":1,"
			 "\"old_remaining_quantum\":-91500,\"old_qos\":1,\"prev_cstate\":0,"
			 "\"old_rank\":0,\"new_tid\":%u,\"new_pri\":9,\"new_pri_decrement\":1,"
			 "\"new_wait_ticks\":0,\"new_qos\":1}\n",
			 cpu, qpc, tid, tid + 4);

	cr_assert(n > 0 && (size_t)n < cap);
	return (size_t)n;
}

Test(truth_fast, a_mapped_file_reads_as_the_same_bytes_in_blocks)
{
	static const char meta[] =
		"{\"kind\":\"meta\",\"format\":\"etwforge-truth\",\"version\":1,\"cpus\":2}\n";
	long page = sysconf(_SC_PAGESIZE);
	size_t cap = 3u << 20, len = 0, cut[8];
	char *text = malloc(cap), line[512];
	unsigned ncut = 0, lines = 0;

	cr_assert(page > 0);
	cr_assert_not_null(text);
	memcpy(text, meta, sizeof(meta) - 1);
	len = sizeof(meta) - 1;
	/* past 1 MiB, so the block reader's lines straddle its reads */
	while (len < (size_t)page * 300) {
		size_t n = gen_line(line, sizeof(line), lines % 2, 1000 + lines, 4 * lines);

		memcpy(text + len, line, n);
		len += n;
		lines++;
	}
	cr_expect_eq(read_mapped_and_blocks("whole", text, len), lines + 1);
	/* ending exactly at a page's end (the pad then lies in the next page), with the
	 * line cut there, with its newline there, and one byte either side */
	for (size_t at = (size_t)page * 64; at < (size_t)page * 64 + 3; at++) {
		cut[ncut++] = at - 1;
		cut[ncut++] = at;
	}
	cut[ncut++] = len - 1; /* no final newline */
	for (unsigned i = 0; i < ncut; i++) {
		char what[64];

		snprintf(what, sizeof(what), "cut at %zu", cut[i]);
		read_mapped_and_blocks(what, text, cut[i]);
	}
	/* a newline at a page's end exactly: blank lines padding the last line to it */
	{
		size_t at = (size_t)page * 64, nl = at;

		while (nl > 0 && text[nl - 1] != '\n') {
			nl--;
		}
		memset(text + nl, '\n', at - nl);
		read_mapped_and_blocks("blank lines to a page's end", text, at);
		memset(text + nl, ' ', at - nl - 1);
		text[at - 1] = '\n';
		read_mapped_and_blocks("spaces to a page's end", text, at);
	}
	/* a NUL early, late, and last: the first one is said, at its offset */
	for (unsigned i = 0; i < 3; i++) {
		size_t at = i == 0 ? 100 : i == 1 ? (size_t)page * 200 + 17 : len - 1;
		char was = text[at], what[64];

		text[at] = '\0';
		snprintf(what, sizeof(what), "NUL at %zu", at);
		read_mapped_and_blocks(what, text, len);
		text[at] = was;
	}
	free(text);
}

/* The truth of tools/scenarios/@yaml run for @ms, at @truth (its ETL files beside it). */
static void gen_truth(const char *yaml, unsigned ms, const char *etl, const char *truth)
{
	struct etwforge_scenario *sc = etwforge_scenario_new();
	struct etwforge_summary *sum = etwforge_summary_new();
	struct etwforge_error *err = etwforge_error_new();
	ETWFORGE_OPTS(etwforge_run_opts, o, .output = etl, .truth = truth);
	char dur[64], file[4096];

	cr_assert(sc && sum && err);
	snprintf(file, sizeof(file), "%s/../tools/scenarios/%s", SOURCE_DIR, yaml);
	cr_assert_eq(etwforge_scenario_load_file(sc, file, err), 0, "%s",
		     etwforge_error_message(err));
	snprintf(dur, sizeof(dur), "duration=%ums", ms);
	cr_assert_eq(etwforge_scenario_set(sc, dur, err), 0, "%s", etwforge_error_message(err));
	cr_assert_eq(etwforge_generate(sc, &o, sum, err), 0, "%s", etwforge_error_message(err));
	etwforge_error_free(err);
	etwforge_summary_free(sum);
	etwforge_scenario_free(sc);
}

/*
 * Every example scenario's truth (PMC lists, PEBS indexes, three clocks,
 * spin locks, identity lines), read as replay and verify read it - mapped,
 * the fast path first - and read in blocks with jansson alone: the same
 * records, line for line.
 */
Test(truth_fast, every_scenario_truth_reads_as_jansson_reads_it)
{
	static const char *const yaml[] = {"desktop.yaml", "server64.yaml", "lock_driver.yaml",
					   "lock_contention.yaml", "multi_clock.yaml"};
	char etl[160], truth[160];

	for (size_t i = 0; i < sizeof(yaml) / sizeof(yaml[0]); i++) {
		struct trace_config ca, cb;
		struct etwforge_error ea = {0}, eb = {0};
		struct truth_reader *mapped, *blocks;
		unsigned n = 0, switches = 0;
		char *text;
		size_t len;
		FILE *f;

		snprintf(etl, sizeof(etl), "%s/s.etl", dir);
		snprintf(truth, sizeof(truth), "%s/s.jsonl", dir);
		gen_truth(yaml[i], 150, etl, truth);
		f = fopen(truth, "rb");
		cr_assert_not_null(f);
		cr_assert_eq(fseek(f, 0, SEEK_END), 0);
		len = (size_t)ftell(f);
		rewind(f);
		text = malloc(len);
		cr_assert(text && fread(text, 1, len, f) == len);
		fclose(f);
		mapped = truth_open(truth, &ca, &ea);
		blocks = truth_open_mem(truth, text, len, &cb, &eb);
		cr_assert(mapped && blocks, "%s: %s %s", yaml[i], ea.msg, eb.msg);
		truth_reader_fast(blocks, false);
		for (;;) {
			static struct truth_step a, b;

			truth_step_next(mapped, &a);
			truth_step_next(blocks, &b);
			cr_assert_eq(a.rc, b.rc, "%s: record %u: fast %d (%s), jansson %d (%s)",
				     yaml[i], n, a.rc, a.e.msg, b.rc, b.e.msg);
			cr_assert_geq(a.rc, 0, "%s: %s", yaml[i], a.e.msg);
			cr_assert_eq(a.rec.line, b.rec.line, "%s", yaml[i]);
			cr_assert_str_eq(a.name, b.name, "%s", yaml[i]);
			cr_assert(!memcmp(&a.rec, &b.rec, sizeof(a.rec)), "%s: line %lu differs",
				  yaml[i], a.rec.line);
			if (a.rc == TRUTH_EOF) {
				break;
			}
			switches += a.rc == TRUTH_CSWITCH;
			n++;
		}
		cr_expect_gt(n, 100, "%s: %u records", yaml[i], n);
		cr_expect_gt(switches, 0, "%s: %u switches", yaml[i], switches);
		truth_close(mapped);
		truth_close(blocks);
		free(text);
		for (unsigned k = 0; k < 4; k++) {
			char name[160];

			snprintf(name, sizeof(name), k ? "%s/s-%u.etl" : "%s/s.etl", dir, k + 1);
			unlink(name);
		}
		unlink(truth);
	}
}

/* ---- what the fast path reads itself ---------------------------------------- */

static struct trace_config fast_cfg;
static struct truth_fast fx;

static void fast_setup(const char *meta)
{
	struct etwforge_error e = {0};
	struct truth_reader *r;

	setup();
	put_file(meta);
	r = truth_open(path, &fast_cfg, &e);
	cr_assert_not_null(r, "%s", e.msg);
	truth_close(r);
	truth_fast_init(&fx, &fast_cfg);
}

/* @line (' for ") read by the fast path alone. Return: the kind, 0 declined. */
static int fast(const char *line, struct truth_record *rec, struct truth_fast_opt *opt)
{
	static char buf[4096];
	size_t n = strlen(line);

	cr_assert(n < sizeof(buf));
	memset(rec, 0, sizeof(*rec)); /* as truth_next does */
	for (size_t i = 0; i <= n; i++) {
		buf[i] = line[i] == '\'' ? '"' : line[i];
	}
	return truth_fast_line(&fx, buf, n, rec, opt);
}

Test(truth_fast, reads_any_key_order_unknown_keys_and_whitespace)
{
	struct truth_record rec;
	struct truth_fast_opt opt;

	fast_setup(META2);
	cr_assert_eq(fast("{ 'x_x' : [ {'y':[]} , 'z' ] , 'new_tid':5,'ts':{'cycles':9,'qpc':30},"
			  "'pmc':{'p':[2,3,3],'q':[1,2]},'old_tid':4 ,\t'tick':2,'cpu':1,"
			  "'pebs_index':'0xAbC','kind':'cswitch','x_note':null }",
			  &rec, &opt),
		     TRUTH_CSWITCH);
	cr_expect_eq(rec.u.cs.cpu, 1);
	cr_expect_eq(rec.u.cs.tick, 2);
	cr_expect_eq(rec.u.cs.ts[SIM_CLOCK_QPC], 30);
	cr_expect_eq(rec.u.cs.ts[SIM_CLOCK_CYCLES], 9);
	cr_expect_eq(rec.u.cs.old_tid, 4);
	cr_expect_eq(rec.u.cs.new_tid, 5);
	cr_expect_eq(rec.u.cs.pebs_index, 0xabc);
	cr_expect_eq(rec.u.cs.pmc[0], 1, "A from q");
	cr_expect_eq(rec.u.cs.pmc[1], 2, "B from q and p");
	cr_expect_eq(rec.u.cs.pmc[2], 3, "C from p, twice");
	cr_expect_eq(opt.ts, 1u << SIM_CLOCK_QPC | 1u << SIM_CLOCK_CYCLES);
}

Test(truth_fast, reads_every_spinlock_extension)
{
	struct truth_record rec;
	struct truth_fast_opt opt;

	fast_setup(META2);
	cr_assert_eq(fast(SL ",'ts':{'qpc':1,'cycles':2},'why':'hold','name':'ndis!RxQueueLock',"
			     "'acquire_count':4000000000,'contention_count':12,'untracked':true,"
			     "'guarded':true,'pmc':{'p':[7,8,8]}}",
			  &rec, &opt),
		     0, "a duplicate ts is declined");
	cr_assert_eq(fast("{'kind':'spinlock','cpu':1,'ts':{'qpc':1,'cycles':2},'lock':'0x10',"
			  "'caller':'0x20','logged':true,'why':'hold','name':'ndis!RxQueueLock',"
			  "'acquire_count':4000000000,'contention_count':12,'untracked':true,"
			  "'guarded':true,'pmc':{'p':[7,8,8]}}",
			  &rec, &opt),
		     TRUTH_SPINLOCK);
	cr_expect_eq(rec.u.sl.why, SIM_SPIN_HOLD);
	cr_expect_eq(rec.u.sl.depth, 1, "the default depth");
	cr_expect_eq(rec.u.sl.acquire_count, 4000000000u);
	cr_expect_eq(rec.u.sl.contention_count, 12);
	cr_expect(rec.u.sl.untracked && rec.u.sl.guarded && rec.u.sl.logged);
	cr_expect_eq(rec.u.sl.pmc[1], 7);
	cr_expect_eq(rec.u.sl.pmc[2], 8);
	cr_expect_eq(opt.name_len, 16);
	cr_expect(!memcmp(opt.name, "ndis!RxQueueLock", 16));
	cr_expect_not(opt.tick, "tick defaults to the CPU's");
}

Test(truth_fast, reads_thread_stop_and_end_lines)
{
	struct truth_record rec;
	struct truth_fast_opt opt;

	fast_setup(META);
	cr_assert_eq(fast("{'kind':'thread','cpu':1,'ts':{'qpc':4},'event':'end','pid':512,"
			  "'tid':4176}",
			  &rec, &opt),
		     TRUTH_THREAD);
	cr_expect_eq(rec.u.thread.event, SIM_EVENT_END);
	cr_expect_eq(rec.u.thread.tid, 4176);
	cr_expect_eq(rec.u.thread.pid, 512);
	cr_expect_eq(rec.u.thread.base_pri, 8, "the default base priority");
	cr_expect_eq(fast("{'kind':'thread','cpu':1,'ts':{'qpc':4},'event':'exit','pid':512,"
			  "'tid':4176}",
			  &rec, &opt),
		     0, "not a thread event: declined (the jansson path names it)");
	cr_assert_eq(fast("{'kind':'thread','cpu':1,'ts':{'qpc':4},'event':'dcstart','pid':512,"
			  "'tid':4176,'name':'worker'}",
			  &rec, &opt),
		     TRUTH_THREAD,
		     "a string of an identity line: read, handed back for the reader");
	cr_assert_eq(opt.ntext, 1);
	cr_expect_eq(opt.text[0].to, &rec.u.thread.name, "for the member it belongs to");
	cr_expect_eq(opt.text[0].n, 6);
	cr_expect(!memcmp(opt.text[0].s, "worker", 6));
	cr_expect_eq(fast("{'kind':'thread','cpu':1,'ts':{'qpc':4},'event':'dcstart','pid':512,"
			  "'tid':4176,'name':'w\\u00e9'}",
			  &rec, &opt),
		     0, "an escaped string: declined (the jansson path reads it)");
	cr_assert_eq(fast("{'kind':'ccswap_stop','tick':3,'ts':{'qpc':5},'clock':'systime'}", &rec,
			  &opt),
		     TRUTH_CCSWAP_STOP);
	cr_expect_eq(rec.u.stop.clock, SIM_CLOCK_SYSTIME);
	cr_expect(opt.tick);
	cr_assert_eq(fast("{'kind':'end','tick':640,'ts':{'qpc':99999999}}", &rec, &opt),
		     TRUTH_END);
	cr_expect_eq(rec.u.end.tick, 640);
	cr_expect_eq(rec.u.end.ts[SIM_CLOCK_QPC], 99999999);
}

Test(truth_fast, declines_what_it_cannot_read_with_certainty)
{
	static const char *const lines[] = {
		CS ",'x_x':'esc\\\\aped'}",
		CS ",'x_x':'caf\xc3\xa9'}",
		CS ",'x_x':1.5}",
		CS ",'x_x':9223372036854775808}",
		CS ",'old_pri':40}",
		/* a field the kind does not have: the jansson path names it */
		CS ",'old_wiat_reason':3}",
		CS ",'lock':'0x1'}",
		CS ",'x':1}",
		CS "}x",
		CS ",}",
	};
	struct truth_record rec;
	struct truth_fast_opt opt;

	fast_setup(META);
	cr_assert_eq(fast(CS "}", &rec, &opt), TRUTH_CSWITCH);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		cr_expect_eq(fast(lines[i], &rec, &opt), 0, "%s", lines[i]);
	}
}

/* ---- the writer at its limits ------------------------------------------------ */

Test(truth_fast, integers_are_written_as_printf_writes_them)
{
	static const uint64_t edges[] = {0,
					 9,
					 10,
					 99,
					 100,
					 9999,
					 10000,
					 99999999,
					 100000000,
					 4294967295u,
					 4294967296u,
					 9999999999999999u,
					 10000000000000000u,
					 99999999999999999u,
					 100000000000000000u,
					 9223372036854775807u,
					 10000000000000000000u,
					 18446744073709551615u};
	struct trace_config cfg;
	uint64_t x = 0x9E3779B97F4A7C15u;

	trace_config_defaults(&cfg);
	cfg.nsessions = 1;
	cfg.sessions[0].clock = SIM_CLOCK_QPC;
	for (unsigned i = 0; i < 2000; i++) {
		struct sim_end end = {0};
		char want[128], *got = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&got, &len);
		uint64_t v;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v = i < sizeof(edges) / sizeof(edges[0]) ? edges[i] : x >> (i % 64);
		end.tick = (uint32_t)(v ^ i);
		end.ts[SIM_CLOCK_QPC] = v;
		cr_assert_not_null(f);
		cr_assert_eq(truth_write_end(f, &cfg, &end), 0);
		cr_assert_eq(fclose(f), 0);
		snprintf(want, sizeof(want),
			 "{\"kind\":\"end\",\"tick\":%" PRIu32 ",\"ts\":{\"qpc\":%" PRIu64 "}}\n",
			 end.tick, v);
		cr_assert_str_eq(got, want);
		free(got);
	}
}

Test(truth_fast, longest_names_of_escapes_fit_their_lines)
{
	static struct trace_config cfg;
	struct sim_spinlock sl = {.depth = 1};
	char *name = malloc(100001), *got = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_not_null(name);
	trace_config_defaults(&cfg);
	cfg.nsessions = 8;
	for (unsigned i = 0; i < 8; i++) {
		struct trace_session_cfg *s = &cfg.sessions[i];

		memset(s->name, 1, sizeof(s->name) - 1); /* each byte takes 6 */
		s->name[sizeof(s->name) - 1] = '\0';
		s->name[0] = (char)('a' + i);
		s->clock = SIM_CLOCK_QPC;
		s->flags = PRODUCER_F_SPINLOCK;
		s->pmc_count = SIM_MAX_PMC;
		for (unsigned j = 0; j < SIM_MAX_PMC; j++) {
			s->pmc_counters[j] = (uint8_t)((i + j) % SIM_MAX_COUNTERS);
		}
		s->pmc_events[0] = 0x0529;
		s->pmc_event_count = 1;
		memset(s->file, '"', sizeof(s->file) - 1);
		s->file[sizeof(s->file) - 1] = '\0';
	}
	for (unsigned k = 0; k < SIM_MAX_COUNTERS; k++) {
		sl.pmc[k] = UINT64_MAX - k;
	}
	memset(name, '\\', 100000);
	name[100000] = '\0';
	sl.name = name;
	sl.lock = UINT64_MAX;
	f = open_memstream(&got, &len);
	cr_assert_not_null(f);
	cr_assert_eq(truth_write_meta(f, &cfg), 0);
	cr_assert_eq(truth_write_spinlock(f, &cfg, &sl), 0);
	cr_assert_eq(fclose(f), 0);
	cr_assert_gt(len, 8 * (6 * 127 + 2 * 4095) + 2 * 100000);
	cr_expect_not_null(strstr(got, ",\"b\\u0001\\u0001"), "the pmc object");
	cr_expect_not_null(strstr(got, ":[18446744073709551615,18446744073709551614,"));
	free(got);
	free(name);
}

Test(truth_fast, the_buffered_writer_writes_what_the_functions_write)
{
	static struct trace_config cfg;
	struct sim_record thr = {
		.kind = SIM_REC_THREAD,
		.u.thread = {.cpu = 1, .pid = 512, .name = "w\"1", .group = "pool"}};
	struct sim_cswitch cs = {.cpu = 1, .tick = 2, .old_tid = 3, .new_tid = 4, .pmc = {5, 6}};
	struct sim_spinlock sl = {.cpu = 2, .lock = 0x10, .caller = 0x20, .depth = 1, .name = "x"};
	struct sim_ccswap_stop st = {.tick = 3, .clock = SIM_CLOCK_QPC};
	struct sim_end end = {.tick = 4};
	struct truth_writer w;
	struct trace_sink sink;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);

	cr_assert(fa && fb);
	trace_config_defaults(&cfg);
	cfg.nsessions = 1;
	cfg.sessions[0].clock = SIM_CLOCK_QPC;
	cfg.sessions[0].flags = PRODUCER_F_CSWITCH | PRODUCER_F_SPINLOCK;
	cfg.sessions[0].pebs = true;
	cfg.sessions[0].pmc_count = 2;
	cfg.sessions[0].pmc_counters[1] = 1;
	cfg.sessions[0].pmc_events[0] = 0x0524;
	cfg.sessions[0].pmc_event_count = 1;
	cfg.ngroups = 1;
	strcpy(cfg.groups[0].name, "pool");
	cfg.spin_rows = TRACE_SPIN_ROWS_ALL;
	/* the writer: 3000 of each, across its 1 MiB buffer */
	cr_assert_eq(truth_writer_init(&w, fa, &cfg), 0);
	sink = truth_writer_sink(&w);
	for (unsigned i = 0; i < 3000; i++) {
		cs.ts[SIM_CLOCK_QPC] = i;
		cr_assert_eq(sink.ops->cswitch(sink.ctx, &cs), 0);
		thr.u.thread.tid = 4096 + 4 * i;
		thr.u.thread.event = i & 1 ? SIM_EVENT_END : SIM_EVENT_START;
		thr.u.thread.ts[SIM_CLOCK_QPC] = i;
		cr_assert_eq(sink.ops->record(sink.ctx, &thr), 0);
		cr_assert_eq(sink.ops->spinlock(sink.ctx, &sl), 0);
		cr_assert_eq(sink.ops->ccswap_stop(sink.ctx, &st), 0);
	}
	cr_assert_eq(sink.ops->end(sink.ctx, &end), 0);
	truth_writer_finish(&w);
	truth_writer_finish(&w);
	/* the functions, line by line */
	for (unsigned i = 0; i < 3000; i++) {
		cs.ts[SIM_CLOCK_QPC] = i;
		cr_assert_eq(truth_write_cswitch(fb, &cfg, &cs), 0);
		thr.u.thread.tid = 4096 + 4 * i;
		thr.u.thread.event = i & 1 ? SIM_EVENT_END : SIM_EVENT_START;
		thr.u.thread.ts[SIM_CLOCK_QPC] = i;
		cr_assert_eq(truth_write_record(fb, &cfg, &thr), 0);
		cr_assert_eq(truth_write_spinlock(fb, &cfg, &sl), 0);
		cr_assert_eq(truth_write_ccswap_stop(fb, &cfg, &st), 0);
	}
	cr_assert_eq(truth_write_end(fb, &cfg, &end), 0);
	cr_assert_eq(fclose(fa), 0);
	cr_assert_eq(fclose(fb), 0);
	cr_assert_eq(la, lb);
	cr_assert(!memcmp(a, b, la));
	cr_assert_not_null(strstr(a, ",\"pmc\":[5,6],\"pebs_index\":\"0x0\"}\n"));
	free(a);
	free(b);
}

Test(truth_fast, the_buffered_writer_reports_a_write_error)
{
	static struct trace_config cfg;
	struct sim_cswitch cs = {.new_tid = 1};
	struct sim_end end = {.tick = 1};
	struct truth_writer w;
	struct trace_sink sink;
	FILE *f = fopen("/dev/full", "w");
	int rc = 0;

	cr_assert_not_null(f);
	trace_config_defaults(&cfg);
	cr_assert_eq(truth_writer_init(&w, f, &cfg), 0);
	sink = truth_writer_sink(&w);
	/* a full buffer goes to the stream: its error comes back there or at the end */
	for (unsigned i = 0; i < 10000 && rc == 0; i++) {
		rc = sink.ops->cswitch(sink.ctx, &cs);
	}
	if (rc == 0) {
		rc = sink.ops->end(sink.ctx, &end);
	}
	cr_expect_eq(rc, -EIO);
	truth_writer_finish(&w);
	fclose(f);
}
