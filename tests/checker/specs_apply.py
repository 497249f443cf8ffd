"""Specs of fnp.apply_along_axis, apply_over_axes, vectorize (fungrad/numpy/_apply.py) and of
the layout-only conversions (fungrad/numpy/_conversions.py) and of ravel_multi_index /
unravel_index (fungrad/numpy/_index_math.py)."""
import numpy as np
from hypothesis import strategies as st

import fungrad.numpy as fnp

from .registry import FNP, Case, int_arrays, spec
from .strategies import NONSCALAR, SHAPES, arrays

# per-slice functions: to a scalar, to a vector of the same length, to a matrix
_FUNC1D = [lambda v: fnp.sum(fnp.sin(v) * v), lambda v: v * fnp.sum(v ** 2),
           lambda v: fnp.outer(v, fnp.cos(v))]


@spec(FNP, "apply_along_axis")
def _apply_along_axis(draw, name):
    shape = draw(NONSCALAR)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    func = draw(st.sampled_from(_FUNC1D))
    return Case(lambda x: fnp.apply_along_axis(func, axis, x), (draw(arrays(shape)),))


@spec(FNP, "apply_over_axes")
def _apply_over_axes(draw, name):
    shape = draw(NONSCALAR)
    axes = draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=2, unique=True))
    func = draw(st.sampled_from([fnp.sum, lambda a, ax: fnp.cumsum(a * a, ax)]))
    return Case(lambda x: fnp.apply_over_axes(func, x, axes), (draw(arrays(shape)),))


@spec(FNP, "vectorize")
def _vectorize(draw, name):
    if draw(st.booleans()):  # elementwise, broadcasting two arguments
        sx, sy = draw(SHAPES), draw(SHAPES)
        sy = sy[-len(sx):] if len(sx) else ()  # (broadcastable: a suffix of sx or ())
        sy = tuple(1 if draw(st.booleans()) else d for d in sx[len(sx) - len(sy):])
        f = fnp.vectorize(lambda a, b: fnp.sin(a) * b + a ** 2)
        return Case(f, (draw(arrays(sx)), draw(arrays(sy))))
    n = draw(st.integers(1, 3))
    loop = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
    f = fnp.vectorize(lambda a, b: fnp.sum(a * fnp.tanh(b)), signature="(n),(n)->()")
    return Case(f, (draw(arrays(loop + (n,))), draw(arrays((n,)))))


@spec(FNP, "asanyarray", "ascontiguousarray", "asfortranarray", "require")
def _conversion(draw, name):
    dtype = draw(st.sampled_from([None, "float64"]))
    return Case(lambda x: getattr(fnp, name)(x * 1.5, dtype), (draw(arrays(draw(SHAPES))),))


@spec(FNP, "ravel_multi_index")
def _ravel_multi_index(draw, name):
    dims = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    n = draw(st.integers(1, 4))
    mode = draw(st.sampled_from(["wrap", "clip"]))
    order = draw(st.sampled_from("CF"))
    idx = tuple(draw(int_arrays((n,), -2, d + 2)) for d in dims)
    return Case(lambda *i: fnp.ravel_multi_index(i, dims, mode=mode, order=order), idx,
                diff=False)


@spec(FNP, "unravel_index")
def _unravel_index(draw, name):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    order = draw(st.sampled_from("CF"))
    k = draw(int_arrays(draw(SHAPES), 0, int(np.prod(shape))))
    return Case(lambda k: fnp.unravel_index(k, shape, order=order), (k,), diff=False)
