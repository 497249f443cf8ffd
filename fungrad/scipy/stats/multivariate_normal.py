"""The multivariate normal distribution (`scipy.stats.multivariate_normal`): x of shape
(..., d) (the components along the last axis), mean of shape (d,) (None: zeros), cov a
scalar (cov * I), a (d,) diagonal or a (d, d) matrix; differentiable in x, mean and cov.

Shapes are SciPy's: a 1-D x is one point (or, for d = 1, n points), and the result is
squeezed (`logpdf(x of (4, 1, 3))` has shape (4,)). With `allow_singular=False` the density
goes through cov's Cholesky factor (only cov's lower triangle is read, as SciPy's eigh
does, so the derivative in cov is that of the function SciPy computes); with
`allow_singular=True` through its eigendecomposition, with SciPy's pseudo-determinant,
pseudo-inverse, rank cutoff and -inf outside the support (derivatives at a fixed rank).

Example:
    >>> import numpy as np, fungrad.scipy.stats as fst
    >>> float(fst.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(2)))  # -log 2 pi
    -1.8378770664093453
"""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from ...backend import array_module as _array_module, to_host as _to_host
from ...numpy._base import dtype_of as _dtype_of, is_traced as _is_traced, is_weak as _is_weak
from .. import linalg as _fsl
from ._util import Array, ArrayLike, inexact as _inexact

__all__ = ["logpdf", "pdf"]
_LOG_2PI = math.log(2.0 * math.pi)
_NAME = "stats.multivariate_normal.logpdf"
# SciPy's cutoff for a negligible eigenvalue (scipy.stats._multivariate._eigvalsh_to_eps):
# factor * eps(dtype) * max |eigenvalue|
_CUTOFF_FACTOR = {np.dtype(np.float32): 1e3, np.dtype(np.float64): 1e6}


def logpdf(x: ArrayLike, mean: ArrayLike | None = None, cov: ArrayLike = 1,
           allow_singular: bool = False) -> Array:
    """Log density `-(d log(2 pi) + log det cov + (x - mean)^T cov^-1 (x - mean)) / 2`.

    Example (its gradient in x is `-cov^-1 (x - mean)`):

    >>> import fungrad.scipy.stats as fst
    >>> float(fst.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(2)))
    -1.8378770664093453
    >>> fg.grad(lambda x: fst.multivariate_normal.logpdf(x, np.zeros(2), 2.0))(np.ones(2))
    array([-0.5, -0.5])
    """
    x, mean, cov = _parameters(x, mean, cov)
    if not _is_traced(cov):  # (a value check: on the host, cov is d x d)
        _check_psd(_to_host(cov), allow_singular)
    dev = x - mean
    out = (_singular_logpdf(dev, cov) if allow_singular else _cholesky_logpdf(dev, cov))
    return fnp.squeeze(out)


def pdf(x: ArrayLike, mean: ArrayLike | None = None, cov: ArrayLike = 1,
        allow_singular: bool = False) -> Array:
    """Density.

    Example (`1 / (2 pi)`):

    >>> import fungrad.scipy.stats as fst
    >>> round(float(fst.multivariate_normal.pdf(np.zeros(2), np.zeros(2), np.eye(2))), 6)
    0.159155
    """
    return fnp.exp(logpdf(x, mean, cov, allow_singular))


# --------------------------------------------------------------------------- parameters
def _parameters(x, mean, cov):
    """x as (..., d), mean as (d,) and cov as (d, d), in one float dtype, with SciPy's
    inference of d (from mean, else from cov) and its shape rules."""
    promoted = _inexact(_NAME, x, cov, *([] if mean is None else [mean]))
    dt = np.result_type(*[_dtype_of(a) for a in promoted if not _is_weak(a)] or [np.float64])
    xp = _array_module(*promoted)  # (constants made here live on the arguments' device)
    x, cov, *rest = [fnp.asarray(a, dtype=dt) if _is_traced(a) else xp.asarray(a, dt)
                     for a in promoted]
    mean = rest[0] if rest else None
    d = _dimension(mean, cov)
    mean = xp.zeros((d,), dt) if mean is None else mean
    if d == 1:
        mean, cov = _one_dimensional(mean, cov)
    if fnp.ndim(mean) != 1 or fnp.shape(mean)[0] != d:
        raise ValueError(f"{_NAME}: mean must be a vector of length {d}, got shape "
                         f"{fnp.shape(mean)}")
    return _points(x, d), mean, _matrix(cov, d, xp)


def _dimension(mean, cov):
    if mean is not None:
        return int(np.prod(fnp.shape(mean), dtype=np.int64))
    return 1 if fnp.ndim(cov) < 2 else fnp.shape(cov)[0]


def _one_dimensional(mean, cov):
    if fnp.size(cov) != 1:
        raise ValueError(f"{_NAME}: mean has length 1, so cov must be a scalar or of shape "
                         f"(1, 1), got shape {fnp.shape(cov)}")
    return fnp.reshape(mean, (1,)), fnp.reshape(cov, (1, 1))


def _matrix(cov, d, xp=np):
    """cov as a (d, d) matrix: a scalar times I (`xp`'s: on cov's device), a diagonal, or
    checked as given."""
    if fnp.ndim(cov) == 0:
        return cov * xp.eye(d, dtype=_dtype_of(cov))
    if fnp.ndim(cov) == 1:
        if fnp.shape(cov)[0] != d:
            raise ValueError(f"{_NAME}: a 1-D cov is the diagonal and must have length {d} "
                             f"(mean's), got shape {fnp.shape(cov)}")
        return fnp.diag(cov)
    if fnp.ndim(cov) > 2:
        raise ValueError(f"{_NAME}: cov must be at most two-dimensional (batches: "
                         f"fg.vmap over logpdf), got shape {fnp.shape(cov)}")
    rows, cols = fnp.shape(cov)
    if rows != cols:
        raise ValueError(f"{_NAME}: cov must be square if it is two-dimensional, got shape "
                         f"{fnp.shape(cov)}")
    if rows != d:
        raise ValueError(f"{_NAME}: cov of shape {fnp.shape(cov)} does not match mean, a "
                         f"vector of length {d}")
    return cov


def _points(x, d):
    """x with the components along its last axis (SciPy: a scalar is one point of d = 1; a
    1-D x is one point, or for d = 1 n points)."""
    if fnp.ndim(x) == 0:
        x = fnp.reshape(x, (1,))
    elif fnp.ndim(x) == 1:
        x = fnp.reshape(x, (-1, 1) if d == 1 else (1, -1))
    if fnp.shape(x)[-1] != d:
        raise ValueError(f"{_NAME}: x must have the {d} components along its last axis, got "
                         f"shape {fnp.shape(x)}")
    return x


def _cutoff(s):
    """SciPy's threshold below which an eigenvalue of cov counts as zero."""
    dt = np.dtype(_dtype_of(s))
    return _CUTOFF_FACTOR.get(dt, 1e6) * np.finfo(dt).eps * fnp.max(fnp.abs(s))


def _check_psd(cov, allow_singular):
    """SciPy's errors for a concrete cov: not positive semidefinite, or singular while
    allow_singular is False."""
    s = np.linalg.eigvalsh(cov)
    eps = _cutoff(s)
    if np.min(s) < -eps:
        raise ValueError(f"{_NAME}: cov must be symmetric positive semidefinite (its smallest "
                         f"eigenvalue is {np.min(s):.3g})")
    if not allow_singular and np.any(s <= eps):
        raise np.linalg.LinAlgError(
            f"{_NAME}: cov is singular (eigenvalue {np.min(s):.3g}); with allow_singular=False "
            "it must be symmetric positive definite (pass allow_singular=True for the "
            "density on its support)")


# --------------------------------------------------------------------------- densities
def _cholesky_logpdf(dev, cov):
    """With L = cholesky(cov): log det cov = 2 sum log diag L, the Mahalanobis term
    |L^-1 dev|^2 (one triangular solve for all points)."""
    d = fnp.shape(cov)[0]
    chol = fnp.linalg.cholesky(cov)
    batch = fnp.shape(dev)[:-1]
    # (check_finite=False: a nan or inf point gives nan / -inf, as SciPy's, not an error)
    z = _fsl.solve_triangular(chol, fnp.reshape(dev, (-1, d)).T, lower=True, check_finite=False)
    maha = fnp.reshape(fnp.sum(z * z, axis=0), batch)
    log_det = 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol)))
    return -0.5 * (d * _LOG_2PI + log_det + maha)


def _singular_logpdf(dev, cov):
    """SciPy's allow_singular density: with cov = U diag(s) U^T and the eigenvalues above
    SciPy's cutoff kept, rank * log(2 pi) + log pseudo-det + |dev U s^-1/2|^2 over the kept
    ones; -inf where dev leaves the kept eigenvectors' span."""
    s, u = fnp.linalg.eigh(cov)
    eps = _cutoff(s)
    keep = s > eps
    safe = fnp.where(keep, s, 1.0)
    rank = fnp.sum(keep.astype(_dtype_of(s)))
    log_pdet = fnp.sum(fnp.where(keep, fnp.log(safe), 0.0))
    whiten = u * fnp.where(keep, 1.0 / fnp.sqrt(safe), 0.0)
    maha = fnp.sum(fnp.square(dev @ whiten), axis=-1)
    out = -0.5 * (rank * _LOG_2PI + log_pdet + maha)
    residual = fnp.linalg.norm(dev @ (u * fnp.where(keep, 0.0, 1.0)), axis=-1)
    return fnp.where(residual < 1e3 * eps, out, -np.inf)
