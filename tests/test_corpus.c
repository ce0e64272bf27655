// SPDX-License-Identifier: MIT
/*
 * tests/test_corpus.c - the fuzzing toolkit: `etwforge corpus` (every valid
 * file decodes to its expected decode with the real `etwforge dump --jsonl`,
 * verifies against its stream, and is what `etwforge replay` of that stream
 * writes; the same seed gives the same xxh3 values), `corpus --mangle`
 * (every broken file gives its expected error class, offset and message,
 * never a crash), the dictionary and the OSS-Fuzz zip, the output rules of
 * the command, and the mutator (its mutants always parse, deterministically).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etwforge/etwforge.h"
#include "tests/test_util.h"

static void setup(void)
{
	test_dir_make();
}

TestSuite(corpus, .init = setup, .fini = test_dir_remove, .timeout = 240.);
TestSuite(mutator, .init = setup, .fini = test_dir_remove, .timeout = 240.);

/* The whole file at @path (NUL-terminated), its length in *@n. */
static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long len;

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	cr_assert_geq(len, 0);
	rewind(f);
	b = malloc((size_t)len + 1);
	cr_assert_not_null(b);
	cr_assert_eq(fread(b, 1, (size_t)len, f), (size_t)len);
	b[len] = '\0';
	fclose(f);
	if (n) {
		*n = (size_t)len;
	}
	return b;
}

/* The last line of @text (without its newline), in a static buffer. */
static const char *last_line(const char *text)
{
	static char line[2048];
	size_t n = strlen(text);
	const char *s;

	while (n && text[n - 1] == '\n') {
		n--;
	}
	s = text + n;
	while (s > text && s[-1] != '\n') {
		s--;
	}
	snprintf(line, sizeof(line), "%.*s", (int)(text + n - s), s);
	return line;
}

/* Write the corpus into SCRATCH/@sub with the extra @opts. */
static void make_corpus(const char *sub, const char *opts)
{
	cr_assert_eq(test_run("'%s' corpus -q --out '%s' %s", test_bin(), test_path(sub), opts), 0,
		     "etwforge corpus %s failed", opts);
}

/* The objects of SCRATCH/@sub/MANIFEST.jsonl, as a JSON array. */
static json_t *manifest(const char *sub)
{
	char path[600];
	json_t *all = json_array();
	char *text, *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/MANIFEST.jsonl", test_path(sub));
	text = slurp(path, NULL);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);

		cr_assert_not_null(o, "MANIFEST.jsonl: %s: %s", je.text, line);
		json_array_append_new(all, o);
	}
	free(text);
	return all;
}

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	cr_assert_not_null(s, "manifest entry without \"%s\"", key);
	return s;
}

Test(corpus, every_file_decodes_to_its_expected_decode_and_verifies_against_its_stream)
{
	json_t *all, *o;
	size_t i, valid = 0, pending = 0;

	make_corpus("c", "");
	all = manifest("c");
	json_array_foreach(all, i, o)
	{
		const char *kind = jstr(o, "kind"), *id = jstr(o, "id");
		char *got, *want;
		uint64_t x;
		char hex[32];
		int rc;

		if (!strcmp(kind, "pending")) {
			pending++;
			continue;
		}
		cr_assert_str_eq(kind, "valid");
		valid++;
		/* the file is what the manifest says */
		cr_assert_eq(test_file_xxh3(test_path("c/x"), &x), -ENOENT);
		{
			char p[600];

			snprintf(p, sizeof(p), "c/%s", jstr(o, "file"));
			cr_assert_eq(test_file_xxh3(test_path(p), &x), 0, "%s", id);
			snprintf(hex, sizeof(hex), "0x%" PRIx64, x);
			cr_assert_str_eq(hex, jstr(o, "xxh3"), "%s: xxh3", id);
		}
		/* the real dump, run in the folder, prints the expected decode */
		rc = test_run("cd '%s' && '%s' dump --jsonl '%s' > '%s.out' 2> '%s.err'",
			      test_path("c"), test_bin(), jstr(o, "file"), id, id);
		cr_assert_eq(rc, 0, "%s: dump --jsonl exit %d", id, rc);
		{
			char p1[600], p2[600];

			snprintf(p1, sizeof(p1), "c/%s.out", id);
			snprintf(p2, sizeof(p2), "c/%s", jstr(o, "expected"));
			got = slurp(test_path(p1), NULL);
			want = slurp(test_path(p2), NULL);
			cr_assert_str_eq(got, want, "%s: dump --jsonl differs from %s", id,
					 jstr(o, "expected"));
			free(got);
			free(want);
		}
		/* it verifies against its stream (the lost-events file says why it cannot) */
		rc = test_run("cd '%s' && '%s' verify '%s' --truth '%s' > /dev/null 2> '%s.verify'",
			      test_path("c"), test_bin(), jstr(o, "file"), jstr(o, "stream"), id);
		if (json_is_true(json_object_get(o, "verifies"))) {
			cr_assert_eq(rc, 0, "%s: verify exit %d", id, rc);
		} else {
			char p[600];
			char *err;

			snprintf(p, sizeof(p), "c/%s.verify", id);
			err = slurp(test_path(p), NULL);
			cr_assert_eq(rc, 1, "%s: verify exit %d", id, rc);
			cr_assert_not_null(strstr(err, "events were lost"), "%s: %s", id, err);
			free(err);
		}
		/* every record that matters was found */
		cr_assert(json_array_size(json_object_get(o, "offsets")) > 0, "%s: no offsets", id);
	}
	cr_assert_geq(valid, 88, "only %zu valid files", valid);
	cr_assert_eq(pending, 3); /* pmc-cswitch-8, stack-depth-0, ktc-pdb-name-unterminated */
	json_decref(all);
}

Test(corpus, each_file_is_what_replay_of_its_stream_writes)
{
	json_t *all, *o;
	size_t i;

	make_corpus("c", "");
	cr_assert_eq(mkdir(test_path("c/r"), 0777), 0);
	all = manifest("c");
	json_array_foreach(all, i, o)
	{
		char p[600];
		uint64_t a, b;

		if (strcmp(jstr(o, "kind"), "valid")) {
			continue;
		}
		/* the stream names every session's file: replay writes them beside it */
		cr_assert_eq(test_run("cd '%s' && '%s' replay -q ../%s", test_path("c/r"),
				      test_bin(), jstr(o, "stream")),
			     0, "%s: replay", jstr(o, "id"));
		snprintf(p, sizeof(p), "c/r/%s", jstr(o, "file"));
		cr_assert_eq(test_file_xxh3(test_path(p), &a), 0);
		snprintf(p, sizeof(p), "c/%s", jstr(o, "file"));
		cr_assert_eq(test_file_xxh3(test_path(p), &b), 0);
		cr_assert_eq(a, b, "%s: replay of %s writes other bytes", jstr(o, "id"),
			     jstr(o, "stream"));
	}
	json_decref(all);
}

Test(corpus, same_seed_same_bytes_other_seed_other_bytes)
{
	char *a, *b, *c;
	json_t *x, *z, *o;
	size_t i, differ = 0;

	make_corpus("a", "--seed 7");
	make_corpus("b", "--seed 7");
	make_corpus("z", "--seed 8");
	a = slurp(test_path("a/MANIFEST.jsonl"), NULL);
	b = slurp(test_path("b/MANIFEST.jsonl"), NULL);
	cr_assert_str_eq(a, b, "the same seed gave another manifest");
	x = manifest("a");
	z = manifest("z");
	json_array_foreach(x, i, o)
	{
		json_t *p = json_array_get(z, i);

		cr_assert_str_eq(jstr(o, "id"), jstr(p, "id"));
		if (!strcmp(jstr(o, "kind"), "valid") && strcmp(jstr(o, "xxh3"), jstr(p, "xxh3"))) {
			differ++;
		}
	}
	cr_assert_gt(differ, json_array_size(x) / 2, "the seed changes too little (%zu files)",
		     differ);
	/* the mangled set too */
	make_corpus("m1", "--mangle --seed 3");
	make_corpus("m2", "--mangle --seed 3");
	free(a);
	free(b);
	a = slurp(test_path("m1/MANIFEST.jsonl"), NULL);
	c = slurp(test_path("m2/MANIFEST.jsonl"), NULL);
	cr_assert_str_eq(a, c);
	free(a);
	free(c);
	json_decref(x);
	json_decref(z);
}

Test(corpus, every_mangled_file_gives_its_expected_error_class)
{
	json_t *all, *o;
	size_t i, errors = 0, tolerated = 0;

	make_corpus("m", "--mangle");
	all = manifest("m");
	cr_assert_geq(json_array_size(all), 35);
	json_array_foreach(all, i, o)
	{
		const char *id = jstr(o, "id"), *file = jstr(o, "file");
		json_t *ex = json_object_get(o, "expect");
		int status = (int)json_integer_value(json_object_get(ex, "status"));
		const char *msg = jstr(ex, "message"), *cls = jstr(ex, "class");
		char p[600], *out, *err, *want;
		int rc;

		cr_assert_str_eq(jstr(o, "kind"), "mangled");
		rc = test_run("cd '%s' && '%s' dump --jsonl '%s' > '%s.out' 2> '%s.err'",
			      test_path("m"), test_bin(), file, id, id);
		cr_assert(rc == 0 || rc == 1, "%s: dump exit %d (a crash?)", id, rc);
		cr_assert_eq(rc, status, "%s (%s): exit %d, the manifest says %d", id, cls, rc,
			     status);
		snprintf(p, sizeof(p), "m/%s.out", id);
		out = slurp(test_path(p), NULL);
		snprintf(p, sizeof(p), "m/%s.err", id);
		err = slurp(test_path(p), NULL);
		snprintf(p, sizeof(p), "m/%s", jstr(o, "expected"));
		want = slurp(test_path(p), NULL);
		cr_assert_str_eq(out, want, "%s: what dump prints before the error", id);
		if (status) {
			char where[300];

			errors++;
			snprintf(where, sizeof(where), "%s: offset %s: ", file, jstr(ex, "offset"));
			cr_assert_not_null(strstr(last_line(err), where), "%s: want '%s', got '%s'",
					   id, where, last_line(err));
			cr_assert_not_null(strstr(last_line(err), msg), "%s: want '%s', got '%s'",
					   id, msg, last_line(err));
		} else {
			tolerated++;
			cr_assert_str_eq(err, "", "%s: %s", id, err);
			if (!strcmp(cls, "payload-short")) {
				cr_assert_not_null(strstr(out, msg), "%s: no '%s'", id, msg);
			}
		}
		free(out);
		free(err);
		free(want);
	}
	cr_assert_geq(errors, 20);
	cr_assert_geq(tolerated, 5);
	json_decref(all);
}

Test(corpus, every_mangled_file_reads_with_keep_going_and_stats)
{
	json_t *all, *o;
	size_t i;

	make_corpus("m", "--mangle");
	all = manifest("m");
	json_array_foreach(all, i, o)
	{
		const char *file = jstr(o, "file");
		int rc;

		rc = test_run("cd '%s' && '%s' dump --keep-going --raw '%s' > /dev/null 2>&1",
			      test_path("m"), test_bin(), file);
		cr_assert(rc == 0 || rc == 1, "%s: dump --keep-going exit %d", file, rc);
		rc = test_run("cd '%s' && '%s' dump --stats '%s' > /dev/null 2>&1", test_path("m"),
			      test_bin(), file);
		cr_assert(rc == 0 || rc == 1, "%s: dump --stats exit %d", file, rc);
	}
	json_decref(all);
}

/* The identity edge cases and the rules that break identity records. */
static const char *const ident_cases[] = {
	"ident-all-x64-win10-1709",
	"ident-all-x86-win10-1709",
	"ident-all-x64-win10-1903",
	"ident-all-x86-win10-1903",
	"ident-all-x64-win11-22h2",
	"ident-sid-null",
	"ident-sid-null-x86",
	"ident-sid-1-sub-authority",
	"ident-sid-15-sub-authorities",
	"ident-sid-15-sub-authorities-x86",
	"ident-names-empty",
	"ident-names-odd-length",
	"ident-names-odd-length-set-name",
	"ident-thread-without-process",
	"ident-end-before-dcstart",
	"ident-rundown-split-buffers",
	"ident-config-cpus-disagree",
};

static const char *const ident_rules[] = {
	"mangle-thread-name-unterminated",  "mangle-thread-name-unterminated-x86",
	"mangle-set-name-unterminated",	    "mangle-image-name-unterminated",
	"mangle-app-id-unterminated",	    "mangle-sid-count-past-record",
	"mangle-sid-count-past-record-x86", "mangle-thread-cut-in-fixed-part",
	"mangle-ready-thread-short",	    "mangle-sampled-profile-short",
	"mangle-sampled-profile-short-x86",
};

static json_t *find_id(json_t *all, const char *id)
{
	json_t *o;
	size_t i;

	json_array_foreach(all, i, o)
	{
		if (!strcmp(jstr(o, "id"), id)) {
			return o;
		}
	}
	return NULL;
}

/*
 * Every identity case is in the catalogue, decodes without a decode error,
 * and every record it marks was found (decode, verify and replay are
 * checked for all files above); the rundown really spans buffers.
 */
Test(corpus, identity_cases_decode_cleanly)
{
	json_t *all = NULL;

	make_corpus("c", "");
	all = manifest("c");
	for (size_t k = 0; k < sizeof(ident_cases) / sizeof(ident_cases[0]); k++) {
		json_t *o = find_id(all, ident_cases[k]), *offs, *x;
		char p[600], *want;
		size_t i;

		cr_assert_not_null(o, "%s: not in the corpus", ident_cases[k]);
		cr_assert_str_eq(jstr(o, "kind"), "valid");
		snprintf(p, sizeof(p), "c/%s", jstr(o, "expected"));
		want = slurp(test_path(p), NULL);
		cr_assert_null(strstr(want, "decode_error"), "%s: %s", ident_cases[k],
			       strstr(want, "decode_error"));
		cr_assert_not_null(strstr(want, "\"process\"") ? want : strstr(want, "\"thread\""),
				   "%s: no identity record decoded", ident_cases[k]);
		offs = json_object_get(o, "offsets");
		json_array_foreach(offs, i, x)
		{
			cr_assert_not_null(json_object_get(x, "record"), "%s: mark '%s' not found",
					   ident_cases[k], jstr(x, "what"));
		}
		if (!strcmp(ident_cases[k], "ident-rundown-split-buffers")) {
			cr_assert_not_null(strstr(want, "\"buffer\":3,"),
					   "the rundown fits a buffer");
		}
		free(want);
	}
	json_decref(all);
}

/* Each identity rule is in the mangled set and dump lists the record as damaged. */
Test(corpus, identity_rules_report_the_record_damaged)
{
	json_t *all;

	make_corpus("m", "--mangle");
	all = manifest("m");
	for (size_t k = 0; k < sizeof(ident_rules) / sizeof(ident_rules[0]); k++) {
		json_t *o = find_id(all, ident_rules[k]);
		char p[600], *want, *hit;

		cr_assert_not_null(o, "%s: not in the mangled set", ident_rules[k]);
		cr_assert_str_eq(jstr(json_object_get(o, "expect"), "class"), "payload-short");
		snprintf(p, sizeof(p), "m/%s", jstr(o, "expected"));
		want = slurp(test_path(p), NULL);
		hit = strstr(want, "\"decode_error\"");
		cr_assert_not_null(hit, "%s: no record reported damaged", ident_rules[k]);
		cr_assert_null(strstr(hit + 1, "\"decode_error\""), "%s: more than one",
			       ident_rules[k]);
		free(want);
	}
	json_decref(all);
}

Test(corpus, dictionary_and_oss_fuzz_zip)
{
	char *dict, *line, *save = NULL, *copy;
	size_t tokens = 0;

	make_corpus("z", "--zip fuzz_etl");
	dict = slurp(test_path("z/etl.dict"), NULL);
	copy = slurp(test_path("z/fuzz_etl.dict"), NULL);
	cr_assert_str_eq(dict, copy);
	for (line = strtok_r(dict, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *q;

		if (line[0] == '#') {
			continue;
		}
		q = strchr(line, '=');
		cr_assert_not_null(q, "dict line: %s", line);
		cr_assert_eq(q[1], '"', "dict line: %s", line);
		cr_assert_eq(line[strlen(line) - 1], '"', "dict line: %s", line);
		for (const char *c = q + 2; c < line + strlen(line) - 1; c += 4) {
			cr_assert(c[0] == '\\' && c[1] == 'x', "dict line: %s", line);
		}
		tokens++;
	}
	cr_assert_geq(tokens, 60);
	free(dict);
	free(copy);
	/* a zip every unzip reads, holding exactly the .etl files, byte for byte */
	if (test_run("command -v unzip > /dev/null") == 0) {
		cr_assert_eq(test_run("cd '%s' && unzip -tq fuzz_etl_seed_corpus.zip > /dev/null",
				      test_path("z")),
			     0);
		cr_assert_eq(test_run("cd '%s' && mkdir u && cd u && unzip -q "
				      "../fuzz_etl_seed_corpus.zip && for f in *.etl; do cmp -s "
				      "\"$f\" \"../$f\" || exit 1; done && [ $(ls | wc -l) = $(ls "
				      "../*.etl | wc -l) ]",
				      test_path("z")),
			     0);
	}
}

Test(corpus, output_rules)
{
	struct stat st;

	/* a zip name that is the dictionary's (README's example): etl.dict is written once */
	cr_assert_eq(test_run("'%s' corpus -q --out '%s' --zip etl", test_bin(), test_path("n")),
		     0);
	cr_assert_eq(stat(test_path("n/etl_seed_corpus.zip"), &st), 0);
	cr_assert_eq(stat(test_path("n/etl.dict"), &st), 0);
	cr_assert_gt(st.st_size, 1000);
	/* an option without its value: a usage error, and no folder made */
	cr_assert_eq(test_run("'%s' corpus -q --out '%s' --zip 2> /dev/null", test_bin(),
			      test_path("n2")),
		     2);
	cr_assert_neq(stat(test_path("n2"), &st), 0, "the folder was made");
	/* a file where the folder should be: a usage error, like any output that is no folder */
	test_write("f", "x", 1);
	cr_assert_eq(test_run("'%s' corpus -q --out '%s' 2> /dev/null", test_bin(), test_path("f")),
		     2);
	/* a read-only folder: exit 1 and nothing left in it */
	cr_assert_eq(mkdir(test_path("ro"), 0555), 0);
	if (access(test_path("ro"), W_OK) != 0) {
		cr_assert_eq(test_run("'%s' corpus -q --out '%s' 2> /dev/null", test_bin(),
				      test_path("ro")),
			     1);
		cr_assert_eq(test_run("[ -z \"$(ls -A '%s')\" ]", test_path("ro")), 0);
	}
	/* bad usage */
	cr_assert_eq(test_run("'%s' corpus 2> /dev/null", test_bin()), 2);
	cr_assert_eq(test_run("'%s' corpus --out x --seed -3 2> /dev/null", test_bin()), 2);
	cr_assert_eq(test_run("'%s' corpus --out x extra 2> /dev/null", test_bin()), 2);
	cr_assert_eq(test_run("'%s' help corpus > /dev/null", test_bin()), 0);
	/* a signal while an output blocks (a FIFO nobody reads): exit 128+15, no temporary left */
	cr_assert_eq(mkdir(test_path("s"), 0777), 0);
	cr_assert_eq(
		test_run("mkfifo '%s/etl.dict' && ('%s' corpus -q --out '%s' & pid=$!; sleep 1; "
			 "kill -TERM $pid; wait $pid; [ $? = 143 ])",
			 test_path("s"), test_bin(), test_path("s")),
		0);
	cr_assert_eq(test_run("[ \"$(ls -A '%s')\" = etl.dict ]", test_path("s")), 0,
		     "temporary files left behind");
	/* over an earlier corpus: replaced in place */
	make_corpus("c", "");
	make_corpus("c", "");
}

/* ---- the mutator --------------------------------------------------------------- */

static uint8_t *read_file(const char *path, size_t *n)
{
	return (uint8_t *)slurp(path, n);
}

/* The file opens without salvage and every event of it decodes. */
static void assert_parses(const uint8_t *data, size_t len, const char *what)
{
	struct etwforge_error *err = etwforge_error_new();
	const struct etwforge_event *ev;
	struct etwforge_file *f = etwforge_file_open_mem(data, len, "mutant", 0, err);
	struct etwforge_iter *it;
	int rc;

	cr_assert_not_null(f, "%s: %s", what, etwforge_error_message(err));
	for (int order = 0; order <= 2; order++) {
		it = etwforge_iter_new(f, (enum etwforge_order)order,
				       order == 2 ? ETWFORGE_EV_EVENTS : ETWFORGE_EV_ALL, err);
		cr_assert_not_null(it);
		while ((rc = etwforge_iter_next(it, &ev, err)) > 0) {
		}
		cr_assert_eq(rc, 0, "%s: %s", what, etwforge_error_message(err));
		etwforge_iter_free(it);
	}
	etwforge_file_close(f);
	etwforge_error_free(err);
}

Test(mutator, every_mutant_of_every_corpus_file_parses)
{
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 42, .mangle_percent = 0);
	struct etwforge_mutator *m = etwforge_mutator_new(&o, NULL);
	json_t *all, *e;
	size_t i, mutants = 0;
	char what[256];

	cr_assert_not_null(m);
	make_corpus("c", "");
	make_corpus("m", "--mangle");
	for (int set = 0; set < 2; set++) {
		all = manifest(set ? "m" : "c");
		json_array_foreach(all, i, e)
		{
			char p[600];
			size_t len, cur_len;
			uint8_t *in, *cur;

			if (!strcmp(jstr(e, "kind"), "pending")) {
				continue;
			}
			snprintf(p, sizeof(p), "%s/%s", set ? "m" : "c", jstr(e, "file"));
			in = read_file(test_path(p), &len);
			cur = malloc(len);
			memcpy(cur, in, len);
			cur_len = len;
			/* a chain of mutants, each made from the last, with crossovers */
			for (int k = 0; k < 25; k++) {
				const uint8_t *out = NULL;
				size_t n = etwforge_mutator_mutate(m, cur, cur_len, in, len,
								   1 << 20, &out);

				snprintf(what, sizeof(what), "%s #%d (%s)", jstr(e, "id"), k,
					 etwforge_mutator_describe(m));
				cr_assert_gt(n, 0, "%s: nothing made", what);
				cr_assert_leq(n, (size_t)1 << 20);
				assert_parses(out, n, what);
				free(cur);
				cur = malloc(n);
				memcpy(cur, out, n);
				cur_len = n;
				mutants++;
			}
			free(cur);
			free(in);
		}
		json_decref(all);
	}
	cr_assert_gt(mutants, 2000);
	etwforge_mutator_free(m);
}

Test(mutator, any_bytes_give_a_valid_file_within_the_size_limit)
{
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 3, .mangle_percent = 0);
	struct etwforge_mutator *m = etwforge_mutator_new(&o, NULL);
	uint8_t junk[4096];
	uint64_t s = 0x9E3779B97F4A7C15ull;

	for (int k = 0; k < 300; k++) {
		const uint8_t *out;
		size_t len = (size_t)k * 13 % sizeof(junk), n, max = k % 3 ? 65536 : 16384;
		char what[64];

		for (size_t j = 0; j < len; j++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			junk[j] = (uint8_t)(s >> 56);
		}
		n = etwforge_mutator_mutate(m, len ? junk : NULL, len, NULL, 0, max, &out);
		snprintf(what, sizeof(what), "junk %d (%s)", k, etwforge_mutator_describe(m));
		cr_assert_gt(n, 0, "%s", what);
		cr_assert_leq(n, max, "%s: %zu > %zu", what, n, max);
		assert_parses(out, n, what);
	}
	etwforge_mutator_free(m);
}

Test(mutator, same_seed_same_mutants)
{
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 99, .mangle_percent = 30);
	struct etwforge_mutator *a = etwforge_mutator_new(&o, NULL),
				*b = etwforge_mutator_new(&o, NULL);
	size_t len;
	uint8_t *in;

	make_corpus("c", "");
	in = read_file(test_path("c/flush-ticks-501.etl"), &len);
	for (int k = 0; k < 50; k++) {
		const uint8_t *x, *y;
		size_t nx = etwforge_mutator_mutate(a, in, len, NULL, 0, 0, &x);
		size_t ny = etwforge_mutator_mutate(b, in, len, NULL, 0, 0, &y);

		cr_assert_eq(nx, ny);
		cr_assert_eq(memcmp(x, y, nx), 0, "mutant %d differs", k);
		cr_assert_str_eq(etwforge_mutator_describe(a), etwforge_mutator_describe(b));
	}
	etwforge_mutator_reseed(a, 5);
	etwforge_mutator_reseed(b, 5);
	{
		const uint8_t *x, *y;
		size_t nx = etwforge_mutator_mutate(a, in, len, NULL, 0, 0, &x);
		size_t ny = etwforge_mutator_mutate(b, in, len, NULL, 0, 0, &y);

		cr_assert(nx == ny && memcmp(x, y, nx) == 0);
	}
	free(in);
	etwforge_mutator_free(a);
	etwforge_mutator_free(b);
}

/*
 * The mutator keeps the last input and the last other input it read (the
 * engines hand the same one many times): a mutant depends on the seed and
 * the bytes only, whatever came before. A fresh mutator and one that has
 * seen other inputs (one of the same length: the cache must compare the
 * bytes, not the length) give the same mutants, crossovers included.
 */
Test(mutator, a_mutant_depends_on_the_bytes_not_on_the_inputs_before)
{
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 7, .mangle_percent = 0);
	struct etwforge_mutator *fresh, *used = etwforge_mutator_new(&o, NULL);
	size_t la, lb, la2;
	uint8_t *a, *b, *a2;

	make_corpus("c", "");
	a = read_file(test_path("c/flush-ticks-501.etl"), &la);
	a2 = read_file(test_path("c/flush-ticks-499.etl"), &la2);
	b = read_file(test_path("c/ccswap-tid-table-17th-thread.etl"), &lb);
	cr_assert(a && b && a2);
	cr_assert_eq(la, la2, "the two flush-ticks files are no longer the same length");
	cr_assert_neq(memcmp(a, a2, la), 0);
	for (int k = 0; k < 40; k++) {
		const uint8_t *x, *y;
		size_t nx, ny;

		/* the used one reads a2 and b first, then a (and b as the other) */
		etwforge_mutator_mutate(used, a2, la, b, lb, 0, &y);
		etwforge_mutator_mutate(used, b, lb, a2, la, 0, &y);
		etwforge_mutator_reseed(used, 1000 + (unsigned)k);
		ny = etwforge_mutator_mutate(used, a, la, b, lb, 0, &y);
		fresh = etwforge_mutator_new(&o, NULL);
		etwforge_mutator_reseed(fresh, 1000 + (unsigned)k);
		nx = etwforge_mutator_mutate(fresh, a, la, b, lb, 0, &x);
		cr_assert_eq(nx, ny, "mutant %d: %zu bytes fresh, %zu after other inputs", k, nx,
			     ny);
		cr_assert_eq(memcmp(x, y, nx), 0, "mutant %d (%s) differs", k,
			     etwforge_mutator_describe(fresh));
		etwforge_mutator_free(fresh);
	}
	free(a);
	free(b);
	free(a2);
	etwforge_mutator_free(used);
}

Test(mutator, mangled_mutants_never_crash_the_reader)
{
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 11, .mangle_percent = 100);
	struct etwforge_mutator *m = etwforge_mutator_new(&o, NULL);
	size_t len, broken = 0;
	uint8_t *in;

	make_corpus("c", "");
	in = read_file(test_path("c/pmc-cswitch-4.etl"), &len);
	for (int k = 0; k < 400; k++) {
		const struct etwforge_event *ev;
		const uint8_t *out;
		size_t n = etwforge_mutator_mutate(m, in, len, NULL, 0, 0, &out);
		struct etwforge_file *f;
		struct etwforge_iter *it;
		int rc = 0;

		f = etwforge_file_open_mem(out, n, "mangled", ETWFORGE_OPEN_KEEP_GOING, NULL);
		if (!f) {
			broken++;
			continue;
		}
		it = etwforge_iter_new(f, ETWFORGE_ORDER_TIME, ETWFORGE_EV_EVENTS, NULL);
		while (it && (rc = etwforge_iter_next(it, &ev, NULL)) != 0) {
			broken += rc < 0;
			if (rc < 0) {
				break;
			}
		}
		etwforge_iter_free(it);
		broken += etwforge_file_damage_count(f) > 0;
		etwforge_file_close(f);
	}
	cr_assert_gt(broken, 40, "mangling broke only %zu of 400", broken);
	free(in);
	etwforge_mutator_free(m);
}

/* How many events of @kinds (ETWFORGE_EV_*) @data holds (-1: it does not open or decode). */
static int events_of(const uint8_t *data, size_t len, unsigned kinds)
{
	const struct etwforge_event *ev;
	struct etwforge_file *f = etwforge_file_open_mem(data, len, "mutant", 0, NULL);
	struct etwforge_iter *it;
	int n = 0, rc = 0;

	if (!f) {
		return -1;
	}
	it = etwforge_iter_new(f, ETWFORGE_ORDER_CPU, kinds, NULL);
	while (it && (rc = etwforge_iter_next(it, &ev, NULL)) > 0) {
		n++;
	}
	etwforge_iter_free(it);
	etwforge_file_close(f);
	return rc < 0 ? -1 : n;
}

/*
 * Files with identity records: every mutant parses, most keep their
 * identity records, some change an identity field; mangled mutants open
 * or fail with one line, and never crash.
 */
Test(mutator, identity_records_mutate_and_stay_decodable)
{
	static const char *const files[] = {"ident-all-x64-win10-1709", "ident-all-x86-win10-1903",
					    "ident-sid-15-sub-authorities",
					    "ident-names-odd-length"};
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 17, .mangle_percent = 0);
	ETWFORGE_OPTS(etwforge_mutator_opts, om, .seed = 18, .mangle_percent = 100);
	struct etwforge_mutator *m = etwforge_mutator_new(&o, NULL);
	struct etwforge_mutator *mm = etwforge_mutator_new(&om, NULL);
	size_t kept = 0, changed = 0, total = 0;

	make_corpus("c", "");
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		char p[600], what[300];
		size_t len;
		uint8_t *in;

		snprintf(p, sizeof(p), "c/%s.etl", files[k]);
		in = read_file(test_path(p), &len);
		for (int i = 0; i < 60; i++) {
			const uint8_t *out;
			size_t n = etwforge_mutator_mutate(m, in, len, NULL, 0, 0, &out);
			const char *d = etwforge_mutator_describe(m);
			struct etwforge_error *err = etwforge_error_new();
			struct etwforge_file *f;

			snprintf(what, sizeof(what), "%s mutant %d (%s)", files[k], i, d);
			assert_parses(out, n, what);
			total++;
			kept += events_of(out, n, ETWFORGE_EV_PROCESS | ETWFORGE_EV_THREAD) > 0;
			changed += strstr(d, "ident-") && !strstr(d, "ident-insert");
			n = etwforge_mutator_mutate(mm, in, len, NULL, 0, 0, &out);
			f = etwforge_file_open_mem(out, n, "mangled", ETWFORGE_OPEN_KEEP_GOING,
						   err);
			if (!f) {
				const char *msg = etwforge_error_message(err);

				cr_assert(msg && *msg && !strchr(msg, '\n'), "%s: '%s'", what, msg);
			} else {
				const struct etwforge_event *ev;
				struct etwforge_iter *it = etwforge_iter_new(f, ETWFORGE_ORDER_FILE,
									     ETWFORGE_EV_ALL, NULL);

				while (it && etwforge_iter_next(it, &ev, NULL) > 0) {
				}
				etwforge_iter_free(it);
				etwforge_file_close(f);
			}
			etwforge_error_free(err);
		}
		free(in);
	}
	cr_assert_gt(kept, total / 2, "identity records kept in %zu of %zu", kept, total);
	cr_assert_geq(changed, 10, "an identity field changed in %zu of %zu", changed, total);
	etwforge_mutator_free(m);
	etwforge_mutator_free(mm);
}

/*
 * The image and stack cases: each decodes without a decode error, every
 * mark is found, and the decode holds what the case is about (golden
 * values typed from STACK_IMAGE_FACTS 2.2, 3.2, 6.2).
 */
static const struct {
	const char *id;
	const char *want[4]; /* pieces of the expected decode */
} image_cases[] = {
	{"stack-depth-1", {"\"hook\":\"0x1820\",\"version\":2,\"size\":40,"}},
	{"stack-depth-192", {"\"hook\":\"0x1820\",\"version\":2,\"size\":1568,"}},
	{"stack-depth-192-x86", {"\"hook\":\"0x1820\",\"version\":2,\"size\":800,"}},
	{"stack-depth-odd-x86", {"\"size\":36,", "\"size\":44,", "\"size\":52,", "\"size\":60,"}},
	{"stack-event-missing", {"\"stack\":{"}},
	{"stack-other-cpu", {"\"cpu\":1,", "\"stack\":{"}},
	/* x64 references Size 0x28, x86 0x24; definitions 0x18 + 8n / 0x14 + 4n */
	{"stack-keys",
	 {"\"hook\":\"0x1826\",\"version\":2,\"size\":40,",
	  "\"hook\":\"0x1823\",\"version\":2,\"size\":56,", "\"hook\":\"0x1824\",\"version\":2,",
	  "\"key\":\"0xfffffa8303000000\""}},
	{"stack-keys-x86",
	 {"\"hook\":\"0x1825\",\"version\":2,\"size\":36,",
	  "\"hook\":\"0x1823\",\"version\":2,\"size\":36,", "\"key\":\"0x85000000\""}},
	{"image-overlapping",
	 {"\"base\":\"0x7ff8a0000000\",\"size\":\"0x20000\"",
	  "\"base\":\"0x7ff8a0010000\",\"size\":\"0x20000\""}},
	{"image-unloaded-twice", {"\"event\":\"unload\""}},
	/* KernelBase / HypercallPage: a pointer after a PERFINFO header (Size 0x18 / 0x14) */
	{"image-dcend-kernel-base",
	 {"\"hook\":\"0x1421\",\"version\":2,\"size\":24,",
	  "\"hook\":\"0x1422\",\"version\":2,\"size\":24,", "\"base\":\"0xffffffffffd03000\"",
	  "\"kind\":\"SYSTEM64\""}},
	{"image-dcend-kernel-base-x86",
	 {"\"hook\":\"0x1421\",\"version\":2,\"size\":20,", "\"base\":\"0xffd03000\"",
	  "\"kind\":\"SYSTEM32\""}},
	{"image-path-forms",
	 {"\"file_name\":\"\\\\SystemRoot\\\\system32\\\\ntoskrnl.exe\"",
	  "\"file_name\":\"\\\\Device\\\\HarddiskVolume3\\\\Windows\\\\System32\\\\d.dll\"",
	  "\"file_name\":\"\\\\??\\\\C:\\\\Tools\\\\e.dll\"", "\"file_name\":\"f.dll\""}},
	{"image-path-forms-x86", {"\"file_name\":\"f.dll\"", "\"kind\":\"SYSTEM32\""}},
	{"ktc-dbgid-rsds",
	 {"\"guid\":\"{b3e675d7-2554-4f18-830b-2762732560de}\",\"class_type\":36,",
	  "\"guid\":\"{3C8F0528-9C07-4257-9192-78EA9AA6A1F4}\"", "\"pdb\":\"g.pdb\"",
	  "\"class_type\":32,"}},
};

/* How many times @needle occurs in @hay. */
static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
		n++;
	}
	return n;
}

Test(corpus, image_and_stack_cases_decode_as_they_say)
{
	json_t *all;

	make_corpus("c", "");
	all = manifest("c");
	for (size_t k = 0; k < sizeof(image_cases) / sizeof(image_cases[0]); k++) {
		json_t *o = find_id(all, image_cases[k].id), *offs, *x;
		char p[600], *want;
		size_t i;

		cr_assert_not_null(o, "%s: not in the corpus", image_cases[k].id);
		cr_assert_str_eq(jstr(o, "kind"), "valid");
		cr_assert(json_is_true(json_object_get(o, "verifies")), "%s", image_cases[k].id);
		snprintf(p, sizeof(p), "c/%s", jstr(o, "expected"));
		want = slurp(test_path(p), NULL);
		cr_assert_null(strstr(want, "decode_error"), "%s: %s", image_cases[k].id,
			       strstr(want, "decode_error"));
		for (size_t j = 0; j < 4 && image_cases[k].want[j]; j++) {
			cr_assert_not_null(strstr(want, image_cases[k].want[j]), "%s: no %s",
					   image_cases[k].id, image_cases[k].want[j]);
		}
		offs = json_object_get(o, "offsets");
		cr_assert_gt(json_array_size(offs), 0, "%s: no mark", image_cases[k].id);
		json_array_foreach(offs, i, x)
		{
			cr_assert_not_null(json_object_get(x, "record"), "%s: mark '%s' not found",
					   image_cases[k].id, jstr(x, "what"));
		}
		if (!strcmp(image_cases[k].id, "image-unloaded-twice")) {
			cr_assert_eq(count_of(want, "\"event\":\"unload\""), 2);
		}
		if (!strcmp(image_cases[k].id, "stack-depth-192")) {
			/* 192 frames: 192 addresses in the one list */
			const char *f = strstr(want, "\"frames\":[");

			cr_assert_not_null(f);
			cr_assert_eq(count_of(f, ","), 191 + count_of(strchr(f, ']'), ","));
		}
		free(want);
	}
	json_decref(all);
}

/* The image/stack rules: in the mangled set, read (status 0) with the record named. */
Test(corpus, image_and_stack_rules_report_the_record)
{
	static const struct {
		const char *id, *cls, *msg;
	} rules[] = {
		{"mangle-stack-walk-0-frames", "stack-walk-no-frames", "\"frames\":[]"},
		{"mangle-stack-walk-ragged", "payload-short", "StackWalk payload too short"},
		{"mangle-stack-walk-ragged-x86", "payload-short", "StackWalk payload too short"},
		{"mangle-image-file-name-past-payload", "payload-short", "Image payload too short"},
		{"mangle-image-file-name-past-payload-x86", "payload-short",
		 "Image payload too short"},
		{"mangle-dbgid-pdb-unterminated", "payload-short", "DbgID_RSDS payload too short"},
		{"mangle-dbgid-cut-in-guid", "payload-short", "DbgID_RSDS payload too short"},
	};
	json_t *all;

	make_corpus("m", "--mangle");
	all = manifest("m");
	for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
		json_t *o = find_id(all, rules[k].id), *ex;
		char p[600], *want;
		int rc;

		cr_assert_not_null(o, "%s: not in the mangled set", rules[k].id);
		ex = json_object_get(o, "expect");
		cr_assert_str_eq(jstr(ex, "class"), rules[k].cls);
		cr_assert_eq(json_integer_value(json_object_get(ex, "status")), 0);
		rc = test_run("cd '%s' && '%s' dump --jsonl '%s.etl' > '%s.out' 2>&1",
			      test_path("m"), test_bin(), rules[k].id, rules[k].id);
		cr_assert_eq(rc, 0, "%s: dump exit %d", rules[k].id, rc);
		snprintf(p, sizeof(p), "m/%s.out", rules[k].id);
		want = slurp(test_path(p), NULL);
		cr_assert_eq(count_of(want, rules[k].msg), 1, "%s: '%s' not once", rules[k].id,
			     rules[k].msg);
		free(want);
	}
	json_decref(all);
}

/*
 * Image, stack and merged files: every mutant parses, most keep their
 * image and stack events, the mutator changes each kind of field and puts
 * images and stacks into a file that has none, and turns stack caching
 * on and off.
 */
Test(mutator, image_and_stack_records_mutate_and_stay_decodable)
{
	static const char *const files[] = {"ktc-dbgid-rsds",	"stack-depth-odd-x86",
					    "image-path-forms", "stack-other-cpu",
					    "header-clock-qpc", "stack-keys"};
	static const char *const notes[] = {"image-base", "image-event",	"image-path",
					    "image-pdb",  "stack-depth",	"stack-thread",
					    "stack-cpu",  "image-stack-insert", "stack-cache"};
	ETWFORGE_OPTS(etwforge_mutator_opts, o, .seed = 23, .mangle_percent = 0);
	struct etwforge_mutator *m = etwforge_mutator_new(&o, NULL);
	size_t kept = 0, total = 0, seen[9] = {0}, keyed = 0;

	make_corpus("c", "");
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		char p[600], what[300];
		size_t len;
		uint8_t *in;

		snprintf(p, sizeof(p), "c/%s.etl", files[k]);
		in = read_file(test_path(p), &len);
		for (int i = 0; i < 200; i++) {
			const uint8_t *out;
			size_t n = etwforge_mutator_mutate(m, in, len, NULL, 0, 0, &out);
			const char *d = etwforge_mutator_describe(m);

			snprintf(what, sizeof(what), "%s mutant %d (%s)", files[k], i, d);
			assert_parses(out, n, what);
			total++;
			kept += events_of(out, n, ETWFORGE_EV_IMAGE | ETWFORGE_EV_STACK) > 0;
			keyed += strstr(d, "stack-cache") &&
				 events_of(out, n, ETWFORGE_EV_STACK_KEY) > 0;
			for (size_t j = 0; j < 9; j++) {
				seen[j] += strstr(d, notes[j]) != NULL;
			}
		}
		free(in);
	}
	cr_assert_gt(kept, total / 2, "image/stack events kept in %zu of %zu", kept, total);
	cr_assert_gt(keyed, 0, "stack caching turned on never wrote a key reference");
	for (size_t j = 0; j < 9; j++) {
		cr_assert_gt(seen[j], 0, "the mutator never did %s", notes[j]);
	}
	etwforge_mutator_free(m);
}
