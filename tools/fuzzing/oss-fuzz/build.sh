#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/fuzzing/oss-fuzz/build.sh - build every fuzz target of tests/fuzz/ under the
# OSS-Fuzz / ClusterFuzzLite contract. Reads $CC, $CFLAGS (sanitizer and
# coverage flags), $LIB_FUZZING_ENGINE (the engine, linked last), $WORK
# (scratch builds) and $OUT (where the fuzzers go; $SRC is not needed: the
# sources are this script's repository). Writes into $OUT, per target:
#
#   TARGET                  the fuzzer
#   TARGET_seed_corpus.zip  ETL targets: `etwforge corpus` (the catalogue),
#                           `corpus --mangle`, `corpus --mutants 200` and the
#                           small Windows samples of tests/data/samples;
#                           fuzz_scenario: the example scenarios; fuzz_truth:
#                           record lines of the catalogue's truth streams
#   TARGET.dict             the ETL dictionary (ETL targets only)
#   TARGET.options          libFuzzer's max_len, timeout, rss_limit_mb
#
# The targets are compiled with $CFLAGS by meson (-Dfuzzing_engine=
# $LIB_FUZZING_ENGINE: the engine is added at link time only); the corpus is
# written by a plain build of etwforge in $WORK/host, without $CFLAGS.
#
# The libraries (xxHash >= 0.8, jansson, libyaml): when their sources are in
# $SRC (the Dockerfile clones them: $SRC/xxHash, $SRC/jansson, $SRC/libyaml),
# each is built twice, static: with $CC $CFLAGS for the targets (in
# $WORK/deps; MemorySanitizer needs every byte the targets touch
# instrumented) and plainly for the host tool (in $WORK/deps-host). Without
# the sources, the system's -dev packages are used (enough for address and
# undefined; not for memory).
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
: "${CC:=clang}" "${CFLAGS:=}" "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:?set OUT}" "${WORK:?set WORK}" "${SRC:=$WORK/src}"
targets=(fuzz_reader fuzz_events fuzz_dump fuzz_pictures fuzz_mutator fuzz_scenario fuzz_truth)
etl_targets=" fuzz_reader fuzz_events fuzz_dump fuzz_pictures fuzz_mutator "
mkdir -p "$OUT" "$WORK"

# 0. the libraries from source, if there: build_deps PREFIX CFLAGS
build_deps() {
	local prefix=$1 flags=$2 b=$WORK/deps-build/$(basename "$1") v
	mkdir -p "$prefix/lib/pkgconfig" "$prefix/include" "$b"
	if [ -f "$SRC/xxHash/xxhash.h" ]; then
		rm -rf "$b/xxhash"
		cp -r "$SRC/xxHash" "$b/xxhash"
		make -s -C "$b/xxhash" CC="$CC" CFLAGS="$flags" libxxhash.a >/dev/null
		cp "$b/xxhash/libxxhash.a" "$prefix/lib/"
		cp "$b/xxhash/xxhash.h" "$b/xxhash/xxh3.h" "$prefix/include/"
		v=$(sed -n 's/^#define XXH_VERSION_\(MAJOR\|MINOR\|RELEASE\) *\([0-9]*\).*/\2/p' \
			"$b/xxhash/xxhash.h" | paste -sd.)
		printf 'prefix=%s\nName: xxhash\nDescription: xxHash\nVersion: %s\nLibs: -L${prefix}/lib -lxxhash\nCflags: -I${prefix}/include\n' \
			"$prefix" "$v" >"$prefix/lib/pkgconfig/libxxhash.pc"
	fi
	if [ -f "$SRC/jansson/CMakeLists.txt" ]; then
		cmake -S "$SRC/jansson" -B "$b/jansson" -DCMAKE_C_COMPILER="$CC" \
			-DCMAKE_C_FLAGS="$flags" -DCMAKE_INSTALL_PREFIX="$prefix" \
			-DCMAKE_INSTALL_LIBDIR=lib -DJANSSON_BUILD_SHARED_LIBS=OFF \
			-DJANSSON_BUILD_DOCS=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_EXAMPLES=OFF >/dev/null
		cmake --build "$b/jansson" >/dev/null
		cmake --install "$b/jansson" >/dev/null
	fi
	if [ -f "$SRC/libyaml/CMakeLists.txt" ]; then
		cmake -S "$SRC/libyaml" -B "$b/libyaml" -DCMAKE_C_COMPILER="$CC" \
			-DCMAKE_C_FLAGS="$flags" -DCMAKE_INSTALL_PREFIX="$prefix" \
			-DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF -DBUILD_TESTING=OFF >/dev/null
		cmake --build "$b/libyaml" >/dev/null
		cmake --install "$b/libyaml" >/dev/null
		v=$(sed -n 's/^set *(YAML_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\)).*/\2/p' \
			"$SRC/libyaml/CMakeLists.txt" | paste -sd.)
		printf 'prefix=%s\nName: LibYAML\nDescription: libyaml\nVersion: %s\nLibs: -L${prefix}/lib -lyaml\nCflags: -I${prefix}/include\n' \
			"$prefix" "$v" >"$prefix/lib/pkgconfig/yaml-0.1.pc"
	fi
}
host_pc=${PKG_CONFIG_PATH:-}
fuzz_pc=${PKG_CONFIG_PATH:-}
if [ -d "$SRC/xxHash" ] || [ -d "$SRC/jansson" ] || [ -d "$SRC/libyaml" ]; then
	build_deps "$WORK/deps-host" "-O2"
	build_deps "$WORK/deps" "$CFLAGS"
	host_pc=$WORK/deps-host/lib/pkgconfig${host_pc:+:$host_pc}
	fuzz_pc=$WORK/deps/lib/pkgconfig${fuzz_pc:+:$fuzz_pc}
fi

# 1. the corpus, from a plain etwforge
if [ ! -f "$WORK/host/build.ninja" ]; then
	env -u CFLAGS -u CXXFLAGS -u LDFLAGS PKG_CONFIG_PATH="$host_pc" CC="$CC" \
		meson setup "$WORK/host" "$top" --buildtype=release -Dstrict_warnings=disabled >/dev/null
fi
ninja -C "$WORK/host" tools/etwforge >/dev/null
etwforge=$WORK/host/tools/etwforge
seeds=$WORK/seeds
rm -rf "$seeds"
mkdir -p "$seeds/etl" "$seeds/truth"
"$etwforge" corpus -q --out "$seeds/corpus" --zip etl
"$etwforge" corpus -q --mangle --out "$seeds/mangled"
"$etwforge" corpus -q --mutants 200 --seed 1 --out "$seeds/mutants"
cp "$seeds/corpus/"*.etl "$seeds/mangled/"*.etl "$seeds/mutants/"*.etl "$seeds/etl/"
find "$top/tests/data/samples" -name '*.etl' -size -400k -exec cp {} "$seeds/etl/" \;
# fuzz_truth's input: a byte choosing its meta line, then record lines of a stream
i=0
for f in "$seeds/corpus/"*.truth.jsonl; do
	{ printf '%s' "$i"; sed -n '2,65p' "$f"; } >"$seeds/truth/$(basename "$f")"
	i=$(((i + 1) % 3))
done

# 2. the targets, instrumented by $CFLAGS, linked with $LIB_FUZZING_ENGINE
engine=$LIB_FUZZING_ENGINE
case $engine in
-*) ;;
*) # an engine archive (AFL++'s driver, ...) is C++: its runtime is linked too
	case "${CXXFLAGS:-}" in
	*libc++*) engine="$engine -lc++" ;;
	*) engine="$engine -lstdc++" ;;
	esac
	;;
esac
if [ ! -f "$WORK/fuzz/build.ninja" ]; then
	CC="$CC" CFLAGS="$CFLAGS" LDFLAGS="$CFLAGS ${LDFLAGS:-}" PKG_CONFIG_PATH="$fuzz_pc" \
		meson setup "$WORK/fuzz" "$top" \
		--buildtype=plain -Dstrict_warnings=disabled -Db_lundef=false \
		-Dfuzzing_engine="$engine" >/dev/null
fi
ninja -C "$WORK/fuzz" ${NINJA_JOBS:+-j "$NINJA_JOBS"} $(printf 'tests/fuzz/%s ' "${targets[@]}") >/dev/null

# 3. each target with its seeds, dictionary and options
for t in "${targets[@]}"; do
	cp "$WORK/fuzz/tests/fuzz/$t" "$OUT/$t"
	rm -f "$OUT/${t}_seed_corpus.zip"
	kind=$t
	[[ $etl_targets == *" $t "* ]] && kind=etl
	case $kind in
	etl)
		(cd "$seeds/etl" && zip -q -X "$OUT/${t}_seed_corpus.zip" ./*.etl)
		cp "$seeds/corpus/etl.dict" "$OUT/$t.dict"
		printf '[libfuzzer]\nmax_len = 400000\ntimeout = 20\nrss_limit_mb = 2560\n' >"$OUT/$t.options"
		;;
	fuzz_scenario)
		(cd "$top/tools/scenarios" && zip -q -X "$OUT/${t}_seed_corpus.zip" ./*)
		printf '[libfuzzer]\nmax_len = 65536\ntimeout = 20\n' >"$OUT/$t.options"
		;;
	fuzz_truth)
		(cd "$seeds/truth" && zip -q -X "$OUT/${t}_seed_corpus.zip" ./*)
		printf '[libfuzzer]\nmax_len = 65536\ntimeout = 20\n' >"$OUT/$t.options"
		;;
	esac
done
echo "tools/fuzzing/oss-fuzz/build.sh: ${#targets[@]} fuzz targets in $OUT"
