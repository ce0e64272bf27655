/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/where.h - where an address of a process is, at a time
 * (where.c): its image from the image table, its function from the image's
 * symbol file, as the text a person reads ("ntdll.dll!RtlUserThreadStart+0x21",
 * "ntdll.dll+0x2c1a", "0x7f9d02f2c1a") and as the frame name a call tree
 * merges on ("ntdll.dll!RtlUserThreadStart", "ntdll.dll!?", "?").
 */
#ifndef TOOLS_LIB_ANALYSIS_WHERE_H
#define TOOLS_LIB_ANALYSIS_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "tools/lib/analysis/images.h"

/*
 * struct an_where - an address placed.
 * @image:    its image row, -1 none
 * @function: its function's name (in the symbol file), NULL unknown
 * @offset:   from the function, else from the image's base, else the address
 */
struct an_where {
	int64_t image;
	const char *function;
	uint64_t offset;
};

/** an_where - @addr of process @pid at @ts, into @w. */
void an_where(const struct an_images *im, uint32_t pid, uint64_t addr, uint64_t ts,
	      struct an_where *w);

/** an_where_text - @w (of @addr) as a person reads it, into @buf (cut to @cap). */
void an_where_text(const struct an_images *im, const struct an_where *w, uint64_t addr, char *buf,
		   size_t cap);

/**
 * an_where_frame - @w as a call tree's frame name, into @buf (cut to @cap;
 * a ';' of a name, the folded format's separator, becomes ':').
 */
void an_where_frame(const struct an_images *im, const struct an_where *w, char *buf, size_t cap);

#endif /* TOOLS_LIB_ANALYSIS_WHERE_H */
