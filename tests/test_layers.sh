#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/test_layers.sh SOURCE - the layers and rooms of README "Layers, and
# the library", checked on the code: every #include "..." of every C file
# against the rules below, and no cycle between modules anywhere.
#
# The rules (a folder may include from the folders after its colon):
#   writer/                 writer/ (ETL framing, both ways, at the bottom)
#   producer/               writer/, producer/
#   scheduler_model/        producer/trace_sink.h, producer/etw_names.h (the names
#                           of the wait reasons it draws), scheduler_model/ (the core)
#   pebs_model/, spinlock_model/
#                           producer/trace_sink.h, scheduler_model/, their own:
#                           a model reaches the core and the sink, never the
#                           writer, the rest of the producer or another model
#   tools/lib/common/       the public header, common/
#   tools/lib/config/       writer/, producer/, common/, config/
#   tools/lib/scenario/     the models, writer/, producer/, common/, config/, scenario/
#   tools/lib/truth/        writer/, producer/, scheduler_model/, common/, config/, truth/
#   tools/lib/read/         the public header, writer/, producer/, common/, read/:
#                           reading a file needs no scenario, truth or run
#   tools/lib/analysis/     the public header, writer/, producer/, common/, read/,
#                           analysis/: one reading of a trace, above read/
#   tools/lib/fit/          the public header, writer/, producer/, common/, read/,
#                           analysis/, fit/: the lookalike, from one reading
#   tools/lib/run/          everything below the top but analysis/, fit/ and fuzz/
#   tools/lib/fuzz/         everything below the top; nothing but the top
#                           (tools/lib/api_*.c) and bench (its catalogue) use fuzz/
#   tools/lib/ (api_*.c)    the public header and every room: adapters only
#   tools/bench/            the library's layers and rooms it measures, the
#                           public header, the CLI's cli.h and commands.h, and
#                           the fuzz room's catalogue (the mutator's inputs)
#   tools/cli/ (the CLI)    the public header and the CLI's own headers
#   tools/fuzzing/mutator/  the public header
#   tools/                  no C file: its top shows the parts (cli/, lib/,
#                           bench/, python/, fuzzing/, examples/, scenarios/,
#                           scripts/ and the two commands check.sh, quickstart.sh)
#
# Models do not see bytes: no file of scheduler_model/, pebs_model/ or
# spinlock_model/ stores or loads a little-endian value (put_le*, get_le*):
# the producer encodes.
#
# A module is a .c file with its .h and its _internal.h; module A needs B
# when A includes B's header or calls a function B defines. No two modules
# may need each other, however indirectly (a cycle), in any folder.
set -eu
exec python3 - "$1" <<'PY'
import collections
import os
import re
import sys

os.chdir(sys.argv[1])
PUB = r"etwforge/etwforge\.h"
MODELS = r"(scheduler_model|pebs_model|spinlock_model)/"
LOW = r"(writer|producer)/"
ROOMS_BELOW_TOP = r"tools/lib/(common|config|scenario|truth|read|run)/"
RULES = [  # folder, allowed include (a regex on the path as written)
    ("writer", r"writer/"),
    ("producer", LOW),
    ("scheduler_model", r"(producer/(trace_sink|etw_names)\.h|scheduler_model/)"),
    ("pebs_model", r"(producer/trace_sink\.h|scheduler_model/|pebs_model/)"),
    ("spinlock_model", r"(producer/trace_sink\.h|scheduler_model/|spinlock_model/)"),
    ("tools/lib/common", f"({PUB}|tools/lib/common/)"),
    ("tools/lib/config", f"({LOW}|tools/lib/(common|config)/)"),
    ("tools/lib/scenario", f"({MODELS}|{LOW}|tools/lib/(common|config|scenario)/)"),
    ("tools/lib/truth", f"({LOW}|scheduler_model/|tools/lib/(common|config|truth)/)"),
    ("tools/lib/read", f"({PUB}|{LOW}|tools/lib/(common|read)/)"),
    ("tools/lib/analysis", f"({PUB}|{LOW}|tools/lib/(common|read|analysis)/)"),
    ("tools/lib/fit", f"({PUB}|{LOW}|tools/lib/(common|read|analysis|fit)/)"),
    ("tools/lib/run", f"({PUB}|{MODELS}|{LOW}|{ROOMS_BELOW_TOP})"),
    ("tools/lib/fuzz", f"({PUB}|{MODELS}|{LOW}|{ROOMS_BELOW_TOP}|tools/lib/fuzz/)"),
    ("tools/lib", f"({PUB}|tools/lib/)"),
    ("tools/bench", f"({PUB}|{MODELS}|{LOW}|tools/lib/common/|tools/lib/fuzz/corpus_(cat|set)\\.h|tools/bench/|cli\\.h|commands\\.h)"),
    ("tools/fuzzing/mutator", f"({PUB})"),
    ("tools/cli", f"({PUB}|[a-z_]+\\.h)"),
]

files = []
for d, subdirs, names in os.walk("."):
    subdirs[:] = [s for s in subdirs if not s.startswith((".", "build"))]
    files += [os.path.normpath(os.path.join(d, n)) for n in names if n.endswith((".c", ".h"))]
files.sort()
INC = re.compile(r'^#include "([^"]+)"', re.M)
bad = []

# 1. every #include against its folder's rule
for f in files:
    folder = os.path.dirname(f)
    rule = next((r for d, r in RULES if folder == d), None)
    if rule is None:
        continue  # tests/ and include/ may include anything they test
    text = open(f, errors="replace").read()
    for n, line in enumerate(text.splitlines(), 1):
        m = INC.match(line)
        if m and not re.fullmatch(rule + r".*", m.group(1)):
            bad.append(f'{f}:{n}: includes "{m.group(1)}", which its room may not')


# 1b. no C file at the top of tools/, and models write no bytes
for f in files:
    if os.path.dirname(f) == "tools":
        bad.append(f"{f}: a C file at the top of tools/: the CLI's live in tools/cli/")
BYTES = re.compile(r"\b(put|get)_le(16|32|64)\b")
for f in files:
    if re.match(MODELS, f):
        text = open(f, errors="replace").read()
        for n, line in enumerate(text.splitlines(), 1):
            if BYTES.search(line):
                bad.append(f"{f}:{n}: a model writes or reads bytes (the producer encodes)")


# 2. cycles between modules (tests aside)
def resolve(src, inc):
    for p in (inc, os.path.join(os.path.dirname(src), inc), os.path.join("include", inc)):
        if os.path.exists(p):
            return os.path.normpath(p)
    return None


def module(p):
    s = os.path.splitext(p)[0]
    return s[: -len("_internal")] if s.endswith("_internal") else s


def strip(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", "", text, flags=re.S))


code = [f for f in files if not f.startswith("tests/")]
DEF = re.compile(r"^(?!static)[a-z][^;{}()=]*?\b([a-z_][a-z0-9_]*)\s*\([^;{]*\)\s*\n\{", re.M)
defined = {}
for f in code:
    if f.endswith(".c"):
        for name in DEF.findall(strip(open(f, errors="replace").read())):
            defined.setdefault(name, f)
needs = collections.defaultdict(set)
for f in code:
    text = strip(open(f, errors="replace").read())
    for inc in INC.findall(text):
        r = resolve(f, inc)
        if r and module(r) != module(f):
            needs[module(f)].add(module(r))
    if f.endswith(".c"):
        for name in set(re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", text)):
            d = defined.get(name)
            if d and module(d) != module(f):
                needs[module(f)].add(module(d))

index, low, stack, on, cycles = {}, {}, [], set(), []
sys.setrecursionlimit(100000)


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in sorted(needs.get(v, ())):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            cycles.append(sorted(comp))


for v in sorted(needs):
    if v not in index:
        visit(v)
for c in cycles:
    bad.append("a cycle: " + " <-> ".join(c) + " need each other")

if bad:
    print("\n".join(bad))
    sys.exit(1)
print(f"every include keeps to its room ({len(files)} files), and no module needs itself back")
PY
