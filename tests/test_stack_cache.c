// SPDX-License-Identifier: MIT
/*
 * tests/test_stack_cache.c - sessions[].stack_cache: the cache itself
 * (producer/stack_cache.h: least recently used out of a set of 4, keys from
 * the CPU's range, a freed key taken again only by a later stack, fewer
 * than 4 frames not cached), and a generated file read from the outside:
 * two sessions log the same stacks, one as StackWalk records, one cached;
 * the cached one's records (decoded here from dump's raw bytes at the
 * offsets of Microsoft's StackWalk_Key / StackWalk_KeyDefinition layouts)
 * carry the event's time, process and thread, and every key reference,
 * joined to the first definition of its key at or after its time, has the
 * frames the other session's StackWalk has; evictions (KeyDelete) reuse
 * keys, the rest is run down at the end (KeyRundown). verify is clean and
 * catches a changed key, replay and --jobs give the same bytes; a bad
 * stack_cache value is one located line, exit 2.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "producer/stack_cache.h"
#include "tests/test_util.h"

TestSuite(stack_cache, .init = test_dir_make, .fini = test_dir_remove, .timeout = 120.);

/* ---- the cache ---------------------------------------------------------- */

Test(stack_cache, a_set_of_four_least_recently_used_out_first)
{
	struct stack_cache *c = stack_cache_create(4, 0xFFFFFA8303000000u);
	struct stack_cache_victim v;
	uint64_t st[6][4], key[6], k;

	cr_assert_not_null(c);
	for (int i = 0; i < 6; i++) {
		for (int j = 0; j < 4; j++) {
			st[i][j] = 0x7FF600001000u + (uint64_t)(i * 16 + j);
		}
	}
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(stack_cache_get(c, st[i], 4, 100 + (uint64_t)i, &key[i], &v), 1);
		cr_assert_eq(v.n, 0, "room left: nothing evicted");
	}
	/* keys: 16-aligned, 0x30 apart, from the range's start */
	cr_assert_eq(key[0], 0xFFFFFA8303000000u);
	cr_assert_eq(key[1], 0xFFFFFA8303000030u);
	cr_assert_eq(key[3], 0xFFFFFA8303000090u);
	/* stack 0 again: the same key, and now the most recently used */
	cr_assert_eq(stack_cache_get(c, st[0], 4, 200, &k, &v), 1);
	cr_assert_eq(k, key[0]);
	cr_assert_eq(v.n, 0);
	/* a fifth stack pushes out stack 1 (least recently used); its key is not taken
	 * again at the same time: a new one */
	cr_assert_eq(stack_cache_get(c, st[4], 4, 300, &key[4], &v), 1);
	cr_assert_eq(v.n, 4);
	cr_assert_eq(v.key, key[1]);
	cr_assert_eq(v.frames[0], st[1][0]);
	cr_assert_eq(v.frames[3], st[1][3]);
	cr_assert_eq(key[4], 0xFFFFFA83030000C0u, "a key freed at 300 is not taken at 300");
	/* at a later time the freed key comes back (stack 2 goes out) */
	cr_assert_eq(stack_cache_get(c, st[5], 4, 301, &key[5], &v), 1);
	cr_assert_eq(v.key, key[2]);
	cr_assert_eq(key[5], key[1], "freed at 300, taken at 301");
	/* fewer than 4 frames: not cached */
	cr_assert_eq(stack_cache_get(c, st[0], 3, 302, &k, &v), 0);
	cr_assert_eq(v.n, 0);
	stack_cache_destroy(c);
}

Test(stack_cache, each_cpu_has_its_own_range_and_the_rest_is_listed)
{
	struct stack_cache *c;
	struct stack_cache_victim v;
	uint64_t a[5] = {0x401000, 0x401100, 0x401200, 0x401300, 0x401400}, k, key;
	const uint64_t *ips;
	size_t pos = 0, n;
	int listed = 0;

	cr_assert_eq(stack_cache_key_base(0, 0), 0xFFFFFA8303000000u);
	cr_assert_eq(stack_cache_key_base(3, 0), 0xFFFFFA8303300000u);
	cr_assert_eq(stack_cache_key_base(2, 1), 0x85200000u);
	cr_assert_null(stack_cache_create(6, 0), "not a multiple of 4");
	cr_assert_null(stack_cache_create(0, 0));
	cr_assert_null(stack_cache_create(16388, 0), "more than 16384");
	c = stack_cache_create(8, stack_cache_key_base(2, 1));
	cr_assert_eq(stack_cache_get(c, a, 5, 1, &k, &v), 1);
	cr_assert_eq(k, 0x85200000u);
	cr_assert_eq(stack_cache_get(c, a + 1, 4, 2, &k, &v), 1);
	cr_assert_eq(k, 0x85200030u);
	while (stack_cache_next(c, &pos, &key, &ips, &n)) {
		cr_assert(n == 5 ? ips[0] == 0x401000 && key == 0x85200000u
				 : n == 4 && ips[0] == 0x401100 && key == 0x85200030u);
		listed++;
	}
	cr_assert_eq(listed, 2);
	stack_cache_destroy(c);
}

/* ---- a generated file ---------------------------------------------------- */

static const char scenario[] =
	"seed: 5\nduration: 300ms\n"
	"machine: {cpus: 2, arch: x64, target: win10-1903}\n"
	"sessions:\n"
	"  - {name: k, clock: qpc, flags: [cswitch, proc_thread, dispatcher, profile, loader], "
	"stacks: [profile, cswitch, ready_thread], stack_cache: %u}\n"
	"  - {name: u, clock: qpc, flags: [cswitch, proc_thread, dispatcher, profile, loader], "
	"stacks: [profile, cswitch, ready_thread], file: u.etl}\n"
	"processes:\n"
	"  - {name: app.exe, pid: 1200}\n"
	"threads:\n"
	"  - {name: render, process: app.exe, count: 3, behaviour: cpu_bound}\n"
	"  - {name: io, process: app.exe, count: 3, behaviour: io_bound}\n"
	"  - {name: kw, process: System, count: 1, behaviour: io_bound}\n";

static void gen(unsigned entries)
{
	char text[2048];
	int n = snprintf(text, sizeof(text), scenario, entries);

	test_write("s.yaml", text, (size_t)n);
	cr_assert_eq(test_run("cd '%s' && '%s' gen -q s.yaml -o d.etl --truth d.jsonl", test_dir,
			      test_bin()),
		     0);
}

/* One stack record of a file, decoded here from its bytes. */
struct srec {
	uint16_t hook;
	uint64_t ts;	   /* the header's */
	uint64_t event_ts; /* StackWalk / a key reference */
	uint32_t tid;
	uint64_t key;	   /* a key reference / a definition */
	char frames[4096]; /* "0x..,0x..," */
	unsigned nframes;
};

static uint64_t le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int k = 7; k >= 0; k--) {
		v = v << 8 | b[k];
	}
	return v;
}

/* The stack records of @etl, in file order; *@n of them (malloc'd). */
static struct srec *read_stacks(const char *etl, size_t *n)
{
	static char line[1 << 17];
	static uint8_t b[1 << 15];
	struct srec *out = NULL;
	size_t cap = 0;
	FILE *f;

	*n = 0;
	cr_assert_eq(test_run("cd '%s' && '%s' dump %s --jsonl --raw > st.dump", test_dir,
			      test_bin(), etl),
		     0);
	f = fopen(test_path("st.dump"), "r");
	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *hook = json_string_value(json_object_get(o, "hook"));
		const char *raw = json_string_value(json_object_get(o, "raw"));
		unsigned h = hook ? (unsigned)strtoul(hook, NULL, 16) : 0;
		size_t len = raw ? strlen(raw) / 2 : 0, at;
		struct srec *r;

		if (h < 0x1820 || h > 0x1826 || len > sizeof(b)) {
			json_decref(o);
			continue;
		}
		cr_assert_eq(test_unhex(raw, b, sizeof(b)), len);
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			out = realloc(out, cap * sizeof(*out));
			cr_assert_not_null(out);
		}
		r = &out[(*n)++];
		memset(r, 0, sizeof(*r));
		r->hook = (uint16_t)h;
		/* PERFINFO64: 02 00 11 c0, Size, HookId, then the timestamp */
		cr_assert_eq(b[0], 0x02, "version 2");
		cr_assert_eq(b[2], 0x11);
		cr_assert_eq(b[3], 0xC0);
		cr_assert_eq((size_t)(b[4] | b[5] << 8), len);
		cr_assert_eq((unsigned)(b[6] | b[7] << 8), h);
		r->ts = le64(b + 0x08);
		if (h == 0x1825 || h == 0x1826) {
			cr_assert_eq(len, 0x28, "a key reference is 40 bytes");
			r->event_ts = le64(b + 0x10);
			r->tid = (uint32_t)(b[0x1C] | b[0x1D] << 8 | b[0x1E] << 16);
			r->key = le64(b + 0x20);
			json_decref(o);
			continue;
		}
		if (h == 0x1820) {
			r->event_ts = le64(b + 0x10);
			r->tid = (uint32_t)(b[0x1C] | b[0x1D] << 8 | b[0x1E] << 16);
			at = 0x20;
		} else {
			r->key = le64(b + 0x10);
			at = 0x18;
		}
		cr_assert_eq((len - at) % 8, 0);
		for (size_t p = at; p < len; p += 8) {
			size_t l = strlen(r->frames);

			snprintf(r->frames + l, sizeof(r->frames) - l, "%" PRIx64 ",", le64(b + p));
			r->nframes++;
		}
		json_decref(o);
	}
	fclose(f);
	return out;
}

/* The uncached session's StackWalk of (@event_ts, @tid) whose first frame is kernel or not. */
static const struct srec *walk_of(const struct srec *u, size_t nu, uint64_t event_ts, uint32_t tid,
				  bool kernel)
{
	for (size_t i = 0; i < nu; i++) {
		if (u[i].hook == 0x1820 && u[i].event_ts == event_ts && u[i].tid == tid &&
		    (u[i].frames[0] == 'f' && strlen(u[i].frames) > 16) == kernel) {
			return &u[i];
		}
	}
	return NULL;
}

Test(stack_cache, references_join_their_definitions_to_the_same_frames)
{
	struct srec *d, *u;
	size_t nd, nu, refs = 0, deletes = 0, rundowns = 0, reused = 0, walks = 0;
	uint64_t last_ts = 0;

	gen(4);
	d = read_stacks("d.etl", &nd);
	u = read_stacks("u.etl", &nu);
	for (size_t i = 0; i < nd; i++) {
		last_ts = d[i].ts > last_ts ? d[i].ts : last_ts;
	}
	for (size_t i = 0; i < nd; i++) {
		const struct srec *r = &d[i], *def = NULL, *w;
		bool kernel;

		if (r->hook == 0x1820) {
			cr_assert_lt(r->nframes, 4, "4 frames or more are cached");
			walks++;
			continue;
		}
		if (r->hook == 0x1823) {
			deletes++;
			continue;
		}
		if (r->hook == 0x1824) {
			rundowns++;
			cr_assert_eq(r->ts, last_ts, "the keys are run down at the end");
			continue;
		}
		cr_assert(r->hook == 0x1825 || r->hook == 0x1826, "no KeyCreate: %x", r->hook);
		refs++;
		cr_assert_eq(r->ts, r->event_ts, "the record carries its event's time");
		cr_assert_eq(r->key % 16, 0);
		cr_assert(r->key >= 0xFFFFFA8303000000u && r->key < 0xFFFFFA8303200000u,
			  "a key of CPU 0 or 1: %" PRIx64, r->key);
		/* the first definition of the key at or after the reference's time */
		for (size_t j = 0; j < nd; j++) {
			if ((d[j].hook == 0x1823 || d[j].hook == 0x1824) && d[j].key == r->key &&
			    d[j].ts >= r->ts && (!def || d[j].ts < def->ts)) {
				def = &d[j];
			}
		}
		cr_assert_not_null(def, "key %" PRIx64 " at %" PRIu64 " is never defined", r->key,
				   r->ts);
		kernel = r->hook == 0x1825;
		w = walk_of(u, nu, r->event_ts, r->tid, kernel);
		cr_assert_not_null(w, "the other session has the stack of %" PRIu64 " tid %u",
				   r->event_ts, r->tid);
		cr_assert_str_eq(def->frames, w->frames, "key %" PRIx64 " at %" PRIu64, r->key,
				 r->ts);
		cr_assert_eq(def->frames[0] == 'f' && strlen(def->frames) > 16, kernel,
			     "0x1825 kernel frames, 0x1826 user frames");
	}
	for (size_t i = 0; i < nd; i++) {
		for (size_t j = i + 1; j < nd && d[i].hook == 0x1823; j++) {
			if ((d[j].hook == 0x1823 || d[j].hook == 0x1824) && d[j].key == d[i].key) {
				reused++;
				break;
			}
		}
	}
	cr_assert_gt(refs, 100, "%zu references", refs);
	cr_assert_gt(deletes, 10, "4 entries a CPU: evictions");
	cr_assert_gt(reused, 0, "keys are defined more than once");
	cr_assert_gt(rundowns, 0);
	cr_assert_leq(rundowns, 8, "at most 4 entries on each of 2 CPUs");
	cr_assert_eq(refs + walks, nu, "every stack once: %zu + %zu, the other session %zu", refs,
		     walks, nu);
	free(d);
	free(u);
}

Test(stack_cache, verify_replay_jobs_and_a_changed_key)
{
	char err[1024];
	int rc;

	gen(8);
	cr_assert_eq(
		test_run("cd '%s' && '%s' verify -q d.etl --truth d.jsonl", test_dir, test_bin()),
		0);
	cr_assert_eq(test_run("cd '%s' && mkdir r && cd r && '%s' replay -q ../d.jsonl "
			      "--stream-paths -o d.etl && cmp d.etl ../d.etl && cmp u.etl ../u.etl",
			      test_dir, test_bin()),
		     0, "replay writes the same bytes");
	cr_assert_eq(test_run("cd '%s' && mkdir j && cd j && '%s' gen -q ../s.yaml -o d.etl "
			      "--jobs 2 && cmp d.etl ../d.etl",
			      test_dir, test_bin()),
		     0, "--jobs 2 writes the same bytes");
	/* the key of the first user-key reference one further (its lowest byte, at 0x20) */
	cr_assert_eq(test_run("cd '%s' && off=$('%s' dump d.etl --jsonl | grep -m1 "
			      "'\"hook\":\"0x1826\"' | sed 's/.*\"offset\":\\([0-9]*\\).*/\\1/') "
			      "&& cp d.etl e.etl && printf '\\001' | dd of=e.etl bs=1 "
			      "seek=$((off + 32)) conv=notrunc status=none",
			      test_dir, test_bin()),
		     0);
	rc = test_etwforge("verify -q e.etl --truth d.jsonl --session k", err, sizeof(err));
	cr_assert_eq(rc, 1, "%s", err);
	cr_assert_not_null(strstr(err, "StackKey"), "%s", err);
}

Test(stack_cache, a_bad_value_is_one_located_line)
{
	char err[1024];
	static const char none[] = "sessions:\n"
				   "  - name: k\n"
				   "    flags: [cswitch, profile]\n"
				   "    stack_cache: 64\n";
	static const char odd[] = "sessions:\n"
				  "  - {name: k, flags: [cswitch, profile], stacks: [profile], "
				  "stack_cache: 6}\n";
	int rc;

	test_write("n.yaml", none, strlen(none));
	rc = test_etwforge("gen -q n.yaml -o n.etl", err, sizeof(err));
	cr_assert_eq(rc, 2, "%s", err);
	cr_assert_not_null(strstr(err, "n.yaml:4:"), "%s", err);
	cr_assert_not_null(
		strstr(err, "sessions.0.stack_cache: the session logs no stack to cache"), "%s",
		err);
	cr_assert_eq(test_run("test ! -e '%s/n.etl'", test_dir), 0, "nothing written");
	test_write("o.yaml", odd, strlen(odd));
	rc = test_etwforge("gen -q o.yaml -o o.etl", err, sizeof(err));
	cr_assert_eq(rc, 2, "%s", err);
	cr_assert_not_null(strstr(err, "not a multiple of 4"), "%s", err);
}
