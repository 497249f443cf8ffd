"""fg.nn stax-style layers: shapes from init match apply, values against NumPy formulas,
explicit normalization state, dropout keys, training an MLP, per-example gradients."""
import doctest

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad import nn
from fungrad.nn import stax

KEY = fg.random.key(0)
RNG = np.random.default_rng(0)
EPS = 1e-5


def _concrete(shape, batch=4):
    return tuple(batch if d == -1 else d for d in shape)


# layer, input shape (with -1 for the batch), input dtype kind
LAYERS = {
    "Dense": (nn.Dense(5), (-1, 3), "f"),
    "Dense_3d": (nn.Dense(5), (2, 6, 3), "f"),
    "Flatten": (nn.Flatten, (-1, 2, 3), "f"),
    "BatchNorm": (nn.BatchNorm(), (-1, 3), "f"),
    "BatchNorm_nhwc": (nn.BatchNorm(), (-1, 2, 2, 3), "f"),
    "LayerNorm": (nn.LayerNorm(), (-1, 3), "f"),
    "GroupNorm": (nn.GroupNorm(num_groups=2), (-1, 2, 4), "f"),
    "Dropout": (nn.Dropout(0.3), (-1, 3), "f"),
    "Embedding": (nn.Embedding(7, 4), (-1, 5), "i"),
    "Identity": (nn.Identity, (-1, 3), "f"),
    "serial": (nn.serial(nn.Dense(4), nn.Relu, nn.Dense(2), nn.LogSoftmax), (-1, 3), "f"),
    "residual": (nn.serial(nn.FanOut(2), nn.parallel(nn.Dense(3), nn.Identity), nn.FanInSum),
                 (-1, 3), "f"),
    "concat": (nn.serial(nn.FanOut(3), nn.parallel(nn.Dense(2), nn.Identity, nn.Tanh),
                         nn.FanInConcat()), (-1, 3), "f"),
    **{name: (getattr(nn, name), (-1, 3), "f")
       for name in ["Relu", "Gelu", "Sigmoid", "Tanh", "Softplus", "Elu", "LeakyRelu", "Selu",
                    "Silu", "LogSoftmax", "Softmax"]},
}


def _input(shape, kind):
    shape = _concrete(shape)
    return RNG.integers(0, 7, shape) if kind == "i" else RNG.normal(size=shape)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_init_shape_equals_apply_shape(name):
    layer, in_shape, kind = LAYERS[name]
    init_fn, apply_fn = layer
    out_shape, params = init_fn(KEY, in_shape)
    y = apply_fn(params, _input(in_shape, kind), key=KEY)
    assert y.shape == _concrete(out_shape), name
    assert stax._out_shape(layer, in_shape) == out_shape
    # params are plain pytrees of NumPy arrays
    assert all(isinstance(p, np.ndarray) for p in fg.tree.tree_leaves(params))


def test_dense_and_serial_values_match_numpy():
    init_fn, apply_fn = nn.serial(nn.Dense(4), nn.Relu, nn.Dense(2), nn.Softmax)
    shape, params = init_fn(KEY, (-1, 3))
    (w1, b1), (), (w2, b2), () = params
    assert w1.shape == (3, 4) and b1.shape == (4,) and w2.shape == (4, 2)
    x = RNG.normal(size=(5, 3))
    z = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    expected = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
    np.testing.assert_allclose(apply_fn(params, x), expected, rtol=1e-12)
    # serial gives each layer its own key: the two Dense layers differ in their init
    (_, (wa, _)), (_, (wb, _)) = nn.Dense(4)[0](KEY, (-1, 4)), nn.Dense(4)[0](KEY, (-1, 4))
    np.testing.assert_array_equal(wa, wb)
    _, p2 = nn.serial(nn.Dense(4), nn.Dense(4))[0](KEY, (-1, 4))
    assert not np.allclose(p2[0][0], p2[1][0])


def test_activation_layers_apply_their_function():
    x = RNG.normal(size=(3, 4))
    pairs = {"Relu": nn.relu, "Gelu": nn.gelu, "Sigmoid": nn.sigmoid, "Tanh": nn.tanh,
             "Softplus": nn.softplus, "Elu": nn.elu, "LeakyRelu": nn.leaky_relu,
             "Selu": nn.selu, "Silu": nn.silu, "LogSoftmax": nn.log_softmax,
             "Softmax": nn.softmax}
    for name, fn in pairs.items():
        np.testing.assert_array_equal(getattr(nn, name)[1]((), x), fn(x), err_msg=name)
    np.testing.assert_array_equal(nn.elementwise(nn.leaky_relu, negative_slope=0.3)[1]((), x),
                                  nn.leaky_relu(x, negative_slope=0.3))


def _np_norm(x, axes, eps=EPS):
    m = x.mean(axis=axes, keepdims=True)
    v = ((x - m) ** 2).mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + eps)


def test_batchnorm_training_and_inference_with_running_stats():
    layer = nn.BatchNorm(momentum=0.9)
    init_fn, apply_fn = layer
    _, (beta, gamma) = init_fn(KEY, (-1, 2, 2, 3))
    beta, gamma = RNG.normal(size=3), RNG.normal(size=3)   # not the trivial init
    _, state = nn.init_state(layer, (-1, 2, 2, 3))
    np.testing.assert_array_equal(state[0], np.zeros(3))
    np.testing.assert_array_equal(state[1], np.ones(3))
    x = RNG.normal(2.0, 3.0, size=(8, 2, 2, 3))
    # training: batch statistics over every axis but the channel axis
    y, new = apply_fn((beta, gamma), x, state=state, training=True)
    np.testing.assert_allclose(y, gamma * _np_norm(x, (0, 1, 2)) + beta, rtol=1e-12)
    np.testing.assert_allclose(new[0], 0.1 * x.mean((0, 1, 2)), rtol=1e-12)
    np.testing.assert_allclose(new[1], 0.9 + 0.1 * x.var((0, 1, 2)), rtol=1e-12)
    # without state: the same output, and only the output
    np.testing.assert_allclose(apply_fn((beta, gamma), x), y, rtol=1e-12)
    # inference: the running statistics, state unchanged
    y2, same = apply_fn((beta, gamma), x, state=new, training=False)
    expected = gamma * (x - new[0]) / np.sqrt(new[1] + EPS) + beta
    np.testing.assert_allclose(y2, expected, rtol=1e-12)
    assert same is new
    x32 = x.astype(np.float32)    # float64 running stats keep float32 activations float32
    assert apply_fn((beta, gamma), x32, state=new, training=False)[0].dtype == np.float64
    assert apply_fn((beta.astype(np.float32), gamma.astype(np.float32)), x32, state=new,
                    training=False)[0].dtype == np.float32
    with pytest.raises(ValueError, match="state=.*init_state"):
        apply_fn((beta, gamma), x, training=False)


def test_batchnorm_state_threads_through_serial_and_jit():
    model = nn.serial(nn.Dense(3), nn.BatchNorm(), nn.Relu, nn.Dense(2), nn.BatchNorm(axis=0))
    init_fn, apply_fn = model
    _, params = init_fn(KEY, (-1, 4))
    out_shape, state = nn.init_state(model, (-1, 4))
    assert out_shape == (-1, 2)
    assert state[0] is None and state[2] is None and state[3] is None
    x = RNG.normal(size=(6, 4))
    y, new = apply_fn(params, x, state=state)
    assert y.shape == (6, 2) and fg.tree.tree_structure(new) == fg.tree.tree_structure(state)
    h = x @ params[0][0] + params[0][1]
    np.testing.assert_allclose(new[1][0], 0.01 * h.mean(0), rtol=1e-12)
    # the same under jit, and the gradient ignores the state's path
    yj, newj = fg.jit(lambda p, x, s: apply_fn(p, x, state=s))(params, x, state)
    np.testing.assert_allclose(yj, y, rtol=1e-12)
    np.testing.assert_allclose(newj[4][1], new[4][1], rtol=1e-12)

    def loss(p):
        y, s = apply_fn(p, x, state=state)
        return fnp.sum(y ** 2), s
    g, s = fg.grad(loss, has_aux=True)(params)
    g_plain = fg.grad(lambda p: fnp.sum(apply_fn(p, x) ** 2))(params)  # batch stats, no state
    for a, b in zip(fg.tree.tree_leaves(g), fg.tree.tree_leaves(g_plain)):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    np.testing.assert_allclose(s[1][0], new[1][0], rtol=1e-12)
    # inference mode through serial uses the running statistics
    y_eval, kept = apply_fn(params, x, state=new, training=False)
    assert kept[1] is new[1]


def test_layernorm_and_groupnorm_match_numpy():
    x = RNG.normal(1.0, 2.0, size=(3, 5, 6))
    init_fn, apply_fn = nn.LayerNorm(axis=(-2, -1))
    _, (beta, gamma) = init_fn(KEY, x.shape)
    assert beta.shape == gamma.shape == (5, 6)
    beta, gamma = RNG.normal(size=(5, 6)), RNG.normal(size=(5, 6))
    np.testing.assert_allclose(apply_fn((beta, gamma), x), gamma * _np_norm(x, (1, 2)) + beta,
                               rtol=1e-11)
    # per example under vmap equals the batch
    np.testing.assert_allclose(fg.vmap(lambda e: apply_fn((beta, gamma), e))(x),
                               apply_fn((beta, gamma), x), rtol=1e-12)

    init_fn, apply_fn = nn.GroupNorm(num_groups=3)
    _, (beta, gamma) = init_fn(KEY, x.shape)
    assert gamma.shape == (6,)
    beta, gamma = RNG.normal(size=6), RNG.normal(size=6)
    g = x.reshape(3, 5, 3, 2)
    expected = _np_norm(g, (1, 3)).reshape(x.shape) * gamma + beta
    np.testing.assert_allclose(apply_fn((beta, gamma), x), expected, rtol=1e-11)
    with pytest.raises(ValueError, match="divisible by num_groups=4"):
        nn.GroupNorm(4)[0](KEY, (-1, 6))


def test_dropout_rate_scaling_determinism_and_test_mode():
    _, apply_fn = nn.Dropout(0.25)
    x = np.ones(40000)
    y = apply_fn((), x, key=KEY)
    dropped = (y == 0).mean()
    assert abs(dropped - 0.25) < 0.01
    np.testing.assert_array_equal(np.unique(y), [0.0, 1 / 0.75])
    np.testing.assert_array_equal(apply_fn((), x, key=KEY), y)            # same key
    assert not np.array_equal(apply_fn((), x, key=fg.random.key(1)), y)   # other key
    np.testing.assert_array_equal(apply_fn((), x, training=False), x)     # identity
    np.testing.assert_array_equal(apply_fn((), x, key=KEY, training=False), x)
    x32 = np.ones(4, np.float32)
    assert apply_fn((), x32, key=KEY).dtype == np.float32
    np.testing.assert_array_equal(nn.Dropout(1.0)[1]((), x32, key=KEY), np.zeros(4))
    with pytest.raises(ValueError, match="key="):
        apply_fn((), x)
    with pytest.raises(ValueError, match="rate"):
        nn.Dropout(1.5)


def test_serial_splits_the_dropout_key():
    init_fn, apply_fn = nn.serial(nn.Dropout(0.5), nn.Dropout(0.5))
    _, params = init_fn(KEY, (-1, 1000))
    x = np.ones((1, 1000))
    y = apply_fn(params, x, key=KEY)
    k1, k2 = fg.random.split(KEY)
    once = nn.Dropout(0.5)[1]
    np.testing.assert_array_equal(y, once((), once((), x, key=k1), key=k2))
    np.testing.assert_array_equal(apply_fn(params, x, training=False), x)


def test_embedding_lookup_and_gradient():
    init_fn, apply_fn = nn.Embedding(6, 3)
    shape, table = init_fn(KEY, (2, 2))
    assert shape == (2, 2, 3) and table.shape == (6, 3)
    np.testing.assert_allclose(table.std(), 1 / np.sqrt(3), rtol=0.6)
    ids = np.array([[1, 4], [1, 0]])
    np.testing.assert_array_equal(apply_fn(table, ids), table[ids])
    w = RNG.normal(size=(2, 2, 3))
    g = fg.grad(lambda t: fnp.sum(apply_fn(t, ids) * w))(table)
    expected = np.zeros_like(table)
    np.add.at(expected, ids, w)
    np.testing.assert_allclose(g, expected, rtol=1e-12)


def _mlp_data():
    x = RNG.normal(size=(64, 8))
    labels = (x[:, 0] + x[:, 1] > 0).astype(np.int64) + 2 * (x[:, 2] > 0)
    return x, labels


def test_mlp_trains_with_adam_under_jit():
    init_fn, apply_fn = nn.serial(nn.Dense(32), nn.Relu, nn.Dense(10))
    _, params = init_fn(KEY, (-1, 8))
    x, labels = _mlp_data()

    def loss(p, x, y):
        return fnp.mean(nn.softmax_cross_entropy_with_integer_labels(apply_fn(p, x), y))

    opt = fg.optim.adam(1e-2)
    state = opt.init(params)

    @fg.jit
    def step(p, s, x, y):
        l, g = fg.value_and_grad(loss)(p, x, y)
        u, s = opt.update(g, s, p)
        return fg.optim.apply_updates(p, u), s, l

    losses = []
    for _ in range(30):
        params, state, l = step(params, state, x, labels)
        losses.append(float(l))
    assert losses[-1] < 0.5 * losses[0]
    assert all(b < a for a, b in zip(losses[:10], losses[1:11]))


def test_per_example_gradients_through_a_model_equal_a_loop():
    init_fn, apply_fn = nn.serial(nn.Dense(6), nn.Tanh, nn.LayerNorm(), nn.Dense(3))
    _, params = init_fn(KEY, (-1, 4))
    x, y = RNG.normal(size=(5, 4)), RNG.integers(0, 3, 5)

    def loss(p, xi, yi):
        return nn.softmax_cross_entropy_with_integer_labels(apply_fn(p, xi[None]), yi[None])[0]

    batched = fg.vmap(fg.grad(loss), in_axes=(None, 0, 0))(params, x, y)
    for i in range(5):
        gi = fg.grad(loss)(params, x[i], y[i])
        for a, b in zip(fg.tree.tree_leaves(batched), fg.tree.tree_leaves(gi)):
            np.testing.assert_allclose(a[i], b, rtol=1e-10, atol=1e-14)


def test_user_pairs_compose_in_serial():
    def Scale(c):  # a plain (init_fn, apply_fn) tuple, as stax users write
        return (lambda key, s: (s, ()), lambda params, x, **kw: c * x)
    model = nn.serial(Scale(2.0), nn.BatchNorm(), Scale(3.0))
    _, params = model[0](KEY, (-1, 2))
    _, state = nn.init_state(model, (-1, 2))
    x = RNG.normal(size=(4, 2))
    y, new = model[1](params, x, state=state)
    np.testing.assert_allclose(y, 3 * _np_norm(2 * x, (0,)), rtol=1e-12)
    assert new[0] is None and new[2] is None


def test_docstrings_annotations_and_examples():
    for name in stax.__all__:
        obj = getattr(nn, name)
        assert obj is getattr(stax, name)
        if callable(obj) and not isinstance(obj, type):
            assert obj.__doc__ and "Example" in obj.__doc__, name
            assert obj.__annotations__, name
    result = doctest.testmod(stax, extraglobs={"fg": fg, "np": np})
    assert result.attempted > 0 and result.failed == 0
