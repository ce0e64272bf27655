#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_memory.py - gen's memory is the scenario's, not the run's: the
peak resident set of `gen tools/scenarios/server64.yaml` (64 CPUs, buffers
of 1 MiB and 256 KiB, pool threads that end and are replaced every 100 ms)
is the same, within 10 %, for 500 ms and for 5 s of simulated time. Each
run's own peak, from wait4(). The binary is $ETWFORGE_BIN; argv[1] is the
scenario folder.
"""
import os
import subprocess
import sys
import tempfile

BIN = os.environ["ETWFORGE_BIN"]
SCENARIO = os.path.join(sys.argv[1], "server64.yaml")


def peak_kib(duration, tmp):
    """Run gen for DURATION; return its own peak RSS in KiB."""
    p = subprocess.Popen([BIN, "gen", SCENARIO, "--duration", duration, "-q",
                          "-o", os.path.join(tmp, "s.etl")])
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"test_memory: gen --duration {duration}: exit {p.returncode}")
    return usage.ru_maxrss


def main():
    with tempfile.TemporaryDirectory(prefix="etwforge-memory-") as tmp:
        short, long = peak_kib("500ms", tmp), peak_kib("5s", tmp)
    print(f"test_memory: peak RSS {short / 1024:.1f} MiB for 500 ms, "
          f"{long / 1024:.1f} MiB for 5 s")
    if long > short * 1.10:
        sys.exit(f"test_memory: the peak grows with the duration: {short} KiB for 500 ms, "
                 f"{long} KiB for 5 s (more than 10 %)")


if __name__ == "__main__":
    main()
