// SPDX-License-Identifier: MIT
/*
 * tools/xpress.c - MS-XCA plain LZ77 decompression (see xpress.h).
 *
 * The stream is 32-bit little-endian flag words, most significant bit
 * first: 0 = one literal byte, 1 = a match: a u16 with offset - 1 in its
 * top 13 bits and length - 3 in its low 3; a length of 7 continues in a
 * shared half byte, then a byte, then a u16 and a u32 (MS-XCA 2.4).
 */
#include <errno.h>

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
