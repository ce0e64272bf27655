# SPDX-License-Identifier: MIT
"""etwforge.verify() and corpus(), their results and errors."""
import json
import os

import pytest

import etwforge


def test_verify_ok(gen_files):
    etl, truth, s = gen_files
    v = etwforge.verify(etl, truth)
    assert v.session == "NT Kernel Logger"
    assert v.switches == s.switches == v.plain + v.compact
    assert v.spinlocks == s.spinlock_events and v.identity > 0


def test_verify_mismatch_names_the_truth_line(gen_files, tmp_path):
    etl, truth, _ = gen_files
    lines = open(truth).read().splitlines()
    n = next(i for i, x in enumerate(lines) if json.loads(x)["kind"] == "spinlock"
             and json.loads(x)["logged"])
    d = json.loads(lines[n])
    d["spin_count"] += 1
    lines[n] = json.dumps(d)
    (tmp_path / "t.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(etwforge.VerifyError) as e:
        etwforge.verify(etl, tmp_path / "t.jsonl")
    assert e.value.truth_line == n + 1 and e.value.offset is not None
    assert e.value.truth_path == str(tmp_path / "t.jsonl")
    assert "offset 0x" in str(e.value) and e.value.kind == "data"


def test_verify_errors(gen_files, tmp_path):
    etl, truth, _ = gen_files
    with pytest.raises(etwforge.NoSuchFileError):
        etwforge.verify(etl, tmp_path / "missing.jsonl")
    with pytest.raises(etwforge.Error):
        etwforge.verify(tmp_path / "missing.etl", truth)
    with pytest.raises(etwforge.Error) as e:
        etwforge.verify(etl, truth, session="no such session")
    assert "no session of" in str(e.value)


def test_corpus_manifest(tmp_path):
    entries = etwforge.corpus(tmp_path / "c", seed=7, zip_name="etl")
    assert entries and all(e.get("seed", 7) == 7 for e in entries)
    made = [e for e in entries if e.get("kind") != "pending" and "xxh3" in e]
    assert made
    for e in made:
        p = tmp_path / "c" / e["file"]
        assert p.exists()
        with etwforge.open(p) as f:
            list(f.records())
    assert os.path.exists(tmp_path / "c" / "etl_seed_corpus.zip")
    again = etwforge.corpus(tmp_path / "d", seed=7)
    assert [e["xxh3"] for e in again if "xxh3" in e] == [e["xxh3"] for e in made]


def test_corpus_error(tmp_path):
    (tmp_path / "f").write_text("a file, not a folder")
    with pytest.raises(etwforge.Error):
        etwforge.corpus(tmp_path / "f" / "sub")
