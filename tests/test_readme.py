#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_readme.py SOURCE_ROOT BUILD_ROOT - README's commands work as
typed, and so do the manuals' examples.

Every fenced ```sh block of README.md, the examples of its "Every command,
one example" table, and the command blocks of the EXAMPLES sections of
doc/*.scd run, in the order they appear, each block in a fresh `bash -e -o
pipefail`, in one scratch folder laid out like the repository (tools/ and
tests/ linked, doc/ copied, build/ a link to BUILD_ROOT) with build/tools on
PATH, as the README's tour says. Any non-zero exit fails the test. The
scenarios shown (README's ```yaml blocks, the manuals' examples) must load,
and README's `dump --jsonl` file line must be what demo.etl gives.

A block that must not run (it installs, runs for minutes, needs AFL++ or an
installed library) is preceded by a line `<!-- not run: REASON -->`; the
test lists every block it skips with its reason, and fails on a marker
without a reason or without a block after it.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC, BUILD = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
NOT_RUN = re.compile(r"^<!-- not run: (.*\S) -->$")


class Fail(Exception):
    pass


def sanitized_build():
    """Is BUILD a sanitizer build? Its library then loads only into a process
    started with the sanitizer's runtime, which python3 is not."""
    try:
        with open(os.path.join(BUILD, "meson-info", "intro-buildoptions.json")) as f:
            opts = {o["name"]: o["value"] for o in json.load(f)}
    except (OSError, ValueError, KeyError):
        return False
    return opts.get("b_sanitize", "none") not in ("none", "", [])


def readme_blocks(text):
    """[(line, code or None, reason)] of README: each ```sh block (None with
    the reason when marked not to run), and the command table's examples as
    one block where the table stands."""
    lines, out, i, skip = text.splitlines(), [], 0, None
    table = False
    while i < len(lines):
        line = lines[i]
        m = NOT_RUN.match(line.strip())
        if line.strip().startswith("<!-- not run"):
            if not m:
                raise Fail(f"README.md:{i + 1}: a not-run marker needs a reason: {line}")
            skip = (i + 1, m.group(1))
        elif line.startswith("```"):
            lang, start, body = line[3:].strip(), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if lang == "sh":
                if skip:
                    out.append((start, None, skip[1]))
                else:
                    out.append((start, "\n".join(body) + "\n", None))
            elif skip:
                raise Fail(f"README.md:{skip[0]}: a not-run marker before a ```{lang} block")
            skip = None
        elif line.startswith("### Every command, one example"):
            table = True
        elif table and line.startswith("#"):
            table = False
        elif table and line.startswith("| `"):
            cells = line.split("|")
            ex = re.fullmatch(r"\s*`(etwforge [^`]*)`\s*", cells[2]) if len(cells) > 3 else None
            if not ex:
                raise Fail(f"README.md:{i + 1}: the command table's example is not `etwforge ...`")
            out.append((i + 1, ex.group(1) + "\n", None))
        elif skip and line.strip():
            raise Fail(f"README.md:{skip[0]}: a not-run marker not followed by a ```sh block")
        i += 1
    return out


def manual_examples(text):
    """[(line, kind, code)] of the ``` blocks of a manual's EXAMPLES section:
    "sh" for a block with a command line (it runs whole), "yaml" for a
    scenario."""
    out, section, block, start = [], None, None, 0
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("# "):
            section = line[2:]
        elif line.startswith("```") and section == "EXAMPLES":
            if block is None:
                block, start = [], n + 1
                continue
            code = "\n".join(block) + "\n"
            if any(re.match(r"^(etwforge|rsvg-convert) ", b) for b in block):
                out.append((start, "sh", code))
            elif re.match(r"^[a-z_]+:", block[0] if block else ""):
                out.append((start, "yaml", code))
            else:
                raise Fail(f"line {start}: an example that is neither commands nor a scenario")
            block = None
        elif block is not None:
            block.append(line)
    return out


def readme_other(text, lang):
    """[(line, code)] of README's ```LANG blocks."""
    return [(text[:m.start()].count("\n") + 2, m.group(1))
            for m in re.finditer(r"^```" + lang + r"\n(.*?)^```$", text, re.M | re.S)]


def scratch_tree(tmp):
    for d in ("tools", "tests", "include"):
        os.symlink(os.path.join(SRC, d), os.path.join(tmp, d))
    shutil.copytree(os.path.join(SRC, "doc"), os.path.join(tmp, "doc"))
    os.symlink(BUILD, os.path.join(tmp, "build"))


def run(where, code, tmp, env):
    p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code], cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise Fail(f"{where}: exit {p.returncode}\n--- ran:\n{code}--- stderr:\n{p.stderr[-3000:]}")


def scenario_loads(where, code, tmp, env):
    p = subprocess.run(["etwforge", "gen", "-", "--print-config"], input=code, cwd=tmp, env=env,
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise Fail(f"{where}: the scenario does not load: {p.stderr.strip()}")


def main():
    with open(os.path.join(SRC, "README.md")) as f:
        readme = f.read()
    blocks = readme_blocks(readme)
    ran = skipped = 0
    with tempfile.TemporaryDirectory() as tmp:
        scratch_tree(tmp)
        env = dict(os.environ, PATH=os.path.join(tmp, "build", "tools") + ":" + os.environ["PATH"])
        env.pop("OUT", None)
        env.pop("BUILD", None)
        sanitized = sanitized_build()
        for line, code, reason in blocks:
            if code is not None and sanitized and "ETWFORGE_LIB=" in code:
                code, reason = None, "a sanitizer build: python3 cannot load its library"
            if code is None:
                print(f"README.md:{line}: not run: {reason}")
                skipped += 1
                continue
            run(f"README.md:{line}", code, tmp, env)
            ran += 1
        for name in ("etwforge.1.scd", "etwforge-scenario.5.scd", "etwforge-truth.5.scd"):
            with open(os.path.join(SRC, "doc", name)) as f:
                for line, kind, code in manual_examples(f.read()):
                    where = f"doc/{name}:{line}"
                    if kind == "sh":
                        run(where, code, tmp, env)
                    else:
                        scenario_loads(where, code, tmp, env)
                    ran += 1
        # README's scenarios load, and its `dump --jsonl` file line is demo.etl's
        for line, code in readme_other(readme, "yaml"):
            scenario_loads(f"README.md:{line}", code, tmp, env)
            ran += 1
        shown = readme_other(readme, "json")
        if len(shown) != 1:
            raise Fail(f"README has {len(shown)} ```json blocks, not the one file line")
        first = subprocess.run("etwforge dump --jsonl demo.etl | head -n 1", shell=True, cwd=tmp,
                               env=env, capture_output=True, text=True).stdout
        if json.loads(shown[0][1]) != json.loads(first):
            raise Fail(f"README.md:{shown[0][0]}: the file line shown is not demo.etl's:\n{first}")
    if ran < 20:
        raise Fail(f"only {ran} blocks ran: the README or this test's parser changed")
    print(f"test_readme: {ran} blocks ran, {skipped} not run (reasons above)")


if __name__ == "__main__":
    try:
        main()
    except Fail as e:
        print(f"test_readme: {e}", file=sys.stderr)
        sys.exit(1)
