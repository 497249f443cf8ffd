"""The negative binomial distribution (`scipy.stats.nbinom`): the number of failures k
before the n-th success; differentiable in n (real, through gammaln) and `p`.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.nbinom.pmf(0.0, 2.0, 0.5))   # p**n
    0.25
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, integer_support as _integer_support
from ._util import inexact_arrays as _inexact_arrays
from ._util import domain as _domain, positive as _positive

__all__ = ["logpmf", "pmf"]


def _p_valid(p):
    return fnp.logical_and(p > 0, p <= 1)


@_domain(n=_positive, p=_p_valid)
def logpmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """`gammaln(n + k) - gammaln(k + 1) - gammaln(n) + n log(p) + xlog1py(k, -p)` for
    integers k >= 0 (k shifted by loc), -inf elsewhere; nan unless n > 0 and 0 < p <= 1.

    Example:
        >>> fg.scipy.stats.nbinom.logpmf(np.array([0.0, 1.0]), 1.0, 0.5)   # geometric from 0
        array([-0.69314718, -1.38629436])
        >>> fg.grad(lambda p: fg.scipy.stats.nbinom.logpmf(1.0, 2.0, p))(0.5)   # n/p - k/(1-p)
        array(2.)
    """
    k, n, p, loc = _inexact_arrays("stats.nbinom.logpmf", k, n, p, loc)
    k = k - loc
    ok = _integer_support(k, 0)
    ks = fnp.where(ok, k, 0.0)
    coeff = fsp.gammaln(n + ks) - fsp.gammaln(ks + 1.0) - fsp.gammaln(n)
    return fnp.where(ok, coeff + n * fnp.log(p) + fsp.xlog1py(ks, -p), -np.inf)


def pmf(k: ArrayLike, n: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """Probability mass.

    Example:
        >>> fg.scipy.stats.nbinom.pmf(np.array([0.0, 1.0, 2.0]), 2.0, 0.5)
        array([0.25  , 0.25  , 0.1875])
    """
    return fnp.exp(logpmf(k, n, p, loc))
