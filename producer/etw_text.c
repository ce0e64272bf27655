// SPDX-License-Identifier: MIT
/*
 * producer/etw_text.c - UTF-8 <-> UTF-16LE for the strings of ETW payloads,
 * and the bounded scans that find where a NUL-terminated string ends (see
 * etw_text.h). The scans never read past the length they are given.
 */
#include <errno.h>
#include <string.h>

#include "producer/etw_text.h"
#include "writer/etl_wire.h"

/*
 * utf8_next - decode the code point at @s[*i] into *@cp and advance *i.
 * Return: 0, or -EINVAL for a malformed, overlong or surrogate sequence.
 */
static int utf8_next(const unsigned char *s, size_t *i, uint32_t *cp)
{
	unsigned char c = s[*i];
	uint32_t v, min;
	unsigned n, k;

	if (c < 0x80) {
		*cp = c;
		*i += 1;
		return 0;
	}
	if ((c & 0xE0) == 0xC0) {
		n = 1, v = c & 0x1Fu, min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		n = 2, v = c & 0x0Fu, min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		n = 3, v = c & 0x07u, min = 0x10000;
	} else {
		return -EINVAL;
	}
	for (k = 1; k <= n; k++) {
		/* the NUL terminator fails this test, so no read goes past it */
		if ((s[*i + k] & 0xC0) != 0x80) {
			return -EINVAL;
		}
		v = v << 6 | (s[*i + k] & 0x3Fu);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
		return -EINVAL;
	}
	*cp = v;
	*i += n + 1;
	return 0;
}

int etw_wstr_from_utf8(const char *s, uint8_t *store, size_t cap, struct etw_wstr *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, units = 0;
	uint32_t cp;

	/* measure and validate first: nothing is written on failure */
	while (u[i]) {
		if (utf8_next(u, &i, &cp) < 0) {
			return -EINVAL;
		}
		units += cp >= 0x10000 ? 2 : 1;
	}
	if (units > cap / 2) {
		return -ENOSPC;
	}
	i = 0;
	for (size_t k = 0; u[i];) {
		(void)utf8_next(u, &i, &cp);
		if (cp >= 0x10000) {
			cp -= 0x10000;
			put_le16(store + 2 * k++, (uint16_t)(0xD800 | cp >> 10));
			put_le16(store + 2 * k++, (uint16_t)(0xDC00 | (cp & 0x3FF)));
		} else {
			put_le16(store + 2 * k++, (uint16_t)cp);
		}
	}
	out->le = units ? store : NULL;
	out->units = units;
	return 0;
}

/* utf8_put - append @cp (at most 4 bytes) at @out + *n if it fits before the NUL. */
static int utf8_put(char *out, size_t cap, size_t *n, uint32_t cp)
{
	unsigned char b[4];
	size_t len;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp, len = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xC0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3F)), len = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp & 0x3F)), len = 3;
	} else {
		b[0] = (unsigned char)(0xF0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		b[3] = (unsigned char)(0x80 | (cp & 0x3F)), len = 4;
	}
	if (cap - *n <= len) {
		return -ENOSPC;
	}
	memcpy(out + *n, b, len);
	*n += len;
	return 0;
}

int etw_wstr_to_utf8(struct etw_wstr w, char *out, size_t cap)
{
	size_t n = 0;

	if (cap == 0) {
		return -ENOSPC;
	}
	for (size_t i = 0; i < w.units; i++) {
		uint32_t cp = get_le16(w.le + 2 * i);

		if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < w.units) {
			uint32_t lo = get_le16(w.le + 2 * (i + 1));

			if (lo >= 0xDC00 && lo <= 0xDFFF) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				i++;
			}
		}
		if (cp >= 0xD800 && cp <= 0xDFFF) {
			cp = 0xFFFD;
		}
		if (utf8_put(out, cap, &n, cp) < 0) {
			out[0] = '\0';
			return -ENOSPC;
		}
	}
	out[n] = '\0';
	return (int)n;
}

bool etw_wstr_has_nul(struct etw_wstr w)
{
	for (size_t i = 0; i < w.units; i++) {
		if (get_le16(w.le + 2 * i) == 0) {
			return true;
		}
	}
	return false;
}

long etw_wstrz_scan(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 2 <= len; i += 2) {
		if (p[i] == 0 && p[i + 1] == 0) {
			return (long)(i / 2);
		}
	}
	return -EINVAL;
}

long etw_astrz_scan(const uint8_t *p, size_t len)
{
	const uint8_t *z = len ? memchr(p, 0, len) : NULL;

	return z ? (long)(z - p) : -EINVAL;
}
