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
           "orthogonal", "delta_orthogonal", "variance_scaling", "glorot_uniform", "glorot_normal",
           "xavier_uniform", "xavier_normal", "he_uniform", "he_normal", "kaiming_uniform",
           "kaiming_normal", "lecun_uniform", "lecun_normal"]

DTypeLike = Any
Shape = Sequence[int]
Initializer = Callable[..., Array]   # init(key, shape, dtype=np.float64) -> array
Axes = Union[int, Sequence[int]]

# the standard deviation of a standard normal truncated to [-2, 2]: dividing by it makes a
# truncated draw have the variance asked for (as JAX and TensorFlow do)
_TRUNC_STD = 0.87962566103423978
# JAX's divisor for complex truncated normals (modulus of a unit-variance complex normal
# truncated at 2): sqrt(1 - 5 exp(-4)). It is not the truncated draw's standard deviation
# (that is sqrt((1 - 5 exp(-4)) / (1 - exp(-4)))), so JAX's complex "truncated_normal" comes
# out with a standard deviation 0.93% (variance 1.9%) above the one asked; kept as JAX's,
# so weights match its distribution
_COMPLEX_TRUNC_DIVISOR = 0.95311164380491208


def _shape(shape: Shape) -> Tuple[int, ...]:
    """`shape` as a tuple; a bare int is a 1-d shape, as in JAX."""
    return (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)


def _is_complex(dtype: DTypeLike) -> bool:
    return np.dtype(dtype).kind == "c"


def _real_dtype(dtype: DTypeLike) -> np.dtype:
    """The float dtype of a complex dtype's parts (complex64 -> float32)."""
    return np.zeros((), dtype).real.dtype


def _complex_normal(key: Array, shape: Tuple[int, ...], dtype: DTypeLike) -> Array:
    """Standard complex normals (E|z|^2 = 1: real and imaginary parts N(0, 1/2)), JAX's
    convention for a complex `normal`."""
    parts = random.normal(key, (2,) + shape, _real_dtype(dtype)) * math.sqrt(0.5)
    return (parts[0] + 1j * parts[1]).astype(dtype)


def _polar(key: Array, shape: Tuple[int, ...], dtype: DTypeLike, radius) -> Array:
    """Complex draws `radius(u) * exp(i theta)` of a uniform angle theta, the modulus a
    function of a second uniform u in [0, 1)."""
    u = random.uniform(key, (2,) + shape, _real_dtype(dtype))
    r, theta = radius(u[0]), (2 * math.pi) * u[1]
    return (r * fnp.cos(theta) + 1j * (r * fnp.sin(theta))).astype(dtype)


def zeros(key: Array, shape: Shape, dtype: DTypeLike = np.float64) -> Array:
    """An initializer: zeros of `shape` (the key is unused).

    Example:
        >>> fg.nn.initializers.zeros(fg.random.key(0), (2,))
        array([0., 0.])
    """
    return np.zeros(_shape(shape), dtype)


def ones(key: Array, shape: Shape, dtype: DTypeLike = np.float64) -> Array:
    """An initializer: ones of `shape` (the key is unused).

    Example:
        >>> fg.nn.initializers.ones(fg.random.key(0), (2,))
        array([1., 1.])
    """
    return np.ones(_shape(shape), dtype)


def constant(value: Any, dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer filling `shape` with `value` (broadcast), in the dtype asked at init.

    Example:
        >>> fg.nn.initializers.constant(0.5)(fg.random.key(0), (2,))
        array([0.5, 0.5])
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        if np.iscomplexobj(value) and not _is_complex(dtype):
            # (numpy would drop the imaginary part with only a warning)
            raise TypeError(f"constant: value {value!r} is complex but the dtype {np.dtype(dtype)} "
                            f"is real; pass a complex dtype (e.g. np.complex64) or a real value")
        return np.full(_shape(shape), value, dtype)
    return init


def normal(stddev: float = 1e-2, dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer drawing from N(0, stddev**2); for a complex dtype, complex normals
    with E|w|^2 = stddev**2 (real and imaginary parts of variance stddev**2 / 2, as JAX).

    Example:
        >>> fg.nn.initializers.normal(0.1)(fg.random.key(0), (2, 3)).shape
        (2, 3)
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        shape = _shape(shape)
        z = (_complex_normal(key, shape, dtype) if _is_complex(dtype)
             else random.normal(key, shape, dtype))
        return (z * stddev).astype(dtype)
    return init


def uniform(scale: float = 1e-2, dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer drawing uniformly from [0, scale) (from (scale, 0] for a negative
    scale, as JAX's `u * scale`).

    Example:
        >>> w = fg.nn.initializers.uniform(2.0)(fg.random.key(0), (100,))
        >>> bool((w >= 0).all() and (w < 2).all())
        True
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        # drawn on [0, |scale|) (fg.random.uniform keeps the draws below the bound, which a
        # product u * scale can round onto) and mirrored for a negative scale
        u = random.uniform(key, _shape(shape), dtype, 0.0, abs(scale))
        return u if scale >= 0 else -u
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
    if _concrete_greater(lower, upper):
        raise ValueError(f"truncated_normal: lower {lower!r} is above upper {upper!r}, an empty "
                         f"interval; pass lower <= upper (the bounds are in units of stddev)")

    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        return (random.truncated_normal(key, lower, upper, _shape(shape), dtype)
                * stddev).astype(dtype)
    return init


def _concrete_greater(a: Any, b: Any) -> bool:
    """Whether concrete numbers (or arrays) a > b anywhere; False for traced values, which
    cannot be checked here."""
    try:
        return bool(np.any(np.asarray(a) > np.asarray(b)))
    except Exception:   # (a tracer: no value to check)
        return False


# ------------------------------------------------------------------------ fans
def _axes(axes: Axes, ndim: int, name: str = "axis", fn: str = "compute_fans",
          shape=()) -> Tuple[int, ...]:
    """`axes` (an int or a sequence of ints) as non-negative ints, each in range for `ndim`
    (a clear error otherwise, not a silent wrap-around)."""
    if isinstance(axes, (int, np.integer)):
        axes = (axes,)
    elif isinstance(axes, (str, bytes)) or not isinstance(axes, Sequence):
        raise TypeError(f"{fn}: {name} must be an int or a sequence of ints, got {axes!r}")
    axes = tuple(axes)
    if not all(isinstance(a, (int, np.integer)) for a in axes):
        raise TypeError(f"{fn}: {name} must be an int or a sequence of ints, got {axes!r}")
    if not all(-ndim <= a < ndim for a in axes):
        raise ValueError(f"{fn}: {name} {axes!r} is out of bounds for a weight of shape "
                         f"{tuple(shape)}; pass integer axes in [{-ndim}, {ndim})")
    return tuple(int(a) % ndim for a in axes)


def compute_fans(shape: Shape, in_axis: Axes = -2, out_axis: Axes = -1,
                 batch_axis: Axes = ()) -> Tuple[float, float]:
    """(fan_in, fan_out) of a weight of `shape`: the in / out axes' sizes times the
    receptive field (the size of the weight over the in, out and batch axes' sizes), so a
    conv kernel (H, W, C_in, C_out) has fan_in = H*W*C_in. A 0-d or 1-d weight needs its
    axes named (the default in_axis -2 does not exist there), as in JAX.

    Example:
        >>> fg.nn.initializers.compute_fans((3, 3, 16, 32))
        (144.0, 288.0)
        >>> fg.nn.initializers.compute_fans((5,), in_axis=0, out_axis=())
        (5.0, 1.0)
    """
    shape = _shape(shape)
    nd = len(shape)
    if nd < 2 and isinstance(in_axis, (int, np.integer)) and in_axis == -2:
        raise ValueError(f"fan-based initializers need a weight of at least 2 dimensions (in "
                         f"and out axes), got shape {shape}; initialize a bias with "
                         f"fg.nn.initializers.zeros or fg.nn.initializers.normal(), or name "
                         f"the weight's in_axis / out_axis")
    ins, outs, batch = (_axes(a, nd, name, shape=shape) for a, name in (
        (in_axis, "in_axis"), (out_axis, "out_axis"), (batch_axis, "batch_axis")))
    size = lambda axes: float(np.prod([shape[a] for a in axes]))  # noqa: E731
    denominator = size(ins) * size(outs) * size(batch)
    # (a 0-length in / out axis: the product of the other axes, where JAX divides 0 by 0)
    receptive = (float(np.prod(shape)) / denominator if denominator else
                 size([a for a in range(nd) if a not in ins + outs + batch]))
    return size(ins) * receptive, size(outs) * receptive


_DENOMINATOR = {"fan_in": lambda fi, fo: fi, "fan_out": lambda fi, fo: fo,
                "fan_avg": lambda fi, fo: (fi + fo) / 2,
                "fan_geo_avg": lambda fi, fo: math.sqrt(fi * fo)}


def variance_scaling(scale: float, mode: str, distribution: str, in_axis: Axes = -2,
                     out_axis: Axes = -1, batch_axis: Axes = (),
                     dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer with variance `scale / n`, n = fan_in, fan_out, their mean or their
    geometric mean (`mode` "fan_in", "fan_out", "fan_avg", "fan_geo_avg"), from
    `distribution` "truncated_normal" (within two standard deviations, rescaled to that
    variance), "normal", or "uniform" (+-sqrt(3 * variance)). Fans count the receptive
    field of conv kernels (`compute_fans`).

    A complex dtype draws as JAX does: "normal" complex normals, "uniform" uniform on a
    disk of radius sqrt(2 * variance), "truncated_normal" a complex normal of modulus cut
    at 2 (before scaling), all with E|w|^2 = variance (the truncated one 1.9% above, JAX's
    constant).

    Example:
        >>> init = fg.nn.initializers.variance_scaling(2.0, "fan_in", "normal")
        >>> w = init(fg.random.key(0), (1000, 300))
        >>> bool(abs(w.var() - 2.0 / 1000) < 2e-4)
        True
    """
    if mode not in _DENOMINATOR:
        raise ValueError(f"variance_scaling: mode must be 'fan_in', 'fan_out', 'fan_avg' or "
                         f"'fan_geo_avg', got {mode!r}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"variance_scaling: distribution must be 'truncated_normal', "
                         f"'normal' or 'uniform', got {distribution!r}")
    if _concrete_greater(0.0, scale):
        # (JAX takes the square root of the negative variance: all-NaN weights)
        raise ValueError(f"variance_scaling: scale must be >= 0 (it is a variance factor), "
                         f"got {scale!r}")

    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        shape = _shape(shape)
        fan_in, fan_out = compute_fans(shape, in_axis, out_axis, batch_axis)
        n = _DENOMINATOR[mode](fan_in, fan_out)
        # n is 0 only for an empty weight, which has no draws to scale (JAX divides by 0)
        std = math.sqrt(scale / n) if n else 0.0
        if _is_complex(dtype):
            if distribution == "truncated_normal":
                w = _polar(key, shape, dtype, lambda u: fnp.sqrt(
                    -fnp.log1p(-(1 - math.exp(-4.0)) * u))) * (std / _COMPLEX_TRUNC_DIVISOR)
            elif distribution == "normal":
                w = _complex_normal(key, shape, dtype) * std
            else:
                w = _polar(key, shape, dtype, lambda u: fnp.sqrt(2 * u)) * std
        elif distribution == "truncated_normal":
            w = random.truncated_normal(key, -2.0, 2.0, shape, dtype) * (std / _TRUNC_STD)
        elif distribution == "normal":
            w = random.normal(key, shape, dtype) * std
        else:
            bound = math.sqrt(3.0) * std
            w = random.uniform(key, shape, dtype, -bound, bound)
        return w.astype(dtype)
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
    distributed when z is a standard (real or complex) normal matrix."""
    qs = []
    for j in range(z.shape[1]):
        v = z[:, j]
        if qs:
            q = fnp.stack(qs, axis=-1)
            for _ in range(2):
                # (conj(q)^T v: the projection's coefficients; conj is a no-op for reals)
                v = v - q @ (v @ fnp.conj(q))
        qs.append(v / fnp.sqrt((v * fnp.conj(v)).real.sum()))
    return fnp.stack(qs, axis=-1)


def orthogonal(scale: float = 1.0, column_axis: int = -1,
               dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer of (scaled) uniformly random orthogonal matrices: the weight, seen as
    a matrix of `shape[column_axis]` columns, has orthonormal columns (or rows, if it is
    wider than tall) times `scale`. A complex dtype gives Haar unitary ones (Q^H Q = I).

    Example:
        >>> w = fg.nn.initializers.orthogonal()(fg.random.key(0), (5, 3))
        >>> bool(np.allclose(w.T @ w, np.eye(3)))
        True
    """
    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError(f"orthogonal: the weight needs at least 2 dimensions, got shape "
                             f"{shape}")
        (axis,) = _axes(column_axis, len(shape), "column_axis", "orthogonal", shape)
        n_cols = shape[axis]
        n_rows = int(np.prod(shape[:axis] + shape[axis + 1:]))
        if n_rows * n_cols == 0:  # (no entries: nothing to orthogonalize)
            return np.zeros(shape, dtype)
        tall = (max(n_rows, n_cols), min(n_rows, n_cols))
        if _is_complex(dtype):
            z = _complex_normal(key, tall, np.complex128 if np.dtype(dtype) == np.complex128
                                else np.complex64)
        else:
            z = random.normal(key, tall, np.float64 if np.dtype(dtype) == np.float64
                              else np.float32)
        q = _orthonormal_columns(z)
        if n_rows < n_cols:
            q = q.T
        rest = shape[:axis] + shape[axis + 1:]
        q = fnp.moveaxis(fnp.reshape(q, rest + (n_cols,)), -1, axis)
        return (q * scale).astype(dtype)
    return init


def delta_orthogonal(scale: float = 1.0, column_axis: int = -1,
                     dtype: DTypeLike = np.float64) -> Initializer:
    """An initializer of delta-orthogonal conv kernels (Xiao et al. 2018): a kernel of
    shape (*spatial, C_in, C_out), 1 to 3 spatial axes, C_in <= C_out, zero except at the
    spatial centre (index (k - 1) // 2 on each axis), which holds
    `orthogonal(scale, column_axis)` of shape (C_in, C_out).

    Example:
        >>> w = fg.nn.initializers.delta_orthogonal()(fg.random.key(0), (3, 2, 4))
        >>> bool(np.allclose(w[1] @ w[1].T, np.eye(2))), float(abs(w[0]).max())
        (True, 0.0)
    """
    ortho = orthogonal(scale, column_axis, dtype)

    def init(key: Array, shape: Shape, dtype: DTypeLike = dtype) -> Array:
        shape = _shape(shape)
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"delta_orthogonal: the kernel needs 3, 4 or 5 dimensions (1 to "
                             f"3 spatial, then in and out channels), got shape {shape}")
        if shape[-1] < shape[-2]:
            raise ValueError(f"delta_orthogonal: the kernel's in channels (shape[-2] = "
                             f"{shape[-2]}) must not exceed its out channels (shape[-1] = "
                             f"{shape[-1]}), got shape {shape}")
        if 0 in shape:   # (no centre to write to: an empty kernel)
            return np.zeros(shape, dtype)
        centre = np.zeros(shape[:-2], _real_dtype(dtype))
        centre[tuple((k - 1) // 2 for k in shape[:-2])] = 1
        # (a one-hot spatial mask times the matrix, not an in-place write: traceable)
        return (centre[..., None, None] * ortho(key, shape[-2:], dtype)).astype(dtype)
    return init
