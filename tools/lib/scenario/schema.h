/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/scenario/schema.h - a generic binder of YAML (or JSON) documents to C
 * structs. A schema is a table of key descriptors (struct sk_desc): each
 * names a key, how its value is read and checked, and where in the struct
 * it goes. The binder walks a yaml_tree against the tables, stores each
 * value, and answers every mistake with one line
 * `file:line:col: key.path: what is wrong`, with a "did you mean" when a
 * name is close to a known one. It also applies `--set key.path=value`
 * overrides and remembers where each key got its value, so checks made
 * later, across keys, can point at the right place.
 *
 * It knows no document type: the struct the top-level keys live in (the
 * "root") is a void *, and keys whose value needs more than a range check
 * are SK_CUSTOM with their own apply and print functions, built from the
 * sk_ helpers below. tools/lib/scenario.c is its user.
 */
#ifndef TOOLS_LIB_SCHEMA_H
#define TOOLS_LIB_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/lib/common/suggest.h"
#include "tools/lib/scenario/yaml_tree.h"

#if defined(__GNUC__)
#define SK_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define SK_PRINTF_LIKE(f, a)
#endif

#define SK_NS_PER_US UINT64_C(1000)
#define SK_NS_PER_MS UINT64_C(1000000)
#define SK_NS_PER_S  UINT64_C(1000000000)

#define SK_PATH_MAX  64	  /* a remembered key path such as "threads.12.wait_reasons.WrQueue" */
#define SK_WHERE_MAX 1536 /* remembered key positions */

/** enum sk_kind - how a key's value is read, stored and printed. */
enum sk_kind {
	SK_UINT = 0, /* unsigned integer of @size bytes in [@min, @max], a multiple of @multiple */
	SK_BOOL,     /* bool */
	SK_STR,	     /* char[@size], at least @min bytes */
	SK_DUR,	     /* uint64_t nanoseconds in [@min, @max] */
	SK_ENUM,     /* an enum (int-sized) named by @names[value]; numbers too if @numeric */
	SK_MAP,	     /* nested map of @sub keys, same base */
	SK_LIST,     /* top-level list of @sub items, see struct sk_list */
	SK_CUSTOM,   /* @apply / @print */
};

/* where a value came from */
enum {
	SK_SRC_DEFAULT = 0, /* built in: nothing set it */
	SK_SRC_FILE,	    /* the document loaded */
	SK_SRC_SET,	    /* a --set assignment */
};

/**
 * struct sk_where - where a key got its value.
 * @path: dotted key path ("machine.cpus", "sessions.1.flags")
 * @src:  SK_SRC_*
 * @line: 1-based line of the value
 * @col:  1-based column of it
 */
struct sk_where {
	char path[SK_PATH_MAX];
	uint8_t src;
	uint32_t line;
	uint32_t col;
};

#define SK_NOTES_MAX 8 /* notes kept per document (the first ones) */

/**
 * struct sk_note - a value taken as written that may not be what was meant
 * (a bare number of nanoseconds below a microsecond): the run goes on, the
 * tool says it. Current while @path still has its value from @line:@col.
 * @msg: "FILE:LINE:COL: KEY: what"
 */
struct sk_note {
	char path[SK_PATH_MAX];
	uint32_t line;
	uint32_t col;
	char msg[256];
};

/**
 * struct sk_where_log - the positions of the keys set so far, newest
 * value per path. A document embeds one and zeroes it with itself; when
 * full, further keys are not remembered (errors then point at a parent).
 * @n:  entries in use
 * @at: the entries
 */
struct sk_where_log {
	unsigned n;
	struct sk_where at[SK_WHERE_MAX];
	unsigned nnotes;
	struct sk_note notes[SK_NOTES_MAX];
};

struct sk_desc;

/**
 * struct sk_schema - a document type.
 * @keys: its top-level keys
 * @name: the document in messages, for an error at the top ("scenario")
 */
struct sk_schema {
	const struct sk_desc *keys;
	const char *name;
};

/**
 * struct sk_walk - the state of one walk (a document or one --set).
 * @schema: the document type
 * @root:   the struct top-level keys and lists are stored in
 * @log:    where each key got its value
 * @file:   source name in messages ("busy.yaml", "--set")
 * @src:    SK_SRC_FILE or SK_SRC_SET
 * @item:   index of the list item being applied
 * @path:   dotted key path of the value being applied
 * @plen:   its length
 * @err:    the one-line message on failure (ERR_INPUT, located)
 */
struct sk_walk {
	const struct sk_schema *schema;
	void *root;
	struct sk_where_log *log;
	const char *file;
	uint8_t src;
	unsigned item;
	char path[256];
	size_t plen;
	struct etwforge_error *err;
};

typedef int (*sk_apply_fn)(struct sk_walk *w, const struct sk_desc *d, void *base,
			   const struct yt_node *n);
typedef void (*sk_print_fn)(FILE *f, const void *root, const struct sk_desc *d, const void *base,
			    unsigned item);
typedef int (*sk_set_key_fn)(struct sk_walk *w, const struct sk_desc *d, void *base,
			     const char *key, uint32_t col, const struct yt_node *v);

/**
 * struct sk_list - a list of items stored in the root struct.
 * @count_off: offset of its unsigned count in the root
 * @items_off: offset of item 0 in the root
 * @stride:    item size
 * @min/@max:  allowed item counts
 * @noun:      "sessions", "groups", "locks" (for messages)
 * @why_max:   what the maximum is ("system loggers")
 * @init:      set item @i of @root to the item defaults (and its extras)
 * @done:      after a new item's keys: defaults that depend on them
 */
struct sk_list {
	size_t count_off;
	size_t items_off;
	size_t stride;
	unsigned min;
	unsigned max;
	const char *noun;
	const char *why_max;
	void (*init)(void *root, unsigned i);
	void (*done)(void *root, unsigned i, const struct yt_node *item);
};

/**
 * struct sk_desc - one key. Tables end with a NULL @key.
 * @off:     field offset from the base: the root for top-level and map
 *           keys, the list item for item keys
 * @set_key: custom maps with free keys (wait_reasons): set one key from a
 *           --set path such as threads.0.wait_reasons.WrQueue
 */
struct sk_desc {
	const char *key;
	enum sk_kind kind;
	size_t off;
	unsigned size;
	uint64_t min;
	uint64_t max;
	uint64_t multiple;
	const char *const *names;
	unsigned nnames;
	bool numeric;
	const struct sk_desc *sub;
	const struct sk_list *list;
	sk_apply_fn apply;
	sk_print_fn print;
	sk_set_key_fn set_key;
};

/* ---- applying a document or an override ----------------------------------- */

/**
 * sk_load - apply YAML/JSON @text (a map of @schema's keys) over @root.
 * @schema: the document type
 * @root:   the struct they are stored in
 * @log:    where each key got its value (updated)
 * @name:   the source name in messages
 * @text:   the document (need not be NUL-terminated)
 * @len:    its length
 * @err:    one line on failure (ERR_INPUT, located; NULL allowed)
 * Return: 0 (an empty document changes nothing), -EINVAL or -ENOMEM. On
 * failure @root is partly applied.
 */
int sk_load(const struct sk_schema *schema, void *root, struct sk_where_log *log, const char *name,
	    const char *text, size_t len, struct etwforge_error *err);

/**
 * sk_set - apply one `key.path=value` override over @root.
 * @assignment: list items are named by index and must exist; the value is
 *              a YAML scalar or flow node. A map value merges, a list value
 *              replaces. Errors are reported as `--set:1:COL:`, COL being
 *              the column in @assignment.
 * The other parameters are as for sk_load().
 * Return: 0, -EINVAL or -ENOMEM.
 */
int sk_set(const struct sk_schema *schema, void *root, struct sk_where_log *log,
	   const char *assignment, struct etwforge_error *err);

/** sk_item - list item @i of @d (a SK_LIST) in @root. */
void *sk_item(const void *root, const struct sk_desc *d, unsigned i);
/** sk_count - items in list @d. */
unsigned sk_count(const void *root, const struct sk_desc *d);

/* ---- key paths and errors --------------------------------------------------- */

/** sk_push - append @key to @w's path. Return: the length to sk_pop() back to. */
size_t sk_push(struct sk_walk *w, const char *key);
/** sk_push_index - append list index @i to @w's path. Return: as sk_push(). */
size_t sk_push_index(struct sk_walk *w, unsigned i);
/** sk_pop - cut @w's path back to length @old. */
void sk_pop(struct sk_walk *w, size_t old);

/**
 * sk_fail - report a bad node: `file:line:col: key.path: ...` at @n's
 * position, kept on one line. Return: -EINVAL.
 */
SK_PRINTF_LIKE(3, 4)
int sk_fail(struct sk_walk *w, const struct yt_node *n, const char *fmt, ...);

/** sk_fail_at - as sk_fail(), at @line:@col. Return: -EINVAL. */
SK_PRINTF_LIKE(4, 5)
int sk_fail_at(struct sk_walk *w, uint32_t line, uint32_t col, const char *fmt, ...);

/**
 * sk_fail_key - report @path at the position that set it last (or its
 * nearest remembered parent), for checks made after the walk.
 * @log:    where keys got their values
 * @source: the file name of SK_SRC_FILE entries ("--set" is used for
 *          SK_SRC_SET, "(default)" with 0:0 when nothing set the key)
 * @path:   the key, not empty ("sessions.1.name")
 * Return: -EINVAL.
 */
SK_PRINTF_LIKE(5, 6)
int sk_fail_key(const struct sk_where_log *log, const char *source, struct etwforge_error *err,
		const char *path, const char *fmt, ...);

/** sk_where_put - remember that @path got its value at @line:@col (from w->src). */
void sk_where_put(struct sk_walk *w, const char *path, uint32_t line, uint32_t col);
/**
 * sk_note_current - note @i of @log, if the value it is about is still the
 * one it was written for (no later --set or list replaced it); else NULL.
 */
const char *sk_note_current(const struct sk_where_log *log, unsigned i);

/** sk_where_has - did something (the document or a --set) give @path a value? */
bool sk_where_has(const struct sk_where_log *log, const char *path);
/** sk_where_drop_under - forget the positions below @path (a list or mix replaced). */
void sk_where_drop_under(struct sk_where_log *log, const char *path);

/* ---- values ------------------------------------------------------------------ */

/**
 * sk_parse_u64 - decimal or 0x hex, optional '+'.
 * Return: 0, -EINVAL (not a number) or -ERANGE (above 2^64 - 1).
 */
int sk_parse_u64(const char *s, uint64_t *out);

/**
 * sk_parse_duration - an integer is nanoseconds; otherwise a decimal number
 * and a unit (ns, us, ms, s, min, h), computed exactly: "1.5s" is
 * 1500000000 and "1.5ns" is refused.
 * Return: 0, -EINVAL (not a duration), -EDOM (not a whole ns), -ERANGE
 * (above 2^64 - 1 ns).
 */
int sk_parse_duration(const char *s, uint64_t *out);
/** sk_format_duration - "2s", "500ms", "31250us", "7ns" or "0". */
void sk_format_duration(char *buf, size_t len, uint64_t ns);
/** sk_copy_str - @src into char[@size] @dst, cut to fit, zero-filled. */
void sk_copy_str(char *dst, size_t size, const char *src);

/**
 * sk_need_scalar - @n is a scalar with a value (any quoting), else an
 * error saying it must be @what. Return: 0 or -EINVAL.
 */
int sk_need_scalar(struct sk_walk *w, const struct yt_node *n, const char *what);
/**
 * sk_need_list - @n is a list of at most @max @what (null = empty).
 * @count: its length (0 on error)
 * Return: 0 or -EINVAL.
 */
int sk_need_list(struct sk_walk *w, const struct yt_node *n, const char *what, size_t max,
		 size_t *count);

/**
 * sk_get_uint - an unquoted integer in [@min, @max].
 * @out: the value, 0 on error
 * Return: 0 or -EINVAL.
 */
int sk_get_uint(struct sk_walk *w, const struct yt_node *n, uint64_t min, uint64_t max,
		uint64_t *out);
/**
 * sk_get_duration - integer nanoseconds, or an exact decimal and a unit
 * (ns, us, ms, s, min, h), in [@min, @max] ns.
 * @out: the value, 0 on error
 * Return: 0 or -EINVAL.
 */
int sk_get_duration(struct sk_walk *w, const struct yt_node *n, uint64_t min, uint64_t max,
		    uint64_t *out);
/**
 * sk_get_str - a string (null = "") of @min..@size - 1 bytes.
 * @out: points into @n
 * Return: 0 or -EINVAL.
 */
int sk_get_str(struct sk_walk *w, const struct yt_node *n, size_t min, size_t size,
	       const char **out);
/**
 * sk_get_enum - one of @names (NULLs skipped) by name, or, if @numeric and
 * unquoted, by its index.
 * @out: the index, 0 on error
 * Return: 0 or -EINVAL.
 */
int sk_get_enum(struct sk_walk *w, const struct yt_node *n, const char *const *names,
		unsigned nnames, bool numeric, unsigned *out);

#endif /* TOOLS_LIB_SCHEMA_H */
