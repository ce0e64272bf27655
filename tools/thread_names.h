/* SPDX-License-Identifier: MIT */
/*
 * tools/thread_names.h - what the pictures call a thread: "Idle" for TID 0,
 * "GROUP TID" when the truth gen wrote with the file names its group (dump
 * --truth: the meta line's thread groups and the "thread" lines, read with
 * etwforge_names_load()), else "TID n" - an ETL file of context switches
 * names no thread.
 */
#ifndef TOOLS_THREAD_NAMES_H
#define TOOLS_THREAD_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "etwforge/etwforge.h"

/**
 * struct thread_names - where names come from.
 * @groups:  TID -> scenario group, from a truth stream (NULL: none)
 * @unnamed: counts the threads (other than idle) @groups did not name, each
 *           time one is named; NULL: not counted. A truth gen wrote names
 *           every thread of its file: a miss says it may be another's.
 */
struct thread_names {
	struct etwforge_names *groups;
	unsigned long *unnamed;
};

/**
 * thread_name - the name of @tid into @buf (@cap bytes): "Idle" for TID 0,
 * "GROUP TID" when @names knows the group, else "TID n". @names may be NULL.
 * Return: @buf.
 */
const char *thread_name(const struct thread_names *names, uint32_t tid, char *buf, size_t cap);

#endif /* TOOLS_THREAD_NAMES_H */
