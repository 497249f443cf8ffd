"""Specs of fnp.linalg, fg.scipy.linalg and the primitives of fungrad.lax.linalg.

Matrices are drawn well-conditioned with separated spectra (their derivatives are smooth
there, and the checker's perturbations keep them so): general ones as Q1 diag(1..2) Q2^T,
Hermitian positive definite ones as Q diag(1..2) Q^H, eig's with a complex pair of
eigenvalues (so NumPy's value-dependent dtype is complex, as fungrad's traced one).
Shapes stay small: n <= 3 and at most one batch dim of 2.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp
import fungrad.scipy as fsp
from fungrad.lax import linalg as LL

from .registry import COMPLEX_CASES, FNP, PRIM, Case, spec

BATCHES = st.sampled_from([(), (2,)])


def _rng(draw):
    return np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))


def _unitary(rng, shape, cplx):
    m = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
    q, r = np.linalg.qr(m)
    return q


def general(draw, shape, cplx=False, lo=1.0, hi=2.0):
    """(*B, m, n) with singular values spread over [lo, hi]."""
    rng = _rng(draw)
    *b, m, n = shape
    k = min(m, n)
    u = _unitary(rng, tuple(b) + (m, m), cplx)[..., :k]
    v = _unitary(rng, tuple(b) + (n, n), cplx)[..., :k]
    s = np.linspace(hi, lo, k) if k > 1 else np.array([1.5])
    return (u * s) @ np.conj(np.swapaxes(v, -1, -2))


def hpd(draw, shape, cplx=False):
    """Hermitian positive definite (*B, n, n), eigenvalues spread over [1, 2]."""
    rng = _rng(draw)
    *b, n, _ = shape
    q = _unitary(rng, tuple(b) + (n, n), cplx)
    w = np.linspace(1.0, 2.0, n)
    return (q * w) @ np.conj(np.swapaxes(q, -1, -2))


def singular(draw, shape, rank, cplx=False):
    """(*B, n, n) of the given rank < n: `general`'s with its trailing singular values 0."""
    rng = _rng(draw)
    *b, n, _ = shape
    u = _unitary(rng, tuple(b) + (n, n), cplx)
    v = _unitary(rng, tuple(b) + (n, n), cplx)
    s = np.where(np.arange(n) < rank, np.linspace(2.0, 1.0, n), 0.0)
    return (u * s) @ np.conj(np.swapaxes(v, -1, -2))


def with_complex_pair(draw, batch, n, coupling=(0.8, -0.8), rng=None):
    """Real (*B, n, n), n in (2, 3), with eigenvalues a +- ib (b >= 0.5) and, for n = 3,
    one real eigenvalue: separated, and NumPy's eig returns complex."""
    rng = _rng(draw) if rng is None else rng
    d = np.zeros(batch + (n, n))
    d[..., 0, 0] = d[..., 1, 1] = 1.0
    d[..., 0, 1], d[..., 1, 0] = coupling
    if n == 3:
        d[..., 2, 2] = -1.0
    p = np.eye(n) + 0.2 * rng.standard_normal(batch + (n, n))
    return p @ d @ np.linalg.inv(p)


def gauge_separated(draw, batch, n):
    """with_complex_pair's with a non-normal rotation block (eigenvectors ~ (1, +-i/2)), so
    each eigenvector's largest component leads the next by 10% or more: LAPACK's gauge (that
    component real) is smooth there, and second derivatives of eig's vectors are checked."""
    rng = _rng(draw)
    for _ in range(20):
        a = with_complex_pair(draw, batch, n, coupling=(1.2, -0.3), rng=rng)
        mags = np.sort(np.abs(np.linalg.eig(a)[1]), axis=-2)
        if (mags[..., -1, :] >= 1.1 * mags[..., -2, :]).all():
            return a
    return with_complex_pair(draw, batch, n, coupling=(1.2, -0.3),
                             rng=np.random.default_rng(0))   # (checked: separated)


def _size(draw, lo=1, hi=3):
    return draw(st.integers(lo, hi))


def _ri(f):
    """Real and imaginary parts stacked (a complex result of real inputs, for check_grads)."""
    def g(*a):
        out = f(*a)
        return fnp.stack([fnp.real(out), fnp.imag(out)])
    return g


def _projector_sum(w_v):
    """V diag(w) V^H: invariant under each eigenvector's phase (complex eigh / svd)."""
    w, v = w_v
    return fnp.matmul(v * w[..., None, :], fnp.conj(fnp.swapaxes(v, -1, -2)))


def _usv(usv):
    u, s, vh = usv
    return fnp.matmul(u * s[..., None, :], vh), fnp.real(u * fnp.conj(u))


def _full_usv(usv):
    """svd(full_matrices=True) of a non-square matrix: the thin product, s, and the
    projectors onto the extra columns of U / rows of Vh (those columns are not unique; the
    projectors are)."""
    u, s, vh = usv
    k = s.shape[-1]
    ue, ve = u[..., :, k:], vh[..., k:, :]
    return (fnp.matmul(u[..., :, :k] * s[..., None, :], vh[..., :k, :]), s,
            fnp.matmul(ue, fnp.conj(fnp.swapaxes(ue, -1, -2))),
            fnp.matmul(fnp.conj(fnp.swapaxes(ve, -1, -2)), ve))


# ----------------------------------------------------------------------------- fnp.linalg
@spec(FNP, "linalg.solve", "linalg.inv", "linalg.det", "linalg.slogdet",
      "linalg.matrix_power", "linalg.cond")
def _square_specs(draw, name, cplx=False):
    b, n = draw(BATCHES), _size(draw)
    a = general(draw, b + (n, n), cplx)
    if name == "linalg.solve":
        vec = draw(st.booleans()) and not b
        rhs = np.asarray(general(draw, (n,) if vec else b + (n, 2), cplx)) if not vec else \
            _rng(draw).standard_normal(n)
        return Case(fnp.linalg.solve, (a, rhs))
    if name == "linalg.matrix_power":
        k = draw(st.sampled_from([0, 1, 2, 3, -1, -2]))
        return Case(lambda a: fnp.linalg.matrix_power(a, k), (a,), diff=k != 0)
    if name == "linalg.cond":
        p = draw(st.sampled_from([None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf]))
        if p in (1, -1, np.inf, -np.inf):  # sums of |a_ij|: keep entries away from 0
            a = a + 3.0 * np.eye(n)
        return Case(lambda a: fnp.linalg.cond(a, p), (a,))
    if name == "linalg.det" and draw(st.booleans()):   # det's derivative is the adjugate:
        a = singular(draw, b + (n, n), draw(st.integers(0, n - 1)), cplx)   # finite there too
    f = {"linalg.inv": fnp.linalg.inv, "linalg.det": fnp.linalg.det,
         "linalg.slogdet": fnp.linalg.slogdet}[name]
    return Case(f, (a,))


@spec(FNP, "linalg.cholesky", "linalg.eigh", "linalg.eigvalsh")
def _hermitian_specs(draw, name, cplx=False):
    b, n = draw(BATCHES), _size(draw)
    a = hpd(draw, b + (n, n), cplx)
    if name == "linalg.cholesky":
        upper = draw(st.booleans())
        return Case(lambda a: fnp.linalg.cholesky(a, upper=upper), (a,))
    uplo = draw(st.sampled_from(["L", "U"]))
    if name == "linalg.eigvalsh":
        return Case(lambda a: fnp.linalg.eigvalsh(a, UPLO=uplo), (a,))
    if cplx:
        return Case(lambda a: _projector_sum(fnp.linalg.eigh(a, UPLO=uplo)), (a,))
    return Case(lambda a: fnp.linalg.eigh(a, UPLO=uplo), (a,))


@spec(FNP, "linalg.svd", "linalg.svdvals", "linalg.qr", "linalg.pinv", "linalg.matrix_rank",
      "linalg.lstsq")
def _rect_specs(draw, name, cplx=False):
    b = draw(BATCHES)
    m, n = _size(draw), _size(draw)
    if name == "linalg.lstsq":
        a = general(draw, (m, n), cplx)
        rhs = _rng(draw).standard_normal((m,) if draw(st.booleans()) else (m, 2))
        return Case(lambda a, y: fnp.linalg.lstsq(a, y)[:2] + (fnp.linalg.lstsq(a, y)[3],),
                    (a, rhs.astype(a.dtype)))
    a = general(draw, b + (m, n), cplx)
    if name == "linalg.svd":
        full = m == n or draw(st.booleans())
        uv = draw(st.booleans())
        if uv and full and m != n:
            return Case(lambda a: _full_usv(fnp.linalg.svd(a, full_matrices=True)), (a,))
        if cplx and uv:
            return Case(lambda a: _usv(fnp.linalg.svd(a, full_matrices=False)), (a,))
        return Case(lambda a: fnp.linalg.svd(a, full_matrices=full and m == n, compute_uv=uv),
                    (a,))
    if name == "linalg.qr":
        mode = draw(st.sampled_from(["reduced", "r", "complete"]))
        return Case(lambda a: fnp.linalg.qr(a, mode=mode), (a,))
    if name == "linalg.matrix_rank":
        return Case(fnp.linalg.matrix_rank, (a,), diff=False)
    f = {"linalg.svdvals": fnp.linalg.svdvals, "linalg.pinv": fnp.linalg.pinv}[name]
    return Case(f, (a,))


@spec(FNP, "linalg.eig", "linalg.eigvals")
def _eig_specs(draw, name):
    b, n = draw(BATCHES), draw(st.sampled_from([2, 3]))
    a = with_complex_pair(draw, b, n)
    if name == "linalg.eigvals":
        return Case(_ri(fnp.linalg.eigvals), (a,))
    # LAPACK's eigenvector gauge (largest component real) jumps where two components tie:
    # drawn away from ties, second order is checked too
    a = gauge_separated(draw, b, n)
    return Case(lambda a: tuple(_ri(lambda x: o)(a) for o in fnp.linalg.eig(a)), (a,))


@spec(FNP, "linalg.norm", "linalg.matrix_norm", "linalg.vector_norm")
def _norm_specs(draw, name, cplx=False):
    rng = _rng(draw)
    keep = draw(st.booleans())
    if name == "linalg.vector_norm" or (name == "linalg.norm" and draw(st.booleans())):
        shape = draw(st.sampled_from([(3,), (2, 3), (2, 2, 3)]))
        x = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)
        if cplx:
            x = x * np.exp(1j * rng.uniform(0, 6, shape))
        x = x + 0.01 * np.arange(x.size).reshape(shape)   # no ties for inf / -inf
        ord_ = draw(st.sampled_from([None, 2, 1, np.inf, -np.inf, 3, 0.5, -1]))
        if name == "linalg.vector_norm":
            axis = draw(st.sampled_from([None, -1, 0]))
            return Case(lambda x: fnp.linalg.vector_norm(
                x, axis=axis, keepdims=keep, ord=2 if ord_ is None else ord_), (x,))
        axis = -1 if len(shape) > 1 else draw(st.sampled_from([None, 0]))
        return Case(lambda x: fnp.linalg.norm(x, ord_, axis=axis, keepdims=keep), (x,))
    shape = draw(st.sampled_from([(2, 3), (3, 3), (2, 3, 2)]))
    ord_ = draw(st.sampled_from([None, "fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf]))
    x = general(draw, shape, cplx) if ord_ in (2, -2, "nuc") else \
        rng.uniform(0.5, 1.5, shape) + 0.1 * np.arange(np.prod(shape)).reshape(shape)
    if name == "linalg.matrix_norm":
        return Case(lambda x: fnp.linalg.matrix_norm(x, keepdims=keep,
                                                     ord="fro" if ord_ is None else ord_), (x,))
    axis = (-2, -1) if len(shape) == 3 else draw(st.sampled_from([None, (1, 0)]))
    return Case(lambda x: fnp.linalg.norm(x, ord_, axis=axis, keepdims=keep), (x,))


@spec(FNP, "linalg.multi_dot")
def _multi_dot(draw, name):
    rng = _rng(draw)
    k = draw(st.integers(2, 4))
    dims = [draw(st.integers(1, 4)) for _ in range(k + 1)]
    mats = [rng.standard_normal((dims[i], dims[i + 1])) for i in range(k)]
    if draw(st.booleans()):
        mats[0] = mats[0][0]
    return Case(lambda *ms: fnp.linalg.multi_dot(list(ms)), tuple(mats))


@spec(FNP, "linalg.tensorsolve", "linalg.tensorinv")
def _tensor_specs(draw, name):
    a = general(draw, (6, 6)).reshape(2, 3, 6)
    if name == "linalg.tensorinv":
        return Case(lambda a: fnp.linalg.tensorinv(a, ind=2), (a.reshape(2, 3, 2, 3),))
    return Case(fnp.linalg.tensorsolve, (a.reshape(2, 3, 2, 3),
                                         _rng(draw).standard_normal((2, 3))))


@spec(FNP, "linalg.cross", "linalg.outer", "linalg.trace", "linalg.diagonal",
      "linalg.matmul", "linalg.matrix_transpose", "linalg.vecdot", "linalg.tensordot")
def _alias_specs(draw, name, cplx=False):
    rng = _rng(draw)

    def r(*s):
        x = rng.standard_normal(s)
        return x + 1j * rng.standard_normal(s) if cplx else x
    if name == "linalg.cross":
        return Case(lambda x, y: fnp.linalg.cross(x, y, axis=0), (r(3, 2), r(3, 2)))
    if name == "linalg.outer":
        return Case(fnp.linalg.outer, (r(3), r(2)))
    if name == "linalg.trace":
        off = draw(st.integers(-1, 1))
        return Case(lambda x: fnp.linalg.trace(x, offset=off), (r(2, 3, 3),))
    if name == "linalg.diagonal":
        off = draw(st.integers(-1, 1))
        return Case(lambda x: fnp.linalg.diagonal(x, offset=off), (r(2, 3, 4),))
    if name == "linalg.matmul":
        return Case(fnp.linalg.matmul, (r(2, 3, 4), r(4, 2)))
    if name == "linalg.matrix_transpose":
        return Case(fnp.linalg.matrix_transpose, (r(2, 3, 4),))
    if name == "linalg.vecdot":
        return Case(fnp.linalg.vecdot, (r(2, 3), r(3)))
    return Case(lambda x, y: fnp.linalg.tensordot(x, y, axes=1), (r(2, 3), r(3, 2)))


# ----------------------------------------------------------------------------- fg.scipy.linalg
@spec(FNP, "scipy.linalg.solve_triangular", "scipy.linalg.cho_factor", "scipy.linalg.cho_solve",
      "scipy.linalg.lu_factor", "scipy.linalg.lu_solve", "scipy.linalg.expm",
      "scipy.linalg.sqrtm", "scipy.linalg.block_diag")
def _scipy_specs(draw, name, cplx=False):
    SL = fsp.linalg
    n = _size(draw)
    rng = _rng(draw)
    rhs = rng.standard_normal((n,) if draw(st.booleans()) else (n, 2))
    rhs = rhs + 1j * rng.standard_normal(rhs.shape) if cplx else rhs
    if name == "scipy.linalg.solve_triangular":
        lower, unit = draw(st.booleans()), draw(st.booleans())
        trans = draw(st.sampled_from([0, 1, 2, "N", "T", "C"]))
        a = general(draw, (n, n), cplx) + 2.5 * np.eye(n)
        return Case(lambda a, y: SL.solve_triangular(a, y, trans=trans, lower=lower,
                                                     unit_diagonal=unit), (a, rhs))
    if name in ("scipy.linalg.cho_factor", "scipy.linalg.cho_solve"):
        lower = draw(st.booleans())
        a = hpd(draw, (n, n), cplx)
        if name == "scipy.linalg.cho_factor":
            # the factor's triangle only: SciPy leaves the other unspecified (the input's
            # entries up to SciPy 1.17, zeros from 1.18)
            tri = fnp.tril if lower else fnp.triu
            return Case(lambda a: tri(SL.cho_factor(a, lower=lower)[0]), (a,))
        return Case(lambda a, y: SL.cho_solve(SL.cho_factor(a, lower=lower), y), (a, rhs))
    if name in ("scipy.linalg.lu_factor", "scipy.linalg.lu_solve"):
        a = general(draw, (n, n), cplx)
        a = a + 0.3 * np.diag(np.arange(n)) # distinct pivots: the row order stays put
        if name == "scipy.linalg.lu_factor":
            return Case(lambda a: SL.lu_factor(a)[0], (a,))
        trans = draw(st.sampled_from([0, 1, 2]))
        return Case(lambda a, y: SL.lu_solve(SL.lu_factor(a), y, trans=trans), (a, rhs))
    if name == "scipy.linalg.expm":
        return Case(SL.expm, (0.5 * general(draw, (n, n), cplx),))
    if name == "scipy.linalg.sqrtm":
        return Case(SL.sqrtm, (hpd(draw, (n, n), cplx),))
    return Case(lambda a, b: SL.block_diag(a, b, 1.0), (rhs, general(draw, (2, n), cplx)))


# ----------------------------------------------------------------------------- complex
@spec(COMPLEX_CASES, "linalg.solve", "linalg.inv", "linalg.det", "linalg.slogdet")
def _complex_square(draw, name):
    return _square_specs(draw, name, cplx=True)


@spec(COMPLEX_CASES, "linalg.cholesky", "linalg.eigh", "linalg.eigvalsh")
def _complex_hermitian(draw, name):
    return _hermitian_specs(draw, name, cplx=True)


@spec(COMPLEX_CASES, "linalg.svd", "linalg.svdvals", "linalg.qr", "linalg.pinv")
def _complex_rect(draw, name):
    return _rect_specs(draw, name, cplx=True)


@spec(COMPLEX_CASES, "linalg.norm", "linalg.vector_norm")
def _complex_norm(draw, name):
    return _norm_specs(draw, name, cplx=True)


@spec(COMPLEX_CASES, "linalg.vecdot", "linalg.cross", "linalg.trace")
def _complex_alias(draw, name):
    return _alias_specs(draw, name, cplx=True)


@spec(COMPLEX_CASES, "scipy.linalg.solve_triangular", "scipy.linalg.cho_solve",
      "scipy.linalg.lu_solve", "scipy.linalg.expm")
def _complex_scipy(draw, name):
    return _scipy_specs(draw, name, cplx=True)


# ----------------------------------------------------------------------------- primitives
def _batched_spd(draw):
    b, n = draw(BATCHES), _size(draw)
    return hpd(draw, b + (n, n)), b, n


@spec(PRIM, "linalg_solve", "triangular_solve", "cholesky", "det", "slogdet", "eigh",
      "eigvalsh", "svd", "svdvals", "qr", "eig", "eigvals", "pinv", "expm", "expm_frechet",
      "sylvester", "sqrtm", "lu", "lu_pivots_to_permutation")
def _prim_specs(draw, name):
    a, b, n = _batched_spd(draw)
    rng = _rng(draw)
    rhs = rng.standard_normal(b + (n, 2))
    if name == "linalg_solve":
        kw = {"singular": "nan"} if draw(st.booleans()) else {}  # (what cond uses)
        return Case(lambda a, y: LL.solve_p.bind(a, y, **kw),
                    (a + 0.2 * rng.standard_normal(a.shape), rhs))
    if name == "triangular_solve":
        kw = dict(lower=draw(st.booleans()), transpose_a=draw(st.booleans()),
                  conjugate_a=False, unit_diagonal=draw(st.booleans()))
        return Case(lambda a, y: LL.triangular_solve_p.bind(a, y, **kw), (a + np.eye(n), rhs))
    if name in ("cholesky", "det", "sqrtm", "expm", "eigvals", "svdvals"):
        f = getattr(LL, name + "_p").bind
        return Case(_ri(f) if name == "eigvals" else f, (a,))
    if name == "slogdet":
        return Case(LL.slogdet_p.bind, (a,))
    if name in ("eigh", "eigvalsh"):
        lower = draw(st.booleans())
        return Case(lambda a: getattr(LL, name + "_p").bind(a, lower=lower), (a,))
    if name == "svd":
        return Case(lambda a: LL.svd_p.bind(a, full_matrices=False), (a,))
    if name == "qr":
        return Case(lambda a: LL.qr_p.bind(a, mode="reduced"), (a,))
    if name == "eig":
        return Case(lambda a: tuple(_ri(lambda x: o)(a) for o in LL.eig_p.bind(a)),
                    (gauge_separated(draw, b, 2),))  # as linalg.eig's
    if name == "pinv":
        return Case(lambda a: LL.pinv_p.bind(a, rcond=1e-15, hermitian=False), (a,))
    if name == "expm_frechet":
        return Case(LL.expm_frechet_p.bind, (0.5 * a, rng.standard_normal(a.shape)))
    if name == "sylvester":
        return Case(LL.sylvester_p.bind, (a, rng.standard_normal(a.shape)))
    if name == "lu":
        g = general(draw, b + (n, n)) + 0.3 * np.diag(np.arange(n))
        return Case(lambda a: LL.lu_p.bind(a)[0], (g,))
    piv = np.asarray(rng.integers(0, n, b + (n,)), np.int32)
    piv = np.maximum(piv, np.arange(n, dtype=np.int32))  # LAPACK's pivots: piv[i] >= i
    return Case(lambda p: LL.pivots_to_permutation_p.bind(p, n=n), (piv,), diff=False)


@spec(PRIM, "adjugate")
def _adjugate_spec(draw, name):
    """adj(a) (det's derivative) at invertible and singular matrices (rank n-1: rank one;
    n-2 or less: zero, with a nonzero derivative): a polynomial, smooth everywhere."""
    b, n = draw(BATCHES), _size(draw)
    a = singular(draw, b + (n, n), draw(st.integers(0, n))) if draw(st.booleans()) else \
        general(draw, b + (n, n))
    return Case(LL.adjugate_p.bind, (a,))
