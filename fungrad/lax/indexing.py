"""Indexing primitives: `getitem` (basic and integer-array indexing) and its transpose
`scatter_add`.

The index is a static `spec` (a tuple, hashable for jit) in which integer-array entries are
placeholders `("array", k)` for the k-th array operand, so the arrays themselves can be
traced values. Other entries: `("slice", start, stop, step)`, `("int", i)`, `None`, `...`.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..backend import array_module
from ..core.ir import ShapedArray, Var, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .shape import bdim_at_front, linear_in_first_jvp, reshape, transpose


def build_index(spec, arrays):
    out = []
    for s in spec:
        if s is None or s is Ellipsis:
            out.append(s)
        elif s[0] == "slice":
            out.append(slice(s[1], s[2], s[3]))
        elif s[0] == "int":
            out.append(s[1])
        else:
            out.append(arrays[s[1]])
    return tuple(out)


@lru_cache(maxsize=None)
def take_axis(spec):
    """k when `x[spec]` is `np.take(x, arrays[0], axis=k)`: k full slices, then the only
    index array, then nothing but full slices; else None. (np.take skips fancy indexing's
    index preparation: up to 2x faster gathers, benchmarks/scatter.py.)"""
    kinds = ["full" if s == _FULL else "array" if s == ("array", 0) else "other" for s in spec]
    if kinds.count("array") != 1 or "other" in kinds:
        return None
    return kinds.index("array")


def _is_int_array(a) -> bool:
    return type(a) is np.ndarray and a.dtype.kind in "iu"


def _getitem_impl(x, *arrays, spec):
    if len(arrays) == 1 and type(x) is np.ndarray and _is_int_array(arrays[0]):
        axis = take_axis(spec)
        if axis is not None:
            return np.take(x, arrays[0], axis=axis)
    return x[build_index(spec, arrays)]


def _getitem_aval(x, *arrays, spec):
    dummy = np.broadcast_to(np.empty((), x.dtype), x.shape)
    idx = [np.zeros(a.shape, a.dtype) for a in arrays]
    try:
        shape = np.shape(dummy[build_index(spec, idx)])
    except IndexError as e:
        raise IndexError(f"getitem: index {spec_repr(spec)} is invalid for an array of shape "
                         f"{x.shape}: {e}") from None
    return ShapedArray(shape, x.dtype)


def spec_repr(spec):
    def one(s):
        if s is None:
            return "None"
        if s is Ellipsis:
            return "..."
        if s[0] == "slice":
            return ":".join("" if v is None else str(v) for v in s[1:3]) + (
                f":{s[3]}" if s[3] is not None else "")
        if s[0] == "int":
            return str(s[1])
        return f"<array {s[1]}>"
    return "[" + ", ".join(one(s) for s in spec) + "]"


getitem_p = Primitive("getitem")
getitem_p.impl = _getitem_impl
getitem_p.abstract_eval = _getitem_aval


def getitem(x, arrays, spec):
    return getitem_p.bind(x, *arrays, spec=tuple(spec))


def _getitem_transpose(ct, x, *arrays, spec):
    a = x.aval
    zeros = array_module(ct).zeros(a.shape, a.dtype)
    return [scatter_add_p.bind(zeros, ct, *arrays, spec=spec)] + [None] * len(arrays)


getitem_p.jvp = linear_in_first_jvp(getitem_p)
getitem_p.transpose = _getitem_transpose


# --------------------------------------------------------------------------- scatter_add
def _scatter_add_impl(operand, updates, *arrays, spec):
    if type(operand) is not np.ndarray:
        xp = array_module(operand, updates)
        if xp is not np:
            out = xp.array(operand)  # (a copy)
            add_at(xp, out, build_index(spec, arrays), updates)
            return out
    if len(arrays) == 1 and spec == _ONE_ARRAY and _is_float64_vector(operand):
        out = _scatter_add_vector(operand, updates, arrays[0])
        if out is not None:
            return out
    idx = build_index(spec, arrays)
    if arrays and _bincount_pays(operand, updates, arrays):
        return _scatter_add_bincount(operand, updates, idx)
    out = np.array(operand, copy=True)
    if arrays:
        np.add.at(out, idx, updates)  # repeated indices accumulate
    else:
        out[idx] += updates  # basic indexing never repeats a position
    return out


_ONE_ARRAY = (("array", 0),)


def _is_float64_vector(x) -> bool:
    return type(x) is np.ndarray and x.ndim == 1 and x.dtype == np.float64


def _scatter_add_vector(operand, updates, index):
    """`operand` plus the updates summed per position, for a 1-D float64 operand and one
    index array, by np.bincount (a fraction faster than np.add.at's 1-D loop, and the
    same sums: repeated positions accumulate). None where bincount cannot take the index
    (negative entries, a dtype it will not cast to intp): the caller falls back."""
    n = operand.shape[0]
    if not _is_int_array(index) or np.shape(updates) != index.shape or not index.size:
        return None  # (bincount of no indices is an int64 array, weights or not)
    try:
        sums = np.bincount(index.ravel(), weights=np.ravel(updates), minlength=n)
    except (ValueError, TypeError):  # negative indices, uint64
        return None
    if sums.shape[0] != n:  # an index past the end: np.add.at raises the IndexError
        return None
    sums += operand
    return sums


def _bincount_pays(operand, updates, arrays) -> bool:
    """np.add.at adds one element at a time unless each index picks a single element
    (NumPy 2 has a fast 1-D loop); for index arrays that pick rows of float64 values,
    np.bincount over flat positions is 2-3x faster (benchmarks/scatter.py), as long as the
    operand is not much larger than the updates (bincount writes every position)."""
    if (getattr(operand, "dtype", None) != np.float64 or type(updates) is not np.ndarray
            or updates.dtype != np.float64):
        return False
    n_index = int(np.prod(np.broadcast_shapes(*(np.shape(a) for a in arrays)), dtype=np.int64))
    return updates.size >= 2 * max(n_index, 1) and 2 * updates.size >= operand.size


def _scatter_add_bincount(operand, updates, idx):
    """operand + (sum of the updates at each flat position), the sums by np.bincount."""
    shape = np.shape(operand)
    positions = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)[idx]
    out = np.bincount(positions.ravel(), weights=np.ravel(updates),
                      minlength=np.size(operand))
    out = out.reshape(shape)
    out += operand
    return out


# CuPy's scatter-add (atomicAdd) takes only these dtypes (cupyx.scatter_add's docs)
_CUPY_ADD_AT = frozenset(map(np.dtype, (np.float16, np.float32, np.float64, np.int32,
                                        np.uint32, np.uint64)))
# others add in a wider (or same-size unsigned: the same bits wrap alike) dtype
_CUPY_ADD_AS = {np.dtype(np.int64): np.dtype(np.uint64), np.dtype(np.int8): np.dtype(np.int32),
                np.dtype(np.int16): np.dtype(np.int32), np.dtype(np.uint8): np.dtype(np.uint32),
                np.dtype(np.uint16): np.dtype(np.uint32), np.dtype(np.bool_): np.dtype(np.int32)}


def add_at(xp, out, idx, updates):
    """`np.add.at(out, idx, updates)` on CuPy arrays (`xp`, the cupy module): in place,
    repeated positions accumulating; basic indices never repeat a position."""
    if not any(isinstance(i, xp.ndarray) or type(i) is np.ndarray for i in idx):
        out[idx] += updates
        return
    dt = out.dtype
    updates = xp.asarray(updates)
    if dt in _CUPY_ADD_AT:
        xp.add.at(out, idx, updates.astype(dt, copy=False))
    elif dt.kind == "c":  # the real and imaginary parts separately (views of `out`)
        updates = updates.astype(dt, copy=False)
        xp.add.at(out.real, idx, updates.real)
        xp.add.at(out.imag, idx, updates.imag)
    elif dt not in _CUPY_ADD_AS:
        raise TypeError(f"scatter_add: CuPy arrays of dtype {dt} are not supported")
    elif dt.itemsize == _CUPY_ADD_AS[dt].itemsize:  # int64 as uint64: two's complement
        wide = _CUPY_ADD_AS[dt]
        xp.add.at(out.view(wide), idx, updates.astype(dt, copy=False).view(wide))
    else:  # narrow ints and bools: add in 32 bits, cast back (wrapping; bool: any)
        wide = out.astype(_CUPY_ADD_AS[dt])
        xp.add.at(wide, idx, updates.astype(wide.dtype))
        out[...] = wide != 0 if dt == np.bool_ else wide.astype(dt)


def _scatter_add_aval(operand, updates, *arrays, spec):
    return operand


scatter_add_p = Primitive("scatter_add")
scatter_add_p.impl = _scatter_add_impl
scatter_add_p.abstract_eval = _scatter_add_aval


def _scatter_add_jvp(primals, tangents, spec):
    op, upd, *arrays = primals
    t_op, t_upd = tangents[:2]
    out = scatter_add_p.bind(op, upd, *arrays, spec=spec)
    if t_op is ZERO and t_upd is ZERO:
        return out, ZERO
    if t_op is ZERO:
        t_op = np.zeros(aval_of(op).shape, aval_of(op).dtype)
    if t_upd is ZERO:
        t_upd = np.zeros(aval_of(upd).shape, aval_of(upd).dtype)
    return out, scatter_add_p.bind(t_op, t_upd, *arrays, spec=spec)


def _scatter_add_transpose(ct, op, upd, *arrays, spec):
    return ([ct if type(op) is Var else None,
             getitem_p.bind(ct, *arrays, spec=spec) if type(upd) is Var else None]
            + [None] * len(arrays))


scatter_add_p.jvp = _scatter_add_jvp
scatter_add_p.transpose = _scatter_add_transpose


def slice_along(x, axis, start, stop):
    """x[..., start:stop, ...] along `axis` (a getitem)."""
    spec = (("slice", None, None, None),) * axis + (("slice", start, stop, None),)
    return getitem_p.bind(x, spec=spec)


INDEXING_PRIMITIVES = [getitem_p, scatter_add_p]


# --------------------------------------------------------------------------- batching
_FULL = ("slice", None, None, None)


def _is_advanced(s):
    return isinstance(s, tuple) and s[0] in ("array", "int")


def _advanced_layout(spec, ndim):
    """Where NumPy puts the advanced-index dims of `x[spec]` (x has `ndim` dims).

    Returns the number of output dims before them: 0 when the advanced entries are not
    adjacent (NumPy moves them to the front), else the dims produced by the entries before.
    """
    adv = [i for i, s in enumerate(spec) if _is_advanced(s)]
    if adv != list(range(adv[0], adv[-1] + 1)):
        return 0
    consumed = sum(1 for s in spec if s is not None and s is not Ellipsis)
    # before the first advanced entry there are only None, slices and an Ellipsis
    return sum(ndim - consumed if s is Ellipsis else 1 for s in spec[:adv[0]])


def _batched_index(x, dx, arrays, darrays, spec, axis_size):
    """Batched operand, index arrays and spec such that `x[spec']` has the batch first.

    Returns (x, arrays, spec, layout): `layout` (or None) says how to turn the result of
    x[spec'] into the per-example layout with the batch in front (see `_layout_order`).
    """
    x = bdim_at_front(x, dx, axis_size)
    if not arrays:
        return x, [], (_FULL,) + tuple(spec), None
    nd = max(aval_of(a).ndim - (d is not None) for a, d in zip(arrays, darrays))
    new = [np.arange(axis_size).reshape((axis_size,) + (1,) * nd)]
    for a, d in zip(arrays, darrays):
        shape = aval_of(a).shape
        if d is None:
            new.append(reshape(a, (1,) * (nd - len(shape) + 1) + shape))
        else:
            a = bdim_at_front(a, d, axis_size)
            new.append(reshape(a, (axis_size,) + (1,) * (nd - len(shape) + 1) + shape[:d]
                               + shape[d + 1:]))
    shifted = tuple(("array", s[1] + 1) if isinstance(s, tuple) and s[0] == "array" else s
                    for s in spec)
    # x[arange, *spec] puts the batch and the advanced dims first; per example the advanced
    # dims sat after `before` other dims: the caller moves them back
    before = _advanced_layout(spec, aval_of(x).ndim - 1)
    return x, new, (("array", 0),) + shifted, (nd, before) if before else None


def _layout_order(y, layout):
    """The transpose from x[arange, *spec]'s layout to the batched per-example layout."""
    nd, before = layout
    total = aval_of(y).ndim
    return ([0] + [1 + nd + i for i in range(before)] + [1 + j for j in range(nd)]
            + list(range(1 + nd + before, total)))


def _getitem_batch(vals, dims, axis_size, spec):
    x, *arrays = vals
    dx, *darrays = dims
    x, arrays, spec2, perm = _batched_index(x, dx, arrays, darrays, spec, axis_size)
    y = getitem_p.bind(x, *arrays, spec=spec2)
    if perm is not None:
        y = transpose(y, _layout_order(y, perm))
    return y, 0


def scatter_batch(prim):
    """The batching rule of a scatter `prim(operand, updates, *arrays, spec, **params)`:
    the batch becomes a leading index `arange` (positions of different examples never
    collide, so `unique` and the other params carry over)."""
    bind = prim.bind

    def batch(vals, dims, axis_size, spec, **params):
        op, upd, *arrays = vals
        dop, dupd, *darrays = dims
        op = bdim_at_front(op, dop, axis_size)
        upd = bdim_at_front(upd, dupd, axis_size)
        op, arrays, spec2, perm = _batched_index(op, 0, arrays, darrays, spec, axis_size)
        if perm is not None:
            upd = transpose(upd, tuple(np.argsort(_layout_order(upd, perm))))
        return bind(op, upd, *arrays, spec=spec2, **params), 0
    return batch


getitem_p.batch = _getitem_batch
scatter_add_p.batch = scatter_batch(scatter_add_p)


# --------------------------------------------------------------------------- jit codegen
def _index_source(spec, arrays):
    parts = []
    for s in spec:
        if s is None:
            parts.append("None")
        elif s is Ellipsis:
            parts.append("...")
        elif s[0] == "slice":
            parts.append(":".join("" if v is None else repr(v) for v in s[1:3])
                         + ("" if s[3] is None else f":{s[3]!r}"))
        elif s[0] == "int":
            parts.append(repr(s[1]))
        else:
            parts.append(arrays[s[1]])
    return ", ".join(parts) + ("," if len(parts) == 1 else "")


def _getitem_emit(ctx, ins, out, spec):
    axis = take_axis(spec) if len(ins) == 2 else None
    if axis is not None and ctx.in_avals[1].dtype.kind in "iu" and ctx.in_avals[0].ndim:
        return f"np.take({ins[0]}, {ins[1]}, axis={axis})"  # (see take_axis)
    return f"{ins[0]}[{_index_source(spec, ins[1:]) or '()'}]"  # (x[()]: an empty index)


getitem_p.emit = _getitem_emit
# NumPy copies for index arrays (advanced indexing); basic indexing gives a view
getitem_p.fresh_output = lambda eqn: len(eqn.inputs) > 1
scatter_add_p.fresh_output = True
