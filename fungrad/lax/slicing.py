"""`select_n` and the dynamic-slice family: slices whose start indices are (traced) values.

Start indices are scalar integer operands, so they may be traced (under `jit`, `vmap`, or
inside `cond`); the slice sizes are static. As in JAX (and XLA), a negative start counts from
the end, and every start is then clamped to `[0, dim - size]`, so a slice is always in
bounds. The clamping lives in the primitives themselves (impl, emit and the batched rules),
so every transform agrees on it.

    >>> import fungrad as fg, numpy as np
    >>> fg.lax.dynamic_slice(np.arange(10.), (8,), (3,))     # start clamped to 7
    array([7., 8., 9.])
"""
from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from ..core.ir import ShapedArray, Var, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from ..core.trace import Tracer
from ..backend import array_module
from .elementwise import (add, convert_element_type, ge, logical_and, lt, maximum, minimum,
                          select, sub)
from .indexing import getitem_p
from .shape import bdim_at_front, linear_in_first_jvp, broadcast_in_dim, reshape

_INDEX = np.dtype(np.int64)  # the dtype batched start indices are computed in


# ----------------------------------------------------------------------------- helpers
def clamp_start(i: int, dim: int, size: int) -> int:
    """A start index as XLA uses it: negative counts from the end, then clamped so that
    `size` elements fit (`clamp_start(-1, 10, 2) == 8`, `clamp_start(9, 10, 3) == 7`)."""
    i = int(i)
    if i < 0:
        i += dim
    return min(max(i, 0), dim - size)


def _slices(starts, shape, sizes):
    return tuple(slice(s, s + k) for s, k in
                 ((clamp_start(i, d, k), k) for i, d, k in zip(starts, shape, sizes)))


def _check_starts(name, operand, starts):
    if len(starts) != operand.ndim:
        raise TypeError(f"{name}: got {len(starts)} start indices for an operand of shape "
                        f"{operand.shape} ({operand.ndim} dims); pass one start index per "
                        "dimension")
    for k, s in enumerate(starts):
        if s.shape != () or s.dtype.kind not in "iu":
            raise TypeError(f"{name}: start index {k} must be an integer scalar, got "
                            f"{s.str_short()}")


def _zeros(aval, like):
    return array_module(like).zeros(aval.shape, aval.dtype)


def _batched_starts(starts, dims, shape, sizes, axis_size):
    """Each start as a (batch,) int64 value, wrapped and clamped like `clamp_start`."""
    out = []
    for s, d, n, k in zip(starts, dims, shape, sizes):
        s = bdim_at_front(s, d, axis_size)
        dt = aval_of(s).dtype
        if dt.kind == "u" and dt.itemsize >= _INDEX.itemsize:
            # (clamp while still unsigned: a uint64 start above the int64 range would wrap
            # to a negative int64, where eager clamps it to the end)
            s = minimum(s, np.full(aval_of(s).shape, max(n - k, 0), dt))
        if dt != _INDEX:
            s = convert_element_type(s, _INDEX)
        s = select(lt(s, 0), add(s, n), s)
        out.append(minimum(maximum(s, 0), n - k))
    return out


def _offsets(start, axis, full):
    """`start` (batch,) broadcast over `full` (batch, *dims) plus an arange along `axis`."""
    iota = np.arange(full[axis + 1], dtype=_INDEX).reshape(
        [-1 if j == axis + 1 else 1 for j in range(len(full))])
    return add(broadcast_in_dim(start, full, (0,)), np.broadcast_to(iota, full))


def _batch_iota(full):
    return np.broadcast_to(np.arange(full[0]).reshape((-1,) + (1,) * (len(full) - 1)), full)


# ----------------------------------------------------------------------------- select_n
def _select_n_aval(which, *cases):
    if not cases:
        raise TypeError("select_n: needs at least one case")
    c0 = cases[0]
    for k, c in enumerate(cases[1:], 1):
        if c.shape != c0.shape or c.dtype != c0.dtype:
            raise TypeError(f"select_n: every case must have the shape and dtype of case 0 "
                            f"({c0.str_short()}), but case {k} is {c.str_short()}")
    if which.shape not in ((), c0.shape):
        raise TypeError(f"select_n: `which` must be a scalar or have the cases' shape "
                        f"{c0.shape}, got {which.str_short()}")
    if which.dtype == np.bool_:
        if len(cases) > 2:
            raise TypeError(f"select_n: a bool `which` selects between 2 cases, got "
                            f"{len(cases)}; pass an integer `which`")
    elif which.dtype.kind not in "iu":
        raise TypeError(f"select_n: `which` must be bool or integer, got {which.str_short()}")
    return ShapedArray(c0.shape, c0.dtype, all(c.weak_type for c in cases))


_CHOOSE_MAX = 32  # np.choose takes at most 32 (NumPy 1) / 64 (NumPy 2) choices


def _select_n_np(which, cases):
    """`np.choose(which, cases, mode="clip")` for any number of cases and any integer
    dtype of `which` (np.choose cannot cast uint64 to intp)."""
    which = np.asarray(which)
    idx = np.minimum(which, len(cases) - 1)  # (clip in `which`'s own dtype: no wrap-around)
    if which.dtype.kind == "i":
        idx = np.maximum(idx, 0)
    idx = np.broadcast_to(idx.astype(np.intp), np.shape(cases[0]))
    return np.take_along_axis(np.stack(cases), idx[None], axis=0)[0]


def _select_n_impl(which, *cases):
    xp = array_module(which, *cases)
    if len(cases) == 1:
        return xp.array(cases[0], copy=True)
    if getattr(which, "dtype", None) == np.bool_ or type(which) is bool:
        return xp.where(which, cases[1], cases[0])
    if xp is np:
        if len(cases) <= _CHOOSE_MAX and np.asarray(which).dtype != np.uint64:
            return np.choose(which, cases, mode="clip")
        return _select_n_np(which, cases)
    # CuPy's choose takes no sequence of arrays: the case of the largest k <= which (as
    # clipped), one `where` per case
    which, out = xp.asarray(which), cases[0]
    for k in range(1, len(cases)):
        out = xp.where(which >= k, cases[k], out)
    return out


select_n_p = Primitive("select_n")
select_n_p.impl = _select_n_impl
select_n_p.abstract_eval = _select_n_aval
select_n_p.fresh_output = True


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    out = select_n_p.bind(which, *cases)
    ts = tangents[1:]
    if all(t is ZERO for t in ts):
        return out, ZERO
    a = aval_of(cases[0])
    zeros = np.zeros(a.shape, a.dtype)
    return out, select_n_p.bind(which, *[zeros if t is ZERO else t for t in ts])


def _select_n_transpose(ct, which, *cases):
    zeros = _zeros(aval_of(ct), ct)
    out = [None]
    for k, c in enumerate(cases):
        if type(c) is not Var:
            out.append(None)
            continue
        picks = [zeros] * len(cases)
        picks[k] = ct
        out.append(select_n_p.bind(which, *picks))
    return out


def _select_n_batch(vals, dims, axis_size):
    which, *cases = vals
    dw, *dcases = dims
    cases = [bdim_at_front(c, d, axis_size) for c, d in zip(cases, dcases)]
    full = aval_of(cases[0]).shape
    if dw is not None or aval_of(which).shape != ():
        which = bdim_at_front(which, dw, axis_size)
        if aval_of(which).shape != full:  # a scalar per example
            which = broadcast_in_dim(which, full, (0,))
    return select_n_p.bind(which, *cases), 0


def _select_n_emit(ctx, ins, out, **params):
    which, cases = ins[0], ins[1:]
    if len(cases) == 1:
        return f"np.array({cases[0]})"
    if ctx.in_avals[0].dtype == np.bool_:
        return f"np.where({which}, {cases[1]}, {cases[0]})"
    if ctx.array_module is np and len(cases) <= _CHOOSE_MAX \
            and ctx.in_avals[0].dtype != np.uint64:
        return f"np.choose({which}, ({', '.join(cases)},), mode='clip')"
    return f"{ctx.const(_select_n_impl, 'select_n_impl')}({', '.join(ins)})"  # (CuPy: no choose)


select_n_p.jvp = _select_n_jvp
select_n_p.transpose = _select_n_transpose
select_n_p.batch = _select_n_batch
select_n_p.emit = _select_n_emit


def _as_operand(x):
    return x if isinstance(x, Tracer) or hasattr(x, "dtype") and hasattr(x, "shape") \
        else np.asarray(x)


def select_n(which, *cases):
    """`cases[which]`, elementwise: JAX's `lax.select_n`.

    `which` is a scalar or an array of the cases' shape; bool (two cases: False picks
    `cases[0]`) or integer (out-of-range values are clamped). The cases must have one
    shape and dtype. Every case is computed; only values are selected, so gradients flow
    to the selected case only.

    Example:
        >>> fg.lax.select_n(np.array([0, 1, 2]), np.zeros(3), np.ones(3), np.full(3, 2.))
        array([0., 1., 2.])
    """
    if not cases:
        raise TypeError("select_n() needs at least one case: select_n(which, case0, ...)")
    args = [_as_operand(which)] + [_as_operand(c) for c in cases]
    _select_n_aval(*map(aval_of, args))  # (eagerly too: impl does not check)
    return select_n_p.bind(*args)


# ----------------------------------------------------------------------------- dynamic_slice
def _dynamic_slice_aval(operand, *starts, slice_sizes):
    _check_starts("dynamic_slice", operand, starts)
    if len(slice_sizes) != operand.ndim or any(
            not 0 <= k <= d for k, d in zip(slice_sizes, operand.shape)):
        raise TypeError(f"dynamic_slice: slice_sizes {tuple(slice_sizes)} must have one size "
                        f"per dimension of the operand {operand.str_short()}, each between 0 "
                        "and that dimension")
    return ShapedArray(tuple(slice_sizes), operand.dtype)


def _dynamic_slice_impl(operand, *starts, slice_sizes):
    return operand[_slices(starts, operand.shape, slice_sizes)].copy()


dynamic_slice_p = Primitive("dynamic_slice")
dynamic_slice_p.impl = _dynamic_slice_impl
dynamic_slice_p.abstract_eval = _dynamic_slice_aval
dynamic_slice_p.fresh_output = True


def _dynamic_slice_transpose(ct, operand, *starts, slice_sizes):
    zeros = _zeros(operand.aval, ct)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


def _dynamic_slice_batch(vals, dims, axis_size, slice_sizes):
    x, *starts = vals
    dx, *dstarts = dims
    x = bdim_at_front(x, dx, axis_size)
    shape = aval_of(x).shape[1:]
    if all(d is None for d in dstarts):  # one slice for all examples: keep the whole batch
        return dynamic_slice_p.bind(x, 0, *starts, slice_sizes=(axis_size,) + tuple(
            slice_sizes)), 0
    # a start per example: gather x[b, s0[b] + i0, s1[b] + i1, ...]
    full = (axis_size,) + tuple(slice_sizes)
    starts = _batched_starts(starts, dstarts, shape, slice_sizes, axis_size)
    index = [_batch_iota(full)] + [_offsets(s, a, full) for a, s in enumerate(starts)]
    spec = tuple(("array", k) for k in range(len(index)))
    return getitem_p.bind(x, *index, spec=spec), 0


def _dynamic_slice_emit(ctx, ins, out, slice_sizes):
    shape = ctx.in_avals[0].shape
    fn = ctx.const(_slices, "slices")
    return (f"{ins[0]}[{fn}(({''.join(p + ', ' for p in ins[1:])}), {ctx.value(shape)}, "
            f"{ctx.value(tuple(slice_sizes))})].copy()")


dynamic_slice_p.jvp = linear_in_first_jvp(dynamic_slice_p)
dynamic_slice_p.transpose = _dynamic_slice_transpose
dynamic_slice_p.batch = _dynamic_slice_batch
dynamic_slice_p.emit = _dynamic_slice_emit


# ----------------------------------------------------------------------------- dynamic_update_slice
def _dynamic_update_slice_aval(operand, update, *starts):
    _check_starts("dynamic_update_slice", operand, starts)
    if (update.ndim != operand.ndim or update.dtype != operand.dtype
            or any(u > d for u, d in zip(update.shape, operand.shape))):
        raise TypeError(f"dynamic_update_slice: the update {update.str_short()} must have the "
                        f"operand's dtype and number of dimensions and fit inside it "
                        f"({operand.str_short()})")
    return ShapedArray(operand.shape, operand.dtype)


def _dynamic_update_slice_impl(operand, update, *starts):
    out = operand.copy()
    out[_slices(starts, operand.shape, update.shape)] = update
    return out


dynamic_update_slice_p = Primitive("dynamic_update_slice")
dynamic_update_slice_p.impl = _dynamic_update_slice_impl
dynamic_update_slice_p.abstract_eval = _dynamic_update_slice_aval
dynamic_update_slice_p.fresh_output = True


def _dynamic_update_slice_jvp(primals, tangents):
    x, u, *starts = primals
    tx, tu = tangents[:2]
    out = dynamic_update_slice_p.bind(x, u, *starts)
    if tx is ZERO and tu is ZERO:
        return out, ZERO
    tx = np.zeros(aval_of(x).shape, aval_of(x).dtype) if tx is ZERO else tx
    tu = np.zeros(aval_of(u).shape, aval_of(u).dtype) if tu is ZERO else tu
    return out, dynamic_update_slice_p.bind(tx, tu, *starts)


def _dynamic_update_slice_transpose(ct, operand, update, *starts):
    ua = aval_of(update)
    ct_op = (dynamic_update_slice_p.bind(ct, _zeros(ua, ct), *starts)
             if type(operand) is Var else None)
    ct_up = (dynamic_slice_p.bind(ct, *starts, slice_sizes=tuple(ua.shape))
             if type(update) is Var else None)
    return [ct_op, ct_up] + [None] * len(starts)


def _dynamic_update_slice_batch(vals, dims, axis_size):
    x, u, *starts = vals
    dx, du, *dstarts = dims
    x = bdim_at_front(x, dx, axis_size)
    u = bdim_at_front(u, du, axis_size)
    if all(d is None for d in dstarts):
        return dynamic_update_slice_p.bind(x, u, 0, *starts), 0
    # a start per example: out = where(inside the update's window, update gathered at
    # (position - start), x); the gather index is clipped where the mask is off
    full = aval_of(x).shape
    usizes = aval_of(u).shape[1:]
    if 0 in usizes:  # an empty update writes nothing (and there is nothing to gather from)
        return dynamic_update_slice_p.bind(x, u, 0, *[0] * len(usizes)), 0
    starts = _batched_starts(starts, dstarts, full[1:], usizes, axis_size)
    mask = None
    index = [_batch_iota(full)]
    for a, (s, k) in enumerate(zip(starts, usizes)):
        rel = _relative(s, a, full)
        inside = logical_and(ge(rel, 0), lt(rel, k))
        mask = inside if mask is None else logical_and(mask, inside)
        index.append(minimum(maximum(rel, 0), max(k - 1, 0)))
    spec = tuple(("array", k) for k in range(len(index)))
    placed = getitem_p.bind(u, *index, spec=spec)
    return select(mask, placed, x), 0


def _relative(start, axis, full):
    """position along `axis` minus the example's start, over `full` (batch, *dims)."""
    iota = np.arange(full[axis + 1], dtype=_INDEX).reshape(
        [-1 if j == axis + 1 else 1 for j in range(len(full))])
    return sub(np.broadcast_to(iota, full), broadcast_in_dim(start, full, (0,)))


dynamic_update_slice_p.jvp = _dynamic_update_slice_jvp
dynamic_update_slice_p.transpose = _dynamic_update_slice_transpose
dynamic_update_slice_p.batch = _dynamic_update_slice_batch

SLICING_PRIMITIVES = [select_n_p, dynamic_slice_p, dynamic_update_slice_p]


# ----------------------------------------------------------------------------- public functions
def _starts(name, operand, start_indices):
    if isinstance(start_indices, (Tracer, np.ndarray)):
        nd = aval_of(start_indices).ndim
        if nd != 1:
            raise TypeError(f"{name}: start_indices given as an array must be 1-d (one start "
                            f"per dimension of the operand), got "
                            f"{aval_of(start_indices).str_short()}")
        start_indices = list(start_indices)  # (an index array: one start per element)
    # (Python ints stay weak scalars: jit writes them into the code as literals)
    starts = [s if type(s) is int else _as_operand(s) for s in start_indices]
    nd = aval_of(operand).ndim
    if len(starts) != nd:
        raise TypeError(f"{name}: start_indices has {len(starts)} entries, but the operand has "
                        f"shape {aval_of(operand).shape} ({nd} dims); pass one start index per "
                        "dimension")
    return starts


def _static_sizes(slice_sizes):
    try:
        return tuple(operator.index(k) for k in slice_sizes)
    except TypeError:
        raise TypeError(f"dynamic_slice: slice_sizes must be a sequence of Python (or NumPy) "
                        f"ints known at trace time, got {slice_sizes!r}; the sizes are static "
                        "(only the start indices may be traced)") from None


def dynamic_slice(operand, start_indices: Sequence, slice_sizes: Sequence[int]):
    """`operand[s0:s0+k0, s1:s1+k1, ...]` for start indices that may be traced.

    A negative start counts from the end; starts are clamped so the slice fits (as XLA).

    Example:
        >>> fg.lax.dynamic_slice(np.arange(10.), (-3,), (2,))
        array([7., 8.])
    """
    operand = _as_operand(operand)
    starts = _starts("dynamic_slice", operand, start_indices)
    sizes = _static_sizes(slice_sizes)
    _dynamic_slice_aval(*map(aval_of, [operand] + starts), slice_sizes=sizes)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)


def dynamic_update_slice(operand, update, start_indices: Sequence):
    """A copy of `operand` with `update` written at the (possibly traced) start indices.

    Starts wrap and clamp like `dynamic_slice`'s, so the update always fits.

    Example:
        >>> fg.lax.dynamic_update_slice(np.zeros(4), np.ones(2), (3,))
        array([0., 0., 1., 1.])
    """
    operand, update = _as_operand(operand), _as_operand(update)
    starts = _starts("dynamic_update_slice", operand, start_indices)
    _dynamic_update_slice_aval(*map(aval_of, [operand, update] + starts))
    return dynamic_update_slice_p.bind(operand, update, *starts)


def _axis(name, axis, ndim):
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"{name}: axis must be an integer, got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of range for an operand with {ndim} dims")
    return axis % ndim


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0):
    """`dynamic_slice` along one axis: `slice_size` elements from `start_index`.

    Example:
        >>> fg.lax.dynamic_slice_in_dim(np.ones((3, 4)), 1, 2, axis=1).shape
        (3, 2)
    """
    operand = _as_operand(operand)
    shape = aval_of(operand).shape
    axis = _axis("dynamic_slice_in_dim", axis, len(shape))
    starts = [0] * len(shape)
    starts[axis] = start_index
    sizes = list(shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True):
    """Element `index` (possibly traced) along `axis`; keeps that axis (size 1) by default.

    Example:
        >>> fg.lax.dynamic_index_in_dim(np.arange(5.), -1, keepdims=False)
        array(4.)
    """
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    if keepdims:
        return out
    shape = aval_of(out).shape
    axis = axis % len(shape)
    return reshape(out, shape[:axis] + shape[axis + 1:])


__all__ = ["select_n", "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
           "dynamic_index_in_dim", "clamp_start"]
