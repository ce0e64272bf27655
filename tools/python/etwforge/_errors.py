# SPDX-License-Identifier: MIT
"""The exceptions: each carries the library's one-line message."""
from __future__ import annotations

import errno as errno_mod
import os
import re
from typing import Optional

from . import _lib

_OFFSET = re.compile(r": offset (0x[0-9a-fA-F]+):")
_MISSING = re.compile(r"^(.*): cannot open: " + re.escape(os.strerror(errno_mod.ENOENT)) + "$")
_TRUTH_LINE = re.compile(r"\(truth (.*):(\d+)\)\s*$")
_STREAM_LINE = re.compile(r"^(.*?):(\d+): ")


class Error(Exception):
    """An etwforge failure: str(e) is the library's one line.

    Attributes: message (that line), errno (the positive errno), kind
    ("input": what the caller gave is wrong; "data": the data is bad, a
    check failed, or the system failed).
    """

    def __init__(self, message: str, errno: int = 0, kind: str = "data"):
        super().__init__(message)
        self.message = message
        self.errno = errno
        self.kind = kind


class ScenarioError(Error, ValueError):
    """A scenario, an override, a truth stream or an option is wrong.

    For a stream, line is the line number the message names (else None).
    """

    def __init__(self, message: str, errno: int = 22, kind: str = "input"):
        super().__init__(message, errno, kind)
        m = _STREAM_LINE.match(message)
        self.line: Optional[int] = int(m.group(2)) if m else None


class StreamError(ScenarioError):
    """A Stream builder call was given a bad field: field names it."""

    def __init__(self, message: str, field: Optional[str] = None):
        super().__init__(message)
        self.field = field


class ETLError(Error):
    """An ETL file does not open or is damaged: offset is where (or None)."""

    def __init__(self, message: str, errno: int = 22, kind: str = "data"):
        super().__init__(message, errno, kind)
        m = _OFFSET.search(message)
        self.offset: Optional[int] = int(m.group(1), 16) if m else None


class VerifyError(ETLError):
    """A file disagrees with its truth: offset in the file, truth_line the
    truth's line number (truth_path its file) the mismatch is about."""

    def __init__(self, message: str, errno: int = 74, kind: str = "data"):
        super().__init__(message, errno, kind)
        m = _TRUTH_LINE.search(message)
        self.truth_path: Optional[str] = m.group(1) if m else None
        self.truth_line: Optional[int] = int(m.group(2)) if m else None


class NoSuchFileError(Error, FileNotFoundError):
    """A file the call was to read is not there (a scenario, a stream, an
    ETL file, a truth): the same exception from every call, both an
    etwforge.Error and a FileNotFoundError. filename is the path."""

    def __init__(self, message: str, filename: Optional[str] = None):
        super().__init__(message, errno_mod.ENOENT, "input")
        self.errno = errno_mod.ENOENT
        self.strerror = os.strerror(errno_mod.ENOENT)
        self.filename = filename

    def __str__(self):
        return self.message


class RunWarning(UserWarning):
    """What a run says besides its result: a stream whose switches do not
    chain (written as given; verify will disagree), a value read as written
    that may not be what was meant (a bare number of nanoseconds), a session
    discarded. The warning's text is the tool's one line."""


def error_for(msg: str, code: int, kind: str, cls: type = None):
    """The exception for the library's message @msg: NoSuchFileError for a
    file that is not there, else @cls (default: ScenarioError for an
    "input" error, Error for the rest)."""
    m = _MISSING.match(msg)
    if m:
        return NoSuchFileError(msg, m.group(1))
    if cls is None or cls is Error:
        cls = ScenarioError if kind == "input" else Error
    return cls(msg, code, kind)


class ErrorBox:
    """An etwforge_error object for one call (a context manager)."""

    def __init__(self):
        self.ptr = _lib.error_new()
        if not self.ptr:
            raise MemoryError("etwforge: no memory for an error object")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _lib.error_free(self.ptr)
        self.ptr = None

    def message(self) -> str:
        """The error object's message."""
        return (_lib.error_message(self.ptr) or b"").decode("utf-8", "replace")

    def raise_(self, rc: int, cls: type = Error, fallback: str = "etwforge: failed"):
        msg = self.message() or fallback
        code = -(_lib.error_code(self.ptr) or rc)
        kind = "input" if _lib.error_kind(self.ptr) == _lib.ERROR_INPUT else "data"
        raise error_for(msg, code, kind, cls)
