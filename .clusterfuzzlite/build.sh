#!/bin/bash -eu
# SPDX-License-Identifier: MIT
# ClusterFuzzLite: the same targets, seeds, dictionaries and options as OSS-Fuzz.
exec "$SRC/etwforge/tools/fuzzing/oss-fuzz/build.sh"
