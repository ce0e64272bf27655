# SPDX-License-Identifier: MIT
"""compare() and traits(): what a trace looks like, and how far two are apart.

The statistics `etwforge compare` sets side by side (how samples are spaced
and skewed, how many processes and threads a machine has and how their IDs
look, the rundown, how busy each CPU is, how threads leave and come back),
from the same C code (etwforge_traits_*), with a distance in [0, 1] per
trait and one score.
"""
from __future__ import annotations

import ctypes
import json
from ctypes import c_char_p, c_size_t, c_void_p
from typing import Optional, Union

from . import _lib
from ._errors import ErrorBox, ETLError

P = c_void_p
_new = _lib._fn("etwforge_traits_new", P, P, P)
_free = _lib._fn("etwforge_traits_free", None, P)
_json = _lib._fn("etwforge_traits_json", c_size_t, P, P, c_char_p, c_char_p, c_char_p, c_size_t)


class Comparison:
    """Two traces' traits side by side (compare()).

    a, b: the names of the two traces; score: the mean distance of the
    scored traits both show (0 alike, 1 as far apart as can be); compared:
    how many that was; traits: one dict per trait: name, what, unit, kind
    ("amount", "fraction", "signed", "dist_log2", "dist_linear", "mix"),
    scored, labels (a mix's categories), a and b ({"present", "value",
    "counts"}), distance (None when not both present). comparison["name"]
    is that trait's dict; table() the text `etwforge compare` prints.
    """

    def __init__(self, obj: dict):
        self.a = obj["a"]
        self.b = obj.get("b")
        self.score = obj.get("score", 0.0)
        self.compared = obj.get("compared", 0)
        self.traits = obj["traits"]
        self._by_name = {t["name"]: t for t in self.traits}

    def __getitem__(self, name: str) -> dict:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"etwforge: no trait {name!r} (traits: "
                           f"{', '.join(self._by_name)})") from None

    def table(self) -> str:
        """The traits as rows: name, A, B, distance."""
        def val(side: dict, t: dict) -> str:
            if not side["present"]:
                return "-"
            return f"{side['value']:.4g}{' ' + t['unit'] if t['unit'] else ''}"
        lines = [f"{'trait':24} {'A':>18} {'B':>18} {'distance':>9}"]
        for t in self.traits:
            d = t.get("distance")
            lines.append(f"{t['name']:24} {val(t['a'], t):>18} "
                         f"{val(t['b'], t) if 'b' in t else '':>18} "
                         f"{'-' if d is None else format(d, '.3f'):>9}")
        lines.append(f"score {self.score:.3f} over {self.compared} traits")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Comparison(score={self.score:.3f}, compared={self.compared})"


def _traits_of(src, keep_going: bool):
    """(the C traits of @src, its name): @src a path or an open File."""
    from ._read import File, open as open_file
    own = not isinstance(src, File)
    f = open_file(src, keep_going=keep_going) if own else src
    try:
        with f._lock:
            if not f._f:
                raise ValueError("etwforge: the file is closed")
            with ErrorBox() as e:
                t = _new(f._f, e.ptr)
                if not t:
                    e.raise_(-ctypes.get_errno() or -22, ETLError)
        return t, str(f.header.get("file", ""))
    finally:
        if own:
            f.close()


def _as_json(a, b, name_a: str, name_b: Optional[str]) -> dict:
    na, nb = name_a.encode(), (name_b or "").encode()
    n = _json(a, b, na, nb if b else None, None, 0)
    buf = ctypes.create_string_buffer(n + 1)
    _json(a, b, na, nb if b else None, buf, n + 1)
    return json.loads(buf.value.decode("utf-8"))


def traits(src: Union[str, bytes, "object"], *, keep_going: bool = False) -> Comparison:
    """One trace's traits (a path, its bytes, or an open File): a Comparison
    whose b side is missing (score 0, no distances)."""
    t, name = _traits_of(src, keep_going)
    try:
        return Comparison(_as_json(t, None, name, None))
    finally:
        _free(t)


def compare(a, b, *, keep_going: bool = False) -> Comparison:
    """The traits of trace a beside trace b (paths, bytes or open Files),
    a distance per trait and one score: what `etwforge compare a b` says."""
    ta, name_a = _traits_of(a, keep_going)
    try:
        tb, name_b = _traits_of(b, keep_going)
    except BaseException:
        _free(ta)
        raise
    try:
        return Comparison(_as_json(ta, tb, name_a, name_b))
    finally:
        _free(ta)
        _free(tb)
