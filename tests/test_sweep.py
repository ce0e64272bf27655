#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_sweep.py - random scenarios, each key drawn from its range
(etwforge-scenario(5)), kernel.flush_at_end both ways: every scenario gen
takes must give files that verify against its own truth, the same files,
truth and counts with --jobs 3 as with --jobs 1, and the truth replayed must
give the same bytes, file for file. A scenario gen refuses
must be refused on one line with exit status 2 (a rule across keys, such as
a clock passing 2^63-1); anything else fails.

Environment: ETWFORGE_BIN (the binary), ETWFORGE_SWEEP (scenarios, default
24; the meson test `sweep`), ETWFORGE_SWEEP_SEED (the first one's seed,
default 1; "random" draws it, and a failure names the seed and scenario to
run again), ETWFORGE_SWEEP_KEEP (a folder to keep each failing scenario in).
A long run: ETWFORGE_SWEEP=2000 ETWFORGE_SWEEP_SEED=random python3
tests/test_sweep.py. Exit status 0 passes; the reason is on stderr.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

BIN = os.path.abspath(os.environ["ETWFORGE_BIN"])

TARGETS = ["win10-1507", "win10-1607", "win10-1709", "win10-1903", "win11-22h2"]
FLAGS = ["cswitch", "compact_cswitch", "spinlock", "proc_thread", "dispatcher", "profile"]
COUNTERS = ["TotalCycles", "InstructionRetired", "CacheMisses", "BranchMispredictions",
            "LLCMisses", "TotalIssues", "DcacheMisses", "UnhaltedCoreCycles",
            "BranchInstructions", "LoadInstructions"]
BEHAVIOURS = ["cpu_bound", "io_bound", "interactive", "periodic"]
MODES = ["ordinary", "queued", "shared", "exclusive", "converted"]


def dur(ns):
    """@ns as a duration with its unit, as a user would write it."""
    for unit, k in (("s", 10**9), ("ms", 10**6), ("us", 1000)):
        if ns % k == 0:
            return f"{ns // k}{unit}"
    return f"{ns}ns"


def log_uniform(r, lo, hi):
    """An integer from lo to hi, each order of magnitude alike."""
    import math
    return min(hi, max(lo, int(math.exp(r.uniform(math.log(lo), math.log(hi + 1))))))


def session(r, i, target):
    flags = set(r.sample(FLAGS, r.randint(1, len(FLAGS))))
    if "compact_cswitch" in flags:
        flags.add("cswitch")
    s = {"name": f"sweep {i}" if i else "NT Kernel Logger",
         "clock": r.choice(["qpc", "systime", "cycles"]),
         "flags": sorted(flags),
         "buffer_size": 4096 * r.choice([1, 2, 3, 4, 16, 64, 256])}
    if r.random() < 0.3:
        s["pebs"] = True
    if r.random() < 0.4:
        most = 4 if target in ("win10-1507", "win10-1607") else 7
        s["pmc"] = {"counters": r.sample(COUNTERS, r.randint(1, most)),
                    "events": r.sample(["0x0524", "0x0525", "0x0529"], r.randint(1, 3))}
    if r.random() < 0.15:
        s["pool_buffers"] = r.randint(1, 64)
        s["flush_latency"] = dur(r.randint(0, 5000) * 1000)
    return s


def scenario(r):
    target = r.choice(TARGETS)
    sc = {
        "seed": r.randrange(2**63),
        "duration": dur(r.randint(2, 60) * 1000000),
        "sysconfig": r.random() < 0.7,
        "machine": {
            "cpus": r.choice([1, 2, 3, 4, 8, 12, 16, 33, 64]),
            "cpu_mhz": log_uniform(r, 50, 100000),
            "perf_freq": log_uniform(r, 1000, 10**10),
            "timer_resolution": r.randint(5000, 156250),
            "target": target,
            "arch": r.choice(["x64", "x86"]),
            "memory_mb": log_uniform(r, 1, 4194304),
            "computer_name": "".join(r.choice("ABCDEFGHIJKLMNOP0123456789-")
                                     for _ in range(r.randint(1, 15))),
        },
        "kernel": {
            "quirks": r.random() < 0.5,
            "flush_at_end": r.random() < 0.5,
            "pebs_and_pmc": r.random() < 0.2,
            "spinlock": {
                "spin_threshold": log_uniform(r, 1, 1000),
                "acquire_sample_rate": log_uniform(r, 1000, 100000),
                "contention_sample_rate": log_uniform(r, 1, 100),
                "hold_threshold": r.choice([0, 1000000, log_uniform(r, 1000000, 2**32 - 1)]),
            },
        },
        "sessions": [session(r, i, target) for i in range(r.choice([1, 1, 2, 3]))],
        "profile_interval": dur(r.randint(1221, 100000) * 100),
    }
    if r.random() < 0.3:
        sc["machine"]["quantum"] = dur(log_uniform(r, 100, 1000000) * 1000)
    if r.random() < 0.1:
        # the clocks count from boot: a boot long before the start may pass 2^63-1
        start = log_uniform(r, 1, 2**63 - 1) if r.random() < 0.5 else r.randrange(2**63)
        sc["machine"]["start_time"] = start
        sc["machine"]["boot_time"] = r.randint(0, start)
    if r.random() < 0.5:
        sc["threads"] = [{
            "name": f"g{k}",
            "count": r.randint(0, 12) if k else r.randint(1, 12),
            "priority": r.randint(1, 31),
            "behaviour": r.choice(BEHAVIOURS),
            "period": dur(log_uniform(r, 1, 50000) * 1000),
            "duty": r.randint(1, 100),
            "user_wait": r.randint(0, 100),
            "lifetime": r.choice([0, dur(log_uniform(r, 10, 100000) * 1000)]),
            "thread_name": r.choice(["", "worker {n}", "Th\u00e9\u00e2tre {n}"]),
        } for k in range(r.randint(1, 5))]
    if r.random() < 0.4:
        sc["locks"] = [{
            "name": f"mod{k}!Lock{k}",
            "count": r.randint(1, 8),
            "per_cpu": r.random() < 0.5,
            "rate": log_uniform(r, 1, 2000000),
            "hold": dur(log_uniform(r, 50, 200000)),
            "hold_tail": r.randint(0, 20),
            "modes": {m: r.randint(1, 9) for m in r.sample(MODES, r.randint(1, 3))},
        } for k in range(r.randint(1, 4))]
        for s in sc["sessions"]:
            if r.random() < 0.7 and "spinlock" not in s["flags"]:
                s["flags"] = sorted(s["flags"] + ["spinlock"])
    return sc


class Fail(Exception):
    pass


def jobs_same(d, summary, files):
    """gen --jobs 3 (two workers) in another folder: the same files, truth and counts."""
    c = os.path.join(d, "jobs")
    os.makedirs(c)
    p = subprocess.run([BIN, "gen", "../scenario.json", "-o", "y.etl", "--truth", "../t3.jsonl",
                        "--json=../sum3.json", "-q", "--jobs", "3"], cwd=c, capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise Fail(f"gen --jobs 3: exit {p.returncode}: {p.stderr.strip()}")
    with open(os.path.join(d, "sum3.json")) as f:
        other = json.load(f)
    for k in ("switches", "sessions"):
        if summary.get(k) != other.get(k):
            raise Fail(f"gen --jobs 3: its summary's {k} differ from --jobs 1's")
    for s in files:
        with open(os.path.join(d, "gen", s["file"]), "rb") as f1, \
                open(os.path.join(c, s["file"]), "rb") as f2:
            if f1.read() != f2.read():
                raise Fail(f"gen --jobs 3: {s['file']} differs from --jobs 1's")
    with open(os.path.join(d, "t.jsonl"), "rb") as f1, \
            open(os.path.join(d, "t3.jsonl"), "rb") as f2:
        if f1.read() != f2.read():
            raise Fail("gen --jobs 3: the truth differs from --jobs 1's")


def one(sc, d):
    """gen, verify every file, replay and compare. Return: "refused" or "ok"."""
    a, b = os.path.join(d, "gen"), os.path.join(d, "replay")
    os.makedirs(a)
    os.makedirs(b)
    with open(os.path.join(d, "scenario.json"), "w") as f:
        json.dump(sc, f)
    p = subprocess.run([BIN, "gen", "../scenario.json", "-o", "y.etl", "--truth", "../t.jsonl",
                        "--json=../sum.json", "-q", "--jobs", "1"], cwd=a, capture_output=True,
                       text=True)
    if p.returncode == 2 and p.stderr.count("\n") == 1 and p.stderr.strip():
        return "refused: " + p.stderr.strip()
    if p.returncode != 0:
        raise Fail(f"gen: exit {p.returncode}: {p.stderr.strip()}")
    with open(os.path.join(d, "sum.json")) as f:
        summary = json.load(f)
    files = [s for s in summary["sessions"] if s.get("xxh3")]
    jobs_same(d, summary, files)
    for s in files:
        p = subprocess.run([BIN, "verify", "-q", s["file"], "--truth", "../t.jsonl"], cwd=a,
                           capture_output=True, text=True)
        lost = s.get("events_lost", 0)
        if lost and p.returncode == 1 and "events were lost (EventsLost)" in p.stderr:
            continue  # a file that lost events cannot match its truth event for event
        if p.returncode != 0:
            raise Fail(f"verify {s['file']}: exit {p.returncode}: {p.stderr.strip()}")
    p = subprocess.run([BIN, "replay", "-q", "../t.jsonl", "-o", "y.etl"], cwd=b,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise Fail(f"replay: exit {p.returncode}: {p.stderr.strip()}")
    for s in files:
        with open(os.path.join(a, s["file"]), "rb") as f1, \
                open(os.path.join(b, s["file"]), "rb") as f2:
            x, y = f1.read(), f2.read()
        if x != y:
            at = next((i for i in range(min(len(x), len(y))) if x[i] != y[i]), min(len(x), len(y)))
            raise Fail(f"replay of {s['file']} differs at offset 0x{at:x} "
                       f"({len(x)} and {len(y)} bytes)")
    return "ok"


def main():
    n = int(os.environ.get("ETWFORGE_SWEEP", "24"))
    first = os.environ.get("ETWFORGE_SWEEP_SEED", "1")
    first = random.randrange(2**32) if first == "random" else int(first)
    keep = os.environ.get("ETWFORGE_SWEEP_KEEP")
    counts = {"ok": 0, "refused": 0}
    flush = {True: 0, False: 0}
    failed = 0
    for i in range(n):
        r = random.Random(first + i)
        sc = scenario(r)
        with tempfile.TemporaryDirectory() as d:
            try:
                got = one(sc, d)
            except Fail as e:
                failed += 1
                print(f"test_sweep: scenario seed {first + i}: {e}", file=sys.stderr)
                print(f"  scenario: {json.dumps(sc)}", file=sys.stderr)
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    shutil.copy(os.path.join(d, "scenario.json"),
                                os.path.join(keep, f"sweep-{first + i}.json"))
                continue
        if got == "ok":
            counts["ok"] += 1
            flush[sc["kernel"]["flush_at_end"]] += 1
        else:
            counts["refused"] += 1
            if os.environ.get("ETWFORGE_SWEEP_VERBOSE"):
                print(f"seed {first + i}: {got}", file=sys.stderr)
    print(f"test_sweep: {n} scenarios from seed {first}: {counts['ok']} verified and replayed "
          f"byte for byte (flush_at_end true {flush[True]}, false {flush[False]}), "
          f"{counts['refused']} refused on one line, {failed} failed")
    if failed or counts["ok"] < n // 2:
        sys.exit(1)


if __name__ == "__main__":
    main()
