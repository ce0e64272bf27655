#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/test_format.sh SOURCE - every C file of the repository is laid out as
# .clang-format says (clang-format --dry-run --Werror). Hand-typed tables that
# must keep their columns sit between /* clang-format off */ and on.
# Skipped (77) without clang-format; tools/scripts/deps.sh installs it.
set -eu
cd "$1"
command -v clang-format >/dev/null 2>&1 || { echo "no clang-format: skipped"; exit 77; }
if [ -d .git ] && command -v git >/dev/null 2>&1; then
	files=$(git ls-files '*.c' '*.h')
else
	files=$(find . -path './build*' -prune -o \( -name '*.c' -o -name '*.h' \) -print)
fi
# shellcheck disable=SC2086
if ! out=$(clang-format --dry-run --Werror $files 2>&1); then
	printf '%s\n' "$out" | grep -E '^[^ ].*: (error|warning):' | head -n 20
	echo "test_format: run clang-format -i on the files above" >&2
	exit 1
fi
echo "$(echo "$files" | wc -w) files formatted"
