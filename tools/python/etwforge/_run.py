# SPDX-License-Identifier: MIT
"""generate() and replay(): runs of the library, and the Summary they return."""
from __future__ import annotations

import ctypes
import json as _json
import os
import signal as _signal
import threading
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union

from . import _lib
from ._errors import ErrorBox, RunWarning

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class SessionSummary:
    """One session's file: name, file, events, events_lost, buffers, bytes,
    bytes_per_switch, xxh3 (the XXH3-64 of the whole file as the tool
    prints it, 16 hex digits: "d998e75cf35c32fb"; None when discarded)."""
    name: str
    file: str
    events: int
    events_lost: int
    buffers: int
    bytes: int
    bytes_per_switch: float
    xxh3: Optional[str]
    discarded: bool


@dataclass(frozen=True)
class LockSummary:
    """One spin-lock family of a gen run (cycles are CPU cycles)."""
    name: str
    acquisitions: int
    contended: int
    spin_mean: int
    spin_p99: int
    hold_mean: int
    hold_p99: int
    logged_hold: int
    logged_contended: int
    logged_acquire_sample: int
    untracked: int
    guarded: int
    dropped: int


@dataclass(frozen=True)
class Summary:
    """What a generate() or replay() run did: the run's totals (seed,
    duration_ns, cpus, wall_seconds, switches, spinlock_releases,
    spinlock_events, batches, batch_records, batches_dropped, events_lost),
    batches_by_reason (flush reason name -> compact batches flushed for it),
    locks (LockSummary per family, gen only) and sessions (SessionSummary per
    file, in the scenario's order); files maps each file to its xxh3."""
    seed: int
    duration_ns: int
    cpus: int
    wall_seconds: float
    switches: int
    spinlock_releases: int
    spinlock_events: int
    batches: int
    batch_records: int
    batches_dropped: int
    events_lost: int
    batches_by_reason: dict = field(default_factory=dict)
    locks: tuple = ()
    sessions: tuple = ()

    @property
    def files(self) -> dict:
        """{file: xxh3 (hex)} of every session written (not the discarded ones)."""
        return {s.file: s.xxh3 for s in self.sessions if not s.discarded}


def _s(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "replace") if b else ""


def _summary(sum_ptr) -> Summary:
    t = _lib.Totals(sz=ctypes.sizeof(_lib.Totals))
    with ErrorBox() as e:
        rc = _lib.summary_totals(sum_ptr, ctypes.byref(t), e.ptr)
        if rc < 0:
            e.raise_(rc)
    reasons = {}
    r = 0
    while (name := _lib.flush_reason_name(r)) is not None:
        v = ctypes.c_uint64()
        if _lib.summary_batches(sum_ptr, r, ctypes.byref(v)) == 0:
            reasons[name.decode()] = v.value
        r += 1
    sessions = []
    for i in range(_lib.summary_sessions(sum_ptr)):
        s = _lib.summary_session(sum_ptr, i).contents
        sessions.append(SessionSummary(_s(s.name), _s(s.file), s.events, s.events_lost,
                                       s.buffers, s.bytes, s.bytes_per_switch,
                                       None if s.discarded else f"{s.xxh3:016x}",
                                       bool(s.discarded)))
    locks = []
    for i in range(_lib.summary_locks(sum_ptr)):
        lk = _lib.summary_lock(sum_ptr, i).contents
        locks.append(LockSummary(_s(lk.name), *(getattr(lk, n) for n, _ in
                                                 _lib.LockSummary._fields_[1:])))
    return Summary(**{n: getattr(t, n) for n, _ in _lib.Totals._fields_[1:]},
                   batches_by_reason=reasons, locks=tuple(locks), sessions=tuple(sessions))


def _b(p: Optional[PathLike], what: str) -> Optional[bytes]:
    return None if p is None else _lib.cstr(p, what)


def _set_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple, dict)):
        return _json.dumps(v)
    return str(v)


def _assignments(set: Optional[Mapping[str, Any]], overrides: Mapping[str, Any]) -> list[str]:
    out = []
    for k, v in (set or {}).items():
        out.append(f"{k}={_set_value(v)}")
    for k, v in overrides.items():
        out.append(f"{k.replace('__', '.')}={_set_value(v)}")
    return out


def _is_text(s: str) -> bool:
    return "\n" in s or s.lstrip().startswith("{") or ": " in s


class _Notes:
    """A C FILE * in memory for a run's notes; warn() hands each line to
    warnings.warn (RunWarning) once the run is over."""

    def __init__(self):
        self._buf = ctypes.c_void_p()
        self._size = ctypes.c_size_t()
        self.fp = _lib.open_memstream(ctypes.byref(self._buf), ctypes.byref(self._size))

    def close(self) -> list:
        if not self.fp:
            return []
        _lib.fclose(self.fp)
        self.fp = None
        text = ctypes.string_at(self._buf, self._size.value) if self._buf else b""
        _lib.free(self._buf)
        return [x for x in text.decode("utf-8", "replace").splitlines() if x.strip()]


def _warn(lines) -> None:
    for line in lines:
        warnings.warn(line, RunWarning, stacklevel=3)


def _fatal_signals() -> tuple:
    """The signals whose default action ends the process and that a user can
    send (not the faults a program raises itself)."""
    names = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGALRM",
             "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGIO", "SIGPWR", "SIGSTKFLT")
    sigs = [getattr(_signal, n) for n in names if hasattr(_signal, n)]
    if hasattr(_signal, "SIGRTMIN"):
        sigs += range(_signal.SIGRTMIN, _signal.SIGRTMAX + 1)
    return tuple(sigs)


class _Interruptible:
    """While a run goes on in the main thread, a signal that would end the
    process (its default action), or Ctrl-C while Python's own handler
    raises KeyboardInterrupt, sets the run's stop flag instead: the library
    stops within a step (10 ms of simulated time, a few thousand lines) and
    removes what it made; the progress callback is where Python sees the
    signal. Then the signal is given back to what was there before: the
    KeyboardInterrupt, the default action (the process ends, nothing left
    behind). Signals with a handler of the program's own are left to it,
    and outside the main thread nothing changes (Python handles signals in
    the main thread only)."""

    SIGNALS = _fatal_signals()

    def __init__(self, opts):
        self.stop = ctypes.c_int(0)
        self.got: list = []
        self.old: dict = {}
        self.opts = opts
        self.cb = _lib.PROGRESS_FN(self._progress)

    def _progress(self, _ctx, _p):
        _check_signals()

    def _handler(self, sig, _frame):
        self.got.append(sig)
        self.stop.value = 1

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self
        for sig in self.SIGNALS:
            try:
                old = _signal.getsignal(sig)
                ours = old is _signal.SIG_DFL or (sig == _signal.SIGINT and
                                                  old is _signal.default_int_handler)
                if ours:
                    _signal.signal(sig, self._handler)
                    self.old[sig] = old
            except (ValueError, OSError, TypeError):
                pass
        if self.old:
            self.opts.stop = ctypes.pointer(self.stop)
            self.opts.progress = self.cb
            self.opts.progress_ms = 50
        return self

    def __exit__(self, *exc):
        for sig, old in self.old.items():
            _signal.signal(sig, old)
        if self.got:
            _signal.raise_signal(self.got[0])  # to what was there before, now
        return False


def _check_signals() -> None:
    """Run the Python signal handlers now (a C callback of the main thread)."""
    _lib.check_signals()


def _run_opts(out, truth, json, notes=None) -> tuple:
    keep = (_b(out, "out"), _b(truth, "truth"), _b(json, "json"))
    o = _lib.RunOpts(sz=ctypes.sizeof(_lib.RunOpts), output=keep[0], truth=keep[1],
                     json=keep[2], notes=notes.fp if notes else None)
    return o, keep


def generate(scenario: Union[None, PathLike, str, Mapping[str, Any]] = None,
             out: Optional[PathLike] = None, truth: Optional[PathLike] = None,
             seed: Optional[int] = None, *, set: Optional[Mapping[str, Any]] = None,
             json: Optional[PathLike] = None, **overrides: Any) -> Summary:
    """Simulate the scenario's machine and write its ETL files (etwforge gen).

    scenario: None (the built-in default), a path (str or os.PathLike) to a
      YAML or JSON file, YAML/JSON text (a str with a newline, a "{" first,
      or a ": "), or a dict (the scenario as data).
    out: the first session's ETL file (None: the scenario's own); later
      sessions without a file of their own get OUT-N.etl beside it. The
      file's name is part of its bytes (the header holds it).
    truth: where the ground truth goes as JSON Lines (None: not written).
    seed: the scenario's seed (as --set seed=N).
    set: a dict of dotted --set keys {"machine.cpus": 4, "duration": "50ms"}.
    **overrides: more --set keys, "__" for ".": machine__cpus=4,
      sessions__0__clock="cycles"; lists and dicts are given as JSON,
      booleans as true/false. Durations need their unit ("5s").
    json: also write the summary as JSON to this file ("-" = stdout).

    Returns a Summary. Raises ScenarioError (bad scenario, key or value, two
    outputs that are one file), NoSuchFileError (no such scenario file),
    Error (a write failure), ValueError (a NUL inside a string). What the
    run notes (a bare number of nanoseconds below a microsecond in the
    scenario, a discarded session) comes as a RunWarning. In the main
    thread, Ctrl-C (or SIGTERM, or any signal that would end the process)
    stops the run at once: every output is left as it was, then
    KeyboardInterrupt (or the signal's own action) follows.
    """
    sets = ([f"seed={seed}"] if seed is not None else []) + _assignments(set, overrides)
    sets_b = [_lib.cstr(a, "set", path=False) for a in sets]
    if isinstance(scenario, Mapping):
        text = _lib.cstr(_json.dumps(scenario), "scenario", path=False)
    elif isinstance(scenario, str) and _is_text(scenario):
        text = _lib.cstr(scenario, "scenario", path=False)
    else:
        text = None
        path = None if scenario is None else _lib.cstr(scenario, "scenario")
    sc = _lib.scenario_new()
    if not sc:
        raise MemoryError("etwforge: no memory for a scenario")
    sum_ptr = _lib.summary_new()
    notes = _Notes()
    said: list = []
    try:
        with ErrorBox() as e:
            rc = 0
            if text is not None:
                name = b"<dict>" if isinstance(scenario, Mapping) else b"<string>"
                rc = _lib.scenario_load_string(sc, name, text, e.ptr)
            elif path is not None:
                rc = _lib.scenario_load_file(sc, path, e.ptr)
            if rc < 0:
                e.raise_(rc)
            for a in sets_b:
                rc = _lib.scenario_set(sc, a, e.ptr)
                if rc < 0:
                    e.raise_(rc)
            i = 0
            while (w := _lib.scenario_warning(sc, i)) is not None:
                said.append(w.decode("utf-8", "replace"))
                i += 1
            o, _keep = _run_opts(out, truth, json, notes)
            with _Interruptible(o):
                rc = _lib.generate(sc, ctypes.byref(o), sum_ptr, e.ptr)
            if rc < 0:
                e.raise_(rc)
            return _summary(sum_ptr)
    finally:
        _warn(said + notes.close())
        _lib.summary_free(sum_ptr)
        _lib.scenario_free(sc)


def replay(stream: PathLike, out: Optional[PathLike] = None, *,
           json: Optional[PathLike] = None, stream_paths: bool = False) -> Summary:
    """Encode the truth stream (a JSON Lines file, "-" = stdin) exactly into
    ETL files (etwforge replay): one per session of its meta line, the
    first at out, the others OUT-2.etl, OUT-3.etl, ... beside it. With out
    None, the meta line's "file" names are used, and each must be a plain
    file name (written in the current folder): a stream does not choose
    where files go. stream_paths=True writes where the stream says, any
    path (then out, if given, names the first).

    Returns a Summary; raises ScenarioError "stream:line: what" for a bad
    line, NoSuchFileError for a stream that is not there, Error for a
    write failure; nothing is written unless the whole run succeeded.
    Switches that do not chain come as a RunWarning. Ctrl-C stops it as
    it stops generate().
    """
    path = _lib.cstr(stream, "stream")
    sum_ptr = _lib.summary_new()
    notes = _Notes()
    try:
        with ErrorBox() as e:
            o, _keep = _run_opts(out, None, json, notes)
            o.stream_paths = bool(stream_paths)
            with _Interruptible(o):
                rc = _lib.replay(path, ctypes.byref(o), sum_ptr, e.ptr)
            if rc < 0:
                e.raise_(rc)
            return _summary(sum_ptr)
    finally:
        _warn(notes.close())
        _lib.summary_free(sum_ptr)
