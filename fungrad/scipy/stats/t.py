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

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """`gammaln((df+1)/2) - gammaln(df/2) - log(df pi)/2 - log(scale)
    - (df+1)/2 log1p(z^2 / df)`, z = (x - loc) / scale.

    Example: `fst.t.logpdf(0.0, 1.0)` is `-log(pi)`.
    """
    x, df, loc, scale = _inexact("stats.t.logpdf", x, df, loc, scale)
    z = (x - loc) / scale
    half = (df + 1.0) * 0.5
    norm = fsp.gammaln(half) - fsp.gammaln(df * 0.5) - 0.5 * fnp.log(df * math.pi)
    return norm - fnp.log(scale) - half * fnp.log1p(z * z / df)


def pdf(x: ArrayLike, df: ArrayLike, loc: ArrayLike = 0.0, scale: ArrayLike = 1.0) -> Array:
    """Density.

    Example: `fst.t.pdf(0.0, 1.0)` is `1 / pi`.
    """
    return fnp.exp(logpdf(x, df, loc, scale))
