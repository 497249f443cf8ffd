"""fungrad.scipy.integrate: the trapezoidal rule (`scipy.integrate.trapezoid` and
`cumulative_trapezoid`), differentiable in the samples `y` and the sample points `x`.

Example:
    >>> import numpy as np, fungrad.scipy.integrate as fint
    >>> float(fint.trapezoid(np.array([0.0, 1.0, 2.0])))
    2.0
"""
from __future__ import annotations

from typing import Any, Optional as _Optional

from .. import numpy as fnp
from ..numpy._base import shape_of as _shape_of, single_axis as _single_axis
from ._util import inexact as _inexact

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts

__all__ = ["trapezoid", "cumulative_trapezoid"]


def _pieces(fname, y, x, dx, axis):
    """The trapezoids' areas along `axis`: `d * (y[1:] + y[:-1]) / 2`, with the axis moved
    last; d = diff(x) (x 1-d along `axis`, or y's shape) or `dx`."""
    y, = _inexact(fname, y)
    nd = len(_shape_of(y))
    ax = _single_axis(fname, axis, nd)
    y = fnp.moveaxis(y, ax, -1)
    if x is None:
        d = dx
    else:
        x, = _inexact(fname, x)
        if len(_shape_of(x)) == 1:
            if _shape_of(x)[0] != _shape_of(y)[-1]:
                raise ValueError(f"integrate.{fname}: x has length {_shape_of(x)[0]} but y has "
                                 f"{_shape_of(y)[-1]} samples along axis {axis}")
        else:
            x = fnp.moveaxis(x, ax, -1)
        d = x[..., 1:] - x[..., :-1]
    return d * (y[..., 1:] + y[..., :-1]) * 0.5, ax


def trapezoid(y: ArrayLike, x: _Optional[ArrayLike] = None, dx: float = 1.0,
              axis: int = -1) -> Array:
    """The integral of `y` along `axis` by the trapezoidal rule, at sample points `x` (1-d,
    or y's shape) or spaced `dx` apart.

    Example:
        >>> fg.scipy.integrate.trapezoid(np.array([0.0, 1.0, 2.0]), dx=0.5)
        np.float64(1.0)
        >>> fg.grad(fg.scipy.integrate.trapezoid)(np.ones(3))   # the rule's weights
        array([0.5, 1. , 0.5])
    """
    pieces, _ = _pieces("trapezoid", y, x, dx, axis)
    return fnp.sum(pieces, axis=-1)


def cumulative_trapezoid(y: ArrayLike, x: _Optional[ArrayLike] = None, dx: float = 1.0,
                         axis: int = -1, initial: _Optional[float] = None) -> Array:
    """The running integral of `y` along `axis` (one value fewer than y, or with `initial`
    = 0 prepended, as SciPy allows).

    Example:
        >>> fg.scipy.integrate.cumulative_trapezoid(np.array([0.0, 1.0, 2.0]))
        array([0.5, 2. ])
        >>> fg.scipy.integrate.cumulative_trapezoid(np.array([0.0, 1.0, 2.0]), initial=0)
        array([0. , 0.5, 2. ])
    """
    if initial is not None and initial != 0:
        raise ValueError(f"integrate.cumulative_trapezoid: initial must be None or 0 (SciPy "
                         f"1.12+), got {initial!r}; add a constant to the result instead")
    pieces, ax = _pieces("cumulative_trapezoid", y, x, dx, axis)
    if fnp.shape(y)[ax] == 0:
        raise ValueError(f"integrate.cumulative_trapezoid: at least one point is required along "
                         f"axis {axis}; y has shape {fnp.shape(y)}")
    out = fnp.cumsum(pieces, axis=-1)
    if initial is not None:
        # (zeros of out's shape with a length-1 last axis: out[..., :1] is empty for one sample)
        out = fnp.concatenate([fnp.zeros(_shape_of(out)[:-1] + (1,), out.dtype), out], axis=-1)
    return fnp.moveaxis(out, -1, ax)
