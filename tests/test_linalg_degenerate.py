"""fnp.linalg derivatives at degenerate points: det at singular matrices (the adjugate),
svd(full_matrices=True) / qr(mode='complete') of non-square matrices, eig's second order.
Checked against central finite differences in float64 and JAX where it is installed."""
from __future__ import annotations

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

RNG = np.random.default_rng(7)


def _fd(f, x, eps=1e-6):
    """Central differences of f (any output shape) along each entry of x: (*out, *x)."""
    cols = []
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def _with_rank(n, rank, cplx=False):
    a = RNG.normal(size=(n, n)) + (1j * RNG.normal(size=(n, n)) if cplx else 0)
    u, s, vh = np.linalg.svd(a)
    s[rank:] = 0.0
    return (u * s) @ vh


def _adjugate(a):
    """Cofactors, one minor at a time (the definition)."""
    n = a.shape[0]
    cof = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            cof[i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if n > 1 else 1.0)
    return cof.T


@pytest.mark.parametrize("n,rank", [(1, 0), (3, 2), (4, 3), (4, 2), (4, 1), (3, 0), (4, 4)])
def test_det_gradient_is_the_adjugate_at_any_rank(n, rank):
    a = _with_rank(n, rank)
    want = _adjugate(a).T
    for grad in (fg.grad(fnp.linalg.det), fg.jit(fg.grad(fnp.linalg.det))):
        g = grad(a)
        assert np.isfinite(g).all()
        np.testing.assert_allclose(g, want, atol=1e-12)


@pytest.mark.parametrize("n,rank", [(3, 2), (4, 3), (4, 2), (3, 1), (3, 0)])
def test_det_second_order_at_singular_matrices(n, rank):
    """The Hessian at rank n-2 is nonzero (det's (n-2)-minors) though adj there is 0."""
    a = _with_rank(n, rank)
    h = fg.hessian(fnp.linalg.det)(a)
    np.testing.assert_allclose(h, _fd(lambda x: _adjugate(x).T, a), atol=1e-8)
    if rank == n - 2:
        assert np.abs(h).max() > 1e-3


def test_det_gradient_batched_and_complex_at_singular_matrices():
    a = np.stack([_with_rank(3, 2), _with_rank(3, 3), _with_rank(3, 1)])
    g = fg.vmap(fg.grad(fnp.linalg.det))(a)
    np.testing.assert_allclose(g, [_adjugate(x).T for x in a], atol=1e-12)
    z = _with_rank(3, 2, cplx=True)
    _, t = fg.jvp(fnp.linalg.det, (z,), (np.ones_like(z),))
    assert t == pytest.approx(np.sum(_adjugate(z).T * np.ones_like(z)), abs=1e-12)


def test_det_gradient_matches_jax_at_singular_matrices():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    for rank in (2, 1):
        a = _with_rank(3, rank)
        want = np.asarray(jax.grad(jax.numpy.linalg.det)(a))
        np.testing.assert_allclose(fg.grad(fnp.linalg.det)(a), want, atol=1e-12)


# ----------------------------------------------------------------------------- qr complete
def _jac_fd(f, a):
    return _fd(lambda x: np.asarray(f(x)), a)


@pytest.mark.parametrize("shape", [(4, 2), (5, 3), (3, 1), (2, 4, 2)])
@pytest.mark.parametrize("k", [0, 1], ids=["Q", "R"])
def test_qr_complete_of_tall_matrices_is_numpys_derivative(shape, k):
    """LAPACK's extra Q columns are a smooth function of a (its Householder product):
    forward and reverse derivatives equal NumPy's finite differences."""
    a = RNG.normal(size=shape)
    want = _jac_fd(lambda x: np.linalg.qr(x, "complete")[k], a)
    for jac in (fg.jacfwd, fg.jacrev):
        got = jac(lambda x: fnp.linalg.qr(x, "complete")[k])(a)
        np.testing.assert_allclose(got, want, atol=1e-8)


def test_qr_complete_complex_and_second_order():
    z = RNG.normal(size=(4, 2)) + 1j * RNG.normal(size=(4, 2))
    dz = RNG.normal(size=(4, 2)) + 1j * RNG.normal(size=(4, 2))
    t = fg.jvp(lambda z: fnp.linalg.qr(z, "complete")[0], (z,), (dz,))[1]
    eps = 1e-6
    want = (np.linalg.qr(z + eps * dz, "complete")[0]
            - np.linalg.qr(z - eps * dz, "complete")[0]) / (2 * eps)
    np.testing.assert_allclose(t, want, atol=1e-8)
    a = RNG.normal(size=(4, 2))
    f = lambda x: fnp.sum(fnp.linalg.qr(x, "complete")[0][:, 2:] ** 3)  # noqa: E731
    h = fg.hessian(f)(a)
    np.testing.assert_allclose(h, _fd(fg.grad(f), a), atol=1e-6)


def test_qr_complete_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    a = RNG.normal(size=(5, 2))
    want = np.asarray(jax.jacfwd(lambda x: jax.numpy.linalg.qr(x, mode="complete")[0])(a))
    got = fg.jacfwd(lambda x: fnp.linalg.qr(x, "complete")[0])(a)
    np.testing.assert_allclose(got, want, atol=1e-10)


# ----------------------------------------------------------------------------- svd full
def _svd_invariants(usv, k):
    """Functions of svd(full_matrices=True) that do not depend on the choice of the extra
    columns: the thin product, s, and the projectors onto the extra columns / rows."""
    u, s, vh = usv
    ue, ve = u[..., :, k:], vh[..., k:, :]
    return ((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], s,
            ue @ np.conj(np.swapaxes(ue, -1, -2)), np.conj(np.swapaxes(ve, -1, -2)) @ ve)


@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (5, 3), (2, 3, 5)])
@pytest.mark.parametrize("part", range(4))
def test_svd_full_matrices_of_non_square_matrices(shape, part):
    a = RNG.normal(size=shape)
    k = min(shape[-2:])
    want = _jac_fd(lambda x: _svd_invariants(np.linalg.svd(x), k)[part], a)
    for jac in (fg.jacfwd, fg.jacrev):
        got = jac(lambda x: _svd_invariants(fnp.linalg.svd(x), k)[part])(a)
        np.testing.assert_allclose(got, want, atol=1e-8)


@pytest.mark.parametrize("shape", [(4, 2), (2, 4)])
def test_svd_full_matrices_tangent_keeps_u_and_vh_unitary(shape):
    a, da = RNG.normal(size=shape), RNG.normal(size=shape)
    (u, _, vh), (du, _, dvh) = fg.jvp(lambda x: tuple(fnp.linalg.svd(x)), (a,), (da,))
    for q, dq in ((u, du), (vh.T, dvh.T)):
        skew = q.T @ dq
        np.testing.assert_allclose(skew, -skew.T, atol=1e-12)


def test_batched_product_over_an_empty_contraction():
    """x (..., 0) @ y (0, k) with leading dims (a jacfwd of an empty extra block of svd):
    zeros, not a reshape error."""
    x = np.ones((2, 0))
    np.testing.assert_array_equal(fg.jacfwd(lambda x: x @ x.T)(x), np.zeros((2, 2, 2, 0)))


# ----------------------------------------------------------------------------- eig
def _gauge_separated(n):
    """Real, a complex eigenvalue pair, each eigenvector's largest component clearly largest
    (LAPACK's gauge, that component real, is smooth there)."""
    d = np.zeros((n, n))
    d[0, 0] = d[1, 1] = 1.0
    d[0, 1], d[1, 0] = 1.2, -0.3
    if n == 3:
        d[2, 2] = -1.0
    p = np.eye(n) + 0.2 * np.random.default_rng(0).standard_normal((n, n))
    return p @ d @ np.linalg.inv(p)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("part", ["real", "imag"])
def test_eig_eigenvectors_second_order(n, part):
    a = _gauge_separated(n)
    f = lambda x: getattr(fnp, part)(fnp.linalg.eig(x)[1])  # noqa: E731
    first = fg.jacfwd(f)(a)
    np.testing.assert_allclose(first, _fd(lambda x: getattr(np, part)(np.linalg.eig(x)[1]), a),
                               atol=1e-8)
    for outer in (fg.jacfwd, fg.jacrev):
        np.testing.assert_allclose(outer(fg.jacfwd(f))(a), _fd(fg.jacfwd(f), a), atol=1e-7)
