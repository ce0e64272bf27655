#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/test_layers.sh SOURCE - the layers of STYLE.md B1 and README "Layers",
# checked on every #include "..." of the repository:
#   writer/           includes writer/ only (framing, both ways, at the bottom;
#                     its bytes go to a sink: no file policy)
#   producer/         writer/, producer/
#   scheduler_model/  producer/trace_sink.h (records, not bytes), scheduler_model/
#                     (the core)
#   pebs_model/, spinlock_model/
#                     the above and their own folder: a model reaches the
#                     core, never another model
#   tools/lib/, tools/lib/run/
#                     anything below, tools/lib/ (and its rooms), the public
#                     header; never the CLI
#   tools/*.c, *.h    the CLI: the public header and its own headers only
set -eu
cd "$1"
bad=0
check() { # DIR ALLOWED-REGEX: one grep and one awk per folder (a loop of seds timed out)
	grep -Hn '^#include "' "$1"/*.c "$1"/*.h 2>/dev/null |
		sed 's/^\([^:]*\):\([0-9]*\):#include "\([^"]*\)".*/\1:\2 \3/' |
		awk -v re="$2" '$2 !~ re { printf "%s: includes \"%s\", above its layer\n", $1, $2 }'
}
out=$(
	check writer '^writer/'
	check producer '^(writer|producer)/'
	check scheduler_model '^producer/trace_sink\.h$|^scheduler_model/'
	check pebs_model '^producer/trace_sink\.h$|^(scheduler_model|pebs_model)/'
	check spinlock_model '^producer/trace_sink\.h$|^(scheduler_model|spinlock_model)/'
	check tools/lib '^(writer|producer|scheduler_model|pebs_model|spinlock_model|tools/lib)/|^etwforge/etwforge\.h$'
	check tools/lib/run '^(writer|producer|scheduler_model|pebs_model|spinlock_model|tools/lib)/|^etwforge/etwforge\.h$'
	check tools '^etwforge/etwforge\.h$|^[a-z_]+\.h$'
)
if [ -n "$out" ]; then
	printf '%s\n' "$out"
	exit 1
fi
echo "every include respects the layers"
