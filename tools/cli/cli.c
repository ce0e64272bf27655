// SPDX-License-Identifier: MIT
/*
 * tools/cli/cli.c - small command-line helpers shared by the subcommands: the
 * signals (the tool's, not the library's), option and library errors on
 * one line, a CPU list, and the end by SIGPIPE when standard output's
 * reader has gone.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void (*volatile at_signal)(int sig); /* cli_at_signal() */

/*
 * Every signal whose default action ends the process and that a user can
 * send: the asynchronous ones end the run with 128 + N; the faults (also
 * sent by kill) and SIGABRT clean up, then go on as they would have (the
 * previous action, a core dump or a sanitizer's report). SIGPIPE and
 * SIGXFSZ are ignored instead: a closed pipe (EPIPE) and a file-size limit
 * (EFBIG) are write errors (exit 1, cleaned up).
 */
static const int async_signals[] = {
	SIGHUP,	   SIGINT,    SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
	SIGXCPU,   SIGVTALRM, SIGPROF, SIGIO,
#ifdef SIGPWR
	SIGPWR,
#endif
};
static const int fault_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS};

#define SIG_SLOTS 128			     /* above SIGRTMAX */
static struct sigaction previous[SIG_SLOTS]; /* the action before ours (fault signals) */

static void on_signal(int sig)
{
	void (*fn)(int) = at_signal;

	etwforge_outputs_abandon();
	if (fn) {
		fn(sig);
	}
	_exit(128 + sig);
}

/*
 * A fault signal: clean up, then put back the action from before us. A real
 * fault (raised by the kernel) happens again on return and meets it; one
 * sent by a process (kill, abort()) is raised again, and delivered when this
 * handler returns.
 */
static void on_fault(int sig, siginfo_t *info, void *uctx)
{
	void (*fn)(int) = at_signal;

	(void)uctx;
	etwforge_outputs_abandon();
	if (fn) {
		fn(sig);
	}
	if (sig > 0 && sig < SIG_SLOTS) {
		sigaction(sig, &previous[sig], NULL);
	}
	if (!info || info->si_code <= 0) {
		raise(sig);
	}
}

void cli_at_signal(void (*fn)(int sig))
{
	at_signal = fn;
}

/* Handle @sig with on_signal() unless it was ignored on entry (nohup, background jobs). */
static void handle(int sig, const struct sigaction *sa)
{
	struct sigaction was;

	if (sig <= 0 || sig >= SIG_SLOTS || sigaction(sig, NULL, &was) != 0 ||
	    was.sa_handler == SIG_IGN) {
		return;
	}
	previous[sig] = was;
	sigaction(sig, sa, NULL);
}

void cli_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* one clean-up at a time: every other handled signal waits for it */
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++) {
		sigdelset(&sa.sa_mask, fault_signals[i]);
	}
	for (size_t i = 0; i < sizeof(async_signals) / sizeof(async_signals[0]); i++) {
		handle(async_signals[i], &sa);
	}
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		handle(sig, &sa);
	}
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	for (size_t i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++) {
		handle(fault_signals[i], &sa);
	}
	sa.sa_flags = 0;
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGXFSZ, &sa, NULL);
}

int cli_option_error(const char *cmd, int c, char *const *argv)
{
	const char *opt = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':') {
		fprintf(stderr,
			"etwforge %s: option '%s' needs a value (try 'etwforge %s --help')\n", cmd,
			opt, cmd);
	} else {
		fprintf(stderr, "etwforge %s: unknown option '%s' (try 'etwforge %s --help')\n",
			cmd, opt, cmd);
	}
	return EXIT_USAGE;
}

bool cli_stdout_gone(void)
{
	struct pollfd p = {.fd = STDOUT_FILENO, .events = 0};

	/* a pipe without readers polls POLLERR; a socket whose peer left, POLLHUP */
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

_Noreturn void cli_exit_sigpipe(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE); /* not reached */
}

static struct etwforge_error *the_err;

static void err_free(void)
{
	etwforge_error_free(the_err);
	the_err = NULL;
}

struct etwforge_error *cli_err(void)
{
	if (!the_err) {
		the_err = etwforge_error_new();
		if (the_err) {
			atexit(err_free);
		}
	}
	return the_err;
}

int cli_exit_status(const struct etwforge_error *err)
{
	return etwforge_error_kind(err) == ETWFORGE_ERROR_INPUT ? EXIT_USAGE : EXIT_DATA;
}

int cli_error(const char *cmd, const struct etwforge_error *err)
{
	const char *msg = err ? etwforge_error_message(err) : "out of memory";

	if (etwforge_error_code(err) == -EPIPE && cli_stdout_gone()) {
		cli_exit_sigpipe(); /* the reader of standard output stopped: not an error */
	}
	fflush(stdout);
	if (etwforge_error_located(err)) {
		fprintf(stderr, "%s\n", msg);
	} else {
		fprintf(stderr, "etwforge %s: %s\n", cmd, msg);
	}
	return cli_exit_status(err);
}

/* A decimal number at *@p, advanced past it. Return: false if none or too big. */
static bool cpu_number(const char **p, unsigned long *v)
{
	const char *s = *p;

	*v = 0;
	if (*s < '0' || *s > '9') {
		return false;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		*v = *v * 10 + (unsigned long)(*s - '0');
		if (*v > 0xFFFFFFFFul) {
			return false;
		}
	}
	*p = s;
	return true;
}

int cli_parse_cpu_list(const char *s, uint8_t *mask, unsigned max, const char **why)
{
	const char *p = s;

	memset(mask, 0, max / 8);
	if (!*p) {
		*why = "an empty list";
		return -EINVAL;
	}
	for (;;) {
		unsigned long a, b;

		if (!cpu_number(&p, &a)) {
			*why = "expected a CPU number";
			return -EINVAL;
		}
		b = a;
		if (*p == '-') {
			p++;
			if (!cpu_number(&p, &b)) {
				*why = "expected the CPU number that ends a range";
				return -EINVAL;
			}
			if (b < a) {
				*why = "a range that goes down";
				return -EINVAL;
			}
		}
		if (b >= max) {
			*why = "a CPU number too large";
			return -ERANGE;
		}
		for (unsigned long c = a; c <= b; c++) {
			mask[c / 8] |= (uint8_t)(1u << (c % 8));
		}
		if (*p == '\0') {
			return 0;
		}
		if (*p != ',') {
			*why = "expected ',' between CPUs";
			return -EINVAL;
		}
		p++;
	}
}

int cli_parse_duration(const char *s, int64_t *ns, const char **why)
{
	uint64_t v;
	int rc;

	size_t digits = strspn(s, "0123456789");
	size_t frac = s[digits] == '.' ? strspn(s + digits + 1, "0123456789") : 0;
	bool bare = s[digits] == '\0' || (s[digits] == '.' && s[digits + 1 + frac] == '\0');

	/* a number without its unit, "5" or "1.5" (but 0) */
	if ((digits || frac) && bare && strspn(s, "0.") != strlen(s)) {
		*why = "needs a unit";
		return -ENOMSG;
	}
	rc = etwforge_parse_duration(s, &v);
	if (rc < 0) {
		*why = "is not a duration";
		return -EINVAL;
	}
	if (v > (uint64_t)INT64_MAX) {
		*why = "is too long";
		return -ERANGE;
	}
	*ns = (int64_t)v;
	return 0;
}
