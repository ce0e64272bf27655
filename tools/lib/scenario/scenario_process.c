// SPDX-License-Identifier: MIT
/*
 * tools/lib/scenario/scenario_process.c - who runs: the scenario's
 * `processes:` list, the `process:` and `thread_name:` of a thread group,
 * `profile_interval:`, and how scenario_finish() turns them into the
 * identity model's configuration (scheduler_model/identity.h).
 *
 *   processes: [{name, image, pid, parent, session, user, cmdline,
 *                start, exit | lifetime, exit_status}]
 *        |      read as written (struct scenario_process); names and
 *        |      parents stay names until every layer is applied
 *   scenario_procs_finish()
 *        |      names unique, PIDs unique (missing ones assigned, the same
 *        |      every time), parents and the groups' processes by name; a
 *        |      group naming no process gets one of its own ("<group>.exe")
 *        v
 *   ident      [Idle, System, the list's, the groups' own]; each group's
 *              start_ns / exit_ns from its process
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/lib/common/suggest.h"
#include "tools/lib/scenario/scenario_process.h"

#define PID_LIMIT	    SCHED_FIRST_TID /* PIDs and TIDs share the client-ID space */
#define AUTO_PID_FIRST	    1000u	    /* assigned PIDs: 1000, 1020, 1040, ... */
#define AUTO_PID_STEP	    20u
#define DEFAULT_USER	    "S-1-5-18" /* LocalSystem */
#define DEFAULT_SESSION	    1
#define DEFAULT_PARENT_NAME "services.exe"
#define SID_MAX_SUBAUTH	    15
#define SID_MAX_AUTHORITY   UINT64_C(0xFFFFFFFFFFFF) /* 48 bits */
#define SESSION_MAX	    65535
#define MAX_DURATION_NS	    (86400 * SK_NS_PER_S)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------ */
/* the keys of a process */

static bool is_7bit(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x80) {
			return false;
		}
	}
	return true;
}

static bool is_builtin_name(const char *s)
{
	return !strcmp(s, "System") || !strcmp(s, "Idle");
}

int scenario_apply_process_name(struct sk_walk *w, const struct sk_desc *d, void *base,
				const struct yt_node *n)
{
	struct scenario_process *p = base;
	const char *s;
	int rc = sk_get_str(w, n, 1, d->size, &s);

	if (rc == 0 && is_builtin_name(s)) {
		return sk_fail(w, n, "\"%s\" is the built-in process of PID %u: name another", s,
			       strcmp(s, "Idle") ? 4u : 0u);
	}
	if (rc == 0) {
		sk_copy_str(p->name, sizeof(p->name), s);
	}
	return rc;
}

int scenario_apply_process_image(struct sk_walk *w, const struct sk_desc *d, void *base,
				 const struct yt_node *n)
{
	struct scenario_process *p = base;
	const char *s;
	int rc = sk_get_str(w, n, 0, d->size, &s);

	if (rc == 0 && !is_7bit(s)) {
		return sk_fail(w, n,
			       "\"%s\" is not 7-bit ASCII: ImageFileName is an ANSI string "
			       "(cmdline takes any Unicode)",
			       s);
	}
	if (rc == 0) {
		sk_copy_str(p->image, sizeof(p->image), s);
	}
	return rc;
}

/* A PID given in a scenario: a multiple of 4 below the first TID. */
static int check_pid(struct sk_walk *w, const struct yt_node *n, uint64_t v, bool builtin_ok)
{
	if (v >= PID_LIMIT) {
		return sk_fail(w, n,
			       "%" PRIu64 " is out of range (PIDs are below %u, where thread IDs "
			       "start: they share one ID space)",
			       v, PID_LIMIT);
	}
	if (v % 4) {
		return sk_fail(w, n, "%" PRIu64 " is not a multiple of 4 (Windows' PIDs are)", v);
	}
	if (!builtin_ok && (v == 0 || v == 4)) {
		return sk_fail(w, n, "%" PRIu64 " is the PID of %s", v, v ? "System" : "Idle");
	}
	return 0;
}

int scenario_apply_process_pid(struct sk_walk *w, const struct sk_desc *d, void *base,
			       const struct yt_node *n)
{
	struct scenario_process *p = base;
	uint64_t v;
	int rc;

	(void)d;
	if (n->kind == YT_SCALAR && !yt_is_null(n) && !strcmp(n->str, "auto")) {
		p->pid = 0;
		return 0;
	}
	rc = sk_get_uint(w, n, 0, UINT32_MAX, &v);
	if (rc == 0) {
		rc = check_pid(w, n, v, false);
	}
	if (rc == 0) {
		p->pid = (uint32_t)v;
	}
	return rc;
}

int scenario_apply_process_parent(struct sk_walk *w, const struct sk_desc *d, void *base,
				  const struct yt_node *n)
{
	struct scenario_process *p = base;
	const char *s;
	uint64_t v;
	int rc = sk_need_scalar(w, n, "a process name or a PID");

	(void)d;
	if (rc) {
		return rc;
	}
	if (n->plain && n->str[0] >= '0' && n->str[0] <= '9') {
		rc = sk_get_uint(w, n, 0, UINT32_MAX, &v);
		if (rc == 0) {
			rc = check_pid(w, n, v, true);
		}
		if (rc == 0) {
			p->parent_by = SCENARIO_PARENT_PID;
			p->parent_pid = (uint32_t)v;
			memset(p->parent, 0, sizeof(p->parent));
		}
		return rc;
	}
	rc = sk_get_str(w, n, 1, sizeof(p->parent), &s);
	if (rc == 0) {
		p->parent_by = SCENARIO_PARENT_NAME;
		p->parent_pid = 0;
		sk_copy_str(p->parent, sizeof(p->parent), s);
	}
	return rc;
}

int scenario_apply_process_session(struct sk_walk *w, const struct sk_desc *d, void *base,
				   const struct yt_node *n)
{
	struct scenario_process *p = base;
	uint64_t v;
	int rc = sk_need_scalar(w, n, "a session number or none");

	(void)d;
	if (rc) {
		return rc;
	}
	if (!strcmp(n->str, "none") || (n->plain && !strcmp(n->str, "-1"))) {
		p->session = SCENARIO_NO_SESSION;
		return 0;
	}
	if (!n->plain || n->str[0] == '-') {
		return sk_fail(w, n, "\"%s\" is not a session (0..%d, or none / -1: no session)",
			       n->str, SESSION_MAX);
	}
	rc = sk_get_uint(w, n, 0, SESSION_MAX, &v);
	if (rc == 0) {
		p->session = (int32_t)v;
	}
	return rc;
}

/* S-1-<authority>-<sub>...: revision 1, a 48-bit authority, 0..15 32-bit sub-authorities. */
static bool sid_ok(const char *s)
{
	uint64_t v;
	unsigned parts = 0;

	if (strncmp(s, "S-1-", 4)) {
		return false;
	}
	s += 4;
	for (;;) {
		size_t len = strspn(s, "0123456789");
		char num[24];

		if (len == 0 || len >= sizeof(num) || (len > 1 && s[0] == '0')) {
			return false;
		}
		memcpy(num, s, len);
		num[len] = '\0';
		if (sk_parse_u64(num, &v) ||
		    v > (parts == 0 ? SID_MAX_AUTHORITY : (uint64_t)UINT32_MAX)) {
			return false;
		}
		parts++;
		s += len;
		if (*s == '\0') {
			break;
		}
		if (*s != '-') {
			return false;
		}
		s++;
	}
	return parts - 1 <= SID_MAX_SUBAUTH;
}

int scenario_apply_process_user(struct sk_walk *w, const struct sk_desc *d, void *base,
				const struct yt_node *n)
{
	struct scenario_process *p = base;
	const char *s;
	int rc = sk_get_str(w, n, 1, d->size, &s);

	if (rc) {
		return rc;
	}
	if (!strcmp(s, "none")) {
		memset(p->user, 0, sizeof(p->user));
		return 0;
	}
	if (!sid_ok(s)) {
		return sk_fail(w, n,
			       "\"%s\" is not a SID (S-1-<authority>-<sub-authority>..., at most "
			       "%d sub-authorities, e.g. S-1-5-18) nor none",
			       s, SID_MAX_SUBAUTH);
	}
	sk_copy_str(p->user, sizeof(p->user), s);
	return 0;
}

/*
 * exit and lifetime say the same thing twice: a file gives one of them;
 * a --set of one replaces the other.
 */
static int exit_or_lifetime(struct sk_walk *w, const struct yt_node *n, const char *other)
{
	char path[sizeof(w->path)];
	size_t cut = strlen(w->path);

	while (cut > 0 && w->path[cut - 1] != '.') {
		cut--;
	}
	snprintf(path, sizeof(path), "%.*s%s", (int)cut, w->path, other);
	if (!sk_where_has(w->log, path)) {
		return 0;
	}
	if (w->src == SK_SRC_FILE) {
		return sk_fail(w, n, "give exit or lifetime, not both");
	}
	sk_where_drop_under(w->log, path); /* its children: none; the key itself below */
	for (unsigned i = 0; i < w->log->n; i++) {
		if (!strcmp(w->log->at[i].path, path)) {
			w->log->at[i] = w->log->at[--w->log->n];
			break;
		}
	}
	return 0;
}

int scenario_apply_process_exit(struct sk_walk *w, const struct sk_desc *d, void *base,
				const struct yt_node *n)
{
	struct scenario_process *p = base;
	uint64_t v = 0;
	int rc;

	if (n->kind == YT_SCALAR && !yt_is_null(n) && !strcmp(n->str, "none")) {
		rc = 0;
	} else {
		rc = sk_get_duration(w, n, d->min, d->max, &v);
	}
	if (rc == 0) {
		rc = exit_or_lifetime(w, n, "lifetime");
	}
	if (rc == 0) {
		p->exit_ns = v;
		p->lifetime_ns = 0;
	}
	return rc;
}

int scenario_apply_process_lifetime(struct sk_walk *w, const struct sk_desc *d, void *base,
				    const struct yt_node *n)
{
	struct scenario_process *p = base;
	uint64_t v;
	int rc = sk_get_duration(w, n, d->min, d->max, &v);

	if (rc == 0) {
		rc = exit_or_lifetime(w, n, "exit");
	}
	if (rc == 0) {
		p->lifetime_ns = v;
		p->exit_ns = 0;
	}
	return rc;
}

/* An exit code: -2147483648..4294967295 (NTSTATUS values such as 0xC0000005 included). */
int scenario_apply_process_exit_status(struct sk_walk *w, const struct sk_desc *d, void *base,
				       const struct yt_node *n)
{
	struct scenario_process *p = base;
	bool neg;
	uint64_t v;
	int rc = sk_need_scalar(w, n, "an integer");

	(void)d;
	if (rc) {
		return rc;
	}
	neg = n->str[0] == '-';
	if (!n->plain && !sk_parse_u64(n->str + neg, &v) && n->str[neg] != '+') {
		return sk_fail(w, n,
			       "\"%s\" is quoted, so it is a string: write the number without "
			       "quotes (exit_status: %s)",
			       n->str, n->str);
	}
	if (!n->plain || sk_parse_u64(n->str + neg, &v) || n->str[neg] == '+' ||
	    v > (neg ? UINT64_C(0x80000000) : UINT32_MAX)) {
		return sk_fail(w, n,
			       "\"%s\" is not an exit code (an integer from -2147483648 to "
			       "4294967295, e.g. 0 or 0xC0000005)",
			       n->str);
	}
	p->exit_status = neg ? (int32_t)(0 - v) : (int32_t)(uint32_t)v;
	return 0;
}

void scenario_process_init(struct scenario_process *p)
{
	memset(p, 0, sizeof(*p));
	p->session = DEFAULT_SESSION;
	sk_copy_str(p->user, sizeof(p->user), DEFAULT_USER);
}

/* ------------------------------------------------------------------------ */
/* the default desktop's processes */

#define DESKTOP_USER "S-1-5-21-3623811015-3361044348-30300820-1013"

/* clang-format off */
static const struct {
	const char *name;
	uint32_t pid;
	const char *parent;  /* NULL: the default (services.exe, else System) */
	uint32_t parent_pid; /* parent NULL and this set: a PID (an exited process) */
	int32_t session;
	const char *user;
	const char *cmdline;
} default_processes[] = {
	{"services.exe", 736, NULL, 0, 0, "S-1-5-18", "C:\\Windows\\system32\\services.exe"},
	{"svchost.exe", 1012, NULL, 0, 0, "S-1-5-19",
	 "C:\\Windows\\system32\\svchost.exe -k LocalServiceNetworkRestricted -p"},
	{"audiodg.exe", 3504, "svchost.exe", 0, 0, "S-1-5-19",
	 "C:\\Windows\\system32\\AUDIODG.EXE 0x4a8"},
	{"SearchIndexer.exe", 2976, NULL, 0, 0, "S-1-5-18",
	 "C:\\Windows\\system32\\SearchIndexer.exe /Embedding"},
	/* started by userinit.exe, which has exited */
	{"explorer.exe", 1868, NULL, 1544, 1, DESKTOP_USER, "C:\\Windows\\Explorer.EXE"},
	{"msedge.exe", 3688, "explorer.exe", 0, 1, DESKTOP_USER,
	 "\"C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe\""},
};

/* the default groups' processes and thread names (by group name) */
static const struct {
	const char *group;
	const char *process;
	const char *thread_name;
} default_group_processes[] = {
	{"ui", "explorer.exe", NULL},
	{"io_workers", "msedge.exe", "ThreadPoolForegroundWorker"},
	{"audio", "audiodg.exe", NULL},
	{"pool", "svchost.exe", NULL},
	{"background", "SearchIndexer.exe", NULL},
};
/* clang-format on */

void scenario_processes_default(struct scenario_process *procs, unsigned *n,
				const struct sched_cfg *s, struct scenario_group_x *group_x)
{
	*n = (unsigned)ARRAY_SIZE(default_processes);
	for (unsigned i = 0; i < *n; i++) {
		struct scenario_process *p = &procs[i];

		scenario_process_init(p);
		sk_copy_str(p->name, sizeof(p->name), default_processes[i].name);
		p->pid = default_processes[i].pid;
		if (default_processes[i].parent) {
			p->parent_by = SCENARIO_PARENT_NAME;
			sk_copy_str(p->parent, sizeof(p->parent), default_processes[i].parent);
		} else if (default_processes[i].parent_pid) {
			p->parent_by = SCENARIO_PARENT_PID;
			p->parent_pid = default_processes[i].parent_pid;
		}
		p->session = default_processes[i].session;
		sk_copy_str(p->user, sizeof(p->user), default_processes[i].user);
		sk_copy_str(p->cmdline, sizeof(p->cmdline), default_processes[i].cmdline);
	}
	for (unsigned g = 0; g < s->ngroups; g++) {
		for (unsigned k = 0; k < ARRAY_SIZE(default_group_processes); k++) {
			struct scenario_group_x *x = &group_x[g];

			if (strcmp(s->groups[g].name, default_group_processes[k].group)) {
				continue;
			}
			sk_copy_str(x->process, sizeof(x->process),
				    default_group_processes[k].process);
			if (default_group_processes[k].thread_name) {
				sk_copy_str(x->thread_name, sizeof(x->thread_name),
					    default_group_processes[k].thread_name);
			}
		}
	}
}

/* ------------------------------------------------------------------------ */
/* the keys a thread group adds, and profile_interval */

/* the group's extras: an array at @d->off in the root, item w->item */
static struct scenario_group_x *group_x_of(const struct sk_walk *w, const struct sk_desc *d)
{
	return (struct scenario_group_x *)(void *)((char *)w->root + d->off) + w->item;
}

int scenario_apply_group_process(struct sk_walk *w, const struct sk_desc *d, void *base,
				 const struct yt_node *n)
{
	struct scenario_group_x *x = group_x_of(w, d);
	const char *s;
	int rc = sk_get_str(w, n, 0, sizeof(x->process), &s);

	(void)base;
	if (rc == 0) {
		sk_copy_str(x->process, sizeof(x->process), s); /* resolved by scenario_finish */
	}
	return rc;
}

/*
 * threads[].hot: a map of "image!function": weight. The names are resolved
 * against the group's process's images at finish (scenario.c).
 */
int scenario_apply_hot(struct sk_walk *w, const struct sk_desc *d, void *base,
		       const struct yt_node *n)
{
	struct scenario_group_x *x = group_x_of(w, d);
	struct scenario_group_x keep = *x;

	(void)base;
	if (!yt_is_null(n) && n->kind != YT_MAP) {
		return sk_fail(w, n, "must be a map of image!function: weight, not %s",
			       yt_kind_name(n));
	}
	if (!yt_is_null(n) && n->n > SCENARIO_HOT_MAX) {
		return sk_fail(w, n, "%zu hot functions, at most %d", n->n, SCENARIO_HOT_MAX);
	}
	sk_where_drop_under(w->log, w->path);
	x->nhot = 0;
	for (size_t i = 0; !yt_is_null(n) && i < n->n; i++) {
		const struct yt_node *k = n->kids[2 * i];
		const char *bang;
		uint64_t v;
		size_t old;
		int rc;

		if (k->kind != YT_SCALAR || yt_is_null(k)) {
			*x = keep;
			return sk_fail(w, k, "a key must be image!function, not %s",
				       yt_kind_name(k));
		}
		bang = strchr(k->str, '!');
		if (!bang || bang == k->str || !bang[1] || strchr(bang + 1, '!') ||
		    k->len >= SCENARIO_HOT_FN_MAX) {
			*x = keep;
			return sk_fail(
				w, k,
				"\"%s\" is not image!function (as ntdll.dll!RtlAllocateHeap, "
				"at most %d bytes)",
				k->str, SCENARIO_HOT_FN_MAX - 1);
		}
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(n->kids[2 * j]->str, k->str)) {
				*x = keep;
				return sk_fail(w, k, "\"%s\" is given twice", k->str);
			}
		}
		old = sk_push(w, k->str);
		rc = sk_get_uint(w, n->kids[2 * i + 1], 1, 1000000, &v);
		if (rc) {
			*x = keep;
			return rc;
		}
		sk_copy_str(x->hot[x->nhot].fn, sizeof(x->hot[x->nhot].fn), k->str);
		x->hot[x->nhot].weight = (uint32_t)v;
		x->nhot++;
		sk_where_put(w, w->path, k->line, k->col);
		sk_pop(w, old);
	}
	return 0;
}

int scenario_apply_thread_name(struct sk_walk *w, const struct sk_desc *d, void *base,
			       const struct yt_node *n)
{
	struct scenario_group_x *x = group_x_of(w, d);
	const char *s;
	int rc = sk_get_str(w, n, 0, sizeof(x->thread_name), &s);
	size_t len = 0;

	(void)base;
	if (rc) {
		return rc;
	}
	/* as the threads get it: each "{n}" an index, up to 10 digits (2^32 - 1) */
	for (const char *p = s; *p; p++) {
		if (p[0] == '{' && p[1] == 'n' && p[2] == '}') {
			len += 10;
			p += 2;
		} else {
			len++;
		}
	}
	if (len >= sizeof(x->thread_name)) {
		return sk_fail(w, n,
			       "is too long: %zu bytes once each {n} is a thread's index (10 "
			       "digits at most), at most %zu",
			       len, sizeof(x->thread_name) - 1);
	}
	sk_copy_str(x->thread_name, sizeof(x->thread_name), s);
	return 0;
}

int scenario_apply_profile_interval(struct sk_walk *w, const struct sk_desc *d, void *base,
				    const struct yt_node *n)
{
	bool negative = n->kind == YT_SCALAR && n->str && n->str[0] == '-';
	uint64_t v;
	int rc = negative ? 0 : sk_get_duration(w, n, 0, UINT64_MAX, &v);

	(void)base;
	if (negative) {
		return sk_fail(w, n, "%s is out of range (122100ns..1s: what Windows accepts)",
			       n->str);
	}
	if (rc == 0 && v % 100) {
		return sk_fail(w, n, "%s is not a whole number of 100 ns (Windows' unit for it)",
			       n->str);
	}
	if (rc == 0 && (v < IDENT_PROFILE_MIN_100NS * UINT64_C(100) ||
			v > IDENT_PROFILE_MAX_100NS * UINT64_C(100))) {
		return sk_fail(w, n, "%s is out of range (122100ns..1s: what Windows accepts)",
			       n->str);
	}
	if (rc == 0) {
		uint32_t interval = (uint32_t)(v / 100);

		memcpy((char *)w->root + d->off, &interval, sizeof(interval));
	}
	return rc;
}

/* ------------------------------------------------------------------------ */
/* scenario_finish */

static int find_process(const struct scenario_procs *sc, const char *name)
{
	for (unsigned i = 0; i < sc->nprocesses; i++) {
		if (!strcmp(sc->processes[i].name, name)) {
			return (int)i;
		}
	}
	return -1;
}

const char *scenario_process_default_parent(const struct scenario_process *procs, unsigned n,
					    unsigned i)
{
	int k = -1;

	for (unsigned j = 0; j < n && k < 0; j++) {
		if (!strcmp(procs[j].name, DEFAULT_PARENT_NAME)) {
			k = (int)j;
		}
	}

	return k >= 0 && (unsigned)k != i ? DEFAULT_PARENT_NAME : "System";
}

static const char *effective_image(const struct scenario_process *p)
{
	return p->image[0] ? p->image : p->name;
}

/* " (did you mean \"x\"?)" for @name among the list's names and System, or "" */
static void near_process(const struct scenario_procs *sc, const char *name, char *buf, size_t len)
{
	const char *cands[SCENARIO_MAX_PROCESSES + 1];
	const char *near;

	for (unsigned i = 0; i < sc->nprocesses; i++) {
		cands[i] = sc->processes[i].name;
	}
	cands[sc->nprocesses] = "System";
	near = suggest_name(name, cands, sc->nprocesses + 1);
	if (near) {
		snprintf(buf, len, " (did you mean \"%s\"?)", near);
	} else {
		snprintf(buf, len, " (processes: the names of the processes list, or System)");
	}
}

static int check_names(const struct scenario_procs *sc, struct etwforge_error *err)
{
	char path[SK_PATH_MAX];

	for (unsigned i = 0; i < sc->nprocesses; i++) {
		const struct scenario_process *p = &sc->processes[i];

		if (!p->name[0]) {
			snprintf(path, sizeof(path), "processes.%u", i);
			return sk_fail_key(sc->where, sc->source, err, path,
					   "needs a name (e.g. name: explorer.exe)");
		}
		if (!is_7bit(effective_image(p))) {
			snprintf(path, sizeof(path), "processes.%u.name", i);
			return sk_fail_key(sc->where, sc->source, err, path,
					   "\"%s\" is not 7-bit ASCII: ImageFileName is an ANSI "
					   "string (give an ASCII image: key)",
					   p->name);
		}
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(sc->processes[j].name, p->name)) {
				snprintf(path, sizeof(path), "processes.%u.name", i);
				return sk_fail_key(sc->where, sc->source, err, path,
						   "\"%s\" is also the name of processes.%u "
						   "(several processes of one image: give each a "
						   "name and the image: key)",
						   p->name, j);
			}
		}
	}
	return 0;
}

static bool pid_used(const struct scenario_procs *sc, uint32_t pid, unsigned nauto,
		     const uint32_t *auto_pids)
{
	if (pid == 0 || pid == 4) {
		return true;
	}
	for (unsigned i = 0; i < sc->nprocesses; i++) {
		if (sc->processes[i].pid == pid) {
			return true;
		}
	}
	for (unsigned i = 0; i < nauto; i++) {
		if (auto_pids[i] == pid) {
			return true;
		}
	}
	return false;
}

/*
 * The next free PID: 1000, 1020, ... up to the first TID, then any free
 * multiple of 4 from 8. Depends only on the PIDs taken, so the same
 * scenario always gets the same PIDs. Return: 0 if none is left.
 */
static uint32_t next_pid(const struct scenario_procs *sc, unsigned nauto, const uint32_t *auto_pids)
{
	for (uint32_t pid = AUTO_PID_FIRST; pid < PID_LIMIT; pid += AUTO_PID_STEP) {
		if (!pid_used(sc, pid, nauto, auto_pids)) {
			return pid;
		}
	}
	for (uint32_t pid = 8; pid < PID_LIMIT; pid += 4) {
		if (!pid_used(sc, pid, nauto, auto_pids)) {
			return pid;
		}
	}
	return 0;
}

static int assign_pids(const struct scenario_procs *sc, struct etwforge_error *err)
{
	char path[SK_PATH_MAX];

	for (unsigned i = 0; i < sc->nprocesses; i++) {
		for (unsigned j = 0; sc->processes[i].pid && j < i; j++) {
			if (sc->processes[j].pid == sc->processes[i].pid) {
				snprintf(path, sizeof(path), "processes.%u.pid", i);
				return sk_fail_key(sc->where, sc->source, err, path,
						   "%" PRIu32 " is also the PID of processes.%u",
						   sc->processes[i].pid, j);
			}
		}
	}
	for (unsigned i = 0; i < sc->nprocesses; i++) {
		if (!sc->processes[i].pid) {
			sc->processes[i].pid = next_pid(sc, 0, NULL); /* always one: <= 128 taken */
		}
	}
	return 0;
}

static int resolve_times(const struct scenario_procs *sc, struct etwforge_error *err)
{
	char path[SK_PATH_MAX];
	char a[32];
	char b[32];

	for (unsigned i = 0; i < sc->nprocesses; i++) {
		struct scenario_process *p = &sc->processes[i];

		if (p->lifetime_ns) {
			p->exit_ns = p->start_ns + p->lifetime_ns; /* both <= 1 day */
			p->lifetime_ns = 0;
		}
		if (p->exit_ns && p->exit_ns <= p->start_ns) {
			sk_format_duration(a, sizeof(a), p->exit_ns);
			sk_format_duration(b, sizeof(b), p->start_ns);
			snprintf(path, sizeof(path), "processes.%u.exit", i);
			return sk_fail_key(sc->where, sc->source, err, path,
					   "%s is not after start (%s): a process exits after it "
					   "starts",
					   a, b);
		}
	}
	return 0;
}

/* The parent's PID of process @i. */
static int resolve_parent(const struct scenario_procs *sc, unsigned i, uint32_t *ppid,
			  struct etwforge_error *err)
{
	const struct scenario_process *p = &sc->processes[i];
	char path[SK_PATH_MAX];
	char near[SCENARIO_IMAGE_MAX + 64];
	const char *name = p->parent;
	int k;

	if (p->parent_by == SCENARIO_PARENT_PID) {
		*ppid = p->parent_pid;
		return 0;
	}
	if (p->parent_by == SCENARIO_PARENT_DEFAULT) {
		name = scenario_process_default_parent(sc->processes, sc->nprocesses, i);
	}
	if (!strcmp(name, "System")) {
		*ppid = 4;
		return 0;
	}
	k = find_process(sc, name);
	snprintf(path, sizeof(path), "processes.%u.parent", i);
	if (k == (int)i) {
		return sk_fail_key(sc->where, sc->source, err, path,
				   "a process cannot be its own parent");
	}
	if (k < 0) {
		near_process(sc, name, near, sizeof(near));
		return sk_fail_key(sc->where, sc->source, err, path, "no process is named \"%s\"%s",
				   name, near);
	}
	*ppid = sc->processes[k].pid;
	return 0;
}

/* The ident entry of process @i of the list (strings are filled by scenario_ident_cfg). */
static void fill_process(struct ident_process *ip, const struct scenario_process *p, uint32_t ppid)
{
	memset(ip, 0, sizeof(*ip));
	ip->pid = p->pid;
	ip->ppid = ppid;
	ip->session = p->session < 0 ? IDENT_NO_SESSION : (uint32_t)p->session;
	ip->start_ns = p->start_ns;
	ip->exit_ns = p->exit_ns ? p->exit_ns : IDENT_NO_EXIT;
	ip->exit_status = p->exit_status;
}

/* Each group's process: the list's by name, System, or one of its own appended. */
static int resolve_groups(const struct scenario_procs *sc, struct etwforge_error *err)
{
	struct ident_cfg *id = sc->ident;
	uint32_t own_pids[SCHED_MAX_GROUPS];
	unsigned nown = 0;
	char path[SK_PATH_MAX];
	char near[SCENARIO_IMAGE_MAX + 64];

	for (unsigned g = 0; g < sc->sched->ngroups; g++) {
		struct scenario_group_x *x = &sc->group_x[g];
		struct sched_group *gr = &sc->sched->groups[g];
		unsigned idx;
		int k;

		snprintf(path, sizeof(path), "threads.%u.process", g);
		if (x->process[0] && find_process(sc, x->process) < 0 &&
		    !sk_where_has(sc->where, path) && strcmp(x->process, "System")) {
			/* a built-in group's built-in process the scenario replaced */
			memset(x->process, 0, sizeof(x->process));
		}
		if (!strcmp(x->process, "System")) {
			idx = IDENT_SYSTEM;
		} else if (x->process[0]) {
			k = find_process(sc, x->process);
			if (k < 0) {
				near_process(sc, x->process, near, sizeof(near));
				return sk_fail_key(sc->where, sc->source, err, path,
						   "no process is named \"%s\"%s", x->process,
						   near);
			}
			idx = IDENT_SYSTEM + 1 + (unsigned)k;
		} else {
			struct ident_process *ip;
			struct scenario_process own;
			uint32_t ppid;

			if (id->nprocesses >= IDENT_MAX_PROCESSES) {
				snprintf(path, sizeof(path), "threads.%u", g);
				return sk_fail_key(
					sc->where, sc->source, err, path,
					"one process too many: a group without process: "
					"gets one of its own, and %d processes is the most "
					"(give it a process: of the list)",
					SCENARIO_MAX_PROCESSES);
			}
			own = (struct scenario_process){.session = DEFAULT_SESSION};
			own.pid = next_pid(sc, nown, own_pids);
			own_pids[nown++] = own.pid;
			ppid = 4;
			k = find_process(sc, DEFAULT_PARENT_NAME);
			if (k >= 0) {
				ppid = sc->processes[k].pid;
			}
			snprintf(x->own_image, sizeof(x->own_image), "%s.exe", gr->name);
			idx = id->nprocesses++;
			ip = &id->processes[idx];
			fill_process(ip, &own, ppid);
		}
		id->group_process[g] = (uint16_t)idx;
		gr->start_ns = id->processes[idx].start_ns;
		gr->exit_ns = id->processes[idx].exit_ns == IDENT_NO_EXIT
				      ? 0
				      : id->processes[idx].exit_ns;
	}
	return 0;
}

int scenario_procs_finish(const struct scenario_procs *sc, struct etwforge_error *err)
{
	struct ident_cfg *id = sc->ident;
	const struct trace_config *t = sc->trace;
	struct ident_cfg full;
	uint32_t profile_interval = id->profile_interval;
	uint32_t memory_mb = id->memory_mb;
	bool sysconfig = id->sysconfig;
	const char *why;
	int rc = check_names(sc, err);

	if (rc == 0) {
		rc = assign_pids(sc, err);
	}
	if (rc == 0) {
		rc = resolve_times(sc, err);
	}
	if (rc) {
		return rc;
	}
	/* what the keys set survives; the rest is derived again */
	ident_cfg_defaults(id);
	id->profile_interval = profile_interval;
	id->memory_mb = memory_mb;
	id->sysconfig = sysconfig;
	id->computer_name = NULL;
	for (unsigned i = 0; i < t->nsessions; i++) {
		unsigned f = t->sessions[i].flags;

		id->proc_thread = id->proc_thread || (f & PRODUCER_F_PROC_THREAD);
		id->dispatcher = id->dispatcher || (f & PRODUCER_F_DISPATCHER);
		id->profile = id->profile || (f & PRODUCER_F_PROFILE);
		id->loader = id->loader || (f & PRODUCER_F_LOADER);
		id->dpc = id->dpc || (f & PRODUCER_F_DPC);
		id->interrupt = id->interrupt || (f & PRODUCER_F_INTERRUPT);
		for (enum sim_event ev = SIM_EVENT_PROFILE; ev <= SIM_EVENT_READY_THREAD; ev++) {
			id->stacks |= (f & producer_stack_flag(ev)) ? SIM_EV_BIT(ev) : 0u;
		}
	}
	id->names_in_thread_records = t->target->thread_name;
	id->ptr64 = t->arch == ETL_ARCH_X64;
	for (unsigned i = 0; i < sc->nprocesses; i++) {
		uint32_t ppid = 4;

		rc = resolve_parent(sc, i, &ppid, err);
		if (rc) {
			return rc;
		}
		fill_process(&id->processes[id->nprocesses++], &sc->processes[i], ppid);
	}
	rc = resolve_groups(sc, err);
	if (rc) {
		return rc;
	}
	scenario_procs_ident_cfg(sc, &full);
	if (ident_cfg_check(&full, sc->sched->ngroups, &why)) {
		return sk_fail_key(sc->where, sc->source, err, "processes", "%s", why);
	}
	return 0;
}

void scenario_procs_ident_cfg(const struct scenario_procs *sc, struct ident_cfg *out)
{
	unsigned own = IDENT_SYSTEM + 1 + sc->nprocesses;

	*out = *sc->ident;
	out->computer_name = sc->computer_name;
	for (unsigned i = 0; i < sc->nprocesses && IDENT_SYSTEM + 1 + i < out->nprocesses; i++) {
		const struct scenario_process *p = &sc->processes[i];
		struct ident_process *ip = &out->processes[IDENT_SYSTEM + 1 + i];

		ip->image = effective_image(p);
		ip->cmdline = p->cmdline[0] ? p->cmdline : NULL;
		ip->sid = p->user[0] ? p->user : NULL;
	}
	for (unsigned g = 0; g < sc->sched->ngroups; g++) {
		unsigned idx = out->group_process[g];

		out->thread_name[g] =
			sc->group_x[g].thread_name[0] ? sc->group_x[g].thread_name : NULL;
		if (idx == own && own < out->nprocesses) {
			out->processes[idx].image = sc->group_x[g].own_image;
			out->processes[idx].sid = DEFAULT_USER;
			own++;
		}
	}
}
