"""Linear-algebra primitives (under `fnp.linalg` and `fg.scipy.linalg`).

Every primitive takes stacked matrices `(*B, m, n)` whose leading batch dims are equal across
operands (fnp broadcasts first), so a vmap rule only moves the batch axis to the front.
Derivatives are closed forms written with primitives (so they differentiate again), never
the differentiated algorithm:

- `solve(a, b)` is linear in `b`; its JVP is `solve(a, db - da x)`: the tangent is one more
  solve with the same matrix, and a batch of tangents (jacfwd, vmap of jvp) is one solve with
  more right-hand sides (JAX's custom_linear_solve idea); its transpose solves with `a^T`.
- `cholesky`: `dL = L Phi(L^-1 dA L^-H)` (Phi: the lower triangle, half the diagonal).
- `eigh`: `dw = diag(V^H dA V)`, `dV = V (F o V^H dA V)` with `F_ij = 1/(w_j - w_i)`;
  degenerate eigenvalues (`w_i`, `w_j` within 16 n ulps of the largest: LAPACK returns a
  repeated eigenvalue a few ulps apart) get `F_ij = 0`, the derivative of any function
  invariant within the degenerate eigenspace (eigenvalues, projections onto the whole
  space; first order only: a second derivative there misses how the eigenspace splits,
  e.g. the Hessian of sum(eigvalsh(A)**2) at A = I lacks its mixed entries, and
  `V g(w) V^H` with g varying across the repeated eigenvalue is wrong even at first order:
  the right answer needs g'' of the user's g, which no rule of eigh alone can know);
  the eigenvectors themselves have no derivative there.
- `det`: `d det = tr(adj(a) da)` with the adjugate a primitive of its own (det(a) a^-1, or
  its SVD form at exactly singular matrices), so rank-deficient matrices get finite first
  and second derivatives.
- `svd`, `qr`, `eig`, `slogdet`, `pinv`: the analogous formulas (below).
NumPy's `cholesky` / `eigh` read one triangle only, so their tangents are first made
Hermitian from that triangle: the derivative of the function NumPy computes (for a Hermitian
input built symmetrically, the same as symmetrizing).

Complex inputs follow the rest of fungrad (transpose, never conjugate: docs/design.md).
float16 / bfloat16 are rejected, as NumPy's LAPACK routines reject them (fnp checks first).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..backend import array_module, on_host, scipy_module
from ..core.ir import ShapedArray, aval_of
from ..core.primitive import Primitive
from ..core.ad_util import ZERO
from .dot import dot_general
from .elementwise import (add, conj, convert_element_type, div, eq, imag, le, mul, ne, neg,
                          real, reciprocal, select, sub, abs as _abs)
from .reduce import prod_others, reduce_max, reduce_sum
from .shape import bdim_at_front, broadcast_in_dim, concatenate, transpose
from .indexing import slice_along


# --------------------------------------------------------------------------- helpers
def _aval(x):
    return aval_of(x)


def _is_complex(x) -> bool:
    return _aval(x).dtype.kind == "c"


def _real_dtype(dt):
    return np.finfo(dt).dtype if np.dtype(dt).kind == "c" else np.dtype(dt)


def _complex_dtype(dt):
    return np.result_type(dt, np.complex64)


def _to(x, dtype):
    """`x` in `dtype` (a cast only when it differs)."""
    return x if _aval(x).dtype == dtype else convert_element_type(x, np.dtype(dtype))


def mT(x):
    """Swap the last two axes."""
    nd = _aval(x).ndim
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def mH(x):
    """Conjugate transpose of the last two axes."""
    return conj(mT(x)) if _is_complex(x) else mT(x)


def cj(x):
    return conj(x) if _is_complex(x) else x


def re(x):
    return real(x) if _is_complex(x) else x


def mm(a, b):
    """Stacked matrix product `a @ b` (equal leading dims; dtypes promoted)."""
    dt = np.result_type(_aval(a).dtype, _aval(b).dtype)
    a, b = _to(a, dt), _to(b, dt)
    nb = _aval(a).ndim - 2
    batch = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (batch, batch)))


@lru_cache(maxsize=64)
def _mask(kind: str, m: int, n: int, k: int, dtype) -> np.ndarray:
    """The read-only matrix `kind` in `dtype` ("tril": 1 where j <= i + k, "triu": where
    j >= i + k, "eye", "offdiag"; "phi": the strict lower triangle and 1/2 on the diagonal, cholesky's
    Phi), built once per size: rebuilding it on every rule call cost as much as the masking
    itself (benchmarks/linalg.py)."""
    if kind == "eye":
        t = np.eye(m, n, dtype=dtype)
    elif kind == "offdiag":
        t = 1 - np.eye(m, n, dtype=dtype)
    elif kind == "phi":
        t = np.tri(m, n, -1, dtype=dtype) + np.asarray(0.5, dtype) * np.eye(m, n, dtype=dtype)
    else:
        t = np.tri(m, n, k if kind == "tril" else k - 1, dtype=dtype)
        t = 1 - t if kind == "triu" else t
    t.flags.writeable = False
    return t


def _mask_like(x, kind, k=0):
    """`_mask` for x's trailing (m, n) dims in x's dtype, broadcast to x's shape."""
    av = _aval(x)
    return np.broadcast_to(_mask(kind, *av.shape[-2:], k, av.dtype), av.shape)


def tril(x, k=0):
    return mul(x, _mask_like(x, "tril", k))


def triu(x, k=0):
    return mul(x, _mask_like(x, "triu", k))


def diag(x):
    """(..., n, n) -> (..., n): the diagonal."""
    return reduce_sum(mul(x, _mask_like(x, "eye")), axes=(_aval(x).ndim - 2,))


def _along(d, shape, axis_from_end):
    """Broadcast `d` (..., n) to `shape` (..., n, n) placing its last axis at -1 or -2."""
    nd = len(shape)
    dims = tuple(range(nd - 2)) + ((nd - 1,) if axis_from_end == 1 else (nd - 2,))
    return broadcast_in_dim(d, shape, dims)


def diag_embed(d):
    av = _aval(d)
    n = av.shape[-1]
    shape = av.shape + (n,)
    return mul(_along(d, shape, 1), np.broadcast_to(_mask("eye", n, n, 0, av.dtype), shape))


def scale_cols(x, d):
    """x * d[..., None, :]"""
    dt = np.result_type(_aval(x).dtype, _aval(d).dtype)
    return mul(_to(x, dt), _to(_along(d, _aval(x).shape, 1), dt))


def scale_rows(x, d):
    """x * d[..., :, None]"""
    dt = np.result_type(_aval(x).dtype, _aval(d).dtype)
    return mul(_to(x, dt), _to(_along(d, _aval(x).shape, 2), dt))


def _eye_like(x, n=None):
    av = _aval(x)
    n = av.shape[-1] if n is None else n
    return np.broadcast_to(_mask("eye", n, n, 0, av.dtype), av.shape[:-2] + (n, n))


def hermitian_from(dA, lower: bool):
    """The Hermitian matrix whose strict `lower` (or upper) triangle is that of `dA` and whose
    diagonal is Re(diag dA): what LAPACK's cholesky / eigh read of their input."""
    if not _is_complex(dA):  # (real: one triangle with its diagonal plus the other one)
        return (add(tril(dA), mT(tril(dA, -1))) if lower
                else add(triu(dA), mT(triu(dA, 1))))
    strict = tril(dA, -1) if lower else triu(dA, 1)
    d = diag(dA)
    if _is_complex(dA):
        d = convert_element_type(real(d), _aval(dA).dtype)
    return add(add(strict, mH(strict)), diag_embed(d))


def inverse_gaps(w):
    """F[..., i, j] = 1 / (w_j - w_i) off the diagonal, 0 where w_i and w_j are degenerate:
    within `_degenerate_tolerance` of each other. LAPACK returns the eigenvalues of a matrix
    built with a repeated one a few ulps apart (Q diag(1, 1, 3) Q^H gives gaps ~1e-15), and
    1 / 1e-15 turned the derivative of a projector onto that eigenspace into rounding noise
    (O(1) wrong, second order ~1e14); eigenvalues that close are numerically one, and their
    eigenvectors are determined only up to a rotation within their span."""
    if type(w) is np.ndarray:  # (concrete eigenvalues, eager grad: a few NumPy passes)
        gaps = w[..., None, :] - w[..., :, None]
        tol = _degenerate_tolerance(w) * np.abs(w).max(axis=-1, initial=0.0)[..., None, None]
        zero = np.abs(gaps) <= tol
        gaps[zero] = 1.0
        f = np.reciprocal(gaps, out=gaps)
        f[zero] = 0.0
        return f
    av = _aval(w)
    shape = av.shape + (av.shape[-1],)
    gaps = sub(_along(w, shape, 1), _along(w, shape, 2))
    scale = reduce_max(_abs(w), axes=(av.ndim - 1,)) if av.shape[-1] else None
    if scale is None:
        zero = eq(gaps, 0.0)
    else:
        tol = mul(scale, _degenerate_tolerance(w))
        tol = broadcast_in_dim(tol, shape, tuple(range(av.ndim - 1)))
        zero = le(_abs(gaps), tol)
    return select(zero, np.zeros(shape, av.dtype), reciprocal(select(zero, 1.0, gaps)))


def _degenerate_tolerance(w) -> float:
    """Relative gap below which two of n eigenvalues (or squared singular values) count as
    one: 16 n ulps of the largest, above LAPACK's backward error (gaps of a repeated
    eigenvalue measured up to ~2n ulps)."""
    av = _aval(w)
    return 16.0 * max(av.shape[-1], 1) * float(np.finfo(_real_dtype(av.dtype)).eps)


def front_batch(prim):
    """vmap rule of a stacked-matrix primitive: every operand gets the batch axis first (an
    unbatched one by a broadcast view), so the batch is one more leading dim."""
    def batch(vals, dims, axis_size, **params):
        vals = [bdim_at_front(v, d, axis_size) if not isinstance(v, (int, float)) else v
                for v, d in zip(vals, dims)]
        out = prim.bind(*vals, **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)
    return batch


def _square_aval(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: expected square matrices (..., n, n), got {a.str_short()}")


def _reject_narrow(name, dtypes):
    for dt in dtypes:
        if dt.kind == "V" or (dt.kind == "f" and dt.itemsize < 4):
            raise TypeError(f"{name}: array type {dt} is unsupported in linalg (as in NumPy's "
                            "LAPACK routines); convert to float32 first")


def _checked(name, rule, dtype_of):
    """`rule` after rejecting float16 / bfloat16 operands."""
    def checked(*args, **params):
        _reject_narrow(name, [dtype_of(a) for a in args if hasattr(a, "dtype")])
        return rule(*args, **params)
    return checked


def _primitive(name, impl, aval, jvp, multiple_results=False):
    p = Primitive(name, multiple_results=multiple_results)
    p.impl = _checked(name, impl, lambda a: np.dtype(a.dtype))
    p.abstract_eval = _checked(name, aval, lambda a: a.dtype)
    p.jvp = jvp
    p.batch = front_batch(p)
    return p


# --------------------------------------------------------------------------- solve
def _solve_impl(a, b, singular="raise"):
    """np.linalg.solve; with singular="nan", a singular matrix's solution is NaN (what
    NumPy's own inverse gives under np.errstate(invalid="ignore"), which its cond reads as
    an infinite condition number) instead of a LinAlgError."""
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        if singular != "nan":
            raise
    out = array_module(a, b).empty(b.shape, b.dtype)
    for idx in np.ndindex(*a.shape[:-2]):
        try:
            out[idx] = np.linalg.solve(a[idx], b[idx])
        except np.linalg.LinAlgError:
            out[idx] = np.nan
    return out


def _solve_aval(a, b, singular="raise"):
    _square_aval("solve", a)
    if b.shape[:-2] != a.shape[:-2] or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"solve: a {a.str_short()} and b {b.str_short()} do not match "
                         "(b must be (..., n, k) with a's leading dims)")
    return ShapedArray(b.shape, b.dtype)


def _solve_jvp(primals, tangents, singular="raise"):
    a, b = primals
    da, db = tangents
    x = solve_p.bind(a, b, singular=singular)
    if da is ZERO and db is ZERO:
        return x, ZERO
    rhs = db if da is ZERO else (neg(mm(da, x)) if db is ZERO else sub(db, mm(da, x)))
    return x, solve_p.bind(a, rhs, singular=singular)


def _solve_transpose(ct, a, b, singular="raise"):
    return [None, solve_p.bind(mT(a), ct, singular=singular)]


solve_p = _primitive("linalg_solve", _solve_impl, _solve_aval, _solve_jvp)
solve_p.transpose = _solve_transpose


def solve(a, b, singular: str = "raise"):
    """x with a @ x == b for a (*B, n, n), b (*B, n, k). A singular matrix raises
    LinAlgError, or with singular="nan" gives NaN for its solution."""
    if singular == "raise":
        return solve_p.bind(a, b)
    return solve_p.bind(a, b, singular=singular)


# --------------------------------------------------------------------------- triangular_solve
def _scipy_linalg(*xs):
    """SciPy's linalg when installed (imported on first use: `import fungrad` stays
    NumPy-only), else None; cupyx.scipy's for CuPy arrays `xs`."""
    try:
        return scipy_module("linalg", *xs)
    except ImportError:  # pragma: no cover - the test extra installs SciPy
        return None


def _each_matrix(fn, out_shape, out_dtype, *xs):
    """`fn` on each matrix of the stacks `xs` (equal leading dims), into one new array: for
    the SciPy and cupyx.scipy routines that take one matrix at a time."""
    out = array_module(*xs).empty(out_shape, out_dtype)
    for idx in np.ndindex(*xs[0].shape[:-2]):
        out[idx] = fn(*(x[idx] for x in xs))
    return out


def _op(a, transpose_a, conjugate_a):
    a = a.swapaxes(-1, -2) if transpose_a else a
    return a.conj() if conjugate_a else a


def _triangular_solve_impl(a, b, lower, transpose_a, conjugate_a, unit_diagonal):
    """op(a) x = b, a triangular (only its `lower`/upper triangle is read)."""
    sl = _scipy_linalg(a)
    if a.ndim == 2 and sl is not None and a.dtype.kind != "V":
        trans = {(False, False): 0, (True, False): 1, (True, True): 2}.get(
            (transpose_a, conjugate_a))
        if trans is not None:
            return sl.solve_triangular(a, b, trans=trans, lower=lower,
                                       unit_diagonal=unit_diagonal, check_finite=False)
    n = a.shape[-1]
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        eye = array_module(a).eye(n, dtype=a.dtype)
        t = t - t * eye + eye
    if a.ndim > 2 and sl is not None:
        return _each_matrix(lambda t, b: _triangular_solve_impl(
            t, b, lower, transpose_a, conjugate_a, unit_diagonal), b.shape,
            np.result_type(a.dtype, b.dtype), t, b)
    return np.linalg.solve(_op(t, transpose_a, conjugate_a), b)


def _triangular_solve_aval(a, b, lower, transpose_a, conjugate_a, unit_diagonal):
    _square_aval("triangular_solve", a)
    if b.shape[:-2] != a.shape[:-2] or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"triangular_solve: a {a.str_short()} and b {b.str_short()} do not "
                         "match (b must be (..., n, k) with a's leading dims)")
    return ShapedArray(b.shape, np.result_type(a.dtype, b.dtype))


def _triangle(x, lower, unit_diagonal):
    k = -1 if unit_diagonal else 0
    return tril(x, k) if lower else triu(x, -k)


def _triangular_solve_jvp(primals, tangents, **params):
    a, b = primals
    da, db = tangents
    x = triangular_solve_p.bind(a, b, **params)
    if da is ZERO and db is ZERO:
        return x, ZERO
    rhs = db
    if da is not ZERO:  # d(op(A)^-1) b = -op(A)^-1 op(dA) x, dA read on A's triangle only
        dop = _triangle(da, params["lower"], params["unit_diagonal"])
        dop = mT(dop) if params["transpose_a"] else dop
        dop = conj(dop) if params["conjugate_a"] and _is_complex(dop) else dop
        t = neg(mm(dop, x))
        rhs = t if db is ZERO else add(_to(db, _aval(t).dtype), t)
    return x, triangular_solve_p.bind(a, rhs, **params)


def _triangular_solve_transpose(ct, a, b, lower, transpose_a, conjugate_a, unit_diagonal):
    # b -> op(A)^-1 b transposes to ct -> op(A)^-T ct (no conjugation: docs/design.md)
    return [None, triangular_solve_p.bind(a, ct, lower=lower, transpose_a=not transpose_a,
                                          conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)]


triangular_solve_p = _primitive("triangular_solve", _triangular_solve_impl,
                                _triangular_solve_aval, _triangular_solve_jvp)
triangular_solve_p.transpose = _triangular_solve_transpose


def triangular_solve(a, b, lower=True, transpose_a=False, conjugate_a=False,
                     unit_diagonal=False):
    """x with op(a) @ x == b, op = identity / transpose / conjugate (transpose)."""
    dt = np.result_type(_aval(a).dtype, _aval(b).dtype)
    return triangular_solve_p.bind(_to(a, dt), _to(b, dt), lower=bool(lower),
                                   transpose_a=bool(transpose_a),
                                   conjugate_a=bool(conjugate_a) and dt.kind == "c",
                                   unit_diagonal=bool(unit_diagonal))


def solve_right_upper(x, r):
    """x @ r^-1 for upper-triangular r."""
    return mT(triangular_solve(r, mT(x), lower=False, transpose_a=True))


# --------------------------------------------------------------------------- cholesky
def _cholesky_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    L = cholesky_p.bind(a)
    dA = hermitian_from(da, lower=True)
    y = triangular_solve(L, dA, lower=True)                      # L^-1 dA
    phi = mH(triangular_solve(L, mH(y), lower=True))             # L^-1 dA L^-H
    Phi = mul(phi, _mask_like(phi, "phi"))  # strict lower triangle, half the diagonal
    return L, mm(L, Phi)


def _cholesky_aval(a):
    _square_aval("cholesky", a)
    return ShapedArray(a.shape, a.dtype)


cholesky_p = _primitive("cholesky", lambda a: np.linalg.cholesky(a), _cholesky_aval,
                        _cholesky_jvp)


# --------------------------------------------------------------------------- det / slogdet
def _logdet_tangent(a, da):
    """tr(a^-1 da); NaN for an exactly singular a (log|det| = -inf has no slope), where the
    solve raised LinAlgError from slogdet's derivative."""
    return diag_sum(solve(a, _to(da, _aval(a).dtype), singular="nan"))


def diag_sum(x):
    return reduce_sum(mul(x, _mask_like(x, "eye")), axes=(_aval(x).ndim - 2,
                                                        _aval(x).ndim - 1))


def _det_jvp(primals, tangents):
    """d det = tr(adj(a) da): the adjugate, not det(a) a^-1, so singular matrices (rank n-1:
    a rank-one adjugate; rank n-2 or less: zero) get their finite derivative too."""
    (a,), (da,) = primals, tangents
    d = det_p.bind(a)
    nd = _aval(a).ndim
    return d, reduce_sum(mul(mT(adjugate_p.bind(a)), _to(da, _aval(a).dtype)), axes=(nd - 2,
                                                                                   nd - 1))


def _det_aval(a):
    _square_aval("det", a)
    return ShapedArray(a.shape[:-2], a.dtype)


det_p = _primitive("det", lambda a: np.linalg.det(a), _det_aval, _det_jvp)


# --------------------------------------------------------------------------- adjugate
def _adjugate_impl(a):
    """adj(a) = det(a) a^-1 (accurate up to rank n-1 in floating point: the error of a^-1
    lies along the direction det scales away); exactly singular matrices take the SVD form
    (the LU has a zero pivot there)."""
    xp = array_module(a)
    with np.errstate(all="ignore"):
        try:
            out = np.linalg.det(a)[..., None, None] * np.linalg.inv(a)
        except np.linalg.LinAlgError:
            out = None
        redo = (xp.ones(a.shape[:-2], bool) if out is None else
                ~np.isfinite(out).all(axis=(-2, -1)) & np.isfinite(a).all(axis=(-2, -1)))
    if not redo.any():
        return out
    exact = _adjugate_by_svd(xp.where(redo[..., None, None], a, xp.eye(a.shape[-1],
                                                                         dtype=a.dtype)))
    return exact if out is None else xp.where(redo[..., None, None], exact, out)


def _adjugate_by_svd(a):
    """With a = U diag(s) Vh: adj(a) = det(U) det(Vh) Vh^H diag(p) U^H, p_i = prod_{j!=i} s_j
    (adj(P Q) = adj(Q) adj(P), adj of a unitary P = det(P) P^H): no division by s."""
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    xp = array_module(a)
    p = xp.prod(xp.where(xp.eye(n, dtype=bool), 1.0, s[..., None, :]), axis=-1)
    c = (np.linalg.det(u) * np.linalg.det(vh))[..., None, None]
    return (c * (vh.swapaxes(-1, -2).conj() * p[..., None, :]) @ u.swapaxes(-1, -2).conj()
            ).astype(a.dtype, copy=False)


def _adjugate_jvp(primals, tangents):
    """With a = U S Vh (U, Vh unitary, held fixed): adj(a + t dA) = c Vh^H adj(S + t E) U^H,
    c = det(U) det(Vh), E = U^H dA Vh^H. At a diagonal S, d adj(S)[E] = D with
    D_ij = -E_ij q_ij (i != j) and D_ii = sum_{k != i} E_kk q_ik, q_ij = prod_{k != i,j} s_k
    (the invertible case's (tr(adj E) adj - adj E adj) / det, a polynomial in s, so exact
    at every rank). No division: finite at singular matrices."""
    (a,), (da,) = primals, tangents
    adj = adjugate_p.bind(a)
    u, s, vh = svd_p.bind(a, full_matrices=False)
    dt = _aval(a).dtype
    e = mm(mH(u), mm(_to(da, dt), mH(vh)))
    q = _to(_pair_products(s), dt)
    nd = _aval(a).ndim
    d_diag = reduce_sum(mul(q, _along(diag(e), _aval(e).shape, 1)), axes=(nd - 1,))
    dmat = sub(diag_embed(d_diag), mul(e, q))
    c = mul(det_p.bind(u), det_p.bind(vh))
    out = mm(mH(vh), mm(dmat, mH(u)))
    return adj, mul(out, broadcast_in_dim(c, _aval(out).shape, tuple(range(nd - 2))))


def _pair_products(s):
    """q[..., i, j] = prod_{k != i, j} s_k off the diagonal, 0 on it (products, no division,
    so zeros in s are fine)."""
    nd = _aval(s).ndim
    n = _aval(s).shape[-1]
    shape = _aval(s).shape + (n,)
    eye = np.broadcast_to(np.eye(n, dtype=bool), shape)
    rows = select(eye, np.ones(shape, _aval(s).dtype), _along(s, shape, 1))  # s, s_i -> 1
    return mul(prod_others(rows, (nd,)), _mask_like(rows, "offdiag"))


def _adjugate_aval(a):
    _square_aval("adjugate", a)
    return ShapedArray(a.shape, a.dtype)


adjugate_p = _primitive("adjugate", _adjugate_impl, _adjugate_aval, _adjugate_jvp)


def _slogdet_impl(a):
    sign, logabs = np.linalg.slogdet(a)
    return [sign, logabs]


def _slogdet_aval(a):
    _square_aval("slogdet", a)
    return [ShapedArray(a.shape[:-2], a.dtype), ShapedArray(a.shape[:-2], _real_dtype(a.dtype))]


def _slogdet_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    sign, logabs = slogdet_p.bind(a)
    t = _logdet_tangent(a, da)
    if not _is_complex(a):
        return [sign, logabs], [ZERO, t]
    # sign = det / |det| turns with the imaginary part of tr(a^-1 da)
    return [sign, logabs], [mul(sign, mul(convert_element_type(imag(t), _aval(a).dtype), 1j)),
                            real(t)]


slogdet_p = _primitive("slogdet", _slogdet_impl, _slogdet_aval, _slogdet_jvp,
                       multiple_results=True)


# --------------------------------------------------------------------------- eigh
def _eigh_impl(a, lower):
    w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
    return [w, v]


def _eigh_aval(a, lower):
    _square_aval("eigh", a)
    return [ShapedArray(a.shape[:-1], _real_dtype(a.dtype)), ShapedArray(a.shape, a.dtype)]


def _eigh_jvp(primals, tangents, lower):
    (a,), (da,) = primals, tangents
    w, v = eigh_p.bind(a, lower=lower)
    c = mm(mH(v), mm(hermitian_from(da, lower), v))              # V^H dA V
    dw = re(diag(c))
    dv = mm(v, mul(c, _to(inverse_gaps(w), _aval(c).dtype)))
    return [w, v], [dw, dv]


eigh_p = _primitive("eigh", _eigh_impl, _eigh_aval, _eigh_jvp, multiple_results=True)


def _eigvalsh_jvp(primals, tangents, lower):
    (a,), (da,) = primals, tangents
    w = eigvalsh_p.bind(a, lower=lower)
    _, v = eigh_p.bind(a, lower=lower)
    # dw_i = Re(v_i^H dA v_i): finite for degenerate eigenvalues too
    dv = mm(hermitian_from(da, lower), v)
    return w, re(reduce_sum(mul(cj(v), dv), axes=(_aval(v).ndim - 2,)))


eigvalsh_p = _primitive("eigvalsh", lambda a, lower: np.linalg.eigvalsh(
    a, UPLO="L" if lower else "U"), lambda a, lower: _eigh_aval(a, lower)[0], _eigvalsh_jvp)


# --------------------------------------------------------------------------- svd
def _svd_impl(a, full_matrices):
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return [u, s, vh]


def _matrix_dims(name: str, a) -> tuple:
    """(batch dims, m, n, min(m, n)) of a stack of matrices `a` (..., m, n), or ValueError
    naming the function."""
    if a.ndim < 2:
        raise ValueError(f"{name}: expected matrices (..., m, n), got {a.str_short()}")
    m, n = a.shape[-2:]
    return a.shape[:-2], m, n, min(m, n)


def _svd_aval(a, full_matrices):
    b, m, n, k = _matrix_dims("svd", a)
    mu, nv = (m, n) if full_matrices else (k, k)
    return [ShapedArray(b + (m, mu), a.dtype), ShapedArray(b + (k,), _real_dtype(a.dtype)),
            ShapedArray(b + (nv, n), a.dtype)]


def _svd_jvp(primals, tangents, full_matrices):
    (a,), (da,) = primals, tangents
    u, s, vh = outs = svd_p.bind(a, full_matrices=full_matrices)
    m, n = _aval(a).shape[-2:]
    if not full_matrices or m == n:
        return outs, list(_svd_thin_jvp(a, da, u, s, vh))
    nd, k = _aval(a).ndim, min(m, n)
    u_k, vh_k = slice_along(u, nd - 1, 0, k), slice_along(vh, nd - 2, 0, k)
    du_k, ds, dvh_k = _svd_thin_jvp(a, da, u_k, s, vh_k)
    if m > n:
        du = concatenate([du_k, _completion_tangent(u_k, du_k, slice_along(u, nd - 1, k, m))],
                         nd - 1)
        return outs, [du, ds, dvh_k]
    dv_ext = _completion_tangent(mH(vh_k), mH(dvh_k), mH(slice_along(vh, nd - 2, k, n)))
    return outs, [du_k, ds, concatenate([dvh_k, mH(dv_ext)], nd - 2)]


def _completion_tangent(q_k, dq_k, q_ext):
    """The tangent of columns q_ext completing q_k to a unitary matrix, for q_k moving by
    dq_k: the smallest rotation keeping [q_k | q_ext] unitary, -q_k (dq_k^H q_ext). The
    completion is not unique (svd(full_matrices=True)'s extra singular vectors: NumPy's
    depend on LAPACK's internal path), so this is exact for functions of q_k and of the
    projector q_ext q_ext^H, as eigh's for a degenerate eigenspace."""
    return neg(mm(q_k, mm(mH(dq_k), q_ext)))


def _svd_thin_jvp(a, da, u, s, vh):
    """(du, ds, dvh) of the thin SVD a = u diag(s) vh (u: m x k, vh: k x n)."""
    m, n = _aval(a).shape[-2:]
    v = mH(vh)
    dp = mm(mH(u), mm(da, v))                                     # U^H dA V (k x k)
    ds = re(diag(dp))
    f = inverse_gaps(mul(s, s))                                    # 1 / (s_j^2 - s_i^2)
    cdt = _aval(dp).dtype
    f = _to(f, cdt)
    s_c = _to(s, cdt)
    # 1/s, 0 at an exactly zero singular value: there the phases of u_i, v_i (and, for a
    # non-square a, u_i or v_i itself outside the others' span) are arbitrary and have no
    # derivative; 1/0 made every tangent and cotangent NaN for a complex matrix with a zero
    # singular value (a zero row), even for functions of u s vh or of the other columns
    zero_s = eq(s, 0.0)
    inv_s = _to(select(zero_s, 0.0, reciprocal(select(zero_s, 1.0, s))), cdt)
    du = mm(u, mul(f, add(scale_cols(dp, s_c), scale_rows(mH(dp), s_c))))
    dv = mm(v, mul(f, add(scale_rows(dp, s_c), scale_cols(mH(dp), s_c))))
    if m > n:   # the part of dA outside U's columns
        du = add(du, scale_cols(sub(mm(da, v), mm(u, dp)), inv_s))
    if n > m:
        dv = add(dv, scale_cols(sub(mm(mH(da), u), mm(v, mH(dp))), inv_s))
    if _is_complex(a):  # the phase both U's and V's columns turn by (NumPy's U, V pair)
        du = add(du, scale_cols(u, mul(convert_element_type(imag(diag(dp)), cdt),
                                       mul(inv_s, 1j))))
    return du, ds, mH(dv)


svd_p = _primitive("svd", _svd_impl, _svd_aval, _svd_jvp, multiple_results=True)


def _svdvals_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    s = svdvals_p.bind(a)
    u, _, vh = svd_p.bind(a, full_matrices=False)
    # ds_i = Re(u_i^H dA v_i)
    return s, re(reduce_sum(mul(cj(u), mm(da, mH(vh))), axes=(_aval(u).ndim - 2,)))


svdvals_p = _primitive("svdvals", lambda a: np.linalg.svd(a, compute_uv=False),
                       lambda a: _svd_aval(a, False)[1], _svdvals_jvp)


# --------------------------------------------------------------------------- qr
def _qr_impl(a, mode):
    out = np.linalg.qr(a, mode=mode)
    return [out] if mode == "r" else [out[0], out[1]]


def _qr_aval(a, mode):
    b, m, n, k = _matrix_dims("qr", a)
    r = ShapedArray(b + ((m if mode == "complete" else k), n), a.dtype)
    if mode == "r":
        return [ShapedArray(b + (k, n), a.dtype)]
    return [ShapedArray(b + (m, m if mode == "complete" else k), a.dtype), r]


def _qr_tall_jvp(q, r, da):
    """Reduced QR of a tall (m >= n) a = q r: with M = q^H dA r^-1, dq^H q = Omega is
    skew-Hermitian, its strict lower triangle that of M, its diagonal i Im(diag M) (r has a
    real diagonal); dr = q^H dA - Omega r, dq = dA r^-1 - q (M - Omega).

    Column j of r^-1 reads only r's leading (j+1) x (j+1) block, and so do column j of dq
    and row j of dr written this way ((M - Omega) r, the same in exact arithmetic, mixes
    every column of r^-1 into each row). So for a rank-deficient a, whose first exactly
    zero pivot r_kk marks a column in the span of the earlier ones, q's first k columns and
    r's first k rows (what a determines) get their exact derivative; the solve sees the
    zero pivots as 1 (`_unit_zero_pivots`): it raised LinAlgError, and inf there would make
    every cotangent NaN through 0 * inf. The columns from k on (q_k is any unit vector
    orthogonal to the earlier ones: no derivative) get a finite, arbitrary tangent."""
    dt = _aval(q).dtype
    da = _to(da, dt)
    dar = solve_right_upper(da, _unit_zero_pivots(r))            # dA r^-1
    M = mm(mH(q), dar)
    low = tril(M, -1)
    omega = sub(low, mH(low))
    if _is_complex(M):
        omega = add(omega, diag_embed(mul(convert_element_type(imag(diag(M)),
                                                               _aval(M).dtype), 1j)))
    return sub(dar, mm(q, sub(M, omega))), triu(sub(mm(mH(q), da), mm(omega, r)))


def _unit_zero_pivots(r):
    """Triangular r with each exactly zero diagonal entry replaced by 1: a nonsingular
    matrix whose inverse has r^-1's leading columns up to the first zero pivot."""
    d = diag(r)
    zeros = np.zeros(_aval(d).shape, _aval(d).dtype)
    return add(r, diag_embed(select(eq(d, zeros), np.ones_like(zeros), zeros)))


def _qr_complete_jvp(q, r, da):
    """Complete QR of a tall (m > n) a. The extra columns Q_mp of LAPACK's Q are fixed by its
    Householder form Q = I - V T V^H (V: m x n), i.e. rank(Q - I) = n: writing the blocks of
    the first n columns as Q_nn, Q_pn, every column of Q - I lies in the span of
    [Q_nn - I; Q_pn], which gives Q_mp = E_mp + (Q_mn - E_mn) Z^H with
    Z = Q_pn (Q_nn - I)^-1 (E: the identity's columns). Its derivative, with dQ_mn that of
    the reduced QR: dQ_mp = dQ_mn Z^H + (Q_mn - E_mn) dZ^H, dZ = (dQ_pn - Z dQ_nn)
    (Q_nn - I)^-1.

    Q_nn - I is exactly singular where a Householder reflector is the identity (a column
    already zero below the diagonal, e.g. a triangular a: LAPACK's Q jumps there, so Q_mp
    has no derivative). The solve raised LinAlgError, failing even the derivative of R;
    such matrices now take the smallest rotation keeping Q unitary (`_completion_tangent`,
    svd's choice for its extra columns), the solve seeing the identity in their place so
    that no NaN reaches the cotangents."""
    nd = _aval(q).ndim
    m, n = _aval(q).shape[-1], _aval(r).shape[-1]
    q_mn = slice_along(q, nd - 1, 0, n)
    dq_mn, dr_nn = _qr_tall_jvp(q_mn, slice_along(r, nd - 2, 0, n), da)
    shift = mH(sub(slice_along(q_mn, nd - 2, 0, n), _eye_like(q, n)))     # (Q_nn - I)^H
    q_pn = slice_along(q_mn, nd - 2, n, m)
    z_h = solve(shift, mH(q_pn), singular="nan")                           # Z^H (n x p)
    nan = ne(z_h, z_h)
    householder = eq(reduce_sum(_to(nan, np.dtype(np.float32)), axes=(nd - 2, nd - 1)), 0.0)
    keep = broadcast_in_dim(householder, _aval(shift).shape, tuple(range(nd - 2)))
    shift = select(keep, shift, _eye_like(shift))
    z_h = solve(shift, mH(q_pn))
    dq_nn, dq_pn = slice_along(dq_mn, nd - 2, 0, n), slice_along(dq_mn, nd - 2, n, m)
    dz_rows = sub(dq_pn, mm(mH(z_h), dq_nn))                               # dQ_pn - Z dQ_nn
    dz_h = solve(shift, mH(dz_rows))                                       # dZ^H
    e_mn = np.broadcast_to(np.eye(m, n, dtype=_aval(q).dtype), _aval(q_mn).shape)
    dq_mp = _to(add(mm(dq_mn, z_h), mm(sub(q_mn, e_mn), dz_h)), _aval(dq_mn).dtype)
    q_mp = slice_along(q, nd - 1, n, m)
    rotation = _to(_completion_tangent(q_mn, dq_mn, q_mp), _aval(dq_mn).dtype)
    dq_mp = select(broadcast_in_dim(householder, _aval(dq_mp).shape, tuple(range(nd - 2))),
                   dq_mp, rotation)
    zeros = np.zeros(_aval(r).shape[:-2] + (m - n, n), _aval(dr_nn).dtype)
    return (concatenate([dq_mn, dq_mp], nd - 1), concatenate([dr_nn, zeros], nd - 2))


def _qr_jvp(primals, tangents, mode):
    (a,), (da,) = primals, tangents
    outs = qr_p.bind(a, mode=mode)
    m, n = _aval(a).shape[-2:]
    if mode == "complete" and m > n:
        return outs, list(_qr_complete_jvp(*outs, da))
    q, r = qr_p.bind(a, mode="reduced") if mode == "r" else outs
    if m >= n:
        dq, dr = _qr_tall_jvp(q, r, da)
    else:  # a = q [r1 | r2]: the square part's QR, and r2 = q^H a2
        nd = _aval(a).ndim
        r1 = slice_along(r, nd - 1, 0, m)
        dq, dr1 = _qr_tall_jvp(q, r1, slice_along(da, nd - 1, 0, m))
        a2, da2 = slice_along(a, nd - 1, m, n), slice_along(da, nd - 1, m, n)
        dr2 = add(mm(mH(dq), a2), mm(mH(q), da2))
        dr = concatenate([dr1, _to(dr2, _aval(dr1).dtype)], nd - 1)
    return outs, ([dr] if mode == "r" else [dq, dr])


qr_p = _primitive("qr", _qr_impl, _qr_aval, _qr_jvp, multiple_results=True)


# --------------------------------------------------------------------------- eig
def _eig_impl(a):
    w, v = np.linalg.eig(a)
    dt = _complex_dtype(a.dtype)
    return [w.astype(dt, copy=False), v.astype(dt, copy=False)]


def _eig_aval(a):
    _square_aval("eig", a)
    dt = _complex_dtype(a.dtype)
    return [ShapedArray(a.shape[:-1], dt), ShapedArray(a.shape, dt)]


def _eig_coefficients(a, da, v):
    """C = V^-1 dA V (complex)."""
    dt = _aval(v).dtype
    return solve(v, mm(_to(da, dt), v))


def _eig_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w, v = eig_p.bind(a)
    if _aval(v).shape[-1] == 0:  # (0 x 0: the gauge's max over no components would raise)
        return [w, v], [ZERO, ZERO]
    c = _eig_coefficients(a, da, v)
    dw = diag(c)
    dv = mm(v, mul(c, inverse_gaps(w)))
    # NumPy's (LAPACK's) gauge: unit norm and the largest component real. Add v (alpha + i
    # beta) per column: alpha = -Re(v^H dv) keeps the norm, beta zeroes Im(dv_k).
    nd = _aval(v).ndim
    alpha = neg(real(reduce_sum(mul(conj(v), dv), axes=(nd - 2,))))
    mag = _abs(v)
    biggest = _along(reduce_max(mag, axes=(nd - 2,)), _aval(v).shape, 1)
    pick = convert_element_type(eq(mag, biggest), _aval(v).dtype)  # the largest component
    vk = real(reduce_sum(mul(v, pick), axes=(nd - 2,)))
    dvk = imag(reduce_sum(mul(dv, pick), axes=(nd - 2,)))
    beta = neg(div(dvk, vk))
    dt = _aval(v).dtype
    shift = add(convert_element_type(alpha, dt), mul(convert_element_type(beta, dt), 1j))
    return [w, v], [dw, add(dv, scale_cols(v, shift))]


eig_p = _primitive("eig", _eig_impl, _eig_aval, _eig_jvp, multiple_results=True)


def _eigvals_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w = eigvals_p.bind(a)
    _, v = eig_p.bind(a)
    return w, diag(_eig_coefficients(a, da, v))


eigvals_p = _primitive("eigvals", lambda a: _eig_impl(a)[0], lambda a: _eig_aval(a)[0],
                       _eigvals_jvp)


# --------------------------------------------------------------------------- pinv
def _pinv_jvp(primals, tangents, rcond, hermitian):
    """Golub & Pereyra (constant rank): dA+ = -A+ dA A+ + A+ A+^H dA^H (I - A A+)
    + (I - A+ A) dA^H A+^H A+."""
    (a,), (da,) = primals, tangents
    p = pinv_p.bind(a, rcond=rcond, hermitian=hermitian)
    dah = mH(da)
    ph = mH(p)
    left = sub(_eye_like(a, _aval(a).shape[-2]), mm(a, p))    # I - A A+ (m x m)
    right = sub(_eye_like(a, _aval(a).shape[-1]), mm(p, a))   # I - A+ A (n x n)
    t = neg(mm(p, mm(da, p)))
    t = add(t, mm(mm(p, ph), mm(dah, left)))
    t = add(t, mm(right, mm(dah, mm(ph, p))))
    return p, t


def _pinv_aval(a, rcond, hermitian):
    b, m, n, _ = _matrix_dims("pinv", a)
    return ShapedArray(b + (n, m), a.dtype)


def _pinv_impl(a, rcond, hermitian):
    if type(a) is np.ndarray:
        return np.linalg.pinv(a, rcond=rcond, hermitian=hermitian)
    if hermitian:  # CuPy's pinv has no `hermitian` (NumPy's then reads one triangle)
        return on_host(np.linalg.pinv)(a, rcond=rcond, hermitian=True)
    return np.linalg.pinv(a, rcond)


pinv_p = _primitive("pinv", _pinv_impl, _pinv_aval, _pinv_jvp)


# --------------------------------------------------------------------------- expm (SciPy's)
def _expm_impl(a):
    sl = _scipy_linalg(a)
    if type(a) is np.ndarray or a.ndim == 2:  # (SciPy's takes stacks, cupyx's one matrix)
        return sl.expm(a)
    return _each_matrix(sl.expm, a.shape, a.dtype, a)


def _expm_frechet_impl(a, e):
    """L(a, e) = d/dt expm(a + t e): the top-right block of expm([[a, e], [0, a]])."""
    n = a.shape[-1]
    block = _block2(a, e)
    return _expm_impl(block)[..., :n, n:]


def _block2(a, e):
    z = np.zeros_like(a)
    return np.concatenate([np.concatenate([a, e], -1), np.concatenate([z, a], -1)], -2)


def _traced_block2(a, e):
    nd = _aval(a).ndim
    z = np.zeros(_aval(a).shape, np.result_type(_aval(a).dtype, _aval(e).dtype))
    dt = z.dtype
    return concatenate([concatenate([_to(a, dt), _to(e, dt)], nd - 1),
                        concatenate([z, _to(a, dt)], nd - 1)], nd - 2)


def _expm_aval(a):
    _square_aval("expm", a)
    return ShapedArray(a.shape, a.dtype)


def _expm_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    return expm_p.bind(a), expm_frechet_p.bind(a, da)


expm_p = _primitive("expm", _expm_impl, _expm_aval, _expm_jvp)


def _expm_frechet_jvp(primals, tangents):
    a, e = primals
    da, de = tangents
    out = expm_frechet_p.bind(a, e)
    t = ZERO if de is ZERO else expm_frechet_p.bind(a, de)
    if da is not ZERO:
        # L(a, e) is the top-right block of expm(B), B = [[a, e], [0, a]]; along da it moves
        # as the top-right block of L(B, [[da, 0], [0, da]])
        n = _aval(a).shape[-1]
        nd = _aval(a).ndim
        big = expm_frechet_p.bind(_traced_block2(a, e), _diag_block(da))
        second = slice_along(slice_along(big, nd - 2, 0, n), nd - 1, n, 2 * n)
        t = second if t is ZERO else add(t, second)
    return out, t


def _diag_block(d):
    """[[d, 0], [0, d]] (linear in d)."""
    nd = _aval(d).ndim
    z = np.zeros(_aval(d).shape, _aval(d).dtype)
    return concatenate([concatenate([d, z], nd - 1), concatenate([z, d], nd - 1)], nd - 2)


def _expm_frechet_transpose(ct, a, e):
    # <ct, L(a, e)> = <L(a^T, ct), e> (no conjugation)
    return [None, expm_frechet_p.bind(mT(a), ct)]


expm_frechet_p = _primitive("expm_frechet", _expm_frechet_impl,
                            lambda a, e: _expm_aval(a), _expm_frechet_jvp)
expm_frechet_p.transpose = _expm_frechet_transpose


# --------------------------------------------------------------------------- sylvester
@on_host  # (cupyx.scipy has no solve_sylvester)
def _sylvester_impl(x, c):
    """y with x y + y x = c (SciPy's Bartels-Stewart)."""
    sl = _scipy_linalg()
    if x.ndim == 2:
        return sl.solve_sylvester(x, x, c)
    out = np.empty(c.shape, np.result_type(x, c))
    for idx in np.ndindex(*x.shape[:-2]):
        out[idx] = sl.solve_sylvester(x[idx], x[idx], c[idx])
    return out


def _sylvester_jvp(primals, tangents):
    x, c = primals
    dx, dc = tangents
    y = sylvester_p.bind(x, c)
    rhs = dc
    if dx is not ZERO:
        t = neg(add(mm(dx, y), mm(y, dx)))
        rhs = t if dc is ZERO else add(dc, t)
    return y, sylvester_p.bind(x, rhs)


def _sylvester_transpose(ct, x, c):
    # S(y) = x y + y x has S^T(z) = x^T z + z x^T
    return [None, sylvester_p.bind(mT(x), ct)]


sylvester_p = _primitive("sylvester", _sylvester_impl,
                         lambda x, c: ShapedArray(c.shape, c.dtype), _sylvester_jvp)
sylvester_p.transpose = _sylvester_transpose


def _sqrtm_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    x = sqrtm_p.bind(a)
    return x, sylvester_p.bind(x, _to(da, _aval(x).dtype))   # x dx + dx x = da


@on_host  # (cupyx.scipy has no sqrtm)
def _sqrtm_impl(a):
    sl = _scipy_linalg()
    if a.ndim == 2:
        return np.asarray(sl.sqrtm(a))
    out = np.empty(a.shape, a.dtype)
    for idx in np.ndindex(*a.shape[:-2]):
        out[idx] = sl.sqrtm(a[idx])
    return out


sqrtm_p = _primitive("sqrtm", _sqrtm_impl, _expm_aval, _sqrtm_jvp)


LINALG_PRIMITIVES = [solve_p, triangular_solve_p, cholesky_p, det_p, adjugate_p, slogdet_p,
                     eigh_p, eigvalsh_p, svd_p, svdvals_p, qr_p, eig_p, eigvals_p, pinv_p, expm_p,
                     expm_frechet_p, sylvester_p, sqrtm_p]

# helpers the numpy / scipy layers compose with
__all__ = ["LINALG_PRIMITIVES", "solve", "triangular_solve", "mm", "mT", "mH", "tril", "triu",
           "diag", "diag_embed"]


# --------------------------------------------------------------------------- lu (SciPy's)
def _lu_impl(a):
    """[lu, piv, p]: LAPACK's packed LU (unit-lower L below the diagonal, U on and above),
    its row pivots, and the permutation matrix p with p a = L U (for the derivative)."""
    sl = _scipy_linalg(a)
    xp = array_module(a)
    if a.ndim == 2 or (xp is np and 0 not in a.shape[:-2]):
        lu, piv = sl.lu_factor(a, check_finite=False)
    else:  # cupyx's lu_factor takes one matrix; SciPy's refuses an empty batch (vmap of none)
        lu, piv = xp.empty_like(a), xp.empty(a.shape[:-1], np.int32)
        for idx in np.ndindex(*a.shape[:-2]):
            lu[idx], piv[idx] = sl.lu_factor(a[idx], check_finite=False)
    perm = pivots_to_permutation_impl(piv, a.shape[-2])
    p = xp.eye(a.shape[-2], dtype=a.dtype)[perm]
    return [lu, piv.astype(np.int32), p]


@on_host  # (sequential swaps on a few integers: the host's work)
def pivots_to_permutation_impl(piv, n):
    """The row order LAPACK's sequential swaps (row i <-> row piv[i]) give: rows of a in the
    order they appear in L U."""
    piv = np.asarray(piv)
    perm = np.broadcast_to(np.arange(n), piv.shape[:-1] + (n,)).copy()
    for i in range(piv.shape[-1]):
        j = piv[..., i]
        idx = np.indices(piv.shape[:-1])
        pi, pj = perm[(*idx, i)].copy(), perm[(*idx, j)].copy()
        perm[(*idx, i)], perm[(*idx, j)] = pj, pi
    return perm


def _lu_aval(a):
    _square_aval("lu_factor", a)
    return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], np.dtype(np.int32)),
            ShapedArray(a.shape, a.dtype)]


def _lu_jvp(primals, tangents):
    """p a = L U: with M = L^-1 p dA U^-1, dL = L tril(M, -1), dU = L^-1 p dA - tril(M, -1) U
    (the same as triu(M) U, since p dA = dL U + L dU). Column j of tril(M, -1) reads only
    U's leading (j+1) x (j+1) block, so an exactly zero pivot (a singular a: LAPACK's
    factors stay defined, e.g. a zero last pivot) is seen as 1 in the solve
    (`_unit_zero_pivots`), where it raised LinAlgError: the columns before the first zero
    pivot, and a zero last pivot's whole factorization, get their exact derivative."""
    (a,), (da,) = primals, tangents
    lu, piv, p = outs = lu_p.bind(a)
    y = triangular_solve(lu, mm(p, da), lower=True, unit_diagonal=True)   # L^-1 p dA
    low = tril(solve_right_upper(y, _unit_zero_pivots(triu(lu))), -1)   # tril(M, -1)
    dlu = add(add(low, mm(tril(lu, -1), low)), triu(sub(y, mm(low, triu(lu)))))
    return outs, [dlu, ZERO, ZERO]


lu_p = _primitive("lu", _lu_impl, _lu_aval, _lu_jvp, multiple_results=True)

pivots_to_permutation_p = _primitive(
    "lu_pivots_to_permutation",
    lambda piv, n: pivots_to_permutation_impl(piv, n).astype(np.int32),
    lambda piv, n: ShapedArray(piv.shape[:-1] + (n,), np.dtype(np.int32)),
    lambda primals, tangents, n: (pivots_to_permutation_p.bind(primals[0], n=n), ZERO))

LINALG_PRIMITIVES += [lu_p, pivots_to_permutation_p]
