/* SPDX-License-Identifier: MIT */
/*
 * etwforge/etwforge.h - umbrella header of the installed libetwforge:
 * wire encoders/decoders, the ETL writer and the ETL reader.
 * Compile with `pkg-config --cflags etwforge`.
 */
#ifndef ETWFORGE_ETWFORGE_H
#define ETWFORGE_ETWFORGE_H

#include "writer/etl_wire.h"
#include "producer/etw_layout.h"
#include "producer/etw_encode.h"
#include "writer/backend.h"
#include "writer/etl_layout.h"
#include "writer/writer.h"
#include "writer/etl_reader.h"

#endif /* ETWFORGE_ETWFORGE_H */
