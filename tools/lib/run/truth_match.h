/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/run/truth_match.h - does a truth belong to an ETL file? Its meta
 * line describes the machine and the sessions gen (or replay) wrote the
 * file for; the file's logfile header carries the same values. A truth
 * of another run (another machine, another start, another session) is
 * refused by dump --truth and verify before anything is drawn or checked.
 */
#ifndef ETWFORGE_TOOLS_LIB_TRUTH_MATCH_H
#define ETWFORGE_TOOLS_LIB_TRUTH_MATCH_H

#include <stddef.h>

#include "tools/lib/common/error.h"
#include "tools/lib/config/trace_config.h"
#include "writer/etl_reader.h"

/**
 * truth_match - compare the truth @truth (its meta line read into @cfg)
 * with the file @etl (its logfile header @lf): the machine (processors,
 * pointer size, build, clock tick, CPU MHz, QPC frequency, start and boot
 * time) and the session the file's LoggerName names (its clock type and
 * buffer size).
 * @session: the session to hold the file against (-1: the one named by
 *           LoggerName, which must exist)
 * Return: 0, or -EBADMSG with `TRUTH is not the truth of ETL: ...` in @err
 * (ERR_DATA, located).
 */
int truth_match(const struct trace_config *cfg, int session, const struct etl_logfile *lf,
		const char *truth, const char *etl, struct etwforge_error *err);

#endif
