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

from ..backend import array_module, scipy_module
from ..core.ir import PY_SCALARS, aval_of
from .elementwise import (abs, add, div, elementwise_primitive, eq, exp, gt, log, log1p, lt,
                          mul, neg, select, sign, sub)

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


def _scipy_impl(name: str):
    """The impl of a primitive computed by `scipy.special.<name>` (`cupyx.scipy.special`'s
    kernel on CuPy operands), in its operands' dtype."""
    def impl(*args):
        dtype = _float_dtype(args)
        xp = array_module(*args)
        if xp is np:
            kernel = getattr(scipy_special(), name)
        else:
            # NumPy arrays and Python scalars join the CuPy operands as CuPy arrays (CuPy's
            # kernels reject NumPy arrays; cupyx's polygamma broadcasts its order as one)
            kernel = getattr(scipy_module("special", *args), name)
            args = [xp.asarray(a, dtype if type(a) in PY_SCALARS else None) for a in args]
        if dtype is not None and (dtype == np.float16 or dtype.kind == "V"):
            # SciPy has no float16 loops and knows no ml_dtypes floats: compute in float32
            args = [a.astype(np.float32) if getattr(a, "dtype", None) == dtype else a
                    for a in args]
        with np.errstate(all="ignore"):  # poles and domain edges give inf/nan, as SciPy's
            out = kernel(*args)
        return out if dtype is None or out.dtype == dtype else out.astype(dtype)
    impl.__name__ = f"scipy_{name}"
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


def _special(name, derivatives):
    p = elementwise_primitive(name, _scipy_impl(name), derivatives)
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
