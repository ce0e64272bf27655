// SPDX-License-Identifier: MIT
/*
 * tests/test_picture_parts.c - pieces of `dump --timeline / --chrome-trace`
 * on their own: the rule that draws wake-up arrows only when at most
 * WAKE_ARROWS_MAX are in the window (tools/cli/timeline_wakeups.c), the
 * escaping of names read from a file (tools/cli/text_escape.c) and the id map
 * the readers of a trace keep per thread (tools/lib/common/id_map.c).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_escape.h"
#include "tools/lib/common/id_map.h"
#include "timeline_wakeups.h"

static const struct etwforge_item wake = {.kind = ETWFORGE_ITEM_WAKE, .t0 = 10, .t1 = 20, .tid = 8};

Test(picture_parts, arrows_up_to_the_limit)
{
	static struct wake_arrows a;

	memset(&a, 0, sizeof(a));
	cr_expect_not(wake_arrows_drawn(&a), "none: nothing to draw");
	for (unsigned i = 0; i < WAKE_ARROWS_MAX; i++) {
		wake_arrows_add(&a, &wake, 0, 1);
	}
	cr_expect(wake_arrows_drawn(&a), "exactly the limit is drawn");
	wake_arrows_add(&a, &wake, 1, 0);
	cr_expect_not(wake_arrows_drawn(&a), "one more: none is");
	cr_expect_eq(a.n, WAKE_ARROWS_MAX, "memory stays at the limit");
	cr_expect_eq(a.total, WAKE_ARROWS_MAX + 1);
}

Test(picture_parts, arrows_off_lane_not_counted_against_the_limit)
{
	static struct wake_arrows a;
	memset(&a, 0, sizeof(a));
	for (unsigned i = 0; i < 3 * WAKE_ARROWS_MAX; i++) {
		wake_arrows_add(&a, &wake, -1, 0);
	}
	wake_arrows_add(&a, &wake, 0, 0);
	cr_expect(wake_arrows_drawn(&a), "the one with both CPUs shown is drawn");
	cr_expect_eq(a.n, 1);
	cr_expect_eq(a.off_lane, 3 * WAKE_ARROWS_MAX);
}

Test(picture_parts, utf8_sequences)
{
	cr_expect_eq(utf8_seq_len((const unsigned char *)"a", 1), 1);
	cr_expect_eq(utf8_seq_len((const unsigned char *)"\xC3\xA9", 2), 2);
	cr_expect_eq(utf8_seq_len((const unsigned char *)"\xC3\xA9", 1), 0, "cut short");
	cr_expect_eq(utf8_seq_len((const unsigned char *)"\xC0\x80", 2), 0, "overlong NUL");
	cr_expect_eq(utf8_seq_len((const unsigned char *)"\xED\xA0\x80", 3), 0, "a surrogate");
	cr_expect_eq(utf8_seq_len((const unsigned char *)"\xF4\x90\x80\x80", 4), 0, "> U+10FFFF");
	cr_expect_eq(utf8_seq_len((const unsigned char *)"\xF0\x9F\x98\x80", 4), 4);
	cr_expect_eq(utf8_seq_len((const unsigned char *)"\x80", 1), 0, "a lone continuation");
}

/* What put_xml_text() / put_json_text() write of @s. */
static const char *escaped(void (*put)(FILE *, const char *), const char *s)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	cr_assert_not_null(f);
	put(f, s);
	fclose(f);
	return buf;
}

Test(picture_parts, names_escaped)
{
	cr_expect_str_eq(escaped(put_xml_text, "a<b>&\"c\x01\xFF\xC3\xA9"),
			 "a&lt;b&gt;&amp;&quot;c?\xEF\xBF\xBD\xC3\xA9");
	cr_expect_str_eq(escaped(put_json_text, "q\"\\\n\xFE\xC3\xA9"),
			 "\"q\\\"\\\\\\u000a\xEF\xBF\xBD\xC3\xA9\"");
}

Test(picture_parts, names_copied_whole_characters)
{
	char out[6];

	text_copy_name(out, sizeof(out), "ab\xC3\xA9\xC3\xA9");
	cr_expect_str_eq(out, "ab\xC3\xA9", "the second e-acute does not fit: not cut in two");
	text_copy_name(out, sizeof(out), "\x1b[x");
	cr_expect_str_eq(out, "?[x", "a control character");
}

Test(picture_parts, id_map_grows)
{
	struct id_map m = {.elem_size = sizeof(uint64_t)};
	size_t seen = 0;
	uint32_t id;

	for (uint32_t t = 0; t < 5000; t += 4) {
		uint64_t *v = id_map_add(&m, t);

		cr_assert_not_null(v);
		*v += t;
	}
	cr_expect_eq(m.n, 1250);
	cr_expect_eq(*(uint64_t *)id_map_get(&m, 4996), 4996);
	cr_expect_eq(*(uint64_t *)id_map_add(&m, 8), 8, "an id already there keeps its value");
	cr_expect_null(id_map_get(&m, 5));
	for (size_t i = 0; i < m.cap; i++) {
		seen += id_map_at(&m, i, &id) != NULL;
	}
	cr_expect_eq(seen, 1250);
	id_map_free(&m);
	cr_expect_null(id_map_get(&m, 8));
}
