"""jax.lax's elementwise, bitwise, sorting and array-building functions in `fg.lax`
(fungrad/lax/array_ops.py's tables), pinned to JAX 0.10.2's semantics (x64 on): the dtypes
each function takes and returns, XLA's values where they differ from NumPy's (shifts out of
range, rounding halves away from zero, sort order of NaN / -0.0 / complex, digamma's poles,
the identity of an empty bitwise reduction), derivatives, vmap against a loop, jit against
eager, and errors naming the argument and the fix. Expected values are written out (what JAX
0.10.2 returned for the same program) or computed with NumPy; JAX is not imported.
"""
import ml_dtypes
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

lax = fg.lax
bf16 = np.dtype(ml_dtypes.bfloat16)
RUNS = [lambda f, *a: f(*a), lambda f, *a: fg.jit(f)(*a)]
RUN_IDS = ["eager", "jit"]
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float16",
          "bfloat16", "float32", "float64", "complex64", "complex128"]


def _dtype(name):
    return bf16 if name == "bfloat16" else np.dtype(name)


def _sample(name):
    dt = _dtype(name)
    if dt == np.bool_:
        return np.array([True, False, True])
    if dt.kind in "iu":
        return np.array([1, 2, 3], dt)
    return np.array([0.5, 0.25, 0.75], dt)


# what JAX 0.10.2 accepts, per function (the dtypes of its operands), and the result dtypes
# that differ from the operands' (atan2: JAX also takes complex operands; fungrad does not)
ACCEPTS = {
    "neg": ("int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {}),
    "abs": ("int8 int16 int32 int64 float16 bfloat16 float32 float64 complex64 complex128", {'complex64': 'float32', 'complex128': 'float64'}),
    "sign": ("int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {}),
    "exp": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "exp2": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "log": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "log1p": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "expm1": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "sin": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "cos": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "tan": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "asin": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "acos": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "atan": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "sinh": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "cosh": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "tanh": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "asinh": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "acosh": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "atanh": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "sqrt": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "cbrt": ("float16 bfloat16 float32 float64", {}),
    "square": ("int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {}),
    "reciprocal": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "floor": ("float16 bfloat16 float32 float64", {}),
    "ceil": ("float16 bfloat16 float32 float64", {}),
    "round": ("float16 bfloat16 float32 float64", {}),
    "is_finite": ("float16 bfloat16 float32 float64", {'float16': 'bool', 'bfloat16': 'bool', 'float32': 'bool', 'float64': 'bool'}),
    "logistic": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "erf": ("float16 bfloat16 float32 float64", {}),
    "erfc": ("float16 bfloat16 float32 float64", {}),
    "erf_inv": ("float16 bfloat16 float32 float64", {}),
    "lgamma": ("float16 bfloat16 float32 float64", {}),
    "digamma": ("float16 bfloat16 float32 float64", {}),
    "real": ("complex64 complex128", {'complex64': 'float32', 'complex128': 'float64'}),
    "imag": ("complex64 complex128", {'complex64': 'float32', 'complex128': 'float64'}),
    "conj": ("float32 float64 complex64 complex128", {'float32': 'complex64', 'float64': 'complex128'}),
    "bitwise_not": ("bool int8 int16 int32 int64 uint8 uint32 uint64", {}),
    "population_count": ("int8 int16 int32 int64 uint8 uint32 uint64", {}),
    "clz": ("int8 int16 int32 int64 uint8 uint32 uint64", {}),
    "add": ("int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {}),
    "sub": ("int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {}),
    "mul": ("int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {}),
    "max": ("bool int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {}),
    "min": ("bool int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {}),
    "pow": ("float16 bfloat16 float32 float64 complex64 complex128", {}),
    "atan2": ("float16 bfloat16 float32 float64", {}),
    "nextafter": ("float16 bfloat16 float32 float64", {}),
    "complex": ("float32 float64", {'float32': 'complex64', 'float64': 'complex128'}),
    "eq": ("bool int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {'int8': 'bool', 'int16': 'bool', 'int32': 'bool', 'int64': 'bool', 'uint8': 'bool', 'uint32': 'bool', 'uint64': 'bool', 'float16': 'bool', 'bfloat16': 'bool', 'float32': 'bool', 'float64': 'bool', 'complex64': 'bool', 'complex128': 'bool'}),
    "ne": ("bool int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128", {'int8': 'bool', 'int16': 'bool', 'int32': 'bool', 'int64': 'bool', 'uint8': 'bool', 'uint32': 'bool', 'uint64': 'bool', 'float16': 'bool', 'bfloat16': 'bool', 'float32': 'bool', 'float64': 'bool', 'complex64': 'bool', 'complex128': 'bool'}),
    "lt": ("bool int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64", {'int8': 'bool', 'int16': 'bool', 'int32': 'bool', 'int64': 'bool', 'uint8': 'bool', 'uint32': 'bool', 'uint64': 'bool', 'float16': 'bool', 'bfloat16': 'bool', 'float32': 'bool', 'float64': 'bool'}),
    "le": ("bool int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64", {'int8': 'bool', 'int16': 'bool', 'int32': 'bool', 'int64': 'bool', 'uint8': 'bool', 'uint32': 'bool', 'uint64': 'bool', 'float16': 'bool', 'bfloat16': 'bool', 'float32': 'bool', 'float64': 'bool'}),
    "gt": ("bool int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64", {'int8': 'bool', 'int16': 'bool', 'int32': 'bool', 'int64': 'bool', 'uint8': 'bool', 'uint32': 'bool', 'uint64': 'bool', 'float16': 'bool', 'bfloat16': 'bool', 'float32': 'bool', 'float64': 'bool'}),
    "ge": ("bool int8 int16 int32 int64 uint8 uint32 uint64 float16 bfloat16 float32 float64", {'int8': 'bool', 'int16': 'bool', 'int32': 'bool', 'int64': 'bool', 'uint8': 'bool', 'uint32': 'bool', 'uint64': 'bool', 'float16': 'bool', 'bfloat16': 'bool', 'float32': 'bool', 'float64': 'bool'}),
    "bitwise_and": ("bool int8 int16 int32 int64 uint8 uint32 uint64", {}),
    "bitwise_or": ("bool int8 int16 int32 int64 uint8 uint32 uint64", {}),
    "bitwise_xor": ("bool int8 int16 int32 int64 uint8 uint32 uint64", {}),
    "shift_left": ("int8 int16 int32 int64 uint8 uint32 uint64", {}),
    "shift_right_logical": ("int8 int16 int32 int64 uint8 uint32 uint64", {}),
    "shift_right_arithmetic": ("int8 int16 int32 int64 uint8 uint32 uint64", {}),
}
UNARY = ["neg", "abs", "sign", "exp", "exp2", "log", "log1p", "expm1", "sin", "cos", "tan",
         "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sqrt",
         "cbrt", "square", "reciprocal", "floor", "ceil", "round", "is_finite", "logistic",
         "erf", "erfc", "erf_inv", "lgamma", "digamma", "real", "imag", "conj", "bitwise_not",
         "population_count", "clz"]


@pytest.mark.parametrize("name", sorted(ACCEPTS))
def test_dtypes_taken_and_returned_match_jax(name):
    accepted, outs = ACCEPTS[name]
    accepted = accepted.split()
    fn = getattr(lax, name)
    for dt in DTYPES:
        x = _sample(dt)
        args = (x,) if name in UNARY else (x, x)
        if dt in accepted:
            with np.errstate(invalid="ignore"):  # (acosh(0.5) is NaN)
                out = fn(*args)
            assert isinstance(out, np.ndarray)
            assert out.dtype == _dtype(outs.get(dt, dt)), (name, dt, out.dtype)
        else:
            with pytest.raises(TypeError, match=rf"{name}: x is .*; cast with "
                                                r"fg.lax.convert_element_type|"
                                                rf"{name}: x is .* but lax.{name} takes"):
                fn(*args)


FLOAT_REFERENCE = {  # name: (NumPy's function, an argument in the domain)
    "exp": (np.exp, 0.7), "exp2": (np.exp2, 0.7), "log": (np.log, 0.7),
    "log1p": (np.log1p, 0.7), "expm1": (np.expm1, 0.7), "sin": (np.sin, 0.7),
    "cos": (np.cos, 0.7), "tan": (np.tan, 0.7), "asin": (np.arcsin, 0.7),
    "acos": (np.arccos, 0.7), "atan": (np.arctan, 0.7), "sinh": (np.sinh, 0.7),
    "cosh": (np.cosh, 0.7), "tanh": (np.tanh, 0.7), "asinh": (np.arcsinh, 0.7),
    "acosh": (np.arccosh, 1.7), "atanh": (np.arctanh, 0.7), "sqrt": (np.sqrt, 0.7),
    "cbrt": (np.cbrt, -0.7), "square": (np.square, -0.7), "reciprocal": (np.reciprocal, 0.7),
    "neg": (np.negative, 0.7), "abs": (np.abs, -0.7), "floor": (np.floor, -0.7),
    "ceil": (np.ceil, -0.7), "logistic": (lambda v: 1 / (1 + np.exp(-v)), -0.7),
}


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
@pytest.mark.parametrize("name", sorted(FLOAT_REFERENCE))
@pytest.mark.parametrize("dt", [np.float16, bf16, np.float32, np.float64])
def test_float_values_match_numpy_and_keep_the_dtype(run, name, dt):
    ref, v = FLOAT_REFERENCE[name]
    x = np.array([v, v * 1.2, v * 1.1] if name in ("log", "sqrt", "acosh", "log1p") else
                 [v, v / 2, -v / 3])
    out = run(getattr(lax, name), x.astype(dt))
    assert out.dtype == dt
    tol = {2: 1e-2, 4: 1e-6, 8: 1e-13}[np.dtype(dt).itemsize]
    np.testing.assert_allclose(out.astype(np.float64), ref(x.astype(dt).astype(np.float64)),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_shifts_out_of_range_give_xlas_results(run):
    # JAX 0.10.2: the amount is read as unsigned; >= bits gives 0 (left, logical) or the
    # sign fill (arithmetic, which reads an unsigned x's top bit as a sign too)
    x = np.array([-128, -3, 5, 127], np.int8)
    y = np.array([-1, 3, 8, 9], np.int8)
    np.testing.assert_array_equal(run(lax.shift_left, x, y), np.array([0, -24, 0, 0], np.int8))
    np.testing.assert_array_equal(run(lax.shift_right_logical, x, y),
                                  np.array([0, 31, 0, 0], np.int8))
    np.testing.assert_array_equal(run(lax.shift_right_arithmetic, x, y),
                                  np.array([-1, -1, 0, 0], np.int8))
    u, a = np.array([200, 3, 5, 255], np.uint8), np.array([1, 7, 8, 200], np.uint8)
    np.testing.assert_array_equal(run(lax.shift_left, u, a), np.array([144, 128, 0, 0], np.uint8))
    np.testing.assert_array_equal(run(lax.shift_right_logical, u, a),
                                  np.array([100, 0, 0, 0], np.uint8))
    np.testing.assert_array_equal(run(lax.shift_right_arithmetic, u, a),
                                  np.array([228, 0, 0, 255], np.uint8))
    w = np.array([1, -1, 2 ** 62], np.int64)
    np.testing.assert_array_equal(run(lax.shift_left, w, np.array([63, 64, 1])),
                                  [-2 ** 63, 0, -2 ** 63])
    np.testing.assert_array_equal(run(lax.shift_right_logical, w, np.array([0, 60, 62])),
                                  [1, 15, 1])


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32,
                                np.uint64])
def test_population_count_and_clz_match_bit_counts(run, dt):
    info = np.iinfo(dt)
    bits = np.dtype(dt).itemsize * 8
    vals = [0, 1, 2, 3, 5, 127, int(info.max), int(info.min), int(info.max) // 3]
    x = np.array(vals, dtype=object).astype(dt)
    unsigned = [int(v) % (1 << bits) for v in vals]
    pc, lz = run(lambda x: (lax.population_count(x), lax.clz(x)), x)
    assert pc.dtype == lz.dtype == dt
    np.testing.assert_array_equal(pc, np.array([bin(v).count("1") for v in unsigned], dt))
    np.testing.assert_array_equal(lz, np.array([bits - v.bit_length() for v in unsigned], dt))


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
@pytest.mark.parametrize("dt", [np.float16, bf16, np.float32, np.float64])
def test_round_halves_away_from_zero_or_to_even(run, dt):
    x = np.array([-0.3, 0.5, -0.5, 1.5, 2.5, -2.5, np.inf, np.nan]).astype(dt)
    away = run(lax.round, x)
    even = run(lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), x)
    assert away.dtype == even.dtype == dt
    np.testing.assert_array_equal(away.astype(float), [-0., 1., -1., 2., 3., -3., np.inf, np.nan])
    np.testing.assert_array_equal(even.astype(float), [-0., 0., -0., 2., 2., -2., np.inf, np.nan])
    assert np.signbit(away[0].astype(float))
    # JAX 0.10.2: the largest double below 0.5 rounds to 0 (adding 0.5 would give 1)
    np.testing.assert_array_equal(lax.round(np.array([0.49999999999999994])), [0.0])
    np.testing.assert_array_equal(lax.round(np.array([0.5]), 1), [0.0])  # (an int method)
    with pytest.raises(ValueError, match="rounding_method 'TO_NEAREST_EVEN' is not a "
                                         "fg.lax.RoundingMethod"):
        lax.round(x, "TO_NEAREST_EVEN")


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_special_functions_edges_match_jax(run):
    # JAX 0.10.2's values: logistic without overflow, erf_inv's ends, lgamma's and
    # digamma's poles (XLA: NaN at 0, where SciPy gives -inf)
    out = run(lax.logistic, np.array([-800., 0., 800., -100.]))
    np.testing.assert_allclose(out, [0., 0.5, 1., 3.72007598e-44], rtol=1e-8)
    np.testing.assert_allclose(run(lax.erf_inv, np.array([0.5, 1.0, -1.0, 2.0])),
                               [0.47693628, np.inf, -np.inf, np.nan], rtol=1e-7)
    np.testing.assert_allclose(run(lax.lgamma, np.array([-1.0, 0.5])), [np.inf, 0.57236494],
                               rtol=1e-7)
    np.testing.assert_allclose(run(lax.digamma, np.array([0.0, -0.0, -1.0, 1.0])),
                               [np.nan, np.nan, np.nan, -0.57721566], rtol=1e-7)
    np.testing.assert_allclose(run(lax.erfc, np.array([0., 1.])), [1., 0.15729921], rtol=1e-7)


def test_complex_parts_and_conjugate():
    z = np.array([1 + 2j, -3 - 4j])
    assert lax.real(z).dtype == lax.imag(z).dtype == np.float64
    np.testing.assert_array_equal(lax.real(z), [1., -3.])
    np.testing.assert_array_equal(lax.imag(z), [2., -4.])
    np.testing.assert_array_equal(lax.conj(z), [1 - 2j, -3 + 4j])
    # JAX 0.10.2: conj of a float32 / float64 operand is complex
    assert lax.conj(np.float32(1.0)).dtype == np.complex64
    assert lax.conj(np.array([1.0])).dtype == np.complex128
    c = lax.complex(np.array([1., np.inf]), np.array([np.inf, 2.]))
    assert c.dtype == np.complex128
    np.testing.assert_array_equal(c.real, [1., np.inf])
    np.testing.assert_array_equal(c.imag, [np.inf, 2.])
    assert lax.complex(np.float32(1), np.float32(2)).dtype == np.complex64
    assert lax.abs(np.array([3 + 4j], np.complex64)).dtype == np.float32
    np.testing.assert_allclose(lax.sign(np.array([2 + 2j, -0.0])), [(1 + 1j) / np.sqrt(2), 0])


def test_arithmetic_wraps_and_mul_out_dtype_and_pow_integer_exponent():
    x = np.array([127, -128], np.int8)
    np.testing.assert_array_equal(lax.add(x, np.int8(1) + np.zeros(2, np.int8)), [-128, -127])
    np.testing.assert_array_equal(lax.neg(x), np.array([-127, -128], np.int8))
    np.testing.assert_array_equal(lax.abs(np.array([-128], np.int8)), [-128])
    np.testing.assert_array_equal(lax.square(np.array([200], np.uint8)), [64])
    # JAX 0.10.2: out_dtype converts the operands first
    out = lax.mul(np.array([100], np.int8), np.array([100], np.int8), out_dtype=np.int16)
    assert out.dtype == np.int16 and out[0] == 10000
    # pow with an integer exponent array, or a weak Python exponent
    np.testing.assert_array_equal(lax.pow(np.array([2., 3.]), np.array([3, -1], np.int32)),
                                  [8., 1 / 3])
    np.testing.assert_array_equal(lax.pow(np.array([2 + 0j]), np.array([3], np.int32)), [8 + 0j])
    np.testing.assert_array_equal(lax.pow(np.array([4.]), 0.5), [2.])
    # weak Python scalars take the other operand's dtype; two of them give a 0-d array
    assert lax.add(np.ones(2, np.float32), 2.0).dtype == np.float32
    out = lax.add(1, 2)
    assert isinstance(out, np.ndarray) and out.dtype == np.int64 and out == 3
    np.testing.assert_array_equal(lax.max(np.array([True, False]), np.array([False, False])),
                                  [True, False])
    # complex max / min: by real part, then imaginary
    np.testing.assert_array_equal(lax.max(np.array([1 + 1j, 2 - 1j]), np.array([1 + 2j, 1 + 5j])),
                                  [1 + 2j, 2 - 1j])
    np.testing.assert_array_equal(lax.nextafter(np.float32(1), np.float32(2)),
                                  np.float32(1.0000001))
    np.testing.assert_array_equal(lax.atan2(np.array([1., -1.]), np.array([1., 1.])),
                                  np.arctan2([1., -1.], [1., 1.]))


def test_binary_errors_name_the_operands_and_the_fix():
    with pytest.raises(TypeError, match=r"add: x is f64\[3\] and y f32\[3\]; lax.add needs one "
                                        r"dtype and one shape"):
        lax.add(np.ones(3), np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"mul: x is f64\[3\] and y f64\[2\]"):
        lax.mul(np.ones(3), np.ones(2))
    with pytest.raises(TypeError, match="cannot take the other operand's dtype int32"):
        lax.add(np.ones(3, np.int32), 2.5)
    with pytest.raises(TypeError, match=r"shift_left: x is f64\[2\], but lax.shift_left takes "
                                        r"integer values; cast with "
                                        r"fg.lax.convert_element_type"):
        lax.shift_left(np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match=r"exp: x is i64\[\]"):
        lax.exp(1)
    with pytest.raises(TypeError, match=r"lt: x is c128\[1\], but lax.lt takes real"):
        lax.lt(np.array([1j]), np.array([1j]))
    with pytest.raises(TypeError, match="unexpected keyword argument 'accuracy'"):
        lax.sinh(np.ones(2), accuracy=None)
    np.testing.assert_array_equal(lax.sin(np.zeros(2), accuracy=None), [0., 0.])


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_sort_orders_like_xla(run):
    # JAX 0.10.2: -0.0 ties with 0.0 (stable), NaN (of either sign) last
    x = np.array([np.nan, 1.0, -0.0, 0.0, -np.inf, -np.nan, 0.0, -0.0])
    out = run(lax.sort, x)
    np.testing.assert_array_equal(out, [-np.inf, -0., 0., 0., -0., 1., np.nan, np.nan])
    np.testing.assert_array_equal(np.signbit(out[1:5]), [True, False, False, True])
    z = np.array([1 + 1j, 1 - 1j, 0 + 5j, complex(np.nan, 0)])
    np.testing.assert_array_equal(run(lax.sort, z), [5j, 1 - 1j, 1 + 1j, complex(np.nan, 0)])
    np.testing.assert_array_equal(run(lax.sort, np.array([True, False])), [False, True])
    a = np.array([[3., 1.], [0., 2.]])
    np.testing.assert_array_equal(run(lambda a: lax.sort(a, dimension=0), a), [[0., 1.], [3., 2.]])
    k, v = run(lambda k, v: lax.sort((k, v), num_keys=2), np.array([1., 1., 0.]),
               np.array([3., 2., 5.]))
    np.testing.assert_array_equal(k, [0., 1., 1.])
    np.testing.assert_array_equal(v, [5., 2., 3.])
    k, v = run(lax.sort_key_val, np.array([3., 1., 2.]), np.array([0, 1, 2]))
    np.testing.assert_array_equal(k, [1., 2., 3.])
    np.testing.assert_array_equal(v, [1, 2, 0])
    # a sequence in, a tuple out; stable among equal keys
    out = lax.sort([np.array([2, 1, 2, 1], np.int8), np.arange(4.)], num_keys=1)
    assert type(out) is tuple
    np.testing.assert_array_equal(out[1], [1., 3., 0., 2.])


def test_sort_errors():
    with pytest.raises(ValueError, match="num_keys=2 must be between 1 and the number of "
                                         "operands, 1"):
        lax.sort((np.ones(2),), num_keys=2)
    with pytest.raises(ValueError, match="out of range for a scalar operand"):
        lax.sort(np.array(1.))
    with pytest.raises(TypeError, match=r"operand 1 is f64\[1\]"):
        lax.sort((np.ones(2), np.ones(1)))


def test_sort_derivative_follows_the_permutation():
    x = np.array([3., 1., 2., 1.])
    w = np.array([1., 10., 100., 1000.])
    g = fg.grad(lambda x: fnp.sum(lax.sort(x) * w))(x)
    np.testing.assert_array_equal(g, [1000., 1., 100., 10.])  # (ties: stable)
    gv = fg.grad(lambda v: fnp.sum(lax.sort_key_val(x, v)[1] * w))(np.zeros(4))
    np.testing.assert_array_equal(gv, [1000., 1., 100., 10.])


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_bitwise_reductions(run):
    x = np.array([[6, 3, 5], [1, 1, 0]], np.int32)
    np.testing.assert_array_equal(run(lambda x: lax.reduce_and(x, (1,)), x), [0, 0])
    np.testing.assert_array_equal(run(lambda x: lax.reduce_or(x, (1,)), x), [7, 1])
    np.testing.assert_array_equal(run(lambda x: lax.reduce_xor(x, (0, 1)), x), np.int32(6 ^ 3 ^ 5))
    np.testing.assert_array_equal(run(lambda x: lax.reduce_and(x, (0,)), x), [0, 1, 0])
    b = np.array([True, True, True])
    np.testing.assert_array_equal(run(lambda b: lax.reduce_xor(b, (0,)), b), True)
    # JAX 0.10.2: over no elements, the identity (all bits set for and)
    np.testing.assert_array_equal(lax.reduce_and(np.zeros((2, 0), np.int8), (1,)), [-1, -1])
    np.testing.assert_array_equal(lax.reduce_and(np.zeros((2, 0), np.uint8), (1,)), [255, 255])
    np.testing.assert_array_equal(lax.reduce_or(np.zeros((2, 0), np.uint8), (1,)), [0, 0])
    with pytest.raises(TypeError, match=r"reduce_and: operand is f64\[2\], but lax.reduce_and "
                                        r"takes bool or integer values"):
        lax.reduce_and(np.ones(2), (0,))


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_cumlogsumexp_values_and_derivative(run):
    x = np.array([[0., 1., 2.], [-np.inf, -np.inf, 0.]])
    out = run(lambda x: lax.cumlogsumexp(x, 1), x)
    np.testing.assert_allclose(out[0], [0., 1.31326169, 2.40760596], rtol=1e-8)
    np.testing.assert_array_equal(out[1], [-np.inf, -np.inf, 0.])
    np.testing.assert_array_equal(run(lambda x: lax.cumlogsumexp(x, 1, True), x)[1], [0., 0., 0.])
    y = np.array([0.3, -1.0, 2.0])
    g = fg.grad(lambda y: fnp.sum(lax.cumlogsumexp(y) * np.array([1., 2., 3.])))(y)
    e = np.exp(y)
    want = sum(w * np.where(np.arange(3) <= i, e, 0) / e[:i + 1].sum()
               for i, w in enumerate([1., 2., 3.]))
    np.testing.assert_allclose(g, want, rtol=1e-12)
    with pytest.raises(TypeError, match="cumlogsumexp: operand is i64"):
        lax.cumlogsumexp(np.array([0, 1]))


def test_full_and_full_like():
    # JAX 0.10.2: a Python fill value gives int64 / float64; an array keeps its dtype
    assert lax.full((2,), 1.0).dtype == np.float64
    assert lax.full((2,), 1).dtype == np.int64
    assert lax.full((2,), np.float32(1)).dtype == np.float32
    np.testing.assert_array_equal(lax.full_like(np.zeros(2, np.int8), 3.7),
                                  np.array([3, 3], np.int8))
    np.testing.assert_array_equal(lax.full_like(np.zeros(2), 3, shape=(1, 2)), [[3., 3.]])
    assert lax.full_like(np.zeros(2), 3, np.int32).dtype == np.int32
    with pytest.raises(TypeError, match=r"full: fill_value must be a scalar, got one of shape "
                                        r"\(2,\)"):
        lax.full((2,), np.array([1., 2.]))
    g = fg.grad(lambda v: fnp.sum(lax.full((3, 2), v)))(1.5)
    assert g == 6.0
    f = fg.jit(lambda x: lax.full_like(x, 2.0) * x)
    np.testing.assert_array_equal(f(np.ones(3, np.float32)), np.full(3, 2, np.float32))


def test_tile_split_collapse_batch_matmul():
    np.testing.assert_array_equal(lax.tile(np.array([1, 2]), (2,)), [1, 2, 1, 2])
    x = np.arange(6.).reshape(2, 3)
    np.testing.assert_array_equal(lax.tile(x, (2, 3)), np.tile(x, (2, 3)))
    a, b = lax.split(x, (1, 2), axis=-1)
    np.testing.assert_array_equal(a, x[:, :1])
    np.testing.assert_array_equal(b, x[:, 1:])
    assert type(lax.split(x, (2,), 0)) is list
    z = np.zeros((2, 3, 4))
    assert lax.collapse(z, 1).shape == (2, 12)
    assert lax.collapse(z, -2).shape == (2, 12)
    assert lax.collapse(z, 0, 2).shape == (6, 4)
    assert lax.collapse(z, 0, -1).shape == (6, 4)
    p, q = np.random.default_rng(0).normal(size=(2, 2, 3, 4)), np.ones((2, 2, 4, 5))
    np.testing.assert_allclose(lax.batch_matmul(p, q), p @ q, rtol=1e-12)
    assert lax.batch_matmul(np.ones((3, 4)), np.ones((4, 5))).shape == (3, 5)
    assert lax.batch_matmul(np.ones((2, 3, 4), np.float32), np.ones((2, 4, 5))).dtype == np.float64
    with pytest.raises(TypeError, match=r"tile: reps \(2, 3\) must have one entry per dimension"):
        lax.tile(np.ones(2), (2, 3))
    with pytest.raises(ValueError, match=r"split: sizes \(2, 2\) must be >= 0 and add up to the "
                                         r"size 5"):
        lax.split(np.arange(5.), (2, 2))
    with pytest.raises(ValueError, match=r"collapse: the dimension range \[2, 1\)"):
        lax.collapse(z, 2, 1)
    with pytest.raises(ValueError, match="must have the same ndim, at least 2"):
        lax.batch_matmul(np.ones((2, 3, 4)), np.ones((4, 5)))


def test_select():
    t, f = np.ones(2), np.zeros(2)
    np.testing.assert_array_equal(lax.select(True, t, f), [1., 1.])
    np.testing.assert_array_equal(lax.select(np.array([True, False]), t, f), [1., 0.])
    np.testing.assert_array_equal(lax.select(np.array([1, 0]), t, f), [1., 0.])  # (as JAX)
    with pytest.raises(TypeError, match=r"select: on_false is a Python scalar but the other "
                                        r"case has shape \(2,\)"):
        lax.select(np.array(True), t, 0.0)
    with pytest.raises(TypeError, match=r"select: x is f64\[2\] and y f32\[2\]"):
        lax.select(np.array([True, False]), t, f.astype(np.float32))
    with pytest.raises(TypeError, match=r"select: pred has shape \(3,\)"):
        lax.select(np.ones(3, bool), t, f)
    gx, gy = fg.grad(lambda x, y: fnp.sum(lax.select(x > 0, x * 2.0, y)), (0, 1))(
        np.array([1., -1.]), np.array([5., 5.]))
    np.testing.assert_array_equal(gx, [2., 0.])
    np.testing.assert_array_equal(gy, [0., 1.])


def test_derivatives_match_jax():
    # JAX 0.10.2's values: max / min split ties in half; round, floor, sign have slope 0;
    # logistic's slope is finite far out
    for fn in (lax.max, lax.min):
        gx, gy = fg.grad(lambda x, y: fn(x, y), (0, 1))(1.0, 1.0)
        assert gx == gy == 0.5
    g = fg.grad(lambda x: fnp.sum(lax.round(x) + lax.floor(x) + lax.sign(x)))(np.array([0.4, 1.5]))
    np.testing.assert_array_equal(g, [0., 0.])
    g = fg.vmap(fg.grad(lax.logistic))(np.array([-800., 0., 800.]))
    np.testing.assert_allclose(g, [0., 0.25, 0.], atol=1e-300)
    g = fg.grad(lambda x: lax.real(lax.conj(lax.complex(x, 2.0 * x)) * lax.complex(x, x)))(1.5)
    np.testing.assert_allclose(g, 9.0)  # Re((x - 2ix)(x + ix)) = 3x^2: 6x at 1.5
    for name, d in (("exp", np.exp), ("erf", lambda v: 2 / np.sqrt(np.pi) * np.exp(-v * v)),
                    ("lgamma", lambda v: np.array(0.03648997397857652)),
                    ("atanh", lambda v: 1 / (1 - v * v)), ("cbrt", lambda v: v ** (-2 / 3) / 3)):
        np.testing.assert_allclose(fg.grad(getattr(lax, name))(1.5 if name == "lgamma" else 0.5),
                                   d(0.5), rtol=1e-10)


def test_vmap_matches_a_loop_and_jit_matches_eager():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3, 5))
    i = rng.integers(-100, 100, size=(4, 3, 5)).astype(np.int32)
    cases = [(lambda a: lax.sort(a, 0), x), (lambda a: lax.cumlogsumexp(a, 1, True), x),
             (lambda a: lax.round(a * 3), x), (lambda a: lax.tile(a, (2, 1)), x),
             (lambda a: lax.collapse(a, 0), x), (lambda a: lax.select(a > 0, a, -a), x),
             (lambda a: lax.population_count(a), i), (lambda a: lax.clz(a), i),
             (lambda a: lax.shift_right_logical(a, lax.bitwise_and(a, 31)), i),
             (lambda a: lax.shift_left(a, lax.abs(a)), i),
             (lambda a: lax.reduce_xor(a, (1,)), i), (lambda a: lax.sort_key_val(a, a * 2)[1], x),
             (lambda a: lax.batch_matmul(a[None], a.T[None]), x)]
    for f, a in cases:
        want = np.stack([f(v) for v in a])
        np.testing.assert_array_equal(fg.vmap(f)(a), want)
        np.testing.assert_array_equal(fg.jit(f)(a[0]), f(a[0]))


def test_submodules_keep_their_names():
    # fg.lax.dot and fg.lax.reduce stay fungrad's submodules (jax.lax's functions of those
    # names are not defined over them); every new name is in __all__
    import types
    assert isinstance(lax.dot, types.ModuleType) and isinstance(lax.reduce, types.ModuleType)
    for name in list(ACCEPTS) + ["round", "RoundingMethod", "sort", "sort_key_val", "select",
                                 "reduce_and", "reduce_or", "reduce_xor", "cumlogsumexp",
                                 "full", "full_like", "tile", "split", "collapse",
                                 "batch_matmul", "reduce_precision"]:
        assert name in lax.__all__, name


@pytest.mark.parametrize("run", RUNS, ids=RUN_IDS)
def test_reduce_precision_matches_xla(run):
    # JAX 0.10.2's values: round to nearest even in the narrower format; beyond its range
    # +-inf; a narrower exponent flushes values below its smallest normal to +-0
    rp = lambda x, e, m: run(lambda x: lax.reduce_precision(x, e, m), x)  # noqa: E731
    out = rp(np.array([1.0 + 2 ** -20, 1e300, 3e-40, -3e-40, np.nan, -np.inf]), 8, 7)
    np.testing.assert_array_equal(out, [1., np.inf, 0., -0., np.nan, -np.inf])
    assert np.signbit(out[3])
    out = rp(np.float32(1.3333), 5, 10)
    assert out.dtype == np.float32 and out == np.float32(1.3330078)
    h = np.array([1.5, 2.5, 3.5, -2.5, 65504.0, 6e-8], np.float16)
    np.testing.assert_array_equal(rp(h, 5, 2), np.array([1.5, 2.5, 3.5, -2.5, np.inf, 0.],
                                                        np.float16))
    np.testing.assert_array_equal(rp(h, 8, 0), np.array([2., 2., 4., -2., np.inf, 0.],
                                                        np.float16))
    b = np.array([1.5, 65536.0, 6e-8, 3e-39], bf16)
    out = rp(b, 5, 10)
    assert out.dtype == bf16
    np.testing.assert_array_equal(out.astype(float), [1.5, np.inf, 0., 0.])
    x = np.array([0.1, -3.7])
    np.testing.assert_array_equal(rp(x, 11, 52), x)
    g = fg.grad(lambda x: fnp.sum(lax.reduce_precision(x, 8, 7)))(x)  # (JAX: the identity's)
    np.testing.assert_array_equal(g, [1., 1.])
    with pytest.raises(TypeError, match=r"reduce_precision: operand is i64\[2\]"):
        lax.reduce_precision(np.array([1, 2]), 8, 7)
