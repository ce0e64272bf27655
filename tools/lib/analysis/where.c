// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/where.c - an address to its image and function (see
 * where.h): the image table's lookup, then the symbol file's at the
 * address's offset from the image's base.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/analysis/where.h"

void an_where(const struct an_images *im, uint32_t pid, uint64_t addr, uint64_t ts,
	      struct an_where *w)
{
	w->image = an_image_at(im, pid, addr, ts);
	w->function = NULL;
	w->offset = addr;
	if (w->image >= 0) {
		const struct an_image *m = &im->rows[w->image];
		uint64_t off;

		w->offset = addr - m->pub.base;
		w->function = an_symbols_at(&im->syms, m->sym, w->offset, &off);
		if (w->function) {
			w->offset = off;
		}
	}
}

void an_where_text(const struct an_images *im, const struct an_where *w, uint64_t addr, char *buf,
		   size_t cap)
{
	if (w->image < 0) {
		snprintf(buf, cap, "0x%" PRIx64, addr);
	} else if (!w->function) {
		snprintf(buf, cap, "%s+0x%" PRIx64, im->rows[w->image].pub.name, w->offset);
	} else if (w->offset) {
		snprintf(buf, cap, "%s!%s+0x%" PRIx64, im->rows[w->image].pub.name, w->function,
			 w->offset);
	} else {
		snprintf(buf, cap, "%s!%s", im->rows[w->image].pub.name, w->function);
	}
}

void an_where_frame(const struct an_images *im, const struct an_where *w, char *buf, size_t cap)
{
	if (w->image < 0) {
		snprintf(buf, cap, "?");
		return;
	}
	snprintf(buf, cap, "%s!%s", im->rows[w->image].pub.name, w->function ? w->function : "?");
	for (char *p = buf; *p; p++) {
		if (*p == ';') {
			*p = ':';
		}
	}
}
