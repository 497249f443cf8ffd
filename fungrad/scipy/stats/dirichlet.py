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

    Example:
        >>> x = np.array([[0.25, 0.5], [0.75, 0.5]])   # two points (columns)
        >>> fg.scipy.stats.dirichlet.logpdf(x, np.array([2.0, 1.0]))   # log(2 x_0)
        array([-0.69314718,  0.        ])
        >>> fg.grad(fg.scipy.stats.dirichlet.logpdf, argnums=1)(np.array([0.5, 0.5]), np.ones(2))
        array([0.30685282, 0.30685282])
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

    Example:
        >>> x = np.array([[0.25, 0.5], [0.75, 0.5]])   # two points (columns)
        >>> fg.scipy.stats.dirichlet.pdf(x, np.array([2.0, 1.0]))   # 2 x_0
        array([0.5, 1. ])
    """
    return fnp.exp(logpdf(x, alpha))
