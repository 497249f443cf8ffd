"""Losses (optax's names and semantics): each returns one value per example, reducing only
the class / feature `axis` (or nothing, for the elementwise ones); the caller takes the mean
over the batch. Written with fungrad.numpy, so grad, jit and vmap compose with them."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import numpy as fnp
from ..core.trace import Tracer
from ..numpy._base import single_axis
from ._util import (Array, ArrayLike, Axis, inexact, masked_mean, masked_sum,
                    narrow_floats_computed_in_float32, weak_scalar)
from .activations import log_sigmoid, log_softmax, logsumexp

__all__ = ["softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels",
           "sigmoid_binary_cross_entropy", "squared_error", "mse", "l2_loss", "huber_loss",
           "hinge_loss", "kl_divergence", "cosine_similarity", "cosine_distance"]


# (Results that reduce to 0-d go through fnp.asarray: NumPy's arithmetic on a 0-d array
# eagerly returns a NumPy scalar, and fg.nn returns arrays.)
def _error(predictions: ArrayLike, targets: Optional[ArrayLike],
           fn: Optional[str] = None) -> Array:
    """predictions - targets; with `fn` (optax's squared-error family), of equal shapes."""
    predictions = inexact(predictions)
    if targets is None:
        return predictions
    if type(targets) not in (int, float, bool):  # (a Python scalar stays weak: see _like)
        targets = fnp.asarray(targets)
    if fn is not None and tuple(fnp.shape(targets)) != tuple(fnp.shape(predictions)):
        # (as optax: broadcasting (N, 1) predictions with (N,) targets would give an (N, N)
        # loss, silently)
        raise ValueError(f"{fn}: predictions {tuple(fnp.shape(predictions))} and targets "
                         f"{tuple(fnp.shape(targets))} must have the same shape; reshape or "
                         f"broadcast one of them explicitly (fnp.broadcast_to)")
    return predictions - _like(targets, predictions)


def _like(targets: ArrayLike, predictions: Array) -> Array:
    """Integer or bool `targets` (labels, counts) in the predictions' float dtype, as JAX
    promotes them: NumPy's rule would make a float32 model's loss float64. A Python scalar
    stays weak (it takes the predictions' dtype: fnp.asarray would make it float64)."""
    if type(targets) in (int, float, bool):
        return float(targets)
    targets = fnp.asarray(targets)
    if np.dtype(targets.dtype).kind in "biu":
        return targets.astype(predictions.dtype)
    return targets


def softmax_cross_entropy(logits: ArrayLike, labels: ArrayLike, axis: Axis = -1,
                          where: Optional[ArrayLike] = None) -> Array:
    """Cross entropy `-sum(labels * log_softmax(logits), axis)` of a distribution `labels`
    (probabilities along `axis`) and `logits`; `where` (optax's) of the logits' shape leaves
    classes out, one of the shape without `axis` leaves examples out (loss 0).

    Example:
        >>> fg.nn.softmax_cross_entropy(np.array([[0.0, 0.0]]), np.array([[1.0, 0.0]]))
        array([0.69314718])
    """
    where = _class_mask(where, logits, axis)
    log_probs = log_softmax(logits, axis=axis, where=where)
    # labels take the logits' dtype (as sigmoid_binary_cross_entropy): float64 one_hot
    # labels would otherwise make a float32 model's loss float64
    labels = fnp.asarray(labels).astype(log_probs.dtype)
    if where is not None:  # masked log-probabilities are -inf: 0 * -inf would be nan
        log_probs = fnp.where(where, log_probs, 0)
    return fnp.asarray(-masked_sum(labels * log_probs, axis, None))


def softmax_cross_entropy_with_integer_labels(logits: ArrayLike, labels: ArrayLike,
                                              axis: int = -1,
                                              where: Optional[ArrayLike] = None) -> Array:
    """Cross entropy of `logits` (classes along `axis`) and integer class `labels` (shape of
    logits without `axis`): `logsumexp(logits, axis) - logits[label]`; `where` (optax's)
    of the logits' shape leaves classes out, one of the labels' shape leaves examples out
    (loss 0).

    Example:
        >>> fg.nn.softmax_cross_entropy_with_integer_labels(np.array([[0.0, 0.0]]),
        ...                                                 np.array([1]))
        array([0.69314718])
    """
    logits = inexact(logits)
    labels = fnp.asarray(labels)
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"softmax_cross_entropy_with_integer_labels: labels must be integer "
                        f"class indices, got dtype {labels.dtype} (shape {fnp.shape(labels)}); "
                        f"for class probabilities use fg.nn.softmax_cross_entropy")
    lshape = tuple(fnp.shape(logits))
    ax = single_axis("softmax_cross_entropy_with_integer_labels", axis, len(lshape))
    batch = lshape[:ax] + lshape[ax + 1:]
    if tuple(fnp.shape(labels)) != batch:
        raise ValueError(f"softmax_cross_entropy_with_integer_labels: labels of shape "
                         f"{tuple(fnp.shape(labels))} must have the shape of logits {lshape} "
                         f"without its class axis {axis}: {batch}")
    n = lshape[axis]
    if not isinstance(labels, Tracer) and labels.size and not (
            0 <= int(labels.min()) and int(labels.max()) < n):
        # (a traced label outside [0, n) gives take_along_axis' error, or wraps if negative)
        raise ValueError(f"softmax_cross_entropy_with_integer_labels: labels must be class "
                         f"indices in [0, {n}) (logits {lshape}, class axis {axis}), got values "
                         f"from {int(labels.min())} to {int(labels.max())}; mask out ignored "
                         f"examples with a weight instead of a negative label")
    if where is not None:  # (broadcast against logits before the class axis moves last)
        where = _class_mask(where, logits, ax)
        where = fnp.moveaxis(fnp.broadcast_to(where, fnp.shape(logits)), ax, -1)
    logits = fnp.moveaxis(logits, axis, -1)
    label_logits = fnp.take_along_axis(logits, fnp.expand_dims(labels, -1), axis=-1)[..., 0]
    out = logsumexp(logits, axis=-1, where=where) - label_logits
    if where is not None:  # a row with every class masked out has loss 0 (as optax), not -inf
        out = fnp.where(fnp.any(where, axis=-1), out, 0)
    return fnp.asarray(out)


def _class_mask(where: Optional[ArrayLike], logits: Array, axis: Axis):
    """optax's `where` of the cross entropies: of the logits' shape (classes left out), or
    of fewer dims, one entry per example (the logits' shape without the class `axis`),
    which then leaves whole examples out (their loss is 0). Broadcasting a per-example mask
    against the logits as it stands would make it a class mask."""
    if where is None:
        return None
    where = fnp.asarray(where)
    if fnp.ndim(where) != fnp.ndim(logits):
        where = fnp.expand_dims(where, axis)
    try:
        np.broadcast_shapes(fnp.shape(where), fnp.shape(logits))
    except ValueError:
        raise ValueError(f"where of shape {fnp.shape(where)} fits neither the logits "
                         f"{fnp.shape(logits)} (a class mask: same number of dims) nor one "
                         f"entry per example (their shape without axis {axis}); for one class "
                         "mask shared by every example, add the batch axis: where[None]"
                         ) from None
    return where


def sigmoid_binary_cross_entropy(logits: ArrayLike, labels: ArrayLike) -> Array:
    """Elementwise binary cross entropy of `labels` in [0, 1] and the probabilities
    `sigmoid(logits)`, computed from log_sigmoid (finite for logits of any size).

    Example:
        >>> fg.nn.sigmoid_binary_cross_entropy(np.array([0.0, 1e4]), np.array([1.0, 1.0]))
        array([0.69314718, 0.        ])
    """
    logits = inexact(logits)
    # labels take the logits' dtype (as optax): float32 logits give a float32 loss
    labels = fnp.asarray(labels).astype(fnp.result_type(logits))
    return -labels * log_sigmoid(logits) - (1.0 - labels) * log_sigmoid(-logits)


def squared_error(predictions: ArrayLike, targets: Optional[ArrayLike] = None) -> Array:
    """Elementwise `(predictions - targets) ** 2` (targets default to 0).

    Example:
        >>> fg.nn.squared_error(np.array([1.0, 3.0]), np.array([0.0, 1.0]))
        array([1., 4.])
    """
    e = _error(predictions, targets, "squared_error")
    return e * e


def mse(predictions: ArrayLike, targets: Optional[ArrayLike] = None, axis: Axis = -1,
        where: Optional[ArrayLike] = None) -> Array:
    """Mean squared error along `axis` (the features of each example; None: all axes,
    `()`: none, elementwise); `where` leaves elements out of the mean.

    Example:
        >>> fg.nn.mse(np.array([[1.0, 3.0]]), np.array([[0.0, 1.0]]))
        array([2.5])
    """
    e = _error(predictions, targets, "mse")
    return masked_mean(e * e, axis, where)


def l2_loss(predictions: ArrayLike, targets: Optional[ArrayLike] = None) -> Array:
    """Elementwise `0.5 * (predictions - targets) ** 2` (optax's l2_loss).

    Example:
        >>> fg.nn.l2_loss(np.array([2.0]))
        array([2.])
    """
    e = _error(predictions, targets, "l2_loss")
    return 0.5 * (e * e)


def huber_loss(predictions: ArrayLike, targets: Optional[ArrayLike] = None,
               delta: float = 1.0) -> Array:
    """Elementwise Huber loss: `0.5 e^2` for `|e| <= delta`, `delta (|e| - delta / 2)`
    beyond, for the error `e = predictions - targets`.

    Example:
        >>> fg.nn.huber_loss(np.array([0.5, 3.0]))
        array([0.125, 2.5  ])
    """
    delta = weak_scalar(delta)  # (a np.float64 delta made a float32 loss float64)
    abs_error = fnp.abs(_error(predictions, targets))
    quadratic = fnp.minimum(abs_error, delta)
    return 0.5 * quadratic * quadratic + delta * (abs_error - quadratic)


def hinge_loss(predictor_outputs: ArrayLike, targets: ArrayLike) -> Array:
    """Elementwise hinge loss `max(0, 1 - predictor_outputs * targets)`, targets in {-1, 1}.

    Example:
        >>> fg.nn.hinge_loss(np.array([0.5, 2.0]), np.array([1.0, 1.0]))
        array([0.5, 0. ])
    """
    predictor_outputs = inexact(predictor_outputs)
    return fnp.maximum(0, 1.0 - predictor_outputs * _like(targets, predictor_outputs))


def kl_divergence(log_predictions: ArrayLike, targets: ArrayLike, axis: Axis = -1,
                  where: Optional[ArrayLike] = None) -> Array:
    """Kullback-Leibler divergence `sum(targets * (log(targets) - log_predictions), axis)` of
    the distribution `targets` from `exp(log_predictions)` (a 0 target contributes 0).

    Example:
        >>> fg.nn.kl_divergence(np.log(np.array([0.5, 0.5])), np.array([1.0, 0.0]))
        array(0.69314718)
    """
    targets = inexact(targets)
    # log of 1 where a target is 0: log(0)'s inf would make the derivative nan
    log_targets = fnp.log(fnp.where(targets == 0, 1, targets))
    return masked_sum(targets * (log_targets - log_predictions), axis, where)


def cosine_similarity(predictions: ArrayLike, targets: ArrayLike, epsilon: float = 0.0,
                      axis: Axis = -1, where: Optional[ArrayLike] = None) -> Array:
    """Cosine of the angle between `predictions` and `targets` along `axis`; each norm is
    at least `sqrt(epsilon)` (so zero vectors give 0 for epsilon > 0).

    Example:
        >>> fg.nn.cosine_similarity(np.array([1.0, 0.0]), np.array([1.0, 1.0]))
        array(0.70710678)
    """
    predictions, targets = inexact(predictions), inexact(targets)
    epsilon = weak_scalar(epsilon)  # (float32 stays float32)

    def unit(v):
        norm2 = masked_sum(v * v, axis, where, keepdims=True)
        return v / fnp.sqrt(fnp.maximum(norm2, epsilon))

    return masked_sum(unit(predictions) * unit(targets), axis, where)


def cosine_distance(predictions: ArrayLike, targets: ArrayLike, epsilon: float = 0.0,
                    axis: Axis = -1, where: Optional[ArrayLike] = None) -> Array:
    """`1 - cosine_similarity(predictions, targets, ...)`.

    Example:
        >>> fg.nn.cosine_distance(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
        array(1.)
    """
    return fnp.asarray(1.0 - cosine_similarity(predictions, targets, epsilon, axis, where))




# eager bfloat16 inputs keep their dtype, as traced ones (see the helper)
narrow_floats_computed_in_float32(globals(), [n for n in __all__ if n != "one_hot"])
