"""Searching, counting, sets and histograms: interp, digitize, bincount, histogram*,
unique*, isin and the 1-D set operations, nonzero-likes with `size=`, lexsort.

Outputs whose shape depends on the values (unique, nonzero, ...) are computed from the
concrete values (under grad/jvp the primal is known); under jit/vmap they need JAX's static
`size=` (and optional `fill_value=`), which this module implements with one helper:
`_compact` gathers the first `size` selected elements in order, padding the rest.
"""
from __future__ import annotations

import operator
import numpy as np

from ..backend import asarray, is_cupy, like, on_host, to_host
from ..core.trace import Tracer
from ._base import cast, has_tracer, is_traced, lift, result_type, shape_of, traced_or_narrow
from ._indexing import nonzero as _nonzero_concrete, same_device


# --------------------------------------------------------------------------- helpers
def _np(x):
    """A plain (NumPy or CuPy) array for untraced `x`, unchanged tracers."""
    return x if isinstance(x, Tracer) else asarray(x)


def _concrete(x, what: str):
    """The concrete value of `x` (a tracer under grad/jvp has one); under jit/vmap the
    ConcretizationError names `what` (the function and its fix)."""
    return x.to_concrete(what) if isinstance(x, Tracer) else asarray(x)


def _size_hint(fname: str) -> str:
    return (f"fnp.{fname}(...) without size= (its output shape depends on the values; "
            f"under jit/vmap pass a static size=N, and optionally fill_value=, as in JAX)")


def _dtype(x):
    return x.aval.dtype if isinstance(x, Tracer) else asarray(x).dtype


def _arange_like(n, dtype=np.intp):
    return np.arange(n, dtype=dtype)


def _compact(values, keep, size: int, fill_value=None, extra: int = 0):
    """The first `size` elements of 1-D `values` where 1-D bool `keep` holds, in order, as
    (out, positions, valid): positions past the selected count are 0 (so `out` repeats
    values[0], JAX's padding) unless `fill_value` is given. `extra` more positions are
    computed (the count of keeps beyond gives len(values): used for run lengths)."""
    from ._elementwise import less, minimum, where
    from ._indexing import take
    from ._reductions import cumsum
    n = shape_of(keep)[0]
    running = cumsum(cast(keep, np.dtype(np.intp)))  # running count of selected elements
    want = _arange_like(size + extra) + 1
    # position of the k-th selected element: how many running counts are below k + 1
    pos = _count_below(running, want)
    total = running[n - 1] if n else 0
    valid = less(_arange_like(size + extra), total)
    first = where(valid[:size], minimum(pos[:size], max(n - 1, 0)), 0)
    out = take(values, first) if n else np.zeros((size,), _dtype(values))
    if fill_value is not None:
        out = where(valid[:size], out, _fill_of(fill_value, _dtype(out)))
    return out, first, pos, valid[:size]


def _fill_of(fill_value, dtype):
    """`fill_value` as a value of `dtype` (a plain scalar as a NumPy one: cast would leave
    a Python int weakly typed, and where(bool, ..., 0) would then give ints)."""
    if is_traced(fill_value):
        return cast(fill_value, dtype)
    return np.asarray(fill_value).astype(dtype)


def _count_below(sorted_vals, v):
    """`searchsorted(sorted_vals, v, 'left')` for traced or plain operands."""
    from ._indexing import searchsorted
    return searchsorted(sorted_vals, v, side="left")


def _device_bins(x, bins):
    """Histogram `bins` for NumPy's function that a CuPy `x` dispatches to: arrays of edges
    (also inside a per-dimension list) moved to its GPU (CuPy's histograms take no host
    arrays); unchanged for NumPy `x`."""
    if not is_cupy(x) or isinstance(bins, (int, np.integer, str)):
        return bins
    if isinstance(bins, (list, tuple)) and any(np.ndim(b) for b in bins):
        return [b if isinstance(b, (int, np.integer)) else same_device(x, lift(b))[1]
                for b in bins]
    return same_device(x, bins)[1]


def _flat(a):
    from ._shape import ravel
    return ravel(a) if isinstance(a, Tracer) else np.ravel(a)


def _check_size(fname, size):
    size = operator.index(size)
    if size < 0:
        raise ValueError(f"{fname}: size must be a non-negative int, got {size}")
    return size


# --------------------------------------------------------------------------- nonzero family
def nonzero_sized(a, size: int, fill_value=None, fname="nonzero"):
    """`nonzero(a, size=, fill_value=)`: the first `size` nonzero positions (row-major),
    each index array padded with `fill_value` (default 0; a tuple gives one per axis)."""
    from ._elementwise import not_equal, where
    a = lift(a)
    shape = shape_of(a)
    size = _check_size(fname, size)
    flat = _flat(a)
    n = int(np.prod(shape, dtype=np.int64))
    keep = not_equal(flat, 0) if n else np.zeros((0,), bool)
    _, first, _, valid = _compact(_arange_like(n), keep, size)
    nd = max(len(shape), 1)
    fills = tuple(fill_value) if isinstance(fill_value, (tuple, list)) else (fill_value,) * nd
    if len(fills) != nd:
        raise ValueError(f"{fname}: fill_value has {len(fills)} entries for an array of "
                         f"{nd} dimensions")
    out = []
    stride = n
    for d, dim in enumerate(shape or (1,)):
        stride //= max(dim, 1)
        idx = (first // max(stride, 1)) % max(dim, 1) if shape else first * 0
        if fills[d] is not None:
            idx = where(valid, idx, cast(lift(fills[d]), np.dtype(np.intp)))
        out.append(idx)
    return tuple(out)


def nonzero(a, *, size: int | None = None, fill_value=None):
    """`numpy.nonzero`: its output shape depends on the values, so a traced `a` needs a
    concrete value (it has one under grad and jvp); under jit/vmap pass JAX's static
    `size=` (each index array padded with `fill_value`, default 0) or use
    fnp.where(cond, x, y) instead.

    Example:
        >>> x = np.array([[0.0, 1.0], [2.0, 0.0]])
        >>> fnp.nonzero(x)
        (array([0, 1]), array([1, 0]))
        >>> fnp.nonzero(x, size=3)   # padded with fill_value (0): fixed shape for jit
        (array([0, 1, 0]), array([1, 0, 0]))
    """
    if size is None:
        if isinstance(a, Tracer):
            a = _concrete(a, _size_hint("nonzero"))
        return _nonzero_concrete(a)
    return nonzero_sized(a, size, fill_value)


def flatnonzero(a, *, size: int | None = None, fill_value=None):
    """`numpy.flatnonzero`: positions of the nonzero elements of the flattened `a`; integer
    output. Under jit/vmap pass a static `size=` (JAX's extension; padding `fill_value`,
    default 0).

    Example:
        >>> fnp.flatnonzero(np.array([0.0, 3.0, 0.0, 4.0]))
        array([1, 3])
        >>> fnp.flatnonzero(np.array([0.0, 3.0, 0.0, 4.0]), size=3, fill_value=-1)
        array([ 1,  3, -1])
    """
    a = lift(a)
    if size is None:
        return np.flatnonzero(_concrete(a, _size_hint("flatnonzero")))
    return nonzero_sized(_flat(a), size, fill_value, "flatnonzero")[0]


def argwhere(a, *, size: int | None = None, fill_value=None):
    """`numpy.argwhere`: the indices of the nonzero elements, one row each; integer output.
    Under jit/vmap pass a static `size=` (rows beyond the count are `fill_value`, default 0).

    Example:
        >>> fnp.argwhere(np.array([[0.0, 1.0], [2.0, 0.0]]))
        array([[0, 1],
               [1, 0]])
        >>> fnp.argwhere(np.array([0.0, 5.0]), size=2)
        array([[1],
               [0]])
    """
    a = lift(a)
    if size is None:
        return np.argwhere(_concrete(a, _size_hint("argwhere")))
    from ._shape import stack
    if shape_of(a) == ():  # NumPy treats a 0-d array as having no axes (rows of length 0)
        keep = nonzero_sized(a, size, fill_value, "argwhere")[0]
        return stack([keep], axis=1)[:, :0]
    return stack(nonzero_sized(a, size, fill_value, "argwhere"), axis=1)


def lexsort(keys, axis: int = -1):
    """`numpy.lexsort`: indices sorting by the last key first, then the others (stable);
    integer output.

    Example:
        >>> surnames = np.array([2, 1, 2, 1])
        >>> first_names = np.array([0, 1, 1, 0])
        >>> fnp.lexsort((first_names, surnames))   # by surname, then first name
        array([3, 1, 0, 2])
    """
    keys = lift(keys) if isinstance(keys, (list, tuple)) else keys
    # (CuPy keys take the traced path's stable argsorts: CuPy's lexsort has no axis and
    # takes 2-D keys only)
    if not is_traced(keys) and not any(
            is_cupy(k) for k in (keys if isinstance(keys, (list, tuple)) else [keys])):
        return np.lexsort(keys, axis=axis)
    from ._indexing import argsort, take_along_axis
    rows = (list(keys) if isinstance(keys, (list, tuple)) else
            [keys[i] for i in range(shape_of(keys)[0])])
    if not rows:
        raise TypeError("lexsort: need sequence of keys with len > 0")
    if all(not shape_of(k) for k in rows):  # 0-d keys (NumPy reads a 1-D keys array as
        return np.asarray(0, np.intp)        # n of them): one position to sort, index 0
    order = argsort(rows[0], axis=axis, stable=True)
    for k in rows[1:]:
        sub = argsort(take_along_axis(k, order, axis), axis=axis, stable=True)
        order = take_along_axis(order, sub, axis)
    return order


# --------------------------------------------------------------------------- interpolation
def interp(x, xp, fp, left=None, right=None, period=None):
    """`numpy.interp`: piecewise-linear interpolation of (xp, fp) at x, differentiable in x,
    xp, fp (and left/right); float64 (complex128 for complex fp) like NumPy.

    Example:
        >>> fnp.interp(np.array([0.5, 1.5, 3.0]), [0.0, 1.0, 2.0], [0.0, 1.0, 0.0])
        array([0.5, 0.5, 0. ])
        >>> fg.grad(lambda x: fnp.interp(x, [0.0, 1.0, 2.0], [0.0, 1.0, 0.0]))(1.5)
        array(-1.)
    """
    x, xp, fp = lift(x), lift(xp), lift(fp)
    if not is_traced(x, xp, fp, left, right, period):
        return np.interp(*same_device(x, xp, fp), left, right, period)
    from ._elementwise import (add, clip, divide, greater, less, multiply, remainder,
                               subtract, where)
    from ._indexing import argsort, searchsorted, take
    from ._shape import concatenate
    xp, fp = _np(xp), _np(fp)
    if len(shape_of(xp)) != 1 or shape_of(xp) != shape_of(fp):
        raise ValueError(f"interp: xp and fp must be 1-D sequences of the same length, got "
                         f"shapes {shape_of(xp)} and {shape_of(fp)}")
    if shape_of(xp)[0] == 0:
        raise ValueError("interp: array of sample points is empty")
    for name, v in (("x", x), ("xp", xp)):
        if _dtype(v).kind == "c":
            raise TypeError(f"interp: {name} must be real (got {_dtype(v)}; NumPy cannot cast "
                            f"it to float64); only fp may be complex")
    out_dt = np.dtype(np.complex128 if _dtype(fp).kind == "c" else np.float64)
    x, xp, fp = cast(_np(x), np.dtype(np.float64)), cast(xp, np.dtype(np.float64)), cast(fp, out_dt)
    if period is not None:
        if not is_traced(period) and period == 0:
            raise ValueError("interp: period must be a non-zero value")
        from ._elementwise import abs as _abs
        period = _abs(lift(period))  # (NumPy uses |period|: a negative one wraps the same)
        x, xp = remainder(x, period), remainder(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        # one sample beyond each end, a period away, so every x has two neighbours
        xp = concatenate([subtract(xp[-1:], period), xp, add(xp[:1], period)])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    n = shape_of(xp)[0]
    if n == 1:  # (fp[0] everywhere, NaN x too, as NumPy; left / right still apply)
        from ._shape import broadcast_to
        y = broadcast_to(fp[0], shape_of(x))
    else:
        hi = clip(searchsorted(xp, x, side="right"), 1, n - 1)
        lo = hi - 1
        x0, x1, f0, f1 = take(xp, lo), take(xp, hi), take(fp, lo), take(fp, hi)
        t = divide(subtract(x, x0), subtract(x1, x0))
        y = add(f0, multiply(cast(t, out_dt), subtract(f1, f0)))
        # on a sample, exactly its value (also where the slope is infinite)
        y = where(x == x1, f1, y)
    if period is None:
        y = where(less(x, xp[0]), cast(fp[0] if left is None else lift(left), out_dt), y)
        y = where(greater(x, xp[n - 1]), cast(fp[n - 1] if right is None else lift(right),
                                              out_dt), y)
    return y


def digitize(x, bins, right: bool = False):
    """`numpy.digitize`: the index of the bin each x falls in (bins increasing or
    decreasing); integer output.

    Example:
        >>> fnp.digitize(np.array([-1.0, 0.5, 1.0, 3.0]), [0.0, 1.0, 2.0])
        array([0, 1, 2, 3])
        >>> fnp.digitize(np.array([-1.0, 0.5, 1.0, 3.0]), [0.0, 1.0, 2.0], right=True)
        array([0, 1, 1, 3])
    """
    x, bins = lift(x), lift(bins)
    if not is_traced(x, bins):
        return np.digitize(*same_device(x, bins), right)
    if _dtype(x).kind == "c":
        raise TypeError(f"digitize: x may not be complex (got {_dtype(x)}), as in NumPy; "
                        "digitize fnp.real(x) or fnp.abs(x)")
    from ._elementwise import where
    from ._indexing import searchsorted
    bins = _np(bins)
    if len(shape_of(bins)) != 1:
        raise ValueError(f"digitize: bins must be 1-D, got shape {shape_of(bins)}")
    n = shape_of(bins)[0]
    side = "left" if right else "right"
    up = searchsorted(bins, x, side=side)
    down = n - searchsorted(bins[::-1], x, side=side)
    if not isinstance(bins, Tracer):  # NumPy's monotonicity check, and one branch
        return up if _monotonic_direction(to_host(bins)) > 0 else down
    return where(bins[n - 1] >= bins[0], up, down) if n > 1 else up


def _monotonic_direction(bins) -> int:
    """NumPy's digitize check of 1-D `bins`: 1 increasing, -1 decreasing, else ValueError.
    As NumPy's: the first pair that differs (NaN differs from everything) picks the
    direction, and only a later step the other way is an error, so NaN edges pass."""
    differs = np.flatnonzero(bins[1:] != bins[:-1])
    if differs.size == 0:
        return 1  # all edges equal (or none)
    i = differs[0]
    d = np.diff(bins[i:])
    if bins[i] < bins[i + 1]:
        if np.any(d < 0):
            raise ValueError("digitize: bins must be monotonically increasing or decreasing")
        return 1
    if np.any(d > 0):
        raise ValueError("digitize: bins must be monotonically increasing or decreasing")
    return -1


# --------------------------------------------------------------------------- counting
def _scatter_count(idx, weights, length: int, sum_dtype=np.float64):
    """sum of `weights` (1 if None) per index in [0, length), in `sum_dtype`; other indices
    are dropped."""
    from ..lax.indexing import scatter_add_p
    from ._elementwise import logical_and, where
    idx = cast(idx, np.dtype(np.intp))
    inside = logical_and(idx >= 0, idx < length)
    idx = where(inside, idx, length)  # the extra bin collects the dropped ones
    dt = np.dtype(np.intp) if weights is None else np.dtype(sum_dtype)
    upd = (cast(inside, dt) if weights is None else cast(weights, dt))
    from ._base import broadcast_to_shape
    upd = broadcast_to_shape(upd, shape_of(idx))
    out = scatter_add_p.bind(np.zeros((length + 1,), dt), upd, idx, spec=(("array", 0),))
    return out[:length]


def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None):
    """`numpy.bincount`: counts (or summed `weights`, differentiable) of each non-negative
    int in x. The output length is max(x) + 1 (at least `minlength`) from the concrete
    values; under jit/vmap pass a static `length=` as in JAX (values >= length are dropped).

    Example:
        >>> fnp.bincount(np.array([0, 1, 1, 3]))
        array([1, 2, 0, 1])
        >>> fnp.bincount(np.array([0, 1, 1]), weights=np.array([0.5, 1.0, 2.0]), length=4)
        array([0.5, 3. , 0. , 0. ])
    """
    x, weights = lift(x), lift(weights)
    if not is_traced(x, weights) and length is None:
        return np.bincount(*same_device(x, weights), minlength)
    x = _np(x)
    if len(shape_of(x)) != 1:
        raise ValueError(f"bincount: x must be 1-D, got shape {shape_of(x)}")
    if _dtype(x).kind not in "biu":
        raise TypeError(f"bincount: x must hold integers, got dtype {_dtype(x)}")
    if weights is not None and shape_of(weights) != shape_of(x):
        raise ValueError(f"bincount: weights (shape {shape_of(weights)}) and x (shape "
                         f"{shape_of(x)}) must have the same shape")
    if length is None:
        xc = _concrete(x, "fnp.bincount(x) without length= (its output length is max(x) + 1;"
                          " under jit/vmap pass a static length=N, as in JAX)")
        if xc.size and xc.min() < 0:
            raise ValueError("bincount: x must be non-negative")
        length = max(int(xc.max()) + 1 if xc.size else 0, operator.index(minlength))
        if not xc.size:  # (NumPy's bincount of nothing is intp zeros, weights or not)
            return like(xc, np.zeros((length,), np.intp))
    return _scatter_count(x, weights, operator.index(length))


# --------------------------------------------------------------------------- histograms
def _edges(fname, a, bins, range_, weights=None, sample_dtype=True):
    """Bin edges of a 1-D sample `a`: an int count (from `range_` or a's min/max, traced
    and differentiable), an array of edges, or a string rule (concrete values only).
    `sample_dtype=False`: the edges' dtype is that of the first and last edge alone (as
    np.histogramdd, whose edges from a float range are float64 for a float32 sample)."""
    from ._creation import linspace
    from ._reductions import max as _max, min as _min
    from ._elementwise import add, equal, subtract, where
    if isinstance(bins, str):
        ac = _concrete(a, f"fnp.{fname}(a, bins={bins!r}) (the bin count depends on the "
                          "values; under jit/vmap pass an int or the edges)")
        wc = None if weights is None else _concrete(weights, f"fnp.{fname}(weights=...)")
        return _bin_edges(ac, bins, range_, wc)
    if np.ndim(bins) == 1 or isinstance(bins, Tracer):
        edges = _np(lift(bins))
        if len(shape_of(edges)) != 1:
            raise ValueError(f"{fname}: bins must be an int, a 1-D array of edges or a string")
        if not isinstance(edges, Tracer) and np.any(np.diff(edges) < 0):
            raise ValueError(f"{fname}: bins must increase monotonically, when an array")
        return edges
    if np.ndim(bins) > 1:
        raise ValueError(f"{fname}: `bins` must be 1d, when an array (got shape "
                         f"{np.shape(bins)})")
    n = operator.index(bins)
    if n < 1:
        raise ValueError(f"{fname}: bins must be a positive int, got {n}")
    if range_ is not None:
        lo, hi = range_
        if not is_traced(lo, hi):
            if lo > hi:
                raise ValueError(f"{fname}: max must be larger than min in range parameter")
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ValueError(f"{fname}: supplied range of [{lo}, {hi}] is not finite")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            return np.linspace(lo, hi, n + 1, dtype=_edge_dtype(lo, hi, a if sample_dtype
                                                                 else None))
    else:
        if shape_of(a)[0] == 0:
            lo, hi = 0.0, 1.0
        else:
            lo, hi = _min(a), _max(a)
            if not isinstance(a, Tracer) and not (np.isfinite(lo) and np.isfinite(hi)):
                # (NumPy's error; a traced sample's NaN / inf edges cannot raise)
                raise ValueError(f"{fname}: autodetected range of [{lo}, {hi}] is not finite")
            same = equal(lo, hi)
            lo, hi = where(same, subtract(lo, 0.5), lo), where(same, add(hi, 0.5), hi)
    dt = _edge_dtype(lo, hi, a if sample_dtype else None)
    return linspace(cast(lift(lo), dt), cast(lift(hi), dt), n + 1)


# CuPy has no histogram_bin_edges: on CuPy arrays it runs on host copies (the edges are few)
_bin_edges = on_host(np.histogram_bin_edges)


def _edge_dtype(lo, hi, a):
    """NumPy's edge dtype: that of (first edge, last edge, a), float64 for integers."""
    dt = result_type(lo, hi, *(() if a is None else (a,)))
    return np.dtype(np.float64) if dt.kind in "biu" else dt


def _bin_index(a, edges):
    """The bin of each sample (edges[i] <= a < edges[i + 1], the last bin closed), -1 or
    len(edges) - 1 outside."""
    from ._elementwise import equal, where
    from ._indexing import searchsorted
    n = shape_of(edges)[0]
    idx = searchsorted(edges, a, side="right") - 1
    return where(equal(a, edges[n - 1]), n - 2, idx)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """`numpy.histogram_bin_edges`: an int count of equal bins (differentiable in a's min
    and max without `range`), given edges, or a string rule (concrete values only).

    Example:
        >>> fnp.histogram_bin_edges(np.array([0.0, 1.0, 4.0]), bins=4)
        array([0., 1., 2., 3., 4.])
        >>> fg.grad(lambda a: fnp.histogram_bin_edges(a, bins=4)[1])(np.array([0.0, 1.0, 4.0]))
        array([0.75, 0.  , 0.25])
    """
    a, weights = lift(a), lift(weights)
    # (has_tracer: a traced bound inside the range tuple counts too)
    if not is_traced(a, bins, weights) and not has_tracer(range):
        return _bin_edges(a, bins, range, weights)
    _check_weights("histogram_bin_edges", weights, shape_of(a))
    return _edges("histogram_bin_edges", _flat(_np(a)), bins, range, weights)


def _check_weights(fname, weights, shape):
    """NumPy's check of `weights=`: one weight per sample, of the samples' `shape`."""
    if weights is not None and shape_of(weights) != tuple(shape):
        raise ValueError(f"{fname}: weights of shape {shape_of(weights)} should have the "
                         f"shape of the samples, {tuple(shape)}")


def histogram(a, bins=10, range=None, density=None, weights=None):
    """`numpy.histogram`: (counts or summed `weights`, bin edges); differentiable in
    `weights` (and in the edges through a's min/max when `bins` is an int without `range`).

    Example:
        >>> x = np.array([0.1, 0.2, 0.7])
        >>> fnp.histogram(x, bins=2, range=(0, 1))
        (array([2, 1]), array([0. , 0.5, 1. ]))
        >>> fg.grad(lambda w: fnp.histogram(x, 2, (0, 1), weights=w)[0][0])(np.ones(3))
        array([1., 1., 0.])
    """
    a, weights = lift(a), lift(weights)
    if not is_traced(a, bins, weights) and not has_tracer(range):
        if is_cupy(a) and isinstance(bins, str):  # (CuPy has no string rules)
            return on_host(np.histogram)(a, bins, range, density, weights)
        a, weights = same_device(a, weights)
        return np.histogram(a, _device_bins(a, bins), range, density, weights)
    _check_weights("histogram", weights, shape_of(a))
    a = _flat(_np(a))
    w = None if weights is None else _flat(_np(weights))
    edges = _edges("histogram", a, bins, range, w)
    nb = shape_of(edges)[0] - 1
    # (complex weights sum as complex: NumPy keeps their imaginary parts)
    hist = _scatter_count(_bin_index(a, edges), w, nb,
                          np.complex128 if w is not None and _dtype(w).kind == "c" else np.float64)
    if w is not None:  # (summed weights keep the weights' dtype, integers too, as NumPy)
        hist = cast(hist, _dtype(w))
    if density:
        from ._elementwise import divide
        from ._reductions import sum as _sum
        widths = edges[1:] - edges[:-1]
        hist = cast(hist, np.result_type(_dtype(hist), np.float64))
        hist = divide(divide(hist, widths), _sum(hist))
    return hist, edges


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """`numpy.histogramdd`: the D-dimensional histogram of an (N, D) sample and the D
    edge arrays; differentiable in `weights` (and in edges computed from the sample).

    Example:
        >>> pts = np.array([[0.1, 0.1], [0.2, 0.9], [0.8, 0.9]])
        >>> H, edges = fnp.histogramdd(pts, bins=2, range=[(0, 1), (0, 1)])
        >>> H
        array([[1., 1.],
               [0., 1.]])
        >>> edges
        [array([0. , 0.5, 1. ]), array([0. , 0.5, 1. ])]
    """
    # (NumPy reads a list or tuple as one array per coordinate, whatever its shape)
    coordinates = list(sample) if isinstance(sample, (list, tuple)) else None
    sample, weights = lift(sample), lift(weights)
    if not traced_or_narrow(sample, weights) and not has_tracer(range) and not any(
            isinstance(b, Tracer) for b in (bins if isinstance(bins, (list, tuple)) else [])):
        if isinstance(sample, (list, tuple)) and any(is_cupy(s) for s in sample):
            import cupy
            sample = cupy.stack(same_device(*sample), axis=1)  # (CuPy takes one array)
        sample, weights = same_device(sample, weights)
        # (by keyword: CuPy's histogramdd has weights before density)
        return np.histogramdd(sample, _device_bins(sample, bins), range, density=density,
                              weights=weights)
    if coordinates is not None:
        from ._shape import stack
        sample = stack([_np(lift(s)) for s in coordinates], axis=1)
    sample = _np(sample)
    if len(shape_of(sample)) == 1:
        sample = sample.reshape((-1, 1))
    npts, D = shape_of(sample)
    _check_weights("histogramdd", weights, (npts,))
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * D
    ranges = list(range) if range is not None else [None] * D
    if len(per_dim) != D or len(ranges) != D:
        raise ValueError(f"histogramdd: bins and range must have one entry per dimension "
                         f"({D})")
    edges = [_edges("histogramdd", sample[:, d], per_dim[d], ranges[d], sample_dtype=False)
             for d in _builtin_range(D)]
    nbins = [shape_of(e)[0] - 1 for e in edges]
    from ._elementwise import logical_or, where
    flat = 0
    outside = None
    for d in _builtin_range(D):
        idx = _bin_index(sample[:, d], edges[d])
        bad = logical_or(idx < 0, idx >= nbins[d])
        outside = bad if outside is None else logical_or(outside, bad)
        flat = flat * nbins[d] + idx
    total = int(np.prod(nbins))
    flat = where(outside, total, flat) if D else flat
    w = None if weights is None else _np(weights)
    hist = _scatter_count(flat, w, total)
    hist = cast(hist, np.dtype(np.float64)).reshape(tuple(nbins))
    if density:
        from ._elementwise import divide
        from ._reductions import sum as _sum
        s = _sum(hist)
        for d in _builtin_range(D):
            shape = [1] * D
            shape[d] = nbins[d]
            hist = divide(hist, (edges[d][1:] - edges[d][:-1]).reshape(tuple(shape)))
        hist = divide(hist, s)
    return hist, edges


_builtin_range = range


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """`numpy.histogram2d`: (H, xedges, yedges); differentiable in `weights`.

    Example:
        >>> x, y = np.array([0.1, 0.2, 0.8]), np.array([0.1, 0.9, 0.9])
        >>> H, xedges, yedges = fnp.histogram2d(x, y, bins=2, range=[(0, 1), (0, 1)])
        >>> H
        array([[1., 1.],
               [0., 1.]])
        >>> xedges
        array([0. , 0.5, 1. ])
    """
    x, y, weights = lift(x), lift(y), lift(weights)
    if not is_traced(x, y, weights) and not has_tracer(range) and not has_tracer(bins):
        x, y, weights = same_device(x, y, weights)
        # (by keyword: CuPy's histogram2d has weights before density)
        return np.histogram2d(x, y, _device_bins(x, bins), range, density=density,
                              weights=weights)
    if isinstance(bins, (list, tuple)) and len(bins) == 2 or (
            not isinstance(bins, (int, np.integer, str)) and np.ndim(bins) == 2):
        per_dim = list(bins)
    else:
        per_dim = [bins, bins]
    from ._shape import stack
    hist, edges = histogramdd(stack([_np(x), _np(y)], axis=1), per_dim, range, density,
                              weights)
    return hist, edges[0], edges[1]


# --------------------------------------------------------------------------- unique
_UNIQUE_TYPES = {
    "all": type(np.unique_all(np.zeros(1))), "counts": type(np.unique_counts(np.zeros(1))),
    "inverse": type(np.unique_inverse(np.zeros(1))),
}


def _sorted_runs(flat, equal_nan: bool):
    """(sorted values, the stable sorting permutation, a mask of each run's first element)."""
    from ._elementwise import isnan, logical_and, logical_not, not_equal
    from ._indexing import argsort, take
    from ._shape import concatenate
    perm = argsort(flat, stable=True)
    s = take(flat, perm)
    n = shape_of(s)[0]
    if n == 0:
        return s, perm, np.zeros((0,), bool)
    new = not_equal(s[1:], s[:-1])
    if equal_nan and _dtype(s).kind in "fc":
        new = logical_and(new, logical_not(logical_and(isnan(s[1:]), isnan(s[:-1]))))
    return s, perm, concatenate([like(new, np.ones((1,), bool)), new])


def _unique_sized(ar, return_index, return_inverse, return_counts, equal_nan, size,
                  fill_value):
    from ._indexing import argsort, take
    from ._reductions import cumsum
    ar = _np(ar)
    flat = _flat(ar)
    n = shape_of(flat)[0]
    if n == 0 and size and fill_value is None:
        raise ValueError("unique: for an empty input with size > 0, fill_value is needed")
    s, perm, first = _sorted_runs(flat, equal_nan)
    vals, idx, pos, _ = _compact(s, first, size, fill_value, extra=1)
    out = [vals]
    if return_index:
        out.append(take(perm, idx) if n else np.zeros((size,), np.intp))
    if return_inverse:
        run = cumsum(cast(first, np.dtype(np.intp))) - 1 if n else np.zeros((0,), np.intp)
        inv = take(run, argsort(perm)) if n else run
        out.append(inv.reshape(shape_of(ar)) if n else np.zeros(shape_of(ar), np.intp))
    if return_counts:
        out.append(pos[1:] - pos[:-1] if n else np.zeros((size,), np.intp))
    return out[0] if len(out) == 1 else tuple(out)


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           sorted: bool = True, size: int | None = None, fill_value=None):
    """`numpy.unique`. The values are differentiable (a gather of each first occurrence);
    the output length depends on the values, so under jit/vmap pass JAX's static `size=`
    (padding with `fill_value`, default the minimum; counts pad with 0).

    Example:
        >>> fnp.unique(np.array([3.0, 1.0, 3.0, 2.0]))
        array([1., 2., 3.])
        >>> fnp.unique(np.array([3.0, 1.0, 3.0]), size=3, fill_value=0.0)
        array([1., 3., 0.])
        >>> fnp.unique(np.array([3.0, 1.0, 3.0]), return_counts=True)
        (array([1., 3.]), array([1, 2]))
    """
    ar = lift(ar)
    kw = dict(return_index=return_index, return_inverse=return_inverse,
              return_counts=return_counts)
    if not is_traced(ar) and size is None:
        if not sorted:  # (NumPy 2.3's argument, which CuPy's unique lacks)
            kw["sorted"] = sorted
        return np.unique(ar, axis=axis, equal_nan=equal_nan, **kw)
    if size is not None:
        if axis is not None:
            raise NotImplementedError("unique: size= with axis= is not supported; use "
                                      "axis=None (the flattened array)")
        return _unique_sized(ar, return_index, return_inverse, return_counts, equal_nan,
                             _check_size("unique", size), fill_value)
    ac = _concrete(ar, _size_hint("unique"))
    # the values as a gather of the traced array at each first occurrence (differentiable)
    res = np.unique(ac, return_index=True, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    from ._indexing import take
    vals = take(ar, res[1], axis=axis)
    rest = list(res[1:]) if return_index else list(res[2:])
    return tuple([vals] + rest) if rest else vals


def unique_values(x, *, size: int | None = None, fill_value=None):
    """`numpy.unique_values` (sorted here; NumPy's order is unspecified); each NaN is a
    value of its own (equal_nan=False, as NumPy's); `size=` under jit.

    Example:
        >>> fnp.unique_values(np.array([3.0, 1.0, 3.0, 2.0]))
        array([1., 2., 3.])
    """
    x = lift(x)
    if not is_traced(x) and size is None:
        return np.unique_values(x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, *, size: int | None = None, fill_value=None):
    """`numpy.unique_counts`: (values, counts); `size=` under jit/vmap.

    Example:
        >>> fnp.unique_counts(np.array([3.0, 1.0, 3.0, 2.0]))
        UniqueCountsResult(values=array([1., 2., 3.]), counts=array([1, 1, 2]))
    """
    x = lift(x)
    if not is_traced(x) and size is None:
        return np.unique_counts(x)
    return _UNIQUE_TYPES["counts"](*unique(x, return_counts=True, equal_nan=False, size=size,
                                           fill_value=fill_value))


def unique_inverse(x, *, size: int | None = None, fill_value=None):
    """`numpy.unique_inverse`: (values, inverse_indices of x's shape); `size=` under jit.

    Example:
        >>> fnp.unique_inverse(np.array([3.0, 1.0, 3.0, 2.0]))
        UniqueInverseResult(values=array([1., 2., 3.]), inverse_indices=array([2, 0, 2, 1]))
    """
    x = lift(x)
    if not is_traced(x) and size is None:
        return np.unique_inverse(x)
    v, inv = unique(x, return_inverse=True, equal_nan=False, size=size,
                    fill_value=fill_value)
    return _UNIQUE_TYPES["inverse"](v, inv.reshape(shape_of(x)))


def unique_all(x, *, size: int | None = None, fill_value=None):
    """`numpy.unique_all`: (values, indices, inverse_indices, counts); `size=` under jit.

    Example:
        >>> x = np.array([3.0, 1.0, 3.0, 2.0])
        >>> values, indices, inverse_indices, counts = fnp.unique_all(x)
        >>> values, indices
        (array([1., 2., 3.]), array([1, 3, 0]))
        >>> inverse_indices, counts
        (array([2, 0, 2, 1]), array([1, 1, 2]))
    """
    x = lift(x)
    if not is_traced(x) and size is None:
        return np.unique_all(x)
    v, i, inv, c = unique(x, True, True, True, equal_nan=False, size=size,
                          fill_value=fill_value)
    return _UNIQUE_TYPES["all"](v, i, inv.reshape(shape_of(x)), c)


# --------------------------------------------------------------------------- sets
def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *,
         kind: str | None = None):
    """`numpy.isin`: whether each element is in `test_elements` (bool output, element's
    shape), by comparing against all of them.

    Example:
        >>> fnp.isin(np.array([1, 4, 2, 5]), [1, 2, 3])
        array([ True, False,  True, False])
        >>> fnp.isin(np.array([1, 4, 2, 5]), [1, 2, 3], invert=True)
        array([False,  True, False,  True])
    """
    element, test_elements = lift(element), lift(test_elements)
    if kind not in (None, "sort", "table"):
        raise ValueError(f"isin: invalid kind {kind!r}; use None, 'sort' or 'table'")
    if not is_traced(element, test_elements):
        # (NumPy's dispatch passes on every keyword given: CuPy's isin has no `kind`)
        return np.isin(*same_device(element, test_elements), assume_unique, invert,
                       **({} if kind is None else {"kind": kind}))
    from ._elementwise import equal, logical_not
    from ._reductions import any as _any
    from ._shape import expand_dims
    t = _flat(_np(test_elements))
    e = _np(element)
    hit = _any(equal(expand_dims(e, -1), t), axis=-1) if shape_of(t)[0] else (
        np.zeros(shape_of(e), bool))
    return logical_not(hit) if invert else hit


def _set_result(fname, values, keep, size, fill_value):
    """Concrete: the kept values (a gather, differentiable); with size=: padded."""
    if size is None:
        k = _concrete(keep, _size_hint(fname))
        from ._indexing import take
        return take(values, np.flatnonzero(k))
    return _compact(values, keep, _check_size(fname, size), fill_value)[0]


def _sorted_unique(x):
    s, _, first = _sorted_runs(_flat(_np(lift(x))), equal_nan=True)
    return s, first


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value=None):
    """`numpy.intersect1d`: sorted values in both arrays; `size=` under jit/vmap.

    Example:
        >>> fnp.intersect1d(np.array([1, 3, 4, 3]), np.array([3, 1, 2, 1]))
        array([1, 3])
        >>> fnp.intersect1d(np.array([1, 3, 4, 3]), np.array([3, 1, 2, 1]), size=4, fill_value=0)
        array([1, 3, 0, 0])
    """
    ar1, ar2 = lift(ar1), lift(ar2)
    if not is_traced(ar1, ar2) and size is None:
        return np.intersect1d(*same_device(ar1, ar2), assume_unique, return_indices)
    if return_indices:
        if size is not None:
            raise NotImplementedError("intersect1d: return_indices=True with size= is not "
                                      "supported")
        what = _size_hint("intersect1d")
        _, i1, i2 = np.intersect1d(*same_device(_concrete(ar1, what), _concrete(ar2, what)),
                                   assume_unique, True)
        from ._indexing import take
        return cast(take(_flat(_np(ar1)), i1), _joined_dtype(ar1, ar2)), i1, i2
    from ._elementwise import equal, logical_and
    if assume_unique:
        # NumPy's: equal neighbours in the sorted join (repeats within an array count too)
        from ._indexing import sort
        s = sort(_joined(ar1, ar2))
        if shape_of(s)[0] < 2:
            return _set_result("intersect1d", s[:0], np.zeros((0,), bool), size, fill_value)
        return _set_result("intersect1d", s[:-1], equal(s[1:], s[:-1]), size, fill_value)
    s, first = _sorted_unique(ar1)
    keep = logical_and(first, isin(s, ar2)) if shape_of(s)[0] else first
    # (in the dtype of both, as NumPy's, which joins the arrays)
    return _set_result("intersect1d", cast(s, _joined_dtype(ar1, ar2)), keep, size,
                       fill_value)


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None,
              fill_value=None):
    """`numpy.setdiff1d`: sorted unique values of ar1 not in ar2; `size=` under jit/vmap.

    Example:
        >>> fnp.setdiff1d(np.array([1, 2, 3, 2, 4]), np.array([3, 4, 5]))
        array([1, 2])
        >>> fnp.setdiff1d(np.array([1, 2, 3, 2, 4]), np.array([3, 4, 5]), size=4, fill_value=-1)
        array([ 1,  2, -1, -1])
    """
    ar1, ar2 = lift(ar1), lift(ar2)
    if not is_traced(ar1, ar2) and size is None:
        return np.setdiff1d(*same_device(ar1, ar2), assume_unique)
    from ._elementwise import logical_and
    if assume_unique:  # NumPy's: ar1 flattened, in its own order (not sorted)
        flat = _flat(_np(ar1))
        return _set_result("setdiff1d", flat, isin(flat, ar2, invert=True), size, fill_value)
    s, first = _sorted_unique(ar1)
    keep = logical_and(first, isin(s, ar2, invert=True)) if shape_of(s)[0] else first
    return _set_result("setdiff1d", s, keep, size, fill_value)


def _joined_dtype(ar1, ar2):
    return result_type(_np(ar1), _np(ar2))


def _joined(ar1, ar2):
    from ._shape import concatenate
    a, b = _flat(_np(ar1)), _flat(_np(ar2))
    dt = result_type(a, b)
    return concatenate([cast(a, dt), cast(b, dt)])


def union1d(ar1, ar2, *, size: int | None = None, fill_value=None):
    """`numpy.union1d`: sorted unique values of both arrays; `size=` under jit/vmap.

    Example:
        >>> fnp.union1d(np.array([-1, 0, 1]), np.array([-2, 0, 2]))
        array([-2, -1,  0,  1,  2])
        >>> fnp.union1d(np.array([-1, 0, 1]), np.array([-2, 0, 2]), size=6, fill_value=9)
        array([-2, -1,  0,  1,  2,  9])
    """
    ar1, ar2 = lift(ar1), lift(ar2)
    if not is_traced(ar1, ar2) and size is None:
        return np.union1d(*same_device(ar1, ar2))
    s, first = _sorted_unique(_joined(ar1, ar2))
    return _set_result("union1d", s, first, size, fill_value)


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None,
             fill_value=None):
    """`numpy.setxor1d`: sorted values in exactly one of the arrays; `size=` under jit.

    Example:
        >>> fnp.setxor1d(np.array([1, 2, 3, 2]), np.array([2, 3, 5]))
        array([1, 5])
        >>> fnp.setxor1d(np.array([1, 2, 3, 2]), np.array([2, 3, 5]), size=3, fill_value=0)
        array([1, 5, 0])
    """
    ar1, ar2 = lift(ar1), lift(ar2)
    if not is_traced(ar1, ar2) and size is None:
        return np.setxor1d(*same_device(ar1, ar2), assume_unique)
    from ._elementwise import equal, isnan, logical_and, logical_or
    from ._indexing import argsort, searchsorted, take
    from ._reductions import cumsum
    from ._shape import concatenate
    # NumPy's: the sorted join of the two arrays' unique values (of the arrays themselves
    # with assume_unique), keeping each value with no equal neighbour. So a value is kept
    # when it occurs once in the join, and every NaN is kept (NaN != NaN): one per array
    # holding NaN.
    joined = _joined(ar1, ar2)
    n = shape_of(joined)[0]
    if n == 0:
        return _set_result("setxor1d", joined, np.zeros((0,), bool), size, fill_value)
    if assume_unique:
        aux, counted = joined, like(joined, np.ones((n,), bool))
    else:
        dt = _dtype(joined)
        parts = [_sorted_unique(cast(_flat(_np(v)), dt)) for v in (ar1, ar2)]
        aux = concatenate([p[0] for p in parts])
        counted = concatenate([p[1] for p in parts])
    order = argsort(aux, stable=True)
    aux, counted = take(aux, order), take(counted, order)
    # copies of each value among the counted ones: a running count between its run's ends
    running = concatenate([like(aux, np.zeros((1,), np.intp)),
                           cumsum(cast(counted, np.dtype(np.intp)))])
    copies = (take(running, searchsorted(aux, aux, side="right")) -
              take(running, searchsorted(aux, aux, side="left")))
    once = equal(copies, 1)
    if _dtype(aux).kind in "fc":
        once = logical_or(once, isnan(aux))
    return _set_result("setxor1d", aux, logical_and(counted, once), size, fill_value)

