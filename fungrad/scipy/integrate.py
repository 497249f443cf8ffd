"""fungrad.scipy.integrate: the trapezoidal rule (`scipy.integrate.trapezoid` and
`cumulative_trapezoid`), differentiable in the samples `y` and the sample points `x`.

Example:
    >>> import numpy as np, fungrad.scipy.integrate as fint
    >>> float(fint.trapezoid(np.array([0.0, 1.0, 2.0])))
    2.0
"""
from __future__ import annotations

from typing import Any, Optional as _Optional

import numpy as np

from .. import numpy as fnp
from ..core.dtypes import is_inexact as _is_inexact
from ..numpy._base import shape_of as _shape_of, single_axis as _single_axis

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts

__all__ = ["trapezoid", "cumulative_trapezoid"]


def _numeric(fname, a):
    a = fnp.asarray(a)
    if np.dtype(a.dtype).kind not in "biufc" and not _is_inexact(a.dtype):  # (bfloat16 too)
        raise TypeError(f"integrate.{fname}: samples of dtype {a.dtype} are not numbers; pass "
                        "bool, integer, float or complex arrays")
    return a


def _pieces(fname, y, x, dx, axis):
    """The trapezoids' areas along `axis`: `d * (y[1:] + y[:-1]) / 2`, with the axis moved
    last; d = diff(x) (x 1-d along `axis`, or y's shape) or `dx`. Their dtype is SciPy's
    (NumPy's promotion of d and y, then a float: float32 y with bool x stays float32;
    complex y integrates as complex)."""
    y = _numeric(fname, y)
    nd = len(_shape_of(y))
    ax = _single_axis(fname, axis, nd)
    y = fnp.moveaxis(y, ax, -1)
    if x is None:
        d = dx
    else:
        x = _numeric(fname, x)
        if len(_shape_of(x)) == 1:
            if _shape_of(x)[0] != _shape_of(y)[-1]:
                raise ValueError(f"integrate.{fname}: x has length {_shape_of(x)[0]} but y has "
                                 f"{_shape_of(y)[-1]} samples along axis {axis}")
        else:
            x = fnp.moveaxis(x, ax, -1)
        d = fnp.diff(x, axis=-1)   # (bool x: NumPy's not_equal, as SciPy's diff)
    dt = np.dtype(fnp.result_type(d, y))
    dt = dt if _is_inexact(dt) else np.dtype(np.float64)   # (the division by 2.0)
    if not isinstance(d, (int, float)):
        d = fnp.asarray(d).astype(dt)
    # (bool y is summed as numbers, not as NumPy's logical or: True + True counts 2)
    y = y.astype(dt)
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
    # SciPy sums in y's own float dtype (float32 y with float64 x gives float32; integer
    # and bool y give float64)
    ydt = np.dtype(fnp.asarray(y).dtype)
    return fnp.sum(pieces.astype(ydt if _is_inexact(ydt) else np.float64), axis=-1)


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
