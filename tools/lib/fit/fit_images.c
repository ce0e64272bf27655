// SPDX-License-Identifier: MIT
/*
 * tools/lib/fit/fit_images.c - where the grouped threads' samples land:
 * each distinct sampled address placed in the image that maps it (the
 * analysis's image table, at the middle of the thread's life), the images
 * with the most samples listed (at most 64, the language's limit: a
 * process's under its images, the kernel's as drivers), an image's
 * sampled addresses clustered into functions (addresses less than 1 KiB
 * apart are one function; at most 32 an image, the most sampled), and
 * each group's hot functions with their sample counts as weights.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/lib/analysis/analysis.h"
#include "tools/lib/common/grow.h"
#include "tools/lib/fit/fit_images.h"
#include "tools/lib/fit/fit_model.h"

#define FN_GAP	     0x400u	 /* addresses further apart start a new function */
#define FN_ALIGN     0x10u	 /* a function starts on it and ends past its last sample */
#define PAGE	     0x1000u	 /* image sizes are whole pages */
#define MAX_IMAGE    0x80000000u /* 2 GiB */
#define KERNEL_OWNER SIZE_MAX	 /* an image of the kernel */

static int add_hit(struct fit *fit, size_t thread, int64_t row, uint64_t off, uint64_t n)
{
	struct fit_hit *h = grow_room(fit->hits, &fit->hcap, fit->nhits, sizeof(*h), 256);

	if (!h) {
		return -ENOMEM;
	}
	fit->hits = h;
	h[fit->nhits++] = (struct fit_hit){
		.thread = thread, .image = (size_t)row, .off = off, .n = n, .fn = UINT32_MAX};
	return 0;
}

/* The owner of image row @row met by thread @t: its process, the kernel, or none listed. */
static size_t owner_of(const struct fit *fit, const struct fit_thread *t, size_t row)
{
	const struct etwforge_image_row *im = analysis_image(fit->a, row);

	if (im->pid == 0) {
		return KERNEL_OWNER;
	}
	return fit->pr[t->proc].system || !fit->pr[t->proc].listed ? SIZE_MAX - 1 : t->proc;
}

/* A candidate image: (owner, name), its samples, the first row of it. */
struct cand {
	size_t owner, row;
	const char *name;
	uint64_t samples;
};

static int cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->samples != b->samples) {
		return a->samples > b->samples ? -1 : 1;
	}
	return a->row < b->row ? -1 : a->row > b->row;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_fn_samples(const void *x, const void *y)
{
	const struct fit_fn *a = x, *b = y;

	if (a->samples != b->samples) {
		return a->samples > b->samples ? -1 : 1;
	}
	return a->rva < b->rva ? -1 : a->rva > b->rva;
}

static int cmp_fn_rva(const void *x, const void *y)
{
	const struct fit_fn *a = x, *b = y;

	return a->rva < b->rva ? -1 : a->rva > b->rva;
}

/* The functions of image @i from the hits placed in it (hit.image == @i). */
static int functions(struct fit *fit, size_t i)
{
	struct fit_image *im = &fit->img[i];
	size_t n = 0, nc = 0;
	uint64_t *offs;
	struct fit_fn *c;

	for (size_t h = 0; h < fit->nhits; h++) {
		n += fit->hits[h].image == i;
	}
	offs = calloc(n + 1, sizeof(*offs));
	c = calloc(n + 1, sizeof(*c));
	if (!offs || !c) {
		free(offs);
		free(c);
		return -ENOMEM;
	}
	n = 0;
	for (size_t h = 0; h < fit->nhits; h++) {
		if (fit->hits[h].image == i) {
			offs[n++] = fit->hits[h].off;
		}
	}
	qsort(offs, n, sizeof(*offs), cmp_u64);
	for (size_t k = 0; k < n; k++) {
		uint64_t off =
			offs[k] < MAX_IMAGE - 2 * FN_ALIGN ? offs[k] : MAX_IMAGE - 2 * FN_ALIGN;

		uint64_t end = nc ? (uint64_t)c[nc - 1].rva + c[nc - 1].size : 0;

		if (nc && off < end) {
			continue; /* an address met before (another thread's) */
		}
		if (nc && off - end < FN_GAP) {
			c[nc - 1].size = (uint32_t)((off + FN_ALIGN) - c[nc - 1].rva);
		} else {
			c[nc].rva = (uint32_t)(off & ~(uint64_t)(FN_ALIGN - 1));
			c[nc].size = (uint32_t)(off + FN_ALIGN - c[nc].rva);
			nc++;
		}
	}
	for (size_t h = 0; h < fit->nhits; h++) {
		for (size_t k = 0; fit->hits[h].image == i && k < nc; k++) {
			if (fit->hits[h].off >= c[k].rva &&
			    fit->hits[h].off < (uint64_t)c[k].rva + c[k].size) {
				c[k].samples += fit->hits[h].n;
				break;
			}
		}
	}
	qsort(c, nc, sizeof(*c), cmp_fn_samples);
	im->nfn = nc < FIT_MAX_FNS ? (unsigned)nc : FIT_MAX_FNS;
	for (size_t k = im->nfn; k < nc; k++) {
		im->fn_dropped += c[k].samples;
	}
	memcpy(im->fn, c, im->nfn * sizeof(*c));
	qsort(im->fn, im->nfn, sizeof(*im->fn), cmp_fn_rva);
	for (size_t h = 0; h < fit->nhits; h++) {
		for (unsigned k = 0; fit->hits[h].image == i && k < im->nfn; k++) {
			if (fit->hits[h].off >= im->fn[k].rva &&
			    fit->hits[h].off < (uint64_t)im->fn[k].rva + im->fn[k].size) {
				fit->hits[h].fn = k;
				break;
			}
		}
	}
	free(offs);
	free(c);
	return 0;
}

int fit_images_place(struct fit *fit)
{
	struct cand *cand = NULL;
	size_t ncand = 0, ccap = 0;
	int rc;

	/* 1. each grouped thread's sampled addresses into image rows */
	for (size_t t = 0; t < fit->nth; t++) {
		const struct fit_thread *th = &fit->th[t];
		const struct etwforge_ip_count *ips;
		size_t n = 0;

		if (th->group == SIZE_MAX || !th->samples) {
			continue;
		}
		ips = analysis_ips(fit->a, (int64_t)th->row, &n);
		for (size_t k = 0; ips && k < n; k++) {
			struct etwforge_location loc;
			uint32_t pid = fit->pr[th->proc].pid;

			if (analysis_locate(fit->a, pid, ips[k].ip, th->mid_ns, &loc) != 1 &&
			    analysis_locate(fit->a, pid, ips[k].ip, fit->from_ns, &loc) != 1 &&
			    analysis_locate(fit->a, pid, ips[k].ip, fit->to_ns, &loc) != 1) {
				fit->unplaced += ips[k].samples;
				continue;
			}
			if ((rc = add_hit(fit, t, loc.image, loc.offset, ips[k].samples))) {
				return rc;
			}
		}
	}
	/* 2. hits by (owner, image name): the candidates, most samples first */
	for (size_t h = 0; h < fit->nhits; h++) {
		struct fit_hit *hit = &fit->hits[h];
		const struct etwforge_image_row *im = analysis_image(fit->a, hit->image);
		size_t owner = owner_of(fit, &fit->th[hit->thread], hit->image), k;

		for (k = 0; k < ncand; k++) {
			if (cand[k].owner == owner && !strcasecmp(cand[k].name, im->name)) {
				break;
			}
		}
		if (k == ncand) {
			struct cand *c = grow_room(cand, &ccap, ncand, sizeof(*c), 64);

			if (!c) {
				free(cand);
				return -ENOMEM;
			}
			cand = c;
			cand[ncand++] =
				(struct cand){.owner = owner, .row = hit->image, .name = im->name};
		}
		cand[k].samples += hit->n;
		/* from here on, the candidate (until images are chosen) */
		hit->image = k;
	}
	{
		/* the image table's distinct (process or kernel, name), for the header */
		size_t distinct = 0;

		for (size_t i = 0; i < fit->tot->images; i++) {
			const struct etwforge_image_row *a = analysis_image(fit->a, i);
			bool seen = false;

			for (size_t j = 0; j < i && !seen; j++) {
				const struct etwforge_image_row *b = analysis_image(fit->a, j);

				seen = a->process == b->process && a->pid == b->pid &&
				       !strcasecmp(a->name, b->name);
			}
			distinct += !seen;
		}
		fit->images_in_trace = distinct;
	}
	/* 3. the listed images: sorted candidates, owned by a listed process or the kernel */
	{
		size_t *pos = calloc(ncand + 1, sizeof(*pos));
		struct cand *sorted = calloc(ncand + 1, sizeof(*sorted));

		if (!pos || !sorted) {
			free(pos);
			free(sorted);
			free(cand);
			return -ENOMEM;
		}
		if (ncand) { /* @cand is NULL when no sample lands in an image */
			memcpy(sorted, cand, ncand * sizeof(*cand));
			qsort(sorted, ncand, sizeof(*sorted), cmp_cand);
		}
		for (size_t k = 0; k < ncand; k++) {
			pos[k] = SIZE_MAX;
		}
		for (size_t s = 0; s < ncand && fit->nimg < FIT_MAX_IMAGES; s++) {
			struct fit_image *im = &fit->img[fit->nimg];

			if (sorted[s].owner == SIZE_MAX - 1) {
				continue; /* a user image of System or of a process not listed */
			}
			for (size_t k = 0; k < ncand; k++) {
				if (cand[k].row == sorted[s].row &&
				    cand[k].owner == sorted[s].owner) {
					pos[k] = fit->nimg;
				}
			}
			memset(im, 0, sizeof(*im));
			im->row = sorted[s].row;
			im->proc = sorted[s].owner;
			im->samples = sorted[s].samples;
			fit->nimg++;
		}
		for (size_t h = 0; h < fit->nhits; h++) {
			fit->hits[h].image = pos[fit->hits[h].image];
		}
		free(pos);
		free(sorted);
		free(cand);
	}
	/* 4. their names (in order, so pseudonyms come in order) and functions */
	for (size_t i = 0; i < fit->nimg; i++) {
		struct fit_image *im = &fit->img[i];
		const struct etwforge_image_row *r = analysis_image(fit->a, im->row);

		if (im->proc != KERNEL_OWNER && fit->pr[im->proc].image_in &&
		    !strcasecmp(r->name, fit->pr[im->proc].image_in)) {
			/* the process's executable: its name as the process's image */
			snprintf(im->name, sizeof(im->name), "%.63s", fit->pr[im->proc].image);
		} else if ((rc = fit_name(&fit->names, FIT_NAME_IMAGE, r->name, im->name,
					  sizeof(im->name)))) {
			return rc;
		}
		if (!im->name[0]) {
			snprintf(im->name, sizeof(im->name), "image%zu.dll", i + 1);
		}
		if ((rc = functions(fit, i))) {
			return rc;
		}
	}
	return 0;
}

static void image_entry(struct fit *fit, const struct fit_image *im, struct fit_node *list)
{
	const struct etwforge_image_row *r = analysis_image(fit->a, im->row);
	struct fit_node *m = fit_add_map(list, NULL), *fns;
	uint64_t size = r->size, end = PAGE;
	char fname[24];

	for (unsigned k = 0; k < im->nfn; k++) {
		uint64_t e = (uint64_t)im->fn[k].rva + im->fn[k].size;

		end = e > end ? e : end;
	}
	size = size > end ? size : end;
	size = (size + PAGE - 1) / PAGE * PAGE;
	size = size > MAX_IMAGE ? MAX_IMAGE : size;
	fit_add_str(m, "name", im->name);
	fit_comment(m->n ? m->kids[0] : NULL, "%" PRIu64 " samples%s", im->samples,
		    im->fn_dropped ? "; past its 32 functions" : "");
	if (im->fn_dropped) {
		fit_comment(m->kids[0], "%" PRIu64 " samples of more functions are not listed",
			    im->fn_dropped);
	}
	fit_add_hex(m, "size", size);
	if (fit->names.mode == FIT_ANON_NONE) {
		char path[200];

		if (r->path && *r->path) {
			fit_ascii(r->path, path, sizeof(path));
			fit_add_str(m, "path", path);
		}
		if (r->timestamp) {
			fit_add_hex(m, "timestamp", r->timestamp);
		}
		if (r->checksum) {
			fit_add_hex(m, "checksum", r->checksum);
		}
		if (r->pdb && r->guid && strlen(r->guid) == 38) {
			struct fit_node *p = fit_add_map(m, "pdb");
			char guid[37], pdb[64];

			memcpy(guid, r->guid + 1, 36);
			guid[36] = '\0';
			fit_ascii(r->pdb, pdb, sizeof(pdb));
			if (p) {
				p->flow = true;
			}
			fit_add_str(p, "guid", guid);
			fit_add_u64(p, "age", r->age ? r->age : 1);
			fit_add_str(p, "name", pdb);
		}
	} else if (r->pdb) {
		fit_comment(m->kids[m->n - 1], "path, timestamp, checksum and PDB identity: gen's, "
					       "from the name and seed (anonymized)");
	}
	fns = fit_add_list(m, "functions");
	for (unsigned k = 0; k < im->nfn; k++) {
		struct fit_node *fn = fit_add_map(fns, NULL);

		if (fn) {
			fn->flow = true;
		}
		snprintf(fname, sizeof(fname), "fn_%" PRIX32, im->fn[k].rva);
		fit_add_str(fn, "name", fname);
		fit_add_hex(fn, "rva", im->fn[k].rva);
		fit_add_hex(fn, "size", im->fn[k].size);
	}
}

int fit_images_write(struct fit *fit, struct fit_node *root)
{
	struct fit_node *drivers = NULL;

	for (size_t i = 0; i < fit->nimg; i++) {
		struct fit_image *im = &fit->img[i];
		struct fit_node *list;

		if (im->proc == KERNEL_OWNER) {
			if (!drivers) {
				drivers = fit_add_list(root, "drivers");
				fit_comment(drivers, "the kernel modules the samples land in");
			}
			list = drivers;
		} else {
			struct fit_proc *p = &fit->pr[im->proc];

			if (!p->images) {
				p->images = fit_add_list(p->node, "images");
			}
			list = p->images;
		}
		if (!list) {
			return -ENOMEM;
		}
		image_entry(fit, im, list);
	}
	if (fit->images_in_trace > fit->nimg) {
		fit_comment(root->n ? root->kids[root->n - 1] : NULL,
			    "images: %zu of the trace's %zu are listed (those samples land in; the "
			    "language holds 64); the others are gen's own (each process maps its "
			    "executable and the system DLLs gen gives it)",
			    fit->nimg, fit->images_in_trace);
	}
	return 0;
}

/* A hot entry of a group: image, function, samples. */
struct hot {
	size_t image;
	unsigned fn;
	uint64_t n;
};

static int cmp_hot(const void *x, const void *y)
{
	const struct hot *a = x, *b = y;

	if (a->n != b->n) {
		return a->n > b->n ? -1 : 1;
	}
	if (a->image != b->image) {
		return a->image < b->image ? -1 : 1;
	}
	return a->fn < b->fn ? -1 : a->fn > b->fn;
}

int fit_images_hot(struct fit *fit, size_t g, struct fit_node *gnode)
{
	struct hot *h = NULL;
	size_t n = 0, cap = 0;
	uint64_t all = 0, kept = 0, top;
	struct fit_node *map;
	bool system = fit->pr[fit->grp[g].proc].system;

	for (size_t k = 0; k < fit->nhits; k++) {
		const struct fit_hit *hit = &fit->hits[k];
		size_t i;

		if (fit->th[hit->thread].group != g) {
			continue;
		}
		all += hit->n;
		if (hit->image == SIZE_MAX || hit->fn == UINT32_MAX) {
			continue;
		}
		/* a user group's kernel time: only in the kernel itself (ntoskrnl.exe, hal.dll) */
		if (!system && fit->img[hit->image].proc == KERNEL_OWNER &&
		    strcasecmp(fit->img[hit->image].name, "ntoskrnl.exe") &&
		    strcasecmp(fit->img[hit->image].name, "hal.dll")) {
			continue;
		}
		for (i = 0; i < n; i++) {
			if (h[i].image == hit->image && h[i].fn == hit->fn) {
				break;
			}
		}
		if (i == n) {
			struct hot *nh = grow_room(h, &cap, n, sizeof(*h), 16);

			if (!nh) {
				free(h);
				return -ENOMEM;
			}
			h = nh;
			h[n++] = (struct hot){.image = hit->image, .fn = hit->fn};
		}
		h[i].n += hit->n;
	}
	if (!n) {
		free(h);
		return 0;
	}
	qsort(h, n, sizeof(*h), cmp_hot);
	n = n < FIT_MAX_HOT ? n : FIT_MAX_HOT;
	top = h[0].n;
	map = fit_add_map(gnode, "hot");
	for (size_t i = 0; i < n; i++) {
		char key[128];
		uint64_t w = top <= 1000000 ? h[i].n : (h[i].n * 1000000 + top / 2) / top;

		snprintf(key, sizeof(key), "%s!fn_%" PRIX32, fit->img[h[i].image].name,
			 fit->img[h[i].image].fn[h[i].fn].rva);
		fit_add_u64(map, key, w ? w : 1);
		kept += h[i].n;
	}
	if (kept < all) {
		fit_comment(map,
			    "%.1f %% of the group's %" PRIu64 " placed samples land elsewhere "
			    "(in no listed image or function, or past 16 entries): not here",
			    100.0 * (double)(all - kept) / (double)all, all);
	}
	free(h);
	return 0;
}
