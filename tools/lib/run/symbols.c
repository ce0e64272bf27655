// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/symbols.c - gen --symbols DIR: one Breakpad text symbol
 * file per image with a PDB identity, so that a consumer resolves the
 * trace's addresses to the functions the scenario's address spaces hold:
 *
 *   DIR/<pdb name>/<GUID, no dashes, upper case><age in hex>/<pdb stem>.sym
 *     MODULE windows x86_64|x86 <GUID><age> <pdb name>
 *     FUNC <rva hex> <size hex> 0 <name>        (one a function, by rva)
 *
 * the layout Breakpad's symbol stores and its symbolizers read (the GUID
 * and age are the image's DbgID_RSDS). An image mapped in several
 * processes (a system DLL) is one file, with the functions each process's
 * copy names. Written after the run, before its ETL files are put in place,
 * in two steps: every file under a temporary name beside its place, then,
 * all written, each renamed into place; a file that cannot be written fails
 * the run and leaves DIR as it was (the temporary files removed, the
 * folders made for them too); a rename that fails (a folder in the file's
 * place) leaves the files renamed before it, each whole.
 */
#include "tools/lib/run/symbols.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/lib/common/error.h"

/* A file written under a temporary name, and its place. */
struct sym_file {
	char *tmp, *final;
};

/* What a write made: folders and temporary files to undo, the files to put in place. */
struct made {
	char **dirs; /* folders made, in the order made */
	size_t ndirs;
	struct sym_file *files;
	size_t nfiles;
};

/* @s appended to @v[@n] (a copy). Return: 0, or -ENOMEM. */
static int keep(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv) {
		return -ENOMEM;
	}
	*v = nv;
	if (!(nv[*n] = strdup(s))) {
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

/* The file @tmp, to be put at @final, noted in @m. Return: 0, or -ENOMEM. */
static int keep_file(struct made *m, const char *tmp, const char *final)
{
	struct sym_file *v = realloc(m->files, (m->nfiles + 1) * sizeof(*v));

	if (!v) {
		return -ENOMEM;
	}
	m->files = v;
	v[m->nfiles].tmp = strdup(tmp);
	v[m->nfiles].final = strdup(final);
	if (!v[m->nfiles].tmp || !v[m->nfiles].final) {
		free(v[m->nfiles].tmp);
		free(v[m->nfiles].final);
		return -ENOMEM;
	}
	m->nfiles++;
	return 0;
}

/* mkdir @path, an existing folder being fine; one made is noted in @m. */
static int make_dir(struct made *m, const char *path)
{
	struct stat st;

	if (mkdir(path, 0777) == 0) {
		return keep(&m->dirs, &m->ndirs, path);
	}
	if (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		return 0;
	}
	return -errno;
}

/* Free @m; @undo: its temporary files removed, and its folders that are empty then. */
static void made_free(struct made *m, bool undo)
{
	for (size_t k = 0; k < m->nfiles; k++) {
		if (undo) {
			(void)unlink(m->files[k].tmp); /* gone already when it was put in place */
		}
		free(m->files[k].tmp);
		free(m->files[k].final);
	}
	for (size_t k = m->ndirs; k-- > 0;) {
		if (undo) {
			(void)rmdir(m->dirs[k]); /* refused for one holding a file put in place */
		}
		free(m->dirs[k]);
	}
	free(m->dirs);
	free(m->files);
}

/* Image @i's identity "<GUID><age>" (as DbgID_RSDS holds the GUID: Data1..3 little-endian). */
static void identity(const struct mod_image *im, char out[48])
{
	const uint8_t *g = im->pdb_guid;

	snprintf(out, 48, "%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%02X%X",
		 g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15], im->pdb_age);
}

/* Are images @a and @b the same file (same PDB name and identity)? */
static bool same_file(const struct mod_image *a, const struct mod_image *b)
{
	return !strcmp(a->pdb_name, b->pdb_name) &&
	       !memcmp(a->pdb_guid, b->pdb_guid, sizeof(a->pdb_guid)) && a->pdb_age == b->pdb_age;
}

/* Was an image before @i the same file? */
static bool written_before(const struct mod_cfg *c, uint32_t i)
{
	for (uint32_t k = 0; k < i; k++) {
		if (c->images[k].pdb_name[0] && same_file(&c->images[k], &c->images[i])) {
			return true;
		}
	}
	return false;
}

static const struct mod_cfg *sort_cfg; /* qsort's: the functions compared */

static int by_rva(const void *a, const void *b)
{
	uint32_t x = sort_cfg->functions[*(const uint32_t *)a].rva;
	uint32_t y = sort_cfg->functions[*(const uint32_t *)b].rva;

	return x < y ? -1 : x > y;
}

/*
 * The functions of image @i and of every image that is the same file (a
 * DLL each process names functions of), by rva, those overlapping one
 * before them left out, into @out. Return: how many.
 */
static uint32_t functions_of(const struct mod_cfg *c, uint32_t i, uint32_t *out)
{
	uint32_t n = 0, kept = 0;

	for (uint32_t k = i; k < c->nimages; k++) {
		const struct mod_image *im = &c->images[k];

		if (k != i && !same_file(im, &c->images[i])) {
			continue;
		}
		for (uint32_t f = 0; f < im->nfn && n < MOD_MAX_FUNCTIONS; f++) {
			out[n++] = im->first_fn + f;
		}
	}
	sort_cfg = c;
	qsort(out, n, sizeof(*out), by_rva);
	for (uint32_t k = 0; k < n; k++) {
		const struct mod_function *f = &c->functions[out[k]];
		const struct mod_function *p = kept ? &c->functions[out[kept - 1]] : NULL;

		if (!p || f->rva >= p->rva + p->size) {
			out[kept++] = out[k];
		}
	}
	return kept;
}

/* Image @i's file under @dir. */
static int write_one(const struct mod_cfg *c, uint32_t i, const char *dir, uint32_t *fns,
		     struct made *m, struct etwforge_error *err)
{
	uint32_t nfn;
	const struct mod_image *im = &c->images[i];
	const char *dot = strrchr(im->pdb_name, '.');
	int stem = dot ? (int)(dot - im->pdb_name) : (int)strlen(im->pdb_name);
	char id[48], path[4096], tmp[4096 + 16], buf[32];
	FILE *f;
	int rc, fd;

	identity(im, id);
	if (strchr(im->pdb_name, '/') || !strcmp(im->pdb_name, ".") ||
	    !strcmp(im->pdb_name, "..")) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "--symbols: the PDB name \"%s\" is not a file name",
				  im->pdb_name);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, im->pdb_name);
	if ((rc = make_dir(m, path)) == 0) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, im->pdb_name, id);
		rc = make_dir(m, path);
	}
	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "--symbols: %s: %s", path, strerror(-rc));
	}
	snprintf(path, sizeof(path), "%s/%s/%s/%.*s.sym", dir, im->pdb_name, id, stem,
		 im->pdb_name);
	snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = -errno;
		if (fd >= 0) {
			(void)close(fd);
			(void)unlink(tmp);
		}
		return error_fail(err, rc, ERR_DATA, "--symbols: %s: %s", path, strerror(-rc));
	}
	if (keep_file(m, tmp, path) < 0) {
		(void)fclose(f);
		(void)unlink(tmp);
		return error_fail(err, -ENOMEM, ERR_DATA, "--symbols: out of memory");
	}
	fprintf(f, "MODULE windows %s %s %s\n", c->ptr64 ? "x86_64" : "x86", id, im->pdb_name);
	nfn = functions_of(c, i, fns);
	for (uint32_t k = 0; k < nfn; k++) {
		const struct mod_function *fn = &c->functions[fns[k]];

		fprintf(f, "FUNC %x %x 0 %s\n", fn->rva, fn->size,
			mod_function_name(fn, buf, sizeof(buf)));
	}
	if (ferror(f) | (fclose(f) != 0)) {
		return error_fail(err, -EIO, ERR_DATA, "--symbols: %s: cannot write it", path);
	}
	return 0;
}

int run_write_symbols(const struct mod_cfg *c, const char *dir, struct etwforge_error *err)
{
	struct made m = {0};
	uint32_t *fns = malloc(MOD_MAX_FUNCTIONS * sizeof(*fns));
	int rc = fns ? make_dir(&m, dir) : -ENOMEM;

	if (rc < 0) {
		free(fns);
		made_free(&m, true);
		return error_fail(err, rc, ERR_DATA, "--symbols: %s: %s", dir, strerror(-rc));
	}
	for (uint32_t i = 0; rc == 0 && i < c->nimages; i++) {
		if (c->images[i].pdb_name[0] && !written_before(c, i)) {
			rc = write_one(c, i, dir, fns, &m, err);
		}
	}
	free(fns);
	for (size_t k = 0; rc == 0 && k < m.nfiles; k++) {
		/* all written: each in place (a rename in its own folder) */
		if (rename(m.files[k].tmp, m.files[k].final) < 0) {
			/* those put in place before stay: whole files, each right */
			rc = error_fail(err, -errno, ERR_DATA, "--symbols: %s: %s",
					m.files[k].final, strerror(errno));
		}
	}
	made_free(&m, rc < 0);
	return rc;
}
