"""Stand-in for cupyx.scipy (tests only; see cupy/__init__.py): special, linalg and signal
hold the names real cupyx.scipy has (cupy_api.json), computed by SciPy on the wrapped
arrays."""
import importlib
import sys

import cupy as _cupy


class _Subpackage:
    def __init__(self, sub):
        self._sub = sub
        self._names = set(_cupy._API["cupyx_scipy"][sub])

    def __getattr__(self, name):
        if name not in self._names:
            raise AttributeError(f"cupyx.scipy.{self._sub} (stand-in) has no attribute {name!r}")
        fn = getattr(importlib.import_module(f"scipy.{self._sub}"), name)

        def function(*args, **kwargs):
            return _cupy._wrap(fn(*_cupy._unwrap(args), **_cupy._unwrap_kwargs(kwargs)))
        return function


for _sub in ("special", "linalg", "signal"):
    globals()[_sub] = sys.modules[f"{__name__}.{_sub}"] = _Subpackage(_sub)
