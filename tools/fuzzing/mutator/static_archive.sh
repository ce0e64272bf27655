#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/fuzzing/mutator/static_archive.sh OUT.a LIB.a... - libetwforge_mutator.a, the
# mutator for a fuzz target that links it statically (an OSS-Fuzz build): the
# plug-in's entry points and whatever they reach in LIB.a... (the plug-in,
# the library's layers and rooms, xxHash's implementation) linked into one
# relocatable object. Sections nothing reaches are dropped (--gc-sections),
# so no YAML or JSON reader comes along and nothing but libc is needed; every
# name but the entry points is made local, so none clashes with a parser's.
# Needs GNU ld and objcopy, like tools/scripts/static_lib.sh.
set -eu
out=$1
shift
entries="LLVMFuzzerCustomMutator LLVMFuzzerCustomCrossOver afl_custom_init afl_custom_fuzz
afl_custom_describe afl_custom_deinit"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/etwforge-mutator-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
roots=
for e in $entries; do
	roots="$roots -u $e"
	echo "$e" >>"$tmp/keep"
done
# a 32-bit build (CFLAGS=-m32) on an x86-64 host: ld's default is x86-64
case $(objdump -f "$1" | sed -n 's/.*file format //p' | head -n 1) in
elf32-i386) emulation="-m elf_i386" ;;
elf32-x86-64) emulation="-m elf32_x86_64" ;;
*) emulation= ;;
esac
obj=$tmp/etwforge_mutator.o
# shellcheck disable=SC2086
ld $emulation -r --gc-sections $roots -o "$obj" --start-group "$@" --end-group
# what the dropped sections called stays behind as local undefined names: none is needed
readelf -sW "$obj" | awk '$7 == "UND" && $5 == "LOCAL" && $8 != "" { print $8 }' |
	sort -u >"$tmp/stale"
strip=
[ -s "$tmp/stale" ] && strip=--strip-unneeded-symbols=$tmp/stale # (an empty list fails)
# shellcheck disable=SC2086
objcopy $strip --keep-global-symbols="$tmp/keep" "$obj"
global=$(nm -g --defined-only "$obj" | awk '{ print $3 }' | sort | tr '\n' ' ')
want=$(sort "$tmp/keep" | tr '\n' ' ')
if [ "$global" != "$want" ]; then
	echo "static_archive.sh: $out would define $global instead of $want" >&2
	exit 1
fi
rm -f "$out"
ar rcsD "$out" "$obj"
