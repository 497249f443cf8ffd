"""Functional updates, JAX's `x.at[idx]` API: `x.at[idx].set(v)` is `x[idx] = v` on a copy.

Traced arrays have an `.at` property (installed by `_operators`); a plain NumPy array cannot
get one, so eager code writes `fnp.at(x)[idx].add(v)` (which also works on traced values).
Semantics (JAX's, with NumPy's in-place rules where JAX leaves them open):
- repeated positions accumulate for add/subtract/multiply/divide/power/min/max (like
  `np.add.at`); for `set` the last update wins (NumPy's fancy assignment);
- out-of-bounds indices, `mode=`: updates default to dropping them ('drop', 'fill' and
  'promise_in_bounds' all drop), `get` defaults to clamping them ('clip'); `get(mode='fill')`
  returns `fill_value` there; `wrap_negative_indices=False` makes negative indices out of
  bounds;
- the result has x's dtype: `set` casts the values as NumPy's assignment does, the
  arithmetic updates need a same-kind cast as NumPy's ufuncs with `out=x` do.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np

from ..backend import asarray as _asarray, to_host
from ..core.dtypes import is_inexact
from ..core.trace import Tracer
from ..lax.indexing import (_advanced_layout, build_index, getitem_p, scatter_add_p,
                            take_axis)
from ..lax.scatter import scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p
from ._base import cast, dtype_of, is_traced, lift, shape_of
from ._dtypes import result_type
from ._indexing import getitem, parse_index

_MODES = (None, "promise_in_bounds", "clip", "drop", "fill")


def at(x) -> "_IndexUpdateHelper":
    """`x.at` for any array: `fnp.at(x)[idx].add(v)` is `x.at[idx].add(v)`, for plain NumPy
    arrays too (which cannot carry an `.at` attribute). The array is never modified.

    Example:
        >>> x = np.zeros(3)
        >>> fnp.at(x)[[0, 0, 2]].add(1.0)
        array([2., 0., 1.])
        >>> fnp.at(x)[1].set(5.0)
        array([0., 5., 0.])
        >>> x
        array([0., 0., 0.])
    """
    return _IndexUpdateHelper(x)


class _IndexUpdateHelper:
    """`x.at`: index it, `x.at[idx]`, to get the update methods."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index) -> "_IndexUpdateRef":
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """`x.at[idx]`: each method returns an updated copy of x (see the module docstring)."""
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: str | None = None, fill_value: Any = None,
            wrap_negative_indices: bool = True):
        """`x[idx]`; out-of-bounds indices are clamped (mode 'clip', the default) or give
        `fill_value` (mode 'fill': NaN for floats, the smallest signed / largest unsigned
        integer, True for bools).

        Example: `fnp.at(x)[10].get(mode="fill", fill_value=0.0)`
        """
        return _get(self.array, self.index, mode, fill_value, wrap_negative_indices)

    def set(self, values, **kw):
        """`x[idx] = values` on a copy (repeated positions: the last value stays).

        Example: `x.at[0].set(1.0)`
        """
        return _update("set", self.array, self.index, values, **kw)

    def add(self, values, **kw):
        """`x[idx] += values` on a copy, repeated positions accumulating (`np.add.at`).

        Example: `x.at[[0, 0]].add(1.0)` adds 2 to x[0]
        """
        return _update("add", self.array, self.index, values, **kw)

    def subtract(self, values, **kw):
        """`x[idx] -= values` on a copy (`np.subtract.at`).

        Example: `x.at[1:].subtract(y)`
        """
        return _update("subtract", self.array, self.index, values, **kw)

    def multiply(self, values, **kw):
        """`x[idx] *= values` on a copy (`np.multiply.at`).

        Example: `x.at[::2].multiply(2.0)`
        """
        return _update("multiply", self.array, self.index, values, **kw)

    mul = multiply

    def divide(self, values, **kw):
        """`x[idx] /= values` on a copy (`np.divide.at`; x must be inexact).

        Example: `x.at[0].divide(2.0)`
        """
        return _update("divide", self.array, self.index, values, **kw)

    def power(self, values, **kw):
        """`x[idx] **= values` on a copy (`np.power.at`: repeats multiply the exponents).

        Example: `x.at[0].power(2)`
        """
        return _update("power", self.array, self.index, values, **kw)

    def min(self, values, **kw):
        """`x[idx] = minimum(x[idx], values)` on a copy (`np.minimum.at`); the derivative goes
        to the smallest value (shared equally between ties).

        Example: `x.at[idx].min(0.0)`
        """
        return _update("min", self.array, self.index, values, **kw)

    def max(self, values, **kw):
        """`x[idx] = maximum(x[idx], values)` on a copy (`np.maximum.at`).

        Example: `x.at[idx].max(0.0)`
        """
        return _update("max", self.array, self.index, values, **kw)

    def apply(self, func: Callable, **kw):
        """`func.at(x, idx)` on a copy for an elementwise `func`: repeated positions get
        `func` applied again (`np.negative.at`).

        Example: `x.at[::2].apply(fnp.sin)`
        """
        return _update("apply", self.array, self.index, func, **kw)


# --------------------------------------------------------------------------- index handling
class _Index:
    """A parsed, normalized index: spec, index arrays (non-negative where concrete and
    valid), the axis of each array, and concrete validity masks."""

    def __init__(self, shape, index, wrap, what):
        self.shape = shape
        self.spec, self.arrays, axes = parse_index(shape, index, check_bounds=False)
        self.array_axes = [axes[i] for i, s in enumerate(self.spec)
                           if isinstance(s, tuple) and s[0] == "array"]
        self.int_out = False  # an integer index out of bounds
        self.traced = any(isinstance(a, Tracer) for a in self.arrays)
        self.wrap = wrap
        spec = list(self.spec)
        for i, s in enumerate(spec):
            if isinstance(s, tuple) and s[0] == "int":
                n, v = shape[axes[i]], s[1]
                v = v + n if wrap and v < 0 else v
                self.int_out |= not 0 <= v < n
                spec[i] = ("int", min(max(v, 0), n - 1))  # clamped; int_out says whether
        self.spec = tuple(spec)
        self.valid = []  # per array: None (all valid) or a concrete bool mask
        for k, a in enumerate(self.arrays):
            if not isinstance(a, Tracer):
                self.arrays[k], valid = _normalize_concrete(a, shape[self.array_axes[k]], wrap)
                self.valid.append(valid)
            else:
                self.valid.append(None)

    def sizes(self):
        return [self.shape[d] for d in self.array_axes]

    def clip_traced(self):
        """Clamp traced arrays into range (concrete ones: `clip_concrete`)."""
        from ._elementwise import clip
        for k, (a, n) in enumerate(zip(self.arrays, self.sizes())):
            if isinstance(a, Tracer):
                self.arrays[k] = clip(_wrap_traced(a, n) if self.wrap else a, 0, n - 1)

    def clip_concrete(self):
        for k, (a, n) in enumerate(zip(self.arrays, self.sizes())):
            if self.valid[k] is not None:
                self.arrays[k] = np.clip(a, 0, n - 1)

    def batch_shape(self):
        return np.broadcast_shapes(*(shape_of(a) for a in self.arrays))

    def indexed_shape(self):
        """The shape of x[index], from size-1 stand-ins for the index arrays (indexing with
        the real ones would gather them all)."""
        axis = take_axis(self.spec) if len(self.arrays) == 1 else None
        if axis is not None:  # x[:, ..., a]: a's shape replaces axis `axis`
            return self.shape[:axis] + _aval_shape(self.arrays[0]) + self.shape[axis + 1:]
        dummy = np.broadcast_to(np.empty((), np.int8), self.shape)
        if not self.arrays:
            return dummy[build_index(self.spec, ())].shape
        B = self.batch_shape()
        ones = [np.zeros((1,) * len(B), np.intp)] * len(self.arrays)
        small = dummy[build_index(self.spec, ones)].shape
        first = self.layout()[0]
        return small[:first] + B + small[first + len(B):]

    def layout(self):
        """Where the broadcast index dims sit in x[index]: (first dim, count)."""
        return _advanced_layout(self.spec, len(self.shape)), len(self.batch_shape())


def _wrap_traced(a, n):
    from ._elementwise import add, less, where
    return where(less(a, 0), add(a, n), a)


def _normalize_concrete(a, n, wrap):
    """(a with negatives wrapped, None if every entry is in bounds else the valid mask)."""
    a = to_host(a)  # (a CuPy index: bounds, repeats and combinations are host work)
    if a.size == 0:
        return a, None
    if a.dtype.kind == "i" and a.view(a.dtype.str.replace("i", "u")).max() < n:
        return a, None  # (one pass: negatives read as huge unsigned values)
    lo, hi = a.min(), a.max()
    if lo < 0 and wrap:
        a = np.where(a < 0, a + n, a)
        lo, hi = a.min(), a.max()
    if lo >= 0 and hi < n:
        return a, None
    return a, (a >= 0) & (a < n)


def _check_mode(mode, what):
    if mode not in _MODES:
        raise ValueError(f"x.at[idx].{what}: mode={mode!r} is not one of 'promise_in_bounds', "
                         "'clip', 'drop', 'fill' (or None)")


def _default_fill(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return True
    if dtype.kind == "i":
        return np.iinfo(dtype).min
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    return np.nan


_aval_shape = shape_of
_dtype = dtype_of


# --------------------------------------------------------------------------- get
def _get(x, index, mode, fill_value, wrap):
    _check_mode(mode, "get")
    if mode == "drop":  # (JAX: a gather has nothing to drop; 'drop' fills, as 'fill')
        mode = "fill"
    x = _as_array(x)
    ix = _Index(_aval_shape(x), index, wrap, "get")
    masks = _valid_masks(ix) if mode == "fill" else []
    ix.clip_traced()
    ix.clip_concrete()
    out = getitem_p.bind(x, *ix.arrays, spec=ix.spec)
    if mode != "fill" or not (ix.int_out or masks):
        return out
    from ._creation import full_like
    from ._elementwise import logical_and, where
    from ._shape import reshape
    fv = _default_fill(_dtype(x)) if fill_value is None else fill_value
    if ix.int_out:
        return full_like(out, fv)
    valid = masks[0]
    for m in masks[1:]:
        valid = logical_and(valid, m)
    first, count = ix.layout()
    B = ix.batch_shape()
    rest = len(_aval_shape(out)) - first - count
    valid = reshape(_broadcast(valid, B), (1,) * first + B + (1,) * rest)
    return where(valid, out, np.asarray(fv).astype(_dtype(x)))


def _valid_masks(ix):
    """The in-bounds masks of the index arrays that have out-of-bounds entries (traced
    arrays: always, as traced masks)."""
    from ._elementwise import greater_equal, less, logical_and
    masks = []
    for a, valid, n in zip(ix.arrays, ix.valid, ix.sizes()):
        if isinstance(a, Tracer):
            a = _wrap_traced(a, n) if ix.wrap else a
            masks.append(logical_and(greater_equal(a, 0), less(a, n)))
        elif valid is not None:
            masks.append(valid)
    return masks


def _broadcast(a, shape):
    from ._shape import broadcast_to
    return broadcast_to(a, shape)


def _as_array(x):
    x = lift(x)
    return x if isinstance(x, Tracer) else _asarray(x)


# --------------------------------------------------------------------------- updates
def _update(kind, x, index, values, *, indices_are_sorted=False, unique_indices=False,
            mode=None, wrap_negative_indices=True):
    _check_mode(mode, kind)
    x = _as_array(x)
    ix = _Index(_aval_shape(x), index, wrap_negative_indices, kind)
    dtype = _dtype(x)
    if mode == "clip":
        ix.int_out = False  # (ints were clamped)
        ix.clip_traced()
        ix.clip_concrete()
        ix.valid = [None] * len(ix.arrays)
    if ix.int_out:  # an integer index out of bounds: every update is dropped
        return x if is_traced(x) else x.copy()
    target = ix.indexed_shape()
    func = values if kind == "apply" else None
    if kind == "apply":
        values = np.broadcast_to(np.zeros((), dtype), target)  # (rounds split it)
    else:
        values = _broadcast_values(kind, _cast_values(kind, lift(values), dtype), target)
    if ix.traced and mode != "clip":
        return _update_padded(kind, x, ix, values, func, unique_indices)
    if any(v is not None for v in ix.valid):
        keep = np.ones(ix.batch_shape(), bool)
        for v in ix.valid:
            if v is not None:
                keep &= v
        ix, values = _take_combos(ix, values, keep)
        if ix is None:
            return x if is_traced(x) else x.copy()
    return _apply(kind, x, ix, values, func, unique_indices)


def _cast_values(kind, v, dtype):
    """`values` in x's dtype: NumPy's assignment casting for set, same-kind for the ufuncs."""
    from ._creation import asarray
    # (`is not None` first: np.dtype("float64") == None is True, NumPy reading None as the
    # default dtype, which left a Python int update an int array for a float64 x)
    vdt = getattr(v, "dtype", None)
    if vdt is not None and vdt == dtype and kind != "divide":
        return v  # (already x's dtype: nothing to check or cast)
    vdt = result_type(v)
    if kind == "set":
        if vdt.kind == "c" and dtype.kind != "c":
            raise TypeError(f"x.at[idx].set: cannot assign complex values ({vdt}) to a real "
                            f"array ({dtype}); take fnp.real(values) first")
    elif not np.can_cast(result_type(np.zeros((), dtype), v), dtype, "same_kind"):
        raise TypeError(f"x.at[idx].{kind}: cannot cast the result of {dtype} and {vdt} "
                        f"values back to x's dtype {dtype} (casting rule 'same_kind', as "
                        f"np.{_UFUNC_NAMES.get(kind, kind)}.at); convert x first, e.g. "
                        f"x.astype(fnp.result_type(x, values))")
    if kind == "divide" and not is_inexact(dtype):
        raise TypeError(f"x.at[idx].divide: x has integer dtype {dtype}, and true division "
                            "gives floats (np.divide.at raises too); convert x to a float "
                            "dtype first, or use floor division on x[idx]")
    return asarray(v, dtype=dtype)


_UFUNC_NAMES = {"add": "add", "subtract": "subtract", "multiply": "multiply",
                "divide": "divide", "power": "power", "min": "minimum", "max": "maximum"}


def _broadcast_values(kind, v, target):
    shape = _aval_shape(v)
    if shape == tuple(target):
        return v
    try:
        np.broadcast_shapes(shape, target)
        ok = np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"x.at[idx].{kind}: values of shape {shape} cannot be broadcast to "
                         f"the indexed shape {tuple(target)} (x[idx].shape)")
    return _broadcast(v, target)


def _take_combos(ix, values, keep):
    """Only the index combinations where `keep` (a concrete mask over the broadcast index
    shape) holds, as 1-D index arrays, and the matching updates. None if none is kept."""
    B = ix.batch_shape()
    if not keep.any():
        return None, None
    first, count = ix.layout()
    positions = np.flatnonzero(keep)
    new = copy.copy(ix)
    new.arrays = [np.broadcast_to(a, B).ravel()[positions] for a in ix.arrays]
    new.valid = [None] * len(new.arrays)
    from ._shape import reshape
    shape = _aval_shape(values)
    n = int(np.prod(B, dtype=np.int64))
    values = reshape(values, shape[:first] + (n,) + shape[first + count:])
    values = getitem(values, (slice(None),) * first + (positions,))
    return new, values


def _ranks(ix):
    """Per index combination (flattened broadcast shape): how many earlier combinations
    name the same position. None when every position is unique."""
    B = ix.batch_shape()
    cols = [np.broadcast_to(a, B).ravel() for a in ix.arrays]
    n = cols[0].size if cols else 0
    if n <= 1:
        return None
    order = np.lexsort(cols[::-1])
    s = [c[order] for c in cols]
    new_group = np.ones(n, bool)
    new_group[1:] = np.logical_or.reduce([c[1:] != c[:-1] for c in s])
    if new_group.all():
        return None
    starts = np.maximum.accumulate(np.where(new_group, np.arange(n), 0))
    ranks = np.empty(n, np.intp)
    ranks[order] = np.arange(n) - starts
    return ranks.reshape(B)


def _apply(kind, x, ix, values, func, unique):
    """Bind the scatter for `kind` on in-bounds index arrays."""
    unique = unique or not ix.arrays
    if kind in ("set", "add", "subtract", "min", "max"):
        return _bind(kind, x, ix, values, unique)
    # multiply-like and apply: repeated positions go one round (of unique positions) at a
    # time, so the derivative with respect to the values is the unique-index one
    rounds = [(ix, values)]
    if not unique and not ix.traced:
        ranks = _ranks(ix)
        if ranks is not None:
            rounds = [_take_combos(ix, values, ranks == r) for r in range(ranks.max() + 1)]
        unique = True
    if kind == "apply" and ix.traced and not unique:
        return _apply_traced_repeats(x, ix, func)
    if kind == "apply":
        for rix, _ in rounds:
            x = scatter_p.bind(x, func(getitem_p.bind(x, *rix.arrays, spec=rix.spec)),
                               *rix.arrays, spec=rix.spec, unique=True)
        return x
    if kind == "multiply":
        for rix, rv in rounds:
            x = scatter_mul_p.bind(x, rv, *rix.arrays, spec=rix.spec, unique=unique)
        return x
    from ._creation import ones_like
    from ._elementwise import divide, power
    factor = ones_like(x)
    for rix, rv in rounds:
        factor = scatter_mul_p.bind(factor, rv, *rix.arrays, spec=rix.spec, unique=unique)
    out = (divide if kind == "divide" else power)(x, factor)
    # (NumPy's power of bools is int8; np.power.at writes it back into the bool array)
    return out if dtype_of(out) == dtype_of(x) else cast(out, dtype_of(x))


def _apply_traced_repeats(x, ix, func):
    """`apply` at traced index arrays that may repeat: a position named k times gets
    `func` k times (JAX's scatter_apply, `np.negative.at`). Each update's position count
    comes from a scatter_add of ones; its gathered value is passed through `func` while
    the round is below its count (a while_loop up to the largest count), and the results,
    equal at repeated positions, are set back."""
    from ..lax.loops import while_loop
    from ._elementwise import greater, where
    from ._reductions import max as amax
    arrays, spec = ix.arrays, ix.spec
    counts = scatter_add_p.bind(np.zeros(_aval_shape(x), np.intp),
                                np.ones(ix.indexed_shape(), np.intp), *arrays, spec=spec)
    c = getitem_p.bind(counts, *arrays, spec=spec)
    top = amax(c, initial=0)

    def body(carry):
        r, z = carry
        return r + 1, where(greater(c, r), func(z), z)

    _, z = while_loop(lambda carry: carry[0] < top, body,
                      (np.intp(0), getitem_p.bind(x, *arrays, spec=spec)))
    return scatter_p.bind(x, cast(z, _dtype(x)), *arrays, spec=spec, unique=False)


def _bind(kind, x, ix, values, unique):
    if kind == "add":
        return scatter_add_p.bind(x, values, *ix.arrays, spec=ix.spec)
    if kind == "subtract":
        from ._elementwise import negative
        return scatter_add_p.bind(x, negative(values), *ix.arrays, spec=ix.spec)
    prim = {"set": scatter_p, "min": scatter_min_p, "max": scatter_max_p}[kind]
    return prim.bind(x, values, *ix.arrays, spec=ix.spec, unique=unique)


def _update_padded(kind, x, ix, values, func, unique):
    """Traced index arrays with out-of-bounds entries dropped: x gets one extra slot at the
    end of every indexed axis, invalid entries point there, and the slot is cut off. The
    slot holds ones, so power/divide stay finite (and warning-free) there."""
    from ._creation import ones
    from ._elementwise import greater_equal, less, logical_and, where
    from ._shape import concatenate
    sizes = ix.sizes()
    shape = list(_aval_shape(x))
    for d in sorted(set(ix.array_axes)):
        pad = list(shape)
        pad[d] = 1
        x = concatenate([x, ones(tuple(pad), _dtype(x))], axis=d)
        shape[d] += 1
    for k, (a, n) in enumerate(zip(ix.arrays, sizes)):
        if isinstance(a, Tracer):
            a = _wrap_traced(a, n) if ix.wrap else a
            ix.arrays[k] = where(logical_and(greater_equal(a, 0), less(a, n)), a, n)
        elif ix.valid[k] is not None:
            ix.arrays[k] = np.where(ix.valid[k], a, n)
    ix.shape = tuple(shape)
    out = _apply(kind, x, ix, values, func, unique)
    sizes_by_axis = dict(zip(ix.array_axes, sizes))
    cut = tuple(slice(0, sizes_by_axis[d]) if d in sizes_by_axis else slice(None)
                for d in range(len(shape)))
    return getitem(out, cut)
