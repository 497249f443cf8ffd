"""The issue-11 elementwise functions beyond the registry specs: NumPy parity on special
values (NaN, inf, 0, integer and bool inputs), derivative conventions at kinks, errors."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.errors import ConcretizationError
from fungrad.test_util import check_grads

SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-310, 3.0, -7.25])
INTS = np.array([0, 3, -4, 12, 7])


def _jit_equal(f, *args):
    want = f(*args)
    got = fg.jit(f)(*args)
    for w, g in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,)):
        w, g = np.asarray(w), np.asarray(g)
        assert (g.shape, g.dtype) == (w.shape, w.dtype), (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


UNARY = ["fabs", "rint", "trunc", "fix", "cbrt", "spacing", "signbit", "isinf", "isposinf",
         "isneginf", "deg2rad", "rad2deg", "sinc", "positive", "frexp", "modf", "iscomplex",
         "isreal", "angle"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("x", [SPECIAL, SPECIAL.astype(np.float32), INTS], ids=["f8", "f4", "i8"])
def test_unary_special_values_match_numpy(name, x):
    with np.errstate(all="ignore"):
        _jit_equal(getattr(fnp, name), x)


@pytest.mark.parametrize("name", ["fmod", "fmax", "fmin", "copysign", "nextafter", "logaddexp2",
                                  "heaviside", "float_power", "isclose"])
def test_binary_special_values_match_numpy(name):
    x, y = SPECIAL, SPECIAL[::-1].copy()
    with np.errstate(all="ignore"):
        _jit_equal(getattr(fnp, name), x, y)
        _jit_equal(getattr(fnp, name), x.astype(np.float32), 2.0)


def test_integer_functions():
    for name in ("gcd", "lcm"):
        _jit_equal(getattr(fnp, name), INTS, INTS[::-1].copy())
    _jit_equal(fnp.bitwise_count, INTS)
    _jit_equal(lambda e: fnp.ldexp(1.5, e), INTS)
    _jit_equal(lambda x: fnp.ldexp(x, np.int32(3)), SPECIAL.astype(np.float32))


def test_nan_to_num_defaults_and_complex():
    z = SPECIAL + 1j * SPECIAL[::-1]
    for x in (SPECIAL, SPECIAL.astype(np.float32), z, INTS):
        _jit_equal(fnp.nan_to_num, x)
        _jit_equal(lambda x: fnp.nan_to_num(x, nan=-1.0, posinf=9.0), x)
    g = fg.grad(lambda x: fnp.sum(fnp.nan_to_num(x) * 2.0))(SPECIAL)
    np.testing.assert_array_equal(g, np.where(np.isfinite(SPECIAL), 2.0, 0.0))


def test_kink_derivatives_follow_jax():
    one, zero = np.array(1.0), np.array(0.0)
    assert fg.grad(lambda x: fnp.fmax(x, 1.0))(one) == 0.5   # a tie splits, as maximum
    assert fg.grad(lambda x: fnp.fmax(x, np.nan))(one) == 1.0  # NaN: the other one counts
    assert fg.grad(lambda x: fnp.copysign(x, -2.0))(np.array(3.0)) == -1.0
    assert fg.grad(lambda x: fnp.copysign(x, 2.0))(zero) == 0.0
    assert fg.grad(lambda x: fnp.heaviside(x, 0.5))(zero) == 0.0
    assert fg.grad(lambda h: fnp.heaviside(0.0, h))(np.array(0.5)) == 1.0
    assert fg.grad(lambda x: fnp.fmod(x, 2.0))(np.array(-3.5)) == 1.0
    assert fg.grad(lambda y: fnp.fmod(5.5, y))(np.array(2.0)) == -2.0  # -trunc(x / y)
    assert fg.grad(fnp.sinc)(zero) == 0.0
    assert fg.grad(lambda x: fnp.modf(x)[0])(np.array(-2.5)) == 1.0
    np.testing.assert_allclose(fg.grad(lambda x: fnp.frexp(x)[0])(np.array(12.0)), 1 / 16)


def test_i0_derivatives_are_bessel_i1():
    scipy_special = pytest.importorskip("scipy.special")
    x = np.array([-2.0, -0.3, 0.0, 0.7, 3.0])
    np.testing.assert_allclose(fg.vmap(fg.grad(fnp.i0))(x), scipy_special.i1(x), rtol=1e-12)
    # I0'' = I1' = I0 - I1 / x, 1/2 at 0
    want = np.where(x == 0, 0.5, scipy_special.i0(x) - scipy_special.i1(x) / np.where(x, x, 1))
    np.testing.assert_allclose(fg.vmap(fg.grad(fg.grad(fnp.i0)))(x), want, rtol=1e-12)
    check_grads(fnp.i0, (x,), order=3)


def test_unwrap_matches_numpy_with_options():
    p = np.cumsum(np.array([0.5, 4.0, -5.0, 1.0, 3.5, 0.1, -3.3]))
    for kw in ({}, {"discont": 4.0}, {"period": 5.0}, {"period": 6}):
        _jit_equal(lambda p: fnp.unwrap(p, **kw), p)
    _jit_equal(lambda p: fnp.unwrap(p, axis=0), np.stack([p, 2 * p], 1))
    g = fg.grad(lambda p: fnp.sum(fnp.unwrap(p) * np.arange(7.0)))(p)
    np.testing.assert_array_equal(g, np.arange(7.0))


def test_closeness_and_equality():
    a = np.array([1.0, np.nan, np.inf, 2.0])
    b = np.array([1.0 + 1e-9, np.nan, np.inf, 2.1])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.1}):
        _jit_equal(lambda a, b: fnp.isclose(a, b, **kw), a, b)
        _jit_equal(lambda a, b: fnp.allclose(a, b, **kw), a, b)
    _jit_equal(lambda a: fnp.array_equal(a, a, equal_nan=True), a)
    assert fnp.array_equal(a, a[:2]) is False and np.array_equal(a, a[:2]) is False
    c = np.array([1.0, 2.0, -3.0])
    assert fg.jit(lambda a: fnp.array_equiv(a, a[None]))(c)
    assert fg.jit(lambda a: fnp.array_equiv(a, a[:2]) is False)(c)


def test_predicates_on_complex_and_real():
    z = np.array([1 + 0j, 2 - 1j, 0j])
    for f in (fnp.iscomplex, fnp.isreal):
        _jit_equal(f, z)
        _jit_equal(f, z.real.copy())
    assert fg.jit(lambda z: fnp.where(fnp.iscomplexobj(z), 1.0, 0.0))(z) == 1.0
    assert fg.jit(lambda x: fnp.where(fnp.isrealobj(x), 1.0, 0.0))(z.real.copy()) == 1.0


def test_real_if_close_needs_concrete_values():
    z = np.array([1.0 + 1e-18j, 2.0 - 0j])
    assert fnp.real_if_close(z).dtype == np.float64
    g = fg.grad(lambda x: fnp.sum(fnp.real_if_close(x + 1e-18j) ** 2))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [2.0, 4.0])
    with pytest.raises(ConcretizationError, match="real_if_close"):
        fg.jit(fnp.real_if_close)(z)


def test_array_api_aliases_are_the_same_functions():
    assert fnp.acos is fnp.arccos and fnp.atan2 is fnp.arctan2 and fnp.atanh is fnp.arctanh
    assert fnp.radians is fnp.deg2rad and fnp.degrees is fnp.rad2deg
    x = np.arange(6.0).reshape(2, 3)
    _jit_equal(lambda x: fnp.concat([x, x], axis=1), x)
    _jit_equal(lambda x: fnp.permute_dims(x, (1, 0)), x)
    _jit_equal(fnp.matrix_transpose, x[None])
    z = x + 1j * x[::-1]
    v = np.array([1.0 - 2j, 0.5j, 3.0])
    np.testing.assert_allclose(fg.jit(fnp.vecdot)(z, v), np.vecdot(z, v))
    np.testing.assert_allclose(fg.jit(fnp.matvec)(z, v), np.matvec(z, v))
    np.testing.assert_allclose(fg.jit(fnp.vecmat)(v[:2], z), np.vecmat(v[:2], z))
    with pytest.raises(ValueError, match="at least 2"):
        fg.jit(fnp.matrix_transpose)(v)


@pytest.mark.parametrize("name,args", [
    ("deg2rad", (1j,)), ("rad2deg", (1j,)), ("frexp", (1j,)), ("modf", (1j,)),
    ("isposinf", (1j,)), ("isneginf", (1j,)), ("i0", (1j,)), ("ldexp", (1.0, 1.5)),
    ("bitwise_count", (1.5,)), ("positive", (True,)), ("fabs", (1j,)), ("gcd", (1.5, 2.0))])
def test_type_errors_like_numpy(name, args):
    args = tuple(np.array([a, a]) for a in args)
    with pytest.raises(TypeError):
        getattr(np, name)(*args)
    with pytest.raises(TypeError, match=name):
        fg.jit(getattr(fnp, name))(*args)


def test_fabs_error_names_a_fix_that_exists():
    with pytest.raises(TypeError, match="fnp.abs"):
        fg.jit(fnp.fabs)(np.array([1j]))


def test_vecdot_of_booleans_and_mismatched_vectors_as_numpy():
    b = np.array([True, False, True])
    for other in (b, ~b):
        got = fg.jit(fnp.vecdot)(b, other)
        assert got.dtype == np.bool_ and got == np.vecdot(b, other)
    with pytest.raises(ValueError, match="core dimension"):
        fg.jit(fnp.vecdot)(np.ones(3), np.ones(1))
    for fn in (fnp.vdot, lambda a, c: fnp.vecmat(a, fnp.outer(c, c))):
        got, want = fg.jit(fn)(b, b), fn(b, b)
        assert got.dtype == np.asarray(want).dtype == np.bool_ and np.array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8])
@pytest.mark.parametrize("decimals", [-1, 0, 1])
def test_round_of_integers_keeps_their_dtype_traced(dtype, decimals):
    a = np.array([15, 25, 35, 114, 0], dtype)
    want = np.round(a, decimals)
    got = fg.jit(lambda a: fnp.round(a, decimals))(a)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("name", ["deg2rad", "rad2deg"])
def test_half_precision_scaling_rounds_once_as_numpy(name):
    # NumPy's float16 loop scales in float32 and rounds once; two float16 roundings (the
    # input times a float16 constant) differed in the last bit for 58 of the 256 uint8s
    import ml_dtypes
    for x in (np.arange(256, dtype=np.uint8), np.linspace(-9, 9, 501).astype(np.float16),
              np.linspace(-9, 9, 501).astype(ml_dtypes.bfloat16)):
        want = getattr(np, name)(x)
        for got in (fg.jit(getattr(fnp, name))(x), fg.vmap(getattr(fnp, name))(x)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["arctan2", "hypot", "copysign", "heaviside", "logaddexp",
                                  "logaddexp2", "nextafter", "divide", "float_power"])
def test_mixed_integer_operands_compute_in_numpys_loop_dtype(name):
    # NumPy runs uint8 with int8 in its float16 loop (the first both cast to safely); the
    # traced version promoted first (int16) and computed in float32
    a, b = np.uint8([1, 2, 0, 200]), np.int8([1, 3, -2, -100])
    want = getattr(np, name)(a, b)
    for got in (fg.jit(getattr(fnp, name))(a, b), fg.vmap(getattr(fnp, name))(a, b)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_sinc_at_zero_in_every_float_dtype():
    # NumPy stands the dtype's eps in for pi x == 0 (also where pi x underflows); a fixed
    # 1e-20 was 0 in float16: 0 / 0
    for x in (np.float16([0.0, 0.5, 1e-7, 2.0]), np.float32([0.0, 1e-40, 0.3]),
              np.array([0.0, 1e-320, 0.5, -3.0]), np.array([0j, 1 + 1j]), np.int8([0, 1, 2])):
        want = np.sinc(x)
        for got in (fg.jit(fnp.sinc)(x), fg.vmap(fnp.sinc)(x)):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    assert fg.grad(fnp.sinc)(0.0) == 0.0


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_ldexp_under_trace_is_exact_as_numpy(dtype):
    # x * 2 ** e overflowed in 2 ** e (1e-30 * 2 ** 200 in float32 was inf), rounded twice
    # into subnormals and made 0 * inf = NaN; NumPy's ldexp rounds once
    fi = np.finfo(dtype)
    rng = np.random.default_rng(0)
    x = np.concatenate([np.array([0, -0.0, np.inf, -np.inf, np.nan, fi.tiny,
                                  fi.smallest_subnormal, fi.max, 1, -1.5, 0.75], dtype),
                        (rng.standard_normal(500) * np.exp2(rng.integers(
                            fi.minexp - fi.nmant, fi.maxexp, 500))).astype(dtype)])
    f = fg.jit(fnp.ldexp)
    for e in (rng.integers(-3 * fi.maxexp, 3 * fi.maxexp, x.size).astype(np.int32),
              np.full(x.size, 2 ** 40), np.full(x.size, -2 ** 40),
              rng.integers(-128, 127, x.size).astype(np.int8)):
        with np.errstate(all="ignore"):
            want, got = np.ldexp(x, e), f(x, e)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    assert fg.grad(fnp.ldexp)(0.0, 3) == 8.0 and fg.grad(fnp.ldexp)(1e-310, 3) == 8.0


def test_ldexp_result_dtype_follows_numpys_loop():
    for a, b in [(np.array([True]), 2), (np.uint8([3]), np.int8([2])), (np.float32([1.5]), 2)]:
        want, got = np.ldexp(a, b), fg.jit(fnp.ldexp)(a, b)
        assert got.dtype == want.dtype and np.array_equal(got, want)
    assert fg.vmap(fnp.ldexp, in_axes=(0, None))(np.float32([[1.0]]), 2).dtype == np.float32


def test_unwrap_dtypes_follow_numpy():
    # integer input stays in its dtype (NumPy assigns the sums back), booleans differ by
    # not_equal as NumPy's diff does and unwrap in float64
    for p, kw in [(np.int8([3, 1, 5]), dict(period=4)), (np.array([True, False, True]), {}),
                  (np.int32([0, 7, 1]), dict(period=6)), (np.float32([0, 6, 12.5]), {})]:
        want = np.unwrap(p, **kw)
        got = fg.jit(lambda p: fnp.unwrap(p, **kw))(p)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_bool_rounding_and_unary_plus_raise_as_numpy():
    b = np.array([True, False])
    with pytest.raises(TypeError, match="decimals=1"):
        fg.jit(lambda a: fnp.round(a, 1))(b)
    with pytest.raises(TypeError, match="bool"):
        fg.jit(lambda a: +a)(b)
    assert fg.jit(fnp.round)(b).dtype == np.round(b).dtype
    np.testing.assert_array_equal(fg.jit(lambda a: +a)(np.array([1, 2])), [1, 2])


@pytest.mark.parametrize("decimals", [0, 1, -1])
def test_round_of_complex_rounds_the_parts_as_numpy(decimals):
    # scaling by a complex 10 mixed the parts: inf + 0j became nan + nan j
    z = np.array([np.inf + 0j, 1.26 + 1.34j, complex(np.nan, np.inf), 2.5 - 3.5j, -0.0 + 0j])
    for zz in (z, z.astype(np.complex64)):
        want = np.round(zz, decimals)
        got = fg.jit(lambda z: fnp.round(z, decimals))(zz)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))
