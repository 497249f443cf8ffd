"""A CPU stand-in for CuPy, for tests only: arrays wrap NumPy arrays and follow real CuPy's
rules, so code that would fail on a GPU fails here too (tests/test_cupy_standin.py runs the
CuPy tests with it on PYTHONPATH; real CuPy on a GPU remains the reference):

- no implicit conversion: `np.asarray(x)` raises, `x.get()` copies;
- a CuPy ufunc refuses a `numpy.ndarray` operand (NumPy and Python scalars are fine), and a
  NumPy ufunc dispatches only by `__call__` to a ufunc CuPy has (no `.at`, `.reduce`, ...);
- `np.<func>(x)` dispatches only to a function CuPy has in the same namespace, and only with
  arguments CuPy's function takes (names and parameters: cupy_api.json, from CuPy 14.2);
- `xp.<ufunc>.at` only for the ufuncs and dtypes CuPy's scatter kernels take;
- sorts are stable (CuPy's always are); reductions give 0-d arrays, never scalars.
Not modelled: GPU rounding, cuSOLVER's choice of signs, CuPy's wrap-around of out-of-bounds
indices, the GPU's speed.
"""
import functools
import inspect
import json
from pathlib import Path

import numpy as _np

_API = json.loads((Path(__file__).parent.parent / "cupy_api.json").read_text())
_NAMES = {sub: set(names) for sub, names in _API["names"].items()}
__version__ = f"stand-in for CuPy {_API['version']}"
# the dtypes (NumPy type characters) CuPy's scatter kernels take, per ufunc
_AT_DTYPES = {"add": set("efdiIQL"), "subtract": set("efdiIQL"), "maximum": set("fdiIQL"),
              "minimum": set("fdiIQL")}


@functools.lru_cache(maxsize=None)
def _signature(sub, name):
    params = _API["signatures"].get(sub, {}).get(name)
    if params is None:
        return None
    return inspect.Signature([inspect.Parameter(n, kind, default=None if has_default else
                                                inspect.Parameter.empty)
                              for n, kind, has_default in params])


def _check_call(sub, name, args, kwargs):
    signature = _signature(sub, name)
    if signature is not None:
        try:
            signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"cupy.{name} (stand-in): {e}") from None


def _wrap(x):
    if isinstance(x, _np.ndarray):
        return ndarray(x)
    if isinstance(x, _np.generic):
        return ndarray(_np.asarray(x))
    if isinstance(x, tuple):  # (named results become plain tuples, as CuPy returns)
        return tuple(_wrap(y) for y in x)
    if isinstance(x, list):
        return [_wrap(y) for y in x]
    return x


def _unwrap(x, allow_numpy=False):
    if isinstance(x, ndarray):
        return x._a
    if type(x) is _np.ndarray and not allow_numpy:
        raise TypeError(f"Unsupported type <class 'numpy.ndarray'> (shape {x.shape})")
    if type(x) in (tuple, list):
        return type(x)(_unwrap(y, allow_numpy) for y in x)
    return x


def _unwrap_kwargs(kwargs, allow_numpy=False):
    return {k: _unwrap(v, allow_numpy) for k, v in kwargs.items()}


def _unwrap_index(x):
    """Indices may be NumPy arrays (CuPy copies them to the device)."""
    if isinstance(x, ndarray):
        return x._a
    if type(x) in (tuple, list):
        return type(x)(_unwrap_index(y) for y in x)
    return x


_OPERANDS = (_np.ndarray, _np.generic, int, float, complex, bool)


class ndarray(_np.lib.mixins.NDArrayOperatorsMixin):
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, a):
        self._a = a

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: ndarray(self._a.T))
    mT = property(lambda self: ndarray(self._a.mT))
    real = property(lambda self: ndarray(self._a.real))
    imag = property(lambda self: ndarray(self._a.imag))
    base = property(lambda self: None if self._a.base is None else ndarray(self._a.base))

    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` to construct a NumPy array explicitly.")

    def get(self, *args, **kwargs):
        return self._a.copy()

    def __repr__(self):
        return "cupy-stand-in." + repr(self._a)

    __str__ = __repr__

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __complex__(self):
        return complex(self._a)

    def __bool__(self):
        return bool(self._a)

    def __index__(self):
        return self._a.__index__()

    def __getitem__(self, index):
        return _wrap(_np.asarray(self._a[_unwrap_index(index)]))

    def __setitem__(self, index, value):
        self._a[_unwrap_index(index)] = _unwrap(value, allow_numpy=True)

    def __copy__(self):
        return ndarray(self._a.copy())

    def __deepcopy__(self, memo):
        return ndarray(self._a.copy())

    def __reduce__(self):
        return (array, (self._a,))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        out = kwargs.get("out")
        if method != "__call__" or ufunc.__name__ not in _NAMES["top"]:
            return NotImplemented
        if any(not isinstance(x, (ndarray,) + _OPERANDS) for x in inputs + (out or ())):
            return NotImplemented  # (a tracer: its own __array_ufunc__ takes over)
        if out is not None:
            if len(out) != 1:
                raise ValueError("The 'out' parameter must have exactly one array value")
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        result = ufunc(*_unwrap(inputs), **kwargs)
        return out[0] if out is not None else _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        parts = func.__module__.split(".")
        sub = parts[1] if len(parts) > 1 and parts[1] in ("linalg", "fft") else "top"
        if func.__name__ not in _NAMES[sub] or any(t not in (ndarray, _np.ndarray)
                                                   for t in types):
            return NotImplemented
        _check_call(sub, func.__name__, args, kwargs)
        if func.__name__ in ("sort", "argsort"):
            kwargs = dict(kwargs, kind="stable")
        return _wrap(func(*_unwrap(args), **_unwrap_kwargs(kwargs)))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        attr = getattr(self._a, name)
        if not callable(attr):
            return _wrap(attr)

        def method(*args, **kwargs):
            return _wrap(attr(*_unwrap(args), **_unwrap_kwargs(kwargs)))
        return method

    def argsort(self, axis=-1, kind=None):
        return ndarray(self._a.argsort(axis=axis, kind="stable"))

    def sort(self, axis=-1, kind=None):
        self._a.sort(axis, kind="stable")

    def item(self):
        return self._a.item()

    def tolist(self):
        return self._a.tolist()

    def fill(self, value):
        self._a.fill(_unwrap(value))

    def dot(self, b, out=None):
        return _wrap(_np.dot(self._a, _unwrap(b)))


class _UFunc:
    """cupy.<ufunc>: calls take stand-in arrays; `.at` only where CuPy implements it."""

    def __init__(self, ufunc):
        self._u = ufunc
        self.__name__ = ufunc.__name__
        self.nin, self.nout = ufunc.nin, ufunc.nout

    def _call(self, method, *args, **kwargs):
        out = kwargs.get("out")
        if out is not None:
            out = out if isinstance(out, tuple) else (out,)
            kwargs["out"] = tuple(_unwrap(o) for o in out)
        result = getattr(self._u, method)(*_unwrap(args), **kwargs)
        return out[0] if out is not None else _wrap(result)

    def __call__(self, *args, **kwargs):
        return self._call("__call__", *args, **kwargs)

    def outer(self, a, b, **kwargs):
        return self._call("outer", a, b, **kwargs)

    def reduce(self, a, *args, **kwargs):
        return self._call("reduce", a, *args, **kwargs)

    def accumulate(self, a, *args, **kwargs):
        return self._call("accumulate", a, *args, **kwargs)

    def at(self, a, index, b=None):
        if self.__name__ not in _API["scatter_ufuncs"]:
            raise NotImplementedError(f"cupy.{self.__name__}.at (stand-in)")
        if a.dtype.char not in _AT_DTYPES.get(self.__name__, a.dtype.char):
            raise TypeError(f"cupy.{self.__name__}.at (stand-in) does not take {a.dtype}")
        extra = () if b is None else (_unwrap(b),)
        self._u.at(a._a, _unwrap_index(index), *extra)


_CONVERTERS = {"asarray", "array", "asanyarray", "ascontiguousarray", "asfortranarray"}


def _attribute(namespace, sub, name):
    if name not in _NAMES[sub]:
        raise AttributeError(f"cupy{'' if sub == 'top' else '.' + sub} (stand-in) has no "
                             f"attribute {name!r}")
    value = getattr(namespace, name)
    if isinstance(value, _np.ufunc):
        return _UFunc(value)
    if isinstance(value, type) or not callable(value):
        return value
    allow_numpy = name in _CONVERTERS

    @functools.wraps(value)
    def function(*args, **kwargs):
        _check_call(sub, name, args, kwargs)
        if name in ("sort", "argsort"):
            kwargs = dict(kwargs, kind="stable")
        return _wrap(value(*_unwrap(args, allow_numpy), **_unwrap_kwargs(kwargs, allow_numpy)))
    return function


def __getattr__(name):
    return _attribute(_np, "top", name)


def asarray(a, dtype=None, order=None, **kwargs):
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == dtype else ndarray(a._a.astype(dtype))
    return ndarray(_np.array(_unwrap(a, True), dtype=dtype))


def array(a, dtype=None, copy=True, **kwargs):
    return ndarray(_np.array(_unwrap(a, True), dtype=dtype))


def asnumpy(x, *args, **kwargs):
    return x.get() if isinstance(x, ndarray) else _np.asarray(x)


def get_array_module(*args):
    import sys
    return sys.modules[__name__] if any(isinstance(a, ndarray) for a in args) else _np


class _Namespace:
    def __init__(self, namespace, sub):
        self._namespace, self._sub = namespace, sub

    def __getattr__(self, name):
        return _attribute(self._namespace, self._sub, name)


linalg = _Namespace(_np.linalg, "linalg")
fft = _Namespace(_np.fft, "fft")


class lib:
    class stride_tricks:
        @staticmethod
        def sliding_window_view(x, window_shape, axis=None, **kwargs):
            return ndarray(_np.lib.stride_tricks.sliding_window_view(x._a, window_shape,
                                                                     axis=axis, **kwargs))

        @staticmethod
        def as_strided(x, shape=None, strides=None, **kwargs):
            return ndarray(_np.lib.stride_tricks.as_strided(x._a, shape, strides, **kwargs))


class cuda:
    class runtime:
        @staticmethod
        def getDeviceCount():
            return 1

        @staticmethod
        def getDeviceProperties(i):
            return {"name": b"CPU stand-in"}

    class Device:
        def synchronize(self):
            pass
