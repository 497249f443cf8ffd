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

# convolution and pooling layers, every padding / stride / dilation / group combination
PADDINGS = ["SAME", "VALID", [(1, 0), (1, 1)]]
LAYERS.update({
    f"Conv_{i}_{j}_{k}_{g}": (nn.Conv(6, (3, 2), strides=s, padding=p, rhs_dilation=d,
                                      feature_group_count=g), (-1, 7, 8, 4), "f")
    for i, p in enumerate(PADDINGS) for j, s in enumerate([None, (2, 3)])
    for k, d in enumerate([None, (2, 1)]) for g in (1, 2)})
LAYERS.update({
    f"ConvTranspose_{i}_{j}_{k}": (nn.ConvTranspose(3, (3, 2), strides=s, padding=p,
                                                    rhs_dilation=d), (-1, 4, 5, 2), "f")
    for i, p in enumerate(PADDINGS) for j, s in enumerate([None, (2, 3)])
    for k, d in enumerate([None, (1, 2)])})
LAYERS.update({
    f"{pool}_{i}_{j}_{spec}": (getattr(nn, pool)((3, 2), strides=s, padding=p, spec=spec),
                               (-1, 7, 6, 3) if spec is None else (-1, 3, 7, 6), "f")
    for pool in ("MaxPool", "AvgPool", "SumPool") for i, p in enumerate(PADDINGS)
    for j, s in enumerate([None, (2, 2)]) for spec in (None, "NCHW")})
LAYERS.update({
    "Conv1D": (nn.Conv1D(4, (3,), strides=(2,), padding="SAME"), (-1, 9, 2), "f"),
    "Conv3D": (nn.Conv3D(2, (2, 3, 2), padding="SAME"), (-1, 4, 5, 3, 2), "f"),
    "Conv1DTranspose": (nn.Conv1DTranspose(3, (3,), strides=(2,)), (-1, 5, 2), "f"),
    "GeneralConv_nchw": (nn.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 3), (1, 2), "SAME"),
                         (-1, 3, 7, 6), "f"),
    "GeneralConvTranspose_nchw": (nn.GeneralConvTranspose(("NCHW", "OIHW", "NCHW"), 4, (2, 3),
                                                          (2, 2), "SAME"), (2, 3, 4, 5), "f"),
    "MaxPool_1d": (nn.MaxPool((2,), (2,)), (-1, 7, 3), "f"),
    "lenet": (nn.serial(nn.Conv(4, (3, 3)), nn.Relu, nn.MaxPool((2, 2), (2, 2)), nn.Flatten,
                        nn.Dense(3)), (-1, 8, 8, 1), "f"),
})


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


# ------------------------------------------------------------------ convolution and pooling
def _same_pads(sizes, ks, strides, rd):
    """'SAME' padding: the output has ceil(n / s) positions, the total pad split low half
    first."""
    pads = []
    for n, k, s, r in zip(sizes, ks, strides, rd):
        total = max((-(-n // s) - 1) * s + (k - 1) * r + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def np_conv(x, w, strides, pads, rd, groups=1):
    """Channels-last x (N, *S, C) and kernel (*K, I, O): the definition, one output position
    and kernel offset at a time."""
    xp = np.pad(x, [(0, 0)] + list(pads) + [(0, 0)])
    ks, (i_, o_) = w.shape[:-2], w.shape[-2:]
    out_sp = [(n - (k - 1) * r - 1) // s + 1
              for n, k, r, s in zip(xp.shape[1:-1], ks, rd, strides)]
    out = np.zeros((x.shape[0], *out_sp, o_))
    og = o_ // groups
    for pos in np.ndindex(*out_sp):
        for k in np.ndindex(*ks):
            v = xp[(slice(None),) + tuple(p * s + kk * r for p, s, kk, r in
                                          zip(pos, strides, k, rd))]  # (N, C)
            for gi in range(groups):
                out[(slice(None),) + pos + (slice(gi * og, (gi + 1) * og),)] += (
                    v[:, gi * i_:(gi + 1) * i_] @ w[k][:, gi * og:(gi + 1) * og])
    return out


def np_conv_transpose_valid(x, w, strides):
    """Transposed conv, 'VALID', kernel extent >= stride: every input position i spreads
    x[i] @ w[k] to output position i * s + (K - 1 - k) (the kernel is not flipped, so
    its last offset lands first)."""
    ks = w.shape[:-2]
    out_sp = [(n - 1) * s + k for n, s, k in zip(x.shape[1:-1], strides, ks)]
    out = np.zeros((x.shape[0], *out_sp, w.shape[-1]))
    for i in np.ndindex(*x.shape[1:-1]):
        for k in np.ndindex(*ks):
            j = tuple(ii * s + kk_max - 1 - kk for ii, s, kk, kk_max in zip(i, strides, k, ks))
            out[(slice(None),) + j] += x[(slice(None),) + i] @ w[k]
    return out


@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("strides,rd,groups", [(None, None, 1), ((2, 3), (1, 1), 2),
                                               ((1, 2), (2, 1), 1), ((2, 1), (2, 2), 4)])
def test_conv_values_match_numpy_loop(padding, strides, rd, groups):
    init_fn, apply_fn = nn.Conv(4, (3, 2), strides, padding, rhs_dilation=rd,
                                feature_group_count=groups)
    x = RNG.normal(size=(2, 7, 6, 4))
    shape, (W, b) = init_fn(KEY, (-1, 7, 6, 4))
    assert W.shape == (3, 2, 4 // groups, 4) and b.shape == (1, 1, 1, 4)
    b = RNG.normal(size=b.shape)  # not the ~0 init
    s, d = strides or (1, 1), rd or (1, 1)
    pads = _same_pads((7, 6), (3, 2), s, d) if padding == "SAME" else (
        [(0, 0)] * 2 if padding == "VALID" else padding)
    want = np_conv(x, W, s, pads, d, groups) + b
    got = apply_fn((W, b), x)
    assert got.shape == want.shape == _concrete(shape, 2)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_conv1d_conv3d_and_general_conv_values():
    x1 = RNG.normal(size=(2, 9, 3))
    _, p1 = nn.Conv1D(2, (3,), (2,), "VALID")[0](KEY, x1.shape)
    np.testing.assert_allclose(nn.Conv1D(2, (3,), (2,), "VALID")[1](p1, x1),
                               np_conv(x1, p1[0], (2,), [(0, 0)], (1,)) + p1[1], rtol=1e-12)
    x3 = RNG.normal(size=(1, 4, 3, 5, 2))
    layer = nn.Conv3D(3, (2, 2, 3), padding="SAME")
    _, p3 = layer[0](KEY, x3.shape)
    pads = _same_pads((4, 3, 5), (2, 2, 3), (1, 1, 1), (1, 1, 1))
    np.testing.assert_allclose(layer[1](p3, x3), np_conv(x3, p3[0], (1, 1, 1), pads,
                                                         (1, 1, 1)) + p3[1], rtol=1e-12)
    # channels-first layouts: the same numbers as NHWC after moving axes
    nchw = nn.GeneralConv(("NCHW", "OIHW", "NCHW"), 4, (3, 2), (2, 1), "SAME")
    x = RNG.normal(size=(2, 3, 7, 6))
    _, (W, b) = nchw[0](KEY, x.shape)
    assert W.shape == (4, 3, 3, 2) and b.shape == (1, 4, 1, 1)
    want = np_conv(x.transpose(0, 2, 3, 1), W.transpose(2, 3, 1, 0), (2, 1),
                   _same_pads((7, 6), (3, 2), (2, 1), (1, 1)), (1, 1)) + b.reshape(4)
    np.testing.assert_allclose(nchw[1]((W, b), x), want.transpose(0, 3, 1, 2), rtol=1e-12)


def test_conv_kernel_init_is_glorot_normal_over_the_kernel_layouts_in_out_axes():
    """stax's default W_init: glorot_normal(in_axis=spec.index('I'), out_axis=...('O')), so
    the fans are those of the layout (OIHW: in = I*H*W), not of the last two axes."""
    for dn, in_axis, out_axis in [(("NCHW", "OIHW", "NCHW"), 1, 0),
                                  (("NHWC", "HWIO", "NHWC"), 2, 3)]:
        _, (W, _) = nn.GeneralConv(dn, 8, (3, 3))[0](KEY, (-1, 5, 5, 5))
        want = nn.glorot_normal(in_axis, out_axis)(fg.random.split(KEY)[0], W.shape)
        np.testing.assert_array_equal(W, want)
    _, (W, _) = nn.GeneralConv(("NCHW", "OIHW", "NCHW"), 8, (3, 3))[0](KEY, (-1, 5, 5, 5))
    assert not np.allclose(W, nn.glorot_normal()(fg.random.split(KEY)[0], W.shape))


@pytest.mark.parametrize("strides,padding,rd", [((2, 2), "VALID", None), ((2, 1), "SAME", None),
                                                ((1, 3), "VALID", (2, 1)),
                                                ((2, 2), [(1, 0), (0, 2)], None)])
def test_conv_transpose_layer_values(strides, padding, rd):
    layer = nn.ConvTranspose(3, (3, 2), strides, padding, rhs_dilation=rd)
    x = RNG.normal(size=(2, 4, 3, 2))
    shape, (W, b) = layer[0](KEY, (-1, 4, 3, 2))
    assert W.shape == (3, 2, 2, 3) and b.shape == (1, 1, 1, 3)
    got = layer[1]((W, b), x)
    assert got.shape == _concrete(shape, 2)
    np.testing.assert_allclose(got, fg.lax.conv_transpose(x, W, strides, padding, rd) + b,
                               rtol=1e-12)
    if padding == "VALID" and rd is None:  # an independent loop where kernel >= stride
        np.testing.assert_allclose(got, np_conv_transpose_valid(x, W, strides) + b, rtol=1e-12)
    if padding == "SAME":
        assert got.shape[1:3] == (8, 3)  # n * stride


def np_pool(x, window, strides, pads, op):
    """NHWC pooling by the definition: padding never counts (it holds -inf for max and is
    left out of the average's count)."""
    n, h, w, c = x.shape
    xp = np.full((n, h + sum(pads[0]), w + sum(pads[1]), c), np.nan)
    xp[:, pads[0][0]:pads[0][0] + h, pads[1][0]:pads[1][0] + w] = x
    oh = (xp.shape[1] - window[0]) // strides[0] + 1
    ow = (xp.shape[2] - window[1]) // strides[1] + 1
    out = np.empty((n, oh, ow, c))
    for i, j in np.ndindex(oh, ow):
        win = xp[:, i * strides[0]:i * strides[0] + window[0],
                 j * strides[1]:j * strides[1] + window[1]]
        out[:, i, j] = {"max": np.nanmax, "sum": np.nansum, "avg": np.nanmean}[op](win, axis=(1, 2))
    return out


@pytest.mark.parametrize("op", ["max", "sum", "avg"])
@pytest.mark.parametrize("window,strides,padding", [
    ((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"), ((2, 3), None, "SAME"),
    ((3, 2), (1, 2), "VALID"), ((2, 2), (2, 2), "SAME"), ((3, 2), (2, 1), [(1, 1), (0, 1)])])
def test_pooling_values_match_numpy_loop(op, window, strides, padding):
    layer = {"max": nn.MaxPool, "sum": nn.SumPool, "avg": nn.AvgPool}[op](window, strides,
                                                                          padding)
    x = RNG.normal(size=(2, 7, 5, 3))
    s = strides or (1, 1)
    pads = _same_pads((7, 5), window, s, (1, 1)) if padding == "SAME" else (
        [(0, 0)] * 2 if padding == "VALID" else padding)
    want = np_pool(x, window, s, pads, op)
    np.testing.assert_allclose(layer[1]((), x), want, rtol=1e-12)
    # channels-first spec: same numbers, axes moved
    chw = {"max": nn.MaxPool, "sum": nn.SumPool, "avg": nn.AvgPool}[op](window, strides,
                                                                        padding, "NCHW")
    np.testing.assert_allclose(chw[1]((), x.transpose(0, 3, 1, 2)), want.transpose(0, 3, 1, 2),
                               rtol=1e-12)


def test_avg_pool_same_divides_by_real_elements_and_keeps_float32():
    x = np.arange(9.0).reshape(1, 3, 3, 1)
    y = nn.AvgPool((2, 2), padding="SAME")[1]((), x)[0, :, :, 0]
    # bottom/right windows hang over the padding: only the real elements count
    np.testing.assert_allclose(y, [[2.0, 3.0, 3.5], [5.0, 6.0, 6.5], [6.5, 7.5, 8.0]])
    y32 = nn.AvgPool((2, 2), padding="SAME")[1]((), x.astype(np.float32))
    assert y32.dtype == np.float32
    assert nn.MaxPool((2, 2), (2, 2))[1]((), x.astype(np.float32)).dtype == np.float32


CONV_GRAD_LAYERS = {
    "Conv": (nn.Conv(2, (2, 2), (2, 1), "SAME", rhs_dilation=(1, 2), feature_group_count=2),
             (2, 4, 5, 2)),
    "ConvTranspose": (nn.ConvTranspose(2, (2, 3), (2, 1), "SAME"), (1, 3, 2, 2)),
    "Conv1DTranspose": (nn.Conv1DTranspose(2, (3,), (2,), "VALID", rhs_dilation=(2,)), (2, 3, 1)),
    "MaxPool": (nn.MaxPool((2, 2), (1, 2), "SAME"), (2, 3, 4, 2)),
    "MaxPool_tiled": (nn.MaxPool((2, 2), (2, 2)), (2, 4, 5, 1)),
    "AvgPool": (nn.AvgPool((3, 2), (2, 1), "SAME"), (1, 5, 3, 2)),
    "SumPool": (nn.SumPool((2, 1), None, [(1, 0), (0, 0)]), (1, 3, 2, 2)),
}


@pytest.mark.parametrize("name", sorted(CONV_GRAD_LAYERS))
def test_conv_and_pool_gradients_and_jit(name):
    layer, shape = CONV_GRAD_LAYERS[name]
    init_fn, apply_fn = layer
    _, params = init_fn(KEY, shape)
    params = fg.tree.tree_map(lambda p: RNG.normal(size=p.shape), params)
    x = RNG.normal(size=shape)
    fg.test_util.check_grads(lambda p, x: apply_fn(p, x), (params, x), order=1)
    for a, b in zip(fg.tree.tree_leaves(fg.jit(apply_fn)(params, x)),
                    fg.tree.tree_leaves(apply_fn(params, x))):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_conv_layer_with_float32_input_and_vmap_over_an_ensemble():
    init_fn, apply_fn = nn.serial(nn.Conv(3, (2, 2), padding="SAME"), nn.Relu,
                                  nn.AvgPool((2, 2), (2, 2)))
    ps = [init_fn(k, (-1, 4, 4, 2))[1] for k in fg.random.split(KEY, 3)]
    x = RNG.normal(size=(5, 4, 4, 2))
    stacked = fg.tree.tree_map(lambda *a: np.stack(a), *ps)
    got = fg.vmap(apply_fn, in_axes=(0, None))(stacked, x)
    np.testing.assert_allclose(got, np.stack([apply_fn(p, x) for p in ps]), rtol=1e-12)
    y32 = apply_fn(fg.tree.tree_map(lambda a: a.astype(np.float32), ps[0]),
                   x.astype(np.float32))
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32, apply_fn(ps[0], x), rtol=1e-4, atol=1e-5)
    assert apply_fn(ps[0], x.astype(np.float32)).dtype == np.float64  # float64 params win


def _lenet():
    return nn.serial(nn.Conv(4, (3, 3)), nn.Relu, nn.MaxPool((2, 2), (2, 2)),
                     nn.Conv(6, (3, 3), padding="SAME"), nn.Relu, nn.MaxPool((2, 2), (2, 2)),
                     nn.Flatten, nn.Dense(3), nn.LogSoftmax)


def test_lenet_init_apply_grad_and_per_example_gradients():
    init_fn, apply_fn = _lenet()
    shape, params = init_fn(KEY, (-1, 10, 10, 1))
    assert shape == (-1, 3)
    assert [p[0].shape for p in params if p] == [(3, 3, 1, 4), (3, 3, 4, 6), (24, 3)]
    x, y = RNG.normal(size=(4, 10, 10, 1)), RNG.integers(0, 3, 4)
    assert apply_fn(params, x).shape == (4, 3)

    def loss(p, x, y):
        return -fnp.mean(fnp.take_along_axis(apply_fn(p, x), y[:, None], axis=1))
    l, g = fg.value_and_grad(loss)(params, x, y)
    l_jit, g_jit = fg.jit(fg.value_and_grad(loss))(params, x, y)
    np.testing.assert_allclose(l_jit, l, rtol=1e-12)
    for a, b in zip(fg.tree.tree_leaves(g_jit), fg.tree.tree_leaves(g)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-14)
    # per-example gradients (vmap of grad over one-example batches) average to the batch's
    per = fg.vmap(lambda xi, yi: fg.grad(loss)(params, xi[None], yi[None]))(x, y)
    for a, b in zip(fg.tree.tree_leaves(per), fg.tree.tree_leaves(g)):
        np.testing.assert_allclose(a.mean(axis=0), b, rtol=1e-9, atol=1e-12)
    # a few SGD steps lower the loss
    step = fg.jit(lambda p: fg.tree.tree_map(lambda a, d: a - 0.5 * d, p,
                                             fg.grad(loss)(p, x, y)))
    p = params
    for _ in range(5):
        p = step(p)
    assert float(loss(p, x, y)) < float(l)


def test_conv_and_pool_errors_name_the_layer_shapes_and_fix():
    init_fn, apply_fn = nn.Conv(4, (3, 3))
    _, params = init_fn(KEY, (-1, 8, 8, 3))
    with pytest.raises(ValueError, match=r"Conv: input shape \(8, 8, 3\) has 3 dims.*'NHWC' "
                                         r"needs 4.*x\[None\]"):
        apply_fn(params, np.ones((8, 8, 3)))
    with pytest.raises(ValueError, match=r"Conv: input shape \(2, 8, 8, 5\) has 5 channels.*"
                                         r"initialized for 3; call init_fn"):
        apply_fn(params, np.ones((2, 8, 8, 5)))
    with pytest.raises(ValueError, match="Conv: input shape"):
        init_fn(KEY, (-1, 8, 8))
    with pytest.raises(ValueError, match=r"Conv: the 3 input channels .* feature_group_count=2"):
        nn.Conv(4, (3, 3), feature_group_count=2)[0](KEY, (-1, 8, 8, 3))
    with pytest.raises(ValueError, match="out_chan=3 must be divisible by feature_group_count=2"):
        nn.Conv(3, (3, 3), feature_group_count=2)
    with pytest.raises(ValueError, match=r"Conv1D: filter_shape \(3, 3\) has 2 spatial dims"):
        nn.Conv1D(4, (3, 3))
    with pytest.raises(ValueError, match=r"ConvTranspose: input shape \(2, 4, 4, 5\) has 5 "
                                         r"channels"):
        layer = nn.ConvTranspose(2, (2, 2))
        layer[1](layer[0](KEY, (-1, 4, 4, 1))[1], np.ones((2, 4, 4, 5)))
    with pytest.raises(ValueError, match=r"MaxPool: input shape \(6, 6\) has 2 dims.*'NHWC'"):
        nn.MaxPool((2, 2))[1]((), np.ones((6, 6)))
    with pytest.raises(ValueError, match=r"AvgPool: spec 'NHW'"):
        nn.AvgPool((2, 2), spec="NHW")
    with pytest.raises(ValueError, match=r"SumPool: padding \[\(1, 1\)\] needs one \(lo, hi\) "
                                         r"pair per spatial axis"):
        nn.SumPool((2, 2), padding=[(1, 1)])


def test_conv_rejects_malformed_dimension_numbers():
    for dn in [("NHWC", "HWIO"), ("NHWC", "HWOX", "NHWC"), ("NHWC", "HWIO", "NDWC"), "NHWC"]:
        with pytest.raises(ValueError, match="GeneralConv: dimension_numbers .* three layout"):
            nn.GeneralConv(dn, 2, (3, 3))


# ------------------------------------------------------------------ fuzzing regressions
def test_maxpool_of_infinite_inputs_is_not_nan():
    """Overlapping / padded pooling windows used to be gathered by a one-hot product,
    whose inf * 0 made a masked (-inf) input's windows nan."""
    x = np.zeros((1, 4, 4, 1))
    x[0, :2, :2, 0] = -np.inf
    y = fg.nn.MaxPool((3, 3), strides=(1, 1), padding="SAME")[1]((), x)
    assert not np.isnan(y).any()
    assert y[0, 0, 0, 0] == -np.inf and y[0, 3, 3, 0] == 0.0
    y = fg.nn.SumPool((2, 2), strides=(1, 1))[1]((), -x)
    assert y[0, 0, 0, 0] == np.inf and not np.isnan(y).any()


def test_groupnorm_apply_names_a_channel_mismatch():
    init_fn, apply_fn = fg.nn.GroupNorm(num_groups=2)
    _, params = init_fn(fg.random.key(0), (-1, 4))
    with pytest.raises(ValueError, match=r"GroupNorm: input shape \(2, 3\)"):
        apply_fn(params, np.ones((2, 3)))
    with pytest.raises(ValueError, match="GroupNorm.*params"):
        apply_fn(params, np.ones((2, 6)))  # divisible by 2, but not the params' 4


def test_embedding_refuses_float_ids():
    init_fn, apply_fn = fg.nn.Embedding(5, 2)
    _, table = init_fn(fg.random.key(0), (3,))
    with pytest.raises(TypeError, match="Embedding: ids must be integers"):
        apply_fn(table, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(apply_fn(table, np.array([1, 4])), table[[1, 4]])
    ids = np.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(fg.jit(apply_fn)(table, ids), table[ids])


def test_exp_layer_as_stax():
    # jax.example_libraries.stax.Exp: elementwise exp, no parameters
    init_fn, apply_fn = fg.nn.Exp
    shape, params = init_fn(fg.random.key(0), (2, 3))
    x = np.array([[0.0, 1.0, -1.0], [2.0, 0.5, -3.0]])
    assert shape == (2, 3) and params == ()
    np.testing.assert_allclose(apply_fn(params, x), np.exp(x))
