"""Helpers shared by fungrad.scipy's modules: promotion of arguments to a float dtype."""
from __future__ import annotations

import numpy as np

from .. import numpy as fnp
from ..backend import array_module, asarray
from ..core.dtypes import is_inexact
from ..numpy._base import has_tracer, is_weak, lift, result_type


def float_dtype(fname, dt):
    """The computing dtype for promoted dtype `dt`: integers and bools compute in float64."""
    if dt.kind == "c":
        raise TypeError(f"fungrad.scipy.{fname}: complex arguments are not supported "
                        f"(got {dt}); pass the real and imaginary parts separately")
    if is_inexact(dt):
        return dt
    if dt.kind not in "biu":  # (None, a str, an object or datetime64 array: not a number)
        raise TypeError(f"fungrad.scipy.{fname}: arguments promote to dtype {dt}, which is "
                        "not a number (SciPy's ufuncs reject None, strings, objects and "
                        "datetime64 values); pass bool, integer or float arrays "
                        "(np.asarray(v, dtype=float))")
    return np.dtype(np.float64)


def inexact(fname, *args):
    """`args` as fnp arrays (Python scalars kept weak) of their promoted float dtype, on one
    device: a concrete NumPy array meeting a CuPy one (or a value traced over one) moves to
    the GPU, as a NumPy constant in a function of CuPy arrays must."""
    args = tuple(a if is_weak(a) or has_tracer(a) else asarray(a) for a in map(lift, args))
    dt = float_dtype(fname, np.dtype(result_type(*args)))
    xp = array_module(*args)
    return [a if is_weak(a) else fnp.asarray(a).astype(dt) if has_tracer(a)
            else xp.asarray(a, dt) for a in args]


def inexact_arrays(fname, *args):
    """`inexact`, with Python scalars too made arrays of the promoted dtype: a function whose
    masks select between its operands (fnp.where(mask, y, 1.0)) would otherwise get a
    float64 array from a Python y and a float32 x (where of two Python floats is float64)."""
    args = inexact(fname, *args)
    dt = np.dtype(result_type(*args))
    xp = array_module(*args)
    return [xp.asarray(a, dt) if is_weak(a) else a for a in args]
