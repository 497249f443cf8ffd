"""fnp.linalg / fg.scipy.linalg swept against NumPy, SciPy and JAX at degenerate inputs:
exactly zero pivots of qr and lu_factor (rank-deficient and singular matrices), complete
qr of a triangular matrix, empty matrices. References are central finite differences of
NumPy's / SciPy's own functions and NumPy's errors; no JAX at test time."""
from __future__ import annotations

import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp

sl = pytest.importorskip("scipy.linalg")
import fungrad.scipy.linalg as fsl  # noqa: E402

RNG = np.random.default_rng(11)


def _fd_jvp(f, x, dx, eps=1e-7):
    """Central difference of f (NumPy arrays in and out) at x along dx."""
    return (np.asarray(f(x + eps * dx)) - np.asarray(f(x - eps * dx))) / (2 * eps)


# ----------------------------------------------------------------------------- qr, zero pivots
def _zero_column(shape, j, cplx=False):
    a = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if cplx else 0)
    a[:, j] = 0
    return a


def _determined_part(k):
    """Q's first k columns and R's first k rows: what a rank-deficient a with its first zero
    pivot at k determines (column k of Q is any unit vector orthogonal to the others)."""
    def part(q, r):
        return np.concatenate([np.ravel(q[:, :k]), np.ravel(r[:k])])
    return part


@pytest.mark.parametrize("shape,k,cplx", [((4, 3), 1, False), ((3, 3), 2, False),
                                          ((3, 3), 2, True), ((3, 5), 1, False)])
def test_qr_derivative_of_rank_deficient_matrix_is_exact_where_determined(shape, k, cplx):
    # an exactly zero pivot r_kk (column k zero): the tangent's solve with r raised
    # LinAlgError ("singular matrix"); JAX's is NaN there
    a = _zero_column(shape, k, cplx)
    da = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if cplx else 0)
    part = _determined_part(k)
    want = _fd_jvp(lambda x: part(*np.linalg.qr(x)), a, da)
    dq, dr = fg.jvp(lambda x: tuple(fnp.linalg.qr(x)), (a,), (da,))[1]
    assert np.isfinite(dq).all() and np.isfinite(dr).all()
    np.testing.assert_allclose(part(dq, dr), want, atol=1e-7)
    # the cotangent of the determined part is finite too (no 0 * inf)
    g = fg.grad(lambda x: fnp.sum(fnp.abs(fnp.linalg.qr(x)[1][:k]) ** 2))(a)
    assert np.isfinite(g).all()


def test_qr_rows_of_a_wide_matrix_with_a_nearly_dependent_column():
    # column 1 = 2 * column 0: r_11 ~ 1e-17 (not exactly zero). dR was (M - Omega) r with
    # M = q^H dA r^-1, whose 1e17 entries cancelled against r: R's first row (q_0^H a,
    # determined by a) had an O(1) wrong derivative (JAX's formula gives the same 1.46 error)
    a = RNG.standard_normal((3, 5))
    a[:, 1] = 2 * a[:, 0]
    da = RNG.standard_normal((3, 5))
    part = _determined_part(1)
    want = _fd_jvp(lambda x: part(*np.linalg.qr(x)), a, da)
    got = part(*fg.jvp(lambda x: tuple(fnp.linalg.qr(x)), (a,), (da,))[1])
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_qr_complete_of_a_triangular_matrix_has_a_finite_derivative():
    # Q_nn - I is exactly singular where a Householder reflector is the identity (a column
    # already zero below the diagonal): the solve raised LinAlgError even for grad of R
    a = np.stack([np.array([[1.0, 2.0], [0.0, 3.0], [0.0, 0.0]]),
                  RNG.standard_normal((3, 2))])
    da = RNG.standard_normal(a.shape)
    (q, _), (dq, dr) = fg.jvp(lambda x: tuple(fnp.linalg.qr(x, mode="complete")), (a,), (da,))
    assert np.isfinite(dq).all() and np.isfinite(dr).all()
    # Q stays unitary to first order, and its first n columns / R are the reduced QR's
    skew = np.swapaxes(q, -1, -2) @ dq
    np.testing.assert_allclose(skew, -np.swapaxes(skew, -1, -2), atol=1e-12)
    dq_reduced, dr_reduced = fg.jvp(lambda x: tuple(fnp.linalg.qr(x)), (a,), (da,))[1]
    np.testing.assert_allclose(dq[..., :2], dq_reduced, atol=1e-12)
    np.testing.assert_allclose(dr[..., :2, :], dr_reduced, atol=1e-12)
    # the other (non-triangular) matrix of the batch keeps its Householder derivative
    np.testing.assert_allclose(
        dq[1], _fd_jvp(lambda x: np.linalg.qr(x, mode="complete")[0], a[1], da[1]), atol=1e-6)
    loss = lambda x: fnp.sum(fnp.linalg.qr(x, mode="complete")[1] ** 2)  # noqa: E731
    g = fg.grad(loss)(a)
    np.testing.assert_allclose(g, fg.grad(lambda x: fnp.sum(fnp.linalg.qr(x)[1] ** 2))(a),
                               atol=1e-12)


# ----------------------------------------------------------------------------- lu, zero pivots
@pytest.mark.filterwarnings("ignore:Diagonal number")
def test_lu_factor_derivative_of_a_singular_matrix_with_a_zero_last_pivot():
    # LAPACK's factors of this rank-2 matrix are smooth (the last pivot is 0 + O(t)); the
    # tangent's solve with U raised LinAlgError ("resolution failed at diagonal 2"), JAX's
    # is NaN
    a = np.array([[2.0, 1.0, 1.0], [4.0, 3.0, 3.0], [8.0, 7.0, 7.0]])
    da = RNG.standard_normal((3, 3))
    want = _fd_jvp(lambda x: sl.lu_factor(x)[0], a, da)
    for jvp in (fg.jvp, fg.jit(fg.jvp, static_argnums=0)):
        got = jvp(lambda x: fsl.lu_factor(x)[0], (a,), (da,))[1]
        np.testing.assert_allclose(got, want, atol=1e-6)
    g = fg.grad(lambda x: fnp.sum(fsl.lu_factor(x)[0] ** 2))(a)
    assert np.isfinite(g).all()


def test_lu_factor_derivative_of_an_invertible_matrix_is_unchanged():
    a = RNG.standard_normal((2, 4, 4))
    da = RNG.standard_normal((2, 4, 4))
    got = fg.jvp(lambda x: fsl.lu_factor(x)[0], (a,), (da,))[1]
    for i in range(2):
        np.testing.assert_allclose(got[i], _fd_jvp(lambda x: sl.lu_factor(x)[0], a[i], da[i]),
                                   atol=1e-6)


# ----------------------------------------------------------------------------- empty matrices
@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0)])
def test_eig_derivative_of_empty_matrices(shape):
    # the gauge step's max over an eigenvector's (no) components raised ValueError
    a = np.zeros(shape)
    (w, v), (dw, dv) = fg.jvp(fnp.linalg.eig, (a,), (a,))
    assert dw.shape == shape[:-1] and dv.shape == shape
    assert fg.grad(lambda x: fnp.sum(fnp.abs(fnp.linalg.eig(x)[1])))(a).shape == shape


@pytest.mark.parametrize("p", [None, "fro", "nuc", 1, 2])
def test_cond_of_an_empty_matrix_raises_as_numpy(p):
    # 'fro' and 'nuc' gave 0.0 on traced values; NumPy raises for every p
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        np.linalg.cond(np.zeros((0, 0)), p)
    with pytest.raises(np.linalg.LinAlgError, match="empty"):
        fg.jit(lambda x: fnp.linalg.cond(x, p))(np.zeros((0, 0)))
    batch = np.zeros((0, 2, 2))
    np.testing.assert_array_equal(fg.jit(lambda x: fnp.linalg.cond(x, p))(batch),
                                  np.linalg.cond(batch, p))


# ----------------------------------------------------------------------------- slogdet, norms
def test_slogdet_derivative_of_a_singular_matrix_is_nan_not_an_error():
    # log|det| = -inf there (NumPy's value); the tangent's solve raised LinAlgError
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    (_, logabs), (_, dlogabs) = fg.jvp(fnp.linalg.slogdet, (a,), (np.ones_like(a),))
    assert logabs == -np.inf and np.isnan(dlogabs)
    b = np.stack([a, np.eye(2)])
    g = fg.grad(lambda x: fnp.sum(fnp.linalg.slogdet(x)[1][1:]))(b)
    np.testing.assert_array_equal(g[1], np.eye(2))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 3)])
@pytest.mark.parametrize("ord", [1, 2, np.inf])
def test_max_norms_of_empty_matrices_are_zero_as_numpy(shape, ord):
    # the max over no column / row sums or singular values raised ValueError
    a = np.zeros(shape)
    f = lambda x: fnp.linalg.norm(x, ord, axis=(-2, -1))  # noqa: E731
    np.testing.assert_array_equal(fg.jit(f)(a), np.linalg.norm(a, ord, axis=(-2, -1)))
    assert fg.grad(lambda x: fnp.sum(f(x)))(a).shape == shape
    v = fg.jit(lambda x: fnp.linalg.vector_norm(x, ord=np.inf, axis=-2))(a)
    np.testing.assert_array_equal(v, np.linalg.vector_norm(a, ord=np.inf, axis=-2))


def test_inf_norm_derivative_at_zero_is_unchanged():
    # the empty case's initial=0 would take a share of the derivative at x == 0
    g = fg.grad(lambda x: fnp.linalg.vector_norm(x, ord=np.inf))(np.zeros(3))
    np.testing.assert_allclose(g, np.full(3, 1 / 3))


def test_inf_vector_norm_over_a_tuple_of_axes_traced():
    # (the empty-axis check indexed the shape with the axes tuple: TypeError)
    x = np.arange(6.0).reshape(2, 3)
    for v in (x, np.zeros((0, 3))):
        f = lambda v: fnp.linalg.vector_norm(v, ord=np.inf, axis=(0, 1))  # noqa: E731
        assert fg.jit(f)(v) == np.linalg.vector_norm(v, ord=np.inf, axis=(0, 1))
