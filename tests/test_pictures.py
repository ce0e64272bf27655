#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_pictures.py CASE - `etwforge dump --timeline / --chrome-trace /
--flamegraph / --folded` from the outside: the SVGs parse and stay bounded,
the Chrome trace is valid trace-event JSON whose slices are the switches
and whose samples carry their stacks, the folded stacks hold every sample
once, and the inferred
flush reasons and spin-lock kinds agree with what gen or the stream say.

The binary is $ETWFORGE_BIN; fixtures are in tests/data/see/ (argv[2]).
Each case is one meson test; exit status 0 passes, anything else fails
with the reason on stderr.
"""
import collections
import colorsys
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

BIN = os.environ["ETWFORGE_BIN"]
DATA = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "data", "see")
SVG = "{http://www.w3.org/2000/svg}"
SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "scenarios")
REASONS = ["tid_full", "ticks", "size", "delta", "end", "unknown"]


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def run(*args, status=0, stdout=None):
    """Run etwforge with ARGS; check its exit status; return (stdout, stderr)."""
    p = subprocess.run([BIN, *args], stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.decode(errors="replace") if p.stdout is not None else ""
    err = p.stderr.decode(errors="replace")
    check(p.returncode == status,
          f"etwforge {' '.join(args)}: exit {p.returncode}, wanted {status}; stderr: {err.strip()}")
    return out, err


# the pictures of a file without Process/Thread records (tests/test_identity_views.c
# draws the ones with them): the default scenario's first session without proc_thread
NO_IDENTITY = ("-s", "sessions.0.flags=[cswitch, compact_cswitch]")


def gen(tmp, name, *args):
    """gen into TMP/NAME.etl (no identity records); return gen's --json summary."""
    out, _ = run("gen", *NO_IDENTITY, *args, "-o", os.path.join(tmp, name + ".etl"), "--json",
                 "-q")
    return json.loads(out)


def svg_of(path):
    """Parse an SVG; return (root, number of elements)."""
    root = ET.parse(path).getroot()
    check(root.tag == SVG + "svg", f"{path}: the root is {root.tag}, not svg")
    return root, sum(1 for _ in root.iter())


def legend_counts(root):
    """The legend's 'LABEL: N' texts as a dict."""
    counts = {}
    for t in root.iter(SVG + "text"):
        if t.text and ": " in t.text and t.text.rsplit(": ", 1)[1].isdigit():
            label, n = t.text.rsplit(": ", 1)
            counts[label] = int(n)
    return counts


LEGEND = {"tid_full": "TID table full", "ticks": "> 500 ticks", "size": "size (0x400)",
          "delta": "delta > 2^30", "end": "end of trace", "unknown": "unknown (stop, loss)"}


def cpu_labels(root):
    return [t.text for t in root.iter(SVG + "text") if t.text and t.text.startswith("CPU ")]


def chrome_of(path):
    """Parse a Chrome trace and check every event's schema. Return the events."""
    with open(path) as f:
        doc = json.load(f)
    check(isinstance(doc, dict), "the trace is not a JSON object")
    check(doc.get("displayTimeUnit") in ("ms", "ns"), "displayTimeUnit is missing")
    ev = doc.get("traceEvents")
    check(isinstance(ev, list), "traceEvents is not a list")
    num = (int, float)
    for e in ev:
        check(isinstance(e.get("name"), str) and e["name"], f"event without a name: {e}")
        # pid 1 is the session, a track per CPU; any other pid is a process the file
        # names (Process/Thread records), a track per thread it names
        check(isinstance(e.get("pid"), int) and e["pid"] >= 1, f"bad pid: {e}")
        check(isinstance(e.get("tid"), int) and e["tid"] >= 1, f"bad tid: {e}")
        ph = e.get("ph")
        if ph == "M":
            check(e["name"] in ("process_name", "thread_name", "thread_sort_index"), f"{e}")
            check(isinstance(e.get("args"), dict) and e["args"], f"metadata without args: {e}")
        elif ph == "X":
            check(isinstance(e.get("ts"), num) and isinstance(e.get("dur"), num), f"{e}")
            check(e["dur"] >= 0, f"negative duration: {e}")
            check(e.get("cat") == "thread", f"{e}")
            check(isinstance(e["args"].get("tid"), int) and e["args"]["tid"] != 0, f"{e}")
            if e["pid"] == 1:
                check(e["args"].get("cpu") == e["tid"] - 1, f"track and cpu disagree: {e}")
            else:
                check(e["args"]["tid"] == e["tid"], f"a slice on another thread's track: {e}")
        elif ph == "i":
            check(e.get("s") == "t" and isinstance(e.get("ts"), num), f"{e}")
            check(e.get("cat") in ("batch", "spinlock"), f"{e}")
            if e["cat"] == "batch":
                check(e["name"] == "flush: " + e["args"]["reason"], f"{e}")
                check(e["args"]["reason"] in REASONS, f"{e}")
            else:
                check(e["name"] == "spinlock: " + e["args"]["kind"], f"{e}")
        elif ph in ("s", "f"):
            check(e.get("cat") == "wakeup" and isinstance(e.get("id"), int), f"{e}")
            check(isinstance(e.get("ts"), num), f"{e}")
            check(ph == "s" or e.get("bp") == "e", f"a flow's end not bound to its slice: {e}")
        elif ph == "P":
            # a sample: where its IP is, its stack's innermost frame in stackFrames
            check(e.get("cat") == "sample" and isinstance(e.get("ts"), num), f"{e}")
            check(re.fullmatch(r"0x[0-9a-f]+", e["args"].get("ip", "")), f"{e}")
            if e["pid"] == 1:
                check(e["args"].get("cpu") == e["tid"] - 1, f"track and cpu disagree: {e}")
            else:
                check(e["args"]["tid"] == e["tid"], f"a sample on another thread's track: {e}")
            check("sf" not in e or e["sf"] in doc.get("stackFrames", {}), f"no frame: {e}")
        else:
            raise Fail(f"unexpected phase {ph}: {e}")
    frames = doc.get("stackFrames", {})
    check(isinstance(frames, dict), "stackFrames is not an object")
    for k, fr in frames.items():
        check(isinstance(fr.get("name"), str) and fr["name"], f"frame {k}: {fr}")
        check(isinstance(fr.get("category"), str), f"frame {k}: {fr}")
        check("parent" not in fr or fr["parent"] in frames, f"frame {k}: no parent {fr}")
    return ev


def folded_of(path):
    """Parse folded stacks ("a;b;c N" lines). Return {stack: count}."""
    out = {}
    with open(path, encoding="utf-8", errors="strict") as f:
        for line in f:
            check(line.endswith("\n"), f"{path}: a line without its end: {line!r}")
            stack, n = line[:-1].rsplit(" ", 1)
            check(n.isdigit() and int(n) > 0 and stack, f"{path}: {line!r}")
            check(stack not in out, f"{path}: {stack} twice")
            out[stack] = int(n)
    return out


def switches_with_next(etl):
    """Switches of ETL whose new thread is known and not idle, from dump --jsonl."""
    n = total = 0
    out, _ = run("dump", "--jsonl", etl)
    for line in out.splitlines():
        o = json.loads(line)
        if o.get("kind") == "CSWITCH_COMPACT" or o.get("hook") == "0x0524":
            total += 1
            if o.get("new_tid") not in (None, 0):
                n += 1
    return n, total


def flush_counts(events):
    return collections.Counter(e["args"]["reason"] for e in events
                               if e["ph"] == "i" and e["cat"] == "batch")


def summary_reasons(summary):
    r = dict(summary["batches_by_reason"])
    check(r.pop("stop") == 0, "gen flushed on the stop flag: this test does not expect it")
    return {k: v for k, v in r.items() if v}


def check_slices_chain(events):
    """Per CPU track, slices do not overlap."""
    by = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            by[e["tid"]].append((e["ts"], e["ts"] + e["dur"]))
    for tid, s in by.items():
        s.sort()
        for (a0, a1), (b0, _) in zip(s, s[1:]):
            check(a1 <= b0 + 1e-9, f"track {tid}: slice {a0}..{a1} overlaps one at {b0}")


# ---- cases ---------------------------------------------------------------------------------


def case_timeline(tmp):
    """The demo's timeline: parses, 8 lanes, legend counts = gen's batches by reason."""
    s = gen(tmp, "demo")
    svg = os.path.join(tmp, "demo.svg")
    run("dump", os.path.join(tmp, "demo.etl"), "--timeline", svg)
    root, n = svg_of(svg)
    check(cpu_labels(root) == [f"CPU {c}" for c in range(8)], f"lanes: {cpu_labels(root)}")
    check(n < 3000, f"{n} elements for a 2 s, 8-CPU trace")
    got = legend_counts(root)
    for reason, label in LEGEND.items():
        want = s["batches_by_reason"].get(reason, 0)
        check(got.get(label) == want, f"legend {label}: {got.get(label)}, gen says {want}")
    fills = [p.get("fill", "") for p in root.iter(SVG + "path")]
    check(any(f.startswith("#") for f in fills), "no thread drawn")
    # the same thread has the same colour in another picture of another trace
    colours = {}
    for name in ("demo",):
        for p in root.iter(SVG + "path"):
            t = p.find(SVG + "title")
            if t is not None and t.text.startswith("TID ") and p.get("fill-opacity") is None:
                colours[t.text] = p.get("fill")
    # another schedule of the same machine (a lived-in machine's TIDs come from the seed)
    gen(tmp, "other", "--cpus", "4", "--duration", "300ms")
    svg2 = os.path.join(tmp, "other.svg")
    run("dump", os.path.join(tmp, "other.etl"), "--timeline", svg2)
    root2, _ = svg_of(svg2)
    same = 0
    for p in root2.iter(SVG + "path"):
        t = p.find(SVG + "title")
        if t is not None and t.text in colours and p.get("fill-opacity") is None:
            check(p.get("fill") == colours[t.text],
                  f"{t.text}: {p.get('fill')} here, {colours[t.text]} in the demo")
            same += 1
    check(same > 0, "no thread in common between the two pictures")
    # librsvg renders it (tools/scripts/deps.sh installs rsvg-convert; skipped without it)
    if shutil.which("rsvg-convert"):
        png = os.path.join(tmp, "demo.png")
        p = subprocess.run(["rsvg-convert", svg, "-o", png], capture_output=True, text=True)
        check(p.returncode == 0, f"rsvg-convert: {p.stderr}")
        with open(png, "rb") as f:
            head = f.read(24)
        check(head[:8] == b"\x89PNG\r\n\x1a\n", "rsvg-convert wrote no PNG")
        width = int.from_bytes(head[16:20], "big")
        check(width == int(root.get("width")), f"PNG width {width}")


def case_bounded(tmp):
    """A minute of 64 busy CPUs: the SVG stays small, and so does the memory."""
    s = gen(tmp, "long", os.path.join(DATA, "long64.yaml"))
    check(s["cpus"] == 64 and s["switches"] > 1_000_000, f"the trace is too small: {s['switches']}")
    svg = os.path.join(tmp, "long.svg")
    p = subprocess.Popen([BIN, "dump", os.path.join(tmp, "long.etl"), "--timeline", svg])
    _, status, usage = os.wait4(p.pid, 0)
    check(os.waitstatus_to_exitcode(status) == 0, "dump --timeline failed")
    root, n = svg_of(svg)
    size = os.path.getsize(svg)
    check(n < 20000, f"{n} elements")
    check(size < 4 * 1024 * 1024, f"{size} bytes")
    check(len(cpu_labels(root)) == 64, "not 64 lanes")
    # memory grows with lanes x pixel columns, not with switches (the ETL is mapped: count it)
    etl_kb = os.path.getsize(os.path.join(tmp, "long.etl")) // 1024
    slack_kb = (192 if "ASAN_OPTIONS" in os.environ else 48) * 1024
    check(usage.ru_maxrss < etl_kb + slack_kb, f"dump used {usage.ru_maxrss} kB")
    got = legend_counts(root)
    for reason, label in LEGEND.items():
        want = s["batches_by_reason"].get(reason, 0)
        check(got.get(label) == want, f"legend {label}: {got.get(label)}, gen says {want}")


def case_chrome(tmp):
    """Chrome trace: schema, slices = switches with a known, non-idle new thread."""
    s = gen(tmp, "demo")
    for etl in ("demo.etl", "demo-2.etl"):  # compact batches, then plain CSwitch events
        path = os.path.join(tmp, etl)
        out = os.path.join(tmp, etl + ".json")
        run("dump", path, "--chrome-trace", out)
        ev = chrome_of(out)
        slices = sum(1 for e in ev if e["ph"] == "X" and not e["args"].get("from_start"))
        first = [e for e in ev if e["ph"] == "X" and e["args"].get("from_start")]
        check(len(first) <= 8 and all(e["ts"] == 0 for e in first),
              f"{etl}: slices from the session start: {first[:3]} (one per CPU at most, at 0)")
        want, total = switches_with_next(path)
        check(total == s["switches"], f"{etl}: dump lists {total} switches, gen {s['switches']}")
        check(slices == want, f"{etl}: {slices} slices, {want} switches with a known new thread")
        check_slices_chain(ev)
        names = sorted(e["args"]["name"] for e in ev if e["name"] == "thread_name")
        check(names == sorted(f"CPU {c}" for c in range(8)), f"tracks: {names}")
        fl = flush_counts(ev)
        if etl == "demo.etl":
            check(dict(fl) == summary_reasons(s),
                  f"flushes {dict(fl)}, gen {s['batches_by_reason']}")
        else:
            check(not fl, "a plain CSwitch file has no batches")


def case_names(tmp):
    """--truth names the threads by scenario group, in the SVG and the Chrome trace."""
    truth = os.path.join(tmp, "demo.jsonl")
    run("gen", "--duration", "500ms", "-o", os.path.join(tmp, "demo.etl"), "--truth", truth, "-q")
    meta = json.loads(open(truth).readline())
    group_of = {tid: g["name"] for g in meta["groups"] for tid in g["tids"]}
    started = 0
    for line in open(truth):
        if line.startswith('{"kind":"thread"'):
            t = json.loads(line)
            if t["event"] == "start":
                group_of[t["tid"]] = t["group"]
                started += 1
    check(started > 0, "the default scenario's pool threads come and go: thread lines")
    out = os.path.join(tmp, "demo.json")
    svg = os.path.join(tmp, "demo.svg")
    run("dump", os.path.join(tmp, "demo.etl"), "--truth", truth, "--chrome-trace", out,
        "--timeline", svg)
    named = 0
    for e in chrome_of(out):
        if e["ph"] == "X":
            group, tid = e["name"].rsplit(" ", 1)
            check(group_of.get(int(tid)) == group, f"{e['name']}: the truth says {group_of.get(int(tid))}")
            named += 1
    check(named > 0, "no slices")
    root, _ = svg_of(svg)
    texts = [t.text for t in root.iter(SVG + "text") if t.text]
    check(any(t.split(" ")[0] in {g["name"] for g in meta["groups"]} for t in texts),
          "the timeline's labels carry group names")
    # not a truth stream: one line, exit 2
    bad = os.path.join(tmp, "bad.jsonl")
    open(bad, "w").write('{"kind":"cswitch"}\n')
    _, err = run("dump", os.path.join(tmp, "demo.etl"), "--truth", bad, "--timeline", svg, status=2)
    check(err.count("\n") == 1 and "not a truth stream" in err, f"stderr: {err!r}")
    _, err = run("dump", os.path.join(tmp, "demo.etl"), "--truth", truth, status=2)
    check("need --timeline, --chrome-trace, --flamegraph or --folded" in err, f"stderr: {err!r}")


def case_reasons(tmp):
    """Ticks and delta flushes (a quiet machine on the cycle clock) are told apart."""
    s = gen(tmp, "quiet", os.path.join(DATA, "quiet.yaml"))
    want = summary_reasons(s)
    check(want.get("ticks", 0) > 0 and want.get("delta", 0) > 0, f"the scenario did not: {want}")
    out = os.path.join(tmp, "quiet.json")
    run("dump", os.path.join(tmp, "quiet.etl"), "--chrome-trace", out)
    got = dict(flush_counts(chrome_of(out)))
    check(got == want, f"inferred {got}, gen says {want}")


def spin_stream(path):
    """A seeded stream of switches and spin-lock releases; return the count of each 'why'."""
    r = random.Random(7)
    cpus, end = 4, 2_000_000
    events, why = [], collections.Counter()
    for c in range(cpus):
        t, cur = 100, 0
        while True:
            t += r.randint(200, 9000)
            if t >= end - 1000:
                break
            new = r.choice([0, 0, 4096 + 4 * r.randint(0, 40)])
            if new == cur:
                continue
            ev = {"kind": "cswitch", "cpu": c, "tick": t // 156250, "ts": {"qpc": t},
                  "old_tid": cur, "new_tid": new}
            if cur:
                ev.update({"old_pri": 9, "old_base_pri": 8, "old_state": 5, "old_wait_reason": 6})
            events.append((t, c, 0, ev))
            cur = new
        t = 100
        while True:
            t += r.randint(1000, 40000)
            if t >= end - 1000:
                break
            kind = r.choice(["hold", "contended", "acquire_sample"])
            acq = t * 300
            spin = r.randint(1, 500) if kind == "contended" else 0
            # a hold just over the threshold, or one that wraps 32 bits to a short one
            hold = {"hold": r.randint(1_000_001, 3_000_000),
                    "contended": r.randint(100, 5000),
                    "acquire_sample": r.choice([r.randint(100, 5000), (1 << 32) + 7])}[kind]
            why[kind] += 1
            events.append((t, c, 1, {"kind": "spinlock", "cpu": c, "ts": {"qpc": t},
                "lock": "0xfffff8031a2b3c40", "caller": "0xfffff8031a000123",
                "acquire_time": acq, "release_time": acq + hold, "wait_cycles": spin * 40,
                "spin_count": spin, "tid": 4096, "interrupt_count": 0, "irql": 2, "depth": 1,
                "mode": 0, "dpc": False, "isr": False, "logged": True, "why": kind}))
    with open(path, "w") as f:
        f.write(json.dumps({"kind": "meta", "format": "etwforge-truth", "version": 1,
                            "cpus": cpus, "sessions": [{"name": "NT Kernel Logger",
                            "clock": "qpc", "flags": ["cswitch", "compact_cswitch",
                                                      "spinlock"]}]}) + "\n")
        for _, _, _, ev in sorted(events, key=lambda e: (e[0], e[1], e[2])):
            f.write(json.dumps(ev, separators=(",", ":")) + "\n")
        f.write(json.dumps({"kind": "end", "tick": end // 156250 + 1, "ts": {"qpc": end}}) + "\n")
    return why


def case_spin(tmp):
    """Spin-lock kinds inferred from SpinCount and the hold time = the stream's 'why'."""
    stream = os.path.join(tmp, "spin.jsonl")
    why = spin_stream(stream)
    etl = os.path.join(tmp, "spin.etl")
    run("replay", stream, "-o", etl, "-q")
    svg, js = os.path.join(tmp, "spin.svg"), os.path.join(tmp, "spin.json")
    run("dump", etl, "--timeline", svg, "--chrome-trace", js)
    ev = chrome_of(js)
    got = collections.Counter(e["args"]["kind"] for e in ev
                              if e["ph"] == "i" and e["cat"] == "spinlock")
    want = {"hold": why["hold"], "contended": why["contended"], "sampled": why["acquire_sample"]}
    check(dict(got) == want, f"inferred {dict(got)}, the stream says {want}")
    root, _ = svg_of(svg)
    titles = {p.find(SVG + "title").text for p in root.iter(SVG + "path")
              if p.find(SVG + "title") is not None}
    for k in ("hold", "contended", "sampled"):
        check(f"spin lock: {k}" in titles, f"no '{k}' marks in the timeline")
    counts = legend_counts(root)
    check(counts.get("hold") == want["hold"], f"legend: {counts}")
    check(not any(t.startswith("spin lock: ") and "too many" in t for t in titles),
          f"a sparse stream is drawn as marks, not bars: {titles}")
    spin_dense(tmp)


SCENARIOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "scenarios")


def spin_dense(tmp):
    """Contended releases in most 3-px bins of every lane (lock_driver, 16 CPUs): drawn as
    bars whose height grows with the count (log2), bottoms on one line per lane, the tallest
    the strip's full height; the rare kinds stay marks on top; the legend says so."""
    etl, svg = os.path.join(tmp, "dense.etl"), os.path.join(tmp, "dense.svg")
    run("gen", os.path.join(SCENARIOS, "lock_driver.yaml"), "--duration", "200ms", "-o", etl,
        "-q")
    run("dump", etl, "--timeline", svg)
    root, _ = svg_of(svg)
    bars, marks = None, set()
    for p in root.iter(SVG + "path"):
        t = p.find(SVG + "title")
        if t is None or not t.text.startswith("spin lock: "):
            continue
        if t.text.startswith("spin lock: contended, too many to mark: a bar per 3 px"):
            check(bars is None, "one path of contended bars")
            bars = p.get("d")
        else:
            marks.add(t.text)
    check(bars is not None, "no contended bars in a 16-CPU lock_driver picture")
    got = [tuple(map(int, m)) for m in re.findall(r"M(\d+) (\d+)h(\d+)v(\d+)h-(\d+)z", bars)]
    check(len(got) == bars.count("M"), f"bars are M x y h2 v H h-2 z: {bars[:200]}")
    bins = (1400 - 76 - 24 + 2) // 3
    check(16 * bins // 4 < len(got) <= 16 * bins, f"{len(got)} bars for 16 lanes of {bins} bins")
    bottoms, heights = set(), set()
    for x, y, w, h, w2 in got:
        check(w == 2 and w2 == 2 and 76 <= x < 1376, f"bar at x {x} width {w}")
        bottoms.add(y + h)
        heights.add(h)
    check(len(bottoms) == 16, f"bars of 16 lanes stand on 16 lines: {sorted(bottoms)}")
    # 16 lanes: 896 / 16 = 56 px a lane, its spin strip 56 * 3 / 16 = 10 px
    check(min(heights) >= 1 and len(heights) > 1 and max(heights) == 10,
          f"heights {sorted(heights)}: from 1 to the strip's 10 px")
    check({"spin lock: hold", "spin lock: sampled"} <= marks, f"rare kinds as marks: {marks}")
    legend = [t.text for t in root.iter(SVG + "text") if t.text]
    check("where too many to mark: bars, log2 of the count" in legend, f"legend: {legend}")


def case_window(tmp):
    """--from/--to/--cpus: only those CPUs, only that time."""
    gen(tmp, "demo", "--duration", "500ms")
    etl = os.path.join(tmp, "demo.etl")
    svg, js = os.path.join(tmp, "w.svg"), os.path.join(tmp, "w.json")
    run("dump", etl, "--timeline", svg, "--chrome-trace", js, "--from", "100ms", "--to=0.3s",
        "--cpus", "1-2,5")
    root, _ = svg_of(svg)
    check(cpu_labels(root) == ["CPU 1", "CPU 2", "CPU 5"], f"lanes {cpu_labels(root)}")
    axis = [t.text for g in root.iter(SVG + "g") if g.get("text-anchor") == "middle"
            for t in g.iter(SVG + "text")]
    check(axis and float(axis[0]) >= 100 and float(axis[-1]) <= 300, f"axis {axis}")
    ev = chrome_of(js)
    tracks = {e["tid"] for e in ev}
    check(tracks == {2, 3, 6}, f"tracks {tracks}")
    for e in ev:
        if e["ph"] in ("X", "i"):
            check(100000 <= e["ts"] <= 300000, f"outside the window: {e}")
            check(e["ph"] != "X" or e["ts"] + e["dur"] <= 300000 + 1e-6, f"runs past --to: {e}")
    check(sum(1 for e in ev if e["ph"] == "X") > 0, "no slice in the window")


def case_outputs(tmp):
    """The output rules: one set, collisions refused, '-', devices, damage."""
    gen(tmp, "demo", "--duration", "300ms")
    etl = os.path.join(tmp, "demo.etl")
    same = os.path.join(tmp, "same.out")
    _, err = run("dump", etl, "--timeline", same, "--chrome-trace", same, status=2)
    check("same file" in err and len(err.strip().splitlines()) == 1, f"stderr: {err}")
    check(not os.path.exists(same), "a refused run made its output")
    os.symlink("target.svg", os.path.join(tmp, "link.svg"))
    _, err = run("dump", etl, "--timeline", os.path.join(tmp, "target.svg"), "--chrome-trace",
                 os.path.join(tmp, "link.svg"), status=2)
    check("same file" in err, f"a symlink to the other output: {err}")
    # standard output
    out, _ = run("dump", etl, "--timeline", "-")
    check(ET.fromstring(out).tag == SVG + "svg", "--timeline - is not an SVG")
    out, _ = run("dump", etl, "--chrome-trace", "-")
    check("traceEvents" in json.loads(out), "--chrome-trace - is not a trace")
    _, err = run("dump", etl, "--timeline", "-", "--chrome-trace", "-", status=2)
    # a device is written in place; a full one is a write error
    run("dump", etl, "--timeline", "/dev/null", "--chrome-trace", "/dev/null")
    if os.path.exists("/dev/full"):
        _, err = run("dump", etl, "--chrome-trace", "/dev/full", status=1)
        check("write failed" in err or "No space" in err, f"/dev/full: {err}")
    # a damaged file: nothing written (an old target stays), unless --keep-going
    cut = os.path.join(tmp, "cut.etl")
    with open(etl, "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:200000])
    old = os.path.join(tmp, "old.svg")
    with open(old, "w") as f:
        f.write("old")
    _, err = run("dump", cut, "--timeline", old, status=1)
    check(open(old).read() == "old", "a failed run replaced its target")
    check(err.strip().startswith(cut + ": offset 0x"), f"damage: {err}")
    _, err = run("dump", cut, "--timeline", old, "--keep-going", status=1)
    svg_of(old)
    left = [n for n in os.listdir(tmp) if n.startswith(".")]
    check(not left, f"temporary files left: {left}")


def case_usage(tmp):
    """Bad options: one line, exit 2, nothing made."""
    gen(tmp, "demo", "--duration", "100ms")
    etl = os.path.join(tmp, "demo.etl")
    svg = os.path.join(tmp, "x.svg")
    bad = [
        (["--timeline", svg, "--cpus", "3-1"], "--cpus"),
        (["--timeline", svg, "--cpus", "1,,2"], "--cpus"),
        (["--timeline", svg, "--cpus", "8"], "CPU 8 is not in"),
        (["--timeline", svg, "--cpus", "70000"], "--cpus"),
        (["--timeline", svg, "--from", "1.5x"], "not a duration"),
        (["--timeline", svg, "--from", "1.5ns"], "not a duration"),
        (["--timeline", svg, "--from", "1"], "--from: 1 needs a unit (1s, 1ms, 1us or 1ns)"),
        (["--timeline", svg, "--from", "0", "--to", "2"], "--to: 2 needs a unit"),
        (["--timeline", svg, "--from", "200ms", "--to", "100ms"], "--to must be after --from"),
        (["--timeline", svg, "--from", "1h"], "ends before --from"),
        (["--from", "1ms"], "need --timeline, --chrome-trace, --flamegraph or --folded"),
        (["--cpus", "0"], "need --timeline, --chrome-trace, --flamegraph or --folded"),
        (["--symbols", tmp], "need --timeline, --chrome-trace, --flamegraph or --folded"),
        (["--flamegraph", svg, "--symbols", os.path.join(tmp, "none")], "none: cannot open"),
        (["--folded", svg, "--symbols", etl], "not a folder"),
        (["--flamegraph", svg, "--stats"], "does not combine"),
        (["--folded", svg, "--raw"], "does not combine"),
        (["--flamegraph"], "needs a value"),
        (["--timeline", svg, "--stats"], "does not combine"),
        (["--chrome-trace", svg, "--jsonl"], "does not combine"),
        (["--timeline"], "needs a value"),
        (["--timeline", ""], "empty file name"),
        (["--timeline", tmp], "is a directory"),
    ]
    for args, what in bad:
        _, err = run("dump", etl, *args, status=2)
        check(what in err, f"{args}: wanted '{what}' in: {err}")
        check(len(err.strip().splitlines()) == 1, f"{args}: not one line: {err}")
        check(not os.path.exists(svg), f"{args}: made {svg}")
    out, _ = run("dump", "--help")
    for opt in ("--timeline", "--chrome-trace", "--flamegraph", "--folded", "--symbols",
                "--from", "--to", "--cpus"):
        check(opt in out, f"--help does not list {opt}")


def case_samples(tmp):
    """The real Windows files draw (they hold no switches): valid, empty pictures."""
    samples = os.environ.get("ETWFORGE_SAMPLES", "")
    files = sorted(f for f in os.listdir(samples) if f.endswith(".etl")) if samples else []
    check(files, "no samples")
    for f in files:
        svg, js = os.path.join(tmp, f + ".svg"), os.path.join(tmp, f + ".json")
        fg, fo = os.path.join(tmp, f + ".flame.svg"), os.path.join(tmp, f + ".folded")
        run("dump", os.path.join(samples, f), "--timeline", svg, "--chrome-trace", js,
            "--flamegraph", fg, "--folded", fo)
        svg_of(svg)
        ev = chrome_of(js)
        svg_of(fg)
        # every sample once in the folded stacks, as many as the Chrome trace's samples
        sampled = sum(1 for e in ev if e["ph"] == "P")
        check(sum(folded_of(fo).values()) == sampled, f"{f}: folded stacks != {sampled}")


def case_damaged(tmp):
    """The fuzzers' findings against the pictures (tests/data/fuzz/fuzz_pictures/: times near
    INT64_MAX, an EndTime far after StartTime) draw or are refused through the command, never
    overflow: exit 0 or 1, no sanitizer report, one line without --keep-going; with it, both
    pictures are valid."""
    folder = os.path.join(DATA, "..", "fuzz", "fuzz_pictures")
    files = sorted(f for f in os.listdir(folder) if f.endswith(".etl"))
    check(len(files) >= 4, f"damaged files: {files}")
    for f in files:
        for keep in ([], ["--keep-going"]):
            svg, js = os.path.join(tmp, f + ".svg"), os.path.join(tmp, f + ".json")
            fg, fo = os.path.join(tmp, f + ".flame.svg"), os.path.join(tmp, f + ".folded")
            p = subprocess.run([BIN, "dump", os.path.join(folder, f), *keep, "--timeline", svg,
                                "--chrome-trace", js, "--flamegraph", fg, "--folded", fo],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            err = p.stderr.decode(errors="replace")
            what = f"{f} {' '.join(keep)}: exit {p.returncode}, stderr: {err.strip()[:600]}"
            check(p.returncode in (0, 1), what)
            check("runtime error" not in err and "Sanitizer" not in err, what)
            if not keep:
                check(err.count("\n") <= 1, what)
            if keep or p.returncode == 0:
                svg_of(svg)
                chrome_of(js)
                svg_of(fg)
                folded_of(fo)
            for out in (svg, js, fg, fo):
                if os.path.exists(out):
                    os.unlink(out)


def case_empty(tmp):
    """Nothing to draw is drawn and said: an empty and a 1 ns trace give pictures (exit 0)
    with a note on stderr; a window without a switch says so; --from past the end of a
    damaged file says the damage (exit 1), not the window (exit 2)."""
    for span in ("1ns", "1us"):
        gen(tmp, "e" + span, "--duration", span)
        etl = os.path.join(tmp, "e" + span + ".etl")
        svg, js = os.path.join(tmp, span + ".svg"), os.path.join(tmp, span + ".json")
        _, err = run("dump", etl, "--timeline", svg, "--chrome-trace", js)
        check("note:" in err and "no context switch between" in err, f"{span}: stderr: {err}")
        check(len(err.strip().splitlines()) == 1, f"{span}: not one line: {err}")
        svg_of(svg)
        chrome_of(js)
    gen(tmp, "demo", "--duration", "100ms")
    etl = os.path.join(tmp, "demo.etl")
    svg = os.path.join(tmp, "w.svg")
    _, err = run("dump", etl, "--timeline", svg, "--from", "1ns", "--to", "2ns")
    check("no context switch between 0.000001 ms and 0.000002 ms" in err, f"stderr: {err}")
    _, err = run("dump", etl, "--timeline", svg, "--from", "30ms", "--to", "40ms")
    check("no context switch" not in err, f"a window with switches: {err}")
    size = os.path.getsize(etl)
    cut = os.path.join(tmp, "cut.etl")
    with open(etl, "rb") as src, open(cut, "wb") as dst:
        dst.write(src.read(size - 1000))
    _, err = run("dump", cut, "--timeline", svg, "--from", "1h", status=1)
    check("truncated" in err and "ends before" not in err, f"damage hidden: {err}")
    check(len(err.strip().splitlines()) == 1, f"not one line: {err}")


def case_foreign(tmp):
    """A truth names the threads of its own file only: another run's (another machine, the same
    machine with another seed or thread list) is refused by dump --truth and verify, exit 1,
    one line, nothing drawn; the file's own truth draws with a name for every thread."""
    def gen_t(name, *args):
        run("gen", "-q", "--duration", "100ms", "-o", os.path.join(tmp, name + ".etl"),
            "--truth", os.path.join(tmp, name + ".jsonl"), *args)

    gen_t("own")
    gen_t("seed", "--seed", "5")
    gen_t("threads", "--set", "threads.0.count=9")
    gen_t("cpus", "--cpus", "4")
    gen_t("start", "--set", "machine.start_time=133000000000000001")
    etl = os.path.join(tmp, "own.etl")
    svg = os.path.join(tmp, "x.svg")
    own = os.path.join(tmp, "own.svg")
    _, err = run("dump", etl, "--timeline", own, "--truth", os.path.join(tmp, "own.jsonl"))
    check(err == "" and os.path.exists(own), f"own truth: {err}")
    # a lived-in machine's start time comes from the seed: another seed is told by it
    for other, what in [("seed", "its start_time is"), ("threads", "its switch on line"),
                        ("cpus", "its cpus is 4, the file's NumberOfProcessors is 8"),
                        ("start", "its start_time is 133000000000000001, the file's StartTime "
                                  "is ")]:
        truth = os.path.join(tmp, other + ".jsonl")
        _, err = run("dump", etl, "--timeline", svg, "--truth", truth, status=1)
        check(f"{truth} is not the truth of {etl}: " in err and what in err,
              f"dump --truth {other}: {err}")
        check(len(err.strip().splitlines()) == 1, f"not one line: {err}")
        check(not os.path.exists(svg), f"dump --truth {other}: drew {svg}")
    for other in ("cpus", "start"):
        _, err = run("verify", etl, "--truth", os.path.join(tmp, other + ".jsonl"), status=1)
        check("is not the truth of" in err and len(err.strip().splitlines()) == 1,
              f"verify --truth {other}: {err}")


def desktop(tmp, *args):
    """The desktop example (processes, threads, wake-ups) into TMP/desk.etl: its path."""
    etl = os.path.join(tmp, "desk.etl")
    run("gen", os.path.join(SCENARIOS, "desktop.yaml"), "--duration", "500ms", *args, "-o", etl,
        "-q")
    return etl


def hue_of(rgb):
    r, g, b = (int(rgb[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(r, g, b)[0] * 360


def case_legend(tmp):
    """The desktop's timeline: each process a hue a person tells apart from the others
    listed, legend lines wrapped to the picture (every thread there, none cut), and
    names (not bare TIDs) in the spans of the full view."""
    etl = desktop(tmp)
    svg = os.path.join(tmp, "desk.svg")
    run("dump", etl, "--timeline", svg)
    root, _ = svg_of(svg)
    width = float(root.get("width"))
    swatches = [r.get("fill") for r in root.iter(SVG + "rect")
                if r.get("width") == "10" and r.get("height") == "10"]
    check(len(swatches) >= 6, f"{len(swatches)} process swatches")
    hues = [hue_of(c) for c in swatches]
    for i, a in enumerate(hues):
        for b in hues[i + 1:]:
            d = min(abs(a - b), 360 - abs(a - b))
            check(d >= 360 / len(hues) / 2, f"hues {a:.0f} and {b:.0f} are too close: {hues}")
    texts = list(root.iter(SVG + "text"))
    head = next(i for i, t in enumerate(texts) if (t.text or "").startswith("processes (the file"))
    lines = texts[head + 1:]
    check(len(lines) >= 6, f"{len(lines)} legend lines")
    for t in lines:
        # 11 px sans-serif: a character is 6.5 px at most
        check(float(t.get("x")) + 6.5 * len(t.text) <= width, f"runs past the picture: {t.text}")
        check(not t.text.rstrip().endswith((" t", "…")), f"cut: {t.text}")
    text = " ".join(t.text for t in lines)
    check(text.count("ThreadPoolForegroundWorker") == 12, "the renderer's 12 workers, each once")
    labels = [t.text for t in texts[:head] if t.text and float(t.get("y", 0)) > 130]
    named = [x for x in labels if not x.strip().isdigit() and not x.startswith("CPU")]
    check(named, f"the full view's labels are TIDs only: {labels[:10]}")


def case_flush_words(tmp):
    """A window with compact switches but no flush does not say it has no batches."""
    etl = desktop(tmp)
    svg = os.path.join(tmp, "w.svg")
    run("dump", etl, "--timeline", svg, "--from", "100ms", "--to", "101ms")
    root, _ = svg_of(svg)
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    check(not any("no compact batches" in t for t in texts), "says there are no batches")
    check(any("none in this window" in t for t in texts), f"{[t for t in texts if 'none' in t]}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} {{{','.join(CASES)}}} [DATA]", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="etwforge-pictures-") as tmp:
        try:
            CASES[sys.argv[1]](tmp)
        except Fail as e:
            print(f"test_pictures {sys.argv[1]}: {e}", file=sys.stderr)
            return 1
    print(f"test_pictures {sys.argv[1]}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
