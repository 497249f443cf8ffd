"""Specs of `x.at[idx]` (fnp.at) and its scatter primitives (fungrad/lax/scatter.py)."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp
from fungrad.lax import scatter as SC

from .registry import COMPLEX_CASES, FNP, PRIM, Case, spec
from .strategies import COMPLEX, DEFAULT, NONSCALAR, arrays, away_from_zero, distinct


def _rows(draw, unique):
    """An operand shape and an index array into its first axis (repeating unless `unique`)."""
    shape = draw(NONSCALAR)
    n = shape[0]
    idx = np.array([n - 1, 0] if n > 1 else [0]) if unique else np.array([0, n - 1, 0])
    return shape, idx, (len(idx),) + tuple(shape[1:])


PRIMS = {"scatter": SC.scatter_p, "scatter_mul": SC.scatter_mul_p,
         "scatter_min": SC.scatter_min_p, "scatter_max": SC.scatter_max_p}


@spec(PRIM, *PRIMS)
def _prim_scatter(draw, name):
    # scatter_mul differentiates in the updates with unique indices only (fnp splits
    # repeats into rounds); min/max need distinct values (ties are kinks)
    unique = name == "scatter_mul" or draw(st.booleans())
    shape, idx, upd_shape = _rows(draw, unique)
    domain = {"scatter_min": distinct(), "scatter_max": distinct(),
              "scatter_mul": away_from_zero(0.5, 1.5)}.get(name, DEFAULT)
    n_op, n_upd = int(np.prod(shape)), int(np.prod(upd_shape))
    vals = draw(arrays((n_op + n_upd,), domain))  # drawn together: distinct across both
    op, upd = vals[:n_op].reshape(shape), vals[n_op:].reshape(upd_shape)
    prim = PRIMS[name]
    return Case(lambda o, u: prim.bind(o, u, idx, spec=(("array", 0),), unique=unique),
                (op, upd))


# ----------------------------------------------------------------------------- fnp.at
# index makers: shape -> index (every kind: int, negative int, slice, None, Ellipsis,
# integer arrays with repeats, boolean masks, mixtures)
INDEXES = [
    lambda s: 0, lambda s: -1, lambda s: slice(None, None, -1), lambda s: (Ellipsis, 0),
    lambda s: np.array([0, s[0] - 1, 0]), lambda s: (None, np.array([[0, -1], [0, 0]])),
    lambda s: np.arange(s[0]) % 2 == 0,
    lambda s: (slice(None), np.array([0, 0])) if len(s) > 1 else np.array([0, 0]),
]
METHODS = ["set", "add", "subtract", "multiply", "divide", "power", "min", "max", "get"]


@spec(FNP, "at", *[f"_at_{m}" for m in METHODS])
def _at(draw, name):
    method = "add" if name == "at" else name[len("_at_"):]
    shape = draw(NONSCALAR)
    idx = draw(st.sampled_from(INDEXES))(shape)
    x = draw(arrays(shape, distinct(0.5, 2.0) if method in ("min", "max", "power")
                    else away_from_zero(0.5, 1.5)))
    if method == "get":
        return Case(lambda x: fnp.at(x)[idx].get(), (x,))
    target = np.empty(shape)[idx].shape
    vshape = target[1:] if len(target) and draw(st.booleans()) else target  # broadcasting
    # multiply-like: values near 1; min/max: values apart from x's (no ties)
    domain = {"min": distinct(0.55, 1.95), "max": distinct(0.55, 1.95),
              "power": distinct(0.6, 1.4)}.get(method, away_from_zero(0.5, 1.5))
    v = draw(arrays(vshape, domain))
    if method in ("min", "max"):
        v = v + 0.013  # distinct() spaces values 0.05 apart: x and v never tie
    return Case(lambda x, v: getattr(fnp.at(x)[idx], method)(v), (x, v))


@spec(COMPLEX_CASES, "at", "_at_set", "_at_multiply")
def _complex_at(draw, name):
    method = {"at": "add", "_at_set": "set", "_at_multiply": "multiply"}[name]
    shape = draw(NONSCALAR)
    idx = draw(st.sampled_from(INDEXES))(shape)
    x = draw(arrays(shape, COMPLEX, np.complex128))
    v = draw(arrays(np.empty(shape)[idx].shape, COMPLEX, np.complex128))
    return Case(lambda x, v: getattr(fnp.at(x)[idx], method)(v), (x, v))
