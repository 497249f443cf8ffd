"""The gamma distribution (`scipy.stats.gamma`) with shape `a`. The log density is
differentiable in x, a, loc and scale; the distribution functions (gammainc) in x, loc and
scale only (their derivative in a raises NotImplementedError).

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.gamma.logpdf(1.0, 1.0))   # the exponential density: -x
    -1.0
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, log_probability as _log_probability
from ._util import inexact_arrays as _inexact_arrays
from ._util import log_scale as _log_scale
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _standard(fname, x, a, loc, scale):
    x, a, loc, scale = _inexact_arrays(fname, x, a, loc, scale)
    return (x - loc) / scale, a, scale


@_domain(a=_positive, scale=_positive)
def logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`xlogy(a-1, y) - y - gammaln(a) - log(scale)` for y >= 0, -inf below
    (y = (x - loc) / scale).

    Example:
        >>> fg.scipy.stats.gamma.logpdf(np.array([1.0, 2.0]), 2.0)   # log(x) - x
        array([-1.        , -1.30685282])
        >>> fg.grad(lambda x: fg.scipy.stats.gamma.logpdf(x, 2.0))(2.0)   # 1/x - 1
        array(-0.5)
    """
    y, a, scale = _standard("stats.gamma.logpdf", x, a, loc, scale)
    inside = y >= 0
    ys = fnp.where(inside, y, 1.0)
    val = fsp.xlogy(a - 1.0, ys) - ys - fsp.gammaln(a) - _log_scale(scale)
    return fnp.where(inside, val, -np.inf)


def pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.gamma.pdf(np.array([0.0, 1.0]), 1.0)   # a = 1: exp(-x)
        array([1.        , 0.36787944])
    """
    return fnp.exp(logpdf(x, a, loc, scale))


@_domain(a=_positive, scale=_positive)
def cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`gammainc(a, max(y, 0))`.

    Example:
        >>> fg.scipy.stats.gamma.cdf(np.array([0.0, 1.0]), 1.0)   # 1 - exp(-x)
        array([0.        , 0.63212056])
        >>> fg.grad(lambda x: fg.scipy.stats.gamma.cdf(x, 2.0))(1.0)   # the density x exp(-x)
        array(0.36787944)
    """
    y, a, _ = _standard("stats.gamma.cdf", x, a, loc, scale)
    return fsp.gammainc(a, fnp.maximum(y, 0.0))


@_domain(a=_positive, scale=_positive)
def logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(cdf)` (-inf below the support).

    Example:
        >>> fg.scipy.stats.gamma.logcdf(np.array([1.0, 2.0]), 1.0)   # log(1 - exp(-x))
        array([-0.45867515, -0.14541346])
    """
    return _log_probability(cdf(x, a, loc, scale), sf(x, a, loc, scale))


@_domain(a=_positive, scale=_positive)
def sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`gammaincc(a, max(y, 0))`.

    Example:
        >>> fg.scipy.stats.gamma.sf(np.array([0.0, 1.0]), 1.0)   # exp(-x)
        array([1.        , 0.36787944])
    """
    y, a, _ = _standard("stats.gamma.sf", x, a, loc, scale)
    return fsp.gammaincc(a, fnp.maximum(y, 0.0))


@_domain(a=_positive, scale=_positive)
def logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(sf)`.

    Example:
        >>> fg.scipy.stats.gamma.logsf(np.array([1.0, 2.0]), 1.0)   # -x
        array([-1., -2.])
    """
    return _log_probability(sf(x, a, loc, scale), cdf(x, a, loc, scale))
