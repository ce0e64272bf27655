#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/scripts/deps.sh - install what etwforge needs on Debian 12, only what is missing
# (so a second run is fast). Sourced by check.sh and quickstart.sh.
set -euo pipefail
etwforge_deps() {
	# scdoc builds the manuals, librsvg2-bin (rsvg-convert) renders the timeline in
	# a test, bash-completion tells meson where completions go, clang-format checks the
	# layout (the test format), libclang-rt-14-dev is clang's libFuzzer (CI's fuzz smoke),
	# unzip checks the corpus's OSS-Fuzz zip, zip makes the seed corpora of
	# tools/fuzzing/oss-fuzz/build.sh and xz-utils the release tarball its user_project
	# check unpacks (CI's OSS-Fuzz step), python3-pytest runs the Python
	# package's tests (tests/python/)
	local pkgs=(meson ninja-build pkg-config gcc clang libxxhash-dev libcriterion-dev
		libyaml-dev libjansson-dev python3 clang-format scdoc librsvg2-bin bash-completion
		libclang-rt-14-dev unzip zip xz-utils python3-pytest)
	local missing=()
	for p in "${pkgs[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		if [ "$(id -u)" != 0 ]; then
			echo "etwforge: missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
			return 1
		fi
		echo "etwforge: installing ${missing[*]}" >&2
		apt-get update -qq >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
	fi
}
