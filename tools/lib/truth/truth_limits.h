/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_limits.h - what a record line may hold beyond its
 * fields' own ranges: the sizes and forms the records' payloads can carry
 * (etwforge-truth(5), LIMITS). The reader applies it to every line, so a
 * stream that replay could not encode is refused at its line and field,
 * with the limit, the same for replay and verify.
 */
#ifndef TOOLS_LIB_TRUTH_LIMITS_H
#define TOOLS_LIB_TRUTH_LIMITS_H

#include <stddef.h>

#include "tools/lib/common/error.h"
#include "tools/lib/truth/truth.h"

#define TRUTH_TEXT_UNITS     4096u  /* UTF-16 units of one string of a record */
#define TRUTH_PROCESS_TEXT   16000u /* bytes of a Process record's four strings, as written */
#define TRUTH_COMPUTER_UNITS 255u   /* SystemConfig ComputerName, without its NUL */
#define TRUTH_DOMAIN_UNITS   133u   /* SystemConfig DomainName, without its NUL */

/** truth_utf16_units - the UTF-16 code units of the well-formed UTF-8 @s (NULL: 0). */
size_t truth_utf16_units(const char *s);

/**
 * truth_check_limits - @rec against the limits above, the image's form
 * (7-bit ASCII: ImageFileName is an ANSI string) and the SID's pointer (its
 * low 32 bits not 0: a reader would take the SID for the NULL form).
 * Return: 0, or -EINVAL with @err = "FIELD: what, the limit" (ERR_INPUT).
 */
int truth_check_limits(const struct truth_record *rec, struct etwforge_error *err);

#endif /* TOOLS_LIB_TRUTH_LIMITS_H */
