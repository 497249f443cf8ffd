"""Differences, cumulative sums, order statistics and moments: `diff`, `gradient`,
`cumulative_sum`, `partition`, `quantile` / `median`, `average`, `cov`, ...

Everything here composes fnp functions, so derivatives, vmap and jit come from theirs: order
statistics differentiate through `sort` (the gradient goes to the selected elements, split by
the interpolation weights), as in JAX.
"""
from __future__ import annotations

import builtins  # max/min/sum below are fnp's
import operator

import numpy as np

from ..backend import asarray, is_cupy, like, to_host
from ..core.dtypes import is_floating, is_inexact
from ._base import (cast, dtype_of, is_traced, lift, normalize_axis, shape_of, single_axis,
                    strict_axis, traced_or_narrow)
from ._elementwise import (add, ceil, conj, divide, equal, floor, greater_equal, isnan, less,
                           logical_and, maximum, multiply, not_equal, real, remainder,
                           round as _round, sqrt, subtract, where)
from ._elementwise import doc_example
from ._indexing import same_device
from ._reductions import _NoValue, counted_axes, max, min, mean, reject_out, sum
from ._shape import broadcast_to, concatenate, reshape, transpose


def _as_operand(a):
    """A traced value as is, anything else as a NumPy (or CuPy) array (so `.shape` /
    `.dtype` work through `shape_of` / `dtype_of`)."""
    a = lift(a)
    return a if is_traced(a) else asarray(a)


def _take(a, index, axis):
    """`a[..., index, ...]` with a Python int or slice at `axis`."""
    return a[(slice(None),) * axis + (index,)]


def _moved_shape(shape, axis, size):
    return tuple(size if i == axis else d for i, d in enumerate(shape))


# ----------------------------------------------------------------------------- differences
def diff(a, n: int = 1, axis: int = -1, prepend=_NoValue, append=_NoValue):
    """`numpy.diff`: the `n`-th discrete difference along `axis`, after joining `prepend` /
    `append` (scalars are broadcast); bool arrays use `!=` as NumPy does. Linear, so the
    gradient is the negated difference of the cotangent.

    Example:
        >>> fnp.diff(np.array([1.0, 4.0, 9.0, 16.0]))
        array([3., 5., 7.])
        >>> fnp.diff(np.array([1.0, 4.0, 9.0, 16.0]), n=2)
        array([2., 2.])
        >>> fg.grad(lambda x: fnp.diff(x)[0])(np.array([1.0, 4.0, 9.0]))
        array([-1.,  1.,  0.])
    """
    a = lift(a)
    if not is_traced(a, prepend, append):
        on = next((v for v in (a, prepend, append) if is_cupy(v)), None)
        if on is not None:  # (CuPy's diff takes device arrays, and no _NoValue)
            ends = {k: like(on, v) for k, v in (("prepend", prepend), ("append", append))
                    if v is not _NoValue}
            return np.diff(like(on, a), n, axis, **ends)
        return np.diff(a, n, axis, prepend, append)
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n!r}")
    a = _as_operand(a)
    if len(shape_of(a)) == 0:
        raise ValueError("diff requires input that is at least one dimensional (got a 0-d "
                         "array; use fnp.atleast_1d(x) first)")
    if n == 0:
        return a
    ax = single_axis("diff", axis, len(shape_of(a)))
    parts = []
    for extra in (prepend, a, append):
        if extra is _NoValue:
            continue
        extra = _as_operand(extra)
        if len(shape_of(extra)) == 0:
            extra = broadcast_to(extra, _moved_shape(shape_of(a), ax, 1))
        parts.append(extra)
    a = concatenate(parts, axis=ax) if len(parts) > 1 else a
    op = not_equal if dtype_of(a) == np.bool_ else subtract
    for _ in range(n):
        a = op(_take(a, slice(1, None), ax), _take(a, slice(None, -1), ax))
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """`numpy.ediff1d`: differences of the flattened array, with `to_begin` / `to_end`
    joined (cast to `ary`'s dtype, which they must match under the same_kind rule).

    Example:
        >>> fnp.ediff1d(np.array([1.0, 4.0, 9.0]), to_begin=0.0)
        array([0., 3., 5.])
        >>> fg.grad(lambda x: fnp.sum(fnp.ediff1d(x)))(np.array([1.0, 4.0, 9.0]))
        array([-1.,  0.,  1.])
    """
    ary = lift(ary)
    if not is_traced(ary, to_end, to_begin):
        if is_cupy(ary):  # (CuPy's ediff1d takes to_end and to_begin as CuPy arrays only)
            to_end, to_begin = (None if v is None else like(ary, v) for v in (to_end, to_begin))
        return np.ediff1d(ary, to_end, to_begin)
    ary = reshape(_as_operand(ary), (-1,))
    dt = dtype_of(ary)
    parts = []
    for name, extra in (("to_begin", to_begin), (None, None), ("to_end", to_end)):
        if name is None:
            parts.append(subtract(ary[1:], ary[:-1]))
            continue
        if extra is None:
            continue
        extra = _as_operand(extra)
        if not np.can_cast(dtype_of(extra), dt, casting="same_kind"):
            raise TypeError(f"ediff1d: dtype of `{name}` ({dtype_of(extra)}) must be "
                            f"compatible with input `ary` ({dt}) under the `same_kind` rule; "
                            f"cast it first")
        parts.append(reshape(cast(extra, dt), (-1,)))
    return concatenate(parts, axis=0) if len(parts) > 1 else parts[0]


def _gradient_spacings(name, varargs, shape, axes):
    """NumPy's spacing arguments as one entry per axis: a scalar step or a 1-D array of the
    steps between coordinates (uniform coordinates collapse to their scalar step)."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and len(shape_of(_as_operand(varargs[0]))) == 0:
        return [varargs[0]] * len(axes)
    if n != len(axes):
        raise TypeError(f"{name}: invalid number of arguments: {n} spacings for {len(axes)} "
                        "axes (give none, one scalar, or one per axis)")
    out = []
    for ax, dist in zip(axes, varargs):
        dist = _as_operand(dist)
        if len(shape_of(dist)) == 0:
            out.append(dist)
            continue
        if len(shape_of(dist)) != 1:
            raise ValueError(f"{name}: distances must be either scalars or 1d (got shape "
                             f"{shape_of(dist)} for axis {ax})")
        if shape_of(dist)[0] != shape[ax]:
            raise ValueError(f"{name}: when 1d, distances must match the length of the "
                             f"corresponding dimension ({shape_of(dist)[0]} != {shape[ax]})")
        if np.issubdtype(dtype_of(dist), np.integer):
            dist = cast(dist, np.float64)
        steps = subtract(dist[1:], dist[:-1])
        if not is_traced(steps) and np.all(steps == steps[0]):
            steps = steps[0]  # uniform: NumPy's scalar formulas (bit-identical results)
        out.append(steps)
    return out


def _gradient_along(f, ax, h, edge_order):
    """The derivative of `f` along `ax` by second-order central differences inside and
    one-sided differences of `edge_order` at both ends (NumPy's formulas)."""
    t = lambda i: _take(f, i, ax)  # noqa: E731
    uniform = len(shape_of(h)) == 0
    if uniform:
        inner = divide(subtract(t(slice(2, None)), t(slice(None, -2))), multiply(2.0, h))
    else:
        dx1, dx2 = h[:-1], h[1:]
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        along = lambda v: reshape(v, _moved_shape((1,) * len(shape_of(f)), ax, -1))  # noqa
        inner = add(add(multiply(along(a), t(slice(None, -2))),
                        multiply(along(b), t(slice(1, -1)))), multiply(along(c), t(slice(2, None))))
    first, last = _gradient_edges(t, h, uniform, edge_order)
    keep = lambda v: reshape(v, _moved_shape(shape_of(f), ax, 1))  # noqa: E731
    return concatenate([keep(first), inner, keep(last)], axis=ax)


def _gradient_edges(t, h, uniform, edge_order):
    if edge_order == 1:
        h0, hn = (h, h) if uniform else (h[0], h[-1])
        return (divide(subtract(t(1), t(0)), h0), divide(subtract(t(-1), t(-2)), hn))
    if uniform:
        a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
        a2, b2, c2 = 0.5 / h, -2.0 / h, 1.5 / h
    else:
        dx1, dx2 = h[0], h[1]
        a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = -dx1 / (dx2 * (dx1 + dx2))
        dx1, dx2 = h[-2], h[-1]
        a2 = dx2 / (dx1 * (dx1 + dx2))
        b2 = -(dx2 + dx1) / (dx1 * dx2)
        c2 = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
    first = add(add(multiply(a, t(0)), multiply(b, t(1))), multiply(c, t(2)))
    last = add(add(multiply(a2, t(-3)), multiply(b2, t(-2))), multiply(c2, t(-1)))
    return first, last


def gradient(f, *varargs, axis=None, edge_order: int = 1):
    """`numpy.gradient`: central differences inside, one-sided (`edge_order` 1 or 2) at the
    ends, with unit, scalar or coordinate-array spacing per axis. One array for one axis,
    else a tuple (as NumPy). Linear in `f`.

    Example:
        >>> fnp.gradient(np.array([1.0, 4.0, 9.0, 16.0]))
        array([3., 4., 6., 7.])
        >>> fnp.gradient(np.array([1.0, 4.0, 9.0, 16.0]), 2.0)
        array([1.5, 2. , 3. , 3.5])
        >>> fg.grad(lambda f: fnp.gradient(f)[0])(np.array([1.0, 4.0, 9.0]))
        array([-1.,  1.,  0.])
    """
    f = lift(f)
    if not traced_or_narrow(f, *varargs):
        return np.gradient(*same_device(f, *varargs), axis=axis, edge_order=edge_order)
    f = _as_operand(f)
    shape = shape_of(f)
    axes = tuple(range(len(shape))) if axis is None else _axes_in_order("gradient", axis, shape)
    spacings = _gradient_spacings("gradient", varargs, shape, axes)
    if edge_order > 2:
        raise ValueError("gradient: 'edge_order' greater than 2 not supported (use 1 or 2)")
    dt = dtype_of(f)
    if dt == np.bool_:  # (NumPy's differences subtract the values: bool - bool raises)
        raise TypeError("gradient: boolean f is not supported (NumPy's boolean subtract "
                        "raises); use f.astype(float)")
    if np.issubdtype(dt, np.integer):
        dt = np.dtype(np.float64)
        f = cast(f, dt)
    outs = []
    for ax, h in zip(axes, spacings):
        if shape[ax] < edge_order + 1:
            raise ValueError("gradient: Shape of array too small to calculate a numerical "
                             f"gradient, at least (edge_order + 1) = {edge_order + 1} elements "
                             f"are required along axis {ax} (shape {shape})")
        outs.append(cast(_gradient_along(f, ax, h, edge_order), dt))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _axes_in_order(fname, axis, shape) -> tuple:
    """`axis` (an int or a sequence) as non-negative ints in the order given, range and
    repeats checked before any wraps around (axis 3 of a 2-d array is an error, not 1)."""
    axes = tuple(single_axis(fname, a, len(shape))
                 for a in ((axis,) if np.ndim(axis) == 0 else axis))
    normalize_axis(fname, axes, len(shape))  # repeats
    return axes


# ----------------------------------------------------------------------------- cumulative
# The docstring example of each factory-made function (doc_example): doctest source lines
# alternating with their expected output, checked by tests/test_docstrings.py.
EXAMPLES = {
    "cumulative_sum": ("fnp.cumulative_sum(np.array([1.0, 2.0, 3.0]), include_initial=True)",
                       "array([0., 1., 3., 6.])",
                       "fg.grad(lambda x: fnp.cumulative_sum(x)[1])(np.array([1.0, 2.0, 3.0]))",
                       "array([1., 1., 0.])"),
    "cumulative_prod": ("fnp.cumulative_prod(np.array([2.0, 3.0, 4.0]), include_initial=True)",
                        "array([ 1.,  2.,  6., 24.])",
                        "fg.grad(lambda x: fnp.cumulative_prod(x)[-1])(np.array([2.0, 3.0, 4.0]))",
                        "array([12.,  8.,  6.])"),
}


def _cumulative(name, np_fn, fnp_fn, identity):
    def fn(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        x = lift(x)
        if not is_traced(x):
            return np_fn(x, axis=axis, dtype=dtype, out=out, include_initial=include_initial)
        reject_out(name, out)
        nd = len(shape_of(x))
        if axis is None:
            if nd > 1:
                raise ValueError(f"{name}: For arrays which have more than one dimension "
                                 "``axis`` argument is required.")
            axis = 0
        if nd == 0:
            x = reshape(x, (1,))
        ax = single_axis(name, axis, builtins.max(nd, 1))
        y = fnp_fn(x, axis=ax, dtype=dtype)
        if not include_initial:
            return y
        init = np.full(_moved_shape(shape_of(y), ax, 1), identity, dtype_of(y))
        return concatenate([init, y], axis=ax)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`numpy.{name}` (the Array API's cumulative reduction): `axis` is needed "
                  f"beyond 1-D; `include_initial` prepends the identity ({identity})." +
                  doc_example(EXAMPLES[name]))
    return fn


def _cumsum(x, axis, dtype):
    from ._reductions import cumsum
    return cumsum(x, axis=axis, dtype=dtype)


def _cumprod(x, axis, dtype):
    from ._reductions import cumprod
    return cumprod(x, axis=axis, dtype=dtype)


cumulative_sum = _cumulative("cumulative_sum", np.cumulative_sum, _cumsum, 0)
cumulative_prod = _cumulative("cumulative_prod", np.cumulative_prod, _cumprod, 1)


# ----------------------------------------------------------------------------- partition
def _check_kth(name, kth, n, kind="introselect", empty=False):
    if kind != "introselect":  # (NumPy has that one selection algorithm)
        raise ValueError(f"{name}: select kind must be 'introselect', got {kind!r}")
    if empty:  # (NumPy checks kth only when there is something to partition)
        return
    for k in np.ravel(kth):
        if not -n <= operator.index(k) < n:
            raise ValueError(f"{name}: kth(={int(k)}) out of bounds ({n})")


def _cupy_kth(name, a, kth, axis):
    """`kth` checked and made non-negative, for CuPy's (arg)partition (which takes no kind
    or order)."""
    n = a.size if axis is None else a.shape[axis]
    _check_kth(name, kth, n)
    return [int(k) % n for k in np.ravel(kth)]


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """`numpy.partition`: on traced values the fully sorted array (a valid partition for
    every `kth`; the gradient goes back to where each element came from).

    Example:
        >>> x = np.array([3.0, 1.0, 0.0, 2.0])
        >>> fnp.partition(x, 2)[2]  # the element that sorts to index 2
        np.float64(2.0)
        >>> fg.grad(lambda x: fnp.partition(x, 2)[2])(x)
        array([0., 0., 0., 1.])
    """
    from ._indexing import sort
    a = lift(a)
    if not is_traced(a):
        if is_cupy(a):
            return np.partition(a, _cupy_kth("partition", a, kth, axis), axis)
        return np.partition(a, kth, axis, kind, order)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    ax = strict_axis("partition", axis, len(shape_of(a)))  # (0-d: NumPy's AxisError)
    _check_kth("partition", kth, shape_of(a)[ax], kind, empty=0 in shape_of(a))
    return sort(a, axis=axis, order=order)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """`numpy.argpartition`: on traced values the sorting indices (valid for every `kth`);
    integer output, no derivative.

    Example:
        >>> x = np.array([3.0, 1.0, 0.0, 2.0])
        >>> fnp.argpartition(x, 2)[2]  # where the element that sorts to index 2 is
        np.int64(3)
    """
    from ._indexing import argsort
    a = lift(a)
    if not is_traced(a):
        if is_cupy(a):
            return np.argpartition(a, _cupy_kth("argpartition", a, kth, axis), axis)
        return np.argpartition(a, kth, axis, kind, order)
    if axis is None or not shape_of(a):  # (NumPy's argpartition reads 0-d as 1-d)
        a, axis = reshape(a, (-1,)), 0 if axis is None else axis
    ax = single_axis("argpartition", axis, len(shape_of(a)))
    _check_kth("argpartition", kth, shape_of(a)[ax], kind, empty=0 in shape_of(a))
    return argsort(a, axis=axis, order=order)


# ----------------------------------------------------------------------------- quantiles
# NumPy 2's methods: continuous ones by Hyndman & Fan's (alpha, beta); the others by name
_HF = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5), "weibull": (0.0, 0.0),
       "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}
QUANTILE_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                    "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
                    "normal_unbiased", "lower", "higher", "midpoint", "nearest")
# the medians' own method: the mean of the middle two values, as numpy.median computes it
# (finite for [1, 3, inf, inf], where the linear quantile's lerp gives inf - inf = nan)
MEDIAN = "median"


def _discrete_index(index, odd_only):
    """inverted_cdf / closest_observation: the order statistic just at or above `index`
    (closest_observation keeps an exact hit only at odd positions), clipped at 0."""
    prev = floor(index)
    hit = equal(subtract(index, prev), 0)
    if odd_only:
        hit = logical_and(hit, equal(remainder(prev, 2), 1))
    res = where(hit, prev, add(prev, 1))
    return where(less(res, 0), 0, res)


def _int_index(method, n, q):
    """The order statistic an integer-index method picks (as floats; None otherwise)."""
    if method == "lower":
        return floor(multiply(subtract(n, 1), q))
    if method == "higher":
        return ceil(multiply(subtract(n, 1), q))
    if method == "nearest":
        return _round(multiply(subtract(n, 1), q))
    if method == "inverted_cdf":
        return _discrete_index(subtract(multiply(n, q), 1), False)
    if method == "closest_observation":
        return _discrete_index(subtract(multiply(n, q), 1.5), True)
    return None


def _virtual_index(method, n, q):
    """NumPy's fractional position of quantile `q` among `n` sorted values."""
    nm1q = multiply(subtract(n, 1), q)
    if method == "linear":
        return nm1q
    if method == "midpoint":
        return multiply(0.5, add(floor(nm1q), ceil(nm1q)))
    if method == "averaged_inverted_cdf":
        return subtract(multiply(n, q), 1)
    alpha, beta = _HF[method]
    return subtract(add(multiply(n, q), add(alpha, multiply(q, 1 - alpha - beta))), 1)


def _fix_gamma(method, gamma, vi):
    if method == "midpoint":
        return where(equal(remainder(vi, 1), 0), 0.0, 0.5)
    if method == "averaged_inverted_cdf":
        return where(equal(gamma, 0), 0.5, 1.0)
    return gamma


def _neighbours(method, n, q):
    """(previous index, next index, interpolation weight or None) per NumPy's rules: out
    of range positions clamp to the first / last of the `n` valid values."""
    idx = _int_index(method, n, q)
    if idx is not None:
        return idx, idx, None
    vi = _virtual_index(method, n, q)
    last = subtract(n, 1)
    above, below = greater_equal(vi, last), less(vi, 0)
    prev = where(above, last, where(below, 0, floor(vi)))
    nxt = where(above, last, where(below, 0, add(prev, 1)))
    return prev, nxt, _fix_gamma(method, subtract(vi, prev), vi)


def _lerp(a, b, t):
    """NumPy's two-sided lerp (exact at t == 1)."""
    d = subtract(b, a)
    return where(greater_equal(t, 0.5), subtract(b, multiply(d, subtract(1, t))),
                 add(a, multiply(d, t)))


def _axes_last(name, a, axis):
    """`a` with the reduced axes flattened into one last axis, and the kept shape (with 1s
    for keepdims)."""
    shape = shape_of(a)
    axes = counted_axes(name, axis, len(shape))
    kept = [i for i in range(len(shape)) if i not in axes]
    moved = transpose(a, kept + list(axes)) if kept + list(axes) != list(range(len(shape))) else a
    n = 1
    for i in axes:
        n *= shape[i]
    flat = reshape(moved, tuple(shape[i] for i in kept) + (n,))
    keep_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    return flat, keep_shape


def _gather_last(s, idx):
    """s[..., idx] elementwise: `idx` (shape Q + B) picks along the last axis of `s`
    (shape B + (N,))."""
    from ._indexing import take_along_axis
    qn = len(shape_of(idx)) - (len(shape_of(s)) - 1)
    s = reshape(s, (1,) * qn + shape_of(s))
    idx = cast(idx, np.intp)
    return take_along_axis(s, reshape(idx, shape_of(idx) + (1,)), axis=-1)[..., 0]


def quantile_sorted(s, q, n, method, out_dtype):
    """Quantiles `q` (shape Q) of the first `n` values of each row of the sorted `s`
    (shape B + (N,); `n` an int or an int array of shape B): shape Q + B."""
    qs = shape_of(q)
    b = shape_of(s)[:-1]
    q = reshape(q, qs + (1,) * len(b)) if len(b) and len(qs) else q
    full = qs + b
    if method == MEDIAN:
        half = multiply(subtract(n, 1), 0.5)
        prev, nxt = (broadcast_to(maximum(f(half), 0), full) for f in (floor, ceil))
        s = cast(s, out_dtype)
        return cast(multiply(add(_gather_last(s, prev), _gather_last(s, nxt)), 0.5), out_dtype)
    prev, nxt, gamma = _neighbours(method, n, q)
    prev, nxt = broadcast_to(prev, full), broadcast_to(nxt, full)
    s = cast(s, out_dtype)
    lo = _gather_last(s, prev)
    if gamma is None:
        return lo
    return cast(_lerp(lo, _gather_last(s, nxt), cast(broadcast_to(gamma, full), out_dtype)),
                out_dtype)


def check_quantile_args(name, q, method, scale):
    if method not in QUANTILE_METHODS and method != MEDIAN:
        raise ValueError(f"{name}: {method!r} is not a valid method. Use one of: "
                         f"{', '.join(QUANTILE_METHODS)}")
    if not is_traced(q) and not np.all((0 <= to_host(q)) & (to_host(q) <= scale)):
        what = "Quantiles" if scale == 1 else "Percentiles"
        raise ValueError(f"{name}: {what} must be in the range [0, {scale}] (got q={q!r})")


def quantile_dtype(np_fn, a, q, method):
    """NumPy's result dtype, from NumPy itself on a 2-element stand-in (bfloat16 and the
    other ml_dtypes floats stand where NumPy puts float16)."""
    qt = dtype_of(q)
    q0 = np.zeros(shape_of(q), np.float16 if qt.kind == "V" and is_floating(qt) else qt) \
        if is_traced(q) or is_cupy(q) or qt.kind == "V" else q
    dt = dtype_of(a)
    narrow = dt.kind == "V" and is_floating(dt)
    stand_in = np.ones(2, np.float16 if narrow else dt)
    if method == MEDIAN:  # (np.median takes complex values, np.quantile refuses them)
        out = np.asarray(np.median(stand_in)).dtype
    else:
        out = np.asarray(np_fn(stand_in, q0, method=method)).dtype
    return dt if narrow and out == np.float16 else out


def quantile_operands(name, np_fn, a, q, axis, method, scale) -> tuple:
    """The quantile family's checked operands: (`a` with the reduced axes last and merged,
    the kept shape, `q` as fractions, NumPy's result dtype)."""
    check_quantile_args(name, q, method, scale)
    a = _as_operand(a)
    out_dt = quantile_dtype(np_fn, a, q, method)
    q = _as_operand(q)
    if scale != 1:
        q = divide(q, float(scale))
    flat, keep_shape = _axes_last(name, a, axis)
    return flat, keep_shape, q, out_dt


def _quantile(name, np_fn, a, q, axis, method, keepdims, scale):
    flat, keep_shape, q, out_dt = quantile_operands(name, np_fn, a, q, axis, method, scale)
    n = shape_of(flat)[-1]
    if n == 0:
        if method == MEDIAN:  # NumPy's median of nothing is the mean of nothing (it warns)
            return empty_quantile(flat, keep_shape, keepdims, out_dt)
        raise IndexError(f"{name}: index -1 is out of bounds for axis 0 with size 0 (the "
                         f"reduction of shape {shape_of(a)} over axis {axis} is empty; "
                         "NumPy's error)")
    from ._indexing import sort
    s = sort(flat, axis=-1)
    res = quantile_sorted(s, q, n, method, out_dt)
    if is_inexact(dtype_of(a)):  # NumPy: NaN in a row makes its quantiles NaN
        # (a constant NaN, as JAX's: no element's tangent passes through it; the NaN that
        # sorted last used to give the result its tangent)
        from ..lax.misc import stop_gradient
        last = stop_gradient(cast(s[..., -1], out_dt))
        res = where(isnan(last), last, res)
    if keepdims:
        res = reshape(res, shape_of(q) + keep_shape)
    return res


def empty_quantile(flat, keep_shape, keepdims, out_dt):
    """NumPy's (nan)median, and nanquantile, of an empty array: the nanmean of nothing, NaN
    (NaN+NaNj complex) of the reduced shape (NumPy leaves out `q`'s dimensions)."""
    shape = keep_shape if keepdims else shape_of(flat)[:-1]
    nan = complex(np.nan, np.nan) if np.dtype(out_dt).kind == "c" else np.nan
    return like(flat, np.full(shape, nan, out_dt))


def _no_weights(name, weights):
    if weights is not None:
        raise NotImplementedError(f"{name}: weights= is not supported on traced values for "
                                  "the nan- quantiles (fnp.quantile / fnp.percentile take "
                                  "them, with method='inverted_cdf'); compute it on concrete "
                                  "arrays with numpy")


def _weighted_quantile(name, np_fn, a, q, axis, method, keepdims, scale, weights):
    """NumPy's weighted quantile (method='inverted_cdf' only): in each row sorted by value,
    the first element whose share of the cumulative weight reaches q. Differentiable in `a`
    (a gather of the picked elements); the weights only choose."""
    if method != "inverted_cdf":
        raise ValueError(f"{name}: Only method 'inverted_cdf' supports weights. Got: {method}.")
    check_quantile_args(name, q, method, scale)
    a = _as_operand(a)
    out_dt = quantile_dtype(np_fn, a, q, method)
    w = _as_operand(weights)
    if not is_traced(w) and np.any(to_host(w) < 0):
        raise ValueError(f"{name}: Weights must be non-negative.")
    w = broadcast_to(_average_weights(a, w, axis), shape_of(a))
    q = _as_operand(q)
    if scale != 1:
        q = divide(q, float(scale))
    flat, keep_shape = _axes_last(name, a, axis)
    flat_w, _ = _axes_last(name, w, axis)
    n = shape_of(flat)[-1]
    if n == 0:
        raise IndexError(f"{name}: index -1 is out of bounds for axis 0 with size 0 (the "
                         f"reduction of shape {shape_of(a)} over axis {axis} is empty)")
    from ._indexing import argsort, take_along_axis
    from ._reductions import cumsum
    order = argsort(flat, axis=-1)
    s = take_along_axis(flat, order, axis=-1)
    cdf = cumsum(take_along_axis(flat_w, order, axis=-1), axis=-1, dtype=np.float64)
    cdf = divide(cdf, cdf[..., -1:])
    if not is_traced(flat_w):  # (a row's cdf ends at total / total: NaN for 0 or inf)
        with np.errstate(invalid="ignore", divide="ignore"):
            total = np.sum(to_host(flat_w), axis=-1, dtype=np.float64)
            if np.any(np.isnan(total / total)):
                raise ValueError(f"{name}: Weights included NaN, inf or were all zero.")
    if dtype_of(q).kind == "f":  # (NumPy compares in q's precision: 0.4 as float32 is not
        cdf = cast(cdf, dtype_of(q))  # float64's 0.4)
    # leading zero weights: their zero cdf must not be picked for q = 0
    cdf = where(equal(cdf, 0), -1, cdf)
    # searchsorted(cdf, q, 'left') per row: how many cdf entries lie below q
    qs, b = shape_of(q), shape_of(s)[:-1]
    q_rows = reshape(q, qs + (1,) * len(b) + (1,))
    below = sum(less(reshape(cdf, (1,) * len(qs) + shape_of(cdf)), q_rows), axis=-1)
    from ._elementwise import minimum
    res = _gather_last(cast(s, out_dt), minimum(below, n - 1))
    if is_inexact(dtype_of(a)):  # NaN in a row makes its quantiles NaN, as unweighted
        from ..lax.misc import stop_gradient
        last = stop_gradient(cast(s[..., -1], out_dt))
        res = where(isnan(last), last, res)
    if keepdims:
        res = reshape(res, qs + keep_shape)
    return res


def quantile_function(name: str, np_fn, impl, scale: int, doc: str, module: str = __name__):
    """A NumPy quantile-family function (`quantile`, `percentile`, the nan- ones): NumPy's
    own on plain arrays, else `impl(name, np_fn, a, q, axis, method, keepdims, scale)`
    (`scale`: 1 for fractions, 100 for percents). `module`: where the function is defined
    (what `__module__` says, so the reference finds it)."""
    def fn(a, q, axis=None, out=None, overwrite_input=False, method="linear",
           keepdims=False, *, weights=None):
        a = lift(a)
        # (CuPy arrays take `impl`, CuPy kernels all: CuPy's quantile has 5 of the methods,
        # takes q of at most 1 dim, and has no nan- versions)
        # (traced weights too: NumPy's function would hand them back here, endlessly)
        if not is_traced(a, q, weights) and not is_cupy(a):
            return np_fn(a, q, axis, out, overwrite_input, method, keepdims, weights=weights)
        reject_out(name, out)
        if weights is not None and impl is _quantile:
            return _weighted_quantile(name, np_fn, a, q, axis, method, keepdims, scale,
                                      weights)
        _no_weights(name, weights)
        return impl(name, np_fn, a, q, axis, method, keepdims, scale)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = module
    fn.__doc__ = doc
    return fn


quantile = quantile_function("quantile", np.quantile, _quantile, 1, """`numpy.quantile`.

    All 13 NumPy methods; differentiable in `a` (through the sort: the selected elements,
    weighted by the interpolation) and in `q` for the continuous methods. `q`'s shape comes
    first in the result. `weights=` (method='inverted_cdf' only, as NumPy) picks by the
    cumulative weight; the gradient goes to the picked elements.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 4.0])
        >>> fnp.quantile(x, [0.25, 0.5])
        array([1.75, 2.5 ])
        >>> fg.grad(fnp.quantile)(x, 0.25)
        array([0.25, 0.75, 0.  , 0.  ])
    """)
percentile = quantile_function("percentile", np.percentile, _quantile, 100,
                               """`numpy.percentile`: `quantile` of q / 100.

    Example:
        >>> x = np.array([1.0, 2.0, 3.0, 4.0])
        >>> fnp.percentile(x, [25, 50])
        array([1.75, 2.5 ])
        >>> fg.grad(fnp.percentile)(x, 50)
        array([0. , 0.5, 0.5, 0. ])
    """)


def median_function(name: str, np_fn, np_quantile, impl, doc: str, module: str = __name__):
    """A NumPy median (`median`, `nanmedian`): NumPy's own on plain arrays, else the
    quantile-family `impl` of `np_quantile` at q = 0.5 (see `quantile_function`)."""
    def fn(a, axis=None, out=None, overwrite_input=False, keepdims=False):
        a = lift(a)
        if not is_traced(a):
            return np_fn(a, axis=axis, out=out, overwrite_input=overwrite_input,
                         keepdims=keepdims)
        reject_out(name, out)
        if dtype_of(a) == np.bool_:  # (NumPy's median of bools is a float64 mean; its
            a = cast(a, np.float64)  # quantile refuses bools)
        return impl(name, np_quantile, a, 0.5, axis, MEDIAN, keepdims, 1)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = module
    fn.__doc__ = doc
    return fn


median = median_function("median", np.median, np.quantile, _quantile, """`numpy.median`: the middle
    element, or the mean of the two middle ones (their gradient is split in half); NaN where
    a row holds NaN.

    Example:
        >>> x = np.array([3.0, 1.0, 2.0, 10.0])
        >>> fnp.median(x)
        np.float64(2.5)
        >>> fg.grad(fnp.median)(x)
        array([0.5, 0. , 0.5, 0. ])
    """)


# ----------------------------------------------------------------------------- moments
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """`numpy.average`: the `weights`-weighted mean (1-D weights along one `axis`, or of
    `a`'s shape); `returned=True` also gives the sum of the weights.

    Example:
        >>> w = np.array([3.0, 1.0])
        >>> fnp.average(np.array([1.0, 3.0]), weights=w, returned=True)
        (np.float64(1.5), np.float64(4.0))
        >>> fg.grad(lambda x: fnp.average(x, weights=w))(np.array([1.0, 3.0]))
        array([0.75, 0.25])
    """
    a = lift(a)
    if not is_traced(a, weights):
        a, weights = same_device(a, weights)
        return np.average(a, axis=axis, weights=weights, returned=returned, keepdims=keepdims)
    a = _as_operand(a)
    shape = shape_of(a)
    if weights is None:
        avg = mean(a, axis=axis, keepdims=keepdims)
        n = 1
        for i in normalize_axis("average", axis, len(shape)):
            n *= shape[i]
        scl = np.full(shape_of(avg), n, dtype_of(avg))
    else:
        w = _as_operand(weights)
        dt = np.result_type(np.ones(1, dtype_of(a)), np.ones(1, dtype_of(w)), *(
            [np.float64] if dtype_of(a).kind in "biu" else []))
        w = _average_weights(a, w, axis)
        scl = sum(w, axis=axis, dtype=dt, keepdims=keepdims)
        if not is_traced(scl) and np.any(scl == 0.0):
            raise ZeroDivisionError("average: Weights sum to zero, can't be normalized")
        # (the products in the result dtype, as NumPy: uint8 * uint8 would wrap)
        avg = divide(sum(multiply(cast(a, dt), cast(w, dt)), axis=axis, keepdims=keepdims), scl)
    if not returned:
        return avg
    return avg, broadcast_to(cast(scl, dtype_of(avg)), shape_of(avg))


def _average_weights(a, w, axis):
    """Weights broadcast against `a`: equal shapes, or the shape of `a` along `axis`."""
    shape, wshape = shape_of(a), shape_of(w)
    if wshape == shape:
        return w
    if axis is None:
        raise TypeError(f"average: Axis must be specified when shapes of a {shape} and "
                        f"weights {wshape} differ.")
    axes = _axes_in_order("average", axis, shape)
    if wshape != tuple(shape[i] for i in axes):
        raise ValueError(f"average: Shape of weights {wshape} must be consistent with shape "
                         f"of a {shape} along specified axis {axis}.")
    w = transpose(w, tuple(int(i) for i in np.argsort(axes))) if len(axes) > 1 else w
    return reshape(w, tuple(d if i in axes else 1 for i, d in enumerate(shape)))


def ptp(a, axis=None, out=None, keepdims=False):
    """`numpy.ptp`: max - min along `axis` (the gradient is +1 at the max, -1 at the min).

    Example:
        >>> fnp.ptp(np.array([2.0, 5.0, 1.0]))
        np.float64(4.0)
        >>> fg.grad(fnp.ptp)(np.array([2.0, 5.0, 1.0]))
        array([ 0.,  1., -1.])
    """
    a = lift(a)
    if not is_traced(a):
        return np.ptp(a, axis=axis, out=out, keepdims=keepdims)
    reject_out("ptp", out)
    return subtract(max(a, axis=axis, keepdims=keepdims), min(a, axis=axis, keepdims=keepdims))


def count_nonzero(a, axis=None, *, keepdims=False):
    """`numpy.count_nonzero`: an intp count, no derivative.

    Example:
        >>> fnp.count_nonzero(np.array([[0, 1, 2], [0, 0, 3]]), axis=1)
        array([2, 1])
        >>> fnp.count_nonzero(np.array([0.0, 1.5]))
        np.int64(1)
    """
    a = lift(a)
    if not is_traced(a):
        if not is_cupy(a):
            return np.count_nonzero(a, axis=axis, keepdims=keepdims)
        if not keepdims:  # (CuPy's count_nonzero takes no keepdims: else fnp's below)
            return np.count_nonzero(a, axis=axis)
    b = a if dtype_of(a) == np.bool_ else not_equal(a, 0)
    return sum(b, axis=axis, keepdims=keepdims, dtype=np.intp)


def _cov_weights(fweights, aweights, n):
    """NumPy's checks of cov's frequency and reliability weights; their product (or None)."""
    w = None
    for name, v in (("fweights", fweights), ("aweights", aweights)):
        if v is None:
            continue
        v = _as_operand(v)
        v = cast(v, np.float64)
        if len(shape_of(v)) > 1:
            raise RuntimeError(f"cov: cannot handle multidimensional {name} (shape "
                               f"{shape_of(v)}; give one weight per observation)")
        if shape_of(v)[0] != n:
            raise RuntimeError(f"cov: incompatible numbers of samples ({n}) and {name} "
                               f"({shape_of(v)[0]})")
        if not is_traced(v):
            if name == "fweights" and not np.all(v == np.around(v)):
                raise TypeError("cov: fweights must be integer (frequencies)")
            if np.any(v < 0):
                raise ValueError(f"cov: {name} cannot be negative")
        w = v if w is None else multiply(w, v)
    return w


def _as_rows(x, rowvar, dtype):
    """cov's variables as the rows of a 2-D array of `dtype`."""
    x = cast(_as_operand(x), dtype)
    nd = len(shape_of(x))
    if nd > 2:
        raise ValueError(f"cov: m has more than 2 dimensions (shape {shape_of(x)})")
    if nd < 2:
        x = reshape(x, (1, -1) if nd == 1 else (1, 1))
    return transpose(x) if not rowvar and nd != 1 else x


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """`numpy.cov`: the covariance of the rows (columns if not `rowvar`) of `m` (and `y`),
    with `bias` / `ddof` and frequency / reliability weights.

    Example:
        >>> x = np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
        >>> fnp.cov(x)
        array([[ 1., -1.],
               [-1.,  1.]])
        >>> fg.grad(lambda x: fnp.cov(x)[0, 1])(x)
        array([[ 0.5,  0. , -0.5],
               [-0.5,  0. ,  0.5]])
    """
    m = lift(m)
    # (CuPy arrays take the composition below, CuPy kernels all: CuPy's cov wants integer
    # fweights and truncates their product with aweights to integers)
    if not is_traced(m, y, fweights, aweights) and not any(
            is_cupy(v) for v in (m, y, fweights, aweights)):
        return np.cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype=dtype)
    if ddof is not None and ddof != int(ddof):
        raise ValueError(f"cov: ddof must be integer (got {ddof!r})")
    if dtype is not None and not is_inexact(np.dtype(dtype)):  # (as NumPy's subtract)
        raise TypeError(f"cov: dtype must be inexact: the deviations from the mean are not "
                        f"{np.dtype(dtype)} (got dtype={dtype!r})")
    if dtype is None:
        dtype = np.result_type(*[np.ones(1, dtype_of(_as_operand(v))) for v in (m, y)
                                 if v is not None], np.float64)
    X = _as_rows(m, rowvar, dtype)
    if y is not None:
        Y = _as_rows(y, rowvar if len(shape_of(_as_operand(y))) != 1 else True, dtype)
        X = concatenate([X, Y], axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = _cov_weights(fweights, aweights, shape_of(X)[1])
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    # (no variables, shape (0, n): no row to read the weights' sum from)
    w_sum = w_sum[0] if shape_of(X)[0] else (float(shape_of(X)[1]) if w is None else sum(w))
    if w is None:
        fact = float(shape_of(X)[1] - ddof)
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = subtract(w_sum, ddof)
    else:
        aw = cast(_as_operand(aweights), np.float64)
        fact = subtract(w_sum, divide(multiply(ddof, sum(multiply(w, aw))), w_sum))
    if not is_traced(fact) and fact <= 0:
        fact = 0.0  # NumPy warns "Degrees of freedom <= 0" and divides by zero
    Xc = subtract(X, reshape(avg, (-1, 1)))
    XwT = transpose(Xc if w is None else multiply(Xc, w))
    from ._contract import dot
    c = cast(multiply(dot(Xc, conj(XwT)), divide(1.0, fact)), dtype)
    return reshape(c, tuple(d for d in shape_of(c) if d != 1))


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """`numpy.corrcoef`: the covariance normalized by the standard deviations, clipped to
    [-1, 1] as NumPy does.

    Example:
        >>> x = np.array([[0.0, 1.0, 2.0], [0.0, 1.0, 4.0]])
        >>> fnp.round(fnp.corrcoef(x), 4)
        array([[1.    , 0.9608],
               [0.9608, 1.    ]])
        >>> fnp.corrcoef(x[0], -x[0])
        array([[ 1., -1.],
               [-1.,  1.]])
    """
    x = lift(x)
    if not is_traced(x, y):
        return np.corrcoef(*same_device(x, y), rowvar, dtype=dtype)
    from ._elementwise import clip, imag
    from ._indexing import diagonal
    c = cov(x, y, rowvar, dtype=dtype)
    if len(shape_of(c)) == 0:
        return divide(c, c)
    sd = sqrt(real(diagonal(c)))
    c = divide(divide(c, reshape(sd, (-1, 1))), reshape(sd, (1, -1)))
    if dtype_of(c).kind == "c":
        return add(clip(real(c), -1, 1), multiply(1j, clip(imag(c), -1, 1)))
    return clip(c, -1, 1)
