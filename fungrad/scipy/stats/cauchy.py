"""The Cauchy distribution (`scipy.stats.cauchy`), differentiable in x (or q), loc and
scale.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.cauchy.cdf(0.0))
    0.5
"""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from ._util import Array, ArrayLike, inexact as _inexact, standardize as _standardize
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]
_LOG_PI = math.log(math.pi)


@_domain(scale=_positive)
def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-log(pi) - log(scale) - log1p(z^2)`, z = (x - loc) / scale.

    Example:
        >>> fg.scipy.stats.cauchy.logpdf(np.array([0.0, 1.0]))   # [-log pi, -log 2 pi]
        array([-1.14472989, -1.83787707])
        >>> fg.grad(fg.scipy.stats.cauchy.logpdf)(1.0)    # -2x / (1 + x**2)
        array(-1.)
    """
    z, log_scale = _standardize("stats.cauchy.logpdf", x, loc, scale)
    return -_LOG_PI - log_scale - fnp.log1p(z * z)


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.cauchy.pdf(np.array([0.0, 1.0]))   # [1/pi, 1/(2 pi)]
        array([0.31830989, 0.15915494])
    """
    return fnp.exp(logpdf(x, loc, scale))


@_domain(scale=_positive)
def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`1/2 + arctan(z) / pi`.

    Example:
        >>> fg.scipy.stats.cauchy.cdf(np.array([-1.0, 0.0, 1.0]))   # 1/2 + arctan(x) / pi
        array([0.25, 0.5 , 0.75])
        >>> fg.grad(fg.scipy.stats.cauchy.cdf)(0.0)    # the density 1/pi
        array(0.31830989)
    """
    z, _ = _standardize("stats.cauchy.cdf", x, loc, scale)
    return 0.5 + fnp.arctan(z) / math.pi


@_domain(scale=_positive)
def logcdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(cdf)`.

    Example:
        >>> fg.scipy.stats.cauchy.logcdf(np.array([0.0, 1.0]))   # [log 1/2, log 3/4]
        array([-0.69314718, -0.28768207])
    """
    return fnp.log(cdf(x, loc, scale))


@_domain(scale=_positive)
def sf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`1/2 - arctan(z) / pi`.

    Example:
        >>> fg.scipy.stats.cauchy.sf(np.array([-1.0, 0.0, 1.0]))
        array([0.75, 0.5 , 0.25])
    """
    z, _ = _standardize("stats.cauchy.sf", x, loc, scale)
    return 0.5 - fnp.arctan(z) / math.pi


@_domain(scale=_positive)
def logsf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(sf)`.

    Example:
        >>> fg.scipy.stats.cauchy.logsf(np.array([0.0, -1.0]))   # [log 1/2, log 3/4]
        array([-0.69314718, -0.28768207])
    """
    return fnp.log(sf(x, loc, scale))


@_domain(scale=_positive)
def ppf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc + scale * tan(pi (q - 1/2))`.

    Example:
        >>> fg.scipy.stats.cauchy.ppf(np.array([0.25, 0.5, 0.75]), 3.0)   # loc 3, quartiles at +-1
        array([2., 3., 4.])
    """
    q, loc, scale = _inexact("stats.cauchy.ppf", q, loc, scale)
    return loc + scale * _quantile(q)


@_domain(scale=_positive)
def isf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc + scale * tan(pi (1/2 - q))`.

    Example:
        >>> fg.scipy.stats.cauchy.isf(np.array([0.25, 0.5, 0.75]), 3.0)
        array([4., 3., 2.])
    """
    q, loc, scale = _inexact("stats.cauchy.isf", q, loc, scale)
    return loc - scale * _quantile(q)


def _quantile(q):
    """tan(pi (q - 1/2)) for q in [0, 1]: +-inf at the ends, nan outside. In the tails it is
    -1/tan(pi q) (q < 1/4) and 1/tan(pi (1 - q)) (q > 3/4; 1 - q is exact there): q - 1/2
    rounds q = 1e-20 to -1/2 (-inf instead of -3.2e19) and loses q's digits near 0 and 1."""
    lo, hi = q < 0.25, q > 0.75
    r = fnp.where(lo, q, fnp.where(hi, 1.0 - q, 0.25))   # the tail's distance, in (0, 1/4]
    rs = fnp.where(r > 0, r, 0.25)
    tail = fnp.where(r > 0, 1.0 / fnp.tan(math.pi * rs), np.inf)
    mid = fnp.tan(math.pi * (fnp.where(fnp.logical_or(lo, hi), 0.5, q) - 0.5))
    val = fnp.where(lo, -tail, fnp.where(hi, tail, mid))
    return fnp.where(fnp.logical_and(q >= 0, q <= 1), val, np.nan)
