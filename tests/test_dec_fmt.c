// SPDX-License-Identifier: MIT
/*
 * tests/test_dec_fmt.c - the decimal formatter (tools/lib/common/dec_fmt.h)
 * against printf: the eight-digit word for every value below 10^8 against
 * an odometer of digits counted up by hand, and dec_u64() / dec_i64() at
 * every power of ten and its neighbours, the extremes, and a million
 * random values of every length; nothing is stored past DEC_ROOM.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/common/dec_fmt.h"

/* xorshift64: the same values on every run. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

Test(dec_fmt, eight_digit_words_all)
{
	unsigned char odo[8] = {0}; /* odo[0]: the most significant digit */

	for (uint32_t v = 0; v < 100000000u; v++) {
		uint64_t want = 0;

		for (unsigned i = 0; i < 8; i++) {
			want |= (uint64_t)odo[i] << (8 * i);
		}
		if (dec8_digits(v) != want) {
			cr_assert_fail("dec8_digits(%" PRIu32 ") = %016" PRIx64
				       ", want %016" PRIx64,
				       v, dec8_digits(v), want);
		}
		for (int i = 7; i >= 0 && ++odo[i] == 10; i--) {
			odo[i] = 0;
		}
	}
}

/* dec_u64(@v) and dec_i64 of ±@v against printf, in a buffer whose bytes past DEC_ROOM stay. */
static void check_u64(uint64_t v)
{
	char want[32], got[DEC_ROOM + 8];
	char *end;
	int n;

	memset(got, 'x', sizeof(got));
	end = dec_u64(got, v);
	n = snprintf(want, sizeof(want), "%" PRIu64, v);
	cr_assert_eq(end - got, n, "dec_u64(%s): %td characters", want, end - got);
	cr_assert(!memcmp(got, want, (size_t)n), "dec_u64(%s) = %.*s", want, n, got);
	for (size_t i = DEC_ROOM; i < sizeof(got); i++) {
		cr_assert_eq(got[i], 'x', "dec_u64(%s) stored at %zu", want, i);
	}
	if (v <= (uint64_t)INT64_MAX) {
		int64_t s[2] = {(int64_t)v, -(int64_t)v};

		for (unsigned k = 0; k < 2; k++) {
			memset(got, 'x', sizeof(got));
			end = dec_i64(got, s[k]);
			n = snprintf(want, sizeof(want), "%" PRId64, s[k]);
			cr_assert_eq(end - got, n, "dec_i64(%s): %td characters", want, end - got);
			cr_assert(!memcmp(got, want, (size_t)n), "dec_i64(%s) = %.*s", want, n,
				  got);
			for (size_t i = DEC_ROOM; i < sizeof(got); i++) {
				cr_assert_eq(got[i], 'x', "dec_i64(%s) stored at %zu", want, i);
			}
		}
	}
}

Test(dec_fmt, powers_and_extremes)
{
	uint64_t p = 1;

	for (unsigned k = 0; k < 20; k++, p *= 10) {
		check_u64(p - 1);
		check_u64(p);
		check_u64(p + 1);
		check_u64(p * 5);
		check_u64(p * 9 + (p - 1)); /* 99..9 of the next length */
	}
	check_u64(0);
	check_u64(UINT32_MAX);
	check_u64((uint64_t)UINT32_MAX + 1);
	check_u64((uint64_t)INT64_MAX);
	check_u64((uint64_t)INT64_MAX + 1);
	check_u64(UINT64_MAX);
	check_u64(UINT64_MAX - 1);

	char got[DEC_ROOM];
	char *end = dec_i64(got, INT64_MIN);

	cr_assert_eq(end - got, 20);
	cr_assert(!memcmp(got, "-9223372036854775808", 20));
}

Test(dec_fmt, random_every_length)
{
	uint64_t s = 0x9E3779B97F4A7C15ull;

	for (unsigned i = 0; i < 1000000; i++) {
		uint64_t v = next(&s);

		check_u64(v >> (next(&s) % 64)); /* every length, short ones as often as long */
	}
}
