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

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Log density `-z^2/2 - log(scale) - log(2 pi)/2`, z = (x - loc) / scale.

    Example: `fst.norm.logpdf(1.0, 1.0, 2.0)` is `-log 2 - log(2 pi)/2`.
    """
    z, log_scale = _standardize("stats.norm.logpdf", x, loc, scale)
    return -0.5 * (z * z) - log_scale - _HALF_LOG_2PI


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example: `fst.norm.pdf(0.0)` is `0.3989...`.
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Distribution function `ndtr(z)`.

    Example: `fst.norm.cdf(0.0)` is `0.5`.
    """
    z, _ = _standardize("stats.norm.cdf", x, loc, scale)
    return fsp.ndtr(z)


def logcdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log_ndtr(z)`, accurate far in the left tail.

    Example: `fst.norm.logcdf(-40.0)` is `-804.6...`.
    """
    z, _ = _standardize("stats.norm.logcdf", x, loc, scale)
    return fsp.log_ndtr(z)


def sf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Survival function `1 - cdf = ndtr(-z)`.

    Example: `fst.norm.sf(0.0)` is `0.5`.
    """
    z, _ = _standardize("stats.norm.sf", x, loc, scale)
    return fsp.ndtr(-z)


def logsf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log_ndtr(-z)`, accurate far in the right tail.

    Example: `fst.norm.logsf(40.0)` is `-804.6...`.
    """
    z, _ = _standardize("stats.norm.logsf", x, loc, scale)
    return fsp.log_ndtr(-z)


def ppf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Quantile function `loc + scale * ndtri(q)`.

    Example: `fst.norm.ppf(0.5, 3.0)` is `3.0`.
    """
    q, loc, scale = _inexact("stats.norm.ppf", q, loc, scale)
    return loc + scale * fsp.ndtri(q)


def isf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Inverse survival function `loc - scale * ndtri(q)`.

    Example: `fst.norm.isf(0.5, 3.0)` is `3.0`.
    """
    q, loc, scale = _inexact("stats.norm.isf", q, loc, scale)
    return loc - scale * fsp.ndtri(q)
