# SPDX-License-Identifier: MIT
"""Test your own ETL consumer against the ground truth (pytest, or run it).

my_consumer() stands for the code under test: here it counts how often each
thread was switched out, reading the file's switches as columns. Put your
parser in its place; the test makes a file whose truth is known and holds
what your code read against it.
"""
import collections
import json
import sys
import tempfile
from pathlib import Path

import etwforge


def my_consumer(etl_path):
    """The consumer under test: {tid: times switched out}."""
    with etwforge.open(etl_path) as f:
        return collections.Counter(f.switches().old_tid)


def truth_switch_outs(truth_path):
    """The same figure from the truth stream: every cswitch line."""
    with open(truth_path) as f:
        lines = (json.loads(line) for line in f)
        return collections.Counter(x["old_tid"] for x in lines if x["kind"] == "cswitch")


def test_consumer_against_truth(tmp_path):
    etl, truth = tmp_path / "t.etl", tmp_path / "t.jsonl"
    s = etwforge.generate({"duration": "100ms", "machine": {"cpus": 4}}, etl, truth=truth,
                          seed=11, sessions__0__clock="cycles")
    got = my_consumer(etl)
    assert sum(got.values()) == s.switches
    assert got == truth_switch_outs(truth)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        test_consumer_against_truth(Path(d))
    print("consumer agrees with the truth")
    sys.exit(0)
