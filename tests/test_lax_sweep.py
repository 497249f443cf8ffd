"""Regressions found by a differential sweep of `fg.lax` against `jax.lax` (JAX 0.10.2):
values and dtypes (int8 .. int64, uint, bool, float16 / bfloat16 / float32 / float64,
complex), errors on invalid input, derivatives (grad / jvp, second order, finite
differences), vmap against a loop and jit against eager.

fg.lax held only JAX's control flow, dynamic slicing, pad and select_n (those agreed with
JAX); the array functions of jax.lax that code ported from JAX calls (broadcast_in_dim,
reshape, slice, reduce_max, clamp, convert_element_type, ...) were missing. They are checked
front ends in fungrad/lax/array_ops.py now, pinned here with JAX's semantics. Expected values are
written out (constants JAX 0.10.2 returned for the same program, said where so) or computed
with NumPy; derivatives JAX gets wrong (or refuses) are checked against finite differences.
"""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

lax = fg.lax
f16, f32 = np.float16, np.float32


def _fd_grad(f, x, eps=1e-6):
    """Central differences of a scalar f at x (float64)."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


RUNS = [lambda f, *a: f(*a), lambda f, *a: fg.jit(f)(*a)]
RUN_IDS = ["eager", "jit"]


# ----------------------------------------------------------------------------- convert_element_type
@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_convert_float_to_int_saturates_and_maps_nan_to_zero(run):
    # XLA's conversion (JAX 0.10.2's values): truncate toward zero, clamp to the integer
    # range, NaN -> 0. NumPy's astype wraps or gives INT_MIN (undefined behaviour in C).
    x = np.array([1e10, -1e10, np.nan, np.inf, -np.inf, 3.7, -3.7, 300.0, -129.])
    f = lambda dt: (lambda x: lax.convert_element_type(x, dt))  # noqa: E731
    cases = {
        np.int8: [127, -128, 0, 127, -128, 3, -3, 127, -128],
        np.uint8: [255, 0, 0, 255, 0, 3, 0, 255, 0],
        np.int32: [2147483647, -2147483648, 0, 2147483647, -2147483648, 3, -3, 300, -129],
        np.uint32: [4294967295, 0, 0, 4294967295, 0, 3, 0, 300, 0],
        np.int64: [10000000000, -10000000000, 0, 2 ** 63 - 1, -2 ** 63, 3, -3, 300, -129],
    }
    for dt, want in cases.items():
        out = run(f(dt), x)
        assert out.dtype == dt
        np.testing.assert_array_equal(out, np.array(want, dt))
    # the edges of float64 -> int64: 2**63 is out of range, -2**63 is exact
    out = run(f(np.int64), np.array([2.0 ** 63, -2.0 ** 63, 2.0 ** 62]))
    np.testing.assert_array_equal(out, [2 ** 63 - 1, -2 ** 63, 2 ** 62])
    # float16 / float32 sources, complex sources (real part), bool targets
    out = run(f(np.int8), np.array([1000., -1000., 5.5], f16))
    np.testing.assert_array_equal(out, np.array([127, -128, 5], np.int8))
    out = run(f(np.int8), np.array([1 + 2j, 3e10 - 1e10j, complex(np.nan, 0)]))
    np.testing.assert_array_equal(out, np.array([1, 127, 0], np.int8))
    out = run(f(np.bool_), np.array([0.0, -0.0, 0.5, np.nan]))
    np.testing.assert_array_equal(out, [False, False, True, True])


def test_convert_int_to_int_wraps_and_differentiates_float_to_float():
    # integer -> integer wraps (as JAX), and a float -> float conversion is linear
    np.testing.assert_array_equal(
        lax.convert_element_type(np.array([300, -1], np.int32), np.uint8),
        np.array([44, 255], np.uint8))
    g = fg.grad(lambda x: fnp.sum(lax.convert_element_type(x, f32) * 2.0))(np.ones(3))
    assert g.dtype == np.float64
    np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])
    # through an integer: no derivative
    g = fg.grad(lambda x: fnp.sum(lax.convert_element_type(lax.convert_element_type(
        x, np.int32), np.float64) * x))(np.array([1.5, 2.5]))
    np.testing.assert_array_equal(g, [1.0, 2.0])


# ----------------------------------------------------------------------------- clamp
def test_clamp_takes_min_first_and_propagates_nan():
    x = np.array([-1.0, 0.5, 2.0])
    np.testing.assert_array_equal(lax.clamp(0.0, x, 1.0), [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(lax.clamp(np.float64(0), x, np.float64(1)), [0.0, 0.5, 1.0])
    # NaN in x or in a bound gives NaN (JAX 0.10.2: [nan, nan, nan] for a NaN min)
    assert np.isnan(lax.clamp(np.float64(np.nan), np.array([0.2, 1.0, -1.0]), 0.5)).all()
    out = lax.clamp(0.0, np.array([np.nan, 1.0, -1.0]), 0.5)
    np.testing.assert_array_equal(out, [np.nan, 0.5, 0.0])
    # integers, and a bound above the top: XLA's min(max(x, lo), hi)
    out = lax.clamp(np.int8(-2), np.arange(-4, 4, dtype=np.int8), np.int8(3))
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [-2, -2, -2, -1, 0, 1, 2, 3])
    np.testing.assert_array_equal(lax.clamp(3.0, x, 1.0), [1.0, 1.0, 1.0])


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_clamp_derivatives_follow_jax_at_ties_and_crossed_bounds(run):
    # JAX 0.10.2's grads: x's slope where lo < x < hi (0 on ties), min's where lo > x and
    # lo < hi, max's where max < x (also for crossed bounds)
    lo = np.array([0., 1., 2., 1., 3., -1.0, 0.2])
    x = np.array([0., 1., 1.5, 1., 2., 0.3, -0.5])
    hi = np.array([1., 1., 2., 0.5, 1., 1.0, 1.0])
    w = np.arange(1.0, 8.0)
    f = lambda a, b, c: fnp.sum(lax.clamp(a, b, c) * w)  # noqa: E731
    ga, gb, gc = run(fg.grad(f, (0, 1, 2)), lo, x, hi)
    np.testing.assert_array_equal(ga, [0, 0, 0, 0, 0, 0, 7])
    np.testing.assert_array_equal(gb, [0, 0, 0, 0, 0, 6, 0])
    np.testing.assert_array_equal(gc, [0, 0, 0, 4, 5, 0, 0])


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_clamp_scalar_bounds_gradient_matches_finite_differences(run):
    # JAX 0.10.2 raises "select cases must have the same shapes" for grad wrt a 0-d bound
    x = np.array([0.9, -0.8, 0.1, 0.35, -0.1])

    def f(lo, x, hi):
        return fnp.sum(fnp.sin(lax.clamp(lo, x, hi)) * fnp.arange(1.0, 6.0))
    lo, hi = np.float64(-0.3), np.float64(0.4)
    ga, gx, gc = run(fg.grad(f, (0, 1, 2)), lo, x, hi)
    np.testing.assert_allclose(ga, _fd_grad(lambda a: f(a, x, hi), lo), rtol=1e-6)
    np.testing.assert_allclose(gx, _fd_grad(lambda v: f(lo, v, hi), x), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(gc, _fd_grad(lambda c: f(lo, x, c), hi), rtol=1e-6)
    assert np.shape(ga) == () and np.shape(gc) == ()
    # second order: d/dx of the x-gradient is -sin inside, 0 outside
    h = fg.grad(lambda v: fnp.sum(fg.grad(f, 1)(lo, v, hi)))(x)
    np.testing.assert_allclose(h, np.where((x > lo) & (x < hi), -np.sin(x) * np.arange(1, 6), 0))


def test_clamp_under_vmap_matches_a_loop():
    lo, x, hi = np.array([-1.0, 0.0]), np.array([[-2.0, 0.5], [0.3, 3.0]]), np.array([1.0, 0.4])
    out = fg.vmap(lax.clamp)(lo, x, hi)
    np.testing.assert_array_equal(out, [lax.clamp(lo[i], x[i], hi[i]) for i in range(2)])


def test_clamp_errors_name_the_bound_and_the_fix():
    x = np.zeros((3, 4))
    with pytest.raises(TypeError, match=r"clamp: min is f32\[\] but the operand is f64\[3,4\]"):
        lax.clamp(np.float32(0), x, 1.0)
    with pytest.raises(TypeError, match=r"clamp: max has shape \(4,\); it must be a scalar or "
                                        r"have x's shape \(3, 4\)"):
        lax.clamp(0.0, x, np.ones(4))
    with pytest.raises(TypeError, match="does not fit x's dtype int8"):
        lax.clamp(-300, np.zeros(2, np.int8), 3)


# ----------------------------------------------------------------------------- integer_pow, rsqrt
@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_integer_pow_values_and_derivative_at_zero(run):
    x = np.array([0.0, 2.0, -1.5])
    for y in (0, 1, 2, 3, 5, 8):
        np.testing.assert_allclose(run(lambda x: lax.integer_pow(x, y), x), x ** y, rtol=1e-15)
    # x ** 0 is 1 with slope 0, also at x == 0 (JAX: grad of x**0 + x + x**3 at [0, 2] is
    # [1, 13]; pow's y x**(y-1) would give 0 * inf = nan)
    g = run(fg.grad(lambda x: fnp.sum(lax.integer_pow(x, 0) + lax.integer_pow(x, 1)
                                      + lax.integer_pow(x, 3))), np.array([0.0, 2.0]))
    np.testing.assert_array_equal(g, [1.0, 13.0])
    np.testing.assert_allclose(run(lambda x: lax.integer_pow(x, -2), x[1:]), x[1:] ** -2.0)
    h = fg.grad(fg.grad(lambda x: lax.integer_pow(x, -3)))(2.0)
    np.testing.assert_allclose(h, 12.0 * 2.0 ** -5)


def test_integer_pow_integers_wrap_and_refuse_negative_exponents():
    # JAX 0.10.2: int8 [5, -3] ** 4 == [113, 81] (wrapping), uint8 200 ** 3 == 0
    out = lax.integer_pow(np.array([5, -3], np.int8), 4)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [113, 81])
    np.testing.assert_array_equal(lax.integer_pow(np.array([200], np.uint8), 3), [0])
    with pytest.raises(TypeError, match="negative exponent -1 needs an inexact x"):
        lax.integer_pow(np.arange(3), -1)
    with pytest.raises(TypeError, match="exponent y must be a Python int"):
        lax.integer_pow(np.ones(2), np.ones(2))
    np.testing.assert_array_equal(lax.integer_pow(np.array([3.0]), 2.0), [9.0])  # (JAX too)


def test_rsqrt_rounds_once_in_float16():
    # 1 / sqrt(x) in float16 rounds twice: 86 of these 269 values were 1 ulp off JAX's
    a = np.arange(0.05, 10, 0.037).astype(f16)
    want = (1.0 / np.sqrt(a.astype(np.float64))).astype(f16)
    out = lax.rsqrt(a)
    assert out.dtype == f16
    np.testing.assert_array_equal(out, want)
    np.testing.assert_allclose(fg.grad(lambda x: lax.rsqrt(x))(4.0), -0.5 * 4.0 ** -1.5)
    with pytest.raises(TypeError, match=r"rsqrt: x is i64\[3\]"):
        lax.rsqrt(np.arange(3))


# ----------------------------------------------------------------------------- reductions
def test_reduce_max_min_of_an_empty_axis_is_the_identity():
    # JAX 0.10.2: XLA's init values (-inf / +inf, the integer type's min / max, False / True)
    out = lax.reduce_max(np.zeros((0, 3)), (0,))
    np.testing.assert_array_equal(out, [-np.inf] * 3)
    np.testing.assert_array_equal(lax.reduce_min(np.zeros((0, 3)), (0,)), [np.inf] * 3)
    out = lax.reduce_max(np.zeros((0, 2), np.int8), (0,))
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [-128, -128])
    np.testing.assert_array_equal(lax.reduce_min(np.zeros((2, 0), np.uint16), (1,)),
                                  [65535, 65535])
    assert lax.reduce_max(np.zeros(0, bool), (0,)) == np.False_
    assert lax.reduce_min(np.zeros(0, bool), (0,)) == np.True_


def test_reductions_keep_dtype_and_refuse_negative_axes():
    x = np.arange(24, dtype=np.int8).reshape(2, 3, 4)
    out = lax.reduce_sum(x, (0, 2))
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, x.sum((0, 2), dtype=np.int8))
    np.testing.assert_array_equal(lax.reduce_prod(x[:, :1, :2] + 1, (2,)),
                                  (x[:, :1, :2] + 1).prod(2, dtype=np.int8))
    with pytest.raises(ValueError, match=r"reduce_sum: axes \(-1,\) holds -1, which is out of "
                                         r"range for an operand with 3 dims; pass axes in \[0, 3\)"):
        lax.reduce_sum(x, (-1,))
    with pytest.raises(TypeError, match="reduce_sum: the operand is bool"):
        lax.reduce_sum(np.ones(2, bool), (0,))


def test_argmax_argmin_nan_ties_and_index_dtype():
    x = np.array([[1., np.nan, 5., np.nan], [2., 2., 1., 0.]])
    out = lax.argmax(x, 1, np.int8)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [1, 0])  # (JAX 0.10.2: the first NaN, the first tie)
    out = lax.argmin(np.array([[1., np.nan, -5., np.nan], [0., 2., 0., 1.]]), 1, np.uint8)
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, [1, 0])
    with pytest.raises(TypeError, match="argmax: index_dtype must be an integer dtype"):
        lax.argmax(x, 0, np.float32)
    with pytest.raises(ValueError, match=r"argmin: axis 0 of f64\[0,3\] is empty"):
        lax.argmin(np.zeros((0, 3)), 0, np.int32)
    out = fg.vmap(lambda r: lax.argmax(r, 0, np.int32))(x)
    np.testing.assert_array_equal(out, [1, 0])


# ----------------------------------------------------------------------------- cumulative
def test_cummax_cummin_send_tied_cotangents_where_jax_does():
    # JAX 0.10.2's grads of sum(cummax(t) * [1..5]) and of cummin on the reversed t
    t = np.array([1., 3., 3., 2., 3.])
    w = np.arange(1.0, 6.0)
    g = fg.grad(lambda x: fnp.sum(lax.cummax(x) * w))(t)
    np.testing.assert_allclose(g, [1., 6.75, 4.75, 0., 2.5])
    g = fg.grad(lambda x: fnp.sum(lax.cummin(x) * w))(t[::-1].copy())
    np.testing.assert_allclose(g, [1., 9., 0., 0., 5.])
    np.testing.assert_array_equal(lax.cummax(t, reverse=True), [3., 3., 3., 3., 3.])
    np.testing.assert_array_equal(lax.cummin(t, reverse=True), [1., 2., 2., 2., 3.])


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_cumulative_integer_wraps_axis_and_reverse(run):
    # JAX 0.10.2: int8 cumsum wraps; cumprod reverse
    out = run(lambda x: lax.cumsum(x), np.array([100, 100, 100], np.int8))
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [100, -56, 44])
    np.testing.assert_array_equal(run(lambda x: lax.cumprod(x, reverse=True),
                                      np.array([1, 2, 3], np.int8)), [6, 6, 3])
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(run(lambda x: lax.cumsum(x, axis=1, reverse=True), x),
                                  np.flip(np.flip(x, 1).cumsum(1), 1))
    with pytest.raises(TypeError, match="cumsum: the operand is bool"):
        lax.cumsum(np.ones(3, bool))
    with pytest.raises(ValueError, match="cummax: axis 3 is out of range"):
        lax.cummax(np.ones((2, 3, 4)), 3)


# ----------------------------------------------------------------------------- shapes
def test_broadcast_in_dim_accepts_dimensions_out_of_order():
    # JAX 0.10.2 transposes: broadcast_in_dim(x (3, 4), (4, 3), (1, 0)) == x.T
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(lax.broadcast_in_dim(x, (4, 3), (1, 0)), x.T)
    out = lax.broadcast_in_dim(x, (4, 2, 3), (2, 0))
    np.testing.assert_array_equal(out, np.broadcast_to(x.T[:, None, :], (4, 2, 3)))
    g = fg.grad(lambda x: fnp.sum(lax.broadcast_in_dim(x, (4, 2, 3), (2, 0)) * 1.5))(x)
    np.testing.assert_array_equal(g, np.full((3, 4), 3.0))
    out = fg.jit(lambda x: lax.broadcast_in_dim(x, (4, 3), (1, 0)))(x)
    np.testing.assert_array_equal(out, x.T)
    with pytest.raises(TypeError, match=r"broadcast_in_dim: cannot broadcast f64\[3,4\] to shape "
                                        r"\(2, 5, 4\) along broadcast_dimensions \(0, 2\)"):
        lax.broadcast_in_dim(x, (2, 5, 4), (0, 2))


def test_reshape_with_dimensions_and_without_minus_one():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(lax.reshape(x, (4, 6), dimensions=(2, 0, 1)),
                                  x.transpose(2, 0, 1).reshape(4, 6))
    with pytest.raises(TypeError, match=r"reshape: new_sizes \(-1, 4\) does not hold the 24 "
                                        r"elements of f64\[2,3,4\]; pass every size explicitly"):
        lax.reshape(x, (-1, 4))
    with pytest.raises(TypeError, match=r"reshape: dimensions \(0, 1\) must be a permutation"):
        lax.reshape(x, (24,), dimensions=(0, 1))


def test_slice_is_static_and_neither_wraps_nor_clamps():
    x = np.arange(10.0)
    np.testing.assert_array_equal(lax.slice(x, (1,), (8,), (3,)), [1., 4., 7.])
    for start, limit, stride in [((-1,), (5,), None), ((0,), (11,), None), ((5,), (4,), None),
                                 ((0,), (5,), (0,))]:
        with pytest.raises(ValueError, match="0 <= start <= limit <= size and stride >= 1"):
            lax.slice(x, start, limit, stride)
    # slice_in_dim / index_in_dim count negative bounds from the end (JAX does)
    y = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(lax.slice_in_dim(y, -2, None, 1, 1), y[:, -2:])
    np.testing.assert_array_equal(lax.slice_in_dim(y, None, -1, 2, 0), y[:-1:2])
    np.testing.assert_array_equal(lax.index_in_dim(y, -1, 1, False), y[:, -1])
    np.testing.assert_array_equal(lax.index_in_dim(y, 3, -1), y[..., 3:4])
    with pytest.raises(ValueError, match="start <= limit"):
        lax.slice_in_dim(y, -5, None, 1, 2)
    with pytest.raises(IndexError, match=r"index_in_dim: index 4 is out of bounds for axis 2 "
                                         r"of f64\[2,3,4\]; pass an index in \[-4, 4\)"):
        lax.index_in_dim(y, 4, 2)
    g = fg.grad(lambda y: fnp.sum(lax.slice(y, (0, 1, 0), (2, 3, 4), (1, 1, 3)) ** 2))(y)
    want = np.zeros_like(y)
    want[:, 1:3, ::3] = 2 * y[:, 1:3, ::3]
    np.testing.assert_array_equal(g, want)


def test_squeeze_expand_dims_rev_transpose_concatenate():
    y = np.ones((1, 3, 1))
    assert lax.squeeze(y, (0, -1)).shape == (3,)
    with pytest.raises(ValueError, match=r"squeeze: dimensions \(1,\) must name axes of size 1"):
        lax.squeeze(y, (1,))
    with pytest.raises(ValueError, match="repeats an axis"):
        lax.squeeze(y, (0, 0))
    assert lax.expand_dims(np.ones((2, 3)), (-1, 0)).shape == (1, 2, 3, 1)
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(lax.rev(x, (0, 1)), x[::-1, ::-1])
    with pytest.raises(ValueError, match=r"rev: dimensions \(-1,\) holds -1"):
        lax.rev(x, (-1,))  # (JAX refuses negative dimensions too)
    with pytest.raises(TypeError, match="negative axes are not accepted"):
        lax.transpose(x, (-1, 0))
    with pytest.raises(TypeError, match=r"concatenate: every operand must have the dtype of "
                                        r"operand 0 \(float64\), but operand 1 is f32\[2,3\]"):
        lax.concatenate([x, x.astype(f32)], 0)
    with pytest.raises(TypeError, match=r"concatenate: dimension -1 is out of range"):
        lax.concatenate([x, x], -1)
    out = fg.vmap(lambda a, b: lax.concatenate([a, b], 0))(x, x + 1)
    np.testing.assert_array_equal(out, np.concatenate([x, x + 1], 1))


def test_iota_and_broadcasted_iota():
    out = lax.iota(np.int8, 5)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(lax.broadcasted_iota(np.int32, (2, 3), 1), [[0, 1, 2]] * 2)
    out = fg.jit(lambda x: x * lax.broadcasted_iota(x.dtype, (2, 3), 0))(np.ones((2, 3)))
    np.testing.assert_array_equal(out, [[0.0] * 3, [1.0] * 3])
    with pytest.raises(TypeError, match="iota: dtype must be an integer, floating or complex"):
        lax.iota(np.bool_, 3)


# ----------------------------------------------------------------------------- dot_general, top_k
def test_dot_general_batch_dimensions_anywhere_and_preferred_element_type():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(3, 5, 4)), rng.normal(size=(4, 3, 2))
    out = lax.dot_general(x, y, (((0,), (1,)), ((2,), (0,))))  # batch, lhs free, rhs free
    np.testing.assert_allclose(out, np.einsum("kmb,bkn->bmn", x, y), rtol=1e-12)
    # int8 accumulating in int32 (int8 would wrap); float16 in float32
    a, b = np.full((2, 70), 20, np.int8), np.full((70, 1), 20, np.int8)
    out = lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[28000], [28000]])
    h = np.full((1, 4096), 1.0, f16)
    out = lax.dot_general(h, h.T, (((1,), (0,)), ((), ())), preferred_element_type=f32)
    assert out.dtype == f32 and out[0, 0] == 4096.0
    # mixed operands promote (JAX 0.10.2's dot_general does), with the derivative in each
    out = lax.dot_general(x.astype(f32), y, (((0,), (1,)), ((2,), (0,))))
    assert out.dtype == np.float64
    g = fg.grad(lambda x: fnp.sum(lax.dot_general(x, y, (((0,), (1,)), ((2,), (0,))))))(x)
    np.testing.assert_allclose(g, np.broadcast_to(y.sum(2).T[:, None, :], x.shape), rtol=1e-12)
    with pytest.raises(TypeError, match=r"dot_general: contracting dimension 1 of lhs "
                                        r"f64\[3,5,4\] and 0 of rhs f64\[4,3,2\] differ in size"):
        lax.dot_general(x, y, (((1,), (0,)), ((), ())))
    with pytest.raises(ValueError, match=r"lhs contracting dimensions \(-1,\) holds -1"):
        lax.dot_general(x, y, (((-1,), (0,)), ((), ())))


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_top_k_orders_like_xla(run):
    # JAX 0.10.2: ties keep index order, +0.0 ranks above -0.0, NaN above inf
    f = lambda v: lax.top_k(v, v.shape[-1])  # noqa: E731
    vals, idx = run(f, np.array([1., 4., 2., 4., 4., -0.0, 0.0]))
    assert idx.dtype == np.int32
    np.testing.assert_array_equal(idx, [1, 3, 4, 2, 0, 6, 5])
    assert not np.signbit(vals[5]) and np.signbit(vals[6])
    vals, idx = run(f, np.array([1., np.nan, 2., np.inf, np.nan, -np.inf]))
    np.testing.assert_array_equal(idx, [1, 4, 3, 2, 0, 5])
    vals, idx = run(f, np.array([-128, 127, 0, -1, -128], np.int8))
    np.testing.assert_array_equal(vals, np.array([127, 0, -1, -128, -128], np.int8))
    np.testing.assert_array_equal(idx, [1, 2, 3, 0, 4])
    vals, idx = run(lambda v: lax.top_k(v, 2, axis=0), np.array([[1., 5.], [3., 2.], [2., 9.]]))
    np.testing.assert_array_equal(vals, [[3., 9.], [2., 5.]])
    np.testing.assert_array_equal(idx, [[1, 2], [2, 0]])


def test_top_k_gradient_vmap_and_errors():
    t = np.array([[1., 4., 2., 4., 3.], [0., -1., 5., 2., 2.]])
    g = fg.grad(lambda v: fnp.sum(lax.top_k(v, 3)[0] * np.array([3., 2., 1.])))(t)
    np.testing.assert_array_equal(g, [[0., 3., 0., 2., 1.], [0., 0., 3., 2., 1.]])
    vals, idx = fg.vmap(lambda v: lax.top_k(v, 2))(t)
    for i in range(2):
        v, j = lax.top_k(t[i], 2)
        np.testing.assert_array_equal(vals[i], v)
        np.testing.assert_array_equal(idx[i], j)
    with pytest.raises(ValueError, match=r"top_k: k = 7 must be in \[0, 5\] for axis 1"):
        lax.top_k(t, 7)
    with pytest.raises(TypeError, match="complex values have no order"):
        lax.top_k(np.ones(3, complex), 1)


# ----------------------------------------------------------------------------- div, rem
@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_integer_div_rounds_toward_zero_like_xla(run, dtype):
    # JAX 0.10.2's values: C division (not NumPy's floor), x / 0 == -1, x % 0 == x,
    # INT_MIN / -1 == INT_MIN, INT_MIN % -1 == 0
    lo = np.iinfo(dtype).min
    x = np.array([7, -7, 7, -7, 5, lo, 0, 9, lo]).astype(dtype)
    y = np.array([2, 2, -2, -2, 0, -1, 0, 3, 0]).astype(dtype)
    q, r = run(lambda x, y: (lax.div(x, y), lax.rem(x, y)), x, y)
    assert q.dtype == r.dtype == dtype
    np.testing.assert_array_equal(q, np.array([3, -3, -3, 3, -1, lo, -1, 3, -1]).astype(dtype))
    np.testing.assert_array_equal(r, np.array([1, -1, 1, -1, 5, 0, 0, 0, lo]).astype(dtype))
    np.testing.assert_array_equal(run(lambda x: lax.div(x, 2), x[:2]), [3, -3])  # (weak 2)


def test_unsigned_div_by_zero_and_float_rem_sign():
    # JAX 0.10.2: uint8 x / 0 == 255 (all bits set), x % 0 == x
    q = lax.div(np.array([5, 0, 200], np.uint8), np.array([0, 0, 7], np.uint8))
    np.testing.assert_array_equal(q, np.array([255, 255, 28], np.uint8))
    r = lax.rem(np.array([5, 0, 200], np.uint8), np.array([0, 0, 7], np.uint8))
    np.testing.assert_array_equal(r, np.array([5, 0, 4], np.uint8))
    # float rem keeps x's sign (fmod); its y-derivative is -trunc(x / y)
    x, y = np.array([5.5, -5.5, 1.0, -0.0]), np.array([2.0, 2.0, 0.0, 1.0])
    with np.errstate(invalid="ignore"):  # (x % 0.0 is NaN, as NumPy's fmod says)
        out = lax.rem(x, y)
    np.testing.assert_array_equal(out[[0, 1, 3]], [1.5, -1.5, -0.0])
    assert np.isnan(out[2]) and np.signbit(out[3])
    gx, gy = fg.grad(lambda x, y: fnp.sum(lax.rem(x, y)), (0, 1))(np.array([5.5, -5.5]),
                                                                   np.array([2.0, 2.0]))
    np.testing.assert_array_equal(gx, [1.0, 1.0])
    np.testing.assert_array_equal(gy, [-2.0, 2.0])
    with pytest.raises(TypeError, match=r"div: x is f64\[3\] and y f32\[3\]; lax.div needs one "
                                        r"dtype and one shape"):
        lax.div(np.ones(3), np.ones(3, f32))
    with pytest.raises(TypeError, match="out of range for the other operand's dtype int8"):
        lax.div(np.ones(3, np.int8), 300)
