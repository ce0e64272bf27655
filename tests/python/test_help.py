# SPDX-License-Identifier: MIT
"""help(etwforge) documents every public name; the package imports without a compiler."""
import inspect
import pydoc

import etwforge


def test_every_public_name_is_documented():
    text = pydoc.render_doc(etwforge, renderer=pydoc.plaintext)
    for name in etwforge.__all__:
        assert name in text, name
        obj = getattr(etwforge, name)
        if callable(obj):
            assert inspect.getdoc(obj), name
            if inspect.isclass(obj):
                for m, f in vars(obj).items():
                    if callable(f) and not m.startswith("_"):
                        assert inspect.getdoc(f), f"{name}.{m}"


def test_version():
    assert etwforge.version() == etwforge.__version__
