#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/test_trust.py CASE - the tool's own output verifies, it writes only
where the user said, no signal or limit leaves a partial file, and bad input
says where and what (the binary is $ETWFORGE_BIN; exit status 0 passes,
else the reason is on stderr):

  verify    gen's files verify against gen's truth with flush_at_end false
            (the batch a CPU never flushed, identity records after the last
            one that was)
  paths     replay of a stream naming absolute, '..', device and plain
            paths: nothing outside -o's folder changes; without -o only
            plain names, in the current folder; --stream-paths follows the
            stream
  signals   every signal whose default ends the process, sent to gen mid-run:
            128+N (faults: killed by N, or a sanitizer's report), no
            temporary file left, the old target as it was; a file-size limit
            (ulimit -f) is a write error: exit 1, cleaned up
  messages  each bad input of the list gets its one line (where, what, the
            limit) and its exit status; nothing is written
  names     names beyond ASCII (-o ü.etl, a session "Kernel Lögger") are
            written as UTF-16 and verify; a non-ASCII image in a truth is
            refused at its line
  corpus    corpus seeds are 1..2^63-1, an empty shard writes nothing
"""
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.path.abspath(os.environ["ETWFORGE_BIN"])
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCENARIOS = os.path.join(SRC, "tools", "scenarios")


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def run(*args, cwd=None, **kw):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=cwd, **kw)


def write_stream(path, lines):
    with open(path, "w") as f:
        for d in lines:
            f.write(json.dumps(d) + "\n")


META = {"kind": "meta", "format": "etwforge-truth", "version": 1, "cpus": 1,
        "sessions": [{"name": "NT Kernel Logger", "clock": "qpc",
                      "flags": ["cswitch", "proc_thread"]}]}


# ---- verify: every run's own output verifies ----

def case_verify():
    with tempfile.TemporaryDirectory() as d:
        runs = [
            ["--set", "kernel.flush_at_end=false", "--set",
             "sessions.0.flags=[cswitch,compact_cswitch,profile]", "--duration", "200ms"],
            ["--set", "kernel.flush_at_end=false", "--duration", "300ms", "--seed", "4"],
            ["--set", "kernel.flush_at_end=false", "--set",
             "sessions.0.flags=[cswitch,compact_cswitch,proc_thread,dispatcher]",
             "--duration", "150ms", "--cpus", "3", "--seed", "9"],
        ]
        for i, extra in enumerate(runs):
            etl, truth = os.path.join(d, f"y{i}.etl"), os.path.join(d, f"u{i}.jsonl")
            p = run("gen", "-q", "-o", etl, "--truth", truth, *extra)
            check(p.returncode == 0, f"gen {extra}: {p.stderr}")
            for f in (etl, etl[:-4] + "-2.etl"):
                p = run("verify", "-q", f, "--truth", truth)
                check(p.returncode == 0, f"verify {f} ({extra}): exit {p.returncode}: "
                      f"{p.stderr.strip()}")


# ---- paths: replay writes where the user said ----

def snapshot(top, skip):
    """{path: (size, mtime_ns, bytes)} of every file under @top but @skip."""
    out = {}
    for root, dirs, files in os.walk(top):
        dirs[:] = [x for x in dirs if os.path.join(root, x) != skip]
        for n in files:
            p = os.path.join(root, n)
            st = os.lstat(p)
            with open(p, "rb") as f:
                out[p] = (st.st_size, st.st_mtime_ns, f.read())
    return out


def case_paths():
    with tempfile.TemporaryDirectory() as top:
        work = os.path.join(top, "work")
        out = os.path.join(work, "out")
        os.makedirs(out)
        victim = os.path.join(top, "victim.txt")
        with open(victim, "w") as f:
            f.write("the user's file")
        with open(os.path.join(top, "x.etl"), "w") as f:
            f.write("above the folder")
        names = [victim, "../x.etl", "/dev/full", "out/../../x.etl", "sub/y.etl", "..", "-"]
        sessions = [{"name": "A", "flags": ["cswitch"], "file": "a.etl"}] + [
            {"name": f"S{i}", "flags": ["cswitch"], "file": n} for i, n in enumerate(names)]
        meta = dict(META, sessions=sessions)
        stream = os.path.join(work, "evil.jsonl")
        write_stream(stream, [meta, {"kind": "cswitch", "cpu": 0, "tick": 0, "ts": {"qpc": 5},
                                     "old_tid": 0, "new_tid": 8}])
        before = snapshot(top, out)
        p = run("replay", "-q", "evil.jsonl", "-o", "out/safe.etl", cwd=work)
        check(p.returncode == 0, f"replay -o: exit {p.returncode}: {p.stderr}")
        check(snapshot(top, out) == before, "replay -o changed a file outside -o's folder")
        want = ["safe.etl"] + [f"safe-{i}.etl" for i in range(2, len(sessions) + 1)]
        check(sorted(os.listdir(out)) == sorted(want), f"in -o's folder: {os.listdir(out)}")
        # without -o: the stream's names must be plain; nothing is written otherwise
        p = run("replay", "-q", "evil.jsonl", cwd=work)
        check(p.returncode == 2, f"replay without -o: exit {p.returncode}")
        check(p.stderr.startswith(f"evil.jsonl:1: sessions.1.file: \"{victim}\" is not a plain "
                                  "file name in the current folder"), p.stderr)
        check(snapshot(top, out) == before, "a refused replay changed a file")
        for bad in ("../x.etl", "/dev/full", "..", "-", "sub/y.etl"):
            m = dict(META, sessions=[{"name": "A", "flags": ["cswitch"], "file": bad}])
            write_stream(os.path.join(work, "one.jsonl"), [m])
            p = run("replay", "-q", "one.jsonl", cwd=work)
            check(p.returncode == 2 and "sessions.0.file" in p.stderr, f"{bad}: {p.stderr}")
        check(snapshot(top, out) == dict(before, **{os.path.join(work, "one.jsonl"): snapshot(
            work, out)[os.path.join(work, "one.jsonl")]}), "a refused name changed a file")
        # plain names go to the current folder
        m = dict(META, sessions=[{"name": "A", "flags": ["cswitch"], "file": "p.etl"},
                                 {"name": "B", "flags": ["cswitch"], "file": "q.etl"}])
        write_stream(os.path.join(work, "plain.jsonl"), [m])
        p = run("replay", "-q", "plain.jsonl", cwd=work)
        check(p.returncode == 0 and os.path.exists(os.path.join(work, "p.etl")) and
              os.path.exists(os.path.join(work, "q.etl")), f"plain names: {p.stderr}")
        # told so, replay follows the stream (a stream of one's own)
        m = dict(META, sessions=[{"name": "A", "flags": ["cswitch"], "file": "a.etl"},
                                 {"name": "B", "flags": ["cswitch"], "file": victim}])
        write_stream(os.path.join(work, "mine.jsonl"), [m])
        p = run("replay", "-q", "--stream-paths", "mine.jsonl", "-o", "out/m.etl", cwd=work)
        check(p.returncode == 0, f"--stream-paths: {p.stderr}")
        with open(victim, "rb") as f:
            check(f.read(4) == b"\x00\x00\x01\x00", "--stream-paths wrote the stream's path")


# ---- signals ----

def fatal_signals():
    """Every signal a user can send whose default action ends the process."""
    keep = {signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD, signal.SIGCONT, signal.SIGURG,
            signal.SIGWINCH, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU}
    # ignored by gen: write errors instead (EPIPE, EFBIG)
    keep |= {signal.SIGPIPE, signal.SIGXFSZ}
    sigs = [s for s in signal.Signals if s not in keep and s < signal.SIGRTMIN]
    return sigs + list(range(signal.SIGRTMIN, signal.SIGRTMAX + 1))


FAULTS = {signal.SIGILL, signal.SIGTRAP, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE,
          signal.SIGSEGV, signal.SIGSYS}


def default_signals():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file of a fault signal
    for s in range(1, signal.NSIG):
        try:
            signal.signal(s, signal.SIG_DFL)
        except (OSError, ValueError):
            pass


def case_signals():
    sc = os.path.join(SCENARIOS, "server64.yaml")
    with tempfile.TemporaryDirectory() as d:
        target = os.path.join(d, "s.etl")
        for sig in fatal_signals():
            with open(target, "w") as f:
                f.write("old etl")
            p = subprocess.Popen([BIN, "gen", "-q", sc, "--duration", "1h", "-o", target,
                                  "--truth", os.path.join(d, "s.jsonl")],
                                 stderr=subprocess.PIPE, preexec_fn=default_signals)
            for _ in range(3000):
                if any(n.startswith(".s.jsonl.") for n in os.listdir(d)):
                    break
                time.sleep(0.01)
            check(p.poll() is None, f"signal {sig}: gen ended before the signal")
            os.kill(p.pid, sig)
            try:
                _, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                p.kill()
                raise Fail(f"signal {sig}: gen still runs 120 s after it")
            name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ \
                else f"SIGRTMIN+{sig - signal.SIGRTMIN}"
            if sig in FAULTS:
                # killed by it, or (a sanitizer build) by its report's abort
                check(p.returncode == -sig or p.returncode == -signal.SIGABRT or
                      p.returncode == 1, f"{name}: exit {p.returncode}")
            else:
                check(p.returncode == 128 + sig, f"{name}: exit {p.returncode}, "
                      f"not {128 + sig}: {err[-300:]}")
            check(sorted(os.listdir(d)) == ["s.etl"], f"{name}: left {sorted(os.listdir(d))}")
            with open(target) as f:
                check(f.read() == "old etl", f"{name}: the target changed")
        # a file-size limit: a write error, exit 1, cleaned up
        def limited():
            default_signals()
            resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        p = subprocess.run([BIN, "gen", "-q", sc, "--duration", "2s", "-o", target, "--truth",
                            os.path.join(d, "s.jsonl")], capture_output=True, text=True,
                           preexec_fn=limited)
        check(p.returncode == 1, f"ulimit -f: exit {p.returncode}: {p.stderr}")
        check("write failed: File too large" in p.stderr and p.stderr.count("\n") == 1,
              f"ulimit -f: {p.stderr!r}")
        check(sorted(os.listdir(d)) == ["s.etl"], f"ulimit -f: left {os.listdir(d)}")
        with open(target) as f:
            check(f.read() == "old etl", "ulimit -f: the target changed")


# ---- messages ----

def process(**kw):
    d = {"kind": "process", "cpu": 0, "ts": {"qpc": 100}, "event": "dcstart", "pid": 8,
         "image": "a.exe", "key": "0x1000"}
    d.update(kw)
    return d


def case_messages():
    with tempfile.TemporaryDirectory() as d:
        def stream(name, lines):
            p = os.path.join(d, name)
            write_stream(p, [META] + lines)
            return p

        cases = [
            (process(cmdline="x" * 5000), "2: cmdline: 5000 UTF-16 units, at most 4096"),
            (process(cmdline="\U0001F600" * 2049), "2: cmdline: 4098 UTF-16 units, at most 4096"),
            (process(cmdline="x" * 4000, package="y" * 4000, app_id="z" * 100),
             "2: image, cmdline, package and app_id: 16205 bytes as written, at most 16000"),
            (process(sid="S-1-5-18", sid_token="0x100000000"),
             "2: sid_token: 0x100000000 has its low 32 bits 0"),
            ({"kind": "config", "cpu": 0, "ts": {"qpc": 100}, "computer_name": "c" * 300},
             "2: computer_name: 300 UTF-16 units, at most 255"),
            ({"kind": "thread_name", "cpu": 0, "ts": {"qpc": 100}, "pid": 8, "tid": 4096,
              "name": "n" * 4097}, "2: name: 4097 UTF-16 units, at most 4096"),
            (process(image="caf\u00e9.exe"), "2: image: \"caf\u00e9.exe\" is not 7-bit ASCII"),
        ]
        for i, (line, want) in enumerate(cases):
            s = stream(f"m{i}.jsonl", [line])
            p = run("replay", "-q", s, "-o", os.path.join(d, "r.etl"))
            check(p.returncode == 2 and p.stderr.startswith(f"{s}:{want}") and
                  p.stderr.count("\n") == 1, f"{want}: exit {p.returncode}: {p.stderr!r}")
            check(not os.path.exists(os.path.join(d, "r.etl")), f"{want}: a file was written")
        # meta groups: tids are thread IDs
        m = dict(META, groups=[{"name": "g", "tids": ["a"]}])
        write_stream(os.path.join(d, "g.jsonl"), [m])
        p = run("replay", "-q", os.path.join(d, "g.jsonl"), "-o", os.path.join(d, "r.etl"))
        check(p.returncode == 2 and "groups[0].tids[0]: must be a thread ID" in p.stderr,
              p.stderr)
        # a reordered stream: the same exit status and message in replay and verify
        etl, truth = os.path.join(d, "o.etl"), os.path.join(d, "o.jsonl")
        check(run("gen", "-q", "-o", etl, "--truth", truth, "--duration", "20ms").returncode == 0,
              "gen")
        lines = open(truth).read().splitlines()
        idx = [i for i, x in enumerate(lines)
               if json.loads(x)["kind"] == "cswitch" and json.loads(x)["cpu"] == 0]
        a, b = idx[3], idx[4]
        lines[a], lines[b] = lines[b], lines[a]
        bad = os.path.join(d, "o2.jsonl")
        with open(bad, "w") as f:
            f.write("\n".join(lines) + "\n")
        r1 = run("replay", "-q", bad, "-o", os.path.join(d, "r.etl"))
        r2 = run("verify", "-q", etl, "--truth", bad)
        check(r1.returncode == r2.returncode == 2, f"reordered: {r1.returncode} {r2.returncode}")
        # the clock that goes back first is named: the tick count, or within a tick the QPC
        check(r1.stderr == r2.stderr and (f"{bad}:{b + 1}: cpu 0: qpc timestamp" in r1.stderr or
                                          f"{bad}:{b + 1}: cpu 0: tick" in r1.stderr),
              f"reordered: {r1.stderr!r} {r2.stderr!r}")
        # scenario values
        for args, want in [
            (["--set", "profile_interval=-1ms"],
             "--set:1:18: profile_interval: -1ms is out of range (122100ns..1s: what Windows "
             "accepts)\n"),
            (["--duration", "1.5"], "etwforge gen: --duration: 1.5 needs a unit (1.5s, 1.5ms, "
             "1.5us or 1.5ns): only a scenario file reads a bare number as nanoseconds\n"),
            (["--set", "processes=[{name: a.exe, exit_status: \"0xC0000005\"}]"],
             "--set:1:39: processes.0.exit_status: \"0xC0000005\" is quoted, so it is a string: "
             "write the number without quotes (exit_status: 0xC0000005)\n"),
            (["--set", "threads.0.thread_name=" + "a" * 100 + "{n}" * 3],
             "--set:1:23: threads.0.thread_name: is too long: 130 bytes once each {n} is a "
             "thread's index (10 digits at most), at most 127\n"),
        ]:
            p = run("gen", "-o", os.path.join(d, "x.etl"), *args)
            check(p.returncode == 2 and p.stderr == want, f"{args}: {p.stderr!r}")
            check(not os.path.exists(os.path.join(d, "x.etl")), f"{args}: a file was written")
        # a bare sub-microsecond duration in a file: a warning at its place, the run goes on
        sc = os.path.join(d, "hold.yaml")
        with open(sc, "w") as f:
            f.write("duration: 10ms\nlocks:\n  - {name: \"a!b\", hold: 2}\n")
        p = run("gen", sc, "-q", "-o", os.path.join(d, "h.etl"))
        check(p.returncode == 0 and p.stderr == f"etwforge gen: warning: {sc}:3:25: locks.0.hold: "
              "2 is read as 2ns, less than a microsecond (a bare number is nanoseconds): if 2us "
              "or 2ms was meant, write the unit\n", f"hold: 2: {p.stderr!r}")
        check(os.path.exists(os.path.join(d, "h.etl")), "hold: 2: the run went on")
        p = run("gen", sc, "-q", "-o", os.path.join(d, "h.etl"), "--set", "locks.0.hold=2us")
        check(p.returncode == 0 and p.stderr == "", f"--set takes it back: {p.stderr!r}")
        p = run("dump", os.path.join(d, "h.etl"), "--timeline", os.path.join(d, "t.svg"),
                "--from", "1.5")
        check(p.returncode == 2 and p.stderr == "etwforge dump: --from: 1.5 needs a unit (1.5s, "
              "1.5ms, 1.5us or 1.5ns)\n", f"dump --from 1.5: {p.stderr!r}")
        # gen --help: the output's name is part of the bytes
        h = " ".join(run("gen", "--help").stdout.split())
        check("the output file's name is part of them (the header holds it" in h, "gen --help")


# ---- names beyond ASCII ----

def case_names():
    with tempfile.TemporaryDirectory() as d:
        p = run("gen", "-q", "-o", "\u00fc.etl", "--truth", "\u00fc.jsonl", "--duration", "20ms",
                "--set", "sessions.0.name=Kernel L\u00f6gger", cwd=d)
        check(p.returncode == 0, f"gen -o \u00fc.etl: {p.stderr}")
        with open(os.path.join(d, "\u00fc.etl"), "rb") as f:
            b = f.read(0x400)
        # the names after the x64 logfile header, UTF-16LE, typed by hand
        want = "Kernel L\u00f6gger\0\u00fc.etl\0".encode("utf-16-le")
        check(b[0x180:0x180 + len(want)] == want, "the header's names")
        for f in ("\u00fc.etl", "\u00fc-2.etl"):
            p = run("verify", "-q", f, "--truth", "\u00fc.jsonl", cwd=d)
            check(p.returncode == 0, f"verify {f}: {p.stderr}")
        p = run("dump", "--jsonl", "\u00fc.etl", cwd=d)
        head = json.loads(p.stdout.splitlines()[0])
        check(head["logger_name"] == "Kernel L\u00f6gger" and head["logfile_name"] == "\u00fc.etl",
              f"dump: {head['logger_name']!r} {head['logfile_name']!r}")


# ---- corpus ----

def case_corpus():
    with tempfile.TemporaryDirectory() as d:
        for seed in ("0", "9223372036854775808", "18446744073709551615"):
            p = run("corpus", "-q", "--seed", seed, "--out", os.path.join(d, "c"))
            check(p.returncode == 2 and p.stderr == f"etwforge corpus: --seed: '{seed}' is not "
                  "a number 1..9223372036854775807 (2^63-1)\n", f"--seed {seed}: {p.stderr!r}")
        p = run("corpus", "-q", "--seed", "9223372036854775807", "--out", os.path.join(d, "m"))
        check(p.returncode == 0, f"the largest seed: {p.stderr}")
        p = run("corpus", "--mutants", "5", "--shard", "6/10", "--out", os.path.join(d, "e"))
        check(p.returncode == 0 and "is empty" in p.stderr and "nothing written" in p.stderr,
              f"empty shard: {p.returncode} {p.stderr!r}")
        check(not os.path.exists(os.path.join(d, "e")), "an empty shard made its folder")
        check(sorted(os.listdir(d)) == ["m"], f"left: {os.listdir(d)}")


CASES = {"verify": case_verify, "paths": case_paths, "signals": case_signals,
         "messages": case_messages, "names": case_names, "corpus": case_corpus}

if __name__ == "__main__":
    try:
        CASES[sys.argv[1]]()
    except Fail as e:
        print(f"test_trust {sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(1)
