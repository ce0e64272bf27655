// SPDX-License-Identifier: MIT
/*
 * tests/test_etl_wire.c - the little-endian accessors of writer/etl_wire.h
 * against bytes typed by hand, at every alignment, with the bytes around
 * each store left alone. Built twice: as the host compiles it (memcpy of a
 * native integer on little-endian hosts) and with ETL_WIRE_PORTABLE (byte by
 * byte), so both paths are held to the same answers.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "writer/etl_wire.h"

#define POISON 0xA5

/* A 32-byte scratch area, poisoned; @off is where the value goes. */
static void poison(uint8_t *b)
{
	memset(b, POISON, 32);
}

/* Every byte of @b outside [off, off + n) still POISON. */
static void assert_untouched(const uint8_t *b, unsigned off, unsigned n)
{
	for (unsigned i = 0; i < 32; i++) {
		if (i < off || i >= off + n) {
			cr_assert_eq(b[i], POISON, "byte %u outside the field written", i);
		}
	}
}

Test(etl_wire, put_le16_at_every_alignment)
{
	static const uint8_t want[2] = {0x34, 0x12};
	uint8_t b[32];

	for (unsigned off = 0; off < 8; off++) {
		poison(b);
		put_le16(b + off, 0x1234);
		cr_assert_eq(memcmp(b + off, want, sizeof(want)), 0);
		assert_untouched(b, off, sizeof(want));
		cr_assert_eq(get_le16(b + off), 0x1234);
	}
}

Test(etl_wire, put_le32_at_every_alignment)
{
	static const uint8_t want[4] = {0x78, 0x56, 0x34, 0x12};
	uint8_t b[32];

	for (unsigned off = 0; off < 8; off++) {
		poison(b);
		put_le32(b + off, 0x12345678u);
		cr_assert_eq(memcmp(b + off, want, sizeof(want)), 0);
		assert_untouched(b, off, sizeof(want));
		cr_assert_eq(get_le32(b + off), 0x12345678u);
	}
}

Test(etl_wire, put_le64_at_every_alignment)
{
	static const uint8_t want[8] = {0xF0, 0xDE, 0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12};
	uint8_t b[32];

	for (unsigned off = 0; off < 16; off++) {
		poison(b);
		put_le64(b + off, 0x123456789ABCDEF0ull);
		cr_assert_eq(memcmp(b + off, want, sizeof(want)), 0);
		assert_untouched(b, off, sizeof(want));
		cr_assert_eq(get_le64(b + off), 0x123456789ABCDEF0ull);
	}
}

Test(etl_wire, top_bits_survive_the_round_trip)
{
	uint8_t b[32];

	poison(b);
	put_le16(b + 1, 0xFFFE);
	put_le32(b + 3, 0x80000001u);
	put_le64(b + 7, 0xFEDCBA9876543210ull);
	cr_assert_eq(b[1], 0xFE);
	cr_assert_eq(b[2], 0xFF);
	cr_assert_eq(b[3], 0x01);
	cr_assert_eq(b[6], 0x80);
	cr_assert_eq(b[7], 0x10);
	cr_assert_eq(b[14], 0xFE);
	cr_assert_eq(get_le16(b + 1), 0xFFFE);
	cr_assert_eq(get_le32(b + 3), 0x80000001u);
	cr_assert_eq(get_le64(b + 7), 0xFEDCBA9876543210ull);
	assert_untouched(b, 1, 14);
}

Test(etl_wire, pointer_fields_take_four_or_eight_bytes)
{
	uint8_t b[32];

	poison(b);
	put_ptr(b + 1, 4, 0x1122334455667788ull);
	cr_assert_eq(get_le32(b + 1), 0x55667788u, "x86: the low 32 bits");
	assert_untouched(b, 1, 4);
	cr_assert_eq(get_ptr(b + 1, 4), 0x55667788u);
	poison(b);
	put_ptr(b + 3, 8, 0x1122334455667788ull);
	cr_assert_eq(b[3], 0x88);
	cr_assert_eq(b[10], 0x11);
	assert_untouched(b, 3, 8);
	cr_assert_eq(get_ptr(b + 3, 8), 0x1122334455667788ull);
}
