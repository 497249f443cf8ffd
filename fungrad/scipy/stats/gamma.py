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
from ._util import Array, ArrayLike, inexact as _inexact, log_probability as _log_probability

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _standard(fname, x, a, loc, scale):
    x, a, loc, scale = _inexact(fname, x, a, loc, scale)
    return (x - loc) / scale, a, scale


def logpdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`xlogy(a-1, y) - y - gammaln(a) - log(scale)` for y >= 0, -inf below
    (y = (x - loc) / scale).

    Example: `fst.gamma.logpdf(1.0, 1.0)` is `-1.0`.
    """
    y, a, scale = _standard("stats.gamma.logpdf", x, a, loc, scale)
    inside = y >= 0
    ys = fnp.where(inside, y, 1.0)
    val = fsp.xlogy(a - 1.0, ys) - ys - fsp.gammaln(a) - fnp.log(scale)
    return fnp.where(inside, val, -np.inf)


def pdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example: `fst.gamma.pdf(0.0, 1.0)` is `1.0`.
    """
    return fnp.exp(logpdf(x, a, loc, scale))


def cdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`gammainc(a, max(y, 0))`.

    Example: `fst.gamma.cdf(1.0, 1.0)` is `1 - 1/e`.
    """
    y, a, _ = _standard("stats.gamma.cdf", x, a, loc, scale)
    return fsp.gammainc(a, fnp.maximum(y, 0.0))


def logcdf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(cdf)` (-inf below the support).

    Example: `fst.gamma.logcdf(1.0, 1.0)` is `log(1 - 1/e)`.
    """
    return _log_probability(cdf(x, a, loc, scale), sf(x, a, loc, scale))


def sf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`gammaincc(a, max(y, 0))`.

    Example: `fst.gamma.sf(1.0, 1.0)` is `1/e`.
    """
    y, a, _ = _standard("stats.gamma.sf", x, a, loc, scale)
    return fsp.gammaincc(a, fnp.maximum(y, 0.0))


def logsf(x: ArrayLike, a: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(sf)`.

    Example: `fst.gamma.logsf(1.0, 1.0)` is `-1.0`.
    """
    return _log_probability(sf(x, a, loc, scale), cdf(x, a, loc, scale))
