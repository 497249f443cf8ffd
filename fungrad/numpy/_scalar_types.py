"""NumPy's scalar types (`fnp.float32`, `fnp.int64`, ...) that also convert traced values.

`fnp.int64(x)` on a traced `x` is `x.astype(np.int64)` (an array, as in JAX); on anything
else it is NumPy's own `np.int64(x)`. The types stay usable wherever NumPy takes a dtype
(`np.zeros(3, fnp.float32)`, `x.dtype == fnp.float32`, `np.issubdtype(fnp.int8, np.integer)`)
through their `dtype` attribute, and `isinstance(v, fnp.float64)` checks NumPy's type.
"""
from __future__ import annotations

import numpy as np

from ..backend import is_cupy
from ._base import cast, is_traced, lift
from ._elementwise import doc_example


class _ScalarMeta(type):
    def __call__(cls, x=0):
        x = lift(x)
        if is_traced(x):
            return cast(x, cls.dtype)
        try:
            return cls.scalar_type(x)
        except TypeError:  # a CuPy array (NumPy may not copy it to the host): one of the dtype
            if not is_cupy(x):
                raise
            return cast(x, cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.scalar_type)

    def __eq__(cls, other):
        return other is cls or other is cls.scalar_type or (
            isinstance(other, _ScalarMeta) and other.scalar_type is cls.scalar_type)

    def __hash__(cls):
        return hash(cls.scalar_type)

    def __repr__(cls):
        return f"<class 'fungrad.numpy.{cls.__name__}'>"


# The docstring example of each factory-made type (doc_example): doctest source lines
# alternating with their expected output, checked by tests/test_docstrings.py.
EXAMPLES = {
    "bool_": ("fnp.bool_(2)", "np.True_",
              "fg.jit(fnp.bool_)(np.array([0.0, 2.0]))", "array([False,  True])"),
    "complex64": ("fnp.complex64(1.5)", "np.complex64(1.5+0j)",
                  "fg.jit(fnp.complex64)(np.array([0.5, 2.0]))",
                  "array([0.5+0.j, 2. +0.j], dtype=complex64)"),
    "complex128": ("fnp.complex128(1.5)", "np.complex128(1.5+0j)",
                   "fg.jit(fnp.complex128)(np.array([0.5, 2.0]))", "array([0.5+0.j, 2. +0.j])"),
    "float16": ("fnp.float16(1.5)", "np.float16(1.5)",
                "fg.jit(fnp.float16)(np.array([0.5, 2.0]))", "array([0.5, 2. ], dtype=float16)",
                "fg.grad(lambda x: fnp.sum(fnp.float16(x)))(np.array([0.5, 2.0]))",
                "array([1., 1.])"),
    "float32": ("fnp.float32(1.5)", "np.float32(1.5)",
                "fg.jit(fnp.float32)(np.array([0.5, 2.0]))", "array([0.5, 2. ], dtype=float32)",
                "fg.grad(lambda x: fnp.sum(fnp.float32(x)))(np.array([0.5, 2.0]))",
                "array([1., 1.])"),
    "float64": ("fnp.float64(1.5)", "np.float64(1.5)",
                "fg.jit(fnp.float64)(np.array([0.5, 2.0], np.float32))", "array([0.5, 2. ])",
                "fg.grad(lambda x: fnp.sum(fnp.float64(x)))(np.array([0.5, 2.0], np.float32))",
                "array([1., 1.], dtype=float32)"),
    "int8": ("fnp.int8(-3)", "np.int8(-3)",
             "fg.jit(fnp.int8)(np.array([1.7, -2.5]))", "array([ 1, -2], dtype=int8)"),
    "int16": ("fnp.int16(-3)", "np.int16(-3)",
              "fg.jit(fnp.int16)(np.array([1.7, -2.5]))", "array([ 1, -2], dtype=int16)"),
    "int32": ("fnp.int32(-3)", "np.int32(-3)",
              "fg.jit(fnp.int32)(np.array([1.7, -2.5]))", "array([ 1, -2], dtype=int32)"),
    "int64": ("fnp.int64(-3)", "np.int64(-3)",
              "fg.jit(fnp.int64)(np.array([1.7, -2.5]))", "array([ 1, -2])"),
    "intp": ("fnp.intp(3) == np.intp(3)", "np.True_",
             "fg.jit(fnp.intp)(np.array([1.7, 2.5])).dtype == np.intp", "True"),
    "uint8": ("fnp.uint8(200)", "np.uint8(200)",
              "fg.jit(fnp.uint8)(np.array([1.7, 2.5]))", "array([1, 2], dtype=uint8)"),
    "uint16": ("fnp.uint16(200)", "np.uint16(200)",
               "fg.jit(fnp.uint16)(np.array([1.7, 2.5]))", "array([1, 2], dtype=uint16)"),
    "uint32": ("fnp.uint32(200)", "np.uint32(200)",
               "fg.jit(fnp.uint32)(np.array([1.7, 2.5]))", "array([1, 2], dtype=uint32)"),
    "uint64": ("fnp.uint64(200)", "np.uint64(200)",
               "fg.jit(fnp.uint64)(np.array([1.7, 2.5]))", "array([1, 2], dtype=uint64)"),
}


def _scalar_type(name: str):
    t = getattr(np, name)
    return _ScalarMeta(name, (), {"scalar_type": t, "dtype": np.dtype(t),
                                  "__doc__": f"`numpy.{name}`; on a traced value, "
                                             f"`x.astype(np.{name})`." +
                                             doc_example(EXAMPLES[name])})


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
