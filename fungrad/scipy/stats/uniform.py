"""The uniform distribution on [loc, loc + scale] (`scipy.stats.uniform`), differentiable
in x (or q), loc and scale.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.uniform.pdf(0.5, 0.0, 2.0))
    0.5
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from ._util import Array, ArrayLike, inexact as _inexact, standardize as _standardize
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf", "cdf", "ppf"]


@_domain(scale=_positive)
def logpdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`-log(scale)` on [loc, loc + scale], -inf outside.

    Example:
        >>> fg.scipy.stats.uniform.logpdf(np.array([-1.0, 0.5, 3.0]), 0.0, 2.0)   # on [0, 2]
        array([       -inf, -0.69314718,        -inf])
        >>> fg.grad(lambda s: fg.scipy.stats.uniform.logpdf(0.5, 0.0, s))(2.0)   # -1 / scale
        array(-0.5)
    """
    y, log_scale = _standardize("stats.uniform.logpdf", x, loc, scale)
    inside = fnp.logical_and(y >= 0, y <= 1)
    return fnp.where(inside, -log_scale + 0.0 * y, -np.inf)


def pdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.uniform.pdf(np.array([-1.0, 0.5, 3.0]), 0.0, 2.0)
        array([0. , 0.5, 0. ])
    """
    return fnp.exp(logpdf(x, loc, scale))


@_domain(scale=_positive)
def cdf(x: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`clip((x - loc) / scale, 0, 1)`.

    Example:
        >>> fg.scipy.stats.uniform.cdf(np.array([-1.0, 0.5, 3.0]), 0.0, 2.0)
        array([0.  , 0.25, 1.  ])
        >>> fg.grad(lambda x: fg.scipy.stats.uniform.cdf(x, 0.0, 2.0))(0.5)   # 1 / scale
        array(0.5)
    """
    y, _ = _standardize("stats.uniform.cdf", x, loc, scale)
    return fnp.clip(y, 0.0, 1.0)


@_domain(scale=_positive)
def ppf(q: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`loc + q * scale` for 0 <= q <= 1, nan outside.

    Example:
        >>> fg.scipy.stats.uniform.ppf(np.array([0.0, 0.25, 1.5]), 0.0, 2.0)   # nan outside [0, 1]
        array([0. , 0.5, nan])
    """
    q, loc, scale = _inexact("stats.uniform.ppf", q, loc, scale)
    return fnp.where(fnp.logical_and(q >= 0, q <= 1), loc + q * scale, np.nan)
