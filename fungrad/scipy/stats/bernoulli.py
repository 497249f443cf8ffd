"""The Bernoulli distribution (`scipy.stats.bernoulli`): functions of k in {0, 1} (or q),
differentiable in the probability `p`.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.bernoulli.pmf(1.0, 0.3))
    0.3
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, inexact as _inexact
from ._util import inexact_arrays as _inexact_arrays
from ._util import domain as _domain, probability as _probability

__all__ = ["logpmf", "pmf", "cdf", "ppf"]


@_domain(p=_probability)
def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0.0) -> Array:
    """`xlogy(k, p) + xlog1py(1 - k, -p)` for k in {0, 1} (shifted by loc), -inf elsewhere.

    Example:
        >>> fg.scipy.stats.bernoulli.logpmf(np.array([0.0, 1.0, 2.0]), 0.5)   # -inf off {0, 1}
        array([-0.69314718, -0.69314718,        -inf])
        >>> fg.grad(lambda p: fg.scipy.stats.bernoulli.logpmf(1.0, p))(0.25)   # 1 / p
        array(4.)
    """
    k, p, loc = _inexact("stats.bernoulli.logpmf", k, p, loc)
    k = k - loc
    ok = fnp.logical_or(k == 0, k == 1)
    ks = fnp.where(ok, k, 0.0)
    return fnp.where(ok, fsp.xlogy(ks, p) + fsp.xlog1py(1.0 - ks, -p), -np.inf)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0.0) -> Array:
    """Probability mass.

    Example:
        >>> fg.scipy.stats.bernoulli.pmf(np.array([0.0, 1.0]), 0.25)
        array([0.75, 0.25])
        >>> fg.grad(lambda p: fg.scipy.stats.bernoulli.pmf(0.0, p))(0.25)   # d(1 - p)/dp
        array(-1.)
    """
    return fnp.exp(logpmf(k, p, loc))


@_domain(p=_probability)
def cdf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0.0) -> Array:
    """0 for k < 0, 1 - p for 0 <= k < 1, 1 for k >= 1.

    Example:
        >>> fg.scipy.stats.bernoulli.cdf(np.array([-1.0, 0.0, 0.5, 1.0]), 0.25)
        array([0.  , 0.75, 0.75, 1.  ])
    """
    k, p, loc = _inexact_arrays("stats.bernoulli.cdf", k, p, loc)
    k = k - loc
    return fnp.where(k < 0, 0.0, fnp.where(k < 1, 1.0 - p, 1.0))


@_domain(p=_probability)
def ppf(q: ArrayLike, p: ArrayLike) -> Array:
    """The smallest k in {0, 1} with cdf(k) >= q (nan outside 0 <= q <= 1); no derivative.

    Example:
        >>> fg.scipy.stats.bernoulli.ppf(np.array([0.5, 0.75, 0.9]), 0.25)   # cdf(0) = 0.75
        array([0., 0., 1.])
    """
    q, p = _inexact("stats.bernoulli.ppf", q, p)
    # 0, 1 and -1 in q's and p's dtype (Python 1.0 and 0.0 made float64; and NumPy's own
    # `+` on a bfloat16 array computes in float32, so the constants come from full_like)
    zero = fnp.zeros_like(q + p)
    k = fnp.where(fnp.logical_or(q > 1.0 - p, q == 1), fnp.ones_like(zero), zero)  # (SciPy: 1 at q == 1)
    bad = fnp.logical_or(fnp.logical_or(q < 0, q > 1), fnp.logical_or(p < 0, p > 1))
    return fnp.where(bad, np.nan, fnp.where(q == 0, fnp.full_like(zero, -1.0), k))
