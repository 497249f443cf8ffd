"""stax-style layers and combinators (jax.example_libraries.stax's names and semantics).

A layer is a pair `(init_fn, apply_fn)`:

- `out_shape, params = init_fn(key, input_shape)` (stax's signature: the output shape comes
  first, so `serial` can chain shapes); a batch dimension may be given as -1;
- `y = apply_fn(params, x, **kw)`.

Params are plain pytrees (tuples of NumPy arrays), so `fg.grad`, `fg.optim` and `fg.tree`
work on them directly. Keyword arguments of apply are passed by `serial` / `parallel` to
every layer, which ignores the ones it does not use:

- `key=`: a `fg.random` key; `serial` splits it, so each layer gets its own (`Dropout`
  needs one in training);
- `training=` (default True): `Dropout` drops only in training; `BatchNorm` normalizes with
  the batch's statistics in training and with its running statistics otherwise;
- `state=`: explicit state. A layer with state (`BatchNorm`, and combinators holding one)
  has `layer.init_state(input_shape) -> (out_shape, state)` (or `fg.nn.init_state(layer,
  input_shape)`); given `state=`, its apply returns `(y, new_state)`, and a combinator's
  state is the tuple of its children's (None for a child without state). Without `state=`,
  apply returns `y` only (a BatchNorm in training then uses batch statistics only).

    >>> init_fn, apply_fn = fg.nn.serial(fg.nn.Dense(4), fg.nn.Relu, fg.nn.Dense(2))
    >>> out_shape, params = init_fn(fg.random.key(0), (-1, 3))
    >>> out_shape, apply_fn(params, np.ones((5, 3))).shape
    ((-1, 2), (5, 2))

A layer's apply expects a leading batch axis where the layer mixes examples (`BatchNorm`)
or needs to know where examples start (`Flatten`, `GroupNorm`), and the convolution and
pooling layers take their layout's batch axis ('NHWC' by default); `Dense`, `LayerNorm`,
`Embedding`, `Dropout` and the activations work on one example too, so `fg.vmap` of a model
built from them gives per-example results (with convolutions, vmap over one-example batches,
`x[None]`).
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from .. import numpy as fnp
from .. import random
from ..backend import like
from ..lax import convolution as lax_conv
from ..lax.misc import stop_gradient
from . import activations as act
from . import initializers as inits
from ._util import Array, weak_scalar as _weak

__all__ = ["Layer", "init_state", "serial", "parallel", "FanOut", "FanInSum", "FanInConcat",
           "Identity", "Dense", "Flatten", "BatchNorm", "LayerNorm", "GroupNorm", "Dropout",
           "Embedding", "elementwise", "Relu", "Gelu", "Sigmoid", "Tanh", "Softplus", "Elu",
           "LeakyRelu", "Selu", "Silu", "LogSoftmax", "Softmax", "Exp", "GeneralConv", "Conv",
           "Conv1D", "Conv3D", "GeneralConvTranspose", "ConvTranspose", "Conv1DTranspose",
           "MaxPool", "SumPool", "AvgPool"]

Shape = Tuple[int, ...]
Params = Any                       # a pytree of arrays
InitFn = Callable[[Array, Shape], Tuple[Any, Params]]
ApplyFn = Callable[..., Any]
ShapeFn = Callable[[Any], Any]


class Layer(tuple):
    """A stax layer: the pair `(init_fn, apply_fn)` (it unpacks as one), plus two optional
    attributes: `out_shape(input_shape)` (the output shape without drawing parameters) and,
    for a layer with state, `init_state(input_shape) -> (out_shape, state)`.

    Example:
        >>> init_fn, apply_fn = fg.nn.Dense(3)
        >>> fg.nn.BatchNorm().init_state((-1, 3))[1][0]
        array([0., 0., 0.])
    """
    init_state: Optional[Callable[[Any], Tuple[Any, Any]]]
    out_shape: Optional[ShapeFn]

    def __new__(cls, init_fn: InitFn, apply_fn: ApplyFn, out_shape: Optional[ShapeFn] = None,
                init_state: Optional[Callable[[Any], Tuple[Any, Any]]] = None) -> "Layer":
        self = super().__new__(cls, (init_fn, apply_fn))
        self.out_shape, self.init_state = out_shape, init_state
        return self


def _stateful(layer) -> bool:
    return getattr(layer, "init_state", None) is not None


def _out_shape(layer, input_shape):
    fn = getattr(layer, "out_shape", None)
    # a user's plain (init_fn, apply_fn) pair: its shape is what init says (params dropped)
    return fn(input_shape) if fn is not None else layer[0](random.key(0), input_shape)[0]


def init_state(layer: Sequence[Callable], input_shape: Any) -> Tuple[Any, Any]:
    """`(out_shape, state)` of `layer` for `input_shape`: its initial state (BatchNorm's
    running mean 0 and variance 1), or None for a layer without state.

    Example:
        >>> model = fg.nn.serial(fg.nn.Dense(2), fg.nn.BatchNorm())
        >>> shape, state = fg.nn.init_state(model, (-1, 3))
        >>> state[0] is None, state[1][1]
        (True, array([1., 1.]))
    """
    if _stateful(layer):
        return layer.init_state(input_shape)
    return _out_shape(layer, input_shape), None


def _stateless(out_shape: ShapeFn, params: Callable[[Array, Any], Params],
               apply_fn: ApplyFn) -> Layer:
    """A layer from its shape rule, its parameter initializer and its apply."""
    def init_fn(key: Array, input_shape: Any) -> Tuple[Any, Params]:
        return out_shape(input_shape), params(key, input_shape)
    return Layer(init_fn, apply_fn, out_shape)


def _no_params(key, input_shape):
    return ()


def _apply_child(layer, p, x, state, kw):
    """Apply one child of a combinator: (y, new_state), with state only for stateful
    children (a stateless child, a user's pair included, never sees `state=`)."""
    if state is not None and _stateful(layer):
        return layer[1](p, x, state=state, **kw)
    return layer[1](p, x, **kw), None


def _child_kwargs(key, n, kw):
    keys = [None] * n if key is None else list(random.split(key, n))
    return [kw if k is None else dict(kw, key=k) for k in keys]


# ------------------------------------------------------------------ combinators
def serial(*layers: Sequence[Callable]) -> Layer:
    """Layers composed in order. Apply's `key=` is split, one key per layer; `state=` is the
    tuple of the layers' states (`init_state`), and then apply returns `(y, new_state)`.

    Example:
        >>> init_fn, apply_fn = fg.nn.serial(fg.nn.Dense(4), fg.nn.Tanh)
        >>> shape, params = init_fn(fg.random.key(0), (2, 3))
        >>> shape, apply_fn(params, np.ones((2, 3))).shape
        ((2, 4), (2, 4))
    """
    n = len(layers)

    def out_shape(input_shape):
        for layer in layers:
            input_shape = _out_shape(layer, input_shape)
        return input_shape

    def init_fn(key: Array, input_shape: Any) -> Tuple[Any, Params]:
        params = []
        for layer, k in zip(layers, random.split(key, n) if n else []):
            input_shape, p = layer[0](k, input_shape)
            params.append(p)
        return input_shape, tuple(params)

    def apply_fn(params: Params, x: Any, *, key: Optional[Array] = None,
                 state: Optional[tuple] = None, **kw) -> Any:
        states = state if state is not None else (None,) * n
        new_states = []
        for layer, p, s, kwi in zip(layers, params, states, _child_kwargs(key, n, kw)):
            x, s = _apply_child(layer, p, x, s if state is not None else None, kwi)
            new_states.append(s)
        return x if state is None else (x, tuple(new_states))

    def state_fn(input_shape):
        states = []
        for layer in layers:
            input_shape, s = init_state(layer, input_shape)
            states.append(s)
        return input_shape, tuple(states)

    return Layer(init_fn, apply_fn, out_shape,
                 state_fn if any(map(_stateful, layers)) else None)


def parallel(*layers: Sequence[Callable]) -> Layer:
    """Layers applied side by side: the input is a sequence with one entry per layer, and so
    is the output (use with `FanOut` and `FanInSum` / `FanInConcat`). `key=` is split one
    per layer; `state=` is the tuple of the layers' states, as for `serial`.

    Example:
        >>> model = fg.nn.serial(fg.nn.FanOut(2), fg.nn.parallel(fg.nn.Dense(3), fg.nn.Identity),
        ...                      fg.nn.FanInConcat())
        >>> model[0](fg.random.key(0), (-1, 2))[0]
        (-1, 5)
    """
    n = len(layers)

    def out_shape(input_shape):
        return tuple(_out_shape(layer, s) for layer, s in zip(layers, input_shape))

    def init_fn(key: Array, input_shape: Any) -> Tuple[Any, Params]:
        pairs = [layer[0](k, s) for layer, k, s in zip(layers, random.split(key, n), input_shape)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)

    def apply_fn(params: Params, xs: Sequence[Any], *, key: Optional[Array] = None,
                 state: Optional[tuple] = None, **kw) -> Any:
        states = state if state is not None else (None,) * n
        outs = [_apply_child(layer, p, x, s, kwi) for layer, p, x, s, kwi
                in zip(layers, params, xs, states, _child_kwargs(key, n, kw))]
        ys = tuple(o[0] for o in outs)
        return ys if state is None else (ys, tuple(o[1] for o in outs))

    def state_fn(input_shape):
        pairs = [init_state(layer, s) for layer, s in zip(layers, input_shape)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)

    return Layer(init_fn, apply_fn, out_shape,
                 state_fn if any(map(_stateful, layers)) else None)


def FanOut(num: int) -> Layer:
    """A layer copying its input into a tuple of `num` (for `parallel`).

    Example:
        >>> fg.nn.FanOut(2)[1]((), np.ones(2))
        (array([1., 1.]), array([1., 1.]))
    """
    num = lax_conv.int_scalar("FanOut", "num", num, 1)
    return _stateless(lambda s: (tuple(s),) * num, _no_params,
                      lambda params, x, **kw: (x,) * num)


def _fan_in_sum(params: Params, xs: Sequence[Array], **kw) -> Array:
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


FanInSum = _stateless(lambda shapes: tuple(shapes[0]), _no_params, _fan_in_sum)
FanInSum.__doc__ = "A layer summing a sequence of inputs (of one shape)."


def FanInConcat(axis: int = -1) -> Layer:
    """A layer concatenating a sequence of inputs along `axis`.

    Example:
        >>> fg.nn.FanInConcat()[1]((), (np.ones((1, 2)), np.zeros((1, 1))))
        array([[1., 1., 0.]])
    """
    def out_shape(shapes):
        first = tuple(shapes[0])
        ax = axis % len(first)
        sizes = [s[ax] for s in shapes]
        return first[:ax] + (-1 if -1 in sizes else sum(sizes),) + first[ax + 1:]
    return _stateless(out_shape, _no_params,
                      lambda params, xs, **kw: fnp.concatenate(list(xs), axis=axis))


Identity = _stateless(tuple, _no_params, lambda params, x, **kw: x)
Identity.__doc__ = "A layer returning its input unchanged."


# ------------------------------------------------------------------ dense, flatten, embed
def Dense(out_dim: int, W_init: inits.Initializer = inits.glorot_normal(),
          b_init: inits.Initializer = inits.normal()) -> Layer:
    """Affine layer `x @ W + b`, params `(W, b)` with W of shape (in, out_dim) (stax's
    defaults: W glorot_normal, b normal(1e-2)).

    Example:
        >>> shape, (W, b) = fg.nn.Dense(3)[0](fg.random.key(0), (-1, 2))
        >>> shape, W.shape, b.shape
        ((-1, 3), (2, 3), (3,))
    """
    out_dim = lax_conv.int_scalar("Dense", "out_dim", out_dim, 0)

    def params(key, input_shape):
        if not len(input_shape):
            raise ValueError("Dense: the input shape () has no feature axis; pass an input "
                             "shape of at least 1 dim, e.g. (-1, in_dim)")
        k1, k2 = random.split(key)
        return W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,))
    return _stateless(lambda s: tuple(s)[:-1] + (out_dim,), params,
                      lambda params, x, **kw: fnp.matmul(x, params[0]) + params[1])


def _flatten_shape(input_shape):
    rest = input_shape[1:]
    return (input_shape[0], -1 if -1 in rest else int(np.prod(rest)))


Flatten = _stateless(_flatten_shape, _no_params,
                     lambda params, x, **kw: fnp.reshape(x, (fnp.shape(x)[0], -1)))
Flatten.__doc__ = "A layer flattening all axes but the leading (batch) one."


def Embedding(vocab_size: int, features: int,
              embedding_init: inits.Initializer = inits.variance_scaling(
                  1.0, "fan_in", "normal", out_axis=0)) -> Layer:
    """A lookup table: integer ids of any shape -> their rows of a (vocab_size, features)
    table (the params); its gradient adds up the cotangents of repeated ids. The default
    init draws N(0, 1/features), as Flax's.

    Example:
        >>> shape, table = fg.nn.Embedding(10, 4)[0](fg.random.key(0), (2, 3))
        >>> shape, table.shape
        ((2, 3, 4), (10, 4))
    """
    vocab_size = lax_conv.int_scalar("Embedding", "vocab_size", vocab_size, 1)
    features = lax_conv.int_scalar("Embedding", "features", features, 0)

    def apply_fn(params: Params, ids: Array, **kw) -> Array:
        if fnp.result_type(ids).kind not in "iub":
            raise TypeError(f"Embedding: ids must be integers (row numbers in [0, "
                            f"{vocab_size})), got dtype {fnp.result_type(ids)}; cast them, "
                            f"e.g. ids.astype(int)")
        return fnp.take(params, ids, axis=0)

    return _stateless(lambda s: tuple(s) + (features,),
                      lambda key, s: embedding_init(key, (vocab_size, features)), apply_fn)


# ------------------------------------------------------------------ normalization
def _norm_axes(axis, ndim: int, layer: str = "BatchNorm") -> Tuple[int, ...]:
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    try:
        axes = tuple(operator.index(a) for a in axes)
    except TypeError:
        axes = None
    if axes is None or not all(-ndim <= a < ndim for a in axes) \
            or len({a % ndim for a in axes}) != len(axes):
        raise ValueError(f"{layer}: axis {axis!r} must be distinct integer axes in "
                         f"[{-ndim}, {ndim}) for inputs of {ndim} dims")
    return tuple(sorted(a % ndim for a in axes))


def _scale_shift(y, params, center, scale, shape):
    """`gamma * y + beta` with the params reshaped to broadcast against y."""
    beta, gamma = params
    if scale:
        y = y * fnp.reshape(gamma, shape)
    if center:
        y = y + fnp.reshape(beta, shape)
    return y


def _affine_params(feature_shape, center, scale, beta_init, gamma_init, key):
    k1, k2 = random.split(key)
    beta = beta_init(k1, feature_shape) if center else ()
    gamma = gamma_init(k2, feature_shape) if scale else ()
    return beta, gamma


def BatchNorm(axis: Any = None, epsilon: float = 1e-5, momentum: float = 0.99,
              center: bool = True, scale: bool = True,
              beta_init: inits.Initializer = inits.zeros,
              gamma_init: inits.Initializer = inits.ones) -> Layer:
    """Batch normalization over the axes `axis` (default: every axis but the last, so
    (N, C) and (N, H, W, C) inputs both normalize per channel); params `(beta, gamma)` of
    the remaining axes' shape.

    In training (`training=True`, the default) it normalizes with the batch's mean and
    (biased) variance; otherwise with the running statistics of `state=`, which is then
    required. With `state=(running_mean, running_var)` (from `init_state`: zeros and ones),
    apply returns `(y, new_state)`, the new state being `momentum * old + (1 - momentum) *
    batch statistic` in training (no gradient flows into it) and the old one otherwise.

    Example:
        >>> init_fn, apply_fn = bn = fg.nn.BatchNorm()
        >>> _, params = init_fn(fg.random.key(0), (-1, 2))
        >>> _, state = bn.init_state((-1, 2))
        >>> y, state = apply_fn(params, np.array([[0., 1.], [2., 5.]]), state=state)
        >>> np.round(y, 3), state[0]
        (array([[-1., -1.],
               [ 1.,  1.]]), array([0.01, 0.03]))
    """
    epsilon, momentum = _weak(epsilon), _weak(momentum)  # (float32 stays float32)

    def feature_shape(input_shape):
        axes = _norm_axes(range(len(input_shape) - 1) if axis is None else axis,
                          len(input_shape))
        return tuple(d for i, d in enumerate(input_shape) if i not in axes)

    def params(key, input_shape):
        return _affine_params(feature_shape(input_shape), center, scale, beta_init,
                              gamma_init, key)

    def state_fn(input_shape):
        fs = feature_shape(input_shape)
        return tuple(input_shape), (np.zeros(fs), np.ones(fs))

    def apply_fn(params: Params, x: Array, *, state: Optional[tuple] = None,
                 training: bool = True, **kw) -> Any:
        nd = fnp.ndim(x)
        axes = _norm_axes(range(nd - 1) if axis is None else axis, nd)
        kept = tuple(1 if i in axes else d for i, d in enumerate(fnp.shape(x)))
        if training:
            mean = fnp.mean(x, axis=axes)
            var = fnp.mean(fnp.square(x - fnp.reshape(mean, kept)), axis=axes)
        elif state is None:
            raise ValueError("BatchNorm: apply with training=False normalizes with the "
                             "running statistics, so it needs state=(running_mean, "
                             "running_var) from init_state(input_shape); pass state=, or "
                             "training=True to use the batch's statistics")
        else:  # in x's dtype: float64 running stats must not promote float32 activations
            # (an integer or bool x keeps them float64, as training's batch mean is: cast to
            # x's dtype they were truncated, e.g. a running variance 0.5 became 0)
            dt = fnp.result_type(x)
            dt = dt if np.issubdtype(dt, np.inexact) else np.float64
            mean, var = (fnp.asarray(s).astype(dt) for s in state)
        y = (x - fnp.reshape(mean, kept)) / fnp.sqrt(fnp.reshape(var, kept) + epsilon)
        y = _scale_shift(y, params, center, scale, kept)
        if state is None:
            return y
        if not training:
            return y, state
        m = momentum
        new = tuple(m * old + (1 - m) * stop_gradient(new)
                    for old, new in zip(state, (mean, var)))
        return y, new

    return Layer(lambda key, s: (tuple(s), params(key, s)), apply_fn, tuple, state_fn)


def LayerNorm(axis: Any = -1, epsilon: float = 1e-5, center: bool = True, scale: bool = True,
              beta_init: inits.Initializer = inits.zeros,
              gamma_init: inits.Initializer = inits.ones) -> Layer:
    """Layer normalization of each example over `axis` (default the last; positive axes count
    in the input shape given to init_fn, so the same axes are normalized on one example
    under `fg.vmap`); params `(beta, gamma)` of those axes' shape. No state.

    Example:
        >>> init_fn, apply_fn = fg.nn.LayerNorm()
        >>> _, params = init_fn(fg.random.key(0), (-1, 2))
        >>> np.round(apply_fn(params, np.array([[1., 3.]])), 3)
        array([[-1.,  1.]])
    """
    epsilon = _weak(epsilon)  # (float32 stays float32)
    # positive axes count in the input shape init_fn saw (batch axis included): resolved
    # there, they name the same axes of one example under fg.vmap
    init_ndim = []

    def neg_axes(ndim):
        return tuple(a - ndim for a in _norm_axes(axis, ndim, "LayerNorm"))

    def params(key, input_shape):
        init_ndim[:] = [len(input_shape)]
        fs = tuple(input_shape[a] for a in neg_axes(len(input_shape)))
        return _affine_params(fs, center, scale, beta_init, gamma_init, key)

    def apply_fn(params: Params, x: Array, **kw) -> Array:
        nd = fnp.ndim(x)
        axes = tuple(a + nd for a in neg_axes(init_ndim[0] if init_ndim else nd))
        if not all(0 <= a < nd for a in axes):
            raise ValueError(f"LayerNorm(axis={axis}): input of shape {fnp.shape(x)} has no "
                             f"axes {axes}; init_fn was given {init_ndim[0]} dims")
        mean = fnp.mean(x, axis=axes, keepdims=True)
        var = fnp.mean(fnp.square(x - mean), axis=axes, keepdims=True)
        y = (x - mean) / fnp.sqrt(var + epsilon)
        shape = tuple(d if i in axes else 1 for i, d in enumerate(fnp.shape(x)))
        return _scale_shift(y, params, center, scale, shape)

    return _stateless(tuple, params, apply_fn)


def GroupNorm(num_groups: int = 32, epsilon: float = 1e-5, center: bool = True,
              scale: bool = True, beta_init: inits.Initializer = inits.zeros,
              gamma_init: inits.Initializer = inits.ones) -> Layer:
    """Group normalization of channel-last inputs (N, ..., C): the C channels form
    `num_groups` groups of C // num_groups, each normalized per example over its channels
    and all spatial axes; params `(beta, gamma)` of shape (C,). No state.

    Example:
        >>> init_fn, apply_fn = fg.nn.GroupNorm(num_groups=2)
        >>> _, params = init_fn(fg.random.key(0), (-1, 4))
        >>> np.round(apply_fn(params, np.array([[1., 3., 0., 0.]])), 3)
        array([[-1.,  1.,  0.,  0.]])
    """
    num_groups = lax_conv.int_scalar("GroupNorm", "num_groups", num_groups, 1)
    epsilon = _weak(epsilon)  # (float32 stays float32)

    def params(key, input_shape):
        c = input_shape[-1]
        if c % num_groups:
            raise ValueError(f"GroupNorm: the channel count {c} (last axis of input shape "
                             f"{tuple(input_shape)}) must be divisible by num_groups="
                             f"{num_groups}; pass a num_groups that divides it")
        return _affine_params((c,), center, scale, beta_init, gamma_init, key)

    def apply_fn(params: Params, x: Array, **kw) -> Array:
        shape = tuple(fnp.shape(x))
        c = shape[-1] if shape else 0
        if not shape or c % num_groups or (scale and np.shape(params[1]) != (c,)) or (
                center and np.shape(params[0]) != (c,)):
            raise ValueError(f"GroupNorm: input shape {shape} must be channels-last with a "
                             f"channel count divisible by num_groups={num_groups} and equal "
                             f"to the params' (beta, gamma shapes "
                             f"{tuple(np.shape(p_) for p_ in params)}); call init_fn with "
                             f"this input shape or feed inputs of its channel count")
        g = fnp.reshape(x, shape[:-1] + (num_groups, shape[-1] // num_groups))
        axes = tuple(range(1, len(shape) - 1)) + (len(shape),)  # all but batch and group
        mean = fnp.mean(g, axis=axes, keepdims=True)
        var = fnp.mean(fnp.square(g - mean), axis=axes, keepdims=True)
        y = fnp.reshape((g - mean) / fnp.sqrt(var + epsilon), shape)
        return _scale_shift(y, params, center, scale, (1,) * (len(shape) - 1) + (shape[-1],))

    return _stateless(tuple, params, apply_fn)


# ------------------------------------------------------------------ dropout
def Dropout(rate: float) -> Layer:
    """Inverted dropout: in training (`training=True`, the default) each element is dropped
    (set to 0) with probability `rate` and the others are scaled by 1 / (1 - rate), drawn
    with apply's `key=` (required then); with `training=False` it is the identity.

    Example:
        >>> _, apply_fn = fg.nn.Dropout(0.5)
        >>> y = apply_fn((), np.ones(1000), key=fg.random.key(0))
        >>> sorted(set(y.tolist()))
        [0.0, 2.0]
        >>> apply_fn((), np.ones(2), training=False)
        array([1., 1.])
    """
    if isinstance(rate, (str, bytes)) or rate is None or np.ndim(rate) != 0 \
            or not 0.0 <= rate <= 1.0:
        raise ValueError(f"Dropout: rate is the probability of dropping an element, in "
                         f"[0, 1]; got {rate}")
    rate = _weak(rate)  # a np.float64 rate made float32 activations float64

    def apply_fn(params: Params, x: Array, *, key: Optional[Array] = None,
                 training: bool = True, **kw) -> Array:
        if not training or rate == 0.0:
            return x
        if key is None:
            raise ValueError("Dropout: apply in training needs key= (a fg.random key, e.g. "
                             "fg.random.key(0)); pass training=False to apply it as the "
                             "identity")
        if rate == 1.0:
            return fnp.zeros_like(x)
        keep = random.bernoulli(key, 1.0 - rate, fnp.shape(x))
        return fnp.where(keep, x / (1.0 - rate), 0)

    return _stateless(tuple, _no_params, apply_fn)


# ------------------------------------------------------------------ activations
def elementwise(fn: Callable[..., Array], **fn_kwargs: Any) -> Layer:
    """A parameter-free layer applying `fn(x, **fn_kwargs)`.

    Example:
        >>> _, apply_fn = fg.nn.elementwise(fg.nn.leaky_relu, negative_slope=0.5)
        >>> apply_fn((), np.array([-2.0, 1.0]))
        array([-1.,  1.])
    """
    return _stateless(tuple, _no_params, lambda params, x, **kw: fn(x, **fn_kwargs))


Relu = elementwise(act.relu)
Gelu = elementwise(act.gelu)
Sigmoid = elementwise(act.sigmoid)
Tanh = elementwise(act.tanh)
Softplus = elementwise(act.softplus)
Elu = elementwise(act.elu)
LeakyRelu = elementwise(act.leaky_relu)
Selu = elementwise(act.selu)
Silu = elementwise(act.silu)
LogSoftmax = elementwise(act.log_softmax, axis=-1)
Softmax = elementwise(act.softmax, axis=-1)
Exp = elementwise(fnp.exp)


# ------------------------------------------------------------------ convolution, pooling
DimensionNumbers = Tuple[str, str, str]


def _fix_batch(shape_fn, input_shape, batch_in: int, batch_out: int):
    """`shape_fn` of `input_shape` with a batch dim of -1 (unknown) computed as 1 and
    given back as -1."""
    shape = tuple(input_shape)
    unknown = shape[batch_in] == -1
    out = list(shape_fn(shape[:batch_in] + (1,) + shape[batch_in + 1:] if unknown else shape))
    if unknown:
        out[batch_out] = -1
    return tuple(out)


def _cast(x, dtype):
    return x if x.dtype == dtype else x.astype(dtype)


def _check_rank(layer: str, spec: str, shape) -> None:
    if len(shape) != len(spec):
        raise ValueError(
            f"{layer}: input shape {tuple(shape)} has {len(shape)} dims, but the layout "
            f"{spec!r} needs {len(spec)} (batch {spec.index('N')}, channels "
            f"{spec.index('C')}, the rest spatial); add the missing axes (a batch axis: x[None], "
            f"one channel: x[..., None]) or build the layer with the input's layout")


def _check_channels(layer: str, lhs_spec: str, shape, expected: int, kernel_shape) -> None:
    c = shape[lhs_spec.index("C")]
    if c != expected:
        raise ValueError(
            f"{layer}: input shape {tuple(shape)} has {c} channels (axis "
            f"{lhs_spec.index('C')} of layout {lhs_spec!r}), but the kernel (shape "
            f"{tuple(kernel_shape)}) was initialized for {expected}; call init_fn with this "
            f"input shape, or feed inputs with {expected} channels")


def _check_layouts(layer: str, dimension_numbers) -> None:
    """Layout strings as stax takes them: (lhs, kernel, out), e.g. ('NHWC', 'HWIO', 'NHWC')."""
    ok = (isinstance(dimension_numbers, (tuple, list)) and len(dimension_numbers) == 3
          and all(isinstance(d, str) for d in dimension_numbers))
    if ok:
        lhs, rhs, out = dimension_numbers
        ok = ({"N", "C"} <= set(lhs) and {"O", "I"} <= set(rhs) and {"N", "C"} <= set(out)
              and set(lhs) - {"N", "C"} == set(rhs) - {"O", "I"} == set(out) - {"N", "C"})
    if not ok:
        raise ValueError(f"{layer}: dimension_numbers {dimension_numbers!r} must be three layout "
                         f"strings (input, kernel, output) such as ('NHWC', 'HWIO', 'NHWC'): "
                         f"'N' batch and 'C' channels in input and output, 'I' / 'O' in the "
                         f"kernel, the same spatial letters in all three")


def _conv_layer(layer: str, dimension_numbers: DimensionNumbers, out_chan: int,
                filter_shape: Sequence[int], strides: Optional[Sequence[int]], padding: Any,
                W_init: Optional[inits.Initializer], b_init: inits.Initializer,
                rhs_dilation: Optional[Sequence[int]], feature_group_count: int,
                transpose: bool) -> Layer:
    """A (transposed) convolution layer, params `(W, b)`: W laid out as the rhs spec with
    'I' = input channels // feature_group_count and 'O' = out_chan, b of the output's rank
    (out_chan on the channel axis, 1 elsewhere), as stax."""
    _check_layouts(layer, dimension_numbers)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    nd = len(filter_shape)
    if len(lhs_spec) != nd + 2 or len(rhs_spec) != nd + 2 or len(out_spec) != nd + 2:
        raise ValueError(f"{layer}: filter_shape {tuple(filter_shape)} has {nd} spatial dims, "
                         f"so dimension_numbers {dimension_numbers} need {nd + 2} letters each")
    per = f"spatial dim of filter_shape {tuple(filter_shape)}"
    filter_shape = lax_conv.int_tuple(layer, "filter_shape", filter_shape, nd, 1, per)
    strides = lax_conv.int_tuple(layer, "strides", strides, nd, 1, per) if strides \
        else (1,) * nd
    rhs_dilation = lax_conv.int_tuple(layer, "rhs_dilation", rhs_dilation, nd, 1, per) \
        if rhs_dilation else (1,) * nd
    g = lax_conv.int_scalar(layer, "feature_group_count", feature_group_count, 1)
    out_chan = lax_conv.int_scalar(layer, "out_chan", out_chan, 0)
    if out_chan % g:
        raise ValueError(f"{layer}: out_chan={out_chan} must be divisible by "
                         f"feature_group_count={g} (each group makes out_chan // groups)")
    W_init = W_init or inits.glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def kernel_shape(input_shape):
        _check_rank(layer, lhs_spec, input_shape)
        c = input_shape[lhs_spec.index("C")]
        if c % g:
            raise ValueError(f"{layer}: the {c} input channels (input shape "
                             f"{tuple(input_shape)}) must be divisible by feature_group_count="
                             f"{g}; pass a feature_group_count that divides them")
        sizes = iter(filter_shape)
        return tuple(out_chan if d == "O" else c // g if d == "I" else next(sizes)
                     for d in rhs_spec)

    def conv_args(input_shape, k_shape):
        """conv_general_dilated's keyword arguments for this input and kernel shape."""
        if transpose:
            return lax_conv.conv_transpose_args(input_shape, k_shape, strides, padding,
                                                rhs_dilation, dimension_numbers)
        return dict(window_strides=strides, padding=padding, rhs_dilation=rhs_dilation,
                    dimension_numbers=dimension_numbers, feature_group_count=g)

    def concrete_shape(input_shape):
        k_shape = kernel_shape(input_shape)
        return lax_conv.conv_general_shape(input_shape, k_shape,
                                           **conv_args(input_shape, k_shape))

    def out_shape(input_shape):
        return _fix_batch(concrete_shape, input_shape, lhs_spec.index("N"),
                          out_spec.index("N"))

    def params(key, input_shape):
        k1, k2 = random.split(key)
        bias_shape = tuple(out_chan if d == "C" else 1 for d in out_spec)
        return W_init(k1, kernel_shape(input_shape)), b_init(k2, bias_shape)

    def apply_fn(params: Params, x: Array, **kw) -> Array:
        W, b = params
        x = fnp.asarray(x)
        shape = fnp.shape(x)
        _check_rank(layer, lhs_spec, shape)
        _check_channels(layer, lhs_spec, shape, W.shape[rhs_spec.index("I")] * g, W.shape)
        dt = fnp.result_type(x, W)  # float32 inputs with float64 params compute in float64
        y = lax_conv.conv_general_dilated(_cast(x, dt), _cast(W, dt),
                                          **conv_args(shape, W.shape))
        return y + b

    return _stateless(out_shape, params, apply_fn)


def GeneralConv(dimension_numbers: DimensionNumbers, out_chan: int,
                filter_shape: Sequence[int], strides: Optional[Sequence[int]] = None,
                padding: Any = "VALID", W_init: Optional[inits.Initializer] = None,
                b_init: inits.Initializer = inits.normal(1e-6),
                rhs_dilation: Optional[Sequence[int]] = None,
                feature_group_count: int = 1) -> Layer:
    """Convolution layer (stax's): `fg.lax.conv_general_dilated(x, W, strides, padding,
    rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers, feature_group_count=...)
    + b`, with `dimension_numbers` a triple of layout strings (lhs, kernel, out), e.g.
    ('NCHW', 'OIHW', 'NCHW'). Params `(W, b)`: W in the kernel layout with 'I' = input
    channels // feature_group_count and 'O' = out_chan, drawn by `W_init` (default
    glorot_normal over those in / out axes); b of the output's rank, out_chan on its channel
    axis (default normal(1e-6)). `padding`: 'SAME', 'VALID' or (lo, hi) pairs.

    Example:
        >>> init_fn, apply_fn = fg.nn.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3))
        >>> shape, (W, b) = init_fn(fg.random.key(0), (-1, 2, 8, 8))
        >>> shape, W.shape, b.shape
        ((-1, 4, 6, 6), (4, 2, 3, 3), (1, 4, 1, 1))
    """
    return _conv_layer("GeneralConv", dimension_numbers, out_chan, filter_shape, strides,
                       padding, W_init, b_init, rhs_dilation, feature_group_count, False)


def GeneralConvTranspose(dimension_numbers: DimensionNumbers, out_chan: int,
                         filter_shape: Sequence[int], strides: Optional[Sequence[int]] = None,
                         padding: Any = "VALID", W_init: Optional[inits.Initializer] = None,
                         b_init: inits.Initializer = inits.normal(1e-6),
                         rhs_dilation: Optional[Sequence[int]] = None) -> Layer:
    """Transposed convolution layer (stax's): `fg.lax.conv_transpose(x, W, strides, padding,
    rhs_dilation, dimension_numbers) + b`; 'SAME' multiplies each spatial size by its
    stride, 'VALID' gives `n * stride + max(k - stride, 0)`. Params `(W, b)` as
    `GeneralConv`'s (kernel 'I' = input channels, 'O' = out_chan).

    Example:
        >>> init_fn, apply_fn = fg.nn.GeneralConvTranspose(("NCHW", "OIHW", "NCHW"), 4, (2, 2),
        ...                                                strides=(2, 2))
        >>> init_fn(fg.random.key(0), (-1, 3, 5, 5))[0]
        (-1, 4, 10, 10)
    """
    return _conv_layer("GeneralConvTranspose", dimension_numbers, out_chan, filter_shape,
                       strides, padding, W_init, b_init, rhs_dilation, 1, True)


def _conv_family(name: str, dimension_numbers: DimensionNumbers, transpose: bool,
                 example: str):
    """`GeneralConv` / `GeneralConvTranspose` with fixed layouts (a table row below)."""
    general = "GeneralConvTranspose" if transpose else "GeneralConv"

    if transpose:
        def factory(out_chan: int, filter_shape: Sequence[int],
                    strides: Optional[Sequence[int]] = None, padding: Any = "VALID",
                    W_init: Optional[inits.Initializer] = None,
                    b_init: inits.Initializer = inits.normal(1e-6),
                    rhs_dilation: Optional[Sequence[int]] = None) -> Layer:
            return _conv_layer(name, dimension_numbers, out_chan, filter_shape, strides,
                               padding, W_init, b_init, rhs_dilation, 1, True)
    else:
        def factory(out_chan: int, filter_shape: Sequence[int],
                    strides: Optional[Sequence[int]] = None, padding: Any = "VALID",
                    W_init: Optional[inits.Initializer] = None,
                    b_init: inits.Initializer = inits.normal(1e-6),
                    rhs_dilation: Optional[Sequence[int]] = None,
                    feature_group_count: int = 1) -> Layer:
            return _conv_layer(name, dimension_numbers, out_chan, filter_shape, strides,
                               padding, W_init, b_init, rhs_dilation, feature_group_count,
                               False)
    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = (f"`{general}({dimension_numbers}, ...)`: layout {dimension_numbers[0]!r} "
                       f"in and out, kernel {dimension_numbers[1]!r}.\n\n"
                       f"    Example:\n        >>> init_fn, apply_fn = fg.nn.{name}{example}\n")
    return factory


Conv = _conv_family("Conv", ("NHWC", "HWIO", "NHWC"), False, """(8, (3, 3), padding="SAME")
        >>> init_fn(fg.random.key(0), (-1, 28, 28, 1))[0]
        (-1, 28, 28, 8)
    """)
Conv1D = _conv_family("Conv1D", ("NWC", "WIO", "NWC"), False, """(8, (3,), strides=(2,))
        >>> init_fn(fg.random.key(0), (-1, 11, 4))[0]
        (-1, 5, 8)
    """)
Conv3D = _conv_family("Conv3D", ("NDHWC", "DHWIO", "NDHWC"), False, """(2, (2, 2, 2))
        >>> init_fn(fg.random.key(0), (-1, 4, 4, 4, 1))[0]
        (-1, 3, 3, 3, 2)
    """)
ConvTranspose = _conv_family("ConvTranspose", ("NHWC", "HWIO", "NHWC"), True,
                             """(8, (3, 3), strides=(2, 2), padding="SAME")
        >>> init_fn(fg.random.key(0), (-1, 7, 7, 16))[0]
        (-1, 14, 14, 8)
    """)
Conv1DTranspose = _conv_family("Conv1DTranspose", ("NWC", "WIO", "NWC"), True,
                               """(8, (3,), strides=(2,))
        >>> init_fn(fg.random.key(0), (-1, 5, 4))[0]
        (-1, 11, 8)
    """)


def _pool_layer(layer: str, computation: str, init_value: float, average: bool,
                window_shape: Sequence[int], strides: Optional[Sequence[int]], padding: Any,
                spec: Optional[str]) -> Layer:
    """A pooling layer: `fg.lax.reduce_window` over the spatial axes of `spec` (default
    channels last, batch first), the batch and channel axes with windows of 1."""
    nd = len(window_shape)
    spec = spec or "N" + ("HWD"[:nd] if nd <= 3 else "S" * nd) + "C"  # channels last
    if len(spec) != nd + 2 or not {"N", "C"} <= set(spec):
        raise ValueError(f"{layer}: spec {spec!r} must name the batch 'N', the channels 'C' "
                         f"and the {nd} spatial axes of window_shape {tuple(window_shape)}")
    n_axis, c_axis = spec.index("N"), spec.index("C")
    per = f"spatial axis of window_shape {tuple(window_shape)}"
    window_shape = lax_conv.int_tuple(layer, "window_shape", window_shape, nd, 1, per)
    strides = lax_conv.int_tuple(layer, "strides", strides, nd, 1, per) if strides \
        else (1,) * nd
    window, steps = [], []
    spatial = iter(zip(window_shape, strides))
    for i in range(nd + 2):
        k, s = (1, 1) if i in (n_axis, c_axis) else next(spatial)
        window.append(int(k))
        steps.append(int(s))
    window, steps = tuple(window), tuple(steps)
    if not isinstance(padding, str):  # pairs for the spatial axes; none on batch, channels
        if len(padding) != nd:
            raise ValueError(f"{layer}: padding {padding!r} needs one (lo, hi) pair per "
                             f"spatial axis of window_shape {tuple(window_shape)} ({nd})")
        pairs = iter(padding)
        padding = tuple((0, 0) if i in (n_axis, c_axis) else tuple(next(pairs))
                        for i in range(nd + 2))

    def full_shape(input_shape):
        _check_rank(layer, spec, input_shape)
        return lax_conv.conv_general_shape((1, 1) + input_shape, (1, 1) + window, steps,
                                           padding)[2:]

    cache: dict = {}

    def divisor(shape, dtype):
        """How many real (not padding) elements each window holds: a Python number where
        all windows are full (no padding in them), else a NumPy constant of x's dtype for
        the static shape (computed once per shape)."""
        key = (tuple(shape), np.dtype(dtype))
        if key not in cache:
            ones = np.ones(tuple(1 if i in (n_axis, c_axis) else d for i, d in enumerate(shape)))
            c = np.asarray(lax_conv.reduce_window(ones, 0.0, "add", window, steps, padding))
            full = c.size and (c == c.flat[0]).all()
            cache[key] = float(c.flat[0]) if full else c.astype(dtype)
        return cache[key]

    def apply_fn(params: Params, x: Array, **kw) -> Array:
        x = fnp.asarray(x)
        _check_rank(layer, spec, fnp.shape(x))
        y = lax_conv.reduce_window(x, init_value, computation, window, steps, padding)
        if not average:
            return y
        d = divisor(fnp.shape(x), fnp.result_type(y))
        return y / (d if isinstance(d, float) else like(y, d))  # (the divisor on y's device)

    return _stateless(lambda s: _fix_batch(full_shape, s, n_axis, n_axis), _no_params,
                      apply_fn)


def MaxPool(window_shape: Sequence[int], strides: Optional[Sequence[int]] = None,
            padding: Any = "VALID", spec: Optional[str] = None) -> Layer:
    """Max pooling (stax's) over windows of `window_shape` on the spatial axes of `spec`
    (default batch first, channels last: 'NHWC' for 2-D windows); `strides` default 1;
    `padding` 'SAME', 'VALID' or one (lo, hi) pair per spatial axis (pads never win). A
    gradient is split evenly between tied maxima (as `fnp.max`'s; JAX's reduce_window gives
    it all to one of them). Infinite and NaN inputs pool as `fnp.max` does. Windows that
    tile the input (strides == window_shape, VALID) take a reshape-and-max fast path.

    Example:
        >>> init_fn, apply_fn = fg.nn.MaxPool((2, 2), strides=(2, 2))
        >>> init_fn(fg.random.key(0), (-1, 6, 6, 3))[0]
        (-1, 3, 3, 3)
        >>> apply_fn((), np.arange(16.0).reshape(1, 4, 4, 1))[0, :, :, 0]
        array([[ 5.,  7.],
               [13., 15.]])
    """
    return _pool_layer("MaxPool", "max", -np.inf, False, window_shape, strides, padding, spec)


def SumPool(window_shape: Sequence[int], strides: Optional[Sequence[int]] = None,
            padding: Any = "VALID", spec: Optional[str] = None) -> Layer:
    """Sum pooling (stax's): each window's sum, arguments as `MaxPool`'s (pads add 0).

    Example:
        >>> _, apply_fn = fg.nn.SumPool((2, 2), strides=(2, 2))
        >>> apply_fn((), np.ones((1, 4, 4, 1)))[0, :, :, 0]
        array([[4., 4.],
               [4., 4.]])
    """
    return _pool_layer("SumPool", "add", 0.0, False, window_shape, strides, padding, spec)


def AvgPool(window_shape: Sequence[int], strides: Optional[Sequence[int]] = None,
            padding: Any = "VALID", spec: Optional[str] = None) -> Layer:
    """Average pooling (stax's): each window's sum divided by the number of real input
    elements in it, so windows overlapping 'SAME' padding average only what they cover;
    arguments as `MaxPool`'s.

    Example:
        >>> _, apply_fn = fg.nn.AvgPool((2, 2), padding="SAME")
        >>> apply_fn((), np.arange(4.0).reshape(1, 2, 2, 1))[0, :, :, 0]
        array([[1.5, 2. ],
               [2.5, 3. ]])
    """
    return _pool_layer("AvgPool", "add", 0.0, True, window_shape, strides, padding, spec)
