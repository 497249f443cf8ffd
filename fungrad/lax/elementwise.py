"""Elementwise primitives, declared as tables: one row = one primitive with its rules.

Operands of an elementwise primitive have equal shapes and dtypes (fungrad.numpy does the
broadcasting and promotion); the one relaxation is a Python scalar operand, which is weak
and takes the other operand's dtype, exactly as NumPy 2 does.
"""
from __future__ import annotations

import math

import numpy as np

from ..core.ir import ShapedArray, Var
from ..transforms import ad as _ad
from ..core.primitive import Primitive
from ..transforms.ad import ZERO

_BOOL = np.dtype(bool)


def _base_aval(name, avals):
    base = None
    for a in avals:
        if not a.weak_type:
            if base is None:
                base = a
            elif a.shape != base.shape or a.dtype != base.dtype:
                raise TypeError(f"{name}: operands must have equal shapes and dtypes (fungrad."
                                f"numpy broadcasts first); got {', '.join(map(str, avals))}")
    return base if base is not None else avals[0]


def _same_aval(name):
    return lambda *avals: _base_aval(name, avals)


def _bool_aval(name):
    def rule(*avals):
        return ShapedArray(_base_aval(name, avals).shape, _BOOL)
    return rule


def _make(name, impl, abstract_eval, same_aval=False):
    p = Primitive(name)
    p.impl = impl
    p.abstract_eval = abstract_eval
    p.same_aval = same_aval
    return p


def _zero_jvp(prim):
    def jvp(primals, tangents, **params):
        return prim.bind(*primals, **params), ZERO
    return jvp


# --------------------------------------------------------------------------- unary table
# name, NumPy function, derivative d(out)/dx as f(x, out); None = zero derivative.
UNARY = [
    ("sin", np.sin, lambda x, y: cos(x)),
    ("cos", np.cos, lambda x, y: neg(sin(x))),
    ("tan", np.tan, lambda x, y: add(1.0, mul(y, y))),
    ("arcsin", np.arcsin, lambda x, y: div(1.0, sqrt(sub(1.0, mul(x, x))))),
    ("arccos", np.arccos, lambda x, y: div(-1.0, sqrt(sub(1.0, mul(x, x))))),
    ("arctan", np.arctan, lambda x, y: div(1.0, add(1.0, mul(x, x)))),
    ("sinh", np.sinh, lambda x, y: cosh(x)),
    ("cosh", np.cosh, lambda x, y: sinh(x)),
    ("tanh", np.tanh, lambda x, y: sub(1.0, mul(y, y))),
    ("arcsinh", np.arcsinh, lambda x, y: div(1.0, sqrt(add(mul(x, x), 1.0)))),
    ("arccosh", np.arccosh, lambda x, y: div(1.0, sqrt(sub(mul(x, x), 1.0)))),
    ("arctanh", np.arctanh, lambda x, y: div(1.0, sub(1.0, mul(x, x)))),
    ("exp", np.exp, lambda x, y: y),
    ("exp2", np.exp2, lambda x, y: mul(y, math.log(2.0))),
    ("expm1", np.expm1, lambda x, y: add(y, 1.0)),
    ("log", np.log, lambda x, y: div(1.0, x)),
    ("log2", np.log2, lambda x, y: div(1.0 / math.log(2.0), x)),
    ("log10", np.log10, lambda x, y: div(1.0 / math.log(10.0), x)),
    ("log1p", np.log1p, lambda x, y: div(1.0, add(x, 1.0))),
    ("sqrt", np.sqrt, lambda x, y: div(0.5, y)),
    ("square", np.square, lambda x, y: mul(x, 2.0)),
    ("reciprocal", np.reciprocal, lambda x, y: neg(mul(y, y))),
    ("abs", np.abs, lambda x, y: sign(x)),
    ("sign", np.sign, None),
    ("floor", np.floor, None),
    ("ceil", np.ceil, None),
    ("round", np.round, None),
    ("logical_not", np.logical_not, None),
    ("isfinite", np.isfinite, None),
    ("isnan", np.isnan, None),
]
_BOOL_OUT = {"logical_not", "isfinite", "isnan", "lt", "le", "eq", "ne", "gt", "ge",
             "logical_and", "logical_or", "logical_xor"}


def _unary_jvp(prim, deriv):
    bind = prim.bind

    def jvp(primals, tangents):
        x, = primals
        t, = tangents
        y = bind(x)
        return y, mul(t, deriv(x, y))
    return jvp


# --------------------------------------------------------------------------- binary table
# name, NumPy function, tangent contributions (t, out, x, y) -> tangent for x and for y;
# None = zero derivative in that argument.
BINARY = [
    ("add", np.add, lambda t, z, x, y: t, lambda t, z, x, y: t),
    ("sub", np.subtract, lambda t, z, x, y: t, lambda t, z, x, y: neg(t)),
    ("mul", np.multiply, lambda t, z, x, y: mul(t, y), lambda t, z, x, y: mul(x, t)),
    ("div", np.divide, lambda t, z, x, y: div(t, y),
     lambda t, z, x, y: neg(mul(t, div(z, y)))),
    ("pow", np.power, lambda t, z, x, y: mul(t, _pow_dx(x, y)),
     lambda t, z, x, y: mul(t, mul(z, _safe_log(x)))),
    ("maximum", np.maximum, lambda t, z, x, y: mul(t, _pick(gt, x, y)),
     lambda t, z, x, y: mul(t, _pick(gt, y, x))),
    ("minimum", np.minimum, lambda t, z, x, y: mul(t, _pick(lt, x, y)),
     lambda t, z, x, y: mul(t, _pick(lt, y, x))),
    ("arctan2", np.arctan2, lambda t, z, x, y: mul(t, div(y, add(mul(x, x), mul(y, y)))),
     lambda t, z, x, y: mul(t, div(neg(x), add(mul(x, x), mul(y, y))))),
    ("logaddexp", np.logaddexp, lambda t, z, x, y: mul(t, exp(sub(x, z))),
     lambda t, z, x, y: mul(t, exp(sub(y, z)))),
    ("hypot", np.hypot, lambda t, z, x, y: mul(t, div(x, z)),
     lambda t, z, x, y: mul(t, div(y, z))),
    ("floor_divide", np.floor_divide, None, None),
    ("lt", np.less, None, None),
    ("le", np.less_equal, None, None),
    ("eq", np.equal, None, None),
    ("ne", np.not_equal, None, None),
    ("gt", np.greater, None, None),
    ("ge", np.greater_equal, None, None),
    ("logical_and", np.logical_and, None, None),
    ("logical_or", np.logical_or, None, None),
    ("logical_xor", np.logical_xor, None, None),
]


def _dtype_of(x):
    dt = getattr(x, "dtype", None)
    return np.dtype(type(x)) if dt is None else dt


def _pick(cmp, x, y):
    """1 where cmp(x, y), 1/2 on ties, else 0: the derivative of max/min in x."""
    dt = _dtype_of(x) if not isinstance(x, (int, float)) else _dtype_of(y)
    return add(convert_element_type(cmp(x, y), new_dtype=dt),
               mul(convert_element_type(eq(x, y), new_dtype=dt), 0.5))


def _pow_dx(x, y):
    # y * x**(y-1), with the y == 0 case giving 0 (also at x == 0, where 0**-1 is inf)
    if isinstance(y, (int, float)):
        return 0.0 if y == 0 else 1.0 if y == 1 else mul(x, 2.0) if y == 2 else \
            mul(y, pow(x, y - 1))
    return select(eq(y, 0), 0.0, mul(y, pow(x, sub(y, 1.0))))


def _safe_log(x):
    # d/dy x**y = x**y log x; where x == 0 the product is taken as 0 (as JAX does)
    if isinstance(x, (int, float)):
        return math.log(x) if x > 0 else (0.0 if x == 0 else math.nan)
    return select(eq(x, 0), 0.0, log(select(eq(x, 0), 1.0, x)))


def _binary_jvp(prim, dx, dy):
    bind = prim.bind

    def jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        z = bind(x, y)
        out = ZERO
        if tx is not ZERO:
            out = dx(tx, z, x, y)
        if ty is not ZERO:
            c = dy(ty, z, x, y)
            out = c if out is ZERO else add(out, c)
        return z, out
    return jvp


_ns = globals()
for _name, _fn, _d in UNARY:
    _p = _make(_name, _fn, (_bool_aval if _name in _BOOL_OUT else _same_aval)(_name),
               _name not in _BOOL_OUT)
    _p.jvp = _zero_jvp(_p) if _d is None else _unary_jvp(_p, _d)
    _ns[_name + "_p"] = _p
    _ns[_name] = _p.bind
for _name, _fn, _dx, _dy in BINARY:
    _p = _make(_name, _fn, (_bool_aval if _name in _BOOL_OUT else _same_aval)(_name),
               _name not in _BOOL_OUT)
    _p.jvp = _zero_jvp(_p) if _dx is None else _binary_jvp(_p, _dx, _dy)
    _ns[_name + "_p"] = _p
    _ns[_name] = _p.bind

# neg is linear: its own row.
neg_p = _make("neg", np.negative, _same_aval("neg"), True)
neg = neg_p.bind
_ad.add_any = add  # cotangent accumulation in the backward pass
neg_p.jvp = lambda primals, tangents: (neg(primals[0]), neg(tangents[0]))
neg_p.transpose = lambda ct, x: [neg(ct)]


# --------------------------------------------------------------------------- linear rules
def _is_linear(x):
    return type(x) is Var


add_p.transpose = lambda ct, x, y: [ct if _is_linear(x) else None, ct if _is_linear(y) else None]
sub_p.transpose = lambda ct, x, y: [ct if _is_linear(x) else None,
                                    neg(ct) if _is_linear(y) else None]


def _mul_transpose(ct, x, y):
    if _is_linear(x):
        return [mul(ct, y), None]
    return [None, mul(x, ct)]


mul_p.transpose = _mul_transpose
div_p.transpose = lambda ct, x, y: [div(ct, y), None]


# --------------------------------------------------------------------------- select / where
def _select_aval(pred, a, b):
    base = _base_aval("select", (a, b))
    if pred.shape != base.shape and not pred.weak_type:
        raise TypeError(f"select: predicate shape {pred.shape} must equal operand shape "
                        f"{base.shape}")
    return base


select_p = _make("select", np.where, _select_aval)
select = select_p.bind


def _select_jvp(primals, tangents):
    p, a, b = primals
    _, ta, tb = tangents
    out = select(p, a, b)
    if ta is ZERO and tb is ZERO:
        return out, ZERO
    return out, select(p, 0.0 if ta is ZERO else ta, 0.0 if tb is ZERO else tb)


select_p.jvp = _select_jvp
select_p.transpose = lambda ct, p, a, b: [
    None, select(p, ct, 0.0) if _is_linear(a) else None,
    select(p, 0.0, ct) if _is_linear(b) else None]


# --------------------------------------------------------------------------- dtype conversion
def _convert_impl(x, new_dtype):
    return x.astype(new_dtype) if hasattr(x, "astype") else np.asarray(x, new_dtype)


convert_element_type_p = _make(
    "convert_element_type", _convert_impl,
    lambda x, new_dtype: ShapedArray(x.shape, np.dtype(new_dtype)))


def convert_element_type(x, new_dtype):
    return convert_element_type_p.bind(x, new_dtype=np.dtype(new_dtype))


def _convert_jvp(primals, tangents, new_dtype):
    x, = primals
    t, = tangents
    out = convert_element_type(x, new_dtype)
    if not np.issubdtype(new_dtype, np.inexact) or not np.issubdtype(_dtype_of(x), np.inexact):
        return out, ZERO
    return out, convert_element_type(t, new_dtype)


convert_element_type_p.jvp = _convert_jvp
convert_element_type_p.transpose = lambda ct, x, new_dtype: [
    convert_element_type(ct, x.aval.dtype)]

ELEMENTWISE_PRIMITIVES = ([_ns[n + "_p"] for n, *_ in UNARY] + [_ns[n + "_p"] for n, *_ in BINARY]
                          + [neg_p, select_p, convert_element_type_p])
