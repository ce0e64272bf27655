// SPDX-License-Identifier: MIT
/*
 * tools/lib/api_scenario.c - the public scenario calls: a thin handle over
 * struct scenario (tools/lib/scenario.h), whose errors already are the one
 * line `file:line:col: key.path: what` the API promises.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/api.h"

struct etwforge_scenario *etwforge_scenario_new(void)
{
	struct etwforge_scenario *s = malloc(sizeof(*s));

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	scenario_default(&s->sc);
	return s;
}

void etwforge_scenario_free(struct etwforge_scenario *sc)
{
	free(sc);
}

/* The room's error (a scenario error is ERR_INPUT, whatever its errno), or none. */
static int scenario_result(int rc, struct etwforge_error *err)
{
	return rc < 0 ? rc : error_ok(err);
}

int etwforge_scenario_load_file(struct etwforge_scenario *sc, const char *path,
				struct etwforge_error *err)
{
	if (run_stdin_closed(path, err) < 0) {
		return -EBADF;
	}
	return scenario_result(scenario_load_file(&sc->sc, path, err), err);
}

int etwforge_scenario_load_string(struct etwforge_scenario *sc, const char *name, const char *text,
				  struct etwforge_error *err)
{
	return scenario_result(scenario_load_string(&sc->sc, name, text, err), err);
}

int etwforge_scenario_set(struct etwforge_scenario *sc, const char *assignment,
			  struct etwforge_error *err)
{
	return scenario_result(scenario_set(&sc->sc, assignment, err), err);
}

int etwforge_scenario_finish(struct etwforge_scenario *sc, struct etwforge_error *err)
{
	return scenario_result(scenario_finish(&sc->sc, err), err);
}

int etwforge_scenario_print(struct etwforge_scenario *sc, FILE *f, struct etwforge_error *err)
{
	int rc = etwforge_scenario_finish(sc, err);

	if (rc < 0) {
		return rc;
	}
	errno = 0;
	scenario_print(f, &sc->sc);
	/* buffered: a full device says so only when the buffer goes out */
	if (fflush(f) == EOF || ferror(f)) {
		int e = errno ? errno : EIO;

		return error_fail(err, -e, ERR_DATA, "write failed: %s", strerror(e));
	}
	return 0;
}

const char *etwforge_scenario_warning(const struct etwforge_scenario *sc, unsigned i)
{
	for (unsigned k = 0; sc && k < sc->sc.where.nnotes; k++) {
		const char *note = sk_note_current(&sc->sc.where, k);

		if (note && i-- == 0) {
			return note;
		}
	}
	return NULL;
}
