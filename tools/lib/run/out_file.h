/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/out_file.h - every file the tool writes goes through here: one
 * rule set for ETL files, truth streams, pictures, corpus files and JSON
 * reports (DESIGN.md "Outputs").
 *
 *   - "-" is standard output.
 *   - A regular file or a new path is written under a temporary name in
 *     its folder and renamed into place only when the whole run succeeded.
 *     A symbolic link is followed: the file it points to is replaced, never
 *     the link itself.
 *   - An existing target that is not a regular file (a device such as
 *     /dev/null or /dev/full, a FIFO, a pipe or socket named /dev/stdout
 *     or /dev/fd/N) is opened by the name given and written in place,
 *     never replaced. The null device is marked (out_file.is_null): what
 *     goes there may be skipped. An ETL file written in place needs a
 *     spool for its body until the end (out_file_want_spool()): an
 *     unlinked file in $TMPDIR, else /tmp (out_spool_dir()).
 *   - The outputs of one run form a set: two that are the same file are
 *     refused before anything is created, and so is an output that is a
 *     file the run reads (out_set_input(): a scenario, a stream, an ETL); the set commits all its
 *     temporary files at once (a failed rename rolls the others back) or
 *     removes them all, so a failed or interrupted run leaves every target
 *     as it was.
 *   - out_abandon(): async-signal-safe, every temporary file of the
 *     process removed; a tool's signal handler calls it (the tool owns
 *     its signals: the library installs no handler).
 *   - out_std_guard(): descriptors 0, 1 and 2 closed at start are taken by
 *     /dev/null so no output lands there; "-" then refuses them.
 */
#ifndef TOOLS_LIB_RUN_OUT_FILE_H
#define TOOLS_LIB_RUN_OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tools/lib/common/error.h"

/** enum out_kind - how a target is written, decided when it is added. */
enum out_kind {
	OUT_RENAME = 0, /* regular file or new path: temporary beside it, renamed at commit */
	OUT_IN_PLACE, /* existing device, FIFO, pipe or socket: opened by its name, written directly */
	OUT_STDOUT, /* "-": standard output, never closed */
};

#define OUT_SET_MAX 2048 /* outputs of one run (a corpus has a few hundred) */

/**
 * struct out_file - one output of a run. Fields are read-only for users.
 * @path:   as given (for messages)
 * @label:  what asked for it ("-o", "--truth", "sessions.1.file", ...)
 * @kind:   see enum out_kind
 * @fd:     the descriptor to write once the set is open: the temporary
 *          file (OUT_RENAME, seekable), the target, or STDOUT_FILENO
 * @target: OUT_RENAME: the file the temporary replaces (symlinks resolved);
 *          OUT_IN_PLACE: the name opened
 * @tmp:    OUT_RENAME: the temporary file's name
 * @is_null: the target is the null device (/dev/null, or standard output
 *          sent there): its bytes are thrown away
 * @spool_fd: after out_set_open(), for an output that asked for one with
 *          out_file_want_spool() and is written in place (not the null
 *          device): an unlinked, seekable file in out_spool_dir(); else -1
 */
struct out_file {
	char *path;
	char *label;
	enum out_kind kind;
	int fd;
	char *target;
	char *tmp;
	bool is_null;
	int spool_fd;
	/* private */
	bool want_spool;
	FILE *stream;
	char *backup;
	bool exists;
	bool is_chr;
	dev_t dev;
	ino_t ino;
	mode_t mode;
	bool renamed;
};

/** struct out_input - a regular file the run reads (see out_set_input()). */
struct out_input {
	char *path;
	char *label;
	dev_t dev;
	ino_t ino;
};

/**
 * struct out_set - the outputs of one run. Zero-initialise, or out_set_init().
 * @files:  @n entries (@cap allocated), grown by out_set_add(); pointers to
 *          them stay valid once the set is open (no add after that)
 * @inputs: @ninputs files the run reads, that no output may be
 */
struct out_set {
	unsigned n;
	unsigned cap;
	bool open;
	struct out_file *files;
	unsigned ninputs;
	struct out_input *inputs;
};

/** out_set_init - an empty set. */
void out_set_init(struct out_set *s);

/**
 * out_set_add - add @path as an output asked for by @label, checking it
 * against the outputs already in the set. Creates nothing.
 * Return: the index of the new output (>= 0); -EEXIST when it is the same
 * file as an earlier output (@err: "LABEL PATH and LABEL2 PATH2 are the
 * same file"); -EISDIR, -ENOENT (empty path), -ELOOP (symlink loop),
 * -ENOSPC (the set is full), -ENOMEM, -EBADF ("-" while standard output
 * was closed at out_std_guard(): "LABEL -: standard output is closed"),
 * with @err filled: ERR_INPUT, but ERR_DATA for -EBADF (no mistake of the
 * command line) and -ENOMEM.
 * Character devices may be named more than once (e.g. /dev/null).
 */
int out_set_add(struct out_set *s, const char *path, const char *label, struct etwforge_error *err);

/**
 * out_set_input - @path ("-" = standard input) is read by the run, as
 * @label ("the scenario", "the stream", ...): an output that is the same
 * file, before or after, is refused, since renaming it into place would
 * destroy what the run reads. Only an existing regular file is recorded
 * (a device or FIFO read and written is what was asked; standard input
 * counts when it is a regular file).
 * Return: 0; -EEXIST when an output already added is that file (@err:
 * "LABEL PATH and LABEL2 PATH2 are the same file", ERR_INPUT); -ENOMEM
 * (ERR_DATA).
 */
int out_set_input(struct out_set *s, const char *path, const char *label,
		  struct etwforge_error *err);

/**
 * out_file_want_spool - @f is an ETL file, whose first buffer is complete
 * only at the end: when it is written in place, out_set_open() gives it a
 * spool file (@f->spool_fd) for the rest meanwhile. Not needed for a
 * regular file (its temporary is seekable) nor for the null device.
 */
void out_file_want_spool(struct out_file *f);

/**
 * out_file_spool_close - close @f's spool early (its bytes were copied),
 * giving its space back. Idempotent.
 */
void out_file_spool_close(struct out_file *f);

/**
 * out_spool_dir - the folder spool files go in: $TMPDIR when set and not
 * empty, else "/tmp" (for messages: where the space ran out).
 */
const char *out_spool_dir(void);

/**
 * out_set_open - create every temporary file and spool file, and open
 * every in-place target. Call once, after the last out_set_add().
 * Return: 0, or a negative errno with @err = "PATH: cannot create: why"
 * (or "PATH: cannot spool in DIR (TMPDIR): why"), ERR_DATA; then nothing is left
 * behind (the set is aborted).
 */
int out_set_open(struct out_set *s, struct etwforge_error *err);

/** out_set_file - output @i (NULL past the end). */
struct out_file *out_set_file(struct out_set *s, unsigned i);

/**
 * out_file_stream - a stdio stream on @f's descriptor (standard output's
 * for "-"), made on first use and flushed by out_set_commit().
 * Return: the stream, or NULL with errno set.
 */
FILE *out_file_stream(struct out_file *f);

/**
 * out_file_close - finish @f early: flush its stream, sync and close its
 * descriptor, so a run with many outputs holds few open at once. The
 * temporary file stays and is renamed into place by out_set_commit() (or
 * removed by out_set_abort()). Standard output is only flushed.
 * Return: 0, or a negative errno (a write error: the run should abort).
 */
int out_file_close(struct out_file *f);

/**
 * out_set_commit - flush every stream, sync and close every temporary file,
 * then rename each into place with the signals that call out_abandon()
 * blocked. A rename that fails puts back the targets already replaced. A
 * signal that arrived before the renames started aborts instead.
 * Return: 0, or a negative errno with @err ("PATH: write failed: why",
 * ERR_DATA); every target is then as it was and no temporary file is left.
 */
int out_set_commit(struct out_set *s, struct etwforge_error *err);

/**
 * out_set_abort - remove every temporary file and close what was opened.
 * Idempotent; harmless on a committed set.
 */
void out_set_abort(struct out_set *s);

/** out_set_free - out_set_abort() and free the names. */
void out_set_free(struct out_set *s);

/**
 * out_abandon - remove the temporary file of every output set in progress,
 * and the folders made for them while still empty. Async-signal-safe
 * (unlink, rmdir): for a signal handler, before it exits. Targets are
 * never touched: they are as they were before the run.
 */
void out_abandon(void);

/**
 * out_std_guard - once per process, before anything is opened (gnulib's
 * stdopen): each of descriptors 0, 1, 2 that is closed gets /dev/null,
 * opened the other way round (standard input for writing, the others for
 * reading) so a stray use fails instead of reading or writing nothing,
 * and above all so that no file opened later becomes standard output.
 * Return: bit N set when descriptor N was closed (also later calls).
 */
unsigned out_std_guard(void);

/** out_std_closed - was descriptor @fd (0..2) closed at out_std_guard()? */
bool out_std_closed(int fd);

/**
 * out_dir_make - make the folder @path for a run's outputs when it is not
 * there (as `corpus --out DIR` does). A folder made here is removed again
 * by out_abandon() (when still empty) and by
 * out_dir_done(@path, false), so a failed or interrupted run leaves
 * nothing behind.
 * Return: 1 made, 0 already there, or a negative errno with @err
 * (-ENOTDIR: something else is at @path, ERR_INPUT; the rest ERR_DATA).
 */
int out_dir_make(const char *path, struct etwforge_error *err);

/**
 * out_dir_done - the run that made @path with out_dir_make() is over: keep
 * the folder (@keep, after out_set_commit()) or remove it (when empty).
 */
void out_dir_done(const char *path, bool keep);

/**
 * out_is_regular_target - would @path be written through a temporary file
 * (a regular file or a new path, after following symbolic links)? False
 * for "-", devices, FIFOs, pipes and sockets: derived file names are never
 * made from those.
 */
bool out_is_regular_target(const char *path);

#endif /* TOOLS_LIB_RUN_OUT_FILE_H */
