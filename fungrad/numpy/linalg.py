"""fungrad.numpy.linalg: NumPy 2's `numpy.linalg`, differentiable, batchable, jittable.

On plain arrays every function is NumPy's own. On traced values the factorizations bind the
primitives of `fungrad.lax.linalg` (closed-form derivatives: see its docstring); the rest
(norms, cond, matrix_power, tensorsolve, ...) are compositions. Stacked matrices
`(*B, m, n)` broadcast their leading dims as NumPy does.

Not the same as NumPy on traced values: `eig`/`eigvals` of a real matrix are always
complex (NumPy returns real ones when every eigenvalue is real as _real, a value-dependent dtype:
JAX's choice); `lstsq`'s residuals have shape (k,) whenever m > n (NumPy's are empty when
`a` is rank-deficient, a value-dependent shape). float16 inputs raise TypeError as in NumPy.

    >>> fg.grad(lambda a: fnp.linalg.slogdet(a)[1])(np.eye(2) * 2.0)
    array([[0.5, 0. ], [0. , 0.5]])
"""
from __future__ import annotations

import contextlib
from typing import NamedTuple as _NamedTuple

import numpy as np

from ..backend import array_module as _array_module, is_cupy as _is_cupy
from ..core import dtypes as _dtypes
from ..lax import linalg as L
from ._base import (broadcast_shapes as _broadcast_shapes,
                    broadcast_to_shape as _broadcast_to_shape,
                    cast as _cast, dtype_of as _dtype_of, lift as _lift,
                    normalize_axis as _normalize_axis, shape_of as _shape_of,
                    traced_or_narrow as _traced_or_narrow)
from ._contract import _vecdot, matmul as _matmul, outer as _outer, tensordot
from ._elementwise import (abs as _abs, add as _add, conj as _conj, divide as _divide,
                           greater as _greater, imag as _imag, isnan as _isnan,
                           logical_and as _logical_and, logical_not as _logical_not,
                           multiply as _multiply, power as _power, real as _real, sign as _sign,
                           subtract as _subtract, where as _where)
from ._indexing import (argsort as _argsort, diagonal as _diagonal,
                        take_along_axis as _take_along_axis)
from ._reductions import (_sqrt_zero_slope_at_zero, amax as _amax, amin as _amin, any as _any,
                          sum as _sum, trace as _trace)
from ._shape import (expand_dims as _expand_dims, moveaxis as _moveaxis, reshape as _reshape,
                     swapaxes as _swapaxes, transpose as _transpose, flip as _flip,
                     stack as _stack)

LinAlgError = np.linalg.LinAlgError


def _result_type(name, fields):
    """NumPy's own result namedtuple (numpy.linalg._linalg, NumPy >= 2), so traced results
    have the tree structure of NumPy's; an equal namedtuple on older NumPy."""
    try:
        from numpy.linalg import _linalg
        return getattr(_linalg, name)
    except (ImportError, AttributeError):  # pragma: no cover - NumPy 1.x
        return _NamedTuple(name, [(f, object) for f in fields])


EigResult = _result_type("EigResult", ("eigenvalues", "eigenvectors"))
EighResult = _result_type("EighResult", ("eigenvalues", "eigenvectors"))
QRResult = _result_type("QRResult", ("Q", "R"))
SlogdetResult = _result_type("SlogdetResult", ("sign", "logabsdet"))
SVDResult = _result_type("SVDResult", ("U", "S", "Vh"))


# --------------------------------------------------------------------------- shared checks
@contextlib.contextmanager
def _named_errors(fname, **arrays):
    """Re-raise NumPy's LinAlgError (singular matrix, not positive definite, no convergence)
    with the function and the operand shapes named."""
    try:
        yield
    except LinAlgError as e:
        shapes = ", ".join(f"{k} of shape {_shape_of(v)}" for k, v in arrays.items())
        raise LinAlgError(f"{fname}: {e} ({shapes}); check that the matrix is well-conditioned"
                          f" (fnp.linalg.cond) or use fnp.linalg.lstsq / pinv") from None


def _numpy_computes(*xs) -> bool:
    """No operand traced, none bfloat16 (NumPy computes that in float32 or refuses it) and
    none a CuPy array: NumPy's own function computes. CuPy arrays take fungrad's composition
    (on CuPy's kernels) where CuPy lacks the function."""
    return not _traced_or_narrow(*xs) and _array_module(*xs) is np


def _numpy(fname, np_fn, *args, **kwargs):
    with _named_errors(fname, **{f"arg{i}": a for i, a in enumerate(args)}):
        return np_fn(*args, **kwargs)


def _float_operand(fname, a, min_ndim=2):
    """A traced linalg operand: ints become float64 (NumPy's rule); narrow floats are
    rejected as NumPy's LAPACK routines reject them; at least `min_ndim` dims."""
    dt = _dtype_of(a)
    if _dtypes.kind(dt) in "biu":
        a = _cast(a, np.dtype(np.float64))
    elif dt.itemsize < 4 or dt.kind == "V":
        raise TypeError(f"linalg.{fname}: array type {dt} is unsupported in linalg (as in "
                        "NumPy); convert the operand first: x.astype(fnp.float32)")
    if len(_shape_of(a)) < min_ndim:
        raise LinAlgError(f"linalg.{fname}: {len(_shape_of(a))}-dimensional array given, array "
                          f"must be at least {min_ndim}-dimensional (shape {_shape_of(a)})")
    return a


def _square(fname, a):
    a = _float_operand(fname, a)
    s = _shape_of(a)
    if s[-1] != s[-2]:
        raise LinAlgError(f"linalg.{fname}: last 2 dimensions of the array must be square, got "
                          f"shape {s}")
    return a


def _promote(fname, a, b):
    dt = np.result_type(_dtype_of(a), _dtype_of(b))
    return _cast(a, dt), _cast(b, dt)


# --------------------------------------------------------------------------- solve / inv
def solve(a, b):
    """`numpy.linalg.solve`: x with a @ x == b. `b` is a vector when 1-D (NumPy 2), else
    stacked (..., n, k) matrices; leading dims broadcast.

    Example:
        >>> a, b = np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([2.0, 2.0])
        >>> fnp.linalg.solve(a, b)
        array([1. , 0.5])
        >>> fg.grad(lambda b: fnp.sum(fnp.linalg.solve(a, b)))(b)   # a^-T @ ones
        array([0.5 , 0.25])
    """
    a, b = _lift(a), _lift(b)
    if not _traced_or_narrow(a, b):
        with _named_errors("linalg.solve", a=a, b=b):
            return np.linalg.solve(a, b)
    a = _square("solve", a)
    b = _float_operand("solve", b, 1)
    a, b = _promote("solve", a, b)
    sa, sb = _shape_of(a), _shape_of(b)
    vec = len(sb) == 1
    if vec:
        b = _reshape(b, (sb[0], 1))
    sbm = _shape_of(b)
    if sbm[-2] != sa[-1]:
        raise ValueError(f"linalg.solve: a of shape {sa} and b of shape {sb} do not match: "
                         f"b needs {sa[-1]} rows (b is (..., n, k), or 1-D (n,))")
    batch = _broadcast_shapes("linalg.solve", ("a batch", sa[:-2]), ("b batch", sbm[:-2]))
    x = L.solve(_broadcast_to_shape(a, batch + sa[-2:]), _broadcast_to_shape(b, batch + sbm[-2:]))
    return _reshape(x, batch + (sa[-1],)) if vec else x


def inv(a):
    """`numpy.linalg.inv`: solve(a, I), so its derivative is -inv(a) da inv(a) by two solves.

    Example:
        >>> fnp.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
        array([[0.5 , 0.  ],
               [0.  , 0.25]])
        >>> fg.grad(lambda a: fnp.linalg.inv(a)[0, 0])(np.array([[2.0]]))   # d(1/a)/da = -1/a**2
        array([[-0.25]])
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return _numpy("linalg.inv", np.linalg.inv, a)
    a = _square("inv", a)
    s = _shape_of(a)
    return L.solve(a, np.broadcast_to(np.eye(s[-1], dtype=_dtype_of(a)), s))


def tensorsolve(a, b, axes=None):
    """`numpy.linalg.tensorsolve`: x with tensordot(a, x, x.ndim) == b.

    Example:
        >>> a = 2 * np.eye(6).reshape(2, 3, 6)
        >>> fnp.linalg.tensorsolve(a, np.arange(6.0).reshape(2, 3))
        array([0. , 0.5, 1. , 1.5, 2. , 2.5])
    """
    a, b = _lift(a), _lift(b)
    if not _traced_or_narrow(a, b):
        return _numpy("linalg.tensorsolve", np.linalg.tensorsolve, a, b, axes=axes)
    nd = len(_shape_of(a))
    if axes is not None:
        allaxes = [i for i in range(nd) if i not in [ax % nd for ax in axes]]
        a = _transpose(a, allaxes + [ax % nd for ax in axes])
    sb = _shape_of(b)
    xshape = _shape_of(a)[-(nd - len(sb)):] if nd > len(sb) else ()
    n = int(np.prod(sb, dtype=np.int64))
    if int(np.prod(xshape, dtype=np.int64)) != n:
        raise LinAlgError(f"linalg.tensorsolve: a of shape {_shape_of(a)} does not give a "
                          f"square system for b of shape {sb}")
    x = solve(_reshape(a, (n, n)), _reshape(b, (n,)))
    return _reshape(x, xshape)


def tensorinv(a, ind=2):
    """`numpy.linalg.tensorinv`: the inverse of `a` under tensordot over `ind` axes.

    Example:
        >>> a = 2 * np.eye(4).reshape(2, 2, 2, 2)
        >>> fnp.linalg.tensorinv(a, ind=2).shape
        (2, 2, 2, 2)
        >>> fnp.linalg.tensorinv(a, ind=2).reshape(4, 4)
        array([[0.5, 0. , 0. , 0. ],
               [0. , 0.5, 0. , 0. ],
               [0. , 0. , 0.5, 0. ],
               [0. , 0. , 0. , 0.5]])
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return _numpy("linalg.tensorinv", np.linalg.tensorinv, a, ind=ind)
    s = _shape_of(a)
    if ind <= 0:
        raise ValueError(f"linalg.tensorinv: ind must be a positive integer, got {ind}")
    inv_shape = s[ind:] + s[:ind]
    n = int(np.prod(s[ind:], dtype=np.int64))
    return _reshape(inv(_reshape(a, (-1, n) if n else (0, 0))), inv_shape)


# --------------------------------------------------------------------------- factorizations
def cholesky(a, /, *, upper=False):
    """`numpy.linalg.cholesky`: lower L with a = L L^H (upper=True: U with a = U^H U).
    Only the lower (upper) triangle of `a` is read, as by NumPy, and the derivative is that
    of NumPy's function.

    Example:
        >>> fnp.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
        array([[2., 0.],
               [1., 2.]])
        >>> fnp.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]), upper=True)
        array([[2., 1.],
               [0., 2.]])
    """
    a = _lift(a)
    if not _traced_or_narrow(a) and not (upper and _is_cupy(a)):  # (CuPy's has no `upper`)
        with _named_errors("linalg.cholesky", a=a):
            return np.linalg.cholesky(a, upper=True) if upper else np.linalg.cholesky(a)
    a = _square("cholesky", a)
    if upper:  # NumPy reads the upper triangle then: U = L^H for L of a^H's lower one
        return L.mH(L.cholesky_p.bind(L.mH(a)))
    return L.cholesky_p.bind(a)


def qr(a, mode="reduced"):
    """`numpy.linalg.qr` (modes 'reduced', 'complete', 'r'), differentiable in every mode:
    a tall matrix's extra Q columns (mode='complete') are those of LAPACK's Householder
    product, whose derivative fungrad.lax.linalg gives in closed form.

    Example:
        >>> a = np.array([[3.0, 0.0], [4.0, 5.0]])
        >>> q, r = fnp.linalg.qr(a)
        >>> fnp.round(fnp.abs(r), 6)   # r's signs depend on LAPACK
        array([[5., 4.],
               [0., 3.]])
        >>> fnp.allclose(q @ r, a)
        True
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return np.linalg.qr(a, mode=mode)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"linalg.qr: mode {mode!r} is not supported on traced values (use "
                         "'reduced', 'complete' or 'r'; 'raw' gives LAPACK's Householder "
                         "reflectors, which have no derivative here)")
    out = L.qr_p.bind(_float_operand("qr", a), mode=mode)
    return out[0] if mode == "r" else QRResult(*out)


def eigh(a, UPLO="L"):
    """`numpy.linalg.eigh`: eigenvalues (ascending) and eigenvectors of Hermitian `a`
    (only the UPLO triangle is read). Degenerate eigenvalues give finite derivatives of
    functions invariant within the eigenspace (see fungrad.lax.linalg).

    Example:
        >>> a = np.array([[2.0, 1.0], [1.0, 2.0]])
        >>> w, v = fnp.linalg.eigh(a)
        >>> fnp.round(w, 6)
        array([1., 3.])
        >>> fnp.allclose(a @ v, v * w)   # the columns of v are eigenvectors (their signs may vary)
        True
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return np.linalg.eigh(a, UPLO=UPLO)
    return EighResult(*L.eigh_p.bind(_square("eigh", a), lower=_uplo(UPLO)))


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"linalg: UPLO argument must be 'L' or 'U', got {UPLO!r}")
    return UPLO == "L"


def eigvalsh(a, UPLO="L"):
    """`numpy.linalg.eigvalsh`: eigenvalues of Hermitian `a`, ascending; the derivative
    Re(v_i^H da v_i) is finite for repeated eigenvalues too.

    Example:
        >>> a = np.array([[2.0, 1.0], [1.0, 2.0]])
        >>> fnp.round(fnp.linalg.eigvalsh(a), 6)
        array([1., 3.])
        >>> g = fg.grad(lambda a: fnp.linalg.eigvalsh(a)[1])(a)   # v v^T on the lower triangle,
        >>> fnp.round(g, 6)                                       # the only one eigvalsh reads
        array([[0.5, 0. ],
               [1. , 0.5]])
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return np.linalg.eigvalsh(a, UPLO=UPLO)
    return L.eigvalsh_p.bind(_square("eigvalsh", a), lower=_uplo(UPLO))


def eig(a):
    """`numpy.linalg.eig`: eigenvalues and right eigenvectors (unit norm, largest component
    real, as LAPACK's); traced results are always complex.

    Example:
        >>> a = np.array([[1.0, 2.0], [0.0, 3.0]])
        >>> w, v = fnp.linalg.eig(a)
        >>> w
        array([1., 3.])
        >>> fnp.allclose(a @ v, v * w)
        True
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return np.linalg.eig(a)
    return EigResult(*L.eig_p.bind(_square("eig", a)))


def eigvals(a):
    """`numpy.linalg.eigvals` (complex on traced values); dw = diag(V^-1 da V).

    Example:
        >>> fnp.linalg.eigvals(np.array([[1.0, 2.0], [0.0, 3.0]]))
        array([1., 3.])
        >>> fnp.round(fnp.linalg.eigvals(np.array([[0.0, -1.0], [1.0, 0.0]])), 6)
        array([0.+1.j, 0.-1.j])
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return np.linalg.eigvals(a)
    return L.eigvals_p.bind(_square("eigvals", a))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """`numpy.linalg.svd`: U, S, Vh (S only with compute_uv=False). Derivatives of U and Vh
    need distinct singular values. With full_matrices=True a non-square `a`'s extra columns
    of U (rows of Vh) are not unique (NumPy's depend on LAPACK's internal path): their
    derivative is the smallest rotation keeping U unitary, exact for U[..., :k], S, Vh[:k]
    and the projector onto the extra columns (use full_matrices=False for the thin factors).

    Example:
        >>> a = np.array([[3.0, 0.0], [0.0, -2.0]])
        >>> u, s, vh = fnp.linalg.svd(a)
        >>> s
        array([3., 2.])
        >>> fnp.allclose((u * s) @ vh, a)
        True
    """
    a = _lift(a)
    if not _traced_or_narrow(a) and not (hermitian and _is_cupy(a)):  # (CuPy's: no `hermitian`)
        return np.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                             **({"hermitian": True} if hermitian else {}))
    a = _float_operand("svd", a)
    if hermitian:
        return _hermitian_svd(_square("svd", a), compute_uv)
    if not compute_uv:
        return L.svdvals_p.bind(a)
    return SVDResult(*L.svd_p.bind(a, full_matrices=bool(full_matrices)))


def _hermitian_svd(a, compute_uv):
    """NumPy's svd(hermitian=True): from eigh, |w| descending, signs moved into Vh."""
    if not compute_uv:
        return _flip(_sorted_abs(eigvalsh(a)), -1)
    w, v = eigh(a)
    sgn, s = _sign(w), _abs(w)
    idx = _flip(_argsort(s, axis=-1), -1)
    sgn, s = _take_along_axis(sgn, idx, -1), _take_along_axis(s, idx, -1)
    u = _take_along_axis(v, _expand_dims(idx, -2), -1)
    vh = _conj(_swapaxes(_multiply(u, _expand_dims(_cast(sgn, _dtype_of(u)), -2)), -1, -2))
    return SVDResult(u, s, vh)


def _sorted_abs(w):
    s = _abs(w)
    return _take_along_axis(s, _argsort(s, axis=-1), -1)


def svdvals(x, /):
    """`numpy.linalg.svdvals`: singular values, descending; ds_i = Re(u_i^H dx v_i).

    Example:
        >>> a = np.array([[3.0, 0.0], [0.0, -2.0]])
        >>> fnp.linalg.svdvals(a)
        array([3., 2.])
        >>> fg.grad(lambda a: fnp.sum(fnp.linalg.svdvals(a)))(a)   # u @ vh
        array([[ 1.,  0.],
               [ 0., -1.]])
    """
    x = _lift(x)
    if _numpy_computes(x):
        return np.linalg.svdvals(x)
    return L.svdvals_p.bind(_float_operand("svdvals", x))


def det(a):
    """`numpy.linalg.det`; derivative tr(adj(a) da) (the adjugate: det(a) a^-1 where `a` is
    invertible, finite and exact at singular matrices too).

    Example:
        >>> a = np.array([[2.0, 0.0], [0.0, 3.0]])
        >>> fnp.linalg.det(a)
        np.float64(6.0)
        >>> fg.grad(fnp.linalg.det)(a)   # det(a) inv(a)^T
        array([[3., 0.],
               [0., 2.]])
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return np.linalg.det(a)
    return L.det_p.bind(_square("det", a))


def slogdet(a):
    """`numpy.linalg.slogdet`: (sign, log|det|); d log|det| = Re tr(a^-1 da).

    Example:
        >>> a = np.array([[0.0, 2.0], [0.5, 0.0]])
        >>> fnp.linalg.slogdet(a)
        SlogdetResult(sign=np.float64(-1.0), logabsdet=np.float64(0.0))
        >>> fg.grad(lambda a: fnp.linalg.slogdet(a)[1])(a)   # inv(a)^T
        array([[0. , 0.5],
               [2. , 0. ]])
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return np.linalg.slogdet(a)
    return SlogdetResult(*L.slogdet_p.bind(_square("slogdet", a)))


def _pinv_rcond(a_shape, dt, rcond, rtol):
    if rcond is None:
        if rtol is _NOVALUE:
            return 1e-15
        if rtol is None:
            return max(a_shape[-2:]) * float(np.finfo(dt).eps)
        return rtol
    if rtol is not _NOVALUE:
        raise ValueError("linalg.pinv: `rtol` and `rcond` can't be both set.")
    return rcond


_NOVALUE = np._NoValue


def pinv(a, rcond=None, hermitian=False, *, rtol=_NOVALUE):
    """`numpy.linalg.pinv`; derivative by Golub & Pereyra's formula (constant rank).

    Example:
        >>> fnp.round(fnp.linalg.pinv(np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])), 6)
        array([[1. , 0. , 0. ],
               [0. , 0.5, 0. ]])
    """
    a = _lift(a)
    if _numpy_computes(a):  # (CuPy's pinv has neither `hermitian` nor `rtol`)
        return np.linalg.pinv(a, rcond=rcond, hermitian=hermitian, rtol=rtol)
    s = _shape_of(a)
    r = _pinv_rcond(s, _dtype_of(a), rcond, rtol)  # (NumPy's finfo of an int dtype raises)
    if len(s) >= 2 and 0 in s[-2:]:  # NumPy: an empty result of a's own dtype, float16 too
        return _reshape(a, s[:-2] + (s[-1], s[-2]))
    a = _float_operand("pinv", a)
    if not isinstance(r, (int, float)):
        raise TypeError("linalg.pinv: a traced matrix needs a scalar rcond/rtol (got "
                        f"{type(r).__name__})")
    return L.pinv_p.bind(a, rcond=float(r), hermitian=bool(hermitian))


def lstsq(a, b, rcond=None):
    """`numpy.linalg.lstsq`: (x, residuals, rank, s). On traced values x = pinv(a) @ b with
    NumPy's cutoff; residuals have shape (k,) whenever m > n (NumPy's are empty for a
    rank-deficient a: a value-dependent shape); rank is not differentiable.

    Example:
        >>> a, b = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]), np.array([1.0, 2.0, 3.0])
        >>> x, residuals, rank, s = fnp.linalg.lstsq(a, b)
        >>> x, residuals, rank
        (array([1., 2.]), array([9.]), np.int32(2))
    """
    a, b = _lift(a), _lift(b)
    if not _traced_or_narrow(a, b):
        return np.linalg.lstsq(a, b, rcond=rcond)
    a = _float_operand("lstsq", a)
    b = _float_operand("lstsq", b, 1)
    a, b = _promote("lstsq", a, b)
    sa, sb = _shape_of(a), _shape_of(b)
    if len(sa) != 2 or len(sb) > 2 or sb[0] != sa[0]:
        raise LinAlgError(f"linalg.lstsq: a must be 2-D (m, n) and b (m,) or (m, k) with the "
                          f"same m; got a of shape {sa}, b of shape {sb}")
    m, n = sa
    cutoff = float(np.finfo(_dtype_of(a)).eps) * max(m, n) if rcond is None else float(rcond)
    x = _matmul(L.pinv_p.bind(a, rcond=cutoff, hermitian=False), b)
    s = svdvals(a)
    rank = _count_axis(_greater(s, _multiply(_amax(s), cutoff)), None).astype(np.int32)
    if m > n:
        r = _subtract(_matmul(a, x), b)
        resid = _sum(_abs2(r), axis=0)
        resid = _reshape(resid, (1,)) if len(sb) == 1 else resid
    else:
        resid = _abs2(_reshape(b, (-1,))[:0])  # (empty, on b's device: also under vmap)
    return x, resid, rank, s


def _abs2(x):
    if _dtype_of(x).kind != "c":
        return _multiply(x, x)
    return _add(_multiply(_real(x), _real(x)), _multiply(_imag(x), _imag(x)))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """`numpy.linalg.matrix_rank` (an integer: no derivative).

    Example:
        >>> fnp.linalg.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))
        np.int64(1)
        >>> fnp.linalg.matrix_rank(np.eye(3))
        np.int64(3)
    """
    A = _lift(A)
    if _numpy_computes(A):  # (CuPy's matrix_rank has neither `hermitian` nor `rtol`)
        return np.linalg.matrix_rank(A, tol=tol, hermitian=hermitian, rtol=rtol)
    from ..lax.misc import stop_gradient
    if len(_shape_of(A)) < 2:  # NumPy: int(not all(A == 0)), for any dtype
        return _cast(_any(A != 0), np.dtype(np.int64))
    A = stop_gradient(_float_operand("matrix_rank", A))
    S = _abs(eigvalsh(A)) if hermitian else svdvals(A)
    smax = _amax(S, axis=-1, keepdims=True, initial=0.0)  # (no singular values: rank 0)
    if tol is None:
        r = max(_shape_of(A)[-2:]) * float(np.finfo(_dtype_of(S)).eps) if rtol is None else rtol
        tol = _multiply(smax, r)
    else:
        tol = _expand_dims(tol, -1) if np.ndim(tol) else tol
    return _count_axis(_greater(S, tol), -1)


def _count_axis(mask, axis):
    return _sum(mask, axis=axis)


# --------------------------------------------------------------------------- norms
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """`numpy.linalg.vector_norm`: any `ord` (inf, -inf, 0, p) over `axis` (None: all).
    The derivative at x == 0 is 0 for ord 2 (the finite one-sided choice, as fnp.std).

    Example:
        >>> fnp.linalg.vector_norm(np.array([3.0, 4.0]))
        np.float64(5.0)
        >>> fnp.linalg.vector_norm(np.array([[3.0, -4.0], [1.0, 0.0]]), ord=1, axis=-1)
        array([7., 1.])
        >>> fg.grad(fnp.linalg.vector_norm)(np.array([3.0, 4.0]))
        array([0.6, 0.8])
    """
    x = _lift(x)
    if _numpy_computes(x):
        return np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    if _dtypes.kind(_dtype_of(x)) in "biu":
        x = _cast(x, np.dtype(np.float64))
    if axis is None:
        nd = len(_shape_of(x))
        y = _vector_norm(_reshape(x, (-1,)), 0, ord)
        return _reshape(y, (1,) * nd) if keepdims else y
    return _vector_norm(x, axis, ord, keepdims)


def _vector_norm(x, axis, ord, keepdims=False):
    a = _abs(x)
    if ord == np.inf:
        return _max_or_zero(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _amin(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return _sum(_cast(_greater(a, 0.0), _dtype_of(a)), axis=axis, keepdims=keepdims)
    if ord == 1:
        return _sum(a, axis=axis, keepdims=keepdims)
    if ord is None or ord == 2:
        return _sqrt_zero_slope_at_zero(_sum(_abs2(x), axis=axis, keepdims=keepdims))
    p = float(ord)
    return _power(_sum(_power(a, p), axis=axis, keepdims=keepdims), 1.0 / p)


def _max_or_zero(a, axis, keepdims=False):
    """amax of the non-negative `a` over `axis`, 0 over no entries (NumPy's norms of an
    empty matrix or vector: max alone raised). The initial only where the axis is empty:
    as a candidate it would take a share of the derivative at a == 0."""
    shape = _shape_of(a)
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    if any(shape[k] == 0 for k in axes):
        return _amax(a, axis=axis, keepdims=keepdims, initial=0.0)
    return _amax(a, axis=axis, keepdims=keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """`numpy.linalg.matrix_norm` over the last two axes: 'fro', 'nuc', inf, -inf, 1, -1,
    2, -2 (the last four through singular values / sums).

    Example:
        >>> a = np.array([[3.0, 0.0], [0.0, -4.0]])
        >>> fnp.linalg.matrix_norm(a), fnp.linalg.matrix_norm(a, ord="nuc")
        (np.float64(5.0), np.float64(7.0))
        >>> fnp.linalg.matrix_norm(a, ord=2)
        np.float64(4.0)
    """
    x = _lift(x)
    if _numpy_computes(x):
        return np.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    if len(_shape_of(x)) < 2:
        raise ValueError(f"linalg.matrix_norm: x must have at least 2 dims (a stack of "
                         f"matrices), got shape {_shape_of(x)}; use fnp.linalg.vector_norm")
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def _matrix_norm(x, ord, row, col):
    """Matrix norm of axes (row, col) (non-negative, distinct), reduced away."""
    if ord in (2, -2, "nuc"):
        s = svdvals(_float_operand("norm", _moveaxis(x, (row, col), (-2, -1))))
        return {2: lambda: _max_or_zero(s, axis=-1), -2: lambda: _amin(s, axis=-1),
                "nuc": lambda: _sum(s, axis=-1)}[ord]()
    if ord in ("fro", "f"):
        return _sqrt_zero_slope_at_zero(_sum(_abs2(x), axis=(row, col)))
    if ord in (1, -1):
        s = _sum(_abs(x), axis=row)
        c = col - 1 if col > row else col
        return _max_or_zero(s, axis=c) if ord == 1 else _amin(s, axis=c)
    if ord in (np.inf, -np.inf):
        s = _sum(_abs(x), axis=col)
        r = row - 1 if row > col else row
        return _max_or_zero(s, axis=r) if ord == np.inf else _amin(s, axis=r)
    raise ValueError(f"linalg.norm: invalid norm order {ord!r} for matrices (use None, "
                     "'fro', 'nuc', inf, -inf, 1, -1, 2 or -2)")


def norm(x, ord=None, axis=None, keepdims=False):
    """`numpy.linalg.norm`: vector norms (any p) over one axis, matrix norms over two.

    Example:
        >>> fnp.linalg.norm(np.array([3.0, 4.0]))
        np.float64(5.0)
        >>> fnp.linalg.norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=1)   # the largest column sum
        np.float64(6.0)
        >>> fg.grad(fnp.linalg.norm)(np.array([3.0, 4.0]))
        array([0.6, 0.8])
    """
    x = _lift(x)
    if not _traced_or_narrow(x):
        return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    if _dtypes.kind(_dtype_of(x)) in "biu":
        x = _cast(x, np.dtype(np.float64))
    nd = len(_shape_of(x))
    if axis is None:
        if ord is None or (ord in ("fro", "f") and nd == 2):
            y = _sqrt_zero_slope_at_zero(_sum(_abs2(x)))
            return _reshape(y, (1,) * nd) if keepdims else y
        if nd not in (1, 2):
            raise ValueError(f"linalg.norm: improper number of dimensions to norm: ord={ord!r} "
                             f"needs a 1-D or 2-D array (got shape {_shape_of(x)}) or axis=")
        axis = tuple(range(nd))
    if not isinstance(axis, tuple):  # (NumPy's rule: int() of anything else, lists refused)
        try:
            axis = (int(axis),)
        except (TypeError, ValueError):
            raise TypeError(f"linalg.norm: axis must be None, an integer or a tuple of "
                            f"integers, got {axis!r}") from None
    # in range before any wraps around (axis 3 of a matrix is an error, not axis 1)
    axes = tuple(_normalize_axis("linalg.norm", a, nd)[0] for a in axis)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"linalg.norm: invalid norm order {ord!r} for vectors")
        y = _vector_norm(x, axes[0], ord)
    elif len(axes) == 2:
        if axes[0] == axes[1]:
            raise ValueError("linalg.norm: duplicate axes given")
        y = _matrix_norm(x, "fro" if ord is None else ord, *axes)
    else:
        raise ValueError(f"linalg.norm: improper number of dimensions to norm (axis={axis!r})")
    if keepdims:
        for a in sorted(axes):
            y = _expand_dims(y, a)
    return y


def cond(x, p=None):
    """`numpy.linalg.cond`: s_max / s_min for p None/2 (-2: the inverse), else
    norm(x, p) * norm(inv(x), p).

    Example:
        >>> fnp.linalg.cond(np.array([[1.0, 0.0], [0.0, 4.0]]))
        np.float64(4.0)
        >>> fnp.linalg.cond(np.array([[1.0, 0.0], [0.0, 4.0]]), p=1)
        np.float64(4.0)
    """
    x = _lift(x)
    if not _traced_or_narrow(x):
        return np.linalg.cond(x, p)
    x = _float_operand("cond", x)
    if 0 in _shape_of(x)[-2:]:  # (NumPy's check: 'fro' / 'nuc' of no entries gave 0)
        raise LinAlgError(f"linalg.cond: cond is not defined on empty arrays (shape "
                          f"{_shape_of(x)})")
    if p is None or p in (2, -2):
        s = svdvals(x)
        r = _divide(s[..., 0], s[..., -1])
        r = _divide(1.0, r) if p == -2 else r
    else:
        s = _shape_of(x)
        inv_x = L.solve(x, np.broadcast_to(np.eye(s[-1], dtype=_dtype_of(x)), s), "nan")
        r = _multiply(norm(x, p, axis=(-2, -1)), norm(inv_x, p, axis=(-2, -1)))
    # as NumPy: a NaN from a singular matrix (0 / 0) is an infinite condition number,
    # unless the matrix itself holds NaN
    singular = _logical_and(_isnan(r), _logical_not(_any(_isnan(x), axis=(-2, -1))))
    return _where(singular, np.inf, r)


# --------------------------------------------------------------------------- products
def matrix_power(a, n):
    """`numpy.linalg.matrix_power`: a**n by repeated squaring (n < 0: of inv(a)).

    Example:
        >>> a = np.array([[1.0, 1.0], [0.0, 1.0]])
        >>> fnp.linalg.matrix_power(a, 3)
        array([[1., 3.],
               [0., 1.]])
        >>> fnp.linalg.matrix_power(a, -1)
        array([[ 1., -1.],
               [ 0.,  1.]])
    """
    a = _lift(a)
    if not _traced_or_narrow(a):
        return np.linalg.matrix_power(a, n)
    s = _shape_of(a)
    if len(s) < 2 or s[-1] != s[-2]:
        raise LinAlgError(f"linalg.matrix_power: last 2 dimensions of the array must be "
                          f"square, got shape {s}")
    n = int(n)
    if n == 0:
        from ._creation import zeros_like
        xp = _array_module(a)  # (the identity on a's device: zeros_like(a) may be CuPy's)
        return zeros_like(a) + xp.broadcast_to(xp.eye(s[-1], dtype=_dtype_of(a)), s)
    if n < 0:
        a, n = inv(a), -n
    result, z = None, a
    while True:  # binary decomposition of n, as NumPy's
        if n & 1:
            result = z if result is None else _matmul(result, z)
        n >>= 1
        if not n:
            return result
        z = _matmul(z, z)


def multi_dot(arrays, *, out=None):
    """`numpy.linalg.multi_dot`: a chain of matmuls in the cheapest order (NumPy's).

    Example:
        >>> fnp.linalg.multi_dot([np.ones((1, 2)), np.ones((2, 3)), np.ones((3, 1))])
        array([[6.]])
    """
    if not hasattr(arrays, "__getitem__"):  # (NumPy indexes it: a set has no order)
        raise TypeError(f"linalg.multi_dot: arrays must be a sequence (a list or tuple), got "
                        f"a {type(arrays).__name__}")
    arrays = [_lift(a) for a in arrays]
    if _numpy_computes(*arrays):
        return np.linalg.multi_dot(arrays, out=out)
    if out is not None:
        raise TypeError("linalg.multi_dot: out= is not supported on traced values; write "
                        "y = fnp.linalg.multi_dot(arrays)")
    n = len(arrays)
    if n < 2:
        raise ValueError("linalg.multi_dot: expecting at least two arrays")
    if n == 2:  # NumPy's multi_dot of two arrays is np.dot (0-d and N-d operands too)
        from ._contract import dot as _dot
        return _dot(arrays[0], arrays[1])
    first, last = _shape_of(arrays[0]), _shape_of(arrays[-1])
    if len(first) == 1:
        arrays[0] = _reshape(arrays[0], (1, -1))
    if len(last) == 1:
        arrays[-1] = _reshape(arrays[-1], (-1, 1))
    for i, a in enumerate(arrays):  # (NumPy's _assert_2d, after the 1-D ends are reshaped)
        if len(_shape_of(a)) != 2:
            raise LinAlgError(f"linalg.multi_dot: {len(_shape_of(a))}-dimensional array given "
                              f"(arrays[{i}] of shape {_shape_of(a)}). Array must be "
                              "two-dimensional: a chain of three or more takes matrices, and "
                              "1-D vectors only first or last")
    order = _chain_order([_shape_of(a) for a in arrays])
    out_ = _chain(arrays, order, 0, n - 1)
    if len(first) == 1 and len(last) == 1:
        return _reshape(out_, ())
    if len(first) == 1 or len(last) == 1:
        return _reshape(out_, (-1,))
    return out_


def _chain_order(shapes):
    """The split table of the matrix-chain problem (NumPy's dynamic programme, so the
    products and their rounding are NumPy's)."""
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    n = len(shapes)
    m = np.zeros((n, n))
    s = np.zeros((n, n), dtype=int)
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            m[i, j] = np.inf
            for k in range(i, j):
                q = m[i, k] + m[k + 1, j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i, j]:
                    m[i, j], s[i, j] = q, k
    return s


def _chain(arrays, s, i, j):
    if i == j:
        return arrays[i]
    return _matmul(_chain(arrays, s, i, s[i, j]), _chain(arrays, s, s[i, j] + 1, j))


def cross(x1, x2, /, *, axis=-1):
    """`numpy.linalg.cross`: the cross product of 3-vectors along `axis`.

    Example:
        >>> fnp.linalg.cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
        array([0., 0., 1.])
    """
    x1, x2 = _lift(x1), _lift(x2)
    if not _traced_or_narrow(x1, x2):
        return np.linalg.cross(x1, x2, axis=axis)
    for name, x in (("x1", x1), ("x2", x2)):
        nd = len(_shape_of(x))
        if not -nd <= axis < nd:  # (NumPy's IndexError; AxisError is one and a ValueError)
            raise np.exceptions.AxisError(
                f"linalg.cross: axis {axis} is out of bounds for {name} of shape "
                f"{_shape_of(x)}; both inputs need their 3-vectors along axis")
    if _shape_of(x1)[axis] != 3 or _shape_of(x2)[axis] != 3:
        raise ValueError(f"linalg.cross: both inputs must be 3-vectors along axis {axis}, got "
                         f"shapes {_shape_of(x1)} and {_shape_of(x2)}")
    a, b = _moveaxis(x1, axis, -1), _moveaxis(x2, axis, -1)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    c = _stack([_subtract(_multiply(a1, b2), _multiply(a2, b1)),
               _subtract(_multiply(a2, b0), _multiply(a0, b2)),
               _subtract(_multiply(a0, b1), _multiply(a1, b0))], axis=-1)
    return _moveaxis(c, -1, axis)


def outer(x1, x2, /):
    """`numpy.linalg.outer`: outer product of two 1-D arrays.

    Example:
        >>> fnp.linalg.outer(np.array([1.0, 2.0]), np.array([1.0, 10.0, 100.0]))
        array([[  1.,  10., 100.],
               [  2.,  20., 200.]])
    """
    x1, x2 = _lift(x1), _lift(x2)
    if _numpy_computes(x1, x2):
        return np.linalg.outer(x1, x2)
    if len(_shape_of(x1)) != 1 or len(_shape_of(x2)) != 1:
        raise ValueError(f"linalg.outer: inputs must be 1-D, got shapes {_shape_of(x1)} and "
                         f"{_shape_of(x2)}")
    return _outer(x1, x2)


def trace(x, /, *, offset=0, dtype=None):
    """`numpy.linalg.trace`: sum of the diagonal of the last two axes.

    Example:
        >>> fnp.linalg.trace(np.array([[1.0, 2.0], [3.0, 4.0]]))
        np.float64(5.0)
        >>> fnp.linalg.trace(np.ones((3, 2, 2)))   # one trace per matrix
        array([2., 2., 2.])
    """
    x = _lift(x)
    if _numpy_computes(x):
        return np.linalg.trace(x, offset=offset, dtype=dtype)
    return _trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    """`numpy.linalg.diagonal`: the diagonal of the last two axes.

    Example:
        >>> fnp.linalg.diagonal(np.array([[1.0, 2.0], [3.0, 4.0]]))
        array([1., 4.])
        >>> fnp.linalg.diagonal(np.array([[1.0, 2.0], [3.0, 4.0]]), offset=1)
        array([2.])
    """
    x = _lift(x)
    if _numpy_computes(x):
        return np.linalg.diagonal(x, offset=offset)
    return _diagonal(x, offset=offset, axis1=-2, axis2=-1)


def matrix_transpose(x, /):
    """`numpy.linalg.matrix_transpose`: swap the last two axes.

    Example:
        >>> fnp.linalg.matrix_transpose(np.zeros((5, 2, 3))).shape
        (5, 3, 2)
        >>> fnp.linalg.matrix_transpose(np.array([[1.0, 2.0]]))
        array([[1.],
               [2.]])
    """
    x = _lift(x)
    if not _traced_or_narrow(x):
        return np.linalg.matrix_transpose(x)
    if len(_shape_of(x)) < 2:
        raise ValueError(f"linalg.matrix_transpose: input must be at least 2-D, got shape "
                         f"{_shape_of(x)}")
    return _swapaxes(x, -1, -2)


def vecdot(x1, x2, /, *, axis=-1):
    """`numpy.linalg.vecdot`: sum(_conj(x1) * x2) along `axis` (broadcasting).

    Example:
        >>> fnp.linalg.vecdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
        array([3., 7.])
        >>> fnp.linalg.vecdot(np.array([1j, 2.0]), np.array([1j, 1.0]))   # conjugates the first
        np.complex128(3+0j)
    """
    x1, x2 = _lift(x1), _lift(x2)
    if _numpy_computes(x1, x2):
        return np.linalg.vecdot(x1, x2, axis=axis)
    return _vecdot("linalg.vecdot", x1, x2, axis)


def matmul(x1, x2, /):
    """`numpy.linalg.matmul`: fnp.matmul.

    Example:
        >>> fnp.linalg.matmul(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0], [1.0]]))
        array([[3.],
               [7.]])
    """
    return _matmul(x1, x2)


__all__ = ["LinAlgError", "cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh",
           "eigvals", "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power",
           "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr",
           "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve",
           "trace", "vecdot", "vector_norm"]
