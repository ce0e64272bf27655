/* SPDX-License-Identifier: MIT */
/*
 * writer/etl_wire.h - little-endian byte access and bit-field helpers.
 *
 * Every ETW/ETL layout in etwforge is written and read through these
 * functions at named offsets (see etw_layout.h, writer/etl_layout.h), never by
 * casting a buffer to a struct or through C bitfields: the wire format is
 * little-endian and MSVC-bitfield shaped whatever the host compiler does.
 * Header-only, C11, no builtins.
 *
 * On a little-endian host the 16/32/64-bit accessors are a memcpy() of the
 * native integer, which compilers turn into one (unaligned) load or store
 * at any optimisation level; elsewhere, or with ETL_WIRE_PORTABLE defined
 * (the portable test builds), they go byte by byte. Both write the same bytes.
 */
#ifndef WRITER_ETL_WIRE_H
#define WRITER_ETL_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if !defined(ETL_WIRE_PORTABLE) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ETL_WIRE_NATIVE_LE 1
#endif
#endif

/* Linux include/linux/bitfield.h style helpers for 32-bit masks. */
#define FIELD_LSB(m)	 ((uint32_t)(m) & (0u - (uint32_t)(m)))
#define FIELD_PREP(m, v) ((uint32_t)((uint32_t)(v)*FIELD_LSB(m)) & (uint32_t)(m))
#define FIELD_GET(m, r)	 (((uint32_t)(r) & (uint32_t)(m)) / FIELD_LSB(m))
#define FIELD_MAX(m)	 ((uint32_t)(m) / FIELD_LSB(m))
#define FIELD_FITS(m, v) ((uint64_t)(v) <= (uint64_t)FIELD_MAX(m))

static inline void put_u8(uint8_t *p, uint8_t v)
{
	p[0] = v;
}

static inline void put_le16(uint8_t *p, uint16_t v)
{
#ifdef ETL_WIRE_NATIVE_LE
	memcpy(p, &v, sizeof(v));
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
#endif
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
#ifdef ETL_WIRE_NATIVE_LE
	memcpy(p, &v, sizeof(v));
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
#ifdef ETL_WIRE_NATIVE_LE
	memcpy(p, &v, sizeof(v));
#else
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
#endif
}

/* Pointer-sized field: 4 bytes on x86, 8 on x64. */
static inline void put_ptr(uint8_t *p, unsigned ptr_size, uint64_t v)
{
	if (ptr_size == 4) {
		put_le32(p, (uint32_t)v);
	} else {
		put_le64(p, v);
	}
}

static inline uint8_t get_u8(const uint8_t *p)
{
	return p[0];
}

static inline uint16_t get_le16(const uint8_t *p)
{
#ifdef ETL_WIRE_NATIVE_LE
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint16_t)(p[0] | (uint16_t)(p[1] << 8));
#endif
}

static inline uint32_t get_le32(const uint8_t *p)
{
#ifdef ETL_WIRE_NATIVE_LE
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
#endif
}

static inline uint64_t get_le64(const uint8_t *p)
{
#ifdef ETL_WIRE_NATIVE_LE
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint64_t)get_le32(p) | ((uint64_t)get_le32(p + 4) << 32);
#endif
}

static inline uint64_t get_ptr(const uint8_t *p, unsigned ptr_size)
{
	return ptr_size == 4 ? get_le32(p) : get_le64(p);
}

/* Round up to the 8-byte record alignment (DEFAULT_TRACE_ALIGNMENT). */
static inline size_t etl_align8(size_t n)
{
	return (n + 7u) & ~(size_t)7u;
}

#endif /* WRITER_ETL_WIRE_H */
