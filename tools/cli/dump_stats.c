// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_stats.c - `etwforge dump --stats`: the library counts the file
 * (etwforge_file_stats()), this prints the counts for people, or the
 * library's JSON object with --jsonl.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "dump.h"

static const char *const forms[4] = {"idle_short", "idle", "lite", "full"};

/* "SYSTEM64", "MESSAGE": the kind, with its width where it has one. */
static void label_of(char *out, size_t cap, unsigned k, unsigned is64)
{
	if (k >= 6) { /* MESSAGE, OTHER */
		snprintf(out, cap, "%s", etwforge_stats_kind_name(k));
	} else {
		snprintf(out, cap, "%s%s", etwforge_stats_kind_name(k), is64 ? "64" : "32");
	}
}

/* One count of @s (0 past the range: never asked here). */
static uint64_t count(const struct etwforge_stats *s, enum etwforge_stat what, unsigned i)
{
	uint64_t v = 0;

	etwforge_stats_count(s, what, i, &v);
	return v;
}

#define PROCESSES_LISTED 20

struct by_time {
	size_t row;
	uint64_t ns;
};

static int by_time_desc(const void *a, const void *b)
{
	const struct by_time *x = a, *y = b;

	if (x->ns != y->ns) {
		return x->ns > y->ns ? -1 : 1;
	}
	return x->row < y->row ? -1 : x->row > y->row;
}

static void put_ms(const char *label, uint64_t ns, double total)
{
	printf("  %-32s %12.3f %6.1f%%\n", label, (double)ns / 1e6,
	       total > 0 ? 100.0 * (double)ns / total : 0.0);
}

/* Where the CPU went: by kind of time, by process (busiest first) and idle by CPU. */
static void print_cpu_time(const struct etwforge_analysis *an)
{
	const struct etwforge_analysis_totals *t = etwforge_analysis_totals(an);
	double total = (double)(t->busy_ns + t->idle_ns + t->unknown_ns);
	struct by_time *v = calloc(t->processes ? t->processes : 1, sizeof(*v));
	uint64_t in_processes = 0, rest = 0;
	size_t n = 0;
	char label[64];

	printf("CPU time (ms, share)%s\n",
	       t->cpu_from_samples ? " from samples: the file has no switch" : "");
	put_ms("threads", t->busy_ns, total);
	put_ms("the idle thread", t->idle_ns, total);
	if (t->unknown_ns) {
		put_ms("nobody known (after compact)", t->unknown_ns, total);
	}
	if (!v) {
		return;
	}
	for (size_t i = 0; i < t->processes; i++) {
		const struct etwforge_process_row *p = etwforge_analysis_process(an, i);

		if (p && p->cpu_ns) {
			v[n++] = (struct by_time){i, p->cpu_ns};
			in_processes += p->cpu_ns;
		}
	}
	if (n) {
		qsort(v, n, sizeof(*v), by_time_desc);
		printf("CPU time by process (ms, share)\n");
	}
	for (size_t i = 0; i < n; i++) {
		const struct etwforge_process_row *p = etwforge_analysis_process(an, v[i].row);

		if (i >= PROCESSES_LISTED) {
			rest += v[i].ns;
			continue;
		}
		snprintf(label, sizeof(label), "%.22s (%" PRIu32 ")", p->image[0] ? p->image : "?",
			 p->pid);
		put_ms(label, v[i].ns, total);
	}
	if (n > PROCESSES_LISTED) {
		snprintf(label, sizeof(label), "%zu more processes", n - PROCESSES_LISTED);
		put_ms(label, rest, total);
	}
	if (n && t->busy_ns > in_processes) {
		put_ms("threads of no process", t->busy_ns - in_processes, total);
	}
	free(v);
	printf("the idle thread by cpu (ms, share of the CPU)\n");
	for (unsigned i = 0; i < etwforge_analysis_cpus(an); i++) {
		const struct etwforge_cpu_row *c = etwforge_analysis_cpu(an, i);

		snprintf(label, sizeof(label), "cpu %u", c->cpu);
		put_ms(label, c->idle_ns, (double)(c->busy_ns + c->idle_ns + c->unknown_ns));
	}
}

/* Samples in a known module and with a stack; the images; the stacks and their frames. */
static void print_images_stacks(const struct etwforge_analysis_totals *t)
{
	printf("  %-26s %12" PRIu64 "\n", "in a known module", t->samples_in_image);
	printf("  %-26s %12" PRIu64 "\n", "with a stack", t->samples_stacked);
	printf("%-28s %12zu\n", "images", t->images);
	printf("%-28s %12" PRIu64 "\n", "stack records", t->stack_records);
	printf("  %-26s %12" PRIu64 "\n", "keys unresolved", t->keys_unresolved);
	printf("  %-26s %12" PRIu64 "\n", "events with a stack", t->stack_events);
	printf("  %-26s %12zu\n", "distinct stacks", t->stacks);
	printf("  %-26s %12" PRIu64 "\n", "frames", t->frames);
	printf("  %-26s %12" PRIu64 "\n", "frames in a known module", t->frames_in_image);
}

static void print_text(struct etwforge_file *f, const struct etwforge_stats *s)
{
	const struct etwforge_analysis *an = etwforge_stats_analysis(s);
	char label[24];
	uint64_t nc = 0, v;

	for (unsigned k = 0; k < 4; k++) {
		nc += count(s, ETWFORGE_STAT_COMPACT, k);
	}
	printf("%-28s %s\n", "file", etwforge_file_info(f)->name);
	printf("%-28s %12" PRIu64 "\n", "buffers", count(s, ETWFORGE_STAT_BUFFERS, 0));
	printf("  %-26s %12" PRIu64 "\n", "compressed", count(s, ETWFORGE_STAT_COMPRESSED, 0));
	for (unsigned c = 0; etwforge_stats_count(s, ETWFORGE_STAT_BUFFERS_BY_CPU, c, &v) == 0;
	     c++) {
		if (v) {
			printf("  cpu %-22u %12" PRIu64 "\n", c, v);
		}
	}
	printf("%-28s %12" PRIu64 "\n", "records", count(s, ETWFORGE_STAT_RECORDS, 0));
	for (unsigned k = 0; k < 8; k++) {
		for (unsigned w = 0; w < 2; w++) {
			v = count(s,
				  w ? ETWFORGE_STAT_RECORDS_BY_KIND64
				    : ETWFORGE_STAT_RECORDS_BY_KIND32,
				  k);
			if (v) {
				label_of(label, sizeof(label), k, w);
				printf("  %-26s %12" PRIu64 "\n", label, v);
			}
		}
	}
	printf("records per hook\n");
	for (unsigned hk = 0; hk < 3; hk++) {
		for (unsigned w = 0; w < 2; w++) {
			label_of(label, sizeof(label), hk, w);
			for (int h = etwforge_stats_hook_next(s, hk, w, 0); h >= 0;
			     h = etwforge_stats_hook_next(s, hk, w, h + 1)) {
				etwforge_stats_hook(s, hk, w, (uint16_t)h, &v);
				printf("  %-16s 0x%04X    %12" PRIu64 "\n", label, h, v);
			}
		}
	}
	printf("records per cpu\n");
	for (unsigned c = 0; etwforge_stats_count(s, ETWFORGE_STAT_RECORDS_BY_CPU, c, &v) == 0;
	     c++) {
		if (v) {
			printf("  cpu %-22u %12" PRIu64 "\n", c, v);
		}
	}
	if (nc) {
		printf("%-28s %12" PRIu64 "\n", "compact switches", nc);
		for (unsigned k = 0; k < 4; k++) {
			printf("  %-26s %12" PRIu64 "\n", forms[k],
			       count(s, ETWFORGE_STAT_COMPACT, k));
		}
	}
	printf("%-28s %12" PRIu64 "\n", "with PEBS item", count(s, ETWFORGE_STAT_PEBS, 0));
	printf("%-28s %12" PRIu64 "\n", "with PMC items", count(s, ETWFORGE_STAT_PMC, 0));
	printf("%-28s %12" PRIu64 "\n", "trailing bytes", etwforge_file_info(f)->trailing_bytes);
	printf("%-28s %12" PRIu64 "\n", "processes", count(s, ETWFORGE_STAT_PROCESSES, 0));
	printf("%-28s %12" PRIu64 "\n", "threads", count(s, ETWFORGE_STAT_THREADS, 0));
	printf("%-28s %12" PRIu64 "\n", "ReadyThread events", count(s, ETWFORGE_STAT_READY, 0));
	if (an) {
		printf("  %-26s %12" PRIu64 "\n", "wake-ups (paired)",
		       etwforge_analysis_totals(an)->wakeups);
	}
	printf("%-28s %12" PRIu64 "\n", "SampledProfile events",
	       count(s, ETWFORGE_STAT_SAMPLES, 0));
	if (an) {
		print_images_stacks(etwforge_analysis_totals(an));
	}
	printf("switches to a thread\n");
	printf("  %-26s %12" PRIu64 "\n", "attributed",
	       count(s, ETWFORGE_STAT_SWITCHES_ATTRIBUTED, 0));
	printf("  %-26s %12" PRIu64 "\n", "unattributed",
	       count(s, ETWFORGE_STAT_SWITCHES_UNATTRIBUTED, 0));
	if (an) {
		print_cpu_time(an);
	}
}

static int print_json(struct etwforge_file *f, const struct etwforge_stats *s)
{
	size_t n = etwforge_stats_json(f, s, NULL, 0);
	char *buf = malloc(n + 1);

	if (!buf) {
		fprintf(stderr, "etwforge dump: out of memory\n");
		return EXIT_DATA;
	}
	etwforge_stats_json(f, s, buf, n + 1);
	fwrite(buf, 1, n, stdout);
	putchar('\n');
	free(buf);
	return EXIT_OK;
}

int dump_stats(struct etwforge_file *f, bool json, bool keep_going)
{
	struct etwforge_stats *s = etwforge_stats_new();
	struct damage_log dl = {0};
	struct etwforge_error *err = cli_err();
	int rc = EXIT_OK;

	if (!s) {
		fprintf(stderr, "etwforge dump: out of memory\n");
		return EXIT_DATA;
	}
	if (etwforge_file_stats(f, s, err) < 0) {
		/* counts up to the damage are not the file's: printed only with --keep-going,
		 * where they cover everything but the damaged places */
		damage_add(&dl, etwforge_error_message(err),
			   keep_going ? " (batch skipped)" : NULL);
	}
	if (dl.total == 0 || keep_going) {
		rc = json ? print_json(f, s) : (print_text(f, s), EXIT_OK);
	}
	damage_add_file(&dl, f, keep_going);
	if (damage_print(&dl, "etwforge dump", etwforge_file_info(f)->name, keep_going) &&
	    rc == EXIT_OK) {
		rc = EXIT_DATA;
	}
	etwforge_stats_free(s);
	return rc;
}
