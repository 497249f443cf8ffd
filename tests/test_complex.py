"""Complex numbers (issue 8, item 1.1): JAX's convention, NumPy's values.

grad of a real-valued f of complex z is df/dx - i df/dy (grad(sum |z|**2) == 2 conj(z));
a complex output needs holomorphic=True, which gives f'(z).
"""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

Z = np.array([1.0 + 2.0j, -0.5 + 0.3j, 2.0 - 1.5j])


def _fd(f, z, t, eps=1e-6):
    return (np.asarray(f(z + eps * t)) - np.asarray(f(z - eps * t))) / (2 * eps)


# ----------------------------------------------------------------------------- the issue's examples
def test_jit_abs_of_complex_is_the_modulus():
    out = fg.jit(fnp.abs)(np.array([3 + 4j]))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [5.0])


def test_abs_of_complex_under_vmap_and_jvp():
    np.testing.assert_array_equal(fg.vmap(fnp.abs)(np.array([3 + 4j])), [5.0])
    t = np.array([1.0 - 2.0j, 0.5j, 1.0])
    y, dy = fg.jvp(fnp.abs, (Z,), (t,))
    np.testing.assert_allclose(y, np.abs(Z), rtol=1e-15)
    assert dy.dtype == np.float64
    np.testing.assert_allclose(dy, np.real(np.conj(Z) * t) / np.abs(Z), rtol=1e-12)
    np.testing.assert_allclose(dy, _fd(np.abs, Z, t), rtol=1e-6)


def test_grad_of_abs_of_complex():
    g = fg.grad(lambda z: fnp.sum(fnp.abs(z)))(Z)
    np.testing.assert_allclose(g, np.conj(Z) / np.abs(Z), rtol=1e-12)


@pytest.mark.parametrize("name", ["var", "std"])
def test_jit_var_std_of_complex_match_numpy(name):
    x = np.array([[1 + 2j, 3 - 1j, 0.5j], [2.0, -1 + 1j, 4 - 2j]])
    f = getattr(fnp, name)
    for kw in ({}, {"axis": 0}, {"axis": 1, "ddof": 1}, {"axis": 1, "keepdims": True}):
        want = getattr(np, name)(x, **kw)
        got = fg.jit(lambda x: f(x, **kw))(x)
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-13)


def test_grad_of_var_of_complex():
    # var = mean |z - m|^2, so its gradient (df/dx - i df/dy) is 2 conj(z - m) / n
    g = fg.grad(fnp.var)(Z)
    np.testing.assert_allclose(g, 2 * np.conj(Z - Z.mean()) / Z.size, rtol=1e-12)


def test_jit_vdot_conjugates_its_first_argument():
    b = np.array([0.5 - 1j, 2.0 + 0.1j, -1j])
    np.testing.assert_allclose(fg.jit(fnp.vdot)(Z, b), np.vdot(Z, b), rtol=1e-14)
    np.testing.assert_allclose(fg.jit(fnp.vdot)(Z.reshape(3, 1), b), np.vdot(Z, b), rtol=1e-14)


def test_grad_of_sum_abs_squared_is_twice_the_conjugate():
    f = lambda z: fnp.sum(fnp.abs(z) ** 2)  # noqa: E731
    np.testing.assert_allclose(fg.grad(f)(Z), 2 * np.conj(Z), rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(f))(Z), 2 * np.conj(Z), rtol=1e-12)
    g = fg.grad(lambda z: fnp.sum((z * z.conj()).real))(Z)
    np.testing.assert_allclose(g, 2 * np.conj(Z), rtol=1e-12)


def test_grad_of_complex_output_raises_naming_holomorphic():
    with pytest.raises(TypeError, match=r"holomorphic=True.*fnp\.real"):
        fg.grad(lambda x: x * (1 + 0.2j))(1.0)
    with pytest.raises(TypeError, match="holomorphic=True"):
        fg.grad(lambda z: fnp.sum(z ** 2))(Z)
    with pytest.raises(TypeError, match="holomorphic=True"):
        fg.value_and_grad(lambda z: fnp.sum(z ** 2))(Z)


def test_real_input_through_complex_intermediate():
    np.testing.assert_allclose(fg.grad(lambda x: fnp.real(x * (1 + 0.2j)))(1.0), 1.0)
    g = fg.grad(lambda x: fnp.imag(x * (1 + 0.2j)))(1.0)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, 0.2, rtol=1e-15)
    g = fg.grad(lambda x: fnp.abs(fnp.exp(1j * x) * (2 + x)))(0.7)  # |e^{ix}(2 + x)| = 2 + x
    np.testing.assert_allclose(g, 1.0, rtol=1e-12)


# ----------------------------------------------------------------------------- holomorphic
@pytest.mark.parametrize("f,df", [(lambda z: z ** 3, lambda z: 3 * z ** 2),
                                  (fnp.sin, np.cos), (fnp.exp, np.exp),
                                  (lambda z: fnp.log(z) * z, lambda z: np.log(z) + 1)])
def test_holomorphic_grad_is_the_complex_derivative(f, df):
    z = 0.7 - 1.3j
    np.testing.assert_allclose(fg.grad(f, holomorphic=True)(z), df(z), rtol=1e-12)
    v, g = fg.value_and_grad(f, holomorphic=True)(z)
    np.testing.assert_allclose(g, df(z), rtol=1e-12)
    np.testing.assert_allclose(fg.jit(fg.grad(f, holomorphic=True))(np.asarray(z)), df(z),
                               rtol=1e-12)


def test_holomorphic_needs_complex_inputs_and_outputs():
    with pytest.raises(TypeError, match=r"holomorphic=True\) requires complex inputs"):
        fg.grad(lambda x: x * 2.0, holomorphic=True)(1.0)
    with pytest.raises(TypeError, match="return a complex value"):
        fg.grad(lambda z: fnp.abs(z), holomorphic=True)(1j)


def test_jacobians_with_holomorphic():
    f = lambda z: z ** 3 + 2 * z  # noqa: E731
    want = np.diag(3 * Z ** 2 + 2)
    np.testing.assert_allclose(fg.jacfwd(f, holomorphic=True)(Z), want, rtol=1e-12)
    np.testing.assert_allclose(fg.jacrev(f, holomorphic=True)(Z), want, rtol=1e-12)
    np.testing.assert_allclose(fg.hessian(lambda z: fnp.sum(z ** 3), holomorphic=True)(Z),
                               np.diag(6 * Z), rtol=1e-12)


def test_jacobians_without_holomorphic_follow_jax():
    # jacfwd pushes a real basis: complex inputs need holomorphic=True
    with pytest.raises(TypeError, match="holomorphic=True"):
        fg.jacfwd(fnp.sin)(Z)
    # a real -> complex function has a forward Jacobian ...
    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(fg.jacfwd(lambda x: fnp.exp(1j * x))(x),
                               np.diag(1j * np.exp(1j * x)), rtol=1e-12)
    # ... but reverse mode needs a real output
    with pytest.raises(TypeError, match="holomorphic=True"):
        fg.jacrev(lambda x: fnp.exp(1j * x))(x)
    # rows of jacrev for a real output of complex inputs are grad's df/dx - i df/dy
    np.testing.assert_allclose(fg.jacrev(lambda z: fnp.abs(z) ** 2)(Z), np.diag(2 * np.conj(Z)),
                               rtol=1e-12)


# ----------------------------------------------------------------------------- ops
def test_jvp_of_complex_primal_has_complex_tangent():
    t = np.array([1.0 + 1.0j, -2.0j, 0.5])
    y, dy = fg.jvp(fnp.sin, (Z,), (t,))
    assert dy.dtype == np.complex128
    np.testing.assert_allclose(dy, np.cos(Z) * t, rtol=1e-12)
    y, dy = fg.jit(lambda z, t: fg.jvp(fnp.sin, (z,), (t,)))(Z, t)
    np.testing.assert_allclose(dy, np.cos(Z) * t, rtol=1e-12)


def test_sign_of_complex_has_a_derivative():
    # NumPy 2: sign(z) = z / |z|, which turns with the phase of z
    t = np.array([0.3 + 1.0j, 1.0, 1j])
    _, dy = fg.jvp(fnp.sign, (Z,), (t,))
    np.testing.assert_allclose(dy, _fd(np.sign, Z, t), rtol=1e-6, atol=1e-9)


def test_parts_and_methods():
    z = fg.jit(lambda z: (z.real, z.imag, z.conj(), z.conjugate(), fnp.real(2.0 * z.real)))(Z)
    for got, want in zip(z, (Z.real, Z.imag, Z.conj(), Z.conj(), 2 * Z.real)):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype
    np.testing.assert_array_equal(fg.jit(fnp.imag)(np.ones(2)), np.zeros(2))
    for out in (fg.jit(fnp.real)(Z), fg.jvp(fnp.real, (Z,), (Z,))[0]):  # fresh memory
        assert not np.shares_memory(out, Z)


def test_mixed_real_and_complex_products_promote():
    a = np.arange(6.0).reshape(2, 3)
    b = np.array([[1 + 1j, 2.0], [0.5j, -1.0], [3.0, 1 - 2j]])
    np.testing.assert_allclose(fg.jit(fnp.matmul)(a, b), a @ b, rtol=1e-14)
    np.testing.assert_allclose(fg.jit(lambda a, b: fnp.einsum("ij,jk->ik", a, b))(a, b), a @ b,
                               rtol=1e-14)
    # d/da Re(sum(a @ b)) = Re(b) summed over columns; d/db (real pairing) = sum of a's rows
    ga, gb = fg.grad(lambda a, b: fnp.real(fnp.sum(a @ b)), argnums=(0, 1))(a, b)
    assert ga.dtype == np.float64 and gb.dtype == np.complex128
    np.testing.assert_allclose(ga, np.broadcast_to(b.real.sum(1), (2, 3)), rtol=1e-14)
    np.testing.assert_allclose(gb, np.broadcast_to(a.sum(0)[:, None], (3, 2)), rtol=1e-14)


def test_max_min_of_complex_are_lexicographic_like_numpy():
    x = np.array([1 + 5j, 2 - 1j, 2 + 0.5j, -3j])
    np.testing.assert_array_equal(fg.jit(fnp.max)(x), np.max(x))
    np.testing.assert_array_equal(fg.jit(fnp.min)(x), np.min(x))


def test_ops_numpy_rejects_for_complex_raise_type_error():
    with pytest.raises(TypeError):
        fg.jit(fnp.floor)(Z)
    with pytest.raises(TypeError):
        fg.jit(fnp.arctan2)(Z, Z)
