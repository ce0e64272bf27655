// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_output.c - the public face of tools/lib/run/out_file.c: a set of
 * output files for a program on the installed API (the `etwforge dump`
 * pictures and traces), with the rules every etwforge output follows.
 */
#include <errno.h>
#include <stdlib.h>

#include "tools/lib/api.h"
#include "tools/lib/scenario/schema.h"
#include "tools/lib/run/out_file.h"

/** struct etwforge_output - the handle: one out_set. */
struct etwforge_output {
	struct out_set set;
	bool committed; /* etwforge_output_commit() succeeded */
};

struct etwforge_output *etwforge_output_new(void)
{
	struct etwforge_output *o = malloc(sizeof(*o));

	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	out_set_init(&o->set);
	o->committed = false;
	return o;
}

int etwforge_output_add(struct etwforge_output *o, const char *path, const char *label,
			struct etwforge_error *err)
{
	int rc;

	if (!o || !path || o->set.open || o->committed) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "an output is added to a set that is open");
	}
	rc = out_set_add(&o->set, path, label, err);
	if (rc < 0) {
		return rc;
	}
	error_ok(err);
	return rc;
}

int etwforge_output_input(struct etwforge_output *o, const char *path, const char *label,
			  struct etwforge_error *err)
{
	int rc;

	if (!o || !path || o->set.open || o->committed) {
		return error_fail(err, -EINVAL, ERR_INPUT,
				  "an input is added to a set that is open");
	}
	rc = out_set_input(&o->set, path, label, err);
	if (rc < 0) {
		return rc;
	}
	return error_ok(err);
}

int etwforge_output_open(struct etwforge_output *o, struct etwforge_error *err)
{
	int rc;

	if (!o || o->set.open || o->committed) {
		return error_fail(err, -EINVAL, ERR_INPUT, "the output set is open already");
	}
	rc = out_set_open(&o->set, err);
	if (rc < 0) {
		return rc;
	}
	return error_ok(err);
}

FILE *etwforge_output_stream(struct etwforge_output *o, unsigned i)
{
	struct out_file *f = o && o->set.open ? out_set_file(&o->set, i) : NULL;

	if (!f) {
		errno = EINVAL;
		return NULL;
	}
	return out_file_stream(f);
}

int etwforge_output_commit(struct etwforge_output *o, struct etwforge_error *err)
{
	int rc;

	if (!o || !o->set.open) {
		return error_fail(err, -EINVAL, ERR_INPUT, "the output set is not open");
	}
	rc = out_set_commit(&o->set, err);
	if (rc < 0) {
		return rc;
	}
	o->committed = true;
	return error_ok(err);
}

void etwforge_output_free(struct etwforge_output *o)
{
	if (!o) {
		return;
	}
	out_set_free(&o->set); /* aborts first: removes what was not committed */
	free(o);
}

int etwforge_parse_duration(const char *s, uint64_t *ns)
{
	if (!s || !ns) {
		return -EINVAL;
	}
	return sk_parse_duration(s, ns);
}
