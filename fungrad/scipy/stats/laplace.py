"""The Laplace distribution (`scipy.stats.laplace`), differentiable in x, loc and scale
(away from x == loc, its kink).

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.laplace.cdf(0.0))
    0.5
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from ._util import Array, ArrayLike, standardize as _standardize

__all__ = ["logpdf", "pdf", "cdf"]
_LOG2 = math.log(2.0)


def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-|z| - log(2 scale)`, z = (x - loc) / scale.

    Example: `fst.laplace.logpdf(0.0)` is `-log 2`.
    """
    z, log_scale = _standardize("stats.laplace.logpdf", x, loc, scale)
    return -fnp.abs(z) - log_scale - _LOG2


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example: `fst.laplace.pdf(0.0)` is `0.5`.
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`exp(z)/2` for z <= 0, `1 - exp(-z)/2` above.

    Example: `fst.laplace.cdf(0.0)` is `0.5`.
    """
    z, _ = _standardize("stats.laplace.cdf", x, loc, scale)
    half = 0.5 * fnp.exp(-fnp.abs(z))
    return fnp.where(z <= 0, half, 1.0 - half)
