# SPDX-License-Identifier: MIT
"""fit(): the lookalike of a trace, a scenario generate() runs into a trace like it.

The same C code as `etwforge fit` (etwforge_fit_*): the machine, session,
processes, thread groups (run bursts, waits, spreads, wait reasons), images
and hot functions of a trace, as a scenario dict (fit()) or as the YAML
text with its comments naming what the scenario cannot say (fit_yaml()).
"""
from __future__ import annotations

import ctypes
import json
from ctypes import c_char_p, c_double, c_size_t, c_uint, c_void_p
from typing import Union

from . import _lib
from ._errors import ErrorBox, ETLError

P = c_void_p


class _Opts(ctypes.Structure):
    _fields_ = [("sz", c_size_t), ("anonymize", c_uint),
                ("progress", ctypes.CFUNCTYPE(None, c_void_p, c_double)),
                ("progress_ctx", c_void_p)]


_new = _lib._fn("etwforge_fit_new", P, P, ctypes.POINTER(_Opts), P)
_yaml = _lib._fn("etwforge_fit_yaml", c_char_p, P)
_json = _lib._fn("etwforge_fit_json", c_char_p, P)
_free = _lib._fn("etwforge_fit_free", None, P)

_MODES = {None: 0, False: 0, True: 1, "names": 1, "all": 2}


def _fit(src, anonymize, keep_going: bool, text) -> str:
    from ._read import File, open as open_file
    try:
        mode = _MODES[anonymize]
    except (KeyError, TypeError):
        raise ValueError(f"etwforge: anonymize={anonymize!r}: one of False, True, 'all'") \
            from None
    own = not isinstance(src, File)
    f = open_file(src, keep_going=keep_going) if own else src
    try:
        with f._lock:
            if not f._f:
                raise ValueError("etwforge: the file is closed")
            o = _Opts(ctypes.sizeof(_Opts), mode)
            with ErrorBox() as e:
                h = _new(f._f, ctypes.byref(o), e.ptr)
                if not h:
                    e.raise_(-ctypes.get_errno() or -22, ETLError)
            try:
                return text(h).decode("utf-8")
            finally:
                _free(h)
    finally:
        if own:
            f.close()


def fit(src: Union[str, bytes, "object"], *, anonymize: Union[bool, str] = False,
        keep_going: bool = False) -> dict:
    """The lookalike scenario of trace @src (a path, its bytes or an open File)
    as a dict, ready for generate(). anonymize=True renames processes, images
    and threads to pseudonyms (the names every Windows machine has kept) and
    drops command lines, paths, PDB identities and IDs; anonymize="all"
    renames those too."""
    return json.loads(_fit(src, anonymize, keep_going, _json))


def fit_yaml(src: Union[str, bytes, "object"], *, anonymize: Union[bool, str] = False,
             keep_going: bool = False) -> str:
    """The same scenario as `etwforge fit` writes it: YAML with comments."""
    return _fit(src, anonymize, keep_going, _yaml)
