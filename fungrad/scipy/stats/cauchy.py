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
from ._util import domain as _domain, log_probability as _log_probability
from ._util import positive as _positive

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
    return -_LOG_PI - log_scale - _log1p_square(z)


def _log1p_square(z):
    """log(1 + z^2), as 2 log|z| + log1p(1 / z^2) for |z| > 1: z * z overflows from
    |z| = 1.4e154 on (the log density was -inf at z = 1e300, SciPy's -1382.7)."""
    big = fnp.abs(z) > 1.0
    zb = fnp.where(big, z, 2.0)
    zs = fnp.where(big, 0.0, z)
    inverse = 1.0 / zb   # (squared after the division: zb * zb would overflow)
    return fnp.where(big, 2.0 * fnp.log(fnp.abs(zb)) + fnp.log1p(inverse * inverse),
                     fnp.log1p(zs * zs))


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
    return _standard_cdf(z)


def _standard_cdf(z):
    """1/2 + arctan(z) / pi, as arctan(-1/z) / pi for z < -1: there 1/2 + arctan(z) / pi
    cancels (3.183098230e-11 for 3.183098862e-11 at z = -1e10, 0 from z = -1e16 on)."""
    tail = z < -1.0
    far = fnp.arctan(-1.0 / fnp.where(tail, z, -1.0)) / math.pi
    return fnp.where(tail, far, 0.5 + fnp.arctan(fnp.where(tail, 0.0, z)) / math.pi)


@_domain(scale=_positive)
def logcdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(cdf)` (`log1p(-sf)` where cdf > 1/2: finite, accurate tails on both sides).

    Example:
        >>> fg.scipy.stats.cauchy.logcdf(np.array([0.0, 1.0]))   # [log 1/2, log 3/4]
        array([-0.69314718, -0.28768207])
    """
    z, _ = _standardize("stats.cauchy.logcdf", x, loc, scale)
    return _log_probability(_standard_cdf(z), _standard_cdf(-z))


@_domain(scale=_positive)
def sf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`1/2 - arctan(z) / pi`.

    Example:
        >>> fg.scipy.stats.cauchy.sf(np.array([-1.0, 0.0, 1.0]))
        array([0.75, 0.5 , 0.25])
    """
    z, _ = _standardize("stats.cauchy.sf", x, loc, scale)
    return _standard_cdf(-z)


@_domain(scale=_positive)
def logsf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(sf)` (`log1p(-cdf)` where sf > 1/2).

    Example:
        >>> fg.scipy.stats.cauchy.logsf(np.array([0.0, -1.0]))   # [log 1/2, log 3/4]
        array([-0.69314718, -0.28768207])
    """
    z, _ = _standardize("stats.cauchy.logsf", x, loc, scale)
    return _log_probability(_standard_cdf(-z), _standard_cdf(z))


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
