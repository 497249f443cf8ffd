"""Array creation. Results are constants (plain arrays); `array`/`asarray` of traced values
(or of lists holding them) stay traced."""
from __future__ import annotations

import numpy as np

from ..backend import array_module
from ..core.trace import Tracer
from ..lax.elementwise import convert_element_type
import operator

from ._base import (SEQUENCES, cast, has_tracer as _has_tracer, is_traced, lift, result_type,
                    shape_of, traced_or_narrow)
from ._elementwise import doc_example


def array(object, dtype=None, copy=True, *, order="K", ndmin: int = 0):
    """`numpy.array`; nested lists may hold traced values. `ndmin` prepends length-1 axes;
    `order` (memory layout) applies to concrete arrays (a traced value has no layout).

    Example:
        >>> fnp.array([1, 2.5])
        array([1. , 2.5])
        >>> fnp.array([1, 2], ndmin=3).shape
        (1, 1, 2)
        >>> fg.grad(lambda x: fnp.sum(fnp.array([x, 2 * x])))(1.0)
        array(3.)
    """
    if not _has_tracer(object):
        kw = dict(dtype=dtype, copy=copy, order=order, ndmin=ndmin)
        try:
            return np.array(object, **kw)
        except TypeError as e:
            return on_device(np.array, object, e)(object, **kw)
    if isinstance(object, Tracer):
        out = object
    else:
        from ._shape import stack
        out = stack([array(o) for o in object])
    if dtype is not None:
        dtype = np.dtype(dtype)
        if isinstance(out, Tracer) and out.aval.weak_type:  # (an explicit dtype is strong,
            out = convert_element_type(out, dtype)          # as NumPy's 0-d array of it)
        else:
            out = cast(out, dtype)
    missing = ndmin - len(shape_of(out))
    return out.reshape((1,) * missing + shape_of(out)) if missing > 0 else out


def asarray(a, dtype=None, order=None, *, copy=None):
    """`numpy.asarray`; traced values pass through (cast if `dtype`). `order` and `copy`
    (NumPy 2's: True always copies, False never does) apply to concrete arrays; a traced
    value is immutable, so copying it changes nothing.

    Example:
        >>> fnp.asarray([1, 2], dtype=np.float32)
        array([1., 2.], dtype=float32)
        >>> x = np.ones(2)
        >>> fnp.asarray(x, copy=True) is x
        False
        >>> fg.grad(lambda x: fnp.sum(fnp.asarray([x, x * x])))(3.0)
        array(7.)
    """
    if not _has_tracer(a):
        kw = {} if order is None and copy is None else {"order": order, "copy": copy}
        try:
            return np.asarray(a, dtype=dtype, **kw)
        except TypeError as e:
            out = on_device(np.asarray, a, e)(a, dtype=dtype, order=order)
            return out.copy() if copy and out is a else out  # (CuPy's takes no copy=)
    return array(a, dtype=dtype)


def on_device(np_fn, obj, error):
    """CuPy's version of the array constructor `np_fn` (asarray, ...) that raised `error` on
    `obj`, if `obj` is a CuPy array or a list / tuple holding one (NumPy's constructors do not
    dispatch to CuPy, and CuPy forbids the implicit copy to the host); else `error` is raised.
    (Only the first element of each list level is looked at: an array's are on one device.)"""
    leaf = obj
    while type(leaf) in SEQUENCES and leaf:
        leaf = leaf[0]
    xp = array_module(leaf)
    if xp is np:
        raise error
    return getattr(xp, np_fn.__name__)


# The docstring example of each factory-made function (doc_example): doctest source lines
# alternating with their expected output, checked by tests/test_docstrings.py.
EXAMPLES = {
    "zeros_like": ("fnp.zeros_like(np.array([1.5, 2.0]))", "array([0., 0.])",
                   "fg.jit(fnp.zeros_like)(np.array([[1, 2]]))", "array([[0, 0]])"),
    "ones_like": ("fnp.ones_like(np.array([1.5, 2.0]))", "array([1., 1.])",
                  "fg.jit(fnp.ones_like)(np.array([[1, 2]]))", "array([[1, 1]])"),
}


def _like(fname, np_fn):
    def fn(a, dtype=None, shape=None):
        if not is_traced(a):
            return np_fn(a, dtype=dtype, shape=shape)
        xp = array_module(a)  # (a constant on `a`'s device where that is known)
        return getattr(xp, fname)(xp.empty(a.shape if shape is None else shape,
                                           a.dtype if dtype is None else dtype))
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = (f"`numpy.{fname}` (also for traced `a`: a constant)." +
                  doc_example(EXAMPLES[fname]))
    return fn


zeros_like = _like("zeros_like", np.zeros_like)
ones_like = _like("ones_like", np.ones_like)
empty_like = zeros_like


def full_like(a, fill_value, dtype=None, shape=None):
    """`numpy.full_like`.

    Example:
        >>> fnp.full_like(np.array([1, 2]), 7)
        array([7, 7])
        >>> fg.grad(lambda v: fnp.sum(fnp.full_like(np.zeros(3), v)))(2.0)
        array(3.)
    """
    if not is_traced(a) and not is_traced(fill_value):
        return np.full_like(a, fill_value, dtype=dtype, shape=shape)
    from ._shape import broadcast_to
    if not is_traced(a):  # (a list or a scalar: NumPy reads its shape and dtype)
        a = np.asarray(a)
    shp = a.shape if shape is None else shape
    dt = np.dtype(dtype) if dtype is not None else np.dtype(a.dtype)
    if is_traced(fill_value):
        return broadcast_to(cast(fill_value, dt), shp)
    # (np.full's own conversion: NaN into integers unsafely as NumPy, with its warning)
    xp = array_module(a, fill_value)
    return broadcast_to(xp.full(np.shape(fill_value), fill_value, dt), shp)


zeros, ones, empty, eye, identity = np.zeros, np.ones, np.zeros, np.eye, np.identity
arange, tri = np.arange, np.tri


def full(shape, fill_value, dtype=None):
    """`numpy.full`; a traced `fill_value` is broadcast.

    Example:
        >>> fnp.full((2, 3), 1.5)
        array([[1.5, 1.5, 1.5],
               [1.5, 1.5, 1.5]])
        >>> fg.grad(lambda v: fnp.sum(fnp.full((2, 3), v)))(1.5)
        array(6.)
    """
    if not is_traced(fill_value):
        try:
            return np.full(shape, fill_value, dtype=dtype)
        except TypeError as e:  # a CuPy fill_value
            return on_device(np.full, fill_value, e)(shape, fill_value, dtype=dtype)
    from ._shape import broadcast_to
    return broadcast_to(fill_value if dtype is None else cast(fill_value, np.dtype(dtype)),
                        shape)


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype=None, axis: int = 0):
    """`numpy.linspace`, differentiable in `start` and `stop` (arrays broadcast; `num` is a
    concrete int).

    Example:
        >>> fnp.linspace(0.0, 1.0, 5)
        array([0.  , 0.25, 0.5 , 0.75, 1.  ])
        >>> fg.grad(lambda b: fnp.sum(fnp.linspace(0.0, b, 5)))(1.0)
        array(2.5)
    """
    start, stop = lift(start), lift(stop)
    if not traced_or_narrow(start, stop):
        return np.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    from ._elementwise import add, divide, floor, multiply, subtract
    from ._shape import broadcast_to, concatenate, expand_dims, moveaxis
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"linspace: number of samples, {num}, must be non-negative")
    div = num - 1 if endpoint else num
    dt = result_type(start, stop, float(num))
    start, stop = cast(start, dt), cast(stop, dt)
    delta = subtract(stop, start)
    nd = len(shape_of(delta))
    t = np.arange(num, dtype=dt).reshape((-1,) + (1,) * nd)
    step = divide(delta, float(div)) if div > 0 else np.nan
    y = add(multiply(t, step if div > 0 else delta), start)
    if endpoint and num > 1:  # the last sample is exactly `stop`, as in NumPy
        last = expand_dims(broadcast_to(stop, shape_of(y)[1:]), 0)
        y = concatenate([y[:-1], last], axis=0)
    if axis != 0:
        y = moveaxis(y, 0, axis)
    if dtype is not None:
        if np.issubdtype(np.dtype(dtype), np.integer):
            y = floor(y)
        y = cast(y, np.dtype(dtype))
    return (y, step) if retstep else y


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None,
             axis: int = 0):
    """`numpy.logspace`: `base ** fnp.linspace(start, stop, ...)`, differentiable in `start`
    and `stop` (and a scalar `base`).

    Example:
        >>> fnp.logspace(0.0, 2.0, 3)
        array([  1.,  10., 100.])
        >>> fg.grad(lambda b: fnp.logspace(0.0, b, 3)[-1])(2.0)  # 100 ln(10)
        array(230.2585093)
    """
    start, stop, base = lift(start), lift(stop), lift(base)
    if not traced_or_narrow(start, stop, base):
        return np.logspace(start, stop, num, endpoint, base, dtype, axis)
    from ._elementwise import power
    if shape_of(base) != ():
        raise NotImplementedError("logspace: only a scalar base is supported on traced values")
    y = power(base, linspace(start, stop, num, endpoint, axis=axis))
    return y if dtype is None else cast(y, np.dtype(dtype))


def copy(a, order="K", subok=False):
    """`numpy.copy`; a traced value is returned as it is (traced values are immutable).

    Example:
        >>> fnp.copy(np.array([1.0, 2.0]))
        array([1., 2.])
        >>> fg.grad(lambda x: fnp.sum(fnp.copy(x)))(np.array([1.0, 2.0]))
        array([1., 1.])
    """
    a = lift(a)
    if is_traced(a):
        return a
    # (subok passed only when given: CuPy's copy has no such argument)
    return np.copy(a, order=order, subok=subok) if subok else np.copy(a, order=order)
