/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/verify_ident.h - verify's identity part (verify_ident.c):
 * the process, thread, thread_name, ready, sample, interval, config, masks
 * and rundown records of one session against the truth's lines, CPU by CPU,
 * in order relative to the switches and spin locks verify.c checks.
 *
 * verify.c tells it each switch, spin-lock or batch record it has matched
 * (vident_placed(), in truth order), hands it each identity line
 * (vident_line()) and asks it at the end (vident_end()) whether the file
 * holds identity records the truth does not have.
 */
#ifndef TOOLS_LIB_RUN_VERIFY_IDENT_H
#define TOOLS_LIB_RUN_VERIFY_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/lib/common/error.h"
#include "tools/lib/config/trace_config.h"
#include "tools/lib/truth/truth.h"
#include "writer/etl_reader.h"

struct vident_cpu;

/**
 * struct verify_ident - the identity walk of one session's file.
 * @n: identity records verified so far
 * The rest is set by vident_init() and private to verify_ident.c.
 */
struct verify_ident {
	const char *file;
	const char *truth_path;
	const struct trace_config *cfg;
	const struct trace_session_cfg *s;
	const struct etl_reader *d;
	struct etwforge_error *err;
	struct vident_cpu *cpus;
	struct stack_cache **caches; /* per CPU: the producer's stack cache, replayed */
	char *text;		     /* one decoded string in UTF-8 */
	size_t text_cap;
	unsigned long line; /* the truth line being checked */
	char what[96];	    /* how messages name it: "thread dcstart tid 4100" */
	uint64_t n;
};

/** vident_init - ready to walk @d as session @s of @cfg. Return: 0 or -ENOMEM (@err set). */
int vident_init(struct verify_ident *vi, const char *file, const char *truth_path,
		const struct trace_config *cfg, const struct trace_session_cfg *s,
		const struct etl_reader *d, struct etwforge_error *err);
void vident_free(struct verify_ident *vi);

/** vident_wants - true if the session gets truth lines of @kind (TRUTH_PROCESS..TRUTH_RUNDOWN). */
bool vident_wants(const struct verify_ident *vi, int kind);

/** vident_placed - verify.c matched one more switch, batch or spin-lock record on @cpu. */
void vident_placed(struct verify_ident *vi, unsigned cpu);

/**
 * vident_line - check truth line @rec (of @kind, an identity kind) against
 * the next identity record of its CPU. Return: 0, or a negative errno with
 * @err set (-EBADMSG a mismatch, -EINVAL a file that does not read).
 */
int vident_line(struct verify_ident *vi, int kind, const struct truth_record *rec);

/**
 * vident_end - after the truth's end (at @end_ts): each CPU's stack keys
 * still cached are run down (KeyRundown), then no CPU may hold an identity
 * record left.
 */
int vident_end(struct verify_ident *vi, const uint64_t end_ts[SIM_CLOCK_SLOTS]);

#endif /* TOOLS_LIB_RUN_VERIFY_IDENT_H */
