"""NumPy's array conversions that differ from `asarray` only in memory layout or input
checks: `asanyarray ascontiguousarray asfortranarray require asarray_chkfinite`. A traced
value has no memory layout (jit allocates its own buffers), so on traced values the layout
ones are `asarray`; `asarray_chkfinite` checks the values when they are concrete."""
from __future__ import annotations

import numpy as np

from ..core.trace import Tracer
from ..errors import ConcretizationError
from ._base import has_tracer
from ._creation import asarray, on_device
from ._elementwise import doc_example


# The docstring example of each factory-made function (doc_example): doctest source lines
# alternating with their expected output, checked by tests/test_docstrings.py.
EXAMPLES = {
    "asanyarray": ("fnp.asanyarray([1.0, 2.0])", "array([1., 2.])",
                   "fg.grad(lambda x: fnp.sum(fnp.asanyarray([x, x])))(1.0)", "array(2.)"),
    "ascontiguousarray": ("fnp.ascontiguousarray(np.ones((2, 3)).T).flags.c_contiguous", "True",
                          "fnp.ascontiguousarray(5.0)", "array([5.])"),
    "asfortranarray": ("fnp.asfortranarray(np.ones((2, 3))).flags.f_contiguous", "True",
                       "fg.grad(lambda x: fnp.sum(fnp.asfortranarray(x)))(np.ones(2))",
                       "array([1., 1.])"),
}


def _as_array(np_fn, min_ndim=0):
    def fn(a, dtype=None, **kwargs):
        if not has_tracer(a):
            try:
                return np_fn(a, dtype=dtype, **kwargs)
            except TypeError as e:
                return on_device(np_fn, a, e)(a, dtype=dtype, **kwargs)
        out = asarray(a, dtype=dtype)
        return out.reshape((1,)) if out.ndim < min_ndim else out
    fn.__name__ = fn.__qualname__ = np_fn.__name__
    fn.__doc__ = (f"`numpy.{np_fn.__name__}`; a traced value has no memory layout, so on one "
                  f"it is `fnp.asarray(a, dtype)`." + doc_example(EXAMPLES[np_fn.__name__]))
    return fn


asanyarray = _as_array(np.asanyarray)
ascontiguousarray = _as_array(np.ascontiguousarray, min_ndim=1)  # (NumPy: ndim >= 1)
asfortranarray = _as_array(np.asfortranarray, min_ndim=1)


def require(a, dtype=None, requirements=None):
    """`numpy.require`; the memory requirements ('C', 'F', 'A', 'W', 'O', 'E') concern NumPy
    buffers, so a traced value is `fnp.asarray(a, dtype)`.

    Example:
        >>> fnp.require([1, 2], float)
        array([1., 2.])
        >>> fnp.require(np.ones((2, 3)).T, requirements='C').flags.c_contiguous
        True
    """
    if not has_tracer(a):
        try:
            return np.require(a, dtype, requirements)
        except TypeError as e:
            return on_device(np.require, a, e)(a, dtype, requirements)
    return asarray(a, dtype=dtype)


def asarray_chkfinite(a, dtype=None, order=None):
    """`numpy.asarray_chkfinite`: `asarray`, raising ValueError if `a` holds an inf or NaN.
    Under `grad`/`jvp` the (concrete) primal values are checked; inside `jit`/`vmap` they are
    abstract, and a ConcretizationError names the run-time checks to use instead.

    Example:
        >>> fnp.asarray_chkfinite([1.0, 2.0])
        array([1., 2.])
        >>> fnp.asarray_chkfinite([1.0, np.nan])
        Traceback (most recent call last):
        ...
        ValueError: array must not contain infs or NaNs
        >>> fg.grad(lambda x: fnp.sum(fnp.asarray_chkfinite(x)))(np.ones(2))
        array([1., 1.])
    """
    if not has_tracer(a):
        try:
            return np.asarray_chkfinite(a, dtype, order)
        except TypeError as e:
            return on_device(np.asarray_chkfinite, a, e)(a, dtype, order)
    out = asarray(a, dtype=dtype)
    try:
        value = out.to_concrete("fnp.asarray_chkfinite(x)") if isinstance(out, Tracer) else out
    except ConcretizationError:
        raise ConcretizationError(
            "fnp.asarray_chkfinite(x) checks x's values, but inside fg.jit / fg.vmap they are "
            f"only known abstractly ({out.aval.str_short()}). Check at run time instead: "
            "fg.checkify.checkify(f, errors=fg.checkify.nan_checks), or "
            'fg.config.update("debug_nans", True)') from None
    if not np.isfinite(np.asarray(value)).all():
        raise ValueError("array must not contain infs or NaNs")
    return out
