"""The exponential distribution (`scipy.stats.expon`), differentiable in x (or q), loc and
scale.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.expon.logpdf(2.0))
    -2.0
"""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from ._util import Array, ArrayLike, inexact as _inexact, standardize as _standardize
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def _y(fname, x, loc, scale):
    """(x - loc) / scale clipped at 0 (the support's edge), the mask y >= 0, and log(scale)."""
    y, log_scale = _standardize(fname, x, loc, scale)
    inside = y >= 0
    return fnp.where(inside, y, 0.0), inside, log_scale


@_domain(scale=_positive)
def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-y - log(scale)` for y = (x - loc) / scale >= 0, -inf below.

    Example:
        >>> fg.scipy.stats.expon.logpdf(np.array([-1.0, 1.0, 2.0]))   # -x on the support
        array([-inf,  -1.,  -2.])
        >>> fg.grad(lambda s: fg.scipy.stats.expon.logpdf(2.0, scale=s))(1.0)   # x/s**2 - 1/s
        array(1.)
    """
    y, inside, log_scale = _y("stats.expon.logpdf", x, loc, scale)
    return fnp.where(inside, -y - log_scale, -np.inf)


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.expon.pdf(np.array([0.0, 1.0]), scale=2.0)   # exp(-x/2) / 2
        array([0.5       , 0.30326533])
    """
    return fnp.exp(logpdf(x, loc, scale))


@_domain(scale=_positive)
def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-expm1(-y)` (0 below the support).

    Example:
        >>> fg.scipy.stats.expon.cdf(np.array([-1.0, 0.0, 1.0]))   # 1 - exp(-x)
        array([0.        , 0.        , 0.63212056])
        >>> fg.grad(fg.scipy.stats.expon.cdf)(1.0)    # the density exp(-x)
        array(0.36787944)
    """
    y, _, _ = _y("stats.expon.cdf", x, loc, scale)
    return -fnp.expm1(-y)


@_domain(scale=_positive)
def logcdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(1 - exp(-y))`: `log(-expm1(-y))` for y <= log 2, `log1p(-exp(-y))` above (each
    accurate on its side); -inf at and below the support's edge.

    Example:
        >>> fg.scipy.stats.expon.logcdf(np.array([0.0, 1.0, 50.0]))   # log(1 - exp(-x))
        array([           -inf, -4.58675145e-01, -1.92874985e-22])
    """
    y, _, _ = _y("stats.expon.logcdf", x, loc, scale)
    pos = y > 0
    ys = fnp.where(pos, y, 1.0)
    far = ys > math.log(2.0)
    val = fnp.where(far, fnp.log1p(-fnp.exp(-ys)), fnp.log(-fnp.expm1(-fnp.where(far, 1.0, ys))))
    return fnp.where(pos, val, -np.inf)


@_domain(scale=_positive)
def sf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`exp(-y)` (1 below the support).

    Example:
        >>> fg.scipy.stats.expon.sf(np.array([-1.0, 0.0, 1.0]))   # exp(-x)
        array([1.        , 1.        , 0.36787944])
    """
    y, _, _ = _y("stats.expon.sf", x, loc, scale)
    return fnp.exp(-y)


@_domain(scale=_positive)
def logsf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-y` (0 below the support).

    Example:
        >>> fg.scipy.stats.expon.logsf(np.array([1.0, 2.0]))   # -x on the support
        array([-1., -2.])
    """
    y, _, _ = _y("stats.expon.logsf", x, loc, scale)
    return -y


@_domain(scale=_positive)
def ppf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc - scale * log1p(-q)`.

    Example:
        >>> fg.scipy.stats.expon.ppf(np.array([0.0, 0.5]))   # [0, log 2]
        array([0.        , 0.69314718])
        >>> fg.grad(fg.scipy.stats.expon.ppf)(0.5)    # 1 / (1 - q)
        array(2.)
    """
    q, loc, scale = _inexact("stats.expon.ppf", q, loc, scale)
    # (nan for q < 0, where log1p(-q) is finite)
    return fnp.where(q >= 0, loc - scale * fnp.log1p(-q), np.nan)
