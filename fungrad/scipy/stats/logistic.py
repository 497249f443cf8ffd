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
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "sf", "ppf", "isf"]


@_domain(scale=_positive)
def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-|z| - 2 log1p(exp(-|z|)) - log(scale)`, stable for any z = (x - loc) / scale.

    Example:
        >>> fg.scipy.stats.logistic.logpdf(np.array([0.0, 1000.0]))   # [-log 4, -1000]
        array([   -1.38629436, -1000.        ])
        >>> fg.grad(fg.scipy.stats.logistic.logpdf)(1000.0)   # -tanh(x/2)
        array(-1.)
    """
    z, log_scale = _standardize("stats.logistic.logpdf", x, loc, scale)
    # the density is even in z: -|z| - 2 log1p(e^-|z|) is finite on both sides, and -inf
    # at z = +-inf (-z - 2 logaddexp(0, -z) would be inf - inf there)
    a = fnp.abs(z)
    return -a - 2.0 * fnp.log1p(fnp.exp(-a)) - log_scale


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.logistic.pdf(np.array([0.0, 1.0]))   # expit(x) expit(-x)
        array([0.25      , 0.19661193])
    """
    return fnp.exp(logpdf(x, loc, scale))


@_domain(scale=_positive)
def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`expit(z)`.

    Example:
        >>> fg.scipy.stats.logistic.cdf(np.array([0.0, 1.0]))   # expit(x)
        array([0.5       , 0.73105858])
        >>> fg.grad(fg.scipy.stats.logistic.cdf)(0.0)    # the density 1/4
        array(0.25)
    """
    z, _ = _standardize("stats.logistic.cdf", x, loc, scale)
    return fsp.expit(z)


@_domain(scale=_positive)
def sf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`expit(-z)`.

    Example:
        >>> fg.scipy.stats.logistic.sf(np.array([0.0, 1.0]))   # expit(-x)
        array([0.5       , 0.26894142])
    """
    z, _ = _standardize("stats.logistic.sf", x, loc, scale)
    return fsp.expit(-z)


@_domain(scale=_positive)
def ppf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc + scale * logit(q)`.

    Example:
        >>> fg.scipy.stats.logistic.ppf(np.array([0.5, 0.75]), 2.0)   # 2 + logit(q)
        array([2.        , 3.09861229])
        >>> fg.grad(fg.scipy.stats.logistic.ppf)(0.5)    # 1 / (q (1 - q))
        array(4.)
    """
    q, loc, scale = _inexact("stats.logistic.ppf", q, loc, scale)
    return loc + scale * fsp.logit(q)


@_domain(scale=_positive)
def isf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc - scale * logit(q)`.

    Example:
        >>> fg.scipy.stats.logistic.isf(np.array([0.5, 0.75]), 2.0)   # 2 - logit(q)
        array([2.        , 0.90138771])
    """
    q, loc, scale = _inexact("stats.logistic.isf", q, loc, scale)
    return loc - scale * fsp.logit(q)
