// SPDX-License-Identifier: MIT
/*
 * tools/lib/run/out_file.c - the outputs of one run, written so that nothing is
 * destroyed (see out_file.h for the rules).
 *
 *   out_set_input()   note each regular file the run reads
 *   out_set_add()     classify each target, refuse two that are one file
 *        |            or one that is an input (nothing created yet)
 *   out_set_open()    OUT_RENAME:   mkstemp("DIR/.NAME.XXXXXX") beside the
 *        |                          target (symlinks followed to the real file)
 *        |            OUT_IN_PLACE: open the device, FIFO, pipe or socket by
 *        |                          the name given
 *        |            OUT_STDOUT:   descriptor 1
 *        |            and, for an ETL file written in place, its spool:
 *        |            mkstemp("$TMPDIR/etwforge-spool.XXXXXX"), unlinked at once
 *   ... the run writes through out_file.fd or out_file_stream() ...
 *   out_set_commit()  flush, fsync, close; then, signals blocked:
 *        |              for each temporary: link the old target to a backup
 *        |              name, rename the temporary onto the target
 *        |              (a failed rename puts every replaced target back)
 *        |            and remove the backups
 *   out_set_abort()   remove every temporary file
 *
 * The temporary names live in a process-wide table that out_abandon()
 * walks with unlink() (async-signal-safe): a tool's signal handler calls it
 * (through etwforge_outputs_abandon()) before it exits. The table is changed only with every
 * signal such a handler may run on blocked (all but the faults), one atomic slot at a time,
 * so the handler never sees half an update and runs in several threads share it. A spool file has no
 * name once it is made (it is made and unlinked with the signals blocked),
 * so nothing can leave it behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/lib/run/out_file.h"

#define MAX_LINK_HOPS 40
#define MAX_TEMPS     (2 * OUT_SET_MAX) /* every temporary and its backup at commit */

/* ---- the process-wide table of temporary files (for the signal handler) -- */

/*
 * Slots are claimed and released with atomic exchanges, so runs in several
 * threads share the tables; the handler only loads (lock-free atomics are
 * async-signal-safe).
 */
static _Atomic(const char *) temps[MAX_TEMPS];

/* Folders made for the outputs of a run (out_dir_make), removed with it if it fails. */
#define MAX_DIRS 4
static _Atomic(const char *) dirs[MAX_DIRS];

/* Put @name in the first free slot of @table. Return: false if it is full. */
static bool slot_claim(_Atomic(const char *) *table, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++) {
		const char *none = NULL;

		if (atomic_compare_exchange_strong(&table[i], &none, name)) {
			return true;
		}
	}
	return false;
}

/*
 * The signals a tool's handler may clean up on: every one but the faults a
 * program raises itself (blocking those would turn a crash into a kill).
 */
static void cleanup_set(sigset_t *set)
{
	static const int faults[] = {SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS};

	sigfillset(set);
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		sigdelset(set, faults[i]);
	}
}

static void block_signals(sigset_t *old)
{
	sigset_t set;

	cleanup_set(&set);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

/* Put @name in the table (signals must be blocked). Return: false if full. */
static bool temp_register(const char *name)
{
	return slot_claim(temps, MAX_TEMPS, name);
}

static void temp_unregister(const char *name)
{
	for (unsigned i = 0; i < MAX_TEMPS; i++) {
		const char *was = name;

		atomic_compare_exchange_strong(&temps[i], &was, NULL);
	}
}

void out_abandon(void)
{
	for (unsigned i = 0; i < MAX_TEMPS; i++) {
		const char *t = atomic_load(&temps[i]);

		if (t) {
			unlink(t);
		}
	}
	for (unsigned i = 0; i < MAX_DIRS; i++) {
		const char *d = atomic_load(&dirs[i]);

		if (d) {
			rmdir(d); /* only when empty: made for this run and nothing committed */
		}
	}
}

/* ---- closed standard descriptors ---------------------------------------------- */

static unsigned std_closed; /* bit N: descriptor N was closed at out_std_guard() */
static bool std_guarded;

unsigned out_std_guard(void)
{
	if (std_guarded) {
		return std_closed;
	}
	std_guarded = true;
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int got;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF) {
			continue;
		}
		/*
		 * The lowest free descriptor is @fd (those below are open by now).
		 * The wrong direction on purpose: a stray read of standard input or
		 * write to standard output fails (EBADF) rather than seeming to work.
		 * Without /dev/null (a bare chroot), the root folder holds the place.
		 */
		got = open("/dev/null", (fd == STDIN_FILENO ? O_WRONLY : O_RDONLY) | O_NOCTTY);
		if (got < 0) {
			got = open("/", O_RDONLY);
		}
		if (got >= 0 && got != fd) {
			close(got);
		}
		std_closed |= 1u << fd;
	}
	return std_closed;
}

bool out_std_closed(int fd)
{
	return fd >= STDIN_FILENO && fd <= STDERR_FILENO && (std_closed >> fd & 1u);
}

/* ---- folders ------------------------------------------------------------------ */

int out_dir_make(const char *path, struct etwforge_error *err)
{
	struct stat st = {0};
	sigset_t old;
	char *copy;
	int e;

	if (stat(path, &st) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			return error_fail(err, -ENOTDIR, ERR_INPUT, "%s: not a directory", path);
		}
		return 0;
	}
	copy = strdup(path);
	if (!copy) {
		return error_fail(err, -ENOMEM, ERR_DATA, "%s: out of memory", path);
	}
	block_signals(&old);
	if (mkdir(path, 0777) != 0) {
		e = errno;
		restore_signals(&old);
		free(copy);
		return error_fail(err, -e, ERR_DATA, "%s: cannot create: %s", path, strerror(e));
	}
	if (slot_claim(dirs, MAX_DIRS, copy)) {
		copy = NULL;
	}
	restore_signals(&old);
	free(copy); /* the table is full: it is still made, only not removed on a signal */
	return 1;
}

void out_dir_done(const char *path, bool keep)
{
	sigset_t old;

	block_signals(&old);
	for (unsigned i = 0; i < MAX_DIRS; i++) {
		const char *d = atomic_load(&dirs[i]);

		if (d && !strcmp(d, path) && atomic_compare_exchange_strong(&dirs[i], &d, NULL)) {
			if (!keep) {
				rmdir(d);
			}
			free((char *)(uintptr_t)d);
		}
	}
	restore_signals(&old);
}

/* ---- names ---------------------------------------------------------------- */

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d) {
		memcpy(d, s, n);
	}
	return d;
}

/* "DIR/" part of @path (empty for a bare name), as a new string. */
static char *dir_part(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0;
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, path, n);
		d[n] = '\0';
	}
	return d;
}

static const char *base_part(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "DIR/.BASE@suffix" beside @path. */
static char *hidden_name(const char *path, const char *suffix)
{
	char *dir = dir_part(path);
	const char *base = base_part(path);
	size_t n;
	char *t;

	if (!dir) {
		return NULL;
	}
	n = strlen(dir) + 1 + strlen(base) + strlen(suffix) + 1;
	t = malloc(n);
	if (t) {
		strcpy(t, dir);
		strcat(t, ".");
		strcat(t, base);
		strcat(t, suffix);
	}
	free(dir);
	return t;
}

/*
 * Follow symbolic links from @path to the file that is really written (which
 * may not exist yet). Return: a new string, or NULL with errno (ELOOP, ENOMEM).
 */
static char *resolve_links(const char *path)
{
	char *cur = dup_str(path);

	for (unsigned hop = 0; cur; hop++) {
		struct stat st = {0};
		char link[PATH_MAX];
		ssize_t n;
		char *next;

		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
			return cur;
		}
		if (hop == MAX_LINK_HOPS) {
			free(cur);
			errno = ELOOP;
			return NULL;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0) {
			free(cur);
			return NULL;
		}
		link[n] = '\0';
		if (link[0] == '/') {
			next = dup_str(link);
		} else {
			char *dir = dir_part(cur);

			next = dir ? malloc(strlen(dir) + (size_t)n + 1) : NULL;
			if (next) {
				strcpy(next, dir);
				strcat(next, link);
			}
			free(dir);
		}
		free(cur);
		cur = next;
	}
	errno = ENOMEM;
	return NULL;
}

/*
 * The descriptor @path names: /dev/fd/N, /proc/self/fd/N, /dev/stdout,
 * /dev/stderr; -1 for any other path.
 */
static int fd_of_path(const char *path)
{
	static const char *const fd_dirs[] = {"/dev/fd/", "/proc/self/fd/"};
	char *end;
	long n;

	if (!strcmp(path, "/dev/stdout")) {
		return STDOUT_FILENO;
	}
	if (!strcmp(path, "/dev/stderr")) {
		return STDERR_FILENO;
	}
	for (size_t i = 0; i < sizeof(fd_dirs) / sizeof(fd_dirs[0]); i++) {
		size_t len = strlen(fd_dirs[i]);

		if (!strncmp(path, fd_dirs[i], len) && path[len] >= '0' && path[len] <= '9') {
			n = strtol(path + len, &end, 10);
			return *end || n > INT_MAX ? -1 : (int)n;
		}
	}
	return -1;
}

bool out_is_regular_target(const char *path)
{
	struct stat st = {0};
	char *t;
	bool reg;

	if (!path || !path[0] || !strcmp(path, "-")) {
		return false;
	}
	if (fd_of_path(path) >= 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode))) {
		return false; /* /dev/stdout, /dev/fd/N: a descriptor, whatever it holds */
	}
	t = resolve_links(path);
	if (!t) {
		return false;
	}
	reg = stat(t, &st) != 0 || S_ISREG(st.st_mode);
	free(t);
	return reg;
}

/* Is @st the null device? (A twin made with mknod counts: the same driver.) */
static bool is_null_device(const struct stat *st)
{
	static dev_t null_rdev;
	static int known; /* 0 not looked up, 1 found, -1 no /dev/null */
	struct stat ns = {0};

	if (!S_ISCHR(st->st_mode)) {
		return false;
	}
	if (!known) {
		known = stat("/dev/null", &ns) == 0 && S_ISCHR(ns.st_mode) ? 1 : -1;
		null_rdev = ns.st_rdev;
	}
	return known > 0 && st->st_rdev == null_rdev;
}

/* What @st says of an output that exists: its identity and, when not a regular file, its kind. */
static void out_file_stat(struct out_file *f, const struct stat *st)
{
	f->exists = true;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->mode = st->st_mode;
	f->is_chr = S_ISCHR(st->st_mode);
	f->is_null = is_null_device(st);
}

/* ---- the set ---------------------------------------------------------------- */

void out_set_init(struct out_set *s)
{
	memset(s, 0, sizeof(*s));
}

struct out_file *out_set_file(struct out_set *s, unsigned i)
{
	return i < s->n ? &s->files[i] : NULL;
}

/*
 * The identity of a new (not yet existing) target: its folder's device and
 * inode and its name. Existing files compare by their own device and inode.
 */
static bool same_new_target(const struct out_file *a, const struct out_file *b)
{
	struct stat da = {0}, db = {0};
	char *pa, *pb;
	bool same = false;

	if (strcmp(base_part(a->target), base_part(b->target)) != 0) {
		return false;
	}
	pa = dir_part(a->target);
	pb = dir_part(b->target);
	if (pa && pb) {
		if (stat(pa[0] ? pa : ".", &da) == 0 && stat(pb[0] ? pb : ".", &db) == 0) {
			same = da.st_dev == db.st_dev && da.st_ino == db.st_ino;
		} else {
			same = strcmp(pa, pb) == 0;
		}
	}
	free(pa);
	free(pb);
	return same;
}

static bool same_file(const struct out_file *a, const struct out_file *b)
{
	if (a->kind == OUT_STDOUT && b->kind == OUT_STDOUT) {
		return true; /* two streams interleaved on one descriptor */
	}
	if (a->exists != b->exists) {
		return false;
	}
	if (a->exists) {
		if (a->dev != b->dev || a->ino != b->ino) {
			return false;
		}
		/* writing a character device twice is what was asked (e.g. /dev/null) */
		return !(a->is_chr && b->is_chr);
	}
	return a->target && b->target && same_new_target(a, b);
}

/* The one line for two things that are one file. Return: -EEXIST. */
static int same_file_error(struct etwforge_error *err, const char *label1, const char *path1,
			   const char *label2, const char *path2)
{
	return error_fail(err, -EEXIST, ERR_INPUT, "%s %s and %s %s are the same file", label1,
			  path1, label2, path2);
}

/* Would writing @f replace the regular file @in the run reads? */
static bool is_input(const struct out_input *in, const struct out_file *f)
{
	return f->exists && S_ISREG(f->mode) && f->dev == in->dev && f->ino == in->ino;
}

int out_set_input(struct out_set *s, const char *path, const char *label,
		  struct etwforge_error *err)
{
	struct out_input *in, *grown;
	struct stat st = {0};

	if (!path || !path[0] ||
	    (strcmp(path, "-") ? stat(path, &st) : fstat(STDIN_FILENO, &st)) != 0 ||
	    !S_ISREG(st.st_mode)) {
		return 0; /* nothing an output could replace */
	}
	grown = realloc(s->inputs, (s->ninputs + 1) * sizeof(*grown));
	if (!grown) {
		return error_fail(err, -ENOMEM, ERR_DATA, "%s: out of memory", path);
	}
	s->inputs = grown;
	in = &s->inputs[s->ninputs];
	in->path = dup_str(strcmp(path, "-") ? path : "(standard input)");
	in->label = dup_str(label ? label : "the input");
	in->dev = st.st_dev;
	in->ino = st.st_ino;
	if (!in->path || !in->label) {
		free(in->path);
		free(in->label);
		return error_fail(err, -ENOMEM, ERR_DATA, "%s: out of memory", path);
	}
	for (unsigned i = 0; i < s->n; i++) {
		if (is_input(in, &s->files[i])) {
			int rc = same_file_error(err, in->label, in->path, s->files[i].label,
						 s->files[i].path);

			free(in->path);
			free(in->label);
			return rc;
		}
	}
	s->ninputs++;
	return 0;
}

static int fail(struct etwforge_error *err, int rc, int kind, const char *path, const char *what)
{
	return error_fail(err, rc, kind, "%s: %s", path, what);
}

int out_set_add(struct out_set *s, const char *path, const char *label, struct etwforge_error *err)
{
	struct out_file *f;
	struct stat st = {0}, named = {0};
	int rc = 0;

	if (s->open || s->n == OUT_SET_MAX) {
		return fail(err, -ENOSPC, ERR_INPUT, path, "too many outputs");
	}
	if (!path || !path[0]) {
		return fail(err, -ENOENT, ERR_INPUT, label, "empty file name");
	}
	if (s->n == s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 8;
		struct out_file *n = realloc(s->files, cap * sizeof(*n));

		if (!n) {
			return fail(err, -ENOMEM, ERR_DATA, path, "out of memory");
		}
		s->files = n;
		s->cap = cap;
	}
	f = &s->files[s->n];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->spool_fd = -1;
	f->path = dup_str(path);
	f->label = dup_str(label ? label : "output");
	if (!f->path || !f->label) {
		goto enomem;
	}
	if (!strcmp(path, "-")) {
		if (out_std_closed(STDOUT_FILENO)) {
			/* descriptor 1 is our /dev/null stand-in: writing there would lose it all */
			/* no mistake of the command line: descriptor 1 was closed on us */
			error_fail(err, -EBADF, ERR_DATA, "%s -: standard output is closed",
				   f->label);
			free(f->path);
			free(f->label);
			return -EBADF;
		}
		f->kind = OUT_STDOUT;
		if (fstat(STDOUT_FILENO, &st) == 0) {
			out_file_stat(f, &st);
		}
	} else if (stat(path, &named) == 0 && !S_ISREG(named.st_mode) && !S_ISDIR(named.st_mode)) {
		/*
		 * A device, FIFO, pipe or socket, written in place: opened by the name
		 * given. Following the links ourselves would fail for /dev/stdout or
		 * /dev/fd/N of a pipe, whose link text ("pipe:[1234]") is no path.
		 */
		f->target = dup_str(path);
		if (!f->target) {
			goto enomem;
		}
		f->kind = OUT_IN_PLACE;
		out_file_stat(f, &named);
	} else {
		bool was_named = stat(path, &named) == 0;

		f->target = resolve_links(path);
		if (!f->target) {
			int e = errno;

			free(f->path);
			free(f->label);
			return fail(err, -e, e == ELOOP ? ERR_INPUT : ERR_DATA, path,
				    e == ELOOP ? "too many levels of symbolic links"
					       : "out of memory");
		}
		if (stat(f->target, &st) == 0) {
			out_file_stat(f, &st);
		}
		if (f->exists && S_ISDIR(st.st_mode)) {
			rc = fail(err, -EISDIR, ERR_INPUT, path, "is a directory");
		} else if (was_named && !S_ISDIR(named.st_mode) &&
			   (!f->exists || st.st_dev != named.st_dev || st.st_ino != named.st_ino)) {
			/*
			 * An existing file that its links do not lead to (/dev/fd/N of a
			 * deleted file or a memfd): it has no name to rename onto.
			 */
			rc = fail(err, -ENOENT, ERR_INPUT, path,
				  "cannot be replaced: the file it names has no path (deleted?)");
		} else if (f->exists && !S_ISREG(st.st_mode)) {
			f->kind = OUT_IN_PLACE; /* it changed since the stat above */
		} else {
			f->kind = OUT_RENAME;
		}
		if (rc < 0) {
			free(f->path);
			free(f->label);
			free(f->target);
			return rc;
		}
	}
	/* the first output, else the first input, that @f is */
	for (unsigned i = 0; rc == 0 && i < s->n; i++) {
		if (same_file(&s->files[i], f)) {
			rc = same_file_error(err, s->files[i].label, s->files[i].path, f->label,
					     f->path);
		}
	}
	for (unsigned i = 0; rc == 0 && i < s->ninputs; i++) {
		if (is_input(&s->inputs[i], f)) {
			rc = same_file_error(err, s->inputs[i].label, s->inputs[i].path, f->label,
					     f->path);
		}
	}
	if (rc < 0) {
		free(f->path);
		free(f->label);
		free(f->target);
		return rc;
	}
	return (int)s->n++;

enomem:
	free(f->path);
	free(f->label);
	return fail(err, -ENOMEM, ERR_DATA, path, "out of memory");
}

void out_file_want_spool(struct out_file *f)
{
	f->want_spool = true;
}

void out_file_spool_close(struct out_file *f)
{
	if (f->spool_fd >= 0) {
		close(f->spool_fd);
		f->spool_fd = -1;
	}
}

const char *out_spool_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && d[0] ? d : "/tmp";
}

/*
 * @f's spool: a file in out_spool_dir() that has no name from the start
 * (made and unlinked with the cleanup signals blocked), so neither a
 * failure nor a signal can leave it behind.
 */
static int open_spool(struct out_file *f, struct etwforge_error *err)
{
	const char *dir = out_spool_dir();
	size_t n = strlen(dir) + sizeof("/etwforge-spool.XXXXXX");
	char *name = malloc(n);
	sigset_t old;
	int e = 0;

	if (!name) {
		return fail(err, -ENOMEM, ERR_DATA, f->path, "out of memory");
	}
	snprintf(name, n, "%s/etwforge-spool.XXXXXX", dir);
	block_signals(&old);
	f->spool_fd = mkstemp(name);
	if (f->spool_fd < 0) {
		e = errno;
	} else {
		unlink(name);
		(void)fcntl(f->spool_fd, F_SETFD, FD_CLOEXEC);
	}
	restore_signals(&old);
	free(name);
	if (e) {
		return error_fail(err, -e, ERR_DATA, "%s: cannot spool in %s (TMPDIR): %s", f->path,
				  dir, strerror(e));
	}
	return 0;
}

/* Open the device, FIFO, pipe or socket @f names, for writing in place. */
static int open_in_place(struct out_file *f, struct etwforge_error *err)
{
	int e, n;

	f->fd = open(f->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (f->fd < 0 && errno == ENXIO && (n = fd_of_path(f->target)) >= 0) {
		/* a socket cannot be opened by its /dev/fd name: share the descriptor */
		f->fd = fcntl(n, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	}
	if (f->fd < 0) {
		e = errno;
		return error_fail(err, -e, ERR_DATA, "%s: cannot open: %s", f->path, strerror(e));
	}
	return 0;
}

static int open_one(struct out_file *f, struct etwforge_error *err)
{
	sigset_t old;
	int e;

	switch (f->kind) {
	case OUT_STDOUT:
		f->fd = STDOUT_FILENO;
		return f->want_spool && !f->is_null ? open_spool(f, err) : 0;
	case OUT_IN_PLACE:
		/* the spool first: a FIFO's open waits for its reader */
		e = f->want_spool && !f->is_null ? open_spool(f, err) : 0;
		return e < 0 ? e : open_in_place(f, err);
	case OUT_RENAME:
		break;
	}
	f->tmp = hidden_name(f->target, ".XXXXXX");
	if (!f->tmp) {
		return fail(err, -ENOMEM, ERR_DATA, f->path, "out of memory");
	}
	block_signals(&old);
	if (!temp_register(f->tmp)) {
		restore_signals(&old);
		return fail(err, -EMFILE, ERR_DATA, f->path, "too many temporary files");
	}
	f->fd = mkstemp(f->tmp);
	e = errno;
	if (f->fd < 0) {
		temp_unregister(f->tmp);
		free(f->tmp);
		f->tmp = NULL; /* nothing was created */
	}
	restore_signals(&old);
	if (f->fd < 0) {
		return error_fail(err, -e, ERR_DATA, "%s: cannot create: %s", f->path, strerror(e));
	}
	if (f->exists && access(f->target, W_OK) != 0) {
		e = errno;
		return error_fail(err, -e, ERR_DATA, "%s: not writable: %s", f->path, strerror(e));
	}
	/* mkstemp makes 0600: keep the replaced file's mode, or what creat() would give */
	if (f->exists) {
		(void)fchmod(f->fd, f->mode & 07777);
	} else {
		mode_t mask = umask(0);

		umask(mask);
		(void)fchmod(f->fd, (mode_t)(0666 & ~mask));
	}
	return 0;
}

int out_set_open(struct out_set *s, struct etwforge_error *err)
{
	for (unsigned i = 0; i < s->n; i++) {
		int rc = open_one(&s->files[i], err);

		if (rc < 0) {
			out_set_abort(s);
			return rc;
		}
	}
	s->open = true;
	return 0;
}

FILE *out_file_stream(struct out_file *f)
{
	if (f->stream) {
		return f->stream;
	}
	if (f->kind == OUT_STDOUT) {
		f->stream = stdout;
	} else if (f->fd >= 0) {
		f->stream = fdopen(f->fd, "w");
	} else {
		errno = EBADF;
	}
	return f->stream;
}

/* fsync that accepts what cannot be synced (pipes, ttys, /dev/null). */
static int sync_fd(int fd)
{
	if (fsync(fd) == 0 || errno == EINVAL || errno == EROFS || errno == ENOTSUP) {
		return 0;
	}
	return -errno;
}

/* Flush, sync and close @f (standard output is flushed, not closed). */
static int finish_one(struct out_file *f)
{
	int rc = 0;

	out_file_spool_close(f);

	if (f->stream) {
		if (fflush(f->stream) != 0 || ferror(f->stream)) {
			rc = errno ? -errno : -EIO;
		}
	}
	if (f->kind == OUT_STDOUT) {
		if (!rc && f->stream) {
			rc = sync_fd(STDOUT_FILENO);
		}
		return rc;
	}
	if (!rc && f->fd >= 0) {
		rc = sync_fd(f->fd);
	}
	if (f->stream) {
		if (fclose(f->stream) != 0 && !rc) {
			rc = -errno;
		}
		f->stream = NULL;
	} else if (f->fd >= 0 && close(f->fd) != 0 && !rc) {
		rc = -errno;
	}
	f->fd = -1;
	return rc;
}

int out_file_close(struct out_file *f)
{
	return finish_one(f);
}

/* A pending signal whose default ends the process (a tool's handler for it cleans up and exits). */
static bool cleanup_signal_pending(void)
{
	static const int harmless[] = {SIGCHLD, SIGCONT, SIGURG, SIGWINCH,
				       SIGTSTP, SIGTTIN, SIGTTOU};
	sigset_t pend, set;

	if (sigpending(&pend) != 0) {
		return false;
	}
	cleanup_set(&set);
	for (size_t i = 0; i < sizeof(harmless) / sizeof(harmless[0]); i++) {
		sigdelset(&set, harmless[i]);
	}
	for (int sig = 1; sig <= SIGRTMAX; sig++) {
		if (sigismember(&set, sig) == 1 && sigismember(&pend, sig) == 1) {
			return true;
		}
	}
	return false;
}

/* Hard-link the current target to a fresh backup name; NULL if there is none. */
static char *make_backup(const struct out_file *f)
{
	char suffix[48];

	for (unsigned k = 0; k < 1000; k++) {
		char *b;

		snprintf(suffix, sizeof(suffix), ".bak-%ld-%u", (long)getpid(), k);
		b = hidden_name(f->target, suffix);
		if (!b) {
			return NULL;
		}
		if (link(f->target, b) == 0) {
			return b;
		}
		free(b);
		if (errno != EEXIST) {
			return NULL; /* no target, or no hard links here: nothing to put back */
		}
	}
	return NULL;
}

/* Put back the targets of @s->files[0..n) already renamed over. */
static void roll_back(struct out_set *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct out_file *f = &s->files[i];

		if (!f->renamed) {
			continue;
		}
		if (f->backup) {
			rename(f->backup, f->target);
		} else {
			unlink(f->target);
		}
		f->renamed = false;
	}
}

static void drop_backups(struct out_set *s)
{
	for (unsigned i = 0; i < s->n; i++) {
		struct out_file *f = &s->files[i];

		if (f->backup) {
			unlink(f->backup);
			temp_unregister(f->backup);
			free(f->backup);
			f->backup = NULL;
		}
	}
}

int out_set_commit(struct out_set *s, struct etwforge_error *err)
{
	sigset_t old;
	unsigned i;
	int rc;

	for (i = 0; i < s->n; i++) {
		rc = finish_one(&s->files[i]);
		if (rc < 0) {
			error_fail(err, rc, ERR_DATA, "%s: write failed: %s",
				   s->files[i].kind == OUT_STDOUT ? "standard output"
								  : s->files[i].path,
				   strerror(-rc));
			out_set_abort(s);
			return rc;
		}
	}
	block_signals(&old);
	if (cleanup_signal_pending()) {
		out_set_abort(s);
		restore_signals(&old); /* the handler runs now and exits */
		return error_fail(err, -EINTR, ERR_DATA, "interrupted");
	}
	for (i = 0; i < s->n; i++) {
		struct out_file *f = &s->files[i];

		if (f->kind != OUT_RENAME || !f->tmp) {
			continue;
		}
		f->backup = make_backup(f);
		if (f->backup) {
			temp_register(f->backup);
		}
		if (rename(f->tmp, f->target) != 0) {
			rc = -errno;
			error_fail(err, rc, ERR_DATA, "%s: cannot rename into place: %s", f->path,
				   strerror(-rc));
			roll_back(s, i);
			drop_backups(s);
			out_set_abort(s);
			restore_signals(&old);
			return rc;
		}
		f->renamed = true;
		temp_unregister(f->tmp);
		free(f->tmp);
		f->tmp = NULL;
	}
	drop_backups(s);
	restore_signals(&old);
	s->open = false;
	return 0;
}

void out_set_abort(struct out_set *s)
{
	sigset_t old;

	block_signals(&old);
	for (unsigned i = 0; i < s->n; i++) {
		struct out_file *f = &s->files[i];

		if (f->stream && f->kind != OUT_STDOUT) {
			fclose(f->stream);
			f->fd = -1;
		}
		f->stream = NULL;
		if (f->fd >= 0 && f->kind != OUT_STDOUT) {
			close(f->fd);
		}
		f->fd = -1;
		out_file_spool_close(f);
		if (f->tmp) {
			unlink(f->tmp);
			temp_unregister(f->tmp);
			free(f->tmp);
			f->tmp = NULL;
		}
	}
	s->open = false;
	restore_signals(&old);
}

void out_set_free(struct out_set *s)
{
	out_set_abort(s);
	for (unsigned i = 0; i < s->n; i++) {
		struct out_file *f = &s->files[i];

		free(f->path);
		free(f->label);
		free(f->target);
		free(f->backup);
		f->path = f->label = f->target = f->backup = NULL;
	}
	free(s->files);
	s->files = NULL;
	s->n = 0;
	s->cap = 0;
	for (unsigned i = 0; i < s->ninputs; i++) {
		free(s->inputs[i].path);
		free(s->inputs[i].label);
	}
	free(s->inputs);
	s->inputs = NULL;
	s->ninputs = 0;
}
