"""Derivatives at special points (0, -0.0, infinities, NaN, subnormals, ties), against JAX's
values (written out here: the tests never import JAX), and eager == jit == vmap there."""
import math

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

INF, NAN = np.inf, np.nan


def _all_ways(f, x):
    """f(x) eagerly, under jit and under vmap (of a batch of one): all three must agree."""
    x = np.asarray(x)
    eager = np.asarray(f(x))
    jitted = np.asarray(fg.jit(f)(x))
    mapped = np.asarray(fg.vmap(f)(x[None]))[0]
    np.testing.assert_array_equal(jitted, eager)
    np.testing.assert_array_equal(mapped, eager)
    return eager


def _d1(f):
    return fg.grad(f)


def _d2(f):
    return fg.grad(fg.grad(f))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_abs_slope_is_jax_sign_convention(dtype):
    # JAX: select(x >= 0, t, -t): +1 at 0 and -0.0, -1 at NaN (was sign(x): 0 at 0, NaN)
    xs = np.array([0.0, -0.0, 2.0, -3.0, NAN], dtype)
    want = np.array([1.0, 1.0, 1.0, -1.0, -1.0], dtype)
    g = fg.vmap(fg.grad(fnp.abs))(xs)
    assert g.dtype == dtype
    np.testing.assert_array_equal(g, want)
    for x, w in zip(xs, want):
        assert _all_ways(_d1(fnp.abs), x) == w
        assert _all_ways(_d2(fnp.abs), x) == 0.0
        assert fg.jvp(fnp.abs, (x,), (dtype(1),))[1] == w
    # norms built on abs follow: the 1-norm of zeros has slope 1 (JAX's), not 0
    np.testing.assert_array_equal(fg.grad(lambda v: fnp.linalg.norm(v, 1))(np.zeros(3, dtype)),
                                  np.ones(3, dtype))


@pytest.mark.parametrize("fn", [fnp.logaddexp, fnp.logaddexp2])
def test_logaddexp_slopes_at_infinity(fn):
    # exp(x - z) was exp(inf - inf) = NaN where x is an infinite result; JAX: 1 there
    grad = fg.grad(fn, argnums=(0, 1))
    cases = {(INF, 0.0): (1.0, 0.0), (0.0, INF): (0.0, 1.0), (INF, INF): (1.0, 1.0),
             (-INF, 0.0): (0.0, 1.0), (INF, -INF): (1.0, 0.0), (1.0, 1.0): (0.5, 0.5)}
    for (a, b), want in cases.items():
        got = grad(a, b)
        np.testing.assert_allclose(np.array(got, dtype=float), want, rtol=1e-15, err_msg=str((a, b)))
        np.testing.assert_array_equal(np.array(fg.jit(grad)(a, b), dtype=float), np.array(got, dtype=float))
        hess = np.array(fg.hessian(fn, argnums=(0, 1))(a, b), dtype=float)
        assert np.isfinite(hess).all(), (a, b, hess)
    assert fg.grad(lambda x: fn(x, np.float32(0)))(np.float32(INF)) == np.float32(1)
    x = np.array([INF, 0.0, -INF])
    np.testing.assert_array_equal(fg.vmap(fg.grad(lambda v: fn(v, 0.0)))(x), [1.0, 0.5, 0.0])


def test_cbrt_second_derivative_at_zero_and_infinity():
    # cbrt'' = -2/9 x^(-5/3): JAX's -inf at 0 and 0 at +-inf (was NaN: 0 * inf)
    assert _all_ways(_d2(fnp.cbrt), 0.0) == -INF
    assert _all_ways(_d2(fnp.cbrt), INF) == 0.0
    assert _all_ways(_d2(fnp.cbrt), -INF) == 0.0
    assert fg.hessian(fnp.cbrt)(np.float32(INF)) == 0.0
    np.testing.assert_allclose(_d2(fnp.cbrt)(8.0), -2.0 / 9.0 * 8.0 ** (-5.0 / 3.0), rtol=1e-14)
    assert _all_ways(_d1(fnp.cbrt), 0.0) == INF


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sinc_derivatives_at_zero(dtype):
    # sinc''(0) = -pi^2/3 (JAX's); the eps stand-in for 0 made it 0, and 0 / 0 gave NaN
    # slopes at subnormal x
    x = dtype(0)
    assert _all_ways(fnp.sinc, x) == 1.0
    assert _all_ways(_d1(fnp.sinc), x) == 0.0
    d2 = _all_ways(_d2(fnp.sinc), x)
    assert d2.dtype == dtype
    np.testing.assert_allclose(d2, -math.pi ** 2 / 3, rtol=1e-6)
    np.testing.assert_allclose(fg.hessian(fnp.sinc)(x), -math.pi ** 2 / 3, rtol=1e-6)
    np.testing.assert_allclose(fg.grad(fg.grad(fg.grad(fg.grad(fnp.sinc))))(x),
                               math.pi ** 4 / 5, rtol=1e-5)
    tiny = np.array([5e-324 if dtype == np.float64 else 1e-45], dtype)
    g = fg.vmap(fg.grad(fnp.sinc))(tiny)
    assert np.isfinite(g).all() and abs(g[0]) < 1e-30
    # values stay NumPy's
    xs = np.array([0.0, -0.0, 1e-300, 1e-9, 0.25, 1.0, INF, NAN], dtype)
    np.testing.assert_array_equal(fg.jit(fnp.sinc)(xs), np.sinc(xs))


def test_ldexp_slope_is_the_power_of_two():
    # the slope through frexp's mantissa overflowed: inf at a subnormal x1 (want 8)
    f = lambda x: fnp.ldexp(x, 3)
    for x in [5e-324, -5e-324, 0.0, 1.0, INF, np.float32(3e38), np.float32(1e-45)]:
        x = np.asarray(x)
        assert _all_ways(fg.grad(f), x) == 8.0, x
        assert fg.jvp(f, (x,), (np.ones_like(x),))[1] == 8.0
    assert np.signbit(fnp.ldexp(np.array(-5e-324), -3))  # the value keeps -0.0


def test_power_mixed_second_derivative_at_zero_exponent():
    # d/dy (y x^(y-1)) = x^(y-1) (1 + y log x): 1 / x at y == 0 (JAX's); the select that keeps
    # 0 * 0**-1 out at x == 0 also zeroed it for every x, so the Hessian was not symmetric
    for x, want in [(1.0, 1.0), (2.0, 0.5), (0.5, 2.0)]:
        h = np.array(fg.hessian(fnp.power, argnums=(0, 1))(x, 0.0), dtype=float)
        np.testing.assert_allclose(h[0, 1], want, rtol=1e-15)
        np.testing.assert_allclose(h[1, 0], want, rtol=1e-15)
        hj = np.array(fg.jit(fg.hessian(fnp.power, argnums=(0, 1)))(x, 0.0), dtype=float)
        np.testing.assert_array_equal(hj, h)
        rr = fg.grad(lambda a, b: fg.grad(fnp.power, argnums=0)(a, b), argnums=1)(x, 0.0)
        np.testing.assert_allclose(rr, want, rtol=1e-15)
    # at x == 0 the slope in x stays finite: 0 at y == 0, 1 at y == 1
    assert fg.grad(fnp.power)(0.0, 0.0) == 0.0
    assert fg.grad(fnp.power)(0.0, 1.0) == 1.0


@pytest.mark.parametrize("alpha", [1.0, 2.0])
def test_celu_second_derivative_at_zero_as_jax(alpha):
    # JAX's celu is max(x, 0) + alpha expm1(min(x, 0) / alpha): both kinks tie at 0, so
    # celu''(0) = 1 / (4 alpha) (the where form gave the left branch's 1 / alpha)
    f = lambda x: fg.nn.celu(x, alpha)
    assert _all_ways(_d1(f), 0.0) == 1.0
    assert _all_ways(_d2(f), 0.0) == 0.25 / alpha
    np.testing.assert_allclose(_d2(f)(-1.0), math.exp(-1.0 / alpha) / alpha, rtol=1e-15)
    assert _d2(f)(1.0) == 0.0
    xs = np.array([-0.0, 0.0, -1.0, 2.0, -INF, INF, NAN])
    got = f(xs)
    want = np.where(xs > 0, xs, alpha * np.expm1(np.where(xs > 0, 0, xs) / alpha))
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[0])  # celu(-0.0) is -0.0


def test_losses_slopes_at_zero_error_and_infinite_logits():
    nn = fg.nn
    # huber: 0.5 e^2 near 0, so its second derivative at e == 0 is 1 (JAX's); abs'(0) = 0
    # made it 0
    for f in (lambda x: nn.huber_loss(x, 0.0), lambda x: nn.huber_loss(1.0, x)):
        assert _all_ways(_d2(f), 0.0 if f(0.0) == 0 else 1.0) == 1.0
    # softplus / log_sigmoid / sigmoid BCE at infinite logits: JAX's finite slopes (were NaN)
    assert _all_ways(_d1(nn.softplus), INF) == 1.0
    assert _all_ways(_d2(nn.softplus), INF) == 0.0
    assert _all_ways(_d1(nn.log_sigmoid), -INF) == 1.0
    for label, slopes in [(1.0, {INF: 0.0, -INF: -1.0}), (0.0, {INF: 1.0, -INF: 0.0}),
                          (0.3, {INF: 0.7, -INF: -0.3})]:
        f = lambda x: nn.sigmoid_binary_cross_entropy(x, label)
        for x, want in slopes.items():
            np.testing.assert_allclose(_all_ways(_d1(f), x), want, rtol=1e-15)
            assert _all_ways(_d2(f), x) == 0.0


def test_losses_keep_python_scalar_targets_weak():
    # a Python float target takes the predictions' dtype, as JAX/optax (was float64)
    x = np.array([0.5, 2.0], np.float32)
    nn = fg.nn
    for f in (lambda v: nn.hinge_loss(v, 1.0), lambda v: nn.huber_loss(v, 0.0),
              lambda v: nn.hinge_loss(v, -1), lambda v: nn.huber_loss(v, 1.0, delta=0.5)):
        assert f(x).dtype == np.float32
        assert fg.jit(f)(x).dtype == np.float32
        assert fg.jvp(f, (x,), (x,))[1].dtype == np.float32
    np.testing.assert_array_equal(nn.hinge_loss(x, 1.0), np.array([0.5, 0.0], np.float32))
    assert nn.huber_loss(np.array([0.5, 2.0]), 0.0).dtype == np.float64


def test_bessel_second_derivatives_near_zero_do_not_cancel():
    # i1' = i0 - i1/x and i1e' = i0e - i1e (1/x + sign x): their derivatives cancel two
    # ~1/(2x) terms near 0 (i1''(1e-20) was 24576, i1e''(1e-300) inf); the series is used
    special = pytest.importorskip("fungrad.scipy.special")
    pytest.importorskip("scipy")
    for x in (1e-300, 1e-20, 1e-8, 9e-5, 2e-4):
        np.testing.assert_allclose(fg.grad(fg.grad(special.i1))(x), 3 * x / 8, rtol=1e-6)
        np.testing.assert_allclose(fg.grad(fg.grad(special.i1e))(x), -1 + 15 * x / 8,
                                   rtol=1e-6)
        np.testing.assert_allclose(fg.grad(special.i1e)(-x),
                                   0.5 - x + 15 * x * x / 16 - 7 * x ** 3 / 12, rtol=1e-12)


def test_log_ndtr_slope_in_the_tails():
    # exp(-x^2/2 - log_ndtr(x)) cancelled two ~x^2/2 terms: in float32 the slope at -1e4 was
    # 64930 (true: ~1e4); far right the slope's own slope was NaN (erfcx overflow)
    special = pytest.importorskip("fungrad.scipy.special")
    scipy_special = pytest.importorskip("scipy.special")
    g, gg = fg.grad(special.log_ndtr), fg.grad(fg.grad(special.log_ndtr))
    np.testing.assert_allclose(g(np.float32(-1e4)), 1e4, rtol=1e-5)
    for x in (-40.0, -5.0, -1.0, 0.0, 1.0, 5.0, 10.0):
        h = 1e-6 * max(1.0, abs(x))
        fd = (scipy_special.log_ndtr(x + h) - scipy_special.log_ndtr(x - h)) / (2 * h)
        np.testing.assert_allclose(g(x), fd, rtol=1e-7)
    for x in (38.0, 40.0, 1e300):
        assert g(x) == 0.0 and gg(x) == 0.0
        assert g(np.float32(x if x < 1e30 else 1e30)) == 0.0


@pytest.mark.parametrize("f", [fnp.fmax, fnp.fmin])
def test_fmax_fmin_slopes_where_both_are_nan(f):
    # fmax(nan, nan) returns its first operand: slopes (1, 0); both were 1, so the slope of
    # fmax(x, x) at NaN came out 2
    n = np.nan
    assert [float(g) for g in fg.grad(f, argnums=(0, 1))(n, n)] == [1.0, 0.0]
    assert [float(g) for g in fg.grad(f, argnums=(0, 1))(n, 1.0)] == [0.0, 1.0]
    assert float(fg.grad(lambda x: f(x, x))(n)) == 1.0
    assert float(fg.grad(lambda y: f(n, y))(n)) == 0.0
    got = fg.jit(fg.vmap(fg.grad(f, argnums=(0, 1))))(np.array([n, n, 1.0], np.float32),
                                                     np.array([n, 1.0, n], np.float32))
    np.testing.assert_array_equal(got[0], [1, 0, 1])
    np.testing.assert_array_equal(got[1], [0, 1, 0])
