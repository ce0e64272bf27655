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
