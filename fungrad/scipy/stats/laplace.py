"""The Laplace distribution (`scipy.stats.laplace`), differentiable in x, loc and scale
(away from x == loc, its kink).

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.laplace.cdf(0.0))
    0.5
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from ._util import Array, ArrayLike, standardize as _standardize
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf"]
_LOG2 = math.log(2.0)


@_domain(scale=_positive)
def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-|z| - log(2 scale)`, z = (x - loc) / scale.

    Example:
        >>> fg.scipy.stats.laplace.logpdf(np.array([0.0, 1.0]))   # -|x| - log 2
        array([-0.69314718, -1.69314718])
        >>> fg.grad(fg.scipy.stats.laplace.logpdf)(1.0)    # -sign(x)
        array(-1.)
    """
    z, log_scale = _standardize("stats.laplace.logpdf", x, loc, scale)
    return -fnp.abs(z) - log_scale - _LOG2


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.laplace.pdf(np.array([0.0, 1.0]))   # exp(-|x|) / 2
        array([0.5       , 0.18393972])
    """
    return fnp.exp(logpdf(x, loc, scale))


@_domain(scale=_positive)
def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`exp(z)/2` for z <= 0, `1 - exp(-z)/2` above.

    Example:
        >>> fg.scipy.stats.laplace.cdf(np.array([-1.0, 0.0, 1.0]))
        array([0.18393972, 0.5       , 0.81606028])
    """
    z, _ = _standardize("stats.laplace.cdf", x, loc, scale)
    half = 0.5 * fnp.exp(-fnp.abs(z))
    return fnp.where(z <= 0, half, 1.0 - half)
