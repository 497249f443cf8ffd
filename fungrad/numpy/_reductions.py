"""Reductions with NumPy's `axis` / `keepdims` / result dtypes."""
from __future__ import annotations

import builtins  # any/all below are NumPy's; Python's stay reachable
import functools
import math

import numpy as np

from ..backend import array_module, asarray as _asarray, is_cupy as _is_cupy
from ..core.dtypes import is_floating, is_inexact
from ..lax import reduce as R
from ..lax.shape import reshape
from ._base import (COMPOSE, broadcast_shapes, cast, dtype_of, is_traced, lift,
                    normalize_axis, numpy_or_compose, shape_of, single_axis)
from ._elementwise import (add, divide, doc_example, equal, imag, maximum, minimum, multiply,
                           not_equal, real, sqrt, subtract, where as _where)


@functools.lru_cache(maxsize=None)
def _sum_dtype(np_fn, dtype):
    return np_fn(np.ones((1,), dtype)).dtype


_F32 = np.dtype(np.float32)


def _keepdims(y, shape, axes):
    return reshape(y, tuple(1 if i in axes else d for i, d in enumerate(shape)))


_NoValue = np._NoValue  # NumPy's "not given" marker: passed through to NumPy unchanged
# arguments that eager_call leaves out when they hold their default
_DEFAULTS = {"out": None, "dtype": None, "initial": _NoValue, "where": True, "mean": _NoValue,
             "correction": _NoValue}


def eager_call(np_fn, a, *args, **kwargs):
    """`np_fn(a, *args, **kwargs)` on concrete values. For a CuPy or masked array only the
    keyword arguments that differ from their defaults are passed: CuPy's reductions lack some
    (`initial`, `where`; where one is needed this returns `COMPOSE`, see numpy_or_compose),
    and MaskedArray's methods lack `where`."""
    if type(a) is np.ndarray or not (_is_cupy(a) or isinstance(a, np.ma.MaskedArray)):
        return np_fn(a, *args, **kwargs)  # (NumPy takes them all: no filtering)
    given = {k: v for k, v in kwargs.items() if not (k in _DEFAULTS and v is _DEFAULTS[k])}
    return numpy_or_compose(np_fn, a, *args, **given)


def _no_initial_if_none(initial):
    """NumPy's reductions read `initial=None` as no initial value (not a NaN to combine)."""
    return _NoValue if initial is None else initial


def reject_out(name, out):
    """fnp functions return new arrays: NumPy's `out=` has no traced counterpart."""
    if out is not None:
        raise TypeError(f"{name}: out= is not supported on traced values (arrays are "
                        f"immutable); write `y = fnp.{name}(...)` instead")


def where_mask(name, where, shape):
    """NumPy's `where=` of a reduction as a bool array of `shape`, or None for `True` (no
    masking); a mask that does not broadcast to the operand's shape is NumPy's ValueError."""
    if where is True or where is _NoValue:
        return None
    from ._shape import broadcast_to
    wshape = np.shape(where) if not is_traced(where) else where.aval.shape
    if broadcast_shapes(name, ("where", wshape), ("a", shape)) != tuple(shape):
        raise ValueError(f"{name}: where= of shape {wshape} does not broadcast to the "
                         f"operand's shape {shape}")
    w = where if is_traced(where) else _asarray(where, np.bool_)
    if is_traced(w) and w.aval.dtype != np.bool_:
        w = not_equal(w, 0)
    return broadcast_to(w, shape)


def count_where(mask, shape, axes, keepdims):
    """How many elements each reduction over `axes` sees: `mask`'s count, or the static
    product of the reduced sizes when unmasked (None)."""
    if mask is None:
        n = 1
        for i in axes:
            n *= shape[i]
        return n
    return sum(mask, axis=axes, keepdims=keepdims, dtype=np.intp)


def _reduce(name, prim, a, axis, keepdims, dtype=None):
    """Bind reduction `prim` over `axis` of traced `a`, keeping dims if asked."""
    shape = a.aval.shape
    axes = normalize_axis(name, axis, len(shape))
    if dtype is not None:
        a = cast(a, dtype)
    y = prim.bind(a, axes=axes) if axes else a
    return _keepdims(y, shape, axes) if keepdims else y


# The docstring example of each factory-made reduction (doc_example): doctest source lines
# alternating with their expected output, checked by tests/test_docstrings.py.
EXAMPLES = {
    "sum": ("fnp.sum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0)", "array([4., 6.])",
            "fg.grad(lambda x: fnp.sum(x, where=x > 1.5))(np.array([1.0, 2.0, 3.0]))",
            "array([0., 1., 1.])"),
    "prod": ("fnp.prod(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1)", "array([ 2., 12.])",
             "fg.grad(fnp.prod)(np.array([2.0, 3.0, 4.0]))", "array([12.,  8.,  6.])"),
    "max": ("fnp.max(np.array([[1.0, 5.0], [3.0, 2.0]]), axis=0)", "array([3., 5.])",
            "fg.grad(fnp.max)(np.array([1.0, 3.0, 3.0]))  # ties share the gradient",
            "array([0. , 0.5, 0.5])"),
    "min": ("fnp.min(np.array([[1.0, 5.0], [3.0, 2.0]]), axis=1)", "array([1., 2.])",
            "fg.grad(fnp.min)(np.array([2.0, 1.0, 3.0]))", "array([0., 1., 0.])"),
    "argmax": ("fnp.argmax(np.array([[1.0, 5.0], [3.0, 2.0]]), axis=1)", "array([1, 0])",
               "fnp.argmax(np.array([1.0, 3.0, 3.0]))  # the first of ties", "np.int64(1)"),
    "argmin": ("fnp.argmin(np.array([[1.0, 5.0], [3.0, 2.0]]), axis=1)", "array([0, 1])",
               "fnp.argmin(np.array([[1.0, 5.0], [3.0, 2.0]]), axis=0, keepdims=True)",
               "array([[0, 1]])"),
    "any": ("fnp.any(np.array([[True, False], [False, False]]), axis=1)", "array([ True, False])",
            "fnp.any(np.array([0.0, 2.0]))", "np.True_"),
    "all": ("fnp.all(np.array([[1, 2], [0, 3]]), axis=1)", "array([ True, False])",
            "fnp.all(np.array([1.0, -1.0]) > 0, where=np.array([True, False]))", "np.True_"),
}


def _reduction(name, np_fn, prim, identity, combine):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
        a = lift(a)
        if not is_traced(a, initial, where):
            if type(a) is np.ndarray:  # (the common case without eager_call's frame: ~1 µs)
                return np_fn(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                             initial=initial, where=where)
            y = eager_call(np_fn, a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                           initial=initial, where=where)
            if y is not COMPOSE:
                return y
        reject_out(name, out)
        initial = _no_initial_if_none(initial)
        if not is_traced(a):  # only initial / where are traced
            a = _asarray(a)
        shape = np.shape(a) if not is_traced(a) else a.aval.shape
        in_dtype = a.dtype if not is_traced(a) else a.aval.dtype
        dt = np.dtype(dtype) if dtype is not None else _sum_dtype(np_fn, in_dtype)
        mask = where_mask(name, where, shape)
        a = cast(a, dt)
        if mask is not None:  # masked-out elements become the identity (no derivative)
            a = _where(mask, a, np.asarray(identity, dt))
        if not is_traced(a):
            a = _asarray(a)
            y = np_fn(a, axis=axis, keepdims=keepdims)
        elif prim is R.reduce_prod_p and not normalize_axis(name, axis, len(shape)):
            # NumPy's product over no axes is still 1 * x: a complex inf becomes inf+nanj
            y = prim.bind(reshape(a, (1,) + tuple(shape)), axes=(0,))
        else:
            y = _reduce(name, prim, a, axis, keepdims)
        if initial is not _NoValue:
            y = cast(combine(y, cast(initial, dt)), dt)
        return y
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`numpy.{name}` over `axis` (None, int or tuple), with `keepdims`, `dtype`, "
                  "`initial` and `where` (masked-out elements get no derivative)." +
                  doc_example(EXAMPLES[name]))
    return fn


sum = _reduction("sum", np.sum, R.reduce_sum_p, 0, lambda y, i: add(y, i))
prod = _reduction("prod", np.prod, R.reduce_prod_p, 1, lambda y, i: multiply(y, i))


def _extremum(name, np_fn, prim, combine):
    def fn(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
        a = lift(a)
        if not is_traced(a, initial, where):
            if type(a) is np.ndarray:  # (the common case without eager_call's frame)
                return np_fn(a, axis=axis, out=out, keepdims=keepdims, initial=initial,
                             where=where)
            y = eager_call(np_fn, a, axis=axis, out=out, keepdims=keepdims, initial=initial,
                           where=where)
            if y is not COMPOSE:
                return y
        reject_out(name, out)
        initial = _no_initial_if_none(initial)
        a = a if is_traced(a) else _asarray(a)
        shape = a.aval.shape if is_traced(a) else a.shape
        dt = a.aval.dtype if is_traced(a) else a.dtype
        axes = normalize_axis(name, axis, len(shape))
        mask = where_mask(name, where, shape)
        if initial is _NoValue:
            if mask is not None:
                raise ValueError(f"{name}: reduction operation '{_UFUNC[name]}' does not have "
                                 "an identity, so to use a where mask one has to specify "
                                 f"'initial' (e.g. fnp.{name}(x, where=m, initial=-fnp.inf))")
            if builtins.any(shape[i] == 0 for i in axes):
                raise ValueError(f"{name}: zero-size array (shape {shape}) to reduction "
                                 f"operation {_UFUNC[name]} which has no identity (axis "
                                 f"{axis}); pass initial=")
            return _reduce(name, prim, a, axes, keepdims)
        # a concrete initial becomes a value of the array's dtype first, as NumPy's reduce
        # casts it (initial=-5 on bools is True; kept a weak -5 it made min(False, -5) true)
        init = cast(initial, dt) if is_traced(initial) else np.asarray(initial, dt)
        if builtins.any(shape[i] == 0 for i in axes):  # only `initial` is left
            from ._shape import broadcast_to
            out_shape = _reduced_shape(shape, axes, keepdims)
            return broadcast_to(init if is_traced(init) else np.asarray(init, dt), out_shape)
        if mask is not None:
            # masked-out elements stand in as the identity (-inf for max), not `initial`: the
            # value is the same, but a stand-in equal to the extremum would be a tie that takes
            # a share of the tangent (JAX fills with the identity too)
            a = _where(mask, a, np.asarray(_identity(name, dt), dt))
        y = _reduce(name, prim, a, axes, keepdims) if is_traced(a) else \
            np_fn(a, axis=axes, keepdims=keepdims)
        return cast(combine(y, init), dt)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`numpy.{name}` over `axis`, with `keepdims`, `initial` and `where` (which "
                  "needs `initial`, as in NumPy); the gradient is shared equally among ties." +
                  doc_example(EXAMPLES[name]))
    return fn


_UFUNC = {"max": "maximum", "min": "minimum"}


def _identity(name, dt):
    """The identity of max / min on dtype `dt` (the lowest / highest value)."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return name == "min"
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return info.min if name == "max" else info.max
    return -np.inf if name == "max" else np.inf


def _reduced_shape(shape, axes, keepdims):
    return tuple(1 if i in axes else d for i, d in enumerate(shape)) if keepdims \
        else tuple(d for i, d in enumerate(shape) if i not in axes)


max = _extremum("max", np.max, R.reduce_max_p, lambda y, i: maximum(y, i))
min = _extremum("min", np.min, R.reduce_min_p, lambda y, i: minimum(y, i))
amax, amin = max, min


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """`numpy.mean`; integers average in float64; float16 and bfloat16 accumulate in
    float32 and return their own dtype (as NumPy does for float16: a float16 sum of 10000
    tens would overflow). `where=` averages the selected elements only (NaN where none is).

    Example:
        >>> fnp.mean(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0)
        array([2., 3.])
        >>> fg.grad(fnp.mean)(np.array([1.0, 2.0, 3.0, 4.0]))
        array([0.25, 0.25, 0.25, 0.25])
    """
    a = lift(a)
    if not is_traced(a, where):
        if type(a) is np.ndarray:  # (the common case without eager_call's frame)
            return np.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
        y = eager_call(np.mean, a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                       where=where)
        if y is not COMPOSE:
            return y
    reject_out("mean", out)
    a = a if is_traced(a) else _asarray(a)
    shape = a.aval.shape if is_traced(a) else a.shape
    axes = counted_axes("mean", axis, len(shape), where)
    dt, acc = _mean_dtypes(a, dtype)
    mask = where_mask("mean", where, shape)
    n = count_where(mask, shape, axes, keepdims)
    total = sum(a, axis=axes, dtype=acc, keepdims=keepdims, where=True if mask is None else mask)
    return cast(_divide_count(total, n, acc), dt)


def counted_axes(name, axis, ndim, where=True):
    """`normalize_axis`, raising NumPy's AxisError for an axis of a 0-d array where NumPy
    counts the elements along it (mean, var, median: `normalize_axis_index`), although its
    ufunc reductions (sum, max) take axis 0 or -1 there. With a `where=` mask NumPy counts
    with a sum, which takes them."""
    if ndim == 0 and where is True and axis is not None:
        for a in (axis if isinstance(axis, (tuple, list)) else (axis,)):
            if isinstance(a, (int, np.integer)):
                raise np.exceptions.AxisError(int(a), 0, name)
    return normalize_axis(name, axis, ndim)


def _divide_count(total, n, acc):
    """`total / n` in the accumulation dtype, as NumPy's mean and var divide
    (`true_divide(total, n, out=total, casting='unsafe')`): an integer (or bool) sum
    divides in float64 and truncates back to its dtype."""
    if not is_inexact(acc):
        return cast(divide(total, n), acc)
    if not isinstance(n, int):
        return divide(total, cast(n, acc))
    if n == 1 and acc.kind != "c":  # x / 1.0 == x exactly (a complex inf divides to inf+nanj)
        return total
    return divide(total, float(n))


def _mean_dtypes(a, dtype):
    """(result dtype, accumulation dtype) of mean/var: NumPy's result dtype; float16 and
    bfloat16 accumulate in float32 (NumPy does for float16's mean, JAX for both)."""
    in_dt = a.aval.dtype if is_traced(a) else _asarray(a).dtype
    dt = np.dtype(dtype) if dtype is not None else np.mean(np.ones((1,), in_dt)).dtype
    return dt, (_F32 if dtype is None and is_floating(dt) and dt.itemsize < 4 else dt)


def _ddof(name, ddof, correction):
    """NumPy 2's `correction=` is the Array API's name for `ddof`; one of them at most."""
    if correction is _NoValue:
        return ddof
    if ddof != 0:
        raise ValueError(f"{name}: ddof and correction can't be provided simultaneously "
                         "(they are the same; pass one)")
    return correction


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NoValue, correction=_NoValue):
    """`numpy.var` (population variance unless `ddof` / `correction`); float16 and bfloat16
    accumulate in float32, as in `mean`. `where=` selects the elements; `mean=` passes a
    precomputed mean (with keepdims=True shape) as in NumPy 2.

    Example:
        >>> x = np.array([1.0, 3.0])
        >>> fnp.var(x), fnp.var(x, ddof=1)
        (np.float64(1.0), np.float64(2.0))
        >>> fg.grad(fnp.var)(x)
        array([-1.,  1.])
    """
    a = lift(a)
    if not is_traced(a, where, mean):
        y = eager_call(np.var, a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                       keepdims=keepdims, where=where, mean=mean, correction=correction)
        if y is not COMPOSE:
            return y
    reject_out("var", out)
    ddof = _ddof("var", ddof, correction)
    a = a if is_traced(a) else _asarray(a)
    shape = a.aval.shape if is_traced(a) else a.shape
    axes = counted_axes("var", axis, len(shape), where)
    dt, acc = _mean_dtypes(a, dtype)
    mask = where_mask("var", where, shape)
    w = True if mask is None else mask
    # NumPy's order and dtypes (numpy/_core/_methods.py, _var): the mean is summed in `acc`
    # and divided back into it (an integer dtype truncates), the deviations take NumPy's
    # promotion of `a` and the mean, their squares are summed in `acc` again
    if mean is _NoValue:
        # (complex `a` with a real dtype: the mean drops the imaginary parts, ComplexWarning)
        real_a = real(a) if dtype_of(a).kind == "c" and np.dtype(acc).kind != "c" else a
        m = _divide_count(sum(real_a, axis=axes, dtype=acc, keepdims=True, where=w),
                          count_where(mask, shape, axes, True), acc)
    else:
        m = cast(mean, acc)
    d = subtract(a, m)  # (bool - bool is NumPy's TypeError, as np.var(x, dtype=bool) raises)
    # NumPy squares the deviations of real `a` (complex ones too, with a complex dtype) and
    # takes |d|**2 of complex (or bool) `a`: a real variance
    in_dt = dtype_of(a)
    sq = multiply(d, d) if is_floating(in_dt) or in_dt.kind in "iu" else _abs2(d)
    n = count_where(mask, shape, axes, keepdims)
    # NumPy clamps the degrees of freedom at 0 (0 / 0: NaN, as NumPy warns)
    dof = builtins.max(n - ddof, 0) if isinstance(n, int) else maximum(subtract(n, ddof), 0)
    v = _divide_count(sum(sq, axis=axes, dtype=acc, keepdims=keepdims, where=w), dof, acc)
    # without a dtype the variance of complex `a` is real
    return cast(v, np.finfo(dt).dtype if dtype is None and dt.kind == "c" else dt)


def _abs2(d):
    """|d|**2 elementwise, real (as NumPy's var: re**2 + im**2 for complex, smooth at 0)."""
    if dtype_of(d).kind != "c":  # (d may be concrete: integer values carry no tangent)
        return multiply(d, d)
    re, im = real(d), imag(d)
    return add(multiply(re, re), multiply(im, im))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NoValue, correction=_NoValue):
    """`numpy.std`: the square root of `var` (same keywords).

    Where the variance is 0 (a reduction over one element, or equal elements) the
    derivative is 0, as HIPS autograd gives for one element: std is a norm of `a - mean`
    there, and 0 is its finite one-sided choice (sqrt's infinite slope times var's zero
    slope would be NaN, and one batch of one would poison training).

    Example:
        >>> fnp.std(np.array([1.0, 3.0]))
        np.float64(1.0)
        >>> fg.grad(fnp.std)(np.array([1.0, 3.0]))
        array([-0.5,  0.5])
        >>> fg.grad(fnp.std)(np.array([2.0, 2.0]))  # 0 where the variance is 0
        array([0., 0.])
    """
    a = lift(a)
    if not is_traced(a, where, mean):
        y = eager_call(np.std, a, axis=axis, dtype=dtype, out=out, ddof=ddof,
                       keepdims=keepdims, where=where, mean=mean, correction=correction)
        if y is not COMPOSE:
            return y
    reject_out("std", out)
    v = var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims, where=where, mean=mean,
            correction=correction)
    if is_inexact(dtype_of(v)):
        return _sqrt_zero_slope_at_zero(v)
    # an integer (or bool) dtype: NumPy takes the sqrt of a scalar variance back into that
    # dtype (truncating) and refuses to write an array's float sqrt into it
    if shape_of(v):
        raise TypeError(f"std: Cannot cast ufunc 'sqrt' output from dtype("
                        f"'{dtype_of(sqrt(v))}') to dtype('{dtype_of(v)}') with casting rule "
                        "'same_kind' (NumPy's std with an integer dtype takes a full "
                        "reduction only; pass a float dtype)")
    return cast(sqrt(v), dtype_of(v))


def _sqrt_zero_slope_at_zero(v):
    """sqrt(v) with derivative 0 where v == 0: the `where` keeps the infinite slope of the
    sqrt branch out of the derivative (NaN stays NaN: NaN == 0 is False)."""
    zero = equal(v, 0.0)
    return _where(zero, 0.0, sqrt(_where(zero, 1.0, v)))


def _arg_extremum(name, np_fn, prim):
    def fn(a, axis=None, out=None, *, keepdims=False):
        a = lift(a)
        if not is_traced(a):
            return np_fn(a, axis=axis, out=out, keepdims=keepdims)
        reject_out(name, out)
        shape = a.aval.shape
        if axis is not None and not shape:  # a 0-d array's axis 0 (or -1) is all of it
            single_axis(name, axis, 1)
            axis = None
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
    fn.__doc__ = (f"`numpy.{name}`: integer indices (keepdims as in NumPy), no derivative." +
                  doc_example(EXAMPLES[name]))
    return fn


argmax = _arg_extremum("argmax", np.argmax, R.argmax_p)
argmin = _arg_extremum("argmin", np.argmin, R.argmin_p)


def _logical_reduction(name, np_fn, prim, empty_value):
    def fn(a, axis=None, out=None, keepdims=False, *, where=True):
        a = lift(a)
        if not is_traced(a, where):
            if type(a) is np.ndarray:  # (the common case without eager_call's frame)
                return np_fn(a, axis=axis, out=out, keepdims=keepdims, where=where)
            y = eager_call(np_fn, a, axis=axis, out=out, keepdims=keepdims, where=where)
            if y is not COMPOSE:
                return y
        reject_out(name, out)
        a = a if is_traced(a) else _asarray(a)
        shape = a.aval.shape if is_traced(a) else a.shape
        axes = normalize_axis(name, axis, len(shape))
        if builtins.any(shape[i] == 0 for i in axes):  # NumPy: any([]) is False, all([]) is True
            return array_module(a).full(_reduced_shape(shape, axes, keepdims), empty_value)
        is_bool = (a.aval.dtype if is_traced(a) else a.dtype) == np.bool_
        b = a if is_bool else not_equal(a, 0)
        mask = where_mask(name, where, shape)
        if mask is not None:  # masked-out elements are the identity: False for any, True for all
            b = _where(mask, b, np.asarray(empty_value))
        if not is_traced(b):  # under AD the comparison is a constant
            return np_fn(b, axis=axes, keepdims=keepdims)
        return _reduce(name, prim, b, axes, keepdims)  # max / min of bools = any / all
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`numpy.{name}` over `axis`, with `keepdims` and `where` (bool output, no "
                  "derivative)." + doc_example(EXAMPLES[name]))
    return fn


any = _logical_reduction("any", np.any, R.reduce_max_p, False)
all = _logical_reduction("all", np.all, R.reduce_min_p, True)


def _flat_or_axis(name, a, axis):
    """(array, axis) for NumPy's `axis=None` meaning "the flattened array" (and for a 0-d
    array, which scans as one element). `a` may be concrete: an integer cast drops tracing."""
    shape = shape_of(a)
    if axis is None or not shape:
        if axis is not None:
            single_axis(name, axis, 1)  # (0 or -1)
        return reshape(a, (math.prod(shape),)), 0
    return a, single_axis(name, axis, len(shape))


def cumsum(a, axis=None, dtype=None, out=None):
    """`numpy.cumsum` (flattened if `axis` is None); linear, so its gradient is a reversed
    cumsum.

    Example:
        >>> fnp.cumsum(np.array([1.0, 2.0, 3.0]))
        array([1., 3., 6.])
        >>> fg.grad(lambda x: fnp.cumsum(x)[1])(np.array([1.0, 2.0, 3.0]))
        array([1., 1., 0.])
    """
    a = lift(a)
    if not is_traced(a):
        return np.cumsum(a, axis=axis, dtype=dtype, out=out)
    reject_out("cumsum", out)
    dt = np.dtype(dtype) if dtype is not None else _sum_dtype(np.cumsum, a.aval.dtype)
    a, ax = _flat_or_axis("cumsum", cast(a, dt), axis)
    return R.cumsum(a, ax)


def cumprod(a, axis=None, dtype=None, out=None):
    """`numpy.cumprod` (NumPy's sequential products, so over/underflow lands where NumPy's
    does), differentiable also where `a` has zeros: the derivative is that of an
    `fg.lax.associative_scan` of products (log depth, no division).

    Example:
        >>> fnp.cumprod(np.array([1.0, 2.0, 3.0]))
        array([1., 2., 6.])
        >>> fg.grad(lambda x: fnp.cumprod(x)[-1])(np.array([2.0, 0.0, 3.0]))
        array([0., 6., 0.])
    """
    a = lift(a)
    if not is_traced(a):
        return np.cumprod(a, axis=axis, dtype=dtype, out=out)
    reject_out("cumprod", out)
    dt = np.dtype(dtype) if dtype is not None else _sum_dtype(np.cumprod, a.aval.dtype)
    a, ax = _flat_or_axis("cumprod", cast(a, dt), axis)
    return R.cumprod(a, ax)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """`numpy.trace`: the sum along a diagonal.

    Example:
        >>> x = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.trace(x)
        np.float64(5.0)
        >>> fg.grad(fnp.trace)(x)
        array([[1., 0.],
               [0., 1.]])
    """
    a = lift(a)
    if not is_traced(a):
        return np.trace(a, offset, axis1, axis2, dtype)
    from ._indexing import diagonal
    return sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
