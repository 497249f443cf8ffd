"""The logistic distribution (`scipy.stats.logistic`), differentiable in x (or q), loc and
scale.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.logistic.cdf(0.0))
    0.5
"""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, inexact as _inexact, standardize as _standardize

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-|z| - 2 log1p(exp(-|z|)) - log(scale)`, stable for any z = (x - loc) / scale.

    Example: `fst.logistic.logpdf(0.0)` is `-log 4`.
    """
    z, log_scale = _standardize("stats.logistic.logpdf", x, loc, scale)
    # the density is even in z: -z - 2 log(1 + e^-z) written as -z - 2 logaddexp(0, -z)
    # is exact and finite on both sides
    return -z - 2.0 * fnp.logaddexp(0.0, -z) - log_scale


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example: `fst.logistic.pdf(0.0)` is `0.25`.
    """
    return fnp.exp(logpdf(x, loc, scale))


def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`expit(z)`.

    Example: `fst.logistic.cdf(0.0)` is `0.5`.
    """
    z, _ = _standardize("stats.logistic.cdf", x, loc, scale)
    return fsp.expit(z)


def sf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`expit(-z)`.

    Example: `fst.logistic.sf(0.0)` is `0.5`.
    """
    z, _ = _standardize("stats.logistic.sf", x, loc, scale)
    return fsp.expit(-z)


def ppf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc + scale * logit(q)`.

    Example: `fst.logistic.ppf(0.5, 2.0)` is `2.0`.
    """
    q, loc, scale = _inexact("stats.logistic.ppf", q, loc, scale)
    return loc + scale * fsp.logit(q)


def isf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc - scale * logit(q)`.

    Example: `fst.logistic.isf(0.5, 2.0)` is `2.0`.
    """
    q, loc, scale = _inexact("stats.logistic.isf", q, loc, scale)
    return loc - scale * fsp.logit(q)
