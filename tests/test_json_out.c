// SPDX-License-Identifier: MIT
/*
 * tests/test_json_out.c - the JSON writer (tools/lib/common/json_out.c):
 * strings escaped as RFC 8259 asks (with this writer's choices: DEL as
 * \u007f, a byte of invalid UTF-8 as \ufffd) against hand-typed texts and
 * against a reference escaper written here a byte at a time, over every
 * byte value at every place and random strings; keys given as literals
 * written as jout_key() writes them; hex numbers as printf writes them;
 * numbers written in place next to the buffer's end, nothing stored past
 * it, and a text that does not fit cut and counted as before.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/common/dec_fmt.h"
#include "tools/lib/common/json_out.h"

/* xorshift64: the same values on every run. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* jout_str(@s) as a NUL-terminated text in @out. */
static size_t str_of(const char *s, char *out, size_t cap)
{
	struct jout j;

	jout_init(&j, out, cap);
	jout_str(&j, s);
	return jout_finish(&j);
}

/*
 * The length of the valid UTF-8 sequence at @s, 0 when it is not one: the
 * table of RFC 3629 section 4, typed from the RFC, not from the writer.
 */
static size_t ref_utf8(const unsigned char *s)
{
	unsigned char a = s[0], b = s[1];

	if (a >= 0xC2 && a <= 0xDF) {
		return b >= 0x80 && b <= 0xBF ? 2 : 0;
	}
	if (a >= 0xE0 && a <= 0xEF) {
		unsigned char lo = a == 0xE0 ? 0xA0 : 0x80, hi = a == 0xED ? 0x9F : 0xBF;

		return b >= lo && b <= hi && s[2] >= 0x80 && s[2] <= 0xBF ? 3 : 0;
	}
	if (a >= 0xF0 && a <= 0xF4) {
		unsigned char lo = a == 0xF0 ? 0x90 : 0x80, hi = a == 0xF4 ? 0x8F : 0xBF;

		return b >= lo && b <= hi && s[2] >= 0x80 && s[2] <= 0xBF && s[3] >= 0x80 &&
				       s[3] <= 0xBF
			       ? 4
			       : 0;
	}
	return 0;
}

/* The reference: @s escaped a byte at a time into @out. */
static void ref_str(const char *s, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	char *o = out;

	*o++ = '"';
	while (*p) {
		size_t l = *p >= 0x80 ? ref_utf8(p) : 0;

		if (l) {
			memcpy(o, p, l);
			o += l;
			p += l;
		} else if (*p == '"' || *p == '\\') {
			*o++ = '\\';
			*o++ = (char)*p++;
		} else if (*p >= 0x80) {
			o += sprintf(o, "\\ufffd");
			p++;
		} else if (*p < 0x20 || *p == 0x7F) {
			o += sprintf(o, "\\u%04x", *p++);
		} else {
			*o++ = (char)*p++;
		}
	}
	*o++ = '"';
	*o = '\0';
}

static void check_str(const char *s)
{
	char got[1024], want[1024];

	str_of(s, got, sizeof(got));
	ref_str(s, want);
	cr_assert_str_eq(got, want, "jout_str of %zu bytes", strlen(s));
}

Test(json_out, hand_typed_escapes)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"", "\"\""},
		{"svchost.exe", "\"svchost.exe\""},
		{"a\"b\\c", "\"a\\\"b\\\\c\""},
		{"\x01\t\n\x1f\x20\x7e\x7f", "\"\\u0001\\u0009\\u000a\\u001f ~\\u007f\""},
		/* é, €, an emoji: as they are */
		{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		 "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
		/* a lone lead, an overlong NUL, a surrogate, past U+10FFFF, a cut sequence at the end */
		{"\xc3(", "\"\\ufffd(\""},
		{"\xc0\x80", "\"\\ufffd\\ufffd\""},
		{"\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""},
		{"\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""},
		{"ab\xe2\x82", "\"ab\\ufffd\\ufffd\""},
	};
	char out[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		str_of(cases[i].in, out, sizeof(out));
		cr_assert_str_eq(out, cases[i].want, "case %zu", i);
	}
}

Test(json_out, every_byte_at_every_place)
{
	char s[40];

	for (unsigned c = 1; c < 256; c++) {
		for (size_t at = 0; at < 20; at++) {
			memset(s, 'x', sizeof(s));
			s[at] = (char)c;
			s[at + 1 + at % 7] = '\0';
			check_str(s);
		}
	}
}

Test(json_out, random_strings_as_the_reference)
{
	static const unsigned char alphabet[] = {
		'a',  'Z',  '0',  ' ',	'~',  '"',  '\\', 0x01, 0x1f, 0x7f, 0x80, 0xbf,
		0xc2, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0xf0, 0x9f, 0xf4, 0xff,
	};
	uint64_t seed = 0x9E3779B97F4A7C15u;
	char s[64];

	for (unsigned n = 0; n < 200000; n++) {
		size_t len = next(&seed) % 48;

		for (size_t i = 0; i < len; i++) {
			s[i] = (char)alphabet[next(&seed) % sizeof(alphabet)];
		}
		s[len] = '\0';
		check_str(s);
	}
}

/* jout_key_lit() writes what jout_key() writes, first member or not, with room or cut. */
Test(json_out, literal_keys_as_jout_key)
{
	for (size_t cap = 0; cap < 40; cap++) {
		char a[48], b[48];
		struct jout x, y;

		memset(a, '#', sizeof(a));
		memset(b, '#', sizeof(b));
		jout_init(&x, a, cap);
		jout_init(&y, b, cap);
		jout_open(&x, '{');
		jout_open(&y, '{');
		jout_key_lit(&x, JOUT_LIT("old_remaining_quantum"));
		jout_key(&y, "old_remaining_quantum");
		jout_u64(&x, 7);
		jout_u64(&y, 7);
		jout_key_lit(&x, JOUT_LIT("ts"));
		jout_key(&y, "ts");
		jout_close(&x, '}');
		jout_close(&y, '}');
		cr_assert_eq(x.len, y.len, "cap %zu", cap);
		cr_assert_eq(x.len, strlen("{\"old_remaining_quantum\":7,\"ts\":}"));
		cr_assert(!memcmp(a, b, cap), "cap %zu: %.*s / %.*s", cap, (int)cap, a, (int)cap,
			  b);
		for (size_t i = cap; i < sizeof(a); i++) {
			cr_assert_eq(a[i], '#', "cap %zu: stored at %zu", cap, i);
		}
	}
}

/* A number near the buffer's end: the same text, cut where it does not fit, nothing past @cap. */
Test(json_out, numbers_at_the_end_of_the_room)
{
	static const uint64_t values[] = {0, 9, 10, 4294967295u, UINT64_MAX};
	static const int64_t signed_values[] = {0, -1, INT64_MIN, INT64_MAX};

	for (size_t cap = 1; cap < 2 * DEC_ROOM + 8; cap++) {
		for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
			char buf[4 * DEC_ROOM], want[64];
			struct jout j;
			int n = snprintf(want, sizeof(want), "abcdef%" PRIu64, values[k]);

			memset(buf, '#', sizeof(buf));
			jout_init(&j, buf, cap);
			jout_raw(&j, "abcdef", 6);
			jout_u64(&j, values[k]);
			cr_assert_eq(j.len, (size_t)n, "cap %zu: %zu", cap, j.len);
			cr_assert(!memcmp(buf, want, (size_t)n < cap ? (size_t)n : cap),
				  "cap %zu: %s", cap, want);
			for (size_t i = cap; i < sizeof(buf); i++) {
				cr_assert_eq(buf[i], '#', "cap %zu: stored at %zu", cap, i);
			}
		}
		for (size_t k = 0; k < sizeof(signed_values) / sizeof(signed_values[0]); k++) {
			char buf[4 * DEC_ROOM], want[64];
			struct jout j;
			int n = snprintf(want, sizeof(want), "ab%" PRId64, signed_values[k]);

			memset(buf, '#', sizeof(buf));
			jout_init(&j, buf, cap);
			jout_raw(&j, "ab", 2);
			jout_i64(&j, signed_values[k]);
			cr_assert_eq(j.len, (size_t)n, "cap %zu: %zu", cap, j.len);
			cr_assert(!memcmp(buf, want, (size_t)n < cap ? (size_t)n : cap),
				  "cap %zu: %s", cap, want);
			for (size_t i = cap; i < sizeof(buf); i++) {
				cr_assert_eq(buf[i], '#', "cap %zu: stored at %zu", cap, i);
			}
		}
	}
}

/* jout_hex_width() against printf's "0x%0*" PRIx64 / PRIX64, quoted; jout_hex() is width 1. */
Test(json_out, hex_against_printf)
{
	uint64_t seed = 0x2545F4914F6CDD1Du;

	for (unsigned n = 0; n < 100000; n++) {
		uint64_t v = next(&seed) >> (next(&seed) % 64);
		unsigned width = 1 + n % 16;
		bool upper = n & 1;
		char got[64], want[64];
		struct jout j;

		jout_init(&j, got, sizeof(got));
		jout_hex_width(&j, v, width, upper);
		jout_finish(&j);
		snprintf(want, sizeof(want), upper ? "\"0x%0*" PRIX64 "\"" : "\"0x%0*" PRIx64 "\"",
			 (int)width, v);
		cr_assert_str_eq(got, want);
		jout_init(&j, got, sizeof(got));
		jout_hex(&j, v);
		jout_finish(&j);
		snprintf(want, sizeof(want), "\"0x%" PRIx64 "\"", v);
		cr_assert_str_eq(got, want);
	}
}
