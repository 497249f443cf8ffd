"""The core of fg.optim: a `GradientTransformation` is a pair of pure functions
`init(params) -> state` and `update(updates, state, params=None) -> (updates, state)` over
pytrees (optax's design). Everything here is built from fungrad.numpy, so an optimizer step
works eagerly and under fg.jit / fg.grad / fg.vmap alike."""
from __future__ import annotations

from typing import Any, Callable, NamedTuple, Union

import numpy as np

from .. import numpy as fnp
from ..backend import array_module
from ..core.dtypes import is_inexact
from ..core.trace import Tracer
from ..tree import tree_map, tree_leaves

# A schedule maps a step count (an int32 0-d array, possibly traced) to a value.
Schedule = Callable[[Any], Any]
ScalarOrSchedule = Union[float, int, Schedule]
Params = Any
Updates = Any
OptState = Any

_INT32_MAX = int(np.iinfo(np.int32).max)


class _Transformation(NamedTuple):
    init: Callable[[Params], OptState]
    update: Callable[..., tuple]


class GradientTransformation(_Transformation):
    """An optimizer (or one stage of one): `init(params) -> state`,
    `update(updates, state, params=None) -> (updates, new_state)`.

    An eager update of ml_dtypes floats (bfloat16) runs through `fg.jit`: the formulas'
    Python-scalar arithmetic on plain NumPy bfloat16 arrays is NumPy's, which promotes to
    float32, while fungrad's rule under transforms keeps the parameters' dtype.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.sgd(0.1)
        >>> params = {"w": np.ones(2)}
        >>> state = opt.init(params)
        >>> updates, state = opt.update({"w": np.ones(2)}, state, params)
        >>> fg.optim.apply_updates(params, updates)["w"]
        array([0.9, 0.9])
    """
    __slots__ = ()

    def __new__(cls, init: Callable[[Params], OptState], update: Callable[..., tuple]):
        return super().__new__(cls, init, _narrow_floats_through_jit(update))


def _narrow_floats_through_jit(update):
    """`update`, except that an eager call on bfloat16 (ml_dtypes) leaves runs jitted."""
    if getattr(update, "_narrow_through_jit", False):
        return update
    jitted = []

    def wrapped(updates, state, params=None, **kwargs):
        if kwargs or not _eager_narrow(updates):  # (the gradients carry the params' dtype)
            return update(updates, state, params, **kwargs)
        if not jitted:
            from ..transforms.jit import jit
            jitted.append(jit(update))
        return jitted[0](updates, state, params)
    wrapped._narrow_through_jit = True
    wrapped.__doc__ = update.__doc__
    wrapped.__wrapped__ = update   # (inspect.signature: the keywords `update` takes)
    return wrapped


def _eager_narrow(tree) -> bool:
    """A concrete ml_dtypes float leaf (bfloat16) in `tree`, and no traced one."""
    found = False
    for x in tree_leaves(tree):
        if isinstance(x, Tracer):
            return False  # (traced: fungrad's rule applies already)
        dt = getattr(x, "dtype", None)
        found = found or (dt is not None and dt.kind == "V" and is_inexact(dt))
    return found


class EmptyState(NamedTuple):
    """The state of a stateless transformation (an empty pytree).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.clip(1.0).init(np.zeros(2))
        EmptyState()
        >>> fg.tree.tree_leaves(fg.optim.EmptyState())
        []
    """


def zeros_count(params: Any = None) -> Any:
    """A fresh step counter: an int32 0-d array, so jit sees an array (no retrace per step).
    On the GPU for CuPy `params`: the state then stays on the device, step after step."""
    return array_module(*tree_leaves(params)).zeros((), np.int32)


def safe_increment(count: Any) -> Any:
    """`count + 1`, saturating at the int32 maximum instead of wrapping around."""
    return fnp.where(count < _INT32_MAX, count + 1, _INT32_MAX)


def cast_like(x: Any, ref: Any) -> Any:
    """`x` as an array of `ref`'s dtype: keeps a float32 model float32 when `x` is a float64
    scalar computed from a step count (a bias correction, a schedule value)."""
    return fnp.asarray(x, dtype=ref.dtype)


def zeros_like_tree(tree: Any) -> Any:
    """Zeros of each leaf's shape and dtype."""
    return tree_map(fnp.zeros_like, tree)


def full_like_tree(tree: Any, value: float) -> Any:
    """`value` in each leaf's shape and dtype."""
    return tree_map(lambda x: fnp.full_like(x, value), tree)


def identity() -> GradientTransformation:
    """The transformation that returns its updates unchanged.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.identity().update(np.ones(2), ())[0]
        array([1., 1.])
    """
    return GradientTransformation(lambda params: EmptyState(),
                                  lambda updates, state, params=None: (updates, state))


def stateless(fn: Callable[[Updates, Params], Updates]) -> GradientTransformation:
    """A transformation from `fn(updates, params) -> updates`, with no state.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> decay = fg.optim.stateless(lambda updates, params: updates + 0.1 * params)
        >>> decay.update(np.zeros(2), decay.init(np.ones(2)), np.ones(2))
        (array([0.1, 0.1]), EmptyState())
    """
    def update(updates, state, params=None):
        return fn(updates, params), state
    return GradientTransformation(lambda params: EmptyState(), update)


def chain(*transforms: GradientTransformation) -> GradientTransformation:
    """Apply `transforms` in order; the state is the tuple of their states. Extra keyword
    arguments of an update (`value=` for `scale_by_polyak`) go to the transforms that take
    them.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.chain(fg.optim.clip(1.0), fg.optim.scale(-0.5))
        >>> opt.update(np.array([3.0, -0.2]), opt.init(np.zeros(2)))[0]
        array([-0.5,  0.1])
    """
    takes_extra = [_takes_extra_args(t.update) for t in transforms]

    def init(params):
        return tuple(t.init(params) for t in transforms)

    def update(updates, state, params=None, **extra_args):
        new_states = []
        for t, s, extra in zip(transforms, state, takes_extra):
            if extra_args and extra:
                updates, s = t.update(updates, s, params, **extra_args)
            else:
                updates, s = t.update(updates, s, params)
            new_states.append(s)
        return updates, tuple(new_states)
    return GradientTransformation(init, update)


def _takes_extra_args(update: Callable) -> bool:
    """Whether `update` takes keyword arguments beyond `(updates, state, params)` (as
    `scale_by_polyak`'s `value=`): `chain` passes a call's extra keywords only to those, as
    optax's chain does with its GradientTransformationExtraArgs."""
    import inspect
    try:
        params = inspect.signature(update).parameters.values()  # (follows __wrapped__)
    except (TypeError, ValueError):
        return False
    return any(p.kind in (p.VAR_KEYWORD, p.KEYWORD_ONLY) for p in params)


def apply_updates(params: Params, updates: Updates) -> Params:
    """`params + updates` leaf-wise, keeping each parameter's dtype.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> fg.optim.apply_updates({"w": np.ones(2, np.float32)}, {"w": np.ones(2)})["w"]
        array([2., 2.], dtype=float32)
    """
    return tree_map(lambda p, u: fnp.asarray(p + u, dtype=fnp.asarray(p).dtype), params, updates)


def global_norm(tree: Any) -> Any:
    """The L2 norm of all leaves of `tree` taken together.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> float(fg.optim.global_norm({"a": np.array([3.0]), "b": np.array([4.0])}))
        5.0
    """
    leaves = tree_leaves(tree)
    return fnp.sqrt(fnp.asarray(sum(fnp.sum(fnp.real(x * fnp.conj(x))) for x in leaves)))


def value_at(value: ScalarOrSchedule, count: Any) -> Any:
    """A hyperparameter's value at step `count`: a schedule is called, a number returned."""
    return value(count) if callable(value) else value
