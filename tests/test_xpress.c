// SPDX-License-Identifier: MIT
/*
 * tests/test_xpress.c - MS-XCA plain LZ77 decompression on streams typed by
 * hand from the spec (MS-XCA 2.4): flag words MSB first, 0 = literal,
 * 1 = match (u16: (offset - 1) << 3 | (length - 3), 7 = more length in a
 * half byte); and malformed streams that must be refused, not overrun.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "writer/etl_xpress.h"

Test(xpress, literals_then_an_overlapping_match)
{
	/* flags 0b0001 then ones = 0x1FFFFFFF: 'a' 'b' 'c', match offset 3 length 9:
	 * (2 << 3) | 6 = 0x0016; then a 1 flag with no input left ends the stream */
	static const uint8_t in[] = {0xFF, 0xFF, 0xFF, 0x1F, 'a', 'b', 'c', 0x16, 0x00};
	uint8_t out[32];

	cr_assert_eq(etl_xpress_decompress(in, sizeof(in), out, sizeof(out)), 12);
	cr_assert_eq(memcmp(out, "abcabcabcabc", 12), 0);
}

Test(xpress, half_byte_length)
{
	/* flags 0b01 then ones = 0x7FFFFFFF: 'a', match offset 1 length 3 + 7 + 5:
	 * u16 0x0007, then the half byte 0x05 */
	static const uint8_t in[] = {0xFF, 0xFF, 0xFF, 0x7F, 'a', 0x07, 0x00, 0x05};
	uint8_t out[32];

	cr_assert_eq(etl_xpress_decompress(in, sizeof(in), out, sizeof(out)), 16);
	for (unsigned i = 0; i < 16; i++) {
		cr_assert_eq(out[i], 'a');
	}
}

Test(xpress, byte_and_word_lengths)
{
	/* 'x', match offset 1: half byte 15 -> next byte 255 -> u16 300 -> 300 - 22 + 15 + 7 + 3 */
	static const uint8_t in[] = {0xFF, 0xFF, 0xFF, 0x7F, 'x', 0x07,
				     0x00, 0x0F, 0xFF, 0x2C, 0x01};
	uint8_t out[400];

	cr_assert_eq(etl_xpress_decompress(in, sizeof(in), out, sizeof(out)), 1 + 303);
	cr_assert_eq(out[303], 'x');
}

Test(xpress, output_is_capped)
{
	static const uint8_t in[] = {0xFF, 0xFF, 0xFF, 0x7F, 'a', 0x07, 0x00, 0x05};
	uint8_t out[8];

	memset(out, 0, sizeof(out));
	cr_assert_eq(etl_xpress_decompress(in, sizeof(in), out, 5), 5);
	cr_assert_eq(out[5], 0, "nothing past the cap");
}

Test(xpress, malformed_streams_are_refused)
{
	/* a match before anything was output */
	static const uint8_t early[] = {0x00, 0x00, 0x00, 0x80, 0x20, 0x00};
	/* a length-7 match whose half byte is missing */
	static const uint8_t cut[] = {0xFF, 0xFF, 0xFF, 0x7F, 'a', 0x07, 0x00};
	/* a u16 length below 22 */
	static const uint8_t small[] = {0xFF, 0xFF, 0xFF, 0x7F, 'x', 0x07,
					0x00, 0x0F, 0xFF, 0x05, 0x00};
	uint8_t out[64];

	cr_assert_eq(etl_xpress_decompress(early, sizeof(early), out, sizeof(out)), -EINVAL);
	cr_assert_eq(etl_xpress_decompress(cut, sizeof(cut), out, sizeof(out)), -EINVAL);
	cr_assert_eq(etl_xpress_decompress(small, sizeof(small), out, sizeof(out)), -EINVAL);
	/* every truncation of a good stream ends cleanly */
	static const uint8_t good[] = {0xFF, 0xFF, 0xFF, 0x1F, 'a', 'b', 'c', 0x16, 0x00};
	for (size_t n = 0; n <= sizeof(good); n++) {
		long r = etl_xpress_decompress(good, n, out, sizeof(out));

		cr_assert(r >= 0 && r <= 12, "length %zu gave %ld", n, r);
	}
}

/* ---- compression (MS-XCA 2.3): golden bytes typed by hand, then round trips ---- */

Test(xpress, compress_a_literal_and_a_short_match)
{
	/* "aaaa": 'a' is a literal, then a match at offset 1 of length 3: u16 0x0000;
	 * flags 0 (literal), 1 (match), then ones: 0x7FFFFFFF */
	static const uint8_t want[] = {0xFF, 0xFF, 0xFF, 0x7F, 'a', 0x00, 0x00};
	uint8_t out[32];

	cr_assert_eq(etl_xpress_compress((const uint8_t *)"aaaa", 4, out, sizeof(out)), 7);
	cr_assert_eq(memcmp(out, want, sizeof(want)), 0);
}

Test(xpress, compress_shares_a_half_byte_between_two_matches)
{
	/* 20 'a' then 20 'b': literal, match 1/19 (u16 0x0007, half byte 19-3-7 = 9),
	 * literal, match 1/19 (u16 0x0007, its 9 in the high half of the same byte);
	 * flags 0101 then ones = 0x5FFFFFFF */
	static const uint8_t want[] = {0xFF, 0xFF, 0xFF, 0x5F, 'a', 0x07,
				       0x00, 0x99, 'b',	 0x07, 0x00};
	uint8_t in[40], out[64];

	memset(in, 'a', 20);
	memset(in + 20, 'b', 20);
	cr_assert_eq(etl_xpress_compress(in, sizeof(in), out, sizeof(out)), (long)sizeof(want));
	cr_assert_eq(memcmp(out, want, sizeof(want)), 0);
}

Test(xpress, compress_empty_input_is_one_flag_word)
{
	static const uint8_t want[] = {0xFF, 0xFF, 0xFF, 0xFF};
	uint8_t out[8];

	cr_assert_eq(etl_xpress_compress(NULL, 0, out, sizeof(out)), 4);
	cr_assert_eq(memcmp(out, want, 4), 0);
	cr_assert_eq(etl_xpress_compress(NULL, 0, out, 3), -ENOSPC);
}

/* Compress @n bytes of @in, decompress them back, compare; Return: the compressed length. */
static long round_trip(const uint8_t *in, size_t n)
{
	static uint8_t z[300000], back[300000];
	long c = etl_xpress_compress(in, n, z, sizeof(z));

	cr_assert_geq(c, 0, "%zu bytes did not compress", n);
	cr_assert_leq((size_t)c, n + n / 8 + 8);
	cr_assert_eq(etl_xpress_decompress(z, (size_t)c, back, n), (long)n);
	cr_assert_eq(memcmp(back, in, n), 0, "round trip of %zu bytes differs", n);
	if (c > 4) {
		cr_assert_eq(etl_xpress_compress(in, n, z, (size_t)c - 1), -ENOSPC);
	}
	return c;
}

Test(xpress, compress_round_trips)
{
	static uint8_t buf[200000];
	uint64_t s = 1;

	/* every length of a long run: 0xFFFF + 22 and past use the u16 and u32 forms */
	memset(buf, 'z', sizeof(buf));
	cr_assert_lt(round_trip(buf, sizeof(buf)), 64);
	for (size_t n = 0; n < 300; n++) {
		round_trip(buf, n);
	}
	round_trip(buf, 0xFFFF + 25);
	round_trip(buf, 0xFFFF + 26);
	/* noise: nothing matches, every flag a literal */
	for (size_t i = 0; i < sizeof(buf); i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(s >> 56);
	}
	round_trip(buf, 4096);
	round_trip(buf, sizeof(buf));
	/* structured: a small alphabet, matches of every length and offset up to 8192 */
	for (size_t i = 0; i < sizeof(buf); i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)('a' + (s >> 61));
		if (i > 9000 && (s >> 40) % 7 == 0) {
			size_t from = i - 1 - (size_t)((s >> 20) % 8200),
			       k = (size_t)((s >> 8) % 300);

			while (k-- && i + 1 < sizeof(buf)) {
				buf[++i] = buf[++from];
			}
		}
	}
	for (size_t n = 1; n < sizeof(buf); n = n * 3 + 1) {
		round_trip(buf, n);
	}
}
