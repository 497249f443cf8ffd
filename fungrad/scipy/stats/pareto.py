"""The Pareto distribution (`scipy.stats.pareto`) with shape `b`: survival function
`y^-b` for y = (x - loc) / scale >= 1; differentiable in x (or q), b, loc and scale.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.pareto.sf(2.0, 1.0))   # 1 / x
    0.5
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from ._tails import log1mexp as _log1mexp, safe as _safe
from ._util import Array, ArrayLike, inexact_arrays as _inexact_arrays
from ._util import log_scale as _log_scale
from ._util import domain as _domain, positive as _positive, probability as _probability

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def _log_y(fname, x, b, loc, scale):
    """(log y on the support y >= 1, 0 off it; the support mask; b; scale)."""
    x, b, loc, scale = _inexact_arrays(fname, x, b, loc, scale)
    y = (x - loc) / scale
    inside = y >= 1
    return fnp.log(_safe(inside, y, 1.0)), inside, b, scale


@_domain(b=_positive, scale=_positive)
def logpdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`log(b) - (b + 1) log(y) - log(scale)` for y >= 1, -inf below.

    Example:
        >>> fg.scipy.stats.pareto.logpdf(np.array([0.5, 1.0, 2.0]), 1.0)   # -2 log(x)
        array([       -inf,  0.        , -1.38629436])
        >>> fg.grad(lambda x: fg.scipy.stats.pareto.logpdf(x, 1.0))(2.0)   # -(b + 1) / x
        array(-1.)
    """
    ly, inside, b, scale = _log_y("stats.pareto.logpdf", x, b, loc, scale)
    return fnp.where(inside, fnp.log(b) - (b + 1.0) * ly - _log_scale(scale), -np.inf)


def pdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Density `b / y^(b+1) / scale`.

    Example:
        >>> fg.scipy.stats.pareto.pdf(np.array([0.5, 1.0, 2.0]), 2.0)
        array([0.  , 2.  , 0.25])
    """
    return fnp.exp(logpdf(x, b, loc, scale))


@_domain(b=_positive, scale=_positive)
def cdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`-expm1(-b log y)` (0 below the support; accurate near y = 1).

    Example:
        >>> fg.scipy.stats.pareto.cdf(np.array([0.5, 2.0]), 1.0)   # 1 - 1/x
        array([0. , 0.5])
    """
    ly, inside, b, _ = _log_y("stats.pareto.cdf", x, b, loc, scale)
    return fnp.where(inside, -fnp.expm1(-b * ly), 0.0)


@_domain(b=_positive, scale=_positive)
def logcdf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`log(1 - y^-b)` (-inf at and below y = 1).

    Example:
        >>> fg.scipy.stats.pareto.logcdf(np.array([2.0, 1e30]), 1.0)   # log1p(-1/x)
        array([-6.93147181e-01, -1.00000000e-30])
    """
    ly, inside, b, _ = _log_y("stats.pareto.logcdf", x, b, loc, scale)
    return fnp.where(inside, _log1mexp(b * ly), -np.inf)


@_domain(b=_positive, scale=_positive)
def sf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`y^-b` (1 below the support).

    Example:
        >>> fg.scipy.stats.pareto.sf(np.array([0.5, 2.0]), 2.0)
        array([1.  , 0.25])
    """
    ly, inside, b, _ = _log_y("stats.pareto.sf", x, b, loc, scale)
    return fnp.where(inside, fnp.exp(-b * ly), 1.0)


@_domain(b=_positive, scale=_positive)
def logsf(x: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`-b log(y)` (0 below the support).

    Example:
        >>> fg.scipy.stats.pareto.logsf(np.array([0.5, np.e]), 2.0)
        array([ 0., -2.])
    """
    ly, inside, b, _ = _log_y("stats.pareto.logsf", x, b, loc, scale)
    return fnp.where(inside, -b * ly, 0.0)


@_domain(q=_probability, b=_positive, scale=_positive)
def ppf(q: ArrayLike, b: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Quantile function `loc + scale (1 - q)^(-1/b)`.

    Example:
        >>> fg.scipy.stats.pareto.ppf(np.array([0.0, 0.5, 1.0]), 1.0)   # 1 / (1 - q)
        array([ 1.,  2., inf])
    """
    q, b, loc, scale = _inexact_arrays("stats.pareto.ppf", q, b, loc, scale)
    qs = _safe(_probability(q), q, 0.5)
    return loc + scale * fnp.exp(-fnp.log1p(-qs) / b)
