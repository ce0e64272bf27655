/* SPDX-License-Identifier: MIT */
/*
 * tools/thread_names.h - what the pictures call a thread. Today every
 * thread is "TID n" (the idle thread "Idle"): an ETL file of context
 * switches names no thread. This is the one place to change when names
 * become known: the truth's meta line is to list the scenario's thread
 * groups and their TIDs (issue 12, item 3), and a `--truth` option of dump
 * would load them into struct thread_names here, so that the timeline and
 * the Chrome trace name threads without other changes.
 */
#ifndef TOOLS_THREAD_NAMES_H
#define TOOLS_THREAD_NAMES_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct thread_names - where names come from. Empty for now: the hook for
 * a table of (TID range or list, group name) read from a truth stream.
 */
struct thread_names {
	int unused; /* C11 wants a member */
};

/**
 * thread_name - the name of @tid into @buf (@cap bytes): "Idle" for TID 0,
 * else the name @names knows, else "TID n". @names may be NULL.
 * Return: @buf.
 */
const char *thread_name(const struct thread_names *names, uint32_t tid, char *buf, size_t cap);

#endif /* TOOLS_THREAD_NAMES_H */
