// SPDX-License-Identifier: MIT
/*
 * tools/bench/bench_child.c - a function of `etwforge bench` run in a child
 * process, in the scratch folder:
 *
 *   parent                                 child
 *   fork() (cleanup signals blocked) ----> bench_scratch_forked(), signals back
 *   bench_scratch_child(pid)               chdir(scratch folder)
 *   read the pipe  <---------------------- fn(ctx, out, &err); write rc, err, out
 *   wait4() -> rusage: CPU time, ru_maxrss  _exit(0)
 *
 * Why a child: ru_maxrss only grows, so a run's peak RSS is its own only in
 * a process of its own; the child's CPU time (user + system) comes with it;
 * and in the scratch folder the outputs have relative names, so what a
 * file says of its own name (LogFileName, the truth's "file") and hence
 * its digest does not depend on where the folder is: two runs can be
 * compared by their digests.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/lib/common/error.h"
#include "tools/lib/common/wall_clock.h"
#include "tools/bench/bench.h"

struct child_head {
	int rc;
	struct etwforge_error err;
};

static bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(fd, c, n);

		if (k < 0 && errno == EINTR) {
			continue;
		}
		if (k <= 0) {
			return false;
		}
		c += k;
		n -= (size_t)k;
	}
	return true;
}

static size_t read_all(int fd, void *p, size_t n)
{
	char *c = p;
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, c + got, n - got);

		if (k < 0 && errno == EINTR) {
			continue;
		}
		if (k <= 0) {
			break;
		}
		got += (size_t)k;
	}
	return got;
}

static void child(const struct bench_scratch *s, bench_child_fn fn, void *ctx, void *out,
		  size_t len, int fd)
{
	struct child_head h = {0};

	if (chdir(bench_scratch_dir(s)) < 0) {
		h.rc = error_fail(&h.err, -errno, ERR_DATA, "%s: %s", bench_scratch_dir(s),
				  strerror(errno));
	} else {
		h.rc = fn(ctx, out, &h.err);
	}
	if (!write_all(fd, &h, sizeof(h)) || !write_all(fd, out, len)) {
		_exit(1);
	}
	_exit(0);
}

int bench_child_run(struct bench_scratch *s, const char *what, bench_child_fn fn, void *ctx,
		    void *out, size_t len, struct rusage *ru, double *wall,
		    struct etwforge_error *err)
{
	struct child_head h = {0};
	sigset_t set, old;
	size_t got = 0;
	double t0;
	int fds[2], status = 0;
	pid_t pid;

	if (pipe(fds) < 0) {
		return error_fail(err, -errno, ERR_DATA, "%s: pipe: %s", what, strerror(errno));
	}
	/* blocked around fork(), so a signal finds the child registered */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	t0 = bench_wall_ns();
	pid = fork();
	if (pid == 0) {
		bench_scratch_forked();
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(fds[0]);
		if (!fn) {
			_exit(0);
		}
		child(s, fn, ctx, out, len, fds[1]);
	}
	if (pid > 0) {
		bench_scratch_child(pid);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fds[1]);
	if (pid < 0) {
		int e = errno;

		close(fds[0]);
		return error_fail(err, -e, ERR_DATA, "%s: fork: %s", what, strerror(e));
	}
	if (fn) {
		got = read_all(fds[0], &h, sizeof(h));
		got += read_all(fds[0], out, len);
	}
	close(fds[0]);
	while (wait4(pid, &status, 0, ru) < 0) {
		if (errno != EINTR) {
			int e = errno;

			bench_scratch_child(0);
			return error_fail(err, -e, ERR_DATA, "%s: wait4: %s", what, strerror(e));
		}
	}
	bench_scratch_child(0);
	*wall = (bench_wall_ns() - t0) * 1e-9;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || (fn && got != sizeof(h) + len)) {
		return error_fail(err, -EIO, ERR_DATA, "%s: the child process %s %d", what,
				  WIFSIGNALED(status) ? "was killed by signal" : "exited with",
				  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
	if (fn && h.rc < 0) {
		*err = h.err;
		if (!err->located) {
			char msg[sizeof(err->msg)];

			memcpy(msg, err->msg, sizeof(msg));
			snprintf(err->msg, sizeof(err->msg), "%s: %.900s", what, msg);
		}
		return h.rc;
	}
	return 0;
}

double bench_rusage_cpu_s(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 +
	       (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
}
