"""Activation functions and softmax-family reductions (jax.nn's names and semantics).

Each is written with fungrad.numpy, so grad, jit and vmap compose with it. Where the
textbook formula overflows or differentiates to nan (sigmoid at -1e4, logsumexp at 1e4,
a `where` branch that is not taken), the formula below keeps every value and every
derivative finite; the comment at each says how.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Tuple, Union

import numpy as np

from .. import numpy as fnp
from ..lax.convolution import int_scalar
from ..numpy._base import single_axis
from ..lax.elementwise import erf
from ..lax.misc import stop_gradient
from ..transforms.custom import custom_jvp, stage_once_per_signature
from ..numpy._base import is_traced as _is_traced
from ._util import (Array, ArrayLike, Axis, exp_limit, inexact, masked_mean,
                    narrow_floats_computed_in_float32, positive_or_one, shift_for_exp,
                    squeeze_axes)

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "sigmoid",
           "log_sigmoid", "softplus", "silu", "swish", "hard_tanh", "hard_sigmoid",
           "hard_silu", "hard_swish", "glu", "mish", "tanh", "softmax", "log_softmax",
           "logsumexp", "standardize", "one_hot", "identity", "soft_sign", "squareplus",
           "sparse_plus", "sparse_sigmoid", "log1mexp", "logmeanexp"]

DTypeLike = Any  # a NumPy dtype or anything np.dtype accepts
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# ----------------------------------------------------------------------------- piecewise
def relu(x: ArrayLike) -> Array:
    """Rectified linear unit, `max(x, 0)`; its derivative at 0 is 0 (as JAX's).

    Example:
        >>> fg.nn.relu(np.array([-1.0, 0.0, 2.0]))
        array([0., 0., 2.])
    """
    return _relu(fnp.asarray(x))


@stage_once_per_signature  # (reads only x: its graphs are staged once per shape and dtype)
@custom_jvp
def _relu(x):
    # (np.maximum returns a NaN operand: NaN propagates, as JAX's relu)
    return fnp.maximum(x, 0)


@_relu.defjvp
def _relu_jvp(primals, tangents):
    # JAX's rule, select(x > 0, t, 0): slope 0 at 0 and at NaN. As a rule of its own, the
    # forward pass is one maximum and the mask one comparison (a where-built relu with
    # JAX's slope at NaN took two selects and two comparisons over the activations)
    (x,), (t,) = primals, tangents
    return _relu(x), fnp.where(x > 0, t, 0)


def _slope_where(inside, x, y):
    """`y` (a piecewise-linear activation of `x` whose slope is 1 exactly where `inside`,
    else 0) with that slope also at NaN, where `y`'s masks let NaN (and its tangent)
    through: `x` where `inside`, else the constant `y`. Plain arrays return `y` itself."""
    if not _is_traced(x):
        return y
    return fnp.where(inside, x, stop_gradient(y))


def relu6(x: ArrayLike) -> Array:
    """`min(max(x, 0), 6)`; its derivative is 0 at 0 and at 6 (as JAX's).

    Example:
        >>> fg.nn.relu6(np.array([-1.0, 3.0, 7.0]))
        array([0., 3., 6.])
    """
    x = fnp.asarray(x)
    y = fnp.where(x <= 0, 0, fnp.where(x >= 6, 6, x))  # (NaN propagates)
    return _slope_where(fnp.logical_and(x > 0, x < 6), x, y)  # (slope 0 at NaN, as JAX's)


def leaky_relu(x: ArrayLike, negative_slope: float = 1e-2) -> Array:
    """`x` where `x >= 0`, else `negative_slope * x`.

    Example:
        >>> fg.nn.leaky_relu(np.array([-2.0, 3.0]), negative_slope=0.1)
        array([-0.2,  3. ])
    """
    x = fnp.asarray(x)
    return fnp.where(x >= 0, x, negative_slope * x)


def _expm1_of_negative_part(x: Array, alpha: float = 1.0) -> Array:
    """`expm1(x / alpha)` for x <= 0 and 0 elsewhere: exp never sees a large positive x,
    whose inf would make the untaken `where` branch's derivative 0 * inf = nan."""
    return fnp.expm1(fnp.where(x > 0, 0, x) / alpha)


def elu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Exponential linear unit: `x` if `x > 0`, else `alpha * (exp(x) - 1)`.

    Example:
        >>> fg.nn.elu(np.array([-1.0, 2.0]))
        array([-0.63212056,  2.        ])
    """
    x = inexact(x)
    return fnp.where(x > 0, x, alpha * _expm1_of_negative_part(x))


def selu(x: ArrayLike) -> Array:
    """Scaled ELU: `scale * elu(x, alpha)` with the self-normalizing constants
    (alpha ~ 1.6733, scale ~ 1.0507).

    Example:
        >>> fg.nn.selu(np.array([1.0]))
        array([1.05070099])
    """
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Continuously differentiable ELU: `x` if `x > 0`, else `alpha * (exp(x / alpha) - 1)`.

    Example:
        >>> fg.nn.celu(np.array([-1.0, 2.0]), alpha=2.0)
        array([-0.78693868,  2.        ])
    """
    x = inexact(x)
    # JAX's formula (no where): at 0 both kinks are ties, so the second derivative there is
    # JAX's 1 / (4 alpha), not the left branch's 1 / alpha; expm1 never sees x > 0. (0.0
    # first: NumPy returns the second operand on a tie, so celu(-0.0) stays -0.0.)
    return fnp.maximum(0.0, x) + alpha * fnp.expm1(fnp.minimum(0.0, x) / alpha)


def hard_tanh(x: ArrayLike) -> Array:
    """`x` clipped to [-1, 1].

    Example:
        >>> fg.nn.hard_tanh(np.array([-3.0, 0.5, 2.0]))
        array([-1. ,  0.5,  1. ])
    """
    x = fnp.asarray(x)
    return fnp.where(x > 1, 1, fnp.where(x < -1, -1, x))


def hard_sigmoid(x: ArrayLike) -> Array:
    """Piecewise-linear sigmoid: `relu6(x + 3) / 6`.

    Example:
        >>> fg.nn.hard_sigmoid(np.array([-4.0, 0.0, 4.0]))
        array([0. , 0.5, 1. ])
    """
    return relu6(inexact(x) + 3.0) / 6.0


def hard_silu(x: ArrayLike) -> Array:
    """`x * hard_sigmoid(x)` (also called hard_swish).

    Example:
        >>> fg.nn.hard_silu(np.array([-4.0, 1.0, 4.0]))
        array([-0.        ,  0.66666667,  4.        ])
    """
    x = inexact(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def sparse_plus(x: ArrayLike) -> Array:
    """Softplus's piecewise-quadratic twin: 0 for `x <= -1`, `(x + 1)**2 / 4` between, `x`
    for `x >= 1` (smooth, convex; its derivative is `sparse_sigmoid`).

    Example:
        >>> fg.nn.sparse_plus(np.array([-2.0, 0.0, 2.0]))
        array([0.  , 0.25, 2.  ])
    """
    x = inexact(x)
    # the square sees x clipped to [-1, 1]: the branches a where drops stay finite
    c = fnp.clip(x, -1.0, 1.0)
    return fnp.where(x <= -1.0, 0.0, fnp.where(x >= 1.0, x, (c + 1.0) * (c + 1.0) / 4.0))


def sparse_sigmoid(x: ArrayLike) -> Array:
    """`clip(x + 1, 0, 2) / 2`: 0 for `x <= -1`, 1 for `x >= 1`, linear between (the
    derivative of `sparse_plus`).

    Example:
        >>> fg.nn.sparse_sigmoid(np.array([-2.0, 0.0, 2.0]))
        array([0. , 0.5, 1. ])
    """
    return 0.5 * fnp.clip(inexact(x) + 1.0, 0.0, 2.0)


# ----------------------------------------------------------------------------- smooth
def tanh(x: ArrayLike) -> Array:
    """Hyperbolic tangent (fungrad.numpy.tanh).

    Example:
        >>> fg.nn.tanh(np.array([0.0]))
        array([0.])
    """
    return fnp.tanh(x)


def sigmoid(x: ArrayLike) -> Array:
    """Logistic function `1 / (1 + exp(-x))`, finite with finite derivatives for any x.

    Example:
        >>> fg.nn.sigmoid(np.array([0.0, 1e4, -1e4]))
        array([0.5, 1. , 0. ])
    """
    x = inexact(x)
    # e = exp(-|x|) <= 1 never overflows; |x| is written as a where so that its slope at 0
    # is that of the x >= 0 branch (sigmoid'(0) = 1/4).
    e = fnp.exp(fnp.where(x >= 0, -x, x))
    p = 1.0 / (1.0 + e)                      # sigmoid(|x|)
    return fnp.where(x >= 0, p, e * p)       # sigmoid(-|x|) = e / (1 + e)


def softplus(x: ArrayLike) -> Array:
    """`log(1 + exp(x))`, computed as `logaddexp(x, 0)` (stable at |x| = 1e4).

    Example:
        >>> fg.nn.softplus(np.array([0.0, 1e4]))
        array([6.93147181e-01, 1.00000000e+04])
    """
    return fnp.logaddexp(inexact(x), 0.0)


def log_sigmoid(x: ArrayLike) -> Array:
    """`log(sigmoid(x)) = -softplus(-x)`, stable for large |x|.

    Example:
        >>> fg.nn.log_sigmoid(np.array([0.0, -1e4]))
        array([-6.93147181e-01, -1.00000000e+04])
    """
    return -softplus(-inexact(x))


def silu(x: ArrayLike) -> Array:
    """Sigmoid linear unit `x * sigmoid(x)` (also called swish).

    Example:
        >>> fg.nn.silu(np.array([0.0, 1.0]))
        array([0.        , 0.73105858])
    """
    x = inexact(x)
    return x * sigmoid(x)


swish = silu


def soft_sign(x: ArrayLike) -> Array:
    """`x / (|x| + 1)`.

    Example:
        >>> fg.nn.soft_sign(np.array([-3.0, 1.0]))
        array([-0.75,  0.5 ])
    """
    x = inexact(x)
    return x / (fnp.abs(x) + 1.0)


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """`(x + sqrt(x**2 + b)) / 2`, a smooth softplus-like function (b sets the smoothness).

    Example:
        >>> fg.nn.squareplus(np.array([0.0, 1.5]))
        array([1., 2.])
    """
    x = inexact(x)
    return (x + fnp.sqrt(fnp.square(x) + b)) / 2.0


def log1mexp(x: ArrayLike) -> Array:
    """`log(1 - exp(-x))` for `x >= 0`, accurate for small and large `x` (expm1 below
    log 2, log1p above); nan for `x < 0`, where it is undefined.

    Example:
        >>> fg.nn.log1mexp(np.array([1e-10, 50.0]))
        array([-2.30258509e+01, -1.92874985e-22])
    """
    return _log1mexp(inexact(x))


@stage_once_per_signature
@custom_jvp
def _log1mexp(x):
    small = x < math.log(2.0)
    # each branch sees an operand where it is accurate and finite (the other is dropped)
    return fnp.where(small, fnp.log(-fnp.expm1(-fnp.where(small, x, 1.0))),
                     fnp.log1p(-fnp.exp(-fnp.where(small, 1.0, x))))


@_log1mexp.defjvp
def _log1mexp_jvp(primals, tangents):
    # d/dx log(1 - exp(-x)) = exp(-x) / (1 - exp(-x)) (= 1 / expm1(x), whose expm1 overflows
    # past x ~ 710): one rule for both branches (the where form's slope would be the dropped
    # branch's at the boundary)
    (x,), (t,) = primals, tangents
    return _log1mexp(x), t * (-fnp.exp(-x) / fnp.expm1(-x))


def mish(x: ArrayLike) -> Array:
    """`x * tanh(softplus(x))`.

    Example:
        >>> fg.nn.mish(np.array([1.0]))
        array([0.86509839])
    """
    x = inexact(x)
    return x * fnp.tanh(softplus(x))


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """Gaussian error linear unit `x * Phi(x)`: with `approximate=True` (the default, as
    JAX) Phi is the tanh approximation, with `approximate=False` the exact normal CDF
    `(1 + erf(x / sqrt(2))) / 2`.

    Example:
        >>> fg.nn.gelu(np.array([1.0]), approximate=False)
        array([0.84134475])
    """
    x = inexact(x)
    if approximate:
        # the cube of a clipped x: tanh is exactly +-1 past |x| = 10 in every float dtype,
        # and float16's x**3 overflows past 40 (tanh's slope 0 times an infinite one is NaN)
        c = fnp.clip(x, -10.0, 10.0)
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * (c * c * c))
        return x * (0.5 * (1.0 + fnp.tanh(inner)))
    return x * (0.5 * (1.0 + erf(x * (1.0 / math.sqrt(2.0)))))


def glu(x: ArrayLike, axis: int = -1) -> Array:
    """Gated linear unit: split `x` in halves `a, b` along `axis`, return `a * sigmoid(b)`.

    Example:
        >>> fg.nn.glu(np.array([2.0, 0.0]))
        array([1.])
    """
    x = inexact(x)
    shape = tuple(fnp.shape(x))
    size = shape[single_axis("glu", axis, len(shape))]
    if size % 2:
        raise ValueError(f"glu: x's axis {axis} must have even length to split in halves; "
                         f"got shape {fnp.shape(x)}")
    a, b = fnp.split(x, 2, axis=axis)
    return a * sigmoid(b)


# ----------------------------------------------------------------------------- softmax family
def softmax(x: ArrayLike, axis: Axis = -1, where: Optional[ArrayLike] = None) -> Array:
    """`exp(x) / sum(exp(x), axis)`, stable for logits of any size; `where` (a bool array
    broadcastable to x) leaves elements out, and their output is 0.

    Example:
        >>> fg.nn.softmax(np.array([1e4, 1e4, -1e4]))
        array([0.5, 0.5, 0. ])
    """
    x = inexact(x)
    shifted = x - shift_for_exp(x, axis, where)
    if where is not None:
        shifted = fnp.where(where, shifted, -np.inf)   # exp(-inf) = 0, with slope 0
    e = fnp.exp(shifted)
    out = e / positive_or_one(fnp.sum(e, axis=axis, keepdims=True))
    return out if where is None else fnp.where(where, out, 0)


def log_softmax(x: ArrayLike, axis: Axis = -1, where: Optional[ArrayLike] = None) -> Array:
    """`x - logsumexp(x, axis)`, stable for logits of any size; `where` leaves elements
    out, and their output is -inf.

    Example:
        >>> fg.nn.log_softmax(np.array([0.0, 0.0]))
        array([-0.69314718, -0.69314718])
    """
    x = inexact(x)
    shifted = x - shift_for_exp(x, axis, where)
    kept = shifted if where is None else fnp.where(where, shifted, -np.inf)
    total = positive_or_one(fnp.sum(fnp.exp(kept), axis=axis, keepdims=True))
    out = shifted - fnp.log(total)
    return out if where is None else fnp.where(where, out, -np.inf)


def logsumexp(a: ArrayLike, axis: Axis = None, b: Optional[ArrayLike] = None,
              keepdims: bool = False, return_sign: bool = False,
              where: Optional[ArrayLike] = None) -> Union[Array, Tuple[Array, Array]]:
    """`log(sum(b * exp(a), axis))` (b = 1 by default), stable for any size of `a`;
    `where` leaves elements out (an all-masked slice gives -inf). A negative sum gives nan,
    unless `return_sign=True`, which returns `(log|sum|, sign(sum))`.

    Example:
        >>> fg.nn.logsumexp(np.array([1e4, 1e4]))
        array(10000.69314718)
    """
    a = inexact(a)
    if b is not None and where is not None:  # (a left-out inf or nan weight: not 0 * inf)
        b = fnp.where(where, b, 0)
    if b is None:
        m = shift_for_exp(a, axis, where)
    else:
        # elements of weight 0 are left out (as JAX's and SciPy's): an inf or nan there must
        # not reach the sum, nor a large one the shift; a finite one no larger than the shift
        # stays, so the slope in b there is still exp(a) / sum, unless exp(a - m) overflows:
        # such an a is -inf (slopes 0)
        zero = fnp.asarray(b) == 0
        m = shift_for_exp(a, axis, ~zero if where is None else fnp.logical_and(where, ~zero))
        a = fnp.where(fnp.logical_and(zero, ~(a - m <= exp_limit(a))), -np.inf, a)
    shifted = a - m
    if where is not None:
        shifted = fnp.where(where, shifted, -np.inf)
    e = fnp.exp(shifted)
    if b is not None:
        e = e * b
    s = fnp.sum(e, axis=axis, keepdims=True)
    sign = fnp.sign(s)
    magnitude = s if b is None else fnp.abs(s)
    # log of a safe operand, -inf put back by where: log(0)'s slope would be inf
    out = fnp.where(magnitude == 0, -np.inf, fnp.log(positive_or_one(magnitude))) + m
    if not return_sign:
        out = out if b is None else fnp.where(sign < 0, np.nan, out)
    if not keepdims:
        out, sign = squeeze_axes(out, axis), squeeze_axes(sign, axis)
    return (out, sign) if return_sign else out


def logmeanexp(x: ArrayLike, axis: Axis = None, where: Optional[ArrayLike] = None,
               keepdims: bool = False) -> Array:
    """`log(mean(exp(x), axis))` = `logsumexp(x, axis) - log(n)`, stable for any size of
    `x`; `where` leaves elements out (n counts the others).

    Example:
        >>> fg.nn.logmeanexp(np.array([1e4, 1e4]))
        array(10000.)
    """
    x = inexact(x)
    lse = logsumexp(x, axis=axis, keepdims=keepdims, where=where)
    kept = fnp.ones(fnp.shape(x), bool) if where is None else fnp.broadcast_to(
        where, fnp.shape(x))
    count = fnp.sum(kept, axis=axis, keepdims=keepdims)
    return fnp.asarray(lse - fnp.log(count.astype(fnp.result_type(lse))))


def identity(x: ArrayLike) -> Array:
    """`x` itself, as an array (an activation that does nothing, for layer tables).

    Example:
        >>> fg.nn.identity(np.array([-1.0, 2.0]))
        array([-1.,  2.])
    """
    return fnp.asarray(x)


def standardize(x: ArrayLike, axis: Axis = -1, mean: Optional[ArrayLike] = None,
                variance: Optional[ArrayLike] = None, epsilon: ArrayLike = 1e-5,
                where: Optional[ArrayLike] = None) -> Array:
    """`(x - mean) / sqrt(variance + epsilon)` with the mean and variance along `axis`
    (computed over the elements `where` selects, unless given).

    Example:
        >>> fg.nn.standardize(np.array([1.0, 3.0]), epsilon=0.0)
        array([-1.,  1.])
    """
    x = inexact(x)
    if mean is None:
        mean = masked_mean(x, axis, where, keepdims=True)
    if variance is None:
        # the mean of squared deviations (= E[x^2] - E[x]^2 without its cancellation)
        variance = masked_mean(fnp.square(x - mean), axis, where, keepdims=True)
    return (x - mean) / fnp.sqrt(fnp.add(variance, epsilon))  # (bfloat16 stays bfloat16)


def one_hot(x: ArrayLike, num_classes: int, *, dtype: DTypeLike = np.float64,
            axis: int = -1) -> Array:
    """One-hot encoding: a new axis of length `num_classes` (at `axis` of the result) that is
    1 at index `x` and 0 elsewhere (all 0 for an index outside [0, num_classes)).

    Example:
        >>> fg.nn.one_hot(np.array([0, 2]), 3, dtype=np.int32)
        array([[1, 0, 0],
               [0, 0, 1]], dtype=int32)
    """
    num_classes = int_scalar("one_hot", "num_classes", num_classes, 0)
    hot = fnp.expand_dims(fnp.asarray(x), -1) == np.arange(num_classes)
    out = hot.astype(dtype)
    return out if axis == -1 else fnp.moveaxis(out, -1, axis)


# eager bfloat16 inputs keep their dtype, as traced ones (see the helper)
narrow_floats_computed_in_float32(
    globals(), [n for n in __all__ if n not in ("one_hot", "identity")])
