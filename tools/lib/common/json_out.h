/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/common/json_out.h - the library's JSON writer for objects of any
 * shape: built into a caller's buffer with a hand-rolled integer formatter
 * and string escaping (no stdio, no allocation), for dump's JSON Lines and
 * the run summary. (The truth stream, whose lines have fixed keys and a
 * known bound, has its own in truth_write.c, with the escapes it always
 * wrote: \n and \t where this writes \u000a and \u0009.) Appending never
 * overflows: past the buffer's end it only counts, so the length needed is
 * known (snprintf style).
 */
#ifndef TOOLS_LIB_JSON_OUT_H
#define TOOLS_LIB_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/**
 * struct jout - a JSON text being built.
 * @buf/@cap: where it goes (@cap may be 0: count only)
 * @len:      bytes it takes so far (may exceed @cap: the text was cut)
 * @first:    no member written yet in the innermost object or array
 */
struct jout {
	char *buf;
	size_t cap;
	size_t len;
	bool first;
};

/** jout_init - start an empty text in @buf (@cap bytes). */
void jout_init(struct jout *j, char *buf, size_t cap);

/** jout_finish - NUL-terminate (when it fits); Return: the length. */
size_t jout_finish(struct jout *j);

/** jout_raw - append @n bytes as they are. */
void jout_raw(struct jout *j, const char *s, size_t n);

/**
 * jout_str - append @s as a JSON string: quoted, control characters and DEL
 * as \u00XX, valid UTF-8 as it is, invalid bytes as U+FFFD.
 */
void jout_str(struct jout *j, const char *s);

/** jout_u64 / jout_i64 - append an integer in decimal. */
void jout_u64(struct jout *j, uint64_t v);
void jout_i64(struct jout *j, int64_t v);

/** jout_hex - append "0x" and @v in lower-case hex, quoted (addresses: DESIGN.md). */
void jout_hex(struct jout *j, uint64_t v);
/**
 * jout_hex_width - as jout_hex() with at least @width digits (zeros before
 * them, 16 at most), in upper case when @upper: printf's "0x%0*" PRIx64 or
 * PRIX64.
 */
void jout_hex_width(struct jout *j, uint64_t v, unsigned width, bool upper);

/** jout_bool - append true or false. */
void jout_bool(struct jout *j, bool v);

/** jout_double - append @v with @decimals digits after the point. */
void jout_double(struct jout *j, double v, unsigned decimals);

/** jout_open / jout_close - '{' or '[' and the matching close. */
void jout_open(struct jout *j, char c);
void jout_close(struct jout *j, char c);

/** jout_key - the next member's key (with the comma before it when needed). */
void jout_key(struct jout *j, const char *key);

/**
 * jout_key_lit - as jout_key() for a key that needs no escape, of @len
 * bytes: a string literal naming a field (printable ASCII, no '"' or '\\'),
 * passed as JOUT_LIT("name"), which compiles only for a literal.
 */
void jout_key_lit_cut(struct jout *j, const char *key, size_t len); /* its slow path */
#define JOUT_LIT(s) ("" s ""), (sizeof("" s "") - 1)

static inline void jout_key_lit(struct jout *j, const char *key, size_t len)
{
	char *d;

	if (j->len >= j->cap || j->cap - j->len < len + 4) {
		jout_key_lit_cut(j, key, len); /* no room for all of it: the general way */
		return;
	}
	/* ,"key": at once (@len a constant: the copy is a move or two) */
	d = j->buf + j->len;
	*d = ',';
	d += !j->first;
	*d++ = '"';
	memcpy(d, key, len);
	d += len;
	*d++ = '"';
	*d++ = ':';
	j->len = (size_t)(d - j->buf);
	j->first = false;
}

/** jout_sep - a comma before the next array element when needed. */
void jout_sep(struct jout *j);

/* Members: key and value in one call. */
void jout_kstr(struct jout *j, const char *key, const char *v);
void jout_ku64(struct jout *j, const char *key, uint64_t v);
void jout_ki64(struct jout *j, const char *key, int64_t v);
void jout_kbool(struct jout *j, const char *key, bool v);
void jout_khex(struct jout *j, const char *key, uint64_t v);

#endif /* TOOLS_LIB_JSON_OUT_H */
