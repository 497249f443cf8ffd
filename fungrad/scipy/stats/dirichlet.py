"""The Dirichlet distribution (`scipy.stats.dirichlet`): x of shape (K,) or (K, N...) (the
components along the first axis, as SciPy), alpha of shape (K,); differentiable in both.

Example:
    >>> import numpy as np, fungrad.scipy.stats as fst
    >>> float(fst.dirichlet.logpdf(np.array([0.5, 0.5]), np.array([1.0, 1.0])))   # log Gamma(2)
    0.0
"""
from __future__ import annotations

import numpy as np

from ... import numpy as fnp
from ...backend import to_host as _to_host
from ...numpy._base import is_traced as _is_traced
from .. import special as fsp
from ._util import Array, ArrayLike, inexact as _inexact

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """`sum_i xlogy(alpha_i - 1, x_i) + gammaln(sum alpha) - sum gammaln(alpha)`. An x of
    K - 1 components gets `1 - sum` as its last (SciPy's and JAX's). A component outside
    [0, 1] raises SciPy's ValueError for a concrete x, as does a concrete alpha with an entry
    <= 0 (or a zero x_i with alpha_i < 1); under a transform the log density there is -inf
    (JAX's), nan for alpha <= 0. Components not summing to 1 are not rejected (SciPy and JAX
    do, within 1e-9 and 1e-6): the density's extension off the simplex is what finite
    differences in x and nearby points evaluate.

    Example:
        >>> x = np.array([[0.25, 0.5], [0.75, 0.5]])   # two points (columns)
        >>> fg.scipy.stats.dirichlet.logpdf(x, np.array([2.0, 1.0]))   # log(2 x_0)
        array([-0.69314718,  0.        ])
        >>> fg.grad(fg.scipy.stats.dirichlet.logpdf, argnums=1)(np.array([0.5, 0.5]), np.ones(2))
        array([0.30685282, 0.30685282])
    """
    x, alpha = _inexact("stats.dirichlet.logpdf", x, alpha)
    x, alpha = fnp.asarray(x), fnp.asarray(alpha)
    k = fnp.shape(alpha)[0] if fnp.ndim(alpha) == 1 else None
    if k is None or fnp.ndim(x) < 1 or fnp.shape(x)[0] not in (k, k - 1):
        raise ValueError(f"stats.dirichlet.logpdf: alpha must have shape (K,) and x shape (K,) "
                         f"or (K, ...), or (K - 1, ...); got x {fnp.shape(x)} and alpha "
                         f"{fnp.shape(alpha)}")
    if fnp.shape(x)[0] == k - 1:
        x = fnp.concatenate([x, 1.0 - fnp.sum(x, axis=0, keepdims=True)], axis=0)
    if not _is_traced(x, alpha):
        _check_concrete(_to_host(x), _to_host(alpha))
    a = fnp.reshape(alpha, fnp.shape(alpha) + (1,) * (fnp.ndim(x) - 1))
    norm = fsp.gammaln(fnp.sum(alpha)) - fnp.sum(fsp.gammaln(alpha))
    out = fnp.sum(fsp.xlogy(a - 1.0, x), axis=0) + norm
    out = fnp.where(_in_unit_box(x), out, fnp.full_like(out, -np.inf))
    return fnp.where(fnp.all(alpha > 0), out, fnp.full_like(out, np.nan))


def _in_unit_box(x):
    """Where every component of a column of x is in [0, 1] (a nan column is not outside:
    its log density stays nan, as SciPy's)."""
    return fnp.logical_not(fnp.logical_or(fnp.any(x < 0, axis=0), fnp.any(x > 1, axis=0)))


def _check_concrete(x, alpha):
    """SciPy's errors for concrete arguments (its messages)."""
    if np.any(alpha <= 0):
        raise ValueError("stats.dirichlet.logpdf: all parameters (alpha) must be greater "
                         "than 0")
    if np.any(x < 0):
        raise ValueError("stats.dirichlet.logpdf: each entry in 'x' must be greater than or "
                         "equal to zero")
    if np.any(x > 1):
        raise ValueError("stats.dirichlet.logpdf: each entry in 'x' must be smaller or "
                         "equal one")
    zero_with_alpha_below_one = np.logical_and(
        x == 0, np.reshape(alpha < 1, alpha.shape + (1,) * (x.ndim - 1)))
    if np.any(zero_with_alpha_below_one):
        raise ValueError("stats.dirichlet.logpdf: each entry in 'x' must be greater than "
                         "zero if its alpha is less than one")


def pdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """Density.

    Example:
        >>> x = np.array([[0.25, 0.5], [0.75, 0.5]])   # two points (columns)
        >>> fg.scipy.stats.dirichlet.pdf(x, np.array([2.0, 1.0]))   # 2 x_0
        array([0.5, 1. ])
    """
    return fnp.exp(logpdf(x, alpha))
