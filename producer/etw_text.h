/* SPDX-License-Identifier: MIT */
/*
 * producer/etw_text.h - the strings inside ETW payloads: UTF-16LE
 * NUL-terminated (thread names, command lines, package ids, profile source
 * names), fixed WCHAR arrays (SystemConfig) and ANSI NUL-terminated (image
 * names). A string is held as its wire bytes (struct etw_wstr), both ways:
 * an encoder copies them, a decoder points into the record it read. Helpers
 * convert from and to UTF-8, what the truth stream and JSON carry.
 */
#ifndef PRODUCER_ETW_TEXT_H
#define PRODUCER_ETW_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct etw_wstr - a UTF-16LE string as it sits on the wire, without its
 * terminating NUL. Borrowed: @le points into the caller's storage (encoding)
 * or into the decoded record (decoding). @le may be NULL when @units is 0.
 * @le:    2 * @units bytes, little-endian code units, unaligned
 * @units: code units (not characters: a surrogate pair counts 2)
 */
struct etw_wstr {
	const uint8_t *le;
	size_t units;
};

/**
 * etw_wstr_from_utf8 - transcode the NUL-terminated UTF-8 @s into UTF-16LE
 * bytes at @store (no NUL written) and describe them in *@out.
 * Return: 0, -EINVAL if @s is not well-formed UTF-8 (overlong forms,
 * surrogates and values above U+10FFFF included), -ENOSPC if @cap is short.
 * Nothing is set in *@out on failure.
 */
int etw_wstr_from_utf8(const char *s, uint8_t *store, size_t cap, struct etw_wstr *out);

/**
 * etw_wstr_to_utf8 - the UTF-8 of @w at @out, NUL-terminated. An unpaired
 * surrogate becomes U+FFFD (a reader takes what Windows wrote).
 * Return: the bytes written before the NUL, or -ENOSPC (then @out holds ""
 * when @cap > 0).
 */
int etw_wstr_to_utf8(struct etw_wstr w, char *out, size_t cap);

/** etw_wstr_has_nul - true if a code unit of @w is 0 (it would end the string early). */
bool etw_wstr_has_nul(struct etw_wstr w);

/**
 * etw_wstrz_scan - measure the UTF-16 z string at @p, within @len bytes.
 * Return: its code units before the NUL (the string takes 2 * (n + 1)
 * bytes), or -EINVAL if no NUL unit lies wholly inside @len.
 */
long etw_wstrz_scan(const uint8_t *p, size_t len);

/**
 * etw_astrz_scan - measure the ANSI z string at @p, within @len bytes.
 * Return: its length before the NUL, or -EINVAL if there is no NUL.
 */
long etw_astrz_scan(const uint8_t *p, size_t len);

#endif /* PRODUCER_ETW_TEXT_H */
