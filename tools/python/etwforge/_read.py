# SPDX-License-Identifier: MIT
"""open(): an ETL file's header, its events, and its switches as columns."""
from __future__ import annotations

import array
import builtins
import ctypes
import json
import os
import stat
import threading
import weakref
from typing import Any, Iterable, Iterator, Optional, Union

from . import _lib
from ._errors import ErrorBox, ETLError

# the C event kinds, named as the truth names its lines
_KIND_NAME = {0x01: "buffer", 0x02: "record", 0x04: "cswitch", 0x08: "cswitch",
              0x10: "spinlock", 0x20: "process", 0x40: "thread", 0x80: "thread_name",
              0x100: "ready", 0x200: "sample", 0x400: "interval", 0x800: "config",
              0x1000: "rundown"}
_KINDS_BY_NAME = {
    "cswitch": 0x04 | 0x08, "switches": 0x04 | 0x08, "spinlock": 0x10, "process": 0x20,
    "thread": 0x40, "thread_name": 0x80, "ready": 0x100, "sample": 0x200, "interval": 0x400,
    "config": 0x800, "rundown": 0x1000, "record": 0x02, "buffer": 0x01}
_PAYLOADS = ("process", "thread", "thread_name", "ready", "sample", "profile_interval",
             "sysconfig_cpu", "rundown")
DEFAULT_KINDS = ("cswitch", "spinlock", "process", "thread", "thread_name", "ready", "sample",
                 "interval", "config", "rundown")


class Event:
    """One event, immutable: kind ("cswitch", "spinlock", "process",
    "thread", "thread_name", "ready", "sample", "interval", "config",
    "rundown", or "record"/"buffer" when asked for), compact (a switch
    expanded from a compact batch), cpu, ts, file_offset, and the fields
    `etwforge dump --jsonl` prints for it under the same names (old_tid,
    new_tid, old_pri, lock, pid, image, pmc, pebs_index, ...; the record's
    header kind such as "SYSTEM64" is record_kind). An identity record's
    decoded payload (dump's "process": {...}, "thread": {...}, ...) is read
    at the top, as in the truth's lines: ev.pid, ev.image, ev.event; the
    header's ThreadId/ProcessId are then ctx_tid/ctx_pid. as_dict() is the
    dump JSON object; a field the event does not have raises
    AttributeError. The fields are read from the line when one is first
    asked for; copy and pickle keep them.
    """

    __slots__ = ("kind", "compact", "cpu", "ts", "file_offset", "_d", "_f", "_t")

    def __init__(self, kind: str, compact: bool, cpu: int, ts: int, file_offset: int,
                 d: dict):
        _event_fill(self, kind, compact, cpu, ts, file_offset, d, _flat(d), None)

    def _fields(self) -> dict:
        """The fields at the top: the line is parsed when first asked for
        (a loop that looks only at kind, cpu or ts never parses it)."""
        t = self._t
        if t is not None:
            d = _parse(t)
            _SET_D(self, d)
            _SET_F(self, d if self.kind in _FLAT_NAMES else _flat(d))
            _SET_T(self, None)
        return self._f

    def __getattr__(self, name: str) -> Any:
        if name[:1] == "_":  # no field is named so: Python probing for a protocol
            raise AttributeError(name)
        d = self._fields()
        if name == "record_kind":
            name = "kind"
        try:
            return d[name]
        except KeyError:
            raise AttributeError(f"a {self.kind} event has no field {name!r}") from None

    def __setattr__(self, name, value):
        raise AttributeError("etwforge events are immutable")

    def __delattr__(self, name):
        raise AttributeError("etwforge events are immutable")

    def get(self, name: str, default: Any = None) -> Any:
        """The field name, or default when the event has none."""
        return self._fields().get("kind" if name == "record_kind" else name, default)

    def as_dict(self) -> dict:
        """A copy of the event as `dump --jsonl` prints it."""
        self._fields()
        return dict(self._d)

    def __eq__(self, other):
        if not isinstance(other, Event):
            return False
        self._fields()
        other._fields()
        return self._d == other._d and self.kind == other.kind

    def __reduce__(self):
        self._fields()
        return (Event, (self.kind, self.compact, self.cpu, self.ts, self.file_offset, self._d))

    def __hash__(self):
        return hash((self.kind, self.file_offset, self.ts))

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._fields().items() if k != "kind")
        return f"Event({self.kind}{' compact' if self.compact else ''}, {fields})"


def _flat(d: dict) -> dict:
    """An identity record's fields with its payload's at the top (Event)."""
    for p in _PAYLOADS:
        if isinstance(d.get(p), dict):
            flat = {k: v for k, v in d.items() if k != p}
            for k in ("tid", "pid"):
                if k in flat:
                    flat["ctx_" + k] = flat.pop(k)
            flat.update(d[p])
            return flat
    return d


# Event's slots set directly (it refuses setattr): a call each, no loop
_SLOT_SET = tuple(getattr(Event, n).__set__
                  for n in ("kind", "compact", "cpu", "ts", "file_offset", "_d", "_f", "_t"))
_SET_D, _SET_F, _SET_T = _SLOT_SET[5:]


def _event_fill(ev, kind, compact, cpu, ts, file_offset, d, flat, text):
    """@ev's slots: its fields @d (@flat at the top), or its JSON line @text
    (bytes) to parse when a field is first asked for (@d, @flat None)."""
    s_kind, s_compact, s_cpu, s_ts, s_off, s_d, s_f, s_t = _SLOT_SET
    s_kind(ev, kind)
    s_compact(ev, compact)
    s_cpu(ev, cpu)
    s_ts(ev, ts)
    s_off(ev, file_offset)
    s_d(ev, d)
    s_f(ev, flat)
    s_t(ev, text)
    return ev


# the switch and spin-lock lines have no payload object: their fields are at the top
_FLAT_NAMES = frozenset(("cswitch", "spinlock"))
# json.loads() without its per-call checks: the library's lines are one valid object
_scan_once = json.JSONDecoder().scan_once


def _parse(text: bytes) -> dict:
    """One JSON line of the library (dump --jsonl's) as a dict."""
    try:
        return _scan_once(text.decode("utf-8", "surrogatepass"), 0)[0]
    except StopIteration:  # not expected: let json say what is wrong
        return json.loads(text)


SWITCH_COLUMNS = (("ts", "Q", ctypes.c_uint64), ("cpu", "I", ctypes.c_uint32),
                  ("old_tid", "I", ctypes.c_uint32), ("new_tid", "I", ctypes.c_uint32),
                  ("new_tid_known", "B", ctypes.c_uint8), ("old_pri", "b", ctypes.c_int8),
                  ("old_state", "B", ctypes.c_uint8), ("old_wait_reason", "B", ctypes.c_uint8),
                  ("wait_time", "I", ctypes.c_uint32), ("form", "B", ctypes.c_uint8),
                  ("file_offset", "Q", ctypes.c_uint64))
FORM_NAMES = ("idle_short", "idle", "lite", "full", "plain")


class Switches:
    """Switches as columns, each an array.array of one field, index i of
    every column the same switch: ts, cpu, old_tid, new_tid (0 where
    new_tid_known is 0: a CPU's last compact switch), new_tid_known,
    old_pri, old_state, old_wait_reason, wait_time, form (0 idle_short,
    1 idle, 2 lite, 3 full: compact forms; 4 a plain CSwitch; FORM_NAMES
    names them), file_offset. len() is the number of switches.
    """

    __slots__ = tuple(n for n, _, _ in SWITCH_COLUMNS) + ("damage",)

    def __init__(self):
        for n, code, _ in SWITCH_COLUMNS:
            setattr(self, n, array.array(code))
        self.damage: list = []

    def __len__(self) -> int:
        return len(self.ts)

    def columns(self) -> dict:
        """{name: array} of every column."""
        return {n: getattr(self, n) for n, _, _ in SWITCH_COLUMNS}


class _Cursor:
    """A library iterator of a File: freed once, by whoever comes first -
    its generator's end, File.close(), or the garbage collector."""

    __slots__ = ("file", "ptr", "__weakref__")

    def __init__(self, file: "File", ptr):
        self.file = file
        self.ptr = ptr

    def free(self) -> None:
        """Free the iterator; the file's lock must be held."""
        if self.ptr:
            _lib.iter_free(self.ptr)
            self.ptr = None

    def __del__(self):
        try:
            if self.ptr:
                self.file._release(self)
        except Exception:  # interpreter shutdown: the library may be gone
            pass


class File:
    """An open ETL file (open() returns it; a context manager).

    header: the logfile header as a dict (`dump --jsonl`'s first line:
      cpus, clock, perf_freq, start_time, start_ts, logger_name, ...).
    damage: the damaged places found, as ETLError objects (keep_going).
    Iterating the file gives its events (events()); records() gives what
    `dump --jsonl` lists; switches() the switches as columns.

    Threads: a File may be shared by threads. Every library call on it is
    made under the File's own lock, so iterators of one file in several
    threads take turns (one generator is still used by one thread at a
    time, as any Python generator). close() frees every iterator of the
    file: an iterator used after it raises ValueError, whichever thread
    holds it; nothing the file handed out (events, columns) depends on it.
    """

    def __init__(self, src: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview], *,
                 keep_going: bool = False, salvage: bool = False, name: Optional[str] = None):
        self._f = None
        self._lock = threading.RLock()
        self._cursors: "weakref.WeakSet[_Cursor]" = weakref.WeakSet()
        self._pending: list = []  # cursors to free, left by a thread that found the lock taken
        self.keep_going = keep_going
        self._buf = None
        flags = (_lib.OPEN_KEEP_GOING if keep_going else 0) | (
            _lib.OPEN_SALVAGE if salvage else 0)
        if not isinstance(src, (bytes, bytearray, memoryview)):
            path = _lib.cstr(src, "path")
            what = _not_regular(path) if path != b"-" else None
            if what == "stream":
                # a FIFO or a socket: read whole, as `dump -` reads standard input
                with builtins.open(path, "rb") as fh:
                    name, src = os.fsdecode(path), fh.read()
            elif what:
                raise ETLError(f"{os.fsdecode(path)}: not a regular file but {what}: an ETL "
                               "file is read from a file, or from its bytes "
                               "(etwforge.open(data))")
        with ErrorBox() as e:
            if isinstance(src, (bytes, bytearray, memoryview)):
                data = bytes(src)
                self._buf = ctypes.create_string_buffer(data, len(data))
                self._f = _lib.file_open_mem(self._buf, len(data),
                                             _lib.cstr(name or "<bytes>", "name"), flags, e.ptr)
            else:
                self._f = _lib.file_open(path, flags, e.ptr)
            if not self._f:
                e.raise_(-ctypes.get_errno() or -22, ETLError)
        n = _lib.file_json(self._f, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        _lib.file_json(self._f, buf, n + 1)
        self.header: dict = json.loads(buf.value)
        self.damage: list = [ETLError(_lib.file_damage_at(self._f, i).contents.msg.decode(
            "utf-8", "replace")) for i in range(_lib.file_damage_count(self._f))]

    @property
    def closed(self) -> bool:
        """True once close() has run."""
        return not self._f

    def _release(self, cur: _Cursor) -> None:
        """Free @cur now if the lock is free (or ours), else leave it to the
        next holder: a finalizer never waits for another thread."""
        if self._lock.acquire(blocking=False):
            try:
                cur.free()
                self._cursors.discard(cur)
                self._drain()
            finally:
                self._lock.release()
        else:
            self._pending.append(cur)  # list.append: atomic

    def _drain(self) -> None:
        """Free what finalizers left (the lock is held)."""
        while self._pending:
            cur = self._pending.pop()
            cur.free()
            self._cursors.discard(cur)

    def close(self) -> None:
        """Close the file and free its iterators (safe from any thread, also
        while another iterates: that iterator raises ValueError next)."""
        with self._lock:
            self._drain()
            for cur in list(self._cursors):
                cur.free()
            self._cursors.clear()
            if self._f:
                _lib.file_close(self._f)
                self._f = None

    def __enter__(self) -> "File":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        try:
            if getattr(self, "_f", None):
                self.close()
        except Exception:  # interpreter shutdown
            pass

    def _cursor(self, mask: int, order: str) -> _Cursor:
        if order not in _lib.ORDER:
            raise ValueError(f"etwforge: order {order!r} is not one of "
                             f"{', '.join(repr(o) for o in sorted(_lib.ORDER))}")
        with self._lock:
            self._drain()
            if not self._f:
                raise ValueError("etwforge: the file is closed")
            with ErrorBox() as e:
                it = _lib.iter_new(self._f, _lib.ORDER[order], mask, e.ptr)
                if not it:
                    e.raise_(-22, ETLError)
            cur = _Cursor(self, it)
            self._cursors.add(cur)
        return cur

    def _check_cursor(self, cur: _Cursor) -> None:
        """Under the lock: free what finalizers left; @cur must still be open."""
        self._drain()
        if not cur.ptr:
            raise ValueError("etwforge: the file was closed while iterating it")

    def _next_locked(self, cur: _Cursor, call):
        """@call() under the lock, on a cursor that must still be open."""
        with self._lock:
            self._check_cursor(cur)
            return call()

    def _walk(self, mask: int, order: str) -> Iterator[Event]:
        return self._events(self._cursor(mask, order))

    def _events(self, cur: _Cursor) -> Iterator[Event]:
        # per event: one lock, two library calls; its JSON line parsed when asked for
        ev = ctypes.POINTER(_lib.EventHead)()
        ev_ref = ctypes.byref(ev)
        cap = 8192
        buf = ctypes.create_string_buffer(cap)
        e = ErrorBox()
        iter_next, event_json = _lib.iter_next, _lib.event_json
        lock, new = self._lock, object.__new__
        kind_name = _KIND_NAME.get
        try:
            while True:
                with lock:
                    self._check_cursor(cur)
                    rc = iter_next(cur.ptr, ev_ref, e.ptr)
                    if rc > 0:
                        n = event_json(ev, 0, buf, cap)
                        if n >= cap:
                            cap = n + 1
                            buf = ctypes.create_string_buffer(cap)
                            event_json(ev, 0, buf, cap)
                        h = ev.contents
                        kind, cpu, ts, off, text = h.kind, h.cpu, h.ts, h.file_offset, buf.value
                    elif rc == 0:
                        cur.free()  # done: give the iterator back at once
                        return
                    else:
                        msg = e.message()
                if rc < 0:
                    err = ETLError(msg)
                    if not self.keep_going:
                        raise err
                    self.damage.append(err)
                    continue
                yield _event_fill(new(Event), kind_name(kind, "record"), kind == 0x08, cpu, ts,
                                  off, None, None, text)
        finally:
            e.__exit__()
            self._release(cur)

    def events(self, kinds: Optional[Iterable[str]] = None, order: str = "cpu") -> Iterator[Event]:
        """The events of the kinds named (default: switches with compact
        batches expanded, spin locks and every identity record: process,
        thread, thread_name, ready, sample, interval, config, rundown; also
        "record" and "buffer"), in order "cpu" (each CPU's buffers in
        sequence), "file" or "time" (switches, spin locks and ready events
        merged by time). Damage raises ETLError, or with keep_going is
        added to damage and skipped. A bad kind or order raises ValueError,
        and so does a closed file."""
        mask = 0
        if isinstance(kinds, str):
            kinds = [kinds]
        for k in (kinds or DEFAULT_KINDS):
            if k not in _KINDS_BY_NAME:
                raise ValueError(f"etwforge: no event kind {k!r} (one of "
                                 f"{', '.join(sorted(_KINDS_BY_NAME))})")
            mask |= _KINDS_BY_NAME[k]
        return self._walk(mask, order)

    def __iter__(self) -> Iterator[Event]:
        return self.events()

    def records(self) -> Iterator[Event]:
        """Every record, and the switches of each compact batch after it, in
        CPU order: the lines of `etwforge dump --jsonl` after the header."""
        return self._walk(0x02 | 0x08, "cpu")

    def switch_chunks(self, n: int = 65536, order: str = "cpu") -> Iterator[Switches]:
        """The file's switches, n at a time (n >= 1), as Switches columns
        (the C library fills them; Python never touches a switch)."""
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"etwforge: switch_chunks: n must be an int, not {n!r}")
        if n < 1:
            raise ValueError(f"etwforge: switch_chunks: n must be at least 1, not {n}")
        return self._chunks(self._cursor(0x04 | 0x08, order), n)

    def _chunks(self, cur: _Cursor, n: int) -> Iterator[Switches]:
        cols = _lib.SwitchColumns(sz=ctypes.sizeof(_lib.SwitchColumns))
        bufs = {}
        for name, _code, ctype in SWITCH_COLUMNS:
            bufs[name] = (ctype * n)()
            setattr(cols, name, ctypes.cast(bufs[name], ctypes.POINTER(ctype)))
        got = ctypes.c_size_t()
        e = ErrorBox()

        def step():
            rc = _lib.iter_switches(cur.ptr, ctypes.byref(cols), n, ctypes.byref(got), e.ptr)
            return rc, got.value, e.message() if rc < 0 else None

        try:
            while True:
                rc, k, msg = self._next_locked(cur, step)
                chunk = Switches()
                for name, _code, ctype in SWITCH_COLUMNS:
                    getattr(chunk, name).frombytes(
                        memoryview(bufs[name]).cast("B")[:k * ctypes.sizeof(ctype)])
                if rc < 0:
                    err = ETLError(msg)
                    if not self.keep_going:
                        raise err
                    chunk.damage.append(err)
                    self.damage.append(err)
                elif k == 0:
                    return
                if k or chunk.damage:
                    yield chunk
                if rc == 0 and k < n:
                    return
        finally:
            e.__exit__()
            self._release(cur)

    def schedule(self, *, window: Optional[tuple] = None, cpus: Optional[Iterable[int]] = None,
                 detail: str = "full", wakeups: bool = False, samples: bool = False,
                 symbols=None) -> "Schedule":
        """The library's reading of the file (who ran, who woke whom, where
        the CPU went, which image is where, which stacks were sampled) as
        tables: a Schedule. window=(from_ns, to_ns) counts only that span
        (ns since the session start), cpus only those CPUs; detail="counts"
        the counts and CPU times only (faster: no window, distribution or
        wake-up list); wakeups=True lists every wake-up, samples=True every
        sample; symbols=DIR names functions from a Breakpad symbol store
        (DIR/PDB/GUIDAGE/NAME.sym)."""
        from ._schedule import Schedule
        return Schedule(self, window=window, cpus=cpus, detail=detail, wakeups=wakeups,
                        samples=samples, symbols=symbols)

    def switches(self, order: str = "cpu") -> Switches:
        """Every switch of the file (plain and compact), as Switches columns."""
        out = Switches()
        for chunk in self.switch_chunks(order=order):
            for name, _code, _ in SWITCH_COLUMNS:
                getattr(out, name).extend(getattr(chunk, name))
            out.damage.extend(chunk.damage)
        return out


def _not_regular(path: bytes) -> Optional[str]:
    """What @path is when it is no regular file nor folder: "stream" (a
    FIFO, a socket), "a device"; else None (a missing path is the library's
    to say)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return None
    if stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode):
        return "stream"
    return "a device"



def open(src: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview], *,
         keep_going: bool = False, salvage: bool = False) -> File:
    """Open an ETL file: a path, or its bytes (kept in memory).

    keep_going: as `dump --keep-going`: a damaged file opens, damage is
    listed in File.damage and skipped. salvage: open a damaged file cut
    before its first damage. Raises ETLError "file: offset 0x...: what"
    (its offset attribute) when the file does not open.
    """
    return File(src, keep_going=keep_going, salvage=salvage)
