"""The geometric distribution (`scipy.stats.geom`): the number of trials up to the first
success, k = 1, 2, ...; differentiable in the success probability `p`.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.geom.pmf(2.0, 0.5))   # (1 - p) p
    0.25
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, integer_support as _integer_support
from ._util import inexact_arrays as _inexact_arrays
from ._util import domain as _domain

__all__ = ["logpmf", "pmf"]


def _p_valid(p):
    return fnp.logical_and(p > 0, p <= 1)


@_domain(p=_p_valid)
def logpmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """`xlog1py(k - 1, -p) + log(p)` for integers k >= 1 (k shifted by loc), -inf
    elsewhere; nan unless 0 < p <= 1.

    Example:
        >>> fg.scipy.stats.geom.logpmf(np.array([0.0, 1.0, 3.0]), 0.5)   # log [0, 1/2, 1/8]
        array([       -inf, -0.69314718, -2.07944154])
        >>> fg.grad(lambda p: fg.scipy.stats.geom.logpmf(3.0, p))(0.5)   # 1/p - (k-1)/(1-p)
        array(-2.)
    """
    k, p, loc = _inexact_arrays("stats.geom.logpmf", k, p, loc)
    k = k - loc
    ok = _integer_support(k, 1)
    ks = fnp.where(ok, k, 1.0)
    return fnp.where(ok, fsp.xlog1py(ks - 1.0, -p) + fnp.log(p), -np.inf)


def pmf(k: ArrayLike, p: ArrayLike, loc: ArrayLike = 0) -> Array:
    """Probability mass `(1 - p)^(k-1) p`.

    Example:
        >>> fg.scipy.stats.geom.pmf(np.array([1.0, 2.0, 3.0]), 0.5)
        array([0.5  , 0.25 , 0.125])
    """
    return fnp.exp(logpmf(k, p, loc))
