"""NumPy's NaN-ignoring reductions (`nansum`, `nanmean`, `nanmax`, `nanquantile`, ...).

Each replaces NaN by the reduction's identity (or masks it out with `where=`), so NaN entries
get a zero derivative and the others the derivative of the plain reduction. On integer and
bool inputs (no NaN) they are the plain reductions.
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import is_inexact
from ._base import COMPOSE, cast, dtype_of, is_traced, lift, shape_of, single_axis
from ._elementwise import (doc_example, isnan, less_equal, logical_and, logical_not,
                           logical_or, subtract, where)
from ._reductions import (_NoValue, all as _all, argmax, argmin, cumprod, cumsum, eager_call,
                          max, mean, min, prod, reject_out, std, sum, var, where_mask)
from ._statistics import (_as_operand, empty_quantile, median_function, quantile_function,
                          quantile_operands, quantile_sorted)


def _has_nan(a) -> bool:
    return is_inexact(dtype_of(a))


def _filled(a, value):
    """`a` with NaN replaced by `value` (a constant: no derivative flows to NaN entries)."""
    if not _has_nan(a):
        return a
    return where(isnan(a), np.asarray(value, dtype_of(a)), a)


# The docstring example of each factory-made function (doc_example): doctest source lines
# alternating with their expected output, checked by tests/test_docstrings.py.
EXAMPLES = {
    "nansum": ("x = np.array([1.0, np.nan, 3.0])", "", "fnp.nansum(x)", "np.float64(4.0)",
               "fg.grad(fnp.nansum)(x)", "array([1., 0., 1.])"),
    "nanprod": ("x = np.array([1.0, np.nan, 3.0])", "", "fnp.nanprod(x)", "np.float64(3.0)",
                "fg.grad(fnp.nanprod)(x)", "array([3., 0., 1.])"),
    "nancumsum": ("x = np.array([1.0, np.nan, 3.0])", "",
                  "fnp.nancumsum(x)", "array([1., 1., 4.])",
                  "fg.grad(lambda x: fnp.nancumsum(x)[-1])(x)", "array([1., 0., 1.])"),
    "nancumprod": ("x = np.array([1.0, np.nan, 3.0])", "",
                   "fnp.nancumprod(x)", "array([1., 1., 3.])",
                   "fg.grad(lambda x: fnp.nancumprod(x)[-1])(x)", "array([3., 0., 1.])"),
    "nanmax": ("x = np.array([1.0, np.nan, 3.0])", "", "fnp.nanmax(x)", "np.float64(3.0)",
               "fg.grad(fnp.nanmax)(x)", "array([0., 0., 1.])"),
    "nanmin": ("x = np.array([1.0, np.nan, 3.0])", "", "fnp.nanmin(x)", "np.float64(1.0)",
               "fg.grad(fnp.nanmin)(x)", "array([1., 0., 0.])"),
    "nanargmax": ("x = np.array([1.0, np.nan, 3.0])", "", "fnp.nanargmax(x)", "np.int64(2)",
                  "fnp.nanargmax(np.array([[np.nan, 1.0], [2.0, 0.0]]), axis=1)", "array([1, 0])"),
    "nanargmin": ("x = np.array([1.0, np.nan, 3.0])", "", "fnp.nanargmin(x)", "np.int64(0)",
                  "fnp.nanargmin(np.array([[np.nan, 1.0], [2.0, 0.0]]), axis=1)", "array([1, 1])"),
    "nanvar": ("x = np.array([1.0, np.nan, 3.0])", "", "fnp.nanvar(x)", "np.float64(1.0)",
               "fg.grad(fnp.nanvar)(x)", "array([-1.,  0.,  1.])"),
    "nanstd": ("x = np.array([1.0, np.nan, 3.0])", "", "fnp.nanstd(x)", "np.float64(1.0)",
               "fg.grad(fnp.nanstd)(x)", "array([-0.5,  0. ,  0.5])"),
}


def _named(nanfn, name, identity):
    nanfn.__name__ = nanfn.__qualname__ = name
    nanfn.__doc__ = (f"`numpy.{name}`: NaN counts as {identity} (and gets no derivative)." +
                     doc_example(EXAMPLES[name]))
    return nanfn


def _nan_identity_reduction(name, np_fn, fn, identity):
    def nanfn(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue,
              where=True):
        a = lift(a)
        if not is_traced(a, initial, where):
            y = eager_call(np_fn, a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                           initial=initial, where=where)
            if y is not COMPOSE:
                return y
        reject_out(name, out)
        return fn(_filled(_as_operand(a), identity), axis=axis, dtype=dtype,
                  keepdims=keepdims, initial=initial, where=where)
    return _named(nanfn, name, identity)


nansum = _nan_identity_reduction("nansum", np.nansum, sum, 0)
nanprod = _nan_identity_reduction("nanprod", np.nanprod, prod, 1)


def _nan_cumulative(name, np_fn, fn, identity):
    def nanfn(a, axis=None, dtype=None, out=None):
        a = lift(a)
        if not is_traced(a):
            return np_fn(a, axis=axis, dtype=dtype, out=out)
        reject_out(name, out)
        return fn(_filled(a, identity), axis=axis, dtype=dtype)
    return _named(nanfn, name, identity)


nancumsum = _nan_cumulative("nancumsum", np.nancumsum, cumsum, 0)
nancumprod = _nan_cumulative("nancumprod", np.nancumprod, cumprod, 1)


def _nan_extremum(name, np_fn, fn, fill):
    def nanfn(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
        a = lift(a)
        if not is_traced(a, initial, where):
            y = eager_call(np_fn, a, axis=axis, out=out, keepdims=keepdims, initial=initial,
                           where=where)
            if y is not COMPOSE:
                return y
        reject_out(name, out)
        a = _as_operand(a)
        if not _has_nan(a):
            return fn(a, axis=axis, keepdims=keepdims, initial=initial, where=where)
        nan = isnan(a)
        mask = where_mask(name, where, shape_of(a))
        if mask is not None:  # masked-out elements are NaN-like: ignored
            if initial is _NoValue:
                return fn(a, axis=axis, keepdims=keepdims, where=where)  # NumPy's error
            nan = logical_or(nan, logical_not(mask))
        y = fn(_fill_where(nan, fill, a), axis=axis, keepdims=keepdims, initial=initial)
        if initial is not _NoValue:
            return y
        # an all-NaN slice is NaN (NumPy warns "All-NaN slice encountered")
        return _fill_where(_all(nan, axis=axis, keepdims=keepdims), np.nan, y)
    nanfn.__name__ = nanfn.__qualname__ = name
    nanfn.__doc__ = (f"`numpy.{name}`: ignoring NaN (NaN for all-NaN slices); the gradient "
                     "is shared among ties as in `max` / `min`." + doc_example(EXAMPLES[name]))
    return nanfn


def _fill_where(c, x, y):
    """`where` keeping `y`'s dtype for a Python-scalar `x` (NaN / inf fills)."""
    return where(c, np.asarray(x, dtype_of(y)), y)


nanmax = _nan_extremum("nanmax", np.nanmax, max, -np.inf)
nanmin = _nan_extremum("nanmin", np.nanmin, min, np.inf)


def _nan_arg_extremum(name, np_fn, fn, fill):
    def nanfn(a, axis=None, out=None, *, keepdims=False):
        a = lift(a)
        if not is_traced(a):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims)
        reject_out(name, out)
        if axis is not None and not shape_of(a):  # a 0-d array's axis 0 (or -1) is all of it
            single_axis(name, axis, 1)
            axis = None
        if not _has_nan(a):
            return fn(a, axis=axis, keepdims=keepdims)
        nan = isnan(a)
        if not is_traced(nan) and np.any(np.all(nan, axis=axis)):
            raise ValueError(f"{name}: All-NaN slice encountered (axis {axis}); under jit / "
                             "vmap such a slice gives -1")
        i = fn(_fill_where(nan, fill, a), axis=axis, keepdims=keepdims)
        return where(_all(nan, axis=axis, keepdims=keepdims), np.intp(-1), i)
    nanfn.__name__ = nanfn.__qualname__ = name
    nanfn.__doc__ = (f"`numpy.{name}`: the index ignoring NaN; no derivative. An all-NaN "
                     "slice is NumPy's ValueError on concrete values; traced (jit, vmap), where "
                     "no error can depend on the values, it gives -1, as JAX's "
                     f"`jnp.{name}` does (to fail on it there, `fg.checkify.check` it under "
                     "`fg.checkify.checkify`)." + doc_example(EXAMPLES[name]))
    return nanfn


nanargmax = _nan_arg_extremum("nanargmax", np.nanargmax, argmax, -np.inf)
nanargmin = _nan_arg_extremum("nanargmin", np.nanargmin, argmin, np.inf)


def _not_nan_mask(a, where):
    """`where=` of the non-NaN (and selected) elements."""
    keep = logical_not(isnan(a))
    if where is True:
        return keep
    return logical_and(keep, where)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """`numpy.nanmean`: the mean of the non-NaN elements (NaN where there are none).

    Example:
        >>> x = np.array([1.0, np.nan, 3.0])
        >>> fnp.nanmean(x)
        np.float64(2.0)
        >>> fg.grad(fnp.nanmean)(x)
        array([0.5, 0. , 0.5])
    """
    a = lift(a)
    if not is_traced(a, where):
        y = eager_call(np.nanmean, a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                       where=where)
        if y is not COMPOSE:
            return y
    reject_out("nanmean", out)
    a = _as_operand(a)
    _check_inexact_dtype("nanmean", a, dtype)
    if not _has_nan(a):
        return mean(a, axis=axis, dtype=dtype, keepdims=keepdims, where=where)
    # NaN becomes 0 before the masked mean, so its zero derivative stays finite
    return mean(_filled(a, 0), axis=axis, dtype=dtype, keepdims=keepdims,
                where=_not_nan_mask(a, where))


def _check_inexact_dtype(name, a, dtype):
    """NumPy's nan- means and moments refuse an integer `dtype` for inexact `a`."""
    if dtype is not None and is_inexact(dtype_of(a)) and not is_inexact(np.dtype(dtype)):
        raise TypeError(f"{name}: If a is inexact, then dtype must be inexact (a is "
                        f"{dtype_of(a)}, dtype={np.dtype(dtype)})")


def _nan_moment(name, np_fn, fn):
    def nanfn(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
              mean=_NoValue, correction=_NoValue):
        a = lift(a)
        if not is_traced(a, where, mean):
            y = eager_call(np_fn, a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                           keepdims=keepdims, where=where, mean=mean, correction=correction)
            if y is not COMPOSE:
                return y
        reject_out(name, out)
        a = _as_operand(a)
        _check_inexact_dtype(name, a, dtype)
        kw = dict(axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, mean=mean,
                  correction=correction)
        if not _has_nan(a):
            return fn(a, where=where, **kw)
        keep = _not_nan_mask(a, where)
        y = fn(_filled(a, 0), where=keep, **kw)
        # NumPy makes a slice without degrees of freedom NaN (where var's x / 0 is inf)
        dof = subtract(sum(keep, axis=axis, keepdims=keepdims, dtype=np.intp),
                       ddof if correction is _NoValue else correction)
        return _fill_where(less_equal(dof, 0), np.nan, y)
    nanfn.__name__ = nanfn.__qualname__ = name
    nanfn.__doc__ = (f"`numpy.{name}` of the non-NaN elements (same keywords as `{name[3:]}`)."
                     + doc_example(EXAMPLES[name]))
    return nanfn


nanvar = _nan_moment("nanvar", np.nanvar, var)
nanstd = _nan_moment("nanstd", np.nanstd, std)


def _nanquantile(name, np_fn, a, q, axis, method, keepdims, scale):
    from ._indexing import sort
    flat, keep_shape, q, out_dt = quantile_operands(name, np_fn, a, q, axis, method, scale)
    n = shape_of(flat)[-1]
    if 0 in shape_of(flat):  # an empty `a`: NumPy returns its nanmean (NaN where reduced)
        return empty_quantile(flat, keep_shape, keepdims, out_dt)
    s = sort(flat, axis=-1)  # NaN sorts last: the first n of each row are its valid values
    if _has_nan(a):
        n = sum(logical_not(isnan(flat)), axis=-1, dtype=np.intp)
    res = quantile_sorted(s, q, n, method, out_dt)
    if _has_nan(a):  # rows without valid values are NaN
        res = where(_all(isnan(flat), axis=-1), np.asarray(np.nan, out_dt), res)
    if keepdims:
        from ._shape import reshape
        res = reshape(res, shape_of(q) + keep_shape)
    return cast(res, out_dt)


nanquantile = quantile_function("nanquantile", np.nanquantile, _nanquantile, 1, """`numpy.nanquantile`.

    `quantile` of the non-NaN elements of each slice (NaN where a slice has none); NaN
    entries get no derivative.

    Example:
        >>> x = np.array([1.0, np.nan, 3.0])
        >>> fnp.nanquantile(x, 0.5)
        np.float64(2.0)
        >>> fg.grad(fnp.nanquantile)(x, 0.75)
        array([0.25, 0.  , 0.75])
    """, module=__name__)
nanpercentile = quantile_function("nanpercentile", np.nanpercentile, _nanquantile, 100,
                                  """`numpy.nanpercentile`: `nanquantile` of q / 100.

    Example:
        >>> x = np.array([1.0, np.nan, 3.0])
        >>> fnp.nanpercentile(x, [0, 50])
        array([1., 2.])
        >>> fg.grad(fnp.nanpercentile)(x, 75)
        array([0.25, 0.  , 0.75])
    """, module=__name__)


nanmedian = median_function("nanmedian", np.nanmedian, np.nanquantile, _nanquantile,
                            """`numpy.nanmedian`: the median of the non-NaN elements of each
    slice.

    Example:
        >>> x = np.array([1.0, np.nan, 3.0, 10.0])
        >>> fnp.nanmedian(x)
        np.float64(3.0)
        >>> fg.grad(fnp.nanmedian)(x)
        array([0., 0., 1., 0.])
    """, module=__name__)
