"""Helpers shared by fungrad.scipy's modules: promotion of arguments to a float dtype."""
from __future__ import annotations

import numpy as np

from .. import numpy as fnp
from ..core.dtypes import is_inexact
from ..numpy._base import has_tracer, is_weak, lift, result_type


def float_dtype(fname, dt):
    """The computing dtype for promoted dtype `dt`: integers and bools compute in float64."""
    if dt.kind == "c":
        raise TypeError(f"fungrad.scipy.{fname}: complex arguments are not supported "
                        f"(got {dt}); pass the real and imaginary parts separately")
    return dt if is_inexact(dt) else np.dtype(np.float64)


def inexact(fname, *args):
    """`args` as fnp arrays (Python scalars kept weak) of their promoted float dtype."""
    args = tuple(lift(a) for a in args)
    dt = float_dtype(fname, np.dtype(result_type(*[a if is_weak(a) or has_tracer(a)
                                                 else np.asarray(a) for a in args])))
    return [a if is_weak(a) else fnp.asarray(a).astype(dt) for a in args]
