# SPDX-License-Identifier: MIT
"""etwforge.generate() and replay(): scenarios as paths, text and dicts,
--set overrides, the summary, and the errors."""
import json
import os
import subprocess

import pytest

import etwforge
from conftest import SCENARIOS, cli


def test_dict_scenario_and_summary(tmp_path):
    s = etwforge.generate({"duration": "30ms", "machine": {"cpus": 2}}, tmp_path / "a.etl",
                          truth=tmp_path / "a.jsonl", seed=9)
    assert s.seed == 9 and s.cpus == 2 and s.duration_ns == 30_000_000
    assert s.switches > 0 and s.batch_records <= s.switches
    assert sum(s.batches_by_reason.values()) == s.batches
    assert set(s.batches_by_reason) == {"tid_full", "ticks", "size", "delta", "stop", "end"}
    assert s.sessions[0].file == str(tmp_path / "a.etl")
    assert s.files[str(tmp_path / "a.etl")] == s.sessions[0].xxh3 != 0
    assert os.path.getsize(tmp_path / "a.etl") == s.sessions[0].bytes
    v = etwforge.verify(tmp_path / "a.etl", tmp_path / "a.jsonl")
    assert v.switches == s.switches


def test_text_scenarios_yaml_and_json(tmp_path):
    a = etwforge.generate("duration: 20ms\nmachine: {cpus: 3}\n", tmp_path / "a.etl")
    b = etwforge.generate('{"duration": "20ms", "machine": {"cpus": 3}}', tmp_path / "a.etl")
    assert a.cpus == b.cpus == 3
    assert a.sessions[0].xxh3 == b.sessions[0].xxh3


def test_path_scenario_matches_the_cli(tmp_path):
    sc = os.path.join(SCENARIOS, "lock_contention.yaml")
    s = etwforge.generate(sc, tmp_path / "p.etl", seed=4, duration="20ms")
    assert s.locks and all(lk.name for lk in s.locks)
    assert s.locks[0].acquisitions >= s.locks[0].contended
    if cli():
        subprocess.run([cli(), "gen", sc, "--set", "seed=4", "--set", "duration=20ms", "-o",
                        str(tmp_path / "c.etl"), "--json=" + str(tmp_path / "c.json")],
                       check=True, capture_output=True)
        j = json.load(open(tmp_path / "c.json"))
        assert j["switches"] == s.switches
        by_cli = open(tmp_path / "c.etl", "rb").read()
        c = etwforge.generate(sc, tmp_path / "c.etl", seed=4, duration="20ms")
        assert open(tmp_path / "c.etl", "rb").read() == by_cli
        assert c.sessions[0].xxh3 == j["sessions"][0]["xxh3"]


def test_overrides_kwargs_and_dotted_dict(tmp_path):
    s = etwforge.generate(None, tmp_path / "o.etl", duration="10ms", machine__cpus=4,
                          sessions__0__clock="cycles")
    assert s.cpus == 4
    with etwforge.open(tmp_path / "o.etl") as f:
        assert f.header["clock"] == "cycles"
    t = etwforge.generate(None, tmp_path / "d.etl",
                          set={"duration": "10ms", "machine.cpus": 2,
                               "sessions.0.flags": ["cswitch"]})
    assert t.cpus == 2 and t.batches == 0


def test_json_summary_file(tmp_path):
    etwforge.generate(None, tmp_path / "s.etl", duration="10ms", json=tmp_path / "s.json")
    assert json.load(open(tmp_path / "s.json"))["switches"] >= 0


def test_bad_override_says_where(tmp_path):
    with pytest.raises(etwforge.ScenarioError) as e:
        etwforge.generate(None, tmp_path / "x.etl", machine__cpuz=4)
    assert str(e.value).startswith("--set:1:") and "cpuz" in str(e.value)
    assert e.value.kind == "input" and not os.path.exists(tmp_path / "x.etl")


def test_bad_scenario_text_has_its_line(tmp_path):
    with pytest.raises(etwforge.ScenarioError) as e:
        etwforge.generate("duration: 10ms\nmachine: {cpus: banana}\n", tmp_path / "x.etl")
    assert str(e.value).startswith("<string>:2:")


def test_missing_scenario_file(tmp_path):
    with pytest.raises(etwforge.Error) as e:
        etwforge.generate(tmp_path / "nope.yaml", tmp_path / "x.etl")
    assert "nope.yaml" in str(e.value)


def test_two_outputs_one_file(tmp_path):
    with pytest.raises(etwforge.ScenarioError) as e:
        etwforge.generate(None, tmp_path / "x.etl", truth=tmp_path / "x.etl", duration="5ms")
    assert "same file" in str(e.value)


def test_replay_of_a_gen_truth_gives_the_same_file(gen_files, tmp_path):
    etl, truth, s = gen_files
    r = etwforge.replay(truth, tmp_path / "r.etl")
    assert r.switches == s.switches
    with etwforge.open(etl) as a, etwforge.open(tmp_path / "r.etl") as b:
        assert a.switches().columns() == b.switches().columns()
        assert [e.as_dict() for e in a.events(["spinlock"])] == \
            [e.as_dict() for e in b.events(["spinlock"])]


def test_replay_bad_stream(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"kind":"meta","format":"etwforge-truth","version":1}\n{"kind":"nope"}\n')
    with pytest.raises(etwforge.ScenarioError) as e:
        etwforge.replay(p, tmp_path / "b.etl")
    assert e.value.line == 2 and str(e.value).startswith(f"{p}:2:")
