"""The beta distribution (`scipy.stats.beta`) on [loc, loc + scale]. The log density is
differentiable in x, a, b, loc and scale; the distribution functions (betainc) in x, loc
and scale only (their derivatives in a and b raise NotImplementedError).

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.beta.cdf(0.25, 1.0, 1.0))
    0.25
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, inexact as _inexact, log_probability as _log_probability
from ._util import log_scale as _log_scale
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _standard(fname, x, a, b, loc, scale):
    x, a, b, loc, scale = _inexact(fname, x, a, b, loc, scale)
    return (x - loc) / scale, a, b, scale


@_domain(a=_positive, b=_positive, scale=_positive)
def logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0.0,
           scale: ArrayLike = 1.0) -> Array:
    """`xlogy(a-1, y) + xlog1py(b-1, -y) - betaln(a, b) - log(scale)` on 0 <= y <= 1,
    -inf outside (y = (x - loc) / scale).

    Example:
        >>> fg.scipy.stats.beta.logpdf(np.array([0.25, 0.5]), 2.0, 1.0)   # log(2x)
        array([-0.69314718,  0.        ])
        >>> fg.grad(lambda x: fg.scipy.stats.beta.logpdf(x, 2.0, 1.0))(0.5)   # 1 / x
        array(2.)
    """
    y, a, b, scale = _standard("stats.beta.logpdf", x, a, b, loc, scale)
    inside = fnp.logical_and(y >= 0, y <= 1)
    ys = fnp.where(inside, y, 0.5)   # (finite logs on the untaken side)
    val = fsp.xlogy(a - 1.0, ys) + fsp.xlog1py(b - 1.0, -ys) - fsp.betaln(a, b) - _log_scale(scale)
    return fnp.where(inside, val, -np.inf)


def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0.0,
        scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.beta.pdf(np.array([0.25, 0.5, 2.0]), 2.0, 2.0)   # 6 x (1 - x) on [0, 1]
        array([1.125, 1.5  , 0.   ])
    """
    return fnp.exp(logpdf(x, a, b, loc, scale))


@_domain(a=_positive, b=_positive, scale=_positive)
def cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0.0,
        scale: ArrayLike = 1.0) -> Array:
    """`betainc(a, b, clip(y, 0, 1))`.

    Example:
        >>> fg.scipy.stats.beta.cdf(np.array([0.25, 0.5]), 2.0, 1.0)   # x**2
        array([0.0625, 0.25  ])
        >>> fg.grad(lambda x: fg.scipy.stats.beta.cdf(x, 2.0, 1.0))(0.5)   # the density 2x
        array(1.)
    """
    y, a, b, _ = _standard("stats.beta.cdf", x, a, b, loc, scale)
    return fsp.betainc(a, b, fnp.clip(y, 0.0, 1.0))


@_domain(a=_positive, b=_positive, scale=_positive)
def logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0.0,
           scale: ArrayLike = 1.0) -> Array:
    """`log(cdf)` (-inf below the support).

    Example:
        >>> fg.scipy.stats.beta.logcdf(np.array([0.25, 0.5]), 2.0, 1.0)   # log(x**2)
        array([-2.77258872, -1.38629436])
    """
    return _log_probability(cdf(x, a, b, loc, scale), sf(x, a, b, loc, scale))


@_domain(a=_positive, b=_positive, scale=_positive)
def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0.0,
       scale: ArrayLike = 1.0) -> Array:
    """`1 - cdf = betainc(b, a, 1 - y)`.

    Example:
        >>> fg.scipy.stats.beta.sf(np.array([0.25, 0.5]), 2.0, 1.0)   # 1 - x**2
        array([0.9375, 0.75  ])
    """
    y, a, b, _ = _standard("stats.beta.sf", x, a, b, loc, scale)
    return fsp.betainc(b, a, fnp.clip(1.0 - y, 0.0, 1.0))


@_domain(a=_positive, b=_positive, scale=_positive)
def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0.0,
          scale: ArrayLike = 1.0) -> Array:
    """`log(sf)` (-inf above the support).

    Example:
        >>> fg.scipy.stats.beta.logsf(np.array([0.25, 0.5]), 2.0, 1.0)   # log(1 - x**2)
        array([-0.06453852, -0.28768207])
    """
    return _log_probability(sf(x, a, b, loc, scale), cdf(x, a, b, loc, scale))
