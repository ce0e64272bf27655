#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_attribution.py - a consumer can attribute every thread of a
generated file from the file alone: for each example scenario, each file
whose session logs processes and threads is read with `dump --jsonl`, and

  * every non-idle TID a context switch (plain or compact), a ReadyThread
    (the readied thread and the readying one) or a SampledProfile names has
    a Thread Start at or before that record, or a DCStart anywhere (the
    start rundown tells what lived at the session's start: on a lived-in
    machine it takes milliseconds, live records fall between its records,
    as on Windows, so a thread's first switch may precede its DCStart), and
    a Thread End or DCEnd at or after it;
  * every thread's process has a Process record (Start or DCStart) with a
    non-empty image name.

It looks at the files only, never at the truth. Usage:
test_attribution.py BIN SCENARIO_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

EXAMPLES = ["desktop", "server64", "lock_driver", "lock_contention", "multi_clock"]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def records(binary, path):
    out = subprocess.run([binary, "dump", "--jsonl", path], check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        yield json.loads(line)


def attribute(binary, path, label):
    starts, ends, procs, thread_pid, uses = {}, {}, {}, {}, []
    session_start, early = None, 0
    for o in records(binary, path):
        ts = o.get("ts")
        if o.get("kind") == "file":
            session_start = o["start_ts"]
        if "thread" in o:
            t = o["thread"]
            thread_pid[t["tid"]] = t["pid"]
            if t["event"] == "dcstart":
                # alive at the session's start
                early += sum(1 for u in uses if u[0] == t["tid"] and u[1] < ts)
                starts[t["tid"]] = session_start
            elif t["event"] == "start":
                starts[t["tid"]] = min(starts.get(t["tid"], ts), ts)
            else:
                ends[t["tid"]] = max(ends.get(t["tid"], ts), ts)
        elif "process" in o:
            p = o["process"]
            if p["event"] in ("start", "dcstart"):
                procs[p["pid"]] = p["image"]
        elif o.get("kind") in ("CSWITCH", "CSWITCH_COMPACT"):
            # a compact "lite" record names its new thread by its table index only: that
            # thread is the old thread of the CPU's next switch, checked there
            uses += [(o[k], ts, o["kind"]) for k in ("old_tid", "new_tid") if k in o]
        elif "ready" in o:
            uses += [(o["ready"]["tid"], ts, "ReadyThread"), (o["tid"], ts, "ReadyThread header")]
        elif "sample" in o:
            uses.append((o["sample"]["tid"], ts, "SampledProfile"))
    check(len(starts) > 0, f"{label}: no Thread record at all")
    bad = 0
    for tid, ts, what in uses:
        if tid == 0:
            continue
        ok = tid in starts and starts[tid] <= ts and tid in ends and ends[tid] >= ts
        if not ok and bad < 5:
            check(False, f"{label}: {what} at {ts} names TID {tid} without a Thread "
                         f"start before and an end after (start {starts.get(tid)}, "
                         f"end {ends.get(tid)})")
        bad += not ok
    for tid, pid in thread_pid.items():
        check(bool(procs.get(pid)), f"{label}: TID {tid}'s process {pid} has no Process record "
                                    "with an image name")
    return len(uses), len(starts), len(procs), early


def main():
    binary, scenarios = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        for name in EXAMPLES:
            out = os.path.join(tmp, name)
            os.mkdir(out)
            subprocess.run([binary, "gen", "-q", os.path.join(scenarios, name + ".yaml"),
                            "--duration", "150ms", "-o", os.path.join(out, "a.etl")], check=True)
            files = sorted(f for f in os.listdir(out) if f.endswith(".etl"))
            n = attribute(binary, os.path.join(out, "a.etl"), f"{name}/a.etl")
            print(f"{name}: {n[0]} TID uses ({n[3]} before their thread's DCStart), "
                  f"{n[1]} threads, {n[2]} processes, files {' '.join(files)}")
    for f in failures:
        print("test_attribution:", f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
