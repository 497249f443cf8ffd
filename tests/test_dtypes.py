"""Dtypes through every transform: float16 and bfloat16 (ml_dtypes) keep their dtype and get
real (non-zero) derivatives, weak Python scalars never promote, and std/hypot have finite
derivatives where they are norms at zero (issue 8, items 1.7 and 1.8)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
NARROW = [F16, BF16]


def f(x):
    """Elementwise ops with weak scalars, a mean (divides by a Python float), a matmul."""
    y = fnp.sin(x) * x + x * 2.5 - 1.0
    return fnp.mean(y / 3.0) + fnp.sum(fnp.tanh(x) ** 2) + fnp.dot(x, x)


def f_ref(x):  # f and its gradient in float64
    y = np.sin(x) * x + x * 2.5 - 1.0
    value = np.mean(y / 3.0) + np.sum(np.tanh(x) ** 2) + x @ x
    grad = ((np.cos(x) * x + np.sin(x) + 2.5) / (3.0 * x.size)
            + 2 * np.tanh(x) * (1 - np.tanh(x) ** 2) + 2 * x)
    return value, grad


X = np.array([0.25, -0.5, 0.75, 1.0])
TRANSFORMS = {  # name -> (function of x, the float64 value it should approximate)
    "grad": (lambda x: fg.grad(f)(x), lambda x: f_ref(x)[1]),
    "jit_grad": (lambda x: fg.jit(fg.grad(f))(x), lambda x: f_ref(x)[1]),
    "vmap_grad": (lambda x: fg.vmap(fg.grad(f))(np.stack([x, x]))[1],
                  lambda x: f_ref(x)[1]),
    "jvp": (lambda x: fg.jvp(f, (x,), (np.ones_like(x),))[1],
            lambda x: np.sum(f_ref(x)[1])),
    "vjp": (lambda x: fg.vjp(f, x)[1](np.ones((), x.dtype))[0], lambda x: f_ref(x)[1]),
    "linearize": (lambda x: fg.linearize(f, x)[1](np.ones_like(x)),
                  lambda x: np.sum(f_ref(x)[1])),
    "jit": (lambda x: fg.jit(f)(x), lambda x: f_ref(x)[0]),
    "vmap": (lambda x: fg.vmap(f)(np.stack([x, x]))[0], lambda x: f_ref(x)[0]),
    "jacrev": (lambda x: fg.jacrev(f)(x), lambda x: f_ref(x)[1]),
    "jacfwd": (lambda x: fg.jacfwd(f)(x), lambda x: f_ref(x)[1]),
    "hessian_diag": (lambda x: np.diagonal(fg.hessian(lambda x: fnp.sum(x ** 3))(x)),
                     lambda x: 6 * x),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_narrow_float_keeps_dtype_and_gets_real_derivatives(name, dtype):
    fn, ref = TRANSFORMS[name]
    x = X.astype(dtype)
    got = np.asarray(fn(x))
    assert got.dtype == dtype, f"{name} on {dtype} gave {got.dtype}"
    want = ref(x.astype(np.float64))
    assert np.all(got != 0)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=5e-2, atol=5e-2)


@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_narrow_float_with_where_relu_and_per_example_outer_products(dtype):
    """np.where(p, bfloat16, 0.0) is float64 in NumPy and per-example weight gradients go
    through batched outer products (np.einsum rejects bfloat16)."""
    w = np.linspace(-1, 1, 6).reshape(2, 3).astype(dtype)
    xs = np.linspace(-1, 1, 8).reshape(4, 2).astype(dtype)

    def loss(w, x):
        h = fnp.where(x @ w > 0, x @ w, 0.0)
        return fnp.sum(h * h)
    per_example = fg.vmap(fg.grad(loss), in_axes=(None, 0))(w, xs)
    assert per_example.dtype == dtype and per_example.shape == (4, 2, 3)
    for i in range(4):
        want = fg.grad(loss)(w.astype(np.float32), xs[i].astype(np.float32))
        np.testing.assert_allclose(per_example[i].astype(np.float32), want, atol=5e-2)
    assert fg.jit(fg.grad(loss))(w, xs[0]).dtype == dtype


def test_arctan2_with_a_python_float_keeps_float32():
    x32 = np.array([0.1, 0.5, -1.0, 2.0], np.float32)
    assert fg.grad(lambda x: fnp.sum(fnp.arctan2(x, 1.91)))(x32).dtype == F32
    assert fg.grad(lambda x: fnp.sum(fnp.arctan2(1.91, x)))(x32).dtype == F32


@pytest.mark.parametrize("order", ["x_first", "x_second"])
def test_jvp_of_vmap_of_grad_of_arctan2_with_a_python_float(order):
    """The derivative squared the weak 1.91 with a primitive: a strong float64 0-d array,
    which vmap's broadcast of unbatched operands then indexed past its rank."""
    def h(x):
        return fnp.sum(fnp.arctan2(x, 1.91) if order == "x_first" else fnp.arctan2(1.91, x))
    x = np.array([[0.1, 0.5, -1.0], [2.0, 0.3, 0.7]], np.float32)
    t = np.ones_like(x)
    out, t_out = fg.jvp(fg.vmap(fg.grad(h)), (x,), (t,))
    assert out.dtype == F32 and t_out.dtype == F32
    x64 = x.astype(np.float64)
    a, b = (x64, 1.91) if order == "x_first" else (1.91, x64)
    r2 = a * a + b * b
    grad = b / r2 if order == "x_first" else -a / r2
    second = -2 * a * b / r2 ** 2 if order == "x_first" else 2 * a * b / r2 ** 2
    np.testing.assert_allclose(out, grad, rtol=1e-5)
    np.testing.assert_allclose(t_out, second, rtol=1e-4)


WEAK_CASES = [(F32, lambda x: x * 2.5), (F16, lambda x: x ** 2), (BF16, lambda x: x + 1.0),
              (BF16, lambda x: 3 * x - 0.5), (F16, lambda x: fnp.maximum(x, 0.5)),
              (BF16, lambda x: fnp.where(x > 0.0, x, 0.0)), (BF16, lambda x: x / 3.0)]


@pytest.mark.parametrize("dtype,op", WEAK_CASES, ids=lambda v: str(v) if
                         isinstance(v, np.dtype) else "")
def test_weak_python_scalars_never_promote(dtype, op):
    x = np.array([0.25, 0.75, 1.5], dtype)
    scalar = lambda x: fnp.sum(op(x))
    results = {
        "eager_traced": fg.jvp(op, (x,), (np.ones_like(x),)),
        "grad": fg.grad(scalar)(x), "jit": fg.jit(op)(x), "vmap": fg.vmap(op)(x),
        "jit_grad": fg.jit(fg.grad(scalar))(x), "vmap_grad": fg.vmap(fg.grad(op))(x),
        "vjp": fg.vjp(op, x)[1](np.ones_like(x)), "hessian": fg.hessian(scalar)(x),
        "jit_vmap": fg.jit(fg.vmap(op))(x[:, None]),
    }
    for name, r in results.items():
        for leaf in fg.tree.tree_leaves(r):
            assert np.asarray(leaf).dtype == dtype, f"{name}: {np.asarray(leaf).dtype}"


def test_result_type_table():
    assert fnp.result_type(BF16, 1.0) == BF16
    assert fnp.result_type(np.ones(2, BF16), 2) == BF16
    assert fnp.result_type(BF16, F16) == F32  # as in JAX; NumPy raises
    assert fnp.promote_types(BF16, F16) == F32
    assert fnp.result_type(BF16, F32) == F32
    assert fnp.result_type(BF16, np.int8) == BF16
    assert fnp.result_type(F16, 1.0) == F16
    assert fnp.result_type(np.float32, 2.5) == F32
    assert fnp.result_type(np.ones(2, np.float32), np.float64(3.0)) == np.float64


def test_bfloat16_with_float16_promotes_to_float32_under_transforms():
    x, y = np.ones(3, BF16), np.ones(3, F16)
    g = fg.grad(lambda x, y: fnp.sum(x * y), argnums=(0, 1))(x, y)
    assert [a.dtype for a in g] == [BF16, F16]
    assert fg.jit(lambda x, y: x + y)(x, y).dtype == F32


def test_convert_element_type_from_bfloat16_carries_the_tangent():
    """The cast's JVP tested np.issubdtype(bfloat16, np.inexact), which is False."""
    x = np.array([1.0, 2.0], BF16)
    g = fg.grad(lambda x: fnp.sum(x.astype(np.float32) ** 2))(x)
    assert g.dtype == BF16
    np.testing.assert_array_equal(g.astype(np.float32), [2.0, 4.0])


@pytest.mark.parametrize("pair", [(np.float32, np.float64), (BF16, F16)], ids=str)
def test_jacobians_of_leaves_of_different_dtypes(pair):
    x, y = np.ones(2, pair[0]), np.full(2, 2.0, pair[1])
    h = lambda x, y: fnp.sum(x) * fnp.sum(y)
    for jac in (fg.jacfwd, fg.jacrev):
        jx, jy = jac(h, argnums=(0, 1))(x, y)
        np.testing.assert_allclose(np.asarray(jx, np.float64), [4.0, 4.0])
        np.testing.assert_allclose(np.asarray(jy, np.float64), [2.0, 2.0])
    hxx = fg.hessian(h, argnums=(0, 1))(x, y)[0][1]
    np.testing.assert_allclose(np.asarray(hxx, np.float64), np.ones((2, 2)))


def test_check_grads_accepts_bfloat16():
    fg.test_util.check_grads(lambda x: fnp.sin(x) * 2.0, (np.array([0.5, 1.0], BF16),))


def test_core_does_not_import_ml_dtypes():
    code = ("import sys; sys.modules['ml_dtypes'] = None\n"
            "import numpy as np, fungrad as fg, fungrad.numpy as fnp\n"
            "assert fg.grad(lambda x: fnp.std(x) + fnp.sum(x * 2.5))(np.ones(3, np.float16))"
            ".dtype == np.float16")
    root = Path(__file__).resolve().parent.parent  # this checkout's fungrad, not an install
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)


# ----------------------------------------------------------------------------- norms at zero
STD_CASES = {  # name -> (function, input)
    "std_of_one_element": (fnp.std, np.array([3.0])),
    "std_over_a_batch_of_one": (lambda x: fnp.sum(fnp.std(x, axis=0)), np.ones((1, 3))),
    "std_of_a_constant_vector": (fnp.std, np.full(4, 2.0)),
    "std_ddof1_constant": (lambda x: fnp.std(x, ddof=1), np.full(3, -1.0)),
    "std_keepdims_rows": (lambda x: fnp.sum(fnp.std(x, axis=1, keepdims=True)),
                          np.array([[1.0, 1.0], [1.0, 3.0]])),
}


@pytest.mark.parametrize("name", sorted(STD_CASES))
def test_std_derivative_is_finite_where_the_variance_is_zero(name):
    fn, x = STD_CASES[name]
    with np.errstate(all="raise"):  # no 0/0 anywhere on the way
        for g in (fg.grad(fn)(x), fg.jit(fg.grad(fn))(x), fg.hessian(fn)(x),
                  fg.jvp(fn, (x,), (np.ones_like(x),))[1]):
            assert np.all(np.isfinite(g)), g
    g = fg.grad(fn)(x)
    if name == "std_keepdims_rows":  # row 0 is constant: 0; row 1 is (x - mean) / (n std)
        np.testing.assert_allclose(g, [[0.0, 0.0], [-0.5, 0.5]])
    else:
        np.testing.assert_array_equal(g, np.zeros_like(x))


def test_std_value_and_derivative_away_from_zero_unchanged():
    x = np.array([1.0, 2.0, 4.0])
    assert fnp.std(x) == np.std(x)
    np.testing.assert_allclose(fg.jit(fnp.std)(x), np.std(x), rtol=1e-15)
    np.testing.assert_allclose(fg.grad(fnp.std)(x), (x - x.mean()) / (3 * np.std(x)))
    assert np.isnan(fg.jit(fnp.std)(np.array([1.0, np.nan])))


def test_var_derivative_at_zero():
    for x in (np.array([3.0]), np.full(3, 2.0)):
        np.testing.assert_array_equal(fg.grad(fnp.var)(x), np.zeros_like(x))
        assert fg.grad(fnp.var)(x.astype(BF16)).dtype == BF16


def test_hypot_derivative_at_the_origin_is_zero():
    h = lambda x, y: fnp.sum(fnp.hypot(x, y))
    with np.errstate(all="raise"):
        gx, gy = fg.grad(h, argnums=(0, 1))(np.array([0.0, 3.0]), np.array([0.0, 4.0]))
    np.testing.assert_allclose(gx, [0.0, 0.6])
    np.testing.assert_allclose(gy, [0.0, 0.8])
    np.testing.assert_array_equal(fg.grad(lambda x: fnp.sum(fnp.hypot(x, 0.0)))(
        np.array([0.0, -2.0])), [0.0, -1.0])


@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_mean_and_var_of_narrow_floats_accumulate_in_float32(dtype):
    """A float16 sum of 10000 tens overflows (NumPy's float16 mean accumulates in float32);
    bfloat16 sums stall at 256 ulps (4096 + 1 == 4096)."""
    x = np.full(10000, 10.0, dtype)
    for fn, want in ((fnp.mean, 10.0), (fnp.var, 0.0), (fnp.std, 0.0)):
        for got in (fg.jit(fn)(x), fg.jvp(fn, (x,), (x,))[0]):
            assert got.dtype == dtype and float(got) == want, (fn.__name__, got)
    g = fg.grad(fnp.mean)(x)
    assert g.dtype == dtype
    np.testing.assert_allclose(g.astype(np.float64), 1e-4, rtol=1e-2)


def test_power_operator_with_a_python_scalar_follows_ndarrays_shortcuts():
    # ndarray's ** takes np.square for 2 (bools give int8), np.reciprocal for -1 and
    # np.sqrt for 0.5 on inexact arrays: values differ from np.power's at infinities
    cases = [np.array([True, False]), np.int8([2, -3]), np.float32([2, 0]),
             np.array([np.inf + 0j, 0j, 2 + 1j]), np.array([-0.0, -np.inf, 4.0]), np.uint8([3, 200])]
    for a in cases:
        for p in (2, -1, 0.5, 3, 2.0, -1.0):
            with np.errstate(all="ignore"):
                try:
                    want = a ** p
                except (ValueError, OverflowError) as e:  # integers to negative powers
                    with pytest.raises(type(e)):
                        fg.jit(lambda a: a ** p)(a)
                    continue
                got = fg.jit(lambda a: a ** p)(a)
            assert got.dtype == want.dtype, (a.dtype, p)
            np.testing.assert_array_equal(got, want)
    assert fg.grad(lambda x: x ** -1)(2.0) == -0.25 and fg.grad(lambda x: x ** 0.5)(4.0) == 0.25


def test_weak_values_promoted_together_stay_weak_under_jit():
    # a traced Python int times a Python float is a weak float, as 1 * 0.5 is eagerly: a
    # float32 array times it stays float32 (it was strong float64 under jit)
    f = lambda a, x: x * (a * 0.5)  # noqa: E731
    x = np.ones(2, np.float32)
    assert f(1, x).dtype == fg.jit(f)(1, x).dtype == np.float32
    assert fg.jit(fg.grad(lambda x, a: fnp.sum(f(a, x))))(x, 1).dtype == np.float32
    # fori_loop's weak counter: c + i * 0.5 keeps a float32 carry (JAX's result)
    out = fg.lax.fori_loop(0, 3, lambda i, c: c + i * 0.5, np.float32(0))
    assert out.dtype == np.float32 and out == 1.5
    # a weak value meeting a strong array still takes the array's dtype; x.astype is strong
    assert fg.jit(lambda a: (a * 0.5).astype(np.float64) * x)(1).dtype == np.float64


_X = (np.arange(9.0).reshape(3, 3) / 9 + 0.5)
EAGER_NUMPY_SHORTCUTS = {  # functions whose eager path is NumPy's own (not a ufunc)
    "gradient": lambda x, y: fnp.gradient(x, axis=0),
    "i0": lambda x, y: fnp.i0(x),
    "linspace": lambda x, y: fnp.linspace(x, y, 3),
    "logspace": lambda x, y: fnp.logspace(x, y, 3),
    "unwrap": lambda x, y: fnp.unwrap(x * 4),
    "sinc": lambda x, y: fnp.sinc(x),
    "trapezoid": lambda x, y: fnp.trapezoid(x),
    "histogramdd_edges": lambda x, y: fnp.histogramdd(x, bins=2)[1][0],
    "percentile": lambda x, y: fnp.percentile(x, y * 50),
    "matmul": lambda x, y: fnp.matmul(x, y),
    "einsum": lambda x, y: fnp.einsum("ij,jk->ik", x, y),   # (np.einsum refused bfloat16)
    "vecdot": lambda x, y: fnp.vecdot(x, y),
    "matvec": lambda x, y: fnp.matvec(x, y[0]),
    "vecmat": lambda x, y: fnp.vecmat(x[0], y),
    "linalg.vecdot": lambda x, y: fnp.linalg.vecdot(x, y),
    "linalg.norm": lambda x, y: fnp.linalg.norm(x),
    "linalg.matrix_power": lambda x, y: fnp.linalg.matrix_power(x, 2),
}


@pytest.mark.parametrize("name", sorted(EAGER_NUMPY_SHORTCUTS))
def test_eager_bfloat16_keeps_its_dtype_as_float16_and_jit_do(name):
    # NumPy's non-ufunc functions compute bfloat16 in float32 / float64 (i0, linspace, ...),
    # and geomspace raised DTypePromotionError; fungrad's eager calls now return bfloat16,
    # as under jit (and as NumPy keeps float16), with float32's values to bfloat16 precision
    f = EAGER_NUMPY_SHORTCUTS[name]
    x, y = _X.astype(BF16), _X[::-1].astype(BF16)
    eager, jitted = np.asarray(f(x, y)), np.asarray(fg.jit(f)(x, y))
    assert eager.dtype == jitted.dtype == BF16
    assert np.asarray(f(x.astype(np.float16), y.astype(np.float16))).dtype == np.float16
    want = np.asarray(f(x.astype(np.float32), y.astype(np.float32)))
    np.testing.assert_allclose(eager.astype(np.float32), want, rtol=3e-2, atol=1e-2)
    np.testing.assert_array_equal(eager, jitted)


def test_eager_bfloat16_geomspace_promotes_like_float16():
    x = np.array([1.0, 2.0], BF16)
    out = fnp.geomspace(x, x * 8, 4)  # (NumPy raised DTypePromotionError)
    assert out.dtype == np.float64 == fnp.geomspace(x.astype(np.float16), 8 * x.astype(
        np.float16), 4).dtype
    np.testing.assert_allclose(out[:, 0], [1.0, 2.0, 4.0, 8.0])


def test_eager_bfloat16_linalg_refuses_as_under_jit():
    # NumPy's linalg computed eager bfloat16 in float64 (inv, det, solve, ...), while traced
    # calls refuse it as NumPy refuses float16: eager calls now refuse it too
    a = (np.eye(2) * 2).astype(BF16)
    for f in (fnp.linalg.inv, fnp.linalg.det, fg.jit(fnp.linalg.inv)):
        with pytest.raises(TypeError, match="bfloat16 is unsupported in linalg"):
            f(a)
