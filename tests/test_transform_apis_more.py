"""fg.pure_callback, fg.disable_jit, fg.linear_transpose, fg.custom_gradient and
fg.closure_convert: behaviour compared with JAX 0.10.2's (values written out)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

S = fg.ShapeDtypeStruct
X = np.arange(3.0)


# ----------------------------------------------------------------------------- pure_callback
def _pc(x, method=None):
    return fg.pure_callback(np.sin, S(x.shape, x.dtype), x, vmap_method=method)


def test_pure_callback_eager_and_jit():
    np.testing.assert_allclose(_pc(X), np.sin(X))
    calls = []

    def host(x, *, scale):
        calls.append(type(x))
        return (x * scale, np.float32(1.0))
    f = fg.jit(lambda x: fg.pure_callback(host, (S((3,), np.float64), S((), np.float32)), x,
                                          scale=2.0))
    for _ in range(2):
        y, z = f(X)
        np.testing.assert_allclose(y, 2 * X)
        assert z.dtype == np.float32
    assert calls == [np.ndarray] * 2  # (runs at every call, on NumPy values)


@pytest.mark.parametrize("method,shapes", [
    ("sequential", ((3,), (3,))), ("sequential_unrolled", ((3,), (3,))),
    ("expand_dims", ((2, 3), (1, 3))), ("broadcast_all", ((2, 3), (2, 3))),
    ("legacy_vectorized", ((2, 3), (3,)))])
@pytest.mark.parametrize("jit", [False, True])
def test_pure_callback_vmap_methods(method, shapes, jit):
    seen = []

    def host(a, b):
        seen.append((a.shape, b.shape))
        return a + b
    g = fg.vmap(lambda x, y: fg.pure_callback(host, S(x.shape, x.dtype), x, y,
                                              vmap_method=method), in_axes=(1, None))
    g = fg.jit(g) if jit else g
    x = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(g(x, np.ones(3)), x.T + 1)
    assert set(seen) == {shapes}


def test_pure_callback_vmap_without_method_raises():
    with pytest.raises(NotImplementedError, match="vmap_method"):
        fg.vmap(_pc)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="vmap_method"):
        fg.pure_callback(np.sin, S((3,), np.float64), X, vmap_method="foo")


def test_pure_callback_not_differentiable():
    with pytest.raises(ValueError, match="custom_jvp"):
        fg.grad(lambda x: _pc(x).sum())(X)
    with pytest.raises(ValueError, match="custom_jvp"):
        fg.jit(fg.grad(lambda x: _pc(x).sum()))(X)
    # no tangent reaches it: fine
    g = fg.grad(lambda x: (_pc(fg.stop_gradient(x)) * x).sum())(X)
    np.testing.assert_allclose(g, np.sin(X))


def test_pure_callback_with_custom_jvp_grad_vmap_jit():
    @fg.custom_jvp
    def f(x):
        return _pc(x, "sequential")
    f.defjvp(lambda p, t: (f(p[0]), fnp.cos(p[0]) * t[0]))
    g = fg.jit(fg.vmap(fg.grad(lambda x: f(x).sum())))(np.ones((2, 3)))
    np.testing.assert_allclose(g, np.cos(np.ones((2, 3))))


def test_pure_callback_result_mismatch():
    with pytest.raises(TypeError, match=r"shape \(4,\).*declares \(3,\)"):
        fg.pure_callback(lambda x: np.ones(4), S((3,), np.float64), X)
    with pytest.raises(TypeError, match="dtype float32.*declares float64"):
        fg.jit(lambda x: fg.pure_callback(lambda x: np.ones(3, np.float32),
                                          S((3,), np.float64), x))(X)
    with pytest.raises(TypeError, match="structure"):
        fg.pure_callback(lambda x: (x, x), S((3,), np.float64), X)


def test_pure_callback_result_is_fresh():
    keep = np.ones(3)
    y = fg.pure_callback(lambda x: keep, S((3,), np.float64), X)
    y[0] = 5.0
    assert keep[0] == 1.0


# ----------------------------------------------------------------------------- disable_jit
def test_disable_jit_runs_eagerly():
    seen = []
    f = fg.jit(lambda x: (seen.append(type(x).__name__), x + 1.0)[1])
    f(X)
    f(X)
    assert len(seen) == 1  # traced once
    with fg.disable_jit():
        np.testing.assert_allclose(f(X), X + 1)
        f(X)
        with fg.disable_jit(False):
            f(X)  # jit again: a cache hit
    assert seen[1:] == ["ndarray", "ndarray"]
    f(X)
    assert len(seen) == 3


def test_disable_jit_print_shows_values(capsys):
    f = fg.jit(lambda x: (print("x =", x), x * 2)[1])
    with fg.disable_jit():
        f(np.ones(2))
    assert capsys.readouterr().out == "x = [1. 1.]\n"


def test_disable_jit_is_per_thread():
    seen = []
    f = fg.jit(lambda x: (seen.append(threading.current_thread().name), x)[1])
    f(X)
    seen.clear()
    ready, done = threading.Event(), threading.Event()

    def other():
        ready.wait()
        f(X)  # jit still on in this thread: no trace
        done.set()
    t = threading.Thread(target=other, name="other")
    t.start()
    with fg.disable_jit():
        ready.set()
        done.wait()
        f(X)
    t.join()
    assert seen == ["MainThread"]


# ----------------------------------------------------------------------------- linear_transpose
LT = fg.linear_transpose


def test_linear_transpose_values():
    f = LT(lambda x, y: 0.5 * x - 0.5 * y, S((), np.float32), S((), np.float32))
    a, b = f(np.float32(1.0))
    assert a.dtype == b.dtype == np.float32 and (a, b) == (0.5, -0.5)
    assert type(LT(lambda x: 2 * x, X)(np.ones(3))) is tuple
    np.testing.assert_allclose(LT(lambda x: 2 * x, X)(np.ones(3))[0], [2, 2, 2])
    np.testing.assert_allclose(LT(lambda x: x / 2, X)(np.ones(3))[0], [.5, .5, .5])
    np.testing.assert_allclose(LT(lambda x: (x, 2 * x), X)((X, X))[0], [0, 3, 6])
    np.testing.assert_allclose(LT(lambda x: {"a": x[0], "b": x}, X)(
        {"a": 1.0, "b": X})[0], [1, 1, 2])
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(LT(lambda x: a @ x, X)(np.ones(2))[0], a.T @ np.ones(2))
    np.testing.assert_allclose(LT(lambda x: x[np.array([0, 0, 2])], X)(np.ones(3))[0],
                               [2, 0, 1])
    np.testing.assert_allclose(LT(lambda x: fnp.convolve(x, np.array([1., 2.])), X)(
        np.ones(4))[0], [3, 3, 3])
    np.testing.assert_allclose(LT(lambda b: fnp.linalg.solve(2 * np.eye(3), b), X)(
        np.ones(3))[0], [.5, .5, .5])
    np.testing.assert_allclose(LT(lambda x: fnp.mean(x), X)(1.0)[0], [1 / 3] * 3)
    np.testing.assert_allclose(LT(lambda x: x.at[np.array([1])].mul(3.0), X)(np.ones(3))[0],
                               [1, 3, 1])
    np.testing.assert_allclose(LT(fg.jit(lambda x: 3 * x), X)(np.ones(3))[0], [3, 3, 3])
    # as JAX: a constant offset is dropped; an input-independent output gets no cotangent
    np.testing.assert_allclose(LT(lambda x: x + 1.0, X)(np.ones(3))[0], [1, 1, 1])
    np.testing.assert_allclose(LT(lambda x: fnp.arange(3) * 1.0, X)(np.ones(3))[0], [0, 0, 0])


def test_linear_transpose_matches_vjp():
    a = np.random.default_rng(0).normal(size=(4, 3))

    def f(x):
        return fnp.cumsum(a @ x.T, axis=0).T.reshape(-1)[::2] * 3.0
    x = np.ones((2, 3))
    ct = np.arange(4.0)
    np.testing.assert_allclose(LT(f, x)(ct)[0], fg.vjp(f, x)[1](ct)[0])


def test_linear_transpose_composes():
    g = fg.grad(lambda c: (LT(lambda x: 2 * x, X)(c)[0] ** 2).sum())(np.ones(3))
    np.testing.assert_allclose(g, [8, 8, 8])
    v = fg.vmap(LT(lambda x: 2 * x, X))(np.ones((4, 3)))[0]
    np.testing.assert_allclose(v, 2 * np.ones((4, 3)))
    j = fg.jit(LT(lambda x: 2 * x.sum(), X))(np.float64(1.0))[0]
    np.testing.assert_allclose(j, [2, 2, 2])


@pytest.mark.parametrize("fun,prim", [
    (fnp.sin, "sin"), (lambda x: x * x, "mul"), (lambda x: 1.0 / x, "div"),
    (lambda x: fnp.where(x > 0, x, 0.0), "gt"), (lambda x: x @ x, "dot_general"),
    (lambda x: fnp.outer(x, x), "mul"), (lambda x: fnp.convolve(x, x), "convolve1d"),
    (lambda x: fnp.linalg.solve(fnp.diag(x) + 3.0, np.ones(3)), "linalg_solve"),
    (lambda x: x.at[np.array([1])].mul(x[0]), "scatter_mul"),
    (lambda x: x.astype(int).astype(float), "convert_element_type"),
    (lambda x: fnp.maximum(x, 0.0), "maximum"), (fg.jit(fnp.sin), "sin"),
    (lambda x: fg.lax.select_n(x > 1, x, 2 * x), "gt"),
])
def test_linear_transpose_rejects_nonlinear(fun, prim):
    with pytest.raises(TypeError, match=f"not linear.*'{prim}'"):
        LT(fun, X)


def test_linear_transpose_rejects_select_on_inputs():
    # select_n with an input-dependent predicate computed linearly is still caught
    with pytest.raises(TypeError, match="not linear"):
        LT(lambda x: fg.lax.select_n((x * 0.0).astype(bool), x, 2 * x), X)


def test_linear_transpose_dtype_errors():
    with pytest.raises(TypeError, match="float or complex"):
        LT(lambda x: x, np.arange(3))
    with pytest.raises(TypeError, match="float or complex"):
        LT(lambda x: x, np.ones(3, bool))
    with pytest.raises(TypeError, match="float or complex"):
        LT(lambda x, n: x * n, X, np.arange(3))
    f = LT(lambda x: x.sum(), S((3,), np.float32))
    with pytest.raises(TypeError):
        f(np.float64(2.0))
    with pytest.raises(ValueError):
        f(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="tree"):
        f((np.float32(1.0),))


# ----------------------------------------------------------------------------- custom_gradient
def test_custom_gradient():
    @fg.custom_gradient
    def f(x):
        return x ** 2, lambda g: g * x
    assert f(3.0) == 9.0
    np.testing.assert_allclose(fg.grad(f)(3.0), 3.0)  # JAX: 3.0
    np.testing.assert_allclose(fg.grad(fg.grad(f))(3.0), 1.0)  # JAX: 1.0
    np.testing.assert_allclose(fg.jit(fg.grad(f))(3.0), 3.0)
    np.testing.assert_allclose(fg.vmap(fg.grad(f))(X), X)
    np.testing.assert_allclose(fg.jit(fg.vmap(fg.grad(f)))(X), X)

    @fg.custom_gradient
    def h(x, y):
        return x * y, lambda g: (g * y, g * x)
    gx, gy = fg.grad(h, argnums=(0, 1))(3.0, 4.0)
    assert (gx, gy) == (4.0, 3.0)


def test_custom_gradient_clips():
    @fg.custom_gradient
    def clip_grad(x):
        return x, lambda g: (fnp.clip(g, -1.0, 1.0),)
    np.testing.assert_allclose(fg.grad(lambda x: (10 * clip_grad(x)).sum())(X), [1, 1, 1])


# ----------------------------------------------------------------------------- closure_convert
def test_closure_convert():
    f, consts = fg.closure_convert(lambda x, y: x * y, 1.0, 2.0)
    assert consts == [] and f(1.0, 2.0) == 2.0

    def outer(x):
        y = fnp.sin(x)
        g, k = fg.closure_convert(lambda z: z * y, x)
        assert len(k) == 1
        return g(x, *k)
    np.testing.assert_allclose(fg.grad(outer)(1.0), 1.3817732906760363)  # JAX's value
    np.testing.assert_allclose(fg.jit(fg.grad(outer))(1.0), 1.3817732906760363)
