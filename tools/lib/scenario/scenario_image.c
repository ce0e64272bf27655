// SPDX-License-Identifier: MIT
/*
 * tools/lib/scenario/scenario_image.c - the images a scenario names
 * (scenario_image.h): a process's `images:` and `drivers:`, each a list of
 * maps read key by key (an unknown key is refused with the nearest known
 * one), printed back in flow style, added to the address spaces, and the
 * address spaces' problems put back at the key that caused them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "producer/etw_ktc.h"
#include "tools/lib/common/suggest.h"
#include "tools/lib/scenario/scenario_image.h"

#define ARRAY_SIZE(a)  (sizeof(a) / sizeof((a)[0]))
#define MAX_IMAGE_SIZE 0x80000000ull /* 2 GiB: no PE image is larger */
#define MAX_TIME_NS    (86400ull * SK_NS_PER_S)
#define PROCESS_SPACE0 (MOD_SYSTEM + 1u) /* process item i is address space i + 2 */

static struct scenario_images *images_of(const struct sk_walk *w, const struct sk_desc *d)
{
	return (struct scenario_images *)(void *)((char *)w->root + d->off);
}

void scenario_images_drop(struct scenario_images *ims, int owner)
{
	unsigned k = 0;

	for (unsigned i = 0; i < ims->n; i++) {
		if (ims->im[i].owner != owner) {
			ims->im[k++] = ims->im[i];
		}
	}
	ims->n = k;
}

/* ---- reading ------------------------------------------------------------------ */

/* @n is a map; an unknown key of it is refused with the nearest of @keys. */
static int need_map(struct sk_walk *w, const struct yt_node *n, const char *what,
		    const char *const *keys, unsigned nkeys)
{
	if (n->kind != YT_MAP) {
		return sk_fail(w, n, "must be a map of %s, not %s", what, yt_kind_name(n));
	}
	for (size_t i = 0; i < n->n; i++) {
		const struct yt_node *k = n->kids[2 * i];
		bool known = false;

		for (unsigned j = 0; k->kind == YT_SCALAR && j < nkeys; j++) {
			known = known || !strcmp(k->str, keys[j]);
		}
		if (!known) {
			const char *near =
				k->kind == YT_SCALAR ? suggest_name(k->str, keys, nkeys) : NULL;

			return sk_fail(w, k, "unknown key \"%s\"%s%s%s", k->str ? k->str : "",
				       near ? " (did you mean \"" : "", near ? near : "",
				       near ? "\"?)" : "");
		}
	}
	return 0;
}

static int get_u32(struct sk_walk *w, const struct yt_node *map, const char *key, uint64_t lo,
		   uint64_t hi, uint32_t *out, bool *given)
{
	const struct yt_node *v = yt_map_get(map, key);
	size_t old;
	uint64_t x;
	int rc;

	if (!v) {
		return 0;
	}
	old = sk_push(w, key);
	rc = sk_get_uint(w, v, lo, hi, &x);
	sk_pop(w, old);
	if (rc == 0) {
		*out = (uint32_t)x;
		if (given) {
			*given = true;
		}
	}
	return rc;
}

static int get_name(struct sk_walk *w, const struct yt_node *map, const char *key, size_t min,
		    char *out, size_t size)
{
	const struct yt_node *v = yt_map_get(map, key);
	const char *s;
	size_t old;
	int rc;

	if (!v) {
		return min ? sk_fail(w, map, "%s is required", key) : 0;
	}
	old = sk_push(w, key);
	rc = sk_get_str(w, v, min, size, &s);
	if (rc == 0) {
		for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
			if (*p < 0x20 || *p >= 0x7F) {
				rc = sk_fail(w, v, "\"%s\" is not printable 7-bit ASCII", s);
				break;
			}
		}
	}
	sk_pop(w, old);
	if (rc == 0) {
		sk_copy_str(out, size, s);
	}
	return rc;
}

static int get_time(struct sk_walk *w, const struct yt_node *map, const char *key, uint64_t *out)
{
	const struct yt_node *v = yt_map_get(map, key);
	size_t old;
	int rc;

	if (!v) {
		return 0;
	}
	old = sk_push(w, key);
	rc = sk_get_duration(w, v, 0, MAX_TIME_NS, out);
	sk_pop(w, old);
	return rc;
}

static const char *const pdb_keys[] = {"guid", "age", "name"};

/* pdb: {guid, age, name} or none (no debug directory). */
static int read_pdb(struct sk_walk *w, const struct yt_node *v, struct scenario_image *im)
{
	const struct yt_node *g;
	bool age = false;
	int rc;

	if (v->kind == YT_SCALAR && v->str && !strcmp(v->str, "none")) {
		im->given |= MOD_GIVEN_NO_PDB;
		return 0;
	}
	if ((rc = need_map(w, v, "guid, age and name (or none)", pdb_keys, ARRAY_SIZE(pdb_keys))) ||
	    (rc = get_u32(w, v, "age", 1, UINT32_MAX, &im->pdb_age, &age)) ||
	    (rc = get_name(w, v, "name", 1, im->pdb_name, sizeof(im->pdb_name)))) {
		return rc;
	}
	g = yt_map_get(v, "guid");
	if (!g) {
		return sk_fail(w, v, "guid is required (as 3C8F0528-9C07-4257-9192-78EA9AA6A1F4)");
	}
	if (g->kind != YT_SCALAR || !g->str || etw_guid_parse(g->str, im->pdb_guid) < 0) {
		size_t old = sk_push(w, "guid");

		rc = sk_fail(w, g,
			     "\"%s\" is not a GUID such as 3C8F0528-9C07-4257-9192-78EA9AA6A1F4",
			     g->str ? g->str : "");
		sk_pop(w, old);
		return rc;
	}
	im->pdb_age = age ? im->pdb_age : 1;
	im->given |= MOD_GIVEN_PDB;
	return 0;
}

static const char *const fn_keys[] = {"name", "rva", "size", "weight"};

static int read_functions(struct sk_walk *w, const struct yt_node *v, struct scenario_image *im)
{
	size_t cnt;
	int rc = sk_need_list(w, v, "functions ({name, rva, size, weight})", SCENARIO_IMAGE_FNS,
			      &cnt);

	im->nfn = 0;
	for (size_t i = 0; rc == 0 && i < cnt; i++) {
		const struct yt_node *f = v->kids[i];
		struct scenario_image_fn *fn = &im->fn[i];
		size_t old = sk_push_index(w, (unsigned)i);

		memset(fn, 0, sizeof(*fn));
		rc = need_map(w, f, "name, rva, size and weight", fn_keys, ARRAY_SIZE(fn_keys));
		if (rc == 0 && (!yt_map_get(f, "rva") || !yt_map_get(f, "size"))) {
			rc = sk_fail(w, f, "a function needs name, rva and size");
		}
		if (rc == 0 && !(rc = get_name(w, f, "name", 1, fn->name, sizeof(fn->name))) &&
		    !(rc = get_u32(w, f, "rva", 0, UINT32_MAX, &fn->rva, NULL)) &&
		    !(rc = get_u32(w, f, "size", 1, UINT32_MAX, &fn->size, NULL)) &&
		    !(rc = get_u32(w, f, "weight", 0, 1000000, &fn->weight, NULL))) {
			for (size_t j = 0; j < i; j++) {
				if (!strcmp(im->fn[j].name, fn->name)) {
					rc = sk_fail(w, f, "function \"%s\" is named twice",
						     fn->name);
				}
			}
		}
		if (rc == 0) {
			sk_where_put(w, w->path, f->line, f->col);
			im->nfn++;
		}
		sk_pop(w, old);
	}
	return rc;
}

static const char *const image_keys[] = {"name",     "path", "size",	  "base", "timestamp",
					 "checksum", "pdb",  "functions", "load", "unload"};

/* One item of images: or drivers:. */
static int read_image(struct sk_walk *w, const struct yt_node *n, struct scenario_image *im)
{
	const struct yt_node *v;
	bool given = false;
	uint64_t x;
	size_t old;
	int rc;

	if ((rc = need_map(w, n,
			   "name, path, size, base, timestamp, checksum, pdb, functions, "
			   "load and unload",
			   image_keys, ARRAY_SIZE(image_keys))) ||
	    (rc = get_name(w, n, "name", 1, im->name, sizeof(im->name))) ||
	    (rc = get_name(w, n, "path", 0, im->path, sizeof(im->path)))) {
		return rc;
	}
	if (im->path[0]) {
		im->given |= MOD_GIVEN_PATH;
	}
	if (!(v = yt_map_get(n, "size"))) {
		return sk_fail(w, n, "size is required (its mapped size, a multiple of 4 KiB)");
	}
	old = sk_push(w, "size");
	rc = sk_get_uint(w, v, MOD_PAGE, MAX_IMAGE_SIZE, &im->size);
	sk_pop(w, old);
	if (rc) {
		return rc;
	}
	if ((v = yt_map_get(n, "base"))) {
		old = sk_push(w, "base");
		rc = sk_get_uint(w, v, MOD_PAGE, UINT64_MAX, &im->base);
		sk_pop(w, old);
		if (rc) {
			return rc;
		}
		im->given |= MOD_GIVEN_BASE;
	}
	if ((rc = get_u32(w, n, "timestamp", 0, UINT32_MAX, &im->timestamp, &given))) {
		return rc;
	}
	im->given |= given ? MOD_GIVEN_TIMESTAMP : 0u;
	given = false;
	if ((rc = get_u32(w, n, "checksum", 0, UINT32_MAX, &im->checksum, &given))) {
		return rc;
	}
	im->given |= given ? MOD_GIVEN_CHECKSUM : 0u;
	if ((v = yt_map_get(n, "pdb"))) {
		old = sk_push(w, "pdb");
		rc = read_pdb(w, v, im);
		sk_pop(w, old);
		if (rc) {
			return rc;
		}
	}
	if ((v = yt_map_get(n, "functions"))) {
		old = sk_push(w, "functions");
		rc = read_functions(w, v, im);
		sk_pop(w, old);
		if (rc) {
			return rc;
		}
	}
	im->unload_ns = MOD_NEVER;
	if ((rc = get_time(w, n, "load", &im->load_ns))) {
		return rc;
	}
	if ((rc = get_time(w, n, "unload", &x))) {
		return rc;
	}
	if (yt_map_get(n, "unload")) {
		im->unload_ns = x;
	}
	return 0;
}

/* A list of images for @owner, replacing its previous ones. */
static int read_list(struct sk_walk *w, const struct sk_desc *d, const struct yt_node *n, int owner)
{
	struct scenario_images *ims = images_of(w, d);
	struct scenario_images keep = *ims;
	size_t cnt;
	int rc = sk_need_list(w, n, owner == SCENARIO_IMAGE_DRIVER ? "kernel modules" : "images",
			      SCENARIO_MAX_IMAGES, &cnt);

	if (rc) {
		return rc;
	}
	sk_where_drop_under(w->log, w->path);
	scenario_images_drop(ims, owner);
	for (size_t i = 0; i < cnt; i++) {
		struct scenario_image *im;
		size_t old = sk_push_index(w, (unsigned)i);

		if (ims->n == SCENARIO_MAX_IMAGES) {
			*ims = keep;
			return sk_fail(w, n->kids[i],
				       "more than %d images in all (processes' and drivers)",
				       SCENARIO_MAX_IMAGES);
		}
		im = &ims->im[ims->n];
		memset(im, 0, sizeof(*im));
		im->owner = owner;
		rc = read_image(w, n->kids[i], im);
		for (unsigned j = 0; rc == 0 && j < ims->n; j++) {
			if (ims->im[j].owner == owner && !strcasecmp(ims->im[j].name, im->name)) {
				rc = sk_fail(w, n->kids[i], "image \"%s\" is named twice",
					     im->name);
			}
		}
		if (rc) {
			*ims = keep;
			return rc;
		}
		sk_where_put(w, w->path, n->kids[i]->line, n->kids[i]->col);
		ims->n++;
		sk_pop(w, old);
	}
	return 0;
}

int scenario_apply_images(struct sk_walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n)
{
	(void)base;
	return read_list(w, d, n, (int)w->item);
}

int scenario_apply_drivers(struct sk_walk *w, const struct sk_desc *d, void *base,
			   const struct yt_node *n)
{
	(void)base;
	return read_list(w, d, n, SCENARIO_IMAGE_DRIVER);
}

/* ---- printing ------------------------------------------------------------------- */

static void put_q(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') {
			fputc('\\', f);
		}
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_ns(FILE *f, uint64_t ns)
{
	char buf[32];

	sk_format_duration(buf, sizeof(buf), ns);
	fputs(buf, f);
}

void scenario_print_images(FILE *f, const struct scenario_images *ims, int owner)
{
	bool first = true;

	fputc('[', f);
	for (unsigned i = 0; i < ims->n; i++) {
		const struct scenario_image *im = &ims->im[i];

		if (im->owner != owner) {
			continue;
		}
		fputs(first ? "{name: " : ", {name: ", f);
		first = false;
		put_q(f, im->name);
		if (im->given & MOD_GIVEN_PATH) {
			fputs(", path: ", f);
			put_q(f, im->path);
		}
		fprintf(f, ", size: 0x%" PRIx64, im->size);
		if (im->given & MOD_GIVEN_BASE) {
			fprintf(f, ", base: 0x%" PRIx64, im->base);
		}
		if (im->given & MOD_GIVEN_TIMESTAMP) {
			fprintf(f, ", timestamp: 0x%" PRIx32, im->timestamp);
		}
		if (im->given & MOD_GIVEN_CHECKSUM) {
			fprintf(f, ", checksum: 0x%" PRIx32, im->checksum);
		}
		if (im->given & MOD_GIVEN_NO_PDB) {
			fputs(", pdb: none", f);
		} else if (im->given & MOD_GIVEN_PDB) {
			char g[ETW_GUID_STR_LEN + 1];

			etw_guid_format(im->pdb_guid, g);
			g[ETW_GUID_STR_LEN - 1] = '\0'; /* no braces */
			fprintf(f, ", pdb: {guid: %s, age: %" PRIu32 ", name: ", g + 1,
				im->pdb_age);
			put_q(f, im->pdb_name);
			fputc('}', f);
		}
		if (im->nfn) {
			fputs(", functions: [", f);
			for (unsigned k = 0; k < im->nfn; k++) {
				fputs(k ? ", {name: " : "{name: ", f);
				put_q(f, im->fn[k].name);
				fprintf(f, ", rva: 0x%" PRIx32 ", size: 0x%" PRIx32, im->fn[k].rva,
					im->fn[k].size);
				if (im->fn[k].weight) {
					fprintf(f, ", weight: %" PRIu32, im->fn[k].weight);
				}
				fputc('}', f);
			}
			fputc(']', f);
		}
		if (im->load_ns) {
			fputs(", load: ", f);
			put_ns(f, im->load_ns);
		}
		if (im->unload_ns != MOD_NEVER) {
			fputs(", unload: ", f);
			put_ns(f, im->unload_ns);
		}
		fputc('}', f);
	}
	fputc(']', f);
}

/* ---- into the address spaces ---------------------------------------------------- */

static bool kept_owner(const struct scenario_image *im, unsigned nprocesses)
{
	return im->owner == SCENARIO_IMAGE_DRIVER ||
	       (im->owner >= 0 && (unsigned)im->owner < nprocesses);
}

int scenario_images_add(const struct scenario_images *ims, unsigned nprocesses, struct mod_cfg *m,
			unsigned kept[SCENARIO_MAX_IMAGES], unsigned *nkept)
{
	*nkept = 0;
	for (unsigned i = 0; i < ims->n; i++) {
		const struct scenario_image *s = &ims->im[i];
		struct mod_image im;
		int k;

		if (!kept_owner(s, nprocesses)) {
			continue;
		}
		memset(&im, 0, sizeof(im));
		sk_copy_str(im.name, sizeof(im.name), s->name);
		sk_copy_str(im.path, sizeof(im.path), s->path);
		im.kernel = s->owner == SCENARIO_IMAGE_DRIVER;
		im.process = im.kernel ? MOD_SYSTEM : PROCESS_SPACE0 + (uint32_t)s->owner;
		im.base = s->base;
		im.size = s->size;
		im.timestamp = s->timestamp;
		im.checksum = s->checksum;
		memcpy(im.pdb_guid, s->pdb_guid, sizeof(im.pdb_guid));
		im.pdb_age = s->pdb_age;
		sk_copy_str(im.pdb_name, sizeof(im.pdb_name), s->pdb_name);
		im.load_ns = s->load_ns;
		im.unload_ns = s->unload_ns;
		im.given = s->given;
		k = mod_add_image(m, &im);
		if (k < 0) {
			return k;
		}
		for (unsigned j = 0; j < s->nfn; j++) {
			int f = mod_add_function(m, (uint32_t)k, s->fn[j].name, s->fn[j].rva,
						 s->fn[j].size);

			if (f < 0) {
				return f;
			}
			m->functions[f].weight = s->fn[j].weight;
		}
		kept[(*nkept)++] = i;
	}
	return 0;
}

/* The key of image @i of @ims ("drivers.1", "processes.3.images.0"). */
static void image_key(const struct scenario_images *ims, unsigned i, char *out, size_t cap)
{
	unsigned nth = 0;

	for (unsigned j = 0; j < i; j++) {
		nth += ims->im[j].owner == ims->im[i].owner;
	}
	if (ims->im[i].owner == SCENARIO_IMAGE_DRIVER) {
		snprintf(out, cap, "drivers.%u", nth);
	} else {
		snprintf(out, cap, "processes.%d.images.%u", ims->im[i].owner, nth);
	}
}

int scenario_images_check(const struct scenario_images *ims, unsigned nprocesses,
			  const struct sk_where_log *where, const char *source,
			  struct etwforge_error *err)
{
	for (unsigned i = 0; i < ims->n; i++) {
		const struct scenario_image *im = &ims->im[i];
		char key[SK_PATH_MAX];

		if (!kept_owner(im, nprocesses) || im->unload_ns == MOD_NEVER ||
		    im->unload_ns > im->load_ns) {
			continue;
		}
		image_key(ims, i, key, sizeof(key));
		return sk_fail_key(where, source, err, key,
				   "%s: unload (%" PRIu64 " ns) must come after load (%" PRIu64
				   " ns)",
				   im->name, im->unload_ns, im->load_ns);
	}
	return 0;
}

int scenario_images_problem(const struct scenario_images *ims, const struct mod_cfg *m,
			    const unsigned *kept, unsigned nkept, const struct mod_problem *p,
			    const struct sk_where_log *where, const char *source,
			    struct etwforge_error *err)
{
	char key[SK_PATH_MAX + 32], other[MOD_NAME_MAX + 64] = "";
	uint32_t at = p->image;
	const struct mod_image *im = p->image < m->nimages ? &m->images[p->image] : NULL;

	if (p->other != MOD_NO_IMAGE && p->other < m->nimages) {
		const struct mod_image *o = &m->images[p->other];

		snprintf(other, sizeof(other), " %s (0x%" PRIx64 "..0x%" PRIx64 ")", o->name,
			 o->base, o->base + o->size);
		if (at >= nkept && p->other < nkept) {
			at = p->other; /* a default image against the scenario's: point at that */
		}
	}
	if (!im) {
		return sk_fail_key(where, source, err, "processes", "images: %s", p->why);
	}
	if (at >= nkept) {
		return sk_fail_key(where, source, err, "processes",
				   "images: %s (0x%" PRIx64 "..0x%" PRIx64 ") %s%s", im->name,
				   im->base, im->base + im->size, p->why, other);
	}
	image_key(ims, kept[at], key, sizeof(key));
	if (p->function != UINT32_MAX && p->function < m->nfunctions && at == p->image) {
		const struct mod_function *f = &m->functions[p->function];
		const struct scenario_image *s = &ims->im[kept[at]];

		for (unsigned j = 0; j < s->nfn; j++) {
			if (s->fn[j].rva == f->rva && f->name && !strcmp(s->fn[j].name, f->name)) {
				size_t n = strlen(key);

				snprintf(key + n, sizeof(key) - n, ".functions.%u", j);
				return sk_fail_key(where, source, err, key,
						   "%s!%s (rva 0x%" PRIx32 ", size 0x%" PRIx32
						   ") %s (0x%" PRIx64 " bytes)",
						   im->name, f->name, f->rva, f->size, p->why,
						   im->size);
			}
		}
	}
	return sk_fail_key(where, source, err, key, "%s (0x%" PRIx64 "..0x%" PRIx64 ") %s%s",
			   im->name, im->base, im->base + im->size, p->why, other);
}
