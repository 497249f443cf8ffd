"""SciPy's special functions as elementwise primitives (fungrad.scipy.special binds them).

Values come from `scipy.special`, imported on first use (`import fungrad` needs only NumPy);
every derivative is written with other primitives of this table (digamma' = polygamma(1),
polygamma(n)' = polygamma(n + 1), ...), so higher orders, vmap and jit come from the
elementwise factory. Operands have equal shapes and dtypes (fungrad.scipy.special promotes
and broadcasts first); a result keeps its operands' float dtype (SciPy computes float16 and
bfloat16 in float32, and some functions only in float64: the impl casts back).

A derivative SciPy's toolbox cannot give in closed form (zeta in its exponent, the
incomplete gamma and beta functions in their shape parameters) raises NotImplementedError
when a tangent reaches it, so it is never silently zero.
"""
from __future__ import annotations

import math

import numpy as np

from ..backend import array_module, on_host, scipy_module
from ..core.ir import PY_SCALARS, aval_of
from .elementwise import (abs, add, cos, div, elementwise_primitive, eq, erf, exp, gt, log,
                          log1p, lt, maximum, mul, neg, pow, select, sign, sin, sqrt, sub)

_SQRT_PI = math.sqrt(math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)


def scipy_special():
    """The `scipy.special` module, imported on first use, with an error naming the extra."""
    try:
        import scipy.special
    except ImportError as e:  # pragma: no cover (the test extra installs SciPy)
        raise ImportError("fungrad.scipy computes special functions with SciPy, which is not "
                          "installed: pip install 'fungrad[scipy]' (or pip install scipy)") from e
    return scipy.special


def _float_dtype(args):
    for a in args:
        dt = getattr(a, "dtype", None)
        if dt is not None and type(a) not in PY_SCALARS:
            return dt
    return None


def _scipy_impl(name: str, output: int | None = None):
    """The impl of a primitive computed by `scipy.special.<name>` (`cupyx.scipy.special`'s
    kernel on CuPy operands), in its operands' dtype; `output` picks one of the outputs of
    a function with several (fresnel's S and C)."""
    def impl(*args):
        dtype = _float_dtype(args)
        xp = array_module(*args)
        if xp is np:
            kernel = getattr(scipy_special(), name)
        else:
            kernel = getattr(scipy_module("special", *args), name, None)
            if kernel is None:  # cupyx.scipy.special lacks it (dawsn, hyp2f1, wofz, ...):
                return on_host(impl)(*args)  # SciPy on host copies (correct, not fast)
            # NumPy arrays and Python scalars join the CuPy operands as CuPy arrays (CuPy's
            # kernels reject NumPy arrays; cupyx's polygamma broadcasts its order as one)
            args = [xp.asarray(a, dtype if type(a) in PY_SCALARS else None) for a in args]
        if dtype is not None and (dtype == np.float16 or dtype.kind == "V"):
            # SciPy has no float16 loops and knows no ml_dtypes floats: compute in float32
            args = [a.astype(np.float32) if getattr(a, "dtype", None) == dtype else a
                    for a in args]
        with np.errstate(all="ignore"):  # poles and domain edges give inf/nan, as SciPy's
            out = kernel(*args)
        if output is not None:
            out = out[output]
        return out if dtype is None or out.dtype == dtype else out.astype(dtype)
    impl.__name__ = f"scipy_{name}" + ("" if output is None else f"_{output}")
    return impl


def _no_derivative(fname: str, operand: str, differentiable: str, call: str):
    """The coefficient of an operand without a closed-form derivative: raises (never a
    silent zero), naming the operand and the one `fname` IS differentiable in."""
    def coefficient(*args):
        raise NotImplementedError(
            f"scipy.special.{fname}: the derivative with respect to `{operand}` is not "
            f"implemented (SciPy has no closed form for it); {fname} is differentiable in "
            f"`{differentiable}` only: close over `{operand}` as a constant, e.g. "
            f"fg.grad(lambda {differentiable}: fg.scipy.special.{fname}({call}))")
    return coefficient


def _plus_one(n):
    # polygamma(1.0, x) binds a weak Python order: keep it Python (never bind on weak only)
    return n + 1.0 if type(n) in PY_SCALARS else add(n, 1.0)


def _minus_one(a):
    return a - 1.0 if type(a) in PY_SCALARS else sub(a, 1.0)


# below this |x| a removable singularity's slope is its Maclaurin series: the terms left
# out are O(x^4) ~ 1e-16 relative, and the general formula's own derivatives cancel there
_SERIES_RADIUS = 1e-4


def _near_zero(x, series, value):
    """`series(x)` where |x| < _SERIES_RADIUS, else `value(safe_x)` (x replaced by 1 inside
    the radius: no 0/0 on the untaken side, whose derivative would be NaN)."""
    inside = lt(abs(x), _SERIES_RADIUS)
    return select(inside, series(x), value(select(inside, 1.0, x)))


def _log_ndtr_slope(x):
    # past the edge erfcx(-x/sqrt 2) ~ 2 exp(x^2/2) overflows and the slope is ~ pdf(x), below
    # the smallest normal: 0, and erfcx is read at a safe point (its own slope would be inf,
    # and inf times the untaken branch's zero cotangent is NaN)
    beyond = gt(x, _erfcx_overflow_edge(aval_of(x).dtype))
    e = erfcx(mul(select(beyond, 0.0, x), -1.0 / math.sqrt(2.0)))
    return select(beyond, 0.0, div(math.sqrt(2.0 / math.pi), e))


def _erfcx_overflow_edge(dtype) -> float:
    """The x above which 2 exp(x^2 / 2) overflows `dtype` (with a factor e to spare)."""
    try:
        big = np.finfo(dtype).max
    except ValueError:  # (an ml_dtypes float: bfloat16)
        import ml_dtypes
        big = ml_dtypes.finfo(dtype).max
    return math.sqrt(2.0 * (math.log(float(big)) - 1.0))


def _i1e_slope_series(x):
    a, x2 = abs(x), mul(x, x)
    return add(sub(0.5, a), mul(x2, sub(15.0 / 16.0, mul(a, 7.0 / 12.0))))


def _integer_order(*args):
    # polygamma is defined at integer orders only (SciPy's value elsewhere is nan): a tangent
    # in n has no derivative to meet (it was silently 0; JAX rejects a float n)
    raise NotImplementedError(
        "scipy.special.polygamma: the order `n` is an integer and has no derivative; "
        "polygamma is differentiable in `x` only: close over `n` as a constant, e.g. "
        "fg.grad(lambda x: fg.scipy.special.polygamma(2, x))")


def _special(name, derivatives, scipy_name=None, output=None):
    p = elementwise_primitive(name, _scipy_impl(scipy_name or name, output), derivatives)
    SPECIAL_PRIMITIVES.append(p)
    return p, p.bind


SPECIAL_PRIMITIVES: list = []

# name (scipy.special's), d(out)/d(operand) per operand as f(*operands, out)
gammaln_p, gammaln = _special("gammaln", [lambda x, y: digamma(x)])
digamma_p, digamma = _special("digamma", [lambda x, y: polygamma(1.0, x)])
polygamma_p, polygamma = _special("polygamma", [
    _integer_order, lambda n, x, y: polygamma(_plus_one(n), x)])
gamma_p, gamma = _special("gamma", [lambda x, y: mul(y, digamma(x))])
erfc_p, erfc = _special("erfc", [lambda x, y: mul(exp(neg(mul(x, x))), -2.0 / _SQRT_PI)])
erfinv_p, erfinv = _special("erfinv", [lambda x, y: mul(exp(mul(y, y)), _SQRT_PI / 2.0)])
# above this x, erfcx' = 2x erfcx(x) - 2/sqrt(pi) cancels (its two terms agree to ~1/x^2
# relative: the slope was off by 1.6e-6 relative at x = 1e5 and 0 at 1e8, the second
# derivative 1.8e-11 for 1.1e-15 at 1e5, and log_ndtr'' inherits it for very negative x);
# the asymptotic series there, -(1/sqrt(pi)) sum_n c_n / x^(2n+2) with
# c_n = (-1)^n (2n-1)!! (2n+1) / 2^n, to n = 12 (the first term left out is 3e-16 relative
# at x = 10, where the cancellation is ~1e-14)
_ERFCX_SERIES_EDGE = 10.0
_ERFCX_SLOPE_SERIES = [(-1.0) ** n * math.prod(range(1, 2 * n, 2)) * (2 * n + 1) / 2.0 ** n
                       for n in range(13)]


def _erfcx_slope(x, y):
    far = gt(x, _ERFCX_SERIES_EDGE)
    u = div(1.0, mul(select(far, x, _ERFCX_SERIES_EDGE), select(far, x, _ERFCX_SERIES_EDGE)))
    total = _ERFCX_SLOPE_SERIES[-1]
    for c in reversed(_ERFCX_SLOPE_SERIES[:-1]):
        total = add(mul(total, u), c)
    series = mul(mul(u, total), -1.0 / _SQRT_PI)
    return select(far, series, sub(mul(mul(x, y), 2.0), 2.0 / _SQRT_PI))


erfcx_p, erfcx = _special("erfcx", [_erfcx_slope])
ndtr_p, ndtr = _special("ndtr", [lambda x, y: mul(exp(mul(mul(x, x), -0.5)), 1.0 / _SQRT_2PI)])
# pdf / cdf = sqrt(2/pi) / erfcx(-x/sqrt 2) (ndtr(x) = erfcx(-x/sqrt 2) exp(-x^2/2) / 2):
# no exp(-x^2/2 - log_ndtr(x)), whose two ~x^2/2 terms cancel (in float32 at x = -1e4 the
# slope came out 64930, not 1e4); 0 where erfcx overflows (x -> +inf)
log_ndtr_p, log_ndtr = _special("log_ndtr", [lambda x, y: _log_ndtr_slope(x)])
ndtri_p, ndtri = _special("ndtri", [lambda p, y: mul(exp(mul(mul(y, y), 0.5)), _SQRT_2PI)])
i0_p, i0 = _special("i0", [lambda x, y: i1(x)])
# i1' = i0 - i1/x, and its Maclaurin series 1/2 + 3x^2/16 + 5x^4/384 near 0: the
# derivative of i1/x is i1'/x - i1/x^2, two terms ~ 1/(2x) that cancel (i1''(1e-20) came
# out 24576, not 3x/8)
i1_p, i1 = _special("i1", [
    lambda x, y: _near_zero(x, lambda x: add(0.5, mul(mul(x, x), add(3.0 / 16.0, mul(
        mul(x, x), 5.0 / 384.0)))), lambda s: sub(i0(s), div(i1(s), s)))])
i0e_p, i0e = _special("i0e", [lambda x, y: sub(i1e(x), mul(sign(x), y))])
# i1e' = i0e - i1e (1/x + sign x), near 0 its series 1/2 - |x| + 15x^2/16 - 7x^2|x|/12
i1e_p, i1e = _special("i1e", [
    lambda x, y: _near_zero(x, _i1e_slope_series,
                            lambda s: sub(i0e(s), mul(i1e(s), add(div(1.0, s), sign(s)))))])
zeta_p, zeta = _special("zeta", [
    _no_derivative("zeta", "x", "q", "2.0, q"), lambda x, q, y: mul(neg(x), zeta(add(x, 1.0), q))])


def _gamma_density(a, x):
    """x^(a-1) e^-x / Gamma(a): d gammainc(a, x) / dx. x^0 is 1 also at x = 0 (a == 1, the
    exponential distribution): log x is read at 1 there, not as 0 * log 0 = NaN."""
    a_minus_one = _minus_one(a)
    # (a negative x keeps its nan log: gammainc is nan there, and its slope was e^-x)
    safe = select(eq(a_minus_one, 0.0), select(lt(x, 0.0), x, 1.0), x)
    log_power = mul(a_minus_one, log(safe))
    return exp(sub(sub(log_power, x), gammaln(a)))


def _power_log(exponent, operand, log_fn, pole):
    """exponent * log_fn(operand), 0 where the exponent is 0 and operand is log_fn's pole
    (log_fn read at 1/2 there, not 0 * -inf = nan: the uniform density's 1 at x = 0 and 1
    was nan); a nan log_fn elsewhere (x outside [0, 1], betainc's nan) stays nan."""
    at_pole = select(eq(exponent, 0.0), eq(operand, pole), False)
    return mul(exponent, log_fn(select(at_pole, 0.5, operand)))


def _beta_density(a, b, x):
    """x^(a-1) (1-x)^(b-1) / B(a, b): d betainc(a, b, x) / dx."""
    return exp(sub(add(_power_log(_minus_one(a), x, log, 0.0),
                       _power_log(_minus_one(b), neg(x), log1p, -1.0)), betaln(a, b)))


gammainc_p, gammainc = _special("gammainc", [
    _no_derivative("gammainc", "a", "x", "a, x"), lambda a, x, y: _gamma_density(a, x)])
gammaincc_p, gammaincc = _special("gammaincc", [
    _no_derivative("gammaincc", "a", "x", "a, x"), lambda a, x, y: neg(_gamma_density(a, x))])
betaln_p, betaln = _special("betaln", [
    lambda a, b, y: sub(digamma(a), digamma(add(a, b))),
    lambda a, b, y: sub(digamma(b), digamma(add(a, b)))])
beta_p, beta = _special("beta", [
    lambda a, b, y: mul(y, sub(digamma(a), digamma(add(a, b)))),
    lambda a, b, y: mul(y, sub(digamma(b), digamma(add(a, b))))])
# d betainc(a, b, x) / dx = x^(a-1) (1-x)^(b-1) / B(a, b)
betainc_p, betainc = _special("betainc", [
    _no_derivative("betainc", "a", "x", "a, b, x"), _no_derivative("betainc", "b", "x", "a, b, x"),
    lambda a, b, x, y: _beta_density(a, b, x)])


# ----------------------------------------------------------------------------- more of SciPy's
# (jax.scipy.special's functions fungrad lacked: values from scipy.special, derivatives in
# closed form written with primitives so they differentiate again)
def _integer_argument(fname: str, operand: str, differentiable: str, call: str):
    """The coefficient of an integer operand (an order, an index): it has no derivative, and
    a tangent reaching it raises (as polygamma's order), never a silent zero."""
    def coefficient(*args):
        raise NotImplementedError(
            f"scipy.special.{fname}: `{operand}` is an integer and has no derivative; "
            f"{fname} is differentiable in `{differentiable}` only: close over `{operand}` "
            f"as a constant, e.g. fg.grad(lambda {differentiable}: {call})")
    return coefficient


def _series_near(x, center, radius, series, value, safe):
    """`series(x - center)` where |x - center| < radius, else `value(x)` with x replaced by
    `safe` inside the radius (no 0/0 on the untaken side, whose derivative would be NaN)."""
    inside = lt(abs(sub(x, center)), radius)
    return select(inside, series(sub(x, center)), value(select(inside, safe, x)))


def _poly(u, coefficients):
    """sum_i coefficients[i] u^i (Horner)."""
    total = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        total = add(mul(total, u), c)
    return total


loggamma_p, loggamma = _special("loggamma", [lambda x, y: digamma(x)])
gammasgn_p, gammasgn = _special("gammasgn", [None])   # piecewise constant: slope 0
# poch(z, m) = Gamma(z + m) / Gamma(z)
poch_p, poch = _special("poch", [
    lambda z, m, y: mul(y, sub(digamma(add(z, m)), digamma(z))),
    lambda z, m, y: mul(y, digamma(add(z, m)))])
# binom(n, k) = Gamma(n + 1) / (Gamma(k + 1) Gamma(n - k + 1)) (comb's values)
binom_p, binom = _special("binom", [
    lambda n, k, y: mul(y, sub(digamma(add(n, 1.0)), digamma(add(sub(n, k), 1.0)))),
    lambda n, k, y: mul(y, sub(digamma(add(sub(n, k), 1.0)), digamma(add(k, 1.0))))])


def _boxcox_lmbda_slope(logx, lmbda, y):
    """d/d lmbda of (x^lmbda - 1) / lmbda with log x = `logx`: (x^lmbda log x - y) / lmbda,
    near lmbda = 0 its series L^2/2 + lmbda L^3/6 + lmbda^2 L^4/24 (the quotient cancels)."""
    def series(lam):
        return _poly(lam, [mul(mul(logx, logx), 0.5), mul(mul(mul(logx, logx), logx), 1.0 / 6.0),
                           mul(mul(mul(logx, logx), mul(logx, logx)), 1.0 / 24.0)])

    def general(lam):
        return div(sub(mul(exp(mul(lam, logx)), logx), y), lam)
    return _series_near(lmbda, 0.0, _SERIES_RADIUS, series, general, 1.0)


boxcox_p, boxcox = _special("boxcox", [
    lambda x, lmbda, y: pow(x, sub(lmbda, 1.0)),
    lambda x, lmbda, y: _boxcox_lmbda_slope(log(x), lmbda, y)])
boxcox1p_p, boxcox1p = _special("boxcox1p", [
    lambda x, lmbda, y: exp(mul(sub(lmbda, 1.0), log1p(x))),
    lambda x, lmbda, y: _boxcox_lmbda_slope(log1p(x), lmbda, y)])

# dawsn' = 1 - 2x dawsn(x); for |x| > 10 (where the two terms cancel) the asymptotic series
# -sum_{n>=1} (2n-1)!! / (2x^2)^n, to n = 12 (the first term left out is ~1e-16 relative)
_DAWSN_SERIES_EDGE = 10.0
_DAWSN_SLOPE_SERIES = [0.0] + [-math.prod(range(1, 2 * n, 2)) / 2.0 ** n for n in range(1, 13)]


def _dawsn_slope(x, y):
    far = gt(abs(x), _DAWSN_SERIES_EDGE)
    safe = select(far, x, _DAWSN_SERIES_EDGE)
    series = _poly(div(1.0, mul(safe, safe)), _DAWSN_SLOPE_SERIES)
    return select(far, series, sub(1.0, mul(mul(x, y), 2.0)))


dawsn_p, dawsn = _special("dawsn", [_dawsn_slope])
exp1_p, exp1 = _special("exp1", [lambda x, y: neg(div(exp(neg(x)), x))])
expi_p, expi = _special("expi", [lambda x, y: div(exp(x), x)])


def _expn_slope(n, x, y):
    # E_n' = -E_{n-1} (n >= 1); E_0 = e^-x / x has slope -e^-x (x + 1) / x^2 (SciPy's E_-1 is
    # nan); the untaken side reads a safe order (no nan in a second derivative)
    zero = eq(n, 0.0)
    e0 = neg(div(mul(exp(neg(x)), add(x, 1.0)), mul(x, x)))
    return select(zero, e0, neg(expn(select(zero, 1.0, sub(n, 1.0)), x)))


expn_p, expn = _special("expn", [
    _integer_argument("expn", "n", "x", "fg.scipy.special.expn(2, x)"), _expn_slope])
fresnel_s_p, fresnel_s = _special("fresnel_s", [
    lambda x, y: sin(mul(mul(x, x), math.pi / 2.0))], "fresnel", 0)
fresnel_c_p, fresnel_c = _special("fresnel_c", [
    lambda x, y: cos(mul(mul(x, x), math.pi / 2.0))], "fresnel", 1)
# Si' = sin x / x (its series 1 - x^2/6 + x^4/120 near 0); Ci' = cos x / x (SciPy's Ci(x)
# for x < 0 is Ci(|x|), whose slope is the same cos x / x)
sici_si_p, sici_si = _special("sici_si", [
    lambda x, y: _near_zero(x, lambda x: _poly(mul(x, x), [1.0, -1.0 / 6.0, 1.0 / 120.0]),
                            lambda s: div(sin(s), s))], "sici", 0)
sici_ci_p, sici_ci = _special("sici_ci", [lambda x, y: div(cos(x), x)], "sici", 1)
# spence(z) = int_1^z log t / (1 - t) dt: slope log z / (1 - z), near z = 1 its series
# -(1 - u/2 + u^2/3 - u^3/4) in u = z - 1
spence_p, spence = _special("spence", [
    lambda z, y: _series_near(z, 1.0, _SERIES_RADIUS,
                              lambda u: neg(_poly(u, [1.0, -0.5, 1.0 / 3.0, -0.25])),
                              lambda s: div(log(s), sub(1.0, s)), 2.0)])
# Owen's T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1 + t^2) / 2) / (1 + t^2) dt
owens_t_p, owens_t = _special("owens_t", [
    lambda h, a, y: mul(mul(exp(mul(mul(h, h), -0.5)), erf(mul(mul(a, h), 1.0 / math.sqrt(2.0)))),
                        -0.5 / _SQRT_2PI),
    lambda h, a, y: div(exp(mul(mul(mul(h, h), add(1.0, mul(a, a))), -0.5)),
                        mul(add(1.0, mul(a, a)), 2.0 * math.pi))])
hyp1f1_p, hyp1f1 = _special("hyp1f1", [
    _no_derivative("hyp1f1", "a", "x", "1.0, 2.0, x"),
    _no_derivative("hyp1f1", "b", "x", "1.0, 2.0, x"),
    lambda a, b, x, y: mul(div(a, b), hyp1f1(add(a, 1.0), add(b, 1.0), x))])
hyp2f1_p, hyp2f1 = _special("hyp2f1", [
    _no_derivative("hyp2f1", "a", "x", "1.0, 1.0, 2.0, x"),
    _no_derivative("hyp2f1", "b", "x", "1.0, 1.0, 2.0, x"),
    _no_derivative("hyp2f1", "c", "x", "1.0, 1.0, 2.0, x"),
    lambda a, b, c, x, y: mul(div(mul(a, b), c),
                              hyp2f1(add(a, 1.0), add(b, 1.0), add(c, 1.0), x))])
# J_v'(z) = (J_{v-1}(z) - J_{v+1}(z)) / 2 (bessel_jn's orders)
jv_p, jv = _special("jv", [
    _integer_argument("bessel_jn", "v", "z", "fg.scipy.special.bessel_jn(z, v=2)"),
    lambda v, z, y: mul(sub(jv(sub(v, 1.0), z), jv(add(v, 1.0), z)), 0.5)])
# the Faddeeva function w(z) = exp(-z^2) erfc(-iz), holomorphic: w' = -2 z w + 2i / sqrt(pi)
wofz_p, wofz = _special("wofz", [
    lambda z, y: add(mul(mul(z, y), -2.0), 2j / _SQRT_PI)])


# Y_n^m(theta, phi) (SciPy's sph_harm_y: theta polar, phi azimuthal), as its real and imaginary
# parts (elementwise primitives keep their operands' real dtype; fg.scipy.special joins
# them). dY/dphi = i m Y; dY/dtheta = m cot(theta) Y + sqrt((n-m)(n+m+1)) e^{-i phi} Y_n^{m+1}
def _sph_harm_impl(part: int):
    def impl(n, m, theta, phi):
        dtype = _float_dtype((theta, phi))
        xp = array_module(n, m, theta, phi)
        sp = scipy_special() if xp is np else scipy_module("special", n, m, theta, phi)
        if not hasattr(sp, "sph_harm_y"):  # (cupyx may lack it: SciPy on host copies)
            return on_host(impl)(n, m, theta, phi)
        if xp is not np:  # (NumPy operands join the CuPy ones: CuPy refuses a mix)
            n, m, theta, phi = (xp.asarray(a) for a in (n, m, theta, phi))
        t, p = theta, phi
        if dtype is not None and (dtype == np.float16 or dtype.kind == "V"):
            t, p = theta.astype(np.float32), phi.astype(np.float32)
        with np.errstate(all="ignore"):
            nan = xp.isnan(n) | xp.isnan(m)
            out = sp.sph_harm_y(xp.where(nan, 0, n).astype(np.int64),
                                xp.where(nan, 0, m).astype(np.int64), t, p)
            out = xp.where(nan, np.nan, out.imag if part else out.real)
        return out if dtype is None or out.dtype == dtype else out.astype(dtype)
    impl.__name__ = f"scipy_sph_harm_y_{'imag' if part else 'real'}"
    return impl


def _sph_theta(part):
    def slope(n, m, theta, phi, y):
        re, im = sph_harm_y_real(n, m, theta, phi), sph_harm_y_imag(n, m, theta, phi)
        m1 = add(m, 1.0)
        a, b = sph_harm_y_real(n, m1, theta, phi), sph_harm_y_imag(n, m1, theta, phi)
        # (clamped at 0: for m = n the raised Y_n^{n+1} is 0, and its own slope reads
        # sqrt((n-m-1)(n+m+2)) < 0: nan times 0 was nan in the second derivative)
        s = sqrt(maximum(mul(sub(n, m), add(add(n, m), 1.0)), 0.0))
        c, sn = cos(phi), sin(phi)
        raised = (add(mul(a, c), mul(b, sn)) if part == 0 else sub(mul(b, c), mul(a, sn)))
        return add(mul(div(mul(m, cos(theta)), sin(theta)), re if part == 0 else im),
                   mul(s, raised))
    return slope


def _sph_p(part):
    name = "sph_harm_y_" + ("imag" if part else "real")
    p = elementwise_primitive(name, _sph_harm_impl(part), [
        _integer_argument("sph_harm_y", "n", "theta", "fg.scipy.special.sph_harm_y(2, 1, "
                                                      "theta, 0.5)"),
        _integer_argument("sph_harm_y", "m", "theta", "fg.scipy.special.sph_harm_y(2, 1, "
                                                      "theta, 0.5)"),
        _sph_theta(part),
        (lambda n, m, t, p, y: neg(mul(m, sph_harm_y_imag(n, m, t, p)))) if part == 0 else
        (lambda n, m, t, p, y: mul(m, sph_harm_y_real(n, m, t, p)))])
    SPECIAL_PRIMITIVES.append(p)
    return p, p.bind


sph_harm_y_real_p, sph_harm_y_real = _sph_p(0)
sph_harm_y_imag_p, sph_harm_y_imag = _sph_p(1)
