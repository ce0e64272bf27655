# SPDX-License-Identifier: MIT
"""generate() and replay(): runs of the library, and the Summary they return."""
from __future__ import annotations

import ctypes
import json as _json
import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Union

from . import _lib
from ._errors import ErrorBox

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class SessionSummary:
    """One session's file: name, file, events, events_lost, buffers, bytes,
    bytes_per_switch, xxh3 (XXH3-64 of the whole file; 0 when discarded)."""
    name: str
    file: str
    events: int
    events_lost: int
    buffers: int
    bytes: int
    bytes_per_switch: float
    xxh3: int
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
        """{file: xxh3} of every session written (not the discarded ones)."""
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
                                       s.buffers, s.bytes, s.bytes_per_switch, s.xxh3,
                                       bool(s.discarded)))
    locks = []
    for i in range(_lib.summary_locks(sum_ptr)):
        lk = _lib.summary_lock(sum_ptr, i).contents
        locks.append(LockSummary(_s(lk.name), *(getattr(lk, n) for n, _ in
                                                 _lib.LockSummary._fields_[1:])))
    return Summary(**{n: getattr(t, n) for n, _ in _lib.Totals._fields_[1:]},
                   batches_by_reason=reasons, locks=tuple(locks), sessions=tuple(sessions))


def _b(p: Optional[PathLike]) -> Optional[bytes]:
    return None if p is None else os.fsencode(p)


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


def _run_opts(out, truth, json) -> tuple:
    keep = (_b(out), _b(truth), _b(json))
    o = _lib.RunOpts(sz=ctypes.sizeof(_lib.RunOpts), output=keep[0], truth=keep[1],
                     json=keep[2])
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
      sessions without a file of their own get OUT-N.etl beside it.
    truth: where the ground truth goes as JSON Lines (None: not written).
    seed: the scenario's seed (as --set seed=N).
    set: a dict of dotted --set keys {"machine.cpus": 4, "duration": "50ms"}.
    **overrides: more --set keys, "__" for ".": machine__cpus=4,
      sessions__0__clock="cycles"; lists and dicts are given as JSON,
      booleans as true/false. Durations need their unit ("5s").
    json: also write the summary as JSON to this file ("-" = stdout).

    Returns a Summary. Raises ScenarioError (bad scenario, key or value, two
    outputs that are one file) or Error (a write failure).
    """
    sc = _lib.scenario_new()
    if not sc:
        raise MemoryError("etwforge: no memory for a scenario")
    sum_ptr = _lib.summary_new()
    try:
        with ErrorBox() as e:
            rc = 0
            if isinstance(scenario, Mapping):
                rc = _lib.scenario_load_string(sc, b"<dict>", _json.dumps(scenario).encode(),
                                               e.ptr)
            elif isinstance(scenario, str) and _is_text(scenario):
                rc = _lib.scenario_load_string(sc, b"<string>", scenario.encode(), e.ptr)
            elif scenario is not None:
                rc = _lib.scenario_load_file(sc, os.fsencode(scenario), e.ptr)
            if rc < 0:
                e.raise_(rc)
            sets = ([f"seed={seed}"] if seed is not None else []) + _assignments(set, overrides)
            for a in sets:
                rc = _lib.scenario_set(sc, a.encode(), e.ptr)
                if rc < 0:
                    e.raise_(rc)
            o, _keep = _run_opts(out, truth, json)
            rc = _lib.generate(sc, ctypes.byref(o), sum_ptr, e.ptr)
            if rc < 0:
                e.raise_(rc)
            return _summary(sum_ptr)
    finally:
        _lib.summary_free(sum_ptr)
        _lib.scenario_free(sc)


def replay(stream: PathLike, out: Optional[PathLike] = None, *,
           json: Optional[PathLike] = None) -> Summary:
    """Encode the truth stream (a JSON Lines file, "-" = stdin) exactly into
    ETL files (etwforge replay): one per session of its meta line, the
    first at out (None: the stream's own file name).

    Returns a Summary; raises ScenarioError "stream:line: what" for a bad
    line, Error for a write failure.
    """
    sum_ptr = _lib.summary_new()
    try:
        with ErrorBox() as e:
            o, _keep = _run_opts(out, None, json)
            rc = _lib.replay(os.fsencode(stream), ctypes.byref(o), sum_ptr, e.ptr)
            if rc < 0:
                e.raise_(rc)
            return _summary(sum_ptr)
    finally:
        _lib.summary_free(sum_ptr)
