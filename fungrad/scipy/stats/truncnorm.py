"""The truncated normal distribution (`scipy.stats.truncnorm`): a normal(loc, scale)
restricted to [loc + a scale, loc + b scale] (a, b standardized bounds, a < b). Computed in
log space (`log(ndtr(b) - ndtr(a))` on the side of the mean), so bounds far in a tail keep
their values; differentiable in x, a, b, loc and scale.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.truncnorm.pdf(0.0, 0.0, np.inf))   # the half-normal: 2 / sqrt(2 pi)
    0.7978845608028654
"""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from ._tails import log_ndtr_diff as _log_ndtr_diff, safe as _safe
from ._util import Array, ArrayLike, inexact_arrays as _inexact_arrays
from ._util import log_scale as _log_scale
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


def _standard(fname, x, a, b, loc, scale):
    x, a, b, loc, scale = _inexact_arrays(fname, x, a, b, loc, scale)
    return (x - loc) / scale, a, b, scale


def _interior(z, a, b):
    """(a < z < b, z there and a point strictly inside elsewhere: safe operands)."""
    inner = fnp.logical_and(z > a, z < b)
    fa, fb = fnp.isfinite(a), fnp.isfinite(b)
    mid = fnp.where(fnp.logical_and(fa, fb), 0.5 * (_safe(fa, a, 0.0) + _safe(fb, b, 0.0)),
                    fnp.where(fa, _safe(fa, a, 0.0) + 1.0, fnp.where(fb, _safe(fb, b, 0.0) - 1.0,
                                                                    0.0)))
    return inner, fnp.where(inner, z, mid)


def _nan_unless_ordered(a, b, out):
    return fnp.where(a < b, out, np.nan)   # (also nan where a or b is nan)


@_domain(scale=_positive)
def logpdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
           scale: ArrayLike = 1) -> Array:
    """`-z^2/2 - log(2 pi)/2 - log(scale) - log(ndtr(b) - ndtr(a))` for a <= z <= b, -inf
    outside (z = (x - loc) / scale); nan unless a < b.

    Example:
        >>> fg.scipy.stats.truncnorm.logpdf(np.array([-2.0, 0.0, 1.0]), -1.0, 1.0)
        array([       -inf, -0.53722339, -1.03722339])
        >>> fg.grad(lambda x: fg.scipy.stats.truncnorm.logpdf(x, -1.0, 1.0))(0.5)   # -z
        array(-0.5)
    """
    z, a, b, scale = _standard("stats.truncnorm.logpdf", x, a, b, loc, scale)
    inside = fnp.logical_and(z >= a, z <= b)
    zs = _safe(inside, z, 0.0)
    val = -0.5 * (zs * zs) - _HALF_LOG_2PI - _log_scale(scale) - _log_ndtr_diff(a, b)
    return _nan_unless_ordered(a, b, fnp.where(inside, val, -np.inf))


def pdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.truncnorm.pdf(np.array([-2.0, 0.0, 1.0]), -1.0, 1.0)
        array([0.        , 0.58436857, 0.35443745])
    """
    return fnp.exp(logpdf(x, a, b, loc, scale))


def _log_cdf_and_sf(z, a, b):
    """(logcdf, logsf) of the standardized z. Each is `log(ndtr(.) - ndtr(.)) - log Z`
    where it is below log(1/2); the other, near 0, is `log1p(-exp(that))` (the difference
    of two large logs would lose its digits: 1e-7 relative at a = 30, b = 31)."""
    inner, zs = _interior(z, a, b)
    log_z = _log_ndtr_diff(a, b)
    lc = _log_ndtr_diff(a, zs) - log_z
    ls = _log_ndtr_diff(zs, b) - log_z
    half = -math.log(2.0)
    lc_small = lc < half
    ls_small = ls < half
    lc = fnp.where(lc_small, lc, fnp.log1p(-fnp.exp(_safe(lc_small, -1.0, ls))))
    ls = fnp.where(ls_small, ls, fnp.log1p(-fnp.exp(_safe(ls_small, -1.0, lc))))
    below, above = z <= a, z >= b
    lc = fnp.where(below, -np.inf, fnp.where(inner, lc, 0.0))
    ls = fnp.where(above, -np.inf, fnp.where(inner, ls, 0.0))
    return _nan_unless_ordered(a, b, lc), _nan_unless_ordered(a, b, ls)


@_domain(scale=_positive)
def logcdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
           scale: ArrayLike = 1) -> Array:
    """`log(ndtr(z) - ndtr(a)) - log(ndtr(b) - ndtr(a))` (-inf at and below a, 0 from b;
    `log1p(-sf)` where the sf is below 1/2).

    Example:
        >>> fg.scipy.stats.truncnorm.logcdf(np.array([0.0, 2.0]), -1.0, 1.0)
        array([-0.69314718,  0.        ])
    """
    z, a, b, _ = _standard("stats.truncnorm.logcdf", x, a, b, loc, scale)
    return _log_cdf_and_sf(z, a, b)[0]


@_domain(scale=_positive)
def cdf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
        scale: ArrayLike = 1) -> Array:
    """`exp(logcdf)`.

    Example:
        >>> fg.scipy.stats.truncnorm.cdf(np.array([-1.0, 0.0, 1.0]), -1.0, 1.0)
        array([0. , 0.5, 1. ])
    """
    return fnp.exp(logcdf(x, a, b, loc, scale))


@_domain(scale=_positive)
def logsf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
          scale: ArrayLike = 1) -> Array:
    """`log(ndtr(b) - ndtr(z)) - log(ndtr(b) - ndtr(a))` (0 at and below a, -inf from b;
    `log1p(-cdf)` where the cdf is below 1/2).

    Example:
        >>> fg.scipy.stats.truncnorm.logsf(np.array([0.0, 2.0]), -1.0, 1.0)
        array([-0.69314718,        -inf])
    """
    z, a, b, _ = _standard("stats.truncnorm.logsf", x, a, b, loc, scale)
    return _log_cdf_and_sf(z, a, b)[1]


@_domain(scale=_positive)
def sf(x: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0,
       scale: ArrayLike = 1) -> Array:
    """`exp(logsf)`.

    Example:
        >>> fg.scipy.stats.truncnorm.sf(np.array([-1.0, 0.0, 1.0]), -1.0, 1.0)
        array([1. , 0.5, 0. ])
    """
    return fnp.exp(logsf(x, a, b, loc, scale))
