"""The generalized normal distribution (`scipy.stats.gennorm`) with shape `beta`: density
`beta / (2 Gamma(1/beta)) exp(-|x|^beta)` (beta = 2: a normal, beta = 1: a Laplace). The
log density is differentiable in x and beta; the cdf (gammaincc) in x only (its derivative
in beta raises NotImplementedError).

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.gennorm.pdf(0.0, 1.0))   # the Laplace density at 0
    0.5
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from .. import special as fsp
from ._tails import safe as _safe
from ._util import Array, ArrayLike
from ._util import inexact_arrays as _inexact_arrays
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf"]
_LOG2 = math.log(2.0)


def _abs_pow(x, beta):
    """`|x|^beta`, 0 at x = 0 with finite slopes there (in beta: 0, not 0 * log 0)."""
    ax = fnp.abs(x)
    pos = ax > 0
    return fnp.where(pos, fnp.exp(beta * fnp.log(_safe(pos, ax, 1.0))), 0.0)


@_domain(beta=_positive)
def logpdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """`log(beta) - log 2 - gammaln(1/beta) - |x|^beta`.

    Example:
        >>> fg.scipy.stats.gennorm.logpdf(np.array([0.0, 1.0]), 1.0)   # Laplace: -|x| - log 2
        array([-0.69314718, -1.69314718])
        >>> fg.grad(lambda x: fg.scipy.stats.gennorm.logpdf(x, 2.0))(1.5)   # -2x
        array(-3.)
    """
    x, beta = _inexact_arrays("stats.gennorm.logpdf", x, beta)
    return fnp.log(beta) - _LOG2 - fsp.gammaln(1.0 / beta) - _abs_pow(x, beta)


def pdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.gennorm.pdf(np.array([0.0, 1.0]), 1.0)   # exp(-|x|) / 2
        array([0.5       , 0.18393972])
    """
    return fnp.exp(logpdf(x, beta))


@_domain(beta=_positive)
def cdf(x: ArrayLike, beta: ArrayLike) -> Array:
    """`gammaincc(1/beta, |x|^beta) / 2` below 0 (no cancellation in the left tail), `1 -`
    that above.

    Example:
        >>> fg.scipy.stats.gennorm.cdf(np.array([-1.0, 0.0, 1.0]), 1.0)   # Laplace's cdf
        array([0.18393972, 0.5       , 0.81606028])
        >>> fg.grad(lambda x: fg.scipy.stats.gennorm.cdf(x, 1.0))(1.0)   # the density
        array(0.18393972)
    """
    x, beta = _inexact_arrays("stats.gennorm.cdf", x, beta)
    tail = 0.5 * fsp.gammaincc(1.0 / beta, _abs_pow(x, beta))
    return fnp.where(x < 0, tail, 1.0 - tail)
