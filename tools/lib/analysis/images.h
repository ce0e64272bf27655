/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/analysis/images.h - which module sits at which address of which
 * process when (images.c): the image table of a file, made from its Image
 * records (Load, Unload, the rundowns) and the image identities a merge
 * adds (KernelTraceControl ImageID and DbgID), gathered in the identity's
 * pass and cut into rows in time order:
 *
 *   (pid, base)'s records by time   DCStart .. Unload   Load ..... DCEnd
 *   its rows                        [row 1: 0, unload]  [row 2: load, end)
 *
 * A rundown's DCStart or DCEnd is an image loaded before the trace (or
 * still loaded at its end); a Load over an image of the same address space
 * still mapped there ends that one; a process's End ends its images; an
 * Unload of an image no row has open is counted and dropped. Kernel
 * modules (PID 0) are mapped in every process. Memory grows with the
 * images, not the length of the file.
 */
#ifndef TOOLS_LIB_ANALYSIS_IMAGES_H
#define TOOLS_LIB_ANALYSIS_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tools/lib/analysis/clock.h"
#include "tools/lib/analysis/identity.h"
#include "tools/lib/analysis/symbols.h"
#include "tools/lib/common/id_map.h"

/*
 * struct an_image - an image row: its public view and what it points to.
 * @lo/@hi: the timestamps it is mapped, inclusive
 * @sym:    its symbol file in the store (an_symbols), -1 none
 */
struct an_image {
	struct etwforge_image_row pub;
	uint64_t lo, hi;
	int64_t sym;
	char *path, *name, *pdb, *guid;
};

/* One image or identity record as gathered (an_images_note()), sorted by time later. */
struct an_image_rec;

/*
 * struct an_images - the table.
 * @spaces:     PID -> struct an_space, its rows sorted by base
 * @kernel_at:  the lowest kernel address (0xFFFF800000000000 on x64,
 *              0x80000000 on x86): a frame at or above it is a kernel one
 * @unmatched:  Unload records of no open row (an image unloaded twice)
 */
struct an_images {
	struct an_image *rows;
	size_t n, cap;
	struct id_map spaces;
	uint64_t kernel_at;
	uint64_t unmatched;
	uint64_t kernel_rows;
	struct an_image_rec *recs;
	size_t nrecs, cap_recs;
	struct an_symbols syms;
};

/* The event kinds the images take from the identity's pass (and its Process events). */
#define AN_IMAGE_KINDS (ETWFORGE_EV_IMAGE | ETWFORGE_EV_IMAGE_ID | ETWFORGE_EV_DBGID)

/** an_images_init - an empty table for a file of @pointer_size (4: x86). */
void an_images_init(struct an_images *im, unsigned pointer_size);

/** an_images_note - keep @ev (an image, identity or process event), @seq its place. Return: 0, -ENOMEM. */
int an_images_note(struct an_images *im, const struct etwforge_event *ev, size_t seq);

/**
 * an_images_finish - the rows of what was noted, their process rows from
 * @id, their times in ns by @c; with @symbols (a Breakpad symbol store, NULL
 * none) each row's symbol file.
 * Return: 0; -ENOMEM; -EINVAL/-ENOENT a symbol file that does not read (@err).
 */
int an_images_finish(struct an_images *im, const struct an_identity *id, const struct an_clock *c,
		     const char *symbols, struct etwforge_error *err);

/**
 * an_image_at - the row mapping @addr in process @pid at @ts (the process's
 * own images first, then the kernel's), -1 none.
 */
int64_t an_image_at(const struct an_images *im, uint32_t pid, uint64_t addr, uint64_t ts);

/** an_images_free - free the table. */
void an_images_free(struct an_images *im);

#endif /* TOOLS_LIB_ANALYSIS_IMAGES_H */
