"""Learning-rate schedules (optax's formulas): functions `count -> value` written with
fungrad.numpy, so `count` may be a traced int32 array under fg.jit (no Python branch on it).
Values are computed in float64; transformations cast them to each parameter's dtype."""
from __future__ import annotations

import math
from typing import Iterable, Sequence

from .. import numpy as fnp
from .base import Schedule


def _float(count):
    # int32 counts would make `count / n` float64 anyway; this makes it explicit
    return fnp.asarray(count, dtype=fnp.float64)


def _check_begin(fn: str, transition_begin) -> None:
    if transition_begin < 0:
        raise ValueError(f"{fn}: transition_begin={transition_begin} must be >= 0 (optax "
                         f"would silently use 0); pass the step the transition starts at")


def constant_schedule(value: float) -> Schedule:
    """The schedule that is `value` at every step.

    Example:
        >>> import fungrad as fg
        >>> fg.optim.constant_schedule(0.1)(5)
        array(0.1)
    """
    return lambda count: fnp.full((), value, dtype=fnp.float64)


def polynomial_schedule(init_value: float, end_value: float, power: float,
                        transition_steps: int, transition_begin: int = 0) -> Schedule:
    """`(init - end) * (1 - t / transition_steps) ** power + end`, with
    `t = clip(count - transition_begin, 0, transition_steps)`.

    Example:
        >>> import fungrad as fg
        >>> float(fg.optim.polynomial_schedule(1.0, 0.0, 2, 10)(5))
        0.25
    """
    if transition_steps <= 0:
        return constant_schedule(init_value)
    _check_begin("polynomial_schedule", transition_begin)

    def schedule(count):
        t = fnp.clip(_float(count) - transition_begin, 0, transition_steps)
        frac = 1 - t / transition_steps
        return (init_value - end_value) * frac ** power + end_value
    return schedule


def linear_schedule(init_value: float, end_value: float, transition_steps: int,
                    transition_begin: int = 0) -> Schedule:
    """Linear interpolation from `init_value` to `end_value` over `transition_steps` steps
    starting at `transition_begin`; constant outside.

    Example:
        >>> import fungrad as fg
        >>> float(fg.optim.linear_schedule(1.0, 0.0, 10)(3))
        0.7
    """
    return polynomial_schedule(init_value, end_value, 1, transition_steps, transition_begin)


def exponential_decay(init_value: float, transition_steps: int, decay_rate: float,
                      transition_begin: int = 0, staircase: bool = False,
                      end_value: float | None = None) -> Schedule:
    """`init_value * decay_rate ** ((count - transition_begin) / transition_steps)`
    (the exponent floored if `staircase`), `init_value` before `transition_begin`, bounded by
    `end_value` if given.

    Example:
        >>> import fungrad as fg
        >>> float(fg.optim.exponential_decay(1.0, 10, 0.5)(20))
        0.25
    """
    if transition_steps <= 0:
        return constant_schedule(init_value)
    if decay_rate == 0:
        raise ValueError("exponential_decay: decay_rate must not be zero (optax would return "
                         "the constant init_value); for a schedule that drops to 0 use "
                         "piecewise_constant_schedule(init_value, {step: 0.0})")
    _check_begin("exponential_decay", transition_begin)
    bound = None if end_value is None else (fnp.maximum if decay_rate < 1 else fnp.minimum)

    def schedule(count):
        t = _float(count) - transition_begin
        p = t / transition_steps
        if staircase:
            p = fnp.floor(p)
        value = fnp.where(t <= 0, init_value, init_value * decay_rate ** p)
        return value if bound is None else bound(value, end_value)
    return schedule


def cosine_decay_schedule(init_value: float, decay_steps: int, alpha: float = 0.0,
                          exponent: float = 1.0) -> Schedule:
    """`init_value * ((1 - alpha) * c ** exponent + alpha)` with
    `c = (1 + cos(pi * min(count, decay_steps) / decay_steps)) / 2`.

    Example:
        >>> import fungrad as fg
        >>> float(fg.optim.cosine_decay_schedule(1.0, 10)(5))
        0.5
    """
    if decay_steps <= 0:
        raise ValueError(f"cosine_decay_schedule: decay_steps={decay_steps} must be positive")

    def schedule(count):
        t = fnp.minimum(_float(count), decay_steps)
        cosine = 0.5 * (1 + fnp.cos(math.pi * t / decay_steps))
        return init_value * ((1 - alpha) * cosine ** exponent + alpha)
    return schedule


def join_schedules(schedules: Sequence[Schedule], boundaries: Sequence[int]) -> Schedule:
    """`schedules[i](count - boundaries[i-1])` on `[boundaries[i-1], boundaries[i])`.

    Example:
        >>> import fungrad as fg
        >>> s = fg.optim.join_schedules([fg.optim.constant_schedule(1.0),
        ...                              fg.optim.linear_schedule(1.0, 0.0, 10)], [5])
        >>> float(s(3)), float(s(10))
        (1.0, 0.5)
    """
    def schedule(count):
        out = schedules[0](count)
        for boundary, sched in zip(boundaries, schedules[1:]):
            out = fnp.where(count < boundary, out, sched(count - boundary))
        return out
    return schedule


def warmup_cosine_decay_schedule(init_value: float, peak_value: float, warmup_steps: int,
                                 decay_steps: int, end_value: float = 0.0,
                                 exponent: float = 1.0) -> Schedule:
    """Linear warmup from `init_value` to `peak_value` over `warmup_steps`, then cosine decay
    to `end_value` at `decay_steps` (counted from step 0, warmup included).

    Example:
        >>> import fungrad as fg
        >>> s = fg.optim.warmup_cosine_decay_schedule(0.0, 1.0, 10, 110)
        >>> float(s(5)), float(s(60))
        (0.5, 0.5)
    """
    alpha = 0.0 if peak_value == 0 else end_value / peak_value
    return join_schedules(
        [linear_schedule(init_value, peak_value, warmup_steps),
         cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)],
        [warmup_steps])


def warmup_exponential_decay_schedule(init_value: float, peak_value: float, warmup_steps: int,
                                      transition_steps: int, decay_rate: float,
                                      transition_begin: int = 0, staircase: bool = False,
                                      end_value: float | None = None) -> Schedule:
    """Linear warmup to `peak_value` over `warmup_steps`, then `exponential_decay` from it.

    Example:
        >>> import fungrad as fg
        >>> s = fg.optim.warmup_exponential_decay_schedule(0.0, 1.0, 10, 10, 0.5)
        >>> float(s(5)), float(s(20))
        (0.5, 0.5)
    """
    return join_schedules(
        [linear_schedule(init_value, peak_value, warmup_steps),
         exponential_decay(peak_value, transition_steps, decay_rate, transition_begin,
                           staircase, end_value)],
        [warmup_steps])


def piecewise_constant_schedule(init_value: float,
                                boundaries_and_scales: dict | None = None) -> Schedule:
    """`init_value` times the product of every `scale` whose `boundary <= count`.

    Example:
        >>> import fungrad as fg
        >>> s = fg.optim.piecewise_constant_schedule(1.0, {10: 0.1, 20: 0.5})
        >>> float(s(5)), float(s(15)), float(s(25))
        (1.0, 0.1, 0.05)
    """
    items = sorted((boundaries_and_scales or {}).items())

    def schedule(count):
        value = fnp.full((), init_value, dtype=fnp.float64)
        for boundary, scale in items:
            value = fnp.where(count >= boundary, value * scale, value)
        return value
    return schedule


def _cosine_interpolate(start, end, pct):
    return end + (start - end) / 2.0 * (fnp.cos(math.pi * pct) + 1)


def _linear_interpolate(start, end, pct):
    return start + pct * (end - start)


def piecewise_interpolate_schedule(interpolate_type: str, init_value: float,
                                   boundaries_and_scales: dict | None = None) -> Schedule:
    """Values `init_value * prod(scales[:i])` reached at the (sorted) boundaries, joined by
    linear or cosine interpolation; constant after the last boundary.

    Example:
        >>> import fungrad as fg
        >>> float(fg.optim.piecewise_interpolate_schedule("linear", 1.0, {10: 0.5})(5))
        0.75
    """
    interpolate = {"linear": _linear_interpolate, "cosine": _cosine_interpolate}.get(
        interpolate_type)
    if interpolate is None:
        raise ValueError(f"piecewise_interpolate_schedule: interpolate_type="
                         f"{interpolate_type!r}; use 'linear' or 'cosine'")
    items = sorted((boundaries_and_scales or {}).items())
    bounds = [0] + [b for b, _ in items]
    values = [init_value]
    for _, s in items:
        values.append(values[-1] * s)

    def schedule(count):
        # (a negative count is before the first boundary: init_value, not an extrapolation)
        c = fnp.maximum(_float(count), 0)
        out = fnp.full((), values[-1], dtype=fnp.float64)
        for i in reversed(range(len(items))):
            lo, hi = bounds[i], bounds[i + 1]
            pct = (c - lo) / (hi - lo) if hi > lo else c * 0
            out = fnp.where(c < hi, interpolate(values[i], values[i + 1], pct), out)
        return out
    return schedule


def cosine_onecycle_schedule(transition_steps: int, peak_value: float, pct_start: float = 0.3,
                             div_factor: float = 25.0,
                             final_div_factor: float = 1e4) -> Schedule:
    """One-cycle: cosine rise from `peak_value / div_factor` to `peak_value` over the first
    `pct_start` of `transition_steps`, then cosine fall to
    `peak_value / (div_factor * final_div_factor)`.

    Example:
        >>> import fungrad as fg
        >>> float(fg.optim.cosine_onecycle_schedule(100, 1.0)(30))
        1.0
    """
    if transition_steps <= 0:
        raise ValueError(f"cosine_onecycle_schedule: transition_steps={transition_steps} "
                         "must be positive")
    if not div_factor or not final_div_factor:
        raise ValueError(f"cosine_onecycle_schedule: div_factor={div_factor} and "
                         f"final_div_factor={final_div_factor} must be non-zero (the start and "
                         f"end values are peak_value divided by them)")
    return piecewise_interpolate_schedule(
        "cosine", peak_value / div_factor,
        {int(pct_start * transition_steps): div_factor,
         int(transition_steps): 1.0 / (div_factor * final_div_factor)})


def warmup_constant_schedule(init_value: float, peak_value: float,
                             warmup_steps: int) -> Schedule:
    """Linear warmup from `init_value` to `peak_value` over `warmup_steps`, then constant.

    Example:
        >>> import fungrad as fg
        >>> s = fg.optim.warmup_constant_schedule(0.0, 1.0, 10)
        >>> float(s(5)), float(s(50))
        (0.5, 1.0)
    """
    return linear_schedule(init_value, peak_value, warmup_steps)


def linear_onecycle_schedule(transition_steps: int, peak_value: float, pct_start: float = 0.3,
                             pct_final: float = 0.85, div_factor: float = 25.0,
                             final_div_factor: float = 1e4) -> Schedule:
    """One-cycle, linear: from `peak_value / div_factor` up to `peak_value` at
    `pct_start * transition_steps`, back down to `peak_value / div_factor` at
    `pct_final * transition_steps`, then to `peak_value / (div_factor * final_div_factor)`
    at `transition_steps`.

    Example:
        >>> import fungrad as fg
        >>> s = fg.optim.linear_onecycle_schedule(100, 1.0)
        >>> float(s(0)), float(s(30)), float(s(85))
        (0.04, 1.0, 0.04)
    """
    if transition_steps <= 0:
        raise ValueError(f"linear_onecycle_schedule: transition_steps={transition_steps} "
                         "must be positive")
    return piecewise_interpolate_schedule(
        "linear", peak_value / div_factor,
        {int(pct_start * transition_steps): div_factor,
         int(pct_final * transition_steps): 1.0 / div_factor,
         int(transition_steps): 1.0 / final_div_factor})


def sgdr_schedule(cosine_kwargs: Iterable[dict]) -> Schedule:
    """SGD with warm restarts: one `warmup_cosine_decay_schedule(**kwargs)` per dict of
    `cosine_kwargs`, each running for its `decay_steps`, one after the other.

    Example:
        >>> import fungrad as fg
        >>> cycle = dict(init_value=0.0, peak_value=1.0, warmup_steps=2, decay_steps=10)
        >>> s = fg.optim.sgdr_schedule([cycle, cycle])
        >>> float(s(2)), float(s(10)), float(s(12))
        (1.0, 0.0, 1.0)
    """
    schedules, boundaries, step = [], [], 0
    for kwargs in cosine_kwargs:
        schedules.append(warmup_cosine_decay_schedule(**kwargs))
        step += kwargs["decay_steps"]
        boundaries.append(step)
    return join_schedules(schedules, boundaries[:-1])
