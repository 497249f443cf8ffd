"""Grids and constructors: meshgrid, indices, ix_, the index-trick objects r_ c_ mgrid
ogrid, fromfunction, geomspace, trapezoid, 1-D convolve / correlate, window functions.

Traced pieces are allowed wherever NumPy takes array values (r_/c_ items, meshgrid/ix_
vectors, mgrid/ogrid bounds with a complex step, geomspace's ends); shapes stay static.
"""
from __future__ import annotations

import operator
import sys
from typing import Callable

import numpy as np

from ..backend import array_module, asarray as _asarray
from ..core.trace import Tracer
from ._base import cast, is_traced, lift, result_type, shape_of, traced_or_narrow

# window functions have no array input: NumPy's own constants
bartlett, blackman, hamming, hanning, kaiser = (np.bartlett, np.blackman, np.hamming,
                                                np.hanning, np.kaiser)


def _np(x):
    return x if isinstance(x, Tracer) else _asarray(x)  # (a CuPy array stays one)


# --------------------------------------------------------------------------- grids
def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
    """`numpy.meshgrid`: coordinate arrays from 1-D (flattened) vectors, 'xy' (Cartesian)
    or 'ij' (matrix) indexing, dense or `sparse`.

    Example:
        >>> X, Y = fnp.meshgrid(np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0]))
        >>> X
        array([[1., 2., 3.],
               [1., 2., 3.]])
        >>> Y
        array([[10., 10., 10.],
               [20., 20., 20.]])
    """
    xi = tuple(lift(x) for x in xi)
    if not is_traced(*xi):
        return np.meshgrid(*xi, copy=copy, sparse=sparse, indexing=indexing)
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    from ._shape import broadcast_to, reshape, ravel
    nd = len(xi)
    out = []
    for k, x in enumerate(xi):
        shape = [1] * nd
        shape[k] = -1
        if indexing == "xy" and nd > 1 and k < 2:
            shape[k], shape[1 - k] = 1, -1
        out.append(reshape(ravel(x) if isinstance(x, Tracer) else np.ravel(x), tuple(shape)))
    if sparse:
        return tuple(out)
    full = np.broadcast_shapes(*[shape_of(o) for o in out])
    return tuple(broadcast_to(o, full) for o in out)


def indices(dimensions, dtype=int, sparse: bool = False):
    """`numpy.indices` (a constant grid).

    Example:
        >>> rows, cols = fnp.indices((2, 3))
        >>> rows
        array([[0, 0, 0],
               [1, 1, 1]])
        >>> cols
        array([[0, 1, 2],
               [0, 1, 2]])
    """
    return np.indices(dimensions, dtype, sparse)


def ix_(*args):
    """`numpy.ix_`: open-mesh index arrays from 1-D integer (or concrete bool) vectors.

    Example:
        >>> x = np.arange(12).reshape(3, 4)
        >>> fnp.ix_([0, 2], [1, 3])
        (array([[0],
               [2]]), array([[1, 3]]))
        >>> x[fnp.ix_([0, 2], [1, 3])]
        array([[ 1,  3],
               [ 9, 11]])
    """
    args = tuple(lift(a) for a in args)
    if not is_traced(*args):
        return np.ix_(*args)
    out = []
    nd = len(args)
    for k, a in enumerate(args):
        if not isinstance(a, Tracer) and array_module(a) is np and not isinstance(a, np.ndarray):
            a = np.asarray(a)  # (NumPy's: an empty list is an empty index, not float64)
            a = a.astype(np.intp) if a.size == 0 else a
        if len(shape_of(a)) != 1:
            raise ValueError(f"ix_: cross index must be 1 dimensional, got shape {shape_of(a)}")
        if isinstance(a, Tracer) and a.aval.dtype == np.bool_:
            a = a.to_concrete("fnp.ix_(mask) with a boolean mask (its length depends on the "
                              "values; pass integer indices under jit/vmap)").nonzero()[0]
        elif not isinstance(a, Tracer) and a.dtype == np.bool_:
            a = a.nonzero()[0]
        out.append(a.reshape((1,) * k + (-1,) + (1,) * (nd - k - 1)))
    return tuple(out)


def fromfunction(function: Callable, shape, *, dtype=float, like=None, **kwargs):
    """`numpy.fromfunction`: `function(*fnp.indices(shape, dtype), **kwargs)`; the function
    may close over traced values. The indices are NumPy arrays, CuPy arrays for a CuPy
    `like`, or when NumPy ones fail with CuPy arrays that `function` closes over (CuPy's
    operators reject NumPy arrays).

    Example:
        >>> fnp.fromfunction(lambda i, j: i + 10 * j, (2, 3))
        array([[ 0., 10., 20.],
               [ 1., 11., 21.]])
        >>> fnp.fromfunction(lambda i, j: i == j, (2, 2), dtype=int)
        array([[ True, False],
               [False,  True]])
    """
    xp = array_module(like)
    try:
        return function(*xp.indices(shape, dtype=dtype), **kwargs)
    except TypeError:
        cupy = sys.modules.get("cupy")  # (imported only where CuPy arrays exist)
        if xp is not np or cupy is None:
            raise
    return function(*cupy.indices(shape, dtype=dtype), **kwargs)


# --------------------------------------------------------------------------- index tricks
def _grid_axis(s: slice):
    """One mgrid axis: (start, stop, step) with NumPy's rules; a complex step is a count
    (a linspace, differentiable in traced start/stop), a real one needs concrete bounds."""
    from ._creation import linspace
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex) or (np.iscomplexobj(step) and not isinstance(step, Tracer)):
        num = int(abs(step))
        return linspace(lift(start), lift(s.stop), num)
    for v in (start, s.stop, step):
        if isinstance(v, Tracer):
            raise TypeError("mgrid/ogrid/r_: a slice with a real step needs concrete bounds "
                            "(the length depends on them); use a complex step (start:stop:"
                            "5j, a count) for traced bounds")
    return np.arange(start, s.stop, step)


class _GridTrick:
    """`fnp.mgrid[...]` (dense) / `fnp.ogrid[...]` (open): NumPy's index trick; traced
    bounds are allowed with a complex step (the count)."""

    def __init__(self, sparse: bool):
        self.sparse = sparse
        self._np = np.ogrid if sparse else np.mgrid

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        if not any(is_traced(k.start, k.stop, k.step) for k in keys if isinstance(k, slice)):
            return self._np[key]
        axes = [_grid_axis(k) for k in keys]
        dt = result_type(*axes)
        axes = [cast(a, dt) for a in axes]
        if not isinstance(key, tuple):
            return axes[0]
        grids = meshgrid(*axes, sparse=self.sparse, indexing="ij")
        if self.sparse:
            return tuple(grids)
        from ._shape import stack
        return stack(grids)

    def __len__(self):
        return 0


mgrid = _GridTrick(sparse=False)
ogrid = _GridTrick(sparse=True)


class _Concat:
    """`fnp.r_[...]` / `fnp.c_[...]`: NumPy's concatenation index trick (slices, scalars,
    arrays, the directive string 'axis,ndmin,trans1d'); items may be traced."""

    def __init__(self, axis: int, ndmin: int, trans1d: int, np_obj):
        self.axis, self.ndmin, self.trans1d, self._np = axis, ndmin, trans1d, np_obj

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        if not any(is_traced(k.start, k.stop, k.step) if isinstance(k, slice) else
                   is_traced(lift(k)) for k in keys):
            return self._np[key]
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        parts, weak, scalar = [], [], []
        for i, k in enumerate(keys):
            if isinstance(k, str):
                if i != 0:
                    raise ValueError("r_/c_: a directive string must come first")
                if k in ("r", "c"):
                    raise NotImplementedError("r_/c_: matrix outputs ('r', 'c') are not "
                                              "supported on traced values")
                nums = [int(v) for v in k.split(",")]
                axis, ndmin, trans1d = (nums + [ndmin, trans1d][len(nums) - 1:])[:3]
                continue
            if isinstance(k, slice):
                item = _grid_axis(k)
                scalar.append(False)
            else:
                item = lift(k)
                scalar.append(type(item) in (int, float, complex, bool))
                if scalar[-1]:
                    weak.append(item)
                    item = np.asarray(item)
                else:
                    item = _np(item)
            parts.append(self._promote_ndim(item, ndmin, trans1d))
        # Python scalars are weak (NEP 50), as NumPy's r_ promotes them
        dt = result_type(*[p for p, s in zip(parts, scalar) if not s], *weak)
        from ._shape import concatenate
        return concatenate([cast(p, dt) for p in parts], axis=axis)

    @staticmethod
    def _promote_ndim(item, ndmin, trans1d):
        """NumPy's ndmin/trans1d rule: lift an item to ndmin dims, placing its own axes at
        position trans1d of the new shape."""
        nd = len(shape_of(item))
        if nd >= ndmin:
            return item
        from ._shape import reshape, transpose
        shape = (1,) * (ndmin - nd) + shape_of(item)
        out = reshape(item, shape) if isinstance(item, Tracer) else item.reshape(shape)
        if trans1d == -1:
            return out
        k2 = ndmin - nd
        k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
        order = list(range(ndmin))
        perm = order[:k1] + order[k2:] + order[k1:k2]
        return transpose(out, perm) if isinstance(out, Tracer) else out.transpose(perm)

    def __len__(self):
        return 0


r_ = _Concat(0, 1, -1, np.r_)
c_ = _Concat(-1, 2, 0, np.c_)


# --------------------------------------------------------------------------- sequences
def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """`numpy.geomspace`, differentiable in `start` and `stop` (same sign; arrays
    broadcast): `start * (stop / start) ** t`, with the ends exact as in NumPy.

    Example:
        >>> fnp.geomspace(1.0, 1000.0, 4)
        array([   1.,   10.,  100., 1000.])
        >>> fg.grad(lambda b: fnp.geomspace(1.0, b, 3)[1])(4.0)   # d sqrt(b) / db
        array(0.25)
    """
    start, stop = lift(start), lift(stop)
    xp = array_module(start, stop)  # (CuPy has no geomspace: the powers below)
    if not traced_or_narrow(start, stop) and xp is np:
        return np.geomspace(start, stop, num, endpoint, dtype, axis)
    from ._creation import linspace
    from ._elementwise import divide, multiply, power
    from ._shape import broadcast_to, concatenate, expand_dims, moveaxis
    num = operator.index(num)
    # NumPy promotes with a float64 zero (of `dtype` if given): float32 ends give float64
    dt = result_type(start, stop, float(num), np.zeros((), dtype))
    start, stop = cast(start, dt), cast(stop, dt)
    t = xp.asarray(linspace(0.0, 1.0, num, endpoint).astype(dt))
    nd = len(np.broadcast_shapes(shape_of(start), shape_of(stop)))
    t = t.reshape((-1,) + (1,) * nd)
    y = multiply(start, power(divide(stop, start), t))
    if num > 0:  # NumPy sets the ends exactly
        rest = shape_of(y)[1:]
        pieces = [expand_dims(broadcast_to(start, rest), 0)]
        if endpoint and num > 1:
            pieces += [y[1:-1], expand_dims(broadcast_to(stop, rest), 0)]
        else:
            pieces += [y[1:]]
        y = concatenate(pieces, axis=0)
    if axis != 0:
        y = moveaxis(y, 0, axis)
    return y if dtype is None else cast(y, np.dtype(dtype))


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """`numpy.trapezoid`: the trapezoidal rule along `axis`, with sample points `x` (1-D or
    y's shape) or spacing `dx`; differentiable in y, x and dx.

    Example:
        >>> fnp.trapezoid(np.array([0.0, 1.0, 4.0]))
        np.float64(3.0)
        >>> fnp.trapezoid(np.array([0.0, 1.0, 4.0]), x=np.array([0.0, 1.0, 3.0]))
        np.float64(5.5)
        >>> fg.grad(fnp.trapezoid)(np.array([0.0, 1.0, 4.0]))
        array([0.5, 1. , 0.5])
    """
    y, x = lift(y), lift(x)
    if not traced_or_narrow(y, x, dx):
        return np.trapezoid(y, x, dx, axis)
    from ._base import single_axis
    from ._elementwise import add, divide, multiply
    from ._reductions import sum as _sum
    from ..lax.indexing import slice_along
    y = _np(y)
    nd = len(shape_of(y))
    ax = single_axis("trapezoid", axis, nd)
    n = shape_of(y)[ax]
    from ._statistics import diff  # (NumPy's: bool sample points differ by not_equal)
    if x is None:
        d = dx
    else:
        x = _np(x)
        if len(shape_of(x)) == 1:
            d = diff(x).reshape((-1,) + (1,) * (nd - 1 - ax))
        else:
            d = diff(x, axis=ax)
    avg = add(slice_along(y, ax, 1, n), slice_along(y, ax, 0, n - 1))
    # (NumPy's order: the halves are taken before the sum)
    return _sum(divide(multiply(d, avg), 2.0), axis=ax)


# --------------------------------------------------------------------------- convolution
def _conv1d(fname, a, v, mode, start_of, prim):
    """The `mode` window of the full 1-D convolution (or unconjugated correlation) of a with
    v: one `prim` (fg.lax.signal's convolve1d / correlate1d, np.convolve underneath)."""
    a, v = _np(lift(a)), _np(lift(v))
    if len(shape_of(a)) != 1 or len(shape_of(v)) != 1:
        raise ValueError(f"{fname}: object too deep for desired array (a: {shape_of(a)}, v: "
                         f"{shape_of(v)}; both must be 1-D)")
    n, m = shape_of(a)[0], shape_of(v)[0]
    if n == 0 or m == 0:
        raise ValueError(f"{fname}: {'a' if n == 0 else 'v'} cannot be empty")
    length = {"full": n + m - 1, "same": max(n, m), "valid": abs(n - m) + 1}.get(mode)
    if length is None:
        raise ValueError(f"{fname}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    dt = result_type(a, v)
    return prim.bind(cast(a, dt), cast(v, dt), start=start_of(mode, n, m), length=length)


def _convolve_start(mode, n, m):
    return {"full": 0, "same": (min(n, m) - 1) // 2, "valid": min(n, m) - 1}[mode]


def _correlate_start(mode, n, m):
    if mode == "same":
        return (m - 1) // 2 if n >= m else n // 2
    return _convolve_start(mode, n, m)


def convolve(a, v, mode: str = "full"):
    """`numpy.convolve` of 1-D sequences (modes 'full', 'same', 'valid'), differentiable in
    both; one `convolve1d` primitive (np.convolve).

    Example:
        >>> fnp.convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
        array([0. , 1. , 2.5, 4. , 1.5])
        >>> fnp.convolve(np.array([0.0, 4.0, 0.0, 0.0]), np.array([0.25, 0.5, 0.25]), mode="same")
        array([1., 2., 1., 0.])
    """
    a, v = lift(a), lift(v)
    if not is_traced(a, v):
        return np.convolve(a, v, mode)
    from ..lax.signal import convolve1d_p
    return _conv1d("convolve", a, v, mode, _convolve_start, convolve1d_p)


def correlate(a, v, mode: str = "valid"):
    """`numpy.correlate` of 1-D sequences: sum_n a[n + k] * conj(v[n]) (modes 'valid',
    'same', 'full'), differentiable in both.

    Example:
        >>> fnp.correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
        array([3.5])
        >>> fnp.correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]), mode="full")
        array([0.5, 2. , 3.5, 3. , 0. ])
    """
    a, v = lift(a), lift(v)
    if not is_traced(a, v):
        return np.correlate(a, v, mode)
    from ._elementwise import conj
    from ..lax.signal import correlate1d_p
    v = _np(v)
    if result_type(a, v).kind == "c":
        v = conj(v)
    return _conv1d("correlate", a, v, mode, _correlate_start, correlate1d_p)
