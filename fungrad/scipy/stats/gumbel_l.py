"""The left-skewed Gumbel distribution (`scipy.stats.gumbel_l`, of minima): cdf
`1 - exp(-exp(z))`, z = (x - loc) / scale, the mirror image of gumbel_r; differentiable in
x (or q), loc and scale.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.gumbel_l.sf(0.0))   # exp(-1)
    0.36787944117144233
"""
from __future__ import annotations

from ... import numpy as fnp
from ._tails import safe as _safe
from ._util import Array, ArrayLike, inexact_arrays as _inexact_arrays
from ._util import log_scale as _log_scale
from ._util import domain as _domain, positive as _positive, probability as _probability
from .gumbel_r import _log_one_minus_exp_of_exp

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]


def _z(fname, x, loc, scale):
    x, loc, scale = _inexact_arrays(fname, x, loc, scale)
    return (x - loc) / scale, scale


@_domain(scale=_positive)
def logpdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`z - exp(z) - log(scale)`.

    Example:
        >>> fg.scipy.stats.gumbel_l.logpdf(np.array([0.0, -1.0]))   # x - exp(x)
        array([-1.        , -1.36787944])
        >>> fg.grad(fg.scipy.stats.gumbel_l.logpdf)(0.0)   # 1 - exp(x)
        array(0.)
    """
    z, scale = _z("stats.gumbel_l.logpdf", x, loc, scale)
    return z - fnp.exp(z) - _log_scale(scale)


def pdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.gumbel_l.pdf(np.array([0.0, -1.0]))
        array([0.36787944, 0.25464638])
    """
    return fnp.exp(logpdf(x, loc, scale))


@_domain(scale=_positive)
def cdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`-expm1(-exp(z))` (no cancellation far left).

    Example:
        >>> fg.scipy.stats.gumbel_l.cdf(np.array([0.0, -40.0]))
        array([6.32120559e-01, 4.24835426e-18])
    """
    z, _ = _z("stats.gumbel_l.cdf", x, loc, scale)
    return -fnp.expm1(-fnp.exp(z))


@_domain(scale=_positive)
def logcdf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`log(1 - exp(-exp(z)))`, ~ z far left (where SciPy's underflows to -inf).

    Example:
        >>> fg.scipy.stats.gumbel_l.logcdf(-800.0)
        array(-800.)
    """
    z, _ = _z("stats.gumbel_l.logcdf", x, loc, scale)
    return _log_one_minus_exp_of_exp(-z)


@_domain(scale=_positive)
def sf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`exp(-exp(z))`.

    Example:
        >>> fg.scipy.stats.gumbel_l.sf(np.array([0.0, -2.0]))
        array([0.36787944, 0.87342302])
    """
    z, _ = _z("stats.gumbel_l.sf", x, loc, scale)
    return fnp.exp(-fnp.exp(z))


@_domain(scale=_positive)
def logsf(x: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """`-exp(z)`.

    Example:
        >>> fg.scipy.stats.gumbel_l.logsf(np.array([0.0, -2.0]))
        array([-1.        , -0.13533528])
    """
    z, _ = _z("stats.gumbel_l.logsf", x, loc, scale)
    return -fnp.exp(z)


@_domain(p=_probability, scale=_positive)
def ppf(p: ArrayLike, loc: ArrayLike = 0, scale: ArrayLike = 1) -> Array:
    """Quantile function `loc + scale log(-log1p(-p))` (accurate for small p).

    Example:
        >>> fg.scipy.stats.gumbel_l.ppf(np.array([0.0, 1.0 - np.exp(-1.0), 1.0]))
        array([-inf,   0.,  inf])
    """
    p, loc, scale = _inexact_arrays("stats.gumbel_l.ppf", p, loc, scale)
    ps = _safe(_probability(p), p, 0.5)
    return loc + scale * fnp.log(-fnp.log1p(-ps))
