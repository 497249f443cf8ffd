"""Argument handling and outputs of the transform APIs, from a differential sweep against
JAX 0.10.2 (argnums, has_aux, Python scalar arguments, aux values). Each test failed before
its fix; the expected values are JAX's."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

x32 = np.array([1.0, 2.0, 3.0], np.float32)


# ----------------------------------------------------------------------------- argnums

def test_argnums_accepts_numpy_integers():
    # before: TypeError "'numpy.int64' object is not iterable" (argnums from np.argmax etc.)
    f = lambda x, y: x * y
    assert fg.grad(f, argnums=np.int64(1))(2.0, 3.0) == 2.0
    g = fg.grad(f, argnums=(np.int32(0), np.int64(1)))(2.0, 3.0)
    assert g == (3.0, 2.0)
    np.testing.assert_allclose(fg.jacrev(f, argnums=np.int64(1))(x32, 3.0), x32)


@pytest.mark.parametrize("transform", [fg.grad, fg.value_and_grad, fg.jacfwd, fg.jacrev])
def test_argnums_past_the_arguments_is_a_type_error(transform):
    # JAX raises TypeError (too few positional arguments); fungrad raised only ValueError.
    # The error is both, so code catching either keeps working.
    f = lambda x, y=1.0: fnp.sum(x * y)
    with pytest.raises(TypeError, match=r"\(<lambda>\): argnums=1 is out of range"):
        transform(f, argnums=1)(x32, y=2.0)
    with pytest.raises(ValueError, match=r"argnums=\(0, 2\) is out of range"):
        transform(f, argnums=(0, 2))(x32, 2.0)


# ----------------------------------------------------------------------------- weak scalars

def test_python_float_argument_keeps_float32_math_float32():
    # A Python float argument is weak (x32 * 2.0 is float32, as without the transform and
    # under jit/vmap); the eager AD transforms made it a float64 array, so the value and the
    # other gradients came back float64 (JAX: float32; the scalar's own gradient float64).
    f = lambda a, b: fnp.sum(a * b)
    assert f(x32, 2.0).dtype == np.float32
    v, (ga, gb) = fg.value_and_grad(f, argnums=(0, 1))(x32, 2.0)
    assert (v.dtype, ga.dtype, gb.dtype) == (np.float32, np.float32, np.float64)
    np.testing.assert_allclose(ga, [2.0, 2.0, 2.0])
    assert gb == 6.0
    v, (ga, gb) = fg.value_and_grad(fg.jit(f), argnums=(0, 1))(x32, 2.0)
    assert (v.dtype, ga.dtype, gb.dtype) == (np.float32, np.float32, np.float64)


def test_python_scalar_primals_of_vjp_jvp_linearize_are_weak():
    # a Python int argument (not differentiated) promoted x32 to float64 as well
    h = lambda a, b, n: a * b * n
    y, f_vjp = fg.vjp(h, x32, 2.0, 3)
    assert y.dtype == np.float32
    ga, gb, gn = f_vjp(np.ones(3, np.float32))
    assert (ga.dtype, gb.dtype, gn.dtype) == (np.float32, np.float64, fg.float0)
    np.testing.assert_allclose(ga, [6.0, 6.0, 6.0])
    assert gb == 18.0
    t0 = np.zeros((), fg.float0)
    y, t = fg.jvp(h, (x32, 2.0, 3), (x32, 1.0, t0))
    assert (y.dtype, t.dtype) == (np.float32, np.float32)
    np.testing.assert_allclose(t, [9.0, 18.0, 27.0])
    y, f_jvp = fg.linearize(h, x32, 2.0, 3)
    t = f_jvp(x32, 1.0, t0)
    assert (y.dtype, t.dtype) == (np.float32, np.float32)
    np.testing.assert_allclose(t, [9.0, 18.0, 27.0])


def test_jacobians_of_python_float_argument():
    f = lambda a, b: a * b
    ja, jb = fg.jacfwd(f, argnums=(0, 1))(x32, 2.0)
    assert (ja.dtype, jb.dtype) == (np.float32, np.float32)  # (output tangents: float32)
    ja, jb = fg.jacrev(f, argnums=(0, 1))(x32, 2.0)
    assert (ja.dtype, jb.dtype) == (np.float32, np.float64)  # (cotangent of the scalar)
    np.testing.assert_allclose(jb, x32)
    # a Python int argument, not differentiated, left the function computing in float64
    assert fg.jacfwd(lambda a, n: a ** n * 2.0)(x32, 2).dtype == np.float32


def test_python_float_gradients_are_float64_arrays():
    # (a guard for the weak-scalar change: the gradients of Python scalars are unchanged)
    assert fg.grad(lambda b: b * b)(2.0).dtype == np.float64
    g = fg.grad(lambda b: (b * b).real)(2.0 + 1j)
    assert g.dtype == np.complex128 and g == 4.0 + 2j  # (df/dx - i df/dy, as JAX)
    assert fg.grad(lambda b: b * b, holomorphic=True)(2.0 + 1j) == 4.0 + 2j


# ----------------------------------------------------------------------------- aux

def test_aux_scalars_come_back_as_they_are():
    # Python and NumPy scalars in aux came back as 0-d arrays; JAX returns them unchanged
    # (aux is not differentiated). Arrays still come back as copies.
    c = np.ones(2)
    aux_of = lambda x: (1.0, np.float32(2.0), 3, "s", None, c, x * 2)
    g, aux = fg.grad(lambda x: (x * x, aux_of(x)), has_aux=True)(2.0)
    assert g == 4.0
    assert type(aux[0]) is float and type(aux[1]) is np.float32 and type(aux[2]) is int
    assert aux[3:5] == ("s", None)
    assert not np.shares_memory(aux[5], c) and type(aux[6]) is np.ndarray and aux[6] == 4.0
    _, _, aux = fg.jvp(lambda x: (x, {"n": 1, "f": 2.5}), (1.0,), (1.0,), has_aux=True)
    assert aux == {"n": 1, "f": 2.5} and type(aux["n"]) is int
    _, _, aux = fg.vjp(lambda x: (x, (1.0,)), 1.0, has_aux=True)
    assert type(aux[0]) is float


def test_jacfwd_has_aux_calls_the_function_once():
    # jacfwd called f a second time, eagerly, to get aux (side effects ran twice, and the
    # aux of a reduction was a NumPy scalar where jacrev gives a 0-d array)
    calls = []

    def f(x):
        calls.append(1)
        return x * 2.0, {"n": fnp.sum(x), "c": 1.0}
    jac, aux = fg.jacfwd(f, has_aux=True)(np.ones(3))
    assert len(calls) == 1
    np.testing.assert_allclose(jac, 2 * np.eye(3))
    assert type(aux["n"]) is np.ndarray and aux["n"] == 3.0 and aux["c"] == 1.0
    assert fg.jacfwd(lambda t: (np.ones(2), "aux"), has_aux=True)(()) == ((), "aux")


def test_values_computed_from_a_python_float_alone_stay_weak():
    # a * (b * b) with b a differentiated Python float: b * b is weak as b is (it was a
    # strong float64, making the float32 product float64; JAX keeps float32)
    x = np.ones(3, np.float32)
    f = lambda a, b: fnp.sum(a * (b * b))  # noqa: E731
    value, (ga, gb) = fg.value_and_grad(f, argnums=(0, 1))(x, 2.0)
    assert value.dtype == ga.dtype == np.float32 and gb.dtype == np.float64
    assert fg.jacfwd(f, argnums=1)(x, 2.0).dtype == np.float32
    np.testing.assert_allclose(gb, 4.0 * 3)
