/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/symbols.h - function names from a symbol store
 * (symbols.c): Breakpad's text symbol files in Breakpad's store layout,
 *
 *   DIR/<pdb name>/<GUID, 32 upper-case hex digits, then the age in hex>/<pdb name without .pdb>.sym
 *
 * e.g. DIR/ntdll.pdb/6048FDB62DCD41C18835594844CE71432/ntdll.sym, whose
 * MODULE line names that identifier and whose FUNC lines (address, size,
 * parameter size, name; hex addresses relative to the image's base) and
 * PUBLIC lines (address, parameter size, name) give the names. Line,
 * FILE, STACK, INFO and INLINE records are skipped. A file is read once,
 * however many images name it.
 */
#ifndef TOOLS_LIB_ANALYSIS_SYMBOLS_H
#define TOOLS_LIB_ANALYSIS_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tools/lib/analysis/tables.h"

/* One function (FUNC) or public symbol (PUBLIC, @size 0) of a file. */
struct an_sym {
	uint64_t rva;
	uint64_t size;
	size_t name; /* its offset in the file's @names */
};

/* One symbol file read: its functions and its public symbols, each by address. */
struct an_sym_file {
	char *path;
	struct an_sym *func, *pub;
	size_t nfunc, cap_func, npub, cap_pub;
	struct an_text names;
};

/* struct an_symbols - a store and the files read from it. */
struct an_symbols {
	char *dir;
	struct an_sym_file *files;
	size_t n, cap;
};

void an_symbols_init(struct an_symbols *s);

/**
 * an_symbols_open - use the store at @dir.
 * Return: 0; -ENOENT/-ENOTDIR (@err, INPUT: `DIR: cannot open: ...`); -ENOMEM.
 */
int an_symbols_open(struct an_symbols *s, const char *dir, struct etwforge_error *err);

/**
 * an_symbols_find - the file of the PDB @pdb (its name, no path) with @guid
 * ("{...}") and @age, read when first asked; without an identity (@guid
 * NULL), the only version the store holds of the PDB named after the image
 * @image ("ntdll.dll": ntdll.pdb), if it holds exactly one. *@file is its
 * index, -1 when the store has none.
 * Return: 0; -EINVAL a file that is not a symbol file (@err: `PATH:LINE:
 * what`, DATA); -ENOMEM.
 */
int an_symbols_find(struct an_symbols *s, const char *pdb, const char *guid, uint32_t age,
		    const char *image, int64_t *file, struct etwforge_error *err);

/**
 * an_symbols_at - the function of file @file holding @rva (an offset from
 * the image's base): a FUNC whose range holds it, else the nearest PUBLIC
 * at or below it. *@off is @rva's offset in it.
 * Return: its name, NULL none.
 */
const char *an_symbols_at(const struct an_symbols *s, int64_t file, uint64_t rva, uint64_t *off);

/** an_symbols_free - free the files read. */
void an_symbols_free(struct an_symbols *s);

#endif /* TOOLS_LIB_ANALYSIS_SYMBOLS_H */
