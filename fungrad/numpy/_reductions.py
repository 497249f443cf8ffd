"""Reductions with NumPy's `axis` / `keepdims` / result dtypes."""
from __future__ import annotations

import builtins  # any/all below are NumPy's; Python's stay reachable
import functools

import numpy as np

from ..core.dtypes import is_floating
from ..lax import reduce as R
from ..lax.shape import reshape
from ._base import cast, is_traced, lift, normalize_axis
from ._elementwise import (add, divide, equal, imag, multiply, not_equal, real, sqrt, subtract,
                           where as _where)


@functools.lru_cache(maxsize=None)
def _sum_dtype(np_fn, dtype):
    return np_fn(np.ones((1,), dtype)).dtype


_F32 = np.dtype(np.float32)


def _keepdims(y, shape, axes):
    return reshape(y, tuple(1 if i in axes else d for i, d in enumerate(shape)))


def _reduce(name, prim, a, axis, keepdims, dtype=None):
    """Bind reduction `prim` over `axis` of traced `a`, keeping dims if asked."""
    shape = a.aval.shape
    axes = normalize_axis(name, axis, len(shape))
    if dtype is not None:
        a = cast(a, dtype)
    y = prim.bind(a, axes=axes) if axes else a
    return _keepdims(y, shape, axes) if keepdims else y


def _reduction(name, np_fn, prim):
    def fn(a, axis=None, dtype=None, keepdims=False):
        a = lift(a)
        if not is_traced(a):
            return np_fn(a, axis=axis, dtype=dtype, keepdims=keepdims)
        dt = np.dtype(dtype) if dtype is not None else _sum_dtype(np_fn, a.aval.dtype)
        return _reduce(name, prim, a, axis, keepdims, dt)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`numpy.{name}` over `axis` (None, int or tuple), with `keepdims`.\n\n"
                  f"    Example: `fnp.{name}(x, axis=1, keepdims=True)`")
    return fn


sum = _reduction("sum", np.sum, R.reduce_sum_p)
prod = _reduction("prod", np.prod, R.reduce_prod_p)


def _extremum(name, np_fn, prim):
    def fn(a, axis=None, keepdims=False):
        a = lift(a)
        if not is_traced(a):
            return np_fn(a, axis=axis, keepdims=keepdims)
        shape = a.aval.shape
        if builtins.any(shape[i] == 0 for i in normalize_axis(name, axis, len(shape))):
            raise ValueError(f"{name}: zero-size array (shape {shape}) has no {name} along "
                             f"axis {axis}")
        return _reduce(name, prim, a, axis, keepdims)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`numpy.{name}` over `axis`; the gradient is shared equally among ties.\n\n"
                  f"    Example: `fnp.{name}(x, axis=0)`")
    return fn


max = _extremum("max", np.max, R.reduce_max_p)
min = _extremum("min", np.min, R.reduce_min_p)
amax, amin = max, min


def _mean_dtypes(a, dtype):
    """(result dtype, accumulation dtype) of mean/var: NumPy's result dtype; float16 and
    bfloat16 accumulate in float32 (NumPy does for float16's mean, JAX for both)."""
    dt = np.dtype(dtype) if dtype is not None else np.mean(np.ones((1,), a.aval.dtype)).dtype
    return dt, (_F32 if dtype is None and is_floating(dt) and dt.itemsize < 4 else dt)


def mean(a, axis=None, dtype=None, keepdims=False):
    """`numpy.mean`; integers average in float64; float16 and bfloat16 accumulate in
    float32 and return their own dtype (as NumPy does for float16: a float16 sum of 10000
    tens would overflow).

    Example: `fnp.mean(x, axis=0)`
    """
    a = lift(a)
    if not is_traced(a):
        return np.mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    shape = a.aval.shape
    axes = normalize_axis("mean", axis, len(shape))
    dt, acc = _mean_dtypes(a, dtype)
    n = 1
    for i in axes:
        n *= shape[i]
    total = sum(cast(a, acc), axis=axes, keepdims=keepdims)
    out = total if n == 1 else divide(total, float(n))  # x / 1.0 == x exactly
    return cast(out, dt)


def var(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """`numpy.var` (population variance unless `ddof`); float16 and bfloat16 accumulate in
    float32, as in `mean`.

    Example: `fnp.var(x, axis=0, ddof=1)`
    """
    a = lift(a)
    if not is_traced(a):
        return np.var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    shape = a.aval.shape
    axes = normalize_axis("var", axis, len(shape))
    dt, acc = _mean_dtypes(a, dtype)
    a = cast(a, acc)
    d = subtract(a, mean(a, axis=axes, keepdims=True))
    n = 1
    for i in axes:
        n *= shape[i]
    v = divide(sum(_abs2(d), axis=axes, keepdims=keepdims), float(n - ddof))
    return cast(v, np.finfo(dt).dtype if dt.kind == "c" else dt)  # complex: a real variance


def _abs2(d):
    """|d|**2 elementwise, real (as NumPy's var: re**2 + im**2 for complex, smooth at 0)."""
    if d.aval.dtype.kind != "c":
        return multiply(d, d)
    re, im = real(d), imag(d)
    return add(multiply(re, re), multiply(im, im))


def std(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """`numpy.std`: the square root of `var`.

    Where the variance is 0 (a reduction over one element, or equal elements) the
    derivative is 0, as HIPS autograd gives for one element: std is a norm of `a - mean`
    there, and 0 is its finite one-sided choice (sqrt's infinite slope times var's zero
    slope would be NaN, and one batch of one would poison training).

    Example: `fnp.std(x, axis=0)`
    """
    a = lift(a)
    if not is_traced(a):
        return np.std(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    v = var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    return _sqrt_zero_slope_at_zero(v)


def _sqrt_zero_slope_at_zero(v):
    """sqrt(v) with derivative 0 where v == 0: the `where` keeps the infinite slope of the
    sqrt branch out of the derivative (NaN stays NaN: NaN == 0 is False)."""
    zero = equal(v, 0.0)
    return _where(zero, 0.0, sqrt(_where(zero, 1.0, v)))


def _arg_extremum(name, np_fn, prim):
    def fn(a, axis=None, keepdims=False):
        a = lift(a)
        if not is_traced(a):
            return np_fn(a, axis=axis, keepdims=keepdims)
        shape = a.aval.shape
        if axis is None:
            flat = reshape(a, (a.aval.size,))
            y = prim.bind(flat, axis=0, index_dtype=np.dtype(np.intp))
            return reshape(y, (1,) * len(shape)) if keepdims else y
        ax, = normalize_axis(name, axis, len(shape))
        if shape[ax] == 0:
            raise ValueError(f"{name}: attempt to get {name} of an empty sequence "
                             f"(shape {shape}, axis {axis})")
        y = prim.bind(a, axis=ax, index_dtype=np.dtype(np.intp))
        return _keepdims(y, shape, (ax,)) if keepdims else y
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"`numpy.{name}`: integer indices, no derivative.\n\n    Example: `fnp.{name}(x, axis=1)`"
    return fn


argmax = _arg_extremum("argmax", np.argmax, R.argmax_p)
argmin = _arg_extremum("argmin", np.argmin, R.argmin_p)


def _logical_reduction(name, np_fn, prim, empty_value):
    def fn(a, axis=None, keepdims=False):
        a = lift(a)
        if not is_traced(a):
            return np_fn(a, axis=axis, keepdims=keepdims)
        shape = a.aval.shape
        axes = normalize_axis(name, axis, len(shape))
        if builtins.any(shape[i] == 0 for i in axes):  # NumPy: any([]) is False, all([]) is True
            out_shape = tuple(1 if i in axes else d for i, d in enumerate(shape)) if keepdims \
                else tuple(d for i, d in enumerate(shape) if i not in axes)
            return np.full(out_shape, empty_value)
        b = a if a.aval.dtype == np.bool_ else not_equal(a, 0)
        if not is_traced(b):  # under AD the comparison is a constant
            return np_fn(b, axis=axis, keepdims=keepdims)
        return _reduce(name, prim, b, axes, keepdims)  # max / min of bools = any / all
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`numpy.{name}` over `axis`, with `keepdims` (bool output, no derivative).\n\n"
                  f"    Example: `fnp.{name}(x > 0, axis=1)`")
    return fn


any = _logical_reduction("any", np.any, R.reduce_max_p, False)
all = _logical_reduction("all", np.all, R.reduce_min_p, True)


def _flat_or_axis(name, a, axis):
    """(array, axis) for NumPy's `axis=None` meaning "the flattened array"."""
    if axis is None:
        return reshape(a, (a.aval.size,)), 0
    return a, normalize_axis(name, axis, a.aval.ndim)[0]


def cumsum(a, axis=None, dtype=None):
    """`numpy.cumsum` (flattened if `axis` is None); linear, so its gradient is a reversed
    cumsum.

    Example: `fnp.cumsum(x, axis=0)`
    """
    a = lift(a)
    if not is_traced(a):
        return np.cumsum(a, axis=axis, dtype=dtype)
    dt = np.dtype(dtype) if dtype is not None else _sum_dtype(np.cumsum, a.aval.dtype)
    a, ax = _flat_or_axis("cumsum", cast(a, dt), axis)
    return R.cumsum(a, ax)


def cumprod(a, axis=None, dtype=None):
    """`numpy.cumprod`, differentiable also where `a` has zeros: `fg.lax.associative_scan`
    of products (log depth, no division).

    Example: `fnp.cumprod(x, axis=0)`
    """
    a = lift(a)
    if not is_traced(a):
        return np.cumprod(a, axis=axis, dtype=dtype)
    from ..lax.associative import associative_scan
    dt = np.dtype(dtype) if dtype is not None else _sum_dtype(np.cumprod, a.aval.dtype)
    a, ax = _flat_or_axis("cumprod", cast(a, dt), axis)
    return associative_scan(multiply, a, axis=ax)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """`numpy.trace`: the sum along a diagonal.

    Example: `fnp.trace(x)`
    """
    a = lift(a)
    if not is_traced(a):
        return np.trace(a, offset, axis1, axis2, dtype)
    from ._indexing import diagonal
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
