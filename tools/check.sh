#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/check.sh - the test command: install what is missing, build, run the
# whole suite, and print `N passed, N failed` (from meson's test log) last.
# CC=clang tools/check.sh builds with clang; BUILD=dir picks the build folder;
# SANITIZE=1 builds with -Db_sanitize=address,undefined; BUILDTYPE=release
# builds with --buildtype=release (-O3). Warnings are errors in every build
# this script makes (-Dstrict_warnings=enabled).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/deps.sh"
etwforge_deps
cc=${CC:-gcc}
buildtype=${BUILDTYPE:-debugoptimized}
suffix=${SANITIZE:+-san}
[ "$buildtype" = debugoptimized ] || suffix="$suffix-$buildtype"
build=${BUILD:-$top/build-check-$(basename "$cc")$suffix}
opts=(--buildtype="$buildtype" -Dstrict_warnings=enabled)
if [ -n "${SANITIZE:-}" ]; then
	opts+=(-Db_sanitize=address,undefined)
	[ "$(basename "$cc")" = clang ] && opts+=(-Db_lundef=false)
	export ASAN_OPTIONS=abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=$cc meson setup "$build" "$top" "${opts[@]}" >/dev/null
else
	meson configure "$build" "${opts[@]}" >/dev/null
fi
ninja -C "$build" >/dev/null
status=0
meson test -C "$build" --print-errorlogs --num-processes 2 || status=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    if r.get("result") in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r.get("result") != "SKIP":
        failed += 1
print(f"{passed} passed, {failed} failed")
PY
exit $status
