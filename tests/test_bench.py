#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_bench.py CASE - `etwforge bench` from the outside, at the test
suite's size (--quick with ETWFORGE_BENCH_TINY=1: seconds). No timing is
asserted: only that it runs, says what it measured, and cleans up.

  json    --quick --json parses and names every figure (median, min, max,
          unit, runs), the machine and the work; the ccswap stream has all
          four record forms and every flush reason; a second run of the hot
          paths measures the same work (same mix, same digests); the scratch
          folder is gone
  text    the table: the tiny-size banner, the machine, one row per figure
  usage   one-line errors with exit status 2; --help
  signal  SIGINT and SIGTERM in the middle of a full run (while a child
          process writes, and while the parent reads): exit 128+N, and
          nothing left in TMPDIR

The binary is $ETWFORGE_BIN. Exit status 0 passes; otherwise the reason is
on stderr.
"""
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.environ["ETWFORGE_BIN"]

FIGURES = [
    "ccswap.ns_per_switch", "ccswap.switches_per_s", "ccswap.bytes_per_switch",
    "ccswap.memset_ns_per_switch", "ccswap.memset_ratio", "ccswap.call_floor_ns_per_switch",
    "ccswap.before_ns_per_switch", "ccswap.before_ratio",
    "cswitch.plain.ns_per_switch", "cswitch.pmc.ns_per_switch", "cswitch.pebs.ns_per_switch",
    "spinlock.ns_per_event",
] + [
    f"gen.{case}.{q}"
    for case in ["default", "default_truth", "server64", "server64_truth", "server64_cswitch",
                 "server64_ident", "desktop", "desktop_stacks", "desktop_stacks_plain",
                 "desktop_stacks_cached"]
    for q in ["switches_per_s", "mb_per_s", "peak_rss_mib", "wall_switches_per_s"]
] + [
    "gen.default.truth_cost", "gen.server64.truth_cost", "gen.server64.ident_cost",
    "gen.desktop.stacks_cost", "gen.desktop.stack_cache_cost",
    "gen.server64_sim.switches_per_s", "gen.server64_null.switches_per_s",
    "gen.server64_null.sim_share", "gen.server64_jobs1.wall_switches_per_s",
    "gen.server64_jobs.wall_switches_per_s", "gen.server64_jobs.speedup",
    "gen.server64_jobs_truth.wall_switches_per_s", "gen.server64_jobs.truth_cost",
    "decode.stats.mb_per_s", "decode.stats.switches_per_s",
    "decode.iter.mb_per_s", "decode.iter.switches_per_s", "decode.analysis.switches_per_s",
    "decode.jsonl.switches_per_s", "decode.jsonl.mb_per_s",
    "decode.server64.stats.switches_per_s", "decode.server64.analysis.switches_per_s",
    "replay.switches_per_s", "verify.switches_per_s",
    "mutate.stage.mutants_per_s", "mutate.each.mutants_per_s",
]
WORK = ["ccswap", "cswitch", "spinlock", "gen.default", "gen.server64", "gen.server64_ident",
        "gen.desktop_stacks", "gen.desktop_stack_cache",
        "gen.server64_cores", "decode",
        "replay_verify", "mutate"]
FORMS = ["idle_short", "idle", "lite", "full"]
REASONS = ["tid_full", "ticks", "size", "delta", "stop", "end"]


def scratch_dir():
    """Memory rather than a disk where there is room (gen writes and syncs
    ~100 MB per server64 run; a container's /dev/shm may hold 64 MB)."""
    try:
        st = os.statvfs("/dev/shm")
        if os.access("/dev/shm", os.W_OK) and st.f_bavail * st.f_frsize >= 1 << 30:
            return "/dev/shm"
    except OSError:
        pass
    return None


SCRATCH = scratch_dir()


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def bench(tmp, *args, tiny=True):
    env = dict(os.environ, TMPDIR=tmp)
    if tiny:
        env["ETWFORGE_BENCH_TINY"] = "1"
    else:
        env.pop("ETWFORGE_BENCH_TINY", None)
    return subprocess.run([BIN, "bench", *args], capture_output=True, text=True, env=env)


def left_in(tmp):
    out = []
    for root, dirs, files in os.walk(tmp):
        out += [os.path.join(root, n) for n in dirs + files]
    return out


def case_json():
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        p = bench(tmp, "--quick", "--json")
        check(p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
        check(not left_in(tmp), f"left behind: {left_in(tmp)}")
        doc = json.loads(p.stdout)
        check(doc.get("format") == "etwforge-bench" and doc.get("version") == 1, "format")
        check(doc.get("quick") is True and doc.get("size") == "tiny", "quick, tiny")
        runs = doc.get("runs")
        check(runs == 3, f"runs {runs}")
        m = doc.get("machine", {})
        for k in ["cpu", "cores", "compiler", "build", "kernel", "etwforge"]:
            check(m.get(k), f"machine.{k} missing or empty: {m}")
        figs = doc.get("figures", {})
        missing = [n for n in FIGURES if n not in figs]
        check(not missing, f"figures missing: {missing}")
        extra = [n for n in figs if n not in FIGURES]
        check(not extra, f"figures this test does not know (add them): {extra}")
        for n in FIGURES:
            f = figs[n]
            for k in ["median", "min", "max"]:
                v = f.get(k)
                check(isinstance(v, (int, float)) and math.isfinite(v) and v > 0,
                      f"{n}.{k} = {v!r}")
            check(f["min"] <= f["median"] <= f["max"], f"{n}: min <= median <= max: {f}")
            check(isinstance(f.get("unit"), str) and f["unit"], f"{n}: unit")
            check(f.get("runs") == runs, f"{n}: runs {f.get('runs')}")
            check(f.get("label"), f"{n}: label")
            # a time or a rate says its clock: CPU time or the wall clock
            timed = f["unit"].endswith("/s") or f["unit"].startswith("ns/")
            check("clock" in f, f"{n}: no clock")
            check(f["clock"] in (("cpu", "wall") if timed else (None,)),
                  f"{n} ({f['unit']}): clock {f['clock']!r}")
            if "wall_" in n or n.split(".")[0] in ("ccswap", "cswitch", "spinlock"):
                check(f["clock"] == "wall" or not timed, f"{n}: a wall-clock figure")
            elif timed:
                check(f["clock"] == "cpu", f"{n}: a CPU-time figure")
        work = doc.get("work", {})
        for w in WORK:
            check(w in work and work[w].get("what"), f"work.{w} missing: {sorted(work)}")
        # each description whole (one of them used to stop at "a child process per")
        for w in [w for w in WORK if w.startswith("gen.")]:
            check(work[w]["what"].endswith("a child process per run"),
                  f"work.{w}: cut off? {work[w]['what']!r}")
        for w in work:
            check("too long" not in work[w]["what"], f"work.{w}: {work[w]['what']!r}")
        cc = work["ccswap"]
        for k in FORMS + REASONS:
            check(cc.get(k, 0) > 0, f"the ccswap stream has no {k}: {cc}")
        check(sum(cc[k] for k in FORMS) == cc["switches"], "forms add up to the switches")
        check(sum(cc[k] for k in REASONS) == cc["batches"], "reasons add up to the batches")
        check(work["gen.default"]["switches"] > 0 and work["decode"]["switches"] > 0, "work")
        # the same work again: the hot paths' mix and digests
        p = bench(tmp, "--quick", "--json", "--only", "ccswap,cswitch,spinlock")
        check(p.returncode == 0, f"second run: exit {p.returncode}: {p.stderr}")
        again = json.loads(p.stdout)
        check(sorted(again["work"]) == ["ccswap", "cswitch", "spinlock"], "--only: work")
        check(all(n.split(".")[0] in ("ccswap", "cswitch", "spinlock")
                  for n in again["figures"]), "--only: figures")
        for w in again["work"]:
            check(again["work"][w] == work[w], f"{w}: other work in a second run")


def case_text():
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        p = bench(tmp, "--quick", "--only", "ccswap,spinlock")
        check(p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
        lines = p.stdout.splitlines()
        check(lines[0].startswith("etwforge bench ") and "median of 3 runs" in lines[0],
              f"first line: {lines[0]}")
        check(any(ln.startswith("TINY figures") for ln in lines), "the size is said")
        check(any(ln.startswith("machine ") and "cores" in ln for ln in lines), "machine")
        check(any(ln.startswith("build ") for ln in lines), "build")
        head = [ln for ln in lines if ln.startswith("figure ")]
        check(head and head[0].split() == ["figure", "median", "min", "max", "clock", "unit"],
              f"the header: {head}")
        check(any(ln.startswith("(clock: CPU = CPU time") for ln in lines), "the clocks said")
        for ln in lines:
            if ln.startswith(("ccswap.", "spinlock.")) and ln.endswith(
                    ("ns/switch", "ns/event", "switches/s")):
                check(ln.split()[4] == "wall", f"a row without its clock: {ln}")
        rows = [ln.split() for ln in lines if ln.startswith(("ccswap.", "spinlock."))]
        names = [r[0] for r in rows]
        want = [n for n in FIGURES if n.startswith(("ccswap.", "spinlock."))]
        check(names == want, f"rows {names}")
        for r in rows:
            check(all(float(x) > 0 for x in r[1:4]), f"row {r}")
        check(any(ln.startswith("ccswap ") for ln in lines), "the ccswap work")
        check(not left_in(tmp), f"left behind: {left_in(tmp)}")


def case_usage():
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        for args, want in [
            (["--only", "bogus"], "unknown path \"bogus\""),
            (["--only", "ccswap,"], "unknown path \"\""),
            (["extra"], "no argument expected"),
            (["--bogus"], "unknown option '--bogus'"),
            (["--only"], "needs a value"),
        ]:
            p = bench(tmp, *args)
            check(p.returncode == 2, f"{args}: exit {p.returncode}")
            err = p.stderr.strip().splitlines()
            check(len(err) == 1 and err[0].startswith("etwforge bench: ") and want in err[0],
                  f"{args}: stderr {p.stderr!r}")
            check(p.stdout == "", f"{args}: stdout {p.stdout!r}")
        p = bench(tmp, "--help")
        check(p.returncode == 0 and "--only PATHS" in p.stdout, "--help")
        check(not left_in(tmp), f"left behind: {left_in(tmp)}")


def interrupt(path, sig, wait_for):
    """Start a full run of @path, wait until its scratch folder holds a file
    that @wait_for accepts, send @sig, and check the exit and the cleanup."""
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        env = dict(os.environ, TMPDIR=tmp)
        env.pop("ETWFORGE_BENCH_TINY", None)
        p = subprocess.Popen([BIN, "bench", "--only", path], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        seen = []
        while time.monotonic() < deadline and p.poll() is None:
            seen = [os.path.basename(f) for f in left_in(tmp)]
            if any(wait_for(n) for n in seen):
                break
            time.sleep(0.02)
        check(p.poll() is None, f"{path}: ended before the signal ({seen})")
        check(any(wait_for(n) for n in seen), f"{path}: nothing to interrupt: {seen}")
        p.send_signal(sig)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            raise Fail(f"{path}: still running 60 s after signal {sig}")
        check(p.returncode == 128 + sig, f"{path}: exit {p.returncode} after signal {sig}: {err}")
        check(not left_in(tmp), f"{path}: left behind after signal {sig}: {left_in(tmp)}")


def case_signal():
    # while a child generates (its temporary files), then while replay runs in a child
    interrupt("gen", signal.SIGINT, lambda n: n.startswith(".gen"))
    interrupt("replay_verify", signal.SIGTERM, lambda n: n.startswith(".replay"))


CASES = {"json": case_json, "text": case_text, "usage": case_usage, "signal": case_signal}

if __name__ == "__main__":
    name = sys.argv[1]
    try:
        CASES[name]()
    except Fail as e:
        print(f"test_bench {name}: {e}", file=sys.stderr)
        sys.exit(1)
    print(f"test_bench {name}: ok")
