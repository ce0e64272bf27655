# SPDX-License-Identifier: MIT
"""Shared fixtures of the Python package's tests (run by meson test `python`,
or by hand: PYTHONPATH=tools/python ETWFORGE_LIB=build/libetwforge.so.1
ETWFORGE_BIN=build/tools/etwforge python3 -m pytest tests/python)."""
import json
import os
import subprocess

import pytest

import etwforge

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Under python_asan the ASan runtime is preloaded into this python3 only: the
# etwforge command has its own (clang links it in, and two are refused), so
# the commands these tests run do not get it; a python3 they start does.
ASAN_PRELOAD = os.environ.pop("LD_PRELOAD", None)


def python_env():
    """The environment for a python3 these tests start (the preload back)."""
    env = dict(os.environ)
    if ASAN_PRELOAD:
        env["LD_PRELOAD"] = ASAN_PRELOAD
    return env
SCENARIOS = os.path.join(TOP, "tools", "scenarios")


def cli():
    """The etwforge command of this build (ETWFORGE_BIN), or None."""
    b = os.environ.get("ETWFORGE_BIN")
    return b if b and os.path.exists(b) else None


def dump_jsonl(path, *extra):
    """`etwforge dump --jsonl PATH` as a list of dicts (and its exit status)."""
    if not cli():
        pytest.skip("ETWFORGE_BIN is not set")
    p = subprocess.run([cli(), "dump", "--jsonl", *extra, str(path)], capture_output=True,
                       text=True)
    return [json.loads(line) for line in p.stdout.splitlines() if line], p.returncode


@pytest.fixture(scope="session")
def gen_files(tmp_path_factory):
    """A small run of the desktop example with its truth (spin locks, identity)."""
    d = tmp_path_factory.mktemp("gen")
    etl, truth = d / "desk.etl", d / "desk.jsonl"
    s = etwforge.generate(os.path.join(SCENARIOS, "lock_contention.yaml"), etl, truth=truth,
                          seed=5, duration="40ms")
    return etl, truth, s
