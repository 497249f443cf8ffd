"""The normal distribution (`scipy.stats.norm`): functions of x (or q), loc and scale,
differentiable in all of them.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.norm.logpdf(0.0))   # -log(sqrt(2 pi))
    -0.9189385332046727
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, inexact as _inexact, standardize as _standardize
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


@_domain(scale=_positive)
def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Log density `-z^2/2 - log(scale) - log(2 pi)/2`, z = (x - loc) / scale.

    Example:
        >>> fg.scipy.stats.norm.logpdf(np.array([0.0, 1.0]))   # -x**2/2 - log(2 pi)/2
        array([-0.91893853, -1.41893853])
        >>> fg.grad(fg.scipy.stats.norm.logpdf)(1.0)    # -x
        array(-1.)
        >>> fg.grad(fg.scipy.stats.norm.logpdf, argnums=2)(5.0, 1.0, 2.0)   # (z**2 - 1) / scale
        array(1.5)
    """
    z, log_scale = _standardize("stats.norm.logpdf", x, loc, scale)
    return -0.5 * (z * z) - log_scale - _HALF_LOG_2PI


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.norm.pdf(np.array([0.0, 1.0]))
        array([0.39894228, 0.24197072])
    """
    return fnp.exp(logpdf(x, loc, scale))


@_domain(scale=_positive)
def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Distribution function `ndtr(z)`.

    Example:
        >>> fg.scipy.stats.norm.cdf(np.array([0.0, 1.96]))
        array([0.5      , 0.9750021])
        >>> fg.grad(fg.scipy.stats.norm.cdf)(0.0)    # the density 1/sqrt(2 pi)
        array(0.39894228)
    """
    z, _ = _standardize("stats.norm.cdf", x, loc, scale)
    return fsp.ndtr(z)


@_domain(scale=_positive)
def logcdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log_ndtr(z)`, accurate far in the left tail.

    Example:
        >>> fg.scipy.stats.norm.logcdf(np.array([0.0, -40.0]))   # no underflow at -40
        array([-6.93147181e-01, -8.04608442e+02])
    """
    z, _ = _standardize("stats.norm.logcdf", x, loc, scale)
    return fsp.log_ndtr(z)


@_domain(scale=_positive)
def sf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Survival function `1 - cdf = ndtr(-z)`.

    Example:
        >>> fg.scipy.stats.norm.sf(np.array([0.0, 1.96]))   # 1 - cdf
        array([0.5      , 0.0249979])
    """
    z, _ = _standardize("stats.norm.sf", x, loc, scale)
    return fsp.ndtr(-z)


@_domain(scale=_positive)
def logsf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log_ndtr(-z)`, accurate far in the right tail.

    Example:
        >>> fg.scipy.stats.norm.logsf(np.array([0.0, 40.0]))   # no underflow at 40
        array([-6.93147181e-01, -8.04608442e+02])
    """
    z, _ = _standardize("stats.norm.logsf", x, loc, scale)
    return fsp.log_ndtr(-z)


@_domain(scale=_positive)
def ppf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Quantile function `loc + scale * ndtri(q)`.

    Example:
        >>> fg.scipy.stats.norm.ppf(np.array([0.5, 0.975]), 3.0)   # loc 3
        array([3.        , 4.95996398])
        >>> fg.grad(fg.scipy.stats.norm.ppf)(0.5)    # 1 / density(0) = sqrt(2 pi)
        array(2.50662827)
    """
    q, loc, scale = _inexact("stats.norm.ppf", q, loc, scale)
    return loc + scale * fsp.ndtri(q)


@_domain(scale=_positive)
def isf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Inverse survival function `loc - scale * ndtri(q)`.

    Example:
        >>> fg.scipy.stats.norm.isf(np.array([0.5, 0.025]), 3.0)
        array([3.        , 4.95996398])
    """
    q, loc, scale = _inexact("stats.norm.isf", q, loc, scale)
    return loc - scale * fsp.ndtri(q)
