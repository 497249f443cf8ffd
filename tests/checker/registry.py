"""Test specs: one per primitive and per public fungrad.numpy function.

A spec is a hypothesis strategy drawing a `Case`: a function of arrays, its arguments, and
what to check. `tests/test_registry.py` runs every check on every spec, and fails for any
primitive or fnp function without one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp
from fungrad.numpy import _elementwise as fnp_elementwise
from fungrad.lax import elementwise as E, reduce as R, shape as S, indexing as I, dot as D
from fungrad.lax.misc import stop_gradient_p
from fungrad.lax import random as RND
from fungrad.lax import slicing as SL
from fungrad.core.ad_util import add_any_p
import fungrad as fg

from .strategies import (COMPLEX, DEFAULT, NONSCALAR, SHAPES, arrays, away_from_zero, axis_for,
                         between_integers, broadcast_pair, complex_domain, distinct, uniform)


@dataclass
class Case:
    fn: Callable
    args: tuple
    diff: bool = True  # False: the derivative is zero everywhere (or outputs are ints)
    order2: bool = True
    tol: float | None = None
    eps: float | None = None
    kwargs: dict = field(default_factory=dict)


FNP: dict = {}
PRIM: dict = {}


def spec(table, *names):
    def register(fn):
        strategy = st.composite(fn)
        for n in names:
            table[n] = (lambda n: strategy(n))(n)
        return fn
    return register


# ----------------------------------------------------------------------------- domains
UNARY_DOMAINS = {
    "tan": uniform(-1.2, 1.2), "arcsin": uniform(-0.9, 0.9), "arccos": uniform(-0.9, 0.9),
    "arctanh": uniform(-0.9, 0.9), "arccosh": uniform(1.2, 3.0), "log": uniform(0.3, 3.0),
    "log2": uniform(0.3, 3.0), "log10": uniform(0.3, 3.0), "log1p": uniform(-0.5, 3.0),
    "sqrt": uniform(0.3, 3.0), "reciprocal": away_from_zero(0.3), "abs": away_from_zero(),
    "absolute": away_from_zero(), "sign": away_from_zero(), "floor": between_integers(),
    "ceil": between_integers(), "round": between_integers(), "around": between_integers(),
}
UNARY_ZERO_DERIV = {"sign", "floor", "ceil", "round", "around", "logical_not", "isfinite",
                    "isnan"}
UNARY_NAMES = [n for n, _, _ in fnp_elementwise.UNARY] + ["absolute", "round", "around",
                                                            "bitwise_not", "bitwise_invert"]
# integer-only functions (bitwise): drawn as int arrays, no derivative
INT_ONLY = {"invert", "bitwise_not", "bitwise_invert", "bitwise_and", "bitwise_or",
            "bitwise_xor", "left_shift", "right_shift", "bitwise_left_shift",
            "bitwise_right_shift"}


def int_arrays(shape, lo=-8, hi=8):
    return st.integers(0, 2 ** 32 - 1).map(
        lambda seed: np.random.default_rng(seed).integers(lo, hi, size=shape))


def nonzero_divisors():
    """y in {-2, -1, 1, 2} with x = k + (0.2 .. 0.8): x / y stays away from integers, so
    x % y stays away from its jumps."""
    return lambda u, rng: rng.choice([-2.0, -1.0, 1.0, 2.0], size=np.shape(u))
BINARY_DOMAINS = {
    "divide": (DEFAULT, away_from_zero(0.5)), "true_divide": (DEFAULT, away_from_zero(0.5)),
    "power": (uniform(0.5, 2.0), uniform(-2.0, 2.0)), "pow": (uniform(0.5, 2.0), uniform(-2, 2)),
    "floor_divide": (DEFAULT, away_from_zero(0.5)),
    "remainder": (between_integers(), nonzero_divisors()),
    "mod": (between_integers(), nonzero_divisors()),
}
BINARY_ZERO_DERIV = {"floor_divide", "less", "less_equal", "equal", "not_equal", "greater",
                     "greater_equal", "logical_and", "logical_or", "logical_xor"}
BINARY_NAMES = [n for n, _, _ in fnp_elementwise.BINARY] + ["true_divide", "pow", "mod",
                                                              "bitwise_left_shift",
                                                              "bitwise_right_shift"]


@spec(FNP, *UNARY_NAMES)
def _unary(draw, name):
    if name in INT_ONLY:
        return Case(getattr(fnp, name), (draw(int_arrays(draw(SHAPES))),), diff=False)
    x = draw(arrays(draw(SHAPES), UNARY_DOMAINS.get(name, DEFAULT)))
    return Case(getattr(fnp, name), (x,), diff=name not in UNARY_ZERO_DERIV)


@spec(FNP, *BINARY_NAMES)
def _binary(draw, name):
    sx, sy = draw(broadcast_pair())
    if name in INT_ONLY:
        shift = "shift" in name  # shift counts are small and non-negative
        x = draw(int_arrays(sx))
        y = draw(int_arrays(sy, 0, 5) if shift else int_arrays(sy))
        return Case(getattr(fnp, name), (x, y), diff=False)
    dx, dy = BINARY_DOMAINS.get(name, (DEFAULT, DEFAULT))
    x, y = _separate(name, draw(arrays(sx, dx)), draw(arrays(sy, dy)))
    return Case(getattr(fnp, name), (x, y), diff=name not in BINARY_ZERO_DERIV)


def _separate(name, x, y):
    """Keep inputs away from the kinks of hypot (0, 0) and max/min (x == y)."""
    if name == "hypot":
        x = x + np.sign(x) * 0.2
    if name in ("maximum", "minimum"):
        y = np.where(np.abs(x - y) < 0.1, y + 0.3, y)
    return x, y


@spec(FNP, "where")
def _where(draw, name):
    sc, sx = draw(broadcast_pair())
    _, sy = draw(broadcast_pair())
    c = draw(arrays(sc)) > 0
    x, y = draw(arrays(sx)), draw(arrays(sy))
    try:
        np.broadcast_shapes(sc, sx, sy)
    except ValueError:
        y = draw(arrays(sx))
    return Case(lambda x, y: fnp.where(c, x, y), (x, y))


@spec(FNP, "clip")
def _clip(draw, name):
    x = draw(arrays(draw(SHAPES), uniform(-2, 2)))
    x = np.where(np.abs(np.abs(x) - 1.0) < 0.05, x + 0.2, x)
    return Case(lambda x: fnp.clip(x, -1.0, 1.0), (x,))


# ----------------------------------------------------------------------------- reductions
@spec(FNP, "sum", "mean", "max", "min", "amax", "amin", "prod", "var", "std")
def _reduction(draw, name):
    shape = draw(NONSCALAR if name in ("var", "std") else SHAPES)
    dom = {"prod": away_from_zero(0.5, 1.5)}.get(name, distinct())
    x = draw(arrays(shape, dom))
    axis = axis_for(draw, len(shape))
    if name in ("var", "std"):
        axes = range(len(shape)) if axis is None else (
            [axis] if isinstance(axis, int) else axis)
        if np.prod([shape[a] for a in axes]) < 2:
            axis = None
        if x.size < 2:
            x = draw(arrays((3,), distinct()))
            axis = None
    keepdims = draw(st.booleans())
    kw = {"axis": axis, "keepdims": keepdims}
    if name in ("var", "std"):
        kw["ddof"] = draw(st.sampled_from([0, 1])) if x.size > 2 and axis is None else 0
    f = getattr(fnp, name)
    return Case(lambda x: f(x, **kw), (x,))


@spec(FNP, "argmax", "argmin")
def _argreduce(draw, name):
    shape = draw(SHAPES)
    x = draw(arrays(shape, distinct()))
    axis = axis_for(draw, len(shape), allow_tuple=False)
    f = getattr(fnp, name)
    return Case(lambda x: f(x, axis=axis), (x,), diff=False)


# ----------------------------------------------------------------------------- shape ops
@spec(FNP, "reshape", "ravel")
def _reshape(draw, name):
    shape = draw(SHAPES)
    x = draw(arrays(shape))
    if name == "ravel":
        return Case(fnp.ravel, (x,))
    n = x.size
    target = draw(st.sampled_from([(-1,), (n, 1), (1, -1), tuple(reversed(shape)), ()]
                                  if n == 1 else [(-1,), (n, 1), (1, -1), tuple(reversed(shape))]))
    return Case(lambda x: fnp.reshape(x, target), (x,))


@spec(FNP, "transpose")
def _transpose(draw, name):
    shape = draw(SHAPES)
    perm = draw(st.permutations(range(len(shape)))) if draw(st.booleans()) else None
    return Case(lambda x: fnp.transpose(x, perm), (draw(arrays(shape)),))


@spec(FNP, "moveaxis", "swapaxes")
def _moveaxis(draw, name):
    shape = draw(NONSCALAR)
    nd = len(shape)
    a, b = draw(st.integers(-nd, nd - 1)), draw(st.integers(-nd, nd - 1))
    f = getattr(fnp, name)
    return Case(lambda x: f(x, a, b), (draw(arrays(shape)),))


@spec(FNP, "expand_dims")
def _expand_dims(draw, name):
    shape = draw(SHAPES)
    axis = draw(st.integers(-(len(shape) + 1), len(shape)))
    return Case(lambda x: fnp.expand_dims(x, axis), (draw(arrays(shape)),))


@spec(FNP, "squeeze")
def _squeeze(draw, name):
    shape = tuple(draw(st.lists(st.sampled_from([1, 1, 2, 3]), min_size=0, max_size=4)))
    ones = [i for i, d in enumerate(shape) if d == 1]
    axis = draw(st.sampled_from([None] + ones)) if ones else None
    return Case(lambda x: fnp.squeeze(x, axis), (draw(arrays(shape)),))


@spec(FNP, "broadcast_to")
def _broadcast_to(draw, name):
    shape = draw(SHAPES)
    lead = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    target = lead + tuple(d if d != 1 else draw(st.integers(1, 3)) for d in shape)
    return Case(lambda x: fnp.broadcast_to(x, target), (draw(arrays(shape)),))


@spec(FNP, "concatenate", "stack")
def _join(draw, name):
    shape = list(draw(NONSCALAR))
    k = draw(st.integers(1, 3))
    if name == "concatenate":
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        shapes = []
        for _ in range(k):
            s = list(shape)
            s[axis] = draw(st.integers(1, 3))
            shapes.append(tuple(s))
    else:
        axis = draw(st.integers(-(len(shape) + 1), len(shape)))
        shapes = [tuple(shape)] * k
    xs = tuple(draw(arrays(s)) for s in shapes)
    f = getattr(fnp, name)
    return Case(lambda *xs: f(list(xs), axis=axis), xs)


@spec(FNP, "split")
def _split(draw, name):
    shape = list(draw(NONSCALAR))
    axis = draw(st.integers(0, len(shape) - 1))
    sections = draw(st.sampled_from([1, 2, 3]))
    if draw(st.booleans()):
        shape[axis] = sections * draw(st.integers(1, 2))
        how = sections
    else:
        shape[axis] = 4
        how = [1, 3]
    return Case(lambda x: fnp.split(x, how, axis=axis), (draw(arrays(tuple(shape))),))


@spec(FNP, "flip")
def _flip(draw, name):
    shape = draw(SHAPES)
    axis = axis_for(draw, len(shape))
    return Case(lambda x: fnp.flip(x, axis), (draw(arrays(shape)),))


@spec(FNP, "atleast_1d")
def _atleast_1d(draw, name):
    return Case(fnp.atleast_1d, (draw(arrays(draw(SHAPES))),))


# ----------------------------------------------------------------------------- contractions
MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((2, 2, 3), (3, 4)), ((2, 3), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)),
                 ((1, 2, 3), (2, 3, 1))]


@spec(FNP, "matmul")
def _matmul(draw, name):
    sa, sb = draw(st.sampled_from(MATMUL_SHAPES))
    return Case(fnp.matmul, (draw(arrays(sa)), draw(arrays(sb))))


@spec(FNP, "dot")
def _dot(draw, name):
    sa, sb = draw(st.sampled_from([((3,), (3,)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((), (2, 3)),
                                   ((2, 2, 3), (3,)), ((2, 3), (2, 3, 2))]))
    return Case(fnp.dot, (draw(arrays(sa)), draw(arrays(sb))))


@spec(FNP, "tensordot")
def _tensordot(draw, name):
    sa, sb, axes = draw(st.sampled_from([((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 2), 2),
                                         ((2, 3), (2, 3), 0), ((3, 2), (4, 3), ([0], [1])),
                                         ((2, 3, 4), (4, 2), ([0, 2], [1, 0]))]))
    return Case(lambda a, b: fnp.tensordot(a, b, axes), (draw(arrays(sa)), draw(arrays(sb))))


@spec(FNP, "outer", "inner", "vdot")
def _outerish(draw, name):
    if name == "inner":
        sa, sb = draw(st.sampled_from([((3,), (3,)), ((2, 3), (4, 3)), ((), (2,))]))
    else:
        sa, sb = draw(st.sampled_from([((3,), (3,)), ((2, 2), (4,))]))
        if name == "vdot":
            sb = sa
    return Case(getattr(fnp, name), (draw(arrays(sa)), draw(arrays(sb))))


@spec(FNP, "einsum")
def _einsum(draw, name):
    subs, shapes = draw(st.sampled_from([
        ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij->ji", [(2, 3)]), ("ii->i", [(3, 3)]),
        ("ii", [(3, 3)]), ("ij->", [(2, 3)]), ("i,i->", [(3,), (3,)]), ("i,j->ij", [(2,), (3,)]),
        ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ij,ij->i", [(2, 3), (2, 3)]),
        ("...j,jk->...k", [(2, 2, 3), (3, 2)]), ("ijk,kj->i", [(2, 3, 2), (2, 3)]),
        ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]), ("i,i,i->i", [(3,), (3,), (3,)])]))
    xs = tuple(draw(arrays(s)) for s in shapes)
    return Case(lambda *xs: fnp.einsum(subs, *xs), xs)


# ----------------------------------------------------------------------------- indexing
INDEXES = [
    lambda s: (0,), lambda s: (-1,), lambda s: (slice(None, None, -1),),
    lambda s: (slice(1, None),), lambda s: (None, Ellipsis), lambda s: (Ellipsis, 0),
    lambda s: (np.array([0, 0, s[0] - 1]),), lambda s: (np.array([[0, -1], [0, 0]]),),
    lambda s: (slice(None), None), lambda s: (np.arange(s[0]) % 2 == 0,),
]


@spec(FNP, "_getitem")
def _getitem(draw, name):
    shape = draw(NONSCALAR)
    idx = draw(st.sampled_from(INDEXES))(shape)
    if len(shape) >= 2 and draw(st.booleans()):
        idx = idx + (np.array([0, shape[1] - 1, 0]) if len(idx) == 1 and not isinstance(
            idx[0], np.ndarray) and idx[0] is not None and idx[0] is not Ellipsis
            else slice(0, 1),)
    return Case(lambda x: x[idx], (draw(arrays(shape)),))


# ----------------------------------------------------------------------------- creation
# name -> (keyword arguments); each is called on fnp and on numpy and compared
CREATION = {
    "zeros": ((2, 3),), "ones": (3, np.float32), "empty": ((0,),), "full": ((2, 2), 1.5),
    "arange": (1, 7, 2), "linspace": (0, 1, 5), "logspace": (0, 2, 3), "eye": (3, 4),
    "identity": (2,), "tri": (3,),
}


@spec(FNP, "array", "asarray")
def _array(draw, name):
    x = draw(arrays(draw(SHAPES)))
    f = getattr(fnp, name)
    if draw(st.booleans()):
        return Case(lambda x: f([x, 2.0 * x]), (x,))
    return Case(lambda x: f(x, dtype=np.float64), (x,))


@spec(FNP, "zeros_like", "ones_like", "empty_like")
def _like(draw, name):
    f = getattr(fnp, name)
    return Case(lambda x: x * 0.0 + f(x) if name != "empty_like" else f(x) * 0.0,
                (draw(arrays(draw(SHAPES))),), diff=True)


@spec(FNP, "full_like", "full")
def _full(draw, name):
    x = draw(arrays(draw(SHAPES)))
    if name == "full":
        return Case(lambda v: fnp.full((2, 3), v), (draw(arrays(())),))
    return Case(lambda x: fnp.full_like(x, 2.0) * x, (x,))


# ----------------------------------------------------------------------------- issue 8 additions
@spec(FNP, "divmod")
def _divmod(draw, name):
    sx, sy = draw(broadcast_pair())
    x, y = draw(arrays(sx, between_integers())), draw(arrays(sy, nonzero_divisors()))
    return Case(lambda x, y: fnp.divmod(x, y)[1] + fnp.divmod(x, y)[0], (x, y))


@spec(FNP, "any", "all")
def _any_all(draw, name):
    shape = draw(SHAPES)
    kw = {"axis": axis_for(draw, len(shape)), "keepdims": draw(st.booleans())}
    f = getattr(fnp, name)
    if draw(st.booleans()):  # of a bool array, or of numbers (nonzero = True)
        return Case(lambda x: f(x > 0, **kw), (draw(arrays(shape)),), diff=False)
    x = draw(arrays(shape)) * (draw(arrays(shape)) > 0)
    return Case(lambda x: f(x, **kw), (x,), diff=False)


@spec(FNP, "cumsum", "cumprod")
def _cumulative(draw, name):
    shape = draw(SHAPES)
    axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    dom = away_from_zero(0.5, 1.5) if name == "cumprod" else DEFAULT
    f = getattr(fnp, name)
    return Case(lambda x: f(x, axis=axis), (draw(arrays(shape, dom)),))


@spec(FNP, "sort", "argsort")
def _sort(draw, name):
    shape = draw(SHAPES)
    axis = draw(st.sampled_from([None] + ([-1] if shape else []) + list(range(len(shape)))))
    f = getattr(fnp, name)
    return Case(lambda x: f(x, axis=axis), (draw(arrays(shape, distinct())),),
                diff=name == "sort")


@spec(FNP, "take", "take_along_axis", "compress")
def _take(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.sampled_from([None] + list(range(len(shape)))))
    n = int(np.prod(shape)) if axis is None else shape[axis]
    x = draw(arrays(shape))
    if name == "take":
        mode = draw(st.sampled_from(["raise", "wrap", "clip"]))
        idx = np.array([0, n - 1, 0, -1] + ([n + 1, -n - 2] if mode != "raise" else []))
        return Case(lambda x: fnp.take(x, idx, axis=axis, mode=mode), (x,))
    if name == "compress":
        cond = np.arange(n) % 2 == 0
        return Case(lambda x: fnp.compress(cond, x, axis=axis), (x,))
    ax = -1 if axis is None else axis
    idx = np.argsort(x if axis is not None else x.ravel(), axis=ax)[..., ::-1]
    return Case(lambda x: fnp.take_along_axis(x, idx, axis=axis), (x,))


@spec(FNP, "repeat")
def _repeat(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.sampled_from([None] + list(range(len(shape)))))
    n = int(np.prod(shape)) if axis is None else shape[axis]
    reps = draw(st.sampled_from([2, list(np.arange(n) % 3)]))
    return Case(lambda x: fnp.repeat(x, reps, axis=axis), (draw(arrays(shape)),))


@spec(FNP, "diagonal", "trace")
def _diagonal(draw, name):
    shape = draw(hnp_shapes(2, 3))
    offset = draw(st.integers(-2, 2))
    a1, a2 = draw(st.permutations(range(len(shape))))[:2]
    f = getattr(fnp, name)
    return Case(lambda x: f(x, offset, a1, a2), (draw(arrays(shape)),))


def hnp_shapes(min_dims, max_dims):
    from hypothesis.extra import numpy as hnp
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=4)


@spec(FNP, "searchsorted")
def _searchsorted(draw, name):
    edges = np.array([-1.0, 0.0, 0.5, 1.5])
    side = draw(st.sampled_from(["left", "right"]))
    return Case(lambda v: fnp.searchsorted(edges, v, side=side),
                (draw(arrays(draw(SHAPES), between_integers(-2, 2))),), diff=False)


@spec(FNP, "copy")
def _copy(draw, name):
    return Case(fnp.copy, (draw(arrays(draw(SHAPES))),))


@spec(FNP, "linspace", "logspace")
def _linspace(draw, name):
    shape = draw(st.sampled_from([(), (2,), (2, 3)]))
    num = draw(st.sampled_from([1, 2, 5]))
    endpoint = draw(st.booleans())
    axis = draw(st.sampled_from([0, -1]))
    f = getattr(fnp, name)
    return Case(lambda a, b: f(a, b, num, endpoint, axis=axis),
                (draw(arrays(shape, uniform(-1, 0))), draw(arrays(shape, uniform(0.5, 1.5)))))


# ============================================================================= primitives
def _bind(prim, **params):
    return lambda *xs: prim.bind(*xs, **params)


PRIM_UNARY_DOMAINS = dict(UNARY_DOMAINS)


@spec(PRIM, *[p.name for p in E.ELEMENTWISE_PRIMITIVES])
def _prim_elementwise(draw, name):
    prim = getattr(E, name + "_p")
    shape = draw(SHAPES)
    n_in = {"select": 3}.get(name, 2 if name in [p.name for p in E.BINARY] else 1)
    if name == "select":
        pred = draw(arrays(shape)) > 0
        return Case(lambda a, b: prim.bind(pred, a, b), (draw(arrays(shape)),
                                                         draw(arrays(shape))))
    if name in COMPLEX_PARTS:
        return Case(_bind(prim), (draw(arrays(shape, COMPLEX, np.complex128)),))
    if name == "complex":  # (real parts in, a complex array out)
        return Case(_bind(prim), (draw(arrays(shape)), draw(arrays(shape))))
    if name == "convert_element_type":
        to = draw(st.sampled_from([np.float64, np.float32]))
        return Case(_bind(prim, new_dtype=np.dtype(to)), (draw(arrays(shape)),),
                    tol=1e-6 if to == np.float64 else 2e-3, eps=1e-5 if to == np.float64 else 1e-2)
    zero = {"sign", "floor", "ceil", "round", "logical_not", "isfinite", "isnan", "floor_divide",
            "lt", "le", "eq", "ne", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
    fnp_name = {"sub": "subtract", "mul": "multiply", "div": "divide", "pow": "power",
                "neg": "negative", "rem": "remainder"}.get(name, name)
    if fnp_name in INT_ONLY:
        lo = 0 if "shift" in name else -8
        return Case(_bind(prim), tuple(draw(int_arrays(shape, lo, 5 if lo == 0 else 8))
                                       for _ in range(n_in)), diff=False)
    if n_in == 1:
        x = draw(arrays(shape, PRIM_UNARY_DOMAINS.get(fnp_name, DEFAULT)))
        return Case(_bind(prim), (x,), diff=name not in zero)
    dx, dy = BINARY_DOMAINS.get(fnp_name, (DEFAULT, DEFAULT))
    x, y = _separate(name, draw(arrays(shape, dx)), draw(arrays(shape, dy)))
    return Case(_bind(prim), (x, y), diff=name not in zero)


@spec(PRIM, "reduce_sum", "reduce_max", "reduce_min", "reduce_prod")
def _prim_reduce(draw, name):
    shape = draw(SHAPES)
    axes = tuple(sorted(draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True,
                                      max_size=len(shape)))))
    dom = away_from_zero(0.5, 1.5) if name == "reduce_prod" else distinct()
    return Case(_bind(getattr(R, name + "_p"), axes=axes), (draw(arrays(shape, dom)),))


@spec(PRIM, "cumsum")
def _prim_cumsum(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.integers(0, len(shape) - 1))
    return Case(_bind(R.cumsum_p, axis=axis, reverse=draw(st.booleans())),
                (draw(arrays(shape)),))


@spec(PRIM, "cumprod")
def _prim_cumprod(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.integers(0, len(shape) - 1))
    return Case(_bind(R.cumprod_p, axis=axis, reverse=draw(st.booleans())),
                (draw(arrays(shape, away_from_zero(0.5, 1.5))),))


@spec(PRIM, "argsort")
def _prim_argsort(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.integers(0, len(shape) - 1))
    return Case(_bind(R.argsort_p, axis=axis, kind=draw(st.sampled_from([None, "stable"])),
                      index_dtype=np.dtype(np.int64)), (draw(arrays(shape, distinct())),),
                diff=False)


@spec(PRIM, "argmax", "argmin")
def _prim_arg(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.integers(0, len(shape) - 1))
    return Case(_bind(getattr(R, name + "_p"), axis=axis, index_dtype=np.dtype(np.int64)),
                (draw(arrays(shape, distinct())),), diff=False)


@spec(PRIM, "broadcast_in_dim")
def _prim_broadcast(draw, name):
    shape = draw(SHAPES)
    lead = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    out = lead + tuple(d if d != 1 else draw(st.integers(1, 3)) for d in shape)
    dims = tuple(range(len(lead), len(out)))
    return Case(_bind(S.broadcast_in_dim_p, shape=out, broadcast_dimensions=dims),
                (draw(arrays(shape)),))


@spec(PRIM, "reshape")
def _prim_reshape(draw, name):
    shape = draw(SHAPES)
    n = int(np.prod(shape))
    return Case(_bind(S.reshape_p, new_sizes=draw(st.sampled_from([(n,), (1, n), (n, 1, 1)]))),
                (draw(arrays(shape)),))


@spec(PRIM, "transpose")
def _prim_transpose(draw, name):
    shape = draw(SHAPES)
    perm = tuple(draw(st.permutations(range(len(shape)))))
    return Case(_bind(S.transpose_p, permutation=perm), (draw(arrays(shape)),))


@spec(PRIM, "concatenate")
def _prim_concatenate(draw, name):
    shape = list(draw(NONSCALAR))
    dim = draw(st.integers(0, len(shape) - 1))
    xs = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(shape)
        s[dim] = draw(st.integers(1, 3))
        xs.append(draw(arrays(tuple(s))))
    return Case(_bind(S.concatenate_p, dimension=dim), tuple(xs))


@spec(PRIM, "getitem")
def _prim_getitem(draw, name):
    shape = draw(NONSCALAR)
    idx = np.array([0, shape[0] - 1, 0])
    spec_ = draw(st.sampled_from([(("int", 0),), (("slice", None, None, -1),),
                                  (None, ("array", 0)), (("array", 0), Ellipsis)]))
    arrays_ = (idx,) if any(isinstance(s, tuple) and s[0] == "array" for s in spec_) else ()
    return Case(lambda x: prim_getitem(x, arrays_, spec_), (draw(arrays(shape)),))


def prim_getitem(x, arrays_, spec_):
    return I.getitem_p.bind(x, *arrays_, spec=spec_)


@spec(PRIM, "scatter_add")
def _prim_scatter_add(draw, name):
    shape = draw(NONSCALAR)
    idx = np.array([0, shape[0] - 1, 0])
    upd_shape = (3,) + tuple(shape[1:])
    return Case(lambda op, upd: I.scatter_add_p.bind(op, upd, idx, spec=(("array", 0),)),
                (draw(arrays(shape)), draw(arrays(upd_shape))))


@spec(PRIM, "dot_general")
def _prim_dot_general(draw, name):
    sa, sb, dn = draw(st.sampled_from([
        ((2, 3), (3, 4), (((1,), (0,)), ((), ()))),
        ((3, 2), (4, 3), (((0,), (1,)), ((), ()))),
        ((2, 3, 4), (2, 4, 3), (((2,), (1,)), ((0,), (0,)))),
        ((3, 2, 4), (4, 3, 2), (((2, 0), (0, 1)), ((), ()))),
        ((2, 3, 2), (2, 2, 3), (((1,), (2,)), ((0, 2), (1, 0)))),
        ((3,), (3,), (((0,), (0,)), ((), ()))),
        ((2,), (3,), (((), ()), ((), ()))),
    ]))
    return Case(_bind(D.dot_general_p, dimension_numbers=dn), (draw(arrays(sa)),
                                                               draw(arrays(sb))))


@spec(PRIM, "conv_general_dilated")
def _prim_conv(draw, name):
    """Tiny shapes: 2D NCHW with strides, padding (one negative), dilations and groups; 1D;
    NHWC/HWIO dimension numbers."""
    from fungrad.lax import convolution as C
    xs, ws, kw = draw(st.sampled_from([
        ((2, 4, 5, 4), (4, 2, 2, 2), dict(window_strides=(2, 1), padding=((1, 0), (0, 1)),
                                          lhs_dilation=(1, 1), rhs_dilation=(1, 2),
                                          feature_group_count=2)),
        ((1, 2, 3, 4), (2, 2, 2, 2), dict(window_strides=(1, 2), padding=((1, 1), (1, -1)),
                                          lhs_dilation=(2, 1), rhs_dilation=(1, 1),
                                          feature_group_count=1)),
        ((2, 2, 6), (3, 2, 3), dict(window_strides=(2,), padding=((1, 1),), lhs_dilation=(1,),
                                    rhs_dilation=(1,), feature_group_count=1)),
    ]))
    dn = tuple(tuple(range(len(xs))) for _ in range(3))
    if draw(st.booleans()):  # the same case in NHWC / HWIO / NHWC layout
        nd = len(xs) - 2
        to_last = (0,) + tuple(range(2, nd + 2)) + (1,)
        w_last = tuple(range(2, nd + 2)) + (1, 0)
        xs = tuple(xs[i] for i in to_last)
        ws = tuple(ws[i] for i in w_last)
        dn = ((0, nd + 1) + tuple(range(1, nd + 1)), (nd + 1, nd) + tuple(range(nd)),
              (0, nd + 1) + tuple(range(1, nd + 1)))
    return Case(_bind(C.conv_general_dilated_p, dimension_numbers=dn, **kw),
                (draw(arrays(xs)), draw(arrays(ws))))


@spec(PRIM, "add_any")
def _prim_add_any(draw, name):
    shape = draw(SHAPES)
    return Case(_bind(add_any_p), (draw(arrays(shape)), draw(arrays(shape))))


@spec(PRIM, "stop_gradient")
def _prim_stop_gradient(draw, name):
    return Case(_bind(stop_gradient_p), (draw(arrays(draw(SHAPES))),), diff=False)


def _host_array(v):
    assert type(v) is np.ndarray, f"a debug callback got a {type(v).__name__}"


def _with_callback(x):
    """A callback of x between two primitives: it must leave every transform's values alone."""
    fg.debug.callback(_host_array, x)
    return fnp.sin(x) * 2.0


@spec(PRIM, "debug_callback")
def _prim_debug_callback(draw, name):
    return Case(_with_callback, (draw(arrays(draw(SHAPES))),))


def _passing_checks(x):
    """Code that passes a check of every kind (a user check, a traced index, a divisor, NaN
    tests of every output): values and derivatives must be those of the code alone."""
    fg.checkify.check(fnp.all(x == x), "never fails: {}", x)
    flat = fnp.ravel(x)
    i = fnp.sum(flat > 1e4)  # (a traced index, always 0)
    return fnp.sin(x) / (x * x + 1.0) + flat[i]


@spec(PRIM, "check", "checkify_begin", "checkify_end")
def _prim_checkify(draw, name):
    f = fg.checkify.checkify(_passing_checks, errors=fg.checkify.all_checks)
    return Case(lambda x: f(x)[1], (draw(arrays(draw(SHAPES))),))


def _keys(draw, batch=()):
    """Random-number keys (uint32, shape (*batch, 2))."""
    words = draw(st.lists(st.integers(0, 2 ** 32 - 1), min_size=2 * int(np.prod(batch)),
                          max_size=2 * int(np.prod(batch))))
    return np.array(words, np.uint32).reshape(tuple(batch) + (2,))


@spec(PRIM, "random_bits", "random_split")
def _prim_random_bits(draw, name):
    """Integer outputs of keys (with leading key batch dims): values, vmap over keys, jit."""
    keys = _keys(draw, draw(st.sampled_from([(), (2,), (1, 3)])))
    if name == "random_split":
        return Case(_bind(RND.random_split_p, num=draw(st.integers(1, 3))), (keys,), diff=False)
    return Case(_bind(RND.random_bits_p, shape=draw(SHAPES), width=draw(st.sampled_from([32, 64]))),
                (keys,), diff=False)


@spec(PRIM, "random_fold_in")
def _prim_random_fold_in(draw, name):
    batch = draw(st.sampled_from([(), (2,)]))
    data = np.array(draw(st.lists(st.integers(-2 ** 40, 2 ** 40), min_size=int(np.prod(batch)),
                                  max_size=int(np.prod(batch))))).reshape(batch)
    return Case(_bind(RND.random_fold_in_p), (_keys(draw, batch), data), diff=False)


@spec(PRIM, "random_gamma")
def _prim_random_gamma(draw, name):
    """No derivative in alpha (it raises), so alpha is a closed-over constant."""
    batch = draw(st.sampled_from([(), (2,)]))
    alpha = draw(arrays(batch + draw(SHAPES), uniform(0.3, 3.0)))
    return Case(lambda k: RND.random_gamma_p.bind(k, alpha), (_keys(draw, batch),), diff=False)


@spec(PRIM, "random_poisson")
def _prim_random_poisson(draw, name):
    """Integer counts: a zero derivative in lam, which is an operand (vmap over it too)."""
    batch = draw(st.sampled_from([(), (2,)]))
    lam = draw(arrays(batch + draw(SHAPES), uniform(0.0, 40.0)))
    return Case(_bind(RND.random_poisson_p), (_keys(draw, batch), lam), diff=False)


@spec(PRIM, "random_binomial")
def _prim_random_binomial(draw, name):
    """Counts (as floats): a zero derivative in n and p, both operands of one shape."""
    batch = draw(st.sampled_from([(), (2,)]))
    shape = batch + draw(SHAPES)
    n = draw(arrays(shape, uniform(0.0, 60.0)))
    p = draw(arrays(shape, uniform(0.05, 0.95)))
    return Case(_bind(RND.random_binomial_p), (_keys(draw, batch), n, p), diff=False)


def _jit_composite(x, y):
    return fnp.sin(x) * y + fnp.exp(-x * x), fnp.sum(fnp.tanh(x) * y)


@spec(PRIM, "jit_call")
def _prim_jit_call(draw, name):
    """A jitted composite with two outputs: under every transform it is bound as `jit_call`."""
    shape = draw(SHAPES)
    return Case(fg.jit(_jit_composite), (draw(arrays(shape)), draw(arrays(shape))))


def _int_index(f):
    """An integer index drawn as a float argument k + 0.5 (truncated inside the function), so
    the checker perturbs and batches it like any argument: vmap then sees batched indices,
    and its derivative is zero."""
    return E.convert_element_type(f, np.int64)


@spec(PRIM, "select_n")
def _prim_select_n(draw, name):
    """`which` as a float argument (batched under vmap): bool, a scalar or an array."""
    shape = draw(SHAPES)
    n = draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["array", "scalar"] + (["bool"] if n == 2 else [])))
    w_shape = () if kind == "scalar" else shape
    w = draw(int_arrays(w_shape, 0, n)).astype(np.float64) + 0.5
    if kind == "bool":
        w = w - 1.0  # -0.5 or 0.5: False or True

        def which(w):
            return E.gt(w, 0.0)
    else:
        which = _int_index
    cases = tuple(draw(arrays(shape)) for _ in range(n))
    return Case(lambda w, *cs: SL.select_n_p.bind(which(w), *cs), (w,) + cases)


def _starts_for(draw, shape, sizes):
    """Start indices (as floats k + 0.5 or -(k + 0.5)), some out of range (clamped)."""
    out = []
    for d, k in zip(shape, sizes):
        i = draw(st.integers(-d - 1, d + 1))
        out.append(np.float64(i + 0.5 if i >= 0 else i - 0.5))
    return out


@spec(PRIM, "dynamic_slice")
def _prim_dynamic_slice(draw, name):
    shape = draw(NONSCALAR)
    sizes = tuple(draw(st.integers(0 if d > 1 else 1, d)) for d in shape)
    starts = _starts_for(draw, shape, sizes)
    return Case(lambda x, *s: SL.dynamic_slice_p.bind(x, *map(_int_index, s),
                                                      slice_sizes=sizes),
                (draw(arrays(shape)),) + tuple(np.asarray(s) for s in starts))


@spec(PRIM, "dynamic_update_slice")
def _prim_dynamic_update_slice(draw, name):
    shape = draw(NONSCALAR)
    sizes = tuple(draw(st.integers(1, d)) for d in shape)
    starts = _starts_for(draw, shape, sizes)
    return Case(lambda x, u, *s: SL.dynamic_update_slice_p.bind(x, u, *map(_int_index, s)),
                (draw(arrays(shape)), draw(arrays(sizes))) + tuple(np.asarray(s) for s in starts))


def _cond_branches():
    return [lambda x, y: (fnp.sin(x) * y, x * 0.7),
            lambda x, y: (y * 2.0, fnp.exp(x)),
            lambda x, y: (x * x, y - x)]


@spec(PRIM, "cond")
def _prim_cond(draw, name):
    """cond and switch; the predicate/index is a float argument (k + 0.5, truncated), so vmap
    batches it (every branch runs, select_n picks) or not (the branches are batched)."""
    shape = draw(SHAPES)
    which = draw(st.sampled_from(["cond", "switch"]))
    n = 2 if which == "cond" else 3
    p = np.asarray(draw(st.integers(0, n - 1)) + 0.5)
    x, y = draw(arrays(shape)), draw(arrays(shape))
    if which == "cond":
        b = _cond_branches()
        return Case(lambda p, x, y: fg.lax.cond(p > 1.0, b[0], b[1], x, y), (p, x, y))
    return Case(lambda p, x, y: fg.lax.switch(_int_index(p), _cond_branches(), x, y),
                (p, x, y))


@spec(PRIM, "scan")
def _prim_scan(draw, name):
    """scan over 0-3 steps, forward or reversed, with a const (w), a carry and xs; the carry
    tangent and batch come from the const or xs too (fixed points)."""
    shape = draw(SHAPES)
    length = draw(st.integers(0, 3))
    reverse = draw(st.booleans())

    def f(w, c, xs):
        def step(c, x):
            return fnp.sin(c) * w + x, c * x
        return fg.lax.scan(step, c, xs, reverse=reverse)
    return Case(f, (draw(arrays(shape)), draw(arrays(shape)), draw(arrays((length,) + shape))))


@spec(PRIM, "while", "while_fwd", "while_lin", "while_bwd")
def _prim_while(draw, name):
    """while_loop whose trip count is a float argument n (k + 0.5): vmap batches it (a
    predicate per lane) or not; reverse mode records a tape (while_fwd) that the linear
    loop (while_lin) and its transpose (while_bwd) replay, optionally checkpointed. The
    tape primitives are checked through grad of the jitted loop (partial evaluation makes
    them); second order under jit is not supported (eagerly it differentiates a scan)."""
    shape = draw(SHAPES)
    n = np.asarray(draw(st.integers(0, 3)) + 0.5)
    checkpoint = draw(st.sampled_from([False, True, 2]))

    def f(n, w, x):
        return fg.lax.while_loop(lambda c: c[0] < n,
                                 lambda c: (c[0] + 1.0, fnp.sin(c[1]) * w + 0.5),
                                 (0.0, x), checkpoint=checkpoint)[1]
    args = (n, draw(arrays(shape)), draw(arrays(shape)))
    if name == "while":
        return Case(f, args)
    return Case(fg.jit(f), args, order2=False)


# ============================================================================= complex
# Complex cases, run by the test_complex_* tests of tests/test_registry.py: JVPs against
# finite differences along real and along imaginary directions, the transposition identity
# under the real pairing Re(sum(ct * t)), values, vmap and jit. One table per family; each
# elementwise function of fungrad.numpy is either here or in COMPLEX_REJECTED.
COMPLEX_CASES: dict = {}
COMPLEX_PARTS = ("real", "imag", "conj")


@spec(FNP, "real", "imag", "conj", "conjugate")
def _complex_parts(draw, name):
    real_input = draw(st.integers(0, 4)) == 0  # NumPy's real(x) / imag(x) of a real x
    x = draw(arrays(draw(SHAPES), DEFAULT if real_input else COMPLEX,
                    np.float64 if real_input else np.complex128))
    return Case(getattr(fnp, name), (x,), diff=not (real_input and name == "imag"))


_CUT_FREE = complex_domain(uniform(0.3, 2.0), uniform(-1.5, 1.5))      # Re z > 0
_SMALL = complex_domain(uniform(-0.8, 0.8), uniform(-0.8, 0.8))        # |Re|, |Im| < 1
_AWAY = complex_domain(away_from_zero(0.3), uniform(-1.5, 1.5))        # |z| >= 0.3
# domains away from each function's branch cuts and poles
COMPLEX_UNARY_DOMAINS = {
    "log": _CUT_FREE, "log2": _CUT_FREE, "log10": _CUT_FREE, "log1p": _CUT_FREE,
    "sqrt": _CUT_FREE, "arcsin": _SMALL, "arccos": _SMALL, "arctanh": _SMALL,
    "arctan": complex_domain(DEFAULT, uniform(-0.8, 0.8)),
    "arcsinh": complex_domain(DEFAULT, uniform(-0.8, 0.8)),
    "arccosh": complex_domain(DEFAULT, away_from_zero(0.3, 1.5)),  # off the cut (-inf, 1]
    "tan": complex_domain(uniform(-1.2, 1.2), uniform(-1.0, 1.0)),
    "reciprocal": _AWAY, "abs": _AWAY, "absolute": _AWAY, "sign": _AWAY,
    "round": complex_domain(between_integers(), between_integers()),
    "around": complex_domain(between_integers(), between_integers()),
}
COMPLEX_UNARY_ZERO_DERIV = UNARY_ZERO_DERIV - {"sign"}
# NumPy raises TypeError for complex operands of these (so does fungrad.numpy)
# NumPy has no complex loop for these: fnp raises its TypeError too (tested)
COMPLEX_REJECTED = {"floor", "ceil", "arctan2", "hypot", "logaddexp", "floor_divide", "remainder",
                    "mod", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert",
                    "bitwise_not", "invert", "left_shift", "right_shift", "bitwise_left_shift",
                    "bitwise_right_shift"}
COMPLEX_UNARY = [n for n in UNARY_NAMES if n not in COMPLEX_REJECTED]
COMPLEX_BINARY = [n for n in BINARY_NAMES if n not in COMPLEX_REJECTED]
COMPLEX_BINARY_DOMAINS = {
    "divide": (COMPLEX, _AWAY), "true_divide": (COMPLEX, _AWAY),
    "power": (_CUT_FREE, _SMALL), "pow": (_CUT_FREE, _SMALL),
}


def complex_or_real(draw, shape, domain):
    """A complex array from `domain`, or (one time in three) a real one from its real part:
    mixed operands check real/complex promotion."""
    x = draw(arrays(shape, domain, np.complex128))
    return x.real.copy() if draw(st.integers(0, 2)) == 0 else x


@spec(COMPLEX_CASES, *COMPLEX_UNARY)
def _complex_unary(draw, name):
    x = draw(arrays(draw(SHAPES), COMPLEX_UNARY_DOMAINS.get(name, COMPLEX), np.complex128))
    return Case(getattr(fnp, name), (x,), diff=name not in COMPLEX_UNARY_ZERO_DERIV)


@spec(COMPLEX_CASES, *COMPLEX_BINARY)
def _complex_binary(draw, name):
    sx, sy = draw(broadcast_pair())
    dx, dy = COMPLEX_BINARY_DOMAINS.get(name, (COMPLEX, COMPLEX))
    x = draw(arrays(sx, dx, np.complex128))
    y = complex_or_real(draw, sy, dy)
    if draw(st.booleans()) and not name.startswith("pow"):
        x, y = y, x
    if name in ("maximum", "minimum"):  # keep the lexicographic order strict (no ties)
        y = np.where(np.abs(np.real(x) - np.real(y)) < 0.1, y + 0.3, y)
    return Case(getattr(fnp, name), (x, y), diff=name not in BINARY_ZERO_DERIV)


@spec(COMPLEX_CASES, "where")
def _complex_where(draw, name):
    shape = draw(SHAPES)
    c = draw(arrays(shape)) > 0
    return Case(lambda x, y: fnp.where(c, x, y), (draw(arrays(shape, COMPLEX, np.complex128)),
                                                  complex_or_real(draw, shape, COMPLEX)))


@spec(COMPLEX_CASES, "sum", "mean", "prod", "max", "min", "var", "std")
def _complex_reduction(draw, name):
    shape = draw(NONSCALAR)
    re = away_from_zero(0.5, 1.5) if name == "prod" else distinct()  # distinct: no max ties
    x = draw(arrays(shape, complex_domain(re, uniform(-1.0, 1.0)), np.complex128))
    axis = axis_for(draw, len(shape))
    if name in ("var", "std"):  # over all of at least 3 elements (std is smooth off 0)
        axis = None
        if x.size < 3:
            x = draw(arrays((3,), complex_domain(re, uniform(-1.0, 1.0)), np.complex128))
    f = getattr(fnp, name)
    return Case(lambda x: f(x, axis=axis), (x,))


@spec(COMPLEX_CASES, "matmul", "dot", "tensordot", "outer", "inner", "vdot", "einsum")
def _complex_product(draw, name):
    """The real cases' shapes with complex (or mixed real/complex) operands."""
    case = draw(FNP[name])
    args = list(case.args)
    k = draw(st.integers(0, len(args) - 1))  # at least this operand is complex
    for i, a in enumerate(args):
        im = draw(arrays(a.shape))
        if i == k or draw(st.booleans()):
            args[i] = a + 1j * im
    return Case(case.fn, tuple(args))


@spec(COMPLEX_CASES, "convert_element_type")
def _complex_convert(draw, name):
    """real -> complex, complex -> complex64 and complex -> real (the real part, with NumPy's
    ComplexWarning, which the complex tests ignore)."""
    shape = draw(SHAPES)
    src, to = draw(st.sampled_from([(np.float64, np.complex128), (np.complex128, np.complex64),
                                    (np.complex128, np.float64)]))
    x = draw(arrays(shape, DEFAULT if src == np.float64 else COMPLEX, src))
    return Case(_bind(E.convert_element_type_p, new_dtype=np.dtype(to)), (x,), tol=1e-6 if to != np.complex64 else 2e-3,
                eps=1e-5 if to != np.complex64 else 1e-2)


# ----------------------------------------------------------------------------- custom rules
@fg.custom_jvp
def _custom_jvp_composite(x, y):
    return fnp.sin(x) * y, fnp.sum(fnp.tanh(x) * y)


@_custom_jvp_composite.defjvp
def _custom_jvp_composite_rule(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    c, th = fnp.cos(x), fnp.tanh(x)
    return (_custom_jvp_composite(x, y),
            (c * y * tx + fnp.sin(x) * ty, fnp.sum((1 - th * th) * y * tx + th * ty)))


@fg.custom_vjp
def _custom_vjp_composite(x, y):
    return fnp.sin(x) * y, fnp.sum(fnp.tanh(x) * y)


def _custom_vjp_composite_bwd(res, cts):
    x, y = res
    g, s = cts
    th = fnp.tanh(x)
    return g * fnp.cos(x) * y + s * (1 - th * th) * y, g * fnp.sin(x) + s * th


_custom_vjp_composite.defvjp(lambda x, y: (_custom_vjp_composite(x, y), (x, y)),
                             _custom_vjp_composite_bwd)


@spec(PRIM, "custom_jvp_call", "custom_vjp_call", "custom_vjp_bwd")
def _prim_custom(draw, name):
    """A function with a (correct) custom rule: under a transform it is bound as its
    custom call; custom_vjp_bwd is the linear part of a custom_vjp's JVP (forward mode
    evaluates it, reverse mode transposes it, second order differentiates it)."""
    shape = draw(SHAPES)
    fn = _custom_jvp_composite if name == "custom_jvp_call" else _custom_vjp_composite
    return Case(fn, (draw(arrays(shape)), draw(arrays(shape))))


def _affine_compose(first, second):
    """Two affine maps h -> a h + b in turn: associative, not commutative."""
    (a1, b1), (a2, b2) = first, second
    return a1 * a2, a2 * b1 + b2


@spec(FNP, "lax.associative_scan")
def _lax_associative_scan(draw, name):
    """A linear recurrence (pytree elems, non-commutative fn) along any axis, either way."""
    shape = draw(NONSCALAR)
    axis = draw(st.sampled_from(range(-len(shape), len(shape))))
    reverse = draw(st.booleans())
    a, b = draw(arrays(shape, uniform(-1.0, 1.0))), draw(arrays(shape))
    return Case(lambda a, b: fg.lax.associative_scan(_affine_compose, (a, b), reverse=reverse,
                                                     axis=axis), (a, b))



def _lax_shape_case(draw, name, x):
    """A static-argument call of one of fg.lax's shape functions on `x` (NONSCALAR)."""
    L, nd, shape = fg.lax, x.ndim, x.shape
    if name == "lax.broadcast_in_dim":
        out = list(shape)
        dims = list(range(nd))
        k = draw(st.integers(0, nd))
        out.insert(k, draw(st.integers(1, 3)))  # a new axis
        dims = [d if d < k else d + 1 for d in dims]
        if draw(st.booleans()) and nd >= 2:  # out of order (a transpose) with equal sizes
            x = x[..., :1, :1] if draw(st.booleans()) else x
            shape = x.shape
            out = [shape[i] for i in range(nd)]
            out.insert(k, 2)
            dims[-1], dims[-2] = dims[-2], dims[-1]
            out[dims[-1]], out[dims[-2]] = shape[-1], shape[-2]
        if 1 in shape:  # a size-1 axis stretched
            i = list(shape).index(1)
            out[dims[i]] = 3
        return Case(lambda x: L.broadcast_in_dim(x, tuple(out), tuple(dims)), (x,))
    if name == "lax.broadcast":
        return Case(lambda x: L.broadcast(x, (2,)), (x,))
    if name == "lax.reshape":
        perm = tuple(draw(st.permutations(range(nd))))
        return Case(lambda x: L.reshape(x, (x.size,), dimensions=perm), (x,))
    if name == "lax.transpose":
        perm = tuple(draw(st.permutations(range(nd))))
        return Case(lambda x: L.transpose(x, perm), (x,))
    if name == "lax.concatenate":
        d = draw(st.integers(0, nd - 1))
        other = list(shape)
        other[d] = draw(st.integers(1, 3))
        return Case(lambda x, y: L.concatenate([x, y], d), (x, draw(arrays(tuple(other)))))
    if name == "lax.squeeze":
        k = draw(st.integers(0, nd))
        return Case(lambda x: L.squeeze(x, (k - nd - 1,)),
                    (x.reshape(shape[:k] + (1,) + shape[k:]),))
    if name == "lax.expand_dims":
        k = draw(st.integers(-nd - 1, nd))
        return Case(lambda x: L.expand_dims(x, (k,)), (x,))
    if name == "lax.rev":
        dims = tuple(sorted(draw(st.sets(st.integers(0, nd - 1)))))
        return Case(lambda x: L.rev(x, dims), (x,))
    if name == "lax.slice":
        starts = [draw(st.integers(0, n - 1)) for n in shape]
        limits = [draw(st.integers(s + 1, n)) for s, n in zip(starts, shape)]
        strides = [draw(st.integers(1, 2)) for _ in shape]
        return Case(lambda x: L.slice(x, starts, limits, strides), (x,))
    d = draw(st.integers(-nd, nd - 1))
    n = shape[d]
    if name == "lax.slice_in_dim":
        lo, step = draw(st.integers(-n, n - 1)), draw(st.integers(1, 2))
        return Case(lambda x: L.slice_in_dim(x, lo, None, step, d), (x,))
    i, keep = draw(st.integers(-n, n - 1)), draw(st.booleans())
    return Case(lambda x: L.index_in_dim(x, i, d, keep), (x,))


@spec(FNP, "lax.broadcast_in_dim", "lax.broadcast", "lax.reshape", "lax.transpose",
      "lax.concatenate", "lax.squeeze", "lax.expand_dims", "lax.rev", "lax.slice",
      "lax.slice_in_dim", "lax.index_in_dim")
def _lax_shape(draw, name):
    """jax.lax's shape functions (static shapes, axes, bounds; out-of-order broadcast
    dimensions, negative slice_in_dim / index_in_dim bounds)."""
    return _lax_shape_case(draw, name, draw(arrays(draw(NONSCALAR))))


@spec(FNP, "lax.reduce_sum", "lax.reduce_prod", "lax.reduce_max", "lax.reduce_min",
      "lax.argmax", "lax.argmin", "lax.cumsum", "lax.cumprod", "lax.cummax", "lax.cummin",
      "lax.broadcasted_iota", "lax.iota")
def _lax_reductions(draw, name):
    """Reductions over distinct non-negative axes, argmax/argmin (weighting a sum, so the
    spec differentiates), cumulative ops either way (distinct values: no ties), iotas as
    weights."""
    L = fg.lax
    shape = draw(NONSCALAR)
    nd = len(shape)
    x = draw(arrays(shape, distinct(0.5, 2.0) if name == "lax.cumprod" else distinct()))
    fn = getattr(L, name[4:])
    if name.startswith("lax.reduce_"):
        axes = tuple(sorted(draw(st.sets(st.integers(0, nd - 1)))))
        return Case(lambda x: fn(x, axes), (x,))
    if name in ("lax.argmax", "lax.argmin"):
        a = draw(st.integers(0, nd - 1))
        return Case(lambda x: L.reduce_sum(x, (a,)) * L.convert_element_type(
            fn(x, a, np.int32), x.dtype), (x,))
    if name == "lax.iota":
        return Case(lambda x: fnp.multiply(x, L.iota(x.dtype, shape[-1])), (x,))
    if name == "lax.broadcasted_iota":
        a = draw(st.integers(0, nd - 1))
        return Case(lambda x: fnp.multiply(x, L.broadcasted_iota(x.dtype, shape, a)), (x,))
    a, rev = draw(st.integers(-nd, nd - 1)), draw(st.booleans())
    return Case(lambda x: fn(x, a, rev), (x,))


@spec(FNP, "lax.clamp", "lax.integer_pow", "lax.rsqrt", "lax.convert_element_type")
def _lax_elementwise(draw, name):
    """clamp with array or scalar bounds (away from ties), integer_pow of any sign, rsqrt,
    and a float -> float32 -> float conversion."""
    L = fg.lax
    shape = draw(SHAPES)
    if name == "lax.clamp":
        x = draw(arrays(shape))
        lo, hi = draw(arrays(shape, uniform(-1.5, -0.5))), draw(arrays(shape, uniform(0.5, 1.5)))
        x = np.where(np.abs(x - lo) < 0.1, x + 0.2, x)
        x = np.where(np.abs(x - hi) < 0.1, x - 0.2, x)
        if draw(st.booleans()):
            return Case(lambda lo, x, hi: L.clamp(lo, x, hi), (lo, x, hi))
        return Case(lambda x: L.clamp(-0.7, x, 0.8), (x,))
    if name == "lax.integer_pow":
        y = draw(st.integers(-2, 4))
        return Case(lambda x: L.integer_pow(x, y), (draw(arrays(shape, away_from_zero(0.5))),))
    if name == "lax.rsqrt":
        return Case(L.rsqrt, (draw(arrays(shape, uniform(0.3, 3.0))),))
    return Case(lambda x: L.convert_element_type(L.convert_element_type(x, np.float32),
                                                 np.float64), (draw(arrays(shape)),), tol=1e-3,
                eps=1e-2)


@spec(FNP, "lax.dot_general", "lax.top_k")
def _lax_dot_top_k(draw, name):
    """dot_general with batch and contracting dimensions anywhere (and a float32 operand
    promoted, or a preferred_element_type); top_k of distinct values along any axis."""
    L = fg.lax
    if name == "lax.top_k":
        shape = draw(NONSCALAR)
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        k = draw(st.integers(0, shape[axis]))
        return Case(lambda x: L.top_k(x, k, axis=axis)[0], (draw(arrays(shape, distinct())),))
    b, m, k, n = (draw(st.integers(1, 3)) for _ in range(4))
    x = draw(arrays((k, b, m)))
    y = draw(arrays((n, k, b)))
    pet = draw(st.sampled_from([None, np.float64]))
    return Case(lambda x, y: L.dot_general(x, y, (((0,), (1,)), ((1,), (2,))),
                                           preferred_element_type=pet), (x, y))


@spec(FNP, "lax.div", "lax.rem")
def _lax_div_rem(draw, name):
    """lax.div / lax.rem on floats of one shape (rem: C's fmod, away from its jumps), or with
    a weak Python scalar divisor."""
    shape = draw(SHAPES)
    fn = getattr(fg.lax, name[4:])
    if name == "lax.rem":
        x, y = draw(arrays(shape, between_integers())), draw(arrays(shape, nonzero_divisors()))
    else:
        x, y = draw(arrays(shape)), draw(arrays(shape, away_from_zero(0.5)))
    if draw(st.booleans()):
        return Case(lambda x: fn(x, -2.0), (x,))
    return Case(fn, (x, y))

_REMAT_POLICIES = [None, fg.checkpoint_policies.dots_saveable,
                   fg.checkpoint_policies.save_only_these_names("h"),
                   fg.checkpoint_policies.everything_saveable]


def _remat_body(x, y):
    h = fg.checkpoint_name(fnp.sin(x) * y, "h")
    return fnp.tanh(h) * x, fnp.sum(fnp.exp(h * 0.1) * y)


@spec(PRIM, "remat", "checkpoint_name", "optimization_barrier")
def _prim_remat(draw, name):
    """fg.checkpoint (with a policy) of a function whose values the policies treat differently
    (a named value, elementwise work); checkpoint_name tags one of them; optimization_barrier
    (what jit puts in front of an inlined checkpoint body) is an identity of its operands."""
    shape = draw(SHAPES)
    x, y = draw(arrays(shape)), draw(arrays(shape))
    if name == "optimization_barrier":
        from fungrad.lax.remat import barrier_p
        return Case(lambda x, y: tuple(barrier_p.bind(x, y, tag=0)), (x, y))
    if name == "checkpoint_name":
        return Case(lambda x: fg.checkpoint_name(x, "h") * 1.0, (x,))
    policy = draw(st.sampled_from(_REMAT_POLICIES))
    return Case(fg.checkpoint(_remat_body, policy=policy), (x, y))


# ----------------------------------------------------------------------------- per-area specs
# Each area of fungrad.numpy / fungrad.scipy keeps its specs in its own module, which
# registers into FNP / PRIM / COMPLEX_CASES on import (spec names of submodule functions
# carry their path: "linalg.solve", "fft.rfft", "scipy.special.gammaln").
from . import specs_apply  # noqa: E402,F401
from . import specs_statistics  # noqa: E402,F401
from . import specs_searching  # noqa: E402,F401
from . import specs_polynomial  # noqa: E402,F401
from . import specs_at  # noqa: E402,F401
from . import specs_manipulation  # noqa: E402,F401
from . import specs_fft  # noqa: E402,F401
from . import specs_elementwise  # noqa: E402,F401
from . import specs_scipy  # noqa: E402,F401
from . import specs_linalg  # noqa: E402,F401
from . import specs_signal  # noqa: E402,F401
from . import specs_special_more  # noqa: E402,F401
from . import specs_stats_more  # noqa: E402,F401
from . import specs_scipy_linalg_more  # noqa: E402,F401
from . import specs_scipy_signal_more  # noqa: E402,F401
from . import specs_lax_ops  # noqa: E402,F401
from . import specs_callbacks  # noqa: E402,F401
