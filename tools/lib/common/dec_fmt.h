/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/dec_fmt.h - integers in decimal, as printf's %llu and
 * %lld write them, for the writers that print millions of them (the truth
 * stream, the JSON writer). Inline: the truth writer formats about twenty
 * a line.
 *
 * One or two digits come from a byte or the two-digit table; three to
 * eight are made all at once in one 64-bit word (SWAR: the value split in
 * two 4-digit halves, each divided by 100, each of those by 10, lane by
 * lane with multiplications, then '0' added to every byte), the leading
 * zeros shifted out and the word stored whole; larger values are eight
 * digits at a time from the bottom. About 25 instructions for any value
 * below 10^8, where dividing by 100 a step took up to 60.
 *
 * The stores are 8 bytes wide: the caller has DEC_ROOM writable bytes at
 * @p (past the digits: scratch the next text overwrites).
 */
#ifndef TOOLS_LIB_COMMON_DEC_FMT_H
#define TOOLS_LIB_COMMON_DEC_FMT_H

#include <stdint.h>
#include <string.h>

/*
 * Inlined at every call: each field's own copy of the length tests is
 * predicted on that field's values (one shared copy mixes them all).
 */
#if defined(__GNUC__)
#define DEC_INLINE inline __attribute__((always_inline))
#else
#define DEC_INLINE inline
#endif

/* Bytes a dec_*() call may store at @p: "-9223372036854775808" and the wide stores' slack. */
#define DEC_ROOM 24u

/* 00, 01, ..., 99 */
static const char dec_digits2[201] = "00010203040506070809101112131415161718192021222324"
				     "25262728293031323334353637383940414243444546474849"
				     "50515253545556575859606162636465666768697071727374"
				     "75767778798081828384858687888990919293949596979899";

/*
 * The eight digits of @v < 10^8, leading zeros included, one per byte,
 * the most significant in the lowest byte (as they lie in memory on a
 * little-endian machine): values 0..9, not yet ASCII.
 */
static inline uint64_t dec8_digits(uint32_t v)
{
	uint64_t hi = v / 10000u;
	uint64_t x = hi | (uint64_t)(v - (uint32_t)hi * 10000u) << 32; /* two 4-digit lanes */
	/* each lane / 100: (x * 5243) >> 19 is exact below 43699, and stays in its lane */
	uint64_t y = ((x * 5243u) >> 19) & UINT64_C(0x0000007F0000007F);
	uint64_t w = y | (x - y * 100u) << 16; /* four 2-digit lanes */
	/* each lane / 10: (w * 103) >> 10 is exact below 179 */
	uint64_t t = ((w * 103u) >> 10) & UINT64_C(0x000F000F000F000F);

	return t | (w - t * 10u) << 8;
}

/* Store the 8 bytes of @word at @p, lowest first. */
static inline void dec_store8(char *p, uint64_t word)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &word, 8);
#else
	for (unsigned i = 0; i < 8; i++) {
		p[i] = (char)(word >> (8 * i));
	}
#endif
}

/* Trailing zero bits of @x != 0. */
static inline unsigned dec_ctz64(uint64_t x)
{
#if defined(__GNUC__)
	return (unsigned)__builtin_ctzll(x);
#else
	unsigned n = 0;

	while (!(x & 1u)) {
		x >>= 1;
		n++;
	}
	return n;
#endif
}

#define DEC_ASCII UINT64_C(0x3030303030303030)

/* @v (1 <= @v < 10^8) at @p, without leading zeros. Return: past it. */
static inline char *dec_lt1e8(char *p, uint32_t v)
{
	uint64_t d = dec8_digits(v);
	unsigned lead = dec_ctz64(d) >> 3; /* zero digits before the first (d != 0) */

	dec_store8(p, (d + DEC_ASCII) >> (8u * lead));
	return p + 8 - lead;
}

/* @v < 10^8 at @p as all eight digits. Return: past them. */
static inline char *dec_8(char *p, uint32_t v)
{
	dec_store8(p, dec8_digits(v) + DEC_ASCII);
	return p + 8;
}

/* @v in decimal at @p (DEC_ROOM bytes of room). Return: past it. */
static DEC_INLINE char *dec_u64(char *p, uint64_t v)
{
	if (v < 10u) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100u) {
		memcpy(p, dec_digits2 + 2 * v, 2);
		return p + 2;
	}
	if (v < 100000000u) {
		return dec_lt1e8(p, (uint32_t)v);
	}
	uint64_t hi = v / 100000000u;
	uint32_t lo = (uint32_t)(v - hi * 100000000u);

	if (hi < 100000000u) {
		p = dec_lt1e8(p, (uint32_t)hi);
	} else {
		uint32_t top = (uint32_t)(hi / 100000000u); /* at most 1844 */

		p = dec_lt1e8(p, top);
		p = dec_8(p, (uint32_t)(hi - (uint64_t)top * 100000000u));
	}
	return dec_8(p, lo);
}

/* @v in decimal at @p, a '-' first when negative (DEC_ROOM bytes). Return: past it. */
static DEC_INLINE char *dec_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return dec_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return dec_u64(p, (uint64_t)v);
}

#endif /* TOOLS_LIB_COMMON_DEC_FMT_H */
