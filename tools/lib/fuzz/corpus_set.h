/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fuzz/corpus_set.h - the fuzzing corpus in memory, private to the
 * library: its ETL files (valid or mangled) with what `etwforge dump` must
 * say of each, and the truth streams the valid ones were replayed from.
 * The catalogue (corpus_cat.h) and the mangle rules (mangle.h) fill it;
 * corpus.c writes it out.
 */
#ifndef ETWFORGE_TOOLS_LIB_FUZZ_CORPUS_SET_H
#define ETWFORGE_TOOLS_LIB_FUZZ_CORPUS_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/lib/config/trace_config.h"

#define CORPUS_ID_MAX	 96
#define CORPUS_MARKS_MAX 64

/** enum corpus_mark_kind - what a mark points at, in a CPU's event order. */
enum corpus_mark_kind {
	CORPUS_MARK_SWITCH = 0, /* the @index-th switch of the CPU (plain or compact) */
	CORPUS_MARK_SPIN,	/* the @index-th logged spin lock of the CPU */
	CORPUS_MARK_RECORD,	/* the @index-th record of hook @hook in the CPU's buffers */
};

/** struct corpus_mark - a record that matters, named when the stream is built. */
struct corpus_mark {
	char what[96];
	enum corpus_mark_kind kind;
	unsigned cpu;
	uint64_t index;
	uint16_t hook; /* CORPUS_MARK_RECORD */
};

/** struct corpus_offset - a mark found in a file: where its record is. */
struct corpus_offset {
	char what[96];
	bool found;
	uint64_t record; /* the record (a compact switch: its record inside the batch) */
	bool in_batch;
	uint64_t batch; /* the 0x0525 record holding it */
	const char *form;
};

/** struct corpus_stream - one edge case's truth stream (JSON Lines). */
struct corpus_stream {
	char name[CORPUS_ID_MAX + 16]; /* "ID.truth.jsonl" */
	char *text;
	size_t len;
};

/**
 * struct corpus_expect - what `etwforge dump` must report for a mangled file.
 * @status:  its exit status (0: it reads the file; 1: the one-line error)
 * @cls:     a short name for the rule the reader applies ("record-size-zero")
 * @offset:  where the error is reported (status 1)
 * @message: a piece of the error line (status 1), or of the decode (status 0)
 */
struct corpus_expect {
	int status;
	const char *cls;
	uint64_t offset;
	const char *message;
};

/** struct corpus_file - one ETL file of the corpus, valid or mangled. */
struct corpus_file {
	char id[CORPUS_ID_MAX];
	char file[CORPUS_ID_MAX + 8]; /* "ID.etl" */
	char desc[256];
	bool mangled;
	int stream; /* index into corpus.streams (-1: none) */
	char session[TRACE_NAME_MAX];
	bool verifies; /* verify against the stream must pass (false: events were lost) */
	uint8_t *data;
	size_t len;
	uint64_t xxh3;
	char *expected; /* what `dump --jsonl ID.etl` prints */
	size_t expected_len;
	struct corpus_offset offs[CORPUS_MARKS_MAX];
	unsigned noffs;
	/* mangled only */
	char base[CORPUS_ID_MAX]; /* the valid file it was made from */
	const char *rule;
	uint64_t at; /* first byte changed */
	struct corpus_expect expect;
	/* mutants only (`corpus --mutants`): its index, the file lending records */
	uint64_t index;
	char other[CORPUS_ID_MAX];
	char mutation[192];
};

/** struct corpus - everything one run writes. */
struct corpus {
	uint64_t seed;
	struct corpus_file *files;
	unsigned n, cap;
	struct corpus_stream *streams;
	unsigned nstreams, scap;
};

/** struct corpus_pending - an entry of the catalogue not made yet, and why. */
struct corpus_pending {
	const char *id;
	const char *why;
};

/**
 * corpus_add_file - a new zeroed entry at the end of @c->files.
 * Return: it, or NULL (ENOMEM).
 */
struct corpus_file *corpus_add_file(struct corpus *c);

/** corpus_find - the file with @id, or NULL. */
struct corpus_file *corpus_find(struct corpus *c, const char *id);

/**
 * corpus_decode - the expected decode (what `etwforge dump --jsonl` prints
 * for @f, named @f->file) and the offsets of @marks (@nmarks) in it.
 * Return: 0 or -ENOMEM.
 */
int corpus_decode(struct corpus_file *f, const struct corpus_mark *marks, unsigned nmarks);

/** corpus_free - free everything @c holds. */
void corpus_free(struct corpus *c);

/* A growing text (the expected decodes, and corpus.c's other outputs). */
struct text {
	char *p;
	size_t len, cap;
	bool oom; /* an allocation failed: the text is incomplete */
};

/** text_add - @n bytes of @s at the end of @t, NUL-terminated. */
void text_add(struct text *t, const char *s, size_t n);

struct jout;

/** text_add_json - the JSON object @j wrote into its @cap-byte buffer, and a line break. */
void text_add_json(struct text *t, struct jout *j, const char *buf, size_t cap);

/** text_take - the text, its length in *@len; NULL (and freed) when an allocation failed. */
char *text_take(struct text *t, size_t *len);

#endif
