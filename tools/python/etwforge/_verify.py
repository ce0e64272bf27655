# SPDX-License-Identifier: MIT
"""verify() and corpus()."""
from __future__ import annotations

import ctypes
import json
import os
from dataclasses import dataclass
from typing import Optional

from . import _lib
from ._errors import ErrorBox, ETLError, ScenarioError, VerifyError
from ._run import PathLike


@dataclass(frozen=True)
class Verified:
    """What verify() checked: the truth's session the file was checked as,
    switches (plain + compact), plain, compact, batches, spinlocks and
    identity records."""
    session: str
    switches: int
    plain: int
    compact: int
    batches: int
    spinlocks: int
    identity: int


def verify(etl: PathLike, truth: PathLike, session: Optional[str] = None) -> Verified:
    """Check every recoverable field of every event of the ETL file against
    its truth stream (etwforge verify). session: the truth's session the
    file is (None: found by file name, or the only one, or LoggerName).

    Returns Verified. Raises VerifyError at the first mismatch ("file:
    offset 0x...: what (truth T:LINE)": its offset, truth_path and
    truth_line), ScenarioError for a bad truth stream or usage, ETLError
    for a file that cannot be read, NoSuchFileError for either file not
    being there.
    """
    r = _lib.VerifyResult(sz=ctypes.sizeof(_lib.VerifyResult))
    etl_b, truth_b = _lib.cstr(etl, "etl"), _lib.cstr(truth, "truth")
    session_b = None if session is None else _lib.cstr(session, "session", path=False)
    with ErrorBox() as e:
        rc = _lib.verify(etl_b, truth_b, session_b, ctypes.byref(r), e.ptr)
        if rc < 0:
            kind = _lib.error_kind(e.ptr)
            if rc == -74:  # EBADMSG: a mismatch
                e.raise_(rc, VerifyError)
            e.raise_(rc, ETLError if kind == _lib.ERROR_DATA else ScenarioError)
    return Verified(r.session.decode() if r.session else "", r.switches, r.plain, r.compact,
                    r.batches, r.spinlocks, r.identity)


def corpus(out_dir: PathLike, seed: int = 1, mangle: bool = False,
           zip_name: Optional[str] = None) -> list:
    """Write the fuzzing corpus into out_dir (etwforge corpus): one small ETL
    file per edge case (or, mangle=True, the broken-file set), each with its
    expected `dump --jsonl` and truth stream, MANIFEST.jsonl and etl.dict;
    zip_name also writes NAME_seed_corpus.zip and NAME.dict.

    seed: 1..2^63-1 (each truth stream carries it).

    Returns the manifest entries (a list of dicts: id, description, seed,
    xxh3, ...). Raises ScenarioError (bad options, a seed out of range) or
    Error (a write error).
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"etwforge: corpus: seed must be an int, not {seed!r}")
    if not 1 <= seed <= 2**63 - 1:
        raise ScenarioError(f"seed: {seed} is out of range 1..9223372036854775807 (2^63-1)")
    keep = _lib.cstr(zip_name, "zip_name", path=False) if zip_name else None
    out_b = _lib.cstr(out_dir, "out_dir")
    o = _lib.CorpusOpts(sz=ctypes.sizeof(_lib.CorpusOpts), seed=seed, mangle=mangle,
                        zip_name=keep)
    s = _lib.CorpusSummary(sz=ctypes.sizeof(_lib.CorpusSummary))
    with ErrorBox() as e:
        rc = _lib.corpus_write(out_b, ctypes.byref(o), ctypes.byref(s), e.ptr)
        if rc < 0:
            e.raise_(rc)
    with open(os.path.join(out_dir, "MANIFEST.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
