"""`dot_general`: contraction with batch dimensions (matmul, tensordot, einsum build on it).

Output layout (as in XLA/JAX): batch dims, then the free dims of x, then those of y.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..backend import array_module
from ..core.ir import ShapedArray, Var, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .elementwise import add
from .shape import transpose


def _free(ndim, contract, batch):
    return [i for i in range(ndim) if i not in contract and i not in batch]


@functools.lru_cache(maxsize=None)
def _batched_plan(x_ndim, y_ndim, dimension_numbers):
    """Free dims of x and y, and the transposes to (batch, free, contract) / (batch,
    contract, free): index work that depends only on ranks and dimension numbers."""
    (lc, rc), (lb, rb) = dimension_numbers
    xf, yf = _free(x_ndim, lc, lb), _free(y_ndim, rc, rb)
    return xf, yf, list(lb) + xf + list(lc), list(rb) + list(rc) + yf


def _matmul(x, y):
    # NumPy has no matmul kernel for ml_dtypes floats: it computes bfloat16 in float32
    out = np.matmul(x, y)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


def _dot_impl(x, y, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    # the array module for the calls that do not dispatch on CuPy arrays (ufunc methods,
    # array creation); matmul and tensordot dispatch by themselves
    xp = np if type(x) is np.ndarray else array_module(x)
    if not lb:
        if (len(lc) == 1 and 1 <= y.ndim <= 2 and x.ndim
                and (lc[0] == x.ndim - 1 or x.ndim <= 2)):
            # matrix/vector products (x may carry leading dims) as matmul on (possibly
            # transposed) views: BLAS reads the strides, nothing is copied
            yo = y if rc[0] == 0 else y.T
            if x.ndim > 2:  # one GEMM over the flattened leading dims, not one GEMV per row
                # (the row count spelled out: reshape(-1, 0) is ambiguous for size 0)
                return _matmul(x.reshape(math.prod(x.shape[:-1]), x.shape[-1]), yo).reshape(
                    x.shape[:-1] + yo.shape[1:])
            return _matmul(x if lc[0] == x.ndim - 1 else x.T, yo)
        if not lc and x.dtype.kind != "V":  # an outer product
            return xp.multiply.outer(x, y)
        return np.tensordot(x, y, axes=(lc, rc))
    xf, yf, x_perm, y_perm = _batched_plan(x.ndim, y.ndim, dimension_numbers)
    bshape = [x.shape[i] for i in lb]
    xfs = [x.shape[i] for i in xf]
    yfs = [y.shape[i] for i in yf]
    k = math.prod([x.shape[i] for i in lc])
    b = math.prod(bshape)
    if not b:
        return xp.zeros(bshape + xfs + yfs, np.result_type(x.dtype, y.dtype))
    m, n = math.prod(xfs), math.prod(yfs)
    xt = x.transpose(x_perm).reshape(b, m, k)
    yt = y.transpose(y_perm).reshape(b, k, n)
    if k == 1:  # batched outer products (e.g. per-example weight gradients): the small
        # operands are made contiguous so the large output is written in one fast pass
        xs, ys = xp.ascontiguousarray(xt.reshape(b, m)), xp.ascontiguousarray(yt.reshape(b, n))
        if xs.dtype.kind == "V":  # np.einsum rejects ml_dtypes floats
            return (xs[:, :, None] * ys[:, None, :]).reshape(bshape + xfs + yfs)
        return np.einsum("bm,bn->bmn", xs, ys).reshape(bshape + xfs + yfs)
    return _matmul(xt, yt).reshape(bshape + xfs + yfs)


def _dot_aval(x, y, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    if x.dtype != y.dtype:
        raise TypeError(f"dot_general: operand dtypes differ: {x.str_short()} and {y.str_short()}")
    for a, b in list(zip(lc, rc)) + list(zip(lb, rb)):
        if x.shape[a] != y.shape[b]:
            raise ValueError(f"dot_general: size mismatch between x dim {a} ({x.shape[a]}) and "
                             f"y dim {b} ({y.shape[b]}): shapes {x.shape} and {y.shape}")
    shape = ([x.shape[i] for i in lb] + [x.shape[i] for i in _free(len(x.shape), lc, lb)]
             + [y.shape[i] for i in _free(len(y.shape), rc, rb)])
    return ShapedArray(tuple(shape), x.dtype)


dot_general_p = Primitive("dot_general")
dot_general_p.impl = _dot_impl
dot_general_p.abstract_eval = _dot_aval


def dot_general(x, y, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    return dot_general_p.bind(x, y, dimension_numbers=dn)


def _dot_jvp(primals, tangents, dimension_numbers):
    x, y = primals
    tx, ty = tangents
    out = dot_general_p.bind(x, y, dimension_numbers=dimension_numbers)
    t = ZERO
    if tx is not ZERO:
        t = dot_general_p.bind(tx, y, dimension_numbers=dimension_numbers)
    if ty is not ZERO:
        t2 = dot_general_p.bind(x, ty, dimension_numbers=dimension_numbers)
        t = t2 if t is ZERO else add(t, t2)
    return out, t


def _transpose_operand(ct, other, lin_ndim, lin_c, oth_c, lin_b, oth_b, ct_other_free):
    """Cotangent of one operand: contract ct with the other operand, then reorder dims.

    Of the two operand orders (ct first or other first), take the one whose result is
    already in the operand's layout, so no transpose (and no strided result) is needed.
    """
    other_first, dn, perm = _transpose_plan(lin_ndim, aval_of(other).ndim, lin_c, oth_c,
                                            lin_b, oth_b, tuple(ct_other_free))
    if other_first:
        return dot_general(other, ct, dn)
    r = dot_general(ct, other, dn)
    return r if perm is None else transpose(r, perm)


@functools.lru_cache(maxsize=None)
def _transpose_plan(lin_ndim, oth_ndim, lin_c, oth_c, lin_b, oth_b, ct_other_free):
    """(other operand first?, dimension numbers, final transpose or None); depends only on
    ranks and dimension numbers, so it is computed once per pattern."""
    oth_kept = _free(oth_ndim, oth_c, oth_b)
    lin_kept = _free(lin_ndim, lin_c, lin_b)
    nb = len(lin_b)
    from_other = [lin_c[list(oth_c).index(d)] for d in sorted(oth_c)]
    ct_first = list(lin_b) + lin_kept + from_other
    identity = list(range(lin_ndim))
    if ct_first != identity and list(lin_b) + from_other + lin_kept == identity:
        return True, ((tuple(oth_kept), ct_other_free), (tuple(oth_b), tuple(range(nb)))), None
    perm = [ct_first.index(i) for i in range(lin_ndim)]
    return (False, ((ct_other_free, tuple(oth_kept)), (tuple(range(nb)), tuple(oth_b))),
            None if perm == identity else tuple(perm))


def _dot_transpose(ct, x, y, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    nb = len(lb)
    if type(x) is Var:
        x_ndim = len(x.aval.shape)
        nxf = len(_free(x_ndim, lc, lb))
        ct_ndim = len(aval_of(ct).shape)
        return [_transpose_operand(ct, y, x_ndim, lc, rc, lb, rb, range(nb + nxf, ct_ndim)),
                None]
    y_ndim = len(y.aval.shape)
    nxf = len(_free(aval_of(x).ndim, lc, lb))
    return [None, _transpose_operand(ct, x, y_ndim, rc, lc, rb, lb, range(nb, nb + nxf))]


dot_general_p.jvp = _dot_jvp
dot_general_p.transpose = _dot_transpose


# --------------------------------------------------------------------------- batching
def _dot_batch(vals, dims, axis_size, dimension_numbers):
    """Both operands batched: the batch joins the batch dims. One batched: it stays a free
    dim of that operand (no data movement), and its output position is computed."""
    (x, y), (dx, dy) = vals, dims
    (lc, rc), (lb, rb) = dimension_numbers

    def shift(ds, d):
        return tuple(i if i < d else i + 1 for i in ds)
    if dx is not None and dy is not None:
        dn = ((shift(lc, dx), shift(rc, dy)), ((dx,) + shift(lb, dx), (dy,) + shift(rb, dy)))
        return dot_general(x, y, dn), 0
    nb = len(lb)
    if dx is not None:
        lc2, lb2 = shift(lc, dx), shift(lb, dx)
        free_before = sum(1 for i in range(dx) if i not in lc2 and i not in lb2)
        return dot_general(x, y, ((lc2, rc), (lb2, rb))), nb + free_before
    rc2, rb2 = shift(rc, dy), shift(rb, dy)
    x_free = aval_of(x).ndim - len(lc) - len(lb)
    free_before = sum(1 for i in range(dy) if i not in rc2 and i not in rb2)
    return dot_general(x, y, ((lc, rc2), (lb, rb2))), nb + x_free + free_before


dot_general_p.batch = _dot_batch


# --------------------------------------------------------------------------- jit codegen
def _dot_emit(ctx, ins, out, dimension_numbers):
    """Matrix and vector products as one `np.matmul` (into `out` when given); the rest
    through `impl`, which picks its kernel from the dimension numbers."""
    (lc, rc), (lb, rb) = dimension_numbers
    (xa, ya), (x, y) = ctx.in_avals, ins
    if not lb and len(lc) == 1 and 1 <= xa.ndim <= 2 and 1 <= ya.ndim <= 2 and (
            xa.dtype.kind != "V"):  # no matmul kernel for ml_dtypes floats: see _matmul
        xo = x if lc[0] == xa.ndim - 1 else f"{x}.T"
        yo = y if rc[0] == 0 else f"{y}.T"
        return f"np.matmul({xo}, {yo}{f', out={out}' if out else ''})"
    if not lb and not lc and xa.dtype.kind != "V":  # outer product (tensordot is slower)
        return f"np.multiply.outer({x}, {y}{f', out={out}' if out else ''})"
    impl = ctx.const(_dot_impl, "dot_general_impl")
    return f"{impl}({x}, {y}, {dimension_numbers!r})"


dot_general_p.emit = _dot_emit
dot_general_p.fresh_output = True
dot_general_p.accepts_out = True
