#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/scripts/static_lib.sh OUT.a LIB.a... - the installed static library: every
# object of the layers and rooms linked into one relocatable object whose
# hidden symbols (everything but the etwforge_ API, as in the shared
# library) are made local, so a program linking libetwforge.a sees the same
# names the shared object exports and none of ours can clash with its own.
set -eu
out=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/etwforge-static-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ld -r -o "$tmp/etwforge.o" --whole-archive "$@" --no-whole-archive
objcopy --localize-hidden "$tmp/etwforge.o"
rm -f "$out"
ar rcs "$out" "$tmp/etwforge.o"
