/* SPDX-License-Identifier: MIT */
/*
 * tools/cli/dump_chrome.h - the Chrome trace-event JSON `etwforge dump
 * --chrome-trace` writes of a file's schedule (dump_chrome.c): a consumer
 * of the walk of dump_sched.h, each event written as it comes.
 */
#ifndef TOOLS_DUMP_CHROME_H
#define TOOLS_DUMP_CHROME_H

#include <stdio.h>

#include "dump_sched.h"
#include "thread_names.h"

struct chrome;

/** chrome_ops - the callbacks that feed a struct chrome: each writes its event at once. */
extern const struct sched_ops chrome_ops;

/**
 * chrome_new - start a Chrome trace-event JSON document on @out: the
 * object's head and the metadata events naming the process (the session)
 * and one thread per CPU of @fr, and the processes and threads of
 * @names->ident when the file names them. Memory does not grow with the
 * trace.
 * Return: the writer, or NULL (ENOMEM).
 */
struct chrome *chrome_new(const struct sched_frame *fr, const struct thread_names *names,
			  FILE *out);

/**
 * chrome_finish - close the document.
 * Return: 0, or -EIO when the stream has an error.
 */
int chrome_finish(struct chrome *c);

/** chrome_free - NULL is a no-op. */
void chrome_free(struct chrome *c);

#endif /* TOOLS_DUMP_CHROME_H */
