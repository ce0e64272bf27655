# SPDX-License-Identifier: MIT
"""etwforge - NT Kernel Logger ETL files from Python, over libetwforge.

Write ETL files from a simulated machine with their ground truth, build
edge-case streams by hand and encode them, read any ETL file (Windows' too)
as events or as columns of switches, and check a file against its truth:

    import etwforge
    summary = etwforge.generate({"duration": "50ms", "machine": {"cpus": 2}},
                                "t.etl", truth="t.jsonl", seed=7)
    with etwforge.open("t.etl") as f:
        for ev in f:                      # switches, spin locks, identity
            if ev.kind == "cswitch":
                print(ev.cpu, ev.ts, ev.old_tid, ev.new_tid)
        sw = f.switches()                 # columns: sw.ts, sw.new_tid, ...
    etwforge.verify("t.etl", "t.jsonl")

Public names:
  generate(scenario, out, truth, seed, set=, **overrides) -> Summary
  replay(stream, out, stream_paths=False) -> Summary
  Stream: a truth-stream builder (meta, cswitch, spinlock, process, thread,
    thread_name, ready, sample, interval, config, masks, rundown,
    ccswap_stop, end, line, write, text, lines, replay)
  open(path_or_bytes, keep_going=False, salvage=False) -> File
    File: header, damage, events(), records(), switches(),
    switch_chunks(), schedule(); Event; Switches; FORM_NAMES
  Schedule: File.schedule()'s tables (threads, processes, cpus, wakeups,
    totals): the numbers dump --stats prints and the pictures draw
  compare(a, b, keep_going=False) -> Comparison: two traces' traits side by
    side (sample spacing and skew, processes, threads, IDs, rundown, CPU
    use, wait reasons, wake-ups), a distance each and one score;
    traits(path) one trace's
  fit(path, anonymize=False, keep_going=False) -> dict: a scenario that
    generate() runs into a trace like the one at path (fit_yaml(): the
    YAML text `etwforge fit` writes, with its comments)
  verify(etl, truth, session=None) -> Verified
  corpus(out_dir, seed=1, mangle=False, zip_name=None) -> manifest entries
  Summary, SessionSummary, LockSummary, Verified: results (xxh3 values as
    the tool prints them: 16 hex digits)
  Error, ScenarioError, StreamError, ETLError, VerifyError: exceptions,
    str() the library's one line; NoSuchFileError (an Error and a
    FileNotFoundError) for a file to read that is not there, from every call
  RunWarning: what a run notes (warnings.warn), such as a stream whose
    switches do not chain
  version(): the library's version; __version__ the package's

Threads: a File may be shared by threads (each File has a lock, its
iterators take turns; close() from any thread ends them with ValueError).
Ctrl-C in the main thread stops generate() and replay() at once, leaving
every output as it was.

The library is libetwforge.so.1: installed beside this package by meson
install, or named by the environment variable ETWFORGE_LIB.
"""
from __future__ import annotations

from . import _lib
from ._compare import Comparison, compare, traits
from ._fit import fit, fit_yaml
from ._errors import (ETLError, Error, NoSuchFileError, RunWarning, ScenarioError, StreamError,
                      VerifyError)
from ._read import FORM_NAMES, Event, File, Switches, open
from ._schedule import Schedule, Table
from ._run import LockSummary, SessionSummary, Summary, generate, replay
from ._stream import Stream
from ._verify import Verified, corpus, verify

__version__ = "0.2.0"


def version() -> str:
    """The loaded libetwforge's version ("0.2.0")."""
    return _lib.version().decode()


__all__ = ["generate", "replay", "Stream", "open", "File", "Event", "Switches", "FORM_NAMES",
           "Schedule", "Table", "compare", "traits", "fit", "fit_yaml", "Comparison", "verify", "corpus", "Summary", "SessionSummary", "LockSummary",
           "Verified", "Error", "ScenarioError", "StreamError", "ETLError", "VerifyError",
           "NoSuchFileError", "RunWarning", "version", "__version__"]
