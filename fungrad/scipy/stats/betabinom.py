"""The beta-binomial distribution (`scipy.stats.betabinom`): a binomial whose success
probability is Beta(a, b) distributed; differentiable in a and b.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> round(float(fst.betabinom.pmf(1.0, 2.0, 1.0, 1.0)), 6)   # a = b = 1: uniform on 0..n
    0.333333
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._tails import nonneg_integer as _nonneg_integer
from ._util import Array, ArrayLike, integer_support as _integer_support
from ._util import inexact_arrays as _inexact_arrays
from ._util import domain as _domain, positive as _positive

__all__ = ["logpmf", "pmf"]


@_domain(n=_nonneg_integer, a=_positive, b=_positive)
def logpmf(k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0) -> Array:
    """`log C(n, k) + betaln(k + a, n - k + b) - betaln(a, b)` for integers 0 <= k <= n (k
    shifted by loc), -inf elsewhere; nan unless n is an integer >= 0 and a, b > 0 (SciPy).

    Example:
        >>> fg.scipy.stats.betabinom.logpmf(np.array([0.0, 1.0, 2.0, 3.0]), 2.0, 1.0, 1.0)
        array([-1.09861229, -1.09861229, -1.09861229,        -inf])
        >>> fg.grad(lambda a: fg.scipy.stats.betabinom.logpmf(2.0, 2.0, a, 1.0))(1.0)   # 1/a - 1/(a+2)
        array(0.66666667)
    """
    k, n, a, b, loc = _inexact_arrays("stats.betabinom.logpmf", k, n, a, b, loc)
    k = k - loc
    ok = fnp.logical_and(_integer_support(k, 0), k <= n)
    ks = fnp.where(ok, k, 0.0)
    ns = fnp.where(ok, n, 0.0)
    comb = fsp.gammaln(ns + 1.0) - fsp.gammaln(ks + 1.0) - fsp.gammaln(ns - ks + 1.0)
    val = comb + fsp.betaln(ks + a, ns - ks + b) - fsp.betaln(a, b)
    return fnp.where(ok, val, -np.inf)


def pmf(k: ArrayLike, n: ArrayLike, a: ArrayLike, b: ArrayLike, loc: ArrayLike = 0) -> Array:
    """Probability mass.

    Example:
        >>> fg.scipy.stats.betabinom.pmf(np.array([0.0, 1.0, 2.0]), 2.0, 2.0, 1.0)
        array([0.16666667, 0.33333333, 0.5       ])
    """
    return fnp.exp(logpmf(k, n, a, b, loc))
