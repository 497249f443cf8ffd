"""The wrapped Cauchy distribution (`scipy.stats.wrapcauchy`) on [0, 2 pi] with shape
0 < c < 1; differentiable in x and c.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> round(float(fst.wrapcauchy.pdf(0.0, 0.5)), 6)   # (1 + c) / (2 pi (1 - c))
    0.477465
"""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from ._tails import safe as _safe
from ._util import Array, ArrayLike, inexact_arrays as _inexact_arrays
from ._util import domain as _domain

__all__ = ["logpdf", "pdf"]
_LOG_2PI = math.log(2.0 * math.pi)


def _c_valid(c):
    return fnp.logical_and(c > 0, c < 1)


@_domain(c=_c_valid)
def logpdf(x: ArrayLike, c: ArrayLike) -> Array:
    """`log1p(-c^2) - log(2 pi) - log((1 - c)^2 + 4 c sin(x/2)^2)` on 0 <= x <= 2 pi, -inf
    outside (the denominator `1 + c^2 - 2 c cos x` written without cancellation near
    c = 1, x = 0); nan unless 0 < c < 1.

    Example:
        >>> fg.scipy.stats.wrapcauchy.logpdf(np.array([0.0, np.pi, 7.0]), 0.5)
        array([-0.73926478, -2.93648936,        -inf])
        >>> fg.grad(lambda x: fg.scipy.stats.wrapcauchy.logpdf(x, 0.5))(np.pi / 2)   # -2c sin x / (1 + c**2 - 2c cos x)
        array(-0.8)
    """
    x, c = _inexact_arrays("stats.wrapcauchy.logpdf", x, c)
    inside = fnp.logical_and(x >= 0, x <= 2.0 * math.pi)
    xs = _safe(inside, x, 1.0)
    s = fnp.sin(0.5 * xs)
    one_minus_c = 1.0 - c
    den = one_minus_c * one_minus_c + 4.0 * c * (s * s)
    val = fnp.log1p(-c * c) - _LOG_2PI - fnp.log(den)
    return fnp.where(inside, val, -np.inf)


def pdf(x: ArrayLike, c: ArrayLike) -> Array:
    """Density `(1 - c^2) / (2 pi (1 + c^2 - 2 c cos x))`.

    Example:
        >>> fg.scipy.stats.wrapcauchy.pdf(np.array([0.0, np.pi]), 0.5)
        array([0.47746483, 0.05305165])
    """
    return fnp.exp(logpdf(x, c))
