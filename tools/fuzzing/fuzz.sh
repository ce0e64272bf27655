#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/fuzzing/fuzz.sh SECONDS [TARGET...] - run every libFuzzer target (or the ones
# named) for SECONDS each, one at a time (nice), seeded with the corpus
# (`etwforge corpus`), the mangled set (`corpus --mangle`), the small real
# samples and the dictionary. Builds with clang in build-fuzz (BUILD=dir).
# Working corpora and findings accumulate in fuzz-out/ (FUZZ_OUT=dir), so
# repeated runs add up. Prints per target: executions, coverage (cov =
# edges, ft = features), corpus size, findings; last line `N passed, N
# failed` (a target fails when it left a crash, leak, timeout or OOM).
#
# tools/fuzzing/fuzz.sh --afl SECONDS - AFL++ with and without the structure-aware
# mutator, side by side: four campaigns of SECONDS at once on the same seeds
# and dictionary, unpinned (AFL_NO_AFFINITY: the kernel spreads them over
# the cores, so no arm keeps the core that also takes the interrupts):
#   harness  tools/examples/etl_harness.c (afl-clang-fast -O1), with / plain
#   dump     `etwforge dump --jsonl` (afl-clang-fast, ASan and UBSan, in
#            build-afl), with / plain
# The mutator (libetwforge_mutator.so) comes from a plain release build in
# build-mutator: it runs inside afl-fuzz. Prints per campaign executions,
# executions per second, edges found, queue, crashes and hangs, then the
# mutator's execs/s and edges as a share of plain's.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FUZZ_OUT:-$top/fuzz-out}
targets_all=(fuzz_reader fuzz_events fuzz_dump fuzz_pictures fuzz_mutator fuzz_scenario fuzz_truth)

usage() {
	echo "usage: tools/fuzzing/fuzz.sh SECONDS [TARGET...] | tools/fuzzing/fuzz.sh --afl SECONDS" >&2
	exit 2
}

# the seeds: valid corpus, mangled set, small real samples, all as .etl files
make_seeds() {
	local etwforge=$1
	rm -rf "$out/seeds"
	mkdir -p "$out/seeds/etl"
	"$etwforge" corpus -q --out "$out/seeds/corpus" || exit 1
	"$etwforge" corpus -q --mangle --out "$out/seeds/mangled" || exit 1
	cp "$out/seeds/corpus/"*.etl "$out/seeds/mangled/"*.etl "$out/seeds/etl/"
	find "$top/tests/data/samples" -name '*.etl' -size -400k -exec cp {} "$out/seeds/etl/" \;
	# the PerfView sample's first 22 buffers (332 KB, under -max_len): its kernel modules'
	# and processes' image rundowns with their KernelTraceControl identities, samples with
	# StackWalks and stack-key references (their definitions are at the end: left out)
	head -c 332360 "$top/tests/data/samples/perfview_net.4.5.2.x64.etl" \
		>"$out/seeds/etl/perfview-images-stacks-head.etl"
	cp "$out/seeds/corpus/etl.dict" "$out/seeds/etl.dict"
	# fuzz_truth: a byte choosing its meta line, then record lines of the corpus streams
	mkdir -p "$out/seeds/truth"
	local f i=0
	for f in "$out/seeds/corpus/"*.truth.jsonl; do
		{ printf '%s' "$i"; tail -n +2 "$f" | head -n 64; } >"$out/seeds/truth/$(basename "$f")"
		i=$(((i + 1) % 3))
	done
}

libfuzzer() {
	local secs=$1
	shift
	local targets=("$@")
	local build=${BUILD:-$top/build-fuzz} passed=0 failed=0
	[ ${#targets[@]} -gt 0 ] || targets=("${targets_all[@]}")
	if [ ! -f "$build/build.ninja" ]; then
		CC=clang meson setup "$build" "$top" >/dev/null || exit 1
	fi
	if ! ninja -C "$build" tools/etwforge $(printf 'tests/fuzz/%s ' "${targets[@]}") \
		>"$out/logs/build.log" 2>&1; then
		grep -E 'FAILED|error' "$out/logs/build.log" | head -n 20
		echo "tools/fuzzing/fuzz.sh: the fuzz targets do not build ($out/logs/build.log)"
		echo "0 passed, ${#targets[@]} failed"
		exit 1
	fi
	make_seeds "$build/tools/etwforge"
	for t in "${targets[@]}"; do
		local corpus="$out/corpus/$t" art="$out/findings/$t" log="$out/logs/$t.log"
		local seeds=("$out/seeds/etl") dict=(-dict="$out/seeds/etl.dict") before after
		mkdir -p "$corpus" "$art" "$out/logs"
		if [ "$t" = fuzz_scenario ]; then
			seeds=("$top/tools/scenarios")
			dict=()
		elif [ "$t" = fuzz_truth ]; then
			seeds=("$out/seeds/truth")
			dict=()
		fi
		before=$(ls "$art" | wc -l)
		nice -n 10 "$build/tests/fuzz/$t" -max_total_time="$secs" -timeout=20 \
			-rss_limit_mb=2048 -max_len=400000 -print_final_stats=1 "${dict[@]}" \
			-artifact_prefix="$art/" "$corpus" "${seeds[@]}" >"$log" 2>&1
		after=$(ls "$art" | wc -l)
		local execs cov
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[^ ]+')
		printf '%-14s %6ss  execs %-10s %s  findings %d\n' "$t" "$secs" "${execs:-?}" \
			"${cov:-?}" "$((after - before))"
		if [ "$after" -gt "$before" ]; then
			failed=$((failed + 1))
			ls "$art" | sed 's/^/    /'
		else
			passed=$((passed + 1))
		fi
	done
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}

# a field of an AFL++ run's fuzzer_stats
stat_of() {
	sed -n "s/^$2 *: //p" "$1/default/fuzzer_stats"
}

# one campaign's line: executions, execs/s, edges, queue, findings
afl_report() {
	local d=${3%/default/fuzzer_stats}
	printf '%-8s %-8s execs %-9s execs/s %-8s edges %-5s queue %-5s crashes %-3s hangs %s\n' \
		"$1" "$2" "$(stat_of "$d" execs_done)" "$(stat_of "$d" execs_per_sec)" \
		"$(stat_of "$d" edges_found)" "$(stat_of "$d" corpus_count)" \
		"$(stat_of "$d" saved_crashes)" "$(stat_of "$d" saved_hangs)"
}

afl() {
	local secs=$1 build=${BUILD:-$top/build-afl} mbuild=${MUTATOR_BUILD:-$top/build-mutator}
	local t r o harness=$out/afl-bin/etl_harness
	command -v afl-fuzz >/dev/null || {
		echo "tools/fuzzing/fuzz.sh: afl-fuzz not found (Debian: apt-get install afl++)" >&2
		exit 2
	}
	# instrumented, with AddressSanitizer and UBSan (afl-cc adds them at build time)
	export AFL_USE_ASAN=1 AFL_USE_UBSAN=1
	if [ ! -f "$build/build.ninja" ]; then
		CC=afl-clang-fast meson setup "$build" "$top" -Dstrict_warnings=disabled \
			-Db_lundef=false >/dev/null || exit 1
	fi
	ninja -C "$build" tools/etwforge >/dev/null || exit 1
	unset AFL_USE_ASAN AFL_USE_UBSAN
	# the parser stand-in, built as README shows a parser author to build theirs
	mkdir -p "$out/afl-bin"
	afl-clang-fast -O1 -o "$harness" "$top/tools/examples/etl_harness.c" >/dev/null 2>&1 || exit 1
	# the plug-in runs inside afl-fuzz, which has no coverage map: built without
	# afl-cc's instrumentation (else: undefined symbol __afl_area_ptr)
	if [ ! -f "$mbuild/build.ninja" ]; then
		meson setup "$mbuild" "$top" --buildtype=release >/dev/null || exit 1
	fi
	ninja -C "$mbuild" tools/fuzzing/mutator/libetwforge_mutator.so >/dev/null || exit 1
	make_seeds "$build/tools/etwforge"
	# AFL++ wants small seeds: the catalogue and the mangled set (no 64-CPU file)
	rm -rf "$out/afl-seeds"
	mkdir -p "$out/afl-seeds"
	find "$out/seeds/etl" -name '*.etl' -size -64k -exec cp {} "$out/afl-seeds/" \;
	export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1
	export AFL_NO_AFFINITY=1
	export ASAN_OPTIONS=abort_on_error=1:symbolize=0:detect_leaks=0
	export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:symbolize=0
	for t in harness dump; do
		local cmd=("$harness" @@)
		[ $t = dump ] && cmd=("$build/tools/etwforge" dump --jsonl @@)
		for r in mutator plain; do
			o="$out/afl-$t-$r"
			rm -rf "$o"
			if [ $r = mutator ]; then
				AFL_CUSTOM_MUTATOR_LIBRARY="$mbuild/tools/fuzzing/mutator/libetwforge_mutator.so" \
					afl-fuzz -V "$secs" -i "$out/afl-seeds" -o "$o" \
					-x "$out/seeds/etl.dict" -t 2000 -- "${cmd[@]}" \
					>"$out/logs/afl-$t-$r.log" 2>&1 &
			else
				afl-fuzz -V "$secs" -i "$out/afl-seeds" -o "$o" -x "$out/seeds/etl.dict" \
					-t 2000 -- "${cmd[@]}" >"$out/logs/afl-$t-$r.log" 2>&1 &
			fi
		done
	done
	wait
	for t in harness dump; do
		local e_m x_m e_p x_p
		for r in mutator plain; do
			afl_report "$t" "$r" "$out/afl-$t-$r/default/fuzzer_stats"
		done
		x_m=$(stat_of "$out/afl-$t-mutator" execs_per_sec)
		x_p=$(stat_of "$out/afl-$t-plain" execs_per_sec)
		e_m=$(stat_of "$out/afl-$t-mutator" edges_found)
		e_p=$(stat_of "$out/afl-$t-plain" edges_found)
		awk -v t="$t" -v xm="$x_m" -v xp="$x_p" -v em="$e_m" -v ep="$e_p" 'BEGIN {
			printf "%-8s mutator/plain: execs/s %.0f %%, edges %d vs %d\n", t,
				xp > 0 ? 100 * xm / xp : 0, em, ep }'
	done
}

[ $# -ge 1 ] || usage
mkdir -p "$out/logs"
if [ "$1" = --afl ]; then
	[ $# = 2 ] || usage
	afl "$2"
else
	[[ $1 =~ ^[0-9]+$ ]] || usage
	libfuzzer "$@"
fi
