# SPDX-License-Identifier: MIT
"""`etwforge compare` and etwforge.compare(): two traces' traits side by side.

The command's table, JSON and picture against the Python call (one C
reading behind both); its refusals (usage, a missing or damaged file, a
picture over an input); and the ordering the score must give: every example
scenario is closer to itself with another seed than to the real PerfView
trace.
"""
import json
import os
import shutil
import subprocess

import pytest

import etwforge
from conftest import SCENARIOS, TOP, cli

SAMPLE = os.path.join(TOP, "tests", "data", "samples", "perfview_net.4.5.2.x64.etl")
EXAMPLES = ("desktop", "server64", "lock_driver", "lock_contention", "multi_clock")


def gen(tmp_path, scenario, seed, duration="300ms"):
    out = tmp_path / f"{scenario}-{seed}.etl"
    etwforge.generate(os.path.join(SCENARIOS, f"{scenario}.yaml"), out, seed=seed,
                      duration=duration)
    return out


def run(*args):
    if not cli():
        pytest.skip("ETWFORGE_BIN is not set")
    return subprocess.run([cli(), "compare", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp")
    return gen(d, "desktop", 1), gen(d, "desktop", 2)


def test_table_json_and_python_say_the_same(pair):
    a, b = pair
    p = run(a, b)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == f"A  {a}" and lines[1] == f"B  {b}"
    c = etwforge.compare(a, b)
    rows = [ln.split()[0] for ln in lines[4:4 + len(c.traits)]]
    assert rows == [t["name"] for t in c.traits]
    assert f"score {c.score:.3f} over the {c.compared} traits both show" in p.stdout
    j = run(a, b, "--json")
    assert j.returncode == 0, j.stderr
    obj = json.loads(j.stdout)
    assert obj["score"] == pytest.approx(c.score, abs=1e-6)
    assert obj["compared"] == c.compared
    assert [t["name"] for t in obj["traits"]] == [t["name"] for t in c.traits]
    # a trace against itself: every distance it can compute is 0
    same = etwforge.compare(a, a)
    assert same.score == 0 and same.compared == c.compared
    assert all(t["distance"] in (None, 0) for t in same.traits)


def test_python_api(pair):
    a, _ = pair
    with etwforge.open(a) as f:
        c = etwforge.compare(f, a)
    assert c.score == 0
    t = etwforge.traits(a)
    assert t.b is None and t["cpus"]["a"]["value"] == 8
    assert "score" in t.table()
    with pytest.raises(KeyError, match="no trait 'cpu'"):
        c["cpu"]
    with pytest.raises(etwforge.NoSuchFileError):
        etwforge.compare(a, a.parent / "nothing.etl")


def test_picture(tmp_path, pair):
    a, b = pair
    out = tmp_path / "c.svg"
    p = run(a, b, "--svg", out)
    assert p.returncode == 0, p.stderr
    svg = out.read_text()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert "etwforge compare: score" in svg and "wake_latency" in svg
    # never over an input: refused, the input as it was
    before = a.read_bytes()
    p = run(a, b, "--svg", a)
    assert p.returncode == 2 and "--svg" in p.stderr and len(p.stderr.splitlines()) == 1
    assert a.read_bytes() == before


def test_refusals(tmp_path, pair):
    a, _ = pair
    p = run(a)
    assert p.returncode == 2 and "expected two ETL files" in p.stderr
    p = run(a, a, "--bogus")
    assert p.returncode == 2 and "--bogus" in p.stderr
    p = run(a, tmp_path / "missing.etl")
    d = subprocess.run([cli(), "dump", tmp_path / "missing.etl"], capture_output=True, text=True)
    assert p.returncode == d.returncode != 0 and "missing.etl" in p.stderr  # as dump says it
    assert len(p.stderr.splitlines()) == 1
    # a file cut inside a buffer: refused, or read past the damage with --keep-going
    cut = tmp_path / "cut.etl"
    data = a.read_bytes()
    cut.write_bytes(data[:len(data) // 2 + 100])
    p = run(cut, a)
    assert p.returncode == 1 and "cut.etl" in p.stderr and p.stdout == ""
    p = run(cut, a, "--keep-going")
    assert p.returncode == 0, p.stderr
    assert "cut.etl" in p.stderr and "score" in p.stdout


def test_help():
    p = run("--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: etwforge compare A.etl B.etl")


@pytest.mark.parametrize("scenario", EXAMPLES)
def test_a_scenario_is_closer_to_itself_than_to_a_real_trace(tmp_path, scenario):
    if not os.path.exists(SAMPLE):
        pytest.skip("the Windows samples are not here")
    a, b = gen(tmp_path, scenario, 1), gen(tmp_path, scenario, 2)
    seeds = etwforge.compare(a, b)
    real = etwforge.compare(a, SAMPLE)
    # over the traits both pairs show (the sample has no context switch: a score over
    # more traits is not a score of the same things)
    both = [t["name"] for t in real.traits
            if t["scored"] and t["distance"] is not None and seeds[t["name"]]["distance"] is not None]
    assert len(both) >= 8, (seeds.table(), real.table())
    mean = lambda c: sum(c[n]["distance"] for n in both) / len(both)  # noqa: E731
    assert mean(seeds) < mean(real), (both, seeds.table(), real.table())
