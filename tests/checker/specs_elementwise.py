"""Specs of the issue-11 elementwise functions: the new table rows (registry.py's generic
unary / binary specs draw them; their domains are added here), the compositions of
fungrad/numpy/_ufuncs.py, NumPy 2's array-API aliases and the new lax primitives."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp
from fungrad.lax import elementwise as E

from . import registry as R
from .registry import COMPLEX_CASES, COMPLEX_REJECTED, FNP, PRIM, Case, spec
from .strategies import (COMPLEX, DEFAULT, NONSCALAR, SHAPES, arrays, away_from_zero,
                         between_integers, broadcast_pair, complex_domain, distinct, uniform)


def _off_powers_of_two(u, rng):
    """|x| in (0.55, 0.95) * 2**k: away from the jumps of frexp's exponent."""
    return (0.55 + 0.4 * u) * rng.choice([-4.0, -1.0, 1.0, 2.0, 8.0], size=np.shape(u))


# ----------------------------------------------------------------------------- table rows
R.UNARY_DOMAINS.update({
    "fabs": away_from_zero(), "rint": between_integers(), "trunc": between_integers(),
    "fix": between_integers(), "cbrt": away_from_zero(0.3), "spacing": _off_powers_of_two,
})
R.PRIM_UNARY_DOMAINS.update(R.UNARY_DOMAINS)
NEW_ZERO_DERIV = {"rint", "trunc", "fix", "spacing", "signbit", "isinf"}
R.UNARY_ZERO_DERIV |= NEW_ZERO_DERIV
R.COMPLEX_UNARY_ZERO_DERIV |= {"rint", "isinf"}
R.INT_ONLY |= {"gcd", "lcm"}
R.BINARY_DOMAINS.update({
    "fmod": (between_integers(), R.nonzero_divisors()),
    "copysign": (away_from_zero(), away_from_zero()),
})
R.COMPLEX_UNARY_DOMAINS["rint"] = complex_domain(between_integers(), between_integers())
# NumPy has no complex loop for these (fnp raises its TypeError too)
NEW_COMPLEX_REJECTED = {"fabs", "trunc", "fix", "cbrt", "spacing", "signbit", "i0", "fmod",
                        "copysign", "nextafter", "logaddexp2", "gcd", "lcm", "heaviside",
                        "ldexp"}
COMPLEX_REJECTED |= NEW_COMPLEX_REJECTED
for _n in NEW_COMPLEX_REJECTED:
    COMPLEX_CASES.pop(_n, None)


def _apart(x, y):
    """y moved away from x (no ties, where fmax/fmin's slope is split)."""
    return np.where(np.abs(np.real(x) - np.real(y)) < 0.1, y + 0.3, y)


@spec(FNP, "fmax", "fmin")
def _fmax(draw, name):
    sx, sy = draw(broadcast_pair())
    x, y = draw(arrays(sx)), draw(arrays(sy))
    if draw(st.booleans()):  # NaNs: the other operand is taken, with its slope
        y = np.where(draw(arrays(sy)) > 1.0, np.nan, y)
    return Case(getattr(fnp, name), (x, _apart(x, y)))


@spec(COMPLEX_CASES, "fmax", "fmin")
def _complex_fmax(draw, name):
    sx, sy = draw(broadcast_pair())
    x = draw(arrays(sx, COMPLEX, np.complex128))
    y = R.complex_or_real(draw, sy, COMPLEX)
    return Case(getattr(fnp, name), (x, _apart(x, y)))


# ----------------------------------------------------------------------------- aliases
ALIASES = {"acos": "arccos", "asin": "arcsin", "atan": "arctan", "atan2": "arctan2",
           "acosh": "arccosh", "asinh": "arcsinh", "atanh": "arctanh"}
for _alias, _target in ALIASES.items():
    FNP[_alias] = FNP[_target]
    COMPLEX_CASES.setdefault(_alias, COMPLEX_CASES.get(_target))
    if COMPLEX_CASES[_alias] is None:
        del COMPLEX_CASES[_alias]


# ----------------------------------------------------------------------------- compositions
@spec(FNP, "deg2rad", "rad2deg", "radians", "degrees", "sinc", "positive", "angle")
def _plain_unary(draw, name):
    x = draw(arrays(draw(SHAPES), away_from_zero() if name == "angle" else DEFAULT))
    f = getattr(fnp, name)
    if name == "angle" and draw(st.booleans()):
        return Case(lambda x: fnp.angle(x, deg=True), (x,), diff=False)
    return Case(f, (x,), diff=name != "angle")


@spec(COMPLEX_CASES, "sinc", "positive", "angle")
def _complex_unary(draw, name):
    x = draw(arrays(draw(SHAPES), R._AWAY, np.complex128))
    f = getattr(fnp, name)
    deg = name == "angle" and draw(st.booleans())
    return Case((lambda x: f(x, deg=True)) if deg else f, (x,))


def _phases(u, rng):
    """Cumulative phases whose steps stay away from the unwrap boundaries (odd multiples of
    pi and the default discont pi)."""
    steps = rng.choice([-5.0, -1.0, 0.5, 2.0, 4.5], size=np.shape(u)) + 0.2 * u
    return np.cumsum(steps, axis=-1) if np.ndim(u) else steps


@spec(FNP, "unwrap")
def _unwrap(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    x = np.moveaxis(draw(arrays(shape, _phases)), -1, axis)
    return Case(lambda p: fnp.unwrap(p, axis=axis), (x,))


@spec(FNP, "heaviside")
def _heaviside(draw, name):
    sx, sy = draw(broadcast_pair())
    x1, x2 = draw(arrays(sx, away_from_zero())), draw(arrays(sy))
    if draw(st.booleans()):  # x1 with zeros held fixed: the slope in x2 is 1 there
        x1 = np.where(draw(arrays(sx)) > 0.5, 0.0, x1)
        return Case(lambda x2: fnp.heaviside(x1, x2), (x2,))
    return Case(fnp.heaviside, (x1, x2), diff=False)


@spec(FNP, "nan_to_num")
def _nan_to_num(draw, name):
    shape = draw(SHAPES)
    x = draw(arrays(shape))
    pick = draw(arrays(shape, uniform(0, 1)))
    x = np.where(pick < 0.15, np.nan, np.where(pick < 0.3, np.inf, np.where(pick < 0.4, -np.inf,
                                                                           x)))
    # explicit replacements: the defaults (finfo max) differ between float64 and float16
    return Case(lambda x: fnp.nan_to_num(x, nan=0.5, posinf=3.0, neginf=-3.0), (x,))


@spec(COMPLEX_CASES, "nan_to_num")
def _complex_nan_to_num(draw, name):
    shape = draw(SHAPES)
    x = draw(arrays(shape, COMPLEX, np.complex128))
    pick = draw(arrays(shape, uniform(0, 1)))
    x = np.where(pick < 0.2, x.real + 1j * np.inf, np.where(pick < 0.4, np.nan + 1j * x.imag, x))
    return Case(lambda x: fnp.nan_to_num(x, posinf=3.0, neginf=-3.0), (x,))


@spec(FNP, "float_power")
def _float_power(draw, name):
    sx, sy = draw(broadcast_pair())
    return Case(fnp.float_power, (draw(arrays(sx, uniform(0.5, 2.0))),
                                  draw(arrays(sy, uniform(-2.0, 2.0)))))


@spec(COMPLEX_CASES, "float_power")
def _complex_float_power(draw, name):
    sx, sy = draw(broadcast_pair())
    return Case(fnp.float_power, (draw(arrays(sx, R._CUT_FREE, np.complex128)),
                                  draw(arrays(sy, R._SMALL, np.complex128))))


@spec(FNP, "ldexp")
def _ldexp(draw, name):
    sx, sy = draw(broadcast_pair())
    e = draw(R.int_arrays(sy, -3, 4))  # (integer: held fixed, check_grads wants floats)
    return Case(lambda x: fnp.ldexp(x, e), (draw(arrays(sx)),))


@spec(FNP, "frexp")
def _frexp(draw, name):
    # the mantissa times the (integer) exponent: both outputs in one differentiable value
    return Case(lambda x: fnp.frexp(x)[0] * fnp.frexp(x)[1],
                (draw(arrays(draw(SHAPES), _off_powers_of_two)),))


@spec(FNP, "modf")
def _modf(draw, name):
    return Case(lambda x: fnp.modf(x)[0] * fnp.modf(x)[1],
                (draw(arrays(draw(SHAPES), between_integers())),))


@spec(FNP, "sort_complex")
def _sort_complex(draw, name):
    return Case(fnp.sort_complex, (draw(arrays(draw(NONSCALAR), distinct())),))


@spec(COMPLEX_CASES, "sort_complex")
def _complex_sort_complex(draw, name):
    shape = draw(NONSCALAR)
    return Case(fnp.sort_complex, (draw(arrays(shape, complex_domain(distinct(), DEFAULT),
                                               np.complex128)),))


@spec(FNP, "real_if_close")
def _real_if_close(draw, name):
    """Its dtype depends on the values, so traced arguments need concrete values (jit and
    vmap raise; tests/test_ufuncs.py checks that and grad): here it runs on a constant."""
    shape = draw(SHAPES)
    z = draw(arrays(shape)) + 1e-20j
    # (fnp.multiply, not `*`: a CuPy x times the NumPy constant is CuPy's own operator,
    # which refuses NumPy arrays; fnp moves the constant to x's device)
    return Case(lambda x: fnp.multiply(x, fnp.real_if_close(z)), (draw(arrays(shape)),))


@spec(FNP, "iscomplex", "isreal", "iscomplexobj", "isrealobj")
def _complex_predicates(draw, name):
    x = draw(arrays(draw(SHAPES)))
    f = getattr(fnp, name)
    if name.endswith("obj"):
        return Case(lambda x: fnp.where(f(x), x, -x), (x,))
    return Case(f, (x,), diff=False)


@spec(COMPLEX_CASES, "iscomplex", "isreal")
def _complex_complex_predicates(draw, name):
    shape = draw(SHAPES)
    z = draw(arrays(shape, COMPLEX, np.complex128))
    z = np.where(draw(arrays(shape)) > 0, z.real + 0j, z)
    return Case(getattr(fnp, name), (z,), diff=False)


@spec(FNP, "isposinf", "isneginf")
def _signed_inf(draw, name):
    shape = draw(SHAPES)
    pick = draw(arrays(shape, uniform(0, 1)))
    x = np.where(pick < 0.3, np.inf, np.where(pick < 0.6, -np.inf, draw(arrays(shape))))
    return Case(getattr(fnp, name), (x,), diff=False)


@spec(FNP, "isclose", "allclose", "array_equal", "array_equiv")
def _closeness(draw, name):
    sx, sy = draw(broadcast_pair())
    if name == "array_equal" and draw(st.booleans()):
        sy = sx
    x = draw(arrays(sx))
    y = np.broadcast_to(x, np.broadcast_shapes(sx, sy))[tuple(slice(0, n) for n in sy)] \
        if len(sy) <= len(sx) and draw(st.booleans()) else draw(arrays(sy))
    y = np.array(y) + np.where(draw(arrays(np.shape(y))) > 0, 1e-9, 0.0)
    return Case(getattr(fnp, name), (x, y), diff=False)


@spec(FNP, "bitwise_count")
def _bitwise_count(draw, name):
    return Case(fnp.bitwise_count, (draw(R.int_arrays(draw(SHAPES), -300, 300)),), diff=False)


# ----------------------------------------------------------------------------- array API
@spec(FNP, "concat")
def _concat(draw, name):
    case = draw(FNP["concatenate"])
    return Case(lambda *xs: case.fn(*xs), case.args)


@spec(FNP, "permute_dims", "matrix_transpose")
def _permute(draw, name):
    shape = draw(NONSCALAR if name == "permute_dims" else st.sampled_from(
        [(2, 3), (1, 2, 3), (2, 2, 1)]))
    if name == "matrix_transpose":
        return Case(fnp.matrix_transpose, (draw(arrays(shape)),))
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return Case(lambda x: fnp.permute_dims(x, perm), (draw(arrays(shape)),))


VECTOR_SHAPES = {
    "vecdot": [((3,), (3,)), ((2, 3), (3,)), ((2, 1, 3), (4, 3))],
    "matvec": [((2, 3), (3,)), ((2, 2, 3), (3,)), ((2, 3), (4, 3))],
    "vecmat": [((3,), (3, 2)), ((2, 3), (3, 2)), ((4, 3), (2, 1, 3, 2))],
}


@spec(FNP, "vecdot", "matvec", "vecmat")
def _vector(draw, name):
    sa, sb = draw(st.sampled_from(VECTOR_SHAPES[name]))
    return Case(getattr(fnp, name), (draw(arrays(sa)), draw(arrays(sb))))


@spec(COMPLEX_CASES, "vecdot", "matvec", "vecmat")
def _complex_vector(draw, name):
    sa, sb = draw(st.sampled_from(VECTOR_SHAPES[name]))
    a = draw(arrays(sa, COMPLEX, np.complex128))
    b = R.complex_or_real(draw, sb, COMPLEX)
    return Case(getattr(fnp, name), (a, b))


# ----------------------------------------------------------------------------- primitives
PRIM_UNARY = {"trunc": between_integers(), "cbrt": away_from_zero(0.3), "i0": DEFAULT,
              "i1": DEFAULT, "spacing": _off_powers_of_two, "signbit": DEFAULT,
              "isinf": DEFAULT}
PRIM_BINARY = {"fmod": (between_integers(), R.nonzero_divisors()), "fmax": (DEFAULT, DEFAULT),
               "fmin": (DEFAULT, DEFAULT), "copysign": (away_from_zero(), away_from_zero()),
               "nextafter": (DEFAULT, DEFAULT), "logaddexp2": (DEFAULT, DEFAULT)}
PRIM_ZERO = {"trunc", "spacing", "signbit", "isinf"}


@spec(PRIM, *PRIM_UNARY, *PRIM_BINARY)
def _prim_new_rows(draw, name):
    prim = getattr(E, name + "_p")
    shape = draw(SHAPES)
    if name in PRIM_UNARY:
        return Case(prim.bind, (draw(arrays(shape, PRIM_UNARY[name])),), diff=name not in PRIM_ZERO)
    dx, dy = PRIM_BINARY[name]
    x, y = draw(arrays(shape, dx)), draw(arrays(shape, dy))
    return Case(prim.bind, (x, _apart(x, y) if name in ("fmax", "fmin") else y))


@spec(PRIM, "gcd", "lcm", "bitwise_count", "frexp_exponent")
def _prim_integer(draw, name):
    prim = getattr(E, name + "_p")
    shape = draw(SHAPES)
    if name == "frexp_exponent":
        return Case(prim.bind, (draw(arrays(shape, _off_powers_of_two)),), diff=False)
    n_in = 1 if name == "bitwise_count" else 2
    return Case(prim.bind, tuple(draw(R.int_arrays(shape)) for _ in range(n_in)), diff=False)
