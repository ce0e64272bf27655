#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/fuzzing/oss-fuzz/check.sh [--sanitizer S] [--engine E] [RUNS] - the OSS-Fuzz
# contract, tested here: runs tools/fuzzing/oss-fuzz/build.sh with the variables
# OSS-Fuzz sets for sanitizer S and engine E, and SRC, WORK, OUT in a
# scratch tree (OSSFUZZ_SCRATCH=dir, else a new one in /tmp, removed when all
# passed), then each target over its unzipped seed corpus:
#   --sanitizer address    CFLAGS=-fsanitize=address (the default)
#               undefined  OSS-Fuzz's list of -fsanitize= checks, none recoverable
#                          but unsigned overflow (silenced at run time, as there)
#               memory     -fsanitize=memory -fsanitize-memory-track-origins; the
#                          libraries must be built from source with it: DEPS_SRC=dir
#                          holding xxHash/, jansson/ and libyaml/ (as the Dockerfile
#                          clones them into $SRC)
#   --engine    libfuzzer  CC=clang, CFLAGS+=-fsanitize=fuzzer-no-link,
#                          LIB_FUZZING_ENGINE=-fsanitize=fuzzer (the default):
#                          each target -runs=RUNS (default 2000) past its seeds
#               afl        CC=afl-clang-fast, LIB_FUZZING_ENGINE=AFL++'s driver
#                          (AFL_DRIVER=path, default /usr/lib/afl/libAFLDriver.a):
#                          each target over every seed once, then afl-fuzz for
#                          RUNS/200 seconds
# A target fails when an artefact is missing (the fuzzer, its seed corpus
# zip, options, and the dictionary of an ETL target) or it left a finding.
# One more item with address and libfuzzer, user_project: README's build.sh lines for
# a parser's own project (tools/fuzzing/oss-fuzz/check_user_project.sh RUNS).
# Last line: `N passed, N failed`.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
san=address engine=libfuzzer
while [ $# -gt 0 ]; do
	case $1 in
	--sanitizer) san=${2:-}; shift 2 || shift ;;
	--engine) engine=${2:-}; shift 2 || shift ;;
	-*) echo "tools/fuzzing/oss-fuzz/check.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
runs=${1:-2000}
[[ $runs =~ ^[0-9]+$ ]] || { echo "tools/fuzzing/oss-fuzz/check.sh: RUNS: not a number: $runs" >&2; exit 2; }
ub=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr
case $san in
address) cflags="-fsanitize=address" ;;
undefined) cflags="-fsanitize=$ub,unsigned-integer-overflow -fno-sanitize-recover=$ub" ;;
memory) cflags="-fsanitize=memory -fsanitize-memory-track-origins" ;;
*) echo "tools/fuzzing/oss-fuzz/check.sh: --sanitizer: address, undefined or memory, not \"$san\"" >&2; exit 2 ;;
esac
case $engine in
libfuzzer) cc=clang cflags="$cflags -fsanitize=fuzzer-no-link" lfe=-fsanitize=fuzzer ;;
afl) cc=afl-clang-fast lfe=${AFL_DRIVER:-/usr/lib/afl/libAFLDriver.a} ;;
*) echo "tools/fuzzing/oss-fuzz/check.sh: --engine: libfuzzer or afl, not \"$engine\"" >&2; exit 2 ;;
esac
scratch=${OSSFUZZ_SCRATCH:-$(mktemp -d /tmp/etwforge-ossfuzz-XXXXXX)}
targets=(fuzz_reader fuzz_events fuzz_dump fuzz_pictures fuzz_mutator fuzz_scenario fuzz_truth)
extra=0 # user_project, with address and libfuzzer only (the README block's own flags)
[ "$san/$engine" = address/libfuzzer ] && extra=1
mkdir -p "$scratch/src" "$scratch/work" "$scratch/out"
if [ "$san" = memory ]; then
	for d in xxHash jansson libyaml; do
		if [ ! -d "${DEPS_SRC:-/nonexistent}/$d" ]; then
			echo "tools/fuzzing/oss-fuzz/check.sh: --sanitizer memory needs DEPS_SRC=dir with $d/ (its source)" >&2
			echo "0 passed, ${#targets[@]} failed"
			exit 1
		fi
		ln -sfn "$DEPS_SRC/$d" "$scratch/src/$d"
	done
fi
export UBSAN_OPTIONS=silence_unsigned_overflow=1:halt_on_error=1:abort_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=0}
if [ "$engine" = afl ]; then # afl-fuzz refuses to start without these
	export ASAN_OPTIONS=$ASAN_OPTIONS:symbolize=0 UBSAN_OPTIONS=$UBSAN_OPTIONS:symbolize=0
fi
echo "sanitizer $san, engine $engine ($cc; LIB_FUZZING_ENGINE=$lfe)"
if ! CC=$cc CFLAGS="$cflags" LIB_FUZZING_ENGINE=$lfe \
	SRC="$scratch/src" WORK="$scratch/work" OUT="$scratch/out" NINJA_JOBS=${NINJA_JOBS:-1} \
	"$top/tools/fuzzing/oss-fuzz/build.sh" >"$scratch/build.log" 2>&1; then
	tail -n 20 "$scratch/build.log"
	echo "tools/fuzzing/oss-fuzz/check.sh: build.sh failed ($scratch/build.log)"
	echo "0 passed, $((${#targets[@]} + extra)) failed" # the targets, and user_project not run
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
		if [ "$engine" = libfuzzer ]; then
			(cd "$out" && ./"$t" -runs="$runs" -timeout=20 -rss_limit_mb=2560 -max_len=400000 \
				"${dict[@]}" -artifact_prefix="$scratch/run/$t/art/" "$scratch/run/$t/seeds") \
				>"$scratch/run/$t.log" 2>&1
			rc=$?
		else
			# the driver runs each file named once; then a short campaign
			(cd "$out" && ./"$t" "$scratch/run/$t/seeds"/*) >"$scratch/run/$t.log" 2>&1
			rc=$?
			if [ "$rc" = 0 ]; then
				AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
					AFL_NO_AFFINITY=1 afl-fuzz -V $((runs / 200 + 1)) -t 20000 \
					-i "$scratch/run/$t/seeds" -o "$scratch/run/$t/afl" \
					${dict[0]:+-x "$out/$t.dict"} -- "$out/$t" >>"$scratch/run/$t.log" 2>&1
				rc=$?
				cp "$scratch/run/$t/afl/default/crashes/id"* "$scratch/run/$t/art/" 2>/dev/null
				sed -n 's/^execs_done *: /#afl execs /p; s/^edges_found *: /#afl edges /p' \
					"$scratch/run/$t/afl/default/fuzzer_stats" >>"$scratch/run/$t.log" 2>/dev/null
			fi
		fi
		n=$(ls "$scratch/run/$t/art" | wc -l)
		[ "$rc" = 0 ] || why="$why exit $rc;"
		[ "$n" = 0 ] || why="$why $n findings;"
	fi
	if [ -z "$why" ]; then
		passed=$((passed + 1))
		printf '%-14s ok   %s\n' "$t" "$(grep -E '^#[0-9]+' "$scratch/run/$t.log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')$(grep -E '^#afl' "$scratch/run/$t.log" | tr '\n' ' ')"
	else
		failed=$((failed + 1))
		printf '%-14s FAIL%s\n' "$t" "$why"
		[ -f "$scratch/run/$t.log" ] && grep -E 'ERROR|SUMMARY' "$scratch/run/$t.log" | head -n 5
	fi
done
# a parser's own project: README's build.sh lines with libetwforge_mutator.a, one item
if [ "$extra" = 0 ]; then
	:
elif OSSFUZZ_SCRATCH="$scratch/user_project" "$top/tools/fuzzing/oss-fuzz/check_user_project.sh" "$runs" \
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
