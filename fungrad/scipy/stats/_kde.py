"""`gaussian_kde` (`scipy.stats.gaussian_kde`, as `jax.scipy.stats.gaussian_kde`): a Gaussian
kernel density estimate written with fungrad.numpy, so its densities differentiate in the
evaluation points, the dataset and the weights; a pytree (its arrays are the leaves), so it
passes through jit, vmap and grad."""
from __future__ import annotations

import math
from typing import Any, Callable, Optional, Union

import numpy as np

from ... import numpy as fnp
from ...tree import register_pytree_node as _register_pytree_node
from .. import special as fsp
from ._util import Array, ArrayLike

__all__ = ["gaussian_kde"]
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


class gaussian_kde:
    """Gaussian kernel density estimate of `dataset` ((n,) or (d, n): n points in d
    dimensions), bandwidth by `bw_method` ('scott' (default), 'silverman', a scalar factor or
    a callable of the estimator), optional `weights` (n,). Methods: `evaluate` (also
    `__call__`, `pdf`), `logpdf`, `integrate_box_1d`, `integrate_gaussian`, `integrate_kde`;
    `resample`, `set_bandwidth` and `integrate_box` are not provided (as in JAX but
    resample, which needs fg.random: draw `dataset[:, i] + L z` yourself).

    Example:
        >>> kde = fg.scipy.stats.gaussian_kde(np.array([-1.0, 0.0, 0.5, 2.0]))
        >>> kde.evaluate(np.array([0.0, 1.0]))
        array([0.26851977, 0.22354751])
        >>> fg.grad(lambda x: kde.logpdf(x)[0])(np.array([0.0]))
        array([0.03386255])
    """

    def __init__(self, dataset: ArrayLike, bw_method: Union[None, str, float, Callable] = None,
                 weights: Optional[ArrayLike] = None):
        dataset = fnp.atleast_2d(fnp.asarray(dataset))
        if dataset.dtype.kind == "c":
            raise NotImplementedError("fungrad.scipy.stats.gaussian_kde: complex data is not "
                                      "supported")
        if not np.issubdtype(dataset.dtype, np.inexact):
            dataset = dataset.astype(np.float64)
        if not dataset.size > 1:
            raise ValueError("fungrad.scipy.stats.gaussian_kde: `dataset` should have more "
                             f"than one element (got shape {dataset.shape})")
        d, n = dataset.shape
        if weights is None:
            weights = fnp.full((n,), 1.0 / n, dtype=dataset.dtype)
        else:
            weights = fnp.atleast_1d(fnp.asarray(weights)).astype(dataset.dtype)
            if weights.ndim != 1 or weights.shape[0] != n:
                raise ValueError("fungrad.scipy.stats.gaussian_kde: `weights` should be "
                                 f"one-dimensional of length n = {n} (got shape "
                                 f"{weights.shape})")
            weights = weights / fnp.sum(weights)
        self.dataset, self.weights = dataset, weights
        self.neff = 1.0 / fnp.sum(weights * weights)
        bw = "scott" if bw_method is None else bw_method
        if isinstance(bw, str) and bw == "scott":
            factor = self.neff ** (-1.0 / (d + 4))
        elif isinstance(bw, str) and bw == "silverman":
            factor = (self.neff * (d + 2) / 4.0) ** (-1.0 / (d + 4))
        elif callable(bw):
            factor = bw(self)
        elif np.ndim(bw) == 0 and not isinstance(bw, str):
            factor = bw
        else:
            raise ValueError("fungrad.scipy.stats.gaussian_kde: `bw_method` should be "
                             f"'scott', 'silverman', a scalar or a callable (got {bw!r})")
        data_cov = fnp.atleast_2d(fnp.cov(dataset, rowvar=True, bias=False, aweights=weights))
        self.covariance = data_cov * factor ** 2
        self.inv_cov = fnp.linalg.inv(data_cov) / factor ** 2

    @property
    def d(self) -> int:
        return self.dataset.shape[0]

    @property
    def n(self) -> int:
        return self.dataset.shape[1]

    def _points(self, points):
        points = fnp.atleast_2d(fnp.asarray(points))
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                points = fnp.reshape(points, (self.d, 1))
            else:
                raise ValueError(f"fungrad.scipy.stats.gaussian_kde: points have dimension {d}, "
                                 f"the dataset has dimension {self.d}")
        return points

    def logpdf(self, points: ArrayLike) -> Array:
        """Log density at `points` ((m,) in one dimension, or (d, m)): a logsumexp over the
        data points, so no underflow far from the data.

        Example:
            >>> kde = fg.scipy.stats.gaussian_kde(np.array([-1.0, 0.0, 0.5, 2.0]))
            >>> kde.logpdf(np.array([0.0, 1.0]))
            array([-1.31483074, -1.49813131])
        """
        points = self._points(points)
        diff = points[:, :, None] - self.dataset[:, None, :]            # (d, m, n)
        q = fnp.einsum("imn,ij,jmn->mn", diff, self.inv_cov, diff)
        _, logdet = fnp.linalg.slogdet(self.covariance)
        return (fsp.logsumexp(fnp.log(self.weights) - 0.5 * q, axis=1)
                - 0.5 * logdet - self.d * _HALF_LOG_2PI)

    def evaluate(self, points: ArrayLike) -> Array:
        """Density at `points` ((m,) in one dimension, or (d, m)).

        Example:
            >>> kde = fg.scipy.stats.gaussian_kde(np.array([[0.0, 1.0, 2.0], [0.0, 2.0, 1.0]]))
            >>> kde.evaluate(np.array([[1.0], [1.0]]))
            array([0.10133417])
        """
        return fnp.exp(self.logpdf(points))

    __call__ = evaluate

    def pdf(self, points: ArrayLike) -> Array:
        """Density at `points` (= evaluate).

        Example:
            >>> fg.scipy.stats.gaussian_kde(np.array([-1.0, 0.0, 0.5, 2.0])).pdf(0.0)
            array([0.26851977])
        """
        return self.evaluate(points)

    def integrate_box_1d(self, low: ArrayLike, high: ArrayLike) -> Array:
        """The estimate's mass in [low, high] (one dimension).

        Example:
            >>> kde = fg.scipy.stats.gaussian_kde(np.array([-1.0, 0.0, 0.5, 2.0]))
            >>> kde.integrate_box_1d(-np.inf, np.inf)
            array(1.)
        """
        if self.d != 1:
            raise ValueError("fungrad.scipy.stats.gaussian_kde.integrate_box_1d: the "
                             f"estimate has dimension {self.d}, not 1")
        sigma = fnp.sqrt(self.covariance[0, 0])
        lo = (low - self.dataset[0]) / sigma
        hi = (high - self.dataset[0]) / sigma
        return fnp.asarray(fnp.sum(self.weights * (fsp.ndtr(hi) - fsp.ndtr(lo))))

    def integrate_gaussian(self, mean: ArrayLike, cov: ArrayLike) -> Array:
        """The integral of the estimate times a normal density N(mean, cov).

        Example:
            >>> kde = fg.scipy.stats.gaussian_kde(np.array([-1.0, 0.0, 0.5, 2.0]))
            >>> kde.integrate_gaussian(0.0, 1.0)
            array(0.2210602)
        """
        mean = fnp.reshape(fnp.asarray(mean), (-1,))
        cov = fnp.atleast_2d(fnp.asarray(cov))
        if mean.shape != (self.d,) or cov.shape != (self.d, self.d):
            raise ValueError("fungrad.scipy.stats.gaussian_kde.integrate_gaussian: mean "
                             f"{mean.shape} and cov {cov.shape} should be ({self.d},) and "
                             f"({self.d}, {self.d})")
        return fnp.asarray(_convolve(self.covariance + cov, self.dataset, self.weights,
                                     mean[:, None])[0])

    def integrate_kde(self, other: "gaussian_kde") -> Array:
        """The integral of the product of two estimates.

        Example:
            >>> a = fg.scipy.stats.gaussian_kde(np.array([-1.0, 0.0, 0.5, 2.0]))
            >>> a.integrate_kde(a)
            array(0.19236017)
        """
        if other.d != self.d:
            raise ValueError("fungrad.scipy.stats.gaussian_kde.integrate_kde: dimensions "
                             f"{self.d} and {other.d} differ")
        per_point = _convolve(self.covariance + other.covariance, self.dataset, self.weights,
                              other.dataset)
        return fnp.asarray(fnp.sum(per_point * other.weights))

    def resample(self, key: Any, shape: tuple = ()) -> Array:
        """Not provided (fungrad.scipy does not depend on fg.random).

        Example:
            >>> fg.scipy.stats.gaussian_kde(np.array([0.0, 1.0])).resample(None)
            Traceback (most recent call last):
            NotImplementedError: ...
        """
        raise NotImplementedError("fungrad.scipy.stats.gaussian_kde.resample: draw "
                                  "kde.dataset[:, i] + cholesky(kde.covariance) @ z with "
                                  "fg.random (i by kde.weights, z standard normal)")

    def set_bandwidth(self, bw_method: Any = None) -> None:
        """Not provided (the estimate is immutable; build a new one), as in JAX.

        Example:
            >>> fg.scipy.stats.gaussian_kde(np.array([0.0, 1.0])).set_bandwidth()
            Traceback (most recent call last):
            NotImplementedError: ...
        """
        raise NotImplementedError("fungrad.scipy.stats.gaussian_kde.set_bandwidth: build a "
                                  "new gaussian_kde with the bw_method")

    def integrate_box(self, low_bounds: Any, high_bounds: Any, maxpts: Any = None) -> None:
        """Not provided, as in JAX.

        Example:
            >>> fg.scipy.stats.gaussian_kde(np.array([0.0, 1.0])).integrate_box(0.0, 1.0)
            Traceback (most recent call last):
            NotImplementedError: ...
        """
        raise NotImplementedError("fungrad.scipy.stats.gaussian_kde.integrate_box is not "
                                  "provided (integrate_box_1d is, in one dimension)")


def _convolve(cov, dataset, weights, points):
    """sum_i weights_i N(points_j; dataset_i, cov) for each column j of points: (m,)."""
    d = dataset.shape[0]
    diff = points[:, :, None] - dataset[:, None, :]                      # (d, m, n)
    q = fnp.einsum("imn,ij,jmn->mn", diff, fnp.linalg.inv(cov), diff)
    _, logdet = fnp.linalg.slogdet(cov)
    return fnp.exp(fsp.logsumexp(fnp.log(weights) - 0.5 * q, axis=1) - 0.5 * logdet
                   - d * _HALF_LOG_2PI)


def _flatten(kde):
    return (kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov), None


def _unflatten(_, children):
    kde = gaussian_kde.__new__(gaussian_kde)
    kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov = children
    return kde


_register_pytree_node(gaussian_kde, _flatten, _unflatten)
