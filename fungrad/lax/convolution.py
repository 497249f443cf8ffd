"""Convolution: `conv_general_dilated` (JAX/XLA semantics) as one primitive.

Parameters are normalized before binding: `dimension_numbers` is a triple of permutations
`(lhs_spec, rhs_spec, out_spec)`, each listing the array dims in canonical order
(lhs: batch, feature, spatial...; rhs: out-feature, in-feature, spatial...; out: batch,
feature, spatial...), and `padding` is explicit `(lo, hi)` pairs (negative pads crop).

The impl is an im2col: zeros inserted for lhs dilation, padding, a strided
`sliding_window_view` (rhs dilation by slicing the window), and one `tensordot` per
feature group, so BLAS does the work; stride-1 convs where it needs clearly fewer
multiply-adds go through the frequency domain instead (`_dft_conv`). Both transposes are
convolutions again (derived in `_transpose_lhs` / `_transpose_rhs`), so every derivative
order works.
"""
from __future__ import annotations

import functools
import math
import operator
from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..backend import array_module
from ..core.ir import ShapedArray, Var, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .elementwise import add, maximum, minimum
from .reduce import reduce_max, reduce_min, reduce_sum
from .indexing import getitem_p, slice_along
from .shape import concatenate, moveaxis, reshape, transpose
from .workspace import workspace

_ALL = ("slice", None, None, None)


# --------------------------------------------------------------------------- argument checks
def int_tuple(fn: str, name: str, values, n: int, low: int, per: str) -> tuple:
    """`values` as a tuple of `n` Python ints >= `low` (one per `per`), or a clear error: a
    float would be truncated by int(), a short sequence cut other arguments by zip, and a
    stride of 0 divide by zero."""
    try:
        out = tuple(operator.index(v) for v in values)
    except TypeError:
        raise TypeError(f"{fn}: {name} must be a sequence of {n} integers (one per {per}), "
                        f"got {values!r}") from None
    if len(out) != n:
        raise ValueError(f"{fn}: {name} {values!r} must have one entry per {per} ({n}), got "
                         f"{len(out)}")
    if any(v < low for v in out):
        raise ValueError(f"{fn}: every entry of {name} must be >= {low}, got {values!r}")
    return out


def int_scalar(fn: str, name: str, value, low: int) -> int:
    """`value` as a Python int >= `low` (a float is refused, not truncated)."""
    try:
        out = operator.index(value)
    except TypeError:
        out = None
    if out is None or out < low:
        raise (TypeError if out is None else ValueError)(
            f"{fn}: {name} must be an integer >= {low}, got {value!r}")
    return out


def _pad_pairs(fn: str, padding, n: int, per: str) -> tuple:
    """An explicit padding as `n` (lo, hi) pairs of Python ints, or a clear error."""
    try:
        pairs = [tuple(operator.index(v) for v in pair) for pair in padding]
    except TypeError:
        pairs = None
    if pairs is None or any(len(p) != 2 for p in pairs) or len(pairs) != n:
        raise (TypeError if pairs is None else ValueError)(
            f"{fn}: padding must be a string or a sequence of {n} (lo, hi) integer pairs (one "
            f"per {per}), got {padding!r}")
    return tuple(pairs)


# --------------------------------------------------------------------------- parameters
def _default_specs(nd):
    r = tuple(range(nd + 2))
    return r, r, r


def _specs_from_strings(lhs, rhs, out):
    """('NHWC', 'HWIO', 'NHWC') -> permutations; spatial dims are ordered as in rhs."""
    spatial = [c for c in rhs if c not in "OI"]

    def perm(s, first, second):
        if sorted(s) != sorted([first, second] + spatial) or len(set(s)) != len(s):
            raise ValueError(f"conv_general_dilated: dimension_numbers spec {s!r} must hold "
                             f"{first!r}, {second!r} and the kernel's spatial dims {spatial}")
        return (s.index(first), s.index(second)) + tuple(s.index(c) for c in spatial)
    return perm(lhs, "N", "C"), perm(rhs, "O", "I"), perm(out, "N", "C")


def _normalize_dn(dimension_numbers, nd):
    if dimension_numbers is None:
        return _default_specs(nd)
    if isinstance(dimension_numbers, str) or len(dimension_numbers) != 3:
        raise ValueError(f"conv_general_dilated: dimension_numbers must be None or a triple "
                         f"(lhs, rhs, out) of layout strings such as ('NCHW', 'OIHW', 'NCHW') "
                         f"or of dim permutations, got {dimension_numbers!r}")
    lhs, rhs, out = dimension_numbers
    if isinstance(lhs, str):
        if len(lhs) != nd + 2:
            raise ValueError(f"conv_general_dilated: dimension_numbers {dimension_numbers!r} "
                             f"must name {nd + 2} dims (the operands' rank)")
        return _specs_from_strings(lhs, rhs, out)
    specs = tuple(int_tuple("conv_general_dilated", "dimension_numbers entry", s, nd + 2, 0,
                        "dim of the operands") for s in (lhs, rhs, out))
    if any(sorted(s) != list(range(nd + 2)) for s in specs):
        raise ValueError(f"conv_general_dilated: each entry of dimension_numbers must be a "
                         f"permutation of range({nd + 2}) (batch/out-feature dim, feature/"
                         f"in-feature dim, then the spatial dims), got {dimension_numbers!r}")
    return specs


def _out_size(n, lo, hi, ld, k, rd, s):
    padded = (max(n - 1, 0) * ld + (1 if n else 0)) + lo + hi
    eff = (k - 1) * rd + 1
    return max((padded - eff) // s + 1, 0) if padded >= eff else 0


def _padding_pairs(padding, in_sizes, k_sizes, strides, lhs_dilation, rhs_dilation,
                   fn="conv_general_dilated", per="spatial dim"):
    if not isinstance(padding, str):
        return _pad_pairs(fn, padding, len(in_sizes), per)
    mode = padding.upper()
    if mode == "VALID":
        return ((0, 0),) * len(in_sizes)
    if mode not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"{fn}: padding {padding!r} must be 'SAME', "
                         "'SAME_LOWER', 'VALID' or a sequence of (lo, hi) pairs")
    pads = []
    for n, k, s, ld, rd in zip(in_sizes, k_sizes, strides, lhs_dilation, rhs_dilation):
        n_dil = max(n - 1, 0) * ld + 1 if n else 0
        eff = (k - 1) * rd + 1
        total = max((-(-n_dil // s) - 1) * s + eff - n_dil, 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if mode == "SAME" else (big, small))
    return tuple(pads)


# --------------------------------------------------------------------------- impl / aval
def _memory_order(x):
    """x's axes from the largest stride to the smallest: the order its elements lie in."""
    return sorted(range(x.ndim), key=lambda a: -abs(x.strides[a]))


def _zeros_in_layout(x, shape, xp=np):
    """Zeros of `shape` (on x's device: `xp` is NumPy or CuPy), laid out in memory like `x`
    (an NHWC array's padded copy stays NHWC, so the window copy after it reads memory in
    order)."""
    order = _memory_order(x)
    return xp.zeros([shape[a] for a in order], x.dtype).transpose(np.argsort(order).tolist())


def _dilate_and_pad(x, padding, lhs_dilation, xp=np):
    """Canonical x (N, C, *spatial): zeros between elements, then pad (crop if negative)."""
    nd = x.ndim - 2
    if any(d > 1 for d in lhs_dilation):
        shape = x.shape[:2] + tuple(max(n - 1, 0) * d + (1 if n else 0)
                                    for n, d in zip(x.shape[2:], lhs_dilation))
        z = _zeros_in_layout(x, shape, xp)
        z[(slice(None),) * 2 + tuple(slice(None, None, d) for d in lhs_dilation)] = x
        x = z
    if any(lo or hi for lo, hi in padding):
        # XLA pads both ends of the whole dim at once, so a crop may eat into the other
        # end's padding (n = 2, pads (-3, 5): 4 zeros): input element i lands at i + lo of
        # the n + lo + hi long result when inside it
        sizes = [max(n + lo + hi, 0) for n, (lo, hi) in zip(x.shape[2:], padding)]
        src = [slice(min(max(-lo, 0), n), max(min(n, size - lo), min(max(-lo, 0), n)))
               for n, (lo, _), size in zip(x.shape[2:], padding, sizes)]
        x = x[(slice(None),) * 2 + tuple(src)]
        if any(lo > 0 or hi > 0 for lo, hi in padding):
            z = _zeros_in_layout(x, x.shape[:2] + tuple(sizes), xp)
            z[(slice(None),) * 2 + tuple(slice(max(lo, 0), max(lo, 0) + s.stop - s.start)
                                         for (lo, _), s in zip(padding, src))] = x
            x = z
    assert x.ndim == nd + 2
    return x


def _copy_into(buf, x):
    np.copyto(buf, x)
    return buf


def _contract(a, b, a_axes, b_axes, tag=None, out_tag=None, xp=np):
    """`np.tensordot(a, b, (a_axes, b_axes))`, but the copy that lines `a` up as a matrix
    reads `a` in memory order: free and contracted axes are each taken from the largest
    stride down, and the matrix is built as (free, contracted) or, when `a`'s innermost
    axis is a free one, as (contracted, free) and handed to the product transposed (BLAS
    takes either). For an NHWC input's windows that copy runs over C instead of gathering
    across it (3-4x faster). The result is transposed back as a view. With `tag`, that copy
    goes into a reused workspace; with `out_tag` the product too (then the result must not
    outlive the caller: see lax/workspace.py). `xp`: the operands' array module (CuPy
    operands take no workspace: those are NumPy buffers)."""
    def outer_first(ax):  # a length-1 axis has no place in memory: put it first
        return -abs(a.strides[ax]) if a.shape[ax] > 1 else -math.inf
    free = [ax for ax in range(a.ndim) if ax not in a_axes]
    by_stride = sorted(range(len(a_axes)), key=lambda i: outer_first(a_axes[i]))
    a_axes, b_axes = [a_axes[i] for i in by_stride], [b_axes[i] for i in by_stride]
    free_order = sorted(free, key=outer_first)
    b_free = [ax for ax in range(b.ndim) if ax not in b_axes]
    k = math.prod(a.shape[ax] for ax in a_axes)
    # the innermost free axis goes last when its stride is smaller or, on a tie (a window
    # view: W' and KW both step one element), when it is longer: the copy's inner loop then
    # runs 24 elements instead of 5 (3x faster on LeNet's first conv)
    inner_free = bool(free) and bool(a_axes) and (
        (outer_first(free_order[-1]), a.shape[free_order[-1]])
        > (outer_first(a_axes[-1]), a.shape[a_axes[-1]]))
    lined_up = a.transpose(a_axes + free_order if inner_free else free_order + a_axes)
    if tag is not None and type(lined_up) is np.ndarray and not lined_up.flags.c_contiguous:
        lined_up = _copy_into(workspace(tag, lined_up.shape, lined_up.dtype), lined_up)
    lhs = lined_up.reshape(k, -1).T if inner_free else lined_up.reshape(-1, k)
    rhs = b.transpose(b_axes + b_free).reshape(k, -1)
    out = None if out_tag is None else workspace(
        out_tag, (lhs.shape[0], rhs.shape[1]), np.result_type(lhs.dtype, rhs.dtype))
    out = xp.matmul(lhs, rhs, out=out).reshape(
        [a.shape[ax] for ax in free_order] + [b.shape[ax] for ax in b_free])
    back = [free_order.index(ax) for ax in free] + list(range(len(free), out.ndim))
    return out.transpose(back)


def _conv_shape(lshape, rshape, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count):
    ls, rs, os_ = dimension_numbers
    n, c = lshape[ls[0]], lshape[ls[1]]
    o, i = rshape[rs[0]], rshape[rs[1]]
    g = feature_group_count
    if c != i * g or o % g:
        raise ValueError(
            f"conv_general_dilated: lhs has {c} features and rhs {i} input features x "
            f"{o} output features with feature_group_count={g}: need lhs features == "
            f"rhs input features * feature_group_count and output features divisible by it "
            f"(lhs shape {lshape}, rhs shape {rshape}, dimension_numbers {dimension_numbers})")
    spatial = [_out_size(lshape[a], lo, hi, ld, rshape[b], rd, s)
               for a, b, (lo, hi), ld, rd, s in zip(ls[2:], rs[2:], padding, lhs_dilation,
                                                   rhs_dilation, window_strides)]
    canon = [n, o] + spatial
    out = [0] * len(canon)
    for pos, size in zip(os_, canon):
        out[pos] = size
    return tuple(out)


def _conv_impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               dimension_numbers, feature_group_count):
    ls, rs, os_ = dimension_numbers
    xp = array_module(lhs, rhs)  # NumPy, or CuPy for operands on the GPU
    nd = len(window_strides)
    out_shape = _conv_shape(lhs.shape, rhs.shape, window_strides, padding, lhs_dilation,
                            rhs_dilation, dimension_numbers, feature_group_count)
    dtype = np.result_type(lhs.dtype, rhs.dtype) if lhs.dtype.kind != "V" else lhs.dtype
    if 0 in out_shape or 0 in rhs.shape or 0 in lhs.shape:  # (only padding in the windows)
        return xp.zeros(out_shape, dtype)
    x, w = lhs.transpose(ls), rhs.transpose(rs)  # (N, C, *spatial), (O, I, *K)
    spatial_out = [out_shape[a] for a in os_[2:]]
    # (the DFT path's matrices and workspaces are NumPy arrays: CPU only)
    if xp is np and _use_dft(x, w, window_strides, padding, lhs_dilation, rhs_dilation,
                             feature_group_count, spatial_out):
        out = _dft_conv(x, w, padding, spatial_out)
    elif all(s == 1 for s in window_strides) and (
            np.prod(x.shape[2:]) * w.shape[0] < np.prod(spatial_out) * x.shape[1]):
        out = _scatter_conv(x, w, padding, lhs_dilation, rhs_dilation, feature_group_count,
                            spatial_out, xp)
    else:
        out = _gather_conv(x, w, window_strides, padding, lhs_dilation, rhs_dilation,
                           feature_group_count, xp)
    if out.dtype != dtype:  # ml_dtypes floats are multiplied in float32 by NumPy
        out = out.astype(dtype)
    cur = [0, nd + 1] + list(range(1, nd + 1))  # where each canonical dim is in `out`
    perm = [cur[os_.index(j)] for j in range(nd + 2)]
    return out.transpose(perm)


def _per_group(x, w, g, fn):
    """fn on each feature group's (x, w) slices, results joined along the last axis."""
    if g == 1:
        return fn(x, w)
    cg, og = x.shape[1] // g, w.shape[0] // g
    return np.concatenate([fn(x[:, k * cg:(k + 1) * cg], w[k * og:(k + 1) * og])
                           for k in range(g)], axis=-1)


def _gather_conv(x, w, window_strides, padding, lhs_dilation, rhs_dilation, g, xp=np):
    """im2col: every output position's window as a strided view, one contraction over
    (input features, kernel positions). Result (N, *out, O)."""
    nd = x.ndim - 2
    x = _dilate_and_pad(x, padding, lhs_dilation, xp)
    eff = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], rhs_dilation)]
    # (NumPy's sliding_window_view does not dispatch to CuPy: CuPy has its own)
    windows = sliding_window_view if xp is np else xp.lib.stride_tricks.sliding_window_view
    win = windows(x, eff, axis=tuple(range(2, 2 + nd)))
    win = win[(slice(None),) * 2 + tuple(slice(None, None, s) for s in window_strides)
              + tuple(slice(None, None, d) for d in rhs_dilation)]  # (N, C, *out, *K)
    win_axes = [1] + list(range(2 + nd, 2 + 2 * nd))
    w_axes = [1] + list(range(2, 2 + nd))
    return _per_group(win, w, g, lambda v, k: _contract(v, k, win_axes, w_axes, "im2col", xp=xp))


def _kernel_slabs(x, w, tag=None, xp=np):
    """Every input position times every kernel offset's (I, O) matrix, one batched matrix
    product: x (N, C, *in), w (O, I, *K) -> (prod K, N, *in, O), each offset's slab
    contiguous so that adding it into the output reads memory in order. With `tag` the
    product goes into a reused workspace (lax/workspace.py; NumPy operands only)."""
    rows = xp.moveaxis(x, 1, -1).reshape(-1, x.shape[1])
    per_offset = xp.moveaxis(w, (0, 1), (-1, -2)).reshape((-1, w.shape[1], w.shape[0]))
    out = None if tag is None or xp is not np else workspace(
        tag, (per_offset.shape[0],) + rows.shape[:1] + per_offset.shape[2:],
        np.result_type(rows.dtype, per_offset.dtype))
    return xp.matmul(rows, per_offset, out=out).reshape(
        (per_offset.shape[0], x.shape[0]) + x.shape[2:] + (w.shape[0],))


def _scatter_conv(x, w, padding, lhs_dilation, rhs_dilation, g, spatial_out, xp=np):
    """Stride-1 convs read as the transpose of another conv (col2im): multiply each input
    position by each kernel offset first, then add each offset's slab into the output
    shifted by it. Cheaper than im2col when the input has fewer (positions x features)
    than the output has (positions x input features): the input-gradient convs (zeros of
    lhs dilation are never read, no big window copy)."""
    # (prod K, N, *in, O); one group's slabs die here, several groups' are joined anew
    slabs = (_kernel_slabs(x, w, "col2im", xp) if g == 1 else
             _per_group(x, w, g, lambda v, k: _kernel_slabs(v, k, xp=xp)))
    ksizes = w.shape[2:]
    # output index of input i, kernel offset k: i*ld + lo - k*rd; buffer starts at `start`
    starts = [min(0, lo - (k - 1) * rd) for (lo, _), k, rd in zip(padding, ksizes, rhs_dilation)]
    ends = [max(m, (n - 1) * ld + lo + 1) for m, n, ld, (lo, _) in zip(
        spatial_out, x.shape[2:], lhs_dilation, padding)]
    buf = xp.zeros((x.shape[0],) + tuple(e - s for s, e in zip(starts, ends))
                   + (slabs.shape[-1],), slabs.dtype)
    for slab, k in zip(slabs, np.ndindex(*ksizes)):
        idx = tuple(slice(lo - kk * rd - st, lo - kk * rd - st + (n - 1) * ld + 1, ld)
                    for (lo, _), kk, rd, st, n, ld in zip(padding, k, rhs_dilation, starts,
                                                           x.shape[2:], lhs_dilation))
        buf[(slice(None),) + idx] += slab
    return buf[(slice(None),) + tuple(slice(-st, -st + m) for st, m in zip(starts, spatial_out))]


# A stride-1 conv as a product in the frequency domain, with the (small) transforms as
# dense DFT matrices so that BLAS does them too: pocketfft (np.fft / scipy.fft) spends
# ~1 us per 12x12 transform, which made rfftn + irfftn slower than im2col on LeNet's conv2
# shapes, while these matrix products run at sgemm speed and skip the zeros of padding
# (only the input's, kernel's and output's own positions get a row or a column).
_DFT_GAIN = 0.8  # take the DFT path when it needs fewer than this fraction of im2col's MACs


def _dft_sizes(ns, ks, padding):
    """Per spatial dim the transform length L = n + max(lo, hi): long enough that the
    circular correlation equals the linear one at every output position (an output at m
    reads c[m - lo], c[d] is nonzero for d in [-(k-1), n-1], and with 0 <= lo, hi <= k-1
    no other d of that range lands on the same index mod L)."""
    return tuple(n + max(lo, hi) for n, (lo, hi) in zip(ns, padding))


def _dft_macs(x_shape, w_shape, padding, spatial_out) -> int:
    """Multiply-adds of `_dft_conv`: the three transforms (2 reals per frequency) and the
    per-frequency complex (N, C) x (C, O) products (4 real multiplies each)."""
    (n, c), (o, _) = x_shape[:2], w_shape[:2]
    ls = _dft_sizes(x_shape[2:], w_shape[2:], padding)
    freqs = math.prod(ls[:-1]) * (ls[-1] // 2 + 1)
    transforms = (n * c * math.prod(x_shape[2:]) + o * c * math.prod(w_shape[2:])
                  + n * o * math.prod(spatial_out))
    return 2 * freqs * transforms + 4 * freqs * n * c * o


def _use_dft(x, w, window_strides, padding, lhs_dilation, rhs_dilation, g, spatial_out):
    """Whether the DFT path runs this conv: stride 1, no dilation, one feature group, real
    float32/64, pads within [0, kernel size - 1], and clearly fewer MACs than im2col."""
    if (x.dtype != w.dtype or x.dtype not in (np.float32, np.float64) or g != 1
            or any(s != 1 for s in window_strides + lhs_dilation + rhs_dilation)
            or not all(0 <= lo < k and 0 <= hi < k for (lo, hi), k in zip(padding, w.shape[2:]))):
        return False
    im2col = math.prod(x.shape[:2]) * w.shape[0] * math.prod(w.shape[2:]) * math.prod(spatial_out)
    return _dft_macs(x.shape, w.shape, padding, spatial_out) < _DFT_GAIN * im2col


def _phases(positions, sizes):
    """(prod positions, prod frequencies) phase fractions sum_d f_d p_d / L_d (mod 1), the
    last dim's frequencies halved as a real FFT's (0 .. L // 2)."""
    nd = len(sizes)
    total = np.zeros([1] * (2 * nd))
    for d, (p, size) in enumerate(zip(positions, sizes)):
        f = np.arange(size // 2 + 1 if d == nd - 1 else size)
        shape = [1] * (2 * nd)
        shape[d], shape[nd + d] = len(p), len(f)
        total = total + (np.outer(p, f) % size / size).reshape(shape)  # exact integer mod
    return total.reshape(math.prod(len(p) for p in positions), -1)


def _interleaved(z, dtype):
    """complex (P, F) -> real (P, 2F) as [re, im] pairs: a product with it is a complex
    array in memory (`.view(complex)`), no copy."""
    return np.stack([z.real, z.imag], -1).reshape(z.shape[0], -1).astype(dtype)


@functools.lru_cache(maxsize=32)
def _dft_matrices(ns, ks, padding, ms, dtype):
    """Real matrices of the transforms: input (prod ns, 2F) forward, kernel (prod ks, 2F)
    forward and conjugated (a cross-correlation), output (2F, prod ms) inverse, reading
    each output m at index (m - lo) mod L, the half spectrum weighted 2 where its mirror
    image is missing, and 1 / prod L."""
    ls = _dft_sizes(ns, ks, padding)
    fwd_x = _interleaved(np.exp(-2j * np.pi * _phases([np.arange(n) for n in ns], ls)), dtype)
    fwd_w = _interleaved(np.exp(2j * np.pi * _phases([np.arange(k) for k in ks], ls)), dtype)
    at = [(np.arange(m) - lo) % size for m, (lo, _), size in zip(ms, padding, ls)]
    last = np.arange(ls[-1] // 2 + 1)
    weight = np.where((last == 0) | (2 * last == ls[-1]), 1.0, 2.0) / math.prod(ls)
    e = np.broadcast_to(weight, ls[:-1] + last.shape).reshape(-1) * np.exp(
        2j * np.pi * _phases(at, ls))  # (M, F): out = Re(Y @ e.T) = Yr e.r - Yi e.i
    inv = np.stack([e.real, -e.imag], -1).reshape(e.shape[0], -1).astype(dtype)  # (M, 2F)
    # transposed, each C-contiguous: they are the left operands of the products below
    return (np.ascontiguousarray(fwd_x.T), np.ascontiguousarray(fwd_w.T),
            np.ascontiguousarray(inv))


def _lined(a, shape, tag):
    """`a` reshaped to `shape` (C order): a view when its memory allows one, else a copy in
    the workspace `tag`."""
    try:
        return np.reshape(a, shape, copy=False)
    except ValueError:  # (the axes do not merge)
        return _copy_into(workspace(tag, a.shape, a.dtype), a).reshape(shape)
    except TypeError:  # (NumPy < 2.1: no copy=)
        return np.reshape(a, shape)


def _dft_conv(x, w, padding, spatial_out):
    """Stride-1 cross-correlation of x (N, C, *in) and w (O, C, *K) through the frequency
    domain: transform both, one complex (N, C) x (C, O) product per frequency, transform
    back only the output positions. Result (N, *out, O).

    Every product reads its operands where they lie and writes where the next one reads
    (the transforms per example and per kernel, the frequency products into an
    (N, F, 2, O) buffer, the inverse per example), so the only copies are of operands
    whose memory does not line up (not NHWC / HWIO) and the kernel's block matrix: the
    complex products run as real ones, [Xr Xi] @ [[Wr Wi], [-Wi Wr]] = [Yr Yi], whose
    halves need no complex interleaving. Every intermediate lives in a reused workspace
    (lax/workspace.py): only the result is new."""
    n, c, o = x.shape[0], x.shape[1], w.shape[0]
    nd = x.ndim - 2
    dx, dw, inv = _dft_matrices(x.shape[2:], w.shape[2:], tuple(padding),
                                tuple(spatial_out), x.dtype)
    f2 = dx.shape[0]  # 2F: (frequency, re / im) pairs
    f = f2 // 2
    # input: (2F, P) @ (P, C) per example -> (N, F, 2, C)
    xs = _lined(np.moveaxis(x, 1, -1), (n, dx.shape[1], c), "dft x")
    xf = np.matmul(dx, xs, out=workspace("dft xf", (n, f2, c), x.dtype))
    # kernel: (2F, K) @ (K, C O) -> (F, 2, C, O)
    ws = _lined(w.transpose(list(range(2, 2 + nd)) + [1, 0]), (dw.shape[1], c * o), "dft w")
    wf = np.matmul(dw, ws, out=workspace("dft wf", (f2, c * o), x.dtype)).reshape(f, 2, c, o)
    if _BLOCK_X(n, o):
        # per frequency [[Xr -Xi], [Xi Xr]] (2N, 2C) @ [Wr; Wi] (2C, O) = [Yr; Yi]: the
        # block matrix is built on the examples' side (the smaller one)
        xv = xf.reshape(n, f, 2, c).transpose(1, 0, 2, 3)  # (F, N, re / im, C)
        xb = workspace("dft xb", (f, 2, n, 2, c), x.dtype)
        xb[:, 0, :, 0], xb[:, 1, :, 0], xb[:, 1, :, 1] = xv[:, :, 0], xv[:, :, 1], xv[:, :, 0]
        np.negative(xv[:, :, 1], out=xb[:, 0, :, 1])
        y = np.matmul(xb.reshape(f, 2 * n, 2 * c), wf.reshape(f, 2 * c, o),
                      out=workspace("dft y", (f, 2 * n, o), x.dtype))
        # each example's (2F, O) block, a strided view: rows (frequency, re / im)
        blocks = y.reshape(f, 2, n, o).transpose(2, 0, 1, 3).reshape(n, f2, o)
    else:
        # per frequency [Xr Xi] (N, 2C) @ [[Wr Wi], [-Wi Wr]] (2C, 2O) = [Yr Yi], written as
        # (N, F, 2O): each example's (2F, O) block contiguous
        wb = workspace("dft wb", (f, 2, c, 2, o), x.dtype)
        wb[:, 0, :, 0], wb[:, 0, :, 1], wb[:, 1, :, 1] = wf[:, 0], wf[:, 1], wf[:, 0]
        np.negative(wf[:, 1], out=wb[:, 1, :, 0])
        blocks = workspace("dft yb", (n, f, 2 * o), x.dtype)
        np.matmul(xf.reshape(n, f, 2 * c).transpose(1, 0, 2), wb.reshape(f, 2 * c, 2 * o),
                  out=blocks.transpose(1, 0, 2))
        blocks = blocks.reshape(n, f2, o)
    # inverse: (M, 2F) @ (2F, O) per example: the result is (N, *out, O) in memory
    out = np.matmul(inv, blocks)
    return out.reshape((n,) + tuple(spatial_out) + (o,))


def _BLOCK_X(n, o) -> bool:
    """Whether `_dft_conv` builds its block matrix from the input's transform (N examples)
    rather than the kernel's (O outputs): the smaller one, whose block is 4 F N C (4 F C O)
    values. LeNet's conv2: its forward and kernel gradient block the input, its input
    gradient (O = 32 < N = 64) the kernel; each the faster choice there."""
    return n <= o


def _conv_aval(lhs, rhs, **params):
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"conv_general_dilated: operand dtypes differ: {lhs.str_short()} and "
                        f"{rhs.str_short()}; cast one of them (e.g. rhs.astype(lhs.dtype))")
    if len(lhs.shape) != len(rhs.shape) or len(lhs.shape) != len(params["window_strides"]) + 2:
        raise ValueError(f"conv_general_dilated: lhs {lhs.shape} and rhs {rhs.shape} must both "
                         f"have {len(params['window_strides'])} spatial dims plus 2")
    return ShapedArray(_conv_shape(lhs.shape, rhs.shape, **params), lhs.dtype)


conv_general_dilated_p = Primitive("conv_general_dilated")
conv_general_dilated_p.impl = _conv_impl
conv_general_dilated_p.abstract_eval = _conv_aval
conv_general_dilated_p.fresh_output = True


def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding,
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers=None, feature_group_count: int = 1):
    """General dilated convolution (cross-correlation, as JAX's `lax.conv_general_dilated`).

    `padding` is 'SAME', 'SAME_LOWER', 'VALID' or a sequence of `(lo, hi)` per spatial dim;
    `dimension_numbers` is None (NCHW / OIHW / NCHW), a triple of layout strings such as
    `('NHWC', 'HWIO', 'NHWC')`, or a triple of dim permutations.

    Example:
        >>> x, w = np.ones((1, 1, 5, 5)), np.ones((2, 1, 3, 3))
        >>> fg.lax.conv_general_dilated(x, w, (1, 1), "VALID").shape
        (1, 2, 3, 3)
    """
    params = _conv_params(aval_of(lhs).shape, aval_of(rhs).shape, window_strides, padding,
                          lhs_dilation, rhs_dilation, dimension_numbers, feature_group_count)
    return conv_general_dilated_p.bind(lhs, rhs, **params)


def _conv_params(lshape, rshape, window_strides, padding, lhs_dilation, rhs_dilation,
                 dimension_numbers, feature_group_count):
    """conv_general_dilated's arguments as the primitive's normalized params."""
    nd = len(lshape) - 2
    fn, per = "conv_general_dilated", f"spatial dim of lhs (shape {tuple(lshape)})"
    if nd < 0 or len(rshape) != len(lshape):
        raise ValueError(f"conv_general_dilated: lhs {tuple(lshape)} and rhs {tuple(rshape)} "
                         f"must have the same rank: batch and feature dims plus the spatial "
                         f"dims")
    strides = int_tuple(fn, "window_strides", window_strides, nd, 1, per)
    ld = int_tuple(fn, "lhs_dilation", lhs_dilation, nd, 1, per) if lhs_dilation is not None \
        else (1,) * nd
    rd = int_tuple(fn, "rhs_dilation", rhs_dilation, nd, 1, per) if rhs_dilation is not None \
        else (1,) * nd
    groups = int_scalar(fn, "feature_group_count", feature_group_count, 1)
    dn = _normalize_dn(dimension_numbers, nd)
    k_sizes = [rshape[b] for b in dn[1][2:]]
    if 0 in k_sizes:
        raise ValueError(f"conv_general_dilated: the kernel's spatial dims {k_sizes} must be "
                         f"positive (rhs shape {tuple(rshape)}, dimension_numbers {dn}): an "
                         f"empty window has no output")
    pads = _padding_pairs(padding, [lshape[a] for a in dn[0][2:]], k_sizes, strides, ld, rd)
    return dict(window_strides=strides, padding=pads, lhs_dilation=ld, rhs_dilation=rd,
                dimension_numbers=dn, feature_group_count=groups)


def conv_general_shape(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                       window_strides: Sequence[int], padding,
                       lhs_dilation: Sequence[int] | None = None,
                       rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                       feature_group_count: int = 1) -> tuple:
    """The output shape `conv_general_dilated` gives for operands of these shapes (same
    arguments), computed without operands (for layers' shape rules).

    Example:
        >>> fg.lax.convolution.conv_general_shape((1, 1, 5, 5), (2, 1, 3, 3), (2, 2), "SAME")
        (1, 2, 3, 3)
    """
    lshape, rshape = tuple(lhs_shape), tuple(rhs_shape)
    return _conv_shape(lshape, rshape, **_conv_params(
        lshape, rshape, window_strides, padding, lhs_dilation, rhs_dilation,
        dimension_numbers, feature_group_count))


def conv(lhs, rhs, window_strides: Sequence[int], padding):
    """NCHW / OIHW convolution (JAX's `lax.conv`).

    Example:
        >>> fg.lax.conv(np.ones((1, 1, 4, 4)), np.ones((1, 1, 2, 2)), (1, 1), "SAME").shape
        (1, 1, 4, 4)
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding)


# (lhs, rhs, out) layouts conv_transpose assumes by rank (TensorFlow's, as JAX's)
_TRANSPOSE_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                      4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def _conv_transpose_pads(k: int, s: int, mode: str):
    """(lo, hi) padding of the s-dilated input for a transposed conv of kernel extent k and
    stride s: 'SAME' makes the output n * s long, 'VALID' n * s + max(k - s, 0) (the full
    reach of every kernel copy), as JAX and Keras."""
    if mode == "SAME":
        total = k + s - 2
        lo = k - 1 if s > k - 1 else -(-total // 2)
    else:
        total = k + s - 2 + max(k - s, 0)
        lo = k - 1
    return lo, total - lo


def conv_transpose_args(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                        strides: Sequence[int], padding, rhs_dilation=None,
                        dimension_numbers=None) -> dict:
    """The keyword arguments of the `conv_general_dilated` that `conv_transpose` runs, for
    operands of these shapes (so `conv_general_shape(lhs_shape, rhs_shape, **args)` is its
    output shape).

    Example:
        >>> args = fg.lax.convolution.conv_transpose_args((1, 3, 1), (2, 1, 1), (2,), "VALID")
        >>> args["lhs_dilation"], args["padding"]
        ((2,), ((1, 1),))
    """
    nd = len(lhs_shape) - 2
    if dimension_numbers is None:
        if len(lhs_shape) not in _TRANSPOSE_LAYOUTS:
            raise ValueError(f"conv_transpose: no default dimension_numbers for rank-"
                             f"{len(lhs_shape)} operands (lhs shape {tuple(lhs_shape)}); pass "
                             f"dimension_numbers, e.g. ('NCHW', 'OIHW', 'NCHW') for rank 4")
        dimension_numbers = _TRANSPOSE_LAYOUTS[len(lhs_shape)]
    dn = _normalize_dn(dimension_numbers, nd)
    per = f"spatial dim of lhs (shape {tuple(lhs_shape)})"
    strides = int_tuple("conv_transpose", "strides", strides, nd, 1, per)
    rd = int_tuple("conv_transpose", "rhs_dilation", rhs_dilation, nd, 1, per) \
        if rhs_dilation is not None else (1,) * nd
    if isinstance(padding, str):
        mode = padding.upper()
        if mode not in ("SAME", "VALID"):
            raise ValueError(f"conv_transpose: padding {padding!r} must be 'SAME', 'VALID' or "
                             "a sequence of (lo, hi) pairs (the padding of the dilated input)")
        ks = [rhs_shape[b] for b in dn[1][2:]]
        pads = tuple(_conv_transpose_pads((k - 1) * d + 1, s, mode)
                     for k, d, s in zip(ks, rd, strides))
    else:
        pads = _pad_pairs("conv_transpose", padding, nd, per)
    return dict(window_strides=(1,) * nd, padding=pads, lhs_dilation=strides, rhs_dilation=rd,
                dimension_numbers=dn)


def conv_transpose(lhs, rhs, strides: Sequence[int], padding,
                   rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                   transpose_kernel: bool = False):
    """Transposed ("fractionally strided") convolution, JAX's `lax.conv_transpose`: a
    stride-1 conv of lhs with `strides - 1` zeros inserted between its elements (lhs
    dilation), so each input element spreads a copy of the kernel over the output.

    `padding` 'SAME' gives spatial sizes `n * stride`, 'VALID' `n * stride + max(k - stride,
    0)` (k the dilated kernel extent); explicit `(lo, hi)` pairs pad the dilated input
    directly. `dimension_numbers` defaults to ('NHWC', 'HWIO', 'NHWC') and its other-rank
    forms. The kernel is used as given (no flip, 'I' matches lhs's channels); with
    `transpose_kernel=True` it is flipped and its in / out axes swapped, which makes the
    result the gradient of `conv_general_dilated` with that kernel (Keras' Conv2DTranspose).

    Example:
        >>> x, w = np.ones((1, 3, 3, 1)), np.ones((2, 2, 1, 1))
        >>> fg.lax.conv_transpose(x, w, (2, 2), "VALID").shape
        (1, 6, 6, 1)
        >>> fg.lax.conv_transpose(np.ones((1, 2, 1)), np.ones((3, 1, 1)), (2,), "SAME")[0, :, 0]
        array([1., 1., 2., 1.])
    """
    la, ra = aval_of(lhs), aval_of(rhs)
    if len(la.shape) != len(ra.shape) or len(la.shape) < 2:
        raise ValueError(f"conv_transpose: lhs (shape {la.shape}) and rhs (shape {ra.shape}) "
                         f"must have the same rank, batch and feature dims plus the spatial "
                         f"dims; reshape one of them")
    args = conv_transpose_args(la.shape, ra.shape, strides, padding, rhs_dilation,
                               dimension_numbers)
    rs = args["dimension_numbers"][1]
    if transpose_kernel:
        rhs = _flip(rhs, set(rs[2:]))
        perm = list(range(len(ra.shape)))
        perm[rs[0]], perm[rs[1]] = rs[1], rs[0]
        rhs = transpose(rhs, tuple(perm))
    return conv_general_dilated(lhs, rhs, **args)


# --------------------------------------------------------------------------- JVP
def _conv_jvp(primals, tangents, **params):
    lhs, rhs = primals
    tl, tr = tangents
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    t = ZERO
    if tl is not ZERO:
        t = conv_general_dilated_p.bind(tl, rhs, **params)
    if tr is not ZERO:
        t2 = conv_general_dilated_p.bind(lhs, tr, **params)
        t = t2 if t is ZERO else add(t, t2)
    return out, t


conv_general_dilated_p.jvp = _conv_jvp


# --------------------------------------------------------------------------- transpose
def _flip(x, axes):
    nd = aval_of(x).ndim
    spec = tuple(("slice", None, None, -1) if i in axes else _ALL for i in range(nd))
    return getitem_p.bind(x, spec=spec)


def _transpose_lhs(ct, rhs, lhs_shape, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, feature_group_count):
    """d lhs = conv(ct, flipped kernel with in/out features swapped): the strides become
    lhs dilation, the lhs dilation the strides, and the pads the rest of a 'full' conv.

    Per spatial dim (padded dilated input length P, kernel extent E = (K-1)*rd + 1, output
    length M): input position i + lo receives ct[j] * w[k] where j*s + k*rd = i + lo, i.e. a
    stride-1 conv of the s-dilated ct with the flipped kernel, left pad E - 1 - lo, right pad
    making the length (n-1)*ld + 1, read every ld-th position.
    """
    ls, rs, os_ = dimension_numbers
    rshape = aval_of(rhs).shape
    g = feature_group_count
    pads = []
    for a, b, (lo, hi), s, ld, rd in zip(ls[2:], rs[2:], padding, window_strides, lhs_dilation,
                                        rhs_dilation):
        n, k = lhs_shape[a], rshape[b]
        m = aval_of(ct).shape[os_[2 + len(pads)]]
        eff = (k - 1) * rd + 1
        p_lo = eff - 1 - lo
        # the padded, s-dilated ct must be (n - 1) * ld + eff long (eff - 1: no output for
        # an empty lhs); an empty ct dilates to length 0, not 1 (every output read padding)
        target = (n - 1) * ld + eff if n else eff - 1
        p_hi = target - p_lo - ((m - 1) * s + 1 if m else 0)
        pads.append((p_lo, p_hi))
    w = _flip(rhs, set(rs[2:]))
    if g == 1:
        rspec = (rs[1], rs[0]) + tuple(rs[2:])
    else:  # (G*Og, Cg, K) -> (G*Cg, Og, K): swap in/out features inside each group
        w = transpose(w, rs)  # canonical (O, I, *K)
        o, i = rshape[rs[0]], rshape[rs[1]]
        ksz = tuple(rshape[b] for b in rs[2:])
        w = reshape(w, (g, o // g, i) + ksz)
        w = transpose(w, (0, 2, 1) + tuple(range(3, 3 + len(ksz))))
        w = reshape(w, (g * i, o // g) + ksz)
        rspec = tuple(range(len(ksz) + 2))
    return conv_general_dilated_p.bind(
        ct, w, window_strides=tuple(lhs_dilation), padding=tuple(pads),
        lhs_dilation=tuple(window_strides), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=(os_, rspec, ls), feature_group_count=g)


def _transpose_rhs(ct, lhs, rhs_shape, *, window_strides, padding, lhs_dilation,
                   rhs_dilation, dimension_numbers, feature_group_count):
    """d rhs[o, c, k] = sum_{n, j} ct[n, o, j] x_pad[n, c, j*s + k*rd]: a conv of lhs (batch
    and feature dims swapped) with ct as the kernel, strides and rhs dilation swapped; the
    right pad drops the tail no window read. Feature groups: one such conv per group
    (a loop of G convs: fine for a few groups, slow for depthwise convs)."""
    ls, rs, os_ = dimension_numbers
    lshape, ctshape = aval_of(lhs).shape, aval_of(ct).shape
    pads = []
    for idx, (a, b, (lo, hi), s, ld, rd) in enumerate(zip(ls[2:], rs[2:], padding,
                                                         window_strides, lhs_dilation,
                                                         rhs_dilation)):
        n, k, m = lshape[a], rhs_shape[b], ctshape[os_[2 + idx]]
        padded = (max(n - 1, 0) * ld + (1 if n else 0)) + lo + hi
        # (an empty ct, m = 0, is a kernel of extent (m - 1) * s + 1 for _out_size)
        unused = padded - ((k - 1) * rd + 1) - (m - 1) * s
        pads.append((lo, hi - unused))
    dn = ((ls[1], ls[0]) + tuple(ls[2:]), (os_[1], os_[0]) + tuple(os_[2:]),
          (rs[1], rs[0]) + tuple(rs[2:]))
    params = dict(window_strides=tuple(rhs_dilation), padding=tuple(pads),
                  lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(window_strides),
                  dimension_numbers=dn, feature_group_count=1)
    g = feature_group_count
    if g == 1:
        return conv_general_dilated_p.bind(lhs, ct, **params)
    cg, og = lshape[ls[1]] // g, ctshape[os_[1]] // g
    parts = [conv_general_dilated_p.bind(slice_along(lhs, ls[1], k * cg, (k + 1) * cg),
                                         slice_along(ct, os_[1], k * og, (k + 1) * og),
                                         **params) for k in range(g)]
    return concatenate(parts, rs[0])


def _conv_transpose(ct, lhs, rhs, **params):
    if type(lhs) is Var:
        return [_transpose_lhs(ct, rhs, lhs.aval.shape, **params), None]
    return [None, _transpose_rhs(ct, lhs, rhs.aval.shape, **params)]


conv_general_dilated_p.transpose = _conv_transpose


# --------------------------------------------------------------------------- batching
def _fold(x, bd, dim, groups=1):
    """Merge x's batch axis `bd` into its dim `dim` (numbered without the batch axis), the
    batch inside each of `groups` blocks: sizes (groups, B, S/groups) -> one axis."""
    x = moveaxis(x, bd, dim)  # batch at `dim`, the target right after it
    shape = aval_of(x).shape
    b, s = shape[dim], shape[dim + 1]
    rest_l, rest_r = shape[:dim], shape[dim + 2:]
    if groups > 1:
        x = reshape(x, rest_l + (b, groups, s // groups) + rest_r)
        perm = list(range(len(rest_l))) + [dim + 1, dim, dim + 2] + list(
            range(dim + 3, dim + 3 + len(rest_r)))
        x = transpose(x, perm)
    return reshape(x, rest_l + (b * s,) + rest_r)


def _unfold(y, dim, b, groups=1):
    """Inverse of `_fold` on an output: split `dim` into (batch, rest); batch at `dim`."""
    shape = aval_of(y).shape
    rest_l, rest_r, s = shape[:dim], shape[dim + 1:], shape[dim] // b
    if groups == 1:
        return reshape(y, rest_l + (b, s) + rest_r)
    y = reshape(y, rest_l + (groups, b, s // groups) + rest_r)
    perm = list(range(len(rest_l))) + [dim + 1, dim, dim + 2] + list(
        range(dim + 3, dim + 3 + len(rest_r)))
    y = transpose(y, perm)
    return reshape(y, rest_l + (b, s) + rest_r)


def _conv_batch(vals, dims, axis_size, **params):
    """lhs batched: the batch joins lhs's batch dim. rhs batched: it joins the output
    features (inside each feature group). Both: it joins the feature groups
    (feature_group_count * B), so each example's features meet only its own kernel."""
    (lhs, rhs), (dl, dr) = vals, dims
    ls, rs, os_ = params["dimension_numbers"]
    g = params["feature_group_count"]
    if axis_size == 0:  # vmap over no examples: no batch to fold (or split off by size 0)
        one = [aval_of(v) if d is None else ShapedArray(
            aval_of(v).shape[:d] + aval_of(v).shape[d + 1:], aval_of(v).dtype)
            for v, d in zip(vals, dims)]
        out = conv_general_dilated_p.abstract_eval(*one, **params)
        return np.zeros((0,) + out.shape, out.dtype), 0
    if dr is None:
        y = conv_general_dilated_p.bind(_fold(lhs, dl, ls[0]), rhs, **params)
        return _unfold(y, os_[0], axis_size), os_[0]
    if dl is None:
        y = conv_general_dilated_p.bind(lhs, _fold(rhs, dr, rs[0], g), **params)
        return _unfold(y, os_[1], axis_size, g), os_[1]
    params = dict(params, feature_group_count=g * axis_size)
    y = conv_general_dilated_p.bind(_fold(lhs, dl, ls[1]), _fold(rhs, dr, rs[0]), **params)
    return _unfold(y, os_[1], axis_size), os_[1]


conv_general_dilated_p.batch = _conv_batch

CONV_PRIMITIVES = [conv_general_dilated_p]


# --------------------------------------------------------------------------- reduce_window
# (reduction, identity, combine with a non-identity init) by computation name
_WINDOW_REDUCTIONS = {
    "add": (reduce_sum, 0.0, add), "sum": (reduce_sum, 0.0, add),
    "max": (reduce_max, -np.inf, maximum), "maximum": (reduce_max, -np.inf, maximum),
    "min": (reduce_min, np.inf, minimum), "minimum": (reduce_min, np.inf, minimum),
}


def _tiles(shape, wd, strides, pads, bd, wdil) -> bool:
    """Whether the windows tile the operand: no overlap, gaps, padding or dilation (a tail
    shorter than a window is dropped, as the general path does), at least one window, and
    something to reduce (all-1 windows keep the general path, which returns a new array)."""
    return (tuple(strides) == wd and any(k > 1 for k in wd) and all(d == 1 for d in bd + wdil)
            and all(p == (0, 0) for p in pads) and all(n >= k > 0 for n, k in zip(shape, wd)))


def _reduce_tiles(operand, shape, wd, reduce):
    """The tiling windows' reductions: crop the tail no window reads, split each pooled dim
    n into (n // k, k), reduce the k axes."""
    out = tuple(n // k for n, k in zip(shape, wd))
    if any(o * k != n for o, k, n in zip(out, wd, shape)):
        operand = getitem_p.bind(operand, spec=tuple(("slice", 0, o * k, None)
                                                     for o, k in zip(out, wd)))
    split, axes = [], []
    for o, k in zip(out, wd):
        split += [o, k] if k > 1 else [o]
        if k > 1:
            axes.append(len(split) - 1)
    return reduce(reshape(operand, tuple(split)), tuple(axes))


def reduce_window(operand, init_value, computation, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding="VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None):
    """Reduce every window of `operand` (JAX's `lax.reduce_window`) with `computation`:
    "add", "max" or "min" (or fg.lax's / fnp's add, maximum, minimum). Windows span every
    dim (size 1 where nothing is pooled); padding and base-dilation holes are not read (as
    XLA's), and `init_value` starts each reduction (a sum with init 1 adds 1 per window).
    Average pooling is the "add" result / window size.

    Built from primitives, so every transform applies: the windows are gathered by a
    convolution with a one-hot kernel (im2col; its transpose scatters cotangents back), then
    reduced (max/min spread a tie's cotangent evenly, as `reduce_max` does). Windows that
    tile the operand (stride == window, no padding or dilation: 2x2 stride-2 pooling) skip
    the gather: a reshape splits each dim into (window index, offset) and the offsets are
    reduced, with the same values and gradients.

    Example:
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> fg.lax.reduce_window(x, -np.inf, "max", (1, 1, 2, 2), (1, 1, 2, 2)).shape
        (1, 1, 2, 2)
    """
    name = computation if isinstance(computation, str) else getattr(computation, "__name__", "")
    if name not in _WINDOW_REDUCTIONS:
        raise ValueError(f"reduce_window: computation {computation!r} must be 'add', 'max' or "
                         "'min' (or fg.lax / fnp add, maximum, minimum)")
    reduce, identity, combine = _WINDOW_REDUCTIONS[name]
    aval = aval_of(operand)
    shape, nd = tuple(aval.shape), len(aval.shape)
    if np.ndim(init_value) != 0:
        raise TypeError(f"reduce_window: init_value must be a scalar, got shape "
                        f"{np.shape(init_value)}")
    per = f"dim of the operand (shape {shape})"
    ones = (1,) * nd
    wd = int_tuple("reduce_window", "window_dimensions", window_dimensions, nd, 1, per)
    strides = int_tuple("reduce_window", "window_strides", window_strides, nd, 1, per) \
        if window_strides is not None else ones
    bd = int_tuple("reduce_window", "base_dilation", base_dilation, nd, 1, per) \
        if base_dilation is not None else ones
    wdil = int_tuple("reduce_window", "window_dilation", window_dilation, nd, 1, per) \
        if window_dilation is not None else ones
    # a string padding is computed from the operand's own (not base-dilated) shape, as
    # JAX's padtype_to_pads(operand.shape, dilated window, strides)
    pads = _padding_pairs(padding, shape, wd, strides, ones, wdil, "reduce_window", per)
    init = init_value.item() if isinstance(init_value, np.generic) else init_value
    if _tiles(shape, wd, strides, pads, bd, wdil):
        out = _reduce_tiles(operand, shape, wd, reduce)
        return combine(out, init) if init != identity else out
    out_shape = tuple(_out_size(n, lo, hi, d, k, r, st) for n, (lo, hi), d, k, r, st
                      in zip(shape, pads, bd, wd, wdil, strides))
    # XLA reads no padding or base-dilation hole: a sum's holes hold 0, so that a nonzero
    # init is added once per window, not once per hole too (max / min may hold the init
    # there: it is theirs to take either way, and an integer operand has no +-inf)
    x = _fill_dilate_pad(operand, pads, bd, 0 if reduce is reduce_sum else init, aval.dtype)
    # one strided slice per window offset (a gather: a product with a one-hot kernel would
    # turn an infinite element into nan, inf * 0); sums add them up, max / min reduce them
    # stacked, so that a tie's cotangent is spread evenly as `reduce_max` does
    parts = [getitem_p.bind(x, spec=tuple(
        ("slice", kk * r, kk * r + (m - 1) * st + 1, st) if m else ("slice", 0, 0, None)
        for kk, r, m, st in zip(offset, wdil, out_shape, strides)))
        for offset in np.ndindex(*wd)]
    if not parts:  # an empty window: the init alone
        return np.full(out_shape, init, aval.dtype)
    if reduce is reduce_sum:
        out = parts[0]
        for part in parts[1:]:
            out = add(out, part)
        if len(parts) == 1:  # (a fresh array, not a view of the operand)
            out = add(out, np.zeros((), aval.dtype))
    else:
        out = reduce(concatenate([reshape(p_, (1,) + out_shape) for p_ in parts], 0), (0,))
    if init != identity:  # the init also starts every reduction
        out = combine(out, init)
    return out


def _fill_dilate_pad(x, pads, base_dilation, value, dtype):
    """x with `value` between its elements (base dilation) and as padding (XLA's order:
    dilate, then pad both ends at once, negative pads cropping), from primitives."""
    for a, d in enumerate(base_dilation):
        shape = aval_of(x).shape
        n = shape[a]
        if d > 1 and n > 1:  # (n, d) with the holes in the second column, then flattened
            x = concatenate([reshape(x, shape[:a + 1] + (1,) + shape[a + 1:]),
                             np.full(shape[:a + 1] + (d - 1,) + shape[a + 1:], value, dtype)],
                            a + 1)
            x = slice_along(reshape(x, shape[:a] + (n * d,) + shape[a + 1:]), a, 0,
                            (n - 1) * d + 1)
    for a, (lo, hi) in enumerate(pads):
        shape = aval_of(x).shape
        if lo > 0 or hi > 0:
            def block(k):
                return [np.full(shape[:a] + (k,) + shape[a + 1:], value, dtype)] if k > 0 else []
            x = concatenate(block(lo) + [x] + block(hi), a)
        if lo < 0 or hi < 0:
            n = aval_of(x).shape[a]
            start = min(-min(lo, 0), n)
            x = slice_along(x, a, start, max(n + min(hi, 0), start))
    return x
