#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/quickstart.sh - install what is missing, build, and run the main job:
# generate demo.etl (+ demo.truth.jsonl) from the embedded default scenario
# (8 CPUs, 2 s, one compact QPC session and one plain CSwitch session),
# verify every session's file against the truth, and print the dump summary.
# OUT=dir puts the files there (default: the current directory).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/scripts/deps.sh"
etwforge_deps
build=${BUILD:-$top/build}
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$top" >/dev/null
fi
ninja -C "$build" >/dev/null
bin="$build/tools/etwforge"
out=${OUT:-$PWD}
"$bin" gen -o "$out/demo.etl" --truth "$out/demo.truth.jsonl"
for f in "$out"/demo.etl "$out"/demo-*.etl; do
	if [ -e "$f" ]; then
		"$bin" verify "$f" --truth "$out/demo.truth.jsonl"
	fi
done
"$bin" dump --stats "$out/demo.etl"
