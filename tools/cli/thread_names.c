// SPDX-License-Identifier: MIT
/*
 * tools/cli/thread_names.c - thread names for the pictures (see thread_names.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "text_escape.h"
#include "thread_names.h"

bool thread_named_rows(const struct thread_names *names)
{
	const struct etwforge_analysis_totals *t;

	if (!names || !names->an) {
		return false;
	}
	t = etwforge_analysis_totals(names->an);
	for (size_t i = 0; i < t->threads; i++) {
		if (etwforge_analysis_thread(names->an, i)->named) {
			return true;
		}
	}
	return false;
}

const struct etwforge_process_row *thread_process(const struct thread_names *names, int64_t row)
{
	const struct etwforge_thread_row *t =
		names && names->an && row >= 0 ? etwforge_analysis_thread(names->an, (size_t)row)
					       : NULL;

	return t && t->process >= 0 ? etwforge_analysis_process(names->an, (size_t)t->process)
				    : NULL;
}

/* "image!name TID", "image TID", "PID p!name TID" of a row the file names; NULL otherwise. */
static const char *row_label(const struct thread_names *names, uint32_t tid, int64_t row, char *buf,
			     size_t cap)
{
	const struct etwforge_thread_row *t =
		names->an && row >= 0 ? etwforge_analysis_thread(names->an, (size_t)row) : NULL;
	const struct etwforge_process_row *p = thread_process(names, row);
	char image[64], name[64];

	if (!t || !t->named) {
		return NULL;
	}
	if (p && p->image[0]) {
		text_copy_name(image, sizeof(image), p->image);
	} else {
		snprintf(image, sizeof(image), "PID %" PRIu32, t->pid);
	}
	text_copy_name(name, sizeof(name), t->name);
	if (name[0]) {
		snprintf(buf, cap, "%s!%s %" PRIu32, image, name, tid);
	} else {
		snprintf(buf, cap, "%s %" PRIu32, image, tid);
	}
	return buf;
}

const char *thread_name(const struct thread_names *names, uint32_t tid, int64_t row, char *buf,
			size_t cap)
{
	const char *group = names ? etwforge_names_group(names->groups, tid) : NULL;

	if (tid == 0) {
		snprintf(buf, cap, "Idle");
	} else if (group) {
		snprintf(buf, cap, "%s %" PRIu32, group, tid);
	} else {
		if (names && names->groups && names->unnamed) {
			++*names->unnamed;
		}
		if (names && !names->groups && row_label(names, tid, row, buf, cap)) {
			return buf;
		}
		snprintf(buf, cap, "TID %" PRIu32, tid);
	}
	return buf;
}
