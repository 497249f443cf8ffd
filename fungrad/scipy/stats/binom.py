"""The binomial distribution (`scipy.stats.binom`): functions of k (integer-valued),
differentiable in n (through gammaln) and the success probability `p`.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.binom.pmf(1.0, 2.0, 0.5))
    0.5
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, integer_support as _integer_support
from ._util import inexact_arrays as _inexact_arrays
from ._util import domain as _domain, nonnegative as _nonnegative, probability as _probability

__all__ = ["logpmf", "pmf"]


# (n is not required to be an integer, as SciPy does: binom is differentiable in n)
@_domain(n=_nonnegative, p=_probability)
def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0.0) -> Array:
    """`log C(n, k) + xlogy(k, p) + xlog1py(n - k, -p)` for integers 0 <= k <= n (k shifted
    by loc), -inf elsewhere.

    Example:
        >>> fg.scipy.stats.binom.logpmf(np.array([0.0, 1.0, 2.0]), 2.0, 0.5)   # log [1/4, 1/2, 1/4]
        array([-1.38629436, -0.69314718, -1.38629436])
        >>> fg.grad(lambda p: fg.scipy.stats.binom.logpmf(1.0, 2.0, p))(0.25)   # 1/p - 1/(1 - p)
        array(2.66666667)
    """
    k, n, p, loc = _inexact_arrays("stats.binom.logpmf", k, n, p, loc)
    k = k - loc
    ok = fnp.logical_and(_integer_support(k, 0), k <= n)
    ks = fnp.where(ok, k, 0.0)
    comb = fsp.gammaln(n + 1.0) - fsp.gammaln(ks + 1.0) - fsp.gammaln(n - ks + 1.0)
    return fnp.where(ok, comb + fsp.xlogy(ks, p) + fsp.xlog1py(n - ks, -p), -np.inf)


def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0.0) -> Array:
    """Probability mass.

    Example:
        >>> fg.scipy.stats.binom.pmf(np.array([0.0, 1.0, 2.0]), 2.0, 0.5)
        array([0.25, 0.5 , 0.25])
    """
    return fnp.exp(logpmf(k, n, p, loc))
