"""fungrad.scipy.ndimage: `map_coordinates` (`scipy.ndimage.map_coordinates` with order 0 or
1, as jax.scipy.ndimage).

Written with fnp: the corner values are gathered with `fnp.take` on flat indices and
weighted by the distances to the coordinates, so the result differentiates in `input` and
(order 1, piecewise linear) in `coordinates`; grad, jit and vmap compose with it.

Example:
    >>> import numpy as np, fungrad.scipy.ndimage as fnd
    >>> fnd.map_coordinates(np.arange(12.0).reshape(3, 4), [[0.5, 2.0], [0.5, 1.0]], order=1)
    array([2.5, 9. ])
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import numpy as fnp
from ..backend import asarray as _asarray
from ..numpy._base import (dtype_of as _dtype_of, is_traced as _is_traced, lift as _lift,
                           shape_of as _shape_of)

if TYPE_CHECKING:   # (a module-level Sequence would be a public name)
    from collections.abc import Sequence

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts

__all__ = ["map_coordinates"]


def _mirror(index, size):
    s = size - 1   # half-wavelength of the triangular wave
    if s == 0:
        return index * 0
    return fnp.abs((index + s) % (2 * s) - s)


def _reflect(index, size):
    return fnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


_FIXERS = {
    "constant": lambda index, size: fnp.clip(index, 0, size - 1),
    "nearest": lambda index, size: fnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away(c):
    return fnp.where(c >= 0, fnp.floor(c + 0.5), -fnp.floor(0.5 - c))


def _array(x):
    x = _lift(x)
    return x if _is_traced(x) else _asarray(x)


def map_coordinates(input: ArrayLike, coordinates: Sequence[ArrayLike], order: int,
                    mode: str = "constant", cval: ArrayLike = 0.0) -> Array:
    """Values of `input` at the (fractional) `coordinates`, one array per axis of `input`
    (SciPy's `ndimage.map_coordinates`): order 0 takes the nearest sample (halves round away
    from zero), order 1 interpolates linearly; outside the input, `mode` 'constant' (corners
    outside read `cval`), 'nearest', 'wrap', 'mirror' or 'reflect' (jax.scipy.ndimage's
    modes and semantics). Integer inputs give rounded integers.

    Example:
        >>> image = np.arange(12.0).reshape(3, 4)
        >>> fg.scipy.ndimage.map_coordinates(image, [[0.5, 2.0], [0.5, 1.0]], order=1)
        array([2.5, 9. ])
        >>> fg.grad(lambda c: fg.scipy.ndimage.map_coordinates(image, [c, 0.5], order=1))(1.25)
        array(4.)
    """
    x = _array(input)
    coords = [_array(c) for c in coordinates]
    shape = _shape_of(x)
    if len(coords) != len(shape):
        raise ValueError(f"ndimage.map_coordinates: coordinates must be a sequence of length "
                         f"input.ndim ({len(shape)}), got {len(coords)}")
    if mode not in _FIXERS:
        raise NotImplementedError(f"ndimage.map_coordinates: mode {mode!r} is not supported; "
                                  f"use one of {sorted(_FIXERS)}")
    if order not in (0, 1):
        raise NotImplementedError(f"ndimage.map_coordinates: order {order!r} is not "
                                  "supported; use 0 (nearest) or 1 (linear)")
    dt = _dtype_of(x)
    integer = dt.kind in "biu"
    wdt = np.dtype(np.float64) if integer else dt
    if dt.kind == "c":
        wdt = np.dtype(np.float32 if dt == np.complex64 else np.float64)
    coords = fnp.broadcast_arrays(*coords) if coords else coords
    flat = fnp.reshape(x, (-1,))
    strides = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
    per_axis = []
    for c, size in zip(coords, shape):
        if _dtype_of(c).kind not in "fc":
            c = c.astype(wdt)
        if order == 0:
            nodes = [(_round_half_away(c).astype(np.int64), None)]
        else:
            lower = fnp.floor(c)
            upper_w = (c - lower).astype(wdt)
            index = lower.astype(np.int64)
            nodes = [(index, 1 - upper_w), (index + 1, upper_w)]
        per_axis.append([(_FIXERS[mode](i, size), (i >= 0) & (i < size), w, size)
                         for i, w in nodes])
    total = None
    for corner in itertools.product(*per_axis):
        flat_index = sum(fixed * stride for (fixed, _, _, _), stride in zip(corner, strides))
        value = fnp.take(flat, flat_index) if shape else fnp.broadcast_to(x, ())
        if integer:
            value = value.astype(wdt)
        if mode == "constant":
            valid = corner[0][1]
            for _, v, _, _ in corner[1:]:
                valid = valid & v
            value = fnp.where(valid, value, fnp.asarray(cval).astype(value.dtype))
        weights = [w for _, _, w, _ in corner if w is not None]
        for w in weights:
            value = value * w
        total = value if total is None else total + value
    if total is None:   # a 0-d input: its value
        return x
    if integer:
        total = _round_half_away(total).astype(dt)
    return total
