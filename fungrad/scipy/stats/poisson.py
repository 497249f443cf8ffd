"""The Poisson distribution (`scipy.stats.poisson`): functions of k (integer-valued),
differentiable in the rate `mu`.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.poisson.pmf(0.0, 2.0))   # exp(-2)
    0.1353352832366127
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, inexact as _inexact, integer_support as _integer_support
from ._util import domain as _domain, nonnegative as _nonnegative

__all__ = ["logpmf", "pmf", "cdf"]


@_domain(mu=_nonnegative)
def logpmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0.0) -> Array:
    """`xlogy(k, mu) - gammaln(k + 1) - mu` for integers k >= 0 (k shifted by loc), -inf
    elsewhere.

    Example:
        >>> fg.scipy.stats.poisson.logpmf(np.array([0.0, 1.0, 0.5]), 2.0)   # [-2, log 2 - 2, -inf]
        array([-2.        , -1.30685282,        -inf])
        >>> fg.grad(lambda mu: fg.scipy.stats.poisson.logpmf(3.0, mu))(2.0)   # k/mu - 1
        array(0.5)
    """
    k, mu, loc = _inexact("stats.poisson.logpmf", k, mu, loc)
    k = k - loc
    ok = _integer_support(k, 0)
    ks = fnp.where(ok, k, 0.0)
    return fnp.where(ok, fsp.xlogy(ks, mu) - fsp.gammaln(ks + 1.0) - mu, -np.inf)


def pmf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0.0) -> Array:
    """Probability mass.

    Example:
        >>> fg.scipy.stats.poisson.pmf(np.array([0.0, 1.0, 2.0]), 2.0)   # exp(-2) [1, 2, 2]
        array([0.13533528, 0.27067057, 0.27067057])
    """
    return fnp.exp(logpmf(k, mu, loc))


@_domain(mu=_nonnegative)
def cdf(k: ArrayLike, mu: ArrayLike, loc: ArrayLike = 0.0) -> Array:
    """`P(K <= k) = gammaincc(floor(k) + 1, mu)`, 0 for k < 0.

    Example:
        >>> fg.scipy.stats.poisson.cdf(np.array([-1.0, 0.0, 1.5]), 2.0)   # exp(-2) [0, 1, 3]
        array([0.        , 0.13533528, 0.40600585])
        >>> fg.grad(lambda mu: fg.scipy.stats.poisson.cdf(0.0, mu))(2.0)   # -exp(-mu)
        array(-0.13533528)
    """
    k, mu, loc = _inexact("stats.poisson.cdf", k, mu, loc)
    k = fnp.floor(k - loc)
    neg = k < 0
    return fnp.where(neg, 0.0, fsp.gammaincc(fnp.where(neg, 0.0, k) + 1.0, mu))
