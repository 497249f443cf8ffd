"""fg.scipy.linalg's SciPy-flavoured wrappers and special-matrix constructors: values vs
SciPy, derivatives vs finite differences, jit, vmap, float32 kept (the registry specs in
tests/checker/specs_scipy_linalg_more.py check every transform on drawn inputs)."""
import numpy as np
import pytest
import scipy.linalg as sl

import fungrad as fg
import fungrad.numpy as fnp
import fungrad.scipy.linalg as SL
from fungrad.test_util import check_grads

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
SPD = A @ A.T + np.eye(3)
B = RNG.standard_normal(3)


def _traced(f, *args):
    return fg.jvp(f, args, tuple(np.zeros_like(a) for a in args))[0]


@pytest.mark.parametrize("name,args,kw", [
    ("cholesky", (SPD,), {}), ("cholesky", (SPD,), {"lower": True}),
    ("det", (A,), {}), ("inv", (A,), {}),
    ("solve", (A, B), {}), ("solve", (SPD, B), {"assume_a": "pos"}),
    ("solve", (np.triu(SPD), B), {"assume_a": "sym"}),
    ("solve", (np.tril(SPD), B), {"assume_a": "her", "lower": True}),
    ("lu", (A,), {}), ("lu", (A,), {"permute_l": True}),
    ("qr", (A[:, :2],), {}), ("qr", (A[:, :2],), {"mode": "economic"}),
    ("qr", (A[:, :2],), {"mode": "r"}), ("polar", (A,), {}), ("polar", (A,), {"side": "left"}),
    ("expm_frechet", (0.3 * A, np.eye(3)), {}), ("solve_sylvester", (A, A.T, SPD), {}),
    ("toeplitz", (B, B[:2]), {}), ("hankel", (B,), {}), ("circulant", (B,), {}),
    ("companion", (B,), {}), ("fiedler", (B,), {}), ("fiedler_companion", (B,), {}),
    ("leslie", (B, B[:2]), {}), ("convolution_matrix", (B, 2), {"mode": "same"}),
])
def test_values_match_scipy_traced_and_jitted(name, args, kw):
    f = lambda *a: getattr(SL, name)(*a, **kw)
    want = getattr(sl, name)(*args, **kw)
    diff = [a for a in args if isinstance(a, np.ndarray)]
    g = lambda *d: f(*d, *args[len(diff):])
    for got in (_traced(g, *diff), fg.jit(g)(*diff)):
        for w, x in zip(fg.tree.tree_leaves(want), fg.tree.tree_leaves(got)):
            assert np.asarray(x).dtype == np.asarray(w).dtype
            np.testing.assert_allclose(x, w, rtol=1e-10, atol=1e-10)


def test_eigh_svd_schur_invariants():
    w, v = _traced(lambda a: SL.eigh(a), SPD)
    np.testing.assert_allclose(w, sl.eigh(SPD)[0], rtol=1e-12)
    np.testing.assert_allclose(SPD @ v, v * w, atol=1e-10)
    w, x = _traced(lambda a, b: SL.eigh(a, b), SPD, A @ A.T + 2 * np.eye(3))
    np.testing.assert_allclose(w, sl.eigh(SPD, A @ A.T + 2 * np.eye(3), eigvals_only=True))
    np.testing.assert_allclose(fnp.conj(x.T) @ (A @ A.T + 2 * np.eye(3)) @ x, np.eye(3),
                               atol=1e-10)
    u, s, vh = fg.jit(SL.svd)(A)
    np.testing.assert_allclose(s, sl.svdvals(A))
    np.testing.assert_allclose((u * s) @ vh, A, atol=1e-12)
    t, z = fg.jit(lambda a: SL.schur(a, output="complex"))(A)
    np.testing.assert_allclose(z @ t @ fnp.conj(z.T), A, atol=1e-12)
    h, q = fg.jit(lambda a: SL.hessenberg(a, calc_q=True))(A)
    np.testing.assert_allclose(h, sl.hessenberg(A), atol=1e-12)
    tr, zr = sl.schur(A)
    tc, zc = fg.jit(SL.rsf2csf)(tr, zr)
    wt, wz = sl.rsf2csf(tr, zr)
    np.testing.assert_allclose(tc, wt, atol=1e-12)
    np.testing.assert_allclose(zc, wz, atol=1e-12)
    w = SL.eigh_tridiagonal(fnp.asarray(B), B[:2], eigvals_only=True)
    np.testing.assert_allclose(_traced(lambda d, e: SL.eigh_tridiagonal(
        d, e, eigvals_only=True), B, B[:2]), w, rtol=1e-12)


@pytest.mark.parametrize("f,args", [
    (lambda a: SL.cholesky(a), (SPD,)), (lambda a: SL.det(a), (A,)),
    (lambda a, b: SL.solve(a, b, assume_a="pos"), (SPD, B)),
    (lambda a, b: SL.solve(a, b, assume_a="sym", lower=True), (A + A.T + 6 * np.eye(3), B)),
    (lambda a: SL.lu(a)[1:], (A,)), (lambda a: SL.qr(a)[1], (A,)),
    (lambda a: SL.eigh(a)[0], (SPD,)), (lambda a: SL.svd(a, compute_uv=False), (A,)),
    (lambda a: SL.polar(a), (A,)), (lambda a, e: SL.expm_frechet(a, e), (0.3 * A, SPD)),
    (lambda a, c: SL.solve_sylvester(a, a.T, c), (A, SPD)),
    (lambda c, r: SL.toeplitz(c, r), (B, B)), (lambda a: SL.companion(a), (B,)),
    (lambda a: SL.fiedler_companion(a), (B + np.array([2.0, 0, 0]),)),
])
def test_derivatives_match_finite_differences(f, args):
    check_grads(f, args, order=2, modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)


def test_rsf2csf_derivative():
    tr, zr = sl.schur(np.array([[1.0, 2.0, 0.3], [-1.5, 0.5, 1.0], [0.2, 0.1, -1.0]]))
    mask = (tr != 0) | np.triu(np.ones((3, 3), bool))
    check_grads(lambda t, z: SL.rsf2csf(t * mask, z), (tr, zr), order=1,
                modes=("fwd", "rev"), atol=1e-5, rtol=1e-5)


def test_schur_derivative_raises_clearly():
    with pytest.raises(NotImplementedError, match="stop_gradient"):
        fg.grad(lambda a: fnp.sum(fnp.real(SL.schur(a)[0])))(A)


def test_vmap_batches_leading_dims():
    stack = np.stack([SPD, SPD + np.eye(3)])
    got = fg.vmap(lambda a: SL.cholesky(a, lower=True))(stack)
    np.testing.assert_allclose(got, np.stack([sl.cholesky(s, lower=True) for s in stack]))
    got = fg.vmap(SL.det)(stack)
    np.testing.assert_allclose(got, [sl.det(s) for s in stack])
    got = fg.vmap(lambda a: SL.schur(a)[0])(stack)
    np.testing.assert_allclose(got, [sl.schur(s)[0] for s in stack])
    got = fg.vmap(SL.toeplitz)(np.stack([B, 2 * B]))
    np.testing.assert_allclose(got, [sl.toeplitz(B), sl.toeplitz(2 * B)])


def test_float32_kept():
    a32 = SPD.astype(np.float32)
    for f in (lambda a: SL.cholesky(a), lambda a: SL.inv(a), lambda a: SL.lu(a)[2],
              lambda a: SL.polar(a)[1], lambda a: SL.toeplitz(a[0])):
        assert fg.jit(f)(a32).dtype == np.float32
        assert fg.grad(lambda a: fnp.sum(f(a)))(a32).dtype == np.float32
    assert fg.jit(SL.det)(a32).dtype == np.asarray(sl.det(a32)).dtype   # (SciPy: float64)


def test_constants_are_scipys():
    for name, args in [("hadamard", (4,)), ("hilbert", (3,)), ("invhilbert", (3,)),
                       ("pascal", (3,)), ("invpascal", (3,)), ("helmert", (3,)), ("dft", (3,))]:
        np.testing.assert_array_equal(getattr(SL, name)(*args), getattr(sl, name)(*args))
    assert SL.dft(2, dtype=np.complex64).dtype == np.complex64
