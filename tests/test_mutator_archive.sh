#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/test_mutator_archive.sh BUILD SOURCE - libetwforge_mutator.a of this
# build is self-contained: it defines the six plug-in entry points and no
# other global name, needs no xxHash, YAML or JSON library, and a program
# linked with it alone (tests/mutator_archive_probe.c, $CC $EXAMPLE_CFLAGS,
# nothing after the archive) mutates catalogue files into files `etwforge
# dump` reads (ETWFORGE_MUTATOR_MANGLE=0), most of them changed, the same seed
# giving the same bytes; by default it breaks some on purpose (10 %).
set -eu
build=$1
src=$2
lib=$build/tools/fuzzing/mutator/libetwforge_mutator.a
etwforge=${ETWFORGE_BIN:-$build/tools/etwforge}
tmp=$(mktemp -d /tmp/etwforge-mutator-archive-XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() {
	echo "test_mutator_archive: $*" >&2
	exit 1
}
[ -f "$lib" ] || fail "no $lib"

global=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort | tr '\n' ' ')
[ "$global" = "LLVMFuzzerCustomCrossOver LLVMFuzzerCustomMutator afl_custom_deinit afl_custom_describe afl_custom_fuzz afl_custom_init " ] ||
	fail "global names defined: $global"
# a strong reference to xxHash, libyaml or jansson would need its library (the
# weak ones to libxxhash's x86 dispatcher are taken only where a program has it)
needs=$(nm -u "$lib" | awk '$1 == "U" && $2 ~ /^(XXH|yaml_|json_)/ { print $2 }' | tr '\n' ' ')
[ -z "$needs" ] || fail "the archive needs: $needs"

# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Werror ${EXAMPLE_CFLAGS:-} "$src/tests/mutator_archive_probe.c" "$lib" \
	-o "$tmp/probe" 2>"$tmp/link.log" ||
	fail "a program linked with the archive alone does not build: $(grep -m 3 . "$tmp/link.log")"

"$etwforge" corpus -q --out "$tmp/corpus" || fail "corpus failed"
ETWFORGE_MUTATOR_MANGLE=0
export ETWFORGE_MUTATOR_MANGLE
i=0
changed=0
prev=
seventh=
for f in "$tmp/corpus/"*.etl; do
	i=$((i + 1))
	m=$tmp/m$i.etl
	"$tmp/probe" "$i" "$f" "$m" || fail "mutating $(basename "$f") failed"
	"$etwforge" dump "$m" >/dev/null 2>"$tmp/dump.log" ||
		fail "the mutant $i of $(basename "$f") does not read: $(cat "$tmp/dump.log")"
	cmp -s "$f" "$m" || changed=$((changed + 1))
	[ "$i" = 7 ] && seventh=$f
	if [ -n "$prev" ]; then
		"$tmp/probe" "$i" "$f" "$prev" "$tmp/x$i.etl" || fail "crossover $i failed"
		"$etwforge" dump "$tmp/x$i.etl" >/dev/null 2>"$tmp/dump.log" ||
			fail "the crossover $i does not read: $(cat "$tmp/dump.log")"
	fi
	prev=$f
done
[ "$i" -ge 50 ] || fail "only $i catalogue files"
[ $((changed * 4)) -ge $((i * 3)) ] || fail "only $changed of $i mutants differ from their input"
# the same seed and bytes give the same mutant
"$tmp/probe" 7 "$seventh" "$tmp/again.etl" || fail "mutating $(basename "$seventh") failed"
cmp -s "$tmp/m7.etl" "$tmp/again.etl" ||
	fail "seed 7 of $(basename "$seventh") gave other bytes the second time"
# the plug-in's default: one mutant in ten broken by a mangle rule, some of them unreadable
unset ETWFORGE_MUTATOR_MANGLE
broken=0
j=0
for f in "$tmp/corpus/"*.etl; do
	j=$((j + 1))
	"$tmp/probe" "$j" "$f" "$tmp/d.etl" || fail "mutating $(basename "$f") failed (default mangling)"
	"$etwforge" dump "$tmp/d.etl" >/dev/null 2>&1 || broken=$((broken + 1))
done
[ "$broken" -ge 1 ] && [ $((broken * 4)) -le "$j" ] ||
	fail "$broken of $j mutants unreadable with the default mangling (want some, at most a quarter)"
echo "test_mutator_archive: $i mutants ($changed changed) and $((i - 1)) crossovers read back;" \
	"by default $broken of $j unreadable"
