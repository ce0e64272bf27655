/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/thread_names.h - what the pictures call a thread: "Idle" for TID 0,
 * "GROUP TID" when the truth gen wrote with the file names its group (dump
 * --truth: the meta line's thread groups and the "thread" lines, read with
 * etwforge_names_load()); else, when the file's own Thread records name it,
 * "process!thread TID" or "process TID" (dump_identity.h); else "TID n".
 * The truth wins: given, it is the scenario's word for the thread.
 */
#ifndef TOOLS_THREAD_NAMES_H
#define TOOLS_THREAD_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "dump_identity.h"
#include "etwforge/etwforge.h"

#define THREAD_NAME_MAX 128 /* a buffer that holds every name thread_name() gives */

/**
 * struct thread_names - where names come from.
 * @groups:  TID -> scenario group, from a truth stream (NULL: none)
 * @unnamed: counts the threads (other than idle) @groups did not name, each
 *           time one is named; NULL: not counted. A truth gen wrote names
 *           every thread of its file: a miss says it may be another's.
 * @ident:   the file's Process and Thread records (NULL: none)
 */
struct thread_names {
	struct etwforge_names *groups;
	unsigned long *unnamed;
	const struct identity *ident;
};

/**
 * thread_name - the name of @tid into @buf (@cap bytes): "Idle" for TID 0,
 * "GROUP TID" when @names knows the group, else the file's name of it
 * (identity_label()), else "TID n". @names may be NULL.
 * Return: @buf.
 */
const char *thread_name(const struct thread_names *names, uint32_t tid, char *buf, size_t cap);

#endif /* TOOLS_THREAD_NAMES_H */
