"""fg.nn: activations, softmax-family reductions and losses against NumPy/SciPy reference
formulas; derivatives (check_grads), stability at |x| = 1e4, jit == eager, vmap == loop,
`where=` masking, one_hot."""
import doctest
import math

import numpy as np
import pytest
import scipy.special as sp

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.lax.elementwise import erf
from fungrad.nn import activations, attention, initializers, losses, stax

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5))           # away from the kinks of the piecewise functions
X = np.where(np.abs(X) < 0.05, 0.3, X)
X = np.where(np.abs(np.abs(X) - 1) < 0.05, 0.7, X)
X6 = X * 4                                 # reaches relu6's and hard_sigmoid's cap
X6 = np.where(np.abs(np.abs(X6) - 6) < 0.1, 5.0, X6)
X6 = np.where(np.abs(np.abs(X6) - 3) < 0.1, 2.0, X6)
SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _sig(x):
    return sp.expit(x)


def _lse(x, axis=-1, keepdims=False):
    return sp.logsumexp(x, axis=axis, keepdims=keepdims)


# name -> (fg.nn function, NumPy/SciPy reference, input, smooth enough for order 2)
ACTIVATIONS = {
    "relu": (fg.nn.relu, lambda x: np.maximum(x, 0), X, False),
    "relu6": (fg.nn.relu6, lambda x: np.clip(x, 0, 6), X6, False),
    "leaky_relu": (lambda x: fg.nn.leaky_relu(x, negative_slope=0.2),
                   lambda x: np.where(x >= 0, x, 0.2 * x), X, False),
    "elu": (lambda x: fg.nn.elu(x, alpha=0.7),
            lambda x: np.where(x > 0, x, 0.7 * np.expm1(x)), X, False),
    "selu": (fg.nn.selu, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(x)), X, False),
    "celu": (lambda x: fg.nn.celu(x, alpha=2.0),
             lambda x: np.where(x > 0, x, 2.0 * np.expm1(x / 2.0)), X, False),
    "gelu_tanh": (fg.nn.gelu, lambda x: 0.5 * x * (1 + np.tanh(
        np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))), X, True),
    "gelu_exact": (lambda x: fg.nn.gelu(x, approximate=False),
                   lambda x: x * 0.5 * (1 + sp.erf(x / np.sqrt(2))), X, True),
    "sigmoid": (fg.nn.sigmoid, _sig, X, True),
    "log_sigmoid": (fg.nn.log_sigmoid, lambda x: np.log(_sig(x)), X, True),
    "softplus": (fg.nn.softplus, lambda x: np.log1p(np.exp(x)), X, True),
    "silu": (fg.nn.silu, lambda x: x * _sig(x), X, True),
    "swish": (fg.nn.swish, lambda x: x * _sig(x), X, True),
    "hard_tanh": (fg.nn.hard_tanh, lambda x: np.clip(x, -1, 1), X, False),
    "hard_sigmoid": (fg.nn.hard_sigmoid, lambda x: np.clip(x + 3, 0, 6) / 6, X6, False),
    "hard_silu": (fg.nn.hard_silu, lambda x: x * np.clip(x + 3, 0, 6) / 6, X6, False),
    "mish": (fg.nn.mish, lambda x: x * np.tanh(np.log1p(np.exp(x))), X, True),
    "tanh": (fg.nn.tanh, np.tanh, X, True),
    "glu": (fg.nn.glu, lambda x: x[..., :2] * _sig(x[..., 2:]), X[:, :4], True),
    "softmax": (fg.nn.softmax, lambda x: sp.softmax(x, axis=-1), X, True),
    "softmax_axis0": (lambda x: fg.nn.softmax(x, axis=0), lambda x: sp.softmax(x, axis=0), X,
                      True),
    "log_softmax": (fg.nn.log_softmax, lambda x: sp.log_softmax(x, axis=-1), X, True),
    "log_softmax_all": (lambda x: fg.nn.log_softmax(x, axis=None),
                        lambda x: sp.log_softmax(x, axis=None), X, True),
    "logsumexp": (fg.nn.logsumexp, lambda x: _lse(x, None), X, True),
    "logsumexp_axis": (lambda x: fg.nn.logsumexp(x, axis=-1, keepdims=True),
                       lambda x: _lse(x, -1, True), X, True),
    "soft_sign": (fg.nn.soft_sign, lambda x: x / (np.abs(x) + 1), X, False),
    "squareplus": (fg.nn.squareplus, lambda x: (x + np.sqrt(x * x + 4)) / 2, X, True),
    "squareplus_b": (lambda x: fg.nn.squareplus(x, b=0.5),
                     lambda x: (x + np.sqrt(x * x + 0.5)) / 2, X, True),
    "sparse_plus": (fg.nn.sparse_plus,
                    lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)), X,
                    False),
    "sparse_sigmoid": (fg.nn.sparse_sigmoid, lambda x: np.clip(x + 1, 0, 2) / 2, X, False),
    "log1mexp": (fg.nn.log1mexp, lambda x: np.log(-np.expm1(-x)), np.abs(X) + 0.2, True),
    "logmeanexp": (fg.nn.logmeanexp, lambda x: _lse(x, None) - np.log(x.size), X, True),
    "logmeanexp_axis": (lambda x: fg.nn.logmeanexp(x, axis=0, keepdims=True),
                        lambda x: _lse(x, 0, True) - np.log(x.shape[0]), X, True),
    "identity": (fg.nn.identity, lambda x: x, X, True),
    "standardize": (fg.nn.standardize,
                    lambda x: (x - x.mean(-1, keepdims=True))
                    / np.sqrt(x.var(-1, keepdims=True) + 1e-5), X, True),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values_and_dtypes(name):
    f, ref, x, _ = ACTIVATIONS[name]
    out = f(x)
    assert type(out) is np.ndarray and out.dtype == np.float64
    np.testing.assert_allclose(out, ref(x), rtol=1e-12, atol=1e-12)
    out32 = f(x.astype(np.float32))
    assert out32.dtype == np.float32, out32.dtype
    np.testing.assert_allclose(out32, ref(x), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradients(name):
    f, _, x, smooth = ACTIVATIONS[name]
    fg.test_util.check_grads(f, (x,), order=2 if smooth else 1)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_jit_and_vmap(name):
    f, _, x, _ = ACTIVATIONS[name]
    np.testing.assert_allclose(fg.jit(f)(x), f(x), rtol=1e-14, atol=1e-15)
    loop = np.stack([f(row) for row in x])
    np.testing.assert_allclose(fg.vmap(f)(x), loop, rtol=1e-14, atol=1e-15)


BIG = np.array([-1e4, -50.0, 0.0, 50.0, 1e4])
STABLE = {
    "sigmoid": fg.nn.sigmoid, "log_sigmoid": fg.nn.log_sigmoid, "softplus": fg.nn.softplus,
    "silu": fg.nn.silu, "mish": fg.nn.mish, "gelu_tanh": fg.nn.gelu,
    "gelu_exact": lambda x: fg.nn.gelu(x, approximate=False), "elu": fg.nn.elu,
    "selu": fg.nn.selu, "celu": fg.nn.celu, "softmax": fg.nn.softmax,
    "log_softmax": fg.nn.log_softmax, "logsumexp": fg.nn.logsumexp,
    "standardize": fg.nn.standardize,
}


@pytest.mark.parametrize("name", sorted(STABLE))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_finite_values_and_gradients_at_1e4(name, dtype):
    f, x = STABLE[name], BIG.astype(dtype)
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no overflow, not even in a branch a `where` drops
        out = f(x)
        g = fg.grad(lambda v: fnp.sum(f(v) * np.arange(1.0, 6.0, dtype=dtype)))(x)
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(g)), (out, g)
    assert out.dtype == dtype and g.dtype == dtype


def test_stable_values_at_1e4():
    np.testing.assert_allclose(fg.nn.sigmoid(BIG), _sig(BIG), rtol=1e-15, atol=0)
    np.testing.assert_allclose(fg.nn.softplus(BIG), np.logaddexp(BIG, 0), rtol=1e-15)
    np.testing.assert_allclose(fg.nn.log_softmax(BIG), sp.log_softmax(BIG), rtol=1e-15)
    np.testing.assert_allclose(fg.nn.softmax(BIG), sp.softmax(BIG), rtol=1e-15)
    np.testing.assert_allclose(fg.nn.logsumexp(BIG), _lse(BIG, None), rtol=1e-15)
    # the gradient of logsumexp is softmax, of log_sigmoid is sigmoid(-x)
    np.testing.assert_allclose(fg.grad(fg.nn.logsumexp)(BIG), sp.softmax(BIG))
    np.testing.assert_allclose(fg.grad(lambda x: fnp.sum(fg.nn.log_sigmoid(x)))(BIG),
                               _sig(-BIG))


def test_piecewise_derivatives_at_kinks_follow_jax():
    """relu'(0) = 0, relu6' is 0 at 0 and 6, leaky_relu'(0) = 1, hard_tanh' is 0 at +-1."""
    d = lambda f, x: fg.grad(lambda v: fnp.sum(f(v)))(np.array(x))  # noqa: E731
    np.testing.assert_array_equal(d(fg.nn.relu, [0.0]), [0.0])
    np.testing.assert_array_equal(d(fg.nn.relu6, [0.0, 6.0]), [0.0, 0.0])
    np.testing.assert_array_equal(d(fg.nn.leaky_relu, [0.0]), [1.0])
    np.testing.assert_array_equal(d(fg.nn.hard_tanh, [-1.0, 1.0]), [1.0, 1.0])
    np.testing.assert_allclose(d(fg.nn.sigmoid, [0.0]), [0.25])
    np.testing.assert_allclose(d(fg.nn.elu, [0.0]), [1.0])


def test_integer_inputs():
    np.testing.assert_array_equal(fg.nn.relu(np.array([-2, 3])), [0, 3])
    assert fg.nn.sigmoid(np.array([0])).dtype == np.float64


# ----------------------------------------------------------------------------- where=
MASK = RNG.standard_normal((3, 5)) > -0.5
MASK[:, 0] = True  # every row keeps an element


def test_softmax_where():
    out = fg.nn.softmax(X, where=MASK)
    ref = np.where(MASK, np.exp(X), 0)
    np.testing.assert_allclose(out, ref / ref.sum(-1, keepdims=True), rtol=1e-14)
    assert np.all(out[~MASK] == 0)
    fg.test_util.check_grads(lambda x: fg.nn.softmax(x, where=MASK), (X,), order=2)


def test_log_softmax_where():
    out = fg.nn.log_softmax(X, where=MASK)
    lse = np.log(np.where(MASK, np.exp(X), 0).sum(-1, keepdims=True))
    np.testing.assert_allclose(out[MASK], (X - lse)[MASK], rtol=1e-14)
    assert np.all(out[~MASK] == -np.inf)
    g = fg.grad(lambda x: fnp.sum(fnp.where(MASK, fg.nn.log_softmax(x, where=MASK), 0)))(X)
    assert np.all(np.isfinite(g)) and np.all(g[~MASK] == 0)


def test_logsumexp_where_b_and_sign():
    np.testing.assert_allclose(fg.nn.logsumexp(X, axis=1, where=MASK),
                               np.log(np.where(MASK, np.exp(X), 0).sum(1)), rtol=1e-14)
    # a masked-out element may be anything, even inf or nan, without touching the result
    bad = np.where(MASK, X, np.inf)
    np.testing.assert_allclose(fg.nn.logsumexp(bad, axis=1, where=MASK),
                               fg.nn.logsumexp(X, axis=1, where=MASK))
    g = fg.grad(lambda x: fnp.sum(fg.nn.logsumexp(x, axis=1, where=MASK)))(bad)
    assert np.all(np.isfinite(g)) and np.all(g[~MASK] == 0)
    # all masked: -inf, as an empty sum
    assert fg.nn.logsumexp(X[0], where=np.zeros(5, bool)) == -np.inf
    b = np.linspace(-1, 1, 5)
    val, sign = fg.nn.logsumexp(X, axis=1, b=b, return_sign=True)
    ref, ref_sign = sp.logsumexp(X, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(val, ref, rtol=1e-12)
    np.testing.assert_array_equal(sign, ref_sign)
    assert np.all(np.isnan(fg.nn.logsumexp(X, axis=1, b=b)[ref_sign < 0]))
    fg.test_util.check_grads(lambda x: fg.nn.logsumexp(x, axis=1, b=np.abs(b) + 0.1), (X,),
                             order=2)


def test_standardize_where_and_given_stats():
    out = fg.nn.standardize(X, where=MASK)
    for row, m, o in zip(X, MASK, out):
        kept = row[m]
        np.testing.assert_allclose(o, (row - kept.mean()) / np.sqrt(kept.var() + 1e-5),
                                   rtol=1e-12)
    np.testing.assert_allclose(fg.nn.standardize(X, axis=0, mean=0.5, variance=4.0,
                                                 epsilon=0.0), (X - 0.5) / 2.0)
    assert fg.nn.standardize(X.astype(np.float32), where=MASK).dtype == np.float32
    fg.test_util.check_grads(lambda x: fg.nn.standardize(x, where=MASK), (X,), order=2)


def test_where_under_jit_and_vmap():
    for f in (fg.nn.softmax, fg.nn.log_softmax, fg.nn.logsumexp, fg.nn.standardize):
        g = lambda x, m: f(x, where=m)  # noqa: E731
        np.testing.assert_allclose(fg.jit(g)(X, MASK), g(X, MASK))
        np.testing.assert_allclose(fg.vmap(g)(X, MASK), np.stack([g(x, m) for x, m in
                                                                  zip(X, MASK)]))


# ----------------------------------------------------------------------------- one_hot
def test_one_hot():
    idx = np.array([[0, 2], [3, 1]])
    out = fg.nn.one_hot(idx, 3)
    assert out.shape == (2, 2, 3) and out.dtype == np.float64
    np.testing.assert_array_equal(out, (idx[..., None] == np.arange(3)).astype(float))
    assert np.all(out[1, 0] == 0)   # out of range: all zeros
    out = fg.nn.one_hot(idx, 4, dtype=np.int32, axis=0)
    assert out.shape == (4, 2, 2) and out.dtype == np.int32
    np.testing.assert_array_equal(out, np.moveaxis(np.eye(4, dtype=np.int32)[idx], -1, 0))
    assert fg.nn.one_hot(idx, 3, dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal(fg.vmap(lambda i: fg.nn.one_hot(i, 4))(idx),
                                  fg.nn.one_hot(idx, 4))
    np.testing.assert_array_equal(fg.jit(lambda i: fg.nn.one_hot(i, 4))(idx),
                                  fg.nn.one_hot(idx, 4))


# ----------------------------------------------------------------------------- losses
LOGITS = RNG.standard_normal((4, 3))
PROBS = sp.softmax(RNG.standard_normal((4, 3)), axis=-1)
INT_LABELS = np.array([0, 2, 1, 2])
BIN = RNG.uniform(0, 1, (4, 3))
PRED, TARGET = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
SIGNS = np.sign(RNG.standard_normal((4, 3)))
TARGET_P = np.where(PROBS < 0.2, 0.0, PROBS)  # some zero targets
HUBER_PRED = np.where(np.abs(np.abs(PRED - TARGET) - 1) < 0.05, PRED + 0.2, PRED)
HINGE_PRED = np.where(np.abs(1 - PRED * SIGNS) < 0.05, PRED + 0.2, PRED)

NAME_INT = "softmax_cross_entropy_with_integer_labels"
# name -> (loss of the differentiated first argument, reference, args, order)
LOSSES = {
    "softmax_cross_entropy": (losses.softmax_cross_entropy,
                              lambda l, y: -(y * sp.log_softmax(l, -1)).sum(-1),
                              (LOGITS, PROBS), 2),
    "softmax_cross_entropy_with_integer_labels": (
        losses.softmax_cross_entropy_with_integer_labels,
        lambda l, y: _lse(l) - l[np.arange(4), y], (LOGITS, INT_LABELS), 2),
    "sigmoid_binary_cross_entropy": (
        losses.sigmoid_binary_cross_entropy,
        lambda l, y: -y * np.log(_sig(l)) - (1 - y) * np.log(1 - _sig(l)), (LOGITS, BIN), 2),
    "squared_error": (losses.squared_error, lambda p, t: (p - t) ** 2, (PRED, TARGET), 2),
    "mse": (losses.mse, lambda p, t: ((p - t) ** 2).mean(-1), (PRED, TARGET), 2),
    "l2_loss": (losses.l2_loss, lambda p, t: 0.5 * (p - t) ** 2, (PRED, TARGET), 2),
    "huber_loss": (lambda p, t: losses.huber_loss(p, t, delta=1.0),
                   lambda p, t: np.where(np.abs(p - t) <= 1, 0.5 * (p - t) ** 2,
                                         np.abs(p - t) - 0.5), (HUBER_PRED, TARGET), 1),
    "hinge_loss": (losses.hinge_loss, lambda p, t: np.maximum(0, 1 - p * t),
                   (HINGE_PRED, SIGNS), 1),
    "kl_divergence": (losses.kl_divergence,
                      lambda lp, t: sp.rel_entr(t, np.exp(lp)).sum(-1),
                      (sp.log_softmax(LOGITS, -1), TARGET_P), 2),
    "cosine_similarity": (losses.cosine_similarity,
                          lambda p, t: (p * t).sum(-1) / np.linalg.norm(p, axis=-1)
                          / np.linalg.norm(t, axis=-1), (PRED, TARGET), 2),
    "cosine_distance": (losses.cosine_distance,
                        lambda p, t: 1 - (p * t).sum(-1) / np.linalg.norm(p, axis=-1)
                        / np.linalg.norm(t, axis=-1), (PRED, TARGET), 1),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_values_gradients_jit(name):
    f, ref, args, order = LOSSES[name]
    out = f(*args)
    np.testing.assert_allclose(out, ref(*args), rtol=1e-12, atol=1e-12)
    assert out.dtype == np.float64
    assert f(*[a.astype(np.float32) if a.dtype == np.float64 else a
               for a in args]).dtype == np.float32
    # (kl_divergence's targets have zeros, a kink; integer labels have no derivative)
    diff = args[:1] if name in ("kl_divergence", NAME_INT) else args
    fixed = args[len(diff):]
    fg.test_util.check_grads(lambda *a: f(*a, *fixed), diff, order=order)
    np.testing.assert_allclose(fg.jit(f)(*args), out, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_are_per_example_under_vmap(name):
    f, _, args, _ = LOSSES[name]
    loop = np.stack([f(*[a[i] for a in args]) for i in range(4)])
    np.testing.assert_allclose(fg.vmap(f)(*args), loop, rtol=1e-14, atol=1e-15)
    assert f(*args).shape in {(4,), (4, 3)}  # one value per example (or per element)


def test_per_example_gradients_vmap_grad_and_jit_grad():
    """vmap(grad(loss)) over examples == a loop of grads; jit(grad) == grad."""
    def loss(w, x, y):
        return losses.softmax_cross_entropy_with_integer_labels(x @ w, y)
    w = RNG.standard_normal((5, 3))
    per_example = fg.vmap(fg.grad(loss), in_axes=(None, 0, 0))(w, X[:3], INT_LABELS[:3])
    loop = np.stack([fg.grad(loss)(w, X[i], INT_LABELS[i]) for i in range(3)])
    np.testing.assert_allclose(per_example, loop, rtol=1e-13, atol=1e-15)

    def mean_loss(w):
        return fnp.mean(loss(w, X, INT_LABELS[:3]) + losses.l2_loss(w).sum())
    np.testing.assert_allclose(fg.jit(fg.grad(mean_loss))(w), fg.grad(mean_loss)(w),
                               rtol=1e-13, atol=1e-15)


def test_integer_label_losses_vmap_labels_and_axis():
    f = losses.softmax_cross_entropy_with_integer_labels
    want = f(LOGITS, INT_LABELS)
    np.testing.assert_allclose(fg.vmap(f)(LOGITS, INT_LABELS), want)
    np.testing.assert_allclose(f(LOGITS.T, INT_LABELS, axis=0), want)
    np.testing.assert_allclose(
        losses.softmax_cross_entropy(LOGITS, fg.nn.one_hot(INT_LABELS, 3)), want)
    with pytest.raises(TypeError, match="softmax_cross_entropy"):
        f(LOGITS, INT_LABELS.astype(float))


def test_losses_stable_for_large_logits():
    logits = np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 50.0]])
    labels = np.array([0, 2])
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        for f in (lambda l: losses.softmax_cross_entropy(l, fg.nn.one_hot(labels, 3)),
                  lambda l: losses.softmax_cross_entropy_with_integer_labels(l, labels),
                  lambda l: losses.sigmoid_binary_cross_entropy(l, np.ones_like(l) * 0.3)):
            out, g = f(logits), fg.grad(lambda l: fnp.sum(f(l)))(logits)
            assert np.all(np.isfinite(out)) and np.all(np.isfinite(g)), (out, g)
    np.testing.assert_allclose(
        losses.softmax_cross_entropy_with_integer_labels(logits, labels), [0.0, 1e4 - 50.0])
    np.testing.assert_allclose(losses.sigmoid_binary_cross_entropy(
        np.array([1e4, -1e4]), np.array([1.0, 1.0])), [0.0, 1e4])


def test_loss_where_masks_classes():
    m = np.array([True, True, False])
    with pytest.raises(ValueError, match=r"where\[None\]"):  # (optax: a per-example mask)
        losses.softmax_cross_entropy(LOGITS, PROBS, where=m)
    m = m[None]  # one class mask for every example
    np.testing.assert_allclose(losses.softmax_cross_entropy(LOGITS, PROBS, where=m),
                               -(PROBS[:, :2] * sp.log_softmax(LOGITS[:, :2], -1)).sum(-1))
    np.testing.assert_allclose(
        losses.softmax_cross_entropy_with_integer_labels(LOGITS, np.array([0, 1, 1, 0]),
                                                         where=m),
        _lse(LOGITS[:, :2]) - LOGITS[np.arange(4), [0, 1, 1, 0]])
    np.testing.assert_allclose(losses.mse(PRED, TARGET, where=m),
                               ((PRED - TARGET)[:, :2] ** 2).mean(-1))
    np.testing.assert_allclose(losses.cosine_similarity(PRED, TARGET, where=m),
                               losses.cosine_similarity(PRED[:, :2], TARGET[:, :2]))
    g = fg.grad(lambda l: fnp.sum(losses.softmax_cross_entropy(l, PROBS, where=m)))(LOGITS)
    assert np.all(np.isfinite(g)) and np.all(g[:, 2] == 0)


def test_kl_divergence_zero_targets_have_finite_gradient():
    g = fg.grad(lambda t: fnp.sum(losses.kl_divergence(np.log(PROBS), t)))(TARGET_P)
    assert np.all(np.isfinite(g))


def test_cosine_similarity_epsilon_for_zero_vectors():
    z = np.zeros(3)
    assert losses.cosine_similarity(z, PRED[0], epsilon=1e-12) == 0.0
    assert np.all(np.isfinite(fg.grad(
        lambda p: losses.cosine_similarity(p, PRED[0], epsilon=1e-12))(PRED[1])))


# ----------------------------------------------------------------------------- erf
def test_erf_primitive():
    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(erf(x), sp.erf(x), rtol=1e-15)
    for dtype in (np.float32, np.float16):
        assert erf(x.astype(dtype)).dtype == dtype
    fg.test_util.check_grads(erf, (x,), order=2)
    np.testing.assert_allclose(fg.grad(lambda v: fnp.sum(erf(v)))(x),
                               2 / math.sqrt(math.pi) * np.exp(-x * x))


def test_import_fungrad_does_not_import_scipy():
    import subprocess
    import sys
    code = "import sys, fungrad; assert 'scipy' not in sys.modules, 'scipy imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_reductions_to_one_value_are_arrays():
    """NumPy's eager sum to 0-d is a NumPy scalar; fg.nn returns arrays."""
    for out in (losses.mse(PRED[0], TARGET[0]), losses.kl_divergence(PRED[0], PROBS[0]),
                losses.softmax_cross_entropy(LOGITS[0], PROBS[0]),
                losses.cosine_similarity(PRED[0], TARGET[0]), fg.nn.logsumexp(X)):
        assert type(out) is np.ndarray and out.shape == ()


def test_namespace_and_docstring_examples():
    assert "nn" in fg.__all__
    fans = [n for n in initializers.__all__ if n == "variance_scaling" or n.endswith(
        ("_uniform", "_normal")) and n != "truncated_normal"]
    assert fg.nn.__all__ == (activations.__all__ + attention.__all__ + losses.__all__
                             + ["initializers"] + fans + stax.__all__)
    for name in fg.nn.__all__:
        f = getattr(fg.nn, name)
        if not callable(f):  # the initializers module, stax's layer constants (Relu, ...)
            continue
        assert f.__doc__ and "Example" in f.__doc__, name
        assert f.__annotations__, name
    for module in (fg.nn, activations, attention, losses):
        result = doctest.testmod(module, extraglobs={"fg": fg, "np": np}, verbose=False)
        assert result.failed == 0, module.__name__


def test_integer_label_where_along_another_axis():
    """`where` is given in the logits' layout: with classes along axis 0 it masks the same
    entries as its transpose does with classes last."""
    m = np.ones(LOGITS.shape, bool)
    m[1, 2] = m[3, 0] = False
    f = losses.softmax_cross_entropy_with_integer_labels
    labels = np.array([0, 1, 1, 2])
    np.testing.assert_allclose(f(LOGITS.T, labels, axis=0, where=m.T),
                               f(LOGITS, labels, where=m))


def test_sigmoid_cross_entropy_keeps_the_logits_dtype():
    logits = LOGITS.astype(np.float32)
    for labels in (np.ones(LOGITS.shape), np.ones(LOGITS.shape, np.int64)):
        out = losses.sigmoid_binary_cross_entropy(logits, labels)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, losses.sigmoid_binary_cross_entropy(LOGITS, 1.0),
                                   rtol=1e-6)


def test_integer_label_loss_of_a_fully_masked_row_is_zero():
    """As optax: a row whose classes are all masked out has loss 0 (not -inf), and a finite
    zero gradient."""
    m = np.ones(LOGITS.shape, bool)
    m[2] = False
    f = losses.softmax_cross_entropy_with_integer_labels
    labels = np.array([0, 1, 1, 2])
    out = f(LOGITS, labels, where=m)
    assert out[2] == 0 and np.all(out[[0, 1, 3]] == f(LOGITS, labels)[[0, 1, 3]])
    g = fg.grad(lambda l: fnp.sum(f(l, labels, where=m)))(LOGITS)
    assert np.all(np.isfinite(g)) and np.all(g[2] == 0)


def test_gelu_tanh_grad_finite_for_large_float16():
    # float16's x**3 overflows past |x| ~ 40: tanh's slope 0 times inf made the gradient NaN
    x = np.array([-1e4, -50.0, 0.5, 50.0, 1e4], np.float16)
    g = fg.grad(lambda z: fnp.sum(fg.nn.gelu(z)).astype(np.float32))(x)
    assert g.dtype == np.float16
    np.testing.assert_array_equal(g, np.array([0, 0, g[2], 1, 1], np.float16))
    np.testing.assert_array_equal(fg.nn.gelu(x), fg.jit(fg.nn.gelu)(x))
    np.testing.assert_array_equal(fg.nn.gelu(x)[[0, 4]], np.array([-0.0, 1e4], np.float16))


def test_losses_keep_float32_with_integer_or_float64_labels():
    logits = np.array([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]], np.float32)
    labels = np.array([2, 0])
    onehot = fg.nn.one_hot(labels, 3)  # float64 by default
    out = fg.nn.softmax_cross_entropy(logits, onehot)
    assert out.dtype == np.float32
    np.testing.assert_allclose(
        out, fg.nn.softmax_cross_entropy_with_integer_labels(logits, labels), rtol=1e-6)
    targets = np.array([[0, 1, 1], [1, 0, 0]])
    for loss in (fg.nn.squared_error, fg.nn.mse, fg.nn.l2_loss, fg.nn.huber_loss):
        y = loss(logits, targets)
        assert y.dtype == np.float32, loss.__name__
        np.testing.assert_allclose(y, loss(logits.astype(np.float64), targets), rtol=1e-6)
    assert fg.nn.hinge_loss(logits, 2 * targets - 1).dtype == np.float32
    assert fg.nn.squared_error(logits, targets.astype(bool)).dtype == np.float32
    assert fg.jit(fg.nn.mse)(logits, targets).dtype == np.float32


def test_eager_bfloat16_keeps_its_dtype_as_under_jit():
    # NumPy's operators promote a bfloat16 array with a Python float to float32 (ml_dtypes);
    # fungrad's rule (under transforms) keeps bfloat16, and eager calls now agree
    import ml_dtypes
    b = np.array([[1.5, -2.0, 0.3], [0.1, 0.2, -0.7]], ml_dtypes.bfloat16)
    labels = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], ml_dtypes.bfloat16)
    two_args = {"softmax_cross_entropy", "sigmoid_binary_cross_entropy", "squared_error", "mse",
                "huber_loss", "hinge_loss", "kl_divergence", "cosine_similarity",
                "cosine_distance"}
    for name in fg.nn.activations.__all__ + fg.nn.losses.__all__:
        if name in ("one_hot", "softmax_cross_entropy_with_integer_labels"):
            continue
        if name in fg.nn.losses.__all__[fg.nn.losses.__all__.index("sigmoid_focal_loss"):]:
            continue  # (other signatures: tests/test_losses_more.py checks them)
        f = getattr(fg.nn, name)
        args = (b, labels) if name in two_args else (b[:, :2],) if name == "glu" else (b,)
        eager, jitted = f(*args), fg.jit(f)(*args)
        assert eager.dtype == jitted.dtype == ml_dtypes.bfloat16, name
        np.testing.assert_allclose(eager.astype(np.float32), jitted.astype(np.float32),
                                   rtol=2e-2, atol=2e-2, err_msg=name)
    for f in (lambda x: fnp.multiply(x, 0.1), lambda x: fnp.where(x > 0, x, 0.0),
              lambda x: fnp.clip(x, -1.0, 1.0), lambda x: fnp.maximum(x, 0.0)):
        assert f(b).dtype == fg.jit(f)(b).dtype == ml_dtypes.bfloat16


def test_a_nan_logit_makes_its_slice_nan_as_jax():
    # the guard that keeps all-masked slices finite read a NaN sum as such: softmax of
    # [nan, 1] was [nan, 2.718] and logsumexp -inf
    x = np.array([[np.nan, 1.0], [1.0, 2.0]])
    for f in (fg.nn.softmax, fg.nn.log_softmax, fg.jit(fg.nn.softmax)):
        out = f(x)
        assert np.isnan(out[0]).all() and np.isfinite(out[1]).all()
    lse = fg.nn.logsumexp(x, axis=-1)
    assert np.isnan(lse[0]) and np.isfinite(lse[1])
    np.testing.assert_array_equal(fg.nn.softmax(np.array([-np.inf, -np.inf])), [0.0, 0.0])


# ----------------------------------------------------------------------------- jax.nn's rest
def test_sparse_plus_and_sigmoid_at_their_joints():
    # sparse_sigmoid is sparse_plus's derivative, also at the joints -1 and 1 (JAX's values)
    x = np.array([-2.0, -1.0, -0.5, 0.0, 1.0, 3.0])
    np.testing.assert_allclose(fg.nn.sparse_plus(x), [0, 0, 0.0625, 0.25, 1, 3])
    g = fg.vmap(fg.grad(fg.nn.sparse_plus))(x)
    np.testing.assert_allclose(g, [0, 0, 0.25, 0.5, 1, 1])
    np.testing.assert_allclose(fg.nn.sparse_sigmoid(x)[1:-1], g[1:-1])
    with np.errstate(over="raise", invalid="raise"):  # (the square sees a clipped x)
        assert fg.grad(fg.nn.sparse_plus)(np.float32(-1e30)) == 0


def test_log1mexp_is_accurate_at_both_ends_and_its_slope_is_one_over_expm1():
    x = np.array([1e-300, 1e-10, np.log(2.0), 1.0, 40.0, 730.0])
    want = np.log(-np.expm1(-x))
    want[-2:] = [-np.exp(-40.0), -np.exp(-730.0)]   # log1p(-e) ~ -e, below log's resolution
    np.testing.assert_allclose(fg.nn.log1mexp(x), want, rtol=1e-14)
    with np.errstate(over="raise"):
        slope = fg.vmap(fg.grad(fg.nn.log1mexp))(x)
    np.testing.assert_allclose(slope, np.exp(-x) / -np.expm1(-x), rtol=1e-14)
    assert slope[-1] > 0
    # second order through the custom rule
    np.testing.assert_allclose(fg.grad(fg.grad(fg.nn.log1mexp))(1.0),
                               -np.exp(1.0) / np.expm1(1.0) ** 2, rtol=1e-14)
    f32 = fg.nn.log1mexp(np.float32(1e-3))
    assert f32.dtype == np.float32 and np.isclose(f32, np.log(-np.expm1(-1e-3)), rtol=1e-6)


def test_logmeanexp_where_counts_only_the_kept_elements():
    x = np.array([[1.0, 2.0, 1e4], [0.5, -1.0, 3.0]])
    w = np.array([[True, True, False], [True, False, True]])
    want = [np.log(np.mean(np.exp([1.0, 2.0]))), np.log(np.mean(np.exp([0.5, 3.0])))]
    np.testing.assert_allclose(fg.nn.logmeanexp(x, axis=1, where=w), want, rtol=1e-14)
    np.testing.assert_allclose(fg.jit(lambda x: fg.nn.logmeanexp(x, axis=1, where=w))(x), want,
                               rtol=1e-14)
    g = fg.grad(lambda x: fnp.sum(fg.nn.logmeanexp(x, axis=1, where=w)))(x)
    np.testing.assert_allclose(g[w], np.concatenate(
        [sp.softmax([1.0, 2.0]), sp.softmax([0.5, 3.0])]), rtol=1e-14)
    assert np.all(g[~w] == 0)
    assert fg.nn.logmeanexp(np.ones(3, np.float32)).dtype == np.float32
