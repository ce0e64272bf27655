// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/names.c - run_names_*() (etwforge_names_*()): which thread group each TID
 * belongs to, from a truth stream gen wrote: the meta line's "groups" (the
 * threads at the start) and the "thread" lines (threads started later).
 * Only those lines are parsed; the others are skipped by their first bytes,
 * so a truth of hundreds of MB loads in about the time it takes to read.
 * A table of TID -> group, open addressing (TIDs are multiples of 4).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/lib/common/error.h"
#include "tools/lib/read/read.h"
#include "tools/lib/run/input_check.h"
#include "tools/lib/run/names.h"
#include "tools/lib/common/input_file.h"
#include "tools/lib/truth/truth.h"
#include "tools/lib/run/truth_match.h"

#define NAMES_MAX_GROUPS 64
#define NAMES_PROBE	 32 /* first switches kept to hold against the file's */

struct etwforge_names {
	char *path;		  /* the truth, as messages name it */
	struct trace_config *cfg; /* its meta line, for run_names_check() */
	unsigned nprobe;	  /* its first switches (gen's key order) */
	struct {
		unsigned cpu;
		uint32_t old_tid;
		unsigned long line;
	} probe[NAMES_PROBE];
	unsigned ngroups;
	char group[NAMES_MAX_GROUPS][64];
	uint32_t *tid; /* 0: empty slot */
	uint8_t *grp;
	size_t cap; /* a power of two */
	size_t n;
};

static size_t slot_of(const struct etwforge_names *nm, uint32_t tid)
{
	size_t i = (size_t)(tid >> 2) * 2654435761u & (nm->cap - 1u);

	while (nm->tid[i] && nm->tid[i] != tid) {
		i = (i + 1u) & (nm->cap - 1u);
	}
	return i;
}

static int put(struct etwforge_names *nm, uint32_t tid, unsigned g)
{
	size_t i;

	if (tid == 0) {
		return 0; /* the idle thread has its own name */
	}
	if (2u * (nm->n + 1u) > nm->cap) {
		struct etwforge_names old = *nm;

		nm->cap = old.cap ? 2u * old.cap : 1024u;
		nm->tid = calloc(nm->cap, sizeof(*nm->tid));
		nm->grp = calloc(nm->cap, sizeof(*nm->grp));
		if (!nm->tid || !nm->grp) {
			free(nm->tid);
			free(nm->grp);
			*nm = old;
			return -ENOMEM;
		}
		nm->n = 0;
		for (size_t k = 0; k < old.cap; k++) {
			if (old.tid[k]) {
				size_t j = slot_of(nm, old.tid[k]);

				nm->tid[j] = old.tid[k];
				nm->grp[j] = old.grp[k];
				nm->n++;
			}
		}
		free(old.tid);
		free(old.grp);
	}
	i = slot_of(nm, tid);
	nm->n += nm->tid[i] == 0;
	nm->tid[i] = tid;
	nm->grp[i] = (uint8_t)g;
	return 0;
}

static int group_index(struct etwforge_names *nm, const char *name)
{
	for (unsigned g = 0; g < nm->ngroups; g++) {
		if (!strcmp(nm->group[g], name)) {
			return (int)g;
		}
	}
	if (nm->ngroups == NAMES_MAX_GROUPS) {
		return -1;
	}
	snprintf(nm->group[nm->ngroups], sizeof(nm->group[0]), "%s", name);
	return (int)nm->ngroups++;
}

/* The meta line's "groups": [{"name": ..., "tids": [...]}, ...]. */
static int load_meta(struct etwforge_names *nm, const char *line, const char *path,
		     struct etwforge_error *err)
{
	json_error_t je;
	json_t *o = json_loads(line, 0, &je), *groups, *g;
	size_t i;
	int rc = 0;

	struct truth_reader *tr;

	if (!o || !json_is_object(o) || !json_is_string(json_object_get(o, "kind")) ||
	    strcmp(json_string_value(json_object_get(o, "kind")), "meta")) {
		json_decref(o);
		return error_fail_at(
			err, -EINVAL, ERR_INPUT,
			"%s:1: not a truth stream (its first line is not the meta line)", path);
	}
	/* the machine and sessions, read as replay and verify read them */
	nm->cfg = malloc(sizeof(*nm->cfg));
	nm->path = strdup(path);
	if (!nm->cfg || !nm->path) {
		json_decref(o);
		return error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
	}
	tr = truth_open_mem(path, line, strlen(line), nm->cfg, err);
	if (!tr) {
		json_decref(o);
		return -EINVAL;
	}
	truth_close(tr);
	groups = json_object_get(o, "groups");
	json_array_foreach(groups, i, g)
	{
		json_t *name = json_object_get(g, "name"), *tids = json_object_get(g, "tids"), *t;
		size_t k;
		int gi;

		if (!json_is_string(name) || !json_is_array(tids)) {
			rc = error_fail_at(err, -EINVAL, ERR_INPUT,
					   "%s:1: groups.%zu: needs a \"name\" and a \"tids\" list",
					   path, i);
			break;
		}
		gi = group_index(nm, json_string_value(name));
		json_array_foreach(tids, k, t)
		{
			if (gi >= 0 && json_is_integer(t) && json_integer_value(t) > 0 &&
			    json_integer_value(t) <= UINT32_MAX &&
			    put(nm, (uint32_t)json_integer_value(t), (unsigned)gi) < 0) {
				rc = error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
				break;
			}
		}
		if (rc < 0) {
			break;
		}
	}
	json_decref(o);
	return rc;
}

/* One of the first "cswitch" lines: which thread its CPU left, for run_names_check(). */
static void load_switch(struct etwforge_names *nm, const char *line, unsigned long n)
{
	json_t *o = json_loads(line, 0, NULL);
	json_t *cpu = json_object_get(o, "cpu"), *old = json_object_get(o, "old_tid");

	if (json_is_integer(cpu) && json_is_integer(old) && json_integer_value(cpu) >= 0 &&
	    json_integer_value(cpu) < 4096 && json_integer_value(old) >= 0 &&
	    json_integer_value(old) <= UINT32_MAX) {
		nm->probe[nm->nprobe].cpu = (unsigned)json_integer_value(cpu);
		nm->probe[nm->nprobe].old_tid = (uint32_t)json_integer_value(old);
		nm->probe[nm->nprobe].line = n;
		nm->nprobe++;
	}
	json_decref(o);
}

/* A "thread" line that starts a thread: its TID joins its group. */
static int load_thread(struct etwforge_names *nm, const char *line)
{
	json_t *o = json_loads(line, 0, NULL);
	json_t *tid = json_object_get(o, "tid"), *group = json_object_get(o, "group");
	json_t *event = json_object_get(o, "event");
	int rc = 0;

	if (json_is_integer(tid) && json_is_string(group) && json_is_string(event) &&
	    !strcmp(json_string_value(event), "start") && json_integer_value(tid) > 0 &&
	    json_integer_value(tid) <= UINT32_MAX) {
		int gi = group_index(nm, json_string_value(group));

		if (gi >= 0) {
			rc = put(nm, (uint32_t)json_integer_value(tid), (unsigned)gi);
		}
	}
	json_decref(o);
	return rc;
}

struct etwforge_names *run_names_load(const char *truth, struct etwforge_error *err)
{
	static const char thread_kind[] = "{\"kind\":\"thread\"";
	static const char cswitch_kind[] = "{\"kind\":\"cswitch\"";
	bool std = !strcmp(truth, "-");
	FILE *f;
	struct etwforge_names *nm;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long n = 0;

	if (run_stdin_closed(truth, err) < 0) {
		errno = EBADF;
		return NULL;
	}
	error_ok(err);
	f = std ? stdin : input_open(truth, err);
	if (!f) {
		return NULL;
	}
	nm = calloc(1, sizeof(*nm));
	if (!nm) {
		error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
		goto fail;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		n++;
		if (n == 1) {
			if (load_meta(nm, line, std ? "<stdin>" : truth, err) < 0) {
				goto fail;
			}
		} else if ((size_t)len > sizeof(thread_kind) &&
			   !memcmp(line, thread_kind, sizeof(thread_kind) - 1u) &&
			   load_thread(nm, line) < 0) {
			error_fail(err, -ENOMEM, ERR_DATA, "out of memory");
			goto fail;
		} else if (nm->nprobe < NAMES_PROBE && (size_t)len > sizeof(cswitch_kind) &&
			   !memcmp(line, cswitch_kind, sizeof(cswitch_kind) - 1u)) {
			load_switch(nm, line, n);
		}
	}
	if (ferror(f) || n == 0) {
		error_fail_at(err, -EIO, ERR_INPUT, "%s: %s", std ? "<stdin>" : truth,
			      n ? "read error" : "empty: not a truth stream");
		goto fail;
	}
	free(line);
	if (!std) {
		fclose(f);
	}
	return nm;

fail:
	free(line);
	if (!std) {
		fclose(f);
	}
	run_names_free(nm);
	return NULL;
}

const char *run_names_group(const struct etwforge_names *nm, uint32_t tid)
{
	size_t i;

	if (!nm || !nm->cap || tid == 0) {
		return NULL;
	}
	i = slot_of(nm, tid);
	return nm->tid[i] == tid ? nm->group[nm->grp[i]] : NULL;
}

/*
 * The threads the truth's first switches left, CPU by CPU, against the
 * file's: two runs of one machine (another seed, another thread list) have
 * the same header but not the same first switches. The file's are read in
 * time order until each probed CPU has as many; a file that cannot be read
 * that far (damage, an end before) is held only as far as it goes.
 */
static int check_switches(const struct etwforge_names *nm, struct etwforge_file *f,
			  struct etwforge_error *err)
{
	unsigned want = nm->nprobe;
	bool held[NAMES_PROBE] = {false};
	const struct etwforge_event *ev;
	struct etwforge_error ierr;
	struct etwforge_iter *it;
	unsigned long events = 0;

	if (!nm->nprobe || read_file_info(f)->events_lost) {
		return 0;
	}
	it = read_iter_new(f, ETWFORGE_ORDER_TIME, ETWFORGE_EV_SWITCHES, &ierr);
	if (!it) {
		return 0;
	}
	while (want && ++events < 1000000 && read_iter_next(it, &ev, &ierr) > 0) {
		uint32_t old = ev->kind == ETWFORGE_EV_COMPACT ? ev->u.compact.old_tid
							       : ev->u.cswitch.old_tid;
		unsigned i = 0;

		/* this CPU's first switch of the truth not held against the file yet */
		while (i < nm->nprobe && (nm->probe[i].cpu != ev->cpu || held[i])) {
			i++;
		}
		if (i == nm->nprobe) {
			continue;
		}
		held[i] = true;
		want--;
		if (nm->probe[i].old_tid != old) {
			unsigned cpu = ev->cpu; /* the event lives in the iterator */

			read_iter_free(it);
			return error_fail_at(
				err, -EBADMSG, ERR_DATA,
				"%s is not the truth of %s: its switch on line %lu leaves "
				"thread %" PRIu32 " on CPU %u, the file's leaves %" PRIu32,
				nm->path, read_file_info(f)->name, nm->probe[i].line,
				nm->probe[i].old_tid, cpu, old);
		}
	}
	read_iter_free(it);
	return 0;
}

int run_names_check(const struct etwforge_names *nm, struct etwforge_file *f,
		    struct etwforge_error *err)
{
	if (truth_match(nm->cfg, -1, etl_reader_logfile(read_file_reader(f)), nm->path,
			read_file_info(f)->name, err) < 0) {
		return -EBADMSG;
	}
	if (check_switches(nm, f, err) < 0) {
		return -EBADMSG;
	}
	return error_ok(err);
}

void run_names_free(struct etwforge_names *nm)
{
	if (!nm) {
		return;
	}
	free(nm->cfg);
	free(nm->path);
	free(nm->tid);
	free(nm->grp);
	free(nm);
}
