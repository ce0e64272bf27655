# SPDX-License-Identifier: MIT
"""The example consumer test (tools/examples/consumer_test.py), and the
speed figures: switches read through the columns per second, and generate()
from Python against the same run's wall time in the library (printed,
nothing asserted about timing)."""
import os
import runpy
import sys
import time

import etwforge
from conftest import TOP


def test_example_consumer(tmp_path):
    ns = runpy.run_path(os.path.join(TOP, "tools", "examples", "consumer_test.py"))
    ns["test_consumer_against_truth"](tmp_path)


def test_speed(tmp_path, capsys):
    t0 = time.perf_counter()
    s = etwforge.generate(None, tmp_path / "big.etl", seed=1, duration="60s",
                          sessions__0__flags=["cswitch", "compact_cswitch"])
    gen_wall = time.perf_counter() - t0
    t0 = time.perf_counter()
    with etwforge.open(tmp_path / "big.etl") as f:
        n = 0
        for chunk in f.switch_chunks():
            n += len(chunk.ts)
    read_wall = time.perf_counter() - t0
    assert n == s.switches
    with capsys.disabled():
        sys.stdout.write(
            f"\nspeed: {n} switches read through File.switch_chunks() in {read_wall:.3f} s = "
            f"{n / read_wall / 1e6:.2f} M switches/s; generate(): {gen_wall:.3f} s from Python, "
            f"{s.wall_seconds:.3f} s in the library ({s.switches / gen_wall / 1e6:.2f} M "
            f"switches/s)\n")
