// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/clock.c - a file's clock (see clock.h). Conversions
 * split a value into whole seconds and the rest, so that nothing overflows
 * for any clock up to 18 GHz (every real one).
 */
#include <limits.h>

#include "tools/lib/analysis/clock.h"
#include "tools/lib/read/read.h"

#define NS_PER_S    1000000000ull
#define FILETIME_NS 100 /* one FILETIME unit */

uint64_t an_span_ns(const struct an_clock *c, uint64_t d)
{
	uint64_t q = d / c->hz, r = d % c->hz;
	/* r * 10^9 fits while hz < 1.8e10; a damaged file's faster clock is rounded down */
	uint64_t r_ns = r <= UINT64_MAX / NS_PER_S ? r * NS_PER_S / c->hz : r / (c->hz / NS_PER_S);

	return q > (UINT64_MAX - r_ns) / NS_PER_S ? UINT64_MAX : q * NS_PER_S + r_ns;
}

int64_t an_ns(const struct an_clock *c, uint64_t ts)
{
	uint64_t d = ts >= c->start_ts ? ts - c->start_ts : c->start_ts - ts;
	uint64_t ns = an_span_ns(c, d);

	if (ns > (uint64_t)INT64_MAX) {
		ns = (uint64_t)INT64_MAX;
	}
	return ts >= c->start_ts ? (int64_t)ns : -(int64_t)ns;
}

/* Clock units of @ns nanoseconds, rounded up (saturated). */
static uint64_t ticks_up(const struct an_clock *c, uint64_t ns)
{
	uint64_t q = ns / NS_PER_S, r = ns % NS_PER_S;
	uint64_t r_t = c->hz <= UINT64_MAX / NS_PER_S ? (r * c->hz + NS_PER_S - 1) / NS_PER_S
						      : r * (c->hz / NS_PER_S);

	return q > (UINT64_MAX - r_t) / c->hz ? UINT64_MAX : q * c->hz + r_t;
}

/*
 * The fewest clock units whose span is @ns or more (UINT64_MAX when none),
 * searched from the estimate @t: a step or two for a real clock, whose
 * estimate is exact or next to it. A damaged file's clock past 1.8e10 Hz
 * (its spans rounded coarsely) can put the estimate billions of units off:
 * the search gallops out from it, then halves, as an_span_ns() does not
 * decrease as units are added.
 */
static uint64_t first_at_least(const struct an_clock *c, uint64_t t, uint64_t ns)
{
	uint64_t lo, hi, step = 1;

	if (t > 0 && an_span_ns(c, t - 1) >= ns) {
		hi = t - 1; /* its span is enough: look lower */
		for (;;) {
			lo = hi > step ? hi - step : 0;
			if (an_span_ns(c, lo) < ns) {
				break;
			}
			if (lo == 0) {
				return 0;
			}
			hi = lo;
			step *= 2;
		}
	} else if (an_span_ns(c, t) < ns) {
		lo = t; /* its span is short: look higher */
		for (;;) {
			hi = UINT64_MAX - lo > step ? lo + step : UINT64_MAX;
			if (an_span_ns(c, hi) >= ns) {
				break;
			}
			if (hi == UINT64_MAX) {
				return UINT64_MAX;
			}
			lo = hi;
			step *= 2;
		}
	} else {
		return t;
	}
	/* the span of lo is short of @ns, that of hi is not */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (an_span_ns(c, mid) >= ns) {
			hi = mid;
		} else {
			lo = mid;
		}
	}
	return hi;
}

uint64_t an_ts_at(const struct an_clock *c, int64_t ns)
{
	uint64_t t;

	if (ns >= 0) {
		t = ticks_up(c, (uint64_t)ns);
		return t > UINT64_MAX - c->start_ts ? UINT64_MAX : c->start_ts + t;
	}
	/*
	 * Before the start: the latest ts at least -ns before it, rounded towards
	 * the start; t units before it are too early once their span (saturated
	 * at INT64_MAX, as an_ns()) passes -ns.
	 */
	t = ticks_up(c, (uint64_t)0 - (uint64_t)ns);
	t = t ? t - 1 : 0;
	if (t > 0 && t <= c->start_ts && ns > -INT64_MAX &&
	    an_span_ns(c, t) > (uint64_t)0 - (uint64_t)ns) {
		uint64_t first = first_at_least(c, t, (uint64_t)0 - (uint64_t)ns + 1);

		t = first <= t ? first - 1 : t;
	}
	return t > c->start_ts ? 0 : c->start_ts - t;
}

/* floor(log2(@v)), @v > 0. */
static int log2_floor(uint64_t v)
{
#if defined(__GNUC__)
	return 63 - __builtin_clzll(v);
#else
	int n = 0;

	while (v >>= 1) {
		n++;
	}
	return n;
#endif
}

/* The end of tracing when EndTime does not say it: the latest buffer. */
static int64_t last_buffer_ns(struct etwforge_file *f, const struct an_clock *c)
{
	struct etwforge_iter *it = read_iter_new(f, ETWFORGE_ORDER_FILE, ETWFORGE_EV_BUFFER, NULL);
	const struct etwforge_event *ev;
	int64_t end = 0;

	while (it && read_iter_next(it, &ev, NULL) == 1) {
		if (ev->u.buffer.index > 0 && ev->u.buffer.timestamp > 0) {
			int64_t t = an_ns(c, (uint64_t)ev->u.buffer.timestamp);

			end = t > end ? t : end;
		}
	}
	read_iter_free(it);
	return end;
}

void an_clock_init(struct an_clock *c, struct etwforge_file *f)
{
	const struct etwforge_file_info *in = read_file_info(f);

	switch (in->clock_type) {
	case 2: /* system time: 100 ns units */
		c->hz = NS_PER_S / FILETIME_NS;
		break;
	case 3: /* CPU cycles */
		c->hz = (uint64_t)in->cpu_mhz * 1000000u;
		break;
	default: /* QPC, and what the reader did not recognise */
		c->hz = in->perf_freq > 0 ? (uint64_t)in->perf_freq : 0;
		break;
	}
	if (c->hz == 0) {
		c->hz = NS_PER_S / FILETIME_NS;
	}
	c->start_ts = in->start_ts;
	c->tick_ns = (uint64_t)in->timer_resolution * FILETIME_NS;
	if (in->end_time > in->start_time) {
		/* the difference of two int64 is exact in uint64; saturate, as an_ns() */
		uint64_t d = (uint64_t)in->end_time - (uint64_t)in->start_time;

		c->end_ns = d > (uint64_t)INT64_MAX / FILETIME_NS ? INT64_MAX
								  : (int64_t)(d * FILETIME_NS);
	} else {
		c->end_ns = last_buffer_ns(f, c);
	}
	c->end_ts = an_ts_at(c, c->end_ns);
	an_clock_buckets(c);
}

void an_clock_buckets(struct an_clock *c)
{
	for (unsigned k = 0; k < 64; k++) {
		/* the first span of 2^k ns, from ticks_up() of it */
		c->bucket_at[k] =
			first_at_least(c, ticks_up(c, UINT64_C(1) << k), UINT64_C(1) << k);
	}
	/* ns per unit, as a power of two rounded down (1e9 / hz) */
	c->log2_ns_per_tick = c->hz <= NS_PER_S ? log2_floor(NS_PER_S / c->hz)
						: -log2_floor(c->hz / NS_PER_S) - 1;
}

unsigned an_bucket(const struct an_clock *c, uint64_t ticks)
{
	int k;

	/* the largest k with bucket_at[k] <= ticks: near log2(ticks) + log2(ns per unit) */
	if (ticks < c->bucket_at[1]) {
		return 0;
	}
	k = log2_floor(ticks) + c->log2_ns_per_tick;
	k = k < 1 ? 1 : k > 62 ? 62 : k;
	/* the ns are 1 or 2 times 2^k: one step up, taken without a branch (half the spans take
	 * it, a coin toss the predictor loses), then the walks below only check */
	k += c->bucket_at[k + 1] <= ticks;
	while (k < 63 && c->bucket_at[k + 1] <= ticks) {
		k++;
	}
	while (k > 1 && c->bucket_at[k] > ticks) {
		k--;
	}
	return (unsigned)k;
}
