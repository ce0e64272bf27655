/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/thread_names.h - what the pictures call a thread: "Idle" for
 * TID 0, "GROUP TID" when the truth gen wrote with the file names its
 * group (dump --truth: the meta line's thread groups and the "thread"
 * lines, read with etwforge_names_load()); else, when the file's own
 * Process and Thread records name it (the analysis's thread table),
 * "image!thread TID" or "image TID"; else "TID n". The truth wins: given,
 * it is the scenario's word for the thread. Also the colours the pictures
 * give a thread: its process's hue when the file names it.
 */
#ifndef TOOLS_THREAD_NAMES_H
#define TOOLS_THREAD_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"

#define THREAD_NAME_MAX 160 /* a buffer that holds every name thread_name() gives */

/**
 * struct thread_names - where names come from.
 * @groups:  TID -> scenario group, from a truth stream (NULL: none)
 * @unnamed: counts the threads (other than idle) @groups did not name, each
 *           time one is named; NULL: not counted. A truth gen wrote names
 *           every thread of its file: a miss says it may be another's.
 * @an:      the analysis whose thread table holds the file's names (NULL:
 *           none)
 */
struct thread_names {
	struct etwforge_names *groups;
	unsigned long *unnamed;
	const struct etwforge_analysis *an;
};

/**
 * thread_name - the name of @tid, whose row of the thread table is @row
 * (-1: none), into @buf (@cap bytes). @names may be NULL.
 * Return: @buf.
 */
const char *thread_name(const struct thread_names *names, uint32_t tid, int64_t row, char *buf,
			size_t cap);

/** thread_named_rows - does the file name any thread (a Thread record)? */
bool thread_named_rows(const struct thread_names *names);

/**
 * thread_process - the process row of thread row @row, NULL when no
 * Process record names its process (or @names has no analysis).
 */
const struct etwforge_process_row *thread_process(const struct thread_names *names, int64_t row);

#endif /* TOOLS_THREAD_NAMES_H */
