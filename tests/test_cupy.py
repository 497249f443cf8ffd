"""CuPy backend: CuPy arrays in, CuPy arrays out, same numbers as NumPy.

Skips (with the reason) where CuPy or a GPU is missing.
"""
import numpy as np
import pytest

from fungrad.backend import cupy_available

pytestmark = pytest.mark.skipif(not cupy_available(),
                                reason="CuPy with a visible GPU is not available here")


def test_grad_on_cupy_arrays_matches_numpy():
    import cupy as cp
    import fungrad as fg
    import fungrad.numpy as fnp

    def loss(w, x):
        return fnp.sum(fnp.tanh(x @ w) ** 2)
    w = np.random.default_rng(0).standard_normal((3, 2))
    x = np.random.default_rng(1).standard_normal((4, 3))
    g_np = fg.grad(loss)(w, x)
    g_cp = fg.grad(loss)(cp.asarray(w), cp.asarray(x))
    assert isinstance(g_cp, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(g_cp), g_np, rtol=1e-10)


def test_device_put_round_trip():
    import cupy as cp
    import fungrad as fg
    x = {"a": np.arange(3.0)}
    on_gpu = fg.device_put(x, "gpu")
    assert isinstance(on_gpu["a"], cp.ndarray)
    np.testing.assert_array_equal(fg.device_put(on_gpu, "cpu")["a"], x["a"])


def test_jit_on_cupy_arrays_matches_numpy():
    import cupy as cp
    import fungrad as fg
    import fungrad.numpy as fnp

    w0 = np.random.default_rng(0).standard_normal((3, 2))

    def loss(w, x):
        return fnp.sum(fnp.tanh(x @ (w + w0)) ** 2)
    w = np.random.default_rng(1).standard_normal((3, 2))
    x = np.random.default_rng(2).standard_normal((4, 3))
    step = fg.jit(fg.value_and_grad(loss))
    v_np, g_np = step(w, x)
    v_cp, g_cp = step(cp.asarray(w), cp.asarray(x))
    assert isinstance(g_cp, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(g_cp), g_np, rtol=1e-10)
    np.testing.assert_allclose(float(v_cp), float(v_np), rtol=1e-12)
    per_ex = fg.vmap(fg.jit(fg.grad(loss)), in_axes=(None, 0))(cp.asarray(w), cp.asarray(x))
    assert isinstance(per_ex, cp.ndarray) and per_ex.shape == (4, 3, 2)


def test_stax_cnn_training_step_with_adam_on_cupy_matches_numpy():
    """The toolkit on the GPU: stax layers (conv, pool, dense), a loss and an
    optimizer state that stays on the device, three jitted steps, NumPy's numbers."""
    import cupy as cp
    import fungrad as fg
    import fungrad.numpy as fnp
    from fungrad.nn import stax
    init, apply = stax.serial(stax.Conv(4, (3, 3), padding="SAME"), stax.Relu,
                              stax.MaxPool((2, 2), (2, 2)), stax.Flatten, stax.Dense(3))
    _, params = init(fg.random.key(0), (-1, 6, 6, 1))
    x = np.random.default_rng(0).standard_normal((5, 6, 6, 1))
    y = np.array([0, 1, 2, 1, 0])
    opt = fg.optim.adam(1e-2)

    @fg.jit
    def step(params, state, x, y):
        def loss(p):
            return fnp.mean(fg.nn.softmax_cross_entropy_with_integer_labels(apply(p, x), y))
        value, g = fg.value_and_grad(loss)(params)
        updates, state = opt.update(g, state, params)
        return fg.optim.apply_updates(params, updates), state, value

    results = []
    for put in (lambda t: t, lambda t: fg.device_put(t, "gpu")):
        p, s = put(params), opt.init(put(params))
        for _ in range(3):
            p, s, value = step(p, s, put(x), put(y))
        results.append((p, s, value))
    (p_np, s_np, v_np), (p_cp, s_cp, v_cp) = results
    for a, b in zip(fg.tree.tree_leaves((p_cp, s_cp)), fg.tree.tree_leaves((p_np, s_np))):
        assert isinstance(a, cp.ndarray)
        np.testing.assert_allclose(cp.asnumpy(a), b, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(float(v_cp), float(v_np), rtol=1e-9)


def test_avg_pool_with_padding_on_cupy_matches_numpy():
    # the divisor of windows that hold padding is a constant made with NumPy: it has to
    # move to the input's device (CuPy refuses NumPy operands)
    import cupy as cp
    import fungrad as fg
    _, apply = fg.nn.AvgPool((3, 3), strides=(2, 2), padding="SAME")
    x = np.arange(50, dtype=np.float32).reshape(2, 5, 5, 1)
    for f in (apply, fg.jit(apply)):
        y = f((), cp.asarray(x))
        assert isinstance(y, cp.ndarray)
        np.testing.assert_allclose(cp.asnumpy(y), apply((), x), rtol=1e-6)
