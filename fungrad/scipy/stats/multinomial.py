"""The multinomial distribution (`scipy.stats.multinomial`): counts x (last axis) of n
trials over categories of probabilities p (last axis); differentiable in p.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.multinomial.pmf(np.array([1.0, 1.0]), 2.0, np.array([0.5, 0.5])))
    0.5
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._tails import nonneg_integer as _nonneg_integer
from ._util import Array, ArrayLike
from ._util import inexact_arrays as _inexact_arrays

__all__ = ["logpmf", "pmf"]


def logpmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """`gammaln(n + 1) + sum(xlogy(x, p) - gammaln(x + 1))` over the last axis where the
    counts x are integers >= 0 summing to n, -inf elsewhere; nan where n is not an integer
    >= 0 or an entry of p is outside [0, 1]. p is used as given (JAX's choice; SciPy
    replaces its last entry by 1 - the others).

    Example:
        >>> fg.scipy.stats.multinomial.logpmf(np.array([1.0, 2.0]), 3.0, np.array([0.5, 0.5]))
        array(-0.98082925)
        >>> fg.grad(lambda p: fg.scipy.stats.multinomial.logpmf(np.array([1.0, 2.0]), 3.0, p))(
        ...     np.array([0.25, 0.75]))   # x / p
        array([4.        , 2.66666667])
    """
    x, n, p = _inexact_arrays("stats.multinomial.logpmf", x, n, p)
    counts = fnp.logical_and(x >= 0, x == fnp.floor(x))
    ok = fnp.logical_and(fnp.all(counts, axis=-1), fnp.sum(x, axis=-1) == n)
    xs = fnp.where(counts, x, 0.0)
    val = fsp.gammaln(n + 1.0) + fnp.sum(fsp.xlogy(xs, p) - fsp.gammaln(xs + 1.0), axis=-1)
    out = fnp.where(ok, val, -np.inf)
    bad = fnp.logical_or(fnp.logical_not(_nonneg_integer(n)),
                         fnp.any(fnp.logical_or(fnp.isnan(p), fnp.logical_or(p < 0, p > 1)),
                                 axis=-1))
    bad = fnp.logical_or(bad, fnp.any(fnp.isnan(x), axis=-1))
    return fnp.where(bad, np.nan, out)


def pmf(x: ArrayLike, n: ArrayLike, p: ArrayLike) -> Array:
    """Probability mass.

    Example:
        >>> fg.scipy.stats.multinomial.pmf(np.array([[2.0, 0.0], [1.0, 1.0]]), 2.0,
        ...                                np.array([0.5, 0.5]))
        array([0.25, 0.5 ])
    """
    return fnp.exp(logpmf(x, n, p))
