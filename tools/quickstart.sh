#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/quickstart.sh - install what is missing, build, and run the main job:
# generate demo.etl (+ demo.truth.jsonl) from the embedded default scenario
# (8 CPUs, 2 s, one compact QPC session and one plain CSwitch session),
# verify every session's file against the truth, and say what to try next.
# BUILD=dir builds there (default: build/, configured as tools/check.sh
# configures its gcc build, so the test suite reuses it); OUT=dir puts the
# files there (default: the current directory).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/scripts/deps.sh"
etwforge_deps
build=${BUILD:-$top/build}
out=${OUT:-$PWD}
bin="$build/tools/etwforge"
say() { printf 'quickstart: %s\n' "$*"; }
t0=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
	say "building etwforge in $build (the first time: about two minutes on two cores)..."
	meson setup "$build" "$top" --buildtype=debugoptimized -Dstrict_warnings=enabled >/dev/null
else
	say "building etwforge in $build (only what changed)..."
fi
if ! ninja -C "$build" >"$build/quickstart-build.log" 2>&1; then
	tail -n 30 "$build/quickstart-build.log"
	say "the build failed (the whole log: $build/quickstart-build.log)"
	exit 1
fi
say "built in $(($(date +%s) - t0)) s: $bin"
say "generating $out/demo.etl and its truth, then checking every field against it:"
"$bin" gen -o "$out/demo.etl" --truth "$out/demo.truth.jsonl" -q
for f in "$out"/demo.etl "$out"/demo-*.etl; do
	if [ -e "$f" ]; then
		"$bin" verify "$f" --truth "$out/demo.truth.jsonl"
	fi
done
cat <<NEXT

next:
  export PATH="$build/tools:\$PATH"
  # the picture of the schedule (open demo.svg in a browser):
  etwforge dump demo.etl --timeline demo.svg
  # its records, who ran and where the CPU went:
  etwforge dump --stats demo.etl
  # a desktop with wake-ups and samples, and 10 ms of it drawn with the wake-ups:
  etwforge gen $top/tools/scenarios/desktop.yaml -o desktop.etl --truth desktop.jsonl
  etwforge dump desktop.etl --timeline desktop.svg --from 100ms --to 110ms
  # every command and option; the whole test suite (it reuses this build):
  man -l $build/doc/etwforge.1
  $top/tools/check.sh
NEXT
