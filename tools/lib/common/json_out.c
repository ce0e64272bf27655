// SPDX-License-Identifier: MIT
/*
 * tools/lib/common/json_out.c - the JSON writer (see json_out.h). Integers are
 * formatted by hand (dec_fmt.h): dump --jsonl writes a dozen per event, and
 * printf's locale-aware machinery costs more than the rest of the line.
 */
#include <stdio.h>
#include <string.h>

#include "tools/lib/common/dec_fmt.h"
#include "tools/lib/common/json_out.h"

void jout_init(struct jout *j, char *buf, size_t cap)
{
	j->buf = buf;
	j->cap = cap;
	j->len = 0;
	j->first = true;
}

size_t jout_finish(struct jout *j)
{
	if (j->cap) {
		j->buf[j->len < j->cap ? j->len : j->cap - 1] = '\0';
	}
	return j->len;
}

void jout_raw(struct jout *j, const char *s, size_t n)
{
	if (j->len < j->cap) {
		size_t room = j->cap - j->len;

		memcpy(j->buf + j->len, s, n < room ? n : room);
	}
	j->len += n;
}

static void put_c(struct jout *j, char c)
{
	if (j->len < j->cap) {
		j->buf[j->len] = c;
	}
	j->len++;
}

/* Length of the valid UTF-8 sequence at @s (of @n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0xC2 || s[0] > 0xF4) {
		return 0;
	}
	len = s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
	if (n < len) {
		return 0;
	}
	cp = s[0] & (0x7Fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) {
			return 0;
		}
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
		return 0;
	}
	return len;
}

/*
 * 1: a byte a JSON string holds as it is (printable ASCII but '"' and '\\');
 * 0: a control character, DEL, a byte of UTF-8 to check, or the NUL that
 * ends the string (one line of the table per 16 bytes, from 0x20).
 */
/* clang-format off */
static const unsigned char plain[256] = {
	[0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20: '"' at 0x22 */
	         1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x30 */
	         1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x40 */
	         1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x50: '\\' at 0x5C */
	         1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x60 */
	         1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* 0x70: DEL at 0x7F */
};
/* clang-format on */

void jout_str(struct jout *j, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, run = 0, i = 0; /* @n: the length, once a byte of UTF-8 needs it */

	put_c(j, '"');
	for (;;) {
		unsigned char c;
		size_t l;
		char esc[6];

		while (plain[p[i]]) {
			i++; /* the NUL at the end is not plain: no strlen() first */
		}
		c = p[i];
		if (c == 0) {
			break;
		}
		if (c >= 0x80) {
			n = n ? n : i + strlen(s + i);
			if ((l = utf8_len(p + i, n - i)) != 0) {
				i += l; /* valid UTF-8 passes as it is */
				continue;
			}
		}
		jout_raw(j, s + run, i - run);
		esc[0] = '\\';
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			jout_raw(j, esc, 2);
		} else if (c >= 0x80) {
			jout_raw(j, "\\ufffd", 6); /* invalid UTF-8: the replacement character */
		} else {
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			jout_raw(j, esc, 6);
		}
		run = ++i;
	}
	jout_raw(j, s + run, i - run);
	put_c(j, '"');
}

void jout_u64(struct jout *j, uint64_t v)
{
	char tmp[DEC_ROOM];

	if (j->len < j->cap && j->cap - j->len >= DEC_ROOM) {
		/* room for the widest store: the digits go in place */
		j->len = (size_t)(dec_u64(j->buf + j->len, v) - j->buf);
		return;
	}
	jout_raw(j, tmp, (size_t)(dec_u64(tmp, v) - tmp));
}

void jout_i64(struct jout *j, int64_t v)
{
	char tmp[DEC_ROOM];

	if (j->len < j->cap && j->cap - j->len >= DEC_ROOM) {
		j->len = (size_t)(dec_i64(j->buf + j->len, v) - j->buf);
		return;
	}
	jout_raw(j, tmp, (size_t)(dec_i64(tmp, v) - tmp));
}

void jout_hex(struct jout *j, uint64_t v)
{
	jout_hex_width(j, v, 1, false);
}

void jout_hex_width(struct jout *j, uint64_t v, unsigned width, bool upper)
{
	const char *hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[20]; /* "0x, up to 16 digits, " */
	char *p = tmp + sizeof(tmp);
	unsigned n = 0;

	*--p = '"';
	do {
		*--p = hex[v & 15];
		v >>= 4;
		n++;
	} while (v || (n < width && n < 16));
	*--p = 'x';
	*--p = '0';
	*--p = '"';
	jout_raw(j, p, (size_t)(tmp + sizeof(tmp) - p));
}

void jout_bool(struct jout *j, bool v)
{
	jout_raw(j, v ? "true" : "false", v ? 4 : 5);
}

void jout_double(struct jout *j, double v, unsigned decimals)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%.*f", (int)decimals, v);

	if (n > 0) {
		jout_raw(j, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
	}
}

void jout_open(struct jout *j, char c)
{
	put_c(j, c);
	j->first = true;
}

void jout_close(struct jout *j, char c)
{
	put_c(j, c);
	j->first = false;
}

void jout_sep(struct jout *j)
{
	if (!j->first) {
		put_c(j, ',');
	}
	j->first = false;
}

void jout_key(struct jout *j, const char *key)
{
	jout_sep(j);
	jout_str(j, key);
	put_c(j, ':');
}

void jout_key_lit_cut(struct jout *j, const char *key, size_t len)
{
	jout_sep(j);
	put_c(j, '"');
	jout_raw(j, key, len);
	put_c(j, '"');
	put_c(j, ':');
}

void jout_kstr(struct jout *j, const char *key, const char *v)
{
	jout_key(j, key);
	jout_str(j, v);
}

void jout_ku64(struct jout *j, const char *key, uint64_t v)
{
	jout_key(j, key);
	jout_u64(j, v);
}

void jout_ki64(struct jout *j, const char *key, int64_t v)
{
	jout_key(j, key);
	jout_i64(j, v);
}

void jout_kbool(struct jout *j, const char *key, bool v)
{
	jout_key(j, key);
	jout_bool(j, v);
}

void jout_khex(struct jout *j, const char *key, uint64_t v)
{
	jout_key(j, key);
	jout_hex(j, v);
}
