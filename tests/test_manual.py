#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_manual.py CASE DOC_DIR - the manuals and the bash completion
say what the tool does:

  options     every option of each `etwforge CMD --help` is in CMD's part of
              etwforge(1), and every option etwforge(1) defines there is in
              that --help (both directions; the top level too)
  completion  doc/etwforge.bash completes the commands and, per command,
              exactly the options of its --help
  scenario    every key of `etwforge gen --print-config` has its entry in
              etwforge-scenario(5)
  truth       every field a `gen --truth` stream has is in etwforge-truth(5)
  public      what a user reads (README, the manuals, the completion, the
              installed header, the examples and scenarios, every --help)
              cites nothing outside the repository: no design notes, spec
              sections, style rules, issue numbers or commit hashes
  pmc         every PMC source of pebs_model/pmc_sources.c is in
              etwforge-scenario(5), PMC SOURCES, with its KPROFILE_SOURCE
              number, and nothing else is; an unknown name's error points
              there

The binary is $ETWFORGE_BIN. Exit status 0 passes; otherwise the reason is
on stderr.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

BIN = os.environ["ETWFORGE_BIN"]
DOC = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "doc")
SRC = os.path.join(DOC, "..")
COMMANDS = ["gen", "replay", "dump", "verify", "compare", "fit", "bench", "corpus"]
OPT = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def etwforge(*args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True)
    check(p.returncode == 0, f"etwforge {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def help_options(text):
    """Options defined by the help text's option lines: a line that starts
    with spaces and '-', up to the first gap of two spaces (the description
    after it may name other options)."""
    opts = set()
    for line in text.splitlines():
        s = line.strip()
        if line[:1] == " " and s.startswith("-"):
            spec = re.split(r"\s{2,}", s)[0]
            spec = re.sub(r"\s+(this text|the version.*)$", "", spec)
            opts |= set(OPT.findall(spec))
    return opts


def read(name):
    with open(os.path.join(DOC, name)) as f:
        return f.read()


def man_sections(text, level):
    """{title: body} of the scdoc sections of @level ('#' or '##')."""
    out, title, body = {}, None, []
    for line in text.splitlines():
        m = re.match(r"^(#+) (.*)$", line)
        if m and len(m.group(1)) <= len(level):
            if title is not None:
                out[title] = "\n".join(body)
            title, body = (m.group(2), []) if m.group(1) == level else (None, [])
            continue
        body.append(line)
    if title is not None:
        out[title] = "\n".join(body)
    return out


def man_options(body):
    """Options an etwforge(1) section defines: its lines that start with *-."""
    opts = set()
    for line in body.splitlines():
        if line.startswith("*-"):
            opts |= set(OPT.findall(re.sub(r"_[^_]*_", "", line)))
    return opts


def case_options():
    man = read("etwforge.1.scd")
    cmds = man_sections(man, "##")
    for c in COMMANDS:
        title = f"etwforge {c}"
        check(title in cmds, f"etwforge(1) has no section '## {title}'")
        h, m = help_options(etwforge(c, "--help")), man_options(cmds[title])
        check(h, f"no option found in `{c} --help`")
        check(not h - m, f"{c}: in --help, not in etwforge(1): {sorted(h - m)}")
        check(not m - h, f"{c}: in etwforge(1), not in --help: {sorted(m - h)}")
    top = etwforge("--help")
    h, m = help_options(top), man_options(man_sections(man, "#")["OPTIONS"])
    check(h == m, f"top level: --help {sorted(h)}, etwforge(1) {sorted(m)}")
    listed = re.findall(r"^  (\w+) ", top.split("commands:")[1].split("\n\n")[0], re.M)
    check(listed == COMMANDS + ["help"], f"commands in --help: {listed}")
    for c in listed:
        check(f"## etwforge {c}" in man, f"etwforge(1) does not describe {c}")
    # help CMD is CMD --help
    for c in COMMANDS:
        check(etwforge("help", c) == etwforge(c, "--help"), f"help {c} differs from {c} --help")


def complete(words):
    """What doc/etwforge.bash offers for the command line @words (the last
    word being completed), without bash-completion loaded."""
    script = (
        f"source {os.path.join(DOC, 'etwforge.bash')}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
        f"COMP_CWORD={len(words) - 1}\n"
        "_etwforge\n"
        "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    check(p.returncode == 0, f"bash completion failed: {p.stderr}")
    return [w for w in p.stdout.splitlines() if w]


def case_completion():
    check(complete(["etwforge", ""]) == COMMANDS + ["help"], "commands")
    check(set(complete(["etwforge", "-"])) == {"-h", "--help", "--version"}, "top options")
    check(complete(["etwforge", "help", "d"]) == ["dump"], "help CMD")
    for c in COMMANDS:
        got = set(complete(["etwforge", c, "-"]))
        want = help_options(etwforge(c, "--help"))
        check(got == want,
              f"{c}: completion {sorted(got - want)} extra, {sorted(want - got)} missing")
    check(set(complete(["etwforge", "dump", "x.etl", "--t"])) == {"--timeline", "--truth", "--to"}, "dump --t")
    with tempfile.TemporaryDirectory() as tmp:
        for n in ("a.etl", "b.svg"):
            open(os.path.join(tmp, n), "w").close()
        got = complete(["etwforge", "dump", os.path.join(tmp, "")])
        check(os.path.join(tmp, "a.etl") in got, f"file names: {got}")
        check(complete(["etwforge", "dump", "x.etl", "--from", ""]) == [],
              "--from takes a duration, not a file")


def keys_of_config(text):
    """Dotted key paths of `gen --print-config` (list items as name[])."""
    keys, stack = set(), []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        item = line.lstrip().startswith("- ")
        body = line.lstrip()[2:] if item else line.lstrip()
        m = re.match(r"^([a-z_]+):", body)
        if not m:
            continue
        key = m.group(1)
        level = indent // 2 + (1 if item else 0)
        while stack and stack[-1][0] >= level:
            stack.pop()
        path = ".".join(p for _, p in stack)
        keys.add((path + "." if path else "") + key)
        rest = body[m.end():].strip()
        if rest == "":
            name = key + "[]" if key in ("sessions", "threads", "locks", "processes") else key
            stack.append((level, name))
    return keys


def case_scenario():
    man = read("etwforge-scenario.5.scd")
    keys = keys_of_config(etwforge("gen", "--print-config"))
    # lists the default leaves empty: their items' keys from a scenario that has one
    locks = etwforge("gen", "--set", "locks=[{name: x}]", "--print-config")
    keys |= keys_of_config(locks)
    check(len(keys) > 40, f"too few keys: {sorted(keys)}")
    for k in sorted(keys):
        if k in ("machine", "kernel", "kernel.spinlock", "sessions", "threads", "locks",
                 "processes", "sessions[].pmc"):
            check(f"*{k}*" in man or k.split(".")[-1] in man, f"etwforge-scenario(5) lacks {k}")
            continue
        check(f"*{k}*" in man, f"etwforge-scenario(5) has no entry *{k}*")


def case_truth():
    man = read("etwforge-truth.5.scd")
    fields = set()
    with tempfile.TemporaryDirectory() as tmp:
        t = os.path.join(tmp, "t.jsonl")
        etwforge("gen", "-q", "--duration", "20ms", "-o", os.path.join(tmp, "t.etl"), "--truth", t,
                 "--set", "sessions.0.flags=[cswitch, compact_cswitch, spinlock]",
                 "--set", "sessions.1.pebs=true",
                 "--set", "sessions.1.pmc.counters=[TotalCycles]",
                 "--set", "sessions.1.pmc.events=[\"0x0524\"]")
        with open(t) as f:
            for line in f:
                o = json.loads(line)
                fields |= set(o)
                for s in o.get("sessions", []):
                    fields |= set(s)
    kinds = {"meta", "cswitch", "end"}
    for k in kinds:
        check(f'"{k}"' in man or f"*{k}*" in man, f"etwforge-truth(5) lacks the {k} line")
    for f in sorted(fields):
        check(f"*{f}*" in man, f"etwforge-truth(5) has no entry *{f}*")


# What only the project's own notes hold: the design notes and specs beside
# the repository, the style rules, section signs, issue numbers, and words
# that look like commit hashes (7 to 40 lowercase hex digits with a letter
# and a digit, not after 0x).
INTERNAL = [
    re.compile(r"DESIGN\.md|\.\./shared|\bshared/(spec|seeds|style)|KERNEL_FACTS|ETL_READERS|\bSTYLE\b|§"),
    re.compile(r"\bissues? ?#?[0-9]+", re.I),
    re.compile(r"(?<![0-9A-Za-z_])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z_])"),
]


def internal_refs(where, text):
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for pat in INTERNAL:
            out += [f"{where}:{n}: {m.group(0)!r}" for m in pat.finditer(line)]
    return out


def case_public():
    files = ["README.md", "doc/etwforge.bash", "include/etwforge/etwforge.h"]
    for g in ("doc/*.scd", "tools/examples/*.c", "tools/scenarios/*.yaml"):
        files += sorted(os.path.relpath(f, SRC) for f in glob.glob(os.path.join(SRC, g)))
    check(len(files) > 10, f"too few files: {files}")
    found = []
    for f in files:
        with open(os.path.join(SRC, f)) as fh:
            found += internal_refs(f, fh.read())
    found += internal_refs("etwforge --help", etwforge("--help"))
    for c in COMMANDS:
        found += internal_refs(f"etwforge {c} --help", etwforge(c, "--help"))
    check(not found, "references a user cannot follow:\n  " + "\n  ".join(found))


def case_pmc():
    with open(os.path.join(SRC, "pebs_model", "pmc_sources.c")) as f:
        code = f.read()
    sources = re.findall(r'^\s*\{"(\w+)", (-?\d+), (?:R|PMC_KIND_\w+),', code, re.M)
    with open(os.path.join(SRC, "pebs_model", "pmc_sources.h")) as f:
        count = int(re.search(r"#define PMC_SOURCES\s+(\d+)", f.read()).group(1))
    check(len(sources) == count, f"{len(sources)} sources read from pmc_sources.c, not {count}")
    man = read("etwforge-scenario.5.scd")
    sec = man_sections(man, "#")
    check("PMC SOURCES" in sec, "etwforge-scenario(5) has no section PMC SOURCES")
    body = sec["PMC SOURCES"]
    listed = re.findall(r"^\*(\w+)\* \((?:KPROFILE_SOURCE (\d+)|architectural)\)$", body, re.M)
    want = [(n, "" if int(k) < 0 else k) for n, k in sources]
    check(listed == want, f"PMC SOURCES lists {listed}, pmc_sources.c has {want}")
    for n, _ in sources:  # and the names are what gen takes
        etwforge("gen", "--set", f"sessions.0.pmc.counters=[{n}]", "--print-config")
    p = subprocess.run([BIN, "gen", "-q", "-o", "/dev/null", "--set",
                        "sessions.0.pmc.counters=[Bogus]"], capture_output=True, text=True)
    check(p.returncode == 2, f"an unknown PMC source: exit {p.returncode}")
    check("etwforge-scenario(5), PMC SOURCES" in p.stderr,
          f"the error does not point to the manual: {p.stderr.strip()}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in CASES:
        print(f"usage: {sys.argv[0]} {{{','.join(CASES)}}} [DOC_DIR]", file=sys.stderr)
        return 2
    try:
        CASES[sys.argv[1]]()
    except Fail as e:
        print(f"test_manual {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    print(f"test_manual {sys.argv[1]}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
