"""The engine: worked examples, higher order, closures, control flow, pytrees, errors."""
import collections

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp


def test_worked_examples_first_order():
    assert fg.grad(lambda x: (3 * x + 2) ** 2)(1.0) == pytest.approx(30.0)
    assert fg.grad(lambda x: (3 * x + 1) ** 2)(2.0) == pytest.approx(42.0)
    assert fg.grad(lambda x: x ** 2 + 5 * x)(3.0) == pytest.approx(11.0)
    g = fg.grad(lambda x: fnp.sin(fnp.exp(x ** 2)))(0.5)
    assert g == pytest.approx(np.cos(np.exp(0.25)) * np.exp(0.25) * 2 * 0.5)
    assert float(g) == pytest.approx(0.3632, abs=1e-4)


def test_worked_example_three_arguments():
    L = lambda a, b, c: (a * b + c) ** 2
    grads = fg.grad(L, argnums=(0, 1, 2))(2.0, 3.0, 1.0)
    assert [float(g) for g in grads] == pytest.approx([42.0, 28.0, 14.0])


def test_bias_broadcast_gradient():
    x = np.arange(6.0).reshape(2, 3)
    b = np.array([0.1, 0.2, 0.3])
    g = fg.grad(lambda b: fnp.sum(x + b))(b)
    np.testing.assert_allclose(g, [2.0, 2.0, 2.0])
    assert g.shape == (3,) and g.dtype == np.float64


def test_softmax_vjp():
    def softmax(z):
        e = fnp.exp(z - fnp.max(z))
        return e / fnp.sum(e)
    z = np.array([0.3, -1.2, 2.0, 0.5])
    g = np.array([1.0, -2.0, 0.5, 3.0])
    s, f_vjp = fg.vjp(softmax, z)
    (ct,) = f_vjp(g)
    np.testing.assert_allclose(ct, s * (g - np.dot(s, g)), rtol=1e-12)


def test_python_control_flow_differentiates_per_branch():
    def f(x):
        if x > 0:
            return x ** 2
        return -3 * x
    assert fg.grad(f)(2.0) == pytest.approx(4.0)
    assert fg.grad(f)(-2.0) == pytest.approx(-3.0)


def test_higher_order():
    f = lambda x: x ** 4
    assert fg.grad(fg.grad(fg.grad(f)))(2.0) == pytest.approx(24 * 2.0)
    assert fg.grad(fg.grad(fg.grad(fg.grad(fnp.sin))))(0.7) == pytest.approx(np.sin(0.7))
    # jvp of grad = Hessian-vector product
    _, hv = fg.jvp(fg.grad(lambda x: fnp.sum(x ** 3)), (np.array([1.0, 2.0]),),
                   (np.array([1.0, 0.5]),))
    np.testing.assert_allclose(hv, 6 * np.array([1.0, 2.0]) * np.array([1.0, 0.5]))


def test_no_perturbation_confusion():
    # d/dx [x * d/dy (x * y)] = d/dx [x * x] = 2x
    f = lambda x: x * fg.grad(lambda y: x * y)(1.0)
    assert fg.grad(f)(3.0) == pytest.approx(6.0)
    # the classic: d/dx (x * d/dy (x + y)) at y=1 is 1
    g = lambda x: x * fg.grad(lambda y: x + y)(1.0)
    assert fg.grad(g)(5.0) == pytest.approx(1.0)
    # forward-mode version
    h = lambda x: fg.jvp(lambda y: x * y, (2.0,), (1.0,))[1]
    assert fg.jvp(h, (3.0,), (1.0,))[1] == pytest.approx(1.0)


def test_value_and_grad_has_aux_and_argnums():
    def loss(w, x):
        y = w * x
        return fnp.sum(y ** 2), {"pred": y}
    (v, aux), g = fg.value_and_grad(loss, has_aux=True)(2.0, np.array([1.0, 2.0]))
    assert v == pytest.approx(20.0)
    np.testing.assert_allclose(aux["pred"], [2.0, 4.0])
    assert isinstance(aux["pred"], np.ndarray)
    assert g == pytest.approx(2 * 2.0 * 5.0)
    g, aux = fg.grad(loss, argnums=1, has_aux=True)(2.0, np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [8.0, 16.0])


def test_pytree_arguments_and_outputs():
    Params = collections.namedtuple("Params", "w b")
    params = {"layer": Params(np.ones((2, 3)), np.zeros(3)), "scale": 2.0, "none": None}
    x = np.arange(4.0).reshape(2, 2)

    def loss(p):
        h = x @ p["layer"].w + p["layer"].b
        return fnp.sum(p["scale"] * h ** 2)
    g = fg.grad(loss)(params)
    assert isinstance(g["layer"], Params) and g["none"] is None
    h = x @ np.ones((2, 3))
    np.testing.assert_allclose(g["layer"].w, x.T @ (2 * 2.0 * h))
    np.testing.assert_allclose(g["layer"].b, (2 * 2.0 * h).sum(0))
    assert g["scale"] == pytest.approx(np.sum(h ** 2))


def test_gradient_dtype_follows_argument():
    x = np.ones(3, np.float32)
    g = fg.grad(lambda x: fnp.sum(x * 2.0))(x)
    assert g.dtype == np.float32
    assert fg.grad(lambda x: fnp.sum(x) * 1.5)(x).dtype == np.float32


def test_vjp_fn_reusable_and_linearize():
    y, f_vjp = fg.vjp(lambda x: fnp.sin(x) * x, np.array([0.1, 0.2]))
    a = f_vjp(np.ones(2))[0]
    b = f_vjp(np.ones(2))[0]
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(f_vjp(2 * np.ones(2))[0], 2 * a)
    y, f_jvp = fg.linearize(fnp.sin, np.array([0.0, 1.0]))
    np.testing.assert_allclose(f_jvp(np.array([2.0, 1.0])), [2.0, np.cos(1.0)])


def test_stop_gradient():
    assert fg.grad(lambda x: x * fg.stop_gradient(x))(3.0) == pytest.approx(3.0)


def test_symbolic_zeros_not_materialized():
    # an output that does not depend on the input has a zero gradient of the right shape
    g = fg.grad(lambda x, y: fnp.sum(y ** 2), argnums=0)(np.ones(3), np.ones(2))
    np.testing.assert_array_equal(g, np.zeros(3))
    ir = fg.make_ir(lambda x: fg.linearize(lambda x: x * 2.0, x)[1](x))(np.ones(2))
    assert "zeros" not in str(ir)


def test_outputs_are_plain_arrays_and_inputs_not_mutated():
    x = np.array([1.0, 2.0, 3.0])
    before = x.copy()
    v, g = fg.value_and_grad(lambda x: fnp.sum(x[np.array([0, 0, 2])] ** 2))(x)
    assert type(v) is np.ndarray and type(g) is np.ndarray
    np.testing.assert_array_equal(x, before)
    np.testing.assert_allclose(g, [4.0, 0.0, 6.0])


def test_numpy_functions_dispatch_on_tracers():
    g = fg.grad(lambda x: np.sum(np.sin(x) * np.ones(2)))(np.array([0.0, 1.0]))
    np.testing.assert_allclose(g, np.cos([0.0, 1.0]))


def test_make_ir_prints_equations_with_shapes():
    ir = fg.make_ir(lambda x, y: fnp.sum(fnp.sin(x) * y))(np.ones(3), np.ones(3))
    text = str(ir)
    assert "sin" in text and "mul" in text and "reduce_sum" in text and "f64[3]" in text
    np.testing.assert_allclose(ir(np.ones(3), np.ones(3)), 3 * np.sin(1.0))


# ------------------------------------------------------------------------------- errors
def test_error_grad_of_non_scalar():
    with pytest.raises(TypeError, match=r"grad\(f\).*scalar.*f64\[3\]"):
        def f(x):
            return x * 2
        fg.grad(f)(np.ones(3))


def test_error_grad_wrt_integer():
    def f(n, x):
        return x * n
    with pytest.raises(TypeError, match=r"grad\(f\).*argument 0.*int64"):
        fg.grad(f)(3, 2.0)
    assert fg.grad(f, argnums=1)(3, 2.0) == pytest.approx(3.0)


def test_error_matmul_shape_mismatch_under_grad():
    with pytest.raises(ValueError, match=r"matmul.*\(2, 3\).*\(4, 5\)"):
        fg.grad(lambda w: fnp.sum(w @ np.ones((4, 5))))(np.ones((2, 3)))


def test_error_broadcast_mismatch_under_grad():
    with pytest.raises(ValueError, match=r"add.*x has shape \(2, 3\).*y has shape \(4,\)"):
        fg.grad(lambda x: fnp.sum(x + np.ones(4)))(np.ones((2, 3)))


def test_error_traced_value_to_numpy():
    with pytest.raises(TypeError, match="fungrad.numpy"):
        fg.grad(lambda x: np.asarray(x).sum())(np.ones(2))


def test_error_bool_of_staged_value():
    def f(x):
        return x if x > 0 else -x
    with pytest.raises(TypeError, match="fnp.where"):
        fg.make_ir(f)(1.0)


def test_error_has_aux_not_a_pair():
    with pytest.raises(TypeError, match="has_aux"):
        fg.grad(lambda x: x, has_aux=True)(1.0)


@pytest.mark.parametrize("fn, pattern", [
    (lambda x: fnp.sum(x, axis=2), r"sum: axis 2 is out of bounds"),
    (lambda x: x[5].sum(), r"index 5 is out of bounds for axis 0 with size 2"),
    (lambda x: x.reshape(3, 3).sum(), r"reshape: cannot reshape array of shape \(2, 2\)"),
    (lambda x: fnp.concatenate([x, np.ones((3, 3))]).sum(),
     r"concatenate: .*array 0 has shape \(2, 2\) and array 1 has shape \(3, 3\)"),
    (lambda x: fnp.einsum("ij,jk->ik", x, np.ones((3, 3))).sum(),
     r"einsum 'ij,jk->ik': index 'j' has size 2 in operand 0 but size 3 in operand 1"),
    (lambda x: fnp.tensordot(x, np.ones((3, 3)), 1).sum(), r"tensordot: shapes \(2, 2\) and \(3, 3\)"),
])
def test_errors_name_function_and_shapes(fn, pattern):
    with pytest.raises((ValueError, IndexError), match=pattern):
        fg.grad(fn)(np.ones((2, 2)))


def test_error_tangent_and_cotangent_shapes():
    with pytest.raises(ValueError, match=r"jvp\(sin\): tangent 0 .* f64\[2\], tangent is f64\[3\]"):
        fg.jvp(fnp.sin, (np.ones(2),), (np.ones(3),))
    with pytest.raises(ValueError, match=r"vjp\(sin\): cotangent for output 0 has shape \(3,\)"):
        fg.vjp(fnp.sin, np.ones(2))[1](np.ones(3))
    with pytest.raises(ValueError, match=r"argnums=2 is out of range"):
        fg.grad(fnp.sin, argnums=2)(1.0)


def test_tangent_and_cotangent_dtypes_and_shapes_are_checked():
    x32 = np.ones(3, np.float32)
    with pytest.raises(TypeError, match=r"jvp\(sin\): tangent 0 has dtype float64, but its "
                                        r"primal has dtype float32.*astype\(np.float32\)"):
        fg.jvp(fnp.sin, (x32,), (np.ones(3),))
    # integer primals take float0 tangents (they have no derivative), as in JAX
    with pytest.raises(TypeError, match=r"tangent 1 has dtype float64, but its primal has dtype "
                                        r"int64, whose tangents have dtype float0.*fg.float0"):
        fg.jvp(lambda x, n: x * n, (1.0, np.int64(3)), (1.0, 1.0))
    out, t = fg.jvp(lambda x, n: x * n, (1.0, np.int64(3)), (1.0, np.zeros((), fg.float0)))
    assert (out, t) == (3.0, 3.0)
    # a Python scalar tangent is weak: it takes the 0-d primal's float dtype
    assert fg.jvp(fnp.sin, (np.float32(0.0),), (1.0,))[1].dtype == np.float32
    _, f_vjp = fg.vjp(fnp.sin, x32)
    with pytest.raises(TypeError, match=r"vjp\(sin\): cotangent for output 0 has dtype "
                                        r"float64, but its primal has dtype float32"):
        f_vjp(np.ones(3))
    assert f_vjp(np.ones(3, np.float32))[0].dtype == np.float32
    y, f_jvp = fg.linearize(lambda x: fnp.sin(x) * 2.0, np.ones(3))
    with pytest.raises(ValueError, match=r"linearize\(<lambda>\): tangent 0 has shape \(4,\), "
                                         r"but its primal has shape \(3,\)"):
        f_jvp(np.ones(4))
    with pytest.raises(TypeError, match=r"linearize\(<lambda>\): tangent 0 has dtype float32"):
        f_jvp(np.ones(3, np.float32))


def test_jacobians_of_mixed_dtype_arguments_and_outputs():
    # jacfwd / jacrev give each leaf a basis of its own tangent dtype
    x32, y = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0])
    jf = fg.jacfwd(lambda a, b: a * b, argnums=(0, 1))(x32, y)
    np.testing.assert_allclose(jf[0], np.diag(y))
    np.testing.assert_allclose(jf[1], np.diag(x32))
    jr = fg.jacrev(lambda a, b: (a * 2.0, b * 2.0), argnums=(0, 1))(x32, y)
    np.testing.assert_allclose(jr[0][0], 2 * np.eye(2))
    np.testing.assert_allclose(jr[1][1], 2 * np.eye(2))
    jr = fg.jacrev(lambda a: (a * 2.0, fnp.argmax(a)))(y)
    np.testing.assert_allclose(jr[0], 2 * np.eye(2))


def test_jacfwd_of_integer_and_bool_outputs_is_zeros_of_their_dtype():
    # as JAX's jacfwd (the blocks were float0 placeholder arrays, with no values)
    f = lambda a: (fnp.round(a).astype(np.int32), a * 2.0, a > 0)  # noqa: E731
    x = np.array([1.2, 2.7])
    for jac in (fg.jacfwd(f), fg.jit(fg.jacfwd(f))):
        ji, jf, jb = jac(x)
        assert ji.dtype == np.int32 and jb.dtype == np.bool_ and ji.shape == jb.shape == (2, 2)
        assert not ji.any() and not jb.any()
        np.testing.assert_allclose(jf, 2 * np.eye(2))
    assert fg.vmap(fg.jacfwd(f))(np.ones((3, 2)))[0].shape == (3, 2, 2)


def test_vjp_of_integer_input_gives_float0():
    _, f_vjp = fg.vjp(lambda n, x: x * n, 3, 2.0)
    ct_n, ct_x = f_vjp(1.0)
    assert ct_n.dtype == fg.float0 and ct_x == pytest.approx(3.0)


def test_max_ties_share_gradient_and_prod_with_zero():
    np.testing.assert_allclose(fg.grad(fnp.max)(np.array([1.0, 3.0, 3.0])), [0, 0.5, 0.5])
    np.testing.assert_allclose(fg.grad(fnp.prod)(np.array([2.0, 0.0, 3.0])), [0, 6, 0])


DTYPE_OPERANDS = [np.float32(1.5), np.ones(2, np.float32), np.ones(2, np.float64),
                  np.arange(2, dtype=np.int32), np.arange(2, dtype=np.int8), 2, 2.5, True,
                  np.array([True, False])]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # x // False divides by zero
@pytest.mark.parametrize("fname", ["add", "multiply", "divide", "power", "maximum", "less",
                                   "arctan2", "floor_divide"])
@pytest.mark.parametrize("x", [np.ones(2, np.float32), np.ones(2, np.float64),
                               np.ones(2, np.float16)])
def test_traced_dtype_promotion_matches_numpy(fname, x):
    """NEP 50 under tracing: a traced float operand meets every kind of other operand."""
    f = getattr(fnp, fname)
    for y in DTYPE_OPERANDS:
        with np.errstate(all="ignore"):
            want = getattr(np, fname)(x, y)
        got = fg.jvp(lambda x: f(x, y), (x,), (np.zeros_like(x),))[0]
        assert got.dtype == want.dtype, (fname, x.dtype, y, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-3)
        got_r = fg.jvp(lambda x: f(y, x), (x,), (np.zeros_like(x),))[0]
        assert got_r.dtype == getattr(np, fname)(y, x).dtype


def test_reductions_keep_numpy_dtypes_under_tracing():
    x32 = np.ones((2, 3), np.float32)
    for fn in (fnp.sum, fnp.mean, fnp.var, fnp.max, fnp.prod):
        out = fg.jvp(lambda x: fn(x, axis=1), (x32,), (x32,))[0]
        assert out.dtype == np.float32
    assert fg.grad(lambda x: fnp.mean(x).astype(np.float64))(x32).dtype == np.float32


def test_item_assignment_on_traced_value_is_a_clear_error():
    def f(x):
        x[0] = 1.0
        return x.sum()
    with pytest.raises(TypeError, match=r"immutable.*x\.at\[idx\]\.set\(v\)"):
        fg.grad(f)(np.ones(2))


def test_tracer_methods_and_properties():
    def f(x):
        assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and x.dtype == np.float64
        y = x.T.reshape(3, 2).astype(np.float32).reshape((6,))
        return (y.sum() + x.mean() + x.max() + x[0].min() + x.var() + x.std()).astype(float)
    check = fg.test_util.check_grads
    check(f, (np.arange(6.0).reshape(2, 3) / 7,), atol=1e-3, rtol=1e-3, eps=1e-3)
