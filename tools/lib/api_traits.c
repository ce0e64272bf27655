// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_traits.c - the public traits of a trace (etwforge_traits_*),
 * handed to the analysis room (tools/lib/analysis/traits.h), and the names
 * of the wait reasons and thread states a CSwitch carries.
 */
#include <errno.h>

#include "tools/lib/analysis/traits.h"
#include "tools/lib/api.h"
#include "tools/lib/common/error.h"

struct etwforge_traits *etwforge_traits_new(struct etwforge_file *f, struct etwforge_error *err)
{
	if (!f) {
		error_fail(err, -EINVAL, ERR_INPUT, "etwforge_traits_new: no file");
		errno = EINVAL;
		return NULL;
	}
	return traits_new(f, err);
}

void etwforge_traits_free(struct etwforge_traits *t)
{
	traits_free(t);
}

size_t etwforge_traits_count(const struct etwforge_traits *t)
{
	(void)t;
	return traits_count();
}

const struct etwforge_trait *etwforge_traits_at(const struct etwforge_traits *t, size_t i)
{
	return traits_at(t, i);
}

int etwforge_trait_distance(const struct etwforge_trait *a, const struct etwforge_trait *b,
			    double *d)
{
	return trait_distance(a, b, d);
}

double etwforge_traits_score(const struct etwforge_traits *a, const struct etwforge_traits *b,
			     unsigned *compared)
{
	return traits_score(a, b, compared);
}

size_t etwforge_traits_json(const struct etwforge_traits *a, const struct etwforge_traits *b,
			    const char *name_a, const char *name_b, char *buf, size_t cap)
{
	return a ? traits_json(a, b, name_a, name_b, buf, cap) : 0;
}

const char *etwforge_wait_reason_name(unsigned reason)
{
	return traits_wait_reason_name(reason);
}

const char *etwforge_thread_state_name(unsigned state)
{
	return traits_thread_state_name(state);
}
