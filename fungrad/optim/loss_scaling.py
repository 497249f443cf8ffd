"""Dynamic loss scaling for float16/bfloat16 training (the GradScaler idea, functional):
multiply the loss by `scale` before differentiating so small gradients do not flush to
zero, divide the gradients by it afterwards, skip steps whose gradients are not finite, and
adapt `scale` (shrink on overflow, grow after `growth_interval` good steps)."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..tree import tree_map
from .wrappers import all_finite


class LossScaleState(NamedTuple):
    """The state of `DynamicLossScale`: the current `scale` and the number of finite steps
    since it last changed (`good_steps`).

    Example:
        >>> import fungrad as fg
        >>> ls = fg.optim.DynamicLossScale(init_scale=1024.0)
        >>> ls.init()
        LossScaleState(scale=array(1024., dtype=float32), good_steps=array(0, dtype=int32))
        >>> ls.adjust(False, ls.init())   # a step with non-finite gradients halves the scale
        LossScaleState(scale=array(512., dtype=float32), good_steps=array(0, dtype=int32))
    """
    scale: Any          # float32 0-d array
    good_steps: Any     # int32 0-d array: finite steps since the last change of `scale`


class DynamicLossScale(NamedTuple):
    """The policy of dynamic loss scaling; its methods are pure functions of a
    `LossScaleState`, so they work under fg.jit.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> ls = fg.optim.DynamicLossScale(init_scale=2.0 ** 10)
        >>> state = ls.init()
        >>> grads = fg.grad(lambda w: ls.scale(np.float16(3) * w, state))(np.float16(1))
        >>> grads, finite, state = ls.unscale_and_adjust(grads, state)
        >>> grads, bool(finite)
        (array(3., dtype=float16), True)
    """
    init_scale: float = 2.0 ** 15
    growth_factor: float = 2.0
    backoff_factor: float = 0.5
    growth_interval: int = 2000
    min_scale: float = 1.0

    def init(self) -> LossScaleState:
        """The starting state: `init_scale`, no good steps yet."""
        return LossScaleState(np.asarray(self.init_scale, np.float32), np.zeros((), np.int32))

    def scale(self, loss: Any, state: LossScaleState) -> Any:
        """`loss * scale`, in the loss's dtype."""
        return loss * fnp.asarray(state.scale, dtype=fnp.asarray(loss).dtype)

    def unscale(self, grads: Any, state: LossScaleState) -> Any:
        """`grads / scale`, computed in float32 (a float16 scale could overflow) and returned
        in each gradient's dtype."""
        def one(g):
            wide = fnp.asarray(g, dtype=np.promote_types(fnp.asarray(g).dtype, np.float32))
            return fnp.asarray(wide / state.scale, dtype=fnp.asarray(g).dtype)
        return tree_map(one, grads)

    def adjust(self, grads_finite: Any, state: LossScaleState) -> LossScaleState:
        """The next state: shrink by `backoff_factor` (not below `min_scale`) after a
        non-finite step; grow by `growth_factor` after `growth_interval` finite ones."""
        good = fnp.where(grads_finite, state.good_steps + 1, 0).astype(np.int32)
        grow = good >= self.growth_interval
        grown = fnp.where(grow, state.scale * np.float32(self.growth_factor), state.scale)
        shrunk = fnp.maximum(state.scale * np.float32(self.backoff_factor),
                             np.float32(self.min_scale))
        scale = fnp.where(grads_finite, grown, shrunk)
        return LossScaleState(fnp.asarray(scale, dtype=np.float32),
                              fnp.where(grow, 0, good).astype(np.int32))

    def unscale_and_adjust(self, grads: Any, state: LossScaleState) -> tuple:
        """`(unscaled grads, all finite?, next state)`: one call per training step; skip the
        optimizer step (e.g. with `fg.optim.apply_if_finite`, or `fnp.where` on the flag)
        when the flag is False."""
        finite = all_finite(grads)
        return self.unscale(grads, state), finite, self.adjust(finite, state)
