"""`ravel_multi_index` and `unravel_index`: integer arithmetic between N-d indices and flat
ones (value only: integer outputs)."""
from __future__ import annotations

import numpy as np

from ..backend import asarray as _asarray
from ..core.trace import Tracer
from ..errors import ConcretizationError
from ._base import has_tracer, lift
from ._creation import asarray


def _strides(dims, order: str) -> list:
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    dims = list(dims)
    seq = dims[::-1] if order == "C" else dims
    strides, s = [], 1
    for d in seq:
        strides.append(s)
        s *= int(d)
    return strides[::-1] if order == "C" else strides


def _concrete_or_none(x):
    # (a CuPy value stays on its device: its min / max are taken there)
    if not isinstance(x, Tracer):
        return _asarray(x)
    try:
        return _asarray(x.to_concrete("an index bounds check"))
    except ConcretizationError:
        return None


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """`numpy.ravel_multi_index`: the flat index of each N-d index in an array of shape
    `dims` (C or F order). `mode` per dimension: 'raise' (out-of-bounds indices raise
    ValueError; inside jit/vmap, where they cannot be seen, use 'wrap' or 'clip'), 'wrap',
    'clip'.

    Example:
        >>> fnp.ravel_multi_index((np.array([0, 2]), np.array([1, 3])), (3, 4))   # i * 4 + j
        array([ 1, 11])
        >>> fnp.ravel_multi_index((np.array([5]), np.array([1])), (3, 4), mode="clip")
        array([9])
    """
    if not has_tracer(multi_index):
        return np.ravel_multi_index(multi_index, dims, mode=mode, order=order)
    dims = tuple(int(d) for d in dims)
    idx = [asarray(lift(i)) for i in multi_index]
    if len(idx) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(idx)} index arrays for {len(dims)} "
                         f"dimensions {dims}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    flat = 0
    for k, (i, d, m, s) in enumerate(zip(idx, dims, modes, _strides(dims, order))):
        if i.dtype.kind not in "iu":
            raise TypeError(f"ravel_multi_index: index array {k} has dtype {i.dtype}; "
                            "indices must be integers")
        if m == "wrap":
            i = i % d
        elif m == "clip":
            i = i.clip(0, d - 1)
        elif m == "raise":
            v = _concrete_or_none(i)
            if v is None:
                raise ConcretizationError(
                    f"ravel_multi_index(mode='raise') checks index array {k} against its "
                    f"bound {d}, but inside fg.jit / fg.vmap its values are abstract; pass "
                    "mode='wrap' or mode='clip'")
            if v.size and (v.min() < 0 or v.max() >= d):
                raise ValueError("invalid entry in coordinates array")
        else:
            raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', "
                             f"got {m!r}")
        flat = flat + i.astype(np.intp) * s
    return flat


def unravel_index(indices, shape, order="C"):
    """`numpy.unravel_index`: the N-d index (a tuple of arrays) of each flat index in an
    array of `shape`. Out-of-bounds indices raise ValueError where they can be seen
    (concrete values); inside jit/vmap they are clamped into range, as JAX does.

    Example:
        >>> fnp.unravel_index(np.array([1, 11]), (3, 4))   # (k // 4, k % 4)
        (array([0, 2]), array([1, 3]))
        >>> fnp.unravel_index(6, (3, 4))
        (np.int64(1), np.int64(2))
    """
    if not has_tracer(indices):
        return np.unravel_index(indices, shape, order=order)
    shape = tuple(int(d) for d in shape)
    k = asarray(lift(indices))
    if k.dtype.kind not in "iu":
        raise TypeError(f"unravel_index: indices have dtype {k.dtype}; they must be integers")
    size = int(np.prod(shape))
    v = _concrete_or_none(k)
    if v is not None and v.size and (v.min() < 0 or v.max() >= size):
        raise ValueError(f"index {int(v.max() if v.max() >= size else v.min())} is out of "
                         f"bounds for array with size {size}")
    k = k.clip(0, max(size - 1, 0)).astype(np.intp)
    return tuple((k // s) % d for d, s in zip(shape, _strides(shape, order)))
