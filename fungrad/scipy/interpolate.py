"""fungrad.scipy.interpolate: `RegularGridInterpolator` (`scipy.interpolate`'s, as
jax.scipy.interpolate: methods 'linear' and 'nearest', no bounds errors).

Written with fnp (`fnp.searchsorted` finds each coordinate's cell, `fnp.take` gathers the
corners), so the result differentiates in the grid values and (linear) in the query points;
the interpolator is a pytree (grid, values, fill_value), so it can be passed through jit,
grad and vmap.

Example:
    >>> import numpy as np, fungrad.scipy.interpolate as fip
    >>> f = fip.RegularGridInterpolator((np.array([0.0, 1.0]),), np.array([0.0, 10.0]))
    >>> f(np.array([[0.25]]))
    array([2.5])
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import numpy as fnp
from ..backend import asarray as _asarray
from ..numpy._base import (dtype_of as _dtype_of, is_traced as _is_traced, lift as _lift,
                           shape_of as _shape_of)
from ..tree import register_pytree_node as _register_pytree_node

if TYPE_CHECKING:   # (a module-level Sequence would be a public name)
    from collections.abc import Sequence

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts

__all__ = ["RegularGridInterpolator"]
_METHODS = ("linear", "nearest")


def _array(x):
    x = _lift(x)
    return x if _is_traced(x) else _asarray(x)


class RegularGridInterpolator:
    """Interpolation on a rectilinear grid (SciPy's `interpolate.RegularGridInterpolator`
    with `bounds_error=False`): `points` holds one strictly increasing coordinate array per
    leading axis of `values`; a query outside the grid gives `fill_value` (NaN by default),
    or, with `fill_value=None`, the extrapolation of the edge cell.

    Example:
        >>> points = (np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))
        >>> values = np.array([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0], [70.0, 80.0, 90.0]])
        >>> f = fg.scipy.interpolate.RegularGridInterpolator(points, values)
        >>> f(np.array([[1.5, 4.5], [2.2, 5.8]]))
        array([30., 64.])
        >>> fg.grad(lambda v: fg.scipy.interpolate.RegularGridInterpolator(points, v)(
        ...     np.array([1.5, 4.5])).sum())(values)[0]
        array([0.25, 0.25, 0.  ])
    """

    def __init__(self, points: Sequence[ArrayLike], values: ArrayLike, method: str = "linear",
                 bounds_error: bool = False, fill_value: ArrayLike | None = np.nan):
        if method not in _METHODS:
            raise ValueError(f"interpolate.RegularGridInterpolator: method {method!r} is not "
                             f"defined (use one of {_METHODS})")
        if bounds_error:
            raise NotImplementedError("interpolate.RegularGridInterpolator: bounds_error=True "
                                      "is not supported (it would need the values of the "
                                      "query points under jit); pass bounds_error=False")
        self.method = method
        self.bounds_error = bounds_error
        values = _array(values)
        if _dtype_of(values).kind in "biu":
            values = values.astype(np.float64)
        if len(points) > len(_shape_of(values)):
            raise ValueError(f"interpolate.RegularGridInterpolator: there are {len(points)} "
                             f"point arrays, but values has {len(_shape_of(values))} "
                             "dimensions")
        self.grid = tuple(_array(p) for p in points)
        for i, g in enumerate(self.grid):
            if len(_shape_of(g)) != 1 or _shape_of(g)[0] != _shape_of(values)[i]:
                raise ValueError(f"interpolate.RegularGridInterpolator: points[{i}] must be 1-d "
                                 f"of length values.shape[{i}] = {_shape_of(values)[i]}, got "
                                 f"shape {_shape_of(g)}")
        if fill_value is not None:
            fill_value = _array(fill_value)
            if (_dtype_of(fill_value).kind == "c" and _dtype_of(values).kind != "c"):
                raise ValueError("interpolate.RegularGridInterpolator: fill_value must be "
                                 "None or of a type compatible with values")
        self.values = values
        self.fill_value = fill_value

    def _find_indices(self, xi):
        indices, distances, outside = [], [], None
        for x, g in zip(xi, self.grid):
            n = _shape_of(g)[0]
            i = fnp.clip(fnp.searchsorted(g, x) - 1, 0, max(n - 2, 0))
            lo, hi = fnp.take(g, i), fnp.take(g, fnp.minimum(i + 1, n - 1))
            indices.append(i)
            distances.append((x - lo) / (hi - lo) if n > 1 else x * 0)
            out = (x < g[0]) | (x > g[-1])
            outside = out if outside is None else outside | out
        return indices, distances, outside

    def __call__(self, xi: ArrayLike, method: str | None = None) -> Array:
        """The interpolated values at the points `xi` (..., ndim), or a tuple of ndim
        coordinate arrays (broadcast together): shape `xi.shape[:-1] +
        values.shape[ndim:]`."""
        method = self.method if method is None else method
        if method not in _METHODS:
            raise ValueError(f"interpolate.RegularGridInterpolator: method {method!r} is not "
                             f"defined (use one of {_METHODS})")
        ndim = len(self.grid)
        if isinstance(xi, tuple):
            xi = xi[0] if len(xi) == 1 else fnp.stack(fnp.broadcast_arrays(*xi), axis=-1)
        xi = _array(xi)
        if len(_shape_of(xi)) <= 1:
            xi = fnp.reshape(xi, (-1, ndim))
        if _shape_of(xi)[-1] != ndim:
            raise ValueError(f"interpolate.RegularGridInterpolator: the requested sample "
                             f"points xi have dimension {_shape_of(xi)[-1]}, but this "
                             f"interpolator has dimension {ndim}")
        lead = _shape_of(xi)[:-1]
        xi = fnp.reshape(xi, (-1, ndim))
        if _dtype_of(xi).kind not in "fc":
            xi = xi.astype(np.float64)
        cols = [xi[:, d] for d in range(ndim)]
        indices, distances, outside = self._find_indices(cols)
        vshape = _shape_of(self.values)
        trailing = vshape[ndim:]
        flat = fnp.reshape(self.values, (int(np.prod(vshape[:ndim])),) + trailing)
        strides = [int(np.prod(vshape[d + 1:ndim])) for d in range(ndim)]
        expand = (slice(None),) + (None,) * len(trailing)
        if method == "nearest":
            idx = [fnp.where(y <= 0.5, i, i + 1) for i, y in zip(indices, distances)]
            result = fnp.take(flat, sum(i * s for i, s in zip(idx, strides)), axis=0)
        else:
            result = None
            for corner in itertools.product(*[(0, 1)] * ndim):
                idx = [fnp.minimum(i + c, _shape_of(g)[0] - 1)
                       for i, c, g in zip(indices, corner, self.grid)]
                weight = None
                for c, y in zip(corner, distances):
                    w = y if c else 1 - y
                    weight = w if weight is None else weight * w
                term = fnp.take(flat, sum(i * s for i, s in zip(idx, strides)), axis=0) \
                    * weight[expand]
                result = term if result is None else result + term
        if self.fill_value is not None:
            result = fnp.where(outside[expand], self.fill_value.astype(_dtype_of(result)),
                               result)
        return fnp.reshape(result, lead + trailing)


_register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]))
