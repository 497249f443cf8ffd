"""Array creation. Results are constants (plain arrays); `array`/`asarray` of traced values
(or of lists holding them) stay traced."""
from __future__ import annotations

import numpy as np

from ..core.trace import Tracer
from ._base import cast, is_traced


def _has_tracer(obj):
    if isinstance(obj, Tracer):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_has_tracer(o) for o in obj)
    return False


def array(object, dtype=None, copy=True):
    """`numpy.array`; nested lists may hold traced values. Example: `fnp.array([x, 2 * x])`"""
    if not _has_tracer(object):
        return np.array(object, dtype=dtype, copy=copy)
    if isinstance(object, Tracer):
        out = object
    else:
        from ._shape import stack
        out = stack([array(o) for o in object])
    return out if dtype is None else cast(out, np.dtype(dtype))


def asarray(a, dtype=None):
    """`numpy.asarray`; traced values pass through (cast if `dtype`). Example: `fnp.asarray(x)`"""
    if not _has_tracer(a):
        return np.asarray(a, dtype=dtype)
    return array(a, dtype=dtype)


def _like(fname, np_fn):
    def fn(a, dtype=None, shape=None):
        if not is_traced(a):
            return np_fn(a, dtype=dtype, shape=shape)
        return np_fn(np.empty(a.shape if shape is None else shape,
                              a.dtype if dtype is None else dtype))
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"`numpy.{fname}` (also for traced `a`: a constant). Example: `fnp.{fname}(x)`"
    return fn


zeros_like = _like("zeros_like", np.zeros_like)
ones_like = _like("ones_like", np.ones_like)
empty_like = zeros_like


def full_like(a, fill_value, dtype=None, shape=None):
    """`numpy.full_like`. Example: `fnp.full_like(x, 2.0)`"""
    if not is_traced(a) and not is_traced(fill_value):
        return np.full_like(a, fill_value, dtype=dtype, shape=shape)
    from ._shape import broadcast_to
    shp = a.shape if shape is None else shape
    dt = np.dtype(dtype) if dtype is not None else np.dtype(a.dtype)
    return broadcast_to(cast(fill_value, dt) if is_traced(fill_value)
                        else np.asarray(fill_value, dt), shp)


zeros, ones, empty, eye, identity = np.zeros, np.ones, np.zeros, np.eye, np.identity
arange, linspace, logspace, tri = np.arange, np.linspace, np.logspace, np.tri


def full(shape, fill_value, dtype=None):
    """`numpy.full`; a traced `fill_value` is broadcast. Example: `fnp.full((2, 3), 1.5)`"""
    if not is_traced(fill_value):
        return np.full(shape, fill_value, dtype=dtype)
    from ._shape import broadcast_to
    return broadcast_to(fill_value if dtype is None else cast(fill_value, np.dtype(dtype)),
                        shape)
