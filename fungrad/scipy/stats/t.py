"""Student's t distribution (`scipy.stats.t`): logpdf and pdf of x, df, loc, scale,
differentiable in all of them.

Example:
    >>> import fungrad.scipy.stats as fst
    >>> float(fst.t.pdf(0.0, 1.0))   # the Cauchy density at 0: 1 / pi
    0.31830988618379075
"""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike
from ._util import inexact_arrays as _inexact_arrays
from ._util import log_scale as _log_scale
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
    x, df, loc, scale = _inexact_arrays("stats.t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    # gammaln((df+1)/2) - gammaln(df/2) cancels catastrophically for large df (wrong from
    # df ~ 1e10, -18.99 instead of -0.92 at df = 1e16, nan at inf): above df = 100 use its
    # asymptotic series in h = df/2, log Gamma(h + 1/2) - log Gamma(h) - log(h)/2 =
    # -1/(8h) + 1/(192h^3) - 1/(640h^5) + 17/(14336h^7) + O(h^-9), so the normalizer is
    # that minus log(2 pi)/2; df = inf gives the normal's logpdf (SciPy's values)
    big = df > 100.0
    dfs = fnp.where(big, 2.0, df)                    # (finite gammaln on the untaken side)
    h = fnp.where(big, 0.5 * df, 50.0)
    r = 1.0 / h
    r2 = r * r
    series = r * (-1.0 / 8 + r2 * (1.0 / 192 + r2 * (-1.0 / 640 + r2 * (17.0 / 14336))))
    exact = (fsp.gammaln((dfs + 1.0) * 0.5) - fsp.gammaln(dfs * 0.5)
             - 0.5 * fnp.log(dfs * math.pi))
    norm = fnp.where(big, series - 0.5 * math.log(2.0 * math.pi), exact)
    fin = df < np.inf
    dff = fnp.where(fin, df, 1.0)
    tail = fnp.where(fin, (dff + 1.0) * 0.5 * fnp.log1p(z * z / dff), 0.5 * (z * z))
    return norm - _log_scale(scale) - tail   # (_log_scale: a weak scale keeps float32)


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example:
        >>> fg.scipy.stats.t.pdf(np.array([0.0, 1.0]), 1.0)   # 1 / (pi (1 + x**2))
        array([0.31830989, 0.15915494])
        >>> fg.scipy.stats.t.pdf(0.0, np.array([1.0, 1e6]))   # as df grows: the normal's 0.39894228
        array([0.31830989, 0.39894218])
    """
    return fnp.exp(logpdf(x, df, loc, scale))
