/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fit/fit_names.h - the names a fitted scenario gives: the
 * trace's own (made fit for the scenario's rules: 7-bit ASCII where the
 * key wants it, cut to its length), or with anonymizing, stable pseudonyms
 * given in the order names are first met (proc1.exe, mod3.dll, thread2),
 * so no text of the input, nor a hash of one, reaches the output. Names
 * every Windows machine has (System, svchost.exe, ntoskrnl.exe, ntdll.dll
 * ...) are kept, in their usual spelling, unless everything is renamed.
 */
#ifndef TOOLS_LIB_FIT_FIT_NAMES_H
#define TOOLS_LIB_FIT_FIT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

enum fit_anon {
	FIT_ANON_NONE = 0, /* the trace's names */
	FIT_ANON_NAMES,	   /* pseudonyms, well-known Windows names kept */
	FIT_ANON_ALL,	   /* pseudonyms for every name */
};

enum fit_name_kind {
	FIT_NAME_PROCESS, /* an executable's file name: proc1.exe */
	FIT_NAME_IMAGE,	  /* a module's file name: mod1.dll (the extension kept when plain) */
	FIT_NAME_THREAD,  /* a thread's name: thread1 */
	FIT_NAME_KINDS,
};

/** struct fit_names - the pseudonyms given so far, per kind. */
struct fit_names {
	enum fit_anon mode;
	struct fit_name_map {
		struct fit_pseudonym {
			char *from, *to;
		} * p;
		size_t n, cap;
	} map[FIT_NAME_KINDS];
};

/** fit_names_init - no pseudonym given yet. */
void fit_names_init(struct fit_names *nm, enum fit_anon mode);

/** fit_names_finish - free what @nm holds. */
void fit_names_finish(struct fit_names *nm);

/**
 * fit_name - the name @s of kind @k goes out as: with no anonymizing, @s
 * made printable 7-bit ASCII (others '_') and cut to @cap - 1 bytes; else
 * its well-known spelling, or its pseudonym (the same @s, ignoring case,
 * always gets the same one). Written into @out (@cap bytes).
 * Return: 0, or -ENOMEM.
 */
int fit_name(struct fit_names *nm, enum fit_name_kind k, const char *s, char *out, size_t cap);

/** fit_well_known - the usual spelling of @s when every Windows machine has it, else NULL. */
const char *fit_well_known(const char *s);

/** fit_ascii - @s as printable 7-bit ASCII (others '_'), cut to @cap - 1 bytes, into @out. */
void fit_ascii(const char *s, char *out, size_t cap);

#endif /* TOOLS_LIB_FIT_FIT_NAMES_H */
