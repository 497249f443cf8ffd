"""Specs of fungrad/numpy/_manipulation.py (tiling, triangles, joining, padding, selection,
functional puts) and of the `pad` primitive."""
from __future__ import annotations

import warnings

import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp
from fungrad.lax import shape as S
from fungrad.numpy._manipulation import _numpy_crosses_2_vectors

from .registry import COMPLEX_CASES, FNP, PRIM, Case, _int_index, hnp_shapes, spec
from .strategies import COMPLEX, NONSCALAR, SHAPES, arrays, distinct


def _shape(draw, lo, hi, side=4):
    return draw(hnp_shapes(lo, hi).filter(lambda s: max(s) <= side))


# ----------------------------------------------------------------------------- primitive
@spec(PRIM, "pad")
def _prim_pad(draw, name):
    shape = draw(SHAPES)
    config = tuple((draw(st.integers(-1 if d > 1 else 0, 2)), draw(st.integers(-1 if d > 1 else 0, 2)),
                    draw(st.integers(0, 2))) for d in shape)
    return Case(lambda x, v: S.pad_p.bind(x, v, padding_config=config),
                (draw(arrays(shape)), draw(arrays(()))))


# ----------------------------------------------------------------------------- tiling, rolling
@spec(FNP, "tile")
def _tile(draw, name):
    shape = draw(SHAPES)
    reps = draw(st.sampled_from([2, (2, 1), (1, 2, 1), (1,), (3,), (2, 1, 1, 2)]))
    return Case(lambda x: fnp.tile(x, reps), (draw(arrays(shape)),))


@spec(FNP, "roll")
def _roll(draw, name):
    shape = draw(NONSCALAR)
    nd = len(shape)
    x = draw(arrays(shape))
    kind = draw(st.sampled_from(["none", "int", "tuple", "traced"]))
    if kind == "traced":
        axis = draw(st.integers(-nd, nd - 1))
        k = draw(st.integers(-5, 5))  # drawn as a float k +- 0.5, truncated to an int inside
        s = np.asarray(k + (0.5 if k >= 0 else -0.5))
        return Case(lambda x, s: fnp.roll(x, _int_index(s), axis=axis), (x, s))
    shift = draw(st.integers(-5, 5))
    axis = None if kind == "none" else draw(st.integers(-nd, nd - 1))
    if kind == "tuple":
        shift, axis = (shift, draw(st.integers(-3, 3))), (axis, draw(st.integers(-nd, nd - 1)))
    return Case(lambda x: fnp.roll(x, shift, axis), (x,))


@spec(FNP, "rollaxis")
def _rollaxis(draw, name):
    shape = draw(NONSCALAR)
    nd = len(shape)
    axis, start = draw(st.integers(-nd, nd - 1)), draw(st.integers(-nd, nd))
    return Case(lambda x: fnp.rollaxis(x, axis, start), (draw(arrays(shape)),))


@spec(FNP, "rot90")
def _rot90(draw, name):
    shape = _shape(draw, 2, 3)
    nd = len(shape)
    i, j = draw(st.permutations(range(nd)))[:2]
    axes = (i - nd if draw(st.booleans()) else i, j)
    k = draw(st.integers(-2, 5))
    return Case(lambda x: fnp.rot90(x, k, axes), (draw(arrays(shape)),))


@spec(FNP, "flipud", "fliplr")
def _flipud(draw, name):
    shape = _shape(draw, 1 if name == "flipud" else 2, 3)
    return Case(getattr(fnp, name), (draw(arrays(shape)),))


# ----------------------------------------------------------------------------- triangles
@spec(FNP, "tril", "triu")
def _tri(draw, name):
    shape = _shape(draw, 1, 3)
    k = draw(st.integers(-2, 2))
    f = getattr(fnp, name)
    return Case(lambda x: f(x, k), (draw(arrays(shape)),))


@spec(FNP, "diag", "diagflat")
def _diag(draw, name):
    shape = _shape(draw, 1, 2) if name == "diag" else draw(SHAPES)
    k = draw(st.integers(-2, 2))
    f = getattr(fnp, name)
    return Case(lambda x: f(x, k), (draw(arrays(shape)),))


@spec(FNP, "fill_diagonal")
def _fill_diagonal(draw, name):
    shape = draw(st.sampled_from([(3, 3), (2, 4), (5, 2), (3, 3, 3), (7, 3)]))
    wrap = draw(st.booleans())
    vshape = draw(st.sampled_from([(), (2,), (4,)]))
    return Case(lambda x, v: fnp.fill_diagonal(x, v, wrap, inplace=False),
                (draw(arrays(shape)), draw(arrays(vshape))))


_INDEX_FNS = {
    "tril_indices": lambda x: x[fnp.tril_indices(3, -1, 4)],
    "triu_indices": lambda x: x[fnp.triu_indices(3, 1)],
    "tril_indices_from": lambda x: x[fnp.tril_indices_from(x, 1)],
    "triu_indices_from": lambda x: x[fnp.triu_indices_from(x)],
    "diag_indices": lambda x: x[fnp.diag_indices(3)],
    "diag_indices_from": lambda x: x[fnp.diag_indices_from(x)] * 2.0,
    "mask_indices": lambda x: x[fnp.mask_indices(3, fnp.triu, 1)],
}


@spec(FNP, *_INDEX_FNS)
def _index_fns(draw, name):
    return Case(_INDEX_FNS[name], (draw(arrays((3, 3) if "diag" in name else (3, 4))),))


# ----------------------------------------------------------------------------- joining, splitting
@spec(FNP, "hstack", "vstack", "row_stack", "dstack", "column_stack")
def _stacks(draw, name):
    base = draw(st.sampled_from([(), (3,), (2, 3), (2, 3, 2)]))
    k = draw(st.integers(1, 3))
    axis = {"hstack": 1 if len(base) > 1 else 0, "dstack": 2, "column_stack": 1}.get(name, 0)
    shapes = []
    for _ in range(k):
        s = list(base)
        if len(s) > axis and (axis or len(s) > 1) and (name != "column_stack" or len(s) > 1):
            s[axis] = draw(st.integers(1, 3))
        if name == "vstack" and len(s) == 0:
            s = []
        shapes.append(tuple(s))
    if name in ("hstack",) and not base:
        shapes = [()] * k
    xs = tuple(draw(arrays(s)) for s in shapes)
    f = getattr(fnp, name)
    return Case(lambda *xs: f(list(xs)), xs)


@spec(FNP, "block")
def _block(draw, name):
    layout = draw(st.sampled_from(["2x2", "row", "deep"]))
    if layout == "2x2":
        shapes = [(2, 1), (2, 3), (1, 1), (1, 3)]
        return Case(lambda a, b, c, d: fnp.block([[a, b], [c, d]]),
                    tuple(draw(arrays(s)) for s in shapes))
    if layout == "row":
        return Case(lambda a, b: fnp.block([a, b, 1.0]), (draw(arrays((2,))), draw(arrays(()))))
    return Case(lambda a, b: fnp.block([[[a], [b]]]), (draw(arrays((2,))), draw(arrays((2,)))))


@spec(FNP, "array_split")
def _array_split(draw, name):
    shape = draw(NONSCALAR)
    nd = len(shape)
    axis = draw(st.integers(-nd, nd - 1))
    how = draw(st.sampled_from([1, 2, 3, [1], [1, 3], [2, 1], [0, 5]]))
    return Case(lambda x: fnp.array_split(x, how, axis), (draw(arrays(shape)),))


@spec(FNP, "hsplit", "vsplit", "dsplit")
def _hvdsplit(draw, name):
    lo = {"hsplit": 1, "vsplit": 2, "dsplit": 3}[name]
    shape = list(_shape(draw, lo, 3))
    ax = {"hsplit": 1 if len(shape) > 1 else 0, "vsplit": 0, "dsplit": 2}[name]
    shape[ax] = 2
    how = draw(st.sampled_from([2, 1, [1]]))
    f = getattr(fnp, name)
    return Case(lambda x: f(x, how), (draw(arrays(tuple(shape))),))


@spec(FNP, "atleast_1d", "atleast_2d", "atleast_3d")
def _atleast(draw, name):
    f = getattr(fnp, name)
    if draw(st.booleans()):
        return Case(f, (draw(arrays(draw(SHAPES))),))
    return Case(lambda x, y: f(x, y), (draw(arrays(draw(SHAPES))), draw(arrays(draw(SHAPES)))))


@spec(FNP, "unstack")
def _unstack(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return Case(lambda x: fnp.unstack(x, axis=axis), (draw(arrays(shape)),))


@spec(FNP, "append")
def _append(draw, name):
    shape = draw(NONSCALAR)
    if draw(st.booleans()):
        return Case(lambda x, v: fnp.append(x, v), (draw(arrays(shape)), draw(arrays(draw(SHAPES)))))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    vs = list(shape)
    vs[axis] = draw(st.integers(1, 2))
    return Case(lambda x, v: fnp.append(x, v, axis=axis), (draw(arrays(shape)),
                                                           draw(arrays(tuple(vs)))))


@spec(FNP, "insert")
def _insert(draw, name):
    kind = draw(st.sampled_from(["flat", "row", "cols", "slice"]))
    if kind == "flat":
        return Case(lambda x, v: fnp.insert(x, [1, 1, -1], v), (draw(arrays((2, 2))),
                                                               draw(arrays(()))))
    if kind == "row":
        return Case(lambda x, v: fnp.insert(x, 1, v, axis=0), (draw(arrays((2, 3))),
                                                              draw(arrays((3,)))))
    if kind == "cols":
        return Case(lambda x, v: fnp.insert(x, [0, 2], v, axis=-1), (draw(arrays((2, 3))),
                                                                    draw(arrays((2, 1)))))
    return Case(lambda x: fnp.insert(x, slice(0, 3, 2), 5.0), (draw(arrays((4,))),))


@spec(FNP, "delete")
def _delete(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    n = int(np.prod(shape)) if axis is None else shape[axis]
    obj = draw(st.sampled_from([0, -1, [0, n - 1], slice(0, None, 2), np.arange(n) % 2 == 0]))
    return Case(lambda x: fnp.delete(x, obj, axis), (draw(arrays(shape)),))


@spec(FNP, "resize")
def _resize(draw, name):
    shape = draw(SHAPES)
    new = draw(st.sampled_from([(2, 3), 5, (1,), (3, 1, 2), 1]))
    return Case(lambda x: fnp.resize(x, new), (draw(arrays(shape)),))


# ----------------------------------------------------------------------------- padding
_PAD_WIDTHS = [1, (1, 2), ((0, 1),), [[2, 0]], 0, (3,)]


@spec(FNP, "pad")
def _pad(draw, name):
    shape = draw(SHAPES)
    width = draw(st.sampled_from(_PAD_WIDTHS))
    if len(shape) >= 2 and draw(st.booleans()):
        width = tuple((draw(st.integers(0, 3)), draw(st.integers(0, 3))) for _ in shape)
    mode = draw(st.sampled_from(["constant", "constant_traced", "edge", "reflect", "symmetric",
                                 "wrap", "linear_ramp", "maximum", "minimum", "mean", "median",
                                 "odd"]))
    x = draw(arrays(shape, distinct()))
    if mode == "constant_traced":
        return Case(lambda x, c: fnp.pad(x, width, constant_values=c), (x, draw(arrays((2,)))))
    if mode == "linear_ramp":
        return Case(lambda x, e: fnp.pad(x, width, "linear_ramp", end_values=e),
                    (x, draw(arrays(()))))
    kw = {}
    if mode == "constant":
        kw["constant_values"] = draw(st.sampled_from([0, 1.5, ((1, 2),), (3, -1)]))
    if mode == "odd":
        mode, kw["reflect_type"] = draw(st.sampled_from(["reflect", "symmetric"])), "odd"
    if mode in ("maximum", "minimum", "mean", "median"):
        kw["stat_length"] = draw(st.sampled_from([None, 1, 2, (1, 3)]))
    return Case(lambda x: fnp.pad(x, width, mode, **kw), (x,))


# ----------------------------------------------------------------------------- selection
@spec(FNP, "select")
def _select(draw, name):
    x = draw(arrays(draw(SHAPES)))
    return Case(lambda x, y: fnp.select([x < -0.5, x > 0.5, y > 0], [x * 2.0, y, x + y], 7.0),
                (x, draw(arrays(np.shape(x)))))


@spec(FNP, "piecewise")
def _piecewise(draw, name):
    x = draw(arrays(draw(SHAPES)))
    x = np.where(np.abs(x) < 0.1, 0.3, x)
    if draw(st.booleans()):
        return Case(lambda x: fnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v ** 2,
                                                               lambda v: v * 3.0]), (x,))
    return Case(lambda x: fnp.piecewise(x, [x < 0], [lambda v, k: v * k, 1.5], 2.0), (x,))


@spec(FNP, "choose")
def _choose(draw, name):
    shape = draw(SHAPES)
    mode = draw(st.sampled_from(["raise", "wrap", "clip"]))
    lo, hi = (0, 3) if mode == "raise" else (-2, 5)
    idx = np.random.default_rng(draw(st.integers(0, 99))).integers(lo, hi, size=shape)
    return Case(lambda a, b, c: fnp.choose(idx, [a, b, c], mode=mode),
                (draw(arrays(shape)), draw(arrays(shape[1:])), draw(arrays(()))))


@spec(FNP, "extract")
def _extract(draw, name):
    shape = draw(SHAPES)
    cond = np.arange(int(np.prod(shape))).reshape(shape) % 2 == 0
    return Case(lambda x: fnp.extract(cond, x), (draw(arrays(shape)),))


@spec(FNP, "put")
def _put(draw, name):
    shape = draw(NONSCALAR)
    n = int(np.prod(shape))
    mode = draw(st.sampled_from(["raise", "wrap", "clip"]))
    ind = [0, n - 1, 0] if mode == "raise" else [0, n + 1, -7]
    vshape = draw(st.sampled_from([(), (2,), (3,), (4,)]))
    return Case(lambda x, v: fnp.put(x, ind, v, mode=mode, inplace=False),
                (draw(arrays(shape)), draw(arrays(vshape))))


@spec(FNP, "put_along_axis")
def _put_along_axis(draw, name):
    shape = draw(NONSCALAR)
    nd = len(shape)
    axis = draw(st.sampled_from([None] + list(range(-nd, nd))))
    rng = np.random.default_rng(draw(st.integers(0, 99)))
    if axis is None:
        n = int(np.prod(shape))
        idx = rng.permutation(n)[:max(1, n // 2)]
        vshape = draw(st.sampled_from([(), idx.shape]))
    else:
        n = shape[axis]
        idx = np.argsort(rng.random(shape), axis=axis)
        idx = np.take(idx, [0], axis=axis) - n * draw(st.integers(0, 1))  # negative indices too
        vshape = draw(st.sampled_from([(), idx.shape]))
    return Case(lambda x, v: fnp.put_along_axis(x, idx, v, axis, inplace=False),
                (draw(arrays(shape)), draw(arrays(vshape))))


@spec(FNP, "place", "putmask")
def _place(draw, name):
    shape = draw(SHAPES)
    mask = np.arange(int(np.prod(shape))).reshape(shape) % 3 == 1
    vshape = draw(st.sampled_from([(1,), (2,), shape]))
    f = getattr(fnp, name)
    if draw(st.booleans()):  # a traced mask (from the values)
        return Case(lambda x, v: f(x, x > 0, v, inplace=False),
                    (draw(arrays(shape, distinct())), draw(arrays(vshape))))
    return Case(lambda x, v: f(x, mask, v, inplace=False), (draw(arrays(shape)),
                                                            draw(arrays(vshape))))


# ----------------------------------------------------------------------------- products
@spec(FNP, "kron")
def _kron(draw, name):
    sa, sb = draw(st.sampled_from([((2,), (3,)), ((2, 2), (2, 3)), ((), (2,)), ((3,), (2, 2)),
                                   ((2, 1, 2), (2, 2)), ((2, 3), ())]))
    return Case(fnp.kron, (draw(arrays(sa)), draw(arrays(sb))))


def _quiet(fn):
    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return fn(*args)
    return run


# 2-vectors only where the installed NumPy still takes them (deprecated in NumPy 2.0)
_CROSS_SHAPES = [((3,), (3,), {}), ((2, 3), (3,), {}), ((4, 3), (4, 3), {"axisc": 0}),
                 ((3, 2), (2, 3), {"axisa": 0, "axisc": -1}), ((3, 2), (3, 2), {"axis": 0}),
                 ((2, 3, 1), (3,), {"axisa": 1})]
if _numpy_crosses_2_vectors():
    _CROSS_SHAPES += [((2,), (2,), {}), ((2, 2), (3,), {}), ((3,), (1, 2), {})]


@spec(FNP, "cross")
def _cross(draw, name):
    sa, sb, kw = draw(st.sampled_from(_CROSS_SHAPES))
    return Case(_quiet(lambda a, b: fnp.cross(a, b, **kw)), (draw(arrays(sa)),
                                                             draw(arrays(sb))))


# ----------------------------------------------------------------------------- broadcasting, dtypes
@spec(FNP, "broadcast_arrays")
def _broadcast_arrays(draw, name):
    from .strategies import broadcast_pair
    sx, sy = draw(broadcast_pair())
    return Case(lambda x, y: fnp.broadcast_arrays(x, y), (draw(arrays(sx)), draw(arrays(sy))))


@spec(FNP, "broadcast_shapes")
def _broadcast_shapes(draw, name):
    shape = draw(SHAPES)
    lead = (2,) + (1,) * len(shape)
    return Case(lambda x: fnp.broadcast_to(x, fnp.broadcast_shapes(fnp.shape(x), lead)),
                (draw(arrays(shape)),))


@spec(FNP, "astype")
def _astype(draw, name):
    """(to float32: tests/test_manipulation.py; the narrow-float check runs float64 too)"""
    to = draw(st.sampled_from([np.float64, np.complex128]))
    return Case(lambda x: fnp.astype(x, to), (draw(arrays(draw(SHAPES))),))


# ----------------------------------------------------------------------------- complex
_COMPLEX_NAMES = ["tile", "roll", "rot90", "tril", "triu", "diag", "fill_diagonal", "insert",
                  "kron", "cross", "choose", "put", "put_along_axis", "block", "hstack"]


@spec(COMPLEX_CASES, *_COMPLEX_NAMES)
def _complex_manipulation(draw, name):
    """The real cases with complex (or mixed) float operands."""
    case = draw(FNP[name])
    args = list(case.args)
    floats = [i for i, a in enumerate(args) if a.dtype.kind == "f"]
    k = draw(st.sampled_from(floats))
    for i in floats:
        if i == k or draw(st.booleans()):
            args[i] = args[i] + 1j * draw(arrays(args[i].shape, COMPLEX)).imag
    return Case(case.fn, tuple(args), diff=case.diff, tol=case.tol, eps=case.eps)


@spec(COMPLEX_CASES, "pad")
def _complex_pad(draw, name):
    """The modes that copy or combine values linearly (the statistic modes order values)."""
    shape = draw(SHAPES)
    mode = draw(st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap",
                                 "linear_ramp"]))
    x = draw(arrays(shape, COMPLEX, np.complex128))
    if mode == "constant":
        return Case(lambda x, c: fnp.pad(x, (1, 2), constant_values=c),
                    (x, draw(arrays((), COMPLEX, np.complex128))))
    return Case(lambda x: fnp.pad(x, (2, 1), mode), (x,))
