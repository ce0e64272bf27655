# SPDX-License-Identifier: MIT
"""The statistics a scenario controls, read from a trace (etwforge.open(...).schedule()),
and how far apart two traces are on each: what the round trip of `etwforge fit`
(gen -> fit -> gen) is held to (tests/python/test_fit.py, README "A shareable
lookalike")."""
import collections
import math

import etwforge

INT64_MIN = -(1 << 63)


def _norm(d):
    s = sum(d.values())
    return {k: v / s for k, v in d.items()} if s else {}


def _half_l1(a, b):
    """Half the L1 distance of two shares (0 alike, 1 disjoint)."""
    a, b = _norm(a), _norm(b)
    if not a and not b:
        return 0.0
    return 0.5 * sum(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))


def _ks(a, b):
    """Kolmogorov-Smirnov distance of two histograms over the same buckets."""
    sa, sb = sum(a), sum(b)
    if not sa or not sb:
        return 0.0 if sa == sb else 1.0
    ca = cb = d = 0.0
    for x, y in zip(a, b):
        ca += x / sa
        cb += y / sb
        d = max(d, abs(ca - cb))
    return d


def _js(a, b):
    """Jensen-Shannon divergence (base 2) of two mixes."""
    a, b = _norm(a), _norm(b)
    if not a or not b:
        return 0.0 if a == b else 1.0
    d = 0.0
    for k in set(a) | set(b):
        p, q = a.get(k, 0), b.get(k, 0)
        m = (p + q) / 2
        if p:
            d += 0.5 * p * math.log2(p / m)
        if q:
            d += 0.5 * q * math.log2(q / m)
    return d


def _ratio(a, b):
    """1 - smaller / larger (0 the same)."""
    if a == b:
        return 0.0
    return 1 - min(a, b) / max(a, b)


def stats(path):
    """The controlled statistics of the trace at @path."""
    with etwforge.open(path) as f:
        s = f.schedule()
        t = s.totals
        span = max(t["to_ns"] - t["from_ns"], 1) / 1e9
        procs = s.processes.rows()
        image_of = {i: (p["image"] or "?").lower() for i, p in enumerate(procs)}
        cpu, sw, nth = collections.Counter(), collections.Counter(), collections.Counter()
        burst, wait = [0] * 64, [0] * 64
        reasons = collections.Counter()
        threads = 0
        for i, r in enumerate(s.threads.rows()):
            if r["pid"] == 0:
                continue
            img = image_of.get(r["process"], "?") if r["pid"] != 4 else "system"
            threads += 1
            nth[img] += 1
            cpu[img] += r["cpu_ns"]
            sw[img] += r["switch_ins"]
            for k, v in enumerate(s.hist(i, "burst")):
                burst[k] += v
            for k, v in enumerate(s.hist(i, "wait")):
                wait[k] += v
            for k, v in enumerate(s.wait_reasons(i)):
                if v:
                    reasons[k] += v
        mods = collections.Counter()
        for r in s.images.rows():
            if r["samples"]:
                mods[(r["name"] or "?").lower()] += r["samples"]
        cpus = max(t["cpus"], 1)
        return {
            "processes": sum(1 for p in procs if p["pid"] not in (0, 4)),
            "threads": threads,
            "busy": t["busy_ns"] / (cpus * span * 1e9),
            "switch_rate": t["switch_ins"] / span,
            "sample_rate": t["samples"] / span / cpus,
            "cpu_by_image": cpu, "switches_by_image": sw, "threads_by_image": nth,
            "samples_by_module": mods, "burst": burst, "wait": wait, "reasons": reasons,
        }


# name: (how it is compared, what it is); the distances are in [0, 1]
STATS = {
    "processes": ("ratio", "processes besides Idle and System"),
    "threads": ("ratio", "threads"),
    "busy": ("difference", "share of the CPUs' time a thread ran"),
    "switch_rate": ("ratio", "switch-ins per second"),
    "sample_rate": ("ratio", "samples per CPU per second"),
    "cpu_by_image": ("half L1", "CPU time by process image"),
    "switches_by_image": ("half L1", "switch-ins by process image"),
    "threads_by_image": ("half L1", "threads by process image"),
    "samples_by_module": ("half L1", "samples by module"),
    "burst": ("KS", "run bursts (log2 buckets)"),
    "wait": ("KS", "waits (log2 buckets)"),
    "reasons": ("JS", "wait reasons of the Waiting switch-outs"),
}


def distances(a, b):
    """{statistic: distance} of two stats()."""
    out = {}
    for k, (how, _) in STATS.items():
        x, y = a[k], b[k]
        if how == "ratio":
            out[k] = _ratio(x, y)
        elif how == "difference":
            out[k] = abs(x - y)
        elif how == "half L1":
            out[k] = _half_l1(x, y)
        elif how == "KS":
            out[k] = _ks(x, y)
        else:
            out[k] = _js(x, y)
    return out


def random_scenario(seed):
    """A random scenario of a few processes and thread groups (the round trip's sweep)."""
    import random
    r = random.Random(seed)
    nproc = r.randint(1, 5)
    procs = [{"name": f"app{i}.exe"} for i in range(nproc)]
    groups = []
    for g in range(r.randint(1, 6)):
        beh = r.choice(["cpu_bound", "io_bound", "interactive", "periodic"])
        grp = {"name": f"g{g}", "process": r.choice(procs)["name"], "count": r.randint(1, 12),
               "behaviour": beh, "priority": r.choice([6, 8, 8, 10, 13]),
               "period": f"{int(10 ** r.uniform(1.7, 4.3))}us"}
        if beh == "periodic":
            grp["duty"] = r.randint(2, 40)
        else:
            grp["wait"] = f"{int(10 ** r.uniform(2.3, 5.3))}us"
        groups.append(grp)
    return {
        "seed": seed, "duration": "1s",
        "machine": {"cpus": r.choice([2, 4, 8]), "background": r.choice(["none", "desktop"])},
        "sessions": [{"name": "NT Kernel Logger", "clock": "qpc",
                      "flags": ["cswitch", "compact_cswitch", "proc_thread", "dispatcher",
                                "profile", "loader"], "stacks": ["profile"]}],
        "processes": procs, "threads": groups,
    }
