/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/read/read_internal.h - what the files of the read room share:
 * the file handle (file.c), the public views of records and events built
 * from the framing reader's records (record_view.c), for the iterator in
 * file and CPU order (iter.c) and in time order (iter_time.c).
 */
#ifndef TOOLS_LIB_READ_READ_INTERNAL_H
#define TOOLS_LIB_READ_READ_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "etwforge/etwforge.h"
#include "producer/etw_encode.h"
#include "tools/lib/read/event_stream.h"
#include "writer/etl_reader.h"

/* One damaged place: the public view, and the message it points to. */
struct file_damage {
	struct etwforge_damage pub;
	char msg[256];
};

struct etwforge_file {
	struct etl_reader *d;
	struct etwforge_file_info info; /* its strings point to the three below */
	char name[4096];
	char logger_name[256];
	char logfile_name[512];
	struct file_damage *damage;
	unsigned ndamage;
	bool keep_going; /* opened with ETWFORGE_OPEN_KEEP_GOING */
};

/**
 * read_reader_fail - @e (a framing reader's error) into @err: INPUT when
 * the path named nothing readable, else DATA. Return: @code.
 */
int read_reader_fail(struct etwforge_error *err, const struct etl_error *e, int code);

/*
 * struct rec_store - a record's public view and what its pointers point to
 * (valid until the store converts another record). @data (NULL: empty)
 * names the record converted, for the batch records of compact switches
 * (every switch of a batch carries its record, decoded once per batch
 * instead of once per switch; the reader hands out each record's bytes at
 * one place for its lifetime).
 */
struct rec_store {
	const uint8_t *data;
	struct etwforge_record rec;
	char provider[40];
	uint64_t pmc[7];
	uint32_t tid_table[16];
	int8_t base_pri[16];
	uint32_t masks[ETW_GROUP_MASKS];
	char *str; /* the strings of an identity record (malloc'd, grown to fit) */
	size_t str_len, str_cap;
	uint64_t *frames; /* the frames of a stack record, widened (malloc'd, grown to fit) */
	size_t frames_cap;
};

/** rv_store_free - free what @st holds (not @st); it is empty again. */
void rv_store_free(struct rec_store *st);

/** rv_conv_record - the public view of record @r of buffer @buffer, its payload decoded, in @st. */
void rv_conv_record(const struct etl_record *r, unsigned buffer, struct rec_store *st);

/**
 * rv_may_give_event - can record @r give an event of @kinds other than
 * ETWFORGE_EV_RECORD? Checked before converting it: most records of a
 * file, most of the time, are not asked for.
 */
bool rv_may_give_event(unsigned kinds, const struct etl_record *r);

/**
 * rv_record_event - the event of @kinds (not RECORD, BUFFER or COMPACT)
 * that record @r of buffer @buffer is, into @ev, its record in @st.
 * Return: true when it is one.
 */
bool rv_record_event(unsigned kinds, const struct etl_record *r, unsigned buffer,
		     struct rec_store *st, struct etwforge_event *ev);

/**
 * rv_conv_dec_event - @ev (a compact switch, plain CSwitch, spin lock or
 * ReadyThread of a CPU's cursor) as a public event into @o; a compact
 * switch's batch record in @batch (converted once per batch), the others'
 * records in @cur.
 */
void rv_conv_dec_event(const struct dec_event *ev, struct rec_store *batch, struct rec_store *cur,
		       struct etwforge_event *o);

/** rv_conv_buffer - buffer @b as an ETWFORGE_EV_BUFFER event. */
void rv_conv_buffer(const struct etl_buffer *b, struct etwforge_event *o);

/* The iterator's two halves: file and CPU order (iter.c), time order (iter_time.c). */
struct iter_list;
struct iter_time;

struct iter_list *iter_list_new(struct etwforge_file *f, enum etwforge_order order, unsigned kinds);
int iter_list_next(struct iter_list *it, const struct etwforge_event **out,
		   struct etwforge_error *err);
void iter_list_free(struct iter_list *it);

/* @raw: compact switches handed out as struct read_switch (iter_time_next_raw()) */
struct iter_time *iter_time_new(struct etwforge_file *f, unsigned kinds, bool raw);
int iter_time_next(struct iter_time *it, const struct etwforge_event **out,
		   struct etwforge_error *err);
struct read_switch;
int iter_time_next_raw(struct iter_time *it, const struct etwforge_event **out,
		       const struct read_switch **sw, struct etwforge_error *err);
void iter_time_free(struct iter_time *it);

#endif /* TOOLS_LIB_READ_READ_INTERNAL_H */
