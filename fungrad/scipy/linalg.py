"""fungrad.scipy.linalg: `scipy.linalg`'s triangular / Cholesky / LU solvers, expm, sqrtm
and block_diag, differentiable (closed forms in fungrad.lax.linalg).

Values come from SciPy (imported on first use). On plain arrays each function is SciPy's own
(cupyx.scipy.linalg's for CuPy arrays; where CuPy has none, fungrad's primitives compute it on
the GPU).

    >>> fg.grad(lambda a: fnp.trace(fg.scipy.linalg.expm(a)))(np.zeros((2, 2)))
    array([[1., 0.], [0., 1.]])
"""
from __future__ import annotations

import functools as _functools

import numpy as np

from ..backend import (array_module as _array_module, like as _like,
                       scipy_module as _scipy_module, to_host as _to_host)
from ..core.ad_util import ZERO as _ZERO
from ..lax import linalg as L
from ..numpy._base import (cast as _cast, dtype_of as _dtype_of, is_traced as _is_traced,
                           lift as _lift, shape_of as _shape_of)
from ..numpy._shape import concatenate as _concatenate, reshape as _reshape
from ..numpy._indexing import argsort as _argsort, take as _take
from ..numpy._elementwise import add as _add, exp as _exp, sqrt as _sqrt
from ..numpy.linalg import _float_operand as _fnp_float_operand, _square as _fnp_square


def _widen(a, lapack=True):
    """SciPy computes float16 in float32 (and so fungrad, bfloat16 included); its LAPACK
    wrappers (`lapack`) pick float32 for bool and 1- and 2-byte integers too."""
    dt = _dtype_of(a)
    if dt.kind == "V" or (dt.kind == "f" and dt.itemsize < 4) or \
            (lapack and dt.kind in "biu" and dt.itemsize <= 2):
        return _cast(a, np.dtype(np.float32))
    return a


def _float_operand(fname, a, min_ndim=2):
    return _fnp_float_operand(fname, _widen(a), min_ndim)


def _square(fname, a, lapack=True):
    return _fnp_square(fname, _widen(a, lapack))


def _sl(*arrays):
    """scipy.linalg, or cupyx.scipy.linalg for CuPy `arrays`."""
    return _scipy_module("linalg", *arrays)


def _reject_narrow(fname: str, *arrays) -> None:
    """float16 / bfloat16 operands of the LAPACK-backed decompositions: refused eagerly and
    traced alike, as fnp.linalg refuses them (NumPy's linalg has no float16 routines)."""
    for a in arrays:
        dt = getattr(a, "dtype", None)
        if dt is not None and (dt == np.float16 or dt.kind == "V"):
            raise TypeError(f"scipy.linalg.{fname}: array type {dt} is unsupported in linalg "
                            "(as float16 in NumPy's linalg); cast it to float32 first")


def _scipy_computes(*arrays) -> bool:
    """Whether SciPy computes on `arrays` directly: plain NumPy values (not traced; CuPy
    arrays go through the primitives where cupyx.scipy.linalg lacks the function)."""
    return not _is_traced(*arrays) and _array_module(*arrays) is np


_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False),
          2: (True, True), "C": (True, True)}


def _as_matrix_rhs(b):
    """b as (..., n, k) and whether it was a vector."""
    return (_reshape(b, _shape_of(b) + (1,)), True) if len(_shape_of(b)) == 1 else (b, False)


def _check_rhs(fname, a, b):
    if _shape_of(b)[:1] != _shape_of(a)[-1:] and _shape_of(b)[-2:-1] != _shape_of(a)[-1:]:
        raise ValueError(f"scipy.linalg.{fname}: shapes of a {_shape_of(a)} and b "
                         f"{_shape_of(b)} are incompatible (b needs {_shape_of(a)[-1]} rows)")


def _promote(a, b):
    dt = np.result_type(_dtype_of(a), _dtype_of(b))
    return _cast(a, dt), _cast(b, dt)


def _matrix_and_rhs(name, a, b, trans):
    """The checked, promoted (square matrix, right-hand side) of a triangular-type solve."""
    if trans not in _TRANS:
        raise ValueError(f"scipy.linalg.{name}: trans must be 0/1/2 or 'N'/'T'/'C', got "
                         f"{trans!r}")
    a = _square(name, a)
    b = _float_operand(name, b, 1)
    _check_rhs(name, a, b)
    return _promote(a, b)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """`scipy.linalg.solve_triangular`: x with op(a) x = b, reading one triangle of `a`.

    Example:
        >>> l = np.array([[2.0, 0.0], [1.0, 1.0]])
        >>> fg.scipy.linalg.solve_triangular(l, np.array([2.0, 3.0]), lower=True)
        array([1., 2.])
        >>> fg.grad(lambda b: fg.scipy.linalg.solve_triangular(l, b, lower=True).sum())(np.ones(2))
        array([0., 1.])
    """
    a, b = _lift(a), _lift(b)
    if not _is_traced(a, b):
        return _sl(a, b).solve_triangular(a, b, trans=trans, lower=lower,
                                          unit_diagonal=unit_diagonal, overwrite_b=overwrite_b,
                                          check_finite=check_finite)
    a, b = _matrix_and_rhs("solve_triangular", a, b, trans)
    t, c = _TRANS[trans]
    bm, vec = _as_matrix_rhs(b)
    x = L.triangular_solve(a, bm, lower=lower, transpose_a=t, conjugate_a=c,
                           unit_diagonal=unit_diagonal)
    return _reshape(x, _shape_of(b)) if vec else x


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """`scipy.linalg.cho_factor`: (c, lower), the Cholesky factor in c's `lower` (or
    upper) triangle; the other triangle holds a's entries, as SciPy leaves them.

    Example:
        >>> a = np.array([[4.0, 2.0], [2.0, 2.0]])   # = U.T @ U, U = [[2, 1], [0, 1]]
        >>> fg.scipy.linalg.cho_factor(a)   # U above the diagonal; a's entry below it
        (array([[2., 1.],
               [2., 1.]]), False)
    """
    a = _lift(a)
    if _scipy_computes(a):  # (cupyx.scipy.linalg has no cho_factor)
        return _sl().cho_factor(a, lower=lower, overwrite_a=overwrite_a,
                                check_finite=check_finite)
    a = _square("cho_factor", a)
    if lower:
        return _add(L.cholesky_p.bind(a), L.triu(a, 1)), True
    # the upper triangle of a: U = L^H for L = cholesky of a^H (read on its lower triangle)
    return _add(L.mH(L.cholesky_p.bind(L.mH(a))), L.tril(a, -1)), False


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """`scipy.linalg.cho_solve`: x with a x = b from cho_factor's (c, lower).

    Example:
        >>> a = np.array([[4.0, 2.0], [2.0, 2.0]])
        >>> fg.scipy.linalg.cho_solve(fg.scipy.linalg.cho_factor(a), np.array([2.0, 2.0]))
        array([0., 1.])
    """
    c, lower = c_and_lower
    c, b = _lift(c), _lift(b)
    if _scipy_computes(c, b):  # (cupyx.scipy.linalg has no cho_solve)
        return _sl().cho_solve((c, lower), b, overwrite_b=overwrite_b,
                               check_finite=check_finite)
    c = _square("cho_solve", c)
    b = _float_operand("cho_solve", b, 1)
    _check_rhs("cho_solve", c, b)
    c, b = _promote(c, b)
    bm, vec = _as_matrix_rhs(b)
    if lower:   # L L^H x = b
        y = L.triangular_solve(c, bm, lower=True)
        x = L.triangular_solve(c, y, lower=True, transpose_a=True, conjugate_a=True)
    else:       # U^H U x = b
        y = L.triangular_solve(c, bm, lower=False, transpose_a=True, conjugate_a=True)
        x = L.triangular_solve(c, y, lower=False)
    return _reshape(x, _shape_of(b)) if vec else x


def lu_factor(a, overwrite_a=False, check_finite=True):
    """`scipy.linalg.lu_factor`: (lu, piv), LAPACK's packed LU with partial pivoting;
    derivative dL = L tril(M, -1), dU = triu(M) U for M = L^-1 P dA U^-1.

    Example:
        >>> lu, piv = fg.scipy.linalg.lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> lu   # U on and above the diagonal, L's multipliers below (rows swapped)
        array([[3.        , 4.        ],
               [0.33333333, 0.66666667]])
        >>> piv.tolist()   # row 0 was swapped with row 1
        [1, 1]
    """
    a = _lift(a)
    if not _is_traced(a):
        return _sl(a).lu_factor(a, overwrite_a=overwrite_a, check_finite=check_finite)
    lu, piv, _ = L.lu_p.bind(_square("lu_factor", a))
    return lu, piv


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """`scipy.linalg.lu_solve`: x with op(a) x = b from lu_factor's (lu, piv).

    Example:
        >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fg.scipy.linalg.lu_solve(fg.scipy.linalg.lu_factor(a), np.array([5.0, 11.0]))
        array([1., 2.])
    """
    lu, piv = lu_and_piv
    lu, b = _lift(lu), _lift(b)
    if not _is_traced(lu, b, piv):
        return _sl(lu, b, piv).lu_solve((lu, piv), b, trans=trans, overwrite_b=overwrite_b,
                                        check_finite=check_finite)
    lu, b = _matrix_and_rhs("lu_solve", lu, b, trans)
    n = _shape_of(lu)[-1]
    # (concrete pivots: the swaps run on the host, the permutation lives on piv's device)
    perm = L.pivots_to_permutation_p.bind(piv, n=n) if _is_traced(piv) else \
        _like(piv, L.pivots_to_permutation_impl(_to_host(piv), n), np.int32)
    bm, vec = _as_matrix_rhs(b)
    t, c = _TRANS[trans]
    if not t:   # L U x = P b
        y = L.triangular_solve(lu, _take(bm, perm, axis=-2), lower=True, unit_diagonal=True)
        x = L.triangular_solve(lu, y, lower=False)
    else:       # op(U) op(L) P x = b
        y = L.triangular_solve(lu, bm, lower=False, transpose_a=True, conjugate_a=c)
        y = L.triangular_solve(lu, y, lower=True, transpose_a=True, conjugate_a=c,
                               unit_diagonal=True)
        x = _take(y, _argsort(perm), axis=-2)
    return _reshape(x, _shape_of(b)) if vec else x


def expm(A):
    """`scipy.linalg.expm` (Pade with scaling and squaring); its derivative is the Frechet
    derivative L(A, dA), the top-right block of expm([[A, dA], [0, A]]).

    Example:
        >>> fg.scipy.linalg.expm(np.array([[0.0, 1.0], [0.0, 0.0]]))   # I + A: A @ A = 0
        array([[1., 1.],
               [0., 1.]])
        >>> fg.grad(lambda a: fnp.trace(fg.scipy.linalg.expm(a)))(np.zeros((2, 2)))   # expm(a).T
        array([[1., 0.],
               [0., 1.]])
    """
    A = _lift(A)
    if not _is_traced(A):
        return _sl(A).expm(A)
    if _shape_of(A)[-2:] == (1, 1):  # SciPy's 1x1 case: exp, in the input's dtype
        return _exp(A)
    return L.expm_p.bind(_square("expm", A, lapack=False))


def sqrtm(A):
    """`scipy.linalg.sqrtm`: the principal square root X; dX solves X dX + dX X = dA (a
    Sylvester equation, SciPy's solver). Traced inputs keep their dtype, so a real matrix
    needs a real square root (e.g. symmetric positive definite).

    Example:
        >>> fg.scipy.linalg.sqrtm(np.array([[5.0, 4.0], [4.0, 5.0]]))
        array([[2., 1.],
               [1., 2.]])
        >>> trace_sqrtm = lambda a: fnp.trace(fg.scipy.linalg.sqrtm(a))
        >>> fg.grad(trace_sqrtm)(np.diag([4.0, 9.0]))   # inv(sqrtm(a)).T / 2
        array([[0.25      , 0.        ],
               [0.        , 0.16666667]])
    """
    A = _lift(A)
    if _scipy_computes(A):  # (cupyx.scipy.linalg has no sqrtm)
        return _sl().sqrtm(A)
    if _shape_of(A)[-2:] == (1, 1):  # SciPy's 1x1 case: sqrt, in the input's dtype
        return _sqrt(A)
    return L.sqrtm_p.bind(_square("sqrtm", A, lapack=False))


def block_diag(*arrs):
    """`scipy.linalg.block_diag`: the arrays (scalars and 1-D as one row) on the diagonal.

    Example:
        >>> fg.scipy.linalg.block_diag(np.ones((2, 2)), 3.0)
        array([[1., 1., 0.],
               [1., 1., 0.],
               [0., 0., 3.]])
    """
    arrs = [_lift(a) for a in arrs]
    if not _is_traced(*arrs):
        return _sl(*arrs).block_diag(*arrs)
    mats = [_reshape(a, (1, -1) if len(_shape_of(a)) < 2 else _shape_of(a)) for a in arrs]
    for a, m in zip(arrs, mats):
        if len(_shape_of(m)) != 2:
            raise ValueError(f"scipy.linalg.block_diag: arguments must have 2 or fewer "
                             f"dimensions, got shape {_shape_of(a)}")
    dt = np.result_type(*[_dtype_of(m) for m in mats])
    mats = [_cast(m, dt) for m in mats]
    width = sum(_shape_of(m)[1] for m in mats)
    rows, col = [], 0
    for m in mats:
        r, c = _shape_of(m)
        parts = [np.zeros((r, col), dt), m, np.zeros((r, width - col - c), dt)]
        rows.append(_concatenate(parts, axis=1))
        col += c
    return _concatenate(rows, axis=0)


# =========================================================================== SciPy-flavoured
# wrappers of the factorizations (jax.scipy.linalg's): compositions of fnp.linalg and the
# primitives of fungrad.lax.linalg, so their derivatives are the closed forms documented there.
def _fnp():
    from .. import numpy as fnp
    return fnp


def _as_dtype(x, dt):
    return x if _dtype_of(x) == dt else _cast(x, dt)


def _probe_dtypes(name, shape, dt, **kw):
    """The dtypes of SciPy's results for an input of `shape` and `dt` (some depend on the
    size: SciPy returns 1 x 1 and empty cases through other code paths)."""
    return _probe_cached(name, tuple(shape), np.dtype(dt).str, tuple(sorted(kw.items())))


@_functools.lru_cache(maxsize=None)
def _probe_cached(name, shape, dt, kw):
    out = getattr(_sl(), name)(np.eye(*shape[-2:], dtype=dt) if len(shape) >= 2 else
                                np.ones(shape, dt), **dict(kw))
    return tuple(np.asarray(o).dtype for o in (out if isinstance(out, tuple) else (out,)))


def _lapack_dtype(a):
    """The dtype SciPy's LAPACK wrappers compute `a` in (float32 / complex64 kept, ints and
    bools as float64, narrow floats as float32)."""
    dt = _dtype_of(_widen(a))
    return np.dtype(np.float64) if dt.kind in "biu" else dt


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """`scipy.linalg.cholesky`: the upper factor U with a = U^H U (lower=True: L with
    a = L L^H). Only that triangle of `a` is read; the derivative is that of SciPy's function.

    Example:
        >>> fg.scipy.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
        array([[2., 1.],
               [0., 2.]])
    """
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().cholesky(a, lower=lower, overwrite_a=overwrite_a, check_finite=check_finite)
    a = _square("cholesky", a)
    return L.cholesky_p.bind(a) if lower else L.mH(L.cholesky_p.bind(L.mH(a)))


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """`scipy.linalg.det` (SciPy computes float32 in float64 and returns that); derivative
    tr(adj(a) da).

    Example:
        >>> fg.scipy.linalg.det(np.array([[2.0, 1.0], [1.0, 3.0]]))
        np.float64(5.0)
        >>> fg.grad(fg.scipy.linalg.det)(np.array([[2.0, 1.0], [1.0, 3.0]]))
        array([[ 3., -1.],
               [-1.,  2.]])
    """
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().det(a, overwrite_a=overwrite_a, check_finite=check_finite)
    a = _square("det", a)
    a = _as_dtype(a, np.dtype(np.complex128 if _dtype_of(a).kind == "c" else np.float64))
    return L.det_p.bind(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    """`scipy.linalg.inv`; derivative -a^-1 da a^-1.

    Example:
        >>> fg.scipy.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
        array([[0.5 , 0.  ],
               [0.  , 0.25]])
    """
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().inv(a, overwrite_a=overwrite_a, check_finite=check_finite)
    return _fnp().linalg.inv(_square("inv", a))


_ASSUME = {"gen": "gen", "general": "gen", "sym": "sym", "symmetric": "sym", "her": "her",
           "hermitian": "her", "pos": "pos", "positive definite": "pos"}


def _from_triangle(a, lower, hermitian):
    """The symmetric (Hermitian) matrix LAPACK's sy/he/po solvers read from one triangle."""
    if hermitian or _dtype_of(a).kind != "c":
        return L.hermitian_from(a, lower)
    tri = L.tril(a) if lower else L.triu(a)
    return _add(tri, L.mT(L.tril(a, -1) if lower else L.triu(a, 1)))


def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          debug: bool = False, check_finite: bool = True, assume_a: str = "gen"):
    """`scipy.linalg.solve`: x with a x = b. assume_a 'gen' (LU), 'sym' / 'her' (one
    triangle of `a`, picked by `lower`, read as a symmetric / Hermitian matrix) or 'pos'
    (Cholesky, same triangle). `b` is a vector when 1-D, else (..., n, k) matrices.

    Example:
        >>> a = np.array([[4.0, 2.0], [2.0, 3.0]])
        >>> fg.scipy.linalg.solve(a, np.array([2.0, 1.0]), assume_a="pos")
        array([0.5, 0. ])
    """
    if assume_a not in _ASSUME:
        raise ValueError(f"scipy.linalg.solve: assume_a must be one of {sorted(_ASSUME)}, got "
                         f"{assume_a!r}")
    a, b = _lift(a), _lift(b)
    if _scipy_computes(a, b):
        return _sl().solve(a, b, lower=lower, overwrite_a=overwrite_a, overwrite_b=overwrite_b,
                           check_finite=check_finite, assume_a=assume_a)
    kind = _ASSUME[assume_a]
    a = _square("solve", a)
    b = _float_operand("solve", b, 1)
    _check_rhs("solve", a, b)
    a, b = _promote(a, b)
    if kind != "gen":
        a = _from_triangle(a, lower, kind != "sym")
    bm, vec = _as_matrix_rhs(b)
    if kind == "pos":
        c = L.cholesky_p.bind(a)
        x = L.triangular_solve(c, L.triangular_solve(c, bm, lower=True), lower=True,
                               transpose_a=True, conjugate_a=True)
    else:
        fnp = _fnp()
        shape = np.broadcast_shapes(_shape_of(a)[:-2], _shape_of(bm)[:-2])
        x = L.solve(fnp.broadcast_to(a, shape + _shape_of(a)[-2:]),
                    fnp.broadcast_to(bm, shape + _shape_of(bm)[-2:]))
    return _reshape(x, _shape_of(x)[:-1]) if vec else x


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, turbo: bool = True, eigvals=None, type: int = 1,
         check_finite: bool = True, *, subset_by_index=None):
    """`scipy.linalg.eigh`: eigenvalues (ascending) and eigenvectors of Hermitian `a` (its
    `lower` triangle read); with `b` (Hermitian positive definite, type=1 only) the
    generalized problem a x = w b x, eigenvectors normalized x^H b x = I (as SciPy's).
    `subset_by_index=(lo, hi)` keeps eigenvalues lo..hi (inclusive). Derivatives: eigh's
    closed forms (distinct eigenvalues for the vectors).

    Example:
        >>> w = fg.scipy.linalg.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]), eigvals_only=True)
        >>> fnp.round(w, 6)
        array([1., 3.])
    """
    if eigvals is not None:
        raise NotImplementedError("scipy.linalg.eigh: `eigvals` (removed in SciPy 1.14) is "
                                  "not supported; use subset_by_index=(lo, hi)")
    if type != 1:
        raise NotImplementedError(f"scipy.linalg.eigh: only type=1 is supported, got {type}")
    a = _lift(a)
    b = None if b is None else _lift(b)
    args = (a,) if b is None else (a, b)
    if _scipy_computes(*args):
        return _sl().eigh(a, b, lower=lower, eigvals_only=eigvals_only, overwrite_a=overwrite_a,
                          overwrite_b=overwrite_b, check_finite=check_finite,
                          subset_by_index=subset_by_index)
    a = _square("eigh", a)
    if b is None:
        if eigvals_only:
            w, v = L.eigvalsh_p.bind(a, lower=lower), None
        else:
            w, v = L.eigh_p.bind(a, lower=lower)
    else:
        b = _square("eigh", b)
        a, b = _promote(a, b)
        a, b = _from_triangle(a, lower, True), _from_triangle(b, lower, True)
        c = L.cholesky_p.bind(b)   # b = c c^H: c^-1 a c^-H y = w y, x = c^-H y
        m = L.triangular_solve(c, L.mH(L.triangular_solve(c, a, lower=True)), lower=True)
        if eigvals_only:
            w, v = L.eigvalsh_p.bind(m, lower=True), None
        else:
            w, y = L.eigh_p.bind(m, lower=True)
            v = L.triangular_solve(c, y, lower=True, transpose_a=True, conjugate_a=True)
    if subset_by_index is not None:
        lo, hi = (int(i) for i in subset_by_index)
        n = _shape_of(a)[-1]
        if not 0 <= lo <= hi < n:
            raise ValueError(f"scipy.linalg.eigh: subset_by_index {subset_by_index} out of "
                             f"range for a {n} x {n} matrix")
        w = w[..., lo:hi + 1]
        v = None if v is None else v[..., lo:hi + 1]
    return w if eigvals_only else (w, v)


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """`scipy.linalg.lu`: (P, L, U) with a = P L U (permute_l=True: (P L, U)); traced
    values take square (..., n, n) matrices. Derivative: lu_factor's closed form (the
    permutation is piecewise constant).

    Example:
        >>> p, l, u = fg.scipy.linalg.lu(np.array([[1.0, 2.0], [3.0, 4.0]]))
        >>> p
        array([[0., 1.],
               [1., 0.]])
        >>> u
        array([[3.        , 4.        ],
               [0.        , 0.66666667]])
    """
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().lu(a, permute_l=permute_l, overwrite_a=overwrite_a,
                        check_finite=check_finite)
    s = _shape_of(a)
    if len(s) >= 2 and s[-1] != s[-2]:
        raise NotImplementedError(f"scipy.linalg.lu: traced values need square matrices, got "
                                  f"shape {s} (factor a square block, or use fg.lax)")
    a = _square("lu", a)
    packed, _, p = L.lu_p.bind(a)
    n = s[-1]
    low = _add(L.tril(packed, -1), np.eye(n, dtype=_dtype_of(packed)))
    up = L.triu(packed)
    perm = L.mT(p)                 # p a = L U, so a = p^T L U
    if permute_l:
        return L.mm(perm, low), up
    want = _probe_dtypes("lu", s[-2:], _dtype_of(a))[0]   # (real for complex a, n > 1)
    if _dtype_of(perm) != want:
        perm = _as_dtype(_fnp().real(perm), want)
    return perm, low, up


def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """`scipy.linalg.qr` (modes 'full', 'r', 'economic'; pivoting=False): (Q, R), or (R,)
    for mode='r' (R of shape (M, N), as SciPy's). Derivatives: fnp.linalg.qr's closed forms.

    Example:
        >>> q, r = fg.scipy.linalg.qr(np.array([[3.0, 0.0], [4.0, 5.0]]))
        >>> fnp.round(fnp.abs(r), 6)
        array([[5., 4.],
               [0., 3.]])
    """
    a = _lift(a)
    if mode not in ("full", "r", "economic", "raw"):
        raise ValueError(f"scipy.linalg.qr: mode must be 'full', 'r', 'economic' or 'raw', got "
                         f"{mode!r}")
    if _scipy_computes(a):
        return _sl().qr(a, overwrite_a=overwrite_a, lwork=lwork, mode=mode, pivoting=pivoting,
                        check_finite=check_finite)
    if pivoting:
        raise NotImplementedError("scipy.linalg.qr: pivoting=True is not supported on traced "
                                  "values (its permutation is value-dependent)")
    if mode == "raw":
        raise NotImplementedError("scipy.linalg.qr: mode='raw' (Householder reflectors) is "
                                  "not supported on traced values")
    a = _float_operand("qr", a)
    q, r = L.qr_p.bind(a, mode="reduced" if mode == "economic" else "complete")
    return (r,) if mode == "r" else (q, r)


def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):
    """`scipy.linalg.qr_multiply`: (Q @ c, R) for mode='left', (c @ Q, R) for 'right', with
    the economic Q (conjugated if `conjugate`) and R; a 1-D `c` is a column (left) / row
    (right), as SciPy's. pivoting=False only on traced values.

    Example:
        >>> a = np.array([[3.0, 0.0], [4.0, 5.0]])
        >>> qc, r = fg.scipy.linalg.qr_multiply(a, np.eye(2), mode="left")
        >>> fnp.allclose(qc @ r, a)
        True
    """
    if mode not in ("left", "right"):
        raise ValueError(f"scipy.linalg.qr_multiply: mode must be 'left' or 'right', got "
                         f"{mode!r}")
    a, c = _lift(a), _lift(c)
    if _scipy_computes(a, c):
        return _sl().qr_multiply(a, c, mode=mode, pivoting=pivoting, conjugate=conjugate,
                                 overwrite_a=overwrite_a, overwrite_c=overwrite_c)
    if pivoting:
        raise NotImplementedError("scipy.linalg.qr_multiply: pivoting=True is not supported "
                                  "on traced values")
    a = _float_operand("qr_multiply", a)
    c = _float_operand("qr_multiply", c, 1)
    a, c = _promote(a, c)
    q, r = L.qr_p.bind(a, mode="reduced")
    if conjugate:
        q = L.cj(q)
    vec = len(_shape_of(c)) == 1
    if mode == "left":
        cm = _reshape(c, (-1, 1)) if vec else c
        out = L.mm(q, cm)
        out = _reshape(out, (-1,)) if vec else out
    else:
        cm = _reshape(c, (1, -1)) if vec else c
        out = L.mm(cm, q)
        out = _reshape(out, (-1,)) if vec else out
    return out, r


def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """`scipy.linalg.svd`: U, s, Vh (s only with compute_uv=False). Derivatives:
    fnp.linalg.svd's (distinct singular values for U and Vh).

    Example:
        >>> fg.scipy.linalg.svd(np.array([[3.0, 0.0], [0.0, -2.0]]), compute_uv=False)
        array([3., 2.])
    """
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                         overwrite_a=overwrite_a, check_finite=check_finite,
                         lapack_driver=lapack_driver)
    a = _float_operand("svd", a)
    if not compute_uv:
        return L.svdvals_p.bind(a)
    return tuple(L.svd_p.bind(a, full_matrices=bool(full_matrices)))


def polar(a, side: str = "right", *, method: str = "svd", eps=None, max_iterations=None):
    """`scipy.linalg.polar`: (u, p) with a = u p (side='right') or a = p u ('left'), u with
    orthonormal columns (rows), p Hermitian positive semidefinite, from the SVD
    a = W S Vh: u = W Vh, p = V S Vh (or W S W^H). `method`, `eps` and `max_iterations`
    (JAX's QDWH options) are accepted and ignored. Derivatives: the thin SVD's (distinct
    nonzero singular values).

    Example:
        >>> u, p = fg.scipy.linalg.polar(np.array([[0.0, 2.0], [3.0, 0.0]]))
        >>> u
        array([[0., 1.],
               [1., 0.]])
        >>> p
        array([[3., 0.],
               [0., 2.]])
    """
    if side not in ("right", "left"):
        raise ValueError(f"scipy.linalg.polar: side must be 'right' or 'left', got {side!r}")
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().polar(a, side=side)
    a = _float_operand("polar", a)
    w, s, vh = L.svd_p.bind(a, full_matrices=False)
    u = L.mm(w, vh)
    s = _as_dtype(s, _dtype_of(w))
    if side == "right":
        p = L.mm(L.mH(vh), L.scale_rows(vh, s))
    else:
        p = L.mm(L.scale_cols(w, s), L.mH(w))
    return u, p


def expm_frechet(A, E, method=None, compute_expm: bool = True, check_finite: bool = True):
    """`scipy.linalg.expm_frechet`: (expm(A), L(A, E)) with L the Frechet derivative
    d/dt expm(A + t E) at 0 (only L with compute_expm=False), computed as the top-right
    block of expm([[A, E], [0, A]]); differentiable in A and E (to every order).

    Example:
        >>> e, l = fg.scipy.linalg.expm_frechet(np.zeros((2, 2)), np.eye(2))
        >>> l
        array([[1., 0.],
               [0., 1.]])
    """
    _reject_narrow("expm_frechet", A, E)
    A, E = _lift(A), _lift(E)
    if _scipy_computes(A, E) and len(np.shape(A)) == 2:
        return _sl().expm_frechet(A, E, method=method, compute_expm=compute_expm,
                                  check_finite=check_finite)
    A, E = _square("expm_frechet", A), _square("expm_frechet", E)
    if _shape_of(A) != _shape_of(E):
        raise ValueError(f"scipy.linalg.expm_frechet: A {_shape_of(A)} and E {_shape_of(E)} "
                         "must have the same shape")
    dt = np.result_type(_dtype_of(A), _dtype_of(E), np.float64)   # (SciPy's: float64)
    A, E = _as_dtype(A, dt), _as_dtype(E, dt)
    l = L.expm_frechet_p.bind(A, E)
    return (L.expm_p.bind(A), l) if compute_expm else l


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """`scipy.linalg.solve_sylvester`: X with A X + X B = C (Bartels-Stewart). Traced values
    solve the shifted block equation M Y + Y M = [[0, C], [0, 0]], M = diag(A + sI, B - sI)
    (Y's top-right block is X), whose closed-form derivative is sqrtm's Sylvester solve.

    Example:
        >>> fg.scipy.linalg.solve_sylvester(np.eye(2), 2.0 * np.eye(2), 6.0 * np.eye(2))
        array([[2., 0.],
               [0., 2.]])
    """
    A, B, C = _lift(A), _lift(B), _lift(C)
    if _scipy_computes(A, B, C):
        return _sl().solve_sylvester(A, B, C)
    A, B = _square("solve_sylvester", A), _square("solve_sylvester", B)
    C = _float_operand("solve_sylvester", C)
    n, m = _shape_of(A)[-1], _shape_of(B)[-1]
    if _shape_of(C)[-2:] != (n, m):
        raise ValueError(f"scipy.linalg.solve_sylvester: C must have shape ({n}, {m}) for A "
                         f"{_shape_of(A)} and B {_shape_of(B)}, got {_shape_of(C)}")
    fnp = _fnp()
    dt = np.result_type(_dtype_of(A), _dtype_of(B), _dtype_of(C))
    A, B, C = _as_dtype(A, dt), _as_dtype(B, dt), _as_dtype(C, dt)
    batch = np.broadcast_shapes(_shape_of(A)[:-2], _shape_of(B)[:-2], _shape_of(C)[:-2])
    A = fnp.broadcast_to(A, batch + (n, n))
    B = fnp.broadcast_to(B, batch + (m, m))
    C = fnp.broadcast_to(C, batch + (n, m))
    from ..lax.misc import stop_gradient
    # the shift keeps the diagonal blocks' equations (eigenvalues l_i + l_j +- 2s) regular
    s = stop_gradient(1.0 + fnp.max(fnp.abs(A)) * n + fnp.max(fnp.abs(B)) * m)
    s = _as_dtype(s, np.dtype(dt.char.lower()) if dt.kind == "c" else dt)
    # (fnp's functions, not operators, with the NumPy constants: they also join CuPy operands)
    zeros = lambda shape: fnp.zeros_like(C, shape=batch + shape)  # noqa: E731
    M = fnp.concatenate([fnp.concatenate([fnp.add(A, fnp.multiply(s, np.eye(n, dtype=dt))),
                                          zeros((n, m))], -1),
                         fnp.concatenate([zeros((m, n)),
                                          fnp.subtract(B, fnp.multiply(s, np.eye(m, dtype=dt)))],
                                         -1)], -2)
    D = fnp.concatenate([fnp.concatenate([zeros((n, n)), C], -1), zeros((m, n + m))], -2)
    return L.sylvester_p.bind(M, D)[..., :n, n:]


def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a",
                     select_range=None, tol=None, key=None):
    """`scipy.linalg.eigh_tridiagonal`: eigenvalues (and eigenvectors) of the real symmetric
    tridiagonal matrix with diagonal `d` and off-diagonal `e`; select='i' with
    select_range=(lo, hi) keeps eigenvalues lo..hi. Traced values go through eigh of the
    assembled matrix (its closed-form derivatives); select='v' (a value-dependent count)
    works on plain arrays only.

    Example:
        >>> w = fg.scipy.linalg.eigh_tridiagonal(np.array([2.0, 2.0]), np.array([1.0]),
        ...                                      eigvals_only=True)
        >>> fnp.round(w, 6)
        array([1., 3.])
    """
    _reject_narrow("eigh_tridiagonal", d, e)
    d, e = _lift(d), _lift(e)
    if _scipy_computes(d, e):
        return _sl().eigh_tridiagonal(d, e, eigvals_only=eigvals_only, select=select,
                                      select_range=select_range,
                                      **({} if tol is None else {"tol": tol}))
    if select not in ("a", "i"):
        raise NotImplementedError(f"scipy.linalg.eigh_tridiagonal: select={select!r} gives a "
                                  "value-dependent number of eigenvalues; traced values take "
                                  "select='a' or 'i'")
    d = _float_operand("eigh_tridiagonal", d, 1)
    e = _float_operand("eigh_tridiagonal", e, 1)
    if _dtype_of(d).kind == "c" or _dtype_of(e).kind == "c":
        raise TypeError("scipy.linalg.eigh_tridiagonal: d and e must be real")
    n = _shape_of(d)[-1]
    if len(_shape_of(d)) != 1 or _shape_of(e) != (n - 1,):
        raise ValueError(f"scipy.linalg.eigh_tridiagonal: d must be 1-D (n,) and e (n - 1,), "
                         f"got {_shape_of(d)} and {_shape_of(e)}")
    d, e = _promote(d, e)
    t = _add(L.diag_embed(d), _tridiagonal_off(e, n))
    sub = None if select == "a" else select_range
    return eigh(t, eigvals_only=eigvals_only, subset_by_index=sub)


def _tridiagonal_off(e, n):
    """The symmetric matrix with `e` on its first sub- and superdiagonal."""
    dt = _dtype_of(e)
    if n < 2:
        return np.zeros((n, n), dt)
    fnp = _fnp()
    sub = fnp.pad(L.diag_embed(e), ((1, 0), (0, 1)))
    return _add(sub, L.mT(sub))


def _rsf2csf_step(T, Z, m, eps):
    fnp = _fnp()
    n = _shape_of(T)[-1]
    dt = _dtype_of(T)
    p, q = T[..., m - 1, m - 1], T[..., m - 1, m]
    r, t = T[..., m, m - 1], T[..., m, m]
    half = (p - t) / 2
    active = fnp.abs(r) > eps * (fnp.abs(p) + fnp.abs(t))
    disc = fnp.where(active, half * half + q * r, 1.0)   # (safe where unused: finite slopes)
    mu = half + fnp.sqrt(disc)                         # the eigenvalue with Im >= 0, minus t
    nrm = fnp.sqrt(fnp.abs(mu) ** 2 + fnp.abs(r) ** 2)
    nrm = _as_dtype(fnp.where(active, nrm, 1.0), dt)
    c = fnp.where(active, mu / nrm, 1.0)
    s = fnp.where(active, r / nrm, 0.0)
    G = fnp.stack([fnp.stack([fnp.conj(c) - 1, s], -1), fnp.stack([-s, c - 1], -1)], -2)
    pad = [(0, 0)] * (len(_shape_of(G)) - 2) + [(m - 1, n - m - 1)] * 2
    G = fnp.add(_as_dtype(fnp.pad(G, pad), dt), np.eye(n, dtype=dt))  # rows m-1, m's rotation
    GH = fnp.conj(fnp.swapaxes(G, -1, -2))
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    T = fnp.where(((i == m - 1) | (i == m)) & (j >= m - 1), fnp.matmul(G, T), T)
    T = fnp.where((i <= m) & ((j == m - 1) | (j == m)), fnp.matmul(T, GH), T)
    Z = fnp.matmul(Z, GH)
    return fnp.where((i == m) & (j == m - 1), np.zeros((), dt), T), Z


def rsf2csf(T, Z, check_finite: bool = True):
    """`scipy.linalg.rsf2csf`: the complex Schur form (T, Z) from the real one (schur's
    output='real'), by one Givens rotation per 2 x 2 block. Written with fnp (the rotation
    from the block's eigenvalue in closed form), so it differentiates, batches and jits.

    Example:
        >>> t, z = fg.scipy.linalg.rsf2csf(np.array([[1.0, 2.0], [-2.0, 1.0]]), np.eye(2))
        >>> fnp.round(fnp.diagonal(t), 6)
        array([1.+2.j, 1.-2.j])
    """
    _reject_narrow("rsf2csf", T, Z)
    T, Z = _lift(T), _lift(Z)
    for name, x in (("T", T), ("Z", Z)):
        s = _shape_of(x)
        if len(s) < 2 or s[-1] != s[-2]:
            raise ValueError(f"scipy.linalg.rsf2csf: {name} must be square, got shape {s}")
    if _shape_of(T)[-1] != _shape_of(Z)[-1]:
        raise ValueError(f"scipy.linalg.rsf2csf: T {_shape_of(T)} and Z {_shape_of(Z)} must "
                         "match")
    if _scipy_computes(T, Z) and len(_shape_of(T)) == 2 and len(_shape_of(Z)) == 2:
        return _sl().rsf2csf(T, Z, check_finite=check_finite)
    fnp = _fnp()
    dt = np.result_type(_dtype_of(_widen(T)), _dtype_of(_widen(Z)), np.complex64)
    T, Z = _as_dtype(T, dt), _as_dtype(Z, dt)
    batch = np.broadcast_shapes(_shape_of(T)[:-2], _shape_of(Z)[:-2])
    n = _shape_of(T)[-1]
    T, Z = fnp.broadcast_to(T, batch + (n, n)), fnp.broadcast_to(Z, batch + (n, n))
    eps = float(np.finfo(dt).eps)
    for m in range(n - 1, 0, -1):
        T, Z = _rsf2csf_step(T, Z, m, eps)
    return T, Z


# --------------------------------------------------------------------------- schur / hessenberg
_NO_DERIVATIVE = ("fungrad has no derivative rule for scipy.linalg.{name} (its factors are "
                  "not unique and no closed form is implemented); wrap its input in "
                  "fg.lax.stop_gradient, or differentiate an invariant computed otherwise "
                  "(eigenvalues: fnp.linalg.eigvals)")


def _no_jvp(name, prim):
    def jvp(primals, tangents, **params):
        if all(t is _ZERO for t in tangents):
            out = prim.bind(*primals, **params)
            return out, [_ZERO] * len(out)
        raise NotImplementedError(_NO_DERIVATIVE.format(name=name))
    return jvp


def _per_matrix(fn, a, n_out):
    if a.ndim == 2:
        out = fn(a)
        return [np.asarray(o) for o in (out if n_out > 1 else (out,))]
    outs = None
    for idx in np.ndindex(*a.shape[:-2]):
        res = fn(a[idx])
        res = res if n_out > 1 else (res,)
        if outs is None:
            outs = [np.empty(a.shape[:-2] + np.shape(r), np.asarray(r).dtype) for r in res]
        for o, r in zip(outs, res):
            o[idx] = r
    if outs is None:  # an empty batch
        probe = fn(np.eye(a.shape[-1], dtype=a.dtype))
        probe = probe if n_out > 1 else (probe,)
        outs = [np.empty(a.shape[:-2] + np.shape(r), np.asarray(r).dtype) for r in probe]
    return outs


def _make_schur_p():
    from ..backend import on_host
    from ..core.ir import ShapedArray

    @on_host
    def impl(a, output):
        return _per_matrix(lambda m: _sl().schur(m, output=output), a, 2)

    def aval(a, output):
        return [ShapedArray(a.shape, dt) for dt in
                _probe_dtypes("schur", a.shape[-2:], a.dtype, output=output)]

    p = L._primitive("scipy_schur", impl, aval, None, multiple_results=True)
    p.jvp = _no_jvp("schur", p)
    return p


def _make_hessenberg_p():
    from ..backend import on_host
    from ..core.ir import ShapedArray

    @on_host
    def impl(a):
        return _per_matrix(lambda m: _sl().hessenberg(m, calc_q=True), a, 2)

    def aval(a):
        return [ShapedArray(a.shape, dt) for dt in
                _probe_dtypes("hessenberg", a.shape[-2:], a.dtype, calc_q=True)]

    p = L._primitive("scipy_hessenberg", impl, aval, None, multiple_results=True)
    p.jvp = _no_jvp("hessenberg", p)
    return p


_schur_p = _make_schur_p()
_hessenberg_p = _make_hessenberg_p()


def schur(a, output: str = "real"):
    """`scipy.linalg.schur`: (T, Z) with a = Z T Z^H, T (quasi-)upper triangular
    (output='real', 2 x 2 blocks for complex pairs) or upper triangular ('complex').
    Batches and jits; NOT differentiable (the factors are not unique; a derivative raises
    NotImplementedError).

    Example:
        >>> a = np.array([[1.0, 2.0], [0.0, 3.0]])
        >>> t, z = fg.scipy.linalg.schur(a)
        >>> fnp.allclose(z @ t @ z.T, a)
        True
    """
    _reject_narrow("schur", a)
    if output not in ("real", "complex", "r", "c"):
        raise ValueError(f"scipy.linalg.schur: output must be 'real' or 'complex', got "
                         f"{output!r}")
    output = {"r": "real", "c": "complex"}.get(output, output)
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().schur(a, output=output)
    return tuple(_schur_p.bind(_square("schur", a), output=output))


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """`scipy.linalg.hessenberg`: H (and Q with calc_q) with a = Q H Q^H, H zero below its
    first subdiagonal. Batches and jits; NOT differentiable (a derivative raises
    NotImplementedError).

    Example:
        >>> a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
        >>> h, q = fg.scipy.linalg.hessenberg(a, calc_q=True)
        >>> fnp.allclose(q @ h @ q.T, a)
        True
    """
    _reject_narrow("hessenberg", a)
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().hessenberg(a, calc_q=calc_q, overwrite_a=overwrite_a,
                                check_finite=check_finite)
    h, q = _hessenberg_p.bind(_square("hessenberg", a))
    return (h, q) if calc_q else h


# =========================================================================== special matrices
def _vector(fname, x):
    x = _lift(x)
    if len(_shape_of(x)) == 0:
        x = _reshape(x, (1,))
    return x


def _gather(v, idx):
    """v[..., idx] for a constant integer matrix idx: each entry of the result is one entry
    of v (so the derivative is a scatter)."""
    return _take(v, np.asarray(idx, np.intp), axis=-1)


def _consts(dt, *vals):
    return np.asarray(vals, dt)


def toeplitz(c, r=None):
    """`scipy.linalg.toeplitz`: first column `c`, first row `r` (default conj(c); r[0] is
    ignored); leading dims of c and r are batch dims (SciPy >= 1.17).

    Example:
        >>> fg.scipy.linalg.toeplitz(np.array([1.0, 2.0, 3.0]), np.array([1.0, 4.0]))
        array([[1., 4.],
               [2., 1.],
               [3., 2.]])
    """
    c = _vector("toeplitz", c)
    r = None if r is None else _vector("toeplitz", r)
    if _scipy_computes(c, *(() if r is None else (r,))):
        return _sl().toeplitz(c, r)
    fnp = _fnp()
    if r is None:
        r = fnp.conj(c)
    dt = np.result_type(_dtype_of(c), _dtype_of(r))
    c, r = _as_dtype(c, dt), _as_dtype(r, dt)
    batch = np.broadcast_shapes(_shape_of(c)[:-1], _shape_of(r)[:-1])
    m, n = _shape_of(c)[-1], _shape_of(r)[-1]
    c, r = fnp.broadcast_to(c, batch + (m,)), fnp.broadcast_to(r, batch + (n,))
    vals = _concatenate([fnp.flip(c, -1), r[..., 1:]], axis=-1)   # c[m-1], ..., c[0], r[1:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    return _gather(vals, m - 1 - i + j)


def hankel(c, r=None):
    """`scipy.linalg.hankel`: first column `c`, last row `r` (default zeros; r[0] is
    ignored); leading dims are batch dims.

    Example:
        >>> fg.scipy.linalg.hankel(np.array([1.0, 2.0, 3.0]), np.array([3.0, 4.0]))
        array([[1., 2.],
               [2., 3.],
               [3., 4.]])
    """
    c = _vector("hankel", c)
    r = None if r is None else _vector("hankel", r)
    if _scipy_computes(c, *(() if r is None else (r,))):
        return _sl().hankel(c, r)
    fnp = _fnp()
    if r is None:
        r = np.zeros(_shape_of(c)[-1:], _dtype_of(c))
    dt = np.result_type(_dtype_of(c), _dtype_of(r))
    c, r = _as_dtype(c, dt), _as_dtype(r, dt)
    batch = np.broadcast_shapes(_shape_of(c)[:-1], _shape_of(r)[:-1])
    m, n = _shape_of(c)[-1], _shape_of(r)[-1]
    c, r = fnp.broadcast_to(c, batch + (m,)), fnp.broadcast_to(r, batch + (n,))
    vals = _concatenate([c, r[..., 1:]], axis=-1)
    return _gather(vals, np.arange(m)[:, None] + np.arange(n)[None, :])


def circulant(c):
    """`scipy.linalg.circulant`: first column `c`, each column the previous one rolled down
    by one; leading dims are batch dims.

    Example:
        >>> fg.scipy.linalg.circulant(np.array([1.0, 2.0, 3.0]))
        array([[1., 3., 2.],
               [2., 1., 3.],
               [3., 2., 1.]])
    """
    c = _vector("circulant", c)
    if _scipy_computes(c):
        return _sl().circulant(c)
    n = _shape_of(c)[-1]
    return _gather(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def companion(a):
    """`scipy.linalg.companion`: the companion matrix of the polynomial with coefficients
    `a` (highest power first; a[0] != 0): first row -a[1:] / a[0], ones below the diagonal.

    Example:
        >>> fg.scipy.linalg.companion(np.array([1.0, -3.0, 2.0]))   # roots 1 and 2
        array([[ 3., -2.],
               [ 1.,  0.]])
    """
    a = _vector("companion", a)
    if _scipy_computes(a):
        return _sl().companion(a)
    n = _shape_of(a)[-1]
    if n < 2:
        raise ValueError("scipy.linalg.companion: the length of `a` along the last axis must "
                         "be at least 2")
    a = _cast(a, np.result_type(_dtype_of(a), 1.0)) if _dtype_of(a).kind in "biu" else a
    dt = _dtype_of(a)
    first = -a[..., 1:] / a[..., :1]
    v = _concatenate([_broadcast(_consts(dt, 0, 1), _shape_of(first)[:-1] + (2,)), first],
                     axis=-1)
    idx = np.zeros((n - 1, n - 1), np.intp)
    idx[0] = 2 + np.arange(n - 1)
    idx[np.arange(1, n - 1), np.arange(n - 2)] = 1
    return _gather(v, idx)


def _broadcast(x, shape):
    return _fnp().broadcast_to(x, shape)


def fiedler(a):
    """`scipy.linalg.fiedler`: the symmetric matrix |a[i] - a[j]|; leading dims are batch
    dims.

    Example:
        >>> fg.scipy.linalg.fiedler(np.array([1.0, 4.0, 2.0]))
        array([[0., 3., 1.],
               [3., 0., 2.],
               [1., 2., 0.]])
    """
    a = _vector("fiedler", a)
    if _scipy_computes(a):
        return _sl().fiedler(a)
    fnp = _fnp()
    out = fnp.abs(a[..., :, None] - a[..., None, :])
    return _as_dtype(out, _probe_dtypes("fiedler", _shape_of(a)[-1:], _dtype_of(a))[0])


def fiedler_companion(a):
    """`scipy.linalg.fiedler_companion`: Fiedler's pentadiagonal companion matrix of the
    polynomial `a` (highest power first, a[0] != 0); same eigenvalues as companion(a).

    Example:
        >>> c = fg.scipy.linalg.fiedler_companion(np.array([1.0, -6.0, 11.0, -6.0]))
        >>> fnp.round(fnp.sort(fnp.linalg.eigvals(c).real), 6)   # the roots 1, 2, 3
        array([1., 2., 3.])
    """
    a = _vector("fiedler_companion", a)
    if _scipy_computes(a):
        return _sl().fiedler_companion(a)
    k = _shape_of(a)[-1]
    if k <= 2:
        if k == 2:
            return _reshape(-(a[..., 1:] / a[..., :1]), _shape_of(a)[:-1] + (1, 1))
        return np.array([], dtype=_dtype_of(a))
    a = a / a[..., :1]
    dt = _dtype_of(a)
    n = k - 1
    v = _concatenate([_broadcast(_consts(dt, 0, 1), _shape_of(a)[:-1] + (2,)), -a],
                     axis=-1)   # v[0] = 0, v[1] = 1, v[2 + i] = -a[i]
    idx = np.zeros((n, n), np.intp)
    idx[range(3, n, 2), range(1, n - 2, 2)] = 1
    idx[range(2, n, 2), range(1, n - 1, 2)] = 2 + np.arange(3, k, 2)
    idx[range(0, n - 2, 2), range(2, n, 2)] = 1
    idx[range(0, n - 1, 2), range(1, n, 2)] = 2 + np.arange(2, k, 2)
    idx[0, 0], idx[1, 0] = 3, 1
    return _gather(v, idx)


def leslie(f, s):
    """`scipy.linalg.leslie`: the Leslie matrix with fecundities `f` (first row) and
    survival rates `s` (subdiagonal, length len(f) - 1).

    Example:
        >>> fg.scipy.linalg.leslie(np.array([0.1, 2.0, 1.0]), np.array([0.2, 0.8]))
        array([[0.1, 2. , 1. ],
               [0.2, 0. , 0. ],
               [0. , 0.8, 0. ]])
    """
    f, s = _vector("leslie", f), _vector("leslie", s)
    if _scipy_computes(f, s):
        return _sl().leslie(f, s)
    n = _shape_of(f)[-1]
    if n < 1 or _shape_of(s)[-1] != n - 1:
        raise ValueError(f"scipy.linalg.leslie: s must have length len(f) - 1, got f "
                         f"{_shape_of(f)} and s {_shape_of(s)}")
    dt = np.result_type(_dtype_of(f), _dtype_of(s))
    batch = np.broadcast_shapes(_shape_of(f)[:-1], _shape_of(s)[:-1])
    f = _broadcast(_as_dtype(f, dt), batch + (n,))
    s = _broadcast(_as_dtype(s, dt), batch + (n - 1,))
    v = _concatenate([_broadcast(_consts(dt, 0), batch + (1,)), f, s], axis=-1)
    idx = np.zeros((n, n), np.intp)
    idx[0] = 1 + np.arange(n)
    idx[np.arange(1, n), np.arange(n - 1)] = 1 + n + np.arange(n - 1)
    return _gather(v, idx)


def convolution_matrix(a, n: int, mode: str = "full"):
    """`scipy.linalg.convolution_matrix`: the Toeplitz matrix A with A @ v ==
    np.convolve(a, v, mode) for v of length n; leading dims of `a` are batch dims.

    Example:
        >>> fg.scipy.linalg.convolution_matrix(np.array([1.0, 2.0]), 2)
        array([[1., 0.],
               [2., 1.],
               [0., 2.]])
    """
    a = _lift(a)
    if _scipy_computes(a):
        return _sl().convolution_matrix(a, n, mode)
    if n <= 0:
        raise ValueError("scipy.linalg.convolution_matrix: n must be a positive integer")
    if mode not in ("full", "valid", "same"):
        raise ValueError("scipy.linalg.convolution_matrix: 'mode' argument must be one of "
                         "('full', 'valid', 'same')")
    m = _shape_of(a)[-1]
    if m == 0:
        raise ValueError("scipy.linalg.convolution_matrix: len(a) must be at least 1")
    fnp = _fnp()
    pad = [(0, 0)] * (len(_shape_of(a)) - 1)
    az = fnp.pad(a, pad + [(0, n - 1)])
    raz = fnp.pad(fnp.flip(a, -1), pad + [(0, n - 1)])
    ln = m + n - 1
    if mode == "full":
        col0, row0 = az, raz[..., ln - n:]
    else:
        tb = (min(n, m) - 1) // 2 if mode == "same" else min(n, m) - 1
        te = (min(n, m) - 1) - tb if mode == "same" else tb
        col0, row0 = az[..., tb:ln - te], raz[..., ln - n - tb:ln - tb]
    return toeplitz(col0, row0)


def _scipy_constant(name, *args, **kwargs):
    return getattr(_sl(), name)(*args, **kwargs)


def hadamard(n: int, dtype=int):
    """`scipy.linalg.hadamard`: the n x n Hadamard matrix (Sylvester's construction; n a
    power of 2). A constant (no traced inputs).

    Example:
        >>> fg.scipy.linalg.hadamard(2)
        array([[ 1,  1],
               [ 1, -1]])
    """
    return _scipy_constant("hadamard", n, dtype=dtype)


def hilbert(n: int):
    """`scipy.linalg.hilbert`: H[i, j] = 1 / (i + j + 1). A constant.

    Example:
        >>> fg.scipy.linalg.hilbert(2)
        array([[1.        , 0.5       ],
               [0.5       , 0.33333333]])
    """
    return _scipy_constant("hilbert", n)


def invhilbert(n: int, exact: bool = False):
    """`scipy.linalg.invhilbert`: the inverse of hilbert(n) (exact=True: integers). A
    constant.

    Example:
        >>> fg.scipy.linalg.invhilbert(2)
        array([[ 4., -6.],
               [-6., 12.]])
    """
    return _scipy_constant("invhilbert", n, exact=exact)


def pascal(n: int, kind: str | None = None, exact: bool = True):
    """`scipy.linalg.pascal`: the Pascal matrix, kind 'symmetric' (default), 'lower' or
    'upper'. A constant (SciPy's dtype: uint64 when exact).

    Example:
        >>> fg.scipy.linalg.pascal(3).tolist()
        [[1, 1, 1], [1, 2, 3], [1, 3, 6]]
    """
    return _scipy_constant("pascal", n, kind="symmetric" if kind is None else kind,
                           exact=exact)


def invpascal(n: int, kind: str | None = None, exact: bool = True):
    """`scipy.linalg.invpascal`: the inverse of pascal(n, kind). A constant.

    Example:
        >>> fg.scipy.linalg.invpascal(3).tolist()
        [[3, -3, 1], [-3, 5, -2], [1, -2, 1]]
    """
    return _scipy_constant("invpascal", n, kind="symmetric" if kind is None else kind,
                           exact=exact)


def helmert(n: int, full: bool = False):
    """`scipy.linalg.helmert`: the (n - 1) x n Helmert matrix (full=True: n x n, orthogonal,
    first row constant). A constant.

    Example:
        >>> fnp.round(fg.scipy.linalg.helmert(2, full=True), 6)
        array([[ 0.707107,  0.707107],
               [ 0.707107, -0.707107]])
    """
    return _scipy_constant("helmert", n, full=full)


def dft(n: int, scale: str | None = None, *, dtype=None):
    """`scipy.linalg.dft`: the n x n DFT matrix, m @ x == fft(x); scale None, 'sqrtn' or
    'n'. A constant (`dtype`, JAX's keyword, casts it).

    Example:
        >>> fnp.round(fg.scipy.linalg.dft(2), 6)
        array([[ 1.+0.j,  1.+0.j],
               [ 1.+0.j, -1.-0.j]])
    """
    m = _scipy_constant("dft", n, scale=scale)
    return m if dtype is None else m.astype(dtype)


__all__ = ["block_diag", "circulant", "cho_factor", "cho_solve", "cholesky", "companion",
           "convolution_matrix", "det", "dft", "eigh", "eigh_tridiagonal", "expm",
           "expm_frechet", "fiedler", "fiedler_companion", "hadamard", "hankel", "helmert",
           "hessenberg", "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu",
           "lu_factor", "lu_solve", "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur",
           "solve", "solve_sylvester", "solve_triangular", "sqrtm", "svd", "toeplitz"]
