/* SPDX-License-Identifier: MIT */
/*
 * writer/writer_internal.h - the writer's private state (writer.c). The
 * bytes of buffer headers and of the header buffer are etl_header.c's
 * (writer/etl_header.h); where the bytes go is the sink's (etl_sink.h).
 * Tests may include it; other modules use writer/writer.h only.
 */
#ifndef WRITER_WRITER_INTERNAL_H
#define WRITER_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "writer/backend.h"
#include "writer/etl_sink.h"
#include "writer/writer.h"

/* Longest LoggerName / LogFileName accepted, in characters (without the NUL). */
#define ETL_MAX_NAME_CHARS 1024u

/* Defaults of struct writer_opts fields left at zero (see writer.h). */
#define ETL_DEFAULT_LOGGER_NAME	     "NT Kernel Logger"
#define ETL_DEFAULT_CPUS	     1u
#define ETL_DEFAULT_OS_MAJOR	     10u
#define ETL_DEFAULT_PROVIDER_VERSION 19041u
#define ETL_DEFAULT_TIMER_RESOLUTION 156250u
#define ETL_DEFAULT_PERF_FREQ	     10000000u
#define ETL_DEFAULT_CPU_MHZ	     3000u
#define ETL_DEFAULT_LOG_FILE_MODE    (ETL_MODE_SYSTEM_LOGGER | ETL_MODE_FILE_MODE_SEQUENTIAL)
#define ETL_DEFAULT_LOGGER_ID	     1u
#define ETL_DEFAULT_KERNEL_EVENT_VER 60u /* ETW_KERNEL_EVENT_VERSION of ntetw.h (KF S3) */
#define ETL_DEFAULT_TIMER_SRC_CLOCK  9u	 /* HAL_PLATFORM_TIMER_SOURCE Apic */
#define ETL_DEFAULT_TIMER_SRC_PERF   6u	 /* HAL_PLATFORM_TIMER_SOURCE ProcessorCounter */
/* Largest pool the model tracks (in-flight return times are kept per buffer). */
#define ETL_MAX_POOL_BUFFERS (1u << 20)

#include "writer/writer_state.h"

#endif /* WRITER_WRITER_INTERNAL_H */
