"""More of NumPy's elementwise functions, composed of fnp functions and lax primitives.

Each calls NumPy on plain arrays (the fast path). On traced values it casts to the dtype
NumPy computes in (asked of NumPy on 0-d dummies, cached, so a NumPy TypeError, e.g. for
complex operands NumPy rejects, is raised here too) and composes differentiable pieces:
derivatives follow JAX at kinks (heaviside and the predicates have zero slopes,
nan_to_num passes the derivative where the value is kept).
"""
from __future__ import annotations

import math

import numpy as np

from ..backend import array_module, call_on_one_device
from ..core import dtypes as _dtypes
from ..core.trace import Tracer
from ..lax import elementwise as E
from ._base import WEAK_KIND_TYPE, COMPOSE, broadcast_shapes, cast, dtype_of, is_traced, is_weak, lift, \
    numpy_or_compose, result_type, shape_of, single_axis, traced_or_narrow
from ._dtypes import finfo as _finfo
from ._elementwise import (_compute_dtype, mixed_integer_dtype, add, arctan2, clip, copysign,
                           divide, equal, exp2, floor_divide, greater, isfinite, isinf, isnan, less_equal, logical_and,
                           logical_not, logical_or, multiply, negative, not_equal, power,
                           remainder, signbit, sin, subtract, trunc, where)
from ._elementwise import abs as _abs, imag as _imag, real as _real
from ._elementwise import doc_example

_DEG = 180.0 / math.pi  # (angle(deg=True) multiplies in its own dtype, as NumPy)


def _in_numpy_dtype(np_fn, x, nargs=1):
    """`x` cast to the dtype NumPy's `np_fn` computes in for it (raises NumPy's TypeError)."""
    dt = dtype_of(x)
    return cast(x, _compute_dtype(np_fn, dt, nargs))


def _weak_one(x):
    """1 as the Python scalar type of a weak operand (a Python scalar, or one passed to a
    jitted function), which NumPy's loop choice reads as such; None for arrays."""
    if is_weak(x):
        return type(x)(1)
    if isinstance(x, Tracer) and x.aval.weak_type:
        return WEAK_KIND_TYPE[x.aval.dtype.kind](1)
    return None


def _binary_in_numpy_dtype(np_fn, x, y):
    """Both operands cast to NumPy's computing dtype for the pair (NEP 50 promotion first);
    a Python scalar becomes a 0-d array of it (so where/select keep that dtype)."""
    dt = _compute_dtype(np_fn, np.dtype(result_type(x, y)), 2)
    if _weak_one(x) is None and _weak_one(y) is None:
        dt = mixed_integer_dtype(np_fn, dtype_of(x), dtype_of(y)) or dt
    return tuple(np.asarray(v, dt) if is_weak(v) else cast(v, dt) for v in (x, y))


def _reject_complex(fname, x):
    if _dtypes.kind(dtype_of(x)) == "c":
        raise TypeError(f"{fname} is not supported for complex values ({dtype_of(x)}), as in "
                        "NumPy; apply it to fnp.real(z) / fnp.imag(z) or fnp.abs(z)")


# --------------------------------------------------------------------------- angles
def angle(z, deg: bool = False):
    """`numpy.angle`: the argument of complex `z` (0 or pi for real `z`), radians or degrees.

    Example:
        >>> fnp.angle(np.array([1.0, 1j, -1.0]))
        array([0.        , 1.57079633, 3.14159265])
        >>> fnp.angle(np.array([1.0, 1j, -1.0]), deg=True)
        array([  0.,  90., 180.])
        >>> fg.grad(lambda x: fnp.angle(1.0 + 1j * x))(1.0)
        array(0.5)
    """
    z = lift(z)
    if not is_traced(z):
        return np.angle(z, deg)
    if _dtypes.kind(dtype_of(z)) == "c":
        a = arctan2(_imag(z), _real(z))
    else:
        a = arctan2(0, z)
    return multiply(a, _DEG) if deg else a


def deg2rad(x):
    """`numpy.deg2rad` (= `radians`): x * pi / 180.

    Example:
        >>> fnp.deg2rad(np.array([180.0, 90.0]))
        array([3.14159265, 1.57079633])
        >>> fg.grad(fnp.deg2rad)(1.0)
        array(0.01745329)
    """
    x = lift(x)
    if not is_traced(x):
        return np.deg2rad(x)
    return _scaled(np.deg2rad, _in_numpy_dtype(np.deg2rad, x))


def rad2deg(x):
    """`numpy.rad2deg` (= `degrees`): x * 180 / pi.

    Example:
        >>> fnp.rad2deg(np.array([np.pi, np.pi / 2]))
        array([180.,  90.])
        >>> fg.grad(fnp.rad2deg)(1.0)
        array(57.29577951)
    """
    x = lift(x)
    if not is_traced(x):
        return np.rad2deg(x)
    return _scaled(np.rad2deg, _in_numpy_dtype(np.rad2deg, x))


def _scaled(np_fn, x):
    """`x` times the constant of NumPy's scaling ufunc `np_fn`. Half-precision floats are
    scaled in float32 and rounded once, as NumPy's float16 (and ml_dtypes' bfloat16) loops
    do: a product of two float16 roundings differs in the last bit for some inputs."""
    dt = dtype_of(x)
    if dt.itemsize == 2 and (dt.kind == "f" or _dtypes.is_inexact(dt)):
        wide = cast(x, np.float32)
        return cast(multiply(wide, _numpy_factor(np_fn, np.dtype(np.float32))), dt)
    return multiply(x, _numpy_factor(np_fn, dt))


def _numpy_factor(np_fn, dt) -> float:
    """NumPy's own constant of a scaling ufunc in `dt` (its float32 loop uses 180f / pi_f,
    not float32(180 / pi)), as a weak Python float that casts back to it exactly."""
    return float(np_fn(np.ones((), dt)))


radians = deg2rad
degrees = rad2deg


def sinc(x):
    """`numpy.sinc`: sin(pi x) / (pi x), 1 at 0 (NumPy's formula, slope 0 at 0).

    Example:
        >>> fnp.round(fnp.sinc(np.array([0.0, 0.5, 1.0])), 6)
        array([1.     , 0.63662, 0.     ])
        >>> fg.grad(fnp.sinc)(0.0)
        array(0.)
        >>> fg.grad(fnp.sinc)(1.0)
        array(-1.)
    """
    x = lift(x)
    if not traced_or_narrow(x):
        return np.sinc(x)
    x = multiply(math.pi, _in_numpy_dtype(np.sinc, x))
    # where |pi x| <= 2^-27 (0 in float16), sin(pi x) / (pi x) is 1 in every float dtype
    # (NumPy's value, also at 0), and so is the Maclaurin series 1 - y^2/6 + y^4/120 - ... at
    # y = pi x; the series gives the derivatives there (sinc''(0) = -pi^2/3, as JAX's; 0 / 0
    # at 5e-324 otherwise). Complex x: at 0 only (NumPy's value at tiny z is not 1).
    small = equal(x, 0) if dtype_of(x).kind == "c" else _abs(x) <= 2.0 ** -27
    # Beyond that the quotient has NumPy's value but not its derivatives: (y cos y - sin y) /
    # y^2 cancels, so sinc'' was 0 at z = 1e-9 + 1e-9j (it is -pi^2/3) and 9% off at x = 1e-8.
    # Where |y| <= 0.1 (0.5 below float64: the cancellation costs eps / y^4 in sinc'') the
    # series (remainder y^10 / 11!: < 1e-18, < 3e-11) gives the derivatives and a
    # stop_gradient correction the quotient's value (series + (q - series) is q exactly:
    # q and the series agree to an ulp, so their difference is exact).
    dt = dtype_of(x)
    wide = _abs(x) <= (0.1 if dt.itemsize // (2 if dt.kind == "c" else 1) >= 8 else 0.5)
    y = where(small, 1.0, x)
    s = where(wide, x, 0.0)
    s2 = multiply(s, s)
    series = add(1.0, multiply(s2, add(-1 / 6, multiply(s2, add(1 / 120, multiply(
        s2, add(-1 / 5040, multiply(s2, 1 / 362880))))))))
    value = where(small, series, divide(sin(y), y))
    from ..lax.misc import stop_gradient
    return where(wide, add(series, stop_gradient(subtract(value, series))), value)


def unwrap(p, discont=None, axis: int = -1, *, period=2 * math.pi):
    """`numpy.unwrap`: add multiples of `period` so consecutive differences along `axis` stay
    below `discont` (the corrections are piecewise constant: the derivative is p's).

    Example:
        >>> p = np.array([0.0, 350.0, 20.0, 40.0])
        >>> fnp.unwrap(p, period=360.0)
        array([  0., -10.,  20.,  40.])
        >>> fg.grad(lambda p: fnp.unwrap(p, period=360.0)[-1])(p)
        array([0., 0., 0., 1.])
    """
    p = lift(p)
    if not traced_or_narrow(p):
        return np.unwrap(p, discont, axis, period=period)
    from ._reductions import cumsum
    from ._statistics import diff
    from ._shape import concatenate
    nd = len(shape_of(p))
    if nd == 0:
        raise ValueError("unwrap: p must be at least one dimensional (differences are taken "
                         "along an axis)")
    ax = single_axis("unwrap", axis, nd)
    head = (slice(None),) * ax
    dd = diff(p, axis=ax)  # (NumPy's: of bools, not_equal)
    if discont is None:
        discont = period / 2
    dt = np.dtype(result_type(dd, period))
    if dt.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = add(remainder(subtract(dd, low), period), low)
    if ambiguous:
        ddmod = where(logical_and(equal(ddmod, low), dd > 0), high, ddmod)
    correction = where(_abs(dd) < discont, 0, subtract(ddmod, dd))
    up = cast(p, dt)
    # (NumPy assigns the corrected values into an array of dtype `dt`: integer sums cast
    # back from cumsum's wider dtype)
    return concatenate([up[head + (slice(0, 1),)], cast(
        add(up[head + (slice(1, None),)], cumsum(correction, axis=ax)), dt)], axis=ax)


# --------------------------------------------------------------------------- steps and values
def heaviside(x1, x2):
    """`numpy.heaviside`: 0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0 (slope 0 in x1;
    in x2, 1 where x1 == 0).

    Example:
        >>> fnp.heaviside(np.array([-1.0, 0.0, 2.0]), 0.5)
        array([0. , 0.5, 1. ])
        >>> fg.grad(fnp.heaviside, argnums=(0, 1))(0.0, 0.5)
        (array(0.), array(1.))
    """
    x1, x2 = lift(x1), lift(x2)
    if not is_traced(x1, x2):
        return np.heaviside(x1, x2)
    x1, x2 = _binary_in_numpy_dtype(np.heaviside, x1, x2)
    step = where(x1 < 0, 0.0, where(x1 > 0, 1.0, x2))
    return where(isnan(x1), x1, step)


def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """`numpy.nan_to_num`: NaN -> `nan`, +-inf -> `posinf` / `neginf` (the dtype's largest
    finite values by default), for the real and imaginary parts; the derivative passes
    where the value is finite. A traced `x` is never modified in place (`copy` is ignored).

    Example:
        >>> fnp.nan_to_num(np.array([np.nan, np.inf, 1.0]), posinf=9.0)
        array([0., 9., 1.])
        >>> fg.grad(lambda x: fnp.sum(fnp.nan_to_num(x)))(np.array([np.nan, 2.0]))
        array([0., 1.])
    """
    x = lift(x)
    if not is_traced(x):
        return np.nan_to_num(x, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    dt = dtype_of(x)
    kind = _dtypes.kind(dt)
    if kind not in "fc":
        return x
    if kind == "c":
        re, im = (_replace_non_finite(v, nan, posinf, neginf) for v in (_real(x), _imag(x)))
        return add(cast(re, dt), multiply(cast(im, dt), 1j))
    return _replace_non_finite(x, nan, posinf, neginf)


def _replace_non_finite(v, nan, posinf, neginf):
    info = _finfo(dtype_of(v))
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    dt = dtype_of(v)
    out = where(equal(v, np.inf), np.asarray(big, dt), v)
    out = where(equal(v, -np.inf), np.asarray(small, dt), out)
    return where(isnan(v), np.asarray(nan, dt), out)


def positive(x):
    """`numpy.positive`: +x (a copy on plain arrays; bool is rejected, as in NumPy).

    Example:
        >>> fnp.positive(np.array([-1.0, 2.0]))
        array([-1.,  2.])
        >>> fg.grad(fnp.positive)(3.0)
        array(1.)
    """
    x = lift(x)
    if not is_traced(x):
        return np.positive(x)
    if dtype_of(x) == np.bool_:
        raise TypeError("positive is not defined for bool arrays (NumPy has no such loop); "
                        "use x.astype(int)")
    return x


def float_power(x1, x2):
    """`numpy.float_power`: x1 ** x2 computed in float64 (complex128 for complex operands).

    Example:
        >>> fnp.float_power(np.array([2, 3]), 2)
        array([4., 9.])
        >>> fg.grad(fnp.float_power)(3.0, 2.0)
        array(6.)
    """
    x1, x2 = lift(x1), lift(x2)
    if not is_traced(x1, x2):
        return np.float_power(x1, x2)
    dt = _compute_dtype(np.float_power, np.dtype(result_type(x1, x2)), 2)
    return power(cast(x1, dt), cast(x2, dt))


def ldexp(x1, x2):
    """`numpy.ldexp`: x1 * 2 ** x2 for integer x2 (exact; slope 2 ** x2 in x1).

    Example:
        >>> fnp.ldexp(np.array([1.0, 0.75]), 3)
        array([8., 6.])
        >>> fg.grad(fnp.ldexp)(1.0, 3)
        array(8.)
    """
    x1, x2 = lift(x1), lift(x2)
    if not is_traced(x1, x2):
        return call_on_one_device(np.ldexp, x1, x2)
    d1 = np.dtype(type(x1)) if is_weak(x1) else dtype_of(x1)
    d2 = np.dtype(type(x2)) if is_weak(x2) else dtype_of(x2)
    if _dtypes.kind(d2) not in "iub":
        raise TypeError(f"ldexp: the exponent x2 must be an integer array, got {d2}; use "
                        "x1 * fnp.exp2(x2) for real exponents")
    # NumPy's loop for the pair; a Python int exponent (also a traced one) is weak
    probe1 = _weak_one(x1)
    probe1 = np.ones((), np.float16 if d1.kind == "V" else d1) if probe1 is None else probe1
    probe2 = _weak_one(x2)
    probe2 = np.ones((), d2) if probe2 is None else probe2
    dt = d1 if d1.kind == "V" else np.ldexp(probe1, probe2).dtype
    x1 = cast(x1, dt)
    # x1 * 2 ** x2 rounds twice, or overflows in 2 ** x2 where the result does not
    # (1e-30 * 2 ** 200 in float32): instead the mantissa m of x1 = m 2 ** k (exact) times
    # 2 ** (k + x2), one rounding as np.ldexp. Exponents past the range saturate alike.
    bound = 4 * (int(_finfo(dt).maxexp) + int(_finfo(dt).nmant) + 2)
    e = clip(cast(x2, np.int64), -bound, bound)
    special = logical_or(equal(x1, 0), logical_not(isfinite(x1)))
    m, k = frexp(x1)
    k = where(special, 0, add(cast(k, np.int64), e))  # (no 0 * inf there: no warning)
    # m in [0.5, 1): for k at the top of the range 2 ** k overflows where m 2 ** k does
    # not, so for k > 0 m is scaled by 4 first (exactly) and k lowered by 2 (also keeps
    # exp2 off 2 ** 127, which NumPy's float32 exp2 misses by an ulp)
    up = multiply(cast(greater(k, 0), np.int64), 2)
    scaled = multiply(multiply(m, exp2(cast(up, dt))), exp2(cast(subtract(k, up), dt)))
    # 0, inf and NaN (frexp's m is x1 itself): x1 times a finite power of 2 (no 0 * inf)
    finite_power = exp2(cast(clip(e, int(_finfo(dt).minexp) - int(_finfo(dt).nmant),
                                  int(_finfo(dt).maxexp) - 1), dt))
    # the slope in x1 is 2 ** x2 (finite_power) everywhere: the chain through frexp's
    # mantissa (slope 2 ** -k) times 2 ** k overflows for a subnormal x1 or an overflowing
    # result (inf, not 8, at ldexp(5e-324, 3)); `scaled - 0 * finite_power` keeps the value
    from ..lax.misc import stop_gradient
    scaled = subtract(stop_gradient(scaled),
                      multiply(subtract(stop_gradient(x1), x1), finite_power))
    return where(special, multiply(x1, finite_power), scaled)


def frexp(x):
    """`numpy.frexp`: (mantissa, exponent) with x = mantissa * 2 ** exponent, |mantissa| in
    [0.5, 1); the mantissa's slope is 2 ** -exponent, the exponent is an int32 array.

    Example:
        >>> fnp.frexp(np.array([8.0, 0.75]))
        (array([0.5 , 0.75]), array([4, 0], dtype=int32))
        >>> fg.grad(lambda x: fnp.frexp(x)[0])(8.0)
        array(0.0625)
    """
    x = lift(x)
    if not is_traced(x):
        return np.frexp(x)
    _reject_complex("frexp", x)
    dt = dtype_of(x)
    if _dtypes.kind(dt) != "f":
        dt = np.frexp(np.ones((), dt))[0].dtype
        x = cast(x, dt)
    e = E.frexp_exponent(x)
    # 2 ** -e in two factors: one power of 2 overflows for subnormal x
    k1 = floor_divide(negative(e), 2)
    k2 = subtract(negative(e), k1)
    return multiply(multiply(x, exp2(cast(k1, dt))), exp2(cast(k2, dt))), e


def modf(x):
    """`numpy.modf`: (fractional part, integral part), both with x's sign; the fraction has
    slope 1, the integral part 0.

    Example:
        >>> fnp.modf(np.array([2.5, -1.25]))
        (array([ 0.5 , -0.25]), array([ 2., -1.]))
        >>> fg.grad(lambda x: fnp.modf(x)[0])(2.5)
        array(1.)
    """
    x = lift(x)
    if not is_traced(x):
        return np.modf(x)
    _reject_complex("modf", x)
    x = _in_numpy_dtype(np.trunc, x) if _dtypes.kind(dtype_of(x)) == "f" else cast(
        x, np.modf(np.ones((), dtype_of(x)))[0].dtype)
    whole = trunc(x)
    frac = where(isinf(x), copysign(0.0, x), subtract(x, whole))
    return frac, whole


def sort_complex(a):
    """`numpy.sort_complex`: sorted along the last axis by real part, then imaginary part,
    as a complex array (the values' derivative is carried through the permutation).

    Example:
        >>> fnp.sort_complex(np.array([1 + 2j, 1 - 1j, 0.5 + 0j]))
        array([0.5+0.j, 1. -1.j, 1. +2.j])
        >>> fnp.sort_complex(np.array([3, 1, 2]))
        array([1.+0.j, 2.+0.j, 3.+0.j])
    """
    a = lift(a)
    if not is_traced(a):
        return np.sort_complex(a)
    from ._indexing import sort
    dt = np.sort_complex(np.ones(1, np.float16 if dtype_of(a).kind == "V" else dtype_of(a))).dtype
    return cast(sort(a, axis=-1), dt)


def real_if_close(a, tol=100):
    """`numpy.real_if_close`: the real part if every imaginary part is within `tol`
    (machine epsilons when tol > 1) of 0. The result's dtype depends on the values, so a
    traced `a` needs a concrete value (under grad and jvp); under jit and vmap it raises
    ConcretizationError: use fnp.real(a) there.

    Example:
        >>> fnp.real_if_close(np.array([1.0 + 1e-15j, 2.0]))
        array([1., 2.])
        >>> fnp.real_if_close(np.array([1.0 + 0.5j]))
        array([1.+0.5j])
    """
    a = lift(a)
    if not is_traced(a):
        return np.real_if_close(a, tol)
    dt = dtype_of(a)
    if dt.kind != "c":
        return a
    if tol > 1:
        tol = _finfo(dt).eps * tol
    value = a.to_concrete("fnp.real_if_close(a) (its dtype depends on the values; use "
                          "fnp.real(a))")
    return _real(a) if np.all(np.abs(np.imag(value)) < tol) else a


# --------------------------------------------------------------------------- predicates
def iscomplex(x):
    """`numpy.iscomplex`: where the imaginary part is nonzero (bool, no derivative).

    Example:
        >>> fnp.iscomplex(np.array([1 + 1j, 2 + 0j, 3.0]))
        array([ True, False, False])
    """
    x = lift(x)
    if not is_traced(x):
        return np.iscomplex(x)
    if dtype_of(x).kind == "c":
        return not_equal(_imag(x), 0)
    return array_module(x).zeros(shape_of(x), bool)


def isreal(x):
    """`numpy.isreal`: where the imaginary part is zero (bool, no derivative).

    Example:
        >>> fnp.isreal(np.array([1 + 1j, 2 + 0j, 3.0]))
        array([False,  True,  True])
    """
    x = lift(x)
    if not is_traced(x):
        return np.isreal(x)
    if dtype_of(x).kind == "c":
        return equal(_imag(x), 0)
    return array_module(x).ones(shape_of(x), bool)


def iscomplexobj(x) -> bool:
    """`numpy.iscomplexobj`: whether the dtype is complex (a Python bool, also when traced).

    Example:
        >>> fnp.iscomplexobj(np.array([2 + 0j])), fnp.iscomplexobj(np.array([2.0]))
        (True, False)
    """
    x = lift(x)
    if isinstance(x, Tracer):
        return x.aval.dtype.kind == "c"
    return np.iscomplexobj(x)


def isrealobj(x) -> bool:
    """`numpy.isrealobj`: whether the dtype is not complex (a Python bool).

    Example:
        >>> fnp.isrealobj(np.array([2 + 0j])), fnp.isrealobj(np.array([2.0]))
        (False, True)
    """
    return not iscomplexobj(x)


# The docstring example of each factory-made predicate (doc_example): doctest source lines
# alternating with their expected output, checked by tests/test_docstrings.py.
EXAMPLES = {
    "isposinf": ("fnp.isposinf(np.array([-np.inf, 0.0, np.inf]))", "array([False, False,  True])"),
    "isneginf": ("fnp.isneginf(np.array([-np.inf, 0.0, np.inf]))", "array([ True, False, False])"),
}



def _signed_inf(fname, np_fn, negative_side):
    def fn(x):
        x = lift(x)
        if not is_traced(x):
            return np_fn(x)
        _reject_complex(fname, x)
        sign = signbit(x) if negative_side else logical_not(signbit(x))
        return logical_and(isinf(x), sign)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"`numpy.{fname}`: bool, no derivative." + doc_example(EXAMPLES[fname])
    return fn


isposinf = _signed_inf("isposinf", np.isposinf, False)
isneginf = _signed_inf("isneginf", np.isneginf, True)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """`numpy.isclose`: |a - b| <= atol + rtol |b| (infinities equal only to themselves).

    Example:
        >>> fnp.isclose(np.array([1.0, 1.1]), 1.0 + 1e-9)
        array([ True, False])
        >>> fnp.isclose(np.nan, np.nan, equal_nan=True)
        np.True_
    """
    a, b = lift(a), lift(b)
    if not is_traced(a, b, rtol, atol):
        return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not is_weak(b):
        b = cast(b, np.dtype(result_type(b, 1.0)))
    elif isinstance(b, int):
        b = float(b)
    close = less_equal(_abs(subtract(a, b)), add(atol, multiply(rtol, _abs(b))))
    out = logical_or(logical_and(close, isfinite(b)), equal(a, b))
    if equal_nan:
        out = logical_or(out, logical_and(isnan(a), isnan(b)))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """`numpy.allclose`: all of `isclose` (a 0-d bool when traced).

    Example:
        >>> fnp.allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
        True
        >>> fnp.allclose(np.array([1.0, 2.0]), np.array([1.0, 2.1]))
        False
    """
    if not is_traced(lift(a), lift(b), rtol, atol):
        return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    from ._reductions import all as _all
    return _all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False):
    """`numpy.array_equal`: equal shapes and elements (False for different shapes; a 0-d bool
    when traced).

    Example:
        >>> fnp.array_equal(np.array([1, 2]), np.array([1, 2]))
        True
        >>> fnp.array_equal(np.array([1, 2]), np.array([1, 2, 3]))
        False
    """
    a1, a2 = lift(a1), lift(a2)
    if not is_traced(a1, a2):
        return np.array_equal(a1, a2, equal_nan=equal_nan)
    from ._reductions import all as _all
    if shape_of(a1) != shape_of(a2):
        return False
    same = equal(a1, a2)
    if equal_nan and _dtypes.is_inexact(np.dtype(result_type(a1, a2))):
        same = logical_or(same, logical_and(isnan(a1), isnan(a2)))
    return _all(same)


def array_equiv(a1, a2):
    """`numpy.array_equiv`: equal after broadcasting (False if they do not broadcast).

    Example:
        >>> fnp.array_equiv(np.array([1, 2]), np.array([[1, 2], [1, 2]]))
        True
        >>> fnp.array_equiv(np.array([1, 2]), np.array([[1, 2], [1, 3]]))
        False
    """
    a1, a2 = lift(a1), lift(a2)
    if not is_traced(a1, a2):
        return np.array_equiv(a1, a2)
    from ._reductions import all as _all
    try:
        broadcast_shapes("array_equiv", ("a1", shape_of(a1)), ("a2", shape_of(a2)))
    except ValueError:
        return False
    return _all(equal(a1, a2))


def bitwise_count(x):
    """`numpy.bitwise_count`: the number of 1 bits of |x| (uint8, integers only).

    Example:
        >>> fnp.bitwise_count(np.array([0, 7, -8]))
        array([0, 3, 1], dtype=uint8)
    """
    x = lift(x)
    if not is_traced(x):
        return np.bitwise_count(x)
    dt = dtype_of(x)
    if _dtypes.kind(dt) not in "iub":
        raise TypeError(f"bitwise_count is not defined for {dt} operands (NumPy has no such "
                        "loop); it needs integer arrays: convert with x.astype(int)")
    return E.bitwise_count(x)


# --------------------------------------------------------------------------- array-API names
def concat(arrays, /, *, axis=0):
    """`numpy.concat` (NumPy 2's name for `concatenate`).

    Example:
        >>> fnp.concat([np.array([1.0, 2.0]), np.array([3.0])])
        array([1., 2., 3.])
        >>> fg.grad(lambda x: fnp.sum(fnp.concat([x, 2 * x])))(np.array([1.0, 2.0]))
        array([3., 3.])
    """
    from ._shape import concatenate
    return concatenate(arrays, axis=axis)


def permute_dims(a, /, axes=None):
    """`numpy.permute_dims` (NumPy 2's name for `transpose`).

    Example:
        >>> fnp.permute_dims(np.ones((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
        >>> fnp.permute_dims(np.array([[1, 2], [3, 4]]))
        array([[1, 3],
               [2, 4]])
    """
    from ._shape import transpose
    return transpose(a, axes)


def matrix_transpose(x, /):
    """`numpy.matrix_transpose`: swap the last two axes (at least 2-D).

    Example:
        >>> fnp.matrix_transpose(np.array([[1, 2], [3, 4]]))
        array([[1, 3],
               [2, 4]])
        >>> fnp.matrix_transpose(np.ones((5, 2, 3))).shape
        (5, 3, 2)
    """
    x = lift(x)
    if not is_traced(x):
        return np.matrix_transpose(x)
    if len(shape_of(x)) < 2:
        raise ValueError(f"matrix_transpose: the input must have at least 2 dimensions, got "
                         f"shape {shape_of(x)}")
    from ._shape import swapaxes
    return swapaxes(x, -1, -2)


def vecdot(x1, x2, /, *, axis: int = -1):
    """`numpy.vecdot`: sum(conj(x1) * x2) along `axis`, broadcasting the other axes.

    Example:
        >>> fnp.vecdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
        array([3., 7.])
        >>> fg.grad(lambda u: fnp.vecdot(u, np.array([3.0, 4.0])))(np.array([1.0, 2.0]))
        array([3., 4.])
    """
    x1, x2 = lift(x1), lift(x2)
    if not traced_or_narrow(x1, x2):  # (NumPy's bfloat16 loops give float32)
        y = numpy_or_compose(np.vecdot, x1, x2, axis=axis)  # (CuPy has no vecdot)
        if y is not COMPOSE:
            return y
    from ._contract import _vecdot
    for name, x in (("x1", x1), ("x2", x2)):
        if not shape_of(x):
            raise ValueError(f"vecdot: {name} needs at least 1 dimension (signature "
                             "(n),(n)->()), got shape (); use multiply for scalars")
    single_axis("vecdot", axis, len(shape_of(x1)))  # (a tuple: NumPy's TypeError, named)
    return _vecdot("vecdot", x1, x2, axis)


def matvec(x1, x2, /):
    """`numpy.matvec`: matrix (..., m, n) times vector (..., n), broadcasting batches.

    Example:
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.matvec(A, np.array([1.0, 1.0]))
        array([3., 7.])
        >>> fg.grad(lambda v: fnp.sum(fnp.matvec(A, v)))(np.ones(2))
        array([4., 6.])
    """
    x1, x2 = lift(x1), lift(x2)
    if not traced_or_narrow(x1, x2):  # (NumPy's bfloat16 loops give float32)
        y = numpy_or_compose(np.matvec, x1, x2)  # (CuPy has no matvec)
        if y is not COMPOSE:
            return y
    from ._contract import _matvec
    return _matvec(x1, x2)


def vecmat(x1, x2, /):
    """`numpy.vecmat`: conj(vector) (..., n) times matrix (..., n, m), broadcasting batches.

    Example:
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> fnp.vecmat(np.array([1.0, 1.0]), A)
        array([4., 6.])
        >>> fg.grad(lambda v: fnp.sum(fnp.vecmat(v, A)))(np.ones(2))
        array([3., 7.])
    """
    x1, x2 = lift(x1), lift(x2)
    if not traced_or_narrow(x1, x2):  # (NumPy's bfloat16 loops give float32)
        y = numpy_or_compose(np.vecmat, x1, x2)  # (CuPy has no vecmat)
        if y is not COMPOSE:
            return y
    from ._contract import _vecmat
    return _vecmat(x1, x2)
