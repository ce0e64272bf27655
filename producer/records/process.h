/* SPDX-License-Identifier: MIT */
/*
 * producer/records/process.h - the process records, described once (STYLE.md
 * B5): Start 0x0301, End 0x0302, DCStart 0x0303, DCEnd 0x0304, Defunct
 * 0x0327 and Terminate 0x030B. Encoded and decoded by producer/etw_process.c;
 * the ETW_ tables drive the reader's public structs and dump's JSON
 * (tools/lib/read/file.c, event_json.c); the SIM_ tables
 * are the truth lines and what the identity model fires (trace_sink.h).
 *
 * SIM_PROCESS_FIELDS(F, C, x) - what the machine would tell the logging code
 * about a process event, and the truth's "process" line, in the line's order.
 * The columns of SIM_CSWITCH_FIELDS (producer/records/cswitch.h):
 *   F(x, name, ctype, how, lo, hi, need, dflt, when)
 * with three "how"s the truth does not have yet: SID (a string
 * "S-1-5-21-..."; absent: the NULL form), EVENT here names the event
 * (start, end, dcstart, dcend, defunct), and STR is UTF-8 (the encoder
 * transcodes it, etw_wstr_from_utf8()).
 *
 * ETW_PROCESS_FIELDS(F, x) - WMI_PROCESS_INFORMATION v4/v5, as the decoder's
 * struct etw_process *w holds it, in wire order:
 *   F(x, name, ctype, json, jwhen, from, at64, at32, what)
 *     name        the member of the public struct, and its JSON key
 *     ctype       its C type
 *     json        how dump prints it: U, I, HEX, SID (string), ASTR
 *                 (ANSI, read as Latin-1), WSTR (UTF-16 -> UTF-8); the
 *                 public member of the three strings is a UTF-8 const char *
 *     jwhen       when (an expression of the event version ver)
 *     from        its value from w
 *     at64, at32  the wire offset on x64 / x86; ETW_AT_VAR after the SID
 *     what        the field's name in the spec, for verify's messages
 * verify's "want" is the SIM row of the same name (the wire keeps every
 * field whole; the SID is compared as its string).
 *
 * Choices where the sources are silent (see etw_process.c and README):
 * the TOKEN_USER pad on x64 is 0, TOKEN_USER.Attributes 0, the Sid pointer
 * a kernel address (any with non-zero low 32 bits).
 */
#ifndef PRODUCER_RECORDS_PROCESS_H
#define PRODUCER_RECORDS_PROCESS_H

#define ETW_AT_VAR (-1) /* a field after a variable-length one */

#define SIM_PROCESS_FLAGS_MAX 0xF /* APPLICATION_ID | WOW64 | PROTECTED | PACKAGED */

/* clang-format off */
#define SIM_PROCESS_FIELDS(F, C, x)                                                                \
	/* the CPU whose buffer it goes to, and when */                                            \
	F(x, cpu,         uint32_t,       BUF,   0,         0,          REQ, 0,      ALWAYS)       \
	F(x, ts,          uint64_t,       TS,    0,         0,          REQ, 0,      ALWAYS)       \
	/* start, end, dcstart, dcend, defunct */                                                  \
	F(x, event,       enum sim_event, EVENT, 0,         SIM_EV_PROCESS,          REQ, 0,      ALWAYS)       \
	/* Start/End only (SYSTEM header): the creating (Start) or last (End) thread */            \
	F(x, ctx_tid,     uint32_t,       U,     0,         UINT32_MAX, OPT, 0,      ALWAYS)       \
	F(x, ctx_pid,     uint32_t,       U,     0,         UINT32_MAX, OPT, 0,      ALWAYS)       \
	/* that thread's times, in TimerResolution ticks */                                        \
	F(x, kernel_time, uint32_t,       U,     0,         UINT32_MAX, OPT, 0,      ALWAYS)       \
	F(x, user_time,   uint32_t,       U,     0,         UINT32_MAX, OPT, 0,      ALWAYS)       \
	/* the EPROCESS address, the same in every event of the process */                         \
	F(x, key,         uint64_t,       ADDR,  0,         0,          REQ, 0,      ALWAYS)       \
	F(x, pid,         uint32_t,       U,     0,         UINT32_MAX, REQ, 0,      ALWAYS)       \
	F(x, ppid,        uint32_t,       U,     0,         UINT32_MAX, OPT, 0,      ALWAYS)       \
	/* -1 for Idle, System and other session-less processes */                                 \
	F(x, session,     uint32_t,       U,     0,         UINT32_MAX, OPT, 0,      ALWAYS)       \
	/* 0x103 (STATUS_PENDING) while alive; the exit code at End and Defunct */                 \
	F(x, exit_status, int32_t,        I,     INT32_MIN, INT32_MAX,  OPT, 0x103,  ALWAYS)       \
	F(x, dtb,         uint64_t,       ADDR,  0,         0,          OPT, 0,      ALWAYS)       \
	F(x, flags,       uint32_t,       U,     0,  SIM_PROCESS_FLAGS_MAX, OPT, 0,      ALWAYS)   \
	/* "S-1-5-18"; NULL: the 4-byte NULL form */                                               \
	F(x, sid,         const char *,   SID,   0,         0,          OPT, 0,      SET)          \
	/* TOKEN_USER.Sid, a kernel pointer no reader follows */                                   \
	F(x, sid_token,   uint64_t,       ADDR,  0,         0,          OPT, 0,      ALWAYS)       \
	F(x, image,       const char *,   TEXT,   0,         0,          REQ, 0,      ALWAYS)       \
	F(x, cmdline,     const char *,   TEXT,   0,         0,          OPT, 0,      SET)          \
	F(x, package,     const char *,   TEXT,   0,         0,          OPT, 0,      SET)          \
	F(x, app_id,      const char *,   TEXT,   0,         0,          OPT, 0,      SET)          \
	/* Defunct v5: FILETIME of the exit */                                                     \
	F(x, exit_time,   uint64_t,       U,     0,         INT64_MAX,  OPT, 0,      ALWAYS)

#define ETW_PROCESS_FIELDS(F, x)                                                                   \
	F(x, key,         uint64_t,               HEX,  1,        w->unique_process_key,           \
	  0x00,       0x00,       "UniqueProcessKey")                                              \
	F(x, pid,         uint32_t,               U,    1,        w->process_id,                   \
	  0x08,       0x04,       "ProcessId")                                                     \
	F(x, ppid,        uint32_t,               U,    1,        w->parent_id,                    \
	  0x0C,       0x08,       "ParentId")                                                      \
	F(x, session,     uint32_t,               U,    1,        w->session_id,                   \
	  0x10,       0x0C,       "SessionId")                                                     \
	F(x, exit_status, int32_t,                I,    1,        w->exit_status,                  \
	  0x14,       0x10,       "ExitStatus")                                                    \
	F(x, dtb,         uint64_t,               HEX,  1,        w->directory_table_base,         \
	  0x18,       0x14,       "DirectoryTableBase")                                            \
	F(x, flags,       uint32_t,               HEX,  1,        w->flags,                        \
	  0x20,       0x18,       "Flags")                                                         \
	F(x, sid,         const struct etw_sid *, SID,  1,        &w->sid,                         \
	  0x24,       0x1C,       "UserSID")                                                       \
	F(x, image,       const char *,           ASTR, 1,        w->image_file_name,              \
	  ETW_AT_VAR, ETW_AT_VAR, "ImageFileName")                                                 \
	F(x, cmdline,     struct etw_wstr,        WSTR, 1,        w->command_line,                 \
	  ETW_AT_VAR, ETW_AT_VAR, "CommandLine")                                                   \
	F(x, package,     struct etw_wstr,        WSTR, 1,        w->package_full_name,            \
	  ETW_AT_VAR, ETW_AT_VAR, "PackageFullName")                                               \
	F(x, app_id,      struct etw_wstr,        WSTR, 1,        w->application_id,               \
	  ETW_AT_VAR, ETW_AT_VAR, "ApplicationId")                                                 \
	F(x, exit_time,   uint64_t,               U,    ver >= 5, w->exit_time,                    \
	  ETW_AT_VAR, ETW_AT_VAR, "ExitTime")
/* clang-format on */

#endif /* PRODUCER_RECORDS_PROCESS_H */
