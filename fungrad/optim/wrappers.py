"""Transformations that wrap another one: gradient accumulation (`MultiSteps`), skipping
non-finite steps (`apply_if_finite`), hyperparameters in the state (`inject_hyperparams`).
Branches on traced values are `fnp.where` selects over whole states: both sides are
computed, one is kept, so a step stays one jit trace."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..backend import array_module
from ..core.dtypes import is_inexact
from ..tree import tree_map, tree_leaves
from .base import (GradientTransformation, cast_like, safe_increment, zeros_count,
                   zeros_like_tree, value_at)


def _select(pred, on_true, on_false):
    """`on_true` where the scalar `pred` holds, else `on_false`, leaf by leaf."""
    return tree_map(lambda a, b: fnp.where(pred, a, b), on_true, on_false)


def all_finite(tree: Any) -> Any:
    """True (a 0-d bool array) when every element of every leaf is finite.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> bool(fg.optim.all_finite({"a": np.array([1.0, np.inf])}))
        False
    """
    out = fnp.asarray(True)
    for x in tree_leaves(tree):
        out = fnp.logical_and(out, fnp.all(fnp.isfinite(x)))
    return out


class MultiStepsState(NamedTuple):
    mini_step: Any
    gradient_step: Any
    inner_opt_state: Any
    acc_grads: Any
    skip_state: Any = ()


class MultiSteps:
    """Gradient accumulation: average (or sum) the gradients of `every_k_schedule`
    consecutive calls and apply `opt` once to them; the calls in between return zero updates.
    `every_k_schedule` is an int or a function of the number of applied steps.
    `should_skip_update_fn(updates, gradient_step, params) -> (skip, skip_state)` may drop a
    mini-step (e.g. a non-finite one). The running sum or mean is stored in
    `accumulator_dtype` (float32 by default, as optax: wider than bfloat16 gradients; None
    keeps each parameter's dtype, e.g. for float64 accuracy; complex leaves stay complex)
    and cast back to the gradients' dtype before `opt` sees it.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.MultiSteps(fg.optim.sgd(1.0), every_k_schedule=2)
        >>> s = opt.init(np.zeros(1))
        >>> u, s = opt.update(np.array([1.0]), s)
        >>> u
        array([0.])
        >>> opt.update(np.array([3.0]), s)[0]
        array([-2.])
    """

    def __init__(self, opt: GradientTransformation, every_k_schedule: int | Callable,
                 use_grad_mean: bool = True,
                 should_skip_update_fn: Callable | None = None,
                 accumulator_dtype: Any = np.float32):
        if not callable(every_k_schedule) and (
                isinstance(every_k_schedule, (bool, np.bool_))
                or not isinstance(every_k_schedule, (int, np.integer)) or every_k_schedule < 1):
            raise ValueError(f"MultiSteps: every_k_schedule must be an integer >= 1 (apply "
                             f"the inner optimizer every k steps) or a schedule step -> k, "
                             f"got {every_k_schedule!r}")
        self._opt = opt
        self._every_k = every_k_schedule
        self._use_grad_mean = use_grad_mean
        self._should_skip = should_skip_update_fn
        self._acc_dtype = None if accumulator_dtype is None else np.dtype(accumulator_dtype)

    def _acc_dtype_of(self, leaf) -> Any:
        """The dtype `leaf`'s accumulated gradient is stored in."""
        dtype = fnp.asarray(leaf).dtype
        if self._acc_dtype is None or np.issubdtype(dtype, np.complexfloating):
            return dtype  # (a real accumulator would drop the imaginary part)
        return self._acc_dtype

    def _store(self, acc: Any) -> Any:
        return tree_map(lambda a: fnp.asarray(a, dtype=self._acc_dtype_of(a)), acc)

    def init(self, params: Any) -> MultiStepsState:
        """The initial state: counters at 0, zero accumulated gradients, `opt`'s state."""
        skip_state = ()
        if self._should_skip is not None:
            skip_state = self._should_skip(zeros_like_tree(params), zeros_count(params), params)[1]
        acc = tree_map(lambda p: fnp.zeros_like(p, dtype=self._acc_dtype_of(p)), params)
        return MultiStepsState(zeros_count(params), zeros_count(params), self._opt.init(params),
                               acc, skip_state)

    def update(self, updates: Any, state: MultiStepsState, params: Any = None):
        """Accumulate `updates`; on every k-th call return `opt`'s update of the mean."""
        k = value_at(self._every_k, state.gradient_step)
        def accumulate(g, a):
            # in the wider of the gradient's and the accumulator's dtypes (bfloat16
            # gradients add into float32), stored back in the accumulator's below
            a = self._widen(a, g)
            if self._use_grad_mean:
                return a + (g - a) / cast_like(state.mini_step + 1, a)
            return a + g
        acc = tree_map(accumulate, updates, state.acc_grads)
        emit = state.mini_step >= k - 1
        inner_updates, inner_state = self._opt.update(
            tree_map(lambda a, g: fnp.asarray(a, dtype=fnp.asarray(g).dtype), acc, updates),
            state.inner_opt_state, params)
        acc = self._store(acc)
        zeros = zeros_like_tree(inner_updates)
        new = MultiStepsState(
            fnp.where(emit, 0, state.mini_step + 1).astype(np.int32),
            fnp.where(emit, safe_increment(state.gradient_step), state.gradient_step),
            _select(emit, inner_state, state.inner_opt_state),
            _select(emit, zeros_like_tree(acc), acc),
            state.skip_state)
        out = _select(emit, inner_updates, zeros)
        if self._should_skip is None:
            return out, new
        skip, skip_state = self._should_skip(updates, state.gradient_step, params)
        new = _select(skip, state, new)._replace(skip_state=skip_state)
        return _select(skip, zeros, out), new

    @staticmethod
    def _widen(acc, grad):
        """`acc` in the promoted dtype of `acc` and `grad` (ml_dtypes' bfloat16 included)."""
        wide = np.promote_types(fnp.asarray(acc).dtype, fnp.asarray(grad).dtype)
        return fnp.asarray(acc, dtype=wide)

    def has_updated(self, state: MultiStepsState) -> Any:
        """True when the last `update` applied `opt` (its counter was just reset)."""
        return fnp.logical_and(state.mini_step == 0, state.gradient_step > 0)

    def gradient_transformation(self) -> GradientTransformation:
        """This accumulator as a plain `GradientTransformation`."""
        return GradientTransformation(self.init, self.update)


def skip_not_finite(updates: Any, gradient_step: Any, params: Any) -> tuple:
    """A `should_skip_update_fn` for `MultiSteps`: skip a mini-step whose gradients are not all
    finite. The skip state (kept in `MultiStepsState.skip_state`, as optax's) is
    `{"should_skip": bool, "num_not_finite": count of non-finite elements}`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> skip, info = fg.optim.skip_not_finite(np.array([np.nan, 1.0, np.inf]), 0, None)
        >>> bool(skip), int(info["num_not_finite"])
        (True, 2)
    """
    num_not_finite = fnp.asarray(0)
    for x in tree_leaves(updates):
        num_not_finite = num_not_finite + fnp.sum(fnp.logical_not(fnp.isfinite(x)))
    num_not_finite = fnp.asarray(num_not_finite)   # (0-d arrays eagerly too: one jit key)
    should_skip = fnp.asarray(num_not_finite > 0)
    return should_skip, {"should_skip": should_skip, "num_not_finite": num_not_finite}


class ApplyIfFiniteState(NamedTuple):
    notfinite_count: Any
    last_finite: Any
    total_notfinite: Any
    inner_state: Any


def apply_if_finite(inner: GradientTransformation,
                    max_consecutive_errors: int) -> GradientTransformation:
    """Apply `inner` only when the incoming updates are all finite; otherwise return zero
    updates and keep `inner`'s state, unless more than `max_consecutive_errors` non-finite
    steps came in a row (then it applies them anyway, as optax does).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> t = fg.optim.apply_if_finite(fg.optim.sgd(1.0), 3)
        >>> t.update(np.array([np.nan]), t.init(np.zeros(1)))[0]
        array([0.])
    """
    def init(params):
        ok = array_module(*tree_leaves(params)).asarray(True)  # (on the params' device)
        return ApplyIfFiniteState(zeros_count(params), ok, zeros_count(params),
                                  inner.init(params))

    def update(updates, state, params=None):
        finite = all_finite(updates)
        notfinite = fnp.where(finite, 0, state.notfinite_count + 1).astype(np.int32)
        total = fnp.where(finite, state.total_notfinite,
                          safe_increment(state.total_notfinite))
        apply = fnp.logical_or(finite, notfinite > max_consecutive_errors)
        new_updates, new_inner = inner.update(updates, state.inner_state, params)
        out = _select(apply, new_updates, zeros_like_tree(new_updates))
        return out, ApplyIfFiniteState(notfinite, finite, total,
                                       _select(apply, new_inner, state.inner_state))
    return GradientTransformation(init, update)


class InjectHyperparamsState(NamedTuple):
    count: Any
    hyperparams: dict
    inner_state: Any


def _float_dtype(params) -> Any:
    """The widest inexact dtype among the leaves (optax's 'highest'): a float32 model with a
    float64 leaf keeps float64 hyperparameters, whichever leaf comes first."""
    found = None
    for x in tree_leaves(params):
        dt = np.asarray(x).dtype if not hasattr(x, "dtype") else x.dtype
        if is_inexact(dt):  # (np.issubdtype misses ml_dtypes' bfloat16)
            found = dt if found is None else np.promote_types(found, dt)
    return np.float64 if found is None else found


def _hyperparam(value, dtype) -> Any:
    """A hyperparameter as the state keeps it (as optax does): floats in the params' float
    dtype, integers (a step count, a dimension size) left integers."""
    value = fnp.asarray(value)
    return value if np.issubdtype(value.dtype, np.integer) else fnp.asarray(value, dtype=dtype)


def inject_hyperparams(inner_factory: Callable[..., GradientTransformation],
                       static_args: str | tuple = (),
                       hyperparam_dtype: Any = None) -> Callable[..., GradientTransformation]:
    """Wrap an optimizer factory so that its numeric hyperparameters, given or defaulted,
    live in the state (`state.hyperparams["learning_rate"]`, `["b1"]`, ..., changeable
    between steps without a retrace; floats in the params' dtype, integers kept) and
    schedules among them are evaluated at the step count, as optax's wrapper does.
    `static_args` names the arguments kept out of the state (one name or several);
    `hyperparam_dtype`, if given, is the dtype of the float hyperparameters.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.inject_hyperparams(fg.optim.sgd)(learning_rate=0.1)
        >>> s = opt.init(np.zeros(1))
        >>> s.hyperparams["learning_rate"] = np.array(0.5)
        >>> opt.update(np.ones(1), s)[0]
        array([-0.5])
    """
    import inspect
    # one name is one name: `"eps_root"` must not also make `eps` static by substring
    static_args = {static_args} if isinstance(static_args, str) else set(static_args)
    signature = inspect.signature(inner_factory)
    unknown = static_args - set(signature.parameters)
    if unknown:
        raise ValueError(f"inject_hyperparams: static_args {sorted(unknown)} are not "
                         f"parameters of {getattr(inner_factory, '__name__', inner_factory)}"
                         f" (it takes {list(signature.parameters)})")

    def factory(*args, **kwargs) -> GradientTransformation:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()  # defaults are hyperparameters too (optax: b1, eps, ...)
        bound = bound.arguments
        numeric = {k: v for k, v in bound.items() if k not in static_args
                   and isinstance(v, (int, float, np.number, np.ndarray))
                   and not isinstance(v, bool)}
        scheduled = {k: v for k, v in bound.items() if k not in static_args and callable(v)
                     and not isinstance(v, GradientTransformation)}
        static = {k: v for k, v in bound.items() if k not in numeric and k not in scheduled}

        def hyper_values(count, hyperparams):
            return dict(hyperparams, **{k: s(count) for k, s in scheduled.items()})

        def init(params):
            dt = _float_dtype(params) if hyperparam_dtype is None else hyperparam_dtype
            hps = hyper_values(zeros_count(params), numeric)
            hps = {k: _hyperparam(v, dt) for k, v in hps.items()}
            return InjectHyperparamsState(zeros_count(params), hps,
                                          inner_factory(**static, **hps).init(params))

        def update(updates, state, params=None):
            # the params' dtype, as init chose (optax): float64 gradients of a float32 model
            # must not turn the state float64; without params, the state's own
            if hyperparam_dtype is not None:
                dt = hyperparam_dtype
            elif params is not None and tree_leaves(params):
                dt = _float_dtype(params)
            else:
                dt = _float_dtype(state.hyperparams) if state.hyperparams else \
                    _float_dtype(updates)
            hps = {k: _hyperparam(v, dt)
                   for k, v in hyper_values(state.count, state.hyperparams).items()}
            new_updates, inner_state = inner_factory(**static, **hps).update(
                updates, state.inner_state, params)
            return new_updates, InjectHyperparamsState(safe_increment(state.count), hps,
                                                       inner_state)
        return GradientTransformation(init, update)
    return factory


def skip_large_updates(updates: Any, gradient_step: Any, params: Any,
                       max_squared_norm: float) -> tuple:
    """A `should_skip_update_fn` for `MultiSteps` (bind `max_squared_norm` with
    `functools.partial`): skip a mini-step whose updates' squared global norm is not below
    `max_squared_norm` (NaN norms are skipped too). The skip state is
    `{"should_skip": bool, "norm_squared": the squared norm}`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> skip, info = fg.optim.skip_large_updates(np.array([3.0, 4.0]), 0, None, 20.0)
        >>> bool(skip), float(info["norm_squared"])
        (True, 25.0)
    """
    norm_sq = fnp.asarray(0.0)
    for x in tree_leaves(updates):
        norm_sq = norm_sq + fnp.sum(fnp.real(x * fnp.conj(x)))
    norm_sq = fnp.asarray(norm_sq)
    should_skip = fnp.asarray(fnp.logical_not(norm_sq < max_squared_norm))
    return should_skip, {"should_skip": should_skip, "norm_squared": norm_sq}


class LookaheadParams(NamedTuple):
    """The parameters `lookahead` works on: the fast ones (which the loss is evaluated and
    differentiated at) and the slow ones (the result of training).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.LookaheadParams.init_synced(np.zeros(2))
        LookaheadParams(fast=array([0., 0.]), slow=array([0., 0.]))
    """
    fast: Any
    slow: Any

    @classmethod
    def init_synced(cls, params: Any) -> "LookaheadParams":
        """Fast and slow parameters both equal to `params`."""
        return cls(fast=params, slow=params)


class LookaheadState(NamedTuple):
    fast_state: Any
    steps_since_sync: Any


def lookahead(fast_optimizer: GradientTransformation, sync_period: int, slow_step_size: float,
              reset_state: bool = False) -> GradientTransformation:
    """Lookahead (k steps forward, 1 step back): `fast_optimizer` updates the fast
    parameters; every `sync_period` steps the slow ones move `slow_step_size` of the way
    to the fast ones and the fast ones are reset to them (`fast_optimizer`'s state too, if
    `reset_state`). Params and updates are `LookaheadParams`; the gradients are taken at
    `params.fast`. `init` also accepts plain (fast) params, as optax does.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.lookahead(fg.optim.sgd(1.0), sync_period=2, slow_step_size=0.5)
        >>> params = fg.optim.LookaheadParams.init_synced(np.zeros(1))
        >>> state = opt.init(params)
        >>> for _ in range(2):
        ...     updates, state = opt.update(np.ones(1), state, params)
        ...     params = fg.optim.apply_updates(params, updates)
        >>> params
        LookaheadParams(fast=array([-1.]), slow=array([-1.]))
    """
    if sync_period < 1:
        raise ValueError(f"lookahead: sync_period={sync_period} must be >= 1 (the number of "
                         f"fast steps between two synchronizations)")

    def init(params):
        fast = params.fast if isinstance(params, LookaheadParams) else params
        return LookaheadState(fast_optimizer.init(fast), zeros_count(fast))

    def update(updates, state, params=None):
        if not isinstance(params, LookaheadParams):
            raise ValueError("lookahead: the update needs the parameters as "
                             "fg.optim.LookaheadParams(fast=..., slow=...); call "
                             "`opt.update(grads, state, params)` with them")
        updates, fast_state = fast_optimizer.update(updates, state.fast_state, params.fast)
        sync = state.steps_since_sync == sync_period - 1
        diff = tree_map(lambda f, u, s: f + u - s, params.fast, updates, params.slow)
        slow_updates = tree_map(lambda d: slow_step_size * cast_like(sync, d) * d, diff)
        fast_updates = tree_map(lambda u, d: u - cast_like(sync, d) * (1 - slow_step_size) * d,
                                updates, diff)
        if reset_state:
            fast_state = _select(sync, fast_optimizer.init(params.fast), fast_state)
        steps = ((state.steps_since_sync + 1) % sync_period).astype(np.int32)
        return (LookaheadParams(fast=fast_updates, slow=slow_updates),
                LookaheadState(fast_state, steps))
    return GradientTransformation(init, update)
