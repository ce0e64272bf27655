# SPDX-License-Identifier: MIT
"""etwforge.Stream: the builder against hand-written JSON Lines, its replay,
and bad fields raising at the call with the field's name."""
import json

import pytest

import etwforge

# etwforge-truth(5)'s example, typed by hand
EDGE = """\
{"kind":"meta","format":"etwforge-truth","version":1,"target":"win10-1507","cpus":1,"sessions":[{"name":"NT Kernel Logger","clock":"qpc","flags":["cswitch","compact_cswitch"]}]}
{"kind":"cswitch","cpu":0,"tick":1,"ts":{"qpc":1000},"old_tid":0,"new_tid":4096}
{"kind":"cswitch","cpu":0,"tick":1,"ts":{"qpc":1073742824},"old_tid":4096,"old_pri":9,"old_base_pri":8,"old_state":5,"old_wait_reason":6,"new_tid":0}
{"kind":"end","tick":2,"ts":{"qpc":1073743000}}
"""


def edge_stream(end=True):
    s = etwforge.Stream()
    s.meta(target="win10-1507", cpus=1, sessions=[
        {"name": "NT Kernel Logger", "clock": "qpc", "flags": ["cswitch", "compact_cswitch"]}])
    s.cswitch(cpu=0, tick=1, ts=1000, old=0, new=4096)
    s.cswitch(cpu=0, tick=1, ts=1073742824, old_tid=4096, old_pri=9, old_base_pri=8,
              old_state=5, old_wait_reason=6, new_tid=0)
    return s.end(tick=2, ts=1073743000) if end else s


def test_builder_equals_hand_written_lines(tmp_path):
    s = edge_stream()
    assert s.lines() == [json.loads(x) for x in EDGE.splitlines()]
    s.write(tmp_path / "b.jsonl")
    assert [json.loads(x) for x in open(tmp_path / "b.jsonl")] == s.lines()


def test_builder_file_equals_hand_written_file(tmp_path):
    (tmp_path / "h.jsonl").write_text(EDGE)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    etwforge.replay(tmp_path / "h.jsonl", tmp_path / "a" / "h.etl")
    edge_stream().replay(tmp_path / "b" / "h.etl")
    with etwforge.open(tmp_path / "a" / "h.etl") as a, \
            etwforge.open(tmp_path / "b" / "h.etl") as b:
        assert [e.as_dict() for e in a.records()] == [e.as_dict() for e in b.records()]


def test_replay_then_verify_and_read(tmp_path):
    s = edge_stream()
    r = s.replay(tmp_path / "e.etl", truth=tmp_path / "e.jsonl")
    assert r.switches == 2 and r.batches_by_reason["end"] == 1
    assert etwforge.verify(tmp_path / "e.etl", tmp_path / "e.jsonl").compact == 2
    with etwforge.open(tmp_path / "e.etl") as f:
        sw = [e for e in f if e.kind == "cswitch"]
    # a CPU's last compact switch does not know its new thread
    assert [(e.old_tid, e.get("new_tid")) for e in sw] == [(0, 4096), (4096, None)]
    # the 30-bit delta field wraps to 0 at exactly 0x40000000: a reader sees no time pass
    assert sw[1].delta == 0 and sw[1].ts == 1000


@pytest.mark.parametrize("bad,field,words", [
    ({"old_wiat_reason": 3}, "old_wiat_reason", "did you mean 'old_wait_reason'"),
    ({"old_pri": 99}, "old_pri", "out of range 0..31"),
    ({"cpu": 4}, "cpu", "out of range"),
    ({"new_pri_decrement": "x"}, "new_pri_decrement", ""),
])
def test_bad_field_raises_at_the_call(bad, field, words):
    s = edge_stream(end=False)  # a line after the end line is refused as such
    kw = {"cpu": 0, "ts": 2_000_000_000, "old": 0, "new": 5}
    kw.update(bad)
    with pytest.raises(etwforge.StreamError) as e:
        s.cswitch(**kw)
    assert e.value.field == field and words in str(e.value)
    assert str(e.value).startswith("stream:4: ")
    assert len(s.lines()) == 3  # the bad line was not added


def test_identity_lines(tmp_path):
    s = etwforge.Stream().meta(cpus=2, sessions=[
        {"name": "NT Kernel Logger", "clock": "qpc",
         "flags": ["cswitch", "proc_thread", "dispatcher", "profile"]}])
    s.process(cpu=0, ts=100, event="dcstart", pid=516, image="explorer.exe", key="0xffff1000")
    s.thread(cpu=0, ts=100, event="dcstart", pid=516, tid=4096, name="CrBrowserMain")
    s.ready(cpu=1, ts=150, tid=4096, adjust_reason=1, adjust_increment=1)
    s.cswitch(cpu=1, tick=1, ts=200, old=0, new=4096, new_pri=9)
    s.sample(cpu=1, ts=250, ip="0x7ff600201234", tid=4096, priority=9)
    s.cswitch(cpu=1, tick=1, ts=300, old=4096, new=0)
    s.thread(cpu=0, ts=400, event="end", pid=516, tid=4096)
    s.replay(tmp_path / "i.etl", truth=tmp_path / "i.jsonl")
    etwforge.verify(tmp_path / "i.etl", tmp_path / "i.jsonl")
    with etwforge.open(tmp_path / "i.etl") as f:
        evs = {e.kind: e for e in f}
    assert evs["process"].image == "explorer.exe" and evs["process"].pid == 516
    assert evs["thread"].tid == 4096
    assert evs["ready"].tid == 4096 and evs["ready"].adjust_reason == 1
    assert evs["sample"].ip == "0x7ff600201234"
    with pytest.raises(etwforge.StreamError) as e:
        s.process(cpu=0, ts=500, event="dcstart", pid=1, image="x", colour="red")
    assert e.value.field == "colour"


def test_meta_first_and_once():
    s = etwforge.Stream().meta(cpus=2)
    with pytest.raises(etwforge.StreamError):
        s.meta(cpus=2)
    with pytest.raises(etwforge.StreamError) as e:
        etwforge.Stream().meta(cpus=0)
    assert e.value.field == "cpus" and str(e.value).startswith("stream:1: ")


def test_unchecked_stream_is_checked_by_replay(tmp_path):
    s = etwforge.Stream(check=False).meta(cpus=1)
    s.cswitch(cpu=0, ts=10, old=0, new=1, old_pri=99)
    with pytest.raises(etwforge.ScenarioError) as e:
        s.replay(tmp_path / "u.etl")
    assert str(e.value) == "stream:2: old_pri: 99 is out of range 0..31"
