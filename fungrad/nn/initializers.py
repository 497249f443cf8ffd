"""Parameter initializers, `fg.nn.initializers` (jax.nn.initializers' names and semantics).

An initializer is a function `init(key, shape, dtype=np.float64) -> array`; the factories
below (`glorot_uniform()`, `normal(0.1)`, ...) return one, and `zeros` / `ones` are one.
The default dtype is float64, fungrad's (and `fg.random`'s) default float, where JAX's is
float32; pass `dtype=np.float32` for float32 parameters. The draws come from `fg.random`, so
they are fixed per key (eagerly, under `jit` and under `vmap` over keys).

    >>> w = fg.nn.initializers.glorot_uniform()(fg.random.key(0), (3, 4))
    >>> w.shape, w.dtype
    ((3, 4), dtype('float64'))
"""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence, Tuple, Union

import numpy as np

from .. import numpy as fnp
from .. import random
from ._util import Array

__all__ = ["Initializer", "compute_fans", "zeros", "ones", "constant", "normal", "uniform", "truncated_normal",
           "orthogonal", "variance_scaling", "glorot_uniform", "glorot_normal",
           "xavier_uniform", "xavier_normal", "he_uniform", "he_normal", "kaiming_uniform",
           "kaiming_normal", "lecun_uniform", "lecun_normal"]

DTypeLike = Any
Shape = Sequence[int]
Initializer = Callable[..., Array]   # init(key, shape, dtype=np.float64) -> array
Axes = Union[int, Sequence[int]]

# the standard deviation of a standard normal truncated to [-2, 2]: dividing by it makes a
# truncated draw have the variance asked for (as JAX and TensorFlow do)
_TRUNC_STD = 0.87962566103423978


def zeros(key: Array, shape: Shape, dtype: DTypeLike = np.float64) -> Array:
    """An initializer: zeros of `shape` (the key is unused).

    Example:
        >>> fg.nn.initializers.zeros(fg.random.key(0), (2,))
        array([0., 0.])
    """
    return np.zeros(tuple(shape), dtype)


def ones(key: Array, shape: Shape, dtype: DTypeLike = np.float64) -> Array:
    """An initializer: ones of `shape` (the key is unused).

    Example:
        >>> fg.nn.initializers.ones(fg.random.key(0), (2,))
        array([1., 1.])
    """
    return np.ones(tuple(shape), dtype)


def constant(value: Any, dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer filling `shape` with `value` (broadcast), in the dtype asked at init.

    Example:
        >>> fg.nn.initializers.constant(0.5)(fg.random.key(0), (2,))
        array([0.5, 0.5])
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        return np.full(tuple(shape), value, dtype)
    return init


def normal(stddev: float = 1e-2, dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer drawing from N(0, stddev**2).

    Example:
        >>> fg.nn.initializers.normal(0.1)(fg.random.key(0), (2, 3)).shape
        (2, 3)
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        return (random.normal(key, shape, dtype) * stddev).astype(dtype)
    return init


def uniform(scale: float = 1e-2, dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer drawing uniformly from [0, scale).

    Example:
        >>> w = fg.nn.initializers.uniform(2.0)(fg.random.key(0), (100,))
        >>> bool((w >= 0).all() and (w < 2).all())
        True
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        return random.uniform(key, shape, dtype, 0.0, scale)
    return init


def truncated_normal(stddev: float = 1e-2, dtype: DTypeLike = np.float64,
                     lower: float = -2.0, upper: float = 2.0) -> Initializer:
    """An initializer drawing `stddev * z` for a standard normal `z` truncated to
    [lower, upper] (no variance correction: `variance_scaling` makes that one).

    Example:
        >>> w = fg.nn.initializers.truncated_normal(1.0)(fg.random.key(0), (100,))
        >>> bool((abs(w) <= 2).all())
        True
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        return (random.truncated_normal(key, lower, upper, shape, dtype) * stddev).astype(dtype)
    return init


# ------------------------------------------------------------------------ fans
def _axes(axes: Axes, ndim: int, name: str = "axis", fn: str = "compute_fans",
          shape=()) -> Tuple[int, ...]:
    """`axes` (an int or a sequence of ints) as non-negative ints, each in range for `ndim`
    (a clear error otherwise, not a silent wrap-around)."""
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    if not all(isinstance(a, (int, np.integer)) and -ndim <= a < ndim for a in axes):
        raise ValueError(f"{fn}: {name} {axes!r} is out of bounds for a weight of shape "
                         f"{tuple(shape)}; pass integer axes in [{-ndim}, {ndim})")
    return tuple(int(a) % ndim for a in axes)


def compute_fans(shape: Shape, in_axis: Axes = -2, out_axis: Axes = -1,
                 batch_axis: Axes = ()) -> Tuple[float, float]:
    """(fan_in, fan_out) of a weight of `shape`: the in / out axes' sizes times the
    receptive field (the product of every other axis but the batch axes), so a conv kernel
    (H, W, C_in, C_out) has fan_in = H*W*C_in.

    Example:
        >>> fg.nn.initializers.compute_fans((3, 3, 16, 32))
        (144.0, 288.0)
    """
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"fan-based initializers need a weight of at least 2 dimensions (in "
                         f"and out axes), got shape {shape}; initialize a bias with "
                         f"fg.nn.initializers.zeros or fg.nn.initializers.normal()")
    nd = len(shape)
    ins, outs, batch = (_axes(a, nd, name, shape=shape) for a, name in (
        (in_axis, "in_axis"), (out_axis, "out_axis"), (batch_axis, "batch_axis")))
    size = lambda axes: float(np.prod([shape[a] for a in axes]))  # noqa: E731
    denominator = size(ins) * size(outs) * size(batch)
    # (a 0-length in / out axis: the product of the other axes, where JAX divides 0 by 0)
    receptive = (float(np.prod(shape)) / denominator if denominator else
                 size([a for a in range(nd) if a not in ins + outs + batch]))
    return size(ins) * receptive, size(outs) * receptive


_DENOMINATOR = {"fan_in": lambda fi, fo: fi, "fan_out": lambda fi, fo: fo,
                "fan_avg": lambda fi, fo: (fi + fo) / 2}


def variance_scaling(scale: float, mode: str, distribution: str, in_axis: Axes = -2,
                     out_axis: Axes = -1, batch_axis: Axes = (),
                     dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer with variance `scale / n`, n = fan_in, fan_out or their mean (`mode`
    "fan_in", "fan_out", "fan_avg"), from `distribution` "truncated_normal" (within two
    standard deviations, rescaled to that variance), "normal", or "uniform"
    (+-sqrt(3 * variance)). Fans count the receptive field of conv kernels (`compute_fans`).

    Example:
        >>> init = fg.nn.initializers.variance_scaling(2.0, "fan_in", "normal")
        >>> w = init(fg.random.key(0), (1000, 300))
        >>> bool(abs(w.var() - 2.0 / 1000) < 2e-4)
        True
    """
    if mode not in _DENOMINATOR:
        raise ValueError(f"variance_scaling: mode must be 'fan_in', 'fan_out' or 'fan_avg', "
                         f"got {mode!r}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"variance_scaling: distribution must be 'truncated_normal', "
                         f"'normal' or 'uniform', got {distribution!r}")

    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        fan_in, fan_out = compute_fans(shape, in_axis, out_axis, batch_axis)
        variance = scale / max(1.0, _DENOMINATOR[mode](fan_in, fan_out))
        if distribution == "truncated_normal":
            z = random.truncated_normal(key, -2.0, 2.0, shape, dtype) * (
                math.sqrt(variance) / _TRUNC_STD)
        elif distribution == "normal":
            z = random.normal(key, shape, dtype) * math.sqrt(variance)
        else:
            bound = math.sqrt(3.0 * variance)
            z = random.uniform(key, shape, dtype, -bound, bound)
        return z.astype(dtype)
    return init


def _family(scale: float, mode: str, distribution: str, name: str, doc_example: str):
    """One named variance-scaling factory (a table row below), with its own docstring."""
    def factory(in_axis: Axes = -2, out_axis: Axes = -1, batch_axis: Axes = (),
                dtype: DTypeLike = np.float64) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis,
                                dtype)
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = (f"`variance_scaling({scale}, {mode!r}, {distribution!r})`.\n\n"
                       f"    Example:\n"
                       f"        >>> w = fg.nn.initializers.{name}()(fg.random.key(0), {doc_example})\n"
                       f"        >>> w.shape\n"
                       f"        {doc_example}\n    ")
    return factory


glorot_uniform = _family(1.0, "fan_avg", "uniform", "glorot_uniform", "(3, 4)")
glorot_normal = _family(1.0, "fan_avg", "truncated_normal", "glorot_normal", "(3, 4)")
xavier_uniform = _family(1.0, "fan_avg", "uniform", "xavier_uniform", "(3, 4)")
xavier_normal = _family(1.0, "fan_avg", "truncated_normal", "xavier_normal", "(3, 4)")
he_uniform = _family(2.0, "fan_in", "uniform", "he_uniform", "(3, 4)")
he_normal = _family(2.0, "fan_in", "truncated_normal", "he_normal", "(3, 4)")
kaiming_uniform = _family(2.0, "fan_in", "uniform", "kaiming_uniform", "(3, 4)")
kaiming_normal = _family(2.0, "fan_in", "truncated_normal", "kaiming_normal", "(3, 4)")
lecun_uniform = _family(1.0, "fan_in", "uniform", "lecun_uniform", "(3, 4)")
lecun_normal = _family(1.0, "fan_in", "truncated_normal", "lecun_normal", "(3, 4)")


# ------------------------------------------------------------------ orthogonal
def _orthonormal_columns(z: Array) -> Array:
    """Gram-Schmidt (twice per column, so orthogonal to rounding) on the columns of a tall
    (m, k) matrix, m >= k: Q of its QR with a positive diagonal of R, so Q is Haar
    distributed when z is a standard normal matrix."""
    qs = []
    for j in range(z.shape[1]):
        v = z[:, j]
        if qs:
            q = fnp.stack(qs, axis=-1)
            for _ in range(2):
                v = v - q @ (v @ q)
        qs.append(v / fnp.sqrt((v * v).sum()))
    return fnp.stack(qs, axis=-1)


def orthogonal(scale: float = 1.0, column_axis: int = -1,
               dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer of (scaled) uniformly random orthogonal matrices: the weight, seen as
    a matrix of `shape[column_axis]` columns, has orthonormal columns (or rows, if it is
    wider than tall) times `scale`.

    Example:
        >>> w = fg.nn.initializers.orthogonal()(fg.random.key(0), (5, 3))
        >>> bool(np.allclose(w.T @ w, np.eye(3)))
        True
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError(f"orthogonal: the weight needs at least 2 dimensions, got shape "
                             f"{shape}")
        (axis,) = _axes(column_axis, len(shape), "column_axis", "orthogonal", shape)
        n_cols = shape[axis]
        n_rows = int(np.prod(shape[:axis] + shape[axis + 1:]))
        if n_rows * n_cols == 0:  # (no entries: nothing to orthogonalize)
            return np.zeros(shape, dtype)
        tall = (max(n_rows, n_cols), min(n_rows, n_cols))
        cd = np.float64 if np.dtype(dtype) == np.float64 else np.float32
        q = _orthonormal_columns(random.normal(key, tall, cd))
        if n_rows < n_cols:
            q = q.T
        rest = shape[:axis] + shape[axis + 1:]
        q = fnp.moveaxis(fnp.reshape(q, rest + (n_cols,)), -1, axis)
        return (q * scale).astype(dtype)
    return init
