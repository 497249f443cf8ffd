"""Registry specs of jax.lax's elementwise, sorting, bitwise and array-building functions
(fungrad/lax/array_ops.py's tables). Every spec is differentiable: functions with integer or
bool results weight a float operand, bitwise ones act on `convert_element_type(x, int32)`
of values between integers (away from the truncation's jumps)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad as fg

from .registry import FNP, Case, spec
from .strategies import (DEFAULT, NONSCALAR, SHAPES, arrays, away_from_zero, between_integers,
                         distinct, uniform)

L = fg.lax

UNARY_DOMAINS = {
    "neg": DEFAULT, "abs": away_from_zero(), "exp": DEFAULT, "exp2": DEFAULT,
    "log": uniform(0.3, 3.0), "log1p": uniform(-0.5, 3.0), "expm1": DEFAULT, "sin": DEFAULT,
    "cos": DEFAULT, "tan": uniform(-1.2, 1.2), "asin": uniform(-0.9, 0.9),
    "acos": uniform(-0.9, 0.9), "atan": DEFAULT, "sinh": DEFAULT, "cosh": DEFAULT,
    "tanh": DEFAULT, "asinh": DEFAULT, "acosh": uniform(1.2, 3.0), "atanh": uniform(-0.9, 0.9),
    "sqrt": uniform(0.3, 3.0), "cbrt": away_from_zero(0.3), "square": DEFAULT,
    "reciprocal": away_from_zero(0.3), "logistic": uniform(-4.0, 4.0), "erf": DEFAULT,
    "erfc": DEFAULT, "erf_inv": uniform(-0.9, 0.9), "lgamma": uniform(0.3, 3.0),
    "digamma": uniform(0.3, 3.0),
}


@spec(FNP, *[f"lax.{n}" for n in UNARY_DOMAINS])
def _lax_unary(draw, name):
    """A differentiable unary function on its domain."""
    x = draw(arrays(draw(SHAPES), UNARY_DOMAINS[name[4:]]))
    return Case(getattr(L, name[4:]), (x,))


@spec(FNP, "lax.sign", "lax.floor", "lax.ceil", "lax.round", "lax.is_finite")
def _lax_piecewise(draw, name):
    """Piecewise-constant functions weighting `x` (away from their jumps)."""
    x = draw(arrays(draw(SHAPES), between_integers()))
    if name == "lax.is_finite":
        return Case(lambda x: L.select(L.is_finite(x), x, L.neg(x)), (x,))
    if name == "lax.round":
        method = draw(st.sampled_from(list(L.RoundingMethod)))
        return Case(lambda x: L.mul(x, L.round(x, method)), (x,))
    return Case(lambda x, fn=getattr(L, name[4:]): L.mul(x, fn(x)), (x,))


@spec(FNP, "lax.real", "lax.imag", "lax.conj", "lax.complex")
def _lax_complex_parts(draw, name):
    """A complex number built from two real operands, then taken apart."""
    shape = draw(SHAPES)
    x, y = draw(arrays(shape)), draw(arrays(shape))
    if name == "lax.conj":
        if draw(st.booleans()):  # (a real operand becomes complex)
            return Case(lambda x, y: L.imag(L.mul(L.conj(x), L.complex(y, x))), (x, y))
        return Case(lambda x, y: L.imag(L.conj(L.complex(x, y))), (x, y))
    fn = {"lax.real": L.real, "lax.imag": L.imag,
          "lax.complex": lambda z: L.real(L.mul(z, z))}[name]
    return Case(lambda x, y: fn(L.complex(x, y)), (x, y))


BINARY_DOMAINS = {
    "add": (DEFAULT, DEFAULT), "sub": (DEFAULT, DEFAULT), "mul": (DEFAULT, DEFAULT),
    "max": (DEFAULT, DEFAULT), "min": (DEFAULT, DEFAULT),
    "pow": (uniform(0.5, 2.0), uniform(-2.0, 2.0)), "atan2": (away_from_zero(), DEFAULT),
    "nextafter": (DEFAULT, DEFAULT),
}


@spec(FNP, *[f"lax.{n}" for n in BINARY_DOMAINS])
def _lax_binary(draw, name):
    """Binary arithmetic on operands of one shape (max / min away from ties), or with a weak
    Python scalar."""
    shape = draw(SHAPES)
    dx, dy = BINARY_DOMAINS[name[4:]]
    x, y = draw(arrays(shape, dx)), draw(arrays(shape, dy))
    if name in ("lax.max", "lax.min"):
        y = np.where(np.abs(x - y) < 0.1, y + 0.3, y)
    fn = getattr(L, name[4:])
    if name in ("lax.add", "lax.mul", "lax.max") and draw(st.booleans()):
        return Case(lambda x: fn(x, 0.5), (x,))
    return Case(fn, (x, y))


@spec(FNP, "lax.eq", "lax.ne", "lax.lt", "lax.le", "lax.gt", "lax.ge", "lax.select")
def _lax_compare(draw, name):
    """A comparison choosing between its operands with lax.select (distinct operands)."""
    shape = draw(SHAPES)
    x, y = draw(arrays(shape)), draw(arrays(shape))
    y = np.where(np.abs(x - y) < 0.1, y + 0.3, y)
    if name == "lax.select":
        if draw(st.booleans()):  # a scalar predicate
            return Case(lambda x, y: L.select(True, x, y), (x, y))
        return Case(lambda x, y: L.select(L.lt(x, y), L.sin(x), y), (x, y))
    cmp = getattr(L, name[4:])
    return Case(lambda x, y: L.select(cmp(x, y), x, L.mul(y, 2.0)), (x, y))


def _int_weight(x, bits):
    """x * bits(int32(x)) as a float of x's dtype."""
    return L.mul(x, L.convert_element_type(bits(L.convert_element_type(x, np.int32)),
                                           x.dtype))


_BITWISE = {
    "bitwise_not": lambda a: L.bitwise_not(a),
    "population_count": lambda a: L.population_count(a),
    "clz": lambda a: L.clz(a),
    "bitwise_and": lambda a: L.bitwise_and(a, 5),
    "bitwise_or": lambda a: L.bitwise_or(a, L.neg(a)),
    "bitwise_xor": lambda a: L.bitwise_xor(a, 6),
    "shift_left": lambda a: L.shift_left(a, L.bitwise_and(a, 7)),
    "shift_right_logical": lambda a: L.shift_right_logical(a, L.bitwise_and(a, 31)),
    "shift_right_arithmetic": lambda a: L.shift_right_arithmetic(a, L.bitwise_and(a, 3)),
}


@spec(FNP, *[f"lax.{n}" for n in _BITWISE])
def _lax_bitwise(draw, name):
    """Bitwise functions of int32(x), weighting x."""
    x = draw(arrays(draw(SHAPES), between_integers(-40, 40)))
    return Case(lambda x, bits=_BITWISE[name[4:]]: _int_weight(x, bits), (x,))


@spec(FNP, "lax.reduce_and", "lax.reduce_or", "lax.reduce_xor")
def _lax_logical_reductions(draw, name):
    """A bitwise reduction of int32(x) over some axes, broadcast back as a weight."""
    shape = draw(NONSCALAR)
    nd = len(shape)
    axes = tuple(sorted(draw(st.sets(st.integers(0, nd - 1)))))
    x = draw(arrays(shape, between_integers(-40, 40)))
    fn = getattr(L, name[4:])
    keep = tuple(k for k in range(nd) if k not in axes)

    def f(x):
        r = fn(L.convert_element_type(x, np.int32), axes)
        w = L.convert_element_type(r, x.dtype)
        return L.mul(x, L.broadcast_in_dim(w, x.shape, keep))
    return Case(f, (x,))


@spec(FNP, "lax.sort", "lax.sort_key_val")
def _lax_sort(draw, name):
    """sort of one operand, or of several (keys of distinct values) along any dimension."""
    shape = draw(NONSCALAR)
    d = draw(st.integers(-len(shape), len(shape) - 1))
    x, y = draw(arrays(shape, distinct())), draw(arrays(shape))
    if name == "lax.sort_key_val":
        return Case(lambda x, y: L.sort_key_val(x, y, d), (x, y))
    keys = draw(st.integers(0, 2))
    if not keys:
        return Case(lambda x: L.sort(x, d), (x,))
    return Case(lambda x, y: L.sort((x, y), d, True, keys), (x, y))


@spec(FNP, "lax.cumlogsumexp")
def _lax_cumlogsumexp(draw, name):
    shape = draw(NONSCALAR)
    a, rev = draw(st.integers(-len(shape), len(shape) - 1)), draw(st.booleans())
    return Case(lambda x: L.cumlogsumexp(x, a, rev), (draw(arrays(shape)),))


@spec(FNP, "lax.full", "lax.full_like", "lax.tile", "lax.split", "lax.collapse",
      "lax.batch_matmul")
def _lax_build(draw, name):
    """Arrays built from a traced fill value, tiles, pieces, merged axes, batched
    products."""
    shape = draw(NONSCALAR)
    nd = len(shape)
    x = draw(arrays(shape))
    if name == "lax.full":
        return Case(lambda x: L.mul(x, L.full(x.shape, L.reduce_sum(x, tuple(range(nd))))),
                    (x,))
    if name == "lax.full_like":  # (a constant: weights x)
        return Case(lambda x: L.mul(x, L.full_like(x, 2.5)), (x,))
    if name == "lax.tile":
        reps = tuple(draw(st.integers(1, 2)) for _ in shape)
        return Case(lambda x: L.tile(x, reps), (x,))
    if name == "lax.split":
        a = draw(st.integers(-nd, nd - 1))
        k = draw(st.integers(0, shape[a]))
        return Case(lambda x: tuple(L.split(x, (k, shape[a] - k), a)), (x,))
    if name == "lax.collapse":
        lo = draw(st.integers(0, nd))
        hi = draw(st.integers(lo, nd))
        return Case(lambda x: L.collapse(x, lo, hi), (x,))
    b, m, k, n = (draw(st.integers(1, 3)) for _ in range(4))
    return Case(L.batch_matmul, (draw(arrays((b, m, k))), draw(arrays((b, k, n)))))


@spec(FNP, "lax.reduce_precision")
def _lax_reduce_precision(draw, name):
    """float64 rounded to float32's format (the derivative is the identity's: wide finite
    differences see through the rounding, as for convert_element_type's spec)."""
    return Case(lambda x: L.reduce_precision(x, 8, 23), (draw(arrays(draw(SHAPES))),),
                tol=1e-3, eps=1e-2)
