# SPDX-License-Identifier: MIT
"""The same numbers everywhere: for every example scenario, with its
sessions as they are, all plain (no compact_cswitch) and all compact (these
two logging processes, threads and ReadyThread in every session), each
session's file is read by `dump --stats --jsonl`, `dump --chrome-trace`,
`dump --timeline`, File.schedule() at both levels of detail, and the truth
gen wrote: wake-ups paired, switches attributed to a named thread and CPU
time per process agree.

The truth side is worked out here, from the truth's lines alone, with what
the file can know: a ReadyThread is a wake-up when its thread switches in
at its time or later (a compact switch's new thread is the next switch's
old one, so a CPU's last compact switch names nobody); a switch is
attributed when a Thread record (the truth's thread lines, when the session
logs them) names its new thread; a CPU's time belongs to the thread a
switch put there until the next switch (before a CPU's first switch, its
old thread since the session start; after its last, the new thread until
the end of tracing, unknown for a compact one).
"""
import collections
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

import etwforge
from conftest import SCENARIOS, cli

DURATION = {"server64.yaml": "60ms"}  # 64 CPUs: a short trace is plenty
NS = 10**9


def run(*args):
    p = subprocess.run([cli(), *args], capture_output=True, text=True)
    assert p.returncode == 0, f"etwforge {' '.join(args)}: {p.stderr}"
    return p.stdout


def span_ns(ticks, hz):
    """The library's ticks -> ns: whole seconds, then the rest, rounded down."""
    q, r = divmod(ticks, hz)
    return q * NS + r * NS // hz


def ts_at(ns, start_ts, hz):
    """The first timestamp at @ns since the start or later (the end of tracing's)."""
    q, r = divmod(ns, NS)
    return start_ts + q * hz + -(-r * hz // NS)


def truth_of(path):
    lines = [json.loads(line) for line in open(path)]
    return lines[0], lines[1:]


def expected(meta, lines, session, start_ts, end_ns):
    """What session @session's file says, worked out from the truth."""
    s = meta["sessions"][session]
    flags, clock = set(s["flags"]), s["clock"]
    compact = "compact_cswitch" in flags
    hz = {"qpc": meta["perf_freq"], "systime": 10**7, "cycles": meta["cpu_mhz"] * 10**6}[clock]
    end_ts = ts_at(end_ns, start_ts, hz)
    per_cpu = collections.defaultdict(list)
    pid_of = {}
    readies = []
    for o in lines:
        k = o["kind"]
        if k == "cswitch":
            per_cpu[o["cpu"]].append((o["ts"][clock], o["old_tid"], o["new_tid"]))
        elif k == "thread" and "proc_thread" in flags and o["tid"]:
            pid_of[o["tid"]] = o["pid"]
        elif k == "ready" and "dispatcher" in flags:
            readies.append((o["ts"][clock], o["tid"]))
    attributed = unattributed = 0
    last_in = {}
    ticks = collections.Counter()
    for cpu, sw in per_cpu.items():
        owner, prev = sw[0][1], start_ts
        for i, (ts, old, new) in enumerate(sw):
            ticks[pid_of.get(owner, "outside") if owner else "idle"] += max(ts - prev, 0)
            known = not compact or i + 1 < len(sw)
            owner, prev = (new if known else None), ts
            if known and new:
                last_in[new] = max(last_in.get(new, ts), ts)
                if new in pid_of:
                    attributed += 1
                else:
                    unattributed += 1
        if owner is not None:  # a plain switch names who ran until the end
            ticks[pid_of.get(owner, "outside") if owner else "idle"] += max(end_ts - prev, 0)
    wakeups = sum(1 for ts, tid in readies if tid and ts <= last_in.get(tid, -1))
    cpu = {pid: span_ns(t, hz) for pid, t in ticks.items() if pid not in ("idle", "outside")}
    return {"wakeups": wakeups, "readies": len(readies), "attributed": attributed,
            "unattributed": unattributed, "cpu": cpu}


def rows_of(sch):
    """The thread rows as (tid, pid, named, cpu_ns, switch_ins, samples), sorted: the rows
    of threads no record names are made as a reading meets them, in its order."""
    th = sch.threads
    return sorted(zip(th.tid, th.pid, th.named, th.cpu_ns, th.switch_ins, th.samples))


def chrome_numbers(path):
    ev = json.load(open(path))["traceEvents"]
    flows = sum(1 for e in ev if e["ph"] == "f")
    on_cpus = [e for e in ev if e["ph"] == "X" and e["pid"] == 1]
    switch_ins = sum(1 for e in on_cpus if not e["args"].get("from_start"))
    per_pid = collections.Counter()
    slices = collections.Counter()
    for e in ev:
        if e["ph"] == "X" and e["pid"] != 1:
            per_pid[e["pid"]] += round(e["dur"] * 1000)
            slices[e["pid"]] += 1
    return flows, switch_ins, per_pid, slices


def timeline_numbers(path):
    texts = [t.text or "" for t in ET.parse(path).getroot().iter("{http://www.w3.org/2000/svg}text")]
    wake = 0
    for t in texts:
        m = re.match(r"(?:arrows: (\d+) wake-ups|wake-ups: (\d+) here)", t)
        if m:
            wake = int(m.group(1) or m.group(2))
    shares = {}
    for t in texts:
        m = re.match(r".* \(PID (\d+)\) ([\d.]+)%:", t)
        if m:
            shares[int(m.group(1))] = float(m.group(2))
    return wake, shares


def with_identity(f):
    """@f with the records that name threads and wake them (every session that logs switches)."""
    return f + [x for x in ("proc_thread", "dispatcher") if x not in f and "cswitch" in f]


def variants(meta):
    """The scenario's sessions as they are, all plain, all compact (each with
    processes, threads and ReadyThread): --set lists."""
    out = {"as-is": []}
    for name, fix in (("plain", lambda f: with_identity([x for x in f if x != "compact_cswitch"])),
                      ("compact", lambda f: with_identity(f + ["compact_cswitch"] * (
                          "compact_cswitch" not in f and "cswitch" in f)))):
        sets = []
        for i, s in enumerate(meta["sessions"]):
            flags = fix(list(s["flags"]))
            if flags != s["flags"]:
                sets += ["--set", f"sessions.{i}.flags=[{', '.join(flags)}]"]
        if sets:
            out[name] = sets
    return out


@pytest.mark.parametrize("scenario", sorted(f for f in os.listdir(SCENARIOS)
                                            if f.endswith(".yaml")))
def test_same_numbers_everywhere(tmp_path, scenario):
    if not cli():
        pytest.skip("ETWFORGE_BIN is not set")
    dur = DURATION.get(scenario, "300ms")
    base = [os.path.join(SCENARIOS, scenario), "--duration", dur]
    first = tmp_path / "first.jsonl"
    run("gen", *base, "-o", str(tmp_path / "first.etl"), "--truth", str(first), "-q")
    meta, _ = truth_of(first)
    checked = 0
    for name, sets in variants(meta).items():
        d = tmp_path / name
        d.mkdir()
        truth = d / "t.jsonl"
        run("gen", *base, *sets, "-o", str(d / "t.etl"), "--truth", str(truth), "-q")
        meta, lines = truth_of(truth)
        for i, s in enumerate(meta["sessions"]):
            etl = str(d / s["file"]) if not os.path.isabs(s["file"]) else s["file"]
            if not os.path.exists(etl):
                etl = str(d / os.path.basename(s["file"]))
            what = f"{scenario} {name} session {i} ({etl})"
            with etwforge.open(etl) as f:
                start_ts = f.header["start_ts"]
                full = f.schedule()
                counts = f.schedule(detail="counts")
            t = full.totals
            want = expected(meta, lines, i, start_ts, t["end_ns"])
            py_cpu = {p: n for p, n in full.cpu_by_process().items() if n}
            # Python, at both levels of detail
            for sch, level in ((full, "full"), (counts, "counts")):
                tt = sch.totals
                assert tt["wakeups"] == want["wakeups"], f"{what}: {level} wake-ups"
                assert tt["readies"] == want["readies"], f"{what}: {level} readies"
                assert tt["attributed"] == want["attributed"], f"{what}: {level} attributed"
                assert tt["unattributed"] == want["unattributed"], f"{what}: {level}"
                got = {p: n for p, n in sch.cpu_by_process().items() if n}
                assert got == want["cpu"], f"{what}: {level} CPU time per process"
            assert rows_of(counts) == rows_of(full), f"{what}: thread rows, counts and full"
            assert counts.totals["switches"] == t["switches"], what
            assert list(counts.cpus.busy_ns) == list(full.cpus.busy_ns), what
            assert counts.totals["idle_ns"] == t["idle_ns"], what
            # dump --stats --jsonl
            st = json.loads(run("dump", "--stats", "--jsonl", etl))
            assert st["wakeups"] == want["wakeups"], what
            assert st["ready_thread"] == want["readies"], what
            assert st["switches"] == {"attributed": want["attributed"],
                                      "unattributed": want["unattributed"]}, what
            stats_cpu = collections.Counter()
            for p in st["cpu_time"]["by_process"]:
                stats_cpu[p["pid"]] += p["cpu_ns"]
            assert {p: n for p, n in stats_cpu.items() if n} == want["cpu"], what
            # the pictures
            svg, js = str(d / f"{i}.svg"), str(d / f"{i}.json")
            run("dump", etl, "--timeline", svg, "--chrome-trace", js)
            flows, switch_ins, per_pid, slices = chrome_numbers(js)
            assert flows == want["wakeups"], f"{what}: Chrome flows"
            assert switch_ins == want["attributed"] + want["unattributed"], what
            for pid, ns in want["cpu"].items():
                # each slice is turned into ns on its own: at most 1 ns off a slice
                assert abs(per_pid[pid] - ns) <= slices[pid], f"{what}: Chrome PID {pid}"
            wake, shares = timeline_numbers(svg)
            assert wake == want["wakeups"], f"{what}: timeline wake-ups"
            total = t["end_ns"] * t["cpus"]
            for pid, share in shares.items():
                assert abs(share - 100 * want["cpu"].get(pid, 0) / total) <= 0.05 + 1e-9, \
                    f"{what}: timeline share of PID {pid}"
            assert py_cpu == want["cpu"], what
            checked += 1
    assert checked >= 2, scenario


def test_time_order_holds_every_kind(gen_files):
    """ETWFORGE_ORDER_TIME gives every decoded kind, each once, in time order;
    a thread's start comes before its first sample."""
    etl, _, _ = gen_files
    with etwforge.open(etl) as f:
        by_cpu = collections.Counter(e.kind for e in f.events(order="cpu"))
        ev = list(f.events(order="time"))
    assert collections.Counter(e.kind for e in ev) == by_cpu
    assert all(a.ts <= b.ts for a, b in zip(ev, ev[1:]))
    assert {"process", "thread", "cswitch"} <= set(by_cpu)


def test_time_order_refuses_records(gen_files):
    etl, _, _ = gen_files
    with etwforge.open(etl) as f:
        with pytest.raises(etwforge.Error, match="time order gives events"):
            list(f.events(kinds=["record"], order="time"))


def test_schedule_safe_after_close_and_from_threads(tmp_path):
    """A Schedule's tables outlive its file; its library calls after close()
    raise ValueError; schedules made from one file by several threads, while
    another closes it, never crash."""
    import threading
    etl = tmp_path / "d.etl"
    etwforge.generate(os.path.join(SCENARIOS, "desktop.yaml"), etl, duration="100ms")
    f = etwforge.open(etl)
    s = f.schedule()
    f.close()
    assert len(s.threads) and s.totals["switches"] > 0
    ran = max(range(len(s.threads)), key=lambda i: s.threads.bursts[i])
    assert sum(s.hist(ran, "burst")) == s.threads.bursts[ran] > 0
    with pytest.raises(ValueError, match="closed"):
        f.schedule()
    s.close()
    with pytest.raises(ValueError, match="closed"):
        s.ips(0)
    f = etwforge.open(etl)
    errors = []

    def work():
        for _ in range(5):
            try:
                sch = f.schedule(wakeups=True)
                sch.ips(None)
            except ValueError:
                pass  # closed meanwhile
            except Exception as e:  # anything else is a bug
                errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    f.close()
    for t in threads:
        t.join()
    assert not errors
