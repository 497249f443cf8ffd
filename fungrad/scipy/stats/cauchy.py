"""The Cauchy distribution (`scipy.stats.cauchy`), differentiable in x (or q), loc and
scale.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.cauchy.cdf(0.0))
    0.5
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from ._util import Array, ArrayLike, inexact as _inexact, standardize as _standardize

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]
_LOG_PI = math.log(math.pi)


def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-log(pi) - log(scale) - log1p(z^2)`, z = (x - loc) / scale.

    Example: `fst.cauchy.logpdf(0.0)` is `-log(pi)`.
    """
    z, log_scale = _standardize("stats.cauchy.logpdf", x, loc, scale)
    return -_LOG_PI - log_scale - fnp.log1p(z * z)


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example: `fst.cauchy.pdf(0.0)` is `1 / pi`.
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`1/2 + arctan(z) / pi`.

    Example: `fst.cauchy.cdf(0.0)` is `0.5`.
    """
    z, _ = _standardize("stats.cauchy.cdf", x, loc, scale)
    return 0.5 + fnp.arctan(z) / math.pi


def logcdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(cdf)`.

    Example: `fst.cauchy.logcdf(0.0)` is `-log 2`.
    """
    return fnp.log(cdf(x, loc, scale))


def sf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`1/2 - arctan(z) / pi`.

    Example: `fst.cauchy.sf(0.0)` is `0.5`.
    """
    z, _ = _standardize("stats.cauchy.sf", x, loc, scale)
    return 0.5 - fnp.arctan(z) / math.pi


def logsf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`log(sf)`.

    Example: `fst.cauchy.logsf(0.0)` is `-log 2`.
    """
    return fnp.log(sf(x, loc, scale))


def ppf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc + scale * tan(pi (q - 1/2))`.

    Example: `fst.cauchy.ppf(0.5, 3.0)` is `3.0`.
    """
    q, loc, scale = _inexact("stats.cauchy.ppf", q, loc, scale)
    return loc + scale * fnp.tan(math.pi * (q - 0.5))


def isf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc + scale * tan(pi (1/2 - q))`.

    Example: `fst.cauchy.isf(0.5, 3.0)` is `3.0`.
    """
    q, loc, scale = _inexact("stats.cauchy.isf", q, loc, scale)
    return loc + scale * fnp.tan(math.pi * (0.5 - q))
