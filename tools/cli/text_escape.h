/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/text_escape.h - names read from a file (process images, thread
 * names) written into the pictures (text_escape.c): they are untrusted, so
 * markup is escaped, control characters become '?', and a byte that does
 * not start a valid UTF-8 sequence becomes U+FFFD.
 */
#ifndef TOOLS_TEXT_ESCAPE_H
#define TOOLS_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/**
 * utf8_seq_len - the length of the valid UTF-8 sequence at @s (at most @n
 * bytes available): 1 for ASCII, 2-4 for a well-formed one (no overlong
 * form, surrogate or code point above U+10FFFF); 0 when invalid.
 */
size_t utf8_seq_len(const unsigned char *s, size_t n);

/**
 * text_copy_name - @s into @out (@cap bytes, NUL-terminated), valid UTF-8,
 * cut at a character boundary, control characters as '?'.
 */
void text_copy_name(char *out, size_t cap, const char *s);

/**
 * xml_ascii - one byte below 0x80 for XML text: markup characters escaped,
 * control characters as '?'.
 */
void xml_ascii(FILE *f, unsigned char c);

/** put_xml_text - @s as XML character data or attribute value (&, <, >, " escaped). */
void put_xml_text(FILE *f, const char *s);

/** put_json_text - @s as a JSON string, quotes included. */
void put_json_text(FILE *f, const char *s);

/**
 * json_plain_len - the length of @s when put_json_text() writes it as it is
 * between its quotes (printable ASCII without '"' or '\\'), else SIZE_MAX.
 */
size_t json_plain_len(const char *s);

#endif /* TOOLS_TEXT_ESCAPE_H */
