"""Functional, splittable random numbers (`fg.random`): explicit keys, no hidden state.

A key is a uint32 NumPy array of shape (2,): an ordinary array, so `jit` traces it (a new key
is a new value, not a new signature) and `vmap` maps over a batch of keys. The same key gives
the same values eagerly, under `jit` and under `vmap` (each key of a batch draws on its own),
on every machine: the bits come from NumPy's counter-based Philox generator keyed by the key
(`fungrad.lax.random`). Never reuse a key for two draws that should be independent: `split`
it, or `fold_in` a step number.

    >>> k = fg.random.key(0)
    >>> k1, k2 = fg.random.split(k)
    >>> x = fg.random.normal(k1, (3,))
    >>> bool(np.all(x == fg.random.normal(k1, (3,))))
    True

The samplers are fungrad.numpy code on uniform bits (so `grad` flows into location, scale and
bound parameters), except `gamma` (and `beta`, `dirichlet`, built on it), which rejection-samples
with NumPy's Generator on the key's Philox stream and has no derivative in its shape parameter.
`gamma`'s values are NumPy's algorithm: fixed for a NumPy version, not promised across them.
"""
from __future__ import annotations

import math
import operator
from typing import Any, Sequence

import numpy as np

from . import numpy as fnp
from .backend import asarray as _asarray, to_host as _to_host
from .core.dtypes import is_floating
from .core.trace import Tracer
from .lax.convolution import int_scalar
from .lax.random import random_bits, random_split_p, random_fold_in_p, random_gamma_p

__all__ = ["key", "split", "fold_in", "bits", "uniform", "normal", "bernoulli", "categorical",
           "randint", "permutation", "choice", "truncated_normal", "gumbel", "exponential",
           "gamma", "beta", "dirichlet", "multivariate_normal", "orthogonal"]

Array = Any  # a NumPy array or a traced value
Shape = Sequence[int]
_MASK32 = 0xFFFFFFFF


# ----------------------------------------------------------------------------- keys
def key(seed: int | Array) -> Array:
    """A key (uint32 array of shape (2,)) from an integer seed (taken modulo 2**64).

    Example:
        >>> fg.random.key(42)
        array([ 0, 42], dtype=uint32)
    """
    if isinstance(seed, (int, np.integer)):
        s = int(seed) % (1 << 64)
        return np.array([s >> 32, s & _MASK32], np.uint32)
    if not hasattr(seed, "dtype"):  # a Python float, bool or list: no dtype to report
        raise TypeError(f"fg.random.key: seed must be an integer scalar, got "
                        f"{type(seed).__name__} {seed!r}; pass an int")
    if fnp.ndim(seed) != 0 or np.dtype(seed.dtype).kind not in "iu":
        raise TypeError(f"fg.random.key: seed must be an integer scalar, got "
                        f"{np.dtype(seed.dtype)}{tuple(fnp.shape(seed))}; pass an int")
    seed = fnp.asarray(seed).astype(np.uint64)  # a traced seed: the same bits, by fnp
    return fnp.stack([fnp.right_shift(seed, 32).astype(np.uint32), seed.astype(np.uint32)])


def _check_key(k: Array, fn: str) -> Array:
    if not isinstance(k, Tracer):
        k = _asarray(k)  # (a key on the GPU stays there)
    shape, dtype = tuple(fnp.shape(k)), np.dtype(k.dtype)
    if shape != (2,) or dtype != np.uint32:
        raise TypeError(f"fg.random.{fn}: key must be a uint32 array of shape (2,) from "
                        f"fg.random.key or fg.random.split, got {dtype}{shape}; for a batch of "
                        f"keys, map over them with fg.vmap(lambda k: fg.random.{fn}(k, ...))(keys)")
    return k


def split(key: Array, num: int | tuple[int, ...] = 2) -> Array:
    """`num` new independent keys, shape (num, 2), from `key`; a tuple `num` gives keys of
    shape num + (2,) (as `jax.random.split`).

    Example:
        >>> k1, k2 = fg.random.split(fg.random.key(0))
        >>> bool(np.all(k1 == k2))
        False
        >>> fg.random.split(fg.random.key(0), (2, 3)).shape
        (2, 3, 2)
    """
    shape = _shape(num, "split", "num")
    keys = random_split_p.bind(_check_key(key, "split"), num=math.prod(shape))
    return keys if isinstance(num, (int, np.integer)) else fnp.reshape(keys, shape + (2,))


def fold_in(key: Array, data: int | Array) -> Array:
    """A new key from `key` and an integer `data` (a step number, a rank): different `data`
    give independent keys. `data` may be traced (vmap over steps, jit with a traced step).

    Example:
        >>> k = fg.random.key(0)
        >>> bool(np.all(fg.random.fold_in(k, 1) == fg.random.fold_in(k, 2)))
        False
    """
    if not isinstance(data, Tracer):
        data = np.asarray(data)
    if np.dtype(data.dtype).kind not in "iu" or fnp.ndim(data) != 0:
        raise TypeError(f"fg.random.fold_in: data must be an integer scalar, got "
                        f"{np.dtype(data.dtype)}{tuple(fnp.shape(data))}")
    if not isinstance(data, Tracer) and not 0 <= int(data) <= _MASK32:
        raise ValueError(f"fg.random.fold_in: data must be in [0, 2**32), got {int(data)}: "
                         "a wider value would be cut to its low 32 bits; fold in its parts "
                         "one after the other (fold_in(fold_in(k, hi), lo))")
    return random_fold_in_p.bind(_check_key(key, "fold_in"), data)


def bits(key: Array, shape: Shape = (), width: int = 32) -> Array:
    """Uniformly random unsigned integers (uint32, or uint64 for `width=64`).

    Example:
        >>> fg.random.bits(fg.random.key(0), (2,)).dtype
        dtype('uint32')
    """
    if width not in (32, 64):
        raise ValueError(f"fg.random.bits: width must be 32 or 64, got {width!r}")
    return random_bits(_check_key(key, "bits"), _shape(shape, "bits"), width)


# ----------------------------------------------------------------------------- helpers
def _shape(shape, fn: str = "sampler", name: str = "shape") -> tuple:
    # operator.index, not int: int(2.5) would silently draw 2 entries (jax.random raises)
    dims = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    try:
        out = tuple(operator.index(d) for d in dims)
    except TypeError:
        out = None
    if out is None or any(d < 0 for d in out):
        raise (TypeError if out is None else ValueError)(
            f"fg.random.{fn}: {name} must be a tuple of non-negative integers, got {shape!r}")
    return out


def _check_fits(shape: tuple, fn: str, **params) -> None:
    """A parameter broadcasts to the output `shape`, never widens it (widening would repeat
    the same draws along the new axes), as jax.random requires."""
    for name, value in params.items():
        pshape = tuple(fnp.shape(value))
        try:
            fits = np.broadcast_shapes(pshape, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"fg.random.{fn}: {name} of shape {pshape} does not broadcast to "
                             f"shape {shape}; pass a shape that {name} broadcasts to (one draw "
                             f"per entry)")


def _axis(axis, ndim: int, fn: str, name: str = "axis", of: str = "x") -> int:
    """`axis` as a non-negative int below `ndim` (a clear error otherwise: a bare IndexError
    from a shape lookup names nothing)."""
    try:
        ax = operator.index(axis)
    except TypeError:
        raise TypeError(f"fg.random.{fn}: {name} must be an integer, got {axis!r}") from None
    if not -ndim <= ax < ndim:
        fix = (f"pass an axis in [{-ndim}, {ndim})" if ndim else
               f"pass a {of} with at least 1 dimension")
        raise np.exceptions.AxisError(f"fg.random.{fn}: {name} {ax} is out of bounds for {of} "
                                      f"with {ndim} dimensions; {fix}")
    return ax % ndim


def _float_dtype(dtype, fn: str) -> np.dtype:
    dt = np.dtype(dtype)
    if not is_floating(dt):
        raise TypeError(f"fg.random.{fn}: dtype must be a float dtype (float64, float32, "
                        f"float16, bfloat16), got {dt}")
    return dt


def _mantissa_bits(dt: np.dtype) -> int:
    """Stored mantissa bits of a float dtype (ml_dtypes' floats have their own finfo)."""
    try:
        return int(np.finfo(dt).nmant)
    except (ValueError, TypeError):
        import ml_dtypes  # only reached for an ml_dtypes float, so it is installed
        return int(ml_dtypes.finfo(dt).nmant)


def _compute_dtype(dt: np.dtype) -> np.dtype:
    """float64 computes in float64; narrower floats in float32, rounded once at the end."""
    return np.dtype(np.float64) if dt == np.float64 else np.dtype(np.float32)


def _unit(key, shape, dt, open_=False):
    """Uniform floats of `dt`'s precision, in [0, 1) (or (0, 1) with `open_`), as the compute
    dtype: k * 2**-p of p random bits (p = mantissa + 1), or (k + 1/2) * 2**-p of p = mantissa
    bits; either is exact in `dt`, so rounding to `dt` never reaches 0 or 1."""
    p = _mantissa_bits(dt) + (0 if open_ else 1)
    width = 64 if p > 24 else 32
    k = fnp.right_shift(random_bits(key, shape, width), width - p)
    u = k.astype(_compute_dtype(dt))
    return (u + 0.5) * 2.0 ** -p if open_ else u * 2.0 ** -p


def _unit_compute(key, shape, dt, open_=False):
    """Uniform floats for a sampler that transforms them (log, cos): the compute dtype's
    precision, not `dt`'s. With float16 / bfloat16 bits, -log(U) stopped
    at 7.6 / 5.5 and Box-Muller at 3.9 / 3.3 (tails of mass 1e-4 to 4e-3 missing), and
    Gumbel-max over bfloat16 logits tied often enough to favour low indices; the result is
    rounded to `dt` once at the end."""
    return _unit(key, shape, _compute_dtype(dt), open_)


def _cast(x, dt):
    return x if x.dtype == dt else x.astype(dt)


# ----------------------------------------------------------------------------- samplers
def uniform(key: Array, shape: Shape = (), dtype=np.float64, minval: Any = 0.0,
            maxval: Any = 1.0) -> Array:
    """Uniform floats in [minval, maxval) (differentiable in minval and maxval); minval
    where maxval <= minval (as jax.random).

    Example:
        >>> x = fg.random.uniform(fg.random.key(0), (1000,), np.float32)
        >>> x.dtype, bool((0 <= x).all() and (x < 1).all())
        (dtype('float32'), True)
    """
    dt = _float_dtype(dtype, "uniform")
    shape = _shape(shape, "uniform")
    _check_fits(shape, "uniform", minval=minval, maxval=maxval)
    u = _unit(_check_key(key, "uniform"), shape, dt)
    if (isinstance(minval, float) and isinstance(maxval, float)
            and (minval, maxval) == (0.0, 1.0)):
        return _cast(u, dt)  # exact: u < 1 in dt
    out = _cast(minval + (maxval - minval) * u, dt)
    # minval + span * u can round up to maxval (in the compute dtype or when rounded to dt:
    # float16 [1, 2) gave 2.0 once in ~2000 draws, float32 [1e7, 1e7 + 1) half the time):
    # keep it below maxval; an empty range (minval >= maxval) gives minval, as jax.random
    lo, hi = _cast(fnp.asarray(minval), dt), _cast(fnp.asarray(maxval), dt)
    out = fnp.where(out < hi, out, fnp.nextafter(hi, np.asarray(-np.inf, dt)))  # (a float
    # -inf would promote a bfloat16 hi, and the step below it would round back up)
    return fnp.where(out < lo, lo, out)


def normal(key: Array, shape: Shape = (), dtype=np.float64) -> Array:
    """Standard normal floats (Box-Muller on uniform bits).

    Example:
        >>> fg.random.normal(fg.random.key(0), (2, 3), np.float32).shape
        (2, 3)
    """
    dt = _float_dtype(dtype, "normal")
    return _cast(_std_normal(_check_key(key, "normal"), _shape(shape, "normal"), dt), dt)


def _std_normal(key, shape, dt):
    u = _unit_compute(key, (2,) + shape, dt, open_=True)
    return fnp.sqrt(-2.0 * fnp.log(u[0])) * fnp.cos((2 * math.pi) * u[1])


def bernoulli(key: Array, p: Any = 0.5, shape: Shape | None = None) -> Array:
    """Booleans, True with probability `p` (broadcast to `shape`, default `p`'s shape).

    Example:
        >>> fg.random.bernoulli(fg.random.key(0), 0.3, (4,)).dtype
        dtype('bool')
    """
    shape = tuple(fnp.shape(p)) if shape is None else _shape(shape, "bernoulli")
    _check_fits(shape, "bernoulli", p=p)
    # 53-bit uniforms whatever p's dtype: u < p with u of p's precision is True with
    # probability >= 2**-(mantissa + 1) for any p > 0 (a float16 p = 1e-5 came out 5e-4)
    return _unit(_check_key(key, "bernoulli"), shape, np.dtype(np.float64)) < p


def gumbel(key: Array, shape: Shape = (), dtype=np.float64) -> Array:
    """Standard Gumbel floats, -log(-log(U)).

    Example:
        >>> fg.random.gumbel(fg.random.key(0), (3,)).shape
        (3,)
    """
    dt = _float_dtype(dtype, "gumbel")
    u = _unit_compute(_check_key(key, "gumbel"), _shape(shape, "gumbel"), dt, open_=True)
    return _cast(-fnp.log(-fnp.log(u)), dt)


def exponential(key: Array, shape: Shape = (), dtype=np.float64) -> Array:
    """Standard exponential floats (rate 1), -log(U).

    Example:
        >>> bool((fg.random.exponential(fg.random.key(0), (5,)) > 0).all())
        True
    """
    dt = _float_dtype(dtype, "exponential")
    u = _unit_compute(_check_key(key, "exponential"), _shape(shape, "exponential"), dt,
                      open_=True)
    return _cast(-fnp.log(u), dt)


def categorical(key: Array, logits: Array, axis: int = -1, shape: Shape | None = None) -> Array:
    """Indices drawn with probabilities softmax(logits) along `axis` (Gumbel-max), int64.
    `shape` (default: logits' shape without `axis`) must end in those batch dims.

    Example:
        >>> fg.random.categorical(fg.random.key(0), np.log([0.2, 0.8]), shape=(3,)).shape
        (3,)
    """
    logits = fnp.asarray(logits)
    axis = _axis(axis, fnp.ndim(logits), "categorical", of="logits")
    logits = fnp.moveaxis(logits, axis, -1)
    lshape = tuple(fnp.shape(logits))
    shape = lshape[:-1] if shape is None else _shape(shape, "categorical")
    if shape[len(shape) - len(lshape) + 1:] != lshape[:-1] or len(shape) < len(lshape) - 1:
        raise ValueError(f"fg.random.categorical: shape {shape} must end with the batch "
                         f"shape {lshape[:-1]} of logits {lshape} (its shape without axis "
                         f"{axis}); pass shape=(..., *{lshape[:-1]})")
    dt = np.dtype(logits.dtype) if is_floating(logits.dtype) else np.dtype(np.float64)
    # noise and sum in the compute dtype: float16 / bfloat16 Gumbels (and logits + g rounded
    # to them) tie often, and argmax gives ties to the lowest index
    cd = _compute_dtype(dt)
    g = gumbel(key, shape + lshape[-1:], cd)
    # shifted so the largest logit is 0 (softmax is unchanged): with large logits the
    # Gumbel noise fell below their spacing (float32 [1e8, 1e8] drew index 0 98% of the
    # time); an infinite max (all -inf, or a +inf) is left as it was
    logits = _cast(logits, cd)
    top = fnp.max(logits, axis=-1, keepdims=True)
    logits = logits - fnp.where(fnp.isfinite(top), top, 0.0).astype(cd)
    return fnp.argmax(logits + g, axis=-1)


def _int_bound(value, dt: np.dtype):
    """An integer bound clamped into `dt`'s range and cast to it, and whether it lay above
    that range (jax.random's rule: a maxval past the dtype's max makes the max reachable)."""
    info = np.iinfo(dt)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        v = int(value)
        return np.asarray(min(max(v, info.min), info.max)).astype(dt), v > info.max
    value = fnp.asarray(value)
    if np.dtype(value.dtype).kind not in "iub":
        raise TypeError(f"fg.random.randint: minval and maxval must be integers, got "
                        f"{np.dtype(value.dtype)}; round them first (fnp.floor(x).astype(int))")
    own = np.iinfo(value.dtype) if np.dtype(value.dtype).kind != "b" else np.iinfo(np.uint8)
    lo, hi = max(info.min, own.min), min(info.max, own.max)
    above = value > info.max if own.max > info.max else False
    if lo > own.min or hi < own.max:
        value = fnp.clip(value, lo, hi)
    return value.astype(dt), above


def _mul_high_128(x_hi, x_lo, s):
    """floor((x_hi * 2**64 + x_lo) * s / 2**128) for uint64 arrays: a uniform 128-bit X
    scaled into [0, s), by 32-bit limbs (each limb product fits in uint64)."""
    m, w = np.uint64(_MASK32), np.uint64(32)
    x = [fnp.bitwise_and(x_lo, m), fnp.right_shift(x_lo, w),
         fnp.bitwise_and(x_hi, m), fnp.right_shift(x_hi, w)]
    s_ = [fnp.bitwise_and(s, m), fnp.right_shift(s, w)]
    cols = [[] for _ in range(6)]  # 32-bit pieces of the product, by limb position
    for i in range(4):
        for j in range(2):
            p = x[i] * s_[j]
            cols[i + j].append(fnp.bitwise_and(p, m))
            cols[i + j + 1].append(fnp.right_shift(p, w))
    carry, limbs = np.uint64(0), []
    for col in cols:  # at most 4 pieces plus a carry per column: no uint64 overflow
        acc = carry
        for piece in col:
            acc = acc + piece
        limbs.append(fnp.bitwise_and(acc, m))
        carry = fnp.right_shift(acc, w)
    return fnp.bitwise_or(fnp.left_shift(limbs[5], w), limbs[4])


def randint(key: Array, shape: Shape, minval: Any, maxval: Any, dtype=np.int64) -> Array:
    """Integers uniform in [minval, maxval) (64 random bits modulo the range for ranges up
    to 2**32, a 128-bit scaling for wider ones: the bias is below 2**-32). As in jax.random:
    bounds are clamped into `dtype`'s range (a maxval above its max makes the max itself a
    possible value), and where maxval <= minval the result is minval.

    Example:
        >>> x = fg.random.randint(fg.random.key(0), (100,), 0, 10)
        >>> bool((0 <= x).all() and (x < 10).all())
        True
    """
    dt = np.dtype(dtype)
    if dt.kind not in "iu":
        raise TypeError(f"fg.random.randint: dtype must be an integer dtype, got {dt}")
    shape = _shape(shape, "randint")
    _check_fits(shape, "randint", minval=minval, maxval=maxval)
    lo, _ = _int_bound(minval, dt)
    hi, above = _int_bound(maxval, dt)
    # in uint64, modulo 2**64: hi - lo is the span even across the sign; 0 means 2**64
    lo64 = lo.astype(np.uint64)
    span = hi.astype(np.uint64) - lo64 + fnp.asarray(above).astype(np.uint64)
    key = _check_key(key, "randint")
    bits64 = random_bits(key, shape, 64)
    full = span == 0
    r = fnp.where(full, bits64, fnp.remainder(bits64, fnp.where(full, np.uint64(1), span)))
    # 64 bits modulo a span near 2**64 are far from uniform (a span of 1.5 * 2**63 made its
    # lowest third twice as likely): spans above 2**32 take 128 bits instead (their bias
    # is below 2**-64). Smaller spans keep the draws they had (bias below 2**-32).
    wide = fnp.logical_and(span > np.uint64(_MASK32 + 1), fnp.logical_not(full))
    if isinstance(wide, Tracer) or np.any(_to_host(wide)):
        low_bits = random_bits(random_split_p.bind(key, num=1)[0], shape, 64)
        r = fnp.where(wide, _mul_high_128(bits64, low_bits, span), r)
    out = (lo64 + r).astype(dt)
    return fnp.where(fnp.logical_and(hi <= lo, fnp.logical_not(above)), lo, out)


def permutation(key: Array, x: int | Array, axis: int = 0, independent: bool = False) -> Array:
    """A random permutation of `range(x)` (int64), or of `x`'s entries along `axis`; with
    `independent=True` each slice along `axis` is permuted on its own (as JAX).

    Example:
        >>> sorted(fg.random.permutation(fg.random.key(0), 4).tolist())
        [0, 1, 2, 3]
        >>> fg.random.permutation(fg.random.key(0), np.eye(3), axis=1, independent=True).sum(1)
        array([1., 1., 1.])
    """
    as_range = _is_count(x, "permutation", "x")
    key = _check_key(key, "permutation")
    if not as_range:
        axis = _axis(axis, fnp.ndim(x), "permutation")
    if independent and not as_range:
        shape = tuple(fnp.shape(x))
        # a permutation per slice: argsort of 64 random bits per entry along `axis`
        order = fnp.argsort(random_bits(key, shape, 64), axis=axis, kind="stable")
        return fnp.take_along_axis(x, order, axis=axis)
    n = int(x) if as_range else int(fnp.shape(x)[axis])
    idx = _perm(key, max(n, 0))
    return idx if as_range else fnp.take(x, idx, axis=axis)


def _is_count(a, fn: str, name: str) -> bool:
    """Whether `a` stands for range(a): an int or a 0-d integer array (concrete)."""
    if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)):
        return True
    if not (hasattr(a, "dtype") or isinstance(a, (list, tuple))):  # a float, None, a str
        raise TypeError(f"fg.random.{fn}: {name} must be an integer (meaning range({name})) "
                        f"or an array, got {type(a).__name__} {a!r}")
    if fnp.ndim(a) != 0:
        return False
    if isinstance(a, Tracer) or np.dtype(a.dtype).kind not in "iu":
        traced = " (traced)" if isinstance(a, Tracer) else ""
        raise TypeError(f"fg.random.{fn}: a 0-d {name} means range({name}) and must be a "
                        f"concrete integer, got {np.dtype(a.dtype)}{traced}")
    return True


def _check_probabilities(p, without_replacement: int) -> None:
    """A concrete `p` of choice: non-negative, finite, not all 0, and (without replacement)
    with at least as many non-zero entries as draws; otherwise the draws would silently
    come from a distribution that is not p's (jax.random does not check)."""
    ph = np.asarray(_to_host(p), dtype=np.float64)
    if not np.all(np.isfinite(ph)) or np.any(ph < 0) or not ph.sum() > 0:
        raise ValueError(f"fg.random.choice: p must be non-negative and finite with a positive "
                         f"sum (it is normalized by its sum), got {ph!r}")
    if without_replacement > np.count_nonzero(ph):
        raise ValueError(f"fg.random.choice: cannot take {without_replacement} samples without "
                         f"replacement when only {np.count_nonzero(ph)} entries of p are "
                         f"non-zero; pass replace=True or a smaller shape")


def _perm(key, n):
    # sorting 64 random bits: uniform unless two of them tie (probability < n**2 / 2**65)
    return fnp.argsort(random_bits(key, (n,), 64), kind="stable")


def choice(key: Array, a: int | Array, shape: Shape = (), replace: bool = True,
           p: Array | None = None, axis: int = 0) -> Array:
    """Entries of `a` along `axis` (or integers in range(a)) picked at random, with
    probabilities `p` (default uniform), with or without replacement.

    Example:
        >>> fg.random.choice(fg.random.key(0), 5, (3,), replace=False).shape
        (3,)
    """
    key = _check_key(key, "choice")
    shape = _shape(shape, "choice")
    as_range = _is_count(a, "choice", "a")
    if not as_range:
        axis = _axis(axis, fnp.ndim(a), "choice", of="a")
    n = int(a) if as_range else int(fnp.shape(a)[axis])
    size = math.prod(shape)
    if n <= 0 and size:
        raise ValueError(f"fg.random.choice: cannot choose from {n} entries "
                         f"({'a' if as_range else f'axis {axis} of a'} is empty)")
    if p is not None and tuple(fnp.shape(p)) != (n,):
        raise ValueError(f"fg.random.choice: p must have shape ({n},) (one probability per "
                         f"entry of a), got {tuple(fnp.shape(p))}")
    if not replace and size > n:
        raise ValueError(f"fg.random.choice: cannot take {size} samples of {n} entries "
                         "without replacement; pass replace=True or a smaller shape")
    if p is not None and not isinstance(p, Tracer):  # (a traced p cannot be checked)
        _check_probabilities(p, size if not replace else 0)
    if replace and p is None:
        idx = randint(key, shape, 0, n)
    elif replace:  # inverse CDF
        # summed in float64: a float16 cumsum of 4096 equal p stalls at 0.5 (each step
        # rounds away), so the upper half was never drawn (float32 stalls past 2**24 terms)
        cdf = fnp.cumsum(fnp.asarray(p).astype(np.float64))
        u = _unit(key, shape, _compute_dtype(np.dtype(np.float64))) * cdf[-1]
        idx = fnp.minimum(fnp.searchsorted(cdf, u, side="right"), n - 1)
    elif p is None:
        idx = _perm(key, n)[:size].reshape(shape)
    else:  # Gumbel top-k: the order of log(p) + Gumbel is a draw without replacement
        with np.errstate(divide="ignore"):
            scores = fnp.log(p) + gumbel(key, (n,))
        idx = fnp.argsort(-scores, kind="stable")[:size].reshape(shape)
    return idx if as_range else fnp.take(a, idx, axis=axis)


# Normal CDF and its inverse from elementary functions (NumPy has no erf): the complementary
# error function of Numerical Recipes (relative error < 1.2e-7 everywhere) and Acklam's
# rational approximation of the quantile (relative error < 1.2e-9).
_ERFC = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
         -1.13520398, 1.48851587, -0.82215223, 0.17087277)
_Q_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
        1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_Q_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
        6.680131188771972e+01, -1.328068155288572e+01, 1.0)
_Q_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
        -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_Q_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
        3.754408661907416e+00, 1.0)
_P_LOW = 0.02425


def _poly(coeffs, x):
    """coeffs[0] * x**(n-1) + ... + coeffs[-1] (Horner)."""
    acc = coeffs[0]
    for c in coeffs[1:]:
        acc = acc * x + c
    return acc


def _log_ndtr(x):
    """log of the normal CDF from Numerical Recipes' erfc, kept in log space: its left tail
    0.5 * t * exp(-z^2 + poly(t)) has an exact log, so bounds far in the tail (where the CDF
    underflows: x < -38) still give distinct values. The clip keeps an infinite bound's
    slope 0 (not inf * 0) and its log-CDF finite; |x| is a select, not fnp.abs (abs has
    slope 0 at 0, which would drop the CDF's slope there)."""
    x = fnp.clip(x, -1e150, 40.0)
    z = fnp.where(x < 0, -x, x) * (1 / math.sqrt(2))
    t = 1.0 / (1.0 + 0.5 * z)
    # log(0.5 * erfc(z)), less NR's log erfc(0) = 3e-8: without it the CDF jumped down by
    # 3e-8 at 0 (0.5 * erfc from the left, 1 - 0.5 * erfc from the right), and (-5e-7, 5e-7)
    # drew from a wrong density
    log_tail = fnp.log(0.5 * t) - z * z + (_poly(_ERFC[::-1], t) - sum(_ERFC))
    return fnp.where(x < 0, log_tail, fnp.log1p(-fnp.exp(log_tail)))


def _ndtri_log(logp):
    """The normal quantile of p = exp(logp): Acklam's approximation as a starting point
    (its lower tail reads log(p) directly, so a p below float64's range still works), then
    two Newton steps on log(CDF) - logp. The steps make x the inverse of _log_ndtr itself:
    Acklam inverts the exact CDF, NR's erfc differs from it by 1e-7 relatively, and with
    only Acklam a sample of a narrow interval (lower=2, upper=2 + 1e-6) landed outside it
    and was clipped onto a bound (4% of the draws; 15% for (-5e-7, 5e-7) ended in a band
    where the density is not)."""
    p = fnp.exp(logp)
    low = fnp.minimum(logp, math.log(_P_LOW))                 # each branch on arguments
    high = fnp.clip(-fnp.expm1(logp), 1e-300, _P_LOW)       # valid for it, so the unused
    q = fnp.clip(p, _P_LOW, 1 - _P_LOW) - 0.5               # branches stay finite
    r = q * q
    central = _poly(_Q_A, r) * q / _poly(_Q_B, r)
    ql, qh = fnp.sqrt(-2.0 * low), fnp.sqrt(-2.0 * fnp.log(high))
    lower, upper = _poly(_Q_C, ql) / _poly(_Q_D, ql), -_poly(_Q_C, qh) / _poly(_Q_D, qh)
    x = fnp.where(p < _P_LOW, lower, fnp.where(p > 1 - _P_LOW, upper, central))
    for _ in range(2):  # (one step leaves Acklam's error far in the tail, x = -1e4, at 1e-4)
        lx = _log_ndtr(x)
        # d log(CDF) / dx = pdf / CDF; 0 where it underflows (x > 38: left unrefined)
        slope = fnp.exp(-0.5 * x * x - math.log(math.sqrt(2 * math.pi)) - lx)
        ok = slope > 1e-300
        x = x - fnp.where(ok, (lx - logp) / fnp.where(ok, slope, 1.0), 0.0)
    return x


def truncated_normal(key: Array, lower: Any, upper: Any, shape: Shape | None = None,
                     dtype=np.float64) -> Array:
    """Standard normal floats conditioned on [lower, upper] (inverse CDF in log space,
    computed in float64 whatever `dtype`, so bounds far in a tail still sample;
    differentiable in the bounds). `shape` defaults to the bounds' broadcast shape.

    Example:
        >>> x = fg.random.truncated_normal(fg.random.key(0), -1.0, 2.0, (100,))
        >>> bool((-1 <= x).all() and (x <= 2).all())
        True
    """
    dt = _float_dtype(dtype, "truncated_normal")
    if shape is None:
        shape = np.broadcast_shapes(tuple(fnp.shape(lower)), tuple(fnp.shape(upper)))
    shape = _shape(shape, "truncated_normal")
    _check_fits(shape, "truncated_normal", lower=lower, upper=upper)
    cd = np.dtype(np.float64)  # float32's CDF underflows (0 / 0) past |x| ~ 14
    u = _unit(_check_key(key, "truncated_normal"), shape, cd, open_=True)
    lower, upper = fnp.asarray(lower).astype(cd), fnp.asarray(upper).astype(cd)
    # sample the mirror image when the interval lies right of 0: the CDF keeps its precision
    # in the left tail only
    flip = lower > 0
    a, b = fnp.where(flip, -upper, lower), fnp.where(flip, -lower, upper)
    la, lb = _log_ndtr(a), _log_ndtr(b)
    # log(pa + u (pb - pa)), without forming pa or pb (both 0 for a, b < -38: all draws
    # were b, for (-50, -45) say) and without cancelling for a narrow interval
    logp = lb + fnp.log1p((1 - u) * fnp.expm1(fnp.minimum(la - lb, 0.0)))
    x = fnp.clip(_ndtri_log(logp), a, b)
    # an empty interval has no distribution: NaN, not a value at one of its bounds
    return _cast(fnp.where(lower > upper, np.nan, fnp.where(flip, -x, x)), dt)


def gamma(key: Array, a: Any, shape: Shape | None = None, dtype=np.float64) -> Array:
    """Gamma(a, 1) floats (`shape` defaults to a's shape). No derivative in `a`.

    Example:
        >>> fg.random.gamma(fg.random.key(0), 2.0, (3,)).shape
        (3,)
    """
    dt = _float_dtype(dtype, "gamma")
    shape = tuple(fnp.shape(a)) if shape is None else _shape(shape, "gamma")
    _check_fits(shape, "gamma", a=a)
    a = fnp.broadcast_to(fnp.asarray(a).astype(dt), shape)
    return random_gamma_p.bind(_check_key(key, "gamma"), a)


def _log_gamma(key, a, shape, dtype):
    """log of Gamma(a, 1) draws without underflow at small `a` (where the draw itself rounds
    to 0): for a < 1, log Gamma(a + 1) + log(U) / a (Marsaglia and Tsang's boost)."""
    _float_dtype(dtype, "gamma")
    # in float64 whatever `dtype` (the caller rounds once): log(U) / a overflowed float32 to
    # -inf for a below ~1e-37 (float16 for a below ~1e-4), and -inf - logaddexp(-inf, -inf)
    # made beta and dirichlet NaN
    dt = np.dtype(np.float64)
    a = fnp.broadcast_to(fnp.asarray(a).astype(dt), shape)
    kg, ku = split(key)
    small = a < 1
    g = random_gamma_p.bind(kg, fnp.where(small, a + 1, a))
    u = _unit(ku, shape, dt, open_=True)
    out = fnp.log(g) + fnp.where(small, fnp.log(u) / fnp.where(small, a, 1), 0)
    return fnp.where(a < 0, np.nan, out)  # (a + 1 would hide a negative a: NaN, as gamma)


def beta(key: Array, a: Any, b: Any, shape: Shape | None = None, dtype=np.float64) -> Array:
    """Beta(a, b) floats, Ga / (Ga + Gb) of two independent gamma draws (from their logs, so
    small a and b give no 0 / 0).

    Example:
        >>> bool((fg.random.beta(fg.random.key(0), 2.0, 3.0, (5,)) < 1).all())
        True
    """
    if shape is None:
        shape = np.broadcast_shapes(tuple(fnp.shape(a)), tuple(fnp.shape(b)))
    shape = _shape(shape, "beta")
    _check_fits(shape, "beta", a=a, b=b)
    ka, kb = split(_check_key(key, "beta"))
    la, lb = _log_gamma(ka, a, shape, dtype), _log_gamma(kb, b, shape, dtype)
    # (_log_gamma computes in float64: round once, to dtype)
    return _cast(fnp.exp(la - fnp.logaddexp(la, lb)), np.dtype(dtype))


def dirichlet(key: Array, alpha: Array, shape: Shape | None = None, dtype=np.float64) -> Array:
    """Dirichlet(alpha) vectors along the last axis (`shape` is the batch shape, default
    alpha's without its last axis): normalized gamma draws, from their logs (small alphas
    give no 0 / 0).

    Example:
        >>> fg.random.dirichlet(fg.random.key(0), np.ones(3), (2,)).sum(-1).round(12)
        array([1., 1.])
    """
    ashape = tuple(fnp.shape(alpha))
    if not ashape:
        raise ValueError("fg.random.dirichlet: alpha must have at least 1 dimension (the "
                         "concentrations along its last axis), got a 0-d alpha; pass a vector, "
                         "e.g. alpha * np.ones(k)")
    shape = ashape[:-1] if shape is None else _shape(shape, "dirichlet")
    _check_fits(shape, "dirichlet", **{"alpha's batch shape": np.empty(ashape[:-1], bool)})
    lg = _log_gamma(_check_key(key, "dirichlet"), alpha, shape + ashape[-1:], dtype)
    e = fnp.exp(lg - fnp.max(lg, axis=-1, keepdims=True))
    return _cast(e / fnp.sum(e, axis=-1, keepdims=True), np.dtype(dtype))


def _cholesky(a):
    """Lower Cholesky factor of the SPD matrices `a` (..., n, n), one column at a time in
    fnp (so it differentiates, jits and vmaps; n is small for sampling); all NaN for a
    matrix that is not positive definite (a pivot <= 0), as jax.random's."""
    n = fnp.shape(a)[-1]
    rows = np.arange(n)
    cols = []
    definite = True
    for j in range(n):
        s = a[..., :, j]
        for c in cols:
            s = s - c * c[..., j:j + 1]
        pivot = s[..., j:j + 1]
        definite = fnp.logical_and(definite, pivot > 0)
        col = s / fnp.sqrt(fnp.where(pivot > 0, pivot, 1.0))
        cols.append(fnp.where(rows >= j, col, 0.0))
    return fnp.where(definite[..., None], fnp.stack(cols, axis=-1), np.nan)


def _sqrt_factor(cov, method: str):
    """A matrix F with F F^T = cov: lower Cholesky, or V sqrt(w) from eigh / U sqrt(s) from
    the SVD (these two also take singular, positive semi-definite covariances; eigenvalues
    a rounding error below 0 count as 0). All NaN for a cov that is not positive (semi-)
    definite."""
    n = fnp.shape(cov)[-1]
    if n == 0:  # (nothing to factor; the checks below would reduce over empty axes)
        return cov
    if method == "cholesky":
        return _cholesky(cov)
    tol = n * math.sqrt(np.finfo(np.dtype(cov.dtype)).eps)  # relative to cov's largest
    if method == "eigh":
        w, v = fnp.linalg.eigh(cov)
        factor = v * fnp.sqrt(fnp.maximum(w, 0))[..., None, :]
        # a clearly negative eigenvalue (cov not positive semi-definite) is NaN, as cholesky
        # and jax.random's eigh: clamping it to 0 drew silently from another covariance
        scale = fnp.max(fnp.abs(w), axis=-1)
        bad = fnp.min(w, axis=-1) < -tol * scale
    else:
        u, sv, _ = fnp.linalg.svd(cov)
        factor = u * fnp.sqrt(sv)[..., None, :]
        # the SVD of a symmetric cov has |eigenvalues|: for an indefinite one F F^T is |cov|,
        # not cov (diag(1, -1) drew with covariance I). NaN where F F^T misses cov
        recon = (factor[..., :, None, :] * factor[..., None, :, :]).sum(axis=-1)
        scale = fnp.max(fnp.abs(cov), axis=(-2, -1))
        bad = fnp.max(fnp.abs(recon - cov), axis=(-2, -1)) > tol * scale
    return fnp.where(bad[..., None, None], np.nan, factor)


def multivariate_normal(key: Array, mean: Array, cov: Array, shape: Shape | None = None,
                        dtype=np.float64, method: str = "cholesky") -> Array:
    """Normal vectors with `mean` (..., n) and covariance `cov` (..., n, n), via a square-root
    factor of cov: `method` "cholesky" (default; NaN where cov is not positive definite),
    "eigh" or "svd" (these take singular covariances too; NaN where cov has a negative
    eigenvalue beyond rounding). cov is symmetrized first, (cov + cov^T) / 2, as jax.random
    does, so its gradient is symmetric. Differentiable in mean and cov. `shape`: the batch
    shape (default the broadcast of mean's and cov's batch shapes).

    Example:
        >>> fg.random.multivariate_normal(fg.random.key(0), np.zeros(2), np.eye(2), (4,)).shape
        (4, 2)
    """
    dt = _float_dtype(dtype, "multivariate_normal")
    if method not in ("cholesky", "eigh", "svd"):
        raise ValueError(f"fg.random.multivariate_normal: method must be 'cholesky', 'eigh' "
                         f"or 'svd', got {method!r}")
    mshape, cshape = tuple(fnp.shape(mean)), tuple(fnp.shape(cov))
    if not mshape:
        raise ValueError(f"fg.random.multivariate_normal: mean must have at least 1 dimension "
                         f"(..., n), got a 0-d mean (cov {cshape}); for one variable use "
                         f"fg.random.normal, or pass mean of shape (1,)")
    n = mshape[-1]
    if cshape[-2:] != (n, n):
        raise ValueError(f"fg.random.multivariate_normal: cov must have shape (..., {n}, {n}) "
                         f"to match mean {mshape}, got {cshape}")
    if shape is None:
        shape = np.broadcast_shapes(mshape[:-1], cshape[:-2])
    shape = _shape(shape, "multivariate_normal")
    _check_fits(shape, "multivariate_normal",
                **{"mean's batch shape": np.empty(mshape[:-1], bool),
                   "cov's batch shape": np.empty(cshape[:-2], bool)})
    z = _std_normal(_check_key(key, "multivariate_normal"), shape + (n,), dt)
    cov = fnp.asarray(cov).astype(_compute_dtype(dt))
    factor = _sqrt_factor((cov + fnp.swapaxes(cov, -1, -2)) / 2, method)
    # (a product and a sum, not einsum: batched BLAS would round vmap's draws differently)
    return _cast(mean + (factor * z[..., None, :]).sum(axis=-1), dt)


def orthogonal(key: Array, n: int, shape: Shape = (), dtype=np.float64) -> Array:
    """Uniformly (Haar) distributed orthogonal matrices (*shape, n, n): Gram-Schmidt on a
    normal matrix (QR with a positive diagonal of R).

    Example:
        >>> q = fg.random.orthogonal(fg.random.key(0), 3)
        >>> bool(np.allclose(q @ q.T, np.eye(3)))
        True
    """
    dt = _float_dtype(dtype, "orthogonal")
    n = int_scalar("fg.random.orthogonal", "n (the matrix size)", n, 0)
    z = _std_normal(_check_key(key, "orthogonal"), _shape(shape, "orthogonal") + (n, n), dt)
    if n == 0:  # (no columns to orthogonalize: an empty (*shape, 0, 0))
        return _cast(z, dt)
    qs = []
    for j in range(n):
        v = z[..., :, j]
        if qs:
            q = fnp.stack(qs, axis=-1)
            for _ in range(2):  # twice is enough (Kahan): orthogonal to rounding error
                # products and sums, not einsum: a batched BLAS call (vmap, a shape) rounds
                # differently from one matrix, and a key must give the same numbers
                coef = (q * v[..., :, None]).sum(axis=-2)
                v = v - (q * coef[..., None, :]).sum(axis=-1)
        qs.append(v / fnp.sqrt((v * v).sum(axis=-1, keepdims=True)))
    return _cast(fnp.stack(qs, axis=-1), dt)
