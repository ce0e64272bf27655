// SPDX-License-Identifier: MIT
/*
 * tools/cli/dump_identity.c - the file's own names for its threads (see
 * dump_identity.h): one pass in CPU order over the Process, Thread and
 * ThreadSetName events. A later record of a TID or PID replaces its
 * process and, when it has one, its name: PIDs and TIDs are reused, and
 * the latest is what the end of the trace knew.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dump_identity.h"
#include "text_escape.h"

static int add_thread(struct identity *id, uint32_t tid, uint32_t pid, const char *name)
{
	struct ident_thread *t = tid_map_add(&id->threads, tid);

	if (!t) {
		return -ENOMEM;
	}
	t->pid = pid;
	if (name && name[0]) {
		text_copy_name(t->name, sizeof(t->name), name);
	}
	return 0;
}

static int add_process(struct identity *id, uint32_t pid, const char *image)
{
	struct ident_process *p = tid_map_add(&id->processes, pid);

	if (!p) {
		return -ENOMEM;
	}
	if (image && image[0]) {
		text_copy_name(p->image, sizeof(p->image), image);
	}
	return 0;
}

int identity_load(struct identity *id, struct etwforge_file *f)
{
	struct etwforge_iter *it;
	const struct etwforge_event *ev;
	int rc = 0, r;

	id->threads.elem_size = sizeof(struct ident_thread);
	id->processes.elem_size = sizeof(struct ident_process);
	it = etwforge_iter_new(f, ETWFORGE_ORDER_CPU,
			       ETWFORGE_EV_PROCESS | ETWFORGE_EV_THREAD | ETWFORGE_EV_THREAD_NAME,
			       NULL);
	if (!it) {
		return -ENOMEM;
	}
	while (rc == 0 && (r = etwforge_iter_next(it, &ev, NULL)) != 0) {
		if (r < 0) {
			continue; /* damage: the walk that draws says it */
		}
		switch (ev->kind) {
		case ETWFORGE_EV_PROCESS:
			if (ev->rec->hook != 0x030B) { /* Terminate names nothing */
				rc = add_process(id, ev->u.process.pid, ev->u.process.image);
			}
			break;
		case ETWFORGE_EV_THREAD:
			rc = add_thread(id, ev->u.thread.tid, ev->u.thread.pid, ev->u.thread.name);
			break;
		case ETWFORGE_EV_THREAD_NAME:
			/* a rename of a thread no Thread record names still names it */
			rc = add_thread(id, ev->u.thread_name.tid, ev->u.thread_name.pid,
					ev->u.thread_name.name);
			break;
		default:
			break;
		}
	}
	etwforge_iter_free(it);
	return rc;
}

bool identity_any(const struct identity *id)
{
	return id && id->threads.n > 0;
}

const struct ident_thread *identity_thread(const struct identity *id, uint32_t tid)
{
	return id ? tid_map_get(&id->threads, tid) : NULL;
}

const char *identity_image(const struct identity *id, uint32_t pid)
{
	const struct ident_process *p = id ? tid_map_get(&id->processes, pid) : NULL;

	return p ? p->image : "";
}

const char *identity_label(const struct identity *id, uint32_t tid, char *buf, size_t cap)
{
	const struct ident_thread *t = identity_thread(id, tid);
	const char *image;
	char pid[24];

	if (!t) {
		return NULL;
	}
	image = identity_image(id, t->pid);
	if (!image[0]) {
		snprintf(pid, sizeof(pid), "PID %" PRIu32, t->pid);
		image = pid;
	}
	if (t->name[0]) {
		snprintf(buf, cap, "%s!%s %" PRIu32, image, t->name, tid);
	} else {
		snprintf(buf, cap, "%s %" PRIu32, image, tid);
	}
	return buf;
}

void identity_free(struct identity *id)
{
	tid_map_free(&id->threads);
	tid_map_free(&id->processes);
}
