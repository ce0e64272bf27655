# SPDX-License-Identifier: MIT
"""etwforge.open(): the header, events, records against `dump --jsonl` (on a
generated file and the Windows samples), the columns, bytes, and damage."""
import glob
import os

import pytest

import etwforge
from conftest import dump_jsonl


def test_records_equal_dump_jsonl(gen_files):
    etl, _, _ = gen_files
    lines, rc = dump_jsonl(etl)
    assert rc == 0
    with etwforge.open(etl) as f:
        assert f.header == lines[0]
        assert [e.as_dict() for e in f.records()] == lines[1:]


def samples():
    d = os.environ.get("ETWFORGE_SAMPLES", os.path.join(os.path.dirname(__file__), "..", "data",
                                                        "samples"))
    return sorted(glob.glob(os.path.join(d, "*.etl")))


@pytest.mark.parametrize("path", samples(), ids=os.path.basename)
def test_windows_samples_equal_dump_jsonl(path):
    lines, rc = dump_jsonl(path, "--keep-going")
    with etwforge.open(path, keep_going=True) as f:
        assert f.header == lines[0]
        got = [e.as_dict() for e in f.records()]
        assert got == lines[1:]
        assert (rc != 0) == bool(f.damage)
        for ev in f.events():
            assert ev.kind in ("cswitch", "spinlock", "process", "thread", "thread_name",
                               "ready", "sample", "interval", "config", "rundown")


def test_events_and_columns_agree(gen_files):
    etl, truth, s = gen_files
    with etwforge.open(etl) as f:
        evs = list(f.events(["cswitch"]))
        sw = f.switches()
        assert len(sw) == len(evs) == s.switches
        assert list(sw.ts) == [e.ts for e in evs]
        assert list(sw.old_tid) == [e.old_tid for e in evs]
        assert list(sw.new_tid) == [e.get("new_tid", 0) for e in evs]
        assert list(sw.new_tid_known) == [int("new_tid" in e.as_dict()) for e in evs]
        assert list(sw.cpu) == [e.cpu for e in evs]
        assert list(sw.file_offset) == [e.file_offset for e in evs]
        assert [etwforge.FORM_NAMES[x] for x in sw.form] == [e.get("form", "plain")
                                                            for e in evs]
        chunks = list(f.switch_chunks(100))
        assert sum(len(c) for c in chunks) == len(sw)
        assert all(len(c) == 100 for c in chunks[:-1])
        spins = list(f.events(["spinlock"]))
        assert len(spins) == s.spinlock_events
        assert all(e.lock.startswith("0x") and e.kind == "spinlock" for e in spins)
        timed = [e.ts for e in f.events(["cswitch", "spinlock"], order="time")]
        assert timed == sorted(timed)


def test_events_are_immutable(gen_files):
    with etwforge.open(gen_files[0]) as f:
        ev = next(iter(f))
    with pytest.raises(AttributeError):
        ev.ts = 5
    with pytest.raises(AttributeError):
        ev.no_such_field
    assert ev.get("no_such_field", 7) == 7


def test_events_read_late_copy_and_pickle(gen_files):
    import copy
    import pickle
    lines, rc = dump_jsonl(gen_files[0])
    assert rc == 0
    with etwforge.open(gen_files[0]) as f:
        evs = list(f.records())
        again = list(f.records())
    # one event's fields asked for first, its twin's never before: the same event
    assert evs[5].as_dict() == lines[6]
    assert again[5] == evs[5] and evs[5] == again[5] and hash(again[5]) == hash(evs[5])
    for ev in (evs[1], evs[-1], evs[len(evs) // 2]):
        for twin in (copy.copy(ev), copy.deepcopy(ev), pickle.loads(pickle.dumps(ev))):
            assert twin == ev and repr(twin) == repr(ev)
            assert (twin.kind, twin.cpu, twin.ts, twin.file_offset, twin.compact) == (
                ev.kind, ev.cpu, ev.ts, ev.file_offset, ev.compact)
    with pytest.raises(AttributeError):
        evs[2]._private


def test_identity_fields_by_truth_names(gen_files):
    with etwforge.open(gen_files[0]) as f:
        procs = list(f.events(["process"]))
        threads = list(f.events(["thread"]))
    assert any(p.image == "System" for p in procs)
    assert all(p.event in ("dcstart", "dcend", "start", "end", "defunct") for p in procs)
    assert threads and all(isinstance(t.tid, int) and t.ctx_tid is not None for t in threads)


def test_unknown_kind(gen_files):
    with etwforge.open(gen_files[0]) as f, pytest.raises(ValueError):
        f.events(["nope"])


def test_open_bytes(gen_files):
    data = open(gen_files[0], "rb").read()
    with etwforge.open(data) as a, etwforge.open(gen_files[0]) as b:
        assert a.switches().columns() == b.switches().columns()


def test_not_an_etl_file(tmp_path):
    with pytest.raises(etwforge.ETLError) as e:
        etwforge.open(b"not an etl file at all" * 10)
    assert "not an ETL file" in str(e.value)
    with pytest.raises(etwforge.NoSuchFileError):
        etwforge.open(tmp_path / "missing.etl")


def test_damaged_files_raise_with_the_offset_dump_reports(tmp_path):
    entries = etwforge.corpus(tmp_path / "m", seed=3, mangle=True)
    broken = [e for e in entries if e.get("expect", {}).get("status") == 1]
    assert broken
    for e in broken:
        p = tmp_path / "m" / e["file"]
        want = e["expect"]
        with pytest.raises(etwforge.ETLError) as err:
            with etwforge.open(p) as f:
                list(f.records())
        assert want["message"] in str(err.value), e["id"]
        if "offset" in want and "not an ETL file" not in str(err.value):
            assert err.value.offset == int(want["offset"], 16), e["id"]
        try:
            f = etwforge.open(p, keep_going=True)
        except etwforge.ETLError:
            continue  # the header buffer itself is broken: nothing to keep going with
        with f:
            list(f.records())
            f.switches()
            assert f.damage and all(isinstance(d, etwforge.ETLError) for d in f.damage)
