// SPDX-License-Identifier: MIT
/*
 * tests/fake_sink.c - the recording sink (see fake_sink.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "writer/etl_wire.h"
#include "tests/fake_sink.h"

size_t fake_sink_serialize(const struct sim_cswitch *cs, uint8_t out[FAKE_SINK_CSWITCH_BYTES])
{
	uint8_t *p = out;

	*p++ = 'C';
	put_le32(p, cs->cpu), p += 4;
	put_le32(p, cs->tick), p += 4;
	for (unsigned k = 0; k < SIM_CLOCK_SLOTS; k++) {
		put_le64(p, cs->ts[k]), p += 8;
	}
	put_le32(p, cs->old_tid), p += 4;
	*p++ = (uint8_t)cs->old_pri;
	*p++ = (uint8_t)cs->old_base_pri;
	*p++ = cs->old_state;
	*p++ = cs->old_wait_reason;
	*p++ = cs->old_wait_mode;
	put_le32(p, cs->old_ideal_cpu), p += 4;
	put_le32(p, (uint32_t)(uint64_t)cs->old_remaining_quantum), p += 4;
	*p++ = cs->old_qos;
	*p++ = cs->prev_cstate;
	*p++ = (uint8_t)cs->old_rank;
	put_le32(p, cs->new_tid), p += 4;
	*p++ = (uint8_t)cs->new_pri;
	*p++ = (uint8_t)cs->new_pri_decrement;
	put_le32(p, cs->new_wait_ticks), p += 4;
	*p++ = cs->new_qos;
	for (unsigned k = 0; k < SIM_MAX_COUNTERS; k++) {
		put_le64(p, cs->pmc[k]), p += 8;
	}
	put_le64(p, cs->pebs_index), p += 8;
	return (size_t)(p - out);
}

static int on_cswitch(void *ctx, const struct sim_cswitch *cs)
{
	struct fake_sink *fs = ctx;
	uint8_t b[FAKE_SINK_CSWITCH_BYTES];
	int rc;

	if (fs->fail_rc && fs->ncswitch >= fs->fail_after) {
		return fs->fail_rc;
	}
	if (fs->check) {
		rc = fs->check(fs->check_ctx, cs);
		if (rc) {
			return rc;
		}
	}
	if (fs->kept < fs->keep_cap) {
		fs->keep[fs->kept++] = *cs;
	}
	XXH3_64bits_update(fs->hash, b, fake_sink_serialize(cs, b));
	fs->ncswitch++;
	return 0;
}

static int on_spinlock(void *ctx, const struct sim_spinlock *sl)
{
	struct fake_sink *fs = ctx;

	(void)sl;
	fs->nspinlock++;
	return 0;
}

static int on_stop(void *ctx, const struct sim_ccswap_stop *st)
{
	struct fake_sink *fs = ctx;

	(void)st;
	fs->nstop++;
	return 0;
}

static int on_end(void *ctx, const struct sim_end *end)
{
	struct fake_sink *fs = ctx;
	uint8_t b[1 + 4 + 8 * SIM_CLOCK_SLOTS], *p = b;

	*p++ = 'E';
	put_le32(p, end->tick), p += 4;
	for (unsigned k = 0; k < SIM_CLOCK_SLOTS; k++) {
		put_le64(p, end->ts[k]), p += 8;
	}
	XXH3_64bits_update(fs->hash, b, sizeof(b));
	fs->end = *end;
	fs->nend++;
	return 0;
}

static const struct trace_sink_ops fake_sink_ops = {
	.cswitch = on_cswitch,
	.spinlock = on_spinlock,
	.ccswap_stop = on_stop,
	.end = on_end,
};

int fake_sink_init(struct fake_sink *fs, size_t keep)
{
	memset(fs, 0, sizeof(*fs));
	fs->hash = XXH3_createState();
	if (!fs->hash) {
		return -ENOMEM;
	}
	XXH3_64bits_reset(fs->hash);
	if (keep) {
		fs->keep = calloc(keep, sizeof(*fs->keep));
		if (!fs->keep) {
			XXH3_freeState(fs->hash);
			fs->hash = NULL;
			return -ENOMEM;
		}
	}
	fs->keep_cap = keep;
	return 0;
}

void fake_sink_finish(struct fake_sink *fs)
{
	XXH3_freeState(fs->hash);
	free(fs->keep);
	fs->hash = NULL;
	fs->keep = NULL;
}

struct trace_sink fake_sink(struct fake_sink *fs)
{
	struct trace_sink s = {.ops = &fake_sink_ops, .ctx = fs};

	return s;
}

uint64_t fake_sink_digest(const struct fake_sink *fs)
{
	return XXH3_64bits_digest(fs->hash);
}
