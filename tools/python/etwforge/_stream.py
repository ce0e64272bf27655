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
_LINE_REF = re.compile(r"\(line (\d+)\)")


def _check(meta: dict, context: list, line: Optional[dict], lineno: int) -> None:
    """Replay the meta line, the @context lines ((number, dict) of the lines
    already added that the new one is checked against: the last of its
    CPU, the end line) and @line into the null device: the library's own
    checks of names, types, ranges and time order, with its messages
    (line numbers those of the stream being built)."""
    fd, path = tempfile.mkstemp(prefix="etwforge-stream-", suffix=".jsonl")
    numbers = [1] + [n for n, _ in context] + [lineno]
    try:
        with os.fdopen(fd, "w") as f:
            f.write(json.dumps(meta) + "\n")
            for _, d in context:
                f.write(json.dumps(d) + "\n")
            if line is not None:
                f.write(json.dumps(line) + "\n")
        # every session to the null device: counted, nothing written
        o = _lib.RunOpts(sz=ctypes.sizeof(_lib.RunOpts), output=b"/dev/null")
        with ErrorBox() as e:
            rc = _lib.replay(path.encode(), ctypes.byref(o), None, e.ptr)
            if rc < 0:
                msg = e.message()
                mm = _LINE_MSG.match(msg)
                field = None
                if mm and mm.group("path") == path:
                    rest = mm.group("rest")
                    n = int(mm.group("line"))

                    def renumber(k: int) -> int:
                        return numbers[k - 1] if 1 <= k <= len(numbers) else k

                    rest = _LINE_REF.sub(lambda m: f"(line {renumber(int(m.group(1)))})", rest)
                    msg = f"stream:{renumber(n)}: {rest}"
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
    Each method returns the stream, so calls chain. Each line is checked as
    it is added, also against the lines before it: its CPU's clocks and
    tick may not go back, nothing may follow the end line. check=False
    skips the per-call check (replay still checks every line).
    """

    def __init__(self, check: bool = True):
        self.check = check
        self._meta: Optional[dict] = None
        self._lines: list = []
        self._ticks: dict = {}
        self._last: dict = {}  # cpu -> index in _lines of its last line
        self._end: Optional[int] = None  # index of the end line

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
            _check(m, [], None, 1)
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
        lineno = len(self._lines) + 2
        d = {"kind": kind}
        for k, v in fields.items():
            if v is None:
                continue
            if k == "ts":
                if isinstance(v, bool) or not isinstance(v, (int, Mapping)):
                    raise StreamError(
                        f"stream:{lineno}: ts: {v!r} is neither an int (the time in every "
                        "clock the sessions use) nor a dict of clocks such as "
                        "{'qpc': 1000}", "ts")
                v = {c: v for c in self._clocks()} if isinstance(v, int) else dict(v)
            d[k] = v
        if self.check:
            _check(self._meta, self._context(d), d, lineno)
        cpu = d.get("cpu")
        if isinstance(cpu, int) and not isinstance(cpu, bool):
            self._last[cpu] = len(self._lines)
        if kind == "end":
            self._end = len(self._lines)
        self._lines.append(d)
        return self

    def _context(self, d: dict) -> list:
        """The lines already added that @d is checked against, as (number,
        line): the end line (nothing may follow it), else the last line of
        @d's CPU (its clocks and tick may not go back), or of every CPU for
        a line of none (end, ccswap_stop)."""
        if self._end is not None:
            idx = [self._end]
        elif isinstance(d.get("cpu"), int) and not isinstance(d.get("cpu"), bool):
            idx = [self._last[d["cpu"]]] if d["cpu"] in self._last else []
        else:
            idx = sorted(self._last.values())
        return [(i + 2, self._lines[i]) for i in idx]

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
        "defunct"), pid, image (7-bit ASCII), key (required: the process's
        UniqueProcessKey, a hex string "0xffff..."), and ppid, session,
        exit_status (259), dtb, flags, sid, sid_token, cmdline, package,
        app_id, exit_time, ctx_tid, ctx_pid, kernel_time, user_time."""
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
        """Write the stream as JSON Lines to path (in place only once whole)."""
        tmp = _beside(path)
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(self.text())
            os.replace(tmp, path)
        except BaseException:
            _unlink(tmp)
            raise

    def replay(self, out: PathLike, *, truth: Optional[PathLike] = None,
               json: Optional[PathLike] = None, stream_paths: bool = False) -> Summary:
        """Encode the stream into ETL files (etwforge replay), the first at
        out; truth: also keep the stream there (else a temporary file).
        Returns a Summary; raises ScenarioError "stream:LINE: what". A
        failed replay leaves no file behind: not the ETL files, not the
        truth (written beside it first, put in place once the files are)."""
        if truth is not None:
            _lib.cstr(truth, "truth")
            if _same_file(truth, out):
                raise ScenarioError(f"truth {os.fspath(truth)} and out {os.fspath(out)} are "
                                    "the same file")
            tmp = _beside(truth)
            label = os.fspath(truth)
        else:
            fd, tmp = tempfile.mkstemp(prefix="etwforge-stream-", suffix=".jsonl")
            os.close(fd)
            label = "stream"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(self.text())
            try:
                r = _replay(tmp, out, json=json, stream_paths=stream_paths)
            except ScenarioError as e:
                raise ScenarioError(str(e).replace(tmp, label), e.errno, e.kind) from None
            if truth is not None:
                os.replace(tmp, truth)
            return r
        finally:
            _unlink(tmp)


def _beside(path: PathLike) -> str:
    """A temporary name in @path's folder (a rename there is atomic)."""
    p = os.fspath(path)
    d, b = os.path.split(p)
    fd, tmp = tempfile.mkstemp(prefix=f".{b}.", dir=d or ".")
    os.close(fd)
    return tmp


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _same_file(a: PathLike, b: Optional[PathLike]) -> bool:
    if b is None:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(os.fspath(a)) == os.path.abspath(os.fspath(b))
