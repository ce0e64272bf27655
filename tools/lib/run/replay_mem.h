/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/replay_mem.h - replay a truth stream held in memory into ETL
 * images in memory: the path every corpus file is built through (the
 * stream is checked line by line as `etwforge replay` checks a file, then
 * encoded by the same producer and writers).
 */
#ifndef TOOLS_LIB_REPLAY_MEM_H
#define TOOLS_LIB_REPLAY_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "tools/lib/common/error.h"
#include "tools/lib/config/trace_config.h"

/**
 * replay_mem - read the truth stream @text (@len bytes, named @name in
 * messages) into *@cfg and encode it: session i's file image in @data[i]
 * (malloc'd, the caller frees it), @lens[i] bytes, i < @cfg->nsessions.
 * Return: 0, or -EINVAL with @err = `name:line: what is wrong`, or another
 * negative errno (an event larger than a buffer: -E2BIG, -ENOMEM); ERR_DATA
 * (the stream is the library's own); a message that is not located.
 */
int replay_mem(const char *name, const char *text, size_t len, struct trace_config *cfg,
	       uint8_t *data[SIM_MAX_SESSIONS], size_t lens[SIM_MAX_SESSIONS],
	       struct etwforge_error *err);

#endif /* TOOLS_LIB_REPLAY_MEM_H */
