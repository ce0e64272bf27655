# SPDX-License-Identifier: MIT
"""File.schedule(): the library's one reading of a trace, as tables.

Who ran on each CPU, who each thread and process is, who woke whom and
where the CPU went, which image sits where and which stacks were sampled:
the numbers `etwforge dump --stats` prints and the pictures draw, from the
same C code (etwforge_analysis_*).
"""
from __future__ import annotations

import array
import ctypes
import os
import threading
from ctypes import (POINTER, c_bool, c_char_p, c_int, c_int64, c_size_t, c_uint, c_uint32,
                    c_uint64, c_void_p)
from typing import Iterable, Optional, Tuple

from . import _lib
from ._errors import ErrorBox, ETLError

HIST_BUCKETS = 64
_DETAIL = {"full": 0, "counts": 1}
ITEM_WAKE = 0x2
ITEM_SAMPLE = 0x10


class _Opts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("detail", c_uint), ("items", c_uint), ("window", c_bool),
                ("from_ns", c_int64), ("to_ns", c_int64), ("cpus", c_void_p),
                ("cpus_bytes", c_size_t), ("keep_going", c_bool), ("symbols", c_char_p)]


class _Item(ctypes.Structure):
    _fields_ = [("kind", c_int), ("cpu", c_uint), ("t0", c_int64), ("t1", c_int64),
                ("tid", c_uint32), ("thread", c_int64), ("known", c_bool), ("opened", c_bool),
                ("waker", c_uint32), ("waker_thread", c_int64), ("from_cpu", c_uint),
                ("reason", c_uint), ("batch", c_uint64), ("tids", c_uint),
                ("record_bytes", c_uint64), ("lock", c_void_p), ("ip", c_uint64),
                ("stack", c_int64), ("pid", c_uint32)]


_TOTALS = ("from_ns", "to_ns", "end_ns", "clock_hz", "cpus", "switches", "compact",
           "switch_ins", "attributed", "unattributed", "readies", "wakeups", "samples",
           "samples_attributed", "idle_samples", "busy_ns", "idle_ns", "unknown_ns",
           "cpu_from_samples", "sample_interval_ns", "flushes", "spins", "damaged", "threads",
           "processes", "images", "samples_in_image", "samples_stacked", "stack_events",
           "stacks", "stack_records", "keys_unresolved", "frames", "frames_in_image")


class _Totals(ctypes.Structure):
    _fields_ = [("from_ns", c_int64), ("to_ns", c_int64), ("end_ns", c_int64),
                ("clock_hz", c_uint64), ("cpus", c_uint)] + [
        (n, c_uint64) for n in ("switches", "compact", "switch_ins", "attributed",
                                "unattributed", "readies", "wakeups", "samples",
                                "samples_attributed", "idle_samples", "busy_ns", "idle_ns",
                                "unknown_ns")] + [
        ("cpu_from_samples", c_bool), ("sample_interval_ns", c_uint64), ("flushes", c_uint64),
        ("spins", c_uint64), ("damaged", c_uint64), ("threads", c_size_t),
        ("processes", c_size_t), ("wake_hist", POINTER(c_uint64)), ("images", c_size_t),
        ("samples_in_image", c_uint64), ("samples_stacked", c_uint64),
        ("stack_events", c_uint64), ("stacks", c_size_t), ("stack_records", c_uint64),
        ("keys_unresolved", c_uint64), ("frames", c_uint64), ("frames_in_image", c_uint64),
        ("depth_hist", POINTER(c_uint64))]


class _ThreadRow(ctypes.Structure):
    _fields_ = [("tid", c_uint32), ("pid", c_uint32), ("process", c_int64), ("name", c_char_p),
                ("named", c_bool), ("start_ns", c_int64), ("end_ns", c_int64)] + [
        (n, c_uint64) for n in ("cpu_ns", "switch_ins", "samples", "wakeups", "wake_ns", "waits",
                                "wait_ns", "max_wait_ns", "bursts", "max_burst_ns")] + [
        ("burst_hist", POINTER(c_uint64)), ("wait_hist", POINTER(c_uint64)),
        ("wake_hist", POINTER(c_uint64)), ("wait_reasons", POINTER(c_uint64)),
        ("nreasons", c_uint), ("states", POINTER(c_uint64)), ("nstates", c_uint),
        ("distinct_ips", c_size_t)]


class _ProcessRow(ctypes.Structure):
    _fields_ = [("pid", c_uint32), ("ppid", c_uint32), ("image", c_char_p),
                ("cmdline", c_char_p), ("start_ns", c_int64), ("end_ns", c_int64),
                ("threads", c_size_t), ("cpu_ns", c_uint64), ("switch_ins", c_uint64),
                ("samples", c_uint64)]


class _CpuRow(ctypes.Structure):
    _fields_ = [("cpu", c_uint)] + [(n, c_uint64) for n in (
        "switches", "busy_ns", "idle_ns", "unknown_ns", "samples", "idle_samples")]


class _IpCount(ctypes.Structure):
    _fields_ = [("ip", c_uint64), ("samples", c_uint64)]


class _ImageRow(ctypes.Structure):
    _fields_ = [("pid", c_uint32), ("process", c_int64), ("base", c_uint64), ("size", c_uint64),
                ("load_ns", c_int64), ("unload_ns", c_int64), ("path", c_char_p),
                ("name", c_char_p), ("timestamp", c_uint32), ("checksum", c_uint32),
                ("pdb", c_char_p), ("guid", c_char_p), ("age", c_uint32), ("symbols", c_bool),
                ("samples", c_uint64), ("frames", c_uint64)]


class _StackRow(ctypes.Structure):
    _fields_ = [("frames", POINTER(c_uint64)), ("nframes", c_size_t),
                ("kernel_frames", c_size_t), ("samples", c_uint64)]


class _Location(ctypes.Structure):
    _fields_ = [("image", c_int64), ("module", c_char_p), ("function", c_char_p),
                ("offset", c_uint64), ("text", c_char_p)]


class _CallNode(ctypes.Structure):
    _fields_ = [("parent", c_int64), ("first_child", c_int64), ("next_sibling", c_int64),
                ("depth", c_uint), ("name", c_char_p), ("samples", c_uint64),
                ("self", c_uint64), ("pid", c_uint32)]


P = c_void_p
_new = _lib._fn("etwforge_analysis_new", P, P, POINTER(_Opts), P)
_free = _lib._fn("etwforge_analysis_free", None, P)
_next = _lib._fn("etwforge_analysis_next", c_int, P, POINTER(POINTER(_Item)), P)
_totals = _lib._fn("etwforge_analysis_totals", POINTER(_Totals), P)
_thread = _lib._fn("etwforge_analysis_thread", POINTER(_ThreadRow), P, c_size_t)
_process = _lib._fn("etwforge_analysis_process", POINTER(_ProcessRow), P, c_size_t)
_cpus = _lib._fn("etwforge_analysis_cpus", c_uint, P)
_cpu = _lib._fn("etwforge_analysis_cpu", POINTER(_CpuRow), P, c_uint)
_ips = _lib._fn("etwforge_analysis_ips", POINTER(_IpCount), P, c_int64, POINTER(c_size_t))
_image = _lib._fn("etwforge_analysis_image", POINTER(_ImageRow), P, c_size_t)
_stack = _lib._fn("etwforge_analysis_stack", POINTER(_StackRow), P, c_size_t)
_locate = _lib._fn("etwforge_analysis_locate", c_int, P, c_uint32, c_uint64, c_int64,
                   POINTER(_Location))
_call_nodes = _lib._fn("etwforge_analysis_call_nodes", c_size_t, P)
_call_node = _lib._fn("etwforge_analysis_call_node", POINTER(_CallNode), P, c_size_t)


def _text(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "replace") if b else ""


class Table:
    """Rows as columns: table.cpu_ns[i] is row i's; numbers are array.array,
    strings lists. len() is the number of rows; columns() a dict of them;
    rows() each row as a dict."""

    def __init__(self, names: Iterable[str], codes: dict):
        self._names = tuple(names)
        for n in self._names:
            setattr(self, n, array.array(codes[n]) if n in codes else [])

    def _add(self, row: dict) -> None:
        for n in self._names:
            getattr(self, n).append(row[n])

    def __len__(self) -> int:
        return len(getattr(self, self._names[0]))

    def columns(self) -> dict:
        """{name: column} of every column."""
        return {n: getattr(self, n) for n in self._names}

    def rows(self) -> list:
        """Each row as a dict {column: value}."""
        cols = self.columns()
        return [{n: cols[n][i] for n in self._names} for i in range(len(self))]

    def __repr__(self) -> str:
        return f"Table({len(self)} rows: {', '.join(self._names)})"


_THREAD_COLS = ("tid", "pid", "process", "name", "named", "start_ns", "end_ns", "cpu_ns",
                "switch_ins", "samples", "wakeups", "wake_ns", "waits", "wait_ns",
                "max_wait_ns", "bursts", "max_burst_ns", "distinct_ips")
_PROCESS_COLS = ("pid", "ppid", "image", "cmdline", "start_ns", "end_ns", "threads", "cpu_ns",
                 "switch_ins", "samples")
_CPU_COLS = ("cpu", "switches", "busy_ns", "idle_ns", "unknown_ns", "samples", "idle_samples")
_WAKE_COLS = ("t_ready", "t_run", "tid", "thread", "waker", "waker_thread", "from_cpu", "cpu")
_IMAGE_COLS = ("pid", "process", "base", "size", "load_ns", "unload_ns", "path", "name",
               "timestamp", "checksum", "pdb", "guid", "age", "symbols", "samples", "frames")
_IMAGE_TEXT = ("path", "name", "pdb", "guid")
_SAMPLE_COLS = ("t", "cpu", "tid", "thread", "pid", "ip", "stack")
_NODE_COLS = ("parent", "first_child", "next_sibling", "depth", "name", "samples", "self", "pid")
_CODES = {n: "q" for n in ("process", "start_ns", "end_ns", "thread", "waker_thread",
                           "t_ready", "t_run", "load_ns", "unload_ns", "t", "stack", "parent",
                           "first_child", "next_sibling")}
_CODES.update({n: "Q" for n in ("tid", "pid", "ppid", "cpu_ns", "switch_ins", "samples",
                                "wakeups", "wake_ns", "waits", "wait_ns", "max_wait_ns",
                                "bursts", "max_burst_ns", "distinct_ips", "threads", "cpu",
                                "switches", "busy_ns", "idle_ns", "unknown_ns",
                                "idle_samples", "waker", "from_cpu", "base", "size",
                                "timestamp", "checksum", "age", "frames", "ip", "depth",
                                "self")})
_CODES["named"] = "B"
_CODES["symbols"] = "B"


class Schedule:
    """What the library's analysis of a file found (File.schedule()).

    totals: a dict: switches (compact of them), switch_ins (attributed,
      unattributed: to a thread a Thread record names or not), readies,
      wakeups (ReadyThreads paired with the readied thread's next
      switch-in), samples, busy_ns / idle_ns / unknown_ns (CPU time of
      threads, of idle, and after a CPU's last compact switch, where the
      file does not say who ran), cpu_from_samples, from_ns / to_ns (the
      span counted), end_ns, clock_hz, ...
    threads: Table of thread rows (a TID reused is a new row): tid, pid,
      process (its row in processes, -1), name, named, start_ns, end_ns,
      cpu_ns, switch_ins, samples, wakeups, wake_ns, waits, wait_ns,
      max_wait_ns, bursts, max_burst_ns, distinct_ips.
    processes: Table: pid, ppid, image, cmdline, start_ns, end_ns,
      threads, cpu_ns, switch_ins, samples.
    cpus: Table: cpu, switches, busy_ns, idle_ns, unknown_ns, samples,
      idle_samples.
    wakeups: Table (when asked for): t_ready, t_run (ns since the session
      start), tid, thread (its row), waker, waker_thread, from_cpu, cpu.
    hist(row, which): the distribution ("burst", "wait" or "wake") of a
      thread row: 64 counts, bucket k the values in [2^k, 2^(k+1)) ns;
      hist(None, "wake"): every wake-up's latency; hist(None, "depth"):
      the frames of the samples' stacks.
    wait_reasons(row) / states(row): switch-outs by wait reason / state.
    ips(row): [(ip, samples)], most samples first (row None: idle's).
    cpu_by_process(): {pid: cpu_ns} summed over a PID's process rows.
    images: Table of image rows (a module mapped at a base of an address
      space for a time): pid (0: a kernel module, in every process),
      process (its row, -1), base, size, load_ns / unload_ns (-2^63: mapped
      before the trace, 2^63-1: still at its end), path, name, timestamp,
      checksum, pdb / guid / age (the PDB a merge named; "" and 0 none),
      symbols (the symbol store has its file), samples, frames.
    samples: Table (when asked for): t, cpu, tid, thread (its row), pid, ip,
      stack (its row for stack(), -1 none).
    stack(i): a distinct call stack: {"frames": [...] innermost first,
      "kernel_frames": n (the first n), "samples": n}.
    locate(pid, addr, t_ns): where an address of a process is at a time:
      {"image": row or -1, "module", "function", "offset", "text"} (text
      "ntdll.dll!RtlUserThreadStart+0x21", "ntdll.dll+0x2c1a", "0x1234").
    call_tree(): the samples' call tree as a Table (node 0 "all", then a
      node per process, then the frames from the outermost): parent,
      first_child, next_sibling, depth, name, samples, self, pid.
    folded(): {"process;outer;...;inner": samples ending there}, what
      flame graph tools read.
    All times are nanoseconds since the session started.
    """

    def __init__(self, f, *, window: Optional[Tuple[int, int]] = None,
                 cpus: Optional[Iterable[int]] = None, detail: str = "full",
                 wakeups: bool = False, samples: bool = False, symbols=None):
        if detail not in _DETAIL:
            raise ValueError(f"etwforge: detail {detail!r} is not one of 'full', 'counts'")
        o = _Opts(sz=ctypes.sizeof(_Opts), detail=_DETAIL[detail],
                  items=(ITEM_WAKE if wakeups else 0) | (ITEM_SAMPLE if samples else 0),
                  keep_going=f.keep_going)
        if symbols is not None:
            o.symbols = os.fsencode(symbols)
        mask = None
        if window is not None:
            if not (isinstance(window, tuple) and len(window) == 2 and
                    all(isinstance(v, int) for v in window)):
                raise TypeError("etwforge: window is (from_ns, to_ns), two ints")
            o.window, o.from_ns, o.to_ns = True, window[0], window[1]
        if cpus is not None:
            cpus = list(cpus)
            if any(not isinstance(c, int) or c < 0 for c in cpus):
                raise ValueError("etwforge: cpus are CPU numbers (ints from 0)")
            mask = (ctypes.c_uint8 * (max(cpus, default=0) // 8 + 1))()
            for c in cpus:
                mask[c // 8] |= 1 << (c % 8)
            o.cpus, o.cpus_bytes = ctypes.cast(mask, c_void_p), len(mask)
        self._mask = mask
        self._guard = threading.Lock()  # its library calls, one thread at a time
        self.damage: list = []
        # the analysis reads the file under the File's lock (another thread may close
        # it); once read, it needs the file no more: the tables outlive close()
        with f._lock:
            if not f._f:
                raise ValueError("etwforge: the file is closed")
            with ErrorBox() as e:
                self._a = _new(f._f, ctypes.byref(o), e.ptr)
                if not self._a:
                    if _lib.error_kind(e.ptr) == _lib.ERROR_INPUT:
                        raise ValueError((_lib.error_message(e.ptr) or b"").decode(
                            "utf-8", "replace"))
                    e.raise_(-ctypes.get_errno() or -22, ETLError)
            try:
                self.wakeups = Table(_WAKE_COLS, _CODES) if wakeups else None
                self.samples = Table(_SAMPLE_COLS, _CODES) if samples else None
                self._read(f.keep_going)
                self._tables()
            except BaseException:
                _free(self._a)
                self._a = None
                raise

    def _read(self, keep_going: bool) -> None:
        item = POINTER(_Item)()
        with ErrorBox() as e:
            while True:
                rc = _next(self._a, ctypes.byref(item), e.ptr)
                if rc == 0:
                    return
                if rc < 0:
                    err = ETLError(_lib.error_message(e.ptr).decode("utf-8", "replace"))
                    if not keep_going or rc == -12:
                        raise err
                    self.damage.append(err)
                    continue
                it = item.contents
                if it.kind == ITEM_SAMPLE:
                    self.samples._add({"t": it.t0, "cpu": it.cpu, "tid": it.tid,
                                       "thread": it.thread, "pid": it.pid, "ip": it.ip,
                                       "stack": it.stack})
                    continue
                self.wakeups._add({"t_ready": it.t0, "t_run": it.t1, "tid": it.tid,
                                   "thread": it.thread, "waker": it.waker,
                                   "waker_thread": it.waker_thread, "from_cpu": it.from_cpu,
                                   "cpu": it.cpu})

    def _tables(self) -> None:
        t = _totals(self._a).contents
        self.totals = {n: getattr(t, n) for n in _TOTALS}
        self.threads = Table(_THREAD_COLS, _CODES)
        for i in range(t.threads):
            r = _thread(self._a, i).contents
            row = {n: getattr(r, n) for n in _THREAD_COLS if n != "name"}
            row["name"] = _text(r.name)
            self.threads._add(row)
        self.processes = Table(_PROCESS_COLS, _CODES)
        for i in range(t.processes):
            r = _process(self._a, i).contents
            row = {n: getattr(r, n) for n in _PROCESS_COLS if n not in ("image", "cmdline")}
            row["image"], row["cmdline"] = _text(r.image), _text(r.cmdline)
            self.processes._add(row)
        self.cpus = Table(_CPU_COLS, _CODES)
        for i in range(_cpus(self._a)):
            r = _cpu(self._a, i).contents
            self.cpus._add({n: getattr(r, n) for n in _CPU_COLS})
        self.images = Table(_IMAGE_COLS, _CODES)
        for i in range(t.images):
            r = _image(self._a, i).contents
            row = {n: getattr(r, n) for n in _IMAGE_COLS if n not in _IMAGE_TEXT}
            row.update({n: _text(getattr(r, n)) for n in _IMAGE_TEXT})
            self.images._add(row)

    def _live(self):
        if not self._a:
            raise ValueError("etwforge: the schedule is closed")
        return self._a

    def _row(self, row: int):
        if not isinstance(row, int) or not 0 <= row < len(self.threads):
            raise IndexError(f"etwforge: no thread row {row!r} (0..{len(self.threads) - 1})")
        return _thread(self._live(), row).contents

    def _copy(self, p, n: int) -> list:
        return [p[k] for k in range(n)] if p else []

    def hist(self, row: Optional[int], which: str) -> list:
        """A distribution of thread row @row ("burst", "wait", "wake"), or of
        every wake-up (row None, "wake") or every sampled stack's frames (row
        None, "depth": bucket k [2^k, 2^(k+1)) frames): 64 counts ([] at the
        COUNTS detail)."""
        if which not in ("burst", "wait", "wake", "depth"):
            raise ValueError(f"etwforge: no distribution {which!r} (burst, wait, wake, depth)")
        if row is None and which not in ("wake", "depth"):
            raise ValueError("etwforge: only 'wake' and 'depth' have a distribution of every "
                             "thread")
        if row is not None and which == "depth":
            raise ValueError("etwforge: 'depth' is a distribution of every thread (row None)")
        with self._guard:
            if row is None:
                return self._copy(getattr(_totals(self._live()).contents, which + "_hist"),
                                  HIST_BUCKETS)
            return self._copy(getattr(self._row(row), which + "_hist"), HIST_BUCKETS)

    def wait_reasons(self, row: int) -> list:
        """Switch-outs of thread row @row by KWAIT_REASON (a Waiting switch's)."""
        with self._guard:
            r = self._row(row)
            return self._copy(r.wait_reasons, r.nreasons)

    def states(self, row: int) -> list:
        """Switch-outs of thread row @row by KTHREAD_STATE."""
        with self._guard:
            r = self._row(row)
            return self._copy(r.states, r.nstates)

    def ips(self, row: Optional[int]) -> list:
        """[(ip, samples)] of thread row @row (None: the idle thread), most first."""
        with self._guard:
            if row is not None:
                self._row(row)
            n = c_size_t()
            p = _ips(self._live(), -1 if row is None else row, ctypes.byref(n))
            return [(p[k].ip, p[k].samples) for k in range(n.value)]

    def stack(self, i: int) -> dict:
        """Distinct stack @i (a sample's "stack"): its frames, innermost first."""
        with self._guard:
            p = _stack(self._live(), i) if isinstance(i, int) and i >= 0 else None
            if not p:
                raise IndexError(f"etwforge: no stack {i!r} (0..{self.totals['stacks'] - 1})")
            r = p.contents
            return {"frames": self._copy(r.frames, r.nframes),
                    "kernel_frames": r.kernel_frames, "samples": r.samples}

    def locate(self, pid: int, addr: int, t_ns: int = 0) -> dict:
        """Where @addr of process @pid (0: the kernel's modules only) is at
        @t_ns: its image row (-1 none), module, function, offset and text."""
        loc = _Location()
        with self._guard:
            _locate(self._live(), pid, addr, t_ns, ctypes.byref(loc))
            return {"image": loc.image, "module": _text(loc.module) or None,
                    "function": _text(loc.function) or None, "offset": loc.offset,
                    "text": _text(loc.text)}

    def call_tree(self) -> Table:
        """The call tree of the samples (detail "full"; empty at "counts")."""
        out = Table(_NODE_COLS, _CODES)
        with self._guard:
            a = self._live()
            n = _call_nodes(a)
            if n == 0 and ctypes.get_errno() == 12:
                raise MemoryError("etwforge: the call tree")
            for i in range(n):
                r = _call_node(a, i).contents
                row = {c: getattr(r, c) for c in _NODE_COLS if c != "name"}
                row["name"] = _text(r.name)
                out._add(row)
        return out

    def folded(self) -> dict:
        """{"process;outer;...;inner": samples ending there}: the folded stacks."""
        tree = self.call_tree()
        out: dict = {}
        paths = [""] * len(tree)
        for i in range(1, len(tree)):  # a parent comes before its children
            parent = tree.parent[i]
            paths[i] = tree.name[i] if parent == 0 else paths[parent] + ";" + tree.name[i]
            if tree.self[i]:
                out[paths[i]] = tree.self[i]
        return out

    def cpu_by_process(self) -> dict:
        """{pid: cpu_ns}: CPU time per PID (its process rows summed)."""
        out: dict = {}
        for pid, ns in zip(self.processes.pid, self.processes.cpu_ns):
            out[pid] = out.get(pid, 0) + ns
        return out

    def close(self) -> None:
        """Free the library's analysis (the tables stay; hist(), ips() and the
        others raise ValueError after)."""
        guard = getattr(self, "_guard", None)
        if guard is None:
            return
        with guard:
            if getattr(self, "_a", None):
                _free(self._a)
                self._a = None

    def __del__(self):
        self.close()

    def __repr__(self) -> str:
        t = self.totals
        return (f"Schedule({t['switches']} switches, {t['wakeups']} wake-ups, "
                f"{len(self.threads)} threads, {len(self.processes)} processes)")
