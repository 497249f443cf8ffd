"""fungrad.scipy.special: differentiable `scipy.special` functions (JAX's jax.scipy.special).

Functions SciPy computes (gammaln, digamma, erfinv, ...) are elementwise primitives of
`fungrad.lax.special` whose values come from SciPy (imported on first call) and whose
derivatives are other special functions; the rest (xlogy, entr, logsumexp, softmax, ...) are
written with fungrad.numpy. Arguments are promoted as NumPy promotes them (Python scalars are
weak) and integers compute in float64; a float32 / float16 / bfloat16 result keeps its dtype
(SciPy computes float16 in float32: the value is _cast back, as JAX keeps it). Complex
arguments are rejected (SciPy's complex loops exist only for some of these), except by wofz,
which is complex by nature.

Example:
    >>> import fungrad as fg, fungrad.scipy.special as fsp
    >>> float(fg.grad(fsp.gammaln)(3.0))        # digamma(3)
    0.9227843350984671
"""
from __future__ import annotations

import math
from typing import Any, Optional as _Optional, Tuple as _Tuple, Union as _Union

import numpy as np

from .. import numpy as fnp
from ..backend import asarray as _asarray
from ..lax import special as S
from ..lax.elementwise import complex_p as _complex_p, erf_p
from ..lax.misc import stop_gradient as _stop_gradient
from ..nn.activations import logsumexp as _nn_logsumexp, sigmoid as _sigmoid
from ..numpy._base import (broadcast_shapes as _broadcast_shapes,
                           broadcast_to_shape as _broadcast_to_shape, cast as _cast,
                           has_tracer as _has_tracer, is_weak as _is_weak, lift as _lift,
                           result_type as _result_type, shape_of as _shape_of)
from ._util import float_dtype as _float_dtype, inexact as _inexact
from ._util import inexact_arrays as _inexact_arrays

Array = Any                      # an np.ndarray, or a traced value under a transform
ArrayLike = Any                  # anything fnp.asarray accepts
_Axis = _Optional[_Union[int, _Tuple[int, ...]]]

__all__ = ["gammaln", "digamma", "polygamma", "gamma", "erf", "erfc", "erfinv", "erfcx",
           "ndtr", "log_ndtr", "ndtri", "i0", "i0e", "i1", "i1e", "zeta", "gammainc",
           "gammaincc", "betaln", "beta", "betainc", "expit", "logit", "xlogy", "xlog1py",
           "entr", "kl_div", "rel_entr", "multigammaln", "logsumexp", "softmax", "log_softmax",
           "bernoulli", "comb", "factorial", "poch", "loggamma", "gammasgn", "boxcox",
           "boxcox1p", "dawsn", "exp1", "expi", "expn", "fresnel", "sici", "spence", "owens_t",
           "hyp1f1", "hyp2f1", "bessel_jn", "wofz", "sph_harm_y"]


def _apply(fname, prim, *args):
    """Bind the elementwise primitive `prim` on `args` after NumPy's promotion (to a float
    dtype) and broadcasting; on plain values, its impl (SciPy) directly."""
    args = tuple(_lift(a) for a in args)
    plain = [a if _is_weak(a) or _has_tracer(a) else _asarray(a) for a in args]
    dt = _float_dtype(fname, np.dtype(_result_type(*plain)))
    if not any(_has_tracer(a) for a in args):
        return prim.impl(*[_cast(a, dt) for a in plain])
    shape = _broadcast_shapes(fname, *[(f"argument {i}", _shape_of(a))
                                      for i, a in enumerate(plain)])
    # Python scalars become arrays of the computing dtype: derivative rules never bind a
    # primitive on weak scalars only (a strong float64 result would promote the tangents)
    ops = [np.asarray(a, dt) if _is_weak(a) else _cast(a, dt) for a in plain]
    return prim.bind(*[_broadcast_to_shape(a, shape) for a in ops])


# ----------------------------------------------------------------------------- SciPy's values
def gammaln(x: ArrayLike) -> Array:
    """`log|Gamma(x)|`; derivative `digamma(x)`.

    Example:
        >>> fg.scipy.special.gammaln(np.array([1.0, 4.0]))   # [0, log 6]
        array([0.        , 1.79175947])
        >>> fg.grad(fg.scipy.special.gammaln)(1.0)          # digamma(1) = -Euler's constant
        array(-0.57721566)
    """
    return _apply("special.gammaln", S.gammaln_p, x)


def digamma(x: ArrayLike) -> Array:
    """`psi(x) = d/dx log Gamma(x)`; derivative `polygamma(1, x)`.

    Example:
        >>> fg.scipy.special.digamma(np.array([1.0, 2.0]))   # [-gamma, 1 - gamma]
        array([-0.57721566,  0.42278434])
        >>> fg.grad(fg.scipy.special.digamma)(1.0)          # polygamma(1, 1) = pi**2 / 6
        array(1.64493407)
    """
    return _apply("special.digamma", S.digamma_p, x)


def polygamma(n: ArrayLike, x: ArrayLike) -> Array:
    """`psi^(n)(x)`, the n-th derivative of digamma (n a non-negative integer); derivative
    `polygamma(n + 1, x)` in x, none in n.

    Example:
        >>> fg.scipy.special.polygamma(1, np.array([1.0, 2.0]))   # [pi**2/6, pi**2/6 - 1]
        array([1.64493407, 0.64493407])
    """
    return _apply("special.polygamma", S.polygamma_p, _order_like(n, x), x)


def _order_like(n, x):
    """An integer order `n` cast to float x's dtype: an order is an index, not a value (JAX's
    float32 for a float32 x; NumPy's int64 + float32 promotion made it float64)."""
    n = _lift(n)
    if not _is_weak(n) and np.dtype(_result_type(n)).kind in "biu":
        x = _lift(x)
        if not _is_weak(x):
            x_dt = np.dtype(_result_type(x if _has_tracer(x) else _asarray(x)))
            if x_dt.kind in "fV":   # (a float x; "V": bfloat16)
                n = _cast(n, x_dt)
    return n


def gamma(x: ArrayLike) -> Array:
    """`Gamma(x)`; derivative `Gamma(x) digamma(x)`.

    Example:
        >>> fg.scipy.special.gamma(np.array([1.0, 5.0, 0.5]))   # [0!, 4!, sqrt(pi)]
        array([ 1.        , 24.        ,  1.77245385])
        >>> fg.grad(fg.scipy.special.gamma)(1.0)          # gamma(1) * digamma(1)
        array(-0.57721566)
    """
    return _apply("special.gamma", S.gamma_p, x)


def erf(x: ArrayLike) -> Array:
    """The error function; derivative `2/sqrt(pi) exp(-x^2)`.

    Example:
        >>> fg.scipy.special.erf(np.array([0.0, 1.0]))
        array([0.        , 0.84270079])
        >>> fg.grad(fg.scipy.special.erf)(0.0)            # 2 / sqrt(pi)
        array(1.12837917)
    """
    return _apply("special.erf", erf_p, x)


def erfc(x: ArrayLike) -> Array:
    """`1 - erf(x)`, accurate where erf(x) is close to 1.

    Example:
        >>> fg.scipy.special.erfc(np.array([0.0, 1.0, 10.0]))   # 1 - erf, accurate in the tail
        array([1.00000000e+00, 1.57299207e-01, 2.08848758e-45])
    """
    return _apply("special.erfc", S.erfc_p, x)


def erfinv(x: ArrayLike) -> Array:
    """The inverse of erf on (-1, 1); derivative `sqrt(pi)/2 exp(erfinv(x)^2)`.

    Example:
        >>> fg.scipy.special.erfinv(np.array([0.0, 0.5]))
        array([0.        , 0.47693628])
        >>> fg.grad(fg.scipy.special.erfinv)(0.0)          # sqrt(pi) / 2
        array(0.88622693)
    """
    return _apply("special.erfinv", S.erfinv_p, x)


def erfcx(x: ArrayLike) -> Array:
    """The scaled complementary error function `exp(x^2) erfc(x)`.

    Example:
        >>> fg.scipy.special.erfcx(np.array([0.0, 30.0]))      # exp(x**2) erfc(x), no overflow
        array([1.        , 0.01879589])
    """
    return _apply("special.erfcx", S.erfcx_p, x)


def ndtr(x: ArrayLike) -> Array:
    """The standard normal CDF.

    Example:
        >>> fg.scipy.special.ndtr(np.array([0.0, 1.96]))
        array([0.5      , 0.9750021])
        >>> fg.grad(fg.scipy.special.ndtr)(0.0)          # the normal density at 0
        array(0.39894228)
    """
    return _apply("special.ndtr", S.ndtr_p, x)


def log_ndtr(x: ArrayLike) -> Array:
    """`log(ndtr(x))`, accurate for very negative x (value and derivative: `log_ndtr(-40)`
    is `-804.6`, its derivative `40.02`).

    Example:
        >>> fg.scipy.special.log_ndtr(np.array([0.0, -40.0]))   # log 0.5; ndtr(-40) underflows
        array([-6.93147181e-01, -8.04608442e+02])
    """
    return _apply("special.log_ndtr", S.log_ndtr_p, x)


def ndtri(p: ArrayLike) -> Array:
    """The inverse of ndtr (the standard normal quantile function).

    Example:
        >>> fg.scipy.special.ndtri(np.array([0.5, 0.975]))
        array([0.        , 1.95996398])
        >>> fg.grad(fg.scipy.special.ndtri)(0.5)            # 1 / density(0) = sqrt(2 pi)
        array(2.50662827)
    """
    return _apply("special.ndtri", S.ndtri_p, p)


def i0(x: ArrayLike) -> Array:
    """The modified Bessel function of order 0; derivative `i1(x)`.

    Example:
        >>> fg.scipy.special.i0(np.array([0.0, 1.0]))
        array([1.        , 1.26606588])
        >>> fg.grad(fg.scipy.special.i0)(1.0)                # i1(1)
        array(0.5651591)
    """
    return _apply("special.i0", S.i0_p, x)


def i0e(x: ArrayLike) -> Array:
    """`exp(-|x|) i0(x)`; derivative `i1e(x) - sign(x) i0e(x)`.

    Example:
        >>> fg.scipy.special.i0e(np.array([0.0, 1.0]))          # exp(-|x|) i0(x)
        array([1.        , 0.46575961])
    """
    return _apply("special.i0e", S.i0e_p, x)


def i1(x: ArrayLike) -> Array:
    """The modified Bessel function of order 1; derivative `i0(x) - i1(x)/x` (1/2 at 0).

    Example:
        >>> fg.scipy.special.i1(np.array([0.0, 1.0]))
        array([0.       , 0.5651591])
        >>> fg.grad(fg.scipy.special.i1)(0.0)                # (i0 + i2) / 2 at 0
        array(0.5)
    """
    return _apply("special.i1", S.i1_p, x)


def i1e(x: ArrayLike) -> Array:
    """`exp(-|x|) i1(x)`; derivative `i0e(x) - i1e(x) (1/x + sign(x))` (1/2 at 0).

    Example:
        >>> fg.scipy.special.i1e(np.array([0.0, 1.0]))          # exp(-|x|) i1(x)
        array([0.        , 0.20791042])
    """
    return _apply("special.i1e", S.i1e_p, x)


def zeta(x: ArrayLike, q: ArrayLike = None) -> Array:
    """The Hurwitz zeta function `sum_k (k + q)^-x` (Riemann's for q = None, i.e. 1);
    differentiable in q (`-x zeta(x + 1, q)`); the derivative in x raises
    NotImplementedError.

    Example:
        >>> fg.scipy.special.zeta(np.array([2.0, 4.0]))        # [pi**2/6, pi**4/90]
        array([1.64493407, 1.08232323])
        >>> fg.scipy.special.zeta(2.0, np.array([1.0, 2.0]))   # Hurwitz: [pi**2/6, pi**2/6 - 1]
        array([1.64493407, 0.64493407])
    """
    return _apply("special.zeta", S.zeta_p, x, 1.0 if q is None else q)


def gammainc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized lower incomplete gamma function P(a, x); differentiable in x
    (`x^(a-1) e^-x / Gamma(a)`); the derivative in a raises NotImplementedError.

    Example:
        >>> fg.scipy.special.gammainc(1.0, np.array([0.0, 1.0]))   # [0, 1 - 1/e]
        array([0.        , 0.63212056])
        >>> fg.grad(lambda x: fg.scipy.special.gammainc(1.0, x))(1.0)   # exp(-x)
        array(0.36787944)
    """
    return _apply("special.gammainc", S.gammainc_p, a, x)


def gammaincc(a: ArrayLike, x: ArrayLike) -> Array:
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x);
    differentiable in x only (as gammainc).

    Example:
        >>> fg.scipy.special.gammaincc(1.0, np.array([0.0, 1.0]))   # [1, 1/e]
        array([1.        , 0.36787944])
    """
    return _apply("special.gammaincc", S.gammaincc_p, a, x)


def betaln(a: ArrayLike, b: ArrayLike) -> Array:
    """`log|B(a, b)|`; derivatives `digamma(a) - digamma(a + b)` (and in b).

    Example:
        >>> fg.scipy.special.betaln(np.array([1.0, 2.0]), 3.0)   # [log 1/3, log 1/12]
        array([-1.09861229, -2.48490665])
    """
    return _apply("special.betaln", S.betaln_p, a, b)


def beta(a: ArrayLike, b: ArrayLike) -> Array:
    """The beta function `Gamma(a) Gamma(b) / Gamma(a + b)`.

    Example:
        >>> fg.scipy.special.beta(np.array([1.0, 2.0]), 3.0)     # [1/3, 1/12]
        array([0.33333333, 0.08333333])
    """
    return _apply("special.beta", S.beta_p, a, b)


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """The regularized incomplete beta function I_x(a, b); differentiable in x
    (`x^(a-1) (1-x)^(b-1) / B(a, b)`); the derivatives in a and b raise
    NotImplementedError.

    Example:
        >>> fg.scipy.special.betainc(2.0, 1.0, np.array([0.0, 0.5, 1.0]))   # x**2
        array([0.  , 0.25, 1.  ])
        >>> fg.grad(lambda x: fg.scipy.special.betainc(2.0, 1.0, x))(0.5)   # 2x
        array(1.)
    """
    return _apply("special.betainc", S.betainc_p, a, b, x)


# ----------------------------------------------------------------------------- more of SciPy's
def bernoulli(n: int) -> Array:
    """The Bernoulli numbers B_0 .. B_n (SciPy's, with B_1 = -1/2), a float64 array of
    length n + 1; `n` is a Python int (nothing to differentiate).

    Example:
        >>> fg.scipy.special.bernoulli(4)          # [1, -1/2, 1/6, 0, -1/30]
        array([ 1.        , -0.5       ,  0.16666667,  0.        , -0.03333333])
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"special.bernoulli: n must be a non-negative Python int, got {n!r}")
    return np.asarray(S.scipy_special().bernoulli(int(n)), np.float64)


def comb(N: ArrayLike, k: ArrayLike, *, repetition: bool = False) -> Array:
    """The number of combinations of N things taken k at a time, `binom(N, k)` for
    0 <= k <= N and 0 elsewhere (SciPy's `comb(N, k, exact=False)`; with `repetition`,
    `binom(N + k - 1, k)`, 1 for k == 0). Derivatives through digamma:
    `comb (psi(N+1) - psi(N-k+1))` in N, `comb (psi(N-k+1) - psi(k+1))` in k (0 where the
    value is the constant 0).

    Example:
        >>> fg.scipy.special.comb(5.0, np.array([2.0, 6.0]))   # [10, 0]
        array([10.,  0.])
        >>> fg.scipy.special.comb(5.0, 2.0, repetition=True)   # comb(6, 2)
        array(15.)
    """
    N, k = _inexact_arrays("special.comb", N, k)
    if repetition:
        # SciPy's: binom(N + k - 1, k) unmasked, and 1 for k == 0 with N >= 0 (where the
        # binom is read at a safe N: its slope at N + k - 1 == -1 would be nan)
        one = fnp.logical_and(k == 0, N >= 0)
        shifted = N + k - np.dtype(_result_type(N)).type(1.0)   # (bfloat16 stays bfloat16)
        out = _apply("special.comb", S.binom_p, fnp.where(one, 1.0, shifted), k)
        return fnp.where(one, 1.0, out)
    valid = fnp.logical_and(fnp.logical_and(k <= N, N >= 0), k >= 0)
    # (safe operands where the value is 0: the untaken side's slope, through digamma's
    # poles, would be nan)
    out = _apply("special.comb", S.binom_p, fnp.where(valid, N, 1.0), fnp.where(valid, k, 0.0))
    return fnp.where(valid, out, 0.0)


def factorial(n: ArrayLike, exact: bool = False) -> Array:
    """`n! = Gamma(n + 1)` (any real n >= 0), 0 for n < 0 (SciPy's `exact=False`; `exact=True`
    raises NotImplementedError, as JAX's). Derivative `Gamma(n + 1) digamma(n + 1)`.

    Example:
        >>> fg.scipy.special.factorial(np.array([0.0, 4.0, -1.0]))
        array([ 1., 24.,  0.])
        >>> fg.grad(fg.scipy.special.factorial)(1.0)   # digamma(2) = 1 - Euler's constant
        array(0.42278434)
    """
    if exact:
        raise NotImplementedError("special.factorial with exact=True (exact integer "
                                  "arithmetic) is not implemented; use exact=False")
    n, = _inexact_arrays("special.factorial", n)
    negative = n < 0
    # (a constant of n's dtype: NumPy promotes bfloat16 + a Python float to float32)
    one = np.dtype(_result_type(n)).type(1.0)
    out = _apply("special.factorial", S.gamma_p, fnp.where(negative, 0.0, n) + one)
    return fnp.where(negative, 0.0, out)


def poch(z: ArrayLike, m: ArrayLike) -> Array:
    """The Pochhammer symbol (rising factorial) `Gamma(z + m) / Gamma(z)`; derivatives
    `poch (psi(z + m) - psi(z))` in z and `poch psi(z + m)` in m.

    Example:
        >>> fg.scipy.special.poch(np.array([1.0, 3.0]), 2.0)   # [1*2, 3*4]
        array([ 2., 12.])
    """
    return _apply("special.poch", S.poch_p, z, m)


def loggamma(x: ArrayLike) -> Array:
    """The principal branch of log Gamma for real x: `gammaln(x)` for x > 0, nan for x < 0
    (SciPy's real loggamma; complex arguments are rejected). Derivative `digamma(x)`.

    Example:
        >>> fg.scipy.special.loggamma(np.array([3.0, -2.5]))   # [log 2, nan]
        array([0.69314718,        nan])
    """
    return _apply("special.loggamma", S.loggamma_p, x)


def gammasgn(x: ArrayLike) -> Array:
    """The sign of Gamma(x) (+1 or -1; 0 where SciPy gives 0); piecewise constant, so its
    derivative is 0.

    Example:
        >>> fg.scipy.special.gammasgn(np.array([2.0, -0.5, -1.5]))
        array([ 1., -1.,  1.])
    """
    return _apply("special.gammasgn", S.gammasgn_p, x)


def boxcox(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transformation `(x^lmbda - 1) / lmbda` (`log x` at lmbda = 0).
    Derivatives `x^(lmbda - 1)` in x and `(x^lmbda log x - boxcox) / lmbda` in lmbda
    (`log(x)^2 / 2` at lmbda = 0).

    Example:
        >>> fg.scipy.special.boxcox(np.array([1.0, np.e]), 0.0)   # log x
        array([0., 1.])
        >>> fg.grad(lambda l: fg.scipy.special.boxcox(np.e, l))(0.0)   # log(x)**2 / 2
        array(0.5)
    """
    return _apply("special.boxcox", S.boxcox_p, x, lmbda)


def boxcox1p(x: ArrayLike, lmbda: ArrayLike) -> Array:
    """The Box-Cox transformation of 1 + x, `((1 + x)^lmbda - 1) / lmbda` (`log1p(x)` at
    lmbda = 0), accurate for small x; derivatives as boxcox's with log1p(x).

    Example:
        >>> fg.scipy.special.boxcox1p(np.array([0.0, 3.0]), 0.5)   # 2 (sqrt(1 + x) - 1)
        array([0., 2.])
    """
    return _apply("special.boxcox1p", S.boxcox1p_p, x, lmbda)


def dawsn(x: ArrayLike) -> Array:
    """Dawson's integral `exp(-x^2) int_0^x exp(t^2) dt`; derivative `1 - 2x dawsn(x)`
    (its asymptotic series for |x| > 10, where the two terms cancel).

    Example:
        >>> fg.scipy.special.dawsn(np.array([0.0, 1.0]))
        array([0.        , 0.53807951])
        >>> fg.grad(fg.scipy.special.dawsn)(0.0)
        array(1.)
    """
    return _apply("special.dawsn", S.dawsn_p, x)


def exp1(x: ArrayLike) -> Array:
    """The exponential integral `E_1(x) = int_1^inf exp(-x t) / t dt` (inf at 0, nan for
    x < 0, SciPy's real values); derivative `-exp(-x) / x`.

    Example:
        >>> fg.scipy.special.exp1(np.array([1.0, 0.0]))
        array([0.21938393,        inf])
        >>> fg.grad(fg.scipy.special.exp1)(1.0)   # -1/e
        array(-0.36787944)
    """
    return _apply("special.exp1", S.exp1_p, x)


def expi(x: ArrayLike) -> Array:
    """The exponential integral `Ei(x)` (principal value; -inf at 0); derivative
    `exp(x) / x`.

    Example:
        >>> fg.scipy.special.expi(np.array([1.0, -1.0]))   # Ei(-x) = -E_1(x)
        array([ 1.89511782, -0.21938393])
        >>> fg.grad(fg.scipy.special.expi)(1.0)   # e
        array(2.71828183)
    """
    return _apply("special.expi", S.expi_p, x)


def expn(n: ArrayLike, x: ArrayLike) -> Array:
    """The generalized exponential integral `E_n(x) = int_1^inf exp(-x t) / t^n dt` (n a
    non-negative integer); derivative `-E_{n-1}(x)` in x (`-exp(-x) (x + 1) / x^2` for
    n = 0), none in n (an integer: a tangent reaching it raises NotImplementedError).

    Example:
        >>> fg.scipy.special.expn(np.array([0, 1, 2]), 1.0)   # [1/e, E_1(1), E_2(1)]
        array([0.36787944, 0.21938393, 0.14849551])
        >>> fg.grad(lambda x: fg.scipy.special.expn(2, x))(1.0)   # -E_1(1)
        array(-0.21938393)
    """
    return _apply("special.expn", S.expn_p, _order_like(n, x), x)


def fresnel(x: ArrayLike) -> _Tuple[Array, Array]:
    """The Fresnel integrals `(S(x), C(x)) = (int_0^x sin(pi t^2 / 2) dt, int_0^x
    cos(pi t^2 / 2) dt)`, SciPy's order; derivatives `sin(pi x^2 / 2)` and
    `cos(pi x^2 / 2)`.

    Example:
        >>> s, c = fg.scipy.special.fresnel(np.array([0.0, 1.0]))
        >>> s, c
        (array([0.        , 0.43825915]), array([0.       , 0.7798934]))
        >>> fg.grad(lambda x: fg.scipy.special.fresnel(x)[1])(1.0)   # cos(pi / 2)
        array(6.123234e-17)
    """
    return (_apply("special.fresnel", S.fresnel_s_p, x),
            _apply("special.fresnel", S.fresnel_c_p, x))


def sici(x: ArrayLike) -> _Tuple[Array, Array]:
    """The sine and cosine integrals `(Si(x), Ci(x))`: `int_0^x sin t / t dt` and
    `gamma + log|x| + int_0^x (cos t - 1) / t dt` (SciPy's real Ci(|x|) for x < 0);
    derivatives `sin x / x` (1 at 0) and `cos x / x`.

    Example:
        >>> si, ci = fg.scipy.special.sici(np.array([1.0, 2.0]))
        >>> si
        array([0.94608307, 1.60541298])
        >>> fg.grad(lambda x: fg.scipy.special.sici(x)[0])(2.0)   # sin(2) / 2
        array(0.45464871)
    """
    return (_apply("special.sici", S.sici_si_p, x), _apply("special.sici", S.sici_ci_p, x))


def spence(x: ArrayLike) -> Array:
    """Spence's function (SciPy's dilogarithm convention) `int_1^x log t / (1 - t) dt` for
    x >= 0 (nan for x < 0); derivative `log x / (1 - x)` (-1 at x = 1).

    Example:
        >>> fg.scipy.special.spence(np.array([0.0, 1.0]))   # [pi**2 / 6, 0]
        array([1.64493407, 0.        ])
        >>> fg.grad(fg.scipy.special.spence)(1.0)
        array(-1.)
    """
    return _apply("special.spence", S.spence_p, x)


def owens_t(h: ArrayLike, a: ArrayLike) -> Array:
    """Owen's T function `1/(2 pi) int_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt`;
    derivatives `-phi(h) erf(a h / sqrt 2) / 2` in h and
    `exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2))` in a.

    Example:
        >>> fg.scipy.special.owens_t(0.0, np.array([1.0, np.inf]))   # arctan(a) / (2 pi)
        array([0.125, 0.25 ])
    """
    return _apply("special.owens_t", S.owens_t_p, h, a)


def hyp1f1(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """Kummer's confluent hypergeometric function 1F1(a; b; x); differentiable in x
    (`a/b 1F1(a + 1; b + 1; x)`); the derivatives in a and b raise NotImplementedError.
    (SciPy's own loop does not return for x = +inf with a > 0; fungrad calls it as is.)

    Example:
        >>> fg.scipy.special.hyp1f1(1.0, 1.0, np.array([0.0, 1.0]))   # exp(x)
        array([1.        , 2.71828183])
        >>> fg.grad(lambda x: fg.scipy.special.hyp1f1(1.0, 1.0, x))(1.0)
        array(2.71828183)
    """
    return _apply("special.hyp1f1", S.hyp1f1_p, a, b, x)


def hyp2f1(a: ArrayLike, b: ArrayLike, c: ArrayLike, x: ArrayLike) -> Array:
    """The Gauss hypergeometric function 2F1(a, b; c; x); differentiable in x
    (`a b / c 2F1(a + 1, b + 1; c + 1; x)`); the derivatives in a, b and c raise
    NotImplementedError.

    Example:
        >>> fg.scipy.special.hyp2f1(1.0, 1.0, 2.0, np.array([0.0, 0.5]))   # -log(1 - x) / x
        array([1.        , 1.38629436])
    """
    return _apply("special.hyp2f1", S.hyp2f1_p, a, b, c, x)


def bessel_jn(z: ArrayLike, *, v: int, n_iter: int = 50) -> Array:
    """The Bessel functions of the first kind of orders 0 .. v at z: an array of shape
    `(v + 1,) + z.shape` (JAX's). Values are SciPy's `jv(n, z)` (to full precision:
    `n_iter`, the number of terms of JAX's recurrence, is accepted and not needed);
    derivative in z `(J_{n-1}(z) - J_{n+1}(z)) / 2`.

    Example:
        >>> fg.scipy.special.bessel_jn(np.array([1.0, 2.0]), v=1)   # [[J0], [J1]]
        array([[0.76519769, 0.22389078],
               [0.44005059, 0.57672481]])
        >>> fg.grad(lambda z: fg.scipy.special.bessel_jn(z, v=0)[0])(1.0)   # -J1(1)
        array(-0.44005059)
    """
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise ValueError(f"special.bessel_jn: v must be a non-negative Python int, got {v!r}")
    if isinstance(n_iter, bool) or not isinstance(n_iter, (int, np.integer)) or n_iter < 1:
        raise ValueError(f"special.bessel_jn: n_iter must be a positive int, got {n_iter!r}")
    z, = _inexact_arrays("special.bessel_jn", z)
    dt = np.dtype(_result_type(z))
    orders = np.arange(int(v) + 1).reshape((-1,) + (1,) * len(_shape_of(z)))
    return _apply("special.bessel_jn", S.jv_p, _cast(orders, dt), z)


def wofz(z: ArrayLike) -> Array:
    """The Faddeeva function `w(z) = exp(-z^2) erfc(-i z)`, complex (a real z is promoted
    to complex: float32 to complex64, others to complex128); holomorphic, with derivative
    `-2 z w(z) + 2i / sqrt(pi)`.

    Example:
        >>> fg.scipy.special.wofz(np.array([0.0, 1.0]))
        array([1.        +0.j        , 0.36787944+0.60715771j])
        >>> fg.grad(lambda z: fg.scipy.special.wofz(z).real)(0.0)   # Re w'(0) = 0
        array(0.)
    """
    z = _lift(z)
    plain = z if _is_weak(z) or _has_tracer(z) else _asarray(z)
    dt = np.dtype(_result_type(plain))
    if dt.kind not in "biufcV":
        _float_dtype("special.wofz", dt)   # (raises: not a number)
    cdt = np.dtype(np.complex64 if dt.itemsize <= 4 and dt.kind in "fV" or dt == np.complex64
                   else np.complex128)
    if _is_weak(plain):
        plain = np.asarray(plain, cdt)
    if not _has_tracer(plain):
        return S.wofz_p.impl(_cast(plain, cdt))
    return S.wofz_p.bind(_cast(plain, cdt))


def sph_harm_y(n: ArrayLike, m: ArrayLike, theta: ArrayLike, phi: ArrayLike,
               diff_n: _Optional[int] = None, n_max: _Optional[int] = None) -> Array:
    """The spherical harmonic `Y_n^m(theta, phi)` (SciPy's sph_harm_y: theta the polar
    angle, phi the azimuth; integer n >= 0 and m, 0 for |m| > n), complex (complex64 for
    float32 angles). Differentiable in theta and phi (`dY/dphi = i m Y`, `dY/dtheta =
    m cot(theta) Y + sqrt((n-m)(n+m+1)) e^{-i phi} Y_n^{m+1}`), not in n and m (integers: a
    tangent reaching them raises). `diff_n` raises NotImplementedError, as JAX's; `n_max`
    (JAX's static bound on n) is accepted and not needed.

    Example:
        >>> fg.scipy.special.sph_harm_y(0, 0, 0.3, 0.5)        # 1 / (2 sqrt(pi))
        array(0.28209479+0.j)
        >>> y = fg.scipy.special.sph_harm_y(1, 0, np.array([0.0, np.pi / 2]), 0.0)
        >>> np.round(y, 8)                                     # sqrt(3 / (4 pi)) cos(theta)
        array([0.48860251+0.j, 0.        +0.j])
        >>> fg.grad(lambda t: fg.scipy.special.sph_harm_y(1, 0, t, 0.0).real)(np.pi / 2)
        array(-0.48860251)
    """
    if diff_n is not None:
        raise NotImplementedError("special.sph_harm_y: the diff_n argument is not supported "
                                  "(as in JAX)")
    del n_max
    theta, phi = _inexact_arrays("special.sph_harm_y", theta, phi)
    dt = np.dtype(_result_type(theta, phi))
    n, m = (_cast(_lift(v) if _has_tracer(_lift(v)) else np.asarray(v), dt) for v in (n, m))
    re = _apply("special.sph_harm_y", S.sph_harm_y_real_p, n, m, theta, phi)
    im = _apply("special.sph_harm_y", S.sph_harm_y_imag_p, n, m, theta, phi)
    return _complex_p.bind(re, im)


# ----------------------------------------------------------------------------- fnp formulas
def expit(x: ArrayLike) -> Array:
    """The logistic sigmoid `1 / (1 + exp(-x))`, finite with finite derivatives everywhere.

    Example:
        >>> fg.scipy.special.expit(np.array([0.0, 1000.0, -1000.0]))
        array([0.5, 1. , 0. ])
        >>> fg.grad(fg.scipy.special.expit)(0.0)          # expit(0) * (1 - expit(0))
        array(0.25)
    """
    return _sigmoid(*_inexact("special.expit", x))


def logit(p: ArrayLike) -> Array:
    """`log(p / (1 - p))`, the inverse of expit (`-inf` at 0, `inf` at 1).

    Example:
        >>> fg.scipy.special.logit(np.array([0.5, 0.75]))   # [0, log 3]
        array([0.        , 1.09861229])
        >>> fg.grad(fg.scipy.special.logit)(0.5)          # 1 / (p (1 - p))
        array(4.)
    """
    p, = _inexact("special.logit", p)
    return fnp.log(p) - fnp.log1p(-p)


def _safe_where(x, ok, y, fallback):
    # y where x != 0 or `ok`; elsewhere (x == 0 and y outside the log's finite domain, nan
    # excepted: SciPy's 0 * log(nan) is nan) `fallback`, so x * log(y) there is 0 with a zero
    # derivative in y, and nothing is 0 * inf
    keep = fnp.logical_or(fnp.logical_or(x != 0, ok), fnp.isnan(y))
    return fnp.where(keep, y, fallback)


def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    """`x * log(y)`, 0 where x == 0 (whatever y). Derivatives: `log(y)` in x (0 where
    x == 0 and y <= 0) and `x / y` in y (0 where x == 0, also at y == 0).

    Example:
        >>> fg.scipy.special.xlogy(np.array([0.0, 2.0]), np.array([0.0, np.e]))   # [0, not nan]
        array([0., 2.])
        >>> fg.grad(fg.scipy.special.xlogy, argnums=1)(2.0, 4.0)   # x / y
        array(0.5)
    """
    x, y = _inexact_arrays("special.xlogy", x, y)
    return x * fnp.log(_safe_where(x, fnp.logical_and(y > 0, y < np.inf), y, 1.0))


def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    """`x * log1p(y)`, 0 where x == 0 (derivatives as xlogy's).

    Example:
        >>> fg.scipy.special.xlog1py(np.array([0.0, 2.0]), np.array([-1.0, 0.0]))
        array([0., 0.])
    """
    x, y = _inexact_arrays("special.xlog1py", x, y)
    return x * fnp.log1p(_safe_where(x, fnp.logical_and(y > -1, y < np.inf), y, 0.0))


def _log_ratio_impl(x, y):
    return x * (fnp.log(x) - fnp.log(y))


def _log_ratio_jvp(primals, tangents):
    x, y = primals
    tx, ty = tangents
    return _log_ratio_impl(x, y), tx * (fnp.log(x) - fnp.log(y) + 1.0) - ty * (x / y)


def _xlogx_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return x * fnp.log(x), t * (fnp.log(x) + 1.0)


# x log(x / y) and x log x for x, y > 0 (callers pass operands made safe elsewhere), with
# their own JVP rules, `log(x / y) + 1` in x and `-x / y` in y, as JAX's `_xlogx` / `xlogy`:
# the product rule through `x * log(x)` gives x * (1 / x) = inf * 0 = nan at x == inf (the
# slope there is inf). The rules are fnp code, so they differentiate again (second
# derivatives 1 / x, -1 / y, x / y**2). x log x has a rule of its own (entr): a constant y's
# tangent, instantiated as 0 for the rule, would give 0 * (x / y) = nan at x == inf.
_RULES = {}


def _custom(name):
    if name not in _RULES:
        from ..transforms.custom import custom_jvp, stage_once_per_signature
        if name == "xlogx":
            rule = custom_jvp(lambda x: x * fnp.log(x))
            rule.defjvp(_xlogx_jvp)
        else:
            rule = custom_jvp(_log_ratio_impl)
            rule.defjvp(_log_ratio_jvp)
        # (they read only their arguments: staged once per shape and dtype, not every call)
        _RULES[name] = stage_once_per_signature(rule)
    return _RULES[name]


def _x_log_x_over_y(x, y):
    return _custom("log_ratio")(x, y)


def entr(x: ArrayLike) -> Array:
    """Elementwise entropy `-x log x` (0 at 0, `-inf` for x < 0); its derivative
    `-log(x) - 1` is `-inf` at `+inf` (as JAX's), and is taken as 0 at 0 (the one-sided
    limit is +inf, JAX's value).

    Example:
        >>> fg.scipy.special.entr(np.array([0.0, 0.5, -1.0]))
        array([0.        , 0.34657359,       -inf])
        >>> fg.grad(fg.scipy.special.entr)(1.0)           # -log(x) - 1
        array(-1.)
    """
    x, = _inexact("special.entr", x)
    # a nan x goes through x log x too: nan, with a nan slope (JAX's; passing x itself
    # through gave the slope 1)
    computed = fnp.logical_or(x > 0, fnp.isnan(x))
    inside = -_custom("xlogx")(fnp.where(computed, x, 1.0))
    # (x < 0 is -inf; the constants take x's dtype: a where of two Python floats is float64)
    return fnp.where(computed, inside,
                     fnp.where(x == 0, fnp.zeros_like(x), fnp.full_like(x, -np.inf)))


def _safe_pair(x, y):
    """(x, y) where both are > 0, else (1, 1): the untaken branch of the callers' `where`
    then has finite slopes (its zero cotangent times a NaN or infinite operand was NaN)."""
    both = fnp.logical_and(x > 0, y > 0)
    return both, fnp.where(both, x, 1.0), fnp.where(both, y, 1.0)


def rel_entr(x: ArrayLike, y: ArrayLike) -> Array:
    """`x log(x / y)` for x, y > 0; 0 for x == 0 and y >= 0; inf otherwise. Slopes (JAX's):
    `log(x / y) + 1` and `-x / y` inside (`inf` in x at x == inf), 0 elsewhere (at x == 0
    too, where the one-sided limit is -inf).

    Example:
        >>> fg.scipy.special.rel_entr(np.array([0.0, 1.0, 1.0]), np.array([1.0, 1.0, 0.0]))
        array([ 0.,  0., inf])
    """
    x, y = _inexact_arrays("special.rel_entr", x, y)
    both, sx, sy = _safe_pair(x, y)
    inside = _x_log_x_over_y(sx, sy)
    zero = fnp.logical_and(x == 0, y >= 0)
    # (constants of the operands' dtype: a where of two Python floats is a float64 array)
    return _nan_if_either(x, y, fnp.where(both, inside, fnp.where(
        zero, fnp.zeros_like(inside), fnp.full_like(inside, np.inf))))


def _nan_if_either(x, y, out):
    # SciPy's rel_entr / kl_div are nan for a nan argument (the masks above read it as
    # "otherwise": inf)
    return fnp.where(fnp.logical_or(fnp.isnan(x), fnp.isnan(y)), fnp.full_like(out, np.nan),
                     out)


def kl_div(x: ArrayLike, y: ArrayLike) -> Array:
    """`x log(x / y) - x + y` for x, y > 0; y for x == 0 and y >= 0; inf otherwise. Slopes
    are rel_entr's plus (-1, 1) (JAX's: `(-1, 1)` at x == 0, also for y == inf, and in the
    +inf region with finite operands); 0 in the +inf region with an infinite operand and at
    a nan operand (JAX's are (-1, 1) there too).

    Example:
        >>> fg.scipy.special.kl_div(np.array([0.0, 1.0, 1.0]), np.array([2.0, 1.0, 0.0]))
        array([ 2.,  0., inf])
    """
    x, y = _inexact_arrays("special.kl_div", x, y)
    both, sx, sy = _safe_pair(x, y)
    inside = _x_log_x_over_y(sx, sy) - sx + sy
    zero = fnp.logical_and(x == 0, y >= 0)
    # y - x is y there (x is 0), with JAX's slopes (-1, 1); in the +inf region with finite
    # operands too, JAX's (-1, 1): inf + (y - x), where a constant inf had slopes 0 (with
    # an infinite operand the slopes stay 0: no inf - inf; JAX's are (-1, 1) there too)
    finite = fnp.logical_and(fnp.isfinite(x), fnp.isfinite(y))
    beyond = fnp.full_like(inside, np.inf) + (fnp.where(finite, y, 0.0)
                                              - fnp.where(finite, x, 0.0))
    return _nan_if_either(x, y, fnp.where(both, inside, fnp.where(zero, y - x, beyond)))


def multigammaln(a: ArrayLike, d: int) -> Array:
    """The log of the multivariate gamma function of dimension `d` (a Python int):
    `d(d-1)/4 log(pi) + sum_j gammaln(a - j/2)`, j = 0 .. d-1.

    Example:
        >>> a = np.array([3.0, 4.0])
        >>> fg.scipy.special.multigammaln(a, 1)   # gammaln(a): [log 2, log 6]
        array([0.69314718, 1.79175947])
        >>> fg.scipy.special.multigammaln(a, 2)   # adds gammaln(a - 0.5) + log(pi)/2
        array([1.55019499, 3.56509801])
    """
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"multigammaln: d must be a positive Python int, got {d!r}")
    a, = _inexact("special.multigammaln", a)
    # the constants as arrays of a's dtype: NumPy promotes bfloat16 with a Python float to
    # float32 (a bfloat16 `a` gave a float32 result)
    # (NumPy scalars of that dtype, which CuPy arrays take as well)
    dt = np.dtype(_result_type(a))
    out = dt.type(d * (d - 1) / 4.0 * math.log(math.pi))
    for j in range(int(d)):
        out = out + gammaln(a - dt.type(j / 2.0))
    return out


def _max_shift(a, axis, finite):
    """max(a, axis) kept as length-1 axes, as a constant for the derivative (the shift
    cancels); -inf for an empty slice; with `finite`, 0 where the max is not finite."""
    m = fnp.max(a, axis=axis, keepdims=True, initial=-np.inf)
    return _stop_gradient(fnp.where(fnp.isfinite(m), m, 0.0) if finite else m)


def logsumexp(a: ArrayLike, axis: _Axis = None, b: _Optional[ArrayLike] = None,
              keepdims: bool = False, return_sign: bool = False,
              where: _Optional[ArrayLike] = None) -> _Union[Array, _Tuple[Array, Array]]:
    """`log(sum(b * exp(a), axis))`, stable for any size of `a` (SciPy's signature and
    values: nan where a slice holds nan, -inf for an empty one). A negative sum gives nan
    unless `return_sign`, which returns `(log|sum|, sign(sum))`. Complex `a` is rejected.
    `where` (JAX's; a boolean array broadcasting against `a`) leaves the elements where it
    is False out of the sum (their values and weights, nan or inf too, do not reach it).

    Example:
        >>> fg.scipy.special.logsumexp(np.array([1e4, 1e4]))   # 1e4 + log 2, no overflow
        array(10000.69314718)
        >>> fg.grad(fg.scipy.special.logsumexp)(np.array([0.0, 0.0]))   # softmax
        array([0.5, 0.5])
    """
    # a and b promoted together first (SciPy's: a float16 `a` with float64 weights computes in
    # float64, not exp in float16); the rest is fg.nn's (weight-0 and masked elements left out)
    a, *b = _inexact("special.logsumexp", a, *([] if b is None else [b]))
    return _nn_logsumexp(fnp.asarray(a), axis, b[0] if b else None, keepdims, return_sign,
                         where)


def softmax(x: ArrayLike, axis: _Axis = None) -> Array:
    """`exp(x) / sum(exp(x), axis)`, stable; SciPy's default axis=None normalizes over all
    elements (fg.nn.softmax's is -1); SciPy's nan for a slice with nan, +inf or only -inf.

    Example:
        >>> fg.scipy.special.softmax(np.array([0.0, 0.0, 1e4]))
        array([0., 0., 1.])
        >>> fg.scipy.special.softmax(np.zeros((2, 2)))          # axis=None: over all elements
        array([[0.25, 0.25],
               [0.25, 0.25]])
    """
    x, = _inexact("special.softmax", x)
    e = fnp.exp(x - _max_shift(fnp.asarray(x), axis, finite=False))
    return e / fnp.sum(e, axis=axis, keepdims=True)


def log_softmax(x: ArrayLike, axis: _Axis = None) -> Array:
    """`x - logsumexp(x, axis)`, stable; SciPy's default axis=None (and its nan for a
    slice with nan, or only -inf).

    Example:
        >>> fg.scipy.special.log_softmax(np.array([0.0, 0.0]))   # [-log 2, -log 2]
        array([-0.69314718, -0.69314718])
        >>> fg.grad(lambda x: fg.scipy.special.log_softmax(x)[0])(np.array([0.0, 0.0]))
        array([ 0.5, -0.5])
    """
    x, = _inexact("special.log_softmax", x)
    shifted = x - _max_shift(fnp.asarray(x), axis, finite=True)
    return shifted - fnp.log(fnp.sum(fnp.exp(shifted), axis=axis, keepdims=True))
