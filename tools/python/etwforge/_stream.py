# SPDX-License-Identifier: MIT
"""Stream: a builder of truth / replay streams (etwforge-truth(5)), for the
hand-made edge case; each line is checked by the library as it is added."""
from __future__ import annotations

import ctypes
import json
import os
import re
import tempfile
from typing import Any, Mapping, Optional, Union

from . import _lib
from ._errors import ErrorBox, ScenarioError, StreamError
from ._run import PathLike, Summary, replay as _replay

_LINE_MSG = re.compile(r"^(?P<path>.*?):(?P<line>\d+): (?P<rest>.*)$", re.S)
_FIELD = re.compile(r"^([A-Za-z_][A-Za-z0-9_.]*): ")


def _check(meta: dict, line: Optional[dict], lineno: int) -> None:
    """Replay meta (+ line) into the null device: the library's own checks
    of names, types and ranges, with its messages (renumbered to lineno)."""
    fd, path = tempfile.mkstemp(prefix="etwforge-stream-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(meta) + "\n")
            if line is not None:
                f.write(json.dumps(line) + "\n")
        # every session to the null device: counted, nothing written
        o = _lib.RunOpts(sz=ctypes.sizeof(_lib.RunOpts), output=b"/dev/null")
        with ErrorBox() as e:
            rc = _lib.replay(path.encode(), ctypes.byref(o), None, e.ptr)
            if rc < 0:
                msg = _lib.error_message(e.ptr).decode("utf-8", "replace")
                mm = _LINE_MSG.match(msg)
                field = None
                if mm and mm.group("path") == path:
                    rest = mm.group("rest")
                    n = int(mm.group("line"))
                    msg = f"stream:{1 if n == 1 else lineno}: {rest}"
                    fm = _FIELD.match(rest)
                    field = fm.group(1) if fm else None
                raise StreamError(msg.replace(path, "stream"), field)
    finally:
        os.unlink(path)


class Stream:
    """A truth / replay stream built line by line (etwforge-truth(5)).

        s = etwforge.Stream()
        s.meta(cpus=1, target="win10-1507")
        s.cswitch(cpu=0, ts=1000, old_tid=0, new_tid=4096)
        s.cswitch(cpu=0, ts=5000, old=4096, new=0, old_pri=9, old_state=5)
        s.end(ts=9000)
        s.replay("edge.etl")

    Every method takes the line's fields by their names in
    etwforge-truth(5), with the defaults there; a field the line does not
    have, or a bad value, raises StreamError at the call (its field says
    which), with the library's message. Besides the named fields:
    ts may be an int (the same value in every clock the meta's sessions
    use) or a dict {"qpc": ...}; cswitch takes old= and new= for old_tid
    and new_tid, and a tick left out is the CPU's last one (0 at first).
    Each method returns the stream, so calls chain. check=False skips the
    per-call check (replay still checks every line).
    """

    def __init__(self, check: bool = True):
        self.check = check
        self._meta: Optional[dict] = None
        self._lines: list = []
        self._ticks: dict = {}

    # ---- the meta line ----
    def meta(self, **fields: Any) -> "Stream":
        """The meta line (first, once): target, arch, cpus, cpu_mhz,
        perf_freq, timer_resolution, max_wait_reason, start_time, quirks,
        seed, sessions (a list of dicts: name, clock, flags, pebs, pmc,
        buffer_size, file, ...), boot_time, start_ts, flush_at_end,
        pebs_and_pmc, groups, spinlock. Left out: the meta line's defaults
        (8 CPUs, one QPC session "NT Kernel Logger")."""
        if self._meta is not None or self._lines:
            raise StreamError("stream:1: the meta line comes first, once", "kind")
        m = {"kind": "meta", "format": "etwforge-truth", "version": 1}
        m.update(fields)
        if self.check:
            _check(m, None, 1)
        self._meta = m
        return self

    def _clocks(self) -> list:
        sessions = (self._meta or {}).get("sessions") or [{}]
        clocks = []
        for s in sessions:
            c = s.get("clock", "qpc") if isinstance(s, Mapping) else "qpc"
            if c not in clocks:
                clocks.append(c)
        return clocks

    def line(self, kind: str, **fields: Any) -> "Stream":
        """Any line of the stream by its kind ("cswitch", "spinlock",
        "ccswap_stop", "end", "process", "thread", "thread_name", "ready",
        "sample", "interval", "config", "masks", "rundown")."""
        if self._meta is None:
            self.meta()
        d = {"kind": kind}
        for k, v in fields.items():
            if v is None:
                continue
            if k == "ts" and isinstance(v, int) and not isinstance(v, bool):
                v = {c: v for c in self._clocks()}
            d[k] = v
        if self.check:
            _check(self._meta, d, len(self._lines) + 2)
        self._lines.append(d)
        return self

    def cswitch(self, cpu: int, ts: Union[int, Mapping[str, int]], old_tid: Optional[int] = None,
                new_tid: Optional[int] = None, *, old: Optional[int] = None,
                new: Optional[int] = None, tick: Optional[int] = None, **fields: Any) -> "Stream":
        """A context switch: cpu, ts, old_tid (or old), new_tid (or new),
        tick, and old_pri, old_base_pri, old_state, old_wait_reason,
        old_wait_mode, old_ideal_cpu, old_remaining_quantum, old_qos, new_qos,
        prev_cstate, old_rank, new_pri, new_pri_decrement, new_wait_ticks,
        pmc, pebs_index (0 when left out)."""
        if old is not None:
            old_tid = old
        if new is not None:
            new_tid = new
        if tick is None:
            tick = self._ticks.get(cpu, 0)
        self.line("cswitch", cpu=cpu, tick=tick, ts=ts, old_tid=old_tid, new_tid=new_tid,
                  **fields)
        self._ticks[cpu] = tick
        return self

    def spinlock(self, cpu: int, ts: Union[int, Mapping[str, int]], lock: str, caller: str,
                 logged: bool, **fields: Any) -> "Stream":
        """A spin-lock release: cpu, ts, lock and caller (hex strings),
        logged, and tick, acquire_time, release_time, wait_cycles,
        spin_count, tid, interrupt_count, irql, depth, mode, dpc, isr, why,
        name, acquire_count, contention_count, untracked, guarded, pmc."""
        return self.line("spinlock", cpu=cpu, ts=ts, lock=lock, caller=caller, logged=logged,
                         **fields)

    def ccswap_stop(self, clock: str = "qpc", **fields: Any) -> "Stream":
        """Set every CPU's compact-batch stop flag of clock (tick, ts optional)."""
        return self.line("ccswap_stop", clock=clock, **fields)

    def end(self, **fields: Any) -> "Stream":
        """The end of tracing (tick, ts optional: the largest seen)."""
        return self.line("end", **fields)

    def process(self, cpu: int, ts: Union[int, Mapping[str, int]], event: str, pid: int,
                image: str, **fields: Any) -> "Stream":
        """A Process record: event ("start", "end", "dcstart", "dcend",
        "defunct"), pid, image, and key, ppid, session, exit_status (259),
        dtb, flags, sid, sid_token, cmdline, package, app_id, exit_time,
        ctx_tid, ctx_pid, kernel_time, user_time."""
        return self.line("process", cpu=cpu, ts=ts, event=event, pid=pid, image=image,
                         **fields)

    def thread(self, cpu: int, ts: Union[int, Mapping[str, int]], event: str, pid: int,
               tid: int, **fields: Any) -> "Stream":
        """A Thread record: event ("start", "end", "dcstart", "dcend"), pid,
        tid, and stack_base, stack_limit, user_stack_base, user_stack_limit,
        affinity, win32_start, teb, sub_process_tag, base_pri (8), page_pri
        (5), io_pri (2), flags, name, ctx_tid, ctx_pid, kernel_time,
        user_time, group."""
        return self.line("thread", cpu=cpu, ts=ts, event=event, pid=pid, tid=tid, **fields)

    def thread_name(self, cpu: int, ts: Union[int, Mapping[str, int]], pid: int, tid: int,
                    name: str) -> "Stream":
        """ThreadSetName: tid of pid is now called name."""
        return self.line("thread_name", cpu=cpu, ts=ts, pid=pid, tid=tid, name=name)

    def ready(self, cpu: int, ts: Union[int, Mapping[str, int]], tid: int,
              **fields: Any) -> "Stream":
        """ReadyThread: tid readied on cpu; adjust_reason, adjust_increment,
        flags, waker_tid, waker_pid, kernel_time, user_time."""
        return self.line("ready", cpu=cpu, ts=ts, tid=tid, **fields)

    def sample(self, cpu: int, ts: Union[int, Mapping[str, int]], ip: str, tid: int,
               **fields: Any) -> "Stream":
        """SampledProfile: ip (a hex string), tid; count (1), dpc, isr,
        priority, rank."""
        return self.line("sample", cpu=cpu, ts=ts, ip=ip, tid=tid, **fields)

    def interval(self, cpu: int, ts: Union[int, Mapping[str, int]], event: str,
                 new_interval: int, **fields: Any) -> "Stream":
        """The sampling interval: event ("set", "dcstart", "dcend"),
        new_interval; source, old_interval, source_name, ctx_tid, ctx_pid,
        kernel_time, user_time."""
        return self.line("interval", cpu=cpu, ts=ts, event=event, new_interval=new_interval,
                         **fields)

    def config(self, cpu: int, ts: Union[int, Mapping[str, int]], **fields: Any) -> "Stream":
        """SystemConfig CPU: mhz, nproc, memory_mb, page_size, alloc_gran,
        computer_name, domain_name, hyperthreading, highest_user, arch,
        level, revision, pae, nx, memory_speed."""
        return self.line("config", cpu=cpu, ts=ts, **fields)

    def masks(self, cpu: int, ts: Union[int, Mapping[str, int]], event: str,
              **fields: Any) -> "Stream":
        """A group-mask record: event "new" or "end"; enabled."""
        return self.line("masks", cpu=cpu, ts=ts, event=event, **fields)

    def rundown(self, cpu: int, ts: Union[int, Mapping[str, int]]) -> "Stream":
        """Rundown complete (0x0008)."""
        return self.line("rundown", cpu=cpu, ts=ts)

    # ---- out ----
    def lines(self) -> list:
        """The stream's lines as dicts, the meta line first."""
        if self._meta is None:
            self.meta()
        return [dict(self._meta)] + [dict(d) for d in self._lines]

    def text(self) -> str:
        """The stream as JSON Lines text."""
        return "".join(json.dumps(d, separators=(",", ":")) + "\n" for d in self.lines())

    def write(self, path: PathLike) -> None:
        """Write the stream as JSON Lines to path."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text())

    def replay(self, out: PathLike, *, truth: Optional[PathLike] = None,
               json: Optional[PathLike] = None) -> Summary:
        """Encode the stream into ETL files (etwforge replay), the first at
        out; truth: also keep the stream there (else a temporary file).
        Returns a Summary; raises ScenarioError "stream:LINE: what"."""
        if truth is not None:
            self.write(truth)
            return _replay(truth, out, json=json)
        fd, path = tempfile.mkstemp(prefix="etwforge-stream-", suffix=".jsonl")
        os.close(fd)
        try:
            self.write(path)
            try:
                return _replay(path, out, json=json)
            except ScenarioError as e:
                raise ScenarioError(str(e).replace(path, "stream"), e.errno, e.kind) from None
        finally:
            os.unlink(path)
