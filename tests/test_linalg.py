"""fnp.linalg and fg.scipy.linalg: traced values against NumPy / SciPy over keyword arguments
and batch dims, NumPy's errors (with shapes named), degenerate cases, and the lazy SciPy
import. Derivatives of every function are checked by the registry (checker/specs_linalg.py)."""
import subprocess
import sys

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

sl = pytest.importorskip("scipy.linalg")
import fungrad.scipy as fsp  # noqa: E402

RNG = np.random.default_rng(0)


def spd(shape):
    q, _ = np.linalg.qr(RNG.standard_normal(shape))
    return (q * np.linspace(1, 2, shape[-1])[..., None, :]) @ np.swapaxes(q, -1, -2)


def traced(f, *args):
    """f on traced arguments (jit), so the primitives run, not NumPy's fast path."""
    return fg.jit(f)(*args)


def assert_same(got, want):
    for g, w in zip(fg.tree.tree_leaves(got), fg.tree.tree_leaves(want)):
        w = np.asarray(w)
        assert np.shape(g) == w.shape and np.asarray(g).dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11)


A = spd((2, 3, 4, 4)) + 0.1 * RNG.standard_normal((2, 3, 4, 4))
S = spd((2, 3, 4, 4))
R = RNG.standard_normal((2, 5, 3))

CASES = [
    ("solve", lambda a: fnp.linalg.solve(a, a[..., :2]), A),
    ("solve-vector", lambda a: fnp.linalg.solve(a[0, 0], a[0, 0, 0]), A),
    ("solve-broadcast", lambda a: fnp.linalg.solve(a, a[0, 0, :, :1]), A),
    ("inv", fnp.linalg.inv, A),
    ("det", fnp.linalg.det, A),
    ("slogdet", fnp.linalg.slogdet, A),
    ("cholesky", fnp.linalg.cholesky, S),
    ("cholesky-upper", lambda a: fnp.linalg.cholesky(a, upper=True), S),
    ("eigh-U", lambda a: fnp.linalg.eigh(a, UPLO="U"), S),
    ("eigvalsh", fnp.linalg.eigvalsh, S),
    ("svd", lambda a: fnp.linalg.svd(a, full_matrices=False), R),
    ("svd-noUV", lambda a: fnp.linalg.svd(a, compute_uv=False), R),
    ("svd-hermitian", lambda a: fnp.linalg.svd(a, hermitian=True), S),
    ("svdvals", fnp.linalg.svdvals, R),
    ("qr", fnp.linalg.qr, R),
    ("qr-complete-wide", lambda a: fnp.linalg.qr(np.swapaxes(a, -1, -2), mode="complete"), R),
    ("qr-r", lambda a: fnp.linalg.qr(a, mode="r"), R),
    ("pinv", fnp.linalg.pinv, R),
    ("pinv-rtol", lambda a: fnp.linalg.pinv(a, rtol=1e-3), R),
    ("matrix_rank", fnp.linalg.matrix_rank, R),
    ("cond", fnp.linalg.cond, A),
    ("cond-fro", lambda a: fnp.linalg.cond(a, "fro"), A),
    ("matrix_power-3", lambda a: fnp.linalg.matrix_power(a, 3), A),
    ("matrix_power--2", lambda a: fnp.linalg.matrix_power(a, -2), A),
    ("matrix_power-0", lambda a: fnp.linalg.matrix_power(a, 0), A),
    ("multi_dot", lambda a: fnp.linalg.multi_dot([a[0, 0], a[0, 1, :, :2], a[1, 0, :2]]), A),
    ("lstsq", lambda a: fnp.linalg.lstsq(a[0], a[0, :, 0])[:2], R),
    ("tensorinv", lambda a: fnp.linalg.tensorinv(fnp.reshape(a[:, :2], (4, 2, 4, 2)), ind=2),
     A),
    ("tensorsolve", lambda a: fnp.linalg.tensorsolve(fnp.reshape(a[:, :2], (4, 2, 4, 2)),
                                                     a[0, 0, :, :2]), A),
    ("cross", lambda a: fnp.linalg.cross(a[..., :3], a[..., 1:]), A),
    ("trace", lambda a: fnp.linalg.trace(a, offset=1), A),
    ("diagonal", lambda a: fnp.linalg.diagonal(a, offset=-1), A),
    ("vecdot", lambda a: fnp.linalg.vecdot(a, a[0]), A),
    ("matrix_transpose", fnp.linalg.matrix_transpose, A),
]


@pytest.mark.parametrize("name,f,a", CASES, ids=[c[0] for c in CASES])
def test_traced_matches_numpy(name, f, a):
    assert_same(traced(f, a), f(a))


NORM_ORDS = [None, "fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2]


@pytest.mark.parametrize("ord", NORM_ORDS)
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norms(ord, keepdims):
    x = R
    f = lambda x: fnp.linalg.norm(x, ord, axis=(2, 1), keepdims=keepdims)  # noqa: E731
    assert_same(traced(f, x), f(x))
    g = lambda x: fnp.linalg.matrix_norm(x, ord="fro" if ord is None else ord)  # noqa: E731
    assert_same(traced(g, x), g(x))


@pytest.mark.parametrize("ord", [None, np.inf, -np.inf, 0, 1, -1, 2, -2, 3, 0.5])
@pytest.mark.parametrize("axis", [None, 0, -1])
def test_vector_norms(ord, axis):
    x = R[0] + 0.1
    f = lambda x: fnp.linalg.vector_norm(x, ord=2 if ord is None else ord, axis=axis,  # noqa
                                         keepdims=True)
    assert_same(traced(f, x), f(x))
    if axis is not None:
        h = lambda x: fnp.linalg.norm(x, ord, axis=axis)  # noqa: E731
        assert_same(traced(h, x), h(x))


def test_norm_gradient_at_zero_is_zero():
    assert np.all(fg.grad(lambda x: fnp.linalg.norm(x))(np.zeros(3)) == 0)
    assert np.all(fg.grad(lambda x: fnp.linalg.norm(x, "fro"))(np.zeros((2, 2))) == 0)


def test_eigvalsh_gradient_with_repeated_eigenvalues_is_finite():
    g = fg.grad(lambda a: fnp.sum(fnp.linalg.eigvalsh(a) ** 2))(np.eye(3))
    np.testing.assert_allclose(g, 2 * np.eye(3))   # d tr(A^2) = 2 A
    g = fg.grad(lambda a: fnp.sum(fnp.linalg.eigh(a)[0]))(np.eye(3))
    assert np.all(np.isfinite(g))


def test_vmap_over_stacked_matrices():
    got = fg.vmap(fnp.linalg.solve, in_axes=(1, None))(A, A[0, 0])
    want = np.stack([np.linalg.solve(A[:, i], A[0, 0]) for i in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_jacfwd_of_solve_is_one_batched_solve():
    a, b = A[0, 0], A[0, 1, :, 0]
    jac = fg.jacfwd(lambda b: fnp.linalg.solve(a, b))(b)
    np.testing.assert_allclose(jac, np.linalg.inv(a), rtol=1e-10)


@pytest.mark.parametrize("f", [fnp.linalg.inv, fnp.linalg.det, fnp.linalg.cholesky,
                               fnp.linalg.eigh, fnp.linalg.eig, fnp.linalg.slogdet])
def test_non_square_raises_with_shape(f):
    x = np.ones((2, 3))
    with pytest.raises(np.linalg.LinAlgError):
        f(x)
    with pytest.raises(np.linalg.LinAlgError, match=r"\(2, 3\)"):
        fg.jit(f)(x)


def test_singular_matrix_error_names_shapes():
    with pytest.raises(np.linalg.LinAlgError, match=r"a of shape \(2, 2\)"):
        fnp.linalg.solve(np.ones((2, 2)), np.ones(2))
    with pytest.raises(np.linalg.LinAlgError):
        fg.grad(lambda a: fnp.sum(fnp.linalg.inv(a)))(np.ones((2, 2)))


@pytest.mark.parametrize("p", [1, -1, np.inf, -np.inf, "fro"])
def test_cond_of_singular_matrices_is_infinite_under_trace(p):
    # as NumPy: the inverse of a singular matrix is NaN (not an error), read as cond = inf;
    # a matrix holding NaN keeps NaN
    a = np.stack([np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[2.0, 1.0], [1.0, 3.0]]),
                  np.full((2, 2), np.nan)])
    want = np.linalg.cond(a, p)
    np.testing.assert_array_equal(fg.jit(lambda a: fnp.linalg.cond(a, p))(a), want)
    np.testing.assert_array_equal(fg.vmap(lambda a: fnp.linalg.cond(a, p))(a), want)
    with pytest.raises(np.linalg.LinAlgError):  # inv itself still raises
        fg.jit(fnp.linalg.inv)(a[:1])


def test_solve_shape_mismatch_names_shapes():
    with pytest.raises(ValueError, match=r"\(3, 3\).*\(2,\)"):
        fg.jit(fnp.linalg.solve)(np.eye(3), np.ones(2))


def test_float16_is_rejected_like_numpy():
    x = np.eye(2, dtype=np.float16)
    with pytest.raises(TypeError):
        np.linalg.inv(x)
    with pytest.raises(TypeError, match="float16"):
        fg.jit(fnp.linalg.inv)(x)


def test_eig_of_real_matrix_is_complex_when_traced():
    a = np.array([[2.0, 1.0], [0.0, 1.0]])
    w = fg.jit(fnp.linalg.eigvals)(a)
    assert w.dtype == np.complex128
    np.testing.assert_allclose(np.sort(w.real), [1.0, 2.0])


# ----------------------------------------------------------------------------- fg.scipy.linalg
T = np.tril(A[0, 0]) + 2 * np.eye(4)
B = RNG.standard_normal((4, 2))
SCIPY_CASES = [
    ("solve_triangular", lambda t, b: fsp.linalg.solve_triangular(t, b, lower=True)),
    ("solve_triangular-T", lambda t, b: fsp.linalg.solve_triangular(t.T, b, trans="T")),
    ("solve_triangular-C-unit", lambda t, b: fsp.linalg.solve_triangular(
        t, b[:, 0], trans=2, lower=True, unit_diagonal=True)),
    ("cho_factor", lambda t, b: fsp.linalg.cho_factor(t @ t.T)),
    ("cho_factor-lower", lambda t, b: fsp.linalg.cho_factor(t @ t.T, lower=True)),
    ("cho_solve", lambda t, b: fsp.linalg.cho_solve(fsp.linalg.cho_factor(t @ t.T), b)),
    ("lu_factor", lambda t, b: fsp.linalg.lu_factor(t.T + t)),
    ("lu_solve", lambda t, b: fsp.linalg.lu_solve(fsp.linalg.lu_factor(t.T + t), b)),
    ("lu_solve-T", lambda t, b: fsp.linalg.lu_solve(fsp.linalg.lu_factor(t.T + t), b, trans=1)),
    ("expm", lambda t, b: fsp.linalg.expm(0.3 * t)),
    ("sqrtm", lambda t, b: fsp.linalg.sqrtm(t @ t.T)),
    ("block_diag", lambda t, b: fsp.linalg.block_diag(t, b, 1.0, b[:, 0])),
]


@pytest.mark.parametrize("name,f", SCIPY_CASES, ids=[c[0] for c in SCIPY_CASES])
def test_scipy_traced_matches_scipy(name, f):
    want = f(T, B)
    got = fg.jit(lambda t, b: [x for x in fg.tree.tree_leaves(f(t, b))
                               if not isinstance(x, bool)])(T, B)
    assert_same(got, [x for x in fg.tree.tree_leaves(want) if not isinstance(x, bool)])


def test_expm_gradient_matches_scipy_frechet():
    a, e = 0.3 * T, B @ B[:4, :2].T
    _, t = fg.jvp(fsp.linalg.expm, (a,), (e,))
    np.testing.assert_allclose(t, sl.expm_frechet(a, e, compute_expm=False), rtol=1e-10)


def test_import_fungrad_does_not_import_scipy():
    code = "import fungrad, fungrad.numpy, sys; assert 'scipy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def _agree_with_numpy(f, nf, a):
    """f eagerly, under jit and under vmap (a leading axis of 2): NumPy's dtype, shape, values."""
    want = np.asarray(nf(a))
    for got in (f(a), fg.jit(f)(a)):
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
        np.testing.assert_allclose(got, want)
    got, want = np.asarray(fg.vmap(f)(np.stack([a, a]))), np.stack([want, want])
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("a", [np.zeros((0, 0), np.int64), np.zeros((0, 0), bool),
                               np.zeros((0, 0), np.float16), np.zeros((0, 3), np.int64),
                               np.zeros((2, 3, 0), np.float32), np.ones((2, 2), np.int64)],
                         ids=lambda a: f"{a.dtype}{a.shape}")
def test_pinv_and_matrix_rank_of_empty_matrices_match_numpy(a):
    # NumPy's pinv of an empty matrix is an empty one of a's own dtype (float16 too)
    _agree_with_numpy(fnp.linalg.pinv, np.linalg.pinv, a)
    if a.dtype != np.float16:  # (NumPy's matrix_rank takes an svd: float16 raises)
        _agree_with_numpy(fnp.linalg.matrix_rank, np.linalg.matrix_rank, a)
    with pytest.raises(TypeError):
        fg.jit(fnp.linalg.matrix_rank)(np.zeros((0, 0), np.float16))
    with pytest.raises(TypeError):
        fg.jit(fnp.linalg.pinv)(np.ones((2, 2), np.float16))


def test_matrix_rank_of_a_vector_is_zero_or_one_as_numpy():
    # NumPy: int(not all(A == 0)) for A of fewer than 2 dims, of any dtype
    for a in [np.ones(4), np.zeros(4), np.ones(4, np.float16), np.array([np.nan, 0.0]),
              np.array([0, 3]), np.array(2.0)]:
        _agree_with_numpy(fnp.linalg.matrix_rank, np.linalg.matrix_rank, a)
