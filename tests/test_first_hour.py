#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_first_hour.py CASE BUILD_ROOT SOURCE_ROOT - what a new user meets
first, as they meet it:

  quickstart   tools/quickstart.sh says that it builds and how long it took,
               verifies the demo, and ends with what to do next (not a table)
  check_reuse  tools/check.sh runs its gcc suite in the build quickstart made
               (same compiler and options) instead of building a second one,
               and in its own folder for another compiler or the sanitizers
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def check(cond, what):
    if not cond:
        print(f"test_first_hour {sys.argv[1]}: {what}")
        sys.exit(1)


def case_quickstart(build, top, tmp):
    env = dict(os.environ, BUILD=build, OUT=tmp)
    p = subprocess.run([os.path.join(top, "tools", "quickstart.sh")], capture_output=True,
                       text=True, env=env, cwd=tmp, timeout=600)
    out = p.stdout
    check(p.returncode == 0, f"exit {p.returncode}: {p.stderr[-500:]}")
    lines = out.splitlines()
    check(lines[0].startswith("quickstart: building etwforge in "), f"first line: {lines[0]!r}")
    check(any(line.startswith("quickstart: built in ") and " s: " in line for line in lines),
          "no 'built in N s' line")
    check(sum("verified" in line for line in lines) == 2, "both demo files verified")
    tail = lines[-12:]
    check("next:" in tail, f"the end is not what to do next: {tail}")
    check(any("--timeline demo.svg" in line for line in tail), "no picture to open")
    check(any("desktop.yaml" in line for line in tail), "no desktop.yaml for wake-ups")
    check(any(line.strip().endswith("tools/check.sh") for line in tail), "no test suite")
    check(not any(line.startswith("records per hook") for line in lines),
          "ends with dump --stats' table again")


def case_check_reuse(build, top, tmp):
    # a copy of the two scripts in a tree of its own, beside a "build/" made like
    # quickstart's: the compiler and options of this build's meson-info
    for rel in ("tools/check.sh", "tools/scripts/deps.sh"):
        os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
        shutil.copy(os.path.join(top, rel), os.path.join(tmp, rel))
    fake = os.path.join(tmp, "build")
    for d in ("meson-info", "meson-logs"):
        os.makedirs(os.path.join(fake, d))
    open(os.path.join(fake, "build.ninja"), "w").close()
    shutil.copy(os.path.join(build, "meson-info", "intro-buildoptions.json"),
                os.path.join(fake, "meson-info"))
    log = open(os.path.join(build, "meson-logs", "meson-log.txt")).read()
    open(os.path.join(fake, "meson-logs", "meson-log.txt"), "w").write(log)
    opts = {o["name"]: o["value"]
            for o in json.load(open(os.path.join(build, "meson-info", "intro-buildoptions.json")))}
    same = ("C compiler for the host machine: gcc " in log and opts["b_sanitize"] == "none" and
            opts["buildtype"] == "debugoptimized")

    def which(**env):
        e = {k: v for k, v in os.environ.items() if k not in ("CC", "SANITIZE", "BUILDTYPE",
                                                              "BUILD")}
        e.update(env)
        p = subprocess.run([os.path.join(tmp, "tools", "check.sh"), "--which-build"],
                           capture_output=True, text=True, env=e, timeout=300)
        check(p.returncode == 0, f"--which-build: {p.stderr}")
        return p.stdout.strip()

    check(which(CC="gcc") == (fake if same else os.path.join(tmp, "build-check-gcc")),
          f"gcc, this build's options ({'same' if same else 'others'}): {which(CC='gcc')}")
    check(which(CC="clang") == os.path.join(tmp, "build-check-clang"), "clang: its own")
    check(which(CC="gcc", SANITIZE="1") == os.path.join(tmp, "build-check-gcc-san"),
          "the sanitizers: their own")
    check(which(CC="gcc", BUILD="/x") == "/x", "BUILD wins")
    # a build/ of another compiler is not taken
    open(os.path.join(fake, "meson-logs", "meson-log.txt"), "w").write(
        log.replace("C compiler for the host machine: gcc ", "C compiler for the host machine: clang "))
    check(which(CC="gcc") == os.path.join(tmp, "build-check-gcc"), "a clang build/ is not gcc's")


if __name__ == "__main__":
    case, build, top = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        {"quickstart": case_quickstart, "check_reuse": case_check_reuse}[case](build, top, tmp)
    print(f"test_first_hour {case}: ok")
