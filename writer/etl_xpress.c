// SPDX-License-Identifier: MIT
/*
 * writer/etl_xpress.c - MS-XCA plain LZ77 decompression and compression
 * (see etl_xpress.h).
 *
 * The stream is 32-bit little-endian flag words, most significant bit
 * first: 0 = one literal byte, 1 = a match: a u16 with offset - 1 in its
 * top 13 bits and length - 3 in its low 3; a length of 7 continues in a
 * shared half byte, then a byte, then a u16 and a u32 (MS-XCA 2.4).
 */
#include <errno.h>
#include <stdbool.h>

#include "writer/etl_wire.h"
#include "writer/etl_xpress.h"

long etl_xpress_decompress(const uint8_t *in, size_t inlen, uint8_t *out, size_t outlen)
{
	size_t ip = 0, op = 0, half = 0; /* half: where the pending half byte is (0 = none) */
	uint32_t flags = 0;
	unsigned nflags = 0;

	while (op < outlen) {
		if (nflags == 0) {
			if (inlen - ip < 4) {
				break; /* the input ends: what was produced is the output */
			}
			flags = get_le32(in + ip);
			ip += 4;
			nflags = 32;
		}
		nflags--;
		if (!(flags & (1u << nflags))) {
			if (ip >= inlen) {
				break;
			}
			out[op++] = in[ip++];
			continue;
		}
		if (inlen - ip < 2) {
			break; /* end of stream marker: a match flag with no input left */
		}
		uint32_t mb = get_le16(in + ip);
		size_t off = (mb >> 3) + 1u;
		size_t len = mb & 7u;

		ip += 2;
		if (len == 7) {
			if (half == 0) {
				if (ip >= inlen) {
					return -EINVAL;
				}
				len = in[ip] & 15u;
				half = ip++;
			} else {
				len = in[half] >> 4;
				half = 0;
			}
			if (len == 15) {
				if (ip >= inlen) {
					return -EINVAL;
				}
				len = in[ip++];
				if (len == 255) {
					if (inlen - ip < 2) {
						return -EINVAL;
					}
					len = get_le16(in + ip);
					ip += 2;
					if (len == 0) {
						if (inlen - ip < 4) {
							return -EINVAL;
						}
						len = get_le32(in + ip);
						ip += 4;
					}
					if (len < 15 + 7) {
						return -EINVAL;
					}
					len -= 15 + 7;
				}
				len += 15;
			}
			len += 7;
		}
		len += 3;
		if (off > op) {
			return -EINVAL;
		}
		for (size_t k = 0; k < len && op < outlen; k++, op++) {
			out[op] = out[op - off]; /* may overlap: byte by byte on purpose */
		}
	}
	return (long)op;
}

/*
 * Compression (MS-XCA 2.3). A flag word is reserved before the items it
 * describes and written once 32 items are out; a match's extra length goes
 * into a half byte shared by two matches, then a byte, then a u16 / u32.
 */
#define XP_HASH_BITS 12
#define XP_MAX_OFF   8192u

struct xp_out {
	uint8_t *p;
	size_t cap;
	size_t pos;
	bool full;
};

static void xp_byte(struct xp_out *o, uint8_t v)
{
	if (o->pos < o->cap) {
		o->p[o->pos] = v;
	} else {
		o->full = true;
	}
	o->pos++;
}

static void xp_le16(struct xp_out *o, uint32_t v)
{
	xp_byte(o, (uint8_t)v);
	xp_byte(o, (uint8_t)(v >> 8));
}

static void xp_le32_at(struct xp_out *o, size_t at, uint32_t v)
{
	if (at + 4 <= o->cap) {
		put_le32(o->p + at, v);
	} else {
		o->full = true;
	}
}

static unsigned xp_hash(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;

	return (unsigned)((v * 2654435761u) >> (32 - XP_HASH_BITS));
}

/* Write one match of @len (>= 3) bytes at distance @off (1..8192). */
static void xp_match(struct xp_out *o, size_t *half, size_t off, size_t len)
{
	size_t l = len - 3;

	if (l < 7) {
		xp_le16(o, (uint32_t)((off - 1) << 3 | l));
		return;
	}
	xp_le16(o, (uint32_t)((off - 1) << 3 | 7u));
	l -= 7;
	if (*half == SIZE_MAX) {
		*half = o->pos;
		xp_byte(o, (uint8_t)(l < 15 ? l : 15));
	} else {
		if (*half < o->cap) {
			o->p[*half] |= (uint8_t)((l < 15 ? l : 15) << 4);
		}
		*half = SIZE_MAX;
	}
	if (l < 15) {
		return;
	}
	l -= 15;
	if (l < 255) {
		xp_byte(o, (uint8_t)l);
		return;
	}
	xp_byte(o, 255);
	l += 15 + 7;
	if (l <= 0xFFFFu) {
		xp_le16(o, (uint32_t)l);
	} else {
		xp_le16(o, 0);
		xp_le16(o, (uint32_t)l);
		xp_le16(o, (uint32_t)(l >> 16));
	}
}

long etl_xpress_compress(const uint8_t *in, size_t inlen, uint8_t *out, size_t outcap)
{
	size_t head[1u << XP_HASH_BITS];
	struct xp_out o = {out, outcap, 4, false};
	size_t ip = 0, flag_at = 0, half = SIZE_MAX;
	uint64_t flags = 0;
	unsigned nflags = 0;

	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++) {
		head[i] = SIZE_MAX;
	}
	while (ip < inlen) {
		size_t len = 0, off = 0;

		if (inlen - ip >= 3) {
			unsigned h = xp_hash(in + ip);
			size_t cand = head[h];

			head[h] = ip;
			if (cand != SIZE_MAX && ip - cand <= XP_MAX_OFF) {
				while (ip + len < inlen && in[cand + len] == in[ip + len]) {
					len++;
				}
				off = ip - cand;
			}
		}
		if (len >= 3) {
			xp_match(&o, &half, off, len);
			flags = flags << 1 | 1u;
			/* index the positions the match covers, so later matches find them */
			for (size_t k = 1; k < len && ip + k + 3 <= inlen; k++) {
				head[xp_hash(in + ip + k)] = ip + k;
			}
			ip += len;
		} else {
			xp_byte(&o, in[ip++]);
			flags <<= 1;
		}
		if (++nflags == 32) {
			xp_le32_at(&o, flag_at, (uint32_t)flags);
			flags = 0;
			nflags = 0;
			flag_at = o.pos;
			o.pos += 4;
		}
	}
	/* the rest of the last flag word is 1s: a match with no input is the end */
	flags = flags << (32 - nflags) | ((UINT64_C(1) << (32 - nflags)) - 1u);
	xp_le32_at(&o, flag_at, (uint32_t)flags);
	if (o.full || o.pos > outcap) {
		return -ENOSPC;
	}
	return (long)o.pos;
}
