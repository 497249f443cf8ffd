"""NumPy-style operators and methods on tracers, and NumPy's own functions on tracers.

`np.sin(tracer)` and `ndarray + tracer` reach fungrad.numpy through `__array_ufunc__` and
`__array_function__`, so plain NumPy code runs under transforms when fnp has the function.
"""
from __future__ import annotations

import numpy as np

from ..backend import asarray as _asarray, to_host
from ..core.trace import Tracer


def _to_array(v, dtype=None, copy=None):
    return np.asarray(v, dtype)


# Python conversions that need the value: name -> (what the error calls it, whether the result
# would cut a derivative, the conversion). bool() does not cut one (it only picks a branch), so
# `if x > 0:` works under grad; float(x) does, so it raises where the value is differentiated.
CONVERSIONS = {
    "__bool__": ("bool(x)", False, bool),
    "__float__": ("float(x) (math.* functions call it too)", True, float),
    "__int__": ("int(x)", True, int),
    "__complex__": ("complex(x)", True, complex),
    "__index__": ("an index conversion (operator.index(x), range(x), a slice bound, or a "
                  "NumPy array indexed with it: write fnp.take(a, x))", True,
                  lambda v: v.__index__()),
    # (the value's own methods: a CuPy value stays on its device until asked)
    "item": ("x.item()", True, lambda v, *args: _asarray(v).item(*args)),
    "tolist": ("x.tolist()", True, lambda v: _asarray(v).tolist()),
    "tobytes": ("x.tobytes()", True, lambda v, *args: _asarray(v).tobytes(*args)),
    "__array__": ("np.asarray(x) (np.float64(x), NumPy functions that fungrad.numpy does not "
                  "provide, and a NumPy array indexed with x call it: write fnp.take(a, x) or "
                  "fnp.take_along_axis)", True, _to_array),
}


def _numpy_name(func) -> str:
    """`np.linalg.norm` for numpy.linalg.norm (not `numpy.norm`)."""
    module = getattr(func, "__module__", None) or "numpy"
    sub = [p for p in module.split(".")[1:] if not p.startswith("_")]
    return ".".join(["np"] + sub + [func.__name__])


def _concrete_leaves(func, args) -> list:
    """`args` with each traced value (also inside lists/tuples) as its concrete NumPy value
    (a ConcretizationError naming the fix where it is abstract, as inside jit)."""
    what = (f"np.{func.__name__}(x) (NumPy's own: it does no array math; to see a value "
            "inside fg.jit, use fg.debug.print or fg.debug.callback)")

    def concrete(a):
        if isinstance(a, Tracer):
            return a.to_concrete(what)
        return type(a)(concrete(x) for x in a) if type(a) in (list, tuple) else a
    return [concrete(a) for a in args]


def _fnp_version(F, func):
    """The fungrad.numpy function for NumPy function `func` (same submodule), or None."""
    ns = F
    for part in _numpy_name(func).split(".")[1:-1]:
        ns = getattr(ns, part, None)
        if ns is None:
            return None
    fn = getattr(ns, func.__name__, None)
    return None if fn is None or fn is func or isinstance(fn, type) else fn


# ndarray methods that change the array in place -> the functional alternative to name
IN_PLACE = {
    "sort": "use y = fnp.sort(x, axis) instead",
    "partition": "use y = fnp.sort(x, axis) instead",
    "fill": "use y = fnp.full_like(x, value) instead",
    "resize": "use y = fnp.reshape(x, shape) (same size) or slicing / fnp.concatenate instead",
    "put": "build a new array (fnp.where, fnp.concatenate) instead",
    "itemset": "build a new array (fnp.where, fnp.concatenate) instead",
    "setfield": "build a new array instead",
    "setflags": "their flags cannot change",
    "byteswap": "byte order is not traced; convert a concrete array with NumPy",
}


def _choose(F, index, choices):
    """`index.choose(choices)`: choices[index[i]][i], a gather along a stacked axis."""
    shape = F.shape(index)
    stacked = F.stack([F.broadcast_to(c, shape) for c in choices])
    return F.take_along_axis(stacked, F.expand_dims(index, 0), 0)[0]


def _view(self, dtype=None, type=None):
    if dtype is not None or type is not None:
        raise TypeError(f"x.view(dtype) reinterprets memory, which traced values "
                        f"({self.aval.str_short()}) do not have; use x.astype(dtype) to convert")
    return self


def _format(self, spec):
    """f"{x}" prints the tracer; f"{x:.3f}" needs its value (concrete under grad and jvp)."""
    if not spec:
        return repr(self)
    v = to_host(self.to_concrete(f"format(x, {spec!r})"))  # (printing needs host values)
    return format(v[()] if v.ndim == 0 else v, spec)


def _scalar_power(F, x, p):
    """`x ** p` as ndarray's operator computes it: for a Python scalar exponent NumPy takes
    a shortcut (square for 2, also of bools: int8; reciprocal for -1 and sqrt for 0.5 on
    inexact arrays), whose results differ from np.power's at the edges (complex inf ** -1
    is 0 there, NaN by power; (-0.0) ** 0.5 is -0.0)."""
    if type(p) in (int, float):
        kind = x.aval.dtype.kind
        # only where the values or dtype differ from np.power's (x ** 2 stays a power in
        # the IR): a float exponent of an integer array promotes, -1.0 takes no shortcut
        if p == 2 and type(p) is int and kind == "b":
            return F.square(x)
        if (p == -1 and type(p) is int and kind == "c") or (p == 0.5 and kind in "fcV"):
            return F.reciprocal(x) if p == -1 else F.sqrt(x)
    return F.power(x, p)


def install(fnp):
    from ._indexing import getitem
    F = fnp

    def swap(f):
        return lambda self, other: f(other, self)

    ops = {
        "__add__": F.add, "__radd__": swap(F.add), "__sub__": F.subtract,
        "__rsub__": swap(F.subtract), "__mul__": F.multiply, "__rmul__": swap(F.multiply),
        "__truediv__": F.divide, "__rtruediv__": swap(F.divide),
        "__floordiv__": F.floor_divide, "__rfloordiv__": swap(F.floor_divide),
        "__pow__": lambda self, p: _scalar_power(F, self, p), "__rpow__": swap(F.power), "__matmul__": F.matmul,
        "__rmatmul__": swap(F.matmul), "__lt__": F.less, "__le__": F.less_equal,
        "__eq__": F.equal, "__ne__": F.not_equal, "__gt__": F.greater,
        "__ge__": F.greater_equal, "__mod__": F.remainder, "__rmod__": swap(F.remainder),
        "__divmod__": F.divmod, "__rdivmod__": swap(F.divmod),
        # bitwise on integers, logical on bools (NumPy's & | ^ ~ are bitwise ufuncs)
        "__and__": F.bitwise_and, "__rand__": swap(F.bitwise_and), "__or__": F.bitwise_or,
        "__ror__": swap(F.bitwise_or), "__xor__": F.bitwise_xor, "__rxor__": swap(F.bitwise_xor),
        "__lshift__": F.left_shift, "__rlshift__": swap(F.left_shift),
        "__rshift__": F.right_shift, "__rrshift__": swap(F.right_shift), "__invert__": F.invert,
        "__neg__": F.negative, "__pos__": F.positive, "__abs__": F.abs,
        "__round__": lambda self, ndigits=None: F.round(self, ndigits or 0),
        "__getitem__": getitem, "__contains__": lambda self, v: bool(F.any(F.equal(self, v))),
        "__copy__": lambda self: self, "__deepcopy__": lambda self, memo=None: self,
        "sum": F.sum, "mean": F.mean, "max": F.max, "min": F.min, "prod": F.prod,
        "var": F.var, "std": F.std, "argmax": F.argmax, "argmin": F.argmin,
        "ravel": F.ravel, "flatten": F.ravel, "squeeze": F.squeeze, "dot": F.dot,
        "clip": F.clip, "swapaxes": F.swapaxes, "round": F.round, "any": F.any, "all": F.all,
        "cumsum": F.cumsum, "cumprod": F.cumprod, "argsort": F.argsort, "repeat": F.repeat,
        "take": F.take, "trace": F.trace, "diagonal": F.diagonal, "nonzero": F.nonzero,
        "searchsorted": F.searchsorted, "copy": lambda self, order="K": self,
        "compress": lambda self, condition, axis=None: F.compress(condition, self, axis),
        "view": _view, "__format__": _format,
        # a full sort is a valid partition (NumPy leaves the order within each side open)
        "argpartition": lambda self, kth, axis=-1, kind=None, order=None: F.argsort(self, axis),
        "choose": lambda self, choices, out=None, mode="raise": _choose(F, self, choices),
    }
    for name, fn in ops.items():
        setattr(Tracer, name, fn)

    def reshape(self, *shape, order="C"):
        return F.reshape(self, shape[0] if len(shape) == 1 else shape, order=order)

    def transpose(self, *axes):
        return F.transpose(self, axes[0] if len(axes) == 1 else (axes or None))

    def astype(self, dtype):
        return F.asarray(self, dtype=dtype)

    def concrete(what, cuts, conv):
        return lambda self, *args, **kwargs: conv(self.to_concrete(what, cuts), *args, **kwargs)

    def setitem(self, idx, value):
        raise TypeError(f"traced arrays are immutable ({self.aval.str_short()}): x[idx] = v is "
                        "not supported; write y = x.at[idx].set(v) (JAX's functional update; "
                        "also .add, .multiply, .min, .max), or build a new array with fnp.where")

    def in_place(method, fix):
        def raise_(self, *args, **kwargs):
            raise TypeError(f"traced arrays are immutable ({self.aval.str_short()}): x.{method}() "
                            f"changes x in place; {fix}")
        return raise_

    for name, fix in IN_PLACE.items():
        setattr(Tracer, name, in_place(name, fix))
    Tracer.__setitem__ = setitem
    Tracer.__delitem__ = in_place("__delitem__", "build a new array (fnp.concatenate) instead")
    Tracer.flat = property(lambda self: F.ravel(self))
    Tracer.itemsize = property(lambda self: self.aval.dtype.itemsize)
    Tracer.nbytes = property(lambda self: self.aval.size * self.aval.dtype.itemsize)
    Tracer.reshape = reshape
    Tracer.transpose = transpose
    Tracer.astype = astype
    Tracer.T = property(lambda self: F.transpose(self))
    Tracer.mT = property(lambda self: F.swapaxes(self, -1, -2))
    Tracer.real = property(lambda self: F.real(self))
    Tracer.imag = property(lambda self: F.imag(self))
    Tracer.conj = Tracer.conjugate = lambda self: F.conj(self)
    Tracer.at = property(lambda self: F.at(self))  # x.at[idx].set(v), ... (fnp._at)
    for name, (what, cuts, conv) in CONVERSIONS.items():
        setattr(Tracer, name, concrete(what, cuts, conv))

    def array_ufunc(self, ufunc, method, *inputs, **kwargs):
        fn = getattr(F, ufunc.__name__, None)
        if method != "__call__" or kwargs or fn is None:
            what = f"np.{ufunc.__name__}{'' if method == '__call__' else '.' + method}"
            fix = (f"call fnp.{ufunc.__name__}(...) without keyword arguments" if fn is not None
                   and method == "__call__" else "fungrad.numpy has no differentiable version "
                   "yet; write it with the fnp functions that exist")
            raise TypeError(f"{what} is not supported on traced values"
                            f"{' with keyword arguments' if kwargs else ''}: {fix}")
        return fn(*inputs)

    def array_function(self, func, types, args, kwargs):
        if getattr(F, func.__name__, None) is func:  # NumPy's own, re-exported (fnp._host)
            return func(*_concrete_leaves(func, args),
                        **dict(zip(kwargs, _concrete_leaves(func, kwargs.values()))))
        fn = _fnp_version(F, func)
        if fn is None:
            raise TypeError(f"{_numpy_name(func)} is not supported on traced values: "
                            "fungrad.numpy has no differentiable version yet; write it with "
                            "the fnp functions that exist")
        return fn(*args, **kwargs)

    Tracer.__array_ufunc__ = array_ufunc
    Tracer.__array_function__ = array_function
