"""Student's t distribution (`scipy.stats.t`): logpdf and pdf of x, df, loc, scale,
differentiable in all of them.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.t.pdf(0.0, 1.0))   # the Cauchy density at 0: 1 / pi
    0.31830988618379075
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, inexact as _inexact
from ._util import domain as _domain, positive as _positive

__all__ = ["logpdf", "pdf"]


@_domain(df=_positive, scale=_positive)
def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`gammaln((df+1)/2) - gammaln(df/2) - log(df pi)/2 - log(scale)
    - (df+1)/2 log1p(z^2 / df)`, z = (x - loc) / scale.

    Example:
        >>> fg.scipy.stats.t.logpdf(np.array([0.0, 1.0]), 1.0)   # df = 1: the Cauchy logpdf
        array([-1.14472989, -1.83787707])
        >>> fg.grad(lambda x: fg.scipy.stats.t.logpdf(x, 1.0))(1.0)   # -(df + 1) x / (df + x**2)
        array(-1.)
    """
    x, df, loc, scale = _inexact("stats.t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    half = (df + 1.0) * 0.5
    norm = fsp.gammaln(half) - fsp.gammaln(df * 0.5) - 0.5 * fnp.log(df * math.pi)
    return norm - fnp.log(scale) - half * fnp.log1p(z * z / df)


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.t.pdf(np.array([0.0, 1.0]), 1.0)   # 1 / (pi (1 + x**2))
        array([0.31830989, 0.15915494])
        >>> fg.scipy.stats.t.pdf(0.0, np.array([1.0, 1e6]))   # as df grows: the normal's 0.39894228
        array([0.31830989, 0.39894218])
    """
    return fnp.exp(logpdf(x, df, loc, scale))
