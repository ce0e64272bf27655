#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/fuzzing/oss-fuzz/check_user_project.sh [RUNS] - README's build.sh lines for a
# parser's own OSS-Fuzz project ("Your parser's own OSS-Fuzz project"), run
# as typed: the ```sh block after the not-run marker naming this script is
# taken from README.md. In a scratch tree (OSSFUZZ_SCRATCH=dir, else a new
# one in /tmp, removed when all passed) it lays out $SRC/myparser with the
# release tarball (a tarball of the working tree as `meson dist` names it:
# etwforge-VERSION.tar.xz) and tools/examples/etl_harness.c as the harness,
# runs the block with CC=clang, CFLAGS=-fsanitize=address,fuzzer-no-link,
# LIB_FUZZING_ENGINE=-fsanitize=fuzzer (ninja -j1), then checks: the
# artefacts in $OUT; the archive defines the six entry points and no other
# global name, and needs no xxHash, YAML or JSON library; the fuzzer holds the
# mutator and no such library; it runs over its unzipped seed corpus for
# RUNS inputs (default 2000) with the mutator found and no finding.
# Last line: `N passed, N failed`.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
runs=${1:-2000}
scratch=${OSSFUZZ_SCRATCH:-$(mktemp -d /tmp/etwforge-userproj-XXXXXX)}
passed=0
failed=0
check() { # check NAME WHY: WHY empty is a pass
	if [ -z "$2" ]; then
		passed=$((passed + 1))
		printf '%-16s ok\n' "$1"
	else
		failed=$((failed + 1))
		printf '%-16s FAIL %s\n' "$1" "$2"
	fi
}
finish() {
	if [ "$failed" = 0 ] && [ -z "${OSSFUZZ_SCRATCH:-}" ]; then
		rm -rf "$scratch"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}

# the block of README.md, as typed
block=$(awk '/<!-- not run: tools\/fuzzing\/oss-fuzz\/check_user_project.sh runs this block/ { m = 1; next }
	m == 1 && /^```sh$/ { m = 2; next }
	m == 2 && /^```$/ { exit }
	m == 2 { print }' "$top/README.md")
if [ -z "$block" ]; then
	check readme "no \`\`\`sh block after the marker naming this script in README.md"
	finish
fi

# $SRC/myparser: the vendored tarball and the harness
rm -rf "$scratch/src" "$scratch/work" "$scratch/out" "$scratch/run"
mkdir -p "$scratch/src/myparser/third_party" "$scratch/src/myparser/fuzz" "$scratch/work" \
	"$scratch/out" "$scratch/run/seeds" "$scratch/run/art" "$scratch/bin"
version=$(sed -n "s/^ *version: '\([^']*\)',*$/\1/p" "$top/meson.build" | head -n 1)
name=etwforge-$version
why=
# shellcheck disable=SC2016
(cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 sh -c \
	'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - --transform "s,^,$name/," -cJf \
		"$scratch/src/myparser/third_party/$name.tar.xz") 2>"$scratch/tar.log" ||
	why="the tarball: $(head -n 3 "$scratch/tar.log")"
{ echo '#define ETL_LIBFUZZER 1'; cat "$top/tools/examples/etl_harness.c"; } \
	>"$scratch/src/myparser/fuzz/etl_fuzzer.c"
check tarball "$why"

# the block, under the OSS-Fuzz variables; ninja one job at a time
printf '#!/bin/sh\nexec %s -j1 "$@"\n' "$(command -v ninja)" >"$scratch/bin/ninja"
chmod +x "$scratch/bin/ninja"
out=$scratch/out
why=
printf '%s\n' "$block" >"$scratch/build.sh"
env PATH="$scratch/bin:$PATH" CC=clang CXX=clang++ CFLAGS="-fsanitize=address,fuzzer-no-link" \
	CXXFLAGS="-fsanitize=address,fuzzer-no-link" LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
	SRC="$scratch/src" WORK="$scratch/work" OUT="$out" \
	bash -eu -o pipefail "$scratch/build.sh" >"$scratch/build.log" 2>&1 ||
	why="the block failed ($scratch/build.log): $(tail -n 3 "$scratch/build.log" | tr '\n' ' ')"
check build "$why"

why=
for a in etl_fuzzer etl_fuzzer_seed_corpus.zip etl_fuzzer.dict; do
	[ -s "$out/$a" ] || why="$why missing $a;"
done
check artefacts "$why"

lib=$scratch/work/etwforge/mutator-build/tools/fuzzing/mutator/libetwforge_mutator.a
why=
if [ -f "$lib" ]; then
	global=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort | tr '\n' ' ')
	[ "$global" = "LLVMFuzzerCustomCrossOver LLVMFuzzerCustomMutator afl_custom_deinit afl_custom_describe afl_custom_fuzz afl_custom_init " ] ||
		why="global names: $global"
	needs=$(nm -u "$lib" | awk '$1 == "U" && $2 ~ /^(XXH|yaml_|json_)/ { print $2 }' | tr '\n' ' ')
	[ -z "$needs" ] || why="$why needs $needs"
	# (grep -q would leave nm writing into a closed pipe: a failure under pipefail)
	nm "$lib" | grep ' U __asan_' >/dev/null || why="$why not compiled with \$CFLAGS (no ASan)"
else
	why="no $lib"
fi
check archive "$why"

why=
if [ -s "$out/etl_fuzzer" ]; then
	nm "$out/etl_fuzzer" >"$scratch/fuzzer.nm"
	grep -q ' T LLVMFuzzerCustomMutator$' "$scratch/fuzzer.nm" || why="no LLVMFuzzerCustomMutator"
	grep -q ' T LLVMFuzzerCustomCrossOver$' "$scratch/fuzzer.nm" ||
		why="$why no LLVMFuzzerCustomCrossOver"
	libs=$(readelf -d "$out/etl_fuzzer" | grep -oE 'lib(xxhash|yaml|jansson)[^]]*' | tr '\n' ' ')
	[ -z "$libs" ] || why="$why needs $libs"
else
	why="no fuzzer"
fi
check fuzzer "$why"

why=
if [ -s "$out/etl_fuzzer" ] && [ -s "$out/etl_fuzzer_seed_corpus.zip" ]; then
	unzip -q "$out/etl_fuzzer_seed_corpus.zip" -d "$scratch/run/seeds"
	(cd "$out" && ./etl_fuzzer -runs="$runs" -timeout=20 -rss_limit_mb=2560 -max_len=400000 \
		-dict=etl_fuzzer.dict -artifact_prefix="$scratch/run/art/" "$scratch/run/seeds") \
		>"$scratch/run.log" 2>&1 || why="exit $?;"
	n=$(find "$scratch/run/art" -type f | wc -l)
	[ "$n" = 0 ] || why="$why $n findings;"
	grep -q '^INFO: found LLVMFuzzerCustomMutator' "$scratch/run.log" ||
		why="$why libFuzzer did not find the mutator;"
	[ -z "$why" ] || why="$why ($scratch/run.log) $(grep -m 3 -E 'ERROR|SUMMARY' "$scratch/run.log")"
else
	why="nothing to run"
fi
check run "$why"
[ -n "$why" ] || grep -E '^#[0-9]+[[:space:]]+DONE' "$scratch/run.log" | tail -n 1
finish
