/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump_identity.h - which process each thread of a file belongs to,
 * and what the processes and threads are called, from the file's own
 * Process, Thread and ThreadSetName records (dump_identity.c): how the
 * pictures name and colour threads when the file says. One pass over the
 * records before the drawing; memory grows with the threads and processes
 * named, not with the file.
 */
#ifndef TOOLS_DUMP_IDENTITY_H
#define TOOLS_DUMP_IDENTITY_H

#include <stdbool.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "tid_map.h"

#define IDENT_NAME_MAX 48 /* bytes of a name kept, NUL included (cut at a character) */

/**
 * struct ident_thread - a TID a Thread record names.
 * @pid:  its process (the latest Thread record's)
 * @name: ThreadName, or ThreadSetName's later name; "" when none (the
 *        latest non-empty one wins)
 */
struct ident_thread {
	uint32_t pid;
	char name[IDENT_NAME_MAX];
};

/** struct ident_process - a PID a Process record names: its ImageFileName ("" none). */
struct ident_process {
	char image[IDENT_NAME_MAX];
};

/** struct identity - TID -> struct ident_thread, PID -> struct ident_process. */
struct identity {
	struct tid_map threads;
	struct tid_map processes;
};

/**
 * identity_load - read @f's Process, Thread and ThreadSetName records into
 * @id (zeroed by the caller). A damaged batch or buffer ends nothing here:
 * the drawing says the damage.
 * Return: 0, or -ENOMEM.
 */
int identity_load(struct identity *id, struct etwforge_file *f);

/** identity_any - does @id know a thread (may be NULL)? Without one the pictures are as before. */
bool identity_any(const struct identity *id);

/** identity_thread - the thread @tid, or NULL (@id may be NULL). */
const struct ident_thread *identity_thread(const struct identity *id, uint32_t tid);

/** identity_image - the image of process @pid: "" when no Process record names it. */
const char *identity_image(const struct identity *id, uint32_t pid);

/**
 * identity_label - "image!name TID", "image TID" (a thread without a name),
 * "PID p!name TID" (no Process record) of a thread @id knows, into @buf.
 * Return: @buf, or NULL when @id does not know @tid.
 */
const char *identity_label(const struct identity *id, uint32_t tid, char *buf, size_t cap);

/** identity_free - free what identity_load() made. */
void identity_free(struct identity *id);

#endif /* TOOLS_DUMP_IDENTITY_H */
