"""The Dirichlet distribution (`scipy.stats.dirichlet`): x of shape (K,) or (K, N...) (the
components along the first axis, as SciPy), alpha of shape (K,); differentiable in both.

Example:
    >>> import numpy as np, fungrad.scipy.stats as fst
    >>> float(fst.dirichlet.logpdf(np.array([0.5, 0.5]), np.array([1.0, 1.0])))   # log Gamma(2)
    0.0
"""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as fsp
from ._util import Array, ArrayLike, inexact as _inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """`sum_i xlogy(alpha_i - 1, x_i) + gammaln(sum alpha) - sum gammaln(alpha)`.

    Example: `fst.dirichlet.logpdf(np.array([0.5, 0.5]), np.array([1.0, 1.0]))` is `0.0`.
    """
    x, alpha = _inexact("stats.dirichlet.logpdf", x, alpha)
    if fnp.ndim(alpha) != 1 or fnp.ndim(x) < 1 or fnp.shape(x)[0] != fnp.shape(alpha)[0]:
        raise ValueError(f"stats.dirichlet.logpdf: alpha must have shape (K,) and x shape (K,) "
                         f"or (K, ...); got x {fnp.shape(x)} and alpha {fnp.shape(alpha)}")
    a = fnp.reshape(alpha, fnp.shape(alpha) + (1,) * (fnp.ndim(x) - 1))
    norm = fsp.gammaln(fnp.sum(alpha)) - fnp.sum(fsp.gammaln(alpha))
    return fnp.sum(fsp.xlogy(a - 1.0, x), axis=0) + norm


def pdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """Density.

    Example: `fst.dirichlet.pdf(np.array([0.5, 0.5]), np.array([1.0, 1.0]))` is `1.0`.
    """
    return fnp.exp(logpdf(x, alpha))
