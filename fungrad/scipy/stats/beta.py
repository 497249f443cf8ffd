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
from ...lax.misc import stop_gradient as _stop_gradient
from .. import special as fsp
from ._util import Array, ArrayLike, log_probability as _log_probability
from ._util import inexact_arrays as _inexact_arrays
from ._util import log_scale as _log_scale
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _standard(fname, x, a, b, loc, scale):
    x, a, b, loc, scale = _inexact_arrays(fname, x, a, b, loc, scale)
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
    return _logpdf(y, a, b, scale)


def _logpdf(y, a, b, scale):
    inside = fnp.logical_and(y >= 0, y <= 1)
    ys = fnp.where(inside, y, 0.5)   # (finite logs on the untaken side)
    # the density's pole at an end with a shape parameter < 1 is +inf also where betaln
    # overflows (a, b < 1e-308: SciPy's betaln is inf there, and inf - inf was nan; SciPy's
    # pdf is inf): betaln is left out there (the slopes stay those of the pole's xlogy)
    pole = fnp.logical_or(fnp.logical_and(y == 0, a < 1), fnp.logical_and(y == 1, b < 1))
    norm = fnp.where(pole, 0.0, fsp.betaln(a, b))
    val = fsp.xlogy(a - 1.0, ys) + fsp.xlog1py(b - 1.0, -ys) - norm - _log_scale(scale)
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
    y, a, b, scale = _standard("stats.beta.sf", x, a, b, loc, scale)
    return _sf(y, a, b, scale)


def _sf(y, a, b, scale):
    """betainc(b, a, 1 - y) for y >= 1/2. Below, 1 - y drops y's digits (an absolute error
    ~ density * eps: sf(1e-20, 0.1, 1) was 1, not 0.99, and the slope at 1e-8 was off by
    1e-8 relative): there the slope is always that of 1 - cdf, and the value 1 - cdf where
    the density is above 1 (an absolute error ~ eps), else betainc(b, a, 1 - y) (accurate
    for a small sf). (SciPy's betaincc, exact there, is not a primitive here.)"""
    yc = fnp.clip(y, 0.0, 1.0)
    lower = y < 0.5
    # (each branch on a safe operand: the other's slope can be inf, times a zero cotangent)
    complement = 1.0 - fsp.betainc(a, b, fnp.where(lower, yc, 0.0))
    direct = fsp.betainc(b, a, 1.0 - fnp.where(lower, 0.5, yc))
    y_lower = _stop_gradient(fnp.where(lower, yc, 0.0))
    direct_below = fsp.betainc(b, a, 1.0 - y_lower)
    steep = _logpdf(y, a, b, 1.0) > 0.0
    correction = _stop_gradient(fnp.where(steep, 0.0, direct_below - complement))
    return fnp.where(lower, complement + correction, direct)


@_domain(a=_positive, b=_positive, scale=_positive)
def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0.0,
          scale: ArrayLike = 1.0) -> Array:
    """`log(sf)` (-inf above the support).

    Example:
        >>> fg.scipy.stats.beta.logsf(np.array([0.25, 0.5]), 2.0, 1.0)   # log(1 - x**2)
        array([-0.06453852, -0.28768207])
    """
    return _log_probability(sf(x, a, b, loc, scale), cdf(x, a, b, loc, scale))
