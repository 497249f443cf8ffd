"""Reductions over static `axes`: sum, max, min, prod, argmax, argmin."""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from ..core.ir import Eqn, Literal, ShapedArray, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .elementwise import (add, convert_element_type, div, eq, mul, mul_p)
from .shape import broadcast_in_dim, broadcast_in_dim_p
from ..compiler.passes import can_stand_for, simplify_rules
from ..core.dtypes import is_inexact


def _reduced_shape(shape, axes):
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _reduce_aval(x, axes):
    return ShapedArray(_reduced_shape(x.shape, axes), x.dtype)


def _keep_back(y, x_shape, axes):
    """Broadcast a reduced value back to the operand's shape."""
    kept = tuple(i for i in range(len(x_shape)) if i not in axes)
    return broadcast_in_dim(y, x_shape, kept)


# A reduction over a few positions of outer axes (pooling windows: (N, H/2, 2, W/2, 2, C)
# summed or maxed over the 2s) is 3-4x faster as a chain of binary ufuncs over strided
# slices than as NumPy's reduce, which walks the small axes innermost.
_UNROLL_MAX_POSITIONS = 8
_UNROLL_MIN_SIZE = 1 << 14


def _unrolls(shape, dtype, axes) -> bool:
    positions = math.prod(shape[a] for a in axes)
    return (bool(axes) and np.dtype(dtype).kind in "fciu" and 2 <= positions <= _UNROLL_MAX_POSITIONS and len(shape) - 1 not in axes
            and math.prod(shape) >= _UNROLL_MIN_SIZE)


def _unrolled_reduce(x, axes, combine):
    """`combine.reduce` of x over `axes` (outer, few positions) as a chain of `combine`
    calls over x's slices, accumulated in one output buffer."""
    def part(position):
        index = [slice(None)] * x.ndim
        for a, i in zip(axes, position):
            index[a] = i
        return x[tuple(index)]
    positions = itertools.product(*(range(x.shape[a]) for a in axes))
    out = combine(part(next(positions)), part(next(positions)))
    for position in positions:
        combine(out, part(position), out=out)
    return out


def _make(name, impl, abstract_eval=_reduce_aval):
    p = Primitive(name)
    p.impl = impl
    p.abstract_eval = abstract_eval
    return p


# A sum over leading axes of a C-contiguous (k, m) float block (a bias gradient: (N, H, W, C)
# summed to (C,)) is a product with a vector of ones: BLAS's gemv runs 2-15x faster than
# NumPy's reduce, which adds row after row in an inner loop of m elements, and it is no
# less accurate (both accumulate each column in order; gemv in blocks). m == 1 stays with
# NumPy, whose contiguous sum is pairwise.
_GEMV_MIN_ROWS = 16
_ONES_CACHED_ROWS = 1 << 16


def _sums_by_product(shape, dtype, axes) -> bool:
    k = len(axes)
    return (np.dtype(dtype) in (np.float32, np.float64) and 0 < k < len(shape)
            and tuple(axes) == tuple(range(k)) and math.prod(shape[:k]) >= _GEMV_MIN_ROWS
            and math.prod(shape[k:]) >= 2)


def _ones(k, dtype):
    return _cached_ones(k, dtype) if k <= _ONES_CACHED_ROWS else np.ones(k, dtype)


@functools.lru_cache(maxsize=64)
def _cached_ones(k, dtype):
    ones = np.ones(k, dtype)
    ones.flags.writeable = False
    return ones


def _leading_sum(x, axes):
    """x summed over its leading `axes` (`_sums_by_product` holds): ones @ x as a matrix
    when x is C-contiguous, else NumPy's reduce."""
    if not x.flags.c_contiguous:
        return np.add.reduce(x, axes, x.dtype)
    k = math.prod(x.shape[:len(axes)])
    return np.matmul(_ones(k, x.dtype), x.reshape(k, -1)).reshape(x.shape[len(axes):])


# sum: linear
def _sum_impl(x, axes):
    # array methods, not np.sum & co: one Python layer less, and CuPy arrays have them too
    shape = x.shape
    for a in axes:
        if shape[a] != 1:
            if type(x) is np.ndarray:
                if _unrolls(shape, x.dtype, axes):
                    return _unrolled_reduce(x, axes, np.add)
                if _sums_by_product(shape, x.dtype, axes):
                    return _leading_sum(x, axes)
            return x.sum(axis=axes, dtype=x.dtype)
    # only length-1 axes (e.g. a per-example bias gradient): a reshape, no pass over the data
    return x.reshape(_reduced_shape(shape, axes))


reduce_sum_p = _make("reduce_sum", _sum_impl)


def reduce_sum(x, axes):
    return reduce_sum_p.bind(x, axes=tuple(axes))


reduce_sum_p.jvp = lambda primals, tangents, axes: (reduce_sum(primals[0], axes),
                                                     reduce_sum(tangents[0], axes))
reduce_sum_p.transpose = lambda ct, x, axes: [_keep_back(ct, x.aval.shape, axes)]


# max / min: the tangent is spread evenly over the positions that attain the extremum
def _extremum_jvp(prim):
    def jvp(primals, tangents, axes):
        x, = primals
        t, = tangents
        y = prim.bind(x, axes=axes)
        dt = aval_of(x).dtype
        mask = convert_element_type(eq(x, _keep_back(y, aval_of(x).shape, axes)), dt)
        return y, div(reduce_sum(mul(t, mask), axes), reduce_sum(mask, axes))
    return jvp


def _extremum_impl(method, combine):
    def impl(x, axes):
        if type(x) is np.ndarray and _unrolls(x.shape, x.dtype, axes):
            return _unrolled_reduce(x, axes, combine)
        return getattr(x, method)(axis=axes)
    return impl


reduce_max_p = _make("reduce_max", _extremum_impl("max", np.maximum))
reduce_min_p = _make("reduce_min", _extremum_impl("min", np.minimum))
reduce_max_p.jvp = _extremum_jvp(reduce_max_p)
reduce_min_p.jvp = _extremum_jvp(reduce_min_p)


def reduce_max(x, axes):
    return reduce_max_p.bind(x, axes=tuple(axes))


def reduce_min(x, axes):
    return reduce_min_p.bind(x, axes=tuple(axes))


# prod: d prod / d x_i = prod_{j != i} x_j, computed without dividing by x_i so zeros are fine
reduce_prod_p = _make("reduce_prod", lambda x, axes: np.prod(x, axis=axes, dtype=x.dtype))


def reduce_prod(x, axes):
    return reduce_prod_p.bind(x, axes=tuple(axes))


def _prod_jvp(primals, tangents, axes):
    x, = primals
    t, = tangents
    y = reduce_prod(x, axes)
    return y, reduce_sum(mul(t, prod_others(x, axes)), axes)


reduce_prod_p.jvp = _prod_jvp


# argmax / argmin over one axis: integer output, no derivative
def _arg_aval(x, axis, index_dtype):
    return ShapedArray(_reduced_shape(x.shape, (axis,)), np.dtype(index_dtype))


argmax_p = _make("argmax", lambda x, axis, index_dtype: np.argmax(x, axis=axis).astype(
    index_dtype), _arg_aval)
argmin_p = _make("argmin", lambda x, axis, index_dtype: np.argmin(x, axis=axis).astype(
    index_dtype), _arg_aval)
for _p in (argmax_p, argmin_p):
    _p.jvp = (lambda p: lambda primals, tangents, **kw: (p.bind(*primals, **kw), ZERO))(_p)

# cumsum along one axis (from the end if `reverse`): linear; its transpose is the cumsum the
# other way
def _cumsum_impl(x, axis, reverse):
    if reverse:
        return np.flip(np.flip(x, axis).cumsum(axis=axis, dtype=x.dtype), axis)
    return x.cumsum(axis=axis, dtype=x.dtype)


cumsum_p = _make("cumsum", _cumsum_impl, lambda x, axis, reverse: ShapedArray(x.shape, x.dtype))


def cumsum(x, axis, reverse=False):
    return cumsum_p.bind(x, axis=axis, reverse=reverse)


cumsum_p.jvp = lambda primals, tangents, axis, reverse: (cumsum(primals[0], axis, reverse),
                                                         cumsum(tangents[0], axis, reverse))
cumsum_p.transpose = lambda ct, x, axis, reverse: [cumsum(ct, axis, not reverse)]


# cumprod along one axis (from the end if `reverse`). The value is NumPy's sequential product:
# an associative scan multiplies in a tree order, which over/underflows elsewhere
# (0 * 1e200 * 1e200 * 1e200 is 0 in order, 0 * inf = nan as 0 * (1e200 * 1e200)). The
# tangent is the JVP of that scan over (product, tangent) pairs: no division, so it is right
# where x has zeros, and it is built from primitives, so it differentiates again.
def _cumprod_impl(x, axis, reverse):
    if reverse:
        return np.flip(np.flip(x, axis).cumprod(axis=axis, dtype=x.dtype), axis)
    return x.cumprod(axis=axis, dtype=x.dtype)


cumprod_p = _make("cumprod", _cumprod_impl,
                  lambda x, axis, reverse: ShapedArray(x.shape, x.dtype))


def cumprod(x, axis, reverse=False):
    return cumprod_p.bind(x, axis=axis, reverse=reverse)


def _cumprod_jvp(primals, tangents, axis, reverse):
    from .associative import associative_scan

    def combine(a, b):  # (p, t) pairs: the product rule
        (pa, ta), (pb, tb) = a, b
        return mul(pa, pb), add(mul(ta, pb), mul(pa, tb))
    x, = primals
    _, t = associative_scan(combine, (x, tangents[0]), reverse=reverse, axis=axis)
    return cumprod(x, axis, reverse), t


cumprod_p.jvp = _cumprod_jvp


# argsort along one axis: integer output, no derivative (fnp.sort gathers with it)
argsort_p = _make(
    "argsort", lambda x, axis, kind, index_dtype: np.argsort(x, axis=axis, kind=kind).astype(
        index_dtype, copy=False),
    lambda x, axis, kind, index_dtype: ShapedArray(x.shape, np.dtype(index_dtype)))
argsort_p.jvp = lambda primals, tangents, **kw: (argsort_p.bind(*primals, **kw), ZERO)

REDUCE_PRIMITIVES = [reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p, argmax_p, argmin_p,
                     cumsum_p, cumprod_p, argsort_p]


def prod_others(x, axes):
    """For each element, the product of the *other* elements along `axes` (same shape as x).

    Built from primitives (so it differentiates again) without dividing by x: row i of an
    n-by-n matrix holds x with position i set to 1, and the rows are multiplied out.
    """
    from .elementwise import select as _select
    from .shape import reshape, transpose
    shape = aval_of(x).shape
    kept = [i for i in range(len(shape)) if i not in axes]
    perm = kept + list(axes)
    kept_shape = [shape[i] for i in kept]
    n = 1
    for a in axes:
        n *= shape[a]
    flat = reshape(transpose(x, perm), kept_shape + [n])
    k = len(kept_shape)
    rows = broadcast_in_dim(flat, kept_shape + [n, n], list(range(k)) + [k + 1])
    eye = np.broadcast_to(np.eye(n, dtype=bool), tuple(kept_shape) + (n, n))
    others = reduce_prod(_select(eye, 1.0, rows), (k + 1,))
    others = reshape(others, kept_shape + [shape[a] for a in axes])
    return transpose(others, tuple(np.argsort(perm)))


# --------------------------------------------------------------------------- batching
def _reduce_batch(prim):
    def rule(vals, dims, axis_size, axes):
        (x,), (d,) = vals, dims
        new_axes = tuple(a if a < d else a + 1 for a in axes)
        return prim.bind(x, axes=new_axes), d - sum(1 for a in new_axes if a < d)
    return rule


def _arg_batch(prim):
    def rule(vals, dims, axis_size, axis, index_dtype):
        (x,), (d,) = vals, dims
        new_axis = axis if axis < d else axis + 1
        return prim.bind(x, axis=new_axis, index_dtype=index_dtype), d - (new_axis < d)
    return rule


def _along_axis_batch(prim):
    """Batch a primitive that works along one `axis` and keeps the shape."""
    def rule(vals, dims, axis_size, axis, **params):
        (x,), (d,) = vals, dims
        return prim.bind(x, axis=axis + (d <= axis), **params), d
    return rule


for _p in (reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p):
    _p.batch = _reduce_batch(_p)
cumsum_p.batch = _along_axis_batch(cumsum_p)
cumprod_p.batch = _along_axis_batch(cumprod_p)
argsort_p.batch = _along_axis_batch(argsort_p)
for _p in (argmax_p, argmin_p):
    _p.batch = _arg_batch(_p)


# --------------------------------------------------------------------------- jit codegen
def _method_emit(method, ufunc, with_dtype, unrolled=False):
    def emit(ctx, ins, out, axes):
        x = ins[0]
        if unrolled and _unrolls(ctx.in_avals[0].shape, ctx.in_avals[0].dtype, axes):
            return f"{ctx.fn(_unrolled_reduce)}({x}, {axes!r}, {ctx.fn(ufunc)})"
        if (ufunc is np.add and ctx.array_module is np
                and _sums_by_product(ctx.in_avals[0].shape, ctx.in_avals[0].dtype, axes)):
            return f"{ctx.fn(_leading_sum)}({x}, {axes!r})"
        dtype = f", {ctx.dtype(ctx.in_avals[0].dtype)}" if with_dtype else ""
        if ctx.array_module is np:  # x.sum is a Python wrapper of np.add.reduce (~0.3 us)
            return f"np.{ufunc.__name__}.reduce({x}, {axes!r}{dtype})"
        return f"{x}.{method}(axis={axes!r}{f', dtype={x}.dtype' if with_dtype else ''})"
    return emit


def _arg_emit(fn):
    def emit(ctx, ins, out, axis, index_dtype):
        return f"np.{fn}({ins[0]}, axis={axis}).astype({ctx.dtype(index_dtype)})"
    return emit


reduce_sum_p.emit = _method_emit("sum", np.add, True, unrolled=True)
reduce_prod_p.emit = _method_emit("prod", np.multiply, True)
reduce_max_p.emit = _method_emit("max", np.maximum, False, unrolled=True)
reduce_min_p.emit = _method_emit("min", np.minimum, False, unrolled=True)
argmax_p.emit = _arg_emit("argmax")
argmin_p.emit = _arg_emit("argmin")
for _p in REDUCE_PRIMITIVES:
    _p.fresh_output = True


# --------------------------------------------------------------------------- jit simplifications
def _no_axes(eqn, ins, producers):
    """A reduction over no axes is its operand."""
    if not eqn.params["axes"] and can_stand_for(ins[0], eqn.outputs[0]):
        return ins[0]
    return None


def _simplify_sum(eqn, ins, producers):
    """Also: sum(broadcast_in_dim(x)) over exactly the added dims = x * (their size)."""
    same = _no_axes(eqn, ins, producers)
    if same is not None:
        return same
    prev = producers.get(ins[0])
    if prev is None or prev.prim is not broadcast_in_dim_p:
        return None
    x, out = prev.inputs[0], eqn.outputs[0]
    shape, bdims = prev.params["shape"], prev.params["broadcast_dimensions"]
    added = [d for d in range(len(shape)) if d not in bdims]
    if sorted(eqn.params["axes"]) != added or x.aval.shape != out.aval.shape or (
            x.aval.dtype != out.aval.dtype or not is_inexact(x.aval.dtype)):
        return None
    n = 1
    for d in added:
        n *= shape[d]
    return Eqn(mul_p, [x, Literal(float(n))], {}, eqn.outputs, eqn.source)


simplify_rules[reduce_sum_p] = _simplify_sum
for _p in (reduce_max_p, reduce_min_p, reduce_prod_p):
    simplify_rules[_p] = _no_axes
