# SPDX-License-Identifier: MIT
"""What a Python user may do wrong and must get a clear error for, never a
crash: a File and its iterators after close() (also from other threads), a
NUL inside a string, numbers out of range, a missing file (one exception
type everywhere), a stream built out of time order, a failed replay (no file
left), the run's warnings, and Ctrl-C or SIGTERM in the middle of a run."""
import json
import os
import resource
import signal
import subprocess
import sys
import textwrap
import threading
import warnings

import pytest

import etwforge
from conftest import SCENARIOS, cli, python_env


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small file with every kind (compact and plain sessions, identity, samples)."""
    d = tmp_path_factory.mktemp("trust")
    p = d / "s.etl"
    etwforge.generate({"duration": "60ms", "machine": {"cpus": 4}, "sessions": [
        {"flags": ["cswitch", "compact_cswitch", "proc_thread", "dispatcher", "profile"]}]},
        p, seed=3)
    return p


# ---- a File and its iterators after close() ----

def test_iterator_after_close_raises(small):
    f = etwforge.open(small)
    it = iter(f)
    next(it)
    f.close()
    with pytest.raises(ValueError, match="closed"):
        sum(1 for _ in it)


def test_iterator_after_with_block_raises(small):
    with etwforge.open(small) as f:
        it = f.events(["cswitch"])
        next(it)
        rec = f.records()
    with pytest.raises(ValueError):
        next(it)
    with pytest.raises(ValueError):
        next(rec)


def test_switch_chunks_after_close(small):
    f = etwforge.open(small)
    whole = len(f.switches())
    ch = f.switch_chunks(10)
    assert len(next(ch)) == 10
    f.close()
    with pytest.raises(ValueError):
        next(ch)
    with pytest.raises(ValueError, match="closed"):
        f.switch_chunks()
    with pytest.raises(ValueError, match="closed"):
        f.events()
    with pytest.raises(ValueError, match="closed"):
        f.switches()
    assert whole > 10 and f.closed
    f.close()  # twice is fine


def test_bad_arguments_are_refused(small):
    with etwforge.open(small) as f:
        with pytest.raises(ValueError, match="at least 1"):
            f.switch_chunks(0)
        with pytest.raises(ValueError):
            f.switch_chunks(-5)
        with pytest.raises(TypeError):
            f.switch_chunks(2.5)
        with pytest.raises(ValueError, match="'cpu', 'file', 'time'"):
            f.events(order="bogus")
        assert [e.kind for e in f.events("cswitch")][:1] == ["cswitch"]


def test_abandoned_iterators_are_freed(small):
    f = etwforge.open(small)
    for _ in range(50):
        it = f.events()
        next(it)
        del it  # the generator's end frees its iterator at once
        f.events()  # never started
    assert len(f._cursors) <= 1
    f.close()


def test_close_while_another_thread_iterates(small):
    for _ in range(20):
        f = etwforge.open(small)
        seen, errors = [], []
        started = threading.Event()

        def walk():
            try:
                for ev in f:
                    seen.append(ev.ts)
                    started.set()
            except ValueError as e:
                errors.append(e)
            started.set()

        t = threading.Thread(target=walk)
        t.start()
        started.wait(10)
        f.close()
        t.join(30)
        assert not t.is_alive()
        assert seen and all(isinstance(e, ValueError) for e in errors)


def test_thread_stress(small, tmp_path):
    """Open, iterate, close and abandon files and iterators from several
    threads at random, sharing files, for a few seconds (the meson test
    python_asan runs it under AddressSanitizer)."""
    import random
    import time

    secs = float(os.environ.get("ETWFORGE_STRESS_SECONDS", "3"))
    data = open(small, "rb").read()
    shared = [etwforge.open(small) for _ in range(3)]
    lock = threading.Lock()
    counts = {"events": 0, "closed": 0, "ok": 0}
    failures = []

    def worker(seed):
        rnd = random.Random(seed)
        mine = []
        end = time.monotonic() + secs
        while time.monotonic() < end:
            op = rnd.randrange(9)
            try:
                with lock:
                    k = rnd.randrange(len(shared))
                    f = shared[k]
                if op == 0:
                    with lock:
                        shared[k] = etwforge.open(small if rnd.random() < 0.5 else data)
                    f.close()
                elif op == 1:
                    mine.append(f.events(order=rnd.choice(["cpu", "file", "time"])))
                elif op == 2:
                    mine.append(f.switch_chunks(rnd.randrange(1, 300)))
                elif op == 3:
                    mine.append(f.records())
                elif op in (4, 5) and mine:
                    it = rnd.choice(mine)
                    for _ in range(rnd.randrange(1, 200)):
                        next(it)
                        counts["events"] += 1
                elif op == 6 and mine:
                    mine.pop(rnd.randrange(len(mine)))  # abandoned
                elif op == 7:
                    g = etwforge.open(data)
                    mine.append(g.events())
                    if rnd.random() < 0.5:
                        g.close()
                elif op == 8:
                    len(f.switches())
                counts["ok"] += 1
            except (ValueError, StopIteration, RuntimeError):
                # a closed file, an iterator at its end, or one another thread is
                # running ("generator already executing"): refused, not crashed
                counts["closed"] += 1
            except Exception as e:  # anything else is a failure
                failures.append(repr(e))
                return

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(secs + 60)
    for f in shared:
        f.close()
    assert not failures, failures[:3]
    print("stress:", counts)
    assert counts["events"] > 0 and counts["ok"] > 0


# ---- strings, numbers ----

def test_nul_inside_a_string_is_refused(tmp_path):
    with pytest.raises(ValueError, match="null"):
        etwforge.generate(None, str(tmp_path / "x\0y.etl"), duration="5ms")
    with pytest.raises(ValueError, match="null"):
        etwforge.generate(None, tmp_path / "a.etl", duration="5ms",
                          machine__computer_name="AB\0CD")
    with pytest.raises(ValueError, match="null"):
        etwforge.open(str(tmp_path / "x\0.etl"))
    with pytest.raises(ValueError, match="null"):
        etwforge.verify(str(tmp_path / "a\0.etl"), tmp_path / "t.jsonl")
    with pytest.raises(ValueError, match="null"):
        etwforge.replay(str(tmp_path / "s\0.jsonl"), tmp_path / "r.etl")
    # inside YAML or JSON text the NUL is the library's to refuse, at its place
    with pytest.raises(etwforge.ScenarioError, match="NUL"):
        etwforge.generate({"machine": {"computer_name": "AB\0CD"}}, tmp_path / "a.etl")
    assert os.listdir(tmp_path) == []


def test_corpus_seed_range(tmp_path):
    for bad in (0, 2**63, 2**64, -1):
        with pytest.raises(etwforge.ScenarioError, match="out of range"):
            etwforge.corpus(tmp_path / "c", seed=bad)
    with pytest.raises(TypeError):
        etwforge.corpus(tmp_path / "c", seed="1")
    assert not os.path.exists(tmp_path / "c")


# ---- a missing file: one exception everywhere ----

def test_missing_files_raise_one_type(small, tmp_path):
    gone = tmp_path / "gone"
    calls = [lambda: etwforge.open(gone),
             lambda: etwforge.verify(gone, gone),
             lambda: etwforge.verify(small, gone),
             lambda: etwforge.generate(gone, tmp_path / "x.etl"),
             lambda: etwforge.replay(gone, tmp_path / "x.etl")]
    for call in calls:
        with pytest.raises(etwforge.NoSuchFileError) as e:
            call()
        assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, etwforge.Error)
        assert e.value.errno == 2 and e.value.filename == str(gone)
        assert str(e.value) == f"{gone}: cannot open: No such file or directory"
    assert os.listdir(tmp_path) == []


def test_a_fifo_is_read_as_a_stream(small, tmp_path):
    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    data = open(small, "rb").read()

    def feed():
        with open(fifo, "wb") as w:
            w.write(data)

    t = threading.Thread(target=feed)
    t.start()
    with etwforge.open(fifo) as f, etwforge.open(small) as g:
        assert f.switches().columns() == g.switches().columns()
    t.join()


def test_a_device_is_no_etl_file():
    with pytest.raises(etwforge.ETLError) as e:
        etwforge.open("/dev/null")
    assert "/dev/null" in str(e.value) and "'-'" not in str(e.value)
    assert "standard input" not in str(e.value)


# ---- what a run says ----

def test_xxh3_as_the_cli_prints_it(tmp_path):
    s = etwforge.generate(None, tmp_path / "h.etl", duration="10ms")
    x = s.sessions[0].xxh3
    assert isinstance(x, str) and len(x) == 16 and int(x, 16) != 0
    assert s.files[str(tmp_path / "h.etl")] == x
    if cli():
        p = subprocess.run([cli(), "gen", "-o", str(tmp_path / "h.etl"), "--duration", "10ms"],
                           capture_output=True, text=True, check=True)
        assert f"xxh3 {x}" in p.stderr


def test_non_chaining_stream_warns(tmp_path):
    s = etwforge.Stream().meta(cpus=1)
    s.cswitch(cpu=0, ts=100, old=0, new=5)
    s.cswitch(cpu=0, ts=200, old=7, new=0)  # 7 never ran: does not chain
    with pytest.warns(etwforge.RunWarning, match="do not chain"):
        s.replay(tmp_path / "w.etl")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        etwforge.Stream().meta(cpus=1).cswitch(cpu=0, ts=1, old=0, new=5).cswitch(
            cpu=0, ts=2, old=5, new=0).replay(tmp_path / "c.etl")


def test_sub_microsecond_duration_warns(tmp_path):
    sc = tmp_path / "hold.yaml"
    sc.write_text("duration: 5ms\nlocks:\n  - {name: \"a!b\", hold: 2}\n"
                  "sessions:\n  - {flags: [cswitch, spinlock]}\n")
    with pytest.warns(etwforge.RunWarning) as w:
        etwforge.generate(sc, tmp_path / "h.etl")
    msgs = [str(x.message) for x in w]
    assert any(m.startswith(f"{sc}:3:25: locks.0.hold: 2 is read as 2ns") for m in msgs), msgs
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a --set of the key takes it back
        etwforge.generate(sc, tmp_path / "h.etl", locks__0__hold="2us")


# ---- the Stream builder ----

def test_stream_checks_time_order_as_lines_are_added():
    s = etwforge.Stream().meta(cpus=2)
    s.cswitch(cpu=0, ts=1000, old=0, new=5)
    s.cswitch(cpu=1, ts=500, old=0, new=6)  # another CPU: its own history
    with pytest.raises(etwforge.StreamError) as e:
        s.cswitch(cpu=0, ts=900, old=5, new=0)
    assert str(e.value) == "stream:4: cpu 0: qpc timestamp 900 is before the previous 1000 " \
                           "(line 2)"
    with pytest.raises(etwforge.StreamError, match="before the previous 1000 \\(line 2\\)"):
        s.process(cpu=0, ts=999, event="dcstart", pid=8, image="a.exe", key="0x10")
    s.cswitch(cpu=0, ts=1100, old=5, new=0)
    with pytest.raises(etwforge.StreamError, match="end: qpc timestamp 1050 is before cpu 0's"):
        s.end(ts=1050)
    s.end(ts=1200)
    with pytest.raises(etwforge.StreamError, match="a record after the end line \\(line 5\\)"):
        s.cswitch(cpu=1, ts=2000, old=6, new=0)
    assert len(s.lines()) == 5


def test_stream_ts_speaks_python():
    s = etwforge.Stream().meta(cpus=1)
    for bad in ("5", 5.0, True, [5]):
        with pytest.raises(etwforge.StreamError) as e:
            s.cswitch(cpu=0, ts=bad, old=0, new=5)
        assert e.value.field == "ts"
        assert "an int" in str(e.value) and "a dict" in str(e.value)
        assert "object" not in str(e.value)
    s.cswitch(cpu=0, ts={"qpc": 7}, old=0, new=5)


def test_stream_limits_name_line_and_field():
    s = etwforge.Stream().meta(cpus=1, sessions=[{"flags": ["cswitch", "proc_thread"]}])
    with pytest.raises(etwforge.StreamError) as e:
        s.process(cpu=0, ts=5, event="dcstart", pid=8, image="a.exe", key="0x10",
                  cmdline="x" * 5000)
    assert str(e.value) == "stream:2: cmdline: 5000 UTF-16 units, at most 4096"
    assert e.value.field == "cmdline"
    with pytest.raises(etwforge.StreamError) as e:
        s.process(cpu=0, ts=5, event="dcstart", pid=8, image="a.exe", key="0x10",
                  sid="S-1-5-18", sid_token="0x7fff00000000")
    assert e.value.field == "sid_token" and "low 32 bits 0" in str(e.value)
    with pytest.raises(etwforge.StreamError) as e:
        s.process(cpu=0, ts=5, event="dcstart", pid=8, image="\u00e4.exe", key="0x10")
    assert e.value.field == "image" and "7-bit ASCII" in str(e.value)
    with pytest.raises(etwforge.StreamError) as e:
        s.process(cpu=0, ts=5, event="dcstart", pid=8, image="a.exe")
    assert e.value.field == "key"  # required, as the docstring says
    assert "key (required" in etwforge.Stream.process.__doc__


def test_failed_replay_leaves_no_file(tmp_path):
    s = etwforge.Stream(check=False).meta(cpus=1)
    s.cswitch(cpu=0, ts=10, old=0, new=1)
    s.cswitch(cpu=0, ts=20, old=1, new=0, old_pri=99)
    with pytest.raises(etwforge.ScenarioError) as e:
        s.replay(tmp_path / "u.etl", truth=tmp_path / "u.jsonl")
    assert str(e.value).startswith(f"{tmp_path / 'u.jsonl'}:3: old_pri: 99")
    assert os.listdir(tmp_path) == []
    (tmp_path / "u.jsonl").write_text("mine\n")
    with pytest.raises(etwforge.ScenarioError):
        s.replay(tmp_path / "u.etl", truth=tmp_path / "u.jsonl")
    assert os.listdir(tmp_path) == ["u.jsonl"] and (tmp_path / "u.jsonl").read_text() == "mine\n"
    with pytest.raises(etwforge.ScenarioError, match="same file"):
        etwforge.Stream().meta(cpus=1).replay(tmp_path / "u.jsonl", truth=tmp_path / "u.jsonl")


def test_replay_writes_where_the_caller_says(tmp_path, monkeypatch):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    s = etwforge.Stream().meta(cpus=1, sessions=[
        {"name": "A", "flags": ["cswitch"], "file": "a.etl"},
        {"name": "B", "flags": ["cswitch"], "file": str(victim)}])
    s.cswitch(cpu=0, ts=10, old=0, new=1)
    s.write(tmp_path / "s.jsonl")
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path / "out")
    r = etwforge.replay(tmp_path / "s.jsonl", "r.etl")
    assert [x.file for x in r.sessions] == ["r.etl", "r-2.etl"]
    with pytest.raises(etwforge.ScenarioError, match="sessions.1.file.*not a plain file name"):
        etwforge.replay(tmp_path / "s.jsonl")
    assert victim.read_text() == "keep me"
    assert sorted(os.listdir(tmp_path / "out")) == ["r-2.etl", "r.etl"]
    etwforge.replay(tmp_path / "s.jsonl", stream_paths=True)
    assert victim.read_bytes()[:4] != b"keep" and os.path.exists("a.etl")


# ---- Ctrl-C and SIGTERM in the middle of a run ----

CHILD = textwrap.dedent("""
    import os, sys, etwforge
    out = sys.argv[1]
    sc = os.path.join(sys.argv[2], "server64.yaml")
    print("start", flush=True)
    try:
        etwforge.generate(sc, os.path.join(out, "g.etl"), truth=os.path.join(out, "g.jsonl"),
                          duration="1h")
    except KeyboardInterrupt:
        print("KeyboardInterrupt", sorted(os.listdir(out)), flush=True)
        sys.exit(0)
    print("finished", flush=True)
""")


SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
           signal.SIGALRM, signal.SIGRTMIN + 2)


def child_setup():
    """The child's start: no core file; the signals as a terminal's job
    control gives them, whatever ran the tests (nohup ignores SIGHUP, a
    shell's background job SIGINT and SIGQUIT, and an ignored signal stays
    ignored: the run would go on); and a file-size limit, so that a signal
    which does not stop it cannot fill the disk (SIGXFSZ ends it instead)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 30, 4 << 30))
    for s in SIGNALS:
        signal.signal(s, signal.SIG_DFL)


def run_child(tmp_path, sig):
    out = tmp_path / "o"
    out.mkdir()
    (out / "g.etl").write_text("before")
    p = subprocess.Popen([sys.executable, "-c", CHILD, str(out), SCENARIOS],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=python_env(), preexec_fn=child_setup)
    assert p.stdout.readline().strip() == "start"
    import time
    for _ in range(3000):  # until the run has made its temporary files
        if any(n.startswith(".g.jsonl.") for n in os.listdir(out)):
            break
        time.sleep(0.01)
    p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=120)  # an hour of server64 would take far longer
    return p.returncode, stdout, stderr, sorted(os.listdir(out)), (out / "g.etl").read_text()


def test_ctrl_c_stops_generate_at_once(tmp_path):
    rc, stdout, stderr, left, old = run_child(tmp_path, signal.SIGINT)
    assert rc == 0, stderr
    assert stdout.strip() == "KeyboardInterrupt ['g.etl']"
    assert left == ["g.etl"] and old == "before"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1,
                                 signal.SIGALRM, signal.SIGRTMIN + 2],
                         ids=lambda s: signal.Signals(s).name if s in signal.Signals._value2member_map_
                         else str(s))
def test_a_fatal_signal_during_generate_leaves_nothing(tmp_path, sig):
    rc, stdout, stderr, left, old = run_child(tmp_path, sig)
    assert rc == -sig, (rc, stdout, stderr)  # as it would have ended, but clean
    assert left == ["g.etl"] and old == "before"
