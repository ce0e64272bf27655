#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/test_tree.sh SOURCE - the repository holds sources only: no file git
# tracks is a build product (compiled Python, objects, a build folder, an
# output of README's examples), and each such name is one git ignores, so
# running the tests or the examples leaves `git status` clean. Outside a git
# checkout (a release tarball) there is nothing to check.
set -eu
cd "$1"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "not a git checkout: nothing to check"
	exit 0
fi
bad=$(git ls-files | grep -E '(^|/)__pycache__/|\.pyc$|\.o$|\.so(\.[0-9]+)*$|^build[^/]*/|(^|/)[^/]+\.etl\.tmp' || true)
if [ -n "$bad" ]; then
	printf 'tracked build products:\n%s\n' "$bad"
	exit 1
fi
for f in tests/__pycache__/x.pyc tools/__pycache__/x.cpython-311.pyc build/x demo.etl demo.truth.jsonl \
	findings/x fuzz-out/x; do
	if ! git check-ignore -q "$f"; then
		echo "$f: not ignored, so running the tests or README's examples dirties the tree"
		exit 1
	fi
done
echo "the tree holds sources only"
