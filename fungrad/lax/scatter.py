"""Scatter primitives beyond `scatter_add`: `scatter` (set), `scatter_mul`, `scatter_min`,
`scatter_max`. They back `x.at[idx].set/multiply/divide/power/min/max` (fungrad/numpy/_at.py).

Every scatter here takes `(operand, updates, *index_arrays, spec=, unique=)`: `spec` is
`getitem`'s static index spec (lax/indexing.py), `updates` has exactly the shape of
`operand[spec]` and operand's dtype, and index arrays are in bounds (negative ones count from
the end, as in NumPy; fnp applies JAX's `mode=` before binding). `unique=True` promises that
no position is indexed twice (always true without index arrays); it picks the fast NumPy path
(fancy assignment instead of `ufunc.at`) and the JVP that needs it (`scatter_mul`'s).
Repeated positions: `scatter` keeps the last update (NumPy's fancy assignment), the others
combine all of them (`np.multiply.at`, `np.minimum.at`, `np.maximum.at`).
"""
from __future__ import annotations

import numpy as np

from ..backend import array_module, is_cupy
from ..core.ir import Var, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from ..core.trace import Tracer
from .elementwise import add, convert_element_type, div, eq, mul, select
from .indexing import (build_index, getitem_p, scatter_add_p, scatter_batch,
                       _scatter_add_aval)


def _zeros(x):
    a = aval_of(x)
    return np.zeros(a.shape, a.dtype)


def _instantiate(t, like):
    return _zeros(like) if t is ZERO else t


def _make_scatter(name, combine):
    """A scatter primitive whose impl writes `combine(old, new)` (None: `new`) at the
    indexed positions; with repeats and no `unique` promise it uses `combine.at`."""
    def impl(operand, updates, *arrays, spec, unique):
        idx = build_index(spec, arrays)
        if type(operand) is not np.ndarray:
            xp = array_module(operand, updates)
            if xp is not np:
                return _device_scatter(xp, combine, xp.array(operand), idx, updates,
                                       unique or not arrays)
        out = np.array(operand, copy=True)
        if combine is None:
            out[idx] = updates  # repeated positions: the last update stays (NumPy's rule)
        elif arrays and not unique:
            combine.at(out, idx, updates)
        else:
            out[idx] = combine(out[idx], updates)
        return out

    p = Primitive(name)
    p.impl = impl
    p.abstract_eval = lambda operand, updates, *arrays, spec, unique: _scatter_add_aval(
        operand, updates, *arrays, spec=spec)
    p.batch = scatter_batch(p)
    p.fresh_output = True
    return p


def _device_scatter(xp, combine, out, idx, updates, unique):
    """The scatter on CuPy arrays (`xp`: the cupy module), in place on `out`. CuPy's fancy
    assignment leaves unspecified which update stays at a repeated position, and its
    `ufunc.at` lacks multiply (and computes float64 maxima in float32): repeated positions
    are resolved by one sort of the updates by position instead."""
    updates = xp.asarray(updates)
    if unique:
        out[idx] = updates if combine is None else combine(out[idx], updates)
        return out
    pos = xp.arange(out.size).reshape(out.shape)[idx]
    updates = xp.broadcast_to(updates, pos.shape).ravel()
    pos = pos.ravel()
    n = pos.size
    flat = out.reshape(-1)  # (a view: `out` is a fresh contiguous copy)
    if not n:
        return out
    # sort by position, then by index (min/max: by value, NaN least for min and greatest
    # for max, as np.minimum/np.maximum propagate it): unique keys, so any sort will do
    tie = xp.arange(n)
    if combine is np.minimum or combine is np.maximum:
        v = updates
        if combine is np.minimum and v.dtype.kind in "fc":
            v = xp.where(xp.isnan(v), -np.inf, v)
        tie[xp.argsort(v)] = xp.arange(n)
    order = xp.argsort(pos * n + tie)
    sorted_pos = pos[order]
    if combine is np.multiply:  # every update counts: one round per repeat, in index order
        rank = xp.arange(n) - xp.searchsorted(sorted_pos, sorted_pos, side="left")
        for r in range(int(rank.max()) + 1):
            k = order[rank == r]
            flat[pos[k]] *= updates[k]
        return out
    # one update decides each position: the last (set), the least (min), the greatest (max)
    pick = xp.empty(n, bool)
    if combine is np.minimum:  # the first of each run of a position
        pick[0] = True
        pick[1:] = sorted_pos[1:] != sorted_pos[:-1]
    else:  # the last of each run
        pick[-1] = True
        pick[:-1] = sorted_pos[1:] != sorted_pos[:-1]
    k = order[pick]
    flat[pos[k]] = updates[k] if combine is None else combine(flat[pos[k]], updates[k])
    return out


scatter_p = _make_scatter("scatter", None)
scatter_mul_p = _make_scatter("scatter_mul", np.multiply)
scatter_min_p = _make_scatter("scatter_min", np.minimum)
scatter_max_p = _make_scatter("scatter_max", np.maximum)


# --------------------------------------------------------------------------- scatter (set)
def _scatter_jvp(primals, tangents, spec, unique):
    """Set is linear in (operand, updates) together: the tangent is the same scatter."""
    op, upd, *arrays = primals
    t_op, t_upd = tangents[:2]
    out = scatter_p.bind(op, upd, *arrays, spec=spec, unique=unique)
    if t_op is ZERO and t_upd is ZERO:
        return out, ZERO
    return out, scatter_p.bind(_instantiate(t_op, op), _instantiate(t_upd, upd), *arrays,
                               spec=spec, unique=unique)


def winners(operand_shape, update_shape, arrays, spec):
    """Boolean mask (update-shaped): which updates `scatter` keeps where positions repeat
    (the last of each). Concrete NumPy index arrays are answered by NumPy directly."""
    ids = np.arange(int(np.prod(update_shape, dtype=np.int64))).reshape(update_shape)
    board = np.full(operand_shape, -1, ids.dtype)
    if not any(isinstance(a, Tracer) or is_cupy(a) for a in arrays):
        idx = build_index(spec, arrays)
        board[idx] = ids
        return board[idx] == ids
    board = scatter_p.bind(board, ids, *arrays, spec=spec, unique=False)
    return eq(getitem_p.bind(board, *arrays, spec=spec), ids)


def _scatter_transpose(ct, op, upd, *arrays, spec, unique):
    ct_op = ct_upd = None
    if type(op) is Var:  # the overwritten positions get no cotangent
        ct_op = scatter_p.bind(ct, _zeros(upd), *arrays, spec=spec, unique=unique)
    if type(upd) is Var:
        ct_upd = getitem_p.bind(ct, *arrays, spec=spec)
        if arrays and not unique:  # only the update that stayed gets the cotangent
            ct_upd = select(winners(aval_of(op).shape, aval_of(upd).shape, arrays, spec),
                            ct_upd, 0.0)
    return [ct_op, ct_upd] + [None] * len(arrays)


scatter_p.jvp = _scatter_jvp
scatter_p.transpose = _scatter_transpose


# --------------------------------------------------------------------------- scatter_mul
def _scatter_mul_jvp(primals, tangents, spec, unique):
    """out = operand * (product of the updates at each position). The operand's tangent is
    scattered the same way (linear in it); the updates' needs unique positions:
    d out[p] = operand[p] * t_upd[j] for the one update j at p."""
    op, upd, *arrays = primals
    t_op, t_upd = tangents[:2]
    out = scatter_mul_p.bind(op, upd, *arrays, spec=spec, unique=unique)
    t_out = ZERO
    if t_op is not ZERO:
        t_out = scatter_mul_p.bind(t_op, upd, *arrays, spec=spec, unique=unique)
    if t_upd is not ZERO:
        if arrays and not unique:
            raise NotImplementedError(
                "scatter_mul: the derivative with respect to the updates needs unique indices "
                f"(index {spec!r}): pass unique_indices=True to x.at[idx].multiply/divide/power "
                "if no position repeats, or index with concrete (NumPy) arrays, for which "
                "fnp applies repeated positions one round at a time")
        term = scatter_add_p.bind(_zeros(op), mul(getitem_p.bind(op, *arrays, spec=spec), t_upd),
                                  *arrays, spec=spec)
        t_out = term if t_out is ZERO else add(t_out, term)
    return out, t_out


def _scatter_mul_transpose(ct, op, upd, *arrays, spec, unique):
    if type(upd) is Var:
        raise NotImplementedError("scatter_mul is linear in its operand only")
    return [scatter_mul_p.bind(ct, upd, *arrays, spec=spec, unique=unique), None] + (
        [None] * len(arrays))


scatter_mul_p.jvp = _scatter_mul_jvp
scatter_mul_p.transpose = _scatter_mul_transpose


# --------------------------------------------------------------------------- scatter_min/max
def _as_float(mask, like):
    return convert_element_type(mask, aval_of(like).dtype)


def _extremum_jvp(prim):
    """The derivative flows to the winner: the operand where it stays, else the update that
    won; ties (equal values) share it equally, so repeats and ties need no special case."""
    def jvp(primals, tangents, spec, unique):
        op, upd, *arrays = primals
        t_op, t_upd = tangents[:2]
        out = prim.bind(op, upd, *arrays, spec=spec, unique=unique)
        if t_op is ZERO and t_upd is ZERO:
            return out, ZERO
        kept = _as_float(eq(op, out), op)  # operand-shaped: 1 where the operand stays
        won = _as_float(eq(upd, getitem_p.bind(out, *arrays, spec=spec)), upd)
        count = add(kept, scatter_add_p.bind(_zeros(op), won, *arrays, spec=spec))
        num = mul(_instantiate(t_op, op), kept)
        num = add(num, scatter_add_p.bind(_zeros(op), mul(_instantiate(t_upd, upd), won),
                                          *arrays, spec=spec))
        return out, div(num, count)
    return jvp


scatter_min_p.jvp = _extremum_jvp(scatter_min_p)
scatter_max_p.jvp = _extremum_jvp(scatter_max_p)

SCATTER_PRIMITIVES = [scatter_p, scatter_mul_p, scatter_min_p, scatter_max_p]
