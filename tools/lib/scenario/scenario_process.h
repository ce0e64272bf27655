/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/scenario/scenario_process.h - who runs, in scenario terms: the
 * items of `processes:`, what a thread group adds (its process and thread
 * name), the keys' readers, and the step of scenario_finish() that turns
 * them into the identity model's configuration (scheduler_model/identity.h).
 * It knows the pieces, not struct scenario: scenario.c hands them over in a
 * struct scenario_procs.
 */
#ifndef TOOLS_LIB_SCENARIO_SCENARIO_PROCESS_H
#define TOOLS_LIB_SCENARIO_SCENARIO_PROCESS_H

#include <stdint.h>

#include "scheduler_model/identity.h"
#include "scheduler_model/sched.h"
#include "tools/lib/config/trace_config.h"
#include "tools/lib/scenario/schema.h"

#define SCENARIO_MAX_PROCESSES	   (IDENT_MAX_PROCESSES - 2) /* besides Idle and System */
#define SCENARIO_IMAGE_MAX	   72  /* a process name or image, group name + ".exe" fits */
#define SCENARIO_CMDLINE_MAX	   512 /* a command line, UTF-8 */
#define SCENARIO_SID_MAX	   200 /* "S-1-" 15 digits and 15 sub-authorities of 10 */
#define SCENARIO_THREAD_NAME_MAX   128
#define SCENARIO_COMPUTER_NAME_MAX 16 /* 15 characters, as NetBIOS */
#define SCENARIO_NO_SESSION	   (-1)

/** enum scenario_parent - how a process names its parent. */
enum scenario_parent {
	SCENARIO_PARENT_DEFAULT = 0, /* services.exe if the scenario has one, else System */
	SCENARIO_PARENT_NAME,	     /* @parent: a process of the list, or System */
	SCENARIO_PARENT_PID,	     /* @parent_pid: any PID (need not be the scenario's) */
};

/**
 * struct scenario_process - one item of `processes:`, as written;
 * scenario_finish() resolves it into @ident.processes.
 * @name:        the process's name in the scenario (unique), and its
 *               image unless @image is given
 * @image:       ImageFileName ("" = @name); 7-bit ASCII
 * @pid:         0 until scenario_finish() assigns one (then the PID)
 * @parent_by:   enum scenario_parent
 * @parent:      the parent's name (SCENARIO_PARENT_NAME)
 * @parent_pid:  the parent's PID (SCENARIO_PARENT_PID)
 * @session:     Terminal Services session, SCENARIO_NO_SESSION: none
 * @cmdline:     UTF-8 command line ("" = none)
 * @user:        the user's SID string ("" = none)
 * @start_ns:    when it starts, from the session start
 * @exit_ns:     when it exits (0 = it does not)
 * @lifetime_ns: exit = start + lifetime (0 = @exit_ns says), resolved by
 *               scenario_finish()
 * @exit_status: its exit code
 */
struct scenario_process {
	char name[SCENARIO_IMAGE_MAX];
	char image[SCENARIO_IMAGE_MAX];
	uint32_t pid;
	int parent_by;
	char parent[SCENARIO_IMAGE_MAX];
	uint32_t parent_pid;
	int32_t session;
	char cmdline[SCENARIO_CMDLINE_MAX];
	char user[SCENARIO_SID_MAX];
	uint64_t start_ns;
	uint64_t exit_ns;
	uint64_t lifetime_ns;
	int32_t exit_status;
};

#define SCENARIO_HOT_MAX    16	/* hot functions of one group */
#define SCENARIO_HOT_FN_MAX 128 /* "image!function" */

/** struct scenario_hot - one entry of threads[].hot: "image!function" and its weight. */
struct scenario_hot {
	char fn[SCENARIO_HOT_FN_MAX];
	uint32_t weight;
};

/**
 * struct scenario_group_x - what a thread group says in scenario terms
 * beyond struct sched_group (parallel to @sched.groups).
 * @process:     the process its threads belong to ("" = one of its own,
 *               image "<group>.exe"; "System" = System)
 * @thread_name: its threads' name, "{n}" = the index in the group ("" = none)
 * @own_image:   the image of its own process ("<group>.exe"), filled by
 *               scenario_finish() when @process is ""
 * @hot/@nhot:   where its time goes (none: its behaviour's default)
 */
struct scenario_group_x {
	char process[SCENARIO_IMAGE_MAX];
	char thread_name[SCENARIO_THREAD_NAME_MAX];
	char own_image[SCENARIO_IMAGE_MAX];
	unsigned nhot;
	struct scenario_hot hot[SCENARIO_HOT_MAX];
};

/**
 * struct scenario_procs - what the processes step reads and fills, in a
 * struct scenario.
 * @nprocesses/@processes: the list as written (missing PIDs filled in)
 * @group_x:       per-group extras, parallel to @sched->groups
 * @sched:         the groups (start_ns / exit_ns filled in)
 * @trace:         the sessions, target and arch (the identity flags)
 * @ident:         filled, its pointers into the scenario left NULL
 * @computer_name: machine.computer_name
 * @where/@source: where keys got their values, for messages
 */
struct scenario_procs {
	unsigned nprocesses;
	struct scenario_process *processes;
	struct scenario_group_x *group_x;
	struct sched_cfg *sched;
	const struct trace_config *trace;
	struct ident_cfg *ident;
	const char *computer_name;
	const struct sk_where_log *where;
	const char *source;
};

/** scenario_process_init - a process item's defaults (session 1, user S-1-5-18). */
void scenario_process_init(struct scenario_process *p);

/**
 * scenario_processes_default - the default desktop's processes into
 * @procs / *@n, and the groups of @s named as the default's are mapped to
 * them in @group_x.
 */
void scenario_processes_default(struct scenario_process *procs, unsigned *n,
				const struct sched_cfg *s, struct scenario_group_x *group_x);

/*
 * Readers of the keys (sk_apply_fn). Those of a process item take the item
 * as @base; scenario_apply_group_process / _thread_name find the group's
 * struct scenario_group_x at @d->off in the root (an array, item w->item),
 * scenario_apply_profile_interval the uint32_t at @d->off in the root.
 */
int scenario_apply_process_name(struct sk_walk *w, const struct sk_desc *d, void *base,
				const struct yt_node *n);
int scenario_apply_process_image(struct sk_walk *w, const struct sk_desc *d, void *base,
				 const struct yt_node *n);
int scenario_apply_process_pid(struct sk_walk *w, const struct sk_desc *d, void *base,
			       const struct yt_node *n);
int scenario_apply_process_parent(struct sk_walk *w, const struct sk_desc *d, void *base,
				  const struct yt_node *n);
int scenario_apply_process_session(struct sk_walk *w, const struct sk_desc *d, void *base,
				   const struct yt_node *n);
int scenario_apply_process_user(struct sk_walk *w, const struct sk_desc *d, void *base,
				const struct yt_node *n);
int scenario_apply_process_exit(struct sk_walk *w, const struct sk_desc *d, void *base,
				const struct yt_node *n);
int scenario_apply_process_lifetime(struct sk_walk *w, const struct sk_desc *d, void *base,
				    const struct yt_node *n);
int scenario_apply_process_exit_status(struct sk_walk *w, const struct sk_desc *d, void *base,
				       const struct yt_node *n);
int scenario_apply_group_process(struct sk_walk *w, const struct sk_desc *d, void *base,
				 const struct yt_node *n);
int scenario_apply_thread_name(struct sk_walk *w, const struct sk_desc *d, void *base,
			       const struct yt_node *n);
int scenario_apply_hot(struct sk_walk *w, const struct sk_desc *d, void *base,
		       const struct yt_node *n);
int scenario_apply_profile_interval(struct sk_walk *w, const struct sk_desc *d, void *base,
				    const struct yt_node *n);

/**
 * scenario_process_default_parent - the name process @i of @procs gets as
 * its parent when it names none: services.exe if the list has a process of
 * that name (other than @i), else System.
 */
const char *scenario_process_default_parent(const struct scenario_process *procs, unsigned n,
					    unsigned i);

/**
 * scenario_procs_finish - resolve the processes list and the groups'
 * processes into @v->ident, and the groups' start_ns / exit_ns: names
 * given, unique and 7-bit as images, PIDs unique (the missing ones
 * assigned: 1000, 1020, ... the same every time), exit after start,
 * parents and groups' processes by name (with a "did you mean"), at most
 * 128 processes with the groups' own, then ident_cfg_check().
 * Return: 0 or -EINVAL with @err (one located line).
 */
int scenario_procs_finish(const struct scenario_procs *v, struct etwforge_error *err);

/**
 * scenario_procs_ident_cfg - @v->ident with its strings pointing into the
 * pieces of @v (images, command lines, SIDs, thread names, computer name).
 */
void scenario_procs_ident_cfg(const struct scenario_procs *v, struct ident_cfg *out);

#endif /* TOOLS_LIB_SCENARIO_SCENARIO_PROCESS_H */
