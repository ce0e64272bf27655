// SPDX-License-Identifier: MIT
/*
 * tools/lib/analysis/symbols.c - the symbol store (see symbols.h): a PDB's
 * identity to its file's path, a file read line by line (MODULE first,
 * then FUNC and PUBLIC records; the others skipped), its functions and
 * public symbols sorted by address for the lookups.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tools/lib/analysis/symbols.h"
#include "tools/lib/common/error.h"
#include "tools/lib/common/grow.h"

#define ID_LEN	     41	  /* 32 hex digits of the GUID, up to 8 of the age */
#define SYM_LINE_MAX 8192 /* a longer line (a C++ name) is read in pieces: the first kept */

void an_symbols_init(struct an_symbols *s)
{
	memset(s, 0, sizeof(*s));
}

int an_symbols_open(struct an_symbols *s, const char *dir, struct etwforge_error *err)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		int e = errno;

		return error_fail_at(err, -e, ERR_INPUT, "%s: cannot open: %s", dir, strerror(e));
	}
	if (!S_ISDIR(st.st_mode)) {
		return error_fail_at(err, -ENOTDIR, ERR_INPUT,
				     "%s: cannot open: not a folder (a symbol store is a folder)",
				     dir);
	}
	free(s->dir);
	s->dir = strdup(dir);
	return s->dir ? 0 : error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
}

/* The store's identifier of a PDB: its GUID's 32 hex digits, upper case, then the age in hex. */
static bool store_id(const char *guid, uint32_t age, char out[ID_LEN + 1])
{
	size_t n = 0;

	for (const char *p = guid; *p && n < 32; p++) {
		if (isxdigit((unsigned char)*p)) {
			out[n++] = (char)toupper((unsigned char)*p);
		} else if (*p != '{' && *p != '}' && *p != '-') {
			return false;
		}
	}
	if (n != 32) {
		return false;
	}
	snprintf(out + n, ID_LEN + 1 - n, "%X", (unsigned)age);
	return true;
}

/* A PDB name the store may hold: a plain file name (no folder, not "." or ".."). */
static bool plain_name(const char *p)
{
	return p && p[0] && strcmp(p, ".") && strcmp(p, "..") && !strchr(p, '/') &&
	       !strchr(p, '\\');
}

/* DIR/PDB/ID/STEM.sym, STEM the PDB's name without ".pdb". */
static char *sym_path(const char *dir, const char *pdb, const char *id)
{
	size_t n = strlen(pdb), stem = n > 4 && !strcasecmp(pdb + n - 4, ".pdb") ? n - 4 : n;
	size_t len = strlen(dir) + 2 * n + strlen(id) + 16;
	char *p = malloc(len);

	if (p) {
		snprintf(p, len, "%s/%s/%s/%.*s.sym", dir, pdb, id, (int)stem, pdb);
	}
	return p;
}

static int sym_add(struct an_sym **v, size_t *n, size_t *cap, const struct an_sym *e)
{
	struct an_sym *w = grow_room(*v, cap, *n, sizeof(*w), 256);

	if (!w) {
		return -ENOMEM;
	}
	*v = w;
	w[(*n)++] = *e;
	return 0;
}

/* A hex field of a record, then a blank. Return: the rest, NULL when it is not one. */
static const char *hex_field(const char *p, uint64_t *v)
{
	const char *q = p;

	*v = 0;
	if (!isxdigit((unsigned char)*q)) {
		return NULL;
	}
	while (isxdigit((unsigned char)*q)) {
		if (q - p >= 16) {
			return NULL;
		}
		*v = *v << 4 | (uint64_t)(isdigit((unsigned char)*q)
						  ? *q - '0'
						  : (tolower((unsigned char)*q) - 'a' + 10));
		q++;
	}
	if (*q != ' ') {
		return NULL;
	}
	return q + 1;
}

static int by_rva(const void *a, const void *b)
{
	const struct an_sym *x = a, *y = b;

	return x->rva < y->rva ? -1 : x->rva > y->rva;
}

/*
 * One FUNC or PUBLIC record (@p after its keyword and blank) into @f.
 * Return: 0, -EINVAL (*@what says which field), -ENOMEM.
 */
static int record(struct an_sym_file *f, const char *p, bool func, const char **what)
{
	struct an_sym e = {0};
	uint64_t param;
	size_t len;

	if (!strncmp(p, "m ", 2)) {
		p += 2; /* the function was merged with others of the same code */
	}
	if (!(p = hex_field(p, &e.rva))) {
		*what = "address";
		return -EINVAL;
	}
	if (func && !(p = hex_field(p, &e.size))) {
		*what = "size";
		return -EINVAL;
	}
	if (!(p = hex_field(p, &param))) {
		*what = "parameter size";
		return -EINVAL;
	}
	len = strlen(p);
	if (len == 0) {
		*what = "name";
		return -EINVAL;
	}
	e.name = an_text_add(&f->names, p, len);
	if (e.name == SIZE_MAX) {
		return -ENOMEM;
	}
	return func ? sym_add(&f->func, &f->nfunc, &f->cap_func, &e)
		    : sym_add(&f->pub, &f->npub, &f->cap_pub, &e);
}

/* Read the symbol file @f->path of store identifier @id. Return: 0, -EINVAL (@err), -ENOMEM. */
static int read_file(struct an_sym_file *f, FILE *in, const char *id, struct etwforge_error *err)
{
	char line[SYM_LINE_MAX];
	unsigned long no = 0;
	bool cut = false;
	int rc = 0;

	while (rc == 0 && fgets(line, sizeof(line), in)) {
		size_t n = strlen(line);
		bool whole = n && line[n - 1] == '\n';
		const char *what = NULL;

		if (cut) { /* the rest of a line too long: its start was read */
			cut = !whole;
			continue;
		}
		cut = !whole;
		no++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
			line[--n] = '\0';
		}
		if (no == 1) {
			char os[64], arch[64], mid[64];

			if (sscanf(line, "MODULE %63s %63s %63s", os, arch, mid) != 3) {
				return error_fail_at(err, -EINVAL, ERR_DATA,
						     "%s:1: not a Breakpad symbol file (it starts "
						     "with no MODULE line)",
						     f->path);
			}
			if (strcasecmp(mid, id) != 0) {
				return error_fail_at(err, -EINVAL, ERR_DATA,
						     "%s:1: MODULE %s is not the identifier of its "
						     "folder, %s",
						     f->path, mid, id);
			}
			continue;
		}
		if (!strncmp(line, "FUNC ", 5)) {
			rc = record(f, line + 5, true, &what);
		} else if (!strncmp(line, "PUBLIC ", 7)) {
			rc = record(f, line + 7, false, &what);
		}
		if (rc == -EINVAL) {
			return error_fail_at(err, rc, ERR_DATA, "%s:%lu: %s record: bad %s",
					     f->path, no, line[0] == 'F' ? "FUNC" : "PUBLIC", what);
		}
	}
	if (rc == 0 && ferror(in)) {
		return error_fail_at(err, -EIO, ERR_DATA, "%s: read error", f->path);
	}
	if (rc == 0 && no == 0) {
		return error_fail_at(err, -EINVAL, ERR_DATA, "%s: empty, not a symbol file",
				     f->path);
	}
	if (rc < 0) {
		return error_fail(err, rc, ERR_DATA, "out of memory");
	}
	if (f->nfunc > 1) {
		qsort(f->func, f->nfunc, sizeof(*f->func), by_rva);
	}
	if (f->npub > 1) {
		qsort(f->pub, f->npub, sizeof(*f->pub), by_rva);
	}
	return 0;
}

static void file_free(struct an_sym_file *f)
{
	free(f->path);
	free(f->func);
	free(f->pub);
	free(f->names.buf);
}

/*
 * The file at @path (of identifier @id), read when not read yet. *@file its
 * index, -1 when there is no such file. Return: 0, or as read_file().
 */
static int file_of(struct an_symbols *s, char *path, const char *id, int64_t *file,
		   struct etwforge_error *err)
{
	struct an_sym_file *v;
	FILE *in;
	int rc;

	for (size_t i = 0; i < s->n; i++) {
		if (!strcmp(s->files[i].path, path)) {
			free(path);
			*file = (int64_t)i;
			return 0;
		}
	}
	in = fopen(path, "r");
	if (!in) {
		free(path);
		*file = -1;
		return 0; /* the store has no such file: the image has no names */
	}
	v = grow_room(s->files, &s->cap, s->n, sizeof(*v), 16);
	if (!v) {
		fclose(in);
		free(path);
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	s->files = v;
	v += s->n;
	memset(v, 0, sizeof(*v));
	v->path = path;
	rc = read_file(v, in, id, err);
	fclose(in);
	if (rc < 0) {
		file_free(v);
		return rc;
	}
	*file = (int64_t)s->n++;
	return 0;
}

/* The only identifier folder DIR/@pdb/ holds, into @id. Return: true when exactly one. */
static bool only_version(const char *dir, const char *pdb, char id[ID_LEN + 1])
{
	size_t len = strlen(dir) + strlen(pdb) + 2;
	char *p = malloc(len);
	DIR *d;
	struct dirent *e;
	unsigned n = 0;

	if (!p) {
		return false;
	}
	snprintf(p, len, "%s/%s", dir, pdb);
	d = opendir(p);
	free(p);
	if (!d) {
		return false;
	}
	while ((e = readdir(d)) != NULL) {
		size_t k = strlen(e->d_name);

		if (e->d_name[0] == '.' || k < 33 || k > ID_LEN) {
			continue;
		}
		if (++n == 1) {
			memcpy(id, e->d_name, k + 1);
		}
	}
	closedir(d);
	return n == 1;
}

int an_symbols_find(struct an_symbols *s, const char *pdb, const char *guid, uint32_t age,
		    const char *image, int64_t *file, struct etwforge_error *err)
{
	char id[ID_LEN + 1], guessed[4096];
	char *path;

	*file = -1;
	if (!s->dir) {
		return 0;
	}
	if (!guid) {
		/* no identity: ntdll.dll's PDB is ntdll.pdb, if the store has one version of it */
		const char *dot = image ? strrchr(image, '.') : NULL;
		size_t stem = dot ? (size_t)(dot - image) : image ? strlen(image) : 0;

		if (!image || !stem || stem + 5 > sizeof(guessed)) {
			return 0;
		}
		snprintf(guessed, sizeof(guessed), "%.*s.pdb", (int)stem, image);
		pdb = guessed;
		if (!plain_name(pdb) || !only_version(s->dir, pdb, id)) {
			return 0;
		}
	} else if (!plain_name(pdb) || !store_id(guid, age, id)) {
		return 0;
	}
	path = sym_path(s->dir, pdb, id);
	if (!path) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	return file_of(s, path, id, file, err);
}

/* The last of @n symbols at or below @rva, NULL none. */
static const struct an_sym *at_or_below(const struct an_sym *v, size_t n, uint64_t rva)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].rva <= rva) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo ? &v[lo - 1] : NULL;
}

const char *an_symbols_at(const struct an_symbols *s, int64_t file, uint64_t rva, uint64_t *off)
{
	const struct an_sym_file *f;
	const struct an_sym *e;

	if (file < 0 || (size_t)file >= s->n) {
		return NULL;
	}
	f = &s->files[file];
	e = at_or_below(f->func, f->nfunc, rva);
	if (!e || rva - e->rva >= e->size) {
		e = at_or_below(f->pub, f->npub, rva);
	}
	if (!e) {
		return NULL;
	}
	*off = rva - e->rva;
	return f->names.buf + e->name;
}

void an_symbols_free(struct an_symbols *s)
{
	for (size_t i = 0; i < s->n; i++) {
		file_free(&s->files[i]);
	}
	free(s->files);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}
