// SPDX-License-Identifier: MIT
/*
 * tools/cli/text_escape.c - untrusted names into SVG and JSON (text_escape.h).
 */
#include <stdint.h>
#include <string.h>

#include "text_escape.h"

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned cp, len;

	if (n == 0) {
		return 0;
	}
	if (s[0] < 0x80) {
		return 1;
	}
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2, cp = s[0] & 0x1Fu;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3, cp = s[0] & 0x0Fu;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4, cp = s[0] & 0x07u;
	} else {
		return 0;
	}
	if (n < len) {
		return 0;
	}
	for (unsigned i = 1; i < len; i++) {
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

void text_copy_name(char *out, size_t cap, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;

	while (*p && cap) {
		size_t len = utf8_seq_len(p, n - (size_t)(p - (const unsigned char *)s));
		const char *piece = (const char *)p;
		size_t plen = len;

		if (len == 0) {
			piece = REPLACEMENT, plen = 3, len = 1;
		} else if (len == 1 && (*p < 0x20 || *p == 0x7F)) {
			piece = "?";
		}
		if (o + plen + 1 > cap) {
			break;
		}
		memcpy(out + o, piece, plen);
		o += plen;
		p += len;
	}
	if (cap) {
		out[o] = '\0';
	}
}

/* Each character of @s, valid UTF-8, to @put_ascii (ASCII) or as is. */
static void put_each(FILE *f, const char *s, void (*put_ascii)(FILE *f, unsigned char c))
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (*p) {
		size_t len = utf8_seq_len(p, n - (size_t)(p - (const unsigned char *)s));

		if (len == 0) {
			fputs(REPLACEMENT, f);
			len = 1;
		} else if (len == 1) {
			put_ascii(f, *p);
		} else {
			fwrite(p, 1, len, f);
		}
		p += len;
	}
}

void xml_ascii(FILE *f, unsigned char c)
{
	switch (c) {
	case '&':
		fputs("&amp;", f);
		break;
	case '<':
		fputs("&lt;", f);
		break;
	case '>':
		fputs("&gt;", f);
		break;
	case '"':
		fputs("&quot;", f);
		break;
	default:
		putc(c < 0x20 || c == 0x7F ? '?' : c, f);
		break;
	}
}

static void json_ascii(FILE *f, unsigned char c)
{
	if (c == '"' || c == '\\') {
		fprintf(f, "\\%c", c);
	} else if (c < 0x20 || c == 0x7F) {
		fprintf(f, "\\u%04x", c);
	} else {
		putc(c, f);
	}
}

void put_xml_text(FILE *f, const char *s)
{
	put_each(f, s, xml_ascii);
}

size_t json_plain_len(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++, n++) {
		if (*p < 0x20 || *p >= 0x7F || *p == '"' || *p == '\\') {
			return SIZE_MAX; /* a byte json_ascii() escapes, or UTF-8 to check */
		}
	}
	return n;
}

void put_json_text(FILE *f, const char *s)
{
	size_t n = json_plain_len(s);

	putc('"', f);
	if (n != SIZE_MAX) {
		fwrite(s, 1, n, f); /* most names: at once, not a byte at a time */
	} else {
		put_each(f, s, json_ascii);
	}
	putc('"', f);
}
