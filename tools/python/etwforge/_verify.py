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
    for a file that cannot be read.
    """
    r = _lib.VerifyResult(sz=ctypes.sizeof(_lib.VerifyResult))
    with ErrorBox() as e:
        rc = _lib.verify(os.fsencode(etl), os.fsencode(truth),
                         session.encode() if session is not None else None, ctypes.byref(r),
                         e.ptr)
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

    Returns the manifest entries (a list of dicts: id, description, seed,
    xxh3, ...). Raises ScenarioError (bad options) or Error (a write error).
    """
    keep = zip_name.encode() if zip_name else None
    o = _lib.CorpusOpts(sz=ctypes.sizeof(_lib.CorpusOpts), seed=seed, mangle=mangle,
                        zip_name=keep)
    s = _lib.CorpusSummary(sz=ctypes.sizeof(_lib.CorpusSummary))
    with ErrorBox() as e:
        rc = _lib.corpus_write(os.fsencode(out_dir), ctypes.byref(o), ctypes.byref(s), e.ptr)
        if rc < 0:
            e.raise_(rc)
    with open(os.path.join(out_dir, "MANIFEST.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
