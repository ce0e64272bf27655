#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/check.sh - the test command: install what is missing, build, run the
# whole suite, and print `N passed, N failed` last: test cases counted from
# meson's test log (each Criterion suite's Synthesis line).
# CC=clang tools/check.sh builds with clang; BUILD=dir picks the build folder
# (default: build-check-CC[-san][-TYPE], or build/ when tools/quickstart.sh made
# it for the same compiler and options: `tools/check.sh --which-build` says);
# SANITIZE=1 builds with -Db_sanitize=address,undefined; BUILDTYPE=release
# builds with --buildtype=release (-O3). Warnings are errors in every build
# this script makes (-Dstrict_warnings=enabled).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/scripts/deps.sh"
etwforge_deps
cc=${CC:-gcc}
buildtype=${BUILDTYPE:-debugoptimized}
suffix=${SANITIZE:+-san}
[ "$buildtype" = debugoptimized ] || suffix="$suffix-$buildtype"
build=${BUILD:-$top/build-check-$(basename "$cc")$suffix}
# a build of tools/quickstart.sh (build/, gcc, debugoptimized, no sanitizer) is
# this one's: reuse it rather than build everything a second time
if [ -z "${BUILD:-}" ] && [ "$(basename "$cc")" = gcc ] && [ -z "$suffix" ] &&
	[ ! -f "$build/build.ninja" ] && [ -f "$top/build/build.ninja" ] &&
	grep -q '^C compiler for the host machine: gcc ' "$top/build/meson-logs/meson-log.txt" &&
	python3 - "$top/build/meson-info/intro-buildoptions.json" <<'PY'
import json, sys
opts = {o["name"]: o["value"] for o in json.load(open(sys.argv[1]))}
sys.exit(0 if opts.get("b_sanitize") == "none" and opts.get("buildtype") == "debugoptimized"
         else 1)
PY
then
	build=$top/build
fi
if [ "${1:-}" = --which-build ]; then
	echo "$build"
	exit 0
fi
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
# the build's own words only when it fails (CI prints this script's last lines)
if ! ninja -C "$build" >"$build/check-build.log" 2>&1; then
	tail -n 60 "$build/check-build.log"
	echo "the build failed (the whole log: $build/check-build.log)"
	echo "0 passed, 1 failed"
	exit 1
fi
status=0
meson test -C "$build" --print-errorlogs --num-processes 2 || status=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
# Count test cases, not suites: a Criterion suite says how many of its cases
# passed on its "Synthesis:" line, a pytest run (the test python) on its
# closing "N passed, N failed in S s" line; any other test (a script) is one case.
import json, re, sys
passed = failed = 0
synth = re.compile(r"Synthesis: Tested: (\d+) \| Passing: (\d+) \| Failing: (\d+) \| Crashing: (\d+)")
pytest_end = re.compile(r"^=* ?((?:\d+ [a-z]+(?:, )?)+) in [\d.]+s", re.M)
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    if r.get("result") == "SKIP":
        continue
    ok = r.get("result") in ("OK", "EXPECTEDFAIL")
    out = (r.get("stderr") or "") + (r.get("stdout") or "")
    m = synth.search(out)
    pm = pytest_end.findall(out)
    if pm and not m:
        counts = {w: int(n) for n, w in re.findall(r"(\d+) ([a-z]+)", pm[-1])}
        p, f = counts.get("passed", 0), counts.get("failed", 0) + counts.get("error", 0) + \
            counts.get("errors", 0)
        passed += p
        failed += f
        if not ok and f == 0:
            failed += 1  # the run failed outside its cases (a crash, a timeout)
    elif m:
        p, f, c = int(m.group(2)), int(m.group(3)), int(m.group(4))
        passed += p
        failed += f + c
        if not ok and f + c == 0:
            failed += 1  # the suite failed outside its cases (a crash, a timeout)
    elif ok:
        passed += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed")
PY
exit $status
