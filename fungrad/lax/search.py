"""`searchsorted`: np.searchsorted as a primitive (fnp.searchsorted on traced values).

`searchsorted(a, v, *, side, nbatch)`: `a` holds `nbatch` leading batch dims and then one
sorted axis; `v` the same `nbatch` leading dims and any others. Per batch entry the result is
`np.searchsorted(a_row, v_entry, side)`, of `v`'s shape, dtype intp. Integer output: no
derivative (a zero tangent). vmap over `v` alone needs nothing (the result follows v's
layout); a batched `a` adds a batch dim, which the impl runs row by row (NumPy has no batched
searchsorted; one binary search per row beats an (n x m) comparison matrix).
"""
from __future__ import annotations

import math

import numpy as np

from ..backend import array_module
from ..core.ir import ShapedArray, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .shape import bdim_at_front

SIDES = ("left", "right")


def _impl(a, v, *, side, nbatch):
    xp = np if type(a) is np.ndarray and type(v) is np.ndarray else array_module(a, v)
    if nbatch == 0:
        return xp.asarray(xp.searchsorted(a, v, side), dtype=np.intp)
    a, v = xp.asarray(a), xp.asarray(v)
    batch = a.shape[:nbatch]
    # (sizes spelled out, not -1: an empty batch, vmap over zero examples, makes -1 ambiguous)
    n = math.prod(batch)
    rows = a.reshape((n, a.shape[-1]))
    vals = v.reshape((n, math.prod(v.shape[nbatch:])))
    out = xp.empty(vals.shape, np.intp)
    for k in range(rows.shape[0]):
        out[k] = xp.searchsorted(rows[k], vals[k], side)
    return out.reshape(batch + v.shape[nbatch:])


def _aval(a, v, *, side, nbatch):
    if a.ndim != nbatch + 1 or v.shape[:nbatch] != a.shape[:nbatch]:
        raise ValueError(f"searchsorted: a ({a.str_short()}) must be 1-D per batch entry and "
                         f"v ({v.str_short()}) share its {nbatch} leading batch dim(s)")
    if side not in SIDES:
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    return ShapedArray(v.shape, np.dtype(np.intp))


def _batch(vals, dims, axis_size, side, nbatch):
    a, v = vals
    da, dv = dims
    if da is None and nbatch == 0:  # one sorted array for all: v's layout is kept
        return searchsorted_p.bind(a, v, side=side, nbatch=0), dv
    a = bdim_at_front(a, da, axis_size)
    v = bdim_at_front(v, dv, axis_size)
    return searchsorted_p.bind(a, v, side=side, nbatch=nbatch + 1), 0


searchsorted_p = Primitive("searchsorted")
searchsorted_p.impl = _impl
searchsorted_p.abstract_eval = _aval
searchsorted_p.jvp = lambda primals, tangents, **kw: (searchsorted_p.bind(*primals, **kw), ZERO)
searchsorted_p.batch = _batch
searchsorted_p.fresh_output = True


def _emit(ctx, ins, out, side, nbatch):
    if nbatch:
        return f"{ctx.const(_impl, 'searchsorted_impl')}({ins[0]}, {ins[1]}, side={side!r}, " \
               f"nbatch={nbatch})"
    return f"np.asarray(np.searchsorted({ins[0]}, {ins[1]}, {side!r}), np.intp)"


searchsorted_p.emit = _emit


def searchsorted(a, v, side: str = "left"):
    """Where `v`'s entries go in the sorted 1-D `a` (np.searchsorted), for traced values.

    Example: `searchsorted(np.array([0.0, 1.0]), x, side="right")`
    """
    if aval_of(a).ndim != 1:
        raise ValueError(f"searchsorted: a must be 1-D, got shape {aval_of(a).shape}")
    return searchsorted_p.bind(a, v, side=side, nbatch=0)


SEARCH_PRIMITIVES = [searchsorted_p]
