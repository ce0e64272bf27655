# SPDX-License-Identifier: MIT
"""Images, sampled stacks and where an address is, through File.schedule()
(etwforge_analysis_image/_stack/_locate/_call_node*), on the PerfView
sample (tests/data/samples/perfview_net.4.5.2.x64.etl): the images the
merge identified, a sample's stack joined from its two cached keys (its
frames typed from the records' bytes in the sample's documentation), the
folded stacks against `etwforge dump --folded`, and a symbol store."""
import os
import subprocess

import pytest

import etwforge
from conftest import cli

SAMPLES = os.environ.get("ETWFORGE_SAMPLES", os.path.join(os.path.dirname(__file__), "..",
                                                          "data", "samples"))
P_FILE = os.path.join(SAMPLES, "perfview_net.4.5.2.x64.etl")
NTDLL_ID = "6048FDB62DCD41C18835594844CE71432"  # ntdll.pdb's GUID and age 2


@pytest.fixture(scope="module")
def sched():
    if not os.path.exists(P_FILE):
        pytest.skip("no PerfView sample")
    with etwforge.open(P_FILE) as f:
        yield f.schedule(samples=True)


def test_images_with_their_identities(sched):
    im = sched.images
    rows = [r for r in im.rows() if r["pid"] == 3676 and r["base"] == 0x7F9D02F0000]
    assert rows, "ntdll.dll in Test.x64.exe (P b38+0x81E8)"
    r = rows[0]
    assert (r["name"], r["size"], r["timestamp"]) == ("ntdll.dll", 0x1BE000, 0x5010ACD2)
    assert (r["pdb"], r["guid"], r["age"]) == ("ntdll.pdb",
                                               "{6048FDB6-2DCD-41C1-8835-594844CE7143}", 2)
    kernel = [r for r in im.rows() if r["pid"] == 0 and r["name"] == "ntoskrnl.exe"]
    assert kernel and kernel[0]["base"] == 0xFFFFF80021489000 and kernel[0]["process"] == -1
    assert sched.totals["images"] == len(im)
    assert sum(im.samples) == sched.totals["samples_in_image"]


def test_a_sample_and_its_joined_stack(sched):
    s = sched.samples
    assert len(s) == sched.totals["samples"] == 79528
    stacked = [i for i in range(len(s)) if s.stack[i] >= 0]
    assert len(stacked) == sched.totals["samples_stacked"] == 6318
    depth = sched.hist(None, "depth")
    assert sum(depth) == 6318
    assert depth[4] == sum(1 for i in stacked  # [16, 32) frames
                           if 16 <= len(sched.stack(s.stack[i])["frames"]) < 32)
    with pytest.raises(ValueError):
        sched.hist(0, "depth")
    # P b21+0x16C8: TID 0xAC0, IP 0xFFFFF80021434313, kernel key ...442250, user key ...442390
    hits = [i for i in stacked if s.tid[i] == 0xAC0 and s.ip[i] == 0xFFFFF80021434313
            and len(sched.stack(s.stack[i])["frames"]) == 30]
    assert hits
    st = sched.stack(s.stack[hits[0]])
    assert st["kernel_frames"] == 15
    assert st["frames"][:2] == [0xFFFFF80021434313, 0xFFFFF8002142FBB9]
    assert st["frames"][14:17] == [0xFFFFF80021503053, 0x7F9D02F2C1A, 0x7F9CF9E1AC6]
    assert st["frames"][-1] == 0x7F9D030C3F1
    assert s.pid[hits[0]] == 1188
    w = sched.locate(1188, 0x7F9D02F2C1A, s.t[hits[0]])
    assert (w["module"], w["function"], w["offset"], w["text"]) == (
        "ntdll.dll", None, 0x2C1A, "ntdll.dll+0x2c1a")
    assert sched.locate(1188, 0x1234)["text"] == "0x1234"
    with pytest.raises(IndexError):
        sched.stack(sched.totals["stacks"])


def test_folded_is_dump_folded(sched, tmp_path):
    folded = sched.folded()
    assert sum(folded.values()) == sched.totals["samples"]
    tree = sched.call_tree()
    assert tree.name[0] == "all" and tree.samples[0] == sched.totals["samples"]
    if not cli():
        pytest.skip("ETWFORGE_BIN is not set")
    out = tmp_path / "p.txt"
    subprocess.run([cli(), "dump", P_FILE, "--folded", str(out)], check=True)
    lines = {}
    for line in out.read_text().splitlines():
        stack, n = line.rsplit(" ", 1)
        lines[stack] = int(n)
    assert lines == folded


def test_symbol_store(tmp_path):
    if not os.path.exists(P_FILE):
        pytest.skip("no PerfView sample")
    d = tmp_path / "sym" / "ntdll.pdb" / NTDLL_ID
    d.mkdir(parents=True)
    (d / "ntdll.sym").write_text(f"MODULE windows x86_64 {NTDLL_ID} ntdll.pdb\n"
                                 "FUNC 2c00 40 8 RtlUserThreadStart\n")
    with etwforge.open(P_FILE) as f:
        s = f.schedule(detail="counts", symbols=tmp_path / "sym")
        w = s.locate(1188, 0x7F9D02F2C1A, 10**9)
        assert w["text"] == "ntdll.dll!RtlUserThreadStart+0x1a"
        assert any(s.images.symbols)
        with pytest.raises(ValueError, match="cannot open"):
            f.schedule(symbols=tmp_path / "none")
        (d / "ntdll.sym").write_text("FUNC 2c00 40 8 RtlUserThreadStart\n")
        with pytest.raises(etwforge.ETLError, match=r"ntdll.sym:1: not a Breakpad symbol file"):
            f.schedule(symbols=tmp_path / "sym")
