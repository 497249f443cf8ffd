"""`result_type` and `promote_types`: NumPy's, with the promotion fungrad.numpy applies to
traced values (bfloat16 and ml_dtypes' other floats promote like float16)."""
from __future__ import annotations

import numpy as np

from ..core import dtypes as _dtypes
from ..core.trace import Tracer
from ._base import _promotion_operand, is_weak


def _operand(x):
    if is_weak(x) or isinstance(x, Tracer) or (
            hasattr(x, "dtype") and not isinstance(x, (type, np.dtype))):
        return _promotion_operand(x)  # arrays, tracers, NumPy scalars; Python scalars weak
    return np.dtype(x)


def result_type(*arrays_and_dtypes) -> np.dtype:
    """`numpy.result_type` (NEP 50: Python scalars are weak), also for traced values and
    ml_dtypes floats, exactly as fungrad.numpy promotes operands: a Python scalar never
    widens bfloat16, and bfloat16 with float16 gives float32.

    Example:
        >>> fnp.result_type(np.float32, 1.0)
        dtype('float32')
        >>> fnp.result_type(np.array([1, 2], np.int8), np.float16)
        dtype('float16')
    """
    return _dtypes.result_type(*[_operand(x) for x in arrays_and_dtypes])


def promote_types(type1, type2) -> np.dtype:
    """`numpy.promote_types`, with ml_dtypes floats promoting like float16 (bfloat16 with
    float16 gives float32).

    Example:
        >>> fnp.promote_types(np.float16, np.int16)
        dtype('float32')
        >>> fnp.promote_types(np.uint8, np.int8)
        dtype('int16')
    """
    return _dtypes.result_type(np.dtype(type1), np.dtype(type2))


def finfo(dtype):
    """`numpy.finfo` (machine limits of a float dtype), also for ml_dtypes floats such as
    bfloat16 (NumPy's refuses them: `ml_dtypes.finfo` answers) and for arrays and traced
    values (their dtype's).

    Example:
        >>> import ml_dtypes
        >>> float(fnp.finfo(ml_dtypes.bfloat16).eps)
        0.0078125
    """
    dt = getattr(dtype, "dtype", dtype)
    if not isinstance(dt, type) or not issubclass(dt, (float, complex)):
        try:
            dt = np.dtype(dt)
        except TypeError:
            return np.finfo(dtype)
        if dt.kind == "V":
            import ml_dtypes
            return ml_dtypes.finfo(dt)
    return np.finfo(dt)
