# SPDX-License-Identifier: MIT
"""Loading libetwforge and declaring the C functions the package calls.

The library is found, in this order: the file named by the environment
variable ETWFORGE_LIB; the one installed with this package (meson install
records where it put the library relative to the package); a build tree
beside the source tree (build/libetwforge.so.1 when the package is run from
tools/python); the system's loader (libetwforge.so.1).
"""
from __future__ import annotations

import ctypes
import os
from ctypes import (POINTER, c_bool, c_char_p, c_double, c_int, c_int8, c_size_t, c_uint,
                    c_uint8, c_uint32, c_uint64, c_void_p)

SONAME = "libetwforge.so.1"


def _candidates() -> list[str]:
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    env = os.environ.get("ETWFORGE_LIB")
    if env:
        return [env]
    try:
        from . import _config  # written by meson install
        out.append(os.path.normpath(os.path.join(here, _config.LIBDIR_FROM_PACKAGE, SONAME)))
    except ImportError:
        pass
    top = os.path.normpath(os.path.join(here, "..", "..", ".."))
    if os.path.isfile(os.path.join(top, "meson.build")):
        out.append(os.path.join(top, "build", SONAME))
    out.append(SONAME)
    return out


def _load() -> ctypes.CDLL:
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path}: no such file")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(str(e))
    raise ImportError("etwforge: cannot load libetwforge (set ETWFORGE_LIB to its path): "
                      + "; ".join(tried))


lib = _load()

# ---- the structs the package reads or fills (their layout is the header's) ----


PROGRESS_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)


class RunOpts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("output", c_char_p), ("truth", c_char_p), ("json", c_char_p),
                ("progress", PROGRESS_FN), ("progress_ctx", c_void_p), ("progress_ms", c_uint),
                ("notes", c_void_p), ("truth_logged_spinlocks", c_bool),
                ("stream_paths", c_bool), ("stop", POINTER(c_int))]


class Totals(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("seed", c_uint64), ("duration_ns", c_uint64), ("cpus", c_uint),
                ("wall_seconds", c_double), ("switches", c_uint64),
                ("spinlock_releases", c_uint64), ("spinlock_events", c_uint64),
                ("batches", c_uint64), ("batch_records", c_uint64),
                ("batches_dropped", c_uint64), ("events_lost", c_uint64)]


class SessionSummary(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("file", c_char_p), ("events", c_uint64),
                ("events_lost", c_uint64), ("buffers", c_uint64), ("bytes", c_uint64),
                ("bytes_per_switch", c_double), ("xxh3", c_uint64), ("discarded", c_bool)]


class LockSummary(ctypes.Structure):
    _fields_ = [("name", c_char_p)] + [(n, c_uint64) for n in (
        "acquisitions", "contended", "spin_mean", "spin_p99", "hold_mean", "hold_p99",
        "logged_hold", "logged_contended", "logged_acquire_sample", "untracked", "guarded",
        "dropped")]


class VerifyResult(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("session", c_char_p)] + [(n, c_uint64) for n in (
        "switches", "plain", "compact", "batches", "spinlocks", "identity")]


class CorpusOpts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("seed", c_uint64), ("mangle", c_bool), ("zip_name", c_char_p)]


class CorpusSummary(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("files", c_uint), ("pending", c_uint), ("bytes", c_uint64),
                ("outputs", c_uint)]


class Damage(ctypes.Structure):
    _fields_ = [("buffer", c_uint), ("offset", c_uint64), ("msg", c_char_p)]


class EventHead(ctypes.Structure):
    """The first fields of struct etwforge_event (it grows at its end only)."""
    _fields_ = [("kind", c_int), ("cpu", c_uint), ("ts", c_uint64), ("file_offset", c_uint64)]


class SwitchColumns(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("ts", POINTER(c_uint64)), ("cpu", POINTER(c_uint32)),
                ("old_tid", POINTER(c_uint32)), ("new_tid", POINTER(c_uint32)),
                ("new_tid_known", POINTER(c_uint8)), ("old_pri", POINTER(c_int8)),
                ("old_state", POINTER(c_uint8)), ("old_wait_reason", POINTER(c_uint8)),
                ("wait_time", POINTER(c_uint32)), ("form", POINTER(c_uint8)),
                ("file_offset", POINTER(c_uint64))]


def cstr(value, what: str, path: bool = True) -> bytes:
    """@value as the bytes of a C string: a path (str, bytes or os.PathLike,
    in the file system's encoding) or, @path False, text (UTF-8). A NUL
    inside would end the string early: refused as Python's own open()
    refuses it, with a ValueError naming @what."""
    if isinstance(value, bytes):
        b = value
    elif isinstance(value, str):
        b = os.fsencode(value) if path else value.encode("utf-8")
    else:
        b = os.fsencode(value)
    if b"\0" in b:
        raise ValueError(f"etwforge: {what}: embedded null character in {value!r}")
    return b


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


P = c_void_p
version = _fn("etwforge_version", c_char_p)
error_new = _fn("etwforge_error_new", P)
error_free = _fn("etwforge_error_free", None, P)
error_message = _fn("etwforge_error_message", c_char_p, P)
error_code = _fn("etwforge_error_code", c_int, P)
error_kind = _fn("etwforge_error_kind", c_int, P)
scenario_new = _fn("etwforge_scenario_new", P)
scenario_free = _fn("etwforge_scenario_free", None, P)
scenario_load_file = _fn("etwforge_scenario_load_file", c_int, P, c_char_p, P)
scenario_load_string = _fn("etwforge_scenario_load_string", c_int, P, c_char_p, c_char_p, P)
scenario_set = _fn("etwforge_scenario_set", c_int, P, c_char_p, P)
scenario_finish = _fn("etwforge_scenario_finish", c_int, P, P)
summary_new = _fn("etwforge_summary_new", P)
summary_free = _fn("etwforge_summary_free", None, P)
summary_totals = _fn("etwforge_summary_totals", c_int, P, POINTER(Totals), P)
summary_batches = _fn("etwforge_summary_batches", c_int, P, c_uint, POINTER(c_uint64))
flush_reason_name = _fn("etwforge_flush_reason_name", c_char_p, c_uint)
summary_sessions = _fn("etwforge_summary_sessions", c_uint, P)
summary_session = _fn("etwforge_summary_session", POINTER(SessionSummary), P, c_uint)
summary_locks = _fn("etwforge_summary_locks", c_uint, P)
summary_lock = _fn("etwforge_summary_lock", POINTER(LockSummary), P, c_uint)
generate = _fn("etwforge_generate", c_int, P, POINTER(RunOpts), P, P)
replay = _fn("etwforge_replay", c_int, c_char_p, POINTER(RunOpts), P, P)
verify = _fn("etwforge_verify", c_int, c_char_p, c_char_p, c_char_p, POINTER(VerifyResult), P)
file_open = _fn("etwforge_file_open", P, c_char_p, c_uint, P)
file_open_mem = _fn("etwforge_file_open_mem", P, c_void_p, c_size_t, c_char_p, c_uint, P)
file_close = _fn("etwforge_file_close", None, P)
file_json = _fn("etwforge_file_json", c_size_t, P, c_char_p, c_size_t)
file_damage_count = _fn("etwforge_file_damage_count", c_uint, P)
file_damage_at = _fn("etwforge_file_damage_at", POINTER(Damage), P, c_uint)
iter_new = _fn("etwforge_iter_new", P, P, c_int, c_uint, P)
iter_next = _fn("etwforge_iter_next", c_int, P, POINTER(POINTER(EventHead)), P)
iter_free = _fn("etwforge_iter_free", None, P)
iter_switches = _fn("etwforge_iter_switches", c_int, P, POINTER(SwitchColumns), c_size_t,
                    POINTER(c_size_t), P)
event_json = _fn("etwforge_event_json", c_size_t, POINTER(EventHead), c_uint, c_char_p, c_size_t)
corpus_write = _fn("etwforge_corpus_write", c_int, c_char_p, POINTER(CorpusOpts),
                   POINTER(CorpusSummary), P)
scenario_warning = _fn("etwforge_scenario_warning", c_char_p, P, c_uint)

# Python's own: run the signal handlers now (from a C callback, in the main thread)
check_signals = ctypes.pythonapi.PyErr_CheckSignals
check_signals.restype = c_int
check_signals.argtypes = []

# the C library's stdio, for the notes of a run: a FILE * in memory (open_memstream)
_libc = ctypes.CDLL(None)
open_memstream = getattr(_libc, "open_memstream")
open_memstream.restype = c_void_p
open_memstream.argtypes = [POINTER(ctypes.c_void_p), POINTER(c_size_t)]
fclose = getattr(_libc, "fclose")
fclose.restype = c_int
fclose.argtypes = [c_void_p]
free = getattr(_libc, "free")
free.restype = None
free.argtypes = [c_void_p]

# enum etwforge_error_kind
ERROR_INPUT, ERROR_DATA = 1, 2
OPEN_SALVAGE, OPEN_KEEP_GOING = 0x1, 0x2
EV = {"buffer": 0x01, "record": 0x02, "cswitch": 0x04, "compact": 0x08, "spinlock": 0x10,
      "process": 0x20, "thread": 0x40, "thread_name": 0x80, "ready": 0x100, "sample": 0x200,
      "profile_interval": 0x400, "sysconfig_cpu": 0x800, "rundown": 0x1000}
ORDER = {"file": 0, "cpu": 1, "time": 2}
