// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_summary.c - the public face of a run's summary: made and
 * freed, read figure by figure, session by session and lock by lock, the
 * flush reasons' names, and the summary printed as text for people or as
 * the JSON object of run/summary.c.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/api.h"
#include "tools/lib/run/summary.h"
#include "tools/lib/common/json_out.h"

const char *etwforge_flush_reason_name(unsigned reason)
{
	return reason < SUMMARY_FLUSH_REASONS
		       ? producer_flush_reason_name((enum producer_flush_reason)reason)
		       : NULL;
}

struct etwforge_summary *etwforge_summary_new(void)
{
	return calloc(1, sizeof(struct etwforge_summary));
}

void etwforge_summary_free(struct etwforge_summary *sum)
{
	free(sum);
}

int etwforge_summary_totals(const struct etwforge_summary *sum, struct etwforge_totals *out,
			    struct etwforge_error *err)
{
	struct etwforge_totals t = sum->t;
	int rc = sized_check(out, sizeof(t), SIZED_FIRST_END(struct etwforge_totals, seed),
			     "struct etwforge_totals", err);

	if (rc < 0) {
		return rc;
	}
	t.sz = sizeof(t);
	sized_out(out, &t, sizeof(t));
	return 0;
}

int etwforge_summary_batches(const struct etwforge_summary *sum, unsigned reason, uint64_t *out)
{
	if (reason >= SUMMARY_FLUSH_REASONS) {
		return -ERANGE;
	}
	*out = sum->batches_by_reason[reason];
	return 0;
}

unsigned etwforge_summary_sessions(const struct etwforge_summary *sum)
{
	return sum->nsessions;
}

const struct etwforge_session_summary *etwforge_summary_session(const struct etwforge_summary *sum,
								unsigned i)
{
	return i < sum->nsessions && i < SUMMARY_MAX_SESSIONS ? &sum->sessions[i] : NULL;
}

unsigned etwforge_summary_locks(const struct etwforge_summary *sum)
{
	return sum->nlocks;
}

const struct etwforge_lock_summary *etwforge_summary_lock(const struct etwforge_summary *sum,
							  unsigned i)
{
	return i < sum->nlocks && i < SUMMARY_MAX_LOCKS ? &sum->locks[i] : NULL;
}

static void print_text(FILE *f, const struct etwforge_summary *sum)
{
	fprintf(f, "switches            %" PRIu64 "\n", sum->t.switches);
	if (sum->t.spinlock_releases) {
		fprintf(f, "spinlock releases   %" PRIu64 " (%" PRIu64 " events)\n",
			sum->t.spinlock_releases, sum->t.spinlock_events);
	}
	if (sum->t.batches || sum->t.batches_dropped) {
		fprintf(f,
			"compact batches     %" PRIu64 " (%" PRIu64 " records, %.1f per batch)\n",
			sum->t.batches, sum->t.batch_records,
			sum->t.batches ? (double)sum->t.batch_records / (double)sum->t.batches
				       : 0.0);
		fprintf(f, "  flushed by       ");
		for (unsigned r = 0; r < SUMMARY_FLUSH_REASONS; r++) {
			fprintf(f, " %s %" PRIu64, etwforge_flush_reason_name(r),
				sum->batches_by_reason[r]);
		}
		fprintf(f, "\n");
		if (sum->t.batches_dropped) {
			fprintf(f, "  dropped at end    %" PRIu64 "\n", sum->t.batches_dropped);
		}
	}
	if (sum->nlocks) {
		fprintf(f, "spin locks          %-24s %10s %7s %17s %17s %23s %9s %9s\n", "",
			"acquired", "spun", "spin mean/p99", "hold mean/p99",
			"logged hold/cont/sample", "untracked", "dropped");
		for (unsigned i = 0; i < sum->nlocks && i < SUMMARY_MAX_LOCKS; i++) {
			const struct etwforge_lock_summary *l = &sum->locks[i];
			char spin[40], hold[40], logged[48];

			snprintf(spin, sizeof(spin), "%" PRIu64 "/%" PRIu64, l->spin_mean,
				 l->spin_p99);
			snprintf(hold, sizeof(hold), "%" PRIu64 "/%" PRIu64, l->hold_mean,
				 l->hold_p99);
			snprintf(logged, sizeof(logged), "%" PRIu64 "/%" PRIu64 "/%" PRIu64,
				 l->logged_hold, l->logged_contended, l->logged_acquire_sample);
			fprintf(f,
				"  %-42s %10" PRIu64 " %6.2f%% %17s %17s %23s %9" PRIu64
				" %9" PRIu64 "\n",
				l->name, l->acquisitions,
				l->acquisitions
					? 100.0 * (double)l->contended / (double)l->acquisitions
					: 0.0,
				spin, hold, logged, l->untracked, l->dropped);
		}
		fprintf(f, "  (cycles; spin over the acquisitions that spun)\n");
	}
	fprintf(f, "events lost         %" PRIu64 "\n", sum->t.events_lost);
	for (unsigned i = 0; i < sum->nsessions; i++) {
		const struct etwforge_session_summary *s = &sum->sessions[i];

		fprintf(f,
			"%s: %" PRIu64 " events, %" PRIu64 " buffers, %" PRIu64
			" bytes, %.2f bytes/switch, ",
			s->file, s->events, s->buffers, s->bytes, s->bytes_per_switch);
		if (s->discarded) {
			fprintf(f, "discarded (not written, no xxh3)\n");
		} else {
			fprintf(f, "xxh3 %016" PRIx64 "\n", s->xxh3);
		}
	}
}

int etwforge_summary_print(FILE *f, const struct etwforge_summary *sum, bool json)
{
	if (json) {
		size_t cap = 4096 + SUMMARY_MAX_SESSIONS * 4400 + (size_t)sum->nlocks * 640;
		char *buf = malloc(cap);
		size_t n;

		if (!buf) {
			return -ENOMEM;
		}
		n = summary_json(sum, buf, cap);
		fwrite(buf, 1, n < cap ? n : cap - 1, f);
		free(buf);
	} else {
		print_text(f, sum);
	}
	return ferror(f) ? -EIO : 0;
}
