"""Random bits from keys: the primitives under `fungrad.random`.

A key is a uint32 array of shape (2,) (64 bits). Every primitive here takes keys with any
leading batch dims, shape (*B, 2), and draws for each key on its own, so vmap over keys is
the primitive itself (its batch rule only moves the batch axis to the front) and a batch of
samples equals the samples of each key stacked. Each key seeds NumPy's counter-based
`Philox` bit generator, whose stream is fixed by its algorithm (the same on every machine and
NumPy version); the Philox key's second word says what the bits are for (samples, split, fold
in, gamma, poisson, binomial), so the streams of one key for different purposes never overlap.
"""
from __future__ import annotations

import numpy as np

from ..backend import on_host
from ..core.ir import ShapedArray
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .shape import bdim_at_front, transpose

# the Philox key's second 64-bit word: one stream per purpose
_BITS, _SPLIT, _FOLD_IN, _GAMMA, _POISSON, _BINOMIAL = range(6)
_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)


def _philox(key_pair, purpose, counter=0):
    """The Philox generator of one key (a uint32 pair) for one purpose."""
    k = (int(key_pair[0]) << 32) | int(key_pair[1])
    return np.random.Philox(key=k | (purpose << 64), counter=counter)


def _key_from_u64(words):
    """uint64 words -> keys (..., 2) uint32 (high word first), independent of endianness."""
    words = np.asarray(words, _U64)
    return np.stack([(words >> np.uint64(32)).astype(_U32),
                     (words & np.uint64(0xFFFFFFFF)).astype(_U32)], axis=-1)


def _per_key(keys, out_shape, dtype, draw):
    """Call `draw(key_pair, i)` for each key of `keys` (*B, 2); results fill (*B, *out_shape)."""
    batch = keys.shape[:-1]
    flat = np.asarray(keys).reshape(-1, 2)
    out = np.empty((flat.shape[0],) + tuple(out_shape), dtype)
    for i, k in enumerate(flat):
        out[i] = draw(k, i)
    return out.reshape(batch + tuple(out_shape))


def _move_front(x, d):
    """`x` with its batch axis `d` first (a transpose, no copy for NumPy arrays)."""
    if d == 0:
        return x
    perm = (d,) + tuple(i for i in range(x.ndim) if i != d)
    return transpose(x, perm)


def _zero_jvp(prim):
    """Integer outputs (or outputs that do not depend smoothly on the operands)."""
    return lambda primals, tangents, **kw: (prim.bind(*primals, **kw), ZERO)


# --------------------------------------------------------------------------- random_bits
# The bits are NumPy's Philox streams (the same values on every device): CuPy keys draw on
# host copies, the results go back to the GPU (on_host)
@on_host
def _bits_impl(keys, shape, width):
    n = int(np.prod(shape, dtype=np.int64))
    dtype = _U32 if width == 32 else _U64

    def draw(k, i):
        raw = _philox(k, _BITS).random_raw((n + 1) // 2 if width == 32 else n)
        if width == 64:
            return raw.reshape(shape)
        # both halves of each 64-bit word, by arithmetic (so the same on every byte order)
        halves = np.stack([raw >> np.uint64(32), raw & np.uint64(0xFFFFFFFF)], axis=-1)
        return halves.reshape(-1)[:n].astype(_U32).reshape(shape)
    return _per_key(keys, shape, dtype, draw)


random_bits_p = Primitive("random_bits")
random_bits_p.impl = _bits_impl
random_bits_p.abstract_eval = lambda keys, shape, width: ShapedArray(
    tuple(keys.shape[:-1]) + tuple(shape), _U32 if width == 32 else _U64)
random_bits_p.jvp = _zero_jvp(random_bits_p)
random_bits_p.batch = lambda vals, dims, axis_size, **kw: (
    random_bits_p.bind(_move_front(vals[0], dims[0]), **kw), 0)


def random_bits(key, shape: tuple, width: int = 32):
    """`shape` uniformly random unsigned integers of `width` (32 or 64) bits from `key`."""
    return random_bits_p.bind(key, shape=tuple(int(d) for d in shape), width=int(width))


# --------------------------------------------------------------------------- random_split
@on_host
def _split_impl(keys, num):
    return _per_key(keys, (num, 2), _U32,
                    lambda k, i: _key_from_u64(_philox(k, _SPLIT).random_raw(num)))


random_split_p = Primitive("random_split")
random_split_p.impl = _split_impl
random_split_p.abstract_eval = lambda keys, num: ShapedArray(
    tuple(keys.shape[:-1]) + (num, 2), _U32)
random_split_p.jvp = _zero_jvp(random_split_p)
random_split_p.batch = lambda vals, dims, axis_size, num: (
    random_split_p.bind(_move_front(vals[0], dims[0]), num=num), 0)


# --------------------------------------------------------------------------- random_fold_in
@on_host
def _fold_in_impl(keys, data):
    data = np.broadcast_to(np.asarray(data), keys.shape[:-1]).reshape(-1)
    mask = (1 << 64) - 1
    return _per_key(keys, (2,), _U32, lambda k, i: _key_from_u64(
        _philox(k, _FOLD_IN, counter=int(data[i]) & mask).random_raw(1)[0]))


def _two_operand_batch(prim):
    """Batching of a primitive of (keys, per-key operand) with leading batch dims: both get
    the vmapped axis first (an unbatched one by broadcasting)."""
    def batch(vals, dims, axis_size):
        return prim.bind(*(bdim_at_front(v, d, axis_size) for v, d in zip(vals, dims))), 0
    return batch


random_fold_in_p = Primitive("random_fold_in")
random_fold_in_p.impl = _fold_in_impl
random_fold_in_p.abstract_eval = lambda keys, data: ShapedArray(tuple(keys.shape), _U32)
random_fold_in_p.jvp = _zero_jvp(random_fold_in_p)
random_fold_in_p.batch = _two_operand_batch(random_fold_in_p)


# --------------------------------------------------------------------------- random_gamma
@on_host
def _gamma_impl(keys, alpha):
    """Standard gamma variates, one per entry of `alpha` (*B, *shape) for keys (*B, 2):
    rejection sampling, so NumPy's Generator does it on the key's Philox stream."""
    nb = keys.ndim - 1
    alpha = np.asarray(alpha)
    # (the key count, not -1: a reshape of a 0-size alpha cannot infer it)
    flat_alpha = alpha.reshape((int(np.prod(keys.shape[:-1])),) + alpha.shape[nb:])
    out_dtype = alpha.dtype if alpha.dtype in (np.float32, np.float64) else np.float64

    def draw(k, i):
        a = flat_alpha[i].astype(out_dtype)
        valid = a >= 0  # NaN for a < 0 or NaN (as jax.random), not NumPy's "shape < 0" error
        g = np.random.Generator(_philox(k, _GAMMA)).standard_gamma(
            np.where(valid, a, 0), dtype=out_dtype)
        return np.where(valid, g, np.nan)
    return _per_key(keys, alpha.shape[nb:], alpha.dtype, draw)




def _gamma_jvp(primals, tangents):
    if tangents[1] is not ZERO:
        raise NotImplementedError(
            "fg.random.gamma (and the samplers built on it: beta, dirichlet, loggamma, "
            "chisquare, f, t, generalized_normal, ball) have no derivative with respect to "
            "the gamma shape parameter (a, df, dfnum, dfden or p) yet; wrap it in "
            "fg.stop_gradient")
    return random_gamma_p.bind(*primals), ZERO


random_gamma_p = Primitive("random_gamma")
random_gamma_p.impl = _gamma_impl
random_gamma_p.abstract_eval = lambda keys, alpha: ShapedArray(tuple(alpha.shape), alpha.dtype)
random_gamma_p.jvp = _gamma_jvp
random_gamma_p.batch = _two_operand_batch(random_gamma_p)


# --------------------------------------------------------------------------- random_poisson
# Largest rate NumPy's Generator.poisson takes (its own limit, int64 max - 10 sigma)
_POISSON_LAM_MAX = 9.223372006484771e18


@on_host
def _poisson_impl(keys, lam):
    """Poisson counts (int64), one per entry of `lam` (*B, *shape) for keys (*B, 2): NumPy's
    Generator (multiplication for small rates, PTRS transformed rejection for rate >= 10,
    exact for every rate) on the key's Philox stream. -1 where lam is negative, NaN, inf or
    above NumPy's largest rate (jax.random gives -1 for negative and NaN rates)."""
    nb = keys.ndim - 1
    lam = np.asarray(lam, np.float64)
    flat = lam.reshape((int(np.prod(keys.shape[:-1])),) + lam.shape[nb:])

    def draw(k, i):
        l = flat[i]
        valid = (l >= 0) & (l <= _POISSON_LAM_MAX)  # (False for NaN)
        n = np.random.Generator(_philox(k, _POISSON)).poisson(np.where(valid, l, 0.0))
        return np.where(valid, n, -1)
    return _per_key(keys, lam.shape[nb:], np.dtype(np.int64), draw)


random_poisson_p = Primitive("random_poisson")
random_poisson_p.impl = _poisson_impl
random_poisson_p.abstract_eval = lambda keys, lam: ShapedArray(tuple(lam.shape), np.dtype(
    np.int64))
random_poisson_p.jvp = _zero_jvp(random_poisson_p)
random_poisson_p.batch = _two_operand_batch(random_poisson_p)


# --------------------------------------------------------------------------- random_binomial
_BINOMIAL_N_MAX = float(2 ** 62)


@on_host
def _binomial_impl(keys, n, p):
    """Binomial counts as float64, one per entry of `n` and `p` (both (*B, *shape)) for keys
    (*B, 2): NumPy's Generator (inversion for n * min(p, 1 - p) <= 30, BTPE otherwise,
    exact) on the key's Philox stream, with n floored (as jax.random and NumPy). NaN where
    n < 0, n > 2**62 (finite), or p is outside [0, 1] or NaN; inf where n = inf (as
    jax.random)."""
    nb = keys.ndim - 1
    n, p = np.asarray(n, np.float64), np.asarray(p, np.float64)
    count = int(np.prod(keys.shape[:-1]))
    fn = n.reshape((count,) + n.shape[nb:])
    fp = p.reshape((count,) + p.shape[nb:])

    def draw(k, i):
        ni, pi = fn[i], fp[i]
        p_ok = (pi >= 0) & (pi <= 1)
        n_inf = ni == np.inf
        valid = p_ok & (ni >= 0) & (ni <= _BINOMIAL_N_MAX)
        nn = np.floor(np.where(valid, ni, 0.0)).astype(np.int64)
        c = np.random.Generator(_philox(k, _BINOMIAL)).binomial(nn, np.where(valid, pi, 0.0))
        return np.where(valid, np.asarray(c, np.float64), np.where(p_ok & n_inf, np.inf, np.nan))
    return _per_key(keys, n.shape[nb:], np.dtype(np.float64), draw)


random_binomial_p = Primitive("random_binomial")
random_binomial_p.impl = _binomial_impl
random_binomial_p.abstract_eval = lambda keys, n, p: ShapedArray(tuple(n.shape), np.dtype(
    np.float64))
random_binomial_p.jvp = _zero_jvp(random_binomial_p)
random_binomial_p.batch = _two_operand_batch(random_binomial_p)

RANDOM_PRIMITIVES = [random_bits_p, random_split_p, random_fold_in_p, random_gamma_p,
                     random_poisson_p, random_binomial_p]
for _p in RANDOM_PRIMITIVES:
    _p.fresh_output = True
