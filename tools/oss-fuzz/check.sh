#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/oss-fuzz/check.sh [RUNS] - the OSS-Fuzz contract, tested here: runs
# tools/oss-fuzz/build.sh with CC=clang, CFLAGS=-fsanitize=address,fuzzer-no-link,
# LIB_FUZZING_ENGINE=-fsanitize=fuzzer and SRC, WORK, OUT in a scratch tree
# (OSSFUZZ_SCRATCH=dir, else a new one in /tmp, removed when all passed),
# then each target over its unzipped seed corpus for RUNS more inputs
# (default 2000, -runs=). A target fails when an artefact is missing
# (the fuzzer, its seed corpus zip, options, and the dictionary of an ETL
# target) or it left a finding. One more item, user_project: README's build.sh
# lines for a parser's own project (tools/oss-fuzz/check_user_project.sh RUNS).
# Last line: `N passed, N failed`.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-2000}
scratch=${OSSFUZZ_SCRATCH:-$(mktemp -d /tmp/etwforge-ossfuzz-XXXXXX)}
targets=(fuzz_reader fuzz_events fuzz_dump fuzz_pictures fuzz_mutator fuzz_scenario fuzz_truth)
mkdir -p "$scratch/src" "$scratch/work" "$scratch/out"
if ! CC=clang CFLAGS="-fsanitize=address,fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	SRC="$scratch/src" WORK="$scratch/work" OUT="$scratch/out" NINJA_JOBS=${NINJA_JOBS:-1} \
	"$top/tools/oss-fuzz/build.sh" >"$scratch/build.log" 2>&1; then
	tail -n 20 "$scratch/build.log"
	echo "tools/oss-fuzz/check.sh: build.sh failed ($scratch/build.log)"
	echo "0 passed, $((${#targets[@]} + 1)) failed" # the targets, and user_project not run
	exit 1
fi
passed=0
failed=0
for t in "${targets[@]}"; do
	out=$scratch/out why=
	for a in "$t" "${t}_seed_corpus.zip" "$t.options"; do
		[ -s "$out/$a" ] || why="$why missing $a;"
	done
	case $t in fuzz_scenario | fuzz_truth) ;; *) [ -s "$out/$t.dict" ] || why="$why missing $t.dict;" ;; esac
	if [ -z "$why" ]; then
		rm -rf "$scratch/run/$t"
		mkdir -p "$scratch/run/$t/seeds" "$scratch/run/$t/art"
		unzip -q "$out/${t}_seed_corpus.zip" -d "$scratch/run/$t/seeds"
		dict=()
		[ -f "$out/$t.dict" ] && dict=(-dict="$out/$t.dict")
		(cd "$out" && ./"$t" -runs="$runs" -timeout=20 -rss_limit_mb=2560 -max_len=400000 \
			"${dict[@]}" -artifact_prefix="$scratch/run/$t/art/" "$scratch/run/$t/seeds") \
			>"$scratch/run/$t.log" 2>&1
		rc=$?
		n=$(ls "$scratch/run/$t/art" | wc -l)
		[ "$rc" = 0 ] || why="$why exit $rc;"
		[ "$n" = 0 ] || why="$why $n findings;"
	fi
	if [ -z "$why" ]; then
		passed=$((passed + 1))
		printf '%-14s ok   %s\n' "$t" "$(grep -E '^#[0-9]+' "$scratch/run/$t.log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')"
	else
		failed=$((failed + 1))
		printf '%-14s FAIL%s\n' "$t" "$why"
		[ -f "$scratch/run/$t.log" ] && grep -E 'ERROR|SUMMARY' "$scratch/run/$t.log" | head -n 5
	fi
done
# a parser's own project: README's build.sh lines with libetwforge_mutator.a, one item
if OSSFUZZ_SCRATCH="$scratch/user_project" "$top/tools/oss-fuzz/check_user_project.sh" "$runs" \
	>"$scratch/user_project.log" 2>&1; then
	passed=$((passed + 1))
	printf '%-14s ok   %s\n' user_project "$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$scratch/user_project.log" | tail -n 1)"
else
	failed=$((failed + 1))
	printf '%-14s FAIL (%s)\n' user_project "$scratch/user_project.log"
	grep -E ' FAIL ' "$scratch/user_project.log" | head -n 5
fi
if [ "$failed" = 0 ] && [ -z "${OSSFUZZ_SCRATCH:-}" ]; then
	rm -rf "$scratch"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
