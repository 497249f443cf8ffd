"""Losses (optax's names and semantics): each returns one value per example, reducing only
the class / feature `axis` (or nothing, for the elementwise ones); the caller takes the mean
over the batch. Written with fungrad.numpy, so grad, jit and vmap compose with them."""
from __future__ import annotations

import math
from typing import Callable, Optional

import numpy as np

from .. import numpy as fnp
from ..core.trace import Tracer
from ..lax.misc import stop_gradient
from ..numpy._base import single_axis
from ._util import (Array, ArrayLike, Axis, inexact, masked_mean, masked_sum,
                    narrow_floats_computed_in_float32, shift_for_exp, weak_scalar)
from .activations import (log_sigmoid, log_softmax, logsumexp, one_hot, relu, sigmoid,
                          softmax, sparse_plus)

__all__ = ["softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels",
           "sigmoid_binary_cross_entropy", "squared_error", "mse", "l2_loss", "huber_loss",
           "hinge_loss", "kl_divergence", "cosine_similarity", "cosine_distance",
           "sigmoid_focal_loss", "log_cosh", "smooth_labels", "kl_divergence_with_log_targets",
           "generalized_kl_divergence", "convex_kl_divergence", "safe_softmax_cross_entropy",
           "poly_loss_cross_entropy", "multiclass_hinge_loss", "perceptron_loss",
           "multiclass_perceptron_loss", "triplet_margin_loss", "ntxent", "sparsemax_loss",
           "multiclass_sparsemax_loss", "dice_loss", "binary_dice_loss",
           "multiclass_generalized_dice_loss", "ranking_softmax_loss"]


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


# ----------------------------------------------------------------------------- optax's others
def sigmoid_focal_loss(logits: ArrayLike, labels: ArrayLike, *,
                       alpha: Optional[float] = None, gamma: float = 2.0) -> Array:
    """Elementwise focal loss `alpha_t (1 - p_t)**gamma * BCE(logits, labels)` (Lin et al.,
    2017): the binary cross entropy scaled down where the prediction `p = sigmoid(logits)`
    is already right (`p_t` is `p` for label 1, `1 - p` for label 0; labels may be soft,
    in [0, 1]); `alpha_t` is `alpha` for label 1 and `1 - alpha` for 0 (no weighting when
    `alpha` is None). `(1 - p_t)**gamma` is computed in log space, finite at any logits.

    Example:
        >>> fg.nn.sigmoid_focal_loss(np.array([0.0, 2.0]), np.array([1.0, 1.0]))
        array([0.1732868 , 0.00180356])
    """
    logits = inexact(logits)
    labels = fnp.asarray(labels).astype(fnp.result_type(logits))
    logits, labels = fnp.broadcast_arrays(logits, labels)
    ce = sigmoid_binary_cross_entropy(logits, labels)
    # log(1 - p_t) = log((1 - y) p + y (1 - p)), a logsumexp of log p and log(1 - p) with
    # weights 1 - y and y; as JAX's, a term of weight 0 is left out (-inf), also of the shift,
    # so that no log(0) appears at logits of 1e4
    w_p, w_q = 1.0 - labels, labels
    log_p = fnp.where(w_p != 0, log_sigmoid(logits), -np.inf)
    log_q = fnp.where(w_q != 0, log_sigmoid(-logits), -np.inf)
    m = fnp.maximum(log_p, log_q)
    m = stop_gradient(fnp.where(fnp.isfinite(m), m, 0))
    log_one_minus_pt = fnp.log(w_p * fnp.exp(log_p - m) + w_q * fnp.exp(log_q - m)) + m
    loss = ce * fnp.exp(weak_scalar(gamma) * log_one_minus_pt)
    if alpha is None:
        return loss
    alpha = weak_scalar(alpha)
    return (alpha * labels + (1.0 - alpha) * (1.0 - labels)) * loss


def log_cosh(predictions: ArrayLike, targets: Optional[ArrayLike] = None) -> Array:
    """Elementwise `log(cosh(predictions - targets))` (targets default to 0): about
    `e**2 / 2` for a small error `e`, `|e| - log 2` for a large one; a twice
    differentiable Huber loss, finite for errors of any size.

    Example:
        >>> fg.nn.log_cosh(np.array([0.0, 1.0, 1e4]))
        array([0.00000000e+00, 4.33780830e-01, 9.99930685e+03])
    """
    e = _error(predictions, targets)
    # log((exp(e) + exp(-e)) / 2), by logaddexp: cosh overflows past |e| ~ 710
    return fnp.logaddexp(e, -e) - math.log(2.0)


def smooth_labels(labels: ArrayLike, alpha: float, *, axis: Axis = -1,
                  where: Optional[ArrayLike] = None) -> Array:
    """Label smoothing: `(1 - alpha) * labels + alpha / num_categories`, the categories
    counted along `axis` (those `where` selects, when given).

    Example:
        >>> fg.nn.smooth_labels(np.array([[0.0, 1.0, 0.0, 0.0]]), 0.2)
        array([[0.05, 0.85, 0.05, 0.05]])
    """
    labels = inexact(labels)
    alpha = weak_scalar(alpha)
    if where is None:
        shape = tuple(fnp.shape(labels))
        axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
        num_categories = 1
        for a in axes:
            num_categories *= shape[a]
    else:
        count = fnp.sum(fnp.broadcast_to(where, fnp.shape(labels)), axis=axis, keepdims=True)
        num_categories = fnp.asarray(count).astype(labels.dtype)  # (int64 would promote)
    return (1.0 - alpha) * labels + alpha / num_categories


def kl_divergence_with_log_targets(log_predictions: ArrayLike, log_targets: ArrayLike,
                                   axis: Axis = -1,
                                   where: Optional[ArrayLike] = None) -> Array:
    """Kullback-Leibler divergence `sum(exp(log_targets) * (log_targets - log_predictions),
    axis)`, the targets given as log-probabilities (a target of log 0 = -inf contributes
    0, as a zero target to `kl_divergence`).

    Example:
        >>> fg.nn.kl_divergence_with_log_targets(np.log(np.array([0.5, 0.5])),
        ...                                      np.array([0.0, -np.inf]))
        array(0.69314718)
    """
    log_predictions, log_targets = inexact(log_predictions), inexact(log_targets)
    # (exp(-inf) * (-inf - p) would be nan; the where's other branch sees a finite operand)
    zero = log_targets == -np.inf
    safe = fnp.where(zero, 0, log_targets)
    terms = fnp.where(zero, 0, fnp.exp(safe) * (safe - log_predictions))
    return masked_sum(terms, axis, where)


def generalized_kl_divergence(log_predictions: ArrayLike, targets: ArrayLike,
                              axis: Axis = -1, where: Optional[ArrayLike] = None) -> Array:
    """Kullback-Leibler divergence generalized to unnormalized distributions (the Bregman
    divergence of `x log x - x`): `kl_divergence(log_predictions, targets) +
    sum(exp(log_predictions) - targets, axis)`.

    Example:
        >>> fg.nn.generalized_kl_divergence(np.log(np.array([1.0, 2.0])),
        ...                                 np.array([1.0, 1.0]))
        array(0.30685282)
    """
    log_predictions, targets = inexact(log_predictions), inexact(targets)
    kl = kl_divergence(log_predictions, targets, axis, where)
    return fnp.asarray(kl + masked_sum(fnp.exp(log_predictions) - targets, axis, where))


def convex_kl_divergence(log_predictions: ArrayLike, targets: ArrayLike, axis: Axis = -1,
                         where: Optional[ArrayLike] = None) -> Array:
    """optax's older name of `generalized_kl_divergence` (deprecated there): the same
    values.

    Example:
        >>> fg.nn.convex_kl_divergence(np.log(np.array([1.0, 2.0])), np.array([1.0, 1.0]))
        array(0.30685282)
    """
    return generalized_kl_divergence(log_predictions, targets, axis, where)


def safe_softmax_cross_entropy(logits: ArrayLike, labels: ArrayLike) -> Array:
    """`softmax_cross_entropy` (classes along the last axis) that takes `0 * log 0` as 0: a
    class of label 0 and logit -inf adds nothing (and its derivative is 0), instead of nan.

    Example:
        >>> fg.nn.safe_softmax_cross_entropy(np.array([[0.0, 0.0, -np.inf]]),
        ...                                  np.array([[1.0, 0.0, 0.0]]))
        array([0.69314718])
    """
    log_probs = log_softmax(inexact(logits), axis=-1)
    labels = fnp.asarray(labels).astype(log_probs.dtype)
    # 0 for a label 0 at log-probability -inf (as optax's weighted log-softmax); elsewhere the
    # log-probability itself, so that the slope in a zero label is still log p
    safe = fnp.where(fnp.logical_and(labels == 0, log_probs == -np.inf), 0, log_probs)
    return fnp.asarray(-fnp.sum(labels * safe, axis=-1))


def poly_loss_cross_entropy(logits: ArrayLike, labels: ArrayLike, *, epsilon: float = 2.0,
                            axis: Axis = -1, where: Optional[ArrayLike] = None) -> Array:
    """Poly-1 loss (Leng et al., 2022): `softmax_cross_entropy(logits, labels) + epsilon *
    sum(labels * (1 - softmax(logits)), axis)`; `where` as for `softmax_cross_entropy`.

    Example:
        >>> fg.nn.poly_loss_cross_entropy(np.array([[0.0, 0.0]]), np.array([[1.0, 0.0]]))
        array([1.69314718])
    """
    logits = inexact(logits)
    mask = _class_mask(where, logits, axis)
    p = softmax(logits, axis=axis, where=mask)
    labels = fnp.asarray(labels).astype(p.dtype)
    one_minus_pt = masked_sum(labels * (1.0 - p), axis, mask)
    ce = softmax_cross_entropy(logits, labels, axis, where)
    return fnp.asarray(ce + weak_scalar(epsilon) * one_minus_pt)


def _integer_labels(fn: str, scores: Array, labels: ArrayLike) -> Array:
    """Integer class `labels` for `scores` of classes along the last axis (checked)."""
    labels = fnp.asarray(labels)
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"{fn}: labels must be integer class indices, got dtype "
                        f"{labels.dtype} (shape {fnp.shape(labels)})")
    if tuple(fnp.shape(labels)) != tuple(fnp.shape(scores))[:-1]:
        raise ValueError(f"{fn}: labels of shape {tuple(fnp.shape(labels))} must have the "
                         f"shape of scores {tuple(fnp.shape(scores))} without its last "
                         "(class) axis")
    return labels


def _label_score(scores: Array, labels: Array) -> Array:
    """`scores[..., label]`, the score of each example's label."""
    return fnp.take_along_axis(scores, fnp.expand_dims(labels, -1), axis=-1)[..., 0]


def multiclass_hinge_loss(scores: ArrayLike, labels: ArrayLike) -> Array:
    """Multiclass hinge loss of `scores` (classes along the last axis) and integer `labels`:
    `max(scores + 1 - one_hot(labels), -1) - scores[label]`.

    Example:
        >>> fg.nn.multiclass_hinge_loss(np.array([[2.0, 1.5, 0.0]]), np.array([0]))
        array([0.5])
    """
    scores = inexact(scores)
    labels = _integer_labels("multiclass_hinge_loss", scores, labels)
    hot = one_hot(labels, fnp.shape(scores)[-1], dtype=scores.dtype)
    return fnp.asarray(fnp.max(scores + 1.0 - hot, axis=-1) - _label_score(scores, labels))


def perceptron_loss(predictor_outputs: ArrayLike, targets: ArrayLike) -> Array:
    """Elementwise binary perceptron loss `max(0, -predictor_outputs * targets)`, targets in
    {-1, 1} (of the outputs' shape).

    Example:
        >>> fg.nn.perceptron_loss(np.array([0.5, -2.0]), np.array([1.0, 1.0]))
        array([0., 2.])
    """
    predictor_outputs = inexact(predictor_outputs)
    if tuple(fnp.shape(targets)) != tuple(fnp.shape(predictor_outputs)):
        raise ValueError(f"perceptron_loss: predictor_outputs "
                         f"{tuple(fnp.shape(predictor_outputs))} and targets "
                         f"{tuple(fnp.shape(targets))} must have the same shape")
    return fnp.maximum(0, -predictor_outputs * _like(targets, predictor_outputs))


def multiclass_perceptron_loss(scores: ArrayLike, labels: ArrayLike) -> Array:
    """Multiclass perceptron loss `max(scores, -1) - scores[label]` of `scores` (classes
    along the last axis) and integer `labels`.

    Example:
        >>> fg.nn.multiclass_perceptron_loss(np.array([[2.0, 1.5, 0.0]]), np.array([1]))
        array([0.5])
    """
    scores = inexact(scores)
    labels = _integer_labels("multiclass_perceptron_loss", scores, labels)
    return fnp.asarray(fnp.max(scores, axis=-1) - _label_score(scores, labels))


def triplet_margin_loss(anchors: ArrayLike, positives: ArrayLike, negatives: ArrayLike,
                        axis: int = -1, norm_degree: float = 2, margin: float = 1.0,
                        eps: float = 1e-6) -> Array:
    """Triplet loss `max(d(anchors, positives) - d(anchors, negatives) + margin, 0)` with the
    distance `d(a, b) = (sum((a - b)**norm_degree, axis) + eps)**(1 / norm_degree)` (as
    optax's: no absolute value, so use an even `norm_degree`).

    Example:
        >>> fg.nn.triplet_margin_loss(np.array([[0.0, 0.0]]), np.array([[0.1, 0.1]]),
        ...                           np.array([[1.0, 0.0]]))
        array([0.14142439])
    """
    anchors, positives, negatives = inexact(anchors), inexact(positives), inexact(negatives)
    degree, eps = weak_scalar(norm_degree), weak_scalar(eps)

    def distance(d):
        return fnp.power(fnp.sum(fnp.power(d, degree), axis=axis) + eps, 1.0 / degree)

    loss = distance(anchors - positives) - distance(anchors - negatives) + weak_scalar(margin)
    return fnp.asarray(fnp.maximum(loss, 0))


def ntxent(embeddings: ArrayLike, labels: ArrayLike, temperature: float = 0.07) -> Array:
    """NT-Xent contrastive loss (SimCLR, Chen et al. 2020) of a batch of `embeddings`
    (batch, features), whose examples of equal integer `labels` are positive pairs: the
    cross entropy of each positive pair's cosine similarity / temperature against the
    example's negatives, averaged over the positive pairs (one value for the batch).

    Example:
        >>> fg.nn.ntxent(np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]]), np.array([0, 0, 1]),
        ...              temperature=0.5)
        array(0.58814886)
    """
    embeddings = inexact(embeddings)
    labels = fnp.asarray(labels)
    n = fnp.shape(embeddings)[0]
    if fnp.shape(labels)[0] != n:
        raise ValueError(f"ntxent: labels and embeddings must have the same leading dimension, "
                         f"found {fnp.shape(labels)[0]} for labels and {n} for embeddings")
    eps = float(fnp.finfo(embeddings.dtype).eps)
    sim = cosine_similarity(embeddings[None, :, :], embeddings[:, None, :],
                            epsilon=eps) / weak_scalar(temperature)
    same = fnp.expand_dims(labels, 1) == fnp.expand_dims(labels, 0)
    negatives = fnp.logical_not(same)
    positives = fnp.logical_and(same, fnp.logical_not(np.eye(n, dtype=bool)))
    # each row shifted by its largest similarity (itself left out), a constant for the
    # derivative; exp of a left-out pair is 0, and a where keeps -inf out of the arithmetic
    kept = fnp.logical_or(positives, negatives)
    shifted = sim - shift_for_exp(sim, 1, kept)
    e = fnp.where(kept, fnp.exp(fnp.where(kept, shifted, 0)), 0)
    denom = fnp.sum(fnp.where(negatives, e, 0), axis=1, keepdims=True) + fnp.where(
        positives, e, 0)
    log_probs = shifted - fnp.log(fnp.where(positives, denom, 1))
    total = fnp.sum(fnp.where(positives, log_probs, 0))
    return fnp.asarray(-total / fnp.sum(positives).astype(total.dtype))


def _sparsemax(x: Array) -> Array:
    """Euclidean projection of each row (last axis) of `x` onto the probability simplex
    (sparsemax, optax.projections.projection_simplex): `relu(x - tau)`, with `tau` such
    that the row sums to 1. Its derivative follows from the sort's (optax's custom rule)."""
    n = fnp.shape(x)[-1]
    u = -fnp.sort(-x, axis=-1)  # descending
    cumsum = fnp.cumsum(u, axis=-1)
    k = np.arange(1, n + 1, dtype=np.dtype(x.dtype))
    # the support's size: the number of sorted entries above the running threshold
    support = fnp.sum(1.0 / k + (u - cumsum / k) > 0, axis=-1, keepdims=True)
    top = fnp.take_along_axis(cumsum, support - 1, axis=-1)
    size = support.astype(x.dtype)
    return relu(1.0 / size + (x - top / size))


def sparsemax_loss(logits: ArrayLike, labels: ArrayLike) -> Array:
    """Elementwise binary sparsemax loss `sparse_plus(-logits)` for label 1 and
    `sparse_plus(logits)` for label 0: zero exactly where `sparse_sigmoid(logits)` equals
    the label (Blondel et al., 2020).

    Example:
        >>> fg.nn.sparsemax_loss(np.array([0.0, 2.0, 2.0]), np.array([1, 1, 0]))
        array([0.25, 0.  , 2.  ])
    """
    logits = inexact(logits)
    return sparse_plus(fnp.where(fnp.asarray(labels) != 0, -logits, logits))


def multiclass_sparsemax_loss(scores: ArrayLike, labels: ArrayLike) -> Array:
    """Multiclass sparsemax loss (Martins and Astudillo, 2016) of `scores` (classes along
    the last axis) and integer `labels`: the Fenchel-Young loss of sparsemax, whose
    gradient in the scores is `sparsemax(scores) - one_hot(labels)`.

    Example:
        >>> fg.nn.multiclass_sparsemax_loss(np.array([[1.0, 0.5, -1.0]]), np.array([1]))
        array([0.5625])
    """
    scores = inexact(scores)
    labels = _integer_labels("multiclass_sparsemax_loss", scores, labels)
    proba = _sparsemax(scores)
    hot = one_hot(labels, fnp.shape(scores)[-1], dtype=bool)
    # scores relative to the label's (its own entry exactly 0), counted on the support
    relative = fnp.where(hot, 0, scores - fnp.expand_dims(_label_score(scores, labels), -1))
    relative = fnp.where(proba != 0, relative, 0)
    return fnp.asarray(fnp.sum(proba * relative, axis=-1)
                       + 0.5 * (1.0 - fnp.sum(proba * proba, axis=-1)))


def dice_loss(predictions: ArrayLike, targets: ArrayLike, *,
              class_weights: Optional[ArrayLike] = None, smooth: float = 1.0,
              alpha: float = 0.5, beta: float = 0.5, apply_softmax: bool = True,
              reduction: str = "mean", ignore_background: bool = False,
              axis: Axis = None) -> Array:
    """Soft Dice (Tversky, for `alpha != beta`) loss for segmentation, per class `c`:
    `1 - (I + smooth) / (I + alpha (P - I) + beta (T - I) + smooth)`, with the sums `I` of
    `probs * targets`, `P` of `probs` and `T` of `targets` over `axis` (None: every axis
    but the first and last). Predictions are logits `[..., classes]` (softmax; one class
    `[..., 1]` or a missing class axis: sigmoid), or probabilities with
    `apply_softmax=False`; targets one-hot. The class losses are weighted by
    `class_weights`, the first left out with `ignore_background`, then reduced by
    `reduction` ("mean", "sum", or "none": one per class).

    Example:
        >>> fg.nn.dice_loss(np.array([[[2.0, -2.0], [0.0, 1.0]]]),
        ...                 np.array([[[1.0, 0.0], [0.0, 1.0]]]))
        array([0.07201537])
    """
    predictions = inexact(predictions)
    targets = fnp.asarray(_like(targets, predictions))
    if fnp.ndim(predictions) == fnp.ndim(targets) - 1:
        predictions = predictions[..., None]
    if fnp.ndim(targets) == fnp.ndim(predictions) - 1:
        targets = targets[..., None]
    shape = tuple(fnp.shape(predictions))
    if tuple(fnp.shape(targets)) != shape:
        raise ValueError(f"dice_loss: predictions {shape} and targets "
                         f"{tuple(fnp.shape(targets))} must have the same shape")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"dice_loss: unsupported reduction {reduction!r}; use 'mean', "
                         "'sum' or 'none'")
    if apply_softmax:
        probs = sigmoid(predictions) if shape[-1] == 1 else softmax(predictions, axis=-1)
    else:
        probs = predictions
        # (optax's check that probabilities sum to 1 over the classes: concrete values only,
        # and only for several classes, since one class holds a binary probability)
        if shape[-1] > 1 and not isinstance(predictions, Tracer):
            sums = np.sum(predictions, axis=-1)
            if not np.allclose(sums, 1.0, rtol=1e-5):
                raise ValueError(
                    "dice_loss: with apply_softmax=False, predictions must be probability "
                    "distributions that sum to 1 along the class axis; found sums from "
                    f"{float(np.min(sums)):.6f} to {float(np.max(sums)):.6f}")
    if axis is None:
        axis = tuple(range(1, len(shape) - 1))
    smooth, alpha, beta = weak_scalar(smooth), weak_scalar(alpha), weak_scalar(beta)
    intersection = fnp.sum(probs * targets, axis=axis)
    pred_sum = fnp.sum(probs, axis=axis)
    target_sum = fnp.sum(targets, axis=axis)
    denominator = (intersection + alpha * (pred_sum - intersection)
                   + beta * (target_sum - intersection) + smooth)
    loss = 1.0 - (intersection + smooth) / denominator
    if class_weights is not None:
        class_weights = fnp.asarray(class_weights)
        if fnp.ndim(class_weights) != 1:
            raise ValueError(f"dice_loss: class_weights must be one weight per class (rank "
                             f"1), got shape {tuple(fnp.shape(class_weights))}")
        loss = loss * _like(class_weights, loss)
    if ignore_background and shape[-1] > 1:
        loss = loss[..., 1:]
    if reduction == "mean":
        return fnp.asarray(fnp.mean(loss, axis=-1))
    if reduction == "sum":
        return fnp.asarray(fnp.sum(loss, axis=-1))
    return fnp.asarray(loss)


def binary_dice_loss(predictions: ArrayLike, targets: ArrayLike, *, smooth: float = 1.0,
                     apply_sigmoid: bool = True) -> Array:
    """`dice_loss` of binary segmentation: logits (or probabilities, with
    `apply_sigmoid=False`) and binary targets of shape `[...]` or `[..., 1]`, summed over
    every axis but the first; one loss per example.

    Example:
        >>> fg.nn.binary_dice_loss(np.array([[3.0, -3.0, 3.0]]), np.array([[1.0, 0.0, 1.0]]))
        array([0.02390186])
    """
    predictions, targets = inexact(predictions), fnp.asarray(targets)
    if fnp.ndim(predictions) == fnp.ndim(targets) and fnp.shape(predictions)[-1] != 1:
        predictions, targets = predictions[..., None], targets[..., None]
    return dice_loss(predictions, targets, smooth=smooth, apply_softmax=apply_sigmoid,
                     reduction="mean")


def multiclass_generalized_dice_loss(predictions: ArrayLike, targets: ArrayLike, *,
                                     smooth: float = 1.0, apply_softmax: bool = True,
                                     ignore_background: bool = False) -> Array:
    """Generalized Dice loss (Sudre et al., 2017): `dice_loss` with class weights
    `1 / (class frequency**2 + 1e-7)` (normalized to average 1), the frequencies counted in
    the one-hot `targets` over every axis but the last; the mean over examples and
    classes (one value).

    Example:
        >>> fg.nn.multiclass_generalized_dice_loss(
        ...     np.array([[[2.0, -2.0], [0.0, 1.0], [1.0, 0.0]]]),
        ...     np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]]))
        array(0.12926083)
    """
    predictions = inexact(predictions)
    targets = fnp.asarray(_like(targets, predictions))
    if tuple(fnp.shape(targets)) != tuple(fnp.shape(predictions)):
        raise ValueError(f"multiclass_generalized_dice_loss: predictions "
                         f"{tuple(fnp.shape(predictions))} and targets "
                         f"{tuple(fnp.shape(targets))} must have the same shape")
    frequencies = fnp.sum(targets, axis=tuple(range(fnp.ndim(targets) - 1)))
    weights = 1.0 / (frequencies * frequencies + 1e-7)
    weights = weights / fnp.sum(weights) * fnp.shape(weights)[0]
    loss = dice_loss(predictions, targets, class_weights=weights, smooth=smooth,
                     apply_softmax=apply_softmax, reduction="none",
                     ignore_background=ignore_background)
    return fnp.asarray(fnp.mean(loss))


def ranking_softmax_loss(logits: ArrayLike, labels: ArrayLike, *,
                         where: Optional[ArrayLike] = None,
                         weights: Optional[ArrayLike] = None,
                         reduce_fn: Optional[Callable[..., Array]] = fnp.mean) -> Array:
    """Listwise ranking softmax loss of the item scores `logits` `[..., list_size]` and
    relevance `labels`: `-sum(labels * log_softmax(logits), -1)` per list, the labels
    multiplied by `weights`, the items `where` leaves out ignored; then `reduce_fn`
    (`fnp.mean` by default, over the lists with an item left; `fnp.sum`, or None: one
    value per list, 0 for an empty one).

    Example:
        >>> fg.nn.ranking_softmax_loss(np.array([[1.0, 2.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]))
        array(0.40760596)
    """
    logits = inexact(logits)
    labels = fnp.asarray(labels).astype(logits.dtype)
    if where is not None:
        where = fnp.asarray(where)
        labels = fnp.where(where, labels, 0)
    if weights is not None:
        labels = labels * _like(weights, logits)
    log_probs = log_softmax(logits, axis=-1, where=where)
    if where is not None:  # (a left-out item's log-probability is -inf: 0 * -inf is nan)
        log_probs = fnp.where(where, log_probs, 0)
    loss = -masked_sum(labels * log_probs, -1, where)
    valid = None if where is None else fnp.any(where, axis=-1)
    if reduce_fn is None:
        return loss if valid is None else fnp.where(valid, loss, 0)
    if reduce_fn in (fnp.mean, np.mean):
        # (an all-empty batch gives 0, as optax, not 0 / 0)
        if valid is None:
            return fnp.asarray(fnp.mean(loss))
        count = fnp.sum(fnp.broadcast_to(valid, fnp.shape(loss))).astype(loss.dtype)
        return fnp.asarray(masked_sum(loss, None, valid) / fnp.maximum(count, 1))
    if reduce_fn in (fnp.sum, np.sum):
        return masked_sum(loss, None, valid)
    return fnp.asarray(reduce_fn(loss) if valid is None else reduce_fn(loss, where=valid))


# eager bfloat16 inputs keep their dtype, as traced ones (see the helper)
narrow_floats_computed_in_float32(globals(), [n for n in __all__ if n != "one_hot"])
