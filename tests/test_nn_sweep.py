"""Regressions from a numerics sweep of fg.nn's layers and losses against
jax.example_libraries.stax / optax / Flax's formulas (expected values written out)."""
import numpy as np
import pytest

import fungrad as fg

KEY = fg.random.key(0)


def test_batchnorm_eval_with_integer_input_keeps_float_running_statistics():
    # the running statistics were cast to x's dtype: int64 truncated mean 0.4 -> 0 and
    # variance 0.5 -> 0, giving (2 - 1) / sqrt(1e-5) = 316 instead of 0.566
    bn = fg.nn.BatchNorm()
    _, params = bn[0](KEY, (-1, 2))
    state = (np.array([0.4, 1.6]), np.array([2.5, 0.5]))
    x = np.array([[1, 2], [3, 5]])
    expected = (x - state[0]) / np.sqrt(state[1] + 1e-5)
    for apply in (bn[1], fg.jit(bn[1], static_argnames="training")):
        y, new_state = apply(params, x, state=state, training=False)
        assert y.dtype == np.float64
        np.testing.assert_allclose(y, expected, rtol=1e-12)
    y, _ = bn[1](params, np.array([[True, False]]), state=state, training=False)
    np.testing.assert_allclose(y, (np.array([[1.0, 0.0]]) - state[0]) / np.sqrt(state[1] + 1e-5))


@pytest.mark.parametrize("rate", [np.float64(0.5), np.array(0.5), np.float32(0.25)])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_dropout_numpy_scalar_rate_keeps_activation_dtype(rate, dtype):
    # x / (1 - np.float64 rate) promoted float32 activations to float64 (NumPy's rules)
    _, apply = fg.nn.Dropout(rate)
    x = np.ones((4, 8), dtype)
    y = apply((), x, key=KEY)
    assert y.dtype == dtype
    kept = y[y != 0]
    assert 0 < kept.size < y.size
    np.testing.assert_allclose(kept, 1 / (1 - float(rate)), rtol=1e-3)
    assert fg.jit(lambda v: apply((), v, key=KEY))(x).dtype == dtype


@pytest.mark.parametrize("name", ["BatchNorm", "LayerNorm", "GroupNorm"])
def test_norm_layers_numpy_scalar_epsilon_keeps_float32(name):
    # var + np.float64 epsilon made the float32 output float64
    make = {"BatchNorm": lambda: fg.nn.BatchNorm(epsilon=np.float64(1e-3),
                                                 momentum=np.float64(0.9)),
            "LayerNorm": lambda: fg.nn.LayerNorm(epsilon=np.float64(1e-3)),
            "GroupNorm": lambda: fg.nn.GroupNorm(2, epsilon=np.float64(1e-3))}[name]
    init, apply = make()
    _, params = init(KEY, (-1, 4))
    params = tuple(np.asarray(p, np.float32) for p in params)
    x = np.array([[1., 2., 4., 7.], [0., -1., 3., 5.], [2., 2., 1., 0.]], np.float32)
    y = apply(params, x)
    assert y.dtype == np.float32
    if name == "BatchNorm":
        state = (np.zeros(4, np.float32), np.ones(4, np.float32))
        y, new = apply(params, x, state=state)
        assert y.dtype == np.float32 and all(s.dtype == np.float32 for s in new)
        np.testing.assert_allclose(new[0], 0.1 * x.mean(0), rtol=1e-6)
        np.testing.assert_allclose(new[1], 0.9 + 0.1 * x.var(0), rtol=1e-6)
        mean, var = x.mean(0), x.var(0)
    elif name == "GroupNorm":  # groups of 2 consecutive channels
        g = x.reshape(3, 2, 2)
        mean = np.repeat(g.mean(-1), 2, -1)
        var = np.repeat(g.var(-1), 2, -1)
    else:
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-5, atol=1e-6)


# ---- optax's `where` of the cross entropies: one entry per example leaves examples out
def test_cross_entropy_where_per_example_masks_examples_as_optax():
    logits = np.array([[1., 2., 3.], [0., 1., 0.], [2., 0., 1.]], np.float32)
    labels = np.array([0, 1, 2])
    keep = np.array([True, False, True])  # (3 examples, 3 classes: a class mask would fit too)
    full = fg.nn.softmax_cross_entropy_with_integer_labels(logits, labels)
    # optax 0.2.8 gives [2.407606, 0, 1.4076061] for both functions
    for got in (fg.nn.softmax_cross_entropy_with_integer_labels(logits, labels, where=keep),
                fg.nn.softmax_cross_entropy(logits, np.eye(3, dtype=np.float32)[labels],
                                            where=keep)):
        np.testing.assert_allclose(got, [full[0], 0.0, full[2]], rtol=1e-6)
        assert got.dtype == np.float32
    # a mask of the logits' shape still leaves classes out
    classes = np.array([[True, True, False]] * 3)
    got = fg.nn.softmax_cross_entropy_with_integer_labels(logits, np.array([0, 1, 0]),
                                                          where=classes)
    np.testing.assert_allclose(got, fg.nn.softmax_cross_entropy_with_integer_labels(
        logits[:, :2], np.array([0, 1, 0])), rtol=1e-6)


def test_loss_hyperparameters_as_numpy_scalars_keep_float32():
    p = np.array([0.5, 3.0], np.float32)
    assert fg.nn.huber_loss(p, delta=np.float64(1.0)).dtype == np.float32
    assert fg.nn.cosine_similarity(p, p, epsilon=np.float64(1e-8)).dtype == np.float32
    assert fg.nn.cosine_distance(p, p, epsilon=np.array(1e-8)).dtype == np.float32


def test_layernorm_positive_axes_name_the_same_axes_under_vmap():
    x = np.random.default_rng(0).standard_normal((4, 3, 5))
    for axis in (1, (1, 2), 2, -1):
        init_fn, apply_fn = fg.nn.LayerNorm(axis=axis)
        _, params = init_fn(fg.random.key(0), (-1, 3, 5))
        np.testing.assert_allclose(fg.vmap(lambda e: apply_fn(params, e))(x),
                                   apply_fn(params, x), atol=1e-12)
    init_fn, apply_fn = fg.nn.LayerNorm(axis=1)
    _, params = init_fn(fg.random.key(0), (-1, 3, 5))
    with pytest.raises(ValueError, match="LayerNorm"):
        apply_fn(params, np.ones(5))


def test_logsumexp_masked_weights_and_empty_slices():
    # a masked-out inf or nan weight gave nan (0 * inf); scipy.special's (now this one)
    # gave the sum of the kept elements
    a = np.zeros(2)
    for b in (np.array([1.0, np.inf]), np.array([1.0, np.nan])):
        for lse in (fg.nn.logsumexp, fg.scipy.special.logsumexp):
            assert lse(a, b=b, where=np.array([True, False])) == 0.0
            np.testing.assert_array_equal(
                fg.grad(lambda a: lse(a, b=b, where=np.array([True, False])))(a), [1.0, 0.0])
    assert fg.nn.logsumexp(np.zeros(0)) == -np.inf  # (raised: max of an empty array)
