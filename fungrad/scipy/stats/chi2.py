"""The chi-squared distribution (`scipy.stats.chi2`) with `df` degrees of freedom: the gamma
distribution of shape df/2 and scale 2 scale. The log density is differentiable in x, df,
loc and scale; the distribution functions (gammainc) in x, loc and scale only (their
derivative in df raises NotImplementedError).

Example:
    >>> import fungrad.scipy.stats as fst
    >>> round(float(fst.chi2.pdf(1.0, 2.0)), 6)   # df = 2: exp(-x/2) / 2
    0.303265
"""
from __future__ import annotations

from . import gamma as _gamma
from ._util import Array, ArrayLike
from ._util import inexact_arrays as _inexact_arrays
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _as_gamma(fname, x, df, loc, scale):
    x, df, loc, scale = _inexact_arrays(fname, x, df, loc, scale)
    return x, df * 0.5, loc, scale * 2.0


@_domain(df=_positive, scale=_positive)
def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`xlogy(df/2 - 1, y) - y/2 - gammaln(df/2) - (df/2) log 2 - log(scale)` for y >= 0,
    -inf below (y = (x - loc) / scale).

    Example:
        >>> fg.scipy.stats.chi2.logpdf(np.array([1.0, 4.0]), 2.0)   # -x/2 - log 2
        array([-1.19314718, -2.69314718])
        >>> fg.grad(lambda x: fg.scipy.stats.chi2.logpdf(x, 4.0))(1.0)   # 1/x - 1/2
        array(0.5)
    """
    return _gamma.logpdf(*_as_gamma("stats.chi2.logpdf", x, df, loc, scale))


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.chi2.pdf(np.array([0.0, 2.0]), 2.0)   # exp(-x/2) / 2
        array([0.5       , 0.18393972])
    """
    return _gamma.pdf(*_as_gamma("stats.chi2.pdf", x, df, loc, scale))


@_domain(df=_positive, scale=_positive)
def cdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`gammainc(df/2, max(y, 0)/2)`.

    Example:
        >>> fg.scipy.stats.chi2.cdf(np.array([0.0, 2.0]), 2.0)   # 1 - exp(-x/2)
        array([0.        , 0.63212056])
        >>> fg.grad(lambda x: fg.scipy.stats.chi2.cdf(x, 2.0))(2.0)   # the density
        array(0.18393972)
    """
    return _gamma.cdf(*_as_gamma("stats.chi2.cdf", x, df, loc, scale))


@_domain(df=_positive, scale=_positive)
def logcdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`log(cdf)` (-inf below the support).

    Example:
        >>> fg.scipy.stats.chi2.logcdf(np.array([2.0, 4.0]), 2.0)   # log(1 - exp(-x/2))
        array([-0.45867515, -0.14541346])
    """
    return _gamma.logcdf(*_as_gamma("stats.chi2.logcdf", x, df, loc, scale))


@_domain(df=_positive, scale=_positive)
def sf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`gammaincc(df/2, max(y, 0)/2)`.

    Example:
        >>> fg.scipy.stats.chi2.sf(np.array([0.0, 2.0]), 2.0)   # exp(-x/2)
        array([1.        , 0.36787944])
    """
    return _gamma.sf(*_as_gamma("stats.chi2.sf", x, df, loc, scale))


@_domain(df=_positive, scale=_positive)
def logsf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`log(sf)`.

    Example:
        >>> fg.scipy.stats.chi2.logsf(np.array([2.0, 4.0]), 2.0)   # -x/2
        array([-1., -2.])
    """
    return _gamma.logsf(*_as_gamma("stats.chi2.logsf", x, df, loc, scale))
