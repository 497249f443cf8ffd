"""NumPy's scalar types (`fnp.float32`, `fnp.int64`, ...) that also convert traced values.

`fnp.int64(x)` on a traced `x` is `x.astype(np.int64)` (an array, as in JAX); on anything
else it is NumPy's own `np.int64(x)`. The types stay usable wherever NumPy takes a dtype
(`np.zeros(3, fnp.float32)`, `x.dtype == fnp.float32`, `np.issubdtype(fnp.int8, np.integer)`)
through their `dtype` attribute, and `isinstance(v, fnp.float64)` checks NumPy's type.
"""
from __future__ import annotations

import numpy as np

from ._base import cast, is_traced, lift


class _ScalarMeta(type):
    def __call__(cls, x=0):
        x = lift(x)
        if is_traced(x):
            return cast(x, cls.dtype)
        return cls.scalar_type(x)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.scalar_type)

    def __eq__(cls, other):
        return other is cls or other is cls.scalar_type or (
            isinstance(other, _ScalarMeta) and other.scalar_type is cls.scalar_type)

    def __hash__(cls):
        return hash(cls.scalar_type)

    def __repr__(cls):
        return f"<class 'fungrad.numpy.{cls.__name__}'>"


def _scalar_type(name: str):
    t = getattr(np, name)
    return _ScalarMeta(name, (), {"scalar_type": t, "dtype": np.dtype(t),
                                  "__doc__": f"`numpy.{name}`; on a traced value, "
                                             f"`x.astype(np.{name})`. Example: "
                                             f"`fnp.{name}(x)`"})


# One explicit name a type, so linters and go-to-definition see them.
bool_ = _scalar_type("bool_")
complex64 = _scalar_type("complex64")
complex128 = _scalar_type("complex128")
float16 = _scalar_type("float16")
float32 = _scalar_type("float32")
float64 = _scalar_type("float64")
int8 = _scalar_type("int8")
int16 = _scalar_type("int16")
int32 = _scalar_type("int32")
int64 = _scalar_type("int64")
intp = _scalar_type("intp")
uint8 = _scalar_type("uint8")
uint16 = _scalar_type("uint16")
uint32 = _scalar_type("uint32")
uint64 = _scalar_type("uint64")
