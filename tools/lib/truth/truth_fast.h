/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/truth/truth_fast.h - the fast path of the truth reader, private to
 * truth_read.c: one record line parsed in a single pass made for the
 * schema (keys in any order, unknown keys skipped, every extension) with
 * no allocation. It accepts a line only when the jansson path would accept
 * it with the same record; anything else - a syntax or range error, an
 * escaped or non-ASCII string, a real number, deep nesting - it declines,
 * and truth_read.c reads that line with jansson, which gives the record or
 * the one error message the stream has always given.
 */
#ifndef TOOLS_LIB_TRUTH_FAST_H
#define TOOLS_LIB_TRUTH_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/lib/truth/truth.h"

/* a switch line's fields, clocks and counters included */
#define TRUTH_TPL_STEPS                                                                            \
	(0 SIM_CSWITCH_FIELDS(TRUTH_COUNT_ROW, TRUTH_NO_CHECK, ) + SIM_CLOCK_SLOTS + SIM_MAX_PMC)
#define TRUTH_TPL_WORDS 5 /* the longest text between two values: 40 bytes */

/*
 * struct truth_tpl_step - a piece of the switch line gen writes: this text,
 * then the value of @field (a field of the line, in truth_fast.c).
 */
struct truth_tpl_step {
	unsigned char field;
	unsigned char len;
	unsigned char words; /* 8-byte words of @w */
	uint64_t w[TRUTH_TPL_WORDS];
	uint64_t m[TRUTH_TPL_WORDS]; /* the bytes of each word that hold text */
};

/**
 * struct truth_fast - what a line is checked against: the configuration of
 * the meta line and what follows from it. Set by truth_fast_init().
 * @tpl: the switch line exactly as gen writes it for this configuration
 *       (@ntpl steps; 0: none, as when "pmc" is an object), matched before
 *       the general parse
 */
struct truth_fast {
	const struct trace_config *cfg;
	bool used[SIM_CLOCK_SLOTS]; /* clocks some session uses */
	unsigned nstamp[TRUTH_NSTAMP],
		stamp[TRUTH_NSTAMP][SIM_MAX_SESSIONS]; /* stamping sessions */
	size_t name_len[SIM_MAX_SESSIONS];
	unsigned ntpl;
	struct truth_tpl_step tpl[TRUTH_TPL_STEPS];
	bool pebs;     /* a session has PEBS: the line has "pebs_index" */
	bool pmc_list; /* the stamping sessions agree: "pmc" is a list */
};

/* Identity strings one line may hold (a process has the most: image, command line, SID, ...). */
#define TRUTH_FAST_TEXTS 8

/* Readable bytes a buffer given to truth_fast_cswitch() has past its end. */
#define TRUTH_FAST_PAD 64

/**
 * struct truth_fast_opt - which optional keys a line had, for the defaults
 * that depend on the reader's history (truth_read.c applies them).
 * @tick:  "tick" was given
 * @ts:    bit c: clock c was given in "ts"
 * @name:  the spin lock's "name" (not NUL-terminated), NULL if absent
 * @text:  the identity strings given (@ntext of them), for the reader to
 *         keep a copy of and point the record's members at
 */
struct truth_fast_opt {
	bool tick;
	unsigned ts;
	const char *name;
	size_t name_len;
	unsigned ntext;
	struct {
		const char **to; /* the record's member */
		const char *s;	 /* the string's bytes, not NUL-terminated */
		size_t n;
	} text[TRUTH_FAST_TEXTS];
};

/** truth_fast_init - @fx for the stream whose meta line gave @cfg (kept by pointer). */
void truth_fast_init(struct truth_fast *fx, const struct trace_config *cfg);

/**
 * truth_fast_line - parse the record line @s (@n bytes, its terminator
 * removed). @s[@n] must be a NUL (a sentinel: scanning loops stop there
 * without a bounds check); the parser reads nothing past it.
 * @rec must be zeroed by the caller (truth_next does): fields without a
 * key stay 0, but a spin lock's depth, which is 1.
 * Return: the kind (TRUTH_CSWITCH ... TRUTH_THREAD) with @rec->u and @opt
 * filled (@rec->kind and @rec->line untouched), or 0: declined, read the
 * line with jansson (@rec->u may be partly written).
 */
int truth_fast_line(const struct truth_fast *fx, const char *s, size_t n, struct truth_record *rec,
		    struct truth_fast_opt *opt);

/**
 * truth_fast_cswitch - the switch line at @p exactly as gen writes it for
 * this configuration (the template of truth_fast_init()), read in one pass
 * without a look for its end first: keys compared as constant words,
 * integers eight digits at a time, each value range-checked as the other
 * paths do, and the line's own check (a Waiting thread's wait reason).
 * The buffer must hold TRUTH_FAST_PAD readable bytes past @end.
 * Return: past the line's '\n' (before @end) with @cs filled, or NULL:
 * not that text (nothing is consumed; the caller reads the line the
 * general way, @cs may be partly written).
 */
const char *truth_fast_cswitch(const struct truth_fast *fx, const char *p, const char *end,
			       struct sim_cswitch *cs);

/**
 * truth_reader_fast - use the fast path (@on, the default) or read every
 * line with jansson: for the tests and the fuzz target that check the two
 * agree on every line.
 */
void truth_reader_fast(struct truth_reader *r, bool on);

#endif /* TOOLS_LIB_TRUTH_FAST_H */
