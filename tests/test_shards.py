#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_shards.py - `etwforge corpus --mutants N --seed S --shard K/M`:

  * for M = 1, 2, 3 the shards write disjoint sets of mutant files, and
    their union is the run without --shard, file for file and byte for
    byte; the MANIFEST.jsonl lines of the shards, together, are the
    unsharded manifest's lines;
  * the same seed gives the same bytes again, another seed other bytes;
  * bad usage is one line on standard error and exit status 2.

The binary is $ETWFORGE_BIN. Exit status 0 passes; otherwise the reasons
are printed. Usage: test_shards.py
"""
import os
import subprocess
import sys
import tempfile

BIN = os.environ["ETWFORGE_BIN"]
N, SEED = 40, 1234
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def corpus(out, *extra):
    return subprocess.run([BIN, "corpus", "-q", "--out", out, "--mutants", str(N),
                           "--seed", str(SEED), *extra],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def etl_files(folder):
    got = {}
    if not os.path.isdir(folder):  # the run failed: its check says why
        return got
    for name in sorted(os.listdir(folder)):
        if name.endswith(".etl"):
            with open(os.path.join(folder, name), "rb") as f:
                got[name] = f.read()
    return got


def manifest(folder):
    if not os.path.isfile(os.path.join(folder, "MANIFEST.jsonl")):
        return []
    with open(os.path.join(folder, "MANIFEST.jsonl")) as f:
        return f.read().splitlines()


def main():
    with tempfile.TemporaryDirectory() as tmp:
        full = os.path.join(tmp, "full")
        r = corpus(full)
        check(r.returncode == 0, f"unsharded run: {r.returncode} {r.stderr}")
        want = etl_files(full)
        want_lines = manifest(full)
        check(sorted(want) == [f"mutant-{i:06d}.etl" for i in range(N)],
              f"unsharded names: {sorted(want)[:3]}...")
        check(len(want_lines) == N, f"manifest has {len(want_lines)} lines, not {N}")
        check(len(set(want.values())) > N // 2,
              "the mutants are mostly the same bytes")
        for m in (1, 2, 3):
            union, lines = {}, []
            for k in range(1, m + 1):
                d = os.path.join(tmp, f"m{m}-k{k}")
                r = corpus(d, "--shard", f"{k}/{m}")
                check(r.returncode == 0, f"--shard {k}/{m}: {r.returncode} {r.stderr}")
                got = etl_files(d)
                want_names = {f"mutant-{i:06d}.etl" for i in range(N) if i % m == k - 1}
                check(set(got) == want_names, f"--shard {k}/{m}: wrong files {sorted(got)}")
                both = set(got) & set(union)
                check(not both, f"M={m}: shard {k} repeats {sorted(both)}")
                union.update(got)
                lines += manifest(d)
            check(set(union) == set(want), f"M={m}: the union has other names")
            for name, data in want.items():
                check(union.get(name) == data, f"M={m}: {name} differs from the unsharded run")
            check(sorted(lines) == sorted(want_lines), f"M={m}: manifest lines differ")
        again = os.path.join(tmp, "again")
        corpus(again)
        check(etl_files(again) == want, "the same seed gave other bytes")
        other = os.path.join(tmp, "other")
        subprocess.run([BIN, "corpus", "-q", "--out", other, "--mutants", str(N), "--seed",
                        str(SEED + 1)], check=True)
        check(etl_files(other) != want, "another seed gave the same bytes")

        bad = [["--mutants", str(N), "--shard", "3/2"],
               ["--mutants", str(N), "--shard", "0/2"],
               ["--mutants", str(N), "--shard", "1/0"],
               ["--mutants", str(N), "--shard", "12"],
               ["--shard", "1/2"],
               ["--mutants"],
               ["--mutants", "0"],
               ["--mutants", "1000001"],
               ["--mutants", "x"],
               ["--mutants", "5000"],
               ["--mutants", "5", "--mangle"]]
        for args in bad:
            d = os.path.join(tmp, "bad")
            r = subprocess.run([BIN, "corpus", "--out", d, *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            check(r.returncode == 2, f"{args}: exit {r.returncode}, not 2")
            check(r.stderr.count("\n") == 1 and r.stderr.startswith("etwforge corpus"),
                  f"{args}: not one line: {r.stderr!r}")
            check(not os.path.exists(d), f"{args}: wrote {d}")
        r = subprocess.run([BIN, "corpus", "--out", os.path.join(tmp, "big"), "--mutants",
                            "5000", "--shard", "1/3", "-q"], stderr=subprocess.PIPE, text=True)
        check(r.returncode == 0, f"--mutants 5000 --shard 1/3: {r.returncode} {r.stderr}")
        check(len(etl_files(os.path.join(tmp, "big"))) == 1667, "shard 1/3 of 5000: not 1667 files")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
