"""Gradient transformations (optax's formulas). Each is a `GradientTransformation`; states are
NamedTuples of pytrees, step counters int32 0-d arrays. Moments keep the parameters' dtype:
scalars computed from a count (bias corrections, schedule values) are cast to each leaf's
dtype before they touch it."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from .. import numpy as fnp
from .. import random
from ..backend import array_module
from ..tree import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten
from .base import (GradientTransformation, EmptyState, ScalarOrSchedule, Schedule, cast_like,
                   safe_increment, zeros_count, zeros_like_tree, full_like_tree, global_norm,
                   stateless)


# ----------------------------------------------------------------------------- helpers

def _abs_sq(g):
    """`|g|**2`, real for complex `g` (optax's second moments, norms and rms are of the
    modulus; `g * g` would be a complex square)."""
    if np.issubdtype(fnp.asarray(g).dtype, np.complexfloating):
        return fnp.real(g * fnp.conj(g))
    return g * g


# ----------------------------------------------------------------------------- scaling

def scale(step_size: float) -> GradientTransformation:
    """Multiply updates by a constant `step_size`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.scale(-2.0).update(np.ones(2), ())[0]
        array([-2., -2.])
    """
    return stateless(lambda updates, params: tree_map(lambda g: g * step_size, updates))


class ScaleByScheduleState(NamedTuple):
    count: Any


def scale_by_schedule(step_size_fn: Schedule) -> GradientTransformation:
    """Multiply updates by `step_size_fn(count)`; `count` (int32) starts at 0 and counts
    updates.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_schedule(lambda n: 1.0 / (n + 1))
        >>> u, s = t.update(np.ones(1), t.init(np.ones(1)))
        >>> t.update(np.ones(1), s)[0]
        array([0.5])
    """
    def init(params):
        return ScaleByScheduleState(zeros_count(params))

    def update(updates, state, params=None):
        step = step_size_fn(state.count)
        updates = tree_map(lambda g: g * cast_like(step, g), updates)
        return updates, ScaleByScheduleState(safe_increment(state.count))
    return GradientTransformation(init, update)


def scale_by_learning_rate(learning_rate: ScalarOrSchedule,
                           flip_sign: bool = True) -> GradientTransformation:
    """Multiply updates by `-learning_rate` (`+` if not `flip_sign`); a number or a schedule.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.scale_by_learning_rate(0.1).update(np.ones(1), ())[0]
        array([-0.1])
    """
    sign = -1 if flip_sign else 1
    if callable(learning_rate):
        return scale_by_schedule(lambda count: sign * learning_rate(count))
    return scale(sign * learning_rate)


# ----------------------------------------------------------------------------- moments

class TraceState(NamedTuple):
    trace: Any


def trace(decay: float, nesterov: bool = False) -> GradientTransformation:
    """Momentum: `t = g + decay * t`; the update is `t` (or `g + decay * t` if `nesterov`).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.trace(0.5)
        >>> _, s = t.update(np.ones(1), t.init(np.zeros(1)))
        >>> t.update(np.ones(1), s)[0]
        array([1.5])
    """
    def init(params):
        return TraceState(zeros_like_tree(params))

    def update(updates, state, params=None):
        new = tree_map(lambda g, t: g + decay * t, updates, state.trace)
        out = tree_map(lambda g, t: g + decay * t, updates, new) if nesterov else new
        return out, TraceState(new)
    return GradientTransformation(init, update)


class EmaState(NamedTuple):
    count: Any
    ema: Any


def ema(decay: float, debias: bool = True,
        accumulator_dtype: Any = None) -> GradientTransformation:
    """Exponential moving average of the updates: `e = decay * e + (1 - decay) * g`, divided
    by `1 - decay ** count` if `debias`. The average is stored in `accumulator_dtype` (the
    updates' dtype if None); the returned updates are computed before that cast, as in optax.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.ema(0.9)
        >>> t.update(np.ones(1), t.init(np.zeros(1)))[0]
        array([1.])
    """
    def store(tree):
        if accumulator_dtype is None:
            return tree
        return tree_map(lambda e: fnp.asarray(e, dtype=accumulator_dtype), tree)

    def init(params):
        return EmaState(zeros_count(params), store(zeros_like_tree(params)))

    def update(updates, state, params=None):
        new = tree_map(lambda g, e: (1 - decay) * g + decay * e, updates, state.ema)
        count = safe_increment(state.count)
        out = _debias(new, decay, count) if debias else new
        return out, EmaState(count, store(new))
    return GradientTransformation(init, update)


def _debias(moment, decay: float, count):
    correction = 1 - decay ** count
    return tree_map(lambda m: m / cast_like(correction, m), moment)


class ScaleByAdamState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


def _moments(updates, mu, nu, b1, b2):
    mu = tree_map(lambda g, m: (1 - b1) * g + b1 * m, updates, mu)
    nu = tree_map(lambda g, v: (1 - b2) * _abs_sq(g) + b2 * v, updates, nu)
    return mu, nu


def scale_by_adam(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
                  eps_root: float = 0.0, nesterov: bool = False) -> GradientTransformation:
    """Adam's direction `m_hat / (sqrt(v_hat + eps_root) + eps)` with bias-corrected moments
    `m_hat = m / (1 - b1**t)`, `v_hat = v / (1 - b2**t)` (Nesterov momentum for `m_hat` if
    `nesterov`, as in NAdam).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_adam()
        >>> t.update(np.array([2.0]), t.init(np.zeros(1)))[0]
        array([1.])
    """
    def init(params):
        return ScaleByAdamState(zeros_count(params), zeros_like_tree(params),
                                zeros_like_tree(params))

    def update(updates, state, params=None):
        return adam_update(updates, state, b1, b2, eps, eps_root, nesterov)
    return GradientTransformation(init, update)


def adam_update(updates, state, b1, b2, eps, eps_root=0.0, nesterov=False, step_size=1.0):
    """`scale_by_adam`'s update times `step_size` (a scalar, e.g. `-learning_rate`). Without
    Nesterov momentum the bias corrections c1, c2 and `step_size` fold into two scalars:
    `m * (step_size * sqrt(c2) / c1) / (sqrt(v + eps_root * c2) + eps * sqrt(c2))` equals
    `step_size * (m / c1) / (sqrt(v / c2 + eps_root) + eps)` (c2 > 0) in 4 passes over each
    leaf instead of 7: under jit every op is one NumPy call over the whole leaf."""
    mu, nu = _moments(updates, state.mu, state.nu, b1, b2)
    count = safe_increment(state.count)
    if nesterov:
        mu_hat = tree_map(lambda m, g: b1 * m / cast_like(1 - b1 ** (count + 1), m)
                          + (1 - b1) * g / cast_like(1 - b1 ** count, g), mu, updates)
        nu_hat = _debias(nu, b2, count)
        out = tree_map(lambda m, v: m / (fnp.sqrt(v + eps_root) + eps), mu_hat, nu_hat)
        if not (isinstance(step_size, float) and step_size == 1.0):
            out = tree_map(lambda u: u * cast_like(step_size, u), out)
        return out, ScaleByAdamState(count, mu, nu)
    c2 = 1 - b2 ** count
    root = fnp.sqrt(c2)
    scale, eps_scaled = step_size * root / (1 - b1 ** count), eps * root
    no_root = isinstance(eps_root, (int, float)) and eps_root == 0  # (an array when injected)

    unit_step = isinstance(step_size, float) and step_size == 1.0

    def direction(m, v):
        if fnp.asarray(v).dtype == np.float16:
            # float16's narrow exponent range flushes the folded eps_root * c2 and
            # eps * sqrt(c2) to zero where eps_root and eps themselves are not (0 / 0 for a
            # zero gradient): the unfolded formula, in optax's order, there
            m_hat = m / cast_like(1 - b1 ** count, m)
            v_hat = v / cast_like(c2, v)
            if not no_root:
                v_hat = v_hat + cast_like(eps_root, v)
            out = m_hat / (fnp.sqrt(v_hat) + cast_like(eps, v))
            return out if unit_step else out * cast_like(step_size, out)
        if not no_root:
            v = v + cast_like(eps_root * c2, v)
        return m * cast_like(scale, m) / (fnp.sqrt(v) + cast_like(eps_scaled, v))
    return tree_map(direction, mu, nu), ScaleByAdamState(count, mu, nu)


def scale_by_adamax(b1: float = 0.9, b2: float = 0.999,
                    eps: float = 1e-8) -> GradientTransformation:
    """AdaMax: `m_hat / (u + eps)` with `u = max(b2 * u, |g|)` and `m_hat = m / (1 - b1**t)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_adamax()
        >>> t.update(np.array([2.0]), t.init(np.zeros(1)))[0]
        array([1.])
    """
    def init(params):
        return ScaleByAdamState(zeros_count(params), zeros_like_tree(params),
                                zeros_like_tree(params))

    def update(updates, state, params=None):
        count = safe_increment(state.count)
        mu = tree_map(lambda g, m: (1 - b1) * g + b1 * m, updates, state.mu)
        nu = tree_map(lambda g, u: fnp.maximum(b2 * u, fnp.abs(g) + eps), updates, state.nu)
        out = tree_map(lambda m, u: m / u, _debias(mu, b1, count), nu)
        return out, ScaleByAdamState(count, mu, nu)
    return GradientTransformation(init, update)


class ScaleByRmsState(NamedTuple):
    nu: Any


def scale_by_rms(decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0,
                 eps_in_sqrt: bool = True) -> GradientTransformation:
    """RMSProp's scaling: `v = decay * v + (1 - decay) * g**2` (`v` starts at
    `initial_scale`), update `g / sqrt(v + eps)` (or `g / (sqrt(v) + eps)`).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_rms(decay=0.0, eps=0.0)
        >>> t.update(np.array([-2.0]), t.init(np.zeros(1)))[0]
        array([-1.])
    """
    def init(params):
        return ScaleByRmsState(full_like_tree(params, initial_scale))

    def update(updates, state, params=None):
        nu = tree_map(lambda g, v: (1 - decay) * _abs_sq(g) + decay * v, updates, state.nu)
        out = tree_map(lambda g, v: g / _rms_denominator(v, eps, eps_in_sqrt), updates, nu)
        return out, ScaleByRmsState(nu)
    return GradientTransformation(init, update)


def _rms_denominator(v, eps, eps_in_sqrt):
    return fnp.sqrt(v + eps) if eps_in_sqrt else fnp.sqrt(v) + eps


class ScaleByRStdDevState(NamedTuple):
    mu: Any
    nu: Any


def scale_by_stddev(decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0,
                    eps_in_sqrt: bool = True) -> GradientTransformation:
    """Centered RMSProp's scaling: `g / sqrt(v - m**2 + eps)` with moving averages `m` of
    `g` and `v` of `g**2`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_stddev(decay=0.5, eps=0.0)
        >>> t.update(np.array([2.0]), t.init(np.zeros(1)))[0]
        array([2.])
    """
    def init(params):
        return ScaleByRStdDevState(zeros_like_tree(params), full_like_tree(params, initial_scale))

    def update(updates, state, params=None):
        mu = tree_map(lambda g, m: (1 - decay) * g + decay * m, updates, state.mu)
        nu = tree_map(lambda g, v: (1 - decay) * _abs_sq(g) + decay * v, updates, state.nu)
        out = tree_map(lambda g, m, v: g / _rms_denominator(v - _abs_sq(m), eps, eps_in_sqrt),
                       updates, mu, nu)
        return out, ScaleByRStdDevState(mu, nu)
    return GradientTransformation(init, update)


class ScaleByRssState(NamedTuple):
    sum_of_squares: Any


def scale_by_rss(initial_accumulator_value: float = 0.1,
                 eps: float = 1e-7) -> GradientTransformation:
    """Adagrad's scaling: `s += g**2` (from `initial_accumulator_value`), update
    `g / sqrt(s + eps)` where `s > 0`, else 0.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_rss(0.0, 0.0)
        >>> t.update(np.array([-2.0]), t.init(np.zeros(1)))[0]
        array([-1.])
    """
    def init(params):
        return ScaleByRssState(full_like_tree(params, initial_accumulator_value))

    def update(updates, state, params=None):
        s = tree_map(lambda g, a: a + _abs_sq(g), updates, state.sum_of_squares)
        out = tree_map(lambda g, a: g * _rss_inverse_root(a, eps), updates, s)
        return out, ScaleByRssState(s)
    return GradientTransformation(init, update)


def _rss_inverse_root(s, eps):
    """`1 / sqrt(s + eps)` where `s > 0`, else 0; the gradient multiplies it afterwards, so a
    NaN gradient (whose `s` is NaN, not > 0) still gives a NaN update, as in optax, instead
    of a silent 0. The sqrt sees 1 where unused (no 1 / 0 warning for s = eps = 0)."""
    positive = s > 0
    return fnp.where(positive, 1 / fnp.sqrt(fnp.where(positive, s, 1) + eps), 0)


class ScaleByLionState(NamedTuple):
    count: Any
    mu: Any


def scale_by_lion(b1: float = 0.9, b2: float = 0.99) -> GradientTransformation:
    """Lion's direction `sign(b1 * m + (1 - b1) * g)`, then `m = b2 * m + (1 - b2) * g`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_lion()
        >>> t.update(np.array([-3.0, 0.5]), t.init(np.zeros(2)))[0]
        array([-1.,  1.])
    """
    def init(params):
        return ScaleByLionState(zeros_count(params), zeros_like_tree(params))

    def update(updates, state, params=None):
        out = tree_map(lambda g, m: fnp.sign(b1 * m + (1 - b1) * g), updates, state.mu)
        mu = tree_map(lambda g, m: b2 * m + (1 - b2) * g, updates, state.mu)
        return out, ScaleByLionState(safe_increment(state.count), mu)
    return GradientTransformation(init, update)


class ScaleByRAdamState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


def scale_by_radam(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
                   eps_root: float = 0.0, threshold: float = 5.0) -> GradientTransformation:
    """Rectified Adam: with `rho_inf = 2 / (1 - b2) - 1` and
    `rho_t = rho_inf - 2 t b2**t / (1 - b2**t)`, the update is
    `r_t * m_hat / (sqrt(v_hat + eps_root) + eps)` when `rho_t >= threshold`, else `m_hat`,
    where `r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_radam()
        >>> t.update(np.array([2.0]), t.init(np.zeros(1)))[0]
        array([2.])
    """
    rho_inf = 2.0 / (1 - b2) - 1

    def init(params):
        return ScaleByRAdamState(zeros_count(params), zeros_like_tree(params),
                                 zeros_like_tree(params))

    def update(updates, state, params=None):
        mu, nu = _moments(updates, state.mu, state.nu, b1, b2)
        count = safe_increment(state.count)
        t = fnp.asarray(count, dtype=fnp.float64)
        b2t = b2 ** t
        rho = rho_inf - 2 * t * b2t / (1 - b2t)
        # the ratio where it is used (rho >= threshold, as optax's cond), a defined one
        # elsewhere: `where` below picks m_hat there
        safe_rho = fnp.where(rho >= threshold, rho, 5.0)
        r = fnp.sqrt((safe_rho - 4) * (safe_rho - 2) * rho_inf
                     / ((rho_inf - 4) * (rho_inf - 2) * safe_rho))
        mu_hat, nu_hat = _debias(mu, b1, count), _debias(nu, b2, count)
        out = tree_map(lambda m, v: fnp.where(
            rho >= threshold, cast_like(r, m) * m / (fnp.sqrt(v + eps_root) + eps), m),
            mu_hat, nu_hat)
        return out, ScaleByRAdamState(count, mu, nu)
    return GradientTransformation(init, update)


class ScaleByAdaDeltaState(NamedTuple):
    e_g: Any
    e_x: Any


def scale_by_adadelta(rho: float = 0.9, eps: float = 1e-6) -> GradientTransformation:
    """AdaDelta: `E[g²] = rho E[g²] + (1-rho) g²`,
    `dx = sqrt(E[dx²] + eps) / sqrt(E[g²] + eps) * g`, `E[dx²] = rho E[dx²] + (1-rho) dx²`
    (optax's sign: along the gradient, like every scale_by_*; `adadelta` flips it).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_adadelta(rho=0.0, eps=1.0)
        >>> t.update(np.array([2.0]), t.init(np.zeros(1)))[0]  # 2 * sqrt(0 + 1) / sqrt(4 + 1)
        array([0.89442719])
    """
    def init(params):
        return ScaleByAdaDeltaState(zeros_like_tree(params), zeros_like_tree(params))

    def update(updates, state, params=None):
        e_g = tree_map(lambda g, e: rho * e + (1 - rho) * g * g, updates, state.e_g)
        out = tree_map(lambda g, eg, ex: fnp.sqrt(ex + eps) / fnp.sqrt(eg + eps) * g,
                       updates, e_g, state.e_x)
        e_x = tree_map(lambda d, e: rho * e + (1 - rho) * d * d, out, state.e_x)
        return out, ScaleByAdaDeltaState(e_g, e_x)
    return GradientTransformation(init, update)


# ----------------------------------------------------------------------------- factored moments

class FactoredState(NamedTuple):
    count: Any
    v_row: Any   # per leaf: the second moment averaged over its largest axis, or (1,) zeros
    v_col: Any   # per leaf: averaged over its second largest axis, or (1,) zeros
    v: Any       # per leaf not factored: the full second moment, else (1,) zeros


def _decay_rate_pow(step: Any, exponent: float = 0.8) -> Any:
    """Adafactor's second-moment decay at `step` (counted from 0): `1 - (step + 1)**-exponent`,
    so the first step keeps nothing of the zero initial state."""
    return 1.0 - fnp.asarray(step + 1, dtype=fnp.float64) ** (-exponent)


def _factored_dims(shape: tuple, factored: bool, min_dim_size_to_factor: int):
    """`(second largest axis, largest axis)` of `shape` when the second moment is factored
    (`factored`, at least 2-D, both axes >= `min_dim_size_to_factor`), else None. Ties go to
    the lower axis first (a stable sort), as optax's argsort does for small ranks."""
    if not factored or len(shape) < 2:
        return None
    order = np.argsort(shape, kind="stable")
    if shape[order[-2]] < min_dim_size_to_factor:
        return None
    return int(order[-2]), int(order[-1])


def _without_axis(shape: tuple, axis: int) -> tuple:
    return tuple(n for i, n in enumerate(shape) if i != axis)


def _placeholder(dtype) -> Any:
    # optax keeps a (1,) zero where a leaf has no such statistic; same pytree either way
    return np.zeros((1,), dtype)


def _factored_init(p, dims):
    shape, dtype = np.shape(p), fnp.asarray(p).dtype
    if dims is None:
        return _placeholder(dtype), _placeholder(dtype), fnp.zeros_like(p)
    d1, d0 = dims
    v_row = fnp.zeros(_without_axis(shape, d0), dtype)
    v_col = fnp.zeros(_without_axis(shape, d1), dtype)
    return v_row, v_col, _placeholder(dtype)


def _factored_leaf(g, v_row, v_col, v, dtype, dims, decay, epsilon):
    """One leaf's update `g / sqrt(V)` and new statistics, where V is the decayed average of
    `g**2 + epsilon`: kept whole (`dims` None) or as its row and column means, whose outer
    product over their common mean estimates it (Shazeer & Stern 2018)."""
    beta = fnp.asarray(decay, dtype=dtype)
    g2 = _abs_sq(g) + epsilon

    def average(old, new):
        return fnp.asarray(beta * old + (1 - beta) * new, dtype=dtype)
    if dims is None:
        v = average(v, g2)
        return g * v ** -0.5, _placeholder(dtype), _placeholder(dtype), v
    d1, d0 = dims
    v_row = average(v_row, fnp.mean(g2, axis=d0))
    v_col = average(v_col, fnp.mean(g2, axis=d1))
    row_axis_of_d1 = d1 - 1 if d1 > d0 else d1   # where d1 sits once d0 is averaged out
    row_mean = fnp.mean(v_row, axis=row_axis_of_d1, keepdims=True)
    u = g * fnp.expand_dims((v_row / row_mean) ** -0.5, d0) * fnp.expand_dims(v_col ** -0.5, d1)
    return u, v_row, v_col, _placeholder(dtype)


def scale_by_factored_rms(factored: bool = True, decay_rate: float = 0.8, step_offset: int = 0,
                          min_dim_size_to_factor: int = 128, epsilon: float = 1e-30,
                          decay_rate_fn: Callable[[Any, float], Any] = _decay_rate_pow
                          ) -> GradientTransformation:
    """Adafactor's scaling: `g / sqrt(V)`, V the average of `g**2 + epsilon` with decay
    `decay_rate_fn(count - step_offset, decay_rate)` (default `1 - (step + 1)**-decay_rate`).
    For a leaf of >= 2 dims whose two largest axes both have >= `min_dim_size_to_factor`
    elements (and `factored`), V is stored only as its means over each of those two axes
    and estimated as `row * col / mean(row)`; other leaves keep V whole. Statistics keep the
    parameters' dtype; the decay is computed in float64 and cast to each leaf's dtype (optax
    computes it in float32, so float64 runs differ from optax's by ~1e-9 relative). Needs
    `params` (their shapes pick the factored axes).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_factored_rms(min_dim_size_to_factor=2)
        >>> p = np.ones((2, 3))
        >>> state = t.init(p)
        >>> [x.shape for x in (state.v_row, state.v_col, state.v)]
        [(2,), (3,), (1,)]
        >>> t.update(np.full((2, 3), 4.0), state, p)[0]
        array([[1., 1., 1.],
               [1., 1., 1.]])
    """
    def dims_of(p):
        return _factored_dims(np.shape(p), factored, min_dim_size_to_factor)

    def init(params):
        leaves, treedef = tree_flatten(params)
        stats = [_factored_init(p, dims_of(p)) for p in leaves]
        return FactoredState(zeros_count(params), *(tree_unflatten(treedef, [s[i] for s in stats])
                                              for i in range(3)))

    def update(updates, state, params=None):
        _require_params(params, "scale_by_factored_rms")
        decay = decay_rate_fn(state.count - step_offset, decay_rate)
        leaves, treedef = tree_flatten(updates)
        per_leaf = zip(leaves, tree_leaves(state.v_row), tree_leaves(state.v_col),
                       tree_leaves(state.v), tree_leaves(params))
        out = [_factored_leaf(g, vr, vc, v, fnp.asarray(p).dtype, dims_of(p), decay, epsilon)
               for g, vr, vc, v, p in per_leaf]
        trees = [tree_unflatten(treedef, [o[i] for o in out]) for i in range(4)]
        return trees[0], FactoredState(safe_increment(state.count), *trees[1:])
    return GradientTransformation(init, update)


def scale_by_trust_ratio(min_norm: float = 0.0, trust_coefficient: float = 1.0,
                         eps: float = 0.0) -> GradientTransformation:
    """LARS/LAMB's per-leaf trust ratio: `u * trust_coefficient * |p| / (|u| + eps)`, each
    norm at least `min_norm` (optax's safe_norm); ratio 1 where `|p|` or `|u|` is 0.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_trust_ratio()
        >>> t.update(np.array([0.0, 2.0]), (), np.array([3.0, 4.0]))[0]
        array([0., 5.])
    """
    def one(u, p):
        p_norm = fnp.sqrt(fnp.sum(_abs_sq(p)))
        u_norm = fnp.sqrt(fnp.sum(_abs_sq(u)))
        # optax: norms below min_norm count as min_norm, and the ratio is 1 only where a
        # norm is still 0 (never, for min_norm > 0); 1 / 1 there in the unused branch
        p_norm = fnp.where(p_norm <= min_norm, min_norm, p_norm)
        u_norm = fnp.where(u_norm <= min_norm, min_norm, u_norm)
        zero_norm = fnp.logical_or(p_norm == 0, u_norm == 0)
        ratio = trust_coefficient * p_norm / fnp.where(zero_norm, 1.0, u_norm + eps)
        safe = fnp.where(zero_norm, fnp.ones_like(ratio), ratio)
        return u * cast_like(safe, u)

    def fn(updates, params):
        _require_params(params, "scale_by_trust_ratio")
        return tree_map(one, updates, params)
    return stateless(fn)


def scale_by_param_block_rms(min_scale: float = 1e-3) -> GradientTransformation:
    """Multiply each leaf's updates by its parameter's root mean square, at least `min_scale`
    (Adafactor's relative step size).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_param_block_rms()
        >>> t.update(np.ones(2), (), np.array([3.0, -3.0]))[0]
        array([3., 3.])
    """
    def one(u, p):
        return u * cast_like(_safe_rms(p, min_scale), u)

    def fn(updates, params):
        _require_params(params, "scale_by_param_block_rms")
        return tree_map(one, updates, params)
    return stateless(fn)


def _safe_rms(x, min_rms: float):
    """`max(rms(x), min_rms)` whose derivative stays finite where `rms(x)` is 0: the rms
    in the taken branch is of ones there (the sqrt's slope at 0 is infinite, and a `where`
    multiplies the untaken branch's slope by a zero cotangent), and the test compares the
    mean square, with no sqrt to differentiate."""
    small = fnp.mean(_abs_sq(x)) <= min_rms * min_rms
    safe = fnp.where(small, fnp.ones_like(x), x)
    return fnp.where(small, fnp.asarray(min_rms, dtype=safe.dtype),
                     fnp.sqrt(fnp.mean(_abs_sq(safe))))


class AddNoiseState(NamedTuple):
    count: Any
    key: Any


def add_noise(eta: float, gamma: float, seed: int) -> GradientTransformation:
    """Add Gaussian noise of variance `eta / (1 + count)**gamma` to the updates, drawn with
    `fg.random` from a key made from `seed` and folded with the step count (deterministic
    eagerly and under jit alike).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.add_noise(0.0, 0.55, 0)
        >>> t.update(np.ones(2), t.init(np.ones(2)))[0]
        array([1., 1.])
    """
    def init(params):
        return AddNoiseState(zeros_count(params), random.key(seed))

    def update(updates, state, params=None):
        count = safe_increment(state.count)
        std = fnp.sqrt(eta / fnp.asarray(count, dtype=fnp.float64) ** gamma)
        leaves, treedef = tree_flatten(updates)
        keys = random.split(random.fold_in(state.key, count), max(len(leaves), 1))
        noisy = [g + cast_like(std, g) * random.normal(keys[i], np.shape(g), g.dtype)
                 for i, g in enumerate(leaves)]
        return tree_unflatten(treedef, noisy), AddNoiseState(count, state.key)
    return GradientTransformation(init, update)


# ----------------------------------------------------------------------------- clipping

def clip(max_delta: float) -> GradientTransformation:
    """Clip each update element to `[-max_delta, max_delta]`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.clip(1.0).update(np.array([3.0, -0.5, -2.0]), ())[0]
        array([ 1. , -0.5, -1. ])
    """
    return stateless(lambda updates, params: tree_map(
        lambda g: fnp.clip(g, -max_delta, max_delta), updates))


def clip_by_global_norm(max_norm: float) -> GradientTransformation:
    """Rescale all updates together so that their global norm is at most `max_norm`
    (`g * max_norm / norm` when `norm >= max_norm`).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.clip_by_global_norm(1.0).update(np.array([3.0, 4.0]), ())[0]
        array([0.6, 0.8])
    """
    def fn(updates, params):
        norm = global_norm(updates)
        return tree_map(lambda g: fnp.where(norm < max_norm, g,
                                            g / cast_like(norm, g) * max_norm), updates)
    return stateless(fn)


def clip_by_block_rms(threshold: float) -> GradientTransformation:
    """Rescale each leaf so that its root mean square is at most `threshold`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.clip_by_block_rms(1.0).update(np.array([2.0, -2.0]), ())[0]
        array([ 1., -1.])
    """
    def one(g):
        rms = fnp.sqrt(fnp.mean(_abs_sq(g)))
        return g / cast_like(fnp.maximum(1.0, rms / threshold), g)
    return stateless(lambda updates, params: tree_map(one, updates))


class ZeroNansState(NamedTuple):
    found_nan: Any   # per leaf, a 0-d bool: whether the last update had a NaN there


def zero_nans() -> GradientTransformation:
    """Replace NaNs in the updates by zeros; the state records, per leaf, whether the last
    update had a NaN there (optax's `ZeroNansState.found_nan`, for monitoring).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.zero_nans()
        >>> u, state = t.update(np.array([np.nan, 1.0]), t.init(np.zeros(2)))
        >>> u, bool(state.found_nan)
        (array([0., 1.]), True)
    """
    def init(params):
        # (each flag on its parameter's device)
        return ZeroNansState(tree_map(lambda p: array_module(p).asarray(False), params))

    def update(updates, state, params=None):
        found = tree_map(lambda g: fnp.asarray(fnp.any(fnp.isnan(g))), updates)
        out = tree_map(lambda g: fnp.where(fnp.isnan(g), fnp.zeros_like(g), g), updates)
        return out, ZeroNansState(found)
    return GradientTransformation(init, update)


# ----------------------------------------------------------------------------- weight decay

def _require_params(params, name: str) -> None:
    if params is None:
        raise ValueError(f"{name}: the update needs the parameters; call "
                         "`opt.update(grads, state, params)` with params")


def add_decayed_weights(weight_decay: ScalarOrSchedule = 0.0,
                        mask: Any = None) -> GradientTransformation:
    """Add `weight_decay * params` to the updates (only where `mask` is True, if given).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.add_decayed_weights(0.1).update(np.zeros(1), (), np.array([2.0]))[0]
        array([0.2])
    """
    if callable(weight_decay):
        tx = _scheduled_decay(weight_decay)
    else:
        def fn(updates, params):
            _require_params(params, "add_decayed_weights")
            return tree_map(lambda g, p: g + weight_decay * p, updates, params)
        tx = stateless(fn)
    return tx if mask is None else masked(tx, mask)


def _scheduled_decay(weight_decay: Schedule) -> GradientTransformation:
    def init(params):
        return ScaleByScheduleState(zeros_count(params))

    def update(updates, state, params=None):
        _require_params(params, "add_decayed_weights")
        wd = weight_decay(state.count)
        out = tree_map(lambda g, p: g + cast_like(wd, p) * p, updates, params)
        return out, ScaleByScheduleState(safe_increment(state.count))
    return GradientTransformation(init, update)


# ----------------------------------------------------------------------------- masking

class MaskedState(NamedTuple):
    inner_state: Any


def _broadcast_mask(mask, tree):
    """The mask as a pytree of bools with `tree`'s structure (a bool leaf of `mask` covers a
    whole subtree of `tree`)."""
    if isinstance(mask, (bool, np.bool_)):
        return tree_map(lambda _: bool(mask), tree)
    if isinstance(mask, dict) and isinstance(tree, dict) and sorted(mask) == sorted(tree):
        out = tree.copy()  # (tree's own type: an OrderedDict flattens in insertion order)
        for k in tree:
            out[k] = _broadcast_mask(mask[k], tree[k])
        return out
    if isinstance(mask, (list, tuple)) and isinstance(tree, (list, tuple)) \
            and len(mask) == len(tree):
        kids = [_broadcast_mask(m, t) for m, t in zip(mask, tree)]
        return type(tree)(*kids) if hasattr(tree, "_fields") else type(tree)(kids)
    if tree_structure(mask) == tree_structure(tree):
        return tree_map(bool, mask)
    raise ValueError(f"masked: the mask {tree_structure(mask)} is not a pytree prefix of the "
                     f"parameters {tree_structure(tree)}; give a bool per leaf or per subtree")


def _mask_out(tree, mask):
    # masked-out leaves become None (an empty subtree), so the inner transformation never
    # sees them and its state holds nothing for them
    if tree is None:
        return None
    return tree_map(lambda m, x: x if m else None, mask, tree)


def masked(inner: GradientTransformation, mask: Any) -> GradientTransformation:
    """Apply `inner` only to the leaves where `mask` is True; the other updates pass through
    unchanged. `mask` is a pytree of bools (a prefix of the params) or a function
    `params -> mask`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.masked(fg.optim.scale(0.0), {"a": True, "b": False})
        >>> t.update({"a": np.ones(1), "b": np.ones(1)}, t.init({"a": 0, "b": 0}))[0]
        {'a': array([0.]), 'b': array([1.])}
    """
    def mask_for(tree):
        return _broadcast_mask(mask(tree) if callable(mask) else mask, tree)

    def init(params):
        return MaskedState(inner.init(_mask_out(params, mask_for(params))))

    def update(updates, state, params=None):
        m = mask_for(updates if params is None else params)
        inner_updates, inner_state = inner.update(
            _mask_out(updates, m), state.inner_state, _mask_out(params, m))
        merged = tree_map(lambda keep, g, new: new if keep else g, m, updates,
                          _fill_none(inner_updates, m, updates))
        return merged, MaskedState(inner_state)
    return GradientTransformation(init, update)


def _fill_none(partial, mask, full):
    # put the original leaves back where the inner transformation saw None
    flat_mask = tree_leaves(mask)
    flat_full = tree_leaves(full)
    flat_partial = iter(tree_leaves(partial))
    leaves = [next(flat_partial) if m else g for m, g in zip(flat_mask, flat_full)]
    return tree_structure(full).unflatten(leaves)


class MultiTransformState(NamedTuple):
    inner_states: Any


def multi_transform(transforms: dict, param_labels: Any) -> GradientTransformation:
    """Apply `transforms[label]` to the leaves labelled `label`; `param_labels` is a pytree
    of labels (a prefix of the params) or a function `params -> labels`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.multi_transform({"fast": fg.optim.sgd(1.0), "slow": fg.optim.sgd(0.1)},
        ...                              {"a": "fast", "b": "slow"})
        >>> t.update({"a": np.ones(1), "b": np.ones(1)}, t.init({"a": 0, "b": 0}))[0]
        {'a': array([-1.]), 'b': array([-0.1])}
    """
    def label_mask(label):
        def mask(tree):
            labels = param_labels(tree) if callable(param_labels) else param_labels
            return tree_map(lambda lab: lab == label, labels)
        return mask

    parts = {label: masked(tx, label_mask(label)) for label, tx in transforms.items()}

    def init(params):
        labels = param_labels(params) if callable(param_labels) else param_labels
        unknown = set(tree_leaves(labels)) - set(transforms)
        if unknown:
            raise ValueError(f"multi_transform: labels {sorted(map(str, unknown))} have no "
                             f"transformation; the transforms dict has {sorted(transforms)}")
        return MultiTransformState({k: tx.init(params) for k, tx in parts.items()})

    def update(updates, state, params=None):
        new_states = {}
        for label, tx in parts.items():
            updates, new_states[label] = tx.update(updates, state.inner_states[label], params)
        return updates, MultiTransformState(new_states)
    return GradientTransformation(init, update)


# ----------------------------------------------------------------------------- more moments
# (optax's further scale_by_* rules: AMSGrad, AdaBelief, Yogi, NovoGrad, Adan, SM3, Rprop,
# the sign, optimistic gradients, Polyak's step size)

def _leaf_dtype(x):
    return fnp.asarray(x).dtype


def _zeros_in(tree, dtype):
    """Zeros like each leaf of `tree`, in `dtype` (each leaf's own if None)."""
    if dtype is None:
        return zeros_like_tree(tree)
    return tree_map(lambda p: fnp.zeros_like(p, dtype=dtype), tree)


def _store_in(tree, dtype):
    return tree if dtype is None else tree_map(lambda x: fnp.asarray(x, dtype=dtype), tree)


class ScaleByAmsgradState(NamedTuple):
    count: Any
    mu: Any
    nu: Any
    nu_max: Any


def scale_by_amsgrad(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
                     eps_root: float = 0.0, mu_dtype: Any = None,
                     bias_correction_mu: bool = True,
                     bias_correction_nu: bool = True) -> GradientTransformation:
    """AMSGrad: Adam's moments, but the denominator uses the running maximum of the
    (bias-corrected) second moment: `nu_max = max(nu_max, v_hat)`, update
    `m_hat / (sqrt(nu_max + eps_root) + eps)`. `mu_dtype` is the first moment's storage
    dtype (the params' if None); either bias correction may be switched off.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_amsgrad()
        >>> u, s = t.update(np.array([2.0]), t.init(np.zeros(1)))
        >>> u, s.nu_max
        (array([1.]), array([4.]))
    """
    def init(params):
        return ScaleByAmsgradState(zeros_count(params), _zeros_in(params, mu_dtype),
                                   zeros_like_tree(params), zeros_like_tree(params))

    def update(updates, state, params=None):
        mu, nu = _moments(updates, state.mu, state.nu, b1, b2)
        count = safe_increment(state.count)
        mu_hat = _debias(mu, b1, count) if bias_correction_mu else mu
        nu_hat = _debias(nu, b2, count) if bias_correction_nu else nu
        nu_max = tree_map(fnp.maximum, state.nu_max, nu_hat)
        out = tree_map(lambda m, v: m / (fnp.sqrt(v + eps_root) + eps), mu_hat, nu_max)
        return out, ScaleByAmsgradState(count, _store_in(mu, mu_dtype), nu, nu_max)
    return GradientTransformation(init, update)


class ScaleByBeliefState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


def scale_by_belief(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-16,
                    eps_root: float = 1e-16, *, nesterov: bool = False
                    ) -> GradientTransformation:
    """AdaBelief: the second moment is of the prediction error `g - m` (the "belief"),
    `s = b2 s + (1 - b2) |g - m|**2 + eps_root` (eps_root is stored in s, as in optax), and
    the update `m_hat / (sqrt(s_hat) + eps)` with bias-corrected moments (Nesterov's
    `m_hat` if `nesterov`).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_belief(eps=0.0, eps_root=0.0)
        >>> t.update(np.array([2.0]), t.init(np.zeros(1)))[0]  # m_hat / abs(g - m) = 2 / 1.8
        array([1.11111111])
    """
    def init(params):
        return ScaleByBeliefState(zeros_count(params), zeros_like_tree(params),
                                  zeros_like_tree(params))

    def update(updates, state, params=None):
        mu = tree_map(lambda g, m: (1 - b1) * g + b1 * m, updates, state.mu)
        nu = tree_map(lambda g, m, v: (1 - b2) * _abs_sq(g - m) + b2 * v + eps_root,
                      updates, mu, state.nu)
        count = safe_increment(state.count)
        if nesterov:
            mu_hat = tree_map(lambda m, g: b1 * m + (1 - b1) * g,
                              _debias(mu, b1, safe_increment(count)),
                              _debias(updates, b1, count))
        else:
            mu_hat = _debias(mu, b1, count)
        out = tree_map(lambda m, v: m / (fnp.sqrt(v) + eps), mu_hat, _debias(nu, b2, count))
        return out, ScaleByBeliefState(count, mu, nu)
    return GradientTransformation(init, update)


def scale_by_yogi(b1: float = 0.9, b2: float = 0.999, eps: float = 1e-3, eps_root: float = 0.0,
                  initial_accumulator_value: float = 1e-6) -> GradientTransformation:
    """Yogi: Adam with an additive second-moment update
    `v = v - (1 - b2) sign(v - g**2) g**2`; both moments start at
    `initial_accumulator_value`; update `m_hat / (sqrt(v_hat + eps_root) + eps)` (state
    `ScaleByAdamState`, as in optax).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_yogi(eps=0.0, initial_accumulator_value=0.0)
        >>> t.update(np.array([2.0]), t.init(np.zeros(1)))[0]
        array([1.])
    """
    def init(params):
        return ScaleByAdamState(zeros_count(params),
                                full_like_tree(params, initial_accumulator_value),
                                full_like_tree(params, initial_accumulator_value))

    def update(updates, state, params=None):
        mu = tree_map(lambda g, m: (1 - b1) * g + b1 * m, updates, state.mu)
        nu = tree_map(lambda g, v: v - (1 - b2) * fnp.sign(v - _abs_sq(g)) * _abs_sq(g),
                      updates, state.nu)
        count = safe_increment(state.count)
        out = tree_map(lambda m, v: m / (fnp.sqrt(v + eps_root) + eps),
                       _debias(mu, b1, count), _debias(nu, b2, count))
        return out, ScaleByAdamState(count, mu, nu)
    return GradientTransformation(init, update)


class ScaleByNovogradState(NamedTuple):
    count: Any
    mu: Any
    nu: Any   # per leaf, a 0-d array: the average squared norm of the leaf's gradient


def scale_by_novograd(b1: float = 0.9, b2: float = 0.25, eps: float = 1e-8,
                      eps_root: float = 0.0, weight_decay: float = 0.0,
                      mu_dtype: Any = None) -> GradientTransformation:
    """NovoGrad: a layer-wise second moment, one number per leaf,
    `nu = b2 nu + (1 - b2) |g|**2` (`|g|**2` itself at the first step), and momentum
    `m = b1 m + g / (sqrt(nu + eps_root) + eps) + weight_decay * p` (no `b1 m` at the first
    step); the update is `m`. Needs `params` when `weight_decay` is not 0.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_novograd(eps=0.0)
        >>> u, s = t.update(np.array([3.0, 4.0]), t.init(np.zeros(2)))
        >>> u, s.nu
        (array([0.6, 0.8]), array(25.))
    """
    def init(params):
        nu = tree_map(lambda p: array_module(p).zeros((), _leaf_dtype(p)), params)
        return ScaleByNovogradState(zeros_count(params), _zeros_in(params, mu_dtype), nu)

    def update(updates, state, params=None):
        no_decay = isinstance(weight_decay, (int, float)) and weight_decay == 0
        if params is None:
            if not no_decay:
                _require_params(params, "scale_by_novograd")
            params = updates   # (multiplied by a zero weight decay below: not used)
        count = safe_increment(state.count)
        first = count == 1

        def one_nu(g, n):
            sq = fnp.sum(_abs_sq(g))
            return fnp.asarray(fnp.where(first, sq, (1 - b2) * sq + b2 * n), dtype=n.dtype)

        nu = tree_map(one_nu, updates, state.nu)

        def one_mu(g, p, n, m):
            step = g / (fnp.sqrt(n + eps_root) + eps)
            if not no_decay:
                step = step + weight_decay * p
            return fnp.where(first, step, b1 * m + step)

        mu = _store_in(tree_map(one_mu, updates, params, nu, state.mu), mu_dtype)
        return mu, ScaleByNovogradState(count, mu, nu)
    return GradientTransformation(init, update)


class ScaleByAdanState(NamedTuple):
    m: Any
    v: Any
    n: Any
    g: Any
    t: Any


def scale_by_adan(b1: float = 0.98, b2: float = 0.92, b3: float = 0.99, eps: float = 1e-8,
                  eps_root: float = 0.0) -> GradientTransformation:
    """Adan (Nesterov momentum from gradient differences): with `d = g - g_prev` (0 at the
    first step), `m = b1 m + (1-b1) g`, `v = b2 v + (1-b2) d`,
    `n = b3 n + (1-b3) |g + (1-b2) d|**2`, the update is
    `(m_hat + (1-b2) v_hat) / (sqrt(n_hat + eps_root) + eps)` with bias-corrected moments.
    Optax's order of the state fields (m, v, n, g, t).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_adan(eps=0.0)
        >>> t.update(np.array([2.0]), t.init(np.zeros(1)))[0]
        array([1.])
    """
    def init(params):
        return ScaleByAdanState(zeros_like_tree(params), zeros_like_tree(params),
                                zeros_like_tree(params), zeros_like_tree(params),
                                zeros_count(params))

    def update(updates, state, params=None):
        first = state.t == 0
        diff = tree_map(lambda g, prev: fnp.where(first, fnp.zeros_like(g), g - prev),
                        updates, state.g)
        m = tree_map(lambda g, m: (1 - b1) * g + b1 * m, updates, state.m)
        v = tree_map(lambda d, v: (1 - b2) * d + b2 * v, diff, state.v)
        n = tree_map(lambda g, d, n: (1 - b3) * _abs_sq(g + (1 - b2) * d) + b3 * n,
                     updates, diff, state.n)
        t = safe_increment(state.t)
        out = tree_map(lambda m, v, n: (m + (1 - b2) * v) / (fnp.sqrt(n + eps_root) + eps),
                       _debias(m, b1, t), _debias(v, b2, t), _debias(n, b3, t))
        return out, ScaleByAdanState(m, v, n, updates, t)
    return GradientTransformation(init, update)


class ScaleBySM3State(NamedTuple):
    mu: Any   # per leaf, a list: one vector per axis (the accumulator's max over the others)
    nu: Any


def _sm3_axes_max(a):
    """The per-axis statistics of SM3's accumulator `a`: for each axis, the max over the
    others (for a vector, the vector itself)."""
    if a.ndim < 2:
        return [a]
    return [fnp.max(a, axis=tuple(j for j in range(a.ndim) if j != i)) for i in range(a.ndim)]


def scale_by_sm3(b1: float = 0.9, b2: float = 1.0, eps: float = 1e-8) -> GradientTransformation:
    """SM3 (memory-efficient adaptive scaling): a leaf of rank >= 2 keeps one vector per
    axis; its accumulator is `c g**2 + b2 * min_i(mu_i)` (the vectors broadcast along their
    axis; `c = 1 - b2`, or 1 when b2 = 1), a vector keeps it whole. The update
    `g / sqrt(accumulator + eps)` (0 where the accumulator is 0) enters a momentum
    `nu = b1 nu + (1 - b1) u`, which is returned; each `mu_i` becomes the accumulator's max
    over the other axes. Real parameters only.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_sm3(b1=0.0, eps=0.0)
        >>> state = t.init(np.zeros((2, 3)))
        >>> [m.shape for m in state.mu]
        [(2,), (3,)]
        >>> t.update(np.full((2, 3), -2.0), state)[0]
        array([[-1., -1., -1.],
               [-1., -1., -1.]])
    """
    coeff = 1.0 - b2 if b2 != 1.0 else 1.0

    def init(params):
        leaves, treedef = tree_flatten(params)
        for p in leaves:
            if np.issubdtype(_leaf_dtype(p), np.complexfloating):
                raise ValueError("scale_by_sm3: complex parameters are not supported (SM3's "
                                 "accumulators are of g**2); split them into real and "
                                 "imaginary parts")
        mu = [[fnp.zeros_like(p, shape=(np.shape(p)[i],)) for i in range(np.ndim(p))]
              for p in leaves]
        return ScaleBySM3State(tree_unflatten(treedef, mu), zeros_like_tree(params))

    def update(updates, state, params=None):
        leaves, treedef = tree_flatten(updates)
        flat_mu = iter(tree_leaves(state.mu))
        accums, scaled = [], []
        for g in leaves:
            vs = [next(flat_mu) for _ in range(g.ndim)]
            if g.ndim < 2:
                old = vs[0]
            else:
                shaped = [fnp.reshape(v, tuple(n if j == i else 1 for j, n in enumerate(g.shape)))
                          for i, v in enumerate(vs)]
                old = shaped[0]
                for v in shaped[1:]:
                    old = fnp.minimum(old, v)
            a = coeff * g ** 2 + b2 * old
            positive = a > 0
            inv = fnp.where(positive, 1 / fnp.sqrt(fnp.where(positive, a, 1) + eps), 0)
            accums.append(_sm3_axes_max(a))
            scaled.append(g * inv)
        nu = tree_map(lambda u, n: (1 - b1) * u + b1 * n, tree_unflatten(treedef, scaled),
                      state.nu)
        return nu, ScaleBySM3State(tree_unflatten(treedef, accums), nu)
    return GradientTransformation(init, update)


class ScaleByRpropState(NamedTuple):
    step_sizes: Any
    prev_updates: Any


def scale_by_rprop(learning_rate: float, eta_minus: float = 0.5, eta_plus: float = 1.2,
                   min_step_size: float = 1e-6,
                   max_step_size: float = 50.0) -> GradientTransformation:
    """Rprop: per-element step sizes (starting at `learning_rate`) grow by `eta_plus` while
    the gradient keeps its sign and shrink by `eta_minus` when it flips, clipped to
    `[min_step_size, max_step_size]`; each step records `step_size * sign(g)` (0 after a
    sign flip, which also skips the next comparison). As optax 0.2.8 does, the update
    returned is the step recorded the call before (0 at the first call, and 0 where the sign
    just flipped): the steps lag one call behind. Along the gradient, as optax's: `rprop`
    flips the sign.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_rprop(0.1)
        >>> u, s = t.update(np.array([3.0, -1.0]), t.init(np.zeros(2)))
        >>> u, s.prev_updates
        (array([0., 0.]), array([ 0.1, -0.1]))
        >>> u, s = t.update(np.array([2.0, 1.0]), s)   # the second sign flipped
        >>> u, s.step_sizes
        (array([0.1, 0. ]), array([0.12, 0.05]))
    """
    def init(params):
        return ScaleByRpropState(full_like_tree(params, learning_rate), zeros_like_tree(params))

    def update(updates, state, params=None):
        prod = tree_map(lambda g, prev: g * prev, updates, state.prev_updates)
        steps = tree_map(
            lambda s, step: fnp.where(s == 0, step, fnp.clip(
                step * fnp.where(s > 0, eta_plus, eta_minus).astype(step.dtype),
                min_step_size, max_step_size)),
            prod, state.step_sizes)
        prev = tree_map(lambda s, g, step: fnp.where(s < 0, fnp.zeros_like(g),
                                                      step * fnp.sign(g)),
                        prod, updates, steps)
        # optax 0.2.8 returns the *previous* step's update (0 after a sign flip), so its
        # steps lag one behind the step sizes; kept, for the same numbers as optax
        out = tree_map(lambda s, u: fnp.where(s < 0, fnp.zeros_like(u), u), prod,
                       state.prev_updates)
        return out, ScaleByRpropState(steps, prev)
    return GradientTransformation(init, update)


def scale_by_sign() -> GradientTransformation:
    """The sign of each update element (signSGD's direction).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.scale_by_sign().update(np.array([-3.0, 0.0, 0.5]), ())[0]
        array([-1.,  0.,  1.])
    """
    return stateless(lambda updates, params: tree_map(fnp.sign, updates))


class ScaleByOptimisticGradientState(NamedTuple):
    is_initial_step: Any
    previous_gradient: Any


def scale_by_optimistic_gradient(alpha: float = 1.0,
                                 beta: float = 1.0) -> GradientTransformation:
    """Optimistic gradient: `(alpha + beta) g_t - beta g_{t-1}` (with `g_{t-1} = g_t` at the
    first step), for min-max games.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_optimistic_gradient()
        >>> u, s = t.update(np.array([1.0]), t.init(np.zeros(1)))
        >>> u, t.update(np.array([3.0]), s)[0]
        (array([1.]), array([5.]))
    """
    def init(params):
        return ScaleByOptimisticGradientState(array_module(*tree_leaves(params)).asarray(True),
                                              zeros_like_tree(params))

    def update(updates, state, params=None):
        first = state.is_initial_step
        out = tree_map(lambda g, prev: (alpha + beta) * g - beta * fnp.where(first, g, prev),
                       updates, state.previous_gradient)
        return out, ScaleByOptimisticGradientState(fnp.logical_and(first, False), updates)
    return GradientTransformation(init, update)


def scale_by_polyak(f_min: float = 0.0, max_learning_rate: float = 1.0, eps: float = 0.0,
                    variant: str = "sps") -> GradientTransformation:
    """Polyak's step size: the updates times
    `min((value - f_min) / (|g|**2 + eps), max_learning_rate)` (`|g|` the global norm; 0
    when `|g|**2 + eps` is at most float64's machine epsilon). The loss `value` comes as a
    keyword: `update(grads, state, params, value=loss)` (`chain` passes it on). Variant
    `"sps+"` clips `value - f_min` at 0.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_polyak()
        >>> t.update(np.array([3.0, 4.0]), t.init(np.zeros(2)), value=np.array(5.0))[0]
        array([0.6, 0.8])
    """
    if variant not in ("sps", "sps+"):
        raise ValueError(f"scale_by_polyak: variant={variant!r}; use 'sps' or 'sps+'")

    def update(updates, state, params=None, *, value, **extra_args):
        leaves = tree_leaves(updates)
        sq = fnp.asarray(sum(fnp.sum(_abs_sq(g)) for g in leaves))
        gap = fnp.asarray(value - f_min, dtype=sq.dtype)
        if variant == "sps+":
            gap = fnp.maximum(gap, 0)
        tiny = sq + eps <= np.finfo(float).eps
        step = fnp.where(tiny, 0.0, fnp.minimum(gap / fnp.where(tiny, 1, sq + eps),
                                               max_learning_rate))
        return tree_map(lambda g: g * cast_like(step, g), updates), state
    return GradientTransformation(lambda params: EmptyState(), update)


# ----------------------------------------------------------------------------- more stateless

def centralize() -> GradientTransformation:
    """Gradient centralization: subtract from each leaf of rank >= 2 its mean over all axes
    but the first; vectors pass unchanged.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.centralize().update(np.array([[1.0, 3.0], [0.0, 4.0]]), ())[0]
        array([[-1.,  1.],
               [-2.,  2.]])
    """
    def one(g):
        if np.ndim(g) < 2:
            return g
        return g - fnp.mean(g, axis=tuple(range(1, np.ndim(g))), keepdims=True)
    return stateless(lambda updates, params: tree_map(one, updates))


def set_to_zero() -> GradientTransformation:
    """Zero updates (freezes the parameters it is applied to, e.g. in `multi_transform`).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.set_to_zero().update(np.array([1.0, -2.0]), ())[0]
        array([0., 0.])
    """
    return stateless(lambda updates, params: zeros_like_tree(updates))


class NonNegativeParamsState(NamedTuple):
    """The (empty) state of `keep_params_nonnegative`."""


def keep_params_nonnegative() -> GradientTransformation:
    """Modify updates so that no parameter goes below 0: where `p + u < 0` the update is
    `-p` (the parameter lands on 0). Needs `params`; use it last in a chain.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.keep_params_nonnegative()
        >>> t.update(np.array([-2.0, -0.5]), t.init(np.ones(2)), np.ones(2))[0]
        array([-1. , -0.5])
    """
    def update(updates, state, params=None):
        _require_params(params, "keep_params_nonnegative")
        return tree_map(lambda u, p: fnp.where(p + u < 0.0, -p, u), updates, params), state
    return GradientTransformation(lambda params: NonNegativeParamsState(), update)


def _safe_norm(x, min_norm: float):
    """`max(|x|, min_norm)` (the L2 norm of all of x) with a finite derivative at 0, as
    optax's safe_norm: the norm in the taken branch is of ones where `|x| <= min_norm`."""
    small = fnp.sum(_abs_sq(x)) <= min_norm * min_norm
    safe = fnp.where(small, fnp.ones_like(x), x)
    return fnp.where(small, fnp.asarray(min_norm, dtype=fnp.real(safe).dtype),
                     fnp.sqrt(fnp.sum(_abs_sq(safe))))


def scale_by_param_block_norm(min_scale: float = 1e-3) -> GradientTransformation:
    """Multiply each leaf's updates by its parameter's L2 norm, at least `min_scale`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.scale_by_param_block_norm()
        >>> t.update(np.ones(2), (), np.array([3.0, -4.0]))[0]
        array([5., 5.])
    """
    def fn(updates, params):
        _require_params(params, "scale_by_param_block_norm")
        return tree_map(lambda u, p: u * cast_like(_safe_norm(p, min_scale), u), updates, params)
    return stateless(fn)


def _unitwise_norm(x, axis):
    """optax's unitwise_norm: the L2 norm of each unit, broadcast to `x`'s shape; the units
    are the slices along `axis`, or by rank: the whole of a vector (or of anything that
    squeezes to one), axis 0 of a rank 2 or 3 leaf, axes (0, 1, 2) of rank 4, (0, 1, 2, 3)
    of rank 5."""
    ndim = np.ndim(x)
    if axis is None:
        if sum(n != 1 for n in np.shape(x)) <= 1:
            axis = tuple(range(ndim))
        elif ndim in (2, 3):
            axis = 0
        elif ndim in (4, 5):
            axis = tuple(range(ndim - 1))
        else:
            raise ValueError(f"adaptive_grad_clip: a leaf of shape {np.shape(x)} has no default "
                             f"unit (ranks 1 to 5 have one); pass axis=... to name the axes "
                             f"each unit's norm is taken over")
    sq = fnp.sum(_abs_sq(x), axis=axis, keepdims=True)
    return fnp.broadcast_to(fnp.sqrt(sq), np.shape(x))


def adaptive_grad_clip(clipping: float, eps: float = 1e-3,
                       axis: int | tuple | None = None) -> GradientTransformation:
    """Adaptive gradient clipping (NFNets): each unit of the gradient whose norm exceeds
    `clipping * max(|p_unit|, eps)` is rescaled to that norm. Units are slices along `axis`
    (by default by rank: a whole vector, axis 0 of a matrix, the kernel axes of a
    convolution). Needs `params`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.adaptive_grad_clip(0.5)
        >>> t.update(np.array([3.0, 4.0]), (), np.array([0.0, 2.0]))[0]
        array([0.6, 0.8])
    """
    def one(g, p):
        g_norm, p_norm = _unitwise_norm(g, axis), _unitwise_norm(p, axis)
        max_norm = clipping * fnp.maximum(p_norm, eps)
        clipped = g * cast_like(max_norm / fnp.maximum(g_norm, 1e-6), g)
        return fnp.where(g_norm < max_norm, g, clipped)

    def fn(updates, params):
        _require_params(params, "adaptive_grad_clip")
        return tree_map(one, updates, params)
    return stateless(fn)


def stateless_with_tree_map(f: Callable[[Any, Any], Any]) -> GradientTransformation:
    """A stateless transformation from a per-leaf `f(update, param) -> update` (`param` is
    None when the update is called without params).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.stateless_with_tree_map(lambda u, p: u * 2)
        >>> t.update({"a": np.ones(1)}, t.init({"a": np.ones(1)}))[0]
        {'a': array([2.])}
    """
    def fn(updates, params):
        if params is None:
            return tree_map(lambda u: f(u, None), updates)
        return tree_map(f, updates, params)
    return stateless(fn)


class ApplyEvery(NamedTuple):
    """The state of `apply_every` (optax's name): the step count modulo k and the running
    sum of the updates."""
    count: Any
    grad_acc: Any


def apply_every(k: int = 1) -> GradientTransformation:
    """Accumulate updates and apply their sum every `k` steps (zero updates in between).
    `MultiSteps` is the fuller form (a mean, the inner optimizer's state kept).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.apply_every(2)
        >>> u, s = t.update(np.array([1.0]), t.init(np.zeros(1)))
        >>> u, t.update(np.array([3.0]), s)[0]
        (array([0.]), array([4.]))
    """
    def init(params):
        return ApplyEvery(zeros_count(params), zeros_like_tree(params))

    def update(updates, state, params=None):
        c = state.count % k
        keep, emit = c != 0, c == k - 1
        acc = tree_map(lambda g, a: cast_like(keep, a) * a + g, updates, state.grad_acc)
        out = tree_map(lambda a: cast_like(emit, a) * a, acc)
        count = (safe_increment(state.count) % k).astype(np.int32)
        return out, ApplyEvery(count, acc)
    return GradientTransformation(init, update)


def _scale_gradient_fwd(inputs, scale):
    return inputs, None


def _scale_gradient_bwd(scale, residuals, ct):
    return (tree_map(lambda c: fnp.zeros_like(c) if scale == 0 else c * scale, ct),)


def scale_gradient(inputs: Any, scale: float) -> Any:
    """`inputs` unchanged, but a gradient flowing back through them is multiplied by
    `scale` (0: stops it, as `fg.stop_gradient`). A pytree of arrays in, the same out.

    Example:
        >>> import fungrad as fg, fungrad.numpy as fnp
        >>> fg.grad(lambda x: fg.optim.scale_gradient(x, 0.5) ** 2)(3.0)
        array(3.)
    """
    if scale == 1.0:
        return inputs
    return _scale_gradient(inputs, scale)


def _make_scale_gradient():
    from ..transforms.custom import custom_vjp

    def ident(inputs, scale):
        return inputs
    fn = custom_vjp(ident, nondiff_argnums=(1,))
    fn.defvjp(_scale_gradient_fwd, _scale_gradient_bwd)
    return fn


_scale_gradient = _make_scale_gradient()


def per_example_global_norm_clip(grads: Any, l2_norm_clip: float) -> tuple:
    """Clip per-example gradients (leading axis: the example) to global norm at most
    `l2_norm_clip` each, and sum them (as in DP-SGD). Returns `(summed_grads, num_clipped)`:
    the leaves without their batch axis, and how many examples were clipped.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> g = {"w": np.array([[3.0, 4.0], [0.3, 0.4]])}
        >>> summed, n = fg.optim.per_example_global_norm_clip(g, 1.0)
        >>> summed["w"], int(n)
        (array([0.9, 1.2]), 1)
    """
    leaves = tree_leaves(grads)
    if not leaves or any(np.ndim(g) == 0 for g in leaves) \
            or len({np.shape(g)[0] for g in leaves}) != 1:
        raise ValueError("per_example_global_norm_clip: every leaf of grads needs the same "
                         f"leading batch axis (the examples), got shapes "
                         f"{[np.shape(g) for g in leaves]}")
    sq = sum(fnp.sum(_abs_sq(g), axis=tuple(range(1, np.ndim(g)))) for g in leaves)
    norms = fnp.sqrt(fnp.asarray(sq))
    zero = norms == 0
    ratio = fnp.minimum(l2_norm_clip / fnp.where(zero, 1, norms), 1.0)
    # optax: nan_to_num(min(clip / norm, 1), nan=1): a zero norm gives 1, as a NaN one
    multipliers = fnp.where(fnp.logical_or(zero, fnp.isnan(ratio)), 1.0, ratio)
    num_clipped = fnp.sum(multipliers < 1.0)
    summed = tree_map(lambda g: fnp.tensordot(cast_like(multipliers, g), g, axes=1), grads)
    return summed, num_clipped
