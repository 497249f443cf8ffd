"""fungrad.scipy.linalg: `scipy.linalg`'s triangular / Cholesky / LU solvers, expm, sqrtm
and block_diag, differentiable (closed forms in fungrad.lax.linalg).

Values come from SciPy (imported on first use). On plain arrays each function is SciPy's own
(cupyx.scipy.linalg's for CuPy arrays; where CuPy has none, fungrad's primitives compute it on
the GPU).

    >>> fg.grad(lambda a: fnp.trace(fg.scipy.linalg.expm(a)))(np.zeros((2, 2)))
    array([[1., 0.], [0., 1.]])
"""
from __future__ import annotations

import numpy as np

from ..backend import (array_module as _array_module, like as _like,
                       scipy_module as _scipy_module, to_host as _to_host)
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


__all__ = ["block_diag", "cho_factor", "cho_solve", "expm", "lu_factor", "lu_solve",
           "solve_triangular", "sqrtm"]
