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
So are `poisson`'s and `binomial`'s (and `multinomial`'s): exact samplers of NumPy's Generator
on the key's Philox stream, inside primitives (fungrad.lax.random), so they jit and vmap.
The samplers built on gamma draws (`loggamma`, `chisquare`, `f`, `t`, `generalized_normal`,
`ball`) have no derivative in their gamma shape parameter either; the other new samplers are
transforms of uniform or normal draws and differentiate in their continuous parameters.
Invalid concrete parameters raise ValueError naming the argument; under jit (where they
cannot be checked) they give NaN, or -1 for the integer samplers. Where jax.random itself
gives NaN or -1 (t, wald, loggamma, generalized_normal, binomial; poisson) so does fungrad,
eagerly too. Keys are raw uint32 arrays: `PRNGKey` is `key`, `key_data` and
`wrap_key_data` check and return them.
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
from .lax.random import (random_bits, random_split_p, random_fold_in_p, random_gamma_p,
                         random_poisson_p, random_binomial_p)

__all__ = ["key", "split", "fold_in", "bits", "uniform", "normal", "bernoulli", "categorical",
           "randint", "permutation", "choice", "truncated_normal", "gumbel", "exponential",
           "gamma", "beta", "dirichlet", "multivariate_normal", "orthogonal",
           "PRNGKey", "key_data", "wrap_key_data", "clone", "ball", "binomial", "cauchy",
           "chisquare", "double_sided_maxwell", "f", "generalized_normal", "geometric",
           "laplace", "loggamma", "logistic", "lognormal", "maxwell", "multinomial", "pareto",
           "poisson", "rademacher", "rayleigh", "t", "triangular", "wald", "weibull_min"]

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
    with np.errstate(divide="ignore"):  # a = 0: log Gamma(0) = -inf
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


# ============================================================================ more of jax.random
# Keys are raw uint32 pairs (no typed key arrays): PRNGKey is key, key_data and
# wrap_key_data check and return the same array, clone copies it.
def PRNGKey(seed: int | Array, *, impl: Any = None) -> Array:
    """Legacy name of `key`, as jax.random's: fungrad keys are always raw uint32 arrays of
    shape (2,), so `PRNGKey(seed)` equals `key(seed)` (there are no typed key arrays).
    fungrad has one key implementation, so `impl` must be None.

    Example:
        >>> bool(np.all(fg.random.PRNGKey(7) == fg.random.key(7)))
        True
    """
    if impl is not None:
        raise ValueError(f"fg.random.PRNGKey: fungrad has a single key implementation (uint32 "
                         f"pairs keying NumPy's Philox), so impl must be None, got {impl!r}")
    return key(seed)


def _check_raw_keys(k: Array, fn: str, name: str = "keys") -> Array:
    """A key or a batch of keys: uint32 of shape (..., 2)."""
    if not isinstance(k, Tracer):
        if not hasattr(k, "dtype"):
            k = np.asarray(k)
        k = _asarray(k)
    shape, dtype = tuple(fnp.shape(k)), np.dtype(k.dtype)
    if shape[-1:] != (2,) or dtype != np.uint32:
        raise TypeError(f"fg.random.{fn}: {name} must be a uint32 array of shape (..., 2) "
                        f"(keys from fg.random.key or fg.random.split), got {dtype}{shape}")
    return k


def key_data(keys: Array) -> Array:
    """The uint32 data of a key or a batch of keys (..., 2). fungrad keys are that data
    already, so this checks `keys` and returns them (kept for jax.random code).

    Example:
        >>> fg.random.key_data(fg.random.key(5))
        array([0, 5], dtype=uint32)
    """
    return _check_raw_keys(keys, "key_data")


def wrap_key_data(key_bits_array: Array, *, impl: Any = None, dtype: Any = None) -> Array:
    """A key (or batch of keys) from its uint32 data (..., 2): checks it and returns it
    (fungrad keys are raw data). fungrad has one key implementation, so `impl` and `dtype`
    must be None.

    Example:
        >>> k = fg.random.wrap_key_data(np.array([0, 5], np.uint32))
        >>> bool(np.all(fg.random.normal(k, (2,)) == fg.random.normal(fg.random.key(5), (2,))))
        True
    """
    if impl is not None and dtype is not None:
        raise ValueError("fg.random.wrap_key_data: pass at most one of impl and dtype")
    if impl is not None or dtype is not None:
        which = "impl" if impl is not None else "dtype"
        raise ValueError(f"fg.random.wrap_key_data: fungrad has a single key implementation "
                         f"(uint32 pairs keying NumPy's Philox), so {which} must be None, "
                         f"got {impl if impl is not None else dtype!r}")
    return _check_raw_keys(key_bits_array, "wrap_key_data", "key_bits_array")


def clone(key: Array) -> Array:
    """A copy of `key` (or of a batch of keys) that gives the same numbers (jax.random's
    clone, for code that donates keys; fungrad keys are plain arrays).

    Example:
        >>> k = fg.random.key(3)
        >>> bool(np.all(fg.random.clone(k) == k))
        True
    """
    k = _check_raw_keys(key, "clone", "key")
    return k if isinstance(k, Tracer) else k.copy()


# ----------------------------------------------------------------------------- helpers (more)
def _fdtype(dtype, fn: str) -> np.dtype:
    return _float_dtype(np.float64 if dtype is None else dtype, fn)


def _idtype(dtype, fn: str) -> np.dtype:
    dt = np.dtype(np.int64 if dtype is None else dtype)
    if dt.kind not in "iu":
        raise TypeError(f"fg.random.{fn}: dtype must be an integer dtype (int64, int32, ...), "
                        f"got {dt}")
    return dt


def _param_shape(fn: str, shape, **params) -> tuple:
    """The output shape: `shape`, which every parameter must broadcast to, or (None) the
    parameters' broadcast shape."""
    if shape is None:
        shapes = {name: tuple(fnp.shape(v)) for name, v in params.items()}
        try:
            return tuple(np.broadcast_shapes(*shapes.values()))
        except ValueError:
            raise ValueError(f"fg.random.{fn}: parameter shapes {shapes} do not broadcast "
                             f"together") from None
    shape = _shape(shape, fn)
    _check_fits(shape, fn, **params)
    return shape


def _param(value, dt: np.dtype, shape: tuple) -> Array:
    """A parameter as `dt`, broadcast to `shape` (a traced value keeps its derivative)."""
    return fnp.broadcast_to(fnp.asarray(value).astype(dt), shape)


def _refuse(fn: str, name: str, bad: Array, must: str, *values: Any) -> None:
    """A clear error where a concrete parameter is invalid (`bad` True somewhere), showing
    the first offending entry of each of `values` (broadcast to bad's shape). Traced
    parameters cannot be checked: the samplers give NaN (floats) or -1 (integers) there."""
    if isinstance(bad, Tracer) or not np.any(_to_host(bad)):
        return
    mask = np.asarray(_to_host(bad))
    where = tuple(int(i) for i in np.argwhere(mask)[0]) if mask.ndim else ()
    shown = [np.broadcast_to(np.asarray(_to_host(fnp.asarray(v)), np.float64),
                             mask.shape)[where].item() for v in values]
    got = shown[0] if len(shown) == 1 else tuple(shown)
    if all(fnp.ndim(v) == 0 for v in values):
        where = ()  # (a scalar parameter: no index to show)
    integer = fn in ("geometric", "poisson")
    raise ValueError(f"fg.random.{fn}: {name} must be {must}, got {name} = {got!r}"
                     + (f" at index {where}" if where else "")
                     + f" (under jit, where values cannot be checked, an invalid {name} "
                     f"gives {'-1' if integer else 'NaN'})")


def _nan_where(bad, x):
    return fnp.where(bad, np.nan, x)


# ----------------------------------------------------------------------------- continuous
def cauchy(key: Array, shape: Shape = (), dtype: Any = None) -> Array:
    """Standard Cauchy floats, tan(pi * (U - 1/2)) with U in (0, 1).

    Example:
        >>> fg.random.cauchy(fg.random.key(0), (3,)).shape
        (3,)
    """
    dt = _fdtype(dtype, "cauchy")
    u = _unit_compute(_check_key(key, "cauchy"), _shape(shape, "cauchy"), dt, open_=True)
    return _cast(fnp.tan(math.pi * (u - 0.5)), dt)


def laplace(key: Array, shape: Shape = (), dtype: Any = None) -> Array:
    """Standard Laplace floats (density exp(-|x|) / 2): an exponential with a random sign,
    log(2U) for U < 1/2 and -log(2 - 2U) otherwise.

    Example:
        >>> fg.random.laplace(fg.random.key(0), (2, 2), np.float32).dtype
        dtype('float32')
    """
    dt = _fdtype(dtype, "laplace")
    u = _unit_compute(_check_key(key, "laplace"), _shape(shape, "laplace"), dt, open_=True)
    return _cast(fnp.where(u < 0.5, fnp.log(2 * u), -fnp.log(2 - 2 * u)), dt)


def logistic(key: Array, shape: Shape = (), dtype: Any = None) -> Array:
    """Standard logistic floats, log(U) - log(1 - U).

    Example:
        >>> fg.random.logistic(fg.random.key(0), (3,)).shape
        (3,)
    """
    dt = _fdtype(dtype, "logistic")
    u = _unit_compute(_check_key(key, "logistic"), _shape(shape, "logistic"), dt, open_=True)
    return _cast(fnp.log(u) - fnp.log1p(-u), dt)


def _maxwell(key, shape, dt):
    z = _std_normal(key, shape + (3,), dt)
    return fnp.sqrt((z * z).sum(axis=-1))


def maxwell(key: Array, shape: Shape = (), dtype: Any = None) -> Array:
    """One-sided Maxwell floats (density ~ x^2 exp(-x^2 / 2), x >= 0): the length of a
    standard normal 3-vector.

    Example:
        >>> bool((fg.random.maxwell(fg.random.key(0), (5,)) > 0).all())
        True
    """
    dt = _fdtype(dtype, "maxwell")
    return _cast(_maxwell(_check_key(key, "maxwell"), _shape(shape, "maxwell"), dt), dt)


def rademacher(key: Array, shape: Shape = (), dtype: Any = None) -> Array:
    """-1 or +1 with equal probability (int64 by default; any numeric `dtype`).

    Example:
        >>> sorted(set(fg.random.rademacher(fg.random.key(0), (100,)).tolist()))
        [-1, 1]
    """
    dt = np.dtype(np.int64 if dtype is None else dtype)
    b = bernoulli(_check_key(key, "rademacher"), 0.5, _shape(shape, "rademacher"))
    return fnp.where(b, 1, -1).astype(dt)


def double_sided_maxwell(key: Array, loc: Any, scale: Any, shape: Shape = (),
                         dtype: Any = None) -> Array:
    """Double-sided Maxwell floats (density ~ z^2 exp(-z^2 / 2), z = (x - loc) / scale): a
    Maxwell draw with a random sign, times scale, plus loc. As jax.random, the result has
    shape `shape + broadcast(loc, scale)` (`shape` adds leading batch dims). Differentiable
    in loc and scale.

    Example:
        >>> fg.random.double_sided_maxwell(fg.random.key(0), np.zeros(2), 1.0, (3,)).shape
        (3, 2)
    """
    dt = _fdtype(dtype, "double_sided_maxwell")
    try:
        pshape = tuple(np.broadcast_shapes(tuple(fnp.shape(loc)), tuple(fnp.shape(scale))))
    except ValueError:
        raise ValueError(f"fg.random.double_sided_maxwell: loc {tuple(fnp.shape(loc))} and "
                         f"scale {tuple(fnp.shape(scale))} do not broadcast together") from None
    shape = _shape(shape, "double_sided_maxwell") + pshape
    km, ks = split(_check_key(key, "double_sided_maxwell"))
    cd = _compute_dtype(dt)
    m = _maxwell(km, shape, dt) * rademacher(ks, shape, cd)
    return _cast(m * _param(scale, cd, shape) + _param(loc, cd, shape), dt)


def lognormal(key: Array, sigma: Any = 1.0, shape: Shape | None = None,
              dtype: Any = None) -> Array:
    """Log-normal floats, exp(sigma * Z) with Z standard normal (`shape` defaults to sigma's
    shape). Differentiable in sigma.

    Example:
        >>> bool((fg.random.lognormal(fg.random.key(0), 0.5, (4,)) > 0).all())
        True
    """
    dt = _fdtype(dtype, "lognormal")
    shape = _param_shape("lognormal", shape, sigma=sigma)
    cd = _compute_dtype(dt)
    z = _std_normal(_check_key(key, "lognormal"), shape, dt)
    return _cast(fnp.exp(_param(sigma, cd, shape) * z), dt)


def pareto(key: Array, b: Any, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Pareto floats (density b / x^(b + 1) on x >= 1), exp(E / b) with E standard
    exponential (`shape` defaults to b's shape). Differentiable in b. b must be >= 0 (b = 0
    gives inf).

    Example:
        >>> bool((fg.random.pareto(fg.random.key(0), 3.0, (4,)) >= 1).all())
        True
    """
    dt = _fdtype(dtype, "pareto")
    shape = _param_shape("pareto", shape, b=b)
    cd = _compute_dtype(dt)
    bb = _param(b, cd, shape)
    bad = bb < 0
    _refuse("pareto", "b", bad, ">= 0", b)
    e = -fnp.log(_unit_compute(_check_key(key, "pareto"), shape, dt, open_=True))
    with np.errstate(divide="ignore"):  # b = 0: inf
        return _cast(_nan_where(bad, fnp.exp(e / bb)), dt)


def rayleigh(key: Array, scale: Any, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Rayleigh floats (density x / s^2 exp(-x^2 / (2 s^2)), x >= 0), scale * sqrt(-2 log U)
    (`shape` defaults to scale's shape). Differentiable in scale, which must be >= 0.

    Example:
        >>> bool((fg.random.rayleigh(fg.random.key(0), 2.0, (4,)) > 0).all())
        True
    """
    dt = _fdtype(dtype, "rayleigh")
    shape = _param_shape("rayleigh", shape, scale=scale)
    cd = _compute_dtype(dt)
    s = _param(scale, cd, shape)
    bad = s < 0
    _refuse("rayleigh", "scale", bad, ">= 0", scale)
    u = _unit_compute(_check_key(key, "rayleigh"), shape, dt, open_=True)
    return _cast(_nan_where(bad, s * fnp.sqrt(-2.0 * fnp.log(u))), dt)


def weibull_min(key: Array, scale: Any, concentration: Any, shape: Shape = (),
                dtype: Any = None) -> Array:
    """Weibull floats (density ~ x^(c - 1) exp(-(x / scale)^c), x > 0, c = concentration),
    scale * E^(1 / c) with E standard exponential. The result has the broadcast shape of
    `shape`, scale and concentration, with one independent draw per entry (jax.random
    draws `shape` and broadcasts, repeating draws along the parameters' extra axes).
    Differentiable in scale and concentration; both must be > 0 (NaN under jit where not).

    Example:
        >>> fg.random.weibull_min(fg.random.key(0), 1.0, np.array([0.5, 2.0])).shape
        (2,)
    """
    dt = _fdtype(dtype, "weibull_min")
    try:
        shape = tuple(np.broadcast_shapes(_shape(shape, "weibull_min"),
                                          tuple(fnp.shape(scale)),
                                          tuple(fnp.shape(concentration))))
    except ValueError:
        raise ValueError(f"fg.random.weibull_min: shape {shape}, scale "
                         f"{tuple(fnp.shape(scale))} and concentration "
                         f"{tuple(fnp.shape(concentration))} do not broadcast together") from None
    cd = _compute_dtype(dt)
    s, c = _param(scale, cd, shape), _param(concentration, cd, shape)
    _refuse("weibull_min", "scale", s <= 0, "> 0", scale)
    _refuse("weibull_min", "concentration", c <= 0, "> 0", concentration)
    e = -fnp.log(_unit_compute(_check_key(key, "weibull_min"), shape, dt, open_=True))
    out = s * fnp.exp(fnp.log(e) / fnp.where(c > 0, c, 1.0))
    return _cast(_nan_where(fnp.logical_or(s <= 0, c <= 0), out), dt)


def triangular(key: Array, left: Any, mode: Any, right: Any, shape: Shape | None = None,
               dtype: Any = None) -> Array:
    """Triangular floats on [left, right] peaking at mode (inverse CDF; `shape` defaults
    to the parameters' broadcast shape). Differentiable in left, mode and right; needs
    left <= mode <= right and left < right (NaN under jit where not).

    Example:
        >>> x = fg.random.triangular(fg.random.key(0), 0.0, 1.0, 3.0, (100,))
        >>> bool((0 <= x).all() and (x <= 3).all())
        True
    """
    dt = _fdtype(dtype, "triangular")
    shape = _param_shape("triangular", shape, left=left, mode=mode, right=right)
    cd = _compute_dtype(dt)
    a, c, b = _param(left, cd, shape), _param(mode, cd, shape), _param(right, cd, shape)
    bad = fnp.logical_not(fnp.logical_and(fnp.logical_and(a <= c, c <= b), a < b))
    _refuse("triangular", "(left, mode, right)", bad, "ordered: left <= mode <= right and "
            "left < right", a, c, b)
    u = _unit_compute(_check_key(key, "triangular"), shape, dt, open_=True)
    width = fnp.where(bad, 1.0, b - a)
    lo = a + fnp.sqrt(u * width * fnp.maximum(c - a, 0.0))
    hi = b - fnp.sqrt((1 - u) * width * fnp.maximum(b - c, 0.0))
    out = fnp.where(u * width < c - a, lo, hi)
    return _cast(_nan_where(bad, fnp.clip(out, a, b)), dt)


def wald(key: Array, mean: Any, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Wald (inverse Gaussian, shape parameter 1) floats with `mean` > 0 (NaN where mean <=
    0, as jax.random): Michael, Schucany and Haas's transform of a normal and a uniform,
    written without cancellation. Differentiable in mean (`shape` defaults to mean's).

    Example:
        >>> bool((fg.random.wald(fg.random.key(0), 1.5, (4,)) > 0).all())
        True
    """
    dt = _fdtype(dtype, "wald")
    shape = _param_shape("wald", shape, mean=mean)
    cd = _compute_dtype(dt)
    m = _param(mean, cd, shape)
    kn, ku = split(_check_key(key, "wald"))
    v = _std_normal(kn, shape, dt)
    ok = m > 0
    m = fnp.where(ok, m, 1.0)  # (NaN below where not: no NaN slopes or warnings)
    my = m * v * v
    # x = m + m^2 y / 2 - m / 2 sqrt(4 m y + m^2 y^2) = 4 m^2 y / (sqrt(4 m y + (m y)^2) + m y)^2
    root = fnp.sqrt(4 * my + my * my) + my
    x = fnp.where(root > 0, 4 * m * my / fnp.where(root > 0, root * root, 1.0), m)
    u = _unit_compute(ku, shape, dt)
    out = fnp.where(u * (m + x) <= m, x, m * m / fnp.where(x > 0, x, 1.0))
    return _cast(_nan_where(fnp.logical_not(ok), out), dt)


# ------------------------------------------------------------------- gamma-based (no grad in a)
def loggamma(key: Array, a: Any, shape: Shape | None = None, dtype: Any = None) -> Array:
    """log of Gamma(a, 1) draws, accurate for small `a` (where the draw itself underflows
    to 0): log Gamma(a + 1) + log(U) / a for a < 1. NaN where a < 0 (as jax.random). No
    derivative in `a` (as fg.random.gamma).

    Example:
        >>> bool(np.isfinite(fg.random.loggamma(fg.random.key(0), 1e-3, (5,))).all())
        True
    """
    dt = _fdtype(dtype, "loggamma")
    shape = _param_shape("loggamma", shape, a=a)
    return _cast(_log_gamma(_check_key(key, "loggamma"), a, shape, dt), dt)


def chisquare(key: Array, df: Any, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Chi-square floats with `df` >= 0 degrees of freedom, 2 Gamma(df / 2) (`shape`
    defaults to df's shape). No derivative in df.

    Example:
        >>> bool((fg.random.chisquare(fg.random.key(0), 3.0, (4,)) > 0).all())
        True
    """
    dt = _fdtype(dtype, "chisquare")
    shape = _param_shape("chisquare", shape, df=df)
    d = _param(df, np.dtype(np.float64), shape)
    _refuse("chisquare", "df", fnp.logical_not(d >= 0), ">= 0", df)
    return _cast(2.0 * fnp.exp(_log_gamma(_check_key(key, "chisquare"), d / 2, shape, dt)), dt)


def f(key: Array, dfnum: Any, dfden: Any, shape: Shape | None = None,
      dtype: Any = None) -> Array:
    """F-distributed floats, (X1 / dfnum) / (X2 / dfden) of two chi-squares (from their
    logs: no overflow for small degrees of freedom); both must be > 0 (NaN under jit where
    not). No derivative in dfnum and dfden.

    Example:
        >>> bool((fg.random.f(fg.random.key(0), 3.0, 5.0, (4,)) > 0).all())
        True
    """
    dt = _fdtype(dtype, "f")
    shape = _param_shape("f", shape, dfnum=dfnum, dfden=dfden)
    f64 = np.dtype(np.float64)
    dn, dd = _param(dfnum, f64, shape), _param(dfden, f64, shape)
    _refuse("f", "dfnum", fnp.logical_not(dn > 0), "> 0", dfnum)
    _refuse("f", "dfden", fnp.logical_not(dd > 0), "> 0", dfden)
    ok = fnp.logical_and(dn > 0, dd > 0)
    dn, dd = fnp.where(ok, dn, 1.0), fnp.where(ok, dd, 1.0)  # (NaN below where not ok)
    kd, kn = split(_check_key(key, "f"))
    ln, ld = _log_gamma(kn, dn / 2, shape, dt), _log_gamma(kd, dd / 2, shape, dt)
    out = fnp.exp(ln - ld + fnp.log(dd) - fnp.log(dn))
    return _cast(_nan_where(fnp.logical_not(ok), out), dt)


def t(key: Array, df: Any, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Student's t floats with `df` > 0 degrees of freedom (NaN where df <= 0, as
    jax.random): Z * sqrt((df / 2) / Gamma(df / 2)). No derivative in df.

    Example:
        >>> fg.random.t(fg.random.key(0), 4.0, (2, 3)).shape
        (2, 3)
    """
    dt = _fdtype(dtype, "t")
    shape = _param_shape("t", shape, df=df)
    d = _param(df, np.dtype(np.float64), shape)
    kn, kg = split(_check_key(key, "t"))
    z = _std_normal(kn, shape, np.dtype(np.float64))
    with np.errstate(all="ignore"):
        lg = _log_gamma(kg, d / 2, shape, dt)
        out = z * fnp.exp(0.5 * (fnp.log(fnp.where(d > 0, d / 2, np.nan)) - lg))
    return _cast(_nan_where(fnp.logical_not(d > 0), out), dt)


def _generalized_normal(key, p, shape, dt):
    """Generalized normal draws as float64: a random sign times Gamma(1 / p)^(1 / p)."""
    pp = _param(p, np.dtype(np.float64), shape)
    ok = pp > 0
    kg, ks = split(key)
    lg = _log_gamma(kg, fnp.where(ok, 1.0 / fnp.where(ok, pp, 1.0), -1.0), shape, dt)
    x = rademacher(ks, shape, np.float64) * fnp.exp(lg / fnp.where(ok, pp, 1.0))
    return _nan_where(fnp.logical_not(ok), x)


def generalized_normal(key: Array, p: float, shape: Shape = (), dtype: Any = None) -> Array:
    """Generalized normal floats (density ~ exp(-|x|^p), p > 0; p = 2 is a normal of
    variance 1/2, p = 1 a Laplace): a random sign times Gamma(1 / p)^(1 / p). NaN where
    p <= 0 (as jax.random); an array p must broadcast to `shape`. No derivative in p.

    Example:
        >>> fg.random.generalized_normal(fg.random.key(0), 1.5, (3,)).shape
        (3,)
    """
    dt = _fdtype(dtype, "generalized_normal")
    shape = _shape(shape, "generalized_normal")
    _check_fits(shape, "generalized_normal", p=p)
    return _cast(_generalized_normal(_check_key(key, "generalized_normal"), p, shape, dt), dt)


def ball(key: Array, d: int, p: float = 2, shape: Shape = (), dtype: Any = None) -> Array:
    """Points uniform in the unit L^p ball of dimension `d`, shape (*shape, d): generalized
    normals G divided by (sum |G|^p + E)^(1 / p) with E exponential (Barthe, Guedon,
    Mendelson and Naor). p must be > 0 (NaN otherwise).

    Example:
        >>> x = fg.random.ball(fg.random.key(0), 3, shape=(100,))
        >>> x.shape, bool((np.linalg.norm(x, axis=-1) <= 1).all())
        ((100, 3), True)
    """
    dt = _fdtype(dtype, "ball")
    d = int_scalar("fg.random.ball", "d (the dimension)", d, 0)
    shape = _shape(shape, "ball")
    if fnp.ndim(p) != 0:
        raise TypeError(f"fg.random.ball: p must be a scalar, got shape {tuple(fnp.shape(p))}")
    kg, ke = split(_check_key(key, "ball"))
    g = _generalized_normal(kg, p, shape + (d,), dt)
    e = -fnp.log(_unit(ke, shape, np.dtype(np.float64), open_=True))
    pp = fnp.asarray(p).astype(np.float64)
    norm = (fnp.abs(g) ** pp).sum(axis=-1) + e
    return _cast(g / (norm ** (1.0 / pp))[..., None], dt)


# ----------------------------------------------------------------------------- discrete
def geometric(key: Array, p: Any, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Geometric integers k >= 1 (the number of Bernoulli(p) trials up to the first
    success), floor(log(U) / log(1 - p)) + 1, int64 by default. p = 0 gives the dtype's
    largest value (never), as jax.random; p outside [0, 1] raises (-1 under jit).

    Example:
        >>> bool((fg.random.geometric(fg.random.key(0), 0.3, (10,)) >= 1).all())
        True
    """
    dt = _idtype(dtype, "geometric")
    shape = _param_shape("geometric", shape, p=p)
    pp = _param(p, np.dtype(np.float64), shape)
    bad = fnp.logical_not(fnp.logical_and(pp >= 0, pp <= 1))
    _refuse("geometric", "p", bad, "in [0, 1]", p)
    u = _unit(_check_key(key, "geometric"), shape, np.dtype(np.float64), open_=True)
    # -log1p(-p) > 0 for p in (0, 1]: the ratio is a non-negative float, inf for p = 1
    q = fnp.where(fnp.logical_or(bad, pp == 0), 0.5, pp)
    rate = -fnp.log1p(-fnp.where(q < 1, q, 0.5))
    g = fnp.where(q < 1, fnp.floor(-fnp.log(u) / rate) + 1, 1.0)
    top = np.iinfo(dt).max
    big = fnp.logical_or(g >= float(top), pp == 0)
    out = fnp.where(big, top, fnp.where(big, 1.0, g).astype(dt)).astype(dt)
    return fnp.where(bad, -1, out).astype(dt)


def poisson(key: Array, lam: Any, shape: Shape | None = None, dtype: Any = None) -> Array:
    """Poisson integers with rate `lam` (int64 by default; `shape` defaults to lam's
    shape): exact for every rate (NumPy's Generator on the key's Philox stream:
    multiplication below rate 10, PTRS transformed rejection above). -1 where lam is
    negative or NaN (as jax.random), or inf / above ~9.2e18; 0 where lam = 0. Values above
    a narrower dtype's max are clipped to it.

    Example:
        >>> fg.random.poisson(fg.random.key(0), np.array([0.0, 3.0, 1e4])).dtype
        dtype('int64')
    """
    dt = _idtype(dtype, "poisson")
    shape = _param_shape("poisson", shape, lam=lam)
    n = random_poisson_p.bind(_check_key(key, "poisson"),
                              _param(lam, np.dtype(np.float64), shape))
    if dt != np.int64:
        n = fnp.minimum(n, np.iinfo(dt).max) if np.iinfo(dt).max < np.iinfo(np.int64).max else n
    return n.astype(dt)


def binomial(key: Array, n: Any, p: Any, shape: Shape | None = None,
             dtype: Any = None) -> Array:
    """Binomial(n, p) counts as floats (float64 by default, as jax.random returns floats):
    exact (NumPy's Generator on the key's Philox stream: inversion for small n * p, BTPE
    otherwise), n floored. NaN where n < 0 or p is outside [0, 1] or NaN (as jax.random);
    inf where n = inf; NaN for finite n above 2**62.

    Example:
        >>> fg.random.binomial(fg.random.key(0), 10, 0.5, (3,)).shape
        (3,)
    """
    dt = _fdtype(dtype, "binomial")
    shape = _param_shape("binomial", shape, n=n, p=p)
    f64 = np.dtype(np.float64)
    c = random_binomial_p.bind(_check_key(key, "binomial"), _param(n, f64, shape),
                               _param(p, f64, shape))
    return _cast(c, dt)


def multinomial(key: Array, n: Any, p: Array, *, shape: Shape | None = None,
                dtype: Any = None, unroll: int | bool = 1) -> Array:
    """Multinomial(n, p) counts along the last axis, as floats (float64 by default, as
    jax.random): one conditional binomial per category, count_i ~ Binomial(n - earlier
    counts, p_i / (p_i + ... + p_last)), so p need not sum to 1 (it is normalized) and the
    counts always sum to floor(n). `shape` (default p's shape) is the full output shape:
    p broadcasts to it, n to shape[:-1]. p must be >= 0 and n >= 0 (NaN under jit where
    not). `unroll` is accepted for jax.random code and ignored (the categories are a
    Python loop).

    Example:
        >>> fg.random.multinomial(fg.random.key(0), 10, np.array([0.2, 0.3, 0.5])).sum()
        np.float64(10.0)
    """
    dt = _fdtype(dtype, "multinomial")
    if not isinstance(unroll, (bool, int, np.integer)):
        raise TypeError(f"fg.random.multinomial: unroll must be an int or bool, got {unroll!r}")
    key = _check_key(key, "multinomial")
    if fnp.ndim(p) == 0:
        raise ValueError("fg.random.multinomial: p must have at least 1 dimension (the "
                         "category probabilities along its last axis), got a 0-d p")
    shape = tuple(fnp.shape(p)) if shape is None else _shape(shape, "multinomial")
    if not shape:
        raise ValueError("fg.random.multinomial: shape must have at least 1 dimension (the "
                         "categories), got ()")
    _check_fits(shape, "multinomial", p=p)
    _check_fits(shape[:-1], "multinomial", n=n)
    f64 = np.dtype(np.float64)
    pp, nn = _param(p, f64, shape), _param(n, f64, shape[:-1])
    bad_p = fnp.logical_not(pp >= 0)
    _refuse("multinomial", "p", bad_p, ">= 0 (and not NaN)", p)
    _refuse("multinomial", "n", fnp.logical_not(nn >= 0), ">= 0", n)
    k = shape[-1]
    if k == 0:
        return fnp.zeros(shape, dt)
    pm = fnp.moveaxis(pp, -1, 0)
    rest = fnp.flip(fnp.cumsum(fnp.flip(pm, 0), axis=0), 0)  # p_i + ... + p_last
    ratios = fnp.clip(pm / fnp.where(rest == 0, 1.0, rest), 0.0, 1.0)
    keys = split(key, k)
    remainder, counts = nn, []
    for i in range(k):
        c = random_binomial_p.bind(keys[i], remainder, ratios[i])
        counts.append(c)
        remainder = remainder - c
    out = fnp.stack(counts, axis=-1)
    bad = fnp.any(bad_p, axis=-1, keepdims=True)
    return _cast(_nan_where(bad, out), dt)
