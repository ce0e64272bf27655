// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_fit.c - the public lookalike (etwforge_fit_*): the options
 * checked, the fit room (tools/lib/fit/fit.h) run, and its scenario loaded
 * back as gen would load it, so a scenario gen would refuse never leaves.
 */
#include <errno.h>
#include <stdlib.h>

#include "tools/lib/api.h"
#include "tools/lib/fit/fit.h"
#include "tools/lib/read/read.h"

struct etwforge_fit {
	struct fit_result r;
};

/* The scenario @yaml loads and finishes (with its defaults under it). */
static int check_loads(const char *yaml, struct etwforge_error *err)
{
	struct scenario *sc = malloc(sizeof(*sc));
	int rc;

	if (!sc) {
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	scenario_default(sc);
	rc = scenario_load_string(sc, "lookalike", yaml, err);
	if (rc == 0) {
		rc = scenario_finish(sc, err);
	}
	free(sc);
	if (rc < 0 && rc != -ENOMEM) {
		/* ours to fix, not the caller's: said as such */
		error_reclass(err, -EIO, ERR_DATA);
		return -EIO;
	}
	return rc;
}

struct etwforge_fit *etwforge_fit_new(struct etwforge_file *f, const struct etwforge_fit_opts *opts,
				      struct etwforge_error *err)
{
	struct etwforge_fit_opts o;
	struct fit_opts fo = {0};
	struct etwforge_fit *fit;
	int rc;

	if (!f) {
		error_fail(err, -EINVAL, ERR_INPUT, "etwforge_fit_new: no file");
		errno = EINVAL;
		return NULL;
	}
	if (sized_in(&o, sizeof(o), opts, SIZED_FIRST_END(struct etwforge_fit_opts, anonymize),
		     "struct etwforge_fit_opts", err) < 0) {
		errno = EINVAL;
		return NULL;
	}
	if (o.anonymize > ETWFORGE_ANONYMIZE_ALL) {
		error_fail(err, -EINVAL, ERR_INPUT,
			   "etwforge_fit_new: anonymize %u is not one of 0, 1, 2", o.anonymize);
		errno = EINVAL;
		return NULL;
	}
	fo.anonymize = o.anonymize == ETWFORGE_ANONYMIZE_ALL	 ? FIT_ANON_ALL
		       : o.anonymize == ETWFORGE_ANONYMIZE_NAMES ? FIT_ANON_NAMES
								 : FIT_ANON_NONE;
	fo.progress = o.progress;
	fo.progress_ctx = o.progress_ctx;
	fit = calloc(1, sizeof(*fit));
	if (!fit) {
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	rc = fit_trace(f, &fo, &fit->r, err);
	if (rc == 0) {
		rc = check_loads(fit->r.yaml, err);
	}
	if (rc < 0) {
		etwforge_fit_free(fit);
		errno = -rc;
		return NULL;
	}
	error_ok(err);
	return fit;
}

const char *etwforge_fit_yaml(const struct etwforge_fit *fit)
{
	return fit ? fit->r.yaml : NULL;
}

const char *etwforge_fit_json(const struct etwforge_fit *fit)
{
	return fit ? fit->r.json : NULL;
}

void etwforge_fit_free(struct etwforge_fit *fit)
{
	if (fit) {
		fit_result_free(&fit->r);
		free(fit);
	}
}
