"""Polynomials in NumPy's legacy form (coefficients, highest power first): polyval polyfit
poly polyadd polysub polymul polydiv polyder polyint roots vander.

Coefficient loops are unrolled in Python (the degree is static); every result is a
composition of fnp operations, so derivatives of every order and vmap/jit come for free.
"""
from __future__ import annotations

import operator

import numpy as np

from ..backend import array_module, asarray as _asarray, to_host
from ..core.trace import Tracer
from ..errors import ConcretizationError
from ._creation import zeros_like
from ._base import cast, is_traced, lift, result_type, shape_of
from ._dtypes import promote_types


def _np(x):
    return x if isinstance(x, Tracer) else _asarray(x)  # (a CuPy array stays one)


def _1d(fname, p):
    p = _np(lift(p))
    if len(shape_of(p)) == 0:
        p = p.reshape((1,))
    if len(shape_of(p)) != 1:
        raise ValueError(f"{fname}: coefficients must be 1-D, got shape {shape_of(p)}")
    return p


def polyval(p, x):
    """`numpy.polyval`: p[0] * x**(n-1) + ... + p[n-1] by Horner's rule, differentiable in
    the coefficients and in x.

    Example:
        >>> fnp.polyval([1.0, 0.0, -2.0], np.array([0.0, 1.0, 2.0]))   # x**2 - 2
        array([-2., -1.,  2.])
        >>> fg.grad(lambda x: fnp.polyval([1.0, 0.0, -2.0], x))(3.0)
        array(6.)
    """
    p, x = lift(p), lift(x)
    if not is_traced(p, x):
        return np.polyval(p, x)
    p, x = _1d("polyval", p), _np(x)
    y = zeros_like(x)  # as NumPy: the result dtype follows (bool x and p: bool)
    for k in range(shape_of(p)[0]):
        y = y * x + p[k]
    return y


def _pad_front(a, n):
    from ._shape import concatenate
    k = shape_of(a)[0]
    return a if k == n else concatenate([np.zeros((n - k,), result_type(a)), a])


def polyadd(a1, a2):
    """`numpy.polyadd`.

    Example:
        >>> fnp.polyadd(np.array([1.0, 2.0]), np.array([3.0, 0.0, 1.0]))
        array([3., 1., 3.])
    """
    a1, a2 = lift(a1), lift(a2)
    if not is_traced(a1, a2):
        return np.polyadd(a1, a2)
    a1, a2 = _1d("polyadd", a1), _1d("polyadd", a2)
    n = max(shape_of(a1)[0], shape_of(a2)[0])
    return _pad_front(a1, n) + _pad_front(a2, n)


def polysub(a1, a2):
    """`numpy.polysub`.

    Example:
        >>> fnp.polysub(np.array([1.0, 2.0]), np.array([3.0, 0.0, 1.0]))
        array([-3.,  1.,  1.])
    """
    a1, a2 = lift(a1), lift(a2)
    if not is_traced(a1, a2):
        return np.polysub(a1, a2)
    a1, a2 = _1d("polysub", a1), _1d("polysub", a2)
    n = max(shape_of(a1)[0], shape_of(a2)[0])
    return _pad_front(a1, n) - _pad_front(a2, n)


def polymul(a1, a2):
    """`numpy.polymul`: the coefficients' convolution. NumPy first trims each operand's
    leading zero coefficients (it makes them poly1d's; an empty operand is the zero
    polynomial [0]). That depends on the values: they are trimmed where known (concrete
    operands, and traced ones under grad/jvp); under jit/vmap a traced operand keeps its
    length, so a zero leading coefficient gives leading zeros in the result (the same
    polynomial) rather than an error for the common case of none.

    Example:
        >>> fnp.polymul(np.array([1.0, 1.0]), np.array([1.0, -1.0]))   # (x + 1)(x - 1)
        array([ 1.,  0., -1.])
    """
    a1, a2 = lift(a1), lift(a2)
    if not is_traced(a1, a2):
        return np.polymul(a1, a2)
    from ._grids import convolve
    # (an empty operand is poly1d's zero polynomial [0]; the trimmed terms still count in
    # the derivative of the terms kept: the result's leading zeros are cut, not the inputs')
    a1, a2 = (array_module(p).zeros((1,), result_type(p)) if shape_of(p)[0] == 0 else p
              for p in (_1d("polymul", a1), _1d("polymul", a2)))
    return convolve(a1, a2)[_known_leading_zeros(a1) + _known_leading_zeros(a2):]


def _known_leading_zeros(p):
    """How many leading zero coefficients poly1d trims from p (all but one where all are
    zero), where p's values are known; none under jit/vmap (see polymul)."""
    try:
        pc = p.to_concrete("fnp.polymul's trimming") if isinstance(p, Tracer) else p
    except ConcretizationError:
        return 0
    nz = np.flatnonzero(to_host(pc))
    return int(nz[0]) if nz.size else shape_of(p)[0] - 1


def _trim_leading_zeros(r, fname):
    """NumPy drops the remainder's (numerically) zero leading terms: a value-dependent
    length, so it needs concrete values."""
    rc = r.to_concrete(f"fnp.{fname}(u, v) trimming the remainder's leading zeros (its "
                       "length depends on the values; under jit/vmap pass "
                       "trim_leading_zeros=False, as in JAX)") if isinstance(r, Tracer) else r
    k = 0
    while k < len(rc) - 1 and np.allclose(rc[k], 0, rtol=1e-14):
        k += 1
    return r[k:]


def polydiv(u, v, *, trim_leading_zeros: bool = True):
    """`numpy.polydiv`: (quotient, remainder) by long division, differentiable in both.
    NumPy trims the remainder's leading zeros (value-dependent); under jit/vmap pass
    `trim_leading_zeros=False` (JAX's option) for a remainder of len(u) terms.

    Example:
        >>> fnp.polydiv(np.array([1.0, 0.0, -1.0]), np.array([1.0, -1.0]))   # (x**2 - 1) / (x - 1)
        (array([1., 1.]), array([0.]))
        >>> fnp.polydiv(np.array([1.0, 0.0, 1.0]), np.array([1.0, -1.0]))
        (array([1., 1.]), array([2.]))
    """
    u, v = lift(u), lift(v)
    if not is_traced(u, v) and trim_leading_zeros and array_module(u, v) is np:
        return np.polydiv(u, v)  # (CuPy has no polydiv: the division below)
    from ._shape import stack
    u, v = _1d("polydiv", u), _1d("polydiv", v)
    dt = result_type(u, v, 0.0)
    u, v = cast(u, dt), cast(v, dt)
    m, n = shape_of(u)[0] - 1, shape_of(v)[0] - 1
    scale = 1.0 / v[0]
    r = [u[k] for k in range(m + 1)]
    q = []
    for k in range(max(m - n + 1, 0)):
        d = scale * r[k]
        q.append(d)
        for j in range(n + 1):
            r[k + j] = r[k + j] - d * v[j]
    q = stack(q) if q else array_module(u, v).zeros((1,), dt)
    rem = stack(r)
    return q, (_trim_leading_zeros(rem, "polydiv") if trim_leading_zeros else rem)


def polyder(p, m: int = 1):
    """`numpy.polyder`: the m-th derivative's coefficients.

    Example:
        >>> fnp.polyder(np.array([1.0, 1.0, 1.0, 1.0]))
        array([3., 2., 1.])
        >>> fnp.polyder(np.array([1.0, 1.0, 1.0, 1.0]), 2)
        array([6., 2.])
    """
    p = lift(p)
    xp = array_module(p)  # (CuPy has no polyder: the products below, with CuPy constants)
    if not is_traced(p) and xp is np:
        return np.polyder(p, m)
    m = operator.index(m)
    if m < 0:
        raise ValueError("polyder: order of derivative must be positive (see polyint)")
    p = _1d("polyder", p)
    for _ in range(m):
        n = shape_of(p)[0] - 1
        p = p[:-1] * xp.arange(n, 0, -1)
    return p


def polyint(p, m: int = 1, k=None):
    """`numpy.polyint`: the m-th antiderivative, integration constants `k` (differentiable).

    Example:
        >>> fnp.polyint(np.array([3.0, 2.0, 1.0]))
        array([1., 1., 1., 0.])
        >>> fnp.polyint(np.array([3.0, 2.0, 1.0]), k=5.0)
        array([1., 1., 1., 5.])
    """
    p, k = lift(p), lift(k)
    xp = array_module(p, k)  # (CuPy has no polyint: the quotients below, with CuPy constants)
    if not is_traced(p, k) and xp is np:
        return np.polyint(p, m, k)
    from ._shape import concatenate
    m = operator.index(m)
    if m < 0:
        raise ValueError("polyint: order of integral must be positive (see polyder)")
    p = _1d("polyint", p)
    ks = xp.zeros(m) if k is None else _np(k)
    if len(shape_of(ks)) == 0:
        ks = ks.reshape((1,)) * xp.ones(m)
    if shape_of(ks)[0] < m:
        raise ValueError("polyint: k must be a scalar or a rank-1 array of length 1 or >m")
    for i in range(m):
        n = shape_of(p)[0]
        q = p / xp.arange(n, 0, -1)  # an int64 divisor: float32 p gives float64, as in NumPy
        dt = result_type(q, ks)
        p = concatenate([cast(q, dt), cast(ks[i:i + 1], dt)])
    return p


def poly(seq_of_zeros):
    """`numpy.poly`: the monic polynomial with the given roots (1-D), differentiable in
    them; a square matrix's characteristic polynomial needs its eigenvalues (concrete
    values only: np.poly).

    Example:
        >>> fnp.poly([1.0, 2.0])   # (x - 1)(x - 2)
        array([ 1., -3.,  2.])
        >>> fg.jacfwd(fnp.poly)(np.array([1.0, 2.0]))
        array([[ 0.,  0.],
               [-1., -1.],
               [ 2.,  1.]])
    """
    z = lift(seq_of_zeros)
    if not is_traced(z):
        return np.poly(z)
    z = _np(z)
    if len(shape_of(z)) == 2 and shape_of(z)[0] == shape_of(z)[1] and shape_of(z)[0]:
        zc = z.to_concrete("fnp.poly(matrix) (the characteristic polynomial needs "
                           "eigenvalues, not differentiable here)", cuts=True)
        return np.poly(zc)
    if len(shape_of(z)) > 1:
        raise ValueError(f"poly: input must be 1-D or a square 2-D array, got {shape_of(z)}")
    from ._grids import convolve
    # NumPy computes in mintypecode's type: float32/64 and complex64/128 stay, the rest
    # (ints, float16, bfloat16) become float64
    dt = result_type(z)
    dt = dt if dt.char in "fdFD" else np.dtype(np.float64)
    a = one = array_module(z).ones((1,), dt)  # (on z's device where that is known)
    for k in range(shape_of(z)[0]):
        step = cast(z[k:k + 1], dt)
        from ._shape import concatenate
        a = convolve(a, concatenate([one, -step]))
    if dt.kind == "c":  # NumPy returns the real part when the roots pair up in conjugates
        zc = z.to_concrete("fnp.poly(complex roots) (NumPy's real-or-complex result type "
                           "depends on whether the roots pair into conjugates)")
        if np.all(np.sort(zc) == np.sort(zc.conjugate())):
            from ._elementwise import real
            a = real(a)
    return a


def roots(p):
    """`numpy.roots` on concrete values (value only: the roots are eigenvalues of the
    companion matrix, and fnp has no differentiable eigenvalue solver for nonsymmetric
    matrices; under grad this raises rather than silently dropping the derivative).

    Example:
        >>> fnp.roots([1.0, -3.0, 2.0])
        array([2., 1.])
    """
    p = lift(p)
    if isinstance(p, Tracer):
        p = p.to_concrete("fnp.roots(p) (value only: no derivative through the companion "
                          "matrix's eigenvalues; wrap p in fg.stop_gradient for the values)",
                          cuts=True)
    return np.roots(p)


def vander(x, N: int | None = None, increasing: bool = False):
    """`numpy.vander`: columns are powers of x (decreasing unless `increasing`),
    differentiable in x.

    Example:
        >>> fnp.vander(np.array([1.0, 2.0, 3.0]))
        array([[1., 1., 1.],
               [4., 2., 1.],
               [9., 3., 1.]])
        >>> fnp.vander(np.array([1.0, 2.0, 3.0]), 2, increasing=True)
        array([[1., 1.],
               [1., 2.],
               [1., 3.]])
    """
    x = lift(x)
    if not is_traced(x):
        return np.vander(x, N, increasing)
    from ._shape import stack
    if len(shape_of(x)) != 1:
        raise ValueError(f"vander: x must be a one-dimensional array or sequence, got shape "
                         f"{shape_of(x)}")
    n = shape_of(x)[0] if N is None else operator.index(N)
    if n < 0:
        raise ValueError(f"vander: N={n}: negative dimensions are not allowed")
    # NumPy's promote_types(x.dtype, int): float32 x gives float64 (bfloat16 as float16)
    dt = promote_types(x.aval.dtype, np.int64)
    x = cast(x, dt)
    xp = array_module(x)  # (constants on x's device where that is known)
    cols = []
    col = None
    for k in range(n):
        col = xp.ones(shape_of(x), dt) if k == 0 else (x if k == 1 else col * x)
        cols.append(col)
    if not increasing:
        cols = cols[::-1]
    return stack(cols, axis=1) if cols else xp.zeros(shape_of(x) + (0,), dt)


def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
    """`numpy.polyfit`: least-squares coefficients (highest power first), differentiable in
    x, y and w. NumPy's column-scaled Vandermonde system, solved as NumPy's lstsq does: the
    minimum-norm solution, singular values under rcond * the largest taken as zero (a
    rank-deficient fit, such as deg >= 2 on boolean x, included; its derivative assumes
    the rank constant). float16 y raises TypeError as in NumPy. full=True returns (coef,
    residuals, rank, singular_values, rcond) as NumPy, with residuals of shape (1,) / (k,)
    whenever len(x) > deg + 1 (NumPy's are empty for a rank-deficient fit: a
    value-dependent shape) and rank not differentiable; cov=True / "unscaled" returns
    (coef, covariance) by NumPy's formula.

    Example:
        >>> x = np.array([0.0, 1.0, 2.0, 3.0])
        >>> fnp.round(fnp.polyfit(x, 2 * x ** 2 + x - 1, 2), 6)   # recovers 2 x**2 + x - 1
        array([ 2.,  1., -1.])
    """
    x, y, w = lift(x), lift(y), lift(w)
    if not is_traced(x, y, w):
        return np.polyfit(x, y, deg, rcond, full, w, cov)
    deg = operator.index(deg)
    if deg < 0:
        raise ValueError("polyfit: expected deg >= 0")
    x, y = _np(x), _np(y)
    if len(shape_of(x)) != 1 or shape_of(x)[0] == 0:
        raise TypeError(f"polyfit: expected non-empty 1-D x, got shape {shape_of(x)}")
    if len(shape_of(y)) not in (1, 2) or shape_of(y)[0] != shape_of(x)[0]:
        raise TypeError(f"polyfit: expected 1-D or 2-D y with len(x) = {shape_of(x)[0]} rows, "
                        f"got shape {shape_of(y)}")
    if result_type(y, 0.0) == np.float16:  # (NumPy's rhs is y + 0.0; x goes in as float64)
        raise TypeError("polyfit: array type float16 is unsupported in linalg (as in NumPy's "
                        "lstsq); convert y first: y.astype(fnp.float32)")
    if rcond is None:   # NumPy's default, from x's own float dtype
        xdt = np.dtype(result_type(x))
        # (a NumPy scalar of x's float dtype, as full=True returns it: float32 for float32 x)
        rcond = shape_of(x)[0] * np.finfo(xdt if xdt.kind == "f" else np.float64).eps
    A, b, scale = _polyfit_system(x, y, w, deg)
    coef_scaled, residual = _lstsq(A, b, rcond)
    coef = coef_scaled / (scale[:, None] if len(shape_of(b)) == 2 else scale)
    if not full:
        _warn_if_rank_deficient(A, rcond, deg + 1)
    if full:
        return (coef,) + _polyfit_diagnostics(A, residual, rcond, deg)
    if cov:
        return coef, _polyfit_cov(A, residual, scale, deg, cov)
    return coef


def _polyfit_system(x, y, w, deg):
    """NumPy's weighted, column-scaled Vandermonde system: (A, b, scale), computed in
    float64 (NumPy's lstsq computes in double)."""
    from ._elementwise import sqrt
    from ._reductions import sum as _sum
    # NumPy's x + 0.0 and y + 0.0: A takes x's float dtype alone (real for a complex y, so
    # the covariance and the singular values stay real), the right-hand side y's and x's
    float64 = np.zeros((), np.float64)
    adt, bdt = result_type(x, float64), result_type(x, y, float64)
    x, y = cast(x, adt), cast(y, bdt)
    A = vander(x, deg + 1)
    if w is not None:
        w = _np(w)
        A = A * cast(w, adt)[:, None]   # (NumPy's lhs *= w: A keeps its dtype)
        w = cast(w, result_type(w, float64))
        y = y * (w if len(shape_of(y)) == 1 else w[:, None])
    scale = sqrt(_sum(A * A, axis=0))
    return A / scale, y, scale


def _lstsq(A, b, rcond):
    """(c, r): NumPy lstsq's minimum-norm c = pinv(A) b with its cutoff, r = b - A c."""
    from ..lax.linalg import pinv_p
    if not isinstance(rcond, (int, float, np.floating, np.integer)):
        raise TypeError(f"polyfit: traced values need a scalar rcond, got {type(rcond).__name__}")
    c = pinv_p.bind(A, rcond=float(rcond), hermitian=False) @ b
    return c, b - A @ c


def _warn_if_rank_deficient(A, rcond, order):
    """NumPy's RankWarning when the scaled system's numerical rank is below `order`: always
    when there are fewer points than coefficients; otherwise where A's values are known
    (eagerly and under grad/jvp), not under jit/vmap (the rank depends on the values)."""
    import warnings
    if shape_of(A)[0] >= order:
        try:
            Ac = A.to_concrete("fnp.polyfit's rank warning") if isinstance(A, Tracer) else A
        except ConcretizationError:
            return
        s = np.linalg.svd(np.asarray(to_host(Ac)), compute_uv=False)
        if int(np.sum(s > s.max() * rcond)) == order:
            return
    warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning, stacklevel=3)


def _residual_sums(residual):
    """NumPy lstsq's residuals: squared norms per right-hand side, (1,) for a vector b;
    real for a complex b (|r|**2, not r**2)."""
    from ._elementwise import imag, real
    from ._reductions import sum as _sum
    from ._shape import reshape
    squares = (real(residual) ** 2 + imag(residual) ** 2 if result_type(residual).kind == "c"
               else residual * residual)
    sums = _sum(squares, axis=0)
    return reshape(sums, (1,)) if len(shape_of(residual)) == 1 else sums


def _polyfit_diagnostics(A, residual, rcond, deg):
    """full=True's (residuals, rank, singular_values, rcond) of the scaled system A."""
    from . import linalg
    from ._reductions import max as _max, sum as _sum
    m = shape_of(A)[0]
    resids = (_residual_sums(residual) if m > deg + 1
              else np.zeros((0,), np.float64))          # NumPy's: none when m <= deg + 1
    s = linalg.svdvals(A)
    rank = _sum(s > _max(s) * rcond).astype(np.int32)  # lstsq's cutoff, no derivative
    return resids, rank, s, rcond


def _polyfit_cov(A, residual, scale, deg, cov):
    """NumPy's covariance: inv(A^T A) / outer(scale, scale), times the residual variance
    sum(r^2) / (len(x) - order) unless cov == "unscaled"."""
    from . import linalg
    from ._contract import outer
    order = deg + 1
    m = shape_of(A)[0]
    vbase = linalg.inv(A.T @ A) / outer(scale, scale)
    if isinstance(cov, str) and cov == "unscaled":
        fac = 1.0
    elif m <= order:
        raise ValueError(f"polyfit: the number of data points ({m}) must exceed order "
                         f"({order}) to scale the covariance matrix (or pass cov='unscaled')")
    else:
        fac = _residual_sums(residual) / (m - order)
    # NumPy's shapes: (order, order) for a 1-D y, else (order, order, k), or (.., 1) unscaled
    return vbase * fac if len(shape_of(residual)) == 1 else vbase[:, :, None] * fac
