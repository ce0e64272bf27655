// SPDX-License-Identifier: MIT
/*
 * tools/lib/truth/truth_limits.c - the limits of truth_limits.h: a string's
 * UTF-16 length, a Process record's strings together, SystemConfig's fixed
 * arrays, the ANSI image and the SID's pointer.
 */
#include "tools/lib/truth/truth_limits.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

size_t truth_utf16_units(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if ((*p & 0xC0) != 0x80) {
			n += *p >= 0xF0 ? 2 : 1; /* beyond U+FFFF: a surrogate pair */
		}
	}
	return n;
}

/* @s (field @name) holds at most @max UTF-16 units. */
static int text_fits(const char *name, const char *s, size_t max, struct etwforge_error *err)
{
	size_t n = truth_utf16_units(s);

	if (n <= max) {
		return 0;
	}
	return error_fail(err, -EINVAL, ERR_INPUT, "%s: %zu UTF-16 units, at most %zu", name, n,
			  max);
}

static int check_process(const struct sim_process *p, struct etwforge_error *err)
{
	size_t bytes;

	for (const unsigned char *c = (const unsigned char *)p->image; c && *c; c++) {
		if (*c >= 0x80) {
			return error_fail(err, -EINVAL, ERR_INPUT,
					  "image: \"%s\" is not 7-bit ASCII (ImageFileName is an "
					  "ANSI string; cmdline takes any text)",
					  p->image);
		}
	}
	if (text_fits("cmdline", p->cmdline, TRUTH_TEXT_UNITS, err) < 0 ||
	    text_fits("package", p->package, TRUTH_TEXT_UNITS, err) < 0 ||
	    text_fits("app_id", p->app_id, TRUTH_TEXT_UNITS, err) < 0) {
		return -EINVAL;
	}
	bytes = (p->image ? strlen(p->image) : 0) +
		2 * (truth_utf16_units(p->cmdline) + truth_utf16_units(p->package) +
		     truth_utf16_units(p->app_id));
	if (bytes > TRUTH_PROCESS_TEXT) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "image, cmdline, package and app_id: %zu bytes as written, at "
				  "most %u together",
				  bytes, TRUTH_PROCESS_TEXT);
	}
	if (p->sid && (uint32_t)p->sid_token == 0) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "sid_token: 0x%" PRIx64 " has its low 32 bits 0 (a reader would "
				  "take the SID for its NULL form): give a kernel address whose "
				  "low 32 bits are not 0",
				  p->sid_token);
	}
	return 0;
}

int truth_check_limits(const struct truth_record *rec, struct etwforge_error *err)
{
	switch (rec->kind) {
	case TRUTH_PROCESS:
		return check_process(&rec->u.process, err);
	case TRUTH_THREAD:
		return text_fits("name", rec->u.thread.name, TRUTH_TEXT_UNITS, err);
	case TRUTH_THREAD_NAME:
		return text_fits("name", rec->u.thread_name.name, TRUTH_TEXT_UNITS, err);
	case TRUTH_INTERVAL:
		return text_fits("source_name", rec->u.interval.source_name, TRUTH_TEXT_UNITS, err);
	case TRUTH_IMAGE:
		if (rec->u.image.pdb_name && strlen(rec->u.image.pdb_name) > TRUTH_TEXT_UNITS) {
			return error_fail(err, -EINVAL, ERR_INPUT,
					  "pdb_name: %zu bytes, at most %u",
					  strlen(rec->u.image.pdb_name), TRUTH_TEXT_UNITS);
		}
		return text_fits("file_name", rec->u.image.file_name, TRUTH_TEXT_UNITS, err);
	case TRUTH_CONFIG:
		if (text_fits("computer_name", rec->u.cpu_config.computer_name,
			      TRUTH_COMPUTER_UNITS, err) < 0) {
			return -EINVAL;
		}
		return text_fits("domain_name", rec->u.cpu_config.domain_name, TRUTH_DOMAIN_UNITS,
				 err);
	default:
		return 0;
	}
}
